package io.sluice.bolt;

import io.sluice.config.Mode;
import io.sluice.vocab.Neo4jError;
import io.sluice.vocab.Neo4jStatus;
import io.sluice.vocab.TxConfig;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * What a RUN's or BEGIN's {@code extra} map asks for: the database, read access, sluice's own metadata
 * ({@code tx_metadata: {sluice: {mode, counters}}}). Pure functions of the map.
 */
final class Extras {
    static final String SYSTEM = "system";

    private Extras() {}

    /** A driver's read session or transaction ({@code mode: "r"}). */
    static boolean read(Map<String, Object> extra) {
        return "r".equals(extra.get("mode"));
    }

    /**
     * The transaction's timeout ({@code tx_timeout}, milliseconds, as the drivers send it), or null when it asks for
     * none (the database's own applies). Throws when it is not a whole number of milliseconds, 0 or more.
     */
    static Duration timeout(Map<String, Object> extra) {
        Object t = extra.get("tx_timeout");
        if (t == null) {
            return null;
        }
        if (!(t instanceof Long ms) || ms < 0) {
            throw new IllegalArgumentException("tx_timeout must be a whole number of milliseconds, 0 or more, got "
                    + t);
        }
        return Duration.ofMillis(ms);
    }

    /**
     * What the RUN or BEGIN asks of its transaction: {@link #timeout} and its {@code tx_metadata}, but for sluice's
     * own key ({@code sluice}, what it asks of sluice: not Neo4j's to see), its values read as a RUN's parameters
     * ({@code utc}: 5.x's DateTime). Throws when either is not what Neo4j takes.
     */
    static TxConfig config(Map<String, Object> extra, boolean utc) {
        Duration timeout = timeout(extra);
        Object m = extra.get("tx_metadata");
        if (m == null) {
            return TxConfig.timeout(timeout);
        }
        if (!(m instanceof Map<?, ?> meta)) {
            throw new IllegalArgumentException("tx_metadata must be a map, got " + m);
        }
        Map<Object, Object> theirs = new LinkedHashMap<>(meta);
        theirs.remove("sluice");
        try {
            return new TxConfig(timeout, WireValues.params(theirs, utc));
        } catch (WireValues.BadValue e) {
            throw new IllegalArgumentException("tx_metadata: " + e.getMessage());
        }
    }

    /** Whether the statement runs on the {@code system} database. */
    static boolean onSystem(Map<String, Object> extra) {
        return SYSTEM.equals(extra.get("db"));
    }

    /**
     * Whether the statement's update counters are kept (its summary's {@code counters()}): yes unless its
     * transaction metadata says {@code {sluice: {counters: false}}}; without them the write path may coalesce it
     * with others running the same statement (one {@code UNWIND} for all), and its summary has no {@code stats}.
     */
    static boolean counted(Map<String, Object> extra) {
        return !(extra.get("tx_metadata") instanceof Map<?, ?> meta && meta.get("sluice") instanceof Map<?, ?> s
                && Boolean.FALSE.equals(s.get("counters")));
    }

    /** {@code tx_metadata: {sluice: {mode: async}}} asks for a mode; {@code otherwise} when it does not. */
    static Mode mode(Map<String, Object> extra, Mode otherwise) {
        if (extra.get("tx_metadata") instanceof Map<?, ?> meta && meta.get("sluice") instanceof Map<?, ?> s
                && s.get("mode") != null) {
            if (!(s.get("mode") instanceof String text)) {
                throw new IllegalArgumentException("tx_metadata.sluice.mode must be a string: sync, async or direct");
            }
            return Mode.parse(text);
        }
        return otherwise;
    }

    /**
     * Why a statement or transaction may not run as {@code extra} asks (null: it may): the database it names, or
     * bookmarks that are not Neo4j's.
     */
    static Neo4jError refusal(Map<String, Object> extra, String database) {
        Neo4jError bad = badDatabase(extra, database);
        return bad != null ? bad : Bookmarks.check(extra.get("bookmarks"));
    }

    /** Why a statement or transaction may not run on the database {@code extra} names (null: it may). */
    static Neo4jError badDatabase(Map<String, Object> extra, String database) {
        Object db = extra.get("db");
        if (db == null || db.equals(database)) {
            return null;
        }
        if (SYSTEM.equals(db)) {
            return new Neo4jError(Neo4jStatus.Transaction.FORBIDDEN_DUE_TO_TRANSACTION_TYPE, "sluice runs statements"
                    + " on the system database as auto-commit statements (session.run) only, not in explicit"
                    + " transactions");
        }
        return new Neo4jError(Neo4jStatus.Database.DATABASE_NOT_FOUND, "Graph not found: " + db);
    }
}
