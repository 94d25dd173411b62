package io.trunkgate.testing;

import io.netty.resolver.DefaultAddressResolverGroup;
import java.util.Arrays;
import org.redisson.client.RedisClient;
import org.redisson.client.RedisClientConfig;
import org.redisson.client.RedisConnection;
import org.redisson.client.codec.StringCodec;
import org.redisson.client.protocol.RedisCommand;

/**
 * One connection to one redis-server through Redisson's low-level client, for what a test does to the server
 * itself rather than through the gateway's code: building a cluster, holding the server up with CLIENT PAUSE,
 * reading INFO. Replies come back as Redis sent them: a status or bulk reply as a String, an integer as a Long,
 * an array as a List; an error reply throws.
 */
public final class RedisAdmin implements AutoCloseable {

    private final int port;
    private final RedisClient client;
    private final RedisConnection connection;

    public RedisAdmin(int port) {
        this.port = port;
        // the JDK's resolver for an address that needs none (Redisson's default would pick a netty transport
        // by class, and the epoll one is not on the classpath)
        client = RedisClient.create(new RedisClientConfig().setAddress("redis://127.0.0.1:" + port)
                .setResolverGroup(DefaultAddressResolverGroup.INSTANCE)
                .setConnectTimeout(5_000).setCommandTimeout(10_000));
        try {
            connection = client.connect();
        } catch (RuntimeException e) {
            client.shutdown();
            throw e;
        }
    }

    public int port() {
        return port;
    }

    /** Sends one command, e.g. {@code call("CLUSTER", "INFO")}, and waits for its reply. */
    public Object call(Object... words) {
        RedisCommand<Object> command = new RedisCommand<>(words[0].toString());
        return connection.sync(StringCodec.INSTANCE, command, Arrays.copyOfRange(words, 1, words.length));
    }

    /** The value of {@code field} in the reply of {@code INFO section} (or CLUSTER INFO), or null if absent. */
    public static String field(String infoReply, String field) {
        for (String line : infoReply.split("\r?\n")) {
            if (line.startsWith(field + ":")) {
                return line.substring(field.length() + 1).trim();
            }
        }
        return null;
    }

    @Override
    public void close() {
        connection.closeAsync();
        client.shutdown();
    }
}
