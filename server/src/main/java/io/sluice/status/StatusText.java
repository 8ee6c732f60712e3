package io.sluice.status;

import com.fasterxml.jackson.databind.JsonNode;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * {@code sluice status}'s page: what a running sluice's {@code GET /status} says (health and the last minutes of its
 * metrics), as text for a terminal. Rates are taken over the last {@link #WINDOW_MS} of samples (counters are totals
 * in /status); latencies are the server's quantiles over its last ~20 s. A pure function of the JSON, so tests give
 * it any document.
 */
public final class StatusText {
    /** Rates are over this much of the newest samples (or all of them, when fewer). */
    static final long WINDOW_MS = 10_000;
    private static final Pattern SERIES = Pattern.compile("([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\\{(.*)})?");
    private static final Pattern LABEL = Pattern.compile("([a-zA-Z_][a-zA-Z0-9_]*)=\"((?:[^\"\\\\]|\\\\.)*)\"");
    private static final DateTimeFormatter CLOCK = DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss 'UTC'")
            .withZone(ZoneOffset.UTC);

    private StatusText() {}

    /** One series of /status: its name, labels and values (null where it did not exist). */
    record Series(String name, Map<String, String> labels, List<Double> values) {
        Double last() {
            for (int i = values.size() - 1; i >= 0; i--) {
                if (values.get(i) != null) {
                    return values.get(i);
                }
            }
            return null;
        }
    }

    /** The page for {@code status} (a /status document) of the sluice at {@code url}. */
    public static String render(String url, JsonNode status) {
        JsonNode health = status.path("health");
        List<Long> t = new ArrayList<>();
        status.path("t").forEach(x -> t.add(x.asLong()));
        List<Series> series = parse(status.path("series"));
        int to = t.size() - 1;
        int from = to;
        while (from > 0 && t.get(to) - t.get(from - 1) <= WINDOW_MS) {
            from--;
        }
        double seconds = to > from ? (t.get(to) - t.get(from)) / 1000.0 : 0;
        StringBuilder out = new StringBuilder();
        out.append(String.format(Locale.ROOT, "sluice at %s: %s   %s%n", url, health.path("status").asText("?"),
                t.isEmpty() ? "" : CLOCK.format(Instant.ofEpochMilli(t.get(to)))));
        if ("WARMING".equals(health.path("status").asText())) {
            out.append("           writes are accepted; WARMING (503 on /health) only holds back load balancers until"
                    + " the warm-up ends\n");
        }
        out.append(String.format(Locale.ROOT, "sink       %s (%s)%n", health.path("sink").asText("?"),
                value(series, "sluice_sink_up", Map.of()) == 1.0 ? "answering" : "NOT answering"));
        if (seconds <= 0) {
            out.append("rates      (waiting for a second sample)\n");
        } else {
            String window = String.format(Locale.ROOT, "(last %.0f s)", seconds);
            Map<String, Double> byMode = sumRates(series, "sluice_rows_total", "mode", from, to, seconds);
            out.append(String.format(Locale.ROOT, "rows/s     %s %s%n", listing(byMode, "%,.0f"), window));
            Map<String, Double> byClass = new TreeMap<>();
            sumRates(series, "sluice_requests_total", "status", from, to, seconds).forEach((code, r) ->
                    byClass.merge(code.equals("503") ? "503" : code.charAt(0) + "xx", r, Double::sum));
            out.append(String.format(Locale.ROOT, "answers/s  %s%n", listing(byClass, "%,.1f")));
            Map<String, Double> retries = sumRates(series, "sluice_transient_retries_total", "code", from, to,
                    seconds);
            out.append(String.format(Locale.ROOT, "retries/s  %s%n", listing(shortCodes(retries), "%,.2f")));
            Map<String, Double> failures = sumRates(series, "sluice_write_failures_total", "code", from, to, seconds);
            if (!failures.isEmpty()) {
                out.append(String.format(Locale.ROOT, "failed/s   %s%n", listing(shortCodes(failures), "%,.2f")));
            }
        }
        StringBuilder latency = new StringBuilder();
        for (Series s : series) {
            if (s.name().equals("sluice_request_latency_seconds") && "0.5".equals(s.labels().get("quantile"))
                    && total(series, "sluice_requests_total", "mode", s.labels().get("mode")) > 0) {
                String mode = s.labels().get("mode");
                Double p99 = value(series, "sluice_request_latency_seconds", Map.of("mode", mode, "quantile", "0.99"));
                latency.append(String.format(Locale.ROOT, "  %s p50 %s p99 %s", mode, ms(s.last()), ms(p99)));
            }
        }
        out.append("latency ms").append(latency.isEmpty() ? "  (no requests yet)" : latency).append('\n');
        out.append(String.format(Locale.ROOT, "batches    rows/tx p50 %s   commit ms p50 %s p99 %s%n",
                number(value(series, "sluice_batch_rows", Map.of("quantile", "0.5"))),
                ms(value(series, "sluice_commit_seconds", Map.of("quantile", "0.5"))),
                ms(value(series, "sluice_commit_seconds", Map.of("quantile", "0.99")))));
        out.append(String.format(Locale.ROOT, "pending    %s rows   open transactions %s%n",
                number(value(series, "sluice_pending_rows", Map.of())),
                number(value(series, "sluice_transactions_open", Map.of()))));
        out.append(String.format(Locale.ROOT, "journal    %s: lag %s rows   dead letters %s%n",
                health.path("journal").asText("?") + (health.has("kafka_topic") ? " " + health.path("kafka_topic")
                        .asText() : ""),
                number(value(series, "sluice_journal_lag_rows", Map.of())),
                number(value(series, "sluice_dead_letters", Map.of()))));
        bolt(out, series, from, to, seconds);
        sources(out, health, series, from, to, seconds);
        templates(out, series, from, to, seconds);
        return out.toString();
    }

