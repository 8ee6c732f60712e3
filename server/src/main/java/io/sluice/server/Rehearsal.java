package io.sluice.server;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.sluice.config.Access;
import io.sluice.config.AccessLevels;
import io.sluice.config.FieldType;
import io.sluice.config.HostPort;
import io.sluice.config.Modes;
import io.sluice.config.SluiceConfig;
import io.sluice.front.Callers;
import io.sluice.gateway.Warmer;
import io.sluice.http.Flavour;
import io.sluice.http.HttpServer;
import io.sluice.metrics.History;
import io.sluice.metrics.PrometheusMetrics;
import io.sluice.security.Authenticator;
import io.sluice.security.Credentials;
import io.sluice.security.InitialAuth;
import io.sluice.security.UserStore;
import io.sluice.session.Grouping;
import io.sluice.sink.EmbeddedNeo4j;
import io.sluice.sink.Sink;
import io.sluice.time.Time;
import io.sluice.vocab.GraphException;
import io.sluice.write.Template;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.BooleanSupplier;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The write path's rehearsal at start ({@code warmup.write_path}): the configured templates' sync path run with
 * synthetic rows until the JIT has compiled it, so that the first clients after UP are not served by a process
 * running its write path interpreted (measured: the first 10 s after UP ran at a quarter of steady state's rate,
 * the next 10 s at half; docs/BENCHMARKS.md, "The first minute").
 *
 * <h2>Design</h2>
 * The JIT compiles code, not instances, so the rehearsal builds a private copy of the write path from the same
 * classes the server's is built from and drives it as clients do: an {@link HttpServer} on an ephemeral loopback
 * port, and a write path built by the same {@link WritePathBuilder} as the server's (its own applier
 * threads, {@code sluice-rehearsal-applier-N}), and its own metrics. Nothing is shared with the server's write
 * path: no rehearsal row can join a client's batch, the server's pending bounds and counters are untouched, and
 * the journal is never reached (it is built without one: async writes are refused). Clients that write meanwhile are
 * served by the server's path as usual.
 *
 * <p>Where the rows go: into a <em>scratch database</em>, a second embedded Neo4j in {@code scratch} (a
 * directory of its own, emptied before and deleted after; a small page cache, no Bolt), with the config's
 * schema, where every transaction commits. The same Neo4j classes run in this JVM for both, so Cypher, the
 * kernel, the commit (transaction log, store and index updates: half of a write's work) and the sink are
 * compiled for the real database too; the user's database never sees a rehearsal row, a lock or a token. So
 * only a server with the embedded Neo4j rehearses: over Bolt ({@code serve --neo4j}) the only database at hand
 * is the user's own server, which a rehearsal would load with write transactions and their locks (rolled back or
 * not) at every restart; and that server's JIT is its own.
 *
 * <p>The load: {@value #CLIENTS} virtual threads, each sending one request at a time through the JDK's HTTP
 * client, the templates in turn, one row per request and eight in every eighth (a JSON object, and an array).
 * Rows are synthetic: each field the template reads gets a value of its declared type ({@code types}); where none
 * is declared, a string in one row and an integer in the next (the JIT then compiles both). Key fields are
 * distinct per row; the other fields take one of {@value #POOL} values, so MERGE finds existing nodes as well as
 * creating new ones. Strings are {@code "sluice-rehearsal-N"}, integers below -10^12. A template whose rows keep
 * refused (more 4xx answers than successes after {@value #GIVE_UP_AFTER}; one that needs, say, a number of a
 * field not declared) is dropped from the rehearsal and named in the result and the log; 5xx answers and broken
 * connections are counted apart and drop nothing.
 *
 * <p>The listener asks for credentials that exist only in this process for this run (a random password for
 * {@value #USER}, made as sluice makes Neo4j's initial one, {@link InitialAuth#generatePassword}; checked in
 * constant time) and lets them send templates only.
 *
 * <p>When it ends: after {@code limit} at most; sooner once {@link #MIN} has passed and the JIT has been quiet
 * for {@value #QUIET_SECONDS} s in a row (it compiled for less than {@value #QUIET_MILLIS_PER_SECOND} ms in each
 * second: what it still does is background); or when {@code stop} says so (the server is closing). Then the
 * clients stop, and everything it built is closed in reverse order.
 *
 * <p>Over 400 lines with this note: the synthetic rows, the clients and the pacing are one procedure, each part
 * read only by the others.
 *
 * <p>Used once, by the warmer's thread ({@link Warmer}); owns everything it starts, all of it closed before
 * {@link #run} returns.
 */
final class Rehearsal implements Warmer.Rehearsal {
    private static final Logger log = LoggerFactory.getLogger(Rehearsal.class);
    static final String USER = "sluice-rehearsal";
    static final int CLIENTS = 64;
    static final Duration MIN = Duration.ofSeconds(5);
    static final int QUIET_SECONDS = 3;
    static final long QUIET_MILLIS_PER_SECOND = 250;
    static final int GIVE_UP_AFTER = 20;
    static final int POOL = 10_000;
    /** The scratch database's page cache. */
    static final long SCRATCH_PAGECACHE = 64L << 20;
    private static final Duration REQUEST_TIMEOUT = Duration.ofSeconds(30);
    /**
     * What each closing step waits at most (the clients, interrupted; the listener's requests in flight); the
     * appliers get {@link #DRAIN}: together well within {@code Warmer}'s 30 s wait for its thread.
     */
    private static final Duration CLOSE_WAIT = Duration.ofSeconds(5);
    static final Duration DRAIN = Duration.ofSeconds(10);
    private static final ObjectMapper JSON = new ObjectMapper();

    private final SluiceConfig config;
    private final Path scratch;
    private final Map<String, Template> templates;
    private final Duration limit;
    private final Time time;
    private final LongSupplier jitMillis;

    /**
     * Rehearses {@code templates} of {@code config} for at most {@code limit} in a scratch database in
     * {@code scratch}; {@code jitMillis} says how long the JIT has compiled so far ({@link #jitMillis()} for this
     * JVM's).
     */
    Rehearsal(SluiceConfig config, Path scratch, Map<String, Template> templates, Duration limit,
            Time time, LongSupplier jitMillis) {
        if (templates.isEmpty()) {
            throw new IllegalArgumentException("nothing to rehearse: no templates");
        }
        this.config = config;
        this.scratch = Objects.requireNonNull(scratch, "scratch");
        this.templates = Map.copyOf(templates);
        this.limit = limit;
        this.time = time;
        this.jitMillis = jitMillis;
    }

    /** This JVM's total JIT compilation time so far, in ms (0 where the JVM does not say). */
    static long jitMillis() {
        var jit = ManagementFactory.getCompilationMXBean();
        return jit != null && jit.isCompilationTimeMonitoringSupported() ? jit.getTotalCompilationTime() : 0;
    }

    /**
     * One template's share of the rehearsal. Answers refusing its rows (4xx: its Cypher fails on them) count
     * towards dropping it; others (5xx such as 503 when the pending bound is full, a broken connection) do not:
     * they say nothing of its rows.
     */
    private static final class Tally {
        final Template template;
        final AtomicLong ok = new AtomicLong();
        final AtomicLong refused = new AtomicLong();
        final AtomicLong unavailable = new AtomicLong();
        final AtomicReference<String> firstError = new java.util.concurrent.atomic
                .AtomicReference<>();

        Tally(Template template) {
            this.template = template;
        }

        boolean dropped() {
            long f = refused.get();
            return f >= GIVE_UP_AFTER && f > ok.get();
        }
    }

    @Override
    public Map<String, Object> run(BooleanSupplier stop) throws Exception {
        long t0 = time.nanos();
        long jit0 = jitMillis.getAsLong();
        if (stop.getAsBoolean()) {
            return Map.of("ended", "stopped before it began");
        }
        String password = InitialAuth.generatePassword();
        List<Tally> tallies = templates.values().stream().sorted(Comparator.comparing(Template::name))
                .map(Tally::new).toList();
        String ended;
        AtomicLong sent = new AtomicLong();
        Owned owned = new Owned();
        log.info("rehearsing the write path ({}) in a scratch database for at most {} s before saying UP",
                String.join(", ", templates.keySet()), limit.toSeconds());
        try {
            HttpServer http = start(owned, password);
            String base = "http://127.0.0.1:" + http.address().getPort() + "/db/" + config.neo4j().database()
                    + "/write/";
            String authorization = "Basic " + Base64.getEncoder().encodeToString((USER + ":" + password)
                    .getBytes(StandardCharsets.UTF_8));
            HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
                    .connectTimeout(REQUEST_TIMEOUT).build();
            owned.add("the rehearsal's HTTP client", () -> { // close() would wait without a bound
                client.shutdownNow();
                if (!client.awaitTermination(CLOSE_WAIT)) {
                    log.warn("the rehearsal's HTTP client did not stop within {}", CLOSE_WAIT);
                }
            });
            ExecutorService clients = Executors.newThreadPerTaskExecutor(
                    Thread.ofVirtual().name("sluice-rehearsal-client-", 0).factory());
            CountDownLatch done = new CountDownLatch(1);
            AtomicLong serial = new AtomicLong();
            owned.add("the rehearsal's clients", () -> {
                done.countDown();
                clients.shutdownNow(); // interrupts a client waiting for its answer
                try {
                    if (!clients.awaitTermination(CLOSE_WAIT.toMillis(), TimeUnit.MILLISECONDS)) {
                        log.warn("the rehearsal's clients did not stop within {}", CLOSE_WAIT);
                    }
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            });
            if (stop.getAsBoolean()) {
                return Map.of("ended", "stopped before it began");
            }
            for (int i = 0; i < CLIENTS; i++) {
                int first = i;
                clients.execute(() -> drive(client, base, authorization, tallies, first, done, sent, serial));
            }
            ended = pace(stop, tallies, t0, jit0);
        } finally {
            owned.close(); // the clients first: they stop before what they send to
        }
        long requests = sent.get();
        long ms = (time.nanos() - t0) / 1_000_000;
        long jit = jitMillis.getAsLong() - jit0;
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("ended", ended);
        out.put("where", "scratch database");
        out.put("took_ms", ms);
        out.put("requests", requests);
        out.put("jit_ms", jit);
        Map<String, Object> per = new LinkedHashMap<>();
        List<String> dropped = new ArrayList<>();
        for (Tally t : tallies) {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("answered", t.ok.get());
            m.put("refused", t.refused.get());
            m.put("unavailable", t.unavailable.get());
            if (t.firstError.get() != null) {
                m.put("first_error", t.firstError.get());
            }
            if (t.dropped()) {
                dropped.add(t.template.name() + " (" + t.firstError.get() + ")");
            }
            per.put(t.template.name(), m);
        }
        out.put("templates", per);
        log.info("write path rehearsed in {} ms ({}): {} requests, the JIT compiled for {} ms{}", ms, ended, requests,
                jit, dropped.isEmpty() ? "" : "; not rehearsed, their synthetic rows are refused (declare the fields' types):"
                        + " " + String.join("; ", dropped));
        return out;
    }

    /** Looks every second whether the rehearsal should end; says why it ended. */
    private String pace(BooleanSupplier stop, List<Tally> tallies, long t0, long jit0) throws InterruptedException {
        long last = jit0;
        int quiet = 0;
        while (true) {
            time.sleep(Duration.ofSeconds(1));
            long jit = jitMillis.getAsLong();
            quiet = jit - last < QUIET_MILLIS_PER_SECOND ? quiet + 1 : 0;
            long elapsed = time.nanos() - t0;
            log.debug("rehearsal: {} ms in, the JIT compiled {} ms in the last second", elapsed / 1_000_000,
                    jit - last);
            last = jit;
            if (stop.getAsBoolean()) {
                return "stopped";
            }
            if (tallies.stream().allMatch(Tally::dropped)) {
                return "no template could be rehearsed";
            }
            if (elapsed >= limit.toNanos()) {
                return "time limit";
            }
            if (elapsed >= MIN.toNanos() && quiet >= QUIET_SECONDS) {
                return "the JIT was quiet";
            }
        }
    }

    /** One client: requests one at a time until {@code done}, over the templates still rehearsed. */
    private void drive(HttpClient client, String base, String authorization, List<Tally> tallies, int first,
            CountDownLatch done, AtomicLong sent, AtomicLong serial) {
        for (long n = first; done.getCount() > 0; n++) {
            Tally t = tallies.get((int) (n % tallies.size()));
            if (t.dropped()) {
                if (tallies.stream().allMatch(Tally::dropped)) {
                    return;
                }
                continue;
            }
            int rows = n % 8 == 7 ? 8 : 1;
            try {
                byte[] body = body(t.template, rows, serial);
                HttpResponse<String> r = client.send(HttpRequest.newBuilder(URI.create(base + t.template.name()))
                        .timeout(REQUEST_TIMEOUT).header("Authorization", authorization)
                        .header("Content-Type", "application/json")
                        .POST(HttpRequest.BodyPublishers.ofByteArray(body)).build(),
                        HttpResponse.BodyHandlers.ofString());
                sent.incrementAndGet();
                if (r.statusCode() / 100 == 2) {
                    t.ok.incrementAndGet();
                } else {
                    fail(t, r.statusCode() / 100 == 4 ? t.refused : t.unavailable, r.statusCode() + " " + r.body());
                }
            } catch (IOException e) {
                if (done.getCount() > 0) {
                    fail(t, t.unavailable, e.toString());
                }
            } catch (InterruptedException e) {
                return;
            }
        }
    }

    private static void fail(Tally t, AtomicLong counter, String error) {
        counter.incrementAndGet();
        t.firstError.compareAndSet(null, error.length() > 300 ? error.substring(0, 300) + "..." : error);
    }

    /** {@code rows} synthetic rows for {@code template}: one as a JSON object, more as an array. */
    static byte[] body(Template template, int rows, AtomicLong serial) throws IOException {
        List<Map<String, Object>> list = new ArrayList<>(rows);
        for (int i = 0; i < rows; i++) {
            list.add(row(template, serial.incrementAndGet()));
        }
        return JSON.writeValueAsBytes(rows == 1 ? list.getFirst() : list);
    }

    /**
     * A row of {@code template}'s fields (see the class note): of their declared types, else a string or an
     * integer as {@code n} is even or odd; keys distinct per {@code n}, the rest one of {@value #POOL} values.
     */
    static Map<String, Object> row(Template template, long n) {
        Map<String, Object> row = new LinkedHashMap<>();
        List<String> fields = new ArrayList<>(template.fields());
        for (String k : template.key()) {
            if (!fields.contains(k)) {
                fields.add(k);
            }
        }
        for (String f : fields) {
            long v = template.key().contains(f) ? n : n % POOL;
            FieldType declared = template.types().get(f);
            row.put(f, value(declared != null ? declared : n % 2 == 0 ? FieldType.STRING : FieldType.INTEGER, v));
        }
        return row;
    }

    private static Object value(FieldType type, long n) {
        return switch (type) {
            case STRING, ANY -> "sluice-rehearsal-" + n;
            case INTEGER -> -1_000_000_000_000L - n;
            case FLOAT, NUMBER -> -1_000_000_000_000L - n - 0.5;
            case BOOLEAN -> n % 2 == 0;
            case LIST -> List.of("sluice-rehearsal", n);
            case MAP -> Map.of("sluice_rehearsal", n);
        };
    }

    /** Builds the private write path and its listener, each part recorded in {@code owned} as it exists. */
    private HttpServer start(Owned owned, String password) throws IOException, GraphException {
        wipe(scratch);
        owned.add("the rehearsal's scratch directory", () -> wipe(scratch));
        var n = config.neo4j();
        Sink target = owned.add("the rehearsal's scratch database", EmbeddedNeo4j.start(new EmbeddedNeo4j.Options(
                scratch, null, SCRATCH_PAGECACHE, n.txMemoryMax().bytes(), n.database(), null, null, n.settings()),
                time)).sink();
        ConfigSchema.apply(config, target, time);
        PrometheusMetrics metrics = owned.add("the rehearsal's metrics", new PrometheusMetrics());
        WritePathBuilder paths = new WritePathBuilder(config, target, metrics, time, owned, "sluice-rehearsal-",
                DRAIN);
        WritePathBuilder.Built built = paths.build(templates, WritePathBuilder.Journal.NONE, null);
        owned.add("the rehearsal's gateway", built.gateway()::close);
        Authenticator auth = new Authenticator(new OneUser(password), time, 0, Duration.ofSeconds(1),
                Duration.ofHours(1), 16);
        History history = new History(metrics::scrape, time, History.INTERVAL, History.CAPACITY);
        HttpServer http = HttpServer.create(new HttpServer.Options(new HostPort("127.0.0.1", 0), null, null,
                config.admission().maxBodyBytes().bytes(), false, null, target.neo4jVersion(),
                config.http().ioThreads()), new HttpServer.Services(built.gateway(), built.gateway(),
                paths.transactions(built, Flavour.QUERY_API, null, Grouping.OFF),
                paths.transactions(built, Flavour.CLASSIC, null, Grouping.OFF),
                new Callers(auth, new AccessLevels(Access.TEMPLATES, Map.of()), Modes.DEFAULT), metrics, metrics::scrape,
                history), time);
        owned.add("the rehearsal's HTTP listener", () -> http.close(CLOSE_WAIT));
        http.start();
        return http;
    }

    /** Deletes {@code dir} and everything under it, if it exists. */
    static void wipe(Path dir) throws IOException {
        if (!Files.exists(dir)) {
            return;
        }
        try (var paths = Files.walk(dir)) {
            for (Path p : paths.sorted(Comparator.reverseOrder()).toList()) {
                Files.delete(p);
            }
        }
    }

    /** The rehearsal's one user, {@link #USER} with this run's password. */
    private record OneUser(String password) implements UserStore {
        @Override
        public Verdict check(Credentials credentials) {
            if (credentials instanceof Credentials.Basic b && USER.equals(b.user()) && MessageDigest.isEqual(
                    password.getBytes(StandardCharsets.UTF_8), b.password().getBytes(StandardCharsets.UTF_8))) {
                return new Verdict.Accepted(USER);
            }
            return new Verdict.Rejected("The client is unauthorized due to authentication failure.");
        }

        @Override
        public long version() {
            return 0;
        }
    }
}
