package io.sluice.bolt;

import io.sluice.bolt.Handshake.Version;
import io.sluice.bolt.Messages.Pull;
import io.sluice.vocab.Neo4jError;
import io.sluice.vocab.NoticeFilter;
import java.io.ByteArrayOutputStream;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * The results a connection's statements left to pull: an auto-commit statement's one, or an explicit
 * transaction's, numbered by qid from 0 at BEGIN. Writes RUN's SUCCESS when a result is ready, and PULL's records and
 * final SUCCESS as they are asked for. Confined to the worker.
 */
final class Results {
    private final Version version;
    private final BoltServices services;
    private final Wire wire;
    private final ByteArrayOutputStream out;
    private final Map<Long, Cursor> inTransaction = new HashMap<>();
    private Cursor autoCommit;
    private long nextQid;
    /** Which notifications the auto-commit statement's client asked for, and the transaction's. */
    private NoticeFilter autoCommitNotices = NoticeFilter.ALL;
    private NoticeFilter transactionNotices = NoticeFilter.ALL;

    Results(Version version, BoltServices services, Wire wire) {
        this.version = version;
        this.services = services;
        this.wire = wire;
        this.out = wire.out();
    }

    /** An auto-commit statement's result is ready ({@code extra}: its RUN's, null when it failed): RUN's SUCCESS. */
    void autoCommit(Cursor c, long start, Map<String, Object> extra) {
        autoCommit = c;
        started(c, start, -1, extra);
    }

    /** The next auto-commit statement's client asked for {@code notices}. */
    void autoCommitNotices(NoticeFilter notices) {
        autoCommitNotices = notices;
    }

    /** A transaction began, asking for {@code notices}: its statements are numbered from 0. */
    void began(NoticeFilter notices) {
        inTransaction.clear();
        nextQid = 0;
        transactionNotices = notices;
    }

    /** A statement in the transaction has a result: RUN's SUCCESS with its qid. */
    void inTransaction(Cursor c, long start) {
        long qid = nextQid++;
        inTransaction.put(qid, c);
        started(c, start, qid, null);
    }

    /** The auto-commit result being pulled, or the transaction's result a PULL names (-1: the last); null: none. */
    Cursor cursor(Pull p, boolean autoCommitted) {
        return autoCommitted ? autoCommit : inTransaction.get(p.qid() == -1 ? nextQid - 1 : p.qid());
    }

    /**
     * The failure a result of the transaction still holds back (a read whose rows before its runtime error were
     * pulled with {@code has_more}), or null. Sluice's transaction ended with that failure; Neo4j's has not yet
     * evaluated the failing row.
     */
    Neo4jError pendingFailure() {
        for (Cursor c : inTransaction.values()) {
            if (c.failure() != null) {
                return c.failure();
            }
        }
        return null;
    }

    /** Whether results of the transaction remain to be pulled. */
    boolean pending() {
        return !inTransaction.isEmpty();
    }

    /** Forgets every result (a RESET, a failure, the end of a transaction). */
    void clear() {
        autoCommit = null;
        inTransaction.clear();
    }

    /**
     * Answers a PULL (or DISCARD) of {@code c}: its records (up to {@code n}), then {@code has_more} or the final
     * SUCCESS, after which {@code c} is forgotten. Returns the statement's failure instead, when it had one (the
     * caller reports it), having forgotten it as well.
     */
    Neo4jError pull(Pull p, Cursor c) throws InterruptedException {
        if (p.discard() && p.n() < 0 && c.untouched() && c.read() && (c.failure() == null || c.autoCommit())) {
            // a read discarded whole before any row: Neo4j cancels it rather than run it (no rows, status 02N42; an
            // EXPLAIN's plan kept), so a runtime error of it never comes. Not in a transaction the failure has
            // already rolled back (sluice ran the read at its RUN): its FAILURE, or a COMMIT would lose its writes
            finish(c, Cursor.End.CANCELLED);
            forget(c);
            return null;
        }
        long n = p.n() < 0 ? Long.MAX_VALUE : p.n();
        boolean v5 = version.atLeast(Version.V5_0);
        long sent = 0;
        for (; sent < n && c.hasNext(); sent++) {
            List<Object> row = c.next();
            if (!p.discard()) {
                List<Object> values = new ArrayList<>(row.size());
                for (Object v : row) {
                    values.add(WireValues.out(v, v5, v5));
                }
                Messages.record(values, out);
                if (out.size() > Wire.FLUSH_BYTES) {
                    wire.flush();
                }
            }
        }
        // Neo4j produces rows lazily: a PULL that ends on the last row before a runtime error has not reached the
        // failing row yet, so it answers has_more, and the next PULL gets the failure
        if (c.hasNext() || (c.failure() != null && p.n() > 0 && sent == p.n())) {
            Messages.success(Map.of("has_more", true), out);
            return null;
        }
        if (c.failure() != null) { // the rows it produced before its runtime error have gone out: now the error
            forget(c);
            return c.failure();
        }
        finish(c, p.discard() ? Cursor.End.DISCARDED : Cursor.End.PULLED);
        forget(c);
        return null;
    }

    /** The final SUCCESS of {@code c}, which ended so: its bookmark when it has one, the notifications asked for. */
    private void finish(Cursor c, Cursor.End end) {
        Messages.success(c.summary(c.bookmarked() ? services.bookmarks().current() : null, services.database(),
                version, end, c.autoCommit() ? autoCommitNotices : transactionNotices), out);
    }

    private void forget(Cursor c) {
        if (c.autoCommit()) {
            autoCommit = null;
        } else {
            inTransaction.values().remove(c);
        }
    }

    /**
     * RUN's SUCCESS of a result that is ready: its fields, the time it took, its qid in a transaction, and (5.8+,
     * auto-commit) the database it ran on when the RUN named none, as Neo4j resolves a home database.
     */
    private void started(Cursor c, long start, long qid, Map<String, Object> extra) {
        Map<String, Object> meta = new LinkedHashMap<>();
        meta.put("t_first", TimeUnit.NANOSECONDS.toMillis(services.time().nanos() - start));
        meta.put("fields", c.fields());
        if (qid >= 0) {
            meta.put("qid", qid);
        } else if (version.atLeast(Version.V5_8) && extra != null && extra.get("db") == null) {
            meta.put("db", services.database());
        }
        Messages.success(meta, out);
    }
}
