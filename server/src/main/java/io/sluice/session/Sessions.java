package io.sluice.session;

import io.sluice.time.Time;
import io.sluice.vocab.Committed;
import io.sluice.write.WritePath;
import java.util.Optional;
import java.util.function.Supplier;

/**
 * The session layer between a front end and the write path: what every {@link Session} of one front end shares
 * (the write path for auto-commit statements, the front end's explicit transactions and their groups, the DBMS's
 * {@code system} database, where the committed history stands for bookmarks). A front end translates its wire into
 * a session's calls and their answers back; it reaches nothing below. Thread-safe.
 */
public final class Sessions {

    private final WritePath writes;
    private final ClientTransactions transactions;
    private final SystemDatabase system;
    private final Supplier<Optional<Committed>> committed;
    private final Time time;

    public Sessions(WritePath writes, ClientTransactions transactions, SystemDatabase system,
            Supplier<Optional<Committed>> committed, Time time) {
        this.writes = writes;
        this.transactions = transactions;
        this.system = system;
        this.committed = committed;
        this.time = time;
    }

    /** A session for one connection, no one logged in yet. */
    public Session open() {
        return new Session(writes, transactions, system, time);
    }

    /** Whether anyone's transactions may be grouped (a front end may then ask its clients what kind theirs are). */
    public boolean grouping() {
        return transactions.grouping().on();
    }

    /** The database statements must address (Neo4j Community has one user database). */
    public String database() {
        return writes.database();
    }

    /** Where the database's committed history stands now (what a bookmark names), where the sink can tell. */
    public Optional<Committed> lastCommitted() {
        return committed.get();
    }
}
