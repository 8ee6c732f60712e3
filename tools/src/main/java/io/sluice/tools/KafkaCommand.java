package io.sluice.tools;

import io.sluice.config.HostPort;
import io.sluice.time.Time;
import java.io.IOException;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.slf4j.LoggerFactory;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code sluice kafka}: a single-node Kafka ({@link KafkaBroker}), for trying sluice's Kafka journal and for its
 * tests, as {@code sluice neo4j} is a plain Neo4j. The broker has no authentication, so, like {@code sluice neo4j}
 * with authentication off, it listens on loopback only. Stops cleanly on SIGTERM / Ctrl-C (exit status 143, the
 * JVM's for a SIGTERM); a start that fails prints one line and exits 1, leaving nothing running.
 */
@Command(name = "kafka", mixinStandardHelpOptions = true,
        description = "Run a single-node Kafka (broker and KRaft controller in one process, from Kafka's own jars),"
                + " for trying and testing sluice's Kafka journal. Plain text, no authentication: loopback only.")
final class KafkaCommand implements Callable<Integer> {
    @Option(names = "--data", defaultValue = "kafka-data", description = "data directory, formatted on the first"
            + " start (default: ${DEFAULT-VALUE})")
    Path data;

    @Option(names = "--listen", defaultValue = "127.0.0.1:9092", description = "the clients' listener (default:"
            + " ${DEFAULT-VALUE})")
    String listen;

    @Option(names = "--controller", paramLabel = "HOST:PORT", description = "the KRaft controller's listener, used by"
            + " the broker itself only (default: a free port on 127.0.0.1, chosen at each start)")
    String controller;

    @Option(names = "--fsync", description = "fsync every append (log.flush.interval.messages=1): acknowledged"
            + " records then survive a power loss too, at several times the latency")
    boolean fsync;

    @Option(names = "--setting", paramLabel = "KEY=VALUE", description = "a broker setting of your own, after"
            + " sluice's (e.g. group.consumer.session.timeout.ms=10000); repeatable")
    Map<String, String> settings = new LinkedHashMap<>();

    @Override
    public Integer call() throws Exception {
        HostPort address = loopback(parse(listen), "--listen");
        HostPort controllerAddress = controller == null ? new HostPort("127.0.0.1", 0)
                : loopback(parse(controller), "--controller");
        KafkaBroker.Options options = new KafkaBroker.Options(data, address.host(), address.port(),
                controllerAddress.host(), controllerAddress.port(), fsync, settings);
        KafkaBroker broker;
        try {
            broker = KafkaBroker.start(options);
        } catch (Throwable t) {
            // Kafka may have left threads running that would keep the JVM alive: Main exits on a non-zero status
            System.err.println("sluice kafka: " + (t.getMessage() == null ? t : t.getMessage()));
            LoggerFactory.getLogger(KafkaCommand.class).debug("start failure", t);
            return 1;
        }
        CountDownLatch stopped = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(Thread.ofPlatform().name("sluice-shutdown").unstarted(() -> {
            long start = Time.SYSTEM.nanos();
            try {
                broker.close();
                System.out.println("kafka stopped in " + TimeUnit.NANOSECONDS.toMillis(Time.SYSTEM.nanos() - start)
                        + " ms");
            } catch (IOException e) {
                System.out.println("kafka did not stop cleanly: " + e.getMessage());
            }
            stopped.countDown();
        }));
        System.out.println("kafka ready: PLAINTEXT://" + broker.bootstrap() + " (data " + data + ", controller "
                + broker.controller() + (broker.formatted() ? ", formatted now" : "") + (fsync ? ", fsync" : "")
                + ")");
        stopped.await();
        return 0;
    }

    /** {@code HOST:PORT}, the host possibly an IPv6 literal in brackets. */
    private static HostPort parse(String text) {
        HostPort hp = HostPort.parse(text);
        String host = hp.host();
        return host.startsWith("[") && host.endsWith("]")
                ? new HostPort(host.substring(1, host.length() - 1), hp.port()) : hp;
    }

    private static HostPort loopback(HostPort hp, String option) {
        boolean loopback;
        try {
            loopback = InetAddress.getByName(hp.host()).isLoopbackAddress();
        } catch (UnknownHostException e) {
            loopback = false;
        }
        if (!loopback) {
            throw new IllegalArgumentException("refusing " + option + " " + hp + ": this broker has no"
                    + " authentication and no TLS, so anyone who reaches it could read and write every topic."
                    + " Listen on 127.0.0.1; for other machines, run a Kafka of your own.");
        }
        return hp;
    }
}
