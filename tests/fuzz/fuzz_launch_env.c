/* libFuzzer target: the coordinator-only backends (torch, jax, awsbatch) and auto over a
   fuzzed environment, served through cres_config.getenv and cres_config.env_list (the
   process environment is never touched, and auto's HTTP backends get a transport that
   always fails).

   The input is up to 4096 bytes:
      byte 0      the selector and options:
                    bits 0-1  backend: 0 torch, 1 jax, 2 awsbatch, 3 auto
                    bits 2-3  task: 0 none (the backend's own), 1 task_type "worker",
                              2 task_type "chief", 3 task_type "" (each with the id below)
                    bit  4    rpc_layer "grpc" (else NULL)
                    bits 5-6  port (awsbatch, auto): 0, 1234, 65535, -1
                    bit  7    awsbatch main_host "main-0.internal" (else NULL)
      byte 1      only when bits 2-3 are not 0: the task id, a signed byte (-128..127)
      the rest    the environment: NAME=VALUE lines ('\n'-separated, at most 64 of them; the
                  first line of a name wins; a line without '=' is ignored, "NAME=" is set
                  and empty). Every other variable is unset.

   Each run creates the resolver, then calls cres_launch, cres_master (length query, real
   buffer, a short buffer, and worker 0's), cres_resolve, freeing all that is returned, and
   checks:
     - a failed create is a known code other than CRES_OK, with err.result the same, a
       NUL-terminated non-empty message and no resolver;
     - every call on a resolver returns a known code, with a message when it fails;
     - a successful cres_launch: 0 <= rank < world_size, or (torch: a node's torchrun, the
       own task unknown) rank and local_rank unknown with the node numbers known, world_size
       unknown or PET_NNODES x PET_NPROC_PER_NODE; local_rank < local_world_size and
       node_rank < num_nodes when both are known (neither below -1), each below world_size
       when known; master_port 1..65535 (for the resolve-based backends auto may pick:
       CRES_UNKNOWN or 0..65535, as a spec's address may say port 0: TF_CONFIG "w0:0");
       master_host and master_address NUL-terminated, master_host free of control
       characters, and master_address reads back (the library's own address reader) as
       master_host and master_port;
     - torch, jax, awsbatch (direct, or picked by auto): cres_resolve is CRES_ERR_INCOMPLETE
       and hands out no spec; cres_launch answers (the own task is always in the job unless
       an option names another) with world_size and rank as the variables say (a model of
       each source, below), master_host as the coordinator variable says; cres_master is
       master_address (behind "grpc://" with that rpc layer); a direct create reads only its
       documented variables;
     - auto: when it picks torch, jax or awsbatch, the launch info equals that of the
       backend created directly over the same environment; when it answers "local" after
       detecting nothing, none of the "one of several processes" variables (LOCAL_RANK,
       NODE_RANK, GROUP_RANK, LOCAL_WORLD_SIZE, PMI_RANK, FLUX_TASK_RANK,
       OMPI_COMM_WORLD_RANK, SLURM_PROCID, PET_NPROC_PER_NODE, PET_MASTER_PORT,
       AWS_BATCH_JOB_MAIN_NODE_INDEX, JOB_COMPLETION_INDEX) is set;
     - every allocation goes through a counting allocator and all are freed at the end of
       each run (besides ASan's leak checker); log messages are NUL-terminated.

   Auto's inputs whose Slurm step or MPI world is over 20000 tasks are skipped (fuzz_slurm_env
   and fuzz_hostlist cover the large ones; building such a spec per run only slows this one).

   Hand seeds (tests/fuzz/corpus/launch_env/), each an environment as the launcher sets it:
     torchrun_worker        torch: what torchrun 2.x exports to worker 5 of 2 nodes x 4
                            (TORCHELASTIC_RUN_ID, GROUP_*, ROLE_*, LOCAL_*, MASTER_*)
     torchrun_single_node   torch: `torchrun --standalone --nproc-per-node 2`, rank 1
     torch_plain            torch: MASTER_ADDR/PORT, RANK, WORLD_SIZE set by hand (or by
                            Ray Train / AzureML), no torchrun
     torch_plain_ipv6       the same with an IPv6 MASTER_ADDR
     kubeflow_pet           torch: a Kubeflow PyTorchJob pod (training-operator v1): PET_*
                            and the torch.distributed names, worker 2 of 4
     kubeflow_pet_only      torch: PET_* alone (Kubeflow's torchrun flags as variables)
     kubeflow_pet_elastic   torch: PET_NNODES=1:4 (an elastic range, refused)
     kubeflow_pet_nproc     torch: a PyTorchJob pod with nprocPerNode 4 (WORLD_SIZE = 16,
                            RANK the pod's): the node's torchrun, its own rank unknown
     jax_process            jax: JAX_COORDINATOR_ADDRESS host:port, process 3 of 4
     jax_port_separate      jax: address without port, JAX_COORDINATOR_PORT
     jax_ipv6               jax: "[fd00::1]:1234"
     awsbatch_main          awsbatch: the main node of a 3-node parallel job (no IP variable)
     awsbatch_child         awsbatch: node 2 of 3, with the main node's private IPv4 address
     awsbatch_main_not_zero awsbatch: main node index 1, this node 0 (rank 1)
     auto_torchrun          auto over torchrun_worker
     auto_torch_plain       auto over torch_plain
     auto_jax               auto over jax_process
     auto_awsbatch_child    auto over awsbatch_child
     auto_kubeflow_pet_only auto over kubeflow_pet_only
     auto_local_rank_only   auto with only LOCAL_RANK=0 (must refuse "local")
     auto_horovod           auto under horovodrun --gloo, rank 1 of 4 (must refuse "local")
     auto_pai_dlc           auto in an Alibaba PAI-DLC pod (WORLD_SIZE counts nodes beside
                            NPROC_PER_NODE: refused)
     auto_slurm_step        auto in a Slurm step (srun -N2 -n3), rank 2
     auto_ompi              auto under mpirun -np 4 on one host (OMPI_COMM_WORLD_*)
     auto_tf_config         auto with TF_CONFIG (chief + 2 workers), worker 1
     auto_indexed_job       auto in a Kubernetes Indexed Job pod (HTTP fails here)
     auto_torchrun_in_slurm auto: torchrun started by srun (TORCHELASTIC_RUN_ID and SLURM_*)
     auto_forced_local      CLUSTER_RESOLVER_BACKEND=local beside torch variables
     auto_nothing           an empty environment: local
     torch_task_override    torch_plain with task "worker" 0 and rpc layer grpc
     auto_tf_config_port_0  auto with TF_CONFIG {"worker": ["w0:0"]}: launch info port 0
     auto_tpu_endpoint_port_0  found by this target: KUBE_GOOGLE_CLOUD_TPU_ENDPOINTS with a
                            ":0" port (and a '`' in a host), taken as is: launch info port 0
     torch_local_rank_past_world  LOCAL_RANK=5 of WORLD_SIZE=2, LOCAL_WORLD_SIZE unset, and
     torch_node_rank_past_world   NODE_RANK=7 of WORLD_SIZE=2, GROUP_WORLD_SIZE unset: launch
                            info with a rank past the world up to commit f1c75dc, refused
                            by the create since
   tests/fuzz/fixture_seeds.py adds the environments of the unit and CLI tests.

   clang -g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined \
         tests/fuzz/fuzz_launch_env.c -o build/fuzz_launch_env
   build/fuzz_launch_env -max_len=4096 tests/fuzz/corpus/launch_env */

