/* libFuzzer target: one or two kubeconfig files, JSON or YAML, read by the Kubernetes backend
   as kubectl reads them (options.kubeconfig, a $KUBECONFIG list and its first-wins merge, or
   ~/.kube/config), then a resolve whose exec credential plugin, if the files name one, answers
   what the input says. This file defines CLUSTER_RESOLVER_USE_YAML; the Makefile links it
   with -lyaml (LIBS_fuzz_kubeconfig).

   Input: byte 0 chooses
     bits 0-1  the files: 0 options.kubeconfig is A (B is not read); 1 $KUBECONFIG is "A:B";
               2 $KUBECONFIG is ":A:DIR/missing::B:A" (an empty name, a missing file and a
               repeated one, all skipped); 3 neither: $HOME/.kube/config, which is A;
     bit 2     options.context is part 4 (else NULL: the current-context of the files);
     bit 3     the first request of every resolve is answered 401 (an exec plugin runs again);
     bit 4     the transport honours tls->ca_pem only (else every CRES_TRANSPORT_* field);
     bits 5-6  the exec plugin: 0 and 1 exit 0; 2 exits 3; 3 cannot be started;
     bit 7     all_namespaces.
   The rest is split at 0xFF bytes (no UTF-8 text has one) into up to four parts, the last
   keeping any later 0xFF: 1 file A, 2 file B, 3 what the exec plugin prints on stdout (empty:
   a fixed ExecCredential, apiVersion as KUBERNETES_EXEC_INFO asks, token FIXED_EXEC_TOKEN),
   4 the context name (a NUL ends it). A part the input does not reach is empty.

   Files: the process's directory (DIR: fuzz_common.h's FUZZ_DIR) holds DIR/.kube/config (A)
   and DIR/.kube/other (B), overwritten by every input, beside fixed files a kubeconfig may name
   relative to itself: ca.crt and ca.pem (PEM), client.crt, client.key, and token (a token
   file). HOME is DIR. stdin is /dev/null, so that a file naming /dev/stdin cannot stall a run.
   The run is deterministic: no retries, a sleep hook that returns at once, no resolve bound
   (config.resolve_timeout_ms -1), fuzz_common.h's fixed clock, and no program runs:
   config.exec is a hook whose output is part 3, where an status.expirationTimestamp (found as
   the library finds it) from 2024 to 2099 is first replaced by 2100-01-01T00:00:00Z, so
   whether a credential has expired never depends on when the run happens (earlier ones have
   expired, later ones have not). Its stderr is two fixed lines. Requests go to an in-process
   fake whose answer is always the same PodList of two Running pods, w-0 at 10.0.0.1 and w-1
   at 10.0.0.2 (options.hostname "w-1", jobs {"worker", "job-name=trainer"}), or a 401 Status
   (bit 3).

   Checks: no crash, undefined behaviour or leak (ASan, UBSan, and a counting allocator that
   must end at zero), no descriptor left open; create and resolve fail only with
   CRES_ERR_ENVIRONMENT (a file, field, plugin or token file that is wrong), CRES_ERR_LIMIT (a
   YAML file over CRES_MAX_DOCUMENT_BYTES as JSON, a token file over 64 KiB),
   CRES_ERR_OUT_OF_MEMORY, and at resolve also CRES_ERR_UNSUPPORTED when bit 4 leaves out a
   TLS field the kubeconfig needs, CRES_ERR_HTTP_STATUS 401 when bit 3 answers one, each with
   a message naming "kubernetes"; a success is the worker job of the two pods, the own task
   worker 1. Every request is a GET of an http:// or https:// URL with a host and no blank or
   control character, whose header values hold no CR or LF (they would smuggle in other
   headers); to an http:// server it carries no credential (no Authorization header, no client
   certificate; Impersonate-* headers may go there: kubectl 1.32 sends them too); TLS fields
   only those the transport honours. The exec request has a program, a bounded time and
   output, and one KUBERNETES_EXEC_INFO that is JSON of kind ExecCredential. No secret of the input
   appears in an error message or a log line: the values of token, password, id-token,
   refresh-token, client-secret, client-key-data (and its decoded lines) and clientKeyData anywhere
   in the files and the plugin's output, the fixed token file and client key, and FIXED_EXEC_TOKEN
   (those of 12 or more bytes of [A-Za-z0-9._~+=_-] with an upper-case letter, a lower-case one
   and a digit, that are not part of any other string of the input, raw, decoded or quoted as
   messages quote: anything shorter or more common can appear in a message legitimately).
   Resolving twice on one resolver gives the same result, and the whole input run twice gives
   the same results, messages, log lines, requests and plugin runs.

   FUZZ_KUBECONFIG_VERBOSE=1 in the environment prints each input's results (to replay one).

   A server that is no URL (no host, a blank or a control character: "http://", " h:6443",
   "https://h\r\nX: y") was once passed on, and for "http://" the user's token went out in
   clear text; the library now refuses it (seed tests/fuzz/corpus/kubeconfig/server_no_host).

   Seeds: tests/fuzz/fixture_seeds.py derives some from the kubeconfig files, contexts and
   plugin answers of tests/test_kubeconfig.c (the Python tests of tests/kubeconfig/ have the
   real tools write theirs at run time: nothing to read). The hand seeds of corpus/kubeconfig/
   are files as those tools write them, made offline on this machine image (dummy keys, the
   test CA of tests/gen_certs.sh): eks_* by `aws eks update-kubeconfig` (aws-cli 1.45.11)
   against tests/kubeconfig/fake_clouds.py, part 3 what `aws eks get-token` printed; gke_* by
   `gcloud container clusters get-credentials` (Cloud SDK 528) against that fake, part 3 what
   gke-gcloud-auth-plugin printed; kubectl_* by `kubectl config view --raw` (kubectl 1.32;
   some -o json, one --minify --flatten) of configs made with `kubectl config set-cluster,
   set-credentials, set-context, set` (kubeadm's admin.conf shape, a CI token with
   tls-server-name and proxy-url, minikube-style relative paths, basic auth, oidc, kubelogin
   as an exec plugin, impersonation, plain http); merged_* two of those as a $KUBECONFIG list
   or merged by view. Names say what byte 0 chooses beyond file and context (a 401, a CA-only
   transport, a plugin that exits 3 or cannot start).

   clang -g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined \
         tests/fuzz/fuzz_kubeconfig.c -o build/fuzz_kubeconfig -lyaml */

