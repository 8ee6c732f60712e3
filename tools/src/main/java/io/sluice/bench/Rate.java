package io.sluice.bench;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * An open-loop arrival rate ({@code --rate}): requests per second, or a percentage of the closed-loop peak
 * (requests per second) that the same mode and api reached in the same round.
 *
 * @param value   requests per second, or the percentage
 * @param percent whether {@code value} is a percentage of the closed-loop peak
 */
public record Rate(double value, boolean percent) {
    public Rate {
        if (!(value > 0) || value > (percent ? 1_000 : 1_000_000)) {
            throw new IllegalArgumentException("a rate must be in (0, 1000000] requests/s or (0, 1000]% of the"
                    + " closed-loop peak, got " + value + (percent ? "%" : ""));
        }
    }

    /** {@code 3000} (requests/s) or {@code 50%} (of the closed-loop peak). */
    public static Rate parse(String text) {
        String t = text.strip();
        boolean percent = t.endsWith("%");
        String number = percent ? t.substring(0, t.length() - 1).strip() : t;
        try {
            return new Rate(Double.parseDouble(number), percent);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("a rate is requests/s (3000) or a percentage of the closed-loop peak"
                    + " (50%), not '" + text + "'");
        }
    }

    /** Parses a comma-separated list such as {@code 50%,80%,3000}; order is kept, duplicates are an error. */
    public static List<Rate> parseList(String text) {
        List<Rate> rates = new ArrayList<>();
        for (String part : text.split(",")) {
            if (part.isBlank()) {
                continue;
            }
            Rate r = parse(part);
            if (rates.contains(r)) {
                throw new IllegalArgumentException("rate '" + r.label() + "' is listed twice in '" + text + "'");
            }
            rates.add(r);
        }
        if (rates.isEmpty()) {
            throw new IllegalArgumentException("no rate given in '" + text + "'");
        }
        return List.copyOf(rates);
    }

    /** The arrival rate in requests/s, given the closed-loop peak in requests/s of the same mode and api. */
    public double perSecond(double closedLoopPeak) {
        return percent ? value / 100 * closedLoopPeak : value;
    }

    /** {@code 50%} or {@code 3000/s}. */
    public String label() {
        String v = value == Math.rint(value) ? Long.toString((long) value) : String.format(Locale.ROOT, "%.2f", value);
        return percent ? v + "%" : v + "/s";
    }
}
