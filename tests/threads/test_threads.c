/* The manual's thread rules, exercised under ThreadSanitizer (tests/threads/run_threads.py
   builds this with -fsanitize=thread and starts the fake servers it talks to).

   THREADS threads run ROUNDS rounds at once. In each round a thread creates, resolves, asks
   and frees its own resolvers:
     - every environment backend (tfconfig, slurm, mpi, sagemaker, tpu "local", auto, local)
       and simple, each reading its own thread's variables through its own getenv hook;
     - kubernetes (HTTPS, bearer token, pages of two pods, its own label selector) and gce (its
       own instance group) through the bundled curl transport against the fake servers;
     - kubernetes again, from a kubeconfig (kubeconfig_resolver() says which file and user
       each thread has): the test CA as certificate-authority and the token, or an exec
       user whose plugin, a /bin/sh script, the default exec hook runs (posix_spawnp, pipes,
       waitpid), several threads at once; the plugin names on stderr the thread whose
       environment (the env_list hook) it got, which must be the thread that ran it;
     - a union of its own kubernetes and simple resolvers;
     - and, under a mutex, one union that every thread shares (a union and its children count
       as one object: the manual allows sharing it with a lock), first in each round.
   Each answer is checked against what that thread's input says it must be. Every callback
   (allocator, getenv, env_list, logger) checks that it runs on the thread that owns it; each
   thread's allocator must end with nothing live; no log line may carry the token.

   usage: test_threads ROUNDS FIXTURES_DIR [unlocked]
     unlocked: the threads share the union without the lock, which the manual forbids: the
     control that shows TSan is watching (it must report a data race).
     FIXTURES_DIR holds k8s_url, gce_url, ca.pem, token, and for each thread t k8s-<t>.txt and
     gce-<t>.txt: a selector or group name, the own pod or instance, its index, and the
     expected cluster JSON, a line each. And the kubeconfig files: kubeconfig.json, which
     every thread reads (cluster "fake": the Kubernetes fake at https://127.0.0.1:PORT,
     certificate-authority ca.pem; users "token-user" and "exec-user", whose plugin.sh gets
     its token file from exec.env; contexts "token" and "exec", in namespace default), and
     kubeconfig-<t>.json of the threads with t % 4 of 2 or 3 (context "thread-<t>" on
     cluster "fake": user "token-user" for 2, for 3 its own exec user "thread-<t>", whose
     plugin.sh is told to print a credential already expired). */
#define CLUSTER_RESOLVER_IMPLEMENTATION
#define CLUSTER_RESOLVER_USE_CURL
#include "../../cluster_resolver.h"

#include <curl/curl.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define THREADS 8
#define MAX_VARS 24

/* ---- per-thread state: variables, allocator, logger, failures ------------------------ */

typedef struct env_var {
    char name[40];
    char value[512];
} env_var;

typedef struct worker worker;

/* The variables one getenv hook sees (and its env_list hook lists). */
typedef struct env_set {
    worker *owner;
    env_var vars[MAX_VARS];
    int count;
    char listed[MAX_VARS][sizeof(env_var)]; /* "NAME=VALUE", a slot per variable */
} env_set;

struct worker {
    int id;
    pthread_t self;         /* set by the thread itself */
    env_set env;            /* every launcher's variables at once */
    env_set slurm_env;      /* a Slurm step's alone, for auto */
    long live_blocks;       /* the counting allocator's blocks not freed yet */
    long foreign_calls;     /* callbacks that ran on another thread */
    long log_lines;
    long plugin_runs;       /* the exec plugin's stderr lines "ran for thread <t>" logged */
    int token_logged;
    int failures;
    char first_failure[512];
    const char *dir;
    const char *token;
    int rounds;
};

static int on_own_thread(worker *w) {
    if (pthread_equal(pthread_self(), w->self)) return 1;
    w->foreign_calls++; /* racy by design if it ever happens: TSan reports it too */
    return 0;
}

