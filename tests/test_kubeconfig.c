/* Unit tests of the Kubernetes backend's kubeconfig loader (client-go's rules: which files,
   the first-wins merge, contexts, relative paths, validation), its credentials (tokens, token
   files, basic auth, client certificates, impersonation, exec plugins with expiry and 401),
   the TLS material a request carries, the transport's features, YAML through libyaml, and the
   default exec hook running real programs (/bin/sh scripts: a hang, a flood, a failure).

   Requests go to an in-process fake transport that records each one (URL, headers, TLS
   fields) and answers with a PodList of two Running pods of the namespace asked for; exec
   plugins run through a scripted config.exec hook, except in the tests of the default one.
   The environment is a table behind the getenv and env_list hooks (tests/env_table.h).

   This file defines the implementation itself, with CLUSTER_RESOLVER_USE_YAML (-lyaml). */

#define _POSIX_C_SOURCE 200809L /* mkdtemp, mkstemp */
#define CLUSTER_RESOLVER_IMPLEMENTATION
#define CLUSTER_RESOLVER_USE_YAML
#include "env_table.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>

#include "alloc_walk.h"

#define N(a) (sizeof(a) / sizeof *(a))
/* PEM the loader accepts (a block of the right type whose body is one whole DER SEQUENCE,
   here of a UTF8String: "test ca", "test client", "test key") and that the fake transport
   passes on unread; the oracle suite (tests/kubeconfig/test_kubeconfig_kubectl.py) uses real
   ones. *_B64: the same PEM text as base64, as the -data fields hold it. */
#define CA_PEM "-----BEGIN CERTIFICATE-----\nMAkMB3Rlc3QgY2E=\n-----END CERTIFICATE-----"
#define CERT_PEM "-----BEGIN CERTIFICATE-----\nMA0MC3Rlc3QgY2xpZW50\n-----END CERTIFICATE-----"
#define KEY_PEM "-----BEGIN EC PRIVATE KEY-----\nMAoMCHRlc3Qga2V5\n-----END EC PRIVATE KEY-----"
#define CA_B64 "LS0tLS1CRUdJTiBDRVJUSUZJQ0FURS0tLS0tCk1Ba01CM1JsYzNRZ1kyRT0KLS0tLS1FTkQgQ0VSVElGSUNBVEUtLS0tLQ=="
#define CERT_B64 "LS0tLS1CRUdJTiBDRVJUSUZJQ0FURS0tLS0tCk1BME1DM1JsYzNRZ1kyeHBaVzUwCi0tLS0tRU5EIENFUlRJRklDQVRFLS0tLS0="
#define KEY_B64 "LS0tLS1CRUdJTiBFQyBQUklWQVRFIEtFWS0tLS0tCk1Bb01DSFJsYzNRZ2EyVjUKLS0tLS1FTkQgRUMgUFJJVkFURSBLRVktLS0tLQ=="

/* ---------------------------------------------------------------------------------------
   The fake API server and exec hook */

typedef struct seen {
    char url[512];
    char headers[8][512]; /* "Name: value" */
    size_t headers_count;
    char ca_pem[1024], cert_pem[1024], key_pem[1024], server_name[128], proxy[128];
    int has_tls, insecure;
} seen;

typedef struct ran {
    char argv[8][256];
    size_t argc;
    char info[2048]; /* KUBERNETES_EXEC_INFO */
    char env[4096];  /* every "NAME=VALUE", one per line */
    int timeout_ms;
} ran;

typedef struct plugin_answer {
    int exit_code;
    const char *out, *err;
    cres_result fail;
} plugin_answer;

static struct {
    cres_config cfg;
    unsigned features;
    seen requests[16];
    size_t requests_count;
    int status[16]; /* the status of the n-th request; 0 = 200 */
    plugin_answer plugin[8];
    size_t plugin_count, plugin_next;
    ran runs[8];
    char dir[64];
    int delay_ms; /* how long the fake API server takes to answer */
} T;

static void copy_field(char *dst, size_t cap, const char *src) {
    snprintf(dst, cap, "%s", src ? src : "");
}

/* A PodList of two Running pods of the namespace in the URL. */
static char *pod_list(const char *url, const cres_allocator *a, size_t *len) {
    const char *ns = strstr(url, "/namespaces/"), *end;
    char name[64] = "all", *body;
    size_t cap = 1024;
    int n;
    if (ns) {
        ns += strlen("/namespaces/");
        end = strchr(ns, '/');
        snprintf(name, sizeof name, "%.*s", (int)(end - ns), ns);
    }
    body = (char *)a->alloc(a->user, cap);
    if (!body) return NULL;
    n = snprintf(body, cap,
                 "{\"kind\":\"PodList\",\"apiVersion\":\"v1\",\"metadata\":{\"resourceVersion\":\"7\"},"
                 "\"items\":[{\"metadata\":{\"name\":\"w-0\",\"namespace\":\"%s\"},\"status\":{"
                 "\"phase\":\"Running\",\"podIP\":\"10.0.0.1\"}},{\"metadata\":{\"name\":\"w-1\","
                 "\"namespace\":\"%s\"},\"status\":{\"phase\":\"Running\",\"podIP\":\"10.0.0.2\"}}]}",
                 name, name);
    *len = (size_t)n;
    return body;
}

static void *default_alloc(void *user, size_t n) {
    (void)user;
    return malloc(n);
}

static void default_free(void *user, void *p) {
    (void)user;
    free(p);
}

static cres_result fake_perform(void *user, const cres_http_request *req, cres_http_response *resp,
                                const cres_allocator *alloc, cres_error *err) {
    seen *s;
    size_t i;
    cres_allocator fallback = {default_alloc, default_free, NULL};
    (void)user;
    if (T.requests_count == N(T.requests)) return cres_error_set(err, CRES_ERR_TRANSPORT, "too many");
    if (T.delay_ms) {
        struct timespec pause;
        pause.tv_sec = T.delay_ms / 1000;
        pause.tv_nsec = (long)(T.delay_ms % 1000) * 1000000L;
        nanosleep(&pause, NULL);
    }
    s = &T.requests[T.requests_count];
    memset(s, 0, sizeof *s);
    copy_field(s->url, sizeof s->url, req->url);
    for (i = 0; i < req->headers_count && i < N(s->headers); i++)
        snprintf(s->headers[i], sizeof s->headers[i], "%s: %s", req->headers[i].name,
                 req->headers[i].value);
    s->headers_count = i;
    if (req->tls) {
        s->has_tls = 1;
        copy_field(s->ca_pem, sizeof s->ca_pem, req->tls->ca_pem);
        copy_field(s->cert_pem, sizeof s->cert_pem, req->tls->client_cert_pem);
        copy_field(s->key_pem, sizeof s->key_pem, req->tls->client_key_pem);
        copy_field(s->server_name, sizeof s->server_name, req->tls->server_name);
        copy_field(s->proxy, sizeof s->proxy, req->tls->proxy);
        s->insecure = req->tls->insecure_skip_verify;
    }
    resp->status = T.status[T.requests_count] ? T.status[T.requests_count] : 200;
    T.requests_count++;
    if (!alloc->alloc) alloc = &fallback;
    resp->body = pod_list(req->url, alloc, &resp->body_len);
    return resp->body ? CRES_OK : CRES_ERR_OUT_OF_MEMORY;
}

/* Copies text with the allocator the library gives (as the hook's contract says). */
static char *exec_copy(const cres_allocator *a, const char *text) {
    char *p = (char *)a->alloc(a->user, strlen(text) + 1);
    if (p) memcpy(p, text, strlen(text) + 1);
    return p;
}

/* The scripted exec hook: the next plugin_answer; its err NULL leaves out->err NULL (a hook
   that does not keep stderr). */
static cres_result fake_exec(void *user, const cres_exec_request *req, cres_exec_result *out,
                             const cres_allocator *alloc, cres_error *err) {
    ran *r;
    const plugin_answer *p;
    size_t i, used = 0;
    cres_allocator fallback = {default_alloc, default_free, NULL};
    (void)user;
    assert_true(T.plugin_next < T.plugin_count);
    r = &T.runs[T.plugin_next];
    p = &T.plugin[T.plugin_next++];
    memset(r, 0, sizeof *r);
    for (i = 0; req->argv[i] && i < N(r->argv); i++) copy_field(r->argv[i], sizeof r->argv[i], req->argv[i]);
    r->argc = i;
    for (i = 0; req->envp[i]; i++) {
        if (strncmp(req->envp[i], "KUBERNETES_EXEC_INFO=", 21) == 0)
            copy_field(r->info, sizeof r->info, req->envp[i] + 21);
        used += (size_t)snprintf(r->env + used, sizeof r->env - used, "%s\n", req->envp[i]);
        assert_true(used < sizeof r->env);
    }
    r->timeout_ms = req->timeout_ms;
    assert_true(req->timeout_ms > 0 && req->max_output_bytes > 0);
    if (p->fail) return cres_error_set(err, p->fail, "cannot run \"%s\": no such file", req->argv[0]);
    if (!alloc->alloc) alloc = &fallback;
    out->exit_code = p->exit_code;
    out->out = exec_copy(alloc, p->out ? p->out : "");
    out->err = p->err && out->out ? exec_copy(alloc, p->err) : NULL;
    if (!out->out || (p->err && !out->err)) {
        if (out->out) alloc->free(alloc->user, out->out);
        out->out = NULL;
        return cres_error_set(err, CRES_ERR_OUT_OF_MEMORY, "exec: out of memory");
    }
    out->out_len = strlen(out->out);
    out->err_len = out->err ? strlen(out->err) : 0;
    return CRES_OK;
}

static void plugin(int exit_code, const char *out, const char *err_text) {
    assert_true(T.plugin_count < N(T.plugin));
    T.plugin[T.plugin_count].exit_code = exit_code;
    T.plugin[T.plugin_count].out = out;
    T.plugin[T.plugin_count++].err = err_text;
}

static int setup(void **state) {
    (void)state;
    memset(&T, 0, sizeof T);
    env_reset();
    T.cfg.getenv.fn = table_getenv;
    T.cfg.getenv.user = &env;
    T.cfg.env_list.fn = table_env_at;
    T.cfg.env_list.user = &env;
    T.cfg.transport.perform = fake_perform;
    T.cfg.transport.features = CRES_TRANSPORT_CA_PEM | CRES_TRANSPORT_CLIENT_CERT |
                               CRES_TRANSPORT_SERVER_NAME | CRES_TRANSPORT_PROXY |
                               CRES_TRANSPORT_INSECURE;
    T.cfg.exec.fn = fake_exec;
    memset(&logs, 0, sizeof logs);
    T.cfg.log.fn = capture_log;
    T.cfg.log.user = &logs;
    snprintf(T.dir, sizeof T.dir, "/tmp/test_kubeconfig.XXXXXX");
    assert_non_null(mkdtemp(T.dir));
    return 0;
}

static int teardown(void **state) {
    char cmd[128];
    (void)state;
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", T.dir);
    assert_int_equal(system(cmd), 0);
    return 0;
}

/* Writes `text` (single quotes turned into double quotes when sq) to DIR/name; returns the
   path, valid until the next call with the same slot. */
static const char *put(const char *name, const char *text) {
    static char paths[8][192];
    static int next;
    char *path = paths[next++ % 8], *dir;
    FILE *f;
    snprintf(path, sizeof paths[0], "%s/%s", T.dir, name);
    if ((dir = strrchr(path, '/')) != NULL && dir != path + strlen(T.dir)) {
        *dir = '\0';
        mkdir(path, 0700);
        *dir = '/';
    }
    f = fopen(path, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(text, 1, strlen(text), f), strlen(text));
    assert_int_equal(fclose(f), 0);
    return path;
}

/* A JSON kubeconfig with one cluster, one user and one context (all named "x"); `cluster`
   and `user` are the members of those stanzas, single-quoted. */
static const char *config_json(const char *name, const char *cluster, const char *user) {
    char text[4096];
    snprintf(text, sizeof text,
             "{'apiVersion': 'v1', 'kind': 'Config', 'current-context': 'x', "
             "'clusters': [{'name': 'x', 'cluster': {%s}}], "
             "'users': [{'name': 'x', 'user': {%s}}], "
             "'contexts': [{'name': 'x', 'context': {'cluster': 'x', 'user': 'x'}}]}",
             cluster, user);
    return put(name, dq(text));
}

#define SERVER "'server': 'https://k8s.test:6443'"
#define EXEC_V1BETA1 "client.authentication.k8s.io/v1beta1"

/* Options for job "worker" of the fake, with a kubeconfig file (NULL: the environment's). */
static cres_k8s_options kube_options(const char *kubeconfig, const char *context) {
    static const cres_k8s_job_selector jobs[] = {{"worker", "job-name=w"}};
    cres_k8s_options o;
    memset(&o, 0, sizeof o);
    o.config = &T.cfg;
    o.jobs = jobs;
    o.jobs_count = 1;
    o.kubeconfig = kubeconfig;
    o.context = context;
    return o;
}

/* One resolver made with o, resolved `times` times; each must find the fake's two pods. */
static cres_result resolve_times(const cres_k8s_options *o, int times, cres_error *err) {
    cres_resolver *r = NULL;
    cres_result res = cres_k8s_resolver_create(o, &r, err);
    for (; res == CRES_OK && times > 0; times--) {
        cres_cluster_spec *spec = NULL;
        res = cres_resolve(r, &spec, err);
        if (res == CRES_OK) assert_int_equal(cres_spec_tasks_count(spec, "worker"), 2);
        cres_spec_free(spec);
    }
    cres_resolver_free(r);
    return res;
}

static cres_result resolve(const char *kubeconfig, const char *context, cres_error *err) {
    cres_k8s_options o = kube_options(kubeconfig, context);
    return resolve_times(&o, 1, err);
}

static const char *header(size_t request, const char *name) {
    const seen *s = &T.requests[request];
    size_t i, n = strlen(name);
    for (i = 0; i < s->headers_count; i++)
        if (strncmp(s->headers[i], name, n) == 0 && s->headers[i][n] == ':')
            return s->headers[i] + n + 2;
    return NULL;
}

#define FAILS(call, code, ...)                                                             \
    do {                                                                                   \
        static const char *const words_[] = {__VA_ARGS__};                                 \
        size_t w_;                                                                         \
        cres_error err;                                                                    \
        EXPECT(call, code);                                                                \
        for (w_ = 0; w_ < N(words_); w_++) HAS(err.message, words_[w_]);                   \
    } while (0)

/* ---------------------------------------------------------------------------------------
   Which files, and the merge */

static void explicit_file_alone(void **state) {
    cres_error err;
    (void)state;
    env_set("KUBECONFIG", config_json("other", "'server': 'https://other.test'", "'token': 'o'"));
    OK(resolve(config_json("mine", SERVER, "'token': 't1'"), NULL, &err));
    assert_string_equal(T.requests[0].url,
                        "https://k8s.test:6443/api/v1/namespaces/default/pods?labelSelector=job-name%3Dw&limit=500");
    assert_string_equal(header(0, "Authorization"), "Bearer t1");
    HAS(logs.text, "mine\" (of options.kubeconfig): context \"x\", cluster \"x\" at https://k8s.test:6443, user \"x\": token");
}

