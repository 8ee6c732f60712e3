package io.sluice.group;

import static io.sluice.group.ScriptedSink.result;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sluice.group.Group.Seat;
import io.sluice.group.TransactionGroups.Member;
import io.sluice.support.Await;
import io.sluice.support.OnThread;
import io.sluice.time.ManualTime;
import io.sluice.txn.TxRegistry;
import io.sluice.vocab.GraphException;
import io.sluice.vocab.Neo4jError;
import io.sluice.vocab.Neo4jStatus;
import io.sluice.vocab.StatementResult;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * {@link TransactionGroups} driven deterministically over a {@link ScriptedSink}: what every member is told and what
 * the sink saw when a commit fails, when its outcome is unknown, when a replay's answer differs, when the groups close
 * during a replay, when a member stalls (the watchdog on a manual clock), and when a client goes while its statement
 * runs. Threads are the test's own ({@link OnThread}), ordered by the sink's holds and by waiting for a thread to
 * park on the groups' conditions; nothing sleeps.
 *
 * <p>Most cases use a pacer: member Z runs first, alone, and its group closes at once (no other group holds the
 * commit slot) and waits for Z's COMMIT; meanwhile the next group stays open (one commit slot), so the members under
 * test all join it, whatever the threads' timing. Z's COMMIT frees the slot: the group under test then closes.
 */
