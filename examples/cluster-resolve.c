/* cluster-resolve: print (or export, then exec) who the members of this job are.

   cluster-resolve [BACKEND] [OPTIONS] [--exec [--] CMD ARGS...]

   Exit codes: 0 success, 1 internal (out of memory), 2 the command line, 3 the environment
   or cluster (missing, malformed or contradicting variables and files), 4 network or HTTP,
   5 cluster not ready, 126/127 --exec could not run CMD.

   One table, `options` below, is the source of the parser, --help, the manual page's OPTIONS
   section (--man-options) and the bash completion (--list-options): each option says which
   backends read it, so an option means the same whether its backend is named or auto picks
   it, and one that the backend does not read is exit 2. */

#define _POSIX_C_SOURCE 200809L
#define CLUSTER_RESOLVER_IMPLEMENTATION
#define CLUSTER_RESOLVER_USE_CURL /* link with -lcurl */
#define CLUSTER_RESOLVER_USE_YAML /* YAML kubeconfig files: link with -lyaml */
#define CLUSTER_RESOLVER_USE_OPENSSL /* Google service-account keys: link with -lcrypto */
#include "../cluster_resolver.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#ifdef __GLIBC__
#  include <malloc.h>
#endif

#define EXIT_USAGE 2
#define EXIT_ENVIRONMENT 3

/* ---- backends ---------------------------------------------------------------------- */

enum backend_id {
    B_AUTO, B_SIMPLE, B_TFCONFIG, B_LOCAL, B_K8S, B_GCE, B_TPU, B_SLURM, B_MPI, B_PBS, B_LSF,
    B_SGE, B_FLUX, B_SAGEMAKER, B_TORCH, B_JAX, B_AWSBATCH, B_VERTEX, B_SKYPILOT, B_VOLCANO,
    B_LWS, B_COUNT
};

/* The CLI's names are the library's (cres_resolver_name), with one alias. */
static const struct backend_name {
    const char *name, *alias;
} backend_names[B_COUNT] = {
    {"auto", NULL},      {"simple", NULL},  {"tfconfig", NULL}, {"local", NULL},
    {"kubernetes", "k8s"}, {"gce", NULL},   {"tpu", NULL},      {"slurm", NULL},
    {"mpi", NULL},       {"pbs", NULL},     {"lsf", NULL},      {"sge", NULL},
    {"flux", NULL},      {"sagemaker", NULL}, {"torch", NULL},  {"jax", NULL},
    {"awsbatch", NULL},  {"vertex", NULL},  {"skypilot", NULL}, {"volcano", NULL},
    {"lws", NULL},
};

#define BIT(b) (1ul << (b))
#define ALL (BIT(B_COUNT) - 1)
#define HTTP (BIT(B_K8S) | BIT(B_GCE) | BIT(B_TPU))
#define GOOGLE (BIT(B_GCE) | BIT(B_TPU))
#define HPC (BIT(B_SLURM) | BIT(B_MPI) | BIT(B_PBS) | BIT(B_LSF) | BIT(B_SGE) | BIT(B_FLUX))
#define PORTS                                                                                  \
    (BIT(B_LOCAL) | BIT(B_K8S) | BIT(B_GCE) | BIT(B_SAGEMAKER) | BIT(B_SKYPILOT) |           \
     BIT(B_VOLCANO) | BIT(B_LWS) | BIT(B_AWSBATCH) | HPC)
/* What auto can pick (cres_auto_resolver_create): all but simple and gce. */
#define AUTO_PICKS (ALL & ~(BIT(B_AUTO) | BIT(B_SIMPLE) | BIT(B_GCE)))

static int backend_by_name(const char *name) {
    int b;
    for (b = 0; b < B_COUNT; b++)
        if (strcmp(backend_names[b].name, name) == 0 ||
            (backend_names[b].alias && strcmp(backend_names[b].alias, name) == 0))
            return b;
    return -1;
}

/* ---- the option table -------------------------------------------------------------- */

enum option_id {
    O_FORMAT, O_TASK_TYPE, O_TASK_ID, O_RPC_LAYER, O_VERBOSE, O_TIMEOUT_MS, O_RETRIES,
    O_RESOLVE_TIMEOUT_MS, O_MAX_RESPONSE_BYTES, O_PORT, O_HOST, O_SPEC, O_KUBECONFIG, O_CONTEXT,
    O_SERVER, O_TOKEN_FILE, O_CA_FILE, O_NAMESPACE, O_ALL_NAMESPACES, O_JOB, O_ADDRESS, O_WAIT,
    O_PAGE_SIZE, O_CLUSTER_DOMAIN, O_FOLLOW_JOBSET, O_MEMBERS, O_INSTANCE_GROUP, O_PROJECT,
    O_ZONE, O_REGION, O_COMPUTE_URL, O_METADATA_URL, O_CREDENTIALS, O_JOB_NAME, O_TPU,
    O_API_VERSION, O_TPU_URL, O_COORDINATOR_NAME, O_COORDINATOR_ADDRESS, O_ALLOW_UNHEALTHY,
    O_ACCELERATORS_PER_HOST, O_JOBS, O_GPUS_PER_NODE, O_GPUS_PER_TASK, O_HOSTFILE,
    O_RESOURCE_CONFIG, O_INSTANCE_GROUPS, O_MAIN_HOST, O_CLUSTER_SPEC, O_HOSTNAME, O_COUNT
};

#define FLAG NULL, 1, 0 /* no value */
#define TEXT(m) m, 1, 0 /* any value */
#define INT(m, lo, hi) m, lo, hi

typedef struct option_def {
    const char *name;       /* "--port" */
    const char *alias;      /* an older spelling, or NULL */
    const char *metavar;    /* the value's name in --help; NULL: a flag */
    long long lo, hi;       /* an integer's range; lo > hi: any text */
    const char *choices;    /* "list|job": the only values; NULL: any */
    unsigned long backends; /* the backends that read it */
    const char *fields;     /* the library's names in messages: "options.port options.port_base" */
    const char *help;       /* --help's line */
    const char *doc;        /* the manual page's paragraph, plain text */
} option_def;

