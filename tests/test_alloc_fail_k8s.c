/* Allocation-failure injection for the Kubernetes resolver and the HTTP layer under it, with
   the technique of tests/test_alloc_fail.c in a self-contained, compact form.

   A counting test allocator fails the n-th allocation (n = 0, 1, 2, ...) of a scenario and
   counts the blocks still live. The fake transport allocates response bodies with the
   allocator it is handed, so those allocations are walked too (a failed one makes perform()
   answer CRES_ERR_OUT_OF_MEMORY, as a real transport would). For every n the scenario must
   end in its expected result or CRES_ERR_OUT_OF_MEMORY, leave no block allocated and free
   every block through the allocator that made it. The walk stops at the first n the scenario
   never reaches; that undisturbed run must give the expected result and content. Each
   scenario is walked twice: failing only allocation n, and failing n and every later one.

   Build: gcc -std=c99 ... tests/test_alloc_fail_k8s.c tests/impl.c -lcmocka */

#define _XOPEN_SOURCE 700 /* mkdtemp, unlink, rmdir */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../cluster_resolver.h"

#define N(a) (sizeof(a) / sizeof *(a))

/* ---------------------------------------------------------------------------------------
   The test allocator */

#include "alloc_walk.h"
#include "walk_files.h"

/* ---------------------------------------------------------------------------------------
   The fake API server: scripted answers served in order, bodies made with the allocator
   handed to perform() */

typedef struct answer {
    int status;
    const char *body;
} answer;

typedef struct fake_server {
    const answer *answers;
    size_t count, next;
} fake_server;

static cres_result fake_perform(void *user, const cres_http_request *req, cres_http_response *resp,
                                const cres_allocator *alloc, cres_error *err) {
    fake_server *s = (fake_server *)user;
    const answer *a;
    size_t n;
    (void)req;
    if (s->next >= s->count) {
        if (err) snprintf(err->message, sizeof err->message, "fake: no answer left");
        return CRES_ERR_TRANSPORT;
    }
    a = &s->answers[s->next++];
    n = strlen(a->body);
    resp->status = a->status;
    resp->body = (char *)alloc->alloc(alloc->user, n + 1);
    if (!resp->body) {
        if (err) snprintf(err->message, sizeof err->message, "fake: out of memory");
        return CRES_ERR_OUT_OF_MEMORY;
    }
    memcpy(resp->body, a->body, n + 1);
    resp->body_len = n;
    return CRES_OK;
}

static void no_sleep(void *user, int ms) {
    (void)user;
    (void)ms;
}

static const char *cluster_env(void *user, const char *name) {
    (void)user;
    if (strcmp(name, "KUBERNETES_SERVICE_HOST") == 0) return "10.96.0.1";
    if (strcmp(name, "KUBERNETES_SERVICE_PORT") == 0) return "443";
    return NULL;
}

/* ---------------------------------------------------------------------------------------
   Pods and pages (fields that a reader could trip on: annotations with JSON text, condition
   "status" fields, managedFields) */

#define POD(name, ip, extra_meta, spec)                                                                  \
    "{\"metadata\": {\"name\": \"" name "\", \"namespace\": \"ml\", \"labels\": {\"job-name\": \"tf\"}, " \
    "\"annotations\": {\"cni/status\": \"{\\\"ips\\\": [\\\"" ip "\\\"], \\\"name\\\": \\\"x\\\"}\"" extra_meta   \
    "}, \"managedFields\": [{\"manager\": \"kubelet\", \"fieldsV1\": {\"f:status\": {\"f:podIP\": {}}}}]}, "     \
    "\"spec\": {\"containers\": [{\"name\": \"tf\"}]" spec "}, "                                           \
    "\"status\": {\"conditions\": [{\"type\": \"Ready\", \"status\": \"True\"}], \"phase\": \"Running\", "      \
    "\"hostIP\": \"10.128.0.1\", \"podIP\": \"" ip "\"}}"
