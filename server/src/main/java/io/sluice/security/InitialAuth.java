package io.sluice.security;

import java.security.SecureRandom;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * How authentication starts, from the environment exactly as Neo4j's container image reads it:
 * {@code NEO4J_AUTH=none} turns it off; {@code NEO4J_AUTH=neo4j/<password>[/true]} sets the initial password of
 * user {@code neo4j} (with {@code /true}: it must be changed at first use); unset, a strong password is generated
 * on the first start. As with Neo4j, an initial password takes effect only while {@code neo4j} still has the
 * default one: once changed, it is the users' own business.
 */
public sealed interface InitialAuth {
    /** The one user Neo4j creates. */
    String USER = "neo4j";

    record Off() implements InitialAuth {}

    record Given(String password, boolean requireChange) implements InitialAuth {
        @Override
        public String toString() {
            return "Given[password=..., requireChange=" + requireChange + "]";
        }
    }

    /** Nothing given: generate one on a fresh store (and tell where it was written, never the password). */
    record Generate() implements InitialAuth {}

    Pattern VALUE = Pattern.compile("^([^/]+)/([^/]+)/?([tT][rR][uU][eE])?$");

    /**
     * Reads a {@code NEO4J_AUTH} value (null: unset). Refuses, as the container image does, another user than
     * {@code neo4j}, the default password, one shorter than {@code minLength}, and any other shape; the message
     * never repeats the password.
     */
    static InitialAuth parse(String value, int minLength) {
        if (value == null || value.isEmpty()) {
            return new Generate();
        }
        if (value.equals("none")) {
            return new Off();
        }
        Matcher m = VALUE.matcher(value);
        if (!m.matches()) {
            throw new IllegalArgumentException("NEO4J_AUTH must be 'none' or 'neo4j/<password>' (optionally"
                    + " followed by '/true' to require a change at first use)");
        }
        if (!m.group(1).equals(USER)) {
            throw new IllegalArgumentException("NEO4J_AUTH: invalid admin user name '" + m.group(1)
                    + "', it must be neo4j");
        }
        String password = m.group(2);
        if (password.equals("neo4j")) {
            throw new IllegalArgumentException("NEO4J_AUTH: the password cannot be 'neo4j', which is the default");
        }
        if (password.codePointCount(0, password.length()) < minLength) {
            throw new IllegalArgumentException("NEO4J_AUTH: a password must be at least " + minLength + " characters");
        }
        return new Given(password, m.group(3) != null);
    }

    /** A strong password: 24 characters from 62 (about 143 bits). */
    public static String generatePassword() {
        String alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
        SecureRandom random = new SecureRandom();
        StringBuilder sb = new StringBuilder(24);
        for (int i = 0; i < 24; i++) {
            sb.append(alphabet.charAt(random.nextInt(alphabet.length())));
        }
        return sb.toString();
    }
}
