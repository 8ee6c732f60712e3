package io.sluice.cdc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sluice.config.ConfigLoader;
import io.sluice.config.Debezium;
import io.sluice.sink.Sink;
import io.sluice.support.TestNeo4j;
import io.sluice.topic.Strategy;
import io.sluice.vocab.GraphException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@link DebeziumMapping} against an embedded Neo4j: rows of tables as nodes with their keys, foreign keys as
 * relationships (merged before the referenced row arrives, moved when they change, gone when NULL), join tables as
 * relationships, deletes (removed or marked), key changes, Debezium's TOAST placeholder, truncates, and the
 * constraints the lookups rest on.
 */
@Timeout(120)
class DebeziumMappingTest {
    static TestNeo4j neo4j;
    static Sink sink;

    static final String YAML = """
            sources:
              kafka:
                bootstrap: 127.0.0.1:9
                debezium:
                  - prefix: shop
                    deletes: DELETES
                    tables:
                      public.customers:
                        label: Customer
                        rename: {name: fullName}
                        drop: [secret]
                      public.products:
                        label: Product
                        key: [sku]
                      public.orders:
                        label: Order
                        relationships:
                          - column: customer_id
                            to: public.customers
                            type: PLACED
                            direction: in
                      public.order_lines:
                        join:
                          from: {column: order_id, table: public.orders}
                          to: {column: sku, table: public.products}
                          type: CONTAINS
                        key: [order_id, line_no]
            """;

    static DebeziumMapping mapping(String deletes) throws Exception {
        Debezium d = ConfigLoader.parse(YAML.replace("DELETES", deletes)).sources().kafka().debezium().getFirst();
        return new DebeziumMapping(d);
    }

    @BeforeAll
    static void start() throws Exception {
        neo4j = TestNeo4j.start("debezium-mapping");
        sink = neo4j.sink();
        for (String s : mapping("remove").schema()) {
            sink.inTransaction(tx -> {
                tx.runDiscarding(s, Map.of());
                return null;
            });
        }
    }

    @AfterAll
    static void stop() {
        if (neo4j != null) {
            neo4j.close();
        }
    }

    @BeforeEach
    void empty() throws GraphException {
        sink.inTransaction(tx -> {
            tx.runDiscarding("MATCH (n) DETACH DELETE n", Map.of());
            return null;
        });
    }

    static Map<String, Object> row(Object... kv) {
        Map<String, Object> m = new LinkedHashMap<>();
        for (int i = 0; i < kv.length; i += 2) {
            m.put((String) kv[i], kv[i + 1]);
        }
        return m;
    }

    static ChangeEvent upsert(String table, Map<String, Object> after) {
        return new ChangeEvent(table, ChangeEvent.Op.CREATE, null, after, null, 0, null);
    }

    static ChangeEvent delete(String table, Map<String, Object> before) {
        return new ChangeEvent(table, ChangeEvent.Op.DELETE, before, null, null, 0, null);
    }

    static void apply(List<Strategy.Op> ops) throws GraphException {
        sink.inTransaction(tx -> {
            for (Strategy.Op op : ops) {
                tx.runDiscarding(op.template().unwindCypher(), Map.of("rows", List.of(op.row())));
            }
            return null;
        });
    }

    static void apply(DebeziumMapping m, ChangeEvent... events) throws Exception {
        List<Strategy.Op> ops = new ArrayList<>();
        for (ChangeEvent e : events) {
            ops.addAll(m.ops(e));
        }
        apply(ops);
    }

    static List<Map<String, Object>> query(String cypher) throws GraphException {
        var r = sink.inReadTransaction(tx -> tx.run(cypher, Map.of()));
        List<Map<String, Object>> out = new ArrayList<>();
        for (List<Object> values : r.rows()) {
            Map<String, Object> m = new HashMap<>();
            for (int i = 0; i < r.columns().size(); i++) {
                m.put(r.columns().get(i), values.get(i));
            }
            out.add(m);
        }
        return out;
    }

