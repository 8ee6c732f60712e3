package io.sluice.csv;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;

/**
 * A row that was not imported, and why: one line of the report file.
 *
 * @param problem what kind of fault
 * @param message a sentence for a person
 * @param source  the file the row came from
 * @param line    the line it starts on (1-based, within that file)
 * @param details more fields for the report (ids, column, value), in the order given
 */
public record Rejection(Problem problem, String message, String source, long line, Map<String, Object> details) {

    public Rejection {
        Objects.requireNonNull(problem, "problem");
        details = details == null ? Map.of() : Collections.unmodifiableMap(new LinkedHashMap<>(details));
    }

    /** Kinds of faults. The first two are neo4j-admin's own names, as in its report file. */
    public enum Problem {
        /** An ID already used in its ID space (in this import or already in the database). */
        DuplicateNode,
        /** A relationship whose start or end ID names no node. */
        BadRelationship,
        /** A field that does not parse as its column's type, or an empty ID. */
        BadValue,
        /** More fields than the header has columns (without {@code --ignore-extra-columns}). */
        ExtraColumns,
        /** Neo4j refused the row for another reason (its error code and message are in the report). */
        Rejected
    }

    /** The report line as a map, in the field order of neo4j-admin's JSON report. */
    Map<String, Object> toMap() {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("problem", problem.name());
        m.put("message", message);
        m.put("source", source);
        m.put("line", line);
        m.putAll(details);
        return m;
    }
}
