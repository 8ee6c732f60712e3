package io.sluice.session;

import io.sluice.security.Credentials;
import io.sluice.sink.Sink;
import io.sluice.vocab.GraphException;

/** The DBMS's {@code system} database (users, databases): a session on it as a user (null: the sink's own account). */
@FunctionalInterface
public interface SystemDatabase {
    Sink.SystemSession as(Credentials user) throws GraphException;
}
