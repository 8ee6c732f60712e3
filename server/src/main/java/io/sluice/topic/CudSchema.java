package io.sluice.topic;

import static io.sluice.topic.CudShape.DETACH;
import static io.sluice.topic.CudShape.FROM;
import static io.sluice.topic.CudShape.IDS;
import static io.sluice.topic.CudShape.LABELS;
import static io.sluice.topic.CudShape.OP;
import static io.sluice.topic.CudShape.PROPERTIES;
import static io.sluice.topic.CudShape.REL_TYPE;
import static io.sluice.topic.CudShape.TO;
import static io.sluice.topic.CudShape.TYPE;
import static io.sluice.topic.CudShape.kindOf;

import io.sluice.topic.CudShape.Action;
import io.sluice.topic.CudShape.Kind;
import io.sluice.topic.Strategy.Invalid;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * The connector's JSON schema for a CUD operation ({@code cud.schema.v1.json}), written out: which fields each
 * type and operation has, which it requires, and their types. A field the schema does not define is refused, as
 * the schema ({@code additionalProperties: false}) refuses it. All the errors are reported, joined, as the
 * connector reports its schema's.
 */
final class CudSchema {
    private static final Set<String> NODE_CREATE = Set.of(TYPE, OP, LABELS, PROPERTIES);
    private static final Set<String> NODE_MERGE_OR_UPDATE = Set.of(TYPE, OP, LABELS, IDS, PROPERTIES);
    private static final Set<String> NODE_DELETE = Set.of(TYPE, OP, LABELS, IDS, DETACH);
    private static final Set<String> RELATIONSHIP_CREATE = Set.of(TYPE, OP, REL_TYPE, FROM, TO, PROPERTIES);
    private static final Set<String> RELATIONSHIP_MERGE_OR_UPDATE = Set.of(TYPE, OP, REL_TYPE, FROM, TO, IDS,
            PROPERTIES);
    private static final Set<String> RELATIONSHIP_DELETE = Set.of(TYPE, OP, REL_TYPE, FROM, TO, IDS);
    private static final Set<String> NODE_REFERENCE = Set.of(OP, LABELS, IDS);

    private CudSchema() {}

    /** Throws the schema's errors, if any, for an operation of {@code kind} and {@code action}. */
    static void conform(Map<?, ?> value, Kind kind, Action action) throws Invalid {
        List<String> errors = new ArrayList<>();
        String what = "a " + (kind + " " + action).toLowerCase(Locale.ROOT) + " operation";
        check(value, "$", defined(kind, action), required(kind, action), what, errors);
        if (!errors.isEmpty()) {
            throw new Invalid(String.join(", ", errors));
        }
    }

    private static Set<String> defined(Kind kind, Action action) {
        return switch (action) {
            case CREATE -> kind == Kind.NODE ? NODE_CREATE : RELATIONSHIP_CREATE;
            case UPDATE, MERGE -> kind == Kind.NODE ? NODE_MERGE_OR_UPDATE : RELATIONSHIP_MERGE_OR_UPDATE;
            case DELETE -> kind == Kind.NODE ? NODE_DELETE : RELATIONSHIP_DELETE;
        };
    }

    /** In the schema's order. */
    private static List<String> required(Kind kind, Action action) {
        if (kind == Kind.NODE) {
            return switch (action) {
                case CREATE -> List.of(TYPE, OP, PROPERTIES);
                case UPDATE, MERGE -> List.of(TYPE, OP, IDS, PROPERTIES);
                case DELETE -> List.of(TYPE, OP, IDS);
            };
        }
        return action == Action.DELETE ? List.of(TYPE, OP, REL_TYPE, FROM, TO)
                : List.of(TYPE, OP, REL_TYPE, FROM, TO, PROPERTIES);
    }

    private static void check(Map<?, ?> object, String path, Set<String> defined, List<String> required,
            String what, List<String> errors) {
        for (String r : required) {
            if (!object.containsKey(r)) {
                errors.add(path + ": required property '" + r + "' not found");
            }
        }
        for (var e : object.entrySet()) {
            if (!(e.getKey() instanceof String name) || !defined.contains(name)) {
                errors.add(path + ": property '" + e.getKey() + "' is not defined for " + what
                        + " (no other property is allowed)");
            } else {
                checkField(name, e.getValue(), path + "." + name, errors);
            }
        }
    }

    private static void checkField(String name, Object v, String path, List<String> errors) {
        switch (name) {
            case LABELS -> {
                if (!(v instanceof List<?> l) || !l.stream().allMatch(String.class::isInstance)) {
                    errors.add(path + ": an array of strings expected, got " + describe(v));
                }
            }
            case PROPERTIES, IDS -> object(v, path, errors);
            case DETACH -> {
                if (!(v instanceof Boolean)) {
                    errors.add(path + ": a boolean expected, got " + kindOf(v));
                }
            }
            case REL_TYPE -> {
                if (!(v instanceof String)) {
                    errors.add(path + ": a string expected, got " + kindOf(v));
                }
            }
            case FROM, TO -> {
                if (v instanceof Map<?, ?> ref) {
                    check(ref, path, NODE_REFERENCE, List.of(IDS), "a node reference", errors);
                } else {
                    errors.add(path + ": an object expected, got " + kindOf(v));
                }
            }
            case OP -> {
                if (!path.equals("$." + OP) && !(v instanceof String s && (s.equalsIgnoreCase("match")
                        || s.equalsIgnoreCase("merge")))) {
                    errors.add(path + ": 'match' or 'merge' expected, got " + describe(v));
                }
            }
            default -> {
                // type: read before the schema
            }
        }
    }

    /** An object whose keys are property names (strings). */
    private static void object(Object v, String path, List<String> errors) {
        if (!(v instanceof Map<?, ?> m)) {
            errors.add(path + ": an object expected, got " + kindOf(v));
            return;
        }
        for (Object key : m.keySet()) {
            if (!(key instanceof String)) {
                errors.add(path + ": a property name must be a string, got " + kindOf(key));
                return;
            }
        }
    }

    private static String describe(Object v) {
        return v instanceof String s ? "'" + s + "'" : v instanceof List<?> ? "an array with a non-string element"
                : kindOf(v);
    }
}