#include <limits.h>

#include "fuzz_common.h"

#define MAX_INPUT_BYTES 4096
#define MAX_AUTO_TASKS 20000

enum { B_TORCH, B_JAX, B_AWSBATCH, B_AUTO };

typedef struct env {
    fuzz_env vars;
    const char *const *allowed; /* the names a direct create may read, or NULL */
} env;

static const char *const torch_names[] = {
    "TORCHELASTIC_RUN_ID", "MASTER_ADDR",      "MASTER_PORT", "RANK",          "WORLD_SIZE",
    "LOCAL_RANK",          "LOCAL_WORLD_SIZE", "GROUP_RANK",  "NODE_RANK",     "GROUP_WORLD_SIZE",
    "PET_NNODES",          "PET_NODE_RANK",    "PET_MASTER_ADDR", "PET_MASTER_PORT",
    "PET_NPROC_PER_NODE",  "NPROC_PER_NODE",   "CUDA_VISIBLE_DEVICES", NULL};
static const char *const jax_names[] = {"JAX_COORDINATOR_ADDRESS", "JAX_COORDINATOR_PORT",
                                        "JAX_NUM_PROCESSES", "JAX_PROCESS_ID", NULL};
static const char *const awsbatch_names[] = {
    "AWS_BATCH_JOB_NODE_INDEX", "AWS_BATCH_JOB_NUM_NODES", "AWS_BATCH_JOB_MAIN_NODE_INDEX",
    "AWS_BATCH_JOB_MAIN_NODE_PRIVATE_IPV4_ADDRESS", NULL};
