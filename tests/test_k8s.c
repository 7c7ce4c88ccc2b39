/* Unit tests for the Kubernetes resolver of cluster_resolver.h and the HTTP layer under it
   (retries, backoff, Retry-After, size cap). Everything goes through an in-process fake
   transport (config.transport) that serves scripted answers in order and records every
   request, and a config.sleep hook that records the delays asked for instead of sleeping.
   The environment is read only through the config.getenv hook: no setenv here.

   Cases named "TF Kn" mirror TensorFlow's kubernetes_cluster_resolver_test.py as listed in
   reference/tf-resolvers.md section 4.5. TF's resolver lists all namespaces and uses the
   node's IP (status.hostIP); those tests set options.all_namespaces and
   options.address = CRES_K8S_HOST_IP to reproduce that. Where we differ from TF on purpose
   (pod IP by default, own namespace by default, natural name order over all of a job's
   pods, de-duplication, terminating pods left out) the comment says so.

   Build (without CLUSTER_RESOLVER_USE_CURL, so that "no transport" can be tested):
   gcc -std=c99 -O2 -Wall -Wextra -Wpedantic -Werror tests/test_k8s.c tests/impl.c -lcmocka */

#define _XOPEN_SOURCE 700 /* mkdtemp, unlink, rmdir, access */
#include "test_util.h"

#include <unistd.h>
#include <time.h>

#define N(a) (sizeof(a) / sizeof *(a))
#define SERVER "https://k8s.test:6443"
#define NS_URL SERVER "/api/v1/namespaces/default/pods"
#define SA_DIR "/var/run/secrets/kubernetes.io/serviceaccount/"

/* ---------------------------------------------------------------------------------------
   A growing text buffer, for building pod lists. */

typedef struct text {
    char *s;
    size_t len, cap;
} text;

static void text_add(text *t, const char *fmt, ...) {
    va_list ap;
    int n;
    for (;;) {
        size_t room = t->cap - t->len;
        va_start(ap, fmt);
        n = vsnprintf(t->s ? t->s + t->len : NULL, t->s ? room : 0, fmt, ap);
        va_end(ap);
        assert_true(n >= 0);
        if (t->s && (size_t)n < room) break;
        t->cap = (t->cap + (size_t)n + 1) * 2;
        t->s = (char *)realloc(t->s, t->cap);
        assert_non_null(t->s);
    }
    t->len += (size_t)n;
}

/* ---------------------------------------------------------------------------------------
   Realistic pods: what an API server returns, with the fields that could fool a careless
   reader (managedFields naming "f:podIP", annotations holding JSON text with other "name",
   "phase" and "podIP" keys, conditions with their own "status"). */

enum { INDEX_BOTH, INDEX_ANNOTATION_ONLY, INDEX_LABEL_ONLY };

typedef struct pod {
    const char *name;
    const char *ip;        /* status.podIP; NULL = absent */
    const char *host_ip;   /* status.hostIP; NULL = absent */
    const char *phase;     /* NULL = "Running"; "" = no phase field */
    const char *ns;        /* NULL = "default" */
    const char *hostname;  /* spec.hostname; NULL = absent */
    const char *subdomain; /* spec.subdomain; NULL = absent */
    const char *index;     /* Indexed Job completion index; NULL = none */
    int index_where;       /* INDEX_BOTH, _ANNOTATION_ONLY, _LABEL_ONLY */
    int terminating;       /* metadata.deletionTimestamp set */
    const char *jobset;    /* label and annotation jobset.sigs.k8s.io/jobset-name; NULL = none */
    const char *global;    /* jobset.sigs.k8s.io/job-global-index; NULL = absent */
    int global_where;      /* as index_where */
} pod;

#define INDEX_KEY "batch.kubernetes.io/job-completion-index"
#define JOBSET_KEY "jobset.sigs.k8s.io/jobset-name"
#define GLOBAL_KEY "jobset.sigs.k8s.io/job-global-index"

/* The keys the JobSet controller adds to labels and annotations alike (kubernetes-sigs/jobset,
   pkg/controllers/jobset_controller.go, labelAndAnnotateObject), with fixed values here but
   the name and the global index; where = INDEX_LABEL_ONLY writes the labels' share. */
static void jobset_keys(text *t, const pod *p, int where) {
    if (!p->jobset) return;
    text_add(t, ", \"" JOBSET_KEY "\": \"%s\", \"jobset.sigs.k8s.io/replicatedjob-name\": \"workers\", "
                "\"jobset.sigs.k8s.io/replicatedjob-replicas\": \"2\", \"jobset.sigs.k8s.io/global-replicas\": \"4\", "
                "\"jobset.sigs.k8s.io/job-index\": \"1\", \"jobset.sigs.k8s.io/restart-attempt\": \"0\", "
                "\"jobset.sigs.k8s.io/job-key\": \"5d4c6e2f0bd1a5fbd2c1e4e1b8d0c2d6a9f3e7b1\"",
             p->jobset);
    if (p->global && p->global_where != (where == INDEX_LABEL_ONLY ? INDEX_ANNOTATION_ONLY : INDEX_LABEL_ONLY))
        text_add(t, ", \"" GLOBAL_KEY "\": \"%s\"", p->global);
}

static void pod_metadata(text *t, const pod *p) {
    const char *ns = p->ns ? p->ns : "default";
    text_add(t, "\"metadata\": {\"name\": \"%s\", \"generateName\": \"trainer-\", \"namespace\": \"%s\", "
                "\"uid\": \"4662c9eb-09bd-4343-828e-386a6fd739a0\", \"resourceVersion\": \"48836087\", "
                "\"creationTimestamp\": \"2026-01-15T09:30:00Z\", ",
             p->name, ns);
    if (p->terminating)
        text_add(t, "\"deletionTimestamp\": \"2026-01-15T09:46:01Z\", \"deletionGracePeriodSeconds\": 30, ");
    text_add(t, "\"labels\": {\"controller-uid\": \"a162bcbf-57fe-4f77-903f-4d523dfefde1\", \"job-name\": \"trainer\"");
    if (p->index && p->index_where != INDEX_ANNOTATION_ONLY) text_add(t, ", \"" INDEX_KEY "\": \"%s\"", p->index);
    jobset_keys(t, p, INDEX_LABEL_ONLY);
    text_add(t, "}, \"annotations\": {\"kubectl.kubernetes.io/default-container\": \"tensorflow\"");
    jobset_keys(t, p, INDEX_ANNOTATION_ONLY);
    text_add(t, ", ");
    if (p->index && p->index_where != INDEX_LABEL_ONLY) text_add(t, "\"" INDEX_KEY "\": \"%s\", ", p->index);
    text_add(t,
             "\"k8s.v1.cni.cncf.io/network-status\": \"[\\n    {\\n        \\\"name\\\": \\\"k8s-pod-network\\\",\\n"
             "        \\\"ips\\\": [\\\"%s\\\"],\\n        \\\"default\\\": true\\n    }\\n]\", "
             "\"kubectl.kubernetes.io/last-applied-configuration\": \"{\\\"metadata\\\": {\\\"name\\\": \\\"decoy\\\", "
             "\\\"namespace\\\": \\\"decoy\\\"}, \\\"status\\\": {\\\"phase\\\": \\\"Failed\\\", "
             "\\\"podIP\\\": \\\"192.0.2.66\\\"}}\"}, ",
             p->ip ? p->ip : "");
    text_add(t, "\"ownerReferences\": [{\"apiVersion\": \"batch/v1\", \"kind\": \"Job\", \"name\": \"trainer\", "
                "\"uid\": \"a162bcbf-57fe-4f77-903f-4d523dfefde1\", \"controller\": true, \"blockOwnerDeletion\": true}], "
                "\"finalizers\": [\"batch.kubernetes.io/job-tracking\"], "
                "\"managedFields\": [{\"manager\": \"kube-controller-manager\", \"operation\": \"Update\", "
                "\"apiVersion\": \"v1\", \"time\": \"2026-01-15T09:30:00Z\", \"fieldsType\": \"FieldsV1\", "
                "\"fieldsV1\": {\"f:metadata\": {\"f:labels\": {\".\": {}, \"f:job-name\": {}}, \"f:name\": {}}}}, "
                "{\"manager\": \"kubelet\", \"operation\": \"Update\", \"apiVersion\": \"v1\", "
                "\"time\": \"2026-01-15T09:30:15Z\", \"fieldsType\": \"FieldsV1\", \"fieldsV1\": {\"f:status\": "
                "{\"f:conditions\": {\"k:{\\\"type\\\":\\\"Ready\\\"}\": {\".\": {}, \"f:status\": {}, \"f:type\": {}}}, "
                "\"f:phase\": {}, \"f:podIP\": {}, \"f:podIPs\": {\".\": {}, \"k:{\\\"ip\\\":\\\"%s\\\"}\": "
                "{\".\": {}, \"f:ip\": {}}}}}, \"subresource\": \"status\"}]}",
             p->ip ? p->ip : "");
}

static void pod_spec(text *t, const pod *p) {
    text_add(t, "\"spec\": {\"volumes\": [{\"name\": \"kube-api-access-lqjmn\", \"projected\": {\"sources\": "
                "[{\"serviceAccountToken\": {\"expirationSeconds\": 3607, \"path\": \"token\"}}], \"defaultMode\": 420}}], "
                "\"containers\": [{\"name\": \"tensorflow\", \"image\": \"tensorflow/tensorflow:2.15.0\", "
                "\"ports\": [{\"name\": \"grpc\", \"containerPort\": 8470, \"protocol\": \"TCP\"}], "
                "\"env\": [{\"name\": \"POD_IP\", \"valueFrom\": {\"fieldRef\": {\"apiVersion\": \"v1\", "
                "\"fieldPath\": \"status.podIP\"}}}], \"resources\": {\"limits\": {\"nvidia.com/gpu\": \"1\"}}}], "
                "\"restartPolicy\": \"Never\", \"nodeName\": \"gpu-pool-1-node-3\", \"priority\": 0");
    if (p->hostname) text_add(t, ", \"hostname\": \"%s\"", p->hostname);
    if (p->subdomain) text_add(t, ", \"subdomain\": \"%s\"", p->subdomain);
    text_add(t, ", \"tolerations\": [{\"key\": \"node.kubernetes.io/not-ready\", \"operator\": \"Exists\", "
                "\"effect\": \"NoExecute\", \"tolerationSeconds\": 300}]}");
}

static void pod_status(text *t, const pod *p) {
    const char *phase = p->phase ? p->phase : "Running";
    text_add(t, "\"status\": {\"conditions\": [{\"type\": \"Initialized\", \"status\": \"True\", "
                "\"lastProbeTime\": null, \"lastTransitionTime\": \"2026-01-15T09:30:01Z\"}, "
                "{\"type\": \"Ready\", \"status\": \"True\", \"lastProbeTime\": null, "
                "\"lastTransitionTime\": \"2026-01-15T09:30:15Z\"}]");
    if (*phase) text_add(t, ", \"phase\": \"%s\"", phase);
    if (p->host_ip) text_add(t, ", \"hostIP\": \"%s\", \"hostIPs\": [{\"ip\": \"%s\"}]", p->host_ip, p->host_ip);
    if (p->ip) text_add(t, ", \"podIP\": \"%s\", \"podIPs\": [{\"ip\": \"%s\"}]", p->ip, p->ip);
    text_add(t, ", \"startTime\": \"2026-01-15T09:30:01Z\", \"containerStatuses\": [{\"name\": \"tensorflow\", "
                "\"state\": {\"running\": {\"startedAt\": \"2026-01-15T09:30:14Z\"}}, \"lastState\": {}, "
                "\"ready\": true, \"restartCount\": 0, \"image\": \"docker.io/tensorflow/tensorflow:2.15.0\", "
                "\"containerID\": \"containerd://6f1c\", \"started\": true}], \"qosClass\": \"Guaranteed\"}");
}

/* A PodList page; `next` is metadata.continue (NULL = last page). Caller frees. */
static char *pod_list(const pod *pods, size_t n, const char *next) {
    text t = {NULL, 0, 0};
    size_t i;
    text_add(&t, "{\"kind\": \"PodList\", \"apiVersion\": \"v1\", \"metadata\": {\"resourceVersion\": \"48836087\"");
    if (next) text_add(&t, ", \"continue\": \"%s\", \"remainingItemCount\": 7", next);
    text_add(&t, "}, \"items\": [");
    for (i = 0; i < n; i++) {
        text_add(&t, "%s{", i ? ", " : "");
        pod_metadata(&t, &pods[i]);
        text_add(&t, ", ");
        pod_spec(&t, &pods[i]);
        text_add(&t, ", ");
        pod_status(&t, &pods[i]);
        text_add(&t, "}");
    }
    text_add(&t, "]}\n");
    return t.s;
}

/* ---------------------------------------------------------------------------------------
   The fake transport, sleep, getenv and log hooks: all state lives in C, reset per test. */

#define MAX_REPLIES 32
#define MAX_HEADERS 8

typedef struct reply {
    int status;
    char *body;         /* owned; NULL = the transport sends no body */
    int retry_after_s;
    cres_result fail;   /* not CRES_OK: perform() fails with this, no answer */
    int silent;         /* ... and sets no message */
} reply;

typedef struct request {
    char method[8];
    char url[2048];
    char headers[MAX_HEADERS][512]; /* "Name: value" */
    size_t headers_count;
    char ca_file[256];
    int has_ca_file;
    int timeout_ms;
    size_t max_response_bytes;
    int has_body;
} request;

typedef struct test_ctx {
    cres_config config;
    reply replies[MAX_REPLIES];
    size_t replies_count, next_reply;
    request requests[MAX_REPLIES];
    size_t requests_count;
    int overrun; /* requests past the script */
    int sleeps[64];
    size_t sleeps_count;
    const char *env_names[8], *env_values[8];
    char logs[16384];
    int session_marker, sessions_opened, sessions_closed, session_mismatch;
    int endless;         /* past the script: pages that always continue, not recorded */
    long endless_served;
    int endless_delay_ms; /* each endless page takes this long: a slow drip */
    int early_timeout;    /* a silent server whose transport times out a moment before our clock */
    cres_resolver *r;
} test_ctx;

static test_ctx C;

static void *fake_alloc(const cres_allocator *a, size_t n) {
    return a->alloc ? a->alloc(a->user, n) : malloc(n);
}

static void record(const cres_http_request *req) {
    request *q = &C.requests[C.requests_count++];
    size_t i;
    snprintf(q->method, sizeof q->method, "%s", req->method);
    snprintf(q->url, sizeof q->url, "%s", req->url);
    q->headers_count = req->headers_count < MAX_HEADERS ? req->headers_count : MAX_HEADERS;
    for (i = 0; i < q->headers_count; i++)
        snprintf(q->headers[i], sizeof q->headers[i], "%s: %s", req->headers[i].name, req->headers[i].value);
    q->has_ca_file = req->ca_file != NULL;
    snprintf(q->ca_file, sizeof q->ca_file, "%s", req->ca_file ? req->ca_file : "");
    q->timeout_ms = req->timeout_ms;
    q->max_response_bytes = req->max_response_bytes;
    q->has_body = req->body != NULL;
}

static cres_result fake_perform(void *user, const cres_http_request *req, cres_http_response *resp,
                                const cres_allocator *alloc, cres_error *err) {
    test_ctx *c = (test_ctx *)user;
    const reply *rp;
    if (c->early_timeout) {
        if (err) snprintf(err->message, sizeof err->message, "fake: no answer within %d ms", req->timeout_ms);
        return CRES_ERR_TIMEOUT;
    }
    if (c->endless && c->next_reply >= c->replies_count) { /* a server whose list never ends */
        char body[96];
        int n = snprintf(body, sizeof body, "{\"items\": [], \"metadata\": {\"continue\": \"t%ld\"}}", ++c->endless_served);
        if (c->endless_delay_ms) { /* real time: the resolve's bound reads the clock */
            struct timespec ts;
            ts.tv_sec = 0;
            ts.tv_nsec = c->endless_delay_ms * 1000000L;
            nanosleep(&ts, NULL);
        }
        resp->status = 200;
        resp->body = (char *)fake_alloc(alloc, (size_t)n + 1);
        if (!resp->body) return CRES_ERR_OUT_OF_MEMORY;
        memcpy(resp->body, body, (size_t)n + 1);
        resp->body_len = (size_t)n;
        return CRES_OK;
    }
    if (c->requests_count >= MAX_REPLIES || c->next_reply >= c->replies_count) {
        c->overrun++;
        if (err) snprintf(err->message, sizeof err->message, "fake: no scripted reply left");
        return CRES_ERR_TRANSPORT;
    }
    record(req);
    if (req->session && !*req->session) {
        *req->session = &c->session_marker;
        c->sessions_opened++;
    }
    rp = &c->replies[c->next_reply++];
    if (rp->fail != CRES_OK) {
        if (err && !rp->silent) snprintf(err->message, sizeof err->message, "fake: connection refused");
        return rp->fail;
    }
    resp->status = rp->status;
    resp->retry_after_s = rp->retry_after_s;
    if (rp->body) {
        size_t n = strlen(rp->body);
        resp->body = (char *)fake_alloc(alloc, n + 1);
        if (!resp->body) return CRES_ERR_OUT_OF_MEMORY;
        memcpy(resp->body, rp->body, n + 1);
        resp->body_len = n;
    }
    return CRES_OK;
}

static void fake_close_session(void *user, void *session) {
    test_ctx *c = (test_ctx *)user;
    c->sessions_closed++;
    if (session != &c->session_marker) c->session_mismatch++;
}

static void fake_sleep(void *user, int ms) {
    test_ctx *c = (test_ctx *)user;
    if (c->sleeps_count < N(c->sleeps)) c->sleeps[c->sleeps_count] = ms;
    c->sleeps_count++;
}

static const char *fake_getenv(void *user, const char *name) {
    test_ctx *c = (test_ctx *)user;
    size_t i;
    for (i = 0; i < N(c->env_names); i++)
        if (c->env_names[i] && strcmp(c->env_names[i], name) == 0) return c->env_values[i];
    return NULL;
}

static void fake_log(void *user, cres_log_level level, const char *message) {
    test_ctx *c = (test_ctx *)user;
    size_t len = strlen(c->logs);
    (void)level;
    snprintf(c->logs + len, sizeof c->logs - len, "%s\n", message);
}

static void env_set(const char *name, const char *value) {
    size_t i;
    for (i = 0; i < N(C.env_names) && C.env_names[i]; i++) {}
    assert_true(i < N(C.env_names));
    C.env_names[i] = name;
    C.env_values[i] = value;
}

/* Scripting: answers are served in the order they are added. */
static reply *script_next(void) {
    reply *rp;
    assert_true(C.replies_count < MAX_REPLIES);
    rp = &C.replies[C.replies_count++];
    memset(rp, 0, sizeof *rp);
    return rp;
}

static void script(int status, const char *body) {
    reply *rp = script_next();
    rp->status = status;
    if (body) {
        rp->body = strdup(body);
        assert_non_null(rp->body);
    }
}

static void script_retry_after(int status, int seconds) {
    reply *rp = script_next();
    rp->status = status;
    rp->retry_after_s = seconds;
}

static void script_fail(cres_result result) {
    script_next()->fail = result;
}

static void script_page(const pod *pods, size_t n, const char *next) {
    script_next()->status = 200;
    C.replies[C.replies_count - 1].body = pod_list(pods, n, next);
}

static int setup(void **state) {
    (void)state;
    memset(&C, 0, sizeof C);
    C.config.transport.perform = fake_perform;
    C.config.transport.close_session = fake_close_session;
    C.config.transport.user = &C;
    C.config.sleep.fn = fake_sleep;
    C.config.sleep.user = &C;
    C.config.getenv.fn = fake_getenv;
    C.config.getenv.user = &C;
    C.config.log.fn = fake_log;
    C.config.log.user = &C;
    return 0;
}

static int temp_remove_all(void);

static int teardown(void **state) {
    size_t i;
    (void)state;
    for (i = 0; i < C.replies_count; i++) free(C.replies[i].body);
    cres_resolver_free(C.r);
    C.r = NULL;
    return temp_remove_all();
}

/* ---------------------------------------------------------------------------------------
   Temporary files: made in a mkdtemp directory on first use and removed, directory and all,
   by the teardown of the test that made them. */

static char temp_dir[64];
static char temp_files[8][128];
static size_t temp_files_count;

/* Writes `content` to the file `name` in the temporary directory; returns its path, valid
   until the end of the test. */
static const char *temp_file(const char *name, const char *content) {
    char path[128];
    FILE *f;
    size_t i;
    if (!temp_dir[0]) {
        snprintf(temp_dir, sizeof temp_dir, "/tmp/test_k8s.XXXXXX");
        assert_non_null(mkdtemp(temp_dir));
    }
    snprintf(path, sizeof path, "%s/%s", temp_dir, name);
    f = fopen(path, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(content, 1, strlen(content), f), strlen(content));
    assert_int_equal(fclose(f), 0);
    for (i = 0; i < temp_files_count && strcmp(temp_files[i], path) != 0; i++) {}
    if (i == temp_files_count) {
        assert_true(temp_files_count < N(temp_files));
        snprintf(temp_files[temp_files_count++], sizeof temp_files[0], "%s", path);
    }
    return temp_files[i];
}

/* A path in the temporary directory that does not exist. */
static const char *temp_missing(const char *name) {
    static char path[128];
    temp_file("placeholder", "");
    snprintf(path, sizeof path, "%s/%s", temp_dir, name);
    return path;
}

static int temp_remove_all(void) {
    size_t i;
    int bad = 0;
    for (i = 0; i < temp_files_count; i++) bad |= unlink(temp_files[i]);
    temp_files_count = 0;
    if (temp_dir[0]) bad |= rmdir(temp_dir);
    temp_dir[0] = '\0';
    return bad ? -1 : 0;
}

/* ---------------------------------------------------------------------------------------
   Helpers */

/* Options with our config and an explicit server; no own hostname unless a test sets one. */
static cres_k8s_options options(void) {
    cres_k8s_options o;
    memset(&o, 0, sizeof o);
    o.config = &C.config;
    o.server = SERVER;
    return o;
}

static cres_resolver *create(const cres_k8s_options *o) {
    cres_error err;
    cres_resolver_free(C.r); /* a test may make a second resolver */
    C.r = NULL;
    OK(cres_k8s_resolver_create(o, &C.r, &err));
    assert_non_null(C.r);
    assert_string_equal(cres_resolver_name(C.r), "kubernetes");
    return C.r;
}

/* The spec JSON of one resolve, checking that every transport session was closed. */
static const char *resolved(void) {
    cres_cluster_spec *s = NULL;
    const char *json;
    int closed = C.sessions_closed;
    cres_error err;
    OK(cres_resolve(C.r, &s, &err));
    json = json_of(s);
    cres_spec_free(s);
    assert_true(C.sessions_closed > closed);
    assert_int_equal(C.sessions_closed, C.sessions_opened);
    assert_int_equal(C.session_mismatch, 0);
    return json;
}

/* A resolve that must fail with `want`; returns the error for further checks. */
static cres_error resolve_fails(cres_result want) {
    cres_cluster_spec *s = NULL;
    cres_error err;
    EXPECT(cres_resolve(C.r, &s, &err), want);
    assert_null(s);
    assert_int_equal(C.sessions_closed, C.sessions_opened);
    assert_int_equal(err.result, want);
    assert_true(err.message[0] != '\0');
    return err;
}

static const char *master_of(const char *type, int id, const char *rpc) {
    static char buf[512];
    size_t len = 0;
    cres_error err;
    OK(cres_master_of(C.r, type, id, rpc, buf, sizeof buf, &len, &err));
    assert_int_equal(len, strlen(buf));
    return buf;
}

/* Every answer was asked for, and nothing more. */
static void all_replies_used(void) {
    assert_int_equal(C.overrun, 0);
    assert_int_equal(C.next_reply, C.replies_count);
}

static void no_sleeps(void) {
    assert_int_equal(C.sleeps_count, 0);
}

static void sleeps_were(const int *want, size_t n) {
    size_t i;
    assert_int_equal(C.sleeps_count, n);
    for (i = 0; i < n; i++) assert_int_equal(C.sleeps[i], want[i]);
}

/* Retry waits are drawn at random: wait i is within [lo[i], hi[i]] (a 5xx or a connection
   error: 250 ms doubling plus up to half again; Retry-After R: R to 2R). */
static void sleeps_between(const int *lo, const int *hi, size_t n) {
    size_t i;
    assert_int_equal(C.sleeps_count, n);
    for (i = 0; i < n; i++) {
        assert_in_range(C.sleeps[i], lo[i], hi[i]);
    }
}

static const char *url(size_t i) {
    assert_true(i < C.requests_count);
    return C.requests[i].url;
}

