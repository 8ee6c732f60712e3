package io.sluice.source;

import io.sluice.topic.Strategy;
import io.sluice.cdc.DebeziumMapping;
import io.sluice.config.Debezium;
import io.sluice.config.Sources;
import io.sluice.sink.Sink;
import io.sluice.vocab.GraphException;
import io.sluice.vocab.StatementResult;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The sources' mappings checked against the database before anything is consumed: each statement a strategy may
 * run is planned ({@code EXPLAIN}, in a transaction that runs nothing and is rolled back), and each node key a
 * strategy MERGEs on is looked for among the uniqueness and key constraints. A statement that does not plan is an
 * error (every record would fail on it: the dead letters would fill with a mapping's mistake); a key without a
 * constraint a warning (MERGE on it scans the label and can duplicate nodes under concurrency). At every start,
 * errors refuse the start; {@code serve --dry-run} prints both and exits.
 */
public final class SourceChecks {
    private SourceChecks() {}

    /** What the checks found. */
    public record Report(List<String> errors, List<String> warnings, int checked) {
        public Report {
            errors = List.copyOf(errors);
            warnings = List.copyOf(warnings);
        }

        /** For {@code --dry-run}: a line per finding, and a summary. */
        public String describe() {
            StringBuilder b = new StringBuilder();
            errors.forEach(e -> b.append("error: ").append(e).append('\n'));
            warnings.forEach(w -> b.append("warning: ").append(w).append('\n'));
            b.append(checked).append(" statement").append(checked == 1 ? "" : "s").append(" checked: ")
                    .append(errors.size()).append(" error").append(errors.size() == 1 ? "" : "s").append(", ")
                    .append(warnings.size()).append(" warning").append(warnings.size() == 1 ? "" : "s");
            return b.toString();
        }
    }

    /**
     * Checks every topic entry's strategy (a regex entry's is made for the regex itself: its statements do not
     * depend on the topic's name).
     */
    public static Report run(Sources.KafkaSource config, Sink sink) throws GraphException {
        List<String> errors = new ArrayList<>();
        Set<String> warnings = new java.util.LinkedHashSet<>(); // one per key, not per statement
        Set<List<Object>> constraints = constraints(sink);
        List<Strategy> strategies = new ArrayList<>();
        for (Sources.Topic t : config.topics()) {
            try {
                strategies.add(SourceTopic.of(t.topic() != null ? t.topic() : t.regex(), t).strategy());
            } catch (IllegalArgumentException e) {
                errors.add("topic " + t.name() + ": " + e.getMessage());
            }
        }
        for (Debezium d : config.debezium()) {
            strategies.add(new DebeziumMapping(d)); // its constraints are created at start: missing ones are said
        }
        int checked = 0;
        for (Strategy s : strategies) {
            for (Strategy.Check c : s.checks()) {
                checked++;
                String problem = plans(sink, c.statement());
                if (problem != null) {
                    errors.add(c.what() + ": the statement does not compile: " + problem);
                }
                for (Strategy.NodeKey k : c.uniqueKeys()) {
                    if (!constraints.contains(List.of(k.label(), Set.copyOf(k.properties())))) {
                        // a Debezium mapping's keys are said once for the connector, not for each statement
                        String who = s instanceof DebeziumMapping d ? "debezium " + d.config().prefix() : c.what();
                        warnings.add(who + ": no uniqueness or key constraint on :" + k.label() + " "
                                + k.properties() + " (MERGE on it scans the label and may duplicate nodes under"
                                + " concurrency): " + (s instanceof DebeziumMapping ? "created at start: " : "")
                                + "CREATE CONSTRAINT FOR (n:`" + k.label() + "`) REQUIRE ("
                                + String.join(", ", k.properties().stream().map(p -> "n.`" + p + "`").toList())
                                + ") IS UNIQUE");
                    }
                }
            }
        }
        return new Report(errors, List.copyOf(warnings), checked);
    }

    /** Null when {@code statement} plans, else Neo4j's message. */
    private static String plans(Sink sink, String statement) {
        try {
            sink.inReadTransaction(tx -> tx.run("EXPLAIN " + statement, Map.of()));
            return null;
        } catch (GraphException e) {
            return e.error().code() + ": " + e.error().message();
        }
    }

    /** Each node uniqueness or key constraint as (label, set of properties). */
    private static Set<List<Object>> constraints(Sink sink) throws GraphException {
        StatementResult r = sink.inReadTransaction(tx -> tx.run("SHOW CONSTRAINTS YIELD type, entityType,"
                + " labelsOrTypes, properties WHERE entityType = 'NODE' AND (type CONTAINS 'UNIQUENESS'"
                + " OR type CONTAINS 'KEY') RETURN labelsOrTypes, properties", Map.of()));
        Set<List<Object>> out = new HashSet<>();
        for (List<Object> row : r.rows()) {
            for (Object label : (List<?>) row.get(0)) {
                out.add(List.of(label, Set.copyOf((List<?>) row.get(1))));
            }
        }
        return out;
    }
}
