package io.trunkgate.admin;

import io.trunkgate.records.LiveCall;
import java.util.List;

/** The calls in progress at this gateway as the admin API sees them: list them, end one. */
public interface LiveCalls {

    /** The calls in progress, oldest first. */
    List<LiveCall> list();

    /**
     * Ends the call with this id ({@link LiveCall#id}): BYE to both ends when answered, else cancelled; its record
     * says an operator ended it. False when no call in progress has that id.
     */
    boolean hangUp(String id);
}
