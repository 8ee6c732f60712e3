package io.sluice.server;

import io.sluice.apply.BatchSizeController;
import io.sluice.apply.RetryPolicy;
import io.sluice.time.Time;
import io.sluice.durable.AsyncPath;
import java.io.IOException;
import io.sluice.config.SluiceConfig;
import io.sluice.gateway.Gateway;
import io.sluice.http.HttpServer;
import io.sluice.metrics.PrometheusMetrics;
import io.sluice.sink.BoltSink;
import io.sluice.sink.EmbeddedNeo4j;
import io.sluice.sink.EmbeddedNeo4j.HostPort;
import io.sluice.sink.Sink;
import io.sluice.sink.SinkException;
import io.sluice.write.Template;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A running sluice: the sink (embedded Neo4j, or a Neo4j of one's own over Bolt), the write path and the HTTP
 * API, started in that order and closed in the reverse one. Closing refuses new requests, applies everything
 * admitted, answers in-flight requests, then closes the sink (shutting embedded Neo4j down, or closing the
 * driver). This is what {@code sluice serve} runs and what tests and benchmarks start in-process.
 */
public final class SluiceServer implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(SluiceServer.class);
    private static final Set<String> ALREADY_EXISTS = Set.of(
            "Neo.ClientError.Schema.EquivalentSchemaRuleAlreadyExists",
            "Neo.ClientError.Schema.ConstraintAlreadyExists",
            "Neo.ClientError.Schema.IndexAlreadyExists");

    /**
     * Where and how to run. {@code remote} null: embedded Neo4j in {@code dataDir}, with a Bolt connector on
     * {@code bolt} unless that is null. {@code remote} set: that Neo4j over Bolt ({@code bolt} must be null);
     * {@code dataDir} then holds only the journal and the dead letters. {@code http} null: no HTTP listener (an
     * in-process client such as the online importer uses {@link #writePath()}).
     */
    public record Options(SluiceConfig config, Path dataDir, HostPort http, HostPort bolt, BoltSink.Options remote) {
        public Options {
            if (remote != null && bolt != null) {
                throw new IllegalArgumentException("a Bolt listener (" + bolt + ") is for the embedded Neo4j;"
                        + " with a remote Neo4j (" + remote.uri() + ") clients connect to that one");
            }
        }

        public Options(SluiceConfig config, Path dataDir, HostPort http, HostPort bolt) {
            this(config, dataDir, http, bolt, null);
        }

        /** Against a Neo4j over Bolt instead of the embedded one. */
        public static Options remote(SluiceConfig config, Path dataDir, HostPort http, BoltSink.Options remote) {
            return new Options(config, dataDir, http, null, remote);
        }
    }

    /** How long start-up waits for a remote Neo4j to answer (it may be starting alongside sluice). */
    private static final Duration REMOTE_WAIT = Duration.ofSeconds(60);

    private final EmbeddedNeo4j neo4j;
    private final PrometheusMetrics metrics;
    private final Gateway gateway;
    private final HttpServer http;
    private final Sink sink;

    private SluiceServer(EmbeddedNeo4j neo4j, Sink sink, PrometheusMetrics metrics, Gateway gateway, HttpServer http) {
        this.neo4j = neo4j;
        this.sink = sink;
        this.metrics = metrics;
        this.gateway = gateway;
        this.http = http;
    }

    public static SluiceServer start(Options o) {
        SluiceConfig c = o.config();
        EmbeddedNeo4j neo4j = null;
        Sink sink;
        if (o.remote() == null) {
            neo4j = EmbeddedNeo4j.start(new EmbeddedNeo4j.Options(o.dataDir(), o.bolt(),
                    c.neo4j().pagecache().bytes(), c.neo4j().txMemoryMax().bytes(), c.neo4j().database(),
                    c.neo4j().importDir() == null ? null : java.nio.file.Path.of(c.neo4j().importDir())));
            sink = neo4j.sink();
        } else {
            try {
                sink = BoltSink.connect(o.remote(), REMOTE_WAIT, Time.SYSTEM);
            } catch (SinkException e) {
                throw new IllegalStateException("cannot start: " + e.getMessage(), e);
            }
        }
        PrometheusMetrics metrics = null;
        Gateway gateway = null;
        try {
            applySchema(c, sink);
            Map<String, Template> templates = Gateway.compileTemplates(c, sink);
            metrics = new PrometheusMetrics();
            var j = c.journal();
            var r = c.retry();
            AsyncPath async = AsyncPath.start(new AsyncPath.Options(o.dataDir().resolve("journal"),
                    o.dataDir().resolve("dead-letters"), j.maxLagRows(), j.maxLagBytes().bytes(), j.segmentBytes().bytes(),
                    c.admission().timeout(), c.batch().maxRows(),
                    new RetryPolicy(Integer.MAX_VALUE, r.initialBackoff(), r.maxBackoff())),
                    sink, templates, metrics, Time.SYSTEM, Thread.ofPlatform().name("sluice-journal-applier").factory(),
                    c.batch().adaptive() ? new BatchSizeController(c.batch().minRows(), c.batch().maxRows(),
                            c.batch().targetCommit(), c.batch().maxRows()) : null);
            gateway = new Gateway(sink, c, templates, metrics, Time.SYSTEM,
                    Thread.ofPlatform().name("sluice-applier-", 0).factory(), async);
            Gateway g = gateway;
            metrics.gauge("sluice.pending.rows", "admitted rows not yet committed", g::pendingRows);
            metrics.gauge("sluice.pending.bytes", "admitted request bytes not yet committed", g::pendingBytes);
            for (int i = 0; i < c.apply().appliers(); i++) {
                int partition = i;
                metrics.gauge("sluice.batch.limit.rows", "adaptive row limit of an applier", partition,
                        () -> g.batchLimits().get(partition));
            }
            metrics.gauge("sluice.journal.batch.limit.rows", "adaptive row limit of the journal applier",
                    async::batchLimit);
            metrics.gauge("sluice.journal.lag.rows", "journaled rows not yet applied", async::lagRows);
            metrics.gauge("sluice.journal.lag.bytes", "journaled bytes not yet applied", async::lagBytes);
            metrics.gauge("sluice.journal.applied.offset", "highest journal offset applied", async::appliedOffset);
            metrics.gauge("sluice.dead.letters", "writes that failed on apply", async::deadLetterCount);
            PrometheusMetrics m = metrics;
            HttpServer http = o.http() == null ? null : new HttpServer(o.http().host(), o.http().port(), gateway,
                    metrics, m::scrape, c.admission().maxBodyBytes().bytes(), Time.SYSTEM);
            return new SluiceServer(neo4j, sink, metrics, gateway, http);
        } catch (IOException | SinkException e) {
            closeQuietly(gateway, metrics, sink, neo4j);
            throw new IllegalStateException("cannot start: " + e.getMessage(), e);
        } catch (RuntimeException e) {
            closeQuietly(gateway, metrics, sink, neo4j);
            throw e;
        }
    }

    private static void closeQuietly(Gateway gateway, PrometheusMetrics metrics, Sink sink, EmbeddedNeo4j neo4j) {
        if (gateway != null) {
            gateway.close();
        }
        if (metrics != null) {
            metrics.close();
        }
        sink.close();
        if (neo4j != null) {
            neo4j.close();
        }
    }

    /** Runs the config's schema statements; ones that already exist are fine (start-up is idempotent). */
    static void applySchema(SluiceConfig c, Sink sink) {
        for (String s : c.schema()) {
            try {
                sink.runImplicit(s, Map.of());
            } catch (SinkException e) {
                if (!ALREADY_EXISTS.contains(e.error().code())) {
                    throw new IllegalArgumentException("schema statement failed: " + s + ": " + e.getMessage(), e);
                }
            }
        }
        if (!c.schema().isEmpty()) {
            try {
                sink.runImplicit("CALL db.awaitIndexes(300)", Map.of());
            } catch (SinkException e) {
                log.warn("waiting for indexes failed: {}", e.getMessage());
            }
        }
    }

    public InetSocketAddress httpAddress() {
        if (http == null) {
            throw new IllegalStateException("this sluice was started without HTTP");
        }
        return http.address();
    }

    public String baseUrl() {
        return "http://" + httpAddress().getHostString() + ":" + httpAddress().getPort();
    }

    /** The embedded Neo4j, or null when the sink is a Neo4j over Bolt ({@link Options#remote()}). */
    public EmbeddedNeo4j neo4j() {
        return neo4j;
    }

    public Sink sink() {
        return sink;
    }

    /** The write path behind the HTTP API, for in-process callers (the online importer). */
    public io.sluice.write.WritePath writePath() {
        return gateway;
    }

    @Override
    public void close() {
        log.info("sluice stopping: refusing new writes, applying what was admitted");
        if (http != null) {
            http.stopAccepting();
        }
        gateway.close();
        if (http != null) {
            http.close(Duration.ofSeconds(30));
        }
        metrics.close();
        sink.close();
        if (neo4j != null) {
            neo4j.close();
        }
        log.info("sluice stopped");
    }
}
