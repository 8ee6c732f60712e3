package io.sluice.bench;

/**
 * A load generator for one mode's run. {@link #start} launches its threads and returns at once; the generator
 * stops by itself when the {@link Tally}'s window ends. {@link #awaitStop} returns once every thread it started
 * has stopped (waiting a bounded time, then interrupting).
 */
interface Load {
    void start(Tally tally);

    void awaitStop() throws InterruptedException;
}
