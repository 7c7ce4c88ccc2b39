/* libFuzzer target: the platforms that name every member -- vertex (CLUSTER_SPEC), skypilot
   (SKYPILOT_NODE_IPS), volcano (every VC_<TASK>_HOSTS, found through cres_config.env_list)
   and lws (LWS_LEADER_ADDRESS) -- and auto over a fuzzed environment, served through the
   getenv and env_list hooks (the process environment is never read; auto's HTTP backends get
   a transport that always fails).

   The input is up to 8192 bytes:
      byte 0      the selector and options:
                    bits 0-2  backend: 0 vertex, 1 skypilot, 2 volcano, 3 lws, 4-7 auto
                    bits 3-4  task: 0 none (the backend's own), 1 task_type "worker",
                              2 task_type "workerpool0", 3 task_type "" (each with the id below)
                    bit  5    rpc_layer "grpc" (else NULL)
                    bits 6-7  port (skypilot, volcano, lws, auto): 0, 2222, 65535, -1
      byte 1      only when bits 3-4 are not 0: the task id, a signed byte (-128..127)
      the rest    the environment as /proc/PID/environ holds it: NAME=VALUE entries separated
                  by NUL bytes (so a value may hold newlines: SKYPILOT_NODE_IPS), at most 64;
                  the first entry of a name wins; an entry without '=' or with an empty name
                  is ignored. Three names are options, not variables: "--cluster-spec"
                  (vertex's cluster_spec), "--hostname" (volcano's and lws's hostname) and
                  "--job-name" (skypilot's and lws's job_name). The env_list hook lists the
                  variables in input order, getenv finds them by name.

   Each run creates the resolver, then resolves twice, asks for the launch info, the master
   (length query and buffer), the accelerators and the own TF_CONFIG, freeing all that is
   returned, and checks:
     - a failed create is a known code other than CRES_OK, with err.result the same, a
       NUL-terminated non-empty message and no resolver; a direct create fails only with
       CRES_ERR_ENVIRONMENT, CRES_ERR_INVALID_ARGUMENT or CRES_ERR_LIMIT (volcano also
       CRES_ERR_CONFLICT: VC_A_HOSTS and VC_a_HOSTS are one job twice), and an environment
       error names a variable of its backend (vertex: CLUSTER_SPEC or options.cluster_spec;
       skypilot: SKYPILOT_; lws: LWS_; volcano: VC_ or VK_);
     - a direct create reads only its documented variables (vertex CLUSTER_SPEC; skypilot
       SKYPILOT_NODE_IPS, _NODE_RANK, _NUM_NODES, _NUM_GPUS_PER_NODE; lws LWS_LEADER_ADDRESS,
       LWS_GROUP_SIZE, LWS_WORKER_INDEX, HOSTNAME; volcano HOSTNAME, VC_TASK_INDEX,
       VK_TASK_INDEX, VC_<TASK>_NUM), and only volcano enumerates the list;
     - on success: every resolve gives a fresh spec, equal to the last, of one task at least
       (and, but for vertex, no empty job); the own task (without a task option) is a task of that spec --
       skypilot and lws always have one, volcano whenever a host name is given, vertex
       whenever CLUSTER_SPEC's task has a type and an index; cres_launch fails without an own
       task in the spec, else answers as cres_spec_launch_info() of that task (which for the
       hosts backends succeeds: their addresses are always readable), with the
       common invariants (0 <= rank < world_size = the spec's task count, local and node
       ranks below their counts, master_address read back as master_host and master_port);
     - a model of each source: skypilot's spec is SKYPILOT_NODE_IPS line by line (trailing
       newlines, '\r' and spaces dropped) at the port, own task SKYPILOT_NODE_RANK, GPUs
       SKYPILOT_NUM_GPUS_PER_NODE; lws's is the leader and "<first label>-i<rest>" for
       LWS_GROUP_SIZE tasks, own LWS_WORKER_INDEX, whose first label is the host name when
       one is given; volcano's is one job per VC_<TASK>_HOSTS (<task> in lower case) of its
       comma-separated hosts, the own task a host whose first label is the host name, at
       VC_TASK_INDEX (else VK_TASK_INDEX) when set; vertex's equals tfconfig's reading of the
       same text (the shared reader), which must succeed whenever vertex does, and fail
       vertex whenever it fails; a host the model refuses (tests/fuzz/host_model.h) fails the
       create;
     - auto: when it picks one of the four, spec, task and launch info equal those of the
       backend created directly over the same environment with auto's port, task and rpc
       layer; when it answers "local" after detecting, none of CLUSTER_SPEC,
       SKYPILOT_NODE_IPS, VC_TASK_INDEX, VK_TASK_INDEX, LWS_LEADER_ADDRESS, LWS_WORKER_INDEX
       is set to more than blanks;
     - every allocation goes through a counting allocator and all are freed at the end of
       each run (besides ASan's leak checker); log messages are NUL-terminated.

   Inputs whose lists would build more than MAX_TASKS tasks (LWS_GROUP_SIZE, a Slurm step or
   MPI world under auto) are skipped: the hosts backends build a spec in time quadratic in
   its size (tests/test_platforms.c, *_builds_in_linear_time), which would only slow the
   search. Under auto, variables whose name holds "FILE" (PBS_NODEFILE, PE_HOSTFILE,
   OMPI_MCA_orte_default_hostfile, ...) are dropped: they name files to read.

   Hand seeds (tests/fuzz/corpus/platform_env/), each an environment as the platform sets it
   (the sources are cited in tests/test_platforms.c):
     vertex_four_pools        CLUSTER_SPEC of workerpool0..3, the process of workerpool1 1
     vertex_single_replica    workerpool0 alone, a trial id, "job" and "open_ports"
     vertex_option_override   --cluster-spec, task "workerpool0" 0 and rpc layer grpc
     vertex_evaluator_outside task "evaluator" with no such pool (refused: not in cluster)
     skypilot_three_nodes     node 1 of 3 with 8 GPUs, SKYPILOT_NUM_NODES
     skypilot_crlf_ipv6       "\r\n" line ends, IPv6 addresses, port 2222, --job-name
     skypilot_trailing        a trailing newline and spaces around the IPs, one node
     lws_vllm_worker2         worker 2 of a group of 4, HOSTNAME the worker's pod
     lws_leader               the leader (index 0, HOSTNAME "<lws>-<group>")
     lws_hostname_option      --hostname and --job-name, port 65535
     volcano_pytorch_worker1  master + 3 workers, env, svc and pytorch plugins' variables
     volcano_tf_three_tasks   ps, worker and chief-evaluator (VC_CHIEF_EVALUATOR_*)
     volcano_vk_legacy        VK_TASK_INDEX only, --hostname
     auto_vertex_and_tf_config   Vertex's CLUSTER_SPEC and TF_CONFIG (tfconfig wins)
     auto_volcano_pytorch     volcano over its pytorch plugin's MASTER_ADDR, RANK, WORLD_SIZE
     auto_lws_tpu             lws over the TPU_WORKER_HOSTNAMES its TPU webhook sets
     auto_skypilot_torchrun   torchrun's worker variables inside a SkyPilot node
     auto_skypilot            skypilot over a script's torch names, port 2222
     auto_forced_volcano      CLUSTER_RESOLVER_BACKEND=volcano beside an LWS environment
   and the reproducers of what this target found (each also a unit test of
   tests/test_platforms.c, failing on the header of commit 3058035):
     vertex_task_without_index    task {"type": ...} without an index: cres_tfconfig fails
                              INVALID_ARGUMENT "task id -1 is negative"
     vertex_pools_without_members {"cluster": {"w": []}}: a spec of no task is accepted
     vertex_evaluator_outside     (above) an "evaluator" task outside the cluster is accepted
   tests/fuzz/fixture_seeds.py adds the environments of the unit and CLI tests.

   clang -g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined \
         tests/fuzz/fuzz_platform_env.c -o build/fuzz_platform_env
   build/fuzz_platform_env -max_len=8192 tests/fuzz/corpus/platform_env */

