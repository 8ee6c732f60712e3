package io.sluice.bench;

import io.sluice.cli.Main;
import io.sluice.config.HostPort;
import io.sluice.time.Time;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.lang.management.ManagementFactory;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Consumer;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Neo4j's own Community server in a JVM of its own: the peer of {@link BenchMode#NEO4J} as a user deploys it
 * ({@link BenchPeer#PROCESS}), one child per measurement.
 *
 * <p><b>Why a process.</b> In the bench's JVM (the older peer, {@link BenchPeer#IN_JVM}) Neo4j's kernel and Cypher
 * runtime are already compiled by sluice's own runs, which embed the same classes, and the server shares the
 * bench's heap and collector. A server of its own compiles its own code from cold and has a heap to itself, as a
 * deployed one has; the bench gives it the same heap and collector flags as its own JVM ({@link #heapFlags}) and
 * the config's page cache, and warms it before measuring (see {@link BenchPrime}).
 *
 * <p><b>The command line</b> is {@code sluice neo4j --http} itself, on this JVM's {@code java} and class path:
 * <pre>
 * JAVA_HOME/bin/java [the bench JVM's -Xms, -Xmx and GC flags] --add-opens=java.base/{java.nio,sun.nio.ch,
 *     java.io,java.lang}=ALL-UNNAMED --enable-native-access=ALL-UNNAMED --sun-misc-unsafe-memory-access=allow
 *     -Xlog:gc:file="HOME/gc.log"::filecount=0
 *     -cp CLASS_PATH Main neo4j --http 127.0.0.1:0 --bolt 127.0.0.1:0 --data HOME
 *     --pagecache BYTES --setting KEY=VALUE ...
 * </pre>
 * with {@code NEO4J_AUTH=neo4j/PASSWORD} (or {@code none}) in its environment. Port 0: the server binds ports
 * the OS picks and its {@code neo4j ready: bolt://HOST:PORT http://HOST:PORT ...} line on stdout says which, so no
 * port is chosen here and raced for.
 *
 * <p><b>Ready</b> is that line, then its discovery ({@code GET /}) answering 200, both within one deadline; the
 * child exiting first fails the start at once, with its exit code and last output lines; a failed start stops
 * the child (below) before it throws: no process is left behind.
 *
 * <p><b>What is read of it</b>: its CPU time from the OS ({@link #handle}), its GC pauses from the GC log it
 * writes ({@link #gcPauseSeconds}, the sum of the {@code Pause} lines: stop-the-world pauses, as the in-JVM
 * reading counts them; a collector that logs none there, ZGC, reads 0), and its JIT compilers' time from its
 * perf data file ({@link #jitSeconds}, {@link PerfData}: what its {@code CompilationMXBean} would say; 0, with
 * a line at start, where that file cannot be read).
 *
 * <p><b>Threads and stop.</b> Owns the child, two named daemon threads that copy its stdout and stderr line by
 * line to the progress stream (prefixed {@value #PREFIX}), and a shutdown hook that kills the child if the bench
 * ends without {@link #close} (Ctrl-C). {@link #close} sends SIGTERM (Neo4j stops cleanly), waits a bounded time,
 * then kills it, then joins the readers (bounded). Used by one thread at a time (the bench's).
 */
final class PeerProcess implements AutoCloseable {
    static final String PREFIX = "neo4j peer: ";
    static final Duration START_TIMEOUT = Duration.ofMinutes(3);
    private static final Duration STOP_TIMEOUT = Duration.ofSeconds(60);
    private static final int TAIL_LINES = 40;
    private static final String READY = "neo4j ready: ";
    private static final Pattern HTTP = Pattern.compile("http://(\\S+)");
    private static final Pattern BOLT = Pattern.compile("bolt://(\\S+)");
    private static final Pattern HEAP_FLAG = Pattern.compile("-Xm[sxn].*|-XX:[+-]Use\\w+GC|-XX:(Max|Min|Initial)"
            + "RAMPercentage=.*|-XX:(MaxGCPauseMillis|ParallelGCThreads|ConcGCThreads|MaxDirectMemorySize)=.*"
            + "|-XX:[+-]AlwaysPreTouch");

    private final Process process;
    private final Path gcLog;
    private final Deque<String> tail = new ArrayDeque<>();
    private final CompletableFuture<HostPort> ready = new CompletableFuture<>();
    private final List<Thread> readers = new ArrayList<>();
    private final Thread hook;
    private HostPort http;
    /** Where its Bolt connector listens, from the ready line; set before {@link #ready} completes. */
    private volatile HostPort bolt;

    private PeerProcess(Process process, Path gcLog) {
        this.process = process;
        this.gcLog = gcLog;
        this.hook = Thread.ofPlatform().name("sluice-bench-neo4j-stop").unstarted(process::destroyForcibly);
        Runtime.getRuntime().addShutdownHook(hook);
    }

    /**
     * Starts the server in {@code home} (made if need be) and waits, up to {@code timeout}, until it serves;
     * {@code neo4jAuth}: {@code none} or {@code neo4j/PASSWORD}. Throws, the child stopped, if it does not.
     */
    static PeerProcess start(Path home, long pagecacheBytes, Map<String, String> settings, String neo4jAuth,
            Duration timeout, PrintStream progress, Time time) throws InterruptedException {
        long deadline = time.nanos() + timeout.toNanos();
        Path gcLog = home.toAbsolutePath().resolve("gc.log");
        ProcessBuilder pb = new ProcessBuilder(command(home.toAbsolutePath(), pagecacheBytes, settings, gcLog));
        pb.environment().put("NEO4J_AUTH", neo4jAuth);
        PeerProcess p;
        try {
            Files.createDirectories(home);
            p = new PeerProcess(pb.start(), gcLog);
        } catch (IOException e) {
            throw new IllegalStateException("cannot start the Neo4j peer process: " + e, e);
        }
        try {
            p.read("sluice-bench-neo4j-stdout", p.process.getInputStream(), true, progress, line -> {
                Matcher m = HTTP.matcher(line);
                Matcher b = BOLT.matcher(line);
                if (line.startsWith(READY) && m.find() && b.find()) {
                    p.bolt = HostPort.parse(b.group(1));
                    p.ready.complete(HostPort.parse(m.group(1)));
                }
            });
            p.read("sluice-bench-neo4j-stderr", p.process.getErrorStream(), false, progress, line -> {});
            p.awaitReady(deadline, timeout, time);
            if (PerfData.jitSeconds(p.process.pid()).isEmpty()) {
                progress.println("bench: the Neo4j peer's JIT time cannot be read (no perf data at "
                        + PerfData.file(p.process.pid()) + "): its jit s reads 0");
            }
            return p;
        } catch (InterruptedException | RuntimeException e) {
            p.close();
            throw e;
        }
    }

    /**
     * The child's command line (see the class's note): this JVM's java, heap and collector flags, module flags
     * as the launcher's, the GC log, then {@code sluice neo4j --http} on ports the OS picks.
     */
    static List<String> command(Path home, long pagecacheBytes, Map<String, String> settings, Path gcLog) {
        List<String> cmd = new ArrayList<>();
        cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        cmd.addAll(heapFlags(ManagementFactory.getRuntimeMXBean().getInputArguments(),
                Runtime.getRuntime().maxMemory()));
        cmd.addAll(List.of("--add-opens=java.base/java.nio=ALL-UNNAMED", "--add-opens=java.base/sun.nio.ch=ALL-UNNAMED",
                "--add-opens=java.base/java.io=ALL-UNNAMED", "--add-opens=java.base/java.lang=ALL-UNNAMED",
                "--enable-native-access=ALL-UNNAMED"));
        if (Runtime.version().feature() >= 23) {
            cmd.add("--sun-misc-unsafe-memory-access=allow");
        }
        cmd.add("-Xlog:gc:file=\"" + gcLog + "\"::filecount=0"); // quoted: a path may hold the option's ':'
        cmd.addAll(List.of("-cp", System.getProperty("java.class.path"), "io.sluice.cli.Main", "neo4j",
                "--http", "127.0.0.1:0", "--bolt", "127.0.0.1:0", "--data", home.toString(),
                "--pagecache", Long.toString(pagecacheBytes)));
        settings.forEach((k, v) -> cmd.addAll(List.of("--setting", k + "=" + v)));
        return cmd;
    }

    /**
     * Of a JVM's arguments, those that size its heap or choose its collector, in order; without an {@code -Xmx}
     * (or a RAM percentage), {@code -Xmx} of {@code maxMemory}, so that the child's heap is no larger than this
     * JVM's. Agents, debuggers, recordings and system properties are not the server's business.
     */
    static List<String> heapFlags(List<String> jvmArguments, long maxMemory) {
        List<String> flags = jvmArguments.stream().filter(a -> HEAP_FLAG.matcher(a).matches()).toList();
        if (flags.stream().noneMatch(f -> f.startsWith("-Xmx") || f.contains("RAMPercentage"))) {
            flags = new ArrayList<>(flags);
            flags.add("-Xmx" + maxMemory);
        }
        return List.copyOf(flags);
    }

    private void awaitReady(long deadline, Duration timeout, Time time) throws InterruptedException {
        try {
            http = ready.get(Math.max(0, deadline - time.nanos()), TimeUnit.NANOSECONDS);
        } catch (TimeoutException e) {
            throw failure("was not ready within " + timeout);
        } catch (ExecutionException e) {
            throw failure("ended before it was ready (exit " + ChildProcess.exitText(process) + ")");
        }
        // the server serves when it prints the line; discovery confirms it from outside, on the bound port
        try (HttpClient client = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build()) {
            String last = "no answer";
            while (time.nanos() < deadline) {
                if (!process.isAlive()) {
                    throw failure("ended after its ready line (exit " + ChildProcess.exitText(process) + ")");
                }
                try {
                    HttpResponse<Void> r = client.send(HttpRequest.newBuilder(URI.create("http://" + http + "/"))
                            .header("Accept", "application/json").timeout(Duration.ofSeconds(10)).build(),
                            HttpResponse.BodyHandlers.discarding());
                    if (r.statusCode() == 200) {
                        return;
                    }
                    last = "status " + r.statusCode();
                } catch (IOException e) {
                    last = e.toString();
                }
                time.sleep(Duration.ofMillis(100));
            }
            throw failure("did not answer its discovery at http://" + http + "/ within " + timeout + " (" + last + ")");
        }
    }

    private IllegalStateException failure(String what) {
        List<String> lines;
        synchronized (tail) {
            lines = List.copyOf(tail);
        }
        return new IllegalStateException("the Neo4j peer process " + what + "; its last lines:\n  "
                + String.join("\n  ", lines));
    }

    /**
     * Copies {@code stream}'s lines to {@code progress} and the tail, each also to {@code each}; the stream that
     * {@code signalsEnd} (stdout, where the ready line comes) fails the wait for it when it ends.
     */
    private void read(String name, InputStream stream, boolean signalsEnd, PrintStream progress,
            Consumer<String> each) {
        readers.add(Thread.ofPlatform().name(name).daemon(true).start(() -> {
            try (BufferedReader r = new BufferedReader(new InputStreamReader(stream, StandardCharsets.UTF_8))) {
                for (String line; (line = r.readLine()) != null; ) {
                    synchronized (tail) {
                        if (tail.size() == TAIL_LINES) {
                            tail.removeFirst();
                        }
                        tail.addLast(line);
                    }
                    each.accept(line);
                    progress.println(PREFIX + line);
                }
            } catch (IOException | RuntimeException e) {
                progress.println(PREFIX + "(its output could not be read: " + e + ")");
            } finally {
                if (signalsEnd) {
                    ready.completeExceptionally(new IOException(name + " ended")); // no-op once ready
                }
            }
        }));
    }

    /** Where its HTTP API listens, as bound. */
    HostPort httpAddress() {
        return http;
    }

    /** Where its Bolt connector listens, as bound. */
    HostPort boltAddress() {
        return bolt;
    }

    /** The child, for its CPU time. */
    ProcessHandle handle() {
        return process.toHandle();
    }

    /** Its JIT compilers' time so far, from its perf data; 0 if that cannot be read. */
    double jitSeconds() {
        return PerfData.jitSeconds(process.pid()).orElse(0);
    }

    /** Its GC pause time so far, from its GC log; 0 while there is none. */
    double gcPauseSeconds() {
        try {
            return gcPauseSeconds(Files.readAllLines(gcLog, StandardCharsets.UTF_8));
        } catch (NoSuchFileException e) {
            return 0;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read the Neo4j peer's GC log " + gcLog, e);
        }
    }

    /**
     * The pauses of {@code -Xlog:gc} lines, in seconds: each line with {@code Pause} that ends with its time
     * ({@code [1.2s][info][gc] GC(3) Pause Young (Allocation Failure) 512M->100M(2048M) 12.345ms}); concurrent
     * phases, and a line still being written (no {@code ms} yet), are not counted.
     */
    static double gcPauseSeconds(List<String> lines) {
        double ms = 0;
        for (String line : lines) {
            int space = line.lastIndexOf(' ');
            if (line.contains(" Pause ") && line.endsWith("ms") && space > 0) {
                try {
                    ms += Double.parseDouble(line.substring(space + 1, line.length() - 2));
                } catch (NumberFormatException e) {
                    // not a pause's line after all
                }
            }
        }
        return ms / 1e3;
    }

    /**
     * SIGTERM, up to 60 s for Neo4j's clean stop, then kill -9 (10 s); joins the readers (5 s each).
     * Interrupted, it kills the child at once and keeps the interrupt.
     */
    @Override
    public void close() {
        try {
            Runtime.getRuntime().removeShutdownHook(hook);
        } catch (IllegalStateException e) {
            // the JVM is shutting down: the hook kills the child
        }
        ChildProcess.stop(process, Duration.ZERO, STOP_TIMEOUT, readers);
    }
}
