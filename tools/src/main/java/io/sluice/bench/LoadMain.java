package io.sluice.bench;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.sluice.cli.Main;
import io.sluice.time.Time;
import java.io.BufferedReader;
import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.Map;

/**
 * The load process's main ({@link LoadProcess} starts it): reads one {@link LoadSpec} a line on stdin, runs that
 * load (HTTP or Bolt), answers with one line on stdout, {@value LoadProcess#PREFIX} and a JSON object
 * ({@code summary} or {@code error}); progress lines and logs go to stderr. Says {@code ready} first. Ends when stdin
 * ends, or at once when the bench's process does (killed), so it never outlives the bench that started it.
 */
public final class LoadMain {
    private LoadMain() {}

    public static void main(String[] args) throws IOException, InterruptedException {
        // as Main: Logback, not the SLF4J provider Neo4j's server jar also ships (nor SLF4J's warning)
        System.setProperty("slf4j.provider", "ch.qos.logback.classic.spi.LogbackServiceProvider");
        System.setProperty("slf4j.internal.verbosity", "WARN");
        ObjectMapper json = new ObjectMapper();
        PrintStream out = new PrintStream(new FileOutputStream(FileDescriptor.out), true,
                StandardCharsets.UTF_8);
        System.setOut(System.err); // stdout carries the answers alone; anything else printing goes to stderr
        // the bench gone (killed), a run in progress has no one to answer: stop now rather than at its end
        ProcessHandle.current().parent().ifPresent(p -> p.onExit().thenRun(() -> Runtime.getRuntime().halt(3)));
        out.println(LoadProcess.PREFIX + json.writeValueAsString(Map.of("ready", true)));
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        for (String line; (line = in.readLine()) != null; ) {
            if (line.isBlank()) {
                continue;
            }
            Object answer;
            try {
                LoadSpec spec = json.readValue(line, LoadSpec.class);
                Window window = Window.of(Time.SYSTEM.nanos(), spec.warmupNanos(), spec.durationNanos());
                answer = Map.of("summary", LoadRun.of(spec, window, Time.SYSTEM, System.err).await());
            } catch (IOException | RuntimeException e) {
                answer = Map.of("error", e.toString());
            }
            out.println(LoadProcess.PREFIX + json.writeValueAsString(answer));
        }
    }
}
