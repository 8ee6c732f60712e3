package io.sluice.bench;

import java.util.Arrays;

/**
 * Latency samples in nanoseconds: appended by one thread, merged after it stopped. Exact percentiles from a
 * sorted array: a run of a few million samples costs a few tens of MB, well inside the launcher's heap, and the
 * bench bounds the count ({@link #capacityLimit}).
 */
final class Latencies {
    private final int capacityLimit;
    private long[] samples = new long[1024];
    private int size;

    Latencies(int capacityLimit) {
        this.capacityLimit = capacityLimit;
    }

    /** Appends a sample; false (and nothing stored) once {@code capacityLimit} samples are held. */
    boolean add(long nanos) {
        if (size == capacityLimit) {
            return false;
        }
        if (size == samples.length) {
            samples = Arrays.copyOf(samples, (int) Math.min(capacityLimit, 2L * samples.length));
        }
        samples[size++] = nanos;
        return true;
    }

    int size() {
        return size;
    }

    /** All samples of {@code parts}, sorted. */
    static long[] mergeSorted(Iterable<Latencies> parts) {
        int total = 0;
        for (Latencies l : parts) {
            total += l.size;
        }
        long[] all = new long[total];
        int at = 0;
        for (Latencies l : parts) {
            System.arraycopy(l.samples, 0, all, at, l.size);
            at += l.size;
        }
        Arrays.sort(all);
        return all;
    }

    /**
     * The nearest-rank percentile {@code p} (0 < p <= 100, e.g. 99.9) of sorted samples, in ms; 0 when there are
     * none. A rank within rounding error of a whole number is that number (99.9% of 1000 is the 999th, not the
     * 1000th because {@code 99.9 / 100 * 1000} comes out as 999.0000000000001).
     */
    static double percentileMs(long[] sorted, double p) {
        if (sorted.length == 0) {
            return 0;
        }
        double exact = p / 100.0 * sorted.length;
        long whole = Math.round(exact);
        long rank = Math.abs(exact - whole) < 1e-6 ? whole : (long) Math.ceil(exact);
        return sorted[(int) Math.max(0, Math.min(sorted.length, rank) - 1)] / 1e6;
    }

    /** The largest of sorted samples, in ms; 0 when there are none. */
    static double maxMs(long[] sorted) {
        return sorted.length == 0 ? 0 : sorted[sorted.length - 1] / 1e6;
    }
}
