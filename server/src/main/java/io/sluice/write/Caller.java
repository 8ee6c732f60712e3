package io.sluice.write;

import io.sluice.config.Access;
import io.sluice.config.Mode;
import java.util.Objects;

/**
 * Who sent a request, resolved once by whichever front end received it (HTTP, Bolt, an in-process client): the
 * user (null when authentication is off), what they may send, and the mode their writes get when the request
 * names none. The write path decides on {@link #access()}; explicit transactions belong to {@link #owner()}.
 */
public record Caller(String user, Access access, Mode mode, boolean readSession) {
    /** An in-process client of the write path (the online importer, tests): everything, sync by default. */
    public static final Caller INTERNAL = new Caller(null, Access.CYPHER, Mode.SYNC);

    public Caller {
        Objects.requireNonNull(access, "access");
        Objects.requireNonNull(mode, "mode");
    }

    /** A caller as their user is (not narrowed to one read-only request). */
    public Caller(String user, Access access, Mode mode) {
        this(user, access, mode, false);
    }

    /** A caller with {@code access} and no name (tests, in-process callers). */
    public static Caller of(Access access) {
        return new Caller(null, access, Mode.SYNC);
    }

    /**
     * This caller for a read-only request (a Query API {@code accessMode: READ}, a driver's read session): may
     * read only, and a write is refused as Neo4j refuses one in a read transaction ({@code AccessMode}), not as a
     * user's missing permission ({@link #readSession}); a caller who may not send Cypher at all stays as they are
     * (refused either way).
     */
    public Caller readOnly() {
        return access == Access.TEMPLATES ? this : new Caller(user, Access.READ, mode, true);
    }

    /**
     * Whose explicit transactions these are: the user's name (everyone is one anonymous owner when authentication
     * is off), compared with {@code equals}, as Neo4j compares the opener's credentials.
     */
    public Object owner() {
        return user == null ? "" : user;
    }
}
