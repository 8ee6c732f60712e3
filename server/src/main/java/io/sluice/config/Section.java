package io.sluice.config;

/** A top-level section of the config file, which {@link SluiceConfig#with(Section)} replaces. */
public sealed interface Section
        permits Batch, Admission, Neo4j, Retry, Journal, Apply, Security, Tls, Modes, Transactions, Warmup, Http,
        Bolt, Sources {}
