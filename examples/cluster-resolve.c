/* cluster-resolve: print (or export, then exec) who the members of this job are.

   cluster-resolve [BACKEND] [OPTIONS] [--exec -- CMD ARGS...]

   Exit codes: 0 success, 1 internal (out of memory), 2 usage, 3 environment or
   configuration, 4 network or HTTP, 5 cluster not ready, 126/127 --exec could not run CMD.
   Backends plug in through the table `backends` below: a name, the options it accepts and
   a function that creates its resolver from the parsed command line. */

#define _POSIX_C_SOURCE 200809L
#define CLUSTER_RESOLVER_IMPLEMENTATION
#define CLUSTER_RESOLVER_USE_CURL /* link with -lcurl */
#define CLUSTER_RESOLVER_USE_YAML /* YAML kubeconfig files: link with -lyaml */
#define CLUSTER_RESOLVER_USE_OPENSSL /* Google service-account keys: link with -lcrypto */
#include "../cluster_resolver.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#ifdef __GLIBC__
#  include <malloc.h>
#endif

#define EXIT_USAGE 2

/* ---- the command line ------------------------------------------------------------- */

typedef struct option_value {
    const char *name;   /* "--spec" */
    const char *value;
} option_value;

typedef struct cli {
    const char *backend;
    const char *format;
    const char *task_type;
    int task_id;            /* -1 = not given */
    const char *rpc_layer;
    int verbose;
    int timeout_ms, retries;    /* 0 = the library's defaults; retries -1 = none */
    int resolve_timeout_ms;     /* 0 = the library's default */
    long long max_response_bytes;
    char **exec_argv;       /* NULL = print instead */
    option_value opts[64];  /* backend options, in order; repeatable ones appear again */
    size_t opts_count;
} cli;

/* The value of a backend option (the last one given), or NULL. Flags have the value "1". */
static const char *cli_option(const cli *c, const char *name) {
    const char *v = NULL;
    size_t i;
    for (i = 0; i < c->opts_count; i++)
        if (strcmp(c->opts[i].name, name) == 0) v = c->opts[i].value;
    return v;
}

static int parse_int(const char *s, int lo, int hi, int *out) {
    char *end;
    long v;
    errno = 0;
    v = strtol(s, &end, 10);
    if (errno || end == s || *end || v < lo || v > hi) return 0;
    *out = (int)v;
    return 1;
}

/* ---- backends ---------------------------------------------------------------------- */

typedef cres_result (*create_fn)(const cli *c, const cres_config *cfg, cres_resolver **out,
                                 cres_error *err);

static cres_result port_option(const cli *c, int *port, cres_error *err) {
    const char *p = cli_option(c, "--port");
    *port = 0;
    if (p && !parse_int(p, 1, 65535, port)) {
        err->result = CRES_ERR_INVALID_ARGUMENT;
        snprintf(err->message, sizeof err->message, "--port %s is not 1 to 65535", p);
        return CRES_ERR_INVALID_ARGUMENT;
    }
    return CRES_OK;
}

static cres_result members_option(const cli *c, cres_k8s_members *out, cres_error *err);

static cres_result create_auto(const cli *c, const cres_config *cfg, cres_resolver **out,
                               cres_error *err) {
    cres_auto_options o;
    cres_result r;
    memset(&o, 0, sizeof o);
    o.config = cfg;
    if ((r = port_option(c, &o.port, err)) != CRES_OK ||
        (r = members_option(c, &o.k8s_members, err)) != CRES_OK)
        return r;
    return cres_auto_resolver_create(&o, out, err);
}

static cres_result create_local(const cli *c, const cres_config *cfg, cres_resolver **out,
                                cres_error *err) {
    cres_local_options o;
    cres_result r;
    memset(&o, 0, sizeof o);
    o.config = cfg;
    o.host = cli_option(c, "--host");
    if ((r = port_option(c, &o.port, err)) != CRES_OK) return r;
    return cres_local_resolver_create(&o, out, err);
}

static cres_result create_tfconfig(const cli *c, const cres_config *cfg, cres_resolver **out,
                                   cres_error *err) {
    cres_tfconfig_options o;
    (void)c;
    memset(&o, 0, sizeof o);
    o.config = cfg;
    return cres_tfconfig_resolver_create(&o, out, err);
}

static cres_result create_simple(const cli *c, const cres_config *cfg, cres_resolver **out,
                                 cres_error *err) {
    cres_simple_options o;
    cres_cluster_spec *spec;
    const char *json = cli_option(c, "--spec");
    cres_result r;
    if (!json) {
        err->result = CRES_ERR_INVALID_ARGUMENT;
        snprintf(err->message, sizeof err->message, "simple: --spec JSON is required");
        return CRES_ERR_INVALID_ARGUMENT;
    }
    if ((r = cres_spec_from_json(json, strlen(json), &cfg->allocator, &spec, err)) != CRES_OK)
        return r;
    memset(&o, 0, sizeof o);
    o.config = cfg;
    o.spec = spec;
    r = cres_simple_resolver_create(&o, out, err);
    cres_spec_free(spec);
    return r;
}

static cres_result usage_fail(cres_error *err, const char *fmt, const char *arg) {
    err->result = CRES_ERR_INVALID_ARGUMENT;
    snprintf(err->message, sizeof err->message, fmt, arg);
    return CRES_ERR_INVALID_ARGUMENT;
}

