package io.sluice.csv;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class CsvSourceTest {
    @TempDir
    Path dir;

    @Test
    void readsAGroupOfPlainAndGzippedFilesAsOneWithLinesPerFile() throws Exception {
        Path h = Files2.write(dir.resolve("h.csv"), "id:ID,name");
        Path a = Files2.write(dir.resolve("a.csv.gz"), "1,\"multi", "line\"", "", "2,\"\"");
        Path b = Files2.write(dir.resolve("b.data"), "3,", "4,x");
        AtomicLong bytes = new AtomicLong();
        List<CsvSource.Raw> out = new ArrayList<>();
        try (CsvSource s = new CsvSource(List.of(h, a, b), CsvFormat.DEFAULT, bytes)) {
            for (CsvSource.Raw r = s.next(); r != null; r = s.next()) {
                out.add(r);
            }
            assertThat(s.file(1)).isEqualTo(a);
        }
        assertThat(out).hasSize(5);
        assertThat(out.get(0).fields()).containsExactly("id:ID", "name");
        assertThat(out.get(1).fields()).containsExactly("1", "multi\nline");
        assertThat(out.get(1).file()).isEqualTo(1);
        assertThat(out.get(1).line()).isEqualTo(1);
        assertThat(out.get(2).fields()).as("quoted empty is the empty string").containsExactly("2", "");
        assertThat(out.get(2).line()).isEqualTo(4);
        assertThat(out.get(3).fields()).as("unquoted empty is null").containsExactly("3", null);
        assertThat(out.get(3).file()).isEqualTo(2);
        assertThat(out.get(3).line()).isEqualTo(1);
        assertThat(bytes.get()).isEqualTo(java.nio.file.Files.size(h) + java.nio.file.Files.size(a) + java.nio.file.Files.size(b));
    }

    @Test
    void otherDelimitersAndQuotes() throws Exception {
        Path f = Files2.write(dir.resolve("t.tsv"), "a\t'b\tc'");
        CsvFormat tab = new CsvFormat('\t', ';', '\'', false, false, false, false, CsvFormat.IdType.STRING);
        try (CsvSource s = new CsvSource(List.of(f), tab, new AtomicLong())) {
            assertThat(s.next().fields()).containsExactly("a", "b\tc");
            assertThat(s.next()).isNull();
        }
        assertThat(CsvFormat.character("--delimiter", "TAB")).isEqualTo('\t');
        assertThat(CsvFormat.character("--delimiter", "U+007C")).isEqualTo('|');
    }

    @Test
    void groupsParseLabelsTypesAndFilePatterns() {
        Path one = Files2.write(dir.resolve("part-1.csv"), "x");
        Files2.write(dir.resolve("part-2.csv.gz"), "x");
        Path h = Files2.write(dir.resolve("header.csv"), "x");
        InputGroup n = InputGroup.parse(EntityKind.NODES, "User:Person=" + h + "," + dir.resolve("part-.*"));
        assertThat(n.labels()).containsExactly("User", "Person");
        assertThat(n.files()).containsExactly(h, one, dir.resolve("part-2.csv.gz"));
        InputGroup r = InputGroup.parse(EntityKind.RELATIONSHIPS, "KNOWS=" + one);
        assertThat(r.type()).isEqualTo("KNOWS");
        assertThat(InputGroup.parse(EntityKind.NODES, one.toString()).labels()).isEmpty();
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> InputGroup.parse(EntityKind.NODES, "A=" + dir.resolve("nope.csv")))
                .hasMessageContaining("no such file");
    }
}
