package io.sluice.csv;

/**
 * What is done with bad rows, as in neo4j-admin import.
 *
 * @param skipDuplicateNodes   a node whose ID is already taken in its space is reported and skipped; without
 *                             it, the first duplicate stops the import
 * @param skipBadRelationships a relationship with a missing end is reported and skipped; without it, the
 *                             first one stops the import
 * @param badTolerance         how many bad rows are tolerated before the import stops; -1 = no limit
 */
public record Tolerance(boolean skipDuplicateNodes, boolean skipBadRelationships, long badTolerance) {
    public Tolerance {
        if (badTolerance < -1) {
            throw new IllegalArgumentException("--bad-tolerance must be >= 0, or -1 for no limit; got " + badTolerance);
        }
    }

    /** Whether {@code bad} rejected rows are past the tolerance. */
    public boolean exceeded(long bad) {
        return badTolerance >= 0 && bad > badTolerance;
    }
}
