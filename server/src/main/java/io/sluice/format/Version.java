package io.sluice.format;

import java.io.IOException;
import java.io.Reader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Properties;

/**
 * What sluice is ({@code sluice --version}, a data directory's {@code FORMAT}): the version (the jar's {@code Implementation-Version}), the commit it was
 * built from (a distribution's {@code VERSION} file under {@code sluice.home}; from the source tree, the launcher's
 * {@code -Dsluice.commit}) and the Java runtime.
 */
public final class Version {
    private Version() {}

    /** The product's version; {@code unknown} outside a built jar (an IDE's classes). */
    public static String version() {
        String v = Version.class.getPackage().getImplementationVersion();
        return v == null ? "unknown" : v;
    }

    /** The commit the running code was built from, {@code unknown} when nothing says. */
    public static String commit() {
        String home = System.getProperty("sluice.home");
        if (home != null) {
            Path file = Path.of(home, "VERSION");
            if (Files.isReadable(file)) {
                Properties p = new Properties();
                try (Reader r = Files.newBufferedReader(file)) {
                    p.load(r);
                    return p.getProperty("commit", "unknown");
                } catch (IOException e) {
                    return "unknown (" + file + ": " + e.getMessage() + ")";
                }
            }
        }
        return System.getProperty("sluice.commit", "unknown");
    }

    /** {@code sluice 0.1.0 (commit 0123abcd)}. */
    public static String line() {
        return "sluice " + version() + " (commit " + commit() + ")";
    }
}
