package io.sluice.support;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpHeaders;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.function.UnaryOperator;

/**
 * The same HTTP request sent to two servers at once, the real Neo4j and sluice, and their answers compared after
 * {@link NormalJson}: status, {@code Content-Type}, {@code Location}'s path and the body. A request that
 * names something one side gave out (a transaction id) takes its path per {@link Side}. Every request carries
 * the same {@code Authorization}.
 */
public final class Differential {
    public enum Side { NEO4J, SLUICE }

    /** Where a side listens, and its own strings (base URL, Bolt address) with the placeholder each becomes. */
    public record Target(String baseUrl, Map<String, String> addresses) {}

    /** One side's answer. */
    public record Answer(int status, String contentType, String location, String body, HttpHeaders headers) {
        public JsonNode json() {
            return NormalJson.parse(body);
        }
    }

    private static final Duration TIMEOUT = Duration.ofSeconds(50);
    private final Map<Side, Target> targets = new EnumMap<>(Side.class);
    private final String authorization;
    private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(10)).build();

    public Differential(Target neo4j, Target sluice, String authorization) {
        targets.put(Side.NEO4J, neo4j);
        targets.put(Side.SLUICE, sluice);
        this.authorization = authorization;
    }

    /** POST {@code body} as {@code application/json}. */
    public Pair post(String path, String body) {
        return send("POST", side -> path, body, "Content-Type", "application/json");
    }

    /**
     * {@code method} on each side's {@code path} with {@code body} (null: none) and {@code headers} (name, value,
     * ...), to both sides at once; returns when both have answered. An {@code Authorization} among
     * {@code headers} replaces the common one; one with an empty value means none.
     */
    public Pair send(String method, Function<Side, String> path, String body, String... headers) {
        Map<Side, CompletableFuture<HttpResponse<String>>> pending = new EnumMap<>(Side.class);
        for (Side side : Side.values()) {
            HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(targets.get(side).baseUrl() + path.apply(side)))
                    .timeout(TIMEOUT).method(method, body == null ? HttpRequest.BodyPublishers.noBody()
                            : HttpRequest.BodyPublishers.ofString(body));
            boolean ownAuthorization = false;
            for (int i = 0; i < headers.length; i += 2) {
                ownAuthorization |= headers[i].equalsIgnoreCase("Authorization");
                if (!headers[i + 1].isEmpty()) {
                    b.header(headers[i], headers[i + 1]);
                }
            }
            if (!ownAuthorization) {
                b.header("Authorization", authorization);
            }
            pending.put(side, http.sendAsync(b.build(), HttpResponse.BodyHandlers.ofString()));
        }
        Map<Side, Answer> answers = new EnumMap<>(Side.class);
        pending.forEach((side, f) -> {
            try {
                HttpResponse<String> r = f.get(TIMEOUT.toSeconds() + 5, TimeUnit.SECONDS);
                answers.put(side, new Answer(r.statusCode(), r.headers().firstValue("Content-Type").orElse(null),
                        r.headers().firstValue("Location").orElse(null), r.body(), r.headers()));
            } catch (Exception e) {
                throw new AssertionError(side + ": no answer to " + method + " " + path.apply(side), e);
            }
        });
        return new Pair(method + " " + path.apply(Side.NEO4J) + (body == null ? "" : " " + body),
                answers.get(Side.NEO4J), answers.get(Side.SLUICE));
    }

    /** The two answers to one request. */
    public final class Pair {
        private final String request;
        private final Answer neo4j;
        private final Answer sluice;

        Pair(String request, Answer neo4j, Answer sluice) {
            this.request = request;
            this.neo4j = neo4j;
            this.sluice = sluice;
        }

        public Answer get(Side side) {
            return side == Side.NEO4J ? neo4j : sluice;
        }

        /** {@code f} of each side's answer, e.g. the transaction id each gave out. */
        public <T> Map<Side, T> each(Function<Answer, T> f) {
            Map<Side, T> out = new EnumMap<>(Side.class);
            out.put(Side.NEO4J, f.apply(neo4j));
            out.put(Side.SLUICE, f.apply(sluice));
            return out;
        }

        public Comparison compare() {
            return new Comparison(this);
        }

        /** The answers match exactly after normalising (error messages included). */
        public Pair matches() {
            compare().matches();
            return this;
        }

        /** The answers match after normalising, with what {@code allowances} lets differ. */
        public Pair matches(UnaryOperator<Comparison> allowances) {
            allowances.apply(compare()).matches();
            return this;
        }
    }

    /** How two answers are compared: what each case allows on top of {@link NormalJson}'s normalising. */
    public final class Comparison {
        private final Pair pair;
        private UnaryOperator<String> messages = UnaryOperator.identity();
        private final List<String[]> gaps = new ArrayList<>();
        private final List<String[]> extras = new ArrayList<>();
        private final List<String[]> differences = new ArrayList<>();
        private final List<String> headers = new ArrayList<>();

        Comparison(Pair pair) {
            this.pair = pair;
        }

        /** Error messages go through {@code f} on both sides before comparing. */
        public Comparison messages(UnaryOperator<String> f) {
            this.messages = f;
            return this;
        }

        /** Sluice words this error its own way: its code is compared, not its message. */
        public Comparison ownMessages() {
            return messages(m -> "<message>");
        }

        /**
         * A known gap: Neo4j's answer has the top-level field {@code field} and sluice's does not, for the reason
         * given. Checked to be still there (so closing the gap fails here: remove the allowance), then left out.
         */
        public Comparison gap(String field, String why) {
            gaps.add(new String[] {field, why});
            return this;
        }

        /**
         * A known difference: both answers have the top-level field {@code field}, with other values, for the reason
         * given. Checked to be still there, then left out of both.
         */
        public Comparison differs(String field, String why) {
            differences.add(new String[] {field, why});
            return this;
        }

        /** These response headers are compared too (their values, all of them, or their absence). */
        public Comparison headers(String... names) {
            headers.addAll(List.of(names));
            return this;
        }

        /** Sluice's own top-level field {@code field}, which Neo4j does not send, for the reason given; left out. */
        public Comparison extra(String field, String why) {
            extras.add(new String[] {field, why});
            return this;
        }

        public Pair matches() {
            JsonNode n = normal(Side.NEO4J, pair.neo4j);
            JsonNode s = normal(Side.SLUICE, pair.sluice);
            for (String[] gap : gaps) {
                assertThat(n.has(gap[0]) && !s.has(gap[0]))
                        .as("%s: known gap '%s' (%s) no longer there: remove it from the test%n neo4j:  %s%n"
                                + " sluice: %s", pair.request, gap[0], gap[1], pair.neo4j.body(), pair.sluice.body())
                        .isTrue();
                ((ObjectNode) n).remove(gap[0]);
            }
            for (String[] diff : differences) {
                assertThat(n.has(diff[0]) && s.has(diff[0]) && !n.get(diff[0]).equals(s.get(diff[0])))
                        .as("%s: known difference in '%s' (%s) no longer there: remove it from the test%n neo4j:  %s%n"
                                + " sluice: %s", pair.request, diff[0], diff[1], pair.neo4j.body(), pair.sluice.body())
                        .isTrue();
                ((ObjectNode) n).remove(diff[0]);
                ((ObjectNode) s).remove(diff[0]);
            }
            for (String[] extra : extras) {
                assertThat(s.has(extra[0]) && !n.has(extra[0]))
                        .as("%s: sluice's own field '%s' (%s) not there, or Neo4j has it too%n neo4j:  %s%n sluice: %s",
                                pair.request, extra[0], extra[1], pair.neo4j.body(), pair.sluice.body())
                        .isTrue();
                ((ObjectNode) s).remove(extra[0]);
            }
            assertThat(summary(pair.sluice, s))
                    .as("%s%n neo4j:  %s%n sluice: %s", pair.request, pair.neo4j.body(), pair.sluice.body())
                    .isEqualTo(summary(pair.neo4j, n));
            return pair;
        }

        private JsonNode normal(Side side, Answer a) {
            return NormalJson.normalise(a.json(), targets.get(side).addresses(), messages);
        }

        private String summary(Answer a, JsonNode body) {
            // the path: Neo4j's is absolute, from the request's Host, which differs by side anyway
            String location = a.location() == null ? "" : " Location: "
                    + NormalJson.address(URI.create(a.location()).getPath(), Map.of());
            StringBuilder more = new StringBuilder();
            for (String h : headers) {
                more.append(' ').append(h).append(": ").append(a.headers().allValues(h));
            }
            return a.status() + " Content-Type: " + a.contentType() + location + more + "\n" + body;
        }
    }
}
