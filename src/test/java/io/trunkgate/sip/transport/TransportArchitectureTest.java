package io.trunkgate.sip.transport;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import org.junit.jupiter.api.Test;

/** The transports know sockets and the head of a SIP message: no SIP stack, message model or transaction. */
class TransportArchitectureTest {

    private static final JavaClasses TRANSPORT = new ClassFileImporter().importPackages("io.trunkgate.sip.transport");

    @Test
    void theTransportsUseNeitherJainSipNorTheTransactionLayerNorTheProxy() {
        noClasses().that().resideInAPackage("io.trunkgate.sip.transport..")
                .should().dependOnClassesThat().resideInAnyPackage("javax.sip..", "gov.nist..",
                        "io.trunkgate.sip.transaction..", "io.trunkgate.sip.jainsip..", "io.trunkgate.sip")
                .check(TRANSPORT);
    }
}