/* auto's rule 1: these say "one of several processes" */
static const char *const not_alone[] = {
    "LOCAL_RANK",   "NODE_RANK",      "GROUP_RANK",           "LOCAL_WORLD_SIZE",
    "PMI_RANK",     "FLUX_TASK_RANK", "OMPI_COMM_WORLD_RANK", "SLURM_PROCID",
    "PET_NPROC_PER_NODE", "PET_MASTER_PORT", "AWS_BATCH_JOB_MAIN_NODE_INDEX",
    "JOB_COMPLETION_INDEX", NULL};

static int listed(const char *const *names, const char *name) {
    for (; *names; names++)
        if (strcmp(*names, name) == 0) return 1;
    return 0;
}

static const char *fuzz_getenv(void *user, const char *name) {
    const env *e = (const env *)user;
    CHECK(name != NULL);
    if (e->allowed && !listed(e->allowed, name)) { /* a direct create reads only its own */
        fprintf(stderr, "the create read %s\n", name);
        CHECK(listed(e->allowed, name));
    }
    return fuzz_env_get(&e->vars, name);
}

/* The same variables as "NAME=VALUE" for the env_list hook (auto's volcano enumerates
   VC_<TASK>_HOSTS): without it the library would list the process environment. */
static const char *fuzz_env_at(void *user, size_t index) {
    static char entries[FUZZ_MAX_VARS][MAX_INPUT_BYTES + 2];
    const fuzz_env *e = &((const env *)user)->vars;
    if (index >= e->count) return NULL;
    snprintf(entries[index], sizeof entries[index], "%s=%s", e->name[index], e->value[index]);
    return entries[index];
}

/* ---------------------------------------------------------------------------------------
   Checks */

/* A known code, and one the library can name. */
static void check_error(cres_result r, const cres_error *err) {
    fuzz_check_known_error(r, err);
    CHECK(cres_result_string(r) != NULL);
}

static int is_coord(const char *name) {
    return strcmp(name, "torch") == 0 || strcmp(name, "jax") == 0 || strcmp(name, "awsbatch") == 0;
}