static void explicit_file_missing_is_an_error(void **state) {
    (void)state;
    FAILS(resolve("/nonexistent/kubeconfig", NULL, &err), CRES_ERR_ENVIRONMENT,
          "\"/nonexistent/kubeconfig\" cannot be read", "--kubeconfig");
}

/* A directory where a kubeconfig should be is an error, named or in $KUBECONFIG (as kubectl
   says "is a directory"), never an empty file and so an empty configuration. */
static void directory_as_kubeconfig_is_an_error(void **state) {
    char dir[256], list[600];
    (void)state;
    snprintf(dir, sizeof dir, "%s/config.d", T.dir);
    assert_int_equal(mkdir(dir, 0700), 0);
    FAILS(resolve(dir, NULL, &err), CRES_ERR_ENVIRONMENT, "config.d\" cannot be read", "--kubeconfig");
    snprintf(list, sizeof list, "%s:%s", dir, config_json("after", SERVER, "'token': 't'"));
    env_set("KUBECONFIG", list);
    FAILS(resolve(NULL, NULL, &err), CRES_ERR_ENVIRONMENT, "config.d\" cannot be read");
}

/* The first file to define a name wins it whole: user x of the second file (a token and a
   client certificate) lends nothing to the first's (a token only). */
static void first_file_wins_each_entry_whole(void **state) {
    const char *a, *b;
    char list[512];
    cres_error err;
    (void)state;
    put("ca.pem", CA_PEM);
    a = config_json("a", SERVER, "'token': 'from-a'");
    b = config_json("b", "'server': 'https://b.test', 'certificate-authority': 'ca.pem'",
                    "'token': 'from-b', 'client-certificate-data': '" CERT_B64 "', 'client-key-data': '" KEY_B64 "'");
    snprintf(list, sizeof list, "%s:%s", a, b);
    env_set("KUBECONFIG", list);
    OK(resolve(NULL, NULL, &err));
    assert_string_equal(header(0, "Authorization"), "Bearer from-a");
    assert_string_equal(T.requests[0].cert_pem, "");
    assert_string_equal(T.requests[0].ca_pem, "");
    HAS(T.requests[0].url, "https://k8s.test:6443/");
}

/* current-context: the first file that sets it; "" counts as unset. Missing files and empty
   names in the list are skipped. */
static void current_context_of_the_first_file_that_sets_one(void **state) {
    char list[1024];
    const char *a, *b, *c;
    cres_error err;
    (void)state;
    a = put("a", dq("{'current-context': '', 'contexts': [{'name': 'cb', 'context': {'cluster': 'b'}}, "
                    "{'name': 'cc', 'context': {'cluster': 'c'}}]}"));
    b = put("b", dq("{'current-context': 'cb', 'clusters': [{'name': 'b', 'cluster': {'server': 'https://b.test'}}]}"));
    c = put("c", dq("{'current-context': 'cc', 'clusters': [{'name': 'c', 'cluster': {'server': 'https://c.test'}}]}"));
    snprintf(list, sizeof list, "::%s/missing:%s::%s:%s:%s", T.dir, a, b, c, a);
    env_set("KUBECONFIG", list);
    OK(resolve(NULL, NULL, &err));
    HAS(T.requests[0].url, "https://b.test/api/v1/namespaces/default/pods");
    assert_null(header(0, "Authorization")); /* the context names no user */
    T.requests_count = 0;
    OK(resolve(NULL, "cc", &err));
    HAS(T.requests[0].url, "https://c.test/");
}

static void home_kube_config_when_kubeconfig_unset_or_empty(void **state) {
    cres_error err;
    char home[128];
    (void)state;
    put(".kube/config", dq("{'current-context': 'h', 'clusters': [{'name': 'h', 'cluster': {'server': 'https://home.test'}}], "
                           "'contexts': [{'name': 'h', 'context': {'cluster': 'h', 'namespace': 'ml'}}]}"));
    snprintf(home, sizeof home, "%s", T.dir);
    env_set("HOME", home);
    OK(resolve(NULL, NULL, &err));
    assert_string_equal(T.requests[0].url, "https://home.test/api/v1/namespaces/ml/pods?labelSelector=job-name%3Dw&limit=500");
    env_set("KUBECONFIG", "");
    OK(resolve(NULL, NULL, &err));
    HAS(T.requests[1].url, "https://home.test/");
}

/* No kubeconfig and no context: in-cluster configuration takes over, as in client-go. */
static void no_file_or_no_context_falls_back_to_in_cluster(void **state) {
    cres_error err;
    cres_k8s_options o;
    cres_resolver *r = NULL;
    (void)state;
    memset(&o, 0, sizeof o);
    o.config = &T.cfg;
    FAILS(cres_k8s_resolver_create(&o, &r, &err), CRES_ERR_ENVIRONMENT, "no kubeconfig",
          "KUBERNETES_SERVICE_HOST");
    env_set("KUBECONFIG", put("noctx", dq("{'clusters': [{'name': 'a', 'cluster': {'server': 'https://a'}}]}")));
    FAILS(cres_k8s_resolver_create(&o, &r, &err), CRES_ERR_ENVIRONMENT, "noctx",
          "sets no current-context", "--context");
    env_set("KUBERNETES_SERVICE_HOST", ""); /* empty: not in a cluster */
    FAILS(cres_k8s_resolver_create(&o, &r, &err), CRES_ERR_ENVIRONMENT, "noctx", "sets no current-context");
    env_set("KUBERNETES_SERVICE_HOST", "10.96.0.1");
    env_set("KUBERNETES_SERVICE_PORT", "443");
    OK(cres_k8s_resolver_create(&o, &r, &err));
    HAS(logs.text, "using the in-cluster configuration");
    cres_resolver_free(r);
}

/* ---------------------------------------------------------------------------------------
   Fields */

static void namespace_option_then_context_then_default(void **state) {
    cres_k8s_options o = kube_options(NULL, NULL);
    cres_error err;
    (void)state;
    env_set("KUBECONFIG", put("ns", dq("{'current-context': 'x', 'clusters': [{'name': 'x', 'cluster': {'server': 'https://a'}}], "
                                     "'contexts': [{'name': 'x', 'context': {'cluster': 'x', 'namespace': 'team'}}, "
                                     "{'name': 'y', 'context': {'cluster': 'x'}}]}")));
    OK(resolve_times(&o, 1, &err));
    o.namespace_name = "override";
    OK(resolve_times(&o, 1, &err));
    o.namespace_name = NULL;
    o.context = "y";
    OK(resolve_times(&o, 1, &err));
    HAS(T.requests[0].url, "/namespaces/team/");
    HAS(T.requests[1].url, "/namespaces/override/");
    HAS(T.requests[2].url, "/namespaces/default/");
}

/* Paths relative to the file that names them (a file named without a directory: the
   working directory); data fields are base64 of PEM. */
static void tls_material_from_files_and_data(void **state) {
    cres_error err;
    char data[512], cwd[4096];
    cres_result res;
    (void)state;
    put("sub/ca.pem", CA_PEM "\n");
    put("sub/client.pem", CERT_PEM);
    put("sub/client.key", KEY_PEM);
    OK(resolve(config_json("sub/config", SERVER ", 'certificate-authority': 'ca.pem', 'tls-server-name': 'api.internal', "
                           "'proxy-url': 'socks5://127.0.0.1:1080'",
                           "'client-certificate': 'client.pem', 'client-key': './client.key'"),
               NULL, &err));
    assert_true(T.requests[0].has_tls);
    assert_string_equal(T.requests[0].ca_pem, CA_PEM "\n"); /* the file's bytes, as they are */
    assert_string_equal(T.requests[0].cert_pem, CERT_PEM);
    assert_string_equal(T.requests[0].key_pem, KEY_PEM);
    assert_string_equal(T.requests[0].server_name, "api.internal");
    assert_string_equal(T.requests[0].proxy, "socks5://127.0.0.1:1080");
    assert_null(header(0, "Authorization"));
    HAS(logs.text, "user \"x\": client certificate");
    snprintf(data, sizeof data, SERVER ", 'certificate-authority-data': '" CA_B64 "', 'insecure-skip-tls-verify': false");
    OK(resolve(config_json("data", data, "'client-certificate-data': '" CERT_B64 "', 'client-key-data': '" KEY_B64 "\\n'"), NULL, &err));
    assert_string_equal(T.requests[1].ca_pem, CA_PEM);
    assert_string_equal(T.requests[1].cert_pem, CERT_PEM);
    assert_string_equal(T.requests[1].key_pem, KEY_PEM);
    assert_int_equal(T.requests[1].insecure, 0);
    assert_non_null(getcwd(cwd, sizeof cwd));
    assert_int_equal(chdir(T.dir), 0);
    config_json("here", SERVER ", 'certificate-authority': 'sub/ca.pem'", "'token': 't'");
    res = resolve("here", NULL, &err);
    assert_int_equal(chdir(cwd), 0); /* back before any check can end the test */
    OK(res);
    assert_string_equal(T.requests[2].ca_pem, CA_PEM "\n");
    HAS(logs.text, "kubeconfig \"here\" (of options.kubeconfig)");
}

/* A real certificate and keys, made for these tests with openssl req -x509 -newkey ec
   (P-256, CN=pem test) and used for nothing else. Their DER lengths take every form: the
   certificate's two bytes (30 82 01 7d), the PKCS #8 key's one (30 81 87), the SEC 1 key's
   none (30 77). *_CUT: a line short, still base64, as a copy cut at a line break is. */
#define PEM_CERT_BODY                                                      \
    "MIIBfTCCASOgAwIBAgIUDqAbNBz9WgbvoD0v+SOT3QX21C8wCgYIKoZIzj0EAwIw\n" \
    "EzERMA8GA1UEAwwIcGVtIHRlc3QwIBcNMjYxMTI5MDIzMDU1WhgPMjEyNjExMDUw\n" \
    "MjMwNTVaMBMxETAPBgNVBAMMCHBlbSB0ZXN0MFkwEwYHKoZIzj0CAQYIKoZIzj0D\n" \
    "AQcDQgAE7zkJUpo1o7rXT5W/yl27Ut8yEK//pdWp+3aLg2H717ewFtvYl1sSo2Yx\n" \
    "fSRiFIQiWIiy/mzzDnQZYO+2l88C4qNTMFEwHQYDVR0OBBYEFI5s4IoIHMi0GVyq\n" \
    "aN1myeuRf6gYMB8GA1UdIwQYMBaAFI5s4IoIHMi0GVyqaN1myeuRf6gYMA8GA1Ud\n" \
    "EwEB/wQFMAMBAf8wCgYIKoZIzj0EAwIDSAAwRQIhAJf5oyglNnmkSoNKW/mSK/eH\n" \
    "tdb6ijGpNu6GwZ3XwovaAiBsQCr6oKIjKhkcigxa7m+HFrV/QhNlMwXJmoPfrxth\n"
#define PEM_BEGIN_CERT "-----BEGIN CERTIFICATE-----\n"
#define PEM_END_CERT "-----END CERTIFICATE-----\n"
#define PEM_CERT PEM_BEGIN_CERT PEM_CERT_BODY "BQ==\n" PEM_END_CERT
#define PEM_CERT_CUT PEM_BEGIN_CERT PEM_CERT_BODY PEM_END_CERT
#define PEM_KEY_BODY                                                       \
    "MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQgbauQFYaSdhWcyr0y\n" \
    "C9KJDtPJHBeNNRVwjXSSZt1hWRahRANCAATvOQlSmjWjutdPlb/KXbtS3zIQr/+l\n"
#define PEM_KEY "-----BEGIN PRIVATE KEY-----\n" PEM_KEY_BODY \
    "1an7douDYfvXt7AW29iXWxKjZjF9JGIUhCJYiLL+bPMOdBlg77aXzwLi\n-----END PRIVATE KEY-----\n"
#define PEM_KEY_CUT "-----BEGIN PRIVATE KEY-----\n" PEM_KEY_BODY "-----END PRIVATE KEY-----\n"
#define PEM_SEC1_BODY                                                      \
    "MHcCAQEEIG2rkBWGknYVnMq9MgvSiQ7TyRwXjTUVcI10kmbdYVkWoAoGCCqGSM49\n" \
    "AwEHoUQDQgAE7zkJUpo1o7rXT5W/yl27Ut8yEK//pdWp+3aLg2H717ewFtvYl1sS\n" \
    "o2YxfSRiFIQiWIiy/mzzDnQZYO+2l88C4g==\n"

/* PEM as client-go finds what it needs in it (each verdict checked against kubectl 1.32 with
   the same text as file and as -data): 0 it is there, 1 no block of the type, 2 only a
   malformed one. The same text with CR LF line ends must read the same. */