static void *counting_alloc(void *user, size_t size) {
    worker *w = (worker *)user;
    void *p = malloc(size);
    on_own_thread(w);
    if (p) w->live_blocks++;
    return p;
}

static void counting_free(void *user, void *ptr) {
    worker *w = (worker *)user;
    on_own_thread(w);
    w->live_blocks--;
    free(ptr);
}

static const char *own_getenv(void *user, const char *name) {
    env_set *e = (env_set *)user;
    int i;
    on_own_thread(e->owner);
    for (i = 0; i < e->count; i++)
        if (strcmp(e->vars[i].name, name) == 0) return e->vars[i].value;
    return NULL;
}

/* The index-th variable as "NAME=VALUE" (the exec plugin's environment). */
static const char *own_env_at(void *user, size_t index) {
    env_set *e = (env_set *)user;
    on_own_thread(e->owner);
    if (index >= (size_t)e->count) return NULL;
    snprintf(e->listed[index], sizeof e->listed[index], "%s=%s", e->vars[index].name, e->vars[index].value);
    return e->listed[index];
}

static void failf(worker *w, const char *fmt, ...) {
    va_list ap;
    if (w->failures++) return;
    va_start(ap, fmt);
    vsnprintf(w->first_failure, sizeof w->first_failure, fmt, ap);
    va_end(ap);
}

static void own_log(void *user, cres_log_level level, const char *message) {
    worker *w = (worker *)user;
    const char *ran = strstr(message, "plugin ran for thread ");
    (void)level;
    on_own_thread(w);
    w->log_lines++;
    if (w->token && strstr(message, w->token)) w->token_logged = 1;
    if (ran) { /* the plugin's stderr: the thread whose variables it was given */
        w->plugin_runs++;
        if (atoi(ran + strlen("plugin ran for thread ")) != w->id)
            failf(w, "thread %d's exec plugin got another thread's environment: %s", w->id, message);
    }
}

static void set_var(env_set *e, const char *name, const char *fmt, ...) {
    va_list ap;
    env_var *v = &e->vars[e->count++];
    snprintf(v->name, sizeof v->name, "%s", name);
    va_start(ap, fmt);
    vsnprintf(v->value, sizeof v->value, fmt, ap);
    va_end(ap);
}

static void config_for(worker *w, env_set *env, cres_config *c) {
    memset(c, 0, sizeof *c);
    c->allocator.alloc = counting_alloc;
    c->allocator.free = counting_free;
    c->allocator.user = w;
    c->getenv.fn = own_getenv;
    c->getenv.user = env;
    c->env_list.fn = own_env_at;
    c->env_list.user = env;
    c->log.fn = own_log;
    c->log.user = w;
    c->timeout_ms = 20000;          /* TSan slows us, not the servers: generous bounds */
    c->resolve_timeout_ms = 60000;
}

/* ---- checking one resolver's answers ------------------------------------------------- */

/* The spec of cluster JSON written with single quotes, made with w's allocator. */
static cres_cluster_spec *spec_of(worker *w, const char *sq_json) {
    char json[2048];
    size_t i;
    cres_allocator a;
    cres_cluster_spec *s = NULL;
    cres_error err;
    for (i = 0; sq_json[i] && i + 1 < sizeof json; i++) json[i] = sq_json[i] == '\'' ? '"' : sq_json[i];
    json[i] = '\0';
    a.alloc = counting_alloc;
    a.free = counting_free;
    a.user = w;
    if (cres_spec_from_json(json, i, &a, &s, &err) != CRES_OK) failf(w, "bad expected spec %s: %s", json, err.message);
    return s;
}

