/**
 * {@code sluice import}: the command's options ({@link ImportOptions}, and Neo4j 3.x's
 * spelling of them, {@link LegacyArguments}), its entry point ({@link Importer}:
 * offline, or the online engine of {@code io.sluice.online} with Ctrl-C handling), its progress display and
 * summary, and the offline path: Neo4j's own importer in-process ({@code OfflineImport}, {@code AdminOutput}).
 * The offline path stays here: it uses the command's options, progress and summary, so a package of its own would
 * need this one while {@code Importer} needs it.
 */
package io.sluice.importer;