#define CLUSTER_RESOLVER_USE_YAML
#include "fuzz_common.h"

#include <fcntl.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#define FIXED_EXEC_TOKEN "Fuzz-exec-token-0123456789"
#define FILE_TOKEN "Fuzz-file-token-9876543210"
/* PEM bodies the loader accepts: one whole DER SEQUENCE (of a UTF8String: "fuzz ca", "fuzz
   client", "Fuzz client key 0123456789"; the key's base64 is a distinctive secret) */
#define KEY_BODY "MBwMGkZ1enogY2xpZW50IGtleSAwMTIzNDU2Nzg5"
#define CA_PEM "-----BEGIN CERTIFICATE-----\nMAkMB2Z1enogY2E=\n-----END CERTIFICATE-----\n"
#define CERT_PEM "-----BEGIN CERTIFICATE-----\nMA0MC2Z1enogY2xpZW50\n-----END CERTIFICATE-----\n"
#define KEY_PEM "-----BEGIN EC PRIVATE KEY-----\n" KEY_BODY "\n-----END EC PRIVATE KEY-----\n"
#define PLUGIN_STDERR "fuzz-plugin: reading the cache\nfuzz-plugin: done\n"
#define STATUS_401                                                                       \
    "{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"metadata\":{},\"status\":\"Failure\"," \
    "\"message\":\"Unauthorized\",\"reason\":\"Unauthorized\",\"code\":401}"
#define POD(name, ip)                                                                          \
    "{\"metadata\":{\"name\":\"" name "\",\"namespace\":\"default\",\"labels\":{\"job-name\":" \
    "\"trainer\"}},\"status\":{\"phase\":\"Running\",\"podIP\":\"" ip "\"}}"
#define POD_LIST                                                                            \
    "{\"kind\":\"PodList\",\"apiVersion\":\"v1\",\"metadata\":{\"resourceVersion\":\"7\"}," \
    "\"items\":[" POD("w-0", "10.0.0.1") "," POD("w-1", "10.0.0.2") "]}"
#define MIN_SECRET 12
#define MAX_SECRETS 256
#define MAX_NOTED (1024 * 1024) /* JSON bytes of a file whose strings are noted (see facts) */

static const cres_allocator plain = {0, 0, 0}; /* the target's own parsing: not counted */

/* ---------------------------------------------------------------------------------------
   The files, made once */

static char dir[64], path_a[128], path_b[128], list_1[300], list_2[512];