    @Test
    void rowsAreNodesWithTheirKeysAndForeignKeysRelationshipsWhateverTheOrderTheTablesArrive() throws Exception {
        DebeziumMapping m = mapping("remove");
        // the order and its line arrive before the customer and the product they refer to
        apply(m, upsert("public.orders", row("id", 10L, "customer_id", 1L, "total", "9.50")),
                upsert("public.order_lines", row("order_id", 10L, "line_no", 1L, "sku", "A-1", "qty", 2L)));
        assertThat(query("MATCH (c:Customer)-[:PLACED]->(o:Order) RETURN c.id AS c, o.id AS o, o.total AS t,"
                + " o.customer_id AS fk")).containsExactly(row("c", 1L, "o", 10L, "t", "9.50", "fk", null));
        apply(m, upsert("public.customers", row("id", 1L, "name", "Ada", "secret", "x")),
                upsert("public.products", row("sku", "A-1", "title", "Lamp")));
        assertThat(query("MATCH (c:Customer) RETURN properties(c) AS p"))
                .containsExactly(row("p", row("id", 1L, "fullName", "Ada")));
        assertThat(query("MATCH (o:Order)-[r:CONTAINS]->(p:Product) RETURN properties(r) AS r, p.title AS t"))
                .containsExactly(row("r", row("order_id", 10L, "line_no", 1L, "qty", 2L), "t", "Lamp"));
        assertThat(query("MATCH (n) RETURN count(n) AS n")).containsExactly(row("n", 3L));
    }

    @Test
    void aChangedForeignKeyMovesTheRelationshipAndANullOneRemovesIt() throws Exception {
        DebeziumMapping m = mapping("remove");
        apply(m, upsert("public.orders", row("id", 10L, "customer_id", 1L)));
        apply(m, upsert("public.orders", row("id", 10L, "customer_id", 2L)));
        assertThat(query("MATCH (c:Customer)-[:PLACED]->(o:Order) RETURN c.id AS c"))
                .containsExactly(row("c", 2L));
        apply(m, upsert("public.orders", row("id", 10L, "customer_id", null)));
        assertThat(query("MATCH ()-[r:PLACED]->() RETURN count(r) AS n")).containsExactly(row("n", 0L));
        // a line moved to another product: the relationship moves (its key is the line's)
        apply(m, upsert("public.order_lines", row("order_id", 10L, "line_no", 1L, "sku", "A", "qty", 1L)));
        apply(m, upsert("public.order_lines", row("order_id", 10L, "line_no", 1L, "sku", "B", "qty", 3L)));
        assertThat(query("MATCH (:Order)-[r:CONTAINS]->(p:Product) RETURN p.sku AS p, r.qty AS q"))
                .containsExactly(row("p", "B", "q", 3L));
    }

    /** Several changes of one row in one batch run as one UNWIND: each row's statement whole, in order. */
    static void applyAsOneStatement(List<Strategy.Op> ops) throws GraphException {
        sink.inTransaction(tx -> {
            tx.runDiscarding(ops.getFirst().template().unwindCypher(), Map.of("rows",
                    ops.stream().map(Strategy.Op::row).toList()));
            return null;
        });
    }

    @Test
    void twoChangesOfOneRowInOneUnwindEndInTheLastOnesState() throws Exception {
        DebeziumMapping m = mapping("remove");
        apply(m, upsert("public.orders", row("id", 10L, "customer_id", 1L)));
        List<Strategy.Op> ops = new ArrayList<>();
        ops.addAll(m.ops(upsert("public.orders", row("id", 10L, "customer_id", 2L))));
        ops.addAll(m.ops(upsert("public.orders", row("id", 10L, "customer_id", 3L))));
        applyAsOneStatement(ops);
        assertThat(query("MATCH (c:Customer)-[:PLACED]->(o:Order) RETURN c.id AS c")).containsExactly(row("c", 3L));
        ops.clear();
        ops.addAll(m.ops(upsert("public.orders", row("id", 10L, "customer_id", 4L))));
        ops.addAll(m.ops(upsert("public.orders", row("id", 10L, "customer_id", null))));
        applyAsOneStatement(ops);
        assertThat(query("MATCH ()-[r:PLACED]->() RETURN count(r) AS n")).containsExactly(row("n", 0L));
        // a join row moved twice in one statement: one relationship, at its last ends (its key is unique)
        ops.clear();
        ops.addAll(m.ops(upsert("public.order_lines", row("order_id", 10L, "line_no", 1L, "sku", "A", "qty", 1L))));
        ops.addAll(m.ops(upsert("public.order_lines", row("order_id", 10L, "line_no", 1L, "sku", "B", "qty", 2L))));
        ops.addAll(m.ops(upsert("public.order_lines", row("order_id", 10L, "line_no", 1L, "sku", "C", "qty", 3L))));
        applyAsOneStatement(ops);
        assertThat(query("MATCH (:Order)-[r:CONTAINS]->(p:Product) RETURN p.sku AS p, r.qty AS q"))
                .containsExactly(row("p", "C", "q", 3L));
        // a table without foreign keys runs as the raw UNWIND does, without the subquery: the same last state
        ops.clear();
        ops.addAll(m.ops(upsert("public.customers", row("id", 7L, "name", "a", "city", "x"))));
        ops.addAll(m.ops(upsert("public.customers", row("id", 7L, "name", "b"))));
        assertThat(ops.getFirst().template().unwindCypher()).doesNotContain("CALL");
        applyAsOneStatement(ops);
        assertThat(query("MATCH (c:Customer {id: 7}) RETURN c.fullName AS n, c.city AS c"))
                .containsExactly(row("n", "b", "c", null));
        ops.clear();
        ops.addAll(m.ops(delete("public.customers", row("id", 7L))));
        ops.addAll(m.ops(delete("public.customers", row("id", 7L))));
        applyAsOneStatement(ops);
        assertThat(query("MATCH (c:Customer {id: 7}) RETURN count(c) AS n")).containsExactly(row("n", 0L));
    }