static const option_def options[O_COUNT] = {
    {"--format", NULL, TEXT("FORMAT"), NULL, ALL, NULL,
     "what to print (FORMATS below; default tfconfig)",
     "What to print; see FORMATS. tfconfig (the default), spec, hostfile and machinefile need "
     "every member's address; master, coordinator, launch, torchrun, torchrun-node and jax need "
     "the coordinator and this process's place."},
    {"--task-type", NULL, TEXT("T"), NULL, ALL, NULL,
     "this process's task: a job name (overrides the backend's; must be in the cluster)",
     "This process's task, a job name, overriding what the backend finds. The task (with "
     "--task-id) must be in the resolved cluster, else exit 3."},
    {"--task-id", NULL, INT("N", 0, 2147483647), NULL, ALL, NULL,
     "this process's task index (with --task-type)",
     "This process's task index from 0; needs --task-type."},
    {"--rpc-layer", NULL, TEXT("R"), NULL, ALL, NULL, "the RPC layer: master prints R://address",
     "The RPC layer, e.g. grpc: master prints R://address; \"\" for none."},
    {"--verbose", NULL, FLAG, NULL, ALL, NULL, "log what the backend does to standard error",
     "Log to standard error (\"cluster-resolve: info: ...\") what the backend does: auto's "
     "choice and why, the files and requests read, retries, the credential used (never a "
     "secret), what the environment set that was kept, why a device list is left alone, why "
     "master is empty."},
    {"--timeout-ms", NULL, INT("N", 1, 3600000), NULL, HTTP, "config.timeout_ms",
     "each HTTP request, milliseconds (10000)",
     "Each HTTP request, 1 to 3600000 milliseconds (default 10000)."},
    {"--retries", NULL, INT("N", 0, 10), NULL, HTTP, "config.max_retries",
     "retries on connection errors and 5xx (3; 0 = none)",
     "Retries on connection errors and 5xx, 0 to 10 (default 3; 0 = none); a 429 is retried, "
     "after the server's Retry-After, while the resolve's time lasts (never with 0)."},
    {"--resolve-timeout-ms", NULL, INT("N", 1, 86400000), NULL, HTTP, "config.resolve_timeout_ms",
     "a whole resolve, milliseconds (60000)",
     "A whole resolve, every page, retry and wait, 1 to 86400000 milliseconds (default 60000)."},
    {"--max-response-bytes", NULL, INT("N", 1, 1073741824), NULL, HTTP,
     "config.max_response_bytes", "the largest HTTP body (64 MiB)",
     "The largest HTTP body, 1 to 2^30 bytes (default 64 MiB)."},
    {"--port", "--port-base", INT("N", 1, 65535), NULL, PORTS,
     "options.port options.port_base",
     "the tasks' port (slurm, mpi, pbs, lsf, sge, flux: the first; task k of a host at N+k)",
     "The port of the addresses a backend builds from host names, 1 to 65535. local, "
     "kubernetes, gce, skypilot, volcano, lws: every task's (default 8470); sagemaker: 2223; "
     "awsbatch: the coordinator's (29500); slurm, mpi, pbs, lsf, sge, flux: the first, task k "
     "of a host listening on N + k (default 8888). --port-base is another name for it."},
    {"--host", NULL, TEXT("H"), NULL, BIT(B_LOCAL) | BIT(B_MPI), "options.host options.hostname",
     "this host's name in the addresses (local; mpi when every rank runs here)",
     "This host's name in the addresses: local's (default localhost); mpi's when every rank "
     "runs on this host (default $PMIX_HOSTNAME, else localhost)."},
    {"--spec", NULL, TEXT("JSON"), NULL, BIT(B_SIMPLE), "options.spec",
     "the cluster, as TF_CONFIG's \"cluster\" object (required)",
     "The cluster, as TF_CONFIG's \"cluster\" object: '{\"worker\": [\"a:1\", \"b:1\"], "
     "\"ps\": {\"3\": \"c:3\"}}'. Required."},
    {"--kubeconfig", NULL, TEXT("F"), NULL, BIT(B_K8S), "options.kubeconfig",
     "that kubeconfig file alone (default: $KUBECONFIG, ~/.kube/config, as kubectl)",
     "That kubeconfig file alone (JSON or YAML); default: the files of $KUBECONFIG, else "
     "~/.kube/config, as kubectl; not with --server."},
    {"--context", NULL, TEXT("NAME"), NULL, BIT(B_K8S), "options.context",
     "the kubeconfig's context (default: its current-context)",
     "The kubeconfig's context (default: its current-context); not with --server."},
    {"--server", NULL, TEXT("URL"), NULL, BIT(B_K8S), "options.server",
     "the API server (no kubeconfig is read then)",
     "The API server (http:// for kubectl proxy, https:// with a token and a CA); no "
     "kubeconfig is read then."},
    {"--token-file", NULL, TEXT("F"), NULL, HTTP, "options.token_file",
     "a bearer token, read at every resolve",
     "A bearer token, read at every resolve. kubernetes: with a kubeconfig it replaces the "
     "user's credentials; gce, tpu: an access token (gcloud auth print-access-token > F)."},
    {"--ca-file", NULL, TEXT("F"), NULL, HTTP, "options.ca_file",
     "the CA certificates (PEM) to verify the server",
     "The CA certificates (PEM) to verify the server: kubernetes's (with a kubeconfig it "
     "replaces its CA), gce's --compute-url, tpu's --tpu-url (default: the system's)."},
    {"--namespace", NULL, TEXT("NS"), NULL, BIT(B_K8S), "options.namespace_name",
     "default: the context's, else the service account's, else default",
     "The pods' namespace; default: the context's, else the service account's, else "
     "\"default\"; not with --all-namespaces."},
    {"--all-namespaces", NULL, FLAG, NULL, BIT(B_K8S), "options.all_namespaces",
     "pods of every namespace (needs a ClusterRole)",
     "Pods of every namespace (needs a ClusterRole)."},
    {"--job", NULL, TEXT("JOB=SELECTOR"), NULL, BIT(B_K8S), "options.jobs",
     "a job and a label selector, repeatable (default worker=job-name=tensorflow)",
     "A job and a label selector (kubectl's -l syntax), repeatable; repeat a job for several "
     "selectors. Default: worker=job-name=tensorflow (auto in an Indexed Job's pod: the pod's "
     "Job)."},
    {"--address", NULL, TEXT("A"), "pod-ip|host-ip|dns", BIT(B_K8S), "options.address",
     "the pod's IP (default), its node's IP, or its DNS name",
     "The pod's IP (default), its node's IP (TensorFlow's choice), or its DNS name "
     "hostname.subdomain.namespace.svc.<cluster domain> (the pod IP without one)."},
    {"--wait", NULL, INT("SECONDS", 0, 86400), NULL, BIT(B_K8S), "options.wait_ms",
     "poll while pods are not Running (default 0: exit 5 at once)",
     "Poll for up to SECONDS (0 to 86400) while pods are not Running (default 0: exit 5 at "
     "once)."},
    {"--page-size", NULL, INT("N", 1, 100000), NULL, BIT(B_K8S), "options.page_size",
     "pods per list page (500)", "Pods per list page, 1 to 100000 (default 500)."},
    {"--cluster-domain", NULL, TEXT("D"), NULL, BIT(B_K8S), "options.cluster_domain",
     "for --address dns's names (cluster.local)",
     "The cluster's DNS domain, for --address dns's names and the job members' (default "
     "cluster.local)."},
    {"--follow-jobset", NULL, FLAG, NULL, BIT(B_K8S), "options.follow_jobset",
     "the job holding this pod is its whole JobSet, if in one",
     "The job holding this pod is its whole JobSet, if it is in one (auto does this in an "
     "Indexed Job's pod)."},
    {"--members", NULL, TEXT("M"), "list|job", BIT(B_K8S), "options.members options.k8s_members",
     "list: the selectors' pods; job: this pod's Indexed Job or JobSet",
     "list (the default, but for auto in an Indexed Job's pod): the selectors' pods. job: this "
     "pod's Indexed Job, or its JobSet, named by DNS from one GET of each (pods not yet Running "
     "included); when that cannot answer, the list, logged."},
    {"--instance-group", NULL, TEXT("G"), NULL, BIT(B_GCE), "options.instance_group",
     "the instance group (required)", "The instance group of the members. Required."},
    {"--project", NULL, TEXT("P"), NULL, GOOGLE, "options.project",
     "the project (default: $GOOGLE_CLOUD_PROJECT, the credentials', the metadata server's)",
     "The project; default: (tpu: TPU_CONFIG's,) $GOOGLE_CLOUD_PROJECT, "
     "$CLOUDSDK_CORE_PROJECT, the credentials file's, else the metadata server's."},
    {"--zone", NULL, TEXT("Z"), NULL, GOOGLE, "options.zone",
     "the zone (default: this VM's)", "The zone (default: tpu: TPU_CONFIG's; this VM's)."},
    {"--region", NULL, TEXT("R"), NULL, BIT(B_GCE), "options.region",
     "a regional group's region (instead of --zone)",
     "A regional instance group's region, instead of --zone."},
    {"--compute-url", NULL, TEXT("URL"), NULL, BIT(B_GCE), "options.compute_url",
     "default https://compute.googleapis.com/compute/v1",
     "The Compute Engine API (default https://compute.googleapis.com/compute/v1)."},
    {"--metadata-url", NULL, TEXT("URL"), NULL, GOOGLE, "options.metadata_url",
     "default http://metadata.google.internal",
     "The metadata server (default $GCE_METADATA_HOST, $GCE_METADATA_IP, else "
     "http://metadata.google.internal)."},
    {"--credentials", NULL, TEXT("F"), NULL, GOOGLE, "options.credentials_file",
     "a Google credentials file (default: Application Default Credentials)",
     "A Google credentials file (authorized_user, service_account, "
     "impersonated_service_account); default: Application Default Credentials (see "
     "ENVIRONMENT)."},
    {"--job-name", NULL, TEXT("J"), NULL,
     GOOGLE | BIT(B_SAGEMAKER) | BIT(B_SKYPILOT) | BIT(B_LWS), "options.job_name",
     "the job's name in the cluster (worker)",
     "The name of the job the members form (default worker); sagemaker: not with "
     "--instance-groups."},
    {"--tpu", NULL, TEXT("NAME"), NULL, BIT(B_TPU), "options.tpu",
     "a TPU name, grpc://H:P,... endpoints, or local (default: $TPU_NAME...)",
     "A TPU name, an endpoint list grpc://H:P,..., or local (this TPU VM); default: "
     "$KUBE_GOOGLE_CLOUD_TPU_ENDPOINTS, $TPU_NAME, $TPU_CONFIG."},
    {"--api-version", NULL, TEXT("V"), "v2|v1", BIT(B_TPU), "options.api_version",
     "the Cloud TPU API: v2 (TPU VMs) or v1 (TPU nodes)",
     "The Cloud TPU API: v2 (TPU VMs, the default) or v1 (TPU nodes)."},
    {"--tpu-url", NULL, TEXT("URL"), NULL, BIT(B_TPU), "options.tpu_url",
     "default https://tpu.googleapis.com",
     "The Cloud TPU API (default https://tpu.googleapis.com)."},
    {"--coordinator-name", NULL, TEXT("N"), NULL, BIT(B_TPU), "options.coordinator_name",
     "with --coordinator-address: a one-task job N beside the workers",
     "With --coordinator-address: a one-task job N at that address beside the workers."},
    {"--coordinator-address", NULL, TEXT("A"), NULL, BIT(B_TPU), "options.coordinator_address",
     "the --coordinator-name job's host:port", "The --coordinator-name job's host:port."},
    {"--allow-unhealthy", NULL, FLAG, NULL, BIT(B_TPU), "options.allow_unhealthy",
     "accept a READY TPU that is not HEALTHY", "Accept a READY TPU whose health is not HEALTHY."},
    {"--accelerators-per-host", NULL, INT("N", 1, 4096), NULL, BIT(B_TPU),
     "options.accelerators_per_host", "TPU devices per host, for a type not known",
     "TPU devices per host, 1 to 4096, for an accelerator type the library does not know."},
    {"--jobs", NULL, TEXT("JOB=N,..."), NULL, HPC, "options.jobs",
     "how many ranks each job takes, chief first, then by name (worker=every task)",
     "How many ranks each job takes, in rank order: chief first, then by name (with "
     "worker=6,ps=2, ps is ranks 0-1 and worker 2-7); the counts must add up to the tasks. "
     "Default: one job worker of every task."},
    {"--gpus-per-node", NULL, INT("N", 0, 4096), NULL, HPC, "options.gpus_per_node",
     "split the node's N GPUs among its tasks (default: Slurm's word; 0 = none)",
     "GPUs per node, 0 to 4096 (0 = none): says that CUDA_VISIBLE_DEVICES (or devices 0 to "
     "N-1) is the node's list, to split among its tasks. Default: the ids in "
     "CUDA_VISIBLE_DEVICES when the launcher says they are the node's (slurm), else the list "
     "is left as it is."},
    {"--gpus-per-task", NULL, INT("N", 1, 4096), NULL, HPC, "options.gpus_per_task",
     "GPUs per task (default: the node's shared among its tasks)",
     "GPUs per task, 1 to 4096; default: the node's GPUs shared among its tasks. With a list "
     "the launcher bound to the task, N must be its length."},
    {"--hostfile", NULL, TEXT("F"), NULL, BIT(B_MPI) | BIT(B_FLUX), "options.hostfile",
     "Open MPI or MPICH hostfile (required for flux)",
     "Open MPI \"host slots=N\" or MPICH \"host:N\" lines (flux: also a host per line, or "
     "the one hostlist line flux hostlist prints, \"fluke[0-3]\"); required for flux."},
    {"--resource-config", NULL, TEXT("F"), NULL, BIT(B_SAGEMAKER), "options.resource_config",
     "SageMaker's resource config, read and checked against SM_HOSTS",
     "SageMaker's resource config (default /opt/ml/input/config/resourceconfig.json, read "
     "when a variable is missing); given, it is always read and must agree with SM_HOSTS and "
     "SM_CURRENT_HOST."},
    {"--instance-groups", NULL, FLAG, NULL, BIT(B_SAGEMAKER), "options.instance_groups",
     "a job per instance group, named by it",
     "A job per instance group, named by it (not with --job-name)."},
    {"--main-host", NULL, TEXT("H"), NULL, BIT(B_AWSBATCH), "options.main_host",
     "the main node's own address, used on the main node (localhost)",
     "The main node's own address, used on the main node itself (default localhost)."},
    {"--cluster-spec", NULL, TEXT("JSON"), NULL, BIT(B_VERTEX), "options.cluster_spec",
     "Vertex AI's cluster description (default $CLUSTER_SPEC)",
     "Vertex AI's cluster description (default $CLUSTER_SPEC)."},
    {"--hostname", NULL, TEXT("H"), NULL, BIT(B_VOLCANO) | BIT(B_LWS), "options.hostname",
     "this pod's host name (default $HOSTNAME)", "This pod's host name (default $HOSTNAME)."},
};

