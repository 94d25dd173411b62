package io.trunkgate.testing;

import java.util.ArrayList;
import java.util.List;

/**
 * The SIP agents of one end-to-end test class, callers and carriers, each on a loopback address of its own:
 * started here, cleared between tests and closed together after the gateway.
 */
public final class SipAgents implements AutoCloseable {

    private final List<SipAgent> agents = new ArrayList<>();

    /** An agent on {@code host}, over UDP. */
    public SipAgent start(String host) throws Exception {
        return start(host, "UDP");
    }

    public SipAgent start(String host, String transport) throws Exception {
        SipAgent agent = SipAgent.start(host, transport);
        agents.add(agent);
        return agent;
    }

    /** An agent on {@code host} that answers INVITEs as {@code behaviour} says. */
    public SipAgent start(String host, SipAgent.Behaviour behaviour) throws Exception {
        SipAgent agent = start(host);
        agent.behave(behaviour);
        return agent;
    }

    /** Forgets what every agent received (between tests of one class). */
    public void clear() {
        agents.forEach(SipAgent::clear);
    }

    @Override
    public void close() {
        agents.parallelStream().forEach(SipAgent::close);
    }
}