#include <limits.h>

#include "fuzz_common.h"
#include "host_model.h"

#define MAX_INPUT_BYTES 8192
#define MAX_TASKS 4096

enum { B_VERTEX, B_SKYPILOT, B_VOLCANO, B_LWS, B_AUTO };
static const char *const backend_names[] = {"vertex", "skypilot", "volcano", "lws", "auto"};

typedef struct env {
    fuzz_env vars;
    const char *entry[FUZZ_MAX_VARS]; /* "NAME=VALUE" as the input holds it */
    const char *cluster_spec, *hostname, *job_name; /* the "--" options, NULL when absent */
    int backend;       /* whose reads are checked; B_AUTO: any */
    int checking;      /* the reads of a direct create are being checked */
    size_t listed;     /* env_list calls while checking */
} env;

/* VC_<TASK>_HOSTS as the library tells it: at least one character of task. */
static int is_vc_hosts(const char *name, size_t n) {
    return n >= 10 && strncmp(name, "VC_", 3) == 0 && memcmp(name + n - 6, "_HOSTS", 6) == 0;
}

static int may_read(int backend, const char *name) {
    static const char *const vertex[] = {"CLUSTER_SPEC", NULL};
    static const char *const skypilot[] = {"SKYPILOT_NODE_IPS", "SKYPILOT_NODE_RANK", "SKYPILOT_NUM_NODES",
                                           "SKYPILOT_NUM_GPUS_PER_NODE", NULL};
    static const char *const lws[] = {"LWS_LEADER_ADDRESS", "LWS_GROUP_SIZE", "LWS_WORKER_INDEX", "HOSTNAME",
                                      "TPU_WORKER_HOSTNAMES", "TPU_WORKER_ID", NULL}; /* TPUs: the group's */
    static const char *const volcano[] = {"HOSTNAME", "VC_TASK_INDEX", "VK_TASK_INDEX", NULL};
    const char *const *names = backend == B_VERTEX     ? vertex
                               : backend == B_SKYPILOT ? skypilot
                               : backend == B_LWS      ? lws
                                                       : volcano;
    size_t n = strlen(name);
    for (; *names; names++)
        if (strcmp(*names, name) == 0) return 1;
    return backend == B_VOLCANO && n >= 8 && strncmp(name, "VC_", 3) == 0 && strcmp(name + n - 4, "_NUM") == 0;
}

