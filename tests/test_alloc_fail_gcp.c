/* Allocation-failure injection for the Google Cloud resolvers (GCE and Cloud TPU), the metadata
   server and token code under them, with the technique of tests/test_alloc_fail_k8s.c in a
   self-contained form.

   A counting test allocator fails the n-th allocation (n = 0, 1, 2, ...) of a scenario and
   counts the blocks still live. The fake transport answers by URL and allocates response
   bodies with the allocator it is handed, so those allocations are walked too (a failed one
   makes perform() answer CRES_ERR_OUT_OF_MEMORY, as a real transport would). For every n the
   scenario must end in its expected result or CRES_ERR_OUT_OF_MEMORY, leave no block allocated
   and free every block through the allocator that made it: a run that "succeeds" with a
   different spec, own task, master or accelerator count is a failure too (an allocation
   failure must never turn into a wrong answer). The walk stops at the first n the scenario
   never reaches; that undisturbed run must give exactly the expected content. Each scenario is
   walked twice: failing only allocation n, and failing n and every later one.

   Build: gcc -std=c99 ... tests/test_alloc_fail_gcp.c tests/impl.c -lcmocka */

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../cluster_resolver.h"

#define N(a) (sizeof(a) / sizeof *(a))

/* ---------------------------------------------------------------------------------------
   The test allocator */

#include "alloc_walk.h"

/* ---------------------------------------------------------------------------------------
   The fake Google Cloud: answers by exact URL; the metadata server says 404 for what it does
   not have; anything else is a connection error */

#define METADATA "http://metadata.google.internal/computeMetadata/v1/"
#define COMPUTE "https://compute.googleapis.com/compute/v1/projects/test-project"
#define GROUP_URL COMPUTE "/zones/us-east1-b/instanceGroups/trainers/listInstances?maxResults=500"
#define ZONE_QUERY                                                                                     \
    "/instances?filter=status%20%3D%20%22RUNNING%22&fields=items%28name%2CnetworkInterfaces%28networkIP" \
    "%29%29%2CnextPageToken&maxResults=500"
#define NODE_URL "https://tpu.googleapis.com/v2/projects/cfg-project/locations/europe-west4-a/nodes/cfg-tpu"

typedef struct route {
    const char *url;
    int status;
    const char *body;
} route;

typedef struct fake_cloud {
    const route *routes;
    size_t count;
    int requests;
} fake_cloud;

static cres_result fake_perform(void *user, const cres_http_request *req, cres_http_response *resp,
                                const cres_allocator *alloc, cres_error *err) {
    fake_cloud *c = (fake_cloud *)user;
    const char *body = NULL;
    size_t i, n;
    c->requests++;
    for (i = 0; i < c->count && !body; i++)
        if (strcmp(c->routes[i].url, req->url) == 0) {
            resp->status = c->routes[i].status;
            body = c->routes[i].body;
        }
    if (!body && strncmp(req->url, METADATA, strlen(METADATA)) == 0) {
        resp->status = 404;
        body = "Not Found";
    }
    if (!body) {
        if (err) snprintf(err->message, sizeof err->message, "fake: nothing at %s", req->url);
        return CRES_ERR_TRANSPORT;
    }
    n = strlen(body);
    resp->body = (char *)alloc->alloc(alloc->user, n + 1);
    if (!resp->body) {
        if (err) snprintf(err->message, sizeof err->message, "fake: out of memory");
        return CRES_ERR_OUT_OF_MEMORY;
    }
    memcpy(resp->body, body, n + 1);
    resp->body_len = n;
    return CRES_OK;
}

static void no_sleep(void *user, int ms) {
    (void)user;
    (void)ms;
}

/* The environment: NULL-terminated name/value pairs. */
static const char *fake_getenv(void *user, const char *name) {
    const char *const *pairs = (const char *const *)user;
    for (; pairs && pairs[0]; pairs += 2)
        if (strcmp(pairs[0], name) == 0) return pairs[1];
    return NULL;
}

/* ---------------------------------------------------------------------------------------
   Answers */

#define MEMBER(zone, name) \
    "{\"instance\": \"https://www.googleapis.com/compute/v1/projects/test-project/zones/" zone "/instances/" name "\", \"status\": \"RUNNING\"}"
#define VM(name, ip) "{\"name\": \"" name "\", \"networkInterfaces\": [{\"networkIP\": \"" ip "\"}]}"

