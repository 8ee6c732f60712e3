package io.sluice.support;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.List;
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
 * its rules, and the loops among a package's files ({@link #loops}). {@code main} is the module's
 * {@code src/main/java/io/sluice} (tests run in the module's directory). Here, in the lowest module's test jar, so
 * that every module's test can use it.
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

    /**
     * A loop among one package's files: each of {@code files} reaches every other through same-package references
     * ({@code edges}, "A -> B" when A's code names B).
     */
    public record Loop(String pkg, Set<String> files, Set<String> edges) {
        @Override
        public String toString() {
            return pkg + " " + files + ": " + String.join(", ", edges);
        }
    }

    /**
     * Each package's loops among its files, by package: the strongly connected components of more than one file in
     * the graph whose nodes are a package's files and whose edges are the same-package types a file names. A file's
     * references are the simple names in its code (comments and string literals left out) that are the names of
     * other files of its package; same-package types need no import, so imports alone would miss them. Names a file
     * imports or declares itself (a nested type) shadow a same-package file's name and do not count, nor does a
     * sealed type's {@code permits} list (a closed set in files of its own must name them there; its members'
     * {@code implements} is the dependency). The file is the unit: a nested or private helper type's use of its
     * outer class is not a loop, while two top-level classes that need each other are, whichever of their members
     * does the referring (an interface's static factory naming its implementation included).
     */
    public static Map<String, List<Loop>> loops(Path main) throws IOException {
        Map<Path, List<Path>> byPackage = new TreeMap<>();
        try (Stream<Path> files = Files.walk(main)) {
            files.filter(p -> p.toString().endsWith(".java") && !p.endsWith("package-info.java"))
                    .forEach(f -> byPackage.computeIfAbsent(f.getParent(), k -> new ArrayList<>()).add(f));
        }
        Map<String, List<Loop>> loops = new TreeMap<>();
        for (Map.Entry<Path, List<Path>> e : byPackage.entrySet()) {
            String pkg = main.relativize(e.getKey()).toString().replace('/', '.');
            Map<String, Set<String>> refs = references(e.getValue(), "io.sluice." + pkg);
            for (Set<String> component : components(refs)) {
                Set<String> edges = new TreeSet<>();
                for (String from : component) {
                    refs.get(from).stream().filter(component::contains).forEach(to -> edges.add(from + " -> " + to));
                }
                loops.computeIfAbsent(pkg, k -> new ArrayList<>()).add(new Loop(pkg, component, edges));
            }
        }
        return loops;
    }

    static final Pattern IDENTIFIER = Pattern.compile("\\b[A-Z][A-Za-z0-9_]*\\b");
    static final Pattern SINGLE_IMPORT = Pattern.compile("^import ([\\w.]+)\\.([A-Z]\\w*);", Pattern.MULTILINE);
    /** A sealed type's list of its subtypes: the closed set's declaration, which Java makes the supertype carry. */
    static final Pattern PERMITS = Pattern.compile("\\bpermits\\s+[A-Z][\\w.,\\s]*(?=\\{)");
    static final Pattern DECLARED = Pattern.compile("\\b(?:class|interface|enum|record)\\s+([A-Z]\\w*)");

    /** Each file's (by its type's simple name) references to the package's other files. */
    private static Map<String, Set<String>> references(List<Path> files, String pkg) throws IOException {
        Map<String, String> code = new TreeMap<>();
        for (Path f : files) {
            String src = PERMITS.matcher(codeOnly(Files.readString(f))).replaceAll(" ");
            code.put(f.getFileName().toString().replaceFirst("\\.java$", ""), src);
        }
        Map<String, Set<String>> refs = new TreeMap<>();
        code.forEach((name, src) -> {
            Set<String> shadowing = new TreeSet<>();
            Matcher imported = SINGLE_IMPORT.matcher(src);
            while (imported.find()) {
                if (!imported.group(1).equals(pkg)) {
                    shadowing.add(imported.group(2));
                }
            }
            Matcher declared = DECLARED.matcher(src);
            while (declared.find()) {
                shadowing.add(declared.group(1));
            }
            Set<String> used = new TreeSet<>();
            Matcher m = IDENTIFIER.matcher(src);
            while (m.find()) {
                String other = m.group();
                if (!other.equals(name) && code.containsKey(other) && !shadowing.contains(other)) {
                    used.add(other);
                }
            }
            refs.put(name, used);
        });
        return refs;
    }

    /** {@code src} without its comments and the contents of its string, text block and char literals. */
    static String codeOnly(String src) {
        StringBuilder out = new StringBuilder(src.length());
        int i = 0;
        while (i < src.length()) {
            char c = src.charAt(i);
            if (src.startsWith("//", i)) {
                int end = src.indexOf('\n', i);
                i = end < 0 ? src.length() : end;
            } else if (src.startsWith("/*", i)) {
                int end = src.indexOf("*/", i + 2);
                i = end < 0 ? src.length() : end + 2;
                out.append(' ');
            } else if (src.startsWith("\"\"\"", i)) {
                int end = src.indexOf("\"\"\"", i + 3);
                while (end > 0 && src.charAt(end - 1) == '\\') {
                    end = src.indexOf("\"\"\"", end + 1);
                }
                i = end < 0 ? src.length() : end + 3;
                out.append("\"\"");
            } else if (c == '"' || c == '\'') {
                int j = i + 1;
                while (j < src.length() && src.charAt(j) != c) {
                    j += src.charAt(j) == '\\' ? 2 : 1;
                }
                i = j + 1;
                out.append(c).append(c);
            } else {
                out.append(c);
                i++;
            }
        }
        return out.toString();
    }

    /** The strongly connected components of more than one node (Tarjan's algorithm, iterative on small graphs). */
    private static List<Set<String>> components(Map<String, Set<String>> graph) {
        Map<String, Integer> index = new HashMap<>();
        Map<String, Integer> low = new HashMap<>();
        Deque<String> stack = new ArrayDeque<>();
        Set<String> onStack = new TreeSet<>();
        List<Set<String>> found = new ArrayList<>();
        for (String start : graph.keySet()) {
            if (!index.containsKey(start)) {
                connect(start, graph, index, low, stack, onStack, found);
            }
        }
        return found;
    }

    private static void connect(String v, Map<String, Set<String>> graph, Map<String, Integer> index,
            Map<String, Integer> low, Deque<String> stack, Set<String> onStack, List<Set<String>> found) {
        index.put(v, index.size());
        low.put(v, index.get(v));
        stack.push(v);
        onStack.add(v);
        for (String w : graph.get(v)) {
            if (!index.containsKey(w)) {
                connect(w, graph, index, low, stack, onStack, found);
                low.put(v, Math.min(low.get(v), low.get(w)));
            } else if (onStack.contains(w)) {
                low.put(v, Math.min(low.get(v), index.get(w)));
            }
        }
        if (low.get(v).equals(index.get(v))) {
            Set<String> component = new TreeSet<>();
            String w;
            do {
                w = stack.pop();
                onStack.remove(w);
                component.add(w);
            } while (!w.equals(v));
            if (component.size() > 1) {
                found.add(component);
            }
        }
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