#define INDEXED(i) ", \"batch.kubernetes.io/job-completion-index\": \"" #i "\""
#define DNS(i) ", \"hostname\": \"worker-" #i "\", \"subdomain\": \"tf\""
#define PAGE(cont, items) \
    "{\"kind\": \"PodList\", \"apiVersion\": \"v1\", \"metadata\": {\"resourceVersion\": \"7\"" cont "}, \"items\": [" items "]}"
#define CONT(token) ", \"continue\": \"" token "\""

static const char page1[] = PAGE(CONT("tok/1"), POD("worker-1", "10.4.0.11", "", "") ", " POD("worker-0", "10.4.0.10", "", ""));
static const char page2[] = PAGE("", POD("worker-2", "fd00::12", "", ""));
static const char page_ps[] = PAGE("", POD("ps-0", "10.4.1.10", "", ""));
static const char page1_indexed[] =
    PAGE(CONT("t"), POD("worker-1-abcde", "10.4.0.11", INDEXED(1), DNS(1)) ", " POD("worker-0-fghij", "10.4.0.10", INDEXED(0), DNS(0)));
static const char page2_indexed[] = PAGE("", POD("worker-2-klmno", "10.4.0.12", INDEXED(2), DNS(2)));
static const char page_pending[] =
    PAGE("", "{\"metadata\": {\"name\": \"worker-0\"}, \"status\": {\"phase\": \"Pending\"}}");
static const char page_running[] = PAGE("", POD("worker-0", "10.4.0.10", "", ""));
static const char gone[] = "{\"kind\": \"Status\", \"status\": \"Failure\", \"reason\": \"Expired\", \"code\": 410}";
static const char busy[] = "{\"kind\": \"Status\", \"message\": \"etcd busy\", \"code\": 503}";
static const char forbidden[] =
    "{\"kind\": \"Status\", \"apiVersion\": \"v1\", \"status\": \"Failure\", \"message\": \"pods is forbidden: User "
    "\\\"system:serviceaccount:ml:default\\\" cannot list resource \\\"pods\\\"\", \"reason\": \"Forbidden\", \"code\": 403}";
static const char page_bad_item[] = PAGE("", POD("worker-5", "10.4.0.15", "", "") ", 42");

/* JobSet js: pod i of Job js-w-<job> (job-global-index <job>); `more` ends the labels. */
#define JS_POD_WITH(job, i, ip, more)                                                                                  \
    "{\"metadata\": {\"name\": \"js-w-" #job "-" #i "-x7k2p\", \"namespace\": \"ml\", \"labels\": {\"job-name\": "       \
    "\"js-w-" #job "\", \"jobset.sigs.k8s.io/jobset-name\": \"js\"" more "}, \"annotations\": "                              \
    "{\"batch.kubernetes.io/job-completion-index\": \"" #i "\", \"jobset.sigs.k8s.io/jobset-name\": \"js\"}}, "               \
    "\"spec\": {\"hostname\": \"js-w-" #job "-" #i "\", \"subdomain\": \"js\"}, "                                          \
    "\"status\": {\"phase\": \"Running\", \"podIP\": \"" ip "\"}}"
#define JS_POD(job, i, ip) JS_POD_WITH(job, i, ip, ", \"jobset.sigs.k8s.io/job-global-index\": \"" #job "\"")
static const char page_js1[] = PAGE(CONT("js/2"), JS_POD(1, 0, "10.4.2.12") ", " JS_POD(0, 1, "10.4.2.11"));
static const char page_js2[] = PAGE("", JS_POD(1, 1, "10.4.2.13") ", " JS_POD(0, 0, "10.4.2.10"));
static const char page_js_own_job[] = PAGE("", JS_POD(1, 1, "10.4.2.13") ", " JS_POD(1, 0, "10.4.2.12"));
static const char page_js_mixed[] = PAGE("", JS_POD(0, 0, "10.4.2.10") ", " POD("worker-0", "10.4.0.10", "", ""));
static const char page_js_no_global[] = PAGE("", JS_POD(0, 0, "10.4.2.10") ", " JS_POD_WITH(1, 0, "10.4.2.12", ""));
#define JS_SPEC "{\"worker\": [\"10.4.2.10:8470\", \"10.4.2.11:8470\", \"10.4.2.12:8470\", \"10.4.2.13:8470\"]}"
static const char page_truncated[] = "{\"kind\": \"PodList\", \"items\": [{\"metadata\": {\"name\": \"worker-5\"";

