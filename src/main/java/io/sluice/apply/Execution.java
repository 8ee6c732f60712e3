package io.sluice.apply;

import io.sluice.batch.Pending;
import io.sluice.sink.SinkException;
import io.sluice.sink.Sink.SinkTx;
import io.sluice.sink.StatementResult;
import io.sluice.write.Statement;
import io.sluice.write.Template;
import io.sluice.write.WriteRequest.CypherRequest;
import io.sluice.write.WriteRequest.TemplateRequest;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Runs a group of requests inside one open transaction. Template rows are coalesced: all rows of one
 * template, in arrival order, go into a single {@code UNWIND $rows AS row ...}. Raw Cypher requests run
 * statement by statement, in arrival order, each result materialised for its request. Templates run in order
 * of their first appearance, then raw Cypher; order holds per template and per raw request, which is what
 * the ordering promise (per key) needs.
 */
final class Execution {
    private Execution() {}

    static Map<Pending, List<StatementResult>> run(SinkTx tx, List<Pending> group) throws SinkException {
        Map<Template, List<Map<String, Object>>> templateRows = new LinkedHashMap<>();
        List<Pending> cypher = new ArrayList<>();
        for (Pending p : group) {
            switch (p.request()) {
                case TemplateRequest t -> templateRows.computeIfAbsent(t.template(), k -> new ArrayList<>())
                        .addAll(t.rowList());
                case CypherRequest c -> cypher.add(p);
            }
        }
        for (var e : templateRows.entrySet()) {
            tx.runDiscarding(e.getKey().unwindCypher(), Map.of(Template.ROWS_PARAM, e.getValue()));
        }
        Map<Pending, List<StatementResult>> results = new IdentityHashMap<>();
        for (Pending p : cypher) {
            CypherRequest c = (CypherRequest) p.request();
            List<StatementResult> rs = new ArrayList<>(c.statements().size());
            for (Statement s : c.statements()) {
                rs.add(tx.run(s.cypher(), s.params()));
            }
            results.put(p, rs);
        }
        return results;
    }
}
