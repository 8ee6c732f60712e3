package io.sluice.group;

import java.time.Duration;

/** {@code maxMembers}: members a group takes at most; {@code memberTimeout}: how long a member may keep it waiting. */
public record Options(int maxMembers, Duration memberTimeout) {
    public Options {
        if (maxMembers < 1 || !memberTimeout.isPositive()) {
            throw new IllegalArgumentException("a group takes >= 1 member and the member timeout is positive, got "
                    + maxMembers + " and " + memberTimeout);
        }
    }
}
