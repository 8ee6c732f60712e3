package io.sluice.journal;

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
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Segments run ahead of their frames in zeros; a crash leaves that zero tail, which recovery must read as the
 * clean end of the records (never as damage that would drop later segments), while anything else after the
 * last valid frame is still damage.
 */
class PreallocationTest {
    @TempDir
    Path tmp;

    @Test
    void theActiveSegmentRunsAheadInZerosAndACleanCloseCutsItBack() throws IOException {
        Path dir = tmp.resolve("j");
        Path file;
        long frames = FrameCodec.SEGMENT_HEADER_BYTES + FrameCodec.frameBytes(payload(0).length);
        try (Journal journal = Journals.open(dir, JournalOptions.defaults())) {
            journal.append(payload(0));
            file = segmentFiles(dir).getFirst();
            assertThat(Files.size(file)).isEqualTo(frames + Segment.PREALLOCATE_BYTES)
                    .as("sizeInBytes counts the file").isEqualTo(journal.sizeInBytes());
            assertThat(tail(file, frames)).as("the preallocated tail").containsOnly((byte) 0);
            journal.append(payload(1));
            assertThat(Files.size(file)).as("a write inside the preallocated bytes does not grow the file")
                    .isEqualTo(frames + Segment.PREALLOCATE_BYTES).isEqualTo(journal.sizeInBytes());
            frames += FrameCodec.frameBytes(payload(1).length);
        }
        assertThat(Files.size(file)).isEqualTo(frames);
    }

    @Test
    void preallocationStopsAtTheSegmentSizeAndRolledSegmentsKeepTheirZeros() throws IOException {
        Path dir = tmp.resolve("j");
        try (Journal journal = Journals.open(dir, segmentsOf(300))) {
            for (int i = 0; segmentFiles(dir).size() < 3; i++) {
                assertThat(i).as("records before a third segment").isLessThan(100);
                journal.append(payload(i, 10));
                List<Path> files = segmentFiles(dir);
                for (Path f : files) {
                    assertThat(Files.size(f)).as("%s", f.getFileName()).isEqualTo(300);
                }
                assertThat(journal.sizeInBytes()).isEqualTo(300L * files.size());
            }
        }
        List<Path> files = segmentFiles(dir);
        assertThat(Files.size(files.getFirst())).isEqualTo(300);
        assertThat(Files.size(files.getLast())).as("the active segment, cut at close").isLessThan(300);
        assertThat(tail(files.getLast(), Files.size(files.getLast()) - 1)).doesNotContain((byte) 0);
    }

    @Test
    void aCrashLeavesAZeroTailThatRecoveryReadsAsTheCleanEnd() throws IOException {
        Path live = tmp.resolve("live");
        Path crashed = tmp.resolve("crashed");
        List<byte[]> payloads = new ArrayList<>();
        try (Journal journal = Journals.open(live, segmentsOf(4096))) {
            while (segmentFiles(live).size() < 3) {
                payloads.add(payload(payloads.size(), 40));
                journal.append(payloads.getLast());
            }
            // what a kill -9 leaves: every acknowledged frame, and the preallocated zeros after the last
            Journals.copyDirectory(live, crashed);
        }
        Path last = segmentFiles(crashed).getLast();
        assertThat(Files.size(last)).isEqualTo(4096);
        // a crash between a roll and its cut reaching the disk leaves zeros after a segment that is not the last
        Path middle = segmentFiles(crashed).get(1);
        appendZeros(middle, 1000);

        try (Journal journal = Journals.open(crashed, segmentsOf(4096))) {
            assertThat(segmentFiles(crashed)).hasSize(3);
            assertThat(readAll(journal, 7)).containsExactlyElementsOf(records(0, payloads));
            assertThat(journal.append(payload(999))).isEqualTo(payloads.size());
        }
        payloads.add(payload(999));
        try (Journal journal = Journals.open(crashed, segmentsOf(4096))) {
            assertThat(readAll(journal)).containsExactlyElementsOf(records(0, payloads));
        }
    }

    @Test
    void bytesOtherThanZerosAfterTheLastFrameAreDamageAndLaterSegmentsGo() throws IOException {
        Path dir = tmp.resolve("j");
        List<byte[]> payloads = twoSegments(dir);
        Path first = segmentFiles(dir).getFirst();
        long firstSegmentRecords = Journals.baseOf(segmentFiles(dir).getLast());
        appendZeros(first, 500);
        try (RandomAccessFile f = new RandomAccessFile(first.toFile(), "rw")) {
            f.seek(f.length() - 1);
            f.write(1); // a stray byte at the end of the zeros: not a clean end
        }
        try (Journal journal = Journals.open(dir, segmentsOf(4096))) {
            assertThat(segmentFiles(dir)).containsExactly(first);
            assertThat(readAll(journal)).containsExactlyElementsOf(
                    records(0, payloads.subList(0, (int) firstSegmentRecords)));
        }
    }

