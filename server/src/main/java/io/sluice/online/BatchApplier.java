package io.sluice.online;

import io.sluice.csv.EntityKind;
import io.sluice.csv.Rejection;
import io.sluice.csv.Rejection.Problem;
import io.sluice.csv.ReportFile;
import io.sluice.csv.Row;
import io.sluice.csv.Tolerance;
import io.sluice.vocab.Neo4jError;
import io.sluice.vocab.Neo4jStatus;
import io.sluice.time.Time;
import io.sluice.write.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * Applies an online import's batches through a {@link Target}, from a few threads at once.
 *
 * <h2>Design</h2>
 * <b>Partitions.</b> There is one worker thread per partition, and a batch goes to the worker of its partition.
 * Rows are partitioned by a hash of their key (a node's ID, a relationship's start ID), so two batches running
 * at the same time never write the same node as a key, and the rows of one key are applied in file order (the
 * partition's batches are applied one after another). Each batch is sent sorted (relationships by start then
 * end ID), so that concurrent transactions that do share a node (the end of a relationship) take
 * their locks in one order. What deadlocks remain are retried by sluice's write path; a batch that is still
 * refused as transient comes back {@link Target.Result.Busy} and is sent again after a backoff.
 *
 * <p><b>Bad rows.</b> Rows that did not parse travel with their batch and are counted in its progress mark.
 * Neo4j refusing a batch (a duplicate ID under the uniqueness constraint, a value it rejects) means some row is
 * bad: the batch's position range is cut in two halves, each sent alone, recursively, until the row that fails
 * is alone; it is reported and its range marked, and every other row commits. A relationship with a missing end
 * is not an error: the statement returns it (see {@link Statements}), it is reported, and the rest commits. Each
 * rejected row counts against {@code --bad-tolerance}; a duplicate without {@code --skip-duplicate-nodes}, or a
 * missing end without {@code --skip-bad-relationships}, stops the import, as in neo4j-admin.
 *
 * <p><b>Progress.</b> Every statement writes its range's mark in its own transaction ({@link Resume}): a range is
 * done exactly when its mark is committed. A stop (tolerance, fatal error, interrupt) lets in-flight statements
 * finish and drops queued batches; they have no marks, so a resumed run does them.
 *
 * <p>Threads: {@code partitions} platform threads from the given factory, started here and stopped by
 * {@link #close()}. {@link #submit} is called by one reader thread; it blocks while the partition's queue is full
 * (two batches), which bounds memory. {@link #awaitIdle} returns when every submitted batch is done.
 */
final class BatchApplier implements AutoCloseable {
    private static final Batch STOP = new Batch(null, -1, -1, List.of());
    private static final Duration GIVE_UP_AFTER = Duration.ofMinutes(5);
    /**
     * Relationship rows by end ID, then start ID. Batches running at the same time hold disjoint start nodes (rows
     * are partitioned by start ID), so the nodes they can both lock are end nodes, and these they take in one order.
     */
    private static final Comparator<Map<String, Object>> ORDER = Comparator
            .comparing((Map<String, Object> m) -> (Comparable<?>) m.get("e"), BatchApplier::compareIds)
            .thenComparing(m -> (Comparable<?>) m.get("s"), BatchApplier::compareIds);

    private final Target target;
    private final Resume resume;
    private final Ledger ledger;
    private final ReportFile report;
    private final Tolerance tolerance;
    private final Time time;
    private final List<BlockingQueue<Batch>> queues = new ArrayList<>();
    private final List<Thread> workers = new ArrayList<>();
    private final ReentrantLock lock = new ReentrantLock();
    private final Condition idle = lock.newCondition();
    private long outstanding;

    BatchApplier(Target target, Resume resume, Ledger ledger, ReportFile report, Tolerance tolerance,
            ThreadFactory threads, Time time) {
        this.target = target;
        this.time = time;
        this.resume = resume;
        this.ledger = ledger;
        this.report = report;
        this.tolerance = tolerance;
        for (int p = 0; p < resume.partitions(); p++) {
            BlockingQueue<Batch> q = new ArrayBlockingQueue<>(2);
            queues.add(q);
            workers.add(threads.newThread(() -> work(q)));
        }
        workers.forEach(Thread::start);
    }

    /** Hands a batch to its partition's worker; blocks while that worker has two batches waiting. */
    void submit(Batch b) throws InterruptedException {
        List<long[]> pending = resume.pending(b.key(), b.rows().size());
        long todo = pending.stream().mapToLong(r -> r[1] - r[0]).sum();
        ledger.resumed.addAndGet(b.rows().size() - todo);
        ledger.done.addAndGet(b.rows().size() - todo);
        if (todo == 0 || ledger.isStopped()) {
            return;
        }
        lock.lock();
        try {
            outstanding++;
        } finally {
            lock.unlock();
        }
        queues.get(b.part()).put(b);
    }

    /** Waits until every submitted batch is applied (or dropped after a stop). */
    void awaitIdle() throws InterruptedException {
        lock.lock();
        try {
            while (outstanding > 0) {
                idle.await();
            }
        } finally {
            lock.unlock();
        }
    }

    private void work(BlockingQueue<Batch> queue) {
        while (true) {
            Batch b;
            try {
                b = queue.take();
            } catch (InterruptedException e) {
                ledger.stop("interrupted");
                return;
            }
            if (b == STOP) {
                return;
            }
            try {
                for (long[] r : resume.pending(b.key(), b.rows().size())) {
                    apply(b, (int) r[0], (int) r[1]);
                }
            } catch (InterruptedException e) {
                ledger.stop("interrupted");
            } catch (RuntimeException e) {
                ledger.stop("internal error while applying a batch: " + e);
            } finally {
                lock.lock();
                try {
                    if (--outstanding == 0) {
                        idle.signalAll();
                    }
                } finally {
                    lock.unlock();
                }
            }
        }
    }

    /** Applies positions [lo, hi) of a batch, cutting the range in two while Neo4j refuses it. */
    private void apply(Batch b, int lo, int hi) throws InterruptedException {
        if (ledger.isStopped()) {
            return;
        }
        List<Row> bad = new ArrayList<>();
        List<Map<String, Object>> good = new ArrayList<>();
        List<Integer> goodAt = new ArrayList<>();
        long bytes = 0;
        for (int i = lo; i < hi; i++) {
            Row r = b.rows().get(i);
            if (r.isRejected()) {
                bad.add(r);
            } else {
                Map<String, Object> v = r.values(); // the row's own map (a relationship's position "i" was set when the batch was cut)
                good.add(v);
                goodAt.add(i);
                bytes += 16L * v.size();
            }
        }
        Map<String, Object> mark = resume.mark(b.key(), lo, hi, bad.size());
        if (good.isEmpty()) {
            if (send(List.of(new Statement(Statements.markOnly(), Map.of("mark", mark))), 64) instanceof Target.Result.Done) {
                rejected(b, bad, List.of());
                ledger.done.addAndGet(hi - lo);
            }
            return;
        }
        if (b.work().kind() == EntityKind.RELATIONSHIPS) {
            good.sort(ORDER); // nodes need no order: concurrent node batches never share a key (partitions)
        }
        List<Statement> request = b.work().kind() == EntityKind.NODES
                ? List.of(new Statement(b.work().statement(), Map.of("rows", good)),
                        new Statement(Statements.markOnly(), Map.of("mark", mark)))
                : List.of(new Statement(b.work().statement(), Map.of("rows", good, "mark", mark)));
        Target.Result result = send(request, bytes);
        switch (result) {
            case null -> { } // stopped while retrying: no mark, a resumed run does it
            case Target.Result.Done d -> committed(b, bad, d, hi - lo);
            case Target.Result.Failed f when !f.error().isClientError() -> ledger.stop("Neo4j failed a batch of "
                    + b.work().files().getFirst().getFileName() + ": " + f.error().code() + ": " + f.error().message());
            case Target.Result.Failed f when goodAt.size() == 1 -> refused(b, lo, hi, bad, b.rows().get(goodAt.getFirst()), f.error());
            case Target.Result.Failed f -> {
                int mid = goodAt.get(goodAt.size() / 2);
                apply(b, lo, mid);
                apply(b, mid, hi);
            }
            case Target.Result.Busy busy -> throw new IllegalStateException("send returned busy");
        }
    }

    /** IDs of one space are all strings or all longs; null (no ID column) sorts first. */
    @SuppressWarnings({"unchecked", "rawtypes"})
    private static int compareIds(Comparable a, Comparable b) {
        if (a == null || b == null) {
            return a == null ? (b == null ? 0 : -1) : 1;
        }
        return a.compareTo(b);
    }

    private void committed(Batch b, List<Row> bad, Target.Result.Done d, int rows) {
        var first = d.results().getFirst();
        ledger.committed(first.counters(), b.work().kind() == EntityKind.RELATIONSHIPS); // a node batch's mark is its own statement
        List<Rejection> dangling = new ArrayList<>();
        if (b.work().kind() == EntityKind.RELATIONSHIPS && !first.rows().isEmpty()) {
            for (Object o : (List<?>) first.rows().getFirst().getFirst()) {
                List<?> t = (List<?>) o;
                Row r = b.rows().get(((Number) t.get(0)).intValue());
                dangling.add(dangling(b, r, Boolean.TRUE.equals(t.get(1)), Boolean.TRUE.equals(t.get(2))));
            }
        }
        rejected(b, bad, dangling);
        ledger.done.addAndGet(rows);
        if (!dangling.isEmpty() && !tolerance.skipBadRelationships()) {
            ledger.stop(dangling.getFirst().message() + " (--skip-bad-relationships reports and skips such rows)");
        }
    }

    /** A lone row Neo4j refused: reported, its range marked done. */
    private void refused(Batch b, int lo, int hi, List<Row> bad, Row row, Neo4jError error) throws InterruptedException {
        boolean duplicate = b.work().kind() == EntityKind.NODES && error.code().equals(Neo4jStatus.Schema.CONSTRAINT_VALIDATION_FAILED);
        String source = b.work().source(row);
        Rejection r;
        if (duplicate) {
            Object id = row.values().get("k");
            r = new Rejection(Problem.DuplicateNode, source + ":" + row.line() + ": ID '" + id + "' is already used in "
                    + b.work().space().describe() + " (" + error.message() + ")", source, row.line(),
                    Map.of("node", Map.of("id", String.valueOf(id), "group", b.work().space().name())));
        } else {
            r = new Rejection(Problem.Rejected, source + ":" + row.line() + ": Neo4j refused the row: " + error.code() + ": "
                    + error.message(), source, row.line(), Map.of("code", error.code()));
        }
        Map<String, Object> mark = resume.mark(b.key(), lo, hi, bad.size() + 1L);
        if (send(List.of(new Statement(Statements.markOnly(), Map.of("mark", mark))), 64) instanceof Target.Result.Done) {
            rejected(b, bad, List.of(r));
            ledger.done.addAndGet(hi - lo);
            if (duplicate && !tolerance.skipDuplicateNodes()) {
                ledger.stop(r.message() + " (--skip-duplicate-nodes reports and skips such rows)");
            }
        }
    }

    private Rejection dangling(Batch b, Row r, boolean noStart, boolean noEnd) {
        Object s = r.values().get("s");
        Object e = r.values().get("e");
        Object type = r.values().getOrDefault("t", b.work().type());
        String missing = noStart ? "start node '" + s + "' in " + b.work().start().describe()
                : "end node '" + e + "' in " + b.work().end().describe();
        String source = b.work().source(r);
        Map<String, Object> rel = new LinkedHashMap<>();
        rel.put("type", type);
        rel.put("source", Map.of("id", String.valueOf(s), "group", b.work().start().name()));
        rel.put("target", Map.of("id", String.valueOf(e), "group", b.work().end().name()));
        rel.put("invalid", String.valueOf(noStart ? s : e));
        return new Rejection(Problem.BadRelationship, source + ":" + r.line() + ": (" + s + ")-[" + type + "]->(" + e
                + ") refers to a missing " + missing + (noStart && noEnd ? " and a missing end node '" + e + "'" : ""),
                source, r.line(), Map.of("relationship", rel));
    }

    private void rejected(Batch b, List<Row> bad, List<Rejection> more) {
        List<Rejection> all = new ArrayList<>(bad.size() + more.size());
        bad.forEach(r -> all.add(r.rejection()));
        all.addAll(more);
        all.forEach(report::write);
        if (!all.isEmpty()) {
            ledger.rejected(all.size(), all.getLast().message());
        }
    }

    /** Sends one request; while the target is busy, again after a backoff. Null: stopped or gave up. */
    private Target.Result send(List<Statement> s, long bytes) throws InterruptedException {
        long giveUp = time.nanos() + GIVE_UP_AFTER.toNanos();
        long backoffMs = 50;
        while (true) {
            Target.Result r = target.write(s, bytes);
            if (!(r instanceof Target.Result.Busy busy)) {
                return r;
            }
            if (ledger.isStopped()) {
                return null;
            }
            ledger.resends.incrementAndGet();
            if (time.nanos() > giveUp) {
                ledger.stop(target.describe() + " has been busy or unavailable for " + GIVE_UP_AFTER.toMinutes()
                        + " minutes: " + busy.reason());
                return null;
            }
            time.sleep(Duration.ofMillis(Math.min(Math.max(backoffMs, busy.retryAfter().toMillis()), 5_000)));
            backoffMs = Math.min(backoffMs * 2, 5_000);
        }
    }

    /** Stops the workers after what they hold (queued batches are dropped when stopped), bounded wait. */
    @Override
    public void close() {
        for (BlockingQueue<Batch> q : queues) {
            if (ledger.isStopped()) {
                q.clear();
            }
            if (!q.offer(STOP)) {
                q.clear();
                q.offer(STOP);
            }
        }
        for (Thread t : workers) {
            try {
                t.join(TimeUnit.MINUTES.toMillis(2));
                if (t.isAlive()) {
                    t.interrupt();
                    t.join(TimeUnit.SECONDS.toMillis(10));
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
    }
}
