package io.trunkgate.testing;

import io.trunkgate.config.RedisMode;
import io.trunkgate.config.RedisSettings;
import io.trunkgate.redis.RedisServerProcess;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A real Redis Cluster: 3 masters with one replica each, made with {@code redis-cli --cluster create} on
 * free ports. Shared by the tests of this JVM.
 */
public final class RedisClusterHarness implements RedisBackend {

    private static RedisClusterHarness shared;

    private final List<RedisServerProcess> nodes;

    private RedisClusterHarness(List<RedisServerProcess> nodes) {
        this.nodes = nodes;
    }

    public static synchronized RedisClusterHarness shared() {
        if (shared == null) {
            shared = start();
            Runtime.getRuntime().addShutdownHook(new Thread(shared::close));
        }
        return shared;
    }

    public static RedisClusterHarness start() {
        List<RedisServerProcess> nodes = new ArrayList<>();
        for (int i = 0; i < 6; i++) {
            nodes.add(RedisServerProcess.start(0, List.of("--cluster-enabled", "yes",
                    "--cluster-config-file", "nodes.conf", "--cluster-node-timeout", "2000",
                    "--cluster-replica-validity-factor", "0")));
        }
        List<String> command = new ArrayList<>(List.of("redis-cli", "--cluster", "create"));
        nodes.forEach(n -> command.add("127.0.0.1:" + n.port()));
        command.addAll(List.of("--cluster-replicas", "1", "--cluster-yes"));
        RedisClusterHarness cluster = new RedisClusterHarness(nodes);
        try {
            run(command);
            cluster.awaitClusterOk();
        } catch (RuntimeException e) {
            cluster.close();
            throw e;
        }
        return cluster;
    }

    public List<RedisServerProcess> nodes() {
        return nodes;
    }

    @Override
    public String name() {
        return "cluster";
    }

    @Override
    public RedisSettings settings() {
        return RedisBackend.settings(RedisMode.CLUSTER, nodes.stream().map(RedisServerProcess::address).toList());
    }

    /** Runs redis-cli against one node and returns its output. */
    public static String cli(int port, String... args) {
        List<String> command = new ArrayList<>(List.of("redis-cli", "-p", Integer.toString(port)));
        command.addAll(List.of(args));
        return run(command);
    }

    private void awaitClusterOk() {
        boolean ok = Await.until(Duration.ofSeconds(30), () -> nodes.stream().allMatch(n ->
                cli(n.port(), "cluster", "info").contains("cluster_state:ok")
                        && isSyncedOrMaster(cli(n.port(), "info", "replication"))), all -> all);
        if (!ok) {
            throw new IllegalStateException("the cluster did not reach cluster_state:ok with replicas in sync within 30s");
        }
    }

    /** A replica counts once its link to the master is up, so that it can take over. */
    private static boolean isSyncedOrMaster(String replicationInfo) {
        return replicationInfo.contains("role:master") || replicationInfo.contains("master_link_status:up");
    }

    public void close() {
        nodes.forEach(RedisServerProcess::close);
    }

    private static String run(List<String> command) {
        try {
            Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
            String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            if (!process.waitFor(60, TimeUnit.SECONDS) || process.exitValue() != 0) {
                throw new IllegalStateException(String.join(" ", command) + " failed:\n" + output);
            }
            return output;
        } catch (IOException e) {
            throw new IllegalStateException("cannot run " + command.get(0) + " (install redis-tools)", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        }
    }
}
