package io.sluice.support;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** What {@link Layering#loops} counts as a loop among a package's files, and what it does not. */
class LayeringLoopsTest {
    @TempDir
    Path main;

    @Test
    void twoFilesThatNameEachOtherAreALoop() throws IOException {
        write("a", "A", "class A { B b; }");
        write("a", "B", "class B { static A make() { return null; } }");
        assertThat(loops()).containsOnlyKeys("a");
        assertThat(loops().get("a")).singleElement().satisfies(l -> {
            assertThat(l.files()).containsExactly("A", "B");
            assertThat(l.edges()).containsExactly("A -> B", "B -> A");
        });
    }

    @Test
    void aLoopThroughOtherFilesIsOneLoop() throws IOException {
        write("a", "P", "class P { Q q; }");
        write("a", "Q", "class Q { R r; }");
        write("a", "R", "class R { P p; }");
        write("a", "S", "class S { P p; }"); // uses the loop, not in it
        assertThat(loops().get("a")).singleElement().satisfies(l -> assertThat(l.files()).containsExactly("P", "Q", "R"));
    }

    @Test
    void aNestedTypesUseOfItsOuterClassIsNoLoop() throws IOException {
        write("a", "Outer", "class Outer { Helper h; static final class Inner { Outer o; } }");
        write("a", "Helper", "final class Helper { }");
        assertThat(loops()).isEmpty();
    }

    @Test
    void commentsAndStringsAreNoReferences() throws IOException {
        write("a", "C", "/** Unlike {@link D}. */ class C { // D\n String s = \"D\"; char q = '\"'; String t = \"\"\"\n D\n \"\"\"; }");
        write("a", "D", "class D { C c; }");
        assertThat(loops()).isEmpty();
    }

    @Test
    void aSealedTypesPermitsListIsNoReference() throws IOException {
        write("a", "Shape", "sealed interface Shape permits Circle, Square {}");
        write("a", "Circle", "record Circle() implements Shape {}");
        write("a", "Square", "record Square() implements Shape {}");
        assertThat(loops()).isEmpty();
    }

    @Test
    void anImportedTypeOfTheSameNameShadowsTheSamePackagesOne() throws IOException {
        write("a", "E", "import org.other.F;\nclass E { F f; }");
        write("a", "F", "class F { E e; }");
        assertThat(loops()).isEmpty();
    }

    @Test
    void anInterfacesFactoryNamingItsImplementationIsALoop() throws IOException {
        write("a", "Face", "public interface Face { static Face open() { return new Impl(); } }");
        write("a", "Impl", "final class Impl implements Face {}");
        assertThat(loops()).containsOnlyKeys("a");
    }

    private void write(String pkg, String type, String body) throws IOException {
        Path dir = Files.createDirectories(main.resolve(pkg));
        Files.writeString(dir.resolve(type + ".java"), "package io.sluice." + pkg + ";\n\n" + body + "\n");
    }

    private Map<String, List<Layering.Loop>> loops() throws IOException {
        return Layering.loops(main);
    }
}
