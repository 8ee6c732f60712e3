package io.sluice.cypher;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import io.sluice.vocab.Neo4jError;
import io.sluice.vocab.QueryKind;
import io.sluice.vocab.Summary;
import io.sluice.sink.Sink;
import io.sluice.vocab.GraphException;
import java.util.Set;

/**
 * Classifies statements by the plan Neo4j makes for them (EXPLAIN), cached per statement text: read-only
 * statements are not batched, schema and {@code CALL {} IN TRANSACTIONS} run alone, the rest is batched; an
 * {@code EXPLAIN} is a read that needs no parameters (Neo4j plans it and runs nothing).
 * A syntax error is cached too, so a client repeating a bad statement costs one plan. Thread-safe.
 */
public final class StatementClassifier {

    /** What sluice knows about a statement text before running it. */
    public sealed interface Classified {
        /** {@code notices}: the notifications Neo4j's plan of it raised, its own when it runs coalesced with others. */
        record Ok(QueryKind kind, Set<String> parameters, Summary notices) implements Classified {}

        record Invalid(Neo4jError error) implements Classified {}
    }

    private final Sink sink;
    private final Cache<String, Classified> cache;

    public StatementClassifier(Sink sink, long maxEntries) {
        this.sink = sink;
        this.cache = Caffeine.newBuilder().maximumSize(maxEntries).build();
    }

    public Classified classify(String cypher) {
        Classified c = cache.getIfPresent(cypher);
        if (c != null) {
            return c;
        }
        try {
            if (CypherText.explainOnly(cypher)) {
                // planned, never run: a read that needs no parameter, as Neo4j takes it (a client such as the Spark
                // connector EXPLAINs a statement without its parameters to learn its columns)
                c = new Classified.Ok(QueryKind.READ, Set.of(), Summary.NONE);
                cache.put(cypher, c);
                return c;
            }
            // CALL {} IN TRANSACTIONS cannot run in an explicit transaction, so it is not planned in one either
            // a PROFILE runs the statement: it is what the statement is (EXPLAIN PROFILE is refused, so plan it bare)
            String planned = CypherText.unprofiled(cypher);
            Sink.Planned plan = CypherText.runsInTransactions(cypher) ? new Sink.Planned(QueryKind.ALONE, Summary.NONE)
                    : sink.planned(planned != null ? planned : cypher);
            c = new Classified.Ok(plan.kind(), CypherText.parameters(cypher), planned != null ? Summary.NONE
                    : plan.notices());
        } catch (GraphException e) {
            if (!e.error().isClientError()) {
                // the database is unavailable or similar: do not cache, let the caller report it
                return new Classified.Invalid(e.error());
            }
            c = new Classified.Invalid(e.error());
        }
        cache.put(cypher, c);
        return c;
    }
}
