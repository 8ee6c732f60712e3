package io.sluice.history;

import io.sluice.history.History.Op;
import io.sluice.history.History.Status;
import io.sluice.history.History.Txn;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.neo4j.driver.AuthToken;
import org.neo4j.driver.AuthTokens;
import org.neo4j.driver.Config;
import org.neo4j.driver.Driver;
import org.neo4j.driver.GraphDatabase;
import org.neo4j.driver.Record;
import org.neo4j.driver.Session;
import org.neo4j.driver.TransactionContext;
import org.neo4j.driver.Value;

/**
 * The list-append workload over Bolt: {@code clients} clients, each with a driver of its own, run managed write
 * transactions ({@code session.executeWrite}, the driver's retry loop included) of one to four micro-operations on
 * {@code keys} keyed lists: {@code read(k)} and {@code append(k, v)} with {@code v} unique in the history. Some
 * transactions roll back on purpose (an application exception in the transaction function), some fail (a statement
 * divides by zero), some disconnect (their driver goes through a {@link CutProxy} that resets the connection
 * mid-transaction). Seeded: the seed fixes every client's plan (the interleaving is the servers'). Bounded in
 * transactions per client and in time.
 *
 * <p>The history holds one transaction per attempt of the driver's retry loop, each with its own values: the last
 * attempt of an executeWrite that returned is committed ({@link Status#OK}); an attempt whose function threw before
 * any cut certainly did not commit ({@link Status#FAIL}); an attempt whose function returned but whose commit failed,
 * or whose connection was cut, is indeterminate ({@link Status#INFO}).
 */
public final class ListAppendWorkload {

    /** The label of the lists; the workload deletes every node with it before it starts. */
    static final String READ = "MATCH (l:HistoryList {k: $k}) RETURN l.v AS v";
    /** A read that takes the node's write lock (a write), so that Neo4j's locking makes the history serializable. */
    static final String LOCKING_READ = "MERGE (l:HistoryList {k: $k}) SET l.reads = coalesce(l.reads, 0) + 1 "
            + "RETURN l.v AS v";
    static final String APPEND = "MERGE (l:HistoryList {k: $k}) ON CREATE SET l.v = [$v] "
            + "ON MATCH SET l.v = coalesce(l.v, []) + $v";
    static final String FAIL = "RETURN 1 / $zero AS x";
    /**
     * What a transaction of one micro-operation appends with (and reads with, below): the same statement, told apart by a comment, as an
     * application's one-statement transactions are by their text. Sluice groups only transactions whose first
     * statement does not begin a shape known to take several (docs/API.md), so with one text for all, every
     * transaction would run alone once the shape is learned and a grouped run would test no groups.
     */
    static final String APPEND_ALONE = APPEND + " // one statement";
    static final String READ_ALONE = READ + " // one statement";
    static final String LOCKING_READ_ALONE = LOCKING_READ + " // one statement";

    public record Options(String uri, String user, String password, long seed, int clients, int txnsPerClient,
                          Duration timeLimit, int keys, int rollbackPercent, int failPercent, int disconnectPercent,
                          boolean lockingReads) {

        /** The defaults, each overridable by a {@code sluice.history.*} system property. */
        public static Options of(String uri, String user, String password, int txnsPerClient, Duration timeLimit,
                                 boolean lockingReads) {
            Long fixed = Long.getLong("sluice.history.seed");
            return new Options(System.getProperty("sluice.history.uri", uri),
                    System.getProperty("sluice.history.user", user),
                    System.getProperty("sluice.history.password", password),
                    fixed != null ? fixed : new Random().nextLong(),
                    Integer.getInteger("sluice.history.clients", 16),
                    Integer.getInteger("sluice.history.txns", txnsPerClient),
                    Duration.ofSeconds(Long.getLong("sluice.history.seconds", timeLimit.toSeconds())),
                    Integer.getInteger("sluice.history.keys", 8),
                    Integer.getInteger("sluice.history.rollback", 6),
                    Integer.getInteger("sluice.history.fail", 6),
                    Integer.getInteger("sluice.history.disconnect", 3),
                    Boolean.parseBoolean(System.getProperty("sluice.history.locking", String.valueOf(lockingReads))));
        }

        AuthToken auth() {
            return user == null || user.isEmpty() ? AuthTokens.none() : AuthTokens.basic(user, password);
        }

        @Override
        public String toString() {
            return uri + ", seed " + seed + ", " + clients + " clients x " + txnsPerClient + " transactions (at most "
                    + timeLimit.toSeconds() + " s), " + keys + " keys, " + rollbackPercent + "% rollback, "
                    + failPercent + "% failing, " + disconnectPercent + "% disconnecting, "
                    + (lockingReads ? "locking reads" : "plain reads");
        }
    }

