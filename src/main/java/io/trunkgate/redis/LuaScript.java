package io.trunkgate.redis;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import org.redisson.api.RBatch;
import org.redisson.api.RScript;
import org.redisson.api.RScriptAsync;
import org.redisson.api.RedissonClient;
import org.redisson.client.codec.StringCodec;

/**
 * One of the scripts in lua/, run by its SHA. Redis forgets scripts on SCRIPT FLUSH, restart or failover
 * to a replica; a NOSCRIPT reply loads the script on the node that owns the key and runs it once more.
 */
public final class LuaScript {

    private final String name;
    private final String source;
    private final String sha;

    private LuaScript(String name, String source) {
        this.name = name;
        this.source = source;
        this.sha = sha1(source);
    }

    /** Loads {@code lua/<name>} from the classpath (the jar carries the lua/ folder). */
    public static LuaScript fromResource(String name) {
        return new LuaScript(name, read(name));
    }

    /**
     * {@code lua/<name>} with each of {@code parts} defined before it as a local function of (KEYS, ARGV), named
     * after its file ({@code admit.lua} becomes {@code admit}), so one script can run others in one call.
     */
    public static LuaScript composed(String name, String... parts) {
        StringBuilder source = new StringBuilder();
        for (String part : parts) {
            source.append("local function ").append(part.replace(".lua", "").replace('-', '_'))
                    .append("(KEYS, ARGV)\n").append(read(part)).append("\nend\n");
        }
        return new LuaScript(name, source.append(read(name)).toString());
    }

    private static String read(String name) {
        try (InputStream in = LuaScript.class.getResourceAsStream("/lua/" + name)) {
            if (in == null) {
                throw new IllegalStateException("script lua/" + name + " is missing from the classpath");
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read lua/" + name, e);
        }
    }

    public String name() {
        return name;
    }

    public String sha() {
        return sha;
    }

    /**
     * Runs the script with {@code keys} (all in one hash slot: the first key routes the call) and
     * {@code args}; the reply is the script's array, integers as Long and strings as String.
     */
    public CompletionStage<List<Object>> run(RedissonClient redis, List<Object> keys, Object... args) {
        RScript script = redis.getScript(StringCodec.INSTANCE);
        String routingKey = (String) keys.get(0);
        return this.<List<Object>>evalSha(script, routingKey, keys, args).exceptionallyCompose(error -> {
            if (!isNoScript(error)) {
                return CompletableFuture.failedFuture(error);
            }
            return script.scriptLoadAsync(routingKey, source)
                    .thenCompose(loaded -> this.<List<Object>>evalSha(script, routingKey, keys, args));
        });
    }

    /** Loads the script into {@code redis} (one server), so that {@link #runIn} finds it. */
    public void load(RedissonClient redis) {
        redis.getScript(StringCodec.INSTANCE).scriptLoad(source);
    }

    /**
     * Adds a run of the script to {@code batch}, whose server holds it ({@link #load}): the reply completes when the
     * batch has run.
     */
    public CompletionStage<List<Object>> runIn(RBatch batch, List<Object> keys, Object... args) {
        return this.<List<Object>>evalSha(batch.getScript(StringCodec.INSTANCE), (String) keys.get(0), keys, args);
    }

    /**
     * As {@link #runIn}, at {@code micros} on the script's clock: the clock key the scripts read beside KEYS[1]
     * ({@code <prefix>:{<tag>}:test-clock}, lua/README.md) is set first, in the same batch, so the run sees that time.
     */
    public CompletionStage<List<Object>> runAtIn(RBatch batch, long micros, List<Object> keys, Object... args) {
        String first = (String) keys.get(0);
        batch.getBucket(first.substring(0, first.indexOf('}') + 1) + ":test-clock", StringCodec.INSTANCE)
                .setAsync(Long.toString(micros));
        return runIn(batch, keys, args);
    }

    private <R> CompletionStage<R> evalSha(RScriptAsync script, String routingKey, List<Object> keys, Object[] args) {
        return script.evalShaAsync(routingKey, RScript.Mode.READ_WRITE, sha, RScript.ReturnType.MULTI, keys, args);
    }

    private static boolean isNoScript(Throwable error) {
        for (Throwable t = error; t != null; t = t.getCause()) {
            if (t.getMessage() != null && t.getMessage().contains("NOSCRIPT")) {
                return true;
            }
        }
        return false;
    }

    private static String sha1(String text) {
        try {
            byte[] digest = MessageDigest.getInstance("SHA-1").digest(text.getBytes(StandardCharsets.UTF_8));
            return HexFormat.of().formatHex(digest);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-1 is missing from this JVM", e);
        }
    }
}
