package io.sluice.csv;

/** What a group of input files holds: nodes ({@code --nodes}) or relationships ({@code --relationships}). */
public enum EntityKind {
    NODES("--nodes"),
    RELATIONSHIPS("--relationships");

    private final String option;

    EntityKind(String option) {
        this.option = option;
    }

    /** The command-line option that introduces a group of this kind. */
    public String option() {
        return option;
    }
}