/* The launch info of any backend, on success. */
static void check_launch_info(const cres_launch_info *i, int coord) {
    size_t k;
    if (i->rank == CRES_UNKNOWN) { /* a node's torchrun: the node is known, not the process */
        CHECK(coord && i->local_rank == CRES_UNKNOWN && i->node_rank >= 0 && i->num_nodes >= 1);
        CHECK(i->world_size == CRES_UNKNOWN || i->world_size >= 1);
        CHECK((i->world_size == CRES_UNKNOWN) == (i->local_world_size == CRES_UNKNOWN));
    } else {
        CHECK(i->world_size >= 1);
        CHECK(i->rank >= 0 && i->rank < i->world_size);
    }
    CHECK(i->local_rank >= CRES_UNKNOWN && i->local_world_size >= CRES_UNKNOWN);
    CHECK(i->node_rank >= CRES_UNKNOWN && i->num_nodes >= CRES_UNKNOWN);
    if (i->local_rank != CRES_UNKNOWN && i->local_world_size != CRES_UNKNOWN)
        CHECK(i->local_rank < i->local_world_size);
    if (i->local_world_size != CRES_UNKNOWN) CHECK(i->local_world_size >= 1 && i->local_world_size <= i->world_size);
    if (i->node_rank != CRES_UNKNOWN && i->num_nodes != CRES_UNKNOWN) CHECK(i->node_rank < i->num_nodes);
    /* with their counts unknown, still within the world (when it is known) */
    if (i->local_rank != CRES_UNKNOWN) CHECK(i->local_rank < i->world_size);
    if (i->node_rank != CRES_UNKNOWN && i->world_size != CRES_UNKNOWN) CHECK(i->node_rank < i->world_size);
    if (i->num_nodes != CRES_UNKNOWN)
        CHECK(i->num_nodes >= 1 && (i->world_size == CRES_UNKNOWN || i->num_nodes <= i->world_size));
    /* a coordinator's port is 1..65535; a spec's address may say port 0 (TF_CONFIG "w0:0",
       an endpoint list "grpc://h:0": both taken as they are) */
    if (coord) CHECK(i->master_port >= 1 && i->master_port <= 65535);
    else CHECK(i->master_port == CRES_UNKNOWN || (i->master_port >= 0 && i->master_port <= 65535));
    CHECK(memchr(i->master_host, '\0', sizeof i->master_host) != NULL);
    CHECK(memchr(i->master_address, '\0', sizeof i->master_address) != NULL);
    for (k = 0; i->master_host[k]; k++)
        CHECK((unsigned char)i->master_host[k] >= 0x20 && (unsigned char)i->master_host[k] != 0x7f);
    if (coord) CHECK(i->master_host[0] != '\0');
    if (i->master_address[0]) fuzz_check_master_reads_back(i);
}

/* What a coordinator-only source must say: world size, rank (before an override), port,
   host. Returns 0 when the model does not apply (it only follows successful creates). */
typedef struct coord_model {
    long long world_size, rank, port;
    char host[CRES_HOST_SIZE];
} coord_model;

static void strip_brackets(const char *v, char *out, size_t cap) {
    size_t n = strlen(v);
    if (n > 1 && v[0] == '[' && v[n - 1] == ']') v++, n -= 2;
    CHECK(n < cap);
    memcpy(out, v, n);
    out[n] = '\0';
}

/* A variable the create read as an integer. */
static long long must_decimal(const fuzz_env *e, const char *name) {
    int ok;
    long long v = fuzz_decimal(fuzz_env_get(e, name), &ok);
    CHECK(ok);
    return v;
}

/* The coordinator the environment names is kept (cres_launch_apply_env): MASTER_ADDR and
   MASTER_PORT, else JAX_COORDINATOR_ADDRESS for a backend other than jax. */
static void explicit_coordinator(const char *backend, const fuzz_env *e, coord_model *m) {
    const char *addr = fuzz_env_get(e, "MASTER_ADDR"), *jax = fuzz_env_get(e, "JAX_COORDINATOR_ADDRESS");
    int named = 0;
    if (fuzz_env_set(e, "MASTER_ADDR")) {
        strip_brackets(addr, m->host, sizeof m->host);
        named = 1;
    }
    if (fuzz_env_set(e, "MASTER_PORT")) {
        m->port = must_decimal(e, "MASTER_PORT");
        named = 1;
    }
    if (!named && strcmp(backend, "jax") != 0 && fuzz_env_set(e, "JAX_COORDINATOR_ADDRESS")) {
        const char *host;
        size_t len;
        int port;
        CHECK(cres__split_address(jax, &host, &len, &port) && len < sizeof m->host);
        memcpy(m->host, host, len);
        m->host[len] = '\0';
        if (port >= 0) m->port = port;
    }
}