static const char group_page1[] = "{\"kind\": \"compute#instanceGroupsListInstances\", \"items\": ["
    MEMBER("us-east1-b", "trainer-10") ", " MEMBER("us-east1-c", "trainer-2") "], \"nextPageToken\": \"tok 2/x\"}";
static const char group_page2[] = "{\"kind\": \"compute#instanceGroupsListInstances\", \"items\": ["
    MEMBER("us-east1-b", "trainer-1") "]}";
static const char zone_b[] = "{\"items\": [" VM("trainer-10", "10.0.1.10") ", " VM("trainer-1", "10.0.1.1") ", "
    VM("other-vm", "10.0.1.99") "]}";
static const char zone_c[] = "{\"items\": [" VM("trainer-2", "10.0.2.2") "]}";
static const char token_json[] = "{\"access_token\":\"ya29.meta\",\"expires_in\":3599,\"token_type\":\"Bearer\"}";
static const char forbidden[] =
    "{\"error\": {\"code\": 403, \"message\": \"Required 'compute.instanceGroups.list' permission for "
    "'projects/test-project/zones/us-east1-b/instanceGroups/trainers'\", \"errors\": [{\"message\": \"x\", "
    "\"domain\": \"global\", \"reason\": \"forbidden\"}], \"status\": \"PERMISSION_DENIED\"}}";

#define EP(ip) "{\"ipAddress\": \"" ip "\", \"port\": 8470, \"accessConfig\": {\"externalIp\": \"34.1.2.3\"}}"
static const char tpu_node[] =
    "{\"name\": \"projects/cfg-project/locations/europe-west4-a/nodes/cfg-tpu\", \"acceleratorType\": \"v4-32\", "
    "\"state\": \"READY\", \"health\": \"HEALTHY\", \"runtimeVersion\": \"tpu-ubuntu2204-base\", "
    "\"networkEndpoints\": [" EP("10.2.0.4") ", " EP("10.2.0.5") ", " EP("10.2.0.6") ", " EP("10.2.0.7") "], "
    "\"symptoms\": [], \"apiVersion\": \"V2\"}";

static const route gce_routes[] = {
    {METADATA "project/project-id", 200, "test-project"},
    {METADATA "instance/zone", 200, "projects/123456789012/zones/us-east1-b"},
    {METADATA "instance/service-accounts/default/token", 200, token_json},
    {METADATA "instance/name", 200, "trainer-2"},
    {GROUP_URL, 200, group_page1},
    {GROUP_URL "&pageToken=tok%202%2Fx", 200, group_page2},
    {COMPUTE "/zones/us-east1-b" ZONE_QUERY, 200, zone_b},
    {COMPUTE "/zones/us-east1-c" ZONE_QUERY, 200, zone_c},
};

static const route gce_forbidden_routes[] = {
    {METADATA "project/project-id", 200, "test-project"},
    {METADATA "instance/zone", 200, "projects/123456789012/zones/us-east1-b"},
    {METADATA "instance/service-accounts/default/token", 200, token_json},
    {GROUP_URL, 403, forbidden},
};

static const route tpu_routes[] = {
    {METADATA "instance/service-accounts/default/token", 200, token_json},
    {NODE_URL, 200, tpu_node},
};

static const route tpu_local_routes[] = {
    {METADATA "instance/attributes/worker-network-endpoints", 200, "w0:uid0:10.0.0.2,w1:uid1:10.0.0.3\n"},
    {METADATA "instance/attributes/agent-worker-number", 200, "1"},
    {METADATA "instance/attributes/accelerator-type", 200, "v5litepod-16"},
};

/* ---------------------------------------------------------------------------------------
   Scenarios */

enum backend { GCE, TPU_CONFIG, TPU_LOCAL, TPU_GRPC };

typedef struct scenario {
    const char *name;
    enum backend backend;
    const route *routes;
    size_t routes_count;
    const char *const *env;   /* name/value pairs, NULL-terminated */
    cres_result expected;
    const char *want_spec;    /* JSON, when expected is CRES_OK */
    const char *want_task;    /* "job/id" after the resolve; NULL = no own task */
    const char *want_master;  /* master() of the own task after the resolve */
    int want_accelerators;    /* TPU devices per host; 0 = not asked */
    const char *want_message; /* part of the message when the undisturbed run fails */
} scenario;

