package io.sluice.cypher;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;

/**
 * A random Cypher-like text with what a correct lexer must find in it: the parameters and {@code row} fields
 * planted in code, in order. Look-alikes go where they do not count. Fragments are always separated by a space
 * or a symbol, so no two fuse into one token.
 */
record RandomCypher(String text, List<String> params, List<String> fields) {
    private static final String[] SEPARATORS = {" ", "\n", "\t", ", ", " + ", "(", ")", " = ", ": ", "[", "]", " "};
    private static final String[] WORDS = {"MATCH", "CREATE", "MERGE", "SET", "RETURN", "n", "u", "s", "S", "x1", "_",
        "rows", "xrow", "row_1", "IN", "CALL", "42", "1.5e3", "0x1F"};
    private static final String TRICKY = "$.'\"`/*{}\\ \nrow.x$p";

    static RandomCypher generate(Random r) {
        Builder b = new Builder(r);
        b.fragments(2 + r.nextInt(25), 2);
        return new RandomCypher(b.text.toString(), b.params, b.fields);
    }

    private static final class Builder {
        final Random r;
        final StringBuilder text = new StringBuilder();
        final List<String> params = new ArrayList<>();
        final List<String> fields = new ArrayList<>();

        Builder(Random r) {
            this.r = r;
        }

        void fragments(int count, int depth) {
            for (int i = 0; i < count; i++) {
                fragment(depth);
                text.append(SEPARATORS[r.nextInt(SEPARATORS.length)]);
            }
        }

        void fragment(int depth) {
            switch (r.nextInt(depth > 0 ? 12 : 11)) {
                case 0, 1 -> param();
                case 2, 3 -> field();
                case 4 -> string(r.nextBoolean() ? '\'' : '"');
                case 5 -> text.append("//").append(noneOf(tricky(), "\n\r")).append(List.of("\n", "\r", "\r\n").get(r.nextInt(3)));
                case 6 -> text.append("/*").append(tricky().replace("*/", "* /")).append("*/");
                case 7 -> text.append(quoted(r.nextInt(6) == 0 ? "." : tricky()));
                case 8 -> text.append(List.of("u.row.x", "n.row", "{row: 1}", "row", "rows.y", "`x`.row.z").get(r.nextInt(6)));
                case 9 -> text.append(WORDS[r.nextInt(WORDS.length)]);
                case 10 -> {
                    text.append(r.nextBoolean() ? "xs" : "as"); // not an interpolation: the s ends a longer name
                    string(r.nextBoolean() ? '\'' : '"');
                }
                default -> interpolated(depth - 1);
            }
        }

        void param() {
            String name = switch (r.nextInt(5)) {
                case 0 -> Integer.toString(r.nextInt(100));
                case 1, 2 -> identifier();
                default -> nonEmpty(tricky(), "p");
            };
            text.append('$').append(List.of("", "", "", " ", "/* $no */", "\n").get(r.nextInt(6)));
            text.append(name.chars().allMatch(c -> Character.isLetterOrDigit(c) || c == '_') && r.nextBoolean() ? name
                    : quoted(name));
            params.add(name);
            if (r.nextInt(6) == 0) {
                text.append(".prop"); // $row.prop: a parameter's property, not a field
            }
        }

        void field() {
            String name = r.nextBoolean() ? identifier() : nonEmpty(tricky(), "f");
            String var = r.nextInt(5) == 0 ? "`row`" : "row";
            String dot = List.of(".", ".", ".", " . ", "/* . */.", "\n.").get(r.nextInt(6));
            text.append(var).append(dot);
            text.append(name.chars().allMatch(c -> Character.isLetterOrDigit(c) || c == '_') && r.nextBoolean() ? name
                    : quoted(name));
            fields.add(name);
        }

        /** A string literal of Cypher 5: backslash escapes, the other quote as is. */
        void string(char quote) {
            text.append(quote);
            for (char c : tricky().toCharArray()) {
                if (c == quote) {
                    text.append('\\').append(c);
                } else if (c == '\\') {
                    text.append(List.of("\\\\", "\\n", "\\t", "\\u0041", "\\'", "\\\"").get(r.nextInt(6)));
                } else {
                    text.append(c);
                }
            }
            text.append(quote);
        }

        /** Cypher 25's s'text {expression} text': planted things count only inside the braces. */
        void interpolated(int depth) {
            char quote = r.nextBoolean() ? '\'' : '"';
            text.append(r.nextBoolean() ? 's' : 'S').append(quote);
            for (int parts = r.nextInt(4); parts > 0; parts--) {
                if (r.nextBoolean()) {
                    for (char c : tricky().toCharArray()) {
                        if (c == quote || c == '{' || c == '\\') {
                            text.append('\\');
                        }
                        text.append(c);
                    }
                } else {
                    text.append('{');
                    fragments(1 + r.nextInt(3), depth);
                    text.append(r.nextBoolean() ? "{k: 1}.k" : "").append(" }");
                }
            }
            text.append(quote);
        }

        String identifier() {
            StringBuilder sb = new StringBuilder();
            sb.append("abcXYZ_".charAt(r.nextInt(7)));
            for (int i = r.nextInt(6); i > 0; i--) {
                sb.append("abcXYZ_019".charAt(r.nextInt(10)));
            }
            return sb.toString();
        }

        /** A few characters, many of them ones a lexer must get right. */
        String tricky() {
            StringBuilder sb = new StringBuilder();
            for (int i = r.nextInt(8); i > 0; i--) {
                sb.append(r.nextInt(3) == 0 ? (char) ('a' + r.nextInt(26)) : TRICKY.charAt(r.nextInt(TRICKY.length())));
            }
            return sb.toString();
        }

        static String nonEmpty(String s, String otherwise) {
            return s.isEmpty() ? otherwise : s;
        }

        static String noneOf(String s, String drop) {
            StringBuilder sb = new StringBuilder();
            for (char c : s.toCharArray()) {
                if (drop.indexOf(c) < 0) {
                    sb.append(c);
                }
            }
            return sb.toString();
        }

        /** A backquoted name; a backquote in it is written twice. */
        static String quoted(String name) {
            return "`" + name.replace("`", "``") + "`";
        }
    }
}
