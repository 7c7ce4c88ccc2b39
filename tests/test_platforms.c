/* Unit tests for the platforms that name every member: Vertex AI (CLUSTER_SPEC), SkyPilot
   (SKYPILOT_NODE_IPS), Volcano (VC_<TASK>_HOSTS, found through the env_list hook) and
   LeaderWorkerSet (LWS_LEADER_ADDRESS), and auto-detection's order around them; SageMaker's
   host checks and its resource config beside the environment (test_hpc.c has the rest).

   Each fixture is the environment the platform's own source or documentation gives a
   process, cited where it is defined. Every positive case checks the whole spec, the own
   task and the whole launch info. Every bad variable must give an error whose message
   names the variable and its value. The environment is only ever given through the
   cres_config.getenv and cres_config.env_list hooks, both over the table of
   tests/env_table.h (never setenv), the log through cres_config.log. No test needs the
   network; only SageMaker's resource config is a (temporary) file.

   Tests named in the "library bugs" section at the end fail on the header they were
   written against (see the comment above each). */

#define _POSIX_C_SOURCE 200809L

#include "test_util.h"
#include "env_table.h"
#include "resolver_checks.h"

/* ---------------------------------------------------------------------------------------
   The environment: the table of tests/env_table.h behind the getenv hook and the env_list
   hook, and its log capture behind the log hook. */

/* Every test starts from an empty environment, uncounted hooks and an empty log. */
static int reset(void **state) {
    (void)state;
    env_reset();
    env.listed = env.asked = 0;
    env_config();
    env_list_config();
    log_config();
    return 0;
}

/* ---------------------------------------------------------------------------------------
   Checks (the shared ones are in tests/resolver_checks.h) */

#define U CRES_UNKNOWN
#define N(a) (sizeof(a) / sizeof *(a))
#define ENV CRES_ERR_ENVIRONMENT

/* cres_resolve() must give exactly this spec (written with single quotes), as a fresh copy
   each time. */
static void expect_spec_at(cres_resolver *r, const char *sq_json, int line) {
    cres_cluster_spec *a = NULL, *b = NULL;
    cres_error err;
    cres_result got = cres_resolve(r, &a, &err);
    const char *text;
    if (got != CRES_OK) fail_msg("line %d: cres_resolve: %s: %s", line, cres_result_string(got), err.message);
    text = json_of(a);
    if (strcmp(text, dq(sq_json)) != 0) fail_msg("line %d: spec is\n  %s\nwant\n  %s", line, text, dq(sq_json));
    OK(cres_resolve(r, &b, &err));
    if (a == b) fail_msg("line %d: cres_resolve handed out the same spec twice", line);
    assert_true(cres_spec_equal(a, b));
    cres_spec_free(a);
    cres_spec_free(b);
}

#define SPEC_IS(r, sq_json) expect_spec_at((r), (sq_json), __LINE__)

static void expect_task_at(cres_resolver *r, const char *type, int id, int line) {
    if (!type) {
        if (cres_task_type(r)) fail_msg("line %d: task type is \"%s\", want none", line, cres_task_type(r));
    } else if (!cres_task_type(r) || strcmp(cres_task_type(r), type) != 0) {
        fail_msg("line %d: task type is \"%s\", want \"%s\"", line, cres_task_type(r) ? cres_task_type(r) : "(none)",
                 type);
    }
    if (cres_task_id(r) != id) fail_msg("line %d: task id is %d, want %d", line, cres_task_id(r), id);
}

#define TASK_IS(r, type, id) expect_task_at((r), (type), (id), __LINE__)

static const char *tfconfig_of(cres_resolver *r) {
    static char buf[4096];
    cres_error err;
    OK(cres_tfconfig(r, buf, sizeof buf, NULL, &err));
    return buf;
}

/* cres_num_accelerators: none (gpus 0) or {"GPU", gpus}, the same for any task. */
static void expect_gpus_at(cres_resolver *r, int gpus, int line) {
    cres_accelerators acc;
    cres_error err;
    memset(&acc, 0x5a, sizeof acc);
    OK(cres_num_accelerators(r, &acc, &err));
    if (gpus == 0) {
        if (acc.count != 0) fail_msg("line %d: %zu accelerator kinds, want none", line, acc.count);
    } else if (acc.count != 1 || strcmp(acc.items[0].type, "GPU") != 0 || acc.items[0].count != gpus) {
        fail_msg("line %d: accelerators %zu: %s x %d, want GPU x %d", line, acc.count, acc.items[0].type,
                 acc.items[0].count, gpus);
    }
}

#define GPUS_ARE(r, gpus) expect_gpus_at((r), (gpus), __LINE__)

/* ---------------------------------------------------------------------------------------
   Creation helpers */

static cres_vertex_options vertex_options(void) {
    cres_vertex_options o;
    memset(&o, 0, sizeof o);
    o.config = &cfg;
    return o;
}

static cres_resolver *vertex_with(cres_vertex_options o) {
    cres_resolver *r = NULL;
    cres_error err;
    OK(cres_vertex_resolver_create(&o, &r, &err));
    assert_non_null(r);
    assert_string_equal(cres_resolver_name(r), "vertex");
    return r;
}

static cres_resolver *vertex(void) { return vertex_with(vertex_options()); }

static cres_skypilot_options skypilot_options(void) {
    cres_skypilot_options o;
    memset(&o, 0, sizeof o);
    o.config = &cfg;
    return o;
}

static cres_resolver *skypilot_with(cres_skypilot_options o) {
    cres_resolver *r = NULL;
    cres_error err;
    OK(cres_skypilot_resolver_create(&o, &r, &err));
    assert_non_null(r);
    assert_string_equal(cres_resolver_name(r), "skypilot");
    return r;
}

static cres_resolver *skypilot(void) { return skypilot_with(skypilot_options()); }

static cres_volcano_options volcano_options(void) {
    cres_volcano_options o;
    memset(&o, 0, sizeof o);
    o.config = &cfg;
    return o;
}

static cres_resolver *volcano_with(cres_volcano_options o) {
    cres_resolver *r = NULL;
    cres_error err;
    OK(cres_volcano_resolver_create(&o, &r, &err));
    assert_non_null(r);
    assert_string_equal(cres_resolver_name(r), "volcano");
    return r;
}

static cres_resolver *volcano(void) { return volcano_with(volcano_options()); }

static cres_lws_options lws_options(void) {
    cres_lws_options o;
    memset(&o, 0, sizeof o);
    o.config = &cfg;
    return o;
}

static cres_resolver *lws_with(cres_lws_options o) {
    cres_resolver *r = NULL;
    cres_error err;
    OK(cres_lws_resolver_create(&o, &r, &err));
    assert_non_null(r);
    assert_string_equal(cres_resolver_name(r), "lws");
    return r;
}

static cres_resolver *lws(void) { return lws_with(lws_options()); }

#define VERTEX_FAILS(opts, want, sub1, sub2) FAILS_WITH(cres_vertex_resolver_create, opts, want, sub1, sub2)
#define SKYPILOT_FAILS(opts, want, sub1, sub2) FAILS_WITH(cres_skypilot_resolver_create, opts, want, sub1, sub2)
#define VOLCANO_FAILS(opts, want, sub1, sub2) FAILS_WITH(cres_volcano_resolver_create, opts, want, sub1, sub2)
#define LWS_FAILS(opts, want, sub1, sub2) FAILS_WITH(cres_lws_resolver_create, opts, want, sub1, sub2)
#define AUTO_FAILS(opts, want, sub1, sub2) FAILS_WITH(cres_auto_resolver_create, opts, want, sub1, sub2)

/* ---------------------------------------------------------------------------------------
   Platform environments */

/* Vertex AI CustomJob of four worker pools: the primary replica (workerpool0), two workers
   (workerpool1), two parameter servers (workerpool2) and an evaluator (workerpool3), the
   process of workerpool1 replica 1. CLUSTER_SPEC as "Format of CLUSTER_SPEC" in
   cloud.google.com/vertex-ai/docs/training/distributed-training describes it: "cluster" of
   pool name -> list of "host:port", "environment" "cloud", "task" {type, index, trial},
   "job" (the CustomJobSpec) and "open_ports"; host names as Vertex gives them
   (cmle-training-<pool>-<id>-<replica>). */
#define VERTEX_HOST(pool, i) "cmle-training-" pool "-1d969d3ba6-" i ":2222"
static const char vertex_workerpool1_1[] =
    "{\"cluster\": {\"workerpool0\": [\"" VERTEX_HOST("workerpool0", "0") "\"], "
    "\"workerpool1\": [\"" VERTEX_HOST("workerpool1", "0") "\", \"" VERTEX_HOST("workerpool1", "1") "\"], "
    "\"workerpool2\": [\"" VERTEX_HOST("workerpool2", "0") "\", \"" VERTEX_HOST("workerpool2", "1") "\"], "
    "\"workerpool3\": [\"" VERTEX_HOST("workerpool3", "0") "\"]}, "
    "\"environment\": \"cloud\", "
    "\"task\": {\"type\": \"workerpool1\", \"index\": 1, \"trial\": \"\"}, "
    "\"job\": {\"worker_pool_specs\": [{\"machine_spec\": {\"machine_type\": \"n1-standard-8\"}, "
    "\"replica_count\": \"1\", \"container_spec\": {\"image_uri\": \"gcr.io/p/trainer:1\"}}], "
    "\"enable_web_access\": false}, "
    "\"open_ports\": [3333]}";

#define VERTEX_SPEC                                                                            \
    "{'workerpool0': ['" VERTEX_HOST("workerpool0", "0") "'], "                                  \
    "'workerpool1': ['" VERTEX_HOST("workerpool1", "0") "', '" VERTEX_HOST("workerpool1", "1") "'], " \
    "'workerpool2': ['" VERTEX_HOST("workerpool2", "0") "', '" VERTEX_HOST("workerpool2", "1") "'], " \
    "'workerpool3': ['" VERTEX_HOST("workerpool3", "0") "']}"

/* The TF_CONFIG Vertex AI sets beside it for the same process (the same page: pools 0-3
   are chief, worker, ps and evaluator; the evaluator outside "cluster"). */
static const char vertex_tf_config[] =
    "{\"cluster\": {\"chief\": [\"" VERTEX_HOST("workerpool0", "0") "\"], "
    "\"worker\": [\"" VERTEX_HOST("workerpool1", "0") "\", \"" VERTEX_HOST("workerpool1", "1") "\"], "
    "\"ps\": [\"" VERTEX_HOST("workerpool2", "0") "\", \"" VERTEX_HOST("workerpool2", "1") "\"]}, "
    "\"environment\": \"cloud\", \"task\": {\"type\": \"worker\", \"index\": 1, \"trial\": \"\"}, "
    "\"job\": {}}";

/* `sky launch` of a task with num_nodes: 3 and accelerators A100:8, node 1: the SkyPilot
   variables docs.skypilot.co/en/stable/running-jobs/environment-variables.html lists for the
   run section (SKYPILOT_NODE_IPS one IP a line, the head node first; SKYPILOT_NODE_RANK;
   SKYPILOT_NUM_NODES; SKYPILOT_NUM_GPUS_PER_NODE; SKYPILOT_TASK_ID; SKYPILOT_CLUSTER_INFO),
   as distributed-jobs.html uses them (MASTER_ADDR=$(echo "$SKYPILOT_NODE_IPS" | head -n1)). */
static const char skypilot_node1[] =
    "SKYPILOT_NODE_RANK=1\n"
    "SKYPILOT_NUM_NODES=3\n"
    "SKYPILOT_NUM_GPUS_PER_NODE=8\n"
    "SKYPILOT_TASK_ID=sky-2026-08-01-12-00-00-123456_mycluster_1\n"
    "SKYPILOT_CLUSTER_INFO={\"cluster_name\": \"mycluster\", \"cloud\": \"GCP\", \"region\": \"us-central1\"}\n";
#define SKYPILOT_IPS "10.128.0.21\n10.128.0.22\n10.128.0.23"

static void skypilot_node(int rank) {
    env_lines(skypilot_node1);
    env_set("SKYPILOT_NODE_IPS", SKYPILOT_IPS);
    env_setf("SKYPILOT_NODE_RANK", "%d", rank);
}

/* A LeaderWorkerSet "vllm" (size 4) in namespace "default", group 1, worker 2: the
   variables AddLWSVariables (kubernetes-sigs/lws pkg/utils/pod/pod_utils.go) gives every
   container -- LWS_LEADER_ADDRESS "<lws>-<group>.<subdomain>.<namespace>" (the subdomain is
   the LWS name), LWS_GROUP_SIZE from the size annotation, LWS_WORKER_INDEX from the
   worker-index label -- with the worker pod's HOSTNAME "<lws>-<group>-<index>" (the leader
   is "<lws>-<group>") and what Kubernetes adds. */
static const char lws_vllm_1_2[] =
    "LWS_LEADER_ADDRESS=vllm-1.vllm.default\n"
    "LWS_GROUP_SIZE=4\n"
    "LWS_WORKER_INDEX=2\n"
    "HOSTNAME=vllm-1-2\n"
    "KUBERNETES_SERVICE_HOST=10.96.0.1\n"
    "KUBERNETES_SERVICE_PORT=443\n";