int LLVMFuzzerInitialize(int *argc, char ***argv) {
    static const char *const support[][2] = {{"ca.crt", CA_PEM},
                                             {"ca.pem", CA_PEM},
                                             {"client.crt", CERT_PEM},
                                             {"client.key", KEY_PEM},
                                             {"token", FILE_TOKEN "\n"}};
    char path[160];
    size_t i;
    int null = open("/dev/null", O_RDONLY);
    (void)argc, (void)argv;
    CHECK(null >= 0);
    if (null != 0) {
        CHECK(dup2(null, 0) == 0);
        close(null);
    }
    snprintf(dir, sizeof dir, "%s", fuzz_dir());
    snprintf(path, sizeof path, "%s/.kube", dir);
    CHECK(mkdir(path, 0700) == 0);
    for (i = 0; i < sizeof support / sizeof *support; i++) {
        snprintf(path, sizeof path, "%s/.kube/%s", dir, support[i][0]);
        fuzz_write_file(path, support[i][1], strlen(support[i][1]));
    }
    snprintf(path_a, sizeof path_a, "%s/.kube/config", dir);
    snprintf(path_b, sizeof path_b, "%s/.kube/other", dir);
    snprintf(list_1, sizeof list_1, "%s:%s", path_a, path_b);
    snprintf(list_2, sizeof list_2, ":%s:%s/.kube/missing::%s:%s", path_a, dir, path_b, path_a);
    return 0;
}

/* ---------------------------------------------------------------------------------------
   The input */

typedef struct input {
    unsigned flags;
    const uint8_t *part[4];
    size_t len[4];
    char *stdout_text; /* part 3 with a clock-proof expiry; NULL = the fixed credential */
    size_t stdout_len;
    char *context;
    const char *env_name[2], *env_value[2];
    char env_line[2][640];
    size_t env_count;
} input;

#define MODE(in) ((in)->flags & 3)
#define PLUGIN(in) (((in)->flags >> 5) & 3)

static const char *input_getenv(void *user, const char *name) {
    const input *in = (const input *)user;
    size_t i;
    for (i = 0; i < in->env_count; i++)
        if (strcmp(in->env_name[i], name) == 0) return in->env_value[i];
    return NULL;
}

static const char *input_env_at(void *user, size_t index) {
    const input *in = (const input *)user;
    return index < in->env_count ? in->env_line[index] : NULL;
}

/* The plugin's stdout as the hook gives it: an expirationTimestamp (status's, as the library
   picks it) from 2024 to 2099 becomes 2100-01-01T00:00:00Z, which has not expired; one before
   2024 has expired on any clock this runs on. Then whether the credential is kept or the
   plugin runs again before each request never depends on the time of the run. */
static char *clock_proof(const uint8_t *p, size_t n, size_t *out_len) {
    static const char *const top[] = {"status"};
    static const char *const key[] = {"expirationTimestamp"};
    static const char later[] = "2100-01-01T00:00:00Z";
    const long long from = 1704067200LL /* 2024-01-01 */, to = 4102444800LL /* 2100-01-01 */;
    cres__json d;
    cres_error err;
    char *out = (char *)malloc(n + sizeof later), *value = NULL;
    int status, at;
    long long t;
    CHECK(out != NULL);
    memcpy(out, p, n);
    out[n] = '\0';
    *out_len = n;
    if (cres__json_parse(&d, out, n, &plain, "fuzz", CRES_ERR_ENVIRONMENT, &err) != CRES_OK)
        return out;
    cres__json_pick(&d, 0, top, &status, 1);
    cres__json_pick(&d, status, key, &at, 1);
    if (at >= 0 && d.t[at].type == JSMN_STRING && cres__json_strdup(&d, at, &value) == 1 &&
        cres__parse_rfc3339(value, &t) && t >= from && t < to) {
        size_t start = (size_t)d.t[at].start, end = (size_t)d.t[at].end;
        memmove(out + start + strlen(later), out + end, n - end);
        memcpy(out + start, later, strlen(later));
        *out_len = n - (end - start) + strlen(later);
        out[*out_len] = '\0';
    }
    free(value);
    cres__json_free(&d);
    return out;
}

static void read_input(input *in, const uint8_t *data, size_t size) {
    memset(in, 0, sizeof *in);
    in->flags = data[0];
    fuzz_split(data, size, 1, in->part, in->len, 4);
    if (in->len[2]) in->stdout_text = clock_proof(in->part[2], in->len[2], &in->stdout_len);
    if (in->flags & 4) in->context = fuzz_dup_n((const char *)in->part[3], in->len[3]);
    in->env_name[0] = "HOME";
    in->env_value[0] = dir;
    in->env_count = 1;
    if (MODE(in) == 1 || MODE(in) == 2) {
        in->env_name[1] = "KUBECONFIG";
        in->env_value[1] = MODE(in) == 1 ? list_1 : list_2;
        in->env_count = 2;
    }
    snprintf(in->env_line[0], sizeof in->env_line[0], "%s=%s", in->env_name[0], in->env_value[0]);
    if (in->env_count > 1)
        snprintf(in->env_line[1], sizeof in->env_line[1], "%s=%s", in->env_name[1],
                 in->env_value[1]);
}

