/* Allocation-failure injection for the launch contract: the coordinator-only backends
   (torch, jax, awsbatch) and auto choosing them, cres_launch on spec-based backends, and
   cres_spec_launch_info / cres_spec_to_machinefile / cres_spec_to_hostfile, with the
   allocator, walk and shared scenario parts (environment, create, checks) of
   tests/alloc_walk.h (as tests/test_alloc_fail_hpc.c).

   A scenario creates its resolver from an environment served through cres_config.getenv,
   then resolves (CRES_ERR_INCOMPLETE and no spec for a coordinator-only source), asks for
   the launch info (every field compared), the master of the own task and of task "worker"
   0, and another task's master (CRES_ERR_INCOMPLETE). The spec scenarios parse a spec with
   the test allocator and write its launch info, machine file and hostfile. For every n the
   scenario must end in its expected result or CRES_ERR_OUT_OF_MEMORY, leave no block
   allocated and free every block through the allocator that made it; the undisturbed run
   must give the expected result and content. Each is walked twice: failing only allocation
   n, and failing n and every later one. No scenario makes an HTTP request.

   Build: gcc -std=c99 ... tests/test_alloc_fail_launch.c tests/impl.c -lcmocka */

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../cluster_resolver.h"

/* The test allocator, the walk, and the environment (name/value pairs ending in NULL), the
   offline transport, the log count and the checks the backends' walks share */
#include "alloc_walk.h"

/* ---------------------------------------------------------------------------------------
   Scenarios */

typedef enum source_kind { TORCH, JAX, AWSBATCH, AUTO, SPEC, SIMPLE, SLURM } source_kind;

typedef struct scenario {
    const char *name;
    source_kind kind;
    const char *const *env;      /* name, value, ..., NULL */
    const char *json;            /* SPEC, SIMPLE: the spec, TF_CONFIG's "cluster" form */
    const char *force;           /* AUTO: options.backend */
    const char *task_type;       /* options.task_type (an override); SPEC: the task asked */
    int task_id;
    const char *rpc_layer;       /* options.rpc_layer */
    const char *main_host;       /* AWSBATCH: options.main_host */
    int port;                    /* AWSBATCH, AUTO: options.port */
    cres_result expected;
    const char *want_name;       /* cres_resolver_name */
    const char *want_message;    /* part of the message when the undisturbed run fails */
    cres_launch_info want;       /* cres_launch / cres_spec_launch_info */
    const char *want_master;     /* the own task's, with the rpc layer */
    const char *want_machinefile; /* SPEC */
    const char *want_hostfile;   /* SPEC */
} scenario;

#define U CRES_UNKNOWN

static cres_result run_create(const scenario *sc, const cres_config *config, cres_resolver **r,
                              const test_alloc *t) {
    cres_error err;
    cres_result res;
    switch (sc->kind) {
    case TORCH:
        WALK_CREATE(cres_torch_options, cres_torch_resolver_create, WALK_TASK_FIELDS);
        break;
    case JAX:
        WALK_CREATE(cres_jax_options, cres_jax_resolver_create, WALK_TASK_FIELDS);
        break;
    case AWSBATCH:
        WALK_CREATE(cres_awsbatch_options, cres_awsbatch_resolver_create,
                    o.main_host = sc->main_host; o.port = sc->port; WALK_TASK_FIELDS);
        break;
    case SLURM:
        WALK_CREATE(cres_slurm_options, cres_slurm_resolver_create, WALK_TASK_FIELDS);
        break;
    default:
        WALK_CREATE(cres_auto_options, cres_auto_resolver_create,
                    o.backend = sc->force; o.port = sc->port; WALK_TASK_FIELDS);
        break;
    }
    return check_create(res, &err, *r, t, sc->expected, sc->want_message, sc->want_name);
}

/* A coordinator-only source: no spec, CRES_ERR_INCOMPLETE (or out of memory). */
static cres_result run_resolve_incomplete(cres_resolver *r) {
    static int sentinel;
    cres_cluster_spec *spec = (cres_cluster_spec *)(void *)&sentinel;
    cres_error err;
    cres_result res = checked(cres_resolve(r, &spec, &err), &err);
    if (res == CRES_OK) {
        cres_spec_free(spec);
        return mismatch("resolve of a coordinator-only source succeeded", "");
    }
    if (spec) return mismatch("resolve failed but returned a spec", err.message);
    if (res == CRES_ERR_INCOMPLETE) return strstr(err.message, "names only the coordinator")
                                               ? CRES_OK
                                               : mismatch("resolve message", err.message);
    return res;
}

