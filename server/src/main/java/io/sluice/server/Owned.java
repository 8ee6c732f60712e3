package io.sluice.server;

import java.util.ArrayDeque;
import java.util.Deque;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The parts a start-up has created so far, each with how to close it. {@link #close} closes them in reverse
 * order of creation, each exactly once, and goes on past a part that fails to close (logged), so a failed
 * start-up leaves nothing behind and a stop stops everything. Each part's own close bounds its wait.
 * Not thread-safe: one start-up or one stop uses it.
 */
final class Owned implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(Owned.class);

    private record Part(String name, AutoCloseable closer) {}

    private final Deque<Part> parts = new ArrayDeque<>();

    /** Records {@code part} (or a lambda that closes one), to be closed by its {@code close}; returns it. */
    <T extends AutoCloseable> T add(String name, T part) {
        parts.push(new Part(name, part));
        return part;
    }

    @Override
    public void close() {
        while (!parts.isEmpty()) {
            Part p = parts.pop();
            try {
                p.closer().close();
            } catch (Exception | Error e) {
                log.error("closing {} failed; going on with the rest", p.name(), e);
            }
        }
    }
}
