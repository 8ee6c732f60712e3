package io.sluice.front;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * The server's doors, in the order it built them (the order they start in), registered as each is built. Given
 * to the gateway when the write path is built, before any door exists, so that {@code /health} reports what the
 * doors add ({@link Door#health}) without anyone setting it afterwards. Thread-safe: the server adds on its
 * start-up thread while {@code /health} may read on any.
 */
public final class Doors {
    private final List<Door> doors = new CopyOnWriteArrayList<>();

    /** Registers {@code door} (last); returns it. */
    public <D extends Door> D add(D door) {
        doors.add(door);
        return door;
    }

    /** Every door registered so far, in order. */
    public List<Door> all() {
        return List.copyOf(doors);
    }

    /** The doors' sections of {@code /health}, in order; a later door's section of the same name wins. */
    public Map<String, Object> health() {
        Map<String, Object> sections = new LinkedHashMap<>();
        for (Door d : doors) {
            sections.putAll(d.health());
        }
        return sections;
    }
}