/* --job JOB=SELECTOR, repeatable, in order. */
static cres_result k8s_jobs(const cli *c, cres_k8s_job_selector *jobs, size_t *count, char *store,
                            size_t store_cap, cres_error *err) {
    size_t i, used = 0;
    *count = 0;
    for (i = 0; i < c->opts_count; i++) {
        const char *v = c->opts[i].value, *eq;
        size_t n = strlen(v) + 1;
        if (strcmp(c->opts[i].name, "--job") != 0) continue;
        if (!(eq = strchr(v, '=')) || eq == v)
            return usage_fail(err, "--job %s is not JOB=SELECTOR", v);
        if (used + n > store_cap) return usage_fail(err, "%s: too many --job options", v);
        memcpy(store + used, v, n);
        store[used + (size_t)(eq - v)] = '\0';
        jobs[*count].job = store + used;
        jobs[*count].selector = store + used + (size_t)(eq - v) + 1;
        used += n;
        (*count)++;
    }
    return CRES_OK;
}

/* --members list|job: where a Kubernetes job's members come from. */
static cres_result members_option(const cli *c, cres_k8s_members *out, cres_error *err) {
    const char *m = cli_option(c, "--members");
    *out = CRES_K8S_MEMBERS_DEFAULT;
    if (!m) return CRES_OK;
    if (strcmp(m, "list") == 0) *out = CRES_K8S_MEMBERS_LIST;
    else if (strcmp(m, "job") == 0) *out = CRES_K8S_MEMBERS_JOB;
    else return usage_fail(err, "--members %s is not list or job", m);
    return CRES_OK;
}

static cres_result create_k8s(const cli *c, const cres_config *cfg, cres_resolver **out,
                              cres_error *err) {
    static char store[8192];
    cres_k8s_job_selector jobs[64];
    cres_k8s_options o;
    const char *address = cli_option(c, "--address"), *wait = cli_option(c, "--wait");
    const char *page = cli_option(c, "--page-size");
    int seconds = 0;
    cres_result r;
    memset(&o, 0, sizeof o);
    o.config = cfg;
    o.server = cli_option(c, "--server");
    o.kubeconfig = cli_option(c, "--kubeconfig");
    o.context = cli_option(c, "--context");
    o.token_file = cli_option(c, "--token-file");
    o.ca_file = cli_option(c, "--ca-file");
    o.namespace_name = cli_option(c, "--namespace");
    o.all_namespaces = cli_option(c, "--all-namespaces") != NULL;
    o.follow_jobset = cli_option(c, "--follow-jobset") != NULL;
    o.cluster_domain = cli_option(c, "--cluster-domain");
    if ((r = port_option(c, &o.port, err)) != CRES_OK ||
        (r = members_option(c, &o.members, err)) != CRES_OK ||
        (r = k8s_jobs(c, jobs, &o.jobs_count, store, sizeof store, err)) != CRES_OK)
        return r;
    o.jobs = jobs;
    if (address && strcmp(address, "pod-ip") == 0) o.address = CRES_K8S_POD_IP;
    else if (address && strcmp(address, "host-ip") == 0) o.address = CRES_K8S_HOST_IP;
    else if (address && strcmp(address, "dns") == 0) o.address = CRES_K8S_DNS;
    else if (address) return usage_fail(err, "--address %s is not pod-ip, host-ip or dns", address);
    if (wait && !parse_int(wait, 0, 86400, &seconds))
        return usage_fail(err, "--wait %s is not 0 to 86400 seconds", wait);
    o.wait_ms = seconds * 1000;
    if (page && !parse_int(page, 1, 100000, &o.page_size))
        return usage_fail(err, "--page-size %s is not 1 to 100000", page);
    return cres_k8s_resolver_create(&o, out, err);
}

static cres_result create_gce(const cli *c, const cres_config *cfg, cres_resolver **out,
                              cres_error *err) {
    cres_gce_options o;
    cres_result r;
    memset(&o, 0, sizeof o);
    o.config = cfg;
    o.project = cli_option(c, "--project");
    o.zone = cli_option(c, "--zone");
    o.region = cli_option(c, "--region");
    o.instance_group = cli_option(c, "--instance-group");
    o.compute_url = cli_option(c, "--compute-url");
    o.ca_file = cli_option(c, "--ca-file");
    o.metadata_url = cli_option(c, "--metadata-url");
    o.token_file = cli_option(c, "--token-file");
    o.credentials_file = cli_option(c, "--credentials");
    o.job_name = cli_option(c, "--job-name");
    if ((r = port_option(c, &o.port, err)) != CRES_OK) return r;
    if (!o.instance_group) return usage_fail(err, "gce: --instance-group is required%s", "");
    return cres_gce_resolver_create(&o, out, err);
}

static cres_result create_tpu(const cli *c, const cres_config *cfg, cres_resolver **out,
                              cres_error *err) {
    cres_tpu_options o;
    const char *per_host = cli_option(c, "--accelerators-per-host");
    memset(&o, 0, sizeof o);
    o.config = cfg;
    o.tpu = cli_option(c, "--tpu");
    o.project = cli_option(c, "--project");
    o.zone = cli_option(c, "--zone");
    o.tpu_url = cli_option(c, "--tpu-url");
    o.ca_file = cli_option(c, "--ca-file");
    o.metadata_url = cli_option(c, "--metadata-url");
    o.token_file = cli_option(c, "--token-file");
    o.credentials_file = cli_option(c, "--credentials");
    o.api_version = cli_option(c, "--api-version");
    o.job_name = cli_option(c, "--job-name");
    o.coordinator_name = cli_option(c, "--coordinator-name");
    o.coordinator_address = cli_option(c, "--coordinator-address");
    o.allow_unhealthy = cli_option(c, "--allow-unhealthy") != NULL;
    if (per_host && !parse_int(per_host, 1, 4096, &o.accelerators_per_host))
        return usage_fail(err, "--accelerators-per-host %s is not 1 to 4096", per_host);
    return cres_tpu_resolver_create(&o, out, err);
}

