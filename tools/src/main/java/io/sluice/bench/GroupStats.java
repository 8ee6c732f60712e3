package io.sluice.bench;

import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

/**
 * What a sluice's groups of managed transactions did in a window (issue 29), from two readings of its
 * {@code /metrics}: groups committed and aborted, their members, and the aborts by cause. The abort rate the bench
 * reports is the share of grouped members whose group aborted (each of them retried by its driver).
 */
record GroupStats(double committed, double aborted, double committedMembers, double abortedMembers,
        Map<String, Double> causes, Map<String, Double> evictions, double replayed) {
    static final GroupStats NONE = new GroupStats(0, 0, 0, 0, Map.of(), Map.of(), 0);

    /** Parses a Prometheus scrape. */
    static GroupStats parse(String scrape) {
        double committed = 0;
        double aborted = 0;
        double committedMembers = 0;
        double abortedMembers = 0;
        Map<String, Double> causes = new TreeMap<>();
        Map<String, Double> evictions = new TreeMap<>();
        double replayed = 0;
        for (String line : scrape.split("\n")) {
            int space = line.lastIndexOf(' ');
            if (line.startsWith("#") || space < 0) {
                continue;
            }
            String series = line.substring(0, space);
            double v;
            try {
                v = Double.parseDouble(line.substring(space + 1).trim());
            } catch (NumberFormatException e) {
                continue;
            }
            switch (series) {
                case "sluice_groups_total{outcome=\"committed\"}" -> committed = v;
                case "sluice_groups_total{outcome=\"aborted\"}" -> aborted = v;
                case "sluice_group_members_sum{outcome=\"committed\"}" -> committedMembers = v;
                case "sluice_group_members_sum{outcome=\"aborted\"}" -> abortedMembers = v;
                case "sluice_group_replayed_statements_total" -> replayed = v;
                default -> {
                    String prefix = "sluice_group_aborts_total{cause=\"";
                    if (series.startsWith(prefix) && series.endsWith("\"}")) {
                        causes.put(series.substring(prefix.length(), series.length() - 2), v);
                    }
                    String evicted = "sluice_group_evictions_total{cause=\"";
                    if (series.startsWith(evicted) && series.endsWith("\"}")) {
                        evictions.put(series.substring(evicted.length(), series.length() - 2), v);
                    }
                }
            }
        }
        return new GroupStats(committed, aborted, committedMembers, abortedMembers, causes, evictions, replayed);
    }

    GroupStats minus(GroupStats o) {
        Map<String, Double> c = new TreeMap<>();
        causes.forEach((k, v) -> c.put(k, v - o.causes.getOrDefault(k, 0.0)));
        Map<String, Double> e = new TreeMap<>();
        evictions.forEach((k, v) -> e.put(k, v - o.evictions.getOrDefault(k, 0.0)));
        return new GroupStats(committed - o.committed, aborted - o.aborted, committedMembers - o.committedMembers,
                abortedMembers - o.abortedMembers, c, e, replayed - o.replayed);
    }

    boolean any() {
        return committed + aborted > 0;
    }

    /** Members told to retry: those of aborted groups, and those whose results changed on a replay. */
    double retried() {
        return abortedMembers + evictions.getOrDefault("replay_mismatch", 0.0);
    }

    /** The share of grouped members told to retry. */
    double abortRate() {
        double all = committedMembers + retried();
        return all == 0 ? 0 : retried() / all;
    }

    String describe() {
        StringBuilder why = new StringBuilder();
        causes.forEach((k, v) -> {
            if (v > 0) {
                why.append(why.isEmpty() ? "" : ", ").append(k).append(' ').append(String.format(Locale.ROOT, "%,.0f", v));
            }
        });
        StringBuilder out = new StringBuilder();
        evictions.forEach((k, v) -> {
            if (v > 0) {
                out.append(out.isEmpty() ? "" : ", ").append(k).append(' ').append(String.format(Locale.ROOT, "%,.0f", v));
            }
        });
        return String.format(Locale.ROOT, "groups: %,.0f committed (%.1f members each, %,.0f members), %,.0f aborted"
                + " (%,.0f members%s); members taken out (%s), %,.0f statements replayed; abort rate %.2f%% of grouped"
                + " members (told to retry)", committed, committed == 0 ? 0 : committedMembers / committed,
                committedMembers, aborted, abortedMembers, why.isEmpty() ? "" : ": " + why,
                out.isEmpty() ? "none" : out, replayed, 100 * abortRate());
    }
}
