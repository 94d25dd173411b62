package io.trunkgate.config;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.Properties;

/**
 * The version and commit this build was made from: {@code trunkgate-build.properties}, which Maven fills in from
 * the project's version and the checkout's commit ("unknown" when built without git, e.g. from a source tarball).
 */
public record BuildInfo(String version, String commit) {

    private static final String RESOURCE = "/trunkgate-build.properties";
    private static final String UNKNOWN = "unknown";

    /** This build's; "unknown" for what Maven did not fill in (classes compiled by something else). */
    public static BuildInfo current() {
        Properties properties = new Properties();
        try (InputStream in = BuildInfo.class.getResourceAsStream(RESOURCE)) {
            if (in != null) {
                properties.load(in);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return new BuildInfo(filled(properties.getProperty("version")), filled(properties.getProperty("commit")));
    }

    private static String filled(String value) {
        return value == null || value.isBlank() || value.startsWith("${") ? UNKNOWN : value.trim();
    }
}
