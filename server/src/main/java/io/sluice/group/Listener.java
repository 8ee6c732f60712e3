package io.sluice.group;

/** What the groups report (metrics). Called without the lock held... or with it: keep it cheap and lock-free. */
public interface Listener {
    Listener NONE = new Listener() {};

    /** A group committed: its members and statements, and the commit's duration. */
    default void committed(int members, int statements, long commitNanos) {}

    /** A group aborted: its members, and why. */
    default void aborted(int members, Cause cause) {}

    /** A member taken out of its group, and why (the others were replayed, or kept what ran). */
    default void evicted(Cause cause) {}

    /** Statements run again by a replay. */
    default void replayed(int statements) {}
}
