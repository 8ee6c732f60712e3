package io.sluice.support;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;

/**
 * Makes docs/images/dashboard.png: loads a running sluice's dashboard in headless Chromium, signs in when asked
 * (user and password from {@code NEO4J_USERNAME}, default neo4j, and {@code NEO4J_PASSWORD}), waits until the page
 * holds {@code SECONDS} samples, and saves the whole page as PNG at {@code WIDTH} CSS pixels.
 * <pre>
 * (in server/, after ./sluice builds) java -cp target/test-classes:target/classes:'target/lib/*' io.sluice.support.DashboardScreenshot \
 *     http://127.0.0.1:7474/ docs/images/dashboard.png [SECONDS [WIDTH]]
 * </pre>
 */
public final class DashboardScreenshot {
    private DashboardScreenshot() {}

    public static void main(String[] args) throws Exception {
        if (args.length < 2) {
            System.err.println("usage: DashboardScreenshot URL OUT.png [SECONDS [WIDTH]]");
            System.exit(2);
        }
        int seconds = args.length > 2 ? Integer.parseInt(args[2]) : 60;
        int width = args.length > 3 ? Integer.parseInt(args[3]) : 1366;
        Path binary = Chromium.find().orElseThrow(() -> new IllegalStateException("no chromium installed"));
        try (Chromium browser = Chromium.launch(binary, width, 900)) {
            browser.viewport(width, 900, width < 600);
            browser.navigate(args[0]);
            String state = browser.await("the page's first answer", "['login', 'live'].includes("
                    + "window.sluiceDashboard.state) && window.sluiceDashboard.state", Duration.ofSeconds(60)).asText();
            if (state.equals("login")) {
                browser.type("#login-user", System.getenv().getOrDefault("NEO4J_USERNAME", "neo4j"));
                browser.type("#login-password", System.getenv().getOrDefault("NEO4J_PASSWORD", ""));
                browser.click("#login-submit");
            }
            browser.await(seconds + " samples", "window.sluiceDashboard.state === 'live'"
                    + " && window.sluiceDashboard.samples >= " + seconds, Duration.ofSeconds(seconds + 120L));
            Files.write(Path.of(args[1]), browser.screenshot());
            System.out.println("wrote " + args[1] + "; problems: " + browser.problems());
        }
    }
}
