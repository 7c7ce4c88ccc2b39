/* Unit tests for the Google Cloud resolvers of cluster_resolver.h: the metadata server and
   access tokens (>>google), GCE instance groups (>>gce) and Cloud TPU (>>tpu).

   Everything goes through an in-process fake transport (config.transport) that answers by
   URL: each test registers routes (method + exact URL -> status and body; a route may answer
   a fixed number of times and then step aside for the next one with the same URL) and the
   fake records every request: method, URL, headers, body, timeout. The sleep hook records
   the delays asked for; the environment is read only through the getenv hook (no setenv).

   Cases named "TF Gn", "TF Pn" and "TF Cn" mirror TensorFlow's gce_cluster_resolver_test.py,
   tpu_cluster_resolver_test.py and client_test.py as listed in reference/tf-resolvers.md
   sections 4.4, 4.8 and 4.9. TF's mocks stand in for googleapiclient; ours stand in for the
   REST calls the library makes. Where we differ from TF on purpose the comment says so.

   Build: gcc -std=c99 -O2 -Wall -Wextra -Wpedantic -Werror tests/test_gcp.c tests/impl.c -lcmocka */

#define _XOPEN_SOURCE 700 /* mkdtemp, unlink, rmdir, fork, waitpid */
#include "test_util.h"

#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define N(a) (sizeof(a) / sizeof *(a))

/* ---------------------------------------------------------------------------------------
   Where things are */

#define PROJECT "test-project"
#define ZONE "us-east1-d"
#define GROUP "test-instance-group"
#define COMPUTE "https://compute.googleapis.com/compute/v1"
#define METADATA "http://metadata.google.internal/computeMetadata/v1/"
#define GROUP_URL_IN(project, zone, group) \
    COMPUTE "/projects/" project "/zones/" zone "/instanceGroups/" group "/listInstances?maxResults=500"
#define GROUP_URL GROUP_URL_IN(PROJECT, ZONE, GROUP)
#define REGION_GROUP_URL(region) \
    COMPUTE "/projects/" PROJECT "/regions/" region "/instanceGroups/" GROUP "/listInstances?maxResults=500"
/* filter=status = "RUNNING", fields=items(name,networkInterfaces(networkIP)),nextPageToken */
#define ZONE_QUERY                                                                                     \
    "?filter=status%20%3D%20%22RUNNING%22&fields=items%28name%2CnetworkInterfaces%28networkIP%29%29" \
    "%2CnextPageToken&maxResults=500"
#define ZONE_URL_IN(project, zone) COMPUTE "/projects/" project "/zones/" zone "/instances" ZONE_QUERY
#define ZONE_URL(zone) ZONE_URL_IN(PROJECT, zone)
#define GROUP_BODY "{\"instanceState\": \"RUNNING\"}"

#define TPU_API "https://tpu.googleapis.com"
#define TPU_ZONE "us-central1-c"
#define NODE_URL_IN(version, project, zone, name) \
    TPU_API "/" version "/projects/" project "/locations/" zone "/nodes/" name
#define NODE_URL(name) NODE_URL_IN("v2", PROJECT, TPU_ZONE, name)

#define META_TOKEN "ya29.metadata-token"
#define META_TOKEN_JSON "{\"access_token\":\"" META_TOKEN "\",\"expires_in\":3599,\"token_type\":\"Bearer\"}"

/* ---------------------------------------------------------------------------------------
   A growing text buffer, for building lists */

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
   The fake transport, sleep and getenv hooks: all state lives in C, reset per test */

#define MAX_ROUTES 64
#define MAX_RECORDED 64
#define MAX_HEADERS 8

typedef struct route {
    const char *method;   /* NULL = any */
    char url[1024];       /* exact; a prefix for an endless list */
    int status;
    char *body;           /* owned; NULL = no body */
    int retry_after_s;
    cres_result fail;     /* not CRES_OK: perform() fails with this, no answer */
    int times;            /* answers this many requests, then steps aside; 0 = every one */
    int endless;          /* a list that never ends: nextPageToken "p<n>" (or "same" when 2) */
    size_t body_len;      /* the body's length when it holds a NUL; 0 = strlen(body) */
    int delay_ms;         /* real time the request takes (the resolve's bound counts it) */
    int used;
} route;

typedef struct request {
    char method[8];
    char url[2048];
    char headers[MAX_HEADERS][512]; /* "Name: value" */
    size_t headers_count;
    char body[4096];
    int has_body;
    int timeout_ms;
} request;

typedef struct test_ctx {
    cres_config config;
    route routes[MAX_ROUTES];
    size_t routes_count;
    request requests[MAX_RECORDED]; /* the first MAX_RECORDED requests */
    size_t requests_count;          /* all requests */
    char last_url[2048];
    int unrouted;                   /* requests no route answered */
    int metadata_404;               /* unrouted metadata requests get 404 (a real metadata server) */
    int sleeps[64];
    size_t sleeps_count;
    const char *env_names[12], *env_values[12];
    int sessions_opened, sessions_closed, session_marker;
    cres_resolver *r;
} test_ctx;

static test_ctx C;

static void record(const cres_http_request *req) {
    request *q;
    size_t i;
    snprintf(C.last_url, sizeof C.last_url, "%s", req->url);
    if (C.requests_count++ >= MAX_RECORDED) return;
    q = &C.requests[C.requests_count - 1];
    snprintf(q->method, sizeof q->method, "%s", req->method);
    snprintf(q->url, sizeof q->url, "%s", req->url);
    q->headers_count = req->headers_count < MAX_HEADERS ? req->headers_count : MAX_HEADERS;
    for (i = 0; i < q->headers_count; i++)
        snprintf(q->headers[i], sizeof q->headers[i], "%s: %s", req->headers[i].name, req->headers[i].value);
    q->has_body = req->body != NULL;
    snprintf(q->body, sizeof q->body, "%.*s", (int)req->body_len, req->body ? req->body : "");
    q->timeout_ms = req->timeout_ms;
}

static route *find_route(const cres_http_request *req) {
    size_t i;
    for (i = 0; i < C.routes_count; i++) {
        route *rt = &C.routes[i];
        if (rt->method && strcmp(rt->method, req->method) != 0) continue;
        if (rt->endless ? strncmp(rt->url, req->url, strlen(rt->url)) != 0 : strcmp(rt->url, req->url) != 0) continue;
        if (rt->times && rt->used >= rt->times) continue;
        return rt;
    }
    return NULL;
}

static cres_result answer_n(cres_http_response *resp, const cres_allocator *alloc, int status, const char *body,
                           size_t n) {
    resp->status = status;
    resp->body = (char *)(alloc->alloc ? alloc->alloc(alloc->user, n + 1) : malloc(n + 1));
    if (!resp->body) return CRES_ERR_OUT_OF_MEMORY;
    memcpy(resp->body, body, n);
    resp->body[n] = '\0';
    resp->body_len = n;
    return CRES_OK;
}

static cres_result answer(cres_http_response *resp, const cres_allocator *alloc, int status, const char *body) {
    return answer_n(resp, alloc, status, body, strlen(body));
}

static cres_result fake_perform(void *user, const cres_http_request *req, cres_http_response *resp,
                                const cres_allocator *alloc, cres_error *err) {
    test_ctx *c = (test_ctx *)user;
    route *rt;
    record(req);
    if (req->session && !*req->session) {
        *req->session = &c->session_marker;
        c->sessions_opened++;
    }
    rt = find_route(req);
    if (!rt) {
        if (c->metadata_404 && strncmp(req->url, METADATA, strlen(METADATA)) == 0)
            return answer(resp, alloc, 404, "Not Found\n");
        c->unrouted++;
        if (err) snprintf(err->message, sizeof err->message, "fake: nothing at %s", req->url);
        return CRES_ERR_TRANSPORT;
    }
    rt->used++;
    if (rt->delay_ms) {
        struct timespec ts;
        ts.tv_sec = rt->delay_ms / 1000;
        ts.tv_nsec = (long)(rt->delay_ms % 1000) * 1000000L;
        while (nanosleep(&ts, &ts) != 0) {}
    }
    if (rt->fail != CRES_OK) {
        if (err) snprintf(err->message, sizeof err->message, "fake: connection refused");
        return rt->fail;
    }
    resp->retry_after_s = rt->retry_after_s;
    if (rt->endless) {
        char body[96];
        if (rt->endless == 2) snprintf(body, sizeof body, "{\"items\": [], \"nextPageToken\": \"same\"}");
        else snprintf(body, sizeof body, "{\"items\": [], \"nextPageToken\": \"p%d\"}", rt->used);
        return answer(resp, alloc, rt->status, body);
    }
    if (!rt->body) {
        resp->status = rt->status;
        return CRES_OK;
    }
    return answer_n(resp, alloc, rt->status, rt->body, rt->body_len ? rt->body_len : strlen(rt->body));
}

static void fake_close_session(void *user, void *session) {
    test_ctx *c = (test_ctx *)user;
    (void)session;
    c->sessions_closed++;
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

static void env_set(const char *name, const char *value) {
    size_t i;
    for (i = 0; i < N(C.env_names) && C.env_names[i]; i++) {}
    assert_true(i < N(C.env_names));
    C.env_names[i] = name;
    C.env_values[i] = value;
}

/* Sets or replaces a variable; NULL unsets it. */
static void env_put(const char *name, const char *value) {
    size_t i;
    for (i = 0; i < N(C.env_names) && C.env_names[i]; i++)
        if (strcmp(C.env_names[i], name) == 0) {
            C.env_values[i] = value;
            return;
        }
    env_set(name, value);
}

/* Routes: `on` answers every matching request; set ->times to answer only that many. */
static route *on(const char *method, const char *url, int status, const char *body) {
    route *rt;
    assert_true(C.routes_count < MAX_ROUTES);
    rt = &C.routes[C.routes_count++];
    memset(rt, 0, sizeof *rt);
    rt->method = method;
    assert_true(strlen(url) < sizeof rt->url);
    snprintf(rt->url, sizeof rt->url, "%s", url);
    rt->status = status;
    if (body) {
        rt->body = strdup(body);
        assert_non_null(rt->body);
    }
    return rt;
}

/* Takes a malloc'd body. */
static route *on_owned(const char *method, const char *url, int status, char *body) {
    route *rt = on(method, url, status, NULL);
    rt->body = body;
    return rt;
}

static route *on_fail(const char *method, const char *url, cres_result fail) {
    route *rt = on(method, url, 0, NULL);
    rt->fail = fail;
    return rt;
}

/* A metadata value, as the metadata server answers it (text, often without a newline). */
static route *meta(const char *path, const char *value) {
    char url[512];
    snprintf(url, sizeof url, METADATA "%s", path);
    return on("GET", url, 200, value);
}

static void meta_project(void) { meta("project/project-id", PROJECT); }
static void meta_zone(void) { meta("instance/zone", "projects/123456789012/zones/" ZONE); }
static void meta_token(void) { meta("instance/service-accounts/default/token", META_TOKEN_JSON); }
static void meta_name(const char *name) { meta("instance/name", name); }

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
    return 0;
}

static int temp_remove_all(void);

static int teardown(void **state) {
    size_t i;
    (void)state;
    for (i = 0; i < C.routes_count; i++) free(C.routes[i].body);
    cres_resolver_free(C.r);
    C.r = NULL;
    return temp_remove_all();
}

/* ---------------------------------------------------------------------------------------
   Temporary files (token files), removed by the teardown of the test that made them */

static char temp_dir[64];
static char temp_paths[8][128];
static size_t temp_count;

/* Writes `name` in this test's temporary directory (again: replaced); its path. */
static const char *temp_named(const char *name, const char *content) {
    FILE *f;
    size_t i;
    char path[128];
    if (!temp_dir[0]) {
        snprintf(temp_dir, sizeof temp_dir, "/tmp/test_gcp.XXXXXX");
        assert_non_null(mkdtemp(temp_dir));
    }
    snprintf(path, sizeof path, "%s/%s", temp_dir, name);
    if (strchr(name, '/')) { /* one sub-directory, e.g. ".config/gcloud/adc.json" */
        char dir[128];
        const char *p;
        for (p = strchr(name, '/'); p; p = strchr(p + 1, '/')) {
            snprintf(dir, sizeof dir, "%s/%.*s", temp_dir, (int)(p - name), name);
            mkdir(dir, 0700);
        }
    }
    f = fopen(path, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(content, 1, strlen(content), f), strlen(content));
    assert_int_equal(fclose(f), 0);
    for (i = 0; i < temp_count && strcmp(temp_paths[i], path) != 0; i++) {}
    if (i == temp_count) {
        assert_true(temp_count < N(temp_paths));
        snprintf(temp_paths[temp_count++], sizeof temp_paths[0], "%s", path);
    }
    return temp_paths[i];
}

static const char *temp_file(const char *content) { return temp_named("token", content); }

/* Removes the files, then the directories under temp_dir (deepest first), then temp_dir. */
static int temp_remove_all(void) {
    int bad = 0;
    size_t i;
    for (i = temp_count; i-- > 0;) {
        char *slash;
        bad |= unlink(temp_paths[i]);
        while ((slash = strrchr(temp_paths[i], '/')) != NULL &&
               (size_t)(slash - temp_paths[i]) > strlen(temp_dir)) {
            *slash = '\0';
            rmdir(temp_paths[i]); /* fails while another file is in it: its own turn comes */
        }
    }
    temp_count = 0;
    if (temp_dir[0]) bad |= rmdir(temp_dir);
    temp_dir[0] = '\0';
    return bad ? -1 : 0;
}

/* ---------------------------------------------------------------------------------------
   Requests */

static const request *req(size_t i) {
    assert_true(i < C.requests_count && i < MAX_RECORDED);
    return &C.requests[i];
}

static const char *url(size_t i) { return req(i)->url; }

/* The value of header `name` in request i, or NULL. */
static const char *header(size_t i, const char *name) {
    size_t h, n = strlen(name);
    const request *q = req(i);
    for (h = 0; h < q->headers_count; h++)
        if (strncmp(q->headers[h], name, n) == 0 && q->headers[h][n] == ':') return q->headers[h] + n + 2;
    return NULL;
}

static int is_metadata(size_t i) { return strncmp(url(i), METADATA, strlen(METADATA)) == 0; }

/* How many requests went to this exact URL. */
static int requests_to(const char *u) {
    size_t i;
    int n = 0;
    for (i = 0; i < C.requests_count && i < MAX_RECORDED; i++) n += strcmp(C.requests[i].url, u) == 0;
    return n;
}

static int metadata_requests(void) {
    size_t i;
    int n = 0;
    for (i = 0; i < C.requests_count && i < MAX_RECORDED; i++) n += is_metadata(i);
    return n;
}

static void no_sleeps(void) { assert_int_equal(C.sleeps_count, 0); }

/* ---------------------------------------------------------------------------------------
   Resolving */

static cres_resolver *keep(cres_resolver *r) {
    cres_resolver_free(C.r); /* a test may make a second resolver */
    C.r = r;
    return r;
}

static const char *resolved(void) {
    cres_cluster_spec *s = NULL;
    const char *json;
    cres_error err;
    OK(cres_resolve(C.r, &s, &err));
    json = json_of(s);
    cres_spec_free(s);
    assert_int_equal(C.unrouted, 0);
    assert_int_equal(C.sessions_closed, C.sessions_opened);
    return json;
}

