package io.sluice.importer;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.neo4j.values.storable.CSVHeaderInformation;

/**
 * One column of a header: {@code name:TYPE(group){options}}.
 *
 * @param index   position in the row
 * @param raw     the header entry as written
 * @param name    property name (properties, {@code name:ID}); null when none was given
 * @param kind    what the column holds
 * @param type    value type of a property or ID column; null for the others
 * @param array   a property written {@code type[]}: the field is split on the array delimiter
 * @param group   the ID space of an ID, START_ID or END_ID column; null for the global space
 * @param options the {@code {key:value}} options
 * @param info    the options as Neo4j's value parsers take them ({@code timezone}, {@code crs}), or null
 */
record Column(int index, String raw, String name, Kind kind, ValueType type, boolean array, String group,
        Map<String, String> options, CSVHeaderInformation info) {

    Column {
        options = Map.copyOf(options);
    }

    /** Column kinds of the header format. */
    enum Kind { ID, START_ID, END_ID, LABEL, TYPE, IGNORE, PROPERTY }

    /**
     * Parses a value of this property (or ID) column; null for an empty value.
     *
     * @throws IllegalArgumentException naming the column and the value when it does not parse
     */
    Object parse(String text, CsvFormat f) {
        if (text == null) {
            return null;
        }
        String t = f.trimStrings() ? text.strip() : text;
        if (t.isEmpty() && (type != ValueType.STRING || array || f.ignoreEmptyStrings())) {
            return null;
        }
        try {
            if (!array) {
                return type.parse(t, info);
            }
            List<Object> out = new ArrayList<>();
            int start = 0;
            char d = f.arrayDelimiter();
            for (int i = 0; i <= t.length(); i++) {
                if (i == t.length() || t.charAt(i) == d) {
                    String element = t.substring(start, i);
                    out.add(type.parse(f.trimStrings() ? element.strip() : element, info));
                    start = i + 1;
                }
            }
            return out;
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("column '" + raw + "': cannot read '" + abbreviate(text) + "' as "
                    + type.lowerName() + (array ? "[]" : "") + (e.getMessage() == null ? "" : " (" + e.getMessage() + ")"), e);
        }
    }

    /** The field of a row that carries this property: {@code p<index>}, or {@code c<index>} when converted. */
    String field() {
        return (type.cypherFunction() == null ? "p" : "c") + index;
    }

    /** The Cypher expression of this property's value in row {@code row}. */
    String valueExpression() {
        String f = "row." + field();
        String fn = type.cypherFunction();
        if (fn == null) {
            return f;
        }
        return array ? "[v IN " + f + " | " + fn + "(v)]" : fn + "(" + f + ")";
    }

    static String abbreviate(String s) {
        return s.length() > 60 ? s.substring(0, 60) + "..." : s;
    }
}
