package io.sluice.security;

import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.Locale;

/**
 * What a client presents: a user name and password (HTTP Basic, a driver's basic token) or a bearer token. The
 * password is held only as long as the check takes; {@code toString()} never shows it.
 */
public sealed interface Credentials {

    record Basic(String user, String password) implements Credentials {
        @Override
        public String toString() {
            return "Basic[user=" + user + "]";
        }
    }

    record Bearer(String token) implements Credentials {
        @Override
        public String toString() {
            return "Bearer[...]";
        }
    }

    /** What an {@code Authorization} header holds. */
    sealed interface Header {
        /** No header at all. */
        record Missing() implements Header {}

        /** A header Neo4j would not parse: 400 {@code Neo.ClientError.Request.InvalidFormat}. */
        record Malformed() implements Header {}

        record Present(Credentials credentials) implements Header {}
    }

    /**
     * Parses an {@code Authorization} header as Neo4j's HTTP server does: the scheme is the first word, any case;
     * Basic takes the last word, Base64 of {@code user:password}, split at the first colon (no colon, bad Base64,
     * or nothing at all is malformed); Bearer takes exactly one more word. Any other scheme is malformed.
     */
    static Header parse(String header) {
        if (header == null) {
            return new Header.Missing();
        }
        String[] words = header.trim().split(" ");
        if (words.length < 2 || words[0].isEmpty()) {
            return new Header.Malformed();
        }
        switch (words[0].toUpperCase(Locale.ROOT)) {
            case "BASIC" -> {
                String decoded;
                try {
                    decoded = new String(Base64.getDecoder().decode(words[words.length - 1]), StandardCharsets.UTF_8);
                } catch (IllegalArgumentException e) {
                    return new Header.Malformed();
                }
                int colon = decoded.indexOf(':');
                if (colon < 0) {
                    return new Header.Malformed();
                }
                return new Header.Present(new Basic(decoded.substring(0, colon), decoded.substring(colon + 1)));
            }
            case "BEARER" -> {
                return words.length == 2 ? new Header.Present(new Bearer(words[1])) : new Header.Malformed();
            }
            default -> {
                return new Header.Malformed();
            }
        }
    }
}