static cres_error resolve_fails(cres_result want) {
    cres_cluster_spec *s = NULL;
    cres_error err;
    EXPECT(cres_resolve(C.r, &s, &err), want);
    assert_null(s);
    assert_int_equal(err.result, want);
    assert_true(err.message[0] != '\0');
    assert_int_equal(C.sessions_closed, C.sessions_opened);
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

/* ---------------------------------------------------------------------------------------
   GCE: instance groups and zone lists */

typedef struct vm {
    const char *name, *zone, *ip;
} vm;

/* A listInstances page: what instanceGroups.listInstances answers. */
static char *group_page(const vm *vms, size_t n, const char *next) {
    text t = {NULL, 0, 0};
    size_t i;
    text_add(&t, "{\"kind\": \"compute#instanceGroupsListInstances\", \"id\": \"projects/" PROJECT "/zones/" ZONE
                 "/instanceGroups/" GROUP "/listInstances\"");
    if (n) text_add(&t, ", \"items\": [");
    for (i = 0; i < n; i++)
        text_add(&t, "%s{\"instance\": \"https://www.googleapis.com/compute/v1/projects/" PROJECT
                     "/zones/%s/instances/%s\", \"status\": \"RUNNING\"}",
                 i ? ", " : "", vms[i].zone ? vms[i].zone : ZONE, vms[i].name);
    if (n) text_add(&t, "]");
    if (next) text_add(&t, ", \"nextPageToken\": \"%s\"", next);
    text_add(&t, ", \"selfLink\": \"https://www.googleapis.com/compute/v1/projects/" PROJECT "/zones/" ZONE
                 "/instanceGroups/" GROUP "\"}");
    return t.s;
}

/* A zone's instance list as the `fields` partial response gives it. */
static char *zone_page(const vm *vms, size_t n, const char *next) {
    text t = {NULL, 0, 0};
    size_t i;
    text_add(&t, "{\"items\": [");
    for (i = 0; i < n; i++)
        text_add(&t, "%s{\"name\": \"%s\", \"networkInterfaces\": [{\"networkIP\": \"%s\"}]}", i ? ", " : "",
                 vms[i].name, vms[i].ip);
    text_add(&t, "]");
    if (next) text_add(&t, ", \"nextPageToken\": \"%s\"", next);
    text_add(&t, "}");
    return t.s;
}

/* The group (one page) and the zone list of its zone (one page). */
static void serve_group(const vm *vms, size_t n) {
    on_owned("POST", GROUP_URL, 200, group_page(vms, n, NULL));
    on_owned("GET", ZONE_URL(ZONE), 200, zone_page(vms, n, NULL));
}

static cres_gce_options gce_options(void) {
    cres_gce_options o;
    memset(&o, 0, sizeof o);
    o.config = &C.config;
    o.instance_group = GROUP;
    o.project = PROJECT;
    o.zone = ZONE;
    o.token = "static-token";
    return o;
}

static cres_resolver *gce(const cres_gce_options *o) {
    cres_resolver *r = NULL;
    cres_error err;
    OK(cres_gce_resolver_create(o, &r, &err));
    assert_non_null(r);
    assert_string_equal(cres_resolver_name(r), "gce");
    return keep(r);
}

/* A create that must fail; a resolver made by mistake is kept for the teardown to free. */
static void gce_create_fails(const cres_gce_options *o, cres_result want) {
    cres_resolver *r = NULL;
    cres_error err;
    cres_result got = cres_gce_resolver_create(o, &r, &err);
    if (r) keep(r);
    EXPECT(got, want);
    assert_null(r);
}

static const vm one_vm[] = {{"gce-instance-1", NULL, "10.123.45.67"}};
static const vm three_vms[] = {
    {"instance1", NULL, "10.1.2.3"}, {"instance2", NULL, "10.2.3.4"}, {"instance3", NULL, "10.3.4.5"}};
#define THREE_SPEC "{'worker': ['10.1.2.3:8470', '10.2.3.4:8470', '10.3.4.5:8470']}"

/* TF G1: one instance, port 8470. TF's mock names the instance by a URL without a zone
   (https://gce.example.com/res/gce-instance-1); ours are the API's full instance URLs, from
   which we take the zone (we differ: one zone list per zone instead of one GET per instance). */
static void tf_g1_one_instance(void **state) {
    cres_gce_options o = gce_options();
    (void)state;
    o.port = 8470;
    serve_group(one_vm, 1);
    gce(&o);
    assert_string_equal(resolved(), dq("{'worker': ['10.123.45.67:8470']}"));
    assert_int_equal(C.requests_count, 2);
    assert_string_equal(req(0)->method, "POST");
    assert_string_equal(url(0), GROUP_URL);
    assert_string_equal(req(0)->body, GROUP_BODY);
    assert_string_equal(req(1)->method, "GET");
    assert_string_equal(url(1), ZONE_URL(ZONE));
    assert_false(req(1)->has_body);
}

/* TF G2: task_id 0 of the default task type: master() is grpc://<address>. */
static void tf_g2_master_of_task_0(void **state) {
    cres_gce_options o = gce_options();
    (void)state;
    o.task_type = "worker";
    o.task_id = 0;
    o.port = 8470;
    serve_group(one_vm, 1);
    gce(&o);
    assert_string_equal(master_of(NULL, -1, NULL), "grpc://10.123.45.67:8470");
}

/* TF G3: master('worker', 2, 'test') with three instances. */
static void tf_g3_master_with_rpc_layer_argument(void **state) {
    cres_gce_options o = gce_options();
    (void)state;
    serve_group(three_vms, 3);
    gce(&o);
    assert_string_equal(master_of("worker", 2, "test"), "test://10.3.4.5:8470");
}

/* TF G4: task type "testworker" (in TF the job name is the task type; ours is job_name), then
   task_id 1 and rpc_layer "test" set on the resolver. */
static void tf_g4_set_task_id_and_rpc_layer(void **state) {
    cres_gce_options o = gce_options();
    cres_error err;
    (void)state;
    o.job_name = "testworker";
    o.task_type = "testworker";
    serve_group(three_vms, 3);
    gce(&o);
    OK(cres_set_task(C.r, NULL, 1, &err));
    OK(cres_set_rpc_layer(C.r, "test", &err));
    assert_string_equal(cres_task_type(C.r), "testworker");
    assert_int_equal(cres_task_id(C.r), 1);
    assert_string_equal(cres_rpc_layer(C.r), "test");
    assert_string_equal(master_of(NULL, -1, NULL), "test://10.2.3.4:8470");
}

/* TF G5: TF accepts '' as a task type and job name. We differ on purpose: a job name is 1..255
   bytes, so job_name "" is refused; the master of worker 0 is what TF's case checks. */
static void tf_g5_empty_job_name_refused(void **state) {
    cres_gce_options o = gce_options();
    (void)state;
    o.job_name = "";
    gce_create_fails(&o, CRES_ERR_INVALID_ARGUMENT);
    o.job_name = NULL;
    o.task_type = "worker"; /* TF passes task_id alone; ours is read with task_type */
    o.task_id = 1;
    serve_group(three_vms, 3);
    gce(&o);
    assert_string_equal(master_of("worker", 0, NULL), "grpc://10.1.2.3:8470");
}

/* TF G6: task type "custom" (our job_name) and port 2222. */
static void tf_g6_custom_job_and_port(void **state) {
    cres_gce_options o = gce_options();
    (void)state;
    o.job_name = "custom";
    o.port = 2222;
    serve_group(one_vm, 1);
    gce(&o);
    assert_string_equal(resolved(), dq("{'custom': ['10.123.45.67:2222']}"));
}

/* TF G7: three instances. */
static void tf_g7_three_instances(void **state) {
    cres_gce_options o = gce_options();
    (void)state;
    serve_group(three_vms, 3);
    gce(&o);
    assert_string_equal(resolved(), dq(THREE_SPEC));
    assert_int_equal(C.requests_count, 2);
}

/* TF G8: a union of two worker groups and a ps group. Each group is listed once (TF: twice);
   the zone list holds every instance of the zone and only the group's members are kept. */
static void tf_g8_union_of_three_groups(void **state) {
    static const vm group1[] = {{"instance1", NULL, "10.1.2.3"}, {"instance2", NULL, "10.2.3.4"},
                                {"instance3", NULL, "10.3.4.5"}};
    static const vm group2[] = {{"instance4", NULL, "10.4.5.6"}, {"instance5", NULL, "10.5.6.7"},
                                {"instance6", NULL, "10.6.7.8"}};
    static const vm ps[] = {{"ps1", NULL, "10.100.1.2"}, {"ps2", NULL, "10.100.2.3"}};
    static const vm zone[] = {{"instance1", NULL, "10.1.2.3"}, {"instance2", NULL, "10.2.3.4"},
                              {"instance3", NULL, "10.3.4.5"}, {"instance4", NULL, "10.4.5.6"},
                              {"instance5", NULL, "10.5.6.7"}, {"instance6", NULL, "10.6.7.8"},
                              {"ps1", NULL, "10.100.1.2"},     {"ps2", NULL, "10.100.2.3"}};
    cres_gce_options o = gce_options();
    cres_resolver *children[3] = {NULL, NULL, NULL};
    cres_union_options u;
    cres_resolver *r = NULL;
    cres_error err;
    (void)state;
    on_owned("POST", GROUP_URL_IN(PROJECT, ZONE, "worker1"), 200, group_page(group1, 3, NULL));
    on_owned("POST", GROUP_URL_IN(PROJECT, ZONE, "worker2"), 200, group_page(group2, 3, NULL));
    on_owned("POST", GROUP_URL_IN(PROJECT, ZONE, "ps"), 200, group_page(ps, 2, NULL));
    on_owned("GET", ZONE_URL(ZONE), 200, zone_page(zone, N(zone), NULL));
    o.instance_group = "worker1";
    OK(cres_gce_resolver_create(&o, &children[0], &err));
    o.instance_group = "worker2";
    OK(cres_gce_resolver_create(&o, &children[1], &err));
    o.instance_group = "ps";
    o.job_name = "ps";
    o.port = 2222;
    OK(cres_gce_resolver_create(&o, &children[2], &err));
    memset(&u, 0, sizeof u);
    u.config = &C.config;
    u.resolvers = children;
    u.resolvers_count = 3;
    u.owns_resolvers = 1;
    OK(cres_union_resolver_create(&u, &r, &err));
    keep(r);
    assert_string_equal(resolved(), dq("{'ps': ['10.100.1.2:2222', '10.100.2.3:2222'], 'worker': ['10.1.2.3:8470', "
                                       "'10.2.3.4:8470', '10.3.4.5:8470', '10.4.5.6:8470', '10.5.6.7:8470', "
                                       "'10.6.7.8:8470']}"));
    assert_int_equal(C.requests_count, 6);
}

/* We differ from TF on purpose: TF sorts the "ip:port" strings (10.10.x before 10.9.x); we order
   by instance name, naturally (vm-2 before vm-10). */
static void order_is_instance_name_natural(void **state) {
    static const vm vms[] = {{"vm-10", NULL, "10.0.0.2"}, {"vm-2", NULL, "10.0.0.10"}, {"vm-1", NULL, "10.10.0.1"},
                             {"vm-9", NULL, "10.9.0.1"}};
    cres_gce_options o = gce_options();
    (void)state;
    serve_group(vms, N(vms));
    gce(&o);
    assert_string_equal(resolved(),
                        dq("{'worker': ['10.10.0.1:8470', '10.0.0.10:8470', '10.9.0.1:8470', '10.0.0.2:8470']}"));
}

/* The zone list's order does not matter either: it is joined to the members by name. */
static void zone_list_order_does_not_matter(void **state) {
    static const vm reversed[] = {{"instance3", NULL, "10.3.4.5"}, {"instance1", NULL, "10.1.2.3"},
                                  {"instance2", NULL, "10.2.3.4"}};
    cres_gce_options o = gce_options();
    (void)state;
    on_owned("POST", GROUP_URL, 200, group_page(three_vms, 3, NULL));
    on_owned("GET", ZONE_URL(ZONE), 200, zone_page(reversed, 3, NULL));
    gce(&o);
    assert_string_equal(resolved(), dq(THREE_SPEC));
}

/* Many VMs: n instances named vm-0..vm-(n-1), all in ZONE. */
static void serve_many(size_t n) {
    text g = {NULL, 0, 0}, z = {NULL, 0, 0};
    size_t i;
    text_add(&g, "{\"kind\": \"compute#instanceGroupsListInstances\", \"items\": [");
    text_add(&z, "{\"items\": [");
    for (i = 0; i < n; i++) {
        text_add(&g, "%s{\"instance\": \"https://www.googleapis.com/compute/v1/projects/" PROJECT "/zones/" ZONE
                     "/instances/vm-%zu\", \"status\": \"RUNNING\"}",
                 i ? ", " : "", i);
        text_add(&z, "%s{\"name\": \"vm-%zu\", \"networkInterfaces\": [{\"networkIP\": \"10.0.%zu.%zu\"}]}",
                 i ? ", " : "", i, i / 256, i % 256);
    }
    text_add(&g, "]}");
    text_add(&z, "]}");
    on_owned("POST", GROUP_URL, 200, g.s);
    on_owned("GET", ZONE_URL(ZONE), 200, z.s);
}

/* Project, zone, token and own name from the metadata server; n instances in one zone. */
static int requests_for_group_of(size_t n) {
    cres_gce_options o = gce_options();
    cres_cluster_spec *s = NULL;
    cres_error err;
    size_t i;
    o.project = NULL;
    o.zone = NULL;
    o.token = NULL;
    meta_project();
    meta_zone();
    meta_token();
    meta_name("vm-7");
    serve_many(n);
    gce(&o);
    OK(cres_resolve(C.r, &s, &err));
    assert_int_equal(cres_spec_tasks_count(s, "worker"), n);
    for (i = 0; i < n; i++) assert_non_null(cres_spec_task_address(s, "worker", (int)i));
    cres_spec_free(s);
    assert_int_equal(cres_task_id(C.r), 7);
    assert_int_equal(metadata_requests(), 4);
    return (int)C.requests_count;
}

/* The number of requests does not grow with the group (TF: 1 + N): 4 metadata + 2 lists. */
static void request_count_constant_in_group_size(void **state) {
    int small, large;
    (void)state;
    small = requests_for_group_of(10);
    teardown(NULL);
    setup(NULL);
    large = requests_for_group_of(300);
    assert_int_equal(small, 6);
    assert_int_equal(large, 6);
}

/* Both lists follow nextPageToken, URL-encoded, with the same method and body on every page. */
static void paging_of_both_lists(void **state) {
    static const vm page1[] = {{"instance1", NULL, "10.1.2.3"}};
    static const vm page2[] = {{"instance2", NULL, "10.2.3.4"}, {"instance3", NULL, "10.3.4.5"}};
    cres_gce_options o = gce_options();
    (void)state;
    on_owned("POST", GROUP_URL, 200, group_page(page1, 1, "g/1+=?&x"));
    on_owned("POST", GROUP_URL "&pageToken=g%2F1%2B%3D%3F%26x", 200, group_page(page2, 2, NULL));
    on_owned("GET", ZONE_URL(ZONE), 200, zone_page(page2, 2, "z 2"));
    on_owned("GET", ZONE_URL(ZONE) "&pageToken=z%202", 200, zone_page(page1, 1, NULL));
    gce(&o);
    assert_string_equal(resolved(), dq(THREE_SPEC));
    assert_int_equal(C.requests_count, 4);
    assert_string_equal(url(1), GROUP_URL "&pageToken=g%2F1%2B%3D%3F%26x");
    assert_string_equal(req(1)->method, "POST");
    assert_string_equal(req(1)->body, GROUP_BODY);
    assert_string_equal(url(3), ZONE_URL(ZONE) "&pageToken=z%202");
    assert_false(req(3)->has_body);
}

/* An empty nextPageToken ends the list like an absent one. */
static void empty_page_token_ends_the_list(void **state) {
    cres_gce_options o = gce_options();
    (void)state;
    on_owned("POST", GROUP_URL, 200, group_page(three_vms, 3, ""))->times = 1;
    on_owned("GET", ZONE_URL(ZONE), 200, zone_page(three_vms, 3, NULL));
    gce(&o);
    assert_string_equal(resolved(), dq(THREE_SPEC));
    assert_int_equal(C.requests_count, 2);
    { /* a token that is no string (null) ends it too */
        char *page = group_page(three_vms, 3, NULL);
        text t = {NULL, 0, 0};
        text_add(&t, "%.*s, \"nextPageToken\": null}", (int)strlen(page) - 1, page);
        free(page);
        on_owned("POST", GROUP_URL, 200, t.s);
        assert_string_equal(resolved(), dq(THREE_SPEC));
        assert_int_equal(C.requests_count, 4);
    }
}

/* A regional group: its members' zones each get one zone list (region: no instance/zone). */
static void regional_group_lists_each_zone_once(void **state) {
    static const vm members[] = {{"trainer-b1", "us-central1-b", "10.0.2.1"}, {"trainer-a1", "us-central1-a", "10.0.1.1"},
                                 {"trainer-c1", "us-central1-c", "10.0.3.1"}, {"trainer-a2", "us-central1-a", "10.0.1.2"},
                                 {"trainer-b2", "us-central1-b", "10.0.2.2"}};
    static const vm zone_a[] = {{"trainer-a2", NULL, "10.0.1.2"}, {"trainer-a1", NULL, "10.0.1.1"}};
    static const vm zone_b[] = {{"trainer-b1", NULL, "10.0.2.1"}, {"trainer-b2", NULL, "10.0.2.2"}};
    static const vm zone_c[] = {{"trainer-c1", NULL, "10.0.3.1"}};
    cres_gce_options o = gce_options();
    (void)state;
    o.zone = NULL;
    o.project = NULL;
    o.region = "us-central1";
    C.metadata_404 = 1; /* no instance/name: no own task */
    meta_project();
    on_owned("POST", REGION_GROUP_URL("us-central1"), 200, group_page(members, N(members), NULL));
    on_owned("GET", ZONE_URL("us-central1-a"), 200, zone_page(zone_a, N(zone_a), NULL));
    on_owned("GET", ZONE_URL("us-central1-b"), 200, zone_page(zone_b, N(zone_b), NULL));
    on_owned("GET", ZONE_URL("us-central1-c"), 200, zone_page(zone_c, N(zone_c), NULL));
    gce(&o);
    assert_string_equal(resolved(), dq("{'worker': ['10.0.1.1:8470', '10.0.1.2:8470', '10.0.2.1:8470', "
                                       "'10.0.2.2:8470', '10.0.3.1:8470']}"));
    assert_int_equal(C.requests_count - (size_t)metadata_requests(), 4); /* 1 group + 3 zones */
    assert_int_equal(requests_to(METADATA "project/project-id"), 1);
    assert_int_equal(requests_to(METADATA "instance/zone"), 0);
    assert_int_equal(requests_to(REGION_GROUP_URL("us-central1")), 1);
    assert_int_equal(requests_to(ZONE_URL("us-central1-a")), 1);
    assert_int_equal(requests_to(ZONE_URL("us-central1-b")), 1);
    assert_int_equal(requests_to(ZONE_URL("us-central1-c")), 1);
}

/* Instance names are unique within a zone, not across zones: a regional group's member must get
   the address from its own zone's list, not from another zone's instance of the same name. */
static void regional_group_joins_by_zone_and_name(void **state) {
    static const vm members[] = {{"trainer-0", "us-central1-a", "10.0.1.10"}, {"trainer-1", "us-central1-b", "10.0.2.11"}};
    static const vm zone_a[] = {{"trainer-0", "us-central1-a", "10.0.1.10"}};
    static const vm zone_b[] = {{"trainer-0", "us-central1-b", "10.0.2.99"}, /* not in the group */
                                {"trainer-1", "us-central1-b", "10.0.2.11"}};
    cres_gce_options o = gce_options();
    (void)state;
    o.zone = NULL;
    o.region = "us-central1";
    on_owned("POST", REGION_GROUP_URL("us-central1"), 200, group_page(members, 2, NULL));
    on_owned("GET", ZONE_URL("us-central1-a"), 200, zone_page(zone_a, 1, NULL));
    on_owned("GET", ZONE_URL("us-central1-b"), 200, zone_page(zone_b, 2, NULL));
    gce(&o);
    assert_string_equal(resolved(), dq("{'worker': ['10.0.1.10:8470', '10.0.2.11:8470']}"));
}

/* DESIGN: an empty group is an empty job, not a crash (TF: KeyError on the missing "items").
   No zone is listed. */
static void empty_group_is_an_empty_job(void **state) {
    cres_gce_options o = gce_options();
    (void)state;
    on_owned("POST", GROUP_URL, 200, group_page(NULL, 0, NULL));
    gce(&o);
    assert_string_equal(resolved(), dq("{'worker': []}"));
    assert_int_equal(C.requests_count, 1);
    assert_string_equal(master_of(NULL, -1, NULL), "");
}

static void null_items_is_an_empty_group(void **state) {
    cres_gce_options o = gce_options();
    (void)state;
    on("POST", GROUP_URL, 200, "{\"items\": null}");
    gce(&o);
    assert_string_equal(resolved(), dq("{'worker': []}"));
}

/* A member the zone list does not name (stopped between the two calls): not ready. */
static void member_missing_from_zone_list_is_not_ready(void **state) {
    cres_gce_options o = gce_options();
    cres_error err;
    (void)state;
    on_owned("POST", GROUP_URL, 200, group_page(three_vms, 3, NULL));
    on_owned("GET", ZONE_URL(ZONE), 200, zone_page(three_vms, 2, NULL));
    gce(&o);
    err = resolve_fails(CRES_ERR_NOT_READY);
    HAS(err.message, "\"instance3\"");
    HAS(err.message, ZONE);
}

static void instance_without_network_interfaces_is_unexpected(void **state) {
    cres_gce_options o = gce_options();
    cres_error err;
    (void)state;
    on_owned("POST", GROUP_URL, 200, group_page(one_vm, 1, NULL));
    on("GET", ZONE_URL(ZONE), 200, "{\"items\": [{\"name\": \"gce-instance-1\"}]}");
    gce(&o);
    err = resolve_fails(CRES_ERR_UNEXPECTED_RESPONSE);
    HAS(err.message, "gce-instance-1");
    HAS(err.message, "networkIP");
}

static void empty_network_interfaces_is_unexpected(void **state) {
    cres_gce_options o = gce_options();
    (void)state;
    on_owned("POST", GROUP_URL, 200, group_page(one_vm, 1, NULL));
    on("GET", ZONE_URL(ZONE), 200, "{\"items\": [{\"name\": \"gce-instance-1\", \"networkInterfaces\": []}]}");
    gce(&o);
    resolve_fails(CRES_ERR_UNEXPECTED_RESPONSE);
}

/* A server that ignores `fields` sends whole Instance objects: other "name" and IP fields
   (disks, access configs, a second interface) must not fool the reader. */
static void full_instance_objects_are_read_right(void **state) {
    cres_gce_options o = gce_options();
    (void)state;
    on_owned("POST", GROUP_URL, 200, group_page(one_vm, 1, NULL));
    on("GET", ZONE_URL(ZONE), 200,
       dq("{'kind': 'compute#instanceList', 'items': [{'kind': 'compute#instance', 'id': '123', "
          "'disks': [{'deviceName': 'boot', 'source': 'x', 'name': 'decoy-disk'}], 'metadata': {'items': "
          "[{'key': 'name', 'value': 'decoy'}]}, 'networkInterfaces': [{'network': 'n', 'name': 'nic0', "
          "'networkIP': '10.123.45.67', 'accessConfigs': [{'name': 'External NAT', 'natIP': '34.1.2.3'}]}, "
          "{'name': 'nic1', 'networkIP': '192.168.0.9'}], 'status': 'RUNNING', 'name': 'gce-instance-1'}, "
          "{'name': 'not-a-member', 'networkInterfaces': [{'networkIP': '10.9.9.9'}]}]}"));
    gce(&o);
    assert_string_equal(resolved(), dq("{'worker': ['10.123.45.67:8470']}"));
}

/* A networkIP with a space is a bad answer (as a pod IP with a space is for Kubernetes). */
static void network_ip_with_a_space_is_unexpected(void **state) {
    cres_gce_options o = gce_options();
    (void)state;
    on_owned("POST", GROUP_URL, 200, group_page(one_vm, 1, NULL));
    on("GET", ZONE_URL(ZONE), 200,
       "{\"items\": [{\"name\": \"gce-instance-1\", \"networkInterfaces\": [{\"networkIP\": \"10.0.0.1 evil\"}]}]}");
    gce(&o);
    resolve_fails(CRES_ERR_UNEXPECTED_RESPONSE);
}

/* ---------------------------------------------------------------------------------------
   GCE: project, zone, token and own task from the metadata server */

static void project_and_zone_from_metadata(void **state) {
    cres_gce_options o = gce_options();
    (void)state;
    o.project = NULL;
    o.zone = NULL;
    C.metadata_404 = 1;
    meta_project();
    meta_zone();
    serve_group(three_vms, 3);
    gce(&o);
    assert_string_equal(resolved(), dq(THREE_SPEC));
    assert_string_equal(url(0), METADATA "project/project-id");
    assert_string_equal(url(1), METADATA "instance/zone");
    assert_string_equal(url(2), GROUP_URL);
    assert_string_equal(url(3), ZONE_URL(ZONE));
}

/* Project and zone do not change under a running instance: asked once, not at every resolve. */
static void project_and_zone_asked_once(void **state) {
    cres_gce_options o = gce_options();
    (void)state;
    o.project = NULL;
    o.zone = NULL;
    C.metadata_404 = 1;
    meta_project();
    meta_zone();
    serve_group(three_vms, 3);
    gce(&o);
    resolved();
    resolved();
    assert_int_equal(requests_to(METADATA "project/project-id"), 1);
    assert_int_equal(requests_to(METADATA "instance/zone"), 1);
    assert_int_equal(requests_to(GROUP_URL), 2);
}

/* TF C13-like for GCE: given project, zone and token, the metadata server is not asked. */
static void project_and_zone_not_fetched_when_given(void **state) {
    cres_gce_options o = gce_options();
    (void)state;
    serve_group(three_vms, 3);
    gce(&o);
    resolved();
    assert_int_equal(metadata_requests(), 0);
}

static void metadata_zone_without_slash_is_taken_whole(void **state) {
    cres_gce_options o = gce_options();
    (void)state;
    o.zone = NULL;
    C.metadata_404 = 1;
    meta("instance/zone", ZONE "\n");
    serve_group(one_vm, 1);
    gce(&o);
    assert_string_equal(resolved(), dq("{'worker': ['10.123.45.67:8470']}"));
}

static void metadata_without_project_is_not_found(void **state) {
    cres_gce_options o = gce_options();
    cres_error err;
    (void)state;
    o.project = NULL;
    C.metadata_404 = 1;
    gce(&o);
    err = resolve_fails(CRES_ERR_NOT_FOUND);
    HAS(err.message, "project/project-id");
}

static void metadata_value_with_control_character_is_unexpected(void **state) {
    cres_gce_options o = gce_options();
    (void)state;
    o.project = NULL;
    meta("project/project-id", "test\001project");
    gce(&o);
    resolve_fails(CRES_ERR_UNEXPECTED_RESPONSE);
}

static void metadata_project_not_a_resource_name_is_unexpected(void **state) {
    cres_gce_options o = gce_options();
    cres_error err;
    (void)state;
    o.project = NULL;
    meta("project/project-id", "../other-project");
    gce(&o);
    err = resolve_fails(CRES_ERR_UNEXPECTED_RESPONSE);
    HAS(err.message, "gce: the metadata project id is not a resource name");
}

/* The metadata server named by option, $GCE_METADATA_HOST or $GCE_METADATA_IP. */
static void metadata_url_option_and_environment(void **state) {
    cres_gce_options o = gce_options();
    (void)state;
    o.project = NULL;
    o.metadata_url = "http://169.254.169.254/";
    env_set("GCE_METADATA_HOST", "metadata.test:8080");
    on("GET", "http://169.254.169.254/computeMetadata/v1/project/project-id", 200, PROJECT);
    on("GET", "http://169.254.169.254/computeMetadata/v1/instance/name", 200, "instance2");
    serve_group(three_vms, 3);
    gce(&o);
    resolved();
    assert_string_equal(url(0), "http://169.254.169.254/computeMetadata/v1/project/project-id");
}

static void metadata_host_environment_before_ip(void **state) {
    cres_gce_options o = gce_options();
    (void)state;
    o.project = NULL;
    env_set("GCE_METADATA_IP", "10.0.0.254");
    env_set("GCE_METADATA_HOST", "metadata.test:8080");
    on("GET", "http://metadata.test:8080/computeMetadata/v1/project/project-id", 200, PROJECT);
    on("GET", "http://metadata.test:8080/computeMetadata/v1/instance/name", 200, "instance2");
    serve_group(three_vms, 3);
    gce(&o);
    resolved();
    assert_string_equal(url(0), "http://metadata.test:8080/computeMetadata/v1/project/project-id");
}

static void metadata_ip_environment(void **state) {
    cres_gce_options o = gce_options();
    (void)state;
    o.project = NULL;
    env_set("GCE_METADATA_IP", "10.0.0.254");
    on("GET", "http://10.0.0.254/computeMetadata/v1/project/project-id", 200, PROJECT);
    on("GET", "http://10.0.0.254/computeMetadata/v1/instance/name", 200, "instance2");
    serve_group(three_vms, 3);
    gce(&o);
    resolved();
    assert_string_equal(url(0), "http://10.0.0.254/computeMetadata/v1/project/project-id");
}

/* Empty values count as unset, down to the default host; slashes at the end of the server's
   URL go; an answer's line ends go. */
static void metadata_empty_names_and_untidy_answers(void **state) {
    cres_gce_options o = gce_options();
    (void)state;
    o.project = NULL;
    o.metadata_url = "";
    env_set("GCE_METADATA_HOST", "");
    env_set("GCE_METADATA_IP", "");
    meta("project/project-id", PROJECT "\r\n\n");
    meta_name("instance2");
    serve_group(three_vms, 3);
    gce(&o);
    resolved();
    assert_string_equal(url(0), METADATA "project/project-id");
    assert_string_equal(cres_task_type(C.r), "worker");
    o.metadata_url = "http://10.1.1.1:8080///";
    on("GET", "http://10.1.1.1:8080/computeMetadata/v1/project/project-id", 200, PROJECT);
    on("GET", "http://10.1.1.1:8080/computeMetadata/v1/instance/name", 200, "instance2");
    C.requests_count = 0;
    gce(&o);
    resolved();
    assert_string_equal(url(0), "http://10.1.1.1:8080/computeMetadata/v1/project/project-id");
}

/* Tokens: options.token, the token file, else the metadata server's. */

static void check_bearer_everywhere(const char *bearer) {
    size_t i;
    for (i = 0; i < C.requests_count && i < MAX_RECORDED; i++) {
        if (is_metadata(i)) {
            assert_null(header(i, "Authorization"));
            assert_string_equal(header(i, "Metadata-Flavor"), "Google");
        } else {
            assert_string_equal(header(i, "Authorization"), bearer);
            assert_null(header(i, "Metadata-Flavor"));
        }
    }
}

static void token_option_is_the_bearer(void **state) {
    cres_gce_options o = gce_options();
    (void)state;
    serve_group(three_vms, 3);
    gce(&o);
    resolved();
    check_bearer_everywhere("Bearer static-token");
    assert_string_equal(header(0, "Content-Type"), "application/json");
    assert_string_equal(header(1, "Accept"), "application/json");
}

static void token_file_is_read_at_each_resolve(void **state) {
    cres_gce_options o = gce_options();
    (void)state;
    o.token = NULL;
    o.token_file = temp_file("ya29.file-one\n");
    serve_group(three_vms, 3);
    gce(&o);
    resolved();
    assert_string_equal(header(0, "Authorization"), "Bearer ya29.file-one");
    temp_file("ya29.file-two");
    resolved();
    assert_string_equal(header(2, "Authorization"), "Bearer ya29.file-two");
    assert_string_equal(header(3, "Authorization"), "Bearer ya29.file-two");
    assert_int_equal(metadata_requests(), 0);
}

static void token_file_missing_is_environment_error(void **state) {
    cres_gce_options o = gce_options();
    (void)state;
    o.token = NULL;
    o.token_file = "/nonexistent/dir/token";
    gce(&o);
    resolve_fails(CRES_ERR_ENVIRONMENT);
    assert_int_equal(C.requests_count, 0);
}

static void token_and_token_file_is_invalid(void **state) {
    cres_gce_options o = gce_options();
    (void)state;
    o.token_file = "/tmp/token";
    gce_create_fails(&o, CRES_ERR_INVALID_ARGUMENT);
}

/* The metadata token is fetched once per resolve, however many pages and zones follow; it goes
   to every Compute call and never to the metadata server; every metadata call says
   Metadata-Flavor: Google. */
static void metadata_token_once_per_resolve_on_every_call(void **state) {
    static const vm a[] = {{"vm-a", "us-east1-b", "10.0.1.1"}};
    static const vm b[] = {{"vm-b", "us-east1-c", "10.0.2.1"}};
    cres_gce_options o = gce_options();
    (void)state;
    o.token = NULL;
    meta_token();
    meta_name("vm-b");
    on_owned("POST", GROUP_URL, 200, group_page(a, 1, "next"));
    on_owned("POST", GROUP_URL "&pageToken=next", 200, group_page(b, 1, NULL));
    on_owned("GET", ZONE_URL("us-east1-b"), 200, zone_page(a, 1, NULL));
    on_owned("GET", ZONE_URL("us-east1-c"), 200, zone_page(b, 1, NULL));
    gce(&o);
    assert_string_equal(resolved(), dq("{'worker': ['10.0.1.1:8470', '10.0.2.1:8470']}"));
    assert_int_equal(requests_to(METADATA "instance/service-accounts/default/token"), 1);
    assert_int_equal(C.requests_count, 6);
    check_bearer_everywhere("Bearer " META_TOKEN);
    resolved();
    assert_int_equal(requests_to(METADATA "instance/service-accounts/default/token"), 2);
    check_bearer_everywhere("Bearer " META_TOKEN);
}

static void token_with_line_break_is_refused(void **state) {
    cres_gce_options o = gce_options();
    cres_error err;
    (void)state;
    o.token = "abc\r\nX-Injected: 1";
    gce(&o);
    err = resolve_fails(CRES_ERR_ENVIRONMENT);
    assert_int_equal(C.requests_count, 0);
    assert_null(strstr(err.message, "abc"));
}

static void token_file_with_inner_line_break_is_refused(void **state) {
    cres_gce_options o = gce_options();
    (void)state;
    o.token = NULL;
    o.token_file = temp_file("abc\nX-Injected: 1\n");
    gce(&o);
    resolve_fails(CRES_ERR_ENVIRONMENT);
    assert_int_equal(C.requests_count, 0);
}

static void metadata_token_with_line_break_is_refused(void **state) {
    cres_gce_options o = gce_options();
    (void)state;
    o.token = NULL;
    meta("instance/service-accounts/default/token", "{\"access_token\": \"ya29\\r\\nX: 1\", \"expires_in\": 3599}");
    gce(&o);
    resolve_fails(CRES_ERR_ENVIRONMENT);
    assert_int_equal(C.requests_count, 1);
}

static void metadata_token_not_json_is_unexpected(void **state) {
    cres_gce_options o = gce_options();
    (void)state;
    o.token = NULL;
    meta("instance/service-accounts/default/token", "{\"access_token\": \"ya29");
    gce(&o);
    resolve_fails(CRES_ERR_UNEXPECTED_RESPONSE);
}

static void metadata_token_without_access_token_is_unexpected(void **state) {
    cres_gce_options o = gce_options();
    cres_error err;
    (void)state;
    o.token = NULL;
    meta("instance/service-accounts/default/token", "{\"expires_in\": 3599, \"token_type\": \"Bearer\"}");
    gce(&o);
    err = resolve_fails(CRES_ERR_UNEXPECTED_RESPONSE);
    HAS(err.message, "access_token");
}

/* Off Google Cloud the metadata server does not answer: a fast, clear failure. */
static void metadata_unreachable_is_not_on_google_cloud(void **state) {
    cres_gce_options o = gce_options();
    cres_error err;
    (void)state;
    o.project = NULL;
    on_fail("GET", METADATA "project/project-id", CRES_ERR_TRANSPORT);
    gce(&o);
    err = resolve_fails(CRES_ERR_ENVIRONMENT);
    HAS(err.message, "not on Google Cloud");
    HAS(err.message, "metadata.google.internal");
    assert_true(C.requests_count <= 2); /* retried at most once */
    assert_true(C.sleeps_count <= 1);
    assert_int_equal(requests_to(GROUP_URL), 0);
    C.config.resolve_timeout_ms = -1; /* the same without a bound on the resolve */
    gce(&o);
    err = resolve_fails(CRES_ERR_ENVIRONMENT);
    HAS(err.message, "not on Google Cloud");
}

static void metadata_timeout_is_not_on_google_cloud(void **state) {
    cres_gce_options o = gce_options();
    cres_error err;
    (void)state;
    o.token = NULL;
    on_fail("GET", METADATA "instance/service-accounts/default/token", CRES_ERR_TIMEOUT);
    gce(&o);
    err = resolve_fails(CRES_ERR_ENVIRONMENT);
    HAS(err.message, "not on Google Cloud");
    assert_int_equal(C.requests_count, 1); /* a timeout is not retried */
}

/* The defaults are settled at create, and no call rewrites the resolver's config, not even
   the metadata lookups with their own budget. */
static void config_settled_at_create_and_read_only(void **state) {
    cres_gce_options o = gce_options();
    cres_config before;
    (void)state;
    C.config.max_retries = -1;
    o.token = NULL;
    meta_token();
    meta_name("instance2");
    serve_group(three_vms, 3);
    gce(&o);
    assert_int_equal(C.r->config.timeout_ms, 10000);
    assert_int_equal(C.r->config.max_retries, 0); /* -1 = none: no retries */
    assert_int_equal(C.r->config.resolve_timeout_ms, 60000);
    assert_int_equal(C.r->config.max_response_bytes, 64u * 1024u * 1024u);
    before = C.r->config;
    resolved();
    assert_memory_equal(&before, &C.r->config, sizeof before);
    assert_int_equal(req(0)->timeout_ms, 2000); /* the metadata budget, without touching the config */
}

/* A metadata request waits at most 2 s and is retried at most once, whatever the config says;
   the Compute calls keep the configured timeout. */
static void metadata_timeout_budget(void **state) {
    cres_gce_options o = gce_options();
    (void)state;
    C.config.max_retries = 5;
    o.project = NULL;
    on_fail("GET", METADATA "project/project-id", CRES_ERR_TRANSPORT);
    gce(&o);
    resolve_fails(CRES_ERR_ENVIRONMENT);
    assert_int_equal(C.requests_count, 2);
    assert_int_equal(req(0)->timeout_ms, 2000);
    assert_int_equal(req(1)->timeout_ms, 2000);
}

static void metadata_timeout_shorter_config_wins(void **state) {
    cres_gce_options o = gce_options();
    (void)state;
    C.config.timeout_ms = 700;
    o.project = NULL;
    C.metadata_404 = 1;
    meta_project();
    serve_group(one_vm, 1);
    gce(&o);
    resolved();
    assert_int_equal(req(0)->timeout_ms, 700);
    assert_int_equal(req(1)->timeout_ms, 700);
}

static void compute_calls_keep_the_configured_timeout(void **state) {
    cres_gce_options o = gce_options();
    size_t i;
    (void)state;
    o.project = NULL;
    o.token = NULL;
    meta_project();
    meta_token();
    meta_name("instance1");
    serve_group(three_vms, 3);
    gce(&o);
    resolved();
    for (i = 0; i < C.requests_count; i++) assert_int_equal(req(i)->timeout_ms, is_metadata(i) ? 2000 : 10000);
}

static void metadata_no_retry_when_retries_off(void **state) {
    cres_gce_options o = gce_options();
    (void)state;
    C.config.max_retries = -1;
    o.project = NULL;
    on_fail("GET", METADATA "project/project-id", CRES_ERR_TRANSPORT);
    gce(&o);
    resolve_fails(CRES_ERR_ENVIRONMENT);
    assert_int_equal(C.requests_count, 1);
    no_sleeps();
}

/* A metadata server that answers 500: retried once, then the status is the error. */
static void metadata_server_error_retried_once(void **state) {
    cres_gce_options o = gce_options();
    cres_error err;
    (void)state;
    o.project = NULL;
    on("GET", METADATA "project/project-id", 500, "Internal Server Error");
    gce(&o);
    err = resolve_fails(CRES_ERR_HTTP_STATUS);
    assert_int_equal(err.http_status, 500);
    assert_int_equal(C.requests_count, 2);
}

/* Own task: the metadata instance/name, when the metadata server gave the token. */
static void own_task_from_metadata_instance_name(void **state) {
    cres_gce_options o = gce_options();
    (void)state;
    o.token = NULL;
    meta_token();
    meta_name("instance2");
    serve_group(three_vms, 3);
    gce(&o);
    resolved();
    assert_string_equal(cres_task_type(C.r), "worker");
    assert_int_equal(cres_task_id(C.r), 1);
    assert_string_equal(master_of(NULL, -1, NULL), "grpc://10.2.3.4:8470");
    assert_int_equal(requests_to(METADATA "instance/name"), 2);
}

/* With a token given and no metadata server named, nothing says we are on Google Cloud: the own
   task stays unknown rather than costing a metadata timeout. */
static void own_task_not_asked_off_google_cloud(void **state) {
    cres_gce_options o = gce_options();
    (void)state;
    serve_group(three_vms, 3);
    gce(&o);
    resolved();
    assert_int_equal(C.requests_count, 2);
    assert_null(cres_task_type(C.r));
    assert_int_equal(cres_task_id(C.r), -1);
    assert_string_equal(master_of(NULL, -1, NULL), "");
}

/* The metadata server just answered for the project: it is there, so it is asked for the own
   instance too (the header: instance_name NULL = metadata instance/name). */
static void own_task_asked_when_metadata_gave_the_project(void **state) {
    cres_gce_options o = gce_options();
    (void)state;
    o.project = NULL;
    meta_project();
    meta_name("instance3");
    serve_group(three_vms, 3);
    gce(&o);
    resolved();
    assert_int_equal(requests_to(METADATA "instance/name"), 1);
    assert_int_equal(cres_task_id(C.r), 2);
}

static void own_task_asked_when_metadata_is_named(void **state) {
    cres_gce_options o = gce_options();
    (void)state;
    env_set("GCE_METADATA_HOST", "metadata.google.internal");
    meta_name("instance3");
    serve_group(three_vms, 3);
    gce(&o);
    resolved();
    assert_string_equal(cres_task_type(C.r), "worker");
    assert_int_equal(cres_task_id(C.r), 2);
}

static void own_instance_name_option(void **state) {
    cres_gce_options o = gce_options();
    (void)state;
    o.token = NULL;
    o.instance_name = "instance3";
    meta_token();
    serve_group(three_vms, 3);
    gce(&o);
    resolved();
    assert_int_equal(cres_task_id(C.r), 2);
    assert_int_equal(requests_to(METADATA "instance/name"), 0);
}

static void own_instance_not_in_group_leaves_task_unknown(void **state) {
    cres_gce_options o = gce_options();
    (void)state;
    o.token = NULL;
    meta_token();
    meta_name("some-other-vm");
    serve_group(three_vms, 3);
    gce(&o);
    resolved();
    assert_null(cres_task_type(C.r));
    assert_string_equal(master_of(NULL, -1, NULL), "");
}

static void own_instance_name_404_leaves_task_unknown(void **state) {
    cres_gce_options o = gce_options();
    (void)state;
    o.token = NULL;
    meta_token();
    C.metadata_404 = 1;
    serve_group(three_vms, 3);
    gce(&o);
    assert_string_equal(resolved(), dq(THREE_SPEC));
    assert_null(cres_task_type(C.r));
}

/* The metadata server gave the token, then the own-name lookup broke off: the own task cannot
   be known, so the resolve fails; a spec without its task would be a silent wrong answer. */
static void own_instance_name_lost_fails(void **state) {
    static const cres_result faults[] = {CRES_ERR_TRANSPORT, CRES_ERR_TIMEOUT};
    size_t i;
    for (i = 0; i < N(faults); i++) {
        cres_gce_options o = gce_options();
        cres_error err;
        teardown(state);
        setup(state);
        o.token = NULL;
        meta_token();
        on_fail("GET", METADATA "instance/name", faults[i]);
        serve_group(three_vms, 3);
        gce(&o);
        err = resolve_fails(faults[i]);
        HAS(err.message, "instance/name");
        assert_null(strstr(err.message, "not on Google Cloud"));
    }
}

/* A metadata server that answered earlier in this resolve and then gives no status line is a
   network fault, not "not on Google Cloud": the error keeps the transport's result. */
static void metadata_lost_after_answers_is_a_network_fault(void **state) {
    cres_gce_options o = gce_options();
    cres_error err;
    (void)state;
    o.project = NULL;
    o.token = NULL;
    meta_project();
    on_fail("GET", METADATA "instance/service-accounts/default/token", CRES_ERR_TRANSPORT);
    gce(&o);
    err = resolve_fails(CRES_ERR_TRANSPORT);
    HAS(err.message, "instance/service-accounts/default/token");
    assert_null(strstr(err.message, "not on Google Cloud"));
    assert_int_equal(requests_to(METADATA "instance/service-accounts/default/token"), 2); /* one retry */
}

static void options_task_wins_over_own_instance(void **state) {
    cres_gce_options o = gce_options();
    (void)state;
    o.token = NULL;
    o.task_type = "worker";
    o.task_id = 0;
    meta_token();
    meta_name("instance3");
    serve_group(three_vms, 3);
    gce(&o);
    resolved();
    assert_int_equal(cres_task_id(C.r), 0);
    assert_string_equal(master_of(NULL, -1, NULL), "grpc://10.1.2.3:8470");
}

static void rpc_layer_default_and_option(void **state) {
    cres_gce_options o = gce_options();
    (void)state;
    assert_string_equal(cres_rpc_layer(gce(&o)), "grpc");
    o.rpc_layer = "";
    assert_null(cres_rpc_layer(gce(&o)));
    o.rpc_layer = "test";
    assert_string_equal(cres_rpc_layer(gce(&o)), "test");
}

static void compute_url_option(void **state) {
    cres_gce_options o = gce_options();
    (void)state;
    o.compute_url = "http://127.0.0.1:9000/compute/v1";
    on_owned("POST", "http://127.0.0.1:9000/compute/v1/projects/" PROJECT "/zones/" ZONE "/instanceGroups/" GROUP
                     "/listInstances?maxResults=500",
             200, group_page(one_vm, 1, NULL));
    on_owned("GET", "http://127.0.0.1:9000/compute/v1/projects/" PROJECT "/zones/" ZONE "/instances" ZONE_QUERY, 200,
             zone_page(one_vm, 1, NULL));
    gce(&o);
    assert_string_equal(resolved(), dq("{'worker': ['10.123.45.67:8470']}"));
}

/* The zone list asks only for running instances and only for the fields read. */
static void zone_list_filter_and_fields(void **state) {
    cres_gce_options o = gce_options();
    const char *q;
    (void)state;
    serve_group(one_vm, 1);
    gce(&o);
    resolved();
    q = strchr(url(1), '?');
    assert_non_null(q);
    HAS(q, "filter=status%20%3D%20%22RUNNING%22"); /* status = "RUNNING" */
    HAS(q, "fields=items%28name%2CnetworkInterfaces%28networkIP%29%29%2CnextPageToken");
}

/* Base URLs an option may not give: no scheme, another scheme, no host, a line break. */
static const char *const bad_base_urls[] = {"", "/", "compute.googleapis.com", "ftp://h/x", "https://",
                                            "https:///compute/v1", "http://h\r\nX: 1"};

static void create_checks_names(void **state) {
    static const char *const bad_groups[] = {NULL, "", "a/b", "g?x=1", "g#f", "with space"};
    cres_gce_options o = gce_options();
    cres_error err;
    size_t i;
    (void)state;
    for (i = 0; i < N(bad_groups); i++) {
        o.instance_group = bad_groups[i];
        gce_create_fails(&o, CRES_ERR_INVALID_ARGUMENT);
    }
    o.instance_group = GROUP;
    o.project = "p/../other";
    gce_create_fails(&o, CRES_ERR_INVALID_ARGUMENT);
    o.project = PROJECT;
    o.zone = "us-east1-d?x";
    gce_create_fails(&o, CRES_ERR_INVALID_ARGUMENT);
    o.zone = ZONE;
    o.region = "us-central1/x";
    gce_create_fails(&o, CRES_ERR_INVALID_ARGUMENT);
    o.region = NULL;
    o.port = 65536;
    gce_create_fails(&o, CRES_ERR_INVALID_ARGUMENT);
    o.port = -1;
    gce_create_fails(&o, CRES_ERR_INVALID_ARGUMENT);
    o.port = 0;
    for (i = 0; i < N(bad_base_urls); i++) { /* requests would go to a relative path, or nowhere */
        cres_resolver *r = NULL;
        o.compute_url = bad_base_urls[i];
        EXPECT(cres_gce_resolver_create(&o, &r, &err), CRES_ERR_INVALID_ARGUMENT);
        assert_null(r);
        HAS(err.message, "gce: project, zone, region, port or compute_url (http:// or https:// and a host) is "
                         "malformed");
    }
    o.compute_url = "http://127.0.0.1:8080/compute/v1/"; /* a local fake's: fine */
    OK(cres_gce_resolver_create(&o, &C.r, &err));
    keep(NULL);
    o.compute_url = NULL;
    { /* a resource name starts with a letter or digit and has 128 bytes at most */
        static char long_name[130];
        static const char *const bad_first[] = {"-group", ".group", "_group", ":group", "~group", "\x80group"};
        memset(long_name, 'g', 129);
        o.instance_group = long_name;
        gce_create_fails(&o, CRES_ERR_INVALID_ARGUMENT);
        long_name[128] = '\0';
        o.instance_group = long_name;
        C.r = NULL;
        OK(cres_gce_resolver_create(&o, &C.r, &err)); /* 128: fine */
        for (i = 0; i < N(bad_first); i++) {
            o.instance_group = bad_first[i];
            gce_create_fails(&o, CRES_ERR_INVALID_ARGUMENT);
        }
        o.instance_group = "Group-9"; /* upper case first */
        keep(NULL);
        OK(cres_gce_resolver_create(&o, &C.r, &err));
        keep(NULL);
        o.instance_group = "9-group"; /* a digit first */
        OK(cres_gce_resolver_create(&o, &C.r, &err));
    }
}

/* ---------------------------------------------------------------------------------------
   GCE: errors from the API */

#define GOOGLE_ERROR(code, message, status)                                                        \
    "{\"error\": {\"code\": " #code ", \"message\": \"" message "\", \"errors\": [{\"message\": \"" \
    message "\", \"domain\": \"global\", \"reason\": \"x\"}], \"status\": \"" status "\"}}"

static void unauthorized_401_mentions_the_token(void **state) {
    cres_gce_options o = gce_options();
    cres_error err;
    (void)state;
    on("POST", GROUP_URL, 401,
       GOOGLE_ERROR(401, "Request had invalid authentication credentials. Expected OAuth 2 access token",
                    "UNAUTHENTICATED"));
    gce(&o);
    err = resolve_fails(CRES_ERR_HTTP_STATUS);
    assert_int_equal(err.http_status, 401);
    HAS(err.message, "401 Unauthorized: Request had invalid authentication credentials");
    HAS(err.message, "access token");
    assert_null(strstr(err.message, "static-token"));
}

static void forbidden_403_names_the_permission(void **state) {
    cres_gce_options o = gce_options();
    cres_error err;
    (void)state;
    on("POST", GROUP_URL, 403,
       GOOGLE_ERROR(403, "Required 'compute.instanceGroups.list' permission for 'projects/test-project'",
                    "PERMISSION_DENIED"));
    gce(&o);
    err = resolve_fails(CRES_ERR_HTTP_STATUS);
    assert_int_equal(err.http_status, 403);
    HAS(err.message, "gce: 403 Forbidden: Required 'compute.instanceGroups.list' permission");
    HAS(err.message, "the account needs compute.instanceGroups.list");
    assert_int_equal(C.requests_count, 1); /* a 403 is not retried */
}

/* A 403 without a Google body still names the permission the zone list needs. */
static void forbidden_403_on_zone_list_names_its_permission(void **state) {
    cres_gce_options o = gce_options();
    cres_error err;
    (void)state;
    on_owned("POST", GROUP_URL, 200, group_page(one_vm, 1, NULL));
    on("GET", ZONE_URL(ZONE), 403, "<html>Forbidden</html>");
    gce(&o);
    err = resolve_fails(CRES_ERR_HTTP_STATUS);
    HAS(err.message, "compute.instances.list");
}

static void not_found_404_gives_the_message(void **state) {
    cres_gce_options o = gce_options();
    cres_error err;
    (void)state;
    on("POST", GROUP_URL, 404,
       GOOGLE_ERROR(404, "The resource 'projects/test-project/zones/us-east1-d/instanceGroups/test-instance-group' "
                         "was not found",
                    "NOT_FOUND"));
    gce(&o);
    err = resolve_fails(CRES_ERR_HTTP_STATUS);
    assert_int_equal(err.http_status, 404);
    HAS(err.message, "404 Not Found: The resource 'projects/test-project/zones/us-east1-d/instanceGroups/test-inst");
    /* a "message" that is no string adds nothing */
    while (C.routes_count) free(C.routes[--C.routes_count].body);
    on("POST", GROUP_URL, 404, "{\"error\": {\"code\": 404, \"message\": 404, \"status\": \"NOT_FOUND\"}}");
    err = resolve_fails(CRES_ERR_HTTP_STATUS);
    assert_string_equal(err.message, "gce: 404 Not Found");
}

static void server_error_500_retried_then_succeeds(void **state) {
    cres_gce_options o = gce_options();
    (void)state;
    on("POST", GROUP_URL, 500, GOOGLE_ERROR(500, "Internal error", "INTERNAL"))->times = 2;
    serve_group(three_vms, 3);
    gce(&o);
    assert_string_equal(resolved(), dq(THREE_SPEC));
    assert_int_equal(C.requests_count, 4);
    assert_int_equal(C.sleeps_count, 2);
    assert_in_range(C.sleeps[0], 250, 375); /* 250 ms doubling, plus a draw up to half again */
    assert_in_range(C.sleeps[1], 500, 750);
}

static void server_error_500_exhausted(void **state) {
    cres_gce_options o = gce_options();
    cres_error err;
    (void)state;
    on("POST", GROUP_URL, 500, GOOGLE_ERROR(500, "Internal error", "INTERNAL"));
    gce(&o);
    err = resolve_fails(CRES_ERR_HTTP_STATUS);
    assert_int_equal(err.http_status, 500);
    HAS(err.message, "HTTP 500: Internal error");
    assert_int_equal(C.requests_count, 4); /* 1 + 3 retries */
}

static void unavailable_503_honours_retry_after(void **state) {
    cres_gce_options o = gce_options();
    route *rt = on("GET", ZONE_URL(ZONE), 503, NULL);
    rt->times = 1;
    (void)state;
    rt->retry_after_s = 3;
    serve_group(three_vms, 3);
    gce(&o);
    assert_string_equal(resolved(), dq(THREE_SPEC));
    assert_int_equal(C.sleeps_count, 1);
    assert_in_range(C.sleeps[0], 3000, 6000); /* Retry-After, plus up to as much again */
}

static void expect_unexpected_list(const char *group_body, const char *zone_body) {
    cres_gce_options o = gce_options();
    if (group_body) on("POST", GROUP_URL, 200, group_body);
    else on_owned("POST", GROUP_URL, 200, group_page(three_vms, 3, NULL));
    if (zone_body) on("GET", ZONE_URL(ZONE), 200, zone_body);
    gce(&o);
    resolve_fails(CRES_ERR_UNEXPECTED_RESPONSE);
}

static void malformed_group_list_json(void **state) {
    (void)state;
    expect_unexpected_list("{\"items\": [{\"instance\": }]}", NULL);
}

static void truncated_group_list_json(void **state) {
    (void)state;
    expect_unexpected_list("{\"items\": [{\"instance\": \"https://www.googleapis.com/compute/v1/projects/p/zo", NULL);
}

static void empty_group_list_body(void **state) {
    (void)state;
    expect_unexpected_list("", NULL);
}

static void group_list_not_an_object(void **state) {
    (void)state;
    expect_unexpected_list("[]", NULL);
}

static void group_items_not_a_list(void **state) {
    (void)state;
    expect_unexpected_list("{\"items\": {\"instance\": \"x\"}}", NULL);
}

static void group_member_without_instance_url(void **state) {
    (void)state;
    expect_unexpected_list("{\"items\": [{\"status\": \"RUNNING\"}]}", NULL);
}

/* Each other wrong shape of a group's member or a zone's instance: UNEXPECTED_RESPONSE,
   before any address is taken from it. */
#define ZONES_URL "https://www.googleapis.com/compute/v1/projects/p/zones/"
static void member_and_instance_shapes_are_checked(void **state) {
    static char long_zone[400], long_ip[200];
    const char *groups[4], *zones[6];
    size_t i;
    (void)state;
    snprintf(long_zone, sizeof long_zone,
             "{\"items\": [{\"instance\": \"" ZONES_URL "%0130d/instances/vm-1\"}]}", 0);
    snprintf(long_ip, sizeof long_ip,
             "{\"items\": [{\"name\": \"gce-instance-1\", \"networkInterfaces\": [{\"networkIP\": \"10.%070d\"}]}]}", 0);
    groups[0] = "{\"items\": [{\"instance\": 7}]}";                                      /* not a string */
    groups[1] = "{\"items\": [{\"instance\": \"" ZONES_URL "us-east1-d/disks/vm-1\"}]}";      /* no /instances/ */
    groups[2] = long_zone;                                                            /* a zone past 128 */
    groups[3] = "{\"items\": [{\"instance\": \"" ZONES_URL "us-east1-d/instances/vm 1\"}]}"; /* a bad name */
    for (i = 0; i < 4; i++) {
        while (C.routes_count) free(C.routes[--C.routes_count].body);
        expect_unexpected_list(groups[i], NULL);
    }
    zones[0] = "{\"items\": [{\"name\": 5}]}";
    zones[1] = "{\"items\": [{\"name\": \"gce-instance-1-with-a-name-longer-than-any-instance-may-have-at-all-"
               "in-compute-engine-0123456789-0123456789\"}]}";
    zones[2] = "{\"items\": [{\"name\": \"gce-instance-1\", \"networkInterfaces\": {}}]}";
    zones[3] = "{\"items\": [{\"name\": \"gce-instance-1\", \"networkInterfaces\": [{\"networkIP\": 10}]}]}";
    zones[4] = "{\"items\": [{\"name\": \"gce-instance-1\", \"networkInterfaces\": [{\"networkIP\": \"\"}]}]}";
    zones[5] = long_ip;
    for (i = 0; i < 6; i++) {
        cres_gce_options o = gce_options();
        cres_error err;
        while (C.routes_count) free(C.routes[--C.routes_count].body);
        on_owned("POST", GROUP_URL, 200, group_page(one_vm, 1, NULL));
        on("GET", ZONE_URL(ZONE), 200, zones[i]);
        gce(&o);
        err = resolve_fails(i < 2 ? CRES_ERR_NOT_READY : CRES_ERR_UNEXPECTED_RESPONSE);
        /* an instance without a usable name is no member of the group: it is not there yet */
        HAS(err.message, i < 2 ? "\"gce-instance-1\" is in the group but not RUNNING"
                         : i < 5 ? "\"gce-instance-1\" has no networkInterfaces[0].networkIP"
                                 : "\"gce-instance-1\" has a malformed networkIP");
    }
}

static void group_member_url_without_zone(void **state) {
    (void)state;
    /* TF's mock URL shape: no /zones/ segment to list */
    expect_unexpected_list("{\"items\": [{\"instance\": \"https://gce.example.com/res/gce-instance-1\"}]}", NULL);
}

/* The zone segment of an instance URL goes into the next request's path: it must be a name. */
static void group_member_zone_not_a_resource_name(void **state) {
    (void)state;
    expect_unexpected_list("{\"items\": [{\"instance\": \"https://www.googleapis.com/compute/v1/projects/p/zones/"
                           "us-east1-d?fields=x#/instances/vm-1\"}]}",
                           NULL);
    assert_int_equal(C.requests_count, 1);
}

static void malformed_zone_list_json(void **state) {
    (void)state;
    expect_unexpected_list(NULL, "{\"items\": [{\"name\": \"instance1\",}]}");
}

static void truncated_zone_list_json(void **state) {
    (void)state;
    expect_unexpected_list(NULL, "{\"items\": [{\"name\": \"instance1\", \"networkInterfaces\": [{\"netw");
}

/* A list that never ends stops at CRES_MAX_GCP_PAGES (1000) pages. */
static void endless_page_tokens_stop_at_the_page_limit(void **state) {
    cres_gce_options o = gce_options();
    cres_error err;
    (void)state;
    on("POST", GROUP_URL, 200, NULL)->endless = 1;
    gce(&o);
    err = resolve_fails(CRES_ERR_LIMIT);
    HAS(err.message, "1000 pages");
    assert_int_equal(C.requests_count, 1000);
    assert_string_equal(C.last_url, GROUP_URL "&pageToken=p999");
    assert_int_equal(C.unrouted, 0);
}

/* A server that sends the same pageToken again would loop: stopped at once. */
static void repeated_page_token_is_an_error(void **state) {
    cres_gce_options o = gce_options();
    cres_error err;
    (void)state;
    on("POST", GROUP_URL, 200, NULL)->endless = 2;
    gce(&o);
    err = resolve_fails(CRES_ERR_UNEXPECTED_RESPONSE);
    HAS(err.message, "same pageToken");
    assert_int_equal(C.requests_count, 2);
    assert_string_equal(C.last_url, GROUP_URL "&pageToken=same");
}

static void endless_zone_list_stops_at_the_page_limit(void **state) {
    cres_gce_options o = gce_options();
    (void)state;
    on_owned("POST", GROUP_URL, 200, group_page(one_vm, 1, NULL));
    on("GET", ZONE_URL(ZONE), 200, NULL)->endless = 1;
    gce(&o);
    resolve_fails(CRES_ERR_LIMIT);
    assert_int_equal(C.requests_count, 1001);
    assert_int_equal(C.unrouted, 0);
}

static void no_transport_is_no_transport_error(void **state) {
    cres_gce_options o = gce_options();
    cres_error err;
    (void)state;
    memset(&C.config.transport, 0, sizeof C.config.transport);
    gce(&o);
    err = resolve_fails(CRES_ERR_NO_TRANSPORT);
    HAS(err.message, "gce: no HTTP transport");
}

/* ---------------------------------------------------------------------------------------
   The HTTP layer under the resolve's bound (config.resolve_timeout_ms) */

/* A request the bound shortens (less left than timeout_ms): its timeout, and a connection
   error that ends past the bound, are the resolve's timeout; a connection error within the
   bound, or another failure of the transport, stays the transport's own, as any failure does
   without a bound (resolve_timeout_ms -1). */
static void resolve_bound_shortens_the_request(void **state) {
    static const struct {
        int bound_ms, delay_ms;
        cres_result fail, want;
        const char *words;
    } cases[] = {
        {1000, 0, CRES_ERR_TIMEOUT, CRES_ERR_TIMEOUT,
         "gce: POST " GROUP_URL ": the resolve took longer than config.resolve_timeout_ms (1000 ms): fake: "
         "connection refused"},
        {200, 250, CRES_ERR_TRANSPORT, CRES_ERR_TIMEOUT,
         "the resolve took longer than config.resolve_timeout_ms (200 ms): fake: connection refused"},
        {1000, 0, CRES_ERR_TRANSPORT, CRES_ERR_TRANSPORT, "gce: POST " GROUP_URL ": fake: connection refused"},
        {1000, 0, CRES_ERR_LIMIT, CRES_ERR_LIMIT, "gce: POST " GROUP_URL ": fake: connection refused"},
        {-1, 0, CRES_ERR_TRANSPORT, CRES_ERR_TRANSPORT, "gce: POST " GROUP_URL ": fake: connection refused"},
    };
    size_t i;
    (void)state;
    C.config.max_retries = -1;
    for (i = 0; i < N(cases); i++) {
        cres_gce_options o = gce_options();
        cres_error err;
        route *rt = on_fail("POST", GROUP_URL, cases[i].fail);
        rt->times = 1;
        rt->delay_ms = cases[i].delay_ms;
        C.config.resolve_timeout_ms = cases[i].bound_ms;
        C.requests_count = 0;
        gce(&o);
        err = resolve_fails(cases[i].want);
        if (!strstr(err.message, cases[i].words)) fail_msg("case %zu: %s", i, err.message);
        if (cases[i].want != CRES_ERR_TIMEOUT) assert_null(strstr(err.message, "resolve_timeout_ms"));
        assert_int_equal(C.requests_count, 1);
        if (cases[i].bound_ms < 0) assert_int_equal(req(0)->timeout_ms, 10000); /* no bound: timeout_ms */
        else assert_in_range(req(0)->timeout_ms, 1, cases[i].bound_ms); /* what was left, not 10000 */
    }
}

/* A transport without close_session: the session it opened is its own to end; the resolve
   reuses it for every request and does not close it. */
static void transport_without_close_session(void **state) {
    cres_gce_options o = gce_options();
    cres_cluster_spec *s = NULL;
    cres_error err;
    (void)state;
    C.config.transport.close_session = NULL;
    serve_group(three_vms, 3);
    gce(&o);
    OK(cres_resolve(C.r, &s, &err));
    assert_string_equal(json_of(s), dq(THREE_SPEC));
    cres_spec_free(s);
    assert_int_equal(C.requests_count, 2);
    assert_int_equal(C.sessions_opened, 1);
    assert_int_equal(C.sessions_closed, 0);
}

/* Retries under the bound: a Retry-After longer than what is left is not waited for (the 503
   is the answer); a 429 past max_retries is retried only while the wait leaves the request an
   eighth of the bound, and while it does, beyond max_retries; with retries off, or with no
   bound, a 429 is retried max_retries times. */
static void retries_within_the_resolve_bound(void **state) {
    cres_gce_options o = gce_options();
    cres_error err;
    route *rt;
    (void)state;
    /* 1. Retry-After 10 s with 5 s left: no wait, the 503 */
    C.config.resolve_timeout_ms = 5000;
    rt = on("POST", GROUP_URL, 503, "Service Unavailable");
    rt->retry_after_s = 10;
    rt->times = 1;
    gce(&o);
    err = resolve_fails(CRES_ERR_HTTP_STATUS);
    HAS(err.message, "gce: HTTP 503");
    assert_int_equal(err.http_status, 503);
    assert_int_equal(C.requests_count, 1);
    no_sleeps();
    /* 2. 429 with Retry-After 7 s and an 8 s bound: one retry (max_retries 1) after exactly
       7 s (the draw leaves the request its second), then less than an eighth is left: the 429 */
    C.config.resolve_timeout_ms = 8000;
    C.config.max_retries = 1;
    rt = on("POST", GROUP_URL, 429, GOOGLE_ERROR(429, "Quota exceeded", "RESOURCE_EXHAUSTED"));
    rt->retry_after_s = 7;
    rt->delay_ms = 2;
    rt->times = 2;
    C.requests_count = 0;
    gce(&o);
    err = resolve_fails(CRES_ERR_HTTP_STATUS);
    HAS(err.message, "gce: HTTP 429: Quota exceeded");
    assert_int_equal(err.http_status, 429);
    assert_int_equal(C.requests_count, 2);
    assert_int_equal(C.sleeps_count, 1);
    assert_int_equal(C.sleeps[0], 7000);
    /* 3. retries off: a 429 is the answer at once */
    C.config.max_retries = -1;
    on("POST", GROUP_URL, 429, GOOGLE_ERROR(429, "Quota exceeded", "RESOURCE_EXHAUSTED"))->times = 1;
    C.requests_count = 0;
    C.sleeps_count = 0;
    gce(&o);
    err = resolve_fails(CRES_ERR_HTTP_STATUS);
    HAS(err.message, "gce: HTTP 429: Quota exceeded");
    assert_int_equal(C.requests_count, 1);
    no_sleeps();
    /* 4. time left: a 429 is retried past max_retries (1 here), each wait drawn from [0, 250 ms
       doubling] ("full jitter") */
    C.config.resolve_timeout_ms = 0; /* the default, 60 s */
    C.config.max_retries = 1;
    on("POST", GROUP_URL, 429, GOOGLE_ERROR(429, "Quota exceeded", "RESOURCE_EXHAUSTED"))->times = 3;
    serve_group(three_vms, 3);
    C.requests_count = 0;
    gce(&o);
    assert_string_equal(resolved(), dq(THREE_SPEC));
    assert_int_equal(requests_to(GROUP_URL), 4);
    assert_int_equal(C.sleeps_count, 3);
    assert_in_range(C.sleeps[0], 0, 250);
    assert_in_range(C.sleeps[1], 0, 500);
    assert_in_range(C.sleeps[2], 0, 1000);
    /* 5. no bound: max_retries retries, each wait drawn from [0, 250 ms doubling] */
    C.config.resolve_timeout_ms = -1;
    C.config.max_retries = 2;
    while (C.routes_count) free(C.routes[--C.routes_count].body);
    C.sleeps_count = 0;
    on("POST", GROUP_URL, 429, GOOGLE_ERROR(429, "Quota exceeded", "RESOURCE_EXHAUSTED"))->times = 2;
    serve_group(three_vms, 3);
    C.requests_count = 0;
    gce(&o);
    assert_string_equal(resolved(), dq(THREE_SPEC));
    assert_int_equal(C.requests_count, 4);
    assert_int_equal(C.sleeps_count, 2);
    assert_in_range(C.sleeps[0], 0, 250);
    assert_in_range(C.sleeps[1], 0, 500);
}

/* Metadata answers that are no usable text: an empty project id (or only a line break) is not
   a resource name; a value with a NUL is not text; a token answer whose access_token is no
   string or is over 16 KiB gives no bearer. */
static void metadata_answers_that_are_not_usable(void **state) {
#define META_TOKEN_PATH "instance/service-accounts/default/token"
    static char big[16500];
    static const struct {
        const char *path, *body;
        size_t len;
        cres_result want;
        const char *words;
    } cases[] = {
        {"project/project-id", "", 0, CRES_ERR_UNEXPECTED_RESPONSE, "gce: the metadata project id is not a resource name"},
        {"project/project-id", "\n", 0, CRES_ERR_UNEXPECTED_RESPONSE, "gce: the metadata project id is not a resource name"},
        {"project/project-id", "test-pro\0ject", 13, CRES_ERR_UNEXPECTED_RESPONSE,
         "gce: metadata project/project-id is not text: a NUL"},
        {META_TOKEN_PATH, "{\"access_token\": 5, \"expires_in\": 3599}", 0, CRES_ERR_UNEXPECTED_RESPONSE,
         "gce: the metadata token has no access_token"},
        {META_TOKEN_PATH, big, 0, CRES_ERR_ENVIRONMENT,
         "gce: the access token is empty, over 16 KiB or has spaces or control characters"},
    };
    size_t i;
    (void)state;
    snprintf(big, sizeof big, "{\"access_token\": \"ya29.%0*d\", \"expires_in\": 3599}", 16380, 0); /* 16385 bytes */
    for (i = 0; i < N(cases); i++) {
        cres_gce_options o = gce_options();
        cres_error err;
        route *rt;
        while (C.routes_count) free(C.routes[--C.routes_count].body);
        if (strcmp(cases[i].path, META_TOKEN_PATH) == 0) o.token = NULL;
        else o.project = NULL;
        rt = on("GET", METADATA "", 200, NULL);
        snprintf(rt->url, sizeof rt->url, METADATA "%s", cases[i].path);
        rt->body_len = cases[i].len ? cases[i].len : strlen(cases[i].body);
        rt->body = (char *)malloc(rt->body_len + 1);
        assert_non_null(rt->body);
        memcpy(rt->body, cases[i].body, rt->body_len + 1);
        C.requests_count = 0;
        gce(&o);
        err = resolve_fails(cases[i].want);
        if (!strstr(err.message, cases[i].words)) fail_msg("case %zu: %s", i, err.message);
        assert_int_equal(C.requests_count, 1); /* nothing went to the Compute API */
    }
#undef META_TOKEN_PATH
}

/* Instance names are unique within a zone: a regional group's two instances of one name are
   ordered by zone, and each gets its own zone's address. */
static void same_name_in_two_zones_ordered_by_zone(void **state) {
    static const vm members[] = {{"trainer-0", "us-central1-b", "10.0.2.10"}, {"trainer-0", "us-central1-a", "10.0.1.10"},
                                 {"trainer-1", "us-central1-a", "10.0.1.11"}};
    static const vm zone_a[] = {{"trainer-1", NULL, "10.0.1.11"}, {"trainer-0", NULL, "10.0.1.10"}};
    static const vm zone_b[] = {{"trainer-0", NULL, "10.0.2.10"}};
    cres_gce_options o = gce_options();
    (void)state;
    o.zone = NULL;
    o.region = "us-central1";
    on_owned("POST", REGION_GROUP_URL("us-central1"), 200, group_page(members, N(members), NULL));
    on_owned("GET", ZONE_URL("us-central1-a"), 200, zone_page(zone_a, N(zone_a), NULL));
    on_owned("GET", ZONE_URL("us-central1-b"), 200, zone_page(zone_b, N(zone_b), NULL));
    gce(&o);
    assert_string_equal(resolved(), dq("{'worker': ['10.0.1.10:8470', '10.0.2.10:8470', '10.0.1.11:8470']}"));
}

/* Zone list items without a usable name (not a string, none, longer than any instance name) name
   no member: the members get their addresses from their own items. */
static void zone_list_items_without_a_usable_name_are_skipped(void **state) {
    cres_gce_options o = gce_options();
    text t = {NULL, 0, 0};
    char *members = group_page(three_vms, 3, NULL), *zone = zone_page(three_vms, 3, NULL);
    (void)state;
    text_add(&t, "{\"items\": [{\"name\": 5, \"networkInterfaces\": [{\"networkIP\": \"10.9.9.1\"}]}, "
                 "{\"networkInterfaces\": [{\"networkIP\": \"10.9.9.3\"}]}, "
                 "{\"name\": \"%0*d\", \"networkInterfaces\": [{\"networkIP\": \"10.9.9.2\"}]}, %s",
             300, 0, zone + strlen("{\"items\": ["));
    free(zone);
    on_owned("POST", GROUP_URL, 200, members);
    on_owned("GET", ZONE_URL(ZONE), 200, t.s);
    gce(&o);
    assert_string_equal(resolved(), dq(THREE_SPEC));
}

/* ---------------------------------------------------------------------------------------
   Cloud TPU */

static cres_tpu_options tpu_options(const char *name) {
    cres_tpu_options o;
    memset(&o, 0, sizeof o);
    o.config = &C.config;
    o.tpu = name;
    o.project = PROJECT;
    o.zone = TPU_ZONE;
    o.token = "static-token";
    return o;
}

static cres_resolver *tpu(const cres_tpu_options *o) {
    cres_resolver *r = NULL;
    cres_error err;
    OK(cres_tpu_resolver_create(o, &r, &err));
    assert_non_null(r);
    assert_string_equal(cres_resolver_name(r), "tpu");
    return keep(r);
}

/* A create that must fail; a resolver made by mistake is kept for the teardown to free. */
static void tpu_create_fails(const cres_tpu_options *o, cres_result want, cres_error *out) {
    cres_resolver *r = NULL;
    cres_error err;
    cres_result got = cres_tpu_resolver_create(o, &r, &err);
    if (r) keep(r);
    EXPECT(got, want);
    assert_null(r);
    if (out) *out = err;
}

/* A v2 node as the Cloud TPU API answers it, with `endpoints` the networkEndpoints list. */
static char *node(const char *state, const char *health, const char *type, const char *endpoints) {
    text t = {NULL, 0, 0};
    text_add(&t, "{\"name\": \"projects/" PROJECT "/locations/" TPU_ZONE "/nodes/test-tpu-1\", ");
    if (type) text_add(&t, "\"acceleratorType\": \"%s\", ", type);
    if (state) text_add(&t, "\"state\": \"%s\", ", state);
    if (health) text_add(&t, "\"health\": \"%s\", ", health);
    text_add(&t, "\"runtimeVersion\": \"tpu-vm-tf-2.15.0\", \"cidrBlock\": \"10.2.0.0/29\", "
                 "\"networkConfig\": {\"network\": \"projects/" PROJECT "/global/networks/default\", "
                 "\"enableExternalIps\": true}, \"schedulingConfig\": {}, \"apiVersion\": \"V2\", "
                 "\"symptoms\": [{\"createTime\": \"2024-01-01T00:00:00Z\", \"symptomType\": \"LOW_MEMORY\", "
                 "\"details\": \"x\", \"workerId\": \"0\"}]");
    if (endpoints) text_add(&t, ", \"networkEndpoints\": %s", endpoints);
    text_add(&t, "}");
    return t.s;
}

#define EP(ip) "{\"ipAddress\": \"" ip "\", \"port\": 8470, \"accessConfig\": {\"externalIp\": \"34.1.2.3\"}}"
#define ONE_EP "[" EP("10.2.3.4") "]"
#define FOUR_EPS "[" EP("10.2.3.4") ", " EP("10.2.3.5") ", " EP("10.2.3.6") ", " EP("10.2.3.7") "]"

static void serve_node(const char *name_url, const char *state, const char *health, const char *type,
                       const char *endpoints) {
    on_owned("GET", name_url, 200, node(state, health, type, endpoints));
}

/* TF C2-C6: endpoint strings, parsed without the API. */
static void expect_endpoints(const char *name, const char *want) {
    cres_tpu_options o = tpu_options(name);
    tpu(&o);
    assert_string_equal(resolved(), dq(want));
    assert_int_equal(C.requests_count, 0);
}

static void tf_c2_host_and_port(void **state) {
    (void)state;
    expect_endpoints("1.2.3.4:1234", "{'worker': ['1.2.3.4:1234']}");
}

static void tf_c3_grpc_prefix(void **state) {
    (void)state;
    expect_endpoints("grpc://1.2.3.4:2000", "{'worker': ['1.2.3.4:2000']}");
}

static void tf_c4_two_endpoints(void **state) {
    (void)state;
    expect_endpoints("1.2.3.4:2000,5.6.7.8:1234", "{'worker': ['1.2.3.4:2000', '5.6.7.8:1234']}");
}

static void tf_c5_two_grpc_endpoints(void **state) {
    (void)state;
    expect_endpoints("grpc://1.2.3.4:2000,grpc://5.6.7.8:1234", "{'worker': ['1.2.3.4:2000', '5.6.7.8:1234']}");
}

static void tf_c6_default_port(void **state) {
    (void)state;
    expect_endpoints("1.2.3.4:2000,grpc://5.6.7.8", "{'worker': ['1.2.3.4:2000', '5.6.7.8:8470']}");
}

/* TF §5.11: TF's parser splits on ':' and breaks IPv6; we keep brackets and add them. */
static void ipv6_endpoints_bracketed(void **state) {
    (void)state;
    expect_endpoints("grpc://[fd00::1]:8470,[fd00::2],grpc://fd00::3",
                     "{'worker': ['[fd00::1]:8470', '[fd00::2]:8470', '[fd00::3]:8470']}");
}

static void malformed_endpoint_is_invalid(void **state) {
    static char long_host[300];
    static const struct {
        const char *tpu, *words;
    } cases[] = {
        {"grpc://1.2.3.4:99999", "cannot read the endpoint \"grpc://1.2.3.4:99999\""},
        {"grpc://", "cannot read the endpoint \"grpc://\""},
        {"grpc://:8470", "cannot read the endpoint \"grpc://:8470\""},
        {"grpc://1.2.3.4:8470,", "an empty endpoint"},
        {"grpc://1.2.3.4:99999,", "cannot read the endpoint \"grpc://1.2.3.4:99999\""}, /* not "empty" */
        {long_host, "cannot read the endpoint"},
    };
    size_t i;
    (void)state;
    memcpy(long_host, "grpc://", 7);
    memset(long_host + 7, 'h', 260);
    for (i = 0; i < N(cases); i++) {
        cres_tpu_options o = tpu_options(cases[i].tpu);
        cres_error err;
        tpu(&o);
        err = resolve_fails(CRES_ERR_INVALID_ARGUMENT);
        if (!strstr(err.message, cases[i].words) || !strstr(err.message, "tpu: options.tpu: "))
            fail_msg("case %zu: %s", i, err.message);
    }
}

/* TF C7 / P1: no name anywhere. */
static void tf_c7_no_name_is_environment_error(void **state) {
    cres_tpu_options o = tpu_options(NULL);
    cres_error err;
    (void)state;
    tpu_create_fails(&o, CRES_ERR_ENVIRONMENT, &err);
    HAS(err.message, "no TPU name");
    o.tpu = "";
    tpu_create_fails(&o, CRES_ERR_ENVIRONMENT, NULL);
}

/* TF C10: the name from $TPU_NAME, project and zone from the metadata server (TF's mock zone
   "projects/test-project/locations/us-central1-c": the last segment); the node with
   networkEndpoints (see tf_p3_top_level_ip_address for TF's deprecated top-level form). */
static void tf_c10_name_from_environment(void **state) {
    cres_tpu_options o = tpu_options(NULL);
    (void)state;
    o.project = NULL;
    o.zone = NULL;
    env_set("TPU_NAME", "tpu_name");
    meta_project();
    meta("instance/zone", "projects/test-project/locations/" TPU_ZONE);
    serve_node(NODE_URL("tpu_name"), "READY", "HEALTHY", "v3-8", "[{\"ipAddress\": \"10.1.2.3\", \"port\": \"8470\"}]");
    tpu(&o);
    assert_string_equal(resolved(), dq("{'worker': ['10.1.2.3:8470']}"));
    assert_int_equal(C.requests_count, 3);
    assert_string_equal(url(0), METADATA "project/project-id");
    assert_string_equal(url(1), METADATA "instance/zone");
    assert_string_equal(url(2), NODE_URL("tpu_name"));
    assert_string_equal(header(2, "Authorization"), "Bearer static-token");
}

/* TF C11: the name as an argument. */
static void tf_c11_name_argument(void **state) {
    cres_tpu_options o = tpu_options("tpu_name");
    (void)state;
    serve_node(NODE_URL("tpu_name"), "READY", "HEALTHY", "v3-8", "[{\"ipAddress\": \"10.1.2.3\", \"port\": 8470}]");
    tpu(&o);
    assert_string_equal(resolved(), dq("{'worker': ['10.1.2.3:8470']}"));
    assert_string_equal(req(0)->method, "GET");
}

/* TF C12: grpc:// bypasses the API: no metadata, no API call, even without project and zone. */
static void tf_c12_grpc_name_needs_no_api(void **state) {
    cres_tpu_options o = tpu_options("grpc://1.2.3.4:8470");
    (void)state;
    o.project = NULL;
    o.zone = NULL;
    o.token = NULL;
    tpu(&o);
    assert_string_equal(resolved(), dq("{'worker': ['1.2.3.4:8470']}"));
    assert_string_equal(master_of(NULL, -1, NULL), "grpc://1.2.3.4:8470");
    assert_int_equal(C.requests_count, 0);
}

/* TF C13: project and zone given: no metadata calls for them (the token too: none at all). */
static void tf_c13_project_and_zone_given(void **state) {
    cres_tpu_options o = tpu_options("tpu_name");
    (void)state;
    o.project = "project";
    o.zone = "zone";
    serve_node(NODE_URL_IN("v2", "project", "zone", "tpu_name"), "READY", "HEALTHY", "v3-8", ONE_EP);
    tpu(&o);
    resolved();
    assert_int_equal(C.requests_count, 1);
    assert_int_equal(metadata_requests(), 0);
}

/* The same without a token: only the token comes from the metadata server. */
static void metadata_token_for_the_tpu_api(void **state) {
    cres_tpu_options o = tpu_options("test-tpu-1");
    (void)state;
    o.token = NULL;
    meta_token();
    serve_node(NODE_URL("test-tpu-1"), "READY", "HEALTHY", "v3-8", ONE_EP);
    tpu(&o);
    resolved();
    assert_int_equal(C.requests_count, 2);
    check_bearer_everywhere("Bearer " META_TOKEN);
    assert_string_equal(header(1, "Accept"), "application/json");
}

/* TF P3 with networkEndpoints. */
static void tf_p3_ready_and_healthy(void **state) {
    cres_tpu_options o = tpu_options("test-tpu-1");
    (void)state;
    serve_node(NODE_URL("test-tpu-1"), "READY", "HEALTHY", "v2-8", "[{\"ipAddress\": \"10.1.2.3\", \"port\": \"8470\"}]");
    tpu(&o);
    assert_string_equal(resolved(), dq("{'worker': ['10.1.2.3:8470']}"));
    assert_string_equal(master_of(NULL, -1, NULL), "grpc://10.1.2.3:8470");
}

/* TF P4: CREATING: not ready, naming the state. */
static void tf_p4_creating_is_not_ready(void **state) {
    cres_tpu_options o = tpu_options("test-tpu-1");
    cres_error err;
    (void)state;
    serve_node(NODE_URL("test-tpu-1"), "CREATING", NULL, "v2-8", NULL);
    tpu(&o);
    err = resolve_fails(CRES_ERR_NOT_READY);
    HAS(err.message, "\"test-tpu-1\"");
    HAS(err.message, "CREATING");
}

/* TF P5 / P7: a coordinator with its address. */
static void tf_p5_p7_coordinator_job(void **state) {
    cres_tpu_options o = tpu_options("test-tpu-1");
    (void)state;
    o.coordinator_name = "coordinator";
    o.coordinator_address = "10.128.1.5:10203";
    serve_node(NODE_URL("test-tpu-1"), "READY", "HEALTHY", "v2-8", ONE_EP);
    tpu(&o);
    assert_string_equal(resolved(), dq("{'coordinator': ['10.128.1.5:10203'], 'worker': ['10.2.3.4:8470']}"));
    assert_string_equal(master_of(NULL, -1, NULL), "grpc://10.2.3.4:8470");
}

/* TF P2 / P8 start a local server for a coordinator without an address; we do not start
   servers: the address is required. */
static void coordinator_without_address_is_invalid(void **state) {
    cres_tpu_options o = tpu_options("test-tpu-1");
    (void)state;
    o.coordinator_name = "coordinator";
    tpu_create_fails(&o, CRES_ERR_INVALID_ARGUMENT, NULL);
}

/* TF P6: a node the API does not know. */
static void tf_p6_nonexistent_tpu(void **state) {
    cres_tpu_options o = tpu_options("nonexistent-tpu");
    cres_error err;
    (void)state;
    on("GET", NODE_URL("nonexistent-tpu"), 404,
       GOOGLE_ERROR(404, "Resource 'projects/test-project/locations/us-central1-c/nodes/nonexistent-tpu' was not found",
                    "NOT_FOUND"));
    tpu(&o);
    err = resolve_fails(CRES_ERR_HTTP_STATUS);
    assert_int_equal(err.http_status, 404);
    HAS(err.message, "tpu: 404 Not Found: Resource 'projects/test-project/locations/us-central1-c/nodes/nonexis");
}

/* TF P8 / P9 / P15: four endpoints in API order; project and zone from the metadata server
   (P8) or given (P9); master of worker 3 after set_task (P15). */
static void tf_p8_p9_p15_four_endpoints(void **state) {
    cres_tpu_options o = tpu_options("test-tpu-1");
    cres_error err;
    (void)state;
    o.project = NULL;
    o.zone = NULL;
    meta_project();
    meta("instance/zone", "projects/test-project/locations/" TPU_ZONE);
    serve_node(NODE_URL("test-tpu-1"), "READY", "HEALTHY", "v2-32", FOUR_EPS);
    tpu(&o);
    assert_string_equal(resolved(),
                        dq("{'worker': ['10.2.3.4:8470', '10.2.3.5:8470', '10.2.3.6:8470', '10.2.3.7:8470']}"));
    assert_string_equal(master_of(NULL, -1, NULL), "grpc://10.2.3.4:8470");
    OK(cres_set_task(C.r, "worker", 3, &err));
    assert_string_equal(master_of(NULL, -1, NULL), "grpc://10.2.3.7:8470");
}

/* Endpoints keep the API's order (TF: not sorted). */
static void endpoints_in_api_order(void **state) {
    cres_tpu_options o = tpu_options("test-tpu-1");
    (void)state;
    serve_node(NODE_URL("test-tpu-1"), "READY", "HEALTHY", "v2-32",
               "[" EP("10.2.3.9") ", " EP("10.2.3.10") ", " EP("10.2.3.1") "]");
    tpu(&o);
    assert_string_equal(resolved(), dq("{'worker': ['10.2.3.9:8470', '10.2.3.10:8470', '10.2.3.1:8470']}"));
}

/* TF P12: a grpc:// name. */
static void tf_p12_grpc_name(void **state) {
    cres_tpu_options o = tpu_options("grpc://10.1.2.3:8470");
    (void)state;
    tpu(&o);
    assert_string_equal(master_of(NULL, -1, NULL), "grpc://10.1.2.3:8470");
    assert_string_equal(resolved(), dq("{'worker': ['10.1.2.3:8470']}"));
}

/* TF P13: $KUBE_GOOGLE_CLOUD_TPU_ENDPOINTS. */
static void tf_p13_kube_endpoints(void **state) {
    cres_tpu_options o = tpu_options(NULL);
    (void)state;
    env_set("KUBE_GOOGLE_CLOUD_TPU_ENDPOINTS", "grpc://10.120.27.5:8470");
    tpu(&o);
    assert_string_equal(master_of(NULL, -1, NULL), "grpc://10.120.27.5:8470");
    assert_string_equal(resolved(), dq("{'worker': ['10.120.27.5:8470']}"));
    assert_int_equal(C.requests_count, 0);
}

/* TF P14: four endpoints; $KUBE_GOOGLE_CLOUD_TPU_ENDPOINTS wins over $TPU_NAME. */
static void tf_p14_kube_endpoints_before_tpu_name(void **state) {
    cres_tpu_options o = tpu_options(NULL);
    (void)state;
    env_set("TPU_NAME", "some-tpu");
    env_set("KUBE_GOOGLE_CLOUD_TPU_ENDPOINTS", "grpc://10.120.27.5:8470,grpc://10.120.27.6:8470,"
                                               "grpc://10.120.27.7:8470,grpc://10.120.27.8:8470");
    tpu(&o);
    assert_string_equal(master_of(NULL, -1, NULL), "grpc://10.120.27.5:8470");
    assert_string_equal(resolved(), dq("{'worker': ['10.120.27.5:8470', '10.120.27.6:8470', '10.120.27.7:8470', "
                                       "'10.120.27.8:8470']}"));
    assert_int_equal(C.requests_count, 0);
}

/* TF §5.11: TF sends "10.0.0.1:8470" without grpc:// to the API as a TPU name; we read it as an
   endpoint. The option wins over the environment. */
static void endpoint_without_scheme_in_tpu_name(void **state) {
    cres_tpu_options o = tpu_options(NULL);
    (void)state;
    env_set("TPU_NAME", "10.0.0.1:8470");
    tpu(&o);
    assert_string_equal(resolved(), dq("{'worker': ['10.0.0.1:8470']}"));
    o.tpu = "grpc://10.0.0.9:8470";
    tpu(&o);
    assert_string_equal(resolved(), dq("{'worker': ['10.0.0.9:8470']}"));
}

/* TF C9 / P20: a node without a state is not ready (TF's message: state: "None"). */
static void tf_c9_missing_state_is_not_ready(void **state) {
    cres_tpu_options o = tpu_options("tpu_name");
    cres_error err;
    (void)state;
    serve_node(NODE_URL("tpu_name"), NULL, NULL, "v2-8", ONE_EP);
    tpu(&o);
    err = resolve_fails(CRES_ERR_NOT_READY);
    HAS(err.message, "not ready; state: (none)");
}

/* TF C17: PREEMPTED (and TERMINATED) will not recover. */
static void tf_c17_preempted_will_not_recover(void **state) {
    cres_tpu_options o = tpu_options("test-tpu-1");
    cres_error err;
    (void)state;
    serve_node(NODE_URL("test-tpu-1"), "PREEMPTED", "HEALTHY", "v3-8", ONE_EP);
    tpu(&o);
    err = resolve_fails(CRES_ERR_NOT_READY);
    HAS(err.message, "PREEMPTED");
    HAS(err.message, "will not recover");
}

static void terminated_will_not_recover(void **state) {
    cres_tpu_options o = tpu_options("test-tpu-1");
    cres_error err;
    (void)state;
    serve_node(NODE_URL("test-tpu-1"), "TERMINATED", NULL, "v3-8", ONE_EP);
    tpu(&o);
    err = resolve_fails(CRES_ERR_NOT_READY);
    HAS(err.message, "TERMINATED");
    HAS(err.message, "will not recover");
}

/* Other states that are not READY, e.g. REPAIRING, are not ready and may recover. */
static void repairing_is_not_ready(void **state) {
    cres_tpu_options o = tpu_options("test-tpu-1");
    cres_error err;
    (void)state;
    serve_node(NODE_URL("test-tpu-1"), "REPAIRING", "HEALTHY", "v3-8", ONE_EP);
    tpu(&o);
    err = resolve_fails(CRES_ERR_NOT_READY);
    HAS(err.message, "REPAIRING");
    assert_null(strstr(err.message, "will not recover"));
}

/* DESIGN: health must be HEALTHY, unless allow_unhealthy. */
static void unhealthy_is_not_ready_unless_allowed(void **state) {
    cres_tpu_options o = tpu_options("test-tpu-1");
    cres_error err;
    (void)state;
    serve_node(NODE_URL("test-tpu-1"), "READY", "UNHEALTHY_MAINTENANCE", "v3-8", ONE_EP);
    tpu(&o);
    err = resolve_fails(CRES_ERR_NOT_READY);
    HAS(err.message, "UNHEALTHY_MAINTENANCE");
    o.allow_unhealthy = 1;
    tpu(&o);
    assert_string_equal(resolved(), dq("{'worker': ['10.2.3.4:8470']}"));
}

/* A READY node that reports no health at all (as TPU VMs often do) is usable. */
static void ready_without_health_is_usable(void **state) {
    cres_tpu_options o = tpu_options("test-tpu-1");
    (void)state;
    serve_node(NODE_URL("test-tpu-1"), "READY", NULL, "v3-8", ONE_EP);
    tpu(&o);
    assert_string_equal(resolved(), dq("{'worker': ['10.2.3.4:8470']}"));
}

/* TF C9-C11 / P2-P3 nodes: v1 nodes from before networkEndpoints have one deprecated top-level
   ipAddress and port (TF: used when networkEndpoints is absent). */
static void tf_p3_top_level_ip_address(void **state) {
    cres_tpu_options o = tpu_options("test-tpu-1");
    (void)state;
    on("GET", NODE_URL("test-tpu-1"), 200,
       "{\"ipAddress\": \"10.1.2.3\", \"port\": \"8470\", \"state\": \"READY\", \"health\": \"HEALTHY\"}");
    tpu(&o);
    assert_string_equal(resolved(), dq("{'worker': ['10.1.2.3:8470']}"));
    assert_string_equal(master_of(NULL, -1, NULL), "grpc://10.1.2.3:8470");
}

static void node_without_any_endpoint_is_unexpected(void **state) {
    cres_tpu_options o = tpu_options("test-tpu-1");
    cres_error err;
    (void)state;
    on("GET", NODE_URL("test-tpu-1"), 200, "{\"state\": \"READY\", \"health\": \"HEALTHY\", \"networkEndpoints\": []}")
        ->times = 1;
    on("GET", NODE_URL("test-tpu-1"), 200, "{\"state\": \"READY\", \"health\": \"HEALTHY\"}"); /* no key at all */
    tpu(&o);
    err = resolve_fails(CRES_ERR_UNEXPECTED_RESPONSE);
    HAS(err.message, "networkEndpoints");
    err = resolve_fails(CRES_ERR_UNEXPECTED_RESPONSE);
    HAS(err.message, "tpu: TPU \"test-tpu-1\" has no networkEndpoints");
}

/* A node's state, health and type that are no strings count as absent: no state is not
   ready, no health and no type do not stop a resolve. */
static void node_fields_of_other_types(void **state) {
    cres_tpu_options o = tpu_options("test-tpu-1");
    cres_error err;
    (void)state;
    on("GET", NODE_URL("test-tpu-1"), 200, "{\"state\": 5, \"networkEndpoints\": " ONE_EP "}")->times = 1;
    tpu(&o);
    err = resolve_fails(CRES_ERR_NOT_READY);
    HAS(err.message, "is not ready; state: (none)");
    on("GET", NODE_URL("test-tpu-1"), 200,
       "{\"state\": \"READY\", \"health\": [\"x\"], \"acceleratorType\": 4, \"networkEndpoints\": " ONE_EP "}");
    tpu(&o);
    assert_string_equal(resolved(), dq("{'worker': ['10.2.3.4:8470']}"));
}

static void node_endpoint_errors_are_unexpected(void **state) {
    static const char *const bodies[] = {
        "{\"state\": \"READY\", \"networkEndpoints\": [{\"port\": 8470}]}",
        "{\"state\": \"READY\", \"networkEndpoints\": [{\"ipAddress\": \"10.0.0.1\", \"port\": 0}]}",
        "{\"state\": \"READY\", \"networkEndpoints\": [{\"ipAddress\": \"10.0.0.1\", \"port\": \"x\"}]}",
        "{\"state\": \"READY\", \"networkEndpoints\": [{\"ipAddress\": \"10.0.0.1 x\"}]}",
        "{\"state\": \"READY\", \"networkEndpoints\": {}}",
        "{\"state\": \"READY\", \"networkEndpoints\": [{\"ipAddress\": \"10.0.0.1\"}",
        "[]",
        "{\"state\": \"READY\", \"networkEndpoints\": []}",
        "{\"state\": \"READY\", \"networkEndpoints\": [{\"ipAddress\": \"\"}]}",
        "{\"state\": \"READY\", \"networkEndpoints\": [{\"ipAddress\": 10}]}",
        "{\"state\": \"READY\", \"networkEndpoints\": [{\"ipAddress\": \"1234567890123456789012345678901234567890123456789012345678901234\"}]}",
    };
    size_t i;
    (void)state;
    for (i = 0; i < N(bodies); i++) {
        cres_tpu_options o = tpu_options("test-tpu-1");
        route *rt = on("GET", NODE_URL("test-tpu-1"), 200, bodies[i]);
        rt->times = 1;
        tpu(&o);
        resolve_fails(CRES_ERR_UNEXPECTED_RESPONSE);
    }
}

/* Ports out of range are named in the message, whatever their size or sign. */
static void node_endpoint_port_out_of_range_is_named(void **state) {
    static const char *const ports[] = {"65536", "99999999999999999999", "-1", "1e3", "8470.0", "\"-0\""};
    size_t i;
    (void)state;
    for (i = 0; i < N(ports); i++) {
        cres_tpu_options o = tpu_options("test-tpu-1");
        char body[256], want[96];
        cres_error err;
        route *rt;
        snprintf(body, sizeof body,
                 "{\"state\": \"READY\", \"networkEndpoints\": [{\"ipAddress\": \"10.0.0.1\", \"port\": %s}]}", ports[i]);
        snprintf(want, sizeof want, "endpoint 0: port %s is not 1 to 65535", ports[i]);
        rt = on("GET", NODE_URL("test-tpu-1"), 200, body);
        rt->times = 1;
        tpu(&o);
        err = resolve_fails(CRES_ERR_UNEXPECTED_RESPONSE);
        HAS(err.message, want);
    }
}

/* An endpoint without a port (or with port null) gets 8470; IPv6 addresses are bracketed. */
static void node_ipv6_endpoint_bracketed(void **state) {
    cres_tpu_options o = tpu_options("test-tpu-1");
    (void)state;
    serve_node(NODE_URL("test-tpu-1"), "READY", "HEALTHY", "v4-8",
               "[{\"ipAddress\": \"2001:db8::5\", \"port\": 8470}, {\"ipAddress\": \"2001:db8::6\"}, "
               "{\"ipAddress\": \"2001:db8::7\", \"port\": null}]");
    tpu(&o);
    assert_string_equal(resolved(), dq("{'worker': ['[2001:db8::5]:8470', '[2001:db8::6]:8470', '[2001:db8::7]:8470']}"));
    assert_string_equal(master_of(NULL, -1, NULL), "grpc://[2001:db8::5]:8470");
}

/* DESIGN: master() honours the rpc layer (TF always uses grpc://). */
static void master_honours_rpc_layer(void **state) {
    cres_tpu_options o = tpu_options("grpc://10.1.2.3:8470,10.1.2.4:8470");
    (void)state;
    o.rpc_layer = "test";
    tpu(&o);
    assert_string_equal(master_of(NULL, -1, NULL), "test://10.1.2.3:8470");
    assert_string_equal(master_of("worker", 1, "grpc"), "grpc://10.1.2.4:8470");
    assert_string_equal(master_of(NULL, -1, ""), "10.1.2.3:8470");
}

static void api_versions_v1_and_v2(void **state) {
    cres_tpu_options o = tpu_options("test-tpu-1");
    (void)state;
    serve_node(NODE_URL_IN("v1", PROJECT, TPU_ZONE, "test-tpu-1"), "READY", "HEALTHY", "v2-8", ONE_EP);
    serve_node(NODE_URL_IN("v2", PROJECT, TPU_ZONE, "test-tpu-1"), "READY", "HEALTHY", "v2-8", ONE_EP);
    o.api_version = "v1";
    tpu(&o);
    resolved();
    assert_string_equal(url(0), NODE_URL_IN("v1", PROJECT, TPU_ZONE, "test-tpu-1"));
    o.api_version = NULL;
    tpu(&o);
    resolved();
    assert_string_equal(url(1), NODE_URL_IN("v2", PROJECT, TPU_ZONE, "test-tpu-1"));
    o.api_version = "v2";
    tpu(&o);
    resolved();
    assert_string_equal(url(2), NODE_URL_IN("v2", PROJECT, TPU_ZONE, "test-tpu-1"));
    o.api_version = "v2alpha1";
    tpu_create_fails(&o, CRES_ERR_INVALID_ARGUMENT, NULL);
}

static void tpu_url_option(void **state) {
    cres_tpu_options o = tpu_options("test-tpu-1");
    (void)state;
    o.tpu_url = "http://127.0.0.1:9001";
    serve_node("http://127.0.0.1:9001/v2/projects/" PROJECT "/locations/" TPU_ZONE "/nodes/test-tpu-1", "READY",
               "HEALTHY", "v2-8", ONE_EP);
    tpu(&o);
    assert_string_equal(resolved(), dq("{'worker': ['10.2.3.4:8470']}"));
}

static void tpu_name_not_a_resource_name_is_invalid(void **state) {
    cres_tpu_options o = tpu_options("bad/name");
    (void)state;
    tpu_create_fails(&o, CRES_ERR_INVALID_ARGUMENT, NULL);
    o.tpu = "name?x=1";
    tpu_create_fails(&o, CRES_ERR_INVALID_ARGUMENT, NULL);
}

static void tpu_forbidden_403_names_the_permission(void **state) {
    cres_tpu_options o = tpu_options("test-tpu-1");
    cres_error err;
    (void)state;
    on("GET", NODE_URL("test-tpu-1"), 403,
       GOOGLE_ERROR(403, "Permission 'tpu.nodes.get' denied on 'projects/test-project/locations/us-central1-c'",
                    "PERMISSION_DENIED"));
    tpu(&o);
    err = resolve_fails(CRES_ERR_HTTP_STATUS);
    assert_int_equal(err.http_status, 403);
    HAS(err.message, "tpu: 403 Forbidden: Permission 'tpu.nodes.get' denied");
    HAS(err.message, "the account needs tpu.nodes.get");
}

static void tpu_server_error_500_retried(void **state) {
    cres_tpu_options o = tpu_options("test-tpu-1");
    (void)state;
    on("GET", NODE_URL("test-tpu-1"), 500, "{}")->times = 1;
    serve_node(NODE_URL("test-tpu-1"), "READY", "HEALTHY", "v2-8", ONE_EP);
    tpu(&o);
    assert_string_equal(resolved(), dq("{'worker': ['10.2.3.4:8470']}"));
    assert_int_equal(C.requests_count, 2);
    assert_int_equal(C.sleeps_count, 1);
}

static void tpu_metadata_unreachable_is_not_on_google_cloud(void **state) {
    cres_tpu_options o = tpu_options("test-tpu-1");
    cres_error err;
    (void)state;
    o.zone = NULL;
    on_fail("GET", METADATA "instance/zone", CRES_ERR_TRANSPORT);
    tpu(&o);
    err = resolve_fails(CRES_ERR_ENVIRONMENT);
    HAS(err.message, "not on Google Cloud");
    assert_true(C.requests_count <= 2);
    assert_true(req(0)->timeout_ms <= 2000);
}

/* $TPU_CONFIG: {"tpu_node_name", "project", "zone"} (TF's keys); no metadata calls for them. */
static void tpu_config_gives_name_project_and_zone(void **state) {
    cres_tpu_options o = tpu_options(NULL);
    (void)state;
    o.project = NULL;
    o.zone = NULL;
    env_set("TPU_CONFIG", "{\"tpu_node_name\": \"cfg-tpu\", \"project\": \"cfg-project\", \"zone\": \"europe-west4-a\"}");
    serve_node(NODE_URL_IN("v2", "cfg-project", "europe-west4-a", "cfg-tpu"), "READY", "HEALTHY", "v3-8", ONE_EP);
    tpu(&o);
    assert_string_equal(resolved(), dq("{'worker': ['10.2.3.4:8470']}"));
    assert_int_equal(C.requests_count, 1);
}

/* Options win over TPU_CONFIG's project and zone (TF: project = project or cfg['project']). */
static void tpu_config_options_win(void **state) {
    cres_tpu_options o = tpu_options(NULL);
    (void)state;
    env_set("TPU_CONFIG", "{\"tpu_node_name\": \"cfg-tpu\", \"project\": \"cfg-project\", \"zone\": \"europe-west4-a\"}");
    serve_node(NODE_URL("cfg-tpu"), "READY", "HEALTHY", "v3-8", ONE_EP);
    tpu(&o);
    resolved();
    assert_string_equal(url(0), NODE_URL("cfg-tpu"));
}

/* $TPU_NAME wins over $TPU_CONFIG. */
static void tpu_name_before_tpu_config(void **state) {
    cres_tpu_options o = tpu_options(NULL);
    (void)state;
    env_set("TPU_CONFIG", "{\"tpu_node_name\": \"cfg-tpu\"}");
    env_set("TPU_NAME", "env-tpu");
    serve_node(NODE_URL("env-tpu"), "READY", "HEALTHY", "v3-8", ONE_EP);
    tpu(&o);
    resolved();
    assert_string_equal(url(0), NODE_URL("env-tpu"));
}

static void tpu_config_malformed_is_environment_error(void **state) {
    static const char *const configs[] = {
        "{\"tpu_node_name\": \"cfg-tpu\"",       /* truncated */
        "{\"tpu_node_name\": 42}",               /* not a string */
        "{\"project\": \"p\", \"zone\": \"z\"}", /* no name (TF crashes later) */
        "[\"cfg-tpu\"]",                         /* not an object */
        "{'tpu_node_name': 'x'}",                /* not JSON */
        "{\"tpu_node_name\": null}",             /* null: no name */
    };
    size_t i;
    (void)state;
    for (i = 0; i < N(configs); i++) {
        cres_tpu_options o = tpu_options(NULL);
        cres_error err;
        memset(C.env_names, 0, sizeof C.env_names);
        env_set("TPU_CONFIG", configs[i]);
        tpu_create_fails(&o, CRES_ERR_ENVIRONMENT, &err);
        HAS(err.message, "TPU_CONFIG");
    }
}

/* TPU_CONFIG is a document like TF_CONFIG: over CRES_MAX_DOCUMENT_BYTES it is not parsed. */
static void tpu_config_over_the_document_limit_is_refused(void **state) {
    size_t n = 16u * 1024 * 1024 + 1; /* CRES_MAX_DOCUMENT_BYTES + 1 */
    char *big = (char *)malloc(n + 1);
    cres_tpu_options o = tpu_options(NULL);
    cres_error err;
    (void)state;
    assert_non_null(big);
    memset(big, ' ', n);
    memcpy(big, "{\"tpu_node_name\": \"cfg-tpu\"}", 28);
    big[n] = '\0';
    memset(C.env_names, 0, sizeof C.env_names);
    env_set("TPU_CONFIG", big);
    tpu_create_fails(&o, CRES_ERR_LIMIT, &err);
    HAS(err.message, "TPU_CONFIG: 16777217 bytes is more than the limit of 16777216");
    free(big);
}

/* A name that is not a resource name is the fault of where it came from: the variable. */
static void tpu_name_variables_not_a_resource_name(void **state) {
    cres_tpu_options o = tpu_options(NULL);
    cres_error err;
    (void)state;
    env_set("TPU_CONFIG", "{\"tpu_node_name\": \"a/b\"}");
    tpu_create_fails(&o, CRES_ERR_ENVIRONMENT, &err);
    HAS(err.message, "TPU_CONFIG");
    env_set("TPU_NAME", "a?b");
    tpu_create_fails(&o, CRES_ERR_ENVIRONMENT, &err);
    HAS(err.message, "TPU_NAME");
}

/* TPU_CONFIG's project and zone go into the URL path (with the token): they must be resource
   names, as options.project and options.zone must be. */
/* The metadata's zone goes into the URL path: "projects/1/zones/.." must not walk up it
   (found by fuzz_tpu_node). */
static void metadata_zone_dot_dot_is_refused(void **state) {
    static const char *const zones[] = {"projects/123/zones/..", "projects/123/zones/.hidden"};
    size_t i;
    (void)state;
    for (i = 0; i < sizeof zones / sizeof *zones; i++) {
        cres_tpu_options o = tpu_options("test-tpu");
        cres_error err;
        o.zone = NULL;
        C.metadata_404 = 1;
        meta("instance/zone", zones[i]);
        tpu(&o);
        err = resolve_fails(CRES_ERR_UNEXPECTED_RESPONSE);
        HAS(err.message, "zone is not a resource name");
    }
}

static void tpu_config_project_not_a_resource_name(void **state) {
    cres_tpu_options o = tpu_options(NULL);
    cres_error err;
    (void)state;
    o.project = NULL;
    C.metadata_404 = 1;
    env_set("TPU_CONFIG", "{\"tpu_node_name\": \"cfg-tpu\", \"project\": \"p/../../other\"}");
    tpu_create_fails(&o, CRES_ERR_ENVIRONMENT, &err);
    HAS(err.message, "TPU_CONFIG");
    o.zone = NULL; /* the zone, the same */
    env_put("TPU_CONFIG", "{\"tpu_node_name\": \"cfg-tpu\", \"project\": \"p\", \"zone\": \"a b\"}");
    tpu_create_fails(&o, CRES_ERR_ENVIRONMENT, &err);
    HAS(err.message, "TPU_CONFIG: \"project\" or \"zone\" is not a resource name");
}

/* The own task: worker $TPU_WORKER_ID, else worker 0 (TF: task_id 0). */
static void own_task_worker_id_from_environment(void **state) {
    cres_tpu_options o = tpu_options("grpc://10.0.0.1:8470,10.0.0.2:8470");
    (void)state;
    tpu(&o);
    assert_string_equal(cres_task_type(C.r), "worker");
    assert_int_equal(cres_task_id(C.r), 0);
    env_set("TPU_WORKER_ID", "1");
    tpu(&o);
    assert_int_equal(cres_task_id(C.r), 1);
    assert_string_equal(master_of(NULL, -1, NULL), "grpc://10.0.0.2:8470");
}

static void bad_worker_id_is_environment_error(void **state) {
    cres_tpu_options o = tpu_options("grpc://10.0.0.1:8470");
    (void)state;
    env_set("TPU_WORKER_ID", "one");
    tpu_create_fails(&o, CRES_ERR_ENVIRONMENT, NULL);
    C.env_values[0] = "-1";
    tpu_create_fails(&o, CRES_ERR_ENVIRONMENT, NULL);
    C.env_values[0] = "2147483648"; /* past INT_MAX */
    tpu_create_fails(&o, CRES_ERR_ENVIRONMENT, NULL);
    { /* a local TPU reads it again at each resolve: a value changed since create is refused */
        static const char *const changed[] = {"one", "-1"};
        size_t i;
        cres_error err;
        o.tpu = "local";
        env_set("TPU_WORKER_HOSTNAMES", "t1v-n-0,t1v-n-1");
        for (i = 0; i < N(changed); i++) {
            C.env_values[0] = "1";
            tpu(&o);
            C.env_values[0] = changed[i];
            err = resolve_fails(CRES_ERR_ENVIRONMENT);
            HAS(err.message, "tpu: TPU_WORKER_ID must be a worker index");
        }
    }
}

/* ---------------------------------------------------------------------------------------
   Cloud TPU: "local" (a TPU VM) */

/* TPU VM variables: workers and own id, no request at all. */
static void local_from_environment(void **state) {
    cres_tpu_options o = tpu_options("local");
    (void)state;
    env_set("TPU_WORKER_HOSTNAMES", "t1v-n-0,t1v-n-1,t1v-n-2");
    env_set("TPU_WORKER_ID", "2");
    tpu(&o);
    assert_string_equal(resolved(), dq("{'worker': ['t1v-n-0:8470', 't1v-n-1:8470', 't1v-n-2:8470']}"));
    assert_int_equal(C.requests_count, 0);
    assert_string_equal(cres_task_type(C.r), "worker");
    assert_int_equal(cres_task_id(C.r), 2);
    assert_string_equal(master_of(NULL, -1, NULL), "grpc://t1v-n-2:8470");
}

/* TPU_WORKER_ID says "one worker of several": without a list of them that is an error, not
   TF's empty local cluster (which stays for a TPU VM that names nothing). */
static void local_worker_id_without_workers_is_environment_error(void **state) {
    cres_tpu_options o = tpu_options("local");
    cres_error err;
    (void)state;
    env_set("TPU_WORKER_ID", "1");
    tpu(&o);
    err = resolve_fails(CRES_ERR_ENVIRONMENT);
    assert_non_null(strstr(err.message, "TPU_WORKER_ID=\"1\""));
    assert_non_null(strstr(err.message, "TPU_WORKER_HOSTNAMES"));
}

static void local_worker_id_past_the_workers_is_environment_error(void **state) {
    cres_tpu_options o = tpu_options("local");
    (void)state;
    env_set("TPU_WORKER_HOSTNAMES", "t1v-n-0,t1v-n-1");
    env_set("TPU_WORKER_ID", "2");
    tpu(&o);
    resolve_fails(CRES_ERR_ENVIRONMENT);
}

/* GKE 1.34.1+ names each TPU process (host:port) in TPU_PROCESS_ADDRESSES; it wins over
   TPU_WORKER_HOSTNAMES (shape: JAX's jax/_src/clusters/cloud_tpu_cluster.py reads it first). */
static void local_process_addresses_win(void **state) {
    cres_tpu_options o = tpu_options("local");
    cres_launch_info info;
    cres_error err;
    (void)state;
    env_set("TPU_PROCESS_ADDRESSES", "10.0.0.2:8476,10.0.0.3:8476");
    env_set("TPU_WORKER_HOSTNAMES", "t1v-n-0,t1v-n-1");
    env_set("TPU_WORKER_ID", "1");
    tpu(&o);
    assert_string_equal(resolved(), dq("{'worker': ['10.0.0.2:8476', '10.0.0.3:8476']}"));
    OK(cres_launch(C.r, &info, &err));
    assert_int_equal(info.world_size, 2);
    assert_int_equal(info.rank, 1);
    assert_int_equal(info.node_rank, 1);
    assert_int_equal(info.num_nodes, 2);
    /* rank 0's host at JAX's coordinator port: 8476 is the TPU runtime's, taken on worker 0 */
    assert_string_equal(info.master_address, "10.0.0.2:8482");
    assert_int_equal(info.master_port, 8482);
    assert_string_equal(info.master_host, "10.0.0.2");
    assert_int_equal(C.requests_count, 0);
    /* without the process addresses: the worker host names, and still not TF's 8470 */
    env_put("TPU_PROCESS_ADDRESSES", NULL);
    tpu(&o);
    OK(cres_launch(C.r, &info, &err));
    assert_string_equal(info.master_address, "t1v-n-0:8482");
    assert_string_equal(master_of(NULL, -1, NULL), "grpc://t1v-n-1:8470"); /* TF's master */
    /* as many processes on each host: three on two hosts is no layout */
    env_put("TPU_PROCESS_ADDRESSES", "10.0.0.2:8476,10.0.0.3:8476,10.0.0.4:8476");
    tpu(&o);
    err = resolve_fails(CRES_ERR_ENVIRONMENT);
    assert_non_null(strstr(err.message, "TPU_PROCESS_ADDRESSES lists 3 processes, not a number for each "
                                        "of the 2 hosts of TPU_WORKER_HOSTNAMES"));
}

/* GKE TPU multislice, as a JobSet gives it (MEGASCALE_* from the downward API on the JobSet's
   job-index and coordinator labels; reference: GKE "TPU multislice" docs and JAX's
   cloud_tpu_cluster.py): this slice's workers only, so coordinator-only. Slice 1 of 2, worker
   1 of 2: rank 3 of 4. */
static void multislice_is_coordinator_only(void **state) {
    cres_tpu_options o = tpu_options("local");
    cres_resolver *r = NULL;
    cres_cluster_spec *spec = NULL;
    cres_launch_info info;
    cres_error err;
    char buf[128];
    (void)state;
    env_set("TPU_WORKER_HOSTNAMES", "js-slice-1-0.js,js-slice-1-1.js");
    env_set("TPU_WORKER_ID", "1");
    env_set("MEGASCALE_NUM_SLICES", "2");
    env_set("MEGASCALE_SLICE_ID", "1");
    env_set("MEGASCALE_COORDINATOR_ADDRESS", "js-slice-0-0.js:8080");
    OK(cres_tpu_resolver_create(&o, &r, &err));
    keep(r);
    assert_string_equal(cres_resolver_name(r), "tpu");
    EXPECT(cres_resolve(r, &spec, &err), CRES_ERR_INCOMPLETE);
    assert_null(spec);
    assert_non_null(strstr(err.message, "MEGASCALE_NUM_SLICES"));
    OK(cres_launch(r, &info, &err));
    assert_int_equal(info.world_size, 4);
    assert_int_equal(info.rank, 3);
    assert_int_equal(info.local_rank, 0);
    assert_int_equal(info.local_world_size, 1);
    assert_int_equal(info.node_rank, 3);
    assert_int_equal(info.num_nodes, 4);
    assert_string_equal(info.master_host, "js-slice-0-0.js");
    assert_int_equal(info.master_port, 8482);
    OK(cres_master(r, buf, sizeof buf, NULL, &err));
    assert_string_equal(buf, "grpc://js-slice-0-0.js:8482");
    assert_int_equal(C.requests_count, 0);
    /* one slice: the slice is the job, and it is slice 0 */
    env_put("MEGASCALE_NUM_SLICES", "1");
    tpu_create_fails(&o, CRES_ERR_ENVIRONMENT, &err);
    assert_non_null(strstr(err.message, "MEGASCALE_SLICE_ID=\"1\" is not an integer from 0 to 0"));
    env_put("MEGASCALE_SLICE_ID", "0");
    tpu(&o);
    assert_string_equal(resolved(), dq("{'worker': ['js-slice-1-0.js:8470', 'js-slice-1-1.js:8470']}"));
    /* no workers named at all (TF's local TPU): worker 0, as TF, has no rank, which is said */
    env_put("TPU_WORKER_HOSTNAMES", NULL);
    env_put("TPU_WORKER_ID", NULL);
    env_put("MEGASCALE_NUM_SLICES", NULL);
    env_put("MEGASCALE_SLICE_ID", NULL);
    env_put("MEGASCALE_COORDINATOR_ADDRESS", NULL);
    tpu(&o);
    EXPECT(cres_launch(C.r, &info, &err), CRES_ERR_NOT_FOUND);
    assert_non_null(strstr(err.message, "from TPU_WORKER_ID (0 when unset), is not in the cluster"));
}

static void multislice_bad_input_names_the_variable(void **state) {
    static const struct {
        const char *name, *value, *want;
    } cases[] = {
        {"MEGASCALE_NUM_SLICES", "two", "MEGASCALE_NUM_SLICES=\"two\""},
        {"MEGASCALE_NUM_SLICES", "0", "MEGASCALE_NUM_SLICES=\"0\""},
        {"MEGASCALE_SLICE_ID", "2", "MEGASCALE_SLICE_ID=\"2\""},
        {"MEGASCALE_SLICE_ID", "-1", "MEGASCALE_SLICE_ID=\"-1\""},
        {"MEGASCALE_SLICE_ID", NULL, "MEGASCALE_SLICE_ID is not"},
        {"TPU_WORKER_ID", "2", "TPU_WORKER_ID=\"2\""},
        {"TPU_WORKER_ID", NULL, "TPU_WORKER_ID is not"},
        {"MEGASCALE_COORDINATOR_ADDRESS", NULL, "MEGASCALE_COORDINATOR_ADDRESS is not"},
        {"MEGASCALE_COORDINATOR_ADDRESS", "[fd00::1", "MEGASCALE_COORDINATOR_ADDRESS=\"[fd00::1\""},
        {"MEGASCALE_COORDINATOR_ADDRESS", "a b", "MEGASCALE_COORDINATOR_ADDRESS=\"a b\""},
        {"TPU_WORKER_HOSTNAMES", "a,,b", "empty entry"},
        {"TPU_WORKER_HOSTNAMES", NULL, "neither TPU_PROCESS_ADDRESSES nor TPU_WORKER_HOSTNAMES"},
        /* a multislice job's count missing: not a one-slice answer */
        {"MEGASCALE_NUM_SLICES", NULL, "MEGASCALE_SLICE_ID is set but MEGASCALE_NUM_SLICES is not"},
    };
    size_t i;
    (void)state;
    for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        cres_tpu_options o = tpu_options("local");
        cres_error err;
        env_put("TPU_WORKER_HOSTNAMES", "a,b");
        env_put("TPU_WORKER_ID", "1");
        env_put("MEGASCALE_NUM_SLICES", "2");
        env_put("MEGASCALE_SLICE_ID", "1");
        env_put("MEGASCALE_COORDINATOR_ADDRESS", "c");
        env_put(cases[i].name, cases[i].value);
        tpu_create_fails(&o, CRES_ERR_ENVIRONMENT, &err);
        if (!strstr(err.message, cases[i].want))
            fail_msg("case %zu: \"%s\" does not contain \"%s\"", i, err.message, cases[i].want);
    }
}

