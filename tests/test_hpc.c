/* Unit tests for the HPC and SageMaker backends of cluster_resolver.h: Slurm, MPI,
   SageMaker, and the auto-detection order over every backend. Cases named Sn and Mn mirror
   TensorFlow's slurm_cluster_resolver_test.py and sagemaker_cluster_resolver_test.py (S2
   needs TF's tasks_per_node option, which we do not have: S4 is the same spec read from
   SLURM_STEP_TASKS_PER_NODE). Where TF writes CUDA_VISIBLE_DEVICES into the process
   environment we return the value through cres_visible_devices() and check the environment
   did not change. Launcher environments are the ones captured under real srun, sbatch and
   mpirun on a four-node test cluster. The environment is only ever given through the
   cres_config.getenv hook, over the table of tests/env_table.h: these tests never call
   setenv. Files (hostfiles, SageMaker's resource config) are temporary files (also
   env_table.h's) removed when the group ends. No test needs the network. */

#define _POSIX_C_SOURCE 200809L
#define TEMP_PREFIX "/tmp/test_hpc_" /* tests/env_table.h's temporary files */

#include "test_util.h"
#include "env_table.h"
#include "resolver_checks.h"

/* ---------------------------------------------------------------------------------------
   Helpers of this file (the shared ones are in test_util.h, the environment table and
   temporary files in env_table.h, the checks of a resolver's answers in
   resolver_checks.h). */

/* Every test starts from an empty environment. */
static int reset(void **state) {
    (void)state;
    env_reset();
    env_config();
    return 0;
}

/* The process environment's CUDA_VISIBLE_DEVICES, to check the library never changes it. */
typedef struct cuda_snapshot {
    int set;
    char value[256];
} cuda_snapshot;

static cuda_snapshot cuda_now(void) {
    cuda_snapshot s;
    const char *v = getenv("CUDA_VISIBLE_DEVICES");
    memset(&s, 0, sizeof s);
    s.set = v != NULL;
    if (v) snprintf(s.value, sizeof s.value, "%s", v);
    return s;
}

static void expect_cuda_unchanged(const cuda_snapshot *before) {
    cuda_snapshot after = cuda_now();
    assert_int_equal(after.set, before->set);
    assert_string_equal(after.value, before->value);
}

/* ---------------------------------------------------------------------------------------
   Slurm helpers */

static cres_slurm_options slurm_options(void) {
    cres_slurm_options o;
    memset(&o, 0, sizeof o);
    o.config = &cfg;
    return o;
}

static cres_resolver *slurm_with(cres_slurm_options o) {
    cres_resolver *r = NULL;
    cres_error err;
    OK(cres_slurm_resolver_create(&o, &r, &err));
    assert_non_null(r);
    assert_string_equal(cres_resolver_name(r), "slurm");
    return r;
}

static cres_resolver *slurm(void) { return slurm_with(slurm_options()); }

#define SLURM_FAILS(opts, want, sub1, sub2) FAILS_WITH(cres_slurm_resolver_create, opts, want, sub1, sub2)

/* TF's step: NL = "t02n13,t02n41,t02n43". */
static void tf_step(int procid, int ntasks, const char *tpn) {
    env_setf("SLURM_PROCID", "%d", procid);
    env_setf("SLURM_STEP_NUM_TASKS", "%d", ntasks);
    env_set("SLURM_STEP_NODELIST", "t02n13,t02n41,t02n43");
    env_set("SLURM_STEP_TASKS_PER_NODE", tpn);
}

/* A step of `nodes` (a hostlist) with `tpn` tasks per node; the own rank is `procid`. */
static void step(const char *nodes, const char *tpn, int ntasks, int procid) {
    env_set("SLURM_JOB_ID", "7");
    env_set("SLURM_STEP_ID", "0");
    env_set("SLURM_STEP_NODELIST", nodes);
    env_set("SLURM_STEP_TASKS_PER_NODE", tpn);
    env_setf("SLURM_STEP_NUM_TASKS", "%d", ntasks);
    env_setf("SLURM_PROCID", "%d", procid);
}

/* The GPUs srun gives every task of a step that has `list` on the node and binds none to a
   task: the list and SLURM_GPUS_ON_NODE, its length (slurmstepd's gres_common_gpu_set_env,
   src/plugins/gres/common/gres_common.c in Slurm 22.05 to 24.11). */
static void step_gpus(const char *list) {
    int n = 1;
    const char *p;
    for (p = list; *p; p++) n += *p == ',';
    env_set("CUDA_VISIBLE_DEVICES", list);
    env_setf("SLURM_GPUS_ON_NODE", "%d", n);
}

/* Rank 5 of `srun -N4 -n8` on the four simulated nodes (envs/slurm/srun-N4-n8-env.rank5.txt). */
static const char srun_n4_n8_rank5[] =
    "SLURM_CLUSTER_NAME=testcluster\n"
    "SLURM_CONF=/etc/slurm/slurm.conf\n"
    "SLURM_CPUS_ON_NODE=2\n"
    "SLURM_GTIDS=4,5\n"
    "SLURM_JOBID=5\n"
    "SLURM_JOB_CPUS_PER_NODE=4,2,1(x2)\n"
    "SLURM_JOB_GID=0\n"
    "SLURM_JOB_ID=5\n"
    "SLURM_JOB_NAME=bash\n"
    "SLURM_JOB_NODELIST=node[1-4]\n"
    "SLURM_JOB_NUM_NODES=4\n"
    "SLURM_JOB_PARTITION=debug\n"
    "SLURM_JOB_UID=0\n"
    "SLURM_JOB_USER=root\n"
    "SLURM_LAUNCH_NODE_IPADDR=127.0.0.1\n"
    "SLURM_LOCALID=1\n"
    "SLURM_NNODES=4\n"
    "SLURM_NODEID=1\n"
    "SLURM_NODELIST=node[1-4]\n"
    "SLURM_NPROCS=8\n"
    "SLURM_NTASKS=8\n"
    "SLURM_PRIO_PROCESS=0\n"
    "SLURM_PROCID=5\n"
    "SLURM_SRUN_COMM_HOST=127.0.0.1\n"
    "SLURM_SRUN_COMM_PORT=45215\n"
    "SLURM_STEPID=0\n"
    "SLURM_STEP_ID=0\n"
    "SLURM_STEP_LAUNCHER_PORT=45215\n"
    "SLURM_STEP_NODELIST=node[1-4]\n"
    "SLURM_STEP_NUM_NODES=4\n"
    "SLURM_STEP_NUM_TASKS=8\n"
    "SLURM_STEP_TASKS_PER_NODE=4,2,1(x2)\n"
    "SLURM_SUBMIT_DIR=/home/user/job\n"
    "SLURM_SUBMIT_HOST=vm\n"
    "SLURM_TASKS_PER_NODE=4,2,1(x2)\n"
    "SLURM_TASK_PID=5887\n"
    "SLURM_TOPOLOGY_ADDR=node2\n"
    "SLURM_TOPOLOGY_ADDR_PATTERN=node\n"
    "SLURM_UMASK=0022\n"
    "SLURM_WORKING_CLUSTER=testcluster:vm:6817:9728:109\n"
    "SLURMD_NODENAME=node2\n";

/* The batch script of `sbatch -N1 -n3` (envs/slurm/sbatch-4.out), plus SLURMD_NODENAME,
   which the capture's `grep SLURM_` missed. */
static const char sbatch_script[] =
    "SLURM_CLUSTER_NAME=testcluster\n"
    "SLURM_CONF=/etc/slurm/slurm.conf\n"
    "SLURM_CPUS_ON_NODE=3\n"
    "SLURM_GTIDS=0\n"
    "SLURM_JOBID=4\n"
    "SLURM_JOB_CPUS_PER_NODE=3\n"
    "SLURM_JOB_GID=0\n"
    "SLURM_JOB_ID=4\n"
    "SLURM_JOB_NAME=envtest\n"
    "SLURM_JOB_NODELIST=vm\n"
    "SLURM_JOB_NUM_NODES=1\n"
    "SLURM_JOB_PARTITION=debug\n"
    "SLURM_JOB_UID=0\n"
    "SLURM_JOB_USER=root\n"
    "SLURM_LOCALID=0\n"
    "SLURM_NNODES=1\n"
    "SLURM_NODEID=0\n"
    "SLURM_NODELIST=vm\n"
    "SLURM_NODE_ALIASES=(null)\n"
    "SLURM_NPROCS=3\n"
    "SLURM_NTASKS=3\n"
    "SLURM_PRIO_PROCESS=0\n"
    "SLURM_PROCID=0\n"
    "SLURM_SUBMIT_DIR=/home/user/job\n"
    "SLURM_SUBMIT_HOST=vm\n"
    "SLURM_TASKS_PER_NODE=3\n"
    "SLURM_TASK_PID=5455\n"
    "SLURM_TOPOLOGY_ADDR=vm\n"
    "SLURM_TOPOLOGY_ADDR_PATTERN=node\n"
    "SLURM_WORKING_CLUSTER=testcluster:vm:6817:9728:109\n"
    "SLURMD_NODENAME=vm\n";

/* The shell of `salloc -N2 --ntasks-per-node=2 CMD` (CMD runs on the submit host), captured
   on the launcher lab's Slurm 22.05.8 (tests/slurm/start-slurm.sh): the job's variables and
   no SLURM_PROCID, no step. */
static const char salloc_shell[] =
    "SLURM_CLUSTER_NAME=cres-lab\n"
    "SLURM_CONF=/run/cres-launcher-lab/slurm.conf\n"
    "SLURM_JOBID=13\n"
    "SLURM_JOB_CPUS_PER_NODE=2(x2)\n"
    "SLURM_JOB_ID=13\n"
    "SLURM_JOB_NAME=interactive\n"
    "SLURM_JOB_NODELIST=node[1-2]\n"
    "SLURM_JOB_NUM_NODES=2\n"
    "SLURM_JOB_PARTITION=lab\n"
    "SLURM_NNODES=2\n"
    "SLURM_NODELIST=node[1-2]\n"
    "SLURM_NODE_ALIASES=(null)\n"
    "SLURM_NPROCS=4\n"
    "SLURM_NTASKS=4\n"
    "SLURM_NTASKS_PER_NODE=2\n"
    "SLURM_SUBMIT_DIR=/tmp\n"
    "SLURM_SUBMIT_HOST=vm\n"
    "SLURM_TASKS_PER_NODE=2(x2)\n";
#define SALLOC_N2_SPEC "{'worker': ['node1:8888', 'node1:8889', 'node2:8888', 'node2:8889']}"

/* The same script submitted with `sbatch -n1`: one task. */
static void sbatch_one_task(void) {
    env_lines(sbatch_script);
    env_set("SLURM_CPUS_ON_NODE", "1");
    env_set("SLURM_JOB_CPUS_PER_NODE", "1");
    env_set("SLURM_NTASKS", "1");
    env_set("SLURM_NPROCS", "1");
    env_set("SLURM_TASKS_PER_NODE", "1");
}

/* srun -N4 -n8 (tasks per node 4,2,1,1) in Slurm's block order and in -m cyclic order. */
#define N4N8_BLOCK                                                                         \
    "{'worker': ['node1:8888', 'node1:8889', 'node1:8890', 'node1:8891', 'node2:8888', "   \
    "'node2:8889', 'node3:8888', 'node4:8888']}"
#define N4N8_CYCLIC                                                                        \
    "{'worker': ['node1:8888', 'node2:8888', 'node3:8888', 'node4:8888', 'node1:8889', "   \
    "'node2:8889', 'node1:8890', 'node1:8891']}"
static const int n4n8_cyclic_node[8] = {0, 1, 2, 3, 0, 1, 0, 0};
static const int n4n8_cyclic_local[8] = {0, 0, 0, 0, 1, 1, 2, 3};
static const char *const n4n8_cyclic_gtids[4] = {"0,4,6,7", "1,5", "2", "3"}; /* per node */

/* ---------------------------------------------------------------------------------------
   Slurm: TensorFlow's cases (section 4.6) */

/* TF S1 */
static void s1_one_task_per_node_one_gpu(void **state) {
    cuda_snapshot before = cuda_now();
    cres_resolver *r;
    (void)state;
    tf_step(0, 3, "1(x3)");
    step_gpus("0");
    r = slurm();
    assert_string_equal(resolved_json(r), dq("{'worker': ['t02n13:8888', 't02n41:8888', 't02n43:8888']}"));
    assert_string_equal(master_of(r, "worker", 0, "grpc"), "grpc://t02n13:8888");
    assert_int_equal(gpus_of(r), 1);
    /* TF: CUDA_VISIBLE_DEVICES == "0" afterwards; we return it for the own and any task */
    assert_string_equal(devices_of(r, NULL, -1), "0");
    assert_string_equal(devices_of(r, "worker", 2), "0");
    expect_task(r, "worker", 0);
    assert_null(cres_environment(r));
    expect_cuda_unchanged(&before);
    cres_resolver_free(r);
}

/* TF S3 (S2's step and jobs, our tasks per node from SLURM_STEP_TASKS_PER_NODE) */
static void s3_master_with_set_task_and_rpc_layers(void **state) {
    cres_slurm_options o = slurm_options();
    static const cres_job_count jobs[] = {{"ps", 1}, {"worker", 2}};
    cres_resolver *r;
    cres_error err;
    (void)state;
    tf_step(0, 3, "1(x3)");
    o.jobs = jobs;
    o.jobs_count = 2;
    o.gpus_per_node = 1;
    o.gpus_per_task = 1;
    r = slurm_with(o);
    expect_task(r, "ps", 0);
    OK(cres_set_task(r, "worker", 1, &err));
    assert_string_equal(master_of(r, NULL, -1, NULL), "grpc://t02n43:8888");
    OK(cres_set_rpc_layer(r, "ab", &err));
    assert_string_equal(master_of(r, "ps", 0, NULL), "ab://t02n13:8888");
    assert_string_equal(master_of(r, "ps", 0, "test"), "test://t02n13:8888");
    /* TF's cluster_spec() puts ps/0 back (section 5.6); an override here stays */
    (void)resolved_json(r);
    expect_task(r, "worker", 1);
    assert_string_equal(cres_rpc_layer(r), "ab");
    cres_resolver_free(r);
}

/* TF S4 (= S2's spec) */
static void s4_jobs_split_from_step_tasks_per_node(void **state) {
    cres_slurm_options o = slurm_options();
    static const cres_job_count jobs[] = {{"ps", 1}, {"worker", 2}};
    cres_resolver *r;
    (void)state;
    tf_step(0, 3, "1(x3)");
    o.jobs = jobs;
    o.jobs_count = 2;
    o.gpus_per_node = 1;
    o.gpus_per_task = 1;
    r = slurm_with(o);
    assert_string_equal(resolved_json(r), dq("{'ps': ['t02n13:8888'], 'worker': ['t02n41:8888', 't02n43:8888']}"));
    expect_task(r, "ps", 0);
    assert_string_equal(master_of(r, NULL, -1, NULL), "grpc://t02n13:8888");
    cres_resolver_free(r);
}

#define S5_SPEC                                                                            \
    "{'ps': ['t02n13:8888'], 'worker': ['t02n13:8889', 't02n41:8888', 't02n41:8889', "    \
    "'t02n43:8888']}"

/* TF S5 */
static void s5_two_tasks_per_node_one_gpu_each(void **state) {
    cuda_snapshot before = cuda_now();
    cres_slurm_options o = slurm_options();
    static const cres_job_count jobs[] = {{"ps", 1}, {"worker", 4}};
    cres_resolver *r;
    (void)state;
    tf_step(1, 5, "2(x2),1");
    env_set("CUDA_VISIBLE_DEVICES", "");
    o.jobs = jobs;
    o.jobs_count = 2;
    o.gpus_per_node = 2;
    o.gpus_per_task = 1;
    r = slurm_with(o);
    assert_string_equal(resolved_json(r), dq(S5_SPEC));
    expect_task(r, "worker", 0);
    assert_int_equal(gpus_of(r), 1);
    assert_string_equal(devices_of(r, NULL, -1), "1"); /* TF: CUDA_VISIBLE_DEVICES == "1" */
    assert_string_equal(devices_of(r, "ps", 0), "0");
    assert_string_equal(devices_of(r, "worker", 1), "0");
    assert_string_equal(devices_of(r, "worker", 2), "1");
    assert_string_equal(devices_of(r, "worker", 3), "0");
    expect_cuda_unchanged(&before);
    cres_resolver_free(r);
}

/* TF S6 */
static void s6_two_tasks_per_node_two_gpus_each(void **state) {
    cuda_snapshot before = cuda_now();
    cres_slurm_options o = slurm_options();
    static const cres_job_count jobs[] = {{"ps", 1}, {"worker", 4}};
    cres_resolver *r;
    (void)state;
    tf_step(1, 5, "2(x2),1");
    env_set("CUDA_VISIBLE_DEVICES", "");
    o.jobs = jobs;
    o.jobs_count = 2;
    o.gpus_per_node = 4;
    o.gpus_per_task = 2;
    r = slurm_with(o);
    assert_string_equal(resolved_json(r), dq(S5_SPEC));
    assert_int_equal(gpus_of(r), 2);
    assert_string_equal(devices_of(r, NULL, -1), "2,3"); /* TF: CUDA_VISIBLE_DEVICES == "2,3" */
    assert_string_equal(devices_of(r, "ps", 0), "0,1");
    assert_string_equal(devices_of(r, "worker", 3), "0,1");
    expect_cuda_unchanged(&before);
    cres_resolver_free(r);
}

/* README_Slurm: 2 nodes x 2 tasks, 4 GPUs each, default arguments. */
static void readme_two_nodes_four_gpus_defaults(void **state) {
    cres_resolver *r;
    (void)state;
    step("t02n13,t02n41", "2(x2)", 4, 0);
    step_gpus("0,1,2,3");
    r = slurm();
    assert_string_equal(resolved_json(r),
                        dq("{'worker': ['t02n13:8888', 't02n13:8889', 't02n41:8888', 't02n41:8889']}"));
    assert_int_equal(gpus_of(r), 2);
    assert_string_equal(devices_of(r, "worker", 0), "0,1");
    assert_string_equal(devices_of(r, "worker", 1), "2,3");
    assert_string_equal(devices_of(r, "worker", 2), "0,1");
    assert_string_equal(devices_of(r, "worker", 3), "2,3");
    cres_resolver_free(r);
}

/* README_Slurm: ({'ps':1,'worker':3}, port_base=1337, tasks_per_node=2, gpus_per_node=2,
   gpus_per_task=1). */
static void readme_ps_and_workers_port_1337(void **state) {
    cres_slurm_options o = slurm_options();
    static const cres_job_count jobs[] = {{"ps", 1}, {"worker", 3}};
    cres_resolver *r;
    (void)state;
    step("t02n13,t02n41", "2(x2)", 4, 3);
    o.jobs = jobs;
    o.jobs_count = 2;
    o.port_base = 1337;
    o.gpus_per_node = 2;
    o.gpus_per_task = 1;
    r = slurm_with(o);
    assert_string_equal(resolved_json(r),
                        dq("{'ps': ['t02n13:1337'], 'worker': ['t02n13:1338', 't02n41:1337', 't02n41:1338']}"));
    expect_task(r, "worker", 2);
    assert_string_equal(devices_of(r, NULL, -1), "1");
    cres_resolver_free(r);
}

/* ---------------------------------------------------------------------------------------
   Slurm: order and distribution */

static void hosts_in_slurm_order_not_string_order(void **state) {
    cres_resolver *r;
    (void)state;
    step("n[9-10]", "1(x2)", 2, 1);
    r = slurm();
    assert_string_equal(resolved_json(r), dq("{'worker': ['n9:8888', 'n10:8888']}")); /* TF: n10 first */
    expect_task(r, "worker", 1);
    assert_string_equal(master_of(r, NULL, -1, NULL), "grpc://n10:8888");
    cres_resolver_free(r);
    /* the list's order is the ranks' order, whatever it is */
    env_reset();
    step("b2,a1", "1(x2)", 2, 0);
    r = slurm();
    assert_string_equal(resolved_json(r), dq("{'worker': ['b2:8888', 'a1:8888']}"));
    expect_task(r, "worker", 0);
    cres_resolver_free(r);
    /* a list saved with CRLF line ends (`scontrol show hostnames` copied through Windows):
       CR is white space between names, not part of one */
    {
        char buf[64];
        size_t len = 0, count = 0;
        cres_error err;
        OK(cres_hostlist_expand("n[1-2]\r\nn7\r\n", buf, sizeof buf, &len, &count, &err));
        assert_string_equal(buf, "n1\nn2\nn7\n");
        assert_int_equal(count, 3);
        assert_int_equal(len, strlen(buf));
    }
}

static void srun_block_real_capture(void **state) {
    cres_resolver *r;
    (void)state;
    env_lines(srun_n4_n8_rank5);
    r = slurm();
    assert_string_equal(resolved_json(r), dq(N4N8_BLOCK));
    expect_task(r, "worker", 5);
    assert_string_equal(master_of(r, NULL, -1, NULL), "grpc://node2:8889");
    assert_string_equal(cres_rpc_layer(r), "grpc");
    cres_resolver_free(r);
}

static void srun_block_named_explicitly(void **state) {
    cres_resolver *r;
    (void)state;
    env_lines(srun_n4_n8_rank5);
    env_set("SLURM_DISTRIBUTION", "block");
    r = slurm();
    assert_string_equal(resolved_json(r), dq(N4N8_BLOCK));
    cres_resolver_free(r);
    env_set("SLURM_DISTRIBUTION", "block:cyclic"); /* the second part is about CPUs */
    r = slurm();
    assert_string_equal(resolved_json(r), dq(N4N8_BLOCK));
    cres_resolver_free(r);
}

/* srun -m pack (or nopack) alone: the tasks per node follow it, the layout is Slurm's default,
   block, and srun writes just "pack" (SchedMD/slurm src/common/proc_args.c set_distribution;
   src/common/slurm_step_layout.c _task_layout_block). */
static void srun_pack_alone_is_block(void **state) {
    static const char *const alone[] = {"pack", "nopack", "block,pack", "block:cyclic,nopack"};
    size_t i;
    (void)state;
    env_lines(srun_n4_n8_rank5);
    for (i = 0; i < sizeof alone / sizeof alone[0]; i++) {
        cres_resolver *r;
        env_set("SLURM_DISTRIBUTION", alone[i]);
        r = slurm();
        assert_string_equal(resolved_json(r), dq(N4N8_BLOCK));
        expect_task(r, "worker", 5);
        cres_resolver_free(r);
    }
}

/* srun -N4 -n8 -m cyclic: 0->node1 1->node2 2->node3 3->node4 4->node1 5->node2 6,7->node1,
   each rank with the SLURM_NODEID and SLURM_LOCALID Slurm gives it. */
static void srun_cyclic_every_rank(void **state) {
    int rank;
    (void)state;
    for (rank = 0; rank < 8; rank++) {
        static const char *const addr[8] = {"node1:8888", "node2:8888", "node3:8888", "node4:8888",
                                            "node1:8889", "node2:8889", "node1:8890", "node1:8891"};
        char want[64];
        cres_resolver *r;
        env_reset();
        env_lines(srun_n4_n8_rank5);
        env_set("SLURM_DISTRIBUTION", "cyclic");
        env_setf("SLURM_PROCID", "%d", rank);
        env_setf("SLURM_NODEID", "%d", n4n8_cyclic_node[rank]);
        env_setf("SLURM_LOCALID", "%d", n4n8_cyclic_local[rank]);
        env_setf("SLURMD_NODENAME", "node%d", n4n8_cyclic_node[rank] + 1);
        env_set("SLURM_GTIDS", n4n8_cyclic_gtids[n4n8_cyclic_node[rank]]);
        r = slurm();
        assert_string_equal(resolved_json(r), dq(N4N8_CYCLIC));
        expect_task(r, "worker", rank);
        snprintf(want, sizeof want, "grpc://%s", addr[rank]);
        assert_string_equal(master_of(r, NULL, -1, NULL), want);
        cres_resolver_free(r);
    }
}

static void srun_cyclic_block_is_cyclic(void **state) {
    cres_resolver *r;
    (void)state;
    env_lines(srun_n4_n8_rank5);
    env_set("SLURM_DISTRIBUTION", "cyclic:block");
    env_set("SLURM_PROCID", "4");
    env_set("SLURM_NODEID", "0");
    env_set("SLURMD_NODENAME", "node1");
    env_set("SLURM_GTIDS", n4n8_cyclic_gtids[0]);
    env_set("SLURM_LOCALID", "1");
    r = slurm();
    assert_string_equal(resolved_json(r), dq(N4N8_CYCLIC));
    expect_task(r, "worker", 4);
    assert_string_equal(master_of(r, NULL, -1, ""), "node1:8889");
    cres_resolver_free(r);
}

