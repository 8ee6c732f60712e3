package io.sluice.http;

import io.sluice.vocab.Neo4jError;
import io.sluice.vocab.Neo4jStatus;
import io.sluice.write.Outcome;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * An HTTP response, and the one place where an error becomes an HTTP status ({@link #statusOf}, and the classic
 * API's {@link #classicRefusalStatus}): status, a JSON (or text) body, an optional Retry-After in seconds and Location; {@code rows}:
 * the rows a write answered here carried (for the metrics; 0 for anything but a committed or accepted write).
 */
record Reply(int status, byte[] body, String contentType, long retryAfterSeconds, String location, int rows) {
    static final String JSON = "application/json";

    Reply(int status, byte[] body, String contentType, long retryAfterSeconds, String location) {
        this(status, body, contentType, retryAfterSeconds, location, 0);
    }

    Reply(int status, byte[] body, String contentType, long retryAfterSeconds) {
        this(status, body, contentType, retryAfterSeconds, null);
    }

    /** The same, counting {@code n} rows written. */
    Reply withRows(int n) {
        return new Reply(status, body, contentType, retryAfterSeconds, location, n);
    }

    static Reply json(int status, Object body) {
        return new Reply(status, Json.write(body), JSON, 0);
    }

    /** An error in Neo4j's format: {@code {"errors":[{"code":...,"message":...}]}} (plus empty results). */
    static Reply error(int status, Neo4jError e) {
        Map<String, Object> err = new LinkedHashMap<>();
        err.put("code", e.code());
        err.put("message", e.message());
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("results", List.of());
        body.put("errors", List.of(err));
        return json(status, body);
    }

    static Reply error(Neo4jError e) {
        return error(e, false);
    }

    /** The reply to a failed request: status from the code, Retry-After when transient, either body shape. */
    static Reply error(Neo4jError e, boolean errorsOnly) {
        Reply r = errorsOnly ? errorsOnly(statusOf(e), e) : error(statusOf(e), e);
        return e.isTransient() ? r.retryAfter(1) : r;
    }

    /** Neo4j's Query API and authentication error body: {@code {"errors": [...]}}, no {@code results}. */
    static Reply errorsOnly(int status, Neo4jError e) {
        Map<String, Object> err = new LinkedHashMap<>();
        err.put("code", e.code());
        err.put("message", e.message());
        return json(status, Map.of("errors", List.of(err)));
    }

    /** 503 with Retry-After: sluice is full or shutting down; nothing was applied. */
    static Reply overloaded(Outcome.Overloaded ov) {
        return overloaded(ov, false);
    }

    static Reply overloaded(Outcome.Overloaded ov, boolean errorsOnly) {
        Neo4jError e = overloadedError(ov);
        return (errorsOnly ? errorsOnly(503, e) : error(503, e)).retryAfter(ov.retryAfter().toSeconds());
    }

    /** The same answer under another media type (the typed Query API's, also on its errors, as Neo4j). */
    Reply withContentType(String type) {
        return new Reply(status, body, type, retryAfterSeconds, location);
    }

    Reply retryAfter(long seconds) {
        return new Reply(status, body, contentType, seconds, location);
    }

    /** The same answer with a {@code Location} header (a resource it created). */
    Reply withLocation(String url) {
        return new Reply(status, body, contentType, retryAfterSeconds, url);
    }

    /**
     * HTTP status for the classic API's refusal of a request on an explicit transaction before any statement of it
     * ran ({@code notFound}: the id is unknown, expired, finished or another caller's), as Neo4j's classic API
     * answers: 404 when not found or in use, 503 for sluice's bounds (transient), else 200 with the error in the
     * envelope. A statement's own failure is always 200 there.
     */
    static int classicRefusalStatus(Neo4jError e, boolean notFound) {
        if (notFound || e.code().equals(Neo4jStatus.Transaction.TRANSACTION_ACCESSED_CONCURRENTLY)) {
            return 404;
        }
        return e.isTransient() ? 503 : 200;
    }

    /** HTTP status for a Neo4j error: client errors 4xx, transient 503, database errors 500. */
    static int statusOf(Neo4jError e) {
        String c = e.code();
        if (c.equals(Neo4jStatus.Database.DATABASE_NOT_FOUND)) {
            return 404;
        }
        if (c.equals(Neo4jStatus.Sluice.ENTITY_TOO_LARGE)) {
            return 413;
        }
        if (c.startsWith(Neo4jStatus.Security.PREFIX)) {
            return 403;
        }
        if (e.isClientError()) {
            return 400;
        }
        if (e.isTransient()) {
            return 503;
        }
        return 500;
    }

    /** sluice's refusal when full or shutting down (HTTP 503 with Retry-After). */
    static Neo4jError overloadedError(Outcome.Overloaded ov) {
        return new Neo4jError(Neo4jStatus.Request.RESOURCE_EXHAUSTION, ov.reason());
    }

}