/* The coordinator is task "worker" 0; task 1 is not named. */
static cres_result run_masters(const scenario *sc, cres_resolver *r) {
    cres_error err;
    char master[1100];
    cres_result res = checked(cres_master_of(r, "worker", 0, "", master, sizeof master, NULL, &err), &err);
    if (res != CRES_OK) return res;
    if (strcmp(master, sc->want.master_address) != 0) return mismatch("master of worker 0", master);
    res = checked(cres_master_of(r, "worker", 1, NULL, master, sizeof master, NULL, &err), &err);
    return res == CRES_ERR_INCOMPLETE ? CRES_OK : res == CRES_OK ? mismatch("master of worker 1", master) : res;
}

static cres_result run_resolver(test_alloc *t, const void *ctx) {
    const scenario *sc = (const scenario *)ctx;
    cres_config config;
    cres_resolver *r = NULL;
    cres_result res;
    int requests = 0, lines = 0;
    walk_config(&config, t, sc->env);
    walk_offline(&config, &requests);
    config.log.fn = count_log; /* auto and the coordinator-only backends log their choice */
    config.log.user = &lines;
    res = run_create(sc, &config, &r, t);
    if (res == CRES_OK && strcmp(sc->want_name, "slurm") != 0) res = run_resolve_incomplete(r);
    if (res == CRES_OK) res = check_launch(r, &sc->want);
    if (res == CRES_OK) res = check_master(r, sc->want_master);
    if (res == CRES_OK && strcmp(sc->want_name, "slurm") != 0) res = run_masters(sc, r);
    if (res == CRES_OK && !lines && sc->kind != SLURM) res = mismatch("nothing logged", sc->name);
    if (requests) res = mismatch("an HTTP request was made", sc->name);
    cres_resolver_free(r);
    return res;
}

/* A length query, then a buffer of exactly that size. */
static cres_result write_hosts(cres_result (*fn)(const cres_cluster_spec *, char *, size_t, size_t *, cres_error *),
                               const cres_cluster_spec *spec, const char *want, const char *what) {
    char text[512];
    size_t len = 0, len2 = 0;
    cres_error err;
    cres_result res = checked(fn(spec, NULL, 0, &len, &err), &err);
    if (res != CRES_OK) return res;
    if (len >= sizeof text) return mismatch(what, "too long");
    res = checked(fn(spec, text, len + 1, &len2, &err), &err);
    if (res != CRES_OK) return res;
    if (len2 != len || strcmp(text, want) != 0) return mismatch(what, text);
    return CRES_OK;
}

/* A spec parsed with the test allocator: its launch info, hostfile and machine file. */
static cres_result run_spec(test_alloc *t, const void *ctx) {
    const scenario *sc = (const scenario *)ctx;
    cres_allocator alloc;
    cres_cluster_spec *spec = NULL;
    cres_launch_info info;
    cres_error err;
    cres_result res;
    memset(&alloc, 0, sizeof alloc);
    test_alloc_use(&alloc, t);
    res = checked(cres_spec_from_json(sc->json, strlen(sc->json), &alloc, &spec, &err), &err);
    if (res == CRES_OK) {
        memset(&info, 0x5a, sizeof info);
        res = checked(cres_spec_launch_info(spec, sc->task_type, sc->task_id, &info, &err), &err);
        if (res == CRES_OK) res = compare_info(&info, &sc->want);
    }
    if (res == CRES_OK) res = write_hosts(cres_spec_to_hostfile, spec, sc->want_hostfile, "hostfile");
    if (res == CRES_OK) {
        if (sc->want_machinefile) {
            res = write_hosts(cres_spec_to_machinefile, spec, sc->want_machinefile, "machine file");
        } else { /* an IPv6 host: the form cannot hold it */
            char text[512];
            res = checked(cres_spec_to_machinefile(spec, text, sizeof text, NULL, &err), &err);
            if (res == sc->expected && !t->triggered && sc->want_message && !strstr(err.message, sc->want_message))
                res = mismatch("message", err.message);
        }
    }
    cres_spec_free(spec);
    return res;
}

/* The simple backend over the spec: cres_launch resolves (a copy) and reads it. */
static cres_result run_simple(test_alloc *t, const void *ctx) {
    const scenario *sc = (const scenario *)ctx;
    cres_config config;
    cres_cluster_spec *spec = NULL;
    cres_simple_options o;
    cres_resolver *r = NULL;
    cres_error err;
    cres_result res;
    memset(&config, 0, sizeof config);
    test_alloc_use(&config.allocator, t);
    res = checked(cres_spec_from_json(sc->json, strlen(sc->json), &config.allocator, &spec, &err), &err);
    if (res == CRES_OK) {
        memset(&o, 0, sizeof o);
        o.config = &config;
        o.spec = spec;
        o.task_type = sc->task_type;
        o.task_id = sc->task_id;
        res = checked(cres_simple_resolver_create(&o, &r, &err), &err);
        if (res != CRES_OK && r) res = mismatch("create failed but returned a resolver", err.message);
    }
    if (res == CRES_OK) res = check_launch(r, &sc->want);
    if (res == CRES_OK) res = check_master(r, sc->want_master);
    cres_resolver_free(r);
    cres_spec_free(spec);
    return res;
}

