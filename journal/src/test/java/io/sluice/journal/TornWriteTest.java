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
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A crash in the middle of writing the last record, simulated by cutting the file at every byte of it, and by
 * zeroing it from every byte of it on (a torn frame in front of the preallocated zeros).
 */
class TornWriteTest {
    @TempDir
    Path tmp;

    @Test
    void aTornLastRecordIsDroppedAtEveryByteOffset() throws IOException {
        Path pristine = tmp.resolve("pristine");
        List<byte[]> payloads = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            payloads.add(payload(i, 30));
        }
        long lastFrameStart = FrameCodec.SEGMENT_HEADER_BYTES;
        for (byte[] p : payloads.subList(0, 4)) {
            lastFrameStart += FrameCodec.frameBytes(p.length);
        }
        try (Journal journal = Journals.open(pristine, JournalOptions.defaults())) {
            journal.appendAll(payloads.subList(0, 4));
            journal.append(payloads.get(4));
        }
        long fullSize = Files.size(segmentFiles(pristine).getFirst());
        assertThat(fullSize - lastFrameStart).isEqualTo(FrameCodec.frameBytes(payloads.get(4).length));

        for (long cut = lastFrameStart; cut < 2 * fullSize - lastFrameStart; cut++) {
            // the file cut short, or (past fullSize) the same cut but the rest zeros: the preallocated tail
            long at = cut < fullSize ? cut : cut - fullSize + lastFrameStart;
            Path dir = tmp.resolve("cut-" + cut);
            Journals.copyDirectory(pristine, dir);
            if (cut < fullSize) {
                truncate(segmentFiles(dir).getFirst(), at);
            } else {
                zeroFrom(segmentFiles(dir).getFirst(), at, 4096);
            }
            byte[] after = payload(99, (int) (cut % 7));
            try (Journal journal = Journals.open(dir, JournalOptions.defaults())) {
                assertThat(readAll(journal)).as("cut at %d", cut)
                        .containsExactlyElementsOf(records(0, payloads.subList(0, 4)));
                assertThat(journal.append(after)).as("cut at %d", cut).isEqualTo(4);
            }
            try (Journal journal = Journals.open(dir, JournalOptions.defaults())) {
                List<byte[]> expected = new ArrayList<>(payloads.subList(0, 4));
                expected.add(after);
                assertThat(readAll(journal)).as("cut at %d", cut).containsExactlyElementsOf(records(0, expected));
            }
        }
    }

    @Test
    void aTornHeaderOfAFreshlyRolledSegmentIsDropped() throws IOException {
        Path pristine = tmp.resolve("pristine");
        List<byte[]> payloads = new ArrayList<>();
        try (Journal journal = Journals.open(pristine, segmentsOf(256))) {
            while (segmentFiles(pristine).size() < 3) {
                assertThat(payloads).as("records appended before a third segment").hasSizeLessThan(1000);
                payloads.add(payload(payloads.size(), 20));
                journal.append(payloads.getLast());
            }
        }
        Path last = segmentFiles(pristine).getLast();
        long lastBase = Journals.baseOf(last);
        for (int cut = 0; cut <= FrameCodec.SEGMENT_HEADER_BYTES; cut++) {
            Path dir = tmp.resolve("cut-" + cut);
            Journals.copyDirectory(pristine, dir);
            truncate(dir.resolve(last.getFileName()), cut);
            try (Journal journal = Journals.open(dir, segmentsOf(256))) {
                assertThat(readAll(journal)).as("cut at %d", cut)
                        .containsExactlyElementsOf(records(0, payloads.subList(0, (int) lastBase)));
                assertThat(journal.append(payload(7))).isEqualTo(lastBase);
                assertThat(journal.read(lastBase, 1, Long.MAX_VALUE)).containsExactly(
                        new JournalRecord(lastBase, payload(7)));
            }
        }
    }

    @Test
    void aJournalWhoseOnlySegmentHeaderIsTornStartsAgainAtItsBaseOffset() throws IOException {
        Files.createDirectories(tmp);
        Files.write(tmp.resolve("00000000000000000042.log"), new byte[] {0x53, 0x4C});
        try (Journal journal = Journals.open(tmp, JournalOptions.defaults())) {
            assertThat(journal.firstOffset()).isEqualTo(42);
            assertThat(journal.append(payload(42))).isEqualTo(42);
        }
        try (Journal journal = Journals.open(tmp, JournalOptions.defaults())) {
            assertThat(readAll(journal)).containsExactly(new JournalRecord(42, payload(42)));
        }
    }

    /** Zeros from {@code from} to the end, and {@code extra} zero bytes after it. */
    static void zeroFrom(Path file, long from, int extra) throws IOException {
        try (RandomAccessFile f = new RandomAccessFile(file.toFile(), "rw")) {
            f.seek(from);
            f.write(new byte[(int) (f.length() - from) + extra]);
        }
    }

    static void truncate(Path file, long size) throws IOException {
        try (RandomAccessFile f = new RandomAccessFile(file.toFile(), "rw")) {
            f.setLength(size);
        }
    }
}
