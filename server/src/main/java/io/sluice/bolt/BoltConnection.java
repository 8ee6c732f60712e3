package io.sluice.bolt;

import io.netty.channel.Channel;
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
import io.sluice.group.TransactionGroups;
import io.sluice.security.Credentials;
import io.sluice.sink.Sink;
import io.sluice.vocab.GraphException;
import io.sluice.vocab.Neo4jError;
import io.sluice.vocab.Neo4jStatus;
import io.sluice.vocab.QueryKind;
import io.sluice.vocab.StatementResult;
import io.sluice.write.Caller;
import io.sluice.write.ExplicitTransactions;
import io.sluice.write.Outcome;
import io.sluice.write.Statement;
import io.sluice.write.WriteRequest.CypherRequest;
import java.io.ByteArrayOutputStream;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * One Bolt connection after its handshake: the protocol's state machine, run top to bottom on a virtual thread
 * of its own.
 *
 * <h2>Design</h2>
 * <ul>
 *   <li><b>Two threads, one queue.</b> The connection's Netty event loop decodes messages and {@link #received
 *       queues} them; the worker takes them one at a time, in order, and may block (a credentials check, a
 *       statement in an explicit transaction, a write waiting for its group's commit). Replies accumulate in one
 *       buffer that is written when the queue is empty: a driver's pipelined RUN and PULL are answered in one
 *       write. A queue past {@link #HIGH_WATER} stops reading from the socket until it drains.</li>
 *   <li><b>Auto-commit writes are group-committed.</b> RUN goes to the write path as a one-statement request
 *       (with its counters, which a driver's summary needs, so never coalesced) and its RUN SUCCESS is held
 *       until the request's outcome: for a sync write, the commit of the batch it joined. The final PULL
 *       SUCCESS, which drivers take as the commit's acknowledgement, can therefore only follow a commit. The
 *       records are the materialised result; PULL pages them. While a reply is held longer than the
 *       keep-alive, NOOP chunks keep the driver's read timeout (the {@code connection.recv_timeout_seconds}
 *       hint) from firing.</li>
 *   <li><b>Where an error surfaces</b> follows Neo4j: what is found before anything runs (syntax, a missing
 *       parameter, access, admission) fails the RUN; what happens while running (a constraint, arithmetic)
 *       fails the PULL after a RUN SUCCESS.</li>
 *   <li><b>Explicit transactions</b> (BEGIN ... COMMIT) are the write path's real, registry-held transactions,
 *       the HTTP APIs' kind: bounded together with theirs, expiring when idle, rolled back when the connection
 *       goes.</li>
 *   <li><b>RESET</b> is seen by the event loop first: every message queued before it is answered IGNORED
 *       (what Neo4j calls the interrupted state), then RESET rolls back what is open and answers SUCCESS. A
 *       write already handed to the write path cannot be called back; its true outcome is answered.</li>
 * </ul>
 * Failures of the client's making put the connection in the FAILED state (IGNORED until RESET); a message that
 * cannot be read at all, or one the state does not take (a protocol violation), closes it after a FAILURE, as
 * Neo4j's server does. Its parts: {@link Login} (what an auth token amounts to), {@link Cursor} (a result being
 * pulled), {@link Outbox} (replies on their way out). What is left, over 400 lines, is the state machine itself,
 * kept in one class so that each state's messages read top to bottom in one place.
 */
final class BoltConnection implements Runnable {
    /** Queued messages past which the socket is not read until the queue drains to {@link #LOW_WATER}. */
    static final int HIGH_WATER = 256;
    static final int LOW_WATER = 32;
    /**
     * Queued bytes past which the socket is not read either: with messages of up to {@code bolt.max_message}
     * each, a count alone would let one connection queue hundreds of them.
     */
    static final long HIGH_WATER_BYTES = 16L << 20;
    /** What replies are buffered to before they are written even though more messages wait. */
    private static final int FLUSH_BYTES = 64 * 1024;

    enum State { NEGOTIATION, AUTHENTICATION, READY, STREAMING, TX_READY, TX_STREAMING, FAILED, DEFUNCT }

    /** A message that could not be read: {@code fatal} closes the connection after the FAILURE. */
    record Unreadable(Neo4jError error, boolean fatal) {}

    private static final Object CLOSED = new Object();
    private static final String SYSTEM = "system";

    private final Channel channel;
    private final Version version;
    private final BoltServices services;
    private final String id;
    private final String client;
    private final LinkedBlockingQueue<Queued> inbox = new LinkedBlockingQueue<>();
    private final AtomicLong queuedBytes = new AtomicLong();
    private final AtomicInteger interrupts = new AtomicInteger();
    private final Outbox outbox;
    /** Where replies are written (the outbox's buffer). */
    private final ByteArrayOutputStream out;

    /** Messages received and not yet answered (queued, or being handled): what a drain waits for. */
    private final AtomicInteger unanswered = new AtomicInteger();
    private volatile boolean loggedIn;
    private volatile Runnable onLogin = () -> { };
    private final PackStream.Limits limits;

    // confined to the worker
    private State state = State.NEGOTIATION;
    private Caller caller;
    /**
     * What LOGON presented (null with authentication off), until the first statement on {@code system} logs it in
     * as a session of that user, as Neo4j's server holds a connection's login (then dropped).
     */
    private Credentials credentials;
    private Sink.SystemSession system;
    /** Logged in with a password that must be changed: only ALTER CURRENT USER on system, as Neo4j allows. */
    private String expired;
    private Cursor cursor;
    private String txId;
    private Caller txCaller;
    private final Map<Long, Cursor> txCursors = new HashMap<>();
    private long nextQid;
    /** The api of the TELEMETRY just before the message being handled (-1: the message did not follow one). */
    private long telemetryApi = -1;
    private long lastApi = -1;
    /** A BEGIN that may be grouped was answered without a transaction: the first RUN decides how it runs. */
    private boolean groupedBegin;
    /** This connection's transaction as a member of a group, while it is one. */
    private TransactionGroups.Member member;
    /** Groups this connection's transactions aborted in a row, and until when its transactions run alone. */
    private int strikes;
    private boolean demoted;
    private long aloneUntil;
    private boolean closing;

    BoltConnection(Channel channel, Version version, BoltServices services, String id, String client,
            PackStream.Limits limits) {
        this.limits = limits;
        this.channel = channel;
        this.version = version;
        this.services = services;
        this.id = id;
        this.client = client;
        this.outbox = new Outbox(channel);
        this.out = outbox.buffer();
    }

    /**
     * On the event loop: a whole message's bytes, in the order it arrived ({@code reset}: it is a RESET, which
     * interrupts what is queued before it). Decoded on the worker.
     */
    void received(byte[] message, boolean reset) {
        if (reset) {
            interrupts.incrementAndGet();
        }
        enqueue(message, message.length);
    }

    /** On the event loop: the bytes cannot be framed (a message over the limit): FAILURE, then closed. */
    void unreadable(Neo4jError error) {
        channel.config().setAutoRead(false);
        enqueue(new Unreadable(error, true), 0);
    }

    private void enqueue(Object message, int bytes) {
        unanswered.incrementAndGet();
        queuedBytes.addAndGet(bytes);
        inbox.add(new Queued(message, bytes));
        if (inbox.size() > HIGH_WATER || queuedBytes.get() > HIGH_WATER_BYTES) {
            channel.config().setAutoRead(false);
        }
    }

    /** Runs {@code action} (on the worker) once the connection has logged in: it may then send large messages. */
    void onLogin(Runnable action) {
        this.onLogin = action;
    }

    /** Whether the connection has logged in (its login timeout does not apply). */
    boolean loggedIn() {
        return loggedIn;
    }

    /** A message in the inbox, with its size on the wire (what the inbox's byte bound counts). */
    private record Queued(Object message, int bytes) {}

    /** Whether a message is being handled or waits: what a drain waits for. */
    boolean busy() {
        return unanswered.get() > 0;
    }

    /** On the event loop: the socket closed. The worker rolls back what is open and ends. */
    void closed() {
        inbox.add(new Queued(CLOSED, 0));
        signalWritable();
    }

    /** On the event loop: the socket's writability changed. */
    void signalWritable() {
        outbox.signalWritable();
    }

    @Override
    public void run() {
        try {
            while (state != State.DEFUNCT) {
                Queued q = inbox.poll();
                if (q == null) {
                    flush();
                    // the queue is empty: whatever stopped the reading (its size, its bytes) is gone
                    if (!channel.config().isAutoRead()) {
                        channel.config().setAutoRead(true);
                    }
                    q = inbox.take();
                }
                Object m = q.message();
                if (m == CLOSED) {
                    break;
                }
                long bytes = queuedBytes.addAndGet(-q.bytes());
                if (!channel.config().isAutoRead() && inbox.size() <= LOW_WATER && bytes <= HIGH_WATER_BYTES / 4) {
                    channel.config().setAutoRead(true);
                }
                try {
                    handle(m, q.bytes());
                } finally {
                    unanswered.decrementAndGet();
                }
                if (out.size() > FLUSH_BYTES) {
                    flush();
                }
            }
            flush();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (RuntimeException | Error e) {
            // a bug of sluice's, not the client's: say so before the connection goes, rather than vanish
            services.log().warn("Bolt connection {} failed: {}", id, e.toString(), e);
            try {
                Messages.failure(Neo4jError.unknown("sluice failed on this connection: " + e), version, out);
                flush();
            } catch (InterruptedException | RuntimeException ignored) {
                Thread.currentThread().interrupt();
            }
        } finally {
            closing = true;
            endTransaction();
            channel.close();
            services.metrics().connectionClosed();
        }
    }

    private void handle(Object queued, int bytes) throws InterruptedException {
        Object m = queued instanceof byte[] b ? decode(b) : queued;
        if (m instanceof Unreadable u) {
            services.metrics().message("UNREADABLE");
            if (state == State.FAILED && !u.fatal()) {
                Messages.ignored(out);
                return;
            }
            fail(u.error());
            if (u.fatal() || state == State.NEGOTIATION || state == State.AUTHENTICATION) {
                state = State.DEFUNCT;
            }
            return;
        }
        Request r = (Request) m;
        services.metrics().message(r.name());
        lastApi = telemetryApi; // a managed transaction's BEGIN directly follows its TELEMETRY
        telemetryApi = -1;
        if (r instanceof Goodbye) {
            state = State.DEFUNCT;
            return;
        }
        if (r instanceof Reset) {
            interrupts.decrementAndGet();
            if (state == State.NEGOTIATION) { // only HELLO may come first
                violation(r);
                return;
            }
            reset();
            return;
        }
        // a RESET queued behind this message interrupts it, but never the login: before it there is nothing to
        // interrupt, and a HELLO ignored would leave the connection with no way forward
        boolean loggingIn = state == State.NEGOTIATION || state == State.AUTHENTICATION;
        if ((interrupts.get() > 0 && !loggingIn) || state == State.FAILED) {
            Messages.ignored(out);
            return;
        }
        switch (state) {
            case NEGOTIATION -> negotiation(r);
            case AUTHENTICATION -> authentication(r);
            case READY -> ready(r);
            case STREAMING -> streaming(r);
            case TX_READY, TX_STREAMING -> transaction(r);
            default -> violation(r);
        }
    }

    /** A message's bytes as a request, or why they are not one. */
    private Object decode(byte[] bytes) {
        Object value;
        try {
            PackStream.Unpacker u = new PackStream.Unpacker(bytes, limits);
            value = u.unpack();
            if (!u.done()) {
                throw new PackStream.PackStreamException("a message is one value; bytes follow it");
            }
        } catch (PackStream.PackStreamException e) {
            return new Unreadable(Neo4jError.invalid("cannot read the message: " + e.getMessage()), true);
        }
        try {
            return Messages.read(value, version, bytes.length);
        } catch (Messages.Invalid e) {
            return new Unreadable(Neo4jError.invalid(e.getMessage()), e.fatal);
        }
    }

    private void negotiation(Request r) throws InterruptedException {
        if (!(r instanceof Hello h)) {
            violation(r);
            state = State.DEFUNCT;
            return;
        }
        // as Neo4j 2026.08 answers (docs/reference/neo4j-bolt-behaviour.md, section 2); no telemetry hint, so
        // drivers send no TELEMETRY, as to Neo4j
        Map<String, Object> meta = new LinkedHashMap<>();
        meta.put("server", services.serverAgent());
        if (version.atLeast(Version.V5_8)) {
            meta.put("protocol_version", version.toString());
        }
        meta.put("connection_id", id);
        // with grouping on, drivers are asked for TELEMETRY: it is what tells a managed transaction (which a driver
        // retries) from one the application began itself (docs/reference/driver-telemetry.md)
        meta.put("hints", services.grouping().on() && version.atLeast(Version.V5_4)
                ? Map.of("connection.recv_timeout_seconds", services.recvTimeoutSeconds(), "telemetry.enabled", true)
                : Map.of("connection.recv_timeout_seconds", services.recvTimeoutSeconds()));
        if (version.atLeast(Version.V5_1)) {
            Messages.success(meta, out);
            state = State.AUTHENTICATION;
            return;
        }
        // Bolt 5.0 and 4.4: the credentials come with HELLO
        if (logon(h.extra())) {
            Messages.success(meta, out);
            state = State.READY;
        }
    }

    private void authentication(Request r) throws InterruptedException {
        if (r instanceof Logon l) {
            if (logon(l.auth())) {
                Messages.success(version.atLeast(Version.V5_8) ? Map.of("advertised_address", services.advertised())
                        : Map.of(), out);
                state = State.READY;
            }
            return;
        }
        violation(r);
        state = State.DEFUNCT;
    }

    /** Checks a LOGON's (or an old HELLO's) auth token; on failure answers it and closes the connection. */
    private boolean logon(Map<String, Object> auth) throws InterruptedException {
        Login login;
        try {
            login = blocking(() -> Login.check(auth, services.callers(), client));
        } catch (GraphException impossible) {
            throw new IllegalStateException(impossible);
        }
        if (login.refused() != null) {
            fail(login.refused());
            state = State.DEFUNCT;
            return false;
        }
        caller = login.caller();
        credentials = login.credentials();
        system = null;
        expired = login.expired();
        if (!loggedIn) {
            loggedIn = true;
            onLogin.run();
        }
        return true;
    }

    private void ready(Request r) throws InterruptedException {
        if (expired != null && !(r instanceof Run run && SYSTEM.equals(run.extra().get("db")))
                && !(r instanceof Route) && !(r instanceof Logoff)) {
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
                credentials = null;
                system = null;
                expired = null;
                Messages.success(Map.of(), out);
                state = State.AUTHENTICATION;
            }
            default -> violation(r);
        }
    }

    private void streaming(Request r) throws InterruptedException {
        if (r instanceof Pull p) {
            pull(p, cursor);
        } else {
            violation(r);
        }
    }

    private void transaction(Request r) throws InterruptedException {
        switch (r) {
            case Run run -> runInTransaction(run);
            case Pull p -> {
                Cursor c = txCursors.get(p.qid() == -1 ? nextQid - 1 : p.qid());
                if (c == null) { // a PULL without its RUN: a protocol violation, as Neo4j has it
                    violation(p);
                } else {
                    pull(p, c);
                }
            }
            case Commit c -> commit();
            case Rollback rb -> {
                endTransaction();
                Messages.success(Map.of(), out);
                state = State.READY;
            }
            default -> violation(r);
        }
    }

    // ---- auto-commit ----

    private void autoCommit(Run run) throws InterruptedException {
        long start = services.time().nanos();
        if (SYSTEM.equals(run.extra().get("db"))) {
            onSystem(run, start);
            return;
        }
        Prepared p = prepare(run, true);
        if (p == null) {
            return;
        }
        CompletableFuture<Outcome> future = services.writes().submit(new CypherRequest(List.of(p.statement()),
                run.bytes(), counted(run.extra())), p.mode(), p.caller(), services.blocking());
        Outcome o = await(future);
        services.metrics().request(p.mode(), o, services.time().nanos() - start);
        switch (o) {
            case Outcome.Committed c -> {
                cursor = Cursor.of(c.results().isEmpty() ? null : c.results().getFirst(),
                        services.writes().kind(run.query()), true, null);
                started(cursor, start, -1, run.extra());
                state = State.STREAMING;
            }
            case Outcome.Accepted a -> {
                Map<String, Object> journal = new LinkedHashMap<>();
                journal.put("mode", "async");
                journal.put("offset", a.offset());
                if (a.partition() >= 0) {
                    journal.put("partition", (long) a.partition());
                }
                cursor = Cursor.accepted(journal);
                started(cursor, start, -1, run.extra());
                state = State.STREAMING;
            }
            case Outcome.Failed f -> failedRun(p.caller() != caller && f.error().code().equals(
                    Neo4jStatus.Security.FORBIDDEN) ? readAccessMode() : f.error(), services.writes().kind(run.query()),
                    start, true);
            case Outcome.Overloaded over -> fail(new Neo4jError(Neo4jStatus.Request.NO_THREADS_AVAILABLE,
                    over.reason() + "; retry after " + over.retryAfter().toMillis() + " ms"));
        }
    }

    /**
     * A statement for the {@code system} database (user management, as an administrator sends it): run at once,
     * alone, by a user who may send any Cypher.
     */
    private void onSystem(Run run, long start) throws InterruptedException {
        if (caller.access() != Access.CYPHER && expired == null) {
            fail(new Neo4jError(Neo4jStatus.Security.FORBIDDEN, "this user may not administer the DBMS"));
            return;
        }
        try {
            Map<String, Object> params = WireValues.params(run.params(), version.atLeast(Version.V5_0));
            if (system == null) { // logged in once as the user; the password is not kept past it
                Credentials user = credentials;
                system = blocking(() -> services.system().as(user));
                credentials = null;
            }
            Sink.SystemSession session = system;
            StatementResult r = blocking(() -> session.run(run.query(), params));
            cursor = Cursor.system(r);
            started(cursor, start, -1, run.extra());
            state = State.STREAMING;
        } catch (WireValues.BadValue e) {
            fail(Neo4jError.invalid(e.getMessage()));
        } catch (GraphException e) {
            fail(e.error());
        }
    }

    /** A statement, its mode and the caller it runs as; null when refused (the FAILURE is written). */
    private record Prepared(Statement statement, Mode mode, Caller caller) {}

    private Prepared prepare(Run run, boolean autoCommit) {
        Map<String, Object> params;
        try {
            params = WireValues.params(run.params(), version.atLeast(Version.V5_0));
        } catch (WireValues.BadValue e) {
            fail(new Neo4jError(Neo4jStatus.Request.INVALID, e.getMessage()));
            return null;
        }
        if (!autoCommit) {
            return new Prepared(new Statement(run.query(), params), Mode.SYNC, txCaller);
        }
        Neo4jError bad = checkDatabase(run.extra());
        bad = bad != null ? bad : Bookmarks.check(run.extra().get("bookmarks"));
        if (bad != null) {
            fail(bad);
            return null;
        }
        Mode mode;
        try {
            mode = modeOf(run.extra());
        } catch (IllegalArgumentException e) {
            fail(Neo4jError.invalid(e.getMessage()));
            return null;
        }
        return new Prepared(new Statement(run.query(), params), mode, readOnly(run.extra()));
    }

    /**
     * Whether the statement's update counters are kept (its summary's {@code counters()}): yes unless its
     * transaction metadata says {@code {sluice: {counters: false}}}; without them the write path may coalesce it
     * with others running the same statement (one {@code UNWIND} for all), and its summary has no {@code stats}.
     */
    private static boolean counted(Map<String, Object> extra) {
        return !(extra.get("tx_metadata") instanceof Map<?, ?> meta && meta.get("sluice") instanceof Map<?, ?> s
                && Boolean.FALSE.equals(s.get("counters")));
    }

    /** {@code tx_metadata: {sluice: {mode: async}}} asks for a mode; the user's default otherwise. */
    private Mode modeOf(Map<String, Object> extra) {
        if (extra.get("tx_metadata") instanceof Map<?, ?> meta && meta.get("sluice") instanceof Map<?, ?> s
                && s.get("mode") != null) {
            if (!(s.get("mode") instanceof String text)) {
                throw new IllegalArgumentException("tx_metadata.sluice.mode must be a string: sync, async or direct");
            }
            return Mode.parse(text);
        }
        return caller.mode();
    }

    /** A write in a read session (not a read-only user): Neo4j's own words for it. */
    private Neo4jError readAccessMode() {
        return new Neo4jError(Neo4jStatus.Statement.ACCESS_MODE, "Writing in read access mode not allowed."
                + " Attempted write to " + services.writes().database());
    }

    /** The caller, made read-only for a driver's read session or transaction ({@code mode: "r"}). */
    private Caller readOnly(Map<String, Object> extra) {
        return "r".equals(extra.get("mode")) ? caller.readOnly() : caller;
    }

    private Neo4jError checkDatabase(Map<String, Object> extra) {
        Object db = extra.get("db");
        if (db == null || db.equals(services.writes().database())) {
            return null;
        }
        if (SYSTEM.equals(db)) {
            return new Neo4jError(Neo4jStatus.Transaction.FORBIDDEN_DUE_TO_TRANSACTION_TYPE, "sluice runs statements"
                    + " on the system database as auto-commit statements (session.run) only, not in explicit"
                    + " transactions");
        }
        return new Neo4jError(Neo4jStatus.Database.DATABASE_NOT_FOUND, "Graph not found: " + db);
    }

    /**
     * The RUN SUCCESS of a result that is ready: its fields, the time it took, its qid in a transaction, and (5.8+,
     * auto-commit) the database it ran on when the RUN named none, as Neo4j resolves a home database.
     */
    private void started(Cursor c, long start, long qid, Map<String, Object> extra) {
        Map<String, Object> meta = new LinkedHashMap<>();
        meta.put("t_first", TimeUnit.NANOSECONDS.toMillis(services.time().nanos() - start));
        meta.put("fields", c.fields());
        if (qid >= 0) {
            meta.put("qid", qid);
        } else if (version.atLeast(Version.V5_8) && extra != null && extra.get("db") == null) {
            meta.put("db", services.writes().database());
        }
        Messages.success(meta, out);
    }

    /**
     * A statement that failed: at RUN, as Neo4j reports it for anything found before running and for writes
     * (which it runs eagerly, within RUN); only a read's runtime error comes at the PULL, after a RUN SUCCESS.
     */
    private void failedRun(Neo4jError e, QueryKind kind, long start, boolean autoCommit) {
        if (kind != QueryKind.READ || failsBeforeRunning(e)) {
            fail(e);
            return;
        }
        Cursor c = Cursor.of(null, null, autoCommit, e);
        long qid = autoCommit ? -1 : nextQid++;
        started(c, start, qid, null);
        if (autoCommit) {
            cursor = c;
            state = State.STREAMING;
        } else {
            txCursors.put(qid, c);
            state = State.TX_STREAMING;
        }
    }

    static boolean failsBeforeRunning(Neo4jError e) {
        String code = e.code();
        return code.equals(Neo4jStatus.Statement.SYNTAX_ERROR) || code.equals(Neo4jStatus.Statement.SEMANTIC_ERROR)
                || code.equals(Neo4jStatus.Statement.PARAMETER_MISSING)
                || code.equals(Neo4jStatus.Statement.ACCESS_MODE)
                || code.startsWith(Neo4jStatus.Security.PREFIX) || code.startsWith(Neo4jStatus.Classification.CLIENT_ERROR + "Request.")
                || code.startsWith(Neo4jStatus.Classification.TRANSIENT_ERROR + "Request.")
                || code.equals(Neo4jStatus.Database.DATABASE_NOT_FOUND)
                || code.equals(Neo4jStatus.Transaction.FORBIDDEN_DUE_TO_TRANSACTION_TYPE)
                || code.equals(Neo4jStatus.Transaction.TRANSACTION_NOT_FOUND);
    }

    private void pull(Pull p, Cursor c) throws InterruptedException {
        if (c.failure() != null) {
            finishCursor(c);
            fail(c.failure());
            return;
        }
        long n = p.n() < 0 ? Long.MAX_VALUE : p.n();
        long sent = 0;
        while (sent < n && c.hasNext()) {
            List<Object> row = c.next();
            if (!p.discard()) {
                List<Object> values = new ArrayList<>(row.size());
                for (Object v : row) {
                    values.add(WireValues.out(v, version.atLeast(Version.V5_0), version.atLeast(Version.V5_0)));
                }
                Messages.record(values, out);
                if (out.size() > FLUSH_BYTES) {
                    flush();
                }
            }
            sent++;
        }
        if (c.hasNext()) {
            Messages.success(Map.of("has_more", true), out);
            return;
        }
        Messages.success(c.summary(c.bookmarked() ? services.bookmarks().current() : null,
                services.writes().database()), out);
        finishCursor(c);
    }

    private void finishCursor(Cursor c) {
        if (c.autoCommit()) {
            cursor = null;
            state = State.READY;
        } else {
            txCursors.values().remove(c);
            state = txCursors.isEmpty() ? State.TX_READY : State.TX_STREAMING;
        }
    }

    // ---- explicit transactions ----

    private void begin(Begin b) throws InterruptedException {
        Neo4jError bad = checkDatabase(b.extra());
        bad = bad != null ? bad : Bookmarks.check(b.extra().get("bookmarks"));
        if (bad != null) {
            fail(bad);
            return;
        }
        Caller as = readOnly(b.extra());
        if (groupable(b, as)) {
            // answered at once: the first RUN joins a group, or opens a real transaction if it cannot share one
            groupedBegin = true;
            begun(b, as);
            return;
        }
        try {
            ExplicitTransactions.Step s = blocking(() -> services.transactions().open(List.of(), as));
            txId = s.id();
            begun(b, as);
        } catch (GraphException e) {
            fail(e.error());
        }
    }

    /** BEGIN's SUCCESS: the transaction is {@code as}'s, its statements numbered from 0. */
    private void begun(Begin b, Caller as) {
        txCaller = as;
        txCursors.clear();
        nextQid = 0;
        Messages.success(version.atLeast(Version.V5_8) && b.extra().get("db") == null
                ? Map.of("db", services.writes().database()) : Map.of(), out);
        state = State.TX_READY;
        services.metrics().transaction("begin");
    }

    /**
     * Whether a BEGIN may join a group: grouping on for its user, a write transaction of a user who may send Cypher,
     * a managed transaction's first attempt (TELEMETRY 0, a transaction function, or 3, an executable query, just
     * before it: drivers send none before a retry, which therefore runs alone), and this connection not demoted.
     */
    private boolean groupable(Begin b, Caller as) {
        Grouping g = services.grouping();
        return g.on() && (lastApi == 0 || lastApi == 3) && !"r".equals(b.extra().get("mode"))
                && as.access() == Access.CYPHER && g.user().test(as.user())
                && (!demoted || services.time().nanos() - aloneUntil >= 0);
    }

    /**
     * This connection's transaction aborted its group: after two in a row its transactions run alone for a while
     * (1 s, doubling to 30 s), so that one client's failing or rolling-back transactions stop costing others.
     */
    private void struck() {
        strikes++;
        if (strikes >= 2) {
            long seconds = Math.min(30, 1L << Math.min(5, strikes - 2));
            aloneUntil = services.time().nanos() + TimeUnit.SECONDS.toNanos(seconds);
            demoted = true;
        }
    }

    private void runInTransaction(Run run) throws InterruptedException {
        long start = services.time().nanos();
        Prepared p = prepare(run, false);
        if (p == null) {
            return;
        }
        QueryKind kind = services.writes().kind(run.query());
        ExplicitTransactions.Step s;
        if (groupedBegin) {
            groupedBegin = false;
            if (kind == QueryKind.READ || kind == QueryKind.WRITE) {
                member = services.grouping().groups().member();
            } else { // schema, CALL {} IN TRANSACTIONS, or not compiling: a real transaction, with Neo4j's answer
                try {
                    s = blocking(() -> services.transactions().open(List.of(p.statement()), txCaller));
                } catch (GraphException e) {
                    fail(e.error());
                    return;
                }
                txId = s.id();
                stepRan(s, kind, start);
                return;
            }
        }
        if (member != null) {
            TransactionGroups.Member m = member;
            StatementResult r;
            try {
                r = blocking(() -> m.run(p.statement().cypher(), p.statement().params()));
            } catch (GraphException e) {
                member = null; // its group rolled it back
                if (m.abortedGroup()) {
                    struck();
                }
                failedRun(e.error(), kind, start, false);
                return;
            }
            Cursor c = Cursor.of(r, kind, false, null);
            long qid = nextQid++;
            txCursors.put(qid, c);
            started(c, start, qid, null);
            state = State.TX_STREAMING;
            return;
        }
        try {
            String id = txId;
            s = blocking(() -> services.transactions().run(id, List.of(p.statement()), txCaller));
        } catch (GraphException e) {
            txId = null; // not found, expired, or in use: nothing of it is ours any more
            fail(e.error());
            return;
        }
        stepRan(s, kind, start);
    }

    /** Answers a statement run in a real transaction. */
    private void stepRan(ExplicitTransactions.Step s, QueryKind kind, long start) {
        if (s.failed()) {
            txId = null; // the registry rolled it back and ended it
            failedRun(s.failure(), kind, start, false);
            return;
        }
        Cursor c = Cursor.of(s.results().isEmpty() ? null : s.results().getFirst(), kind, false, null);
        long qid = nextQid++;
        txCursors.put(qid, c);
        started(c, start, qid, null);
        state = State.TX_STREAMING;
    }

    private void commit() throws InterruptedException {
        if (groupedBegin) { // nothing ran: nothing to commit
            groupedBegin = false;
            committed();
            return;
        }
        if (member != null) {
            TransactionGroups.Member m = member;
            try {
                blocking(() -> {
                    m.commit();
                    return null;
                });
            } catch (GraphException e) {
                member = null;
                txCursors.clear();
                if (m.abortedGroup()) {
                    struck();
                }
                fail(e.error());
                return;
            }
            member = null;
            txCursors.clear();
            strikes = 0;
            committed();
            return;
        }
        if (txId == null) { // a statement failed; its error is at its PULL, which the driver did not read
            fail(new Neo4jError(Neo4jStatus.Transaction.TRANSACTION_NOT_FOUND,
                    "the transaction was rolled back by a failed statement"));
            return;
        }
        try {
            String id = txId;
            ExplicitTransactions.Step s = blocking(() -> services.transactions().commit(id, List.of(), txCaller));
            txId = null;
            txCursors.clear();
            if (s.failed()) {
                fail(s.failure());
                return;
            }
            committed();
        } catch (GraphException e) {
            txId = null;
            fail(e.error());
        }
    }

    /** COMMIT's SUCCESS, with a bookmark at or after the commit (a later transaction given it reads after it). */
    private void committed() {
        Map<String, Object> meta = new LinkedHashMap<>();
        String bookmark = services.bookmarks().current();
        if (bookmark != null) {
            meta.put("bookmark", bookmark);
        }
        Messages.success(meta, out);
        state = State.READY;
        services.metrics().transaction("commit");
    }

    /** Rolls back the open transaction, if any (RESET, ROLLBACK, a closed connection). */
    private void endTransaction() {
        txCursors.clear();
        groupedBegin = false;
        if (member != null) {
            TransactionGroups.Member m = member;
            member = null;
            if (m.rollback(closing)) {
                struck();
            }
            services.metrics().transaction("rollback");
            return;
        }
        if (txId == null) {
            return;
        }
        String id = txId;
        txId = null;
        try {
            services.transactions().rollback(id, txCaller);
            services.metrics().transaction("rollback");
        } catch (GraphException e) {
            // already ended (expired, or a failed statement): nothing to roll back
        }
    }

    // ---- the rest ----

    private void route(Route r) {
        String address = r.routing().get("address") instanceof String a && !a.isBlank() ? a
                : services.advertised();
        List<Object> servers = new ArrayList<>();
        for (String role : List.of("WRITE", "READ", "ROUTE")) {
            servers.add(Map.of("addresses", List.of(address), "role", role));
        }
        Map<String, Object> rt = new LinkedHashMap<>();
        rt.put("servers", servers);
        rt.put("ttl", 300L);
        rt.put("db", r.db() == null ? services.writes().database() : r.db());
        if (r.db() != null && !r.db().equals(services.writes().database()) && !r.db().equals(SYSTEM)) {
            fail(new Neo4jError(Neo4jStatus.Database.DATABASE_NOT_FOUND, "Unable to get a routing table for database '"
                    + r.db() + "' because this database does not exist"));
            return;
        }
        Messages.success(Map.of("rt", rt), out);
    }

    private void reset() {
        cursor = null;
        endTransaction();
        Messages.success(Map.of(), out);
        state = caller == null ? (version.atLeast(Version.V5_1) ? State.AUTHENTICATION : State.NEGOTIATION)
                : State.READY;
    }

    /** A message the state does not take: FAILURE, then the connection closes, as Neo4j's does. */
    private void violation(Request r) {
        State was = state;
        fail(Neo4jError.invalid("Message '" + r.name() + "' cannot be handled by a session in the " + was.name()
                + " state."));
        state = State.DEFUNCT;
    }

    private void fail(Neo4jError failure) {
        // a driver retries a transient error by itself: a commit that may have happened must not be one; and a
        // routing driver forgets an address that answers DatabaseUnavailable, here the only one: say transient
        Neo4jError e = failure.isCommitOutcomeUnknown()
                ? new Neo4jError(Neo4jStatus.Transaction.TRANSACTION_COMMIT_FAILED, failure.message())
                : failure.code().equals(Neo4jStatus.General.DATABASE_UNAVAILABLE)
                ? new Neo4jError(Neo4jStatus.Sluice.TRANSIENT_FAILURE, failure.message()) : failure;
        services.metrics().failure(e.code());
        Messages.failure(e, version, out);
        if (state != State.DEFUNCT) {
            endTransaction();
            cursor = null;
            state = state == State.NEGOTIATION || state == State.AUTHENTICATION ? state : State.FAILED;
        }
    }

    /** Waits for {@code f}, writing a NOOP each keep-alive interval it takes. */
    private Outcome await(CompletableFuture<Outcome> f) throws InterruptedException {
        try {
            return waitWithNoops(f);
        } catch (ExecutionException e) {
            return new Outcome.Failed(Neo4jError.unknown(String.valueOf(e.getCause())));
        }
    }

    /** Work that may block on the database (a statement, a commit, a credentials check). */
    @FunctionalInterface
    interface SinkCall<T> {
        T call() throws GraphException;
    }

    /**
     * Runs {@code call} where it may block, while this worker keeps the driver's read timeout from firing (a
     * NOOP each keep-alive interval): what is buffered goes out first.
     */
    private <T> T blocking(SinkCall<T> call) throws GraphException, InterruptedException {
        CompletableFuture<T> f = new CompletableFuture<>();
        services.blocking().execute(() -> {
            try {
                f.complete(call.call());
            } catch (GraphException | RuntimeException | Error e) {
                f.completeExceptionally(e);
            }
        });
        try {
            return waitWithNoops(f);
        } catch (ExecutionException e) {
            switch (e.getCause()) {
                case GraphException se -> throw se;
                case RuntimeException re -> throw re;
                case Error err -> throw err;
                default -> throw new IllegalStateException(e.getCause());
            }
        }
    }

    private <T> T waitWithNoops(CompletableFuture<T> f) throws InterruptedException, ExecutionException {
        if (!f.isDone()) {
            flush();
        }
        long every = services.keepAlive().toNanos();
        while (true) {
            try {
                return f.get(every, TimeUnit.NANOSECONDS);
            } catch (TimeoutException e) {
                out.writeBytes(Chunks.NOOP);
                flush();
            }
        }
    }

    private void flush() throws InterruptedException {
        outbox.flush();
    }
}
