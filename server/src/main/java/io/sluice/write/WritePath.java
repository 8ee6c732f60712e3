package io.sluice.write;

import io.sluice.config.Mode;
import io.sluice.vocab.QueryKind;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;

/**
 * The one interface through which a front end (HTTP, Bolt, an in-process client) runs a request in an implicit
 * transaction: validated, classified, admitted and routed by {@link Mode} (batched for sync, journaled for async,
 * alone for direct), answered with an {@link Outcome}. It never throws for a client's mistake, and it knows
 * nothing of any protocol: ids, envelopes and error texts of a wire format are the front end's business.
 * Explicit transactions are {@link ExplicitTransactions}; what an operator asks is {@link Operations}. Thread-safe.
 */
public interface WritePath {
    /** Runs {@code request} for an in-process caller who may send everything (the importer, tests). */
    default Outcome execute(WriteRequest request, Mode mode) {
        return execute(request, mode, Caller.INTERNAL);
    }

    /**
     * Runs {@code request} if {@code caller}'s access allows it (a refusal is
     * {@code Neo.ClientError.Security.Forbidden}); blocks the calling (virtual) thread until its outcome.
     */
    Outcome execute(WriteRequest request, Mode mode, Caller caller);

    /**
     * {@link #execute} without blocking the caller where the write path can: the outcome's future. What cannot
     * start without waiting runs on {@code blocking}, which may block. The future never completes exceptionally
     * for a client's mistake.
     */
    default CompletableFuture<Outcome> submit(WriteRequest request, Mode mode, Caller caller, Executor blocking) {
        return CompletableFuture.supplyAsync(() -> execute(request, mode, caller), blocking);
    }

    /** The named template, if the config has one. */
    Optional<Template> template(String name);

    /** The database name requests must address (Neo4j Community has one user database). */
    String database();

    /**
     * What Neo4j plans {@code cypher} as (read, write, alone), or null when it does not compile: from the same
     * cache the write path classifies with.
     */
    QueryKind kind(String cypher);
}
