package io.trunkgate.warmup;

import com.sun.management.HotSpotDiagnosticMXBean;
import java.lang.management.ManagementFactory;

/**
 * Whether this JVM started from a start cache: Java 25's AOT cache ({@code -XX:AOTCache}), which bin/trunkgate
 * records once per jar and Java runtime from a run that only warms up. The cache holds the classes loaded and linked
 * and the call path's method profiles, so the JIT compiles the call path from the first calls of the warm-up instead
 * of after thousands of them (docs/warm-up.md).
 */
final class StartCache {

    private StartCache() {
    }

    static boolean inUse() {
        HotSpotDiagnosticMXBean vm = ManagementFactory.getPlatformMXBean(HotSpotDiagnosticMXBean.class);
        if (vm == null) {
            return false;
        }
        try {
            return !vm.getVMOption("AOTCache").getValue().isEmpty();
        } catch (IllegalArgumentException beforeJava24) {
            return false;
        }
    }
}
