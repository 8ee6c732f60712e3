package io.sluice.csv;

import io.sluice.csv.Column.Kind;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.neo4j.values.storable.CSVHeaderInformation;

/**
 * A group's header: neo4j-admin import's format, one entry per column, {@code <name>:<type>(<group>){<options>}}.
 * Nodes: {@code name:ID(space){id-type:long,label:User}}, {@code :LABEL}, properties. Relationships:
 * {@code :START_ID(space)}, {@code :END_ID(space)}, {@code :TYPE}, properties. A property without a type is a
 * string; {@code :IGNORE} and empty entries skip the column. Parsing follows Neo4j's {@code DataFactories}:
 * options are the last {@code {...}}, the type follows the last {@code :}, the group is a {@code (...)} after it.
 */
public record Header(EntityKind entity, List<Column> columns, String source) {

    public Header {
        columns = List.copyOf(columns);
    }

    /** Parses the header entries (the group's first line); a bad header throws with the file named. */
    public static Header parse(EntityKind entity, String[] entries, String source) {
        List<Column> columns = new ArrayList<>();
        for (int i = 0; i < entries.length; i++) {
            columns.add(entry(entity, i, entries[i], source));
        }
        Header h = new Header(entity, columns, source);
        h.validate();
        return h;
    }

    private static Column entry(EntityKind entity, int index, String raw, String source) {
        if (raw == null || raw.isBlank()) {
            return new Column(index, raw == null ? "" : raw, null, Kind.IGNORE, null, false, null, Map.of(), null);
        }
        String rest = raw;
        Map<String, String> options = Map.of();
        int ob = rest.lastIndexOf('{');
        if (ob >= 0) {
            int cb = rest.lastIndexOf('}');
            if (cb < ob) {
                throw bad(source, raw, "expected a closing '}'");
            }
            options = options(rest.substring(ob + 1, cb), source, raw);
            rest = rest.substring(0, ob) + rest.substring(cb + 1);
        }
        int colon = rest.lastIndexOf(':');
        String group = null;
        int gp = rest.lastIndexOf('(');
        if (gp >= 0 && colon >= 0 && gp > colon) {
            int ge = rest.lastIndexOf(')');
            if (ge < gp) {
                throw bad(source, raw, "expected a closing ')'");
            }
            group = rest.substring(gp + 1, ge);
            rest = rest.substring(0, gp) + rest.substring(ge + 1);
        }
        String name = colon >= 0 ? rest.substring(0, colon) : rest;
        String type = colon >= 0 ? rest.substring(colon + 1).strip() : "";
        name = name.isEmpty() ? null : name;
        Kind kind = kind(type);
        if (kind == null) {
            ValueType vt = ValueType.named(type.endsWith("[]") ? type.substring(0, type.length() - 2) : type.isEmpty() ? "string" : type);
            if (vt == null) {
                throw bad(source, raw, "unknown type '" + type + "' (known: ID, LABEL, START_ID, END_ID, TYPE, IGNORE, "
                        + "int, long, float, double, boolean, byte, short, char, string, date, localtime, time, "
                        + "localdatetime, datetime, duration, point, and arrays of these as type[])");
            }
            if (name == null) {
                throw bad(source, raw, "a property column needs a name");
            }
            return new Column(index, raw, name, Kind.PROPERTY, vt, type.endsWith("[]"), null, options,
                    info(vt, options, source, raw));
        }
        boolean forNodes = kind == Kind.ID || kind == Kind.LABEL;
        boolean forRels = kind == Kind.START_ID || kind == Kind.END_ID || kind == Kind.TYPE;
        if ((forNodes && entity != EntityKind.NODES) || (forRels && entity != EntityKind.RELATIONSHIPS)) {
            throw bad(source, raw, ":" + kind + " is not a " + (entity == EntityKind.NODES ? "node" : "relationship")
                    + " header type");
        }
        ValueType idType = null;
        if (kind == Kind.ID || kind == Kind.START_ID || kind == Kind.END_ID) {
            String hint = options.get("id-type");
            if (hint != null) {
                idType = ValueType.named(hint);
                if (idType != ValueType.STRING && idType != ValueType.LONG) {
                    throw bad(source, raw, "id-type must be string, int or long, got '" + hint + "'");
                }
            }
        }
        return new Column(index, raw, name, kind, idType, false, group, options, null);
    }