static const char *fuzz_getenv(void *user, const char *name) {
    const env *e = (const env *)user;
    CHECK(name != NULL);
    if (e->checking) CHECK(may_read(e->backend, name));
    return fuzz_env_get(&e->vars, name);
}

static const char *fuzz_env_at(void *user, size_t index) {
    env *e = (env *)user;
    if (e->checking) {
        CHECK(e->backend == B_VOLCANO); /* only volcano enumerates */
        e->listed++;
    }
    return index < e->vars.count ? e->entry[index] : NULL;
}

/* ---------------------------------------------------------------------------------------
   Checks */

static int same_info(const cres_launch_info *a, const cres_launch_info *b) {
    return a->world_size == b->world_size && a->rank == b->rank && a->local_rank == b->local_rank &&
           a->local_world_size == b->local_world_size && a->node_rank == b->node_rank &&
           a->num_nodes == b->num_nodes && a->master_port == b->master_port &&
           strcmp(a->master_host, b->master_host) == 0 && strcmp(a->master_address, b->master_address) == 0;
}

static void check_launch_info(const cres_launch_info *i, size_t tasks) {
    CHECK(i->world_size >= 1 && (size_t)i->world_size == tasks);
    CHECK(i->rank >= 0 && i->rank < i->world_size);
    CHECK(i->local_rank >= 0 && i->local_rank < i->local_world_size && i->local_world_size <= i->world_size);
    CHECK(i->node_rank >= 0 && i->node_rank < i->num_nodes && i->num_nodes <= i->world_size);
    CHECK(i->master_port == CRES_UNKNOWN || (i->master_port >= 0 && i->master_port <= 65535));
    CHECK(memchr(i->master_host, '\0', sizeof i->master_host) != NULL);
    CHECK(memchr(i->master_address, '\0', sizeof i->master_address) != NULL);
    CHECK(i->master_address[0] != '\0');
    fuzz_check_master_reads_back(i);
}

/* cres_launch_apply_env's refusals: a launcher's size, rank or coordinator variable beside the
   platform's that is no number or contradicts its answer ("volcano: WORLD_SIZE="3" is set,
   but the volcano backend's answer is 4: ..."). */
static int apply_env_refusal(const char *backend, const cres_error *err) {
    static const char *const forms[] = {"is set, but the", "is not a count or rank", "is not a host",
                                        "is not a port", "is not host:port", "name two coordinators", NULL};
    size_t n = strlen(backend), k;
    if (strncmp(err->message, backend, n) != 0 || strncmp(err->message + n, ": ", 2) != 0) return 0;
    for (k = 0; forms[k]; k++)
        if (strstr(err->message, forms[k])) return 1;
    return 0;
}

/* ---------------------------------------------------------------------------------------
   Creating */

typedef struct options {
    int backend;
    const char *task_type; /* NULL = none */
    int task_id;
    const char *rpc_layer;
    int port;
} options;

/* with_options: the "--" options of the input (auto has none of them) */
static cres_result create(int backend, const options *o, const env *e, int with_options, const cres_config *config,
                          cres_resolver **r, cres_error *err) {
    switch (backend) {
    case B_VERTEX: {
        cres_vertex_options v;
        FUZZ_TASK_OPTIONS(v, config, o);
        v.cluster_spec = with_options ? e->cluster_spec : NULL;
        return cres_vertex_resolver_create(&v, r, err);
    }
    case B_SKYPILOT: {
        cres_skypilot_options s;
        FUZZ_TASK_OPTIONS(s, config, o);
        s.port = o->port;
        s.job_name = with_options ? e->job_name : NULL;
        return cres_skypilot_resolver_create(&s, r, err);
    }
    case B_VOLCANO: {
        cres_volcano_options v;
        FUZZ_TASK_OPTIONS(v, config, o);
        v.port = o->port;
        v.hostname = with_options ? e->hostname : NULL;
        return cres_volcano_resolver_create(&v, r, err);
    }
    case B_LWS: {
        cres_lws_options l;
        FUZZ_TASK_OPTIONS(l, config, o);
        l.port = o->port;
        l.hostname = with_options ? e->hostname : NULL;
        l.job_name = with_options ? e->job_name : NULL;
        return cres_lws_resolver_create(&l, r, err);
    }
    default: {
        cres_auto_options a;
        FUZZ_TASK_OPTIONS(a, config, o);
        a.port = o->port;
        return cres_auto_resolver_create(&a, r, err);
    }
    }
}

static int backend_of(const char *name) {
    int b;
    for (b = 0; b < B_AUTO; b++)
        if (strcmp(name, backend_names[b]) == 0) return b;
    return -1;
}

/* ---------------------------------------------------------------------------------------
   Models: the spec each source must give (NULL when the model says the create must fail;
   *unsure when a host has bytes over 0x7f, which only the library's UTF-8 check decides) */

