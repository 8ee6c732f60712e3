package io.sluice.bolt;

import io.sluice.config.Mode;
import io.sluice.front.Callers;
import io.sluice.metrics.Metrics;
import io.sluice.session.Session;
import io.sluice.session.Sessions;
import io.sluice.time.Time;
import io.sluice.write.Outcome;
import java.time.Duration;
import java.util.concurrent.Executor;
import org.slf4j.Logger;

/**
 * What a Bolt connection uses, shared by all of them: the session layer (every statement and transaction goes
 * through a {@link Session} of it), who is calling, the server agent drivers require
 * ({@code Neo4j/<version>}), the keep-alive (NOOP) interval and the receive timeout hinted to drivers, the address a
 * routing driver is sent back to, bookmarks, the clock, the executor a step may block on, metrics and the log.
 */
record BoltServices(Sessions sessions, Callers callers, String serverAgent, Duration keepAlive, String advertised,
        Bookmarks bookmarks, Time time, Executor blocking, Meter metrics, Logger log) {

    /** The driver's read timeout we hint: long enough for two missed keep-alives. */
    long recvTimeoutSeconds() {
        return Math.max(1, keepAlive.multipliedBy(2).toSeconds());
    }

    /** The database statements run on. */
    String database() {
        return sessions.database();
    }

    /** The Bolt front end's figures, over the server's {@link Metrics}, in Bolt's own terms. Thread-safe. */
    static final class Meter {
        private final Metrics metrics;

        Meter(Metrics metrics) {
            this.metrics = metrics;
        }

        void connectionOpened() {
            metrics.boltConnections(1);
        }

        void connectionClosed() {
            metrics.boltConnections(-1);
        }

        void message(String name) {
            metrics.boltMessage(name);
        }

        void failure(String code) {
            metrics.boltFailure(code);
        }

        void transaction(String event) {
            metrics.boltTransaction(event);
        }

        /** An auto-commit statement answered, by its mode and outcome. */
        void statement(Mode mode, Outcome o, long nanos) {
            switch (o) {
                case Outcome.Committed c -> metrics.boltStatement(mode.label(), "committed", c.rows(), nanos);
                case Outcome.Accepted a -> metrics.boltStatement(mode.label(), "accepted", a.rows(), nanos);
                case Outcome.Failed f -> metrics.boltStatement(mode.label(), "failed", 0, nanos);
                case Outcome.Overloaded over -> metrics.boltStatement(mode.label(), "overloaded", 0, nanos);
            }
        }
    }
}