static cres_result run_scenario(test_alloc *t, const void *ctx) {
    const scenario *sc = (const scenario *)ctx;
    if (sc->kind == SPEC) return run_spec(t, ctx);
    if (sc->kind == SIMPLE) return run_simple(t, ctx);
    return run_resolver(t, ctx);
}

static void walk(const scenario *sc) { alloc_walk(sc->name, run_scenario, sc, sc->expected); }

/* ---------------------------------------------------------------------------------------
   Environments (tests/test_launch.c says where each comes from) */

/* torchrun's worker: 2 nodes of 4, global rank 5. */
#define TORCHRUN_RANK5                                                                                         \
    "LOCAL_RANK", "1", "RANK", "5", "GROUP_RANK", "1", "GROUP_WORLD_SIZE", "2", "ROLE_RANK", "5",                 \
        "ROLE_WORLD_SIZE", "8", "ROLE_NAME", "default", "LOCAL_WORLD_SIZE", "4", "WORLD_SIZE", "8", "MASTER_ADDR", \
        "trainer-0", "MASTER_PORT", "44417", "TORCHELASTIC_RUN_ID", "job-7f3a", "TORCHELASTIC_RESTART_COUNT", "0", \
        "TORCHELASTIC_MAX_RESTARTS", "0", "TORCHELASTIC_USE_AGENT_STORE", "False"

/* Kubeflow training operator v1, worker 1 of a Master + 3 Workers PyTorchJob. */
#define KUBEFLOW_V1_WORKER1                                                                                   \
    "MASTER_PORT", "23456", "PET_MASTER_PORT", "23456", "MASTER_ADDR", "pytorch-dist-mnist-master-0",          \
        "PET_MASTER_ADDR", "pytorch-dist-mnist-master-0", "WORLD_SIZE", "4", "RANK", "2", "PET_NPROC_PER_NODE", \
        "auto", "PET_NODE_RANK", "2", "PET_NNODES", "4"

/* The same PyTorchJob with nprocPerNode 4 (training-operator envvar.go at 2856aa0:
   WORLD_SIZE = replicas x nprocPerNode, RANK the replica's): the pod's torchrun. */
#define KUBEFLOW_V1_NPROC4_WORKER1                                                                            \
    "MASTER_PORT", "23456", "PET_MASTER_PORT", "23456", "MASTER_ADDR", "pytorch-dist-mnist-master-0",          \
        "PET_MASTER_ADDR", "pytorch-dist-mnist-master-0", "WORLD_SIZE", "16", "RANK", "2", "PET_NODE_RANK",     \
        "2", "PET_NPROC_PER_NODE", "4", "PET_NNODES", "4"

/* Kubeflow Trainer v2, torch runtime, node 2 of 3 (numProcPerNode "auto": the node's
   process count is torchrun's to find). */
#define TRAINER_V2_TORCH_NODE2                                                                                 \
    "PET_NNODES", "3", "PET_NPROC_PER_NODE", "auto", "PET_NODE_RANK", "2", "PET_MASTER_ADDR",                  \
        "mnist-node-0-0.mnist", "PET_MASTER_PORT", "29500", "JOB_COMPLETION_INDEX", "2", "HOSTNAME",            \
        "mnist-node-0-2", "KUBERNETES_SERVICE_HOST", "10.96.0.1", "KUBERNETES_SERVICE_PORT", "443"

/* Kubeflow Trainer v2, JAX runtime, process 1 of 4. */
#define TRAINER_V2_JAX_PROCESS1                                                                               \
    "JAX_NUM_PROCESSES", "4", "JAX_PROCESS_ID", "1", "JAX_COORDINATOR_ADDRESS", "jaxjob-node-0-0.jaxjob:29500", \
        "JAX_COORDINATOR_PORT", "29500", "JOB_COMPLETION_INDEX", "1", "HOSTNAME", "jaxjob-node-0-1",             \
        "KUBERNETES_SERVICE_HOST", "10.96.0.1"

/* `srun -N4 -n8` on node[1-4], rank 5. */
#define SRUN_N4_N8_RANK5                                                                                      \
    "SLURM_JOB_ID", "5", "SLURM_STEP_NODELIST", "node[1-4]", "SLURM_STEP_NUM_TASKS", "8",                       \
        "SLURM_STEP_TASKS_PER_NODE", "4,2,1(x2)", "SLURM_PROCID", "5", "SLURM_NODEID", "1", "SLURM_LOCALID", "1"