static void pem_is_read_as_client_go_reads_it(void **state) {
    static const struct {
        int what;
        const char *text;
        int want;
    } cases[] = {
        {CRES__PEM_CA, PEM_CERT, 0},
        {CRES__PEM_CA, "issued to the ml team:\n" PEM_CERT, 0}, /* text around blocks: skipped */
        {CRES__PEM_CA, PEM_CERT_CUT PEM_CERT, 0},               /* any whole one will do */
        {CRES__PEM_CA, PEM_CERT PEM_CERT_CUT, 0},
        {CRES__PEM_CA, PEM_KEY PEM_CERT, 0},
        {CRES__PEM_CA, PEM_BEGIN_CERT PEM_CERT_BODY "BQ==\n-----END CERTIFICATE-----", 0}, /* no last line break */
        {CRES__PEM_CA, PEM_BEGIN_CERT " \t" PEM_CERT_BODY "BQ = =\n-----END CERTIFICATE----- \t\n", 0},
        {CRES__PEM_CA, "", 1}, /* (an empty CA file is no CA: cres__kpem never asks) */
        {CRES__PEM_CA, "\n", 1},
        {CRES__PEM_CA, "not PEM at all\n", 1},
        {CRES__PEM_CA, PEM_KEY, 1},
        {CRES__PEM_CA, "-----BEGIN TRUSTED CERTIFICATE-----\n" PEM_CERT_BODY "BQ==\n-----END TRUSTED CERTIFICATE-----\n", 1},
        {CRES__PEM_CA, PEM_BEGIN_CERT PEM_CERT_BODY "BQ=\n" PEM_END_CERT, 1},    /* cut inside a line: no base64 */
        {CRES__PEM_CA, PEM_BEGIN_CERT PEM_CERT_BODY "B!==\n" PEM_END_CERT, 1},   /* not base64 */
        {CRES__PEM_CA, PEM_BEGIN_CERT PEM_CERT_BODY "BQ==\n-----END X509 CRL-----\n", 1},
        {CRES__PEM_CA, PEM_BEGIN_CERT PEM_CERT_BODY "BQ==\n" PEM_END_CERT "x", 0}, /* after the line: fine */
        {CRES__PEM_CA, PEM_BEGIN_CERT PEM_CERT_BODY "BQ==\n-----END CERTIFICATE----- x\n", 1},
        {CRES__PEM_CA, " " PEM_CERT, 1},                                         /* not at a line's start */
        {CRES__PEM_CA, PEM_BEGIN_CERT PEM_CERT_BODY "BQ==\n", 1},                /* no end */
        {CRES__PEM_CA, PEM_CERT_CUT, 2},
        {CRES__PEM_CA, PEM_BEGIN_CERT "Proc-Type: 4,ENCRYPTED\n\n" PEM_CERT_BODY "BQ==\n" PEM_END_CERT, 2},
        {CRES__PEM_CA, PEM_BEGIN_CERT "AgEB\n" PEM_END_CERT, 2}, /* an INTEGER, not a SEQUENCE */
        {CRES__PEM_CA, PEM_BEGIN_CERT "MIAA\n" PEM_END_CERT, 2}, /* an indefinite length */
        {CRES__PEM_CA, PEM_BEGIN_CERT "MIUBAAAAAA==\n" PEM_END_CERT, 2}, /* a length of 5 bytes */
        {CRES__PEM_CA, PEM_BEGIN_CERT "MA==\n" PEM_END_CERT, 2},          /* no length */
        {CRES__PEM_CERT, PEM_CERT, 0},
        {CRES__PEM_CERT, PEM_CERT PEM_CERT_CUT, 0}, /* the first one is the certificate */
        {CRES__PEM_CERT, PEM_KEY PEM_CERT, 0},
        {CRES__PEM_CERT, PEM_BEGIN_CERT "Proc-Type: 4,ENCRYPTED\n\n" PEM_CERT_BODY "BQ==\n" PEM_END_CERT, 0},
        {CRES__PEM_CERT, PEM_CERT_CUT PEM_CERT, 2},
        {CRES__PEM_CERT, "", 1},
        {CRES__PEM_CERT, PEM_KEY, 1},
        {CRES__PEM_KEY, PEM_KEY, 0},
        {CRES__PEM_KEY, "-----BEGIN EC PRIVATE KEY-----\n" PEM_SEC1_BODY "-----END EC PRIVATE KEY-----\n", 0},
        {CRES__PEM_KEY, "-----BEGIN RSA PRIVATE KEY-----\n" PEM_SEC1_BODY "-----END RSA PRIVATE KEY-----\n", 0},
        {CRES__PEM_KEY, PEM_CERT PEM_KEY, 0},
        {CRES__PEM_KEY, PEM_KEY PEM_KEY_CUT, 0},
        {CRES__PEM_KEY, PEM_KEY_CUT PEM_KEY, 2},
        {CRES__PEM_KEY, "", 1},
        {CRES__PEM_KEY, PEM_CERT, 1},
        {CRES__PEM_KEY, "-----BEGIN ECPRIVATE KEY-----\n" PEM_SEC1_BODY "-----END ECPRIVATE KEY-----\n", 1},
    };
    char crlf[2048];
    size_t i, j, o;
    (void)state;
    for (i = 0; i < N(cases); i++) {
        int got = cres__pem_check(cases[i].text, cases[i].what, NULL);
        if (got != cases[i].want) fail_msg("case %zu: %d, want %d", i, got, cases[i].want);
        for (j = o = 0; cases[i].text[j]; j++) {
            if (cases[i].text[j] == '\n') crlf[o++] = '\r';
            crlf[o++] = cases[i].text[j];
        }
        crlf[o] = '\0';
        if ((got = cres__pem_check(crlf, cases[i].what, NULL)) != cases[i].want)
            fail_msg("case %zu with CR LF: %d, want %d", i, got, cases[i].want);
    }
    /* of a CA, the blocks client-go uses, as they are */
    assert_int_equal(cres__pem_check("issued to the ml team:\n" PEM_CERT_CUT PEM_KEY PEM_CERT "trailer", CRES__PEM_CA,
                                     crlf), 0);
    assert_string_equal(crlf, PEM_CERT);
    assert_int_equal(cres__pem_check(PEM_CERT "\r\n" PEM_CERT_CUT PEM_BEGIN_CERT PEM_CERT_BODY "BQ==\n-----END CERTIFICATE-----",
                                     CRES__PEM_CA, crlf), 0);
    assert_string_equal(crlf, PEM_CERT PEM_BEGIN_CERT PEM_CERT_BODY "BQ==\n-----END CERTIFICATE-----");
}

/* PEM client-go could not use fails at create, naming the kubeconfig, the stanza, the field
   and the file; nothing is sent. An empty CA file is no CA (client-go then trusts the
   system's), yet still one for insecure-skip-tls-verify, as kubectl says. Of a CA bundle
   the transport gets the certificates client-go would use, and no other text. */
static void pem_that_client_go_refuses_is_an_error(void **state) {
    cres_error err;
    (void)state;
    put("p/empty", "");
    put("p/notes.txt", "ask the platform team for the CA\n");
    put("p/cut.pem", PEM_CERT_CUT);
    put("p/cert.pem", PEM_CERT);
    put("p/key.pem", PEM_KEY);
    FAILS(resolve(config_json("p/c1", SERVER ", 'certificate-authority': 'notes.txt'", "'token': 't'"), NULL, &err),
          CRES_ERR_ENVIRONMENT, "kubeconfig \"", "p/c1\": cluster \"x\": \"certificate-authority\" names a file with no PEM CERTIFICATE block: \"",
          "p/notes.txt\"");
    FAILS(resolve(config_json("p/c2", SERVER ", 'certificate-authority': 'cut.pem'", "'token': 't'"), NULL, &err),
          CRES_ERR_ENVIRONMENT, "names a file with a malformed PEM CERTIFICATE block: \"", "p/cut.pem\"");
    FAILS(resolve(config_json("p/c3", SERVER ", 'certificate-authority-data': '" KEY_B64 "'", "'token': 't'"), NULL, &err),
          CRES_ERR_ENVIRONMENT, "p/c3\": cluster \"x\": \"certificate-authority-data\" holds no PEM CERTIFICATE block");
    FAILS(resolve(config_json("p/c4", SERVER, "'client-certificate': 'key.pem', 'client-key': 'key.pem'"), NULL, &err),
          CRES_ERR_ENVIRONMENT, "user \"x\": \"client-certificate\" names a file with no PEM CERTIFICATE block: \"", "p/key.pem\"");
    FAILS(resolve(config_json("p/c5", SERVER, "'client-certificate': 'cert.pem', 'client-key': 'empty'"), NULL, &err),
          CRES_ERR_ENVIRONMENT, "\"client-key\" names a file with no PEM PRIVATE KEY block: \"", "p/empty\"");
    FAILS(resolve(config_json("p/c6", SERVER, "'client-certificate-data': '" CERT_B64 "', 'client-key-data': '" CA_B64 "'"),
                  NULL, &err),
          CRES_ERR_ENVIRONMENT, "user \"x\": \"client-key-data\" holds no PEM PRIVATE KEY block");
    FAILS(resolve(config_json("p/c7", SERVER ", 'certificate-authority': 'empty', 'insecure-skip-tls-verify': true", "'token': 't'"),
                  NULL, &err),
          CRES_ERR_ENVIRONMENT, "\"insecure-skip-tls-verify\" is set together with a certificate authority");
    assert_int_equal(T.requests_count, 0);
    OK(resolve(config_json("p/c8", SERVER ", 'certificate-authority': 'empty'",
                           "'client-certificate': 'cert.pem', 'client-key': 'key.pem'"),
               NULL, &err));
    assert_true(T.requests[0].has_tls);
    assert_string_equal(T.requests[0].ca_pem, ""); /* none: the transport's default CAs */
    assert_string_equal(T.requests[0].cert_pem, PEM_CERT);
    assert_string_equal(T.requests[0].key_pem, PEM_KEY);
    put("p/bundle.pem", "# the ml clusters' CAs\n" PEM_CERT_CUT CA_PEM "\n" PEM_CERT);
    OK(resolve(config_json("p/c9", SERVER ", 'certificate-authority': 'bundle.pem'", "'token': 't'"), NULL, &err));
    assert_string_equal(T.requests[1].ca_pem, CA_PEM "\n" PEM_CERT);
}

/* Hostile PEM costs time in proportion to its size: many BEGIN lines (some of them header
   lines of the one before, having a colon) before one END of another type, a file of the
   largest size read (1 MiB). A walk that searched again from every BEGIN line took seconds. */
static void pem_of_many_failing_blocks_is_read_quickly(void **state) {
    static const char *const units[] = {"-----BEGIN CERTIFICATE-----\n", "-----BEGIN A:-----\n",
                                        "-----BEGIN CERTIFICATE-----\nk: v\nMIIB\n"};
    const size_t cap = 1024 * 1024 - 64;
    char *text = (char *)malloc(cap + 64);
    size_t i, used;
    clock_t start = clock();
    double seconds;
    (void)state;
    assert_non_null(text);
    for (i = 0; i < N(units); i++) {
        for (used = 0; used + strlen(units[i]) < cap; used += strlen(units[i]))
            memcpy(text + used, units[i], strlen(units[i]));
        snprintf(text + used, 64, "-----END X509 CRL-----\n");
        put("many.pem", text);
        FAILS(resolve(config_json("many", SERVER ", 'certificate-authority': 'many.pem'", "'token': 't'"), NULL, &err),
              CRES_ERR_ENVIRONMENT, "names a file with no PEM CERTIFICATE block: \"", "many.pem\"");
    }
    seconds = (double)(clock() - start) / CLOCKS_PER_SEC;
    free(text);
    printf("    %zu files of 1 MiB: %.3f s\n", N(units), seconds);
    assert_true(seconds < 1.0);
}

static void insecure_is_passed_on_and_logged(void **state) {
    cres_error err;
    (void)state;
    OK(resolve(config_json("insecure", SERVER ", 'insecure-skip-tls-verify': true", "'token': 't'"), NULL, &err));
    assert_int_equal(T.requests[0].insecure, 1);
    HAS(logs.text, "insecure-skip-tls-verify: the server's certificate is not checked");
}

/* tokenFile, readable, wins over token (client-go); unreadable, token stands in. A token
   file read at create but gone at resolve, an empty token file and a token with a blank
   fail the resolve, naming what is wrong. */
static void token_file_wins_over_token_when_readable(void **state) {
    cres_error err;
    char user[256];
    cres_k8s_options o;
    cres_resolver *r = NULL;
    cres_cluster_spec *spec = NULL;
    (void)state;
    put("tok", "from-file\n");
    OK(resolve(config_json("both", SERVER, "'token': 'inline', 'tokenFile': 'tok'"), NULL, &err));
    assert_string_equal(header(0, "Authorization"), "Bearer from-file");
    snprintf(user, sizeof user, "'token': 'inline', 'tokenFile': '%s/gone'", T.dir);
    OK(resolve(config_json("both2", SERVER, user), NULL, &err));
    assert_string_equal(header(1, "Authorization"), "Bearer inline");
    FAILS(resolve(config_json("fileonly", SERVER, "'tokenFile': 'gone'"), NULL, &err),
          CRES_ERR_ENVIRONMENT, "gone");
    snprintf(user, sizeof user, "%s", put("rot", "first\n"));
    o = kube_options(config_json("rotated", SERVER, "'tokenFile': 'rot'"), NULL);
    OK(cres_k8s_resolver_create(&o, &r, &err));
    assert_int_equal(remove(user), 0);
    FAILS(cres_resolve(r, &spec, &err), CRES_ERR_ENVIRONMENT, "kubeconfig tokenFile: ", "rot");
    assert_null(spec);
    cres_resolver_free(r);
    put("empty-tok", "\n");
    FAILS(resolve(config_json("emptyfile", SERVER, "'tokenFile': 'empty-tok'"), NULL, &err), CRES_ERR_ENVIRONMENT,
          "kubeconfig tokenFile: ", "the token is empty");
    FAILS(resolve(config_json("blank", SERVER, "'token': 'abc def'"), NULL, &err), CRES_ERR_ENVIRONMENT,
          "the token is empty or has spaces");
    assert_int_equal(T.requests_count, 2);
}

static void basic_auth_and_impersonation_headers(void **state) {
    cres_error err;
    (void)state;
    OK(resolve(config_json("basic", SERVER, "'username': 'admin', 'password': 'p@ss:w', 'as': 'jane', "
                           "'as-groups': ['dev', 'ops'], 'as-uid': '42'"),
               NULL, &err));
    assert_string_equal(header(0, "Authorization"), "Basic YWRtaW46cEBzczp3"); /* admin:p@ss:w */
    assert_string_equal(header(0, "Impersonate-User"), "jane");
    assert_string_equal(header(0, "Impersonate-Uid"), "42");
    assert_string_equal(T.requests[0].headers[4], "Impersonate-Group: dev");
    assert_string_equal(T.requests[0].headers[5], "Impersonate-Group: ops");
}

/* An http:// server gets no credentials (kubectl sends them over TLS only); impersonation
   headers, which are no credential, go as kubectl sends them. */
static void plain_http_server_gets_no_credentials(void **state) {
    cres_error err;
    (void)state;
    /* a user without credentials: nothing is left out, and the log does not say so */
    OK(resolve(config_json("http0", "'server': 'http://127.0.0.1:8001'", ""), NULL, &err));
    assert_string_equal(T.requests[0].url, "http://127.0.0.1:8001/api/v1/namespaces/default/pods?labelSelector=job-name%3Dw&limit=500");
    HAS(logs.text, "at http://127.0.0.1:8001, user \"x\": none");
    assert_null(strstr(logs.text, "plain HTTP"));
    OK(resolve(config_json("http", "'server': 'http://127.0.0.1:8001'", "'token': 'secret', 'as': 'jane'"), NULL, &err));
    assert_int_equal(T.requests[1].headers_count, 2);
    assert_string_equal(T.requests[1].headers[0], "Accept: application/json");
    assert_string_equal(T.requests[1].headers[1], "Impersonate-User: jane");
    assert_false(T.requests[1].has_tls && T.requests[1].cert_pem[0]);
    HAS(logs.text, "plain HTTP");
}

static void oidc_id_token_is_the_bearer(void **state) {
    cres_error err;
    (void)state;
    OK(resolve(config_json("oidc", SERVER, "'auth-provider': {'name': 'oidc', 'config': {'id-token': 'eyJ.id', "
                           "'refresh-token': 'r', 'client-id': 'k'}}"),
               NULL, &err));
    assert_string_equal(header(0, "Authorization"), "Bearer eyJ.id");
}

/* options.token and ca_file replace the user's credentials (its client certificate too) and the
   CA; the cluster's other TLS settings and the impersonation stay. */
static void options_token_and_ca_replace_the_kubeconfig_ones(void **state) {
    cres_k8s_options o = kube_options(
        config_json("c", SERVER ", 'certificate-authority-data': '" CA_B64 "', 'tls-server-name': 'api.internal'",
                    "'client-certificate-data': '" CERT_B64 "', 'client-key-data': '" KEY_B64 "', 'as': 'jane'"),
        NULL);
    cres_error err;
    (void)state;
    o.token = "mine";
    o.ca_file = "/etc/my-ca.pem";
    OK(resolve_times(&o, 1, &err));
    assert_string_equal(header(0, "Authorization"), "Bearer mine");
    assert_string_equal(header(0, "Impersonate-User"), "jane");
    assert_string_equal(T.requests[0].ca_pem, "");
    assert_string_equal(T.requests[0].cert_pem, "");
    assert_string_equal(T.requests[0].server_name, "api.internal");
    /* over an exec plugin too, which then never runs (no plugin answer is scripted) */
    o = kube_options(config_json("e", SERVER, "'exec': {'apiVersion': '" EXEC_V1BETA1 "', 'command': 'get-token'}"), NULL);
    o.token = "mine";
    OK(resolve_times(&o, 1, &err));
    assert_string_equal(header(1, "Authorization"), "Bearer mine");
    o.token = NULL;
    o.token_file = put("my-token", "from-option\n");
    OK(resolve_times(&o, 1, &err));
    assert_string_equal(header(2, "Authorization"), "Bearer from-option");
    assert_int_equal(T.plugin_next, 0);
}

