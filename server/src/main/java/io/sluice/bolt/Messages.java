package io.sluice.bolt;

import io.sluice.bolt.Handshake.Version;
import io.sluice.bolt.PackStream.Struct;
import io.sluice.vocab.Neo4jError;
import java.io.ByteArrayOutputStream;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Bolt's messages (the Bolt docs' "Messages", version 5.x and 4.4): what a client sends, read from its structure
 * into a {@link Request} with its fields checked, and what the server answers, written as chunked PackStream.
 * Stateless.
 */
final class Messages {
    private Messages() {}

    static final byte HELLO = 0x01;
    static final byte GOODBYE = 0x02;
    static final byte RESET = 0x0F;
    static final byte RUN = 0x10;
    static final byte BEGIN = 0x11;
    static final byte COMMIT = 0x12;
    static final byte ROLLBACK = 0x13;
    static final byte DISCARD = 0x2F;
    static final byte PULL = 0x3F;
    static final byte TELEMETRY = 0x54;
    static final byte ROUTE = 0x66;
    static final byte LOGON = 0x6A;
    static final byte LOGOFF = 0x6B;
    static final byte SUCCESS = 0x70;
    static final byte RECORD = 0x71;
    static final byte IGNORED = 0x7E;
    static final byte FAILURE = 0x7F;

    /** A client's message, its fields checked. {@link #name()} is Bolt's name of it, for errors and metrics. */
    sealed interface Request {
        /** Bolt's name of the message: the record's, in capitals ({@code RUN}). */
        default String name() {
            return NAMES.get(getClass());
        }
    }

    /** Each request record's name, made once per class (a metric counts every message by it). */
    private static final ClassValue<String> NAMES = new ClassValue<>() {
        @Override
        protected String computeValue(Class<?> type) {
            return type.getSimpleName().toUpperCase(Locale.ROOT);
        }
    };

    record Hello(Map<String, Object> extra) implements Request {}

    record Logon(Map<String, Object> auth) implements Request {}

    record Logoff() implements Request {}

    record Telemetry(long api) implements Request {}

    record Goodbye() implements Request {}

    record Reset() implements Request {}

    /** {@code params}: still as PackStream read them (structures not yet made values). */
    record Run(String query, Map<String, Object> params, Map<String, Object> extra, int bytes) implements Request {}

    /** PULL ({@code discard} false) or DISCARD: {@code n} records (-1: all) of result {@code qid} (-1: the last). */
    record Pull(long n, long qid, boolean discard) implements Request {
        public String name() {
            return discard ? "DISCARD" : "PULL";
        }
    }

    record Begin(Map<String, Object> extra) implements Request {}

    record Commit() implements Request {}

    record Rollback() implements Request {}

    record Route(Map<String, Object> routing, List<Object> bookmarks, String db) implements Request {}

    /** A message whose structure or fields are not what Bolt says: {@code Neo.ClientError.Request.Invalid}. */
    static final class Invalid extends Exception {
        private static final long serialVersionUID = 1L;
        /** The connection cannot go on (an unknown message: Neo4j closes it). */
        final boolean fatal;

        Invalid(String message) {
            this(message, false);
        }

        Invalid(String message, boolean fatal) {
            super(message);
            this.fatal = fatal;
        }
    }