/* --jobs worker=3,ps=1: how many tasks each job takes; names live in `store`. */
static cres_result hpc_jobs(const cli *c, cres_job_count *jobs, size_t cap, size_t *count,
                            char *store, size_t store_cap, cres_error *err) {
    const char *v = cli_option(c, "--jobs");
    char *item, *next;
    *count = 0;
    if (!v) return CRES_OK;
    if (strlen(v) >= store_cap) return usage_fail(err, "--jobs %s is too long", v);
    strcpy(store, v);
    for (item = store; item; item = next) {
        char *eq = strchr(item, '=');
        if ((next = strchr(item, ',')) != NULL) *next++ = '\0';
        if (!eq || eq == item || *count == cap ||
            !parse_int(eq + 1, 0, 1000000, &jobs[*count].count))
            return usage_fail(err, "--jobs %s is not JOB=N,JOB=N...", v);
        *eq = '\0';
        jobs[(*count)++].job = item;
    }
    return CRES_OK;
}

/* --port-base, --gpus-per-node (0 = none), --gpus-per-task of the Slurm and MPI backends. */
static cres_result hpc_numbers(const cli *c, int *port_base, int *gpus_per_node, int *gpus_per_task,
                               cres_error *err) {
    const char *base = cli_option(c, "--port-base"), *node = cli_option(c, "--gpus-per-node");
    const char *task = cli_option(c, "--gpus-per-task");
    *port_base = *gpus_per_node = *gpus_per_task = 0;
    if (base && !parse_int(base, 1, 65535, port_base))
        return usage_fail(err, "--port-base %s is not 1 to 65535", base);
    if (node && !parse_int(node, 0, 4096, gpus_per_node))
        return usage_fail(err, "--gpus-per-node %s is not 0 to 4096", node);
    if (node && *gpus_per_node == 0) *gpus_per_node = CRES_NO_GPUS;
    if (task && !parse_int(task, 1, 4096, gpus_per_task))
        return usage_fail(err, "--gpus-per-task %s is not 1 to 4096", task);
    return CRES_OK;
}

/* What the Slurm and MPI backends share on the command line; names live in `store`. */
typedef struct hpc_args {
    cres_job_count jobs[64];
    size_t jobs_count;
    int port_base, gpus_per_node, gpus_per_task;
    char store[4096];
} hpc_args;

static cres_result hpc_args_read(const cli *c, hpc_args *h, cres_error *err) {
    cres_result r = hpc_jobs(c, h->jobs, 64, &h->jobs_count, h->store, sizeof h->store, err);
    if (r != CRES_OK) return r;
    return hpc_numbers(c, &h->port_base, &h->gpus_per_node, &h->gpus_per_task, err);
}

static cres_result create_slurm(const cli *c, const cres_config *cfg, cres_resolver **out,
                                cres_error *err) {
    static hpc_args h;
    cres_slurm_options o;
    cres_result r;
    if ((r = hpc_args_read(c, &h, err)) != CRES_OK) return r;
    memset(&o, 0, sizeof o);
    o.config = cfg;
    o.jobs = h.jobs_count ? h.jobs : NULL;
    o.jobs_count = h.jobs_count;
    o.port_base = h.port_base;
    o.gpus_per_node = h.gpus_per_node;
    o.gpus_per_task = h.gpus_per_task;
    return cres_slurm_resolver_create(&o, out, err);
}

static cres_result create_mpi(const cli *c, const cres_config *cfg, cres_resolver **out,
                              cres_error *err) {
    static hpc_args h;
    cres_mpi_options o;
    cres_result r;
    if ((r = hpc_args_read(c, &h, err)) != CRES_OK) return r;
    memset(&o, 0, sizeof o);
    o.config = cfg;
    o.hostfile = cli_option(c, "--hostfile");
    o.hostname = cli_option(c, "--host");
    o.jobs = h.jobs_count ? h.jobs : NULL;
    o.jobs_count = h.jobs_count;
    o.port_base = h.port_base;
    o.gpus_per_node = h.gpus_per_node;
    o.gpus_per_task = h.gpus_per_task;
    return cres_mpi_resolver_create(&o, out, err);
}

/* pbs, lsf, sge and flux: the Slurm options; flux also --hostfile. */
#define CREATE_SCHED(name, extra)                                                              \
    static cres_result create_##name(const cli *c, const cres_config *cfg, cres_resolver **out, \
                                     cres_error *err) {                                        \
        static hpc_args h;                                                                     \
        cres_##name##_options o;                                                               \
        cres_result r;                                                                         \
        if ((r = hpc_args_read(c, &h, err)) != CRES_OK) return r;                              \
        memset(&o, 0, sizeof o);                                                               \
        o.config = cfg;                                                                        \
        o.jobs = h.jobs_count ? h.jobs : NULL;                                                 \
        o.jobs_count = h.jobs_count;                                                           \
        o.port_base = h.port_base;                                                             \
        o.gpus_per_node = h.gpus_per_node;                                                     \
        o.gpus_per_task = h.gpus_per_task;                                                     \
        extra;                                                                                 \
        return cres_##name##_resolver_create(&o, out, err);                                    \
    }
CREATE_SCHED(pbs, (void)0)
CREATE_SCHED(lsf, (void)0)
CREATE_SCHED(sge, (void)0)
CREATE_SCHED(flux, o.hostfile = cli_option(c, "--hostfile"))

