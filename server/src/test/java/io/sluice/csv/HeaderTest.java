package io.sluice.csv;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sluice.csv.Column.Kind;
import java.util.List;
import org.junit.jupiter.api.Test;

class HeaderTest {
    static Header nodes(String... entries) {
        return Header.parse(EntityKind.NODES, entries, "h.csv");
    }

    @Test
    void parsesNodeEntriesWithGroupsTypesArraysAndOptions() {
        Header h = nodes("uid:ID(User){id-type:long, label:'Person'}", ":LABEL", "name", "age:int", "score:float",
                "tags:string[]", "born:date", "seen:datetime{timezone:Europe/Stockholm}", "loc:point{crs:WGS-84}", ":IGNORE", "");
        Column id = h.columns().get(0);
        assertThat(id.kind()).isEqualTo(Kind.ID);
        assertThat(id.name()).isEqualTo("uid");
        assertThat(id.group()).isEqualTo("User");
        assertThat(id.type()).isEqualTo(ValueType.LONG);
        assertThat(id.options()).containsEntry("label", "Person").containsEntry("id-type", "long");
        assertThat(h.columns()).extracting(Column::kind).containsExactly(Kind.ID, Kind.LABEL, Kind.PROPERTY,
                Kind.PROPERTY, Kind.PROPERTY, Kind.PROPERTY, Kind.PROPERTY, Kind.PROPERTY, Kind.PROPERTY, Kind.IGNORE, Kind.IGNORE);
        assertThat(h.columns().get(2).type()).isEqualTo(ValueType.STRING);
        assertThat(h.columns().get(3).type()).isEqualTo(ValueType.LONG);
        assertThat(h.columns().get(4).type()).isEqualTo(ValueType.DOUBLE);
        assertThat(h.columns().get(5).array()).isTrue();
        assertThat(h.columns().get(6).type()).isEqualTo(ValueType.DATE);
        assertThat(h.columns().get(7).info()).isNotNull();
        assertThat(h.columns().get(8).type()).isEqualTo(ValueType.POINT);
    }

    @Test
    void unnamedIdInTheGlobalSpaceAndCaseInsensitiveKinds() {
        Header h = nodes(":id", "name");
        assertThat(h.columns().getFirst().kind()).isEqualTo(Kind.ID);
        assertThat(h.columns().getFirst().name()).isNull();
        assertThat(h.columns().getFirst().group()).isNull();
    }

    @Test
    void relationshipHeaders() {
        Header h = Header.parse(EntityKind.RELATIONSHIPS, new String[] {":START_ID(User)", ":END_ID(Site)", ":TYPE", "since:date"}, "r.csv");
        assertThat(h.first(Kind.START_ID).orElseThrow().group()).isEqualTo("User");
        assertThat(h.first(Kind.END_ID).orElseThrow().group()).isEqualTo("Site");
        assertThat(h.first(Kind.TYPE)).isPresent();
        assertThatThrownBy(() -> Header.parse(EntityKind.RELATIONSHIPS, new String[] {":START_ID", "x"}, "r.csv"))
                .hasMessageContaining("r.csv").hasMessageContaining(":START_ID and :END_ID");
        assertThatThrownBy(() -> Header.parse(EntityKind.RELATIONSHIPS, new String[] {":START_ID", ":END_ID", ":LABEL"}, "r.csv"))
                .hasMessageContaining("':LABEL'").hasMessageContaining("not a relationship header type");
    }

    @Test
    void badHeadersNameTheFileAndTheEntry() {
        assertThatThrownBy(() -> nodes(":ID", "age:integer")).hasMessageContaining("h.csv")
                .hasMessageContaining("'age:integer'").hasMessageContaining("unknown type 'integer'");
        assertThatThrownBy(() -> nodes(":ID", "a", "a:int")).hasMessageContaining("property 'a' appears twice");
        assertThatThrownBy(() -> nodes(":ID", ":int")).hasMessageContaining("needs a name");
        assertThatThrownBy(() -> nodes(":ID{id-type:double}")).hasMessageContaining("id-type must be");
    }

    @Test
    void optionsWithQuotedCommas() {
        assertThat(Header.options("a:'x,y', b : 2", "s", "r")).containsExactly(
                java.util.Map.entry("a", "x,y"), java.util.Map.entry("b", "2"));
        assertThat(nodes(":ID", "n").rawEntries()).isEqualTo(List.of(":ID", "n"));
    }
}
