package io.trunkgate.config;

import java.nio.file.Path;
import java.util.Optional;

/**
 * How the gateway trusts a carrier reached over TLS (a {@code sips:} URI or {@code ;transport=tls}).
 *
 * @param caFile PEM bundle of the CAs the carrier's certificate must chain to ({@code tls.ca-file}, resolved against
 *               the directory of gateway.conf); empty = the JDK's system CAs
 */
public record CarrierTls(Optional<Path> caFile) {

    /** Trust in the system CAs. */
    public static final CarrierTls SYSTEM_CAS = new CarrierTls(Optional.empty());
}
