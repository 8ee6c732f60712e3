package io.sluice.bolt;

import io.sluice.bolt.Handshake.Version;
import io.sluice.bolt.Messages.Begin;
import io.sluice.bolt.Messages.Commit;
import io.sluice.bolt.Messages.Goodbye;
import io.sluice.bolt.Messages.Hello;
import io.sluice.bolt.Messages.Logoff;
import io.sluice.bolt.Messages.Logon;
import io.sluice.bolt.Messages.Pull;
import io.sluice.bolt.Messages.Request;
import io.sluice.bolt.Messages.Reset;
import io.sluice.bolt.Messages.Rollback;
import io.sluice.bolt.Messages.Route;
import io.sluice.bolt.Messages.Run;
import io.sluice.bolt.Messages.Telemetry;
import io.sluice.config.Access;
import io.sluice.config.Mode;
import io.sluice.session.Session;
import io.sluice.vocab.GraphException;
import io.sluice.vocab.Neo4jError;
import io.sluice.vocab.Neo4jStatus;
import io.sluice.vocab.NoticeFilter;
import io.sluice.vocab.QueryKind;
import io.sluice.vocab.StatementResult;
import io.sluice.vocab.TxConfig;
import io.sluice.write.Caller;
import io.sluice.write.ExplicitTransactions.Step;
import io.sluice.write.Outcome;
import io.sluice.write.Statement;
import java.io.ByteArrayOutputStream;
import java.util.Map;

/**
 * Bolt's server state machine for one connection, over a {@link Session}: each request read top to bottom in the
 * state that takes it, translated into the session's calls, their answers written as Bolt's replies. Its
 * {@link BoltConnection} owns the worker thread, the inbox and the socket; this class only answers.
 *
 * <ul>
 *   <li><b>Auto-commit statements</b> go to the write path through the session, with their counters (a driver's
 *       summary needs them), and RUN's SUCCESS waits for the outcome: for a sync write, the commit of the batch it
 *       joined. The final PULL SUCCESS, which drivers take as the commit's acknowledgement, can therefore only
 *       follow a commit. The records are the materialised result; PULL pages them.</li>
 *   <li><b>Where an error surfaces</b> follows Neo4j ({@link BoltFailures}): what is found before anything runs,
 *       and any write's error, fails the RUN; a read's runtime error fails its PULL after a RUN SUCCESS. The
 *       statement's kind comes with its outcome: nothing here classifies a statement.</li>
 *   <li><b>Explicit transactions</b> are the session's: a managed transaction's first attempt (TELEMETRY 0 or 3
 *       just before its BEGIN) may be deferred to a group, anything else is a real Neo4j transaction.</li>
 *   <li><b>RESET</b> rolls back what is open and answers SUCCESS; the connection has already answered IGNORED to
 *       what was queued before it.</li>
 * </ul>
 * Failures of the client's making put the connection in the FAILED state (IGNORED until RESET); a message the state
 * does not take (a protocol violation) closes it after a FAILURE, as Neo4j's server does. Confined to the worker.
 */
final class BoltProtocol {
    enum State { NEGOTIATION, AUTHENTICATION, READY, STREAMING, TX_READY, TX_STREAMING, FAILED, DEFUNCT }

    private final Version version;
    private final BoltServices services;
    private final String id;
    private final String client;
    private final Wire wire;
    private final ByteArrayOutputStream out;
    private final Session session;
    private final Results results;
    private State state = State.NEGOTIATION;
    /** The notifications the connection asked for at HELLO (null: it asked nothing). */
    private NoticeFilter connectionNotices;
    private Caller caller;
    /** Logged in with a password that must be changed: only ALTER CURRENT USER on system, as Neo4j allows. */
    private String expired;
    /** The api of the TELEMETRY just before the message being handled (-1: the message did not follow one). */
    private long telemetryApi = -1;
    private long lastApi = -1;

    BoltProtocol(Version version, BoltServices services, String id, String client, Wire wire) {
        this.version = version;
        this.services = services;
        this.id = id;
        this.client = client;
        this.wire = wire;
        this.out = wire.out();
        this.session = services.sessions().open();
        this.results = new Results(version, services, wire);
    }

    State state() {
        return state;
    }

    /** Whether the connection is logging in (nothing before it to interrupt: a RESET queued behind waits). */
    boolean loggingIn() {
        return state == State.NEGOTIATION || state == State.AUTHENTICATION;
    }

