package io.sluice.apply;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;

/** Random values of the kinds rows carry, biased to where numeric types meet. */
final class RandomValues {
    private RandomValues() {}

    private static final long P53 = 1L << 53;
    private static final long[] LONGS = {0, 1, -1, P53 - 1, P53, P53 + 1, P53 + 2, -P53, -P53 - 1, Long.MAX_VALUE,
        Long.MIN_VALUE, Long.MAX_VALUE - 1, Integer.MAX_VALUE, Integer.MIN_VALUE};
    private static final double[] DOUBLES = {0.0, -0.0, 0.5, -0.5, 1.0, 1.5, 0x1p53, Math.nextDown(0x1p53),
        Math.nextUp(0x1p53), -0x1p53, 0x1p63, -0x1p63, Math.nextDown(0x1p63), Math.nextUp(-0x1p63), 0x1p64,
        Double.POSITIVE_INFINITY, Double.NEGATIVE_INFINITY, Double.NaN, Double.MAX_VALUE, Double.MIN_VALUE};

    static Object any(Random r, int depth) {
        int kind = r.nextInt(depth > 0 ? 10 : 8);
        return switch (kind) {
            case 0 -> null;
            case 1 -> r.nextBoolean();
            case 2 -> r.nextInt(3) == 0 ? r.nextLong() : LONGS[r.nextInt(LONGS.length)] + (r.nextInt(3) - 1);
            case 3 -> r.nextInt(3) == 0 ? r.nextDouble() * 10 - 5 : DOUBLES[r.nextInt(DOUBLES.length)];
            case 4 -> r.nextInt(5) - 2; // an Integer, as a Java caller may send
            case 5 -> BigInteger.ONE.shiftLeft(53 + r.nextInt(12)).add(BigInteger.valueOf(r.nextInt(5) - 2))
                    .multiply(BigInteger.valueOf(r.nextBoolean() ? 1 : -1));
            case 6, 7 -> string(r);
            case 8 -> {
                List<Object> l = new ArrayList<>();
                for (int i = r.nextInt(4); i > 0; i--) {
                    l.add(any(r, depth - 1));
                }
                yield l;
            }
            default -> {
                Map<String, Object> m = new LinkedHashMap<>();
                for (int i = r.nextInt(3); i > 0; i--) {
                    m.put(string(r), any(r, depth - 1));
                }
                yield m;
            }
        };
    }

    private static String string(Random r) {
        StringBuilder sb = new StringBuilder();
        for (int i = r.nextInt(3); i > 0; i--) {
            sb.append("ab1é".charAt(r.nextInt(4)));
        }
        return sb.toString();
    }

    /** The exact value of a finite number, null for NaN and the infinities. */
    static BigDecimal exact(Number n) {
        return switch (n) {
            case BigDecimal x -> x;
            case BigInteger x -> new BigDecimal(x);
            case Double x -> Double.isFinite(x) ? new BigDecimal(x) : null;
            case Float x -> Float.isFinite(x) ? new BigDecimal(x) : null;
            default -> BigDecimal.valueOf(n.longValue());
        };
    }
}
