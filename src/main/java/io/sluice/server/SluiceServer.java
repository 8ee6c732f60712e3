package io.sluice.server;

import io.sluice.apply.RetryPolicy;
import io.sluice.batch.Ticker;
import io.sluice.durable.AsyncPath;
import java.io.IOException;
import io.sluice.config.SluiceConfig;
import io.sluice.gateway.Gateway;
import io.sluice.http.HttpServer;
import io.sluice.metrics.PrometheusMetrics;
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
 * A running sluice: embedded Neo4j, the write path and the HTTP API, started in that order and closed in the
 * reverse one. Closing refuses new requests, applies everything admitted, answers in-flight requests, then
 * shuts Neo4j down. This is what {@code sluice serve} runs and what tests and benchmarks start in-process.
 */
public final class SluiceServer implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(SluiceServer.class);
    private static final Set<String> ALREADY_EXISTS = Set.of(
            "Neo.ClientError.Schema.EquivalentSchemaRuleAlreadyExists",
            "Neo.ClientError.Schema.ConstraintAlreadyExists",
            "Neo.ClientError.Schema.IndexAlreadyExists");

    /** Where and how to run. {@code bolt} null: no Bolt connector. */
    public record Options(SluiceConfig config, Path dataDir, HostPort http, HostPort bolt) {}

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
        EmbeddedNeo4j neo4j = EmbeddedNeo4j.start(new EmbeddedNeo4j.Options(o.dataDir(), o.bolt(),
                c.neo4j().pagecache().bytes(), c.neo4j().txMemoryMax().bytes(), c.neo4j().database()));
        PrometheusMetrics metrics = null;
        Gateway gateway = null;
        try {
            Sink sink = neo4j.sink();
            applySchema(c, sink);
            Map<String, Template> templates = Gateway.compileTemplates(c, sink);
            metrics = new PrometheusMetrics();
            var j = c.journal();
            var r = c.retry();
            AsyncPath async = AsyncPath.start(new AsyncPath.Options(o.dataDir().resolve("journal"),
                    o.dataDir().resolve("dead-letters"), j.maxLagRows(), j.maxLagBytes().bytes(), j.segmentBytes().bytes(),
                    c.admission().timeout(), c.batch().maxRows(),
                    new RetryPolicy(Integer.MAX_VALUE, r.initialBackoff(), r.maxBackoff())),
                    sink, templates, metrics, Ticker.system(), Thread.ofPlatform().name("sluice-journal-applier").factory());
            gateway = new Gateway(sink, c, templates, metrics, Ticker.system(),
                    Thread.ofPlatform().name("sluice-applier-", 0).factory(), async);
            Gateway g = gateway;
            metrics.gauge("sluice.pending.rows", "admitted rows not yet committed", g::pendingRows);
            metrics.gauge("sluice.pending.bytes", "admitted request bytes not yet committed", g::pendingBytes);
            metrics.gauge("sluice.journal.lag.rows", "journaled rows not yet applied", async::lagRows);
            metrics.gauge("sluice.journal.lag.bytes", "journaled bytes not yet applied", async::lagBytes);
            metrics.gauge("sluice.journal.applied.offset", "highest journal offset applied", async::appliedOffset);
            metrics.gauge("sluice.dead.letters", "writes that failed on apply", async::deadLetterCount);
            PrometheusMetrics m = metrics;
            HttpServer http = new HttpServer(o.http().host(), o.http().port(), gateway, metrics, m::scrape,
                    c.admission().maxBodyBytes().bytes());
            return new SluiceServer(neo4j, sink, metrics, gateway, http);
        } catch (IOException | SinkException e) {
            closeQuietly(gateway, metrics, neo4j);
            throw new IllegalStateException("cannot start: " + e.getMessage(), e);
        } catch (RuntimeException e) {
            closeQuietly(gateway, metrics, neo4j);
            throw e;
        }
    }

    private static void closeQuietly(Gateway gateway, PrometheusMetrics metrics, EmbeddedNeo4j neo4j) {
        if (gateway != null) {
            gateway.close();
        }
        if (metrics != null) {
            metrics.close();
        }
        neo4j.close();
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
        return http.address();
    }

    public String baseUrl() {
        return "http://" + http.address().getHostString() + ":" + http.address().getPort();
    }

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
        http.stopAccepting();
        gateway.close();
        http.close(Duration.ofSeconds(30));
        metrics.close();
        neo4j.close();
        log.info("sluice stopped");
    }
}
