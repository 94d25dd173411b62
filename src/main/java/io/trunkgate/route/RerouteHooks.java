package io.trunkgate.route;

import java.util.Optional;
import java.util.ServiceLoader;

/** Finds the reroute hook in use: the class named in config, else the first on the class path, else the chain. */
public final class RerouteHooks {

    private RerouteHooks() {
    }

    public static RerouteHook load(Optional<String> className) {
        if (className.isPresent()) {
            try {
                Class<?> type = Class.forName(className.get());
                return (RerouteHook) type.getDeclaredConstructor().newInstance();
            } catch (ReflectiveOperationException | ClassCastException e) {
                throw new IllegalArgumentException("cannot load reroute hook " + className.get()
                        + ": it must be a public class implementing io.trunkgate.route.RerouteHook with a public"
                        + " no-argument constructor (" + e + ")", e);
            }
        }
        return ServiceLoader.load(RerouteHook.class).findFirst().orElse(RerouteHook.CONFIGURED_CHAIN);
    }
}
