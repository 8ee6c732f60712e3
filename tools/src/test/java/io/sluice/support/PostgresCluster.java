package io.sluice.support;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * A PostgreSQL cluster of a test's own, from the distribution's packages ({@code /usr/lib/postgresql/<v>/bin}): its
 * data directory under the test's, listening on 127.0.0.1 at a free port (socket in the data directory), logical
 * replication on, trust authentication (loopback only). PostgreSQL refuses to run as root: as root the commands run
 * as the {@code postgres} user through {@code runuser} (docs/reference/debezium-postgres.md, section 2).
 * {@link #available} says whether it can run here; a test that needs it skips otherwise.
 */
public final class PostgresCluster implements AutoCloseable {
    public final Path data;
    public final int port;
    private final Path bin;

    private PostgresCluster(Path bin, Path data, int port) {
        this.bin = bin;
        this.data = data;
        this.port = port;
    }

    /** The newest installed PostgreSQL's bin directory, or null. */
    public static Path bin() {
        Path root = Path.of("/usr/lib/postgresql");
        if (!Files.isDirectory(root)) {
            return null;
        }
        try (Stream<Path> versions = Files.list(root)) {
            return versions.map(v -> v.resolve("bin")).filter(b -> Files.isExecutable(b.resolve("initdb")))
                    .max(Comparator.comparing(b -> Integer.parseInt(b.getParent().getFileName().toString()
                            .replaceAll("\\D", "0")))).orElse(null);
        } catch (IOException e) {
            return null;
        }
    }

    /** Whether a cluster can be made here: the binaries, and as root, the postgres user and runuser. */
    public static boolean available() {
        if (bin() == null) {
            return false;
        }
        return !isRoot() || Files.isExecutable(Path.of("/usr/sbin/runuser")) && run(List.of("id", "postgres"));
    }

    private static boolean isRoot() {
        return "root".equals(System.getProperty("user.name"));
    }

    /** initdb in {@code dir}/data, then starts it on a free port. */
    public static PostgresCluster start(Path dir) throws Exception {
        Path bin = bin();
        Path data = dir.resolve("data");
        Files.createDirectories(data);
        if (isRoot()) {
            exec(List.of("chown", "-R", "postgres:postgres", dir.toString()));
            for (Path p = dir.toAbsolutePath().getParent(); p != null; p = p.getParent()) {
                exec(List.of("chmod", "o+x", p.toString())); // a temporary directory is 700: let postgres through
            }
        }
        exec(List.of("chmod", "700", data.toString()));
        exec(as(List.of(bin.resolve("initdb").toString(), "-D", data.toString(), "-U", "postgres", "-A", "trust",
                "-E", "UTF8", "--locale=C.UTF-8")));
        PostgresCluster c = new PostgresCluster(bin, data, TestServer.freePort());
        c.startServer();
        return c;
    }

    private void startServer() throws Exception {
        exec(as(List.of(bin.resolve("pg_ctl").toString(), "-D", data.toString(), "-l",
                data.resolveSibling("postgres.log").toString(), "-w", "-t", "60", "start", "-o",
                "-c listen_addresses=127.0.0.1 -p " + port + " -k " + data + " -c wal_level=logical"
                        + " -c max_replication_slots=4 -c max_wal_senders=4 -c max_connections=50")));
    }

    /** Stops it (fast: sessions ended, a clean shutdown) and starts it again on the same port. */
    public void restart() throws Exception {
        stop("fast");
        startServer();
    }

    public String jdbcUrl(String database) {
        return "jdbc:postgresql://127.0.0.1:" + port + "/" + database;
    }

    public Connection connect(String database) throws SQLException {
        return DriverManager.getConnection(jdbcUrl(database), "postgres", "");
    }

    /** Runs statements on {@code database}, each on its own (auto-commit). */
    public void execute(String database, String... statements) throws SQLException {
        try (Connection c = connect(database); Statement s = c.createStatement()) {
            for (String sql : statements) {
                s.execute(sql);
            }
        }
    }

    private void stop(String mode) throws Exception {
        exec(as(List.of(bin.resolve("pg_ctl").toString(), "-D", data.toString(), "-m", mode, "-w", "-t", "60",
                "stop")));
    }

    @Override
    public void close() {
        try {
            stop("immediate");
        } catch (Exception e) {
            System.err.println("stopping PostgreSQL at " + data + ": " + e);
        }
    }

    private static List<String> as(List<String> command) {
        if (!isRoot()) {
            return command;
        }
        List<String> out = new ArrayList<>(List.of("/usr/sbin/runuser", "-u", "postgres", "--"));
        out.addAll(command);
        return out;
    }

    private static boolean run(List<String> command) {
        try {
            Process p = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(
                    ProcessBuilder.Redirect.DISCARD).start();
            return p.waitFor(30, TimeUnit.SECONDS) && p.exitValue() == 0;
        } catch (IOException e) {
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    private static void exec(List<String> command) throws Exception {
        Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        byte[] out = p.getInputStream().readAllBytes();
        if (!p.waitFor(90, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            throw new IllegalStateException(command + " did not finish within 90 s");
        }
        if (p.exitValue() != 0) {
            throw new IllegalStateException(command + " exited " + p.exitValue() + ": " + new String(out));
        }
    }
}
