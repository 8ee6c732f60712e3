package io.sluice.support;

import io.sluice.sink.Sink;

/** {@link io.sluice.sink.ForwardingSink} where tests find it; they override what they want to break. */
public class ForwardingSink extends io.sluice.sink.ForwardingSink {
    public ForwardingSink(Sink real) {
        super(real);
    }
}
