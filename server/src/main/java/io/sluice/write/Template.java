package io.sluice.write;

import io.sluice.config.FieldType;
import io.sluice.config.TemplateConfig;
import io.sluice.cypher.CypherText;
import io.sluice.vocab.Neo4jError;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;

/**
 * A compiled write template: the per-row Cypher, the statement sluice runs ({@code UNWIND $rows AS row ...}),
 * the fields it reads from {@code row} (each must be present in every row), the key fields, declared types, and
 * the lock-order fields (rows of a batch are sorted by them so concurrent transactions lock in one order).
 */
public record Template(String name, String cypher, String unwindCypher, List<String> key, Set<String> fields,
        Map<String, FieldType> types, List<String> lockOrder) {

    public static final String ROWS_PARAM = "rows";

    public static Template compile(String name, TemplateConfig c) {
        Set<String> fields = CypherText.fieldsOf(c.cypher(), "row");
        Map<String, FieldType> types = new LinkedHashMap<>();
        c.types().forEach((f, t) -> types.put(f, FieldType.of(t)));
        for (String k : c.key()) {
            if (!fields.contains(k) && !types.containsKey(k)) {
                throw new IllegalArgumentException("template '" + name + "': key field '" + k
                        + "' is not read by its cypher (row." + k + ") nor declared in types");
            }
        }
        List<String> lockOrder = c.lockOrder();
        if (lockOrder == null) {
            Set<String> derived = new LinkedHashSet<>(CypherText.nodeKeyFields(c.cypher(), "row"));
            derived.removeAll(c.key());
            lockOrder = List.copyOf(derived);
        }
        return new Template(name, c.cypher(), "UNWIND $" + ROWS_PARAM + " AS row " + c.cypher(), c.key(),
                Set.copyOf(fields), Map.copyOf(types), lockOrder);
    }

    /** Checks one row: every field the Cypher reads is present, declared types match. */
    public Optional<Neo4jError> validate(Map<String, Object> row, int index) {
        for (String f : fields) {
            if (!row.containsKey(f)) {
                return Optional.of(Neo4jError.parameterMissing("row " + index + " of template '" + name
                        + "' has no field '" + f + "' (the template reads row." + f + ")"));
            }
        }
        for (String k : key) {
            if (row.get(k) == null) {
                return Optional.of(Neo4jError.parameterMissing("row " + index + " of template '" + name
                        + "' has no value for key field '" + k + "'"));
            }
        }
        for (var e : types.entrySet()) {
            Object v = row.get(e.getKey());
            if (v != null && !e.getValue().accepts(v)) {
                return Optional.of(Neo4jError.typeError("row " + index + " of template '" + name + "': field '"
                        + e.getKey() + "' must be " + e.getValue().jsonName() + ", got "
                        + (v instanceof String ? "string" : v.getClass().getSimpleName().toLowerCase(Locale.ROOT))
                        + " " + abbreviate(v)));
            }
        }
        return Optional.empty();
    }

    /**
     * The partition of a request: by the key of its first row (a request is atomic, so it is never split). The
     * key's hash is mixed so that every bit of it moves the result: a number's hash is the number itself, and a
     * load balancer routing keys to instances by key modulo N (or keys that share their low bits) would otherwise
     * send each instance keys of one residue only, which would all land in the same few of its partitions.
     */
    public int partition(Map<String, Object> firstRow, int partitions) {
        if (partitions <= 1 || key.isEmpty()) {
            return 0;
        }
        int h = 1;
        for (String k : key) {
            h = 31 * h + Objects.hashCode(firstRow.get(k));
        }
        return Math.floorMod(mix(h), partitions);
    }

    /** MurmurHash3's 32-bit finalizer. */
    private static int mix(int h) {
        h ^= h >>> 16;
        h *= 0x85ebca6b;
        h ^= h >>> 13;
        h *= 0xc2b2ae35;
        return h ^ (h >>> 16);
    }

    /**
     * What orders a request among others of this template: the template's name and its first row's key values
     * (a request is atomic, so it goes wherever its first row goes); the name alone when the template has no key.
     */
    public String orderingKey(Map<String, Object> firstRow) {
        StringBuilder b = new StringBuilder(name);
        for (String k : key) {
            b.append('\u0000').append(firstRow.get(k));
        }
        return b.toString();
    }

    private static String abbreviate(Object v) {
        String s = String.valueOf(v);
        return s.length() > 40 ? s.substring(0, 40) + "..." : s;
    }
}
