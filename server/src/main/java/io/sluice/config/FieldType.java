package io.sluice.config;

import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/** The JSON types a template may declare for a row field. */
public enum FieldType {
    STRING, INTEGER, FLOAT, NUMBER, BOOLEAN, LIST, MAP, ANY;

    static final Set<String> NAMES = Set.of("string", "integer", "float", "number", "boolean", "list", "map", "any");

    public static FieldType of(String name) {
        return valueOf(name.toUpperCase(Locale.ROOT));
    }

    /** Whether a value decoded from JSON (null excluded) has this type. */
    public boolean accepts(Object v) {
        return switch (this) {
            case STRING -> v instanceof String;
            case INTEGER -> v instanceof Long || v instanceof Integer;
            case FLOAT -> v instanceof Double || v instanceof Float;
            case NUMBER -> v instanceof Number;
            case BOOLEAN -> v instanceof Boolean;
            case LIST -> v instanceof List<?>;
            case MAP -> v instanceof Map<?, ?>;
            case ANY -> true;
        };
    }

    public String jsonName() {
        return name().toLowerCase(Locale.ROOT);
    }
}
