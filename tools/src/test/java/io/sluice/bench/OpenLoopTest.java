package io.sluice.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.sluice.config.SluiceConfig;
import io.sluice.time.ManualTime;
import io.sluice.time.Time;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The open-loop schedule and its accounting ({@link OpenLoop}), on a hand-driven clock: simulated connections
 * that answer after a fixed service time stand in for Netty and the server.
 */
class OpenLoopTest {
    private static final long MS = 1_000_000L;

    /**
     * A simulated connection: sends what the pool hands it and answers it {@code serviceNanos} later, serving one
     * request at a time, as a keep-alive HTTP/1.1 connection does.
     */
    private static final class SimSlot implements OpenLoop.Slot {
        final OpenLoop open;
        final Tally.Client counts;
        final ManualTime clock;
        final long serviceNanos;
        long intended;
        long sentAt;
        long doneAt = Long.MAX_VALUE; // MAX: nothing in flight
        boolean closed;
        final List<Long> sends = new ArrayList<>();

        SimSlot(OpenLoop open, Tally tally, ManualTime clock, long serviceNanos) {
            this.open = open;
            this.counts = tally.newClient();
            this.clock = clock;
            this.serviceNanos = serviceNanos;
        }

        @Override
        public void send(long due) {
            assertThat(doneAt).as("one request at a time on a connection").isEqualTo(Long.MAX_VALUE);
            intended = due;
            sentAt = clock.nanos();
            doneAt = sentAt + serviceNanos;
            sends.add(due);
        }

        @Override
        public void close() {
            closed = true;
        }

        /** Answers the request in flight if its time has come, and sends what the pool hands over next. */
        void tick() {
            if (clock.nanos() < doneAt) {
                return;
            }
            doneAt = Long.MAX_VALUE;
            long next = open.answered(this, counts, 200, 1, intended, sentAt, clock.nanos());
            if (next == OpenLoop.STOP) {
                closed = true;
            } else if (next != OpenLoop.IDLE) {
                send(next);
            }
        }
    }

    /** Runs the simulation in steps of {@code step} until {@code until}: answers first, then what is due. */
    private static void simulate(OpenLoop open, ManualTime clock, List<SimSlot> slots, long until, long step) {
        for (SimSlot s : slots) {
            assertThat(open.free(s)).isEqualTo(OpenLoop.IDLE); // connected, nothing due yet
        }
        while (clock.nanos() <= until) {
            slots.forEach(SimSlot::tick);
            open.dispatch(clock.nanos());
            clock.advance(Duration.ofNanos(step));
        }
    }

    @Test
    void aSlowServerMakesLaterRequestsPayForTheirQueueing() {
        ManualTime clock = new ManualTime();
        long t0 = clock.nanos();
        Window window = new Window(t0, t0, t0 + 20 * MS);
        Tally tally = new Tally(window, 1);
        OpenLoop open = new OpenLoop(window, 1000, tally); // one request due every ms
        SimSlot slot = new SimSlot(open, tally, clock, 3 * MS); // one connection, 3 ms a request

        simulate(open, clock, List.of(slot), t0 + 25 * MS, MS / 2);

        // request k is due at k ms, but goes out at 3k ms, when the connection is free: answered at 3k + 3
        assertThat(slot.sends).hasSize(7); // sent at 0, 3, ..., 18 ms; the window ends at 20
        LoadSummary s = tally.summary();
        assertThat(s.samples()).isEqualTo(7);
        assertThat(s.writes()).isEqualTo(7);
        assertThat(s.maxMs()).as("request 6: due at 6, answered at 21").isEqualTo(15.0);
        assertThat(s.p50Ms()).as("latencies 3, 5, ..., 15 ms from the due time").isEqualTo(9.0);
        assertThat(s.open().sent()).isEqualTo(7);
        assertThat(s.open().late()).as("all but the first started 2k ms late").isEqualTo(6);
        assertThat(s.open().meanStartLagMs()).isCloseTo(6.0, within(1e-9)); // (0 + 2 + ... + 12) / 7
        assertThat(s.open().notSent()).as("due in the window, still waiting at its end").isEqualTo(13);
        assertThat(slot.closed).as("closed once its last request was answered").isTrue();
        assertThat(open.dispatch(clock.nanos())).isEqualTo(OpenLoop.STOP);
    }

