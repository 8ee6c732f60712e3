package io.sluice.bolt;

import io.sluice.vocab.Committed;
import io.sluice.vocab.Neo4jError;
import io.sluice.vocab.Neo4jStatus;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.Base64;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.function.Supplier;

/**
 * Bookmarks in Neo4j's own format, so a driver's bookmark manager can hand one from sluice to Neo4j or back:
 * {@code "FB:"} and the Base64 of the PackStream values {@code 91 CC 10 <database uuid, 16 bytes> <last
 * transaction id> 90} (one internal graph state: the database and its transaction; no external ones), as
 * Neo4j 2026.08 writes them (docs/reference/neo4j-bolt-behaviour.md, Surprise 6).
 *
 * <p>A commit answers the database's last committed transaction, which is at or after the commit's own. A
 * bookmark a client sends is only checked to be one of this form ({@code InvalidBookmark} otherwise, as Neo4j):
 * sluice fronts one database whose every acknowledged write is committed before it is acknowledged, so a read
 * through it never needs to wait for one. Stateless.
 */
final class Bookmarks {
    private static final String PREFIX = "FB:";
    private final Supplier<Optional<Committed>> committed;

    Bookmarks(Supplier<Optional<Committed>> committed) {
        this.committed = committed;
    }

    /** After a commit: the bookmark that orders later work after it; null where the sink cannot tell. */
    String current() {
        return committed.get().map(Bookmarks::format).orElse(null);
    }

    static String format(Committed c) {
        PackStream.Packer p = new PackStream.Packer();
        byte[] uuid = ByteBuffer.allocate(16).putLong(c.database().getMostSignificantBits())
                .putLong(c.database().getLeastSignificantBits()).array();
        byte[] state = p.pack(uuid).pack(c.transaction()).bytes();
        byte[] out = new byte[state.length + 2];
        out[0] = (byte) 0x91; // one internal state
        System.arraycopy(state, 0, out, 1, state.length);
        out[out.length - 1] = (byte) 0x90; // no external ones
        return PREFIX + Base64.getEncoder().encodeToString(out);
    }

    /** The first of {@code bookmarks} (BEGIN's, RUN's extra) that is not a bookmark of Neo4j's form, as an error. */
    static Neo4jError check(Object bookmarks) {
        if (bookmarks == null) {
            return null;
        }
        if (!(bookmarks instanceof List<?> list)) {
            return invalid("bookmarks must be a list of strings");
        }
        for (Object b : list) {
            if (!(b instanceof String s) || parse(s) == null) {
                return invalid("Parsing of supplied bookmarks failed: " + Messages.describe(b) + " is not a bookmark");
            }
        }
        return null;
    }

    /** The states a bookmark names, or null when it is not of Neo4j's form. */
    static Committed parse(String bookmark) {
        if (!bookmark.startsWith(PREFIX)) {
            return null;
        }
        try {
            byte[] b = Base64.getDecoder().decode(bookmark.substring(PREFIX.length()));
            if (b.length < 2 || (b[0] & 0xF0) != 0x90) {
                return null;
            }
            int states = b[0] & 0x0F;
            PackStream.Unpacker u = new PackStream.Unpacker(Arrays.copyOfRange(b, 1, b.length),
                    PackStream.Limits.DEFAULT);
            Committed last = new Committed(new UUID(0, 0), 0);
            for (int i = 0; i < states; i++) {
                if (!(u.unpack() instanceof byte[] id) || id.length != 16 || !(u.unpack() instanceof Long tx)) {
                    return null;
                }
                ByteBuffer buf = ByteBuffer.wrap(id);
                last = new Committed(new UUID(buf.getLong(), buf.getLong()), tx);
            }
            return u.unpack() instanceof List<?> && u.done() ? last : null;
        } catch (IllegalArgumentException | PackStream.PackStreamException e) {
            return null;
        }
    }

    private static Neo4jError invalid(String message) {
        return new Neo4jError(Neo4jStatus.Transaction.INVALID_BOOKMARK, message);
    }
}
