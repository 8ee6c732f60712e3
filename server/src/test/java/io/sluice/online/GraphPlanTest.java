package io.sluice.online;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sluice.csv.CsvFormat;
import io.sluice.csv.CsvSource;
import io.sluice.csv.EntityKind;
import io.sluice.csv.Files2;
import io.sluice.csv.Header;
import io.sluice.csv.InputGroup;
import io.sluice.csv.Row;
import io.sluice.csv.ValueType;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class GraphPlanTest {
    @TempDir
    Path dir;

    InputGroup group(EntityKind kind, String prefix) {
        Path f = Files2.write(dir.resolve("f" + System.nanoTime() + ".csv"), "x");
        return InputGroup.parse(kind, (prefix == null ? "" : prefix + "=") + f);
    }

    Header header(EntityKind kind, String line) {
        return Header.parse(kind, line.split(","), "h.csv");
    }

    GraphPlan plan(List<InputGroup> g, List<Header> h, boolean merge, List<String> warnings) {
        return GraphPlan.build(g, h, CsvFormat.DEFAULT, merge, warnings::add);
    }

    @Test
    void spaceLabelFromHintThenCommonCommandLineLabelThenSpaceName() {
        List<String> w = new ArrayList<>();
        GraphPlan p = plan(List.of(group(EntityKind.NODES, "Person:User"), group(EntityKind.NODES, "User"),
                        group(EntityKind.NODES, null), group(EntityKind.NODES, "X")),
                List.of(header(EntityKind.NODES, "uid:ID(U),name"), header(EntityKind.NODES, "uid:ID(U)"),
                        header(EntityKind.NODES, ":ID(Site),:LABEL"), Header.parse(EntityKind.NODES, new String[] {"code:ID(C){label:Country,id-type:long}"}, "h.csv")),
                false, w);
        IdSpace u = p.nodeGroups().get(0).space();
        assertThat(u.label()).isEqualTo("User");
        assertThat(u.property()).isEqualTo("uid");
        assertThat(u.idType()).isEqualTo(ValueType.STRING);
        assertThat(p.nodeGroups().get(0).labels()).containsExactly("User", "Person");
        IdSpace site = p.nodeGroups().get(2).space();
        assertThat(site.label()).isEqualTo("Site");
        assertThat(site.property()).isEqualTo("id");
        assertThat(p.nodeGroups().get(2).labels()).containsExactly("Site");
        IdSpace c = p.nodeGroups().get(3).space();
        assertThat(c.label()).isEqualTo("Country");
        assertThat(c.idType()).isEqualTo(ValueType.LONG);
        assertThat(p.nodeGroups().get(3).labels()).containsExactly("Country", "X");
        assertThat(p.declaredSpaces()).hasSize(3);
        assertThat(w).isEmpty();
    }

    @Test
    void relationshipsFindTheirSpacesOrFallBackToTheDatabase() {
        List<String> w = new ArrayList<>();
        GraphPlan p = plan(List.of(group(EntityKind.NODES, "User"), group(EntityKind.RELATIONSHIPS, "VISITED")),
                List.of(header(EntityKind.NODES, "id:ID(User)"), header(EntityKind.RELATIONSHIPS, ":START_ID(User),:END_ID(Site)")),
                false, w);
        assertThat(p.relGroups().getFirst().start().label()).isEqualTo("User");
        IdSpace site = p.relGroups().getFirst().end();
        assertThat(site.fromNodes()).isFalse();
        assertThat(site.label()).isEqualTo("Site");
        assertThat(site.property()).isEqualTo("id");
        assertThat(w).singleElement().asString().contains("'Site'");
        assertThat(p.declaredSpaces()).extracting(IdSpace::name).containsExactly("User");
    }

    @Test
    void parsersReadIdsAsTheTypeOfTheirSpace() {
        GraphPlan p = plan(List.of(group(EntityKind.NODES, "User"), group(EntityKind.RELATIONSHIPS, "KNOWS")),
                List.of(header(EntityKind.NODES, "id:ID(User){id-type:long}"),
                        header(EntityKind.RELATIONSHIPS, ":START_ID(User),:END_ID(User)")), false, new ArrayList<>());
        Row r = p.relGroups().getFirst().parser(CsvFormat.DEFAULT).parse(new CsvSource.Raw(new String[] {"1", "2"}, 0, 2), "r.csv");
        assertThat(r.values()).containsEntry("s", 1L).containsEntry("e", 2L);
        Row bad = p.nodeGroups().getFirst().parser(CsvFormat.DEFAULT).parse(new CsvSource.Raw(new String[] {"x"}, 0, 2), "n.csv");
        assertThat(bad.rejection().message()).contains("ID 'x' of ID space 'User' is not an integer");
    }

    @Test
    void refusesWhatCannotBeMatchedOnline() {
        List<String> w = new ArrayList<>();
        assertThatThrownBy(() -> plan(List.of(group(EntityKind.NODES, null)), List.of(header(EntityKind.NODES, ":ID,name")), false, w))
                .hasMessageContaining("global ID space have no label");
        assertThatThrownBy(() -> plan(List.of(group(EntityKind.NODES, "A")), List.of(header(EntityKind.NODES, "name")), true, w))
                .hasMessageContaining("--merge needs an :ID column");
        assertThatThrownBy(() -> plan(List.of(group(EntityKind.NODES, "A"), group(EntityKind.NODES, "A")),
                List.of(header(EntityKind.NODES, "a:ID(S)"), header(EntityKind.NODES, "b:ID(S)")), false, w))
                .hasMessageContaining("disagree on the ID property name");
        assertThatThrownBy(() -> plan(List.of(group(EntityKind.NODES, "A"), group(EntityKind.NODES, "A")),
                List.of(header(EntityKind.NODES, "id:ID(S)"), header(EntityKind.NODES, "id:ID(T)")), false, w))
                .hasMessageContaining("both identify nodes by (:A {id})");
        assertThatThrownBy(() -> plan(List.of(group(EntityKind.RELATIONSHIPS, null)),
                List.of(header(EntityKind.RELATIONSHIPS, ":START_ID(A),:END_ID(A)")), false, w))
                .hasMessageContaining("no relationship type");
        assertThatThrownBy(() -> plan(List.of(group(EntityKind.NODES, "A")), List.of(header(EntityKind.NODES, ":ID(A),id")), false, w))
                .hasMessageContaining("name the ID column");
        assertThatThrownBy(() -> GraphPlan.build(List.of(), List.of(), new CsvFormat(',', ';', '"', false, false, false, false,
                CsvFormat.IdType.ACTUAL), false, w::add)).hasMessageContaining("offline import only");
    }
}
