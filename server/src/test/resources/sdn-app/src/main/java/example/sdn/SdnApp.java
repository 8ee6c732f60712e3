package example.sdn;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * Runs {@link Workload} once against the server in {@code spring.neo4j.uri} and prints its report, one JSON
 * document, on stdout (the log goes to stderr); exits 1 when the run itself failed.
 */
@SpringBootApplication
public class SdnApp {
    public static void main(String[] args) {
        int status = 0;
        try (ConfigurableApplicationContext context = SpringApplication.run(SdnApp.class, args)) {
            String report = Json.write(context.getBean(Workload.class).run());
            System.out.println(report);
            System.out.flush();
        } catch (Exception e) {
            e.printStackTrace();
            status = 1;
        }
        System.exit(status);
    }
}
