package io.sluice.bench;

import io.sluice.config.TemplateConfig;
import io.sluice.cypher.CypherText;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongFunction;

/**
 * A benchmark scenario: a write template (the per-row Cypher and its key), the schema it runs against, and how
 * its rows are made. The template is registered under the scenario's name, so an HTTP write goes to
 * {@code /db/neo4j/write/{name}}.
 *
 * @param name    the scenario and template name
 * @param cypher  the per-row Cypher (sluice runs it as {@code UNWIND $rows AS row ...})
 * @param key     the template's key fields (empty: no per-key order)
 * @param schema  schema statements run before the load (idempotent)
 * @param rows    makes the rows of one run from a seed; a new {@link Workload} for each fresh database
 * @param stored  what the rows leave in the database, counted after a run
 */
public record Scenario(String name, String cypher, List<String> key, List<String> schema,
        LongFunction<Workload> rows, Stored stored) {

    /**
     * A statement returning one count of what the rows wrote; {@code exact}: one row leaves exactly one of what it
     * counts (CREATE of unique ids), so after a run it must equal the rows acknowledged, no more, no fewer. Not
     * exact: MERGE, where rows that repeat leave one.
     */
    public record Stored(String cypher, boolean exact) {}

    private static final Stored ID_NODES = new Stored("MATCH (n) WHERE n.id IS NOT NULL RETURN count(n)", true);

    /** The rows of one run. Thread-safe; each {@link RowSource} it hands out is used by one thread. */
    @FunctionalInterface
    public interface Workload {
        /** The rows of stream {@code i} (a client, or the raw loop). */
        RowSource stream(int i);
    }

    /** An endless source of rows. Not thread-safe. */
    @FunctionalInterface
    public interface RowSource {
        Map<String, Object> next();
    }

    static final int VISITED_USERS = 100_000;
    static final int VISITED_SITES = 10_000;

    private static final Map<String, Scenario> ALL = new LinkedHashMap<>();

    static {
        register(new Scenario("create-node", "CREATE ({id: row.id})", List.of(), List.of(), Scenario::uniqueIds,
                ID_NODES));
        register(new Scenario("create-labeled", "CREATE (:Person {id: row.id})", List.of(), List.of(),
                Scenario::uniqueIds, ID_NODES));
        register(new Scenario("create-indexed", "CREATE (:Person {id: row.id})", List.of(),
                List.of("CREATE INDEX person_id IF NOT EXISTS FOR (p:Person) ON (p.id)"), Scenario::uniqueIds,
                ID_NODES));
        register(new Scenario("visited",
                "MERGE (u:User {id: row.user}) MERGE (s:Site {url: row.url}) MERGE (u)-[:VISITED]->(s)",
                List.of("user"),
                List.of("CREATE CONSTRAINT user_id IF NOT EXISTS FOR (u:User) REQUIRE u.id IS UNIQUE",
                        "CREATE CONSTRAINT site_url IF NOT EXISTS FOR (s:Site) REQUIRE s.url IS UNIQUE"),
                Scenario::visits, new Stored("MATCH (:User)-[r:VISITED]->(:Site) RETURN count(r)", false)));
    }

    public Scenario {
        key = List.copyOf(key);
        schema = List.copyOf(schema);
    }

    private static void register(Scenario s) {
        ALL.put(s.name(), s);
    }

    /** The scenario called {@code name}; unknown names are an error that lists the known ones. */
    public static Scenario named(String name) {
        Scenario s = ALL.get(name);
        if (s == null) {
            throw new IllegalArgumentException("unknown scenario '" + name + "'; known: " + String.join(", ", names()));
        }
        return s;
    }

    public static List<String> names() {
        return List.copyOf(ALL.keySet());
    }

    /**
     * The per-row Cypher as a client sends it for one row, with parameters where the template reads the row
     * ({@code row.user} becomes {@code $user}): the statement of the raw APIs ({@link BenchApi}).
     */
    public String rawCypher() {
        return CypherText.fieldsAsParameters(cypher, "row");
    }

    /** The template sluice serves for this scenario. */
    public TemplateConfig template() {
        return new TemplateConfig(cypher, key, Map.of());
    }

    public Workload workload(long seed) {
        return rows.apply(seed);
    }

    /** {@code {id}} unique across all streams of a run: one counter shared by every client. */
    private static Workload uniqueIds(long seed) {
        AtomicLong next = new AtomicLong();
        return i -> () -> Map.of("id", next.getAndIncrement());
    }

    /** {@code {user, url}}: user uniform in [0, 100000), url "https://site/" + uniform in [0, 10000). */
    private static Workload visits(long seed) {
        return i -> {
            // one generator per stream, derived from the seed and the stream number: reproducible and unshared
            SplittableRandom random = new SplittableRandom(seed * 0x9E3779B97F4A7C15L + i);
            return () -> Map.of("user", (long) random.nextInt(VISITED_USERS),
                    "url", "https://site/" + random.nextInt(VISITED_SITES));
        };
    }
}
