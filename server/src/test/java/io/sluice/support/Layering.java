package io.sluice.support;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * What a module's packages use of sluice's, read from their sources' imports and qualified names (a class named in
 * a string, as a child process's main class, counts too): what each module's {@code LayeringTest} checks against
 * its rules. {@code main} is the module's {@code src/main/java/io/sluice} (tests run in the module's directory).
 */
public final class Layering {
    public static final Path MAIN = Path.of("src/main/java/io/sluice");
    static final Pattern IMPORT = Pattern.compile("^import (?:static )?io\\.sluice\\.([a-z]+)\\.", Pattern.MULTILINE);
    static final Pattern QUALIFIED = Pattern.compile("io\\.sluice\\.([a-z]+)\\.[A-Z]");
    /**
     * The one clock: time is read, slept and jittered through {@code io.sluice.time}, nowhere else. A
     * {@code TimeUnit}'s sleep and timed join count (with or without {@code TimeUnit.}, for a static import):
     * {@code Thread.sleep} by another name.
     */
    static final Pattern CLOCK = Pattern.compile(
            "System\\.nanoTime|System\\.currentTimeMillis|Thread\\.sleep|ThreadLocalRandom|Instant\\.now|Clock\\.system"
            + "|\\b(?:NANO|MICRO|MILLI)?SECONDS\\.(?:sleep|timedJoin)\\b|\\b(?:MINUTES|HOURS|DAYS)\\.(?:sleep|timedJoin)\\b");

    private Layering() {}

    /** Each package's uses of sluice's other packages ({@code time} and {@code vocab}, leaves every package may use, left out). */
    public static Map<String, Set<String>> uses(Path main) throws IOException {
        Map<String, Set<String>> uses = new TreeMap<>();
        try (Stream<Path> files = Files.walk(main)) {
            for (Path f : files.filter(p -> p.toString().endsWith(".java")).toList()) {
                String pkg = main.relativize(f).getName(0).toString();
                String src = Files.readString(f);
                Set<String> used = uses.computeIfAbsent(pkg, k -> new TreeSet<>());
                for (Matcher m : new Matcher[] {IMPORT.matcher(src), QUALIFIED.matcher(src)}) {
                    while (m.find()) {
                        if (!m.group(1).equals(pkg) && !m.group(1).equals("time") && !m.group(1).equals("vocab")) {
                            used.add(m.group(1));
                        }
                    }
                }
            }
        }
        return uses;
    }

    /** The module's packages (its directories under {@code main}). */
    public static Set<String> packages(Path main) throws IOException {
        Set<String> packages = new TreeSet<>();
        try (Stream<Path> dirs = Files.list(main)) {
            dirs.filter(Files::isDirectory).forEach(d -> packages.add(d.getFileName().toString()));
        }
        return packages;
    }

    /** Files outside {@code io.sluice.time} that read the JVM's clocks directly, with what they use. */
    public static Map<String, String> clockReaders(Path main) throws IOException {
        Map<String, String> found = new TreeMap<>();
        try (Stream<Path> files = Files.walk(main)) {
            for (Path f : files.filter(p -> p.toString().endsWith(".java")).toList()) {
                if (main.relativize(f).getName(0).toString().equals("time")) {
                    continue;
                }
                Matcher m = CLOCK.matcher(Files.readString(f));
                if (m.find()) {
                    found.put(main.relativize(f).toString(), m.group());
                }
            }
        }
        return found;
    }
}