/* ---------------------------------------------------------------------------------------
   torch */

static void torch_torchrun(void **state) {
    static const char *const env[] = {TORCHRUN_RANK5, NULL};
    static const scenario sc = {"torch: torchrun worker", TORCH, env, NULL, NULL, NULL, 0, NULL, NULL, 0, CRES_OK,
                                "torch", NULL, {8, 5, 1, 4, 1, 2, "trainer-0", 44417, "trainer-0:44417"},
                                "trainer-0:44417", NULL, NULL};
    (void)state;
    walk(&sc);
}

static void torch_kubeflow_v1(void **state) {
    static const char *const env[] = {KUBEFLOW_V1_WORKER1, NULL};
    static const scenario sc = {
        "torch: Kubeflow v1 PyTorchJob", TORCH, env, NULL, NULL, NULL, 0, NULL, NULL, 0, CRES_OK, "torch", NULL,
        {4, 2, 0, 1, 2, 4, "pytorch-dist-mnist-master-0", 23456, "pytorch-dist-mnist-master-0:23456"},
        "pytorch-dist-mnist-master-0:23456", NULL, NULL};
    (void)state;
    walk(&sc);
}

static void torch_trainer_v2_pet(void **state) {
    static const char *const env[] = {TRAINER_V2_TORCH_NODE2, NULL};
    static const scenario sc = {"torch: Kubeflow Trainer v2 PET_*", TORCH, env, NULL, NULL, NULL, 0, NULL, NULL, 0,
                                CRES_OK, "torch", NULL,
                                {U, U, U, U, 2, 3, "mnist-node-0-0.mnist", 29500, "mnist-node-0-0.mnist:29500"},
                                "mnist-node-0-0.mnist:29500", NULL, NULL};
    (void)state;
    walk(&sc);
}

/* A node's torchrun: the job's and node's numbers, no rank of its own. */
static void torch_kubeflow_v1_nproc(void **state) {
    static const char *const env[] = {KUBEFLOW_V1_NPROC4_WORKER1, NULL};
    static const scenario sc = {
        "torch: Kubeflow v1 PyTorchJob, nprocPerNode 4", TORCH, env, NULL, NULL, NULL, 0, NULL, NULL, 0, CRES_OK,
        "torch", NULL, {16, U, U, 4, 2, 4, "pytorch-dist-mnist-master-0", 23456, "pytorch-dist-mnist-master-0:23456"},
        "pytorch-dist-mnist-master-0:23456", NULL, NULL};
    (void)state;
    walk(&sc);
}

static void torch_kubeflow_v1_nproc_world(void **state) {
    static const char *const env[] = {"WORLD_SIZE", "4", KUBEFLOW_V1_NPROC4_WORKER1, NULL}; /* the first wins */
    static const scenario sc = {"torch: WORLD_SIZE not nodes x nprocPerNode", TORCH, env, NULL, NULL, NULL, 0, NULL,
                                NULL, 0, CRES_ERR_ENVIRONMENT, "torch", "WORLD_SIZE=4 but PET_NNODES=4 nodes",
                                {0, 0, 0, 0, 0, 0, "", 0, ""}, NULL, NULL, NULL};
    (void)state;
    walk(&sc);
}

/* Alibaba PAI-DLC: WORLD_SIZE counts nodes beside NPROC_PER_NODE, refused. */
static void torch_pai_dlc(void **state) {
    static const char *const env[] = {"MASTER_ADDR", "dlc-master-0", "MASTER_PORT", "23456", "WORLD_SIZE", "3",
                                      "RANK", "1", "NPROC_PER_NODE", "8", NULL};
    static const scenario sc = {"torch: PAI-DLC", TORCH, env, NULL, NULL, NULL, 0, NULL, NULL, 0,
                                CRES_ERR_ENVIRONMENT, "torch", "NPROC_PER_NODE=\"8\" is set, so WORLD_SIZE=3 may count nodes",
                                {0, 0, 0, 0, 0, 0, "", 0, ""}, NULL, NULL, NULL};
    (void)state;
    walk(&sc);
}