/* ---------------------------------------------------------------------------------------
   Validation: each error names the file, the stanza and the field */

static void validation_errors_name_file_stanza_and_field(void **state) {
    static const struct {
        const char *cluster, *user, *words[3];
    } cases[] = {
        {SERVER ", 'certificate-authority': 'a', 'certificate-authority-data': '" CA_B64 "'", "",
         {"cluster \"x\"", "\"certificate-authority\" and \"certificate-authority-data\" are both set", "bad0"}},
        {SERVER, "'client-certificate-data': '" CERT_B64 "'", {"user \"x\"", "\"client-certificate\" is set, client-key is not", "bad1"}},
        {SERVER, "'client-key-data': '" KEY_B64 "'", {"user \"x\"", "\"client-key\"", "bad2"}},
        {SERVER, "'token': 't', 'username': 'u', 'password': 'p'", {"\"token\" and username/password", "bad3", "user"}},
        {SERVER, "'exec': {'command': 'aws'}", {"\"exec.apiVersion\" is not set", "bad4", "user \"x\""}},
        {SERVER, "'exec': {'apiVersion': 'client.authentication.k8s.io/v1', 'command': 'aws'}",
         {"\"exec.interactiveMode\" is not set", "bad5", "v1"}},
        {SERVER, "'exec': {'apiVersion': 'client.authentication.k8s.io/v1beta1', 'command': 'aws', 'interactiveMode': 'Always'}",
         {"\"exec.interactiveMode\" is Always", "no terminal", "bad6"}},
        {SERVER, "'exec': {'apiVersion': 'client.authentication.k8s.io/v1alpha1', 'command': 'aws'}",
         {"\"exec.apiVersion\" must be", "v1alpha1", "bad7"}},
        {SERVER, "'auth-provider': {'name': 'gcp'}", {"\"auth-provider.name\" is gcp", "gke-gcloud-auth-plugin", "bad8"}},
        {SERVER, "'auth-provider': {'name': 'azure'}", {"kubelogin", "bad9", "removed"}},
        {SERVER ", 'certificate-authority': 'no-such-ca.pem'", "", {"\"certificate-authority\" names", "no-such-ca.pem", "cannot be read"}},
        {"'certificate-authority-data': '" CA_B64 "'", "", {"\"server\" is not set", "localhost:8080", "bad11"}},
        {SERVER ", 'insecure-skip-tls-verify': true, 'certificate-authority-data': '" CA_B64 "'", "",
         {"\"insecure-skip-tls-verify\" is set together with a certificate authority", "bad12", "cluster"}},
        {SERVER ", 'insecure-skip-tls-verify': 'yes'", "", {"\"insecure-skip-tls-verify\" must be true or false", "bad13", "x"}},
        {SERVER ", 'proxy-url': 'ftp://p'", "", {"\"proxy-url\" must start with", "bad14", "x"}},
        {SERVER, "'exec': {'apiVersion': 'client.authentication.k8s.io/v1beta1', 'command': 'a'}, 'token': 't'",
         {"\"exec\" is set with a token", "bad15", "x"}},
        {SERVER, "'token': 5", {"\"token\" must be a string", "bad16", "x"}},
        {SERVER ", 'certificate-authority-data': 'not base64!'", "", {"\"certificate-authority-data\" is not base64", "bad17", "x"}},
        {SERVER, "'as': 'jane', 'as-user-extra': {'reason': ['x']}", {"as-user-extra", "bad18", "not supported"}},
        {"'server': 'ftp://k8s.test'", "", {"\"server\" must be an http:// or https:// URL", "bad19", "x"}},
        /* no host (curl would read "http:/api/..." as host "api"), blanks, a CR LF */
        {"'server': 'http://'", "'token': 'Tok3n-0123456789abc'", {"\"server\" must name a host", "bad20", "x"}},
        {"'server': 'https:///api'", "", {"\"server\" must name a host", "bad21", "x"}},
        {"'server': ' k8s.test:6443'", "", {"\"server\" must name a host", "bad22", "blanks"}},
        {"'server': 'https://h\\r\\nX-Injected: 1'", "", {"\"server\" must name a host", "bad23", "control"}},
        /* each field of the wrong type */
        {SERVER ", 'certificate-authority-data': 5", "", {"\"certificate-authority-data\" must be a string", "bad24", "x"}},
        {SERVER ", 'proxy-url': 5", "", {"\"proxy-url\" must be a string", "bad25", "x"}},
        {SERVER, "'tokenFile': 5", {"\"tokenFile\" must be a string", "bad26", "x"}},
        {SERVER, "'client-certificate-data': '" CERT_B64 "', 'client-key': 5", {"\"client-key\" must be a string", "bad27", "x"}},
        {SERVER, "'username': 5", {"\"username\" must be a string", "bad28", "x"}},
        {SERVER, "'password': 5", {"\"password\" must be a string", "bad29", "x"}},
        {SERVER, "'as': ['jane']", {"\"as\" must be a string", "bad30", "x"}},
        {SERVER, "'as-uid': 42", {"\"as-uid\" must be a string", "bad31", "x"}},
        {SERVER, "'as-groups': 'dev'", {"\"as-groups\" must be a list of strings", "bad32", "x"}},
        {SERVER, "'as-groups': ['dev', 7]", {"\"as-groups\" must be a list of strings", "bad33", "x"}},
        {SERVER, "'tokenFile': 'tok', 'password': 'p'", {"\"tokenFile\" and username/password", "bad34", "x"}},
        {SERVER, "'exec': {'apiVersion': 'client.authentication.k8s.io/v1', 'command': 'a'}, 'auth-provider': {'name': 'oidc'}",
         {"\"exec\" and auth-provider are both set", "bad35", "x"}},
        {SERVER, "'auth-provider': {'name': 'oidc', 'config': {'id-token': 't'}}, 'client-certificate-data': '" CERT_B64 "', "
                 "'client-key-data': '" KEY_B64 "'",
         {"\"auth-provider\" is set with a token, password or certificate", "bad36", "x"}},
        {SERVER, "'exec': {'apiVersion': 'client.authentication.k8s.io/v1beta1'}", {"\"exec.command\" is not set", "bad37", "x"}},
        {SERVER, "'exec': {'apiVersion': 'client.authentication.k8s.io/v1beta1', 'command': 'a', 'installHint': 5}",
         {"\"exec.installHint\" must be a string", "bad38", "x"}},
        {SERVER, "'exec': {'apiVersion': 'client.authentication.k8s.io/v1beta1', 'command': 'a', 'interactiveMode': 'Sometimes'}",
         {"\"exec.interactiveMode\" must be Never, IfAvailable or Always", "bad39", "x"}},
        {SERVER, "'exec': {'apiVersion': 'client.authentication.k8s.io/v1beta1', 'command': 'a', 'provideClusterInfo': 'yes'}",
         {"\"exec.provideClusterInfo\" must be true or false", "bad40", "x"}},
        {SERVER, "'exec': {'apiVersion': 'client.authentication.k8s.io/v1beta1', 'command': 'a', 'args': 'one'}",
         {"\"exec.args\" must be a list of strings", "bad41", "x"}},
        {SERVER, "'exec': {'apiVersion': 'client.authentication.k8s.io/v1beta1', 'command': 'a', 'env': {'name': 'A'}}",
         {"\"exec.env\" must be a list of {name, value}", "bad42", "x"}},
        {SERVER, "'exec': {'apiVersion': 'client.authentication.k8s.io/v1beta1', 'command': 'a', 'env': [{'name': 'A'}]}",
         {"\"exec.env\" must be a list of {name, value} strings", "bad43", "x"}},
        {SERVER, "'exec': {'apiVersion': 'client.authentication.k8s.io/v1beta1', 'command': 'a', 'env': [{'name': 'A', 'value': 1}]}",
         {"\"exec.env\" must be a list of {name, value} strings", "bad44", "x"}},
        {SERVER, "'exec': {'apiVersion': 'client.authentication.k8s.io/v1beta1', 'command': 'a', 'env': [{'name': 'A=B', 'value': '1'}]}",
         {"\"exec.env\" has a name that is empty or holds '=' or NUL", "bad45", "x"}},
        {SERVER, "'exec': {'apiVersion': 'client.authentication.k8s.io/v1beta1', 'command': 'a', 'env': [{'name': '', 'value': '1'}]}",
         {"\"exec.env\" has a name that is empty or holds '=' or NUL", "bad46", "x"}},
        {SERVER, "'auth-provider': {'config': {'id-token': 't'}}", {"\"auth-provider.name\" is not set", "bad47", "x"}},
        {SERVER, "'auth-provider': {'name': 7}", {"\"auth-provider.name\" must be a string", "bad48", "x"}},
        {SERVER, "'auth-provider': {'name': 'openstack'}", {"\"auth-provider.name\" names a provider the library does not know",
                                                          "oidc only", "bad49"}},
        {SERVER, "'auth-provider': {'name': 'oidc', 'config': {'refresh-token': 'r'}}",
         {"\"auth-provider.config.id-token\" is not set", "kubelogin", "bad50"}},
        {SERVER, "'auth-provider': {'name': 'oidc', 'config': {'id-token': 5}}",
         {"\"auth-provider.config.id-token\" must be a string", "bad51", "x"}},
        {SERVER ", 'certificate-authority-data': 'Y2E=Y2E='", "", {"\"certificate-authority-data\" is not base64", "bad52", "x"}}, /* data after its padding */
        {SERVER ", 'certificate-authority-data': '=Y2E'", "", {"\"certificate-authority-data\" is not base64", "bad53", "x"}}, /* padding first */
        {SERVER ", 'certificate-authority-data': 'Y2E'", "", {"\"certificate-authority-data\" is not base64", "bad54", "x"}}, /* a quad short */
        {SERVER ", 'certificate-authority-data': 'AA=='", "", {"\"certificate-authority-data\" is not base64", "bad55", "x"}}, /* a NUL byte */
        /* an exec.env entry without its name, or with a name that is no string */
        {SERVER, "'exec': {'apiVersion': '" EXEC_V1BETA1 "', 'command': 'a', 'env': [{'value': '1'}]}",
         {"\"exec.env\" must be a list of {name, value} strings", "bad56", "x"}},
        {SERVER, "'exec': {'apiVersion': '" EXEC_V1BETA1 "', 'command': 'a', 'env': [{'name': 5, 'value': '1'}]}",
         {"\"exec.env\" must be a list of {name, value} strings", "bad57", "x"}},
        /* groups, uid or user-extra with no user to impersonate (an empty "as" is none): kubectl
           refuses them ("requesting uid, groups or user-extra for x without impersonating a user") */
        {SERVER, "'token': 't', 'as-groups': ['dev']", {"user \"x\": \"as-groups\" is set without \"as\"", "bad58", "impersonate"}},
        {SERVER, "'as-uid': '42'", {"\"as-uid\" is set without \"as\"", "bad59", "x"}},
        {SERVER, "'as-user-extra': {'reason': []}", {"\"as-user-extra\" is set without \"as\"", "bad60", "x"}},
        {SERVER, "'as': '', 'as-uid': '42', 'as-groups': ['']", {"\"as-groups\" is set without \"as\"", "bad61", "x"}},
    };
    size_t i;
    (void)state;
    for (i = 0; i < N(cases); i++) {
        char name[16];
        const char *path;
        cres_error err;
        size_t w;
        snprintf(name, sizeof name, "bad%zu", i);
        path = config_json(name, cases[i].cluster, cases[i].user);
        if (resolve(path, NULL, &err) != CRES_ERR_ENVIRONMENT)
            fail_msg("case %zu: want CRES_ERR_ENVIRONMENT, got: %s", i, err.message);
        HAS(err.message, "kubernetes: kubeconfig \"");
        HAS(err.message, name);
        for (w = 0; w < N(cases[i].words); w++) HAS(err.message, cases[i].words[w]);
    }
    assert_int_equal(T.requests_count, 0);
}

/* More of the fields, each with what it does: basic auth with one half, nulls for the
   methods not used, an empty or null as-user-extra (and empty as-groups and as-uid, which
   need no "as"), a server without a scheme or with trailing slashes,
   insecure-skip-tls-verify null, an https:// proxy; servers that name no host, and exec
   with any other method (a username alone too). */
static void fields_in_their_other_forms(void **state) {
    cres_error err;
    (void)state;
    OK(resolve(config_json("u-only", SERVER, "'username': 'admin', 'exec': null, 'auth-provider': null, "
                           "'as-user-extra': {}, 'as-groups': [], 'as-uid': ''"),
               NULL, &err));
    assert_string_equal(header(0, "Authorization"), "Basic YWRtaW46"); /* admin: */
    assert_null(header(0, "Impersonate-Group")); /* empty ones ask for nothing: no "as" needed */
    assert_null(header(0, "Impersonate-Uid"));
    OK(resolve(config_json("p-only", "'server': 'k8s.test:6443///', 'insecure-skip-tls-verify': null",
                           "'password': 'pw', 'as-user-extra': null"),
               NULL, &err));
    assert_string_equal(header(1, "Authorization"), "Basic OnB3"); /* :pw */
    OK(resolve(config_json("crlf", SERVER ", 'certificate-authority-data': 'LS0tLS1CRUdJTiBDRVJUSUZJQ0FURS0tLS0tCk1Ba01CM1JsYzNRZ1ky"
                           "\\r\\nRT0KLS0tLS1FTkQgQ0VSVElGSUNBVEUtLS0tLQ=='", "'token': 't'"), NULL, &err));
    assert_string_equal(T.requests[2].ca_pem, CA_PEM); /* line breaks in base64 are skipped, as Go does */
    /* keys are compared decoded: "tok\\u0065x" is "tokex", not "token"; long ones too */
    OK(resolve(config_json("esc", SERVER, "'tok\\u0065x': 'no', 'to\\u006ben': 'yes', "
                           "'an-unknown-key-long-enough-not-to-be-any-of-the-fields-at-all\\u0021': 1"),
               NULL, &err));
    assert_string_equal(header(3, "Authorization"), "Bearer yes");
    assert_string_equal(T.requests[1].url,
                        "https://k8s.test:6443/api/v1/namespaces/default/pods?labelSelector=job-name%3Dw&limit=500");
    HAS(logs.text, "user \"x\": basic auth");
    OK(resolve(config_json("https-proxy", SERVER ", 'proxy-url': 'https://proxy.corp:8443'", "'token': 't'"), NULL, &err));
    assert_string_equal(T.requests[4].proxy, "https://proxy.corp:8443");
    FAILS(resolve(config_json("q", "'server': 'https://?x'", ""), NULL, &err), CRES_ERR_ENVIRONMENT,
          "\"server\" must name a host");
    FAILS(resolve(config_json("h", "'server': 'https://#x'", ""), NULL, &err), CRES_ERR_ENVIRONMENT,
          "\"server\" must name a host");
    FAILS(resolve(config_json("ins", SERVER ", 'insecure-skip-tls-verify': 1", ""), NULL, &err), CRES_ERR_ENVIRONMENT,
          "\"insecure-skip-tls-verify\" must be true or false");
    FAILS(resolve(config_json("execpw", SERVER, "'exec': {'apiVersion': '" EXEC_V1BETA1 "', 'command': 'a'}, 'password': 'p'"),
                  NULL, &err),
          CRES_ERR_ENVIRONMENT, "\"exec\" is set with a token, password or certificate");
    FAILS(resolve(config_json("execcert", SERVER, "'exec': {'apiVersion': '" EXEC_V1BETA1 "', 'command': 'a'}, "
                              "'client-certificate-data': '" CERT_B64 "', 'client-key-data': '" KEY_B64 "'"),
                  NULL, &err),
          CRES_ERR_ENVIRONMENT, "\"exec\" is set with a token, password or certificate");
    FAILS(resolve(config_json("execuser", SERVER, "'exec': {'apiVersion': '" EXEC_V1BETA1 "', 'command': 'a'}, "
                              "'username': 'admin'"),
                  NULL, &err),
          CRES_ERR_ENVIRONMENT, "\"exec\" is set with a token, password or certificate");
    FAILS(resolve(config_json("execfile", SERVER, "'exec': {'apiVersion': '" EXEC_V1BETA1 "', 'command': 'a'}, "
                              "'tokenFile': 'f'"),
                  NULL, &err),
          CRES_ERR_ENVIRONMENT, "\"exec\" is set with a token, password or certificate");
}