    @Test
    void aServerThatKeepsUpShowsItsServiceTimeAndOnlyTheWindowCounts() {
        ManualTime clock = new ManualTime();
        long t0 = clock.nanos();
        Window window = new Window(t0, t0 + 5 * MS, t0 + 15 * MS); // 5 ms of warm-up, then 10 measured
        Tally tally = new Tally(window, 2);
        OpenLoop open = new OpenLoop(window, 1000, tally);
        List<SimSlot> slots = List.of(new SimSlot(open, tally, clock, 3 * MS / 2),
                new SimSlot(open, tally, clock, 3 * MS / 2));

        simulate(open, clock, slots, t0 + 20 * MS, MS / 4);

        LoadSummary s = tally.summary();
        assertThat(s.samples()).as("due at 5..14 ms").isEqualTo(10);
        assertThat(s.maxMs()).isEqualTo(1.5);
        assertThat(s.p50Ms()).isEqualTo(1.5);
        assertThat(s.open().late()).isZero();
        assertThat(s.open().notSent()).isZero();
        assertThat(slots.get(0).sends.size() + slots.get(1).sends.size()).as("warm-up included").isEqualTo(15);
        assertThat(slots).allMatch(x -> x.closed);
    }

    @Test
    void theScheduleIsComputedFromTheRequestNumberSoItDoesNotDrift() {
        Window window = new Window(100, 100, 1_000_000_000_000L);
        OpenLoop open = new OpenLoop(window, 3, new Tally(window, 1)); // a period of 333,333,333.3 ns
        assertThat(open.intended(0)).isEqualTo(100);
        assertThat(open.intended(3)).isEqualTo(100 + 1_000_000_000L);
        assertThat(open.intended(3_000)).isEqualTo(100 + 1_000_000_000_000L);
    }

    @Test
    void aRequestGivenBackGoesFirstAndCountsAsNotSentOnceTheRunIsOver() {
        ManualTime clock = new ManualTime();
        long t0 = clock.nanos();
        Window window = new Window(t0, t0, t0 + 10 * MS);
        Tally tally = new Tally(window, 1);
        OpenLoop open = new OpenLoop(window, 1000, tally);
        OpenLoop.Slot lost = new OpenLoop.Slot() {
            @Override
            public void send(long due) {
                open.requeue(due); // its channel closed under it
            }

            @Override
            public void close() {}
        };
        assertThat(open.free(lost)).isEqualTo(OpenLoop.IDLE);
        open.gone(lost);
        clock.advance(Duration.ofNanos(2 * MS));
        open.dispatch(clock.nanos()); // due: 0, 1, 2 ms; no connection in the pool
        assertThat(open.free(lost)).as("the oldest first").isEqualTo(t0);
        open.requeue(t0);
        assertThat(open.free(lost)).as("given back: first again").isEqualTo(t0);
        open.requeue(t0);
        clock.advance(Duration.ofNanos(8 * MS));
        assertThat(open.dispatch(clock.nanos())).isEqualTo(OpenLoop.STOP);
        assertThat(tally.summary().open().notSent()).as("the 10 due in the window").isEqualTo(10);
        open.requeue(t0 + MS); // handed out before the end, given back after it
        assertThat(tally.summary().open().notSent()).isEqualTo(11);
        assertThat(open.free(lost)).isEqualTo(OpenLoop.STOP);
    }

