package com.example.trunkgate;

import io.trunkgate.route.RerouteContext;
import io.trunkgate.route.RerouteHook;
import java.util.ArrayList;
import java.util.List;

/**
 * An example reroute hook: once a call failed at a carrier, the carriers of its chain whose id starts with
 * "backup" are tried first, then the others in their configured order. Carriers known to be down are left out.
 */
public final class BackupFirstHook implements RerouteHook {

    @Override
    public List<String> reroute(RerouteContext context) {
        List<String> backups = new ArrayList<>();
        List<String> others = new ArrayList<>();
        for (String id : context.remaining()) {
            if (!context.down().contains(id)) {
                (id.startsWith("backup") ? backups : others).add(id);
            }
        }
        backups.addAll(others);
        return backups;
    }
}