    @Test
    void aTransactionWithAnEventThatCannotBeWrittenFailsWhole() throws Exception {
        DebeziumMapping m = mapping("remove");
        ChangeEvent good = new ChangeEvent("public.customers", ChangeEvent.Op.CREATE, null, row("id", 1L), 5L, 1, 7L);
        ChangeEvent bad = new ChangeEvent("public.orders", ChangeEvent.Op.CREATE, null, row("id", 2L), 5L, 2, 8L)
                .invalid("after.placed: PostgreSQL's infinity has no Neo4j value");
        assertThatThrownBy(() -> m.ops(List.of(good, bad))).hasMessageContaining("event 2 of transaction 5")
                .hasMessageContaining("infinity");
        assertThatThrownBy(() -> m.ops(bad)).hasMessageContaining("infinity");
    }

    @Test
    void aDeleteRemovesTheNodeAndItsRelationshipsOrMarksIt() throws Exception {
        DebeziumMapping remove = mapping("remove");
        apply(remove, upsert("public.orders", row("id", 10L, "customer_id", 1L)),
                upsert("public.order_lines", row("order_id", 10L, "line_no", 1L, "sku", "A", "qty", 1L)));
        apply(remove, delete("public.order_lines", row("order_id", 10L, "line_no", 1L)));
        assertThat(query("MATCH ()-[r:CONTAINS]->() RETURN count(r) AS n")).containsExactly(row("n", 0L));
        apply(remove, delete("public.orders", row("id", 10L)));
        assertThat(query("MATCH (o:Order) RETURN count(o) AS n")).containsExactly(row("n", 0L));
        assertThat(query("MATCH ()-[r:PLACED]->() RETURN count(r) AS n")).containsExactly(row("n", 0L));

        DebeziumMapping mark = mapping("mark");
        apply(mark, upsert("public.orders", row("id", 11L, "customer_id", 1L)));
        apply(mark, delete("public.orders", row("id", 11L)));
        assertThat(query("MATCH (o:Order {id: 11}) RETURN o.deleted AS d")).containsExactly(row("d", true));
        apply(mark, upsert("public.orders", row("id", 11L, "customer_id", 1L)));
        assertThat(query("MATCH (o:Order {id: 11}) RETURN o.deleted AS d")).containsExactly(row("d", null));
    }

    @Test
    void aKeyChangeInOneTransactionMovesTheNodeKeepingItsRelationships() throws Exception {
        DebeziumMapping m = mapping("remove");
        apply(m, upsert("public.customers", row("id", 1L, "name", "Ada")),
                upsert("public.orders", row("id", 10L, "customer_id", 1L)));
        String before = (String) query("MATCH (c:Customer {id: 1}) RETURN elementId(c) AS e").getFirst().get("e");
        // Debezium: the delete of the old key and the create of the new one, at one log position
        ChangeEvent d = new ChangeEvent("public.customers", ChangeEvent.Op.DELETE, row("id", 1L), null, 5L, 1, 77L);
        ChangeEvent c = new ChangeEvent("public.customers", ChangeEvent.Op.CREATE, null, row("id", 2L, "name",
                "Ada"), 5L, 2, 77L);
        apply(m.ops(List.of(d, c)));
        assertThat(query("MATCH (c:Customer)-[:PLACED]->(o:Order) RETURN c.id AS c, elementId(c) AS e"))
                .containsExactly(row("c", 2L, "e", before));
        assertThat(query("MATCH (c:Customer) RETURN count(c) AS n")).containsExactly(row("n", 1L));
    }