static void srun_plane(void **state) {
    cres_resolver *r;
    (void)state;
    step("n[1-2]", "4(x2)", 8, 4);
    env_set("SLURM_DISTRIBUTION", "plane");
    env_set("SLURM_DIST_PLANESIZE", "2");
    env_set("SLURM_NODEID", "0");
    env_set("SLURM_LOCALID", "2");
    r = slurm();
    assert_string_equal(resolved_json(r), dq("{'worker': ['n1:8888', 'n1:8889', 'n2:8888', 'n2:8889', 'n1:8890', "
                                             "'n1:8891', 'n2:8890', 'n2:8891']}"));
    expect_task(r, "worker", 4);
    cres_resolver_free(r);
    /* uneven nodes: n2 runs out after one plane */
    env_reset();
    step("n[1-2]", "3,1", 4, 3);
    env_set("SLURM_DISTRIBUTION", "plane");
    env_set("SLURM_DIST_PLANESIZE", "2");
    r = slurm();
    assert_string_equal(resolved_json(r), dq("{'worker': ['n1:8888', 'n1:8889', 'n2:8888', 'n1:8890']}"));
    cres_resolver_free(r);
}

static void plane_without_plane_size_is_an_error(void **state) {
    cres_slurm_options o = slurm_options();
    (void)state;
    step("n[1-2]", "4(x2)", 8, 0);
    env_set("SLURM_DISTRIBUTION", "plane");
    SLURM_FAILS(o, CRES_ERR_ENVIRONMENT, "SLURM_DIST_PLANESIZE", "not set");
    env_set("SLURM_DIST_PLANESIZE", "0");
    SLURM_FAILS(o, CRES_ERR_ENVIRONMENT, "SLURM_DIST_PLANESIZE", "\"0\"");
}

/* srun -m arbitrary, and names that are not Slurm's spelling (upper case, of a known
   name's length): refused, named, never read as another distribution. */
static void unknown_distribution_is_unsupported(void **state) {
    static const char *const unknown[] = {"arbitrary", "CYCLIC", "Plane:block", "Pack", "pack:block"};
    cres_slurm_options o = slurm_options();
    size_t i;
    (void)state;
    env_lines(srun_n4_n8_rank5);
    env_set("SLURM_DIST_PLANESIZE", "2");
    for (i = 0; i < sizeof unknown / sizeof unknown[0]; i++) {
        char want[64];
        env_set("SLURM_DISTRIBUTION", unknown[i]);
        snprintf(want, sizeof want, "SLURM_DISTRIBUTION=\"%s\" is not supported", unknown[i]);
        SLURM_FAILS(o, CRES_ERR_UNSUPPORTED, want, "block, cyclic, plane");
    }
}

/* SLURM_STEP_TASKS_PER_NODE's syntax allows a count of 0: that node takes no rank, under a
   cyclic deal as under block, and the others' ranks go round them. */
static void node_of_no_task_takes_no_rank(void **state) {
    cres_resolver *r;
    (void)state;
    step("n[1-3]", "2,0,2", 4, 1);
    env_set("SLURM_DISTRIBUTION", "cyclic");
    env_set("SLURM_NODEID", "2");
    env_set("SLURM_LOCALID", "0");
    r = slurm();
    assert_string_equal(resolved_json(r), dq("{'worker': ['n1:8888', 'n3:8888', 'n1:8889', 'n3:8889']}"));
    expect_task(r, "worker", 1);
    assert_string_equal(master_of(r, NULL, -1, ""), "n3:8888");
    cres_resolver_free(r);
    env_set("SLURM_DISTRIBUTION", "block");
    env_set("SLURM_LOCALID", "1");
    env_set("SLURM_NODEID", "0");
    r = slurm();
    assert_string_equal(resolved_json(r), dq("{'worker': ['n1:8888', 'n1:8889', 'n3:8888', 'n3:8889']}"));
    assert_string_equal(master_of(r, NULL, -1, ""), "n1:8889");
    cres_resolver_free(r);
}

/* srun names every rank of the own node in SLURM_GTIDS. Rank 0 is node 0's task 0 under
   block and cyclic alike, so SLURM_NODEID and SLURM_LOCALID cannot tell a cyclic step whose
   SLURM_DISTRIBUTION is missing; SLURM_GTIDS does, and a list that is not ascending task ids
   is named. */
static void gtids_name_the_nodes_ranks(void **state) {
    cres_slurm_options o = slurm_options();
    (void)state;
    env_lines(srun_n4_n8_rank5);
    env_set("SLURM_PROCID", "0");
    env_set("SLURM_NODEID", "0");
    env_set("SLURM_LOCALID", "0");
    env_set("SLURMD_NODENAME", "node1");
    env_set("SLURM_GTIDS", n4n8_cyclic_gtids[0]);
    SLURM_FAILS(o, CRES_ERR_ENVIRONMENT, "SLURM_GTIDS=\"0,4,6,7\" lists rank 4",
                "on node 1, not on this node 0");
    env_set("SLURM_DISTRIBUTION", "cyclic");
    cres_resolver_free(slurm_with(o));
    env_set("SLURM_GTIDS", "0,4,6");
    SLURM_FAILS(o, CRES_ERR_ENVIRONMENT, "SLURM_GTIDS=\"0,4,6\" lists 3 ranks on this node",
                "the placement 4");
    env_set("SLURM_GTIDS", "0,6,4,7");
    SLURM_FAILS(o, CRES_ERR_ENVIRONMENT, "SLURM_GTIDS=\"0,6,4,7\" is not ascending", NULL);
    env_set("SLURM_GTIDS", "0,4,6,8");
    SLURM_FAILS(o, CRES_ERR_ENVIRONMENT, "task ids below 8", NULL);
    env_set("SLURM_GTIDS", "0,4,six,7");
    SLURM_FAILS(o, CRES_ERR_ENVIRONMENT, "SLURM_GTIDS=\"0,4,six,7\" is not ascending task ids below 8", NULL);
    env_set("SLURM_GTIDS", "");
    SLURM_FAILS(o, CRES_ERR_ENVIRONMENT, "SLURM_GTIDS=\"\" is not ascending", NULL);
}

/* srun gives a step's tasks its counts twice: SLURM_NTASKS is SLURM_STEP_NUM_TASKS, and
   SLURM_NNODES and SLURM_STEP_NUM_NODES the step's nodes (envs/slurm/sbatch-multi-9.out: a
   `srun -N2 -n3` step inside `sbatch -N4` sees ntasks=3 nnodes=2). A disagreement names both. */
static void step_counts_must_agree(void **state) {
    cres_slurm_options o = slurm_options();
    cres_resolver *r;
    (void)state;
    env_lines(srun_n4_n8_rank5);
    r = slurm_with(o);
    cres_resolver_free(r);
    env_set("SLURM_NTASKS", "16");
    SLURM_FAILS(o, CRES_ERR_ENVIRONMENT, "SLURM_NTASKS=16", "SLURM_STEP_NUM_TASKS gives 8");
    env_set("SLURM_NTASKS", "eight");
    SLURM_FAILS(o, CRES_ERR_ENVIRONMENT, "SLURM_NTASKS=\"eight\"", NULL);
    env_unset("SLURM_NTASKS");
    env_set("SLURM_STEP_NUM_NODES", "2");
    SLURM_FAILS(o, CRES_ERR_ENVIRONMENT, "SLURM_STEP_NUM_NODES=2", "SLURM_STEP_NODELIST gives 4");
    env_unset("SLURM_STEP_NUM_NODES");
    env_set("SLURM_NNODES", "5");
    SLURM_FAILS(o, CRES_ERR_ENVIRONMENT, "SLURM_NNODES=5", "SLURM_STEP_NODELIST gives 4");
    env_set("SLURM_NNODES", "4");
    env_set("SLURM_NPROCS", "4");
    SLURM_FAILS(o, CRES_ERR_ENVIRONMENT, "SLURM_NPROCS=4", "SLURM_STEP_NUM_TASKS gives 8");
    env_set("SLURM_NPROCS", "8");
    /* SLURMD_NODENAME is the node of SLURM_NODEID */
    env_set("SLURMD_NODENAME", "node1");
    SLURM_FAILS(o, CRES_ERR_ENVIRONMENT, "SLURMD_NODENAME=\"node1\"",
                "SLURM_NODEID=1 is \"node2\" in SLURM_STEP_NODELIST");
    env_set("SLURMD_NODENAME", "node2");
    env_unset("SLURM_NNODES"); /* each is optional */
    r = slurm_with(o);
    cres_resolver_free(r);
    /* a node listed twice is named with its list */
    env_reset();
    step("n1,n1", "1(x2)", 2, 0);
    SLURM_FAILS(o, CRES_ERR_ENVIRONMENT, "SLURM_STEP_NODELIST lists node \"n1\" twice", NULL);
}

/* Rank 4 of the cyclic run, as the resolver would see it without SLURM_DISTRIBUTION: block
   puts rank 4 on node2 as its task 0, Slurm says node 0, task 1. */
static void node_and_local_id_must_match_the_placement(void **state) {
    cres_slurm_options o = slurm_options();
    (void)state;
    env_lines(srun_n4_n8_rank5);
    env_unset("SLURMD_NODENAME"); /* the placement alone is checked here */
    env_set("SLURM_PROCID", "4");
    env_set("SLURM_NODEID", "0");
    env_set("SLURM_LOCALID", "1");
    SLURM_FAILS(o, CRES_ERR_ENVIRONMENT, "rank 4", "node2");
    /* either disagreeing alone is enough */
    env_set("SLURM_NODEID", "1");
    SLURM_FAILS(o, CRES_ERR_ENVIRONMENT, "rank 4", NULL);
    env_set("SLURM_NODEID", "0");
    env_set("SLURM_LOCALID", "0");
    SLURM_FAILS(o, CRES_ERR_ENVIRONMENT, "rank 4", NULL);
    /* without SLURM_LOCALID the message says only what the launcher said: the node */
    env_unset("SLURM_LOCALID");
    SLURM_FAILS(o, CRES_ERR_ENVIRONMENT,
                "rank 4 should be task 0 of 2 on node 1 (node2), but the launcher says on node 0 "
                "(SLURM_NODEID, SLURM_LOCALID)",
                NULL);
    env_set("SLURM_LOCALID", "0");
    /* a node id past the step's nodes */
    env_set("SLURM_NODEID", "4");
    SLURM_FAILS(o, CRES_ERR_ENVIRONMENT, "SLURM_NODEID", "\"4\"");
    env_set("SLURM_NODEID", "one");
    SLURM_FAILS(o, CRES_ERR_ENVIRONMENT, "SLURM_NODEID", "\"one\"");
}

/* ---------------------------------------------------------------------------------------
   Slurm: jobs, nodes, the batch script */

static void jobs_split_chief_first_then_by_name(void **state) {
    cres_slurm_options o = slurm_options();
    static const cres_job_count jobs[] = {{"worker", 2}, {"ps", 1}, {"chief", 1}};
    cres_resolver *r;
    int rank;
    (void)state;
    o.jobs = jobs;
    o.jobs_count = 3;
    for (rank = 0; rank < 4; rank++) {
        static const char *const type[4] = {"chief", "ps", "worker", "worker"};
        static const int id[4] = {0, 0, 0, 1};
        env_reset();
        step("n[1-4]", "1(x4)", 4, rank);
        r = slurm_with(o);
        assert_string_equal(resolved_json(r),
                            dq("{'chief': ['n1:8888'], 'ps': ['n2:8888'], 'worker': ['n3:8888', 'n4:8888']}"));
        expect_task(r, type[rank], id[rank]);
        cres_resolver_free(r);
    }
}

static void job_of_zero_tasks_is_an_empty_job(void **state) {
    cres_slurm_options o = slurm_options();
    static const cres_job_count jobs[] = {{"worker", 2}, {"ps", 0}};
    cres_resolver *r;
    (void)state;
    step("n[1-2]", "1(x2)", 2, 1);
    o.jobs = jobs;
    o.jobs_count = 2;
    r = slurm_with(o);
    assert_string_equal(resolved_json(r), dq("{'ps': [], 'worker': ['n1:8888', 'n2:8888']}"));
    expect_task(r, "worker", 1);
    cres_resolver_free(r);
}

static void jobs_not_adding_up_name_both_counts(void **state) {
    cres_slurm_options o = slurm_options();
    static const cres_job_count fewer[] = {{"ps", 1}, {"worker", 2}};
    static const cres_job_count more[] = {{"ps", 2}, {"worker", 4}};
    (void)state;
    step("n[1-4]", "1(x4)", 4, 0);
    o.jobs = fewer;
    o.jobs_count = 2;
    SLURM_FAILS(o, CRES_ERR_ENVIRONMENT, "slurm: options.jobs ask for 3 tasks but the launcher started 4", NULL);
    o.jobs = more;
    SLURM_FAILS(o, CRES_ERR_ENVIRONMENT, "options.jobs ask for 6 tasks", "started 4");
}

static void bad_jobs_options(void **state) {
    cres_slurm_options o = slurm_options();
    static const cres_job_count twice[] = {{"worker", 2}, {"worker", 2}};
    static const cres_job_count negative[] = {{"worker", 5}, {"ps", -1}};
    static const cres_job_count unnamed[] = {{NULL, 4}};
    (void)state;
    step("n[1-4]", "1(x4)", 4, 0);
    o.jobs = twice;
    o.jobs_count = 2;
    SLURM_FAILS(o, CRES_ERR_INVALID_ARGUMENT, "\"worker\"", "twice");
    o.jobs = negative;
    SLURM_FAILS(o, CRES_ERR_INVALID_ARGUMENT, NULL, NULL);
    o.jobs = unnamed;
    o.jobs_count = 1;
    SLURM_FAILS(o, CRES_ERR_INVALID_ARGUMENT, NULL, NULL);
    o.jobs = twice;
    o.jobs_count = 0;
    SLURM_FAILS(o, CRES_ERR_INVALID_ARGUMENT, "jobs", NULL);
    /* 1025 jobs: past the limit, before any is read */
    {
        static cres_job_count many[1025];
        size_t i;
        for (i = 0; i < 1025; i++) {
            many[i].job = "worker";
            many[i].count = 0;
        }
        o.jobs = many;
        o.jobs_count = 1025;
        SLURM_FAILS(o, CRES_ERR_LIMIT, "slurm: more than 1024 jobs", NULL);
    }
}

/* TF zips the lists and drops what does not pair (section 5.6): we refuse. */
static void tasks_per_node_count_must_match_nodes(void **state) {
    cres_slurm_options o = slurm_options();
    (void)state;
    step("n[1-3]", "2(x2)", 4, 0);
    SLURM_FAILS(o, CRES_ERR_ENVIRONMENT, "2 counts for the 3 nodes", "SLURM_STEP_TASKS_PER_NODE");
    step("n[1-3]", "1(x4)", 4, 0);
    SLURM_FAILS(o, CRES_ERR_ENVIRONMENT, "4 counts for the 3 nodes", "SLURM_STEP_TASKS_PER_NODE");
}

static void node_listed_twice_is_an_error(void **state) {
    cres_slurm_options o = slurm_options();
    (void)state;
    step("n1,n2,n1", "1(x3)", 3, 0);
    SLURM_FAILS(o, CRES_ERR_ENVIRONMENT, "\"n1\"", "twice");
    step("n[1-2],n[2-3]", "1(x4)", 4, 0);
    SLURM_FAILS(o, CRES_ERR_ENVIRONMENT, "\"n2\"", "twice");
}

/* No own task (an sbatch script, an salloc shell): the task id is CRES_NO_TASK, the launch
   info, which needs one, is CRES_ERR_NOT_FOUND saying why, and master() is "". */
static void expect_no_own_task(cres_resolver *r, const char *why) {
    cres_launch_info info;
    cres_error err;
    char buf[64];
    assert_null(cres_task_type(r));
    assert_int_equal(cres_task_id(r), CRES_NO_TASK);
    EXPECT(cres_launch(r, &info, &err), CRES_ERR_NOT_FOUND);
    HAS(err.message, why);
    OK(cres_master(r, buf, sizeof buf, NULL, &err));
    assert_string_equal(buf, ""); /* the default rule without a task */
}

/* An sbatch script is no task of its job: the cluster is the job's allocation, its nodes
   with SLURM_TASKS_PER_NODE slots each (what srun and mpirun start there), and no task is
   the script's: never "one task", which told a process of a 3-task job it was alone. */
static void batch_script_is_the_allocation_without_a_task(void **state) {
    cres_resolver *r;
    (void)state;
    log_config();
    env_lines(sbatch_script); /* sbatch -N1 -n3 */
    r = slurm();
    assert_string_equal(resolved_json(r), dq("{'worker': ['vm:8888', 'vm:8889', 'vm:8890']}"));
    expect_no_own_task(r, "no job step");
    HAS(logs.text, "INFO slurm: no job step (an sbatch script or an salloc shell): the cluster is "
                   "the job's allocation, 1 nodes with 3 task slots (SLURM_JOB_NODELIST, "
                   "SLURM_TASKS_PER_NODE)");
    cres_resolver_free(r);
    /* sbatch -n1: one slot, still not the script's */
    sbatch_one_task();
    r = slurm();
    assert_string_equal(resolved_json(r), dq("{'worker': ['vm:8888']}"));
    expect_no_own_task(r, "start the tasks with srun");
    cres_resolver_free(r);
    /* SLURM_NODELIST, the older name, when SLURM_JOB_NODELIST is not set */
    env_unset("SLURM_JOB_NODELIST");
    r = slurm();
    assert_string_equal(resolved_json(r), dq("{'worker': ['vm:8888']}"));
    cres_resolver_free(r);
}

/* An salloc shell (no SLURM_PROCID: salloc runs its command on the submit host) is the
   allocation too; `salloc -N2` without a task count gives one slot a node and no
   SLURM_NTASKS. */
static void salloc_shell_is_the_allocation_without_a_task(void **state) {
    cres_resolver *r;
    (void)state;
    env_lines(salloc_shell);
    r = slurm();
    assert_string_equal(resolved_json(r), dq(SALLOC_N2_SPEC));
    expect_no_own_task(r, "an salloc shell");
    cres_resolver_free(r);
    env_unset("SLURM_NTASKS");
    env_unset("SLURM_NPROCS");
    env_unset("SLURM_NTASKS_PER_NODE");
    env_set("SLURM_TASKS_PER_NODE", "1(x2)");
    env_set("SLURM_JOB_CPUS_PER_NODE", "1(x2)");
    r = slurm();
    assert_string_equal(resolved_json(r), dq("{'worker': ['node1:8888', 'node2:8888']}"));
    cres_resolver_free(r);
}

/* The script of `sbatch -N1 : -N2 --ntasks-per-node=4`, a heterogeneous job: the plain
   variables are its first component's, each component's in SLURM_*_HET_GROUP_<n>, and
   SLURM_HET_SIZE (SLURM_PACK_SIZE before Slurm 20.02) counts them (SchedMD/slurm@284c3b95
   src/slurmctld/job_scheduler.c _set_het_job_env; doc/html/heterogeneous_jobs.shtml). */
static const char het_script[] = "SLURM_JOB_ID=11751\n"
                                 "SLURM_JOBID=11751\n"
                                 "SLURM_JOB_NODELIST=nid00001\n"
                                 "SLURM_JOB_NUM_NODES=1\n"
                                 "SLURM_TASKS_PER_NODE=1\n"
                                 "SLURM_NTASKS=1\n"
                                 "SLURM_PROCID=0\n"
                                 "SLURM_NODEID=0\n"
                                 "SLURMD_NODENAME=nid00001\n"
                                 "SLURM_HET_SIZE=2\n"
                                 "SLURM_PACK_SIZE=2\n"
                                 "SLURM_JOB_ID_HET_GROUP_0=11751\n"
                                 "SLURM_JOB_ID_HET_GROUP_1=11752\n"
                                 "SLURM_JOB_NODELIST_HET_GROUP_0=nid00001\n"
                                 "SLURM_JOB_NODELIST_HET_GROUP_1=nid[00011-00012]\n"
                                 "SLURM_TASKS_PER_NODE_HET_GROUP_0=1\n"
                                 "SLURM_TASKS_PER_NODE_HET_GROUP_1=4(x2)\n";

/* Its SLURM_JOB_NODELIST is one component of several: the allocation is refused, naming
   SLURM_HET_SIZE, never listed as the first component alone. `srun --het-group=1` starts a
   step of the second component, whose variables name that step whole: answered. */
static void het_job_script_is_refused(void **state) {
    cres_slurm_options o = slurm_options();
    cres_resolver *r;
    (void)state;
    env_lines(het_script);
    SLURM_FAILS(o, CRES_ERR_UNSUPPORTED, "slurm: SLURM_HET_SIZE=2: a heterogeneous job's script",
                "start the tasks with srun");
    env_unset("SLURM_HET_SIZE");
    SLURM_FAILS(o, CRES_ERR_UNSUPPORTED, "SLURM_PACK_SIZE=2", NULL);
    env_set("SLURM_PACK_SIZE", "two");
    SLURM_FAILS(o, CRES_ERR_ENVIRONMENT, "SLURM_PACK_SIZE=\"two\"", NULL);
    env_set("SLURM_PACK_SIZE", "1");
    r = slurm();
    assert_string_equal(resolved_json(r), dq("{'worker': ['nid00001:8888']}"));
    cres_resolver_free(r);
    env_set("SLURM_HET_SIZE", "2");
    step("nid[00011-00012]", "4(x2)", 8, 6);
    env_set("SLURM_NODEID", "1");
    env_set("SLURMD_NODENAME", "nid00012");
    env_set("SLURM_NTASKS", "8");
    r = slurm();
    expect_task(r, "worker", 6);
    assert_string_equal(master_of(r, NULL, -1, NULL), "grpc://nid00012:8890");
    cres_resolver_free(r);
}

static void batch_script_jobs_split_the_allocation(void **state) {
    cres_slurm_options o = slurm_options();
    static const cres_job_count jobs[] = {{"worker", 2}, {"chief", 1}};
    cres_resolver *r;
    (void)state;
    env_lines(sbatch_script);
    o.jobs = jobs;
    o.jobs_count = 2;
    r = slurm_with(o);
    assert_string_equal(resolved_json(r), dq("{'chief': ['vm:8888'], 'worker': ['vm:8889', 'vm:8890']}"));
    assert_int_equal(cres_task_id(r), CRES_NO_TASK);
    cres_resolver_free(r);
    o.jobs_count = 1;
    SLURM_FAILS(o, CRES_ERR_ENVIRONMENT, "2 tasks", "started 3");
}

/* Without a step the job's variables must make one allocation: a missing one, or counts that
   disagree, is an error naming them. */
static void batch_script_variables_must_agree(void **state) {
    cres_slurm_options o = slurm_options();
    (void)state;
    env_lines(sbatch_script);
    env_set("SLURM_NTASKS", "4");
    SLURM_FAILS(o, CRES_ERR_ENVIRONMENT, "slurm: SLURM_NTASKS=4 but SLURM_TASKS_PER_NODE gives 3", NULL);
    env_unset("SLURM_NTASKS");
    env_set("SLURM_NPROCS", "5");
    SLURM_FAILS(o, CRES_ERR_ENVIRONMENT, "SLURM_NPROCS=5 but SLURM_TASKS_PER_NODE gives 3", NULL);
    env_lines(sbatch_script);
    env_set("SLURM_JOB_NUM_NODES", "2");
    SLURM_FAILS(o, CRES_ERR_ENVIRONMENT, "SLURM_JOB_NUM_NODES=2 but SLURM_JOB_NODELIST gives 1", NULL);
    env_unset("SLURM_JOB_NUM_NODES");
    env_set("SLURM_NNODES", "3");
    SLURM_FAILS(o, CRES_ERR_ENVIRONMENT, "SLURM_NNODES=3 but SLURM_JOB_NODELIST gives 1", NULL);
    env_lines(sbatch_script);
    env_set("SLURM_TASKS_PER_NODE", "3,1");
    SLURM_FAILS(o, CRES_ERR_ENVIRONMENT,
                "SLURM_TASKS_PER_NODE=\"3,1\" gives 2 counts for the 1 nodes of SLURM_JOB_NODELIST", NULL);
    env_set("SLURM_TASKS_PER_NODE", "three");
    SLURM_FAILS(o, CRES_ERR_ENVIRONMENT, "slurm: SLURM_TASKS_PER_NODE: ", NULL);
    env_unset("SLURM_TASKS_PER_NODE");
    SLURM_FAILS(o, CRES_ERR_ENVIRONMENT, "slurm: SLURM_TASKS_PER_NODE is not set", NULL);
    env_lines(sbatch_script);
    env_set("SLURM_JOB_NODELIST", "vm,vm");
    env_set("SLURM_TASKS_PER_NODE", "3(x2)");
    SLURM_FAILS(o, CRES_ERR_ENVIRONMENT, "slurm: SLURM_JOB_NODELIST lists node \"vm\" twice", NULL);
    env_set("SLURM_JOB_NODELIST", "vm[1-");
    SLURM_FAILS(o, CRES_ERR_ENVIRONMENT, "slurm: SLURM_JOB_NODELIST: ", NULL);
    env_unset("SLURM_JOB_NODELIST");
    env_unset("SLURM_NODELIST");
    SLURM_FAILS(o, CRES_ERR_ENVIRONMENT, "SLURM_JOB_ID is set but neither SLURM_STEP_NODELIST (a step) nor "
                "SLURM_JOB_NODELIST (the job's allocation) is", NULL);
    env_reset();
    env_set("SLURM_JOBID", "4"); /* the older name alone: a job, but no allocation named */
    SLURM_FAILS(o, CRES_ERR_ENVIRONMENT, "slurm: SLURM_JOBID is set but neither", "SLURM_JOB_NODELIST");
}

