package io.sluice.journal;

import static io.sluice.journal.Journals.baseOf;
import static io.sluice.journal.Journals.payload;
import static io.sluice.journal.Journals.readAll;
import static io.sluice.journal.Journals.records;
import static io.sluice.journal.Journals.segmentFiles;
import static io.sluice.journal.Journals.segmentsOf;
import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.ThreadLocalRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Random byte flips inside a segment that is not the last, as Kafka's
 * {@code LogSegmentTest.testRecoveryWithCorruptMessage}: recovery keeps exactly the records before the damaged
 * frame and drops every later segment. Seeded; rerun one case with {@code -Dsluice.journal.seed=N}.
 */
class CorruptionTest {
    private static final int ROUNDS = 30;
    private static final long SEGMENT_BYTES = 2048;

    @TempDir
    Path tmp;

    @Test
    void recoveryKeepsExactlyThePrefixBeforeARandomCorruption() throws IOException {
        Long fixed = Long.getLong("sluice.journal.seed");
        long master = fixed != null ? fixed : ThreadLocalRandom.current().nextLong();
        Random seeds = new Random(master);
        for (int round = 0; round < (fixed != null ? 1 : ROUNDS); round++) {
            long seed = fixed != null ? fixed : seeds.nextLong();
            try {
                corruptAndRecover(tmp.resolve("round-" + round), seed);
            } catch (AssertionError | IOException | RuntimeException e) {
                throw new AssertionError("failed with seed " + seed + " (rerun: -Dsluice.journal.seed=" + seed + ")", e);
            }
        }
    }

    private static void corruptAndRecover(Path dir, long seed) throws IOException {
        Random random = new Random(seed);
        List<byte[]> payloads = new ArrayList<>();
        try (Journal journal = Journals.open(dir, segmentsOf(SEGMENT_BYTES))) {
            int count = 100 + random.nextInt(100);
            for (int i = 0; i < count; i++) {
                payloads.add(payload(i, random.nextInt(60)));
            }
            journal.appendAll(payloads);
        }
        List<Path> files = segmentFiles(dir);
        int victim = random.nextInt(files.size() - 1); // any segment but the last
        Path file = files.get(victim);
        long position = random.nextLong(Files.size(file));
        flip(file, position, random);

        long expectedNext = firstOffsetNotBefore(baseOf(file), baseOf(files.get(victim + 1)), position, payloads);
        try (Journal journal = Journals.open(dir, segmentsOf(SEGMENT_BYTES))) {
            assertThat(journal.nextOffset()).as("corrupted %s at byte %d", file.getFileName(), position)
                    .isEqualTo(expectedNext);
            assertThat(readAll(journal, 17))
                    .containsExactlyElementsOf(records(0, payloads.subList(0, (int) expectedNext)));
            assertThat(segmentFiles(dir)).allSatisfy(f -> assertThat(baseOf(f)).isLessThanOrEqualTo(expectedNext));
            assertThat(journal.append(payload(999_999))).isEqualTo(expectedNext);
        }
        try (Journal journal = Journals.open(dir, segmentsOf(SEGMENT_BYTES))) {
            assertThat(journal.nextOffset()).isEqualTo(expectedNext + 1);
            assertThat(journal.read(expectedNext, 10, Long.MAX_VALUE))
                    .containsExactly(new JournalRecord(expectedNext, payload(999_999)));
        }
    }

    /**
     * The offset of the frame holding {@code position} (or the segment's base, for a header byte), or the
     * segment's end ({@code next}) for a byte in the zeros preallocated after its frames.
     */
    private static long firstOffsetNotBefore(long base, long next, long position, List<byte[]> payloads) {
        long frameStart = FrameCodec.SEGMENT_HEADER_BYTES;
        long offset = base;
        while (offset < next) {
            long frameEnd = frameStart + FrameCodec.frameBytes(payloads.get((int) offset).length);
            if (position < frameEnd) {
                return offset;
            }
            frameStart = frameEnd;
            offset++;
        }
        return next;
    }

    private static void flip(Path file, long position, Random random) throws IOException {
        try (RandomAccessFile f = new RandomAccessFile(file.toFile(), "rw")) {
            f.seek(position);
            int b = f.read();
            f.seek(position);
            f.write(b ^ (1 + random.nextInt(255)));
        }
    }
}