static void expect_local_from_metadata(const char *endpoints) {
    cres_tpu_options o = tpu_options("local");
    cres_accelerators acc;
    cres_error err;
    meta("instance/attributes/worker-network-endpoints", endpoints);
    meta("instance/attributes/agent-worker-number", "1");
    meta("instance/attributes/accelerator-type", "v4-16");
    tpu(&o);
    assert_string_equal(resolved(), dq("{'worker': ['10.0.0.2:8470', '10.0.0.3:8470']}"));
    assert_int_equal(cres_task_id(C.r), 1);
    assert_string_equal(master_of(NULL, -1, NULL), "grpc://10.0.0.3:8470");
    OK(cres_num_accelerators(C.r, &acc, &err));
    assert_int_equal(acc.count, 1);
    assert_string_equal(acc.items[0].type, "TPU");
    assert_int_equal(acc.items[0].count, 4);
    assert_string_equal(header(0, "Metadata-Flavor"), "Google");
    assert_null(header(0, "Authorization"));
}

static void local_from_metadata_plain_endpoints(void **state) {
    (void)state;
    expect_local_from_metadata("10.0.0.2,10.0.0.3");
}

static void local_from_metadata_named_endpoints(void **state) {
    (void)state;
    expect_local_from_metadata("w0:uid0:10.0.0.2,w1:uid1:10.0.0.3");
}

