package io.sluice.config;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Everything sluice reads from its YAML config file. Every section is optional; absent values take the defaults
 * documented in README.md. Values are validated here, with messages that name the bad value.
 */
public record SluiceConfig(
        Map<String, TemplateConfig> templates,
        List<String> schema,
        Batch batch,
        Admission admission,
        Neo4j neo4j,
        Retry retry,
        Journal journal,
        Apply apply) {

    public SluiceConfig {
        templates = templates == null ? Map.of() : java.util.Collections.unmodifiableMap(new LinkedHashMap<>(templates));
        schema = schema == null ? List.of() : List.copyOf(schema);
        batch = batch == null ? Batch.DEFAULT : batch;
        admission = admission == null ? Admission.DEFAULT : admission;
        neo4j = neo4j == null ? Neo4j.DEFAULT : neo4j;
        retry = retry == null ? Retry.DEFAULT : retry;
        journal = journal == null ? Journal.DEFAULT : journal;
        apply = apply == null ? Apply.DEFAULT : apply;
        for (String name : templates.keySet()) {
            if (!name.matches("[A-Za-z0-9_.-]+")) {
                throw new IllegalArgumentException("template name '" + name + "' must match [A-Za-z0-9_.-]+");
            }
        }
    }

    public static SluiceConfig defaults() {
        return new SluiceConfig(null, null, null, null, null, null, null, null);
    }

    public SluiceConfig withTemplates(Map<String, TemplateConfig> t, List<String> s) {
        return new SluiceConfig(t, s, batch, admission, neo4j, retry, journal, apply);
    }

    public SluiceConfig withBatch(Batch b) {
        return new SluiceConfig(templates, schema, b, admission, neo4j, retry, journal, apply);
    }

    public SluiceConfig withApply(Apply a) {
        return new SluiceConfig(templates, schema, batch, admission, neo4j, retry, journal, a);
    }

    public SluiceConfig withAdmission(Admission a) {
        return new SluiceConfig(templates, schema, batch, a, neo4j, retry, journal, apply);
    }

    public SluiceConfig withNeo4j(Neo4j n) {
        return new SluiceConfig(templates, schema, batch, admission, n, retry, journal, apply);
    }

    /**
     * When a batch closes: at the row limit, or when its oldest write has waited {@code maxWait} (the linger that
     * lets a batch fill while the applier is free), whichever comes first. With {@code adaptive}, the row limit
     * moves between {@code minRows} and {@code maxRows}, growing while throughput rises and commits stay under
     * {@code targetCommit}, shrinking on slow commits and errors; without it, it is {@code maxRows}.
     */
    public record Batch(Integer maxRows, Duration maxWait, Integer minRows, Boolean adaptive, Duration targetCommit) {
        public static final Batch DEFAULT = new Batch(null, null, null, null, null);

        public Batch(Integer maxRows, Duration maxWait) {
            this(maxRows, maxWait, null, null, null);
        }

        public Batch {
            maxRows = maxRows == null ? 2000 : maxRows;
            maxWait = maxWait == null ? Duration.ofNanos(200_000) : maxWait;
            minRows = minRows == null ? Math.min(50, maxRows) : minRows;
            adaptive = adaptive == null || adaptive;
            targetCommit = targetCommit == null ? Duration.ofMillis(100) : targetCommit;
            if (maxRows < 1) {
                throw new IllegalArgumentException("batch.max_rows must be >= 1, got " + maxRows);
            }
            if (minRows < 1 || minRows > maxRows) {
                throw new IllegalArgumentException("batch.min_rows must be in [1, max_rows], got " + minRows);
            }
            if (maxWait.isNegative()) {
                throw new IllegalArgumentException("batch.max_wait must be >= 0, got " + maxWait);
            }
        }
    }

    /**
     * Bounds on pending (admitted, not yet committed) work. At a bound a new write waits up to {@code timeout},
     * then is refused with 503 and Retry-After. Bodies above {@code maxBodyBytes} get 413.
     */
    public record Admission(Long maxPendingRows, ByteSize maxPendingBytes, Duration timeout, ByteSize maxBodyBytes) {
        public static final Admission DEFAULT = new Admission(null, null, null, null);

        public Admission {
            maxPendingRows = maxPendingRows == null ? 100_000L : maxPendingRows;
            maxPendingBytes = maxPendingBytes == null ? new ByteSize(256L << 20) : maxPendingBytes;
            timeout = timeout == null ? Duration.ofSeconds(2) : timeout;
            maxBodyBytes = maxBodyBytes == null ? new ByteSize(16L << 20) : maxBodyBytes;
            if (maxPendingRows < 1) {
                throw new IllegalArgumentException("admission.max_pending_rows must be >= 1, got " + maxPendingRows);
            }
            if (maxBodyBytes.bytes() > maxPendingBytes.bytes()) {
                throw new IllegalArgumentException("admission.max_body_bytes (" + maxBodyBytes
                        + ") must not exceed admission.max_pending_bytes (" + maxPendingBytes + ")");
            }
        }
    }

    /**
     * Embedded Neo4j settings. The JVM heap is set by the launcher (SLUICE_HEAP), the page cache here.
     * {@code importDir}: the only folder {@code LOAD CSV FROM 'file:///...'} may read
     * (file URLs are relative to it); null means {@code DATA/import}.
     */
    public record Neo4j(ByteSize pagecache, ByteSize txMemoryMax, String database, String importDir) {
        public static final Neo4j DEFAULT = new Neo4j(null, null, null, null);

        public Neo4j {
            pagecache = pagecache == null ? new ByteSize(512L << 20) : pagecache;
            txMemoryMax = txMemoryMax == null ? new ByteSize(0) : txMemoryMax;
            database = database == null ? "neo4j" : database;
        }
    }

    /** Retry of transient errors (deadlocks, lock timeouts, database unavailable): exponential backoff. */
    public record Retry(Integer maxAttempts, Duration initialBackoff, Duration maxBackoff) {
        public static final Retry DEFAULT = new Retry(null, null, null);

        public Retry {
            maxAttempts = maxAttempts == null ? 10 : maxAttempts;
            initialBackoff = initialBackoff == null ? Duration.ofMillis(5) : initialBackoff;
            maxBackoff = maxBackoff == null ? Duration.ofSeconds(1) : maxBackoff;
            if (maxAttempts < 1) {
                throw new IllegalArgumentException("retry.max_attempts must be >= 1, got " + maxAttempts);
            }
        }
    }

    /**
     * The async journal (in {@code DATA/journal}, dead letters in {@code DATA/dead-letters}): bounds on the
     * unapplied backlog (at a bound, async writes wait the admission timeout, then get 503), segment size.
     */
    public record Journal(Long maxLagRows, ByteSize maxLagBytes, ByteSize segmentBytes) {
        public static final Journal DEFAULT = new Journal(null, null, null);

        public Journal {
            maxLagRows = maxLagRows == null ? 1_000_000L : maxLagRows;
            maxLagBytes = maxLagBytes == null ? new ByteSize(1L << 30) : maxLagBytes;
            segmentBytes = segmentBytes == null ? new ByteSize(64L << 20) : segmentBytes;
            if (maxLagRows < 1 || maxLagBytes.bytes() < 1) {
                throw new IllegalArgumentException("journal.max_lag_rows and max_lag_bytes must be >= 1");
            }
            if (segmentBytes.bytes() < 4096) {
                throw new IllegalArgumentException("journal.segment_bytes must be >= 4096, got " + segmentBytes);
            }
        }
    }

    /**
     * The appliers: how many transactions run at once (each owns a partition of the keys), and whether a batch's
     * rows are sorted into one global lock order (see Template.lockOrder).
     */
    public record Apply(Integer appliers, Boolean lockOrder) {
        public static final Apply DEFAULT = new Apply(null, null);

        public Apply {
            appliers = appliers == null ? 2 : appliers;
            lockOrder = lockOrder == null || lockOrder;
            if (appliers < 1 || appliers > 256) {
                throw new IllegalArgumentException("apply.appliers must be in [1, 256], got " + appliers);
            }
        }
    }
}
