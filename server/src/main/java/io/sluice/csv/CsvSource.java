package io.sluice.csv;

import de.siegmar.fastcsv.reader.AbstractBaseCsvCallbackHandler;
import de.siegmar.fastcsv.reader.CloseableIterator;
import de.siegmar.fastcsv.reader.CsvParseException;
import de.siegmar.fastcsv.reader.CsvReader;
import java.io.BufferedInputStream;
import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import java.util.zip.GZIPInputStream;

/**
 * The records of one input group, its files read one after another as one logical file: the first record is the
 * header, the rest are data. Gzipped files (by their magic bytes, whatever the name) are inflated on the fly.
 * An empty field is {@code null}; a quoted empty field {@code ""} is the empty string, so the two can be told
 * apart as neo4j-admin does. Bytes read from disk (compressed, for gzip) are added to a counter for progress.
 *
 * <p>Not thread-safe: one reader thread.
 */
public final class CsvSource implements AutoCloseable {
    /** One record: its fields, the file (index in the group) and the line it starts on (1-based). */
    public record Raw(String[] fields, int file, long line) {}

    private final List<Path> files;
    private final CsvFormat format;
    private final AtomicLong bytesRead;
    private int fileIndex = -1;
    private CsvReader<Raw> reader;
    private CloseableIterator<Raw> records;

    public CsvSource(List<Path> files, CsvFormat format, AtomicLong bytesRead) {
        this.files = List.copyOf(files);
        this.format = format;
        this.bytesRead = bytesRead;
    }

    /** The next record, or null at the end of the last file. */
    public Raw next() throws IOException {
        while (true) {
            if (records != null) {
                try {
                    if (records.hasNext()) {
                        return records.next();
                    }
                } catch (CsvParseException | UncheckedIOException e) {
                    throw new IOException(files.get(fileIndex) + ": " + e.getMessage(), e);
                }
                reader.close();
                records = null;
            }
            if (fileIndex + 1 >= files.size()) {
                return null;
            }
            open(++fileIndex);
        }
    }

    /** The file of a record, for messages and the report. */
    public Path file(int index) {
        return files.get(index);
    }

    private void open(int index) throws IOException {
        Path f = files.get(index);
        InputStream in = new Counting(Files.newInputStream(f), bytesRead);
        BufferedInputStream b = new BufferedInputStream(in, 1 << 16);
        b.mark(2);
        int m1 = b.read();
        int m2 = b.read();
        b.reset();
        InputStream data = m1 == 0x1f && m2 == 0x8b ? new BufferedInputStream(new GZIPInputStream(b, 1 << 16), 1 << 16) : b;
        final int fileNo = index;
        reader = CsvReader.builder()
                .fieldSeparator(format.delimiter())
                .quoteCharacter(format.quote())
                .skipEmptyLines(true)
                .allowExtraFields(true)
                .allowMissingFields(true)
                .detectBomHeader(true)
                .build(new Fields(fileNo), data, StandardCharsets.UTF_8);
        records = reader.iterator();
    }

    @Override
    public void close() throws IOException {
        if (reader != null) {
            reader.close();
        }
    }

    /** Builds {@link Raw} records; keeps unquoted empty fields apart from quoted empty ones. */
    private static final class Fields extends AbstractBaseCsvCallbackHandler<Raw> {
        private final int file;
        private final List<String> fields = new ArrayList<>();

        Fields(int file) {
            this.file = file;
        }

        @Override
        protected void handleBegin(long startingLineNumber) {
            fields.clear();
        }

        @Override
        protected void handleField(int fieldIdx, char[] buf, int offset, int len, boolean quoted) {
            fields.add(len == 0 && !quoted ? null : new String(buf, offset, len));
        }

        @Override
        protected Raw buildRecord() {
            return new Raw(fields.toArray(String[]::new), file, getStartingLineNumber());
        }
    }

    /** Counts the bytes that come off the disk. */
    private static final class Counting extends FilterInputStream {
        private final AtomicLong counter;

        Counting(InputStream in, AtomicLong counter) {
            super(in);
            this.counter = counter;
        }

        @Override
        public int read() throws IOException {
            int b = super.read();
            if (b >= 0) {
                counter.incrementAndGet();
            }
            return b;
        }

        @Override
        public int read(byte[] buf, int off, int len) throws IOException {
            int n = super.read(buf, off, len);
            if (n > 0) {
                counter.addAndGet(n);
            }
            return n;
        }
    }
}
