/* Allocation-failure injection for the platforms that name every member: vertex
   (CLUSTER_SPEC), skypilot (SKYPILOT_NODE_IPS), volcano (VC_<TASK>_HOSTS through the
   env_list hook) and lws (LWS_LEADER_ADDRESS), directly and through auto, with the
   allocator, walk and shared scenario parts (environment, create, checks) of
   tests/alloc_walk.h (as tests/test_alloc_fail_launch.c).

   A scenario creates its resolver from an environment served through cres_config.getenv
   and, over the same pairs, cres_config.env_list; then resolves twice (the spec written out
   and compared), asks for the launch info (every field compared), the own task's master and
   the accelerators, and writes the own TF_CONFIG. For every n the scenario must end in its
   expected result or CRES_ERR_OUT_OF_MEMORY, leave no block allocated and free every block
   through the allocator that made it; the undisturbed run must give the expected result
   and content. Each is walked twice: failing only allocation n, and failing n and every
   later one. No scenario makes an HTTP request. The environments are those of
   tests/test_platforms.c, which says where each comes from.

   Build: gcc -std=c99 ... tests/test_alloc_fail_platforms.c tests/impl.c -lcmocka */

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../cluster_resolver.h"

/* The test allocator, the walk, and the environment (name/value pairs ending in NULL, asked
   and listed), the offline transport, the log count and the checks the backends' walks
   share */
#include "alloc_walk.h"

/* ---------------------------------------------------------------------------------------
   Scenarios */

typedef enum source_kind { VERTEX, SKYPILOT, VOLCANO, LWS, AUTO } source_kind;

typedef struct scenario {
    const char *name;
    source_kind kind;
    const char *const *env;      /* name, value, ..., NULL */
    const char *text;            /* VERTEX: options.cluster_spec; VOLCANO, LWS: options.hostname */
    const char *job;             /* SKYPILOT, LWS: options.job_name */
    const char *force;           /* AUTO: options.backend */
    const char *task_type;       /* options.task_type (an override) */
    int task_id;
    const char *rpc_layer;       /* options.rpc_layer */
    int port;                    /* options.port */
    cres_result expected;
    const char *want_name;       /* cres_resolver_name */
    const char *want_message;    /* part of the message when the undisturbed run fails */
    const char *want_spec;       /* cres_spec_to_json of the resolved spec */
    cres_launch_info want;       /* cres_launch */
    const char *want_master;     /* the own task's, with the rpc layer */
    int want_gpus;               /* cres_num_accelerators: GPUs per task, 0 = none */
    const char *want_environment; /* in the TF_CONFIG written */
} scenario;

static cres_result run_create(const scenario *sc, const cres_config *config, cres_resolver **r,
                              const test_alloc *t) {
    cres_error err;
    cres_result res;
    switch (sc->kind) {
    case VERTEX:
        WALK_CREATE(cres_vertex_options, cres_vertex_resolver_create,
                    o.cluster_spec = sc->text; WALK_TASK_FIELDS);
        break;
    case SKYPILOT:
        WALK_CREATE(cres_skypilot_options, cres_skypilot_resolver_create,
                    o.port = sc->port; o.job_name = sc->job; WALK_TASK_FIELDS);
        break;
    case VOLCANO:
        WALK_CREATE(cres_volcano_options, cres_volcano_resolver_create,
                    o.port = sc->port; o.hostname = sc->text; WALK_TASK_FIELDS);
        break;
    case LWS:
        WALK_CREATE(cres_lws_options, cres_lws_resolver_create,
                    o.port = sc->port; o.hostname = sc->text; o.job_name = sc->job;
                    WALK_TASK_FIELDS);
        break;
    default:
        WALK_CREATE(cres_auto_options, cres_auto_resolver_create,
                    o.backend = sc->force; o.port = sc->port; WALK_TASK_FIELDS);
        break;
    }
    return check_create(res, &err, *r, t, sc->expected, sc->want_message, sc->want_name);
}