/* The value of header `name` in request i, or NULL. */
static const char *header(size_t i, const char *name) {
    size_t h, n = strlen(name);
    assert_true(i < C.requests_count);
    for (h = 0; h < C.requests[i].headers_count; h++)
        if (strncmp(C.requests[i].headers[h], name, n) == 0 && C.requests[i].headers[h][n] == ':')
            return C.requests[i].headers[h] + n + 2;
    return NULL;
}

static const pod three_workers[] = {
    {.name = "worker-0", .ip = "10.4.0.10", .host_ip = "10.128.0.1"},
    {.name = "worker-1", .ip = "10.4.0.11", .host_ip = "10.128.0.2"},
    {.name = "worker-2", .ip = "10.4.0.12", .host_ip = "10.128.0.3"},
};
#define THREE_WORKERS "{'worker': ['10.4.0.10:8470', '10.4.0.11:8470', '10.4.0.12:8470']}"

/* ---------------------------------------------------------------------------------------
   TensorFlow's cases (reference section 4.5), in TF's setting: all namespaces, host IP */

static cres_k8s_options tf_options(void) {
    cres_k8s_options o = options();
    o.all_namespaces = 1;
    o.address = CRES_K8S_HOST_IP;
    return o;
}

/* TF K1: one Running pod under the default selector job-name=tensorflow. */
static void tf_k1_one_running_pod(void **state) {
    static const pod pods[] = {{.name = "tensorflow-abc123", .ip = "10.4.0.7", .host_ip = "10.1.2.3"}};
    cres_k8s_options o = tf_options();
    (void)state;
    script_page(pods, N(pods), NULL);
    create(&o);
    assert_string_equal(resolved(), dq("{'worker': ['10.1.2.3:8470']}"));
    assert_int_equal(C.requests_count, 1);
    assert_string_equal(C.requests[0].method, "GET");
    assert_string_equal(url(0), SERVER "/api/v1/pods?labelSelector=job-name%3Dtensorflow&limit=500");
    all_replies_used();
}

/* TF K4: pods ordered by name; "tensorflow-999999" sorts first in TF's string order and in our
   natural order alike. */
static void tf_k4_pods_sorted_by_name(void **state) {
    static const pod pods[] = {
        {.name = "tensorflow-abc123", .ip = "10.4.0.1", .host_ip = "10.1.2.3"},
        {.name = "tensorflow-def456", .ip = "10.4.0.2", .host_ip = "10.1.2.4"},
        {.name = "tensorflow-999999", .ip = "10.4.0.3", .host_ip = "10.1.2.5"},
    };
    cres_k8s_options o = tf_options();
    (void)state;
    script_page(pods, N(pods), NULL);
    create(&o);
    assert_string_equal(resolved(), dq("{'worker': ['10.1.2.5:8470', '10.1.2.3:8470', '10.1.2.4:8470']}"));
}

/* TF K5: task set by the caller; master() of the own task and of worker 2. */
static void tf_k5_set_task_then_master(void **state) {
    static const pod pods[] = {
        {.name = "worker-0", .ip = "10.4.0.1", .host_ip = "10.1.2.3"},
        {.name = "worker-1", .ip = "10.4.0.2", .host_ip = "10.1.2.4"},
        {.name = "worker-2", .ip = "10.4.0.3", .host_ip = "10.1.2.5"},
    };
    cres_k8s_options o = tf_options();
    cres_error err;
    (void)state;
    script_page(pods, N(pods), NULL);
    script_page(pods, N(pods), NULL);
    create(&o);
    OK(cres_set_task(C.r, "worker", 0, &err));
    assert_string_equal(cres_task_type(C.r), "worker");
    assert_int_equal(cres_task_id(C.r), 0);
    assert_string_equal(master_of(NULL, -1, NULL), "grpc://10.1.2.3:8470");
    assert_string_equal(master_of("worker", 2, NULL), "grpc://10.1.2.5:8470");
    all_replies_used();
}

/* TF K6: a Failed pod. TF raises RuntimeError 'Pod "tensorflow-abc123" is not running; phase:
   "Failed"'; we return CRES_ERR_NOT_READY naming pod and phase. */
static void tf_k6_failed_pod_is_not_ready(void **state) {
    static const pod pods[] = {{.name = "tensorflow-abc123", .ip = "10.4.0.1", .host_ip = "10.1.2.3", .phase = "Failed"}};
    cres_k8s_options o = tf_options();
    cres_error err;
    (void)state;
    script_page(pods, N(pods), NULL);
    create(&o);
    err = resolve_fails(CRES_ERR_NOT_READY);
    HAS(err.message, "\"tensorflow-abc123\"");
    HAS(err.message, "Failed");
    assert_int_equal(err.http_status, 0);
}

/* TF K7: two selectors for worker, one for ps. TF sorts each selector's pods and concatenates
   (worker: 10.1.2.5, .3, .4, .8, .6, .7); we differ on purpose: all of a job's pods are
   ordered together, naturally, so the order does not depend on how the selectors split them. */
static void tf_k7_several_selectors_ordered_together(void **state) {
    static const pod worker1[] = {
        {.name = "tensorflow-abc123", .ip = "10.4.0.1", .host_ip = "10.1.2.3"},
        {.name = "tensorflow-def456", .ip = "10.4.0.2", .host_ip = "10.1.2.4"},
        {.name = "tensorflow-999999", .ip = "10.4.0.3", .host_ip = "10.1.2.5"},
    };
    static const pod worker2[] = {
        {.name = "tensorflow-abc124", .ip = "10.4.0.4", .host_ip = "10.1.2.6"},
        {.name = "tensorflow-def457", .ip = "10.4.0.5", .host_ip = "10.1.2.7"},
        {.name = "tensorflow-999990", .ip = "10.4.0.6", .host_ip = "10.1.2.8"},
    };
    static const pod ps[] = {
        {.name = "tensorflow-ps-1", .ip = "10.4.0.7", .host_ip = "10.1.2.1"},
        {.name = "tensorflow-ps-2", .ip = "10.4.0.8", .host_ip = "10.1.2.2"},
    };
    static const cres_k8s_job_selector jobs[] = {
        {"worker", "job-name=worker1"}, {"worker", "job-name=worker2"}, {"ps", "job-name=ps"}};
    cres_k8s_options o = tf_options();
    (void)state;
    o.jobs = jobs;
    o.jobs_count = N(jobs);
    script_page(worker1, N(worker1), NULL);
    script_page(worker2, N(worker2), NULL);
    script_page(ps, N(ps), NULL);
    create(&o);
    assert_string_equal(resolved(), dq("{'ps': ['10.1.2.1:8470', '10.1.2.2:8470'], 'worker': ['10.1.2.8:8470', "
                                       "'10.1.2.5:8470', '10.1.2.3:8470', '10.1.2.6:8470', '10.1.2.4:8470', "
                                       "'10.1.2.7:8470']}"));
    assert_int_equal(C.requests_count, 3);
    assert_string_equal(url(0), SERVER "/api/v1/pods?labelSelector=job-name%3Dworker1&limit=500");
    assert_string_equal(url(1), SERVER "/api/v1/pods?labelSelector=job-name%3Dworker2&limit=500");
    assert_string_equal(url(2), SERVER "/api/v1/pods?labelSelector=job-name%3Dps&limit=500");
}

/* ---------------------------------------------------------------------------------------
   Addresses */

/* We differ from TF on purpose: the pod IP by default (TF: the node's IP). */
static void pod_ip_is_the_default_address(void **state) {
    cres_k8s_options o = options();
    (void)state;
    script_page(three_workers, N(three_workers), NULL);
    create(&o);
    assert_string_equal(resolved(), dq(THREE_WORKERS));
}

static void host_ip_address_option(void **state) {
    cres_k8s_options o = options();
    (void)state;
    o.address = CRES_K8S_HOST_IP;
    script_page(three_workers, N(three_workers), NULL);
    create(&o);
    assert_string_equal(resolved(), dq("{'worker': ['10.128.0.1:8470', '10.128.0.2:8470', '10.128.0.3:8470']}"));
}

static void port_option(void **state) {
    cres_k8s_options o = options();
    (void)state;
    o.port = 2222;
    script_page(three_workers, N(three_workers), NULL);
    create(&o);
    assert_string_equal(resolved(), dq("{'worker': ['10.4.0.10:2222', '10.4.0.11:2222', '10.4.0.12:2222']}"));
}

static const pod indexed_trainers[] = {
    {.name = "trainer-0-pkwzt", .ip = "10.4.0.10", .host_ip = "10.128.0.1", .hostname = "trainer-0",
     .subdomain = "trainer", .index = "0"},
    {.name = "trainer-1-xp8x7", .ip = "10.4.0.11", .host_ip = "10.128.0.1", .hostname = "trainer-1",
     .subdomain = "trainer", .index = "1"},
};

static void dns_address_from_hostname_and_subdomain(void **state) {
    cres_k8s_options o = options();
    (void)state;
    o.address = CRES_K8S_DNS;
    script_page(indexed_trainers, N(indexed_trainers), NULL);
    create(&o);
    assert_string_equal(resolved(), dq("{'worker': ['trainer-0.trainer.default.svc.cluster.local:8470', "
                                       "'trainer-1.trainer.default.svc.cluster.local:8470']}"));
}

static void dns_address_uses_pod_namespace_and_cluster_domain(void **state) {
    static const pod pods[] = {{.name = "trainer-0-abcde", .ns = "team-a", .ip = "10.4.0.10", .hostname = "trainer-0",
                                .subdomain = "svc-x", .index = "0"}};
    cres_k8s_options o = options();
    (void)state;
    o.address = CRES_K8S_DNS;
    o.cluster_domain = "corp.internal";
    o.namespace_name = "team-a";
    o.port = 2222;
    script_page(pods, N(pods), NULL);
    create(&o);
    assert_string_equal(resolved(), dq("{'worker': ['trainer-0.svc-x.team-a.svc.corp.internal:2222']}"));
}

/* A pod with a hostname but no subdomain (or neither, or either empty) has no DNS name: its
   pod IP. */
static void dns_address_without_subdomain_falls_back_to_pod_ip(void **state) {
    static const pod pods[] = {
        {.name = "worker-0", .ip = "10.4.0.10", .hostname = "worker-0"},
        {.name = "worker-1", .ip = "10.4.0.11"},
        {.name = "worker-2", .ip = "10.4.0.12", .subdomain = "workers"},
    };
    static const pod empty[] = {
        {.name = "worker-0", .ip = "10.4.0.10", .hostname = "", .subdomain = "workers"},
        {.name = "worker-1", .ip = "10.4.0.11", .hostname = "worker-1", .subdomain = ""},
        {.name = "worker-2", .ip = "10.4.0.12", .hostname = "", .subdomain = ""},
    };
    cres_k8s_options o = options();
    (void)state;
    o.address = CRES_K8S_DNS;
    script_page(pods, N(pods), NULL);
    script_page(empty, N(empty), NULL);
    create(&o);
    assert_string_equal(resolved(), dq(THREE_WORKERS));
    assert_string_equal(resolved(), dq(THREE_WORKERS));
    all_replies_used();
}

static void ipv6_addresses_are_bracketed(void **state) {
    static const pod pods[] = {{.name = "worker-0", .ip = "fd00:10:4::a", .host_ip = "fd00:10:128::b"}};
    cres_k8s_options o = options();
    (void)state;
    script_page(pods, N(pods), NULL);
    script_page(pods, N(pods), NULL);
    create(&o);
    assert_string_equal(resolved(), dq("{'worker': ['[fd00:10:4::a]:8470']}"));
    o.address = CRES_K8S_HOST_IP;
    create(&o);
    assert_string_equal(resolved(), dq("{'worker': ['[fd00:10:128::b]:8470']}"));
}

/* An IP that is not one (a port in it, a name with ':') would become "[10.4.0.10:80]:8470". */
static void pod_ip_that_is_not_an_address_is_refused(void **state) {
    static const pod pods[] = {{.name = "worker-0", .ip = "10.4.0.10:80", .host_ip = "x"}};
    cres_k8s_options o = options();
    cres_error err;
    (void)state;
    script_page(pods, N(pods), NULL);
    create(&o);
    err = resolve_fails(CRES_ERR_UNEXPECTED_RESPONSE);
    assert_string_equal(err.message, "kubernetes: pod \"worker-0\" has status.podIP "
                                     "\"10.4.0.10:80\", not an IP address");
}

static void address_option_out_of_range_is_invalid(void **state) {
    cres_k8s_options o = options();
    cres_resolver *r = NULL;
    cres_error err;
    (void)state;
    o.address = (cres_k8s_address)3;
    EXPECT(cres_k8s_resolver_create(&o, &r, &err), CRES_ERR_INVALID_ARGUMENT);
    assert_null(r);
    o.address = CRES_K8S_POD_IP;
    o.port = 65536;
    EXPECT(cres_k8s_resolver_create(&o, &r, &err), CRES_ERR_INVALID_ARGUMENT);
    o.port = 0;
    o.page_size = -1;
    EXPECT(cres_k8s_resolver_create(&o, &r, &err), CRES_ERR_INVALID_ARGUMENT);
    assert_string_equal(err.message, "kubernetes: options.page_size -1 is out of range");
    assert_null(r);
    o.page_size = 0;
    o.port = 70000;
    EXPECT(cres_k8s_resolver_create(&o, &r, &err), CRES_ERR_INVALID_ARGUMENT);
    assert_string_equal(err.message, "kubernetes: options.port 70000 is out of range");
    o.port = 0;
    o.wait_ms = -1;
    EXPECT(cres_k8s_resolver_create(&o, &r, &err), CRES_ERR_INVALID_ARGUMENT);
    assert_string_equal(err.message, "kubernetes: options.wait_ms -1 is out of range");
    o.wait_ms = 0;
    o.members = (cres_k8s_members)7;
    EXPECT(cres_k8s_resolver_create(&o, &r, &err), CRES_ERR_INVALID_ARGUMENT);
    HAS(err.message, "members out of range");
    assert_null(r);
}

/* The jobs of the options: a count without the list, a bad job name, a NULL selector. */
static void jobs_option_is_checked(void **state) {
    static const cres_k8s_job_selector bad_name[] = {{"", "a=1"}};
    static const cres_k8s_job_selector no_selector[] = {{"worker", NULL}};
    cres_k8s_options o = options();
    cres_resolver *r = NULL;
    cres_error err;
    (void)state;
    o.jobs_count = 1;
    EXPECT(cres_k8s_resolver_create(&o, &r, &err), CRES_ERR_INVALID_ARGUMENT);
    assert_string_equal(err.message, "kubernetes: options.jobs and options.jobs_count: set both, or neither");
    o.jobs = bad_name;
    EXPECT(cres_k8s_resolver_create(&o, &r, &err), CRES_ERR_INVALID_ARGUMENT);
    assert_string_equal(err.message, "kubernetes: job name is empty");
    o.jobs = no_selector;
    EXPECT(cres_k8s_resolver_create(&o, &r, &err), CRES_ERR_INVALID_ARGUMENT);
    assert_string_equal(err.message, "kubernetes: job \"worker\" has a NULL selector");
    assert_null(r);
}

/* ---------------------------------------------------------------------------------------
   Paging: limit and continue */

static void paging_three_pages_sends_each_continue_token(void **state) {
    static const pod p1[] = {{.name = "worker-3", .ip = "10.4.0.13"}, {.name = "worker-0", .ip = "10.4.0.10"}};
    static const pod p2[] = {{.name = "worker-1", .ip = "10.4.0.11"}, {.name = "worker-4", .ip = "10.4.0.14"}};
    static const pod p3[] = {{.name = "worker-2", .ip = "10.4.0.12"}};
    cres_k8s_options o = options();
    (void)state;
    script_page(p1, N(p1), "eyJ2IjoibWV0YS5rOHMuaW8vdjEiLCJydiI6NDg4MzYwODd9/a+b=");
    script_page(p2, N(p2), "second-token");
    script_page(p3, N(p3), NULL);
    create(&o);
    assert_string_equal(resolved(), dq("{'worker': ['10.4.0.10:8470', '10.4.0.11:8470', '10.4.0.12:8470', "
                                       "'10.4.0.13:8470', '10.4.0.14:8470']}"));
    assert_int_equal(C.requests_count, 3);
    assert_string_equal(url(0), NS_URL "?labelSelector=job-name%3Dtensorflow&limit=500");
    assert_string_equal(url(1), NS_URL "?labelSelector=job-name%3Dtensorflow&limit=500"
                                       "&continue=eyJ2IjoibWV0YS5rOHMuaW8vdjEiLCJydiI6NDg4MzYwODd9%2Fa%2Bb%3D");
    assert_string_equal(url(2), NS_URL "?labelSelector=job-name%3Dtensorflow&limit=500&continue=second-token");
    all_replies_used();
    no_sleeps();
}

static void page_size_option_sets_limit(void **state) {
    cres_k8s_options o = options();
    (void)state;
    o.page_size = 2;
    script_page(three_workers, 2, "t1");
    script_page(three_workers + 2, 1, NULL);
    create(&o);
    assert_string_equal(resolved(), dq(THREE_WORKERS));
    assert_string_equal(url(0), NS_URL "?labelSelector=job-name%3Dtensorflow&limit=2");
    assert_string_equal(url(1), NS_URL "?labelSelector=job-name%3Dtensorflow&limit=2&continue=t1");
}

/* An empty metadata.continue means the last page, as the API server sends it. */
static void empty_continue_ends_the_list(void **state) {
    cres_k8s_options o = options();
    (void)state;
    script_page(three_workers, N(three_workers), "");
    create(&o);
    assert_string_equal(resolved(), dq(THREE_WORKERS));
    assert_int_equal(C.requests_count, 1);
}

static const char gone_body[] =
    "{\"kind\": \"Status\", \"apiVersion\": \"v1\", \"metadata\": {}, \"status\": \"Failure\", "
    "\"message\": \"The provided continue parameter is too old to display a consistent list result. You can "
    "start a new list without the continue parameter.\", \"reason\": \"Expired\", \"code\": 410}";

/* A 410 Gone on page 2 (the continue token expired): the list starts again without the token
   and the pods of the first attempt are not counted twice. */
static void gone_410_mid_list_restarts_without_duplicates(void **state) {
    static const pod p1[] = {{.name = "worker-0", .ip = "10.4.0.10"}, {.name = "worker-1", .ip = "10.4.0.11"}};
    static const pod p2[] = {{.name = "worker-2", .ip = "10.4.0.12"}};
    cres_k8s_options o = options();
    (void)state;
    o.page_size = 2;
    script_page(p1, N(p1), "old");
    script(410, gone_body);
    script_page(p1, N(p1), "new");
    script_page(p2, N(p2), NULL);
    create(&o);
    assert_string_equal(resolved(), dq(THREE_WORKERS));
    assert_int_equal(C.requests_count, 4);
    assert_string_equal(url(1), NS_URL "?labelSelector=job-name%3Dtensorflow&limit=2&continue=old");
    assert_string_equal(url(2), NS_URL "?labelSelector=job-name%3Dtensorflow&limit=2");
    assert_string_equal(url(3), NS_URL "?labelSelector=job-name%3Dtensorflow&limit=2&continue=new");
    no_sleeps();
    HAS(C.logs, "410 Gone");
}

/* The second selector of a job restarts alone: the first selector's pods stay. */
static void gone_410_restarts_only_the_current_selector(void **state) {
    static const pod a[] = {{.name = "worker-0", .ip = "10.4.0.10"}};
    static const pod b1[] = {{.name = "worker-1", .ip = "10.4.0.11"}};
    static const pod b2[] = {{.name = "worker-2", .ip = "10.4.0.12"}};
    static const cres_k8s_job_selector jobs[] = {{"worker", "role=a"}, {"worker", "role=b"}};
    cres_k8s_options o = options();
    (void)state;
    o.jobs = jobs;
    o.jobs_count = N(jobs);
    script_page(a, N(a), NULL);
    script_page(b1, N(b1), "tok");
    script(410, gone_body);
    script_page(b1, N(b1), "tok2");
    script_page(b2, N(b2), NULL);
    create(&o);
    assert_string_equal(resolved(), dq(THREE_WORKERS));
    assert_string_equal(url(3), NS_URL "?labelSelector=role%3Db&limit=500");
    all_replies_used();
}

static void gone_410_gives_up_after_three_restarts(void **state) {
    static const pod p1[] = {{.name = "worker-0", .ip = "10.4.0.10"}};
    cres_k8s_options o = options();
    cres_error err;
    int i;
    (void)state;
    for (i = 0; i < 4; i++) {
        script_page(p1, N(p1), "tok");
        script(410, gone_body);
    }
    create(&o);
    err = resolve_fails(CRES_ERR_HTTP_STATUS);
    assert_int_equal(err.http_status, 410);
    HAS(err.message, "410");
    HAS(err.message, "continue parameter is too old");
    assert_int_equal(C.requests_count, 8);
    all_replies_used();
}

/* Without a continue token a 410 cannot be an expired token: an error at once. */
static void gone_410_on_first_page_is_an_error(void **state) {
    cres_k8s_options o = options();
    cres_error err;
    (void)state;
    script(410, gone_body);
    create(&o);
    err = resolve_fails(CRES_ERR_HTTP_STATUS);
    assert_int_equal(err.http_status, 410);
    assert_int_equal(C.requests_count, 1);
}

/* A server whose continue tokens never end: CRES_MAX_K8S_PAGES (1000) pages per selector. */
static void endless_pages_stop_at_the_page_limit(void **state) {
    cres_k8s_options o = options();
    cres_error err;
    (void)state;
    C.endless = 1;
    create(&o);
    err = resolve_fails(CRES_ERR_LIMIT);
    HAS(err.message, "1000 pages");
    HAS(err.message, "job-name=tensorflow");
    assert_int_equal(C.endless_served, 1000);
}

/* Pages that each come in 20 ms, well inside timeout_ms, still stop at resolve_timeout_ms:
   the whole resolve is bounded, not only each request. */
static void slow_drip_stops_at_the_resolve_timeout(void **state) {
    cres_k8s_options o = options();
    cres_error err;
    (void)state;
    C.endless = 1;
    C.endless_delay_ms = 20;
    C.config.resolve_timeout_ms = 300;
    create(&o);
    err = resolve_fails(CRES_ERR_TIMEOUT);
    HAS(err.message, "resolve_timeout_ms");
    assert_true(C.endless_served >= 2 && C.endless_served < 1000); /* stopped by time, not the page limit */
}

/* The request was given only the time the resolve had left, and timed out: the resolve's
   bound is what ran out, even when the transport's clock fired a moment before ours. */
static void timeout_of_a_shortened_request_names_the_resolve_bound(void **state) {
    cres_k8s_options o = options();
    cres_error err;
    (void)state;
    C.early_timeout = 1;
    C.config.resolve_timeout_ms = 5000; /* below timeout_ms (10 s): the request gets the 5 s left */
    create(&o);
    err = resolve_fails(CRES_ERR_TIMEOUT);
    HAS(err.message, "resolve_timeout_ms (5000 ms)");
}

static void repeated_continue_token_is_an_error(void **state) {
    static const pod p1[] = {{.name = "worker-0", .ip = "10.4.0.10"}};
    cres_k8s_options o = options();
    cres_error err;
    (void)state;
    script_page(p1, N(p1), "same");
    script_page(p1, N(p1), "same");
    create(&o);
    err = resolve_fails(CRES_ERR_UNEXPECTED_RESPONSE);
    HAS(err.message, "continue token");
    assert_int_equal(C.requests_count, 2);
}

/* ---------------------------------------------------------------------------------------
   Namespaces */

/* We differ from TF on purpose: one namespace by default (TF lists every namespace). */
static void namespace_default_with_server(void **state) {
    cres_k8s_options o = options();
    (void)state;
    script_page(three_workers, N(three_workers), NULL);
    create(&o);
    resolved();
    assert_string_equal(url(0), SERVER "/api/v1/namespaces/default/pods?labelSelector=job-name%3Dtensorflow&limit=500");
}