    /** Reads {@code message}, one unpacked value, as a request of {@code version}. */
    static Request read(Object message, Version version, int bytes) throws Invalid {
        if (!(message instanceof Struct s)) {
            throw new Invalid("a message must be a structure, got " + describe(message));
        }
        List<Object> f = s.fields();
        return switch (s.tag()) {
            case HELLO -> new Hello(map(fields(s, f, 1), 0, "HELLO extra"));
            case LOGON -> new Logon(map(fields(s, f, 1), 0, "LOGON auth"));
            case LOGOFF -> {
                fields(s, f, 0);
                yield new Logoff();
            }
            case TELEMETRY -> new Telemetry(integer(fields(s, f, 1), 0, "TELEMETRY api"));
            case GOODBYE -> {
                fields(s, f, 0);
                yield new Goodbye();
            }
            case RESET -> {
                fields(s, f, 0); // the event loop knows a RESET by its two bytes, B0 0F: nothing else is one
                yield new Reset();
            }
            case RUN -> {
                fields(s, f, 3);
                if (!(f.get(0) instanceof String q)) {
                    throw new Invalid("RUN's query must be a string, got " + describe(f.get(0)));
                }
                yield new Run(q, map(f, 1, "RUN parameters"), map(f, 2, "RUN extra"), bytes);
            }
            case PULL, DISCARD -> {
                Map<String, Object> extra = map(fields(s, f, 1), 0, s.tag() == PULL ? "PULL extra" : "DISCARD extra");
                long n = number(extra, "n", -1);
                if (n == 0 || n < -1) {
                    throw new Invalid("'n' must be -1 (all) or positive, got " + n);
                }
                yield new Pull(n, number(extra, "qid", -1), s.tag() == DISCARD);
            }
            case BEGIN -> new Begin(map(fields(s, f, 1), 0, "BEGIN extra"));
            case COMMIT -> {
                fields(s, f, 0);
                yield new Commit();
            }
            case ROLLBACK -> {
                fields(s, f, 0);
                yield new Rollback();
            }
            case ROUTE -> {
                fields(s, f, 3);
                if (!(f.get(1) instanceof List<?> b)) {
                    throw new Invalid("ROUTE's bookmarks must be a list, got " + describe(f.get(1)));
                }
                Object db = f.get(2) instanceof Map<?, ?> m ? m.get("db") : f.get(2);
                if (db != null && !(db instanceof String)) {
                    throw new Invalid("ROUTE's database must be a string, got " + describe(db));
                }
                yield new Route(map(f, 0, "ROUTE routing"), new ArrayList<>(b), (String) db);
            }
            default -> throw new Invalid(String.format("unknown message 0x%02X for Bolt %s", s.tag(), version));
        };
    }

    private static List<Object> fields(Struct s, List<Object> f, int n) throws Invalid {
        if (f.size() != n) {
            throw new Invalid(String.format("message 0x%02X needs %d field(s), got %d", s.tag(), n, f.size()));
        }
        return f;
    }

    @SuppressWarnings("unchecked") // PackStream's maps are String-keyed by construction
    private static Map<String, Object> map(List<Object> f, int i, String what) throws Invalid {
        if (!(f.get(i) instanceof Map<?, ?> m)) {
            throw new Invalid(what + " must be a map, got " + describe(f.get(i)));
        }
        return (Map<String, Object>) m;
    }

    private static long integer(List<Object> f, int i, String what) throws Invalid {
        if (!(f.get(i) instanceof Long l)) {
            throw new Invalid(what + " must be an integer, got " + describe(f.get(i)));
        }
        return l;
    }

    private static long number(Map<String, Object> extra, String key, long absent) throws Invalid {
        Object v = extra.get(key);
        if (v == null) {
            return absent;
        }
        if (!(v instanceof Long l)) {
            throw new Invalid("'" + key + "' must be an integer, got " + describe(v));
        }
        return l;
    }

    static String describe(Object v) {
        return switch (v) {
            case null -> "null";
            case Struct s -> String.format("a structure 0x%02X", s.tag());
            case Map<?, ?> m -> "a map";
            case List<?> l -> "a list";
            case String str -> "a string";
            default -> "a " + v.getClass().getSimpleName().toLowerCase(Locale.ROOT);
        };
    }

    // ---- what the server writes ----

    static void success(Map<String, Object> metadata, ByteArrayOutputStream out) {
        write(Struct.of(SUCCESS, metadata), out);
    }

    static void record(List<Object> values, ByteArrayOutputStream out) {
        write(Struct.of(RECORD, values), out);
    }

    static void ignored(ByteArrayOutputStream out) {
        write(Struct.of(IGNORED), out);
    }

    /**
     * A FAILURE: {@code {code, message}} up to Bolt 5.6; from 5.7 Neo4j's GQL form ({@code neo4j_code}, the GQL
     * status and its description, a diagnostic record).
     */
    static void failure(Neo4jError e, Version version, ByteArrayOutputStream out) {
        Map<String, Object> m = new LinkedHashMap<>();
        if (version.atLeast(Version.V5_7)) {
            GqlStatus g = GqlStatus.of(e.code());
            m.put("neo4j_code", e.code());
            m.put("message", e.message());
            m.put("gql_status", g.status());
            m.put("description", g.description() + ". " + e.message());
            m.put("diagnostic_record", GqlStatus.diagnosticRecord(e.code()));
        } else {
            m.put("code", e.code());
            m.put("message", e.message());
        }
        write(Struct.of(FAILURE, m), out);
    }

    static void write(Struct message, ByteArrayOutputStream out) {
        Chunks.frame(new PackStream.Packer().pack(message).bytes(), out);
    }
}
