package io.sluice.kafka;

import io.sluice.config.Kafka;
import java.util.Map;
import java.util.Properties;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

/** The Kafka journal's clients' settings: sluice's, then the config's {@code properties}, then each kind's own. */
final class KafkaClients {
    private KafkaClients() {}

    /** The applier's consumer: in the group all instances share, never committing, never resetting on its own. */
    static KafkaConsumer<byte[], byte[]> consumer(Kafka config, int maxRows, String instance) {
        return new KafkaConsumer<>(properties(config, Map.of(
                ConsumerConfig.GROUP_ID_CONFIG, config.group(),
                ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false",
                ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "none", // the graph says where to start; never skip
                ConsumerConfig.GROUP_PROTOCOL_CONFIG, "consumer",
                ConsumerConfig.MAX_POLL_RECORDS_CONFIG, Integer.toString(Math.max(500, maxRows)),
                ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName(),
                ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName(),
                ConsumerConfig.CLIENT_ID_CONFIG, "sluice-" + instance), config.consumer()));
    }

    static Properties properties(Kafka c, Map<String, String> sluice, Map<String, String> kind) {
        Properties p = new Properties();
        p.put("bootstrap.servers", c.bootstrap());
        p.putAll(sluice);
        p.putAll(c.properties());
        p.putAll(kind);
        return p;
    }
}
