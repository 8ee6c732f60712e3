package io.sluice.journal;

import static io.sluice.journal.Journals.baseOf;
import static io.sluice.journal.Journals.payload;
import static io.sluice.journal.Journals.readAll;
import static io.sluice.journal.Journals.segmentFiles;
import static io.sluice.journal.Journals.segmentsOf;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class RetentionTest {
    private static final JournalOptions OPTIONS = segmentsOf(1024);

    @TempDir
    Path dir;

    @Test
    void deletesOnlySegmentsEntirelyBelowTheOffset() throws IOException {
        try (Journal journal = Journals.open(dir, OPTIONS)) {
            for (int i = 0; i < 100; i++) {
                journal.append(payload(i, 40));
            }
            List<Path> files = segmentFiles(dir);
            assertThat(files).hasSizeGreaterThan(4);
            long thirdBase = baseOf(files.get(2));
            long sizeBefore = journal.sizeInBytes();
            long deletedBytes = Files.size(files.get(0)) + Files.size(files.get(1));

            assertThat(journal.deleteBefore(thirdBase + 1)).isEqualTo(2); // the third still holds thirdBase
            assertThat(segmentFiles(dir)).isEqualTo(files.subList(2, files.size()));
            assertThat(journal.firstOffset()).isEqualTo(thirdBase);
            assertThat(journal.sizeInBytes()).isEqualTo(sizeBefore - deletedBytes)
                    .isEqualTo(diskSize(segmentFiles(dir)));
            assertThat(journal.deleteBefore(thirdBase)).isZero();

            assertThat(journal.read(thirdBase, 1, Long.MAX_VALUE)).extracting(JournalRecord::offset)
                    .containsExactly(thirdBase);
            assertThatThrownBy(() -> journal.read(0, 1, Long.MAX_VALUE))
                    .isInstanceOf(OffsetOutOfRangeException.class)
                    .hasMessageContaining("offset 0").hasMessageContaining("deleted by retention");
            assertThatThrownBy(() -> journal.read(thirdBase - 1, 1, Long.MAX_VALUE))
                    .isInstanceOfSatisfying(OffsetOutOfRangeException.class, e -> {
                        assertThat(e.requested()).isEqualTo(thirdBase - 1);
                        assertThat(e.firstOffset()).isEqualTo(thirdBase);
                    });
            assertThatThrownBy(() -> journal.read(101, 1, Long.MAX_VALUE))
                    .isInstanceOf(OffsetOutOfRangeException.class).hasMessageContaining("never written");
        }
        try (Journal journal = Journals.open(dir, OPTIONS)) {
            assertThat(journal.firstOffset()).isEqualTo(baseOf(segmentFiles(dir).getFirst()));
            assertThat(readAll(journal)).extracting(JournalRecord::offset).startsWith(journal.firstOffset())
                    .endsWith(99L);
        }
    }

    @Test
    void neverDeletesTheActiveSegment() throws IOException {
        try (Journal journal = Journals.open(dir, OPTIONS)) {
            for (int i = 0; i < 100; i++) {
                journal.append(payload(i, 40));
            }
            Path active = segmentFiles(dir).getLast();
            assertThat(journal.deleteBefore(Long.MAX_VALUE)).isPositive();
            assertThat(segmentFiles(dir)).containsExactly(active);
            assertThat(journal.firstOffset()).isEqualTo(baseOf(active));
            assertThat(journal.append(payload(100))).isEqualTo(100);
        }
        try (Journal journal = Journals.open(dir, OPTIONS)) {
            assertThat(journal.firstOffset()).isEqualTo(baseOf(segmentFiles(dir).getFirst()));
            assertThat(journal.nextOffset()).isEqualTo(101);
        }
    }

    private static long diskSize(List<Path> files) throws IOException {
        long total = 0;
        for (Path f : files) {
            total += Files.size(f);
        }
        return total;
    }
}