static cres_cluster_spec *new_spec(void) {
    cres_cluster_spec *s = NULL;
    cres_error err;
    CHECK(cres_spec_create(NULL, &s, &err) == CRES_OK);
    return s;
}

/* Adds host (n bytes) to job at port; 0 when the host model refuses it. */
static int model_add(cres_cluster_spec *s, const char *job, int index, const char *host, size_t n, int port,
                     int *unsure) {
    char name[512], address[600];
    cres_error err;
    size_t i;
    if (n >= sizeof name) return 0;
    memcpy(name, host, n);
    name[n] = '\0';
    if (strlen(name) != n || !model_host_address(name, port, address, sizeof address)) return 0;
    for (i = 0; i < n; i++)
        if ((unsigned char)name[i] > 0x7f) *unsure = 1;
    return cres_spec_add_task(s, job, index, address, &err) == CRES_OK;
}

static cres_cluster_spec *model_skypilot(const char *ips, const char *job, int port, size_t *count, int *unsure) {
    cres_cluster_spec *s = new_spec();
    const char *p = ips, *end = ips + strlen(ips);
    *count = 0;
    while (end > ips && (end[-1] == '\n' || end[-1] == '\r' || end[-1] == ' ')) end--;
    while (p < end) {
        const char *nl = (const char *)memchr(p, '\n', (size_t)(end - p)), *e = nl ? nl : end;
        while (e > p && (e[-1] == '\r' || e[-1] == ' ')) e--;
        while (p < e && *p == ' ') p++;
        if (!model_add(s, job, (int)*count, p, (size_t)(e - p), port, unsure)) {
            cres_spec_free(s);
            return NULL;
        }
        ++*count;
        p = nl ? nl + 1 : end;
    }
    return s;
}

static cres_cluster_spec *model_lws(const char *leader, long long size, const char *job, int port, int *unsure) {
    cres_cluster_spec *s = new_spec();
    size_t first = strcspn(leader, ".");
    char host[600];
    long long i;
    for (i = 0; i < size; i++) {
        int k = i == 0 ? snprintf(host, sizeof host, "%s", leader)
                       : snprintf(host, sizeof host, "%.*s-%lld%s", (int)first, leader, i, leader + first);
        if (k < 0 || (size_t)k >= sizeof host || !model_add(s, job, (int)i, host, (size_t)k, port, unsure)) {
            cres_spec_free(s);
            return NULL;
        }
    }
    return s;
}

static cres_cluster_spec *model_volcano(const env *e, int port, int *unsure) {
    cres_cluster_spec *s = new_spec();
    size_t i;
    for (i = 0; i < e->vars.count; i++) {
        const char *name = e->vars.name[i], *p = e->vars.value[i];
        size_t n = strlen(name), k;
        char job[256];
        int index = 0;
        if (!is_vc_hosts(name, n)) continue;
        if (n - 9 >= sizeof job) goto refused;
        for (k = 0; k < n - 9; k++) {
            char c = name[3 + k];
            job[k] = (char)(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c);
        }
        job[n - 9] = '\0';
        if (cres_spec_job(s, job) || cres__is_blank(p)) goto refused;
        for (;;) {
            size_t h = strcspn(p, ",");
            if (!model_add(s, job, index++, p, h, port, unsure)) goto refused;
            p += h;
            if (!*p) break;
            if (!*++p) goto refused; /* a trailing comma */
        }
    }
    if (cres_spec_jobs_count(s) == 0) goto refused;
    return s;
refused:
    cres_spec_free(s);
    return NULL;
}

/* A spec in which no two tasks of one job share an address (the hosts backends refuse a
   host named twice in a list). */
static int no_duplicates(const cres_cluster_spec *s) {
    size_t i, a, b;
    for (i = 0; i < cres_spec_jobs_count(s); i++) {
        const cres_job *j = cres_spec_job_at(s, i);
        for (a = 0; a < j->tasks_count; a++)
            for (b = a + 1; b < j->tasks_count; b++)
                if (strcmp(j->tasks[a].address, j->tasks[b].address) == 0) return 0;
    }
    return 1;
}

/* ---------------------------------------------------------------------------------------
   One run */

typedef struct outcome {
    fuzz_counter count;           /* the allocations of the resolver and its spec */
    cres_result created;
    cres_cluster_spec *spec;      /* the resolved spec (owned), NULL on failure */
    char task_type[300];
    int has_type, task_id;
    cres_result launched;
    cres_launch_info info;
    char environment[300];
} outcome;

/* The coordinator the environment names is kept (cres_launch_apply_env): MASTER_ADDR and
   MASTER_PORT, else JAX_COORDINATOR_ADDRESS. */
