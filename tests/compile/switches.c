/* The per-backend compile switches: tests/check.sh builds this with each
   CLUSTER_RESOLVER_NO_<BACKEND> alone and with all of them, and runs it. Whatever the build,
   every create function links; one left out fails with CRES_ERR_UNSUPPORTED naming its switch,
   one compiled in does not. Auto, in an environment that names each backend (through the
   getenv and env_list hooks), picks it when it is there and refuses, naming the switch, when
   it is not: a left-out backend never turns a cluster into a one-task local job. Its log line
   lists what the build left out. Flux tells its tasks no hosts, so auto can only pick it and
   fail with flux's own error. Exit 0 when all holds; each failure is printed. */
#define _POSIX_C_SOURCE 200809L /* mkstemp: PBS_NODEFILE and PE_HOSTFILE are files */
#define CLUSTER_RESOLVER_IMPLEMENTATION
#include "../../cluster_resolver.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int failures;

static void expect(int ok, const char *what, const cres_error *err) {
    if (ok) return;
    failures++;
    printf("switches: %s (%s: %s)\n", what, cres_result_string(err->result), err->message);
}

/* The outcome of a create: left out (and says which switch) or not. */
static void check_create(const char *name, const char *macro, int left_out, cres_result res, cres_resolver *r,
                         const cres_error *err) {
    char what[160];
    snprintf(what, sizeof what, "%s: create %s", name, left_out ? "should name " : "should not be left out");
    if (left_out) {
        snprintf(what + strlen(what), sizeof what - strlen(what), "%s", macro);
        expect(res == CRES_ERR_UNSUPPORTED && r == NULL && strstr(err->message, macro) != NULL, what, err);
    } else {
        expect(res != CRES_ERR_UNSUPPORTED, what, err);
    }
    cres_resolver_free(r);
}

#ifdef CLUSTER_RESOLVER_NO_SIMPLE
#  define OUT_SIMPLE 1
#else
#  define OUT_SIMPLE 0
#endif
#ifdef CLUSTER_RESOLVER_NO_UNION
#  define OUT_UNION 1
#else
#  define OUT_UNION 0
#endif
#ifdef CLUSTER_RESOLVER_NO_TFCONFIG
#  define OUT_TFCONFIG 1
#else
#  define OUT_TFCONFIG 0
#endif
#ifdef CLUSTER_RESOLVER_NO_LOCAL
#  define OUT_LOCAL 1
#else
#  define OUT_LOCAL 0
#endif
#ifdef CLUSTER_RESOLVER_NO_K8S
#  define OUT_K8S 1
#else
#  define OUT_K8S 0
#endif
#ifdef CLUSTER_RESOLVER_NO_GCE
#  define OUT_GCE 1
#else
#  define OUT_GCE 0
#endif
#ifdef CLUSTER_RESOLVER_NO_TPU
#  define OUT_TPU 1
#else
#  define OUT_TPU 0
#endif
#ifdef CLUSTER_RESOLVER_NO_SLURM
#  define OUT_SLURM 1
#else
#  define OUT_SLURM 0
#endif
#ifdef CLUSTER_RESOLVER_NO_MPI
#  define OUT_MPI 1
#else
#  define OUT_MPI 0
#endif
#ifdef CLUSTER_RESOLVER_NO_SAGEMAKER
#  define OUT_SAGEMAKER 1
#else
#  define OUT_SAGEMAKER 0
#endif
#ifdef CLUSTER_RESOLVER_NO_PBS
#  define OUT_PBS 1
#else
#  define OUT_PBS 0
#endif
#ifdef CLUSTER_RESOLVER_NO_LSF
#  define OUT_LSF 1
#else
#  define OUT_LSF 0
#endif
#ifdef CLUSTER_RESOLVER_NO_SGE
#  define OUT_SGE 1
#else
#  define OUT_SGE 0
#endif
#ifdef CLUSTER_RESOLVER_NO_FLUX
#  define OUT_FLUX 1
#else
#  define OUT_FLUX 0
#endif
#ifdef CLUSTER_RESOLVER_NO_VERTEX
#  define OUT_VERTEX 1
#else
#  define OUT_VERTEX 0
#endif
#ifdef CLUSTER_RESOLVER_NO_SKYPILOT
#  define OUT_SKYPILOT 1
#else
#  define OUT_SKYPILOT 0
#endif
#ifdef CLUSTER_RESOLVER_NO_VOLCANO
#  define OUT_VOLCANO 1
#else
#  define OUT_VOLCANO 0
#endif
#ifdef CLUSTER_RESOLVER_NO_LWS
#  define OUT_LWS 1
#else
#  define OUT_LWS 0
#endif
#ifdef CLUSTER_RESOLVER_NO_TORCH
#  define OUT_TORCH 1
#else
#  define OUT_TORCH 0
#endif
#ifdef CLUSTER_RESOLVER_NO_JAX
#  define OUT_JAX 1
#else
#  define OUT_JAX 0
#endif
#ifdef CLUSTER_RESOLVER_NO_AWSBATCH
#  define OUT_AWSBATCH 1
#else
#  define OUT_AWSBATCH 0
#endif
#ifdef CLUSTER_RESOLVER_NO_AUTO
#  define OUT_AUTO 1
#else
#  define OUT_AUTO 0
#endif

