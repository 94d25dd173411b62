package io.trunkgate.config;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.regex.Pattern;

/** The redis block of gateway.conf, including the keys each mode needs. */
final class RedisSettingsReader {

    private static final Pattern ADDRESS =
            Pattern.compile("rediss?://(\\[[0-9A-Fa-f:.]+\\]|[A-Za-z0-9.-]+):[0-9]{1,5}");
    private static final Pattern KEY_PREFIX = Pattern.compile("[A-Za-z0-9._:-]+");

    private RedisSettingsReader() {
    }

    static RedisSettings read(ConfigSection file) {
        RedisMode mode = file.optional("redis.mode").choice(RedisMode.class).orElse(RedisMode.EMBEDDED);

        Field addressesField = file.optional("redis.addresses");
        List<String> addresses = new ArrayList<>();
        for (Field element : addressesField.elements().orElse(List.of())) {
            element.string(ADDRESS.asMatchPredicate(), "must be \"redis://host:port\" (or rediss:// for TLS)")
                    .ifPresent(addresses::add);
        }
        if (mode == RedisMode.STANDALONE && addresses.size() != 1) {
            addressesField.error("standalone mode needs exactly one address, got " + addresses.size());
        } else if ((mode == RedisMode.SENTINEL || mode == RedisMode.CLUSTER) && addresses.isEmpty()) {
            addressesField.error(mode.name().toLowerCase(Locale.ROOT) + " mode needs at least one address");
        }

        Field masterField = file.optional("redis.sentinel-master");
        Optional<String> sentinelMaster = masterField.nonEmptyString();
        if (mode == RedisMode.SENTINEL && !masterField.isPresent()) {
            masterField.error("required key missing (sentinel mode needs the master's name)");
        }

        Optional<String> password = file.optional("redis.password").nonEmptyString();
        Duration timeout = file.optional("redis.timeout").duration(Duration.ofMillis(1)).orElse(Duration.ofMillis(50));
        String keyPrefix = file.optional("redis.key-prefix")
                .string(KEY_PREFIX.asMatchPredicate(), "must contain only letters, digits, '.', '_', ':' and '-'")
                .orElse("tg");
        int embeddedPort = file.optional("redis.embedded-port").integer(0, 65535).orElse(0);
        return new RedisSettings(mode, addresses, sentinelMaster, password, timeout, keyPrefix, embeddedPort);
    }
}