/* Resolves r and checks the spec, the own task and the own master; frees r. */
static void check(worker *w, const char *what, cres_resolver *r, cres_cluster_spec *want, const char *task_type,
                  int task_id, const char *master) {
    cres_cluster_spec *got = NULL;
    cres_error err;
    char buf[1024], json[4096];
    if (!r || !want) {
        failf(w, "%s: no resolver or no expected spec", what);
    } else if (cres_resolve(r, &got, &err) != CRES_OK) {
        failf(w, "%s: resolve: %s", what, err.message);
    } else if (!cres_spec_equal(got, want)) {
        cres_spec_to_json(got, json, sizeof json, NULL, NULL);
        failf(w, "%s: thread %d got another cluster: %s", what, w->id, json);
    } else if (!cres_task_type(r) || strcmp(cres_task_type(r), task_type) != 0 || cres_task_id(r) != task_id) {
        failf(w, "%s: own task %s/%d, want %s/%d", what, cres_task_type(r) ? cres_task_type(r) : "(none)",
              cres_task_id(r), task_type, task_id);
    } else if (cres_master(r, buf, sizeof buf, NULL, &err) != CRES_OK) {
        failf(w, "%s: master: %s", what, err.message);
    } else if (strcmp(buf, master) != 0) {
        failf(w, "%s: master \"%s\", want \"%s\"", what, buf, master);
    }
    cres_spec_free(got);
    cres_spec_free(want);
    cres_resolver_free(r);
}

/* The resolver a create call made: r is its out pointer, read only after the call (a plain
   argument could be read before it: C leaves the order of arguments unspecified, and gcc
   reads them last to first). */
static cres_resolver *created(worker *w, const char *what, cres_result res, cres_resolver *const *r,
                              const cres_error *err) {
    if (res != CRES_OK) failf(w, "%s: create: %s", what, err->message);
    return *r;
}

/* ---- the environment backends -------------------------------------------------------- */

/* This thread's launcher variables: names and numbers differ from thread to thread, so an
   answer that crossed threads shows. */
static void set_slurm_step(worker *w, env_set *e) {
    int t = w->id;
    set_var(e, "SLURM_JOB_ID", "%d", 100 + t);
    set_var(e, "SLURM_PROCID", "%d", t % 4);
    set_var(e, "SLURM_STEP_NUM_TASKS", "4");
    set_var(e, "SLURM_STEP_NODELIST", "t%dn[1-2]", t);
    set_var(e, "SLURM_STEP_TASKS_PER_NODE", "2(x2)");
}

static void set_environment(worker *w) {
    env_set *e = &w->env;
    int t = w->id;
    e->owner = w->slurm_env.owner = w;
    set_var(e, "TF_CONFIG",
            "{\"cluster\": {\"chief\": [\"t%dc:2222\"], \"worker\": [\"t%dw0:2222\", \"t%dw1:2222\", \"t%dw2:2222\"]},"
            " \"task\": {\"type\": \"worker\", \"index\": %d}}", t, t, t, t, t % 3);
    set_slurm_step(w, e);
    set_slurm_step(w, &w->slurm_env);
    set_var(e, "OMPI_COMM_WORLD_RANK", "%d", t % 3);
    set_var(e, "OMPI_COMM_WORLD_SIZE", "3");
    set_var(e, "OMPI_COMM_WORLD_LOCAL_RANK", "%d", t % 3);
    set_var(e, "OMPI_COMM_WORLD_LOCAL_SIZE", "3");
    set_var(e, "PMIX_HOSTNAME", "t%dh", t);
    set_var(e, "SM_HOSTS", "[\"t%d-algo-10\", \"t%d-algo-2\", \"t%d-algo-1\"]", t, t, t);
    set_var(e, "SM_CURRENT_HOST", "t%d-algo-%d", t, t % 2 ? 10 : 2);
    set_var(e, "TPU_WORKER_HOSTNAMES", "t%dtpu0,t%dtpu1", t, t);
    set_var(e, "TPU_WORKER_ID", "%d", t % 2);
    set_var(e, "CRES_THREAD", "%d", t); /* what the exec plugin says it got */
    set_var(e, "PATH", "/usr/bin:/bin");   /* the plugin's, as a launcher would pass it */
    if (t % 4 >= 2) set_var(e, "KUBECONFIG", "%s/kubeconfig-%d.json:%s/kubeconfig.json", w->dir, t, w->dir);
}

