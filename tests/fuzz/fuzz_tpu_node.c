/* libFuzzer target: arbitrary bytes as what a Cloud TPU resolve reads: the node the Cloud TPU
   API answers, the metadata server's project, zone, token and TPU VM attributes, and the
   environment variables that name a TPU (TPU_CONFIG, KUBE_GOOGLE_CLOUD_TPU_ENDPOINTS,
   TPU_WORKER_HOSTNAMES) through the getenv hook.

   Input: byte 0 chooses the path (byte 0 % 6): 0 the v2 API by name, 1 the v1 API, 2 "local"
   from the metadata attributes, 3 "local" from TPU_WORKER_HOSTNAMES (part 0), 4 the name,
   project and zone from TPU_CONFIG (part 0; the node answer is then part 4), 5 an endpoint
   list from KUBE_GOOGLE_CLOUD_TPU_ENDPOINTS (part 0; without a ':' it is a TPU name, and the
   node answer is part 4); (byte 0 / 6) % 3 the node's HTTP status
   among 200, 403, 500. Byte 1 chooses options: bit 0 allow_unhealthy, bit 1 a coordinator,
   bit 2 accelerators_per_host 2, bit 3 rpc layer "" (else the default "grpc"), bit 4 project
   and zone from the metadata server (else given), bit 5 the token from the metadata server
   (else given), bit 6 TPU_WORKER_ID from part 5 (else unset). The rest is split at 0xFF bytes
   into parts: 0 the node body (or the variable), 1 project-id, 2 zone, 3 token JSON,
   4 worker-network-endpoints, 5 agent-worker-number, 6 accelerator-type (the last keeps any
   later 0xFF). A metadata path whose part is absent answers 404. No retries; no sleeping.

   Properties: create fails only with an environment, argument or limit error; a failed
   resolve is one of the errors bad answers cause, with a message, and http_status set
   exactly for CRES_ERR_HTTP_STATUS; a successful one holds only the worker job (dense, non-
   empty addresses, ports in range) and the coordinator, the coordinator exactly when one is
   configured and the cluster is not TF's empty local one, round-trips through JSON and comes
   out the same on a second resolve; master() is "" for an empty cluster, else the own task's
   address with the rpc layer, or CRES_ERR_NOT_FOUND when the own worker is not in the spec;
   num_accelerators() is "TPU" with a count of at least 1, or CRES_ERR_UNSUPPORTED.

   A malformed endpoint list is the fault of its source: CRES_ERR_INVALID_ARGUMENT only for
   options.tpu (never given a list here), CRES_ERR_ENVIRONMENT for a variable or TPU_CONFIG,
   CRES_ERR_UNEXPECTED_RESPONSE for the metadata server (so "local" from the metadata fails
   with CRES_ERR_ENVIRONMENT only for a TPU_WORKER_ID when no workers are named: the variable
   is then the fault); an empty TPU_WORKER_ID is unset; no
   request URL holds "/../", '?' or '#' (TPU_CONFIG's project and zone are checked).

   clang -g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined \
         tests/fuzz/fuzz_tpu_node.c -o build/fuzz_tpu_node */

#include "fuzz_common.h"

#define METADATA "http://metadata.google.internal/computeMetadata/v1/"
#define TPU_API "https://tpu.googleapis.com/"
#define PARTS 7

enum { API_V2, API_V1, LOCAL_METADATA, LOCAL_ENV, TPU_CONFIG_ENV, ENDPOINTS_ENV, PATHS };

typedef struct fuzz_case {
    const uint8_t *part[PARTS];
    size_t len[PARTS];
    int present[PARTS];
    char *text[PARTS]; /* NUL-terminated copies, for the environment */
    int path, node_status;
    int node_part;
    const char *env_name; /* the variable part 0 is given as, or NULL */
    int worker_id_env;
    int api_requests;
} fuzz_case;

static const char *const metadata_paths[PARTS] = {
    NULL,
    "project/project-id",
    "instance/zone",
    "instance/service-accounts/default/token",
    "instance/attributes/worker-network-endpoints",
    "instance/attributes/agent-worker-number",
    "instance/attributes/accelerator-type",
};