static void explicit_coordinator(const fuzz_env *e, cres_launch_info *want) {
    const char *addr = fuzz_env_get(e, "MASTER_ADDR"), *jax = fuzz_env_get(e, "JAX_COORDINATOR_ADDRESS");
    const char *host = NULL;
    size_t len = 0;
    int port = -1, ok;
    if (fuzz_env_set(e, "MASTER_ADDR")) {
        host = addr, len = strlen(addr);
        if (len > 1 && addr[0] == '[' && addr[len - 1] == ']') host++, len -= 2;
    }
    if (fuzz_env_set(e, "MASTER_PORT")) port = (int)fuzz_decimal(fuzz_env_get(e, "MASTER_PORT"), &ok);
    if (!host && port < 0 && fuzz_env_set(e, "JAX_COORDINATOR_ADDRESS"))
        CHECK(cres__split_address(jax, &host, &len, &port));
    if (!host && port < 0) return;
    if (host) {
        CHECK(len < sizeof want->master_host);
        memcpy(want->master_host, host, len);
        want->master_host[len] = '\0';
    }
    if (port >= 0) want->master_port = port;
    snprintf(want->master_address, sizeof want->master_address, strchr(want->master_host, ':') ? "[%s]:%d" : "%s:%d",
             want->master_host, want->master_port);
}

static size_t job_tasks(const cres_cluster_spec *spec, const char *job) {
    const cres_job *j = cres_spec_job(spec, job);
    return j ? j->tasks_count : 0;
}

/* Vertex AI's launch ranks pools 0 and 1 (the primary and the workers): pools 2 and 3 have
   no rank. */
static void check_vertex_launch(const outcome *out) {
    int ranked = out->has_type && (strcmp(out->task_type, "workerpool0") == 0 ||
                                   strcmp(out->task_type, "workerpool1") == 0);
    size_t world = job_tasks(out->spec, "workerpool0") + job_tasks(out->spec, "workerpool1");
    if (!ranked || out->task_id < 0 || !cres_spec_task_address(out->spec, out->task_type, out->task_id)) {
        CHECK(out->launched != CRES_OK);
        return;
    }
    if (out->launched != CRES_OK) return; /* an address that does not read as host:port */
    CHECK((size_t)out->info.world_size == world);
    CHECK(out->info.rank >= 0 && out->info.rank < out->info.world_size);
}

static void config_for(cres_config *config, fuzz_counter *count, env *e) {
    fuzz_offline_config(config, count);
    config->getenv.fn = fuzz_getenv;
    config->getenv.user = e;
    config->env_list.fn = fuzz_env_at;
    config->env_list.user = e;
}

