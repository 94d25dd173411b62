package io.trunkgate.admin;

/** The gateway's graceful drain as the admin API sees it: start it, and whether it runs and on how many calls. */
public interface Draining {

    /** Starts draining (idempotent): new calls are refused, calls in progress go on. */
    void start();

    boolean draining();

    /** Calls not yet ended: INVITEs in progress and established dialogs. */
    int callsInProgress();
}