#define LWS_VLLM_SPEC                                                                                   \
    "{'worker': ['vllm-1.vllm.default:8470', 'vllm-1-1.vllm.default:8470', 'vllm-1-2.vllm.default:8470', " \
    "'vllm-1-3.vllm.default:8470']}"

/* The same set on TPU (LWS's TPU webhook, pkg/webhooks/pod_webhook.go with
   pkg/utils/accelerators/tpu.go): TPU_WORKER_HOSTNAMES (every pod of the group, leader
   first, "<pod>.<subdomain>"), TPU_WORKER_ID (the worker index) and TPU_NAME (the leader). */
static const char lws_tpu_extra[] =
    "TPU_WORKER_HOSTNAMES=vllm-1.vllm,vllm-1-1.vllm,vllm-1-2.vllm,vllm-1-3.vllm\n"
    "TPU_WORKER_ID=2\n"
    "TPU_NAME=vllm-1\n";

/* A Volcano Job "pytorch-job" with tasks "master" (1 replica) and "worker" (3), plugins
   env, svc and pytorch, the pod of worker 1. svc (volcano-sh/volcano
   pkg/controllers/job/plugins/svc/svc.go: GenerateHosts, OnPodCreate): VC_<TASK>_HOSTS the
   task's hosts "<job>-<task>-<i>.<job>" joined by ',', VC_<TASK>_NUM their count, TASK
   upper-cased with '-' made '_'; the pod's hostname is its name "<job>-<task>-<i>". env
   (plugins/env): VC_TASK_INDEX and the legacy VK_TASK_INDEX, the pod's index in its task.
   pytorch (plugins/distributed-framework/pytorch/pytorch.go): MASTER_ADDR (master 0's
   host), MASTER_PORT 23456, WORLD_SIZE (master + worker replicas), RANK (worker index + 1). */
static const char volcano_pytorch_worker1[] =
    "VC_MASTER_HOSTS=pytorch-job-master-0.pytorch-job\n"
    "VC_MASTER_NUM=1\n"
    "VC_WORKER_HOSTS=pytorch-job-worker-0.pytorch-job,pytorch-job-worker-1.pytorch-job,"
    "pytorch-job-worker-2.pytorch-job\n"
    "VC_WORKER_NUM=3\n"
    "VC_TASK_INDEX=1\n"
    "VK_TASK_INDEX=1\n"
    "HOSTNAME=pytorch-job-worker-1\n"
    "MASTER_ADDR=pytorch-job-master-0.pytorch-job\n"
    "MASTER_PORT=23456\n"
    "WORLD_SIZE=4\n"
    "RANK=2\n"
    "KUBERNETES_SERVICE_HOST=10.96.0.1\n"
    "KUBERNETES_SERVICE_PORT=443\n";
#define VOLCANO_PYTORCH_SPEC                                                                              \
    "{'master': ['pytorch-job-master-0.pytorch-job:8470'], 'worker': ['pytorch-job-worker-0.pytorch-job:8470', " \
    "'pytorch-job-worker-1.pytorch-job:8470', 'pytorch-job-worker-2.pytorch-job:8470']}"

/* A TensorFlow-style Volcano Job "tf-dist" with tasks "ps" (2) and "param-server"-free
   workers "worker" (2) and a task named "chief-evaluator" (1), svc and env plugins only:
   the pod of ps 1. The task name's '-' is '_' in its variables. */
static const char volcano_tf_ps1[] =
    "VC_PS_HOSTS=tf-dist-ps-0.tf-dist,tf-dist-ps-1.tf-dist\n"
    "VC_PS_NUM=2\n"
    "VC_WORKER_HOSTS=tf-dist-worker-0.tf-dist,tf-dist-worker-1.tf-dist\n"
    "VC_WORKER_NUM=2\n"
    "VC_CHIEF_EVALUATOR_HOSTS=tf-dist-chief-evaluator-0.tf-dist\n"
    "VC_CHIEF_EVALUATOR_NUM=1\n"
    "VC_TASK_INDEX=1\n"
    "VK_TASK_INDEX=1\n"
    "HOSTNAME=tf-dist-ps-1\n";

/* ---------------------------------------------------------------------------------------
   vertex */

static void vertex_custom_job_four_pools(void **state) {
    cres_resolver *r;
    (void)state;
    env_set("CLUSTER_SPEC", vertex_workerpool1_1);
    r = vertex();
    SPEC_IS(r, VERTEX_SPEC);
    TASK_IS(r, "workerpool1", 1);
    /* no "chief": the pools in name order; no rpc layer; the environment passed through. The
       ranks are pools 0 and 1's (2 is the parameter servers or Reduction Server, 3 the
       evaluators: Vertex AI's distributed-training page) */
    LAUNCH_IS(r, 3, 2, 0, 1, 2, 3, "cmle-training-workerpool0-1d969d3ba6-0", 2222, VERTEX_HOST("workerpool0", "0"));
    assert_null(cres_rpc_layer(r));
    assert_string_equal(cres_environment(r), "cloud");
    assert_string_equal(own_master(r), VERTEX_HOST("workerpool1", "1"));
    assert_string_equal(master_of(r, "workerpool2", 1, "grpc"), "grpc://" VERTEX_HOST("workerpool2", "1"));
    GPUS_ARE(r, 0);
    assert_string_equal(tfconfig_of(r), dq("{'cluster': " VERTEX_SPEC ", 'task': {'type': 'workerpool1', 'index': 1}, "
                                           "'rpc_layer': '', 'environment': 'cloud'}"));
    cres_resolver_free(r);
    /* every pool's process */
    env_set("CLUSTER_SPEC", dq("{'cluster': " VERTEX_SPEC ", 'environment': 'cloud', "
                               "'task': {'type': 'workerpool0', 'index': 0, 'trial': ''}}"));
    r = vertex();
    TASK_IS(r, "workerpool0", 0);
    LAUNCH_IS(r, 3, 0, 0, 1, 0, 3, "cmle-training-workerpool0-1d969d3ba6-0", 2222, VERTEX_HOST("workerpool0", "0"));
    cres_resolver_free(r);
    env_set("CLUSTER_SPEC", dq("{'cluster': " VERTEX_SPEC ", 'environment': 'cloud', "
                               "'task': {'type': 'workerpool3', 'index': 0, 'trial': ''}}"));
    r = vertex();
    {   /* an evaluator takes no rank */
        cres_launch_info info;
        cres_error err;
        EXPECT(cres_launch(r, &info, &err), CRES_ERR_NOT_FOUND);
        HAS(err.message, "workerpool3, whose replicas (parameter servers, Reduction Server, evaluators)");
    }
    cres_resolver_free(r);
    HAS(logs.text, "DEBUG vertex: reading CLUSTER_SPEC (");
}

/* A one-replica job (workerpool0 alone), a hyperparameter-tuning trial, the reduction
   server pool: what Vertex writes besides the cluster is read past. */
static void vertex_single_replica_and_trial(void **state) {
    cres_resolver *r;
    (void)state;
    env_set("CLUSTER_SPEC", dq("{'cluster': {'workerpool0': ['cmle-training-workerpool0-ab-0:2222']}, "
                               "'environment': 'cloud', 'task': {'type': 'workerpool0', 'index': 0, 'trial': '7'}, "
                               "'job': {'python_package_spec': {'executor_image_uri': 'x', "
                               "'package_uris': ['gs://b/p'], "
                               "'python_module': 'trainer.task', 'args': ['--lr', '0.1']}}, 'open_ports': []}"));
    r = vertex();
    SPEC_IS(r, "{'workerpool0': ['cmle-training-workerpool0-ab-0:2222']}");
    TASK_IS(r, "workerpool0", 0);
    LAUNCH_IS(r, 1, 0, 0, 1, 0, 1, "cmle-training-workerpool0-ab-0", 2222, "cmle-training-workerpool0-ab-0:2222");
    cres_resolver_free(r);
    /* Reduction Server: workerpool2 holds the reducers; the pools may be sparse in number */
    env_set("CLUSTER_SPEC", dq("{'cluster': {'workerpool0': ['w0:2222'], 'workerpool2': ['r0:2222', 'r1:2222']}, "
                               "'environment': 'cloud', 'task': {'type': 'workerpool2', 'index': 1}}"));
    r = vertex();
    SPEC_IS(r, "{'workerpool0': ['w0:2222'], 'workerpool2': ['r0:2222', 'r1:2222']}");
    {   /* a reducer takes no rank: torch's and JAX's processes are pools 0 and 1 */
        cres_launch_info info;
        cres_error err;
        EXPECT(cres_launch(r, &info, &err), CRES_ERR_NOT_FOUND);
        HAS(err.message, "vertex: CLUSTER_SPEC's task is in workerpool2, whose replicas");
    }
    cres_resolver_free(r);
    env_set("CLUSTER_SPEC", dq("{'cluster': {'workerpool0': ['w0:2222'], 'workerpool2': ['r0:2222', 'r1:2222']}, "
                               "'environment': 'cloud', 'task': {'type': 'workerpool0', 'index': 0}}"));
    r = vertex();
    LAUNCH_IS(r, 1, 0, 0, 1, 0, 1, "w0", 2222, "w0:2222");
    cres_resolver_free(r);
    /* the "job" member as a string (older shape) is read past too */
    env_set("CLUSTER_SPEC", dq("{'cluster': {'workerpool0': ['w0:2222']}, 'job': '{\\'a\\': 1}', "
                               "'task': {'type': 'workerpool0', 'index': 0}}"));
    r = vertex();
    assert_null(cres_environment(r));
    LAUNCH_IS(r, 1, 0, 0, 1, 0, 1, "w0", 2222, "w0:2222");
    cres_resolver_free(r);
}

/* options.cluster_spec is read instead of the variable; options override the task and the
   rpc layer. */
static void vertex_options_override(void **state) {
    cres_vertex_options o = vertex_options();
    cres_resolver *r;
    (void)state;
    env_set("CLUSTER_SPEC", "not json");
    o.cluster_spec = vertex_workerpool1_1;
    r = vertex_with(o);
    SPEC_IS(r, VERTEX_SPEC);
    TASK_IS(r, "workerpool1", 1);
    cres_resolver_free(r);
    o.task_type = "workerpool2";
    o.task_id = 0;
    o.rpc_layer = "grpc";
    r = vertex_with(o);
    TASK_IS(r, "workerpool2", 0);
    assert_string_equal(cres_rpc_layer(r), "grpc");
    assert_string_equal(own_master(r), "grpc://" VERTEX_HOST("workerpool2", "0"));
    o.task_type = "workerpool1"; /* pool 2 takes no rank; pool 1's task 0 is rank 1 */
    cres_resolver_free(r);
    r = vertex_with(o);
    LAUNCH_IS(r, 3, 1, 0, 1, 1, 3, "cmle-training-workerpool0-1d969d3ba6-0", 2222, VERTEX_HOST("workerpool0", "0"));
    cres_resolver_free(r);
    /* the option's errors name the option, not the variable */
    o = vertex_options();
    o.cluster_spec = "{\"cluster\": {}}";
    VERTEX_FAILS(o, ENV, "options.cluster_spec", "names no worker pool");
    o.cluster_spec = "[1]";
    VERTEX_FAILS(o, ENV, "options.cluster_spec: must be a JSON object", NULL);
}

