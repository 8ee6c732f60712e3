package io.sluice.topic;

import java.util.List;
import java.util.Map;

/**
 * The CUD message format's vocabulary (its field names) and what a template depends on: an operation's shape
 * (type, op, labels, how the entity is found, detach, a relationship's type and ends), its values left to the row.
 */
final class CudShape {
    private CudShape() {}

    static final String TYPE = "type";
    static final String OP = "op";
    static final String LABELS = "labels";
    static final String PROPERTIES = "properties";
    static final String IDS = "ids";
    static final String REL_TYPE = "rel_type";
    static final String FROM = "from";
    static final String TO = "to";
    static final String DETACH = "detach";
    static final String PHYSICAL_ID = "_id";
    static final String ELEMENT_ID = "_elementId";

    /** Row fields. */
    static final String ROW_IDS = "ids";
    static final String ROW_PROPS = "props";
    static final String ROW_FROM = "from";
    static final String ROW_TO = "to";

    enum Kind { NODE, RELATIONSHIP }

    enum Action { CREATE, UPDATE, MERGE, DELETE }

    enum Lookup { MATCH, MERGE }

    /** How an entity is found: by properties (named in the shape), by {@code id()}, by {@code elementId()}. */
    enum By { PROPERTIES, ID, ELEMENT_ID }

    /** How an entity is found: {@code by}, and for PROPERTIES the property names, sorted (none: keyless). */
    record Identity(By by, List<String> keys) {}

    /** An identity and the values the row carries for it. */
    record Ids(Identity identity, Map<String, Object> values) {}

    /** A relationship's end: its lookup, labels (sorted) and identity. */
    record End(Lookup lookup, List<String> labels, Identity identity) {}

    /**
     * What a template depends on. Nodes: {@code labels} (sorted), {@code identity} (null for create),
     * {@code detach}. Relationships: {@code relType}, {@code from}, {@code to}, {@code identity} (null for create).
     */
    record Shape(Kind kind, Action action, List<String> labels, Identity identity, boolean detach, String relType,
            End from, End to) {}

    /** What a value is, in the connector's words: {@code a string}, {@code an object} ... */
    static String kindOf(Object v) {
        return switch (v) {
            case null -> "null";
            case String s -> "a string";
            case Boolean b -> "a boolean";
            case Number n -> "a number";
            case Map<?, ?> m -> "an object";
            case List<?> l -> "an array";
            default -> "a " + v.getClass().getSimpleName();
        };
    }
}