/* ---------------------------------------------------------------------------------------
   Temporary service-account files */

static char temp_dir[WALK_PATH_SIZE], token_path[WALK_PATH_SIZE], namespace_path[WALK_PATH_SIZE];

static const walk_file files[] = {
    {token_path, "token", "eyJhbGciOiJSUzI1NiJ9.token\n"},
    {namespace_path, "namespace", "ml\n"},
};

static int make_files(void **state) {
    (void)state;
    return walk_files_make(temp_dir, "/tmp/test_alloc_fail_k8s.XXXXXX", files, N(files));
}

static int remove_files(void **state) {
    (void)state;
    return walk_files_remove(temp_dir, files, N(files));
}

/* ---------------------------------------------------------------------------------------
   Scenarios */

typedef struct scenario {
    const char *name;
    const answer *answers;
    size_t answers_count;
    int in_cluster;           /* else options.server with options.token */
    const cres_k8s_job_selector *jobs;
    size_t jobs_count;
    cres_k8s_address address;
    int wait_ms;
    cres_result expected;
    const char *want_spec;    /* JSON, when expected is CRES_OK */
    const char *want_master;  /* master() of the own task after the resolve; NULL = none */
    const char *want_message; /* part of the message when the undisturbed run fails */
    int follow_jobset;
    const char *hostname;     /* NULL = "worker-1" */
} scenario;

static cres_result run_create(const scenario *sc, const cres_config *config, cres_resolver **r) {
    cres_k8s_options o;
    cres_error err;
    cres_result res;
    memset(&o, 0, sizeof o);
    o.config = config;
    o.jobs = sc->jobs;
    o.jobs_count = sc->jobs_count;
    o.address = sc->address;
    o.wait_ms = sc->wait_ms;
    o.follow_jobset = sc->follow_jobset;
    o.hostname = sc->hostname ? sc->hostname : "worker-1";
    if (sc->in_cluster) {
        o.token_file = token_path;
        o.namespace_file = namespace_path;
    } else {
        o.server = "https://k8s.test:6443";
        o.token = "static-token";
    }
    res = checked(cres_k8s_resolver_create(&o, r, &err), &err);
    if (res != CRES_OK && *r) return mismatch("create failed but returned a resolver", err.message);
    return res;
}

/* The message is checked on undisturbed runs only: when the allocation that reads the API's
   Status message fails, the error is still right but says less. */
static cres_result run_resolve(const scenario *sc, cres_resolver *r, const test_alloc *t) {
    cres_cluster_spec *spec = NULL;
    cres_error err;
    char json[1024];
    cres_result res = checked(cres_resolve(r, &spec, &err), &err);
    if (res != CRES_OK && spec) res = mismatch("resolve failed but returned a spec", err.message);
    if (res == CRES_OK && !sc->want_spec) res = mismatch("resolve succeeded", "no spec expected");
    if (res == CRES_OK && cres_spec_to_json(spec, json, sizeof json, NULL, &err) != CRES_OK)
        res = mismatch("to_json", err.message);
    if (res == CRES_OK && strcmp(json, sc->want_spec) != 0) res = mismatch("spec", json);
    if (res == sc->expected && res != CRES_OK && !t->triggered && sc->want_message &&
        !strstr(err.message, sc->want_message))
        res = mismatch("message", err.message);
    cres_spec_free(spec);
    return res;
}