    /** The pacing thread on the real clock: every request due in the window is sent, whatever the wake-ups. */
    @Test
    @Timeout(10)
    void thePacerSendsExactlyWhatTheWindowSchedules() throws InterruptedException {
        long t0 = Time.SYSTEM.nanos();
        Window window = new Window(t0, t0 + 100 * MS, t0 + 400 * MS);
        Tally tally = new Tally(window, 1);
        OpenLoop open = new OpenLoop(window, 2000, tally);
        OpenLoop.Slot instant = new OpenLoop.Slot() {
            private final Tally.Client counts = tally.newClient();

            @Override
            public void send(long due) {
                for (long d = due; d != OpenLoop.IDLE && d != OpenLoop.STOP; ) {
                    long now = Time.SYSTEM.nanos();
                    d = open.answered(this, counts, 200, 1, d, now, now);
                }
            }

            @Override
            public void close() {}
        };
        assertThat(open.free(instant)).isEqualTo(OpenLoop.IDLE);
        Thread pacer = Thread.ofPlatform().name("open-loop-test-pacer").start(() -> open.pace(Time.SYSTEM));
        pacer.join(Duration.ofSeconds(5));
        assertThat(pacer.isAlive()).isFalse();
        LoadSummary s = tally.summary();
        assertThat(s.samples()).as("due at 100..399.5 ms, one every 0.5 ms").isEqualTo(600);
        assertThat(s.open().notSent()).isZero();
        assertThat(s.maxMs()).as("no request waits for the pacer long (shared machine)").isLessThan(200);
    }

    @Test
    void ratesParseAsRequestsPerSecondOrPercentOfThePeak() {
        assertThat(Rate.parseList("50%, 80%,3000")).containsExactly(new Rate(50, true), new Rate(80, true),
                new Rate(3000, false));
        assertThat(new Rate(50, true).perSecond(8000)).isEqualTo(4000);
        assertThat(new Rate(3000, false).perSecond(8000)).isEqualTo(3000);
        assertThat(new Rate(50, true).label()).isEqualTo("50%");
        assertThat(new Rate(2.5, false).label()).isEqualTo("2.50/s");
        assertThatThrownBy(() -> Rate.parse("fast")).hasMessageContaining("'fast'");
        assertThatThrownBy(() -> Rate.parse("0")).hasMessageContaining("(0, 1000000]");
        assertThatThrownBy(() -> Rate.parseList("50%,50%")).hasMessageContaining("twice");
    }

    @Test
    void theRateGoesToTheLoadProcessAndOnlyTheNettyClientTakesIt() throws Exception {
        LoadSpec spec = new LoadSpec("http://127.0.0.1:1/db/neo4j/write/visited?mode=sync", BenchApi.TEMPLATE, "", 8,
                1, null, "visited", 42, LoadClient.NETTY, 1, 2, "visited sync @4000/s", 4000.5, "neo4j");
        ObjectMapper json = new ObjectMapper();
        assertThat(json.readValue(json.writeValueAsString(spec), LoadSpec.class)).isEqualTo(spec);
        assertThatThrownBy(() -> new LoadSpec(spec.uri(), BenchApi.TEMPLATE, "", 8, 1, null, "visited", 42,
                LoadClient.JDK, 1, 2, "x", 100, null)).hasMessageContaining("netty");
        assertThatThrownBy(() -> new BenchOptions(Scenario.named("visited"), List.of(BenchMode.SYNC), 8,
                Duration.ofSeconds(1), Duration.ZERO, Duration.ZERO, 1, SluiceConfig.defaults(), Path.of("/tmp"), 1,
                LoadClient.JDK).withRates(List.of(new Rate(50, true)))).hasMessageContaining("--rate")
                .hasMessageContaining("netty");
        assertThatThrownBy(() -> new BenchOptions(Scenario.named("visited"), List.of(BenchMode.RAW), 8,
                Duration.ofSeconds(1), Duration.ZERO, Duration.ZERO, 1, SluiceConfig.defaults(), Path.of("/tmp"), 1,
                LoadClient.NETTY).withRates(List.of(new Rate(50, true)))).hasMessageContaining("HTTP mode");
    }
}