/* Two resolves: equal specs, each a fresh one, written as want_spec. */
static cres_result run_resolve(const scenario *sc, cres_resolver *r) {
    cres_cluster_spec *a = NULL, *b = NULL;
    cres_error err;
    char text[2048];
    cres_result res = checked(cres_resolve(r, &a, &err), &err);
    if (res == CRES_OK) res = checked(cres_resolve(r, &b, &err), &err);
    if (res == CRES_OK && (a == b || !cres_spec_equal(a, b))) res = mismatch("the second resolve", "");
    if (res == CRES_OK) res = checked(cres_spec_to_json(a, text, sizeof text, NULL, &err), &err);
    if (res == CRES_OK && strcmp(text, sc->want_spec) != 0) res = mismatch("spec", text);
    cres_spec_free(a);
    cres_spec_free(b);
    return res;
}

/* The own TF_CONFIG: a length query, then a buffer of that size; it holds the environment. */
static cres_result run_tfconfig(const scenario *sc, cres_resolver *r) {
    char text[2600], want[64];
    size_t len = 0, len2 = 0;
    cres_error err;
    cres_result res = checked(cres_tfconfig(r, NULL, 0, &len, &err), &err);
    if (res != CRES_OK) return res;
    if (len >= sizeof text) return mismatch("TF_CONFIG", "too long");
    res = checked(cres_tfconfig(r, text, len + 1, &len2, &err), &err);
    if (res != CRES_OK) return res;
    snprintf(want, sizeof want, "\"environment\": \"%s\"}", sc->want_environment ? sc->want_environment : "");
    if (len2 != len || !strstr(text, want)) return mismatch("TF_CONFIG", text);
    return CRES_OK;
}

static cres_result run_scenario(test_alloc *t, const void *ctx) {
    const scenario *sc = (const scenario *)ctx;
    cres_config config;
    cres_resolver *r = NULL;
    cres_result res;
    int requests = 0, lines = 0;
    walk_config(&config, t, sc->env);
    walk_offline(&config, &requests);
    config.log.fn = count_log;
    config.log.user = &lines;
    config.env_list.fn = pairs_env_at;
    config.env_list.user = (void *)sc->env;
    res = run_create(sc, &config, &r, t);
    if (res == CRES_OK) res = run_resolve(sc, r);
    if (res == CRES_OK) res = check_launch(r, &sc->want);
    if (res == CRES_OK) res = check_master(r, sc->want_master);
    if (res == CRES_OK) res = check_gpus(r, sc->want_gpus);
    if (res == CRES_OK) res = run_tfconfig(sc, r);
    if (res == CRES_OK && sc->kind == AUTO && !lines) res = mismatch("nothing logged", sc->name);
    if (requests) res = mismatch("an HTTP request was made", sc->name);
    cres_resolver_free(r);
    return res;
}

static void walk(const scenario *sc) { alloc_walk(sc->name, run_scenario, sc, sc->expected); }

#define NONE {0, 0, 0, 0, 0, 0, "", 0, ""}
#define ENV_ERR CRES_ERR_ENVIRONMENT

/* ---------------------------------------------------------------------------------------
   Environments */

#define VH(pool, i) "cmle-training-" pool "-1d969d3ba6-" #i ":2222"
#define VERTEX_HEAD "cmle-training-workerpool0-1d969d3ba6-0"
#define VERTEX_CLUSTER                                                                                   \
    "{\"workerpool0\": [\"" VH("workerpool0", 0) "\"], \"workerpool1\": [\"" VH("workerpool1", 0) "\", \"" \
    VH("workerpool1", 1) "\"], \"workerpool2\": [\"" VH("workerpool2", 0) "\", \"" VH("workerpool2", 1)  \
    "\"], \"workerpool3\": [\"" VH("workerpool3", 0) "\"]}"
