package io.sluice.bolt;

import io.sluice.bolt.PackStream.Struct;
import io.sluice.vocab.GraphValues.GraphDuration;
import io.sluice.vocab.GraphValues.GraphNode;
import io.sluice.vocab.GraphValues.GraphPath;
import io.sluice.vocab.GraphValues.GraphPoint;
import io.sluice.vocab.GraphValues.GraphRelationship;
import java.time.DateTimeException;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.OffsetDateTime;
import java.time.OffsetTime;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Bolt's structures (the Bolt docs' "Structure semantics") to and from the detached values sluice's sinks return
 * ({@link Values}): graph entities, temporals, durations and points. Bolt 5 sends nodes and
 * relationships with element ids and zoned datetimes as UTC instants (tags 49, 69); Bolt 4.4 without the
 * {@code utc} patch sends neither (tags 46, 66: seconds of the local time). Stateless.
 */
final class WireValues {
    private WireValues() {}

    static final byte NODE = 0x4E;
    static final byte RELATIONSHIP = 0x52;
    static final byte UNBOUND_RELATIONSHIP = 0x72;
    static final byte PATH = 0x50;
    static final byte DATE = 0x44;
    static final byte TIME = 0x54;
    static final byte LOCAL_TIME = 0x74;
    static final byte LOCAL_DATE_TIME = 0x64;
    static final byte DATE_TIME = 0x49;
    static final byte DATE_TIME_ZONE_ID = 0x69;
    static final byte LEGACY_DATE_TIME = 0x46;
    static final byte LEGACY_DATE_TIME_ZONE_ID = 0x66;
    static final byte DURATION = 0x45;
    static final byte POINT_2D = 0x58;
    static final byte POINT_3D = 0x59;

    /** A parameter sluice cannot take: the message names what and where. */
    static final class BadValue extends Exception {
        private static final long serialVersionUID = 1L;

        BadValue(String message) {
            super(message);
        }
    }

    /**
     * {@code v}, a value of a result, as PackStream writes it; {@code elementIds}: Bolt 5 (entities carry element
     * ids); {@code utc}: zoned datetimes as UTC instants.
     */
    static Object out(Object v, boolean elementIds, boolean utc) {
        return switch (v) {
            case null -> null;
            case String s -> s;
            case Boolean b -> b;
            case Double d -> d;
            case Float f -> f.doubleValue();
            case Number n -> n.longValue();
            case byte[] b -> b;
            case List<?> l -> {
                List<Object> o = new ArrayList<>(l.size());
                for (Object x : l) {
                    o.add(out(x, elementIds, utc));
                }
                yield o;
            }
            case Map<?, ?> m -> map(m, elementIds, utc);
            case GraphNode n -> node(n, elementIds, utc);
            case GraphRelationship r -> elementIds
                    ? Struct.of(RELATIONSHIP, r.id(), r.startNodeId(), r.endNodeId(), r.type(),
                            map(r.properties(), true, utc), r.elementId(), r.startNodeElementId(), r.endNodeElementId())
                    : Struct.of(RELATIONSHIP, r.id(), r.startNodeId(), r.endNodeId(), r.type(),
                            map(r.properties(), false, utc));
            case GraphPath p -> path(p, elementIds, utc);
            case GraphPoint p -> p.coordinates().size() == 3
                    ? Struct.of(POINT_3D, (long) p.srid(), p.coordinates().get(0), p.coordinates().get(1),
                            p.coordinates().get(2))
                    : Struct.of(POINT_2D, (long) p.srid(), p.coordinates().get(0), p.coordinates().get(1));
            case GraphDuration d -> Struct.of(DURATION, d.months(), d.days(), d.seconds(), (long) d.nanos());
            case LocalDate d -> Struct.of(DATE, d.toEpochDay());
            case OffsetTime t -> Struct.of(TIME, t.toLocalTime().toNanoOfDay(), (long) t.getOffset().getTotalSeconds());
            case LocalTime t -> Struct.of(LOCAL_TIME, t.toNanoOfDay());
            case LocalDateTime t -> Struct.of(LOCAL_DATE_TIME, t.toEpochSecond(ZoneOffset.UTC), (long) t.getNano());
            case OffsetDateTime t -> utc
                    ? Struct.of(DATE_TIME, t.toEpochSecond(), (long) t.getNano(), (long) t.getOffset().getTotalSeconds())
                    : Struct.of(LEGACY_DATE_TIME, t.toLocalDateTime().toEpochSecond(ZoneOffset.UTC), (long) t.getNano(),
                            (long) t.getOffset().getTotalSeconds());
            case ZonedDateTime t -> t.getZone() instanceof ZoneOffset o
                    ? out(t.toOffsetDateTime(), elementIds, utc)
                    : utc ? Struct.of(DATE_TIME_ZONE_ID, t.toEpochSecond(), (long) t.getNano(), t.getZone().getId())
                    : Struct.of(LEGACY_DATE_TIME_ZONE_ID, t.toLocalDateTime().toEpochSecond(ZoneOffset.UTC),
                            (long) t.getNano(), t.getZone().getId());
            default -> v.toString();
        };
    }