/* A SLURM_PROCID above 0 without a step is a task whose step variables are missing (the
   batch script is task 0), never the allocation: Lightning's own Slurm test fixture
   (tests/tests_fabric/plugins/environments/test_slurm.py: SLURM_JOB_ID 1234, SLURM_PROCID
   1, SLURM_NTASKS 20, no step variables). */
static void rank_above_0_without_a_step_is_an_error(void **state) {
    cres_slurm_options o = slurm_options();
    cres_auto_options a;
    (void)state;
    env_set("SLURM_JOB_ID", "1234");
    env_set("SLURM_PROCID", "1");
    env_set("SLURM_NTASKS", "20");
    SLURM_FAILS(o, CRES_ERR_ENVIRONMENT, "SLURM_PROCID=1", "SLURM_STEP_NODELIST");
    memset(&a, 0, sizeof a);
    a.config = &cfg;
    FAILS_WITH(cres_auto_resolver_create, a, CRES_ERR_ENVIRONMENT, "SLURM_PROCID=1",
               "SLURM_STEP_NODELIST");
    env_lines(sbatch_script);
    env_set("SLURM_PROCID", "2");
    SLURM_FAILS(o, CRES_ERR_ENVIRONMENT, "SLURM_PROCID=2", "SLURM_STEP_NODELIST");
    env_set("SLURM_PROCID", "x");
    SLURM_FAILS(o, CRES_ERR_ENVIRONMENT, "SLURM_PROCID=\"x\"", NULL);
}

static void no_slurm_variables_is_environment_error(void **state) {
    cres_slurm_options o = slurm_options();
    (void)state;
    SLURM_FAILS(o, CRES_ERR_ENVIRONMENT, "SLURM_STEP_NODELIST", "SLURM_JOB_ID");
}

static void each_missing_variable_is_named(void **state) {
    static const char *const required[] = {"SLURM_PROCID", "SLURM_STEP_NUM_TASKS", "SLURM_STEP_TASKS_PER_NODE"};
    cres_slurm_options o = slurm_options();
    size_t i;
    (void)state;
    for (i = 0; i < sizeof required / sizeof required[0]; i++) {
        env_reset();
        step("n[1-2]", "2(x2)", 4, 1);
        env_unset(required[i]);
        SLURM_FAILS(o, CRES_ERR_ENVIRONMENT, required[i], "not set");
    }
}

static void each_malformed_variable_is_named(void **state) {
    static const struct {
        const char *name, *value, *sub;
    } bad[] = {
        {"SLURM_PROCID", "abc", "\"abc\""},
        {"SLURM_PROCID", "-1", "\"-1\""},
        {"SLURM_PROCID", "1.5", "\"1.5\""},
        {"SLURM_PROCID", "", "\"\""},
        {"SLURM_PROCID", "4", "SLURM_STEP_NUM_TASKS"},     /* not below the step's tasks */
        {"SLURM_STEP_NUM_TASKS", "x", "\"x\""},
        {"SLURM_STEP_NUM_TASKS", "0", "\"0\""},
        {"SLURM_STEP_NUM_TASKS", "5", "SLURM_STEP_TASKS_PER_NODE"}, /* tpn adds up to 4 */
        {"SLURM_STEP_NODELIST", "n[1-", "SLURM_STEP_NODELIST"},
        {"SLURM_STEP_NODELIST", "n[2-1]", "SLURM_STEP_NODELIST"},
        {"SLURM_STEP_NODELIST", "", "SLURM_STEP_NODELIST"},
        {"SLURM_STEP_TASKS_PER_NODE", "2(x", "SLURM_STEP_TASKS_PER_NODE"},
        {"SLURM_STEP_TASKS_PER_NODE", "two", "SLURM_STEP_TASKS_PER_NODE"},
        {"SLURM_STEP_TASKS_PER_NODE", "", "SLURM_STEP_TASKS_PER_NODE"},
        {"SLURM_LOCALID", "x", "SLURM_LOCALID"},
    };
    cres_slurm_options o = slurm_options();
    size_t i;
    (void)state;
    for (i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        static int sentinel;
        cres_resolver *r = (cres_resolver *)(void *)&sentinel;
        cres_error err;
        cres_result got;
        env_reset();
        step("n[1-2]", "2(x2)", 4, 1);
        env_set(bad[i].name, bad[i].value);
        got = cres_slurm_resolver_create(&o, &r, &err);
        if (got == CRES_OK) cres_resolver_free(r);
        if (got != CRES_ERR_ENVIRONMENT)
            fail_msg("%s=\"%s\": got %s: %s", bad[i].name, bad[i].value, cres_result_string(got), err.message);
        if (got != CRES_OK && r) fail_msg("%s=\"%s\": a resolver came back on failure", bad[i].name, bad[i].value);
        if (!strstr(err.message, bad[i].name) || !strstr(err.message, bad[i].sub))
            fail_msg("%s=\"%s\": \"%s\" does not name %s and %s", bad[i].name, bad[i].value, err.message, bad[i].name,
                     bad[i].sub);
    }
}

static void hostlist_bombs_are_limit(void **state) {
    cres_slurm_options o = slurm_options();
    (void)state;
    step("n[1-999999999999999999]", "1", 1, 0);
    SLURM_FAILS(o, CRES_ERR_LIMIT, "SLURM_STEP_NODELIST", "1000000");
    step("a[1-100000]b[1-100000]", "1", 1, 0);
    SLURM_FAILS(o, CRES_ERR_LIMIT, "SLURM_STEP_NODELIST", "1000000");
    step("n[1-600000],m[1-600000]", "1", 1, 0);
    SLURM_FAILS(o, CRES_ERR_LIMIT, "SLURM_STEP_NODELIST", "1000000");
    /* tasks per node that expand past the limit, and tasks that add up past it */
    step("n[1-2]", "1(x1000000),1", 2, 0);
    SLURM_FAILS(o, CRES_ERR_LIMIT, "SLURM_STEP_TASKS_PER_NODE", "1000000");
    step("n[1-2]", "1000000(x2)", 2, 0);
    SLURM_FAILS(o, CRES_ERR_LIMIT, "1000000", NULL);
}

/* ---------------------------------------------------------------------------------------
   Slurm: GPUs */

/* "" (TF counts this as 1 GPU, section 5.6), "NoDevFiles" (what Slurm writes on a node
   without the requested GPUs) and "-1" (what users write to hide the GPUs): no GPU. */
static void cuda_visible_devices_empty_means_no_gpus(void **state) {
    static const char *const none[] = {"", "NoDevFiles", "-1"};
    cuda_snapshot before = cuda_now();
    size_t i;
    (void)state;
    step("n[1-2]", "2(x2)", 4, 1);
    for (i = 0; i < sizeof none / sizeof none[0]; i++) {
        cres_resolver *r;
        env_set("CUDA_VISIBLE_DEVICES", none[i]);
        r = slurm();
        assert_int_equal(gpus_of(r), 0);
        assert_string_equal(devices_of(r, NULL, -1), "");
        assert_string_equal(devices_of(r, "worker", 3), "");
        expect_cuda_unchanged(&before);
        cres_resolver_free(r);
    }
}

static void cuda_visible_devices_unset_means_no_gpus(void **state) {
    cres_resolver *r;
    (void)state;
    step("n[1-2]", "2(x2)", 4, 1);
    r = slurm();
    assert_int_equal(gpus_of(r), 0);
    assert_string_equal(devices_of(r, NULL, -1), "");
    assert_string_equal(resolved_json(r), dq("{'worker': ['n1:8888', 'n1:8889', 'n2:8888', 'n2:8889']}"));
    cres_resolver_free(r);
}

/* The ids come from the list: "4,5,6,7" split over two tasks gives "4,5" and "6,7". */
static void cuda_visible_devices_ids_are_taken_from_the_list(void **state) {
    cuda_snapshot before = cuda_now();
    cres_resolver *r;
    (void)state;
    step("n[1-2]", "2(x2)", 4, 1);
    step_gpus("4,5,6,7");
    r = slurm();
    assert_int_equal(gpus_of(r), 2);
    assert_string_equal(devices_of(r, NULL, -1), "6,7");
    assert_string_equal(devices_of(r, "worker", 0), "4,5");
    assert_string_equal(devices_of(r, "worker", 2), "4,5");
    assert_string_equal(devices_of(r, "worker", 3), "6,7");
    expect_cuda_unchanged(&before);
    cres_resolver_free(r);
    /* UUIDs are ids too; an odd GPU stays unused */
    step_gpus("GPU-aa,GPU-bb,GPU-cc");
    r = slurm();
    assert_int_equal(gpus_of(r), 1);
    assert_string_equal(devices_of(r, "worker", 0), "GPU-aa");
    assert_string_equal(devices_of(r, "worker", 1), "GPU-bb");
    cres_resolver_free(r);
}

/* The GPU count of a task (cres_num_accelerators_of): 0 when it reports no accelerator. */
static int gpus_of_task(cres_resolver *r, const char *type, int id) {
    cres_accelerators acc;
    cres_error err;
    OK(cres_num_accelerators_of(r, type, id, &acc, &err));
    return acc.count ? acc.items[0].count : 0;
}

/* `srun -N2 -n3 --gpus-per-node=4`: block gives 2 and 1 tasks, and every task sees its
   node's four GPUs (SLURM_GPUS_ON_NODE=4). Each node's GPUs are shared among that node's
   tasks: node01's two get "0,1" and "2,3", node02's lone task all four. With 3 and 1 tasks
   node01's get one each (the fourth stays unused) and node02's still four. */
static void gpus_are_shared_per_node(void **state) {
    cres_resolver *r;
    (void)state;
    log_config();
    step("node[01-02]", "2,1", 3, 2);
    env_set("SLURM_NODEID", "1");
    step_gpus("0,1,2,3");
    r = slurm();
    assert_int_equal(gpus_of(r), 4);
    assert_string_equal(devices_of(r, NULL, -1), "0,1,2,3");
    assert_string_equal(devices_of(r, "worker", 0), "0,1");
    assert_string_equal(devices_of(r, "worker", 1), "2,3");
    assert_int_equal(gpus_of_task(r, "worker", 0), 2);
    assert_int_equal(gpus_of_task(r, "worker", 2), 4);
    HAS(logs.text, "INFO slurm: node02's 4 GPUs (CUDA_VISIBLE_DEVICES), 4 per task\n");
    cres_resolver_free(r);
    step("node[01-02]", "3,1", 4, 1);
    env_set("SLURM_NODEID", "0");
    r = slurm();
    assert_int_equal(gpus_of(r), 1);
    assert_string_equal(devices_of(r, NULL, -1), "1");
    assert_string_equal(devices_of(r, "worker", 2), "2");
    assert_string_equal(devices_of(r, "worker", 3), "0,1,2,3");
    assert_int_equal(gpus_of_task(r, "worker", 3), 4);
    cres_resolver_free(r);
    /* a node of more tasks than GPUs: its tasks keep the list; the other node's share */
    step("node[01-02]", "5,1", 6, 4);
    r = slurm();
    assert_int_equal(gpus_of(r), 0);
    assert_string_equal(devices_of(r, NULL, -1), "");
    assert_string_equal(devices_of(r, "worker", 5), "0,1,2,3");
    HAS(logs.text, "INFO slurm: node01's 4 GPUs (CUDA_VISIBLE_DEVICES), 0 per task: fewer than its tasks, "
                   "each keeps the list\n");
    cres_resolver_free(r);
    /* the caller's count is one for every task, checked against the node of the most tasks */
    cres_slurm_options o = slurm_options();
    step("node[01-02]", "2,1", 3, 2);
    env_set("SLURM_NODEID", "1");
    o.gpus_per_task = 2;
    r = slurm_with(o);
    assert_int_equal(gpus_of(r), 2);
    assert_string_equal(devices_of(r, NULL, -1), "0,1");
    assert_string_equal(devices_of(r, "worker", 1), "2,3");
    cres_resolver_free(r);
    o.gpus_per_task = 3;
    SLURM_FAILS(o, CRES_ERR_ENVIRONMENT, "options.gpus_per_task 3 for the 2 tasks of a node is 6 GPUs, more than "
                "the 4 of CUDA_VISIBLE_DEVICES", NULL);
}

/* The same under mpirun, which says nothing of GPUs: --gpus-per-node says the list is the
   node's, and each node's is shared among its ranks (rank 3 is alone on node02). */
static void mpi_gpus_per_node_are_shared_per_node(void **state) {
    cres_mpi_options o;
    cres_resolver *r;
    cres_error err;
    (void)state;
    memset(&o, 0, sizeof o);
    o.config = &cfg;
    o.hostfile = temp_file("node01 slots=3\nnode02 slots=1\n");
    o.gpus_per_node = 4;
    env_set("OMPI_COMM_WORLD_RANK", "3");
    env_set("OMPI_COMM_WORLD_SIZE", "4");
    env_set("OMPI_COMM_WORLD_LOCAL_RANK", "0");
    env_set("OMPI_COMM_WORLD_LOCAL_SIZE", "1");
    env_set("CUDA_VISIBLE_DEVICES", "0,1,2,3");
    OK(cres_mpi_resolver_create(&o, &r, &err));
    assert_int_equal(gpus_of(r), 4);
    assert_string_equal(devices_of(r, NULL, -1), "0,1,2,3");
    assert_string_equal(devices_of(r, "worker", 1), "1");
    assert_int_equal(gpus_of_task(r, "worker", 2), 1);
    cres_resolver_free(r);
}

static void gpus_per_node_no_gpus_forces_none(void **state) {
    cres_slurm_options o = slurm_options();
    cres_resolver *r;
    (void)state;
    step("n[1-2]", "2(x2)", 4, 1);
    env_set("CUDA_VISIBLE_DEVICES", "0,1,2,3");
    o.gpus_per_node = CRES_NO_GPUS;
    r = slurm_with(o);
    assert_int_equal(gpus_of(r), 0);
    assert_string_equal(devices_of(r, NULL, -1), "");
    cres_resolver_free(r);
    o.gpus_per_task = 1; /* no GPUs, but one asked for */
    SLURM_FAILS(o, CRES_ERR_ENVIRONMENT, "GPU", NULL);
}

/* gpus_per_node says CUDA_VISIBLE_DEVICES is the node's list: a list shorter than it (a
   user confined to GPUs 4 and 5 of a shared box, a wrapper's one-GPU binding) cannot be, and
   neither can one that is not a list of ids; both are errors naming the option and the
   variable, never devices from outside the list. Without a list the GPUs are numbered from
   0; of a longer list the first gpus_per_node ids are the node's. */
static void gpus_per_node_against_the_list(void **state) {
    cres_slurm_options o = slurm_options();
    cres_resolver *r;
    (void)state;
    step("n[1-2]", "2(x2)", 4, 1);
    o.gpus_per_node = 8;
    r = slurm_with(o);
    assert_int_equal(gpus_of(r), 4);
    assert_string_equal(devices_of(r, NULL, -1), "4,5,6,7");
    cres_resolver_free(r);
    env_set("CUDA_VISIBLE_DEVICES", "0");
    SLURM_FAILS(o, CRES_ERR_ENVIRONMENT, "options.gpus_per_node 8, but CUDA_VISIBLE_DEVICES=\"0\" lists 1", NULL);
    o.gpus_per_node = 4;
    env_set("CUDA_VISIBLE_DEVICES", "4,5");
    SLURM_FAILS(o, CRES_ERR_ENVIRONMENT, "options.gpus_per_node 4, but CUDA_VISIBLE_DEVICES=\"4,5\" lists 2", NULL);
    env_set("CUDA_VISIBLE_DEVICES", "0,,1");
    SLURM_FAILS(o, CRES_ERR_ENVIRONMENT, "CUDA_VISIBLE_DEVICES=\"0,,1\" is not a list of ids", NULL);
    env_set("CUDA_VISIBLE_DEVICES", "0,1,2,3,4,5,6,7");
    r = slurm_with(o);
    assert_int_equal(gpus_of(r), 2);
    assert_string_equal(devices_of(r, NULL, -1), "2,3");
    assert_string_equal(devices_of(r, "worker", 0), "0,1");
    cres_resolver_free(r);
    /* gpus_per_task more than a list nobody bound holds for the node's tasks */
    o.gpus_per_node = 0;
    o.gpus_per_task = 2;
    env_set("CUDA_VISIBLE_DEVICES", "0,1");
    SLURM_FAILS(o, CRES_ERR_ENVIRONMENT, "options.gpus_per_task 2 for the 2 tasks of a node is 4 GPUs, more than "
                "the 2 of CUDA_VISIBLE_DEVICES", NULL);
}

/* `srun -N1 -n2 --gpus-per-task=2` on a node of four GPUs: slurmstepd gives each task its
   own two (CUDA_VISIBLE_DEVICES "2,3" for task 1) and SLURM_GPUS_ON_NODE, the step's four;
   srun 22.05 sets no variable naming the option (src/common/env.c set_env_from_opts is
   sbatch's and salloc's there). The list is passed on unchanged, never split again ("3"). */
static void gpus_per_task_binding_is_passed_on(void **state) {
    cres_resolver *r;
    (void)state;
    log_config();
    step("n1", "2", 2, 1);
    env_set("SLURM_LOCALID", "1");
    env_set("SLURM_GPUS_ON_NODE", "4");
    env_set("CUDA_VISIBLE_DEVICES", "2,3");
    r = slurm();
    assert_int_equal(gpus_of(r), 2);
    assert_string_equal(devices_of(r, NULL, -1), "");
    assert_string_equal(devices_of(r, "worker", 0), "");
    HAS(logs.text, "INFO slurm: CUDA_VISIBLE_DEVICES=\"2,3\" is this task's own (SLURM_GPUS_ON_NODE=4 but "
                   "CUDA_VISIBLE_DEVICES lists 2): passed on unchanged\n");
    cres_resolver_free(r);
    /* the task that got one GPU of a single:2 binding, UUIDs as Slurm writes them for MIG */
    env_set("CUDA_VISIBLE_DEVICES", "MIG-5e1b4c11-0f6a-5d0e-9c3b-2f1a8d7e6c5b");
    r = slurm();
    assert_int_equal(gpus_of(r), 1);
    assert_string_equal(devices_of(r, NULL, -1), "");
    cres_resolver_free(r);
}

/* Each variable through which the tasks see a binding option (srun(1) OUTPUT and INPUT
   ENVIRONMENT VARIABLES; sbatch and salloc export them, srun from 23.11 the SLURM_TRES_*
   ones; src/common/env.c set_env_from_opts): with or without SLURM_GPUS_ON_NODE, the list is
   the task's own. --gpu-bind=none (or gres/gpu:none) asks that every task see the step's
   GPUs: that list is left whole too. */
static void each_slurm_binding_variable_keeps_the_list(void **state) {
    static const char *const bound[][2] = {
        {"SLURM_GPUS_PER_TASK", "2"},
        {"SLURM_GPUS_PER_TASK", "a100:2"},
        {"SLURM_NTASKS_PER_GPU", "1"},
        {"SLURM_NTASKS_PER_TRES", "1"},
        {"SLURM_GPU_BIND", "closest"},
        {"SLURM_GPU_BIND", "none"},
        {"SLURM_TRES_BIND", "gres/gpu:none"},
        {"SLURM_GPU_BIND", "verbose,map_gpu:0,1"},
        {"SLURM_GPU_BIND", "single:1"},
        {"SLURM_TRES_BIND", "gres/gpu:per_task:2"},
        {"SLURM_TRES_BIND", "gres/nic:closest+gres/gpu:verbose,mask:0x3,0xc"},
        {"SLURM_TRES_PER_TASK", "cpu=2,gres/gpu=2"},
        {"SLURM_TRES_PER_TASK", "gres/gpu:a100=2"},
    };
    size_t i;
    (void)state;
    for (i = 0; i < sizeof bound / sizeof bound[0]; i++) {
        cres_resolver *r;
        char want[160];
        env_reset();
        log_config();
        step("n1", "2", 2, 1);
        env_set("SLURM_LOCALID", "1");
        env_set("CUDA_VISIBLE_DEVICES", "2,3");
        env_set(bound[i][0], bound[i][1]);
        r = slurm();
        assert_int_equal(gpus_of(r), 2);
        assert_string_equal(devices_of(r, NULL, -1), "");
        snprintf(want, sizeof want, "is this task's own (%s=\"%s\")", bound[i][0], bound[i][1]);
        HAS(logs.text, want);
        cres_resolver_free(r);
    }
    /* none: every task sees the step's 4 GPUs, as asked: not split, not exported */
    env_reset();
    step("n1", "2", 2, 1);
    env_set("SLURM_LOCALID", "1");
    step_gpus("0,1,2,3");
    env_set("SLURM_GPUS_PER_TASK", "2");
    env_set("SLURM_GPU_BIND", "none");
    cres_resolver *r = slurm();
    assert_string_equal(devices_of(r, NULL, -1), "");
    assert_int_equal(gpus_of(r), 4);
    cres_resolver_free(r);
    env_unset("SLURM_GPU_BIND");
    env_unset("SLURM_GPUS_PER_TASK");
    /* verbose alone, and a --tres-bind of no gres/gpu part, bind nothing: the step's list is
       the node's and is split */
    env_set("SLURM_TRES_BIND", "gres/nic:closest"); /* no gres/gpu part: nothing of GPUs */
    env_set("SLURM_GPU_BIND", "verbose");
    r = slurm();
    assert_string_equal(devices_of(r, NULL, -1), "2,3");
    cres_resolver_free(r);
    env_set("SLURM_TRES_PER_TASK", "cpu=2"); /* CPUs only */
    r = slurm();
    assert_string_equal(devices_of(r, NULL, -1), "2,3");
    cres_resolver_free(r);
}

/* The other device lists a launcher narrows (Slurm writes one list into each that
   gres.conf's flags name; wrapper scripts set ROCR_VISIBLE_DEVICES or ZE_AFFINITY_MASK per
   rank): one shorter than the node's count, or than CUDA's list, is a binding, and CUDA's
   list is not split either. */
static void other_device_lists_show_a_binding(void **state) {
    static const char *const vars[] = {"ROCR_VISIBLE_DEVICES", "HIP_VISIBLE_DEVICES", "ZE_AFFINITY_MASK",
                                       "GPU_DEVICE_ORDINAL"};
    size_t i;
    (void)state;
    for (i = 0; i < sizeof vars / sizeof vars[0]; i++) {
        cres_resolver *r;
        char want[160];
        env_reset();
        log_config();
        step("n1", "2", 2, 1);
        env_set("SLURM_LOCALID", "1");
        step_gpus("0,1,2,3");
        env_set(vars[i], "1");
        r = slurm();
        assert_int_equal(gpus_of(r), 4);
        assert_string_equal(devices_of(r, NULL, -1), "");
        snprintf(want, sizeof want, "(SLURM_GPUS_ON_NODE=4 but %s lists 1)", vars[i]);
        HAS(logs.text, want);
        cres_resolver_free(r);
        /* no count from Slurm: shorter than CUDA's list */
        env_unset("SLURM_GPUS_ON_NODE");
        env_set(vars[i], "0.0,0.1"); /* ZE_AFFINITY_MASK's device.tile form counts two */
        r = slurm();
        assert_string_equal(devices_of(r, NULL, -1), "");
        snprintf(want, sizeof want, "(%s lists 2 devices, CUDA_VISIBLE_DEVICES 4)", vars[i]);
        HAS(logs.text, want);
        cres_resolver_free(r);
    }
    /* as long as CUDA's, or blank: no binding shown */
    env_reset();
    step("n1", "2", 2, 1);
    env_set("SLURM_LOCALID", "1");
    step_gpus("0,1,2,3");
    env_set("ROCR_VISIBLE_DEVICES", "0,1,2,3");
    env_set("ZE_AFFINITY_MASK", " ");
    cres_resolver *r = slurm();
    assert_string_equal(devices_of(r, NULL, -1), "2,3");
    cres_resolver_free(r);
}

/* The caller's GPU options against a binding: gpus_per_node asks to split a list this task
   cannot see whole, and a gpus_per_task other than the task's count contradicts it; both are
   errors naming the option and the binding. A gpus_per_task that agrees is the answer. A
   gpus_per_node other than SLURM_GPUS_ON_NODE is an error too. */