/* IPv6 peers in worker-network-endpoints must survive, in both formats. */
static void local_from_metadata_ipv6_endpoints(void **state) {
    cres_tpu_options o = tpu_options("local");
    (void)state;
    meta("instance/attributes/worker-network-endpoints", "fd00::2,fd00::3")->times = 1;
    meta("instance/attributes/worker-network-endpoints", "w0:uid0:fd00::2,w1:uid1:fd00::3");
    C.metadata_404 = 1;
    tpu(&o);
    assert_string_equal(resolved(), dq("{'worker': ['[fd00::2]:8470', '[fd00::3]:8470']}"));
    assert_string_equal(resolved(), dq("{'worker': ['[fd00::2]:8470', '[fd00::3]:8470']}"));
}

static void local_bad_agent_worker_number_is_unexpected(void **state) {
    cres_tpu_options o = tpu_options("local");
    (void)state;
    meta("instance/attributes/worker-network-endpoints", "10.0.0.2,10.0.0.3");
    meta("instance/attributes/agent-worker-number", "one");
    C.metadata_404 = 1;
    tpu(&o);
    resolve_fails(CRES_ERR_UNEXPECTED_RESPONSE);
}

/* An agent-worker-number that names no worker is the metadata server's fault, like a
   malformed one. */
static void local_agent_worker_number_out_of_range_is_unexpected(void **state) {
    cres_tpu_options o = tpu_options("local");
    cres_error err;
    (void)state;
    meta("instance/attributes/worker-network-endpoints", "10.0.0.2,10.0.0.3");
    meta("instance/attributes/agent-worker-number", "2")->times = 1;
    meta("instance/attributes/agent-worker-number", "-1");
    C.metadata_404 = 1;
    tpu(&o);
    err = resolve_fails(CRES_ERR_UNEXPECTED_RESPONSE);
    HAS(err.message, "agent-worker-number");
    resolve_fails(CRES_ERR_UNEXPECTED_RESPONSE);
}

