package io.sluice.online;

import io.sluice.csv.EntityKind;
import io.sluice.csv.Row;
import java.nio.file.Path;
import java.util.List;

/**
 * One batch of an online import: the rows of chunk {@code chunk} of a group that fall in partition {@code part},
 * in file order (a row's position in {@link #rows} is its position in the batch, see {@link Resume}).
 */
record Batch(Work work, long chunk, int part, List<Row> rows) {

    Resume.Key key() {
        return new Resume.Key(work.group(), chunk, part);
    }

    /**
     * What a group's batches run, and what the report needs about the group.
     *
     * @param group     index of the group on the command line
     * @param kind      nodes or relationships
     * @param statement the Cypher of {@link Statements}
     * @param files     the group's files, for the report's {@code source}
     * @param space     the ID space of a node group (null: no ID column)
     * @param start     the start space of a relationship group
     * @param end       the end space of a relationship group
     * @param type      the group's relationship type from the command line (null: from a :TYPE column)
     */
    record Work(int group, EntityKind kind, String statement, List<Path> files, IdSpace space,
            IdSpace start, IdSpace end, String type) {

        String source(Row r) {
            return files.get(r.file()).toString();
        }
    }
}