    /** The logical transactions by their end, the attempts, the time, and what went wrong in the workload itself. */
    public record Outcome(Options options, History history, int committed, int rolledBack, int failed,
                          int indeterminate, int otherErrors, int attempts, long millis, List<String> problems) {
        @Override
        public String toString() {
            return committed + " committed, " + rolledBack + " rolled back, " + failed + " failed, " + indeterminate
                    + " indeterminate (disconnected), " + otherErrors + " other errors; " + attempts
                    + " attempts in all (retries included); " + millis + " ms";
        }
    }

    private enum Kind { COMMIT, ROLLBACK, FAIL, DISCONNECT }

    private record Step(boolean append, int key) {}

    /** What a client means to do; the same plan on every retry, with fresh values. */
    private record Plan(Kind kind, List<Step> steps, int cutAt) {}

    /** An application's decision to roll back: the driver rolls back and does not retry. */
    static final class Rollback extends RuntimeException {
        Rollback() {
            super("rolled back on purpose", null, false, false);
        }
    }

    /** One run of the transaction function. */
    private static final class Attempt {
        final List<Op> ops = new ArrayList<>();
        boolean returned;
        boolean threw;
        boolean cut;
        String error;
    }

    private final Options o;
    private final AtomicLong values = new AtomicLong();
    private final AtomicInteger ids = new AtomicInteger();
    private final ConcurrentLinkedQueue<Txn> txns = new ConcurrentLinkedQueue<>();
    private final ConcurrentLinkedQueue<String> problems = new ConcurrentLinkedQueue<>();
    private final AtomicInteger committed = new AtomicInteger();
    private final AtomicInteger rolledBack = new AtomicInteger();
    private final AtomicInteger failed = new AtomicInteger();
    private final AtomicInteger indeterminate = new AtomicInteger();
    private final AtomicInteger otherErrors = new AtomicInteger();
    private final AtomicInteger attempts = new AtomicInteger();

    private ListAppendWorkload(Options o) {
        this.o = o;
    }

    public static Outcome run(Options o) throws Exception {
        return new ListAppendWorkload(o).run();
    }

    private Config config(long retrySeconds) {
        return Config.builder().withMaxConnectionPoolSize(4).withConnectionTimeout(5, TimeUnit.SECONDS)
                .withMaxTransactionRetryTime(retrySeconds, TimeUnit.SECONDS).build();
    }

    private Outcome run() throws Exception {
        try (Driver d = GraphDatabase.driver(o.uri(), o.auth(), config(30))) {
            prepare(d);
        }
        long start = System.nanoTime();
        long deadline = start + o.timeLimit().toNanos();
        Random seeds = new Random(o.seed());
        List<Future<?>> clients = new ArrayList<>();
        try (ExecutorService pool = Executors.newFixedThreadPool(o.clients())) {
            for (int c = 0; c < o.clients(); c++) {
                int client = c;
                long seed = seeds.nextLong();
                clients.add(pool.submit(() -> {
                    client(client, new Random(seed), deadline);
                    return null;
                }));
            }
            for (Future<?> f : clients) {
                f.get();
            }
        }
        long millis = (System.nanoTime() - start) / 1_000_000;
        Map<Integer, List<Long>> finalState = new HashMap<>();
        try (Driver d = GraphDatabase.driver(o.uri(), o.auth(), config(30)); Session s = d.session()) {
            List<Record> rows = s.executeRead(tx -> tx.run("MATCH (l:HistoryList) RETURN l.k AS k, l.v AS v").list());
            for (Record r : rows) {
                int k = r.get("k").asInt();
                if (finalState.put(k, list(r.get("v"))) != null) {
                    problems.add("final state: several HistoryList nodes with k " + k);
                }
            }
        }
        List<Txn> all = new ArrayList<>(txns);
        all.sort((a, b) -> Integer.compare(a.id(), b.id()));
        return new Outcome(o, new History(o.seed(), all, finalState), committed.get(), rolledBack.get(), failed.get(),
                indeterminate.get(), otherErrors.get(), attempts.get(), millis, List.copyOf(problems));
    }

    /** No lists left from an earlier run; a uniqueness constraint so that concurrent MERGEs make one node per key. */
    private void prepare(Driver d) {
        try (Session s = d.session()) {
            s.run("MATCH (l:HistoryList) DETACH DELETE l").consume();
            try {
                s.run("CREATE CONSTRAINT history_list_k IF NOT EXISTS FOR (l:HistoryList) REQUIRE l.k IS UNIQUE")
                        .consume();
            } catch (RuntimeException e) {
                // e.g. a server that takes no schema over Bolt: the test's configuration must create it
                System.err.println("history workload: no constraint made over Bolt (" + e.getMessage() + ")");
            }
        }
    }

    private void client(int client, Random rnd, long deadline) {
        try (Driver driver = GraphDatabase.driver(o.uri(), o.auth(), config(30))) {
            for (int i = 0; i < o.txnsPerClient() && System.nanoTime() < deadline; i++) {
                Plan plan = plan(rnd);
                if (plan.kind() == Kind.DISCONNECT) {
                    disconnecting(client, i, plan);
                } else {
                    transaction(driver, client, i, plan, null);
                }
            }
        }
    }