@Timeout(value = 60, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class TransactionGroupsTest {
    static final Duration TIMEOUT = Duration.ofMillis(40);
    static final Duration WITHIN = Duration.ofSeconds(10);

    final ScriptedSink sink = new ScriptedSink();
    final ManualTime time = new ManualTime();
    final AtomicInteger places = new AtomicInteger();
    final List<String> events = new CopyOnWriteArrayList<>();
    final List<OnThread<?>> threads = new ArrayList<>();
    TransactionGroups groups;

    @BeforeEach
    void start() {
        groups = groups(TIMEOUT);
    }

    /** Groups over the sink, the places counted, every event recorded, members timed out after {@code timeout}. */
    TransactionGroups groups(Duration timeout) {
        TxRegistry.Gate gate = new TxRegistry.Gate() {
            @Override
            public void enter() {
                places.incrementAndGet();
            }

            @Override
            public void leave() {
                places.decrementAndGet();
            }
        };
        Listener listener = new Listener() {
            @Override
            public void committed(int members, int statements, long commitNanos) {
                events.add("committed " + members + " " + statements);
            }

            @Override
            public void aborted(int members, Cause cause) {
                events.add("aborted " + members + " " + cause.label());
            }

            @Override
            public void evicted(Cause cause) {
                events.add("evicted " + cause.label());
            }

            @Override
            public void replayed(int statements) {
                events.add("replayed " + statements);
            }
        };
        return TransactionGroups.start(sink, gate, new Options(64, timeout), time, listener,
                Thread.ofPlatform().name("groups-watch-test").daemon(true).factory());
    }

    @AfterEach
    void stop() {
        groups.close();
        threads.forEach(OnThread::close);
    }

    <T> OnThread<T> on(String name, OnThread.Call<T> call) {
        OnThread<T> t = OnThread.start(name, call);
        threads.add(t);
        return t;
    }

    /** Member {@code m}'s COMMIT on a thread of its own (it waits for its group's). */
    OnThread<Boolean> commit(String name, Member m) {
        return on(name, () -> {
            m.commit();
            return true;
        });
    }

    /** What {@code t}'s call was told: its error (the test fails if it returned). */
    static Neo4jError told(OnThread<?> t) {
        try {
            Object returned = t.get(WITHIN);
            throw new AssertionError("expected an error, got " + returned);
        } catch (GraphException e) {
            return e.error();
        } catch (Exception e) {
            throw new AssertionError(e);
        }
    }

    /** What {@code call} was told, run on a thread of its own: a broken group fails the test instead of hanging it. */
    Neo4jError told(OnThread.Call<?> call) {
        return told(on("call", call));
    }

    /** {@code m}'s COMMIT, which must succeed, on a thread of its own. */
    void commits(Member m) throws Exception {
        assertThat(commit("commit", m).get(WITHIN)).isTrue();
    }

    static void waitsOnACondition(String what, OnThread<?> t) {
        Await.until(what, WITHIN, t::isWaitingOnACondition);
    }

    /** The pacer: Z's statement, in a group of its own (transaction 1) that waits for Z's COMMIT. */
    Member pacer() throws GraphException {
        Member z = groups.member();
        assertThat(z.run("Z", Map.of())).isEqualTo(result("Z"));
        return z;
    }

    /** Two members, A and B, ran one statement each in transaction 2 (behind the pacer), which is open. */
    List<Member> twoRan() throws GraphException {
        Member a = groups.member();
        Member b = groups.member();
        assertThat(a.run("A", Map.of())).isEqualTo(result("A"));
        assertThat(b.run("B", Map.of())).isEqualTo(result("B"));
        return List.of(a, b);
    }

    /**
     * C's statement on a thread of its own: it fails (as scripted) and waits for the group it ran after; then A and B
     * send COMMIT and the pacer Z commits, so that group commits. Returns C's call, to read what it was told.
     */
    OnThread<StatementResult> failsThenABCommit(Member z, List<Member> ab, Member c) throws Exception {
        OnThread<StatementResult> cRun = on("run-c", () -> c.run("C", Map.of()));
        waitsOnACondition("C's statement failed and waits for the group it ran after", cRun);
        List<OnThread<Boolean>> commits = List.of(commit("commit-a", ab.get(0)), commit("commit-b", ab.get(1)));
        commits(z);
        for (OnThread<Boolean> m : commits) {
            assertThat(m.get(WITHIN)).isTrue();
        }
        return cRun;
    }

    void assertEverythingGivenBack() {
        assertThat(groups.live()).as("groups not finished").isZero();
        assertThat(places.get()).as("places of the gate held").isZero();
    }

    @Test
    void aFailedCommitTellsEveryMemberToRetryAndCommitsNothing() throws Exception {
        sink.commit(2, () -> {
            // a deadlock at the group's COMMIT too: re-running a group there could wait, unseen by Neo4j, on the next
            // group, which waits for this one's commit slot
            throw new GraphException(new Neo4jError(Neo4jStatus.Transaction.DEADLOCK_DETECTED, "a deadlock"), null);
        });
        Member z = pacer();
        List<Member> ab = twoRan();
        OnThread<Boolean> a = commit("commit-a", ab.get(0));
        OnThread<Boolean> b = commit("commit-b", ab.get(1));
        commits(z); // the slot frees: the group of A and B closes, and the last of their COMMITs leads its commit

        for (OnThread<Boolean> m : List.of(a, b)) {
            Neo4jError e = told(m);
            assertThat(e.code()).isEqualTo(TransactionGroups.ABORTED);
            assertThat(e.message()).contains("failed to commit", "a deadlock");
        }
        assertThat(ab.get(0).abortedGroup()).isFalse(); // the commit's failure is no one's
        assertThat(sink.calls(1)).containsExactly("begin", "run Z", "commit");
        assertThat(sink.calls(2)).containsExactly("begin", "run A", "run B", "commit");
        assertThat(sink.begun()).isEqualTo(2);
        assertThat(events).containsExactly("committed 1 1", "aborted 2 commit_failed");
        assertEverythingGivenBack();
    }

    static Stream<Arguments> unknownOutcomes() {
        return Stream.of(
                Arguments.of("the sink says so", (ScriptedSink.Answer<Void>) () -> {
                    throw new GraphException(Neo4jError.commitOutcomeUnknown("connection lost"), null, true);
                }),
                Arguments.of("the sink flags it, its error does not", (ScriptedSink.Answer<Void>) () -> {
                    throw new GraphException(new Neo4jError(Neo4jStatus.General.DATABASE_UNAVAILABLE, "connection lost"),
                            null, true);
                }),
                Arguments.of("the sink fails other than by its answer", (ScriptedSink.Answer<Void>) () -> {
                    throw new IllegalStateException("connection lost");
                }));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("unknownOutcomes")
    void aCommitWhoseOutcomeIsUnknownIsToldAsSuchNeverAsARetry(String how, ScriptedSink.Answer<Void> commit)
            throws Exception {
        sink.commit(2, commit);
        Member z = pacer();
        List<Member> ab = twoRan();
        OnThread<Boolean> a = commit("commit-a", ab.get(0));
        OnThread<Boolean> b = commit("commit-b", ab.get(1));
        commits(z);

        for (OnThread<Boolean> m : List.of(a, b)) {
            Neo4jError e = told(m);
            assertThat(e.isCommitOutcomeUnknown()).as("%s: outcome unknown", e).isTrue();
            assertThat(e.code()).isNotEqualTo(TransactionGroups.ABORTED);
            assertThat(e.message()).contains("connection lost");
        }
        assertThat(sink.calls(2)).containsExactly("begin", "run A", "run B", "commit"); // never rolled back
        assertThat(events).containsExactly("committed 1 1", "aborted 2 commit_failed");
        assertEverythingGivenBack();
    }

    static StatementResult deadlock() throws GraphException {
        throw new GraphException(new Neo4jError(Neo4jStatus.Transaction.DEADLOCK_DETECTED, "a deadlock"), null);
    }

    @Test
    void aDeadlockRunsTheGroupAgainAndNoOneIsToldOrTakenOut() throws Exception {
        sink.answerNext("C", TransactionGroupsTest::deadlock); // Neo4j breaks a cycle with another transaction here
        Member z = pacer();
        List<Member> ab = twoRan();
        Member c = groups.member();

        assertThat(c.run("C", Map.of())).isEqualTo(result("C")); // after A's and B's, run again (checked), in tx 3

        List<OnThread<Boolean>> commits = List.of(commit("commit-a", ab.get(0)), commit("commit-b", ab.get(1)),
                commit("commit-c", c));
        commits(z);
        for (OnThread<Boolean> m : commits) {
            assertThat(m.get(WITHIN)).isTrue();
        }
        assertThat(sink.calls(2)).containsExactly("begin", "run A", "run B", "run C");
        assertThat(sink.calls(3)).containsExactly("begin", "run A", "run B", "run C", "commit");
        assertThat(events).containsExactly("replayed 2", "committed 1 1", "committed 3 3");
        assertEverythingGivenBack();
    }

    @Test
    void aDeadlockWhoseRerunChangesAMembersAnswerTakesThatMemberOutAlone() throws Exception {
        sink.answer("B", result(1), result(2)); // B read what the deadlock's other transaction has since changed
        sink.answerNext("C", TransactionGroupsTest::deadlock);
        Member z = pacer();
        List<Member> ab = List.of(groups.member(), groups.member());
        ab.get(0).run("A", Map.of());
        assertThat(ab.get(1).run("B", Map.of())).isEqualTo(result(1));
        Member c = groups.member();

        assertThat(c.run("C", Map.of())).isEqualTo(result("C"));

        Neo4jError b = told(() -> {
            ab.get(1).commit();
            return null;
        });
        assertThat(b.code()).isEqualTo(TransactionGroups.ABORTED);
        assertThat(b.message()).contains("were not the same");
        List<OnThread<Boolean>> commits = List.of(commit("commit-a", ab.get(0)), commit("commit-c", c));
        commits(z);
        for (OnThread<Boolean> m : commits) {
            assertThat(m.get(WITHIN)).isTrue();
        }
        assertThat(sink.calls(3)).containsExactly("begin", "run A", "run B", "rollback");
        assertThat(sink.calls(4)).containsExactly("begin", "run A", "run C", "commit");
        assertThat(events).containsExactly("evicted replay_mismatch", "replayed 3", "committed 1 1",
                "committed 2 2");
        assertEverythingGivenBack();
    }

    @Test
    void aStatementThatKeepsMeetingDeadlocksFailsAfterItsRerunsAndOnlyItsMemberLeaves() throws Exception {
        // the re-runs' pauses (over a second in all) advance the manual clock: no one else is timed out meanwhile
        groups.close();
        groups = groups(Duration.ofHours(1));
        for (int i = 0; i <= Statements.MAX_RERUNS; i++) {
            sink.answerNext("C", TransactionGroupsTest::deadlock);
        }
        Member z = pacer();
        List<Member> ab = twoRan();
        Member c = groups.member();

        OnThread<StatementResult> cRun = failsThenABCommit(z, ab, c);

        Neo4jError told = told(cRun); // A and B committed: what C met after them is its answer, as run serially
        assertThat(told.code()).isEqualTo(Neo4jStatus.Transaction.DEADLOCK_DETECTED);
        assertThat(sink.begun()).isEqualTo(2 + Statements.MAX_RERUNS + 1); // the pacer's, the first, each re-run, the replay
        assertThat(events).contains("evicted failed").last().isEqualTo("committed 2 2");
        assertEverythingGivenBack();
    }

    static StatementResult constraintViolated() throws GraphException {
        throw new GraphException(new Neo4jError(Neo4jStatus.Schema.CONSTRAINT_VALIDATION_FAILED,
                "Node(0) already exists with label `K` and property `k` = 1"), null);
    }

    @Test
    void aFailedStatementIsAnsweredItsOwnErrorOnceWhatItRanAfterHasCommitted() throws Exception {
        sink.answerNext("C", TransactionGroupsTest::constraintViolated); // say, A created the key C creates again
        sink.answerNext("C", TransactionGroupsTest::constraintViolated); // and again alone, after A and B commit
        Member z = pacer();
        List<Member> ab = twoRan();
        Member c = groups.member();

        OnThread<StatementResult> cRun = failsThenABCommit(z, ab, c); // C is answered only once A and B commit

        Neo4jError told = told(cRun); // not a retry: run after A and B, C fails just so, and its driver would not retry
        assertThat(told.code()).isEqualTo(Neo4jStatus.Schema.CONSTRAINT_VALIDATION_FAILED);
        assertThat(told.message()).contains("already exists");
        assertThat(sink.calls(2)).containsExactly("begin", "run A", "run B", "run C"); // Neo4j ended it, failing
        assertThat(sink.calls(3)).containsExactly("begin", "run A", "run B", "commit");
        assertThat(sink.calls(4)).containsExactly("begin", "run C"); // alone, after them: it recurs (and ends it)
        assertThat(events).containsExactly("evicted failed", "replayed 2", "committed 1 1", "committed 2 2");
        assertEverythingGivenBack();
    }

    @Test
    void aFailedStatementThatWouldNotFailAfterWhatCommittedIsToldToRetry() throws Exception {
        // C failed after A's and B's work, but their replay (the same answers) wrote otherwise than their first run
        // (another transaction changed what they wrote over): alone, after their commit, C does not fail
        sink.answerNext("C", TransactionGroupsTest::constraintViolated);
        Member z = pacer();
        List<Member> ab = twoRan();
        Member c = groups.member();

        OnThread<StatementResult> cRun = failsThenABCommit(z, ab, c);

        Neo4jError told = told(cRun);
        assertThat(told.code()).isEqualTo(TransactionGroups.ABORTED);
        assertThat(sink.calls(4)).containsExactly("begin", "run C", "rollback");
        assertEverythingGivenBack();
    }

    @Test
    void aFailedStatementIsToldToRetryWhenWorkItRanAfterDoesNotCommit() throws Exception {
        sink.answerNext("C", TransactionGroupsTest::constraintViolated); // perhaps because of what B wrote
        Member z = pacer();
        List<Member> ab = twoRan();
        Member c = groups.member();

        OnThread<StatementResult> cRun = on("run-c", () -> c.run("C", Map.of()));
        waitsOnACondition("C's statement failed and waits for the group it ran after", cRun);
        assertThat(on("rollback-b", () -> ab.get(1).rollback(false)).get(WITHIN)).isTrue(); // B leaves after all
        OnThread<Boolean> aCommit = commit("commit-a", ab.get(0));
        commits(z);
        assertThat(aCommit.get(WITHIN)).isTrue();

        Neo4jError told = told(cRun); // B's work, which C ran after, never committed: C's error may not be its own
        assertThat(told.code()).isEqualTo(TransactionGroups.ABORTED);
        assertThat(told.message()).contains("did not commit", "already exists", "retry");
        assertThat(sink.calls(4)).containsExactly("begin", "run A", "commit");
        assertThat(events).containsExactly("evicted failed", "replayed 2", "evicted rollback", "replayed 1",
                "committed 1 1", "committed 1 1");
        assertEverythingGivenBack();
    }

    @Test
    void aMemberWhoseReplayedAnswerDiffersIsTakenOutAndToldToRetryTheOthersCommit() throws Exception {
        sink.answer("B", result(1), result(2)); // B read what A wrote: without A, its answer changes
        Member z = pacer();
        List<Member> ab = List.of(groups.member(), groups.member());
        Member c = groups.member();
        ab.get(0).run("A", Map.of());
        assertThat(ab.get(1).run("B", Map.of())).isEqualTo(result(1));
        assertThat(c.run("C", Map.of())).isEqualTo(result("C"));

        assertThat(on("rollback-a", () -> ab.get(0).rollback(false)).get(WITHIN)).isTrue(); // A leaves: B and C replayed, B's answers differ, C's do not

        Neo4jError b = told(() -> {
            ab.get(1).commit();
            return null;
        });
        assertThat(b.code()).isEqualTo(TransactionGroups.ABORTED);
        assertThat(b.message()).contains("were not the same");
        OnThread<Boolean> cCommit = commit("commit-c", c);
        commits(z);
        assertThat(cCommit.get(WITHIN)).isTrue();
        assertThat(ab.get(1).abortedGroup()).isFalse();
        assertThat(sink.calls(2)).containsExactly("begin", "run A", "run B", "run C", "rollback");
        assertThat(sink.calls(3)).containsExactly("begin", "run B", "rollback"); // the first replay: B differs
        assertThat(sink.calls(4)).containsExactly("begin", "run C", "commit"); // the second: C alone, the same
        assertThat(events).containsExactly("evicted replay_mismatch", "evicted rollback", "replayed 2",
                "committed 1 1", "committed 1 1");
        assertEverythingGivenBack();
    }

    @Test
    void closingDuringAReplayEndsItAtItsStatementAndTellsEveryoneToRetry() throws Exception {
        Member z = pacer();
        List<Member> ab = twoRan();
        Member c = groups.member();
        c.run("C", Map.of());
        ScriptedSink.Hold replaying = sink.hold("B", 2);
        OnThread<Boolean> aLeaves = on("rollback-a", () -> ab.get(0).rollback(false));
        replaying.awaitEntered(); // the replay (transaction 3) runs B again, and waits

        groups.close();
        replaying.release();

        assertThat(aLeaves.get(WITHIN)).isTrue();
        sink.awaitEnded(3); // the replay, seeing the group aborted, stops after its statement and rolls back
        for (Member m : List.of(ab.get(1), c, z)) {
            Neo4jError e = told(() -> {
                m.commit();
                return null;
            });
            assertThat(e.code()).isEqualTo(TransactionGroups.ABORTED);
            assertThat(e.message()).contains("shutting down");
        }
        assertThat(told(() -> groups.member().run("D", Map.of())).code())
                .isEqualTo(Neo4jStatus.General.DATABASE_UNAVAILABLE);
        assertThat(sink.calls(1)).containsExactly("begin", "run Z", "rollback");
        assertThat(sink.calls(2)).containsExactly("begin", "run A", "run B", "run C", "rollback");
        assertThat(sink.calls(3)).containsExactly("begin", "run B", "rollback"); // C never replayed
        assertThat(sink.begun()).isEqualTo(3);
        assertThat(events).containsExactlyInAnyOrder("aborted 1 shutdown", "aborted 2 shutdown", "evicted rollback",
                "replayed 1");
        assertEverythingGivenBack();
    }

    @Test
    void aGroupReadyBehindACommitWaitingPastTheTimeoutClosesAndCommitsWithoutWaitingForIt() throws Exception {
        CountDownLatch release = new CountDownLatch(1);
        sink.commit(1, () -> { // Z's commit waits in Neo4j, say for a lock the group behind it holds
            try {
                release.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            return null;
        });
        Member z = pacer();
        OnThread<Boolean> zCommit = commit("commit-z", z);
        Await.until("Z's commit under way", WITHIN, () -> sink.calls(1).contains("commit"));
        Member a = groups.member();
        assertThat(a.run("A", Map.of())).isEqualTo(result("A"));
        OnThread<Boolean> aCommit = commit("commit-a", a);
        waitsOnACondition("A's group waiting for the commit in flight", aCommit);

        time.advance(TIMEOUT.multipliedBy(2)); // the watchdog's next pass finds Z's commit waiting past the timeout

        assertThat(aCommit.get(WITHIN)).as("A's group committed while Z's commit still waits").isTrue();
        assertThat(zCommit.isDone()).isFalse();
        release.countDown();
        assertThat(zCommit.get(WITHIN)).isTrue();
        assertThat(sink.calls(2)).containsExactly("begin", "run A", "commit");
        assertThat(events).containsExactly("committed 1 1", "committed 1 1");
        assertEverythingGivenBack();
    }

    @Test
    void aMemberSilentPastTheTimeoutWhileItsGroupWaitsIsTakenOutByTheWatchdogOnTheInjectedClock() throws Exception {
        Member z = pacer();
        List<Member> ab = twoRan();
        OnThread<Boolean> b = commit("commit-b", ab.get(1));
        waitsOnACondition("B waiting for its group's commit", b);
        commits(z); // the group of A and B closes; A never sends COMMIT

        time.advance(TIMEOUT.multipliedBy(2)); // only the manual clock moves: the watchdog's next pass sees it

        assertThat(b.get(WITHIN)).isTrue(); // A taken out, B replayed alone and committed: B never learns of A
        Neo4jError toA = told(() -> {
            ab.get(0).commit();
            return null;
        });
        assertThat(toA.code()).isEqualTo(TransactionGroups.ABORTED);
        assertThat(ab.get(0).abortedGroup()).as("the staller's demotion counts it").isTrue();
        assertThat(ab.get(1).abortedGroup()).isFalse();
        assertThat(sink.calls(1)).containsExactly("begin", "run Z", "commit");
        assertThat(sink.calls(2)).containsExactly("begin", "run A", "run B", "rollback");
        assertThat(sink.calls(3)).containsExactly("begin", "run B", "commit");
        assertThat(events).containsExactly("committed 1 1", "evicted stalled", "replayed 1", "committed 1 1");
        assertEverythingGivenBack();
    }

    @Test
    void aSecondStatementAfterAnotherMembersIsTakenOutAloneAndItsShapeLearned() throws Exception {
        Member z = pacer();
        Member a = groups.member();
        Member b = groups.member();
        a.run("A", Map.of());
        b.run("B", Map.of());

        Neo4jError toA = told(() -> a.run("A2", Map.of())); // it would see B's writes between its own two

        assertThat(toA.code()).isEqualTo(TransactionGroups.ABORTED);
        assertThat(a.abortedGroup()).as("its session's demotion counts it").isTrue();
        assertThat(groups.multiStatement("A")).isTrue();
        OnThread<Boolean> bCommit = commit("commit-b", b);
        commits(z);
        assertThat(bCommit.get(WITHIN)).isTrue(); // B never learns: replayed without A, the same answer
        assertThat(sink.calls(2)).containsExactly("begin", "run A", "run B", "rollback");
        assertThat(sink.calls(3)).containsExactly("begin", "run B", "commit");
        assertThat(events).containsExactly("evicted interleaved", "replayed 1", "committed 1 1", "committed 1 1");
        assertEverythingGivenBack();
    }

    @Test
    void aMemberSilentWhileItKeepsTheTurnIsTakenOutAndTheNextRuns() throws Exception {
        Member z = pacer();
        Member a = groups.member();
        Member b = groups.member();
        a.run("A", Map.of());
        a.run("A", Map.of()); // no one ran between: A now keeps the turn (its shape takes two statements)
        OnThread<StatementResult> bRun = on("run-b", () -> b.run("B", Map.of()));
        waitsOnACondition("B waiting for the turn A keeps", bRun);
        commits(z);

        time.advance(TIMEOUT.multipliedBy(2)); // A stays silent

        assertThat(bRun.get(WITHIN)).isEqualTo(result("B"));
        assertThat(commit("commit-b", b).get(WITHIN)).isTrue();
        assertThat(told(() -> {
            a.commit();
            return null;
        }).code()).isEqualTo(TransactionGroups.ABORTED);
        assertThat(sink.calls(2)).containsExactly("begin", "run A", "run A", "rollback");
        assertThat(sink.calls(3)).containsExactly("begin", "run B", "commit");
        assertThat(events).containsExactly("committed 1 1", "evicted stalled", "replayed 0", "committed 1 1");
        assertEverythingGivenBack();
    }

    @Test
    void aClientLostWhileItsStatementRunsIsTakenOutAndTheOthersGoOnUnaware() throws Exception {
        Member z = pacer();
        Member a = groups.member();
        Member b = groups.member();
        Member c = groups.member();
        a.run("A", Map.of());
        ScriptedSink.Hold running = sink.hold("B", 1);
        OnThread<StatementResult> bRuns = on("run-b", () -> b.run("B", Map.of()));
        running.awaitEntered();
        OnThread<StatementResult> cRuns = on("run-c", () -> c.run("C", Map.of()));
        waitsOnACondition("C waiting for the turn", cRuns);
        OnThread<Boolean> bGone = on("rollback-b", () -> b.rollback(true)); // its connection closed under it
        waitsOnACondition("the replay waiting for B's statement to end", bGone);

        running.release();

        Neo4jError toB = told(bRuns);
        assertThat(toB.code()).isEqualTo(TransactionGroups.ABORTED);
        assertThat(toB.message()).contains("taken out");
        assertThat(bGone.get(WITHIN)).isTrue();
        assertThat(cRuns.get(WITHIN)).isEqualTo(result("C")); // after the replay, in its transaction
        OnThread<Boolean> aCommits = commit("commit-a", a);
        OnThread<Boolean> cCommits = commit("commit-c", c);
        commits(z);
        assertThat(aCommits.get(WITHIN)).isTrue();
        assertThat(cCommits.get(WITHIN)).isTrue();
        assertThat(b.abortedGroup()).isFalse();
        assertThat(sink.calls(2)).containsExactly("begin", "run A", "run B", "rollback");
        assertThat(sink.calls(3)).containsExactly("begin", "run A", "run C", "commit");
        assertThat(events).containsExactly("evicted disconnected", "replayed 1", "committed 1 1", "committed 2 2");
        assertEverythingGivenBack();
    }

    @Test
    void thePhaseTableRefusesAnIllegalMoveNamingBoth() throws Exception {
        Groups table = new Groups(sink, TxRegistry.Gate.NONE, new Options(4, TIMEOUT), time,
                Listener.NONE);
        Seat s = new Seat(table.lock.newCondition());
        table.lock.lock();
        try {
            table.join(s, "A");
            Group g = s.group;
            assertThat(g.phase()).isEqualTo(Phase.OPEN);
            assertThatThrownBy(() -> table.move(g, Phase.COMMITTING)).isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("from OPEN to COMMITTING");
            table.move(g, Phase.SEALED);
            table.move(g, Phase.CLOSED);
            assertThat(table.closedUnfinished()).isEqualTo(1);
            table.move(g, Phase.COMMITTING);
            assertThat(table.closedUnfinished()).isEqualTo(1);
            table.move(g, Phase.COMMITTED);
            assertThat(table.closedUnfinished()).isZero();
            assertThat(table.liveGroups()).isEmpty();
            assertThatThrownBy(() -> table.move(g, Phase.ABORTED)).isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("from COMMITTED to ABORTED");
        } finally {
            table.lock.unlock();
        }
        for (Phase end : List.of(Phase.COMMITTED, Phase.ABORTED, Phase.DISSOLVED)) {
            assertThat(Stream.of(Phase.values()).filter(end::mayMoveTo)).as("moves from %s", end).isEmpty();
        }
    }
}
