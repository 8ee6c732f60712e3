package io.sluice.support;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.cfg.JsonNodeFeature;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.databind.node.TextNode;
import java.io.IOException;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.UnaryOperator;

/**
 * One server's JSON answer with what legitimately differs between two servers replaced by placeholders, so that
 * Neo4j's and sluice's answers to the same request compare as text (values, key order and all):
 * <ul>
 *   <li>timings ({@code resultAvailableAfter}, {@code resultConsumedAfter}) are left out;</li>
 *   <li>{@code bookmarks} / {@code lastBookmarks} become {@code "<bookmarks>"}, {@code expires} {@code "<expires>"},
 *       a Query API transaction's {@code id} {@code "<tx>"};</li>
 *   <li>element ids become {@code <e1>}, {@code <e2>} ... and internal ids ({@code id}, {@code startNode},
 *       {@code endNode}) {@code <n1>} ... for nodes, {@code <r1>} ... for relationships (their own number
 *       space), in order of first appearance, so which entity is which still compares (a relationship's end
 *       node is the node two columns on, on both sides);</li>
 *   <li>the server's own addresses (its base URL, its Bolt address) become placeholders, and a classic
 *       transaction number in a URL {@code <n>};</li>
 *   <li>error messages lose the Query API transaction id they quote, then go through a function the caller
 *       chooses (exact by default: a case says when sluice's wording is its own).</li>
 * </ul>
 * Numbers keep their text ({@code 3.0} is not {@code 3}, {@code 1.0E20} is not {@code 1E20}).
 */
public final class NormalJson {
    static final ObjectMapper MAPPER = JsonMapper.builder()
            .enable(DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS)
            .disable(JsonNodeFeature.STRIP_TRAILING_BIGDECIMAL_ZEROES)
            .build();
    private static final Set<String> TIMINGS = Set.of("resultAvailableAfter", "resultConsumedAfter");
    private static final Set<String> ELEMENT_IDS = Set.of("elementId", "startNodeElementId", "endNodeElementId",
            "_element_id", "_start_node_element_id", "_end_node_element_id");

    private final Map<String, String> addresses;
    private final UnaryOperator<String> messages;
    private final Map<String, String> elements = new HashMap<>();
    private final Map<String, String> nodes = new HashMap<>();
    private final Map<String, String> relationships = new HashMap<>();

    private NormalJson(Map<String, String> addresses, UnaryOperator<String> messages) {
        this.addresses = addresses;
        this.messages = messages;
    }

    /**
     * The body as JSON (numbers' text kept); JSON lines (several values) as an array of them; when it is empty or
     * not JSON, a text node of it as it is.
     */
    public static JsonNode parse(String body) {
        try (var values = MAPPER.readerFor(JsonNode.class).<JsonNode>readValues(body)) {
            List<JsonNode> all = values.readAll();
            if (all.size() <= 1) {
                return all.isEmpty() ? TextNode.valueOf(body) : all.getFirst();
            }
            ArrayNode lines = MAPPER.getNodeFactory().arrayNode();
            all.forEach(lines::add);
            return lines;
        } catch (IOException | RuntimeException e) {
            return TextNode.valueOf(body);
        }
    }

    /**
     * {@code body} normalised. {@code addresses}: this server's own strings (base URL, Bolt address) and the
     * placeholder each becomes; {@code messages}: what an error's {@code message} becomes.
     */
    public static JsonNode normalise(JsonNode body, Map<String, String> addresses, UnaryOperator<String> messages) {
        return new NormalJson(addresses, messages).walk(body, "");
    }

    /** A text with this server's addresses and a classic transaction's number replaced (for URLs, Location). */
    public static String address(String text, Map<String, String> addresses) {
        String out = text;
        for (var a : addresses.entrySet()) {
            out = out.replace(a.getKey(), a.getValue());
        }
        return out.replaceAll("(/db/[^/]+/tx/)\\d+", "$1<n>");
    }

    private JsonNode walk(JsonNode n, String key) {
        if (n.isObject()) {
            ObjectNode out = MAPPER.getNodeFactory().objectNode();
            // a classic meta entry says its type; a graph result lists relationships under their own key
            boolean relationship = key.equals("relationships") || n.path("type").asText().equals("relationship");
            var fields = new java.util.ArrayList<>(n.properties());
            if (hashOrdered(n, key)) {
                fields.sort(Map.Entry.comparingByKey());
            }
            for (var field : fields) {
                String k = field.getKey();
                JsonNode v = field.getValue();
                if (TIMINGS.contains(k)) {
                    continue;
                }
                out.set(k, value(k, v, key, relationship));
            }
            return out;
        }
        if (n.isArray()) {
            ArrayNode out = MAPPER.getNodeFactory().arrayNode();
            java.util.List<JsonNode> elements = new java.util.ArrayList<>();
            n.forEach(elements::add);
            if (key.equals("nodes") || key.equals("relationships")) {
                // a classic graph result lists its entities in no particular order (Neo4j's is neither the
                // columns' nor the ids'): compared in the order of what they are, before ids are numbered
                elements.sort(java.util.Comparator.comparing(e -> e.path("labels").toString() + e.path("type")
                        + e.path("properties").toString()));
            }
            elements.forEach(e -> out.add(walk(e, key)));
            return out;
        }
        if (n.isTextual()) {
            return TextNode.valueOf(address(n.asText(), addresses));
        }
        return n;
    }

    /**
     * Whether Neo4j writes this object's fields in a hash map's order, compared sorted: a plan operator's arguments
     * (the Query API's {@code arguments}), and a classic plan's operators ({@code root} and its {@code children},
     * which hold their arguments flattened; the Query API's operators, with {@code arguments}, keep their order).
     */
    private static boolean hashOrdered(JsonNode n, String key) {
        return key.equals("arguments") || key.equals("root") || (key.equals("children") && !n.has("arguments"));
    }

    /**
     * Field {@code k}'s value {@code v}, in an object that is itself the value of {@code parent} (and is a
     * relationship's meta or graph entry when {@code relationship}).
     */
    private JsonNode value(String k, JsonNode v, String parent, boolean relationship) {
        if ((k.equals("bookmarks") || k.equals("lastBookmarks")) && v.isArray()) {
            return TextNode.valueOf("<bookmarks>");
        }
        if (k.equals("expires") && v.isTextual()) {
            return TextNode.valueOf("<expires>");
        }
        if (k.equals("id") && parent.equals("transaction")) {
            return TextNode.valueOf("<tx>");
        }
        if (ELEMENT_IDS.contains(k) && v.isTextual()) {
            return intern(elements, v.asText(), "e");
        }
        if (v.isTextual() || v.isIntegralNumber()) {
            if (k.equals("id") && relationship) {
                return intern(relationships, v.asText(), "r");
            }
            if (k.equals("id") || k.equals("startNode") || k.equals("endNode")) {
                return intern(nodes, v.asText(), "n");
            }
        }
        if (k.equals("message") && parent.equals("errors") && v.isTextual()) {
            return TextNode.valueOf(messages.apply(v.asText().replaceAll("Id: \"[0-9a-f]+\"", "Id: \"<tx>\"")));
        }
        return walk(v, k);
    }

    /** {@code value}'s placeholder in {@code seen}: {@code <prefix N>}, N counting from 1 in order of appearance. */
    private static TextNode intern(Map<String, String> seen, String value, String prefix) {
        return TextNode.valueOf(seen.computeIfAbsent(value, x -> "<" + prefix + (seen.size() + 1) + ">"));
    }
}