/* ---- an environment for each backend auto can detect, read through the hook ---------- */

#define MAX_VARS 10

typedef struct environment {
    const char *vars[MAX_VARS][2];
    char log[512];
} environment;

static const char *env_get(void *user, const char *name) {
    environment *e = (environment *)user;
    size_t i;
    for (i = 0; i < MAX_VARS && e->vars[i][0]; i++)
        if (strcmp(e->vars[i][0], name) == 0) return e->vars[i][1];
    return NULL;
}

/* The same variables as "NAME=VALUE", for the env_list hook (Volcano's VC_<TASK>_HOSTS). */
static char listed[MAX_VARS][512];

static const char *env_at(void *user, size_t index) {
    environment *e = (environment *)user;
    if (index >= MAX_VARS || !e->vars[index][0]) return NULL;
    snprintf(listed[index], sizeof listed[index], "%s=%s", e->vars[index][0], e->vars[index][1]);
    return listed[index];
}

static void env_log(void *user, cres_log_level level, const char *message) {
    environment *e = (environment *)user;
    if (level == CRES_LOG_INFO && strncmp(message, "auto:", 5) == 0) snprintf(e->log, sizeof e->log, "%s", message);
}

/* The schedulers' files, written by main(). */
static char nodefile[64] = "/tmp/switches_nodefile.XXXXXX", pe_hostfile[64] = "/tmp/switches_pe_hostfile.XXXXXX";