/* Vertex AI: four pools, the process of workerpool1 replica 1; ranks are pools 0 and 1's */
#define VERTEX_SPEC_JSON                                                                                 \
    "{\"cluster\": " VERTEX_CLUSTER ", \"environment\": \"cloud\", \"task\": {\"type\": \"workerpool1\", " \
    "\"index\": 1, \"trial\": \"\"}, \"job\": {\"worker_pool_specs\": []}, \"open_ports\": [3333]}"

/* SkyPilot: 3 nodes of 8 GPUs, node 1 */
#define SKYPILOT_NODE1                                                                                   \
    "SKYPILOT_NODE_IPS", "10.128.0.21\n10.128.0.22\n10.128.0.23\n", "SKYPILOT_NODE_RANK", "1",           \
        "SKYPILOT_NUM_NODES", "3", "SKYPILOT_NUM_GPUS_PER_NODE", "8", "SKYPILOT_TASK_ID",                \
        "sky-2026-08-01-12-00-00-123456_mycluster_1"

/* LeaderWorkerSet "vllm" of 4, group 1, worker 2 */
#define LWS_VLLM_1_2                                                                                     \
    "LWS_LEADER_ADDRESS", "vllm-1.vllm.default", "LWS_GROUP_SIZE", "4", "LWS_WORKER_INDEX", "2", "HOSTNAME", \
        "vllm-1-2", "KUBERNETES_SERVICE_HOST", "10.96.0.1"

/* Volcano Job "pytorch-job": master 1, worker 3; worker 1, with the pytorch plugin's */
#define VOLCANO_PYTORCH_WORKER1                                                                          \
    "VC_MASTER_HOSTS", "pytorch-job-master-0.pytorch-job", "VC_MASTER_NUM", "1", "VC_WORKER_HOSTS",        \
        "pytorch-job-worker-0.pytorch-job,pytorch-job-worker-1.pytorch-job,pytorch-job-worker-2.pytorch-job", \
        "VC_WORKER_NUM", "3", "VC_TASK_INDEX", "1", "VK_TASK_INDEX", "1", "HOSTNAME", "pytorch-job-worker-1", \
        "MASTER_ADDR", "pytorch-job-master-0.pytorch-job", "MASTER_PORT", "23456", "WORLD_SIZE", "4", "RANK", "2"
#define VOLCANO_PYTORCH_SPEC                                                                               \
    "{\"master\": [\"pytorch-job-master-0.pytorch-job:8470\"], \"worker\": "                          \
    "[\"pytorch-job-worker-0.pytorch-job:8470\", "                                                       \
    "\"pytorch-job-worker-1.pytorch-job:8470\", \"pytorch-job-worker-2.pytorch-job:8470\"]}"

/* Volcano Job "tf-dist": ps 2, worker 2, chief-evaluator 1; ps 1 */
#define VOLCANO_TF_PS1                                                                                   \
    "VC_PS_HOSTS", "tf-dist-ps-0.tf-dist,tf-dist-ps-1.tf-dist", "VC_PS_NUM", "2", "VC_WORKER_HOSTS",       \
        "tf-dist-worker-0.tf-dist,tf-dist-worker-1.tf-dist", "VC_WORKER_NUM", "2", "VC_CHIEF_EVALUATOR_HOSTS", \
        "tf-dist-chief-evaluator-0.tf-dist", "VC_CHIEF_EVALUATOR_NUM", "1", "VC_TASK_INDEX", "1", "HOSTNAME",   \
        "tf-dist-ps-1"

/* ---------------------------------------------------------------------------------------
   vertex */

static void vertex_cluster_spec(void **state) {
    static const char *const env[] = {"CLUSTER_SPEC", VERTEX_SPEC_JSON, NULL};
    static const scenario sc = {"vertex: CLUSTER_SPEC, four pools", VERTEX, env, NULL, NULL, NULL, NULL, 0, NULL, 0,
                                CRES_OK, "vertex", NULL, VERTEX_CLUSTER,
                                {3, 2, 0, 1, 2, 3, VERTEX_HEAD, 2222, VH("workerpool0", 0)},
                                VH("workerpool1", 1), 0, "cloud"};
    (void)state;
    walk(&sc);
}

