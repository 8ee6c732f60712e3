package io.sluice.history;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * A TCP forwarder in front of a Bolt server whose connections can be cut abruptly ({@link #cut}: a reset, no Bolt
 * goodbye), the way a client dies mid-transaction. The Java driver gives no hold of its sockets, so a disconnecting
 * transaction's driver connects through one of these.
 */
final class CutProxy implements AutoCloseable {
    private final ServerSocket server;
    private final String host;
    private final int targetPort;
    private final List<Socket> sockets = new CopyOnWriteArrayList<>();

    private CutProxy(String host, int targetPort) throws IOException {
        this.host = host;
        this.targetPort = targetPort;
        server = new ServerSocket(0, 16, InetAddress.getLoopbackAddress());
        Thread.ofVirtual().name("cut-proxy-accept").start(this::accept);
    }

    static CutProxy start(String host, int port) throws IOException {
        return new CutProxy(host, port);
    }

    int port() {
        return server.getLocalPort();
    }

    private void accept() {
        try {
            while (true) {
                Socket client = server.accept();
                Socket upstream = new Socket();
                sockets.add(client);
                sockets.add(upstream);
                try {
                    upstream.connect(new InetSocketAddress(host, targetPort), 5000);
                } catch (IOException e) {
                    client.close();
                    continue;
                }
                Thread.ofVirtual().start(() -> pump(client, upstream));
                Thread.ofVirtual().start(() -> pump(upstream, client));
            }
        } catch (IOException closed) {
            // cut or closed
        }
    }

    private static void pump(Socket from, Socket to) {
        byte[] buf = new byte[16384];
        try (InputStream in = from.getInputStream(); OutputStream out = to.getOutputStream()) {
            int n;
            while ((n = in.read(buf)) >= 0) {
                out.write(buf, 0, n);
                out.flush();
            }
        } catch (IOException e) {
            // a cut
        } finally {
            closeQuietly(from);
            closeQuietly(to);
        }
    }

    /** Stops accepting and resets every connection, both ways. */
    void cut() {
        closeQuietly(server);
        for (Socket s : sockets) {
            try {
                s.setSoLinger(true, 0);
            } catch (IOException ignored) {
                // already closed
            }
            closeQuietly(s);
        }
    }

    private static void closeQuietly(AutoCloseable c) {
        try {
            c.close();
        } catch (Exception ignored) {
            // closing
        }
    }

    @Override
    public void close() {
        cut();
    }
}