static void environment_backends(worker *w, const cres_config *c) {
    char want[512], master[128];
    int t = w->id;
    cres_error err;
    cres_resolver *r = NULL;

    {
        cres_tfconfig_options o;
        memset(&o, 0, sizeof o);
        o.config = c;
        snprintf(want, sizeof want, "{'chief': ['t%dc:2222'], 'worker': ['t%dw0:2222', 't%dw1:2222', 't%dw2:2222']}", t,
                 t, t, t);
        snprintf(master, sizeof master, "t%dw%d:2222", t, t % 3);
        r = created(w, "tfconfig", cres_tfconfig_resolver_create(&o, &r, &err), &r, &err);
        check(w, "tfconfig", r, spec_of(w, want), "worker", t % 3, master);
    }
    snprintf(want, sizeof want, "{'worker': ['t%dn1:8888', 't%dn1:8889', 't%dn2:8888', 't%dn2:8889']}", t, t, t, t);
    snprintf(master, sizeof master, "grpc://t%dn%d:%d", t, t % 4 / 2 + 1, 8888 + t % 2);
    {
        cres_slurm_options o;
        memset(&o, 0, sizeof o);
        o.config = c;
        r = created(w, "slurm", cres_slurm_resolver_create(&o, &r, &err), &r, &err);
        check(w, "slurm", r, spec_of(w, want), "worker", t % 4, master);
    }
    {   /* auto in a Slurm step alone (TF_CONFIG and MPI variables would win) */
        cres_auto_options o;
        cres_config slurm_config;
        config_for(w, &w->slurm_env, &slurm_config);
        memset(&o, 0, sizeof o);
        o.config = &slurm_config;
        r = created(w, "auto", cres_auto_resolver_create(&o, &r, &err), &r, &err);
        if (r && strcmp(cres_resolver_name(r), "slurm") != 0)
            failf(w, "auto chose %s, want slurm", cres_resolver_name(r));
        check(w, "auto", r, spec_of(w, want), "worker", t % 4, master);
    }
    {
        cres_mpi_options o;
        memset(&o, 0, sizeof o);
        o.config = c;
        snprintf(want, sizeof want, "{'worker': ['t%dh:8888', 't%dh:8889', 't%dh:8890']}", t, t, t);
        snprintf(master, sizeof master, "grpc://t%dh:%d", t, 8888 + t % 3);
        r = created(w, "mpi", cres_mpi_resolver_create(&o, &r, &err), &r, &err);
        check(w, "mpi", r, spec_of(w, want), "worker", t % 3, master);
    }
    {
        cres_sagemaker_options o;
        memset(&o, 0, sizeof o);
        o.config = c;
        o.resource_config = NULL; /* /opt/ml's: absent here */
        snprintf(want, sizeof want, "{'worker': ['t%d-algo-1:2223', 't%d-algo-2:2223', 't%d-algo-10:2223']}", t, t, t);
        snprintf(master, sizeof master, "t%d-algo-%d:2223", t, t % 2 ? 10 : 2);
        r = created(w, "sagemaker", cres_sagemaker_resolver_create(&o, &r, &err), &r, &err);
        check(w, "sagemaker", r, spec_of(w, want), "worker", t % 2 ? 2 : 1, master);
    }
    {
        cres_tpu_options o;
        memset(&o, 0, sizeof o);
        o.config = c;
        o.tpu = "local";
        snprintf(want, sizeof want, "{'worker': ['t%dtpu0:8470', 't%dtpu1:8470']}", t, t);
        snprintf(master, sizeof master, "grpc://t%dtpu%d:8470", t, t % 2);
        r = created(w, "tpu", cres_tpu_resolver_create(&o, &r, &err), &r, &err);
        check(w, "tpu local", r, spec_of(w, want), "worker", t % 2, master);
    }
    {
        cres_local_options o;
        char host[32];
        memset(&o, 0, sizeof o);
        o.config = c;
        snprintf(host, sizeof host, "t%dlocal", t);
        o.host = host;
        o.port = 1000 + t;
        snprintf(want, sizeof want, "{'worker': ['t%dlocal:%d']}", t, 1000 + t);
        snprintf(master, sizeof master, "t%dlocal:%d", t, 1000 + t);
        r = created(w, "local", cres_local_resolver_create(&o, &r, &err), &r, &err);
        check(w, "local", r, spec_of(w, want), "worker", 0, master);
    }
}