    private Plan plan(Random rnd) {
        int n = 1 + rnd.nextInt(4);
        List<Step> steps = new ArrayList<>();
        for (int j = 0; j < n; j++) {
            steps.add(new Step(rnd.nextBoolean(), rnd.nextInt(o.keys())));
        }
        int p = rnd.nextInt(100);
        Kind kind = p < o.rollbackPercent() ? Kind.ROLLBACK : p < o.rollbackPercent() + o.failPercent() ? Kind.FAIL
                : p < o.rollbackPercent() + o.failPercent() + o.disconnectPercent() ? Kind.DISCONNECT : Kind.COMMIT;
        return new Plan(kind, steps, rnd.nextInt(n + 1));
    }

    /** A transaction whose driver goes through a proxy that resets the connection after {@code cutAt} steps. */
    private void disconnecting(int client, int logical, Plan plan) {
        URI u = URI.create(o.uri());
        try (CutProxy proxy = CutProxy.start(u.getHost(), u.getPort() < 0 ? 7687 : u.getPort());
             Driver d = GraphDatabase.driver("bolt://127.0.0.1:" + proxy.port(), o.auth(), config(1))) {
            transaction(d, client, logical, plan, proxy);
        } catch (java.io.IOException e) {
            problems.add("client " + client + ": no proxy: " + e);
        }
    }

    private void transaction(Driver driver, int client, int logical, Plan plan, CutProxy proxy) {
        List<Attempt> runs = new ArrayList<>();
        Throwable error = null;
        try (Session session = driver.session()) {
            session.executeWrite(tx -> {
                Attempt a = new Attempt();
                runs.add(a);
                attempts.incrementAndGet();
                try {
                    for (int j = 0; j <= plan.steps().size(); j++) {
                        if (j == plan.cutAt()) {
                            switch (plan.kind()) {
                                case ROLLBACK -> throw new Rollback();
                                case FAIL -> tx.run(FAIL, Map.of("zero", 0)).consume();
                                case DISCONNECT -> {
                                    a.cut = true;
                                    proxy.cut();
                                }
                                case COMMIT -> { }
                            }
                        }
                        if (j < plan.steps().size()) {
                            step(tx, plan.steps().get(j), a, alone(plan));
                        }
                    }
                    a.returned = true;
                    return null;
                } catch (RuntimeException e) {
                    a.threw = true;
                    a.error = e.getClass().getSimpleName() + ": " + e.getMessage();
                    throw e;
                }
            });
        } catch (RuntimeException e) {
            error = e;
        }
        for (int i = 0; i < runs.size(); i++) {
            Attempt a = runs.get(i);
            boolean last = i == runs.size() - 1;
            Status s = error == null && last ? Status.OK : a.threw && !a.cut ? Status.FAIL : Status.INFO;
            String note = s == Status.OK ? "committed" : a.cut ? "connection cut" : a.threw ? a.error
                    : "commit failed: " + (last && error != null ? error.getMessage() : "retried");
            txns.add(new Txn(ids.incrementAndGet(), client, logical, i + 1, s, note, a.ops));
        }
        if (error == null) {
            committed.incrementAndGet();
        } else if (error instanceof Rollback) {
            rolledBack.incrementAndGet();
        } else if (plan.kind() == Kind.DISCONNECT) {
            indeterminate.incrementAndGet();
        } else if (plan.kind() == Kind.FAIL && String.valueOf(error.getMessage()).contains("zero")) {
            failed.incrementAndGet();
        } else {
            otherErrors.incrementAndGet();
            if (otherErrors.get() <= 20) {
                problems.add("client " + client + " transaction " + logical + " (" + plan.kind() + "): " + error);
            }
        }
    }

    /** Whether {@code plan} sends one statement: one step, and no failing statement after it. */
    private static boolean alone(Plan plan) {
        return plan.steps().size() == 1 && !(plan.kind() == Kind.FAIL && plan.cutAt() > 0);
    }

    private void step(TransactionContext tx, Step s, Attempt a, boolean one) {
        if (s.append()) {
            long v = values.incrementAndGet();
            a.ops.add(Op.append(s.key(), v)); // before it runs: an append in flight at a cut may yet be visible
            tx.run(one ? APPEND_ALONE : APPEND, Map.of("k", s.key(), "v", v)).consume();
        } else {
            String read = o.lockingReads() ? (one ? LOCKING_READ_ALONE : LOCKING_READ) : one ? READ_ALONE : READ;
            List<Record> rows = tx.run(read, Map.of("k", s.key())).list();
            if (rows.size() > 1) {
                problems.add("read(k" + s.key() + "): " + rows.size() + " HistoryList nodes");
            }
            a.ops.add(Op.read(s.key(), rows.isEmpty() ? List.of() : list(rows.getFirst().get("v"))));
        }
    }

    private static List<Long> list(Value v) {
        return v == null || v.isNull() ? List.of() : v.asList(Value::asLong);
    }
}