/* Creates, resolves, launches; the resolver is freed. *name gets the resolver's name. */
static void run_backend(int backend, const options *o, env *e, int with_options, outcome *out, char *name,
                        size_t name_cap) {
    cres_config config;
    cres_resolver *r = (cres_resolver *)out; /* must come back NULL on failure */
    cres_cluster_spec *spec2 = NULL;
    cres_error err;
    cres_result res;
    memset(out, 0, sizeof *out);
    config_for(&config, &out->count, e);
    e->backend = backend;
    e->checking = backend != B_AUTO;
    e->listed = 0;
    out->created = create(backend, o, e, with_options, &config, &r, &err);
    e->checking = 0;
    fuzz_check_known_error(out->created, &err);
    if (out->created != CRES_OK) {
        CHECK(r == NULL);
        CHECK(out->created != CRES_ERR_INCOMPLETE && out->created != CRES_ERR_BUFFER_TOO_SMALL);
        if (backend != B_AUTO) {
            static const char *const named[][3] = {{"CLUSTER_SPEC", "options.cluster_spec", NULL},
                                                   {"SKYPILOT_", NULL, NULL},
                                                   {"VC_", "VK_", NULL},
                                                   {"LWS_", NULL, NULL}};
#ifdef FUZZ_DEBUG
            fprintf(stderr, "%s: %s: %s\n", backend_names[backend], cres_result_string(out->created), err.message);
#endif
            /* CONFLICT: volcano's VC_A_HOSTS and VC_a_HOSTS are one job "a" defined twice */
            CHECK(out->created == CRES_ERR_ENVIRONMENT || out->created == CRES_ERR_INVALID_ARGUMENT ||
                  out->created == CRES_ERR_LIMIT || (backend == B_VOLCANO && out->created == CRES_ERR_CONFLICT));
            if (out->created == CRES_ERR_ENVIRONMENT)
                CHECK(strstr(err.message, named[backend][0]) ||
                      (named[backend][1] && strstr(err.message, named[backend][1])));
        }
        CHECK(out->count.live == 0);
        return;
    }
    CHECK(r != NULL);
    if (backend == B_VOLCANO) CHECK(e->listed > 0);
    snprintf(name, name_cap, "%s", cres_resolver_name(r));
    if (backend != B_AUTO) CHECK(strcmp(name, backend_names[backend]) == 0);
    if (cres_task_type(r)) {
        out->has_type = 1;
        snprintf(out->task_type, sizeof out->task_type, "%s", cres_task_type(r));
    }
    out->task_id = cres_task_id(r);
    snprintf(out->environment, sizeof out->environment, "%s",
             cres_environment(r) ? cres_environment(r) : "(none)"); /* NULL: none */

    /* resolve twice: fresh, equal specs */
    res = cres_resolve(r, &out->spec, &err);
    fuzz_check_known_error(res, &err);
    if (res == CRES_OK) {
        res = cres_resolve(r, &spec2, &err);
        fuzz_check_known_error(res, &err);
        CHECK(res == CRES_OK && spec2 != out->spec && cres_spec_equal(spec2, out->spec));
        cres_spec_free(spec2);
    } else {
        CHECK(out->spec == NULL);
    }
    if (backend_of(name) >= 0 && res == CRES_ERR_NOT_FOUND && (o->task_type || o->task_id >= 0)) {
        CHECK(strstr(err.message, "the task given") != NULL); /* an option's task, not in it */
    } else if (backend_of(name) >= 0) {
        size_t i;
        CHECK(res == CRES_OK); /* complete sources: the spec made at create */
        CHECK(fuzz_spec_tasks(out->spec) >= 1);
        /* the hosts backends make no empty job (a CLUSTER_SPEC may list an empty pool) */
        if (strcmp(name, "vertex") != 0)
            for (i = 0; i < cres_spec_jobs_count(out->spec); i++) CHECK(cres_spec_job_at(out->spec, i)->tasks_count);
    }

    /* launch: exactly when the own task is in the spec, as the spec says */
    memset(&out->info, 0x5a, sizeof out->info);
    out->launched = cres_launch(r, &out->info, &err);
    fuzz_check_known_error(out->launched, &err);
    if (out->launched == CRES_ERR_ENVIRONMENT && backend_of(name) >= 0) {
        if (!apply_env_refusal(name, &err)) fprintf(stderr, "launch: %s\n", err.message);
        CHECK(apply_env_refusal(name, &err)); /* the environment's sizes contradict the answer */
    } else if (out->spec && strcmp(name, "vertex") == 0) {
        check_vertex_launch(out);
    } else if (out->spec && backend_of(name) >= 0) {
        int in_spec = out->has_type && out->task_id >= 0 &&
                      cres_spec_task_address(out->spec, out->task_type, out->task_id) != NULL;
        if (!in_spec) CHECK(out->launched != CRES_OK);
        if (in_spec) {
            /* as the spec says (the hosts backends' addresses are always readable), but for
               the coordinator the environment names */
            cres_launch_info want;
            cres_result r2 = cres_spec_launch_info(out->spec, out->task_type, out->task_id, &want, &err);
            CHECK(r2 == out->launched && r2 == CRES_OK);
            explicit_coordinator(&e->vars, &want);
            CHECK(same_info(&out->info, &want));
            check_launch_info(&out->info, fuzz_spec_ranked_tasks(out->spec));
        }
    }

    /* the master (length query, then the buffer), accelerators, TF_CONFIG */
    {
        char buf[2048];
        size_t len = 0, len2 = 0;
        cres_accelerators acc;
        res = cres_master(r, NULL, 0, &len, &err);
        fuzz_check_known_error(res, &err);
        if (res == CRES_OK && len < sizeof buf) {
            res = cres_master(r, buf, sizeof buf, &len2, &err);
            fuzz_check_known_error(res, &err);
            CHECK(res == CRES_OK && len2 == len && strlen(buf) == len);
        }
        res = cres_num_accelerators(r, &acc, &err);
        fuzz_check_known_error(res, &err);
        if (res == CRES_OK && backend_of(name) >= 0) {
            CHECK(acc.count <= 1);
            if (acc.count) CHECK(strcmp(name, "skypilot") == 0 && strcmp(acc.items[0].type, "GPU") == 0);
            if (strcmp(name, "skypilot") == 0) {
                const char *v = fuzz_env_get(&e->vars, "SKYPILOT_NUM_GPUS_PER_NODE");
                int ok;
                long long gpus = fuzz_decimal(v, &ok);
                CHECK(acc.count == (ok && gpus > 0 ? 1u : 0u));
                if (acc.count) CHECK(acc.items[0].count == gpus);
            }
        }
        res = cres_tfconfig(r, NULL, 0, &len, &err);
        fuzz_check_known_error(res, &err);
        if (out->spec) CHECK(res == CRES_OK);
    }
    cres_resolver_free(r);
}

/* Frees the spec: then nothing of the run may be left. */
static void free_outcome(outcome *o) {
    cres_spec_free(o->spec);
    o->spec = NULL;
    CHECK(o->count.live == 0);
}

