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

   The kubeconfig scenarios read JSON files (a $KUBECONFIG list of two merged files; one
   with an exec user) and compare every request of every run whole (URL, headers, TLS
   material): a failed allocation must never change what is sent. Their exec plugin is a
   fake config.exec hook that makes its output with the allocator it is handed, so those
   allocations are walked too.

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
   handed to perform(); when the scenario says what each request must be, every request of
   every run (a failed allocation must never change what is sent) is compared with it */

typedef struct answer {
    int status;
    const char *body;
} answer;

typedef struct fake_server {
    const answer *answers;
    size_t count, next;
    const char *const *want_requests; /* each request as request_text() writes it; NULL = any */
    char wrong[2048];                 /* the first request that differed; "" = none */
} fake_server;

/* Appends to buf (cap bytes, *used of them taken), cutting what does not fit. */
static void append(char *buf, size_t cap, size_t *used, const char *fmt, ...) {
    va_list ap;
    int n;
    if (*used + 1 >= cap) return;
    va_start(ap, fmt);
    n = vsnprintf(buf + *used, cap - *used, fmt, ap);
    va_end(ap);
    if (n > 0) *used = *used + (size_t)n < cap ? *used + (size_t)n : cap - 1;
}

/* The request a line each: the URL, each header "Name: value", then with TLS material its
   fields ("-" when absent; PEM text keeps its own line breaks). */
static void request_text(const cres_http_request *req, char *buf, size_t cap) {
    size_t used = 0, i;
    const cres_http_tls *tls = req->tls;
    buf[0] = '\0';
    append(buf, cap, &used, "%s %s\n", req->method, req->url);
    for (i = 0; i < req->headers_count; i++)
        append(buf, cap, &used, "%s: %s\n", req->headers[i].name, req->headers[i].value);
    if (tls)
        append(buf, cap, &used, "ca: %s\ncert: %s\nkey: %s\nserver name: %s\nproxy: %s\ninsecure: %d\n",
               tls->ca_pem ? tls->ca_pem : "-", tls->client_cert_pem ? tls->client_cert_pem : "-",
               tls->client_key_pem ? tls->client_key_pem : "-", tls->server_name ? tls->server_name : "-",
               tls->proxy ? tls->proxy : "-", tls->insecure_skip_verify);
}

static void check_request(fake_server *s, const cres_http_request *req, size_t n) {
    char got[2048];
    if (!s->want_requests || s->wrong[0]) return;
    request_text(req, got, sizeof got);
    if (strcmp(got, s->want_requests[n]) != 0)
        snprintf(s->wrong, sizeof s->wrong, "request %zu is\n%s\nwant\n%s", n, got, s->want_requests[n]);
}

