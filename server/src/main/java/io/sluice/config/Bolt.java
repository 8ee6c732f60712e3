package io.sluice.config;

import static java.util.Objects.requireNonNullElse;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonProperty;
import java.time.Duration;

/**
 * {@code bolt}: sluice's Bolt listener (the address is {@code --bolt}). {@code ioThreads}: its Netty event loops
 * (they frame and decode messages; the protocol runs on a virtual thread per connection), one by default, as
 * HTTP's on 2 cores. {@code keepAlive}: how often a reply held for a group commit (or a slow statement) is
 * interleaved with a NOOP chunk; drivers are told to time out after twice that
 * ({@code connection.recv_timeout_seconds}). {@code maxMessage}: the largest message a client may send, all its
 * chunks together; {@code maxString}: the longest string or byte array in one; {@code maxDepth}: how deeply
 * lists, maps and structures may nest.
 */
public record Bolt(int ioThreads, Duration keepAlive, ByteSize maxMessage, ByteSize maxString, int maxDepth)
        implements Section {
    public static final Bolt DEFAULT = new Bolt(Math.max(1, Runtime.getRuntime().availableProcessors() / 2),
            Duration.ofSeconds(60), ByteSize.parse("64m"), ByteSize.parse("16m"), 64);

    public Bolt {
        if (ioThreads < 1 || ioThreads > 256) {
            throw new IllegalArgumentException("bolt.io_threads must be in [1, 256], got " + ioThreads);
        }
        if (keepAlive.compareTo(Duration.ofMillis(100)) < 0 || keepAlive.compareTo(Duration.ofHours(1)) > 0) {
            throw new IllegalArgumentException("bolt.keep_alive must be in [100ms, 1h], got " + keepAlive);
        }
        if (maxMessage.bytes() < 1024 || maxMessage.bytes() > Integer.MAX_VALUE - 16) {
            throw new IllegalArgumentException("bolt.max_message must be in [1k, 2g), got " + maxMessage);
        }
        if (maxString.bytes() < 16 || maxString.bytes() > maxMessage.bytes()) {
            throw new IllegalArgumentException("bolt.max_string must be in [16, bolt.max_message], got " + maxString);
        }
        if (maxDepth < 2 || maxDepth > 1000) {
            throw new IllegalArgumentException("bolt.max_depth must be in [2, 1000], got " + maxDepth);
        }
    }

    @JsonCreator
    static Bolt fromYaml(@JsonProperty("io_threads") Integer ioThreads, @JsonProperty("keep_alive") Duration keepAlive,
            @JsonProperty("max_message") ByteSize maxMessage, @JsonProperty("max_string") ByteSize maxString,
            @JsonProperty("max_depth") Integer maxDepth) {
        return new Bolt(requireNonNullElse(ioThreads, DEFAULT.ioThreads), requireNonNullElse(keepAlive,
                DEFAULT.keepAlive), requireNonNullElse(maxMessage, DEFAULT.maxMessage),
                requireNonNullElse(maxString, DEFAULT.maxString), requireNonNullElse(maxDepth, DEFAULT.maxDepth));
    }
}