static cres_result run_create(const scenario *sc, const cres_config *config, cres_resolver **r) {
    cres_error err;
    cres_result res;
    if (sc->backend == GCE) {
        cres_gce_options o;
        memset(&o, 0, sizeof o);
        o.config = config;
        o.instance_group = "trainers";
        res = cres_gce_resolver_create(&o, r, &err);
    } else {
        cres_tpu_options o;
        memset(&o, 0, sizeof o);
        o.config = config;
        if (sc->backend == TPU_LOCAL) o.tpu = "local";
        if (sc->backend == TPU_GRPC) o.tpu = "grpc://10.0.0.1:8470,[fd00::2],10.0.0.3:2222";
        if (sc->backend == TPU_CONFIG) {
            o.coordinator_name = "coordinator";
            o.coordinator_address = "10.2.0.100:8476";
        }
        res = cres_tpu_resolver_create(&o, r, &err);
    }
    res = checked(res, &err);
    if (res != CRES_OK && *r) return mismatch("create failed but returned a resolver", err.message);
    return res;
}

/* The message is checked on undisturbed runs only: when the allocation that reads Google's
   error message fails, the error is still right but says less. */
static cres_result run_resolve(const scenario *sc, cres_resolver *r, const test_alloc *t) {
    cres_cluster_spec *spec = NULL;
    cres_error err;
    char json[1024], task[64];
    cres_result res = checked(cres_resolve(r, &spec, &err), &err);
    if (res != CRES_OK && spec) res = mismatch("resolve failed but returned a spec", err.message);
    if (res == CRES_OK && !sc->want_spec) res = mismatch("resolve succeeded", "no spec expected");
    if (res == CRES_OK && cres_spec_to_json(spec, json, sizeof json, NULL, &err) != CRES_OK)
        res = mismatch("to_json", err.message);
    if (res == CRES_OK && strcmp(json, sc->want_spec) != 0) res = mismatch("spec", json);
    if (res == CRES_OK) {
        snprintf(task, sizeof task, "%s/%d", cres_task_type(r) ? cres_task_type(r) : "(none)", cres_task_id(r));
        if (strcmp(task, sc->want_task ? sc->want_task : "(none)/-1") != 0) res = mismatch("own task", task);
    }
    if (res == sc->expected && res != CRES_OK && !t->triggered && sc->want_message &&
        !strstr(err.message, sc->want_message))
        res = mismatch("message", err.message);
    cres_spec_free(spec);
    return res;
}

static cres_result run_accelerators(const scenario *sc, cres_resolver *r) {
    cres_accelerators acc;
    cres_error err;
    char got[64];
    cres_result res = checked(cres_num_accelerators(r, &acc, &err), &err);
    if (res != CRES_OK) return res;
    snprintf(got, sizeof got, "%zu x %s %d", acc.count, acc.count ? acc.items[0].type : "-",
             acc.count ? acc.items[0].count : 0);
    if (acc.count != 1 || strcmp(acc.items[0].type, "TPU") != 0 || acc.items[0].count != sc->want_accelerators)
        return mismatch("accelerators", got);
    return CRES_OK;
}

static cres_result run_scenario(test_alloc *t, const void *ctx) {
    const scenario *sc = (const scenario *)ctx;
    fake_cloud cloud;
    cres_config config;
    cres_resolver *r = NULL;
    cres_result res;
    memset(&config, 0, sizeof config);
    test_alloc_use(&config.allocator, t);
    config.transport.perform = fake_perform;
    config.transport.user = &cloud;
    config.getenv.fn = fake_getenv;
    config.getenv.user = (void *)(size_t)sc->env;
    config.sleep.fn = no_sleep;
    cloud.routes = sc->routes;
    cloud.count = sc->routes_count;
    cloud.requests = 0;
    res = run_create(sc, &config, &r);
    if (res == CRES_OK) res = run_resolve(sc, r, t);
    if (res == CRES_OK && sc->want_master) res = check_master(r, sc->want_master);
    if (res == CRES_OK && sc->want_accelerators) res = run_accelerators(sc, r);
    cres_resolver_free(r);
    return res;
}

/* ---------------------------------------------------------------------------------------
   The walk */

static void walk(const scenario *sc) { alloc_walk(sc->name, run_scenario, sc, sc->expected); }