static void gpu_options_against_a_binding(void **state) {
    cres_slurm_options o = slurm_options();
    cres_resolver *r;
    (void)state;
    step("n1", "2", 2, 1);
    env_set("SLURM_LOCALID", "1");
    env_set("SLURM_GPUS_ON_NODE", "4");
    env_set("CUDA_VISIBLE_DEVICES", "2,3");
    env_set("SLURM_GPUS_PER_TASK", "2");
    o.gpus_per_node = 4;
    SLURM_FAILS(o, CRES_ERR_ENVIRONMENT, "options.gpus_per_node (--gpus-per-node) 4 would split the node's GPUs",
                "(SLURM_GPUS_PER_TASK=\"2\")");
    o.gpus_per_node = 0;
    o.gpus_per_task = 1;
    SLURM_FAILS(o, CRES_ERR_ENVIRONMENT, "options.gpus_per_task (--gpus-per-task) 1, but the launcher gave this "
                "task its own GPUs (SLURM_GPUS_PER_TASK=\"2\") and CUDA_VISIBLE_DEVICES lists 2", NULL);
    o.gpus_per_task = 2;
    r = slurm_with(o);
    assert_int_equal(gpus_of(r), 2);
    assert_string_equal(devices_of(r, NULL, -1), "");
    cres_resolver_free(r);
    o.gpus_per_node = CRES_NO_GPUS; /* none wanted: nothing to contradict */
    o.gpus_per_task = 0;
    r = slurm_with(o);
    assert_int_equal(gpus_of(r), 0);
    cres_resolver_free(r);
    /* no binding, but a node count other than Slurm's */
    env_unset("SLURM_GPUS_PER_TASK");
    step_gpus("0,1,2,3");
    o.gpus_per_node = 8;
    SLURM_FAILS(o, CRES_ERR_ENVIRONMENT, "options.gpus_per_node (--gpus-per-node) 8, but SLURM_GPUS_ON_NODE=4",
                NULL);
    o.gpus_per_node = 4;
    r = slurm_with(o);
    assert_string_equal(devices_of(r, NULL, -1), "2,3");
    cres_resolver_free(r);
}

/* Whose list it is cannot be known: no SLURM_GPUS_ON_NODE (a list Slurm did not write), or a
   list longer than it. Left as it is, and the log says why. */
static void unsaid_gpu_lists_are_left_alone(void **state) {
    cres_slurm_options o = slurm_options();
    cres_resolver *r;
    (void)state;
    log_config();
    step("n1", "2", 2, 1);
    env_set("SLURM_LOCALID", "1");
    env_set("CUDA_VISIBLE_DEVICES", "0,1,2,3");
    r = slurm();
    assert_int_equal(gpus_of(r), 4);
    assert_string_equal(devices_of(r, NULL, -1), "");
    HAS(logs.text, "INFO slurm: CUDA_VISIBLE_DEVICES=\"0,1,2,3\" left as it is: SLURM_GPUS_ON_NODE (the step's "
                   "GPUs on the node) is not set, so nothing says whether it lists the node's GPUs or this task's "
                   "own (options.gpus_per_node or gpus_per_task, --gpus-per-node or --gpus-per-task, would "
                   "split it as the node's)\n");
    cres_resolver_free(r);
    env_set("SLURM_GPUS_ON_NODE", "2");
    r = slurm();
    assert_string_equal(devices_of(r, NULL, -1), "");
    HAS(logs.text, "INFO slurm: CUDA_VISIBLE_DEVICES=\"0,1,2,3\" left as it is: it lists 4 devices, "
                   "SLURM_GPUS_ON_NODE=2\n");
    cres_resolver_free(r);
    /* the caller saying so splits it */
    env_unset("SLURM_GPUS_ON_NODE");
    o.gpus_per_task = 2;
    r = slurm_with(o);
    assert_string_equal(devices_of(r, NULL, -1), "2,3");
    cres_resolver_free(r);
    /* a malformed count is an error naming it */
    env_set("SLURM_GPUS_ON_NODE", "four");
    SLURM_FAILS(o, CRES_ERR_ENVIRONMENT, "SLURM_GPUS_ON_NODE=\"four\"", NULL);
}

static void too_many_gpus_per_task_is_an_error(void **state) {
    cres_slurm_options o = slurm_options();
    (void)state;
    step("n[1-2]", "2(x2)", 4, 1);
    env_set("CUDA_VISIBLE_DEVICES", "0,1,2,3");
    o.gpus_per_task = 3;
    SLURM_FAILS(o, CRES_ERR_ENVIRONMENT, "options.gpus_per_task 3", "6 GPUs, more than the 4 of CUDA_VISIBLE_DEVICES");
    o.gpus_per_node = 1;
    o.gpus_per_task = 1;
    env_unset("CUDA_VISIBLE_DEVICES");
    SLURM_FAILS(o, CRES_ERR_ENVIRONMENT, "options.gpus_per_task 1", "2 GPUs, more than the 1 of options.gpus_per_node");
}

static void bad_gpu_settings(void **state) {
    cres_slurm_options o = slurm_options();
    (void)state;
    step("n[1-2]", "2(x2)", 4, 1);
    o.gpus_per_node = -2;
    SLURM_FAILS(o, CRES_ERR_INVALID_ARGUMENT, "gpus_per_node", NULL);
    o.gpus_per_node = 0;
    o.gpus_per_task = -1;
    SLURM_FAILS(o, CRES_ERR_INVALID_ARGUMENT, "gpus_per_task", NULL);
    o.gpus_per_task = 0;
    env_set("CUDA_VISIBLE_DEVICES", "0,,1");
    SLURM_FAILS(o, CRES_ERR_ENVIRONMENT, "CUDA_VISIBLE_DEVICES", NULL);
    env_set("CUDA_VISIBLE_DEVICES", "0,1,");
    SLURM_FAILS(o, CRES_ERR_ENVIRONMENT, "CUDA_VISIBLE_DEVICES", NULL);
    env_set("CUDA_VISIBLE_DEVICES", "0, 1");
    SLURM_FAILS(o, CRES_ERR_ENVIRONMENT, "CUDA_VISIBLE_DEVICES", NULL);
    env_set("CUDA_VISIBLE_DEVICES", ",0,1");
    SLURM_FAILS(o, CRES_ERR_ENVIRONMENT, "CUDA_VISIBLE_DEVICES=\",0,1\" is not a list of ids", NULL);
    {
        static char long_list[4098];
        memset(long_list, '7', 4097);
        long_list[4097] = '\0';
        env_set("CUDA_VISIBLE_DEVICES", long_list);
        SLURM_FAILS(o, CRES_ERR_LIMIT, "CUDA_VISIBLE_DEVICES is longer than 4096 bytes", NULL);
    }
    env_unset("CUDA_VISIBLE_DEVICES");
    o.gpus_per_node = 4097;
    SLURM_FAILS(o, CRES_ERR_INVALID_ARGUMENT, "gpus_per_node 4097 / gpus_per_task 0: not 0 to 4096", NULL);
    o.gpus_per_node = 4096;
    o.gpus_per_task = 4097;
    SLURM_FAILS(o, CRES_ERR_INVALID_ARGUMENT, "gpus_per_node 4096 / gpus_per_task 4097: not 0 to 4096", NULL);
}

/* A union answers GPU questions as its first child does, devices included. */
static void union_over_slurm_gives_its_devices(void **state) {
    cres_union_options uo;
    cres_resolver *child, *u = NULL;
    cres_error err;
    (void)state;
    step("n[1-2]", "2(x2)", 4, 1);
    step_gpus("4,5,6,7");
    child = slurm();
    memset(&uo, 0, sizeof uo);
    uo.resolvers = &child;
    uo.resolvers_count = 1;
    uo.owns_resolvers = 1;
    OK(cres_union_resolver_create(&uo, &u, &err));
    assert_int_equal(gpus_of(u), 2);
    assert_string_equal(devices_of(u, "worker", 0), "4,5");
    assert_string_equal(devices_of(u, "worker", 3), "6,7");
    assert_string_equal(devices_of(u, NULL, -1), devices_of(child, NULL, -1));
    cres_resolver_free(u);
}

static void visible_devices_of_unknown_task_is_not_found(void **state) {
    char buf[64];
    cres_error err;
    cres_resolver *r;
    (void)state;
    step("n[1-2]", "2(x2)", 4, 1);
    step_gpus("0,1");
    r = slurm();
    EXPECT(cres_visible_devices_of(r, "worker", 4, buf, sizeof buf, NULL, &err), CRES_ERR_NOT_FOUND);
    EXPECT(cres_visible_devices_of(r, "ps", 0, buf, sizeof buf, NULL, &err), CRES_ERR_NOT_FOUND);
    /* a short buffer: snprintf-style */
    EXPECT(cres_visible_devices_of(r, "worker", 1, buf, 1, NULL, &err), CRES_ERR_BUFFER_TOO_SMALL);
    assert_string_equal(buf, "");
    /* no buffer but a capacity: an invalid argument */
    EXPECT(cres_visible_devices_of(r, "worker", 1, NULL, 8, NULL, &err), CRES_ERR_INVALID_ARGUMENT);
    HAS(err.message, "buf is NULL but cap is 8");
    cres_resolver_free(r);
}

/* The GPU count of a named task: every task of the job has the same; a task the cluster
   does not have is not found, and nothing is counted for it. */
static void accelerators_of_a_named_task(void **state) {
    cres_accelerators acc;
    cres_error err;
    cres_resolver *r;
    (void)state;
    step("n[1-2]", "2(x2)", 4, 1);
    step_gpus("0,1,2,3");
    r = slurm();
    OK(cres_num_accelerators_of(r, "worker", 3, &acc, &err));
    assert_int_equal(acc.count, 1);
    assert_string_equal(acc.items[0].type, "GPU");
    assert_int_equal(acc.items[0].count, 2);
    EXPECT(cres_num_accelerators_of(r, "ps", 0, &acc, &err), CRES_ERR_NOT_FOUND);
    HAS(err.message, "slurm: no task \"ps\" 0");
    assert_int_equal(acc.count, 0);
    EXPECT(cres_num_accelerators_of(r, "worker", 4, &acc, &err), CRES_ERR_NOT_FOUND);
    HAS(err.message, "no task \"worker\" 4");
    cres_resolver_free(r);
}

/* ---------------------------------------------------------------------------------------
   Slurm: ports, rpc layer, master, overrides */

static void port_base_option(void **state) {
    cres_slurm_options o = slurm_options();
    cres_resolver *r;
    (void)state;
    step("n[1-2]", "2,1", 3, 0);
    o.port_base = 2222;
    r = slurm_with(o);
    assert_string_equal(resolved_json(r), dq("{'worker': ['n1:2222', 'n1:2223', 'n2:2222']}"));
    cres_resolver_free(r);
    o.port_base = 65534; /* two tasks on n1 fit exactly */
    r = slurm_with(o);
    assert_string_equal(resolved_json(r), dq("{'worker': ['n1:65534', 'n1:65535', 'n2:65534']}"));
    cres_resolver_free(r);
    o.port_base = 65535; /* the step has more tasks on a node than ports are left */
    SLURM_FAILS(o, CRES_ERR_ENVIRONMENT, "slurm: options.port_base 65535: 2 tasks on one node need ports past 65535",
                NULL);
    o.port_base = -1;
    SLURM_FAILS(o, CRES_ERR_INVALID_ARGUMENT, "port_base", NULL);
    o.port_base = 70000;
    SLURM_FAILS(o, CRES_ERR_INVALID_ARGUMENT, "port_base", NULL);
}

static void rpc_layer_default_and_master(void **state) {
    cres_slurm_options o = slurm_options();
    cres_resolver *r;
    (void)state;
    step("n[1-2]", "2,1", 3, 1);
    r = slurm();
    assert_string_equal(cres_rpc_layer(r), "grpc");
    assert_string_equal(master_of(r, NULL, -1, NULL), "grpc://n1:8889");
    assert_string_equal(master_of(r, "worker", 2, NULL), "grpc://n2:8888");
    assert_string_equal(master_of(r, "worker", 2, ""), "n2:8888");
    assert_string_equal(master_of(r, NULL, 0, "ab"), "ab://n1:8888");
    cres_resolver_free(r);
    o.rpc_layer = "grpc+verbs";
    r = slurm_with(o);
    assert_string_equal(master_of(r, NULL, -1, NULL), "grpc+verbs://n1:8889");
    cres_resolver_free(r);
    o.rpc_layer = ""; /* none */
    r = slurm_with(o);
    assert_null(cres_rpc_layer(r));
    assert_string_equal(master_of(r, NULL, -1, NULL), "n1:8889");
    cres_resolver_free(r);
}

static void master_of_missing_task_is_not_found(void **state) {
    char buf[64];
    cres_error err;
    cres_resolver *r;
    (void)state;
    step("n[1-2]", "2,1", 3, 1);
    r = slurm();
    EXPECT(cres_master_of(r, "worker", 3, NULL, buf, sizeof buf, NULL, &err), CRES_ERR_NOT_FOUND);
    EXPECT(cres_master_of(r, "ps", 0, NULL, buf, sizeof buf, NULL, &err), CRES_ERR_NOT_FOUND);
    HAS(err.message, "\"ps\"");
    cres_resolver_free(r);
}

static void task_options_and_set_task_are_kept(void **state) {
    cres_slurm_options o = slurm_options();
    cres_resolver *r;
    cres_error err;
    (void)state;
    step("n[1-2]", "2,1", 3, 2);
    o.task_type = "worker";
    o.task_id = 0;
    r = slurm_with(o);
    expect_task(r, "worker", 0);
    (void)resolved_json(r);
    expect_task(r, "worker", 0);
    assert_string_equal(master_of(r, NULL, -1, NULL), "grpc://n1:8888");
    assert_string_equal(devices_of(r, NULL, -1), "");
    OK(cres_set_task(r, NULL, 1, &err)); /* keep the type */
    (void)resolved_json(r);
    expect_task(r, "worker", 1);
    OK(cres_set_task(r, "evaluator", -1, &err)); /* keep the id; a job outside the cluster */
    (void)resolved_json(r);
    expect_task(r, "evaluator", 1);
    cres_resolver_free(r);
    /* task_id alone does nothing (it counts only with task_type) */
    o.task_type = NULL;
    o.task_id = 0;
    r = slurm_with(o);
    expect_task(r, "worker", 2);
    cres_resolver_free(r);
}

static void resolve_gives_fresh_equal_specs(void **state) {
    cres_cluster_spec *a = NULL, *b = NULL;
    cres_error err;
    cres_resolver *r;
    (void)state;
    step("n[1-2]", "2,1", 3, 2);
    r = slurm();
    OK(cres_resolve(r, &a, &err));
    OK(cres_resolve(r, &b, &err));
    assert_ptr_not_equal(a, b);
    assert_true(cres_spec_equal(a, b));
    cres_spec_free(a);
    /* the spec outlives the resolver */
    cres_resolver_free(r);
    assert_string_equal(json_of(b), dq("{'worker': ['n1:8888', 'n1:8889', 'n2:8888']}"));
    cres_spec_free(b);
}

static void null_options_read_the_process_environment(void **state) {
    cres_resolver *r = NULL;
    cres_error err;
    cres_result got;
    (void)state;
    /* whatever this machine has: a result, no crash, nothing returned on failure */
    got = cres_slurm_resolver_create(NULL, &r, &err);
    if (got == CRES_OK) {
        assert_non_null(r);
        cres_resolver_free(r);
    } else {
        assert_null(r);
        assert_int_equal(err.result, got);
    }
}

/* ---------------------------------------------------------------------------------------
   MPI */

static cres_mpi_options mpi_options(void) {
    cres_mpi_options o;
    memset(&o, 0, sizeof o);
    o.config = &cfg;
    return o;
}

static cres_resolver *mpi_with(cres_mpi_options o) {
    cres_resolver *r = NULL;
    cres_error err;
    OK(cres_mpi_resolver_create(&o, &r, &err));
    assert_non_null(r);
    assert_string_equal(cres_resolver_name(r), "mpi");
    return r;
}

static cres_resolver *mpi(void) { return mpi_with(mpi_options()); }

#define MPI_FAILS(opts, want, sub1, sub2) FAILS_WITH(cres_mpi_resolver_create, opts, want, sub1, sub2)

/* Rank 0 of `mpirun -np 4` on one host (envs/openmpi/mpirun-np4-rank0-env.txt, in part). */
static const char mpirun_np4_rank0[] =
    "OMPI_APP_CTX_NUM_PROCS=4\n"
    "OMPI_COMMAND=bash\n"
    "OMPI_COMM_WORLD_LOCAL_RANK=0\n"
    "OMPI_COMM_WORLD_LOCAL_SIZE=4\n"
    "OMPI_COMM_WORLD_NODE_RANK=0\n"
    "OMPI_COMM_WORLD_RANK=0\n"
    "OMPI_COMM_WORLD_SIZE=4\n"
    "OMPI_FIRST_RANKS=0\n"
    "OMPI_MCA_ess_base_jobid=1308950529\n"
    "OMPI_MCA_ess_base_vpid=0\n"
    "OMPI_MCA_orte_ess_num_procs=4\n"
    "OMPI_MCA_orte_hnp_uri=1308950528.0;tcp://127.0.0.1:35459\n"
    "OMPI_MCA_orte_num_nodes=1\n"
    "OMPI_NUM_APP_CTX=1\n"
    "OMPI_UNIVERSE_SIZE=2\n"
    "PMIX_HOSTNAME=vm\n"
    "PMIX_ID=1308950529.0\n"
    "PMIX_NAMESPACE=1308950529\n"
    "PMIX_RANK=0\n"
    "PMIX_SECURITY_MODE=native\n"
    "PMIX_SERVER_URI4=1308950528.0;tcp4://127.0.0.1:42151\n"
    "PMIX_VERSION=4.2.2rc2\n";

static void mpirun_np4_one_host(void **state) {
    int rank;
    (void)state;
    for (rank = 0; rank < 4; rank++) {
        char want[64];
        cres_resolver *r;
        env_reset();
        env_lines(mpirun_np4_rank0);
        ompi_rank(rank, 4, rank, 4);
        r = mpi();
        assert_string_equal(resolved_json(r), dq("{'worker': ['vm:8888', 'vm:8889', 'vm:8890', 'vm:8891']}"));
        expect_task(r, "worker", rank);
        snprintf(want, sizeof want, "grpc://vm:%d", 8888 + rank);
        assert_string_equal(master_of(r, NULL, -1, NULL), want);
        assert_string_equal(cres_rpc_layer(r), "grpc");
        cres_resolver_free(r);
    }
}

static void hostname_option_and_default(void **state) {
    cres_mpi_options o = mpi_options();
    cres_resolver *r;
    (void)state;
    env_lines(mpirun_np4_rank0);
    o.hostname = "gpu7.example.org";
    r = mpi_with(o);
    assert_string_equal(resolved_json(r), dq("{'worker': ['gpu7.example.org:8888', 'gpu7.example.org:8889', "
                                             "'gpu7.example.org:8890', 'gpu7.example.org:8891']}"));
    cres_resolver_free(r);
    env_unset("PMIX_HOSTNAME");
    r = mpi();
    assert_string_equal(resolved_json(r),
                        dq("{'worker': ['localhost:8888', 'localhost:8889', 'localhost:8890', 'localhost:8891']}"));
    cres_resolver_free(r);
    env_set("PMIX_HOSTNAME", ""); /* empty: no name either */
    r = mpi();
    assert_string_equal(resolved_json(r),
                        dq("{'worker': ['localhost:8888', 'localhost:8889', 'localhost:8890', 'localhost:8891']}"));
    cres_resolver_free(r);
}

static void one_rank_is_one_task(void **state) {
    cres_resolver *r;
    (void)state;
    env_set("OMPI_COMM_WORLD_RANK", "0");
    env_set("OMPI_COMM_WORLD_SIZE", "1");
    r = mpi();
    assert_string_equal(resolved_json(r), dq("{'worker': ['localhost:8888']}"));
    expect_task(r, "worker", 0);
    cres_resolver_free(r);
}

/* MPICH / Intel MPI (Hydra): PMI_RANK, PMI_SIZE, MPI_LOCALRANKID, MPI_LOCALNRANKS. */
static void mpich_pmi_variables(void **state) {
    cres_mpi_options o = mpi_options();
    cres_resolver *r;
    (void)state;
    env_set("PMI_RANK", "2");
    env_set("PMI_SIZE", "3");
    env_set("MPI_LOCALRANKID", "2");
    env_set("MPI_LOCALNRANKS", "3");
    env_set("PMI_FD", "5");
    o.hostname = "h1";
    r = mpi_with(o);
    assert_string_equal(resolved_json(r), dq("{'worker': ['h1:8888', 'h1:8889', 'h1:8890']}"));
    expect_task(r, "worker", 2);
    cres_resolver_free(r);
    /* the local rank must agree with the one host's placement */
    env_set("MPI_LOCALRANKID", "0");
    MPI_FAILS(o, CRES_ERR_ENVIRONMENT, "rank 2", NULL);
}

/* MVAPICH: MV2_COMM_WORLD_*. */
static void mvapich_variables(void **state) {
    cres_mpi_options o = mpi_options();
    cres_resolver *r;
    (void)state;
    env_set("MV2_COMM_WORLD_RANK", "1");
    env_set("MV2_COMM_WORLD_SIZE", "2");
    env_set("MV2_COMM_WORLD_LOCAL_RANK", "1");
    env_set("MV2_COMM_WORLD_LOCAL_SIZE", "2");
    o.hostname = "ib0";
    o.port_base = 5000;
    r = mpi_with(o);
    assert_string_equal(resolved_json(r), dq("{'worker': ['ib0:5000', 'ib0:5001']}"));
    expect_task(r, "worker", 1);
    cres_resolver_free(r);
}

/* Open MPI sets PMIX_RANK too; OMPI_* decide. */
/* Open MPI's names are read, and PMIx's rank, which Open MPI sets too, must be the same. */
static void open_mpi_wins_over_pmix(void **state) {
    cres_mpi_options o = mpi_options();
    cres_resolver *r;
    (void)state;
    env_lines(mpirun_np4_rank0);
    env_set("OMPI_COMM_WORLD_RANK", "3");
    env_set("OMPI_COMM_WORLD_LOCAL_RANK", "3");
    env_set("PMIX_RANK", "3");
    r = mpi();
    expect_task(r, "worker", 3);
    cres_resolver_free(r);
    env_set("PMIX_RANK", "1");
    MPI_FAILS(o, CRES_ERR_ENVIRONMENT, "PMIX_RANK=1", "OMPI_COMM_WORLD_RANK gives 3");
}

static void no_mpi_variables_is_environment_error(void **state) {
    cres_mpi_options o = mpi_options();
    (void)state;
    MPI_FAILS(o, CRES_ERR_ENVIRONMENT, "OMPI_COMM_WORLD_RANK", "PMI_RANK");
    /* Slurm variables alone are not MPI */
    step("n[1-2]", "1(x2)", 2, 0);
    MPI_FAILS(o, CRES_ERR_ENVIRONMENT, "no MPI launcher", NULL);
}

static void malformed_mpi_variables_are_named(void **state) {
    cres_mpi_options o = mpi_options();
    (void)state;
    env_lines(mpirun_np4_rank0);
    env_set("OMPI_COMM_WORLD_RANK", "4");
    MPI_FAILS(o, CRES_ERR_ENVIRONMENT, "OMPI_COMM_WORLD_RANK", "\"4\"");
    env_set("OMPI_COMM_WORLD_RANK", "0");
    env_unset("OMPI_COMM_WORLD_SIZE");
    MPI_FAILS(o, CRES_ERR_ENVIRONMENT, "OMPI_COMM_WORLD_SIZE", "not set");
    env_set("OMPI_COMM_WORLD_SIZE", "four");
    MPI_FAILS(o, CRES_ERR_ENVIRONMENT, "OMPI_COMM_WORLD_SIZE", "\"four\"");
    env_set("OMPI_COMM_WORLD_SIZE", "4");
    env_set("OMPI_COMM_WORLD_LOCAL_SIZE", "5");
    MPI_FAILS(o, CRES_ERR_ENVIRONMENT, "OMPI_COMM_WORLD_LOCAL_SIZE", NULL);
    env_set("OMPI_COMM_WORLD_LOCAL_SIZE", "4");
    env_set("OMPI_COMM_WORLD_LOCAL_RANK", "4");
    MPI_FAILS(o, CRES_ERR_ENVIRONMENT, "OMPI_COMM_WORLD_LOCAL_RANK", NULL);
    /* a local rank without its size is still read: below the world size, and checked */
    env_reset();
    env_set("OMPI_COMM_WORLD_RANK", "0");
    env_set("OMPI_COMM_WORLD_SIZE", "1");
    env_set("OMPI_COMM_WORLD_LOCAL_RANK", "1");
    MPI_FAILS(o, CRES_ERR_ENVIRONMENT, "OMPI_COMM_WORLD_LOCAL_RANK=\"1\" is not an integer from 0 to 0", NULL);
    /* Cray PALS's local rank (PMI_LOCAL_RANK; it sets no PMI_LOCAL_SIZE) against the hosts */
    env_reset();
    o.hostfile = temp_file("10.0.0.1\n10.0.0.1\n");
    env_set("PMI_RANK", "1");
    env_set("PMI_SIZE", "2");
    env_set("PMI_LOCAL_RANK", "0");
    MPI_FAILS(o, CRES_ERR_ENVIRONMENT, "rank 1 should be task 1 of 2", "task 0 (PMI_LOCAL_RANK, PMI_LOCAL_SIZE)");
    /* PMIx's rank alone: which variable lacks a size is named */
    env_reset();
    o.hostfile = NULL;
    env_set("PMIX_RANK", "0");
    MPI_FAILS(o, CRES_ERR_ENVIRONMENT, "PMIx's PMIX_RANK gives no world size", NULL);
    env_set("PMIX_RANK", NULL);
    env_set("PMI_RANK", "0");
    env_set("PMI_SIZE", "2");
    MPI_FAILS(o, CRES_ERR_ENVIRONMENT, "the PMI_SIZE=2 ranks run on several hosts", NULL);
}

