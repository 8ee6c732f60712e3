package io.sluice.bench;

import java.util.Collections;
import java.util.Map;
import java.util.TreeMap;

/**
 * One mode's measurement.
 *
 * @param api            how the rows were sent (raw mode: {@link BenchApi#TEMPLATE}, its rows' form)
 * @param client         the load generator: {@code netty} or {@code jdk} over HTTP, {@code in-process} for raw
 * @param loadProcess    whether the HTTP load ran in a process of its own (then the server's CPU is its own)
 * @param clients        closed-loop clients (raw: 1 thread)
 * @param rowsPerRequest rows per request (raw: rows per transaction)
 * @param writes         rows acknowledged (2xx, or committed in raw mode) during the measured time
 * @param p50Ms          median latency of a request (raw: of a transaction)
 * @param errors         requests answered with anything but 2xx, with a 2xx whose body reports errors, or that
 *                       failed in transport (status 0)
 * @param errorsByStatus those errors by HTTP status (0: transport failure or time-out)
 * @param acknowledged   rows acknowledged over the whole run, warm-up and the requests in flight at the end
 *                       included: what the database must hold
 * @param stored         what the database holds after the run, counted by the scenario's {@link Scenario.Stored}
 *                       statement (-1: not counted)
 * @param sink           where the writes went ({@code embedded}, {@code bolt}; {@code neo4j-server}: Neo4j's own
 *                       server, {@link BenchMode#NEO4J}, in a JVM of its own; {@code neo4j-server-in-jvm}: the
 *                       same in the bench's JVM)
 * @param appliers       applier threads of the server (0 for Neo4j's own server)
 * @param auth           whether the server checked credentials (every HTTP request carried them)
 * @param server         what the server did in the measured time (raw: the raw loop's transactions)
 * @param round          which round of the run measured it, from 1 ({@link BenchOptions#rounds})
 * @param coalesce       whether the server coalesced raw Cypher ({@code apply.coalesce_cypher})
 * @param journal        where async writes were journaled: {@code local} (the instance's disk) or {@code kafka}
 * @param settings       the Neo4j settings it ran under on top of the config's ({@link BenchOptions#label}; empty:
 *                       the config's alone)
 * @param errorsByCode   over Bolt, the errors by Neo4j status code (or the driver's exception where the server
 *                       gave none); {@code errorsByStatus} is then empty
 */
