package io.sluice.csv;

import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.zip.GZIPOutputStream;

/** Writes small CSV files for tests: plain, or gzipped when the name ends in .gz. */
public final class Files2 {
    private Files2() {}

    public static Path write(Path file, String... lines) {
        return write(file, List.of(lines));
    }

    public static Path write(Path file, List<String> lines) {
        try {
            Files.createDirectories(file.toAbsolutePath().getParent());
            try (OutputStream raw = Files.newOutputStream(file);
                    OutputStream out = file.toString().endsWith(".gz") ? new GZIPOutputStream(raw) : raw) {
                for (String l : lines) {
                    out.write((l + "\n").getBytes(StandardCharsets.UTF_8));
                }
            }
            return file;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    public static List<String> lines(Path file) {
        try {
            return Files.readAllLines(file);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