/* srun --mpi=pmix: PMIX_RANK and the step's variables, no OMPI_* (as captured under Slurm 22.05). */
static void pmix_under_srun_uses_the_slurm_step(void **state) {
    cres_resolver *r;
    (void)state;
    env_lines(srun_n4_n8_rank5);
    env_set("PMIX_RANK", "5");
    env_set("PMIX_NAMESPACE", "slurm.pmix.5.0");
    r = mpi();
    assert_string_equal(resolved_json(r), dq(N4N8_BLOCK));
    expect_task(r, "worker", 5);
    cres_resolver_free(r);
}

static void pmix_under_srun_cyclic(void **state) {
    cres_resolver *r;
    (void)state;
    env_lines(srun_n4_n8_rank5);
    env_set("SLURM_DISTRIBUTION", "cyclic");
    env_set("SLURM_PROCID", "6");
    env_set("SLURM_NODEID", "0");
    env_set("SLURMD_NODENAME", "node1");
    env_set("SLURM_GTIDS", n4n8_cyclic_gtids[0]);
    env_set("SLURM_LOCALID", "2");
    env_set("PMIX_RANK", "6");
    r = mpi();
    assert_string_equal(resolved_json(r), dq(N4N8_CYCLIC));
    expect_task(r, "worker", 6);
    assert_string_equal(master_of(r, NULL, -1, NULL), "grpc://node1:8890");
    cres_resolver_free(r);
}

/* srun --mpi=pmi2 sets PMI_RANK and PMI_SIZE, equal to Slurm's. */
static void pmi2_under_srun_uses_the_slurm_step(void **state) {
    cres_resolver *r;
    (void)state;
    env_lines(srun_n4_n8_rank5);
    env_set("PMI_RANK", "5");
    env_set("PMI_SIZE", "8");
    env_set("PMI_FD", "7");
    env_set("PMI_JOBID", "5.0");
    r = mpi();
    assert_string_equal(resolved_json(r), dq(N4N8_BLOCK));
    expect_task(r, "worker", 5);
    cres_resolver_free(r);
}

/* srun's step is the MPI job's only when it says the same of the own rank: Hydra's local
   rank and size equal to SLURM_LOCALID and the node's tasks (the step's then serves, and
   gives the local rank when SLURM_LOCALID is missing); a local rank that differs, or no
   SLURM_NODEID to say which node, and the step is not taken: nothing else says where the
   ranks run. */
static void pmi2_under_srun_local_names_must_be_the_steps(void **state) {
    cres_mpi_options o = mpi_options();
    cres_resolver *r;
    (void)state;
    env_lines(srun_n4_n8_rank5);
    env_set("PMI_RANK", "5");
    env_set("PMI_SIZE", "8");
    env_set("MPI_LOCALRANKID", "1");
    env_set("MPI_LOCALNRANKS", "2");
    r = mpi();
    assert_string_equal(resolved_json(r), dq(N4N8_BLOCK));
    expect_task(r, "worker", 5);
    cres_resolver_free(r);
    env_unset("SLURM_LOCALID");
    r = mpi();
    assert_string_equal(resolved_json(r), dq(N4N8_BLOCK));
    LAUNCH_IS(r, 8, 5, 1, 2, 1, 4, "node1", 8888, "node1:8888");
    cres_resolver_free(r);
    env_set("SLURM_LOCALID", "1");
    env_unset("MPI_LOCALNRANKS");
    env_set("MPI_LOCALRANKID", "0");
    MPI_FAILS(o, CRES_ERR_ENVIRONMENT, "the PMI_SIZE=8 ranks run on several hosts", "hostfile");
    env_set("MPI_LOCALRANKID", "1");
    env_unset("SLURM_NODEID");
    MPI_FAILS(o, CRES_ERR_ENVIRONMENT, "the PMI_SIZE=8 ranks run on several hosts", "hostfile");
}

static void pmix_without_slurm_needs_a_hostfile(void **state) {
    cres_mpi_options o = mpi_options();
    (void)state;
    env_set("PMIX_RANK", "1");
    MPI_FAILS(o, CRES_ERR_ENVIRONMENT, "PMIx", "hostfile");
    /* a Slurm step that is not the MPI job's (another rank) does not count */
    env_lines(srun_n4_n8_rank5);
    MPI_FAILS(o, CRES_ERR_ENVIRONMENT, "PMIx", "hostfile");
}

/* mpirun inside `sbatch -N2 --ntasks-per-node=2` (envs/openmpi/ompi-under-slurm-3.out):
   each rank sees the orted step's Slurm variables; OMPI_* are right and win. */
static void ompi_under_slurm_rank(int rank) {
    static const int procid[4] = {0, 0, 1, 1};
    ompi_rank(rank, 4, rank % 2, 2);
    env_setf("SLURM_PROCID", "%d", procid[rank]);
    env_set("SLURM_NTASKS", "2");
    env_set("SLURM_STEP_NUM_TASKS", "2");
    env_set("SLURM_LOCALID", "0");
    env_setf("SLURM_NODEID", "%d", procid[rank]);
    env_setf("SLURMD_NODENAME", "node%d", procid[rank] + 1);
    env_set("SLURM_STEP_NODELIST", "node[1-2]");
    env_set("SLURM_STEP_TASKS_PER_NODE", "1(x2)");
    env_set("SLURM_JOB_NODELIST", "node[1-2]");
    env_set("SLURM_JOB_ID", "3");
    env_set("PMIX_HOSTNAME", "vm");
}

static void mpirun_inside_sbatch(void rank_env(int), int rank) {
    cres_resolver *r;
    env_reset();
    rank_env(rank);
    r = mpi();
    assert_string_equal(resolved_json(r), dq("{'worker': ['node1:8888', 'node1:8889', 'node2:8888', 'node2:8889']}"));
    expect_task(r, "worker", rank);
    cres_resolver_free(r);
}

static void mpirun_inside_sbatch_mpi_wins(void **state) {
    int rank;
    (void)state;
    for (rank = 0; rank < 4; rank++) mpirun_inside_sbatch(ompi_under_slurm_rank, rank);
}

/* GPUs of MPI ranks inside Slurm: Slurm's word holds. mpirun's ranks share their orted's
   step list, which is the node's when SLURM_GPUS_ON_NODE counts it (split by the MPI local
   rank); srun's own ranks (PMIx) bound with --gpus-per-task keep theirs. */
static void mpi_gpus_inside_slurm(void **state) {
    cres_resolver *r;
    (void)state;
    ompi_under_slurm_rank(3);
    step_gpus("0,1,2,3");
    r = mpi();
    assert_int_equal(gpus_of(r), 2);
    assert_string_equal(devices_of(r, NULL, -1), "2,3");
    cres_resolver_free(r);
    env_reset();
    env_lines(srun_n4_n8_rank5);
    env_set("PMIX_RANK", "5");
    env_set("SLURM_GPUS_ON_NODE", "2");
    env_set("CUDA_VISIBLE_DEVICES", "1");
    r = mpi();
    assert_int_equal(gpus_of(r), 1);
    assert_string_equal(devices_of(r, NULL, -1), "");
    cres_resolver_free(r);
    /* IBM Spectrum MPI under jsrun: the resource set's list */
    env_reset();
    ompi_rank(1, 2, 1, 2);
    env_set("JSM_NAMESPACE_RANK", "1");
    env_set("JSM_NAMESPACE_SIZE", "2");
    env_set("CUDA_VISIBLE_DEVICES", "0,1");
    r = mpi();
    assert_int_equal(gpus_of(r), 2);
    assert_string_equal(devices_of(r, NULL, -1), "");
    cres_resolver_free(r);
}

static void mpirun_inside_sbatch_inconsistent(void **state) {
    cres_mpi_options o = mpi_options();
    (void)state;
    /* 3 ranks over 2 nodes: not a whole number per node */
    ompi_under_slurm_rank(2);
    env_set("OMPI_COMM_WORLD_SIZE", "3");
    env_set("OMPI_COMM_WORLD_LOCAL_SIZE", "1");
    env_set("OMPI_COMM_WORLD_LOCAL_RANK", "0");
    MPI_FAILS(o, CRES_ERR_ENVIRONMENT, "hostfile", NULL);
    /* --map-by node: rank 1 on node2 as its task 0, where a block puts it on node1 */
    env_reset();
    ompi_under_slurm_rank(1);
    env_set("SLURM_NODEID", "1");
    env_set("SLURMD_NODENAME", "node2");
    env_set("OMPI_COMM_WORLD_LOCAL_RANK", "0");
    MPI_FAILS(o, CRES_ERR_ENVIRONMENT, "rank 1", NULL);
    /* the node's two names disagree */
    env_set("SLURMD_NODENAME", "node1");
    MPI_FAILS(o, CRES_ERR_ENVIRONMENT, "SLURMD_NODENAME=\"node1\"", "SLURM_NODEID=1 is \"node2\"");
    /* no SLURM_NODEID to check against */
    env_reset();
    ompi_under_slurm_rank(1);
    env_unset("SLURM_NODEID");
    MPI_FAILS(o, CRES_ERR_ENVIRONMENT, "SLURM_NODEID", NULL);
    /* a mapping Open MPI names that the step's equal counts cannot follow */
    env_reset();
    ompi_under_slurm_rank(1);
    env_set("OMPI_MCA_rmaps_base_mapping_policy", "ppr:1:node");
    MPI_FAILS(o, CRES_ERR_UNSUPPORTED, "OMPI_MCA_rmaps_base_mapping_policy=\"ppr:1:node\" is not supported", NULL);
}

/* The orted step's own counts are not read when they are unreadable (an empty SLURM_PROCID
   or SLURM_STEP_NUM_TASKS): the step cannot be srun's ranks, and Open MPI's names place the
   ranks on its nodes as before. An empty mapping policy is the default, by slot. */
static void mpirun_inside_sbatch_unreadable_step_counts(void **state) {
    static const char *const names[] = {"SLURM_PROCID", "SLURM_STEP_NUM_TASKS"};
    size_t i;
    (void)state;
    for (i = 0; i < 2; i++) {
        cres_resolver *r;
        env_reset();
        ompi_under_slurm_rank(2);
        env_set(names[i], "");
        env_set("OMPI_MCA_rmaps_base_mapping_policy", "");
        r = mpi();
        assert_string_equal(resolved_json(r), dq("{'worker': ['node1:8888', 'node1:8889', 'node2:8888', 'node2:8889']}"));
        expect_task(r, "worker", 2);
        assert_string_equal(master_of(r, NULL, -1, ""), "node2:8888");
        cres_resolver_free(r);
    }
}

/* mpirun -np 2 inside `sbatch -N2 --ntasks-per-node=2`: both ranks fill node1's two slots,
   while Open MPI starts one orted per node of the allocation, so the orted step has two
   tasks and rank 0's orted is Slurm task 0. Every rank must get the same answer: both
   ranks on one host. */
static void mpirun_np2_inside_two_node_allocation(void **state) {
    int rank;
    (void)state;
    for (rank = 0; rank < 2; rank++) {
        cres_resolver *r;
        env_reset();
        ompi_rank(rank, 2, rank, 2);
        env_set("SLURM_PROCID", "0");
        env_set("SLURM_NTASKS", "2");
        env_set("SLURM_STEP_NUM_TASKS", "2");
        env_set("SLURM_LOCALID", "0");
        env_set("SLURM_NODEID", "0");
        env_set("SLURMD_NODENAME", "node1");
        env_set("SLURM_STEP_NODELIST", "node[1-2]");
        env_set("SLURM_STEP_TASKS_PER_NODE", "1(x2)");
        env_set("SLURM_JOB_ID", "3");
        env_set("PMIX_HOSTNAME", "node1");
        r = mpi();
        assert_string_equal(resolved_json(r), dq("{'worker': ['node1:8888', 'node1:8889']}"));
        expect_task(r, "worker", rank);
        cres_resolver_free(r);
    }
}

static void several_hosts_without_a_source_need_a_hostfile(void **state) {
    cres_mpi_options o = mpi_options();
    (void)state;
    /* --host fakenode1:2,fakenode2:2 -np 4 (as captured under Open MPI 4.1): nothing says which hosts */
    env_lines(mpirun_np4_rank0);
    ompi_rank(2, 4, 0, 2);
    MPI_FAILS(o, CRES_ERR_ENVIRONMENT, "several hosts", "hostfile");
    /* no local size at all */
    env_unset("OMPI_COMM_WORLD_LOCAL_SIZE");
    env_unset("OMPI_COMM_WORLD_LOCAL_RANK");
    MPI_FAILS(o, CRES_ERR_ENVIRONMENT, "hostfile", NULL);
}

static void mpi_jobs_gpus_and_ports(void **state) {
    cres_mpi_options o = mpi_options();
    static const cres_job_count jobs[] = {{"worker", 3}, {"chief", 1}};
    cres_resolver *r;
    (void)state;
    env_lines(mpirun_np4_rank0);
    ompi_rank(1, 4, 1, 4);
    env_set("CUDA_VISIBLE_DEVICES", "0,1,2,3,4,5,6,7");
    o.jobs = jobs;
    o.jobs_count = 2;
    o.port_base = 3000;
    r = mpi_with(o);
    assert_string_equal(resolved_json(r), dq("{'chief': ['vm:3000'], 'worker': ['vm:3001', 'vm:3002', 'vm:3003']}"));
    expect_task(r, "worker", 0);
    /* mpirun says nothing of GPUs: each rank keeps the list it has, and counts it */
    assert_int_equal(gpus_of(r), 8);
    assert_string_equal(devices_of(r, NULL, -1), "");
    assert_string_equal(devices_of(r, "chief", 0), "");
    cres_resolver_free(r);
    o.gpus_per_node = 8; /* the caller says the list is the node's: split among 4 ranks */
    r = mpi_with(o);
    assert_int_equal(gpus_of(r), 2);
    assert_string_equal(devices_of(r, NULL, -1), "2,3");
    assert_string_equal(devices_of(r, "chief", 0), "0,1");
    cres_resolver_free(r);
    o.gpus_per_node = 0;
    o.jobs_count = 1; /* worker 3 of 4 ranks */
    MPI_FAILS(o, CRES_ERR_ENVIRONMENT, "mpi: options.jobs ask for 3 tasks", "started 4");
}

/* ---------------------------------------------------------------------------------------
   MPI hostfiles */

static void hostfile_open_mpi_format(void **state) {
    cres_mpi_options o = mpi_options();
    cres_resolver *r;
    (void)state;
    o.hostfile = temp_file("# the job's nodes\n"
                           "\n"
                           "node1 slots=2 max_slots=4\n"
                           "   node2   slots=1   # one GPU box\n"
                           "node3\n"
                           "\t\n"
                           "node1 slots=1\n");
    env_lines(mpirun_np4_rank0);
    ompi_rank(2, 5, 2, 3);
    r = mpi_with(o);
    /* node1 has 2 + 1 slots, in its first line's place */
    assert_string_equal(resolved_json(r),
                        dq("{'worker': ['node1:8888', 'node1:8889', 'node1:8890', 'node2:8888', 'node3:8888']}"));
    expect_task(r, "worker", 2);
    assert_string_equal(master_of(r, NULL, -1, NULL), "grpc://node1:8890");
    cres_resolver_free(r);
}

/* Tabs between words, CRLF line ends with blank lines and trailing blanks, and the other
   spellings of a count Open MPI's files use (slots:N, max-slots=N). */
static void hostfile_tabs_crlf_and_count_spellings(void **state) {
    cres_mpi_options o = mpi_options();
    cres_resolver *r;
    (void)state;
    o.hostfile = temp_file("n1\tslots=2\tmax-slots=4\r\n"
                           "\r\n"
                           "n2 slots:1 \r\n"
                           "n3\r\n");
    env_lines(mpirun_np4_rank0);
    ompi_rank(3, 4, 0, 1);
    r = mpi_with(o);
    assert_string_equal(resolved_json(r), dq("{'worker': ['n1:8888', 'n1:8889', 'n2:8888', 'n3:8888']}"));
    expect_task(r, "worker", 3);
    cres_resolver_free(r);
}

static void hostfile_mpich_format(void **state) {
    cres_mpi_options o = mpi_options();
    cres_resolver *r;
    (void)state;
    o.hostfile = temp_file("a1:2\r\na2:2\r\n");
    env_set("PMI_RANK", "3");
    env_set("PMI_SIZE", "4");
    r = mpi_with(o);
    assert_string_equal(resolved_json(r), dq("{'worker': ['a1:8888', 'a1:8889', 'a2:8888', 'a2:8889']}"));
    expect_task(r, "worker", 3);
    cres_resolver_free(r);
}

static void hostfile_wins_over_the_environment(void **state) {
    cres_mpi_options o = mpi_options();
    cres_resolver *r;
    (void)state;
    o.hostfile = temp_file("fakenode1 slots=2\nfakenode2 slots=2\n");
    env_lines(mpirun_np4_rank0);
    ompi_rank(3, 4, 1, 2);
    r = mpi_with(o);
    assert_string_equal(resolved_json(r),
                        dq("{'worker': ['fakenode1:8888', 'fakenode1:8889', 'fakenode2:8888', 'fakenode2:8889']}"));
    expect_task(r, "worker", 3);
    cres_resolver_free(r);
    /* also over a Slurm step */
    env_reset();
    ompi_under_slurm_rank(3);
    r = mpi_with(o);
    assert_string_equal(resolved_json(r),
                        dq("{'worker': ['fakenode1:8888', 'fakenode1:8889', 'fakenode2:8888', 'fakenode2:8889']}"));
    cres_resolver_free(r);
}

static void hostfile_more_ranks_than_slots_is_an_error(void **state) {
    cres_mpi_options o = mpi_options();
    (void)state;
    o.hostfile = temp_file("h1 slots=2\nh2 slots=1\n");
    env_lines(mpirun_np4_rank0);
    ompi_rank(0, 4, 0, 2);
    MPI_FAILS(o, CRES_ERR_ENVIRONMENT, "3 slots", "4 ranks");
}

static void hostfile_fewer_ranks_leave_later_hosts_out(void **state) {
    cres_mpi_options o = mpi_options();
    cres_resolver *r;
    (void)state;
    o.hostfile = temp_file("h1 slots=2\nh2 slots=2\nh3 slots=2\n");
    env_lines(mpirun_np4_rank0);
    ompi_rank(2, 3, 0, 1);
    r = mpi_with(o);
    assert_string_equal(resolved_json(r), dq("{'worker': ['h1:8888', 'h1:8889', 'h2:8888']}"));
    expect_task(r, "worker", 2);
    cres_resolver_free(r);
}

/* mpirun --map-by node (3 + 1 slots, 4 ranks): ranks go round-robin over the hosts that have
   room, as Open MPI placed them: 0 h1, 1 h2, 2 h1, 3 h1. --rank-by node alone deals the
   slot-mapped counts the same way; policies we cannot follow are refused. */
static void hostfile_map_and_rank_by_node(void **state) {
    cres_mpi_options o = mpi_options();
    cres_resolver *r;
    (void)state;
    o.hostfile = temp_file("h1 slots=3\nh2 slots=1\n");
    env_lines(mpirun_np4_rank0);
    ompi_rank(1, 4, 0, 1);
    env_set("OMPI_MCA_rmaps_base_mapping_policy", "node");
    r = mpi_with(o);
    assert_string_equal(resolved_json(r), dq("{'worker': ['h1:8888', 'h2:8888', 'h1:8889', 'h1:8890']}"));
    expect_task(r, "worker", 1);
    cres_resolver_free(r);
    /* 3 ranks on 2 + 2 slots: the second round places one, on h1 */
    o.hostfile = temp_file("h1 slots=2\nh2 slots=2\n");
    ompi_rank(2, 3, 1, 2);
    r = mpi_with(o);
    assert_string_equal(resolved_json(r), dq("{'worker': ['h1:8888', 'h2:8888', 'h1:8889']}"));
    expect_task(r, "worker", 2);
    assert_string_equal(master_of(r, NULL, -1, ""), "h1:8889");
    cres_resolver_free(r);
    ompi_rank(2, 4, 1, 2);
    env_set("OMPI_MCA_rmaps_base_mapping_policy", "core");
    env_set("OMPI_MCA_rmaps_base_ranking_policy", "node");
    r = mpi_with(o);
    assert_string_equal(resolved_json(r), dq("{'worker': ['h1:8888', 'h2:8888', 'h1:8889', 'h2:8889']}"));
    cres_resolver_free(r);
    env_set("OMPI_MCA_rmaps_base_ranking_policy", NULL);
    env_set("OMPI_MCA_rmaps_base_mapping_policy", "ppr:2:node");
    MPI_FAILS(o, CRES_ERR_UNSUPPORTED, "OMPI_MCA_rmaps_base_mapping_policy", "ppr:2:node");
}

/* IPv6 literals become "[v6]:port"; a name that an address reader could not split back
   (':' outside IPv6, brackets) is refused, whichever source names it. */
static void host_names_are_addresses(void **state) {
    cres_mpi_options o = mpi_options();
    cres_slurm_options so = slurm_options();
    cres_sagemaker_options sm;
    cres_resolver *r;
    (void)state;
    o.hostfile = temp_file("fd00::1 slots=2\n10.0.0.7 slots=1\n");
    env_lines(mpirun_np4_rank0);
    ompi_rank(1, 3, 1, 2);
    r = mpi_with(o);
    assert_string_equal(resolved_json(r), dq("{'worker': ['[fd00::1]:8888', '[fd00::1]:8889', '10.0.0.7:8888']}"));
    cres_resolver_free(r);
    o.hostfile = temp_file("h2::x slots=2\nh3\n");
    MPI_FAILS(o, CRES_ERR_ENVIRONMENT, "h2::x", "IPv6");
    o.hostfile = temp_file("[x slots=2\nh3\n");
    MPI_FAILS(o, CRES_ERR_ENVIRONMENT, "[x", "host name");
    env_reset();
    step("a:b", "1", 1, 0);
    SLURM_FAILS(so, CRES_ERR_ENVIRONMENT, "a:b", "host name");
    env_reset();
    memset(&sm, 0, sizeof sm);
    sm.hosts = "[\"algo-1\", \"a:b\"]";
    sm.current_host = "algo-1";
    {
        cres_error err;
        EXPECT(cres_sagemaker_resolver_create(&sm, &r, &err), CRES_ERR_ENVIRONMENT);
        assert_non_null(strstr(err.message, "a:b"));
    }
}

/* Job counts near INT_MAX are checked against the step before ranks are counted out. */
static void huge_job_counts_do_not_overflow(void **state) {
    static const cres_job_count jobs[] = {{"a", 1}, {"b", 2147483647}};
    cres_slurm_options o = slurm_options();
    (void)state;
    step("n[1-2]", "1(x2)", 2, 0);
    o.jobs = jobs;
    o.jobs_count = 2;
    SLURM_FAILS(o, CRES_ERR_ENVIRONMENT, "2147483648", "2");
}

static void hostfile_bad_lines_name_the_line(void **state) {
    static const struct {
        const char *text, *sub1, *sub2;
    } bad[] = {
        {"h1 slots=2\nh2 slots=x\n", "line 2", "\"slots=x\""},
        {"h1 slots=0\n", "line 1", "\"slots=0\""},
        {"h1 slots=2\n\n# c\nh2 cpus=4\n", "line 4", "\"cpus=4\""},
        {"h1:x\n", "line 1", "\"h1:x\""},
        {"h1:0\n", "line 1", "\"h1:0\""},
        {":4\n", "line 1", "host name"},
        {"h1 max_slots=-1\n", "line 1", "max_slots"},
        {"h1 slots=1000001\n", "line 1", "\"slots=1000001\""},
        {"h1 slotss=2\n", "line 1", "\"slotss=2\" is not slots=N"},
        {"h1\nh2:1000001\n", "line 2", "\"h2:1000001\" is not host:N with N from 1 to 1000000"},
        {"# nothing\n\n", "no host", NULL},
        {"", "no host", NULL},
    };
    size_t i;
    (void)state;
    for (i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        cres_mpi_options o = mpi_options();
        static int sentinel;
        cres_resolver *r = (cres_resolver *)(void *)&sentinel;
        cres_error err;
        cres_result got;
        o.hostfile = temp_file(bad[i].text);
        env_reset();
        env_lines(mpirun_np4_rank0);
        got = cres_mpi_resolver_create(&o, &r, &err);
        if (got == CRES_OK) cres_resolver_free(r);
        if (got != CRES_ERR_ENVIRONMENT)
            fail_msg("hostfile %zu: got %s: %s", i, cres_result_string(got), err.message);
        if (r) fail_msg("hostfile %zu: a resolver came back on failure", i);
        if (!strstr(err.message, bad[i].sub1) || (bad[i].sub2 && !strstr(err.message, bad[i].sub2)))
            fail_msg("hostfile %zu: \"%s\" does not contain \"%s\" and \"%s\"", i, err.message, bad[i].sub1,
                     bad[i].sub2 ? bad[i].sub2 : "");
    }
}