/* An IPv6 coordinator, an override of the rank and an rpc layer. */
static void torch_ipv6_override_rpc(void **state) {
    static const char *const env[] = {"MASTER_ADDR", "fd00::1", "MASTER_PORT", "29500", "RANK", "3", "WORLD_SIZE",
                                      "4", "LOCAL_RANK", "1", "LOCAL_WORLD_SIZE", "2", "NODE_RANK", "1", NULL};
    static const scenario sc = {"torch: IPv6 master, task override, rpc layer", TORCH, env, NULL, NULL, "worker", 1,
                                "grpc", NULL, 0, CRES_OK, "torch", NULL,
                                {4, 1, U, U, U, U, "fd00::1", 29500, "[fd00::1]:29500"},
                                "grpc://[fd00::1]:29500", NULL, NULL};
    (void)state;
    walk(&sc);
}

static void torch_partial(void **state) {
    static const char *const env[] = {"WORLD_SIZE", "4", "RANK", "1", NULL};
    static const scenario sc = {"torch: MASTER_ADDR missing", TORCH, env, NULL, NULL, NULL, 0, NULL, NULL, 0,
                                CRES_ERR_ENVIRONMENT, "torch",
                                "torch: RANK=\"1\" and WORLD_SIZE=\"4\" are set, MASTER_ADDR is not",
                                {0, 0, 0, 0, 0, 0, "", 0, ""}, NULL, NULL, NULL};
    (void)state;
    walk(&sc);
}

static void torch_disagreement(void **state) {
    static const char *const env[] = {"PET_NNODES", "2", KUBEFLOW_V1_WORKER1, NULL}; /* the first wins */
    static const scenario sc = {"torch: WORLD_SIZE and PET_NNODES disagree", TORCH, env, NULL, NULL, NULL, 0, NULL,
                                NULL, 0, CRES_ERR_ENVIRONMENT, "torch", "WORLD_SIZE=\"4\" but PET_NNODES=",
                                {0, 0, 0, 0, 0, 0, "", 0, ""}, NULL, NULL, NULL};
    (void)state;
    walk(&sc);
}

static void torch_elastic_range(void **state) {
    static const char *const env[] = {"PET_NNODES", "1:4", "PET_NODE_RANK", "0", "PET_MASTER_ADDR", "m",
                                      "PET_MASTER_PORT", "29500", NULL};
    static const scenario sc = {"torch: PET_NNODES elastic range", TORCH, env, NULL, NULL, NULL, 0, NULL, NULL, 0,
                                CRES_ERR_UNSUPPORTED, "torch", "elastic range", {0, 0, 0, 0, 0, 0, "", 0, ""}, NULL,
                                NULL, NULL};
    (void)state;
    walk(&sc);
}

static void torch_rank_not_below_world(void **state) {
    static const char *const env2[] = {"RANK", "8", "WORLD_SIZE", "8", "MASTER_ADDR", "h", "MASTER_PORT", "1", NULL};
    static const scenario sc = {"torch: RANK not below WORLD_SIZE", TORCH, env2, NULL, NULL, NULL, 0, NULL, NULL, 0,
                                CRES_ERR_ENVIRONMENT, "torch", "RANK=8 is not below WORLD_SIZE=8",
                                {0, 0, 0, 0, 0, 0, "", 0, ""}, NULL, NULL, NULL};
    (void)state;
    walk(&sc);
}

/* ---------------------------------------------------------------------------------------
   jax */

static void jax_trainer_v2(void **state) {
    static const char *const env[] = {TRAINER_V2_JAX_PROCESS1, NULL};
    static const scenario sc = {"jax: Kubeflow Trainer v2", JAX, env, NULL, NULL, NULL, 0, NULL, NULL, 0, CRES_OK,
                                "jax", NULL,
                                {4, 1, U, U, U, U, "jaxjob-node-0-0.jaxjob", 29500, "jaxjob-node-0-0.jaxjob:29500"},
                                "jaxjob-node-0-0.jaxjob:29500", NULL, NULL};
    (void)state;
    walk(&sc);
}

static void jax_bracketed_ipv6_port_variable(void **state) {
    static const char *const env[] = {"JAX_COORDINATOR_ADDRESS", "[fd00::1]", "JAX_COORDINATOR_PORT", "8476",
                                      "JAX_NUM_PROCESSES", "2", "JAX_PROCESS_ID", "0", NULL};
    static const scenario sc = {"jax: [v6] and JAX_COORDINATOR_PORT", JAX, env, NULL, NULL, NULL, 0, NULL, NULL, 0,
                                CRES_OK, "jax", NULL, {2, 0, U, U, U, U, "fd00::1", 8476, "[fd00::1]:8476"},
                                "[fd00::1]:8476", NULL, NULL};
    (void)state;
    walk(&sc);
}