static const struct {
    const char *backend, *macro;
    int left_out;
    environment env;
} cases[] = {
    {"tfconfig", "CLUSTER_RESOLVER_NO_TFCONFIG", OUT_TFCONFIG,
     {{{"TF_CONFIG", "{\"cluster\": {\"worker\": [\"w0:1\"]}, \"task\": {\"type\": \"worker\", \"index\": 0}}"}}, ""}},
    {"mpi", "CLUSTER_RESOLVER_NO_MPI", OUT_MPI,
     {{{"OMPI_COMM_WORLD_RANK", "0"}, {"OMPI_COMM_WORLD_SIZE", "1"}, {"OMPI_COMM_WORLD_LOCAL_RANK", "0"},
       {"OMPI_COMM_WORLD_LOCAL_SIZE", "1"}}, ""}},
    {"slurm", "CLUSTER_RESOLVER_NO_SLURM", OUT_SLURM,
     {{{"SLURM_JOB_ID", "7"}, {"SLURM_PROCID", "1"}, {"SLURM_STEP_NUM_TASKS", "2"}, {"SLURM_STEP_NODELIST", "n[1-2]"},
       {"SLURM_STEP_TASKS_PER_NODE", "1(x2)"}}, ""}},
    {"sagemaker", "CLUSTER_RESOLVER_NO_SAGEMAKER", OUT_SAGEMAKER,
     {{{"SM_HOSTS", "[\"algo-1\", \"algo-2\"]"}, {"SM_CURRENT_HOST", "algo-2"}}, ""}},
    {"tpu", "CLUSTER_RESOLVER_NO_TPU", OUT_TPU, {{{"TPU_WORKER_HOSTNAMES", "t0,t1"}, {"TPU_WORKER_ID", "1"}}, ""}},
    /* torchrun's worker 1 of 2 nodes x 2 */
    {"torch", "CLUSTER_RESOLVER_NO_TORCH", OUT_TORCH,
     {{{"TORCHELASTIC_RUN_ID", "r1"}, {"MASTER_ADDR", "n1"}, {"MASTER_PORT", "29500"}, {"RANK", "1"},
       {"WORLD_SIZE", "4"}, {"LOCAL_RANK", "1"}, {"LOCAL_WORLD_SIZE", "2"}, {"GROUP_RANK", "0"},
       {"GROUP_WORLD_SIZE", "2"}}, ""}},
    /* torch.distributed's names without torchrun */
    {"torch", "CLUSTER_RESOLVER_NO_TORCH", OUT_TORCH,
     {{{"MASTER_ADDR", "10.0.0.1"}, {"MASTER_PORT", "29500"}, {"RANK", "1"}, {"WORLD_SIZE", "2"}}, ""}},
    /* Kubeflow's PET_* alone */
    {"torch", "CLUSTER_RESOLVER_NO_TORCH", OUT_TORCH,
     {{{"PET_NNODES", "2"}, {"PET_NODE_RANK", "1"}, {"PET_MASTER_ADDR", "m0"}, {"PET_MASTER_PORT", "23456"}}, ""}},
    {"jax", "CLUSTER_RESOLVER_NO_JAX", OUT_JAX,
     {{{"JAX_COORDINATOR_ADDRESS", "10.0.0.1:1234"}, {"JAX_NUM_PROCESSES", "2"}, {"JAX_PROCESS_ID", "1"}}, ""}},
    /* an AWS Batch multi-node child: node 1 of 2, the main node at 10.0.0.1 */
    {"awsbatch", "CLUSTER_RESOLVER_NO_AWSBATCH", OUT_AWSBATCH,
     {{{"AWS_BATCH_JOB_NODE_INDEX", "1"}, {"AWS_BATCH_JOB_NUM_NODES", "2"}, {"AWS_BATCH_JOB_MAIN_NODE_INDEX", "0"},
       {"AWS_BATCH_JOB_MAIN_NODE_PRIVATE_IPV4_ADDRESS", "10.0.0.1"}}, ""}},
    /* PBS: pbsdsh's task 1 of a nodefile of two slots */
    {"pbs", "CLUSTER_RESOLVER_NO_PBS", OUT_PBS, {{{"PBS_NODEFILE", nodefile}, {"PBS_VNODENUM", "1"}}, ""}},
    /* LSF: the job script of `bsub -n 2` */
    {"lsf", "CLUSTER_RESOLVER_NO_LSF", OUT_LSF, {{{"LSB_JOBID", "81"}, {"LSB_MCPU_HOSTS", "hostA 1 hostB 1"}}, ""}},
    /* Grid Engine: the job script of a parallel environment */
    {"sge", "CLUSTER_RESOLVER_NO_SGE", OUT_SGE, {{{"PE_HOSTFILE", pe_hostfile}, {"NSLOTS", "2"}}, ""}},
    /* Flux: a task of `flux run -N2 -n2` (no hostfile: flux's own error) */
    {"flux", "CLUSTER_RESOLVER_NO_FLUX", OUT_FLUX,
     {{{"FLUX_JOB_ID", "f2oLkTLb"}, {"FLUX_TASK_RANK", "1"}, {"FLUX_JOB_SIZE", "2"}, {"FLUX_JOB_NNODES", "2"}}, ""}},
    /* Vertex AI's CLUSTER_SPEC: the primary replica and a worker, the worker's process */
    {"vertex", "CLUSTER_RESOLVER_NO_VERTEX", OUT_VERTEX,
     {{{"CLUSTER_SPEC", "{\"cluster\": {\"workerpool0\": [\"p0:2222\"], \"workerpool1\": [\"w0:2222\"]}, "
                        "\"environment\": \"cloud\", \"task\": {\"type\": \"workerpool1\", \"index\": 0}}"}}, ""}},
    /* SkyPilot's node 1 of 2 */
    {"skypilot", "CLUSTER_RESOLVER_NO_SKYPILOT", OUT_SKYPILOT,
     {{{"SKYPILOT_NODE_IPS", "10.0.0.1\n10.0.0.2"}, {"SKYPILOT_NODE_RANK", "1"}, {"SKYPILOT_NUM_NODES", "2"}}, ""}},
    /* Volcano's worker 1 of a job "j" (svc and env plugins; the hosts through env_list) */
    {"volcano", "CLUSTER_RESOLVER_NO_VOLCANO", OUT_VOLCANO,
     {{{"VC_WORKER_HOSTS", "j-worker-0.j,j-worker-1.j"}, {"VC_WORKER_NUM", "2"}, {"VC_TASK_INDEX", "1"},
       {"HOSTNAME", "j-worker-1"}}, ""}},
    /* LeaderWorkerSet's worker 1 of a group of 2 */
    {"lws", "CLUSTER_RESOLVER_NO_LWS", OUT_LWS,
     {{{"LWS_LEADER_ADDRESS", "g-0.g.default"}, {"LWS_GROUP_SIZE", "2"}, {"LWS_WORKER_INDEX", "1"},
       {"HOSTNAME", "g-0-1"}}, ""}},
    /* an Indexed Job's pod: the own Job's members (members JOB is a part that may be left out) */
    {"kubernetes", "CLUSTER_RESOLVER_NO_K8S", OUT_K8S,
     {{{"KUBERNETES_SERVICE_HOST", "10.96.0.1"}, {"KUBERNETES_SERVICE_PORT", "443"}, {"JOB_COMPLETION_INDEX", "1"},
       {"HOSTNAME", "trainer-1"}}, ""}},
    {"local", "CLUSTER_RESOLVER_NO_LOCAL", OUT_LOCAL, {{{"HOME", "/"}}, ""}},
};

