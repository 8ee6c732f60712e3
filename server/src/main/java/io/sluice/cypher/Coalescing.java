package io.sluice.cypher;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import io.sluice.vocab.QueryKind;
import io.sluice.sink.Sink;
import io.sluice.vocab.GraphException;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;

/**
 * Raw Cypher coalesced as templates are: requests that each run the same one statement with their own parameters
 * run as one {@code UNWIND $rows AS v CALL (v) { <the statement, each $p written v.p> }}, their parameter maps as
 * the rows, in their order. This class makes that form for a statement text, checks it and caches it.
 *
 * <h2>Why the form is the statement run once per request, in order</h2>
 * <ul>
 *   <li>A {@code CALL} subquery runs once for each incoming row, in the rows' order, and each run sees what the
 *       runs before it wrote (Cypher manual, "CALL subqueries", Semantics). Inside it the statement keeps its own
 *       scope: its aggregations, {@code DISTINCT}, {@code ORDER BY} and {@code LIMIT} apply per run, as they did
 *       per statement.</li>
 *   <li>{@code $p} and {@code v.p} are the same value ({@code v} is the request's own parameter map; the write
 *       path has checked every parameter the statement names is in it). Only parameters are rewritten, found by
 *       {@link CypherText}'s lexer, which skips strings, comments and backquoted names; {@code v} is a name the
 *       statement does not use.</li>
 *   <li>Neo4j checks the rest: the form must plan (EXPLAIN) as a write and name no parameter but
 *       {@code $rows}. Where a parameter may not become an expression ({@code LIMIT $n}, {@code CREATE (n $map)}),
 *       where a statement may not stand in a subquery ({@code USE}, {@code CYPHER} options, {@code EXPLAIN},
 *       schema), and where it returns anything (a subquery ending in {@code RETURN} cannot end a query; a call
 *       of a procedure that returns records, without {@code YIELD}, cannot stand in one), the form does not
 *       plan, and the statement runs as it is ({@code CoalescingTest} has {@code RETURN} and {@code LIMIT $n}).</li>
 *   <li>The statement clock is per statement: {@code datetime()} and its kin (no argument, or an argument only
 *       the value tells: a map may hold only a time zone) and {@code *.statement()} would give every coalesced
 *       request the same instant where statements run one after the other get increasing ones. A statement
 *       calling them is not coalesced ({@code .transaction()} and {@code .realtime()} are the same either way).</li>
 * </ul>
 * What the form cannot give is each request's own result: the caller coalesces only requests whose client needs
 * none (a statement without {@code RETURN}, no update counters asked for; or async mode, where results are
 * dropped). A failing coalesced batch is bisected by the batch runner down to single requests, which run as
 * they are, so a bad request still fails alone with its own statement's error.
 *
 * <p>Thread-safe. Forms, and the statements that have none, are cached per statement text (bounded); a check
 * that failed for a reason other than the statement (the database unavailable) is not cached.
 */
public final class Coalescing {
    /** The form's one parameter: the requests' parameter maps, in order. */
    public static final String ROWS = "rows";

    private static final String VARIABLE = "sluice_row";
    /** Temporal functions whose call without a date (or with a map) is the statement clock. */
    private static final Set<String> CLOCKS = Set.of("datetime", "date", "time", "localtime", "localdatetime",
            "timestamp");

    private final Sink sink;
    private final Cache<String, Optional<String>> forms;

    public Coalescing(Sink sink, long maxEntries) {
        this.sink = sink;
        this.forms = Caffeine.newBuilder().maximumSize(maxEntries).build();
    }

    /** The coalesced form of {@code statement}, planned once by Neo4j; empty when it has none. */
    public Optional<String> form(String statement) {
        Optional<String> f = forms.getIfPresent(statement);
        if (f != null) {
            return f;
        }
        f = rewrite(statement);
        if (f.isPresent()) {
            try {
                if (sink.classify(f.get()) != QueryKind.WRITE) {
                    f = Optional.empty();
                }
            } catch (GraphException e) {
                if (!e.error().isClientError()) {
                    return Optional.empty(); // not the statement's fault: ask again next time
                }
                f = Optional.empty();
            }
        }
        forms.put(statement, f);
        return f;
    }

    /** The form's text, before Neo4j has seen it: empty for a statement that reads the statement clock. */
    static Optional<String> rewrite(String statement) {
        List<CypherText.Token> ts = CypherText.tokens(statement);
        if (readsStatementClock(ts)) {
            return Optional.empty();
        }
        Set<String> names = CypherText.names(statement);
        String v = VARIABLE;
        for (int i = 2; names.contains(v); i++) {
            v = VARIABLE + i;
        }
        String form = "UNWIND $" + ROWS + " AS " + v + " CALL (" + v + ") {\n"
                + CypherText.parametersAsFields(statement, v) + "\n}";
        if (!CypherText.parameters(form).equals(Set.of(ROWS))) {
            return Optional.empty(); // a parameter the lexer did not rewrite: nothing to coalesce it with
        }
        return Optional.of(form);
    }

    private static boolean readsStatementClock(List<CypherText.Token> ts) {
        for (int i = 0; i + 1 < ts.size(); i++) {
            CypherText.Token t = ts.get(i);
            if (t.kind() != CypherText.Kind.WORD || !CLOCKS.contains(t.text().toLowerCase(Locale.ROOT))) {
                continue;
            }
            CypherText.Token next = ts.get(i + 1);
            if (next.kind() == CypherText.Kind.SYMBOL && next.text().equals("(")) {
                return true; // datetime(...): the clock unless its argument has a date, which only its value tells
            }
            if (next.kind() == CypherText.Kind.SYMBOL && next.text().equals(".") && i + 2 < ts.size()
                    && ts.get(i + 2).text().equalsIgnoreCase("statement")) {
                return true;
            }
        }
        return false;
    }
}
