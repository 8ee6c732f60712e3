package io.sluice.journal;

/**
 * A read asked for an offset the journal does not hold: below {@link Journal#firstOffset()} (deleted by
 * retention) or above {@link Journal#nextOffset()} (never written). A programming or bookkeeping error in the
 * caller, not an I/O failure. Immutable.
 */
public final class OffsetOutOfRangeException extends IllegalArgumentException {
    private static final long serialVersionUID = 1L;

    private final long requested;
    private final long firstOffset;
    private final long nextOffset;

    public OffsetOutOfRangeException(long requested, long firstOffset, long nextOffset) {
        super("offset " + requested + " is outside the journal's retained range [" + firstOffset + ", "
                + nextOffset + "]" + (requested < firstOffset ? ": deleted by retention" : ": never written"));
        this.requested = requested;
        this.firstOffset = firstOffset;
        this.nextOffset = nextOffset;
    }

    public long requested() {
        return requested;
    }

    public long firstOffset() {
        return firstOffset;
    }

    public long nextOffset() {
        return nextOffset;
    }
}
