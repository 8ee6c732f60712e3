package io.sluice.vocab;

import java.util.UUID;

/** Where a database's committed history stands: its id and its last committed transaction (what a bookmark names). */
public record Committed(UUID database, long transaction) {}