static void vertex_option_override_rpc(void **state) {
    static const char *const env[] = {"CLUSTER_SPEC", "not read", NULL};
    static const scenario sc = {"vertex: options.cluster_spec, task override, rpc layer", VERTEX, env,
                                VERTEX_SPEC_JSON, NULL, NULL, "workerpool1", 0, "grpc", 0, CRES_OK, "vertex", NULL,
                                VERTEX_CLUSTER,
                                {3, 1, 0, 1, 1, 3, VERTEX_HEAD, 2222, VH("workerpool0", 0)},
                                "grpc://" VH("workerpool1", 0), 0, "cloud"};
    (void)state;
    walk(&sc);
}

static void vertex_task_outside(void **state) {
    static const char *const env[] = {
        "CLUSTER_SPEC",
        "{\"cluster\": {\"workerpool0\": [\"w0:2222\"]}, \"task\": {\"type\": \"workerpool1\", \"index\": 0}}",
        NULL};
    static const scenario sc = {"vertex: task outside the cluster", VERTEX, env, NULL, NULL, NULL, NULL, 0, NULL, 0,
                                ENV_ERR, "vertex", "CLUSTER_SPEC: \"task.type\" \"workerpool1\" is not a job", NULL,
                                NONE, NULL, 0, NULL};
    (void)state;
    walk(&sc);
}

static void vertex_pool_object(void **state) {
    static const char *const env[] = {"CLUSTER_SPEC", "{\"cluster\": {\"workerpool0\": {\"0\": \"w0:2222\"}}}", NULL};
    static const scenario sc = {"vertex: a pool that is not a list", VERTEX, env, NULL, NULL, NULL, NULL, 0, NULL, 0,
                                ENV_ERR, "vertex", "\"workerpool0\" must be a list", NULL, NONE, NULL, 0, NULL};
    (void)state;
    walk(&sc);
}

/* ---------------------------------------------------------------------------------------
   skypilot */

static void skypilot_three_nodes(void **state) {
    static const char *const env[] = {SKYPILOT_NODE1, NULL};
    static const scenario sc = {"skypilot: 3 nodes of 8 GPUs", SKYPILOT, env, NULL, NULL, NULL, NULL, 0, NULL, 0,
                                CRES_OK, "skypilot", NULL,
                                "{\"worker\": [\"10.128.0.21:8470\", \"10.128.0.22:8470\", \"10.128.0.23:8470\"]}",
                                {3, 1, 0, 1, 1, 3, "10.128.0.21", 8470, "10.128.0.21:8470"}, "10.128.0.22:8470", 8,
                                NULL};
    (void)state;
    walk(&sc);
}

static void skypilot_ipv6_port_job(void **state) {
    static const char *const env[] = {"SKYPILOT_NODE_IPS", "fd00::1\r\nfd00::2\r\n", "SKYPILOT_NODE_RANK", "0", NULL};
    static const scenario sc = {"skypilot: IPv6, port, job name, rpc layer", SKYPILOT, env, NULL, "trainer", NULL,
                                NULL, 0, "grpc", 29500, CRES_OK, "skypilot", NULL,
                                "{\"trainer\": [\"[fd00::1]:29500\", \"[fd00::2]:29500\"]}",
                                {2, 0, 0, 1, 0, 2, "fd00::1", 29500, "[fd00::1]:29500"}, "grpc://[fd00::1]:29500", 0,
                                NULL};
    (void)state;
    walk(&sc);
}

static void skypilot_duplicate(void **state) {
    static const char *const env[] = {"SKYPILOT_NODE_IPS", "10.0.0.1\n10.0.0.2\n10.0.0.1", "SKYPILOT_NODE_RANK", "0",
                                      NULL};
    static const scenario sc = {"skypilot: an IP twice", SKYPILOT, env, NULL, NULL, NULL, NULL, 0, NULL, 0, ENV_ERR,
                                "skypilot", "SKYPILOT_NODE_IPS names \"10.0.0.1\" twice", NULL, NONE, NULL, 0, NULL};
    (void)state;
    walk(&sc);
}

