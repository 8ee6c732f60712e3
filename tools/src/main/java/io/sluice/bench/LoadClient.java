package io.sluice.bench;

import java.util.Locale;

/** The HTTP load generator: Netty (the default: cheapest per request) or the JDK's HttpClient. */
public enum LoadClient {
    NETTY,
    JDK;

    public String label() {
        return name().toLowerCase(Locale.ROOT);
    }

    public static LoadClient parse(String text) {
        for (LoadClient c : values()) {
            if (c.label().equalsIgnoreCase(text.trim())) {
                return c;
            }
        }
        throw new IllegalArgumentException("unknown HTTP client '" + text + "'; use netty or jdk");
    }
}
