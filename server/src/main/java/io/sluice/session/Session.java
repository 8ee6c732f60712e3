package io.sluice.session;

import io.sluice.config.Mode;
import io.sluice.security.Credentials;
import io.sluice.sink.Sink;
import io.sluice.time.Time;
import io.sluice.vocab.GraphException;
import io.sluice.vocab.Neo4jError;
import io.sluice.vocab.Neo4jStatus;
import io.sluice.vocab.StatementResult;
import io.sluice.vocab.TxConfig;
import io.sluice.write.Caller;
import io.sluice.write.ExplicitTransactions.Step;
import io.sluice.write.Outcome;
import io.sluice.write.Statement;
import io.sluice.write.WritePath;
import io.sluice.write.WriteRequest.CypherRequest;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;

/**
 * One connection's session (a Bolt connection's): who is logged in, the transaction it has open, and its statements
 * on the {@code system} database. Auto-commit statements go to the write path (group-committed there); explicit
 * ones to the front end's {@link ClientTransactions}, held between requests as Neo4j holds them.
 *
 * <p>The open transaction is one sealed value, {@link Open}: none, or begun (its id in the registry, whose it is,
 * and whether it may be grouped). A transaction that may join a group ({@link #defers}: grouping on for its user, a
 * write transaction, a managed first attempt, the session not demoted) is begun without a Neo4j transaction and
 * decides at its first statement ({@link GroupedTransaction}). The session's {@link Demotion} counts the groups its
 * transactions abort. Used by one thread at a time (the connection's worker, or a thread it waits for).
 */
public final class Session {
    /** The transaction this session has open. */
    private sealed interface Open permits None, Begun {}

    private record None() implements Open {}

    /** A transaction in the registry: its id, the caller it runs as, whether it was begun to be grouped. */
    private record Begun(String id, Caller caller, boolean grouped) implements Open {}

    private static final Open NONE = new None();

    private final WritePath writes;
    private final ClientTransactions transactions;
    private final SystemDatabase systemDatabase;
    private final Demotion demotion;
    private Credentials credentials;
    private Sink.SystemSession system;
    private Open open = NONE;

    Session(WritePath writes, ClientTransactions transactions, SystemDatabase systemDatabase, Time time) {
        this.writes = writes;
        this.transactions = transactions;
        this.systemDatabase = systemDatabase;
        this.demotion = new Demotion(time);
    }

    /**
     * {@code credentials} (null with authentication off) logged in: kept until the first statement on
     * {@code system} logs in there as that user, as Neo4j's server holds a connection's login (then dropped).
     */
    public void login(Credentials credentials) {
        this.credentials = credentials;
        this.system = null;
    }

    /** Whoever was logged in is not any more. */
    public void logoff() {
        credentials = null;
        system = null;
    }

    // ---- auto-commit ----

    /**
     * An auto-commit statement: the write path's request ({@code counted}: its update counters kept, so never
     * coalesced with others; {@code config}: what its client asks of its transaction), its outcome's future; a
     * statement that cannot start without waiting runs on {@code blocking}.
     */
    public CompletableFuture<Outcome> submit(Statement statement, int bytes, boolean counted, TxConfig config,
            Mode mode, Caller as, Executor blocking) {
        return writes.submit(new CypherRequest(List.of(statement), bytes, counted, config), mode, as, blocking);
    }

    /** A statement on the DBMS's {@code system} database, as the logged-in user, in an implicit transaction. */
    public StatementResult system(Statement statement) throws GraphException {
        if (system == null) { // logged in once as the user; the password is not kept past it
            system = systemDatabase.as(credentials);
            credentials = null;
        }
        return system.run(statement.cypher(), statement.params());
    }

    // ---- explicit transactions ----

    /**
     * Whether a transaction begun with these would be deferred to its first statement, so that its BEGIN needs no
     * wait: grouping on for {@code as}, a write transaction, a managed transaction's first attempt ({@code managed}:
     * a driver retries it), no timeout of its own (a group's transaction is everyone's), and this session not
     * demoted; asking nothing of its transaction ({@code config}: a group's transaction is everyone's, its timeout
     * and metadata too).
     */
    public boolean defers(Caller as, boolean write, boolean managed, TxConfig config) {
        return managed && write && config.isNone() && transactions.grouping().applies(as, true)
                && demotion.allowsGrouping();
    }

    /**
     * Begins a transaction as {@code as} (read-only when {@code as} is) with {@code config}'s timeout and metadata;
     * may block when it is not deferred.
     */
    public void begin(Caller as, boolean write, boolean managed, TxConfig config) throws GraphException {
        boolean grouped = defers(as, write, managed, config);
        Step s = transactions.open(List.of(), as, grouped ? demotion : null, config);
        open = new Begun(s.id(), as, grouped);
    }

    /** Whether a transaction is open. */
    public boolean inTransaction() {
        return open instanceof Begun;
    }

    /**
     * Runs a statement in the open transaction: its result and kind, or its failure (which ended the transaction).
     * Throws when there is no transaction to run it in (not found, expired, in use: nothing of it is this
     * session's any more).
     */
    public Step run(Statement statement) throws GraphException {
        Begun b = begun();
        Step s;
        try {
            s = transactions.run(b.id(), List.of(statement), b.caller());
        } catch (GraphException e) {
            open = NONE;
            throw e;
        }
        if (s.failed()) {
            open = NONE; // rolled back and ended
        }
        return s;
    }

    /** Commits the open transaction; throws its failure (the transaction has ended either way). */
    public void commit() throws GraphException {
        if (!(open instanceof Begun b)) { // a statement failed; its error is at its PULL, which the driver did not read
            throw new GraphException(new Neo4jError(Neo4jStatus.Transaction.TRANSACTION_NOT_FOUND,
                    "the transaction was rolled back by a failed statement"), null);
        }
        open = NONE;
        Step s = transactions.commit(b.id(), List.of(), b.caller());
        if (s.failed()) {
            throw new GraphException(s.failure(), null);
        }
    }

    /**
     * Rolls back the open transaction, if any ({@code clientGone}: because the connection closed); never throws (an
     * expired or failed one has nothing left to roll back).
     */
    public void rollback(boolean clientGone) {
        if (!(open instanceof Begun b)) {
            return;
        }
        open = NONE;
        try {
            if (clientGone) {
                transactions.abandon(b.id(), b.caller());
            } else {
                transactions.rollback(b.id(), b.caller());
            }
        } catch (GraphException e) {
            // already ended (expired, or a failed statement): nothing to roll back
        }
    }

    private Begun begun() throws GraphException {
        if (open instanceof Begun b) {
            return b;
        }
        throw new GraphException(new Neo4jError(Neo4jStatus.Transaction.TRANSACTION_NOT_FOUND,
                "no transaction is open"), null);
    }
}
