package io.sluice.journal;

import java.io.IOException;

/**
 * A frame on disk is torn or corrupt. Recovery catches it and truncates; a reader that meets one (the disk
 * rotted after recovery) gets it as a plain {@link IOException}, never the bad bytes. Immutable.
 */
final class CorruptFrameException extends IOException {
    private static final long serialVersionUID = 1L;

    CorruptFrameException(String message) {
        super(message);
    }
}
