package io.trunkgate.testing;

import io.trunkgate.config.RedisMode;
import io.trunkgate.config.RedisSettings;
import io.trunkgate.redis.RedisServerProcess;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * A real Redis Cluster: 3 masters with one replica each on free ports, put together from this JVM the way
 * {@code redis-cli --cluster create} does it (slots assigned, a config epoch per node, MEET, REPLICATE), so
 * that no redis-cli is needed. Shared by the tests of this JVM.
 */
public final class RedisClusterHarness implements RedisBackend {

    private static final int SLOTS = 16384;
    private static final int MASTERS = 3;
    private static final Duration FORMED_WITHIN = Duration.ofSeconds(30);
    private static RedisClusterHarness shared;

    private final List<RedisServerProcess> nodes;
    /** The cluster bus port of each node, by index. */
    private final List<Integer> busPorts = new ArrayList<>();

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

    /** Nodes 0-2 are the masters (slots in thirds, in order), node 3 + i replicates node i. */
    public static RedisClusterHarness start() {
        List<RedisServerProcess> nodes = new ArrayList<>();
        RedisClusterHarness cluster = new RedisClusterHarness(nodes);
        try {
            for (int i = 0; i < 2 * MASTERS; i++) {
                // The bus port is a free port of its own: by default it is the node's port + 10000, which
                // does not exist for a free port above 55535, and may be taken by another process.
                int busPort = RedisServerProcess.freePort();
                cluster.busPorts.add(busPort);
                nodes.add(RedisServerProcess.start(0, List.of("--cluster-enabled", "yes",
                        "--cluster-port", Integer.toString(busPort),
                        "--cluster-config-file", "nodes.conf", "--cluster-node-timeout", "2000",
                        "--cluster-replica-validity-factor", "0")));
            }
            cluster.form();
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

    private void form() {
        List<RedisAdmin> admins = new ArrayList<>();
        try {
            for (RedisServerProcess node : nodes) {
                admins.add(new RedisAdmin(node.port()));
            }
            for (int m = 0; m < MASTERS; m++) {
                List<Object> addSlots = new ArrayList<>(List.of("CLUSTER", "ADDSLOTS"));
                for (int slot = m * SLOTS / MASTERS; slot < (m + 1) * SLOTS / MASTERS; slot++) {
                    addSlots.add(slot);
                }
                admins.get(m).call(addSlots.toArray());
            }
            // distinct epochs before the nodes meet, so that no two masters start out claiming the same one
            for (int i = 0; i < admins.size(); i++) {
                admins.get(i).call("CLUSTER", "SET-CONFIG-EPOCH", i + 1);
            }
            for (int i = 1; i < admins.size(); i++) {
                admins.get(i).call("CLUSTER", "MEET", "127.0.0.1", nodes.get(0).port(), busPorts.get(0));
            }
            // a node can replicate a master only once it knows it
            String known = Integer.toString(nodes.size());
            awaitOnEveryNode(admins, "every node knows all " + known, admin ->
                    known.equals(RedisAdmin.field(clusterInfo(admin), "cluster_known_nodes")));
            for (int r = MASTERS; r < admins.size(); r++) {
                Object masterId = admins.get(r - MASTERS).call("CLUSTER", "MYID");
                admins.get(r).call("CLUSTER", "REPLICATE", masterId);
            }
            // a replica counts once its link to the master is up, so that it can take over
            awaitOnEveryNode(admins, "cluster_state:ok with replicas in sync", admin ->
                    "ok".equals(RedisAdmin.field(clusterInfo(admin), "cluster_state"))
                            && isSyncedOrMaster((String) admin.call("INFO", "replication")));
        } finally {
            admins.forEach(RedisAdmin::close);
        }
    }

    private static String clusterInfo(RedisAdmin admin) {
        return (String) admin.call("CLUSTER", "INFO");
    }

    private static void awaitOnEveryNode(List<RedisAdmin> admins, String what,
                                         java.util.function.Predicate<RedisAdmin> holds) {
        boolean ok = Await.until(FORMED_WITHIN, () -> admins.stream().allMatch(holds), all -> all);
        if (!ok) {
            throw new IllegalStateException("the cluster did not reach " + what + " within " + FORMED_WITHIN);
        }
    }

    private static boolean isSyncedOrMaster(String replicationInfo) {
        return "master".equals(RedisAdmin.field(replicationInfo, "role"))
                || "up".equals(RedisAdmin.field(replicationInfo, "master_link_status"));
    }

    public void close() {
        nodes.forEach(RedisServerProcess::close);
    }
}