static cres_result create_sagemaker(const cli *c, const cres_config *cfg, cres_resolver **out,
                                    cres_error *err) {
    cres_sagemaker_options o;
    cres_result r;
    memset(&o, 0, sizeof o);
    o.config = cfg;
    o.resource_config = cli_option(c, "--resource-config");
    o.job_name = cli_option(c, "--job-name");
    o.instance_groups = cli_option(c, "--instance-groups") != NULL;
    if (o.instance_groups && o.job_name) /* the groups name the jobs */
        return usage_fail(err, "sagemaker: --job-name and --instance-groups exclude each other%s",
                          "");
    if ((r = port_option(c, &o.port, err)) != CRES_OK) return r;
    return cres_sagemaker_resolver_create(&o, out, err);
}

static cres_result create_torch(const cli *c, const cres_config *cfg, cres_resolver **out,
                                cres_error *err) {
    cres_torch_options o;
    (void)c;
    memset(&o, 0, sizeof o);
    o.config = cfg;
    return cres_torch_resolver_create(&o, out, err);
}

static cres_result create_jax(const cli *c, const cres_config *cfg, cres_resolver **out,
                              cres_error *err) {
    cres_jax_options o;
    (void)c;
    memset(&o, 0, sizeof o);
    o.config = cfg;
    return cres_jax_resolver_create(&o, out, err);
}

static cres_result create_awsbatch(const cli *c, const cres_config *cfg, cres_resolver **out,
                                   cres_error *err) {
    cres_awsbatch_options o;
    cres_result r;
    memset(&o, 0, sizeof o);
    o.config = cfg;
    o.main_host = cli_option(c, "--main-host");
    if ((r = port_option(c, &o.port, err)) != CRES_OK) return r;
    r = cres_awsbatch_resolver_create(&o, out, err);
    if (r != CRES_OK && o.main_host && strstr(err->message, "options.main_host")) {
        char q[128];
        snprintf(q, sizeof q, "%.100s", o.main_host);
        return usage_fail(err, "awsbatch: --main-host \"%s\" is not a host name or IP address", q);
    }
    return r;
}

static cres_result create_vertex(const cli *c, const cres_config *cfg, cres_resolver **out,
                                 cres_error *err) {
    cres_vertex_options o;
    memset(&o, 0, sizeof o);
    o.config = cfg;
    o.cluster_spec = cli_option(c, "--cluster-spec");
    if (cres_vertex_resolver_create(&o, out, err) != CRES_OK) {
        char *at = strstr(err->message, "options.cluster_spec"), rest[CRES_ERROR_MESSAGE_SIZE];
        if (at) { /* the CLI's words for the library's field */
            snprintf(rest, sizeof rest, "%s", at + strlen("options.cluster_spec"));
            snprintf(at, sizeof err->message - (size_t)(at - err->message), "--cluster-spec%s",
                     rest);
        }
        return err->result;
    }
    return CRES_OK;
}

static cres_result create_skypilot(const cli *c, const cres_config *cfg, cres_resolver **out,
                                   cres_error *err) {
    cres_skypilot_options o;
    cres_result r;
    memset(&o, 0, sizeof o);
    o.config = cfg;
    o.job_name = cli_option(c, "--job-name");
    if ((r = port_option(c, &o.port, err)) != CRES_OK) return r;
    return cres_skypilot_resolver_create(&o, out, err);
}

static cres_result create_volcano(const cli *c, const cres_config *cfg, cres_resolver **out,
                                  cres_error *err) {
    cres_volcano_options o;
    cres_result r;
    memset(&o, 0, sizeof o);
    o.config = cfg;
    o.hostname = cli_option(c, "--hostname");
    if ((r = port_option(c, &o.port, err)) != CRES_OK) return r;
    return cres_volcano_resolver_create(&o, out, err);
}

static cres_result create_lws(const cli *c, const cres_config *cfg, cres_resolver **out,
                              cres_error *err) {
    cres_lws_options o;
    cres_result r;
    memset(&o, 0, sizeof o);
    o.config = cfg;
    o.hostname = cli_option(c, "--hostname");
    o.job_name = cli_option(c, "--job-name");
    if ((r = port_option(c, &o.port, err)) != CRES_OK) return r;
    return cres_lws_resolver_create(&o, out, err);
}

static const char *const auto_options[] = {"--port", "--members", NULL};
static const char *const local_options[] = {"--port", "--host", NULL};
static const char *const simple_options[] = {"--spec", NULL};
static const char *const no_options[] = {NULL};
static const char *const k8s_options[] = {
    "--server",     "--token-file", "--ca-file",   "--namespace",      "--all-namespaces",
    "--job",        "--address",    "--wait",      "--port",           "--page-size",
    "--cluster-domain", "--follow-jobset", "--kubeconfig", "--context", "--members", NULL};
static const char *const gce_options[] = {
    "--project", "--zone",         "--region",     "--instance-group", "--compute-url",
    "--ca-file", "--metadata-url", "--token-file", "--port",           "--job-name",
    "--credentials", NULL};
static const char *const tpu_options[] = {"--tpu",
                                          "--project",
                                          "--zone",
                                          "--tpu-url",
                                          "--ca-file",
                                          "--metadata-url",
                                          "--token-file",
                                          "--credentials",
                                          "--api-version",
                                          "--job-name",
                                          "--coordinator-name",
                                          "--coordinator-address",
                                          "--allow-unhealthy",
                                          "--accelerators-per-host",
                                          NULL};