/* CLUSTER_SPEC: each bad shape is an error naming the variable and what is wrong. */
static void vertex_bad_cluster_spec(void **state) {
    static const struct {
        const char *json, *sub1, *sub2;
    } cases[] = {
        {"{'cluster': {'workerpool0': {'0': 'h:2222'}}, 'task': {'type': 'workerpool0', 'index': 0}}",
         "CLUSTER_SPEC: \"cluster\" member \"workerpool0\"", "must be a list"},
        {"{'cluster': {'workerpool0': ['h:2222'], 'workerpool1': 'w:2222'}, "
         "'task': {'type': 'workerpool0', 'index': 0}}",
         "CLUSTER_SPEC: \"cluster\" member \"workerpool1\"", "must be a list"},
        {"{'cluster': {'workerpool0': ['h:2222']}, 'task': {'type': 'workerpool1', 'index': 0}}",
         "CLUSTER_SPEC: \"task.type\" \"workerpool1\" is not a job", "workerpool0"},
        {"{'cluster': {'workerpool0': ['h:2222']}, 'task': {'type': 'workerpool0', 'index': 1}}",
         "CLUSTER_SPEC: \"task.index\" 1 is not a task of job \"workerpool0\"", NULL},
        {"{'cluster': {'workerpool0': ['h:2222']}, 'task': {'type': 'workerpool0', 'index': -1}}",
         "CLUSTER_SPEC: \"task.index\"", NULL},
        {"{'cluster': {'workerpool0': ['h:2222']}, 'task': {'type': 'workerpool0', 'index': 'x'}}",
         "CLUSTER_SPEC: \"task.index\"", "\"x\""},
        {"{'cluster': {'workerpool0': ['h:2222']}, 'task': 'workerpool0'}", "CLUSTER_SPEC: \"task\" must be an object",
         NULL},
        {"{'cluster': {}, 'task': {'type': 'workerpool0', 'index': 0}}", "CLUSTER_SPEC", "names no worker pool"},
        {"{'task': {'type': 'workerpool0', 'index': 0}}", "CLUSTER_SPEC: \"cluster\" is missing", NULL},
        {"{'cluster': null}", "CLUSTER_SPEC: \"cluster\" is missing", NULL},
        /* TF_CONFIG's sparse form is not Vertex's */
        {"{'sparseCluster': {'workerpool0': ['h:2222']}}", "CLUSTER_SPEC: \"cluster\" is missing", NULL},
        {"{'cluster': ['h:2222']}", "CLUSTER_SPEC", "\"cluster\""},
        {"{'cluster': {'workerpool0': ['h:2222', 7]}}", "CLUSTER_SPEC", "workerpool0"},
        {"{'cluster': {'workerpool0': ['h:2222'], 'workerpool0': ['g:2222']}}", "CLUSTER_SPEC",
         "\"workerpool0\" appears twice"},
        {"{'cluster': {'workerpool0': ['h:2222']}, 'environment': 3}", "CLUSTER_SPEC: \"environment\" must be a string",
         NULL},
        {"{'cluster': {'workerpool0': ['h:2222']", "CLUSTER_SPEC: invalid JSON", NULL},
        {"'cluster'", "CLUSTER_SPEC", NULL},
        {"[]", "CLUSTER_SPEC: must be a JSON object", NULL},
    };
    size_t i;
    (void)state;
    for (i = 0; i < N(cases); i++) {
        cres_vertex_options o = vertex_options();
        print_message("    %s\n", dq(cases[i].json));
        env_set("CLUSTER_SPEC", dq(cases[i].json));
        VERTEX_FAILS(o, ENV, cases[i].sub1, cases[i].sub2);
        /* auto reaches the same error */
        {
            cres_auto_options a = auto_options();
            AUTO_FAILS(a, ENV, cases[i].sub1, cases[i].sub2);
        }
    }
}

/* Not set, blank, or naming no pool: not a Vertex job. */
static void vertex_not_set_blank_or_empty(void **state) {
    cres_vertex_options o = vertex_options();
    (void)state;
    VERTEX_FAILS(o, ENV, "vertex: CLUSTER_SPEC", "not set");
    env_set("CLUSTER_SPEC", "");
    VERTEX_FAILS(o, ENV, "vertex: CLUSTER_SPEC", "empty");
    env_set("CLUSTER_SPEC", " \n\t");
    VERTEX_FAILS(o, ENV, "vertex: CLUSTER_SPEC", "empty");
    env_set("CLUSTER_SPEC", "{}");
    VERTEX_FAILS(o, ENV, "CLUSTER_SPEC", NULL);
    env_set("CLUSTER_SPEC", "{\"cluster\": {}}");
    VERTEX_FAILS(o, ENV, "CLUSTER_SPEC", "names no worker pool");
    /* the TF_CONFIG beside it is not read */
    env_set("CLUSTER_SPEC", NULL);
    env_set("TF_CONFIG", vertex_tf_config);
    VERTEX_FAILS(o, ENV, "vertex: CLUSTER_SPEC", "not set");
}

/* A CLUSTER_SPEC (or options.cluster_spec) without a whole task: no rank, and the launch
   error says which document named none. */
static void vertex_without_task_has_no_rank(void **state) {
    cres_vertex_options o = vertex_options();
    cres_resolver *r;
    cres_launch_info info;
    cres_error err;
    (void)state;
    env_set("CLUSTER_SPEC", "{\"cluster\": {\"workerpool0\": [\"w0:2222\"]}, \"environment\": \"cloud\"}");
    r = vertex();
    TASK_IS(r, NULL, CRES_NO_TASK);
    EXPECT(cres_launch(r, &info, &err), CRES_ERR_NOT_FOUND);
    HAS(err.message, "launch: vertex knows no own task (CLUSTER_SPEC gives no task of a type and an index)");
    cres_resolver_free(r);
    o.cluster_spec = "{\"cluster\": {\"workerpool0\": [\"w0:2222\"]}, \"task\": {\"type\": \"workerpool0\"}}";
    r = vertex_with(o);
    TASK_IS(r, "workerpool0", CRES_NO_TASK);
    EXPECT(cres_launch(r, &info, &err), CRES_ERR_NOT_FOUND);
    HAS(err.message, "launch: vertex knows no own task (options.cluster_spec gives no task of a type and an index)");
    cres_resolver_free(r);
}

/* vertex reads CLUSTER_SPEC and nothing else (no HOSTNAME, no TF_CONFIG). */
static void vertex_reads_only_cluster_spec(void **state) {
    cres_resolver *r;
    (void)state;
    env_set("CLUSTER_SPEC", vertex_workerpool1_1);
    env_set("TF_CONFIG", "{\"cluster\": {\"x\": [\"other:1\"]}, \"task\": {\"type\": \"x\", \"index\": 0}}");
    env_set("HOSTNAME", "somewhere-else");
    r = vertex();
    SPEC_IS(r, VERTEX_SPEC);
    TASK_IS(r, "workerpool1", 1);
    assert_int_equal(env.listed, 0); /* nothing enumerated */
    cres_resolver_free(r);
}

/* ---------------------------------------------------------------------------------------
   skypilot */

static void skypilot_three_nodes(void **state) {
    cres_resolver *r;
    int rank;
    (void)state;
    for (rank = 0; rank < 3; rank++) {
        env_reset();
        skypilot_node(rank);
        r = skypilot();
        SPEC_IS(r, "{'worker': ['10.128.0.21:8470', '10.128.0.22:8470', '10.128.0.23:8470']}");
        TASK_IS(r, "worker", rank);
        LAUNCH_IS(r, 3, rank, 0, 1, rank, 3, "10.128.0.21", 8470, "10.128.0.21:8470");
        GPUS_ARE(r, 8);
        assert_null(cres_rpc_layer(r));
        assert_null(cres_environment(r));
        assert_string_equal(master_of(r, "worker", 2, NULL), "10.128.0.23:8470");
        cres_resolver_free(r);
    }
    r = skypilot();
    assert_string_equal(own_master(r), "10.128.0.23:8470");
    assert_string_equal(tfconfig_of(r), dq("{'cluster': {'worker': ['10.128.0.21:8470', '10.128.0.22:8470', "
                                           "'10.128.0.23:8470']}, 'task': {'type': 'worker', 'index': 2}, "
                                           "'rpc_layer': '', 'environment': ''}"));
    cres_resolver_free(r);
}

/* port and job_name options; the task and rpc layer overrides. */
static void skypilot_options_port_job_task(void **state) {
    cres_skypilot_options o = skypilot_options();
    cres_resolver *r;
    (void)state;
    skypilot_node(1);
    o.port = 29500;
    o.job_name = "trainer";
    r = skypilot_with(o);
    SPEC_IS(r, "{'trainer': ['10.128.0.21:29500', '10.128.0.22:29500', '10.128.0.23:29500']}");
    TASK_IS(r, "trainer", 1);
    LAUNCH_IS(r, 3, 1, 0, 1, 1, 3, "10.128.0.21", 29500, "10.128.0.21:29500");
    cres_resolver_free(r);
    o.task_type = "trainer";
    o.task_id = 0;
    o.rpc_layer = "grpc";
    r = skypilot_with(o);
    TASK_IS(r, "trainer", 0);
    assert_string_equal(own_master(r), "grpc://10.128.0.21:29500");
    LAUNCH_IS(r, 3, 0, 0, 1, 0, 3, "10.128.0.21", 29500, "10.128.0.21:29500");
    cres_resolver_free(r);
    o = skypilot_options();
    o.port = 65535;
    r = skypilot_with(o);
    LAUNCH_IS(r, 3, 1, 0, 1, 1, 3, "10.128.0.21", 65535, "10.128.0.21:65535");
    cres_resolver_free(r);
}

/* The list as shells and other writers leave it: a trailing newline, "\r\n" line ends,
   spaces around an address; one node; IPv6 addresses; host names; optional variables. */
static void skypilot_list_forms(void **state) {
    static const struct {
        const char *ips, *spec, *master;
        int count;
    } cases[] = {
        {"10.0.0.1\n10.0.0.2\n", "{'worker': ['10.0.0.1:8470', '10.0.0.2:8470']}", "10.0.0.1", 2},
        {"10.0.0.1\r\n10.0.0.2\r\n", "{'worker': ['10.0.0.1:8470', '10.0.0.2:8470']}", "10.0.0.1", 2},
        {" 10.0.0.1 \n 10.0.0.2  \n\n", "{'worker': ['10.0.0.1:8470', '10.0.0.2:8470']}", "10.0.0.1", 2},
        {"10.0.0.1", "{'worker': ['10.0.0.1:8470']}", "10.0.0.1", 1},
        {"fd00::1\nfd00::2", "{'worker': ['[fd00::1]:8470', '[fd00::2]:8470']}", "fd00::1", 2},
        {"head.example.internal\nworker-1.example.internal",
         "{'worker': ['head.example.internal:8470', 'worker-1.example.internal:8470']}", "head.example.internal", 2},
    };
    size_t i;
    cres_resolver *r;
    (void)state;
    for (i = 0; i < N(cases); i++) {
        char address[128];
        int rank = cases[i].count - 1;
        env_reset();
        env_set("SKYPILOT_NODE_IPS", cases[i].ips);
        env_setf("SKYPILOT_NODE_RANK", "%d", rank);
        r = skypilot();
        SPEC_IS(r, cases[i].spec);
        TASK_IS(r, "worker", rank);
        snprintf(address, sizeof address, strchr(cases[i].master, ':') ? "[%s]:8470" : "%s:8470", cases[i].master);
        LAUNCH_IS(r, cases[i].count, rank, 0, 1, rank, cases[i].count, cases[i].master, 8470, address);
        GPUS_ARE(r, 0); /* SKYPILOT_NUM_GPUS_PER_NODE unset */
        cres_resolver_free(r);
    }
    /* SKYPILOT_NUM_NODES that agrees, and 0 GPUs (a CPU cluster) */
    env_set("SKYPILOT_NUM_NODES", "2");
    env_set("SKYPILOT_NUM_GPUS_PER_NODE", "0");
    r = skypilot();
    GPUS_ARE(r, 0);
    cres_resolver_free(r);
    env_set("SKYPILOT_NUM_GPUS_PER_NODE", "4096");
    r = skypilot();
    GPUS_ARE(r, 4096);
    cres_resolver_free(r);
}

/* Bad input: each an error naming the variable and its value. */
/* A host name of 256 bytes, one past CRES_MAX_NAME_LENGTH. */
#define HOST64 "node-0123456789abcdef0123456789abcdef0123456789abcdef0123456789a"
#define HOST256 HOST64 HOST64 HOST64 HOST64

static void skypilot_bad_values(void **state) {
    static const struct {
        const char *name, *value, *sub1, *sub2;
    } cases[] = {
        {"SKYPILOT_NODE_IPS", "10.0.0.1\n\n10.0.0.2", "SKYPILOT_NODE_IPS", "host 1 is empty"},
        {"SKYPILOT_NODE_IPS", "10.0.0.1\n  \n10.0.0.2", "SKYPILOT_NODE_IPS", "host 1 is empty"},
        {"SKYPILOT_NODE_IPS", "\n10.0.0.1\n10.0.0.2", "SKYPILOT_NODE_IPS", "host 0 is empty"},
        {"SKYPILOT_NODE_IPS", "", "SKYPILOT_NODE_IPS is empty", NULL},
        {"SKYPILOT_NODE_IPS", "\n", "SKYPILOT_NODE_IPS is empty", NULL},
        {"SKYPILOT_NODE_IPS", " \r\n \n", "SKYPILOT_NODE_IPS is empty", NULL},
        {"SKYPILOT_NODE_IPS", "10.0.0.1\n10.0.0.2\n10.0.0.1", "SKYPILOT_NODE_IPS names \"10.0.0.1\" twice", NULL},
        {"SKYPILOT_NODE_IPS", "10.0.0.1 10.0.0.2", "SKYPILOT_NODE_IPS: \"10.0.0.1 10.0.0.2\"",
         "is not a host name or address"},
        {"SKYPILOT_NODE_IPS", "10.0.0.1:22\n10.0.0.2", "SKYPILOT_NODE_IPS: \"10.0.0.1:22\"", NULL},
        {"SKYPILOT_NODE_IPS", "[fd00::1]\n10.0.0.2", "SKYPILOT_NODE_IPS: \"[fd00::1]\"", NULL},
        {"SKYPILOT_NODE_IPS", "10.0.0.1\t\n10.0.0.2", "SKYPILOT_NODE_IPS", "\"10.0.0.1\\x09\""},
        {"SKYPILOT_NODE_IPS", "10.0.0.1\n" HOST256 "\n10.0.0.3", "skypilot: SKYPILOT_NODE_IPS: host 1 is too long", NULL},
        {"SKYPILOT_NODE_RANK", "3", "SKYPILOT_NODE_RANK=\"3\"", "0 to 2"},
        {"SKYPILOT_NODE_RANK", "-1", "SKYPILOT_NODE_RANK=\"-1\"", NULL},
        {"SKYPILOT_NODE_RANK", "one", "SKYPILOT_NODE_RANK=\"one\"", NULL},
        {"SKYPILOT_NODE_RANK", "", "SKYPILOT_NODE_RANK is empty", NULL},
        {"SKYPILOT_NODE_RANK", NULL, "SKYPILOT_NODE_RANK is not", NULL},
        {"SKYPILOT_NUM_NODES", "4", "SKYPILOT_NUM_NODES=4", "SKYPILOT_NODE_IPS names 3 nodes"},
        {"SKYPILOT_NUM_NODES", "0", "SKYPILOT_NUM_NODES=\"0\"", NULL},
        {"SKYPILOT_NUM_NODES", "three", "SKYPILOT_NUM_NODES=\"three\"", NULL},
        {"SKYPILOT_NUM_GPUS_PER_NODE", "4097", "SKYPILOT_NUM_GPUS_PER_NODE=\"4097\"", "0 to 4096"},
        {"SKYPILOT_NUM_GPUS_PER_NODE", "-1", "SKYPILOT_NUM_GPUS_PER_NODE=\"-1\"", NULL},
        {"SKYPILOT_NUM_GPUS_PER_NODE", "A100:8", "SKYPILOT_NUM_GPUS_PER_NODE=\"A100:8\"", NULL},
    };
    size_t i;
    (void)state;
    for (i = 0; i < N(cases); i++) {
        cres_skypilot_options o = skypilot_options();
        env_reset();
        skypilot_node(1);
        env_set(cases[i].name, cases[i].value);
        print_message("    %s=%s\n", cases[i].name, cases[i].value ? cases[i].value : "(unset)");
        SKYPILOT_FAILS(o, ENV, cases[i].sub1, cases[i].sub2);
        {
            cres_auto_options a = auto_options();
            /* a blank SKYPILOT_NODE_IPS is not SkyPilot's to auto */
            if (strcmp(cases[i].name, "SKYPILOT_NODE_IPS") != 0 ||
                strspn(cases[i].value, " \r\n") < strlen(cases[i].value))
                AUTO_FAILS(a, ENV, cases[i].sub1, cases[i].sub2);
        }
    }
}

