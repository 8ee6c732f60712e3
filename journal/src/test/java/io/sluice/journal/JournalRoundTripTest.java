package io.sluice.journal;

import static io.sluice.journal.Journals.baseOf;
import static io.sluice.journal.Journals.payload;
import static io.sluice.journal.Journals.readAll;
import static io.sluice.journal.Journals.records;
import static io.sluice.journal.Journals.segmentFiles;
import static io.sluice.journal.Journals.segmentsOf;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class JournalRoundTripTest {
    @TempDir
    Path dir;

    @Test
    void roundTripAcrossSegmentRollsAndReopen() throws IOException {
        List<byte[]> payloads = new ArrayList<>();
        try (Journal journal = Journals.open(dir, segmentsOf(1024))) {
            for (int i = 0; i < 200; i++) {
                payloads.add(payload(i));
                assertThat(journal.append(payloads.get(i))).isEqualTo(i);
            }
            assertThat(journal.nextOffset()).isEqualTo(200);
            assertThat(journal.durableOffset()).isEqualTo(200);
            assertThat(readAll(journal, 7)).containsExactlyElementsOf(records(0, payloads));
        }
        List<Path> files = segmentFiles(dir);
        assertThat(files).hasSizeGreaterThan(5);
        assertThat(files.getFirst().getFileName()).hasToString("00000000000000000000.log");
        assertThat(files).allSatisfy(f -> assertThat(Files.size(f)).isLessThanOrEqualTo(1024));
        assertThat(files.stream().mapToLong(Journals::baseOf)).isSorted();

        try (Journal journal = Journals.open(dir, segmentsOf(1024))) {
            assertThat(journal.firstOffset()).isZero();
            assertThat(journal.nextOffset()).isEqualTo(200);
            assertThat(journal.sizeInBytes()).isEqualTo(totalSize(files));
            assertThat(readAll(journal)).containsExactlyElementsOf(records(0, payloads));
            for (int i = 200; i < 300; i++) {
                payloads.add(payload(i));
                assertThat(journal.append(payloads.get(i))).isEqualTo(i);
            }
        }
        try (Journal journal = Journals.open(dir, segmentsOf(1024))) {
            assertThat(journal.nextOffset()).isEqualTo(300);
            assertThat(readAll(journal, 13)).containsExactlyElementsOf(records(0, payloads));
            assertThat(journal.read(123, 1, Long.MAX_VALUE)).containsExactly(new JournalRecord(123, payloads.get(123)));
        }
    }

    @Test
    void appendAllGivesConsecutiveOffsetsAcrossRolls() throws IOException {
        List<byte[]> first = new ArrayList<>();
        List<byte[]> second = new ArrayList<>();
        for (int i = 0; i < 50; i++) {
            first.add(payload(i, 40));
            second.add(payload(50 + i, 40));
        }
        try (Journal journal = Journals.open(dir, segmentsOf(512))) {
            assertThat(journal.appendAll(first)).isZero();
            assertThat(journal.appendAll(second)).isEqualTo(50);
            assertThat(journal.append(payload(100))).isEqualTo(100);
        }
        try (Journal journal = Journals.open(dir, segmentsOf(512))) {
            List<JournalRecord> all = readAll(journal);
            assertThat(all).hasSize(101);
            assertThat(all.subList(0, 50)).containsExactlyElementsOf(records(0, first));
            assertThat(all.subList(50, 100)).containsExactlyElementsOf(records(50, second));
        }
        assertThat(segmentFiles(dir)).hasSizeGreaterThan(5);
    }

    @Test
    void readsFromAnyOffsetOfALargeSegmentBeforeAndAfterReopen() throws IOException {
        List<byte[]> payloads = new ArrayList<>();
        for (int i = 0; i < 3000; i++) {
            payloads.add(payload(i, i % 150)); // ~300 KiB: many sparse index entries in one segment
        }
        Random random = new Random(42);
        try (Journal journal = Journals.open(dir, JournalOptions.defaults())) {
            journal.appendAll(payloads);
            readAtRandomOffsets(journal, payloads, random);
        }
        try (Journal journal = Journals.open(dir, JournalOptions.defaults())) {
            readAtRandomOffsets(journal, payloads, random); // the index rebuilt by the recovery scan
        }
        assertThat(segmentFiles(dir)).hasSize(1);
    }

    private static void readAtRandomOffsets(Journal journal, List<byte[]> payloads, Random random)
            throws IOException {
        for (int i = 0; i < 200; i++) {
            int from = random.nextInt(payloads.size());
            int count = 1 + random.nextInt(5);
            int to = Math.min(payloads.size(), from + count);
            assertThat(journal.read(from, count, Long.MAX_VALUE)).as("from %d", from)
                    .containsExactlyElementsOf(records(from, payloads.subList(from, to)));
        }
    }

    @Test
    void readStopsAtMaxBytesButReturnsAtLeastOneRecord() throws IOException {
        try (Journal journal = Journals.open(dir, JournalOptions.defaults())) {
            for (int i = 0; i < 10; i++) {
                journal.append(new byte[100]);
            }
            assertThat(journal.read(0, 100, 1)).extracting(JournalRecord::offset).containsExactly(0L);
            assertThat(journal.read(2, 100, 250)).extracting(JournalRecord::offset).containsExactly(2L, 3L);
            assertThat(journal.read(5, 3, Long.MAX_VALUE)).extracting(JournalRecord::offset)
                    .containsExactly(5L, 6L, 7L);
            assertThat(journal.read(10, 100, Long.MAX_VALUE)).isEmpty();
        }
    }

    @Test
    void emptyAndLargeRecordsRoundTrip() throws IOException {
        byte[] big = new byte[5000];
        for (int i = 0; i < big.length; i++) {
            big[i] = (byte) i;
        }
        try (Journal journal = Journals.open(dir, segmentsOf(1024))) {
            assertThat(journal.append(new byte[0])).isZero();
            assertThat(journal.append(big)).isEqualTo(1); // larger than a segment: gets one of its own
            assertThat(journal.append(new byte[0])).isEqualTo(2);
        }
        assertThat(segmentFiles(dir)).extracting(Journals::baseOf).containsExactly(0L, 1L, 2L);
        try (Journal journal = Journals.open(dir, segmentsOf(1024))) {
            assertThat(readAll(journal)).containsExactly(new JournalRecord(0, new byte[0]),
                    new JournalRecord(1, big), new JournalRecord(2, new byte[0]));
        }
    }

    @Test
    void refusesRecordsOverTheLimitAndEmptyBatches() throws IOException {
        try (Journal journal = Journals.open(dir, JournalOptions.defaults().withMaxRecordBytes(10))) {
            assertThat(journal.append(new byte[10])).isZero();
            assertThatThrownBy(() -> journal.append(new byte[11]))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("11 bytes");
            assertThatThrownBy(() -> journal.appendAll(List.of()))
                    .isInstanceOf(IllegalArgumentException.class);
            assertThat(journal.nextOffset()).isEqualTo(1);
        }
    }

    @Test
    void optionsNameTheBadValue() {
        assertThatThrownBy(() -> new JournalOptions(10, 100)).hasMessageContaining("got 10");
        assertThatThrownBy(() -> new JournalOptions(1 << 20, 0)).hasMessageContaining("got 0");
    }

    @Test
    void aDirectoryCanBeOpenOnlyOnce() throws IOException {
        try (Journal journal = Journals.open(dir, JournalOptions.defaults())) {
            assertThat(journal.nextOffset()).isZero();
            assertThatThrownBy(() -> Journals.open(dir, JournalOptions.defaults()))
                    .isInstanceOf(IOException.class).hasMessageContaining("already open");
        }
        Journals.open(dir, JournalOptions.defaults()).close();
    }

    @Test
    void aClosedJournalRefusesAppendsAndReads() throws IOException {
        Journal journal = Journals.open(dir, JournalOptions.defaults());
        journal.append(payload(0));
        journal.close();
        journal.close(); // idempotent
        assertThatThrownBy(() -> journal.append(payload(1))).isInstanceOf(IOException.class)
                .hasMessageContaining("closed");
        assertThatThrownBy(() -> journal.read(0, 1, 1)).isInstanceOf(IOException.class)
                .hasMessageContaining("closed");
        assertThat(baseOf(segmentFiles(dir).getFirst())).isZero();
    }

    private static long totalSize(List<Path> files) throws IOException {
        long total = 0;
        for (Path f : files) {
            total += Files.size(f);
        }
        return total;
    }
}