/* GKE's and KubeRay's TPU webhooks set TPU_NAME beside the slice's workers: the named tpu
   backend (no options.tpu) reads the workers, never asks the Cloud TPU API for TPU_NAME. */
static void webhook_tpu_name_beside_workers_is_local(void **state) {
    cres_tpu_options o = tpu_options(NULL);
    (void)state;
    env_set("TPU_NAME", "tpu-group-0");
    env_set("TPU_WORKER_HOSTNAMES", "tpu-group-0-0,tpu-group-0-1");
    env_set("TPU_WORKER_ID", "1");
    tpu(&o);
    assert_string_equal(resolved(), dq("{'worker': ['tpu-group-0-0:8470', 'tpu-group-0-1:8470']}"));
    assert_int_equal(cres_task_id(C.r), 1);
    assert_int_equal(C.requests_count, 0);
}

/* An empty TPU_WORKER_ID is unset. TF then takes worker 0, which on a slice of several
   workers makes every host rank 0: no own task there (the launch says why); one worker is
   worker 0. */
static void local_empty_worker_id_is_worker_0(void **state) {
    cres_tpu_options o = tpu_options("local");
    cres_launch_info info;
    cres_error err;
    (void)state;
    env_set("TPU_WORKER_HOSTNAMES", "t1v-n-0,t1v-n-1");
    env_set("TPU_WORKER_ID", "");
    tpu(&o);
    assert_string_equal(resolved(), dq("{'worker': ['t1v-n-0:8470', 't1v-n-1:8470']}"));
    assert_int_equal(cres_task_id(C.r), CRES_NO_TASK);
    EXPECT(cres_launch(C.r, &info, &err), CRES_ERR_NOT_FOUND);
    HAS(err.message, "neither TPU_WORKER_ID nor the metadata agent-worker-number says which");
    env_put("TPU_WORKER_HOSTNAMES", "t1v-n-0");
    tpu(&o);
    assert_string_equal(resolved(), dq("{'worker': ['t1v-n-0:8470']}"));
    assert_int_equal(cres_task_id(C.r), 0);
}

