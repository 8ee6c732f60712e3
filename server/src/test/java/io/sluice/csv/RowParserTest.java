package io.sluice.csv;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.csv.Rejection.Problem;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class RowParserTest {
    /** A node group's parser, its IDs read as its header says (strings unless {@code {id-type:...}}). */
    static RowParser nodes(String header, CsvFormat f) {
        Header h = Header.parse(EntityKind.NODES, header.split(","), "n.csv");
        ValueType idType = h.first(Column.Kind.ID).map(Column::type).orElse(null);
        return RowParser.nodes(h, f, idType == null ? ValueType.STRING : idType);
    }

    static Row row(RowParser p, String... fields) {
        return p.parse(new CsvSource.Raw(fields, 0, 7), "n.csv");
    }

    @Test
    void typedValuesInTheFormTheyAreSent() {
        RowParser p = nodes("id:ID(User){id-type:long},:LABEL,name,age:int,score:double,ok:boolean,tags:string[],"
                + "nums:long[],born:date,seen:datetime{timezone:Europe/Stockholm},loc:point,dur:duration", CsvFormat.DEFAULT);
        Row r = row(p, "42", "A;B", "Ann", "37", "1.5", "TRUE", "x;y", "1;2;3", "2000-01-02", "2020-05-06T07:08",
                "{latitude:55.6,longitude:12.9}", "PT90M");
        assertThat(r.isRejected()).isFalse();
        assertThat(r.partitionKey()).isEqualTo("42");
        Map<String, Object> v = r.values();
        assertThat(v.get("k")).isEqualTo(42L);
        assertThat(v.get("l")).isEqualTo(List.of("A", "B"));
        assertThat(v).containsEntry("p2", "Ann").containsEntry("p3", 37L).containsEntry("p4", 1.5).containsEntry("p5", true)
                .containsEntry("p6", List.of("x", "y")).containsEntry("p7", List.of(1L, 2L, 3L));
        assertThat(v.get("c8")).isEqualTo("2000-01-02");
        assertThat(v.get("c9")).isEqualTo("2020-05-06T07:08:00+02:00[Europe/Stockholm]");
        assertThat(v.get("c10")).isEqualTo(Map.of("x", 12.9, "y", 55.6, "srid", 4326));
        assertThat(v.get("c11")).isEqualTo("PT1H30M");
    }

    @Test
    void emptyFieldsAreNoValueAndQuotedEmptyStringsAreKeptUnlessIgnored() {
        RowParser p = nodes("id:ID(User),name,nick,age:int", CsvFormat.DEFAULT);
        Row r = row(p, "1", null, "", null);
        assertThat(r.values()).isEqualTo(Map.of("k", "1", "p2", ""));
        RowParser ignoring = nodes("id:ID(User),name,nick,age:int",
                new CsvFormat(',', ';', '"', true, false, false, false, CsvFormat.IdType.STRING));
        assertThat(row(ignoring, "1", null, "", "").values()).isEqualTo(Map.of("k", "1"));
        assertThat(row(p, "1").values()).as("missing trailing fields are empty").isEqualTo(Map.of("k", "1"));
    }

    @Test
    void unparsableValuesAreRejectedWithColumnAndValue() {
        RowParser p = nodes("id:ID(User){id-type:long},age:int,born:date", CsvFormat.DEFAULT);
        Row bad = row(p, "1", "12x", "2000-01-01");
        assertThat(bad.rejection().problem()).isEqualTo(Problem.BadValue);
        assertThat(bad.rejection().message()).startsWith("n.csv:7: ").contains("'age:int'").contains("'12x'");
        assertThat(bad.rejection().details()).containsEntry("column", "age:int").containsEntry("value", "12x");
        assertThat(bad.rejection().line()).isEqualTo(7);
        assertThat(row(p, "1", "1", "2000-13-45").rejection().message()).contains("born:date");
        assertThat(row(p, "x1", "1", null).rejection().message()).contains("ID 'x1'").contains("not an integer");
        assertThat(row(p, "", "1", null).rejection().message()).contains("empty ID");
    }

    @Test
    void extraColumnsAreRejectedUnlessIgnored() {
        RowParser p = nodes("id:ID(User),name", CsvFormat.DEFAULT);
        Row r = row(p, "1", "a", "extra");
        assertThat(r.rejection().problem()).isEqualTo(Problem.ExtraColumns);
        assertThat(r.rejection().details()).containsEntry("fields", 3).containsEntry("columns", 2);
        assertThat(row(p, "1", "a", null).isRejected()).as("an empty trailing field is not extra").isFalse();
        RowParser ignoring = nodes("id:ID(User),name",
                new CsvFormat(',', ';', '"', false, true, false, false, CsvFormat.IdType.STRING));
        assertThat(row(ignoring, "1", "a", "extra").values()).isEqualTo(Map.of("k", "1", "p1", "a"));
    }

    @Test
    void relationshipsTakeTheirTypeFromTheColumnOrTheGroup() {
        Header h = Header.parse(EntityKind.RELATIONSHIPS, ":START_ID(U),:END_ID(U),:TYPE,w:float".split(","), "r.csv");
        RowParser p = RowParser.relationships(h, CsvFormat.DEFAULT, ValueType.STRING, ValueType.STRING, "KNOWS");
        Row a = p.parse(new CsvSource.Raw(new String[] {"1", "2", null, "0.5"}, 0, 2), "r.csv");
        assertThat(a.values()).containsEntry("s", "1").containsEntry("e", "2").containsEntry("t", "KNOWS")
                .containsEntry("p3", 0.5);
        assertThat(a.partitionKey()).isEqualTo("1");
        Row b = p.parse(new CsvSource.Raw(new String[] {"1", "2", "LIKES"}, 0, 3), "r.csv");
        assertThat(b.values()).containsEntry("t", "LIKES");
        assertThat(p.parse(new CsvSource.Raw(new String[] {"1", null}, 0, 4), "r.csv").rejection().message())
                .contains("empty END_ID");
    }
}