static void hostfile_missing_is_an_error(void **state) {
    cres_mpi_options o = mpi_options();
    (void)state;
    o.hostfile = "/nonexistent/test_hpc/hostfile";
    env_lines(mpirun_np4_rank0);
    MPI_FAILS(o, CRES_ERR_ENVIRONMENT, "/nonexistent/test_hpc/hostfile", NULL);
    /* PMIx alone gives no world size to place */
    o.hostfile = temp_file("h1 slots=4\n");
    env_reset();
    env_set("PMIX_RANK", "0");
    MPI_FAILS(o, CRES_ERR_ENVIRONMENT, "PMIx", NULL);
}

/* mpirun --map-by node over the two fake hosts: rank 1 runs on fakenode2 as its task 0,
   where the hostfile's slot order puts it on fakenode1: refuse rather than mislead. */
static void hostfile_local_rank_inconsistent_is_an_error(void **state) {
    cres_mpi_options o = mpi_options();
    (void)state;
    o.hostfile = temp_file("fakenode1 slots=2\nfakenode2 slots=2\n");
    env_lines(mpirun_np4_rank0);
    ompi_rank(1, 4, 0, 2);
    MPI_FAILS(o, CRES_ERR_ENVIRONMENT, "rank 1", NULL);
    /* the local size disagrees: 3 ranks on a host given 2 slots */
    ompi_rank(0, 4, 0, 3);
    MPI_FAILS(o, CRES_ERR_ENVIRONMENT, "rank 0", NULL);
}

/* ---------------------------------------------------------------------------------------
   SageMaker */

static cres_sagemaker_options sm_options(void) {
    cres_sagemaker_options o;
    memset(&o, 0, sizeof o);
    o.config = &cfg;
    o.resource_config = NULL; /* /opt/ml/input/config/resourceconfig.json: absent here */
    return o;
}

static cres_resolver *sagemaker_with(cres_sagemaker_options o) {
    cres_resolver *r = NULL;
    cres_error err;
    OK(cres_sagemaker_resolver_create(&o, &r, &err));
    assert_non_null(r);
    assert_string_equal(cres_resolver_name(r), "sagemaker");
    return r;
}

#define SM_FAILS(opts, want, sub1, sub2) FAILS_WITH(cres_sagemaker_resolver_create, opts, want, sub1, sub2)

static void sm_env(const char *hosts, const char *current) {
    env_set("SM_HOSTS", hosts);
    env_set("SM_CURRENT_HOST", current);
}

#define ALGO12 "[\"algo-1\",\"algo-2\"]"

/* TF M1 */
static void m1_cluster_spec(void **state) {
    cres_resolver *r;
    (void)state;
    sm_env(ALGO12, "algo-2");
    r = sagemaker_with(sm_options());
    assert_string_equal(resolved_json(r), dq("{'worker': ['algo-1:2223', 'algo-2:2223']}"));
    expect_task(r, "worker", 1);
    assert_null(cres_rpc_layer(r)); /* TF: none */
    assert_null(cres_environment(r));
    cres_resolver_free(r);
}

/* TF M2 */
static void m2_master(void **state) {
    cres_resolver *r;
    (void)state;
    sm_env(ALGO12, "algo-1");
    r = sagemaker_with(sm_options());
    assert_string_equal(master_of(r, NULL, -1, NULL), "algo-1:2223");
    cres_resolver_free(r);
}

/* TF M3 */
static void m3_master_of_given_task(void **state) {
    cres_resolver *r;
    (void)state;
    sm_env(ALGO12, "algo-2");
    r = sagemaker_with(sm_options());
    assert_string_equal(master_of(r, "worker", 1, NULL), "algo-2:2223");
    assert_string_equal(master_of(r, "worker", 0, NULL), "algo-1:2223");
    cres_resolver_free(r);
}

/* TF M4 */
static void m4_rpc_layer_option(void **state) {
    cres_sagemaker_options o = sm_options();
    cres_resolver *r;
    (void)state;
    sm_env(ALGO12, "algo-1");
    o.rpc_layer = "grpc";
    r = sagemaker_with(o);
    assert_string_equal(master_of(r, NULL, -1, NULL), "grpc://algo-1:2223");
    cres_resolver_free(r);
}

/* TF M5 */
static void m5_task_options_and_setters(void **state) {
    cres_sagemaker_options o = sm_options();
    cres_resolver *r;
    cres_error err;
    (void)state;
    sm_env(ALGO12, "algo-1");
    o.task_type = "worker";
    o.task_id = 0;
    r = sagemaker_with(o);
    assert_string_equal(master_of(r, NULL, -1, NULL), "algo-1:2223");
    expect_task(r, "worker", 0);
    OK(cres_set_task(r, "worker", 1, &err));
    OK(cres_set_rpc_layer(r, "test", &err));
    assert_string_equal(master_of(r, NULL, -1, NULL), "test://algo-2:2223");
    expect_task(r, "worker", 1);
    assert_string_equal(cres_rpc_layer(r), "test");
    (void)resolved_json(r);
    expect_task(r, "worker", 1);
    cres_resolver_free(r);
}

/* TF M6 */
static void m6_task_id(void **state) {
    cres_sagemaker_options o = sm_options();
    cres_resolver *r;
    (void)state;
    cres_error err;
    sm_env(ALGO12, "algo-1");
    o.task_type = "worker";
    o.task_id = 1;
    r = sagemaker_with(o);
    assert_int_equal(cres_task_id(r), 1);
    cres_resolver_free(r);
    /* TF takes task_id=1 alone; ours is read only with task_type, so alone it is refused */
    o.task_type = NULL;
    r = NULL;
    EXPECT(cres_sagemaker_resolver_create(&o, &r, &err), CRES_ERR_INVALID_ARGUMENT);
    assert_string_equal(err.message, "sagemaker: options.task_id 1 is set without "
                                     "options.task_type (set both, or neither)");
    assert_null(r);
}

/* TF M7 gives master() == "": for us an empty SM_HOSTS is an error. */
static void m7_empty_hosts_is_an_error(void **state) {
    cres_sagemaker_options o = sm_options();
    (void)state;
    sm_env("", "");
    SM_FAILS(o, CRES_ERR_ENVIRONMENT, "SM_HOSTS", "empty");
    sm_env("  ", "algo-1");
    SM_FAILS(o, CRES_ERR_ENVIRONMENT, "SM_HOSTS", "empty");
}

/* TF M8 gives an empty cluster: for us a current host not listed is an error. */
static void m8_current_host_not_listed_is_an_error(void **state) {
    cres_sagemaker_options o = sm_options();
    (void)state;
    sm_env("[\"algo-1\"]", "");
    SM_FAILS(o, CRES_ERR_ENVIRONMENT, "SM_CURRENT_HOST", "SM_HOSTS");
    sm_env(ALGO12, "algo-3");
    SM_FAILS(o, CRES_ERR_ENVIRONMENT, "\"algo-3\"", "2 hosts");
    sm_env("[]", "algo-1");
    SM_FAILS(o, CRES_ERR_ENVIRONMENT, "\"algo-1\"", "0 hosts");
}

static void sm_natural_order(void **state) {
    cres_resolver *r;
    (void)state;
    sm_env("[\"algo-10\",\"algo-2\",\"algo-1\"]", "algo-10");
    r = sagemaker_with(sm_options());
    /* TF sorts strings: algo-1, algo-10, algo-2 */
    assert_string_equal(resolved_json(r), dq("{'worker': ['algo-1:2223', 'algo-2:2223', 'algo-10:2223']}"));
    expect_task(r, "worker", 2);
    cres_resolver_free(r);
}

static void sm_duplicate_hosts_are_an_error(void **state) {
    cres_sagemaker_options o = sm_options();
    (void)state;
    sm_env("[\"algo-1\",\"algo-2\",\"algo-1\"]", "algo-1");
    SM_FAILS(o, CRES_ERR_ENVIRONMENT, "\"algo-1\"", "twice");
    /* a duplicate among names that sort as equals (natural order ignores leading zeros) */
    sm_env("[\"algo-1\",\"algo-01\",\"algo-1\"]", "algo-1");
    SM_FAILS(o, CRES_ERR_ENVIRONMENT, "\"algo-1\"", "twice");
}

static void sm_bad_items_and_json(void **state) {
    cres_sagemaker_options o = sm_options();
    (void)state;
    sm_env("[\"algo-1\",2]", "algo-1");
    SM_FAILS(o, CRES_ERR_ENVIRONMENT, "SM_HOSTS", "item 1");
    sm_env("[null]", "algo-1");
    SM_FAILS(o, CRES_ERR_ENVIRONMENT, "SM_HOSTS", "item 0");
    sm_env("[[\"algo-1\"]]", "algo-1");
    SM_FAILS(o, CRES_ERR_ENVIRONMENT, "SM_HOSTS", "item 0");
    sm_env("[\"algo 1\"]", "algo 1");
    SM_FAILS(o, CRES_ERR_ENVIRONMENT, "SM_HOSTS", "host name");
    sm_env("[\"\"]", "");
    SM_FAILS(o, CRES_ERR_ENVIRONMENT, "SM_HOSTS", "host name");
    sm_env("[\"algo-1\"", "algo-1");
    SM_FAILS(o, CRES_ERR_ENVIRONMENT, "SM_HOSTS", "invalid JSON");
    sm_env("['algo-1']", "algo-1");
    SM_FAILS(o, CRES_ERR_ENVIRONMENT, "SM_HOSTS", "invalid JSON");
    sm_env("{\"hosts\": [\"algo-1\"]}", "algo-1");
    SM_FAILS(o, CRES_ERR_ENVIRONMENT, "SM_HOSTS", "list");
    sm_env("\"algo-1\"", "algo-1");
    SM_FAILS(o, CRES_ERR_ENVIRONMENT, "SM_HOSTS", "list");
    sm_env("5", "algo-1");
    SM_FAILS(o, CRES_ERR_ENVIRONMENT, "SM_HOSTS", NULL);
}

#define RESOURCE_CONFIG                                                                    \
    "{\"current_host\": \"algo-1\", \"current_instance_type\": \"ml.p3.16xlarge\", "      \
    "\"current_group_name\": \"homogeneousCluster\", \"hosts\": [\"algo-1\", \"algo-2\"], " \
    "\"instance_groups\": [{\"instance_group_name\": \"homogeneousCluster\", "             \
    "\"instance_type\": \"ml.p3.16xlarge\", \"hosts\": [\"algo-2\", \"algo-1\"]}], "        \
    "\"network_interface_name\": \"eth0\"}\n"

static void sm_resource_config_file(void **state) {
    cres_sagemaker_options o = sm_options();
    cres_resolver *r;
    (void)state;
    o.resource_config = temp_file(RESOURCE_CONFIG);
    r = sagemaker_with(o);
    assert_string_equal(resolved_json(r), dq("{'worker': ['algo-1:2223', 'algo-2:2223']}"));
    expect_task(r, "worker", 0);
    cres_resolver_free(r);
    /* the environment is read where it is set and the file fills in the rest; SageMaker
       writes both, so what the file also says must agree */
    env_set("SM_CURRENT_HOST", "algo-1");
    r = sagemaker_with(o);
    assert_string_equal(resolved_json(r), dq("{'worker': ['algo-1:2223', 'algo-2:2223']}"));
    expect_task(r, "worker", 0);
    cres_resolver_free(r);
    env_set("SM_CURRENT_HOST", "algo-2");
    SM_FAILS(o, CRES_ERR_ENVIRONMENT, "SM_CURRENT_HOST=\"algo-2\"",
             "resource config \"current_host\" is \"algo-1\"");
    env_reset();
    env_set("SM_HOSTS", "[\"algo-2\",\"algo-1\"]"); /* in any order */
    r = sagemaker_with(o);
    assert_string_equal(resolved_json(r), dq("{'worker': ['algo-1:2223', 'algo-2:2223']}"));
    expect_task(r, "worker", 0);
    cres_resolver_free(r);
    env_set("SM_HOSTS", "[\"algo-1\",\"algo-2\",\"algo-3\"]");
    SM_FAILS(o, CRES_ERR_ENVIRONMENT, "SM_HOSTS names 3 hosts and resource config \"hosts\" 2", NULL);
    env_set("SM_HOSTS", "[\"algo-1\",\"algo-3\"]");
    SM_FAILS(o, CRES_ERR_ENVIRONMENT, "not the same: \"algo-3\"", NULL);
}

static void sm_bad_resource_config(void **state) {
    cres_sagemaker_options o = sm_options();
    (void)state;
    o.resource_config = temp_file("{\"hosts\": [\"algo-1\"]}");
    SM_FAILS(o, CRES_ERR_ENVIRONMENT, "current_host", NULL);
    o.resource_config = temp_file("{\"current_host\": \"algo-1\"}");
    SM_FAILS(o, CRES_ERR_ENVIRONMENT, "hosts", "list");
    o.resource_config = temp_file("{\"current_host\": \"algo-1\", \"hosts\": ");
    SM_FAILS(o, CRES_ERR_ENVIRONMENT, "invalid JSON", NULL);
}

static void sm_nothing_set_names_variable_and_file(void **state) {
    cres_sagemaker_options o = sm_options();
    (void)state;
    /* the default file: /opt/ml/input/config/resourceconfig.json (absent on this machine) */
    SM_FAILS(o, CRES_ERR_ENVIRONMENT, "SM_HOSTS", "/opt/ml/input/config/resourceconfig.json");
    o.resource_config = "/nonexistent/test_hpc/resourceconfig.json";
    SM_FAILS(o, CRES_ERR_ENVIRONMENT, "SM_HOSTS", "/nonexistent/test_hpc/resourceconfig.json");
    env_set("SM_HOSTS", ALGO12);
    o.resource_config = NULL;
    SM_FAILS(o, CRES_ERR_ENVIRONMENT, "SM_CURRENT_HOST", "/opt/ml/input/config/resourceconfig.json");
    /* a file named is read even when the variables say it all: it must exist, and agree */
    env_set("SM_CURRENT_HOST", "algo-1");
    o.resource_config = "/nonexistent/test_hpc/resourceconfig.json";
    SM_FAILS(o, CRES_ERR_ENVIRONMENT, "options.resource_config",
             "\"/nonexistent/test_hpc/resourceconfig.json\" cannot be read");
    o.resource_config = temp_file("{\"current_host\": \"algo-2\", \"hosts\": [\"algo-1\", \"algo-2\"]}");
    SM_FAILS(o, CRES_ERR_ENVIRONMENT, "SM_CURRENT_HOST=\"algo-1\"", "\"current_host\" is \"algo-2\"");
    o.resource_config = temp_file("{\"current_host\": \"algo-1\", \"hosts\": [\"algo-1\", \"algo-3\"]}");
    SM_FAILS(o, CRES_ERR_ENVIRONMENT, "SM_HOSTS names 2 hosts", "not the same");
}

/* TF's M8 with the current host set: one host is a local session, master "" (a task given
   still has its address). */
static void sm_single_host_master_is_local(void **state) {
    cres_resolver *r;
    (void)state;
    sm_env("[\"algo-1\"]", "algo-1");
    r = sagemaker_with(sm_options());
    assert_string_equal(master_of(r, NULL, -1, NULL), "");
    assert_string_equal(master_of(r, "worker", 0, NULL), "algo-1:2223");
    cres_resolver_free(r);
    sm_env(ALGO12, "algo-1");
    r = sagemaker_with(sm_options());
    assert_string_equal(master_of(r, NULL, -1, NULL), "algo-1:2223");
    cres_resolver_free(r);
}

static void sm_port_and_job_name_options(void **state) {
    cres_sagemaker_options o = sm_options();
    cres_resolver *r;
    (void)state;
    sm_env(ALGO12, "algo-2");
    o.port = 9000;
    o.job_name = "trainer";
    r = sagemaker_with(o);
    assert_string_equal(resolved_json(r), dq("{'trainer': ['algo-1:9000', 'algo-2:9000']}"));
    expect_task(r, "trainer", 1);
    assert_string_equal(master_of(r, NULL, -1, NULL), "algo-2:9000");
    cres_resolver_free(r);
    o.port = 65536;
    SM_FAILS(o, CRES_ERR_INVALID_ARGUMENT, "port", NULL);
    o.port = -1;
    SM_FAILS(o, CRES_ERR_INVALID_ARGUMENT, "port", NULL);
}

static void sm_hosts_and_current_host_options(void **state) {
    cres_sagemaker_options o = sm_options();
    cres_resolver *r;
    (void)state;
    sm_env("[\"x\"]", "x"); /* the options win */
    o.hosts = "[\"algo-2\", \"algo-1\"]";
    o.current_host = "algo-2";
    r = sagemaker_with(o);
    assert_string_equal(resolved_json(r), dq("{'worker': ['algo-1:2223', 'algo-2:2223']}"));
    expect_task(r, "worker", 1);
    cres_resolver_free(r);
    o.hosts = "[\"algo-1\"]";
    SM_FAILS(o, CRES_ERR_ENVIRONMENT, "options.current_host", "options.hosts");
}

/* A host name of 256 bytes, one past CRES_MAX_NAME_LENGTH, and the document limit. */
#define SM_HOST64 "node-0123456789abcdef0123456789abcdef0123456789abcdef0123456789a"
#define SM_DOCUMENT_LIMIT (16u * 1024u * 1024u) /* CRES_MAX_DOCUMENT_BYTES, the implementation's */

/* Hosts in natural order, "algo-" before "algo1" ('-' sorts before a digit); a name past
   CRES_MAX_NAME_LENGTH is no host name. */
static void sagemaker_host_names(void **state) {
    cres_sagemaker_options o = sm_options();
    cres_resolver *r;
    (void)state;
    env_set("SM_HOSTS", "[\"algo-1\", \"algo1\", \"algo-10\", \"algo-2\"]");
    env_set("SM_CURRENT_HOST", "algo1");
    r = sagemaker_with(o);
    assert_string_equal(resolved_json(r), dq("{'worker': ['algo-1:2223', 'algo-2:2223', 'algo-10:2223', 'algo1:2223']}"));
    expect_task(r, "worker", 3);
    cres_resolver_free(r);
    env_set("SM_HOSTS", "[\"algo-1\", \"" SM_HOST64 SM_HOST64 SM_HOST64 SM_HOST64 "\"]");
    env_set("SM_CURRENT_HOST", "algo-1");
    SM_FAILS(o, CRES_ERR_ENVIRONMENT, "sagemaker: SM_HOSTS: item 1, \"node-0123", "is not a host name");
}

/* The resource config fills in what the environment leaves out, and need not repeat what
   it gives; what both give must agree; a file past 16 MiB is refused unread. */
static void sagemaker_resource_config_beside_the_environment(void **state) {
    cres_sagemaker_options o = sm_options();
    cres_resolver *r;
    char *huge;
    (void)state;
    /* SM_HOSTS from the environment, the current host from a file without "hosts" */
    env_set("SM_HOSTS", "[\"algo-1\", \"algo-2\"]");
    o.resource_config = temp_file("{\"current_host\": \"algo-2\", \"network_interface_name\": \"eth0\"}");
    r = sagemaker_with(o);
    assert_string_equal(resolved_json(r), dq("{'worker': ['algo-1:2223', 'algo-2:2223']}"));
    expect_task(r, "worker", 1);
    cres_resolver_free(r);
    /* SM_CURRENT_HOST from the environment, the hosts from a file without "current_host" */
    env_reset();
    env_set("SM_CURRENT_HOST", "algo-2");
    o.resource_config = temp_file("{\"hosts\": [\"algo-1\", \"algo-2\"]}");
    r = sagemaker_with(o);
    assert_string_equal(resolved_json(r), dq("{'worker': ['algo-1:2223', 'algo-2:2223']}"));
    expect_task(r, "worker", 1);
    cres_resolver_free(r);
    /* SM_HOSTS naming fewer hosts than the file */
    env_reset();
    env_set("SM_HOSTS", "[\"algo-1\"]");
    o.resource_config = temp_file("{\"current_host\": \"algo-1\", \"hosts\": [\"algo-1\", \"algo-2\"]}");
    SM_FAILS(o, CRES_ERR_ENVIRONMENT, "sagemaker: SM_HOSTS names 1 hosts and resource config \"hosts\" 2, not the same", NULL);
    /* one byte past CRES_MAX_DOCUMENT_BYTES (16 MiB by default) */
    huge = (char *)malloc(SM_DOCUMENT_LIMIT + 1);
    assert_non_null(huge);
    memset(huge, ' ', SM_DOCUMENT_LIMIT + 1);
    o.resource_config = temp_file_n(huge, SM_DOCUMENT_LIMIT + 1);
    free(huge);
    SM_FAILS(o, CRES_ERR_LIMIT, "sagemaker: \"/tmp/", "is larger than 16777216 bytes");
}

/* SM_INSTANCE_GROUPS_DICT: a group's "instance_group_name" given twice is an error, like
   every key given twice. */
static void sagemaker_group_name_given_twice(void **state) {
    cres_sagemaker_options o = sm_options();
    (void)state;
    o.instance_groups = 1;
    env_set("SM_HOSTS", "[\"algo-1\", \"algo-2\"]");
    env_set("SM_CURRENT_HOST", "algo-1");
    env_set("SM_CURRENT_INSTANCE_GROUP", "train");
    env_set("SM_INSTANCE_GROUPS_DICT", "{\"train\": {\"instance_group_name\": \"train\", \"instance_group_name\": "
                                       "\"train\", \"instance_type\": \"ml.p4d.24xlarge\", \"hosts\": [\"algo-1\", \"algo-2\"]}}");
    SM_FAILS(o, CRES_ERR_ENVIRONMENT, "sagemaker: SM_INSTANCE_GROUPS_DICT: group \"train\": key \"instance_group_name\" appears twice",
                    NULL);
}

/* ---------------------------------------------------------------------------------------
   SageMaker heterogeneous clusters: a job per instance group (options.instance_groups).
   The fixtures have the shapes of aws/sagemaker-training-toolkit's
   src/sagemaker_training/environment.py: Environment.__init__ reads the resource config's
   "hosts", "current_host" and "current_group_name"; get_instance_groups_dict() maps each
   "instance_group_name" to its "instance_groups" entry; to_env_vars() writes them as
   SM_HOSTS, SM_CURRENT_HOST, SM_CURRENT_INSTANCE_GROUP (plain text), SM_INSTANCE_GROUPS_DICT
   and the other SM_* lists, JSON made by mapping.py's to_env_vars (sorted keys, no spaces).
   Two groups: "train", 2 x ml.p4d.24xlarge (algo-1, algo-2) and "data", 1 x ml.c5.xlarge
   (algo-3). */

#define HETERO_DICT                                                                           \
    "{\"data\":{\"hosts\":[\"algo-3\"],\"instance_group_name\":\"data\",\"instance_type\":"   \
    "\"ml.c5.xlarge\"},\"train\":{\"hosts\":[\"algo-1\",\"algo-2\"],\"instance_group_name\":" \
    "\"train\",\"instance_type\":\"ml.p4d.24xlarge\"}}"
#define HETERO_SPEC "{'data': ['algo-3:2223'], 'train': ['algo-1:2223', 'algo-2:2223']}"

/* The variables the toolkit sets on algo-2 (environment.py to_env_vars). */
static void hetero_env(const char *current, const char *group) {
    env_set("SM_HOSTS", "[\"algo-1\",\"algo-2\",\"algo-3\"]");
    env_set("SM_CURRENT_HOST", current);
    env_set("SM_CURRENT_INSTANCE_TYPE", strcmp(group, "data") == 0 ? "ml.c5.xlarge" : "ml.p4d.24xlarge");
    env_set("SM_CURRENT_INSTANCE_GROUP", group);
    env_set("SM_CURRENT_INSTANCE_GROUP_HOSTS", strcmp(group, "data") == 0 ? "[\"algo-3\"]" : "[\"algo-1\",\"algo-2\"]");
    env_set("SM_INSTANCE_GROUPS", "[\"train\",\"data\"]");
    env_set("SM_INSTANCE_GROUPS_DICT", HETERO_DICT);
    env_set("SM_DISTRIBUTION_INSTANCE_GROUPS", "[\"train\"]");
    env_set("SM_IS_HETERO", "true");
}

static cres_sagemaker_options sm_groups_options(void) {
    cres_sagemaker_options o = sm_options();
    o.instance_groups = 1;
    return o;
}

/* The resource config of that job on algo-2, as SageMaker writes it (environment.py
   read_resource_config's keys); the groups' hosts in no particular order. */
