package io.sluice.config;

import static java.util.Objects.requireNonNull;
import static java.util.Objects.requireNonNullElse;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonProperty;
import java.util.Locale;

/**
 * {@code tls}: TLS from one PEM certificate chain and PKCS#8 key (the shape of Neo4j's SSL policies), files that
 * {@code certificate} and {@code privateKey} name (null: not set). {@code https}: an HTTPS listener
 * ({@code HOST:PORT}; null: none); {@code http}: keep the plain HTTP listener (false: HTTPS only); {@code bolt}: TLS
 * on the embedded Bolt connector.
 */
public record Tls(String certificate, String privateKey, String https, boolean http, Bolt bolt)
        implements Section {
    /** TLS on the embedded Bolt connector: {@code off}, {@code optional} or {@code required}. */
    public enum Bolt {
        OFF, OPTIONAL, REQUIRED;

        /** The value a file names, in lower case as the README writes it. */
        static Bolt parse(String text) {
            for (Bolt b : values()) {
                if (b.name().toLowerCase(Locale.ROOT).equals(text)) {
                    return b;
                }
            }
            throw new IllegalArgumentException("tls.bolt must be off, optional or required, got '" + text + "'");
        }
    }

    public static final Tls DEFAULT = new Tls(null, null, null, true, Bolt.OFF);

    public Tls {
        requireNonNull(bolt, "tls.bolt");
        boolean wanted = https != null || bolt != Bolt.OFF;
        if (wanted && (certificate == null || privateKey == null)) {
            throw new IllegalArgumentException("tls.https and tls.bolt need tls.certificate and tls.private_key"
                    + " (PEM files)");
        }
        if (!http && https == null) {
            throw new IllegalArgumentException("tls.http: false turns plain HTTP off; it needs tls.https");
        }
    }

    @JsonCreator
    static Tls fromYaml(@JsonProperty("certificate") String certificate,
            @JsonProperty("private_key") String privateKey, @JsonProperty("https") String https,
            @JsonProperty("http") Boolean http, @JsonProperty("bolt") String bolt) {
        return new Tls(certificate, privateKey, https, requireNonNullElse(http, DEFAULT.http),
                bolt == null ? DEFAULT.bolt : Bolt.parse(bolt));
    }

    /** The same with an HTTPS listener at {@code https} ({@code HOST:PORT}). */
    public Tls withHttps(String https) {
        return new Tls(certificate, privateKey, https, http, bolt);
    }
}