    /** A request, in the connection's state. */
    void handle(Request r) throws InterruptedException {
        lastApi = telemetryApi; // a managed transaction's BEGIN directly follows its TELEMETRY
        telemetryApi = -1;
        switch (r) {
            case Goodbye g -> state = State.DEFUNCT;
            case Reset x -> reset();
            default -> {
                switch (state) {
                    case NEGOTIATION -> negotiation(r);
                    case AUTHENTICATION -> authentication(r);
                    case READY -> ready(r);
                    case STREAMING -> streaming(r);
                    case TX_READY, TX_STREAMING -> transaction(r);
                    default -> violation(r);
                }
            }
        }
    }

    private void negotiation(Request r) throws InterruptedException {
        if (!(r instanceof Hello h)) {
            violation(r);
            return;
        }
        try {
            connectionNotices = NoticeFilters.read(h.extra(), version);
        } catch (IllegalArgumentException e) {
            fail(Neo4jError.invalid(e.getMessage()));
            return;
        }
        Map<String, Object> meta = Replies.hello(version, services, id);
        if (version.atLeast(Version.V5_1)) {
            Messages.success(meta, out);
            state = State.AUTHENTICATION;
        } else if (logon(h.extra())) { // Bolt 5.0 and 4.4: the credentials come with HELLO
            Messages.success(meta, out);
            state = State.READY;
        }
    }

    private void authentication(Request r) throws InterruptedException {
        if (!(r instanceof Logon l)) {
            violation(r);
            return;
        }
        if (logon(l.auth())) {
            Messages.success(version.atLeast(Version.V5_8) ? Map.of("advertised_address", services.advertised())
                    : Map.of(), out);
            state = State.READY;
        }
    }

    /** Checks a LOGON's (or an old HELLO's) auth token; on failure answers it and closes the connection. */
    private boolean logon(Map<String, Object> auth) throws InterruptedException {
        Login login;
        try {
            login = wire.blocking(() -> Login.check(auth, services.callers(), client));
        } catch (GraphException impossible) {
            throw new IllegalStateException(impossible);
        }
        if (login.refused() != null) {
            fail(login.refused());
            state = State.DEFUNCT;
            return false;
        }
        caller = login.caller();
        session.login(login.credentials());
        expired = login.expired();
        wire.markLoggedIn();
        return true;
    }

    private void ready(Request r) throws InterruptedException {
        if (expired != null && !(r instanceof Run run && Extras.onSystem(run.extra())) && !(r instanceof Route)
                && !(r instanceof Logoff)) {
            fail(new Neo4jError(Neo4jStatus.Security.CREDENTIALS_EXPIRED, expired));
            return;
        }
        switch (r) {
            case Run run -> autoCommit(run);
            case Begin b -> begin(b);
            case Route route -> route(route);
            case Telemetry t when version.atLeast(Version.V5_4) -> {
                telemetryApi = t.api();
                Messages.success(Map.of(), out);
            }
            case Logoff l when version.atLeast(Version.V5_1) -> {
                caller = null;
                session.logoff();
                expired = null;
                Messages.success(Map.of(), out);
                state = State.AUTHENTICATION;
            }
            default -> violation(r);
        }
    }

    private void streaming(Request r) throws InterruptedException {
        if (r instanceof Pull p) {
            pull(p, results.cursor(p, true));
        } else {
            violation(r);
        }
    }

    private void transaction(Request r) throws InterruptedException {
        switch (r) {
            case Run run -> runInTransaction(run);
            case Pull p -> {
                Cursor c = results.cursor(p, false);
                if (c == null) { // a PULL without its RUN: a protocol violation, as Neo4j has it
                    violation(p);
                } else {
                    pull(p, c);
                }
            }
            case Commit c -> commit();
            case Rollback rb -> {
                endTransaction(false);
                Messages.success(Map.of(), out);
                state = State.READY;
            }
            default -> violation(r);
        }
    }

    // ---- auto-commit ----