static const char *const slurm_options[] = {"--jobs", "--port-base", "--gpus-per-node",
                                            "--gpus-per-task", NULL};
static const char *const mpi_options[] = {
    "--hostfile", "--host", "--jobs", "--port-base", "--gpus-per-node", "--gpus-per-task", NULL};
static const char *const sagemaker_options[] = {"--port", "--resource-config", "--job-name",
                                                "--instance-groups", NULL};
static const char *const flux_options[] = {
    "--hostfile", "--jobs", "--port-base", "--gpus-per-node", "--gpus-per-task", NULL};
static const char *const awsbatch_options[] = {"--port", "--main-host", NULL};
static const char *const vertex_options[] = {"--cluster-spec", NULL};
static const char *const skypilot_options[] = {"--port", "--job-name", NULL};
static const char *const volcano_options[] = {"--port", "--hostname", NULL};
static const char *const lws_options[] = {"--port", "--hostname", "--job-name", NULL};
/* Backend options that take no value. */
static const char *const flag_options[] = {"--all-namespaces", "--allow-unhealthy",
                                           "--follow-jobset", "--instance-groups", NULL};

static const struct backend {
    const char *name;
    const char *const *options;
    create_fn create;
} backends[] = {
    {"auto", auto_options, create_auto},
    {"simple", simple_options, create_simple},
    {"tfconfig", no_options, create_tfconfig},
    {"local", local_options, create_local},
    {"k8s", k8s_options, create_k8s},
    {"gce", gce_options, create_gce},
    {"tpu", tpu_options, create_tpu},
    {"slurm", slurm_options, create_slurm},
    {"mpi", mpi_options, create_mpi},
    {"sagemaker", sagemaker_options, create_sagemaker},
    {"torch", no_options, create_torch},
    {"jax", no_options, create_jax},
    {"awsbatch", awsbatch_options, create_awsbatch},
    {"pbs", slurm_options, create_pbs},
    {"lsf", slurm_options, create_lsf},
    {"sge", slurm_options, create_sge},
    {"flux", flux_options, create_flux},
    {"vertex", vertex_options, create_vertex},
    {"skypilot", skypilot_options, create_skypilot},
    {"volcano", volcano_options, create_volcano},
    {"lws", lws_options, create_lws},
};
#define BACKENDS_COUNT (sizeof backends / sizeof backends[0])

static const struct backend *find_backend(const char *name) {
    size_t i;
    for (i = 0; i < BACKENDS_COUNT; i++)
        if (strcmp(backends[i].name, name) == 0) return &backends[i];
    return NULL;
}

static int in_list(const char *const *list, const char *name) {
    size_t k;
    for (k = 0; list[k]; k++)
        if (strcmp(list[k], name) == 0) return 1;
    return 0;
}

static int takes_option(const char *name) {
    size_t i;
    for (i = 0; i < BACKENDS_COUNT; i++)
        if (in_list(backends[i].options, name)) return 1;
    return 0;
}

static int takes_value(const char *name) {
    static const char *const common[] = {
        "--format",    "--task-type",          "--task-id",
        "--rpc-layer", "--timeout-ms",         "--resolve-timeout-ms",
        "--retries",   "--max-response-bytes", NULL};
    return in_list(common, name) || (takes_option(name) && !in_list(flag_options, name));
}

static int backend_takes(const struct backend *b, const char *name) {
    return in_list(b->options, name);
}

/* ---- usage ------------------------------------------------------------------------- */