static void skypilot_missing_and_bad_options(void **state) {
    cres_skypilot_options o = skypilot_options();
    (void)state;
    SKYPILOT_FAILS(o, ENV, "skypilot: SKYPILOT_NODE_IPS is not set", NULL);
    env_set("SKYPILOT_NODE_RANK", "0");
    SKYPILOT_FAILS(o, ENV, "SKYPILOT_NODE_RANK=\"0\" is set, SKYPILOT_NODE_IPS is not", NULL);
    env_reset();
    skypilot_node(0);
    o.port = -1;
    SKYPILOT_FAILS(o, CRES_ERR_INVALID_ARGUMENT, "skypilot: port -1", NULL);
    o.port = 65536;
    SKYPILOT_FAILS(o, CRES_ERR_INVALID_ARGUMENT, "skypilot: port 65536", NULL);
    o.port = 0;
    o.job_name = "";
    SKYPILOT_FAILS(o, CRES_ERR_INVALID_ARGUMENT, "job name is empty", NULL);
    o.job_name = "bad\njob";
    SKYPILOT_FAILS(o, CRES_ERR_INVALID_ARGUMENT, "job name", "control character");
}

/* ---------------------------------------------------------------------------------------
   lws */

static void lws_vllm_group(void **state) {
    cres_resolver *r;
    int i;
    (void)state;
    env_lines(lws_vllm_1_2);
    r = lws();
    SPEC_IS(r, LWS_VLLM_SPEC);
    TASK_IS(r, "worker", 2);
    LAUNCH_IS(r, 4, 2, 0, 1, 2, 4, "vllm-1.vllm.default", 8470, "vllm-1.vllm.default:8470");
    assert_string_equal(own_master(r), "vllm-1-2.vllm.default:8470");
    assert_null(cres_rpc_layer(r));
    GPUS_ARE(r, 0);
    cres_resolver_free(r);
    /* every pod of the group, the leader (HOSTNAME "vllm-1") first */
    for (i = 0; i < 4; i++) {
        env_setf("LWS_WORKER_INDEX", "%d", i);
        if (i) env_setf("HOSTNAME", "vllm-1-%d", i);
        else env_set("HOSTNAME", "vllm-1");
        r = lws();
        SPEC_IS(r, LWS_VLLM_SPEC);
        TASK_IS(r, "worker", i);
        LAUNCH_IS(r, 4, i, 0, 1, i, 4, "vllm-1.vllm.default", 8470, "vllm-1.vllm.default:8470");
        cres_resolver_free(r);
    }
}

/* Group sizes, indexes past 9, names of one label and of many; HOSTNAME unset. */
static void lws_shapes(void **state) {
    cres_resolver *r;
    (void)state;
    env_set("LWS_LEADER_ADDRESS", "sglang-12.sglang-headless.inference");
    env_set("LWS_GROUP_SIZE", "12");
    env_set("LWS_WORKER_INDEX", "11");
    r = lws();
    TASK_IS(r, "worker", 11);
    assert_string_equal(master_of(r, "worker", 10, NULL), "sglang-12-10.sglang-headless.inference:8470");
    assert_string_equal(own_master(r), "sglang-12-11.sglang-headless.inference:8470");
    LAUNCH_IS(r, 12, 11, 0, 1, 11, 12, "sglang-12.sglang-headless.inference", 8470,
              "sglang-12.sglang-headless.inference:8470");
    cres_resolver_free(r);
    /* a group of one: the leader alone */
    env_set("LWS_GROUP_SIZE", "1");
    env_set("LWS_WORKER_INDEX", "0");
    env_set("HOSTNAME", "sglang-12");
    r = lws();
    SPEC_IS(r, "{'worker': ['sglang-12.sglang-headless.inference:8470']}");
    LAUNCH_IS(r, 1, 0, 0, 1, 0, 1, "sglang-12.sglang-headless.inference", 8470,
              "sglang-12.sglang-headless.inference:8470");
    cres_resolver_free(r);
    /* one label, and a fully qualified name */
    env_reset();
    env_set("LWS_LEADER_ADDRESS", "leader-0");
    env_set("LWS_GROUP_SIZE", "2");
    env_set("LWS_WORKER_INDEX", "1");
    r = lws();
    SPEC_IS(r, "{'worker': ['leader-0:8470', 'leader-0-1:8470']}");
    cres_resolver_free(r);
    env_set("LWS_LEADER_ADDRESS", "ms-0.ms.team-a.svc.cluster.local");
    r = lws();
    SPEC_IS(r, "{'worker': ['ms-0.ms.team-a.svc.cluster.local:8470', 'ms-0-1.ms.team-a.svc.cluster.local:8470']}");
    cres_resolver_free(r);
    /* DNS names may hold capitals; they are kept as written */
    env_set("LWS_LEADER_ADDRESS", "Infer-0.Infer.default");
    r = lws();
    SPEC_IS(r, "{'worker': ['Infer-0.Infer.default:8470', 'Infer-0-1.Infer.default:8470']}");
    cres_resolver_free(r);
}

/* port, hostname and job_name options; the overrides. */
static void lws_options_port_hostname_job(void **state) {
    cres_lws_options o = lws_options();
    cres_resolver *r;
    (void)state;
    env_lines(lws_vllm_1_2);
    o.port = 29500;
    o.job_name = "vllm";
    r = lws_with(o);
    SPEC_IS(r, "{'vllm': ['vllm-1.vllm.default:29500', 'vllm-1-1.vllm.default:29500', "
               "'vllm-1-2.vllm.default:29500', 'vllm-1-3.vllm.default:29500']}");
    TASK_IS(r, "vllm", 2);
    LAUNCH_IS(r, 4, 2, 0, 1, 2, 4, "vllm-1.vllm.default", 29500, "vllm-1.vllm.default:29500");
    cres_resolver_free(r);
    /* options.hostname is checked instead of $HOSTNAME */
    o = lws_options();
    env_set("HOSTNAME", "not-this-pod");
    o.hostname = "vllm-1-2";
    r = lws_with(o);
    TASK_IS(r, "worker", 2);
    cres_resolver_free(r);
    o.hostname = "vllm-1-3";
    LWS_FAILS(o, ENV, "\"vllm-1-2\"", "\"vllm-1-3\"");
    /* an empty hostname option: not checked */
    o.hostname = "";
    r = lws_with(o);
    cres_resolver_free(r);
    /* the task and rpc layer */
    env_set("HOSTNAME", "vllm-1-2");
    o.hostname = NULL;
    o.task_type = "worker";
    o.task_id = 0;
    o.rpc_layer = "grpc";
    r = lws_with(o);
    TASK_IS(r, "worker", 0);
    assert_string_equal(own_master(r), "grpc://vllm-1.vllm.default:8470");
    cres_resolver_free(r);
    o = lws_options();
    o.port = 70000;
    LWS_FAILS(o, CRES_ERR_INVALID_ARGUMENT, "lws: port 70000", NULL);
    o.port = 0;
    o.job_name = "";
    LWS_FAILS(o, CRES_ERR_INVALID_ARGUMENT, "job name is empty", NULL);
}

/* HOSTNAME, when set, must be the first label of the own task's address. */
static void lws_hostname_must_match(void **state) {
    cres_lws_options o = lws_options();
    cres_resolver *r;
    (void)state;
    env_lines(lws_vllm_1_2);
    env_set("HOSTNAME", "vllm-1-1");
    LWS_FAILS(o, ENV, "LWS_WORKER_INDEX=2 is \"vllm-1-2\"", "this pod's host name is \"vllm-1-1\"");
    env_set("HOSTNAME", "vllm-1");
    LWS_FAILS(o, ENV, "\"vllm-1-2\"", "\"vllm-1\"");
    env_set("HOSTNAME", "vllm-1-2.vllm.default");
    LWS_FAILS(o, ENV, "\"vllm-1-2\"", "\"vllm-1-2.vllm.default\"");
    env_set("HOSTNAME", "VLLM-1-2");
    LWS_FAILS(o, ENV, "\"vllm-1-2\"", "\"VLLM-1-2\"");
    /* the leader's */
    env_set("LWS_WORKER_INDEX", "0");
    env_set("HOSTNAME", "vllm-1-0");
    LWS_FAILS(o, ENV, "LWS_WORKER_INDEX=0 is \"vllm-1\"", "\"vllm-1-0\"");
    /* unset or empty: not checked */
    env_set("HOSTNAME", "");
    r = lws();
    TASK_IS(r, "worker", 0);
    cres_resolver_free(r);
    env_unset("HOSTNAME");
    r = lws();
    cres_resolver_free(r);
    {
        cres_auto_options a = auto_options();
        env_set("HOSTNAME", "other");
        AUTO_FAILS(a, ENV, "LWS_WORKER_INDEX=0", "\"other\"");
    }
}

