package io.trunkgate.admin;

/** The gateway's graceful drain as the admin API sees it: start it, and whether it runs and on how many calls. */
public interface Draining {

    /** Starts draining (idempotent): new calls are refused, calls in progress go on. */
    void start();

    boolean draining();

    /**
     * Ends a drain an operator started: new calls are taken again. False when the gateway is stopping (SIGTERM or
     * SIGINT): that drain ends with the process, never undone. True when not draining at all.
     */
    boolean resume();

    /** Calls not yet ended: INVITEs in progress and established dialogs. */
    int callsInProgress();
}
