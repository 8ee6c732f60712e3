package io.sluice.bench;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.OptionalDouble;
import java.util.OptionalLong;

/**
 * A HotSpot JVM's performance counters, read from the file it keeps them in ({@code hsperfdata}, what
 * {@code jstat} reads): here, how long another JVM's JIT compilers have worked, which its
 * {@code CompilationMXBean} would say from inside. On Linux the file is {@code /tmp/hsperfdata_USER/PID} (HotSpot
 * uses {@code /tmp} whatever {@code java.io.tmpdir} says), there while the JVM runs with {@code -XX:+UsePerfData}
 * (the default). Its layout (HotSpot's {@code perfMemory.hpp}, version 2):
 * <pre>
 * prologue   0: magic 0xcafec0c0 (big-endian)   4: byte order (0 big, 1 little)   5: major 6: minor version
 *           24: offset of the first entry      28: number of entries             (ints in that byte order)
 * entry      0: entry length   4: name offset   8: vector length (0: a scalar)   12: type ('J': a long)
 *           16: data offset     (offsets from the entry's start; the name is NUL-terminated ASCII)
 * </pre>
 * A counter is read as it is that instant; the JVM updates it concurrently, so a value may be a moment old.
 */
final class PerfData {
    private static final int MAGIC = 0xcafec0c0;

    private PerfData() {}

    /** The file of the JVM with {@code pid}, run by this user. */
    static Path file(long pid) {
        return Path.of("/tmp", "hsperfdata_" + System.getProperty("user.name"), Long.toString(pid));
    }

    /**
     * The seconds the JIT compilers of the JVM with {@code pid} have spent compiling ({@code java.ci.totalTime}
     * in ticks of {@code sun.os.hrt.frequency}); empty if its counters cannot be read.
     */
    static OptionalDouble jitSeconds(long pid) {
        try {
            ByteBuffer b = ByteBuffer.wrap(Files.readAllBytes(file(pid)));
            OptionalLong ticks = counter(b, "java.ci.totalTime");
            OptionalLong hz = counter(b, "sun.os.hrt.frequency");
            return ticks.isPresent() && hz.isPresent() && hz.getAsLong() > 0
                    ? OptionalDouble.of((double) ticks.getAsLong() / hz.getAsLong())
                    : OptionalDouble.empty();
        } catch (IOException | RuntimeException e) {
            return OptionalDouble.empty();
        }
    }

    /** The scalar long counter {@code name} of the counters in {@code b}; empty if absent or not such. */
    static OptionalLong counter(ByteBuffer b, String name) {
        if (b.limit() < 32 || b.order(ByteOrder.BIG_ENDIAN).getInt(0) != MAGIC || b.get(5) != 2) {
            return OptionalLong.empty();
        }
        b.order(b.get(4) == 1 ? ByteOrder.LITTLE_ENDIAN : ByteOrder.BIG_ENDIAN);
        byte[] wanted = name.getBytes(StandardCharsets.US_ASCII);
        int at = b.getInt(24);
        for (int i = b.getInt(28); i > 0 && at + 20 <= b.limit(); i--) {
            int length = b.getInt(at);
            if (length <= 0) {
                break;
            }
            if (b.getInt(at + 8) == 0 && b.get(at + 12) == 'J' && nameIs(b, at + b.getInt(at + 4), wanted)) {
                return OptionalLong.of(b.getLong(at + b.getInt(at + 16)));
            }
            at += length;
        }
        return OptionalLong.empty();
    }

    private static boolean nameIs(ByteBuffer b, int at, byte[] wanted) {
        if (at + wanted.length >= b.limit()) {
            return false;
        }
        for (int i = 0; i < wanted.length; i++) {
            if (b.get(at + i) != wanted[i]) {
                return false;
            }
        }
        return b.get(at + wanted.length) == 0;
    }
}