static void free_input(input *in) {
    free(in->stdout_text);
    free(in->context);
}

/* ---------------------------------------------------------------------------------------
   Secrets, and the strings of the input that messages may quote */

/* The secrets of an input, and its public strings. A file of more than MAX_NOTED bytes as
   JSON (YAML aliases can make one of up to CRES_MAX_DOCUMENT_BYTES) is not read for them, and
   then no secret is looked for: a name in that file could equal one. */
typedef struct facts {
    char *secret[MAX_SECRETS];
    size_t secrets;
    char *text; /* every public string, raw, decoded and quoted, one a line */
    size_t len, cap;
    int unread; /* a file was too large to note */
} facts;

static void add_public(facts *f, const char *s, size_t n) {
    if (f->len + n + 2 > f->cap) {
        f->cap = (f->len + n + 2) * 2;
        f->text = (char *)realloc(f->text, f->cap);
        CHECK(f->text != NULL);
    }
    memcpy(f->text + f->len, s, n);
    f->len += n;
    f->text[f->len++] = '\n';
    f->text[f->len] = '\0';
}

/* s as itself, and as cres__quote() writes it into messages (escapes, no cut). */
static void add_public_string(facts *f, const char *s) {
    size_t n = strlen(s);
    char *q = (char *)malloc(4 * n + 64);
    CHECK(q != NULL);
    add_public(f, s, n);
    cres__quote(q, 4 * n + 64, s, n);
    add_public(f, q, strlen(q));
    free(q);
}

static void add_secret(facts *f, const char *s, size_t n) {
    if (f->secrets < MAX_SECRETS) f->secret[f->secrets++] = fuzz_dup_n(s, n);
}

enum { PUBLIC, SECRET, KEY_DATA }; /* KEY_DATA: a secret that is base64 of a private key */

static int secret_key(const cres__json *d, int key) {
    static const char *const names[] = {"token", "password", "id-token", "refresh-token",
                                        "client-secret"};
    size_t i;
    if (cres__json_eq(d, key, "client-key-data") || cres__json_eq(d, key, "clientKeyData"))
        return KEY_DATA;
    for (i = 0; i < sizeof names / sizeof *names; i++)
        if (cres__json_eq(d, key, names[i])) return SECRET;
    return PUBLIC;
}

/* Every string of a JSON document: a value of a secret key is a secret (a key's data, also
   each line of it decoded), the rest is public, raw and decoded. */
static void note_json(facts *f, const char *text, size_t n) {
    cres__json d;
    cres_error err;
    int i;
    if (n > MAX_NOTED) {
        f->unread = 1;
        return;
    }
    if (cres__json_parse(&d, text, n, &plain, "fuzz", CRES_ERR_ENVIRONMENT, &err) != CRES_OK)
        return;
    for (i = 0; i < d.count; i++) {
        const jsmntok_t *t = &d.t[i];
        int parent = t->parent, kind;
        char *s = NULL;
        if (t->type != JSMN_STRING) continue;
        kind = t->size == 0 && parent >= 0 && d.t[parent].type == JSMN_STRING
                   ? secret_key(&d, parent)
                   : PUBLIC;
        if (cres__json_strdup(&d, i, &s) != 1) {
            add_public(f, text + t->start, (size_t)(t->end - t->start));
            continue;
        }
        if (kind == PUBLIC) {
            add_public(f, text + t->start, (size_t)(t->end - t->start));
            add_public_string(f, s);
        } else {
            char *pem = NULL;
            add_secret(f, s, strlen(s));
            if (kind == KEY_DATA && cres__base64_decode(&plain, s, strlen(s), &pem) == 1) {
                const char *line = pem;
                while (*line) {
                    size_t k = strcspn(line, "\r\n");
                    add_secret(f, line, k);
                    line += k + (line[k] != '\0');
                }
            }
            free(pem);
        }
        free(s);
    }
    cres__json_free(&d);
}

/* A kubeconfig file as cres__kube_read reads it: trailing blanks cut, one with a NUL refused,
   YAML (through the library's own conversion) unless its text starts with '{'. */
static void note_file(facts *f, const uint8_t *bytes, size_t n) {
    char *text, *json = NULL;
    cres_error err;
    size_t i;
    while (n && (bytes[n - 1] == '\n' || bytes[n - 1] == '\r' || bytes[n - 1] == ' ' ||
                 bytes[n - 1] == '\t'))
        n--;
    if (memchr(bytes, '\0', n)) return;
    text = fuzz_dup_n((const char *)bytes, n);
    i = strspn(text, " \t\r\n");
    if (text[i] != '{' && text[i] != '\0') {
        if (cres__yaml_to_json(&plain, "fuzz", text, n, &json, &err) == CRES_OK)
            note_json(f, json, strlen(json));
        free(json);
    } else {
        note_json(f, text, n);
    }
    free(text);
}

