package io.sluice.bolt;

import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import java.io.ByteArrayOutputStream;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * A connection's replies on their way out: a buffer the worker writes whole messages into, written to the socket
 * at {@link #flush} (when the worker has nothing more to answer at once, so pipelined requests get one write),
 * and the wait while the socket's own buffer is full (a client that does not read stops only its own replies).
 * The buffer is the worker's; {@link #signalWritable} is the event loop's.
 */
final class Outbox {
    private final Channel channel;
    private final ByteArrayOutputStream buffer = new ByteArrayOutputStream(1024);
    private final ReentrantLock writability = new ReentrantLock();
    private final Condition writable = writability.newCondition();

    Outbox(Channel channel) {
        this.channel = channel;
    }

    ByteArrayOutputStream buffer() {
        return buffer;
    }

    /** Writes what is buffered; waits while the socket's buffer is full, until it drains or the socket closes. */
    void flush() throws InterruptedException {
        if (buffer.size() == 0) {
            return;
        }
        channel.writeAndFlush(Unpooled.wrappedBuffer(buffer.toByteArray()));
        buffer.reset();
        if (channel.isWritable()) {
            return;
        }
        writability.lock();
        try {
            while (!channel.isWritable() && channel.isActive()) {
                writable.await(1, TimeUnit.SECONDS);
            }
        } finally {
            writability.unlock();
        }
    }

    /** On the event loop: the socket's writability changed, or it closed. */
    void signalWritable() {
        writability.lock();
        try {
            writable.signalAll();
        } finally {
            writability.unlock();
        }
    }
}
