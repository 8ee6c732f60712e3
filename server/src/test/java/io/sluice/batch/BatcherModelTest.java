package io.sluice.batch;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.support.Seeds;
import io.sluice.time.ManualTime;
import io.sluice.write.WriteRequest;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

/**
 * The {@link Batcher} against a model of what it promises, on seeded random sequences of enqueue, poll,
 * take(0), clock advances, row-limit changes and close, driven by a {@link ManualTime}. After every step the
 * batcher must agree with the model: the same batch or none (ready exactly when the model says), the same
 * queued rows, drained exactly when closed and empty. Every batch handed out must also keep arrival order,
 * hold whole requests, and stay within the row limit unless it is one request larger than the limit; at the
 * end, after close, everything accepted has come out exactly once. Replay a seed with
 * {@code -Dsluice.batcher.seed=N}.
 */
class BatcherModelTest {
    /** What the batcher should do: FIFO; ready at the row limit, at max wait, or when closed; greedy batches. */
    static final class Model {
        final ArrayDeque<Pending> queue = new ArrayDeque<>();
        final long maxWaitNanos;
        int maxRows;
        boolean closed;

        Model(int maxRows, long maxWaitNanos) {
            this.maxRows = maxRows;
            this.maxWaitNanos = maxWaitNanos;
        }

        long rows() {
            return queue.stream().mapToLong(Pending::rows).sum();
        }

        boolean ready(long now) {
            return !queue.isEmpty()
                    && (closed || rows() >= maxRows || now - queue.peekFirst().enqueuedNanos() >= maxWaitNanos);
        }

        /** The longest prefix of the queue within the row limit, at least one request. */
        List<Pending> next(long now) {
            List<Pending> batch = new ArrayList<>();
            if (!ready(now)) {
                return batch;
            }
            long rows = 0;
            while (!queue.isEmpty() && (batch.isEmpty() || rows + queue.peekFirst().rows() <= maxRows)) {
                rows += queue.peekFirst().rows();
                batch.add(queue.pollFirst());
            }
            return batch;
        }
    }

    @Test
    void theBatcherBehavesLikeItsModel() {
        Seeds.rounds("sluice.batcher.seed", 300, random -> run(random, 150));
    }

    private static void run(Random random, int steps) throws Exception {
        ManualTime time = new ManualTime();
        long maxWait = List.of(0L, 1_000_000L, 5_000_000L).get(random.nextInt(3));
        int maxRows = 1 + random.nextInt(10);
        Batcher b = new Batcher(maxRows, Duration.ofNanos(maxWait), time);
        Model m = new Model(maxRows, maxWait);
        List<Pending> accepted = new ArrayList<>();
        List<Pending> handedOut = new ArrayList<>();
        List<String> log = new ArrayList<>();
        try {
            for (int step = 0; step < steps; step++) {
                int op = random.nextInt(100);
                if (op < 40) {
                    int rows = 1 + random.nextInt(random.nextInt(5) == 0 ? 3 * m.maxRows : m.maxRows);
                    Pending p = request(step, rows, time.nanos());
                    log.add("enqueue " + rows + " rows");
                    boolean in = b.enqueue(p);
                    assertThat(in).as("accepted unless closed").isEqualTo(!m.closed);
                    if (in) {
                        m.queue.addLast(p);
                        accepted.add(p);
                    }
                } else if (op < 65) {
                    log.add("poll");
                    handOut(b.poll(), m, time, handedOut);
                } else if (op < 75) {
                    log.add("take(0)");
                    handOut(b.take(Duration.ZERO), m, time, handedOut);
                } else if (op < 90) {
                    long nanos = random.nextInt(5) == 0 ? maxWait : (long) (random.nextDouble() * 2 * (maxWait + 1));
                    log.add("advance " + nanos + " ns");
                    time.advance(Duration.ofNanos(nanos));
                } else if (op < 97) {
                    int rows = 1 + random.nextInt(10);
                    log.add("setMaxRows " + rows);
                    b.setMaxRows(rows);
                    m.maxRows = rows;
                } else {
                    log.add("close");
                    b.close();
                    m.closed = true;
                }
                assertThat(b.queuedRows()).as("queued rows").isEqualTo(m.rows());
                assertThat(b.isDrained()).as("drained").isEqualTo(m.closed && m.queue.isEmpty());
            }
            log.add("close, then poll until empty");
            b.close();
            m.closed = true;
            for (int i = 0; i <= accepted.size() && !m.queue.isEmpty(); i++) {
                handOut(b.poll(), m, time, handedOut);
            }
            assertThat(b.isDrained()).as("closed drains without the clock moving").isTrue();
            assertThat(b.poll()).isEmpty();
            assertThat(handedOut).as("everything accepted came out once, in arrival order")
                    .containsExactlyElementsOf(accepted);
        } catch (AssertionError e) {
            throw new AssertionError(e.getMessage() + "\nsteps (maxWait " + maxWait + " ns): " + log, e);
        }
    }

    /** Checks one poll's result against the model and the invariants every batch must keep. */
    private static void handOut(List<Pending> batch, Model m, ManualTime time, List<Pending> handedOut) {
        int limit = m.maxRows;
        List<Pending> expected = m.next(time.nanos());
        assertThat(batch).as("the batch the model hands out (empty: not ready)").containsExactlyElementsOf(expected);
        long rows = batch.stream().mapToLong(Pending::rows).sum();
        if (batch.size() > 1) {
            assertThat(rows).as("rows of a batch of several requests").isLessThanOrEqualTo(limit);
        }
        Set<Pending> seen = Collections.newSetFromMap(new IdentityHashMap<>());
        seen.addAll(handedOut);
        for (Pending p : batch) {
            assertThat(seen.add(p)).as("handed out once").isTrue();
        }
        handedOut.addAll(batch);
    }

    private static Pending request(int id, int rows, long at) {
        List<Map<String, Object>> rowList = IntStream.range(0, rows)
                .mapToObj(i -> Map.<String, Object>of("id", (long) id * 1000 + i)).toList();
        return new Pending(new WriteRequest.TemplateRequest(BatcherTest.T, rowList, 10), at);
    }
}