static void coord_model_base(const char *backend, const fuzz_env *e, int port_option,
                             const char *main_host, coord_model *m) {
    memset(m, 0, sizeof *m);
    if (strcmp(backend, "torch") == 0) {
        static const char *const plain[] = {"MASTER_ADDR", "MASTER_PORT", "RANK", "WORLD_SIZE", NULL};
        int workers = fuzz_env_set(e, "TORCHELASTIC_RUN_ID"), k;
        for (k = 0; !workers && plain[k]; k++) workers = fuzz_env_set(e, plain[k]);
        if (workers) {
            m->world_size = must_decimal(e, "WORLD_SIZE");
            m->rank = must_decimal(e, "RANK");
            m->port = must_decimal(e, "MASTER_PORT");
            strip_brackets(fuzz_env_get(e, "MASTER_ADDR"), m->host, sizeof m->host);
        } else {
            m->world_size = must_decimal(e, "PET_NNODES");
            m->rank = must_decimal(e, "PET_NODE_RANK");
            m->port = must_decimal(e, "PET_MASTER_PORT");
            strip_brackets(fuzz_env_get(e, "PET_MASTER_ADDR"), m->host, sizeof m->host);
        }
    } else if (strcmp(backend, "jax") == 0) {
        const char *a = fuzz_env_get(e, "JAX_COORDINATOR_ADDRESS"), *host;
        size_t len;
        int port;
        CHECK(a && cres__split_address(a, &host, &len, &port));
        CHECK(len < sizeof m->host);
        memcpy(m->host, host, len);
        m->host[len] = '\0';
        m->port = port >= 0 ? port : must_decimal(e, "JAX_COORDINATOR_PORT");
        m->world_size = must_decimal(e, "JAX_NUM_PROCESSES");
        m->rank = must_decimal(e, "JAX_PROCESS_ID");
    } else {
        const char *ip = fuzz_env_get(e, "AWS_BATCH_JOB_MAIN_NODE_PRIVATE_IPV4_ADDRESS");
        long long node, main_node;
        m->world_size = must_decimal(e, "AWS_BATCH_JOB_NUM_NODES");
        node = must_decimal(e, "AWS_BATCH_JOB_NODE_INDEX");
        main_node = must_decimal(e, "AWS_BATCH_JOB_MAIN_NODE_INDEX");
        CHECK(main_node >= 0 && main_node < m->world_size);
        m->rank = node == main_node ? 0 : node < main_node ? node + 1 : node;
        m->port = port_option ? port_option : 29500;
        snprintf(m->host, sizeof m->host, "%s", ip && *ip ? ip : main_host ? main_host : "localhost");
    }
}

static void coord_model_of(const char *backend, const fuzz_env *e, int port_option,
                           const char *main_host, coord_model *m) {
    coord_model_base(backend, e, port_option, main_host, m);
    if (strcmp(backend, "torch") != 0) explicit_coordinator(backend, e, m);
}

/* cres_launch_apply_env's refusals (not for torch): a size or rank variable that is no
   number or contradicts the backend's answer (the world and rank checked against the
   model), a coordinator variable that is not one or two that disagree. */
static const char *const explicit_names[] = {"WORLD_SIZE", "RANK", "LOCAL_RANK", "LOCAL_WORLD_SIZE",
                                             "GROUP_RANK", "NODE_RANK", "GROUP_WORLD_SIZE",
                                             "JAX_NUM_PROCESSES", "JAX_PROCESS_ID", NULL};

static int env_refusal(const char *backend, const fuzz_env *e, const cres_error *err, int port_option,
                       const char *main_host) {
    size_t n = strlen(backend), k;
    const char *var = err->message + n + 2;
    coord_model m;
    if (strcmp(backend, "torch") == 0 || strncmp(err->message, backend, n) != 0 ||
        strncmp(err->message + n, ": ", 2) != 0)
        return 0;
    for (k = 0; explicit_names[k]; k++) {
        size_t len = strlen(explicit_names[k]);
        if (strncmp(var, explicit_names[k], len) != 0 || var[len] != '=') continue;
        if (strstr(var, "is not a count or rank")) return 1;
        if (!strstr(var, "is set, but the")) return 0;
        coord_model_base(backend, e, port_option, main_host, &m);
        if (strcmp(explicit_names[k], "WORLD_SIZE") == 0 || strcmp(explicit_names[k], "JAX_NUM_PROCESSES") == 0)
            CHECK(must_decimal(e, explicit_names[k]) != m.world_size);
        if (strcmp(explicit_names[k], "RANK") == 0 || strcmp(explicit_names[k], "JAX_PROCESS_ID") == 0)
            CHECK(must_decimal(e, explicit_names[k]) != m.rank);
        return 1;
    }
    return strstr(var, "MASTER_ADDR=") == var || strstr(var, "MASTER_PORT=") == var ||
           strstr(var, "JAX_COORDINATOR_ADDRESS=") == var;
}

