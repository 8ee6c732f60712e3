package io.sluice.apply;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class BatchSizeControllerTest {
    static final long MS = 1_000_000;

    @Test
    void growsWhileFullBatchesCommitFastAndThroughputRises() {
        BatchSizeController c = new BatchSizeController(10, 1000, Duration.ofMillis(100), 100);
        c.committed(100, 10 * MS);
        assertThat(c.limit()).isEqualTo(125);
        c.committed(125, 11 * MS);
        assertThat(c.limit()).isEqualTo(156);
    }

    @Test
    void doesNotGrowWhenLoadRatherThanTheLimitSizedTheBatch() {
        BatchSizeController c = new BatchSizeController(10, 1000, Duration.ofMillis(100), 100);
        c.committed(20, MS);
        assertThat(c.limit()).isEqualTo(100);
    }

    @Test
    void stepsBackWhenGrowthLoweredThroughput() {
        BatchSizeController c = new BatchSizeController(10, 1000, Duration.ofMillis(100), 100);
        c.committed(100, 10 * MS); // 10 rows/ms, grows to 125
        c.committed(125, 25 * MS); // 5 rows/ms: worse
        assertThat(c.limit()).isEqualTo(113);
    }

    @Test
    void halvesOnASlowCommitOrAFailureAndStaysInBounds() {
        BatchSizeController c = new BatchSizeController(10, 200, Duration.ofMillis(100), 200);
        c.committed(200, 150 * MS);
        assertThat(c.limit()).isEqualTo(100);
        c.failed();
        c.failed();
        c.failed();
        c.failed();
        assertThat(c.limit()).isEqualTo(10);
        for (int i = 0; i < 50; i++) {
            c.committed(c.limit(), MS);
        }
        assertThat(c.limit()).isEqualTo(200);
    }
}