public record ModeResult(BenchMode mode, BenchApi api, String client, boolean loadProcess, int clients,
        int rowsPerRequest, long writes, double seconds, double p50Ms, double p99Ms, long errors,
        Map<Integer, Long> errorsByStatus, long acknowledged, long stored, String sink, int appliers, boolean auth,
        ServerStats server, int round, boolean coalesce, String journal, String settings,
        Map<String, Long> errorsByCode) {
    public static final String LOCAL = "local";
    public static final String KAFKA = "kafka";

    public ModeResult {
        errorsByStatus = Collections.unmodifiableMap(new TreeMap<>(errorsByStatus));
        journal = journal == null ? LOCAL : journal;
        settings = settings == null ? "" : settings;
        errorsByCode = errorsByCode == null ? Map.of()
                : Collections.unmodifiableMap(new TreeMap<>(errorsByCode));
    }

    /** A result over HTTP (no errors by Neo4j code). */
    public ModeResult(BenchMode mode, BenchApi api, String client, boolean loadProcess, int clients,
            int rowsPerRequest, long writes, double seconds, double p50Ms, double p99Ms, long errors,
            Map<Integer, Long> errorsByStatus, long acknowledged, long stored, String sink, int appliers, boolean auth,
            ServerStats server, int round, boolean coalesce, String journal, String settings) {
        this(mode, api, client, loadProcess, clients, rowsPerRequest, writes, seconds, p50Ms, p99Ms, errors,
                errorsByStatus, acknowledged, stored, sink, appliers, auth, server, round, coalesce, journal, settings,
                Map.of());
    }

    /** A result under the config's Neo4j settings. */
    public ModeResult(BenchMode mode, BenchApi api, String client, boolean loadProcess, int clients,
            int rowsPerRequest, long writes, double seconds, double p50Ms, double p99Ms, long errors,
            Map<Integer, Long> errorsByStatus, long acknowledged, long stored, String sink, int appliers, boolean auth,
            ServerStats server, int round, boolean coalesce, String journal) {
        this(mode, api, client, loadProcess, clients, rowsPerRequest, writes, seconds, p50Ms, p99Ms, errors,
                errorsByStatus, acknowledged, stored, sink, appliers, auth, server, round, coalesce, journal, "");
    }

    /** A result of the local journal. */
    public ModeResult(BenchMode mode, BenchApi api, String client, boolean loadProcess, int clients,
            int rowsPerRequest, long writes, double seconds, double p50Ms, double p99Ms, long errors,
            Map<Integer, Long> errorsByStatus, long acknowledged, long stored, String sink, int appliers, boolean auth,
            ServerStats server, int round, boolean coalesce) {
        this(mode, api, client, loadProcess, clients, rowsPerRequest, writes, seconds, p50Ms, p99Ms, errors,
                errorsByStatus, acknowledged, stored, sink, appliers, auth, server, round, coalesce, LOCAL);
    }

    /** Whether this is Neo4j's own server run in the bench's JVM ({@link BenchPeer#IN_JVM}). */
    public boolean inJvmPeer() {
        return mode == BenchMode.NEO4J && Neo4jPeer.SINK_IN_JVM.equals(sink);
    }

    /** Whether this is Neo4j's own server run in a JVM of its own ({@link BenchPeer#PROCESS}). */
    public boolean processPeer() {
        return mode == BenchMode.NEO4J && Neo4jPeer.SINK.equals(sink);
    }

    /** Whether async writes went to Kafka. */
    public boolean kafka() {
        return KAFKA.equals(journal);
    }

    public double writesPerS() {
        return seconds > 0 ? writes / seconds : 0;
    }

    /** The same result over {@code s} seconds (async: the window plus the time its backlog took to apply). */
    ModeResult withSeconds(double s) {
        return new ModeResult(mode, api, client, loadProcess, clients, rowsPerRequest, writes, s, p50Ms, p99Ms, errors,
                errorsByStatus, acknowledged, stored, sink, appliers, auth, server, round, coalesce, journal, settings,
                errorsByCode);
    }

    ModeResult withStored(long n) {
        return new ModeResult(mode, api, client, loadProcess, clients, rowsPerRequest, writes, seconds, p50Ms, p99Ms,
                errors, errorsByStatus, acknowledged, n, sink, appliers, auth, server, round, coalesce, journal, settings,
                errorsByCode);
    }

    ModeResult withCoalesce(boolean on) {
        return new ModeResult(mode, api, client, loadProcess, clients, rowsPerRequest, writes, seconds, p50Ms, p99Ms,
                errors, errorsByStatus, acknowledged, stored, sink, appliers, auth, server, round, on, journal, settings,
                errorsByCode);
    }

    ModeResult withJournal(String j) {
        return new ModeResult(mode, api, client, loadProcess, clients, rowsPerRequest, writes, seconds, p50Ms, p99Ms,
                errors, errorsByStatus, acknowledged, stored, sink, appliers, auth, server, round, coalesce, j, settings,
                errorsByCode);
    }

    ModeResult withSettings(String label) {
        return new ModeResult(mode, api, client, loadProcess, clients, rowsPerRequest, writes, seconds, p50Ms, p99Ms,
                errors, errorsByStatus, acknowledged, stored, sink, appliers, auth, server, round, coalesce, journal,
                label, errorsByCode);
    }

    ModeResult withRound(int r) {
        return new ModeResult(mode, api, client, loadProcess, clients, rowsPerRequest, writes, seconds, p50Ms, p99Ms,
                errors, errorsByStatus, acknowledged, stored, sink, appliers, auth, server, r, coalesce, journal, settings,
                errorsByCode);
    }
}
