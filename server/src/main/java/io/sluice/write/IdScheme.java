package io.sluice.write;

import io.sluice.vocab.Neo4jError;
import java.time.Duration;
import java.util.random.RandomGenerator;

/**
 * How a front end names its explicit transactions and words the registry's refusals: the ids' form (random hex,
 * sequential numbers, one per connection ...), the default idle timeout and sweep cadence, and the texts of
 * "not found" and "in use" as the protocol's reference server words them. The registry itself is
 * protocol-neutral. Implementations are immutable.
 */
public interface IdScheme {
    /** A short lowercase name, for the sweeper thread ({@code sluice-txn-sweeper-<name>}) and logs. */
    String label();

    /** The idle timeout when the config sets none. */
    Duration defaultIdleTimeout();

    /** How often the sweeper looks for expired transactions, given the idle timeout in force. */
    Duration sweepEvery(Duration idleTimeout);

    /** A new id; {@code sequence} counts from 1 per registry. The registry draws again while an id is taken. */
    String newId(long sequence, RandomGenerator random);

    /** Unknown, expired, finished, or another caller's. */
    Neo4jError notFound(String id);

    /** A request is already running in the transaction. */
    Neo4jError inUse();

    /** Whether {@code e} is this scheme's "not found" (whatever the id). */
    default boolean isNotFound(Neo4jError e) {
        Neo4jError probe = notFound("");
        return e.code().equals(probe.code()) && e.message().startsWith(probe.message().substring(0, 16));
    }
}