static cres_result run_scenario(test_alloc *t, const void *ctx) {
    const scenario *sc = (const scenario *)ctx;
    fake_server server;
    cres_config config;
    cres_resolver *r = NULL;
    cres_result res;
    memset(&config, 0, sizeof config);
    test_alloc_use(&config.allocator, t);
    config.transport.perform = fake_perform;
    config.transport.user = &server;
    config.getenv.fn = cluster_env;
    config.sleep.fn = no_sleep;
    server.answers = sc->answers;
    server.count = sc->answers_count;
    server.next = 0;
    res = run_create(sc, &config, &r);
    if (res == CRES_OK) res = run_resolve(sc, r, t);
    if (res == CRES_OK && sc->want_master) res = check_master(r, sc->want_master);
    cres_resolver_free(r);
    return res;
}

/* ---------------------------------------------------------------------------------------
   The walk */

static void walk(const scenario *sc) { alloc_walk(sc->name, run_scenario, sc, sc->expected); }

/* ---------------------------------------------------------------------------------------
   Tests */

static const cres_k8s_job_selector two_jobs[] = {{"worker", "job-name=tf"}, {"ps", "job-name=ps"}};

/* In cluster (service variables, token and namespace files), worker over two pages, ps over
   one; master() resolves again (another three pages) and gives the own pod's address. */
static void in_cluster_two_pages_and_master(void **state) {
    static const answer answers[] = {{200, page1}, {200, page2}, {200, page_ps},
                                     {200, page1}, {200, page2}, {200, page_ps}};
    static const scenario sc = {"in-cluster, 2 pages, master", answers, N(answers), 1, two_jobs, N(two_jobs),
                                CRES_K8S_POD_IP, 0, CRES_OK,
                                "{\"ps\": [\"10.4.1.10:8470\"], \"worker\": [\"10.4.0.10:8470\", \"10.4.0.11:8470\", "
                                "\"[fd00::12]:8470\"]}",
                                "grpc://10.4.0.11:8470", NULL, 0, NULL};
    (void)state;
    walk(&sc);
}

/* A 503 retried, then a 403 whose Status message goes into the error. */
static void retry_then_forbidden(void **state) {
    static const answer answers[] = {{503, busy}, {403, forbidden}};
    static const scenario sc = {"503 then 403", answers, N(answers), 0, NULL, 0, CRES_K8S_POD_IP, 0,
                                CRES_ERR_HTTP_STATUS, NULL, NULL, "system:serviceaccount:ml:default", 0, NULL};
    (void)state;
    walk(&sc);
}

/* A 410 Gone on page 2: the list starts again; Indexed Job pods by DNS name. */
static void gone_restart(void **state) {
    static const answer answers[] = {{200, page1_indexed}, {410, gone}, {200, page1_indexed}, {200, page2_indexed}};
    static const scenario sc = {"410 restart", answers, N(answers), 1, NULL, 0, CRES_K8S_DNS, 0, CRES_OK,
                                "{\"worker\": [\"worker-0.tf.ml.svc.cluster.local:8470\", "
                                "\"worker-1.tf.ml.svc.cluster.local:8470\", \"worker-2.tf.ml.svc.cluster.local:8470\"]}",
                                NULL, NULL, 0, NULL};
    (void)state;
    walk(&sc);
}

static void malformed_second_page(void **state) {
    static const answer answers[] = {{200, page1}, {200, page_bad_item}};
    static const scenario sc = {"malformed page 2", answers, N(answers), 0, NULL, 0, CRES_K8S_POD_IP, 0,
                                CRES_ERR_UNEXPECTED_RESPONSE, NULL, NULL, "item 1 is not an object", 0, NULL};
    (void)state;
    walk(&sc);
}

static void truncated_second_page(void **state) {
    static const answer answers[] = {{200, page1}, {200, page_truncated}};
    static const scenario sc = {"truncated page 2", answers, N(answers), 0, NULL, 0, CRES_K8S_POD_IP, 0,
                                CRES_ERR_UNEXPECTED_RESPONSE, NULL, NULL, "invalid JSON", 0, NULL};
    (void)state;
    walk(&sc);
}