    @Test
    void theToastPlaceholderIsNeverWrittenAndTruncateEmptiesTheTable() throws Exception {
        DebeziumMapping m = mapping("remove");
        apply(m, upsert("public.customers", row("id", 1L, "name", "Ada", "bio", "long text")));
        apply(m, upsert("public.customers", row("id", 1L, "name", "Ada L.", "bio", DebeziumMapping.UNAVAILABLE)));
        assertThat(query("MATCH (c:Customer) RETURN c.fullName AS n, c.bio AS b"))
                .containsExactly(row("n", "Ada L.", "b", "long text"));
        apply(m, new ChangeEvent("public.customers", ChangeEvent.Op.TRUNCATE, null, null, 1L, 1, 1L));
        assertThat(query("MATCH (c:Customer {id: 7}) RETURN count(c) AS n")).containsExactly(row("n", 0L));
    }

    @Test
    void badEventsAndMappingsAreSaidByName() throws Exception {
        DebeziumMapping m = mapping("remove");
        assertThatThrownBy(() -> m.ops(upsert("public.unknown", row("id", 1L))))
                .hasMessageContaining("table public.unknown is not mapped");
        assertThatThrownBy(() -> m.ops(upsert("public.customers", row("name", "x"))))
                .hasMessageContaining("key column id is missing");
        assertThatThrownBy(() -> ChangeEvent.of(Map.of("op", "x", "source", Map.of())))
                .hasMessageContaining("op 'x'");
        assertThatThrownBy(() -> ConfigLoader.parse(YAML.replace("DELETES", "remove").replace("to: public.customers",
                "to: public.nowhere"))).hasMessageContaining("refers to public.nowhere");
        assertThatThrownBy(() -> ConfigLoader.parse(YAML.replace("DELETES", "sometimes")))
                .hasMessageContaining("unknown deletes 'sometimes'");
        assertThatThrownBy(() -> ConfigLoader.parse(YAML.replace("DELETES", "remove").replace("label: Product",
                "label: Customer"))).hasMessageContaining("two tables are label Customer");
        assertThatThrownBy(() -> ConfigLoader.parse(YAML.replace("DELETES", "remove").replace("type: CONTAINS",
                "type: PLACED"))).hasMessageContaining("also a foreign key's");
        assertThat(ChangeEvent.of(null)).isNull(); // a tombstone
    }

    @Test
    void theDryRunPlansEveryStatementOfTheMapping() throws Exception {
        var kafka = ConfigLoader.parse(YAML.replace("DELETES", "remove")).sources().kafka();
        io.sluice.source.SourceChecks.Report r = io.sluice.source.SourceChecks.run(kafka, sink);
        assertThat(r.errors()).isEmpty();
        assertThat(r.warnings()).as("the constraints exist (created in start())").isEmpty();
        assertThat(r.checked()).as("five statements a node table, four a join table").isEqualTo(3 * 5 + 4);
        assertThat(r.describe()).contains("19 statements checked: 0 errors, 0 warnings");
        var unconstrained = ConfigLoader.parse("""
                sources:
                  kafka:
                    bootstrap: 127.0.0.1:9
                    debezium:
                      - prefix: other
                        tables:
                          public.things: {label: Thing}
                """).sources().kafka();
        assertThat(io.sluice.source.SourceChecks.run(unconstrained, sink).warnings())
                .as("one warning for the connector's key, not one for each of its statements")
                .singleElement().asString().startsWith("debezium other: no uniqueness or key constraint on :Thing [id]")
                .contains("created at start");
    }

    @Test
    void theConstraintsAreCreatedAndEveryTemplatePlans() throws Exception {
        DebeziumMapping m = mapping("remove");
        assertThat(m.schema()).hasSize(4);
        var constraints = query("SHOW CONSTRAINTS YIELD name, labelsOrTypes, properties RETURN name, labelsOrTypes AS l,"
                + " properties AS p");
        assertThat(constraints).extracting(c -> c.get("l")).contains(List.of("Customer"), List.of("Product"),
                List.of("Order"), List.of("CONTAINS"));
        for (Strategy.Check c : m.checks()) {
            sink.inReadTransaction(tx -> tx.run("EXPLAIN " + c.statement(), Map.of()));
        }
    }
}
