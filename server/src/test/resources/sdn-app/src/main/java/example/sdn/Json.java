package example.sdn;

import java.util.Collection;
import java.util.Iterator;
import java.util.Map;

/** Writes maps, collections, numbers, booleans and strings as JSON (the app needs no JSON library). */
final class Json {
    private Json() {
    }

    static String write(Object value) {
        StringBuilder out = new StringBuilder();
        write(value, out);
        return out.toString();
    }

    private static void write(Object value, StringBuilder out) {
        if (value == null || value instanceof Number || value instanceof Boolean) {
            out.append(value);
        } else if (value instanceof Map<?, ?> map) {
            out.append('{');
            Iterator<? extends Map.Entry<?, ?>> it = map.entrySet().iterator();
            while (it.hasNext()) {
                Map.Entry<?, ?> e = it.next();
                string(String.valueOf(e.getKey()), out);
                out.append(':');
                write(e.getValue(), out);
                out.append(it.hasNext() ? "," : "");
            }
            out.append('}');
        } else if (value instanceof Collection<?> list) {
            out.append('[');
            Iterator<?> it = list.iterator();
            while (it.hasNext()) {
                write(it.next(), out);
                out.append(it.hasNext() ? "," : "");
            }
            out.append(']');
        } else {
            string(value.toString(), out);
        }
    }

    private static void string(String s, StringBuilder out) {
        out.append('"');
        for (char c : s.toCharArray()) {
            switch (c) {
                case '"' -> out.append("\\\"");
                case '\\' -> out.append("\\\\");
                case '\n' -> out.append("\\n");
                default -> {
                    if (c < 0x20) {
                        out.append(String.format("\\u%04x", (int) c));
                    } else {
                        out.append(c);
                    }
                }
            }
        }
        out.append('"');
    }
}