static void skypilot_num_nodes_disagree(void **state) {
    static const char *const env[] = {"SKYPILOT_NODE_IPS", "10.0.0.1\n10.0.0.2", "SKYPILOT_NODE_RANK", "0",
                                      "SKYPILOT_NUM_NODES", "3", NULL};
    static const scenario sc = {"skypilot: SKYPILOT_NUM_NODES disagrees", SKYPILOT, env, NULL, NULL, NULL, NULL, 0,
                                NULL, 0, ENV_ERR, "skypilot", "SKYPILOT_NUM_NODES=3 but SKYPILOT_NODE_IPS names 2",
                                NULL, NONE, NULL, 0, NULL};
    (void)state;
    walk(&sc);
}

/* ---------------------------------------------------------------------------------------
   lws */

static void lws_group(void **state) {
    static const char *const env[] = {LWS_VLLM_1_2, NULL};
    static const scenario sc = {"lws: a group of 4, worker 2", LWS, env, NULL, NULL, NULL, NULL, 0, NULL, 0, CRES_OK,
                                "lws", NULL,
                                "{\"worker\": [\"vllm-1.vllm.default:8470\", \"vllm-1-1.vllm.default:8470\", "
                                "\"vllm-1-2.vllm.default:8470\", \"vllm-1-3.vllm.default:8470\"]}",
                                {4, 2, 0, 1, 2, 4, "vllm-1.vllm.default", 8470, "vllm-1.vllm.default:8470"},
                                "vllm-1-2.vllm.default:8470", 0, NULL};
    (void)state;
    walk(&sc);
}

static void lws_options_leader(void **state) {
    static const char *const env[] = {LWS_VLLM_1_2, NULL};
    static const scenario sc = {"lws: hostname, job name, port, the leader by override", LWS, env, "vllm-1-2", "vllm",
                                NULL, "vllm", 0, "grpc", 9000, CRES_OK, "lws", NULL,
                                "{\"vllm\": [\"vllm-1.vllm.default:9000\", \"vllm-1-1.vllm.default:9000\", "
                                "\"vllm-1-2.vllm.default:9000\", \"vllm-1-3.vllm.default:9000\"]}",
                                {4, 0, 0, 1, 0, 4, "vllm-1.vllm.default", 9000, "vllm-1.vllm.default:9000"},
                                "grpc://vllm-1.vllm.default:9000", 0, NULL};
    (void)state;
    walk(&sc);
}

static void lws_hostname_mismatch(void **state) {
    static const char *const env[] = {LWS_VLLM_1_2, NULL};
    static const scenario sc = {"lws: another pod's host name", LWS, env, "vllm-1-3", NULL, NULL, NULL, 0, NULL, 0,
                                ENV_ERR, "lws", "LWS_WORKER_INDEX=2 is \"vllm-1-2\"", NULL, NONE, NULL, 0, NULL};
    (void)state;
    walk(&sc);
}

static void lws_not_dns(void **state) {
    static const char *const env[] = {"LWS_LEADER_ADDRESS", "vllm_1.vllm", "LWS_GROUP_SIZE", "2", "LWS_WORKER_INDEX",
                                      "1", NULL};
    static const scenario sc = {"lws: leader not a DNS name", LWS, env, NULL, NULL, NULL, NULL, 0, NULL, 0, ENV_ERR,
                                "lws", "LWS_LEADER_ADDRESS=\"vllm_1.vllm\" is not a DNS name", NULL, NONE, NULL, 0,
                                NULL};
    (void)state;
    walk(&sc);
}

/* ---------------------------------------------------------------------------------------
   volcano: several tasks, through the env_list hook */

