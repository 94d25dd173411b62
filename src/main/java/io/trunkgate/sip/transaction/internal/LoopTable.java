package io.trunkgate.sip.transaction.internal;

import io.trunkgate.sip.transaction.Scheduler;
import java.util.HashMap;
import java.util.Map;

/** The transactions of one loop, touched only on that loop. */
final class LoopTable {

    final Layer layer;
    final Scheduler loop;
    /** Client transactions by branch and method (RFC 3261 §17.1.3). */
    final Map<ClientKey, ClientSide> clients = new HashMap<>();
    /** Server transactions by {@link ServerKeys}' keys (RFC 3261 §17.2.3). */
    final Map<Object, ServerSide> servers = new HashMap<>();

    LoopTable(Layer layer, Scheduler loop) {
        this.layer = layer;
        this.loop = loop;
    }
}
