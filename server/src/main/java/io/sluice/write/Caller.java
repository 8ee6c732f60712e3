package io.sluice.write;

import io.sluice.config.Access;
import io.sluice.config.Mode;
import java.util.Objects;

/**
 * Who sent a request, resolved once by whichever front end received it (HTTP, Bolt, an in-process client): the
 * user (null when authentication is off), what they may send, and the mode their writes get when the request
 * names none. The write path decides on {@link #access()}; explicit transactions belong to {@link #owner()}.
 */
public record Caller(String user, Access access, Mode mode) {
    /** An in-process client of the write path (the online importer, tests): everything, sync by default. */
    public static final Caller INTERNAL = new Caller(null, Access.CYPHER, Mode.SYNC);

    public Caller {
        Objects.requireNonNull(access, "access");
        Objects.requireNonNull(mode, "mode");
    }

    /** A caller with {@code access} and no name (tests, in-process callers). */
    public static Caller of(Access access) {
        return new Caller(null, access, Mode.SYNC);
    }

    /**
     * This caller for a read-only request (a Query API {@code accessMode: READ}, a driver's read session): may
     * read only; a caller who may not send Cypher at all stays as they are (refused either way).
     */
    public Caller readOnly() {
        return access == Access.CYPHER ? new Caller(user, Access.READ, mode) : this;
    }

    /**
     * Whose explicit transactions these are: the user's name (everyone is one anonymous owner when authentication
     * is off), compared with {@code equals}, as Neo4j compares the opener's credentials.
     */
    public Object owner() {
        return user == null ? "" : user;
    }
}
