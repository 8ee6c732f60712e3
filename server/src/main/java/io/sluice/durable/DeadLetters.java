package io.sluice.durable;

import io.sluice.journal.Journal;
import io.sluice.time.Time;
import io.sluice.journal.JournalRecord;
import io.sluice.vocab.Neo4jError;
import java.io.IOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Writes that failed on apply (constraint violation, type error, template gone): kept in a journal of their
 * own with the error and the original request, listed by {@code GET /db/{db}/dead-letters}. An entry is
 * fsynced before the applier moves past its record, so none is lost; after a crash at the wrong moment an
 * entry may be written twice, and listing drops the repeat (same journal offset). Thread-safe.
 */
final class DeadLetters implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(DeadLetters.class);
    private final Journal journal;
    private final Time time;
    private final AtomicLong count = new AtomicLong();

    DeadLetters(Journal journal, Time time) throws IOException {
        this.journal = journal;
        this.time = time;
        count.set(list(0, Integer.MAX_VALUE).size());
    }

    void add(long offset, Neo4jError error, byte[] request) throws IOException {
        Map<String, Object> entry = new LinkedHashMap<>();
        entry.put("offset", offset);
        entry.put("at", time.now().toString());
        entry.put("code", error.code());
        entry.put("message", error.message());
        entry.put("request", RecordCodec.toMap(request));
        journal.append(RecordCodec.json(entry));
        count.incrementAndGet();
        log.warn("dead letter: journal offset {}: {} {}", offset, error.code(), error.message());
    }

    long count() {
        return count.get();
    }

    /** Entries in order, from the {@code from}-th, at most {@code limit}. */
    List<Map<String, Object>> list(long from, int limit) throws IOException {
        List<Map<String, Object>> out = new ArrayList<>();
        long seenOffset = -1;
        long index = 0;
        long next = journal.firstOffset();
        while (next < journal.durableOffset() && out.size() < limit) {
            List<JournalRecord> rs = journal.read(next, 1000, 16L << 20);
            if (rs.isEmpty()) {
                break;
            }
            for (JournalRecord r : rs) {
                next = r.offset() + 1;
                Map<String, Object> e = RecordCodec.parseMap(r.payload());
                long offset = ((Number) e.get("offset")).longValue();
                if (offset <= seenOffset) {
                    continue; // the same record dead-lettered again after a crash
                }
                seenOffset = offset;
                if (index++ >= from && out.size() < limit) {
                    out.add(e);
                }
            }
        }
        return out;
    }

    @Override
    public void close() throws IOException {
        journal.close();
    }
}