/* torch's node launch (no rank): the nodes from PET_NNODES and PET_NODE_RANK, the world
   their product with PET_NPROC_PER_NODE (unknown for a keyword), the coordinator from
   MASTER_* beside the torch.distributed names, else PET_MASTER_*. */
static void check_node_launch(const fuzz_env *e, const cres_launch_info *i) {
    const char *nproc = fuzz_env_get(e, "PET_NPROC_PER_NODE"), *host;
    int plain = fuzz_env_set(e, "RANK") || fuzz_env_set(e, "WORLD_SIZE") || fuzz_env_set(e, "MASTER_ADDR") ||
                fuzz_env_set(e, "MASTER_PORT");
    long long nodes = must_decimal(e, "PET_NNODES"), per = 0;
    char want[CRES_HOST_SIZE];
    int ok;
    CHECK(nproc != NULL);
    per = fuzz_decimal(nproc, &ok);
    CHECK(i->num_nodes == nodes && i->node_rank == must_decimal(e, "PET_NODE_RANK"));
    CHECK(ok ? (per > 1 && i->local_world_size == per && i->world_size == nodes * per)
             : (!plain && i->world_size == CRES_UNKNOWN && i->local_world_size == CRES_UNKNOWN));
    host = fuzz_env_get(e, plain ? "MASTER_ADDR" : "PET_MASTER_ADDR");
    strip_brackets(host, want, sizeof want);
    CHECK(strcmp(i->master_host, want) == 0);
    CHECK(i->master_port == must_decimal(e, plain ? "MASTER_PORT" : "PET_MASTER_PORT"));
}

/* cres_master and cres_master_of of a coordinator-only resolver. */
static void check_coord_master(cres_resolver *res, const cres_launch_info *info, const char *rpc) {
    char buf[CRES_ADDRESS_SIZE + 32], want[CRES_ADDRESS_SIZE + 32], small[5];
    size_t len = 0, len2 = 0;
    cres_error err;
    cres_result r;
    snprintf(want, sizeof want, "%s%s%s", rpc && *rpc ? rpc : "", rpc && *rpc ? "://" : "",
             info->master_address);
    /* the own task's master is the coordinator's address */
    r = cres_master(res, NULL, 0, &len, &err);
    check_error(r, &err);
    CHECK(r == CRES_OK && len == strlen(want));
    r = cres_master(res, buf, sizeof buf, &len2, &err);
    check_error(r, &err);
    CHECK(r == CRES_OK && len2 == len && strcmp(buf, want) == 0);
    r = cres_master(res, small, sizeof small, &len2, &err);
    check_error(r, &err);
    CHECK(len2 == len);
    if (len >= sizeof small) {
        CHECK(r == CRES_ERR_BUFFER_TOO_SMALL && strlen(small) == sizeof small - 1);
        CHECK(memcmp(small, want, sizeof small - 1) == 0);
    } else {
        CHECK(r == CRES_OK && strcmp(small, want) == 0);
    }
    /* worker 0 is the coordinator; any other task is unknown to the source */
    r = cres_master_of(res, "worker", 0, NULL, buf, sizeof buf, NULL, &err);
    check_error(r, &err);
    CHECK(r == CRES_OK && strcmp(buf, want) == 0);
    r = cres_master_of(res, "worker", 1, NULL, buf, sizeof buf, NULL, &err);
    check_error(r, &err);
    CHECK(r == CRES_ERR_INCOMPLETE);
    r = cres_master_of(res, "ps", 0, "", buf, sizeof buf, NULL, &err);
    check_error(r, &err);
    CHECK(r == CRES_ERR_INCOMPLETE);
}

typedef struct options {
    int backend;
    const char *task_type; /* NULL = none */
    int task_id;
    const char *rpc_layer;
    int port;
    const char *main_host;
} options;