/* The checks against each source's model, after a direct create. */
static void check_model(const options *o, env *e, const outcome *got) {
    int port = o->port ? o->port : 8470, unsure = 0, ok;
    cres_cluster_spec *want = NULL;
    const char *hostname = e->hostname ? e->hostname : fuzz_env_get(&e->vars, "HOSTNAME");
    if (got->created == CRES_OK && !got->spec) return; /* an option's task not in it: refused */
    switch (o->backend) {
    case B_SKYPILOT: {
        const char *ips = fuzz_env_get(&e->vars, "SKYPILOT_NODE_IPS");
        const char *job = e->job_name ? e->job_name : "worker";
        size_t count = 0;
        long long rank;
        if (o->port < 0 || o->port > 65535 || !ips || !*ips) break;
        want = model_skypilot(ips, job, port, &count, &unsure);
        if (!want) {
            CHECK(got->created != CRES_OK); /* a host the model refuses */
            break;
        }
        if (got->created != CRES_OK) break;
        CHECK(cres_spec_equal(got->spec, want));
        CHECK(no_duplicates(got->spec));
        rank = fuzz_decimal(fuzz_env_get(&e->vars, "SKYPILOT_NODE_RANK"), &ok);
        CHECK(ok && rank >= 0 && (size_t)rank < count);
        if (!o->task_type) CHECK(got->has_type && strcmp(got->task_type, job) == 0 && got->task_id == rank);
        break;
    }
    case B_LWS: {
        const char *leader = fuzz_env_get(&e->vars, "LWS_LEADER_ADDRESS");
        const char *job = e->job_name ? e->job_name : "worker";
        long long size = fuzz_decimal(fuzz_env_get(&e->vars, "LWS_GROUP_SIZE"), &ok), own;
        if (got->created != CRES_OK) break;
        CHECK(ok && size >= 1 && leader);
        want = model_lws(leader, size, job, port, &unsure);
        CHECK(want || unsure);
        if (want) CHECK(cres_spec_equal(got->spec, want));
        own = fuzz_decimal(fuzz_env_get(&e->vars, "LWS_WORKER_INDEX"), &ok);
        CHECK(ok && own >= 0 && own < size);
        if (!o->task_type) CHECK(got->has_type && strcmp(got->task_type, job) == 0 && got->task_id == own);
        if (hostname && *hostname) { /* the own pod's name is its address's first label */
            const char *a = cres_spec_task_address(got->spec, job, (int)own);
            CHECK(a && strlen(hostname) == strcspn(a, ".:") && strncmp(a, hostname, strlen(hostname)) == 0);
        }
        break;
    }
    case B_VOLCANO: {
        const char *index_var =
            fuzz_env_get(&e->vars, "VC_TASK_INDEX") ? "VC_TASK_INDEX" : "VK_TASK_INDEX";
        long long index;
        if (o->port < 0 || o->port > 65535) break;
        want = model_volcano(e, port, &unsure);
        if (!want) {
            CHECK(got->created != CRES_OK || unsure);
            break;
        }
        if (got->created != CRES_OK) break;
#ifdef FUZZ_DEBUG
        {
            char a[8192], b[8192];
            cres_error err;
            cres_spec_to_json(got->spec, a, sizeof a, NULL, &err);
            cres_spec_to_json(want, b, sizeof b, NULL, &err);
            fprintf(stderr, "volcano: %s\nmodel:   %s\n", a, b);
        }
#endif
        CHECK(cres_spec_equal(got->spec, want));
        CHECK(no_duplicates(got->spec));
        if (o->task_type) break;
        if (!hostname || !*hostname) {
            CHECK(!got->has_type && got->task_id == CRES_NO_TASK);
            break;
        }
        {
            const char *a;
            size_t n = strlen(hostname);
            CHECK(got->has_type && got->task_id >= 0);
            a = cres_spec_task_address(got->spec, got->task_type, got->task_id);
            CHECK(a && strncmp(a, hostname, n) == 0 && (a[n] == '.' || a[n] == ':'));
        }
        index = fuzz_decimal(fuzz_env_get(&e->vars, index_var), &ok);
        if (fuzz_env_get(&e->vars, index_var)) CHECK(ok && index == got->task_id);
        break;
    }
    default: /* vertex: the same reader as tfconfig */
        break;
    }
    cres_spec_free(want);
}

/* vertex against tfconfig over the same text. */
static void check_vertex_against_tfconfig(const options *o, env *e, const outcome *got) {
    const char *text = e->cluster_spec ? e->cluster_spec : fuzz_env_get(&e->vars, "CLUSTER_SPEC");
    fuzz_counter count = {0};
    cres_config config;
    cres_tfconfig_options t;
    cres_resolver *r = NULL;
    cres_cluster_spec *spec = NULL;
    cres_error err;
    cres_result res;
    if (!text) {
        CHECK(got->created == CRES_ERR_ENVIRONMENT);
        return;
    }
    config_for(&config, &count, e);
    memset(&t, 0, sizeof t);
    t.config = &config;
    t.json = text;
    t.task_type = o->task_type;
    t.task_id = o->task_id;
    t.rpc_layer = o->rpc_layer;
    res = cres_tfconfig_resolver_create(&t, &r, &err);
    fuzz_check_known_error(res, &err);
    if (res != CRES_OK) {
        CHECK(got->created != CRES_OK); /* vertex is the stricter reader */
        CHECK(count.live == 0);
        return;
    }
    if (got->created == CRES_OK && !got->spec) { /* the options' task is not in it: both refuse */
        CHECK(cres_resolve(r, &spec, &err) == CRES_ERR_NOT_FOUND);
    } else if (got->created == CRES_OK) {
        CHECK(cres_resolve(r, &spec, &err) == CRES_OK);
        CHECK(cres_spec_equal(spec, got->spec));
        CHECK((cres_task_type(r) != NULL) == got->has_type);
        if (got->has_type) CHECK(strcmp(cres_task_type(r), got->task_type) == 0);
        CHECK(cres_task_id(r) == got->task_id);
        CHECK(strcmp(cres_environment(r) ? cres_environment(r) : "(none)", got->environment) == 0);
        /* the task, when CLUSTER_SPEC names one fully, is in the cluster */
        if (!o->task_type && got->has_type && got->task_id >= 0)
            CHECK(cres_spec_task_address(got->spec, got->task_type, got->task_id) != NULL);
        cres_spec_free(spec);
    }
    cres_resolver_free(r);
    CHECK(count.live == 0);
}

