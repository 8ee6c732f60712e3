package io.sluice.sink;

import io.sluice.vocab.GraphException;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.neo4j.driver.Driver;
import org.neo4j.driver.Record;
import org.neo4j.driver.Session;
import org.neo4j.driver.SessionConfig;

/**
 * A remote batch's transaction as another thread sees it ({@link Sink.Running}), through the server's own
 * {@code SHOW TRANSACTIONS} (as sluice's account: its own transactions, and everyone's when it may see them) and
 * {@code TERMINATE TRANSACTION}, on a session of their own. The batch is found by its metadata: a marker every batch
 * carries, and an id of its own.
 */
final class BoltRunning implements Sink.Running {
    private static final String SHOW = "SHOW TRANSACTIONS YIELD transactionId, status, metaData";
    /** {@code SHOW TRANSACTIONS}' status of a transaction waiting for locks: {@code Blocked by: [id, id]}. */
    private static final Pattern BLOCKED = Pattern.compile("^Blocked by: \\[(.*)]$");

    private final Driver driver;
    private final SessionConfig session;
    /** Its own among every batch on the server: the sink's id (one random draw per sink) and a count. */
    private final String id;
    /** The server's id of its transaction, once {@link #blockedByOther} has seen it. */
    private volatile String serverId;

    BoltRunning(Driver driver, SessionConfig session, String id) {
        this.driver = driver;
        this.session = session;
        this.id = id;
    }

    /** The metadata its transaction begins with. */
    Map<String, Object> metadata() {
        return Map.of("sluice", "batch", "batch", id);
    }

    @Override
    public boolean blockedByOther() throws GraphException {
        Map<String, Record> byId = new HashMap<>();
        Record mine = null;
        for (Record r : show()) {
            byId.put(r.get("transactionId").asString(), r);
            if (id.equals(r.get("metaData").get("batch").asString(null))) {
                mine = r;
            }
        }
        if (mine == null) {
            return false; // finished
        }
        serverId = mine.get("transactionId").asString();
        Matcher m = BLOCKED.matcher(mine.get("status").asString(""));
        if (!m.matches()) {
            return false;
        }
        for (String blocker : m.group(1).split(",\\s*")) {
            Record r = byId.get(blocker.trim());
            // one it may not see is not one of its batches (they all run as sluice's account)
            if (r == null || !"batch".equals(r.get("metaData").get("sluice").asString(null))) {
                return true;
            }
        }
        return false;
    }

    /** Ends it by the server's id for it, as {@link #blockedByOther} last found it (a transaction keeps its id). */
    @Override
    public boolean terminate() throws GraphException {
        String target = serverId;
        if (target == null) {
            return false; // never seen running: nothing to end
        }
        try (Session s = driver.session(session)) {
            List<Record> out = s.run("TERMINATE TRANSACTION $id", Map.of("id", target)).list();
            return !out.isEmpty() && out.getFirst().get("message").asString("").startsWith("Transaction terminated");
        } catch (RuntimeException e) {
            throw BoltErrors.translate(e, false);
        }
    }

    private List<Record> show() throws GraphException {
        try (Session s = driver.session(session)) {
            return s.run(SHOW).list();
        } catch (RuntimeException e) {
            throw BoltErrors.translate(e, false);
        }
    }
}