static int option_by_name(const char *name, size_t len) {
    int i;
    for (i = 0; i < O_COUNT; i++) {
        const option_def *o = &options[i];
        if ((strlen(o->name) == len && strncmp(o->name, name, len) == 0) ||
            (o->alias && strlen(o->alias) == len && strncmp(o->alias, name, len) == 0))
            return i;
    }
    return -1;
}

static int is_int_option(const option_def *o) { return o->lo <= o->hi; }

/* The formats: what each needs of the source. */
enum format_need { NEEDS_EVERY_ADDRESS, NEEDS_MASTER, NEEDS_COORDINATOR };
static const struct format_def {
    const char *name;
    enum format_need need;
    int exec; /* --exec can set its variables */
    const char *help;
} formats[] = {
    {"tfconfig", NEEDS_EVERY_ADDRESS, 1, "TF_CONFIG: the cluster, this task, rpc layer"},
    {"spec", NEEDS_EVERY_ADDRESS, 0, "the cluster object alone"},
    {"hostfile", NEEDS_EVERY_ADDRESS, 0, "\"host slots=N\" lines (Open MPI, DeepSpeed)"},
    {"machinefile", NEEDS_EVERY_ADDRESS, 0, "\"host:N\" lines (MPICH, Intel MPI)"},
    {"master", NEEDS_MASTER, 0, "TF's master(): this task's target; \"\" for one task"},
    {"coordinator", NEEDS_COORDINATOR, 0, "rank 0's host:port (torch's and JAX's)"},
    {"launch", NEEDS_COORDINATOR, 0, "the launch info as one JSON object"},
    {"torchrun", NEEDS_COORDINATOR, 1, "torch.distributed's variables"},
    {"torchrun-node", NEEDS_COORDINATOR, 1, "torchrun's PET_* for one torchrun per node"},
    {"jax", NEEDS_COORDINATOR, 1, "jax.distributed's variables"},
};
#define FORMATS_COUNT (sizeof formats / sizeof formats[0])

static const struct format_def *format_by_name(const char *name) {
    size_t i;
    for (i = 0; i < FORMATS_COUNT; i++)
        if (strcmp(formats[i].name, name) == 0) return &formats[i];
    return NULL;
}

/* ---- the command line --------------------------------------------------------------- */

typedef struct given {
    int option;         /* enum option_id */
    const char *value;  /* "1" for a flag */
} given;

typedef struct cli {
    int backend;              /* enum backend_id */
    const struct format_def *format;
    const char *value[O_COUNT]; /* the last value given, or NULL */
    given all[256];           /* every option given, in order (--job repeats) */
    size_t count;
    char **exec_argv;         /* NULL = print instead */
} cli;

static int usage_error(const char *fmt, ...) {
    va_list ap;
    fputs("cluster-resolve: ", stderr);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputs(" (see --help)\n", stderr);
    return EXIT_USAGE;
}

static int parse_int(const char *s, long long lo, long long hi, long long *out) {
    char *end;
    long long v;
    errno = 0;
    v = strtoll(s, &end, 10);
    if (errno || end == s || *end || v < lo || v > hi) return 0;
    *out = v;
    return 1;
}

static int int_value(const cli *c, int option) {
    long long v = 0;
    if (c->value[option]) parse_int(c->value[option], options[option].lo, options[option].hi, &v);
    return (int)v;
}

/* A value as the option's table entry allows: in range, one of its choices, not empty. */
static int check_value(int option, const char *v) {
    const option_def *o = &options[option];
    long long n;
    if (is_int_option(o) && !parse_int(v, o->lo, o->hi, &n))
        return usage_error("%s %s is not %lld to %lld", o->name, v, o->lo, o->hi);
    if (o->choices) {
        const char *p = o->choices;
        size_t len = strlen(v);
        while (p) {
            const char *bar = strchr(p, '|');
            size_t n2 = bar ? (size_t)(bar - p) : strlen(p);
            if (n2 == len && strncmp(p, v, len) == 0) return 0;
            p = bar ? bar + 1 : NULL;
        }
        return usage_error("%s %s is not one of %s", o->name, v, o->choices);
    }
    if (option == O_FORMAT && !format_by_name(v)) return usage_error("unknown format \"%s\"", v);
    if (!*v && option != O_RPC_LAYER) return usage_error("%s needs a value, not \"\"", o->name);
    return 0;
}

static void print_help(void);
static const char *backend_list(unsigned long set, char *buf, size_t cap);

/* Records option `option` with its value; the backend check comes after the parse. One given
   twice (under either of its names) must say the same: --port 29500 --port-base 29600 is
   two answers, not the last. */
static int take(cli *c, int option, const char *v) {
    int rc = check_value(option, v);
    if (rc) return rc;
    if (c->value[option] && option != O_JOB && strcmp(c->value[option], v) != 0)
        return usage_error("%s is given twice, as %s and %s", options[option].name,
                           c->value[option], v);
    if (c->count == sizeof c->all / sizeof c->all[0])
        return usage_error("too many options (%zu at most)", c->count);
    c->all[c->count].option = option;
    c->all[c->count++].value = v;
    c->value[option] = v;
    if (option == O_FORMAT) c->format = format_by_name(v);
    return 0;
}

/* Whether the backend (auto: any backend it can pick) reads the option. */
static int reads(int backend, int option) {
    unsigned long who = backend == B_AUTO ? AUTO_PICKS : BIT(backend);
    return (options[option].backends & who) != 0;
}

static int parse_args(int argc, char **argv, cli *c) {
    int i = 1, rc;
    memset(c, 0, sizeof *c);
    c->backend = B_AUTO;
    c->format = &formats[0];
    if (i < argc && argv[i][0] != '-') {
        if ((c->backend = backend_by_name(argv[i])) < 0)
            return usage_error("unknown backend \"%s\"", argv[i]);
        i++;
    }
    for (; i < argc; i++) {
        const char *a = argv[i], *eq = strchr(a, '='), *v;
        int option;
        if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            print_help();
            exit(0);
        }
        if (strcmp(a, "--version") == 0) {
            printf("cluster-resolve %s\n", cres_version_string());
            exit(0);
        }
        if (strcmp(a, "--exec") == 0) {
            if (i + 1 < argc && strcmp(argv[i + 1], "--") == 0) i++;
            if (i + 1 >= argc) return usage_error("--exec needs a command");
            c->exec_argv = argv + i + 1;
            break;
        }
        if (strncmp(a, "--", 2) != 0 ||
            (option = option_by_name(a, eq ? (size_t)(eq - a) : strlen(a))) < 0)
            return usage_error("unknown option %.*s", eq ? (int)(eq - a) : (int)strlen(a), a);
        if (!options[option].metavar) { /* a flag */
            if (eq) return usage_error("%s takes no value", options[option].name);
            v = "1";
        } else if (eq) {
            v = eq + 1;
        } else if (i + 1 < argc) {
            v = argv[++i];
        } else {
            return usage_error("%s needs a value", options[option].name);
        }
        if (!reads(c->backend, option)) {
            char list[256];
            return usage_error("%s does not apply to the %s backend; it is read by %s",
                               options[option].name, backend_names[c->backend].name,
                               backend_list(options[option].backends, list, sizeof list));
        }
        if ((rc = take(c, option, v)) != 0) return rc;
    }
    if (c->value[O_TASK_ID] && !c->value[O_TASK_TYPE])
        return usage_error("--task-id needs --task-type too");
    if (c->exec_argv && !c->format->exec)
        return usage_error("--exec needs --format tfconfig, torchrun, torchrun-node or jax, not %s",
                           c->format->name);
    return 0;
}

/* ---- from the command line to the library's options --------------------------------- */

/* Every backend's options, filled from the command line at once: a named backend gets its
   own, auto gets them all and uses those of the backend it picks. */