/* ---- the HTTP backends through curl -------------------------------------------------- */

typedef struct http_case {
    char name[128];     /* the label selector or the instance group */
    char own[128];      /* the own pod's host name or instance name */
    int own_index;
    char spec[2048];    /* the expected cluster, JSON */
} http_case;

static int read_line(FILE *f, char *buf, size_t cap) {
    size_t n;
    if (!fgets(buf, (int)cap, f)) return 0;
    n = strlen(buf);
    while (n && (buf[n - 1] == '\n' || buf[n - 1] == '\r')) buf[--n] = '\0';
    return 1;
}

static int read_case(const char *dir, const char *kind, int t, http_case *hc) {
    char path[512], index[32];
    FILE *f;
    int ok;
    snprintf(path, sizeof path, "%s/%s-%d.txt", dir, kind, t);
    if (!(f = fopen(path, "r"))) return 0;
    ok = read_line(f, hc->name, sizeof hc->name) && read_line(f, hc->own, sizeof hc->own) &&
         read_line(f, index, sizeof index) && read_line(f, hc->spec, sizeof hc->spec);
    fclose(f);
    hc->own_index = atoi(index);
    return ok;
}

static char k8s_url[256], gce_url[256], ca_file[512], token_file[512];

static cres_resolver *k8s_resolver(worker *w, const cres_config *c, const http_case *hc) {
    cres_k8s_options o;
    cres_k8s_job_selector job;
    cres_resolver *r = NULL;
    cres_error err;
    job.job = "worker";
    job.selector = hc->name;
    memset(&o, 0, sizeof o);
    o.config = c;
    o.jobs = &job;
    o.jobs_count = 1;
    o.server = k8s_url;
    o.ca_file = ca_file;
    o.token_file = token_file;
    o.namespace_name = "default";
    o.page_size = 2; /* several pages: one connection carries several requests */
    o.hostname = hc->own;
    return created(w, "kubernetes", cres_k8s_resolver_create(&o, &r, &err), &r, &err);
}

static cres_resolver *gce_resolver(worker *w, const cres_config *c, const http_case *hc) {
    cres_gce_options o;
    cres_resolver *r = NULL;
    cres_error err;
    cres_config named = *c; /* odd threads name the bundled transport, the others leave it unset */
    char compute[300];
    snprintf(compute, sizeof compute, "%s/compute/v1", gce_url);
    if (w->id % 2) named.transport = cres_curl_transport();
    memset(&o, 0, sizeof o);
    o.config = &named;
    o.instance_group = hc->name;
    o.compute_url = compute;
    o.metadata_url = gce_url; /* project, zone and token from the fake's metadata server */
    o.instance_name = hc->own;
    return created(w, "gce", cres_gce_resolver_create(&o, &r, &err), &r, &err);
}

/* Thread t's kubeconfig: t % 4 == 0 the shared file's context "token", 1 its context "exec"
   (options.kubeconfig and options.context); 2 and 3 $KUBECONFIG (set_environment()): its own
   file, then the shared one, and its own file's current-context, whose user is the shared
   "token-user" (2) or its own exec user (3). So threads 1, 3, 5 and 7 run exec plugins:
   1 and 5 once per resolver (the credential has no expiry), 3 and 7 before every request
   (it comes back expired). */