    /**
     * The Bolt front end: connections open now, messages and failures a second. Left out while Bolt has not been
     * used (no connection open and no message ever counted: its series are exported at zero from the start, and a
     * server without a Bolt listener has them too), as unused templates are.
     */
    private static void bolt(StringBuilder out, List<Series> series, int from, int to, double seconds) {
        Double open = value(series, "sluice_bolt_connections", Map.of());
        double messages = 0;
        for (Series s : series) {
            if (s.name().equals("sluice_bolt_messages_total") && s.last() != null) {
                messages += s.last();
            }
        }
        if ((open == null || open == 0) && messages == 0) {
            return;
        }
        out.append(String.format(Locale.ROOT, "bolt       %s connections", number(open)));
        if (seconds > 0) {
            double perSecond = sumRates(series, "sluice_bolt_messages_total", "message", from, to, seconds).values()
                    .stream().mapToDouble(Double::doubleValue).sum();
            Map<String, Double> failures = sumRates(series, "sluice_bolt_failures_total", "code", from, to, seconds);
            out.append(String.format(Locale.ROOT, "   messages/s %,.1f   failures/s %s", perSecond,
                    listing(shortCodes(failures), "%,.2f")));
        }
        out.append('\n');
    }

    /**
     * Application topics in ({@code sources.kafka}): the lag of the partitions applied here (records summed, the
     * oldest unapplied record's age at its worst), records applied a second, and the records dead-lettered and the
     * holds (a partition stopped at a record) of the window; then each paused partition with /health's reason. Left
     * out on a server without sources (no source series); shown at zero once they are configured (their counters
     * are exported at zero per topic). A partition another instance applies reads NaN here and counts for nothing.
     */
    private static void sources(StringBuilder out, JsonNode health, List<Series> series, int from, int to,
            double seconds) {
        boolean any = false;
        double records = 0;
        Double oldest = null;
        boolean applying = false;
        for (Series s : series) {
            if (!s.name().startsWith("sluice_source_")) {
                continue;
            }
            any = true;
            Double v = s.last();
            if (v == null || v.isNaN()) {
                continue;
            }
            if (s.name().equals("sluice_source_lag_records")) {
                records += v;
                applying = true;
            } else if (s.name().equals("sluice_source_lag_seconds")) {
                oldest = oldest == null ? v : Math.max(oldest, v);
            }
        }
        debezium(out, health);
        if (!any) {
            return;
        }
        out.append("sources    ").append(applying ? String.format(Locale.ROOT, "lag %s records, oldest %s",
                number(records), oldest == null ? "-" : String.format(Locale.ROOT, "%,.1f s", oldest))
                : "no partition applied here");
        if (seconds > 0) {
            out.append(String.format(Locale.ROOT, "   applied/s %,.1f   dead-lettered %s   held %s",
                    increase(series, "sluice_source_records_total", "outcome", "applied", from, to) / seconds,
                    number(increase(series, "sluice_source_records_total", "outcome", "dead_lettered", from, to)),
                    number(increase(series, "sluice_source_records_total", "outcome", "held", from, to))));
        }
        out.append('\n');
        for (JsonNode p : health.path("sources").path("partitions")) {
            if ("paused".equals(p.path("state").asText())) {
                out.append(String.format(Locale.ROOT, "           %s[%d] paused: %s%n", p.path("topic").asText(),
                        p.path("partition").asInt(), p.path("reason").asText("no reason given")));
            }
        }
    }