/* A file a kubeconfig names that is larger than the library reads (1 MiB for PEM files) is
   named, said too large, and no request is made. */
static void named_file_too_large(void **state) {
    size_t n = 1024 * 1024 + 1;
    char *big = (char *)malloc(n + 1);
    (void)state;
    assert_non_null(big);
    memset(big, 'A', n);
    big[n] = '\0';
    put("big-ca.pem", big);
    free(big);
    FAILS(resolve(config_json("bigca", SERVER ", 'certificate-authority': 'big-ca.pem'", "'token': 't'"), NULL, &err),
          CRES_ERR_ENVIRONMENT, "\"certificate-authority\" names", "big-ca.pem", "which cannot be read (too large)");
    assert_int_equal(T.requests_count, 0);
}

/* Where the kubeconfig files come from, at its limits: more files in $KUBECONFIG than the
   library reads, a HOME too long for a path, and several files that set no current-context
   (the message names the first "and the others"). */
static void kubeconfig_files_at_their_limits(void **state) {
    char list[CRES_MAX_KUBECONFIG_FILES * 80 + 128], home[4200];
    const char *a;
    size_t used = 0;
    int i;
    (void)state;
    for (i = 0; i <= CRES_MAX_KUBECONFIG_FILES; i++) { /* files that are there: missing ones are skipped */
        char name[16];
        snprintf(name, sizeof name, "f%d", i);
        used += (size_t)snprintf(list + used, sizeof list - used, "%s%s", i ? ":" : "", put(name, "{}"));
    }
    env_set("KUBECONFIG", list);
    FAILS(resolve(NULL, NULL, &err), CRES_ERR_LIMIT, "$KUBECONFIG names more than");
    a = put("first", dq("{'clusters': [{'name': 'a', 'cluster': {'server': 'https://a'}}]}"));
    snprintf(list, sizeof list, "%s:%s", a, put("second", "{}"));
    env_set("KUBECONFIG", list);
    FAILS(resolve(NULL, NULL, &err), CRES_ERR_ENVIRONMENT, "first", "\" and the others ($KUBECONFIG) sets no current-context");
    FAILS(resolve(NULL, "c", &err), CRES_ERR_ENVIRONMENT, "context \"c\" is defined in no kubeconfig file",
          "and the others, of $KUBECONFIG");
    env_set("KUBECONFIG", "");
    env_set("HOME", ""); /* no home: no ~/.kube/config */
    FAILS(resolve(NULL, NULL, &err), CRES_ERR_ENVIRONMENT, "no kubeconfig");
    memset(home, 'h', sizeof home - 1);
    home[0] = '/';
    home[sizeof home - 1] = '\0';
    env_set("HOME", home);
    FAILS(resolve(NULL, NULL, &err), CRES_ERR_ENVIRONMENT, "no kubeconfig");
}

static void contexts_clusters_and_users_that_name_nothing(void **state) {
    (void)state;
    FAILS(resolve(config_json("c1", SERVER, ""), "nope", &err), CRES_ERR_ENVIRONMENT,
          "context \"nope\" is defined in no kubeconfig file", "options.kubeconfig");
    put("c2", dq("{'current-context': 'gone', 'contexts': []}"));
    env_set("KUBECONFIG", put("c2", dq("{'current-context': 'gone', 'contexts': null}")));
    FAILS(resolve(NULL, NULL, &err), CRES_ERR_ENVIRONMENT,
          "current-context \"gone\" is defined in no kubeconfig file", "c2", "$KUBECONFIG");
    FAILS(resolve(put("c3", dq("{'current-context': 'x', 'contexts': [{'name': 'x', 'context': {'cluster': 'k', "
                              "'user': 'u'}}], 'clusters': [{'name': 'k', 'cluster': {'server': 'https://k'}}]}")),
                  NULL, &err),
          CRES_ERR_ENVIRONMENT, "context \"x\": \"user\" names \"u\", which no kubeconfig file defines");
    FAILS(resolve(put("c4", dq("{'current-context': 'x', 'contexts': [{'name': 'x', 'context': {'cluster': 'k'}}]}")),
                  NULL, &err),
          CRES_ERR_ENVIRONMENT, "\"cluster\" names \"k\", which no kubeconfig file defines", "localhost:8080");
    FAILS(resolve(put("c5", dq("{'current-context': 'x', 'contexts': [{'name': 'x', 'context': {'cluster': 'k'}}, "
                              "{'name': 'x', 'context': {}}]}")),
                  NULL, &err),
          CRES_ERR_ENVIRONMENT, "contexts names \"x\" twice");
    FAILS(resolve(put("c6", dq("{'clusters': {'name': 'x'}}")), "x", &err), CRES_ERR_ENVIRONMENT,
          "\"clusters\" must be a list");
    FAILS(resolve(put("c7", dq("{'users': [{'user': {}}]}")), "x", &err), CRES_ERR_ENVIRONMENT,
          "users[0] has no \"name\" string");
    FAILS(resolve(put("c8", "{\"clusters\": ["), "x", &err), CRES_ERR_ENVIRONMENT, "c8", "invalid JSON");
    FAILS(resolve(put("c9", "[1]"), "x", &err), CRES_ERR_ENVIRONMENT, "c9", "not a mapping");
    env_set("KUBECONFIG", put("c10", dq("{'current-context': 5}")));
    FAILS(resolve(NULL, NULL, &err), CRES_ERR_ENVIRONMENT, "c10", "\"current-context\" must be a string");
    FAILS(resolve(put("c11", dq("{'users': [{'name': 5, 'user': {}}]}")), "x", &err), CRES_ERR_ENVIRONMENT,
          "c11", "users[0] has no \"name\" string");
    /* the first entry without a name is the one named, the later ones are not looked at */
    FAILS(resolve(put("c12", dq("{'users': [{'user': {}}, {'name': 7}]}")), "x", &err), CRES_ERR_ENVIRONMENT,
          "c12\": users[0] has no \"name\" string");
    FAILS(resolve(put("c13", dq("{'current-context': 'x', 'contexts': [{'name': 'x', 'context': {'user': 'u'}}]}")),
                  NULL, &err),
          CRES_ERR_ENVIRONMENT, "c13\": context \"x\": \"cluster\" is not set");
}

/* 100,000 contexts in one file are checked for a name given twice in n log n, not n^2 (which
   would take minutes here). */
static void many_entries_are_checked_quickly(void **state) {
    const size_t n = 100000;
    size_t used = 0, i, cap = n * 64 + 256;
    char *text = (char *)malloc(cap);
    (void)state;
    assert_non_null(text);
    used += (size_t)snprintf(text + used, cap - used, "{\"contexts\": [");
    for (i = 0; i < n; i++)
        used += (size_t)snprintf(text + used, cap - used, "{\"name\": \"ctx-%zu\", \"context\": {}},", i);
    used += (size_t)snprintf(text + used, cap - used, "{\"name\": \"ctx-77\"}]}");
    FAILS(resolve(put("many", text), "ctx-1", &err), CRES_ERR_ENVIRONMENT, "contexts names \"ctx-77\" twice");
    free(text);
}

/* ---------------------------------------------------------------------------------------
   YAML, as kubectl writes it and as people edit it */

static void yaml_as_kubectl_writes_it(void **state) {
    cres_error err;
    (void)state;
    OK(resolve(put("kubectl.yaml",
                   "apiVersion: v1\n"
                   "clusters:\n"
                   "- cluster:\n"
                   "    certificate-authority-data: " CA_B64 "\n"
                   "    server: https://k8s.test:6443\n"
                   "  name: arn:aws:eks:us-east-1:123456789012:cluster/train\n"
                   "contexts:\n"
                   "- context:\n"
                   "    cluster: arn:aws:eks:us-east-1:123456789012:cluster/train\n"
                   "    namespace: ml\n"
                   "    user: arn:aws:eks:us-east-1:123456789012:cluster/train\n"
                   "  name: arn:aws:eks:us-east-1:123456789012:cluster/train\n"
                   "current-context: arn:aws:eks:us-east-1:123456789012:cluster/train\n"
                   "kind: Config\n"
                   "preferences: {}\n"
                   "users:\n"
                   "- name: arn:aws:eks:us-east-1:123456789012:cluster/train\n"
                   "  user:\n"
                   "    token: 'abc:def'\n"),
               NULL, &err));
    HAS(T.requests[0].url, "/namespaces/ml/");
    assert_string_equal(T.requests[0].ca_pem, CA_PEM);
    assert_string_equal(header(0, "Authorization"), "Bearer abc:def");
}

static void yaml_as_people_edit_it(void **state) {
    cres_error err;
    (void)state;
    OK(resolve(put("edited.yaml",
                   "---\r\n"
                   "# shared CA, referenced twice\r\n"
                   "clusters:\r\n"
                   "  - name: a\r\n"
                   "    cluster: &c {server: \"https://k8s.test\", certificate-authority-data: " CA_B64 "}\r\n"
                   "  - name: b\r\n"
                   "    cluster: *c\r\n"
                   "contexts: [{name: ctx, context: {cluster: b, user: u}}]\r\n"
                   "current-context: ctx   # trailing comment\r\n"
                   "users:\r\n"
                   "  - name: u\r\n"
                   "    user:\r\n"
                   "      token: >-\r\n"
                   "        folded\r\n"
                   "      as: ~\r\n"
                   "---\r\n"
                   "current-context: ignored-second-document\r\n"),
               NULL, &err));
    HAS(T.requests[0].url, "https://k8s.test/");
    assert_string_equal(header(0, "Authorization"), "Bearer folded");
    assert_null(header(0, "Impersonate-User"));
}

static void yaml_one_one_booleans_are_not_strings(void **state) {
    cres_error err;
    (void)state;
    FAILS(resolve(put("on.yaml", "current-context: x\ncontexts:\n- name: x\n  context: {cluster: k}\n"
                                 "clusters:\n- name: k\n  cluster: {server: https://k, tls-server-name: on}\n"),
                  NULL, &err),
          CRES_ERR_ENVIRONMENT, "\"tls-server-name\" must be a string");
    FAILS(resolve(put("merge.yaml", "base: &b {server: https://k}\nclusters:\n- name: k\n  cluster:\n    <<: *b\n"),
                  "x", &err),
          CRES_ERR_ENVIRONMENT, "merge.yaml", "merge keys");
    FAILS(resolve(put("broken.yaml", "clusters:\n- name: [\n"), "x", &err), CRES_ERR_ENVIRONMENT,
          "broken.yaml", "YAML at line");
    FAILS(resolve(put("alias.yaml", "a: *nothing\n"), "x", &err), CRES_ERR_ENVIRONMENT,
          "an alias names no anchor");
    FAILS(resolve(put("keymap.yaml", "clusters:\n- ? {name: k}\n  : x\n"), "x", &err), CRES_ERR_ENVIRONMENT,
          "keymap.yaml", "YAML at line 2: a key is a mapping or a list");
    FAILS(resolve(put("keyalias.yaml", "a: &l [1]\nb: {*l : 2}\n"), "x", &err), CRES_ERR_ENVIRONMENT,
          "keyalias.yaml", "an alias used as a key is no string");
    /* YAML's "\0" escape: refused at its line, not as the JSON copy's offset */
    FAILS(resolve(put("nul.yaml", "current-context: c\nusers:\n- name: u\n  user: {token: \"a\\0b\"}\n"), "x", &err),
          CRES_ERR_ENVIRONMENT, "nul.yaml\": YAML at line 4: a string holds a NUL character");
    OK(resolve(put("keyalias2.yaml", "a: &n k\nclusters: [{name: *n, cluster: {server: https://k8s.test}}]\n"
                                    "contexts: [{name: c, context: {cluster: k}}]\ncurrent-context: c\n"),
               NULL, &err));
    HAS(T.requests[0].url, "https://k8s.test/");
}

/* Every allocation of a resolve through a YAML kubeconfig (anchors of a scalar, a mapping and
   a list and their aliases, a path relative to the file, base64 data, an extension) fails in
   turn: each run ends in the answer or out of memory, with nothing leaked. */
static cres_result yaml_walk_run(test_alloc *t, const void *ctx) {
    cres_k8s_options o = kube_options((const char *)ctx, NULL);
    cres_config cfg = T.cfg;
    cres_resolver *r = NULL;
    cres_cluster_spec *spec = NULL;
    cres_error err;
    cres_result res;
    test_alloc_use(&cfg.allocator, t);
    o.config = &cfg;
    T.requests_count = 0;
    res = checked(cres_k8s_resolver_create(&o, &r, &err), &err);
    if (res == CRES_OK) res = checked(cres_resolve(r, &spec, &err), &err);
    if (res == CRES_OK && cres_spec_tasks_count(spec, "worker") != 2) res = mismatch("workers", json_of(spec));
    if (res == CRES_OK && strcmp(header(0, "Authorization"), "Bearer yaml-token") != 0)
        res = mismatch("authorization", header(0, "Authorization"));
    if (res == CRES_OK && strcmp(header(0, "Impersonate-Group"), "dev") != 0)
        res = mismatch("group", header(0, "Impersonate-Group"));
    if (res == CRES_OK && strcmp(T.requests[0].ca_pem, CA_PEM) != 0) res = mismatch("ca", T.requests[0].ca_pem);
    cres_spec_free(spec);
    cres_resolver_free(r);
    return res;
}