    private static Kind kind(String type) {
        String t = type.toUpperCase(Locale.ROOT);
        for (Kind k : Kind.values()) {
            if (k != Kind.PROPERTY && k.name().equals(t)) {
                return k;
            }
        }
        return null;
    }

    private static CSVHeaderInformation info(ValueType t, Map<String, String> options,
            String source, String raw) {
        try {
            return t.headerInformation(options);
        } catch (RuntimeException e) {
            throw bad(source, raw, "bad options: " + e.getMessage());
        }
    }

    /** {@code key:value, key:'value'} (the braces already removed). */
    static Map<String, String> options(String text, String source, String raw) {
        Map<String, String> out = new LinkedHashMap<>();
        for (String part : splitOutsideQuotes(text)) {
            if (part.isBlank()) {
                continue;
            }
            int c = part.indexOf(':');
            if (c <= 0) {
                throw bad(source, raw, "option '" + part.strip() + "' is not key:value");
            }
            String v = part.substring(c + 1).strip();
            if (v.length() >= 2 && (v.charAt(0) == '\'' || v.charAt(0) == '"') && v.charAt(v.length() - 1) == v.charAt(0)) {
                v = v.substring(1, v.length() - 1);
            }
            out.put(part.substring(0, c).strip(), v);
        }
        return out;
    }

    private static List<String> splitOutsideQuotes(String text) {
        List<String> parts = new ArrayList<>();
        StringBuilder cur = new StringBuilder();
        char quote = 0;
        for (char ch : text.toCharArray()) {
            if (quote != 0) {
                quote = ch == quote ? 0 : quote;
            } else if (ch == '\'' || ch == '"') {
                quote = ch;
            } else if (ch == ',') {
                parts.add(cur.toString());
                cur.setLength(0);
                continue;
            }
            cur.append(ch);
        }
        parts.add(cur.toString());
        return parts;
    }

    private void validate() {
        Set<String> names = new HashSet<>();
        Map<Kind, Integer> counts = new HashMap<>();
        for (Column c : columns) {
            counts.merge(c.kind(), 1, Integer::sum);
            if ((c.kind() == Kind.PROPERTY || c.kind() == Kind.ID) && c.name() != null && !names.add(c.name())) {
                throw bad(source, c.raw(), "property '" + c.name() + "' appears twice");
            }
        }
        for (Kind single : List.of(Kind.LABEL, Kind.TYPE, Kind.START_ID, Kind.END_ID)) {
            if (counts.getOrDefault(single, 0) > 1) {
                throw new IllegalArgumentException("header of " + source + ": more than one :" + single + " column");
            }
        }
        if (entity == EntityKind.RELATIONSHIPS && (!counts.containsKey(Kind.START_ID) || !counts.containsKey(Kind.END_ID))) {
            throw new IllegalArgumentException("header of " + source + ": a relationship header needs :START_ID and :END_ID, got "
                    + columns.stream().map(Column::raw).toList());
        }
    }

    private static IllegalArgumentException bad(String source, String raw, String why) {
        return new IllegalArgumentException("header of " + source + ", entry '" + raw + "': " + why);
    }

    public List<Column> of(Kind kind) {
        return columns.stream().filter(c -> c.kind() == kind).toList();
    }

    public Optional<Column> first(Kind kind) {
        return columns.stream().filter(c -> c.kind() == kind).findFirst();
    }

    /** The header's entries as written, for recognising a repeated header line. */
    public List<String> rawEntries() {
        return columns.stream().map(Column::raw).toList();
    }
}
