package io.sluice.bench;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import io.sluice.config.Neo4j;
import io.sluice.config.SluiceConfig;
import io.sluice.csv.CsvFormat;
import io.sluice.csv.CsvSource;
import io.sluice.csv.Datasets;
import io.sluice.csv.EntityKind;
import io.sluice.csv.Header;
import io.sluice.csv.InputGroup;
import io.sluice.csv.RowParser;
import io.sluice.csv.Tolerance;
import io.sluice.csv.ValueType;
import io.sluice.importer.ImportProgress;
import io.sluice.importer.ImportSummary;
import io.sluice.online.OnlineImport;
import io.sluice.server.SluiceServer;
import io.sluice.time.Time;
import io.sluice.vocab.GraphException;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import org.neo4j.cli.AdminTool;

/**
 * {@code sluice import-bench}: the import paths against their baselines, on the same generated data, in one run;
 * ratios are what counts (absolute figures depend on the machine and what else runs on it).
 * <ul>
 *   <li>{@code offline}: {@code sluice import --into} against Neo4j's importer called bare ({@code NEO4J_HOME=DIR
 *       java -cp lib/* AdminTool database import full ...}), each a fresh JVM with the same flags;</li>
 *   <li>{@code create}: customers (the 2024 article's shape) into the embedded database with a uniqueness
 *       constraint on the ID: {@code LOAD CSV ... CALL {} IN TRANSACTIONS}, {@code ... IN CONCURRENT TRANSACTIONS},
 *       and {@code sluice import --online};</li>
 *   <li>{@code merge}: users, sites and VISITED relationships, MERGE: the raw UNWIND limit (the same rows, parsed
 *       beforehand, in UNWIND batches of 1000 from one thread, straight into the database), {@code LOAD CSV} with
 *       {@code IN CONCURRENT TRANSACTIONS ... ON ERROR RETRY}, and {@code sluice import --online --merge}.</li>
 * </ul>
 * The online modes run in this JVM, each on a fresh database, after an untimed warm-up of every mode; their time
 * excludes starting the database (LOAD CSV is timed as its statement, sluice as the import).
 */
public final class ImportBench {
    /** One measured mode. */
    public record Result(String mode, long rows, double seconds, boolean ok, String error, long deadlockRetries) {
        public double rowsPerSecond() {
            return seconds > 0 ? rows / seconds : 0;
        }
    }

    /** @param scale multiplies the default dataset sizes (1 = offline 3.1M records, create 2M rows, merge 520k rows) */
    public record Options(String scenario, double scale, Path work, int threads, int batchRows, boolean direct, boolean warmup) {}

    private final Options o;
    private final PrintStream err;
    private final Time time;
    private int servers; // numbers each mode's fresh database (a mode runs twice: warm-up, then timed)

    public ImportBench(Options o, PrintStream err, Time time) {
        this.o = o;
        this.err = err;
        this.time = time;
    }

    public Map<String, Object> run() throws Exception {
        Path dir = Files.createTempDirectory(o.work(), "sluice-import-bench-");
        try {
            List<Result> results = switch (o.scenario()) {
                case "offline" -> offline(dir);
                case "create" -> create(dir);
                case "merge" -> merge(dir);
                default -> throw new IllegalArgumentException("scenario must be offline, create or merge, got '" + o.scenario() + "'");
            };
            Map<String, Object> report = new LinkedHashMap<>();
            report.put("scenario", o.scenario());
            report.put("results", results.stream().map(ImportBench::json).toList());
            report.put("ratios", ratios(results));
            return report;
        } finally {
            delete(dir);
        }
    }

    private int n(int base) {
        return Math.max(10, (int) Math.round(base * o.scale()));
    }

    // ---- offline ----

