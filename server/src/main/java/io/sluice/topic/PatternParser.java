package io.sluice.topic;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * The Neo4j Kafka Connector's pattern language (its {@code PatternLexer.g4}, {@code PatternParser.g4} and the
 * checks of {@code Visitors.kt}), by recursive descent. A pattern is a node or a relationship between two nodes,
 * written the Cypher way or the simple way:
 *
 * <pre>
 * pattern   := cypher | simple                                  then the end of the text
 * cypher    := cnode (arrow cnode)?
 * cnode     := '(' labels? selection ')'
 * arrow     := '&lt;'? line ('[' ':' name selection? ']')? line '&gt;'?     one head, and a type
 * simple    := snode (name selection? snode)?                    always from the first to the second
 * snode     := name labels? selection
 * labels    := (':' name)+
 * selection := '{' selector? (',' selector)* '}'
 * selector  := '*' | '+'? alias | '-' name | '!' alias             all, include, exclude, key
 * alias     := name (':' name)?                                   target ':' source path
 * name      := identifier | '`' ('``' | not '`')* '`'
 * </pre>
 *
 * An identifier starts with a letter or {@code _} and goes on with letters, digits, {@code _ $ .} (a source path
 * such as {@code __value.address.city} is one name); {@code true false inf infinity nan null} in any case are the
 * grammar's keywords, names only when quoted.
 */
final class PatternParser {
    /** A property {@code to} set from the record's {@code from} path. */
    record Mapping(String from, String to) {}

    /** A selection: every value field ({@code all}), the keys, the explicit inclusions, the exclusions. */
    record Selection(boolean all, List<Mapping> keys, List<Mapping> includes, List<String> excludes) {
        static final Selection NONE = new Selection(false, List.of(), List.of(), List.of());

        Selection implicitAll() {
            return includes.isEmpty() ? new Selection(true, keys, includes, excludes) : this;
        }
    }

    sealed interface Pattern permits NodePattern, RelationshipPattern {}

    record NodePattern(List<String> labels, Selection selection) implements Pattern {}

    record RelationshipPattern(String type, NodePattern start, NodePattern end, Selection selection)
            implements Pattern {}

    private enum Kind { NAME, SYMBOL, LINE, END }

    private record Token(Kind kind, String text, int at) {}

    private static final Set<String> KEYWORDS = Set.of("true", "false", "inf", "infinity", "nan", "null");
    private static final String SPACES = "\t\n\u000B\f\r\u001C\u001D\u001E\u001F \u00A0\u1680\u2028\u2029\u202F"
            + "\u205F\u3000";
    private static final String LINES = "\u00AD\u2010\u2011\u2012\u2013\u2014\u2015\uFE58\uFE63\uFF0D";
    private static final String LEFT_HEADS = "<\u27E8\u3008\uFE64\uFF1C";
    private static final String RIGHT_HEADS = ">\u27E9\u3009\uFE65\uFF1E";

    private final String text;
    private final List<Token> tokens;
    private int pos;
    private boolean undirected;

    private PatternParser(String text) {
        this.text = text;
        this.tokens = lex();
    }

    /** The pattern, or an IllegalArgumentException with the connector's message for what is wrong with it. */
    static Pattern parse(String text) {
        PatternParser parser = new PatternParser(text);
        Pattern raw = parser.at("(") ? parser.cypher() : parser.simple();
        if (parser.peek().kind != Kind.END) {
            throw parser.expected("the end of the pattern");
        }
        return switch (raw) {
            case NodePattern n -> new NodePattern(n.labels, keyed(exclusive(n)).selection.implicitAll());
            case RelationshipPattern r -> relationship(r, parser.undirected);
        };
    }