/* Whether s is a secret the check can look for: long, of token characters only, with an
   upper-case letter, a lower-case one and a digit (no message text of the library has such a
   run: its words and key names lack one of them), and not part of a public string. */
static int distinctive(const facts *f, const char *s) {
    size_t n = strlen(s), i;
    int upper = 0, lower = 0, digit = 0;
    if (n < MIN_SECRET || strstr(s, "...")) return 0; /* "..." ends a quote that was cut */
    for (i = 0; i < n; i++) {
        char c = s[i];
        upper |= c >= 'A' && c <= 'Z';
        lower |= c >= 'a' && c <= 'z';
        digit |= c >= '0' && c <= '9';
        if (!strchr("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._~+=-_", c))
            return 0;
    }
    return upper && lower && digit && !(f->text && strstr(f->text, s));
}

static void read_facts(facts *f, const input *in) {
    static const char *const fixed[] = {FIXED_EXEC_TOKEN, FILE_TOKEN, KEY_BODY};
    size_t i, kept = 0;
    memset(f, 0, sizeof *f);
    note_file(f, in->part[0], in->len[0]);
    if (MODE(in) == 1 || MODE(in) == 2) note_file(f, in->part[1], in->len[1]);
    if (in->stdout_text) note_json(f, in->stdout_text, in->stdout_len);
    for (i = 0; i < sizeof fixed / sizeof *fixed; i++) add_secret(f, fixed[i], strlen(fixed[i]));
    add_public(f, PLUGIN_STDERR, strlen(PLUGIN_STDERR));
    add_public(f, path_a, strlen(path_a));
    add_public(f, path_b, strlen(path_b));
    add_public(f, list_2, strlen(list_2));
    if (in->context) add_public_string(f, in->context);
    for (i = 0; i < f->secrets; i++) {
        if (!f->unread && distinctive(f, f->secret[i]))
            f->secret[kept++] = f->secret[i];
        else
            free(f->secret[i]);
    }
    f->secrets = kept;
}

static void free_facts(facts *f) {
    size_t i;
    for (i = 0; i < f->secrets; i++) free(f->secret[i]);
    free(f->text);
}

static void check_no_secret(const facts *f, const char *text) {
    size_t i;
    for (i = 0; i < f->secrets; i++) CHECK(strstr(text, f->secret[i]) == NULL);
}

/* ---------------------------------------------------------------------------------------
   One run: its hooks, and what it saw */

typedef struct run {
    const input *in;
    const facts *facts;
    unsigned features;
    size_t requests, resolve_requests, plugin_runs;
    unsigned long long trace; /* FNV-1a of log lines, requests and plugin runs, in order */
    size_t trace_len;
} run;

static void trace(run *r, const char *s, size_t n) {
    size_t i;
    if (!r->trace) r->trace = 1469598103934665603ULL;
    for (i = 0; i < n; i++) r->trace = (r->trace ^ (unsigned char)s[i]) * 1099511628211ULL;
    r->trace = (r->trace ^ 0xFFu) * 1099511628211ULL; /* a separator no text holds */
    r->trace_len += n + 1;
}

static void trace_text(run *r, const char *s) { /* NULL as "-" */
    trace(r, s ? s : "-", strlen(s ? s : "-"));
}

static void capture_log(void *user, cres_log_level level, const char *message) {
    run *r = (run *)user;
    fuzz_check_log(NULL, level, message);
    check_no_secret(r->facts, message);
    trace(r, message, strlen(message));
}

static int header_is(const cres_http_header *h, const char *name) {
    return strcasecmp(h->name, name) == 0;
}