static void lws_bad_values(void **state) {
    static const struct {
        const char *name, *value, *sub1, *sub2;
    } cases[] = {
        {"LWS_LEADER_ADDRESS", "vllm_1.vllm.default", "LWS_LEADER_ADDRESS=\"vllm_1.vllm.default\"",
         "is not a DNS name"},
        {"LWS_LEADER_ADDRESS", "vllm-1.vllm.default.", "LWS_LEADER_ADDRESS=\"vllm-1.vllm.default.\"",
         "is not a DNS name"},
        {"LWS_LEADER_ADDRESS", ".vllm", "LWS_LEADER_ADDRESS=\".vllm\"", "is not a DNS name"},
        {"LWS_LEADER_ADDRESS", "vllm-1..default", "LWS_LEADER_ADDRESS=\"vllm-1..default\"", "is not a DNS name"},
        {"LWS_LEADER_ADDRESS", "-vllm.x", "LWS_LEADER_ADDRESS=\"-vllm.x\"", "is not a DNS name"},
        {"LWS_LEADER_ADDRESS", "vllm-.x", "LWS_LEADER_ADDRESS=\"vllm-.x\"", "is not a DNS name"},
        {"LWS_LEADER_ADDRESS", "vllm-1.vllm.default:8080", "LWS_LEADER_ADDRESS=\"vllm-1.vllm.default:8080\"",
         "is not a DNS name"},
        {"LWS_LEADER_ADDRESS", "vllm-1 .vllm", "LWS_LEADER_ADDRESS=\"vllm-1 .vllm\"", "is not a DNS name"},
        {"LWS_LEADER_ADDRESS", "fd00::1", "LWS_LEADER_ADDRESS=\"fd00::1\"", "is not a DNS name"},
        {"LWS_LEADER_ADDRESS", "10.0.0.1", "LWS_LEADER_ADDRESS=\"10.0.0.1\"", "is not a DNS name"},
        {"LWS_LEADER_ADDRESS", "vllm-1.vllm$x", "LWS_LEADER_ADDRESS=\"vllm-1.vllm$x\"", "is not a DNS name"},
        {"LWS_LEADER_ADDRESS", "vllm-1.vllm~x", "LWS_LEADER_ADDRESS=\"vllm-1.vllm~x\"", "is not a DNS name"}, /* past 'z' */
        {"LWS_LEADER_ADDRESS", "vllm-1.vllm-", "LWS_LEADER_ADDRESS=\"vllm-1.vllm-\"", "is not a DNS name"}, /* '-' last */
        {"LWS_LEADER_ADDRESS", "a123456789012345678901234567890123456789012345678901234567890123.x",
         "LWS_LEADER_ADDRESS=", "is not a DNS name"},
        {"LWS_LEADER_ADDRESS", "", "LWS_LEADER_ADDRESS is empty", NULL},
        {"LWS_LEADER_ADDRESS", NULL, "LWS_LEADER_ADDRESS is not", NULL},
        {"LWS_GROUP_SIZE", "0", "LWS_GROUP_SIZE=\"0\"", NULL},
        {"LWS_GROUP_SIZE", "-4", "LWS_GROUP_SIZE=\"-4\"", NULL},
        {"LWS_GROUP_SIZE", "four", "LWS_GROUP_SIZE=\"four\"", NULL},
        {"LWS_GROUP_SIZE", "99999999999", "LWS_GROUP_SIZE=\"99999999999\"", NULL},
        {"LWS_GROUP_SIZE", "", "LWS_GROUP_SIZE is empty", NULL},
        {"LWS_GROUP_SIZE", NULL, "LWS_GROUP_SIZE is not", NULL},
        {"LWS_WORKER_INDEX", "4", "LWS_WORKER_INDEX=\"4\"", "0 to 3"},
        {"LWS_WORKER_INDEX", "-1", "LWS_WORKER_INDEX=\"-1\"", NULL},
        {"LWS_WORKER_INDEX", "2.0", "LWS_WORKER_INDEX=\"2.0\"", NULL},
        {"LWS_WORKER_INDEX", "", "LWS_WORKER_INDEX is empty", NULL},
        {"LWS_WORKER_INDEX", NULL, "LWS_WORKER_INDEX is not", NULL},
    };
    size_t i;
    (void)state;
    for (i = 0; i < N(cases); i++) {
        cres_lws_options o = lws_options();
        cres_auto_options a = auto_options();
        env_reset();
        env_lines(lws_vllm_1_2);
        env_unset("HOSTNAME");
        env_set(cases[i].name, cases[i].value);
        print_message("    %s=%s\n", cases[i].name, cases[i].value ? cases[i].value : "(unset)");
        LWS_FAILS(o, ENV, cases[i].sub1, cases[i].sub2);
        AUTO_FAILS(a, ENV, cases[i].sub1, cases[i].sub2);
    }
}

/* ---------------------------------------------------------------------------------------
   volcano */

/* The longest DNS name (253 bytes) leads: worker 10's name is 256 bytes, past what a host
   may be; a name of 254 is no DNS name. */
static void lws_names_at_their_limits(void **state) {
    static char leader[256];
    cres_lws_options o = lws_options();
    size_t i;
    (void)state;
    for (i = 0; i < 253; i++) leader[i] = i % 64 == 63 ? '.' : 'a';
    leader[253] = '\0';
    env_reset();
    env_lines(lws_vllm_1_2);
    env_unset("HOSTNAME");
    env_set("LWS_LEADER_ADDRESS", leader);
    env_set("LWS_GROUP_SIZE", "11");
    LWS_FAILS(o, CRES_ERR_LIMIT, "lws: worker 10's name is too long", NULL);
    leader[253] = 'a';
    leader[254] = '\0';
    LWS_FAILS(o, ENV, "is not a DNS name", NULL);
}

static void volcano_pytorch_job(void **state) {
    cres_resolver *r;
    (void)state;
    env_lines(volcano_pytorch_worker1);
    r = volcano();
    SPEC_IS(r, VOLCANO_PYTORCH_SPEC);
    TASK_IS(r, "worker", 1);
    /* the ranks Volcano's pytorch plugin gives: master 0, worker i at i + 1; its MASTER_PORT
       is kept */
    LAUNCH_IS(r, 4, 2, 0, 1, 2, 4, "pytorch-job-master-0.pytorch-job", 23456,
              "pytorch-job-master-0.pytorch-job:23456");
    assert_string_equal(own_master(r), "pytorch-job-worker-1.pytorch-job:8470");
    assert_null(cres_rpc_layer(r));
    GPUS_ARE(r, 0);
    assert_true(env.listed >= 14); /* every variable, then the end */
    cres_resolver_free(r);
    /* the master's pod */
    env_set("HOSTNAME", "pytorch-job-master-0");
    env_set("VC_TASK_INDEX", "0");
    env_set("VK_TASK_INDEX", "0");
    env_set("RANK", "0");
    r = volcano();
    TASK_IS(r, "master", 0);
    LAUNCH_IS(r, 4, 0, 0, 1, 0, 4, "pytorch-job-master-0.pytorch-job", 23456,
              "pytorch-job-master-0.pytorch-job:23456");
    cres_resolver_free(r);
}

/* Three tasks, one named with '-' ("chief-evaluator" -> VC_CHIEF_EVALUATOR_*: the job is
   "chief_evaluator"), the list in any order. */
static void volcano_tf_job_and_task_names(void **state) {
    cres_resolver *r;
    (void)state;
    env_lines(volcano_tf_ps1);
    r = volcano();
    SPEC_IS(r, "{'chief_evaluator': ['tf-dist-chief-evaluator-0.tf-dist:8470'], "
               "'ps': ['tf-dist-ps-0.tf-dist:8470', 'tf-dist-ps-1.tf-dist:8470'], "
               "'worker': ['tf-dist-worker-0.tf-dist:8470', 'tf-dist-worker-1.tf-dist:8470']}");
    TASK_IS(r, "ps", 1);
    LAUNCH_IS(r, 5, 2, 0, 1, 2, 5, "tf-dist-chief-evaluator-0.tf-dist", 8470, "tf-dist-chief-evaluator-0.tf-dist:8470");
    cres_resolver_free(r);
    env_set("HOSTNAME", "tf-dist-chief-evaluator-0");
    env_set("VC_TASK_INDEX", "0");
    env_set("VK_TASK_INDEX", "0");
    r = volcano();
    TASK_IS(r, "chief_evaluator", 0);
    cres_resolver_free(r);
    /* the host name may be the pod's fully qualified one */
    env_set("HOSTNAME", "tf-dist-worker-1.tf-dist");
    env_set("VC_TASK_INDEX", "1");
    env_set("VK_TASK_INDEX", "1");
    r = volcano();
    TASK_IS(r, "worker", 1);
    cres_resolver_free(r);
    /* a task with a hostname of its own in its template: one host, whatever its replicas */
    env_reset();
    env_set("VC_MASTER_HOSTS", "trainer-master.tf-dist");
    env_set("VC_MASTER_NUM", "1");
    env_set("HOSTNAME", "trainer-master");
    r = volcano();
    SPEC_IS(r, "{'master': ['trainer-master.tf-dist:8470']}");
    TASK_IS(r, "master", 0);
    cres_resolver_free(r);
    /* digits in a task name stay as they are */
    env_reset();
    env_set("VC_STAGE2_HOSTS", "tf-dist-stage2-0.tf-dist,tf-dist-stage2-1.tf-dist");
    env_set("VC_STAGE2_NUM", "2");
    env_set("HOSTNAME", "tf-dist-stage2-1");
    r = volcano();
    SPEC_IS(r, "{'stage2': ['tf-dist-stage2-0.tf-dist:8470', 'tf-dist-stage2-1.tf-dist:8470']}");
    TASK_IS(r, "stage2", 1);
    cres_resolver_free(r);
}

/* VK_TASK_INDEX alone (Volcano before VC_TASK_INDEX); no index at all; no host name. */
static void volcano_task_index_variables(void **state) {
    cres_volcano_options o = volcano_options();
    cres_resolver *r;
    (void)state;
    env_lines(volcano_pytorch_worker1);
    env_unset("VC_TASK_INDEX");
    r = volcano();
    TASK_IS(r, "worker", 1);
    cres_resolver_free(r);
    env_set("VK_TASK_INDEX", "2");
    VOLCANO_FAILS(o, ENV, "VK_TASK_INDEX=2", "task 1 of worker");
    /* VC_TASK_INDEX, when set, is the one read; the env plugin sets both, so both agree */
    env_set("VC_TASK_INDEX", "1");
    VOLCANO_FAILS(o, ENV, "VK_TASK_INDEX=2", "VC_TASK_INDEX gives 1");
    env_set("VK_TASK_INDEX", "1");
    r = volcano();
    TASK_IS(r, "worker", 1);
    cres_resolver_free(r);
    env_unset("VC_TASK_INDEX");
    env_unset("VK_TASK_INDEX");
    r = volcano();
    TASK_IS(r, "worker", 1);
    cres_resolver_free(r);
    /* no host name: the cluster, and no own task, which the launch answer says why */
    env_unset("HOSTNAME");
    env_set("VC_TASK_INDEX", "1");
    r = volcano();
    SPEC_IS(r, VOLCANO_PYTORCH_SPEC);
    TASK_IS(r, NULL, CRES_NO_TASK);
    {
        cres_launch_info info;
        cres_error err;
        EXPECT(cres_launch(r, &info, &err), CRES_ERR_NOT_FOUND);
        HAS(err.message, "volcano knows no own task (HOSTNAME, which names this pod's task, is not set)");
    }
    cres_resolver_free(r);
    env_set("HOSTNAME", "");
    r = volcano();
    TASK_IS(r, NULL, CRES_NO_TASK);
    cres_resolver_free(r);
}

/* port and hostname options; the overrides. */
static void volcano_options_port_hostname(void **state) {
    cres_volcano_options o = volcano_options();
    cres_resolver *r;
    (void)state;
    env_lines(volcano_pytorch_worker1);
    o.port = 23456;
    r = volcano_with(o);
    SPEC_IS(r, "{'master': ['pytorch-job-master-0.pytorch-job:23456'], 'worker': "
               "['pytorch-job-worker-0.pytorch-job:23456', 'pytorch-job-worker-1.pytorch-job:23456', "
               "'pytorch-job-worker-2.pytorch-job:23456']}");
    LAUNCH_IS(r, 4, 2, 0, 1, 2, 4, "pytorch-job-master-0.pytorch-job", 23456,
              "pytorch-job-master-0.pytorch-job:23456");
    cres_resolver_free(r);
    /* options.hostname instead of $HOSTNAME (the index must agree with it) */
    o.port = 0;
    o.hostname = "pytorch-job-worker-2";
    VOLCANO_FAILS(o, ENV, "VC_TASK_INDEX=1", "task 2 of worker");
    env_set("VC_TASK_INDEX", "2");
    env_set("VK_TASK_INDEX", "2");
    r = volcano_with(o);
    TASK_IS(r, "worker", 2);
    cres_resolver_free(r);
    o.task_type = "master";
    o.task_id = 0;
    o.rpc_layer = "grpc";
    r = volcano_with(o);
    TASK_IS(r, "master", 0);
    assert_string_equal(own_master(r), "grpc://pytorch-job-master-0.pytorch-job:8470");
    {   /* the plugin's RANK (2) says this pod is another task than the one given */
        cres_launch_info info;
        cres_error err;
        assert_int_equal(cres_launch(r, &info, &err), CRES_ERR_ENVIRONMENT);
        assert_non_null(strstr(err.message, "volcano: RANK=\"2\" is set, but the volcano backend's answer is 0"));
    }
    cres_resolver_free(r);
    env_set("RANK", "0");
    r = volcano_with(o);
    LAUNCH_IS(r, 4, 0, 0, 1, 0, 4, "pytorch-job-master-0.pytorch-job", 23456,
              "pytorch-job-master-0.pytorch-job:23456");
    cres_resolver_free(r);
    o = volcano_options();
    o.port = -2;
    VOLCANO_FAILS(o, CRES_ERR_INVALID_ARGUMENT, "volcano: port -2", NULL);
}

/* A task of no replicas (Volcano sets VC_<TASK>_HOSTS="" and _NUM=0) names no member: an
   error, never an empty job or cluster (seed regression_volcano_no_members). */
static void volcano_only_empty_tasks_is_an_error(void **state) {
    cres_volcano_options o = volcano_options();
    (void)state;
    env_set("VC_MASTER_HOSTS", "");
    env_set("VC_MASTER_NUM", "0");
    VOLCANO_FAILS(o, CRES_ERR_ENVIRONMENT, "VC_MASTER_HOSTS is empty", NULL);
}