static cres_result fake_perform(void *user, const cres_http_request *req, cres_http_response *resp,
                                const cres_allocator *alloc, cres_error *err) {
    fuzz_case *c = (fuzz_case *)user;
    int i;
    (void)err;
    CHECK(strcmp(req->method, "GET") == 0);
    if (strncmp(req->url, METADATA, strlen(METADATA)) == 0) {
        const char *path = req->url + strlen(METADATA);
        for (i = 1; i < PARTS; i++)
            if (strcmp(path, metadata_paths[i]) == 0)
                return c->present[i] && i != c->node_part
                           ? fuzz_answer(resp, alloc, 200, c->part[i], c->len[i])
                           : fuzz_answer(resp, alloc, 404, "Not Found", 9);
        CHECK(!"an unexpected metadata path");
    }
    CHECK(strncmp(req->url, TPU_API, strlen(TPU_API)) == 0);
    CHECK(c->path != LOCAL_METADATA && c->path != LOCAL_ENV); /* an endpoint list without ':' is a name */
    c->api_requests++;
    CHECK(strstr(req->url, "/../") == NULL && strchr(req->url, '?') == NULL && strchr(req->url, '#') == NULL);
    return fuzz_answer(resp, alloc, c->node_status, c->part[c->node_part], c->len[c->node_part]);
}

static const char *fake_getenv(void *user, const char *name) {
    fuzz_case *c = (fuzz_case *)user;
    if (c->env_name && strcmp(name, c->env_name) == 0) return c->text[0];
    if (c->worker_id_env && strcmp(name, "TPU_WORKER_ID") == 0) return c->text[5];
    return NULL;
}

static void split(fuzz_case *c, const uint8_t *data, size_t size) {
    static const int statuses[3] = {200, 403, 500};
    static const char *const env_names[PATHS] = {NULL, NULL, NULL, "TPU_WORKER_HOSTNAMES", "TPU_CONFIG",
                                                 "KUBE_GOOGLE_CLOUD_TPU_ENDPOINTS"};
    size_t present, i;
    memset(c, 0, sizeof *c);
    c->path = data[0] % PATHS;
    c->node_status = statuses[(data[0] / PATHS) % 3];
    c->env_name = env_names[c->path];
    c->node_part = c->path == TPU_CONFIG_ENV || c->path == ENDPOINTS_ENV ? 4 : 0;
    c->worker_id_env = (data[1] & 64) != 0;
    present = fuzz_split(data, size, 2, c->part, c->len, PARTS);
    for (i = 0; i < PARTS; i++) {
        c->present[i] = i < present;
        c->text[i] = fuzz_text(c->part[i], c->len[i], 0);
        CHECK(c->text[i] != NULL);
    }
}

static void check_create_failure(cres_result r, const cres_error *err) {
    CHECK(err->result == r);
    CHECK(err->message[0] != '\0');
    CHECK(r == CRES_ERR_ENVIRONMENT || r == CRES_ERR_INVALID_ARGUMENT || r == CRES_ERR_LIMIT);
}

static void check_resolve_failure(const fuzz_case *c, cres_result r, const cres_error *err) {
    static const cres_result allowed[] = {CRES_ERR_UNEXPECTED_RESPONSE, CRES_ERR_NOT_READY,
                                          CRES_ERR_HTTP_STATUS, CRES_ERR_LIMIT,
                                          CRES_ERR_ENVIRONMENT, CRES_ERR_NOT_FOUND, CRES_OK};
    static const int statuses[] = {403, 500, 0}; /* the node's */
    fuzz_check_answer_failure(r, err, allowed, statuses);
    if (c->path == LOCAL_METADATA && r == CRES_ERR_ENVIRONMENT) /* only the metadata spoke, but a */
        CHECK(c->worker_id_env && c->text[5][0] &&                /* worker id without workers */
              strncmp(err->message, "tpu: TPU_WORKER_ID=", 19) == 0); /* is the environment's fault */
    if ((c->path == LOCAL_ENV || c->path == LOCAL_METADATA) && c->worker_id_env && !c->text[5][0] &&
        r == CRES_ERR_ENVIRONMENT)
        CHECK(strncmp(err->message, "tpu: TPU_WORKER_ID", 18) != 0); /* an empty TPU_WORKER_ID is unset */
}

static void check_round_trip(const cres_cluster_spec *spec) {
    cres_cluster_spec *again = NULL;
    cres_error err;
    size_t len = 0;
    char *text;
    CHECK(cres_spec_to_json(spec, NULL, 0, &len, &err) == CRES_OK);
    text = (char *)malloc(len + 1);
    CHECK(text != NULL);
    CHECK(cres_spec_to_json(spec, text, len + 1, NULL, &err) == CRES_OK);
    CHECK(cres_spec_from_json(text, len, NULL, &again, &err) == CRES_OK);
    CHECK(cres_spec_equal(spec, again));
    cres_spec_free(again);
    free(text);
}

