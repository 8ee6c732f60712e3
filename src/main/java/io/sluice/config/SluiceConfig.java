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
        Apply apply,
        Security security,
        Tls tls,
        Modes modes,
        Transactions transactions,
        Warmup warmup,
        Http http) {

    public SluiceConfig {
        templates = templates == null ? Map.of() : java.util.Collections.unmodifiableMap(new LinkedHashMap<>(templates));
        schema = schema == null ? List.of() : List.copyOf(schema);
        batch = batch == null ? Batch.DEFAULT : batch;
        admission = admission == null ? Admission.DEFAULT : admission;
        neo4j = neo4j == null ? Neo4j.DEFAULT : neo4j;
        retry = retry == null ? Retry.DEFAULT : retry;
        journal = journal == null ? Journal.DEFAULT : journal;
        apply = apply == null ? Apply.DEFAULT : apply;
        security = security == null ? Security.DEFAULT : security;
        tls = tls == null ? Tls.DEFAULT : tls;
        modes = modes == null ? Modes.DEFAULT : modes;
        transactions = transactions == null ? Transactions.DEFAULT : transactions;
        warmup = warmup == null ? Warmup.DEFAULT : warmup;
        http = http == null ? Http.DEFAULT : http;
        for (String name : templates.keySet()) {
            if (!name.matches("[A-Za-z0-9_.-]+")) {
                throw new IllegalArgumentException("template name '" + name + "' must match [A-Za-z0-9_.-]+");
            }
        }
    }

    public static SluiceConfig defaults() {
        return new SluiceConfig(null, null, null, null, null, null, null, null, null, null, null, null, null, null);
    }

    public SluiceConfig withTemplates(Map<String, TemplateConfig> t, List<String> s) {
        return new SluiceConfig(t, s, batch, admission, neo4j, retry, journal, apply, security, tls, modes, transactions, warmup, http);
    }

    public SluiceConfig withBatch(Batch b) {
        return new SluiceConfig(templates, schema, b, admission, neo4j, retry, journal, apply, security, tls, modes, transactions, warmup, http);
    }

    public SluiceConfig withApply(Apply a) {
        return new SluiceConfig(templates, schema, batch, admission, neo4j, retry, journal, a, security, tls, modes, transactions, warmup, http);
    }

    public SluiceConfig withAdmission(Admission a) {
        return new SluiceConfig(templates, schema, batch, a, neo4j, retry, journal, apply, security, tls, modes, transactions, warmup, http);
    }

    public SluiceConfig withNeo4j(Neo4j n) {
        return new SluiceConfig(templates, schema, batch, admission, n, retry, journal, apply, security, tls, modes, transactions, warmup, http);
    }

    public SluiceConfig withSecurity(Security s) {
        return new SluiceConfig(templates, schema, batch, admission, neo4j, retry, journal, apply, s, tls, modes, transactions, warmup, http);
    }

    public SluiceConfig withJournal(Journal j) {
        return new SluiceConfig(templates, schema, batch, admission, neo4j, retry, j, apply, security, tls, modes, transactions, warmup, http);
    }

    public SluiceConfig withWarmup(Warmup w) {
        return new SluiceConfig(templates, schema, batch, admission, neo4j, retry, journal, apply, security, tls, modes,
                transactions, w, http);
    }

    /**
     * What runs before {@code /health} says UP (it answers WARMING, 503, meanwhile, so a load balancer waits;
     * writes that come anyway are taken as usual, only slower).
     *
     * @param onStart   read the database into Neo4j's page cache at every start ({@code POST /db/{db}/warmup} does
     *                  it on demand). Off by default: a new or small store has nothing to warm.
     * @param writePath rehearse the templates' sync write path for at most this long at start, ending sooner once
     *                  the JIT has compiled it (the server package's {@code Rehearsal}: synthetic rows through a private
     *                  HTTP listener, batcher and appliers, into a scratch database). {@code 60s} by default;
     *                  {@code 0s} turns it off. Only a server with templates, an HTTP listener and the embedded Neo4j
     *                  rehearses (over {@code --neo4j} the only database at hand would be the user's own).
     */
    public record Warmup(Boolean onStart, Duration writePath) {
        public static final Duration WRITE_PATH_DEFAULT = Duration.ofSeconds(60); // before DEFAULT, which reads it
        public static final Warmup DEFAULT = new Warmup(null, null);

        public Warmup {
            onStart = onStart != null && onStart;
            writePath = writePath == null ? WRITE_PATH_DEFAULT : writePath;
            if (writePath.isNegative() || writePath.compareTo(Duration.ofMinutes(10)) > 0) {
                throw new IllegalArgumentException("warmup.write_path must be in [0s, 10m], got " + writePath);
            }
        }

        /** This warm-up without the write-path rehearsal (what benchmarks and tests start with). */
        public Warmup withoutRehearsal() {
            return new Warmup(onStart, Duration.ZERO);
        }
    }

    public SluiceConfig withTls(Tls t) {
        return new SluiceConfig(templates, schema, batch, admission, neo4j, retry, journal, apply, security, t, modes, transactions, warmup, http);
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
     * (file URLs are relative to it); null means {@code DATA/import}. {@code settings}: more of Neo4j's own
     * settings ({@code neo4j.conf} names and values, e.g. {@code dbms.memory.tracking.enable: false}), checked
     * by Neo4j at start (an unknown name or bad value stops it with Neo4j's message); not those in {@link #OWNED}.
     */
    public record Neo4j(ByteSize pagecache, ByteSize txMemoryMax, String database, String importDir,
            Map<String, String> settings) {
        public static final Neo4j DEFAULT = new Neo4j(null, null, null, null, null);

        /**
         * Settings sluice sets itself from its own config, flags and security: a {@code settings} entry may not
         * name them (the page cache is {@code neo4j.pagecache}, users and Bolt TLS are {@code security} and
         * {@code tls}, {@code --bolt} is the listener).
         */
        public static final List<String> OWNED = List.of("server.memory.pagecache.size",
                "db.memory.transaction.max", "initial.dbms.default_database", "server.directories.",
                "dbms.security.auth_enabled", "server.bolt.", "dbms.ssl.policy.", "server.http.", "server.https.",
                "server.default_listen_address", "server.default_advertised_address", "server.config.strict_validation");

        public Neo4j {
            pagecache = pagecache == null ? new ByteSize(512L << 20) : pagecache;
            txMemoryMax = txMemoryMax == null ? new ByteSize(0) : txMemoryMax;
            database = database == null ? "neo4j" : database;
            settings = settings == null ? Map.of() : java.util.Collections.unmodifiableMap(
                    new java.util.TreeMap<>(settings));
            for (Map.Entry<String, String> e : settings.entrySet()) {
                String key = e.getKey();
                if (key == null || !key.matches("[a-z][a-z0-9_.]*")) {
                    throw new IllegalArgumentException("neo4j.settings: '" + key + "' is not a Neo4j setting name");
                }
                if (e.getValue() == null || e.getValue().indexOf('\n') >= 0 || e.getValue().indexOf('\r') >= 0) {
                    throw new IllegalArgumentException("neo4j.settings." + key + ": a value on one line is needed");
                }
                for (String owned : OWNED) {
                    if (owned.endsWith(".") ? key.startsWith(owned) : key.equals(owned) || key.startsWith(owned + ".")) {
                        throw new IllegalArgumentException("neo4j.settings." + key + ": sluice sets this one itself"
                                + " (neo4j.pagecache, neo4j.tx_memory_max, neo4j.database, neo4j.import_dir,"
                                + " security, tls and --bolt say what it is)");
                    }
                }
            }
        }

        public Neo4j(ByteSize pagecache, ByteSize txMemoryMax, String database, String importDir) {
            this(pagecache, txMemoryMax, database, importDir, null);
        }

        /** The same with {@code more} settings on top of these (a key in both: {@code more}'s value). */
        public Neo4j withSettings(Map<String, String> more) {
            Map<String, String> all = new java.util.TreeMap<>(settings);
            all.putAll(more);
            return new Neo4j(pagecache, txMemoryMax, database, importDir, all);
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
    public record Journal(Long maxLagRows, ByteSize maxLagBytes, ByteSize segmentBytes, Kafka kafka) {
        public static final Journal DEFAULT = new Journal(null, null, null, null);

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

        /** The same, its async journal on Kafka at {@code bootstrap} (the config's other Kafka settings kept). */
        public Journal withKafka(String bootstrap) {
            Kafka k = kafka == null ? new Kafka(bootstrap, null, null, null, null, null, null, null, null, null)
                    : new Kafka(bootstrap, kafka.topic(), kafka.partitions(), kafka.group(), kafka.maxLagRecords(),
                            kafka.sendTimeout(), kafka.deadLetterTopic(), kafka.properties(), kafka.producer(),
                            kafka.consumer());
            return new Journal(maxLagRows, maxLagBytes, segmentBytes, k);
        }
    }

    /**
     * The async journal on Kafka (docs/SCALING.md): {@code bootstrap} servers; the {@code topic} (created with
     * {@code partitions} when missing; the number is fixed: adding partitions would move keys and break their
     * order), the consumer {@code group} all instances share, at most {@code maxLagRecords} records produced and
     * not yet applied over the whole topic (at the bound async writes wait, then 503), {@code sendTimeout} for
     * Kafka's acknowledgement (then 503), the {@code deadLetterTopic}; {@code properties} go to every Kafka client
     * (security settings: {@code security.protocol}, {@code sasl.*}, {@code ssl.*}), {@code producer} and
     * {@code consumer} to one kind only, after sluice's own settings.
     */
    public record Kafka(String bootstrap, String topic, Integer partitions, String group, Long maxLagRecords,
            Duration sendTimeout, String deadLetterTopic, Map<String, String> properties, Map<String, String> producer,
            Map<String, String> consumer) {
        public Kafka {
            bootstrap = bootstrap == null || bootstrap.isBlank() ? null : bootstrap; // checked at start: --kafka may give it
            topic = topic == null ? "sluice-writes" : topic;
            partitions = partitions == null ? 8 : partitions;
            group = group == null ? "sluice" : group;
            maxLagRecords = maxLagRecords == null ? 1_000_000L : maxLagRecords;
            sendTimeout = sendTimeout == null ? Duration.ofSeconds(10) : sendTimeout;
            deadLetterTopic = deadLetterTopic == null ? topic + "-dead-letters" : deadLetterTopic;
            properties = properties == null ? Map.of() : Map.copyOf(properties);
            producer = producer == null ? Map.of() : Map.copyOf(producer);
            consumer = consumer == null ? Map.of() : Map.copyOf(consumer);
            if (partitions < 1 || maxLagRecords < 1 || !sendTimeout.isPositive()) {
                throw new IllegalArgumentException("journal.kafka: partitions and max_lag_records must be >= 1 and"
                        + " send_timeout positive");
            }
        }
    }


    /**
     * The appliers: how many transactions run at once (each owns a partition of the keys), whether a batch's
     * rows are sorted into one global lock order (see Template.lockOrder), and whether raw requests of one
     * statement are coalesced into its UNWIND form where that is the same (see cypher.Coalescing; default on; off
     * runs every raw statement as sent).
     */
    public record Apply(Integer appliers, Boolean lockOrder, Boolean coalesceCypher) {
        public static final Apply DEFAULT = new Apply(null, null, null);

        public Apply(Integer appliers, Boolean lockOrder) {
            this(appliers, lockOrder, null);
        }

        public Apply {
            appliers = appliers == null ? 2 : appliers;
            lockOrder = lockOrder == null || lockOrder;
            coalesceCypher = coalesceCypher == null || coalesceCypher;
            if (appliers < 1 || appliers > 256) {
                throw new IllegalArgumentException("apply.appliers must be in [1, 256], got " + appliers);
            }
        }
    }

    /**
     * Who may come in. {@code auth}: Neo4j's users and passwords on HTTP and Bolt (off also with
     * {@code NEO4J_AUTH=none}). {@code metricsOpen}: {@code /metrics} without credentials. A client address with
     * {@code maxFailedAttempts} failed logins is refused (429) for {@code lockTime} after its last one.
     * Verified credentials are cached ({@code credentialCacheSize} entries, {@code credentialCacheTtl} each).
     * {@code protectedMode}: with auth off, refuse to listen anywhere but loopback. {@code access}: what each
     * user may send ({@code cypher}, {@code templates} or {@code read}; {@code default} for everyone else).
     */
    public record Security(Boolean auth, Boolean metricsOpen, Integer maxFailedAttempts, Duration lockTime,
            Integer credentialCacheSize, Duration credentialCacheTtl, Boolean protectedMode, Access access) {
        public static final Security DEFAULT = new Security(null, null, null, null, null, null, null, null);

        public Security {
            auth = auth == null || auth;
            metricsOpen = metricsOpen != null && metricsOpen;
            maxFailedAttempts = maxFailedAttempts == null ? 5 : maxFailedAttempts;
            lockTime = lockTime == null ? Duration.ofSeconds(5) : lockTime;
            credentialCacheSize = credentialCacheSize == null ? 10_000 : credentialCacheSize;
            credentialCacheTtl = credentialCacheTtl == null ? Duration.ofSeconds(60) : credentialCacheTtl;
            protectedMode = protectedMode == null || protectedMode;
            access = access == null ? Access.DEFAULT : access;
            if (maxFailedAttempts < 0) {
                throw new IllegalArgumentException("security.max_failed_attempts must be >= 0 (0: no limit), got "
                        + maxFailedAttempts);
            }
            if (credentialCacheSize < 0) {
                throw new IllegalArgumentException("security.credential_cache_size must be >= 0, got " + credentialCacheSize);
            }
        }

        public Security withAuth(boolean on) {
            return new Security(on, metricsOpen, maxFailedAttempts, lockTime, credentialCacheSize,
                    credentialCacheTtl, protectedMode, access);
        }
    }

    /** Per user: {@code cypher} (everything), {@code templates} (only the named templates), {@code read}. */
    public record Access(String defaultAccess, Map<String, String> users) {
        public static final Access DEFAULT = new Access(null, null);

        @com.fasterxml.jackson.annotation.JsonCreator
        public Access(@com.fasterxml.jackson.annotation.JsonProperty("default") String defaultAccess,
                @com.fasterxml.jackson.annotation.JsonProperty("users") Map<String, String> users) {
            this.defaultAccess = defaultAccess == null ? "cypher" : defaultAccess;
            this.users = users == null ? Map.of() : Map.copyOf(users);
            for (String level : this.users.values()) {
                checkLevel(level);
            }
            checkLevel(this.defaultAccess);
        }

        private static void checkLevel(String level) {
            if (!java.util.Set.of("cypher", "templates", "read").contains(level)) {
                throw new IllegalArgumentException("security.access levels are cypher, templates or read, got '"
                        + level + "'");
            }
        }

        /** The level of {@code user} (null: anonymous, when auth is off). */
        public String of(String user) {
            return user == null ? defaultAccess : users.getOrDefault(user, defaultAccess);
        }
    }

    /**
     * TLS from one PEM certificate chain and PKCS#8 key (the shape of Neo4j's SSL policies). {@code https}:
     * an HTTPS listener ({@code HOST:PORT}); {@code http}: keep the plain HTTP listener (false: HTTPS only);
     * {@code bolt}: TLS on the embedded Bolt connector, {@code off}, {@code optional} or {@code required}.
     */
    public record Tls(String certificate, String privateKey, String https, Boolean http, String bolt) {
        public static final Tls DEFAULT = new Tls(null, null, null, null, null);

        public Tls {
            http = http == null || http;
            bolt = bolt == null ? "off" : bolt;
            if (!java.util.Set.of("off", "optional", "required").contains(bolt)) {
                throw new IllegalArgumentException("tls.bolt must be off, optional or required, got '" + bolt + "'");
            }
            boolean wanted = https != null || !bolt.equals("off");
            if (wanted && (certificate == null || privateKey == null)) {
                throw new IllegalArgumentException("tls.https and tls.bolt need tls.certificate and tls.private_key"
                        + " (PEM files)");
            }
            if (!http && https == null) {
                throw new IllegalArgumentException("tls.http: false turns plain HTTP off; it needs tls.https");
            }
        }
    }

    /**
     * The mode a write gets when its request names none ({@code ?mode=}): {@code default} for everyone, or per
     * user, so an unchanged client (which cannot add {@code ?mode=} to Neo4j's URLs) still gets sync, async or
     * direct.
     */
    public record Modes(String defaultMode, Map<String, String> users) {
        public static final Modes DEFAULT = new Modes(null, null);

        @com.fasterxml.jackson.annotation.JsonCreator
        public Modes(@com.fasterxml.jackson.annotation.JsonProperty("default") String defaultMode,
                @com.fasterxml.jackson.annotation.JsonProperty("users") Map<String, String> users) {
            this.defaultMode = defaultMode == null ? "sync" : defaultMode;
            this.users = users == null ? Map.of() : Map.copyOf(users);
            for (String m : this.users.values()) {
                check(m);
            }
            check(this.defaultMode);
        }

        private static void check(String mode) {
            if (!java.util.Set.of("sync", "async", "direct").contains(mode)) {
                throw new IllegalArgumentException("modes: a mode is sync, async or direct, got '" + mode + "'");
            }
        }

        /** The mode of {@code user} (null: anonymous, when auth is off). */
        public String of(String user) {
            return user == null ? defaultMode : users.getOrDefault(user, defaultMode);
        }
    }

    /**
     * Explicit transactions of both HTTP APIs: real Neo4j transactions held open between a client's requests.
     * {@code idleTimeout} (the Query API's; Neo4j's default 60 s) and {@code classicIdleTimeout} (the classic API's;
     * Neo4j's default 30 s) roll back one left idle; at most {@code maxOpen} at once over both APIs (each holds its
     * locks and, over Bolt, one of the driver's connections: keep it below the pool's 32), each also counting as
     * one pending row against {@code admission}.
     */
    public record Transactions(Duration idleTimeout, Duration classicIdleTimeout, Integer maxOpen) {
        public static final Transactions DEFAULT = new Transactions(null, null, null);

        public Transactions {
            idleTimeout = idleTimeout == null ? Duration.ofSeconds(60) : idleTimeout;
            classicIdleTimeout = classicIdleTimeout == null ? Duration.ofSeconds(30) : classicIdleTimeout;
            maxOpen = maxOpen == null ? 16 : maxOpen;
            if (maxOpen < 1 || !idleTimeout.isPositive() || !classicIdleTimeout.isPositive()) {
                throw new IllegalArgumentException("transactions.max_open must be >= 1 and the idle timeouts positive, got "
                        + maxOpen + ", " + idleTimeout + " and " + classicIdleTimeout);
            }
        }
    }

    /**
     * The HTTP and HTTPS listeners' I/O threads: they parse requests, check credentials, receive bodies, decode
     * template rows and send answers; a write's work is the appliers'. {@code ioThreads} defaults to half the
     * cores, at least one (Undertow's own default is one per core, at least two). Measured on 2 cores
     * (docs/BENCHMARKS.md, session 10): one I/O thread took an async write for 7% less CPU than two, at more
     * writes a second, since one busier thread finds more connections ready per wake-up and the other core is
     * left to Neo4j; a sync write cost 4-11% more, its answers leaving from one thread instead of two.
     */
    public record Http(Integer ioThreads) {
        public static final Http DEFAULT = new Http(null);

        public Http {
            ioThreads = ioThreads == null ? Math.max(1, Runtime.getRuntime().availableProcessors() / 2) : ioThreads;
            if (ioThreads < 1 || ioThreads > 256) {
                throw new IllegalArgumentException("http.io_threads must be in [1, 256], got " + ioThreads);
            }
        }
    }
}
