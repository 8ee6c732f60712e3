package io.sluice.csv;

import java.io.BufferedWriter;
import java.io.IOException;
import java.io.OutputStream;
import java.io.OutputStreamWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.SplittableRandom;
import java.util.zip.GZIPOutputStream;

/**
 * Generated CSV datasets in the import format, for tests and the import benchmark. Deterministic for a seed.
 * <ul>
 *   <li>users: {@code userId:ID(User),name,age:int,score:double,active:boolean,tags:string[],born:date}, a header
 *       file and data files;</li>
 *   <li>sites: {@code url:ID(Site),:LABEL,rank:long}, header in the file;</li>
 *   <li>visited: {@code :START_ID(User),:END_ID(Site),when:datetime,weight:float}, a header file and data files;</li>
 *   <li>customers, the shape of the 2024 LOAD CSV article:
 *       {@code customerId:ID(Customer),name,email,city,age:int}, header in the file.</li>
 * </ul>
 */
public final class Datasets {
    private static final String[] CITIES = {"Berlin", "Lisbon", "Malmo", "Oslo", "Porto", "Turin", "Lyon", "Gent"};

    private Datasets() {}

    /** The files of a group: its header file (or null when the header is the data's first line) and data files. */
    public record Group(Path header, List<Path> data) {
        /** The group's files as an import argument: {@code header,data1,data2}. */
        public String list() {
            List<String> all = new ArrayList<>();
            if (header != null) {
                all.add(header.toString());
            }
            data.forEach(p -> all.add(p.toString()));
            return String.join(",", all);
        }
    }

    public static Group users(Path dir, int n, int parts, boolean gzip) throws IOException {
        Path h = write(dir.resolve("users_header.csv"), List.of("userId:ID(User),name,age:int,score:double,active:boolean,tags:string[],born:date"));
        List<Path> data = new ArrayList<>();
        int per = (n + parts - 1) / parts;
        for (int p = 0; p < parts; p++) {
            int from = p * per;
            int to = Math.min(n, from + per);
            List<String> lines = new ArrayList<>(to - from);
            for (int i = from; i < to; i++) {
                lines.add(user(i));
            }
            data.add(write(dir.resolve("users-" + p + (gzip ? ".csv.gz" : ".csv")), lines));
        }
        return new Group(h, data);
    }

    public static String user(int i) {
        return String.format(Locale.ROOT, "u%d,User %d,%d,%.2f,%s,t%d;t%d,%04d-%02d-%02d", i, i, 18 + i % 70, (i % 1000) / 10.0,
                i % 3 == 0, i % 5, i % 7, 1950 + i % 60, 1 + i % 12, 1 + i % 28);
    }

    public static Group sites(Path dir, int n) throws IOException {
        List<String> lines = new ArrayList<>(n + 1);
        lines.add("url:ID(Site),:LABEL,rank:long");
        for (int i = 0; i < n; i++) {
            lines.add(site(i) + "," + (i % 2 == 0 ? "Site;Web" : "Site") + "," + i);
        }
        return new Group(null, List.of(write(dir.resolve("sites.csv"), lines)));
    }

    public static String site(int i) {
        return "https://s" + i + ".example.com/";
    }

    /** {@code n} visits of random users to random sites; the same seed gives the same rows. */
    public static Group visited(Path dir, int n, int users, int sites, int parts, boolean gzip, long seed) throws IOException {
        Path h = write(dir.resolve("visited_header.csv"), List.of(":START_ID(User),:END_ID(Site),when:datetime,weight:float"));
        SplittableRandom r = new SplittableRandom(seed);
        List<Path> data = new ArrayList<>();
        int per = (n + parts - 1) / parts;
        for (int p = 0; p < parts; p++) {
            int count = Math.min(per, n - p * per);
            List<String> lines = new ArrayList<>(count);
            for (int i = 0; i < count; i++) {
                lines.add(String.format(Locale.ROOT, "u%d,%s,2024-%02d-%02dT%02d:00:00Z,%.1f", r.nextInt(users),
                        site(r.nextInt(sites)), 1 + r.nextInt(12), 1 + r.nextInt(28), r.nextInt(24), r.nextInt(100) / 10.0));
            }
            data.add(write(dir.resolve("visited-" + p + (gzip ? ".csv.gz" : ".csv")), lines));
        }
        return new Group(h, data);
    }

    public static Group customers(Path dir, int n) throws IOException {
        Path f = dir.resolve("customers.csv");
        try (BufferedWriter w = writer(f)) {
            w.write("customerId:ID(Customer),name,email,city,age:int\n");
            for (int i = 0; i < n; i++) {
                w.write("c" + i + ",Customer " + i + ",customer" + i + "@example.com," + CITIES[i % CITIES.length] + ","
                        + (18 + i % 70) + "\n");
            }
        }
        return new Group(null, List.of(f));
    }

    public static Path write(Path file, List<String> lines) throws IOException {
        try (BufferedWriter w = writer(file)) {
            for (String l : lines) {
                w.write(l);
                w.write('\n');
            }
        }
        return file;
    }

    private static BufferedWriter writer(Path file) throws IOException {
        Files.createDirectories(file.toAbsolutePath().getParent());
        OutputStream out = Files.newOutputStream(file);
        if (file.toString().endsWith(".gz")) {
            out = new GZIPOutputStream(out, 1 << 16);
        }
        return new BufferedWriter(new OutputStreamWriter(out, StandardCharsets.UTF_8), 1 << 16);
    }
}
