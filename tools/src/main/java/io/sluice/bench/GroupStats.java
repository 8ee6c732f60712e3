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
        Map<String, Double> causes) {
    static final GroupStats NONE = new GroupStats(0, 0, 0, 0, Map.of());

    /** Parses a Prometheus scrape. */
    static GroupStats parse(String scrape) {
        double committed = 0;
        double aborted = 0;
        double committedMembers = 0;
        double abortedMembers = 0;
        Map<String, Double> causes = new TreeMap<>();
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
                default -> {
                    String prefix = "sluice_group_aborts_total{cause=\"";
                    if (series.startsWith(prefix) && series.endsWith("\"}")) {
                        causes.put(series.substring(prefix.length(), series.length() - 2), v);
                    }
                }
            }
        }
        return new GroupStats(committed, aborted, committedMembers, abortedMembers, causes);
    }

    GroupStats minus(GroupStats o) {
        Map<String, Double> c = new TreeMap<>();
        causes.forEach((k, v) -> c.put(k, v - o.causes.getOrDefault(k, 0.0)));
        return new GroupStats(committed - o.committed, aborted - o.aborted, committedMembers - o.committedMembers,
                abortedMembers - o.abortedMembers, c);
    }

    boolean any() {
        return committed + aborted > 0;
    }

    /** The share of grouped members whose group aborted. */
    double abortRate() {
        double all = committedMembers + abortedMembers;
        return all == 0 ? 0 : abortedMembers / all;
    }

    String describe() {
        StringBuilder why = new StringBuilder();
        causes.forEach((k, v) -> {
            if (v > 0) {
                why.append(why.isEmpty() ? "" : ", ").append(k).append(' ').append(String.format(Locale.ROOT, "%,.0f", v));
            }
        });
        return String.format(Locale.ROOT, "groups: %,.0f committed (%.1f members each, %,.0f members), %,.0f aborted"
                + " (%,.0f members; abort rate %.2f%% of grouped members%s)", committed,
                committed == 0 ? 0 : committedMembers / committed, committedMembers, aborted, abortedMembers,
                100 * abortRate(), why.isEmpty() ? "" : ": " + why);
    }
}