static void namespace_name_option(void **state) {
    cres_k8s_options o = options();
    (void)state;
    cres_error err;
    cres_resolver *r = NULL;
    o.namespace_name = "team-a";
    script_page(three_workers, N(three_workers), NULL);
    create(&o);
    resolved();
    assert_string_equal(url(0), SERVER "/api/v1/namespaces/team-a/pods?labelSelector=job-name%3Dtensorflow&limit=500");
    /* with a file too, one of them would be read for nothing */
    o.namespace_file = temp_file("ns-ignored", "ignored\n");
    EXPECT(cres_k8s_resolver_create(&o, &r, &err), CRES_ERR_INVALID_ARGUMENT);
    assert_string_equal(err.message,
                        "kubernetes: set namespace_name or namespace_file, not both");
    /* a kubeconfig or context is not read beside an explicit server */
    o.namespace_file = NULL;
    o.context = "prod";
    EXPECT(cres_k8s_resolver_create(&o, &r, &err), CRES_ERR_INVALID_ARGUMENT);
    assert_string_equal(err.message, "kubernetes: options.context is not read with options.server");
    o.context = NULL;
    o.kubeconfig = "/nonexistent/config";
    EXPECT(cres_k8s_resolver_create(&o, &r, &err), CRES_ERR_INVALID_ARGUMENT);
    HAS(err.message, "options.kubeconfig");
    o.kubeconfig = NULL;
    /* selectors without their count */
    {
        cres_k8s_job_selector one = {"worker", "job-name=tensorflow"};
        o.jobs = &one;
        o.jobs_count = 0;
        EXPECT(cres_k8s_resolver_create(&o, &r, &err), CRES_ERR_INVALID_ARGUMENT);
        HAS(err.message, "options.jobs and options.jobs_count");
    }
    assert_null(r);
}

/* The namespace file, trimmed; one with nothing but a line break is namespace "default". */
static void namespace_file_is_read_and_trimmed(void **state) {
    cres_k8s_options o = options();
    (void)state;
    o.namespace_file = temp_file("namespace", "ml-team\n");
    script_page(three_workers, N(three_workers), NULL);
    create(&o);
    resolved();
    assert_string_equal(url(0), SERVER "/api/v1/namespaces/ml-team/pods?labelSelector=job-name%3Dtensorflow&limit=500");
    o.namespace_file = temp_file("namespace", "\n");
    script_page(three_workers, N(three_workers), NULL);
    create(&o);
    resolved();
    assert_string_equal(url(1), NS_URL "?labelSelector=job-name%3Dtensorflow&limit=500");
}

static void namespace_file_missing_is_environment_error(void **state) {
    cres_k8s_options o = options();
    cres_resolver *r = NULL;
    cres_error err;
    (void)state;
    o.namespace_file = temp_missing("no-such-namespace");
    EXPECT(cres_k8s_resolver_create(&o, &r, &err), CRES_ERR_ENVIRONMENT);
    assert_null(r);
    HAS(err.message, "cannot open");
}

static void all_namespaces_url(void **state) {
    cres_k8s_options o = options();
    (void)state;
    o.all_namespaces = 1;
    o.namespace_name = "ignored";
    script_page(three_workers, N(three_workers), NULL);
    create(&o);
    resolved();
    assert_string_equal(url(0), SERVER "/api/v1/pods?labelSelector=job-name%3Dtensorflow&limit=500");
}

/* Two pods of the same name in two namespaces are two pods. */
static void same_pod_name_in_two_namespaces_kept(void **state) {
    static const pod pods[] = {{.name = "worker-0", .ns = "a", .ip = "10.4.0.10"},
                               {.name = "worker-0", .ns = "b", .ip = "10.4.0.11"}};
    cres_k8s_options o = options();
    (void)state;
    o.all_namespaces = 1;
    script_page(pods, N(pods), NULL);
    create(&o);
    assert_string_equal(resolved(), dq("{'worker': ['10.4.0.10:8470', '10.4.0.11:8470']}"));
}

/* ---------------------------------------------------------------------------------------
   In-cluster configuration: KUBERNETES_SERVICE_HOST/PORT through the getenv hook */

static cres_k8s_options in_cluster_options(void) {
    cres_k8s_options o = options();
    o.server = NULL;
    o.token_file = temp_file("token", "eyJhbGciOiJSUzI1NiJ9.in-cluster-token\n");
    o.namespace_file = temp_file("namespace", "ml-team\n");
    return o;
}

static void in_cluster_server_from_environment(void **state) {
    cres_k8s_options o = in_cluster_options();
    (void)state;
    env_set("KUBERNETES_SERVICE_HOST", "10.96.0.1");
    env_set("KUBERNETES_SERVICE_PORT", "443");
    script_page(three_workers, N(three_workers), NULL);
    create(&o);
    assert_string_equal(resolved(), dq(THREE_WORKERS));
    assert_string_equal(url(0), "https://10.96.0.1:443/api/v1/namespaces/ml-team/pods?labelSelector=job-name%3Dtensorflow&limit=500");
    assert_string_equal(header(0, "Authorization"), "Bearer eyJhbGciOiJSUzI1NiJ9.in-cluster-token");
    assert_true(C.requests[0].has_ca_file);
    assert_string_equal(C.requests[0].ca_file, SA_DIR "ca.crt");
}

static void in_cluster_ipv6_host_is_bracketed(void **state) {
    cres_k8s_options o = in_cluster_options();
    (void)state;
    env_set("KUBERNETES_SERVICE_HOST", "fd00:10:96::1");
    env_set("KUBERNETES_SERVICE_PORT", "6443");
    script_page(three_workers, N(three_workers), NULL);
    create(&o);
    resolved();
    assert_string_equal(url(0), "https://[fd00:10:96::1]:6443/api/v1/namespaces/ml-team/pods"
                                "?labelSelector=job-name%3Dtensorflow&limit=500");
}

/* In a cluster, options.ca_file wins over the service account's, and options.token over its
   token file (which is then not read: none is there). */
static void in_cluster_ca_file_option_wins(void **state) {
    cres_k8s_options o = in_cluster_options();
    (void)state;
    o.ca_file = "/etc/custom/ca.pem";
    env_set("KUBERNETES_SERVICE_HOST", "10.96.0.1");
    env_set("KUBERNETES_SERVICE_PORT", "443");
    script_page(three_workers, N(three_workers), NULL);
    create(&o);
    resolved();
    assert_string_equal(C.requests[0].ca_file, "/etc/custom/ca.pem");
    o.token_file = NULL;
    o.token = "option-token";
    script_page(three_workers, N(three_workers), NULL);
    create(&o);
    assert_string_equal(resolved(), dq(THREE_WORKERS));
    assert_string_equal(header(1, "Authorization"), "Bearer option-token");
    assert_string_equal(url(1), "https://10.96.0.1:443/api/v1/namespaces/ml-team/pods?labelSelector=job-name%3Dtensorflow&limit=500");
}

static void expect_not_in_cluster(void) {
    cres_k8s_options o = in_cluster_options();
    cres_resolver *r = NULL;
    cres_error err;
    EXPECT(cres_k8s_resolver_create(&o, &r, &err), CRES_ERR_ENVIRONMENT);
    assert_null(r);
    HAS(err.message, "KUBERNETES_SERVICE_HOST");
    HAS(err.message, "KUBERNETES_SERVICE_PORT");
}

static void in_cluster_without_variables_is_environment_error(void **state) {
    (void)state;
    expect_not_in_cluster();
}

static void in_cluster_without_port_is_environment_error(void **state) {
    (void)state;
    env_set("KUBERNETES_SERVICE_HOST", "10.96.0.1");
    env_set("KUBERNETES_SERVICE_PORT", "");
    expect_not_in_cluster();
}

static void in_cluster_malformed_port_is_environment_error(void **state) {
    static const char *const ports[] = {"443/x", "0", "65536", "99999", "123456", "-443"};
    cres_k8s_options o = in_cluster_options();
    cres_resolver *r = NULL;
    cres_error err;
    size_t i;
    (void)state;
    for (i = 0; i < N(ports); i++) { /* a fresh environment each time: the first value set is read */
        memset(C.env_names, 0, sizeof C.env_names);
        env_set("KUBERNETES_SERVICE_HOST", "10.96.0.1");
        env_set("KUBERNETES_SERVICE_PORT", ports[i]);
        EXPECT(cres_k8s_resolver_create(&o, &r, &err), CRES_ERR_ENVIRONMENT);
        HAS(err.message, "KUBERNETES_SERVICE_HOST or _PORT is malformed");
        assert_null(r);
    }
}

/* ... and hosts: too long, with a blank or a control character; empty values are unset. */
static void in_cluster_malformed_host_is_environment_error(void **state) {
    static char long_host[300];
    const char *const hosts[] = {long_host, "10.96.0.1 x", "10.96.0.1\r\nX: y"};
    cres_k8s_options o = in_cluster_options();
    cres_resolver *r = NULL;
    cres_error err;
    size_t i;
    (void)state;
    memset(long_host, 'h', sizeof long_host - 1);
    for (i = 0; i < N(hosts); i++) {
        memset(C.env_names, 0, sizeof C.env_names);
        env_set("KUBERNETES_SERVICE_PORT", "443");
        env_set("KUBERNETES_SERVICE_HOST", hosts[i]);
        EXPECT(cres_k8s_resolver_create(&o, &r, &err), CRES_ERR_ENVIRONMENT);
        HAS(err.message, "KUBERNETES_SERVICE_HOST or _PORT is malformed");
        assert_null(r);
    }
    memset(C.env_names, 0, sizeof C.env_names);
    env_set("KUBERNETES_SERVICE_HOST", "");
    env_set("KUBERNETES_SERVICE_PORT", "443");
    EXPECT(cres_k8s_resolver_create(&o, &r, &err), CRES_ERR_ENVIRONMENT);
    HAS(err.message, "not inside a cluster");
    memset(C.env_names, 0, sizeof C.env_names);
    env_set("KUBERNETES_SERVICE_HOST", "10.96.0.1");
    env_set("KUBERNETES_SERVICE_PORT", "");
    EXPECT(cres_k8s_resolver_create(&o, &r, &err), CRES_ERR_ENVIRONMENT);
    HAS(err.message, "not inside a cluster");
}

/* Without options.token_file a pod reads the service account's token at resolve. */
static void in_cluster_default_token_file_missing_is_environment_error(void **state) {
    cres_k8s_options o = in_cluster_options();
    cres_error err;
    (void)state;
    if (access(SA_DIR "token", F_OK) == 0) skip(); /* really inside a pod */
    o.token_file = NULL;
    env_set("KUBERNETES_SERVICE_HOST", "10.96.0.1");
    env_set("KUBERNETES_SERVICE_PORT", "443");
    create(&o);
    err = resolve_fails(CRES_ERR_ENVIRONMENT);
    HAS(err.message, "cannot open");
    assert_int_equal(C.requests_count, 0);
}

/* Bound service-account tokens rotate: the file is read again at every resolve. */
static void token_file_is_read_at_each_resolve(void **state) {
    cres_k8s_options o = options();
    (void)state;
    o.token_file = temp_file("rotating-token", "token-one\n");
    script_page(three_workers, N(three_workers), NULL);
    script_page(three_workers, N(three_workers), NULL);
    create(&o);
    resolved();
    temp_file("rotating-token", "token-two");
    resolved();
    assert_string_equal(header(0, "Authorization"), "Bearer token-one");
    assert_string_equal(header(1, "Authorization"), "Bearer token-two");
}

static void token_file_missing_at_resolve_is_environment_error(void **state) {
    cres_k8s_options o = options();
    cres_error err;
    (void)state;
    o.token_file = temp_missing("no-such-token");
    create(&o);
    err = resolve_fails(CRES_ERR_ENVIRONMENT);
    HAS(err.message, "no-such-token");
    assert_int_equal(C.requests_count, 0);
}

/* A CR or LF in the token would let the file add headers of its own (header injection); an
   empty token file is no token either. */
static void token_with_line_break_is_refused(void **state) {
    static const char *const bad[] = {"token\r\nX-Injected: 1", "tok en", "tok\ten", ""};
    size_t i;
    (void)state;
    for (i = 0; i < N(bad); i++) {
        cres_k8s_options o = options();
        cres_error err;
        o.token_file = temp_file("bad-token", bad[i]);
        create(&o);
        err = resolve_fails(CRES_ERR_ENVIRONMENT);
        HAS(err.message, "kubernetes: the token is empty or has spaces, control characters");
        assert_int_equal(C.requests_count, 0);
    }
}

static void token_and_token_file_is_invalid(void **state) {
    cres_k8s_options o = options();
    cres_resolver *r = NULL;
    cres_error err;
    (void)state;
    o.token = "abc";
    o.token_file = temp_file("token", "def");
    EXPECT(cres_k8s_resolver_create(&o, &r, &err), CRES_ERR_INVALID_ARGUMENT);
    assert_null(r);
    HAS(err.message, "token");
}

/* This file's implementation has no CLUSTER_RESOLVER_USE_YAML: a YAML kubeconfig is refused
   with the define and the conversion to JSON named (tests/test_kubeconfig.c reads YAML). */
static void yaml_kubeconfig_without_the_define_names_it(void **state) {
    cres_k8s_options o;
    cres_resolver *r = NULL;
    cres_error err;
    (void)state;
    memset(&o, 0, sizeof o);
    o.config = &C.config;
    o.kubeconfig = temp_file("config", "apiVersion: v1\nkind: Config\ncurrent-context: x\n");
    EXPECT(cres_k8s_resolver_create(&o, &r, &err), CRES_ERR_UNSUPPORTED);
    assert_null(r);
    HAS(err.message, "is YAML: build with CLUSTER_RESOLVER_USE_YAML");
    HAS(err.message, "kubectl config view --raw --minify --flatten -o json");
    o.kubeconfig = temp_file("config.json", "{\"current-context\": \"x\", \"contexts\": [{\"name\": "
                                            "\"x\", \"context\": {\"cluster\": \"c\"}}], \"clusters\": "
                                            "[{\"name\": \"c\", \"cluster\": {\"server\": \"" SERVER "\"}}]}");
    OK(cres_k8s_resolver_create(&o, &r, &err)); /* JSON needs nothing */
    cres_resolver_free(r);
}

/* The token is in the Authorization header and nowhere else: not in the URL, not in another
   header, not in a log message, not in an error message. */
static void token_only_in_authorization_header(void **state) {
    static const char token[] = "sekrit-7f3a9c";
    cres_k8s_options o = options();
    cres_error err;
    size_t i, h;
    (void)state;
    o.token = token;
    script_page(three_workers, 2, "next");
    script(500, "{}");
    script(500, "{}");
    script(500, "{}");
    script(500, "{}");
    create(&o);
    err = resolve_fails(CRES_ERR_HTTP_STATUS);
    assert_int_equal(C.requests_count, 5);
    for (i = 0; i < C.requests_count; i++) {
        assert_string_equal(header(i, "Authorization"), "Bearer sekrit-7f3a9c");
        assert_string_equal(header(i, "Accept"), "application/json");
        assert_int_equal(C.requests[i].headers_count, 2);
        assert_null(strstr(C.requests[i].url, token));
        for (h = 0; h < C.requests[i].headers_count; h++)
            if (strncmp(C.requests[i].headers[h], "Authorization:", 14) != 0)
                assert_null(strstr(C.requests[i].headers[h], token));
    }
    assert_true(C.logs[0] != '\0'); /* something was logged: the check below means something */
    assert_null(strstr(C.logs, token));
    assert_null(strstr(err.message, token));
}

/* kubectl proxy: no token, so no Authorization header at all. */
static void no_token_sends_no_authorization_header(void **state) {
    cres_k8s_options o = options();
    (void)state;
    o.server = "http://127.0.0.1:8001/";
    script_page(three_workers, N(three_workers), NULL);
    create(&o);
    resolved();
    assert_int_equal(C.requests[0].headers_count, 1);
    assert_string_equal(header(0, "Accept"), "application/json");
    assert_null(header(0, "Authorization"));
    assert_false(C.requests[0].has_ca_file);
    /* the trailing slash of options.server is not doubled */
    assert_string_equal(url(0), "http://127.0.0.1:8001/api/v1/namespaces/default/pods"
                                "?labelSelector=job-name%3Dtensorflow&limit=500");
}

static void server_without_http_scheme_is_invalid(void **state) {
    cres_k8s_options o = options();
    cres_resolver *r = NULL;
    cres_error err;
    (void)state;
    o.server = "k8s.test:6443";
    EXPECT(cres_k8s_resolver_create(&o, &r, &err), CRES_ERR_INVALID_ARGUMENT);
    assert_null(r);
}

/* ---------------------------------------------------------------------------------------
   Selectors and membership */

static void label_selector_is_url_encoded(void **state) {
    static const cres_k8s_job_selector jobs[] = {{"worker", "app in (tf, jax),tier!=web,team/x=a&b"}};
    cres_k8s_job_selector jobs2[1];
    cres_k8s_options o = options();
    (void)state;
    o.jobs = jobs;
    o.jobs_count = 1;
    script_page(three_workers, N(three_workers), NULL);
    create(&o);
    resolved();
    assert_string_equal(url(0), NS_URL "?labelSelector=app%20in%20%28tf%2C%20jax%29%2Ctier%21%3Dweb%2Cteam%2Fx%3Da%26b"
                                       "&limit=500");
    /* what RFC 3986 leaves as it is: letters of both cases, digits, "-._~" */
    jobs2[0].job = "worker";
    jobs2[0].selector = "app.kubernetes.io/name=My_App-2~x|{}";
    o.jobs = jobs2;
    script_page(three_workers, N(three_workers), NULL);
    create(&o);
    resolved();
    assert_string_equal(url(1), NS_URL "?labelSelector=app.kubernetes.io%2Fname%3DMy_App-2~x%7C%7B%7D&limit=500");
}

/* We differ from TF on purpose: a pod matched by two selectors of one job is one task (TF
   appends it twice). */
static void pod_matched_by_two_selectors_counted_once(void **state) {
    static const pod a[] = {{.name = "worker-0", .ip = "10.4.0.10"}, {.name = "worker-1", .ip = "10.4.0.11"}};
    static const pod b[] = {{.name = "worker-1", .ip = "10.4.0.11"}, {.name = "worker-2", .ip = "10.4.0.12"}};
    static const cres_k8s_job_selector jobs[] = {{"worker", "role=a"}, {"worker", "role=b"}};
    cres_k8s_options o = options();
    (void)state;
    o.jobs = jobs;
    o.jobs_count = N(jobs);
    script_page(a, N(a), NULL);
    script_page(b, N(b), NULL);
    create(&o);
    assert_string_equal(resolved(), dq(THREE_WORKERS));
}

/* Selector entries of one job need not be next to each other. */
static void selectors_of_one_job_may_be_interleaved(void **state) {
    static const pod w1[] = {{.name = "worker-0", .ip = "10.4.0.10"}};
    static const pod w2[] = {{.name = "worker-1", .ip = "10.4.0.11"}};
    static const pod ps[] = {{.name = "ps-0", .ip = "10.4.1.10"}};
    static const cres_k8s_job_selector jobs[] = {{"worker", "r=w1"}, {"ps", "r=ps"}, {"worker", "r=w2"}};
    cres_k8s_options o = options();
    (void)state;
    o.jobs = jobs;
    o.jobs_count = N(jobs);
    script_page(w1, N(w1), NULL);
    script_page(w2, N(w2), NULL);
    script_page(ps, N(ps), NULL);
    create(&o);
    assert_string_equal(resolved(), dq("{'ps': ['10.4.1.10:8470'], 'worker': ['10.4.0.10:8470', '10.4.0.11:8470']}"));
    HAS(url(1), "labelSelector=r%3Dw2");
    HAS(url(2), "labelSelector=r%3Dps");
}

static void empty_selector_result_gives_empty_job(void **state) {
    static const cres_k8s_job_selector jobs[] = {{"worker", "r=w"}, {"ps", "r=ps"}};
    cres_k8s_options o = options();
    (void)state;
    o.jobs = jobs;
    o.jobs_count = N(jobs);
    script_page(three_workers, N(three_workers), NULL);
    script_page(NULL, 0, NULL);
    create(&o);
    assert_string_equal(resolved(), dq("{'ps': [], 'worker': ['10.4.0.10:8470', '10.4.0.11:8470', '10.4.0.12:8470']}"));
}

/* A selector that matches nothing yet (the Job's pods not created) is an empty job.
   Regression: with no pod listed at all the resolver handed qsort() a NULL array (undefined
   behaviour even for 0 elements; UBSan stopped the program here). */
static void only_job_with_no_pods_is_an_empty_job(void **state) {
    cres_k8s_options o = options();
    (void)state;
    script_page(NULL, 0, NULL);
    create(&o);
    assert_string_equal(resolved(), dq("{'worker': []}"));
}

/* "items": null is how some servers write an empty list. */
static void null_items_is_an_empty_list(void **state) {
    cres_k8s_options o = options();
    (void)state;
    script(200, "{\"kind\": \"PodList\", \"apiVersion\": \"v1\", \"metadata\": {}, \"items\": null}");
    create(&o);
    assert_string_equal(resolved(), dq("{'worker': []}"));
}

/* We differ from TF on purpose: pods being deleted are not members (TF counts them while
   they are still Running). */
static void terminating_pods_are_excluded(void **state) {
    static const pod pods[] = {
        {.name = "worker-0", .ip = "10.4.0.10"},
        {.name = "worker-1-old", .ip = "10.4.0.99", .terminating = 1},
        {.name = "worker-1", .ip = "10.4.0.11"},
        {.name = "worker-2", .ip = "10.4.0.12"},
        {.name = "worker-3", .phase = "Pending", .terminating = 1}, /* not an error either */
    };
    cres_k8s_options o = options();
    (void)state;
    script_page(pods, N(pods), NULL);
    create(&o);
    assert_string_equal(resolved(), dq(THREE_WORKERS));
}

/* A null field is an absent one: a null deletionTimestamp is no deletion, a null completion
   index annotation gives way to the label (b-pod is index 0, before a-pod by index, after it
   by name), a null hostIP is none, and a null podIP is none yet. */
static void null_fields_read_as_absent(void **state) {
    static const char page[] =
        "{'kind': 'PodList', 'apiVersion': 'v1', 'metadata': {'resourceVersion': '7'}, 'items': ["
        "{'metadata': {'name': 'b-pod', 'namespace': 'default', 'deletionTimestamp': null, "
        "'labels': {'" INDEX_KEY "': '0'}, 'annotations': {'" INDEX_KEY "': null}}, 'spec': {'hostname': null}, "
        "'status': {'phase': 'Running', 'podIP': '10.4.0.10', 'hostIP': null}}, "
        "{'metadata': {'name': 'a-pod', 'namespace': 'default', 'labels': {'" INDEX_KEY "': '1'}, "
        "'annotations': {'" INDEX_KEY "': '1'}}, 'status': {'phase': 'Running', 'podIP': '10.4.0.11'}}]}";
    static const char no_ip[] = "{'items': [{'metadata': {'name': 'c-pod'}, 'status': {'phase': 'Running', "
                                "'podIP': null, 'hostIP': '10.128.0.1'}}]}";
    cres_k8s_options o = options();
    cres_error err;
    (void)state;
    script(200, dq(page));
    script(200, dq(no_ip));
    create(&o);
    assert_string_equal(resolved(), dq("{'worker': ['10.4.0.10:8470', '10.4.0.11:8470']}"));
    err = resolve_fails(CRES_ERR_NOT_READY);
    assert_string_equal(err.message, "kubernetes: pod \"c-pod\" is Running but has no status.podIP yet");
    all_replies_used();
}

static void pending_pod_is_not_ready_naming_pod_and_phase(void **state) {
    static const pod pods[] = {
        {.name = "worker-0", .ip = "10.4.0.10"},
        {.name = "worker-1", .phase = "Pending"},
        {.name = "worker-2", .ip = "10.4.0.12"},
    };
    cres_k8s_options o = options();
    cres_error err;
    (void)state;
    script_page(pods, N(pods), NULL);
    create(&o);
    err = resolve_fails(CRES_ERR_NOT_READY);
    HAS(err.message, "\"worker-1\"");
    HAS(err.message, "Pending");
    HAS(err.message, "default");
    no_sleeps();
}

static void pod_without_phase_is_not_ready(void **state) {
    static const pod pods[] = {{.name = "worker-0", .ip = "10.4.0.10", .phase = ""}};
    cres_k8s_options o = options();
    cres_error err;
    (void)state;
    script_page(pods, N(pods), NULL);
    create(&o);
    err = resolve_fails(CRES_ERR_NOT_READY);
    HAS(err.message, "\"worker-0\"");
}

/* Without status.podIP, or with an empty one: not ready yet. */
static void running_pod_without_pod_ip_is_not_ready(void **state) {
    static const pod pods[] = {{.name = "worker-0", .ip = "10.4.0.10"}, {.name = "worker-1", .host_ip = "10.128.0.1"}};
    static const pod empty[] = {{.name = "worker-0", .ip = "10.4.0.10"}, {.name = "worker-1", .ip = ""}};
    cres_k8s_options o = options();
    cres_error err;
    (void)state;
    script_page(pods, N(pods), NULL);
    script_page(empty, N(empty), NULL);
    create(&o);
    err = resolve_fails(CRES_ERR_NOT_READY);
    HAS(err.message, "\"worker-1\"");
    HAS(err.message, "status.podIP");
    err = resolve_fails(CRES_ERR_NOT_READY);
    assert_string_equal(err.message, "kubernetes: pod \"worker-1\" is Running but has no status.podIP yet");
}

