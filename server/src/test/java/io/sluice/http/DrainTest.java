package io.sluice.http;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.support.TestServer;
import java.io.ByteArrayOutputStream;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A client that writes its whole body before it reads (most do) gets sluice's answer, not a reset, when the
 * request is refused before its body is read: 413 for a body over the limit (declared or chunked), 401 without
 * credentials. A raw socket, so nothing in a client library hides a broken pipe.
 */
@Timeout(120)
class DrainTest {
    static TestServer s;

    @BeforeAll
    static void start() {
        s = TestServer.start("templates:\n  item: {cypher: 'CREATE (:Item {id: row.id})', key: [id]}\n"
                + "admission: {max_body_bytes: 1mb}\n", false);
    }

    @AfterAll
    static void stop() {
        s.close();
    }

    /** Writes the whole request (head, then body in 64 KiB writes), then reads the whole answer. */
    static String exchange(String head, byte[] body, boolean chunked) throws Exception {
        try (Socket socket = new Socket("127.0.0.1", s.server.httpAddress().getPort())) {
            socket.setSoTimeout(30_000);
            OutputStream out = socket.getOutputStream();
            out.write(head.getBytes(StandardCharsets.US_ASCII));
            for (int at = 0; at < body.length; at += 65536) {
                int n = Math.min(65536, body.length - at);
                if (chunked) {
                    out.write((Integer.toHexString(n) + "\r\n").getBytes(StandardCharsets.US_ASCII));
                }
                out.write(body, at, n); // a broken pipe here is what the drain prevents
                if (chunked) {
                    out.write("\r\n".getBytes(StandardCharsets.US_ASCII));
                }
            }
            if (chunked) {
                out.write("0\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
            }
            out.flush();
            InputStream in = socket.getInputStream();
            ByteArrayOutputStream answer = new ByteArrayOutputStream();
            in.transferTo(answer); // the server closes after a refusal
            return answer.toString(StandardCharsets.UTF_8);
        }
    }

    static byte[] body(int bytes) {
        byte[] b = new byte[bytes];
        Arrays.fill(b, (byte) ' ');
        b[0] = '[';
        b[bytes - 1] = ']';
        return b;
    }

    @Test
    void aDeclared64MiBBodyGets413() throws Exception {
        byte[] big = body(64 << 20);
        String answer = exchange("POST /db/neo4j/write/item HTTP/1.1\r\nHost: localhost\r\nAuthorization: "
                + TestServer.AUTH + "\r\nContent-Type: application/json\r\nContent-Length: " + big.length + "\r\n\r\n",
                big, false);
        assertThat(answer).startsWith("HTTP/1.1 413").contains("Neo.ClientError.Request.EntityTooLarge");
    }

    @Test
    void aChunkedBodyOverTheLimitGets413() throws Exception {
        String answer = exchange("POST /db/neo4j/write/item HTTP/1.1\r\nHost: localhost\r\nAuthorization: "
                + TestServer.AUTH + "\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n",
                body(8 << 20), true);
        assertThat(answer).startsWith("HTTP/1.1 413").contains("Neo.ClientError.Request.EntityTooLarge");
    }

    @Test
    void aBodyWithoutCredentialsGets401() throws Exception {
        byte[] body = body(900 << 10);
        String answer = exchange("POST /db/neo4j/write/item HTTP/1.1\r\nHost: localhost\r\n"
                + "Content-Type: application/json\r\nContent-Length: " + body.length + "\r\n\r\n", body, false);
        assertThat(answer).startsWith("HTTP/1.1 401").contains("Neo.ClientError.Security.Unauthorized");
    }
}