    private static Map<String, Object> map(Map<?, ?> m, boolean elementIds, boolean utc) {
        Map<String, Object> o = new LinkedHashMap<>(Math.max(4, m.size() * 2));
        m.forEach((k, x) -> o.put(String.valueOf(k), out(x, elementIds, utc)));
        return o;
    }

    private static Struct node(GraphNode n, boolean elementIds, boolean utc) {
        return elementIds
                ? Struct.of(NODE, n.id(), n.labels(), map(n.properties(), true, utc), n.elementId())
                : Struct.of(NODE, n.id(), n.labels(), map(n.properties(), false, utc));
    }

    /** Unique nodes, unique relationships without their ends, and the walk as indices into both. */
    private static Struct path(GraphPath p, boolean elementIds, boolean utc) {
        List<Object> nodes = new ArrayList<>();
        Map<String, Integer> nodeAt = new HashMap<>();
        List<Object> rels = new ArrayList<>();
        Map<String, Integer> relAt = new HashMap<>();
        for (GraphNode n : p.nodes()) {
            if (nodeAt.putIfAbsent(n.elementId(), nodes.size()) == null) {
                nodes.add(node(n, elementIds, utc));
            }
        }
        List<Object> indices = new ArrayList<>();
        for (int i = 0; i < p.relationships().size(); i++) {
            GraphRelationship r = p.relationships().get(i);
            Integer at = relAt.get(r.elementId());
            if (at == null) {
                at = rels.size();
                relAt.put(r.elementId(), at);
                rels.add(elementIds
                        ? Struct.of(UNBOUND_RELATIONSHIP, r.id(), r.type(), map(r.properties(), true, utc), r.elementId())
                        : Struct.of(UNBOUND_RELATIONSHIP, r.id(), r.type(), map(r.properties(), false, utc)));
            }
            boolean forward = r.startNodeElementId().equals(p.nodes().get(i).elementId());
            indices.add(forward ? at + 1L : -(at + 1L));
            indices.add((long) nodeAt.get(p.nodes().get(i + 1).elementId()));
        }
        return Struct.of(PATH, nodes, rels, indices);
    }

    /** A parameter as PackStream read it, made into what the sinks take; {@code utc} as for {@link #out}. */
    static Object in(Object v, boolean utc) throws BadValue {
        return switch (v) {
            case null -> null;
            case List<?> l -> {
                List<Object> o = new ArrayList<>(l.size());
                for (Object x : l) {
                    o.add(in(x, utc));
                }
                yield o;
            }
            case Map<?, ?> m -> params(m, utc);
            case Struct s -> struct(s, utc);
            default -> v;
        };
    }

    /** A parameter map. */
    static Map<String, Object> params(Map<?, ?> m, boolean utc) throws BadValue {
        Map<String, Object> o = new LinkedHashMap<>(Math.max(4, m.size() * 2));
        for (Map.Entry<?, ?> e : m.entrySet()) {
            o.put((String) e.getKey(), in(e.getValue(), utc));
        }
        return o;
    }