static void volcano_bad_values(void **state) {
    static const struct {
        const char *name, *value, *sub1, *sub2, *name2, *value2;
    } cases[] = {
        {"VC_WORKER_HOSTS", "", "VC_WORKER_HOSTS is empty", NULL, NULL, NULL},
        {"VC_WORKER_HOSTS", " ", "VC_WORKER_HOSTS is empty", NULL, NULL, NULL},
        {"VC_WORKER_HOSTS", "pytorch-job-worker-0.pytorch-job,pytorch-job-worker-1.pytorch-job,",
         "VC_WORKER_HOSTS ends with a comma", NULL, NULL, NULL},
        {"VC_WORKER_HOSTS", "pytorch-job-worker-0.pytorch-job,,pytorch-job-worker-1.pytorch-job", "VC_WORKER_HOSTS",
         "host 1 is empty", NULL, NULL},
        {"VC_WORKER_HOSTS", ",pytorch-job-worker-1.pytorch-job", "VC_WORKER_HOSTS", "host 0 is empty", NULL, NULL},
        {"VC_WORKER_HOSTS", "pytorch-job-worker-1.pytorch-job,pytorch-job-worker-1.pytorch-job",
         "VC_WORKER_NUM=3 but VC_WORKER_HOSTS names 2 hosts", NULL, NULL, NULL}, /* counted first */
        {"VC_WORKER_HOSTS", "pytorch-job-worker-0.pytorch-job pytorch-job-worker-1.pytorch-job", "VC_WORKER_HOSTS",
         "is not a host name or address", NULL, NULL},
        {"VC_WORKER_HOSTS", "pytorch-job-worker-0.pytorch-job,pytorch-job-worker-2.pytorch-job",
         "\"pytorch-job-worker-1\" is in no VC_<TASK>_HOSTS", NULL, "VC_WORKER_NUM", "2"},
        {"VC_WORKER_NUM", "2", "VC_WORKER_NUM=2 but VC_WORKER_HOSTS names 3 hosts", NULL, NULL, NULL},
        {"VC_WORKER_NUM", "three", "VC_WORKER_NUM=\"three\"", NULL, NULL, NULL},
        {"VC_WORKER_NUM", "-1", "VC_WORKER_NUM=\"-1\"", NULL, NULL, NULL},
        {"VC_MASTER_NUM", "0", "VC_MASTER_NUM=0 but VC_MASTER_HOSTS names 1 hosts", NULL, NULL, NULL},
        {"VC_TASK_INDEX", "0", "VC_TASK_INDEX=0, but this pod's host name is task 1 of worker", NULL,
         "VK_TASK_INDEX", "0"},
        {"VC_TASK_INDEX", "3", "VC_TASK_INDEX=3", "task 1 of worker", "VK_TASK_INDEX", "3"},
        {"VK_TASK_INDEX", "0", "VK_TASK_INDEX=0 but VC_TASK_INDEX gives 1", NULL, NULL, NULL},
        {"VC_TASK_INDEX", "x", "VC_TASK_INDEX=\"x\"", NULL, NULL, NULL},
        {"VC_TASK_INDEX", "-1", "VC_TASK_INDEX=\"-1\"", NULL, NULL, NULL},
        {"HOSTNAME", "pytorch-job-worker-9", "\"pytorch-job-worker-9\" is in no VC_<TASK>_HOSTS", NULL, NULL, NULL},
        {"HOSTNAME", "pytorch-job-worker", "\"pytorch-job-worker\" is in no VC_<TASK>_HOSTS", NULL, NULL, NULL},
        {"HOSTNAME", "pytorch-job-worker-1.other", "\"pytorch-job-worker-1.other\" is in no VC_<TASK>_HOSTS", NULL,
         NULL, NULL},
    };
    size_t i;
    (void)state;
    for (i = 0; i < N(cases); i++) {
        cres_volcano_options o = volcano_options();
        cres_auto_options a = auto_options();
        env_reset();
        env_lines(volcano_pytorch_worker1);
        env_set(cases[i].name, cases[i].value);
        if (cases[i].name2) env_set(cases[i].name2, cases[i].value2);
        print_message("    %s=%s\n", cases[i].name, cases[i].value);
        VOLCANO_FAILS(o, ENV, cases[i].sub1, cases[i].sub2);
        AUTO_FAILS(a, ENV, cases[i].sub1, cases[i].sub2);
    }
}

/* No VC_*_HOSTS at all: an error, whatever else is set; names that only look like one. */
static void volcano_without_hosts_variables(void **state) {
    cres_volcano_options o = volcano_options();
    (void)state;
    VOLCANO_FAILS(o, ENV, "volcano: no VC_<TASK>_HOSTS variable", NULL);
    env_set("VC_TASK_INDEX", "0");
    env_set("HOSTNAME", "job-worker-0");
    env_set("VC_WORKER_NUM", "1");
    env_set("VC_HOSTS", "job-worker-0.job");         /* no task name */
    env_set("VC_WORKER_HOSTS_FILE", "/etc/volcano/worker.host");
    env_set("vc_worker_hosts", "job-worker-0.job");  /* lower case */
    env_set("XVC_WORKER_HOSTS", "job-worker-0.job");
    VOLCANO_FAILS(o, ENV, "volcano: no VC_<TASK>_HOSTS variable", NULL);
    /* and through auto */
    {
        cres_auto_options a = auto_options();
        AUTO_FAILS(a, ENV, "volcano: no VC_<TASK>_HOSTS variable", NULL);
    }
}

/* An env_list hook that lists nothing. */
static const char *empty_list(void *user, size_t index) {
    (void)user, (void)index;
    return NULL;
}

/* A list of its own: the getenv hook and the list may be different sources. */
typedef struct list_of {
    const char *const *entries;
    size_t calls;
} list_of;

static const char *list_at(void *user, size_t index) {
    list_of *l = (list_of *)user;
    size_t n = 0;
    l->calls++;
    while (l->entries[n]) n++;
    return index < n ? l->entries[index] : NULL;
}

/* config.env_list: volcano enumerates through it, and only through it; entries without
   '=' are skipped; cres_resolver_env_at() reads the same list. */
static void volcano_env_list_hook(void **state) {
    static const char *const entries[] = {
        "PATH=/usr/bin",
        "not an assignment",
        "VC_WORKER_HOSTS=job-worker-0.job,job-worker-1.job",
        "VC_PS_HOSTS=job-ps-0.job",
        "EMPTY=",
        "=no name",
        NULL};
    list_of l = {entries, 0};
    cres_volcano_options o = volcano_options();
    cres_resolver *r;
    cres_error err;
    (void)state;
    /* the table has the index and the host name, the list the hosts */
    env_set("VC_TASK_INDEX", "1");
    env_set("HOSTNAME", "job-worker-1");
    env_set("VC_MASTER_HOSTS", "not-listed.job"); /* only in the getenv table: not seen */
    cfg.env_list.fn = list_at;
    cfg.env_list.user = &l;
    r = volcano_with(o);
    SPEC_IS(r, "{'ps': ['job-ps-0.job:8470'], 'worker': ['job-worker-0.job:8470', 'job-worker-1.job:8470']}");
    TASK_IS(r, "worker", 1);
    assert_true(l.calls >= N(entries)); /* every entry, then NULL */
    /* the public accessor: the hook's entries, NULL past the end */
    assert_string_equal(cres_resolver_env_at(r, 0), "PATH=/usr/bin");
    assert_string_equal(cres_resolver_env_at(r, 2), "VC_WORKER_HOSTS=job-worker-0.job,job-worker-1.job");
    assert_string_equal(cres_resolver_env_at(r, 5), "=no name");
    assert_null(cres_resolver_env_at(r, 6));
    assert_null(cres_resolver_env_at(r, 1000));
    assert_null(cres_resolver_env_at(NULL, 0));
    cres_resolver_free(r);
    assert_int_equal(env.listed, 0); /* the table's list hook was not used */
    /* a list hook that lists nothing: no hosts, although getenv knows some */
    cfg.env_list.fn = empty_list;
    cfg.env_list.user = NULL;
    VOLCANO_FAILS(o, ENV, "no VC_<TASK>_HOSTS variable", NULL);
    /* a task name past CRES_MAX_NAME_LENGTH (only a list can carry one): named, with its size */
    {
        static char long_entry[300 + 32];
        static const char *long_list[2] = {long_entry, NULL};
        list_of ll = {long_list, 0};
        memcpy(long_entry, "VC_", 3);
        memset(long_entry + 3, 'T', 260);
        strcpy(long_entry + 263, "_HOSTS=job-t-0.job");
        cfg.env_list.fn = list_at;
        cfg.env_list.user = &ll;
        VOLCANO_FAILS(o, CRES_ERR_LIMIT, "volcano: VC_TTTTTTTTTT", "_HOSTS: the task name is 260 bytes, more than the limit of 255");
    }
    /* the same list through auto, and cres_resolver_env_at of another backend */
    cfg.env_list.fn = list_at;
    cfg.env_list.user = &l;
    r = auto_with(auto_options(), "volcano");
    TASK_IS(r, "worker", 1);
    cres_resolver_free(r);
    {
        cres_local_options lo;
        memset(&lo, 0, sizeof lo);
        lo.config = &cfg;
        OK(cres_local_resolver_create(&lo, &r, &err));
        assert_string_equal(cres_resolver_env_at(r, 3), "VC_PS_HOSTS=job-ps-0.job");
        cres_resolver_free(r);
    }
}

extern char **environ;

/* No env_list hook: cres_resolver_env_at() is the process environment, entry by entry. */
static void env_at_without_hook_is_the_process_environment(void **state) {
    cres_config plain;
    cres_local_options lo;
    cres_resolver *r = NULL;
    cres_error err;
    size_t i;
    (void)state;
    memset(&plain, 0, sizeof plain);
    memset(&lo, 0, sizeof lo);
    lo.config = &plain;
    OK(cres_local_resolver_create(&lo, &r, &err));
    for (i = 0; environ && environ[i]; i++) assert_ptr_equal(cres_resolver_env_at(r, i), environ[i]);
    assert_null(cres_resolver_env_at(r, i));
    assert_null(cres_resolver_env_at(r, i + 5));
    cres_resolver_free(r);
}

/* Volcano reads through both hooks: the getenv table is asked (the index, the host name,
   the counts), the list enumerated (the hosts). */
static void volcano_reads_only_the_hooks(void **state) {
    cres_resolver *r;
    (void)state;
    env_lines(volcano_pytorch_worker1);
    r = volcano();
    assert_true(env.asked > 0);
    assert_true(env.listed > 0);
    SPEC_IS(r, VOLCANO_PYTORCH_SPEC);
    cres_resolver_free(r);
}

/* ---------------------------------------------------------------------------------------
   auto */

static void auto_picks_each_platform(void **state) {
    cres_resolver *r;
    (void)state;
    skip_on_sagemaker_machine();
    env_set("CLUSTER_SPEC", vertex_workerpool1_1);
    r = auto_with(auto_options(), "vertex");
    TASK_IS(r, "workerpool1", 1);
    LAUNCH_IS(r, 3, 2, 0, 1, 2, 3, "cmle-training-workerpool0-1d969d3ba6-0", 2222, VERTEX_HOST("workerpool0", "0"));
    cres_resolver_free(r);
    HAS(logs.text, "INFO auto: using the vertex backend: CLUSTER_SPEC\n");
    env_reset();
    skypilot_node(2);
    r = auto_with(auto_options(), "skypilot");
    LAUNCH_IS(r, 3, 2, 0, 1, 2, 3, "10.128.0.21", 8470, "10.128.0.21:8470");
    GPUS_ARE(r, 8);
    cres_resolver_free(r);
    HAS(logs.text, "INFO auto: using the skypilot backend: SKYPILOT_NODE_IPS\n");
    env_reset();
    env_lines(lws_vllm_1_2);
    r = auto_with(auto_options(), "lws");
    SPEC_IS(r, LWS_VLLM_SPEC);
    LAUNCH_IS(r, 4, 2, 0, 1, 2, 4, "vllm-1.vllm.default", 8470, "vllm-1.vllm.default:8470");
    cres_resolver_free(r);
    HAS(logs.text, "INFO auto: using the lws backend: LWS_LEADER_ADDRESS\n");
    env_reset();
    env_lines(volcano_tf_ps1);
    r = auto_with(auto_options(), "volcano");
    TASK_IS(r, "ps", 1);
    cres_resolver_free(r);
    HAS(logs.text, "INFO auto: using the volcano backend: VC_TASK_INDEX\n");
    /* the legacy index alone */
    env_unset("VC_TASK_INDEX");
    r = auto_with(auto_options(), "volcano");
    TASK_IS(r, "ps", 1);
    cres_resolver_free(r);
    HAS(logs.text, "INFO auto: using the volcano backend: VK_TASK_INDEX\n");
}

