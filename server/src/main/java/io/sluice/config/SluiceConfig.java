package io.sluice.config;

import static java.util.Objects.requireNonNullElse;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonProperty;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * Everything sluice reads from its YAML config file: the templates, the schema, and one record per section.
 * Every section is optional; absent values take the defaults documented in README.md. Values are validated where
 * they are made, with messages that name the bad value and its key.
 *
 * <p>Why this shape. Each section is a record of its own ({@link Batch}, {@link Admission}, ...): its compact
 * constructor validates it, with messages that name the YAML key, and its components are primitives or non-null
 * values; the few that may be null mean "not set" where no default exists (e.g. {@code tls.https}), and say so.
 * "Absent from the file" is dealt with once, while the file is read: each section's {@code DEFAULT} holds its
 * defaults, and its package-private {@code @JsonCreator} factory {@code fromYaml} fills each key the file lacks
 * from {@code DEFAULT} (Jackson's null-skipping setters would need mutable fields, and a builder per section would
 * list every key once more). Enumerated values ({@link Mode}, {@link Access}, {@link Tls.Bolt}) are parsed there,
 * once. Code changes a setting by deriving, without listing the others: a section's wither
 * ({@code c.batch().withMaxRows(5000)}, what JEP 468's {@code with} expressions will one day write), then
 * {@link #with(Section)}, the one way to replace a section. The sections are top-level classes of this package, a
 * file each: together they are too long for one file. {@link Section} is sealed, so {@link #with}'s switch does not
 * compile until a new section is in it; it is a file of its own, not nested here, so that a section implementing
 * it does not need this record (nor this record each section, but for its own fields).
 */
public record SluiceConfig(
        Map<String, TemplateConfig> templates,
        List<String> schema,
        Batch batch,
        Admission admission,
        Neo4j neo4j,
        Retry retry,
        Journal journal,
        Apply apply,
        Security security,
        Tls tls,
        Modes modes,
        Transactions transactions,
        Warmup warmup,
        Http http,
        Bolt bolt,
        Sources sources) {

    private static final SluiceConfig DEFAULT = new SluiceConfig(Map.of(), List.of(), Batch.DEFAULT,
            Admission.DEFAULT, Neo4j.DEFAULT, Retry.DEFAULT, Journal.DEFAULT, Apply.DEFAULT, Security.DEFAULT,
            Tls.DEFAULT, Modes.DEFAULT, Transactions.DEFAULT, Warmup.DEFAULT, Http.DEFAULT, Bolt.DEFAULT, Sources.DEFAULT);

    public SluiceConfig {
        templates = Collections.unmodifiableMap(new LinkedHashMap<>(templates)); // the file's order
        schema = List.copyOf(schema);
        // List.of throws NullPointerException for a missing section
        List.of(batch, admission, neo4j, retry, journal, apply, security, tls, modes, transactions, warmup, http, bolt, sources);
        for (String name : templates.keySet()) {
            if (!name.matches("[A-Za-z0-9_.-]+")) {
                throw new IllegalArgumentException("template name '" + name + "' must match [A-Za-z0-9_.-]+");
            }
        }
    }

    /** An empty file's config: no templates, no schema, every section at its defaults. */
    public static SluiceConfig defaults() {
        return DEFAULT;
    }

    /** The config of a file: each section or list it lacks (or leaves empty) at its defaults. */
    @JsonCreator
    static SluiceConfig fromYaml(@JsonProperty("templates") Map<String, TemplateConfig> templates,
            @JsonProperty("schema") List<String> schema, @JsonProperty("batch") Batch batch,
            @JsonProperty("admission") Admission admission, @JsonProperty("neo4j") Neo4j neo4j,
            @JsonProperty("retry") Retry retry, @JsonProperty("journal") Journal journal,
            @JsonProperty("apply") Apply apply, @JsonProperty("security") Security security,
            @JsonProperty("tls") Tls tls, @JsonProperty("modes") Modes modes,
            @JsonProperty("transactions") Transactions transactions, @JsonProperty("warmup") Warmup warmup,
            @JsonProperty("http") Http http, @JsonProperty("bolt") Bolt bolt,
            @JsonProperty("sources") Sources sources,
            @JsonProperty("config_version") Integer configVersion) { // checked by ConfigLoader, before
        return new SluiceConfig(
                requireNonNullElse(templates, Map.of()),
                requireNonNullElse(schema, List.of()),
                requireNonNullElse(batch, Batch.DEFAULT),
                requireNonNullElse(admission, Admission.DEFAULT),
                requireNonNullElse(neo4j, Neo4j.DEFAULT),
                requireNonNullElse(retry, Retry.DEFAULT),
                requireNonNullElse(journal, Journal.DEFAULT),
                requireNonNullElse(apply, Apply.DEFAULT),
                requireNonNullElse(security, Security.DEFAULT),
                requireNonNullElse(tls, Tls.DEFAULT),
                requireNonNullElse(modes, Modes.DEFAULT),
                requireNonNullElse(transactions, Transactions.DEFAULT),
                requireNonNullElse(warmup, Warmup.DEFAULT),
                requireNonNullElse(http, Http.DEFAULT),
                requireNonNullElse(bolt, Bolt.DEFAULT),
                requireNonNullElse(sources, Sources.DEFAULT));
    }

    /** This config with {@code section} in place of its own of that kind; everything else as it is. */
    public SluiceConfig with(Section section) {
        Batch batch = this.batch;
        Admission admission = this.admission;
        Neo4j neo4j = this.neo4j;
        Retry retry = this.retry;
        Journal journal = this.journal;
        Apply apply = this.apply;
        Security security = this.security;
        Tls tls = this.tls;
        Modes modes = this.modes;
        Transactions transactions = this.transactions;
        Warmup warmup = this.warmup;
        Http http = this.http;
        Bolt bolt = this.bolt;
        Sources sources = this.sources;
        switch (Objects.requireNonNull(section, "section")) { // exhaustive: a new Section must be added here
            case Batch s -> batch = s;
            case Admission s -> admission = s;
            case Neo4j s -> neo4j = s;
            case Retry s -> retry = s;
            case Journal s -> journal = s;
            case Apply s -> apply = s;
            case Security s -> security = s;
            case Tls s -> tls = s;
            case Modes s -> modes = s;
            case Transactions s -> transactions = s;
            case Warmup s -> warmup = s;
            case Http s -> http = s;
            case Bolt s -> bolt = s;
            case Sources s -> sources = s;
        }
        return new SluiceConfig(templates, schema, batch, admission, neo4j, retry, journal, apply, security, tls,
                modes, transactions, warmup, http, bolt, sources);
    }

    /** This config with other templates and schema; the sections as they are. */
    public SluiceConfig withTemplates(Map<String, TemplateConfig> templates, List<String> schema) {
        return new SluiceConfig(templates, schema, batch, admission, neo4j, retry, journal, apply, security, tls,
                modes, transactions, warmup, http, bolt, sources);
    }
}