#define HETERO_RESOURCE_CONFIG                                                              \
    "{\"current_host\": \"algo-2\", \"current_instance_type\": \"ml.p4d.24xlarge\", "       \
    "\"current_group_name\": \"train\", \"hosts\": [\"algo-1\", \"algo-2\", \"algo-3\"], "  \
    "\"instance_groups\": [{\"instance_group_name\": \"train\", \"instance_type\": "        \
    "\"ml.p4d.24xlarge\", \"hosts\": [\"algo-2\", \"algo-1\"]}, {\"instance_group_name\": " \
    "\"data\", \"instance_type\": \"ml.c5.xlarge\", \"hosts\": [\"algo-3\"]}], "            \
    "\"network_interface_name\": \"eth0\"}\n"

static void expect_launch(cres_resolver *r, int world, int rank, const char *master) {
    cres_launch_info li;
    cres_error err;
    OK(cres_launch(r, &li, &err));
    assert_int_equal(li.world_size, world);
    assert_int_equal(li.rank, rank);
    assert_int_equal(li.local_rank, 0);
    assert_int_equal(li.local_world_size, 1);
    assert_int_equal(li.node_rank, rank); /* one task per host */
    assert_int_equal(li.num_nodes, world);
    assert_string_equal(li.master_address, master);
}

static void sm_groups_two_groups_from_the_environment(void **state) {
    cres_resolver *r;
    (void)state;
    hetero_env("algo-2", "train");
    r = sagemaker_with(sm_groups_options());
    assert_string_equal(resolved_json(r), dq(HETERO_SPEC));
    expect_task(r, "train", 1);
    assert_string_equal(master_of(r, NULL, -1, NULL), "algo-2:2223");
    assert_string_equal(master_of(r, "data", 0, NULL), "algo-3:2223");
    /* ranks: jobs by name, so data's host is rank 0 (the master) */
    expect_launch(r, 3, 2, "algo-3:2223");
    cres_resolver_free(r);
    env_reset();
    hetero_env("algo-3", "data");
    r = sagemaker_with(sm_groups_options());
    assert_string_equal(resolved_json(r), dq(HETERO_SPEC));
    expect_task(r, "data", 0);
    expect_launch(r, 3, 0, "algo-3:2223");
    cres_resolver_free(r);
    env_reset();
    hetero_env("algo-1", "train");
    r = sagemaker_with(sm_groups_options());
    expect_task(r, "train", 0);
    expect_launch(r, 3, 1, "algo-3:2223");
    cres_resolver_free(r);
}

/* The flat default reads none of the group variables: one "worker" job, as before. */
static void sm_groups_flat_default_unchanged(void **state) {
    cres_sagemaker_options o = sm_options();
    cres_resolver *r;
    (void)state;
    hetero_env("algo-2", "train");
    r = sagemaker_with(o);
    assert_string_equal(resolved_json(r), dq("{'worker': ['algo-1:2223', 'algo-2:2223', 'algo-3:2223']}"));
    expect_task(r, "worker", 1);
    cres_resolver_free(r);
    env_set("SM_INSTANCE_GROUPS_DICT", "not JSON");
    env_set("SM_CURRENT_INSTANCE_GROUP", "data");
    r = sagemaker_with(o);
    expect_task(r, "worker", 1);
    cres_resolver_free(r);
}

static void sm_groups_from_the_resource_config(void **state) {
    cres_sagemaker_options o = sm_groups_options();
    cres_resolver *r;
    (void)state;
    o.resource_config = temp_file(HETERO_RESOURCE_CONFIG);
    r = sagemaker_with(o);
    assert_string_equal(resolved_json(r), dq(HETERO_SPEC));
    expect_task(r, "train", 1);
    cres_resolver_free(r);
    /* the environment wins where it is set, the file fills in the rest */
    env_set("SM_CURRENT_HOST", "algo-3");
    SM_FAILS(o, CRES_ERR_ENVIRONMENT, "resource config \"current_group_name\" is \"train\"", "\"data\"");
    env_set("SM_CURRENT_INSTANCE_GROUP", "data");
    r = sagemaker_with(o);
    expect_task(r, "data", 0);
    cres_resolver_free(r);
    env_reset();
    env_set("SM_INSTANCE_GROUPS_DICT", HETERO_DICT); /* the groups from the variable */
    r = sagemaker_with(o);
    assert_string_equal(resolved_json(r), dq(HETERO_SPEC));
    expect_task(r, "train", 1);
    cres_resolver_free(r);
}

/* Options first, then the environment: options.instance_groups_dict and
   options.current_instance_group, the port and the task options. */
static void sm_groups_options_win(void **state) {
    cres_sagemaker_options o = sm_groups_options();
    cres_resolver *r;
    (void)state;
    hetero_env("algo-2", "train");
    o.instance_groups_dict = "{\"ps\": {\"hosts\": [\"algo-1\"]}, \"worker\": {\"hosts\": [\"algo-3\", \"algo-2\"]}}";
    o.current_instance_group = "worker";
    o.port = 9000;
    r = sagemaker_with(o);
    assert_string_equal(resolved_json(r), dq("{'ps': ['algo-1:9000'], 'worker': ['algo-2:9000', 'algo-3:9000']}"));
    expect_task(r, "worker", 0);
    cres_resolver_free(r);
    o.task_type = "ps";
    o.task_id = 0;
    o.rpc_layer = "grpc";
    r = sagemaker_with(o);
    expect_task(r, "ps", 0);
    assert_string_equal(master_of(r, NULL, -1, NULL), "grpc://algo-1:9000");
    cres_resolver_free(r);
    o.task_type = NULL;
    o.current_instance_group = "ps"; /* the option is checked like the variable */
    SM_FAILS(o, CRES_ERR_ENVIRONMENT, "options.current_instance_group is \"ps\"", "options.instance_groups_dict");
    /* the job "chief" comes first in rank order, as for every backend */
    o.instance_groups_dict = "{\"chief\": {\"hosts\": [\"algo-3\"]}, \"a\": {\"hosts\": [\"algo-1\", \"algo-2\"]}}";
    o.current_instance_group = NULL;
    env_unset("SM_CURRENT_INSTANCE_GROUP");
    r = sagemaker_with(o);
    expect_task(r, "a", 1);
    expect_launch(r, 3, 2, "algo-3:9000");
    cres_resolver_free(r);
}

/* Hosts in natural order within a group; groups need not be given sorted. */
static void sm_groups_natural_order_within_a_group(void **state) {
    cres_resolver *r;
    (void)state;
    env_set("SM_INSTANCE_GROUPS_DICT",
            "{\"train\": {\"hosts\": [\"algo-10\", \"algo-2\", \"algo-9\", \"algo-11\"], \"instance_group_name\": "
            "\"train\"},"
            " \"data\": {\"hosts\": [\"algo-1\", \"algo-3\"], \"instance_group_name\": \"data\"}}");
    env_set("SM_HOSTS", "[\"algo-1\",\"algo-10\",\"algo-11\",\"algo-2\",\"algo-3\",\"algo-9\"]");
    env_set("SM_CURRENT_HOST", "algo-10");
    r = sagemaker_with(sm_groups_options());
    assert_string_equal(resolved_json(r), dq("{'data': ['algo-1:2223', 'algo-3:2223'], 'train': ['algo-2:2223', "
                                             "'algo-9:2223', 'algo-10:2223', 'algo-11:2223']}"));
    expect_task(r, "train", 2);
    cres_resolver_free(r);
}

/* Without SM_HOSTS or a file there is nothing to check the groups against: they stand. */
static void sm_groups_without_a_flat_list(void **state) {
    cres_resolver *r;
    (void)state;
    env_set("SM_INSTANCE_GROUPS_DICT", HETERO_DICT);
    env_set("SM_CURRENT_HOST", "algo-3");
    r = sagemaker_with(sm_groups_options());
    assert_string_equal(resolved_json(r), dq(HETERO_SPEC));
    expect_task(r, "data", 0);
    cres_resolver_free(r);
    /* a file without "hosts" (or without "current_group_name") likewise */
    env_reset();
    {
        cres_sagemaker_options o = sm_groups_options();
        o.resource_config = temp_file("{\"current_host\": \"algo-1\", \"instance_groups\": [{\"instance_group_name\": "
                                      "\"solo\", \"hosts\": [\"algo-1\"]}]}");
        r = sagemaker_with(o);
        assert_string_equal(resolved_json(r), dq("{'solo': ['algo-1:2223']}"));
        expect_task(r, "solo", 0);
        cres_resolver_free(r);
    }
}

static void sm_groups_host_in_two_groups(void **state) {
    cres_sagemaker_options o = sm_groups_options();
    (void)state;
    hetero_env("algo-2", "train");
    env_set("SM_INSTANCE_GROUPS_DICT",
            "{\"data\": {\"hosts\": [\"algo-3\", \"algo-2\"]}, \"train\": {\"hosts\": [\"algo-1\", \"algo-2\"]}}");
    SM_FAILS(o, CRES_ERR_ENVIRONMENT, "SM_INSTANCE_GROUPS_DICT puts host \"algo-2\" in two groups",
             "\"data\" and \"train\"");
    /* twice in one group */
    env_set("SM_INSTANCE_GROUPS_DICT",
            "{\"data\": {\"hosts\": [\"algo-3\"]}, \"train\": {\"hosts\": [\"algo-1\", \"algo-2\", \"algo-1\"]}}");
    SM_FAILS(o, CRES_ERR_ENVIRONMENT, "SM_INSTANCE_GROUPS_DICT: group \"train\": \"hosts\" names \"algo-1\" twice",
             NULL);
    /* the same in the resource config */
    env_reset();
    o.resource_config =
        temp_file("{\"current_host\": \"algo-1\", \"instance_groups\": [{\"instance_group_name\": \"a\", "
                  "\"hosts\": [\"algo-1\"]}, {\"instance_group_name\": \"b\", \"hosts\": [\"algo-1\"]}]}");
    SM_FAILS(o, CRES_ERR_ENVIRONMENT, "resource config \"instance_groups\" puts host \"algo-1\" in two groups",
             "\"a\" and \"b\"");
}

static void sm_groups_group_listed_twice(void **state) {
    cres_sagemaker_options o = sm_groups_options();
    (void)state;
    env_set("SM_CURRENT_HOST", "algo-1");
    env_set("SM_INSTANCE_GROUPS_DICT", "{\"train\": {\"hosts\": [\"algo-1\"]}, \"train\": {\"hosts\": [\"algo-2\"]}}");
    SM_FAILS(o, CRES_ERR_ENVIRONMENT, "SM_INSTANCE_GROUPS_DICT names instance group \"train\" twice", NULL);
    env_unset("SM_INSTANCE_GROUPS_DICT");
    o.resource_config =
        temp_file("{\"current_host\": \"algo-1\", \"instance_groups\": [{\"instance_group_name\": \"t\", "
                  "\"hosts\": [\"algo-1\"]}, {\"instance_group_name\": \"t\", \"hosts\": [\"algo-2\"]}]}");
    SM_FAILS(o, CRES_ERR_ENVIRONMENT, "resource config \"instance_groups\" names instance group \"t\" twice", NULL);
}

static void sm_groups_empty_group_name(void **state) {
    cres_sagemaker_options o = sm_groups_options();
    (void)state;
    env_set("SM_CURRENT_HOST", "algo-1");
    env_set("SM_INSTANCE_GROUPS_DICT", "{\"\": {\"hosts\": [\"algo-1\"]}}");
    SM_FAILS(o, CRES_ERR_ENVIRONMENT, "SM_INSTANCE_GROUPS_DICT: group \"\"", "instance_group_name is empty");
    env_set("SM_INSTANCE_GROUPS_DICT", "{\"\": {\"hosts\": [\"algo-1\"], \"instance_group_name\": \"\"}}");
    SM_FAILS(o, CRES_ERR_ENVIRONMENT, "SM_INSTANCE_GROUPS_DICT: group \"\"", "instance_group_name is empty");
    env_unset("SM_INSTANCE_GROUPS_DICT");
    o.resource_config =
        temp_file("{\"current_host\": \"algo-1\", \"instance_groups\": [{\"instance_group_name\": \"\", "
                  "\"hosts\": [\"algo-1\"]}]}");
    SM_FAILS(o, CRES_ERR_ENVIRONMENT, "resource config \"instance_groups\": item 0", "instance_group_name is empty");
    /* names a job cannot have */
    env_set("SM_INSTANCE_GROUPS_DICT", "{\"a\\u0001b\": {\"hosts\": [\"algo-1\"]}}");
    SM_FAILS(o, CRES_ERR_ENVIRONMENT, "SM_INSTANCE_GROUPS_DICT", "cannot name a job");
    env_set("SM_INSTANCE_GROUPS_DICT", "{\"a\\u0000b\": {\"hosts\": [\"algo-1\"]}}");
    SM_FAILS(o, CRES_ERR_ENVIRONMENT, "SM_INSTANCE_GROUPS_DICT", "NUL");
}

/* The union of the groups must be SM_HOSTS (or the file's "hosts"), both ways. */
static void sm_groups_disagree_with_the_flat_list(void **state) {
    cres_sagemaker_options o = sm_groups_options();
    (void)state;
    hetero_env("algo-2", "train");
    env_set("SM_HOSTS", "[\"algo-1\",\"algo-2\"]");
    SM_FAILS(o, CRES_ERR_ENVIRONMENT, "SM_INSTANCE_GROUPS_DICT: group \"data\" has host \"algo-3\"",
             "which SM_HOSTS does not list");
    env_set("SM_HOSTS", "[\"algo-1\",\"algo-2\",\"algo-3\",\"algo-4\"]");
    SM_FAILS(o, CRES_ERR_ENVIRONMENT, "SM_HOSTS lists host \"algo-4\"",
             "which no group of SM_INSTANCE_GROUPS_DICT has");
    env_set("SM_HOSTS", "[\"algo-1\",\"algo-2\",\"algo-03\"]"); /* natural twins are not the same host */
    SM_FAILS(o, CRES_ERR_ENVIRONMENT, "SM_HOSTS lists host \"algo-03\"", NULL);
    /* the flat list itself is checked as in the default mode */
    env_set("SM_HOSTS", "[\"algo-1\",\"algo-2\",\"algo-3\",\"algo-1\"]");
    SM_FAILS(o, CRES_ERR_ENVIRONMENT, "SM_HOSTS names \"algo-1\" twice", NULL);
    env_set("SM_HOSTS", "{}");
    SM_FAILS(o, CRES_ERR_ENVIRONMENT, "SM_HOSTS must be a JSON list", NULL);
    /* the file's lists */
    env_reset();
    o.resource_config =
        temp_file("{\"current_host\": \"algo-1\", \"hosts\": [\"algo-1\", \"algo-2\"], \"instance_groups\": "
                  "[{\"instance_group_name\": \"a\", \"hosts\": [\"algo-1\"]}]}");
    SM_FAILS(o, CRES_ERR_ENVIRONMENT, "resource config \"hosts\" lists host \"algo-2\"",
             "resource config \"instance_groups\"");
}

static void sm_groups_current_host_and_group(void **state) {
    cres_sagemaker_options o = sm_groups_options();
    (void)state;
    hetero_env("algo-2", "data");
    SM_FAILS(o, CRES_ERR_ENVIRONMENT, "SM_CURRENT_INSTANCE_GROUP is \"data\"",
             "SM_INSTANCE_GROUPS_DICT puts SM_CURRENT_HOST \"algo-2\" in group \"train\"");
    env_set("SM_CURRENT_INSTANCE_GROUP", "nosuch");
    SM_FAILS(o, CRES_ERR_ENVIRONMENT, "SM_CURRENT_INSTANCE_GROUP is \"nosuch\"", NULL);
    env_set("SM_CURRENT_INSTANCE_GROUP", "");
    SM_FAILS(o, CRES_ERR_ENVIRONMENT, "SM_CURRENT_INSTANCE_GROUP is empty", NULL);
    env_unset("SM_CURRENT_INSTANCE_GROUP");
    env_set("SM_HOSTS", "[\"algo-1\",\"algo-2\",\"algo-3\",\"algo-4\"]");
    env_set("SM_INSTANCE_GROUPS_DICT",
            "{\"a\": {\"hosts\": [\"algo-1\", \"algo-2\", \"algo-3\"]}, \"b\": {\"hosts\": [\"algo-4\"]}}");
    env_set("SM_CURRENT_HOST", "algo-5");
    SM_FAILS(o, CRES_ERR_ENVIRONMENT, "SM_CURRENT_HOST \"algo-5\" is in no group of SM_INSTANCE_GROUPS_DICT", NULL);
    /* the file's current_group_name must be a string */
    env_reset();
    o.resource_config = temp_file("{\"current_host\": \"algo-1\", \"current_group_name\": 7, \"instance_groups\": "
                                  "[{\"instance_group_name\": \"a\", \"hosts\": [\"algo-1\"]}]}");
    SM_FAILS(o, CRES_ERR_ENVIRONMENT, "has no \"current_group_name\" string", NULL);
}

/* A malformed document is an error naming the variable or the file and the field, never a
   partial spec. */
static void sm_groups_malformed_dict(void **state) {
    static const struct {
        const char *dict, *sub1, *sub2;
    } bad[] = {
        {"", "SM_INSTANCE_GROUPS_DICT is empty", NULL},
        {"[\"train\"]", "SM_INSTANCE_GROUPS_DICT must be a JSON object of instance groups", NULL},
        {"{\"train\": ", "SM_INSTANCE_GROUPS_DICT", "invalid JSON"},
        {"{}", "SM_INSTANCE_GROUPS_DICT names no instance group", NULL},
        {"{\"train\": [\"algo-1\"]}", "SM_INSTANCE_GROUPS_DICT: group \"train\" is a list, not an object", NULL},
        {"{\"train\": {}}", "SM_INSTANCE_GROUPS_DICT: group \"train\": \"hosts\" must be a JSON list", NULL},
        {"{\"train\": {\"hosts\": \"algo-1\"}}", "group \"train\": \"hosts\" must be a JSON list of host names", NULL},
        {"{\"train\": {\"hosts\": []}}", "SM_INSTANCE_GROUPS_DICT: group \"train\": \"hosts\" is empty", NULL},
        {"{\"train\": {\"hosts\": [\"algo-1\", 2]}}", "group \"train\": \"hosts\": item 1 is 2", "not a host name"},
        {"{\"train\": {\"hosts\": [\"algo 1\"]}}", "group \"train\": \"hosts\": item 0", "not a host name"},
        {"{\"train\": {\"hosts\": [\"algo-1\"], \"hosts\": [\"algo-1\"]}}",
         "group \"train\": key \"hosts\" appears twice", NULL},
        {"{\"train\": {\"hosts\": [\"algo-1\"], \"instance_group_name\": \"data\"}}",
         "group \"train\": \"instance_group_name\" is \"data\", not the group's key", NULL},
        {"{\"train\": {\"hosts\": [\"algo-1\"], \"instance_group_name\": 3}}",
         "group \"train\" has no \"instance_group_name\" string", NULL},
    };
    cres_sagemaker_options o = sm_groups_options();
    size_t i;
    (void)state;
    env_set("SM_HOSTS", "[\"algo-1\"]");
    env_set("SM_CURRENT_HOST", "algo-1");
    for (i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        env_set("SM_INSTANCE_GROUPS_DICT", bad[i].dict);
        SM_FAILS(o, CRES_ERR_ENVIRONMENT, bad[i].sub1, bad[i].sub2);
    }
    /* the option is named as such */
    o.instance_groups_dict = "{\"train\": {\"hosts\": []}}";
    SM_FAILS(o, CRES_ERR_ENVIRONMENT, "options.instance_groups_dict: group \"train\": \"hosts\" is empty", NULL);
}

static void sm_groups_malformed_resource_config(void **state) {
    static const struct {
        const char *groups, *sub1, *sub2;
    } bad[] = {
        {"", "resource config \"instance_groups\" must be a JSON list of instance groups", NULL},
        {", \"instance_groups\": {\"a\": {\"hosts\": [\"algo-1\"]}}",
         "resource config \"instance_groups\" must be a JSON list", NULL},
        {", \"instance_groups\": []", "resource config \"instance_groups\" names no instance group", NULL},
        {", \"instance_groups\": [\"a\"]", "resource config \"instance_groups\": item 0 is \"a\", not an object", NULL},
        {", \"instance_groups\": [{\"hosts\": [\"algo-1\"]}]",
         "resource config \"instance_groups\": item 0 has no \"instance_group_name\" string", NULL},
        {", \"instance_groups\": [{\"instance_group_name\": \"a\"}]",
         "resource config \"instance_groups\": group \"a\": \"hosts\" must be a JSON list", NULL},
        {", \"instance_groups\": [{\"instance_group_name\": \"a\", \"hosts\": [null]}]",
         "group \"a\": \"hosts\": item 0 is null", NULL},
    };
    cres_sagemaker_options o = sm_groups_options();
    char text[512];
    size_t i;
    (void)state;
    for (i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        snprintf(text, sizeof text, "{\"current_host\": \"algo-1\"%s}", bad[i].groups);
        o.resource_config = temp_file(text);
        SM_FAILS(o, CRES_ERR_ENVIRONMENT, bad[i].sub1, bad[i].sub2);
    }
    o.resource_config =
        temp_file("{\"current_host\": \"algo-1\", \"instance_groups\": [{\"instance_group_name\": \"a\", "
                  "\"hosts\": [\"algo-1\"]}");
    SM_FAILS(o, CRES_ERR_ENVIRONMENT, "invalid JSON", NULL);
}

/* Nothing to read: the error names the variable of the groups and the file. */
static void sm_groups_nothing_set(void **state) {
    cres_sagemaker_options o = sm_groups_options();
    (void)state;
    SM_FAILS(o, CRES_ERR_ENVIRONMENT, "SM_INSTANCE_GROUPS_DICT is not set",
             "/opt/ml/input/config/resourceconfig.json");
    env_set("SM_HOSTS", "[\"algo-1\"]"); /* the flat list alone is not enough */
    env_set("SM_CURRENT_HOST", "algo-1");
    SM_FAILS(o, CRES_ERR_ENVIRONMENT, "SM_INSTANCE_GROUPS_DICT is not set", NULL);
    env_unset("SM_CURRENT_HOST");
    env_set("SM_INSTANCE_GROUPS_DICT", "{\"a\": {\"hosts\": [\"algo-1\"]}}");
    SM_FAILS(o, CRES_ERR_ENVIRONMENT, "SM_CURRENT_HOST is not set", NULL);
}

static void sm_groups_conflicting_options(void **state) {
    cres_sagemaker_options o = sm_groups_options();
    (void)state;
    hetero_env("algo-2", "train");
    o.job_name = "worker";
    SM_FAILS(o, CRES_ERR_INVALID_ARGUMENT, "job_name and instance_groups", NULL);
    o = sm_options();
    o.instance_groups_dict = HETERO_DICT;
    SM_FAILS(o, CRES_ERR_INVALID_ARGUMENT, "options.instance_groups_dict", "only with options.instance_groups");
    o = sm_options();
    o.current_instance_group = "train";
    SM_FAILS(o, CRES_ERR_INVALID_ARGUMENT, "options.current_instance_group", NULL);
    o = sm_groups_options();
    o.port = 70000;
    SM_FAILS(o, CRES_ERR_INVALID_ARGUMENT, "port 70000", NULL);
}
/* ---------------------------------------------------------------------------------------
   Auto-detection */

#define AUTO_FAILS(opts, want, sub1, sub2) FAILS_WITH(cres_auto_resolver_create, opts, want, sub1, sub2)

#define TF_CONFIG_ONE "{\"cluster\": {\"worker\": [\"w0:2222\"]}, \"task\": {\"type\": \"worker\", \"index\": 0}}"

/* One environment of each kind, added one after the other from the lowest priority up:
   each new one must take over. */
static void auto_detection_order(void **state) {
    cres_resolver *r;
    (void)state;
    skip_on_sagemaker_machine();
    r = auto_with(auto_options(), "local");
    assert_string_equal(resolved_json(r), dq("{'worker': ['localhost:8470']}"));
    expect_task(r, "worker", 0);
    cres_resolver_free(r);
    /* Kubernetes: an Indexed Job's pod */
    env_set("KUBERNETES_SERVICE_HOST", "10.96.0.1");
    env_set("KUBERNETES_SERVICE_PORT", "443");
    env_set("JOB_COMPLETION_INDEX", "2");
    env_set("HOSTNAME", "trainer-2");
    expect_auto("kubernetes");
    /* TPU VM */
    env_set("TPU_WORKER_HOSTNAMES", "t0,t1");
    env_set("TPU_WORKER_ID", "1");
    expect_auto("tpu");
    /* a Slurm batch script (an allocation: after the launchers that may run in it) */
    sbatch_one_task();
    expect_auto("slurm");
    /* SageMaker */
    sm_env(ALGO12, "algo-2");
    expect_auto("sagemaker");
    /* a Slurm step */
    env_lines(srun_n4_n8_rank5);
    expect_auto("slurm");
    /* an MPI launcher (under srun: PMIx) */
    env_set("PMIX_RANK", "5");
    expect_auto("mpi");
    /* TF_CONFIG */
    env_set("TF_CONFIG", TF_CONFIG_ONE);
    expect_auto("tfconfig");
}

