package io.sluice.http;

import java.util.Locale;
import java.util.Set;

/**
 * The Query API's two formats, chosen per request as Neo4j chooses them: the request's {@code Content-Type} says
 * whether its parameters are typed ({@code application/vnd.neo4j.query}, also {@code .v1.0}/{@code .v1.1}/
 * {@code .v1.2}), its {@code Accept} whether the answer is; the two are independent. Plain JSON is the default.
 *
 * @param responseType the typed media type to answer with, exactly as negotiated (the npm client checks it), or
 *     null for plain JSON
 */
record QueryMedia(boolean typedParameters, String responseType) {
    static final QueryMedia PLAIN = new QueryMedia(false, null);
    static final String TYPED = "application/vnd.neo4j.query";
    private static final Set<String> TYPED_FORMS = Set.of(TYPED, TYPED + ".v1.0", TYPED + ".v1.1", TYPED + ".v1.2");
    private static final Set<String> PLAIN_FORMS = Set.of("application/json", "application/*", "*/*");

    static QueryMedia of(String contentType, String accept) {
        return new QueryMedia(contentType != null && TYPED_FORMS.contains(mediaType(contentType)), negotiate(accept));
    }

    boolean typedResponse() {
        return responseType != null;
    }

    /** The typed form the client prefers (highest q; a concrete type over a wildcard; then its order), or null. */
    private static String negotiate(String accept) {
        if (accept == null) {
            return null;
        }
        String best = null;
        double bestQ = 0;
        boolean bestConcrete = false;
        for (String range : accept.split(",")) {
            String type = mediaType(range);
            if (!TYPED_FORMS.contains(type) && !PLAIN_FORMS.contains(type)) {
                continue;
            }
            double q = quality(range);
            boolean concrete = !type.contains("*");
            if (q > bestQ || (q == bestQ && concrete && !bestConcrete)) {
                best = type;
                bestQ = q;
                bestConcrete = concrete;
            }
        }
        return best != null && TYPED_FORMS.contains(best) ? best : null;
    }

    private static String mediaType(String header) {
        int semi = header.indexOf(';');
        return (semi < 0 ? header : header.substring(0, semi)).strip().toLowerCase(Locale.ROOT);
    }

    private static double quality(String range) {
        for (String p : range.split(";")) {
            String s = p.strip();
            if (s.startsWith("q=")) {
                try {
                    return Double.parseDouble(s.substring(2));
                } catch (NumberFormatException e) {
                    return 0;
                }
            }
        }
        return 1;
    }
}