    private List<Result> offline(Path dir) throws Exception {
        int users = n(1_000_000);
        int sites = n(100_000);
        int visits = n(2_000_000);
        err.println("import-bench offline: generating " + users + " users, " + sites + " sites, " + visits + " visits (gz)");
        Datasets.Group u = Datasets.users(dir.resolve("csv"), users, 4, true);
        Datasets.Group s = Datasets.sites(dir.resolve("csv"), sites);
        Datasets.Group v = Datasets.visited(dir.resolve("csv"), visits, users, sites, 4, true, 42);
        List<String> groups = List.of("--nodes=User=" + u.list(), "--nodes=" + s.list(), "--relationships=VISITED=" + v.list());
        Path jar = Path.of(ImportBench.class.getProtectionDomain().getCodeSource().getLocation().toURI());
        if (!jar.toString().endsWith(".jar")) {
            throw new IllegalStateException("the offline bench runs from the packaged jar (./sluice import-bench offline)");
        }
        Path lib = jar.resolveSibling("lib");
        long records = users + sites + visits;
        List<String> java = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xms2g", "-Xmx2g", "-XX:+UseParallelGC", "--sun-misc-unsafe-memory-access=allow",
                "--add-opens=java.base/java.nio=ALL-UNNAMED", "--add-opens=java.base/sun.nio.ch=ALL-UNNAMED",
                "--add-opens=java.base/java.io=ALL-UNNAMED", "--add-opens=java.base/java.lang=ALL-UNNAMED",
                "--enable-native-access=ALL-UNNAMED"));
        List<String> threads = o.threads() > 0 ? List.of("--threads=" + o.threads()) : List.of();

        List<String> bare = new ArrayList<>(java);
        bare.addAll(List.of("-cp", lib + "/*", "org.neo4j.cli.AdminTool", "database", "import", "full", "neo4j"));
        bare.addAll(groups);
        bare.addAll(threads);
        bare.add("--report-file=" + dir.resolve("bare.report"));
        List<String> sluice = new ArrayList<>(java);
        sluice.addAll(List.of("-jar", jar.toString(), "import", "--into", dir.resolve("sluice-db").toString()));
        sluice.addAll(groups);
        sluice.addAll(threads);
        sluice.add("--report-file=" + dir.resolve("sluice.report"));

        List<Result> out = new ArrayList<>();
        out.add(process("neo4j-admin-bare", bare, dir.resolve("bare-db"), records));
        out.add(process("sluice-into", sluice, null, records));
        return out;
    }

    private Result process(String mode, List<String> command, Path neo4jHome, long records) throws Exception {
        err.println("import-bench offline: " + mode);
        ProcessBuilder pb = new ProcessBuilder(command).redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(neo4jHome == null ? Path.of(command.get(command.indexOf("--into") + 1) + ".log").toFile()
                        : neo4jHome.resolveSibling(mode + ".log").toFile()));
        if (neo4jHome != null) {
            Files.createDirectories(neo4jHome);
            pb.environment().put("NEO4J_HOME", neo4jHome.toString());
        }
        long t0 = time.nanos();
        int rc = pb.start().waitFor();
        double s = (time.nanos() - t0) / 1e9;
        return new Result(mode, records, s, rc == 0, rc == 0 ? null : "exit " + rc, 0);
    }

    // ---- online CREATE ----

    private List<Result> create(Path dir) throws Exception {
        int rows = n(2_000_000);
        err.println("import-bench create: generating " + rows + " customers");
        Path csv = Datasets.customers(dir.resolve("csv"), rows).data().getFirst();
        Path small = Datasets.customers(dir.resolve("warm"), Math.min(rows, 100_000)).data().getFirst();
        String schema = "CREATE CONSTRAINT customer_id IF NOT EXISTS FOR (c:Customer) REQUIRE c.customerId IS UNIQUE";
        String body = "CREATE (:Customer {customerId: row.`customerId:ID(Customer)`, name: row.name, email: row.email, "
                + "city: row.city, age: toInteger(row.`age:int`)})";
        String it = "LOAD CSV WITH HEADERS FROM $url AS row CALL (row) { " + body + " } IN TRANSACTIONS OF 10000 ROWS";
        String cict = "LOAD CSV WITH HEADERS FROM $url AS row CALL (row) { " + body + " } IN CONCURRENT TRANSACTIONS OF 10000 ROWS";
        if (o.warmup()) {
            err.println("import-bench create: warming up every mode on " + Files.size(small) / 1024 + " KiB");
            loadCsv(dir, "warm", List.of(schema), List.of(it), Map.of("url", fileUrl(dir, small)), 0);
            loadCsv(dir, "warm", List.of(schema), List.of(cict), Map.of("url", fileUrl(dir, small)), 0);
            sluice(dir, "warm", List.of(InputGroup.parse(EntityKind.NODES, small.toString())), false, 0);
        }
        List<InputGroup> groups = List.of(InputGroup.parse(EntityKind.NODES, csv.toString()));
        Map<String, Object> url = Map.of("url", fileUrl(dir, csv));
        List<Result> out = new ArrayList<>();
        out.add(loadCsv(dir, "load-csv-in-transactions", List.of(schema), List.of(it), url, rows));
        out.add(loadCsv(dir, "load-csv-in-concurrent-transactions", List.of(schema), List.of(cict), url, rows));
        out.add(sluice(dir, "sluice-online", groups, false, rows));
        return out;
    }

    // ---- online MERGE with relationships ----

    private List<Result> merge(Path dir) throws Exception {
        int users = n(100_000);
        int sites = n(20_000);
        int visits = n(400_000);
        long rows = (long) users + sites + visits;
        err.println("import-bench merge: generating " + users + " users, " + sites + " sites, " + visits + " visits");
        Path csv = dir.resolve("csv");
        Datasets.Group u = Datasets.users(csv, users, 1, false);
        Datasets.Group s = Datasets.sites(csv, sites);
        Datasets.Group v = Datasets.visited(csv, visits, users, sites, 1, false, 42);
        List<InputGroup> groups = List.of(InputGroup.parse(EntityKind.NODES, "User=" + u.list()),
                InputGroup.parse(EntityKind.NODES, s.list()), InputGroup.parse(EntityKind.RELATIONSHIPS, "VISITED=" + v.list()));
        // LOAD CSV needs the header in the data file, under plain names: the same rows, another header line
        Path lu = withHeader(u.data().getFirst(), csv.resolve("lc-users.csv"), "userId,name,age,score,active,tags,born");
        Path ls = withHeader(s.data().getFirst(), csv.resolve("lc-sites.csv"), null);
        Path lv = withHeader(v.data().getFirst(), csv.resolve("lc-visits.csv"), "user,url,when,weight");
        List<String> schema = List.of("CREATE CONSTRAINT user_id IF NOT EXISTS FOR (u:User) REQUIRE u.userId IS UNIQUE",
                "CREATE CONSTRAINT site_url IF NOT EXISTS FOR (s:Site) REQUIRE s.url IS UNIQUE");
        String retry = " IN CONCURRENT TRANSACTIONS OF 1000 ROWS ON ERROR RETRY FOR 30 SECONDS THEN FAIL";
        List<String> loadCsv = List.of(
                "LOAD CSV WITH HEADERS FROM $users AS row CALL (row) { MERGE (n:User {userId: row.userId}) SET n.name = row.name, "
                        + "n.age = toInteger(row.age), n.score = toFloat(row.score), n.active = toBoolean(row.active), "
                        + "n.tags = split(row.tags, ';'), n.born = date(row.born) }" + retry,
                "LOAD CSV WITH HEADERS FROM $sites AS row CALL (row) { MERGE (n:Site {url: row.`url:ID(Site)`}) "
                        + "SET n:$(split(row.`:LABEL`, ';')), n.rank = toInteger(row.`rank:long`) }" + retry,
                "LOAD CSV WITH HEADERS FROM $visits AS row CALL (row) { MATCH (a:User {userId: row.user}) MATCH (b:Site {url: row.url}) "
                        + "MERGE (a)-[r:VISITED]->(b) SET r.when = datetime(row.when), r.weight = toFloat(row.weight) }" + retry);
        Map<String, Object> urls = Map.of("users", fileUrl(dir, lu), "sites", fileUrl(dir, ls), "visits", fileUrl(dir, lv));
        if (o.warmup()) {
            err.println("import-bench merge: warming up every mode");
            raw(dir, "warm", groups, schema, Math.min(20_000, users));
            sluice(dir, "warm", groups, true, 0);
        }
        List<Result> out = new ArrayList<>();
        out.add(raw(dir, "raw-unwind-1000", groups, schema, Long.MAX_VALUE));
        out.add(loadCsv(dir, "load-csv-concurrent-on-error-retry", schema, loadCsv, urls, rows));
        out.add(sluice(dir, "sluice-online-merge", groups, true, rows));
        return out;
    }

    private static Path withHeader(Path data, Path to, String header) throws IOException {
        try (OutputStream out = Files.newOutputStream(to)) {
            if (header != null) {
                out.write((header + "\n").getBytes(StandardCharsets.UTF_8));
            }
            Files.copy(data, out);
        }
        return to;
    }

    /** A LOAD CSV URL for {@code file}, relative to the import folder {@code dir} (see {@link #server}). */
    private static String fileUrl(Path dir, Path file) {
        return "file:///" + dir.toAbsolutePath().relativize(file.toAbsolutePath()).toString().replace('\\', '/');
    }

    // ---- the modes ----

    /** A fresh sluice over an embedded database, without HTTP: every mode runs in-process. */
    private SluiceServer server(Path dir, String name, List<String> schema) {
        // LOAD CSV's file URLs are confined to the import folder: here the bench's work folder
        SluiceConfig c = SluiceConfig.defaults().withTemplates(Map.of(), schema)
                .with(Neo4j.DEFAULT.withImportDir(dir.toAbsolutePath().toString()));
        return SluiceServer.start(new SluiceServer.Options(c, dir.resolve("db-" + name + "-" + (++servers)), null, null));
    }

    private Result loadCsv(Path dir, String mode, List<String> schema, List<String> statements, Map<String, Object> params,
            long rows) {
        err.println("import-bench: " + mode);
        try (SluiceServer s = server(dir, mode, schema)) {
            long t0 = time.nanos();
            try {
                for (String st : statements) {
                    s.sink().runImplicit(st, params);
                }
                return new Result(mode, rows, (time.nanos() - t0) / 1e9, true, null, 0);
            } catch (GraphException e) {
                err.println("import-bench: " + mode + " failed: " + e.getMessage());
                return new Result(mode, rows, (time.nanos() - t0) / 1e9, false, e.error().code() + ": "
                        + abbreviate(e.error().message()), 0);
            }
        }
    }

    private Result sluice(Path dir, String mode, List<InputGroup> groups, boolean merge, long rows) throws Exception {
        err.println("import-bench: " + mode);
        try (SluiceServer s = server(dir, mode, List.of())) {
            Path db = dir.resolve("db-" + mode);
            OnlineImport.Options opts = new OnlineImport.Options(groups, CsvFormat.DEFAULT, new Tolerance(false, false, 0),
                    dir.resolve(mode + ".report"), o.threads(), SluiceConfig.defaults(), db.toString(), merge, o.batchRows(),
                    o.direct(), true);
            ImportSummary sum = ImportSummary.online(new OnlineImport(opts, err, time).over(s)
                    .showing(ImportProgress.online(false, err, Duration.ofSeconds(10), time)).run());
            err.print(sum.text());
            return new Result(mode, rows, sum.seconds(), sum.finished(), sum.stopped(), sum.deadlockRetries());
        }
    }

    /** The limit: the same rows, parsed beforehand, in UNWIND batches of 1000 from one thread, straight into Neo4j. */
    private Result raw(Path dir, String mode, List<InputGroup> groups, List<String> schema, long limit) throws Exception {
        err.println("import-bench: " + mode);
        List<Header> headers = new ArrayList<>();
        for (InputGroup g : groups) {
            try (CsvSource src = new CsvSource(g.files(), CsvFormat.DEFAULT, new AtomicLong())) {
                headers.add(Header.parse(g.kind(), src.next().fields(), g.files().getFirst().toString()));
            }
        }
        List<String> statements = List.of(
                "UNWIND $rows AS row MERGE (n:User {userId: row.k}) SET n.name = row.p1, n.age = row.p2, n.score = row.p3, "
                        + "n.active = row.p4, n.tags = row.p5, n.born = date(row.c6)",
                "UNWIND $rows AS row MERGE (n:Site {url: row.k}) SET n.rank = row.p2 SET n:$(row.l)",
                "UNWIND $rows AS row MATCH (a:User {userId: row.s}) MATCH (b:Site {url: row.e}) "
                        + "MERGE (a)-[r:VISITED]->(b) SET r.when = datetime(row.c2), r.weight = row.p3");
        List<List<Map<String, Object>>> rows = new ArrayList<>();
        for (int i = 0; i < groups.size(); i++) {
            // the headers give no {id-type}: every ID is a string, as the online import reads them
            RowParser p = i < 2 ? RowParser.nodes(headers.get(i), CsvFormat.DEFAULT, ValueType.STRING)
                    : RowParser.relationships(headers.get(i), CsvFormat.DEFAULT, ValueType.STRING, ValueType.STRING,
                            groups.get(i).type());
            List<Map<String, Object>> list = new ArrayList<>();
            try (CsvSource src = new CsvSource(groups.get(i).files(), CsvFormat.DEFAULT, new AtomicLong())) {
                src.next();
                for (CsvSource.Raw r = src.next(); r != null && list.size() < limit; r = src.next()) {
                    list.add(p.parse(r, "").values());
                }
            }
            rows.add(list);
        }
        long total = rows.stream().mapToLong(List::size).sum();
        try (SluiceServer s = server(dir, mode, schema)) {
            long t0 = time.nanos();
            for (int i = 0; i < statements.size(); i++) {
                List<Map<String, Object>> list = rows.get(i);
                for (int at = 0; at < list.size(); at += 1000) {
                    List<Map<String, Object>> batch = list.subList(at, Math.min(list.size(), at + 1000));
                    String st = statements.get(i);
                    s.sink().inTransaction(tx -> {
                        tx.runDiscarding(st, Map.of("rows", batch));
                        return null;
                    });
                }
            }
            return new Result(mode, total, (time.nanos() - t0) / 1e9, true, null, 0);
        }
    }

    // ---- report ----

    private static Map<String, Object> json(Result r) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("mode", r.mode());
        m.put("rows", r.rows());
        m.put("seconds", Math.round(r.seconds() * 100) / 100.0);
        m.put("rows_per_s", Math.round(r.rowsPerSecond()));
        m.put("ok", r.ok());
        m.put("error", r.error());
        m.put("deadlock_retries", r.deadlockRetries());
        return m;
    }

    /** sluice's speed over each baseline's (time_baseline / time_sluice); a failed baseline has none. */
    static Map<String, Double> ratios(List<Result> results) {
        Result sluice = results.getLast();
        Map<String, Double> out = new LinkedHashMap<>();
        for (Result r : results.subList(0, results.size() - 1)) {
            if (r.ok() && sluice.ok() && sluice.seconds() > 0) {
                out.put(sluice.mode() + "/" + r.mode(), Math.round(r.seconds() / sluice.seconds() * 1000) / 1000.0);
            }
        }
        return out;
    }

    @SuppressWarnings("unchecked")
    public static String table(Map<String, Object> report) {
        StringBuilder b = new StringBuilder(String.format(Locale.ROOT, "%-40s %12s %9s %12s %4s %9s%n", "mode (" + report.get("scenario") + ")",
                "rows", "seconds", "rows/s", "ok", "deadlock-retries"));
        for (Map<String, Object> r : (List<Map<String, Object>>) report.get("results")) {
            b.append(String.format(Locale.ROOT, "%-40s %,12d %9.2f %,12d %4s %9d%n", r.get("mode"), (Long) r.get("rows"),
                    (Double) r.get("seconds"), (Long) r.get("rows_per_s"), (Boolean) r.get("ok") ? "yes" : "NO",
                    (Long) r.get("deadlock_retries")));
            if (r.get("error") != null) {
                b.append("    ").append(r.get("error")).append(System.lineSeparator());
            }
        }
        ((Map<String, Double>) report.get("ratios")).forEach((k, v) ->
                b.append(String.format(Locale.ROOT, "%-40s %.3f%n", k, v)));
        return b.toString();
    }

    public static void writeJson(Map<String, Object> report, Path out) throws IOException {
        new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT).writeValue(out.toFile(), report);
    }

    private static String abbreviate(String s) {
        return s.length() > 300 ? s.substring(0, 300) + "..." : s;
    }

    private static void delete(Path dir) throws IOException {
        if (!Files.exists(dir)) {
            return;
        }
        try (var s = Files.walk(dir)) {
            s.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        }
    }
}