static cres_result fake_perform(void *user, const cres_http_request *req, cres_http_response *resp,
                                const cres_allocator *alloc, cres_error *err) {
    run *r = (run *)user;
    const cres_http_tls *t = req->tls;
    int plain_http;
    size_t i;
    CHECK(req->method != NULL && strcmp(req->method, "GET") == 0);
    CHECK(req->url != NULL);
    plain_http = strncmp(req->url, "http:", 5) == 0;
    CHECK(plain_http || strncmp(req->url, "https:", 6) == 0);
    trace(r, req->url, strlen(req->url));
    CHECK(strncmp(req->url + (plain_http ? 5 : 6), "//", 2) == 0); /* a host after the scheme */
    CHECK(!cres__bad_text(req->url, 1)); /* no blank or control character: usable as it is */
    for (i = 0; i < req->headers_count; i++) {
        const cres_http_header *h = &req->headers[i];
        CHECK(h->name != NULL && h->value != NULL);
        CHECK(strpbrk(h->name, "\r\n: ") == NULL && h->name[0] != '\0');
        CHECK(strpbrk(h->value, "\r\n") == NULL); /* a CR or LF would smuggle in a header */
        /* no credential goes over plain HTTP (impersonation headers may: kubectl sends them) */
        if (plain_http) CHECK(!header_is(h, "Authorization"));
        if (header_is(h, "Authorization"))
            CHECK(strncmp(h->value, "Bearer ", 7) == 0 || strncmp(h->value, "Basic ", 6) == 0);
        trace(r, h->name, strlen(h->name));
        trace(r, h->value, strlen(h->value));
    }
    if (t) {
        if (!(r->features & CRES_TRANSPORT_CA_PEM)) CHECK(t->ca_pem == NULL);
        if (!(r->features & CRES_TRANSPORT_CLIENT_CERT))
            CHECK(t->client_cert_pem == NULL && t->client_key_pem == NULL);
        if (!(r->features & CRES_TRANSPORT_SERVER_NAME)) CHECK(t->server_name == NULL);
        if (!(r->features & CRES_TRANSPORT_PROXY)) CHECK(t->proxy == NULL);
        if (!(r->features & CRES_TRANSPORT_INSECURE)) CHECK(!t->insecure_skip_verify);
        CHECK((t->client_cert_pem == NULL) == (t->client_key_pem == NULL));
        if (plain_http) CHECK(t->client_cert_pem == NULL && !t->insecure_skip_verify);
        trace_text(r, t->ca_pem);
        trace_text(r, t->client_cert_pem);
        trace_text(r, t->server_name);
        trace_text(r, t->proxy);
    }
    r->requests++;
    if ((r->in->flags & 8) && r->resolve_requests++ == 0)
        return fuzz_answer(resp, alloc, 401, STATUS_401, sizeof STATUS_401 - 1);
    return fuzz_answer(resp, alloc, 200, POD_LIST, sizeof POD_LIST - 1);
}

/* KUBERNETES_EXEC_INFO's JSON, kind ExecCredential, not interactive; its apiVersion into api. */
static void check_exec_info(const char *info, char *api, size_t cap) {
    static const char *const top[] = {"kind", "apiVersion", "spec"};
    static const char *const spec[] = {"interactive"};
    cres__json d;
    cres_error err;
    int at[3], interactive;
    CHECK(cres__json_parse(&d, info, strlen(info), &plain, "info", CRES_ERR_ENVIRONMENT, &err) ==
          CRES_OK);
    cres__json_pick(&d, 0, top, at, 3);
    CHECK(at[0] >= 0 && cres__json_eq(&d, at[0], "ExecCredential"));
    CHECK(at[1] >= 0 && (cres__json_eq(&d, at[1], CRES__EXEC_V1) ||
                         cres__json_eq(&d, at[1], CRES__EXEC_V1BETA1)));
    snprintf(api, cap, "%.*s", d.t[at[1]].end - d.t[at[1]].start, info + d.t[at[1]].start);
    cres__json_pick(&d, at[2], spec, &interactive, 1);
    CHECK(interactive >= 0 && d.t[interactive].type == JSMN_PRIMITIVE &&
          info[d.t[interactive].start] == 'f');
    cres__json_free(&d);
}

static char *give(const cres_allocator *alloc, const char *s, size_t n) {
    char *p = (char *)(alloc->alloc ? alloc->alloc(alloc->user, n + 1) : malloc(n + 1));
    if (p) {
        memcpy(p, s, n);
        p[n] = '\0';
    }
    return p;
}

static void take_back(const cres_allocator *alloc, char *p) {
    if (!p) return;
    if (alloc->free)
        alloc->free(alloc->user, p);
    else
        free(p);
}

