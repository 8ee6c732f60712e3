package io.sluice.importer;

import io.sluice.config.SluiceConfig;
import io.sluice.csv.CsvFormat;
import io.sluice.csv.EntityKind;
import io.sluice.csv.InputGroup;
import io.sluice.csv.Tolerance;
import io.sluice.online.OnlineImport;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Objects;

/**
 * Everything {@code sluice import} was asked to do, validated. The offline and online paths read the parts they
 * need; {@link Offline} and {@link Online} hold what is particular to each.
 *
 * @param groups     the {@code --nodes} and {@code --relationships} groups, in command-line order
 * @param format     how the CSV is read
 * @param tolerance  what happens to bad rows
 * @param reportFile where rejected rows are written ({@code --report-file}, default {@code import.report})
 * @param threads    {@code --threads}: the offline importer's workers; online, concurrent batches (0 = default)
 * @param config     sluice's config: its {@code schema} is created after an offline import and before an online
 *                   one into the embedded database; its {@code neo4j} section sizes that database
 * @param progressInterval how often a progress line is printed when the output is not a terminal
 */
public record ImportOptions(List<InputGroup> groups, CsvFormat format, Tolerance tolerance, Path reportFile,
        int threads, SluiceConfig config, Duration progressInterval) {

    public ImportOptions {
        groups = List.copyOf(groups);
        Objects.requireNonNull(format, "format");
        Objects.requireNonNull(tolerance, "tolerance");
        Objects.requireNonNull(reportFile, "reportFile");
        config = config == null ? SluiceConfig.defaults() : config;
        progressInterval = progressInterval == null ? Duration.ofSeconds(10) : progressInterval;
        if (groups.stream().noneMatch(g -> g.kind() == EntityKind.NODES)
                && groups.stream().noneMatch(g -> g.kind() == EntityKind.RELATIONSHIPS)) {
            throw new IllegalArgumentException("nothing to import: give --nodes and/or --relationships");
        }
        if (threads < 0) {
            throw new IllegalArgumentException("--threads must be >= 0, got " + threads);
        }
    }

    /**
     * A new database, written by Neo4j's own importer.
     *
     * @param into             sluice's data directory ({@code sluice serve --data DIR} serves it)
     * @param overwrite        replace an existing database there ({@code --overwrite-destination})
     * @param multilineFields  fields may contain newlines ({@code --multiline-fields}; slower)
     * @param maxOffHeapMemory the importer's memory bound ({@code --max-off-heap-memory}), or null for its default
     * @param verbose          show the importer's own output
     */
    public record Offline(Path into, boolean overwrite, boolean multilineFields, String maxOffHeapMemory, boolean verbose) {
        public Offline {
            Objects.requireNonNull(into, "into");
        }
    }

    /**
     * Into a live database through sluice's write path.
     *
     * @param target    {@code http(s)://...} (a running sluice), or a directory (embedded Neo4j, as {@code serve --data})
     * @param merge     MERGE nodes on their ID and relationships on their ends, instead of CREATE
     * @param batchRows rows per transaction
     * @param direct    each batch in a transaction of its own, concurrently ({@code mode=direct}); otherwise
     *                  through the group-committing batcher ({@code mode=sync})
     * @param restart   ignore the progress of an earlier interrupted or finished run of the same import
     */
    public record Online(String target, boolean merge, int batchRows, boolean direct, boolean restart) {
        public Online {
            Objects.requireNonNull(target, "target");
            if (batchRows < 1) {
                throw new IllegalArgumentException("--batch-size must be >= 1, got " + batchRows);
            }
        }
    }

    /** What the online engine is given for this import. */
    OnlineImport.Options online(Online online) {
        return new OnlineImport.Options(groups, format, tolerance, reportFile, threads, config, online.target(),
                online.merge(), online.batchRows(), online.direct(), online.restart());
    }
}
