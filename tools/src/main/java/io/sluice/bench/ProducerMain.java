package io.sluice.bench;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.sluice.time.Time;
import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * The sources bench's producer, the main of a JVM of its own ({@link ProducerProcess} starts it, so that the
 * bench's process CPU is sluice's alone): sends a scenario's rows ({@link Scenario#workload}, stream 0 of the seed:
 * the rows the raw limit applies) to a topic, each as a JSON object, keyed by the scenario's key fields (their
 * values as text, joined by {@code |}), so Kafka's partitioner puts a key's rows in one partition, in order.
 * As fast as it can, or paced at a rate (row {@code i} due at {@code start + i/rate}); until it has sent
 * {@link ProducerProcess.Spec#records} rows or its time is up. A progress line a second on stderr; at the end,
 * once every row is acknowledged (or failed), one line on stdout, {@value ProducerProcess#PREFIX} and a JSON
 * object ({@code summary} or {@code error}). The one argument is the {@link ProducerProcess.Spec} as JSON.
 */
public final class ProducerMain {
    /** How many rows a paced loop sends before it looks at the clock again. */
    private static final int BURST = 1_000;
    private static final Duration PACE_STEP = Duration.ofMillis(1);

    private ProducerMain() {}

    public static void main(String[] args) throws Exception {
        // as LoadMain: Logback, not the SLF4J provider Neo4j's server jar also ships
        System.setProperty("slf4j.provider", "ch.qos.logback.classic.spi.LogbackServiceProvider");
        System.setProperty("slf4j.internal.verbosity", "WARN");
        ObjectMapper json = new ObjectMapper();
        PrintStream out = new PrintStream(new FileOutputStream(FileDescriptor.out), true,
                StandardCharsets.UTF_8);
        System.setOut(System.err); // stdout carries the answer alone
        // the bench gone (killed), no one waits for these rows: stop now
        ProcessHandle.current().parent().ifPresent(p -> p.onExit().thenRun(() -> Runtime.getRuntime().halt(3)));
        Object answer;
        int exit = 0;
        try {
            ProducerProcess.Spec spec = json.readValue(args[0], ProducerProcess.Spec.class);
            answer = Map.of("summary", produce(spec, Time.SYSTEM, System.err));
        } catch (Exception e) {
            answer = Map.of("error", e.toString());
            exit = 1;
        }
        out.println(ProducerProcess.PREFIX + json.writeValueAsString(answer));
        out.flush();
        System.exit(exit);
    }

    /** Sends {@code spec}'s rows and waits for every acknowledgement; a line a second on {@code progress}. */
    static ProducerProcess.Summary produce(ProducerProcess.Spec spec, Time time, PrintStream progress)
            throws InterruptedException {
        Scenario scenario = Scenario.named(spec.scenario());
        Scenario.RowSource rows = scenario.workload(spec.seed()).stream(0);
        ObjectMapper json = new ObjectMapper();
        Properties p = new Properties();
        p.put("bootstrap.servers", spec.bootstrap());
        p.put(ProducerConfig.ACKS_CONFIG, "all");
        p.put(ProducerConfig.LINGER_MS_CONFIG, "5");
        p.put(ProducerConfig.BATCH_SIZE_CONFIG, Integer.toString(64 << 10));
        p.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        p.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        p.put(ProducerConfig.CLIENT_ID_CONFIG, "sluice-bench-producer");
        AtomicLong acked = new AtomicLong();
        AtomicLong failed = new AtomicLong();
        AtomicReference<String> firstError = new AtomicReference<>();
        long sent = 0;
        long start;
        long end;
        try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(p)) {
            producer.partitionsFor(spec.topic()); // the topic's metadata before the clock starts
            start = time.nanos();
            long stop = spec.durationNanos() > 0 ? start + spec.durationNanos() : Long.MAX_VALUE;
            long nextLine = start + 1_000_000_000L;
            long lastLineSent = 0;
            while (sent < spec.records() && time.nanos() - stop < 0) {
                long now = time.nanos();
                long due = spec.rate() > 0 ? Math.min(spec.records(), (long) ((now - start) / 1e9 * spec.rate()) + 1)
                        : spec.records();
                long burst = Math.min(due, sent + BURST);
                if (sent >= burst) {
                    time.sleep(PACE_STEP);
                } else {
                    for (; sent < burst; sent++) {
                        Map<String, Object> row = rows.next();
                        ProducerRecord<byte[], byte[]> r = new ProducerRecord<>(spec.topic(), key(scenario, row),
                                json.writeValueAsBytes(row));
                        producer.send(r, (meta, e) -> {
                            if (e == null) {
                                acked.incrementAndGet();
                            } else {
                                failed.incrementAndGet();
                                firstError.compareAndSet(null, e.toString());
                            }
                        });
                    }
                }
                if (time.nanos() - nextLine >= 0) {
                    double s = (time.nanos() - start) / 1e9;
                    progress.printf(Locale.ROOT, "producer %s  %4.0f s  %,12d sent  %,10.0f/s  (last 1 s: %,10d)%n",
                            spec.label(), s, sent, sent / s, sent - lastLineSent);
                    lastLineSent = sent;
                    nextLine += 1_000_000_000L;
                }
            }
            producer.flush();
            end = time.nanos();
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("cannot write a row as JSON: " + e.getMessage(), e);
        }
        double cpu = ProcessHandle.current().info().totalCpuDuration().map(d -> d.toNanos() / 1e9).orElse(0.0);
        return new ProducerProcess.Summary(sent, acked.get(), failed.get(), firstError.get(), (end - start) / 1e9, cpu);
    }

    /** The row's key: its key fields' values as text, joined by {@code |}; null when the scenario has none. */
    static byte[] key(Scenario scenario, Map<String, Object> row) {
        if (scenario.key().isEmpty()) {
            return null;
        }
        List<String> parts = new ArrayList<>(scenario.key().size());
        for (String field : scenario.key()) {
            parts.add(String.valueOf(row.get(field)));
        }
        return String.join("|", parts).getBytes(StandardCharsets.UTF_8);
    }
}
