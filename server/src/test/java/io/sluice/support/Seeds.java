package io.sluice.support;

import java.util.Random;
import java.util.concurrent.ThreadLocalRandom;

/**
 * Seeded randomized rounds. Each round gets a seed of its own; a failing round's seed is in the failure's
 * message, and {@code -D<property>=N} replays just that round.
 */
public final class Seeds {
    private Seeds() {}

    /** One round of a randomized test, driven by its own {@link Random}. */
    @FunctionalInterface
    public interface Round {
        void run(Random random) throws Exception;
    }

    public static void rounds(String property, int rounds, Round round) {
        Long fixed = Long.getLong(property);
        Random seeds = new Random(fixed != null ? fixed : ThreadLocalRandom.current().nextLong());
        for (int i = 0; i < (fixed != null ? 1 : rounds); i++) {
            long seed = fixed != null ? fixed : seeds.nextLong();
            try {
                round.run(new Random(seed));
            } catch (Exception | AssertionError e) {
                throw new AssertionError("failed with seed " + seed + " (replay: -D" + property + "=" + seed + "): "
                        + e.getMessage(), e);
            }
        }
    }
}
