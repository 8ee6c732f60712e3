package io.sluice.vocab;

import java.time.Duration;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * What a client asks of a transaction besides its statements, as Bolt's BEGIN and an auto-commit RUN carry it: a
 * timeout ({@code tx_timeout}; null: the database's own), after which Neo4j ends the transaction, and metadata
 * ({@code tx_metadata}; empty: none), which Neo4j shows in {@code SHOW TRANSACTIONS}, its query log and
 * {@code CALL tx.getMetaData()}. Values are the driver's, as sluice reads them off the wire.
 */
public record TxConfig(Duration timeout, Map<String, Object> metadata) {
    /** Nothing asked: the database's timeout, no metadata. */
    public static final TxConfig NONE = new TxConfig(null, Map.of());

    public TxConfig {
        timeout = timeout == null || timeout.isZero() ? null : timeout; // 0 is none, as Neo4j takes it
        metadata = metadata == null || metadata.isEmpty() ? Map.of()
                : Collections.unmodifiableMap(new LinkedHashMap<>(metadata)); // a driver's values may be null
    }

    /** A timeout alone ({@code timeout} null: none). */
    public static TxConfig timeout(Duration timeout) {
        return timeout == null ? NONE : new TxConfig(timeout, Map.of());
    }

    /** The same metadata, with {@code timeout} instead. */
    public TxConfig withTimeout(Duration timeout) {
        return new TxConfig(timeout, metadata);
    }

    /** Whether it asks for nothing. */
    public boolean isNone() {
        return timeout == null && metadata.isEmpty();
    }
}
