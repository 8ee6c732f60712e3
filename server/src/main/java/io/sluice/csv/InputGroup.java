package io.sluice.csv;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;
import java.util.stream.Stream;

/**
 * One {@code --nodes=[Label[:Label]=]FILES} or {@code --relationships=[TYPE=]FILES} argument: the labels (nodes) or
 * the default relationship type given on the command line, and the group's files. As in neo4j-admin, the files of
 * a group are read as one logical file whose first line is the header; a header file followed by data files is
 * the usual shape ({@code "users_header.csv,users-part1.csv.gz,users-part2.csv.gz"}).
 *
 * @param spec the argument as given, kept for the offline importer and for messages
 */
public record InputGroup(EntityKind kind, List<String> labels, String type, List<Path> files, String spec) {

    public InputGroup {
        labels = List.copyOf(labels);
        files = List.copyOf(files);
        if (files.isEmpty()) {
            throw new IllegalArgumentException(kind.option() + "=" + spec + " names no file");
        }
        if (kind == EntityKind.RELATIONSHIPS && !labels.isEmpty()) {
            throw new IllegalArgumentException("relationship groups take a type, not labels: " + spec);
        }
    }

    /**
     * Parses the value of a {@code --nodes} or {@code --relationships} option. Files are separated by commas; a
     * name that is not an existing file is read as a regular expression over the names in its directory
     * (neo4j-admin's default {@code --path-pattern-style=regex}), matches in name order.
     */
    public static InputGroup parse(EntityKind kind, String spec) {
        String files = spec;
        List<String> labels = List.of();
        String type = null;
        int eq = spec.indexOf('=');
        if (eq >= 0) {
            String prefix = spec.substring(0, eq);
            files = spec.substring(eq + 1);
            if (kind == EntityKind.NODES) {
                labels = Arrays.stream(prefix.split(":")).map(String::strip).filter(s -> !s.isEmpty()).toList();
            } else {
                type = prefix.strip().isEmpty() ? null : prefix.strip();
            }
        }
        List<Path> paths = new ArrayList<>();
        for (String f : files.split(",")) {
            if (!f.isBlank()) {
                paths.addAll(expand(f.strip()));
            }
        }
        return new InputGroup(kind, labels, type, paths, spec);
    }

    private static List<Path> expand(String name) {
        Path p = Path.of(name);
        if (Files.isRegularFile(p)) {
            return List.of(p);
        }
        Path dir = p.toAbsolutePath().getParent();
        Pattern pattern;
        try {
            pattern = Pattern.compile(p.getFileName().toString());
        } catch (PatternSyntaxException e) {
            throw new IllegalArgumentException("no such file: " + name);
        }
        if (dir == null || !Files.isDirectory(dir)) {
            throw new IllegalArgumentException("no such file: " + name);
        }
        try (Stream<Path> s = Files.list(dir)) {
            List<Path> found = s.filter(Files::isRegularFile)
                    .filter(f -> pattern.matcher(f.getFileName().toString()).matches())
                    .sorted().toList();
            if (found.isEmpty()) {
                throw new IllegalArgumentException("no such file: " + name + " (nor any file matching it as a pattern)");
            }
            return found;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot list " + dir, e);
        }
    }

    /** Total size of the files in bytes (compressed size for .gz): the measure progress and ETA are based on. */
    public long bytes() {
        long total = 0;
        for (Path f : files) {
            try {
                total += Files.size(f);
            } catch (IOException e) {
                throw new UncheckedIOException("cannot read " + f, e);
            }
        }
        return total;
    }

    /** Short description for messages: {@code --nodes=User=users.csv,...}. */
    public String describe() {
        return kind.option() + "=" + spec;
    }
}
