package io.sluice.write;

import io.sluice.config.FieldType;
import io.sluice.config.TemplateConfig;
import io.sluice.cypher.CypherText;
import io.sluice.sink.Neo4jError;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * A compiled write template: the per-row Cypher, the statement sluice runs ({@code UNWIND $rows AS row ...}),
 * the fields it reads from {@code row} (each must be present in every row), the key fields, declared types.
 */
public record Template(String name, String cypher, String unwindCypher, List<String> key, Set<String> fields,
        Map<String, FieldType> types) {

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
        return new Template(name, c.cypher(), "UNWIND $" + ROWS_PARAM + " AS row " + c.cypher(), c.key(),
                Set.copyOf(fields), Map.copyOf(types));
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
                        + (v instanceof String ? "string" : v.getClass().getSimpleName().toLowerCase(java.util.Locale.ROOT))
                        + " " + abbreviate(v)));
            }
        }
        return Optional.empty();
    }

    private static String abbreviate(Object v) {
        String s = String.valueOf(v);
        return s.length() > 40 ? s.substring(0, 40) + "..." : s;
    }
}