    private void autoCommit(Run run) throws InterruptedException {
        long start = services.time().nanos();
        Statement statement = statement(run);
        if (statement == null) {
            return;
        }
        if (Extras.onSystem(run.extra())) {
            onSystem(statement, run, start);
            return;
        }
        Neo4jError bad = Extras.refusal(run.extra(), services.database());
        if (bad != null) {
            fail(bad);
            return;
        }
        Mode mode;
        TxConfig config;
        try {
            mode = Extras.mode(run.extra(), caller.mode());
            config = Extras.config(run.extra(), version.atLeast(Version.V5_0));
            results.autoCommitNotices(NoticeFilters.resolve(NoticeFilters.read(run.extra(), version),
                    connectionNotices));
        } catch (IllegalArgumentException e) {
            fail(Neo4jError.invalid(e.getMessage()));
            return;
        }
        Caller as = Extras.read(run.extra()) ? caller.readOnly() : caller;
        Outcome o = wire.await(session.submit(statement, run.bytes(), Extras.counted(run.extra()), config, mode, as,
                services.blocking()));
        services.metrics().statement(mode, o, services.time().nanos() - start);
        switch (o) {
            case Outcome.Committed c -> stream(Cursor.of(c.results().isEmpty() ? null : c.results().getFirst(),
                    c.kind(), true, null), start, run);
            case Outcome.Accepted a -> stream(Cursor.accepted(Replies.journal(a)), start, run);
            case Outcome.Failed f -> failedRun(f.error(), f.kind(), f.partial(), start, true);
            case Outcome.Overloaded over -> fail(BoltFailures.overloaded(over));
        }
    }

    /** An auto-commit result ready to stream: RUN's SUCCESS. */
    private void stream(Cursor c, long start, Run run) {
        results.autoCommit(c, start, run.extra());
        state = State.STREAMING;
    }

    /**
     * A statement for the {@code system} database (user management, as an administrator sends it): run at once,
     * alone, by a user who may send any Cypher.
     */
    private void onSystem(Statement statement, Run run, long start) throws InterruptedException {
        if (caller.access() != Access.CYPHER && expired == null) {
            fail(new Neo4jError(Neo4jStatus.Security.FORBIDDEN, "this user may not administer the DBMS"));
            return;
        }
        try {
            StatementResult r = wire.blocking(() -> session.system(statement));
            stream(Cursor.system(r), start, run);
        } catch (GraphException e) {
            fail(e.error());
        }
    }

    /** The RUN's statement, its parameters read from the wire; null when they cannot be (the FAILURE is written). */
    private Statement statement(Run run) {
        try {
            return new Statement(run.query(), WireValues.params(run.params(), version.atLeast(Version.V5_0)));
        } catch (WireValues.BadValue e) {
            fail(new Neo4jError(Neo4jStatus.Request.INVALID, e.getMessage()));
            return null;
        }
    }

    // ---- explicit transactions ----

    private void begin(Begin b) throws InterruptedException {
        Neo4jError bad = Extras.refusal(b.extra(), services.database());
        if (bad != null) {
            fail(bad);
            return;
        }
        boolean read = Extras.read(b.extra());
        TxConfig config;
        NoticeFilter notices;
        try {
            config = Extras.config(b.extra(), version.atLeast(Version.V5_0));
            notices = NoticeFilters.resolve(NoticeFilters.read(b.extra(), version), connectionNotices);
        } catch (IllegalArgumentException e) {
            fail(Neo4jError.invalid(e.getMessage()));
            return;
        }
        Caller as = read ? caller.readOnly() : caller;
        boolean managed = lastApi == 0 || lastApi == 3; // a transaction function or an executable query
        try {
            if (session.defers(as, !read, managed, config)) { // nothing to wait for: its first RUN decides how
                session.begin(as, !read, managed, config);
            } else {
                wire.blocking(() -> {
                    session.begin(as, !read, managed, config);
                    return null;
                });
            }
        } catch (GraphException e) {
            fail(e.error());
            return;
        }
        results.began(notices);
        Messages.success(version.atLeast(Version.V5_8) && b.extra().get("db") == null
                ? Map.of("db", services.database()) : Map.of(), out);
        state = State.TX_READY;
        services.metrics().transaction("begin");
    }

    private void runInTransaction(Run run) throws InterruptedException {
        if (failedBefore()) {
            return;
        }
        long start = services.time().nanos();
        Statement statement = statement(run);
        if (statement == null) {
            return;
        }
        Step s;
        try {
            s = wire.blocking(() -> session.run(statement));
        } catch (GraphException e) { // not found, expired, or in use: nothing of it is ours any more
            fail(e.error());
            return;
        }
        if (s.failed()) {
            failedRun(s.failure(), s.kind(0), s.partial(), start, false);
            return;
        }
        results.inTransaction(Cursor.of(s.results().getFirst(), s.kind(0), false, null), start);
        state = State.TX_STREAMING;
    }