static cres_resolver *kubeconfig_resolver(worker *w, const cres_config *c, const http_case *hc) {
    cres_k8s_options o;
    cres_k8s_job_selector job;
    cres_resolver *r = NULL;
    cres_error err;
    char shared[512];
    snprintf(shared, sizeof shared, "%s/kubeconfig.json", w->dir);
    job.job = "worker";
    job.selector = hc->name;
    memset(&o, 0, sizeof o);
    o.config = c;
    o.jobs = &job;
    o.jobs_count = 1;
    if (w->id % 4 < 2) {
        o.kubeconfig = shared;
        o.context = w->id % 4 ? "exec" : "token";
    }
    o.page_size = 2;
    o.hostname = hc->own;
    return created(w, "kubeconfig", cres_k8s_resolver_create(&o, &r, &err), &r, &err);
}

static void http_backends(worker *w, const cres_config *c, const http_case *k8s, const http_case *gce) {
    char master[256];
    cres_cluster_spec *want = spec_of(w, k8s->spec);
    const char *address = want ? cres_spec_task_address(want, "worker", k8s->own_index) : NULL;
    snprintf(master, sizeof master, "grpc://%s", address ? address : "?");
    check(w, "kubernetes", k8s_resolver(w, c, k8s), want, "worker", k8s->own_index, master);
    check(w, "kubeconfig", kubeconfig_resolver(w, c, k8s), spec_of(w, k8s->spec), "worker", k8s->own_index,
          master);

    want = spec_of(w, gce->spec);
    address = want ? cres_spec_task_address(want, "worker", gce->own_index) : NULL;
    snprintf(master, sizeof master, "grpc://%s", address ? address : "?");
    check(w, "gce", gce_resolver(w, c, gce), want, "worker", gce->own_index, master);
}

/* A union of this thread's kubernetes resolver and a simple one: the pods as job "worker",
   the simple spec's job "ps" beside it; own task from the first child. */
static void own_union(worker *w, const cres_config *c, const http_case *k8s) {
    cres_simple_options so;
    cres_union_options uo;
    cres_resolver *children[2] = {NULL, NULL}, *u = NULL;
    cres_cluster_spec *ps = NULL, *want;
    cres_error err;
    char json[2300], ps_json[64], master[256];
    const char *address;
    size_t n;
    snprintf(ps_json, sizeof ps_json, "{'ps': ['t%dps:2222']}", w->id);
    ps = spec_of(w, ps_json);
    memset(&so, 0, sizeof so);
    so.config = c;
    so.spec = ps;
    children[0] = k8s_resolver(w, c, k8s);
    children[1] = created(w, "simple", cres_simple_resolver_create(&so, &children[1], &err), &children[1], &err);
    cres_spec_free(ps);
    memset(&uo, 0, sizeof uo);
    uo.config = c;
    uo.resolvers = children;
    uo.resolvers_count = 2;
    uo.owns_resolvers = 1;
    if (!children[0] || !children[1]) {
        cres_resolver_free(children[0]);
        cres_resolver_free(children[1]);
        return;
    }
    u = created(w, "union", cres_union_resolver_create(&uo, &u, &err), &u, &err);
    n = strlen(k8s->spec); /* "{...}" + ", 'ps': [...]" */
    snprintf(json, sizeof json, "%.*s, 'ps': ['t%dps:2222']}", (int)(n - 1), k8s->spec, w->id);
    want = spec_of(w, json);
    address = want ? cres_spec_task_address(want, "worker", k8s->own_index) : NULL;
    snprintf(master, sizeof master, "grpc://%s", address ? address : "?");
    check(w, "own union", u, want, "worker", k8s->own_index, master);
}

/* ---- one union shared by every thread, under a lock ---------------------------------- */