static cres_result create(int backend, const options *o, const cres_config *config, cres_resolver **res,
                          cres_error *err) {
    switch (backend) {
    case B_TORCH: {
        cres_torch_options t;
        FUZZ_TASK_OPTIONS(t, config, o);
        return cres_torch_resolver_create(&t, res, err);
    }
    case B_JAX: {
        cres_jax_options j;
        FUZZ_TASK_OPTIONS(j, config, o);
        return cres_jax_resolver_create(&j, res, err);
    }
    case B_AWSBATCH: {
        cres_awsbatch_options b;
        FUZZ_TASK_OPTIONS(b, config, o);
        b.main_host = o->main_host;
        b.port = o->port;
        return cres_awsbatch_resolver_create(&b, res, err);
    }
    default: {
        cres_auto_options a;
        FUZZ_TASK_OPTIONS(a, config, o);
        a.port = o->port;
        return cres_auto_resolver_create(&a, res, err);
    }
    }
}

static int backend_of(const char *name) {
    if (strcmp(name, "torch") == 0) return B_TORCH;
    if (strcmp(name, "jax") == 0) return B_JAX;
    return B_AWSBATCH;
}

/* Auto's work bound: a Slurm step or MPI world past MAX_AUTO_TASKS is skipped. */
static int too_big_for_auto(const env *e) {
    static const char *const sizes[] = {"SLURM_STEP_NUM_TASKS", "OMPI_COMM_WORLD_SIZE",
                                        "MV2_COMM_WORLD_SIZE", "PMI_SIZE", NULL};
    return fuzz_env_too_big(&e->vars, sizes, MAX_AUTO_TASKS);
}

