package io.sluice.http;

import io.sluice.config.Mode;
import io.sluice.metrics.Metrics;
import io.sluice.time.Time;
import io.undertow.server.HttpServerExchange;
import io.undertow.util.AttachmentKey;
import java.util.Deque;

/**
 * What every endpoint reads from an exchange and reports of it: its parameters, its mode ({@code ?mode=}, or the
 * caller's default), and its answer to the metrics with its latency, counted from when its headers were read
 * ({@link #arrived}). Thread-safe.
 */
final class Meter {
    /** When the request's headers had been read ({@link Time#nanos}): its latency runs from here to its answer. */
    private static final AttachmentKey<Long> ARRIVED = AttachmentKey.create(Long.class);

    private final Metrics metrics;
    private final Time time;
    private final AuthGate gate;

    Meter(Metrics metrics, Time time, AuthGate gate) {
        this.metrics = metrics;
        this.time = time;
        this.gate = gate;
    }

    /** Marks the request as arrived now. */
    void arrived(HttpServerExchange ex) {
        ex.putAttachment(ARRIVED, time.nanos());
    }

    /** Reports the answered request to the metrics; {@code template} as {@link Metrics#request} takes it. */
    Reply counted(HttpServerExchange ex, Reply r, String template) {
        Long start = ex.getAttachment(ARRIVED);
        metrics.request(modeLabel(mode(ex)), template, r.status(), r.rows(), start == null ? 0 : time.nanos() - start);
        return r;
    }

    /** The request's {@code ?mode=}, or its caller's default mode (config {@code modes}). */
    String mode(HttpServerExchange ex) {
        String text = param(ex, "mode");
        return text == null || text.isEmpty() ? gate.callerOf(ex).mode().label() : text;
    }

    /** The {@code mode} label: one of the modes, or {@code invalid}, never the client's text (bounded series). */
    static String modeLabel(String text) {
        try {
            return Mode.parse(text).label();
        } catch (IllegalArgumentException e) {
            return "invalid";
        }
    }

    static String param(HttpServerExchange ex, String name) {
        Deque<String> v = ex.getQueryParameters().get(name);
        return v == null || v.isEmpty() ? null : v.getFirst();
    }
}