static void volcano_pytorch(void **state) {
    static const char *const env[] = {VOLCANO_PYTORCH_WORKER1, NULL};
    static const scenario sc = {"volcano: pytorch job, master and 3 workers", VOLCANO, env, NULL, NULL, NULL, NULL, 0,
                                NULL, 0, CRES_OK, "volcano", NULL, VOLCANO_PYTORCH_SPEC,
                                /* the pytorch plugin's MASTER_PORT (23456) is kept */
                                {4, 2, 0, 1, 2, 4, "pytorch-job-master-0.pytorch-job", 23456,
                                 "pytorch-job-master-0.pytorch-job:23456"},
                                "pytorch-job-worker-1.pytorch-job:8470", 0, NULL};
    (void)state;
    walk(&sc);
}

static void volcano_three_tasks(void **state) {
    static const char *const env[] = {VOLCANO_TF_PS1, NULL};
    static const scenario sc = {"volcano: three tasks, one named with '-'", VOLCANO, env, NULL, NULL, NULL, NULL, 0,
                                NULL, 2222, CRES_OK, "volcano", NULL,
                                "{\"chief_evaluator\": [\"tf-dist-chief-evaluator-0.tf-dist:2222\"], \"ps\": "
                                "[\"tf-dist-ps-0.tf-dist:2222\", \"tf-dist-ps-1.tf-dist:2222\"], \"worker\": "
                                "[\"tf-dist-worker-0.tf-dist:2222\", \"tf-dist-worker-1.tf-dist:2222\"]}",
                                {5, 2, 0, 1, 2, 5, "tf-dist-chief-evaluator-0.tf-dist", 2222,
                                 "tf-dist-chief-evaluator-0.tf-dist:2222"},
                                "tf-dist-ps-1.tf-dist:2222", 0, NULL};
    (void)state;
    walk(&sc);
}

static void volcano_hostname_option_override(void **state) {
    static const char *const env[] = {VOLCANO_TF_PS1, NULL};
    static const scenario sc = {"volcano: options.hostname, task override, rpc layer", VOLCANO, env,
                                "tf-dist-ps-1.tf-dist", NULL, NULL, "worker", 0, "grpc", 0, CRES_OK, "volcano", NULL,
                                "{\"chief_evaluator\": [\"tf-dist-chief-evaluator-0.tf-dist:8470\"], \"ps\": "
                                "[\"tf-dist-ps-0.tf-dist:8470\", \"tf-dist-ps-1.tf-dist:8470\"], \"worker\": "
                                "[\"tf-dist-worker-0.tf-dist:8470\", \"tf-dist-worker-1.tf-dist:8470\"]}",
                                {5, 3, 0, 1, 3, 5, "tf-dist-chief-evaluator-0.tf-dist", 8470,
                                 "tf-dist-chief-evaluator-0.tf-dist:8470"},
                                "grpc://tf-dist-worker-0.tf-dist:8470", 0, NULL};
    (void)state;
    walk(&sc);
}

static void volcano_trailing_comma(void **state) {
    static const char *const env[] = {"VC_PS_HOSTS", "j-ps-0.j", "VC_WORKER_HOSTS", "j-worker-0.j,j-worker-1.j,",
                                      "VC_TASK_INDEX", "0", "HOSTNAME", "j-ps-0", NULL};
    static const scenario sc = {"volcano: a trailing comma in the second task", VOLCANO, env, NULL, NULL, NULL, NULL,
                                0, NULL, 0, ENV_ERR, "volcano", "VC_WORKER_HOSTS ends with a comma", NULL, NONE, NULL,
                                0, NULL};
    (void)state;
    walk(&sc);
}

static void volcano_index_disagrees(void **state) {
    static const char *const env[] = {"VC_PS_HOSTS", "j-ps-0.j", "VC_WORKER_HOSTS", "j-worker-0.j,j-worker-1.j",
                                      "VK_TASK_INDEX", "0", "HOSTNAME", "j-worker-1", NULL};
    static const scenario sc = {"volcano: VK_TASK_INDEX disagrees", VOLCANO, env, NULL, NULL, NULL, NULL, 0, NULL, 0,
                                ENV_ERR, "volcano", "VK_TASK_INDEX=0, but this pod's host name is task 1 of worker",
                                NULL, NONE, NULL, 0, NULL};
    (void)state;
    walk(&sc);
}

