package io.sluice.journal;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

/** Helpers shared by the journal tests. */
final class Journals {
    private Journals() {}

    static JournalOptions segmentsOf(long bytes) {
        return JournalOptions.defaults().withMaxSegmentBytes(bytes);
    }

    static SegmentedJournal open(Path dir, JournalOptions options) throws IOException {
        return SegmentedJournal.open(dir, options, SystemFileOps.INSTANCE);
    }

    /** A payload that names its record, padded to {@code extra} more bytes. */
    static byte[] payload(long i, int extra) {
        return ("record-" + i + "-" + "x".repeat(extra)).getBytes(StandardCharsets.UTF_8);
    }

    static byte[] payload(long i) {
        return payload(i, (int) (i % 37));
    }

    static String text(JournalRecord r) {
        return new String(r.payload(), StandardCharsets.UTF_8);
    }

    /** Every durable record, read in pages of {@code page} records. */
    static List<JournalRecord> readAll(Journal journal, int page) throws IOException {
        List<JournalRecord> all = new ArrayList<>();
        long next = journal.firstOffset();
        while (next < journal.durableOffset()) {
            List<JournalRecord> batch = journal.read(next, page, Long.MAX_VALUE);
            if (batch.isEmpty()) {
                throw new AssertionError("read(" + next + ") is empty below the durable offset " + journal.durableOffset());
            }
            all.addAll(batch);
            next += batch.size();
        }
        return all;
    }

    static List<JournalRecord> readAll(Journal journal) throws IOException {
        return readAll(journal, 1000);
    }

    static List<JournalRecord> records(long from, List<byte[]> payloads) {
        List<JournalRecord> out = new ArrayList<>();
        for (byte[] p : payloads) {
            out.add(new JournalRecord(from++, p));
        }
        return out;
    }

    /** The segment files in {@code dir}, in offset order. */
    static List<Path> segmentFiles(Path dir) {
        try (Stream<Path> files = Files.list(dir)) {
            return files.filter(p -> p.getFileName().toString().endsWith(".log")).sorted().toList();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    static long baseOf(Path segment) {
        return Long.parseLong(segment.getFileName().toString().replace(".log", ""));
    }

    static void copyDirectory(Path from, Path to) throws IOException {
        Files.createDirectories(to);
        for (Path p : segmentFiles(from)) {
            Files.copy(p, to.resolve(p.getFileName()));
        }
    }
}
