package io.sluice.support;

import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.Locale;

/**
 * HTTP/1.1 by hand on a kept-alive socket, for tests that need what an HTTP client hides: several requests in one
 * write (pipelining), a half-closed connection, a header sent again on the same connection. Reads byte by byte, so
 * nothing of a later response is consumed with an earlier one.
 */
public final class RawHttp {
    private RawHttp() {
    }

    /** A response's status and its Content-Length body. */
    public record Response(int status, String body) { }

    /** The text of a JSON POST to {@code target} (path and query) with that {@code Authorization} value. */
    public static String post(String target, String authorization, String body) {
        return "POST " + target + " HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: " + authorization
                + "\r\nContent-Type: application/json\r\nContent-Length: "
                + body.getBytes(StandardCharsets.UTF_8).length + "\r\n\r\n" + body;
    }

    /** Writes {@code requests} (one or several) to the socket at once. */
    public static void send(Socket socket, String requests) throws IOException {
        OutputStream out = socket.getOutputStream();
        out.write(requests.getBytes(StandardCharsets.UTF_8));
        out.flush();
    }

    /** The next response on {@code in}; EOFException if the connection closes inside it. */
    public static Response read(InputStream in) throws IOException {
        String status = line(in);
        int length = 0;
        for (String header = line(in); !header.isEmpty(); header = line(in)) {
            if (header.toLowerCase(Locale.ROOT).startsWith("content-length:")) {
                length = Integer.parseInt(header.substring(header.indexOf(':') + 1).strip());
            }
        }
        byte[] body = in.readNBytes(length);
        if (body.length < length) {
            throw new EOFException("connection closed in a body of " + length + " bytes after " + body.length);
        }
        return new Response(Integer.parseInt(status.split(" ")[1]), new String(body, StandardCharsets.UTF_8));
    }

    private static String line(InputStream in) throws IOException {
        StringBuilder b = new StringBuilder();
        for (int c = in.read(); c != '\n'; c = in.read()) {
            if (c < 0) {
                throw new EOFException("connection closed in a response's head after: " + b);
            }
            if (c != '\r') {
                b.append((char) c);
            }
        }
        return b.toString();
    }
}