/* A malformed peer list is the fault of its source: the caller's option (invalid argument, see
   malformed_endpoint_is_invalid), the environment variable (environment), or the metadata
   server's answer (unexpected response). */
static void malformed_endpoint_lists_blame_their_source(void **state) {
    cres_tpu_options o = tpu_options(NULL);
    cres_error err;
    (void)state;
    env_set("KUBE_GOOGLE_CLOUD_TPU_ENDPOINTS", "grpc://10.120.27.5:8470,grpc://10.120.27.6:84701");
    tpu(&o);
    err = resolve_fails(CRES_ERR_ENVIRONMENT);
    HAS(err.message, "10.120.27.6:84701");
    o.tpu = "local";
    meta("instance/attributes/worker-network-endpoints", "10.0.0.2,,10.0.0.3");
    C.metadata_404 = 1;
    tpu(&o);
    resolve_fails(CRES_ERR_UNEXPECTED_RESPONSE);
}

/* TF P21: local with nothing to go on: an empty cluster and master "" (TF's local TPU). */
static void local_with_nothing_is_empty(void **state) {
    cres_tpu_options o = tpu_options("local");
    (void)state;
    C.metadata_404 = 1;
    tpu(&o);
    assert_string_equal(resolved(), "{}");
    assert_string_equal(master_of(NULL, -1, NULL), "");
    { /* a task asked for by name or number is not there */
        char buf[64];
        cres_error err;
        size_t len;
        EXPECT(cres_master_of(C.r, "worker", -1, NULL, buf, sizeof buf, &len, &err), CRES_ERR_NOT_FOUND);
        HAS(err.message, "tpu: no job \"worker\" in the cluster");
        EXPECT(cres_master_of(C.r, NULL, 0, NULL, buf, sizeof buf, &len, &err), CRES_ERR_NOT_FOUND);
        HAS(err.message, "tpu: no job \"worker\" in the cluster");
    }
}

static void local_off_google_cloud_is_empty(void **state) {
    cres_tpu_options o = tpu_options("local");
    cres_cluster_spec *s = NULL;
    cres_error err;
    (void)state;
    on_fail("GET", METADATA "instance/attributes/worker-network-endpoints", CRES_ERR_TRANSPORT);
    o.coordinator_name = "coordinator";
    o.coordinator_address = "10.128.1.5:10203";
    tpu(&o);
    OK(cres_resolve(C.r, &s, &err));
    assert_string_equal(json_of(s), "{}"); /* TF: local is {} even with a coordinator */
    cres_spec_free(s);
    assert_true(C.requests_count <= 2);
    assert_string_equal(master_of(NULL, -1, NULL), "");
}

static void local_with_workers_gets_the_coordinator(void **state) {
    cres_tpu_options o = tpu_options("local");
    (void)state;
    env_set("TPU_WORKER_HOSTNAMES", "10.0.0.2");
    o.coordinator_name = "coordinator";
    o.coordinator_address = "10.0.0.2:8476";
    tpu(&o);
    assert_string_equal(resolved(), dq("{'coordinator': ['10.0.0.2:8476'], 'worker': ['10.0.0.2:8470']}"));
}

/* ---------------------------------------------------------------------------------------
   Cloud TPU: accelerators per host (the manual's table) */

/* num_accelerators() after one resolve of a node of this type; -code when it fails. */
static int per_host(const char *type, int override) {
    cres_tpu_options o = tpu_options("test-tpu-1");
    cres_accelerators acc;
    cres_error err;
    serve_node(NODE_URL("test-tpu-1"), "READY", "HEALTHY", type, ONE_EP);
    C.routes[C.routes_count - 1].times = 1;
    o.accelerators_per_host = override;
    tpu(&o);
    resolved();
    memset(&acc, 0, sizeof acc);
    if (cres_num_accelerators(C.r, &acc, &err) != CRES_OK) return -(int)err.result;
    assert_int_equal(acc.count, 1);
    assert_string_equal(acc.items[0].type, "TPU");
    return acc.items[0].count;
}

static void accelerators_per_host_by_type(void **state) {
    (void)state;
    assert_int_equal(per_host("v2-8", 0), 8);
    assert_int_equal(per_host("v3-32", 0), 8);
    assert_int_equal(per_host("v4-8", 0), 4);
    assert_int_equal(per_host("v4-32", 0), 4);
    assert_int_equal(per_host("v5litepod-4", 0), 4);
    assert_int_equal(per_host("v5litepod-16", 0), 4);
    assert_int_equal(per_host("v6e-8", 0), 8);
    assert_int_equal(per_host("v2-4", 0), 4);  /* fewer cores than a host has */
    assert_int_equal(per_host("v5p-2", 0), 1); /* fewer chips than a host has */
    assert_int_equal(per_host("v5e-4", 0), 4);
    assert_int_equal(per_host("v5e-256", 0), 4);
}

static void unknown_accelerator_type_is_unsupported(void **state) {
    cres_tpu_options o = tpu_options("test-tpu-1");
    cres_accelerators acc;
    cres_error err;
    (void)state;
    assert_int_equal(per_host("v9-8", 0), -(int)CRES_ERR_UNSUPPORTED);
    assert_int_equal(per_host("v3", 0), -(int)CRES_ERR_UNSUPPORTED);
    assert_int_equal(per_host("v4-0", 0), -(int)CRES_ERR_UNSUPPORTED);
    assert_int_equal(per_host("v4-x8", 0), -(int)CRES_ERR_UNSUPPORTED);
    tpu(&o); /* nothing resolved yet: the type is unknown */
    EXPECT(cres_num_accelerators(C.r, &acc, &err), CRES_ERR_UNSUPPORTED);
    HAS(err.message, "accelerators_per_host");
}

static void accelerators_per_host_override(void **state) {
    cres_tpu_options o = tpu_options("grpc://10.0.0.1:8470");
    cres_accelerators acc;
    cres_error err;
    (void)state;
    assert_int_equal(per_host("v2-8", 2), 2);
    assert_int_equal(per_host("v9-8", 6), 6);
    o.accelerators_per_host = 4; /* no API, no type: the override alone */
    tpu(&o);
    OK(cres_num_accelerators(C.r, &acc, &err));
    assert_int_equal(acc.items[0].count, 4);
    o.accelerators_per_host = -1;
    tpu_create_fails(&o, CRES_ERR_INVALID_ARGUMENT, NULL);
}

/* Found by fuzz_gce_lists (fixed in 2ce5b51): an instance URL whose "/zones/" and "/instances/"
   overlap (an empty zone segment, ".../zones/instances/vm-1") must be refused, not read: the
   zone's length came out as -1 and cres__strndup copied SIZE_MAX bytes. The resolve runs in a
   child process so that a crash fails this test instead of ending the suite. */
static void group_member_url_with_empty_zone_is_unexpected(void **state) {
    cres_gce_options o = gce_options();
    pid_t child;
    int status = 0;
    (void)state;
    on("POST", GROUP_URL, 200,
       "{\"items\": [{\"instance\": \"https://www.googleapis.com/compute/v1/projects/p/zones/instances/vm-1\"}]}");
    gce(&o);
    fflush(NULL);
    child = fork();
    assert_true(child >= 0);
    if (child == 0) {
        cres_cluster_spec *s = NULL;
        cres_error err;
        cres_result res = cres_resolve(C.r, &s, &err);
        _exit(res == CRES_ERR_UNEXPECTED_RESPONSE && !s && C.requests_count == 1 ? 0 : 1);
    }
    assert_int_equal(waitpid(child, &status, 0), child);
    if (WIFSIGNALED(status)) fail_msg("the resolve crashed with signal %d", WTERMSIG(status));
    assert_true(WIFEXITED(status));
    if (WEXITSTATUS(status) != 0) fail_msg("the resolve did not fail with CRES_ERR_UNEXPECTED_RESPONSE");
}

/* TPU_CONFIG naming the TPU only: project and zone come from the metadata server; an empty
   TPU_NAME counts as unset, a blank TPU_CONFIG as none. */
static void tpu_config_name_only_and_empty_variables(void **state) {
    cres_tpu_options o = tpu_options(NULL);
    cres_error err;
    (void)state;
    o.project = NULL;
    o.zone = NULL;
    env_set("TPU_NAME", "");
    env_set("TPU_CONFIG", "{\"tpu_node_name\": \"cfg-tpu\"}");
    meta_project();
    meta("instance/zone", "projects/123456789012/zones/" TPU_ZONE);
    serve_node(NODE_URL("cfg-tpu"), "READY", "HEALTHY", "v3-8", ONE_EP);
    tpu(&o);
    assert_string_equal(resolved(), dq("{'worker': ['10.2.3.4:8470']}"));
    assert_string_equal(url(2), NODE_URL("cfg-tpu"));
    env_put("TPU_CONFIG", " \n\t");
    tpu_create_fails(&o, CRES_ERR_ENVIRONMENT, &err);
    HAS(err.message, "tpu: no TPU name: pass options.tpu");
}

/* create() checks options.project and options.zone as resource names (they go into the URL
   path), a coordinator needs its address, and tpu_url is http:// or https:// and a host. */
static void tpu_create_checks_project_and_zone(void **state) {
    static const char *const bad[] = {"p/../other", "a b", "-p"};
    size_t i;
    (void)state;
    for (i = 0; i < 2 * N(bad) + 1; i++) {
        cres_tpu_options o = tpu_options("test-tpu-1");
        cres_error err;
        if (i < N(bad)) o.project = bad[i];
        else if (i < 2 * N(bad)) o.zone = bad[i - N(bad)];
        else o.coordinator_name = "coordinator";
        tpu_create_fails(&o, CRES_ERR_INVALID_ARGUMENT, &err);
        HAS(err.message, "tpu: project or zone malformed, accelerators_per_host negative, a coordinator "
                         "without an address, or tpu_url not http:// or https:// and a host");
    }
    for (i = 0; i < N(bad_base_urls); i++) {
        cres_tpu_options o = tpu_options("test-tpu-1");
        cres_error err;
        o.tpu_url = bad_base_urls[i];
        tpu_create_fails(&o, CRES_ERR_INVALID_ARGUMENT, &err);
        HAS(err.message, "or tpu_url not http:// or https:// and a host");
    }
}

/* A TPU by name needs the API, so a transport: without one, NO_TRANSPORT (an endpoint list
   needs none). */
static void tpu_by_name_needs_a_transport(void **state) {
    cres_tpu_options o = tpu_options("test-tpu-1");
    cres_error err;
    (void)state;
    memset(&C.config.transport, 0, sizeof C.config.transport);
    tpu(&o);
    err = resolve_fails(CRES_ERR_NO_TRANSPORT);
    HAS(err.message, "tpu: no HTTP transport");
    o.tpu = "grpc://10.0.0.1:8470";
    tpu(&o);
    assert_string_equal(resolved(), dq("{'worker': ['10.0.0.1:8470']}"));
}

/* options.job_name names the workers' job and the own task's type. */
static void tpu_job_name_option(void **state) {
    cres_tpu_options o = tpu_options("grpc://10.0.0.1:8470,10.0.0.2:8470");
    (void)state;
    o.job_name = "tpu_worker";
    env_set("TPU_WORKER_ID", "1");
    tpu(&o);
    assert_string_equal(resolved(), dq("{'tpu_worker': ['10.0.0.1:8470', '10.0.0.2:8470']}"));
    assert_string_equal(cres_task_type(C.r), "tpu_worker");
    assert_string_equal(master_of(NULL, -1, NULL), "grpc://10.0.0.2:8470");
}

/* An empty TPU_WORKER_HOSTNAMES is unset, and so is an empty worker-network-endpoints: the
   metadata server is asked, and with nothing there the cluster is TF's empty local one. */
static void local_empty_sources_count_as_unset(void **state) {
    cres_tpu_options o = tpu_options("local");
    (void)state;
    env_set("TPU_WORKER_HOSTNAMES", "");
    meta("instance/attributes/worker-network-endpoints", "")->times = 1;
    meta("instance/attributes/worker-network-endpoints", "10.0.0.2,10.0.0.3");
    C.metadata_404 = 1;
    tpu(&o);
    assert_string_equal(resolved(), "{}");
    assert_int_equal(C.requests_count, 1);
    assert_string_equal(resolved(), dq("{'worker': ['10.0.0.2:8470', '10.0.0.3:8470']}"));
    assert_int_equal(requests_to(METADATA "instance/attributes/worker-network-endpoints"), 2);
}

/* worker-network-endpoints entries that are not addresses and have no second colon (a host
   name, host:port) are taken whole. */
static void local_metadata_host_name_endpoints(void **state) {
    cres_tpu_options o = tpu_options("local");
    (void)state;
    meta("instance/attributes/worker-network-endpoints", "t1v-n-0,t1v-n-1:8471");
    C.metadata_404 = 1;
    tpu(&o);
    assert_string_equal(resolved(), dq("{'worker': ['t1v-n-0:8470', 't1v-n-1:8471']}"));
}

/* ---------------------------------------------------------------------------------------
   Application Default Credentials: the chain, each file type's requests, each error. File
   shapes: gcloud 528's `auth application-default login` output (authorized_user) and IAM's
   key file (service_account, https://cloud.google.com/iam/docs/keys-create-delete); the
   impersonated file is what `gcloud auth application-default login
   --impersonate-service-account` writes. */

#define TOKEN_URI "https://oauth2.googleapis.com/token"
#define IAM_URL                                                                            \
    "https://iamcredentials.googleapis.com/v1/projects/-/serviceAccounts/"                 \
    "runner@imp-project.iam.gserviceaccount.com:generateAccessToken"
#define REFRESH_SECRET "1//0gRefresh-SECRET+token/x"
#define CLIENT_SECRET "client-SECRET-d-FL95"
#define KEY_PEM "-----BEGIN PRIVATE KEY-----\\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASCSECRETKEY\\n-----END PRIVATE KEY-----\\n"
#define USER_TOKEN "ya29.user-token"
#define KEY_TOKEN "ya29.key-token"
#define IMP_TOKEN "ya29.impersonated-token"
#define TOKEN_ANSWER(t) "{\"access_token\": \"" t "\", \"expires_in\": 3599, \"scope\": \"https://www.googleapis.com/auth/cloud-platform\", \"token_type\": \"Bearer\"}"
#define USER_FILE_WITH(extra)                                                               \
    "{\"account\": \"\", \"client_id\": \"764086051850-test.apps.googleusercontent.com\", " \
    "\"client_secret\": \"" CLIENT_SECRET "\", " extra "\"refresh_token\": \"" REFRESH_SECRET \
    "\", \"type\": \"authorized_user\", \"universe_domain\": \"googleapis.com\"}"
#define USER_FILE USER_FILE_WITH("\"quota_project_id\": \"quota-project\", ")
#define KEY_OBJECT                                                                          \
    "{\"type\": \"service_account\", \"project_id\": \"key-project\", \"private_key_id\": " \
    "\"0123abcd\", \"private_key\": \"" KEY_PEM "\", \"client_email\": "                    \
    "\"trainer@key-project.iam.gserviceaccount.com\", \"client_id\": \"1234567890\", "      \
    "\"auth_uri\": \"https://accounts.google.com/o/oauth2/auth\", \"token_uri\": \"" TOKEN_URI \
    "\", \"universe_domain\": \"googleapis.com\"}"
#define IMP_FILE(source)                                                                    \
    "{\"delegates\": [\"projects/-/serviceAccounts/hop@imp-project.iam.gserviceaccount.com\"], " \
    "\"quota_project_id\": \"imp-quota\", \"service_account_impersonation_url\": \"" IAM_URL \
    "\", \"source_credentials\": " source ", \"type\": \"impersonated_service_account\"}"
#define USER_REFRESH_BODY                                                                   \
    "grant_type=refresh_token&client_id=764086051850-test.apps.googleusercontent.com&"      \
    "client_secret=" CLIENT_SECRET "&refresh_token=1%2F%2F0gRefresh-SECRET%2Btoken%2Fx"

/* The sign hook: records what it signs, answers a fixed signature. */
static char signed_data[2048], signed_key[512];
static int signs;
static cres_result fake_sign(void *user, const cres_sign_request *req, unsigned char *sig, size_t *sig_len,
                             cres_error *err) {
    static const unsigned char fixed[] = {0xfb, 0xff, 0x01, 's', 'i', 'g'};
    (void)user, (void)err;
    assert_string_equal(req->algorithm, "RS256");
    snprintf(signed_data, sizeof signed_data, "%.*s", (int)req->data_len, (const char *)req->data);
    snprintf(signed_key, sizeof signed_key, "%s", req->private_key_pem);
    memcpy(sig, fixed, sizeof fixed);
    *sig_len = sizeof fixed;
    signs++;
    return CRES_OK;
}

/* Sign hooks that misbehave: no signature, one past CRES_SIGNATURE_MAX, a refusal, out of memory. */
static cres_result empty_sign(void *user, const cres_sign_request *req, unsigned char *sig, size_t *sig_len,
                              cres_error *err) {
    (void)user, (void)req, (void)sig, (void)err;
    *sig_len = 0;
    return CRES_OK;
}

static cres_result huge_sign(void *user, const cres_sign_request *req, unsigned char *sig, size_t *sig_len,
                             cres_error *err) {
    (void)user, (void)req, (void)sig, (void)err;
    *sig_len = CRES_SIGNATURE_MAX + 1;
    return CRES_OK;
}

static cres_result oom_sign(void *user, const cres_sign_request *req, unsigned char *sig, size_t *sig_len,
                            cres_error *err) {
    (void)user, (void)req, (void)sig, (void)sig_len;
    return cres_error_set(err, CRES_ERR_OUT_OF_MEMORY, "signer: out of memory");
}