static void yaml_kubeconfig_under_allocation_failures(void **state) {
    const char *path;
    (void)state;
    put("y/ca.pem", CA_PEM);
    path = put("y/config.yaml",
               "current-context: c\n"
               "contexts: [{name: c, context: {cluster: k, user: u, namespace: ml}}]\n"
               "clusters:\n"
               "- name: k\n"
               "  cluster:\n"
               "    server: &s https://k8s.test\n"
               "    certificate-authority: ca.pem\n"
               "    extensions: [{name: client.authentication.k8s.io/exec, extension: {a: [1, 2.5, null, yes]}}]\n"
               "- {name: k2, cluster: &k2 {server: *s}}\n"
               "- {name: k3, cluster: *k2}\n"
               "users:\n"
               "- name: u\n"
               "  user: {token: yaml-token, as: jane, as-groups: &g [dev, ops], "
               "client-certificate-data: " CERT_B64 ", client-key-data: " KEY_B64 "}\n"
               "- {name: u2, user: {as-groups: *g}}\n");
    alloc_walk("yaml kubeconfig", yaml_walk_run, path, CRES_OK);
}

/* YAML nested deeper than JSON may be (CRES_MAX_JSON_DEPTH) is refused while it is read. */
static void yaml_nested_too_deeply(void **state) {
    char text[4 * CRES_MAX_JSON_DEPTH + 64];
    size_t used = 0;
    int i;
    (void)state;
    used += (size_t)snprintf(text + used, sizeof text - used, "a: ");
    for (i = 0; i <= CRES_MAX_JSON_DEPTH; i++) used += (size_t)snprintf(text + used, sizeof text - used, "[");
    for (i = 0; i <= CRES_MAX_JSON_DEPTH; i++) used += (size_t)snprintf(text + used, sizeof text - used, "]");
    snprintf(text + used, sizeof text - used, "\n");
    FAILS(resolve(put("deep.yaml", text), "x", &err), CRES_ERR_ENVIRONMENT, "deep.yaml", "it is nested too deeply");
}

/* Aliases that double at each level would make 2^40 bytes of JSON: stopped at the limit. */
static void yaml_alias_bomb_is_bounded(void **state) {
    char text[4096];
    size_t used = 0;
    int i;
    (void)state;
    used += (size_t)snprintf(text + used, sizeof text - used, "a0: &a0 [x, x]\n");
    for (i = 1; i <= 40; i++)
        used += (size_t)snprintf(text + used, sizeof text - used, "a%d: &a%d [*a%d, *a%d]\n", i, i,
                                 i - 1, i - 1);
    FAILS(resolve(put("bomb.yaml", text), "x", &err), CRES_ERR_LIMIT, "bomb.yaml", "over");
}

/* A YAML file whose JSON is json_bytes long: a scalar of `len` bytes repeated by `copies`
   aliases, then a padding scalar and a last key. */
static const char *yaml_of_json_size(const char *name, size_t json_bytes) {
    const size_t len = 60000, copies = 278;
    /* {"s":"<len>","l":[<copies> of "<len>"],"p":"<pad>","e":1} */
    size_t fixed = 1 + 4 + (len + 2) + 1 + 4 + 1 + copies * (len + 2) + (copies - 1) + 1 + 1 + 4 + 2 + 7;
    size_t pad = json_bytes - fixed, cap = len + pad + copies * 4 + 64, used = 0, i;
    char *text = (char *)malloc(cap);
    const char *path;
    assert_non_null(text);
    assert_true(json_bytes > fixed);
    used += (size_t)snprintf(text + used, cap - used, "s: &s ");
    memset(text + used, 'x', len), used += len;
    used += (size_t)snprintf(text + used, cap - used, "\nl: [");
    for (i = 0; i < copies; i++) used += (size_t)snprintf(text + used, cap - used, "%s*s", i ? ", " : "");
    used += (size_t)snprintf(text + used, cap - used, "]\np: ");
    memset(text + used, 'y', pad), used += pad;
    snprintf(text + used, cap - used, "\ne: 1\n");
    path = put(name, text);
    free(text);
    return path;
}

/* YAML whose JSON is exactly CRES_MAX_DOCUMENT_BYTES long is read; one byte more is
   CRES_ERR_LIMIT, whether the byte over is the closing brace or the comma before a last key. */
static void yaml_at_the_document_limit(void **state) {
    (void)state;
    FAILS(resolve(yaml_of_json_size("at-limit.yaml", CRES_MAX_DOCUMENT_BYTES), "x", &err), CRES_ERR_ENVIRONMENT,
          "context \"x\" is defined in no kubeconfig file"); /* read whole, then looked in */
    FAILS(resolve(yaml_of_json_size("brace-over.yaml", CRES_MAX_DOCUMENT_BYTES + 1), "x", &err), CRES_ERR_LIMIT,
          "brace-over.yaml", "as JSON it is over 16777216 bytes");
    FAILS(resolve(yaml_of_json_size("comma-over.yaml", CRES_MAX_DOCUMENT_BYTES + 7), "x", &err), CRES_ERR_LIMIT,
          "comma-over.yaml", "as JSON it is over 16777216 bytes");
}

static void empty_files_are_empty_configs(void **state) {
    char list[512];
    const char *a, *b, *c;
    cres_error err;
    (void)state;
    a = put("empty", "");
    b = put("comments.yaml", "# nothing here\n---\n");
    c = put("nulls.yaml", "clusters: null\nusers: null\ncontexts: null\ncurrent-context: \"\"\n");
    snprintf(list, sizeof list, "%s:%s:%s:%s:%s", a, b, c,
             put("only-comments.yaml", "# no document at all, not even ---\n"), /* a stream of no document */
             config_json("real", SERVER, "'token': 't'"));
    env_set("KUBECONFIG", list);
    OK(resolve(NULL, NULL, &err));
    assert_string_equal(header(0, "Authorization"), "Bearer t");
}

/* ---------------------------------------------------------------------------------------
   Exec plugins (through the scripted config.exec hook) */

#define EXEC_V1 "client.authentication.k8s.io/v1"
#define EXEC_USER(more)                                                                    \
    "'exec': {'apiVersion': '" EXEC_V1 "', 'command': 'bin/get-token', 'args': ['--cluster', 'c1'], " \
    "'env': [{'name': 'PROFILE', 'value': 'ml'}, {'name': 'HOME', 'value': '/plugin-home'}], " \
    "'interactiveMode': 'Never', 'installHint': 'install get-token'" more "}"
#define CRED(token, expiry)                                                                \
    "{\"apiVersion\": \"" EXEC_V1 "\", \"kind\": \"ExecCredential\", \"status\": {\"token\": \"" token \
    "\"" expiry "}}"

static void exec_plugin_gets_args_env_and_exec_info(void **state) {
    const char *path;
    char want[256];
    cres_error err;
    (void)state;
    env_set("HOME", "/home/me");
    env_set("PATH", "/usr/bin");
    env_set("KUBERNETES_EXEC_INFO", "stale");
    env_set("PROF", "kept"); /* a name exec.env's PROFILE starts with: not replaced by it */
    plugin(0, CRED("t-1", ""), "note: from the plugin\r\n\r\nsecond note\r\n");
    path = config_json("exec", SERVER ", 'certificate-authority-data': '" CA_B64 "', 'extensions': [{'name': "
                       "'client.authentication.k8s.io/exec', 'extension': {'audience': 'k8s'}}]",
                       EXEC_USER(", 'provideClusterInfo': true"));
    OK(resolve(path, NULL, &err));
    snprintf(want, sizeof want, "%s/bin/get-token", T.dir);
    assert_string_equal(T.runs[0].argv[0], want);
    assert_string_equal(T.runs[0].argv[1], "--cluster");
    assert_string_equal(T.runs[0].argv[2], "c1");
    assert_int_equal(T.runs[0].argc, 3);
    HAS(T.runs[0].env, "PATH=/usr/bin\n");
    HAS(T.runs[0].env, "PROFILE=ml\n");
    HAS(T.runs[0].env, "PROF=kept\n");
    HAS(T.runs[0].env, "HOME=/plugin-home\n"); /* exec.env over the process's */
    assert_null(strstr(T.runs[0].env, "HOME=/home/me"));
    assert_null(strstr(T.runs[0].env, "stale"));
    assert_string_equal(T.runs[0].info,
                        "{\"kind\":\"ExecCredential\",\"apiVersion\":\"" EXEC_V1 "\",\"spec\":{\"cluster\":{"
                        "\"server\":\"https://k8s.test:6443\",\"certificate-authority-data\":\"" CA_B64 "\","
                        "\"config\":{\"audience\": \"k8s\"}},\"interactive\":false}}");
    assert_string_equal(header(0, "Authorization"), "Bearer t-1");
    HAS(logs.text, "exec plugin \"");
    /* stderr's CR LF lines are logged one by one, without the CR and without the empty one */
    HAS(logs.text, "get-token\": note: from the plugin\nINFO kubernetes: exec plugin \"");
    HAS(logs.text, "get-token\": second note\n");
    assert_null(strstr(logs.text, "t-1"));
    assert_true(T.runs[0].timeout_ms > 0 && T.runs[0].timeout_ms <= 60000); /* what is left of the resolve */
}

static void exec_credential_kept_until_it_expires(void **state) {
    cres_k8s_options o = kube_options(config_json("exp", SERVER, EXEC_USER("")), NULL);
    cres_error err;
    (void)state;
    plugin(0, CRED("never-expires", ""), "");
    OK(resolve_times(&o, 2, &err)); /* no second run: the credential has no expiry */
    assert_int_equal(T.plugin_next, 1);
    /* a credential that has expired is used once, as it came, then replaced before the
       next request (kubectl's rule: it checks the cached one's expiry at each request) */
    plugin(0, CRED("old", ", \"expirationTimestamp\": \"2020-01-01T00:00:00Z\""), "");
    plugin(0, CRED("new", ", \"expirationTimestamp\": \"2099-01-01T00:00:00+02:00\""), "");
    OK(resolve_times(&o, 3, &err));
    assert_int_equal(T.plugin_next, 3);
    assert_string_equal(header(2, "Authorization"), "Bearer old");
    assert_string_equal(header(3, "Authorization"), "Bearer new");
    assert_string_equal(header(4, "Authorization"), "Bearer new");
}

/* What an exec plugin is told of the cluster (provideClusterInfo): every TLS field set. */
static void exec_info_names_every_cluster_field(void **state) {
    cres_error err;
    (void)state;
    plugin(0, CRED("t", ""), "");
    OK(resolve(config_json("info", SERVER ", 'tls-server-name': 'api.internal', 'insecure-skip-tls-verify': true, "
                           "'proxy-url': 'http://proxy:3128'",
                           EXEC_USER(", 'provideClusterInfo': true")),
               NULL, &err));
    assert_string_equal(T.runs[0].info,
                        "{\"kind\":\"ExecCredential\",\"apiVersion\":\"" EXEC_V1 "\",\"spec\":{\"cluster\":{"
                        "\"server\":\"https://k8s.test:6443\",\"tls-server-name\":\"api.internal\","
                        "\"insecure-skip-tls-verify\":true,\"proxy-url\":\"http://proxy:3128\"},"
                        "\"interactive\":false}}");
    /* extensions of other names (minikube's), or without their name or extension, are not
       the plugin's config */
    plugin(0, CRED("t", ""), "");
    OK(resolve(config_json("info2", SERVER ", 'extensions': [{'name': 'cluster_info', 'extension': {"
                           "'provider': 'minikube.sigs.k8s.io', 'version': 'v1.32.0'}}, "
                           "{'extension': {'a': 1}}, {'name': 'client.authentication.k8s.io/exec'}]",
                           EXEC_USER(", 'provideClusterInfo': true")),
               NULL, &err));
    assert_string_equal(T.runs[1].info,
                        "{\"kind\":\"ExecCredential\",\"apiVersion\":\"" EXEC_V1 "\",\"spec\":{\"cluster\":{"
                        "\"server\":\"https://k8s.test:6443\"},\"interactive\":false}}");
}

/* expirationTimestamp is RFC 3339 (kubectl's time.RFC3339): fractions, t and z in lower case,
   offsets, a leap second; one in the past (1970 and before too) is used once and replaced, one
   in the future kept; year 0000 (before 1 March of year 0: a negative year in the day count)
   and 29 February of a year divisible by 400 are times. A time without its offset, an
   offset out of range, a negative field and a day the month does not have are refused, as
   Go's time.Parse refuses them. */
static void exec_expiry_times(void **state) {
    static const struct {
        const char *when;
        int runs; /* of the plugin over two resolves: 1 kept, 2 expired */
    } cases[] = {
        {"2099-01-01T00:00:00.123456z", 1},
        {"2099-12-31t23:59:60+14:00", 1},
        {"2099-02-28T00:00:00-01:30", 1},
        {"2096-02-29T00:00:00Z", 1},
        {"1970-01-01T00:00:01+00:00", 2},
        {"1970-01-01T00:00:00Z", 2},
        {"1960-06-15T12:00:00Z", 2},
        {"2020-06-15T12:00:00.5-07:00", 2},
        {"0000-01-15T00:00:00Z", 2},
        {"2000-02-29T23:59:59.999Z", 2},
    };
    static const char *const bad[] = {
        "2099-01-01T00:00:00",  "2099/01/01T00:00:00Z", "2099-01-01 00:00:00Z", "2099-01-01T00-00:00Z",
        "2099-01-01T00:00-00Z", "20x9-01-01T00:00:00Z", "2099-00-01T00:00:00Z", "2099-13-01T00:00:00Z",
        "2099-01-00T00:00:00Z", "2099-01-32T00:00:00Z", "2099-01-01T24:00:00Z", "2099-01-01T00:60:00Z",
        "2099-01-01T00:00:61Z", "2099-01-01T00:00:00+0100", "2099-01-01T00:00:00+x1:00",
        "2099-01-01T00:00:00+01:x0", "2099-01-01T00:00:00Zjunk", "2099-01-01T00:00:00 Z", "2099-01-01T00:00:00-01-00",
        "2099-01-01T00:00:00.5", "2099-01-01T00:00:00.Z", "2099-01-01T00:00:00+24:00", "2099-01-01T00:00:00+01:60",
        "2099-01-01T00:00:00+-1:00", "2099-02-29T00:00:00Z", "2100-02-29T00:00:00Z", "2099-04-31T00:00:00Z",
        "2099-01/01T00:00:00Z", "2099-01-01T00:00:-1Z", "2099-01-01T00:00:00.+01:00", "2099-01-01T00:00:00+01:-1",
    };
    char out[2][256];
    size_t i;
    cres_k8s_options o = kube_options(config_json("when", SERVER, EXEC_USER("")), NULL);
    (void)state;
    for (i = 0; i < N(cases); i++) {
        cres_error err;
        T.plugin_count = T.plugin_next = T.requests_count = 0;
        snprintf(out[0], sizeof out[0], CRED("a", ", \"expirationTimestamp\": \"%s\""), cases[i].when);
        snprintf(out[1], sizeof out[1], CRED("b", ", \"expirationTimestamp\": \"%s\""), cases[i].when);
        plugin(0, out[0], "");
        plugin(0, out[1], "");
        OK(resolve_times(&o, 2, &err));
        if ((int)T.plugin_next != cases[i].runs)
            fail_msg("%s: the plugin ran %d times, want %d", cases[i].when, (int)T.plugin_next, cases[i].runs);
    }
    for (i = 0; i < N(bad); i++) {
        cres_error err;
        char want[80];
        T.plugin_count = T.plugin_next = 0;
        snprintf(out[0], sizeof out[0], CRED("a", ", \"expirationTimestamp\": \"%s\""), bad[i]);
        plugin(0, out[0], "");
        EXPECT(resolve_times(&o, 1, &err), CRES_ERR_ENVIRONMENT);
        snprintf(want, sizeof want, "status.expirationTimestamp \"%s\" is not an RFC 3339 time", bad[i]);
        HAS(err.message, want);
    }
}