static cres_result fake_perform(void *user, const cres_http_request *req, cres_http_response *resp,
                                const cres_allocator *alloc, cres_error *err) {
    fake_server *s = (fake_server *)user;
    const answer *a;
    size_t n;
    if (s->next >= s->count) {
        if (err) snprintf(err->message, sizeof err->message, "fake: no answer left");
        return CRES_ERR_TRANSPORT;
    }
    check_request(s, req, s->next);
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
   Kubeconfig files (JSON: build/impl.o has no CLUSTER_RESOLVER_USE_YAML) and what they name

   $KUBECONFIG lists kube-a.json, then kube-b.json. The first wins each entry whole and the
   current-context: context "train" (namespace ml) and user "jane" (a relative token file,
   client certificate and key as data, impersonation with two groups) come from kube-a;
   cluster "prod" (a CA file relative to kube-b, a TLS server name) from kube-b, whose own
   "train", "jane" and current-context lose. kube-exec.json (options.kubeconfig) has a user
   whose exec plugin (a relative command, args, env, provideClusterInfo) is the fake below,
   and a cluster with CA data and the exec extension. The PEM blocks hold what the loader
   checks (one whole DER SEQUENCE: of a UTF8String "walk ca", "walk client", "walk key"). */

#define CA_PEM "-----BEGIN CERTIFICATE-----\nMAkMB3dhbGsgY2E=\n-----END CERTIFICATE-----\n"
#define CA_DATA "LS0tLS1CRUdJTiBDRVJUSUZJQ0FURS0tLS0tCk1Ba01CM2RoYkdzZ1kyRT0KLS0tLS1FTkQgQ0VSVElGSUNBVEUtLS0tLQo="
#define CERT_PEM "-----BEGIN CERTIFICATE-----\nMA0MC3dhbGsgY2xpZW50\n-----END CERTIFICATE-----\n"
#define CERT_DATA "LS0tLS1CRUdJTiBDRVJUSUZJQ0FURS0tLS0tCk1BME1DM2RoYkdzZ1kyeHBaVzUwCi0tLS0tRU5EIENFUlRJRklDQVRFLS0tLS0K"
#define KEY_PEM "-----BEGIN EC PRIVATE KEY-----\nMAoMCHdhbGsga2V5\n-----END EC PRIVATE KEY-----\n"
#define KEY_DATA "LS0tLS1CRUdJTiBFQyBQUklWQVRFIEtFWS0tLS0tCk1Bb01DSGRoYkdzZ2EyVjUKLS0tLS1FTkQgRUMgUFJJVkFURSBLRVktLS0tLQo="
#define EXEC_V1 "client.authentication.k8s.io/v1"

static const char kube_a[] =
    "{\"apiVersion\": \"v1\", \"kind\": \"Config\", \"current-context\": \"train\", \"preferences\": {},\n"
    " \"contexts\": [{\"name\": \"train\", \"context\": {\"cluster\": \"prod\", \"user\": \"jane\", \"namespace\": \"ml\"}}],\n"
    " \"users\": [{\"name\": \"jane\", \"user\": {\"tokenFile\": \"jane.token\",\n"
    "   \"client-certificate-data\": \"" CERT_DATA "\",\n"
    "   \"client-key-data\": \"" KEY_DATA "\",\n"
    "   \"as\": \"ml-bot\", \"as-groups\": [\"ml-team\", \"system:authenticated\"]}}]}\n";
static const char kube_b[] =
    "{\"apiVersion\": \"v1\", \"kind\": \"Config\", \"current-context\": \"other\",\n"
    " \"clusters\": [{\"name\": \"prod\", \"cluster\": {\"server\": \"https://k8s.test:6443/\",\n"
    "   \"certificate-authority\": \"ca.pem\", \"tls-server-name\": \"api.internal\"}}],\n"
    " \"contexts\": [{\"name\": \"train\", \"context\": {\"cluster\": \"prod\", \"user\": \"jane\"}},\n"
    "   {\"name\": \"other\", \"context\": {\"cluster\": \"prod\"}}],\n"
    " \"users\": [{\"name\": \"jane\", \"user\": {\"token\": \"from-kube-b\"}}]}\n";
#define EXEC_EXTENSION "{\"audience\": \"ml-walk\", \"scopes\": [\"read\", \"list\"]}"
static const char kube_exec[] =
    "{\"apiVersion\": \"v1\", \"kind\": \"Config\", \"current-context\": \"gke\",\n"
    " \"clusters\": [{\"name\": \"gke_ml\", \"cluster\": {\"server\": \"https://k8s.test:6443\",\n"
    "   \"certificate-authority-data\": \"" CA_DATA "\",\n"
    "   \"extensions\": [{\"name\": \"other/extension\", \"extension\": {\"x\": 1}},\n"
    "     {\"name\": \"client.authentication.k8s.io/exec\", \"extension\": " EXEC_EXTENSION "}]}}],\n"
    " \"contexts\": [{\"name\": \"gke\", \"context\": {\"cluster\": \"gke_ml\", \"user\": \"plugin\", \"namespace\": \"ml\"}}],\n"
    " \"users\": [{\"name\": \"plugin\", \"user\": {\"exec\": {\"apiVersion\": \"" EXEC_V1 "\",\n"
    "   \"command\": \"bin/get-token\", \"args\": [\"--cluster\", \"gke_ml\", \"--audience\", \"ml-walk\"],\n"
    "   \"env\": [{\"name\": \"TOKEN_PROFILE\", \"value\": \"ml\"}, {\"name\": \"HOME\", \"value\": \"/plugin-home\"}],\n"
    "   \"provideClusterInfo\": true, \"interactiveMode\": \"IfAvailable\", \"installHint\": \"install get-token\"}}}]}\n";

/* ---------------------------------------------------------------------------------------
   Temporary files: the service account's, the kubeconfigs and the files they name */

static char temp_dir[WALK_PATH_SIZE], token_path[WALK_PATH_SIZE], namespace_path[WALK_PATH_SIZE];
static char kube_a_path[WALK_PATH_SIZE], kube_b_path[WALK_PATH_SIZE], kube_exec_path[WALK_PATH_SIZE];
static char ca_path[WALK_PATH_SIZE], jane_token_path[WALK_PATH_SIZE];
static char kubeconfig_list[2 * WALK_PATH_SIZE]; /* $KUBECONFIG: kube-a.json:kube-b.json */

static const walk_file files[] = {
    {token_path, "token", "eyJhbGciOiJSUzI1NiJ9.token\n"},
    {namespace_path, "namespace", "ml\n"},
    {kube_a_path, "kube-a.json", kube_a},
    {kube_b_path, "kube-b.json", kube_b},
    {kube_exec_path, "kube-exec.json", kube_exec},
    {ca_path, "ca.pem", CA_PEM},
    {jane_token_path, "jane.token", "jane-token-from-file\n"},
};

static int make_files(void **state) {
    (void)state;
    if (walk_files_make(temp_dir, "/tmp/test_alloc_fail_k8s.XXXXXX", files, N(files)) != 0) return -1;
    snprintf(kubeconfig_list, sizeof kubeconfig_list, "%s:%s", kube_a_path, kube_b_path);
    return 0;
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
    memset(&server, 0, sizeof server);
    server.answers = sc->answers;
    server.count = sc->answers_count;
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

/* ---------------------------------------------------------------------------------------
   Members JOB: in an Indexed Job's pod (JOB_COMPLETION_INDEX, hostname "<job>-<index>") one
   GET of the own Job, and of its JobSet, names every member by DNS; a 403 or 404 leaves the
   answer to the list. The Jobs and the JobSet are tests/k8s/make_pods.py's make_job,
   make_jobset_jobs and make_jobset (kube-apiserver 1.32, JobSet v0.8.2) in namespace ml,
   trimmed: Indexed Job trainer of 3 pods, and JobSet js of one replicated job "w" of 2 Jobs
   of 2 pods, the Jobs and pods of JS_POD above. Every request of every run is compared
   whole; the undisturbed run's log says where the members came from. */

#define UID_TRAINER "4581dafc-2189-4b8e-96a6-5f9dc5dc50ec"
#define UID_JS_W_1 "385ab59b-c27d-49a3-8de7-489a381d35a4"
#define UID_JS "e026b623-3942-4732-ae7a-a7be506b8112"
#define JOB_LABELS(uid, job)                                                                           \
    "\"batch.kubernetes.io/controller-uid\": \"" uid "\", \"batch.kubernetes.io/job-name\": \"" job "\", " \
    "\"controller-uid\": \"" uid "\", \"job-name\": \"" job "\""
#define JS_W_1_KEYS                                                                                    \
    "\"jobset.sigs.k8s.io/global-replicas\": \"2\", \"jobset.sigs.k8s.io/job-global-index\": \"1\", "      \
    "\"jobset.sigs.k8s.io/job-index\": \"1\", \"jobset.sigs.k8s.io/job-key\": "                            \
    "\"1b0266ecfa5885b2d0a688b2b7c94c6bd52d3d94\", \"jobset.sigs.k8s.io/jobset-name\": \"js\", "           \
    "\"jobset.sigs.k8s.io/replicatedjob-name\": \"w\", \"jobset.sigs.k8s.io/replicatedjob-replicas\": "    \
    "\"2\", \"jobset.sigs.k8s.io/restart-attempt\": \"0\""
/* Job `name` of n pods: its metadata's labels and more (meta), its template's (pod_meta). */
#define JOB_BODY(name, uid, meta, pod_meta, n, subdomain)                                              \
    "{\"kind\": \"Job\", \"apiVersion\": \"batch/v1\", \"metadata\": {\"name\": \"" name "\", "            \
    "\"namespace\": \"ml\", \"uid\": \"" uid "\", \"resourceVersion\": \"45112604\", \"generation\": 1, "  \
    "\"creationTimestamp\": \"2026-01-15T09:29:58Z\", " meta "}, \"spec\": {\"parallelism\": " #n ", "     \
    "\"completions\": " #n ", \"backoffLimit\": 6, \"selector\": {\"matchLabels\": "                        \
    "{\"batch.kubernetes.io/controller-uid\": \"" uid "\"}}, \"manualSelector\": false, \"template\": "    \
    "{\"metadata\": {\"creationTimestamp\": null, " pod_meta "}, \"spec\": {\"containers\": [{\"name\": "   \
    "\"tensorflow\", \"image\": \"tensorflow/tensorflow:2.15.0\", \"ports\": [{\"name\": \"grpc\", "       \
    "\"containerPort\": 2222, \"protocol\": \"TCP\"}]}], \"restartPolicy\": \"Never\", "                  \
    "\"terminationGracePeriodSeconds\": 30, \"dnsPolicy\": \"ClusterFirst\", \"securityContext\": {}, "    \
    "\"subdomain\": \"" subdomain "\", \"schedulerName\": \"default-scheduler\"}}, \"completionMode\": "   \
    "\"Indexed\", \"suspend\": false, \"podReplacementPolicy\": \"TerminatingOrFailed\"}, \"status\": "     \
    "{\"startTime\": \"2026-01-15T09:29:58Z\", \"active\": " #n ", \"terminating\": 0, "                   \
    "\"uncountedTerminatedPods\": {}, \"ready\": " #n "}}"
#define TRAINER_LABELS "\"labels\": {" JOB_LABELS(UID_TRAINER, "trainer") "}"
static const char job_trainer[] = JOB_BODY("trainer", UID_TRAINER, TRAINER_LABELS, TRAINER_LABELS, 3, "trainer");
static const char job_js_w_1[] =
    JOB_BODY("js-w-1", UID_JS_W_1,
             "\"labels\": {" JS_W_1_KEYS "}, \"annotations\": {" JS_W_1_KEYS "}, \"ownerReferences\": "
             "[{\"apiVersion\": \"jobset.x-k8s.io/v1alpha2\", \"kind\": \"JobSet\", \"name\": \"js\", \"uid\": "
             "\"" UID_JS "\", \"controller\": true, \"blockOwnerDeletion\": true}]",
             "\"labels\": {" JOB_LABELS(UID_JS_W_1, "js-w-1") ", " JS_W_1_KEYS "}, \"annotations\": {" JS_W_1_KEYS "}",
             2, "js");
/* As apiextensions-apiserver serves a custom resource: keys sorted. */
static const char jobset_js[] =
    "{\"apiVersion\": \"jobset.x-k8s.io/v1alpha2\", \"kind\": \"JobSet\", \"metadata\": {\"creationTimestamp\": "
    "\"2026-01-15T09:29:57Z\", \"generation\": 1, \"name\": \"js\", \"namespace\": \"ml\", \"resourceVersion\": "
    "\"42422214\", \"uid\": \"" UID_JS "\"}, \"spec\": {\"network\": {\"enableDNSHostnames\": true, "
    "\"publishNotReadyAddresses\": true}, \"replicatedJobs\": [{\"name\": \"w\", \"replicas\": 2, \"template\": "
    "{\"metadata\": {}, \"spec\": {\"completionMode\": \"Indexed\", \"completions\": 2, \"parallelism\": 2, "
    "\"template\": {\"metadata\": {}, \"spec\": {\"containers\": [{\"image\": \"tensorflow/tensorflow:2.15.0\", "
    "\"name\": \"tensorflow\", \"ports\": [{\"containerPort\": 2222, \"name\": \"grpc\", \"protocol\": \"TCP\"}]}], "
    "\"restartPolicy\": \"Never\"}}}}}], \"startupPolicy\": {\"startupPolicyOrder\": \"AnyOrder\"}, "
    "\"successPolicy\": {\"operator\": \"All\"}}, \"status\": {\"replicatedJobsStatus\": [{\"active\": 2, "
    "\"failed\": 0, \"name\": \"w\", \"ready\": 2, \"succeeded\": 0, \"suspended\": 0}]}}";
static const char job_forbidden[] =
    "{\"kind\": \"Status\", \"apiVersion\": \"v1\", \"metadata\": {}, \"status\": \"Failure\", \"message\": "
    "\"jobs.batch \\\"trainer\\\" is forbidden: User \\\"system:serviceaccount:ml:default\\\" cannot get resource "
    "\\\"jobs\\\" in API group \\\"batch\\\" in the namespace \\\"ml\\\"\", \"reason\": \"Forbidden\", \"details\": "
    "{\"name\": \"trainer\", \"group\": \"batch\", \"kind\": \"jobs\"}, \"code\": 403}";
static const char jobset_not_found[] =
    "{\"kind\": \"Status\", \"apiVersion\": \"v1\", \"metadata\": {}, \"status\": \"Failure\", \"message\": "
    "\"jobsets.jobset.x-k8s.io \\\"js\\\" not found\", \"reason\": \"NotFound\", \"details\": {\"name\": \"js\", "
    "\"group\": \"jobset.x-k8s.io\", \"kind\": \"jobsets\"}, \"code\": 404}";
/* Job trainer's pod i, as make_pods() makes it (trimmed). */
#define TRAINER_POD(i, ip)                                                                             \
    "{\"metadata\": {\"name\": \"trainer-" #i "-rhvwf\", \"generateName\": \"trainer-" #i "-\", "             \
    "\"namespace\": \"ml\", \"labels\": {\"batch.kubernetes.io/controller-uid\": \"" UID_TRAINER "\", "    \
    "\"batch.kubernetes.io/job-completion-index\": \"" #i "\", \"batch.kubernetes.io/job-name\": "         \
    "\"trainer\", \"controller-uid\": \"" UID_TRAINER "\", \"job-name\": \"trainer\"}, \"annotations\": "  \
    "{\"batch.kubernetes.io/job-completion-index\": \"" #i "\"}}, \"spec\": {\"containers\": [{\"name\": " \
    "\"tensorflow\"}], \"hostname\": \"trainer-" #i "\", \"subdomain\": \"trainer\"}, \"status\": "        \
    "{\"phase\": \"Running\", \"conditions\": [{\"type\": \"Ready\", \"status\": \"True\"}], "             \
    "\"hostIP\": \"10.128.0.2\", \"podIP\": \"" ip "\", \"podIPs\": [{\"ip\": \"" ip "\"}]}}"
static const char page_trainer[] =
    PAGE("", TRAINER_POD(2, "10.4.5.12") ", " TRAINER_POD(0, "10.4.5.10") ", " TRAINER_POD(1, "10.4.5.11"));

typedef struct job_scenario {
    scenario base;                    /* answers, jobs, expected, want_spec, want_master, follow_jobset, hostname */
    const char *completion_index;     /* $JOB_COMPLETION_INDEX */
    const char *const *want_requests; /* each request, as request_text() writes it */
    const char *want_log;             /* part of an INFO line of the first resolve */
    const char *want_task;            /* the own task after it, "worker 1" */
} job_scenario;

typedef struct log_watch {
    const char *want;
    int seen;
} log_watch;

static void watch_log(void *user, cres_log_level level, const char *message) {
    log_watch *w = (log_watch *)user;
    if (level == CRES_LOG_INFO && strstr(message, w->want)) w->seen = 1;
}

static const char *job_env(void *user, const char *name) {
    const job_scenario *js = (const job_scenario *)user;
    return strcmp(name, "JOB_COMPLETION_INDEX") == 0 ? js->completion_index : NULL;
}

static cres_result run_job(test_alloc *t, const void *ctx) {
    const job_scenario *js = (const job_scenario *)ctx;
    const scenario *sc = &js->base;
    fake_server server;
    log_watch watch;
    cres_config config;
    cres_k8s_options o;
    cres_resolver *r = NULL;
    cres_error err;
    cres_result res;
    char task[300], count[32];
    memset(&server, 0, sizeof server);
    server.answers = sc->answers;
    server.count = sc->answers_count;
    server.want_requests = js->want_requests;
    watch.want = js->want_log;
    watch.seen = 0;
    memset(&config, 0, sizeof config);
    test_alloc_use(&config.allocator, t);
    config.transport.perform = fake_perform;
    config.transport.user = &server;
    config.getenv.fn = job_env;
    config.getenv.user = (void *)js;
    config.sleep.fn = no_sleep;
    config.log.fn = watch_log;
    config.log.user = &watch;
    memset(&o, 0, sizeof o);
    o.config = &config;
    o.server = "https://k8s.test:6443";
    o.token = "static-token";
    o.namespace_name = "ml";
    o.jobs = sc->jobs;
    o.jobs_count = sc->jobs_count;
    o.members = CRES_K8S_MEMBERS_JOB;
    o.follow_jobset = sc->follow_jobset;
    o.hostname = sc->hostname;
    res = checked(cres_k8s_resolver_create(&o, &r, &err), &err);
    if (res != CRES_OK && r) res = mismatch("create failed but returned a resolver", err.message);
    if (res == CRES_OK) res = run_resolve(sc, r, t);
    if (res == CRES_OK && !watch.seen) res = mismatch("no log line saying", js->want_log);
    snprintf(task, sizeof task, "%s %d", r && cres_task_type(r) ? cres_task_type(r) : "-", r ? cres_task_id(r) : -1);
    if (res == CRES_OK && strcmp(task, js->want_task) != 0) res = mismatch("own task", task);
    if (res == CRES_OK) res = check_master(r, sc->want_master);
    cres_resolver_free(r);
    if (server.wrong[0]) return mismatch("request", server.wrong);
    snprintf(count, sizeof count, "%zu requests", server.next);
    if (res == CRES_OK && server.next != sc->answers_count) res = mismatch("requests", count);
    return res;
}

static void walk_job(const job_scenario *js) { alloc_walk(js->base.name, run_job, js, js->base.expected); }

#define GET(path) "GET https://k8s.test:6443" path "\nAccept: application/json\nAuthorization: Bearer static-token\n"
#define JOB_GET(name) GET("/apis/batch/v1/namespaces/ml/jobs/" name)
#define JOBSET_GET(name) GET("/apis/jobset.x-k8s.io/v1alpha2/namespaces/ml/jobsets/" name)
#define PODS_GET(query) GET("/api/v1/namespaces/ml/pods?labelSelector=" query)
#define TRAINER_DNS(i) "\"trainer-" #i ".trainer.ml.svc.cluster.local:8470\""
#define JS_DNS(job, i) "\"js-w-" #job "-" #i ".js.ml.svc.cluster.local:8470\""

/* A plain Indexed Job named from one GET (master() resolves again: another). */
static void members_job_named_from_the_job(void **state) {
    static const cres_k8s_job_selector trainer[] = {{"worker", "job-name=trainer"}};
    static const answer answers[] = {{200, job_trainer}, {200, job_trainer}};
    static const char *const requests[] = {JOB_GET("trainer"), JOB_GET("trainer")};
    static const job_scenario js = {
        {"members JOB: an Indexed Job", answers, N(answers), 0, trainer, N(trainer), CRES_K8S_POD_IP, 0, CRES_OK,
         "{\"worker\": [" TRAINER_DNS(0) ", " TRAINER_DNS(1) ", " TRAINER_DNS(2) "]}",
         "grpc://trainer-1.trainer.ml.svc.cluster.local:8470", NULL, 0, "trainer-1"},
        "1", requests, "3 members named from Job \"trainer\" (subdomain \"trainer\")", "worker 1"};
    (void)state;
    walk_job(&js);
}

/* A JobSet's Job following its JobSet: two GETs name the JobSet's members, in its order. */
static void members_job_named_from_the_jobset(void **state) {
    static const cres_k8s_job_selector own_job[] = {{"worker", "job-name=js-w-1"}};
    static const answer answers[] = {{200, job_js_w_1}, {200, jobset_js}, {200, job_js_w_1}, {200, jobset_js}};
    static const char *const requests[] = {JOB_GET("js-w-1"), JOBSET_GET("js"), JOB_GET("js-w-1"), JOBSET_GET("js")};
    static const job_scenario js = {
        {"members JOB: a JobSet", answers, N(answers), 0, own_job, N(own_job), CRES_K8S_POD_IP, 0, CRES_OK,
         "{\"worker\": [" JS_DNS(0, 0) ", " JS_DNS(0, 1) ", " JS_DNS(1, 0) ", " JS_DNS(1, 1) "]}",
         "grpc://js-w-1-0.js.ml.svc.cluster.local:8470", NULL, 1, "js-w-1-0"},
        "0", requests, "4 members named from JobSet \"js\" (subdomain \"js\")", "worker 2"};
    (void)state;
    walk_job(&js);
}

/* The role may not get Jobs: a 403, logged, and the list answers. */
static void members_job_forbidden_lists(void **state) {
    static const cres_k8s_job_selector trainer[] = {{"worker", "job-name=trainer"}};
    static const answer answers[] = {{403, job_forbidden}, {200, page_trainer}, {403, job_forbidden},
                                     {200, page_trainer}};
#define TRAINER_PODS PODS_GET("job-name%3Dtrainer&limit=500")
    static const char *const requests[] = {JOB_GET("trainer"), TRAINER_PODS, JOB_GET("trainer"), TRAINER_PODS};
#undef TRAINER_PODS
    static const job_scenario js = {
        {"members JOB: 403 on the Job", answers, N(answers), 0, trainer, N(trainer), CRES_K8S_POD_IP, 0, CRES_OK,
         "{\"worker\": [\"10.4.5.10:8470\", \"10.4.5.11:8470\", \"10.4.5.12:8470\"]}", "grpc://10.4.5.11:8470", NULL,
         0, "trainer-1"},
        "1", requests, "listing pods, since getting jobs \"trainer\": forbidden (403", "worker 1"};
    (void)state;
    walk_job(&js);
}

/* The selector is the JobSet's, which is not there (yet): a 404, logged, and the list of its
   pods answers over two pages. */
static void members_job_jobset_not_found_lists(void **state) {
    static const cres_k8s_job_selector jobset[] = {{"worker", "jobset.sigs.k8s.io/jobset-name=js"}};
    static const answer answers[] = {{200, job_js_w_1}, {404, jobset_not_found}, {200, page_js1}, {200, page_js2},
                                     {200, job_js_w_1}, {404, jobset_not_found}, {200, page_js1}, {200, page_js2}};
#define JS_PODS(more) PODS_GET("jobset.sigs.k8s.io%2Fjobset-name%3Djs&limit=500" more)
#define JS_REQUESTS JOB_GET("js-w-1"), JOBSET_GET("js"), JS_PODS(""), JS_PODS("&continue=js%2F2")
    static const char *const requests[] = {JS_REQUESTS, JS_REQUESTS};
#undef JS_REQUESTS
#undef JS_PODS
    static const job_scenario js = {
        {"members JOB: 404 on the JobSet", answers, N(answers), 0, jobset, N(jobset), CRES_K8S_POD_IP, 0, CRES_OK,
         JS_SPEC, "grpc://10.4.2.12:8470", NULL, 0, "js-w-1-0"},
        "0", requests, "listing pods, since getting jobsets \"js\": not found (404)", "worker 2"};
    (void)state;
    walk_job(&js);
}

/* ---------------------------------------------------------------------------------------
   Kubeconfig scenarios: the create reads the files, every resolve sends their credentials
   and TLS material (each request compared whole), and an exec plugin runs through the
   config.exec hook: a fake that makes its stdout and stderr with the allocator it is
   handed, so those allocations are walked too */

typedef struct fake_plugin {
    const char *const *outputs; /* the ExecCredential each run prints, in order */
    size_t count, runs;
    const char *want_argv;      /* argv a line each, the temporary directory as $DIR */
    const char *want_env;       /* envp a line each */
    char wrong[2048];           /* the first run whose argv or envp differed; "" = none */
} fake_plugin;

#define PLUGIN_STDERR "note: token for gke_ml\nI0101 cached in /plugin-home\n"

static char *copy_text(const cres_allocator *a, const char *text, size_t *len) {
    char *p;
    *len = strlen(text);
    if (!(p = (char *)a->alloc(a->user, *len + 1))) return NULL;
    memcpy(p, text, *len + 1);
    return p;
}

static void plugin_check(fake_plugin *p, const cres_exec_request *req) {
    char argv[1024], envp[2048];
    size_t used = 0, i, dir = strlen(temp_dir);
    argv[0] = '\0';
    for (i = 0; req->argv[i]; i++)
        if (i == 0 && strncmp(req->argv[0], temp_dir, dir) == 0)
            append(argv, sizeof argv, &used, "$DIR%s\n", req->argv[0] + dir);
        else
            append(argv, sizeof argv, &used, "%s\n", req->argv[i]);
    used = 0;
    envp[0] = '\0';
    for (i = 0; req->envp[i]; i++) append(envp, sizeof envp, &used, "%s\n", req->envp[i]);
    if (p->wrong[0]) return;
    if (strcmp(argv, p->want_argv) != 0)
        snprintf(p->wrong, sizeof p->wrong, "run %zu: argv\n%s\nwant\n%s", p->runs, argv, p->want_argv);
    else if (strcmp(envp, p->want_env) != 0)
        snprintf(p->wrong, sizeof p->wrong, "run %zu: envp\n%s\nwant\n%s", p->runs, envp, p->want_env);
    else if (req->timeout_ms <= 0 || req->max_output_bytes == 0)
        snprintf(p->wrong, sizeof p->wrong, "run %zu: timeout %d ms, output bound %zu", p->runs, req->timeout_ms,
                 req->max_output_bytes);
}

/* The config.exec hook: the run's ExecCredential on stdout, PLUGIN_STDERR on stderr, exit
   code 0; out of memory leaves nothing allocated, as the hook's contract says. */
static cres_result fake_exec(void *user, const cres_exec_request *req, cres_exec_result *out,
                             const cres_allocator *alloc, cres_error *err) {
    fake_plugin *p = (fake_plugin *)user;
    plugin_check(p, req);
    if (p->runs >= p->count) return cres_error_set(err, CRES_ERR_ENVIRONMENT, "fake plugin: no run left");
    memset(out, 0, sizeof *out);
    out->out = copy_text(alloc, p->outputs[p->runs++], &out->out_len);
    out->err = out->out ? copy_text(alloc, PLUGIN_STDERR, &out->err_len) : NULL;
    if (!out->err) {
        if (out->out) alloc->free(alloc->user, out->out);
        memset(out, 0, sizeof *out);
        return cres_error_set(err, CRES_ERR_OUT_OF_MEMORY, "fake plugin: out of memory");
    }
    return CRES_OK;
}

typedef struct kube_scenario {
    scenario base;                       /* answers, expected, want_spec, want_master, want_message */
    const char *const *env;              /* getenv and env_list: name, value, ..., NULL */
    const char *kubeconfig;              /* options.kubeconfig; NULL = $KUBECONFIG */
    const char *const *want_requests;    /* each request, as request_text() writes it */
    const char *const *plugin_outputs;   /* the ExecCredential of each plugin run */
    size_t plugin_runs;                  /* the undisturbed run's */
    const char *want_argv, *want_env;    /* of each plugin run */
} kube_scenario;

static cres_result run_kube(test_alloc *t, const void *ctx) {
    const kube_scenario *ks = (const kube_scenario *)ctx;
    const scenario *sc = &ks->base;
    fake_server server;
    fake_plugin plugin;
    cres_config config;
    cres_k8s_options o;
    cres_resolver *r = NULL;
    cres_error err;
    cres_result res;
    char count[64];
    int lines = 0;
    memset(&server, 0, sizeof server);
    server.answers = sc->answers;
    server.count = sc->answers_count;
    server.want_requests = ks->want_requests;
    memset(&plugin, 0, sizeof plugin);
    plugin.outputs = ks->plugin_outputs;
    plugin.count = ks->plugin_runs;
    plugin.want_argv = ks->want_argv;
    plugin.want_env = ks->want_env;
    walk_config(&config, t, ks->env);
    config.env_list.fn = pairs_env_at;
    config.env_list.user = (void *)ks->env;
    config.transport.perform = fake_perform;
    config.transport.user = &server;
    config.transport.features = CRES_TRANSPORT_CA_PEM | CRES_TRANSPORT_CLIENT_CERT | CRES_TRANSPORT_SERVER_NAME;
    config.exec.fn = fake_exec;
    config.exec.user = &plugin;
    config.sleep.fn = no_sleep;
    config.log.fn = count_log;
    config.log.user = &lines;
    memset(&o, 0, sizeof o);
    o.config = &config;
    o.jobs = sc->jobs;
    o.jobs_count = sc->jobs_count;
    o.hostname = "worker-1";
    o.kubeconfig = ks->kubeconfig;
    res = checked(cres_k8s_resolver_create(&o, &r, &err), &err);
    if (res != CRES_OK && r) res = mismatch("create failed but returned a resolver", err.message);
    if (res == CRES_OK) res = run_resolve(sc, r, t);
    if (res == CRES_OK && sc->want_master) res = check_master(r, sc->want_master);
    cres_resolver_free(r);
    if (server.wrong[0]) return mismatch("request", server.wrong);
    if (plugin.wrong[0]) return mismatch("exec plugin", plugin.wrong);
    snprintf(count, sizeof count, "%zu requests, %zu plugin runs", server.next, plugin.runs);
    if (res == CRES_OK && (server.next != sc->answers_count || plugin.runs != ks->plugin_runs))
        res = mismatch("requests and plugin runs", count);
    if (res == CRES_OK && !lines) res = mismatch("nothing logged", "");
    return res;
}

static void walk_kube(const kube_scenario *ks) { alloc_walk(ks->base.name, run_kube, ks, ks->base.expected); }

static const cres_k8s_job_selector tf_job[] = {{"worker", "job-name=tf"}};
#define TF_URL "GET https://k8s.test:6443/api/v1/namespaces/ml/pods?labelSelector=job-name%3Dtf&limit=500"
#define TF_SPEC "{\"worker\": [\"10.4.0.10:8470\", \"10.4.0.11:8470\", \"[fd00::12]:8470\"]}"
#define TF_MASTER "grpc://10.4.0.11:8470"

/* $KUBECONFIG of two files, merged; the token file is read at each resolve, master()
   resolves again: four requests, each with every credential and the TLS material. */
#define JANE_REQUEST(url)                                                                   \
    url "\nAccept: application/json\nAuthorization: Bearer jane-token-from-file\n"          \
        "Impersonate-User: ml-bot\nImpersonate-Group: ml-team\n"                           \
        "Impersonate-Group: system:authenticated\nca: " CA_PEM "\ncert: " CERT_PEM "\nkey: " \
        KEY_PEM "\nserver name: api.internal\nproxy: -\ninsecure: 0\n"
static void kubeconfig_list_merged(void **state) {
    static const char *const env[] = {"KUBECONFIG", kubeconfig_list, "HOME", "/home/walk", NULL};
    static const answer answers[] = {{200, page1}, {200, page2}, {200, page1}, {200, page2}};
    static const char *const requests[] = {JANE_REQUEST(TF_URL), JANE_REQUEST(TF_URL "&continue=tok%2F1"),
                                           JANE_REQUEST(TF_URL), JANE_REQUEST(TF_URL "&continue=tok%2F1")};
    static const kube_scenario ks = {
        {"kubeconfig list: CA file, client cert data, token file, impersonation", answers, N(answers), 0, tf_job,
         N(tf_job), CRES_K8S_POD_IP, 0, CRES_OK, TF_SPEC, TF_MASTER, NULL, 0, NULL},
        env, NULL, requests, NULL, 0, NULL, NULL};
    (void)state;
    walk_kube(&ks);
}

/* The exec user: the plugin runs once, before the first request; its credential expires in
   2099, so the requests of master()'s resolve carry it too. */
#define CRED(token)                                                                         \
    "{\"apiVersion\": \"" EXEC_V1 "\", \"kind\": \"ExecCredential\", \"status\": {\"token\": \"" token \
    "\", \"expirationTimestamp\": \"2099-01-01T00:00:00Z\"}}\n"
#define EXEC_REQUEST(url, token)                                                            \
    url "\nAccept: application/json\nAuthorization: Bearer " token "\nca: " CA_PEM "\n"      \
        "cert: -\nkey: -\nserver name: -\nproxy: -\ninsecure: 0\n"
#define EXEC_ENV                                                                            \
    {"PATH", "/usr/bin:/bin", "HOME", "/home/walk", "KUBERNETES_EXEC_INFO", "stale", NULL}
#define WANT_ARGV "$DIR/bin/get-token\n--cluster\ngke_ml\n--audience\nml-walk\n"
#define WANT_ENV                                                                            \
    "PATH=/usr/bin:/bin\nTOKEN_PROFILE=ml\nHOME=/plugin-home\nKUBERNETES_EXEC_INFO={\"kind\":\"ExecCredential\"," \
    "\"apiVersion\":\"" EXEC_V1 "\",\"spec\":{\"cluster\":{\"server\":\"https://k8s.test:6443\","                   \
    "\"certificate-authority-data\":\"" CA_DATA "\",\"config\":" EXEC_EXTENSION "},\"interactive\":false}}\n"
static void kubeconfig_exec_plugin(void **state) {
    static const char *const env[] = EXEC_ENV;
    static const answer answers[] = {{200, page1}, {200, page2}, {200, page1}, {200, page2}};
    static const char *const requests[] = {EXEC_REQUEST(TF_URL, "plugin-token-1"),
                                           EXEC_REQUEST(TF_URL "&continue=tok%2F1", "plugin-token-1"),
                                           EXEC_REQUEST(TF_URL, "plugin-token-1"),
                                           EXEC_REQUEST(TF_URL "&continue=tok%2F1", "plugin-token-1")};
    static const char *const outputs[] = {CRED("plugin-token-1")};
    static const kube_scenario ks = {
        {"kubeconfig exec plugin", answers, N(answers), 0, tf_job, N(tf_job), CRES_K8S_POD_IP, 0, CRES_OK, TF_SPEC,
         TF_MASTER, NULL, 0, NULL},
        env, kube_exec_path, requests, outputs, N(outputs), WANT_ARGV, WANT_ENV};
    (void)state;
    walk_kube(&ks);
}

/* The first request answers 401: the plugin runs again and the request is made again with
   its fresh credential, which the later requests keep. */
static const char unauthorized[] = "{\"kind\": \"Status\", \"apiVersion\": \"v1\", \"metadata\": {}, \"status\": "
                                   "\"Failure\", \"message\": \"Unauthorized\", \"reason\": \"Unauthorized\", "
                                   "\"code\": 401}";
static void kubeconfig_exec_plugin_401(void **state) {
    static const char *const env[] = EXEC_ENV;
    static const answer answers[] = {{401, unauthorized}, {200, page1}, {200, page2}, {200, page1}, {200, page2}};
    static const char *const requests[] = {EXEC_REQUEST(TF_URL, "revoked-token"),
                                           EXEC_REQUEST(TF_URL, "fresh-token"),
                                           EXEC_REQUEST(TF_URL "&continue=tok%2F1", "fresh-token"),
                                           EXEC_REQUEST(TF_URL, "fresh-token"),
                                           EXEC_REQUEST(TF_URL "&continue=tok%2F1", "fresh-token")};
    static const char *const outputs[] = {CRED("revoked-token"), CRED("fresh-token")};
    static const kube_scenario ks = {
        {"kubeconfig exec plugin, 401", answers, N(answers), 0, tf_job, N(tf_job), CRES_K8S_POD_IP, 0, CRES_OK,
         TF_SPEC, TF_MASTER, NULL, 0, NULL},
        env, kube_exec_path, requests, outputs, N(outputs), WANT_ARGV, WANT_ENV};
    (void)state;
    walk_kube(&ks);
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
        cmocka_unit_test(members_job_named_from_the_job),
        cmocka_unit_test(members_job_named_from_the_jobset),
        cmocka_unit_test(members_job_forbidden_lists),
        cmocka_unit_test(members_job_jobset_not_found_lists),
        cmocka_unit_test(kubeconfig_list_merged),
        cmocka_unit_test(kubeconfig_exec_plugin),
        cmocka_unit_test(kubeconfig_exec_plugin_401),
    };
    return cmocka_run_group_tests(tests, make_files, remove_files);
}