/* ---------------------------------------------------------------------------------------
   Tests */

static const char *const no_env[] = {NULL};

/* GCE on a VM of the group: project, zone, token and own name from the metadata server; the
   group over two pages (the token URL-encoded), members in two zones, a non-member in a zone
   list; master() resolves again and gives the own instance's address. */
static void gce_metadata_two_pages_two_zones_and_master(void **state) {
    static const scenario sc = {"gce: metadata, 2 pages, 2 zones, master", GCE, gce_routes, N(gce_routes), no_env,
                                CRES_OK,
                                "{\"worker\": [\"10.0.1.1:8470\", \"10.0.2.2:8470\", \"10.0.1.10:8470\"]}",
                                "worker/1", "grpc://10.0.2.2:8470", 0, NULL};
    (void)state;
    walk(&sc);
}

/* A 403 with Google's error body: the message quotes it and names the permission. */
static void gce_forbidden(void **state) {
    static const scenario sc = {"gce: 403", GCE, gce_forbidden_routes, N(gce_forbidden_routes), no_env,
                                CRES_ERR_HTTP_STATUS, NULL, NULL, NULL, 0,
                                "Required 'compute.instanceGroups.list' permission"};
    (void)state;
    walk(&sc);
}

/* Cloud TPU named by $TPU_CONFIG (name, project, zone), token from the metadata server, a
   coordinator job; master() resolves again; v4-32: 4 devices per host. */
static void tpu_config_resolve_master_accelerators(void **state) {
    static const char *const env[] = {
        "TPU_CONFIG", "{\"tpu_node_name\": \"cfg-tpu\", \"project\": \"cfg-project\", \"zone\": \"europe-west4-a\"}",
        "TPU_WORKER_ID", "2", NULL};
    static const scenario sc = {"tpu: TPU_CONFIG, master, accelerators", TPU_CONFIG, tpu_routes, N(tpu_routes), env,
                                CRES_OK,
                                "{\"coordinator\": [\"10.2.0.100:8476\"], \"worker\": [\"10.2.0.4:8470\", "
                                "\"10.2.0.5:8470\", \"10.2.0.6:8470\", \"10.2.0.7:8470\"]}",
                                "worker/2", "grpc://10.2.0.6:8470", 4, NULL};
    (void)state;
    walk(&sc);
}

/* A TPU VM: peers, own number and accelerator type from the metadata attributes. */
static void tpu_local_from_metadata(void **state) {
    static const scenario sc = {"tpu: local from metadata", TPU_LOCAL, tpu_local_routes, N(tpu_local_routes), no_env,
                                CRES_OK, "{\"worker\": [\"10.0.0.2:8470\", \"10.0.0.3:8470\"]}", "worker/1",
                                "grpc://10.0.0.3:8470", 4, NULL};
    (void)state;
    walk(&sc);
}

/* A grpc:// endpoint list: no request at all; IPv6 bracketed, the default port added. */
static void tpu_grpc_list(void **state) {
    static const char *const env[] = {"TPU_WORKER_ID", "1", NULL};
    static const scenario sc = {"tpu: grpc list", TPU_GRPC, NULL, 0, env, CRES_OK,
                                "{\"worker\": [\"10.0.0.1:8470\", \"[fd00::2]:8470\", \"10.0.0.3:2222\"]}", "worker/1",
                                "grpc://[fd00::2]:8470", 0, NULL};
    (void)state;
    walk(&sc);
}

/* See alloc_walk_first_fails(). */
static void allocator_fails_the_first_allocation(void **state) {
    static const scenario sc = {"first allocation", TPU_GRPC, NULL, 0, no_env, CRES_OK,
                                "{\"worker\": [\"10.0.0.1:8470\", \"[fd00::2]:8470\", \"10.0.0.3:2222\"]}", "worker/0",
                                NULL, 0, NULL};
    (void)state;
    alloc_walk_first_fails(run_scenario, &sc);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(allocator_fails_the_first_allocation),
        cmocka_unit_test(gce_metadata_two_pages_two_zones_and_master),
        cmocka_unit_test(gce_forbidden),
        cmocka_unit_test(tpu_config_resolve_master_accelerators),
        cmocka_unit_test(tpu_local_from_metadata),
        cmocka_unit_test(tpu_grpc_list),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