static void usage(FILE *f) {
    fputs(
        "usage: cluster-resolve [BACKEND] [OPTIONS] [--exec -- CMD ARGS...]\n"
        "  BACKEND    auto (default) | simple | tfconfig | local | slurm | mpi | sagemaker | k8s | "
        "gce | tpu\n"
        "             | pbs | lsf | sge | flux | torch | jax | awsbatch | vertex | skypilot\n"
        "             | volcano | lws\n"
        "  --format F tfconfig (default) | spec | hostfile | machinefile   (every member's "
        "address)\n"
        "             | launch | torchrun | torchrun-node | jax | master   (the coordinator "
        "is enough)\n"
        "  --task-type T --task-id N   this process's task (overrides what the backend finds)\n"
        "  --rpc-layer R               e.g. grpc: master becomes R://address\n"
        "  --exec -- CMD ARGS...       export the format's variables (tfconfig: TF_CONFIG;\n"
        "                              torchrun: MASTER_ADDR...; torchrun-node: PET_...;\n"
        "                              jax: JAX_...) and run CMD\n"
        "  --verbose                   log what the backend does to stderr\n"
        "  --help, --version           print this, or the version, and exit\n"
        "  HTTP backends: --timeout-ms N (10000 per request)  --retries N (3; 0 = none)\n"
        "                 --resolve-timeout-ms N (60000 for a whole resolve)\n"
        "                 --max-response-bytes N (64 MiB)\n"
        "  auto, local: --port N (default 8470)   local: --host H (default localhost)\n"
        "  auto:        --members list|job (in an Indexed Job's pod: job by default; see k8s)\n"
        "  simple:      --spec JSON    e.g. '{\"worker\": [\"a:1\", \"b:1\"]}'\n"
        "  k8s:         --kubeconfig F --context NAME (default: $KUBECONFIG, ~/.kube/config, as "
        "kubectl)\n"
        "               --server URL --token-file F --ca-file F (default: a kubeconfig, else the\n"
        "               in-cluster service account)\n"
        "               --namespace NS | --all-namespaces   --job JOB=SELECTOR (repeatable;\n"
        "               default worker=job-name=tensorflow)   --address pod-ip|host-ip|dns\n"
        "               --wait SECONDS   --port N (8470)   --page-size N (500)   --cluster-domain "
        "D\n"
        "               --follow-jobset (the job holding this pod: its whole JobSet, if in one;\n"
        "               auto does it in an Indexed Job's pod)\n"
        "               --members list|job (list: the selectors' pods, the default; job: this\n"
        "               pod's Indexed Job, or its JobSet, named by DNS from one GET of each,\n"
        "               not-yet-Running pods included; else the list, logged)\n",
        f);
    fputs(
        "  gce:         --instance-group G  --project P --zone Z | --region R (default: this "
        "VM's)\n"
        "               --port N (8470) --job-name J (worker)\n"
        "               --token-file F | --credentials F (a Google credentials file; default:\n"
        "               $GOOGLE_APPLICATION_CREDENTIALS, gcloud's ADC file, the metadata server)\n"
        "               --compute-url URL --ca-file F (system CA store) --metadata-url URL\n"
        "  tpu:         --tpu NAME|grpc://H:P,...|local (default: $TPU_NAME...) --project P --zone "
        "Z\n"
        "               --api-version v2|v1 --job-name J --coordinator-name N "
        "--coordinator-address A\n"
        "               --allow-unhealthy --accelerators-per-host N --tpu-url URL --metadata-url "
        "URL\n"
        "               --token-file F | --credentials F (as gce) --ca-file F (for --tpu-url)\n"
        "  slurm:       --jobs worker=3,ps=1 (default: worker=every task)  --port-base N (8888)\n"
        "               --gpus-per-node N (split the node's N; default: Slurm's word; 0 = none) "
        "--gpus-per-task N\n"
        "  mpi:         --hostfile F (Open MPI or MPICH format)  --host H (single-host jobs)\n"
        "               and the slurm options\n"
        "  pbs, lsf, sge: the slurm options   flux: --hostfile F (required) and the slurm "
        "options\n"
        "  sagemaker:   --port N (2223) --job-name J (worker) --resource-config F\n"
        "               --instance-groups (a job per instance group, named by it; default one "
        "job)\n"
        "  awsbatch:    --port N (29500) --main-host H (the main node's own name; localhost)\n"
        "  vertex:      --cluster-spec JSON (default $CLUSTER_SPEC)\n"
        "  skypilot:    --port N (8470) --job-name J (worker)\n"
        "  volcano:     --port N (8470) --hostname H (default $HOSTNAME)\n"
        "  lws:         --port N (8470) --hostname H (default $HOSTNAME) --job-name J (worker)\n"
        "  torchrun, jax and --exec also export CUDA_VISIBLE_DEVICES when the backend assigns "
        "GPUs\n"
        "  auto picks: TF_CONFIG > torchrun > MPI > Slurm > PBS > LSF > Grid Engine > Flux > "
        "Vertex\n"
        "              > SageMaker > SkyPilot > Volcano\n"
        "              > LeaderWorkerSet > AWS Batch > torch variables > JAX > PET_* > TPU VM\n"
        "              > Kubernetes Indexed Job (or its JobSet) > local;\n"
        "  CLUSTER_RESOLVER_BACKEND=NAME forces one, =off means local\n"
        "exit: 0 ok, 2 usage, 3 environment/config, 4 network/HTTP, 5 not ready, 1 other;\n"
        "      --exec: 127 command not found, 126 not runnable\n",
        f);
}

static int usage_error(const char *fmt, const char *arg) {
    fputs("cluster-resolve: ", stderr);
    fprintf(stderr, fmt, arg);
    fputs(" (see --help)\n", stderr);
    return EXIT_USAGE;
}

static const char *const formats[] = {"tfconfig", "spec",     "hostfile",      "machinefile",
                                      "master",   "launch",   "torchrun",      "torchrun-node",
                                      "jax",      NULL};

/* The formats that need every member's address, which coordinator-only sources lack. */
static int needs_every_address(const char *format) {
    return strcmp(format, "tfconfig") == 0 || strcmp(format, "spec") == 0 ||
           strcmp(format, "hostfile") == 0 || strcmp(format, "machinefile") == 0;
}

