package io.sluice.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.sluice.support.Await;
import io.sluice.support.KafkaProcess;
import io.sluice.support.Neo4jProcess;
import io.sluice.support.TestServer;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.Timeout;

/**
 * The async journal on Kafka with real processes: a broker from {@code sluice kafka}, a Neo4j from
 * {@code sluice neo4j}, and two sluice instances over it sharing the topic. Writes are counted non-idempotently
 * ({@code c = c + 1} per write, with each write's sequence number appended per key), so a record applied twice or
 * out of order shows.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
@Timeout(120)
class KafkaJournalTest {
    static final ObjectMapper JSON = new ObjectMapper();
    static Path dir;
    static KafkaProcess kafka;
    static Neo4jProcess neo4j;
    static final List<TestServer> instances = new java.util.concurrent.CopyOnWriteArrayList<>();

    static String config(String bootstrap) {
        return """
                templates:
                  hit:
                    cypher: "MERGE (k:Key {id: row.k}) ON CREATE SET k.c = 1, k.seqs = [row.s] ON MATCH SET k.c = k.c + 1, k.seqs = k.seqs + row.s"
                    key: [k]
                journal:
                  kafka:
                    bootstrap: "%s"
                    topic: writes
                    partitions: 4
                    send_timeout: 3s
                    max_lag_records: 100000
                admission: {timeout: 1s}
                """.formatted(bootstrap);
    }

    @BeforeAll
    static void start() throws Exception {
        dir = Files.createTempDirectory("sluice-kafka-");
        kafka = KafkaProcess.start(dir.resolve("kafka"));
        neo4j = Neo4jProcess.start(dir.resolve("neo4j"));
        instances.add(TestServer.startRemote(config(kafka.bootstrap()), neo4j.uri()));
    }

    @AfterAll
    static void stop() throws Exception {
        for (TestServer s : instances) {
            s.close();
        }
        if (neo4j != null) {
            neo4j.close();
        }
        if (kafka != null) {
            kafka.close();
        }
        TestServer.deleteRecursively(dir);
    }

    static HttpResponse<String> hit(TestServer s, String key, int seq) {
        return s.post("/db/neo4j/write/hit?mode=async", "{\"k\":\"" + key + "\",\"s\":" + seq + "}");
    }

    /** Sends {@code perKey} writes for each of {@code keys} keys, each key's in order, spread over the instances. */
    static void send(String prefix, int keys, int perKey) throws Exception {
        List<CompletableFuture<Void>> clients = new ArrayList<>();
        for (int k = 0; k < keys; k++) {
            String key = prefix + k;
            TestServer s = instances.get(k % instances.size());
            clients.add(CompletableFuture.runAsync(() -> {
                for (int seq = 0; seq < perKey; seq++) {
                    HttpResponse<String> r = hit(s, key, seq);
                    assertThat(r.statusCode()).as(r.body()).isEqualTo(202);
                    try {
                        JsonNode b = JSON.readTree(r.body());
                        assertThat(b.has("partition") && b.has("offset")).as(r.body()).isTrue();
                    } catch (java.io.IOException e) {
                        throw new AssertionError(e);
                    }
                }
            }));
        }
        CompletableFuture.allOf(clients.toArray(CompletableFuture[]::new)).get(90, java.util.concurrent.TimeUnit.SECONDS);
    }

    static long count(String cypher) {
        return instances.getFirst().count(cypher);
    }

    /** Every key applied exactly {@code perKey} times, in its order. */
    static void assertExactlyOnceInOrder(String prefix, int keys, int perKey) {
        Await.until("every write applied", Duration.ofSeconds(60), () -> count(
                "MATCH (k:Key) WHERE k.id STARTS WITH '" + prefix + "' RETURN sum(k.c)") >= (long) keys * perKey);
        assertThat(count("MATCH (k:Key) WHERE k.id STARTS WITH '" + prefix + "' RETURN sum(k.c)"))
                .as("applied exactly once").isEqualTo((long) keys * perKey);
        assertThat(count("MATCH (k:Key) WHERE k.id STARTS WITH '" + prefix + "' AND k.seqs <> range(0, " + (perKey - 1)
                + ") RETURN count(k)")).as("keys out of order or with gaps").isZero();
    }

    @Test
    @Order(1)
    void anAcknowledgedWriteIsOnKafkaAndAppliedOnce() throws Exception {
        HttpResponse<String> r = hit(instances.getFirst(), "single", 0);
        assertThat(r.statusCode()).as(r.body()).isEqualTo(202);
        JsonNode b = JSON.readTree(r.body());
        int partition = b.get("partition").asInt();
        long offset = b.get("offset").asLong();
        HttpResponse<String> applied = instances.getFirst().get("/db/neo4j/applied?partition=" + partition + "&offset="
                + offset + "&wait=30s");
        assertThat(JSON.readTree(applied.body()).get("applied").asBoolean()).as(applied.body()).isTrue();
        assertThat(count("MATCH (k:Key {id: 'single'}) RETURN k.c")).isEqualTo(1);
        assertThat(instances.getFirst().get("/health").body()).contains("\"journal\":\"kafka\"");
    }

    @Test
    @Order(2)
    void aSecondInstanceJoiningUnderLoadRebalancesWithoutApplyingTwice() throws Exception {
        CompletableFuture<Void> load = CompletableFuture.runAsync(() -> {
            try {
                send("a", 16, 40);
            } catch (Exception e) {
                throw new RuntimeException(e);
            }
        });
        // joins while the first applies: its partitions move mid-stream
        instances.add(TestServer.startRemote(config(kafka.bootstrap()), neo4j.uri()));
        load.get(90, java.util.concurrent.TimeUnit.SECONDS);
        send("b", 16, 20);
        assertExactlyOnceInOrder("a", 16, 40);
        assertExactlyOnceInOrder("b", 16, 20);
    }

    @Test
    @Order(3)
    void withTheBrokerDownAsyncWritesAre503AndSyncWritesGoOn() throws Exception {
        kafka.kill();
        TestServer s = instances.getFirst();
        HttpResponse<String> async = hit(s, "down", 0);
        assertThat(async.statusCode()).as(async.body()).isEqualTo(503);
        assertThat(async.headers().firstValue("Retry-After")).isPresent();
        HttpResponse<String> sync = s.post("/db/neo4j/write/hit?mode=sync", "{\"k\":\"down-sync\",\"s\":0}");
        assertThat(sync.statusCode()).as(sync.body()).isEqualTo(200);

        kafka = kafka.restart();
        Await.until("async writes accepted again", Duration.ofSeconds(60), () -> hit(s, "back", 0).statusCode() == 202);
        assertThat(count("MATCH (k:Key {id: 'down'}) RETURN count(k)")).as("the refused write").isZero();
    }
}