static pthread_mutex_t shared_lock = PTHREAD_MUTEX_INITIALIZER;
static int shared_locked = 1;
static cres_resolver *shared_union;
static long shared_uses;
/* Set by main once every thread runs: the threads wait for it, then use the shared union
   first in each round, so their first uses come together, with nothing in between that
   orders them (the rest of a round does: OpenSSL's locks, in curl), and each thread's
   history still holds its own. Without it TSan missed the control now and then. */
static int all_started;

static cres_resolver *make_shared_union(void) {
    static const char tf[] = "{\"cluster\": {\"worker\": [\"sw0:2222\", \"sw1:2222\"]},"
                             " \"task\": {\"type\": \"worker\", \"index\": 1}, \"rpc_layer\": \"grpc\"}";
    cres_tfconfig_options to;
    cres_simple_options so;
    cres_union_options uo;
    cres_resolver *children[2] = {NULL, NULL}, *u = NULL;
    cres_cluster_spec *ps = NULL;
    cres_error err;
    memset(&to, 0, sizeof to);
    to.json = tf;
    if (cres_spec_create(NULL, &ps, &err) != CRES_OK || cres_spec_add_task(ps, "ps", 0, "sps:2222", &err) != CRES_OK)
        return NULL;
    memset(&so, 0, sizeof so);
    so.spec = ps;
    if (cres_tfconfig_resolver_create(&to, &children[0], &err) != CRES_OK ||
        cres_simple_resolver_create(&so, &children[1], &err) != CRES_OK) {
        fprintf(stderr, "shared union: %s\n", err.message);
        cres_resolver_free(children[0]);
        cres_spec_free(ps);
        return NULL;
    }
    cres_spec_free(ps);
    memset(&uo, 0, sizeof uo);
    uo.resolvers = children;
    uo.resolvers_count = 2;
    uo.owns_resolvers = 1;
    if (cres_union_resolver_create(&uo, &u, &err) != CRES_OK) fprintf(stderr, "shared union: %s\n", err.message);
    return u;
}

static void use_shared_union(worker *w) {
    cres_cluster_spec *got = NULL;
    cres_error err;
    char buf[256], json[512];
    if (shared_locked) pthread_mutex_lock(&shared_lock);
    /* counted atomically: the control must race in the library, not on this counter */
    __atomic_fetch_add(&shared_uses, 1, __ATOMIC_RELAXED);
    if (cres_resolve(shared_union, &got, &err) != CRES_OK) {
        failf(w, "shared union: %s", err.message);
    } else if (cres_spec_to_json(got, json, sizeof json, NULL, &err) != CRES_OK ||
               strcmp(json, "{\"ps\": [\"sps:2222\"], \"worker\": [\"sw0:2222\", \"sw1:2222\"]}") != 0) {
        failf(w, "shared union: got %s", json);
    } else if (cres_master(shared_union, buf, sizeof buf, NULL, &err) != CRES_OK ||
               strcmp(buf, "grpc://sw1:2222") != 0) {
        failf(w, "shared union: master %s (%s)", buf, err.message);
    }
    cres_spec_free(got);
    if (shared_locked) pthread_mutex_unlock(&shared_lock);
}

/* ---- the threads --------------------------------------------------------------------- */

static void *run_worker(void *arg) {
    worker *w = (worker *)arg;
    cres_config c;
    http_case k8s, gce;
    int round;
    w->self = pthread_self();
    set_environment(w);
    config_for(w, &w->env, &c);
    if (!read_case(w->dir, "k8s", w->id, &k8s) || !read_case(w->dir, "gce", w->id, &gce)) {
        failf(w, "cannot read the fixtures of thread %d in %s", w->id, w->dir);
        return NULL;
    }
    while (!__atomic_load_n(&all_started, __ATOMIC_ACQUIRE)) sched_yield();
    for (round = 0; round < w->rounds; round++) {
        use_shared_union(w);
        environment_backends(w, &c);
        http_backends(w, &c, &k8s, &gce);
        own_union(w, &c, &k8s);
    }
    return NULL;
}