    @Test
    void aZeroPayloadAtOffsetZeroIsARecordNotTheEnd() throws IOException {
        assertThat(FrameCodec.crc(0, new byte[0])).as("no valid frame is all zeros").isNotZero();
        Path dir = tmp.resolve("j");
        try (Journal journal = Journals.open(dir, JournalOptions.defaults())) {
            journal.append(new byte[0]);
            journal.append(new byte[0]);
            Journals.copyDirectory(dir, tmp.resolve("crashed"));
        }
        try (Journal journal = Journals.open(tmp.resolve("crashed"), JournalOptions.defaults())) {
            assertThat(readAll(journal)).containsExactly(new JournalRecord(0, new byte[0]),
                    new JournalRecord(1, new byte[0]));
        }
    }

    @Test
    void aHeaderAndZerosIsAnEmptySegment() throws IOException {
        Files.createDirectories(tmp);
        byte[] file = new byte[FrameCodec.SEGMENT_HEADER_BYTES + 4096];
        System.arraycopy(FrameCodec.segmentHeader(0), 0, file, 0, FrameCodec.SEGMENT_HEADER_BYTES);
        Files.write(tmp.resolve("00000000000000000000.log"), file);
        try (Journal journal = Journals.open(tmp, JournalOptions.defaults())) {
            assertThat(journal.nextOffset()).isZero();
            assertThat(readAll(journal)).isEmpty();
            assertThat(journal.append(payload(0))).isZero();
        }
        try (Journal journal = Journals.open(tmp, JournalOptions.defaults())) {
            assertThat(readAll(journal)).containsExactly(new JournalRecord(0, payload(0)));
        }
    }

    @Test
    void aTornFrameBeforeTheZerosIsDamage() throws IOException {
        Path dir = tmp.resolve("j");
        List<byte[]> payloads = twoSegments(dir);
        Path first = segmentFiles(dir).getFirst();
        int inFirst = (int) Journals.baseOf(segmentFiles(dir).getLast());
        long end = FrameCodec.SEGMENT_HEADER_BYTES;
        for (byte[] p : payloads.subList(0, inFirst)) {
            end += FrameCodec.frameBytes(p.length);
        }
        byte[] torn = Arrays.copyOf(FrameCodec.encodeFrames(inFirst, List.of(payload(77))), 10);
        try (RandomAccessFile f = new RandomAccessFile(first.toFile(), "rw")) {
            f.seek(end);
            f.write(torn); // the first bytes of a frame, then the zeros
        }
        try (Journal journal = Journals.open(dir, segmentsOf(4096))) {
            assertThat(segmentFiles(dir)).containsExactly(first);
            assertThat(readAll(journal)).containsExactlyElementsOf(records(0, payloads.subList(0, inFirst)));
        }
    }

    @Test
    void forcesIgnoreTheCallersInterruptAndAreFdatasyncsUnderTheProjectsJvmFlags() throws IOException {
        assertThat(SystemFileOps.fdatasync()).as("the build's --add-opens java.base/sun.nio.ch").isTrue();
        Files.createDirectories(tmp);
        try (FileOps.SegmentFile file = SystemFileOps.INSTANCE.open(tmp.resolve("f"))) {
            byte[] data = {1, 2, 3};
            Thread.currentThread().interrupt();
            try {
                file.write(0, data, 0, data.length);
                file.force();
                file.force();
                assertThat(Thread.currentThread().isInterrupted()).as("the interrupt is left for its owner").isTrue();
            } finally {
                Thread.interrupted();
            }
            byte[] back = new byte[3];
            file.read(0, back, 0, 3); // an interruptible channel would have been closed by now
            file.force();
            assertThat(back).isEqualTo(data);
        }
    }

    /** Appends records of 4096-byte segments until a second segment starts; returns their payloads. */
    private static List<byte[]> twoSegments(Path dir) throws IOException {
        List<byte[]> payloads = new ArrayList<>();
        try (Journal journal = Journals.open(dir, segmentsOf(4096))) {
            while (segmentFiles(dir).size() < 2) {
                payloads.add(payload(payloads.size(), 40));
                journal.append(payloads.getLast());
            }
        }
        return payloads;
    }

    private static byte[] tail(Path file, long from) throws IOException {
        byte[] all = Files.readAllBytes(file);
        return Arrays.copyOfRange(all, (int) from, all.length);
    }

    private static void appendZeros(Path file, int bytes) throws IOException {
        try (RandomAccessFile f = new RandomAccessFile(file.toFile(), "rw")) {
            f.seek(f.length());
            f.write(new byte[bytes]);
        }
    }
}