static int any_left_out(void) {
    return OUT_TFCONFIG || OUT_MPI || OUT_SLURM || OUT_SAGEMAKER || OUT_TPU || OUT_K8S || OUT_LOCAL || OUT_TORCH ||
           OUT_JAX || OUT_AWSBATCH || OUT_VERTEX || OUT_SKYPILOT || OUT_VOLCANO || OUT_LWS || OUT_PBS || OUT_LSF ||
           OUT_SGE || OUT_FLUX;
}

static void check_auto(void) {
    size_t i;
    for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        environment env = cases[i].env;
        cres_config config;
        cres_auto_options o;
        cres_resolver *r = NULL;
        cres_error err;
        cres_result res;
        char what[128];
        memset(&config, 0, sizeof config);
        config.getenv.fn = env_get;
        config.getenv.user = &env;
        config.env_list.fn = env_at;
        config.env_list.user = &env;
        config.log.fn = env_log;
        config.log.user = &env;
        memset(&o, 0, sizeof o);
        o.config = &config;
        res = cres_auto_resolver_create(&o, &r, &err);
        if (OUT_AUTO) {
            check_create("auto", "CLUSTER_RESOLVER_NO_AUTO", 1, res, r, &err);
            return;
        }
        snprintf(what, sizeof what, "auto in a %s environment", cases[i].backend);
        if (cases[i].left_out) {
            expect(res == CRES_ERR_UNSUPPORTED && strstr(err.message, cases[i].macro) != NULL, what, &err);
        } else if (strcmp(cases[i].backend, "flux") == 0) {
            expect(res == CRES_ERR_ENVIRONMENT && strncmp(err.message, "flux: ", 6) == 0, what, &err);
        } else {
            expect(res == CRES_OK && strcmp(cres_resolver_name(r), cases[i].backend) == 0, what, &err);
            expect(res != CRES_OK || (strstr(env.log, "left out of this build") != NULL) == any_left_out(),
                   "auto's log line lists what this build left out", &err);
            if (strcmp(cases[i].backend, "kubernetes") == 0) {
#ifdef CLUSTER_RESOLVER_NO_K8S_JOB
                const char *members = "members listed (CLUSTER_RESOLVER_NO_K8S_JOB)";
#else
                const char *members = "members named from the Job, else listed";
#endif
                expect(strstr(env.log, "job \"worker\" = job-name=trainer") && strstr(env.log, members),
                       "auto's log line says how a Job's pod gets its members", &err);
            }
        }
        cres_resolver_free(r);
    }
}