static void exec_runs_again_once_on_401(void **state) {
    cres_error err;
    const char *path;
    (void)state;
    path = config_json("401", SERVER, EXEC_USER(""));
    plugin(0, CRED("revoked", ""), "");
    plugin(0, CRED("fresh", ""), "");
    T.status[0] = 401;
    OK(resolve(path, NULL, &err));
    assert_int_equal(T.requests_count, 2);
    assert_string_equal(header(0, "Authorization"), "Bearer revoked");
    assert_string_equal(header(1, "Authorization"), "Bearer fresh");
    HAS(logs.text, "401 Unauthorized: running the exec plugin again");
    /* a second 401 is the answer */
    T.plugin_count = T.plugin_next = T.requests_count = 0;
    plugin(0, CRED("a", ""), "");
    plugin(0, CRED("b", ""), "");
    T.status[0] = T.status[1] = 401;
    FAILS(resolve(path, NULL, &err), CRES_ERR_HTTP_STATUS, "401");
    assert_int_equal(T.plugin_next, 2);
    /* a 401 that arrives after the resolve's time is up: the plugin runs again with the
       least time there is (1 ms), and no request follows it */
    T.plugin_count = T.plugin_next = T.requests_count = 0;
    T.status[1] = 0;
    plugin(0, CRED("slow", ""), "");
    plugin(0, CRED("late", ""), "");
    T.cfg.resolve_timeout_ms = 100;
    T.delay_ms = 120;
    FAILS(resolve(path, NULL, &err), CRES_ERR_TIMEOUT, "resolve_timeout_ms");
    assert_int_equal(T.plugin_next, 2);
    assert_int_equal(T.runs[1].timeout_ms, 1);
    assert_int_equal(T.requests_count, 1);
}

static void exec_client_certificate(void **state) {
    cres_error err;
    (void)state;
    plugin(0, "{\"apiVersion\": \"" EXEC_V1 "\", \"kind\": \"ExecCredential\", \"status\": {"
              "\"clientCertificateData\": \"" "PEM-CERT" "\", \"clientKeyData\": \"PEM-KEY\"}}", "");
    OK(resolve(config_json("certexec", SERVER, EXEC_USER("")), NULL, &err));
    assert_string_equal(T.requests[0].cert_pem, "PEM-CERT");
    assert_string_equal(T.requests[0].key_pem, "PEM-KEY");
    assert_null(header(0, "Authorization"));
    /* a token that is null or "" beside the certificate is no token; a null expiry is none */
    plugin(0, "{\"apiVersion\": \"" EXEC_V1 "\", \"kind\": \"ExecCredential\", \"status\": {\"token\": null, "
              "\"clientCertificateData\": \"PEM-CERT2\", \"clientKeyData\": \"PEM-KEY2\", \"expirationTimestamp\": null}}", "");
    plugin(0, "{\"apiVersion\": \"" EXEC_V1 "\", \"kind\": \"ExecCredential\", \"status\": {\"token\": \"\", "
              "\"clientCertificateData\": \"PEM-CERT3\", \"clientKeyData\": \"PEM-KEY3\"}}", "");
    OK(resolve(config_json("certexec2", SERVER, EXEC_USER("")), NULL, &err));
    T.cfg.resolve_timeout_ms = -1; /* no bound on the resolve: the plugin gets 60 s */
    OK(resolve(config_json("certexec3", SERVER, EXEC_USER("")), NULL, &err));
    assert_string_equal(T.requests[1].cert_pem, "PEM-CERT2");
    assert_null(header(1, "Authorization"));
    assert_string_equal(T.requests[2].cert_pem, "PEM-CERT3");
    assert_string_equal(T.requests[2].key_pem, "PEM-KEY3");
    assert_null(header(2, "Authorization"));
    assert_int_equal(T.runs[2].timeout_ms, 60000);
}

/* Every allocation of a resolve through each kind of user fails in turn: an exec plugin
   (args, env, cluster info, a command relative to the file), basic auth with impersonation,
   client certificate files, a token file beside a token; PEM from data and from files.
   Each run ends in the answer or out of memory, with nothing leaked. (The contexts differ in
   how many strings they keep, so that each kind of kept string is, in one of them, the one
   whose keeping must grow the resolver's list.) */
typedef struct user_walk {
    const char *path, *context, *authorization, *ca; /* what the request must carry; NULL: none */
} user_walk;

static cres_result user_walk_run(test_alloc *t, const void *ctx) {
    const user_walk *w = (const user_walk *)ctx;
    cres_k8s_options o = kube_options(w->path, w->context);
    cres_config cfg = T.cfg;
    cres_resolver *r = NULL;
    cres_cluster_spec *spec = NULL;
    cres_error err;
    cres_result res;
    const char *auth;
    test_alloc_use(&cfg.allocator, t);
    o.config = &cfg;
    T.requests_count = T.plugin_count = T.plugin_next = 0;
    plugin(0, CRED("from-plugin", ""), "note\n");
    res = checked(cres_k8s_resolver_create(&o, &r, &err), &err);
    if (res == CRES_OK) res = checked(cres_resolve(r, &spec, &err), &err);
    if (res == CRES_OK && cres_spec_tasks_count(spec, "worker") != 2) res = mismatch("workers", json_of(spec));
    auth = res == CRES_OK ? header(0, "Authorization") : NULL;
    if (res == CRES_OK && (w->authorization ? !auth || strcmp(auth, w->authorization) != 0 : auth != NULL))
        res = mismatch("authorization", auth ? auth : "none");
    if (res == CRES_OK && strcmp(T.requests[0].ca_pem, w->ca) != 0) res = mismatch("ca", T.requests[0].ca_pem);
    if (res == CRES_OK && !w->authorization && strcmp(T.requests[0].cert_pem, CERT_PEM) != 0)
        res = mismatch("client certificate", T.requests[0].cert_pem);
    cres_spec_free(spec);
    cres_resolver_free(r);
    return res;
}

#define WALK_EXEC(more)                                                                    \
    "{'exec': {'apiVersion': '" EXEC_V1 "', 'command': 'bin/get-token', 'args': ['a'], "    \
    "'env': [{'name': 'PROFILE', 'value': 'ml'}], 'interactiveMode': 'Never', "             \
    "'provideClusterInfo': true" more "}}"

static void users_under_allocation_failures(void **state) {
    static const char *const contexts[][4] = { /* name, authorization, CA, the context */
        {"exec", "Bearer from-plugin", CA_PEM, "{'cluster': 'data', 'user': 'exec', 'namespace': 'ml'}"},
        {"exec-env", "Bearer from-plugin", CA_PEM, "{'cluster': 'proxied', 'user': 'exec-hint', 'namespace': 'ml'}"},
        {"basic", "Basic YWRtaW46cHc=", CA_PEM, "{'cluster': 'file', 'user': 'basic', 'namespace': 'ml'}"}, /* admin:pw */
        {"cert", NULL, CA_PEM, "{'cluster': 'data', 'user': 'cert', 'namespace': 'ml'}"},
        {"file", "Bearer from-file", CA_PEM, "{'cluster': 'data', 'user': 'file'}"},
    };
    char text[4096];
    size_t used = 0, i;
    user_walk w;
    (void)state;
    put("w/ca.pem", CA_PEM);
    put("w/client.pem", CERT_PEM);
    put("w/client.key", KEY_PEM);
    put("w/tok", "from-file\n");
    used += (size_t)snprintf(text + used, sizeof text - used, "%s", dq(
        "{'clusters': ["
        "{'name': 'data', 'cluster': {'server': 'https://k8s.test', 'certificate-authority-data': '" CA_B64 "'}}, "
        "{'name': 'proxied', 'cluster': {'server': 'https://k8s.test', 'certificate-authority-data': '" CA_B64 "', "
        "'tls-server-name': 'api', 'proxy-url': 'http://proxy:3128'}}, "
        "{'name': 'file', 'cluster': {'server': 'https://k8s.test', 'certificate-authority': 'ca.pem'}}], "
        "'users': ["
        "{'name': 'exec', 'user': " WALK_EXEC("") "}, "
        "{'name': 'exec-hint', 'user': " WALK_EXEC(", 'installHint': 'see the docs'") "}, "
        "{'name': 'basic', 'user': {'username': 'admin', 'password': 'pw', 'as': 'jane', 'as-uid': '42', "
        "'as-groups': ['a', 'b', 'c', 'd']}}, "
        "{'name': 'cert', 'user': {'client-certificate': 'client.pem', 'client-key': 'client.key'}}, "
        "{'name': 'file', 'user': {'token': 'inline', 'tokenFile': 'tok'}}], "
        "'contexts': ["));
    for (i = 0; i < N(contexts); i++)
        used += (size_t)snprintf(text + used, sizeof text - used, "%s{\"name\": \"%s\", \"context\": %s}",
                                 i ? ", " : "", contexts[i][0], dq(contexts[i][3]));
    snprintf(text + used, sizeof text - used, "]}");
    w.path = put("w/config", text);
    for (i = 0; i < N(contexts); i++) {
        w.context = contexts[i][0], w.authorization = contexts[i][1], w.ca = contexts[i][2];
        alloc_walk(w.context, user_walk_run, &w, CRES_OK);
    }
}

static void exec_failures_are_named(void **state) {
    static const struct {
        int exit_code;
        const char *out, *err_text, *words[2];
    } cases[] = {
        {255, "", "Unable to locate credentials.\nYou can configure credentials by running \"aws configure\".\n",
         {"exited with 255", "You can configure credentials by running"}},
        {0, "not json", "", {"invalid JSON", "get-token"}},
        {0, "{\"apiVersion\": \"client.authentication.k8s.io/v1beta1\", \"kind\": \"ExecCredential\", \"status\": {\"token\": \"t\"}}",
         "", {"printed apiVersion \"client.authentication.k8s.io/v1beta1\"", EXEC_V1}},
        {0, "{\"apiVersion\": \"" EXEC_V1 "\", \"kind\": \"ExecCredential\", \"status\": {}}", "",
         {"printed no token and no client certificate", "get-token"}},
        {0, "{\"apiVersion\": \"" EXEC_V1 "\", \"kind\": \"ExecCredential\", \"status\": {\"clientKeyData\": \"k\"}}", "",
         {"without the other", "clientKeyData"}},
        {0, CRED("t", ", \"expirationTimestamp\": \"tomorrow\""), "", {"expirationTimestamp \"tomorrow\"", "RFC 3339"}},
        {0, "{\"apiVersion\": \"" EXEC_V1 "\", \"kind\": \"Status\"}", "", {"printed no ExecCredential", "get-token"}},
        {0, "{\"apiVersion\": \"" EXEC_V1 "\"}", "", {"printed no ExecCredential", "get-token"}},
        {0, "{\"kind\": \"ExecCredential\", \"status\": {\"token\": \"t\"}}", "", {"printed apiVersion none", EXEC_V1}},
        {0, "{\"apiVersion\": [1], \"kind\": \"ExecCredential\"}", "", {"printed apiVersion a list", EXEC_V1}},
        {0, "{\"apiVersion\": \"" EXEC_V1 "\", \"kind\": \"ExecCredential\", \"status\": {\"token\": 5}}", "",
         {"status.token is not a string", "get-token"}},
        {0, CRED("t", ", \"expirationTimestamp\": 1700000000"), "", {"status.expirationTimestamp is not a string", "get-token"}},
        {0, "{\"apiVersion\": \"" EXEC_V1 "\", \"kind\": \"ExecCredential\", \"status\": {\"token\": \"\"}}", "",
         {"printed no token and no client certificate", "get-token"}},
        /* the last line of stderr, CR LF lines and empty ones skipped */
        {1, "", "error: first\r\nerror: the last\r\n\r\n", {"exited with 1: error: the last", "get-token"}},
    };
    size_t i;
    const char *path;
    (void)state;
    path = config_json("fails", SERVER, EXEC_USER(""));
    for (i = 0; i < N(cases); i++) {
        cres_error err;
        T.plugin_count = T.plugin_next = 0;
        plugin(cases[i].exit_code, cases[i].out, cases[i].err_text);
        if (resolve(path, NULL, &err) != CRES_ERR_ENVIRONMENT)
            fail_msg("case %zu: want CRES_ERR_ENVIRONMENT: %s", i, err.message);
        HAS(err.message, cases[i].words[0]);
        HAS(err.message, cases[i].words[1]);
    }
    { /* a hook that keeps no stderr: the exit code alone */
        cres_error err;
        T.plugin_count = T.plugin_next = 0;
        plugin(3, "", NULL);
        EXPECT(resolve(path, NULL, &err), CRES_ERR_ENVIRONMENT);
        HAS(err.message, "get-token");
        assert_string_equal(strstr(err.message, "exited with"), "exited with 3");
    }
    T.plugin_count = T.plugin_next = 0;
    plugin(0, "", "");
    T.plugin[0].fail = CRES_ERR_ENVIRONMENT;
    FAILS(resolve(path, NULL, &err), CRES_ERR_ENVIRONMENT, "install get-token", "no such file");
    assert_int_equal(T.requests_count, 0);
}

/* Scalars become JSON as sigs.k8s.io/yaml makes them (YAML 1.1 booleans and nulls, numbers;
   keys always strings: "null", "true", "false" for those; a tag !!str or ! keeps a scalar a
   string, another tag such as !!int does not; a quoted "<<" is a key, not a merge; an alias
   of a string may be a key, found past a later anchor): seen whole in the cluster extension
   an exec plugin is given. */
static void yaml_scalars_become_json(void **state) {
    cres_error err;
    (void)state;
    plugin(0, CRED("t", ""), "");
    OK(resolve(put("scalars.yaml",
                   "current-context: x\n"
                   "contexts: [{name: x, context: {cluster: k, user: u}}]\n"
                   "clusters:\n"
                   "- name: &kn k\n"
                   "  cluster:\n"
                   "    server: &srv https://k8s.test\n"
                   "    insecure-skip-tls-verify: Off\n"
                   "    extensions:\n"
                   "    - name: client.authentication.k8s.io/exec\n"
                   "      extension: {Null: a, yes: d, no: e, 1.5: f, "
                   "n1: Null, n2: NULL, b1: NO, b2: off, b3: Y, "
                   "i: -0, e1: 1.5e+3, e2: 2E-2, e3: 1e5, s1: !!str on, s2: ! off, s3: 0x1F, s4: 1.5.2, s5: 'yes', "
                   "t1: !!int 7, '<<': m, *kn : aliased}\n"
                   "users:\n"
                   "- name: u\n"
                   "  user:\n"
                   "    exec: {apiVersion: " EXEC_V1 ", command: get-token, interactiveMode: Never, "
                   "provideClusterInfo: true}\n"),
               NULL, &err));
    HAS(T.runs[0].info, "\"config\":{\"null\":\"a\",\"true\":\"d\",\"false\":\"e\","
                        "\"1.5\":\"f\",\"n1\":null,\"n2\":null,\"b1\":false,\"b2\":false,\"b3\":true,\"i\":-0,"
                        "\"e1\":1.5e+3,\"e2\":2E-2,\"e3\":1e5,\"s1\":\"on\",\"s2\":\"off\",\"s3\":\"0x1F\","
                        "\"s4\":\"1.5.2\",\"s5\":\"yes\",\"t1\":7,\"<<\":\"m\",\"k\":\"aliased\"}");
    assert_int_equal(T.requests[0].insecure, 0);
}