/* The exec plugin: never a program; what the input says it prints. */
static cres_result fake_exec(void *user, const cres_exec_request *req, cres_exec_result *out,
                             const cres_allocator *alloc, cres_error *err) {
    run *r = (run *)user;
    const char *info = NULL, *text;
    char api[64], fixed[256];
    size_t i, infos = 0, n;
    CHECK(req->argv != NULL && req->argv[0] != NULL && req->argv[0][0] != '\0');
    for (i = 0; req->argv[i]; i++) trace(r, req->argv[i], strlen(req->argv[i]));
    CHECK(req->envp != NULL);
    for (i = 0; req->envp[i]; i++) {
        CHECK(strchr(req->envp[i], '=') != NULL);
        if (strncmp(req->envp[i], "KUBERNETES_EXEC_INFO=", 21) == 0)
            info = req->envp[i] + 21, infos++;
        trace(r, req->envp[i], strlen(req->envp[i]));
    }
    CHECK(infos == 1);
    CHECK(req->timeout_ms > 0 && req->max_output_bytes > 0);
    check_exec_info(info, api, sizeof api);
    r->plugin_runs++;
    if (PLUGIN(r->in) == 3)
        return cres_error_set(err, CRES_ERR_ENVIRONMENT, "cannot run \"%s\": no such file",
                              req->argv[0]);
    if (r->in->stdout_text) {
        text = r->in->stdout_text;
        n = r->in->stdout_len;
    } else {
        n = (size_t)snprintf(fixed, sizeof fixed,
                             "{\"apiVersion\": \"%s\", \"kind\": \"ExecCredential\", \"status\": "
                             "{\"token\": \"" FIXED_EXEC_TOKEN "\"}}",
                             api);
        text = fixed;
    }
    memset(out, 0, sizeof *out);
    out->exit_code = PLUGIN(r->in) == 2 ? 3 : 0;
    out->out = give(alloc, text, n);
    out->err = give(alloc, PLUGIN_STDERR, strlen(PLUGIN_STDERR));
    if (!out->out || !out->err) {
        take_back(alloc, out->out);
        take_back(alloc, out->err);
        memset(out, 0, sizeof *out);
        return cres_error_set(err, CRES_ERR_OUT_OF_MEMORY, "fuzz plugin: out of memory");
    }
    out->out_len = n;
    out->err_len = strlen(PLUGIN_STDERR);
    return CRES_OK;
}

/* ---------------------------------------------------------------------------------------
   Results */

typedef struct outcome {
    cres_result created, resolved, again;
    int status;
    char created_message[CRES_ERROR_MESSAGE_SIZE], message[CRES_ERROR_MESSAGE_SIZE];
    char *spec; /* its JSON on success */
    unsigned long long trace;
    size_t trace_len, requests, plugin_runs;
} outcome;

static void check_failure(const run *r, cres_result res, const cres_error *err, int at_resolve) {
    fuzz_check_known_error(res, err);
    CHECK(strstr(err->message, "kubernetes") != NULL);
    check_no_secret(r->facts, err->message);
    if (res == CRES_ERR_HTTP_STATUS) {
        CHECK(at_resolve && (r->in->flags & 8) && err->http_status == 401);
        return;
    }
    CHECK(err->http_status == 0);
    if (res == CRES_ERR_UNSUPPORTED) {
        CHECK(at_resolve && (r->in->flags & 16));
        return;
    }
    CHECK(res == CRES_ERR_ENVIRONMENT || res == CRES_ERR_LIMIT || res == CRES_ERR_OUT_OF_MEMORY);
}

static char *spec_text(const cres_cluster_spec *s) {
    size_t len = 0;
    char *text;
    cres_error err;
    CHECK(cres_spec_to_json(s, NULL, 0, &len, &err) == CRES_OK);
    text = (char *)malloc(len + 1);
    CHECK(text != NULL);
    CHECK(cres_spec_to_json(s, text, len + 1, NULL, &err) == CRES_OK);
    return text;
}

static void check_spec(cres_resolver *res, const cres_cluster_spec *s) {
    const cres_job *w = cres_spec_job(s, "worker");
    CHECK(cres_spec_jobs_count(s) == 1 && w != NULL && w->tasks_count == 2);
    CHECK(strcmp(w->tasks[0].address, "10.0.0.1:8470") == 0);
    CHECK(strcmp(w->tasks[1].address, "10.0.0.2:8470") == 0);
    CHECK(cres_task_type(res) && strcmp(cres_task_type(res), "worker") == 0);
    CHECK(cres_task_id(res) == 1);
}