/* wait_ms: a Pending pod, a poll, then Running. */
static void wait_then_running(void **state) {
    static const answer answers[] = {{200, page_pending}, {200, page_running}};
    static const scenario sc = {"wait for Running", answers, N(answers), 0, NULL, 0, CRES_K8S_POD_IP, 60000, CRES_OK,
                                "{\"worker\": [\"10.4.0.10:8470\"]}", NULL, NULL, 0, NULL};
    (void)state;
    walk(&sc);
}

/* A JobSet over two pages, in job-global-index order; the own pod by its hostname. */
static void jobset_order(void **state) {
    static const cres_k8s_job_selector jobset[] = {{"worker", "jobset.sigs.k8s.io/jobset-name=js"}};
    static const answer answers[] = {{200, page_js1}, {200, page_js2}, {200, page_js1}, {200, page_js2}};
    static const scenario sc = {"JobSet order", answers, N(answers), 0, jobset, 1, CRES_K8S_POD_IP, 0, CRES_OK,
                                JS_SPEC, "grpc://10.4.2.12:8470", NULL, 0, "js-w-1-0"};
    (void)state;
    walk(&sc);
}

/* follow_jobset in cluster: the own Job's list, then the whole JobSet's over two pages
   (master() does it all again). */
static void follow_jobset(void **state) {
    static const cres_k8s_job_selector own_job[] = {{"worker", "job-name=js-w-1"}};
    static const answer answers[] = {{200, page_js_own_job}, {200, page_js1}, {200, page_js2},
                                     {200, page_js_own_job}, {200, page_js1}, {200, page_js2}};
    static const scenario sc = {"follow_jobset", answers, N(answers), 1, own_job, 1, CRES_K8S_POD_IP, 0, CRES_OK,
                                JS_SPEC, "grpc://10.4.2.12:8470", NULL, 1, "js-w-1-0"};
    (void)state;
    walk(&sc);
}

/* A job mixing a JobSet's pods with others; a JobSet pod without job-global-index. */
static void jobset_errors(void **state) {
    static const answer mixed[] = {{200, page_js_mixed}};
    static const answer no_global[] = {{200, page_js_own_job}, {200, page_js_no_global}};
    static const cres_k8s_job_selector own_job[] = {{"worker", "job-name=js-w-1"}};
    static const scenario sc_mixed = {"JobSet mixed with a Job", mixed, N(mixed), 0, NULL, 0, CRES_K8S_POD_IP, 0,
                                      CRES_ERR_CONFLICT, NULL, NULL, "(no JobSet)", 0, NULL};
    static const scenario sc_no_global = {"JobSet pod without job-global-index", no_global, N(no_global), 0, own_job,
                                          1, CRES_K8S_POD_IP, 0, CRES_ERR_UNEXPECTED_RESPONSE, NULL, NULL,
                                          "job-global-index is missing", 1, "js-w-1-1"};
    (void)state;
    walk(&sc_mixed);
    walk(&sc_no_global);
}

/* See alloc_walk_first_fails(). */
static void allocator_fails_the_first_allocation(void **state) {
    static const answer answers[] = {{200, page_running}};
    static const scenario sc = {"first allocation", answers, N(answers), 0, NULL, 0, CRES_K8S_POD_IP, 0, CRES_OK,
                                "{\"worker\": [\"10.4.0.10:8470\"]}", NULL, NULL, 0, NULL};
    (void)state;
    alloc_walk_first_fails(run_scenario, &sc);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(allocator_fails_the_first_allocation),
        cmocka_unit_test(in_cluster_two_pages_and_master),
        cmocka_unit_test(retry_then_forbidden),
        cmocka_unit_test(gone_restart),
        cmocka_unit_test(malformed_second_page),
        cmocka_unit_test(truncated_second_page),
        cmocka_unit_test(wait_then_running),
        cmocka_unit_test(jobset_order),
        cmocka_unit_test(follow_jobset),
        cmocka_unit_test(jobset_errors),
    };
    return cmocka_run_group_tests(tests, make_files, remove_files);
}