static void jax_ipv6_without_brackets(void **state) {
    static const char *const env[] = {"JAX_COORDINATOR_ADDRESS", "fd00::1:1234", "JAX_NUM_PROCESSES", "2",
                                      "JAX_PROCESS_ID", "0", NULL};
    static const scenario sc = {"jax: IPv6 without brackets", JAX, env, NULL, NULL, NULL, 0, NULL, NULL, 0,
                                CRES_ERR_ENVIRONMENT, "jax", "an IPv6 address needs brackets",
                                {0, 0, 0, 0, 0, 0, "", 0, ""}, NULL, NULL, NULL};
    (void)state;
    walk(&sc);
}

/* ---------------------------------------------------------------------------------------
   awsbatch */

static void awsbatch_main_node(void **state) {
    static const char *const env[] = {"AWS_BATCH_JOB_NODE_INDEX", "0", "AWS_BATCH_JOB_NUM_NODES", "4",
                                      "AWS_BATCH_JOB_MAIN_NODE_INDEX", "0", "AWS_BATCH_JOB_ID", "j#0", NULL};
    static const scenario sc = {"awsbatch: main node, main_host and port", AWSBATCH, env, NULL, NULL, NULL, 0, NULL,
                                "10.0.0.5", 23456, CRES_OK, "awsbatch", NULL,
                                {4, 0, 0, 1, 0, 4, "10.0.0.5", 23456, "10.0.0.5:23456"}, "10.0.0.5:23456", NULL,
                                NULL};
    (void)state;
    walk(&sc);
}

static void awsbatch_child_main_index_two(void **state) {
    static const char *const env[] = {"AWS_BATCH_JOB_NODE_INDEX", "1", "AWS_BATCH_JOB_NUM_NODES", "4",
                                      "AWS_BATCH_JOB_MAIN_NODE_INDEX", "2",
                                      "AWS_BATCH_JOB_MAIN_NODE_PRIVATE_IPV4_ADDRESS", "10.0.3.7", NULL};
    static const scenario sc = {"awsbatch: child node, main node 2", AWSBATCH, env, NULL, NULL, NULL, 0, "grpc", NULL,
                                0, CRES_OK, "awsbatch", NULL, {4, 2, 0, 1, 2, 4, "10.0.3.7", 29500, "10.0.3.7:29500"},
                                "grpc://10.0.3.7:29500", NULL, NULL};
    (void)state;
    walk(&sc);
}

static void awsbatch_child_without_address(void **state) {
    static const char *const env[] = {"AWS_BATCH_JOB_NODE_INDEX", "1", "AWS_BATCH_JOB_NUM_NODES", "4",
                                      "AWS_BATCH_JOB_MAIN_NODE_INDEX", "0", NULL};
    static const scenario sc = {"awsbatch: child without the main node's address", AWSBATCH, env, NULL, NULL, NULL, 0,
                                NULL, NULL, 0, CRES_ERR_ENVIRONMENT, "awsbatch",
                                "AWS_BATCH_JOB_MAIN_NODE_PRIVATE_IPV4_ADDRESS is not set",
                                {0, 0, 0, 0, 0, 0, "", 0, ""}, NULL, NULL, NULL};
    (void)state;
    walk(&sc);
}

/* ---------------------------------------------------------------------------------------
   auto */

static void auto_torchrun_in_slurm_step(void **state) {
    static const char *const env[] = {SRUN_N4_N8_RANK5, TORCHRUN_RANK5, NULL};
    static const scenario sc = {"auto: torchrun inside a Slurm step", AUTO, env, NULL, NULL, NULL, 0, NULL, NULL, 0,
                                CRES_OK, "torch", NULL, {8, 5, 1, 4, 1, 2, "trainer-0", 44417, "trainer-0:44417"},
                                "trainer-0:44417", NULL, NULL};
    (void)state;
    walk(&sc);
}

static void auto_pet(void **state) {
    static const char *const env[] = {"PET_NPROC_PER_NODE", "1", TRAINER_V2_TORCH_NODE2, NULL}; /* first wins */
    static const scenario sc = {"auto: PET_* in an Indexed Job", AUTO, env, NULL, NULL, "worker", 0, NULL, NULL, 0,
                                CRES_OK, "torch", NULL,
                                {3, 0, U, U, U, 3, "mnist-node-0-0.mnist", 29500, "mnist-node-0-0.mnist:29500"},
                                "mnist-node-0-0.mnist:29500", NULL, NULL};
    (void)state;
    walk(&sc);
}

static void auto_jax(void **state) {
    static const char *const env[] = {TRAINER_V2_JAX_PROCESS1, NULL};
    static const scenario sc = {"auto: jax", AUTO, env, NULL, NULL, NULL, 0, NULL, NULL, 0, CRES_OK, "jax", NULL,
                                {4, 1, U, U, U, U, "jaxjob-node-0-0.jaxjob", 29500, "jaxjob-node-0-0.jaxjob:29500"},
                                "jaxjob-node-0-0.jaxjob:29500", NULL, NULL};
    (void)state;
    walk(&sc);
}