typedef struct backend_options {
    cres_auto_options autod;
    cres_simple_options simple;
    cres_tfconfig_options tfconfig;
    cres_local_options local;
    cres_k8s_options k8s;
    cres_gce_options gce;
    cres_tpu_options tpu;
    cres_slurm_options slurm;
    cres_mpi_options mpi;
    cres_pbs_options pbs;
    cres_lsf_options lsf;
    cres_sge_options sge;
    cres_flux_options flux;
    cres_sagemaker_options sagemaker;
    cres_torch_options torch;
    cres_jax_options jax;
    cres_awsbatch_options awsbatch;
    cres_vertex_options vertex;
    cres_skypilot_options skypilot;
    cres_volcano_options volcano;
    cres_lws_options lws;
    cres_cluster_spec *spec;             /* --spec, parsed */
    cres_k8s_job_selector selectors[64]; /* --job */
    char selector_text[8192];
    cres_job_count jobs[64];             /* --jobs */
    char jobs_text[4096];
} backend_options;

/* --job JOB=SELECTOR, repeatable, in order. */
static int read_selectors(const cli *c, backend_options *b) {
    size_t i, used = 0, n = 0;
    for (i = 0; i < c->count; i++) {
        const char *v = c->all[i].value, *eq = strchr(v, '=');
        size_t len = strlen(v) + 1;
        if (c->all[i].option != O_JOB) continue;
        if (!eq || eq == v) return usage_error("--job %s is not JOB=SELECTOR", v);
        if (used + len > sizeof b->selector_text || n == 64)
            return usage_error("too many --job options");
        memcpy(b->selector_text + used, v, len);
        b->selector_text[used + (size_t)(eq - v)] = '\0';
        b->selectors[n].job = b->selector_text + used;
        b->selectors[n++].selector = b->selector_text + used + (size_t)(eq - v) + 1;
        used += len;
    }
    b->k8s.jobs = n ? b->selectors : NULL;
    b->k8s.jobs_count = n;
    return 0;
}

/* --jobs worker=3,ps=1: how many tasks each job takes. */
static int read_jobs(const char *v, backend_options *b, size_t *count) {
    char *item, *next;
    *count = 0;
    if (!v) return 0;
    if (strlen(v) >= sizeof b->jobs_text) return usage_error("--jobs %s is too long", v);
    strcpy(b->jobs_text, v);
    for (item = b->jobs_text; item; item = next) {
        char *eq = strchr(item, '=');
        long long n;
        if ((next = strchr(item, ',')) != NULL) *next++ = '\0';
        if (!eq || eq == item || *count == 64 || !parse_int(eq + 1, 0, 1000000, &n))
            return usage_error("--jobs %s is not JOB=N,JOB=N... (N from 0 to 1000000)", v);
        *eq = '\0';
        b->jobs[*count].job = item;
        b->jobs[(*count)++].count = (int)n;
    }
    return 0;
}

static void fill_auto(const cres_config *cfg, backend_options *b);

/* What slurm, mpi, pbs, lsf, sge and flux share. */
#define FILL_HPC(o)                                                                            \
    do {                                                                                       \
        (o).config = cfg;                                                                      \
        (o).jobs = jobs ? b->jobs : NULL;                                                      \
        (o).jobs_count = jobs;                                                                 \
        (o).port_base = int_value(c, O_PORT);                                                  \
        (o).gpus_per_node = gpus_per_node;                                                     \
        (o).gpus_per_task = int_value(c, O_GPUS_PER_TASK);                                     \
    } while (0)

static int fill_options(const cli *c, const cres_config *cfg, backend_options *b) {
    const char *const *v = c->value;
    int port = int_value(c, O_PORT), rc;
    int gpus_per_node = v[O_GPUS_PER_NODE] && !int_value(c, O_GPUS_PER_NODE)
                            ? CRES_NO_GPUS
                            : int_value(c, O_GPUS_PER_NODE);
    size_t jobs;
    if ((rc = read_selectors(c, b)) != 0 || (rc = read_jobs(v[O_JOBS], b, &jobs)) != 0)
        return rc;
    b->simple.config = b->tfconfig.config = b->torch.config = b->jax.config = cfg;
    b->local.config = cfg;
    b->local.host = v[O_HOST];
    b->local.port = port;
    b->k8s.config = cfg;
    b->k8s.server = v[O_SERVER];
    b->k8s.kubeconfig = v[O_KUBECONFIG];
    b->k8s.context = v[O_CONTEXT];
    b->k8s.token_file = v[O_TOKEN_FILE];
    b->k8s.ca_file = v[O_CA_FILE];
    b->k8s.namespace_name = v[O_NAMESPACE];
    b->k8s.all_namespaces = v[O_ALL_NAMESPACES] != NULL;
    b->k8s.follow_jobset = v[O_FOLLOW_JOBSET] != NULL;
    b->k8s.cluster_domain = v[O_CLUSTER_DOMAIN];
    b->k8s.port = port;
    b->k8s.wait_ms = int_value(c, O_WAIT) * 1000;
    b->k8s.page_size = int_value(c, O_PAGE_SIZE);
    if (v[O_ADDRESS])
        b->k8s.address = strcmp(v[O_ADDRESS], "host-ip") == 0 ? CRES_K8S_HOST_IP
                         : strcmp(v[O_ADDRESS], "dns") == 0   ? CRES_K8S_DNS
                                                              : CRES_K8S_POD_IP;
    if (v[O_MEMBERS])
        b->k8s.members =
            strcmp(v[O_MEMBERS], "job") == 0 ? CRES_K8S_MEMBERS_JOB : CRES_K8S_MEMBERS_LIST;
    b->gce.config = cfg;
    b->gce.instance_group = v[O_INSTANCE_GROUP];
    b->gce.project = b->tpu.project = v[O_PROJECT];
    b->gce.zone = b->tpu.zone = v[O_ZONE];
    b->gce.region = v[O_REGION];
    b->gce.compute_url = v[O_COMPUTE_URL];
    b->gce.ca_file = b->tpu.ca_file = v[O_CA_FILE];
    b->gce.metadata_url = b->tpu.metadata_url = v[O_METADATA_URL];
    b->gce.token_file = b->tpu.token_file = v[O_TOKEN_FILE];
    b->gce.credentials_file = b->tpu.credentials_file = v[O_CREDENTIALS];
    b->gce.job_name = b->tpu.job_name = v[O_JOB_NAME];
    b->gce.port = port;
    b->tpu.config = cfg;
    b->tpu.tpu = v[O_TPU];
    b->tpu.tpu_url = v[O_TPU_URL];
    b->tpu.api_version = v[O_API_VERSION];
    b->tpu.coordinator_name = v[O_COORDINATOR_NAME];
    b->tpu.coordinator_address = v[O_COORDINATOR_ADDRESS];
    b->tpu.allow_unhealthy = v[O_ALLOW_UNHEALTHY] != NULL;
    b->tpu.accelerators_per_host = int_value(c, O_ACCELERATORS_PER_HOST);
    FILL_HPC(b->slurm);
    FILL_HPC(b->mpi);
    FILL_HPC(b->pbs);
    FILL_HPC(b->lsf);
    FILL_HPC(b->sge);
    FILL_HPC(b->flux);
    b->mpi.hostfile = b->flux.hostfile = v[O_HOSTFILE];
    b->mpi.hostname = v[O_HOST];
    b->sagemaker.config = cfg;
    b->sagemaker.port = port;
    b->sagemaker.resource_config = v[O_RESOURCE_CONFIG];
    b->sagemaker.job_name = v[O_JOB_NAME];
    b->sagemaker.instance_groups = v[O_INSTANCE_GROUPS] != NULL;
    b->awsbatch.config = cfg;
    b->awsbatch.port = port;
    b->awsbatch.main_host = v[O_MAIN_HOST];
    b->vertex.config = cfg;
    b->vertex.cluster_spec = v[O_CLUSTER_SPEC];
    b->skypilot.config = cfg;
    b->skypilot.port = port;
    b->skypilot.job_name = v[O_JOB_NAME];
    b->volcano.config = cfg;
    b->volcano.port = port;
    b->volcano.hostname = v[O_HOSTNAME];
    b->lws.config = cfg;
    b->lws.port = port;
    b->lws.hostname = v[O_HOSTNAME];
    b->lws.job_name = v[O_JOB_NAME];
    fill_auto(cfg, b);
    return 0;
}

/* Options that exclude each other, or need another, on the command line: said here rather
   than left for a backend to pass over without a word. */
static int check_pairs(const cli *c) {
    static const struct pair {
        int a, b;
        int need; /* 1: a needs b; 0: a excludes b */
    } pairs[] = {
        {O_KUBECONFIG, O_SERVER, 0}, {O_CONTEXT, O_SERVER, 0},
        {O_NAMESPACE, O_ALL_NAMESPACES, 0}, {O_ZONE, O_REGION, 0},
        {O_JOB_NAME, O_INSTANCE_GROUPS, 0}, {O_COORDINATOR_NAME, O_COORDINATOR_ADDRESS, 1},
        {O_COORDINATOR_ADDRESS, O_COORDINATOR_NAME, 1},
    };
    size_t i;
    for (i = 0; i < sizeof pairs / sizeof pairs[0]; i++) {
        const struct pair *p = &pairs[i];
        if (!c->value[p->a] || (p->need ? c->value[p->b] != NULL : !c->value[p->b])) continue;
        return usage_error(p->need ? "%s needs %s" : "%s and %s exclude each other",
                           options[p->a].name, options[p->b].name);
    }
    if (c->backend == B_SIMPLE && !c->value[O_SPEC])
        return usage_error("simple needs --spec JSON");
    if (c->backend == B_GCE && !c->value[O_INSTANCE_GROUP])
        return usage_error("gce needs --instance-group G");
    return 0;
}