static void running_pod_without_host_ip_is_not_ready(void **state) {
    static const pod pods[] = {{.name = "worker-0", .ip = "10.4.0.10"}};
    cres_k8s_options o = options();
    cres_error err;
    (void)state;
    o.address = CRES_K8S_HOST_IP;
    script_page(pods, N(pods), NULL);
    create(&o);
    err = resolve_fails(CRES_ERR_NOT_READY);
    HAS(err.message, "status.hostIP");
}

/* ---------------------------------------------------------------------------------------
   Waiting for pods (wait_ms): the sleep hook records, the resolver measures wall time */

static void wait_pending_then_running_succeeds(void **state) {
    static const pod pending[] = {{.name = "worker-0", .ip = "10.4.0.10"}, {.name = "worker-1", .phase = "Pending"}};
    static const pod running[] = {{.name = "worker-0", .ip = "10.4.0.10"}, {.name = "worker-1", .ip = "10.4.0.11"}};
    static const int want[] = {500};
    cres_k8s_options o = options();
    (void)state;
    o.wait_ms = 60000;
    script_page(pending, N(pending), NULL);
    script_page(running, N(running), NULL);
    create(&o);
    assert_string_equal(resolved(), dq("{'worker': ['10.4.0.10:8470', '10.4.0.11:8470']}"));
    sleeps_were(want, N(want));
    all_replies_used();
    HAS(C.logs, "waiting 500 ms");
}

/* wait_ms 1600 with a sleep hook that returns at once: polls at 0, +500 (asked), +1000 (asked);
   the next pause (2000) would pass the deadline, so it stops. Tolerates 600 ms of real time. */
static void wait_that_times_out_is_not_ready(void **state) {
    static const pod pending[] = {{.name = "worker-0", .phase = "Pending"}};
    static const int want[] = {500, 1000};
    cres_k8s_options o = options();
    cres_error err;
    (void)state;
    o.wait_ms = 1600;
    script_page(pending, N(pending), NULL);
    script_page(pending, N(pending), NULL);
    script_page(pending, N(pending), NULL);
    create(&o);
    err = resolve_fails(CRES_ERR_NOT_READY);
    HAS(err.message, "after waiting");
    HAS(err.message, "\"worker-0\"");
    HAS(err.message, "Pending");
    sleeps_were(want, N(want));
    all_replies_used();
}

/* Polls back off 0.5 s doubling, and stay at 5 s. */
static void wait_backs_off_up_to_5_seconds(void **state) {
    static const pod pending[] = {{.name = "worker-0", .phase = "Pending"}};
    static const pod running[] = {{.name = "worker-0", .ip = "10.4.0.10"}};
    static const int want[] = {500, 1000, 2000, 4000, 5000, 5000, 5000};
    cres_k8s_options o = options();
    size_t i;
    (void)state;
    o.wait_ms = 600000;
    for (i = 0; i < N(want); i++) script_page(pending, N(pending), NULL);
    script_page(running, N(running), NULL);
    create(&o);
    assert_string_equal(resolved(), dq("{'worker': ['10.4.0.10:8470']}"));
    sleeps_were(want, N(want));
    all_replies_used();
}

/* Waiting is for pods that are not ready, not for other failures. */
static void wait_does_not_repeat_other_errors(void **state) {
    cres_k8s_options o = options();
    (void)state;
    o.wait_ms = 60000;
    script(200, "{\"items\": 5}");
    create(&o);
    resolve_fails(CRES_ERR_UNEXPECTED_RESPONSE);
    no_sleeps();
    assert_int_equal(C.requests_count, 1);
}

/* ---------------------------------------------------------------------------------------
   Order: Indexed Job completion index, else natural name order */

static void indexed_job_ordered_by_completion_index(void **state) {
    static const pod pods[] = {
        {.name = "trainer-a", .ip = "10.4.0.12", .index = "2"},
        {.name = "trainer-b", .ip = "10.4.0.10", .index = "0"},
        {.name = "trainer-c", .ip = "10.4.0.11", .index = "1"},
    };
    cres_k8s_options o = options();
    (void)state;
    script_page(pods, N(pods), NULL);
    create(&o);
    assert_string_equal(resolved(), dq(THREE_WORKERS));
}

/* The index is read from the annotation or, when that is missing, the label. */
/* Two Running pods of one namespace holding one index: the Job is replacing a pod. */
static void duplicate_completion_index_is_not_ready(void **state) {
    static const pod replacing[] = {
        {"trainer-0-aaaaa", "10.4.0.10", NULL, NULL, NULL, NULL, NULL, "0", INDEX_BOTH, 0, NULL, NULL, 0},
        {"trainer-1-bbbbb", "10.4.0.11", NULL, NULL, NULL, NULL, NULL, "1", INDEX_BOTH, 0, NULL, NULL, 0},
        {"trainer-1-ccccc", "10.4.0.12", NULL, NULL, NULL, NULL, NULL, "1", INDEX_BOTH, 0, NULL, NULL, 0}};
    static const pod other_namespace[] = {
        {"trainer-0-aaaaa", "10.4.0.10", NULL, NULL, NULL, NULL, NULL, "0", INDEX_BOTH, 0, NULL, NULL, 0},
        {"trainer-0-ddddd", "10.4.1.10", NULL, NULL, "other", NULL, NULL, "0", INDEX_BOTH, 0, NULL, NULL, 0}};
    cres_k8s_options o = options();
    cres_error err;
    (void)state;
    script_page(replacing, N(replacing), NULL);
    create(&o);
    err = resolve_fails(CRES_ERR_NOT_READY);
    HAS(err.message, "\"trainer-1-bbbbb\" and \"trainer-1-ccccc\" both have completion index 1");
    o.all_namespaces = 1; /* one index in two namespaces: two Jobs, both members */
    script_page(other_namespace, N(other_namespace), NULL);
    create(&o);
    assert_string_equal(resolved(), dq("{'worker': ['10.4.0.10:8470', '10.4.1.10:8470']}"));
}

static void completion_index_from_annotation_or_label(void **state) {
    static const pod pods[] = {
        {.name = "trainer-a", .ip = "10.4.0.12", .index = "10", .index_where = INDEX_LABEL_ONLY},
        {.name = "trainer-b", .ip = "10.4.0.10", .index = "2", .index_where = INDEX_ANNOTATION_ONLY},
        {.name = "trainer-c", .ip = "10.4.0.11", .index = "3", .index_where = INDEX_LABEL_ONLY},
    };
    cres_k8s_options o = options();
    (void)state;
    script_page(pods, N(pods), NULL);
    create(&o);
    assert_string_equal(resolved(), dq(THREE_WORKERS));
}

/* One pod without an index: the whole job goes by name, naturally. */
static void natural_name_order_when_a_pod_lacks_an_index(void **state) {
    static const pod pods[] = {
        {.name = "worker-10", .ip = "10.4.0.12", .index = "0"},
        {.name = "worker-2", .ip = "10.4.0.11", .index = "1"},
        {.name = "worker-1", .ip = "10.4.0.10"},
    };
    cres_k8s_options o = options();
    (void)state;
    script_page(pods, N(pods), NULL);
    create(&o);
    assert_string_equal(resolved(), dq(THREE_WORKERS));
}

/* A completion index that is there but not an index is a corrupt answer, not "no index". */
static void malformed_completion_index_is_unexpected(void **state) {
    static const char *const bad[] = {"99999999999999999999", "-1", "x1", "2147483648"};
    static const char *const why[] = {"is out of range (0 to 2147483647): \"99999999999999999999\"",
                                      "must not be negative: \"-1\"", "must be an integer, not \"x1\"",
                                      "is out of range (0 to 2147483647): \"2147483648\""};
    size_t i;
    for (i = 0; i < N(bad); i++) {
        const pod pods[] = {{.name = "trainer-0", .ip = "10.4.0.10", .index = "0"},
                            {.name = "trainer-1", .ip = "10.4.0.11", .index = bad[i]}};
        cres_k8s_options o = options();
        cres_error err;
        script_page(pods, N(pods), NULL);
        create(&o);
        err = resolve_fails(CRES_ERR_UNEXPECTED_RESPONSE);
        HAS(err.message, "pod \"trainer-1\": batch.kubernetes.io/job-completion-index");
        HAS(err.message, why[i]);
    }
    (void)state;
}

/* We differ from TF on purpose: worker-2 before worker-10 (TF's string sort puts worker-10
   first); leading zeros do not change a number. */
static void natural_name_order(void **state) {
    static const pod pods[] = {
        {.name = "worker-10", .ip = "10.4.0.14"},
        {.name = "worker-2", .ip = "10.4.0.12"},
        {.name = "worker-1", .ip = "10.4.0.10"},
        {.name = "worker-01b", .ip = "10.4.0.11"},
        {.name = "worker-9", .ip = "10.4.0.13"},
    };
    cres_k8s_options o = options();
    (void)state;
    script_page(pods, N(pods), NULL);
    create(&o);
    assert_string_equal(resolved(), dq("{'worker': ['10.4.0.10:8470', '10.4.0.11:8470', '10.4.0.12:8470', "
                                       "'10.4.0.13:8470', '10.4.0.14:8470']}"));
}

/* ---------------------------------------------------------------------------------------
   JobSets: one Job per replica of each replicated job, whose completion indices each start at
   0. Here JobSet "js" has replicated jobs "workers" then "driver", 2 replicas of 2 pods each:
   job-global-index 0-1 are workers' Jobs, 2-3 driver's (kubernetes-sigs/jobset,
   globalJobIndex), so names in natural order ("driver" first) are not the order. Pod
   "js-<rjob>-<job>-<pod>-<5 chars>", hostname without the 5 chars, subdomain the JobSet's. */

#define JS_POD(host, ip_, index_, global_)                                                          \
    {.name = "js-" host "-x7k2p", .ip = ip_, .hostname = "js-" host, .subdomain = "js", .index = index_, \
     .jobset = "js", .global = global_}

/* The 8 pods, rank r at 10.4.0.(10 + r), as a shuffled list over two pages. */
static const pod jobset_page1[] = {JS_POD("driver-1-0", "10.4.0.16", "0", "3"), JS_POD("workers-1-1", "10.4.0.13", "1", "1"),
                                   JS_POD("driver-0-0", "10.4.0.14", "0", "2"), JS_POD("workers-0-0", "10.4.0.10", "0", "0")};
static const pod jobset_page2[] = {JS_POD("workers-1-0", "10.4.0.12", "0", "1"), JS_POD("driver-1-1", "10.4.0.17", "1", "3"),
                                   JS_POD("workers-0-1", "10.4.0.11", "1", "0"), JS_POD("driver-0-1", "10.4.0.15", "1", "2")};
#define JOBSET_SPEC                                                                                                   \
    "{'worker': ['10.4.0.10:8470', '10.4.0.11:8470', '10.4.0.12:8470', '10.4.0.13:8470', '10.4.0.14:8470', "         \
    "'10.4.0.15:8470', '10.4.0.16:8470', '10.4.0.17:8470']}"
#define JOBSET_SELECTOR_URL "labelSelector=jobset.sigs.k8s.io%2Fjobset-name%3Djs&"

static void script_jobset(void) {
    script_page(jobset_page1, N(jobset_page1), "page-2");
    script_page(jobset_page2, N(jobset_page2), NULL);
}

static const cres_k8s_job_selector jobset_js[] = {{"worker", JOBSET_KEY "=js"}};

/* The issue's case: Jobs js-workers-0 and js-workers-1 both have completion index 0, which
   is no replacement but the next Job of the JobSet. */
static void jobset_ordered_by_global_index_then_completion_index(void **state) {
    cres_k8s_options o = options();
    (void)state;
    o.jobs = jobset_js;
    o.jobs_count = 1;
    o.hostname = "js-driver-0-1";
    script_jobset();
    create(&o);
    assert_string_equal(resolved(), dq(JOBSET_SPEC));
    all_replies_used();
    HAS(url(0), JOBSET_SELECTOR_URL);
    HAS(url(1), "&continue=page-2");
    assert_string_equal(cres_task_type(C.r), "worker");
    assert_int_equal(cres_task_id(C.r), 5);
}

/* Launch info in the JobSet order: one pod a node, the master global rank 0's pod. */
static void jobset_launch_info(void **state) {
    cres_k8s_options o = options();
    cres_launch_info info;
    cres_error err;
    (void)state;
    o.jobs = jobset_js;
    o.jobs_count = 1;
    o.hostname = "js-workers-1-1";
    script_jobset();
    create(&o);
    OK(cres_launch(C.r, &info, &err));
    assert_int_equal(info.world_size, 8);
    assert_int_equal(info.rank, 3);
    assert_int_equal(info.local_rank, 0);
    assert_int_equal(info.local_world_size, 1);
    assert_int_equal(info.node_rank, 3);
    assert_int_equal(info.num_nodes, 8);
    assert_string_equal(info.master_address, "10.4.0.10:8470");
    assert_string_equal(info.master_host, "10.4.0.10");
    assert_int_equal(info.master_port, 8470);
    all_replies_used();
}

/* job-global-index as a number (Job 10 after Job 2), from the label or, without it, the
   annotation; completion indices within each Job. */
static void jobset_global_index_from_label_or_annotation(void **state) {
    static const pod pods[] = {
        {.name = "js-a-10-0-x", .ip = "10.4.0.12", .index = "0", .jobset = "js", .global = "10",
         .global_where = INDEX_ANNOTATION_ONLY},
        {.name = "js-a-2-1-x", .ip = "10.4.0.11", .index = "1", .jobset = "js", .global = "2", .global_where = INDEX_LABEL_ONLY},
        {.name = "js-a-2-0-x", .ip = "10.4.0.10", .index = "0", .jobset = "js", .global = "2"},
    };
    cres_k8s_options o = options();
    (void)state;
    script_page(pods, N(pods), NULL);
    create(&o);
    assert_string_equal(resolved(), dq(THREE_WORKERS));
}

/* A JobSet of NonIndexed Jobs: no completion indices, so names order the pods, but within
   job-global-index order ("js-workers-0" is Job 0, before "js-leader-0", Job 1, before
   "js-workers-1", Job 2). */
static void jobset_without_completion_indices_ordered_by_global_index(void **state) {
    static const pod pods[] = {
        {.name = "js-leader-0-x2b4c", .ip = "10.4.0.12", .jobset = "js", .global = "1"},
        {.name = "js-workers-0-q9z8a", .ip = "10.4.0.11", .jobset = "js", .global = "0"},
        {.name = "js-workers-0-a1b2c", .ip = "10.4.0.10", .jobset = "js", .global = "0"},
        {.name = "js-workers-1-b5d7e", .ip = "10.4.0.13", .jobset = "js", .global = "2"},
    };
    cres_k8s_options o = options();
    (void)state;
    o.jobs = jobset_js;
    o.jobs_count = 1;
    o.hostname = "js-leader-0-x2b4c";
    script_page(pods, N(pods), NULL);
    create(&o);
    assert_string_equal(resolved(), dq("{'worker': ['10.4.0.10:8470', '10.4.0.11:8470', '10.4.0.12:8470', '10.4.0.13:8470']}"));
    assert_int_equal(cres_task_id(C.r), 2);
    all_replies_used();
}

/* Two pods of one Job (one job-global-index) with one completion index: the Job is replacing
   a pod. One index in two Jobs of the JobSet is the normal case. */
static void jobset_duplicate_index_only_within_one_job(void **state) {
    static const pod two_jobs[] = {
        {.name = "js-workers-1-0-x", .ip = "10.4.0.11", .index = "0", .jobset = "js", .global = "1"},
        {.name = "js-workers-0-0-x", .ip = "10.4.0.10", .index = "0", .jobset = "js", .global = "0"},
    };
    static const pod replacing[] = {
        {.name = "js-workers-0-0-x", .ip = "10.4.0.10", .index = "0", .jobset = "js", .global = "0"},
        {.name = "js-workers-1-0-a", .ip = "10.4.0.11", .index = "0", .jobset = "js", .global = "1"},
        {.name = "js-workers-1-0-b", .ip = "10.4.0.12", .index = "0", .jobset = "js", .global = "1"},
    };
    cres_k8s_options o = options();
    cres_error err;
    (void)state;
    script_page(two_jobs, N(two_jobs), NULL);
    script_page(replacing, N(replacing), NULL);
    create(&o);
    assert_string_equal(resolved(), dq("{'worker': ['10.4.0.10:8470', '10.4.0.11:8470']}"));
    err = resolve_fails(CRES_ERR_NOT_READY);
    HAS(err.message, "pods \"js-workers-1-0-a\" and \"js-workers-1-0-b\" both have completion index 0 in "
                     "job-global-index 1");
}

/* A JobSet pod without a usable job-global-index cannot be placed: an error naming the pod
   and the label, as for a malformed completion index (never a fall back to names). */
static void jobset_missing_or_malformed_global_index_is_unexpected(void **state) {
    static const char *const bad[] = {NULL, "x1", "-1", "", "2147483648"};
    static const char *const why[] = {("is missing, but the pod has " JOBSET_KEY), "must be an integer, not \"x1\"",
                                      "must not be negative: \"-1\"", "must be an integer, not \"\"",
                                      "is out of range (0 to 2147483647): \"2147483648\""};
    size_t i;
    (void)state;
    for (i = 0; i < N(bad); i++) {
        const pod pods[] = {{.name = "js-w-0-0-x", .ip = "10.4.0.10", .index = "0", .jobset = "js", .global = "0"},
                            {.name = "js-w-1-0-x", .ip = "10.4.0.11", .index = "0", .jobset = "js", .global = bad[i]}};
        cres_k8s_options o = options();
        cres_error err;
        script_page(pods, N(pods), NULL);
        create(&o);
        err = resolve_fails(CRES_ERR_UNEXPECTED_RESPONSE);
        HAS(err.message, "kubernetes: pod \"js-w-1-0-x\": " GLOBAL_KEY " ");
        HAS(err.message, why[i]);
    }
}

/* Nothing orders a JobSet against other pods, or two JobSets (a name in two namespaces is
   two JobSets): the selector must pick one. */
static void jobset_mixed_with_other_pods_is_a_conflict(void **state) {
    static const pod with_plain[] = {
        {.name = "js-w-0-0-x", .ip = "10.4.0.10", .index = "0", .jobset = "js", .global = "0"},
        {.name = "trainer-0-x", .ip = "10.4.0.11", .index = "0"},
    };
    static const pod two_jobsets[] = {
        {.name = "js-w-0-0-x", .ip = "10.4.0.10", .index = "0", .jobset = "js", .global = "0"},
        {.name = "other-w-0-0-x", .ip = "10.4.0.11", .index = "0", .jobset = "other", .global = "0"},
    };
    static const pod two_namespaces[] = {
        {.name = "js-w-0-0-x", .ip = "10.4.0.10", .index = "0", .jobset = "js", .global = "0"},
        {.name = "js-w-0-0-x", .ip = "10.4.1.10", .ns = "ml", .index = "0", .jobset = "js", .global = "0"},
    };
    cres_k8s_options o = options();
    cres_error err;
    (void)state;
    o.all_namespaces = 1;
    script_page(with_plain, N(with_plain), NULL);
    script_page(two_jobsets, N(two_jobsets), NULL);
    script_page(two_namespaces, N(two_namespaces), NULL);
    create(&o);
    err = resolve_fails(CRES_ERR_CONFLICT);
    HAS(err.message, "kubernetes: job \"worker\" mixes pod \"trainer-0-x\" (no JobSet) with pod \"js-w-0-0-x\" "
                     "(JobSet \"js\" in default); select one JobSet (" JOBSET_KEY "=NAME) or none");
    err = resolve_fails(CRES_ERR_CONFLICT);
    HAS(err.message, "(JobSet \"other\" in default)");
    err = resolve_fails(CRES_ERR_CONFLICT);
    HAS(err.message, "(JobSet \"js\" in default) with pod \"js-w-0-0-x\" (JobSet \"js\" in ml)");
}

/* ---------------------------------------------------------------------------------------
   follow_jobset: from one Job's pods to the whole JobSet (what auto does in an Indexed Job
   pod, whose HOSTNAME names only its Job) */

static const cres_k8s_job_selector one_job_of_js[] = {{"worker", "job-name=js-workers-1"}};

static cres_k8s_options follow_options(const char *hostname) {
    cres_k8s_options o = options();
    o.jobs = one_job_of_js;
    o.jobs_count = 1;
    o.follow_jobset = 1;
    o.hostname = hostname;
    return o;
}

/* The own pod, found by spec.hostname among its Job's pods, names JobSet "js": the job is
   listed again as the whole JobSet, in the JobSet's order, and the own task is its rank. */
static void follow_jobset_widens_to_the_whole_jobset(void **state) {
    static const pod own_job[] = {JS_POD("workers-1-1", "10.4.0.13", "1", "1"), JS_POD("workers-1-0", "10.4.0.12", "0", "1")};
    cres_k8s_options o = follow_options("js-workers-1-1");
    cres_launch_info info;
    cres_error err;
    (void)state;
    script_page(own_job, N(own_job), NULL);
    script_jobset();
    create(&o);
    assert_string_equal(resolved(), dq(JOBSET_SPEC));
    assert_int_equal(C.requests_count, 3);
    HAS(url(0), "labelSelector=job-name%3Djs-workers-1&");
    assert_string_equal(url(1), NS_URL "?" JOBSET_SELECTOR_URL "limit=500");
    HAS(url(2), JOBSET_SELECTOR_URL "limit=500&continue=page-2");
    assert_string_equal(cres_task_type(C.r), "worker");
    assert_int_equal(cres_task_id(C.r), 3);
    HAS(C.logs, "kubernetes: job \"worker\": the own pod \"js-workers-1-1-x7k2p\" belongs to JobSet \"js\"; "
                "resolving the whole JobSet (" JOBSET_KEY "=js)\n");
    /* launch info resolves again, the same way */
    script_page(own_job, N(own_job), NULL);
    script_jobset();
    OK(cres_launch(C.r, &info, &err));
    assert_int_equal(info.world_size, 8);
    assert_int_equal(info.rank, 3);
    assert_int_equal(info.node_rank, 3);
    assert_string_equal(info.master_host, "10.4.0.10");
    all_replies_used();
}

/* A plain Indexed Job's pod: nothing to follow, one list, the Job alone. */
static void follow_jobset_keeps_a_plain_indexed_job(void **state) {
    static const pod pods[] = {
        {.name = "trainer-1-xp8x7", .ip = "10.4.0.11", .hostname = "trainer-1", .subdomain = "trainer", .index = "1"},
        {.name = "trainer-0-pkwzt", .ip = "10.4.0.10", .hostname = "trainer-0", .subdomain = "trainer", .index = "0"},
    };
    cres_k8s_options o = follow_options("trainer-1");
    (void)state;
    script_page(pods, N(pods), NULL);
    create(&o);
    assert_string_equal(resolved(), dq("{'worker': ['10.4.0.10:8470', '10.4.0.11:8470']}"));
    all_replies_used();
    assert_int_equal(cres_task_id(C.r), 1);
    HAS(C.logs, "kubernetes: job \"worker\": the own pod \"trainer-1-xp8x7\" belongs to no JobSet\n");
}

/* The own pod not among the Job's pods (another HOSTNAME, or none): the Job alone, said so. */
static void follow_jobset_without_the_own_pod_keeps_the_job(void **state) {
    static const pod own_job[] = {JS_POD("workers-1-1", "10.4.0.13", "1", "1"), JS_POD("workers-1-0", "10.4.0.12", "0", "1")};
    cres_k8s_options o = follow_options("laptop");
    (void)state;
    script_page(own_job, N(own_job), NULL);
    script_page(own_job, N(own_job), NULL);
    create(&o);
    assert_string_equal(resolved(), dq("{'worker': ['10.4.0.12:8470', '10.4.0.13:8470']}"));
    HAS(C.logs, "kubernetes: job \"worker\": the own pod (\"laptop\") is not among its pods; resolving its selectors "
                "alone, not following a JobSet\n");
    o.hostname = NULL; /* and no $HOSTNAME */
    create(&o);
    resolved();
    HAS(C.logs, "the own pod (no hostname) is not among its pods");
    all_replies_used();
}

/* All namespaces: the JobSet is listed in the own pod's namespace only (in every namespace
   when the answer gives the pod none). A job already selected by the JobSet's label alone is
   not listed twice. */
