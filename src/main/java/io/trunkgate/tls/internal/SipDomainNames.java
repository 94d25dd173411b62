package io.trunkgate.tls.internal;

import io.trunkgate.config.SipUri;
import java.net.IDN;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.security.cert.CertificateParsingException;
import java.security.cert.X509Certificate;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import javax.naming.InvalidNameException;
import javax.naming.ldap.LdapName;
import javax.naming.ldap.Rdn;

/**
 * The SIP domain identities of a certificate and their comparison with the domain the gateway meant to reach, as
 * RFC 5922 §7 says:
 * <ul>
 *   <li>§7.1: the identities are the host parts of subjectAltName URIs of scheme "sip" without a user part; only
 *   when there is none of those, the dNSName entries; only when the certificate has no subjectAltName extension at
 *   all, the subject's CN;</li>
 *   <li>§7.2: compared as whole DNS names, without regard to case, internationalized names in their ASCII form; no
 *   suffix and no wildcard matching ("*.example.com" matches only itself).</li>
 * </ul>
 * RFC 5922 speaks of domain names only. A carrier reached at an IP address is checked against the certificate's
 * iPAddress entries, by address, as for HTTPS (RFC 2818 §3.1).
 */
public final class SipDomainNames {

    private static final int DNS_NAME = 2;
    private static final int URI = 6;
    private static final int IP_ADDRESS = 7;

    private SipDomainNames() {
    }

    /** The names {@code certificate} is for, as matched against {@code host}: for messages. */
    public static List<String> identities(X509Certificate certificate, String host) {
        return isAddress(host) ? addresses(certificate) : domains(certificate);
    }

    public static boolean matches(X509Certificate certificate, String host) {
        if (isAddress(host)) {
            Optional<InetAddress> wanted = address(host);
            return wanted.isPresent() && addresses(certificate).stream().map(SipDomainNames::address)
                    .anyMatch(wanted::equals);
        }
        String wanted = normalized(host);
        return domains(certificate).stream().map(SipDomainNames::normalized).anyMatch(wanted::equals);
    }

    /** §7.1's SIP domain identities, as written in the certificate. */
    static List<String> domains(X509Certificate certificate) {
        Collection<List<?>> entries = subjectAltNames(certificate);
        if (entries == null) {
            return commonNames(certificate);
        }
        List<String> sipUris = new ArrayList<>();
        List<String> dnsNames = new ArrayList<>();
        for (List<?> entry : entries) {
            int type = (Integer) entry.get(0);
            if (type == URI && entry.get(1) instanceof String uri) {
                sipDomain(uri).ifPresent(sipUris::add);
            } else if (type == DNS_NAME && entry.get(1) instanceof String name) {
                dnsNames.add(name);
            }
        }
        return sipUris.isEmpty() ? dnsNames : sipUris;
    }

    /** The host part of "sip:host[:port][;params]" with no user part; a sips: URI is not a domain identity. */
    private static Optional<String> sipDomain(String uri) {
        if (!uri.regionMatches(true, 0, "sip:", 0, 4)) {
            return Optional.empty();
        }
        String rest = uri.substring(4);
        if (rest.contains("@")) {
            return Optional.empty();
        }
        int end = rest.length();
        for (char stop : new char[] {':', ';', '?'}) {
            int at = rest.indexOf(stop);
            if (at >= 0 && at < end) {
                end = at;
            }
        }
        String host = rest.substring(0, end);
        return host.isEmpty() ? Optional.empty() : Optional.of(host);
    }

    private static List<String> addresses(X509Certificate certificate) {
        List<String> addresses = new ArrayList<>();
        Collection<List<?>> entries = subjectAltNames(certificate);
        if (entries != null) {
            for (List<?> entry : entries) {
                if ((Integer) entry.get(0) == IP_ADDRESS && entry.get(1) instanceof String address) {
                    addresses.add(address);
                }
            }
        }
        return addresses;
    }

    private static List<String> commonNames(X509Certificate certificate) {
        List<String> names = new ArrayList<>();
        try {
            for (Rdn rdn : new LdapName(certificate.getSubjectX500Principal().getName()).getRdns()) {
                if (rdn.getType().equalsIgnoreCase("CN") && rdn.getValue() instanceof String cn) {
                    names.add(cn);
                }
            }
        } catch (InvalidNameException e) {
            // a subject the JDK printed but cannot parse back names nothing
        }
        return names;
    }

    private static Collection<List<?>> subjectAltNames(X509Certificate certificate) {
        try {
            return certificate.getSubjectAlternativeNames();
        } catch (CertificateParsingException e) {
            return List.of();
        }
    }

    private static String normalized(String name) {
        try {
            return IDN.toASCII(name, IDN.ALLOW_UNASSIGNED).toLowerCase(Locale.ROOT);
        } catch (IllegalArgumentException e) {
            return name.toLowerCase(Locale.ROOT);
        }
    }

    private static boolean isAddress(String host) {
        return host.indexOf(':') >= 0 || SipUri.isIpv4(host);
    }

    /** An IP literal as an address; never a DNS lookup (the text is checked to be one first). */
    private static Optional<InetAddress> address(String literal) {
        String bare = literal.startsWith("[") && literal.endsWith("]") ? literal.substring(1, literal.length() - 1)
                : literal;
        if (!isAddress(bare)) {
            return Optional.empty();
        }
        try {
            return Optional.of(InetAddress.getByName(bare));
        } catch (UnknownHostException e) {
            return Optional.empty();
        }
    }
}
