package io.sluice.bench;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import java.nio.charset.StandardCharsets;

/**
 * Whether a 2xx answer is a write: Neo4j's classic API answers a statement that failed with {@code 200} and a
 * non-empty {@code "errors"} array (the transaction rolled back), and its Query API, in some cases, a 2xx with
 * {@code "errors"} too; counted by status alone, those would be writes. A scan of the body for the key
 * {@code "errors"} followed by an array with something in it: no JSON parse, no copy (bodies here are a few
 * hundred bytes). A key {@code "errors"} nested in returned data would be read as the top-level one; the
 * bench's statements return nothing.
 */
final class Answers {
    private static final ByteBuf KEY = Unpooled.unreleasableBuffer(
            Unpooled.wrappedBuffer("\"errors\"".getBytes(StandardCharsets.US_ASCII)));

    private Answers() {}

    /** Whether {@code body} (read from its reader index, left unchanged) reports errors. */
    static boolean reportErrors(ByteBuf body) {
        int from = body.readerIndex();
        int end = body.writerIndex();
        while (from < end) {
            int at = ByteBufUtil.indexOf(KEY.duplicate(), body.slice(from, end - from));
            if (at < 0) {
                return false;
            }
            int i = skipSpace(body, from + at + KEY.readableBytes(), end);
            if (i < end && body.getByte(i) == ':') { // a key, not a string value "errors"
                i = skipSpace(body, i + 1, end);
                if (i < end && body.getByte(i) == '[') {
                    i = skipSpace(body, i + 1, end);
                    return i < end && body.getByte(i) != ']';
                }
            }
            from = from + at + 1;
        }
        return false;
    }

    static boolean reportErrors(byte[] body) {
        return reportErrors(Unpooled.wrappedBuffer(body));
    }

    private static int skipSpace(ByteBuf b, int i, int end) {
        while (i < end) {
            byte c = b.getByte(i);
            if (c != ' ' && c != '\n' && c != '\r' && c != '\t') {
                return i;
            }
            i++;
        }
        return i;
    }
}