static void follow_jobset_namespace_and_no_second_list(void **state) {
    static const pod own_job[] = {
        {.name = "js-w-0-0-x", .ip = "10.4.0.10", .ns = "ml", .hostname = "js-w-0-0", .index = "0", .jobset = "js", .global = "0"}};
    static const pod no_ns[] = {
        {.name = "js-w-0-0-x", .ip = "10.4.0.10", .ns = "", .hostname = "js-w-0-0", .index = "0", .jobset = "js", .global = "0"}};
    cres_k8s_options o = follow_options("js-w-0-0");
    (void)state;
    o.all_namespaces = 1;
    script_page(own_job, N(own_job), NULL);
    script_page(own_job, N(own_job), NULL);
    create(&o);
    resolved();
    HAS(url(0), SERVER "/api/v1/pods?");
    assert_string_equal(url(1), SERVER "/api/v1/namespaces/ml/pods?" JOBSET_SELECTOR_URL "limit=500");
    script_page(no_ns, N(no_ns), NULL); /* an own pod without a namespace: every namespace's */
    script_page(no_ns, N(no_ns), NULL);
    create(&o);
    assert_string_equal(resolved(), dq("{'worker': ['10.4.0.10:8470']}"));
    assert_string_equal(url(3), SERVER "/api/v1/pods?" JOBSET_SELECTOR_URL "limit=500");
    o.all_namespaces = 0;
    o.jobs = jobset_js;
    script_page(own_job, N(own_job), NULL);
    create(&o);
    assert_string_equal(resolved(), dq("{'worker': ['10.4.0.10:8470']}"));
    all_replies_used();
    assert_int_equal(C.requests_count, 5);
}

/* With two jobs, each follows on its own: worker's own pod is of JobSet "train-js.v_1" (a
   label value with '-', '.' and '_'), listed whole; ps holds no own pod and stays as it is. */
static void follow_jobset_of_one_job_among_two(void **state) {
    static const cres_k8s_job_selector jobs[] = {{"worker", "job-name=train-js.v_1-w-0"}, {"ps", "job-name=ps"}};
    static const pod own_job[] = {{.name = "train-js.v_1-w-0-0-x", .ip = "10.4.0.10", .hostname = "tw-0",
                                   .index = "0", .jobset = "train-js.v_1", .global = "0"}};
    static const pod whole[] = {
        {.name = "train-js.v_1-w-1-0-x", .ip = "10.4.0.11", .index = "0", .jobset = "train-js.v_1", .global = "1"},
        {.name = "train-js.v_1-w-0-0-x", .ip = "10.4.0.10", .hostname = "tw-0", .index = "0", .jobset = "train-js.v_1",
         .global = "0"}};
    static const pod ps[] = {{.name = "ps-0", .ip = "10.4.1.10"}};
    cres_k8s_options o = follow_options("tw-0");
    (void)state;
    o.jobs = jobs;
    o.jobs_count = N(jobs);
    script_page(own_job, N(own_job), NULL);
    script_page(whole, N(whole), NULL);
    script_page(ps, N(ps), NULL);
    create(&o);
    assert_string_equal(resolved(), dq("{'ps': ['10.4.1.10:8470'], 'worker': ['10.4.0.10:8470', '10.4.0.11:8470']}"));
    assert_string_equal(url(1), NS_URL "?labelSelector=jobset.sigs.k8s.io%2Fjobset-name%3Dtrain-js.v_1&limit=500");
    HAS(url(2), "labelSelector=job-name%3Dps&");
    HAS(C.logs, "kubernetes: job \"ps\": the own pod (\"tw-0\") is not among its pods");
    assert_string_equal(cres_task_type(C.r), "worker");
    assert_int_equal(cres_task_id(C.r), 0);
    all_replies_used();
}

/* A JobSet name that no API server would store as a label would change the selector it goes
   into ("js,app" selects by two labels): refused, as are an empty one and one of 64 bytes. */
static void follow_jobset_refuses_a_name_that_is_no_label_value(void **state) {
    static const char *const bad[] = {"js,app", "-js", "js.", "a b", "",
                                      "js-a-name-of-sixty-four-bytes-one-more-than-a-label-value-holds1"};
    size_t i;
    (void)state;
    for (i = 0; i < N(bad); i++) {
        const pod own[] = {{.name = "w-0-x", .ip = "10.4.0.10", .hostname = "w-0", .index = "0", .jobset = bad[i], .global = "0"}};
        cres_k8s_options o = follow_options("w-0");
        cres_error err;
        script_page(own, N(own), NULL);
        create(&o);
        err = resolve_fails(CRES_ERR_UNEXPECTED_RESPONSE);
        HAS(err.message, "kubernetes: pod \"w-0-x\": " JOBSET_KEY " \"");
        HAS(err.message, "\" is not a label value");
    }
    all_replies_used();
}

/* Auto in a JobSet's pod: JOB_COMPLETION_INDEX and HOSTNAME "<js>-<rjob>-<job>-<pod>" name
   the Job; auto lists it with follow_jobset, and says so. (The resolve itself, in cluster,
   reads the service account's token file: tests/k8s/test_k8s_integration.py runs it end to
   end; follow_jobset_widens_to_the_whole_jobset has the same options.) */
static void auto_in_a_jobset_pod_follows_the_jobset(void **state) {
    cres_auto_options o;
    cres_cluster_spec *spec = NULL;
    cres_error err;
    (void)state;
    memset(&o, 0, sizeof o);
    o.config = &C.config;
    env_set("KUBERNETES_SERVICE_HOST", "10.96.0.1");
    env_set("KUBERNETES_SERVICE_PORT", "443");
    env_set("JOB_COMPLETION_INDEX", "1");
    env_set("HOSTNAME", "js-workers-1-1");
    OK(cres_auto_resolver_create(&o, &C.r, &err));
    assert_string_equal(cres_resolver_name(C.r), "kubernetes");
    HAS(C.logs, "auto: using the kubernetes backend: KUBERNETES_SERVICE_HOST and JOB_COMPLETION_INDEX (an Indexed "
                "Job); job \"worker\" = job-name=js-workers-1, or the whole JobSet when the own pod is in one; "
                "members named from the Job, else listed\n");
    if (access(SA_DIR "token", F_OK) == 0) return; /* really inside a pod */
    EXPECT(cres_resolve(C.r, &spec, &err), CRES_ERR_ENVIRONMENT);
    HAS(err.message, SA_DIR "token");
    assert_int_equal(C.requests_count, 0);
}

/* ---------------------------------------------------------------------------------------
   The own task */

static void own_task_from_pod_name(void **state) {
    cres_k8s_options o = options();
    (void)state;
    o.hostname = "worker-1";
    script_page(three_workers, N(three_workers), NULL);
    script_page(three_workers, N(three_workers), NULL);
    create(&o);
    assert_null(cres_task_type(C.r));
    assert_int_equal(cres_task_id(C.r), -1);
    resolved();
    assert_string_equal(cres_task_type(C.r), "worker");
    assert_int_equal(cres_task_id(C.r), 1);
    assert_string_equal(master_of(NULL, -1, NULL), "grpc://10.4.0.11:8470");
}

/* An Indexed Job pod's $HOSTNAME is its spec.hostname ("trainer-1"), not its name. */
static void own_task_from_spec_hostname_of_indexed_job(void **state) {
    static const pod pods[] = {
        {.name = "trainer-1-xp8x7", .ip = "10.4.0.11", .hostname = "trainer-1", .subdomain = "trainer", .index = "1"},
        {.name = "trainer-0-pkwzt", .ip = "10.4.0.10", .hostname = "trainer-0", .subdomain = "trainer", .index = "0"},
    };
    static const cres_k8s_job_selector jobs[] = {{"trainer", "job-name=trainer"}};
    cres_k8s_options o = options();
    (void)state;
    o.jobs = jobs;
    o.jobs_count = 1;
    o.hostname = "trainer-1";
    script_page(pods, N(pods), NULL);
    create(&o);
    assert_string_equal(master_of(NULL, -1, NULL), "grpc://10.4.0.11:8470");
    assert_string_equal(cres_task_type(C.r), "trainer");
    assert_int_equal(cres_task_id(C.r), 1);
}

/* options.hostname NULL: $HOSTNAME, read through the getenv hook. */
static void own_task_from_hostname_variable(void **state) {
    cres_k8s_options o = options();
    (void)state;
    env_set("HOSTNAME", "worker-2");
    script_page(three_workers, N(three_workers), NULL);
    create(&o);
    resolved();
    assert_string_equal(cres_task_type(C.r), "worker");
    assert_int_equal(cres_task_id(C.r), 2);
}

/* A pod that two jobs select: the last job (in options order) holds the own task, set once
   per resolve, so resolving the same answers again keeps the getter's string (found by
   fuzz_k8s_pods: it used to be freed and made again between the jobs). */
static void own_task_in_two_jobs_is_stable_across_resolves(void **state) {
    static const pod pods[] = {{.name = "worker-0", .ip = "10.4.0.10"}, {.name = "worker-1", .ip = "10.4.0.11"}};
    static const cres_k8s_job_selector jobs[] = {{"worker", "job-name=tensorflow"}, {"ps", "app=tf"}};
    cres_k8s_options o = options();
    const char *type;
    (void)state;
    o.jobs = jobs;
    o.jobs_count = N(jobs);
    o.hostname = "worker-1";
    script_page(pods, N(pods), NULL);
    script_page(pods, N(pods), NULL);
    script_page(pods, N(pods), NULL);
    script_page(pods, N(pods), NULL);
    create(&o);
    resolved();
    type = cres_task_type(C.r);
    assert_string_equal(type, "ps");
    assert_int_equal(cres_task_id(C.r), 1);
    resolved();
    assert_ptr_equal(cres_task_type(C.r), type);
    assert_string_equal(type, "ps");
}

/* No pod named like this host: no own task, and master() is "" as in TF. */
static void no_own_task_gives_empty_master(void **state) {
    cres_k8s_options o = options();
    (void)state;
    o.hostname = "laptop";
    script_page(three_workers, N(three_workers), NULL);
    create(&o);
    assert_string_equal(master_of(NULL, -1, NULL), "");
    assert_null(cres_task_type(C.r));
    assert_int_equal(cres_task_id(C.r), -1);
}

static void set_task_override_wins_over_hostname(void **state) {
    cres_k8s_options o = options();
    cres_error err;
    (void)state;
    o.hostname = "worker-1";
    script_page(three_workers, N(three_workers), NULL);
    script_page(three_workers, N(three_workers), NULL);
    create(&o);
    OK(cres_set_task(C.r, "worker", 2, &err));
    resolved();
    assert_string_equal(cres_task_type(C.r), "worker");
    assert_int_equal(cres_task_id(C.r), 2);
    assert_string_equal(master_of(NULL, -1, NULL), "grpc://10.4.0.12:8470");
}

static void options_task_wins_over_hostname(void **state) {
    cres_k8s_options o = options();
    (void)state;
    o.hostname = "worker-1";
    o.task_type = "worker";
    o.task_id = 0;
    script_page(three_workers, N(three_workers), NULL);
    create(&o);
    resolved();
    assert_string_equal(cres_task_type(C.r), "worker");
    assert_int_equal(cres_task_id(C.r), 0);
}

static void rpc_layer_default_and_option(void **state) {
    cres_k8s_options o = options();
    (void)state;
    o.hostname = "worker-0";
    script_page(three_workers, N(three_workers), NULL);
    script_page(three_workers, N(three_workers), NULL);
    create(&o);
    assert_string_equal(cres_rpc_layer(C.r), "grpc");
    assert_string_equal(master_of(NULL, -1, ""), "10.4.0.10:8470");
    o.rpc_layer = "";
    create(&o);
    assert_null(cres_rpc_layer(C.r));
    assert_string_equal(master_of(NULL, -1, NULL), "10.4.0.10:8470");
}

/* ---------------------------------------------------------------------------------------
   HTTP statuses, retries and backoff */

static void unauthorized_401_mentions_the_token(void **state) {
    cres_k8s_options o = options();
    cres_error err;
    (void)state;
    o.token = "expired";
    script(401, "{\"kind\": \"Status\", \"apiVersion\": \"v1\", \"metadata\": {}, \"status\": \"Failure\", "
                "\"message\": \"Unauthorized\", \"reason\": \"Unauthorized\", \"code\": 401}");
    create(&o);
    err = resolve_fails(CRES_ERR_HTTP_STATUS);
    assert_int_equal(err.http_status, 401);
    HAS(err.message, "401");
    HAS(err.message, "token");
    assert_int_equal(C.requests_count, 1); /* not retried */
    no_sleeps();
}

/* Without an error struct a failure is its result alone: a status, a transport failure; a
   wait for pods logs that it waits without the pod's words. */
static void failures_without_an_error_struct(void **state) {
    static const pod pending[] = {{.name = "worker-0", .phase = "Pending"}};
    static const pod running[] = {{.name = "worker-0", .ip = "10.4.0.10"}};
    cres_k8s_options o = options();
    cres_cluster_spec *s = NULL;
    (void)state;
    C.config.max_retries = -1;
    script(403, "{\"kind\": \"Status\", \"message\": \"no\"}");
    script_fail(CRES_ERR_TRANSPORT);
    create(&o);
    assert_int_equal(cres_resolve(C.r, &s, NULL), CRES_ERR_HTTP_STATUS);
    assert_null(s);
    assert_int_equal(cres_resolve(C.r, &s, NULL), CRES_ERR_TRANSPORT);
    assert_null(s);
    assert_int_equal(C.requests_count, 2);
    o.wait_ms = 60000;
    script_page(pending, N(pending), NULL);
    script_page(running, N(running), NULL);
    create(&o);
    assert_int_equal(cres_resolve(C.r, &s, NULL), CRES_OK);
    assert_string_equal(json_of(s), dq("{'worker': ['10.4.0.10:8470']}"));
    cres_spec_free(s);
    HAS(C.logs, "kubernetes: not ready; waiting 500 ms\n");
    all_replies_used();
}

/* What a real API server says to a service account without RBAC rights: the Status message
   and our hint (which resource and verb to grant) must both reach the user. */
static void forbidden_403_gives_status_message_and_rbac_hint(void **state) {
    cres_k8s_options o = options();
    cres_error err;
    (void)state;
    script(403, "{\"kind\": \"Status\", \"apiVersion\": \"v1\", \"metadata\": {}, \"status\": \"Failure\", "
                "\"message\": \"pods is forbidden: User \\\"system:serviceaccount:ml:default\\\" cannot list "
                "resource \\\"pods\\\" in API group \\\"\\\" in the namespace \\\"ml\\\"\", "
                "\"reason\": \"Forbidden\", \"details\": {\"kind\": \"pods\"}, \"code\": 403}");
    create(&o);
    err = resolve_fails(CRES_ERR_HTTP_STATUS);
    assert_int_equal(err.http_status, 403);
    HAS(err.message, "403");
    HAS(err.message, "system:serviceaccount:ml:default");
    HAS(err.message, "Role");
    HAS(err.message, "resources [\"pods\"]");
    HAS(err.message, "verbs [\"list\"]");
    assert_int_equal(C.requests_count, 1);
}

/* The Status message is JSON text: the user must read its quotes, not JSON escapes. */
static void forbidden_403_status_message_is_unescaped(void **state) {
    cres_k8s_options o = options();
    cres_error err;
    (void)state;
    script(403, "{\"kind\": \"Status\", \"message\": \"pods is forbidden: User \\\"system:anonymous\\\" cannot "
                "list resource \\\"pods\\\"\", \"code\": 403}");
    create(&o);
    err = resolve_fails(CRES_ERR_HTTP_STATUS);
    HAS(err.message, "User \"system:anonymous\" cannot list resource \"pods\"");
}

/* The hint alone, with a short Status message. */
static void forbidden_403_short_message_has_rbac_hint(void **state) {
    cres_k8s_options o = options();
    cres_error err;
    (void)state;
    script(403, "{\"kind\": \"Status\", \"message\": \"forbidden\", \"code\": 403}");
    create(&o);
    err = resolve_fails(CRES_ERR_HTTP_STATUS);
    HAS(err.message, "forbidden");
    HAS(err.message, "\"pods\"");
    HAS(err.message, "\"list\"");
}

static void not_found_404_is_http_status(void **state) {
    cres_k8s_options o = options();
    cres_error err;
    (void)state;
    script(404, "{\"kind\": \"Status\", \"message\": \"namespaces \\\"nope\\\" not found\", \"code\": 404}");
    create(&o);
    err = resolve_fails(CRES_ERR_HTTP_STATUS);
    assert_int_equal(err.http_status, 404);
    HAS(err.message, "404");
    HAS(err.message, "not found");
    assert_int_equal(C.requests_count, 1);
    no_sleeps();
}

/* A 404 from something that is not the API (a proxy's HTML page) is still HTTP 404. */
static void error_status_with_non_json_body(void **state) {
    cres_k8s_options o = options();
    cres_error err;
    (void)state;
    script(404, "<html><body>404 page not found</body></html>");
    create(&o);
    err = resolve_fails(CRES_ERR_HTTP_STATUS);
    assert_int_equal(err.http_status, 404);
}

static void server_error_500_retried_then_succeeds(void **state) {
    static const int lo[] = {250, 500}, hi[] = {375, 750};
    cres_k8s_options o = options();
    (void)state;
    script(500, "{\"kind\": \"Status\", \"message\": \"etcdserver: request timed out\", \"code\": 500}");
    script(500, NULL); /* no body at all */
    script_page(three_workers, N(three_workers), NULL);
    create(&o);
    assert_string_equal(resolved(), dq(THREE_WORKERS));
    sleeps_between(lo, hi, N(lo));
    assert_int_equal(C.requests_count, 3);
    assert_string_equal(url(2), url(0));
}

static void unavailable_503_honours_retry_after(void **state) {
    static const int lo[] = {2000}, hi[] = {4000};
    cres_k8s_options o = options();
    (void)state;
    script_retry_after(503, 2);
    script_page(three_workers, N(three_workers), NULL);
    create(&o);
    assert_string_equal(resolved(), dq(THREE_WORKERS));
    sleeps_between(lo, hi, N(lo));
}

/* A Retry-After of an hour is capped (CRES_MAX_RETRY_AFTER_MS, 32 s, with no jitter above it);
   backoff goes on doubling underneath, so the next plain retry waits 500 to 750 ms. */
static void retry_after_is_capped(void **state) {
    static const int lo[] = {32000, 500}, hi[] = {32000, 750};
    cres_k8s_options o = options();
    (void)state;
    script_retry_after(503, 3600);
    script(502, "bad gateway");
    script_page(three_workers, N(three_workers), NULL);
    create(&o);
    assert_string_equal(resolved(), dq(THREE_WORKERS));
    sleeps_between(lo, hi, N(lo));
}

static void too_many_requests_429_retried(void **state) {
    static const int lo[] = {1000}, hi[] = {2000};
    cres_k8s_options o = options();
    (void)state;
    script_retry_after(429, 1);
    script_page(three_workers, N(three_workers), NULL);
    create(&o);
    assert_string_equal(resolved(), dq(THREE_WORKERS));
    sleeps_between(lo, hi, N(lo));
}

/* API priority and fairness answers 429 while a flow's seats are taken: retried for as long as
   the resolve's bound leaves time, not config.max_retries (3) times. */
static void too_many_requests_429_retried_past_max_retries(void **state) {
    cres_k8s_options o = options();
    size_t i;
    (void)state;
    for (i = 0; i < 10; i++) script_retry_after(429, 1);
    script_page(three_workers, N(three_workers), NULL);
    create(&o);
    assert_string_equal(resolved(), dq(THREE_WORKERS));
    assert_int_equal(C.requests_count, 11);
    assert_int_equal(C.sleeps_count, 10);
    for (i = 0; i < 10; i++) assert_in_range(C.sleeps[i], 1000, 2000);
    all_replies_used();
}

/* Without a bound (resolve_timeout_ms -1) the count is what stops a 429 loop. */
static void too_many_requests_429_without_a_bound_stops_at_max_retries(void **state) {
    cres_k8s_options o = options();
    cres_error err;
    size_t i;
    (void)state;
    C.config.resolve_timeout_ms = -1;
    for (i = 0; i < 4; i++) script(429, "{\"kind\": \"Status\", \"code\": 429}");
    create(&o);
    err = resolve_fails(CRES_ERR_HTTP_STATUS);
    assert_int_equal(err.http_status, 429);
    assert_int_equal(C.requests_count, 4);
    all_replies_used();
}

/* Retry-After is honoured up to 32 s (APF's longest), plus a draw up to that cap; one that does
   not fit in what is left of the bound ends the resolve at once, with the 429. */
static void retry_after_up_to_32_s_and_within_the_bound(void **state) {
    static const int lo[] = {20000}, hi[] = {32000};
    cres_k8s_options o = options();
    cres_error err;
    (void)state;
    script_retry_after(429, 20);
    script_page(three_workers, N(three_workers), NULL);
    create(&o);
    assert_string_equal(resolved(), dq(THREE_WORKERS));
    sleeps_between(lo, hi, N(lo));
    C.config.resolve_timeout_ms = 5000;
    script_retry_after(429, 10);
    create(&o);
    err = resolve_fails(CRES_ERR_HTTP_STATUS);
    assert_int_equal(err.http_status, 429);
    assert_int_equal(C.sleeps_count, 1); /* no new wait */
}

/* Two resolves that meet the same failures wait differently: pods refused together must not
   come back together. */
static void backoff_jitter_differs_between_resolves(void **state) {
    cres_k8s_options o = options();
    int first[8];
    size_t i, same = 0;
    (void)state;
    C.config.max_retries = 8;
    for (i = 0; i < 8; i++) script(503, "{}");
    script_page(three_workers, N(three_workers), NULL);
    create(&o);
    resolved();
    assert_int_equal(C.sleeps_count, 8);
    memcpy(first, C.sleeps, sizeof first);
    C.sleeps_count = 0;
    for (i = 0; i < 8; i++) script(503, "{}");
    script_page(three_workers, N(three_workers), NULL);
    resolved();
    for (i = 0; i < 8; i++) {
        int b = i < 6 ? 250 << i : 10000;
        assert_in_range(C.sleeps[i], b, b + b / 2);
        same += C.sleeps[i] == first[i];
    }
    assert_true(same < 8);
}

static void retries_exhausted_gives_http_status(void **state) {
    static const int lo[] = {250, 500, 1000}, hi[] = {375, 750, 1500};
    cres_k8s_options o = options();
    cres_error err;
    int i;
    (void)state;
    for (i = 0; i < 4; i++) script(500, "{\"kind\": \"Status\", \"message\": \"internal error\", \"code\": 500}");
    create(&o);
    err = resolve_fails(CRES_ERR_HTTP_STATUS);
    assert_int_equal(err.http_status, 500);
    HAS(err.message, "500");
    HAS(err.message, "internal error");
    sleeps_between(lo, hi, N(lo));
    assert_int_equal(C.requests_count, 4);
    all_replies_used();
}

static void max_retries_minus_one_means_no_retry(void **state) {
    cres_k8s_options o = options();
    cres_error err;
    (void)state;
    C.config.max_retries = -1;
    script_retry_after(503, 1);
    create(&o);
    err = resolve_fails(CRES_ERR_HTTP_STATUS);
    assert_int_equal(err.http_status, 503);
    assert_int_equal(C.requests_count, 1);
    no_sleeps();
}

static void max_retries_option(void **state) {
    static const int lo[] = {250}, hi[] = {375};
    cres_k8s_options o = options();
    (void)state;
    C.config.max_retries = 1;
    script(500, "{}");
    script(500, "{}");
    create(&o);
    resolve_fails(CRES_ERR_HTTP_STATUS);
    assert_int_equal(C.requests_count, 2);
    sleeps_between(lo, hi, N(lo));
}

static void transport_error_retried_then_succeeds(void **state) {
    static const int lo[] = {250, 500}, hi[] = {375, 750};
    cres_k8s_options o = options();
    (void)state;
    script_fail(CRES_ERR_TRANSPORT);
    script_fail(CRES_ERR_TRANSPORT);
    script_page(three_workers, N(three_workers), NULL);
    create(&o);
    assert_string_equal(resolved(), dq(THREE_WORKERS));
    sleeps_between(lo, hi, N(lo));
}

static void transport_error_exhausted(void **state) {
    cres_k8s_options o = options();
    cres_error err;
    int i;
    (void)state;
    for (i = 0; i < 4; i++) script_fail(CRES_ERR_TRANSPORT);
    create(&o);
    err = resolve_fails(CRES_ERR_TRANSPORT);
    assert_int_equal(err.http_status, 0);
    HAS(err.message, "kubernetes: GET " NS_URL);
    HAS(err.message, "connection refused");
    assert_int_equal(C.requests_count, 4);
}

/* The documented retry cases are connection errors, 429 and 5xx: a timeout is not retried. */
static void timeout_is_not_retried(void **state) {
    cres_k8s_options o = options();
    (void)state;
    script_fail(CRES_ERR_TIMEOUT);
    create(&o);
    resolve_fails(CRES_ERR_TIMEOUT);
    assert_int_equal(C.requests_count, 1);
    no_sleeps();
}

