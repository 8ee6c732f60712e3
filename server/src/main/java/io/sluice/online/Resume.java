package io.sluice.online;

import io.sluice.csv.CsvFormat;
import io.sluice.csv.InputGroup;
import io.sluice.write.Statement;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;

/**
 * An online import's progress, kept in the database it imports into, so that an interrupted import resumes
 * exactly where it stopped, whatever stopped it (a bad-tolerance stop, Ctrl-C, kill -9, a lost connection).
 *
 * <p>Rows are cut into batches deterministically: a group's rows, in file order, in chunks of
 * {@code partitions x batchRows} rows, each chunk split into {@code partitions} batches by a hash of the row's
 * key. A batch is named (group, chunk, part) and its rows by their position in it. Every statement that commits
 * rows of a batch also writes, in the same transaction, a mark {@code (:SluiceImportMark {import, group, chunk,
 * part, lo, hi, bad})}: positions [lo, hi) are done (imported or rejected, {@code bad} of them rejected). A
 * batch that is split to isolate a bad row leaves several marks. The import's node
 * {@code (:SluiceImport {id, partitions, batch})} keeps the cut, so a resumed run cuts the same batches even
 * with other {@code --threads} or {@code --batch-size}.
 *
 * <p>The import's id is a hash of what defines its rows: the groups, their files (path and size), the CSV
 * format and the mode. A finished import deletes its marks and keeps its node, marked completed; running the
 * same import again is refused unless {@code --restart}.
 */
final class Resume {
    record Key(int group, long chunk, int part) {}

    private final String id;
    private final int partitions;
    private final int batchRows;
    private final Map<Key, List<long[]>> done;
    private final long rejectedBefore;

    private Resume(String id, int partitions, int batchRows, Map<Key, List<long[]>> done, long rejectedBefore) {
        this.id = id;
        this.partitions = partitions;
        this.batchRows = batchRows;
        this.done = done;
        this.rejectedBefore = rejectedBefore;
    }

