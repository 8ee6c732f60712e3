package example.sdn;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.neo4j.driver.exceptions.Neo4jException;
import org.neo4j.driver.exceptions.RetryableException;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.core.retry.RetryException;
import org.springframework.core.retry.RetryPolicy;
import org.springframework.core.retry.RetryTemplate;
import org.springframework.data.neo4j.core.Neo4jClient;
import org.springframework.data.neo4j.core.support.RetryExceptionPredicate;
import org.springframework.stereotype.Component;
import org.springframework.transaction.TransactionSystemException;

/**
 * {@code sdn.threads} threads each run {@code sdn.units-per-thread} units of {@link Hiring#hire}, every
 * {@code sdn.violate-every}th of a thread's a deliberate violation of the unique constraint on the company's name,
 * spread over four shared companies (so the units contend for their locks). A unit that fails with a transient
 * error (a deadlock) is run again, as Spring applications do, with Spring's {@code RetryTemplate} (at most
 * {@code sdn.max-retries} times, short jittered pauses). After each unit that committed, the person is read back by
 * its id in a new transaction. The report: units committed; the errors retried and the errors that reached the
 * application, by Neo4j code (the latter also by exception class); read-backs that went wrong; each company's
 * counts as its committed units took them; the graph left, read by Cypher.
 */
@Component
public class Workload {
    static final List<String> COMPANIES = List.of("Acme", "Globex", "Initech", "Umbrella");

    private final Neo4jClient client;
    private final CompanyRepository companies;
    private final Hiring hiring;
    private final RetryTemplate retry;
    private final int threads;
    private final int perThread;
    private final int violateEvery;

    public Workload(Neo4jClient client, CompanyRepository companies, Hiring hiring,
            @Value("${sdn.threads}") int threads, @Value("${sdn.units-per-thread}") int perThread,
            @Value("${sdn.violate-every}") int violateEvery, @Value("${sdn.max-retries}") int maxRetries) {
        this.client = client;
        this.companies = companies;
        this.hiring = hiring;
        this.retry = new RetryTemplate(RetryPolicy.builder().predicate(Workload::retryable).maxRetries(maxRetries)
                .delay(Duration.ofMillis(10)).multiplier(2).maxDelay(Duration.ofMillis(200))
                .jitter(Duration.ofMillis(5)).build());
        this.threads = threads;
        this.perThread = perThread;
        this.violateEvery = violateEvery;
    }

    public Map<String, Object> run() throws Exception {
        client.query("MATCH (n) WHERE n:SdnPerson OR n:SdnCompany DETACH DELETE n").run();
        client.query("CREATE CONSTRAINT sdn_company_name IF NOT EXISTS FOR (c:SdnCompany) REQUIRE c.name IS UNIQUE")
                .run();
        companies.saveAll(COMPANIES.stream().map(Company::new).toList());
        Tally tally = new Tally();
        long start = System.nanoTime();
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        try {
            List<Future<?>> running = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                int thread = t;
                running.add(pool.submit(() -> units(thread, tally)));
            }
            for (Future<?> f : running) {
                f.get();
            }
        } finally {
            pool.shutdown();
            pool.awaitTermination(30, TimeUnit.SECONDS);
        }
        long elapsed = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
        Map<String, Object> report = tally.report(threads * perThread);
        report.put("found_by_ids", hiring.found(tally.ids()));
        report.put("graph", graph());
        report.put("elapsed_ms", elapsed);
        return report;
    }

    private void units(int thread, Tally tally) {
        for (int i = 0; i < perThread; i++) {
            int seq = thread * perThread + i;
            String name = "p-" + seq;
            String company = COMPANIES.get(seq % COMPANIES.size());
            boolean violate = (i + 1) % violateEvery == 0;
            List<String> attempts = new ArrayList<>();
            Hiring.Hired hired;
            try {
                hired = retry.execute(() -> {
                    try {
                        return hiring.hire(name, seq, company, violate);
                    } catch (RuntimeException e) {
                        attempts.add(code(e));
                        throw e;
                    }
                });
            } catch (RetryException e) {
                tally.retried(attempts.subList(0, attempts.size() - 1));
                RuntimeException last = (RuntimeException) e.getLastException();
                tally.failed(violate, code(last), last);
                continue;
            }
            tally.retried(attempts);
            tally.committed(violate, company, hired);
            String later;
            try {
                later = hiring.readBack(hired, name, seq, company);
            } catch (RuntimeException e) {
                later = "read failed: " + code(e);
            }
            tally.readBack(name, later);
        }
    }

    /**
     * What the application retries: what SDN's own predicate calls retryable (Neo4j's transient errors, deadlocks
     * among them, under Spring's {@code TransientDataAccessResourceException}), and a transient error at COMMIT,
     * which Spring reports as a {@code TransactionSystemException} that the predicate does not look into.
     */
    static boolean retryable(Throwable e) {
        return new RetryExceptionPredicate().test(e)
                || (e instanceof TransactionSystemException && e.getCause() instanceof RetryableException);
    }

    /** The Neo4j code under Spring's translation of an error, else the exception's class. */
    static String code(Throwable e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof Neo4jException n && n.code() != null) {
                return n.code();
            }
        }
        return e.getClass().getName();
    }

    /** The graph as Cypher sees it. */
    private Map<String, Object> graph() {
        Map<String, Object> graph = new LinkedHashMap<>();
        Map<String, Object> labels = new TreeMap<>();
        for (Map<String, Object> row : client.query("MATCH (n) WHERE n:SdnPerson OR n:SdnCompany "
                + "UNWIND labels(n) AS l RETURN l, count(*) AS n")
                .fetch().all()) {
            labels.put((String) row.get("l"), row.get("n"));
        }
        graph.put("labels", labels);
        graph.putAll(client.query("MATCH (:SdnPerson)-[w:WORKS_AT]->(:SdnCompany) "
                + "RETURN count(w) AS works_at, sum(w.since) AS since").fetch().one().orElseThrow());
        graph.putAll(client.query("MATCH (c:SdnCompany) RETURN sum(c.hires) AS hires").fetch().one().orElseThrow());
        graph.putAll(client.query("MATCH (p:SdnPerson) WHERE NOT (p)-[:WORKS_AT]->(:SdnCompany) "
                + "RETURN count(p) AS people_without_company").fetch().one().orElseThrow());
        Map<String, Object> byCompany = new TreeMap<>();
        for (Map<String, Object> row : client.query("MATCH (c:SdnCompany) "
                + "OPTIONAL MATCH (p:SdnPerson)-[w:WORKS_AT]->(c) "
                + "RETURN c.name AS name, c.hires AS hires, count(w) AS employees").fetch().all()) {
            Map<String, Object> company = new LinkedHashMap<>();
            company.put("hires", row.get("hires"));
            company.put("employees", row.get("employees"));
            byCompany.put((String) row.get("name"), company);
        }
        graph.put("companies", byCompany);
        return graph;
    }
}