static cres_result create(int backend, backend_options *b, cres_resolver **r, cres_error *err) {
    switch (backend) {
    case B_SIMPLE: return cres_simple_resolver_create(&b->simple, r, err);
    case B_TFCONFIG: return cres_tfconfig_resolver_create(&b->tfconfig, r, err);
    case B_LOCAL: return cres_local_resolver_create(&b->local, r, err);
    case B_K8S: return cres_k8s_resolver_create(&b->k8s, r, err);
    case B_GCE: return cres_gce_resolver_create(&b->gce, r, err);
    case B_TPU: return cres_tpu_resolver_create(&b->tpu, r, err);
    case B_SLURM: return cres_slurm_resolver_create(&b->slurm, r, err);
    case B_MPI: return cres_mpi_resolver_create(&b->mpi, r, err);
    case B_PBS: return cres_pbs_resolver_create(&b->pbs, r, err);
    case B_LSF: return cres_lsf_resolver_create(&b->lsf, r, err);
    case B_SGE: return cres_sge_resolver_create(&b->sge, r, err);
    case B_FLUX: return cres_flux_resolver_create(&b->flux, r, err);
    case B_SAGEMAKER: return cres_sagemaker_resolver_create(&b->sagemaker, r, err);
    case B_TORCH: return cres_torch_resolver_create(&b->torch, r, err);
    case B_JAX: return cres_jax_resolver_create(&b->jax, r, err);
    case B_AWSBATCH: return cres_awsbatch_resolver_create(&b->awsbatch, r, err);
    case B_VERTEX: return cres_vertex_resolver_create(&b->vertex, r, err);
    case B_SKYPILOT: return cres_skypilot_resolver_create(&b->skypilot, r, err);
    case B_VOLCANO: return cres_volcano_resolver_create(&b->volcano, r, err);
    case B_LWS: return cres_lws_resolver_create(&b->lws, r, err);
    default: return cres_auto_resolver_create(&b->autod, r, err);
    }
}

/* auto: the options of every backend it can pick, for the one it picks. */
static void fill_auto(const cres_config *cfg, backend_options *b) {
    b->autod.config = cfg;
    b->autod.port = b->local.port;
    b->autod.k8s_members = b->k8s.members;
    b->autod.tfconfig = &b->tfconfig;
    b->autod.local = &b->local;
    b->autod.slurm = &b->slurm;
    b->autod.mpi = &b->mpi;
    b->autod.pbs = &b->pbs;
    b->autod.lsf = &b->lsf;
    b->autod.sge = &b->sge;
    b->autod.flux = &b->flux;
    b->autod.sagemaker = &b->sagemaker;
    b->autod.vertex = &b->vertex;
    b->autod.skypilot = &b->skypilot;
    b->autod.volcano = &b->volcano;
    b->autod.lws = &b->lws;
    b->autod.awsbatch = &b->awsbatch;
    b->autod.torch = &b->torch;
    b->autod.jax = &b->jax;
    b->autod.tpu = &b->tpu;
    b->autod.k8s = &b->k8s;
}

/* ---- failures ----------------------------------------------------------------------- */

static int exit_code(cres_result r) {
    switch (r) {
    case CRES_OK: return 0;
    case CRES_ERR_INVALID_ARGUMENT: case CRES_ERR_ENVIRONMENT: case CRES_ERR_INVALID_JSON:
    case CRES_ERR_NOT_FOUND: case CRES_ERR_CONFLICT: case CRES_ERR_LIMIT: case CRES_ERR_UNSUPPORTED:
    case CRES_ERR_NO_TRANSPORT: case CRES_ERR_INCOMPLETE:
        return EXIT_ENVIRONMENT;
    case CRES_ERR_TRANSPORT: case CRES_ERR_TIMEOUT: case CRES_ERR_HTTP_STATUS:
    case CRES_ERR_UNEXPECTED_RESPONSE:
        return 4;
    case CRES_ERR_NOT_READY: return 5;
    default: return 1;
    }
}

/* The library names an option by its C field ("options.kubeconfig"): the CLI's words are its
   flags. Fields of options the backend does not read are left alone. */
static void cli_words(char *message, size_t cap, int backend) {
    int i;
    for (i = 0; i < O_COUNT; i++) {
        const char *f = options[i].fields;
        if (!f || !(options[i].backends & BIT(backend))) continue;
        while (*f) {
            size_t flen = strcspn(f, " ");
            char *at = message;
            while ((at = strstr(at, "options.")) != NULL) {
                size_t len = strspn(at + 8, "abcdefghijklmnopqrstuvwxyz_") + 8, skip = len;
                char rest[CRES_ERROR_MESSAGE_SIZE], dup[64];
                if (len != flen || strncmp(at, f, flen) != 0) {
                    at += len;
                    continue;
                }
                snprintf(dup, sizeof dup, " (%s)", options[i].name); /* "options.x (--x)" */
                if (strncmp(at + len, dup, strlen(dup)) == 0) skip += strlen(dup);
                snprintf(rest, sizeof rest, "%s", at + skip);
                snprintf(at, cap - (size_t)(at - message), "%s%s", options[i].name, rest);
                at += strlen(options[i].name);
            }
            f += flen + (f[flen] == ' ');
        }
    }
}

static int fail(cres_error *err, int backend) {
    if (!err->message[0])
        snprintf(err->message, sizeof err->message, "%s", cres_result_string(err->result));
    if (backend == B_AUTO) { /* the library's messages start with the backend's name */
        char name[32];
        size_t n = strcspn(err->message, ":");
        snprintf(name, sizeof name, "%.*s", (int)(n < sizeof name ? n : 0), err->message);
        if ((backend = backend_by_name(name)) < 0) backend = B_AUTO;
    }
    cli_words(err->message, sizeof err->message, backend);
    fprintf(stderr, "cluster-resolve: %s\n", err->message);
    return exit_code(err->result);
}

/* A create or set call failed: a value the command line gave (the library's
   CRES_ERR_INVALID_ARGUMENT, or JSON given inline) is the command line's fault. */
static int fail_setup(const cli *c, cres_error *err, int backend) {
    int code = fail(err, backend);
    if (err->result == CRES_ERR_INVALID_ARGUMENT ||
        (c->value[O_CLUSTER_SPEC] && strstr(err->message, "--cluster-spec")))
        return EXIT_USAGE;
    return code;
}

/* ---- output ------------------------------------------------------------------------- */

/* A growing text buffer for the library's snprintf-style writers. */
typedef struct text {
    char *buf;
    size_t len, cap;
} text;

static int text_reserve(text *t, size_t need) {
    char *p;
    if (need <= t->cap - t->len) return 1;
    p = (char *)realloc(t->buf, t->len + need);
    if (!p) return 0;
    t->buf = p;
    t->cap = t->len + need;
    return 1;
}

typedef struct render_ctx {
    cres_resolver *r;
    const cres_cluster_spec *spec; /* NULL for the formats that need only the launch info */
    const char *format;
    int backend;                   /* the one that answered */
    int verbose;
} render_ctx;

static void note(const render_ctx *x, const char *message) {
    if (x->verbose) fprintf(stderr, "cluster-resolve: info: %s\n", message);
}

/* One writer call for the formats that map straight onto a library function. */
static cres_result write_format(const render_ctx *x, char *buf, size_t cap, size_t *len,
                                cres_error *err) {
    const char *type = cres_task_id(x->r) >= 0 ? cres_task_type(x->r) : NULL;
    if (strcmp(x->format, "tfconfig") == 0)
        return cres_spec_to_tfconfig(x->spec, type, cres_task_id(x->r), cres_rpc_layer(x->r),
                                     cres_environment(x->r), buf, cap, len, err);
    if (strcmp(x->format, "spec") == 0) return cres_spec_to_json(x->spec, buf, cap, len, err);
    if (strcmp(x->format, "machinefile") == 0)
        return cres_spec_to_machinefile(x->spec, buf, cap, len, err);
    return cres_spec_to_hostfile(x->spec, buf, cap, len, err);
}

static cres_result render_simple(const render_ctx *x, text *out, cres_error *err) {
    size_t len = 0;
    cres_result r = write_format(x, NULL, 0, &len, err);
    if (r != CRES_OK) return r;
    if (!text_reserve(out, len + 2)) return CRES_ERR_OUT_OF_MEMORY;
    r = write_format(x, out->buf + out->len, len + 1, &len, err);
    if (r != CRES_OK) return r;
    out->len += len;
    if (strstr(x->format, "file") == NULL) out->buf[out->len++] = '\n'; /* files end in one */
    out->buf[out->len] = '\0';
    return CRES_OK;
}