/* auto's port reaches skypilot, volcano and lws; its task and rpc layer too. */
static void auto_port_task_and_rpc_reach_the_platforms(void **state) {
    cres_auto_options o = auto_options();
    cres_resolver *r;
    (void)state;
    skip_on_sagemaker_machine();
    o.port = 29500;
    skypilot_node(1);
    r = auto_with(o, "skypilot");
    SPEC_IS(r, "{'worker': ['10.128.0.21:29500', '10.128.0.22:29500', '10.128.0.23:29500']}");
    cres_resolver_free(r);
    env_reset();
    env_lines(lws_vllm_1_2);
    r = auto_with(o, "lws");
    LAUNCH_IS(r, 4, 2, 0, 1, 2, 4, "vllm-1.vllm.default", 29500, "vllm-1.vllm.default:29500");
    cres_resolver_free(r);
    env_reset();
    env_lines(volcano_pytorch_worker1);
    r = auto_with(o, "volcano"); /* the tasks' port; the plugin's MASTER_PORT names rank 0's */
    SPEC_IS(r, "{'master': ['pytorch-job-master-0.pytorch-job:29500'], 'worker': "
               "['pytorch-job-worker-0.pytorch-job:29500', 'pytorch-job-worker-1.pytorch-job:29500', "
               "'pytorch-job-worker-2.pytorch-job:29500']}");
    LAUNCH_IS(r, 4, 2, 0, 1, 2, 4, "pytorch-job-master-0.pytorch-job", 23456, "pytorch-job-master-0.pytorch-job:23456");
    cres_resolver_free(r);
    /* vertex's addresses are its own */
    env_reset();
    env_set("CLUSTER_SPEC", vertex_workerpool1_1);
    o.task_type = "workerpool0";
    o.task_id = 0;
    o.rpc_layer = "grpc";
    r = auto_with(o, "vertex");
    TASK_IS(r, "workerpool0", 0);
    assert_string_equal(own_master(r), "grpc://" VERTEX_HOST("workerpool0", "0"));
    cres_resolver_free(r);
    env_reset();
    env_lines(volcano_pytorch_worker1);
    o.task_type = "master";
    r = auto_with(o, "volcano");
    TASK_IS(r, "master", 0);
    assert_string_equal(own_master(r), "grpc://pytorch-job-master-0.pytorch-job:29500");
    cres_resolver_free(r);
}

/* The order against the neighbours, each pair as the platforms set them together. */
static void auto_order_against_neighbours(void **state) {
    cres_resolver *r;
    (void)state;
    skip_on_sagemaker_machine();
    /* Vertex sets TF_CONFIG too: tfconfig wins (its ranks: chief, then ps before worker) */
    env_set("CLUSTER_SPEC", vertex_workerpool1_1);
    env_set("TF_CONFIG", vertex_tf_config);
    r = auto_with(auto_options(), "tfconfig");
    TASK_IS(r, "worker", 1);
    LAUNCH_IS(r, 5, 4, 0, 1, 4, 5, "cmle-training-workerpool0-1d969d3ba6-0", 2222, VERTEX_HOST("workerpool0", "0"));
    cres_resolver_free(r);
    HAS(logs.text, "INFO auto: using the tfconfig backend: TF_CONFIG; passed over vertex (CLUSTER_SPEC)\n");
    /* torchrun inside a Vertex job: the innermost launcher */
    env_unset("TF_CONFIG");
    env_set("TORCHELASTIC_RUN_ID", "vertex-run");
    env_set("MASTER_ADDR", "cmle-training-workerpool0-1d969d3ba6-0");
    env_set("MASTER_PORT", "29500");
    env_set("RANK", "3");
    env_set("WORLD_SIZE", "8");
    env_set("LOCAL_RANK", "1");
    env_set("LOCAL_WORLD_SIZE", "2");
    env_set("GROUP_RANK", "1");
    env_set("GROUP_WORLD_SIZE", "4");
    expect_auto("torch");
    /* Vertex beats SageMaker, SageMaker beats SkyPilot, SkyPilot beats Volcano, Volcano
       beats LeaderWorkerSet, LeaderWorkerSet beats AWS Batch */
    env_reset();
    env_set("CLUSTER_SPEC", vertex_workerpool1_1);
    env_set("SM_HOSTS", "[\"algo-1\", \"algo-2\"]");
    env_set("SM_CURRENT_HOST", "algo-2");
    expect_auto("vertex");
    env_unset("CLUSTER_SPEC");
    skypilot_node(1);
    expect_auto("sagemaker");
    env_unset("SM_HOSTS");
    env_unset("SM_CURRENT_HOST");
    env_lines(volcano_pytorch_worker1);
    expect_auto("skypilot");
    env_unset("SKYPILOT_NODE_IPS");
    env_unset("SKYPILOT_NODE_RANK"); /* alone it still picks skypilot, whose error it is */
    env_unset("SKYPILOT_NUM_NODES");
    env_lines(lws_vllm_1_2);
    env_set("HOSTNAME", "pytorch-job-worker-1");
    r = auto_with(auto_options(), "volcano");
    TASK_IS(r, "worker", 1);
    cres_resolver_free(r);
    env_reset();
    env_lines(lws_vllm_1_2);
    env_set("AWS_BATCH_JOB_NODE_INDEX", "1");
    env_set("AWS_BATCH_JOB_NUM_NODES", "2");
    env_set("AWS_BATCH_JOB_MAIN_NODE_INDEX", "0");
    env_set("AWS_BATCH_JOB_MAIN_NODE_PRIVATE_IPV4_ADDRESS", "10.0.0.1");
    expect_auto("lws");
    /* Slurm and MPI come before Vertex */
    env_reset();
    env_set("CLUSTER_SPEC", vertex_workerpool1_1);
    env_lines("OMPI_COMM_WORLD_RANK=0\nOMPI_COMM_WORLD_SIZE=1\nOMPI_COMM_WORLD_LOCAL_RANK=0\n"
              "OMPI_COMM_WORLD_LOCAL_SIZE=1\n");
    expect_auto("mpi");
}

/* Volcano's pytorch plugin sets MASTER_ADDR, MASTER_PORT, WORLD_SIZE and RANK: volcano
   wins over torch's names, its launch info agrees with them, and keeps the plugin's port. */
static void auto_volcano_wins_over_its_pytorch_plugin(void **state) {
    cres_resolver *r;
    (void)state;
    skip_on_sagemaker_machine();
    env_lines(volcano_pytorch_worker1);
    r = auto_with(auto_options(), "volcano");
    LAUNCH_IS(r, 4, 2, 0, 1, 2, 4, "pytorch-job-master-0.pytorch-job", 23456,
              "pytorch-job-master-0.pytorch-job:23456");
    cres_resolver_free(r);
    HAS(logs.text, "INFO auto: using the volcano backend: VC_TASK_INDEX; passed over torch (RANK is set)\n");
    HAS(logs.text, "INFO volcano: the coordinator pytorch-job-master-0.pytorch-job:23456 is the "
                   "environment's (MASTER_ADDR, MASTER_PORT), kept\n");
    /* without the svc plugin's lists it is still volcano, and says what is missing */
    env_unset("VC_MASTER_HOSTS");
    env_unset("VC_WORKER_HOSTS");
    {
        cres_auto_options o = auto_options();
        AUTO_FAILS(o, ENV, "volcano: no VC_<TASK>_HOSTS variable", NULL);
    }
    /* without the env plugin's index the svc plugin's lists still say Volcano (its pods have
       the host names they list), which then must agree with the pytorch plugin's names */
    env_reset();
    env_lines(volcano_pytorch_worker1);
    env_unset("VC_TASK_INDEX");
    env_unset("VK_TASK_INDEX");
    r = auto_with(auto_options(), "volcano");
    LAUNCH_IS(r, 4, 2, 0, 1, 2, 4, "pytorch-job-master-0.pytorch-job", 23456,
              "pytorch-job-master-0.pytorch-job:23456");
    cres_resolver_free(r);
    HAS(logs.text, "INFO auto: using the volcano backend: VC_<TASK>_HOSTS; passed over torch (RANK is set)\n");
}

/* LWS on TPU also sets TPU_WORKER_HOSTNAMES and TPU_WORKER_ID: lws wins over tpu. */
static void auto_lws_wins_over_its_tpu_variables(void **state) {
    cres_resolver *r;
    (void)state;
    skip_on_sagemaker_machine();
    env_lines(lws_vllm_1_2);
    env_lines(lws_tpu_extra);
    r = auto_with(auto_options(), "lws");
    SPEC_IS(r, LWS_VLLM_SPEC);
    TASK_IS(r, "worker", 2);
    cres_resolver_free(r);
    HAS(logs.text, "INFO auto: using the lws backend: LWS_LEADER_ADDRESS; passed over tpu (TPU_WORKER_HOSTNAMES)\n");
    /* a leader without TPUs: lws (lws@08b063bd pkg/utils/accelerators/tpu.go) leaves it out of
       TPU_WORKER_HOSTNAMES and shifts TPU_WORKER_ID, so the TPU slice (JAX's processes) is not
       the group: refused, never a group of 4 counted for a slice of 3 */
    env_set("TPU_WORKER_HOSTNAMES", "vllm-1-1.vllm,vllm-1-2.vllm,vllm-1-3.vllm");
    env_set("TPU_WORKER_ID", "1");
    {
        cres_auto_options o = auto_options();
        AUTO_FAILS(o, ENV, "lws: TPU_WORKER_ID=\"1\" is not LWS_WORKER_INDEX=2", "the tpu backend");
        env_set("TPU_WORKER_ID", "2");
        AUTO_FAILS(o, ENV, "lws: TPU_WORKER_HOSTNAMES names 3 hosts, LWS_GROUP_SIZE=4", NULL);
    }
    /* LWS_WORKER_INDEX alone points at lws, which asks for the rest */
    env_reset();
    env_set("LWS_WORKER_INDEX", "2");
    {
        cres_auto_options o = auto_options();
        AUTO_FAILS(o, ENV, "lws: LWS_WORKER_INDEX=\"2\" is set, LWS_LEADER_ADDRESS is not", NULL);
    }
}

/* SkyPilot runs the user's commands: torchrun inside wins; torch names a script sets by
   hand do not. */
static void auto_skypilot_and_torch(void **state) {
    cres_resolver *r;
    (void)state;
    skip_on_sagemaker_machine();
    skypilot_node(1);
    env_set("MASTER_ADDR", "10.128.0.21");
    env_set("MASTER_PORT", "8008");
    env_set("RANK", "1");
    env_set("WORLD_SIZE", "3");
    r = auto_with(auto_options(), "skypilot");
    LAUNCH_IS(r, 3, 1, 0, 1, 1, 3, "10.128.0.21", 8008, "10.128.0.21:8008"); /* the script's port */
    cres_resolver_free(r);
    HAS(logs.text, "INFO auto: using the skypilot backend: SKYPILOT_NODE_IPS; passed over torch (RANK is set)\n");
    env_set("TORCHELASTIC_RUN_ID", "sky");
    env_set("LOCAL_RANK", "0");
    env_set("LOCAL_WORLD_SIZE", "1");
    env_set("GROUP_RANK", "1");
    env_set("GROUP_WORLD_SIZE", "3");
    r = auto_with(auto_options(), "torch");
    LAUNCH_IS(r, 3, 1, 0, 1, 1, 3, "10.128.0.21", 8008, "10.128.0.21:8008");
    cres_resolver_free(r);
}

/* Blank detection variables do not count. */
static void auto_blank_variables_are_not_set(void **state) {
    (void)state;
    skip_on_sagemaker_machine();
    env_set("CLUSTER_SPEC", " ");
    env_set("SKYPILOT_NODE_IPS", "");
    env_set("VC_TASK_INDEX", "");
    env_set("VK_TASK_INDEX", " ");
    env_set("LWS_LEADER_ADDRESS", "");
    env_set("LWS_WORKER_INDEX", "\t");
    expect_auto("local");
}

/* CLUSTER_RESOLVER_BACKEND and options.backend name each of them. */
static void auto_forces_each_platform(void **state) {
    cres_auto_options o = auto_options();
    cres_resolver *r;
    (void)state;
    /* all four environments at once, and TF_CONFIG: only the force decides */
    env_set("TF_CONFIG", vertex_tf_config);
    env_set("CLUSTER_SPEC", vertex_workerpool1_1);
    skypilot_node(1);
    env_lines(volcano_pytorch_worker1);
    env_lines(lws_vllm_1_2);
    env_set("HOSTNAME", "pytorch-job-worker-1");
    env_set("CLUSTER_RESOLVER_BACKEND", "vertex");
    r = auto_with(o, "vertex");
    TASK_IS(r, "workerpool1", 1);
    cres_resolver_free(r);
    HAS(logs.text, "INFO auto: using the vertex backend: forced by CLUSTER_RESOLVER_BACKEND");
    env_set("CLUSTER_RESOLVER_BACKEND", "skypilot");
    r = auto_with(o, "skypilot");
    TASK_IS(r, "worker", 1);
    cres_resolver_free(r);
    env_set("CLUSTER_RESOLVER_BACKEND", "volcano");
    r = auto_with(o, "volcano");
    TASK_IS(r, "worker", 1);
    cres_resolver_free(r);
    env_set("CLUSTER_RESOLVER_BACKEND", "lws");
    AUTO_FAILS(o, ENV, "\"vllm-1-2\"", "\"pytorch-job-worker-1\""); /* HOSTNAME is Volcano's here */
    env_set("HOSTNAME", "vllm-1-2");
    r = auto_with(o, "lws");
    TASK_IS(r, "worker", 2);
    cres_resolver_free(r);
    env_unset("CLUSTER_RESOLVER_BACKEND");
    o.backend = "vertex";
    cres_resolver_free(auto_with(o, "vertex"));
    HAS(logs.text, "INFO auto: using the vertex backend: forced by options.backend");
    o.backend = "skypilot";
    cres_resolver_free(auto_with(o, "skypilot"));
    o.backend = "lws";
    cres_resolver_free(auto_with(o, "lws"));
    o.backend = "volcano";
    env_set("HOSTNAME", "pytorch-job-worker-1");
    cres_resolver_free(auto_with(o, "volcano"));
    /* forced without their variables */
    env_reset();
    o.backend = "vertex";
    AUTO_FAILS(o, ENV, "vertex: CLUSTER_SPEC", "not set");
    o.backend = "skypilot";
    AUTO_FAILS(o, ENV, "skypilot: SKYPILOT_NODE_IPS is not set", NULL);
    o.backend = "volcano";
    AUTO_FAILS(o, ENV, "volcano: no VC_<TASK>_HOSTS variable", NULL);
    o.backend = "lws";
    AUTO_FAILS(o, ENV, "lws: LWS_LEADER_ADDRESS is not set", NULL);
    o.backend = "Volcano";
    AUTO_FAILS(o, CRES_ERR_UNSUPPORTED, "auto: unknown backend \"Volcano\"",
               "vertex, sagemaker, skypilot, volcano, lws");
}

