package io.trunkgate;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.Architectures.layeredArchitecture;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

import com.tngtech.archunit.core.domain.Dependency;
import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.lang.ArchCondition;
import com.tngtech.archunit.lang.ConditionEvents;
import com.tngtech.archunit.lang.SimpleConditionEvent;
import com.tngtech.archunit.library.dependencies.SliceAssignment;
import com.tngtech.archunit.library.dependencies.SliceIdentifier;
import io.trunkgate.gateway.Gateway;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The package boundaries of the gateway's own code (tests excluded): no import loops, no package reaching into
 * another's {@code internal}, and each layer importing only those below it (docs/ARCHITECTURE.md draws them).
 */
class ArchitectureTest {

    private static JavaClasses main;

    @BeforeAll
    static void importMainClasses() {
        // The main classes' own directory (or jar): scanning the whole class path for the package is slow.
        main = new ClassFileImporter().importUrl(Gateway.class.getProtectionDomain().getCodeSource().getLocation());
    }

    /** Each package with its {@code internal} (its factories create the implementation: that loop is fine). */
    private static final SliceAssignment PACKAGES = new SliceAssignment() {
        @Override
        public SliceIdentifier getIdentifierOf(JavaClass javaClass) {
            String name = javaClass.getPackageName();
            return name.startsWith("io.trunkgate.")
                    ? SliceIdentifier.of(name.replaceFirst("\\.internal(\\..*)?$", "")) : SliceIdentifier.ignore();
        }

        @Override
        public String getDescription() {
            return "the packages of io.trunkgate, each with its internal";
        }
    };

    @Test
    void noPackageImportsLoopBack() {
        slices().assignedFrom(PACKAGES).should().beFreeOfCycles().check(main);
    }

    @Test
    void noTopLevelPackageImportsLoopBack() {
        slices().matching("io.trunkgate.(*)..").should().beFreeOfCycles().check(main);
    }

    @Test
    void internalPackagesAreUsedOnlyByTheirOwnPackage() {
        classes().should(new ArchCondition<JavaClass>("use no other package's internal classes") {
            @Override
            public void check(JavaClass origin, ConditionEvents events) {
                for (Dependency dependency : origin.getDirectDependenciesFromSelf()) {
                    String target = dependency.getTargetClass().getPackageName();
                    int internal = target.indexOf(".internal");
                    if (target.startsWith("io.trunkgate.") && internal > 0
                            && !(origin.getPackageName() + ".").startsWith(target.substring(0, internal) + ".")) {
                        events.add(SimpleConditionEvent.violated(dependency, dependency.getDescription()));
                    }
                }
            }
        }).check(main);
    }

    /** JAIN-SIP's implementation, its internals and workarounds (docs/jain-sip.md) stay behind one adapter. */
    @Test
    void onlyTheJainSipAdapterDependsOnJainSipsImplementation() {
        noClasses().that().resideOutsideOfPackage("io.trunkgate.sip.jainsip")
                .should().dependOnClassesThat().resideInAPackage("gov.nist..").check(main);
    }

    /**
     * JAIN-SIP is the message model only: the gateway's own transports and transaction layer carry its messages, and
     * nothing of JAIN-SIP's stack (its stack, providers, transactions, dialogs, listening points, listener, message
     * processors and channels, timer and router) is used.
     */
    @Test
    void noClassUsesJainSipsStack() {
        noClasses().should().dependOnClassesThat().haveFullyQualifiedName("javax.sip.SipStack")
                .orShould().dependOnClassesThat().haveFullyQualifiedName("javax.sip.SipProvider")
                .orShould().dependOnClassesThat().haveFullyQualifiedName("javax.sip.ClientTransaction")
                .orShould().dependOnClassesThat().haveFullyQualifiedName("javax.sip.ServerTransaction")
                .orShould().dependOnClassesThat().haveFullyQualifiedName("javax.sip.Transaction")
                .orShould().dependOnClassesThat().haveFullyQualifiedName("javax.sip.Dialog")
                .orShould().dependOnClassesThat().haveFullyQualifiedName("javax.sip.ListeningPoint")
                .orShould().dependOnClassesThat().haveFullyQualifiedName("javax.sip.SipListener")
                .orShould().dependOnClassesThat().resideInAPackage("gov.nist..stack..")
                .check(main);
    }

    @Test
    void eachLayerImportsOnlyLayersBelowIt() {
        layeredArchitecture().consideringOnlyDependenciesInLayers()
                .layer("Command line").definedBy("io.trunkgate.cli..")
                .layer("Composition root").definedBy("io.trunkgate.gateway..")
                .layer("What-if").definedBy("io.trunkgate.whatif..")
                .layer("Start-up").definedBy("io.trunkgate.warmup..")
                .layer("Front ends").definedBy("io.trunkgate.sip..", "io.trunkgate.admin..")
                .layer("Runtime services").definedBy("io.trunkgate.runtime..")
                .layer("Ports").definedBy("io.trunkgate.limit..", "io.trunkgate.pace..", "io.trunkgate.route..",
                        "io.trunkgate.history..", "io.trunkgate.metrics..", "io.trunkgate.records..",
                        "io.trunkgate.throttle..", "io.trunkgate.health..", "io.trunkgate.dns..",
                        "io.trunkgate.overload..", "io.trunkgate.tls..", "io.trunkgate.auth..",
                        "io.trunkgate.capture..", "io.trunkgate.logging..")
                .layer("Configuration").definedBy("io.trunkgate.config..")
                .layer("Redis").definedBy("io.trunkgate.redis..")
                .whereLayer("Command line").mayNotBeAccessedByAnyLayer()
                .whereLayer("Composition root").mayOnlyBeAccessedByLayers("Command line")
                .whereLayer("What-if").mayOnlyBeAccessedByLayers("Command line")
                .whereLayer("Start-up").mayOnlyBeAccessedByLayers("Composition root")
                .whereLayer("Front ends").mayOnlyBeAccessedByLayers("Composition root")
                .whereLayer("Runtime services").mayOnlyBeAccessedByLayers("Composition root", "What-if",
                        "Front ends")
                .whereLayer("Ports").mayOnlyBeAccessedByLayers("Composition root", "What-if", "Start-up",
                        "Front ends", "Runtime services")
                .whereLayer("Configuration").mayOnlyBeAccessedByLayers("Command line", "Composition root",
                        "What-if", "Start-up", "Front ends", "Runtime services", "Ports")
                .whereLayer("Redis").mayOnlyBeAccessedByLayers("Composition root", "What-if", "Front ends",
                        "Runtime services", "Ports", "Configuration")
                .check(main);
    }
}