static void auto_awsbatch_port(void **state) {
    static const char *const env[] = {"AWS_BATCH_JOB_NODE_INDEX", "3", "AWS_BATCH_JOB_NUM_NODES", "4",
                                      "AWS_BATCH_JOB_MAIN_NODE_INDEX", "0",
                                      "AWS_BATCH_JOB_MAIN_NODE_PRIVATE_IPV4_ADDRESS", "10.0.0.9", "RANK", "3", NULL};
    static const scenario sc = {"auto: awsbatch over plain torch, port", AUTO, env, NULL, NULL, NULL, 0, NULL, NULL,
                                9999, CRES_OK, "awsbatch", NULL,
                                {4, 3, 0, 1, 3, 4, "10.0.0.9", 9999, "10.0.0.9:9999"}, "10.0.0.9:9999", NULL, NULL};
    (void)state;
    walk(&sc);
}

static void auto_forced_torch(void **state) {
    static const char *const env[] = {"TF_CONFIG", "{\"cluster\": {\"worker\": [\"w0:1\"]}}", TORCHRUN_RANK5, NULL};
    static const scenario sc = {"auto: forced torch", AUTO, env, NULL, "torch", NULL, 0, NULL, NULL, 0, CRES_OK,
                                "torch", NULL, {8, 5, 1, 4, 1, 2, "trainer-0", 44417, "trainer-0:44417"},
                                "trainer-0:44417", NULL, NULL};
    (void)state;
    walk(&sc);
}

static void auto_rule_one(void **state) {
    static const char *const env[] = {"LOCAL_RANK", "0", "HOSTNAME", "laptop", NULL};
    static const scenario sc = {"auto: LOCAL_RANK alone", AUTO, env, NULL, NULL, NULL, 0, NULL, NULL, 0,
                                CRES_ERR_ENVIRONMENT, "local", "CLUSTER_RESOLVER_BACKEND=local",
                                {0, 0, 0, 0, 0, 0, "", 0, ""}, NULL, NULL, NULL};
    (void)state;
    walk(&sc);
}

static void auto_horovod(void **state) {
    static const char *const env[] = {"HOROVOD_RANK", "0", "HOROVOD_SIZE", "4", "HOROVOD_CONTROLLER", "gloo", NULL};
    static const scenario sc = {"auto: horovodrun --gloo", AUTO, env, NULL, NULL, NULL, 0, NULL, NULL, 0,
                                CRES_ERR_ENVIRONMENT, "local", "HOROVOD_SIZE=\"4\" (Horovod) is set",
                                {0, 0, 0, 0, 0, 0, "", 0, ""}, NULL, NULL, NULL};
    (void)state;
    walk(&sc);
}

static void auto_partial_torch(void **state) {
    static const char *const env[] = {"WORLD_SIZE", "4", "RANK", "1", NULL};
    static const scenario sc = {"auto: partial torch", AUTO, env, NULL, NULL, NULL, 0, NULL, NULL, 0,
                                CRES_ERR_ENVIRONMENT, "torch", "MASTER_ADDR is not", {0, 0, 0, 0, 0, 0, "", 0, ""},
                                NULL, NULL, NULL};
    (void)state;
    walk(&sc);
}

/* ---------------------------------------------------------------------------------------
   Specs, and cres_launch on spec-based backends */

#define SHARED_JSON                                                                                            \
    "{\"worker\": [\"m1:2222\", \"a9:2222\", \"zeta:2223\", \"b3:2222\"], \"ps\": [\"m1:2224\"], \"chief\": " \
    "[\"zeta:2222\"]}"

static void spec_shared_hosts(void **state) {
    static const scenario sc = {"spec: launch info, hostfile, machine file", SPEC, NULL, SHARED_JSON, NULL, "worker", 1,
                                NULL, NULL, 0, CRES_OK, NULL, NULL, {6, 3, 0, 1, 2, 4, "zeta", 2222, "zeta:2222"},
                                NULL, "zeta:2\nm1:2\na9:1\nb3:1\n",
                                "zeta slots=2\nm1 slots=2\na9 slots=1\nb3 slots=1\n"};
    (void)state;
    walk(&sc);
}

static void spec_without_task(void **state) {
    static const scenario sc = {"spec: launch info without a task", SPEC, NULL, SHARED_JSON, NULL, NULL, CRES_OWN_TASK,
                                NULL, NULL, 0, CRES_OK, NULL, NULL, {6, U, U, U, U, 4, "zeta", 2222, "zeta:2222"},
                                NULL, "zeta:2\nm1:2\na9:1\nb3:1\n",
                                "zeta slots=2\nm1 slots=2\na9 slots=1\nb3 slots=1\n"};
    (void)state;
    walk(&sc);
}