/* ---------------------------------------------------------------------------------------
   Library bugs found while writing these tests: each fails on the header it was written
   against (commit b8dc267); the comment says where and what. */

/* cres__is_dns_name (>>platform, used by cres__lws_group): an IPv4 address passes for a
   DNS name, so LWS_LEADER_ADDRESS=10.4.0.7 -- what AddLWSVariables gives a leader whose
   group has no ordinal DNS record (GroupIdentityHash with no hostname: the leader's
   status.podIP) -- makes the workers "10-1.4.0.7:8470", "10-2.4.0.7:8470", names that
   exist nowhere. An address of four numeric labels is not a DNS name the workers' names
   can be derived from: the create must fail naming LWS_LEADER_ADDRESS and the value. */
static void lws_leader_ipv4_address_is_not_a_dns_name(void **state) {
    cres_lws_options o = lws_options();
    (void)state;
    env_set("LWS_LEADER_ADDRESS", "10.4.0.7");
    env_set("LWS_GROUP_SIZE", "3");
    env_set("LWS_WORKER_INDEX", "1");
    LWS_FAILS(o, ENV, "LWS_LEADER_ADDRESS=\"10.4.0.7\"", NULL);
}

/* cres__hosts_add (>>platform) takes a line of SKYPILOT_NODE_IPS as a host when
   cres__put_host_port can write it, and that allows a comma: SKYPILOT_NODE_IPS=
   "10.0.0.1,10.0.0.2" (the list written with the wrong separator, by hand or by a script
   that joined the IPs for another tool) is one node "10.0.0.1,10.0.0.2:8470", which no
   resolver can reach. A comma is in no host name or address: the create must fail naming
   SKYPILOT_NODE_IPS and the value, as it does for a space. */
static void skypilot_comma_separated_ips_are_not_a_host(void **state) {
    cres_skypilot_options o = skypilot_options();
    (void)state;
    env_set("SKYPILOT_NODE_IPS", "10.0.0.1,10.0.0.2");
    env_set("SKYPILOT_NODE_RANK", "0");
    SKYPILOT_FAILS(o, ENV, "SKYPILOT_NODE_IPS", "\"10.0.0.1,10.0.0.2\"");
}

/* cres__hosts_add (>>platform) looks for a duplicate host within one job only: two
   VC_<TASK>_HOSTS that name the same host (two tasks whose templates set the same
   hostname) give two tasks of one address "x.job:8470", and the own task is whichever
   task cres__volcano_own meets first. A host in two lists is a duplicate host like one
   named twice in a list: the create must fail naming the host. */
static void volcano_host_in_two_tasks_is_a_duplicate(void **state) {
    cres_volcano_options o = volcano_options();
    (void)state;
    env_set("VC_MASTER_HOSTS", "trainer.job");
    env_set("VC_WORKER_HOSTS", "trainer.job,job-worker-1.job");
    env_set("VC_TASK_INDEX", "0");
    env_set("HOSTNAME", "trainer");
    VOLCANO_FAILS(o, ENV, "\"trainer.job\"", NULL);
}

/* cres_vertex_resolver_create (>>platform) refuses a cluster of no pool (spec->count == 0)
   but not one whose pools are all empty: CLUSTER_SPEC {"cluster": {"workerpool0": []}}
   gives a spec of no task (an empty hostfile, no launch info) where "names no worker pool"
   is the answer: Vertex AI lists only pools of one replica or more. Found by
   fuzz_platform_env. */
static void vertex_pools_without_members_name_no_worker(void **state) {
    cres_vertex_options o = vertex_options();
    (void)state;
    env_set("CLUSTER_SPEC", "{\"cluster\": {\"workerpool0\": []}, \"environment\": \"cloud\"}");
    VERTEX_FAILS(o, ENV, "CLUSTER_SPEC", NULL);
    env_set("CLUSTER_SPEC", "{\"cluster\": {\"workerpool0\": [], \"workerpool1\": {}}}");
    VERTEX_FAILS(o, ENV, "CLUSTER_SPEC", NULL);
}

/* cres_tfconfig (>>launch) hands the resolver's task to cres_spec_to_tfconfig as it is, and
   that refuses a task type with id -1: a CLUSTER_SPEC (or TF_CONFIG) whose "task" has a
   type and no index resolves, launches as "no own task", but cres_tfconfig fails with
   CRES_ERR_INVALID_ARGUMENT "TF_CONFIG output: task id -1 is negative" -- an argument the
   caller never gave. The CLI's tfconfig format leaves such a task out
   (examples/cluster-resolve.c write_format); cres_tfconfig must write the cluster too. */
static void vertex_tfconfig_of_a_task_without_index(void **state) {
    cres_resolver *r;
    char buf[512];
    cres_error err;
    (void)state;
    env_set("CLUSTER_SPEC", "{\"cluster\": {\"workerpool0\": [\"w0:2222\"]}, \"task\": {\"type\": \"workerpool0\"}}");
    r = vertex();
    TASK_IS(r, "workerpool0", CRES_NO_TASK);
    OK(cres_tfconfig(r, buf, sizeof buf, NULL, &err));
    HAS(buf, "{\"cluster\": {\"workerpool0\": [\"w0:2222\"]}");
    cres_resolver_free(r);
}

/* cres__hosts_add (>>platform) looks for the duplicate of each host by comparing it with
   every host before it: building n tasks costs n^2/2 string compares, each after a binary
   search (cres_spec_task_address). 16,000 hosts take 5 s at -O2; the 1,000,000 that
   LWS_GROUP_SIZE, SKYPILOT_NODE_IPS and VC_<TASK>_HOSTS may name (CRES_MAX_HOSTLIST_HOSTS)
   would take hours, inside a create that a launcher runs on every node. LWS's names cannot
   even repeat. Each test builds 16,000 tasks, which a linear (or n log n) build does in
   milliseconds, and allows 2 s of CPU time (about 5 s at -O2 today). */
#define LARGE_GROUP 16000

static double cpu_seconds_since(clock_t start) { return (double)(clock() - start) / CLOCKS_PER_SEC; }

static void lws_large_group_builds_in_linear_time(void **state) {
    cres_resolver *r;
    clock_t start;
    double spent;
    (void)state;
    env_set("LWS_LEADER_ADDRESS", "big-0.big.default");
    env_setf("LWS_GROUP_SIZE", "%d", LARGE_GROUP);
    env_set("LWS_WORKER_INDEX", "7");
    start = clock();
    r = lws();
    spent = cpu_seconds_since(start);
    assert_string_equal(master_of(r, "worker", LARGE_GROUP - 1, NULL), "big-0-15999.big.default:8470");
    cres_resolver_free(r);
    if (spent > 2.0) fail_msg("lws: a group of %d took %.1f s of CPU time to create", LARGE_GROUP, spent);
}

static void skypilot_long_list_builds_in_linear_time(void **state) {
    static char ips[LARGE_GROUP * 16];
    size_t used = 0;
    cres_resolver *r;
    clock_t start;
    double spent;
    int i;
    (void)state;
    for (i = 0; i < LARGE_GROUP; i++)
        used += (size_t)snprintf(ips + used, sizeof ips - used, "10.%d.%d.%d\n", i >> 16, (i >> 8) & 255, i & 255);
    env_set("SKYPILOT_NODE_IPS", ips);
    env_set("SKYPILOT_NODE_RANK", "0");
    start = clock();
    r = skypilot();
    spent = cpu_seconds_since(start);
    assert_string_equal(master_of(r, "worker", LARGE_GROUP - 1, NULL), "10.0.62.127:8470");
    cres_resolver_free(r);
    if (spent > 2.0) fail_msg("skypilot: %d nodes took %.1f s of CPU time to create", LARGE_GROUP, spent);
}

/* cres__tf_check_task (>>tfconfig), shared with vertex: TF_CONFIG's "evaluator" may be
   outside "cluster", and vertex inherits that exemption, so CLUSTER_SPEC with task type
   "evaluator" and no such pool is accepted with an own task outside the spec (cres_launch
   then fails NOT_FOUND). Vertex's task is always one of its worker pools: "task must be in
   the cluster" holds for every type, evaluator included. */
static void vertex_evaluator_task_must_be_in_the_cluster(void **state) {
    cres_vertex_options o = vertex_options();
    (void)state;
    env_set("CLUSTER_SPEC", dq("{'cluster': {'workerpool0': ['w0:2222']}, 'environment': 'cloud', "
                               "'task': {'type': 'evaluator', 'index': 0}}"));
    VERTEX_FAILS(o, ENV, "CLUSTER_SPEC: \"task.type\" \"evaluator\" is not a job", NULL);
}

/* ---------------------------------------------------------------------------------------
   Main */

int main(void) {
    const struct CMUnitTest tests[] = {
        /* vertex */
        cmocka_unit_test_setup(vertex_custom_job_four_pools, reset),
        cmocka_unit_test_setup(vertex_single_replica_and_trial, reset),
        cmocka_unit_test_setup(vertex_options_override, reset),
        cmocka_unit_test_setup(vertex_bad_cluster_spec, reset),
        cmocka_unit_test_setup(vertex_not_set_blank_or_empty, reset),
        cmocka_unit_test_setup(vertex_reads_only_cluster_spec, reset),
        cmocka_unit_test_setup(vertex_without_task_has_no_rank, reset),
        /* skypilot */
        cmocka_unit_test_setup(skypilot_three_nodes, reset),
        cmocka_unit_test_setup(skypilot_options_port_job_task, reset),
        cmocka_unit_test_setup(skypilot_list_forms, reset),
        cmocka_unit_test_setup(skypilot_bad_values, reset),
        cmocka_unit_test_setup(skypilot_missing_and_bad_options, reset),
        /* lws */
        cmocka_unit_test_setup(lws_vllm_group, reset),
        cmocka_unit_test_setup(lws_shapes, reset),
        cmocka_unit_test_setup(lws_options_port_hostname_job, reset),
        cmocka_unit_test_setup(lws_hostname_must_match, reset),
        cmocka_unit_test_setup(lws_bad_values, reset),
        cmocka_unit_test_setup(lws_names_at_their_limits, reset),
        /* volcano and the env_list hook */
        cmocka_unit_test_setup(volcano_pytorch_job, reset),
        cmocka_unit_test_setup(volcano_tf_job_and_task_names, reset),
        cmocka_unit_test_setup(volcano_task_index_variables, reset),
        cmocka_unit_test_setup(volcano_options_port_hostname, reset),
        cmocka_unit_test_setup(volcano_bad_values, reset),
        cmocka_unit_test_setup(volcano_only_empty_tasks_is_an_error, reset),
        cmocka_unit_test_setup(volcano_without_hosts_variables, reset),
        cmocka_unit_test_setup(volcano_env_list_hook, reset),
        cmocka_unit_test_setup(env_at_without_hook_is_the_process_environment, reset),
        cmocka_unit_test_setup(volcano_reads_only_the_hooks, reset),
        /* auto */

        cmocka_unit_test_setup(auto_picks_each_platform, reset),
        cmocka_unit_test_setup(auto_port_task_and_rpc_reach_the_platforms, reset),
        cmocka_unit_test_setup(auto_order_against_neighbours, reset),
        cmocka_unit_test_setup(auto_volcano_wins_over_its_pytorch_plugin, reset),
        cmocka_unit_test_setup(auto_lws_wins_over_its_tpu_variables, reset),
        cmocka_unit_test_setup(auto_skypilot_and_torch, reset),
        cmocka_unit_test_setup(auto_blank_variables_are_not_set, reset),
        cmocka_unit_test_setup(auto_forces_each_platform, reset),
        /* library bugs (see above) */
        cmocka_unit_test_setup(lws_leader_ipv4_address_is_not_a_dns_name, reset),
        cmocka_unit_test_setup(skypilot_comma_separated_ips_are_not_a_host, reset),
        cmocka_unit_test_setup(volcano_host_in_two_tasks_is_a_duplicate, reset),
        cmocka_unit_test_setup(vertex_evaluator_task_must_be_in_the_cluster, reset),
        cmocka_unit_test_setup(vertex_pools_without_members_name_no_worker, reset),
        cmocka_unit_test_setup(vertex_tfconfig_of_a_task_without_index, reset),
        cmocka_unit_test_setup(lws_large_group_builds_in_linear_time, reset),
        cmocka_unit_test_setup(skypilot_long_list_builds_in_linear_time, reset),
    };
    return cmocka_run_group_tests_name("platforms", tests, NULL, NULL);
}