/* A transport that fails without a message: the error says the code's text, not a bare ": ". */
static void transport_failing_without_a_message(void **state) {
    cres_k8s_options o = options();
    cres_error err;
    size_t n;
    (void)state;
    script_fail(CRES_ERR_TIMEOUT);
    C.replies[0].silent = 1;
    create(&o);
    err = resolve_fails(CRES_ERR_TIMEOUT);
    n = strlen(err.message);
    assert_true(n > 2 && strcmp(err.message + n - 2, ": ") != 0);
    HAS(err.message, "kubernetes: GET " NS_URL);
    HAS(err.message, ": failed without a message");
}

static void request_carries_config_limits(void **state) {
    cres_k8s_options o = options();
    (void)state;
    script_page(three_workers, N(three_workers), NULL);
    script_page(three_workers, N(three_workers), NULL);
    create(&o);
    resolved();
    assert_int_equal(C.requests[0].timeout_ms, 10000);
    assert_int_equal(C.requests[0].max_response_bytes, 64u * 1024u * 1024u);
    assert_false(C.requests[0].has_body);
    C.config.timeout_ms = 1234;
    C.config.max_response_bytes = 1u << 20;
    create(&o);
    resolved();
    assert_int_equal(C.requests[1].timeout_ms, 1234);
    assert_int_equal(C.requests[1].max_response_bytes, 1u << 20);
}

/* One transport session per resolve, closed once, over all pages and selectors. */
static void one_session_per_resolve(void **state) {
    static const cres_k8s_job_selector jobs[] = {{"worker", "a=1"}, {"ps", "b=1"}};
    cres_k8s_options o = options();
    (void)state;
    o.jobs = jobs;
    o.jobs_count = N(jobs);
    script_page(three_workers, 1, "t");
    script_page(three_workers + 1, 2, NULL);
    script_page(NULL, 0, NULL);
    create(&o);
    resolved(); /* checks: closed, with the session the transport made */
    assert_int_equal(C.sessions_opened, 1);
    assert_int_equal(C.sessions_closed, 1);
}

/* ---------------------------------------------------------------------------------------
   Answers of the wrong shape */

static void expect_unexpected(const char *body, const char *message_part) {
    cres_k8s_options o = options();
    cres_error err;
    script(200, body);
    create(&o);
    err = resolve_fails(CRES_ERR_UNEXPECTED_RESPONSE);
    HAS(err.message, "kubernetes");
    if (message_part) HAS(err.message, message_part);
    no_sleeps();
    assert_int_equal(C.requests_count, 1);
}

static void malformed_json_body(void **state) {
    (void)state;
    expect_unexpected("{\"items\": [}", "invalid JSON");
}

static void truncated_json_body(void **state) {
    char *page = pod_list(three_workers, N(three_workers), NULL);
    (void)state;
    page[strlen(page) / 2] = '\0';
    expect_unexpected(page, "invalid JSON");
    free(page);
}

static void empty_body(void **state) {
    (void)state;
    expect_unexpected("", NULL);
}

/* The pod list is read as it streams in, member by member: each syntax error there is named
   like the whole-document parser names it (a body ending in the list or after a comma too),
   and an empty list, an empty or null continue token, a bare number as metadata, or members
   of other names are no errors. */
static void pod_list_syntax_errors_are_named(void **state) {
    static const struct {
        const char *body, *words;
    } bad[] = {
        {"{\"kind\": \"PodList\" \"items\": []}", "expected ',' or '}'"},
        {"{1: 2}", "expected a string key"},
        {"{\"it\\x\": []}", "bad escape in a string"},
        {"{\"items\" []}", "expected ':' after a key"},
        {"{\"items\":", "unexpected end of the document"},
        {"{\"items\": [{\"metadata\": {\"name\": \"w-0\"}} {}]}", "expected ',' or ']'"},
        {"{\"items\": []} []", "unexpected text after the document"},
        {"{\"kind\": [1, }", "invalid JSON"},
        {"{\"items\": [", "unexpected end of the document"},
        {"{\"kind\": \"PodList\",", "expected a string key"},
    };
    /* keys are matched exactly: "ITEMS" and "Metadata" (of the lengths of the real ones) are
       other members, skipped; a continue token that is not a string ends the list */
    static const char *const good[] = {"{\"metadata\": 5, \"items\": []}",
                                       "{\"metadata\": {\"continue\": \"\"}, \"apiVersion\": \"v1\", \"items\": null}",
                                       "{\"metadata\": {\"continue\": null}, \"items\": [], \"kind\": \"PodList\"}",
                                       "{\"ITEMS\": [1], \"Metadata\": {\"continue\": \"t\"}, \"items\": []}"};
    cres_k8s_options o = options();
    size_t i;
    (void)state;
    for (i = 0; i < N(bad); i++) {
        cres_error err;
        script(200, bad[i].body);
        create(&o);
        err = resolve_fails(CRES_ERR_UNEXPECTED_RESPONSE);
        if (!strstr(err.message, bad[i].words)) fail_msg("case %zu: %s", i, err.message);
        HAS(err.message, "invalid JSON");
    }
    for (i = 0; i < N(good); i++) {
        script(200, good[i]);
        create(&o);
        assert_string_equal(resolved(), "{\"worker\": []}");
    }
    /* well-formed, but not a pod list: a proxy's or API server's refusal sent with 200 is not
       an empty job (the Status shape: k8s.io/apimachinery metav1.Status) */
    {
        static const struct { const char *body, *words; } other[] = {
            {"{}", "has no \"items\""},
            {"{\"metadata\": {\"continue\": \"\"}, \"apiVersion\": \"v1\"}", "has no \"items\""},
            {"{\"kind\": \"Status\", \"apiVersion\": \"v1\", \"status\": \"Failure\", "
             "\"message\": \"pods is forbidden\", \"code\": 403}", "\"kind\" is \"Status\""},
            {"{\"kind\": \"NodeList\", \"items\": []}", "\"kind\" is \"NodeList\""},
            {"{\"kind\": 7, \"items\": []}", "\"kind\" is not a string"},
        };
        for (i = 0; i < N(other); i++) {
            cres_error err;
            script(200, other[i].body);
            create(&o);
            err = resolve_fails(CRES_ERR_UNEXPECTED_RESPONSE);
            if (!strstr(err.message, other[i].words)) fail_msg("case %zu: %s", i, err.message);
        }
    }
}

static void pod_list_not_an_object(void **state) {
    (void)state;
    expect_unexpected("[{\"metadata\": {\"name\": \"worker-0\"}}]", "not an object");
}

static void items_not_a_list(void **state) {
    (void)state;
    expect_unexpected("{\"items\": {\"metadata\": {\"name\": \"worker-0\"}}}", "\"items\" is not a list");
}

static void item_not_an_object(void **state) {
    (void)state;
    expect_unexpected("{\"items\": [\"worker-0\"]}", "item 0 is not an object");
}

static void pod_without_metadata_name(void **state) {
    (void)state;
    expect_unexpected("{\"items\": [{\"metadata\": {\"namespace\": \"default\"}, \"status\": {\"phase\": \"Running\", "
                      "\"podIP\": \"10.4.0.10\"}}]}",
                      "metadata.name");
}

/* A pod whose names and addresses pass 64 KiB (the API server allows a few hundred bytes)
   is refused, not stored. */
static void pod_with_names_past_64_kib(void **state) {
    size_t n = 70000;
    char *name = (char *)malloc(n + 1), *body = (char *)malloc(n + 256);
    (void)state;
    assert_non_null(name);
    assert_non_null(body);
    memset(name, 'w', n);
    name[n] = '\0';
    snprintf(body, n + 256, "{\"items\": [{\"metadata\": {\"name\": \"%s\"}, \"status\": {\"phase\": \"Running\", "
             "\"podIP\": \"10.4.0.10\"}}]}", name);
    expect_unexpected(body, "its names and addresses take 70");
    free(name);
    free(body);
}

static void pod_name_not_a_string(void **state) {
    (void)state;
    expect_unexpected("{\"items\": [{\"metadata\": {\"name\": 7}, \"status\": {\"phase\": \"Running\"}}]}",
                      "metadata.name");
}

static void pod_ip_not_a_string(void **state) {
    (void)state;
    expect_unexpected("{\"items\": [{\"metadata\": {\"name\": \"worker-0\"}, \"status\": {\"phase\": \"Running\", "
                      "\"podIP\": [\"10.4.0.10\"]}}]}",
                      "status.podIP");
}

static void phase_not_a_string(void **state) {
    (void)state;
    expect_unexpected("{\"items\": [{\"metadata\": {\"name\": \"worker-0\"}, \"status\": {\"phase\": true}}]}",
                      "status.phase");
}

/* A pod IP with a space cannot be an address. */
static void pod_ip_with_a_space(void **state) {
    (void)state;
    expect_unexpected("{\"items\": [{\"metadata\": {\"name\": \"worker-0\"}, \"status\": {\"phase\": \"Running\", "
                      "\"podIP\": \"10.4.0.10 evil\"}}]}",
                      NULL);
}

/* A bad page 2 fails the resolve after page 1 was read. */
static void malformed_second_page(void **state) {
    cres_k8s_options o = options();
    (void)state;
    script_page(three_workers, 2, "t");
    script(200, "{\"items\": [1]}");
    create(&o);
    resolve_fails(CRES_ERR_UNEXPECTED_RESPONSE);
    assert_int_equal(C.requests_count, 2);
}

/* ---------------------------------------------------------------------------------------
   Size cap and missing transport */

static void body_over_max_response_bytes_is_limit(void **state) {
    cres_k8s_options o = options();
    cres_error err;
    char body[101];
    C.config.max_response_bytes = 100;
    static const char pod[] =
        "{\"items\": [{\"metadata\": {\"name\": \"w\"}, \"status\": {\"phase\": \"Running\", \"podIP\": \"10.0.0.1\"}}]}";
    (void)state;
    memset(body, ' ', sizeof body);
    memcpy(body, pod, strlen(pod));
    body[100] = '\0'; /* exactly 100 bytes: accepted */
    script(200, body);
    script(200, "{\"items\": [], \"padding\": \"......................................................"
                "...................................................\"}");
    create(&o);
    assert_string_equal(resolved(), dq("{'worker': ['10.0.0.1:8470']}"));
    err = resolve_fails(CRES_ERR_LIMIT);
    HAS(err.message, "100 bytes");
    assert_int_equal(C.requests_count, 2); /* a too large answer is not asked again */
}

/* A transport that enforces max_response_bytes itself answers CRES_ERR_LIMIT. */
static void transport_limit_error_is_limit(void **state) {
    cres_k8s_options o = options();
    (void)state;
    script_fail(CRES_ERR_LIMIT);
    create(&o);
    resolve_fails(CRES_ERR_LIMIT);
    assert_int_equal(C.requests_count, 1);
}

static void no_transport_is_no_transport_error(void **state) {
#ifdef CLUSTER_RESOLVER_USE_CURL
    (void)state;
    skip();
#else
    cres_k8s_options o = options();
    cres_error err;
    (void)state;
    memset(&C.config.transport, 0, sizeof C.config.transport);
    create(&o);
    err = resolve_fails(CRES_ERR_NO_TRANSPORT);
    HAS(err.message, "kubernetes");
    assert_int_equal(C.requests_count, 0);
    /* a NULL config too */
    o.config = NULL;
    create(&o);
    resolve_fails(CRES_ERR_NO_TRANSPORT);
#endif
}

/* ---------------------------------------------------------------------------------------
   Realistic pods: the checked-in fixture (tests/k8s/fixtures/pods_small.json, made by
   tests/k8s/make_pods.py: Indexed Job trainer 0..2 in default with a terminating replaced
   pod of index 1, Job ps with 2 pods, trainer-0 in namespace other, a Pending pod eval). */

static char *read_fixture(void) {
    static const char *const paths[] = {"tests/k8s/fixtures/pods_small.json", "../tests/k8s/fixtures/pods_small.json",
                                        "k8s/fixtures/pods_small.json"};
    size_t i, n;
    for (i = 0; i < N(paths); i++) {
        FILE *f = fopen(paths[i], "rb");
        char *s;
        long size;
        if (!f) continue;
        assert_int_equal(fseek(f, 0, SEEK_END), 0);
        size = ftell(f);
        assert_true(size > 0);
        rewind(f);
        s = (char *)malloc((size_t)size + 1);
        assert_non_null(s);
        n = fread(s, 1, (size_t)size, f);
        fclose(f);
        assert_int_equal(n, (size_t)size);
        s[n] = '\0';
        return s;
    }
    return NULL;
}

static void fixture_pending_pod_is_reported(void **state) {
    cres_k8s_options o = options();
    char *body = read_fixture();
    cres_error err;
    (void)state;
    if (!body) skip();
    o.all_namespaces = 1;
    script(200, body);
    free(body);
    create(&o);
    err = resolve_fails(CRES_ERR_NOT_READY);
    HAS(err.message, "\"eval-8cgnq\"");
    HAS(err.message, "Pending");
}

/* The same list with the Pending pod made Running (same length text), by host IP since the
   pod has no pod IP yet: the terminating pod is left out, trainer-0 of namespace "other"
   is another pod, and names go in natural order since ps and eval have no index. */
static void fixture_parses_into_the_expected_spec(void **state) {
    cres_k8s_options o = options();
    char *body = read_fixture(), *pending;
    (void)state;
    if (!body) skip();
    pending = strstr(body, "\"phase\": \"Pending\"");
    assert_non_null(pending);
    memcpy(pending + 10, "Running", 7);
    assert_null(strstr(body, "Pending"));
    o.all_namespaces = 1;
    o.address = CRES_K8S_HOST_IP;
    o.hostname = "trainer-1";
    script(200, body);
    free(body);
    create(&o);
    assert_string_equal(resolved(), dq("{'worker': ['10.128.0.12:8470', '10.128.0.11:8470', '10.128.0.10:8470', "
                                       "'10.128.0.10:8470', '10.128.0.11:8470', '10.128.0.13:8470', "
                                       "'10.128.0.13:8470']}"));
    assert_string_equal(cres_task_type(C.r), "worker");
    assert_int_equal(cres_task_id(C.r), 5);
}

/* Our own realistic pods (managedFields, annotations with JSON text naming a decoy pod,
   conditions with "status") in a two-job Indexed Job setting, by DNS name. */
static void realistic_pods_parse(void **state) {
    static const pod workers[] = {
        {.name = "trainer-worker-1-k2x9z", .ip = "10.4.0.11", .host_ip = "10.128.0.2", .hostname = "trainer-worker-1",
         .subdomain = "trainer", .index = "1"},
        {.name = "trainer-worker-0-b7q4m", .ip = "10.4.0.10", .host_ip = "10.128.0.1", .hostname = "trainer-worker-0",
         .subdomain = "trainer", .index = "0"},
    };
    static const pod chief[] = {{.name = "trainer-chief-0-zz9xq", .ip = "fd00::5", .host_ip = "10.128.0.3",
                                 .hostname = "trainer-chief-0", .subdomain = "trainer", .index = "0"}};
    static const cres_k8s_job_selector jobs[] = {{"worker", "job-name=trainer-worker"}, {"chief", "job-name=trainer-chief"}};
    cres_k8s_options o = options();
    (void)state;
    o.jobs = jobs;
    o.jobs_count = N(jobs);
    o.port = 2222;
    o.hostname = "trainer-worker-1";
    script_page(workers, N(workers), NULL);
    script_page(chief, N(chief), NULL);
    create(&o);
    assert_string_equal(resolved(), dq("{'chief': ['[fd00::5]:2222'], 'worker': ['10.4.0.10:2222', '10.4.0.11:2222']}"));
    assert_string_equal(cres_task_type(C.r), "worker");
    assert_int_equal(cres_task_id(C.r), 1);
}

/* ---------------------------------------------------------------------------------------
   Members JOB: an Indexed Job's (or JobSet's) members named from one GET of the own Job (and
   one of its JobSet), not from a list. The objects have the shape kube-apiserver 1.32
   returns a Job in (batch/v1 defaults) and kubernetes-sigs/jobset v0.8.2 (bba74dba) writes
   a JobSet and its Jobs in, as tests/k8s/make_pods.py documents them, with decoys a careless
   reader would take: managedFields naming "f:completions" and "f:subdomain", the JobSet keys
   in annotations too, and a status. */

typedef struct job_obj {
    const char *name;
    const char *completions, *parallelism; /* JSON text; NULL = absent */
    const char *mode;                      /* completionMode as JSON text; NULL = absent */
    const char *subdomain, *hostname;      /* the pod template's, as JSON text; NULL = absent */
    const char *jobset, *rjob, *job_index, *global; /* the JobSet keys; jobset NULL = none */
    const char *meta_name;                 /* metadata.name when it is not `name` */
} job_obj;

static void job_jobset_keys(text *t, const job_obj *j) {
    text_add(t, "{\"jobset.sigs.k8s.io/global-replicas\": \"3\", \"jobset.sigs.k8s.io/job-global-index\": \"%s\", "
                "\"jobset.sigs.k8s.io/job-index\": \"%s\", \"jobset.sigs.k8s.io/jobset-name\": %s, "
                "\"jobset.sigs.k8s.io/replicatedjob-name\": \"%s\", \"jobset.sigs.k8s.io/restart-attempt\": \"0\"}",
             j->global ? j->global : "0", j->job_index ? j->job_index : "0", j->jobset, j->rjob ? j->rjob : "workers");
}

/* GET /apis/batch/v1/namespaces/default/jobs/NAME */
static char *job_json(const job_obj *j) {
    text t = {0};
    text_add(&t, "{\"kind\": \"Job\", \"apiVersion\": \"batch/v1\", \"metadata\": {\"name\": \"%s\", "
                 "\"namespace\": \"default\", \"uid\": \"33a6902e-26b8-4514-a707-77df1e4730d8\", "
                 "\"resourceVersion\": \"46814744\", \"generation\": 1, \"labels\": ",
             j->meta_name ? j->meta_name : j->name);
    if (j->jobset) job_jobset_keys(&t, j);
    else text_add(&t, "{\"batch.kubernetes.io/job-name\": \"%s\", \"job-name\": \"%s\"}", j->name, j->name);
    if (j->jobset) {
        text_add(&t, ", \"annotations\": ");
        job_jobset_keys(&t, j);
    }
    text_add(&t, ", \"managedFields\": [{\"manager\": \"kubectl-create\", \"operation\": \"Update\", "
                 "\"apiVersion\": \"batch/v1\", \"fieldsType\": \"FieldsV1\", \"fieldsV1\": {\"f:spec\": "
                 "{\"f:completions\": {}, \"f:parallelism\": {}, \"f:template\": {\"f:spec\": {\"f:subdomain\": {}, "
                 "\"f:hostname\": {}}}}}}]}, \"spec\": {");
    if (j->parallelism) text_add(&t, "\"parallelism\": %s, ", j->parallelism);
    if (j->completions) text_add(&t, "\"completions\": %s, ", j->completions);
    text_add(&t, "\"backoffLimit\": 6, \"selector\": {\"matchLabels\": {\"batch.kubernetes.io/controller-uid\": "
                 "\"33a6902e-26b8-4514-a707-77df1e4730d8\"}}, \"manualSelector\": false, \"template\": {\"metadata\": "
                 "{\"creationTimestamp\": null, \"labels\": {\"job-name\": \"%s\"}}, \"spec\": {\"containers\": "
                 "[{\"name\": \"tensorflow\", \"image\": \"tensorflow/tensorflow:2.15.0\", \"ports\": [{\"name\": "
                 "\"grpc\", \"containerPort\": 8470, \"protocol\": \"TCP\"}]}], \"restartPolicy\": \"Never\", "
                 "\"dnsPolicy\": \"ClusterFirst\"",
             j->name);
    if (j->hostname) text_add(&t, ", \"hostname\": %s", j->hostname);
    if (j->subdomain) text_add(&t, ", \"subdomain\": %s", j->subdomain);
    text_add(&t, ", \"schedulerName\": \"default-scheduler\"}}");
    if (j->mode) text_add(&t, ", \"completionMode\": %s", j->mode);
    text_add(&t, ", \"suspend\": false, \"podReplacementPolicy\": \"TerminatingOrFailed\"}, \"status\": "
                 "{\"startTime\": \"2026-01-15T09:29:58Z\", \"active\": 3, \"ready\": 3, \"terminating\": 0, "
                 "\"uncountedTerminatedPods\": {}}}");
    return t.s;
}

typedef struct rjob_obj {
    const char *name, *replicas;                  /* replicas JSON text; NULL = absent */
    const char *completions, *parallelism, *mode; /* the Job template's; NULL = absent */
    const char *hostname;                         /* its pod template's; NULL = absent */
} rjob_obj;

typedef struct jobset_obj {
    const char *name;
    const rjob_obj *rjobs;
    size_t n;
    const char *dns_hostnames, *subdomain; /* spec.network's, JSON text; NULL = absent */
    const char *replicated_jobs;           /* spec.replicatedJobs as JSON text, instead of rjobs */
} jobset_obj;

/* GET /apis/jobset.x-k8s.io/v1alpha2/namespaces/default/jobsets/NAME */
static char *jobset_json(const jobset_obj *s) {
    text t = {0};
    size_t i;
    text_add(&t, "{\"apiVersion\": \"jobset.x-k8s.io/v1alpha2\", \"kind\": \"JobSet\", \"metadata\": "
                 "{\"creationTimestamp\": \"2026-01-15T09:29:57Z\", \"generation\": 1, \"managedFields\": "
                 "[{\"apiVersion\": \"jobset.x-k8s.io/v1alpha2\", \"fieldsType\": \"FieldsV1\", \"fieldsV1\": "
                 "{\"f:spec\": {\"f:replicatedJobs\": {}, \"f:network\": {\"f:subdomain\": {}}}}, \"manager\": "
                 "\"kubectl-create\", \"operation\": \"Update\"}], \"name\": \"%s\", \"namespace\": \"default\", "
                 "\"resourceVersion\": \"43859893\", \"uid\": \"3f580137-42b1-4512-817e-b4474d6c7721\"}, "
                 "\"spec\": {\"replicatedJobs\": ",
             s->name);
    if (s->replicated_jobs) text_add(&t, "%s", s->replicated_jobs);
    for (i = 0; !s->replicated_jobs && i <= s->n; i++) {
        const rjob_obj *r = &s->rjobs[i];
        if (i == s->n) {
            text_add(&t, "]");
            break;
        }
        text_add(&t, "%s{\"name\": \"%s\"", i ? ", " : "[", r->name);
        if (r->replicas) text_add(&t, ", \"replicas\": %s", r->replicas);
        text_add(&t, ", \"template\": {\"metadata\": {}, \"spec\": {");
        if (r->parallelism) text_add(&t, "\"parallelism\": %s, ", r->parallelism);
        if (r->completions) text_add(&t, "\"completions\": %s, ", r->completions);
        if (r->mode) text_add(&t, "\"completionMode\": %s, ", r->mode);
        text_add(&t, "\"template\": {\"metadata\": {}, \"spec\": {\"containers\": [{\"name\": \"tensorflow\", "
                     "\"image\": \"tensorflow/tensorflow:2.15.0\"}], \"restartPolicy\": \"Never\"");
        if (r->hostname) text_add(&t, ", \"hostname\": %s", r->hostname);
        text_add(&t, "}}}}}");
    }
    text_add(&t, ", \"network\": {");
    if (s->dns_hostnames) text_add(&t, "\"enableDNSHostnames\": %s, ", s->dns_hostnames);
    if (s->subdomain) text_add(&t, "\"subdomain\": %s, ", s->subdomain);
    text_add(&t, "\"publishNotReadyAddresses\": true}, \"successPolicy\": {\"operator\": \"All\"}, "
                 "\"startupPolicy\": {\"startupPolicyOrder\": \"AnyOrder\"}}, \"status\": {\"replicatedJobsStatus\": "
                 "[{\"name\": \"workers\", \"ready\": 2, \"succeeded\": 0, \"failed\": 0, \"active\": 2, "
                 "\"suspended\": 0}]}}");
    return t.s;
}

static void script_owned(int status, char *body) {
    script(status, body);
    free(body);
}

/* The own Job "trainer": Indexed, 4 pods, subdomain "trainer" (as the Job controller's e2e
   tests and make_pods.make_job make them). */
#define JOB(n, c, p, m, sub) {.name = n, .completions = c, .parallelism = p, .mode = m, .subdomain = sub}
#define TRAINER JOB("trainer", "4", "4", "\"Indexed\"", "\"trainer\"")
static const job_obj trainer_job = TRAINER;

/* JobSet "js": driver (1 Job of 2 pods), workers (2 Jobs of 3 pods): the order of
   job-global-index is js-driver-0, js-workers-0, js-workers-1. */