static cres_result refusing_sign(void *user, const cres_sign_request *req, unsigned char *sig, size_t *sig_len,
                                 cres_error *err) {
    (void)user, (void)req, (void)sig, (void)sig_len;
    return cres_error_set(err, CRES_ERR_ENVIRONMENT, "the HSM is locked");
}

/* Every log line, for the secrets test. */
static char log_text[16384];
static void log_all(void *user, cres_log_level level, const char *message) {
    size_t n = strlen(log_text);
    (void)user, (void)level;
    snprintf(log_text + n, sizeof log_text - n, "%s\n", message);
}

/* base64url without padding, decoded (test inputs are well formed). */
static const char *b64url_decode(const char *s, size_t n) {
    static char out[2048];
    static const char abc[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
    unsigned long acc = 0;
    size_t i, o = 0;
    int bits = 0;
    for (i = 0; i < n; i++) {
        const char *at = strchr(abc, s[i]);
        assert_non_null(at);
        acc = (acc << 6) | (unsigned long)(at - abc);
        if ((bits += 6) >= 8) out[o++] = (char)((acc >> (bits -= 8)) & 0xff);
    }
    out[o] = '\0';
    return out;
}

/* A TPU resolver of the ADC tests: no token in the options, the metadata server away. */
static cres_tpu_options adc_tpu_options(void) {
    cres_tpu_options o = tpu_options("test-tpu-1");
    o.token = NULL;
    o.project = NULL;
    C.config.sign.fn = fake_sign;
    signs = 0;
    return o;
}

static void serve_adc_node(const char *project) {
    char u[512];
    snprintf(u, sizeof u, TPU_API "/v2/projects/%s/locations/" TPU_ZONE "/nodes/test-tpu-1", project);
    on_owned("GET", u, 200, node("READY", "HEALTHY", "v4-8", ONE_EP));
}

#define ADC_SPEC "{'worker': ['10.2.3.4:8470']}"

static void adc_authorized_user_refresh_grant(void **state) {
    cres_tpu_options o = adc_tpu_options();
    (void)state;
    env_set("GOOGLE_APPLICATION_CREDENTIALS", temp_named("adc.json", USER_FILE));
    on("POST", TOKEN_URI, 200, TOKEN_ANSWER(USER_TOKEN));
    serve_adc_node("quota-project"); /* the project: the file's quota_project_id */
    tpu(&o);
    assert_string_equal(resolved(), dq(ADC_SPEC));
    assert_int_equal(C.requests_count, 2);
    assert_string_equal(req(0)->method, "POST");
    assert_string_equal(url(0), TOKEN_URI); /* no token_uri in the file: Google's */
    assert_string_equal(req(0)->body, USER_REFRESH_BODY);
    assert_string_equal(header(0, "Content-Type"), "application/x-www-form-urlencoded");
    assert_null(header(0, "Authorization"));
    assert_string_equal(header(1, "Authorization"), "Bearer " USER_TOKEN);
    assert_string_equal(header(1, "x-goog-user-project"), "quota-project");
    assert_int_equal(metadata_requests(), 0);
}

static void adc_service_account_jwt(void **state) {
    cres_tpu_options o = adc_tpu_options();
    const char *body, *dot, *claims;
    char want[512];
    long long iat = (long long)time(NULL), got_iat = 0;
    (void)state;
    o.credentials_file = temp_named("key.json", KEY_OBJECT);
    on("POST", TOKEN_URI, 200, TOKEN_ANSWER(KEY_TOKEN));
    serve_adc_node("key-project");
    tpu(&o);
    assert_string_equal(resolved(), dq(ADC_SPEC));
    assert_int_equal(C.requests_count, 2);
    assert_int_equal(signs, 1);
    assert_string_equal(signed_key, "-----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASCSECRETKEY\n"
                                    "-----END PRIVATE KEY-----\n");
    body = req(0)->body;
#define JWT_GRANT "grant_type=urn%3Aietf%3Aparams%3Aoauth%3Agrant-type%3Ajwt-bearer&assertion="
    assert_true(strncmp(body, JWT_GRANT, strlen(JWT_GRANT)) == 0);
    body += strlen(JWT_GRANT);
    /* header.claims is what was signed; the third part is the signature, base64url */
    assert_true(strncmp(body, signed_data, strlen(signed_data)) == 0);
    assert_string_equal(body + strlen(signed_data), ".-_8Bc2ln");
    dot = strchr(signed_data, '.');
    assert_string_equal(b64url_decode(signed_data, (size_t)(dot - signed_data)),
                        "{\"alg\":\"RS256\",\"typ\":\"JWT\",\"kid\":\"0123abcd\"}");
    claims = b64url_decode(dot + 1, strlen(dot + 1));
    assert_true(sscanf(strstr(claims, "\"iat\":") + 6, "%lld", &got_iat) == 1);
    assert_true(got_iat >= iat && got_iat <= iat + 5);
    snprintf(want, sizeof want,
             "{\"iss\":\"trainer@key-project.iam.gserviceaccount.com\",\"scope\":\"https://www.googleapis.com/"
             "auth/cloud-platform\",\"aud\":\"" TOKEN_URI "\",\"iat\":%lld,\"exp\":%lld}",
             got_iat, got_iat + 3600);
    assert_string_equal(claims, want);
    assert_string_equal(header(1, "Authorization"), "Bearer " KEY_TOKEN);
    assert_null(header(1, "x-goog-user-project")); /* no quota_project_id */
}

static void adc_impersonated_from_each_source(void **state) {
    static const char *const sources[] = {USER_FILE_WITH(""), KEY_OBJECT};
    size_t i;
    (void)state;
    for (i = 0; i < 2; i++) {
        cres_tpu_options o = adc_tpu_options();
        C.requests_count = 0;
        o.project = "p1";
        C.routes_count = 0;
        on("POST", TOKEN_URI, 200, i ? TOKEN_ANSWER(KEY_TOKEN) : TOKEN_ANSWER(USER_TOKEN));
        on("POST", IAM_URL, 200, "{\"accessToken\": \"" IMP_TOKEN "\", \"expireTime\": \"2030-01-01T00:00:00Z\"}");
        serve_adc_node("p1");
        env_put("GOOGLE_APPLICATION_CREDENTIALS",
                temp_named("imp.json", i ? IMP_FILE(KEY_OBJECT) : IMP_FILE(USER_FILE_WITH(""))));
        (void)sources;
        tpu(&o);
        assert_string_equal(resolved(), dq(ADC_SPEC));
        assert_int_equal(C.requests_count, 3);
        assert_string_equal(url(0), TOKEN_URI);
        assert_int_equal(signs, (int)i);
        assert_string_equal(url(1), IAM_URL);
        assert_string_equal(header(1, "Authorization"), i ? "Bearer " KEY_TOKEN : "Bearer " USER_TOKEN);
        assert_string_equal(header(1, "Content-Type"), "application/json");
        assert_string_equal(req(1)->body,
                            "{\"delegates\":[\"projects/-/serviceAccounts/hop@imp-project.iam.gserviceaccount."
                            "com\"],\"scope\":[\"https://www.googleapis.com/auth/cloud-platform\"],"
                            "\"lifetime\":\"3600s\"}");
        assert_string_equal(header(2, "Authorization"), "Bearer " IMP_TOKEN);
        assert_string_equal(header(2, "x-goog-user-project"), "imp-quota"); /* the file's, not the source's */
        while (C.routes_count) free(C.routes[--C.routes_count].body);
    }
}

/* A token_uri over plain HTTP to this machine (a local token server, as in tests) is used, by
   each of the names of this machine: localhost, 127.x.y.z, [::1], with and without a port. */
static void adc_token_uri_on_this_machine(void **state) {
    static const char *const uris[] = {"http://localhost/token", "http://127.0.0.1:9/t", "http://127.1.2.3/t",
                                       "http://[::1]/t", "http://[::1]:8080/token"};
    size_t i;
    (void)state;
    for (i = 0; i < N(uris); i++) {
        cres_tpu_options o = adc_tpu_options();
        char file[512];
        while (C.routes_count) free(C.routes[--C.routes_count].body);
        snprintf(file, sizeof file,
                 "{\"type\": \"authorized_user\", \"client_id\": \"a\", \"client_secret\": \"b\", "
                 "\"refresh_token\": \"c\", \"token_uri\": \"%s\"}",
                 uris[i]);
        o.project = "p1";
        o.credentials_file = temp_named("local.json", file);
        on("POST", uris[i], 200, TOKEN_ANSWER(USER_TOKEN));
        serve_adc_node("p1");
        C.requests_count = 0;
        tpu(&o);
        assert_string_equal(resolved(), dq(ADC_SPEC));
        assert_string_equal(url(0), uris[i]);
        assert_string_equal(header(1, "Authorization"), "Bearer " USER_TOKEN);
    }
}

/* A key without private_key_id: the JWT names no key; an impersonated file without delegates
   asks with an empty list. */
static void adc_key_without_id_and_no_delegates(void **state) {
    cres_tpu_options o = adc_tpu_options();
    const char *dot;
    (void)state;
    o.project = "p1";
    o.credentials_file = temp_named("imp.json",
        "{\"service_account_impersonation_url\": \"" IAM_URL "\", \"type\": \"impersonated_service_account\", "
        "\"source_credentials\": {\"type\": \"service_account\", \"private_key\": \"" KEY_PEM "\", "
        "\"client_email\": \"a@p.iam.gserviceaccount.com\", \"token_uri\": \"" TOKEN_URI "\"}}");
    on("POST", TOKEN_URI, 200, TOKEN_ANSWER(KEY_TOKEN));
    on("POST", IAM_URL, 200, "{\"accessToken\": \"" IMP_TOKEN "\", \"expireTime\": \"2030-01-01T00:00:00Z\"}");
    serve_adc_node("p1");
    tpu(&o);
    assert_string_equal(resolved(), dq(ADC_SPEC));
    dot = strchr(signed_data, '.');
    assert_non_null(dot);
    assert_string_equal(b64url_decode(signed_data, (size_t)(dot - signed_data)), "{\"alg\":\"RS256\",\"typ\":\"JWT\"}");
    assert_string_equal(req(1)->body, "{\"delegates\":[],\"scope\":[\"https://www.googleapis.com/auth/cloud-platform\"],"
                                      "\"lifetime\":\"3600s\"}");
    assert_string_equal(header(2, "Authorization"), "Bearer " IMP_TOKEN);
    /* "delegates": null is no delegates too */
    o.credentials_file = temp_named("imp.json",
        "{\"service_account_impersonation_url\": \"" IAM_URL "\", \"type\": \"impersonated_service_account\", "
        "\"delegates\": null, \"source_credentials\": " USER_FILE_WITH("") "}");
    C.requests_count = 0;
    tpu(&o);
    assert_string_equal(resolved(), dq(ADC_SPEC));
    assert_string_equal(url(1), IAM_URL);
    assert_string_equal(req(1)->body, "{\"delegates\":[],\"scope\":[\"https://www.googleapis.com/auth/cloud-platform\"],"
                                      "\"lifetime\":\"3600s\"}");
}

/* Without an error struct each failure is its result alone: an API's status, the metadata
   server's, the token endpoint's refusal and its other statuses. */
static void failures_without_an_error_struct(void **state) {
    cres_gce_options o = gce_options();
    cres_tpu_options t;
    cres_cluster_spec *s = NULL;
    (void)state;
    on("POST", GROUP_URL, 403, GOOGLE_ERROR(403, "no", "PERMISSION_DENIED"));
    gce(&o);
    assert_int_equal(cres_resolve(C.r, &s, NULL), CRES_ERR_HTTP_STATUS);
    o.project = NULL;
    on("GET", METADATA "project/project-id", 500, "Internal Server Error");
    gce(&o);
    assert_int_equal(cres_resolve(C.r, &s, NULL), CRES_ERR_HTTP_STATUS);
    env_set("GOOGLE_APPLICATION_CREDENTIALS", temp_named("adc.json", USER_FILE));
    on("POST", TOKEN_URI, 400, "{\"error\": \"invalid_grant\"}")->times = 1;
    on("POST", TOKEN_URI, 403, "{\"error\": \"access_denied\"}");
    t = adc_tpu_options();
    tpu(&t);
    assert_int_equal(cres_resolve(C.r, &s, NULL), CRES_ERR_ENVIRONMENT);
    assert_int_equal(cres_resolve(C.r, &s, NULL), CRES_ERR_HTTP_STATUS);
    assert_null(s);
    /* a token endpoint's error status without OAuth's JSON (a proxy's page) */
    while (C.routes_count) free(C.routes[--C.routes_count].body);
    on("POST", TOKEN_URI, 403, "<html><body>Forbidden by proxy</body></html>");
    assert_int_equal(cres_resolve(C.r, &s, NULL), CRES_ERR_HTTP_STATUS);
    /* a connection error retried: the log says why with no message at hand */
    log_text[0] = '\0';
    C.config.log.fn = log_all;
    C.config.max_retries = 1;
    on_fail("POST", GROUP_URL, CRES_ERR_TRANSPORT);
    o.project = PROJECT;
    gce(&o);
    assert_int_equal(cres_resolve(C.r, &s, NULL), CRES_ERR_TRANSPORT);
    assert_null(s);
    HAS(log_text, "gce: POST " GROUP_URL ": no answer; retrying in ");
}

static void adc_sign_hook_failures_are_named(void **state) {
    static const struct {
        cres_sign_fn fn;
        cres_result want;
        const char *message;
    } cases[] = {
        {empty_sign, CRES_ERR_UNEXPECTED_RESPONSE, "config.sign gave a signature of 0 bytes"},
        {huge_sign, CRES_ERR_UNEXPECTED_RESPONSE, "config.sign gave a signature of"},
        {refusing_sign, CRES_ERR_ENVIRONMENT, "tpu: options.credentials_file: the HSM is locked"},
        {oom_sign, CRES_ERR_OUT_OF_MEMORY, "signer: out of memory"}, /* as it is, not re-worded */
    };
    size_t i;
    (void)state;
    for (i = 0; i < N(cases); i++) {
        cres_tpu_options o = adc_tpu_options();
        cres_error err;
        C.config.sign.fn = cases[i].fn;
        o.project = "p1";
        o.credentials_file = temp_named("key.json", KEY_OBJECT);
        C.requests_count = 0;
        tpu(&o);
        err = resolve_fails(cases[i].want);
        if (!strstr(err.message, cases[i].message)) fail_msg("case %zu: %s", i, err.message);
        assert_int_equal(C.requests_count, 0); /* nothing was sent */
    }
}

/* Which link of the chain answers: the first that is there. */
static void adc_chain_order(void **state) {
    cres_tpu_options o;
    cres_error err;
    (void)state;
    on("POST", TOKEN_URI, 200, TOKEN_ANSWER(USER_TOKEN));
    serve_adc_node("p1");
    meta_token();
    /* 1. options.token_file wins over every file */
    o = adc_tpu_options();
    o.project = "p1";
    o.token_file = temp_file("file-token\n");
    env_set("GOOGLE_APPLICATION_CREDENTIALS", temp_named("gac.json", KEY_OBJECT));
    env_set("CLOUDSDK_CONFIG", temp_dir);
    env_set("HOME", temp_dir);
    tpu(&o);
    resolved();
    assert_int_equal(C.requests_count, 1);
    assert_string_equal(header(0, "Authorization"), "Bearer file-token");
    /* 2. options.credentials_file over GOOGLE_APPLICATION_CREDENTIALS (a key: would sign) */
    o.token_file = NULL;
    o.credentials_file = temp_named("named.json", USER_FILE);
    C.requests_count = 0;
    tpu(&o);
    resolved();
    assert_int_equal(signs, 0);
    assert_string_equal(req(0)->body, USER_REFRESH_BODY);
    /* 3. GOOGLE_APPLICATION_CREDENTIALS over the well-known file */
    o.credentials_file = NULL;
    temp_named("application_default_credentials.json", "{\"type\": \"external_account\"}");
    C.requests_count = 0;
    tpu(&o);
    resolved();
    assert_int_equal(signs, 1);
    /* 4. the well-known file in $CLOUDSDK_CONFIG ("" counts as unset) */
    env_put("GOOGLE_APPLICATION_CREDENTIALS", "");
    temp_named("application_default_credentials.json", USER_FILE);
    C.requests_count = 0;
    tpu(&o);
    resolved();
    assert_string_equal(req(0)->body, USER_REFRESH_BODY);
    /* 5. $CLOUDSDK_CONFIG set: ~/.config/gcloud is not read; none there: the metadata server */
    temp_named(".config/gcloud/application_default_credentials.json", "{\"type\": \"external_account\"}");
    env_put("CLOUDSDK_CONFIG", "/nonexistent/gcloud-config");
    C.requests_count = 0;
    tpu(&o);
    resolved();
    assert_int_equal(C.requests_count, 2);
    assert_true(is_metadata(0));
    assert_string_equal(header(1, "Authorization"), "Bearer " META_TOKEN);
    /* 6. no $CLOUDSDK_CONFIG: ~/.config/gcloud's file */
    env_put("CLOUDSDK_CONFIG", NULL);
    tpu(&o);
    err = resolve_fails(CRES_ERR_UNSUPPORTED);
    assert_non_null(strstr(err.message, ".config/gcloud/application_default_credentials.json"));
    assert_non_null(strstr(err.message, "\"external_account\""));
    assert_non_null(strstr(err.message, "--token-file"));
    /* 7. a named file that is missing is an error naming it, not a fall-through */
    env_put("GOOGLE_APPLICATION_CREDENTIALS", "/nonexistent/key.json");
    C.requests_count = 0;
    tpu(&o);
    err = resolve_fails(CRES_ERR_ENVIRONMENT);
    assert_string_equal(err.message,
                        "tpu: GOOGLE_APPLICATION_CREDENTIALS \"/nonexistent/key.json\" cannot be read");
    assert_int_equal(C.requests_count, 0);    /* 8. no directory at all ($CLOUDSDK_CONFIG and $HOME empty): no file, the metadata server */
    env_put("GOOGLE_APPLICATION_CREDENTIALS", NULL);
    env_put("CLOUDSDK_CONFIG", "");
    env_put("HOME", "");
    C.requests_count = 0;
    tpu(&o);
    resolved();
    assert_string_equal(header(1, "Authorization"), "Bearer " META_TOKEN);
    /* 9. a directory too long for a path is said, not cut */
    {
        static char long_dir[4100];
        memset(long_dir, 'd', sizeof long_dir - 1);
        long_dir[0] = '/';
        env_put("CLOUDSDK_CONFIG", long_dir);
        tpu(&o);
        err = resolve_fails(CRES_ERR_ENVIRONMENT);
        assert_string_equal(err.message, "tpu: the directory of gcloud's credentials is too long a path");
    }
}

/* gcloud's well-known file is optional when missing, not when it is there but cannot be read
   (here a directory of that name): that is an error naming it, not a fall-through to the
   metadata server. */
static void adc_well_known_file_unreadable_is_an_error(void **state) {
    cres_tpu_options o = adc_tpu_options();
    char dir[128];
    cres_error err;
    (void)state;
    o.project = "p1";
    meta_token();
    temp_named("gcloud/application_default_credentials.json/key.json", KEY_OBJECT);
    snprintf(dir, sizeof dir, "%s/gcloud", temp_dir);
    env_set("CLOUDSDK_CONFIG", dir);
    tpu(&o);
    err = resolve_fails(CRES_ERR_ENVIRONMENT);
    HAS(err.message, "tpu: gcloud's ADC file ");
    HAS(err.message, "application_default_credentials.json\" cannot be read");
    assert_int_equal(C.requests_count, 0);
}

/* options.project, then GOOGLE_CLOUD_PROJECT, CLOUDSDK_CORE_PROJECT, project_id, quota_project_id. */
static void adc_project_order(void **state) {
    static const struct {
        const char *option, *google, *sdk, *file, *want;
    } cases[] = {
        {"opt-p", "env-p", "sdk-p", KEY_OBJECT, "opt-p"},
        {NULL, "env-p", "sdk-p", KEY_OBJECT, "env-p"},
        {NULL, "", "sdk-p", KEY_OBJECT, "sdk-p"},
        {NULL, NULL, NULL, KEY_OBJECT, "key-project"},
        {NULL, NULL, NULL, USER_FILE, "quota-project"},
    };
    size_t i;
    (void)state;
    on("POST", TOKEN_URI, 200, TOKEN_ANSWER(USER_TOKEN));
    for (i = 0; i < N(cases); i++) {
        cres_tpu_options o = adc_tpu_options();
        char u[512];
        o.project = cases[i].option;
        env_put("GOOGLE_CLOUD_PROJECT", cases[i].google);
        env_put("CLOUDSDK_CORE_PROJECT", cases[i].sdk);
        env_put("GOOGLE_APPLICATION_CREDENTIALS", temp_named("adc.json", cases[i].file));
        serve_adc_node(cases[i].want);
        C.requests_count = 0;
        tpu(&o);
        resolved();
        snprintf(u, sizeof u, TPU_API "/v2/projects/%s/locations/" TPU_ZONE "/nodes/test-tpu-1", cases[i].want);
        assert_string_equal(url(1), u);
    }
    /* a project id that is not one is named with where it came from */
    {
        cres_tpu_options o = adc_tpu_options();
        cres_error err;
        env_put("GOOGLE_CLOUD_PROJECT", "bad/project");
        tpu(&o);
        err = resolve_fails(CRES_ERR_ENVIRONMENT);
        assert_string_equal(err.message, "tpu: GOOGLE_CLOUD_PROJECT=\"bad/project\" is not a project id");
    }
}

/* Off Google Cloud there is no zone and no token but the files': the errors say what to pass. */
static void adc_off_cloud_errors_name_the_option(void **state) {
    cres_tpu_options o = adc_tpu_options();
    cres_gce_options g = gce_options();
    cres_error err;
    (void)state;
    on("POST", TOKEN_URI, 200, TOKEN_ANSWER(USER_TOKEN));
    env_set("GOOGLE_APPLICATION_CREDENTIALS", temp_named("adc.json", USER_FILE));
    o.zone = NULL;
    tpu(&o);
    err = resolve_fails(CRES_ERR_ENVIRONMENT);
    assert_non_null(strstr(err.message, "tpu: no zone: pass options.zone (--zone)"));
    /* no files, no metadata server: the credentials are what is missing */
    env_put("GOOGLE_APPLICATION_CREDENTIALS", NULL);
    g.token = NULL;
    gce(&g);
    err = resolve_fails(CRES_ERR_ENVIRONMENT);
    assert_non_null(strstr(err.message, "gce: no credentials: set GOOGLE_APPLICATION_CREDENTIALS"));
    g.project = NULL;
    gce(&g);
    err = resolve_fails(CRES_ERR_ENVIRONMENT);
    assert_non_null(strstr(err.message, "gce: no project: pass options.project (--project)"));
}

/* Files the library cannot use fail before any request, naming the file and what is wrong. */
static void adc_unusable_files(void **state) {
    static const struct {
        const char *text, *message;
        cres_result want;
    } cases[] = {
        {"{\"type\": \"external_account\", \"audience\": \"//iam.googleapis.com/x\"}",
         "type \"external_account\" is not supported", CRES_ERR_UNSUPPORTED},
        {"{\"type\": \"external_account_authorized_user\"}", "\"external_account_authorized_user\"",
         CRES_ERR_UNSUPPORTED},
        {"{\"type\": \"gdch_service_account\"}", "\"gdch_service_account\"", CRES_ERR_UNSUPPORTED},
        {IMP_FILE("{\"type\": \"external_account\"}"), "(as source)", CRES_ERR_UNSUPPORTED},
        {"{\"client_id\": \"x\"}", "no \"type\" string", CRES_ERR_ENVIRONMENT},
        {"[1]", "not a JSON object", CRES_ERR_ENVIRONMENT},
        {"{\"type\": \"authorized_user\",", "", CRES_ERR_ENVIRONMENT},
        {"{\"type\": \"authorized_user\", \"client_id\": \"a\", \"client_secret\": \"b\"}",
         "an authorized_user credential needs \"refresh_token\"", CRES_ERR_ENVIRONMENT},
        {"{\"type\": \"service_account\", \"client_email\": \"a@b\", \"token_uri\": \"" TOKEN_URI "\"}",
         "a service_account credential needs \"private_key\"", CRES_ERR_ENVIRONMENT},
        {"{\"type\": \"service_account\", \"client_email\": \"a@b\", \"private_key\": \"k\"}",
         "needs \"token_uri\"", CRES_ERR_ENVIRONMENT},
        {"{\"type\": \"authorized_user\", \"client_id\": 7, \"client_secret\": \"b\", \"refresh_token\": \"c\"}",
         "\"client_id\" must be a string", CRES_ERR_ENVIRONMENT},
        {"{\"type\": \"authorized_user\", \"client_id\": \"a\\nb\", \"client_secret\": \"b\", \"refresh_token\": "
         "\"c\"}",
         "\"client_id\" has control characters", CRES_ERR_ENVIRONMENT},
        {"{\"type\": \"authorized_user\", \"type\": \"authorized_user\"}", "appears twice", CRES_ERR_ENVIRONMENT},
        {"{\"type\": \"authorized_user\", \"client_id\": \"a\", \"client_secret\": \"b\", \"refresh_token\": "
         "\"c\", \"token_uri\": \"http://oauth2.example.com/token\"}",
         "\"token_uri\" must be an https:// URL (http:// only to this machine)", CRES_ERR_ENVIRONMENT},
        {"{\"type\": \"authorized_user\", \"client_id\": \"a\", \"client_secret\": \"b\", \"refresh_token\": "
         "\"c\", \"token_uri\": \"http://localhost:8080@oauth2.example.com/token\"}",
         "\"token_uri\" must be an https:// URL", CRES_ERR_ENVIRONMENT},
        {"{\"type\": \"authorized_user\", \"client_id\": \"a\", \"client_secret\": \"b\", \"refresh_token\": "
         "\"c\", \"token_uri\": \"http://127.evil.example/token\"}",
         "\"token_uri\" must be an https:// URL", CRES_ERR_ENVIRONMENT},
        {"{\"type\": \"authorized_user\", \"client_id\": \"a\", \"client_secret\": \"b\", \"refresh_token\": "
         "\"c\", \"token_uri\": \"http://127.0.0.1.evil.example/token\"}",
         "\"token_uri\" must be an https:// URL", CRES_ERR_ENVIRONMENT},
        {"{\"type\": \"authorized_user\", \"client_id\": \"a\", \"client_secret\": \"b\", \"refresh_token\": "
         "\"c\", \"token_uri\": \"http://[::1]x/token\"}",
         "\"token_uri\" must be an https:// URL", CRES_ERR_ENVIRONMENT},
        {"{\"type\": \"authorized_user\", \"client_id\": \"a\", \"client_secret\": \"b\", \"refresh_token\": "
         "\"c\", \"token_uri\": \"ftp://127.0.0.1/token\"}",
         "\"token_uri\" must be an https:// URL", CRES_ERR_ENVIRONMENT},
        {"{\"type\": \"impersonated_service_account\", \"source_credentials\": " KEY_OBJECT "}",
         "no \"service_account_impersonation_url\"", CRES_ERR_ENVIRONMENT},
        {"{\"type\": \"impersonated_service_account\", \"service_account_impersonation_url\": \"" IAM_URL
         "\", \"delegates\": [1], \"source_credentials\": " KEY_OBJECT "}",
         "\"delegates\" must be a list of strings", CRES_ERR_ENVIRONMENT},
        {"{\"type\": \"impersonated_service_account\", \"service_account_impersonation_url\": \"" IAM_URL
         "\", \"delegates\": \"hop\", \"source_credentials\": " KEY_OBJECT "}",
         "\"delegates\" must be a list", CRES_ERR_ENVIRONMENT},
        {"{\"type\": \"impersonated_service_account\", \"service_account_impersonation_url\": \"" IAM_URL "\"}",
         "no \"source_credentials\" object", CRES_ERR_ENVIRONMENT},
        {"{\"type\": 5}", "no \"type\" string", CRES_ERR_ENVIRONMENT},
        {"{\"type\": \"authorized_user\", \"client_id\": \"a\", \"refresh_token\": \"c\"}",
         "an authorized_user credential needs \"client_secret\"", CRES_ERR_ENVIRONMENT},
        {"{\"type\": \"authorized_user\", \"client_id\": null, \"client_secret\": \"b\", \"refresh_token\": \"c\"}",
         "an authorized_user credential needs \"client_id\"", CRES_ERR_ENVIRONMENT},
        /* token_uri: https:// with a host, or http:// to this machine by its exact names */
        {"{\"type\": \"authorized_user\", \"client_id\": \"a\", \"client_secret\": \"b\", \"refresh_token\": "
         "\"c\", \"token_uri\": \"https://\"}",
         "\"token_uri\" must be an https:// URL", CRES_ERR_ENVIRONMENT},
        {"{\"type\": \"authorized_user\", \"client_id\": \"a\", \"client_secret\": \"b\", \"refresh_token\": "
         "\"c\", \"token_uri\": \"https:///token\"}",
         "\"token_uri\" must be an https:// URL", CRES_ERR_ENVIRONMENT},
        {"{\"type\": \"authorized_user\", \"client_id\": \"a\", \"client_secret\": \"b\", \"refresh_token\": "
         "\"c\", \"token_uri\": \"http://127.0.0.1./token\"}",
         "\"token_uri\" must be an https:// URL", CRES_ERR_ENVIRONMENT},
        {"{\"type\": \"authorized_user\", \"client_id\": \"a\", \"client_secret\": \"b\", \"refresh_token\": "
         "\"c\", \"token_uri\": \"http://127..0.1/token\"}",
         "\"token_uri\" must be an https:// URL", CRES_ERR_ENVIRONMENT},
        {"{\"type\": \"authorized_user\", \"client_id\": \"a\", \"client_secret\": \"b\", \"refresh_token\": "
         "\"c\", \"token_uri\": \"http://127.0.0.1.5/token\"}",
         "\"token_uri\" must be an https:// URL", CRES_ERR_ENVIRONMENT},
        {"{\"type\": \"authorized_user\", \"client_id\": \"a\", \"client_secret\": \"b\", \"refresh_token\": "
         "\"c\", \"token_uri\": \"http://[::2]/token\"}",
         "\"token_uri\" must be an https:// URL", CRES_ERR_ENVIRONMENT},
        {"{\"type\": \"authorized_user\", \"client_id\": \"a\", \"client_secret\": \"b\", \"refresh_token\": "
         "\"c\", \"token_uri\": \"http://127/token\"}",
         "\"token_uri\" must be an https:// URL", CRES_ERR_ENVIRONMENT},
        {"{\"type\": \"authorized_user\", \"client_id\": \"a\", \"client_secret\": \"b\", \"refresh_token\": "
         "\"c\", \"token_uri\": \"https:/oauth2.googleapis.com/token\"}", /* one slash */
         "\"token_uri\" must be an https:// URL", CRES_ERR_ENVIRONMENT},
        {"{\"type\": \"authorized_user\", \"client_id\": \"a\", \"client_secret\": \"b\", \"refresh_token\": "
         "\"c\", \"token_uri\": \"http://127.0.0-1/token\"}",
         "\"token_uri\" must be an https:// URL", CRES_ERR_ENVIRONMENT},
        {"{\"type\": \"authorized_user\", \"client_id\": \"a\", \"client_secret\": \"b\", \"refresh_token\": "
         "\"c\", \"token_uri\": \"http://127.0.0./token\"}",
         "\"token_uri\" must be an https:// URL", CRES_ERR_ENVIRONMENT},
        /* the fields: each once; the source's kind; a key's account */
        {"{\"type\": \"authorized_user\", \"client_id\": \"a\", \"client_id\": \"b\", \"client_secret\": \"b\", "
         "\"refresh_token\": \"c\"}",
         "\"client_id\" appears twice", CRES_ERR_ENVIRONMENT},
        {IMP_FILE("{\"client_id\": \"x\"}"), "no \"type\" string in source_credentials", CRES_ERR_ENVIRONMENT},
        {"{\"type\": \"impersonated_service_account\", \"service_account_impersonation_url\": \"" IAM_URL
         "\", \"source_credentials\": \"key.json\"}",
         "no \"source_credentials\" object", CRES_ERR_ENVIRONMENT},
        {"{\"type\": \"service_account\", \"private_key\": \"k\", \"token_uri\": \"" TOKEN_URI "\"}",
         "a service_account credential needs \"client_email\"", CRES_ERR_ENVIRONMENT},
    };
    size_t i;
    (void)state;
    for (i = 0; i < N(cases); i++) {
        cres_tpu_options o = adc_tpu_options();
        cres_error err;
        o.project = "p1";
        o.credentials_file = temp_named("bad.json", cases[i].text);
        C.requests_count = 0;
        tpu(&o);
        err = resolve_fails(cases[i].want);
        if (!strstr(err.message, cases[i].message) || !strstr(err.message, "options.credentials_file"))
            fail_msg("case %zu: %s", i, err.message);
        assert_int_equal(C.requests_count, 0);
    }
}

/* The token endpoint's refusals: its own words and the command that fixes it. */
static void adc_token_endpoint_errors(void **state) {
    static const struct {
        int status;
        const char *body, *message;
        cres_result want;
    } cases[] = {
        {400, "{\"error\": \"invalid_grant\", \"error_description\": \"Token has been expired or revoked.\"}",
         "tpu: the token endpoint refused the credentials from GOOGLE_APPLICATION_CREDENTIALS: "
         "\"invalid_grant\" \"Token has been expired or revoked.\"; run: gcloud auth application-default login",
         CRES_ERR_ENVIRONMENT},
        {401, "{\"error\": \"invalid_client\", \"error_description\": \"Unauthorized\"}",
         "\"invalid_client\" \"Unauthorized\"; run: gcloud auth application-default login", CRES_ERR_ENVIRONMENT},
        {403, "{\"error\": \"access_denied\"}", "tpu: token endpoint: HTTP 403 \"access_denied\"",
         CRES_ERR_HTTP_STATUS},
        {302, "<html>moved</html>", "tpu: token endpoint: HTTP 302 (a redirect: not followed", CRES_ERR_HTTP_STATUS},
        {200, "<html>sign in</html>", "token endpoint", CRES_ERR_UNEXPECTED_RESPONSE},
        {200, "{\"token_type\": \"Bearer\"}", "has no access_token", CRES_ERR_UNEXPECTED_RESPONSE},
        {200, "{\"access_token\": \"a b\"}", "access_token is empty, not one word or over 16 KiB", CRES_ERR_UNEXPECTED_RESPONSE},
        {200, "{\"access_token\": \"\"}", "access_token is empty, not one word or over 16 KiB", CRES_ERR_UNEXPECTED_RESPONSE},
        {200, "{\"access_token\": \"t\", \"expires_in\": -5}", "bad expires_in", CRES_ERR_UNEXPECTED_RESPONSE},
        {200, "{\"access_token\": \"t\", \"expires_in\": \"3599\"}", "bad expires_in", CRES_ERR_UNEXPECTED_RESPONSE},
        {200, "{\"access_token\": \"t\", \"expires_in\": 1e400}", "bad expires_in", CRES_ERR_UNEXPECTED_RESPONSE},
        {200, "{\"access_token\": \"t\", \"expires_in\": 0}", "bad expires_in", CRES_ERR_UNEXPECTED_RESPONSE},
        {200, "{\"access_token\": \"t\", \"expires_in\": 31622401}", "bad expires_in", CRES_ERR_UNEXPECTED_RESPONSE},
        {200, "{\"access_token\": 5}", "has no access_token", CRES_ERR_UNEXPECTED_RESPONSE},
        {400, "{\"error\": \"invalid_grant\"}", "\"invalid_grant\" ; run: gcloud auth application-default login",
         CRES_ERR_ENVIRONMENT},
        {400, "{\"message\": \"bad request\"}", "tpu: token endpoint: HTTP 400", CRES_ERR_HTTP_STATUS},
        {401, "Unauthorized", "tpu: token endpoint: HTTP 401", CRES_ERR_HTTP_STATUS},
    };
    size_t i;
    (void)state;
    env_set("GOOGLE_APPLICATION_CREDENTIALS", temp_named("adc.json", USER_FILE));
    for (i = 0; i < N(cases); i++) {
        cres_tpu_options o = adc_tpu_options();
        cres_error err;
        while (C.routes_count) free(C.routes[--C.routes_count].body);
        on("POST", TOKEN_URI, cases[i].status, cases[i].body);
        C.requests_count = 0;
        tpu(&o);
        err = resolve_fails(cases[i].want);
        if (!strstr(err.message, cases[i].message)) fail_msg("case %zu: %s", i, err.message);
        assert_int_equal(C.requests_count, 1); /* the API was never asked */
        if (cases[i].status != 200) assert_int_equal(err.http_status, cases[i].status);
    }
}

/* generateAccessToken's refusals and bad answers. */
static void adc_impersonation_errors(void **state) {
    static const struct {
        int status;
        const char *body, *message;
    } cases[] = {
        {403, "{\"error\": {\"code\": 403, \"message\": \"Permission 'iam.serviceAccounts.getAccessToken' denied\", "
              "\"status\": \"PERMISSION_DENIED\"}}",
         "tpu: 403 Forbidden: Permission 'iam.serviceAccounts.getAccessToken' denied"},
        {200, "{\"accessToken\": \"t\"}", "no accessToken or expireTime"},
        {200, "{\"accessToken\": \"t\", \"expireTime\": \"tomorrow\"}", "not an RFC 3339 time"},
        {200, "{\"accessToken\": \"t u\", \"expireTime\": \"2030-01-01T00:00:00Z\"}", "not one word"},
        {200, "{\"accessToken\": 5, \"expireTime\": \"2030-01-01T00:00:00Z\"}", "no accessToken or expireTime"},
        {200, "{\"accessToken\": \"t\", \"expireTime\": 1893456000}", "no accessToken or expireTime"},
        {200, "{\"expireTime\": \"2030-01-01T00:00:00Z\"}", "no accessToken or expireTime"},
    };
    size_t i;
    (void)state;
    env_set("GOOGLE_APPLICATION_CREDENTIALS", temp_named("imp.json", IMP_FILE(USER_FILE_WITH(""))));
    for (i = 0; i < N(cases); i++) {
        cres_tpu_options o = adc_tpu_options();
        cres_error err;
        o.project = "p1";
        while (C.routes_count) free(C.routes[--C.routes_count].body);
        on("POST", TOKEN_URI, 200, TOKEN_ANSWER(USER_TOKEN));
        on("POST", IAM_URL, cases[i].status, cases[i].body);
        C.requests_count = 0;
        tpu(&o);
        err = resolve_fails(cases[i].status == 200 ? CRES_ERR_UNEXPECTED_RESPONSE : CRES_ERR_HTTP_STATUS);
        if (!strstr(err.message, cases[i].message)) fail_msg("case %zu: %s", i, err.message);
        assert_int_equal(C.requests_count, 2);
    }
}

/* A 401 from the API: one new token, one more try; a second 401 is the answer. */
static void adc_401_renews_the_token_once(void **state) {
    cres_gce_options o = gce_options();
    cres_error err;
    (void)state;
    o.token = NULL;
    env_set("GOOGLE_APPLICATION_CREDENTIALS", temp_named("adc.json", USER_FILE));
    on("POST", TOKEN_URI, 200, TOKEN_ANSWER("ya29.first"))->times = 1;
    on("POST", TOKEN_URI, 200, TOKEN_ANSWER("ya29.second"));
    on("POST", GROUP_URL, 401, "{\"error\": {\"code\": 401, \"message\": \"Request had invalid authentication "
                               "credentials.\", \"status\": \"UNAUTHENTICATED\"}}")
        ->times = 1;
    serve_group(three_vms, 3);
    gce(&o);
    assert_string_equal(resolved(), dq(THREE_SPEC));
    assert_int_equal(C.requests_count, 5); /* token, 401, token, group, zone */
    assert_string_equal(header(1, "Authorization"), "Bearer ya29.first");
    assert_string_equal(url(2), TOKEN_URI);
    assert_string_equal(header(3, "Authorization"), "Bearer ya29.second");
    assert_string_equal(header(4, "Authorization"), "Bearer ya29.second");
    /* refused again: one renewal only, the 401 is the answer */
    while (C.routes_count) free(C.routes[--C.routes_count].body);
    on("POST", TOKEN_URI, 200, TOKEN_ANSWER("ya29.third"));
    on("POST", GROUP_URL, 401, "{\"error\": {\"code\": 401, \"message\": \"no\"}}");
    C.requests_count = 0;
    err = resolve_fails(CRES_ERR_HTTP_STATUS);
    assert_int_equal(err.http_status, 401);
    /* ya29.second was still fresh, kept from the first resolve: 401, one new token, 401 */
    assert_int_equal(C.requests_count, 3);
    assert_int_equal(requests_to(TOKEN_URI), 1);
}

/* A file's token is kept across resolves while fresh and while the file is the same. */
static void adc_token_kept_while_fresh(void **state) {
    cres_tpu_options o = adc_tpu_options();
    (void)state;
    env_set("GOOGLE_APPLICATION_CREDENTIALS", temp_named("adc.json", USER_FILE));
    on("POST", TOKEN_URI, 200, TOKEN_ANSWER(USER_TOKEN));
    serve_adc_node("quota-project");
    tpu(&o);
    resolved();
    resolved();
    assert_int_equal(requests_to(TOKEN_URI), 1);
    /* the file changed (another login): a new token */
    temp_named("adc.json", USER_FILE_WITH("\"quota_project_id\": \"quota-project\", \"x\": 1, "));
    resolved();
    assert_int_equal(requests_to(TOKEN_URI), 2);
    /* a token about to expire is not kept */
    while (C.routes_count) free(C.routes[--C.routes_count].body);
    on("POST", TOKEN_URI, 200, "{\"access_token\": \"short\", \"expires_in\": 60}");
    serve_adc_node("quota-project");
    C.requests_count = 0;
    tpu(&o);
    resolved();
    resolved();
    assert_int_equal(requests_to(TOKEN_URI), 2);
}

/* Without libcrypto (tests/impl.c) and without config.sign a key file says what to do. */
static void adc_key_without_signer(void **state) {
    cres_tpu_options o = adc_tpu_options();
    cres_error err;
    (void)state;
    C.config.sign.fn = NULL;
    o.credentials_file = temp_named("key.json", KEY_OBJECT);
    tpu(&o);
    err = resolve_fails(CRES_ERR_UNSUPPORTED);
    assert_string_equal(err.message, "tpu: options.credentials_file holds a service-account key: signing it "
                                     "(RS256) needs CLUSTER_RESOLVER_USE_OPENSSL (-lcrypto) or config.sign");
    assert_int_equal(C.requests_count, 0);
}

/* No refresh token, client secret, key, assertion or access token in any log line or error. */
static void adc_secrets_stay_secret(void **state) {
    static const char *const secrets[] = {REFRESH_SECRET, "0gRefresh", CLIENT_SECRET, "SECRETKEY", "ya29.", "eyJ"};
    static const char *const files[] = {USER_FILE, KEY_OBJECT, IMP_FILE(KEY_OBJECT)};
    size_t i, k;
    (void)state;
    log_text[0] = '\0';
    C.config.log.fn = log_all;
    for (i = 0; i < N(files) * 2; i++) {
        cres_tpu_options o = adc_tpu_options();
        cres_error err;
        o.project = "p1";
        while (C.routes_count) free(C.routes[--C.routes_count].body);
        on("POST", TOKEN_URI, 200, TOKEN_ANSWER(KEY_TOKEN));
        on("POST", IAM_URL, 200, "{\"accessToken\": \"" IMP_TOKEN "\", \"expireTime\": \"2030-01-01T00:00:00Z\"}");
        if (i < N(files)) serve_adc_node("p1"); /* then: the API refuses, twice */
        else on("GET", NODE_URL_IN("v2", "p1", TPU_ZONE, "test-tpu-1"), 401, "{\"error\": {\"code\": 401}}");
        env_put("GOOGLE_APPLICATION_CREDENTIALS", temp_named("adc.json", files[i % N(files)]));
        tpu(&o);
        if (i < N(files)) resolved();
        else {
            err = resolve_fails(CRES_ERR_HTTP_STATUS);
            for (k = 0; k < N(secrets); k++) assert_null(strstr(err.message, secrets[k]));
        }
    }
    assert_non_null(strstr(log_text, "credentials from GOOGLE_APPLICATION_CREDENTIALS"));
    assert_non_null(strstr(log_text, "trainer@key-project.iam.gserviceaccount.com"));
    for (k = 0; k < N(secrets); k++)
        if (strstr(log_text, secrets[k])) fail_msg("%s in the log:\n%s", secrets[k], log_text);
}

int main(void) {
    const struct CMUnitTest tests[] = {
#define T(f) cmocka_unit_test_setup_teardown(f, setup, teardown)
        /* Application Default Credentials */
        T(adc_authorized_user_refresh_grant),
        T(adc_service_account_jwt),
        T(adc_impersonated_from_each_source),
        T(adc_token_uri_on_this_machine),
        T(adc_sign_hook_failures_are_named),
        T(failures_without_an_error_struct),
        T(adc_key_without_id_and_no_delegates),
        T(adc_chain_order),
        T(adc_well_known_file_unreadable_is_an_error),
        T(adc_project_order),
        T(adc_off_cloud_errors_name_the_option),
        T(adc_unusable_files),
        T(adc_token_endpoint_errors),
        T(adc_impersonation_errors),
        T(adc_401_renews_the_token_once),
        T(adc_token_kept_while_fresh),
        T(adc_key_without_signer),
        T(adc_secrets_stay_secret),
        /* GCE */
        T(tf_g1_one_instance),
        T(tf_g2_master_of_task_0),
        T(tf_g3_master_with_rpc_layer_argument),
        T(tf_g4_set_task_id_and_rpc_layer),
        T(tf_g5_empty_job_name_refused),
        T(tf_g6_custom_job_and_port),
        T(tf_g7_three_instances),
        T(tf_g8_union_of_three_groups),
        T(order_is_instance_name_natural),
        T(zone_list_order_does_not_matter),
        T(request_count_constant_in_group_size),
        T(paging_of_both_lists),
        T(empty_page_token_ends_the_list),
        T(regional_group_lists_each_zone_once),
        T(regional_group_joins_by_zone_and_name),
        T(empty_group_is_an_empty_job),
        T(null_items_is_an_empty_group),
        T(member_missing_from_zone_list_is_not_ready),
        T(instance_without_network_interfaces_is_unexpected),
        T(empty_network_interfaces_is_unexpected),
        T(full_instance_objects_are_read_right),
        T(network_ip_with_a_space_is_unexpected),
        T(project_and_zone_from_metadata),
        T(project_and_zone_asked_once),
        T(project_and_zone_not_fetched_when_given),
        T(metadata_zone_without_slash_is_taken_whole),
        T(metadata_without_project_is_not_found),
        T(metadata_value_with_control_character_is_unexpected),
        T(metadata_project_not_a_resource_name_is_unexpected),
        T(metadata_url_option_and_environment),
        T(metadata_host_environment_before_ip),
        T(metadata_ip_environment),
        T(metadata_empty_names_and_untidy_answers),
        T(token_option_is_the_bearer),
        T(token_file_is_read_at_each_resolve),
        T(token_file_missing_is_environment_error),
        T(token_and_token_file_is_invalid),
        T(metadata_token_once_per_resolve_on_every_call),
        T(token_with_line_break_is_refused),
        T(token_file_with_inner_line_break_is_refused),
        T(metadata_token_with_line_break_is_refused),
        T(metadata_token_not_json_is_unexpected),
        T(metadata_token_without_access_token_is_unexpected),
        T(metadata_unreachable_is_not_on_google_cloud),
        T(metadata_timeout_is_not_on_google_cloud),
        T(config_settled_at_create_and_read_only),
        T(metadata_timeout_budget),
        T(metadata_timeout_shorter_config_wins),
        T(compute_calls_keep_the_configured_timeout),
        T(metadata_no_retry_when_retries_off),
        T(metadata_server_error_retried_once),
        T(own_task_from_metadata_instance_name),
        T(own_task_not_asked_off_google_cloud),
        T(own_task_asked_when_metadata_gave_the_project),
        T(own_task_asked_when_metadata_is_named),
        T(own_instance_name_option),
        T(own_instance_not_in_group_leaves_task_unknown),
        T(own_instance_name_404_leaves_task_unknown),
        T(own_instance_name_lost_fails),
        T(metadata_lost_after_answers_is_a_network_fault),
        T(options_task_wins_over_own_instance),
        T(rpc_layer_default_and_option),
        T(compute_url_option),
        T(zone_list_filter_and_fields),
        T(create_checks_names),
        T(unauthorized_401_mentions_the_token),
        T(forbidden_403_names_the_permission),
        T(forbidden_403_on_zone_list_names_its_permission),
        T(not_found_404_gives_the_message),
        T(server_error_500_retried_then_succeeds),
        T(server_error_500_exhausted),
        T(unavailable_503_honours_retry_after),
        T(malformed_group_list_json),
        T(truncated_group_list_json),
        T(empty_group_list_body),
        T(group_list_not_an_object),
        T(group_items_not_a_list),
        T(group_member_without_instance_url),
        T(group_member_url_without_zone),
        T(member_and_instance_shapes_are_checked),
        T(group_member_url_with_empty_zone_is_unexpected),
        T(group_member_zone_not_a_resource_name),
        T(malformed_zone_list_json),
        T(truncated_zone_list_json),
        T(endless_page_tokens_stop_at_the_page_limit),
        T(repeated_page_token_is_an_error),
        T(endless_zone_list_stops_at_the_page_limit),
        T(no_transport_is_no_transport_error),
        T(resolve_bound_shortens_the_request),
        T(retries_within_the_resolve_bound),
        T(transport_without_close_session),
        T(metadata_answers_that_are_not_usable),
        T(same_name_in_two_zones_ordered_by_zone),
        T(zone_list_items_without_a_usable_name_are_skipped),
        /* Cloud TPU */
        T(tf_c2_host_and_port),
        T(tf_c3_grpc_prefix),
        T(tf_c4_two_endpoints),
        T(tf_c5_two_grpc_endpoints),
        T(tf_c6_default_port),
        T(ipv6_endpoints_bracketed),
        T(malformed_endpoint_is_invalid),
        T(tf_c7_no_name_is_environment_error),
        T(tf_c10_name_from_environment),
        T(tf_c11_name_argument),
        T(tf_c12_grpc_name_needs_no_api),
        T(tf_c13_project_and_zone_given),
        T(metadata_token_for_the_tpu_api),
        T(tf_p3_ready_and_healthy),
        T(tf_p4_creating_is_not_ready),
        T(tf_p5_p7_coordinator_job),
        T(coordinator_without_address_is_invalid),
        T(tf_p6_nonexistent_tpu),
        T(tf_p8_p9_p15_four_endpoints),
        T(endpoints_in_api_order),
        T(tf_p12_grpc_name),
        T(tf_p13_kube_endpoints),
        T(tf_p14_kube_endpoints_before_tpu_name),
        T(endpoint_without_scheme_in_tpu_name),
        T(tf_c9_missing_state_is_not_ready),
        T(tf_c17_preempted_will_not_recover),
        T(terminated_will_not_recover),
        T(repairing_is_not_ready),
        T(unhealthy_is_not_ready_unless_allowed),
        T(ready_without_health_is_usable),
        T(tf_p3_top_level_ip_address),
        T(node_without_any_endpoint_is_unexpected),
        T(node_endpoint_errors_are_unexpected),
        T(node_fields_of_other_types),
        T(node_endpoint_port_out_of_range_is_named),
        T(node_ipv6_endpoint_bracketed),
        T(master_honours_rpc_layer),
        T(api_versions_v1_and_v2),
        T(tpu_url_option),
        T(tpu_name_not_a_resource_name_is_invalid),
        T(tpu_forbidden_403_names_the_permission),
        T(tpu_server_error_500_retried),
        T(tpu_metadata_unreachable_is_not_on_google_cloud),
        T(tpu_config_gives_name_project_and_zone),
        T(tpu_config_options_win),
        T(tpu_name_before_tpu_config),
        T(tpu_config_malformed_is_environment_error),
        T(tpu_config_over_the_document_limit_is_refused),
        T(tpu_name_variables_not_a_resource_name),
        T(tpu_config_project_not_a_resource_name),
        T(tpu_config_name_only_and_empty_variables),
        T(tpu_create_checks_project_and_zone),
        T(tpu_job_name_option),
        T(tpu_by_name_needs_a_transport),
        T(local_empty_sources_count_as_unset),
        T(local_metadata_host_name_endpoints),
        T(metadata_zone_dot_dot_is_refused),
        T(own_task_worker_id_from_environment),
        T(bad_worker_id_is_environment_error),
        T(local_from_environment),
        T(local_worker_id_past_the_workers_is_environment_error),
        T(local_worker_id_without_workers_is_environment_error),
        T(local_process_addresses_win),
        T(multislice_is_coordinator_only),
        T(multislice_bad_input_names_the_variable),
        T(local_from_metadata_plain_endpoints),
        T(local_from_metadata_named_endpoints),
        T(local_from_metadata_ipv6_endpoints),
        T(local_bad_agent_worker_number_is_unexpected),
        T(local_agent_worker_number_out_of_range_is_unexpected),
        T(webhook_tpu_name_beside_workers_is_local),
        T(local_empty_worker_id_is_worker_0),
        T(malformed_endpoint_lists_blame_their_source),
        T(local_with_nothing_is_empty),
        T(local_off_google_cloud_is_empty),
        T(local_with_workers_gets_the_coordinator),
        T(accelerators_per_host_by_type),
        T(unknown_accelerator_type_is_unsupported),
        T(accelerators_per_host_override),
#undef T
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