static void run(const options *o, env *e) {
    fuzz_counter count = {0};
    cres_config config;
    cres_resolver *res = (cres_resolver *)&count; /* must come back NULL on failure */
    cres_cluster_spec *spec = (cres_cluster_spec *)&count;
    cres_launch_info info;
    cres_error err;
    cres_result r, launched;
    const char *name;
    int coord;

    fuzz_offline_config(&config, &count);
    config.getenv.fn = fuzz_getenv;
    config.getenv.user = e;
    config.env_list.fn = fuzz_env_at;
    config.env_list.user = e;

    e->allowed = o->backend == B_TORCH      ? torch_names
                 : o->backend == B_JAX      ? jax_names
                 : o->backend == B_AWSBATCH ? awsbatch_names
                                            : NULL;
    r = create(o->backend, o, &config, &res, &err);
    e->allowed = NULL;
    check_error(r, &err);
#ifdef FUZZ_DEBUG
    fprintf(stderr, "create: %s: %s\n", cres_result_string(r), err.message);
#endif
    if (r != CRES_OK) {
        CHECK(res == NULL);
        CHECK(r != CRES_ERR_INCOMPLETE && r != CRES_ERR_BUFFER_TOO_SMALL);
        if (o->backend != B_AUTO)
            CHECK(r == CRES_ERR_ENVIRONMENT || r == CRES_ERR_UNSUPPORTED || r == CRES_ERR_INVALID_ARGUMENT ||
                  r == CRES_ERR_NOT_FOUND);
        CHECK(count.live == 0);
        return;
    }
    CHECK(res != NULL);
    name = cres_resolver_name(res);
    CHECK(name != NULL);
    coord = is_coord(name);
    if (o->backend != B_AUTO) {
        static const char *const names[] = {"torch", "jax", "awsbatch"};
        CHECK(strcmp(name, names[o->backend]) == 0);
    }

    /* auto's rule 1: no "local" while launch variables say there are several processes */
    if (o->backend == B_AUTO && strcmp(name, "local") == 0)
        fuzz_check_auto_local(&e->vars, not_alone);

    /* launch */
    memset(&info, 0x5a, sizeof info);
    launched = cres_launch(res, &info, &err);
    check_error(launched, &err);
    if (launched == CRES_OK) check_launch_info(&info, coord);
    if (coord) {
        const char *type = cres_task_type(res);
        int id = cres_task_id(res);
        int in_job = type && strcmp(type, "worker") == 0 && id >= 0;
        coord_model m;
        /* the own task is in the job unless an option named another or the environment's
           sizes, ranks or coordinator contradict the answer */
        if (launched == CRES_ERR_ENVIRONMENT) {
            CHECK(env_refusal(name, &e->vars, &err, o->port, o->backend == B_AUTO ? NULL : o->main_host));
        } else if (launched != CRES_OK) {
            CHECK(launched == CRES_ERR_NOT_FOUND && o->task_type);
        } else if (info.rank == CRES_UNKNOWN) { /* a node's torchrun: no own task */
            CHECK(strcmp(name, "torch") == 0 && !type && id < 0 && !o->task_type);
            check_node_launch(&e->vars, &info);
            check_coord_master(res, &info, o->rpc_layer);
        } else {
            CHECK(in_job);
            CHECK(info.rank == id);
            coord_model_of(name, &e->vars, o->port, o->backend == B_AUTO ? NULL : o->main_host, &m);
            CHECK(info.world_size == m.world_size);
            if (!o->task_type) CHECK(info.rank == m.rank);
            CHECK(info.master_port == m.port);
            CHECK(strcmp(info.master_host, m.host) == 0);
            check_coord_master(res, &info, o->rpc_layer);
        }
        /* resolve: the source names no member's address */
        r = cres_resolve(res, &spec, &err);
        check_error(r, &err);
        CHECK(r == CRES_ERR_INCOMPLETE && spec == NULL);
        /* auto's pick is the backend itself */
        if (o->backend == B_AUTO) {
            options direct = *o;
            cres_resolver *res2 = NULL;
            cres_launch_info info2;
            cres_result r2;
            direct.main_host = NULL; /* auto gives awsbatch only the port */
            r2 = create(backend_of(name), &direct, &config, &res2, &err);
            check_error(r2, &err);
            CHECK(r2 == CRES_OK);
            memset(&info2, 0x5a, sizeof info2);
            r2 = cres_launch(res2, &info2, &err);
            check_error(r2, &err);
            CHECK(r2 == launched);
            if (r2 == CRES_OK) {
                CHECK(info2.world_size == info.world_size && info2.rank == info.rank);
                CHECK(info2.local_rank == info.local_rank && info2.local_world_size == info.local_world_size);
                CHECK(info2.node_rank == info.node_rank && info2.num_nodes == info.num_nodes);
                CHECK(info2.master_port == info.master_port);
                CHECK(strcmp(info2.master_host, info.master_host) == 0);
                CHECK(strcmp(info2.master_address, info.master_address) == 0);
            }
            cres_resolver_free(res2);
        }
    } else {
        char buf[256];
        size_t len = 0;
        r = cres_master(res, buf, sizeof buf, &len, &err);
        check_error(r, &err);
        if (r == CRES_OK || r == CRES_ERR_BUFFER_TOO_SMALL) CHECK(memchr(buf, '\0', sizeof buf) != NULL);
        spec = NULL;
        r = cres_resolve(res, &spec, &err);
        check_error(r, &err);
        CHECK((r == CRES_OK) == (spec != NULL));
        cres_spec_free(spec);
    }
    cres_resolver_free(res);
    CHECK(count.live == 0);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    static const char *const types[4] = {NULL, "worker", "chief", ""};
    static const int ports[4] = {0, 1234, 65535, -1};
    options o;
    env e;
    char *text, *p, *end;
    if (size < 1 || size > MAX_INPUT_BYTES) return 0;
    memset(&o, 0, sizeof o);
    o.backend = data[0] & 3;
    o.task_type = types[(data[0] >> 2) & 3];
    o.rpc_layer = data[0] & 16 ? "grpc" : NULL;
    o.port = ports[(data[0] >> 5) & 3];
    o.main_host = data[0] & 128 ? "main-0.internal" : NULL;

    text = fuzz_task_and_text(data, size, o.task_type != NULL, &o.task_id, &end);
    if (!text) return 0;
    memset(&e, 0, sizeof e);
    for (p = text; p < end && e.vars.count < FUZZ_MAX_VARS;) {
        char *nl = memchr(p, '\n', (size_t)(end - p)), *eq;
        if (nl) *nl = '\0';
        eq = strchr(p, '=');
        if (eq && eq > p && strlen(p) == (size_t)(nl ? nl - p : end - p)) { /* no NUL inside */
            *eq = '\0';
            if (!fuzz_env_get(&e.vars, p)) {
                e.vars.name[e.vars.count] = p;
                e.vars.value[e.vars.count++] = eq + 1;
            }
        }
        if (!nl) break;
        p = nl + 1;
    }
    if (o.backend == B_AUTO && too_big_for_auto(&e)) {
        free(text);
        return 0;
    }
    run(&o, &e);
    free(text);
    return 0;
}