/* Writes text to a new file at path (a mkstemp template). */
static void write_temp(char *path, const char *text) {
    int fd = mkstemp(path);
    FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;
    if (!f || fputs(text, f) < 0 || fclose(f) != 0) {
        printf("switches: cannot write %s\n", path);
        failures++;
    }
}

static void write_files(void) {
    write_temp(nodefile, "node01\nnode02\n");
    write_temp(pe_hostfile, "node01 1 all.q@node01 UNDEFINED\nnode02 1 all.q@node02 UNDEFINED\n");
}

int main(void) {
    static environment none;
    cres_config nothing_set; /* an empty environment: no create reads the real one */
    cres_cluster_spec *spec = NULL;
    cres_resolver *r = NULL, *children[1];
    cres_error err;
    cres_result res;
    memset(&nothing_set, 0, sizeof nothing_set);
    nothing_set.getenv.fn = env_get;
    nothing_set.getenv.user = &none;
    nothing_set.env_list.fn = env_at;
    nothing_set.env_list.user = &none;
    {
        cres_simple_options o;
        memset(&o, 0, sizeof o);
        cres_spec_create(NULL, &spec, &err);
        o.spec = spec;
        res = cres_simple_resolver_create(&o, &r, &err);
        check_create("simple", "CLUSTER_RESOLVER_NO_SIMPLE", OUT_SIMPLE, res, r, &err);
        if (OUT_SIMPLE)
            check_create("simple", "CLUSTER_RESOLVER_NO_SIMPLE", 1, cres_simple_resolver_create(NULL, NULL, &err),
                         NULL, &err);
    }
    {
        cres_union_options o;
        cres_simple_options so;
        memset(&so, 0, sizeof so);
        so.spec = spec;
        children[0] = NULL;
        cres_simple_resolver_create(&so, &children[0], &err);
        memset(&o, 0, sizeof o);
        o.resolvers = children;
        o.resolvers_count = 1;
        o.owns_resolvers = 1;
        r = NULL;
        res = cres_union_resolver_create(&o, &r, &err);
        check_create("union", "CLUSTER_RESOLVER_NO_UNION", OUT_UNION, res, r, &err);
        if (OUT_UNION) cres_resolver_free(children[0]);
        if (OUT_UNION)
            check_create("union", "CLUSTER_RESOLVER_NO_UNION", 1, cres_union_resolver_create(NULL, NULL, &err), NULL,
                         &err);
    }
    cres_spec_free(spec);
#define CREATE(fn, type, name, macro, out)                                                    \
    do {                                                                                      \
        type o;                                                                               \
        memset(&o, 0, sizeof o);                                                              \
        o.config = &nothing_set;                                                              \
        r = NULL;                                                                             \
        res = fn(&o, &r, &err);                                                               \
        check_create(name, macro, out, res, r, &err);                                         \
        if (out) /* left out: refused the same with NULL options and no out pointer */      \
            check_create(name, macro, 1, fn(NULL, NULL, &err), NULL, &err);                   \
    } while (0)
    CREATE(cres_tfconfig_resolver_create, cres_tfconfig_options, "tfconfig", "CLUSTER_RESOLVER_NO_TFCONFIG", OUT_TFCONFIG);
    CREATE(cres_local_resolver_create, cres_local_options, "local", "CLUSTER_RESOLVER_NO_LOCAL", OUT_LOCAL);
    CREATE(cres_k8s_resolver_create, cres_k8s_options, "k8s", "CLUSTER_RESOLVER_NO_K8S", OUT_K8S);
    { /* CLUSTER_RESOLVER_NO_KUBECONFIG: a kubeconfig named is refused, naming the switch */
        cres_k8s_options o;
        int no_kubeconfig = 0;
#ifdef CLUSTER_RESOLVER_NO_KUBECONFIG
        no_kubeconfig = 1;
#endif
        memset(&o, 0, sizeof o);
        o.config = &nothing_set;
        o.kubeconfig = "/nonexistent/kubeconfig";
        r = NULL;
        res = cres_k8s_resolver_create(&o, &r, &err);
        if (!OUT_K8S)
            check_create("k8s kubeconfig", "CLUSTER_RESOLVER_NO_KUBECONFIG", no_kubeconfig, res, r,
                         &err);
        else cres_resolver_free(r);
        if (!OUT_K8S && !no_kubeconfig)
            expect(res == CRES_ERR_ENVIRONMENT && strstr(err.message, "/nonexistent/kubeconfig"),
                   "k8s: a missing kubeconfig named by the option is an error naming it", &err);
    }
    { /* CLUSTER_RESOLVER_NO_K8S_JOB: members JOB is refused, naming the switch */
        cres_k8s_options o;
        int no_job = 0;
#ifdef CLUSTER_RESOLVER_NO_K8S_JOB
        no_job = 1;
#endif
        memset(&o, 0, sizeof o);
        o.config = &nothing_set;
        o.server = "http://127.0.0.1:1";
        o.members = CRES_K8S_MEMBERS_JOB;
        r = NULL;
        res = cres_k8s_resolver_create(&o, &r, &err);
        if (!OUT_K8S) check_create("k8s members JOB", "CLUSTER_RESOLVER_NO_K8S_JOB", no_job, res, r, &err);
        else cres_resolver_free(r);
        if (!OUT_K8S && !no_job) expect(res == CRES_OK, "k8s: members JOB is compiled in", &err);
    }
    CREATE(cres_gce_resolver_create, cres_gce_options, "gce", "CLUSTER_RESOLVER_NO_GCE", OUT_GCE);
    CREATE(cres_tpu_resolver_create, cres_tpu_options, "tpu", "CLUSTER_RESOLVER_NO_TPU", OUT_TPU);
    CREATE(cres_slurm_resolver_create, cres_slurm_options, "slurm", "CLUSTER_RESOLVER_NO_SLURM", OUT_SLURM);
    CREATE(cres_mpi_resolver_create, cres_mpi_options, "mpi", "CLUSTER_RESOLVER_NO_MPI", OUT_MPI);
    CREATE(cres_sagemaker_resolver_create, cres_sagemaker_options, "sagemaker", "CLUSTER_RESOLVER_NO_SAGEMAKER",
           OUT_SAGEMAKER);
    CREATE(cres_pbs_resolver_create, cres_pbs_options, "pbs", "CLUSTER_RESOLVER_NO_PBS", OUT_PBS);
    CREATE(cres_lsf_resolver_create, cres_lsf_options, "lsf", "CLUSTER_RESOLVER_NO_LSF", OUT_LSF);
    CREATE(cres_sge_resolver_create, cres_sge_options, "sge", "CLUSTER_RESOLVER_NO_SGE", OUT_SGE);
    CREATE(cres_flux_resolver_create, cres_flux_options, "flux", "CLUSTER_RESOLVER_NO_FLUX", OUT_FLUX);
    CREATE(cres_vertex_resolver_create, cres_vertex_options, "vertex", "CLUSTER_RESOLVER_NO_VERTEX", OUT_VERTEX);
    CREATE(cres_skypilot_resolver_create, cres_skypilot_options, "skypilot", "CLUSTER_RESOLVER_NO_SKYPILOT",
           OUT_SKYPILOT);
    CREATE(cres_volcano_resolver_create, cres_volcano_options, "volcano", "CLUSTER_RESOLVER_NO_VOLCANO",
           OUT_VOLCANO);
    CREATE(cres_lws_resolver_create, cres_lws_options, "lws", "CLUSTER_RESOLVER_NO_LWS", OUT_LWS);
    CREATE(cres_torch_resolver_create, cres_torch_options, "torch", "CLUSTER_RESOLVER_NO_TORCH", OUT_TORCH);
    CREATE(cres_jax_resolver_create, cres_jax_options, "jax", "CLUSTER_RESOLVER_NO_JAX", OUT_JAX);
    CREATE(cres_awsbatch_resolver_create, cres_awsbatch_options, "awsbatch", "CLUSTER_RESOLVER_NO_AWSBATCH",
           OUT_AWSBATCH);
    write_files();
    check_auto();
    remove(nodefile);
    remove(pe_hostfile);
    return failures != 0;
}
