package io.sluice.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.distribution.ValueAtPercentile;
import io.sluice.config.ConfigLoader;
import io.sluice.config.SluiceConfig;
import io.sluice.config.Sources;
import io.sluice.metrics.PrometheusMetrics;
import io.sluice.server.SluiceServer;
import io.sluice.sink.Sink;
import io.sluice.source.KafkaSources;
import io.sluice.time.Time;
import io.sluice.vocab.GraphException;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * {@code sluice bench-debezium}: Debezium change events applied from a backlog, row by row and whole source
 * transactions, against the raw {@code UNWIND} limit on the same rows, and the lag at half the transactions' rate
 * (docs/BENCHMARKS.md, "Debezium").
 *
 * <h2>Design</h2>
 * The events are Debezium 3.6.1's own shape: the envelope, schemas and transaction blocks of a real PostgreSQL
 * connector's records ({@code customers}: an int key, a name, a date, a decimal; recorded in
 * server/src/test/resources/debezium), with the ids, transaction ids and log positions of the generated rows. Each
 * phase has a fresh embedded Neo4j and topics of its own, filled before it is timed (one partition a topic, as the
 * connector makes them). {@code raw}: the same rows (as the mapping reads them) as {@code UNWIND} transactions of
 * 1,000 running the mapping's upsert, on one thread; {@code rows}: {@code transactions: false}, the table topic
 * applied by one consumer; {@code transactions}: whole source transactions of {@code txRows} rows, one stream. One
 * thread each, so the ratios compare the work per row, not parallelism. The raw phase runs before the two backlogs
 * and again after them, and they are compared with both together (their rows over their time): the machine's speed
 * drifts by a third within minutes, and one short raw phase moved a ratio by 0.3 (docs/BENCHMARKS.md); each raw
 * phase is reported too. Timed from start to every row in the graph;
 * the process's CPU over the phase (the producer is idle then) per row. The lag phase: a producer thread sends whole
 * transactions at half the transactions' measured rate, each stamped with its send time as its commit time, and the
 * stream's own lag timer (commit time to Neo4j commit) gives p50, p99 and max, over the phase after its first
 * {@link #WARM_LAG} (the fresh database's planning and page cache). A prime before the phases warms the JIT.
 */
public final class DebeziumBench {
    static final ObjectMapper JSON = new ObjectMapper();
    static final String TABLE = "public.customers";
    /** The lag phase's first part, sent at the rate but not measured. */
    static final Duration WARM_LAG = Duration.ofSeconds(10);
    static final String UPSERT = "MERGE (n:`Customer` {`id`: row.key.`id`}) SET n = row.props";

    /** The command's settings. */
    public record Options(long rows, int txRows, Duration prime, Duration lag, boolean schemas, SluiceConfig config,
            Path work, String kafka, String command) {}

    /** One measured phase. */
    record Phase(String name, long rows, double seconds, double cpuSeconds, double rowsPerBatch) {
        double rate() {
            return rows / seconds;
        }

        Phase named(String other) {
            return new Phase(other, rows, seconds, cpuSeconds, rowsPerBatch);
        }

        /** Both phases' rows over both phases' time: the raw limit the others are compared with. */
        Phase and(Phase other) {
            return new Phase(name, rows + other.rows, seconds + other.seconds, cpuSeconds + other.cpuSeconds,
                    rowsPerBatch);
        }
    }

    private final Options o;
    private final Time time;
    private final PrintStream progress;
    private final ObjectNode template;
    private final JsonNode key;
    private final Events events;
    private int run;

    public DebeziumBench(Options o, Time time, PrintStream progress) throws IOException {
        this.o = o;
        this.time = time;
        this.progress = progress;
        List<String> lines;
        try (var in = DebeziumBench.class.getResourceAsStream("/debezium/customer-create.txt")) {
            lines = new String(in.readAllBytes(), StandardCharsets.UTF_8).lines().toList();
        }
        this.key = JSON.readTree(lines.get(0));
        this.template = (ObjectNode) JSON.readTree(lines.get(1));
        this.events = new Events(template, key, o.schemas());
    }

    /**
     * The change events as text: the template serialized once with a marker in each varying field, cut there, and
     * put together again per event with its values (a few appends, not a tree copied and written: the lag phase's
     * producer shares the two cores with what it measures).
     */
    static final class Events {
        private final Text withTx;
        private final Text withoutTx;
        private final Text key;

        Events(ObjectNode template, JsonNode keyTemplate, boolean schemas) throws IOException {
            ObjectNode v = template.deepCopy();
            ObjectNode payload = (ObjectNode) v.get("payload");
            ObjectNode after = (ObjectNode) payload.get("after");
            after.put("name", mark("NAME"));
            after.put("id", 0).put("born", 0);
            ObjectNode source = (ObjectNode) payload.get("source");
            source.put("sequence", mark("SEQ"));
            ObjectNode block = payload.putObject("transaction");
            block.put("id", mark("BLOCK")).put("total_order", 1).put("data_collection_order", 1);
            String withTx = numbers(JSON.writeValueAsString(schemas ? v : payload));
            payload.putNull("transaction");
            String withoutTx = numbers(JSON.writeValueAsString(schemas ? v : payload));
            this.withTx = Text.of(withTx);
            this.withoutTx = Text.of(withoutTx);
            ObjectNode k = keyTemplate.deepCopy();
            ((ObjectNode) k.get("payload")).put("id", 0);
            this.key = Text.of(JSON.writeValueAsString(schemas ? k : k.get("payload"))
                    .replace("\"id\":0", "\"id\":" + mark("ID")));
        }

        /** The numbers the template holds, marked where they vary (they are written as JSON numbers). */
        private static String numbers(String json) {
            return json.replace("\"id\":0,\"name\"", "\"id\":\u00a7ID\u00a7,\"name\"")
                    .replace("\"born\":0", "\"born\":\u00a7BORN\u00a7")
                    .replace("\"txId\":728", "\"txId\":\u00a7TXID\u00a7")
                    .replace("\"lsn\":22179920", "\"lsn\":\u00a7LSN\u00a7")
                    .replace("\"ts_ms\":1796208597564,\"snapshot\"", "\"ts_ms\":\u00a7TS\u00a7,\"snapshot\"")
                    .replace("\"total_order\":1", "\"total_order\":\u00a7ORDER\u00a7")
                    .replace("\"data_collection_order\":1", "\"data_collection_order\":\u00a7ORDER\u00a7");
        }

        private static String mark(String slot) {
            return "\u00a7" + slot + "\u00a7";
        }

        byte[] key(Map<String, String> slots) {
            return key.fill(slots);
        }

        byte[] value(boolean transactions, Map<String, String> slots) {
            return (transactions ? withTx : withoutTx).fill(slots);
        }

        /** A text cut at its markers: the pieces between, and the slot each marker names. */
        record Text(List<String> pieces, List<String> slots) {
            static Text of(String s) {
                List<String> pieces = new ArrayList<>();
                List<String> slots = new ArrayList<>();
                int at = 0;
                for (int open = s.indexOf('\u00a7'); open >= 0; open = s.indexOf('\u00a7', at)) {
                    int close = s.indexOf('\u00a7', open + 1);
                    pieces.add(s.substring(at, open));
                    slots.add(s.substring(open + 1, close));
                    at = close + 1;
                }
                pieces.add(s.substring(at));
                return new Text(pieces, slots);
            }

            byte[] fill(Map<String, String> values) {
                StringBuilder b = new StringBuilder(pieces.getFirst().length() * 2 + 256);
                for (int i = 0; i < slots.size(); i++) {
                    b.append(pieces.get(i)).append(values.get(slots.get(i)));
                }
                b.append(pieces.getLast());
                return b.toString().getBytes(StandardCharsets.UTF_8);
            }
        }
    }

    /** Runs the prime and the phases; returns the report's text. */
    public String run() throws Exception {
        BenchBroker own = o.kafka().equals("start") ? BenchBroker.start(o.work(), progress) : null;
        String bootstrap = own != null ? own.bootstrap() : o.kafka();
        try (Admin admin = Admin.create(Map.of("bootstrap.servers", bootstrap));
                KafkaProducer<byte[], byte[]> producer = producer(bootstrap)) {
            progress.printf(Locale.ROOT, "bench-debezium: priming the JIT (%d s)%n", o.prime().toSeconds());
            long primeRows = Math.max(20_000, Math.min(o.rows(), 100_000));
            long deadline = time.nanos() + o.prime().toNanos();
            while (time.nanos() < deadline) {
                raw(primeRows);
                backlog(admin, producer, bootstrap, primeRows, false);
                backlog(admin, producer, bootstrap, primeRows, true);
            }
            Phase before = raw(o.rows());
            Phase rows = backlog(admin, producer, bootstrap, o.rows(), false);
            Phase tx = backlog(admin, producer, bootstrap, o.rows(), true);
            Phase after = raw(o.rows()); // the machine's speed drifts: raw brackets the phases it is compared with
            double[] lag = o.lag().isZero() ? null : lag(admin, producer, bootstrap, tx.rate() / 2);
            return report(List.of(before.named("raw before"), after.named("raw after")), before.and(after), rows, tx,
                    lag);
        } finally {
            if (own != null) {
                own.close();
            }
        }
    }

    private String report(List<Phase> raws, Phase raw, Phase rows, Phase tx, double[] lag) {
        StringBuilder b = new StringBuilder();
        b.append("# ").append(o.command()).append('\n');
        b.append("# events: ").append(format()).append(o.schemas() ? " (Kafka Connect's JsonConverter with schemas:"
                + " Debezium's default JSON, about 3.2 KB an event)" : " (schemas.enable=false: the payload alone)")
                .append('\n');
        b.append(String.format(Locale.ROOT, "%-14s %10s %9s %12s %10s %12s%n", "phase", "rows/s", "x raw",
                "CPU µs/row", "seconds", "rows/batch"));
        List<Phase> all = new ArrayList<>(raws);
        all.addAll(List.of(raw, rows, tx));
        for (Phase p : all) {
            b.append(String.format(Locale.ROOT, "%-14s %10.0f %9.2f %12.1f %10.1f %12.0f%n", p.name(), p.rate(),
                    p.rate() / raw.rate(), p.cpuSeconds() * 1e6 / p.rows(), p.seconds(), p.rowsPerBatch()));
        }
        if (lag != null) {
            b.append(String.format(Locale.ROOT, "lag at %.0f rows/s (%d-row transactions, half the transactions'"
                    + " rate): p50 %.0f ms, p99 %.0f ms, max %.0f ms over %.0f transactions%n", lag[0], o.txRows(),
                    lag[1], lag[2], lag[3], lag[4]));
        }
        return b.toString();
    }

    private static KafkaProducer<byte[], byte[]> producer(String bootstrap) {
        Properties p = new Properties();
        p.put("bootstrap.servers", bootstrap);
        p.put(ProducerConfig.ACKS_CONFIG, "all");
        p.put(ProducerConfig.LINGER_MS_CONFIG, "5");
        p.put(ProducerConfig.BATCH_SIZE_CONFIG, Integer.toString(256 * 1024));
        p.put(ProducerConfig.COMPRESSION_TYPE_CONFIG, "lz4");
        p.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        p.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        return new KafkaProducer<>(p);
    }

    /** The raw limit: the rows as the mapping reads them, 1,000 a transaction, on one thread. */
    private Phase raw(long n) throws Exception {
        return onFreshServer("raw", (server, metrics) -> {
            Sink sink = server.sink();
            sink.inTransaction(tx -> { // the constraint the debezium source creates at its start
                tx.runDiscarding("CREATE CONSTRAINT customer_id IF NOT EXISTS FOR (x:Customer) REQUIRE x.id IS UNIQUE",
                        Map.of());
                return null;
            });
            long t0 = time.nanos();
            double cpu0 = ServerStats.cpuSeconds(ProcessHandle.current());
            List<Map<String, Object>> batch = new ArrayList<>(1000);
            for (long id = 1; id <= n; id++) {
                Map<String, Object> props = new LinkedHashMap<>();
                props.put("id", id);
                props.put("name", "customer " + id);
                if (o.schemas()) { // as the mapping reads them: Debezium's types, Connect's decimal as text
                    props.put("born", LocalDate.ofEpochDay(-56270 + id % 1000));
                    props.put("balance", "3.25"); // the template's decimal (AUU= at scale 2)
                } else { // base values: days, the decimal's bytes as base64 text
                    props.put("born", -56270 + id % 1000);
                    props.put("balance", "AUU=");
                }
                batch.add(Map.of("key", Map.of("id", id), "props", props));
                if (batch.size() == 1000 || id == n) {
                    List<Map<String, Object>> rows = batch;
                    sink.inTransaction(tx -> {
                        tx.runDiscarding("UNWIND $rows AS row " + UPSERT, Map.of("rows", rows));
                        return null;
                    });
                    batch = new ArrayList<>(1000);
                }
            }
            return new Phase("raw", n, (time.nanos() - t0) / 1e9, ServerStats.cpuSeconds(ProcessHandle.current())
                    - cpu0, 1000);
        });
    }

    /** A backlog of {@code n} row events (in transactions, or not) applied by a fresh server's source. */
    private Phase backlog(Admin admin, KafkaProducer<byte[], byte[]> producer, String bootstrap, long n,
            boolean transactions) throws Exception {
        String prefix = "dbz" + (++run);
        createTopics(admin, prefix, transactions);
        progress.printf(Locale.ROOT, "bench-debezium: %s: %d events%s%n", prefix, n, transactions ? " in "
                + o.txRows() + "-row transactions" : "");
        send(producer, prefix, 1, n, transactions, 0);
        producer.flush();
        return onFreshServer(transactions ? "transactions" : "rows", (server, metrics) -> {
            long t0 = time.nanos();
            double cpu0 = ServerStats.cpuSeconds(ProcessHandle.current());
            try (KafkaSources sources = sources(server, metrics, bootstrap, prefix, transactions)) {
                waitForCustomers(server.sink(), sources, n, Duration.ofMinutes(30));
                var batches = metrics.registry().find("sluice.batch.rows").summary();
                return new Phase(transactions ? "transactions" : "rows", n, (time.nanos() - t0) / 1e9,
                        ServerStats.cpuSeconds(ProcessHandle.current()) - cpu0, batches == null ? 0 : batches.mean());
            }
        });
    }

    /**
     * Whole transactions sent at {@code rate} rows a second for the lag duration, each stamped with its send time;
     * returns {rate, p50 ms, p99 ms, max ms, transactions} from the stream's lag timer.
     */
    private double[] lag(Admin admin, KafkaProducer<byte[], byte[]> producer, String bootstrap, double rate)
            throws Exception {
        String prefix = "dbz" + (++run);
        createTopics(admin, prefix, true);
        progress.printf(Locale.ROOT, "bench-debezium: lag at %.0f rows/s for %d s%n", rate, o.lag().toSeconds());
        return onFreshServer("lag", (server, metrics) -> {
            try (KafkaSources sources = sources(server, metrics, bootstrap, prefix, true)) {
                long perTx = o.txRows();
                long warm = (long) (rate * WARM_LAG.toSeconds() / perTx);
                long txs = warm + (long) (rate * o.lag().toSeconds() / perTx);
                long start = time.nanos();
                long nextId = 1;
                for (long t = 0; t < txs; t++) {
                    if (t == warm) { // the fresh database's first seconds (plans, page cache) are not measured
                        Timer first = metrics.registry().find("sluice.debezium.lag").timer();
                        if (first != null) {
                            metrics.registry().remove(first);
                        }
                    }
                    long due = start + (long) (t * perTx * 1e9 / rate);
                    long wait = due - time.nanos();
                    if (wait > 0) {
                        time.sleep(Duration.ofNanos(wait));
                    }
                    send(producer, prefix, nextId, perTx, true, time.now().toEpochMilli());
                    nextId += perTx;
                }
                producer.flush();
                waitForCustomers(server.sink(), sources, nextId - 1, Duration.ofMinutes(5));
                Timer timer = metrics.registry().find("sluice.debezium.lag").timer();
                double p50 = 0;
                double p99 = 0;
                for (ValueAtPercentile v : timer.takeSnapshot().percentileValues()) {
                    if (v.percentile() == 0.5) {
                        p50 = v.value(TimeUnit.MILLISECONDS);
                    } else if (v.percentile() == 0.99) {
                        p99 = v.value(TimeUnit.MILLISECONDS);
                    }
                }
                return new double[] {rate, p50, p99, timer.max(TimeUnit.MILLISECONDS), timer.count()};
            }
        });
    }

    private void createTopics(Admin admin, String prefix, boolean transactions) throws Exception {
        List<NewTopic> topics = new ArrayList<>(List.of(new NewTopic(prefix + "." + TABLE, 1, (short) 1)));
        if (transactions) {
            topics.add(new NewTopic(prefix + ".transaction", 1, (short) 1));
        }
        admin.createTopics(topics).all().get(60, TimeUnit.SECONDS);
    }

    /**
     * Events for rows {@code first} .. {@code first + n - 1}: creates, in transactions of {@code txRows} (a BEGIN,
     * the rows, an END) or without transaction blocks; {@code commitMillis}: their commit time (0: the template's).
     */
    private void send(KafkaProducer<byte[], byte[]> producer, String prefix, long first, long n, boolean transactions,
            long commitMillis) throws IOException {
        String table = prefix + "." + TABLE;
        long per = transactions ? o.txRows() : 1;
        for (long base = first; base < first + n; base += per) {
            long xid = 1000 + base;
            long count = Math.min(per, first + n - base);
            long beginLsn = base * 1000;
            long commitLsn = beginLsn + count * 10 + 5;
            if (transactions) {
                producer.send(new ProducerRecord<>(prefix + ".transaction", bytes(txKey(xid, beginLsn)),
                        bytes(txValue("BEGIN", xid, beginLsn, null, commitMillis))));
            }
            for (long i = 0; i < count; i++) {
                long id = base + i;
                long lsn = beginLsn + (i + 1) * 10;
                Map<String, String> slots = Map.of(
                        "ID", Long.toString(id),
                        "NAME", "customer " + id,
                        "BORN", Long.toString(-56270 + id % 1000),
                        "TXID", Long.toString(xid),
                        "LSN", Long.toString(lsn),
                        "SEQ", "[\\\"" + (beginLsn - 1) + "\\\",\\\"" + lsn + "\\\"]",
                        "TS", Long.toString(commitMillis > 0 ? commitMillis : 1796208597564L),
                        "BLOCK", xid + ":" + lsn,
                        "ORDER", Long.toString(i + 1));
                producer.send(new ProducerRecord<>(table, events.key(slots), events.value(transactions, slots)));
            }
            if (transactions) {
                producer.send(new ProducerRecord<>(prefix + ".transaction", bytes(txKey(xid, commitLsn)),
                        bytes(txValue("END", xid, commitLsn, count, commitMillis))));
            }
        }
    }

    private JsonNode txKey(long xid, long lsn) {
        ObjectNode k = JSON.createObjectNode();
        k.putNull("schema");
        k.putObject("payload").put("id", xid + ":" + lsn);
        return o.schemas() ? k : k.get("payload");
    }

    private JsonNode txValue(String status, long xid, long lsn, Long count, long commitMillis) {
        ObjectNode v = JSON.createObjectNode();
        v.putNull("schema");
        ObjectNode p = v.putObject("payload");
        p.put("status", status);
        p.put("id", xid + ":" + lsn);
        if (count == null) {
            p.putNull("event_count");
            p.putNull("data_collections");
        } else {
            p.put("event_count", count);
            ObjectNode c = p.putArray("data_collections").addObject();
            c.put("data_collection", TABLE);
            c.put("event_count", count);
        }
        p.put("ts_ms", commitMillis > 0 ? commitMillis : 1796208597564L);
        return o.schemas() ? v : p;
    }

    private static byte[] bytes(JsonNode n) throws IOException {
        return JSON.writeValueAsBytes(n);
    }

    private KafkaSources sources(SluiceServer server, PrometheusMetrics metrics, String bootstrap, String prefix,
            boolean transactions) throws IOException, GraphException {
        Sources.KafkaSource k = ConfigLoader.parse("""
                sources:
                  kafka:
                    bootstrap: %s
                    group: %s
                    consumers: 1
                    debezium:
                      - prefix: %s
                        transactions: %s
                        key_format: %s
                        value_format: %s
                        tables:
                          public.customers: {label: Customer}
                """.formatted(bootstrap, prefix + "-sluice", prefix, transactions, format(), format()))
                .sources().kafka();
        KafkaSources s = KafkaSources.create(k, server.sink(), SourcesRun.parts(o.config(), server.sink(), metrics), metrics,
                time, "bench");
        s.start();
        return s;
    }

    private String format() {
        return o.schemas() ? "json-schema" : "json";
    }

    private void waitForCustomers(Sink sink, KafkaSources sources, long n, Duration bound)
            throws InterruptedException {
        long until = time.nanos() + bound.toNanos();
        while (SourcesRun.count(sink, "MATCH (n:Customer) RETURN count(n)", Map.of()) < n) {
            if (time.nanos() > until) {
                throw new IllegalStateException("not every row applied within " + bound + ": " + sources.health());
            }
            time.sleep(Duration.ofMillis(50));
        }
    }

    @FunctionalInterface
    interface OnServer<T> {
        T run(SluiceServer server, PrometheusMetrics metrics) throws Exception;
    }

    /** A fresh server (embedded Neo4j in a temporary directory, no listeners) for one phase, deleted after. */
    private <T> T onFreshServer(String phase, OnServer<T> work) throws Exception {
        Files.createDirectories(o.work());
        Path dir = Files.createTempDirectory(o.work(), "sluice-bench-debezium-" + phase + "-");
        SluiceConfig c = o.config().with(Sources.DEFAULT);
        c = c.with(c.warmup().withoutRehearsal());
        try (SluiceServer server = SluiceServer.start(new SluiceServer.Options(c, dir, null, null), time)) {
            return work.run(server, server.metrics());
        } finally {
            BenchServers.deleteTree(dir);
        }
    }
}