#define RJOB(n, r, c, p, m) {.name = n, .replicas = r, .completions = c, .parallelism = p, .mode = m}
#define JS_OF(r, ...) {.name = "js", .rjobs = r, .n = 2, .dns_hostnames = "true", __VA_ARGS__}
#define JS_WORKERS_1                                                                                           \
    {.name = "js-workers-1", .completions = "3", .parallelism = "3", .mode = "\"Indexed\"", .subdomain = "\"js\"", \
     .jobset = "\"js\"", .rjob = "workers", .job_index = "1", .global = "2"}
static const rjob_obj js_rjobs[] = {RJOB("driver", "1", "2", "2", "\"Indexed\""),
                                    RJOB("workers", "2", "3", "3", "\"Indexed\"")};
#define JS JS_OF(js_rjobs, .subdomain = NULL)
static const jobset_obj js_jobset = JS;
static const job_obj js_workers_1 = JS_WORKERS_1;

static const char js_spec[] = "{'worker': ['js-driver-0-0.js.default.svc.cluster.local:8470', "
                              "'js-driver-0-1.js.default.svc.cluster.local:8470', "
                              "'js-workers-0-0.js.default.svc.cluster.local:8470', "
                              "'js-workers-0-1.js.default.svc.cluster.local:8470', "
                              "'js-workers-0-2.js.default.svc.cluster.local:8470', "
                              "'js-workers-1-0.js.default.svc.cluster.local:8470', "
                              "'js-workers-1-1.js.default.svc.cluster.local:8470', "
                              "'js-workers-1-2.js.default.svc.cluster.local:8470']}";

static const cres_k8s_job_selector trainer_sel[] = {{"worker", "job-name=trainer"}};
static const cres_k8s_job_selector js_workers_1_sel[] = {{"worker", "job-name=js-workers-1"}};

/* Members JOB in pod `hostname` with JOB_COMPLETION_INDEX `index`, job "worker" = sel. */
static cres_k8s_options job_mode(const char *hostname, const char *index, const cres_k8s_job_selector *sel) {
    cres_k8s_options o = options();
    o.members = CRES_K8S_MEMBERS_JOB;
    o.hostname = hostname;
    o.jobs = sel;
    o.jobs_count = 1;
    if (index) env_set("JOB_COMPLETION_INDEX", index);
    return o;
}

static void job_mode_names_an_indexed_job_from_one_get(void **state) {
    cres_k8s_options o = job_mode("trainer-2", "2", trainer_sel);
    (void)state;
    script_owned(200, job_json(&trainer_job));
    create(&o);
    assert_string_equal(resolved(), dq("{'worker': ['trainer-0.trainer.default.svc.cluster.local:8470', "
                                       "'trainer-1.trainer.default.svc.cluster.local:8470', "
                                       "'trainer-2.trainer.default.svc.cluster.local:8470', "
                                       "'trainer-3.trainer.default.svc.cluster.local:8470']}"));
    all_replies_used();
    assert_int_equal(C.requests_count, 1);
    assert_string_equal(url(0), SERVER "/apis/batch/v1/namespaces/default/jobs/trainer");
    assert_string_equal(cres_task_type(C.r), "worker");
    assert_int_equal(cres_task_id(C.r), 2);
    HAS(C.logs, "kubernetes: job \"worker\": 4 members named from Job \"trainer\" (subdomain \"trainer\")\n");
}

/* A selector of other terms than the Job's name is not compared: the own Job answers. */
static void job_mode_with_a_selector_of_other_terms(void **state) {
    static const cres_k8s_job_selector sel[] = {{"worker", "job-name=tensorflow,app=x"}};
    cres_k8s_job_selector sel_in[1];
    cres_k8s_options o = job_mode("trainer-2", "2", sel);
    (void)state;
    script_owned(200, job_json(&trainer_job));
    create(&o);
    HAS(resolved(), "\"trainer-3.trainer.default.svc.cluster.local:8470\"]}");
    assert_int_equal(C.requests_count, 1);
    assert_string_equal(url(0), SERVER "/apis/batch/v1/namespaces/default/jobs/trainer");
    assert_int_equal(cres_task_id(C.r), 2);
    sel_in[0] = sel[0]; /* a set-based "job-name in (...)" is not "job-name=": not compared either */
    sel_in[0].selector = "job-name in (trainer)";
    o.jobs = sel_in;
    script_owned(200, job_json(&trainer_job));
    create(&o);
    HAS(resolved(), "\"trainer-3.trainer.default.svc.cluster.local:8470\"]}");
    assert_int_equal(C.requests_count, 2);
    assert_string_equal(url(1), SERVER "/apis/batch/v1/namespaces/default/jobs/trainer");
    all_replies_used();
}

/* Indices of two digits: JOB_COMPLETION_INDEX 10 of a Job of 12, and Job js-workers-10 of a
   replicated job of 12 Jobs. A replicated job of 0 replicas, or of Jobs of 0 completions,
   has no members; enableDNSHostnames unset is on (the JobSet webhook's default). */
static void job_mode_two_digit_indices_and_empty_replicated_jobs(void **state) {
    static const rjob_obj rjobs[] = {RJOB("driver", "0", "2", "2", "\"Indexed\""),
                                     RJOB("workers", "12", "1", "1", "\"Indexed\""),
                                     RJOB("idle", "1", "0", "0", "\"Indexed\"")};
    static const jobset_obj js = {.name = "js", .rjobs = rjobs, .n = 3};
    static const cres_k8s_job_selector sel[] = {{"worker", "job-name=js-workers-10"}};
    job_obj big = JOB("trainer", "12", "12", "\"Indexed\"", "\"trainer\"");
    job_obj own = JS_WORKERS_1;
    cres_k8s_options o = job_mode("trainer-10", "10", trainer_sel);
    const char *json;
    (void)state;
    script_owned(200, job_json(&big));
    create(&o);
    json = resolved();
    HAS(json, dq("'trainer-10.trainer.default.svc.cluster.local:8470', 'trainer-11.trainer.default.svc.cluster.local:8470']}"));
    assert_int_equal(cres_task_id(C.r), 10);
    HAS(C.logs, "kubernetes: job \"worker\": 12 members named from Job \"trainer\"");
    memset(C.env_names, 0, sizeof C.env_names);
    o = job_mode("js-workers-10-0", "0", sel);
    o.follow_jobset = 1;
    own.name = "js-workers-10";
    own.completions = own.parallelism = "1";
    script_owned(200, job_json(&own));
    script_owned(200, jobset_json(&js));
    create(&o);
    json = resolved();
    HAS(json, dq("{'worker': ['js-workers-0-0.js.default.svc.cluster.local:8470', "));
    HAS(json, dq("'js-workers-10-0.js.default.svc.cluster.local:8470', 'js-workers-11-0.js.default.svc.cluster.local:8470']}"));
    assert_null(strstr(json, "driver"));
    assert_null(strstr(json, "idle"));
    assert_int_equal(cres_task_id(C.r), 10);
    HAS(C.logs, "kubernetes: job \"worker\": 12 members named from JobSet \"js\" (subdomain \"js\")\n");
    all_replies_used();
}

/* Port, namespace and cluster domain as the list's DNS addresses have them; the namespace
   and the name are URL-encoded into the GET like the list's. */
static void job_mode_uses_port_namespace_and_cluster_domain(void **state) {
    cres_k8s_options o = job_mode("trainer-0", "0", trainer_sel);
    (void)state;
    o.port = 2222;
    o.namespace_name = "ml-team";
    o.cluster_domain = "corp.example";
    script_owned(200, job_json(&trainer_job));
    create(&o);
    assert_string_equal(resolved(), dq("{'worker': ['trainer-0.trainer.ml-team.svc.corp.example:2222', "
                                       "'trainer-1.trainer.ml-team.svc.corp.example:2222', "
                                       "'trainer-2.trainer.ml-team.svc.corp.example:2222', "
                                       "'trainer-3.trainer.ml-team.svc.corp.example:2222']}"));
    assert_string_equal(url(0), SERVER "/apis/batch/v1/namespaces/ml-team/jobs/trainer");
    assert_int_equal(cres_task_id(C.r), 0);
}

/* In a JobSet, with follow_jobset (auto's): the Job, then the JobSet; every Job of it in
   job-global-index order, then completion index. The own task counts the Jobs before it. */
static void job_mode_names_a_whole_jobset_from_two_gets(void **state) {
    cres_k8s_options o = job_mode("js-workers-1-1", "1", js_workers_1_sel);
    (void)state;
    o.follow_jobset = 1;
    script_owned(200, job_json(&js_workers_1));
    script_owned(200, jobset_json(&js_jobset));
    create(&o);
    assert_string_equal(resolved(), dq(js_spec));
    all_replies_used();
    assert_string_equal(url(0), SERVER "/apis/batch/v1/namespaces/default/jobs/js-workers-1");
    assert_string_equal(url(1), SERVER "/apis/jobset.x-k8s.io/v1alpha2/namespaces/default/jobsets/js");
    assert_int_equal(cres_task_id(C.r), 6); /* 2 driver pods, 3 of js-workers-0, then index 1 */
    HAS(C.logs, "kubernetes: job \"worker\": 8 members named from JobSet \"js\" (subdomain \"js\")\n");
}

/* A selector that is the JobSet's makes the JobSet the answer without follow_jobset, as
   its list would; a selector of the own Job alone keeps the Job. */
static void job_mode_follows_the_selector(void **state) {
    static const cres_k8s_job_selector by_jobset[] = {{"worker", JOBSET_KEY "=js"}};
    cres_k8s_options o = job_mode("js-workers-1-1", "1", by_jobset);
    (void)state;
    script_owned(200, job_json(&js_workers_1));
    script_owned(200, jobset_json(&js_jobset));
    script_owned(200, job_json(&js_workers_1));
    create(&o);
    assert_string_equal(resolved(), dq(js_spec));
    o.jobs = js_workers_1_sel;
    create(&o);
    assert_string_equal(resolved(), dq("{'worker': ['js-workers-1-0.js.default.svc.cluster.local:8470', "
                                       "'js-workers-1-1.js.default.svc.cluster.local:8470', "
                                       "'js-workers-1-2.js.default.svc.cluster.local:8470']}"));
    assert_int_equal(cres_task_id(C.r), 1);
    all_replies_used();
    assert_int_equal(C.requests_count, 3);
}

/* spec.network.subdomain replaces the JobSet's name; a replicated job's template without
   parallelism and completions is a Job of one pod (SetDefaults_Job), and replicas absent is
   one Job (the CRD's default). */
static void job_mode_jobset_subdomain_and_defaults(void **state) {
    static const rjob_obj rjobs[] = {RJOB("leader", NULL, NULL, NULL, "\"Indexed\""),
                                     RJOB("workers", "2", "3", "3", "\"Indexed\"")};
    static const jobset_obj js = JS_OF(rjobs, .subdomain = "\"net\"");
    static const cres_k8s_job_selector by_app[] = {{"worker", "app=trainer"}};
    job_obj own = js_workers_1;
    cres_k8s_options o = job_mode("js-workers-0-2", "2", js_workers_1_sel);
    (void)state;
    own.name = "js-workers-0";
    own.subdomain = "\"net\"";
    o.jobs = by_app; /* names no Job: not compared */
    o.follow_jobset = 1;
    script_owned(200, job_json(&own));
    script_owned(200, jobset_json(&js));
    create(&o);
    assert_string_equal(resolved(), dq("{'worker': ['js-leader-0-0.net.default.svc.cluster.local:8470', "
                                       "'js-workers-0-0.net.default.svc.cluster.local:8470', "
                                       "'js-workers-0-1.net.default.svc.cluster.local:8470', "
                                       "'js-workers-0-2.net.default.svc.cluster.local:8470', "
                                       "'js-workers-1-0.net.default.svc.cluster.local:8470', "
                                       "'js-workers-1-1.net.default.svc.cluster.local:8470', "
                                       "'js-workers-1-2.net.default.svc.cluster.local:8470']}"));
    assert_int_equal(cres_task_id(C.r), 3);
}

/* Job mode's answer is the list's with address DNS when every pod runs: same names, order
   and own task. */
static const pod trainer_pods[] = {
    {.name = "trainer-2-a1b2c", .ip = "10.4.0.12", .hostname = "trainer-2", .subdomain = "trainer", .index = "2"},
    {.name = "trainer-0-pkwzt", .ip = "10.4.0.10", .hostname = "trainer-0", .subdomain = "trainer", .index = "0"},
    {.name = "trainer-3-zz9x1", .ip = "10.4.0.13", .hostname = "trainer-3", .subdomain = "trainer", .index = "3"},
    {.name = "trainer-1-xp8x7", .ip = "10.4.0.11", .hostname = "trainer-1", .subdomain = "trainer", .index = "1"},
};

static void job_mode_equals_the_list_with_dns_addresses(void **state) {
    cres_k8s_options o = job_mode("trainer-1", "1", trainer_sel);
    char job_answer[1024];
    (void)state;
    script_owned(200, job_json(&trainer_job));
    script_page(trainer_pods, N(trainer_pods), NULL);
    create(&o);
    snprintf(job_answer, sizeof job_answer, "%s", resolved());
    assert_int_equal(cres_task_id(C.r), 1);
    o.members = CRES_K8S_MEMBERS_LIST;
    o.address = CRES_K8S_DNS;
    create(&o);
    assert_string_equal(resolved(), job_answer);
    assert_int_equal(cres_task_id(C.r), 1);
    all_replies_used();
}

/* Every condition that job mode needs, unmet: the log says which, in plain words, and the
   list answers (pod IPs: the address the caller chose). */
typedef struct fallback_case {
    const char *hostname, *index; /* the pod's */
    const char *selector;         /* NULL = job-name=trainer */
    int status;                   /* of the Job GET; 0 = no GET */
    job_obj job;                  /* its body when 200 */
    int jobset_status;            /* of the JobSet GET; 0 = no GET */
    jobset_obj jobset;            /* its body when 200 */
    const char *why;              /* the log's reason */
} fallback_case;

static const rjob_obj elastic_rjobs[] = {RJOB("driver", "1", "2", "2", "\"Indexed\""),
                                         RJOB("workers", "2", "3", "1", "\"Indexed\"")};
static const rjob_obj nonindexed_rjobs[] = {RJOB("driver", "1", "2", "2", "\"NonIndexed\""),
                                            RJOB("workers", "2", "3", "3", "\"Indexed\"")};
static const rjob_obj no_completions_rjobs[] = {RJOB("driver", "1", NULL, "2", "\"Indexed\""),
                                                RJOB("workers", "2", "3", "3", "\"Indexed\"")};
static const rjob_obj other_rjobs[] = {RJOB("driver", "1", "2", "2", "\"Indexed\""),
                                       RJOB("ps", "2", "3", "3", "\"Indexed\"")};
static const rjob_obj fewer_rjobs[] = {RJOB("driver", "1", "2", "2", "\"Indexed\""),
                                       RJOB("workers", "2", "4", "4", "\"Indexed\"")};
static const rjob_obj long_rjobs[] = {
    RJOB("driver", "1", "2", "2", "\"Indexed\""),
    RJOB("workers-with-a-name-so-long-that-their-hostnames-pass-63-bytes", "2", "3", "3", "\"Indexed\"")};
static const rjob_obj longer_rjobs[] = {
    RJOB("driver", "1", "2", "2", "\"Indexed\""),
    RJOB("workers-with-a-name-that-is-itself-longer-than-the-63-bytes-of-a-label", "2", "3", "3", "\"Indexed\"")};
/* completions without parallelism: SetDefaults_Job makes parallelism 1 */
static const rjob_obj serial_rjobs[] = {RJOB("driver", "1", "2", "2", "\"Indexed\""),
                                        RJOB("workers", "2", "3", NULL, "\"Indexed\"")};


/* A Job labelled as JobSet "js"'s, named n (not one its replicated jobs give). */
#define JS_JOB_NAMED(n)                                                                                         \
    {.name = n, .completions = "3", .parallelism = "3", .mode = "\"Indexed\"", .subdomain = "\"js\"", .jobset = "\"js\"", \
     .rjob = "workers", .job_index = "1", .global = "2"}
#define NOT_ONE_OF_JS(n) \
    {n "-1", "1", "job-name=" n, 200, JS_JOB_NAMED(n), 200, JS, "Job \"" n "\" is not one of JobSet \"js\"'s Jobs"}
/* Job js-workers-1 of JobSet "js" with another JobSet label or pod subdomain (JSON text). */
#define JS_WORKERS_1_CASE(label, sub, status, why)                                                                \
    {"js-workers-1-1", "1", "job-name=js-workers-1", 200,                                                         \
     {.name = "js-workers-1", .completions = "3", .parallelism = "3", .mode = "\"Indexed\"", .subdomain = sub,       \
      .jobset = label, .rjob = "workers", .job_index = "1", .global = "2"},                                       \
     status, JS, why}
#define LONG_JOB "a-job-name-of-sixty-four-bytes-which-no-pod-hostname-could-hold1"

static const fallback_case fallbacks[] = {
    {"trainer-2", NULL, NULL, 0, TRAINER, 0, JS, "JOB_COMPLETION_INDEX is unset (not an Indexed Job's pod)"},
    {"trainer-2", "", NULL, 0, TRAINER, 0, JS, "JOB_COMPLETION_INDEX is unset (not an Indexed Job's pod)"},
    {"trainer-x", "x", NULL, 0, TRAINER, 0, JS, "JOB_COMPLETION_INDEX \"x\" is not an index"},
    {"trainer-2147483648", "2147483648", NULL, 0, TRAINER, 0, JS, "JOB_COMPLETION_INDEX \"2147483648\" is not an index"},
    {"2", "2", NULL, 0, TRAINER, 0, JS, "HOSTNAME \"2\" is not \"<job>-2\""},
    {"trainer_2", "2", NULL, 0, TRAINER, 0, JS, "HOSTNAME \"trainer_2\" is not \"<job>-2\""},
    NOT_ONE_OF_JS("js-workers-01"), /* a leading zero */
    NOT_ONE_OF_JS("js-workers-2"),  /* past the replicas */
    NOT_ONE_OF_JS("js-workers-x"),  /* no number */
    NOT_ONE_OF_JS("js-workers"),    /* nothing after the replicated job */
    NOT_ONE_OF_JS("jsx-workers-1"), /* another JobSet's name in front */
    NOT_ONE_OF_JS("xy-workers-1"),  /* not the JobSet's name in front */
    NOT_ONE_OF_JS("js-workersx1"),  /* no '-' after the replicated job */
    NOT_ONE_OF_JS("js-workers--1"), /* a negative number */
    {"trainer--1", "-1", NULL, 0, TRAINER, 0, JS, "JOB_COMPLETION_INDEX \"-1\" is not an index"},
    {LONG_JOB "-2", "2", "job-name=" LONG_JOB, 0, TRAINER, 0, JS, "is not \"<job>-2\""}, /* a job of 64 bytes */
    {"trainer-2", "02", NULL, 0, TRAINER, 0, JS, "JOB_COMPLETION_INDEX \"02\" is not an index"},
    {"worker-7", "2", NULL, 0, TRAINER, 0, JS, "HOSTNAME \"worker-7\" is not \"<job>-2\""},
    {NULL, "2", NULL, 0, TRAINER, 0, JS, "HOSTNAME (unset) is not \"<job>-2\""},
    {"trainer-2", "2", "job-name=tensorflow", 0, TRAINER, 0, JS,
     "the selector names Job \"tensorflow\", this pod's Job is \"trainer\""},
    {"trainer-2", "2", "job-name==tensorflow", 0, TRAINER, 0, JS,
     "the selector names Job \"tensorflow\", this pod's Job is \"trainer\""},
    {"trainer-2", "2", "batch.kubernetes.io/job-name=tensorflow", 0, TRAINER, 0, JS,
     "the selector names Job \"tensorflow\", this pod's Job is \"trainer\""},
    {"trainer-2", "2", NULL, 403, TRAINER, 0, JS,
     "getting jobs \"trainer\": forbidden (403: the role grants no \"get\" on it)"},
    {"trainer-2", "2", NULL, 404, TRAINER, 0, JS, "getting jobs \"trainer\": not found (404)"},
    {"trainer-2", "2", NULL, 200, JOB("trainer", "4", "4", "\"NonIndexed\"", "\"trainer\""), 0, JS,
     "Job \"trainer\" is not Indexed (completionMode \"NonIndexed\")"},
    {"trainer-2", "2", NULL, 200, JOB("trainer", "4", "4", NULL, "\"trainer\""), 0, JS,
     "Job \"trainer\" is not Indexed (completionMode unset)"},
    {"trainer-2", "2", NULL, 200, JOB("trainer", "32", "16", "\"Indexed\"", "\"trainer\""), 0, JS,
     "Job \"trainer\": parallelism 16 != completions 32"},
    {"trainer-2", "2", NULL, 200, JOB("trainer", NULL, "4", "\"Indexed\"", "\"trainer\""), 0, JS,
     "Job \"trainer\" has no completions"},
    {"trainer-2", "2", NULL, 200, JOB("trainer", "4", "4", "\"Indexed\"", NULL), 0, JS,
     "Job \"trainer\" has no subdomain (spec.template.spec.subdomain)"},
    {"trainer-2", "2", NULL, 200, JOB("trainer", "4", "4", "\"Indexed\"", "\"\""), 0, JS,
     "Job \"trainer\" has no subdomain (spec.template.spec.subdomain)"},
    {"trainer-2", "2", NULL, 200, JOB("trainer", "4", "4", "\"Indexed\"", "\"Trainer_Net\""), 0, JS,
     "Job \"trainer\": subdomain \"Trainer_Net\" is not a DNS label"},
    {"trainer-2", "2", NULL, 200, JOB("trainer", "4", "4", "\"Indexed\"", "null"), 0, JS,
     "Job \"trainer\" has no subdomain (spec.template.spec.subdomain)"},
    {"trainer-2", "2", NULL, 200, JOB("trainer", "4", "4", "\"Indexed\"", "5"), 0, JS,
     "Job \"trainer\": subdomain 5 is not a DNS label"},
    {"trainer-2", "2", NULL, 200, JOB("trainer", "4", "4", "\"Indexed\"", "\"-net\""), 0, JS,
     "Job \"trainer\": subdomain \"-net\" is not a DNS label"},
    {"trainer-2", "2", NULL, 200, JOB("trainer", "4", "4", "\"Indexed\"", "\"net-\""), 0, JS,
     "Job \"trainer\": subdomain \"net-\" is not a DNS label"},
    {"trainer-2", "2", NULL, 200, JOB("trainer", "4", "4", "\"Indexed\"", "\"net~1\""), 0, JS,
     "Job \"trainer\": subdomain \"net~1\" is not a DNS label"},
    {"trainer-2", "2", NULL, 200, JOB("trainer", "null", "4", "\"Indexed\"", "\"trainer\""), 0, JS,
     "Job \"trainer\" has no completions"},
    /* a Job name may have dots (a DNS subdomain), a hostname not */
    {"train.v1-2", "2", "job-name=train.v1", 200, JOB("train.v1", "4", "4", "\"Indexed\"", "\"trainer\""), 0, JS,
     "Job \"train.v1\": hostname \"train.v1-3\" is not a DNS label"},
    JS_WORKERS_1_CASE("\"My_JS\"", "\"js\"", 0,
                      "Job \"js-workers-1\": its label " JOBSET_KEY " \"My_JS\" is not a JobSet name"),
    JS_WORKERS_1_CASE("5", "\"js\"", 0, "Job \"js-workers-1\": its label " JOBSET_KEY " 5 is not a JobSet name"),
    JS_WORKERS_1_CASE("\"js\"", "\"other\"", 200,
                      "Job \"js-workers-1\" has subdomain \"other\", JobSet \"js\" its name"),
    {"js-workers-1-1", "1", "job-name=js-workers-1", 200, JS_WORKERS_1, 200, JS_OF(serial_rjobs, .subdomain = NULL),
     "replicated job \"workers\" of JobSet \"js\": parallelism 1 != completions 3"},
    {"js-workers-1-1", "1", "job-name=js-workers-1", 200, JS_WORKERS_1, 200, JS_OF(longer_rjobs, .subdomain = NULL),
     "replicated job \"workers-with-a-name-that-is-itself-longer-than-t...\" of JobSet \"js\": "
     "hostname \"js-workers-with-a-name-that-is-itself-longer-than-the-63-bytes-of-a-1-2\" is not a DNS label"},
    {"trainer-2", "2", NULL, 200,
     {.name = "trainer", .completions = "4", .parallelism = "4", .mode = "\"Indexed\"", .subdomain = "\"trainer\"",
      .hostname = "\"chief\""},
     0,
     JS, "Job \"trainer\": the pod template sets hostname \"chief\""},
    {"a-very-long-job-name-that-leaves-no-room-for-its-indices-at-all-2", "2",
     "job-name=a-very-long-job-name-that-leaves-no-room-for-its-indices-at-all", 200,
     JOB("a-very-long-job-name-that-leaves-no-room-for-its-indices-at-all", "12", "12", "\"Indexed\"", "\"t\""), 0,
     JS,
     "hostname \"a-very-long-job-name-that-leaves-no-room-for-its-indices-at-all-11\" is not a DNS label"},
    {"js-workers-1-1", "1", "job-name=js-workers-1", 200, JS_WORKERS_1, 403, JS,
     "getting jobsets \"js\": forbidden (403: the role grants no \"get\" on it)"},
    {"js-workers-1-1", "1", "job-name=js-workers-1", 200, JS_WORKERS_1, 404, JS,
     "getting jobsets \"js\": not found (404)"},
    {"js-workers-1-1", "1", "job-name=js-workers-1", 200, JS_WORKERS_1, 200,
     {.name = "js", .rjobs = js_rjobs, .n = 2, .dns_hostnames = "false"},
     "JobSet \"js\" has DNS hostnames off (spec.network.enableDNSHostnames false)"},
    {"js-workers-1-1", "1", "job-name=js-workers-1", 200, JS_WORKERS_1, 200, JS_OF(js_rjobs, .subdomain = "\"net\""),
     "Job \"js-workers-1\" has subdomain \"js\", JobSet \"js\" \"net\""},
    {"js-workers-1-1", "1", "job-name=js-workers-1", 200, JS_WORKERS_1, 200, JS_OF(elastic_rjobs, .subdomain = NULL),
     "replicated job \"workers\" of JobSet \"js\": parallelism 1 != completions 3"},
    {"js-workers-1-1", "1", "job-name=js-workers-1", 200, JS_WORKERS_1, 200, JS_OF(nonindexed_rjobs, .subdomain = NULL),
     "replicated job \"driver\" of JobSet \"js\" is not Indexed (completionMode \"NonIndexed\")"},
    {"js-workers-1-1", "1", "job-name=js-workers-1", 200, JS_WORKERS_1, 200, JS_OF(no_completions_rjobs, .subdomain = NULL),
     "replicated job \"driver\" of JobSet \"js\" has no completions"},
    {"js-workers-1-1", "1", "job-name=js-workers-1", 200, JS_WORKERS_1, 200, JS_OF(other_rjobs, .subdomain = NULL),
     "Job \"js-workers-1\" is not one of JobSet \"js\"'s Jobs"},
    {"js-workers-1-1", "1", "job-name=js-workers-1", 200, JS_WORKERS_1, 200, JS_OF(fewer_rjobs, .subdomain = NULL),
     "Job \"js-workers-1\" has completions 3, its replicated job 4"},
    {"js-workers-1-1", "1", "job-name=js-workers-1", 200, JS_WORKERS_1, 200, JS_OF(long_rjobs, .subdomain = NULL),
     "is not a DNS label"},
    {"js-workers-1-1", "1", JOBSET_KEY "=other", 200, JS_WORKERS_1, 0, JS,
     "Job \"js-workers-1\" is not of JobSet \"other\" (the selector's)"},
};