/* A value a POSIX shell reads back unchanged after `eval`. */
static int shell_safe(const char *s) {
    if (!*s) return 0;
    for (; *s; s++)
        if (!strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.:/@%+,=-", *s))
            return 0;
    return 1;
}

static void text_export(text *t, const char *name, const char *value) {
    size_t need = strlen(name) + 4 * strlen(value) + 16;
    const char *s;
    if (!text_reserve(t, need)) return;
    t->len += (size_t)sprintf(t->buf + t->len, "export %s=", name);
    if (shell_safe(value)) {
        t->len += (size_t)sprintf(t->buf + t->len, "%s", value);
    } else {
        t->buf[t->len++] = '\'';
        for (s = value; *s; s++) {
            if (*s == '\'') {
                memcpy(t->buf + t->len, "'\\''", 4);
                t->len += 4;
            } else {
                t->buf[t->len++] = *s;
            }
        }
        t->buf[t->len++] = '\'';
    }
    t->buf[t->len++] = '\n';
    t->buf[t->len] = '\0';
}

/* name=value pairs for the torchrun, torchrun-node and jax formats; values live in `store`. */
typedef struct env_vars {
    const char *names[12];
    char store[12][4200];
    size_t count;
} env_vars;

static void env_add(env_vars *v, const char *name, const char *value) {
    v->names[v->count] = name;
    snprintf(v->store[v->count], sizeof v->store[0], "%s", value);
    v->count++;
}

static void env_add_int(env_vars *v, const char *name, int value) {
    char tmp[24];
    snprintf(tmp, sizeof tmp, "%d", value);
    env_add(v, name, tmp);
}

/* CUDA_VISIBLE_DEVICES when the backend assigns this task GPUs; with jax also
   JAX_LOCAL_DEVICE_IDS, the ids those devices get inside the process (0..n-1). */
static cres_result device_vars(const render_ctx *x, env_vars *v, cres_error *err) {
    char devices[4200], ids[4200];
    size_t len = 0, n = 0, i, k = 0;
    cres_result r = cres_visible_devices(x->r, devices, sizeof devices, &len, err);
    if (r == CRES_ERR_NOT_FOUND) return CRES_OK; /* no own task: nothing to assign */
    if (r != CRES_OK || !len) return r;
    env_add(v, "CUDA_VISIBLE_DEVICES", devices);
    if (strcmp(x->format, "jax") != 0) return CRES_OK;
    for (i = 0; i <= len && k + 12 < sizeof ids; i++)
        if (i == len || devices[i] == ',') k += (size_t)sprintf(ids + k, k ? ",%zu" : "%zu", n++);
    env_add(v, "JAX_LOCAL_DEVICE_IDS", ids);
    return CRES_OK;
}

static cres_result format_fail(cres_error *err, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err->message, sizeof err->message, fmt, ap);
    va_end(ap);
    err->result = CRES_ERR_ENVIRONMENT;
    return CRES_ERR_ENVIRONMENT;
}

/* cres_launch, with the CLI's words when the backend found no own task. */
static cres_result launch_info(const render_ctx *x, cres_launch_info *info, cres_error *err) {
    cres_result r = cres_launch(x->r, info, err);
    if (r == CRES_ERR_NOT_FOUND && (!cres_task_type(x->r) || cres_task_id(x->r) < 0)) {
        char why[sizeof err->message];
        const char *own = strstr(err->message, "knows no own task");
        const char *advice = own ? strstr(own, "; set one with") : NULL;
        /* the library's reason, without its advice for C callers */
        snprintf(why, sizeof why, "%.*s", advice ? (int)(advice - own) : 0, own ? own : "");
        snprintf(err->message, sizeof err->message,
                 "--format %.24s needs this process's task: the backend %.140s; pass --task-type "
                 "and --task-id",
                 x->format, own ? why : "did not find it");
    }
    return r;
}

/* The names of the numbers torchrun's workers get that the source does not give. */
static int unknown_numbers(const cres_launch_info *info, char *names, size_t cap) {
    const struct { const char *name; int value; } need[] = {
        {"LOCAL_RANK", info->local_rank},   {"LOCAL_WORLD_SIZE", info->local_world_size},
        {"GROUP_RANK", info->node_rank},    {"GROUP_WORLD_SIZE", info->num_nodes},
    };
    size_t i, n = 0;
    int count = 0;
    names[0] = '\0';
    for (i = 0; i < sizeof need / sizeof need[0]; i++)
        if (need[i].value == CRES_UNKNOWN) {
            n += (size_t)snprintf(names + n, cap - n, "%s%s", count ? ", " : "", need[i].name);
            count++;
        }
    return count;
}

/* The coordinator's "host:port" (IPv6 in brackets), or a refusal naming what is missing. */
static cres_result coordinator(const render_ctx *x, const cres_launch_info *info, char *out,
                               size_t cap, cres_error *err) {
    if (info->master_port <= 0) /* none, or 0: "any port", which no worker can reach */
        return format_fail(err,
                           "--format %s: the %s backend's coordinator \"%.160s\" has no port to "
                           "connect to",
                           x->format, backend_names[x->backend].name, info->master_address);
    snprintf(out, cap, strchr(info->master_host, ':') ? "[%s]:%d" : "%s:%d", info->master_host,
             info->master_port);
    return CRES_OK;
}

static cres_result launcher_vars(const render_ctx *x, env_vars *v, cres_error *err) {
    cres_launch_info info;
    char port[16], coord[CRES_HOST_SIZE + 16], missing[128];
    const char *who = backend_names[x->backend].name;
    cres_result r = launch_info(x, &info, err);
    if (r != CRES_OK) return r;
    memset(v, 0, sizeof *v);
    if ((r = coordinator(x, &info, coord, sizeof coord, err)) != CRES_OK) return r;
    snprintf(port, sizeof port, "%d", info.master_port);
    if (strcmp(x->format, "torchrun-node") == 0) { /* torchrun's own flags, one per node */
        if (info.node_rank == CRES_UNKNOWN || info.num_nodes == CRES_UNKNOWN)
            return format_fail(err,
                               "--format torchrun-node: the %s backend does not say which node "
                               "this is or how many there are",
                               who);
        if (info.local_world_size > 1 && info.local_rank != CRES_UNKNOWN) /* one of several */
            return format_fail(err,
                               "--format torchrun-node: this node runs %d tasks of the %s backend, "
                               "and each would start a torchrun of its own: run one task per node "
                               "(srun --ntasks-per-node=1), or use --format torchrun",
                               info.local_world_size, who);
        env_add_int(v, "PET_NNODES", info.num_nodes);
        env_add_int(v, "PET_NODE_RANK", info.node_rank);
        env_add(v, "PET_MASTER_ADDR", info.master_host);
        env_add(v, "PET_MASTER_PORT", port);
        return CRES_OK;
    }
    if (info.world_size == CRES_UNKNOWN || info.rank == CRES_UNKNOWN)
        return format_fail(err,
                           "--format %s: the %s backend does not give this process's rank and the "
                           "number of processes%s",
                           x->format, who,
                           info.num_nodes != CRES_UNKNOWN && info.node_rank != CRES_UNKNOWN
                               ? " (it is one launcher per node: use --format torchrun-node)"
                               : "");
    if (strcmp(x->format, "jax") == 0) {
        env_add(v, "JAX_COORDINATOR_ADDRESS", coord);
        env_add_int(v, "JAX_NUM_PROCESSES", info.world_size);
        env_add_int(v, "JAX_PROCESS_ID", info.rank);
        return device_vars(x, v, err);
    }
    /* torch.distributed's env:// needs the first four; the others when the source knows */
    env_add(v, "MASTER_ADDR", info.master_host);
    env_add(v, "MASTER_PORT", port);
    env_add_int(v, "WORLD_SIZE", info.world_size);
    env_add_int(v, "RANK", info.rank);
    if (info.local_rank != CRES_UNKNOWN) env_add_int(v, "LOCAL_RANK", info.local_rank);
    if (info.local_world_size != CRES_UNKNOWN)
        env_add_int(v, "LOCAL_WORLD_SIZE", info.local_world_size);
    if (info.node_rank != CRES_UNKNOWN) env_add_int(v, "GROUP_RANK", info.node_rank);
    if (info.num_nodes != CRES_UNKNOWN) env_add_int(v, "GROUP_WORLD_SIZE", info.num_nodes);
    if (unknown_numbers(&info, missing, sizeof missing)) {
        char line[256];
        snprintf(line, sizeof line, "--format torchrun: the %s backend does not say %s: left out",
                 who, missing);
        note(x, line);
    }
    return device_vars(x, v, err);
}

static void json_int(text *t, const char *name, int value, int last) {
    char tmp[64];
    if (value == CRES_UNKNOWN) snprintf(tmp, sizeof tmp, "\"%s\": null%s", name, last ? "" : ", ");
    else snprintf(tmp, sizeof tmp, "\"%s\": %d%s", name, value, last ? "" : ", ");
    if (!text_reserve(t, strlen(tmp) + 1)) return;
    strcpy(t->buf + t->len, tmp);
    t->len += strlen(tmp);
}

/* --format launch: the launch info as one JSON object (master_addr as torchrun's). */
static cres_result render_launch(const render_ctx *x, text *t, cres_error *err) {
    cres_launch_info info;
    const char *s;
    cres_result r = launch_info(x, &info, err);
    if (r != CRES_OK) return r;
    if (!text_reserve(t, 2 * sizeof info.master_host + 16)) return CRES_ERR_OUT_OF_MEMORY;
    t->buf[t->len++] = '{';
    json_int(t, "world_size", info.world_size, 0);
    json_int(t, "rank", info.rank, 0);
    json_int(t, "local_rank", info.local_rank, 0);
    json_int(t, "local_world_size", info.local_world_size, 0);
    json_int(t, "node_rank", info.node_rank, 0);
    json_int(t, "num_nodes", info.num_nodes, 0);
    if (!text_reserve(t, 2 * sizeof info.master_host + 64)) return CRES_ERR_OUT_OF_MEMORY;
    t->len += (size_t)sprintf(t->buf + t->len, "\"master_addr\": \"");
    for (s = info.master_host; *s; s++) { /* host names have no control characters */
        if (*s == '"' || *s == '\\') t->buf[t->len++] = '\\';
        t->buf[t->len++] = *s;
    }
    t->len += (size_t)sprintf(t->buf + t->len, "\", ");
    json_int(t, "master_port", info.master_port, 1);
    if (!text_reserve(t, 4)) return CRES_ERR_OUT_OF_MEMORY;
    t->len += (size_t)sprintf(t->buf + t->len, "}\n");
    return CRES_OK;
}

