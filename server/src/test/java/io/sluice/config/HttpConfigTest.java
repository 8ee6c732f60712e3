package io.sluice.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The {@code http} section: the I/O threads' count, its default and its bounds. */
@Timeout(10)
class HttpConfigTest {
    @Test
    void ioThreadsDefaultToHalfTheCoresAndAtLeastOne() throws IOException {
        int expected = Math.max(1, Runtime.getRuntime().availableProcessors() / 2);
        assertThat(SluiceConfig.defaults().http().ioThreads()).isEqualTo(expected);
        assertThat(ConfigLoader.parse("http: {}\n").http().ioThreads()).isEqualTo(expected);
        assertThat(ConfigLoader.parse("batch: {max_rows: 10}\n").http().ioThreads()).isEqualTo(expected);
    }

    @Test
    void ioThreadsAsConfigured() throws IOException {
        assertThat(ConfigLoader.parse("http: {io_threads: 3}\n").http().ioThreads()).isEqualTo(3);
    }

    @Test
    void outOfRangeOrUnknownIsRefusedByName() {
        assertThatThrownBy(() -> ConfigLoader.parse("http: {io_threads: 0}\n"))
                .hasMessageContaining("http.io_threads must be in [1, 256], got 0");
        assertThatThrownBy(() -> ConfigLoader.parse("http: {io_threads: 257}\n"))
                .hasMessageContaining("http.io_threads must be in [1, 256], got 257");
        assertThatThrownBy(() -> ConfigLoader.parse("http: {io_thread: 2}\n"))
                .hasMessageContaining("Unrecognized field \"io_thread\"");
    }
}
