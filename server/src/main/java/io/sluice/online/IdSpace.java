package io.sluice.online;

import io.sluice.csv.Column;
import io.sluice.csv.ValueType;

/**
 * How an online import finds the nodes of one ID space ({@code :ID(space)}): by a label and a property, kept
 * unique by a uniqueness constraint. Offline, Neo4j's importer resolves IDs in memory; a live database needs a
 * lookup, so every ID space becomes a (label, property) pair, see {@link GraphPlan}.
 *
 * @param name     the space's name; empty for the global space
 * @param label    the label its nodes are matched on
 * @param property the property that holds the ID
 * @param idType   {@link ValueType#STRING} or {@link ValueType#LONG}
 * @param fromNodes whether a node group of this import declares the space (otherwise relationships refer to
 *                  nodes already in the database)
 */
record IdSpace(String name, String label, String property, ValueType idType, boolean fromNodes) {

    String describe() {
        return Column.describeSpace(name);
    }
}
