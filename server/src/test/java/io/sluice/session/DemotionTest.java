package io.sluice.session;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.time.ManualTime;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** A session's demotion: two aborted groups in a row send its transactions alone, 1 s doubling to 30 s, on its clock. */
class DemotionTest {
    final ManualTime time = new ManualTime();
    final Demotion demotion = new Demotion(time);

    @Test
    void oneAbortedGroupIsForgivenACommitClearsTheCount() {
        demotion.struck();
        assertThat(demotion.allowsGrouping()).isTrue();
        demotion.cleared();
        demotion.struck();
        assertThat(demotion.allowsGrouping()).as("the count restarted at the commit").isTrue();
    }

    @Test
    void twoInARowRunAloneForASecondThenLongerUpToThirtySeconds() {
        demotion.struck();
        demotion.struck();
        assertThat(demotion.allowsGrouping()).isFalse();
        time.advance(Duration.ofMillis(999));
        assertThat(demotion.allowsGrouping()).isFalse();
        time.advance(Duration.ofMillis(1));
        assertThat(demotion.allowsGrouping()).as("after 1 s").isTrue();
        demotion.struck(); // a third in a row: 2 s
        time.advance(Duration.ofMillis(1999));
        assertThat(demotion.allowsGrouping()).isFalse();
        time.advance(Duration.ofMillis(1));
        assertThat(demotion.allowsGrouping()).isTrue();
        for (int i = 0; i < 10; i++) {
            demotion.struck();
        }
        time.advance(Duration.ofSeconds(29));
        assertThat(demotion.allowsGrouping()).as("at most 30 s").isFalse();
        time.advance(Duration.ofSeconds(1));
        assertThat(demotion.allowsGrouping()).isTrue();
        demotion.cleared();
        demotion.struck();
        assertThat(demotion.allowsGrouping()).as("a commit forgave the strikes").isTrue();
    }
}