    /**
     * A RUN or COMMIT while a result of the transaction still holds back its failure: that failure now (sluice's
     * transaction ended with it; Neo4j would meet it at the COMMIT, and would still run the RUN: a documented
     * difference). Whether it failed so.
     */
    private boolean failedBefore() {
        Neo4jError pending = results.pendingFailure();
        if (pending == null) {
            return false;
        }
        results.clear();
        fail(pending);
        return true;
    }

    private void commit() throws InterruptedException {
        if (failedBefore()) {
            return;
        }
        try {
            wire.blocking(() -> {
                session.commit();
                return null;
            });
        } catch (GraphException e) {
            results.clear();
            fail(e.error());
            return;
        }
        results.clear();
        // a bookmark at or after the commit: a later transaction given it reads after it
        String bookmark = services.bookmarks().current();
        Messages.success(bookmark == null ? Map.of() : Map.of("bookmark", bookmark), out);
        state = State.READY;
        services.metrics().transaction("commit");
    }

    /** Rolls back the open transaction, if any (RESET, ROLLBACK, a failure, a closed connection). */
    void endTransaction(boolean clientGone) {
        results.clear();
        if (session.inTransaction()) {
            session.rollback(clientGone);
            services.metrics().transaction("rollback");
        }
    }

    // ---- results ----

    private void pull(Pull p, Cursor c) throws InterruptedException {
        Neo4jError failed = results.pull(p, c);
        if (failed != null) {
            fail(failed);
        } else if (!c.hasNext() && c.failure() == null) { // a failure still to come is more to pull
            state = c.autoCommit() ? State.READY : results.pending() ? State.TX_STREAMING : State.TX_READY;
        }
    }

    /**
     * A statement that failed: at its RUN, or for a read's runtime error, at its PULL after a RUN SUCCESS, with the
     * columns and the rows it produced before the error ({@code partial}, null: none), as Neo4j streams them.
     */
    private void failedRun(Neo4jError e, QueryKind kind, StatementResult partial, long start, boolean autoCommit) {
        if (kind != QueryKind.READ || BoltFailures.failsBeforeRunning(e)) {
            fail(e);
            return;
        }
        Cursor c = Cursor.of(partial, kind, autoCommit, e);
        if (autoCommit) {
            results.autoCommit(c, start, null);
            state = State.STREAMING;
        } else {
            results.inTransaction(c, start);
            state = State.TX_STREAMING;
        }
    }

    // ---- the rest ----

    private void route(Route r) {
        String db = services.database();
        if (r.db() != null && !r.db().equals(db) && !r.db().equals(Extras.SYSTEM)) {
            fail(new Neo4jError(Neo4jStatus.Database.DATABASE_NOT_FOUND, "Unable to get a routing table for database '"
                    + r.db() + "' because this database does not exist"));
            return;
        }
        Messages.success(Replies.routingTable(r, db, services.advertised()), out);
    }

    private void reset() {
        if (state == State.NEGOTIATION) { // only HELLO may come first
            violation(new Reset());
            return;
        }
        endTransaction(false);
        Messages.success(Map.of(), out);
        state = caller == null ? (version.atLeast(Version.V5_1) ? State.AUTHENTICATION : State.NEGOTIATION)
                : State.READY;
    }

    /** A message the state does not take: FAILURE, then the connection closes, as Neo4j's does. */
    void violation(Request r) {
        State was = state;
        fail(Neo4jError.invalid("Message '" + r.name() + "' cannot be handled by a session in the " + was.name()
                + " state."));
        state = State.DEFUNCT;
    }

    /** A FAILURE, as {@link BoltFailures} tells it; what is open is rolled back, and the connection FAILED. */
    void fail(Neo4jError failure) {
        Neo4jError e = BoltFailures.told(failure);
        services.metrics().failure(e.code());
        Messages.failure(e, version, out);
        if (state != State.DEFUNCT) {
            endTransaction(false);
            state = loggingIn() ? state : State.FAILED;
        }
    }

    /** A message that could not be read ({@code fatal}: the connection closes after the FAILURE). */
    void unreadable(Neo4jError error, boolean fatal) {
        if (state == State.FAILED && !fatal) {
            Messages.ignored(out);
            return;
        }
        fail(error);
        if (fatal || loggingIn()) {
            state = State.DEFUNCT;
        }
    }

    /** The connection closed: what is open is rolled back as its client's going. */
    void closed() {
        endTransaction(true);
    }
}
