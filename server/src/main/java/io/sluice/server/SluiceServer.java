package io.sluice.server;

import io.sluice.apply.Partitions;
import io.sluice.batch.Admission;
import io.sluice.bolt.BoltFrontEnd;
import io.sluice.bolt.BoltIds;
import io.sluice.bolt.PackStream;
import io.sluice.config.HostPort;
import io.sluice.config.Neo4j;
import io.sluice.config.SluiceConfig;
import io.sluice.durable.AsyncJournal;
import io.sluice.durable.AsyncPath;
import io.sluice.format.DataFormat;
import io.sluice.format.GraphFormat;
import io.sluice.format.Version;
import io.sluice.front.Callers;
import io.sluice.front.Door;
import io.sluice.front.Doors;
import io.sluice.gateway.Gateway;
import io.sluice.gateway.Warmer;
import io.sluice.group.Cause;
import io.sluice.http.Flavour;
import io.sluice.http.HttpServer;
import io.sluice.metrics.History;
import io.sluice.metrics.PrometheusMetrics;
import io.sluice.security.InitialAuth;
import io.sluice.security.UserStore;
import io.sluice.session.ClientTransactions;
import io.sluice.session.Grouping;
import io.sluice.session.Sessions;
import io.sluice.sink.BoltSink;
import io.sluice.sink.EmbeddedNeo4j;
import io.sluice.sink.Sink;
import io.sluice.source.SourceChecks;
import io.sluice.time.Time;
import io.sluice.vocab.GraphException;
import io.sluice.vocab.Neo4jStatus;
import io.sluice.write.Health;
import io.sluice.write.InProcess;
import io.sluice.write.Operations;
import io.sluice.write.Template;
import io.sluice.write.WritePath;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import javax.net.ssl.SSLContext;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A running sluice, and the one owner of its parts: the sink (embedded Neo4j, or a Neo4j of one's own over
 * Bolt), metrics, admission, the batch runner, the partitions' appliers, the async path with its journal
 * applier, the gateway that routes between them, and the doors into it ({@link Door}s: the HTTP API, Bolt, the
 * application topics). {@link #start} builds them in that order, starting the doors last, and {@link #close}
 * closes them in the reverse one; a start-up that fails part-way closes what it had built, so no thread, lock or
 * port is left behind.
 *
 * <p>Closing first refuses new work everywhere (every door stops accepting: HTTP 503, the topics' consumers poll no
 * more; admission and the journal's lag bound closed), then closes in reverse order: each door drains (the
 * topics' batches in flight, the requests in flight, which the appliers, still running, answer) and closes, the
 * journal applier stops after its batch in flight, the partitions drain and answer what is left, then metrics,
 * the sink, and embedded Neo4j. This is what {@code sluice serve} runs and what tests and benchmarks
 * start in-process.
 */
public final class SluiceServer implements InProcess {
    private static final Logger log = LoggerFactory.getLogger(SluiceServer.class);
    /** How long start-up waits for a remote Neo4j to answer (it may be starting alongside sluice). */
    private static final Duration REMOTE_WAIT = Duration.ofSeconds(60);
    /** What the start-up log says while the warm-up runs (issue 26: WARMING surprised people, not balancers). */
    static final String WARMING_EXPLAINED = "writes are accepted now; /health answers 503 WARMING until the warm-up"
            + " ends (the page cache, then the write path's rehearsal: a minute at most), so that a load balancer waits"
            + " for UP before it sends a full share of traffic; clients need not wait";

    /** How long closing waits for a door's work in flight (requests answered, a batch of records applied). */
    private static final Duration DOOR_DRAIN = Duration.ofSeconds(30);

    /**
     * Where and how to run. {@code remote} null: embedded Neo4j in {@code dataDir} (its own Bolt connector off:
     * drivers come in through sluice's). {@code remote} set: that Neo4j over Bolt; {@code dataDir} then holds only
     * the journal and the dead letters. {@code http} null: no HTTP listener (an in-process client such as the
     * online importer uses {@link #writePath()}); {@code bolt} null: no Bolt listener.
     */
    public record Options(SluiceConfig config, Path dataDir, HostPort http, HostPort bolt, BoltSink.Options remote,
            InitialAuth initialAuth) {
        public Options {
            initialAuth = initialAuth == null ? new InitialAuth.Generate() : initialAuth;
        }

        /** Embedded Neo4j; authentication as the config says, with a generated password on a fresh store. */
        public Options(SluiceConfig config, Path dataDir, HostPort http, HostPort bolt) {
            this(config, dataDir, http, bolt, null, null);
        }

        /** Against a Neo4j over Bolt instead of the embedded one. */
        public static Options remote(SluiceConfig config, Path dataDir, HostPort http, BoltSink.Options remote) {
            return new Options(config, dataDir, http, null, remote, null);
        }

        /** The same, with sluice's Bolt listener on {@code bolt}. */
        public static Options remote(SluiceConfig config, Path dataDir, HostPort http, HostPort bolt,
                BoltSink.Options remote) {
            return new Options(config, dataDir, http, bolt, remote, null);
        }

        /** The same, starting authentication from {@code auth} (what {@code NEO4J_AUTH} said). */
        public Options withInitialAuth(InitialAuth auth) {
            return new Options(config, dataDir, http, bolt, remote, auth);
        }
    }

    private final Owned owned;
    private final EmbeddedNeo4j neo4j;
    private final Sink sink;
    private final Admission admission;
    private final AsyncJournal async;
    private final Gateway gateway;
    private final PrometheusMetrics metrics;
    private final List<Door> doors;
    private final Doors registry;
    private final HttpServer http;
    private final String authentication;

    private SluiceServer(Owned owned, EmbeddedNeo4j neo4j, Sink sink, Admission admission, AsyncJournal async,
            Gateway gateway, PrometheusMetrics metrics, Doors doors, String authentication) {
        this.authentication = authentication;
        this.metrics = metrics;
        this.owned = owned;
        this.neo4j = neo4j;
        this.sink = sink;
        this.admission = admission;
        this.async = async;
        this.gateway = gateway;
        this.registry = doors;
        this.doors = doors.all();
        this.http = this.doors.stream().filter(HttpServer.class::isInstance).map(HttpServer.class::cast).findFirst()
                .orElse(null);
    }

    public static SluiceServer start(Options o) {
        return start(o, Time.SYSTEM);
    }

    public static SluiceServer start(Options o, Time time) {
        Owned owned = new Owned();
        try {
            SluiceServer server = build(o, time, owned);
            log.info("sluice started: {}; sink {}; {}; authentication {}", server.urls(), server.sink.describe(),
                    server.journalState(o), server.authentication);
            if (server.gateway.health().status() == Health.Status.WARMING) {
                log.info(WARMING_EXPLAINED);
            }
            return server;
        } catch (IOException | GraphException e) {
            owned.close();
            throw new IllegalStateException("cannot start: " + e.getMessage(), e);
        } catch (RuntimeException | Error e) {
            owned.close();
            throw e;
        }
    }

    /** The database sluice writes to: the embedded Neo4j (then {@code neo4j} is it) or a server over Bolt. */
    private record OpenedSink(EmbeddedNeo4j neo4j, Sink sink, UserStore users) {}

    /** {@code n}'s Neo4j settings, with where its plugins are when {@code neo4j.plugins_dir} says (else DATA/plugins). */
    static Map<String, String> embeddedSettings(Neo4j n) {
        if (n.pluginsDir() == null) {
            return n.settings();
        }
        Map<String, String> all = new TreeMap<>(n.settings());
        all.put("server.directories.plugins", Path.of(n.pluginsDir()).toAbsolutePath().toString());
        return all;
    }

    private static OpenedSink openSink(Options o, Security security, Owned owned, Time time) throws IOException,
            GraphException {
        SluiceConfig c = o.config();
        if (o.remote() == null) {
            var n = c.neo4j();
            // no Bolt connector of its own: sluice's listener is the door (docs/API.md, "Bolt")
            EmbeddedNeo4j neo4j = owned.add("embedded Neo4j", EmbeddedNeo4j.start(new EmbeddedNeo4j.Options(
                    o.dataDir(), null, n.pagecache().bytes(), n.txMemoryMax().bytes(), n.database(),
                    n.importDir() == null ? null : Path.of(n.importDir()), security.embedded(o.dataDir()),
                    embeddedSettings(n)), time));
            return new OpenedSink(neo4j, neo4j.sink(), security.auth() ? neo4j.users() : null);
        }
        BoltSink bolt = owned.add("the Bolt sink", BoltSink.connect(o.remote(), REMOTE_WAIT, time));
        return new OpenedSink(null, bolt, bolt.users());
    }

    /**
     * {@code serve --dry-run}: opens the database, applies the config's schema, checks the sources' mappings
     * against it ({@link SourceChecks}), closes everything, consuming nothing.
     */
    public static SourceChecks.Report checkSources(Options o) {
        if (o.config().sources().kafka() == null) {
            throw new IllegalArgumentException("--dry-run checks the sources.kafka section, and the config has none");
        }
        Owned owned = new Owned();
        try {
            Time time = Time.SYSTEM;
            log.info(DataFormat.open(o.dataDir(), Version.line(), time.now(), false).said()); // says, upgrades nothing
            OpenedSink opened = openSink(o, new Security(o.config(), o.initialAuth()), owned, time);
            log.info(GraphFormat.check(opened.sink(), Version.line(), false));
            ConfigSchema.apply(o.config(), opened.sink(), time);
            return SourceChecks.run(o.config().sources().kafka(), opened.sink());
        } catch (IOException | GraphException e) {
            throw new IllegalStateException("cannot check the sources: " + e.getMessage(), e);
        } finally {
            owned.close();
        }
    }

    /** Builds every part in order, recording each in {@code owned} as soon as it exists. */
    private static SluiceServer build(Options o, Time time, Owned owned) throws IOException, GraphException {
        SluiceConfig c = o.config();
        Security security = new Security(c, o.initialAuth());
        HostPort https = c.tls().https() == null ? null : HostPort.parse(c.tls().https());
        HostPort http = c.tls().http() ? o.http() : null;
        security.checkProtectedMode(http, https, o.bolt());
        SSLContext tls = security.httpsContext();
        // before a byte of the directory is read: a newer layout is refused, an older one upgraded (said)
        log.info(DataFormat.open(o.dataDir(), Version.line(), time.now()).said());
        OpenedSink opened = openSink(o, security, owned, time);
        EmbeddedNeo4j neo4j = opened.neo4j();
        Sink sink = opened.sink();
        UserStore users = opened.users();
        if (o.remote() != null) {
            security.checkRemoteUsers(security.auth() && ((BoltSink) sink).acceptsAnyCredentials(), http, https,
                    o.bolt());
        }
        log.info(GraphFormat.check(sink, Version.line(), true)); // before any position is read or moved
        ConfigSchema.apply(c, sink, time);
        Map<String, Template> templates = ConfigSchema.templates(c, sink);
        PrometheusMetrics metrics = owned.add("metrics", new PrometheusMetrics());

        WritePathBuilder paths = new WritePathBuilder(c, sink, metrics, time, owned, "sluice-",
                WritePathBuilder.APPLIER_DRAIN);
        // only a serving server with the embedded Neo4j rehearses (Rehearsal's note says why not over Bolt)
        boolean rehearse = !c.warmup().writePath().isZero() && !templates.isEmpty() && neo4j != null
                && (http != null || https != null);
        // owned only once the write path exists: it has nothing to close before it starts, and closing it first
        // (before the write path) stops a rehearsal before the server's appliers drain
        Warmer warmer = new Warmer(sink, time, rehearse ? new Rehearsal(c, o.dataDir().resolve("rehearsal"),
                templates, c.warmup().writePath(), time, Rehearsal::jitMillis) : null);
        WritePathBuilder.Built built = paths.build(templates, new WritePathBuilder.Journal(o.dataDir(),
                instanceName(o)), warmer);
        owned.add("warm-up", warmer);
        Grouping grouping = paths.grouping(built);
        ClientTransactions queryTransactions = paths.transactions(built, Flavour.QUERY_API,
                c.transactions().idleTimeout(), grouping);
        ClientTransactions classicTransactions = paths.transactions(built, Flavour.CLASSIC,
                c.transactions().classicIdleTimeout(), grouping);
        ClientTransactions boltTransactions = o.bolt() == null ? null : paths.transactions(built,
                BoltIds.scheme(), c.transactions().idleTimeout(), grouping);
        metrics.gauge("sluice.transactions.open", "explicit transactions held open for their clients (HTTP and Bolt)",
                built.transactionGate()::open);
        metrics.gauge("sluice.warming", "1 while the server warms up (page cache, write path's rehearsal), else 0",
                () -> warmer.warming() ? 1 : 0);
        gauges(metrics, built.admission(), built.partitions(), built.async());
        List<String> codes = Neo4jStatus.all();
        metrics.known(List.of("sync", "async", "direct"), templates.keySet(),
                codes.stream().filter(code -> code.startsWith(Neo4jStatus.Classification.TRANSIENT_ERROR))
                        .toList(), codes);
        metrics.gauge("sluice.sink.up", "1 while the database answers, else 0", () -> sink.isAvailable() ? 1 : 0);
        History history = owned.add("metrics history", new History(metrics::scrape, time, History.INTERVAL,
                History.CAPACITY).start());

        metrics.knownBolt(BoltFrontEnd.MESSAGES, codes);
        if (c.transactions().anyGrouped()) { // at zero from the start; absent when no one's are grouped
            metrics.knownGroups(Arrays.stream(Cause.values())
                    .map(Cause::label).toList());
        }
        Doors doors = built.doors();
        // one authenticator for every front end: its credential cache and per-address failure limit are shared
        Callers callers = new Callers(security.authenticator(users, time), c.security().access(), c.modes());
        if (http != null || https != null) {
            HttpServer h = HttpServer.create(new HttpServer.Options(http, https, tls, c.admission().maxBodyBytes()
                    .bytes(), c.security().metricsOpen(), boltForClients(o), sink.neo4jVersion(),
                    c.http().ioThreads()), new HttpServer.Services(built.gateway(), built.gateway(), queryTransactions,
                    classicTransactions, callers, metrics, metrics::scrape, history), time);
            own("HTTP", h, owned, doors);
        }
        if (o.bolt() != null) {
            var b = c.bolt();
            BoltFrontEnd bolt = BoltFrontEnd.create(new BoltFrontEnd.Options(o.bolt(), security.boltContext(),
                    security.boltTlsRequired(), (int) b.maxMessage().bytes(), new PackStream.Limits(
                    (int) b.maxString().bytes(), 1_000_000, b.maxDepth()), b.keepAlive(), b.ioThreads()),
                    new Sessions(built.gateway(), boltTransactions, sink::system, sink::lastCommitted, time),
                    callers, metrics, sink.neo4jVersion(), time);
            own("Bolt", bolt, owned, doors);
        }
        if (c.sources().kafka() != null) { // last: a listener that cannot open has then consumed nothing
            own("the application topics", paths.sources(c.sources().kafka(), instanceName(o)), owned, doors);
        }
        // before the doors open: otherwise the first /health answers could say UP (200) before the warm-up began
        warmer.startOnStart(c.warmup().onStart());
        for (Door d : doors.all()) {
            d.start();
        }
        return new SluiceServer(owned, neo4j, sink, built.admission(), built.async(), built.gateway(), metrics,
                doors, security.describe(o.dataDir()));
    }

    /**
     * Records {@code door} in {@code owned}, closed (after a bounded drain) in reverse order of creation, and
     * registers it with {@code doors}: the order they start in, and what {@code /health} asks.
     */
    private static void own(String name, Door door, Owned owned, Doors doors) {
        owned.add(name, () -> {
            door.drain(DOOR_DRAIN);
            door.close();
        });
        doors.add(door);
    }

    /** The Bolt address clients should use: sluice's own listener (never the Neo4j behind it), if there is one. */
    private static String boltForClients(Options o) {
        return o.bolt() == null ? null : o.bolt().host() + ":" + o.bolt().port();
    }

    /** This instance's name among a fleet's (its Kafka client id): host and HTTP port. */
    private static String instanceName(Options o) {
        String host;
        try {
            host = InetAddress.getLocalHost().getHostName();
        } catch (UnknownHostException e) {
            host = "localhost";
        }
        return host + "-" + (o.http() == null ? "nohttp" : o.http().port() + "-" + ProcessHandle.current().pid());
    }

    private static void gauges(PrometheusMetrics metrics, Admission admission, Partitions partitions,
            AsyncJournal async) {
        metrics.gauge("sluice.pending.rows", "admitted rows not yet committed", admission::pendingRows);
        metrics.gauge("sluice.pending.bytes", "admitted request bytes not yet committed", admission::pendingBytes);
        for (int i = 0; i < partitions.count(); i++) {
            int partition = i;
            metrics.gauge("sluice.batch.limit.rows", "adaptive row limit of an applier", partition,
                    () -> partitions.batchLimits().get(partition));
        }
        if (async instanceof AsyncPath local) {
            metrics.gauge("sluice.journal.batch.limit.rows", "adaptive row limit of the journal applier",
                    local::batchLimit);
            metrics.gauge("sluice.journal.applied.offset", "highest journal offset applied", local::appliedOffset);
        }
        metrics.gauge("sluice.journal.lag.rows", "journaled rows (Kafka: records) not yet applied", async::lagRows);
        metrics.gauge("sluice.journal.lag.bytes", "journaled bytes not yet applied (local journal)", async::lagBytes);
        metrics.gauge("sluice.dead.letters", "writes that failed on apply", async::deadLetterCount);
    }

    /** For the start-up line: where async writes go, and what is left of them from before. */
    private String journalState(Options o) {
        String where = async instanceof AsyncPath ? "journal " + o.dataDir().resolve("journal")
                : "journal Kafka " + o.config().journal().kafka().bootstrap() + " topic "
                        + o.config().journal().kafka().topic();
        return where + " (lag " + async.lagRows() + ", " + async.deadLetterCount() + " dead letters)";
    }

    public InetSocketAddress httpAddress() {
        if (http == null || http.address() == null) {
            throw new IllegalStateException("this sluice was started without plain HTTP");
        }
        return http.address();
    }

    public String baseUrl() {
        return "http://" + httpAddress().getHostString() + ":" + httpAddress().getPort();
    }

    /** The doors (the listeners, the topics), for the start-up line. */
    public String urls() {
        return doors.isEmpty() ? "no HTTP" : String.join("  ", doors.stream().map(Door::describe).toList());
    }

    /** How callers authenticate, for the start-up line (never a secret). */
    public String authentication() {
        return authentication;
    }

    /** {@code https://host:port}, when an HTTPS listener is configured. */
    public String httpsUrl() {
        if (http == null || http.httpsAddress() == null) {
            throw new IllegalStateException("this sluice was started without HTTPS");
        }
        return "https://" + http.httpsAddress().getHostString() + ":" + http.httpsAddress().getPort();
    }

    /** The embedded Neo4j, or null when the sink is a Neo4j over Bolt ({@link Options#remote()}). */
    public EmbeddedNeo4j neo4j() {
        return neo4j;
    }

    public Sink sink() {
        return sink;
    }

    /** The meters {@code /metrics} and {@code /status} read, for in-process callers (tests). */
    public PrometheusMetrics metrics() {
        return metrics;
    }

    /**
     * The registry of this server's doors, which {@code /health} asks for their sections: for in-process callers
     * (a test registers a stand-in for the application topics). A door registered here after start-up is reported,
     * not owned: its lifecycle stays its caller's.
     */
    public Doors doors() {
        return registry;
    }

    /** The write path behind the front ends, for in-process callers (the online importer). */
    public WritePath writePath() {
        return gateway;
    }

    @Override
    public WritePath writes() {
        return gateway;
    }

    /**
     * Starts a sluice in this process with no listener, for in-process clients (the importer): the write path's
     * rehearsal off, since no client waits for it.
     */
    public static final InProcess.Starter IN_PROCESS = (dataDir, config) -> start(new Options(
            config.with(config.warmup().withoutRehearsal()), dataDir, null, null));

    /** What an operator asks of the write path (health, dead letters ...), for in-process callers. */
    @Override
    public Operations operations() {
        return gateway;
    }

    /** Refuses new work everywhere, then closes every part in reverse order of creation (see the class note). */
    @Override
    public void close() {
        log.info("sluice stopping: refusing new writes, applying what was admitted");
        doors.forEach(Door::stopAccepting);
        gateway.close();
        admission.close();
        if (async != null) {
            async.stopAccepting();
        }
        owned.close();
        log.info("sluice stopped");
    }
}
