package example.sdn;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/** What the threads saw, gathered under one lock. */
final class Tally {
    private static final int SAMPLES = 10;
    private final List<String> ids = new ArrayList<>();
    private final Map<String, List<Long>> hires = new TreeMap<>();
    private final Map<String, Integer> errors = new TreeMap<>();
    private final Map<String, Integer> exceptions = new TreeMap<>();
    private final Map<String, Integer> retried = new TreeMap<>();
    private final List<String> errorSamples = new ArrayList<>();
    private final List<String> readBackFailures = new ArrayList<>();
    private int violations;
    private int violationsRefused;
    private int violationsCommitted;
    private int readBacks;

    synchronized void committed(boolean violation, String company, Hiring.Hired hired) {
        ids.add(hired.id());
        hires.computeIfAbsent(company, k -> new ArrayList<>()).add(hired.hires());
        if (violation) {
            violations++;
            violationsCommitted++;
        }
        if (hired.wrong() != null) {
            readBackFailures.add(hired.id() + " in its own transaction: " + hired.wrong());
        }
    }

    /** The errors of attempts that were run again. */
    synchronized void retried(List<String> codes) {
        codes.forEach(code -> retried.merge(code, 1, Integer::sum));
    }

    synchronized void failed(boolean violation, String code, RuntimeException e) {
        errors.merge(code, 1, Integer::sum);
        exceptions.merge(e.getClass().getName(), 1, Integer::sum);
        if (violation) {
            violations++;
            if (code.equals("Neo.ClientError.Schema.ConstraintValidationFailed")) {
                violationsRefused++;
                return;
            }
        }
        if (errorSamples.size() < SAMPLES) {
            errorSamples.add(code + ": " + e);
        }
    }

    synchronized void readBack(String name, String wrong) {
        readBacks++;
        if (wrong != null) {
            readBackFailures.add(name + " in a later transaction: " + wrong);
        }
    }

    synchronized List<String> ids() {
        return List.copyOf(ids);
    }

    synchronized Map<String, Object> report(int units) {
        Map<String, Object> r = new LinkedHashMap<>();
        r.put("units", units);
        r.put("committed", ids.size());
        Map<String, Object> v = new LinkedHashMap<>();
        v.put("attempted", violations);
        v.put("refused", violationsRefused);
        v.put("committed", violationsCommitted);
        r.put("violations", v);
        r.put("retried", retried);
        r.put("errors", errors);
        r.put("exceptions", exceptions);
        r.put("error_samples", errorSamples);
        r.put("read_backs", readBacks);
        r.put("read_back_failures", readBackFailures);
        // each company's counts as its committed units took them: 1..n unless two units saw the same count
        Map<String, Object> notSerial = new TreeMap<>();
        hires.forEach((company, seen) -> {
            List<Long> sorted = new ArrayList<>(seen);
            Collections.sort(sorted);
            for (int i = 0; i < sorted.size(); i++) {
                if (sorted.get(i) != i + 1) {
                    notSerial.put(company, sorted);
                    break;
                }
            }
        });
        r.put("hires_not_serial", notSerial);
        r.put("committed_by_company", hires.entrySet().stream()
                .collect(TreeMap::new, (m, e) -> m.put(e.getKey(), e.getValue().size()), Map::putAll));
        return r;
    }
}
