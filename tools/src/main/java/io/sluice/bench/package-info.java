/**
 * {@code sluice bench}: measures sluice's write modes against each other and against the raw limit, on the
 * machine at hand, and reports ratios (absolute numbers on a shared 2-core machine are noise; ratios of modes
 * measured in the same run are what to compare), and against Neo4j's own server ({@code neo4j} mode, the same rows
 * through its HTTP APIs). {@code sluice import-bench} ({@link ImportBench},
 * on {@link Datasets}) does the same for the import paths, and {@code sluice bench-sources}
 * ({@link SourcesBench}) for application topics in: sluice's consumers against the raw limit and a
 * transaction per record, and their lag.
 *
 * <pre>
 *   ./sluice bench visited --modes direct,sync,raw --clients 64 --duration 20 --out /tmp/bench-visited.json
 * </pre>
 *
 * <h2>How a run goes</h2>
 * <ol>
 *   <li><b>Prime</b> ({@code --prime}, 30 s): one throwaway server, each requested mode in turn, nothing
 *       recorded. Client and server share one JVM; without this the first mode is measured while C2 is still
 *       compiling the paths every mode shares, and the order of the modes changed the sync/direct ratio of
 *       create-indexed from 1.4 to 2.6.</li>
 *   <li>Per mode, a <b>fresh server</b> ({@link SluiceServer}: embedded Neo4j in a temporary
 *       directory, HTTP on an ephemeral loopback port, no Bolt) with the scenario's one template and schema;
 *       <b>warm-up</b> ({@code --warmup}, 5 s, not counted); <b>measurement</b> ({@code --duration}); stop;
 *       delete the directory.</li>
 *   <li>HTTP modes ({@code direct}, {@code sync}, {@code async}): {@code --clients} closed-loop clients, each
 *       one keep-alive connection sending its next {@code POST /db/neo4j/write/{scenario}?mode=M} when the
 *       previous one is answered. A request counts when it completes inside the measured window; 2xx (with no
 *       errors in its body, below) adds its rows to {@code writes}, anything else is an error, by status
 *       (0: transport failure). With
 *       {@code --api} ({@link BenchApi}) each HTTP mode runs once per api: the same rows as a
 *       template write, or as the scenario's statement with {@code $parameters} (what an unchanged Neo4j client
 *       sends) through {@code POST /db/neo4j/tx/commit} (a statement per row) or {@code POST /db/neo4j/query/v2}
 *       (one row a request); the report compares each with the template in the same mode.</li>
 *   <li>After each mode, what the rows left in the database is counted ({@link Scenario.Stored});
 *       for the create scenarios it must equal the rows acknowledged over the whole run (a line says
 *       {@code WRONG} otherwise).</li>
 *   <li>{@code raw}: the same rows in {@code UNWIND $rows AS row ...} transactions of 1000 rows, one thread,
 *       straight into the embedded database: the limit.</li>
 *   <li>The server's {@code /metrics} are read at both ends of the measured window: rows per transaction, time
 *       per transaction, transactions in flight on average ({@code in tx}: for sync the share of time its one
 *       applier was busy, for direct the number of concurrent transactions), JVM GC pause time; and the JVM's
 *       JIT compilation time ({@code jit s}).</li>
 *   <li>{@code neo4j}: not sluice but the peer it replaces, Neo4j's own Community server
 *       ({@link Neo4jServer}, {@link Neo4jPeer}), fresh per api on a temporary
 *       home, in a JVM of its own by default ({@code --peer}, below), HTTP on an ephemeral loopback port, with
 *       the config's page cache, transaction memory limit and database name, the run's authentication (the
 *       same password) and the scenario's schema (through its Query API, then {@code db.awaitIndexes}); then
 *       the same rows, one per request, to its Query API ({@code query-v2}) or classic {@code tx/commit}
 *       ({@code tx-commit}). It has no template endpoint: the mode skips {@code template} with a line. No
 *       {@code /metrics}: what is measured is the client's view, its process's CPU, GC pauses and JIT time,
 *       and the stored count (through its Query API). The report compares sync with it, api for api
 *       ({@code query-v2:sync/query-v2:neo4j}).</li>
 *   <li>{@code --rounds N}: the whole list again, N times, every other round reversed (ABBA); ratios are taken
 *       within each round, then their geometric mean. The JIT keeps compiling for minutes after the prime (in
 *       the first mode measured, half a core of compiler time), so a single run favours what comes later.</li>
 * </ol>
 *
 * <h2>Over Bolt ({@code --api bolt})</h2>
 * The same rows, as the scenario's statement with {@code $parameters} (what {@code tx-commit} and {@code query-v2}
 * send), through the official Java driver ({@link BoltLoad}, {@link BoltWriter}):
 * one driver per measurement, {@code --clients} threads each with its session, each row a transaction of its own,
 * in each of {@code --bolt-styles} in turn, a measurement each: {@code run} ({@code session.run(statement, row)},
 * consumed: auto-commit), {@code execute-write} ({@code session.executeWrite(tx -> tx.run(...).consume())}, which the
 * driver retries on transient errors) and {@code executable-query}
 * ({@code driver.executableQuery(statement).withParameters(row).execute()}), labelled {@code bolt-run},
 * {@code bolt-execute-write}, {@code bolt-executable-query}. The targets: sluice, started with a Bolt listener on a
 * free loopback port (whatever sluice serves there: the embedded Neo4j's own connector until sluice's group-committing
 * listener replaces it), reported as {@code sync}, since a Bolt client chooses no mode (direct and async skip the Bolt
 * apis, with a line); and Neo4j's own server's Bolt connector ({@code --modes neo4j}, {@code --peer}), reported as
 * {@code neo4j}; the report compares them style for style ({@code bolt-run:sync/bolt-run:neo4j}, and the CPU per write,
 * {@code cpu bolt-run:sync/bolt-run:neo4j}). Credentials are the HTTP load's ({@code neo4j} and the bench's password,
 * or {@code --user} and {@code --password}), as {@code AuthTokens.basic}; the pool allows twice {@code --clients}
 * connections, at least the driver's default 100. A failed transaction is an error by its Neo4j status code (the
 * report's and the JSON's {@code errors_by_code}), or by the driver's exception where the server gave none (then its
 * rows count as lost in transport). With {@code --rate} sync's Bolt runs open loop too ({@link
 * BoltOpenLoad}: the same schedule and pool, a slot a session); Neo4j's, as over HTTP, closed loop
 * only. One row per transaction: {@code --rows-per-request} must be 1.
 *
 * <h2>Where the load runs</h2>
 * In the bench's JVM by default, sharing it with the server: then the process CPU per write
 * ({@code cpu us/w}) is server and client together. With {@code --load-process} the HTTP load runs in a JVM of
 * its own ({@link LoadProcess}: one child for the whole run, primed with the server, driven one
 * mode at a time over its stdin and stdout), so the bench's process is the server alone: {@code cpu us/w} is
 * the server's own CPU per write from the OS, {@code load us/w} the client's, and neither's JIT or GC mixes
 * into the other. Both still share the machine's cores. Raw mode always runs in the bench's JVM (it has no
 * client).
 *
 * <h2>Open loop</h2>
 * Closed-loop clients measure what the server can do, but not the latency a steady stream of writers would see:
 * a client waiting on a slow answer sends nothing meanwhile, so the slow moment is sampled once instead of by
 * every request that would have arrived during it (coordinated omission). {@code --rate R[,R...]} adds, after
 * each HTTP mode's (and api's) closed-loop run, one <b>open-loop</b> run per rate ({@link OpenLoop},
 * {@link OpenLoopLoad}):
 * <ul>
 *   <li>R is requests/s ({@code 3000}) or a percentage of the requests/s that the same mode and api reached
 *       closed loop in the same round ({@code 50%}; skipped, with a line, when that run wrote nothing).</li>
 *   <li>Each run on a <b>fresh server</b>, as the closed-loop runs, with the same warm-up (at the same rate)
 *       and measured window; so {@code --rate 50%,80%} triples the time a mode takes.</li>
 *   <li>Request {@code i} is due at {@code start + i/R}. One named pacing thread parks until each due time and
 *       hands the request to an idle connection of a pool of {@code --clients} keep-alive connections (opened
 *       at the start, never more). When every connection is busy, requests wait in a backlog, oldest first; a
 *       connection takes the next one as soon as it is answered. <b>Latency runs from the due time</b>, so that
 *       wait counts: a server that falls behind shows as latencies growing through the run.</li>
 *   <li>A request belongs to the phase of its due time: those due in the measured window are the measured
 *       ones. The schedule ends with the window; requests still waiting then are counted as {@code not sent}
 *       (never sent); those in flight are awaited up to the request time-out (30 s, the connection's read
 *       time-out), after which they count as errors with status 0. So a run that cannot keep up still ends.</li>
 *   <li>Reported per run, in the table's {@code open loop} section ({@code sync @50% (4123/s)}) and in the
 *       JSON's {@code open_loop}: target and achieved rate (2xx answers to the window's requests per second of
 *       window), p50, p99, p99.9, max, errors, not sent, requests that started more than 1 ms after their due
 *       time ({@code late>1ms}) and the mean start lag, and CPU per write as in the closed-loop rows. Open-loop
 *       runs are not in the ratios.</li>
 *   <li>The latency includes the generator's own lateness: park wake-up slack (tens of microseconds on Linux)
 *       and the hand-off to the connection's event loop; the start lag shows it. Netty client only
 *       ({@code --http-client jdk} with {@code --rate} is rejected). In the load process too: the rate goes
 *       over in the {@link LoadSpec} line.</li>
 * </ul>
 *
 * <h2>Neo4j's server in a JVM of its own ({@code --peer process}, the default)</h2>
 * In the bench's JVM (below) the comparison flattered Neo4j: its kernel and Cypher runtime were already compiled
 * by sluice's runs (sluice embeds the same classes), on a heap and collector shared with everything else; sync
 * through {@code query/v2} measured ~5x that peer where the issue, against a separate server, measured 10-15x.
 * So by default the peer is {@code sluice neo4j --http} in a child JVM per measurement
 * ({@link PeerProcess}: the bench JVM's heap and collector flags, ports the OS picks, read from
 * its ready line), warmed in itself before it is measured: its apis' share of {@code --prime} and at least 20 s
 * of the same load, then {@code --warmup}, on its fresh store ({@code --prime 0}: no warming). Its {@code cpu us/w}
 * is the child's CPU from the OS, {@code gc s} from its GC log, {@code jit s} from its perf data
 * ({@link PerfData}).
 *
 * <h2>Neo4j's server in the bench's JVM ({@code --peer in-jvm})</h2>
 * Like the sluice servers, and so with {@code --load-process} the process's CPU per write is Neo4j's server's
 * own, on the same heap. In-process works: a sluice, Neo4j, sluice, Neo4j sequence in one JVM started and
 * served each (tried once with a throwaway test; {@code BenchCommandTest} runs sync servers, then Neo4j's). What Neo4j's bootstrapper leaves behind is
 * harmless here: a shutdown hook per start (at exit they log "Stopping... Stopped." for servers already
 * stopped), {@code java.util.logging} pointed at its log, a SIGTERM handler. Two things were adjusted: its log
 * goes to stderr ({@code server.logs.user.config}), not to stdout where the report goes (its daemon mode, the
 * other way to move it, points {@code System.out} and {@code System.err} of the whole JVM at a file); and
 * before the load one {@code RETURN 1} goes through each of its APIs, which it sets up on their first request
 * (seconds under load: a cost of starting, not of writing). It needed no child process, but its readings were
 * flattered (above); it stays, labelled {@code neo4j-in-jvm}, to compare with.
 *
 * <h2>Answers that are errors</h2>
 * A request is a write when it is answered 2xx and, for every api and mode, its body has no non-empty
 * {@code "errors"} array ({@link Answers}, a scan of the bytes, no parse): Neo4j's classic API
 * answers a failed statement {@code 200} with its errors, and the transaction is rolled back. Such an answer
 * counts as an error under its status (2xx in the errors by status), and its rows are not acknowledged.
 *
 * <h2>Load generator</h2>
 * Netty by default ({@code --http-client netty}), the JDK's {@code HttpClient} on virtual threads
 * with {@code --http-client jdk}. The JDK client was measurably the bottleneck: on this machine kind (client and
 * server sharing 2 cores), visited with 64 clients gave sync 6.8-8.2k writes/s with the JDK client against
 * 10.7-12.1k with Netty in interleaved runs (direct 7.2-7.6k against 8.6-9.0k). Out of process against
 * {@code GET /health}, the JDK client did 12.5k req/s where a minimal blocking-socket client did 27k. Netty comes
 * with Neo4j (it is on sluice's class path already), so no dependency was added.
 *
 * <h2>Caveats</h2>
 * <ul>
 *   <li>In {@code visited}, raw goes much further into the row stream than the HTTP modes in the same time, so
 *       more of its MERGEs find existing users and sites: its rows are not exactly the same work.</li>
 *   <li>Direct mode with many clients is not one transaction at a time: 64 concurrent one-row transactions share
 *       Neo4j's own commit batching and both cores, so it is a stronger baseline than the single-threaded
 *       ~800 writes/s in FACTS.md.</li>
 *   <li>Latencies are exact percentiles over every measured request (a sorted array, bounded at 8M samples per
 *       run); a client that reaches its share of the bound stops early, with a warning.</li>
 * </ul>
 */
package io.sluice.bench;

import io.sluice.server.SluiceServer;
import io.sluice.sink.Neo4jServer;
import java.net.http.HttpClient;