static void check_spec(const fuzz_case *c, const cres_cluster_spec *spec, int coordinator) {
    const cres_job *w = cres_spec_job(spec, "worker"), *co = cres_spec_job(spec, "coordinator");
    size_t t;
    CHECK(cres_spec_jobs_count(spec) == (size_t)(w != NULL) + (co != NULL));
    if (w) {
        CHECK(w->tasks_count > 0);
        for (t = 0; t < w->tasks_count; t++) {
            const char *a = w->tasks[t].address, *colon = strrchr(a, ':');
            CHECK(w->tasks[t].index == (int)t);
            CHECK(a[0] != '\0' && colon != NULL && colon[1] != '\0');
            CHECK(atoi(colon + 1) >= 0 && atoi(colon + 1) <= 65535);
        }
    } else {
        CHECK(c->api_requests == 0); /* TF's empty local cluster ("local" may also come from a variable) */
    }
    if (coordinator && w) {
        CHECK(co != NULL && co->tasks_count == 1 && strcmp(co->tasks[0].address, "10.128.1.5:10203") == 0);
    } else {
        CHECK(co == NULL);
    }
    check_round_trip(spec);
}

static void check_master(cres_resolver *r, const cres_cluster_spec *spec, const char *rpc) {
    char master[2048], want[2048];
    const char *address = cres_spec_task_address(spec, "worker", cres_task_id(r));
    cres_error err;
    cres_result res = cres_master(r, master, sizeof master, NULL, &err);
    CHECK(cres_task_type(r) != NULL && strcmp(cres_task_type(r), "worker") == 0);
    if (cres_spec_jobs_count(spec) == 0 || cres_task_id(r) < 0) { /* local, or no own task */
        CHECK(res == CRES_OK && master[0] == '\0');
        return;
    }
    if (!address) {
        CHECK(res == CRES_ERR_NOT_FOUND);
        return;
    }
    CHECK(res == CRES_OK);
    snprintf(want, sizeof want, "%s%s%s", rpc, *rpc ? "://" : "", address);
    CHECK(strcmp(master, want) == 0);
}

static void check_accelerators(cres_resolver *r) {
    cres_accelerators acc;
    cres_error err;
    cres_result res = cres_num_accelerators(r, &acc, &err);
    if (res != CRES_OK) {
        CHECK(res == CRES_ERR_UNSUPPORTED && err.message[0] != '\0');
        return;
    }
    CHECK(acc.count == 1 && strcmp(acc.items[0].type, "TPU") == 0 && acc.items[0].count >= 1);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    fuzz_case c;
    cres_config config;
    cres_tpu_options o;
    cres_resolver *r = NULL;
    cres_cluster_spec *spec = NULL;
    cres_error err;
    cres_result res;
    size_t i;
    if (size < 2) return 0;
    split(&c, data, size);

    fuzz_canned_config(&config, fake_perform, &c);
    config.getenv.fn = fake_getenv; /* the variables of the path */
    config.getenv.user = &c;
    memset(&o, 0, sizeof o);
    o.config = &config;
    o.tpu = c.path == API_V2 || c.path == API_V1 ? "fuzz-tpu" : c.path <= LOCAL_ENV ? "local" : NULL;
    o.api_version = c.path == API_V1 ? "v1" : NULL;
    o.allow_unhealthy = data[1] & 1;
    if (data[1] & 2) {
        o.coordinator_name = "coordinator";
        o.coordinator_address = "10.128.1.5:10203";
    }
    o.accelerators_per_host = (data[1] & 4) ? 2 : 0;
    o.rpc_layer = (data[1] & 8) ? "" : NULL;
    if (!(data[1] & 16)) {
        o.project = "fuzz-project";
        o.zone = "us-central2-b";
    }
    o.token = (data[1] & 32) ? NULL : "fuzz-token";

    res = cres_tpu_resolver_create(&o, &r, &err);
    if (res != CRES_OK) {
        CHECK(r == NULL);
        check_create_failure(res, &err);
    } else {
        res = cres_resolve(r, &spec, &err);
        if (res != CRES_OK) {
            CHECK(spec == NULL);
            check_resolve_failure(&c, res, &err);
        } else {
            check_spec(&c, spec, o.coordinator_name != NULL);
            fuzz_check_resolves_again(r, spec);
            check_master(r, spec, (data[1] & 8) ? "" : "grpc");
            check_accelerators(r);
        }
    }
    cres_spec_free(spec);
    cres_resolver_free(r);
    for (i = 0; i < PARTS; i++) free(c.text[i]);
    return 0;
}
