package io.sluice.importer;

import java.util.ArrayList;
import java.util.List;

/**
 * Neo4j 3.x spelled a group's labels or type after a colon: {@code --nodes:Activity "Activity_Header.csv,Activity.csv.gz"}
 * or {@code --relationships:VISITED=files} (the 2016 command lines are written so). This turns those into today's
 * {@code --nodes=Activity=files}.
 */
public final class LegacyArguments {
    private LegacyArguments() {}

    /**
     * Rewrites the legacy group options among {@code args}.
     *
     * @return the groups found, as {@code [--nodes|--relationships, value]} pairs, in order
     * @throws IllegalArgumentException for an argument that is neither a legacy group nor its value
     */
    public static List<String[]> groups(List<String> args) {
        List<String[]> out = new ArrayList<>();
        for (int i = 0; i < args.size(); i++) {
            String a = args.get(i);
            String option = a.startsWith("--nodes:") ? "--nodes" : a.startsWith("--relationships:") ? "--relationships" : null;
            if (option == null) {
                throw new IllegalArgumentException("unknown argument '" + a + "'");
            }
            String rest = a.substring(option.length() + 1);
            String prefix;
            String files;
            int eq = rest.indexOf('=');
            if (eq >= 0) {
                prefix = rest.substring(0, eq);
                files = rest.substring(eq + 1);
            } else {
                if (i + 1 >= args.size()) {
                    throw new IllegalArgumentException(a + " needs its files");
                }
                prefix = rest;
                files = args.get(++i);
            }
            out.add(new String[] {option, prefix.isEmpty() ? files : prefix + "=" + files});
        }
        return out;
    }
}
