package io.sluice.vocab;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.neo4j.kernel.api.exceptions.Status;

/** {@link Neo4jStatus} is the one place sluice's main code spells out a Neo4j status code, and spells them right. */
class StatusCodesTest {
    static final Path MAIN = Path.of("src/main/java");
    static final Path VOCABULARY = MAIN.resolve("io/sluice/vocab/Neo4jStatus.java");
    /** A string literal that begins like a status code (or a prefix of one). */
    static final Pattern LITERAL = Pattern.compile("\"Neo\\.[^\"]*\"");
    static final Pattern CODE = Pattern.compile(
            "Neo\\.(ClientError|TransientError|DatabaseError|ClientNotification)\\.([A-Za-z]+)\\.([A-Za-z]+)");

    record Constant(String group, String name, String value) {
        @Override
        public String toString() {
            return (group.isEmpty() ? "" : group + ".") + name + " = " + value;
        }
    }

    static List<Constant> constants() throws IllegalAccessException {
        List<Constant> all = new ArrayList<>();
        add(Neo4jStatus.class, "", all);
        for (Class<?> group : Neo4jStatus.class.getDeclaredClasses()) {
            add(group, group.getSimpleName(), all);
        }
        return all;
    }

    static void add(Class<?> c, String group, List<Constant> all) throws IllegalAccessException {
        for (Field f : c.getDeclaredFields()) {
            int m = f.getModifiers();
            if (Modifier.isStatic(m) && f.getType() == String.class) {
                assertThat(Modifier.isPublic(m) && Modifier.isFinal(m)).as(f.toString()).isTrue();
                all.add(new Constant(group, f.getName(), (String) f.get(null)));
            }
        }
    }

    /** Neo4j's own codes, from the Neo4j this build embeds. */
    static Set<String> neo4jCodes() {
        Set<String> codes = new TreeSet<>();
        for (Class<?> c : Status.class.getDeclaredClasses()) {
            if (c.isEnum() && Status.class.isAssignableFrom(c)) {
                for (Object s : c.getEnumConstants()) {
                    codes.add(((Status) s).code().serialize());
                }
            }
        }
        return codes;
    }

    /** {@code TransactionNotFound} as {@code TRANSACTION_NOT_FOUND}. */
    static String constantName(String title) {
        return title.replaceAll("([a-z])([A-Z])", "$1_$2").toUpperCase(Locale.ROOT);
    }

    @Test
    void noStatusCodeLiteralOutsideTheVocabulary() throws IOException {
        Map<String, List<String>> found = new TreeMap<>();
        try (Stream<Path> files = Files.walk(MAIN)) {
            for (Path f : files.filter(p -> p.toString().endsWith(".java")).toList()) {
                if (f.equals(VOCABULARY)) {
                    continue;
                }
                Matcher m = LITERAL.matcher(Files.readString(f));
                while (m.find()) {
                    found.computeIfAbsent(MAIN.relativize(f).toString(), k -> new ArrayList<>()).add(m.group());
                }
            }
        }
        assertThat(Files.exists(VOCABULARY)).as(VOCABULARY + " (the tests run in the project's directory)").isTrue();
        assertThat(found).as("Neo4j status codes spelt out in src/main/java: name them in Neo4jStatus").isEmpty();
    }

    @Test
    void everyCodeHasNeo4jsShapeAndIsNamedOnce() throws IllegalAccessException {
        List<Constant> constants = constants();
        assertThat(constants).hasSizeGreaterThan(20);
        Map<String, List<Constant>> byValue = new HashMap<>();
        for (Constant c : constants) {
            byValue.computeIfAbsent(c.value(), k -> new ArrayList<>()).add(c);
            if (c.name().equals("PREFIX") || c.group().equals("Classification")) {
                assertThat(c.value()).as(c.toString()).matches("Neo\\.([A-Za-z]+\\.){0,2}");
            } else {
                assertThat(c.value()).as(c.toString()).matches(CODE);
            }
        }
        assertThat(byValue.values().stream().filter(l -> l.size() > 1).toList()).as("codes named twice").isEmpty();
    }

    @Test
    void neo4jsCodesAreNeo4jsAndNamedAfterThem() throws IllegalAccessException {
        Set<String> neo4j = neo4jCodes();
        assertThat(neo4j).contains("Neo.ClientError.Statement.SyntaxError"); // Neo4j's Status was read
        for (Constant c : constants()) {
            Matcher m = CODE.matcher(c.value());
            if (!m.matches()) {
                continue; // a prefix
            }
            assertThat(c.name()).as(c.toString()).isEqualTo(constantName(m.group(3)));
            if (c.group().equals("Sluice")) {
                assertThat(neo4j).as("sluice's own code %s: Neo4j has it, so name it in its group", c).doesNotContain(c.value());
            } else {
                assertThat(neo4j).as("%s: Neo4j 2026.08's codes", c).contains(c.value());
                assertThat(m.group(2)).as("%s: in the group of its category", c).isEqualTo(c.group());
            }
        }
    }

    @Test
    void prefixesBeginWhatTheyClassify() throws IllegalAccessException {
        List<Constant> constants = constants();
        Set<String> classifications = Stream.of(Status.Classification.values())
                .map(k -> "Neo." + k + ".").collect(Collectors.toSet());
        for (Constant c : constants) {
            if (c.group().equals("Classification")) {
                assertThat(classifications).as(c.toString()).contains(c.value());
                assertThat(c.name()).isEqualTo(constantName(c.value().split("\\.")[1]));
            } else if (c.name().equals("PREFIX")) {
                for (Constant other : constants) {
                    // a prefix classifies errors; a notification (ClientNotification) in its group is none
                    if ((other.group().equals(c.group()) || c.group().isEmpty())
                            && !other.value().startsWith("Neo.ClientNotification.")) {
                        assertThat(other.value()).as("%s begins with %s", other, c).startsWith(c.value());
                    }
                }
            }
        }
    }
}
