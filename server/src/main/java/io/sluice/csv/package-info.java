/**
 * The input format of {@code sluice import}, which is neo4j-admin import's: groups of CSV files read as one
 * ({@link InputGroup}, {@link CsvSource}: FastCSV, gzip by content), the header
 * ({@link Header}, {@link Column}), typed values parsed by Neo4j's own value parsers
 * ({@link ValueType}), rows ({@link RowParser}), and bad rows: what is tolerated
 * ({@link Tolerance}), why a row was rejected ({@link Rejection}) and the report file
 * ({@link ReportFile}). Pure format code: depends on nothing else of sluice's.
 */
package io.sluice.csv;
