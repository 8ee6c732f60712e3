package io.sluice.csv;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.BufferedWriter;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.EnumMap;
import java.util.Map;

/**
 * The report of rejected rows: one JSON object per line, as neo4j-admin import writes its report:
 * <pre>
 * {"problem":"DuplicateNode","message":"...","source":"users.csv","line":17,"node":{"id":"42","group":"User"}}
 * {"problem":"BadRelationship","message":"...","source":"visited.csv","line":9,"relationship":{...}}
 * {"problem":"BadValue","message":"...","source":"users.csv","line":23,"column":"age:int","value":"abc"}
 * </pre>
 * Appended to (a resumed import adds to the report of the interrupted run). Thread-safe; each line is written
 * whole and flushed, so a crash loses at most the line being written.
 */
public final class ReportFile implements AutoCloseable {
    private static final ObjectMapper JSON = new ObjectMapper().disable(JsonGenerator.Feature.AUTO_CLOSE_TARGET);

    private final Path path;
    private final BufferedWriter out;
    private final Map<Rejection.Problem, Long> counts = new EnumMap<>(Rejection.Problem.class);

    private ReportFile(Path path, BufferedWriter out) {
        this.path = path;
        this.out = out;
    }

    public static ReportFile append(Path path) {
        try {
            Path parent = path.toAbsolutePath().getParent();
            if (parent != null) {
                Files.createDirectories(parent);
            }
            return new ReportFile(path, Files.newBufferedWriter(path, StandardCharsets.UTF_8,
                    StandardOpenOption.CREATE, StandardOpenOption.APPEND, StandardOpenOption.WRITE));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot open the report file " + path, e);
        }
    }

    public synchronized void write(Rejection r) {
        try {
            out.write(JSON.writeValueAsString(r.toMap()));
            out.newLine();
            out.flush();
            counts.merge(r.problem(), 1L, Long::sum);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write the report file " + path, e);
        }
    }

    /** Rejections written by this run, per problem. */
    public synchronized Map<Rejection.Problem, Long> counts() {
        return new EnumMap<>(counts);
    }

    Path path() {
        return path;
    }

    @Override
    public synchronized void close() {
        try {
            out.close();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot close the report file " + path, e);
        }
    }
}
