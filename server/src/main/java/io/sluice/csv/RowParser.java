package io.sluice.csv;

import io.sluice.csv.Column.Kind;
import io.sluice.csv.Rejection.Problem;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * Turns the records of one group into {@link Row}s: typed values in the form they are sent in (see {@link Row}),
 * or a {@link Rejection} for a row that does not parse (a bad number, an empty ID, extra fields). Missing trailing
 * fields are empty, as in neo4j-admin. IDs are read as the type of their ID space, which the caller settles
 * (several groups share a space). Stateless apart from its configuration; one per group.
 */
public final class RowParser {
    private final Header header;
    private final CsvFormat format;
    private final ValueType idType;
    private final ValueType startType;
    private final ValueType endType;
    private final String defaultType;
    private final Column[] columns;
    private final int keyIndex;
    private final String[] fields;

    private RowParser(Header header, CsvFormat format, ValueType idType, ValueType startType, ValueType endType,
            String defaultType) {
        this.header = header;
        this.format = format;
        this.idType = idType;
        this.startType = startType;
        this.endType = endType;
        this.defaultType = defaultType;
        this.columns = header.columns().toArray(Column[]::new);
        Kind k = header.entity() == EntityKind.NODES ? Kind.ID : Kind.START_ID;
        this.keyIndex = header.first(k).map(Column::index).orElse(-1);
        this.fields = new String[columns.length];
        for (Column c : columns) {
            if (c.kind() == Kind.PROPERTY) {
                fields[c.index()] = c.field();
            }
        }
    }

    /**
     * A node group's parser.
     *
     * @param idType how its IDs are read: {@link ValueType#STRING} or {@link ValueType#LONG}; null without an ID column
     */
    public static RowParser nodes(Header header, CsvFormat format, ValueType idType) {
        return new RowParser(header, format, idType, null, null, null);
    }

    /**
     * A relationship group's parser.
     *
     * @param startType   how the start IDs are read (the type of the start's ID space)
     * @param endType     how the end IDs are read
     * @param defaultType the group's type for rows whose {@code :TYPE} field is empty; null when it has none
     */
    public static RowParser relationships(Header header, CsvFormat format, ValueType startType, ValueType endType,
            String defaultType) {
        return new RowParser(header, format, null, startType, endType, defaultType);
    }

    /** The row of a record; {@code source} names its file in rejections. */
    public Row parse(CsvSource.Raw raw, String source) {
        String[] f = raw.fields();
        if (f.length > columns.length && !format.ignoreExtraColumns()) {
            for (int i = columns.length; i < f.length; i++) {
                if (f[i] != null) {
                    return reject(raw, source, Problem.ExtraColumns, "the row has " + f.length + " fields, the header "
                            + columns.length + " columns (use --ignore-extra-columns to drop the extra fields)",
                            Map.of("fields", f.length, "columns", columns.length), key(f));
                }
            }
        }
        Map<String, Object> values = new HashMap<>(columns.length * 2 + 4);
        for (Column c : columns) {
            String text = c.index() < f.length ? f[c.index()] : null;
            try {
                switch (c.kind()) {
                    case ID -> values.put("k", id(text, c, idType, "ID"));
                    case START_ID -> values.put("s", id(text, c, startType, "START_ID"));
                    case END_ID -> values.put("e", id(text, c, endType, "END_ID"));
                    case LABEL -> values.put("l", labels(text));
                    case TYPE -> values.put("t", type(text));
                    case PROPERTY -> {
                        Object v = c.parse(text, format);
                        if (v != null) {
                            values.put(fields[c.index()], v);
                        }
                    }
                    case IGNORE -> { }
                }
            } catch (IllegalArgumentException e) {
                return reject(raw, source, Problem.BadValue, e.getMessage(),
                        Map.of("column", c.raw(), "value", text == null ? "" : text), key(f));
            }
        }
        return new Row(raw.file(), raw.line(), key(f), values, null);
    }

    private Object id(String text, Column c, ValueType type, String what) {
        if (text == null || text.isBlank()) {
            throw new IllegalArgumentException("empty " + what);
        }
        String t = format.trimStrings() ? text.strip() : text;
        if (type == ValueType.LONG) {
            try {
                return Long.parseLong(t.strip());
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException("ID '" + Column.abbreviate(text) + "' of " + Column.describeSpace(c.space())
                        + " is not an integer");
            }
        }
        return t;
    }

    private List<String> labels(String text) {
        List<String> out = new ArrayList<>(2);
        if (text != null) {
            for (String l : text.split(Pattern.quote(String.valueOf(format.arrayDelimiter())))) {
                if (!l.isBlank()) {
                    out.add(l.strip());
                }
            }
        }
        return out;
    }

    private String type(String text) {
        if (text != null && !text.isBlank()) {
            return text.strip();
        }
        if (defaultType == null) {
            throw new IllegalArgumentException("no relationship type: the :TYPE field is empty and the group has no default type");
        }
        return defaultType;
    }

    /** The raw key a row is partitioned on: its node ID, or its start ID. */
    private String key(String[] f) {
        if (keyIndex < 0) {
            return null; // a node group without IDs: partitioned by line
        }
        String v = keyIndex < f.length ? f[keyIndex] : null;
        return v == null ? "" : v;
    }

    private static Row reject(CsvSource.Raw raw, String source, Problem p, String message, Map<String, Object> details,
            String key) {
        return new Row(raw.file(), raw.line(), key, null, new Rejection(p, source + ":" + raw.line() + ": " + message,
                source, raw.line(), details));
    }

    public Header header() {
        return header;
    }
}