    /**
     * Each Debezium stream applying whole source transactions (/health's {@code sources.debezium}): the log position
     * applied, the transactions waiting for their events, the oldest unapplied commit's age, and the copies a
     * connector's redelivery sent that were dropped.
     */
    private static void debezium(StringBuilder out, JsonNode health) {
        for (JsonNode d : health.path("sources").path("debezium")) {
            out.append(String.format(Locale.ROOT, "debezium   %s: %s, %s units applied, %s waiting, oldest unapplied"
                    + " %,.1f s, %s copies dropped%n", d.path("prefix").asText(), d.path("running").asBoolean()
                    ? "at commit " + d.path("last_commit").asText("-") : "STOPPED", number(d.path("units_applied")
                    .asDouble()), number(d.path("waiting").asDouble()), d.path("oldest_unapplied_seconds").asDouble(),
                    number(d.path("duplicates_dropped").asDouble())));
        }
    }

    private static void templates(StringBuilder out, List<Series> series, int from, int to, double seconds) {
        Map<String, double[]> rows = new TreeMap<>(); // template -> requests/s, rows/s, errors/s, p50, p99
        for (Series s : series) {
            String template = s.labels().get("template");
            if (template == null) {
                continue;
            }
            double[] r = rows.computeIfAbsent(template, k -> new double[] {0, 0, 0, Double.NaN, Double.NaN});
            double rate = seconds > 0 ? rate(s, from, to, seconds) : 0;
            switch (s.name()) {
                case "sluice_template_requests_total" -> {
                    r[0] += rate;
                    if (!s.labels().getOrDefault("status", "").startsWith("2")) {
                        r[2] += rate;
                    }
                }
                case "sluice_template_rows_total" -> r[1] += rate;
                case "sluice_template_latency_seconds" -> {
                    Double v = s.last();
                    if ("0.5".equals(s.labels().get("quantile")) && v != null) {
                        r[3] = v;
                    } else if ("0.99".equals(s.labels().get("quantile")) && v != null) {
                        r[4] = v;
                    }
                }
                default -> { }
            }
        }
        // a template (or raw Cypher) never used yet: exported at zero from the start, not news here
        rows.keySet().removeIf(t -> total(series, "sluice_template_requests_total", "template", t) == 0);
        if (rows.isEmpty()) {
            return;
        }
        out.append(String.format(Locale.ROOT, "%-24s %10s %10s %9s %9s %9s%n", "template", "req/s", "rows/s",
                "errors/s", "p50 ms", "p99 ms"));
        rows.forEach((name, r) -> out.append(String.format(Locale.ROOT, "%-24s %10.1f %10.1f %9.2f %9s %9s%n",
                name, r[0], r[1], r[2], Double.isNaN(r[3]) ? "-" : ms(r[3]), Double.isNaN(r[4]) ? "-" : ms(r[4]))));
    }