static int parse_args(int argc, char **argv, cli *c) {
    int i = 1;
    size_t k;
    memset(c, 0, sizeof *c);
    c->backend = "auto";
    c->format = "tfconfig";
    c->task_id = -1;
    if (i < argc && argv[i][0] != '-') c->backend = argv[i++];
    if (!find_backend(c->backend)) return usage_error("unknown backend \"%s\"", c->backend);
    for (; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            usage(stdout);
            exit(0);
        } else if (strcmp(a, "--version") == 0) {
            printf("cluster-resolve %s\n", cres_version_string());
            exit(0);
        } else if (strcmp(a, "--verbose") == 0) {
            c->verbose = 1;
        } else if (strcmp(a, "--exec") == 0) {
            if (v && strcmp(v, "--") == 0) i++;
            if (i + 1 >= argc) return usage_error("%s needs a command", a);
            c->exec_argv = argv + i + 1;
            break;
        } else if (in_list(flag_options, a)) {
            if (!backend_takes(find_backend(c->backend), a))
                return usage_error("%s does not apply to this backend", a);
            if (c->opts_count == sizeof c->opts / sizeof c->opts[0])
                return usage_error("too many %s options", a);
            c->opts[c->opts_count].name = a;
            c->opts[c->opts_count++].value = "1";
        } else if (!takes_value(a)) {
            return usage_error("unknown option %s", a);
        } else if (!v) {
            return usage_error("%s needs a value", a);
        } else if (strcmp(a, "--format") == 0) {
            for (k = 0; formats[k] && strcmp(formats[k], v) != 0; k++) {}
            if (!formats[k]) return usage_error("unknown format \"%s\"", v);
            c->format = v;
            i++;
        } else if (strcmp(a, "--task-type") == 0) {
            c->task_type = v;
            i++;
        } else if (strcmp(a, "--task-id") == 0) {
            if (!parse_int(v, 0, 2147483647, &c->task_id))
                return usage_error("--task-id %s is not a task index", v);
            i++;
        } else if (strcmp(a, "--rpc-layer") == 0) {
            c->rpc_layer = v;
            i++;
        } else if (strcmp(a, "--timeout-ms") == 0) {
            if (!parse_int(v, 1, 3600000, &c->timeout_ms))
                return usage_error("--timeout-ms %s is not 1 to 3600000", v);
            i++;
        } else if (strcmp(a, "--resolve-timeout-ms") == 0) {
            if (!parse_int(v, 1, 86400000, &c->resolve_timeout_ms))
                return usage_error("--resolve-timeout-ms %s is not 1 to 86400000", v);
            i++;
        } else if (strcmp(a, "--retries") == 0) {
            if (!parse_int(v, 0, 10, &c->retries))
                return usage_error("--retries %s is not 0 to 10", v);
            if (c->retries == 0) c->retries = -1;
            i++;
        } else if (strcmp(a, "--max-response-bytes") == 0) {
            int mib;
            if (!parse_int(v, 1, 1 << 30, &mib))
                return usage_error("--max-response-bytes %s is not 1 to 2^30", v);
            c->max_response_bytes = mib;
            i++;
        } else {
            if (!backend_takes(find_backend(c->backend), a))
                return usage_error("%s does not apply to this backend", a);
            if (c->opts_count == sizeof c->opts / sizeof c->opts[0])
                return usage_error("too many %s options", a);
            c->opts[c->opts_count].name = a;
            c->opts[c->opts_count++].value = v;
            i++;
        }
    }
    if (c->task_id >= 0 && !c->task_type)
        return usage_error("%s needs --task-type too", "--task-id");
    if (c->exec_argv && strcmp(c->format, "tfconfig") != 0 && strcmp(c->format, "torchrun") != 0 &&
        strcmp(c->format, "torchrun-node") != 0 && strcmp(c->format, "jax") != 0)
        return usage_error("--exec needs --format tfconfig, torchrun, torchrun-node or jax, not %s",
                           c->format);
    return 0;
}

/* ---- output ------------------------------------------------------------------------ */

static int exit_code(cres_result r) {
    switch (r) {
    case CRES_OK: return 0;
    case CRES_ERR_INVALID_ARGUMENT: case CRES_ERR_ENVIRONMENT: case CRES_ERR_INVALID_JSON:
    case CRES_ERR_NOT_FOUND: case CRES_ERR_CONFLICT: case CRES_ERR_LIMIT: case CRES_ERR_UNSUPPORTED:
    case CRES_ERR_NO_TRANSPORT: case CRES_ERR_INCOMPLETE:
        return 3;
    case CRES_ERR_TRANSPORT: case CRES_ERR_TIMEOUT: case CRES_ERR_HTTP_STATUS:
    case CRES_ERR_UNEXPECTED_RESPONSE:
        return 4;
    case CRES_ERR_NOT_READY: return 5;
    default: return 1;
    }
}

static int fail(const cres_error *err) {
    fprintf(stderr, "cluster-resolve: %s\n",
            err->message[0] ? err->message : cres_result_string(err->result));
    return exit_code(err->result);
}

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
} render_ctx;

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

static void text_printf(text *t, const char *name, const char *value) {
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

/* A launch info number; CRES_UNKNOWN ones are left out, for the reader's default. */
static void env_add_int(env_vars *v, const char *name, int value) {
    char tmp[24];
    if (value == CRES_UNKNOWN) return;
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
                 "and "
                 "--task-id",
                 x->format, own ? why : "did not find it");
    }
    return r;
}

