/**
 * The online import: the rows of CSV groups into a live database through sluice's write path, as a client of it.
 * {@link OnlineImport} plans the ID spaces ({@code GraphPlan}), writes one statement per batch
 * ({@code Statements}), applies the batches from a few threads ({@code BatchApplier}) and keeps its progress in the
 * database for an exact resume ({@code Resume}), through a {@code Target}: the write path of an in-process sluice
 * ({@code GatewayTarget}) or a running one over HTTP. Knows nothing of the command ({@code io.sluice.importer}).
 */
package io.sluice.online;
