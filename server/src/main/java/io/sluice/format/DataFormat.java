package io.sluice.format;

import java.io.IOException;
import java.io.Reader;
import java.io.StringReader;
import java.io.StringWriter;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Instant;
import java.util.Properties;

/**
 * The version of a data directory's layout (docs/OPERATIONS.md, "Upgrade"), in its {@code FORMAT} file, checked
 * before anything in the directory is opened.
 *
 * <h2>Design</h2>
 * Format 1 is the layout of sluice 0.1 before formats were marked: {@code journal/} (segments with frame version 1),
 * the embedded Neo4j's store ({@code data/databases/}, {@code data/transactions/}), {@code dead-letters/}, and no
 * {@code FORMAT} file. Format 2 is the
 * same files with {@code FORMAT} beside them; nothing is converted, so the upgrade only writes the file (and says so).
 * A directory in a format newer than {@link #CURRENT} is refused with what wrote it ({@link Refused}), before a byte
 * of it is read: an older sluice that went on would read a newer journal as damage and cut it. The file is written
 * whole or not at all (a temporary file, forced, renamed over, the directory forced).
 */
public final class DataFormat {
    /** The layout this sluice writes and reads. */
    public static final int CURRENT = 2;
    static final String FILE = "FORMAT";

    private DataFormat() {}

    /** A data directory (or graph) in a format newer than this sluice reads; its message says which and what to do. */
    public static final class Refused extends IOException {
        private static final long serialVersionUID = 1L;

        public Refused(String message) {
            super(message);
        }
    }

    /** What {@link #open} found and did: {@code found} the format before (0: a new directory), {@code said} in words. */
    public record Opened(int found, int now, String said) {
        public boolean upgraded() {
            return found != 0 && found < now;
        }
    }

    /**
     * Checks {@code data}'s format, creating the directory and marking it when new, upgrading an older one;
     * {@code writtenBy} (the version line) and {@code now} are recorded. Throws {@link Refused} for a newer format.
     */
    public static Opened open(Path data, String writtenBy, Instant now) throws IOException {
        return open(data, writtenBy, now, true);
    }

    /**
     * As {@link #open}, but an older directory is left as it is when {@code upgrade} is false (a dry run: it says
     * what a start would do); a newer one is refused either way, and a new one marked (what opens it next creates
     * files in it).
     */
    public static Opened open(Path data, String writtenBy, Instant now, boolean upgrade) throws IOException {
        Path file = data.resolve(FILE);
        if (Files.exists(file)) {
            Properties p = read(file);
            int format = formatOf(p, file);
            if (format > CURRENT) {
                throw new Refused("data directory " + data + " is in format " + format + ", written by "
                        + p.getProperty("written_by", "a newer sluice") + "; this sluice (" + writtenBy
                        + ") reads formats up to " + CURRENT + ". Run that version or a newer one, or restore the"
                        + " copy of the directory taken before the upgrade (docs/OPERATIONS.md, \"Rollback\")");
            }
            if (format == CURRENT) {
                return new Opened(format, CURRENT, "data directory " + data + ": format " + CURRENT);
            }
            return upgrade ? upgrade(data, format, writtenBy, "format " + format, now)
                    : new Opened(format, format, "data directory " + data + ": format " + format + " (a start upgrades"
                            + " it to " + CURRENT + ")");
        }
        Files.createDirectories(data);
        if (!olderLayout(data)) {
            write(data, marker(writtenBy, 0, now));
            return new Opened(0, CURRENT, "data directory " + data + ": new, format " + CURRENT);
        }
        String was = "format 1 (sluice 0.1, before formats were marked)";
        return upgrade ? upgrade(data, 1, writtenBy, was, now)
                : new Opened(1, 1, "data directory " + data + ": " + was + " (a start upgrades it to " + CURRENT + ")");
    }

    private static Opened upgrade(Path data, int from, String writtenBy, String was, Instant now)
            throws IOException {
        // 1 -> 2: the journal's frames (version 1), Neo4j's store and the dead letters are read as they are
        Properties p = marker(writtenBy, from, now);
        write(data, p);
        return new Opened(from, CURRENT, "data directory " + data + ": " + was + " upgraded to format " + CURRENT
                + " (its journal, Neo4j store and dead letters are used as they are; " + FILE + " written)");
    }

    private static Properties marker(String writtenBy, int upgradedFrom, Instant now) {
        Properties p = new Properties();
        p.setProperty("format", Integer.toString(CURRENT));
        p.setProperty("written_by", writtenBy);
        p.setProperty("written_at", now.toString());
        if (upgradedFrom != 0) {
            p.setProperty("upgraded_from", Integer.toString(upgradedFrom));
        }
        return p;
    }

    /** Whether {@code data} holds what sluice 0.1 wrote (its journal, or Neo4j's store). */
    private static boolean olderLayout(Path data) {
        return Files.isDirectory(data.resolve("journal")) || Files.isDirectory(data.resolve("data/databases"));
    }

    private static Properties read(Path file) throws IOException {
        Properties p = new Properties();
        try (Reader r = new StringReader(Files.readString(file, StandardCharsets.UTF_8))) {
            p.load(r);
        }
        return p;
    }

    private static int formatOf(Properties p, Path file) throws Refused {
        String f = p.getProperty("format");
        try {
            int format = Integer.parseInt(f == null ? "" : f.strip());
            if (format < 1) {
                throw new NumberFormatException();
            }
            return format;
        } catch (NumberFormatException e) {
            throw new Refused(file + " does not say which format the data directory is in (format=" + f + "): not"
                    + " written by sluice, or damaged; restore it from a copy, or remove it only if the directory"
                    + " was written by sluice 0.1 (docs/OPERATIONS.md, \"Upgrade\")");
        }
    }

    private static void write(Path data, Properties p) throws IOException {
        StringWriter text = new StringWriter();
        p.store(text, "sluice data directory format (docs/OPERATIONS.md, \"Upgrade\"); do not edit");
        // a temporary file of this writer's own: two starts at once each rename a whole file (one then finds the
        // directory's lock taken, and says so)
        Path tmp = Files.createTempFile(data, FILE + ".", ".tmp");
        try {
            try (FileChannel c = FileChannel.open(tmp, StandardOpenOption.WRITE,
                    StandardOpenOption.TRUNCATE_EXISTING)) {
                c.write(StandardCharsets.UTF_8.encode(text.toString()));
                c.force(true);
            }
            try { // readable as a file the umask made would be (a temporary file is its owner's only)
                Files.setPosixFilePermissions(tmp, PosixFilePermissions.fromString("rw-r--r--"));
            } catch (UnsupportedOperationException notPosix) {
                // as it is
            }
            try {
                Files.move(tmp, data.resolve(FILE), StandardCopyOption.ATOMIC_MOVE,
                        StandardCopyOption.REPLACE_EXISTING);
            } catch (AtomicMoveNotSupportedException e) {
                Files.move(tmp, data.resolve(FILE), StandardCopyOption.REPLACE_EXISTING);
            }
        } finally {
            Files.deleteIfExists(tmp); // moved: nothing there; failed: no leftover
        }
        try (FileChannel dir = FileChannel.open(data, StandardOpenOption.READ)) {
            dir.force(true);
        }
    }
}
