package io.sluice.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.support.KafkaProcess;
import io.sluice.support.TestServer;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * {@code sluice kafka} as a real child process, with Kafka's own clients: a topic, an idempotent {@code acks=all}
 * producer, a group consumer; records that survive SIGTERM and kill -9; starts that must fail (the data directory
 * in use, the port taken, a failure inside Kafka's start) fail fast with one line and exit 1, leaving nothing running.
 */
class KafkaCommandTest {
    static final String TOPIC = "events";
    static final Duration CLIENT_WAIT = Duration.ofSeconds(30);

    @TempDir
    Path dir;

    @Test
    // four broker JVMs one after another (two of them fail at once): ~25 s on a quiet 2-core machine, over 60 s at
    // a load average of 26 (a CI run beside two agents' soak tests)
    @org.junit.jupiter.api.Timeout(180)
    void servesAGroupConsumerRefusesASecondBrokerAndKeepsRecordsThroughSigterm() throws Exception {
        Path data = dir.resolve("data");
        KafkaProcess kafka = KafkaProcess.start(data);
        try {
            assertThat(Files.readString(kafka.log())).contains("kafka ready: PLAINTEXT://" + kafka.bootstrap()
                    + " (data " + data + ", controller 127.0.0.1:").contains("formatted now");
            createTopic(kafka.bootstrap());
            List<String> written = new ArrayList<>(produce(kafka.bootstrap(), "a", 300));
            assertThat(consumeAsGroup(kafka.bootstrap(), "g1", written.size()))
                    .containsExactlyInAnyOrderElementsOf(written);

            KafkaProcess.Exit second = KafkaProcess.startFailing(data, TestServer.freePort(), CLIENT_WAIT);
            assertThat(second.code()).as(second.output()).isEqualTo(1);
            assertThat(second.output()).contains("sluice kafka: kafka data directory " + data
                    + " is open in another process");
            Path other = dir.resolve("other");
            KafkaProcess.Exit portTaken = KafkaProcess.startFailing(other, kafka.port, CLIENT_WAIT);
            assertThat(portTaken.code()).as(portTaken.output()).isEqualTo(1);
            assertThat(portTaken.output()).contains("sluice kafka: listen address " + kafka.bootstrap()
                    + " is not available");
            assertThat(other.resolve("metadata")).as("nothing formatted by a start that failed").doesNotExist();
            written.addAll(produce(kafka.bootstrap(), "b", 100));   // the first broker is unaffected

            assertThat(kafka.terminate(Duration.ofSeconds(30))).as("exit status after SIGTERM").isEqualTo(143);
            assertThat(Files.readString(kafka.log())).containsPattern("kafka stopped in \\d+ ms");
            kafka = kafka.restart();
            assertThat(Files.readString(kafka.log())).doesNotContain("formatted now");
            assertThat(readAll(kafka.bootstrap())).as("after SIGTERM").containsExactlyInAnyOrderElementsOf(written);
            assertThat(kafka.terminate(Duration.ofSeconds(30))).isEqualTo(143);
        } finally {
            kafka.close();
        }
    }

    @Test
    void keepsAcknowledgedRecordsThroughKill9() throws Exception {
        KafkaProcess kafka = KafkaProcess.start(dir.resolve("data"));
        try {
            createTopic(kafka.bootstrap());
            List<String> written = produce(kafka.bootstrap(), "a", 300);
            kafka.kill();   // right after the last acknowledgement
            kafka = kafka.restart();
            assertThat(readAll(kafka.bootstrap())).as("after kill -9").containsExactlyInAnyOrderElementsOf(written);
            assertThat(kafka.terminate(Duration.ofSeconds(30))).isEqualTo(143);
        } finally {
            kafka.close();
        }
    }

    @Test
    void aFailureInsideKafkasStartExitsOneAndLeavesNothingRunning() throws Exception {
        // another process holds the lock Kafka takes on its topics' directory once its controller is up
        Path data = dir.resolve("data");
        Files.createDirectories(data.resolve("logs"));
        int port = TestServer.freePort();
        try (FileChannel channel = FileChannel.open(data.resolve("logs/.lock"), StandardOpenOption.CREATE,
                StandardOpenOption.WRITE)) {
            FileLock held = channel.lock();   // released when the channel closes
            assertThat(held.isValid()).isTrue();
            KafkaProcess.Exit exit = KafkaProcess.startFailing(data, port, Duration.ofSeconds(45));
            assertThat(exit.code()).as(exit.output()).isEqualTo(1);
            assertThat(exit.output()).contains("sluice kafka: kafka did not start: Failed to acquire lock on file"
                    + " .lock in " + data.resolve("logs"));
        }
        try (ServerSocket free = new ServerSocket(port, 1, InetAddress.getLoopbackAddress())) {
            assertThat(free.getLocalPort()).as("the listen port is free again").isEqualTo(port);
        }
    }

    @Test
    void refusesNonLoopbackAddressesAndTheSettingsItOwns() {
        assertThat(refusal("--listen", "0.0.0.0:9092")).contains("refusing --listen 0.0.0.0:9092")
                .contains("no authentication");
        assertThat(refusal("--controller", "192.0.2.1:9093")).contains("refusing --controller 192.0.2.1:9093");
        assertThat(refusal("--setting", "log.dirs=/elsewhere")).contains("broker setting log.dirs follows from");
        assertThat(dir.resolve("unused")).as("refused before anything is created").doesNotExist();
    }

    private String refusal(String... args) {
        StringWriter err = new StringWriter();
        List<String> all = new ArrayList<>(List.of("--data", dir.resolve("unused").toString()));
        all.addAll(List.of(args));
        int code = io.sluice.tools.ToolsMain.commandLine().setErr(new PrintWriter(err))
                .setExecutionExceptionHandler((e, cmd, parsed) -> {
                    cmd.getErr().println(e.getMessage());
                    return 2;
                })
                .execute(prepend("kafka", all));
        assertThat(code).as(err.toString()).isEqualTo(2);
        return err.toString();
    }

    private static String[] prepend(String first, List<String> rest) {
        List<String> all = new ArrayList<>(List.of(first));
        all.addAll(rest);
        return all.toArray(String[]::new);
    }

    private static void createTopic(String bootstrap) throws Exception {
        try (Admin admin = Admin.create(Map.of("bootstrap.servers", bootstrap))) {
            admin.createTopics(List.of(new NewTopic(TOPIC, 3, (short) 1))).all()
                    .get(CLIENT_WAIT.toSeconds(), TimeUnit.SECONDS);
        }
    }

    /** Sends {@code n} keyed records with an idempotent {@code acks=all} producer; returns their values, all acked. */
    private static List<String> produce(String bootstrap, String prefix, int n) throws Exception {
        Properties p = new Properties();
        p.put("bootstrap.servers", bootstrap);
        p.put("acks", "all");
        p.put("enable.idempotence", "true");
        p.put("linger.ms", "5");
        p.put("max.block.ms", Long.toString(CLIENT_WAIT.toMillis()));
        p.put("request.timeout.ms", "10000");
        p.put("delivery.timeout.ms", Long.toString(CLIENT_WAIT.toMillis()));
        List<String> values = IntStream.range(0, n).mapToObj(i -> prefix + i).toList();
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(p, new StringSerializer(),
                new StringSerializer())) {
            List<Future<RecordMetadata>> acks = new ArrayList<>();
            for (int i = 0; i < n; i++) {
                acks.add(producer.send(new ProducerRecord<>(TOPIC, "k" + i % 16, values.get(i))));
            }
            for (Future<RecordMetadata> ack : acks) {
                ack.get(CLIENT_WAIT.toSeconds(), TimeUnit.SECONDS);
            }
        }
        return values;
    }

    /** Reads {@code n} records as a member of {@code group} (the consumer protocol), from the earliest. */
    private static List<String> consumeAsGroup(String bootstrap, String group, int n) {
        Properties p = consumerProperties(bootstrap);
        p.put("group.id", group);
        p.put("group.protocol", "consumer");
        p.put("auto.offset.reset", "earliest");
        List<String> values = new ArrayList<>();
        try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(p, new StringDeserializer(),
                new StringDeserializer())) {
            consumer.subscribe(List.of(TOPIC));
            long deadline = System.nanoTime() + CLIENT_WAIT.toNanos();
            while (values.size() < n && System.nanoTime() < deadline) {
                consumer.poll(Duration.ofMillis(200)).forEach(r -> values.add(r.value()));
            }
        }
        return values;
    }

    /** Every record of the topic, read without a group: partitions assigned, from the beginning to the end. */
    private static List<String> readAll(String bootstrap) {
        List<String> values = new ArrayList<>();
        try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(consumerProperties(bootstrap),
                new StringDeserializer(), new StringDeserializer())) {
            List<TopicPartition> partitions = consumer.partitionsFor(TOPIC, CLIENT_WAIT).stream()
                    .map(i -> new TopicPartition(i.topic(), i.partition())).toList();
            consumer.assign(partitions);
            consumer.seekToBeginning(partitions);
            Map<TopicPartition, Long> end = consumer.endOffsets(partitions, CLIENT_WAIT);
            long deadline = System.nanoTime() + CLIENT_WAIT.toNanos();
            while (partitions.stream().anyMatch(tp -> consumer.position(tp, CLIENT_WAIT) < end.get(tp))
                    && System.nanoTime() < deadline) {
                for (ConsumerRecord<String, String> r : consumer.poll(Duration.ofMillis(200))) {
                    values.add(r.value());
                }
            }
        }
        return values;
    }

    private static Properties consumerProperties(String bootstrap) {
        Properties p = new Properties();
        p.put("bootstrap.servers", bootstrap);
        p.put("enable.auto.commit", "false");
        return p;
    }
}
