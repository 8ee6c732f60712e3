package io.sluice.journal;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Recovery on open, as Kafka's {@code LogLoader}: scan the segments in base-offset order, keep the longest
 * valid prefix of records, delete the rest, and say in the log what was dropped.
 *
 * <p>The prefix ends at the first torn or corrupt frame (that segment is truncated there), at a segment whose
 * header is bad, or at a segment whose base offset is not the previous segment's end (a gap). Everything after
 * it is deleted, and the deletions are made durable before the journal accepts an append: otherwise a deleted
 * segment could come back after a crash and, once new appends reach its base offset, pass for their successor.
 * Corrupt data never makes recovery throw, so a bad tail cannot cause a crash loop; only real I/O errors do.
 *
 * <p>Stateless; runs on the opening thread before the journal is shared.
 */
final class JournalLoader {
    private static final Logger log = LoggerFactory.getLogger(JournalLoader.class);
    private static final Pattern SEGMENT_NAME = Pattern.compile("(\\d{20})\\.log");

    private JournalLoader() {}

    /** Returns the retained segments in offset order, never empty; the last one is the active segment. */
    static List<Segment> load(Path dir, FileOps ops) throws IOException {
        List<Long> bases = segmentBases(dir);
        List<Segment> segments = new ArrayList<>();
        try {
            long expected = bases.isEmpty() ? 0 : bases.getFirst();
            String dropReason = null; // once set, every later segment is deleted
            boolean directoryChanged = false;
            for (long base : bases) {
                Path path = Segment.fileName(dir, base);
                if (dropReason == null && base != expected) {
                    dropReason = "gap: expected a segment starting at offset " + expected;
                }
                if (dropReason != null) {
                    log.warn("Journal recovery: deleting {} ({} bytes, records from offset {} on): {}",
                            path, Files.size(path), base, dropReason);
                    ops.delete(path);
                    directoryChanged = true;
                    continue;
                }
                Segment.Recovered r = Segment.recover(ops, path, base);
                if (r.segment() == null) {
                    log.warn("Journal recovery: deleting {} ({} bytes, records from offset {} on): {}",
                            path, r.droppedBytes(), base, r.problem());
                    ops.delete(path);
                    directoryChanged = true;
                    dropReason = "an earlier segment ended at offset " + expected;
                    continue;
                }
                segments.add(r.segment());
                expected = r.segment().nextOffset();
                if (r.problem() == null && r.droppedBytes() > 0) {
                    log.info("Journal recovery: {} ended in {} bytes of preallocated zeros after offset {}; cut"
                            + " them", path, r.droppedBytes(), expected - 1);
                }
                if (r.problem() != null) {
                    log.warn("Journal recovery: {}; truncated {} to {} bytes, dropping {} bytes (records from"
                            + " offset {} on)", r.problem(), path, r.segment().size(), r.droppedBytes(), expected);
                    dropReason = "an earlier segment was truncated at offset " + expected;
                }
            }
            if (segments.isEmpty()) {
                segments.add(Segment.create(ops, dir, expected));
                directoryChanged = true;
            }
            if (directoryChanged) {
                ops.syncDirectory(dir);
            }
            return segments;
        } catch (IOException | RuntimeException e) {
            for (Segment s : segments) {
                try {
                    s.close();
                } catch (IOException suppressed) {
                    e.addSuppressed(suppressed);
                }
            }
            throw e;
        }
    }

    private static List<Long> segmentBases(Path dir) throws IOException {
        try (Stream<Path> files = Files.list(dir)) {
            return files.map(p -> SEGMENT_NAME.matcher(p.getFileName().toString()))
                    .filter(Matcher::matches)
                    .map(m -> Long.parseLong(m.group(1)))
                    .sorted()
                    .toList();
        }
    }
}