    static List<Series> parse(JsonNode seriesNode) {
        List<Series> out = new ArrayList<>();
        for (Map.Entry<String, JsonNode> e : seriesNode.properties()) {
            Matcher m = SERIES.matcher(e.getKey());
            if (!m.matches()) {
                continue;
            }
            Map<String, String> labels = new LinkedHashMap<>();
            if (m.group(2) != null) {
                Matcher l = LABEL.matcher(m.group(2));
                while (l.find()) {
                    labels.put(l.group(1), l.group(2).replace("\\\"", "\"").replace("\\\\", "\\"));
                }
            }
            List<Double> values = new ArrayList<>();
            e.getValue().forEach(v -> values.add(v.isNull() ? null : v.asDouble()));
            out.add(new Series(m.group(1), labels, values));
        }
        return out;
    }

    /** The newest value of the series {@code name} whose labels include {@code labels}; null if none. */
    static Double value(List<Series> series, String name, Map<String, String> labels) {
        for (Series s : series) {
            if (s.name().equals(name) && s.labels().entrySet().containsAll(labels.entrySet())) {
                return s.last();
            }
        }
        return null;
    }

    /** Per value of {@code label}, the summed per-second rates of the counter {@code name} over [from, to]. */
    static Map<String, Double> sumRates(List<Series> series, String name, String label, int from, int to,
            double seconds) {
        Map<String, Double> out = new TreeMap<>();
        for (Series s : series) {
            if (s.name().equals(name)) {
                out.merge(s.labels().getOrDefault(label, ""), rate(s, from, to, seconds), Double::sum);
            }
        }
        // the series a server exports at zero from the start (every mode, status and code) are not news here
        out.values().removeIf(v -> v == 0);
        return out;
    }

    /** The newest value of {@code name}'s series whose {@code label} is {@code value}, summed: 0 for one never counted. */
    static double total(List<Series> series, String name, String label, String value) {
        double sum = 0;
        for (Series s : series) {
            if (s.name().equals(name) && value.equals(s.labels().get(label)) && s.last() != null) {
                sum += s.last();
            }
        }
        return sum;
    }

    /** A counter's rate between samples {@code from} and {@code to}; a series born in between counts from 0. */
    static double rate(Series s, int from, int to, double seconds) {
        return increase(s, from, to) / seconds;
    }

    /** A counter's increase between samples {@code from} and {@code to}; a series born in between counts from 0. */
    static double increase(Series s, int from, int to) {
        Double end = s.values().size() > to ? s.values().get(to) : null;
        Double start = s.values().size() > from ? s.values().get(from) : null;
        if (end == null) {
            return 0;
        }
        return Math.max(0, end - (start == null ? 0 : start));
    }

    /** The summed increases between samples {@code from} and {@code to} of {@code name}'s series with {@code label=value}. */
    static double increase(List<Series> series, String name, String label, String value, int from, int to) {
        double sum = 0;
        for (Series s : series) {
            if (s.name().equals(name) && value.equals(s.labels().get(label))) {
                sum += increase(s, from, to);
            }
        }
        return sum;
    }

    private static Map<String, Double> shortCodes(Map<String, Double> byCode) {
        Map<String, Double> out = new TreeMap<>();
        byCode.forEach((code, r) -> out.merge(code.substring(code.lastIndexOf('.') + 1), r, Double::sum));
        return out;
    }

    private static String listing(Map<String, Double> values, String format) {
        if (values.isEmpty()) {
            return "none";
        }
        StringBuilder b = new StringBuilder();
        values.forEach((k, v) -> b.append(b.isEmpty() ? "" : "   ").append(k).append(' ')
                .append(String.format(Locale.ROOT, format, v)));
        return b.toString();
    }

    private static String ms(Double seconds) {
        return seconds == null || seconds.isNaN() ? "-" : String.format(Locale.ROOT, "%.1f", seconds * 1000);
    }

    private static String number(Double v) {
        return v == null || v.isNaN() ? "-" : String.format(Locale.ROOT, "%,.0f", v);
    }
}
