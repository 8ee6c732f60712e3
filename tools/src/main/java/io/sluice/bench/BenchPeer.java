package io.sluice.bench;

import java.util.ArrayList;
import java.util.List;

/**
 * Where {@link BenchMode#NEO4J}'s Neo4j server runs ({@code --peer}): in a JVM of its own, as a user deploys it
 * (the default), or in the bench's JVM, where sluice's own runs have already compiled Neo4j's kernel and Cypher
 * runtime and the two share one heap: the older reading, kept to compare with ({@code process,in-jvm}: both in
 * one run).
 */
public enum BenchPeer {
    /** Neo4j's server in a child JVM ({@link PeerProcess}), warmed for at least 20 s before it is measured. */
    PROCESS("process"),
    /** Neo4j's server in the bench's JVM, primed with sluice's modes. */
    IN_JVM("in-jvm");

    private final String label;

    BenchPeer(String label) {
        this.label = label;
    }

    public String label() {
        return label;
    }

    /** Parses {@code process}, {@code in-jvm} or both, comma-separated, in order; a repeat is an error. */
    public static List<BenchPeer> parseList(String text) {
        List<BenchPeer> peers = new ArrayList<>();
        for (String part : text.split(",")) {
            if (part.isBlank()) {
                continue;
            }
            BenchPeer p = parse(part.strip());
            if (peers.contains(p)) {
                throw new IllegalArgumentException("peer '" + p.label + "' is listed twice in '" + text + "'");
            }
            peers.add(p);
        }
        if (peers.isEmpty()) {
            throw new IllegalArgumentException("no peer given in '" + text + "'; use process, in-jvm or both");
        }
        return List.copyOf(peers);
    }

    private static BenchPeer parse(String text) {
        for (BenchPeer p : values()) {
            if (p.label.equals(text)) {
                return p;
            }
        }
        throw new IllegalArgumentException("unknown peer '" + text + "'; use process or in-jvm");
    }
}
