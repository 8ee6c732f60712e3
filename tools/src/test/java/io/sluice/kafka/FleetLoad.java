package io.sluice.kafka;

import io.sluice.support.SluiceProcess;
import java.io.IOException;
import java.net.ConnectException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.LockSupport;

/**
 * Clients of a fleet of sluice instances, each writing a few keys of its own in async mode, every key's writes in
 * sequence: sequence number {@code s} is followed by {@code s + 1} only once {@code s} got its 202. A write that
 * gets anything else (503, a refused connection, a connection cut by a kill -9, a timeout) is sent again, the same
 * sequence number, to the next instance. A client's rounds (one write per key) go to the instances in turn.
 *
 * <p>Each sending is an <em>attempt</em> with a number of its own, per key increasing, carried in the write
 * ({@code row.a}) next to the sequence number ({@code row.s}). An attempt whose answer was lost may still have
 * reached Kafka, and then is applied too, legitimately: so the same sequence number can be applied twice (two
 * attempts), but an attempt applied twice is one Kafka record applied twice, which must never happen.
 */
final class FleetLoad implements AutoCloseable {
    /** One key's history as its client saw it. Written by its one client thread, read after {@link #close}. */
    static final class Key {
        final String id;
        /** Every attempt sent (whatever its answer; not those refused a connection) and its sequence number. */
        final Map<Integer, Integer> sent = new ConcurrentHashMap<>();
        /** The attempts that got a 202. */
        final Set<Integer> acknowledged = ConcurrentHashMap.newKeySet();
        private int nextSeq;
        private int nextAttempt;

        Key(String id) {
            this.id = id;
        }
    }

    private final List<String> instances;
    private final List<Key> keys = new ArrayList<>();
    private final AtomicBoolean stopping = new AtomicBoolean();
    private final ExecutorService clients = Executors.newVirtualThreadPerTaskExecutor();
    private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(2)).build();
    final LongAdder acknowledged = new LongAdder();
    final LongAdder unavailable = new LongAdder();
    final LongAdder refused = new LongAdder();
    final LongAdder cut = new LongAdder();
    /** The 503s by what they said (their bodies, numbers masked, cut short). */
    final Map<String, LongAdder> unavailableReasons = new ConcurrentHashMap<>();
    /** Answers no client should ever get (neither 202 nor 503), with their bodies. */
    final Queue<String> unexpected = new ConcurrentLinkedQueue<>();

    private FleetLoad(List<String> instances) {
        this.instances = List.copyOf(instances);
    }

    /** {@code clients} clients of {@code keysPerClient} keys each, client i starting on instance i mod n. */
    static FleetLoad start(List<String> instanceUrls, int clients, int keysPerClient) {
        FleetLoad load = new FleetLoad(instanceUrls);
        for (int c = 0; c < clients; c++) {
            List<Key> mine = new ArrayList<>();
            for (int k = 0; k < keysPerClient; k++) {
                mine.add(new Key("fleet-" + c + "-" + k));
            }
            load.keys.addAll(mine);
            int first = c % instanceUrls.size();
            load.clients.submit(() -> load.client(mine, first));
        }
        return load;
    }

    List<Key> keys() {
        return keys;
    }

    /** Round after round, one write per key; each round goes to the next instance (all take load all along). */
    private Void client(List<Key> mine, int first) {
        int target = first;
        while (!stopping.get()) {
            for (Key k : mine) {
                while (!stopping.get() && !send(k, target)) {
                    target = (target + 1) % instances.size(); // the same sequence number, to the next instance
                    LockSupport.parkNanos(Duration.ofMillis(50).toNanos()); // pacing, not waiting for anything
                }
            }
            target = (target + 1) % instances.size();
        }
        return null;
    }

    /** One attempt of key {@code k}'s next sequence number at instance {@code target}; true on 202. */
    private boolean send(Key k, int target) {
        int attempt = k.nextAttempt++;
        int seq = k.nextSeq;
        k.sent.put(attempt, seq);
        HttpRequest r = HttpRequest.newBuilder(URI.create(instances.get(target) + "/db/neo4j/write/hit?mode=async"))
                .header("Authorization", SluiceProcess.AUTH).header("Content-Type", "application/json")
                .timeout(Duration.ofSeconds(20))
                .POST(HttpRequest.BodyPublishers.ofString(
                        "{\"k\":\"" + k.id + "\",\"s\":" + seq + ",\"a\":" + attempt + "}"))
                .build();
        try {
            HttpResponse<String> response = http.send(r, HttpResponse.BodyHandlers.ofString());
            if (response.statusCode() == 202 && response.body().contains("\"partition\"")
                    && response.body().contains("\"offset\"")) {
                k.acknowledged.add(attempt);
                k.nextSeq++;
                acknowledged.increment();
                return true;
            } else if (response.statusCode() == 503) {
                unavailable.increment();
                unavailableReasons.computeIfAbsent(reason(response.body()), b -> new LongAdder()).increment();
            } else {
                unexpected.add(response.statusCode() + " " + response.body());
            }
        } catch (ConnectException e) {
            k.sent.remove(attempt); // no connection: nothing was sent
            refused.increment();
        } catch (IOException e) {
            cut.increment(); // sent, perhaps received: its outcome is unknown
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            stopping.set(true);
        }
        return false;
    }

    private static String reason(String body) {
        String masked = body.replaceAll("[0-9]+", "#");
        return masked.length() > 160 ? masked.substring(0, 160) : masked;
    }

    long acknowledgedCount() {
        return acknowledged.sum();
    }

    /** Stops sending; returns once every client has its last answer (bounded by the request timeout). */
    @Override
    public void close() {
        stopping.set(true);
        clients.shutdown();
        try {
            if (!clients.awaitTermination(60, TimeUnit.SECONDS)) {
                throw new IllegalStateException("fleet clients still running 60 s after stop");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            http.close();
        }
    }

    @Override
    public String toString() {
        return "acknowledged " + acknowledged.sum() + ", 503 " + unavailable.sum() + ", refused " + refused.sum()
                + ", cut " + cut.sum() + ", unexpected " + unexpected.size();
    }
}
