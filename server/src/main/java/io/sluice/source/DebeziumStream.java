package io.sluice.source;

import io.sluice.config.Format;
import io.sluice.cdc.ChangeEvent;
import io.sluice.cdc.DebeziumMapping;
import io.sluice.cdc.Reassembly;
import io.sluice.cdc.Reassembly.Slot;
import io.sluice.cdc.Reassembly.Unit;
import io.sluice.config.Debezium;
import io.sluice.config.Sources;
import io.sluice.durable.GraphPositions;
import io.sluice.durable.RecordApplier;
import io.sluice.durable.RecordCodec;
import io.sluice.metrics.Metrics;
import io.sluice.sink.Sink;
import io.sluice.time.Time;
import io.sluice.topic.AvroReader;
import io.sluice.topic.Formats;
import io.sluice.topic.Strategy;
import io.sluice.vocab.GraphException;
import io.sluice.vocab.Neo4jError;
import io.sluice.vocab.StatementResult;
import io.sluice.write.Template;
import io.sluice.write.WriteRequest;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.WakeupException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One Debezium connector's change streams applied a whole source transaction at a time ({@code transactions: true};
 * docs/SOURCES.md, "Debezium"): its table topics and its transaction topic read by one consumer, reassembled
 * ({@link Reassembly}) and applied in the source's commit order, each transaction in one Neo4j transaction with the
 * positions that make it exactly once.
 *
 * <h2>Design</h2>
 * A source transaction spans topics, so this consumer is not a group member splitting partitions (that would split
 * transactions): it is assigned every partition of the connector's topics, one thread polling them all. Units
 * (whole transactions, snapshot rows) go through the one apply loop for logs ({@link RecordApplier}), numbered in
 * the order they left the reassembly: the loop batches them (several small transactions in one Neo4j transaction:
 * each still whole), bisects a failing batch down to the unit that fails alone, and fences and advances the
 * stream's position ({@code (:SluicePosition {source: "debezium:<prefix>", partition: 0})}, the units' numbering) in
 * the batch's transaction. Each of the batch's transactions also writes, as of its last unit, the last commit
 * position applied ({@code source: "debezium:<prefix>#commit"}) and where each topic partition is read from again
 * ({@code "debezium:<prefix>/<topic>"}), so a restart (of sluice, of Neo4j, of the Connect worker that re-sends)
 * resumes exactly: records before those offsets are covered, copies after them are recognised by their commit
 * position and dropped.
 *
 * <p>Reading and applying overlap: a session's reader thread ({@code sluice-debezium-<prefix>-read}) owns the
 * consumer while the session lasts, polling, reading and reassembling, and hands the units over a bounded queue to
 * the stream's thread, which applies them; parsing a change event's JSON (its schema is most of it) costs about as
 * much as writing it, so on two cores this nearly doubles the rate.
 *
 * <p>Any batch not applied (Neo4j away, the fence, a unit held by {@code on_error}) restarts the session: the
 * positions are read from the graph again, every partition sought back, the reassembly begun afresh; with backoff
 * (0.5 s doubling to 30 s). A record that cannot be read goes by {@code on_error} at once; a unit that fails alone
 * goes by it with all its records. Owned by {@link KafkaSources}; two platform threads, stopped by a flag and
 * {@code wakeup} (never an interrupt: one inside Neo4j's I/O closes its channels).
 */
final class DebeziumStream implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(DebeziumStream.class);
    private static final Duration POLL = Duration.ofMillis(200);
    private static final Duration FIRST_BACKOFF = Duration.ofMillis(500);
    private static final Duration MAX_BACKOFF = Duration.ofSeconds(30);
    private static final Duration TOPICS_EVERY = Duration.ofSeconds(5);
    /** How long a batch waits for more transactions while it holds fewer rows than the batch limit. */
    private static final Duration LINGER = Duration.ofMillis(10);
    /** Units the reader hands over that may wait for the applying thread. */
    private static final int QUEUED = 1024;
    private static final String POSITION_CYPHER = "MERGE (o:SluicePosition {source: row.s, partition: row.p})"
            + " SET o.next = CASE WHEN o.next IS NULL OR o.next < row.n THEN row.n ELSE o.next END";
    static final Template POSITION = new Template("debezium position", POSITION_CYPHER, "UNWIND $"
            + Template.ROWS_PARAM + " AS row " + POSITION_CYPHER, List.of(), Set.of(), Map.of(), List.of());

    private final Debezium config;
    private final DebeziumMapping mapping;
    private final Consumer<byte[], byte[]> consumer;
    private final Sink sink;
    private final GraphPositions positions;
    private final RecordApplier<Numbered> applier;
    private final OnError onError;
    private final Map<String, SourceTopic> routes = new HashMap<>();
    private final AvroReader avro;
    private final Metrics metrics;
    private final Time time;
    private final Thread thread;
    private volatile boolean stopping;
    private volatile Reassembly reassembly;
    private final AtomicLong applied = new AtomicLong();
    /** Copies dropped by the sessions that ended (the current one's are its reassembly's). */
    private final AtomicLong dropped = new AtomicLong();
    private final Map<TopicPartition, Long> lag = new ConcurrentHashMap<>();
    private final Map<TopicPartition, Long> registered = new ConcurrentHashMap<>();
    private Duration backoff = FIRST_BACKOFF;
    /** The batch's units not yet reported to the metrics (confined to the thread). */
    private final java.util.ArrayDeque<Numbered> unreported = new java.util.ArrayDeque<>();

    DebeziumStream(Debezium config, Sources.KafkaSource source, Consumer<byte[], byte[]> consumer, Sink sink,
            RecordApplier.Parts parts, DeadLetterQueue deadLetters, AvroReader avro, Metrics metrics, Time time,
            ThreadFactory threads) {
        this.config = config;
        this.mapping = new DebeziumMapping(config);
        this.consumer = consumer;
        this.sink = sink;
        this.avro = avro;
        this.metrics = metrics;
        this.time = time.stoppedBy(() -> stopping, Duration.ofMillis(100));
        this.positions = new GraphPositions(sink, "debezium:" + config.prefix(), GraphPositions.Legacy.NONE);
        this.applier = parts.inOrder(new Units(), positions, this::deadLetter, this::progress, this.time);
        this.onError = new OnError(-1, source, deadLetters, metrics, time, tp -> null, tp -> { });
        for (String table : config.tables().keySet()) {
            String topic = config.topicOf(table);
            routes.put(topic, SourceTopic.of(topic, new Sources.Topic(topic, null, config.keyFormat(),
                    config.valueFormat(), null, null, false, config), avro));
        }
        this.thread = threads.newThread(this::run);
        metrics.debeziumStream(config.prefix(), () -> {
            Reassembly r = reassembly;
            return r == null ? 0 : r.waiting();
        }, this::oldestSeconds);
    }

    DebeziumStream start() {
        thread.start();
        return this;
    }

    boolean running() {
        return thread.isAlive();
    }

    /** A unit numbered in the stream's order: its offset in the apply loop. */
    private record Numbered(long n, Unit<ConsumerRecord<byte[], byte[]>> unit) {}

    /** What the stream cannot go on from: said, and the stream stops (its status says so). */
    static final class Unsupported extends RuntimeException {
        private static final long serialVersionUID = 1L;

        Unsupported(String message) {
            super(message);
        }
    }

    private void run() {
        while (!stopping) {
            try {
                session(); // resets the backoff when it applies something
            } catch (Unsupported e) {
                log.error("debezium {} stopped: {}", config.prefix(), e.getMessage());
                break;
            } catch (WakeupException e) {
                if (!stopping) {
                    log.warn("debezium {}: woken while running; starting again", config.prefix());
                }
            } catch (GraphException | RuntimeException e) {
                if (stopping) {
                    break;
                }
                log.warn("debezium {}: {}; reading the positions again in {} ms", config.prefix(), e.toString(),
                        backoff.toMillis());
                pause();
            }
        }
        try {
            consumer.close(org.apache.kafka.clients.consumer.CloseOptions.timeout(Duration.ofSeconds(5)));
        } catch (RuntimeException e) {
            log.debug("closing debezium {}'s consumer: {}", config.prefix(), e.toString());
        }
    }

    private void pause() {
        try {
            time.sleep(backoff);
        } catch (InterruptedException e) {
            return; // stopping
        }
        backoff = backoff.multipliedBy(2).compareTo(MAX_BACKOFF) > 0 ? MAX_BACKOFF : backoff.multipliedBy(2);
    }

    /**
     * Reads the positions, seeks there, and applies until stopped, a batch is not applied, or the reader ends (then
     * returns). The reader (its own thread, the consumer's while the session lasts) polls, reads and reassembles;
     * this thread applies what it hands over, so reading a batch overlaps applying the one before.
     */
    private void session() throws GraphException {
        long next = positions.readLocked(0);
        Map<String, Long> stored = stored();
        long lastCommit = stored.getOrDefault(commitSource(), 0L) - 1;
        Reassembly previous = reassembly;
        if (previous != null) {
            dropped.addAndGet(previous.duplicates());
        }
        Reassembly r = new Reassembly(config.transactionTopic(), lastCommit);
        reassembly = r;
        Set<TopicPartition> assigned = assign(stored);
        Reader reader = new Reader(r, assigned, next);
        Thread thread = Thread.ofPlatform().name("sluice-debezium-" + config.prefix() + "-read").start(reader);
        try {
            while (!stopping) {
                List<Numbered> units = reader.take(applier.limit(0));
                if (units == null) { // the reader ended (and said why); the next starts from the graph's positions
                    if (reader.failed && !stopping) {
                        pause();
                    }
                    return;
                }
                if (units.isEmpty()) {
                    continue;
                }
                unreported.clear();
                unreported.addAll(units);
                RecordApplier.Result result = applier.apply(0, next, units, () -> stopping);
                if (result.resync()) {
                    if (!stopping) {
                        log.warn("debezium {}: not applied ({}); reading the positions again in {} ms",
                                config.prefix(), result.why(), backoff.toMillis());
                        pause();
                    }
                    return;
                }
                next = result.next();
                backoff = FIRST_BACKOFF;
            }
        } finally {
            reader.stop();
            if (!reader.ended) {
                consumer.wakeup(); // out of its poll
            }
            try {
                if (!thread.join(Duration.ofSeconds(30))) {
                    log.warn("debezium {}: its reader did not stop within 30 s; waiting for it (the consumer is"
                            + " not used by two threads)", config.prefix());
                    thread.join();
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /**
     * A session's reader: polls the connector's topics, reads each record into the reassembly and hands the units
     * that leave it, numbered from the session's position, to the applying thread (at most {@link #QUEUED} units
     * waiting: past that it waits, and so does the consumer's fetching). Ends at the session's end, when a record is
     * held by on_error or cannot be read now, or when the topics' partitions change.
     */
    private final class Reader implements Runnable {
        private final Reassembly reassembly;
        private final Set<TopicPartition> assigned;
        private final java.util.concurrent.BlockingQueue<Numbered> queue =
                new java.util.concurrent.LinkedBlockingQueue<>(QUEUED);
        private volatile boolean done;
        private volatile boolean ended;
        /** Whether it ended on a record it could not go past (held, or unreadable now): the session backs off. */
        private volatile boolean failed;
        private long next;

        Reader(Reassembly reassembly, Set<TopicPartition> assigned, long next) {
            this.reassembly = reassembly;
            this.assigned = assigned;
            this.next = next;
        }

        @Override
        public void run() {
            long topicsAt = time.nanos();
            try {
                while (!done && !stopping) {
                    if (time.nanos() - topicsAt > TOPICS_EVERY.toNanos()) {
                        topicsAt = time.nanos();
                        if (!partitions().equals(assigned)) {
                            log.info("debezium {}: its topics' partitions changed; reading them from their positions",
                                    config.prefix());
                            return;
                        }
                    }
                    ConsumerRecords<byte[], byte[]> records = consumer.poll(POLL);
                    for (ConsumerRecord<byte[], byte[]> record : records) {
                        Unit<ConsumerRecord<byte[], byte[]>> own = read(reassembly, record);
                        if (own != null) {
                            hand(own);
                        }
                        for (Unit<ConsumerRecord<byte[], byte[]>> u : reassembly.<ConsumerRecord<byte[],
                                byte[]>>ready()) {
                            hand(u);
                        }
                    }
                    for (TopicPartition tp : assigned) {
                        consumer.currentLag(tp).ifPresent(l -> lag.put(tp, l));
                    }
                }
            } catch (WakeupException | InterruptedException e) {
                // the session ends
            } catch (RuntimeException e) {
                failed = true;
                if (!done && !stopping) {
                    log.warn("debezium {}: {}; reading the positions again in {} ms", config.prefix(), e.getMessage(),
                            backoff.toMillis());
                }
            } finally {
                ended = true;
            }
        }

        private void hand(Unit<ConsumerRecord<byte[], byte[]>> u) throws InterruptedException {
            Numbered n = new Numbered(next++, u);
            while (!queue.offer(n, 100, java.util.concurrent.TimeUnit.MILLISECONDS)) {
                if (done || stopping) {
                    throw new InterruptedException("the session ends");
                }
            }
        }

        /**
         * The units waiting, at least one unless none came within a poll's time (empty); null once the reader has
         * ended and handed everything over. Once one has come, more are waited for up to {@link #LINGER} while they
         * hold fewer than {@code rows} rows: a batch of many transactions costs one commit, and the reader, which
         * runs beside this thread, hands them over one at a time.
         */
        List<Numbered> take(int rows) {
            List<Numbered> out = new ArrayList<>();
            try {
                Numbered first = queue.poll(POLL.toMillis(), java.util.concurrent.TimeUnit.MILLISECONDS);
                if (first == null) {
                    return ended && queue.isEmpty() ? null : out;
                }
                out.add(first);
                long held = first.unit().events().size();
                long until = time.nanos() + LINGER.toNanos();
                while (held < rows && !ended && !stopping) {
                    long left = until - time.nanos();
                    Numbered more = left <= 0 ? queue.poll()
                            : queue.poll(left, java.util.concurrent.TimeUnit.NANOSECONDS);
                    if (more == null) {
                        break;
                    }
                    out.add(more);
                    held += more.unit().events().size();
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return null;
            }
            queue.drainTo(out);
            return out;
        }

        void stop() {
            done = true;
        }
    }

    /**
     * Gives the reassembly one record; a unit of its own (a snapshot row) comes back. A record that cannot be read
     * goes by on_error; when that holds it, a placeholder with no topic says so (the session starts again).
     */
    private Unit<ConsumerRecord<byte[], byte[]>> read(Reassembly r, ConsumerRecord<byte[], byte[]> record) {
        Slot slot = new Slot(record.topic(), record.partition());
        Reassembly.Read<ConsumerRecord<byte[], byte[]>> read = new Reassembly.Read<>(slot, record.offset(), record);
        try {
            if (r.isTransactions(record.topic())) {
                transaction(r, read, record);
                return null;
            }
            Object value;
            ChangeEvent marked = null;
            try {
                value = value(record);
            } catch (Formats.Unreadable | RuntimeException typed) { // a converter's failure not foreseen: the same
                // a value of a Debezium type Neo4j cannot hold (an infinite timestamp) in a readable event: it
                // still counts in its transaction, which then goes by on_error whole, instead of waiting forever
                value = plainValue(record);
                ChangeEvent plain = ChangeEvent.of(value);
                if (plain == null) {
                    throw typed;
                }
                marked = plain.invalid(typed.getMessage() != null ? typed.getMessage() : typed.toString());
            }
            ChangeEvent e = marked != null ? marked : ChangeEvent.of(value);
            if (e == null) { // a tombstone
                r.skip(slot, record.offset());
                return null;
            }
            return r.event(read, e, previousCommit(value));
        } catch (Formats.Unreadable | Strategy.Invalid | RuntimeException e) {
            Neo4jError error = Neo4jError.invalidFormat(record.topic() + "[" + record.partition() + "] offset "
                    + record.offset() + ": " + e.getMessage());
            SourceTopic route = deadLetterRoute(record.topic());
            if (onError.deadLetter(route, record, error)) {
                r.skip(slot, record.offset());
                return null;
            }
            throw new IllegalStateException("held at " + record.topic() + "[" + record.partition() + "] offset "
                    + record.offset() + ": " + error.message());
        } catch (RecordApplier.Unavailable e) {
            throw new IllegalStateException("cannot read " + record.topic() + " now: " + e.getMessage(), e);
        }
    }

    private Object value(ConsumerRecord<byte[], byte[]> record) throws Formats.Unreadable,
            RecordApplier.Unavailable {
        Format f = config.valueFormat();
        if (f == Format.AVRO) {
            try {
                return avro.readDebezium(record.value());
            } catch (Formats.Unavailable e) {
                throw new RecordApplier.Unavailable(e.getMessage(), e.getCause());
            }
        }
        return Formats.readDebezium(record.value(), f, true);
    }

    /** A change event's value without Debezium's types (the base values): to place an event whose types fail. */
    private Object plainValue(ConsumerRecord<byte[], byte[]> record) throws Formats.Unreadable,
            RecordApplier.Unavailable {
        if (config.valueFormat() == Format.AVRO) {
            try {
                return avro.read(record.value());
            } catch (Formats.Unavailable e) {
                throw new RecordApplier.Unavailable(e.getMessage(), e.getCause());
            }
        }
        return Formats.read(record.value(), config.valueFormat(), true);
    }

    private void transaction(Reassembly r, Reassembly.Read<ConsumerRecord<byte[], byte[]>> read,
            ConsumerRecord<byte[], byte[]> record) throws Formats.Unreadable, Strategy.Invalid,
            RecordApplier.Unavailable {
        Object value = value(record);
        if (value == null) {
            r.skip(read.slot(), record.offset());
            return;
        }
        if (!(value instanceof Map<?, ?> v) || !(v.get("status") instanceof String status)
                || !(v.get("id") instanceof String id)) {
            throw new Strategy.Invalid("not Debezium transaction metadata (status, id)");
        }
        if (!status.equals("END")) {
            r.skip(read.slot(), record.offset());
            return;
        }
        Map<String, Long> perTable = new LinkedHashMap<>();
        if (v.get("data_collections") instanceof List<?> l) {
            for (Object o : l) {
                if (o instanceof Map<?, ?> c && c.get("data_collection") instanceof String t
                        && c.get("event_count") instanceof Number n) {
                    perTable.put(t, n.longValue());
                }
            }
        }
        long count = v.get("event_count") instanceof Number n ? n.longValue() : 0;
        long ts = v.get("ts_ms") instanceof Number n ? n.longValue() : -1;
        for (String table : perTable.keySet()) {
            if (!config.tables().containsKey(table)) {
                throw new Strategy.Invalid("transaction " + id + " changes table " + table + ", which tables does"
                        + " not map (map it, or leave it out of the connector's table.include.list)");
            }
        }
        if (!id.contains(":")) {
            throw new Strategy.Invalid("transaction id '" + id + "' is not <xid>:<lsn> (only PostgreSQL's"
                    + " connector is supported with transactions)");
        }
        r.end(read, id, count, perTable, ts);
    }

    /** The commit position of the transaction before an event's own ({@code source.sequence[0]}), or null. */
    static Long previousCommit(Object value) {
        if (value instanceof Map<?, ?> v && v.get("source") instanceof Map<?, ?> s
                && s.get("sequence") instanceof String seq) {
            String t = seq.strip();
            if (!t.startsWith("[\"")) {
                return null; // ["null", ...] or [null, ...]: no transaction before it (the connector's first)
            }
            int open = t.indexOf('"');
            int close = t.indexOf('"', open + 1);
            try {
                return Long.parseLong(t.substring(open + 1, close));
            } catch (RuntimeException e) {
                return null;
            }
        }
        return null;
    }

    /** Every partition of the connector's topics (those that exist yet). */
    private Set<TopicPartition> partitions() {
        Set<TopicPartition> out = new java.util.HashSet<>();
        for (String topic : config.topics()) {
            List<PartitionInfo> infos = consumer.partitionsFor(topic, Duration.ofSeconds(10));
            if (infos != null) {
                for (PartitionInfo p : infos) {
                    out.add(new TopicPartition(p.topic(), p.partition()));
                }
            }
        }
        return out;
    }

    private Set<TopicPartition> assign(Map<String, Long> stored) {
        Set<TopicPartition> all = partitions();
        long ends = all.stream().filter(tp -> tp.topic().equals(config.transactionTopic())).count();
        if (ends > 1) { // ENDs keyed by xid:lsn spread over partitions: their commit order would be lost
            throw new Unsupported("the transaction topic " + config.transactionTopic() + " has " + ends
                    + " partitions: whole transactions need it in one (the connector's default;"
                    + " topic.creation.default.partitions, or a topic.creation group for it)");
        }
        consumer.assign(all);
        List<TopicPartition> fresh = new ArrayList<>();
        for (TopicPartition tp : all) {
            Long at = stored.get(kafkaSource(tp.topic()) + "@" + tp.partition());
            if (at != null) {
                consumer.seek(tp, at);
            } else {
                fresh.add(tp);
            }
            registered.computeIfAbsent(tp, x -> {
                metrics.sourcePartition(x.topic(), x.partition(), () -> lag.getOrDefault(x, 0L),
                        this::oldestSeconds);
                return 0L;
            });
        }
        if (!fresh.isEmpty()) { // never applied: the connector's topics are read from their start
            consumer.seekToBeginning(fresh);
        }
        return all;
    }

    private String commitSource() {
        return "debezium:" + config.prefix() + "#commit";
    }

    private String kafkaSource(String topic) {
        return "debezium:" + config.prefix() + "/" + topic;
    }

    /** The table topic's route for a dead letter's headers (the transaction topic's: any table's, the same strategy). */
    private SourceTopic deadLetterRoute(String topic) {
        return routes.getOrDefault(topic, routes.values().iterator().next());
    }

    /** The stored positions: the commit's ({@link #commitSource}) and each partition's as {@code source@partition}. */
    private Map<String, Long> stored() throws GraphException {
        StatementResult rows = sink.inReadTransaction(tx -> tx.run("MATCH (o:SluicePosition) WHERE o.source"
                + " STARTS WITH $p RETURN o.source, o.partition, o.next", Map.of("p", "debezium:" + config.prefix())));
        Map<String, Long> out = new HashMap<>();
        for (List<Object> row : rows.rows()) {
            String s = (String) row.get(0);
            long p = ((Number) row.get(1)).longValue();
            long n = ((Number) row.get(2)).longValue();
            out.put(s.equals(commitSource()) ? s : s + "@" + p, n);
        }
        return out;
    }

    private double oldestSeconds() {
        Reassembly r = reassembly;
        long ts = r == null ? -1 : r.oldestWaitingMillis();
        return ts < 0 ? 0 : Math.max(0, (time.now().toEpochMilli() - ts) / 1000.0);
    }

    /** The stream's standing, for /health and status. */
    Map<String, Object> status() {
        Reassembly r = reassembly;
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("prefix", config.prefix());
        m.put("transactions", true);
        m.put("running", running());
        m.put("units_applied", applied.get());
        if (r != null) {
            m.put("last_commit", r.lastCommit());
            m.put("waiting", r.waiting());
            m.put("buffered_events", r.buffered());
            m.put("duplicates_dropped", dropped.get() + r.duplicates());
            m.put("oldest_unapplied_seconds", oldestSeconds());
        }
        return m;
    }

    /** Units applied (or moved past) up to {@code next}: counted, and their lag measured, now that they committed. */
    private void progress(int partition, long next, long rows, long bytes) {
        long now = time.now().toEpochMilli();
        while (!unreported.isEmpty() && unreported.peekFirst().n() < next) {
            Unit<ConsumerRecord<byte[], byte[]>> u = unreported.removeFirst().unit();
            Map<String, Long> perTable = new HashMap<>();
            for (ChangeEvent e : u.events()) {
                perTable.merge(e.table(), 1L, Long::sum);
            }
            applied.incrementAndGet();
            metrics.debeziumApplied(config.prefix(), u.events().size(), perTable,
                    u.committedAtMillis() < 0 ? -1 : Math.max(0, now - u.committedAtMillis()));
        }
    }

    /** A unit that fails alone: every record it came from goes by on_error; all must move past for it to. */
    private boolean deadLetter(int partition, Numbered n, Neo4jError error) {
        for (ConsumerRecord<byte[], byte[]> record : n.unit().records()) {
            SourceTopic route = deadLetterRoute(record.topic());
            if (!onError.deadLetter(route, record, error)) {
                return false;
            }
        }
        return true;
    }

    /** The units as the apply loop reads them. */
    private final class Units implements RecordApplier.Records<Numbered> {
        @Override
        public long offset(Numbered n) {
            return n.n();
        }

        @Override
        public long bytes(Numbered n) {
            long b = 0;
            for (ConsumerRecord<byte[], byte[]> r : n.unit().records()) {
                b += (r.key() == null ? 0 : r.key().length) + (r.value() == null ? 0 : r.value().length);
            }
            return b;
        }

        @Override
        public void inTransaction(io.sluice.sink.Sink.SinkTx tx, Numbered last) throws GraphException {
            writePositions(tx, last);
        }

        @Override
        public WriteRequest decode(Numbered n) throws RecordCodec.Undecodable {
            Unit<ConsumerRecord<byte[], byte[]>> u = n.unit();
            List<Strategy.Op> ops;
            try {
                ops = u.xid() == null ? mapping.ops(u.events().getFirst()) : mapping.ops(u.events());
            } catch (Strategy.Invalid e) {
                throw new RecordCodec.Undecodable((u.xid() == null ? "snapshot row: " : "transaction " + u.xid()
                        + ": ") + e.getMessage());
            }
            List<WriteRequest.TemplateRequest> parts = new ArrayList<>(ops.size());
            for (Strategy.Op op : ops) {
                parts.add(new WriteRequest.TemplateRequest(op.template(), List.of(op.row()), 0));
            }
            return new WriteRequest.Sequence(parts, bytes(n));
        }
    }

    /**
     * Where each topic partition is read again, and the last commit applied, as of the last unit of a group:
     * written once per Neo4j transaction, after the stream's fenced position.
     */
    private void writePositions(io.sluice.sink.Sink.SinkTx tx, Numbered last) throws GraphException {
        Unit<ConsumerRecord<byte[], byte[]>> u = last.unit();
        List<Map<String, Object>> rows = new ArrayList<>(u.resume().size() + 1);
        for (Map.Entry<Slot, Long> e : u.resume().entrySet()) {
            rows.add(Map.of("s", kafkaSource(e.getKey().topic()), "p", (long) e.getKey().partition(), "n",
                    e.getValue()));
        }
        if (u.lastCommit() >= 0) {
            rows.add(Map.of("s", commitSource(), "p", 0L, "n", u.lastCommit() + 1));
        }
        if (!rows.isEmpty()) {
            tx.runDiscarding(POSITION.unwindCypher(), Map.of(Template.ROWS_PARAM, rows));
        }
    }

    /** Asks the thread to finish its batch and stop. */
    void stop() {
        stopping = true;
        consumer.wakeup();
    }

    /** Waits up to {@code wait} for the thread to end (after {@link #stop}). */
    boolean drain(Duration wait) {
        stop();
        try {
            return thread.join(wait);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    @Override
    public void close() {
        if (!drain(Duration.ofSeconds(30))) {
            log.warn("debezium {}'s thread did not stop within 30 s", config.prefix());
        }
    }
}
