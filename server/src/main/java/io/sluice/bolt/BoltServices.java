package io.sluice.bolt;

import io.sluice.config.Mode;
import io.sluice.front.Callers;
import io.sluice.metrics.Metrics;
import io.sluice.security.Credentials;
import io.sluice.sink.Sink;
import io.sluice.time.Time;
import io.sluice.vocab.GraphException;
import io.sluice.write.ExplicitTransactions;
import io.sluice.write.Outcome;
import io.sluice.write.WritePath;
import java.time.Duration;
import java.util.concurrent.Executor;
import org.slf4j.Logger;

/**
 * What a Bolt connection uses, shared by all of them: the write path, its explicit transactions and its groups of
 * managed ones, who is
 * calling, the server agent drivers require ({@code Neo4j/<version>}), the keep-alive (NOOP) interval and the
 * receive timeout hinted to drivers, the address a routing driver is sent back to, bookmarks, the clock, the
 * executor a write may block on, metrics and the log.
 */
record BoltServices(WritePath writes, ExplicitTransactions transactions, Grouping grouping, SystemDatabase system,
        Callers callers, String serverAgent,
        Duration keepAlive, String advertised, Bookmarks bookmarks, Time time, Executor blocking, Meter metrics,
        Logger log) {


    /** The driver's read timeout we hint: long enough for two missed keep-alives. */
    long recvTimeoutSeconds() {
        return Math.max(1, keepAlive.multipliedBy(2).toSeconds());
    }

    /** The DBMS's {@code system} database (users ...): a session as a user. */
    @FunctionalInterface
    interface SystemDatabase {
        Sink.SystemSession as(Credentials user) throws GraphException;
    }

    /** The Bolt front end's figures, over the server's {@link Metrics}. Thread-safe. */
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

        /**
         * An auto-commit statement answered: into the same series as HTTP's writes (mode, raw Cypher, and the
         * status HTTP would have answered), so a dashboard's rates count both doors.
         */
        void request(Mode mode, Outcome o, long nanos) {
            int status;
            int rows = 0;
            switch (o) {
                case Outcome.Committed c -> {
                    status = 200;
                    rows = c.rows();
                }
                case Outcome.Accepted a -> {
                    status = 202;
                    rows = a.rows();
                }
                case Outcome.Failed f -> status = f.error().isClientError() ? 400 : f.error().isTransient() ? 503 : 500;
                case Outcome.Overloaded over -> status = 503;
            }
            // labelled by mode, as HTTP's meter labels a Cypher request (reads included)
            metrics.request(mode.label(), Metrics.CYPHER, status, rows, nanos);
        }
    }
}
