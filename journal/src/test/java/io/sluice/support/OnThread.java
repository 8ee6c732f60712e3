package io.sluice.support;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * A blocking call run on a platform thread the test creates and names (not a shared pool), so the test can
 * watch it block and wait for its result with a bound. {@link #close} interrupts it and waits for it, bounded.
 */
public final class OnThread<T> implements AutoCloseable {
    /** A call that may block and throw. */
    @FunctionalInterface
    public interface Call<T> {
        T call() throws Exception;
    }

    private final CompletableFuture<T> result = new CompletableFuture<>();
    private final Thread thread;
    private final String name;

    private OnThread(String name, Call<T> call) {
        this.name = name;
        this.thread = Thread.ofPlatform().name(name).daemon().unstarted(() -> {
            try {
                result.complete(call.call());
            } catch (Throwable e) {
                result.completeExceptionally(e);
            }
        });
    }

    public static <T> OnThread<T> start(String name, Call<T> call) {
        OnThread<T> t = new OnThread<>(name, call);
        t.thread.start();
        return t;
    }

    /** The call's result; fails the test if it has not returned within {@code within}. */
    public T get(Duration within) throws Exception {
        try {
            return result.get(within.toNanos(), TimeUnit.NANOSECONDS);
        } catch (TimeoutException e) {
            throw new AssertionError(name + " did not return within " + within + "; it is " + thread.getState(), e);
        } catch (ExecutionException e) {
            throw e.getCause() instanceof Exception x ? x : e;
        }
    }

    /** Parked in a timed wait on a {@link java.util.concurrent.locks.Condition} (e.g. {@code awaitNanos}). */
    public boolean isParkedOnACondition() {
        return thread.getState() == Thread.State.TIMED_WAITING
                && java.util.concurrent.locks.LockSupport.getBlocker(thread) instanceof java.util.concurrent.locks.Condition;
    }

    /** Parked in an untimed wait on a {@link java.util.concurrent.locks.Condition} (e.g. {@code awaitUninterruptibly}). */
    public boolean isWaitingOnACondition() {
        return thread.getState() == Thread.State.WAITING
                && java.util.concurrent.locks.LockSupport.getBlocker(thread) instanceof java.util.concurrent.locks.Condition;
    }

    public boolean isDone() {
        return result.isDone();
    }

    @Override
    public void close() {
        thread.interrupt();
        try {
            thread.join(Duration.ofSeconds(10));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        if (thread.isAlive()) {
            throw new AssertionError(name + " still running 10 s after an interrupt");
        }
    }
}