static void job_mode_falls_back_to_the_list_saying_why(void **state) {
    size_t i;
    (void)state;
    for (i = 0; i < N(fallbacks); i++) {
        const fallback_case *f = &fallbacks[i];
        cres_k8s_job_selector sel = {"worker", f->selector ? f->selector : "job-name=trainer"};
        cres_k8s_options o = job_mode(f->hostname, NULL, &sel);
        char want[512];
        teardown(NULL);
        setup(NULL);
        if (f->index) env_set("JOB_COMPLETION_INDEX", f->index);
        o.config = &C.config;
        o.follow_jobset = 1;
        if (f->status == 200) script_owned(200, job_json(&f->job));
        else if (f->status) script(f->status, "{\"kind\": \"Status\", \"apiVersion\": \"v1\", \"status\": \"Failure\"}");
        if (f->jobset_status == 200) script_owned(200, jobset_json(&f->jobset));
        else if (f->jobset_status) script(f->jobset_status, "{\"kind\": \"Status\"}");
        script_page(three_workers, N(three_workers), NULL);
        create(&o);
        if (strcmp(resolved(), dq("{'worker': ['10.4.0.10:8470', '10.4.0.11:8470', '10.4.0.12:8470']}")) != 0 ||
            !strstr(C.logs, f->why)) {
            print_error("case %zu: logs:\n%s\n", i, C.logs);
            fail();
        }
        snprintf(want, sizeof want, "kubernetes: job \"worker\": listing pods, since ");
        HAS(C.logs, want);
        all_replies_used();
        assert_int_equal(C.requests_count, (size_t)(f->status != 0) + (f->jobset_status != 0) + 1);
        assert_non_null(strstr(url(C.requests_count - 1), "/api/v1/namespaces/default/pods?"));
    }
}

/* Scripts the Job's answer (and the JobSet's, when js), resolves and returns the error. */
static cres_error job_mode_fails(const cres_k8s_options *o, const job_obj *j, const jobset_obj *js, cres_result want) {
    script_owned(200, job_json(j));
    if (js) script_owned(200, jobset_json(js));
    create(o);
    return resolve_fails(want);
}

/* What no API server answers is an error naming it, not a fallback: the own index past
   the Job's completions, a count that is no count (the Job's or a replicated job's), another
   object, a JobSet past the pod or replicated-job limit or without its list. And errors the list would give too (HTTP 401, 500). */
static void job_mode_errors_name_the_object(void **state) {
    job_obj j = trainer_job;
    jobset_obj big = js_jobset;
    static const rjob_obj huge[] = {RJOB("driver", "1", "2", "2", "\"Indexed\""),
                                    RJOB("workers", "50000", "3", "3", "\"Indexed\"")};
    static const rjob_obj twice[] = {RJOB("workers", "2", "3", "3", "\"Indexed\""),
                                     RJOB("workers", "2", "3", "3", "\"Indexed\"")};
    static const rjob_obj overflowing[] = {RJOB("driver", "1", "2", "2", "\"Indexed\""),
                                           RJOB("workers", "2147483647", "3", "3", "\"Indexed\"")};
    static const rjob_obj negative[] = {RJOB("driver", "1", "2", "2", "\"Indexed\""),
                                        RJOB("workers", "-1", "3", "3", "\"Indexed\"")};
    static const rjob_obj quoted[] = {RJOB("driver", "1", "2", "2", "\"Indexed\""),
                                      RJOB("workers", "2", "\"3\"", "3", "\"Indexed\"")};
    text many = {NULL, 0, 0};
    size_t i;
    cres_k8s_options o = job_mode("trainer-4", "4", trainer_sel);
    cres_error err;
    (void)state;
    err = job_mode_fails(&o, &j, NULL, CRES_ERR_CONFLICT);
    assert_string_equal(err.message, "kubernetes: JOB_COMPLETION_INDEX 4 is not below the completions of Job "
                                     "\"trainer\" (4)");
    j.completions = "\"4\"";
    err = job_mode_fails(&o, &j, NULL, CRES_ERR_UNEXPECTED_RESPONSE);
    assert_string_equal(err.message, "kubernetes: Job \"trainer\": completions must be an integer, not \"4\"");
    j.completions = j.parallelism = "200000"; /* one Job past CRES_MAX_K8S_PODS */
    err = job_mode_fails(&o, &j, NULL, CRES_ERR_LIMIT);
    assert_string_equal(err.message, "kubernetes: Job \"trainer\" has 200000 completions, more than 100000");
    j = trainer_job;
    j.parallelism = "-1";
    err = job_mode_fails(&o, &j, NULL, CRES_ERR_UNEXPECTED_RESPONSE);
    HAS(err.message, "kubernetes: Job \"trainer\": parallelism must not be negative: -1");
    j = trainer_job;
    j.meta_name = "other";
    err = job_mode_fails(&o, &j, NULL, CRES_ERR_UNEXPECTED_RESPONSE);
    assert_string_equal(err.message, "kubernetes: jobs \"trainer\": the answer is not that object (metadata.name "
                                     "\"other\")");
    script(200, "[1, 2]");
    create(&o);
    err = resolve_fails(CRES_ERR_UNEXPECTED_RESPONSE);
    HAS(err.message, "not that object (metadata.name absent)");
    script(200, "{\"metadata\": {\"name\": \"trainer\"");
    create(&o);
    err = resolve_fails(CRES_ERR_UNEXPECTED_RESPONSE);
    HAS(err.message, "kubernetes: jobs \"trainer\"");
    script(401, "{\"kind\": \"Status\", \"message\": \"Unauthorized\"}");
    create(&o);
    err = resolve_fails(CRES_ERR_HTTP_STATUS);
    HAS(err.message, "kubernetes: 401 Unauthorized");
    C.config.max_retries = -1;
    script(500, "{\"kind\": \"Status\", \"message\": \"etcd is down\"}");
    create(&o);
    err = resolve_fails(CRES_ERR_HTTP_STATUS);
    HAS(err.message, "kubernetes: HTTP 500 getting jobs \"trainer\"");
    memset(C.env_names, 0, sizeof C.env_names);
    o = job_mode("js-workers-1-1", "1", js_workers_1_sel);
    o.follow_jobset = 1;
    big.rjobs = huge;
    err = job_mode_fails(&o, &js_workers_1, &big, CRES_ERR_LIMIT);
    assert_string_equal(err.message, "kubernetes: JobSet \"js\" has more than 100000 pods");
    big = js_jobset;
    big.replicated_jobs = "{\"driver\": 1}";
    err = job_mode_fails(&o, &js_workers_1, &big, CRES_ERR_UNEXPECTED_RESPONSE);
    assert_string_equal(err.message, "kubernetes: JobSet \"js\": spec.replicatedJobs is not a list");
    big.rjobs = twice; /* the CRD keys them by name: two would name every pod twice */
    big.replicated_jobs = NULL;
    err = job_mode_fails(&o, &js_workers_1, &big, CRES_ERR_UNEXPECTED_RESPONSE);
    assert_string_equal(err.message, "kubernetes: JobSet \"js\": replicated job \"workers\" is there twice");
    big.rjobs = overflowing; /* 2^31 - 1 Jobs of 2 pods: past the limit, no int overflow */
    err = job_mode_fails(&o, &js_workers_1, &big, CRES_ERR_LIMIT);
    big.replicated_jobs = "[{\"replicas\": 1}]";
    err = job_mode_fails(&o, &js_workers_1, &big, CRES_ERR_UNEXPECTED_RESPONSE);
    assert_string_equal(err.message, "kubernetes: JobSet \"js\": a replicated job without a name");
    big.replicated_jobs = NULL;
    big.rjobs = negative;
    err = job_mode_fails(&o, &js_workers_1, &big, CRES_ERR_UNEXPECTED_RESPONSE);
    assert_string_equal(err.message, "kubernetes: replicated job \"workers\" of JobSet \"js\": replicas must not be "
                                     "negative: -1");
    big.rjobs = quoted;
    err = job_mode_fails(&o, &js_workers_1, &big, CRES_ERR_UNEXPECTED_RESPONSE);
    assert_string_equal(err.message, "kubernetes: replicated job \"workers\" of JobSet \"js\": completions must be an "
                                     "integer, not \"3\"");
    for (i = 0; i <= 1024; i++) /* one replicated job past the 1,024 read */
        text_add(&many, "%s{\"name\": \"r%zu\", \"replicas\": 1}", i ? ", " : "[", i);
    text_add(&many, "]");
    big.replicated_jobs = many.s;
    err = job_mode_fails(&o, &js_workers_1, &big, CRES_ERR_LIMIT);
    assert_string_equal(err.message, "kubernetes: JobSet \"js\" has more than 1024 replicated jobs");
    free(many.s);
    all_replies_used();
}

/* Job mode gives one job, of the own namespace, by name: the rest needs the list. */
static void job_mode_refuses_what_needs_the_list(void **state) {
    static const cres_k8s_job_selector two_jobs[] = {{"worker", "job-name=trainer"}, {"ps", "job-name=ps"}};
    static const cres_k8s_job_selector two_selectors[] = {{"worker", "job-name=trainer"}, {"worker", "job-name=solo"}};
    static const cres_k8s_job_selector unnamed[] = {{"worker", "job-name=trainer"}, {NULL, "job-name=b"}, {NULL, "c=1"}};
    cres_k8s_options o = job_mode("trainer-2", "2", trainer_sel);
    cres_error err;
    cres_resolver *r = NULL;
    (void)state;
    o.all_namespaces = 1;
    EXPECT(cres_k8s_resolver_create(&o, &r, &err), CRES_ERR_INVALID_ARGUMENT);
    HAS(err.message, "options.all_namespaces and options.address HOST_IP need options.members LIST");
    o.all_namespaces = 0;
    o.address = CRES_K8S_HOST_IP;
    EXPECT(cres_k8s_resolver_create(&o, &r, &err), CRES_ERR_INVALID_ARGUMENT);
    o.address = CRES_K8S_DNS; /* what job mode gives anyway */
    o.jobs = two_jobs;
    o.jobs_count = 2;
    EXPECT(cres_k8s_resolver_create(&o, &r, &err), CRES_ERR_INVALID_ARGUMENT);
    assert_string_equal(err.message, "kubernetes: options.members JOB gives one job, the own Job's; options.jobs "
                                     "names \"worker\" and \"ps\"");
    o.jobs = two_selectors;
    EXPECT(cres_k8s_resolver_create(&o, &r, &err), CRES_ERR_INVALID_ARGUMENT);
    assert_string_equal(err.message, "kubernetes: options.members JOB gives the own Job's members; job \"worker\" "
                                     "has 2 selectors (options.members LIST merges them)");
    o.jobs = NULL; /* two jobs, but no array: the NULL is what is wrong */
    EXPECT(cres_k8s_resolver_create(&o, &r, &err), CRES_ERR_INVALID_ARGUMENT);
    assert_string_equal(err.message, "kubernetes: options.jobs and options.jobs_count: set both, or neither");
    o.jobs = unnamed; /* a job without a name: that is what is wrong, as with members LIST */
    EXPECT(cres_k8s_resolver_create(&o, &r, &err), CRES_ERR_INVALID_ARGUMENT);
    assert_string_equal(err.message, "kubernetes: job name is NULL");
    o.jobs = unnamed + 1;
    EXPECT(cres_k8s_resolver_create(&o, &r, &err), CRES_ERR_INVALID_ARGUMENT);
    assert_string_equal(err.message, "kubernetes: job name is NULL");
    o.jobs = two_jobs;
    o.jobs_count = 1;
    o.members = (cres_k8s_members)7;
    EXPECT(cres_k8s_resolver_create(&o, &r, &err), CRES_ERR_INVALID_ARGUMENT);
    assert_null(r);
}

/* Auto's choice in an Indexed Job's pod is job mode; k8s_members LIST keeps the list. */
static void auto_k8s_members(void **state) {
    cres_auto_options o;
    cres_error err;
    (void)state;
    memset(&o, 0, sizeof o);
    o.config = &C.config;
    env_set("KUBERNETES_SERVICE_HOST", "10.96.0.1");
    env_set("KUBERNETES_SERVICE_PORT", "443");
    env_set("JOB_COMPLETION_INDEX", "2");
    env_set("HOSTNAME", "trainer-2");
    o.k8s_members = CRES_K8S_MEMBERS_LIST;
    OK(cres_auto_resolver_create(&o, &C.r, &err));
    HAS(C.logs, "job \"worker\" = job-name=trainer, or the whole JobSet when the own pod is in one; members "
                "listed\n");
}

/* A pod whose $HOSTNAME is not "<job>-$JOB_COMPLETION_INDEX" is no Indexed Job's: auto
   makes no selector of it, and an index alone does not make one process of several local. */
static void auto_needs_hostname_and_index_of_one_job(void **state) {
    static const char *const pairs[][2] = {{"", "trainer-2"},     {"2", "2"},         {"2", "trainer_2"},
                                           {"2", "trainer-3"},    {"12", "trainer-2"}, {"2", "-2"}};
    size_t i;
    (void)state;
    for (i = 0; i < N(pairs); i++) {
        cres_auto_options o;
        cres_resolver *r = NULL;
        cres_error err;
        memset(C.env_names, 0, sizeof C.env_names);
        C.logs[0] = '\0';
        env_set("KUBERNETES_SERVICE_HOST", "10.96.0.1");
        env_set("KUBERNETES_SERVICE_PORT", "443");
        env_set("JOB_COMPLETION_INDEX", pairs[i][0]);
        env_set("HOSTNAME", pairs[i][1]);
        memset(&o, 0, sizeof o);
        o.config = &C.config;
        if (i == 0) { /* no index: no sign of several processes, one alone */
            OK(cres_auto_resolver_create(&o, &r, &err));
            assert_string_equal(cres_resolver_name(r), "local");
        } else { /* an index: one of several, but of what, nothing says */
            EXPECT(cres_auto_resolver_create(&o, &r, &err), CRES_ERR_ENVIRONMENT);
            HAS(err.message, "auto: JOB_COMPLETION_INDEX=\"");
            HAS(err.message, "no launcher's variables are complete");
        }
        if (strstr(C.logs, "job-name=")) fail_msg("case %zu: a selector was made: %s", i, C.logs);
        cres_resolver_free(r);
    }
}

int main(void) {
    const struct CMUnitTest tests[] = {
#define T(f) cmocka_unit_test_setup_teardown(f, setup, teardown)
        T(tf_k1_one_running_pod),
        T(job_mode_names_an_indexed_job_from_one_get),
        T(job_mode_with_a_selector_of_other_terms),
        T(auto_needs_hostname_and_index_of_one_job),
        T(job_mode_uses_port_namespace_and_cluster_domain),
        T(job_mode_two_digit_indices_and_empty_replicated_jobs),
        T(job_mode_names_a_whole_jobset_from_two_gets),
        T(job_mode_follows_the_selector),
        T(job_mode_jobset_subdomain_and_defaults),
        T(job_mode_equals_the_list_with_dns_addresses),
        T(job_mode_falls_back_to_the_list_saying_why),
        T(job_mode_errors_name_the_object),
        T(job_mode_refuses_what_needs_the_list),
        T(auto_k8s_members),
        T(tf_k4_pods_sorted_by_name),
        T(tf_k5_set_task_then_master),
        T(tf_k6_failed_pod_is_not_ready),
        T(tf_k7_several_selectors_ordered_together),
        T(pod_ip_is_the_default_address),
        T(host_ip_address_option),
        T(port_option),
        T(dns_address_from_hostname_and_subdomain),
        T(dns_address_uses_pod_namespace_and_cluster_domain),
        T(dns_address_without_subdomain_falls_back_to_pod_ip),
        T(ipv6_addresses_are_bracketed),
        T(pod_ip_that_is_not_an_address_is_refused),
        T(address_option_out_of_range_is_invalid),
        T(jobs_option_is_checked),
        T(paging_three_pages_sends_each_continue_token),
        T(page_size_option_sets_limit),
        T(empty_continue_ends_the_list),
        T(gone_410_mid_list_restarts_without_duplicates),
        T(gone_410_restarts_only_the_current_selector),
        T(gone_410_gives_up_after_three_restarts),
        T(gone_410_on_first_page_is_an_error),
        T(repeated_continue_token_is_an_error),
        T(endless_pages_stop_at_the_page_limit),
        T(slow_drip_stops_at_the_resolve_timeout),
        T(timeout_of_a_shortened_request_names_the_resolve_bound),
        T(namespace_default_with_server),
        T(namespace_name_option),
        T(namespace_file_is_read_and_trimmed),
        T(namespace_file_missing_is_environment_error),
        T(all_namespaces_url),
        T(same_pod_name_in_two_namespaces_kept),
        T(in_cluster_server_from_environment),
        T(in_cluster_ipv6_host_is_bracketed),
        T(in_cluster_ca_file_option_wins),
        T(in_cluster_without_variables_is_environment_error),
        T(in_cluster_without_port_is_environment_error),
        T(in_cluster_malformed_port_is_environment_error),
        T(in_cluster_malformed_host_is_environment_error),
        T(in_cluster_default_token_file_missing_is_environment_error),
        T(token_file_is_read_at_each_resolve),
        T(token_file_missing_at_resolve_is_environment_error),
        T(token_and_token_file_is_invalid),
        T(yaml_kubeconfig_without_the_define_names_it),
        T(token_with_line_break_is_refused),
        T(token_only_in_authorization_header),
        T(no_token_sends_no_authorization_header),
        T(server_without_http_scheme_is_invalid),
        T(label_selector_is_url_encoded),
        T(pod_matched_by_two_selectors_counted_once),
        T(selectors_of_one_job_may_be_interleaved),
        T(empty_selector_result_gives_empty_job),
        T(only_job_with_no_pods_is_an_empty_job),
        T(null_items_is_an_empty_list),
        T(terminating_pods_are_excluded),
        T(null_fields_read_as_absent),
        T(pending_pod_is_not_ready_naming_pod_and_phase),
        T(pod_without_phase_is_not_ready),
        T(running_pod_without_pod_ip_is_not_ready),
        T(running_pod_without_host_ip_is_not_ready),
        T(wait_pending_then_running_succeeds),
        T(wait_that_times_out_is_not_ready),
        T(wait_backs_off_up_to_5_seconds),
        T(wait_does_not_repeat_other_errors),
        T(indexed_job_ordered_by_completion_index),
        T(completion_index_from_annotation_or_label),
        T(duplicate_completion_index_is_not_ready),
        T(natural_name_order_when_a_pod_lacks_an_index),
        T(malformed_completion_index_is_unexpected),
        T(natural_name_order),
        T(jobset_ordered_by_global_index_then_completion_index),
        T(jobset_launch_info),
        T(jobset_global_index_from_label_or_annotation),
        T(jobset_without_completion_indices_ordered_by_global_index),
        T(jobset_duplicate_index_only_within_one_job),
        T(jobset_missing_or_malformed_global_index_is_unexpected),
        T(jobset_mixed_with_other_pods_is_a_conflict),
        T(follow_jobset_widens_to_the_whole_jobset),
        T(follow_jobset_keeps_a_plain_indexed_job),
        T(follow_jobset_without_the_own_pod_keeps_the_job),
        T(follow_jobset_namespace_and_no_second_list),
        T(follow_jobset_refuses_a_name_that_is_no_label_value),
        T(follow_jobset_of_one_job_among_two),
        T(auto_in_a_jobset_pod_follows_the_jobset),
        T(own_task_from_pod_name),
        T(own_task_from_spec_hostname_of_indexed_job),
        T(own_task_from_hostname_variable),
        T(own_task_in_two_jobs_is_stable_across_resolves),
        T(no_own_task_gives_empty_master),
        T(set_task_override_wins_over_hostname),
        T(options_task_wins_over_hostname),
        T(rpc_layer_default_and_option),
        T(unauthorized_401_mentions_the_token),
        T(failures_without_an_error_struct),
        T(forbidden_403_gives_status_message_and_rbac_hint),
        T(forbidden_403_status_message_is_unescaped),
        T(forbidden_403_short_message_has_rbac_hint),
        T(not_found_404_is_http_status),
        T(error_status_with_non_json_body),
        T(server_error_500_retried_then_succeeds),
        T(unavailable_503_honours_retry_after),
        T(retry_after_is_capped),
        T(too_many_requests_429_retried),
        T(too_many_requests_429_retried_past_max_retries),
        T(too_many_requests_429_without_a_bound_stops_at_max_retries),
        T(retry_after_up_to_32_s_and_within_the_bound),
        T(backoff_jitter_differs_between_resolves),
        T(retries_exhausted_gives_http_status),
        T(max_retries_minus_one_means_no_retry),
        T(max_retries_option),
        T(transport_error_retried_then_succeeds),
        T(transport_error_exhausted),
        T(timeout_is_not_retried),
        T(transport_failing_without_a_message),
        T(request_carries_config_limits),
        T(one_session_per_resolve),
        T(malformed_json_body),
        T(truncated_json_body),
        T(pod_list_syntax_errors_are_named),
        T(empty_body),
        T(pod_list_not_an_object),
        T(items_not_a_list),
        T(item_not_an_object),
        T(pod_without_metadata_name),
        T(pod_name_not_a_string),
        T(pod_with_names_past_64_kib),
        T(pod_ip_not_a_string),
        T(phase_not_a_string),
        T(pod_ip_with_a_space),
        T(malformed_second_page),
        T(body_over_max_response_bytes_is_limit),
        T(transport_limit_error_is_limit),
        T(no_transport_is_no_transport_error),
        T(fixture_pending_pod_is_reported),
        T(fixture_parses_into_the_expected_spec),
        T(realistic_pods_parse),
#undef T
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
