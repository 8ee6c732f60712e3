package io.sluice.bolt;

import io.sluice.bolt.Handshake.Version;
import io.sluice.bolt.Messages.Route;
import io.sluice.write.Outcome;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** The metadata of SUCCESS replies that say more than a result: HELLO's, ROUTE's table, an async write's journal. */
final class Replies {
    private Replies() {}

    /**
     * HELLO's SUCCESS, as Neo4j 2026.08 answers it (docs/reference/neo4j-bolt-behaviour.md, section 2). With grouping
     * on, drivers are asked for TELEMETRY: it tells a managed transaction (which a driver retries) from one the
     * application began itself (docs/reference/driver-telemetry.md).
     */
    static Map<String, Object> hello(Version version, BoltServices services, String connectionId) {
        Map<String, Object> meta = new LinkedHashMap<>();
        meta.put("server", services.serverAgent());
        if (version.atLeast(Version.V5_8)) {
            meta.put("protocol_version", version.toString());
        }
        meta.put("connection_id", connectionId);
        meta.put("hints", services.sessions().grouping() && version.atLeast(Version.V5_4)
                ? Map.of("connection.recv_timeout_seconds", services.recvTimeoutSeconds(), "telemetry.enabled", true)
                : Map.of("connection.recv_timeout_seconds", services.recvTimeoutSeconds()));
        return meta;
    }

    /** ROUTE's SUCCESS: this one address (the one the driver used, else the listener's) in every role. */
    static Map<String, Object> routingTable(Route r, String database, String advertised) {
        String address = r.routing().get("address") instanceof String a && !a.isBlank() ? a : advertised;
        List<Object> servers = new ArrayList<>();
        for (String role : List.of("WRITE", "READ", "ROUTE")) {
            servers.add(Map.of("addresses", List.of(address), "role", role));
        }
        Map<String, Object> rt = new LinkedHashMap<>();
        rt.put("servers", servers);
        rt.put("ttl", 300L);
        rt.put("db", r.db() == null ? database : r.db());
        return Map.of("rt", rt);
    }

    /** Where an async write is in the journal (its summary's {@code sluice} entry): offset, and Kafka's partition. */
    static Map<String, Object> journal(Outcome.Accepted a) {
        Map<String, Object> journal = new LinkedHashMap<>();
        journal.put("mode", "async");
        journal.put("offset", a.offset());
        if (a.partition() >= 0) {
            journal.put("partition", (long) a.partition());
        }
        return journal;
    }
}
