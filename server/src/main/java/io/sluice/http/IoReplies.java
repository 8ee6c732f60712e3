package io.sluice.http;

import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.xnio.XnioIoThread;

/**
 * Work handed back to the I/O threads that own the connections, a batch at a time. Whoever completes a write (an
 * applier that has just committed a batch of 50 rows, say) queues each answer's task for its connection's I/O
 * thread and wakes that thread at most once per drain, not once per answer: a wake-up is a write to the selector's
 * event fd and a context switch. The task builds (encodes) and sends the answer there, off the applier's thread.
 * Called on the I/O thread itself, a task runs at once.
 *
 * <p>No reply is lost: a queue's {@code scheduled} flag is cleared before it is drained, so a reply queued while a
 * drain runs either is taken by that drain or schedules the next. Thread-safe; owns no thread.
 */
final class IoReplies {
    private static final Logger log = LoggerFactory.getLogger(IoReplies.class);

    private final ConcurrentHashMap<XnioIoThread, Queue> queues = new ConcurrentHashMap<>();

    /**
     * Runs {@code task} on {@code io}: at once when called there, else queued, the thread woken only if no drain
     * of its queue is already pending.
     */
    void execute(XnioIoThread io, Runnable task) {
        if (Thread.currentThread() == io) {
            task.run();
            return;
        }
        queues.computeIfAbsent(io, Queue::new).add(task);
    }

    private static final class Queue {
        private final XnioIoThread io;
        private final ConcurrentLinkedQueue<Runnable> tasks = new ConcurrentLinkedQueue<>();
        private final AtomicBoolean scheduled = new AtomicBoolean();

        Queue(XnioIoThread io) {
            this.io = io;
        }

        void add(Runnable task) {
            tasks.add(task);
            if (scheduled.compareAndSet(false, true)) {
                try {
                    io.execute(this::drain);
                } catch (RejectedExecutionException e) { // the worker is stopping: its connections are closing
                    scheduled.set(false);
                    log.debug("I/O thread {} refused replies: {}", io.getName(), e.toString());
                }
            }
        }

        private void drain() {
            scheduled.set(false);
            Runnable task;
            while ((task = tasks.poll()) != null) {
                try {
                    task.run();
                } catch (RuntimeException e) {
                    log.error("bug in a task handed to I/O thread {}", io.getName(), e);
                }
            }
        }
    }
}