static void volcano_no_hosts(void **state) {
    static const char *const env[] = {"VC_TASK_INDEX", "0", "HOSTNAME", "j-worker-0", NULL};
    static const scenario sc = {"volcano: no VC_*_HOSTS", VOLCANO, env, NULL, NULL, NULL, NULL, 0, NULL, 0, ENV_ERR,
                                "volcano", "no VC_<TASK>_HOSTS variable", NULL, NONE, NULL, 0, NULL};
    (void)state;
    walk(&sc);
}

/* ---------------------------------------------------------------------------------------
   auto */

static void auto_volcano_over_torch(void **state) {
    static const char *const env[] = {VOLCANO_PYTORCH_WORKER1, NULL};
    static const scenario sc = {"auto: volcano over its pytorch plugin's names, port", AUTO, env, NULL, NULL, NULL,
                                NULL, 0, NULL, 23456, CRES_OK, "volcano", NULL,
                                "{\"master\": [\"pytorch-job-master-0.pytorch-job:23456\"], \"worker\": "
                                "[\"pytorch-job-worker-0.pytorch-job:23456\", "
                                "\"pytorch-job-worker-1.pytorch-job:23456\", "
                                "\"pytorch-job-worker-2.pytorch-job:23456\"]}",
                                {4, 2, 0, 1, 2, 4, "pytorch-job-master-0.pytorch-job", 23456,
                                 "pytorch-job-master-0.pytorch-job:23456"},
                                "pytorch-job-worker-1.pytorch-job:23456", 0, NULL};
    (void)state;
    walk(&sc);
}

static void auto_lws_over_tpu(void **state) {
    static const char *const env[] = {LWS_VLLM_1_2, "TPU_WORKER_HOSTNAMES",
                                      "vllm-1.vllm,vllm-1-1.vllm,vllm-1-2.vllm,vllm-1-3.vllm", "TPU_WORKER_ID", "2",
                                      NULL};
    static const scenario sc = {"auto: lws over its TPU variables", AUTO, env, NULL, NULL, NULL, NULL, 0, NULL, 0,
                                CRES_OK, "lws", NULL,
                                "{\"worker\": [\"vllm-1.vllm.default:8470\", \"vllm-1-1.vllm.default:8470\", "
                                "\"vllm-1-2.vllm.default:8470\", \"vllm-1-3.vllm.default:8470\"]}",
                                {4, 2, 0, 1, 2, 4, "vllm-1.vllm.default", 8470, "vllm-1.vllm.default:8470"},
                                "vllm-1-2.vllm.default:8470", 0, NULL};
    (void)state;
    walk(&sc);
}

static void auto_skypilot(void **state) {
    static const char *const env[] = {SKYPILOT_NODE1, "RANK", "1", "WORLD_SIZE", "3", NULL};
    static const scenario sc = {"auto: skypilot over torch's names", AUTO, env, NULL, NULL, NULL, NULL, 0, NULL, 0,
                                CRES_OK, "skypilot", NULL,
                                "{\"worker\": [\"10.128.0.21:8470\", \"10.128.0.22:8470\", \"10.128.0.23:8470\"]}",
                                {3, 1, 0, 1, 1, 3, "10.128.0.21", 8470, "10.128.0.21:8470"}, "10.128.0.22:8470", 8,
                                NULL};
    (void)state;
    walk(&sc);
}

static void auto_vertex(void **state) {
    static const char *const env[] = {"CLUSTER_SPEC", VERTEX_SPEC_JSON, "SM_CURRENT_HOST", "algo-1", NULL};
    static const scenario sc = {"auto: vertex over sagemaker", AUTO, env, NULL, NULL, NULL, NULL, 0, NULL, 0, CRES_OK,
                                "vertex", NULL, VERTEX_CLUSTER,
                                {3, 2, 0, 1, 2, 3, VERTEX_HEAD, 2222, VH("workerpool0", 0)},
                                VH("workerpool1", 1), 0, "cloud"};
    (void)state;
    walk(&sc);
}