static void run_once(const input *in, const facts *f, outcome *o) {
    static const cres_k8s_job_selector jobs[] = {{"worker", "job-name=trainer"}};
    fuzz_counter count = {0};
    cres_config config;
    cres_k8s_options opts;
    cres_resolver *res = NULL;
    cres_cluster_spec *spec = NULL, *again = NULL;
    cres_error err, err2;
    run r;
    memset(o, 0, sizeof *o);
    memset(&r, 0, sizeof r);
    r.in = in;
    r.facts = f;
    r.features = (in->flags & 16) ? CRES_TRANSPORT_CA_PEM
                                  : CRES_TRANSPORT_CA_PEM | CRES_TRANSPORT_CLIENT_CERT |
                                        CRES_TRANSPORT_SERVER_NAME | CRES_TRANSPORT_PROXY |
                                        CRES_TRANSPORT_INSECURE;
    fuzz_offline_config(&config, &count);
    config.transport.perform = fake_perform;
    config.transport.user = &r;
    config.transport.features = r.features;
    config.log.fn = capture_log;
    config.log.user = &r;
    config.getenv.fn = input_getenv;
    config.getenv.user = (void *)in;
    config.env_list.fn = input_env_at;
    config.env_list.user = (void *)in;
    config.exec.fn = fake_exec;
    config.exec.user = &r;
    config.resolve_timeout_ms = -1; /* no deadline */
    memset(&opts, 0, sizeof opts);
    opts.config = &config;
    opts.jobs = jobs;
    opts.jobs_count = 1;
    opts.hostname = "w-1";
    opts.all_namespaces = (in->flags & 128) != 0;
    opts.kubeconfig = MODE(in) == 0 ? path_a : NULL;
    opts.context = in->context;

    o->created = cres_k8s_resolver_create(&opts, &res, &err);
    snprintf(o->created_message, sizeof o->created_message, "%s", err.message);
    if (o->created != CRES_OK) {
        CHECK(res == NULL);
        check_failure(&r, o->created, &err, 0);
    } else {
        CHECK(res != NULL && strcmp(cres_resolver_name(res), "kubernetes") == 0);
        fuzz_check_error(o->created, &err);
        r.resolve_requests = 0;
        o->resolved = cres_resolve(res, &spec, &err);
        snprintf(o->message, sizeof o->message, "%s", err.message);
        o->status = err.http_status;
        r.resolve_requests = 0;
        o->again = cres_resolve(res, &again, &err2);
        /* the same resolver, the same answers: the same result (a kept credential or not) */
        CHECK(o->again == o->resolved);
        CHECK(strcmp(err.message, err2.message) == 0 && err.http_status == err2.http_status);
        if (o->resolved != CRES_OK) {
            CHECK(spec == NULL && again == NULL);
            check_failure(&r, o->resolved, &err, 1);
        } else {
            fuzz_check_error(o->resolved, &err);
            CHECK(r.requests > 0);
            check_spec(res, spec);
            CHECK(cres_spec_equal(spec, again));
            o->spec = spec_text(spec);
        }
    }
    cres_spec_free(spec);
    cres_spec_free(again);
    cres_resolver_free(res);
    CHECK(count.live == 0);
    o->trace = r.trace;
    o->trace_len = r.trace_len;
    o->requests = r.requests;
    o->plugin_runs = r.plugin_runs;
}

static void check_same(const outcome *a, const outcome *b) {
    CHECK(a->created == b->created && a->resolved == b->resolved && a->again == b->again);
    CHECK(a->status == b->status);
    CHECK(strcmp(a->created_message, b->created_message) == 0);
    CHECK(strcmp(a->message, b->message) == 0);
    CHECK((a->spec == NULL) == (b->spec == NULL));
    if (a->spec) CHECK(strcmp(a->spec, b->spec) == 0);
    CHECK(a->trace == b->trace && a->trace_len == b->trace_len);
    CHECK(a->requests == b->requests && a->plugin_runs == b->plugin_runs);
}

/* What open() would return now. libFuzzer keeps descriptors of its own between inputs (the
   symbolizer it starts to print NEW_FUNC lines), so each input is compared with itself. */
static int lowest_free_descriptor(void) {
    int fd = open("/dev/null", O_RDONLY);
    CHECK(fd >= 0);
    close(fd);
    return fd;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    input in;
    facts f;
    outcome first, second;
    int fd;
    if (size < 1) return 0;
    fd = lowest_free_descriptor(); /* the same at the end: nothing left open */
    read_input(&in, data, size);
    fuzz_write_file(path_a, in.part[0], in.len[0]);
    fuzz_write_file(path_b, in.part[1], in.len[1]);
    read_facts(&f, &in);
    run_once(&in, &f, &first);
    run_once(&in, &f, &second);
    check_same(&first, &second);
    if (getenv("FUZZ_KUBECONFIG_VERBOSE")) /* to see what a replayed input did */
        fprintf(stderr, "create %s: %s\nresolve %s: %s\n%zu requests, %zu plugin runs%s%s\n",
                cres_result_string(first.created), first.created_message,
                first.created ? "-" : cres_result_string(first.resolved), first.message,
                first.requests, first.plugin_runs, first.spec ? ", spec " : "",
                first.spec ? first.spec : "");
    free(first.spec);
    free(second.spec);
    free_facts(&f);
    free_input(&in);
    CHECK(lowest_free_descriptor() == fd);
    return 0;
}