static cres_result render_coordinator(const render_ctx *x, text *t, cres_error *err) {
    cres_launch_info info;
    char coord[CRES_HOST_SIZE + 16];
    cres_result r = cres_launch(x->r, &info, err);
    if (r == CRES_ERR_NOT_FOUND && (!cres_task_type(x->r) || cres_task_id(x->r) < 0)) {
        /* no own task (a job script): rank 0 is still rank 0 */
        cres_cluster_spec *spec = NULL;
        if ((r = cres_resolve(x->r, &spec, err)) == CRES_OK)
            r = cres_spec_launch_info(spec, NULL, 0, &info, err);
        if (r == CRES_OK) r = cres_launch_apply_env(x->r, &info, err);
        cres_spec_free(spec);
    }
    if (r == CRES_OK && info.world_size == 0)
        return format_fail(err, "--format coordinator: the cluster has no task");
    if (r != CRES_OK || (r = coordinator(x, &info, coord, sizeof coord, err)) != CRES_OK)
        return r;
    if (!text_reserve(t, strlen(coord) + 2)) return CRES_ERR_OUT_OF_MEMORY;
    t->len += (size_t)sprintf(t->buf + t->len, "%s\n", coord);
    return CRES_OK;
}

static int is_launcher_format(const char *format) {
    return strcmp(format, "torchrun") == 0 || strcmp(format, "torchrun-node") == 0 ||
           strcmp(format, "jax") == 0;
}

static int run_exec(const cli *c, const render_ctx *x, cres_error *err) {
    cres_result r;
    env_vars v;
    size_t i;
    memset(&v, 0, sizeof v);
    if (strcmp(c->format->name, "tfconfig") == 0) {
        text t = {NULL, 0, 0};
        if ((r = render_simple(x, &t, err)) != CRES_OK) return fail(err, x->backend);
        t.buf[t.len - 1] = '\0'; /* no newline in the variable */
        setenv("TF_CONFIG", t.buf, 1);
        free(t.buf);
        r = device_vars(x, &v, err);
    } else {
        r = launcher_vars(x, &v, err);
    }
    if (r != CRES_OK) return fail(err, x->backend);
    for (i = 0; i < v.count; i++) setenv(v.names[i], v.store[i], 1);
    fflush(NULL);
    execvp(c->exec_argv[0], c->exec_argv);
    fprintf(stderr, "cluster-resolve: cannot run %s: %s\n", c->exec_argv[0], strerror(errno));
    return errno == ENOENT ? 127 : 126;
}

static int print_output(const render_ctx *x, cres_error *err) {
    text t = {NULL, 0, 0};
    cres_result r = CRES_OK;
    if (is_launcher_format(x->format)) {
        env_vars v;
        size_t i;
        r = launcher_vars(x, &v, err);
        for (i = 0; r == CRES_OK && i < v.count; i++) text_export(&t, v.names[i], v.store[i]);
    } else if (strcmp(x->format, "launch") == 0) {
        r = render_launch(x, &t, err);
    } else if (strcmp(x->format, "coordinator") == 0) {
        r = render_coordinator(x, &t, err);
    } else {
        r = render_simple(x, &t, err);
    }
    if (r == CRES_OK && t.buf) fputs(t.buf, stdout);
    free(t.buf);
    if (r == CRES_ERR_OUT_OF_MEMORY && !err->message[0])
        snprintf(err->message, sizeof err->message, "out of memory");
    return r == CRES_OK ? 0 : fail(err, x->backend);
}

/* --format master: cres_master resolves by itself, so one call is one resolve (HTTP backends
   would otherwise ask their API twice). An empty answer is TensorFlow's rule, said under
   --verbose. */
static int print_master(const render_ctx *x, cres_error *err) {
    char small[2048], *buf = small;
    size_t len = 0;
    cres_result res = cres_master(x->r, small, sizeof small, &len, err);
    if (res == CRES_ERR_BUFFER_TOO_SMALL && (buf = (char *)malloc(len + 1)) != NULL)
        res = cres_master(x->r, buf, len + 1, &len, err);
    if (res == CRES_OK) printf("%s\n", buf);
    if (res == CRES_OK && !len)
        note(x, cres_task_id(x->r) < 0
                    ? "master is \"\": there is no own task (TensorFlow's master() without one); "
                      "rank 0's host:port, what torch and JAX call the coordinator, is --format "
                      "coordinator"
                    : "master is \"\": TensorFlow's master() of a cluster of one task is a local "
                      "session; rank 0's host:port, what torch and JAX call the coordinator, is "
                      "--format coordinator");
    if (buf != small) free(buf);
    return res == CRES_OK ? 0 : fail(err, x->backend);
}

/* What the environment sets about the launch (WORLD_SIZE=16 in a 4-task step) must agree
   with a spec format's answer too, not only with the launch formats'. Without an own task
   (a job script's allocation) it describes a launch still to come: nothing to compare. */
static cres_result spec_agrees(const render_ctx *x, cres_error *err) {
    cres_launch_info info;
    const char *type = cres_task_id(x->r) >= 0 ? cres_task_type(x->r) : NULL;
    cres_result r;
    if (!type) return CRES_OK;
    r = cres_spec_launch_info(x->spec, type, cres_task_id(x->r), &info, err);
    if (r == CRES_ERR_NOT_FOUND) return CRES_OK; /* TF's evaluator runs outside the cluster */
    return r == CRES_OK ? cres_launch_apply_env(x->r, &info, err) : r;
}

/* ---- --help, --man-options, --list-options ------------------------------------------- */

/* "local, kubernetes, ..." (or "every backend") for a set of backends. */
static const char *backend_list(unsigned long set, char *buf, size_t cap) {
    size_t n = 0;
    int b;
    if ((set & ALL) == ALL) return "every backend";
    buf[0] = '\0';
    for (b = 1; b < B_COUNT && n < cap; b++)
        if (set & BIT(b)) n += (size_t)snprintf(buf + n, cap - n, "%s%s", n ? ", " : "",
                                                backend_names[b].name);
    return buf;
}

/* Words from column `at` (where the cursor is) to column 79, then at column 31 again. */
static void wrapped(const char *text, size_t at) {
    while (*text) {
        size_t word = strcspn(text, " ");
        if (at > 31 && at + 1 + word > 79) {
            printf("\n%31s", "");
            at = 31;
        } else {
            putchar(' ');
            at++;
        }
        printf("%.*s", (int)word, text);
        at += word;
        text += word + (text[word] == ' ');
    }
    putchar('\n');
}

static void print_help(void) {
    char list[256];
    size_t i;
    int b;
    printf("usage: cluster-resolve [BACKEND] [OPTIONS] [--exec [--] CMD ARGS...]\n"
           "  BACKEND  auto (default: picks from the environment)");
    for (b = 1; b < B_COUNT; b++)
        printf("%s%s%s", b % 9 == 1 ? "\n           | " : " | ", backend_names[b].name,
               backend_names[b].alias ? " (k8s)" : "");
    printf("\n  FORMAT (--format):\n");
    for (i = 0; i < FORMATS_COUNT; i++)
        printf("    %-14s %s\n", formats[i].name, formats[i].help);
    printf("options (and the backends that read them; auto: those of the backend it picks;\n"
           "--opt=VALUE works for each):\n");
    for (i = 0; i < O_COUNT; i++) {
        const option_def *o = &options[i];
        char head[64], line[512];
        snprintf(head, sizeof head, "%s%s%s%s%s", o->name, o->metavar ? " " : "",
                 o->metavar ? (o->choices ? o->choices : o->metavar) : "",
                 o->alias ? ", " : "", o->alias ? o->alias : "");
        snprintf(line, sizeof line, "%s%s%s%s", o->help, (o->backends & ALL) != ALL ? " [" : "",
                 (o->backends & ALL) != ALL ? backend_list(o->backends, list, sizeof list) : "",
                 (o->backends & ALL) != ALL ? "]" : "");
        printf("  %-28s", head);
        wrapped(line, strlen(head) > 28 ? 2 + strlen(head) : 30);
    }
    printf("  %-28s %s\n", "--exec [--] CMD ARGS...",
           "export the format's variables (tfconfig, torchrun, torchrun-node, jax) and run CMD");
    printf("  %-28s %s\n", "--help, --version", "print this, or the version, and exit");
    printf("auto picks: TF_CONFIG > torchrun > MPI > a Slurm step > PALS > jsrun > Flux "
           "task\n  > Vertex > SageMaker > SkyPilot > Volcano > LeaderWorkerSet > AWS Batch > "
           "torch\n  variables > JAX > PET_* > a scheduler's allocation (Slurm, PBS, LSF, Grid "
           "Engine,\n  Flux) > TPU VM > Kubernetes Indexed Job > local (never while a "
           "launcher's\n  variables say this is one of several processes); "
           "CLUSTER_RESOLVER_BACKEND=NAME forces one, =off local\n"
           "exit: 0 ok, 2 the command line, 3 the environment or cluster, 4 network/HTTP, 5 not "
           "ready,\n      1 other; --exec: 127 command not found, 126 not runnable\n");
}

/* Plain text as roff, '-' and '\\' as roff wants them, in lines of at most 80 bytes, a new
   line after each sentence (mandoc's style); a line's leading '.' or '\'' escaped. */
static void roff(const char *s) {
    size_t col = 0;
    while (*s) {
        size_t word = strcspn(s, " "), k;
        int sentence_end = word > 1 && s[word - 1] == '.' && s[word] == ' ';
        if (col && col + 1 + word + 4 > 80) {
            putchar('\n');
            col = 0;
        } else if (col) {
            putchar(' ');
            col++;
        }
        if (!col && (*s == '.' || *s == '\'')) col += (size_t)printf("\\&");
        for (k = 0; k < word; k++) {
            if (s[k] == '-') col += (size_t)printf("\\-");
            else if (s[k] == '\\') col += (size_t)printf("\\e");
            else putchar(s[k]), col++;
        }
        s += word;
        while (*s == ' ') s++;
        if (sentence_end && *s) {
            putchar('\n');
            col = 0;
        }
    }
}

