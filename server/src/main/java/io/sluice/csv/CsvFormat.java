package io.sluice.csv;

import java.util.Locale;

/**
 * How the CSV files are read, with neo4j-admin import's option names and defaults.
 *
 * @param delimiter          between fields ({@code --delimiter}, default {@code ,})
 * @param arrayDelimiter     between array elements inside a field ({@code --array-delimiter}, default {@code ;})
 * @param quote              quote character ({@code --quote}, default {@code "})
 * @param ignoreEmptyStrings a quoted empty string {@code ""} is no value, like an empty field
 * @param ignoreExtraColumns fields beyond the header's columns are dropped instead of rejecting the row
 * @param trimStrings        strip white space around string values
 * @param skipSubsequentHeaders a later file of a group whose first line repeats the header skips that line
 * @param idType             how ID values are read when the header gives no {@code {id-type:...}}
 */
public record CsvFormat(char delimiter, char arrayDelimiter, char quote, boolean ignoreEmptyStrings,
        boolean ignoreExtraColumns, boolean trimStrings, boolean skipSubsequentHeaders, IdType idType) {

    public static final CsvFormat DEFAULT = new CsvFormat(',', ';', '"', false, false, false, false, IdType.STRING);

    public CsvFormat {
        if (delimiter == arrayDelimiter) {
            throw new IllegalArgumentException("--delimiter and --array-delimiter must differ, both are '" + delimiter + "'");
        }
        if (delimiter == quote) {
            throw new IllegalArgumentException("--delimiter and --quote must differ, both are '" + delimiter + "'");
        }
    }

    /** neo4j-admin's {@code --id-type}. */
    public enum IdType {
        /** IDs are strings (the default); the ID property is stored as a string. */
        STRING,
        /** IDs are integers; the ID property is stored as a long. */
        INTEGER,
        /** IDs are Neo4j's internal node ids: offline only. */
        ACTUAL;

        public static IdType parse(String text) {
            try {
                return valueOf(text.strip().toUpperCase(Locale.ROOT));
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException("--id-type must be string, integer or actual, got '" + text + "'");
            }
        }
    }

    /**
     * Parses a character option the way neo4j-admin does: a single character, {@code TAB}, {@code \t}, or a
     * code point as {@code U+20AC}.
     */
    public static char character(String option, String text) {
        if (text.equals("TAB") || text.equals("\\t")) {
            return '\t';
        }
        if (text.length() == 1) {
            return text.charAt(0);
        }
        if (text.regionMatches(true, 0, "U+", 0, 2)) {
            try {
                return (char) Integer.parseInt(text.substring(2), 16);
            } catch (NumberFormatException e) {
                // fall through to the error below
            }
        }
        throw new IllegalArgumentException(option + " must be one character, TAB or U+XXXX, got '" + text + "'");
    }
}
