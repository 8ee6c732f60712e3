package io.sluice.support;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.WebSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Headless Chromium (Debian's {@code chromium} package) driven over the Chrome DevTools Protocol, on the
 * WebSocket Chromium opens ({@code --remote-debugging-port=0}), with {@code java.net.http}: no npm package, no
 * driver download, nothing from the network. One browser process, one page.
 *
 * <p>What the page says at the error level is recorded from the start ({@link #problems}): its console's errors
 * and failed assertions ({@code Runtime.consoleAPICalled}), uncaught exceptions and rejected promises
 * ({@code Runtime.exceptionThrown}), and the browser's own log of the page ({@code Log.entryAdded}: a failed
 * resource load, a Content-Security-Policy violation, ...).
 *
 * <p>Owns the Chromium process, a thread draining its stderr ({@code chromium-stderr}) and a temporary profile
 * directory; {@link #close} ends all three (bounded waits). Thread-safe.
 */
public final class Chromium implements AutoCloseable {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Duration COMMAND_TIMEOUT = Duration.ofSeconds(60);

    /** One message at the error level from the page or the browser's log of it. */
    public record Problem(String source, String text, String url) {
        @Override
        public String toString() {
            return source + ": " + text + (url == null || url.isEmpty() ? "" : " (" + url + ")");
        }
    }

    private final Process process;
    private final Path profile;
    private volatile WebSocket socket; // set once, by connect
    private final AtomicInteger ids = new AtomicInteger();
    private final Map<Integer, CompletableFuture<JsonNode>> waiting = new ConcurrentHashMap<>();
    private final List<Problem> problems = new CopyOnWriteArrayList<>();
    private final List<CompletableFuture<Void>> loads = new CopyOnWriteArrayList<>();
    private final Thread drain;

    private Chromium(Process process, Path profile, Thread drain) {
        this.process = process;
        this.profile = profile;
        this.drain = drain;
    }

    /**
     * Chromium's binary: {@code $SLUICE_CHROMIUM}, else {@code /usr/bin/chromium} (Debian's package), else
     * {@code chromium} or {@code chromium-browser} on the PATH; empty when there is none that runs.
     */
    public static Optional<Path> find() {
        List<Path> candidates = new ArrayList<>();
        String given = System.getenv("SLUICE_CHROMIUM");
        if (given != null && !given.isBlank()) {
            candidates.add(Path.of(given));
        }
        candidates.add(Path.of("/usr/bin/chromium"));
        for (String dir : System.getenv().getOrDefault("PATH", "").split(java.io.File.pathSeparator)) {
            if (!dir.isEmpty()) {
                candidates.add(Path.of(dir, "chromium"));
                candidates.add(Path.of(dir, "chromium-browser"));
            }
        }
        return candidates.stream().filter(Files::isExecutable).filter(Chromium::answersVersion).findFirst();
    }

    private static boolean answersVersion(Path binary) {
        try {
            Process p = new ProcessBuilder(binary.toString(), "--version").redirectErrorStream(true).start();
            String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            return p.waitFor(30, TimeUnit.SECONDS) && p.exitValue() == 0 && out.contains("Chrom");
        } catch (IOException e) {
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    /** Starts headless Chromium on {@code about:blank} and attaches to its page, recording problems from now. */
    public static Chromium launch(Path binary, int width, int height) throws IOException {
        Path profile = Files.createTempDirectory("sluice-chromium-");
        List<String> command = List.of(binary.toString(), "--headless", "--no-sandbox", "--disable-gpu",
                "--disable-dev-shm-usage", "--no-first-run", "--no-default-browser-check", "--disable-extensions",
                "--disable-background-networking", "--disable-component-update", "--disable-sync",
                "--disable-default-apps", "--password-store=basic", "--mute-audio", "--hide-scrollbars",
                "--remote-debugging-address=127.0.0.1", "--remote-debugging-port=0",
                "--user-data-dir=" + profile, "--window-size=" + width + "," + height, "about:blank");
        Process process = new ProcessBuilder(command).redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
        ArrayDeque<String> tail = new ArrayDeque<>();
        CompletableFuture<String> listening = new CompletableFuture<>();
        Thread drain = Thread.ofPlatform().name("chromium-stderr").daemon(true).start(() -> {
            try (BufferedReader r = new BufferedReader(new InputStreamReader(process.getErrorStream(),
                    StandardCharsets.UTF_8))) {
                String line;
                while ((line = r.readLine()) != null) {
                    int at = line.indexOf("DevTools listening on ");
                    if (at >= 0) {
                        listening.complete(line.substring(at + "DevTools listening on ".length()).strip());
                    }
                    synchronized (tail) {
                        tail.addLast(line);
                        if (tail.size() > 40) {
                            tail.removeFirst();
                        }
                    }
                }
            } catch (IOException e) {
                // the process ended
            }
            listening.completeExceptionally(new IOException("chromium exited before opening DevTools"));
        });
        try {
            String browserUrl = listening.get(60, TimeUnit.SECONDS);
            URI u = URI.create(browserUrl);
            String pageUrl = pageTarget("http://" + u.getHost() + ":" + u.getPort() + "/json/list");
            Chromium c = new Chromium(process, profile, drain);
            c.connect(pageUrl);
            return c;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            stop(process, profile, drain);
            throw new IOException("interrupted while starting chromium", e);
        } catch (ExecutionException | TimeoutException | IOException | RuntimeException e) {
            stop(process, profile, drain);
            String stderr;
            synchronized (tail) {
                stderr = String.join("\n", tail);
            }
            throw new IOException("cannot start chromium (" + e + "); its stderr:\n" + stderr, e);
        }
    }

    /** The WebSocket URL of the browser's one page (type "page"). */
    private static String pageTarget(String listUrl) throws IOException, InterruptedException {
        try (HttpClient http = HttpClient.newHttpClient()) {
            HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create(listUrl))
                    .timeout(Duration.ofSeconds(30)).build(), HttpResponse.BodyHandlers.ofString());
            for (JsonNode t : JSON.readTree(r.body())) {
                if ("page".equals(t.path("type").asText())) {
                    return t.path("webSocketDebuggerUrl").asText();
                }
            }
            throw new IOException("chromium has no page target: " + r.body());
        }
    }

    private void connect(String pageUrl) throws IOException {
        try {
            socket = HttpClient.newHttpClient().newWebSocketBuilder().connectTimeout(Duration.ofSeconds(30))
                    .buildAsync(URI.create(pageUrl), new Listener()).get(60, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException(e);
        } catch (ExecutionException | TimeoutException e) {
            throw new IOException("cannot open the DevTools WebSocket " + pageUrl + ": " + e, e);
        }
        send("Runtime.enable", Map.of());
        send("Log.enable", Map.of());
        send("Page.enable", Map.of());
    }

    /** The listener of the one WebSocket: answers go to their waiters, events to {@link #event}. */
    private final class Listener implements WebSocket.Listener {
        private final StringBuilder partial = new StringBuilder();

        @Override
        public void onOpen(WebSocket ws) {
            ws.request(1);
        }

        @Override
        public CompletionStage<?> onText(WebSocket ws, CharSequence data, boolean last) {
            partial.append(data);
            if (last) {
                String text = partial.toString();
                partial.setLength(0);
                try {
                    dispatch(JSON.readTree(text));
                } catch (IOException e) {
                    problems.add(new Problem("driver", "undecodable DevTools message: " + e.getMessage(), ""));
                }
            }
            ws.request(1);
            return null;
        }

        @Override
        public void onError(WebSocket ws, Throwable error) {
            waiting.values().forEach(f -> f.completeExceptionally(error));
        }

        @Override
        public CompletionStage<?> onClose(WebSocket ws, int status, String reason) {
            waiting.values().forEach(f -> f.completeExceptionally(new IOException("DevTools closed: " + reason)));
            return null;
        }
    }

    private void dispatch(JsonNode m) {
        if (m.has("id")) {
            CompletableFuture<JsonNode> f = waiting.remove(m.get("id").asInt());
            if (f != null) {
                if (m.has("error")) {
                    f.completeExceptionally(new IOException("DevTools error: " + m.get("error")));
                } else {
                    f.complete(m.path("result"));
                }
            }
            return;
        }
        event(m.path("method").asText(), m.path("params"));
    }

    private void event(String method, JsonNode p) {
        switch (method) {
            case "Runtime.consoleAPICalled" -> {
                String type = p.path("type").asText();
                if (type.equals("error") || type.equals("assert")) {
                    StringBuilder text = new StringBuilder();
                    for (JsonNode a : p.path("args")) {
                        text.append(text.isEmpty() ? "" : " ")
                                .append(a.has("value") ? a.get("value").asText() : a.path("description").asText());
                    }
                    problems.add(new Problem("console." + type, text.toString(), ""));
                }
            }
            case "Runtime.exceptionThrown" -> {
                JsonNode d = p.path("exceptionDetails");
                problems.add(new Problem("exception", d.path("text").asText() + " "
                        + d.path("exception").path("description").asText(), d.path("url").asText()));
            }
            case "Log.entryAdded" -> {
                JsonNode e = p.path("entry");
                if (e.path("level").asText().equals("error")) {
                    problems.add(new Problem("log." + e.path("source").asText(), e.path("text").asText(),
                            e.path("url").asText()));
                }
            }
            case "Page.loadEventFired" -> loads.forEach(f -> f.complete(null));
            default -> { }
        }
    }

    /** Sends a DevTools command and waits (bounded) for its result. */
    public JsonNode send(String method, Map<String, ?> params) {
        return send(method, params, COMMAND_TIMEOUT);
    }

    private JsonNode send(String method, Map<String, ?> params, Duration timeout) {
        int id = ids.incrementAndGet();
        CompletableFuture<JsonNode> answer = new CompletableFuture<>();
        waiting.put(id, answer);
        ObjectNode m = JSON.createObjectNode();
        m.put("id", id);
        m.put("method", method);
        m.set("params", JSON.valueToTree(params));
        try {
            synchronized (socket) { // one message at a time on a WebSocket
                socket.sendText(m.toString(), true).get(30, TimeUnit.SECONDS);
            }
            return answer.get(timeout.toMillis(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        } catch (ExecutionException | TimeoutException e) {
            throw new IllegalStateException(method + " failed: " + e.getMessage(), e);
        } finally {
            waiting.remove(id);
        }
    }

    /** Goes to {@code url} and waits for its load event. */
    public void navigate(String url) {
        CompletableFuture<Void> loaded = new CompletableFuture<>();
        loads.add(loaded);
        try {
            JsonNode r = send("Page.navigate", Map.of("url", url));
            if (r.has("errorText")) {
                throw new IllegalStateException("cannot load " + url + ": " + r.get("errorText").asText());
            }
            loaded.get(COMMAND_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        } catch (ExecutionException | TimeoutException e) {
            throw new IllegalStateException("no load event from " + url + ": " + e, e);
        } finally {
            loads.remove(loaded);
        }
    }

    /** The value of a JavaScript expression in the page (a promise is awaited), as JSON. */
    public JsonNode evaluate(String expression) {
        return evaluate(expression, COMMAND_TIMEOUT);
    }

    private JsonNode evaluate(String expression, Duration timeout) {
        JsonNode r = send("Runtime.evaluate", Map.of("expression", expression, "returnByValue", true,
                "awaitPromise", true), timeout);
        if (r.has("exceptionDetails")) {
            throw new IllegalStateException("evaluating " + expression + ": " + r.get("exceptionDetails"));
        }
        return r.path("result").path("value");
    }

    /**
     * Waits until the expression {@code condition} is truthy in the page (checked by the page every 100 ms, so
     * the wait ends as soon as it holds) and returns its value; fails naming {@code what} after {@code timeout}.
     */
    public JsonNode await(String what, String condition, Duration timeout) {
        String js = "new Promise(resolve => { const deadline = Date.now() + " + timeout.toMillis() + ";"
                + " const check = () => { let v; try { v = (" + condition + "); } catch (e) { v = undefined; }"
                + " if (v) resolve(v); else if (Date.now() > deadline) resolve(null); else setTimeout(check, 100); };"
                + " check(); })";
        JsonNode v = evaluate(js, timeout.plus(COMMAND_TIMEOUT));
        if (v == null || v.isNull() || v.isMissingNode()) {
            throw new AssertionError("timed out after " + timeout + " waiting in the browser for: " + what
                    + "; problems so far: " + problems);
        }
        return v;
    }

    /** Types {@code text} into the element matching {@code selector}, as keyboard input. */
    public void type(String selector, String text) {
        evaluate("(() => { const e = document.querySelector(" + JSON.valueToTree(selector) + "); e.focus();"
                + " e.select && e.select(); return true; })()");
        send("Input.insertText", Map.of("text", text));
    }

    /** Clicks the element matching {@code selector} with the mouse, at its centre. */
    public void click(String selector) {
        JsonNode box = evaluate("(() => { const r = document.querySelector(" + JSON.valueToTree(selector)
                + ").getBoundingClientRect(); return {x: r.x + r.width / 2, y: r.y + r.height / 2}; })()");
        for (String type : List.of("mousePressed", "mouseReleased")) {
            send("Input.dispatchMouseEvent", Map.of("type", type, "x", box.get("x").asDouble(),
                    "y", box.get("y").asDouble(), "button", "left", "clickCount", 1));
        }
    }

    /** The page's size as a phone ({@code mobile}: the viewport meta tag applies) or a desktop shows it. */
    public void viewport(int width, int height, boolean mobile) {
        send("Emulation.setDeviceMetricsOverride", Map.of("width", width, "height", height,
                "deviceScaleFactor", 1, "mobile", mobile));
    }

    /** A PNG of the whole page (beyond the viewport) at the current width. */
    public byte[] screenshot() {
        JsonNode metrics = send("Page.getLayoutMetrics", Map.of());
        JsonNode size = metrics.path("cssContentSize");
        JsonNode r = send("Page.captureScreenshot", Map.of("format", "png", "captureBeyondViewport", true,
                "clip", Map.of("x", 0, "y", 0, "width", size.path("width").asDouble(),
                        "height", size.path("height").asDouble(), "scale", 1)));
        return Base64.getDecoder().decode(r.path("data").asText());
    }

    /** Everything at the error level so far. */
    public List<Problem> problems() {
        return List.copyOf(problems);
    }

    @Override
    public void close() {
        try {
            if (socket != null) {
                socket.sendClose(WebSocket.NORMAL_CLOSURE, "done").get(5, TimeUnit.SECONDS);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (ExecutionException | TimeoutException e) {
            // the browser is stopped below either way
        }
        stop(process, profile, drain);
    }

    private static void stop(Process process, Path profile, Thread drain) {
        process.destroy();
        try {
            if (!process.waitFor(10, TimeUnit.SECONDS)) {
                process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
            }
            if (drain != null) {
                drain.join(Duration.ofSeconds(5));
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        try {
            TestServer.deleteRecursively(profile);
        } catch (UncheckedIOException e) {
            // a file Chromium's last child still held: the temporary directory stays
        }
    }
}
