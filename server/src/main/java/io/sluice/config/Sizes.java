package io.sluice.config;

import java.time.Duration;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** Parses the human units used in the config file: byte sizes ({@code 64mb}) and durations ({@code 250ms}). */
public final class Sizes {
    private static final Pattern SIZE = Pattern.compile("(\\d+)\\s*([kmgt]?i?b?)?");
    private static final Pattern DURATION = Pattern.compile("(\\d+)\\s*(ns|us|ms|s|m|h)?");

    private Sizes() {}

    public static long bytes(String text) {
        Matcher m = SIZE.matcher(text.trim().toLowerCase(Locale.ROOT));
        if (!m.matches()) {
            throw new IllegalArgumentException("not a byte size: '" + text + "' (use e.g. 512k, 64mb, 2g)");
        }
        long n = Long.parseLong(m.group(1));
        String unit = m.group(2) == null ? "" : m.group(2);
        return switch (unit.isEmpty() ? ' ' : unit.charAt(0)) {
            case 'k' -> n << 10;
            case 'm' -> n << 20;
            case 'g' -> n << 30;
            case 't' -> n << 40;
            default -> n;
        };
    }

    public static Duration duration(String text) {
        Matcher m = DURATION.matcher(text.trim().toLowerCase(Locale.ROOT));
        if (!m.matches()) {
            throw new IllegalArgumentException("not a duration: '" + text + "' (use e.g. 500us, 2ms, 5s, 1m)");
        }
        long n = Long.parseLong(m.group(1));
        String unit = m.group(2) == null ? "ms" : m.group(2);
        return switch (unit) {
            case "ns" -> Duration.ofNanos(n);
            case "us" -> Duration.ofNanos(n * 1000);
            case "ms" -> Duration.ofMillis(n);
            case "s" -> Duration.ofSeconds(n);
            case "m" -> Duration.ofMinutes(n);
            default -> Duration.ofHours(n);
        };
    }
}