    private static Object struct(Struct s, boolean utc) throws BadValue {
        List<Object> f = s.fields();
        try {
            return switch (s.tag()) {
                case DATE -> LocalDate.ofEpochDay(arity(s, 1, f).longValue());
                case TIME -> OffsetTime.of(LocalTime.ofNanoOfDay(arity(s, 2, f).longValue()),
                        ZoneOffset.ofTotalSeconds(Math.toIntExact((Long) f.get(1))));
                case LOCAL_TIME -> LocalTime.ofNanoOfDay(arity(s, 1, f).longValue());
                case LOCAL_DATE_TIME -> LocalDateTime.ofEpochSecond(arity(s, 2, f).longValue(),
                        Math.toIntExact((Long) f.get(1)), ZoneOffset.UTC);
                case DATE_TIME, LEGACY_DATE_TIME -> {
                    ZoneOffset offset = ZoneOffset.ofTotalSeconds(Math.toIntExact((Long) f.get(2)));
                    long seconds = arity(s, 3, f).longValue();
                    int nanos = Math.toIntExact((Long) f.get(1));
                    yield s.tag() == DATE_TIME && utc ? Instant.ofEpochSecond(seconds, nanos).atOffset(offset)
                            : LocalDateTime.ofEpochSecond(seconds, nanos, ZoneOffset.UTC).atOffset(offset);
                }
                case DATE_TIME_ZONE_ID, LEGACY_DATE_TIME_ZONE_ID -> {
                    ZoneId zone = ZoneId.of((String) f.get(2));
                    long seconds = arity(s, 3, f).longValue();
                    int nanos = Math.toIntExact((Long) f.get(1));
                    yield s.tag() == DATE_TIME_ZONE_ID && utc
                            ? ZonedDateTime.ofInstant(Instant.ofEpochSecond(seconds, nanos), zone)
                            : ZonedDateTime.of(LocalDateTime.ofEpochSecond(seconds, nanos, ZoneOffset.UTC), zone);
                }
                case DURATION -> { // drivers send nanoseconds of either sign; Neo4j keeps them in [0, 1e9)
                    long nanos = (Long) f.get(3);
                    long seconds = Math.addExact((Long) f.get(2), Math.floorDiv(nanos, 1_000_000_000L));
                    yield new GraphDuration(arity(s, 4, f).longValue(), (Long) f.get(1), seconds,
                            (int) Math.floorMod(nanos, 1_000_000_000L));
                }
                case POINT_2D -> new GraphPoint(Math.toIntExact(arity(s, 3, f).longValue()),
                        List.of((Double) f.get(1), (Double) f.get(2)));
                case POINT_3D -> new GraphPoint(Math.toIntExact(arity(s, 4, f).longValue()),
                        List.of((Double) f.get(1), (Double) f.get(2), (Double) f.get(3)));
                case NODE, RELATIONSHIP, UNBOUND_RELATIONSHIP, PATH -> throw new BadValue(
                        "nodes, relationships and paths cannot be parameters; pass their element ids or properties");
                default -> throw new BadValue(String.format("unknown structure tag 0x%02X in a parameter", s.tag()));
            };
        } catch (ClassCastException | ArithmeticException | DateTimeException
                 | IllegalArgumentException | IndexOutOfBoundsException | NullPointerException e) {
            throw new BadValue(String.format("structure 0x%02X has fields of the wrong type or range: %s", s.tag(),
                    e.getMessage()));
        }
    }

    /** The first field as a Long, once the structure is checked to have {@code n} fields. */
    private static Long arity(Struct s, int n, List<Object> f) throws BadValue {
        if (f.size() != n) {
            throw new BadValue(String.format("structure 0x%02X needs %d fields, got %d", s.tag(), n, f.size()));
        }
        return (Long) f.get(0);
    }
}