/* Auto's work bound: a Slurm step or MPI world past MAX_TASKS is skipped. */
static int too_big_for_auto(const env *e) {
    static const char *const sizes[] = {"SLURM_STEP_NUM_TASKS", "OMPI_COMM_WORLD_SIZE",
                                        "MV2_COMM_WORLD_SIZE",  "PMI_SIZE",
                                        "SLURM_NTASKS",         "NSLOTS",
                                        "FLUX_JOB_SIZE",        NULL};
    return fuzz_env_too_big(&e->vars, sizes, MAX_TASKS);
}

static void run(const options *o, env *e) {
    outcome got;
    char name[32] = "";
    run_backend(o->backend, o, e, 1, &got, name, sizeof name);
    if (o->backend == B_AUTO) {
        int picked = got.created == CRES_OK ? backend_of(name) : -1;
        if (got.created == CRES_OK && strcmp(name, "local") == 0) {
            static const char *const triggers[] = {"CLUSTER_SPEC",       "SKYPILOT_NODE_IPS",
                                                   "VC_TASK_INDEX",      "VK_TASK_INDEX",
                                                   "LWS_LEADER_ADDRESS", "LWS_WORKER_INDEX",
                                                   NULL};
            fuzz_check_auto_local(&e->vars, triggers);
        }
        if (picked >= 0) { /* auto's pick is the backend itself */
            outcome direct;
            char name2[32] = "";
            options d = *o;
            d.backend = picked;
            run_backend(picked, &d, e, 0, &direct, name2, sizeof name2);
            CHECK(direct.created == CRES_OK);
            CHECK(cres_spec_equal(direct.spec, got.spec));
            CHECK(direct.has_type == got.has_type && direct.task_id == got.task_id);
            if (got.has_type) CHECK(strcmp(direct.task_type, got.task_type) == 0);
            CHECK(direct.launched == got.launched);
            if (got.launched == CRES_OK) CHECK(same_info(&direct.info, &got.info));
            free_outcome(&direct);
        }
    } else {
        check_model(o, e, &got);
        if (o->backend == B_VERTEX) check_vertex_against_tfconfig(o, e, &got);
    }
    free_outcome(&got);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    static const char *const types[4] = {NULL, "worker", "workerpool0", ""};
    static const int ports[4] = {0, 2222, 65535, -1};
    options o;
    env e;
    char *text, *p, *end, *next;
    int ok;
    if (size < 1 || size > MAX_INPUT_BYTES) return 0;
    memset(&o, 0, sizeof o);
    o.backend = (data[0] & 7) < B_AUTO ? data[0] & 7 : B_AUTO;
    o.task_type = types[(data[0] >> 3) & 3];
    o.rpc_layer = data[0] & 32 ? "grpc" : NULL;
    o.port = ports[(data[0] >> 6) & 3];

    text = fuzz_task_and_text(data, size, o.task_type != NULL, &o.task_id, &end);
    if (!text) return 0;
    memset(&e, 0, sizeof e);
    for (p = text; p < end && e.vars.count < FUZZ_MAX_VARS; p = next) {
        char *eq = strchr(p, '=');
        next = p + strlen(p) + 1; /* before the '=' is cut */
        if (!eq || eq == p) continue;
        *eq = '\0';
        if (strcmp(p, "--cluster-spec") == 0) {
            if (!e.cluster_spec) e.cluster_spec = eq + 1;
        } else if (strcmp(p, "--hostname") == 0) {
            if (!e.hostname) e.hostname = eq + 1;
        } else if (strcmp(p, "--job-name") == 0) {
            if (!e.job_name) e.job_name = eq + 1;
        } else if (!fuzz_env_get(&e.vars, p) && !(o.backend == B_AUTO && strstr(p, "FILE"))) {
            /* the list's entry: "NAME=VALUE" again (the '=' put back in a copy) */
            size_t n = strlen(p), v = strlen(eq + 1);
            char *copy = (char *)malloc(n + v + 2);
            if (!copy) break;
            memcpy(copy, p, n);
            copy[n] = '=';
            memcpy(copy + n + 1, eq + 1, v + 1);
            e.vars.name[e.vars.count] = p;
            e.vars.value[e.vars.count] = eq + 1;
            e.entry[e.vars.count++] = copy;
        }
    }
    /* the work bounds (see the top comment) */
    if (fuzz_decimal(fuzz_env_get(&e.vars, "LWS_GROUP_SIZE"), &ok) > MAX_TASKS && ok) goto done;
    if (o.backend == B_AUTO && too_big_for_auto(&e)) goto done;
    run(&o, &e);
done:
    while (e.vars.count) free((void *)e.entry[--e.vars.count]);
    free(text);
    return 0;
}