static int read_file_line(const char *dir, const char *name, char *buf, size_t cap) {
    char path[512];
    FILE *f;
    int ok;
    snprintf(path, sizeof path, "%s/%s", dir, name);
    if (!(f = fopen(path, "r"))) return 0;
    ok = read_line(f, buf, cap);
    fclose(f);
    return ok;
}

int main(int argc, char **argv) {
    static worker workers[THREADS];
    pthread_t threads[THREADS];
    char token[256];
    int t, failed = 0;
    if (argc < 3 || argc > 4 || atoi(argv[1]) < 1 || (argc == 4 && strcmp(argv[3], "unlocked") != 0)) {
        fprintf(stderr, "usage: test_threads ROUNDS FIXTURES_DIR [unlocked]\n");
        return 2;
    }
    shared_locked = argc == 3;
    snprintf(ca_file, sizeof ca_file, "%s/ca.pem", argv[2]);
    snprintf(token_file, sizeof token_file, "%s/token", argv[2]);
    if (!read_file_line(argv[2], "k8s_url", k8s_url, sizeof k8s_url) ||
        !read_file_line(argv[2], "gce_url", gce_url, sizeof gce_url) ||
        !read_file_line(argv[2], "token", token, sizeof token)) {
        fprintf(stderr, "test_threads: cannot read %s/{k8s_url,gce_url,token}\n", argv[2]);
        return 2;
    }
    curl_global_init(CURL_GLOBAL_DEFAULT); /* once, before any thread: as the manual says */
    if (!(shared_union = make_shared_union())) return 1;
    for (t = 0; t < THREADS; t++) {
        workers[t].id = t;
        workers[t].dir = argv[2];
        workers[t].token = token;
        workers[t].rounds = atoi(argv[1]);
        if (pthread_create(&threads[t], NULL, run_worker, &workers[t]) != 0) {
            fprintf(stderr, "test_threads: pthread_create failed\n");
            return 1;
        }
    }
    __atomic_store_n(&all_started, 1, __ATOMIC_RELEASE);
    for (t = 0; t < THREADS; t++) pthread_join(threads[t], NULL);
    for (t = 0; t < THREADS; t++) {
        worker *w = &workers[t];
        if (w->live_blocks) failf(w, "%ld blocks of this thread's allocator were never freed", w->live_blocks);
        if (w->foreign_calls) failf(w, "%ld callbacks ran on another thread", w->foreign_calls);
        if (w->token_logged) failf(w, "the token was logged");
        if (t % 4 == 1 && w->plugin_runs != w->rounds) /* its credential is kept */
            failf(w, "the exec plugin ran %ld times, want once per round (%d)", w->plugin_runs, w->rounds);
        if (t % 4 == 3 && w->plugin_runs < 2L * w->rounds) /* expired: before every request */
            failf(w, "the exec plugin ran %ld times, want at least twice per round (%d)", w->plugin_runs,
                  w->rounds);
        if (t % 2 == 0 && w->plugin_runs) failf(w, "an exec plugin ran for a token user");
        if (w->failures) {
            failed = 1;
            printf("FAIL thread %d: %d failed checks; first: %s\n", t, w->failures, w->first_failure);
        } else {
            printf("ok   thread %d: %d rounds of 12 resolvers, %ld log lines, %ld exec plugin runs\n", t, w->rounds,
                   w->log_lines, w->plugin_runs);
        }
    }
    if (shared_uses != (long)THREADS * atoi(argv[1])) {
        printf("FAIL the shared union was used %ld times, want %d\n", shared_uses, THREADS * atoi(argv[1]));
        failed = 1;
    }
    cres_resolver_free(shared_union);
    curl_global_cleanup();
    return failed;
}
