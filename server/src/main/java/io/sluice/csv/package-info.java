/**
 * The input format of {@code sluice import}, which is neo4j-admin import's: groups of CSV files read as one
 * ({@link io.sluice.csv.InputGroup}, {@link io.sluice.csv.CsvSource}: FastCSV, gzip by content), the header
 * ({@link io.sluice.csv.Header}, {@link io.sluice.csv.Column}), typed values parsed by Neo4j's own value parsers
 * ({@link io.sluice.csv.ValueType}), rows ({@link io.sluice.csv.RowParser}), and bad rows: what is tolerated
 * ({@link io.sluice.csv.Tolerance}), why a row was rejected ({@link io.sluice.csv.Rejection}) and the report file
 * ({@link io.sluice.csv.ReportFile}). Pure format code: depends on nothing else of sluice's.
 */
package io.sluice.csv;