    /** The connector's checks of a relationship pattern, in its order (Visitors.visitCypherPattern). */
    private static RelationshipPattern relationship(RelationshipPattern r, boolean undirected) {
        if (undirected) {
            throw new IllegalArgumentException("Direction of relationship pattern must be explicitly set.");
        }
        exclusive(r.selection);
        NodePattern start = keyed(exclusive(r.start));
        NodePattern end = keyed(exclusive(r.end));
        explicitOnly(start);
        explicitOnly(end);
        if (r.type == null) {
            throw new IllegalArgumentException("A relationship pattern must name its type, as in"
                    + " (:A{!id})-[:TYPE]->(:B{!id}).");
        }
        if (start.labels.isEmpty() || end.labels.isEmpty()) {
            throw new IllegalArgumentException("Start and end node patterns must have a label.");
        }
        return new RelationshipPattern(r.type, start, end, r.selection.implicitAll());
    }

    private static NodePattern exclusive(NodePattern n) {
        exclusive(n.selection);
        return n;
    }

    private static void exclusive(Selection s) {
        if (!s.includes.isEmpty() && !s.excludes.isEmpty() && !s.all) {
            throw new IllegalArgumentException("Property inclusions and exclusions are mutually exclusive.");
        }
    }

    private static NodePattern keyed(NodePattern n) {
        if (n.selection.keys.isEmpty()) {
            throw new IllegalArgumentException("At least one key selector must be specified in node patterns.");
        }
        return n;
    }

    private static void explicitOnly(NodePattern n) {
        if (!n.selection.excludes.isEmpty()) {
            throw new IllegalArgumentException("Property exclusions are not allowed on start and end node patterns.");
        }
        if (n.selection.all) {
            throw new IllegalArgumentException(
                    "Wildcard property inclusion is not allowed on start and end node patterns.");
        }
    }

    private Pattern cypher() {
        NodePattern first = cypherNode();
        if (peek().kind == Kind.END) {
            return first;
        }
        boolean left = accept("<");
        line();
        String type = null;
        Selection selection = Selection.NONE;
        if (accept("[")) {
            expect(":");
            type = name();
            if (at("{")) {
                selection = selection();
            }
            expect("]");
        }
        line();
        boolean right = accept(">");
        NodePattern second = cypherNode();
        undirected = left == right;
        return right ? new RelationshipPattern(type, first, second, selection)
                : new RelationshipPattern(type, second, first, selection);
    }

    private NodePattern cypherNode() {
        expect("(");
        List<String> labels = labels();
        Selection selection = selection();
        expect(")");
        return new NodePattern(labels, selection);
    }

    private Pattern simple() {
        NodePattern start = simpleNode();
        if (peek().kind == Kind.END) {
            return start;
        }
        String type = name();
        Selection selection = at("{") ? selection() : Selection.NONE;
        return new RelationshipPattern(type, start, simpleNode(), selection);
    }

    private NodePattern simpleNode() {
        List<String> labels = new ArrayList<>();
        labels.add(name());
        labels.addAll(labels());
        return new NodePattern(List.copyOf(new LinkedHashSet<>(labels)), selection());
    }

    private List<String> labels() {
        Set<String> labels = new LinkedHashSet<>();
        while (accept(":")) {
            labels.add(name());
        }
        return List.copyOf(labels);
    }

    private Selection selection() {
        expect("{");
        boolean all = false;
        Set<Mapping> keys = new LinkedHashSet<>();
        Set<Mapping> includes = new LinkedHashSet<>();
        Set<String> excludes = new LinkedHashSet<>();
        if (!at(",") && !at("}")) {
            all = selector(keys, includes, excludes);
        }
        while (accept(",")) {
            all |= selector(keys, includes, excludes);
        }
        expect("}");
        return new Selection(all, List.copyOf(keys), List.copyOf(includes), List.copyOf(excludes));
    }

    /** One selector into its set; true for the wildcard. */
    private boolean selector(Set<Mapping> keys, Set<Mapping> includes, Set<String> excludes) {
        if (accept("*")) {
            return true;
        }
        if (accept("-")) {
            excludes.add(name());
        } else if (accept("!")) {
            keys.add(alias());
        } else {
            accept("+");
            includes.add(alias());
        }
        return false;
    }

    private Mapping alias() {
        String name = name();
        return accept(":") ? new Mapping(name(), name) : new Mapping(name, name);
    }