    /** The id of the import of {@code groups} in format {@code f}, merged or created: what defines its rows. */
    static String importId(List<InputGroup> groups, CsvFormat f, boolean merge) {
        StringBuilder b = new StringBuilder(merge ? "merge" : "create");
        b.append('|').append(f.delimiter()).append(f.arrayDelimiter()).append(f.quote()).append(f.idType());
        for (InputGroup g : groups) {
            b.append('|').append(g.kind()).append(g.labels()).append(g.type());
            for (var p : g.files()) {
                b.append(',').append(p.toAbsolutePath().normalize());
                try {
                    b.append(':').append(Files.size(p));
                } catch (IOException e) {
                    b.append(":?");
                }
            }
        }
        try {
            byte[] h = MessageDigest.getInstance("SHA-256").digest(b.toString().getBytes(StandardCharsets.UTF_8));
            return HexFormat.of().formatHex(h, 0, 8);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    /**
     * Finds an earlier run of import {@code id} in the target, or records a new one.
     *
     * @param restart forget an earlier run (its marks are deleted)
     */
    static Resume open(Target target, String id, boolean restart, int partitions, int batchRows, PrintStream err)
            throws InterruptedException {
        Map<String, Object> p = Map.of("id", id);
        if (restart) {
            forget(target, id);
        }
        List<List<Object>> run = rows(target, "MATCH (i:" + Statements.RUN_LABEL + " {id: $id}) "
                + "RETURN i.partitions, i.batch, toString(i.completed), toString(i.started)", p);
        if (!run.isEmpty()) {
            List<Object> r = run.getFirst();
            if (r.get(2) != null) {
                throw new IllegalStateException("this import (id " + id + ", the same files and options) already finished at "
                        + r.get(2) + "; --restart runs it again");
            }
            int parts = ((Number) r.get(0)).intValue();
            int batch = ((Number) r.get(1)).intValue();
            Map<Key, List<long[]>> done = new HashMap<>();
            long bad = 0;
            long marks = 0;
            for (List<Object> m : rows(target, "MATCH (m:" + Statements.MARK_LABEL + " {import: $id}) "
                    + "RETURN m.group, m.chunk, m.part, m.lo, m.hi, m.bad", p)) {
                done.computeIfAbsent(new Key(num(m.get(0)).intValue(), num(m.get(1)).longValue(), num(m.get(2)).intValue()),
                        k -> new ArrayList<>()).add(new long[] {num(m.get(3)).longValue(), num(m.get(4)).longValue()});
                bad += num(m.get(5)).longValue();
                marks++;
            }
            err.println("import: resuming import " + id + " started " + r.get(3) + " (" + marks + " batches done, "
                    + bad + " rows rejected so far)");
            return new Resume(id, parts, batch, done, bad);
        }
        check(target.run(new Statement("CREATE (i:" + Statements.RUN_LABEL + " {id: $id, partitions: $partitions, "
                + "batch: $batch, started: datetime()})", Map.of("id", id, "partitions", partitions, "batch", batchRows))),
                "record the import");
        return new Resume(id, partitions, batchRows, Map.of(), 0);
    }

    private static Number num(Object o) {
        return (Number) o;
    }

    /** The positions of batch {@code k} (of {@code size} rows) not yet done, as [lo, hi) ranges in order. */
    List<long[]> pending(Key k, int size) {
        List<long[]> ranges = done.get(k);
        if (ranges == null) {
            return List.of(new long[] {0, size});
        }
        List<long[]> sorted = new ArrayList<>(ranges);
        sorted.sort(Comparator.comparingLong(r -> r[0]));
        List<long[]> out = new ArrayList<>();
        long at = 0;
        for (long[] r : sorted) {
            if (r[0] > at) {
                out.add(new long[] {at, Math.min(r[0], size)});
            }
            at = Math.max(at, r[1]);
        }
        if (at < size) {
            out.add(new long[] {at, size});
        }
        return out;
    }

    /** The mark of positions [lo, hi) of batch {@code k}, {@code bad} of them rejected before the statement ran. */
    Map<String, Object> mark(Key k, int lo, int hi, long bad) {
        return Map.of("import", id, "group", k.group(), "chunk", k.chunk(), "part", k.part(), "lo", lo, "hi", hi, "bad", bad);
    }

    /** The import finished: its marks go, its node stays, marked completed. */
    void complete(Target target) throws InterruptedException {
        check(target.run(new Statement("MATCH (m:" + Statements.MARK_LABEL + " {import: $id}) "
                + "CALL (m) { DELETE m } IN TRANSACTIONS OF 10000 ROWS", Map.of("id", id))), "delete the progress marks");
        check(target.run(new Statement("MATCH (i:" + Statements.RUN_LABEL + " {id: $id}) SET i.completed = datetime()",
                Map.of("id", id))), "mark the import completed");
    }

    private static void forget(Target target, String id) throws InterruptedException {
        check(target.run(new Statement("MATCH (m:" + Statements.MARK_LABEL + " {import: $id}) "
                + "CALL (m) { DELETE m } IN TRANSACTIONS OF 10000 ROWS", Map.of("id", id))), "delete earlier progress marks");
        check(target.run(new Statement("MATCH (i:" + Statements.RUN_LABEL + " {id: $id}) DELETE i", Map.of("id", id))),
                "forget the earlier run");
    }

    private static List<List<Object>> rows(Target target, String cypher, Map<String, Object> params)
            throws InterruptedException {
        Target.Result r = target.run(new Statement(cypher, params));
        check(r, "read the import's progress");
        return ((Target.Result.Done) r).results().getFirst().rows();
    }

    static void check(Target.Result r, String what) {
        switch (r) {
            case Target.Result.Done d -> { }
            case Target.Result.Failed f -> throw new IllegalStateException("cannot " + what + ": " + f.error().code() + ": "
                    + f.error().message());
            case Target.Result.Busy b -> throw new IllegalStateException("cannot " + what + " now: " + b.reason());
        }
    }

    String id() {
        return id;
    }

    int partitions() {
        return partitions;
    }

    int batchRows() {
        return batchRows;
    }

    long rejectedBefore() {
        return rejectedBefore;
    }
}