static void auto_forced_volcano(void **state) {
    static const char *const env[] = {"TF_CONFIG", "{\"cluster\": {\"worker\": [\"w0:1\"]}}", VOLCANO_TF_PS1, NULL};
    static const scenario sc = {"auto: forced volcano", AUTO, env, NULL, NULL, "volcano", NULL, 0, NULL, 0, CRES_OK,
                                "volcano", NULL,
                                "{\"chief_evaluator\": [\"tf-dist-chief-evaluator-0.tf-dist:8470\"], \"ps\": "
                                "[\"tf-dist-ps-0.tf-dist:8470\", \"tf-dist-ps-1.tf-dist:8470\"], \"worker\": "
                                "[\"tf-dist-worker-0.tf-dist:8470\", \"tf-dist-worker-1.tf-dist:8470\"]}",
                                {5, 2, 0, 1, 2, 5, "tf-dist-chief-evaluator-0.tf-dist", 8470,
                                 "tf-dist-chief-evaluator-0.tf-dist:8470"},
                                "tf-dist-ps-1.tf-dist:8470", 0, NULL};
    (void)state;
    walk(&sc);
}

static void auto_partial_lws(void **state) {
    static const char *const env[] = {"LWS_WORKER_INDEX", "1", NULL};
    static const scenario sc = {"auto: LWS_WORKER_INDEX alone", AUTO, env, NULL, NULL, NULL, NULL, 0, NULL, 0,
                                ENV_ERR, "lws", "LWS_WORKER_INDEX=\"1\" is set, LWS_LEADER_ADDRESS is not", NULL, NONE,
                                NULL, 0, NULL};
    (void)state;
    walk(&sc);
}

/* See alloc_walk_first_fails(). */
static void allocator_fails_the_first_allocation(void **state) {
    static const char *const env[] = {VOLCANO_PYTORCH_WORKER1, NULL};
    static const scenario sc = {"first allocation", VOLCANO, env, NULL, NULL, NULL, NULL, 0, NULL, 0, CRES_OK,
                                "volcano", NULL, VOLCANO_PYTORCH_SPEC,
                                {4, 2, 0, 1, 2, 4, "pytorch-job-master-0.pytorch-job", 8470,
                                 "pytorch-job-master-0.pytorch-job:8470"},
                                "pytorch-job-worker-1.pytorch-job:8470", 0, NULL};
    (void)state;
    alloc_walk_first_fails(run_scenario, &sc);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(allocator_fails_the_first_allocation),
        cmocka_unit_test(vertex_cluster_spec),
        cmocka_unit_test(vertex_option_override_rpc),
        cmocka_unit_test(vertex_task_outside),
        cmocka_unit_test(vertex_pool_object),
        cmocka_unit_test(skypilot_three_nodes),
        cmocka_unit_test(skypilot_ipv6_port_job),
        cmocka_unit_test(skypilot_duplicate),
        cmocka_unit_test(skypilot_num_nodes_disagree),
        cmocka_unit_test(lws_group),
        cmocka_unit_test(lws_options_leader),
        cmocka_unit_test(lws_hostname_mismatch),
        cmocka_unit_test(lws_not_dns),
        cmocka_unit_test(volcano_pytorch),
        cmocka_unit_test(volcano_three_tasks),
        cmocka_unit_test(volcano_hostname_option_override),
        cmocka_unit_test(volcano_trailing_comma),
        cmocka_unit_test(volcano_index_disagrees),
        cmocka_unit_test(volcano_no_hosts),
        cmocka_unit_test(auto_volcano_over_torch),
        cmocka_unit_test(auto_lws_over_tpu),
        cmocka_unit_test(auto_skypilot),
        cmocka_unit_test(auto_vertex),
        cmocka_unit_test(auto_forced_volcano),
        cmocka_unit_test(auto_partial_lws),
    };
    return cmocka_run_group_tests_name("allocation failure: platforms", tests, NULL, NULL);
}