/* A TPU VM whose workers are in the environment resolves with no transport at all (the
   implementation here has none compiled in). */
static void auto_tpu_vm_from_environment_needs_no_transport(void **state) {
    cres_resolver *r;
    (void)state;
    env_set("TPU_WORKER_HOSTNAMES", "t1,t2");
    env_set("TPU_WORKER_ID", "1");
    r = auto_with(auto_options(), "tpu");
    assert_string_equal(resolved_json(r), dq("{'worker': ['t1:8470', 't2:8470']}"));
    expect_task(r, "worker", 1);
    cres_resolver_free(r);
}

static void auto_picks_each_backend_alone(void **state) {
    cres_resolver *r;
    (void)state;
    env_lines(mpirun_np4_rank0);
    r = auto_with(auto_options(), "mpi");
    assert_string_equal(resolved_json(r), dq("{'worker': ['vm:8888', 'vm:8889', 'vm:8890', 'vm:8891']}"));
    cres_resolver_free(r);
    env_reset();
    env_set("PMI_RANK", "0");
    env_set("PMI_SIZE", "1");
    expect_auto("mpi");
    env_reset();
    env_set("MV2_COMM_WORLD_RANK", "0");
    env_set("MV2_COMM_WORLD_SIZE", "1");
    expect_auto("mpi");
    env_reset();
    env_lines(srun_n4_n8_rank5);
    r = auto_with(auto_options(), "slurm");
    assert_string_equal(resolved_json(r), dq(N4N8_BLOCK));
    expect_task(r, "worker", 5);
    cres_resolver_free(r);
    env_reset();
    sbatch_one_task();
    r = auto_with(auto_options(), "slurm");
    assert_string_equal(resolved_json(r), dq("{'worker': ['vm:8888']}"));
    cres_resolver_free(r);
    env_reset();
    sm_env(ALGO12, "algo-1");
    r = auto_with(auto_options(), "sagemaker");
    assert_string_equal(resolved_json(r), dq("{'worker': ['algo-1:2223', 'algo-2:2223']}"));
    cres_resolver_free(r);
    env_reset();
    env_set("TF_CONFIG", TF_CONFIG_ONE);
    r = auto_with(auto_options(), "tfconfig");
    assert_string_equal(resolved_json(r), dq("{'worker': ['w0:2222']}"));
    cres_resolver_free(r);
}

/* mpirun inside an sbatch allocation: MPI wins over the orted step's Slurm variables. */
static void auto_mpi_wins_over_slurm(void **state) {
    cres_resolver *r;
    (void)state;
    ompi_under_slurm_rank(2);
    r = auto_with(auto_options(), "mpi");
    assert_string_equal(resolved_json(r), dq("{'worker': ['node1:8888', 'node1:8889', 'node2:8888', 'node2:8889']}"));
    expect_task(r, "worker", 2);
    cres_resolver_free(r);
}

/* Blank values do not count; a Slurm job without a step (an salloc shell: SLURM_JOB_ID and
   no SLURM_PROCID) is slurm's, never local's. */
static void auto_blank_and_partial_variables(void **state) {
    cres_resolver *r;
    (void)state;
    skip_on_sagemaker_machine();
    env_set("TF_CONFIG", "  ");
    env_set("SM_HOSTS", "");
    env_set("OMPI_COMM_WORLD_SIZE", "");
    env_set("SLURM_STEP_NODELIST", "");
    env_set("SLURM_JOB_ID", " ");
    env_set("TPU_NAME", "");
    expect_auto("local");
    env_reset();
    env_lines(salloc_shell);
    r = auto_with(auto_options(), "slurm");
    assert_string_equal(resolved_json(r), dq(SALLOC_N2_SPEC));
    assert_int_equal(cres_task_id(r), CRES_NO_TASK);
    cres_resolver_free(r);
    env_reset();
    env_set("SLURM_JOB_ID", "4"); /* a job whose allocation is not named: slurm says so */
    {
        cres_auto_options o = auto_options();
        AUTO_FAILS(o, CRES_ERR_ENVIRONMENT, "slurm: SLURM_JOB_ID is set", "SLURM_JOB_NODELIST");
    }
}

static void auto_tpu_variants(void **state) {
    cres_auto_options o = auto_options();
    cres_resolver *r;
    (void)state;
    skip_on_sagemaker_machine();
    env_set("TPU_WORKER_HOSTNAMES", "t0,t1");
    env_set("TPU_WORKER_ID", "1");
    r = auto_with(o, "tpu");
    expect_task(r, "worker", 1);
    assert_string_equal(cres_rpc_layer(r), "grpc");
    cres_resolver_free(r);
    env_reset();
    env_set("TPU_NAME", "my-tpu");
    expect_auto("tpu");
    env_reset();
    env_set("KUBE_GOOGLE_CLOUD_TPU_ENDPOINTS", "grpc://10.0.0.2:8470,grpc://10.0.0.3:8470");
    r = auto_with(o, "tpu");
    /* endpoints are used as they are: no API call */
    assert_string_equal(resolved_json(r), dq("{'worker': ['10.0.0.2:8470', '10.0.0.3:8470']}"));
    cres_resolver_free(r);
    /* TPU_CONFIG without a name: the tpu backend was picked, and says what is wrong */
    env_reset();
    env_set("TPU_CONFIG", "{\"project\": \"p\", \"zone\": \"z\"}");
    AUTO_FAILS(o, CRES_ERR_ENVIRONMENT, "tpu_node_name", NULL);
}

static void auto_kubernetes_needs_an_indexed_job(void **state) {
    cres_auto_options o = auto_options();
    cres_resolver *r;
    (void)state;
    skip_on_sagemaker_machine();
    /* KUBERNETES_SERVICE_HOST alone: any pod, not necessarily a training job */
    env_set("KUBERNETES_SERVICE_HOST", "10.96.0.1");
    env_set("KUBERNETES_SERVICE_PORT", "443");
    env_set("HOSTNAME", "web-5d8f7-abcde");
    expect_auto("local");
    /* an index that is not the hostname's: one of several, but of which job? */
    env_set("JOB_COMPLETION_INDEX", "2");
    env_set("HOSTNAME", "trainer-3");
    AUTO_FAILS(o, CRES_ERR_ENVIRONMENT, "JOB_COMPLETION_INDEX=\"2\"", "CLUSTER_RESOLVER_BACKEND=local");
    env_set("HOSTNAME", "2");
    AUTO_FAILS(o, CRES_ERR_ENVIRONMENT, "JOB_COMPLETION_INDEX", NULL);
    env_unset("HOSTNAME");
    AUTO_FAILS(o, CRES_ERR_ENVIRONMENT, "JOB_COMPLETION_INDEX", NULL);
    /* an Indexed Job's pod */
    env_set("HOSTNAME", "trainer-2");
    r = auto_with(o, "kubernetes");
    assert_string_equal(cres_rpc_layer(r), "grpc");
    cres_resolver_free(r);
    env_set("JOB_COMPLETION_INDEX", "12");
    env_set("HOSTNAME", "my-job-12");
    expect_auto("kubernetes");
    /* no KUBERNETES_SERVICE_HOST: not in a cluster */
    env_unset("KUBERNETES_SERVICE_HOST");
    AUTO_FAILS(o, CRES_ERR_ENVIRONMENT, "JOB_COMPLETION_INDEX=\"12\"", NULL); /* not local */
    env_unset("JOB_COMPLETION_INDEX");
    expect_auto("local");
    env_set("JOB_COMPLETION_INDEX", "12");
    /* picked, but the in-cluster configuration is incomplete */
    env_set("KUBERNETES_SERVICE_HOST", "10.96.0.1");
    env_unset("KUBERNETES_SERVICE_PORT");
    AUTO_FAILS(o, CRES_ERR_ENVIRONMENT, "KUBERNETES_SERVICE_PORT", NULL);
}

static void auto_backend_option_forces(void **state) {
    cres_auto_options o = auto_options();
    cres_resolver *r;
    (void)state;
    env_set("TF_CONFIG", TF_CONFIG_ONE);
    env_lines(srun_n4_n8_rank5);
    o.backend = "slurm";
    r = auto_with(o, "slurm");
    assert_string_equal(resolved_json(r), dq(N4N8_BLOCK));
    cres_resolver_free(r);
    o.backend = "local";
    expect_task(r = auto_with(o, "local"), "worker", 0);
    cres_resolver_free(r);
    o.backend = "auto";
    cres_resolver_free(auto_with(o, "tfconfig"));
    /* a forced backend without its environment says so */
    env_reset();
    o.backend = "slurm";
    AUTO_FAILS(o, CRES_ERR_ENVIRONMENT, "slurm", "SLURM_JOB_ID");
    o.backend = "mpi";
    AUTO_FAILS(o, CRES_ERR_ENVIRONMENT, "OMPI_COMM_WORLD_RANK", NULL);
    o.backend = "sagemaker";
    AUTO_FAILS(o, CRES_ERR_ENVIRONMENT, "SM_HOSTS", NULL);
    o.backend = "tfconfig"; /* TF_CONFIG unset: an empty cluster, as TF */
    r = auto_with(o, "tfconfig");
    assert_string_equal(resolved_json(r), "{}");
    cres_resolver_free(r);
    o.backend = "kubernetes";
    AUTO_FAILS(o, CRES_ERR_ENVIRONMENT, "KUBERNETES_SERVICE_HOST", NULL);
    o.backend = "k8s";
    AUTO_FAILS(o, CRES_ERR_ENVIRONMENT, "KUBERNETES_SERVICE_HOST", NULL);
    o.backend = "tpu"; /* no TPU variables: the TPU VM this runs on, found at resolve */
    cres_resolver_free(auto_with(o, "tpu"));
}

static void auto_backend_variable_forces(void **state) {
    cres_auto_options o = auto_options();
    cres_resolver *r;
    (void)state;
    env_set("TF_CONFIG", TF_CONFIG_ONE);
    env_lines(srun_n4_n8_rank5);
    env_set("CLUSTER_RESOLVER_BACKEND", "slurm");
    r = auto_with(o, "slurm");
    expect_task(r, "worker", 5);
    cres_resolver_free(r);
    env_set("CLUSTER_RESOLVER_BACKEND", "off");
    r = auto_with(o, "local");
    assert_string_equal(resolved_json(r), dq("{'worker': ['localhost:8470']}"));
    cres_resolver_free(r);
    env_set("CLUSTER_RESOLVER_BACKEND", "auto");
    expect_auto("tfconfig");
    env_set("CLUSTER_RESOLVER_BACKEND", "");
    expect_auto("tfconfig");
    /* the option wins over the variable */
    env_set("CLUSTER_RESOLVER_BACKEND", "slurm");
    o.backend = "tfconfig";
    cres_resolver_free(auto_with(o, "tfconfig"));
    /* forced without its environment */
    env_reset();
    env_set("CLUSTER_RESOLVER_BACKEND", "slurm");
    o.backend = NULL;
    AUTO_FAILS(o, CRES_ERR_ENVIRONMENT, "SLURM_JOB_ID", NULL);
}

static void auto_unknown_backend_is_unsupported(void **state) {
    cres_auto_options o = auto_options();
    (void)state;
    o.backend = "condor";
    AUTO_FAILS(o, CRES_ERR_UNSUPPORTED, "\"condor\"", "slurm");
    o.backend = "";
    AUTO_FAILS(o, CRES_ERR_UNSUPPORTED, "\"\"", NULL);
    o.backend = NULL;
    env_set("CLUSTER_RESOLVER_BACKEND", "Slurm");
    AUTO_FAILS(o, CRES_ERR_UNSUPPORTED, "\"Slurm\"", NULL);
}

static void auto_port_and_task_options_reach_the_backend(void **state) {
    cres_auto_options o = auto_options();
    cres_resolver *r;
    (void)state;
    skip_on_sagemaker_machine();
    o.port = 9999;
    r = auto_with(o, "local");
    assert_string_equal(resolved_json(r), dq("{'worker': ['localhost:9999']}"));
    cres_resolver_free(r);
    step("n[1-2]", "2,1", 3, 2);
    r = auto_with(o, "slurm");
    assert_string_equal(resolved_json(r), dq("{'worker': ['n1:9999', 'n1:10000', 'n2:9999']}"));
    cres_resolver_free(r);
    env_reset();
    env_lines(mpirun_np4_rank0);
    r = auto_with(o, "mpi");
    assert_string_equal(resolved_json(r), dq("{'worker': ['vm:9999', 'vm:10000', 'vm:10001', 'vm:10002']}"));
    cres_resolver_free(r);
    env_reset();
    sm_env(ALGO12, "algo-1");
    o.task_type = "worker";
    o.task_id = 1;
    o.rpc_layer = "grpc";
    r = auto_with(o, "sagemaker");
    assert_string_equal(resolved_json(r), dq("{'worker': ['algo-1:9999', 'algo-2:9999']}"));
    expect_task(r, "worker", 1);
    assert_string_equal(master_of(r, NULL, -1, NULL), "grpc://algo-2:9999");
    cres_resolver_free(r);
}

static void auto_out_null_is_invalid(void **state) {
    cres_auto_options o = auto_options();
    cres_error err;
    (void)state;
    EXPECT(cres_auto_resolver_create(&o, NULL, &err), CRES_ERR_INVALID_ARGUMENT);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        /* Slurm: TensorFlow's cases */
        cmocka_unit_test_setup(s1_one_task_per_node_one_gpu, reset),
        cmocka_unit_test_setup(s3_master_with_set_task_and_rpc_layers, reset),
        cmocka_unit_test_setup(s4_jobs_split_from_step_tasks_per_node, reset),
        cmocka_unit_test_setup(s5_two_tasks_per_node_one_gpu_each, reset),
        cmocka_unit_test_setup(s6_two_tasks_per_node_two_gpus_each, reset),
        cmocka_unit_test_setup(readme_two_nodes_four_gpus_defaults, reset),
        cmocka_unit_test_setup(readme_ps_and_workers_port_1337, reset),
        /* Slurm: order and distribution */
        cmocka_unit_test_setup(hosts_in_slurm_order_not_string_order, reset),
        cmocka_unit_test_setup(srun_block_real_capture, reset),
        cmocka_unit_test_setup(srun_block_named_explicitly, reset),
        cmocka_unit_test_setup(srun_pack_alone_is_block, reset),
        cmocka_unit_test_setup(srun_cyclic_every_rank, reset),
        cmocka_unit_test_setup(srun_cyclic_block_is_cyclic, reset),
        cmocka_unit_test_setup(srun_plane, reset),
        cmocka_unit_test_setup(plane_without_plane_size_is_an_error, reset),
        cmocka_unit_test_setup(unknown_distribution_is_unsupported, reset),
        cmocka_unit_test_setup(node_of_no_task_takes_no_rank, reset),
        cmocka_unit_test_setup(step_counts_must_agree, reset),
        cmocka_unit_test_setup(gtids_name_the_nodes_ranks, reset),
        cmocka_unit_test_setup(node_and_local_id_must_match_the_placement, reset),
        /* Slurm: jobs, nodes, the batch script */
        cmocka_unit_test_setup(jobs_split_chief_first_then_by_name, reset),
        cmocka_unit_test_setup(job_of_zero_tasks_is_an_empty_job, reset),
        cmocka_unit_test_setup(jobs_not_adding_up_name_both_counts, reset),
        cmocka_unit_test_setup(bad_jobs_options, reset),
        cmocka_unit_test_setup(tasks_per_node_count_must_match_nodes, reset),
        cmocka_unit_test_setup(node_listed_twice_is_an_error, reset),
        cmocka_unit_test_setup(batch_script_is_the_allocation_without_a_task, reset),
        cmocka_unit_test_setup(salloc_shell_is_the_allocation_without_a_task, reset),
        cmocka_unit_test_setup(het_job_script_is_refused, reset),
        cmocka_unit_test_setup(batch_script_jobs_split_the_allocation, reset),
        cmocka_unit_test_setup(batch_script_variables_must_agree, reset),
        cmocka_unit_test_setup(rank_above_0_without_a_step_is_an_error, reset),
        cmocka_unit_test_setup(no_slurm_variables_is_environment_error, reset),
        cmocka_unit_test_setup(each_missing_variable_is_named, reset),
        cmocka_unit_test_setup(each_malformed_variable_is_named, reset),
        cmocka_unit_test_setup(hostlist_bombs_are_limit, reset),
        /* Slurm: GPUs */
        cmocka_unit_test_setup(cuda_visible_devices_empty_means_no_gpus, reset),
        cmocka_unit_test_setup(cuda_visible_devices_unset_means_no_gpus, reset),
        cmocka_unit_test_setup(cuda_visible_devices_ids_are_taken_from_the_list, reset),
        cmocka_unit_test_setup(gpus_are_shared_per_node, reset),
        cmocka_unit_test_setup(mpi_gpus_per_node_are_shared_per_node, reset),
        cmocka_unit_test_setup(gpus_per_node_no_gpus_forces_none, reset),
        cmocka_unit_test_setup(gpus_per_node_against_the_list, reset),
        cmocka_unit_test_setup(gpus_per_task_binding_is_passed_on, reset),
        cmocka_unit_test_setup(each_slurm_binding_variable_keeps_the_list, reset),
        cmocka_unit_test_setup(other_device_lists_show_a_binding, reset),
        cmocka_unit_test_setup(gpu_options_against_a_binding, reset),
        cmocka_unit_test_setup(unsaid_gpu_lists_are_left_alone, reset),
        cmocka_unit_test_setup(too_many_gpus_per_task_is_an_error, reset),
        cmocka_unit_test_setup(bad_gpu_settings, reset),
        cmocka_unit_test_setup(union_over_slurm_gives_its_devices, reset),
        cmocka_unit_test_setup(visible_devices_of_unknown_task_is_not_found, reset),
        cmocka_unit_test_setup(accelerators_of_a_named_task, reset),
        /* Slurm: ports, rpc layer, master, overrides */
        cmocka_unit_test_setup(port_base_option, reset),
        cmocka_unit_test_setup(rpc_layer_default_and_master, reset),
        cmocka_unit_test_setup(master_of_missing_task_is_not_found, reset),
        cmocka_unit_test_setup(task_options_and_set_task_are_kept, reset),
        cmocka_unit_test_setup(resolve_gives_fresh_equal_specs, reset),
        cmocka_unit_test_setup(null_options_read_the_process_environment, reset),
        /* MPI */
        cmocka_unit_test_setup(mpirun_np4_one_host, reset),
        cmocka_unit_test_setup(hostname_option_and_default, reset),
        cmocka_unit_test_setup(one_rank_is_one_task, reset),
        cmocka_unit_test_setup(mpich_pmi_variables, reset),
        cmocka_unit_test_setup(mvapich_variables, reset),
        cmocka_unit_test_setup(open_mpi_wins_over_pmix, reset),
        cmocka_unit_test_setup(no_mpi_variables_is_environment_error, reset),
        cmocka_unit_test_setup(malformed_mpi_variables_are_named, reset),
        cmocka_unit_test_setup(pmix_under_srun_uses_the_slurm_step, reset),
        cmocka_unit_test_setup(pmix_under_srun_cyclic, reset),
        cmocka_unit_test_setup(pmi2_under_srun_uses_the_slurm_step, reset),
        cmocka_unit_test_setup(pmi2_under_srun_local_names_must_be_the_steps, reset),
        cmocka_unit_test_setup(pmix_without_slurm_needs_a_hostfile, reset),
        cmocka_unit_test_setup(mpirun_inside_sbatch_mpi_wins, reset),
        cmocka_unit_test_setup(mpi_gpus_inside_slurm, reset),
        cmocka_unit_test_setup(mpirun_inside_sbatch_inconsistent, reset),
        cmocka_unit_test_setup(mpirun_inside_sbatch_unreadable_step_counts, reset),
        cmocka_unit_test_setup(mpirun_np2_inside_two_node_allocation, reset),
        cmocka_unit_test_setup(several_hosts_without_a_source_need_a_hostfile, reset),
        cmocka_unit_test_setup(mpi_jobs_gpus_and_ports, reset),
        /* MPI hostfiles */
        cmocka_unit_test_setup(hostfile_open_mpi_format, reset),
        cmocka_unit_test_setup(hostfile_tabs_crlf_and_count_spellings, reset),
        cmocka_unit_test_setup(hostfile_mpich_format, reset),
        cmocka_unit_test_setup(hostfile_wins_over_the_environment, reset),
        cmocka_unit_test_setup(hostfile_more_ranks_than_slots_is_an_error, reset),
        cmocka_unit_test_setup(hostfile_fewer_ranks_leave_later_hosts_out, reset),
        cmocka_unit_test_setup(hostfile_map_and_rank_by_node, reset),
        cmocka_unit_test_setup(host_names_are_addresses, reset),
        cmocka_unit_test_setup(huge_job_counts_do_not_overflow, reset),
        cmocka_unit_test_setup(hostfile_bad_lines_name_the_line, reset),
        cmocka_unit_test_setup(hostfile_missing_is_an_error, reset),
        cmocka_unit_test_setup(hostfile_local_rank_inconsistent_is_an_error, reset),
        /* SageMaker */
        cmocka_unit_test_setup(m1_cluster_spec, reset),
        cmocka_unit_test_setup(m2_master, reset),
        cmocka_unit_test_setup(m3_master_of_given_task, reset),
        cmocka_unit_test_setup(m4_rpc_layer_option, reset),
        cmocka_unit_test_setup(m5_task_options_and_setters, reset),
        cmocka_unit_test_setup(m6_task_id, reset),
        cmocka_unit_test_setup(m7_empty_hosts_is_an_error, reset),
        cmocka_unit_test_setup(m8_current_host_not_listed_is_an_error, reset),
        cmocka_unit_test_setup(sm_natural_order, reset),
        cmocka_unit_test_setup(sm_duplicate_hosts_are_an_error, reset),
        cmocka_unit_test_setup(sm_bad_items_and_json, reset),
        cmocka_unit_test_setup(sm_resource_config_file, reset),
        cmocka_unit_test_setup(sm_bad_resource_config, reset),
        cmocka_unit_test_setup(sm_nothing_set_names_variable_and_file, reset),
        cmocka_unit_test_setup(sm_single_host_master_is_local, reset),
        cmocka_unit_test_setup(sm_port_and_job_name_options, reset),
        cmocka_unit_test_setup(sm_hosts_and_current_host_options, reset),
        /* SageMaker instance groups */
        cmocka_unit_test_setup(sm_groups_two_groups_from_the_environment, reset),
        cmocka_unit_test_setup(sm_groups_flat_default_unchanged, reset),
        cmocka_unit_test_setup(sm_groups_from_the_resource_config, reset),
        cmocka_unit_test_setup(sm_groups_options_win, reset),
        cmocka_unit_test_setup(sm_groups_natural_order_within_a_group, reset),
        cmocka_unit_test_setup(sm_groups_without_a_flat_list, reset),
        cmocka_unit_test_setup(sm_groups_host_in_two_groups, reset),
        cmocka_unit_test_setup(sm_groups_group_listed_twice, reset),
        cmocka_unit_test_setup(sm_groups_empty_group_name, reset),
        cmocka_unit_test_setup(sm_groups_disagree_with_the_flat_list, reset),
        cmocka_unit_test_setup(sm_groups_current_host_and_group, reset),
        cmocka_unit_test_setup(sm_groups_malformed_dict, reset),
        cmocka_unit_test_setup(sagemaker_host_names, reset),
        cmocka_unit_test_setup(sagemaker_resource_config_beside_the_environment, reset),
        cmocka_unit_test_setup(sagemaker_group_name_given_twice, reset),
        cmocka_unit_test_setup(sm_groups_malformed_resource_config, reset),
        cmocka_unit_test_setup(sm_groups_nothing_set, reset),
        cmocka_unit_test_setup(sm_groups_conflicting_options, reset),
        /* Auto */
        cmocka_unit_test_setup(auto_detection_order, reset),
        cmocka_unit_test_setup(auto_picks_each_backend_alone, reset),
        cmocka_unit_test_setup(auto_tpu_vm_from_environment_needs_no_transport, reset),
        cmocka_unit_test_setup(auto_mpi_wins_over_slurm, reset),
        cmocka_unit_test_setup(auto_blank_and_partial_variables, reset),
        cmocka_unit_test_setup(auto_tpu_variants, reset),
        cmocka_unit_test_setup(auto_kubernetes_needs_an_indexed_job, reset),
        cmocka_unit_test_setup(auto_backend_option_forces, reset),
        cmocka_unit_test_setup(auto_backend_variable_forces, reset),
        cmocka_unit_test_setup(auto_unknown_backend_is_unsupported, reset),
        cmocka_unit_test_setup(auto_port_and_task_options_reach_the_backend, reset),
        cmocka_unit_test_setup(auto_out_null_is_invalid, reset),
    };
    return cmocka_run_group_tests_name("hpc", tests, NULL, remove_temp_files);
}