static void spec_empty(void **state) {
    static const scenario sc = {"spec: empty", SPEC, NULL, "{}", NULL, NULL, CRES_OWN_TASK, NULL, NULL, 0, CRES_OK,
                                NULL, NULL, {0, U, U, U, U, 0, "", U, ""}, NULL, "", ""};
    (void)state;
    walk(&sc);
}

static void spec_ipv6_machinefile(void **state) {
    static const scenario sc = {
        "spec: IPv6 hosts (machine file unsupported)", SPEC, NULL,
        "{\"chief\": [\"[fd00::a]:2222\"], \"worker\": [\"[fd00::b]:2222\", \"[fd00::a]:2223\", \"h1:2222\"]}", NULL,
        "worker", 1, NULL, NULL, 0, CRES_ERR_UNSUPPORTED, NULL, "host \"fd00::a\" is an IPv6 address",
        {4, 2, 1, 2, 0, 3, "fd00::a", 2222, "[fd00::a]:2222"}, NULL, NULL,
        "fd00::a slots=2\nfd00::b slots=1\nh1 slots=1\n"};
    (void)state;
    walk(&sc);
}

static void simple_launch(void **state) {
    static const scenario sc = {"simple + cres_launch", SIMPLE, NULL, SHARED_JSON, NULL, "worker", 2, NULL, NULL, 0,
                                CRES_OK, "simple", NULL, {6, 4, 1, 2, 0, 4, "zeta", 2222, "zeta:2222"}, "zeta:2223",
                                NULL, NULL};
    (void)state;
    walk(&sc);
}

static void slurm_launch(void **state) {
    static const char *const env[] = {SRUN_N4_N8_RANK5, NULL};
    static const scenario sc = {"slurm + cres_launch", SLURM, env, NULL, NULL, NULL, 0, NULL, NULL, 0, CRES_OK, "slurm",
                                NULL, {8, 5, 1, 2, 1, 4, "node1", 8888, "node1:8888"}, "grpc://node2:8889", NULL,
                                NULL};
    (void)state;
    walk(&sc);
}

/* See alloc_walk_first_fails(). */
static void allocator_fails_the_first_allocation(void **state) {
    static const char *const env[] = {TORCHRUN_RANK5, NULL};
    static const scenario sc = {"first allocation", TORCH, env, NULL, NULL, NULL, 0, NULL, NULL, 0, CRES_OK, "torch",
                                NULL, {8, 5, 1, 4, 1, 2, "trainer-0", 44417, "trainer-0:44417"}, "trainer-0:44417",
                                NULL, NULL};
    (void)state;
    alloc_walk_first_fails(run_scenario, &sc);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(allocator_fails_the_first_allocation),
        cmocka_unit_test(torch_torchrun),
        cmocka_unit_test(torch_kubeflow_v1),
        cmocka_unit_test(torch_trainer_v2_pet),
        cmocka_unit_test(torch_kubeflow_v1_nproc),
        cmocka_unit_test(torch_kubeflow_v1_nproc_world),
        cmocka_unit_test(torch_pai_dlc),
        cmocka_unit_test(torch_ipv6_override_rpc),
        cmocka_unit_test(torch_partial),
        cmocka_unit_test(torch_disagreement),
        cmocka_unit_test(torch_elastic_range),
        cmocka_unit_test(torch_rank_not_below_world),
        cmocka_unit_test(jax_trainer_v2),
        cmocka_unit_test(jax_bracketed_ipv6_port_variable),
        cmocka_unit_test(jax_ipv6_without_brackets),
        cmocka_unit_test(awsbatch_main_node),
        cmocka_unit_test(awsbatch_child_main_index_two),
        cmocka_unit_test(awsbatch_child_without_address),
        cmocka_unit_test(auto_torchrun_in_slurm_step),
        cmocka_unit_test(auto_pet),
        cmocka_unit_test(auto_jax),
        cmocka_unit_test(auto_awsbatch_port),
        cmocka_unit_test(auto_forced_torch),
        cmocka_unit_test(auto_rule_one),
        cmocka_unit_test(auto_horovod),
        cmocka_unit_test(auto_partial_torch),
        cmocka_unit_test(spec_shared_hosts),
        cmocka_unit_test(spec_without_task),
        cmocka_unit_test(spec_empty),
        cmocka_unit_test(spec_ipv6_machinefile),
        cmocka_unit_test(simple_launch),
        cmocka_unit_test(slurm_launch),
    };
    return cmocka_run_group_tests_name("allocation failure: launch", tests, NULL, NULL);
}
