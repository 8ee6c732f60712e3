package io.sluice.cypher;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * A small Cypher lexer: enough to find parameters ({@code $name}), the fields a template reads from its row
 * ({@code row.name}) and {@code CALL {} IN [n] [CONCURRENT] TRANSACTIONS}, while skipping string literals,
 * comments and backquoted names, so a {@code $} inside a string is not taken for a parameter.
 *
 * <p>As Neo4j lexes them: a {@code //} comment ends at a line feed or a carriage return; a backquoted name
 * writes a backquote as two ({@code `a``b`} is {@code a`b}); a parameter's name may follow its {@code $}
 * after spaces and comments ({@code $ x}); Cypher 25's interpolated strings ({@code s'Hello {$name}'}) hold
 * expressions, which are lexed like the rest (their braces as symbols), while their text is skipped.
 */
public final class CypherText {
    private CypherText() {}

    enum Kind { WORD, PARAM, NUMBER, SYMBOL }

    /** A token and where it stands in the text: {@code [start, end)}, from a parameter's {@code $} or a name's backquote on. */
    record Token(Kind kind, String text, int start, int end) {}

    static List<Token> tokens(String s) {
        Lexer lexer = new Lexer(s);
        lexer.lex(false);
        return lexer.out;
    }

    /** One pass over a statement; interpolated strings recurse into {@link #lex} for their expressions. */
    private static final class Lexer {
        private final String s;
        private final int n;
        private final List<Token> out = new ArrayList<>();
        private int i;

        Lexer(String s) {
            this.s = s;
            this.n = s.length();
        }

        /** Up to the end; in an interpolation, up to and including the brace that closes it. */
        void lex(boolean interpolation) {
            int depth = 0;
            while (i < n) {
                char c = s.charAt(i);
                if (Character.isWhitespace(c)) {
                    i++;
                } else if (skipComment()) {
                    continue;
                } else if (c == '\'' || c == '"') {
                    i = skipString(s, i, c);
                } else if (c == '`') {
                    int start = i;
                    String name = quotedName();
                    out.add(new Token(Kind.WORD, name, start, i));
                } else if (c == '$') {
                    parameter();
                } else if ((c == 's' || c == 'S') && i + 1 < n && (s.charAt(i + 1) == '\'' || s.charAt(i + 1) == '"')) {
                    interpolatedString();
                } else if (Character.isJavaIdentifierStart(c)) {
                    int end = endOfName(i + 1);
                    out.add(new Token(Kind.WORD, s.substring(i, end), i, end));
                    i = end;
                } else if (Character.isDigit(c)) {
                    int j = i + 1;
                    while (j < n && (Character.isLetterOrDigit(s.charAt(j)) || s.charAt(j) == '_')) {
                        j++;
                    }
                    out.add(new Token(Kind.NUMBER, s.substring(i, j), i, j));
                    i = j;
                } else {
                    out.add(new Token(Kind.SYMBOL, String.valueOf(c), i, i + 1));
                    i++;
                    if (c == '{') {
                        depth++;
                    } else if (c == '}' && depth-- == 0 && interpolation) {
                        return;
                    }
                }
            }
        }

        private boolean skipComment() {
            if (s.startsWith("//", i)) {
                while (i < n && s.charAt(i) != '\n' && s.charAt(i) != '\r') {
                    i++;
                }
                return true;
            }
            if (s.startsWith("/*", i)) {
                int end = s.indexOf("*/", i + 2);
                i = end < 0 ? n : end + 2;
                return true;
            }
            return false;
        }

        private int endOfName(int j) {
            while (j < n && Character.isJavaIdentifierPart(s.charAt(j))) {
                j++;
            }
            return j;
        }

        /** At a backquote: the name up to the closing one, a doubled backquote standing for one. */
        private String quotedName() {
            StringBuilder name = new StringBuilder();
            for (i++; i < n; i++) {
                char c = s.charAt(i);
                if (c == '`') {
                    if (i + 1 < n && s.charAt(i + 1) == '`') {
                        i++;
                    } else {
                        i++;
                        return name.toString();
                    }
                }
                name.append(c);
            }
            return name.toString();
        }

        /** At a {@code $}: spaces and comments may come before the name, plain, backquoted or a number. */
        private void parameter() {
            int start = i;
            for (i++; i < n; ) {
                if (Character.isWhitespace(s.charAt(i))) {
                    i++;
                } else if (!skipComment()) {
                    break;
                }
            }
            String name = "";
            if (i < n && s.charAt(i) == '`') {
                name = quotedName();
            } else if (i < n && Character.isJavaIdentifierPart(s.charAt(i))) {
                int end = endOfName(i);
                name = s.substring(i, end);
                i = end;
            }
            out.add(new Token(Kind.PARAM, name, start, i));
        }

        /** At {@code s'} or {@code s"}: skips the text, lexes each {@code {expression}}. */
        private void interpolatedString() {
            char quote = s.charAt(i + 1);
            i += 2;
            while (i < n) {
                char c = s.charAt(i);
                if (c == '\\') {
                    i += 2;
                } else if (c == quote) {
                    i++;
                    return;
                } else if (c == '{') {
                    out.add(new Token(Kind.SYMBOL, "{", i, i + 1));
                    i++;
                    lex(true);
                } else {
                    i++;
                }
            }
        }
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
            boolean standalone = i == 0 || !isDot(ts.get(i - 1));
            if (t.kind() == Kind.WORD && t.text().equals(var) && standalone
                    && isDot(ts.get(i + 1)) && ts.get(i + 2).kind() == Kind.WORD) {
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
        ArrayDeque<String> nesting = new ArrayDeque<>();
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
            } else if (t.kind() == Kind.WORD && x.equals(var) && i + 2 < ts.size() && isDot(ts.get(i + 1))
                    && (i == 0 || !isDot(ts.get(i - 1))) && (clause.equals("MERGE") || clause.equals("MATCH"))
                    && nesting.size() >= 2 && nesting.peek().equals("{")) {
                String outer = nesting.stream().skip(1).findFirst().orElse("");
                if (outer.equals("(")) {
                    fields.add(ts.get(i + 2).text());
                }
            }
        }
        return fields;
    }

    /**
     * The statement with each standalone {@code var.field} written as the parameter {@code $field}: a template's
     * per-row Cypher as a client sends it for one row ({@code MERGE (u:User {id: row.user})} becomes
     * {@code MERGE (u:User {id: $user})}).
     */
    public static String fieldsAsParameters(String cypher, String var) {
        List<Token> ts = tokens(cypher);
        StringBuilder out = new StringBuilder(cypher.length());
        int copied = 0;
        for (int i = 0; i + 2 < ts.size(); i++) {
            Token t = ts.get(i);
            if (t.kind() == Kind.WORD && t.text().equals(var) && (i == 0 || !isDot(ts.get(i - 1)))
                    && isDot(ts.get(i + 1)) && ts.get(i + 2).kind() == Kind.WORD) {
                out.append(cypher, copied, t.start()).append('$').append(name(ts.get(i + 2).text()));
                copied = ts.get(i + 2).end();
                i += 2;
            }
        }
        return out.append(cypher, copied, cypher.length()).toString();
    }

    /**
     * The statement with each named parameter {@code $p} written as the field {@code var.p} (backquoted when
     * {@code p} is not a plain name), and nothing else changed: strings, comments and backquoted names are
     * skipped as the lexer skips them. {@code $} without a name (Cypher 25's dynamic labels, {@code :$(expr)})
     * is left as it is; the parameters inside its expression are rewritten.
     */
    public static String parametersAsFields(String cypher, String var) {
        StringBuilder out = new StringBuilder(cypher.length() + 16);
        int copied = 0;
        for (Token t : tokens(cypher)) {
            if (t.kind() == Kind.PARAM && !t.text().isEmpty()) {
                out.append(cypher, copied, t.start()).append(var).append('.').append(name(t.text()));
                copied = t.end();
            }
        }
        return out.append(cypher, copied, cypher.length()).toString();
    }

    /** Every name in the statement (plain or backquoted words), as written, e.g. to pick a variable that is new. */
    public static Set<String> names(String cypher) {
        Set<String> names = new HashSet<>();
        for (Token t : tokens(cypher)) {
            if (t.kind() == Kind.WORD) {
                names.add(t.text());
            }
        }
        return names;
    }

    /** A name as Cypher reads it back: plain when it is a plain identifier, else backquoted (a backquote doubled). */
    static String name(String n) {
        boolean plain = !n.isEmpty() && (Character.isLetter(n.charAt(0)) || n.charAt(0) == '_')
                && n.chars().allMatch(c -> c < 128 && (Character.isLetterOrDigit(c) || c == '_'));
        return plain ? n : "`" + n.replace("`", "``") + "`";
    }

    /**
     * Whether {@code cypher} is an {@code EXPLAIN} (after any {@code CYPHER} options): Neo4j plans it and runs
     * nothing, so it reads nothing, writes nothing and needs none of its parameters.
     */
    public static boolean explainOnly(String cypher) {
        List<Token> ts = tokens(cypher);
        int i = afterOptions(ts);
        return i < ts.size() && is(ts.get(i), "EXPLAIN");
    }

    /**
     * The statement without its {@code PROFILE} keyword (blanked, so positions in it stay where they were), or
     * null when it is not profiled: what to plan to know what the profiled statement does ({@code EXPLAIN PROFILE}
     * is refused).
     */
    public static String unprofiled(String cypher) {
        List<Token> ts = tokens(cypher);
        int i = afterOptions(ts);
        if (i >= ts.size() || !is(ts.get(i), "PROFILE")) {
            return null;
        }
        Token t = ts.get(i);
        return cypher.substring(0, t.start()) + " ".repeat(t.end() - t.start()) + cypher.substring(t.end());
    }

    /** The index of the first token after a leading {@code CYPHER [version] (option = value)*}. */
    private static int afterOptions(List<Token> ts) {
        int i = 0;
        if (!ts.isEmpty() && is(ts.getFirst(), "CYPHER")) { // CYPHER [version] (option = value)*
            i = 1;
            if (i < ts.size() && ts.get(i).kind() == Kind.NUMBER) {
                i++;
            }
            while (i + 1 < ts.size() && ts.get(i).kind() == Kind.WORD && ts.get(i + 1).kind() == Kind.SYMBOL
                    && ts.get(i + 1).text().equals("=")) {
                i += 2;
                if (i < ts.size() && (ts.get(i).kind() == Kind.WORD || ts.get(i).kind() == Kind.NUMBER)) {
                    i++; // a quoted value is no token
                }
            }
        }
        return i;
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

    private static boolean isDot(Token t) {
        return t.kind() == Kind.SYMBOL && t.text().equals(".");
    }

    private static boolean is(Token t, String word) {
        return t.kind() == Kind.WORD && t.text().toUpperCase(Locale.ROOT).equals(word);
    }
}