static cres_result launcher_vars(const render_ctx *x, env_vars *v, cres_error *err) {
    cres_launch_info info;
    char port[16];
    cres_result r = launch_info(x, &info, err);
    if (r != CRES_OK) return r;
    memset(v, 0, sizeof *v);
    if (strcmp(x->format, "jax") == 0) {
        env_add(v, "JAX_COORDINATOR_ADDRESS", info.master_address);
        env_add_int(v, "JAX_NUM_PROCESSES", info.world_size);
        env_add_int(v, "JAX_PROCESS_ID", info.rank);
        return device_vars(x, v, err);
    }
    if (info.master_port <= 0) { /* none, or 0: "any port", which no worker can reach */
        err->result = CRES_ERR_INVALID_ARGUMENT;
        snprintf(err->message, sizeof err->message,
                 "--format %s: the master's address \"%.160s\" has no port to connect to",
                 x->format, info.master_address);
        return CRES_ERR_INVALID_ARGUMENT;
    }
    snprintf(port, sizeof port, "%d", info.master_port);
    if (strcmp(x->format, "torchrun-node") == 0) { /* torchrun's own flags, one per node */
        if (info.node_rank == CRES_UNKNOWN || info.num_nodes == CRES_UNKNOWN) {
            err->result = CRES_ERR_ENVIRONMENT;
            snprintf(err->message, sizeof err->message,
                     "--format torchrun-node: %s does not say which node this is or how many "
                     "there are",
                     cres_resolver_name(x->r));
            return CRES_ERR_ENVIRONMENT;
        }
        env_add_int(v, "PET_NNODES", info.num_nodes);
        env_add_int(v, "PET_NODE_RANK", info.node_rank);
        env_add(v, "PET_MASTER_ADDR", info.master_host);
        env_add(v, "PET_MASTER_PORT", port);
        return CRES_OK;
    }
    env_add(v, "MASTER_ADDR", info.master_host);
    env_add(v, "MASTER_PORT", port);
    env_add_int(v, "WORLD_SIZE", info.world_size);
    env_add_int(v, "RANK", info.rank);
    env_add_int(v, "LOCAL_RANK", info.local_rank);
    env_add_int(v, "LOCAL_WORLD_SIZE", info.local_world_size);
    env_add_int(v, "GROUP_RANK", info.node_rank);
    env_add_int(v, "GROUP_WORLD_SIZE", info.num_nodes);
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

static int is_launcher_format(const char *format) {
    return strcmp(format, "torchrun") == 0 || strcmp(format, "torchrun-node") == 0 ||
           strcmp(format, "jax") == 0;
}

static int run_exec(const cli *c, const render_ctx *x, cres_error *err) {
    cres_result r;
    if (strcmp(c->format, "tfconfig") == 0) {
        text t = {NULL, 0, 0};
        env_vars v;
        if ((r = render_simple(x, &t, err)) != CRES_OK) return fail(err);
        t.buf[t.len - 1] = '\0'; /* no newline in the variable */
        setenv("TF_CONFIG", t.buf, 1);
        free(t.buf);
        memset(&v, 0, sizeof v);
        if ((r = device_vars(x, &v, err)) != CRES_OK) return fail(err);
        if (v.count) setenv(v.names[0], v.store[0], 1);
    } else if (is_launcher_format(c->format)) {
        env_vars v;
        size_t i;
        if ((r = launcher_vars(x, &v, err)) != CRES_OK) return fail(err);
        for (i = 0; i < v.count; i++) setenv(v.names[i], v.store[i], 1);
    } else {
        return usage_error("--exec needs --format tfconfig, torchrun, torchrun-node or jax, not %s",
                           c->format);
    }
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
        for (i = 0; r == CRES_OK && i < v.count; i++) text_printf(&t, v.names[i], v.store[i]);
    } else if (strcmp(x->format, "launch") == 0) {
        r = render_launch(x, &t, err);
    } else {
        r = render_simple(x, &t, err);
    }
    if (r == CRES_OK && t.buf) fputs(t.buf, stdout);
    free(t.buf);
    if (r == CRES_ERR_OUT_OF_MEMORY && !err->message[0])
        snprintf(err->message, sizeof err->message, "out of memory");
    return r == CRES_OK ? 0 : fail(err);
}

/* --format master: cres_master resolves by itself, so one call is one resolve (HTTP backends
   would otherwise ask their API twice). */
static int print_master(cres_resolver *r, cres_error *err) {
    char small[2048], *buf = small;
    size_t len = 0;
    cres_result res = cres_master(r, small, sizeof small, &len, err);
    if (res == CRES_ERR_BUFFER_TOO_SMALL && (buf = (char *)malloc(len + 1)) != NULL)
        res = cres_master(r, buf, len + 1, &len, err);
    if (res == CRES_OK) printf("%s\n", buf);
    if (buf != small) free(buf);
    return res == CRES_OK ? 0 : fail(err);
}

static void log_stderr(void *user, cres_log_level level, const char *message) {
    static const char *const names[] = {"debug", "info", "warn", "error"};
    (void)user;
    fprintf(stderr, "cluster-resolve: %s: %s\n", names[level], message);
}

int main(int argc, char **argv) {
    cli c;
    cres_config cfg;
    cres_error err;
    cres_resolver *r;
    cres_cluster_spec *spec;
    render_ctx x;
    int rc;
    if ((rc = parse_args(argc, argv, &c)) != 0) return rc;
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
    if (c.verbose) cfg.log.fn = log_stderr;
    cfg.timeout_ms = c.timeout_ms;
    cfg.resolve_timeout_ms = c.resolve_timeout_ms;
    cfg.max_retries = c.retries;
    cfg.max_response_bytes = (size_t)c.max_response_bytes;
    if (find_backend(c.backend)->create(&c, &cfg, &r, &err) != CRES_OK) return fail(&err);
    if ((c.task_type && cres_set_task(r, c.task_type, c.task_id, &err) != CRES_OK) ||
        (c.rpc_layer && cres_set_rpc_layer(r, c.rpc_layer, &err) != CRES_OK)) {
        cres_resolver_free(r);
        return fail(&err);
    }
    if (strcmp(c.format, "master") == 0 && !c.exec_argv) {
        rc = print_master(r, &err);
        cres_resolver_free(r);
        return rc;
    }
    spec = NULL;
    if (needs_every_address(c.format) && cres_resolve(r, &spec, &err) != CRES_OK) {
        cres_resolver_free(r);
        if (err.result == CRES_ERR_INCOMPLETE) /* say what does work */
            snprintf(err.message + strlen(err.message), sizeof err.message - strlen(err.message),
                     "; --format %s needs every address: use launch, torchrun, torchrun-node, "
                     "jax or master",
                     c.format);
        return fail(&err);
    }
    x.r = r;
    x.spec = spec;
    x.format = c.format;
    rc = c.exec_argv ? run_exec(&c, &x, &err) : print_output(&x, &err);
    cres_spec_free(spec);
    cres_resolver_free(r);
    return rc;
}
