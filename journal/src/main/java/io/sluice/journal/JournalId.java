package io.sluice.journal;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.UUID;

/**
 * A journal directory's identity: a random UUID in the file {@value #FILE}, made the first time the directory is
 * opened and never changed, so that whatever keeps a position in the journal elsewhere (sluice keeps it in the
 * graph) can tell this journal from another one (a second instance's, or a directory wiped and started afresh).
 * Read and made under the directory's lock; durable before it is returned (the file written and forced, renamed
 * into place, the directory forced).
 */
final class JournalId {
    static final String FILE = "journal-id";

    private JournalId() {}

    static String readOrCreate(Path dir, FileOps ops) throws IOException {
        Path file = dir.resolve(FILE);
        if (Files.exists(file)) {
            String id = Files.readString(file, StandardCharsets.US_ASCII).strip();
            try {
                return UUID.fromString(id).toString();
            } catch (IllegalArgumentException e) {
                throw new IOException(file + " does not hold a journal id: '" + id + "'", e);
            }
        }
        String id = UUID.randomUUID().toString();
        Path tmp = dir.resolve(FILE + ".tmp");
        try (FileChannel ch = FileChannel.open(tmp, StandardOpenOption.CREATE, StandardOpenOption.TRUNCATE_EXISTING,
                StandardOpenOption.WRITE)) {
            ch.write(ByteBuffer.wrap((id + "\n").getBytes(StandardCharsets.US_ASCII)));
            ch.force(true);
        }
        Files.move(tmp, file, StandardCopyOption.ATOMIC_MOVE);
        ops.syncDirectory(dir);
        return id;
    }
}
