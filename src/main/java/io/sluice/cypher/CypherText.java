package io.sluice.cypher;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * A small Cypher lexer: enough to find parameters ({@code $name}), the fields a template reads from its row
 * ({@code row.name}) and {@code CALL {} IN [n] [CONCURRENT] TRANSACTIONS}, while skipping string literals,
 * comments and backquoted names, so a {@code $} inside a string is not taken for a parameter.
 */
public final class CypherText {
    private CypherText() {}

    enum Kind { WORD, PARAM, NUMBER, SYMBOL }

    record Token(Kind kind, String text) {}

    static List<Token> tokens(String s) {
        List<Token> out = new ArrayList<>();
        int i = 0;
        int n = s.length();
        while (i < n) {
            char c = s.charAt(i);
            if (Character.isWhitespace(c)) {
                i++;
            } else if (c == '/' && i + 1 < n && s.charAt(i + 1) == '/') {
                while (i < n && s.charAt(i) != '\n') {
                    i++;
                }
            } else if (c == '/' && i + 1 < n && s.charAt(i + 1) == '*') {
                int end = s.indexOf("*/", i + 2);
                i = end < 0 ? n : end + 2;
            } else if (c == '\'' || c == '"') {
                i = skipString(s, i, c);
            } else if (c == '`') {
                int end = s.indexOf('`', i + 1);
                end = end < 0 ? n : end;
                out.add(new Token(Kind.WORD, s.substring(i + 1, end)));
                i = end + 1;
            } else if (c == '$') {
                int j = i + 1;
                String name;
                if (j < n && s.charAt(j) == '`') {
                    int end = s.indexOf('`', j + 1);
                    end = end < 0 ? n : end;
                    name = s.substring(j + 1, end);
                    i = end + 1;
                } else {
                    while (j < n && Character.isJavaIdentifierPart(s.charAt(j))) {
                        j++;
                    }
                    name = s.substring(i + 1, j);
                    i = j;
                }
                out.add(new Token(Kind.PARAM, name));
            } else if (Character.isJavaIdentifierStart(c)) {
                int j = i + 1;
                while (j < n && Character.isJavaIdentifierPart(s.charAt(j))) {
                    j++;
                }
                out.add(new Token(Kind.WORD, s.substring(i, j)));
                i = j;
            } else if (Character.isDigit(c)) {
                int j = i + 1;
                while (j < n && (Character.isLetterOrDigit(s.charAt(j)) || s.charAt(j) == '_')) {
                    j++;
                }
                out.add(new Token(Kind.NUMBER, s.substring(i, j)));
                i = j;
            } else {
                out.add(new Token(Kind.SYMBOL, String.valueOf(c)));
                i++;
            }
        }
        return out;
    }

    private static int skipString(String s, int start, char quote) {
        int i = start + 1;
        while (i < s.length()) {
            char c = s.charAt(i);
            if (c == '\\') {
                i += 2;
            } else if (c == quote) {
                return i + 1;
            } else {
                i++;
            }
        }
        return i;
    }

    /** The parameter names a statement refers to. */
    public static Set<String> parameters(String cypher) {
        Set<String> names = new LinkedHashSet<>();
        for (Token t : tokens(cypher)) {
            if (t.kind() == Kind.PARAM && !t.text().isEmpty()) {
                names.add(t.text());
            }
        }
        return names;
    }

    /** The fields read as {@code var.field} where {@code var} stands alone (not itself a property). */
    public static Set<String> fieldsOf(String cypher, String var) {
        Set<String> fields = new LinkedHashSet<>();
        List<Token> ts = tokens(cypher);
        for (int i = 0; i + 2 < ts.size(); i++) {
            Token t = ts.get(i);
            boolean standalone = i == 0 || !ts.get(i - 1).text().equals(".");
            if (t.kind() == Kind.WORD && t.text().equals(var) && standalone
                    && ts.get(i + 1).text().equals(".") && ts.get(i + 2).kind() == Kind.WORD) {
                fields.add(ts.get(i + 2).text());
            }
        }
        return fields;
    }

    private static final Set<String> CLAUSES = Set.of("MERGE", "MATCH", "CREATE", "SET", "WITH", "WHERE", "RETURN",
            "DELETE", "DETACH", "REMOVE", "UNWIND", "FOREACH", "CALL", "OPTIONAL", "ON", "LOAD");

    /**
     * The fields of {@code var} used as property keys of node patterns in MERGE and MATCH clauses, e.g. {@code url}
     * in {@code MERGE (s:Site {url: row.url})}: the nodes a template looks up and locks. Relationship patterns
     * and CREATE are not counted.
     */
    public static Set<String> nodeKeyFields(String cypher, String var) {
        Set<String> fields = new LinkedHashSet<>();
        List<Token> ts = tokens(cypher);
        java.util.ArrayDeque<String> nesting = new java.util.ArrayDeque<>();
        String clause = "";
        for (int i = 0; i < ts.size(); i++) {
            Token t = ts.get(i);
            String x = t.text();
            if (t.kind() == Kind.WORD && nesting.isEmpty() && CLAUSES.contains(x.toUpperCase(Locale.ROOT))) {
                clause = x.toUpperCase(Locale.ROOT);
            } else if (t.kind() == Kind.SYMBOL && (x.equals("(") || x.equals("[") || x.equals("{"))) {
                nesting.push(x);
            } else if (t.kind() == Kind.SYMBOL && (x.equals(")") || x.equals("]") || x.equals("}"))) {
                nesting.poll();
            } else if (t.kind() == Kind.WORD && x.equals(var) && i + 2 < ts.size() && ts.get(i + 1).text().equals(".")
                    && (i == 0 || !ts.get(i - 1).text().equals(".")) && (clause.equals("MERGE") || clause.equals("MATCH"))
                    && nesting.size() >= 2 && nesting.peek().equals("{")) {
                String outer = nesting.stream().skip(1).findFirst().orElse("");
                if (outer.equals("(")) {
                    fields.add(ts.get(i + 2).text());
                }
            }
        }
        return fields;
    }

    /** Whether the statement uses {@code CALL {...} IN [n] [CONCURRENT] TRANSACTIONS}. */
    public static boolean runsInTransactions(String cypher) {
        List<Token> ts = tokens(cypher);
        for (int i = 0; i < ts.size(); i++) {
            if (!is(ts.get(i), "IN")) {
                continue;
            }
            int j = i + 1;
            if (j < ts.size() && (ts.get(j).kind() == Kind.NUMBER || ts.get(j).kind() == Kind.PARAM)) {
                j++;
            }
            if (j < ts.size() && is(ts.get(j), "CONCURRENT")) {
                j++;
            }
            if (j < ts.size() && is(ts.get(j), "TRANSACTIONS")) {
                return true;
            }
        }
        return false;
    }

    private static boolean is(Token t, String word) {
        return t.kind() == Kind.WORD && t.text().toUpperCase(Locale.ROOT).equals(word);
    }
}