/* A transport that does not say it honours client certificates never gets such a request. */
static void transport_features_are_checked(void **state) {
    (void)state;
    T.cfg.transport.features = CRES_TRANSPORT_CA_PEM;
    put("c.pem", CERT_PEM);
    put("c.key", KEY_PEM);
    FAILS(resolve(config_json("feat", SERVER, "'client-certificate': 'c.pem', 'client-key': 'c.key'"), NULL, &err),
          CRES_ERR_UNSUPPORTED, "tls->client_cert_pem");
    assert_int_equal(T.requests_count, 0);
    /* each TLS field the transport does not declare */
    T.cfg.transport.features = 0;
    FAILS(resolve(config_json("f1", SERVER ", 'certificate-authority-data': '" CA_B64 "'", "'token': 't'"), NULL, &err),
          CRES_ERR_UNSUPPORTED, "ca_pem");
    T.cfg.transport.features = CRES_TRANSPORT_CA_PEM;
    FAILS(resolve(config_json("f2", SERVER ", 'tls-server-name': 'api'", "'token': 't'"), NULL, &err),
          CRES_ERR_UNSUPPORTED, "server_name");
    FAILS(resolve(config_json("f3", SERVER ", 'proxy-url': 'http://p:3128'", "'token': 't'"), NULL, &err),
          CRES_ERR_UNSUPPORTED, "proxy");
    FAILS(resolve(config_json("f4", SERVER ", 'insecure-skip-tls-verify': true", "'token': 't'"), NULL, &err),
          CRES_ERR_UNSUPPORTED, "insecure_skip_verify");
    assert_int_equal(T.requests_count, 0);
}

/* ---------------------------------------------------------------------------------------
   The default exec hook: real programs */

static const char *script(const char *name, const char *body) {
    const char *path = put(name, body);
    assert_int_equal(chmod(path, 0700), 0);
    return path;
}

static cres_result run_default(const char *body, int resolve_timeout_ms, cres_error *err) {
    char user[512];
    T.cfg.exec.fn = NULL;
    T.cfg.resolve_timeout_ms = resolve_timeout_ms;
    script("plugin.sh", body);
    snprintf(user, sizeof user,
             "'exec': {'apiVersion': '" EXEC_V1 "', 'command': './plugin.sh', 'interactiveMode': 'IfAvailable', "
             "'args': ['one two'], 'env': [{'name': 'FROM_ENV', 'value': 'v'}]}");
    return resolve(config_json("default", SERVER, user), NULL, err);
}

static void default_exec_runs_without_a_shell(void **state) {
    cres_error err;
    char fd[16];
    int leak = open("/dev/null", O_RDONLY); /* no FD_CLOEXEC: the plugin must not get it */
    (void)state;
    assert_true(leak >= 3);
    snprintf(fd, sizeof fd, "%d", leak);
    env_set("PATH", "/usr/bin:/bin");
    env_set("LEAK_FD", fd);
    OK(run_default("#!/bin/sh\n"
                   "[ -e /proc/$$/fd/$LEAK_FD ] && exit 6\n" /* stdin, stdout, stderr only */
                   "[ \"$1\" = 'one two' ] && [ $# = 1 ] || exit 9\n"
                   "read line && exit 8\n" /* stdin is /dev/null */
                   "echo \"to stderr\" >&2\n"
                   "case \"$KUBERNETES_EXEC_INFO\" in *'\"interactive\":false'*) ;; *) exit 7;; esac\n"
                   "printf '{\"apiVersion\":\"" EXEC_V1 "\",\"kind\":\"ExecCredential\",\"status\":{\"token\":\"sh-%s\"}}' \"$FROM_ENV\"\n",
                   0, &err));
    assert_string_equal(header(0, "Authorization"), "Bearer sh-v");
    HAS(logs.text, "to stderr");
    close(leak);
}

/* A plugin that leaves a process behind holding its output is done when it exits itself; a
   program that ignores SIGCHLD loses the plugin's exit status, which is said, not guessed. */
static void default_exec_leftovers_and_lost_status(void **state) {
    struct timespec t0, t1;
    cres_error err;
    (void)state;
    env_set("PATH", "/usr/bin:/bin");
    clock_gettime(CLOCK_MONOTONIC, &t0);
    OK(run_default("#!/bin/sh\nsleep 3 &\n"
                   "printf '{\"apiVersion\":\"" EXEC_V1 "\",\"kind\":\"ExecCredential\",\"status\":{\"token\":\"bg\"}}'\n",
                   0, &err));
    clock_gettime(CLOCK_MONOTONIC, &t1);
    assert_string_equal(header(0, "Authorization"), "Bearer bg");
    assert_true(t1.tv_sec - t0.tv_sec < 2); /* not the 3 s of the process left behind */
    signal(SIGCHLD, SIG_IGN);
    FAILS(run_default("#!/bin/sh\nexit 0\n", 0, &err), CRES_ERR_ENVIRONMENT, "plugin.sh", "its exit status was lost");
    signal(SIGCHLD, SIG_DFL);
}

/* A resolve through the default exec hook with only `spare` file descriptors left to the
   process (RLIMIT_NOFILE lowered after the create, which read the kubeconfig). */
static cres_result resolve_with_spare_fds(const char *kubeconfig, int spare, cres_error *err) {
    cres_k8s_options o = kube_options(kubeconfig, NULL);
    cres_resolver *r = NULL;
    cres_cluster_spec *spec = NULL;
    struct rlimit was, low;
    int lowest;
    cres_result res;
    T.cfg.exec.fn = NULL;
    if ((res = cres_k8s_resolver_create(&o, &r, err)) != CRES_OK) return res;
    lowest = dup(0); /* the lowest free descriptor: every one below it is open */
    assert_true(lowest >= 0);
    close(lowest);
    assert_int_equal(getrlimit(RLIMIT_NOFILE, &was), 0);
    low = was;
    low.rlim_cur = (rlim_t)(lowest + spare);
    assert_int_equal(setrlimit(RLIMIT_NOFILE, &low), 0);
    res = cres_resolve(r, &spec, err);
    assert_int_equal(setrlimit(RLIMIT_NOFILE, &was), 0);
    cres_spec_free(spec);
    cres_resolver_free(r);
    return res;
}

static void default_exec_failures(void **state) {
    char big[64];
    (void)state;
    env_set("PATH", "/usr/bin:/bin");
    FAILS(run_default("#!/bin/sh\necho first >&2\necho 'error: token expired' >&2\nexit 3\n", 0, &err),
          CRES_ERR_ENVIRONMENT, "exited with 3: error: token expired");
    FAILS(run_default("#!/bin/sh\nexec sleep 30\n", 300, &err), CRES_ERR_TIMEOUT, "plugin.sh",
          "killed");
    FAILS(run_default("#!/bin/sh\nexec yes\n", 0, &err), CRES_ERR_LIMIT, "printed more than 1048576 bytes");
    FAILS(run_default("#!/bin/sh\nkill -9 $$\n", 0, &err), CRES_ERR_ENVIRONMENT, "exited with 137");
    /* stderr's end is kept, its start dropped: the last line names the failure */
    FAILS(run_default("#!/bin/sh\nhead -c 20000 /dev/zero | tr '\\0' e >&2\necho >&2\necho 'the last words' >&2\nexit 4\n",
                      0, &err),
          CRES_ERR_ENVIRONMENT, "exited with 4: the last words");
    /* output closed but still running: killed at the deadline, not waited for forever */
    FAILS(run_default("#!/bin/sh\nexec >&- 2>&-\nexec sleep 30\n", 300, &err), CRES_ERR_ENVIRONMENT,
          "exited with 137");
    /* executable, but no program and no #! line: the system will not start it (ENOEXEC) */
    FAILS(run_default("not a program\n", 0, &err), CRES_ERR_ENVIRONMENT, "cannot run",
          "plugin.sh\": not an executable format (a script without #!?) (errno 8)");
    snprintf(big, sizeof big, "%s", "");
    T.cfg.exec.fn = NULL;
    FAILS(resolve(config_json("nocmd", SERVER, "'exec': {'apiVersion': '" EXEC_V1 "', 'command': 'no-such-plugin-here', "
                              "'interactiveMode': 'Never', 'installHint': 'see the docs'}"), NULL, &err),
          CRES_ERR_ENVIRONMENT, "see the docs", "cannot run \"no-such-plugin-here\"");
    /* out of file descriptors: no pipe for the plugin's stdout, or none for its stderr */
    script("plugin.sh", "#!/bin/sh\nexit 0\n");
    FAILS(resolve_with_spare_fds(config_json("fds", SERVER, "'exec': {'apiVersion': '" EXEC_V1 "', 'command': './plugin.sh', "
                                             "'interactiveMode': 'Never'}"), 0, &err),
          CRES_ERR_ENVIRONMENT, "cannot run", "plugin.sh\": too many open files (errno 24)");
    FAILS(resolve_with_spare_fds(config_json("fds", SERVER, "'exec': {'apiVersion': '" EXEC_V1 "', 'command': './plugin.sh', "
                                             "'interactiveMode': 'Never'}"), 2, &err),
          CRES_ERR_ENVIRONMENT, "cannot run", "plugin.sh\": too many open files (errno 24)");
    /* a plugin file without execute permission (written 0600) */
    assert_int_equal(chmod(put("not-executable.sh", "#!/bin/sh\nexit 0\n"), 0600), 0);
    FAILS(resolve(config_json("noexec", SERVER, "'exec': {'apiVersion': '" EXEC_V1 "', 'command': './not-executable.sh', "
                              "'interactiveMode': 'Never'}"), NULL, &err),
          CRES_ERR_ENVIRONMENT, "cannot run", "not-executable.sh\": permission denied (errno 13)");
}

/* Every allocation of a resolve through the default exec hook fails in turn: a plugin that
   prints its credential, and one that prints nothing on stdout and fails. Each run ends in
   the answer (the plugin's failure, quoted) or out of memory, with nothing leaked. */
typedef struct spawn_walk {
    const char *path;
    const char *want; /* the Authorization header; NULL: the plugin's failure */
} spawn_walk;

static cres_result spawn_walk_run(test_alloc *t, const void *ctx) {
    const spawn_walk *w = (const spawn_walk *)ctx;
    cres_k8s_options o = kube_options(w->path, NULL);
    cres_config cfg = T.cfg;
    cres_resolver *r = NULL;
    cres_cluster_spec *spec = NULL;
    cres_error err;
    cres_result res;
    test_alloc_use(&cfg.allocator, t);
    cfg.exec.fn = NULL;
    o.config = &cfg;
    T.requests_count = 0;
    res = checked(cres_k8s_resolver_create(&o, &r, &err), &err);
    if (res == CRES_OK) res = checked(cres_resolve(r, &spec, &err), &err);
    if (res == CRES_OK && strcmp(header(0, "Authorization"), w->want) != 0)
        res = mismatch("authorization", header(0, "Authorization"));
    if (res == CRES_ERR_ENVIRONMENT && !strstr(err.message, "exited with 1: no credentials"))
        res = mismatch("message", err.message);
    cres_spec_free(spec);
    cres_resolver_free(r);
    return res;
}

static void default_exec_under_allocation_failures(void **state) {
    spawn_walk w;
    (void)state;
    env_set("PATH", "/usr/bin:/bin");
    script("ok.sh", "#!/bin/sh\nprintf '{\"apiVersion\":\"" EXEC_V1 "\",\"kind\":\"ExecCredential\",\"status\":{\"token\":\"spawned\"}}'\n");
    script("fails.sh", "#!/bin/sh\necho 'no credentials' >&2\nexit 1\n");
    w.path = config_json("ok", SERVER, "'exec': {'apiVersion': '" EXEC_V1 "', 'command': './ok.sh', 'interactiveMode': 'Never'}");
    w.want = "Bearer spawned";
    alloc_walk("default exec", spawn_walk_run, &w, CRES_OK);
    w.path = config_json("fails", SERVER, "'exec': {'apiVersion': '" EXEC_V1 "', 'command': './fails.sh', 'interactiveMode': 'Never'}");
    w.want = NULL;
    alloc_walk("default exec failing", spawn_walk_run, &w, CRES_ERR_ENVIRONMENT);
}

int main(void) {
#define T_(f) cmocka_unit_test_setup_teardown(f, setup, teardown)
    const struct CMUnitTest tests[] = {
        T_(explicit_file_alone),
        T_(explicit_file_missing_is_an_error),
        T_(directory_as_kubeconfig_is_an_error),
        T_(first_file_wins_each_entry_whole),
        T_(current_context_of_the_first_file_that_sets_one),
        T_(home_kube_config_when_kubeconfig_unset_or_empty),
        T_(no_file_or_no_context_falls_back_to_in_cluster),
        T_(namespace_option_then_context_then_default),
        T_(tls_material_from_files_and_data),
        T_(pem_is_read_as_client_go_reads_it),
        T_(pem_that_client_go_refuses_is_an_error),
        T_(pem_of_many_failing_blocks_is_read_quickly),
        T_(insecure_is_passed_on_and_logged),
        T_(token_file_wins_over_token_when_readable),
        T_(basic_auth_and_impersonation_headers),
        T_(plain_http_server_gets_no_credentials),
        T_(oidc_id_token_is_the_bearer),
        T_(options_token_and_ca_replace_the_kubeconfig_ones),
        T_(validation_errors_name_file_stanza_and_field),
        T_(contexts_clusters_and_users_that_name_nothing),
        T_(fields_in_their_other_forms),
        T_(kubeconfig_files_at_their_limits),
        T_(named_file_too_large),
        T_(many_entries_are_checked_quickly),
        T_(yaml_as_kubectl_writes_it),
        T_(yaml_as_people_edit_it),
        T_(yaml_one_one_booleans_are_not_strings),
        T_(yaml_scalars_become_json),
        T_(yaml_nested_too_deeply),
        T_(yaml_kubeconfig_under_allocation_failures),
        T_(yaml_alias_bomb_is_bounded),
        T_(yaml_at_the_document_limit),
        T_(empty_files_are_empty_configs),
        T_(exec_plugin_gets_args_env_and_exec_info),
        T_(exec_credential_kept_until_it_expires),
        T_(exec_expiry_times),
        T_(exec_info_names_every_cluster_field),
        T_(exec_runs_again_once_on_401),
        T_(exec_client_certificate),
        T_(exec_failures_are_named),
        T_(users_under_allocation_failures),
        T_(transport_features_are_checked),
        T_(default_exec_runs_without_a_shell),
        T_(default_exec_failures),
        T_(default_exec_leftovers_and_lost_status),
        T_(default_exec_under_allocation_failures),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
