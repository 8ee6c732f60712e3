package io.sluice.consumer;

import io.sluice.durable.GraphPositions;
import io.sluice.durable.RecordApplier;
import io.sluice.time.Time;
import io.sluice.vocab.GraphException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.FutureTask;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.apache.kafka.clients.consumer.CloseOptions;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerRebalanceListener;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.InvalidOffsetException;
import org.apache.kafka.clients.consumer.NoOffsetForPartitionException;
import org.apache.kafka.clients.consumer.OffsetOutOfRangeException;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.WakeupException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One member of a Kafka consumer group applying the partitions the group gives it, each in offset order, exactly
 * once: the one driver of Kafka consumers, for the Kafka journal ({@code kafka.KafkaApplier}) and the application
 * topics ({@code source.SourceConsumer}) alike.
 *
 * <h2>Design</h2>
 * One thread owns the consumer: it polls, seeks, pauses and resumes, and rebalance callbacks run inside its polls.
 * It never calls Neo4j. Every Neo4j call of the consumer (a partition's position read, a poll's records applied
 * through the one apply loop for logs, {@link RecordApplier}: batching, lock order, bisection, dead letters, the
 * fenced position in the graph) runs on one worker thread ({@code <thread>-neo4j}) while the owner waits for it
 * ({@link #meanwhilePolling}). A call longer than {@link #POLL} is waited for <em>polling</em>: every partition
 * paused, a poll of zero wait every {@code POLL}, which fetches nothing and keeps the member in its group however
 * long Neo4j takes (the first statements after a Neo4j restart, planned on a cold server on loaded cores, took over
 * 10 s in the outage test, past its {@code max.poll.interval.ms}). What the worker needs of the consumer it asks of
 * the owner, which answers while it waits: a partition's first offsets, which the worker waits for ({@link #askOwner}),
 * and a poll taken ahead, which it does not ({@link #pollAheadMeanwhile}).
 * A rebalance in such a poll: an assigned partition is paused, its position read at the next round; a revoked one
 * stops its apply at the next batch, and the callback waits for that batch to end (answering the worker's asks, but
 * polling for none), so that no batch is in flight when a partition changes hands, for up to {@link #REVOKE_WAIT}
 * (a rebalance is bounded by {@code max.poll.interval.ms} too). Past that, or for a partition lost, the batch may
 * still commit while the next owner starts: the fence (each batch locks its position in the graph and compares it
 * with its own, {@link GraphPositions}) refuses whichever of the two batches comes second, so each record still
 * applies once (a record dead-lettered by both would be the one duplicate, in the dead letters).
 *
 * <p>Where the appliers decode ahead (application topics: reading a record costs about what writing it does), the next
 * poll is taken <em>ahead</em>: when the last batch of a poll is gathered and about to apply, the worker asks the
 * owner for a poll of zero wait, which takes what has arrived, and goes on with the batch without waiting for it (the
 * poll decompresses and parses its records: ~10 ms of 3 KB events); its records start decoding on the applier's
 * decoder thread, so that polling and reading them overlap Neo4j's work on that batch instead of following it
 * ({@link #pollAhead}); the next round applies them without polling. Records polled ahead continue the consumer's
 * position, which is the graph's only while this class neither seeks nor pauses their partition: so every seek,
 * pause, assignment and revocation drops what was polled ahead of that partition ({@link #dropAhead}), and a partition
 * whose batch was not applied (paused for its retry) reads them again from the graph's position. (Not the pause of a
 * poll that keeps the member alive, resumed right after it, nor its seek back to records it returned though paused:
 * neither moves the position.) A rebalance may run inside that poll, as the last batch applies: as in a poll keeping
 * the member, the revocation waits for that batch (up to {@link #REVOKE_WAIT}; past it the fence decides); what was
 * polled of a revoked partition is dropped. What the poll ahead throws: an offset out of range is handled at the next
 * round, before any resume seeks; anything else ends the consumer as a keep-alive poll's failure does, once the call
 * has ended.
 *
 * <p>Outages are not bad data, and never cost the group membership. The apply loop's runner retries transient
 * errors a bounded number of times (on the worker, the owner polling meanwhile); a batch still not applied (Neo4j
 * away, a lost commit, the fence) is never skipped: its partition is <em>paused</em> in the consumer and retried
 * with backoff (0.5 s doubling to 30 s) from
 * its position in the graph, read again under the node's lock ({@link Log#position}). Meanwhile the thread keeps
 * polling (a paused partition returns nothing), so the consumer stays in its group however long the outage lasts
 * (it would leave after {@code max.poll.interval.ms} without a poll), and its other partitions go on. When one
 * partition's batch was not applied, the others of that poll wait a first backoff too, rather than each meeting
 * the same outage on the worker in turn; a position that cannot be read ends a round of resumes for the same
 * reason.
 *
 * <p>Where a partition starts is the graph's: after assignment and on every resume its position is read, and the
 * consumer seeks there; Kafka's committed offsets are never read or written ({@code auto.offset.reset=none}).
 * Records deleted by retention before they were applied are said loudly, then skipped to the earliest offset there
 * is (moving the position in the graph past them); a log that ends before the graph's position (truncated) holds
 * the partition instead, never re-applying.
 *
 * <p>{@link #close} sets a flag and wakes the consumer; the thread finishes its batch, leaves the group (which
 * moves its partitions to the others at once) and ends. Never interrupted: an interrupt inside Neo4j's file I/O
 * closes its channels.
 */
public final class GroupConsumer implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(GroupConsumer.class);
    private static final Duration POLL = Duration.ofMillis(200);
    private static final Duration HOLD = Duration.ofMinutes(1);
    /** The brokers' offsets, asked on the owner thread (no poll meanwhile): a failure is retried as Neo4j's are. */
    private static final Duration OFFSETS_WAIT = Duration.ofSeconds(5);
    /**
     * How long a revocation waits for the worker's batch on a revoked partition, polling for nothing meanwhile: well
     * under any {@code max.poll.interval.ms} (the rebalance's own limit). Past it the batch may still commit, and the
     * fence decides between it and the next owner's (exactly once either way).
     */
    private static final Duration REVOKE_WAIT = Duration.ofSeconds(2);
    private static final Runnable WAKE = () -> {};

    /** What a consumer applies: its subscription, where a partition stands, how a topic's records are applied. */
    public interface Log {
        /** Subscribes {@code consumer} (to a topic, or a pattern) with the driver's rebalance listener. */
        void subscribe(Consumer<byte[], byte[]> consumer, ConsumerRebalanceListener listener);

        /**
         * The apply loop of {@code topic}'s records, asked once per topic on the consumer's thread; its progress
         * must be reported to {@code progress}. Null when nothing maps the topic: its partitions stay paused.
         */
        RecordApplier<ConsumerRecord<byte[], byte[]>> applier(String topic, RecordApplier.Progress progress);

        /**
         * Where {@code tp} stands in the graph: the next offset to apply, read under its node's lock (so a batch
         * another owner is committing is waited for), fixing a first start where there is none.
         */
        long position(TopicPartition tp, Offsets offsets) throws GraphException;

        /** {@code topic}'s positions in the graph, to move past records retention deleted. */
        GraphPositions positions(String topic);

        /** A partition was assigned (before its position is read). */
        default void assigned(Partition p) {}

        /** {@code p} moved from {@code before} to {@code next} (committed, or past records that failed). */
        default void moved(Partition p, long before, long next) {}
    }

    /** A partition's offsets as the brokers say, asked of the consumer on its thread (it is not thread-safe). */
    public interface Offsets {
        /** The first offset {@code tp} still has. */
        long beginning(TopicPartition tp);

        /** The offset {@code tp}'s next record will have. */
        long end(TopicPartition tp);
    }

    private final String name;
    private final Consumer<byte[], byte[]> consumer;
    private final Log target;
    private final Time time;
    private final Thread thread;
    /** Runs every Neo4j call of this consumer, one at a time, while the owner thread keeps polling. */
    private final ExecutorService worker;
    /** What the worker asks of the owner thread (a poll ahead, offsets), and a wake-up when its call is done. */
    private final BlockingQueue<Runnable> asks = new LinkedBlockingQueue<>();
    /** The partition whose position or records the worker is on now, or null; the owner thread's only. */
    private TopicPartition working;
    /** The worker's call now, or null; the owner thread's only. */
    private CompletableFuture<?> call;
    /** Whether the owner waits in a rebalance callback (inside a poll: the worker's asks then poll for nothing). */
    private boolean noPolling;
    /** Whether the owner is answering an ask the worker waits for ({@link #askOwner}); the owner thread's only. */
    private boolean answering;
    /** When the owner last polled ({@link #time}'s nanos); the owner thread's only. */
    private long polled;
    /** The owner met an error it cannot go on from while the worker's call ran: the call stops at its next batch. */
    private volatile boolean failing;
    private final Offsets offsets = new Offsets() {
        @Override
        public long beginning(TopicPartition tp) {
            return askOwner(() -> consumer.beginningOffsets(List.of(tp), OFFSETS_WAIT).get(tp));
        }

        @Override
        public long end(TopicPartition tp) {
            return askOwner(() -> consumer.endOffsets(List.of(tp), OFFSETS_WAIT).get(tp));
        }
    };
    private final Map<TopicPartition, Partition> owned = new ConcurrentHashMap<>();
    private final Map<String, RecordApplier<ConsumerRecord<byte[], byte[]>>> appliers = new ConcurrentHashMap<>();
    /** The records of a poll taken ahead ({@link #pollAhead}), per partition, to apply at the next round. */
    private final Map<TopicPartition, List<ConsumerRecord<byte[], byte[]>>> ahead = new LinkedHashMap<>();
    /** The decoding begun of {@link #ahead}'s records, per partition. */
    private final Map<TopicPartition, RecordApplier<ConsumerRecord<byte[], byte[]>>.ReadAhead> reading =
            new HashMap<>();
    /** What the poll taken ahead threw, to handle at the next round as that round's poll. */
    private RuntimeException aheadFailure;
    /** Records polled ahead, and of them dropped (their partition sought or paused before they applied). */
    private volatile long polledAhead;
    private volatile long droppedAhead;
    private volatile boolean stopping;

    /** {@code name}: what its log lines call it ({@code source consumer 0}, {@code the Kafka applier}). */
    public GroupConsumer(String name, Consumer<byte[], byte[]> consumer, Log target, Time time,
            ThreadFactory threads) {
        this.name = name;
        this.consumer = consumer;
        this.target = target;
        this.time = time;
        this.thread = threads.newThread(this::run);
        String workerName = thread.getName() + "-neo4j";
        this.worker = Executors.newSingleThreadExecutor(r -> {
            Thread t = threads.newThread(r);
            t.setName(workerName);
            return t;
        });
    }

    public GroupConsumer start() {
        thread.start();
        return this;
    }

    /** Whether its thread still runs (it ends at close, or on an error it cannot go on from, logged). */
    public boolean running() {
        return thread.isAlive();
    }

    /** The partitions this consumer owns now. */
    public Collection<Partition> owned() {
        return List.copyOf(owned.values());
    }

    /** The partition {@code tp} if this consumer owns it, else null. */
    public Partition partition(TopicPartition tp) {
        return owned.get(tp);
    }

    /**
     * Records taken by polls ahead ({@link #pollAhead}), and of those the records dropped because their partition was
     * sought, paused or revoked before they applied (read again from the graph's position).
     */
    public long[] polledAhead() {
        return new long[] {polledAhead, droppedAhead};
    }

    /** The apply loops' transient retries, per Neo4j status code, over every topic. */
    public Map<String, Long> transientRetries() {
        Map<String, Long> all = new HashMap<>();
        for (RecordApplier<?> a : List.copyOf(appliers.values())) {
            a.transientRetries().forEach((code, n) -> all.merge(code, n, Long::sum));
        }
        return all;
    }

    private void run() {
        try {
            target.subscribe(consumer, new ConsumerRebalanceListener() {
                @Override
                public void onPartitionsAssigned(Collection<TopicPartition> assigned) {
                    assigned.forEach(GroupConsumer.this::assign);
                    if (!assigned.isEmpty()) {
                        log.info("{} applies {}", name, assigned);
                    }
                }

                @Override
                public void onPartitionsRevoked(Collection<TopicPartition> revoked) {
                    revoked.forEach(GroupConsumer.this::revoke);
                    awaitWorkOn(revoked);
                }

                @Override
                public void onPartitionsLost(Collection<TopicPartition> lost) { // already another's: nothing to wait
                    lost.forEach(GroupConsumer.this::revoke);
                    log.warn("{}: partitions {} were lost to another owner (it was too slow to poll)", name, lost);
                }
            });
            polled = time.nanos();
            while (!stopping) {
                pollOnce();
            }
            List.copyOf(ahead.keySet()).forEach(this::dropAhead);
        } catch (RuntimeException | Error e) {
            if (!stopping) {
                log.error("{} stopped: {}", name, e.toString(), e);
            }
        } finally {
            try {
                consumer.close(CloseOptions.timeout(Duration.ofSeconds(10))); // leaves the group
            } catch (RuntimeException e) {
                log.warn("closing {}'s consumer: {}", name, e.toString());
            }
            worker.shutdown(); // its call, if any, has ended: the owner waits for every call it makes, failing or not
        }
    }

    /**
     * Runs {@code call} on the worker and waits for it: the owner's one way to Neo4j. While it waits it answers the
     * worker's asks, and from {@link #POLL} on polls every {@code POLL} with every partition paused, so that the
     * member stays in its group however long the call takes ({@link #keepAlive}). {@code tp}: the partition the call
     * is for (a revocation waits for it), or null.
     */
    private <T> T meanwhilePolling(TopicPartition tp, NeoCall<T> work) throws GraphException {
        CompletableFuture<T> done = new CompletableFuture<>();
        working = tp;
        call = done;
        try {
            worker.execute(() -> {
                try {
                    done.complete(work.call());
                } catch (Throwable e) {
                    done.completeExceptionally(e);
                } finally {
                    asks.add(WAKE);
                }
            });
            RuntimeException failed = null;
            while (!done.isDone()) {
                long since = time.nanos() - polled;
                Runnable ask = take(Duration.ofNanos(Math.max(0, POLL.toNanos() - since)));
                if (ask != null) {
                    failed = orFirst(failed, consumerCall(() -> answer(ask)));
                } else if (!done.isDone() && failed == null && time.nanos() - polled >= POLL.toNanos()) {
                    failed = consumerCall(this::keepAlive);
                }
            }
            for (Runnable ask; (ask = asks.poll()) != null; ) { // a poll ahead asked late in the call
                Runnable late = ask;
                failed = orFirst(failed, consumerCall(() -> answer(late)));
            }
            if (failed != null) {
                throw failed;
            }
        } finally {
            working = null;
            call = null;
        }
        try {
            return done.join();
        } catch (CompletionException e) {
            if (unchecked(e.getCause()) instanceof GraphException g) {
                throw g;
            }
            throw e;
        }
    }

    /**
     * Runs {@code poll} (a poll of the owner's while the worker's call runs); what it threw, else null: the consumer
     * cannot go on, so the call stops at its next batch ({@link #failing}), and the owner rethrows once it has ended.
     */
    private RuntimeException consumerCall(Runnable poll) {
        try {
            poll.run();
            return null;
        } catch (RuntimeException | Error e) {
            failing = true;
            return e instanceof RuntimeException r ? r : new IllegalStateException(e);
        }
    }

    private static RuntimeException orFirst(RuntimeException first, RuntimeException next) {
        return first != null ? first : next;
    }

    /**
     * Runs an ask of the worker: {@link #askOwner}'s, which the worker waits for (so a revocation in it must not wait
     * for the worker's batch), or a poll ahead, which it does not.
     */
    private void answer(Runnable ask) {
        answering = ask instanceof FutureTask;
        try {
            ask.run();
        } finally {
            answering = false;
        }
    }

    /** Throws {@code cause} as it is when it is unchecked; else returns it, for the caller to rethrow or wrap. */
    private static Throwable unchecked(Throwable cause) {
        if (cause instanceof RuntimeException r) {
            throw r;
        }
        if (cause instanceof Error r) {
            throw r;
        }
        return cause;
    }

    /** A Neo4j call the worker makes. */
    @FunctionalInterface
    private interface NeoCall<T> {
        T call() throws GraphException;
    }

    /** The next ask, waiting up to {@code wait}; null when none came. Never interrupted (see {@link #close}). */
    private Runnable take(Duration wait) {
        try {
            return asks.poll(wait.toNanos(), TimeUnit.NANOSECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(name + " interrupted", e);
        }
    }

    /**
     * A poll of zero wait with every partition paused: it fetches nothing, keeps the member in its group (and runs
     * a rebalance's callbacks); the partitions it paused are resumed after, those that are still this member's and
     * were not paused (an assignment's) or sought meanwhile.
     */
    private void keepAlive() {
        Map<TopicPartition, Partition> held = new HashMap<>();
        Set<TopicPartition> paused = consumer.paused();
        for (TopicPartition tp : consumer.assignment()) {
            if (!paused.contains(tp)) {
                held.put(tp, owned.get(tp));
            }
        }
        consumer.pause(held.keySet());
        try {
            polled = time.nanos();
            ConsumerRecords<byte[], byte[]> none = consumer.poll(Duration.ZERO);
            for (TopicPartition tp : none.partitions()) { // not expected (all paused): read again, in their turn
                long first = none.records(tp).getFirst().offset();
                log.warn("{}: a poll with {} paused returned records from offset {}; read again", name, tp, first);
                consumer.seek(tp, first);
            }
        } catch (WakeupException e) {
            // close() woke us: the call finishes its batch, then the loop ends
        } catch (NoOffsetForPartitionException e) { // a partition paused before its first seek: its resume seeks it
            seekToBeginningIfAssigned(e.partitions());
        } catch (OffsetOutOfRangeException e) { // a fetch in flight met retention: the next round handles it
            if (aheadFailure == null) {
                aheadFailure = e;
            } // else it is met again: its position has not moved
        } finally {
            Set<TopicPartition> still = consumer.assignment();
            List<TopicPartition> resume = new ArrayList<>();
            held.forEach((tp, p) -> {
                if (still.contains(tp) && owned.get(tp) == p && (p == null || p.pausedUntil == 0)) {
                    resume.add(tp);
                }
            });
            consumer.resume(resume);
        }
    }

    /**
     * In a revocation's callback: waits (up to {@link #REVOKE_WAIT}) for the worker's call when it is on one of
     * {@code partitions} (revoked, so its apply ends at its next batch), answering its asks without polling. Not
     * when the callback runs in an ask the worker waits for ({@link #askOwner}): it could not end meanwhile.
     */
    private void awaitWorkOn(Collection<TopicPartition> partitions) {
        CompletableFuture<?> running = call;
        if (running == null || answering || noPolling || !partitions.contains(working)) {
            return;
        }
        noPolling = true;
        long deadline = time.nanos() + REVOKE_WAIT.toNanos();
        try {
            long left;
            while (!running.isDone() && (left = deadline - time.nanos()) > 0) {
                Runnable ask = take(Duration.ofNanos(Math.min(left, POLL.toNanos())));
                if (ask != null) {
                    ask.run();
                }
            }
            if (!running.isDone()) {
                log.warn("{}: {} revoked while a batch of it still applies; the fence in the graph decides between it"
                        + " and the next owner's", name, working);
            }
        } finally {
            noPolling = false;
        }
    }

    /**
     * Seeks those of {@code partitions} this consumer is still assigned (a call on any other would throw) to their
     * beginning, for a fetch position; none when none is (Kafka's empty list would mean every partition).
     */
    private void seekToBeginningIfAssigned(Collection<TopicPartition> partitions) {
        Set<TopicPartition> now = consumer.assignment();
        List<TopicPartition> still = partitions.stream().filter(now::contains).toList();
        if (!still.isEmpty()) {
            consumer.seekToBeginning(still);
        }
    }

    /**
     * Runs {@code ask} on the owner thread (which answers while it waits for the worker's call) and returns its
     * answer; run at once when called there.
     */
    private <T> T askOwner(Supplier<T> ask) {
        if (Thread.currentThread() == thread) {
            return ask.get();
        }
        FutureTask<T> task = new FutureTask<>(ask::get);
        asks.add(task);
        try {
            return task.get();
        } catch (ExecutionException e) {
            throw new IllegalStateException(unchecked(e.getCause()));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(name + "'s worker interrupted", e);
        }
    }

    private void pollOnce() {
        if (aheadFailure == null) { // else handled first: a resume's seek would make it stale
            resumeDue();
        }
        Map<TopicPartition, List<ConsumerRecord<byte[], byte[]>>> records;
        try {
            records = nextRecords();
        } catch (WakeupException e) {
            return; // close() woke us: the loop condition decides
        } catch (OffsetOutOfRangeException e) {
            outOfRange(e);
            return;
        } catch (InvalidOffsetException e) {
            // a partition paused before its first seek (its position could not be read) has no fetch position, and
            // no committed offset to reset to; its resume seeks it to the graph's
            seekToBeginningIfAssigned(e.partitions());
            return;
        }
        boolean outage = false;
        int left = records.size();
        for (var entry : records.entrySet()) {
            TopicPartition tp = entry.getKey();
            left--;
            if (outage) { // the database is away: the others wait, not each its own retries on the worker
                Partition p = owned.get(tp);
                if (p != null && p.pausedUntil == 0) {
                    pause(p, Partition.FIRST_BACKOFF, "waiting: another partition's batch was not applied");
                }
                continue;
            }
            outage = apply(tp, entry.getValue(), left == 0);
        }
        for (Iterator<TopicPartition> it = reading.keySet().iterator(); it.hasNext(); ) {
            TopicPartition tp = it.next();
            if (!ahead.containsKey(tp)) { // begun for records this round did not apply (paused, revoked)
                reading.get(tp).close();
                it.remove();
            }
        }
    }

    /** The records of the poll taken ahead, if any (or what it threw), else of a poll now. */
    private Map<TopicPartition, List<ConsumerRecord<byte[], byte[]>>> nextRecords() {
        if (aheadFailure != null) {
            RuntimeException e = aheadFailure;
            aheadFailure = null;
            throw e;
        }
        Map<TopicPartition, List<ConsumerRecord<byte[], byte[]>>> out = new LinkedHashMap<>(ahead);
        ahead.clear();
        if (!out.isEmpty()) {
            return out;
        }
        polled = time.nanos();
        ConsumerRecords<byte[], byte[]> records = consumer.poll(POLL);
        polled = time.nanos();
        for (TopicPartition tp : records.partitions()) {
            out.put(tp, records.records(tp));
        }
        return out;
    }

    /**
     * Asks the owner thread for the poll ahead ({@link #pollAhead}) and returns at once, so that the poll (which
     * decompresses and parses the records it returns: some 10 ms for a poll of 3 KB events, in bench-debezium the
     * worker's second wait after Neo4j) runs while this batch applies, rather than before it; called on the worker.
     * False when {@code current} is no longer this consumer's: its last batch is then not applied.
     */
    private boolean pollAheadMeanwhile(Partition current) {
        asks.add(() -> pollAhead(current)); // not a FutureTask: a revocation in it waits for the batch (answer)
        return owned.get(current.tp()) == current;
    }

    /**
     * Takes the next poll while the last batch of this one applies ({@code current}'s, asked by the apply loop on the
     * worker as it begins that batch, {@link #pollAheadMeanwhile}), and begins decoding its records on each applier's
     * decoder, so that reading them overlaps Neo4j's work instead of following it. A poll of zero wait: what has
     * arrived. A rebalance in it is met as in the polls that keep the member: a revoked partition's batch is waited
     * for ({@link #awaitWorkOn}) and its apply stops at its next batch (there is none: it was the last), so no batch
     * is in flight when a partition changes hands.
     */
    private void pollAhead(Partition current) {
        TopicPartition tp = current.tp();
        if (owned.get(tp) != current) {
            return; // revoked or lost in a poll that kept the member: no position of it to ask
        }
        if (stopping || failing || !ahead.isEmpty() || aheadFailure != null || noPolling) {
            return;
        }
        ConsumerRecords<byte[], byte[]> polled;
        try {
            current.fetchedAhead = consumer.position(tp); // past this poll's records (and markers): the lag's end
            this.polled = time.nanos();
            polled = consumer.poll(Duration.ZERO);
        } catch (WakeupException e) { // close() woke us: the batch finishes, then the loop ends
            return;
        } catch (InvalidOffsetException e) { // OffsetOutOfRangeException too
            aheadFailure = e;
            return;
        }
        for (TopicPartition t : polled.partitions()) {
            List<ConsumerRecord<byte[], byte[]>> rs = polled.records(t);
            ahead.put(t, rs);
            polledAhead += rs.size(); // this thread's only
            RecordApplier<ConsumerRecord<byte[], byte[]>> a = applier(t.topic());
            var decoding = a == null ? null : a.readAhead(rs);
            if (decoding != null) {
                reading.put(t, decoding);
            }
        }
    }

    /**
     * Forgets what was polled ahead of {@code tp}: called wherever this class seeks or pauses it, or it is
     * revoked, so that records polled ahead are applied only where they follow the records before them.
     */
    private void dropAhead(TopicPartition tp) {
        List<ConsumerRecord<byte[], byte[]>> dropped = ahead.remove(tp);
        if (dropped != null) {
            droppedAhead += dropped.size(); // this thread's only
        }
        var decoding = reading.remove(tp);
        if (decoding != null) {
            decoding.close();
        }
    }

    private void revoke(TopicPartition tp) {
        owned.remove(tp);
        dropAhead(tp);
    }

    /**
     * A newly assigned partition: paused, its position read at the next round ({@link #resumeDue}), on the worker
     * (a callback runs inside a poll, which may be one that keeps the member alive while the worker is busy).
     */
    private void assign(TopicPartition tp) {
        dropAhead(tp);
        if (applier(tp.topic()) == null) { // a pattern matched a topic nothing maps: the subscription is the log's
            log.error("{}: topic {} matches the subscription but nothing maps it; not applied", name, tp.topic());
            consumer.seekToBeginning(List.of(tp)); // a fetch position, so that no poll throws for it
            consumer.pause(List.of(tp));
            return;
        }
        Partition p = new Partition(tp);
        owned.put(tp, p);
        target.assigned(p);
        consumer.seekToBeginning(List.of(tp)); // a fetch position for poll; the resume seeks to the graph's
        pause(p, Duration.ZERO, "reading its position");
    }

    /**
     * Reads where {@code p} stands in the graph (on the worker) and seeks there; false when that failed. True also
     * when {@code p} was revoked meanwhile: the caller checks.
     */
    private boolean seekToPosition(Partition p) {
        dropAhead(p.tp());
        try {
            long next = meanwhilePolling(p.tp(), () -> target.position(p.tp(), offsets));
            if (owned.get(p.tp()) != p) {
                return true;
            }
            p.next = next;
            consumer.seek(p.tp(), next);
            return true;
        } catch (GraphException | RuntimeException e) { // Neo4j away, or Kafka's offsets not answered in time
            if (failing && e instanceof RuntimeException r) {
                throw r; // the consumer cannot go on (meanwhilePolling)
            }
            p.pausedFor = "reading its position: " + e.getMessage();
            log.warn("{}: reading where it stands: {} (retrying)", p.tp(), e.getMessage());
            return false;
        }
    }

    private void pause(Partition p, Duration wait, String why) {
        dropAhead(p.tp());
        if (owned.get(p.tp()) != p) {
            return; // revoked meanwhile (while a call ran): not this consumer's to pause
        }
        consumer.pause(List.of(p.tp()));
        long until = time.nanos() + wait.toNanos();
        p.pausedUntil = until == 0 ? -1 : until; // 0 is "not paused"
        if (p.pausedFor == null || !p.pausedFor.startsWith(why)) {
            p.pausedFor = why;
        }
    }

    /**
     * Resumes the paused partitions whose wait is over, from their position in the graph. The first that cannot
     * read its position ends the round: the others would meet the same outage, each on the worker.
     */
    private void resumeDue() {
        long now = time.nanos();
        for (Partition p : List.copyOf(owned.values())) {
            if (stopping) {
                return;
            }
            if (p.pausedUntil != 0 && now - p.pausedUntil >= 0 && owned.get(p.tp()) == p) {
                boolean read = seekToPosition(p);
                if (owned.get(p.tp()) != p) {
                    continue; // revoked while its position was read
                }
                if (read) {
                    p.pausedUntil = 0;
                    consumer.resume(List.of(p.tp()));
                } else {
                    pause(p, p.backoffThenGrow(), "reading its position");
                    return;
                }
            }
        }
    }

    /**
     * Applies a poll's records of {@code tp}, {@code last}: the poll's last partition, whose last batch takes the
     * next poll ahead ({@link #pollAhead}) where its applier decodes ahead; true when a batch was not applied for a
     * reason not the records'.
     */
    private boolean apply(TopicPartition tp, List<ConsumerRecord<byte[], byte[]>> records, boolean last) {
        Partition p = owned.get(tp);
        var decoding = reading.remove(tp);
        if (p == null || p.pausedUntil != 0) {
            if (decoding != null) {
                decoding.close();
            }
            return false; // revoked, or paused since this poll fetched: the resume seeks back to the graph's position
        }
        p.headTimestamp = records.getFirst().timestamp();
        p.holdUntil = 0;
        p.fetchedAhead = -1;
        RecordApplier<ConsumerRecord<byte[], byte[]>> applier = applier(tp.topic());
        long from = p.next;
        RecordApplier.Result r;
        try {
            r = meanwhilePolling(tp, () -> applier.apply(tp.partition(), from, records,
                    () -> stopping || failing || owned.get(tp) != p, decoding,
                    last && applier.decodesAhead() ? () -> pollAheadMeanwhile(p) : null));
        } catch (GraphException e) { // the apply loop reports Neo4j's errors in its result, never throws them
            throw new IllegalStateException(e);
        }
        p.next = Math.max(p.next, r.next());
        if (owned.get(tp) != p) {
            return false; // revoked meanwhile (in the poll taken ahead, or one keeping the member): not ours to pause
        }
        if (!r.resync() || stopping) {
            p.progressed();
            if (!stopping) { // past any transaction markers after the records
                p.fetched = p.fetchedAhead >= 0 ? p.fetchedAhead : consumer.position(tp);
            }
            return false;
        }
        if (p.holdUntil != 0) { // a dead-letter callback held it at a record
            long wait = Math.max(0, p.holdUntil - time.nanos());
            pause(p, Duration.ofNanos(wait), p.pausedFor == null ? "held" : p.pausedFor);
            return false;
        }
        p.pausedFor = null; // the newest reason, Neo4j's own words (a memory limit a batch keeps meeting shows here)
        pause(p, p.backoffThenGrow(), "not applied, retrying" + (r.why() == null ? "" : ": " + r.why()));
        return true;
    }

    private RecordApplier<ConsumerRecord<byte[], byte[]>> applier(String topic) {
        RecordApplier<ConsumerRecord<byte[], byte[]>> known = appliers.get(topic);
        if (known == null) {
            known = target.applier(topic, (partition, next, rows, bytes) ->
                    moved(new TopicPartition(topic, partition), next));
            if (known != null) {
                appliers.put(topic, known);
            }
        }
        return known;
    }

    private void moved(TopicPartition tp, long next) {
        Partition p = owned.get(tp);
        if (p != null) {
            long before = p.next;
            p.next = Math.max(before, next);
            target.moved(p, before, next);
        }
    }

    /** Offsets deleted by retention before they were applied: said loudly, then on from the earliest there is. */
    private void outOfRange(OffsetOutOfRangeException e) {
        for (var entry : e.offsetOutOfRangePartitions().entrySet()) {
            TopicPartition tp = entry.getKey();
            Partition p = owned.get(tp);
            if (p == null || !consumer.assignment().contains(tp)) {
                continue; // revoked since (while a call ran): its next owner reads the graph's position
            }
            log.error("{}: offset {} is no longer in Kafka (retention deleted records before sluice applied them);"
                    + " going on from the earliest offset there is", tp, entry.getValue());
            dropAhead(tp);
            consumer.seekToBeginning(List.of(tp));
            try {
                long start = consumer.position(tp, Duration.ofSeconds(10));
                if (start <= p.next) { // the log is behind the graph (truncated): never go back and re-apply
                    consumer.seek(tp, p.next);
                    p.hold(time.nanos() + HOLD.toNanos(), "Kafka's log of the partition ends before its position"
                            + " in the graph (" + p.next + "): truncated? held, nothing re-applied");
                    log.warn("{}", p.pausedFor);
                    pause(p, HOLD, p.pausedFor);
                    continue;
                }
                if (owned.get(tp) != p) {
                    continue;
                }
                long from = p.next;
                meanwhilePolling(tp, () -> {
                    target.positions(tp.topic()).advanceAlone(tp.partition(), from, start);
                    return null;
                });
                if (owned.get(tp) == p) {
                    p.next = start; // nothing applied: no progress to report
                }
            } catch (GraphException | RuntimeException ex) {
                if (failing && ex instanceof RuntimeException r) {
                    throw r; // the consumer cannot go on (meanwhilePolling)
                }
                pause(p, p.backoff(), "moving past deleted records");
            }
        }
    }

    /** Asks the thread to finish its batch and leave the group; {@link #close} waits for it. */
    public void stop() {
        stopping = true;
        consumer.wakeup();
    }

    /**
     * Waits up to {@code wait} for the thread to end (after {@link #stop}: its batch finished, the group left);
     * true when it has, or was never started.
     */
    public boolean drain(Duration wait) {
        if (thread.getState() == Thread.State.NEW) {
            return true;
        }
        try {
            return thread.join(wait);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    /** Stops the thread and waits for it (30 s at most); a consumer never started is closed here instead. */
    @Override
    public void close() {
        stop();
        if (thread.getState() == Thread.State.NEW) { // built, never started (a start-up failed): no thread owns it
            worker.shutdown();
            try {
                consumer.close(CloseOptions.timeout(Duration.ofSeconds(10)));
            } catch (RuntimeException e) {
                log.warn("closing {}'s consumer: {}", name, e.toString());
            }
            return;
        }
        if (!drain(Duration.ofSeconds(30))) {
            log.warn("{} did not stop within 30 s", thread.getName());
        }
    }
}
