package io.sluice.importer;

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
        return name.isEmpty() ? "the global ID space" : "ID space '" + name + "'";
    }

    /** Parses an ID value of this space. */
    Object parseId(String text, boolean trim) {
        String t = trim ? text.strip() : text;
        if (idType == ValueType.LONG) {
            try {
                return Long.parseLong(t.strip());
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException("ID '" + Column.abbreviate(text) + "' of " + describe()
                        + " is not an integer");
            }
        }
        return t;
    }
}