/* The manual page's OPTIONS section, from the table: `make man` puts it into
   docs/cluster-resolve.1 and the CLI test checks that it is there unchanged. */
static void print_man_options(void) {
    char list[256];
    size_t i;
    puts(".SH OPTIONS\n"
         "Each option reads as \\fB\\-\\-opt\\fR \\fIVALUE\\fR or \\fB\\-\\-opt=\\fR\\fIVALUE\\fR."
         "\nAn option is read by the backends in brackets; with auto, by the backend auto\n"
         "picks: one that backend does not read is exit 2, naming both.");
    for (i = 0; i < O_COUNT; i++) {
        const option_def *o = &options[i];
        puts(".TP");
        printf(o->metavar ? ".BI " : ".B ");
        roff(o->name);
        if (o->metavar) {
            printf(" \" ");
            roff(o->choices ? o->choices : o->metavar);
            printf("\"");
        }
        printf("\n");
        if (o->alias) {
            puts(".TQ");
            printf(".BI ");
            roff(o->alias);
            printf(" \" ");
            roff(o->metavar);
            printf("\"\n");
        }
        roff(o->doc);
        printf("\n[");
        roff(backend_list(o->backends, list, sizeof list));
        printf("]\n");
    }
    puts(".TP\n"
         ".BR \\-\\-exec \" [\" \\-\\- \"] \\fICMD\\fR [\\fIARG\\fR ...]\"\n"
         "Instead of printing, put the format's variables in the environment and execute\n"
         ".IR CMD ,\n"
         "which replaces this process (its exit status is then CMD's):\n"
         "tfconfig sets TF_CONFIG;\n"
         "torchrun, torchrun\\-node and jax the variables they print.\n"
         "When the backend assigns this task GPUs (splitting the node's list; never a list\n"
         "the launcher bound to the task), tfconfig, torchrun and jax also set\n"
         ".B CUDA_VISIBLE_DEVICES\n"
         "(and jax\n"
         ".BR JAX_LOCAL_DEVICE_IDS );\n"
         "other formats with\n"
         ".B \\-\\-exec\n"
         "are exit 2. Everything after\n"
         ".B \\-\\-exec\n"
         "belongs to\n"
         ".IR CMD .\n"
         ".TP\n"
         ".BR \\-\\-help \", \" \\-h\n"
         "Print the usage and exit 0.\n"
         ".TP\n"
         ".B \\-\\-version\n"
         "Print \\(lqcluster\\-resolve\\(rq and the library's version and exit 0.\n"
         ".TP\n"
         ".BR \\-\\-list\\-options \" [\\fIBACKEND\\fR]\"\n"
         "The options BACKEND (default auto) accepts, one per line: the option,\n"
         "its value's name or \\-, its values separated by | or \\-\n"
         "(for the bash completion);\n"
         "with\n"
         ".B \\-\\-list\\-backends\n"
         "and\n"
         ".BR \\-\\-list\\-formats ,\n"
         "the backends and formats, one per line.");
}

/* --list-options [BACKEND], --list-backends, --list-formats: for the bash completion. */
static int list_options(int argc, char **argv) {
    size_t i;
    int b = B_AUTO;
    if (strcmp(argv[1], "--list-backends") == 0) {
        for (b = 0; b < B_COUNT; b++) printf("%s\n", backend_names[b].name);
        printf("k8s\n");
        return 0;
    }
    if (strcmp(argv[1], "--list-formats") == 0) {
        for (i = 0; i < FORMATS_COUNT; i++) printf("%s\n", formats[i].name);
        return 0;
    }
    if (argc > 2 && (b = backend_by_name(argv[2])) < 0)
        return usage_error("unknown backend \"%s\"", argv[2]);
    for (i = 0; i < O_COUNT; i++) {
        if (!reads(b, (int)i)) continue;
        printf("%s\t%s\t", options[i].name, options[i].metavar ? options[i].metavar : "-");
        if (i == O_FORMAT) {
            size_t k;
            for (k = 0; k < FORMATS_COUNT; k++) printf("%s%s", k ? "|" : "", formats[k].name);
            printf("\n");
        } else {
            printf("%s\n", options[i].choices ? options[i].choices : "-");
        }
    }
    printf("--exec\t-\t-\n--help\t-\t-\n--version\t-\t-\n");
    return 0;
}

/* ---- main ---------------------------------------------------------------------------- */

static void log_stderr(void *user, cres_log_level level, const char *message) {
    static const char *const names[] = {"debug", "info", "warn", "error"};
    (void)user;
    fprintf(stderr, "cluster-resolve: %s: %s\n", names[level], message);
}

/* Under auto: every option given must be one the backend it picked reads. */
static int check_picked(const cli *c, int picked) {
    size_t i;
    char list[256];
    for (i = 0; i < c->count; i++) {
        int o = c->all[i].option;
        if (options[o].backends & BIT(picked)) continue;
        return usage_error("%s does not apply to the %s backend, which auto picked (--verbose "
                           "says why); it is read by %s",
                           options[o].name, backend_names[picked].name,
                           backend_list(options[o].backends, list, sizeof list));
    }
    return 0;
}

int main(int argc, char **argv) {
    static cli c;
    static backend_options opts;
    cres_config cfg;
    cres_error err;
    cres_resolver *r;
    cres_cluster_spec *spec = NULL;
    render_ctx x;
    int rc, backend;
    if (argc > 1 && strncmp(argv[1], "--list-", 7) == 0 &&
        (strcmp(argv[1], "--list-options") == 0 || strcmp(argv[1], "--list-backends") == 0 ||
         strcmp(argv[1], "--list-formats") == 0))
        return list_options(argc, argv);
    if (argc == 2 && strcmp(argv[1], "--man-options") == 0) {
        print_man_options();
        return 0;
    }
    if ((rc = parse_args(argc, argv, &c)) != 0 || (rc = check_pairs(&c)) != 0) return rc;
#if defined(__GLIBC__) && defined(M_MMAP_THRESHOLD)
    /* Pages of a pod list are megabytes each, freed as the next arrives. glibc raises its mmap
       threshold past the first one freed, and the later ones then come from the heap, where
       the pods kept in between strand them: at 100,000 pods 3 MiB of peak RSS. A fixed
       threshold keeps every page in an mmap of its own. (The library leaves the allocator's
       settings to the program.) */
    mallopt(M_MMAP_THRESHOLD, 256 * 1024);
#endif
    memset(&cfg, 0, sizeof cfg);
    memset(&err, 0, sizeof err);
    if (c.value[O_VERBOSE]) cfg.log.fn = log_stderr;
    cfg.timeout_ms = int_value(&c, O_TIMEOUT_MS);
    cfg.resolve_timeout_ms = int_value(&c, O_RESOLVE_TIMEOUT_MS);
    cfg.max_retries = int_value(&c, O_RETRIES);
    if (c.value[O_RETRIES] && !cfg.max_retries) cfg.max_retries = -1; /* 0: none */
    cfg.max_response_bytes = (size_t)int_value(&c, O_MAX_RESPONSE_BYTES);
    if ((rc = fill_options(&c, &cfg, &opts)) != 0) return rc;
    if (c.value[O_SPEC] &&
        cres_spec_from_json(c.value[O_SPEC], strlen(c.value[O_SPEC]), NULL, &opts.spec, &err) !=
            CRES_OK) {
        fail(&err, B_SIMPLE);
        return EXIT_USAGE;
    }
    opts.simple.spec = opts.spec;
    rc = create(c.backend, &opts, &r, &err) == CRES_OK ? 0 : fail_setup(&c, &err, c.backend);
    cres_spec_free(opts.spec);
    if (rc) return rc;
    backend = c.backend == B_AUTO ? backend_by_name(cres_resolver_name(r)) : c.backend;
    if ((c.backend == B_AUTO && backend >= 0 && (rc = check_picked(&c, backend)) != 0) ||
        (c.value[O_TASK_TYPE] &&
         cres_set_task(r, c.value[O_TASK_TYPE], c.value[O_TASK_ID] ? int_value(&c, O_TASK_ID) : -1,
                       &err) != CRES_OK) ||
        (c.value[O_RPC_LAYER] && cres_set_rpc_layer(r, c.value[O_RPC_LAYER], &err) != CRES_OK)) {
        cres_resolver_free(r);
        return rc ? rc : fail_setup(&c, &err, backend);
    }
    x.r = r;
    x.spec = NULL;
    x.format = c.format->name;
    x.backend = backend < 0 ? B_AUTO : backend;
    x.verbose = c.value[O_VERBOSE] != NULL;
    if (c.format->need == NEEDS_MASTER && !c.exec_argv) {
        rc = print_master(&x, &err);
        cres_resolver_free(r);
        return rc;
    }
    if (c.format->need == NEEDS_EVERY_ADDRESS &&
        (cres_resolve(r, &spec, &err) != CRES_OK ||
         (x.spec = spec, spec_agrees(&x, &err)) != CRES_OK)) {
        cres_spec_free(spec);
        cres_resolver_free(r);
        if (err.result == CRES_ERR_INCOMPLETE) /* say what does work */
            snprintf(err.message + strlen(err.message), sizeof err.message - strlen(err.message),
                     "; --format %s needs every address: use coordinator, launch, torchrun, "
                     "torchrun-node, jax or master",
                     c.format->name);
        return fail(&err, x.backend);
    }
    rc = c.exec_argv ? run_exec(&c, &x, &err) : print_output(&x, &err);
    cres_spec_free(spec);
    cres_resolver_free(r);
    return rc;
}