    private void line() {
        if (peek().kind != Kind.LINE && !at("-")) {
            throw expected("'-'");
        }
        pos++;
    }

    private String name() {
        Token t = peek();
        if (t.kind != Kind.NAME) {
            throw expected("a name");
        }
        pos++;
        return t.text;
    }

    private Token peek() {
        return tokens.get(pos);
    }

    private boolean at(String symbol) {
        return peek().kind == Kind.SYMBOL && peek().text.equals(symbol);
    }

    private boolean accept(String symbol) {
        if (at(symbol)) {
            pos++;
            return true;
        }
        return false;
    }

    private void expect(String symbol) {
        if (!accept(symbol)) {
            throw expected("'" + symbol + "'");
        }
    }

    private IllegalArgumentException expected(String what) {
        Token t = peek();
        return invalid(t.at, "expected " + what + " but found "
                + (t.kind == Kind.END ? t.text : t.kind == Kind.NAME ? "name '" + t.text + "'" : "'" + t.text + "'"));
    }

    /** The connector's syntax error form: {@code Invalid pattern: line L:C, what.} (column from 0, as ANTLR's). */
    private IllegalArgumentException invalid(int at, String what) {
        int line = 1;
        int lineStart = 0;
        for (int i = 0; i < at; i++) {
            if (text.charAt(i) == '\n') {
                line++;
                lineStart = i + 1;
            }
        }
        return new IllegalArgumentException("Invalid pattern: line " + line + ":" + (at - lineStart) + ", " + what
                + ".");
    }

    private List<Token> lex() {
        List<Token> out = new ArrayList<>();
        int i = 0;
        while (i < text.length()) {
            int c = text.codePointAt(i);
            int at = i;
            i += Character.charCount(c);
            if (SPACES.indexOf(c) >= 0 || c >= '\u2000' && c <= '\u200A') {
                continue;
            }
            if (c == '`') {
                i = quoted(at, out);
            } else if (c == '_' || Character.isUnicodeIdentifierStart(c)) {
                while (i < text.length() && identifierPart(text.codePointAt(i))) {
                    i += Character.charCount(text.codePointAt(i));
                }
                String name = text.substring(at, i);
                if (KEYWORDS.contains(name.toLowerCase(Locale.ROOT))) {
                    throw invalid(at, "'" + name + "' is a keyword; quote it to use it as a name: `" + name + "`");
                }
                out.add(new Token(Kind.NAME, name, at));
            } else if ("()[]{}:,!*+-".indexOf(c) >= 0) {
                out.add(new Token(Kind.SYMBOL, Character.toString(c), at));
            } else if (LEFT_HEADS.indexOf(c) >= 0 || RIGHT_HEADS.indexOf(c) >= 0) {
                out.add(new Token(Kind.SYMBOL, LEFT_HEADS.indexOf(c) >= 0 ? "<" : ">", at));
            } else if (LINES.indexOf(c) >= 0) {
                out.add(new Token(Kind.LINE, Character.toString(c), at));
            } else {
                throw invalid(at, "unexpected '" + Character.toString(c) + "'");
            }
        }
        out.add(new Token(Kind.END, "the end of the pattern", text.length()));
        return out;
    }

    /** A name in backticks from {@code at}, a doubled backtick standing for one; returns where it ends. */
    private int quoted(int at, List<Token> out) {
        StringBuilder name = new StringBuilder();
        int i = at + 1;
        while (true) {
            if (i >= text.length()) {
                throw invalid(at, "a quoted name is not closed with '`'");
            }
            char c = text.charAt(i++);
            if (c != '`') {
                name.append(c);
            } else if (i < text.length() && text.charAt(i) == '`') {
                name.append('`');
                i++;
            } else {
                break;
            }
        }
        if (name.isEmpty()) {
            throw invalid(at, "a name is empty");
        }
        out.add(new Token(Kind.NAME, name.toString(), at));
        return i;
    }

    private static boolean identifierPart(int c) {
        return c == '$' || c == '.' || Character.isUnicodeIdentifierPart(c)
                || Character.getType(c) == Character.CURRENCY_SYMBOL;
    }
}
