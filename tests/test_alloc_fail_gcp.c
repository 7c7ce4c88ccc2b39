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
   walked twice: failing only allocation n, and failing n and every later one. The Application
   Default Credentials scenarios add the credentials files (each type, each place the chain
   looks), the token endpoint, generateAccessToken and a signer of the test's, and check what
   each of them is sent, the requests an undisturbed run makes, and that no log line or
   message holds a secret.

   Build: gcc -std=c99 ... tests/test_alloc_fail_gcp.c tests/impl.c -lcmocka */

#define _XOPEN_SOURCE 700 /* mkdtemp, unlink, rmdir */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../cluster_resolver.h"

#define N(a) (sizeof(a) / sizeof *(a))

/* ---------------------------------------------------------------------------------------
   The test allocator */

#include "alloc_walk.h"
#include "walk_files.h"

/* ---------------------------------------------------------------------------------------
   The fake Google Cloud: answers by exact URL; the metadata server says 404 for what it does
   not have; anything else is a connection error */

#define METADATA "http://metadata.google.internal/computeMetadata/v1/"
#define COMPUTE "https://compute.googleapis.com/compute/v1/projects/test-project"
#define GROUP_URL COMPUTE "/zones/us-east1-b/instanceGroups/trainers/listInstances?maxResults=500"
#define ZONE_QUERY                                                                                     \
    "/instances?filter=status%20%3D%20%22RUNNING%22&fields=items%28name%2CnetworkInterfaces%28networkIP" \
    "%29%29%2CnextPageToken&maxResults=500"
#define REGION_GROUP_URL \
    COMPUTE "/regions/us-east1/instanceGroups/trainers/listInstances?maxResults=500"
#define NODE_URL "https://tpu.googleapis.com/v2/projects/cfg-project/locations/europe-west4-a/nodes/cfg-tpu"

typedef struct route {
    const char *url;
    int status;
    const char *body;
} route;

/* A route's body that is no body at all: the transport sends none (the library makes it ""). */
static const char no_body[] = "";

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
    if (body == no_body) return CRES_OK;
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

/* A regional group, every option given: no metadata request. */
static const route gce_options_routes[] = {
    {REGION_GROUP_URL, 200, group_page1},
    {REGION_GROUP_URL "&pageToken=tok%202%2Fx", 200, group_page2},
    {COMPUTE "/zones/us-east1-b" ZONE_QUERY, 200, zone_b},
    {COMPUTE "/zones/us-east1-c" ZONE_QUERY, 200, zone_c},
};

/* A TPU VM whose metadata server has no accelerator type: a 404 the transport gives no body. */
static const route tpu_local_no_type_routes[] = {
    {METADATA "instance/attributes/worker-network-endpoints", 200, "w0:uid0:10.0.0.2,w1:uid1:10.0.0.3\n"},
    {METADATA "instance/attributes/agent-worker-number", 200, "1"},
    {METADATA "instance/attributes/accelerator-type", 404, no_body},
};

static const route tpu_local_routes[] = {
    {METADATA "instance/attributes/worker-network-endpoints", 200, "w0:uid0:10.0.0.2,w1:uid1:10.0.0.3\n"},
    {METADATA "instance/attributes/agent-worker-number", 200, "1"},
    {METADATA "instance/attributes/accelerator-type", 200, "v5litepod-16"},
};

/* ---------------------------------------------------------------------------------------
   Scenarios */

/* _OPTIONS: every option that create() copies is given (GCE: a regional group, the token;
   TPU: the token file, never read for an endpoint list). */
enum backend { GCE, GCE_OPTIONS, TPU_CONFIG, TPU_LOCAL, TPU_GRPC, TPU_GRPC_OPTIONS };

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

/* credentials_file: options.credentials_file (NULL: the chain of the environment). */
static cres_result run_create(const scenario *sc, const cres_config *config, const char *credentials_file,
                              cres_resolver **r) {
    cres_error err;
    cres_result res;
    if (sc->backend == GCE || sc->backend == GCE_OPTIONS) {
        cres_gce_options o;
        memset(&o, 0, sizeof o);
        o.config = config;
        o.instance_group = "trainers";
        o.credentials_file = credentials_file;
        if (sc->backend == GCE_OPTIONS) {
            o.project = "test-project";
            o.zone = "us-east1-b";
            o.region = "us-east1";
            o.token = "ya29.option-token";
            o.credentials_file = "/nonexistent/adc.json"; /* the token wins: never read */
            o.ca_file = "/etc/ssl/certs/ca-certificates.crt";
            o.instance_name = "trainer-2";
            o.job_name = "trainer";
            o.compute_url = "https://compute.googleapis.com/compute/v1/";
        }
        res = cres_gce_resolver_create(&o, r, &err);
    } else {
        cres_tpu_options o;
        memset(&o, 0, sizeof o);
        o.config = config;
        o.credentials_file = credentials_file;
        if (sc->backend == TPU_LOCAL) o.tpu = "local";
        if (sc->backend == TPU_GRPC || sc->backend == TPU_GRPC_OPTIONS)
            o.tpu = "grpc://10.0.0.1:8470,[fd00::2],10.0.0.3:2222";
        if (sc->backend == TPU_GRPC_OPTIONS) {
            o.project = "test-project";
            o.zone = "us-central1-c";
            o.token_file = "/nonexistent/token"; /* an endpoint list needs no token */
            o.credentials_file = "/nonexistent/adc.json";
            o.job_name = "tpu_worker";
        }
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
    res = run_create(sc, &config, NULL, &r);
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

/* Every option create() copies, for GCE (a regional group over two pages) and TPU (an
   endpoint list): each copy's failure is out of memory, and the undisturbed run uses them. */
static void every_option_given(void **state) {
    static const scenario gce_sc = {"gce: every option", GCE_OPTIONS, gce_options_routes, N(gce_options_routes),
                                    no_env, CRES_OK,
                                    "{\"trainer\": [\"10.0.1.1:8470\", \"10.0.2.2:8470\", \"10.0.1.10:8470\"]}",
                                    "trainer/1", "grpc://10.0.2.2:8470", 0, NULL};
    static const scenario tpu_sc = {"tpu: every option", TPU_GRPC_OPTIONS, NULL, 0, no_env, CRES_OK,
                                    "{\"tpu_worker\": [\"10.0.0.1:8470\", \"[fd00::2]:8470\", \"10.0.0.3:2222\"]}",
                                    "tpu_worker/0", "grpc://10.0.0.1:8470", 0, NULL};
    (void)state;
    walk(&gce_sc);
    walk(&tpu_sc);
}

/* A metadata 404 without a body (accelerator-type not set): the library's empty body is an
   allocation too; the resolve goes on without the type. */
static void tpu_local_404_without_body(void **state) {
    static const scenario sc = {"tpu: local, 404 without body", TPU_LOCAL, tpu_local_no_type_routes,
                                N(tpu_local_no_type_routes), no_env, CRES_OK,
                                "{\"worker\": [\"10.0.0.2:8470\", \"10.0.0.3:8470\"]}", "worker/1",
                                "grpc://10.0.0.3:8470", 0, NULL};
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

/* ---------------------------------------------------------------------------------------
   Application Default Credentials: a credentials file named by the getenv hook
   (GOOGLE_APPLICATION_CREDENTIALS, CLOUDSDK_CONFIG, HOME) or by options.credentials_file,
   written to a temporary directory before the walks; Google's token endpoint and IAM
   Credentials' generateAccessToken behind the fake transport, which checks what the library
   sends them and the bearer of every API request; a signer of the test's in config.sign
   (tests/impl.c is built without OpenSSL), which checks the JWT it is asked to sign and
   answers a fixed fake signature. A log hook and the failure's message must never hold a
   secret of the files or a token. */

#define TOKEN_URI "https://oauth2.googleapis.com/token"
#define IAM_URL                                                                                          \
    "https://iamcredentials.googleapis.com/v1/projects/-/serviceAccounts/"                             \
    "trainer@test-project.iam.gserviceaccount.com:generateAccessToken"
#define CLIENT_ID "764086051850-walk0alloc0test.apps.googleusercontent.com"
#define CLIENT_SECRET "d-walk+Secret/9q7MQ"
#define REFRESH_TOKEN "1//0gWalkRefresh-Token/with+slashes"
#define REVOKED_TOKEN "1//0gRevokedRefresh-Token_xyz"
#define SA_EMAIL "resolver@cfg-project.iam.gserviceaccount.com"
#define SA_KEY_ID "8e2c14ad5b3f4a0c9d7e6f1a2b3c4d5e6f708192"
/* A short PEM of a test key, as JSON escapes it in a key file and as the signer must get it. */
#define SA_PEM_LINES(nl) "-----BEGIN PRIVATE KEY-----" nl "MIIBVQIBADANBgkqhkiG9w0BAQEFAASCAT8wggE7AgEAAkEAwalkTestKeyOnly" nl \
    "UHJpdmF0ZUtleU5vdFJlYWxseUEgS2V5Rm9yVGhlQWxsb2NXYWxr" nl "-----END PRIVATE KEY-----" nl
#define SA_PEM SA_PEM_LINES("\n")
#define SA_PEM_JSON SA_PEM_LINES("\\n")
#define USER_TOKEN "ya29.a0WalkUserAccessToken_0123"
#define USER_TOKEN_2 "ya29.a0WalkUserAccessToken_renewed"
#define KEY_TOKEN "ya29.c.WalkServiceAccountToken_4567"
#define IMPERSONATED_TOKEN "ya29.c.WalkImpersonatedToken_89ab"
#define DELEGATES "[\"projects/-/serviceAccounts/middle@test-project.iam.gserviceaccount.com\"]"

/* The files, gcloud's and Google's shapes. */
#define USER_FILE_WITH(refresh)                                                                       \
    "{\n  \"account\": \"\",\n  \"client_id\": \"" CLIENT_ID "\",\n  \"client_secret\": \"" CLIENT_SECRET \
    "\",\n  \"quota_project_id\": \"test-project\",\n  \"refresh_token\": \"" refresh                   \
    "\",\n  \"type\": \"authorized_user\",\n  \"universe_domain\": \"googleapis.com\"\n}\n"
#define USER_FILE USER_FILE_WITH(REFRESH_TOKEN)
#define KEY_FILE                                                                                        \
    "{\n  \"type\": \"service_account\",\n  \"project_id\": \"cfg-project\",\n  \"private_key_id\": \""   \
    SA_KEY_ID "\",\n  \"private_key\": \"" SA_PEM_JSON "\",\n  \"client_email\": \"" SA_EMAIL            \
    "\",\n  \"client_id\": \"104758921137563918273\",\n  \"auth_uri\": "                                 \
    "\"https://accounts.google.com/o/oauth2/auth\",\n  \"token_uri\": \"" TOKEN_URI "\",\n"              \
    "  \"auth_provider_x509_cert_url\": \"https://www.googleapis.com/oauth2/v1/certs\",\n"               \
    "  \"client_x509_cert_url\": \"https://www.googleapis.com/robot/v1/metadata/x509/resolver%40cfg-"    \
    "project.iam.gserviceaccount.com\",\n  \"universe_domain\": \"googleapis.com\"\n}\n"

static const char user_file[] = USER_FILE;
static const char revoked_file[] = USER_FILE_WITH(REVOKED_TOKEN);
static const char key_file[] = KEY_FILE;
/* gcloud auth application-default login --impersonate-service-account: a user as the source */
static const char impersonated_user_file[] =
    "{\n  \"delegates\": [],\n  \"service_account_impersonation_url\": \"" IAM_URL "\",\n"
    "  \"source_credentials\": " USER_FILE ",\n  \"type\": \"impersonated_service_account\"\n}\n";
/* ... and a key as the source, through a delegate */
static const char impersonated_key_file[] =
    "{\n  \"delegates\": " DELEGATES ",\n  \"service_account_impersonation_url\": \"" IAM_URL "\",\n"
    "  \"source_credentials\": " KEY_FILE ",\n  \"type\": \"impersonated_service_account\"\n}\n";
/* Workload identity federation: refused before any request. */
static const char external_file[] =
    "{\n  \"type\": \"external_account\",\n  \"audience\": \"//iam.googleapis.com/projects/123456789012/"
    "locations/global/workloadIdentityPools/pool/providers/github\",\n  \"subject_token_type\": "
    "\"urn:ietf:params:oauth:token-type:jwt\",\n  \"token_url\": \"https://sts.googleapis.com/v1/token\",\n"
    "  \"credential_source\": {\"file\": \"/var/run/secrets/token\"}\n}\n";

/* Where the group's setup writes them (walk_files.h): gcloud's well-known file is in the
   directory itself, which CLOUDSDK_CONFIG names; as HOME it holds no .config/gcloud. */
static char adc_dir[WALK_PATH_SIZE], user_path[WALK_PATH_SIZE], revoked_path[WALK_PATH_SIZE],
    key_path[WALK_PATH_SIZE], imp_user_path[WALK_PATH_SIZE], imp_key_path[WALK_PATH_SIZE],
    external_path[WALK_PATH_SIZE], well_known_path[WALK_PATH_SIZE];
static const walk_file adc_files[] = {
    {user_path, "user.json", user_file},
    {revoked_path, "revoked.json", revoked_file},
    {key_path, "key.json", key_file},
    {imp_user_path, "impersonated-user.json", impersonated_user_file},
    {imp_key_path, "impersonated-key.json", impersonated_key_file},
    {external_path, "external.json", external_file},
    {well_known_path, "application_default_credentials.json", user_file},
};

/* What every answer and message is searched for. */
static const char *const secrets[] = {CLIENT_SECRET, REFRESH_TOKEN, REVOKED_TOKEN, "MIIBVQIBADANBgkqhkiG9w0B",
                                      USER_TOKEN, USER_TOKEN_2, KEY_TOKEN, IMPERSONATED_TOKEN, "ya29.meta"};

/* The form bodies the token endpoint must get. */
#define REFRESH_GRANT(refresh)                                                                         \
    "grant_type=refresh_token&client_id=" CLIENT_ID "&client_secret=d-walk%2BSecret%2F9q7MQ&refresh_token=" refresh
static const char user_grant[] = REFRESH_GRANT("1%2F%2F0gWalkRefresh-Token%2Fwith%2Bslashes");
static const char revoked_grant[] = REFRESH_GRANT("1%2F%2F0gRevokedRefresh-Token_xyz");
#define JWT_GRANT "grant_type=urn%3Aietf%3Aparams%3Aoauth%3Agrant-type%3Ajwt-bearer&assertion="
#define IAM_BODY(delegates) \
    "{\"delegates\":" delegates ",\"scope\":[\"https://www.googleapis.com/auth/cloud-platform\"],\"lifetime\":\"3600s\"}"

/* The signer's answer: 20 bytes, some not text (base64url FAKE_SIGNATURE_B64). */
static const unsigned char fake_signature[20] = {'f', 'a', 'k', 'e', '-', 's', 'i', 'g', 'n', 'a',
                                                 't', 'u', 'r', 'e', 0, 0xff, 1, 0x80, 0x7f, 0};
#define FAKE_SIGNATURE_B64 "ZmFrZS1zaWduYXR1cmUA_wGAfwA"

#define TOKEN_ANSWER(token) \
    "{\n  \"access_token\": \"" token "\",\n  \"expires_in\": 3599,\n  \"scope\": \"https://www.googleapis.com/auth/cloud-platform\",\n  \"token_type\": \"Bearer\"\n}"
#define GOOGLE_401 \
    "{\"error\": {\"code\": 401, \"message\": \"Request had invalid authentication credentials.\", \"status\": \"UNAUTHENTICATED\"}}"

static const route user_token_answer[] = {{TOKEN_URI, 200, TOKEN_ANSWER(USER_TOKEN)}};
static const route key_token_answer[] = {{TOKEN_URI, 200, TOKEN_ANSWER(KEY_TOKEN)}};
static const route renewed_token_answers[] = {{TOKEN_URI, 200, TOKEN_ANSWER(USER_TOKEN)},
                                              {TOKEN_URI, 200, TOKEN_ANSWER(USER_TOKEN_2)}};
static const route invalid_grant_answer[] = {
    {TOKEN_URI, 400, "{\n  \"error\": \"invalid_grant\",\n  \"error_description\": \"Token has been expired or revoked.\"\n}"}};

/* The metadata server without a project or a token: both must come from elsewhere. */
static const route gce_adc_routes[] = {
    {METADATA "instance/zone", 200, "projects/123456789012/zones/us-east1-b"},
    {METADATA "instance/name", 200, "trainer-2"},
    {GROUP_URL, 200, group_page1},
    {GROUP_URL "&pageToken=tok%202%2Fx", 200, group_page2},
    {COMPUTE "/zones/us-east1-b" ZONE_QUERY, 200, zone_b},
    {COMPUTE "/zones/us-east1-c" ZONE_QUERY, 200, zone_c},
    {IAM_URL, 200, "{\n  \"accessToken\": \"" IMPERSONATED_TOKEN "\",\n  \"expireTime\": \"2099-01-01T00:00:00Z\"\n}\n"},
};

static const route tpu_adc_routes[] = {
    {NODE_URL, 200, tpu_node},
    {IAM_URL, 200, "{\"accessToken\": \"" IMPERSONATED_TOKEN "\", \"expireTime\": \"2099-06-30T12:00:00.5Z\"}"},
};

enum grant { NO_GRANT, REFRESH_GRANT_OF_USER, REFRESH_GRANT_OF_REVOKED, JWT_GRANT_OF_KEY };

typedef struct adc_scenario {
    scenario base;
    const char *credentials_option; /* options.credentials_file, or NULL */
    const route *tokens;            /* the token endpoint's answers in turn (the last again) */
    size_t tokens_count;
    enum grant grant;               /* what the token endpoint must be sent */
    const char *api_token;          /* the bearer the Compute and TPU APIs take (else 401) */
    const char *quota_project;      /* their x-goog-user-project (NULL: none sent) */
    const char *iam_source;         /* generateAccessToken's bearer (the source's token) */
    const char *iam_body;
    int want_tokens, want_iam, want_api, want_metadata; /* requests of an undisturbed run */
} adc_scenario;

typedef struct adc_cloud {
    const adc_scenario *sc;
    fake_cloud inner;               /* the routes */
    int tokens, iam, api, metadata; /* requests seen */
    char signed_input[2048];        /* the last JWT signing input the signer got */
    const char *wrong;              /* the first thing the library got wrong, or NULL */
    char detail[256];
} adc_cloud;

static void adc_wrong(adc_cloud *c, const char *what, const char *detail) {
    size_t n = detail ? strlen(detail) : 0;
    if (c->wrong) return;
    c->wrong = what;
    if (n >= sizeof c->detail) n = sizeof c->detail - 1; /* cut */
    if (n) memcpy(c->detail, detail, n);
    c->detail[n] = '\0';
}

static const char *header_of(const cres_http_request *req, const char *name) {
    size_t i;
    for (i = 0; i < req->headers_count; i++)
        if (strcmp(req->headers[i].name, name) == 0) return req->headers[i].value;
    return NULL;
}

/* Whether "Bearer <token>" is value. */
static int is_bearer(const char *value, const char *token) {
    return value && strncmp(value, "Bearer ", 7) == 0 && strcmp(value + 7, token) == 0;
}

/* base64url without padding, decoded into out (cap bytes, NUL-terminated); 0 if invalid. */
static int b64url_decode(const char *s, size_t n, char *out, size_t cap) {
    static const char abc[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
    unsigned long acc = 0;
    size_t i, len = 0;
    int bits = 0;
    for (i = 0; i < n; i++) {
        const char *p = s[i] ? strchr(abc, s[i]) : NULL;
        if (!p) return 0;
        acc = (acc << 6) | (unsigned long)(p - abc);
        bits += 6;
        if (bits >= 8) {
            bits -= 8;
            if (len + 1 >= cap) return 0;
            out[len++] = (char)((acc >> bits) & 0xff);
        }
    }
    out[len] = '\0';
    return n % 4 != 1;
}

/* config.sign: RS256 over "base64url(header).base64url(claims)" as google-auth writes them,
   with the key file's PEM; answers fake_signature. */
static cres_result fake_sign(void *user, const cres_sign_request *req, unsigned char *sig, size_t *sig_len,
                             cres_error *err) {
    adc_cloud *c = (adc_cloud *)user;
    const char *dot = memchr(req->data, '.', req->data_len);
    char header[512], claims[1024], want[512];
    long long iat = 0, exp = 0;
    int used = 0;
    (void)err;
    if (strcmp(req->algorithm, "RS256") != 0) adc_wrong(c, "sign: algorithm", req->algorithm);
    if (strcmp(req->private_key_pem, SA_PEM) != 0) adc_wrong(c, "sign: the key", "not the file's PEM");
    if (req->data_len >= sizeof c->signed_input || memchr(req->data, '\0', req->data_len) || !dot)
        adc_wrong(c, "sign: the input", "too long, a NUL or no '.'");
    else if (!b64url_decode((const char *)req->data, (size_t)(dot - (const char *)req->data), header, sizeof header) ||
             !b64url_decode(dot + 1, req->data_len - (size_t)(dot + 1 - (const char *)req->data), claims, sizeof claims))
        adc_wrong(c, "sign: the input", "not base64url");
    else if (strcmp(header, "{\"alg\":\"RS256\",\"typ\":\"JWT\",\"kid\":\"" SA_KEY_ID "\"}") != 0)
        adc_wrong(c, "sign: JWT header", header);
    else {
        memcpy(c->signed_input, req->data, req->data_len);
        c->signed_input[req->data_len] = '\0';
        snprintf(want, sizeof want,
                 "{\"iss\":\"" SA_EMAIL "\",\"scope\":\"https://www.googleapis.com/auth/cloud-platform\","
                 "\"aud\":\"" TOKEN_URI "\",\"iat\":");
        if (strncmp(claims, want, strlen(want)) != 0 ||
            sscanf(claims + strlen(want), "%lld,\"exp\":%lld}%n", &iat, &exp, &used) != 2 ||
            claims[strlen(want) + (size_t)used] != '\0' || exp != iat + 3600 ||
            iat < (long long)time(NULL) - 60 || iat > (long long)time(NULL) + 1)
            adc_wrong(c, "sign: JWT claims", claims);
    }
    memcpy(sig, fake_signature, sizeof fake_signature);
    *sig_len = sizeof fake_signature;
    return CRES_OK;
}

/* The token endpoint's form body, as the scenario's grant makes it. */
static void check_grant(adc_cloud *c, const cres_http_request *req) {
    char jwt[4096];
    const char *type = header_of(req, "Content-Type"), *want = "(no token request)";
    if (strcmp(req->method, "POST") != 0 || !type || strcmp(type, "application/x-www-form-urlencoded") != 0)
        adc_wrong(c, "token request: method or Content-Type", req->method);
    if (header_of(req, "Authorization")) adc_wrong(c, "token request: an Authorization header", "");
    if (c->sc->grant == REFRESH_GRANT_OF_USER) want = user_grant;
    else if (c->sc->grant == REFRESH_GRANT_OF_REVOKED) want = revoked_grant;
    else if (c->sc->grant == JWT_GRANT_OF_KEY) {
        snprintf(jwt, sizeof jwt, "%s%s.%s", JWT_GRANT, c->signed_input, FAKE_SIGNATURE_B64);
        want = jwt;
    }
    if (!req->body || strlen(req->body) != req->body_len || strcmp(req->body, want) != 0)
        adc_wrong(c, "token request body", req->body ? req->body : "(none)");
}

/* The token endpoint, IAM Credentials, and the routes; a Compute or TPU request must carry the
   scenario's token and quota project. */
static cres_result adc_perform(void *user, const cres_http_request *req, cres_http_response *resp,
                               const cres_allocator *alloc, cres_error *err) {
    adc_cloud *c = (adc_cloud *)user;
    const adc_scenario *sc = c->sc;
    fake_cloud one;
    if (strcmp(req->url, TOKEN_URI) == 0) {
        size_t i = (size_t)c->tokens < sc->tokens_count ? (size_t)c->tokens : sc->tokens_count - 1;
        c->tokens++;
        check_grant(c, req);
        if (!sc->tokens_count) return fake_perform(&c->inner, req, resp, alloc, err); /* none: nothing there */
        one.routes = &sc->tokens[i];
        one.count = 1;
        return fake_perform(&one, req, resp, alloc, err);
    }
    if (strcmp(req->url, IAM_URL) == 0) {
        c->iam++;
        if (strcmp(req->method, "POST") != 0 || !sc->iam_source ||
            !is_bearer(header_of(req, "Authorization"), sc->iam_source))
            adc_wrong(c, "generateAccessToken: method or bearer", header_of(req, "Authorization"));
        if (!req->body || !sc->iam_body || strcmp(req->body, sc->iam_body) != 0)
            adc_wrong(c, "generateAccessToken body", req->body ? req->body : "(none)");
    } else if (strncmp(req->url, METADATA, strlen(METADATA)) == 0) {
        c->metadata++;
    } else {
        const char *quota = header_of(req, "x-goog-user-project");
        c->api++;
        if (sc->quota_project ? !quota || strcmp(quota, sc->quota_project) != 0 : quota != NULL)
            adc_wrong(c, "x-goog-user-project", quota ? quota : "(none)");
        if (!is_bearer(header_of(req, "Authorization"), sc->api_token)) {
            resp->status = 401; /* a token the API does not take */
            resp->body = (char *)alloc->alloc(alloc->user, sizeof GOOGLE_401);
            if (!resp->body) return CRES_ERR_OUT_OF_MEMORY;
            memcpy(resp->body, GOOGLE_401, sizeof GOOGLE_401);
            resp->body_len = sizeof GOOGLE_401 - 1;
            return CRES_OK;
        }
    }
    return fake_perform(&c->inner, req, resp, alloc, err);
}

static void no_secret(adc_cloud *c, const char *where, const char *text) {
    size_t i;
    for (i = 0; i < N(secrets); i++)
        if (strstr(text, secrets[i])) adc_wrong(c, where, text);
}

static void secret_log(void *user, cres_log_level level, const char *message) {
    (void)level;
    no_secret((adc_cloud *)user, "a secret in a log line", message);
}

static cres_result run_adc(test_alloc *t, const void *ctx) {
    const adc_scenario *sc = (const adc_scenario *)ctx;
    adc_cloud cloud;
    cres_config config;
    cres_resolver *r = NULL;
    cres_result res;
    char counts[128];
    memset(&cloud, 0, sizeof cloud);
    cloud.sc = sc;
    cloud.inner.routes = sc->base.routes;
    cloud.inner.count = sc->base.routes_count;
    memset(&config, 0, sizeof config);
    test_alloc_use(&config.allocator, t);
    config.transport.perform = adc_perform;
    config.transport.user = &cloud;
    config.getenv.fn = fake_getenv;
    config.getenv.user = (void *)(size_t)sc->base.env;
    config.sleep.fn = no_sleep;
    config.sign.fn = fake_sign;
    config.sign.user = &cloud;
    config.log.fn = secret_log;
    config.log.user = &cloud;
    res = run_create(&sc->base, &config, sc->credentials_option, &r);
    if (res == CRES_OK) res = run_resolve(&sc->base, r, t);
    if (res == CRES_OK && sc->base.want_master) res = check_master(r, sc->base.want_master);
    if (res == CRES_OK && sc->base.want_accelerators) res = run_accelerators(&sc->base, r);
    cres_resolver_free(r);
    if (res != CRES_OK) no_secret(&cloud, "a secret in the message", alloc_walk_detail);
    if (cloud.wrong) return mismatch(cloud.wrong, cloud.detail);
    snprintf(counts, sizeof counts, "%d token, %d generateAccessToken, %d API, %d metadata requests",
             cloud.tokens, cloud.iam, cloud.api, cloud.metadata);
    if (!t->triggered && res == sc->base.expected &&
        (cloud.tokens != sc->want_tokens || cloud.iam != sc->want_iam || cloud.api != sc->want_api ||
         cloud.metadata != sc->want_metadata))
        return mismatch("requests", counts);
    return res;
}

static void walk_adc(const adc_scenario *sc) { alloc_walk(sc->base.name, run_adc, sc, sc->base.expected); }

static int setup_files(void **state) {
    (void)state;
    return walk_files_make(adc_dir, "/tmp/alloc-gcp-XXXXXX", adc_files, N(adc_files));
}

static int remove_files(void **state) {
    (void)state;
    return walk_files_remove(adc_dir, adc_files, N(adc_files));
}

#define GCE_SPEC "{\"worker\": [\"10.0.1.1:8470\", \"10.0.2.2:8470\", \"10.0.1.10:8470\"]}"
#define TPU_SPEC                                                                                           \
    "{\"coordinator\": [\"10.2.0.100:8476\"], \"worker\": [\"10.2.0.4:8470\", \"10.2.0.5:8470\", "        \
    "\"10.2.0.6:8470\", \"10.2.0.7:8470\"]}"
#define TPU_CONFIG_JSON "{\"tpu_node_name\": \"cfg-tpu\", \"project\": \"cfg-project\", \"zone\": \"europe-west4-a\"}"

/* Scenario fields after the base: credentials option, token answers, grant, API token, quota
   project, generateAccessToken's bearer and body, then the requests of an undisturbed run. */
#define TOKENS(a) a, N(a)
#define NO_TOKENS NULL, 0

/* GCE with gcloud's authorized_user file named by GOOGLE_APPLICATION_CREDENTIALS: the refresh
   grant; the project from its quota_project_id, which every API request names; zone and own
   name from the metadata server, its token never asked; master() resolves again with the
   token kept (one grant in all). */
static void adc_gce_authorized_user(void **state) {
    static const char *const env[] = {"GOOGLE_APPLICATION_CREDENTIALS", user_path, NULL};
    static const adc_scenario sc = {
        {"adc: gce, authorized_user from GOOGLE_APPLICATION_CREDENTIALS", GCE, gce_adc_routes,
         N(gce_adc_routes) - 1, env, CRES_OK, GCE_SPEC, "worker/1", "grpc://10.0.2.2:8470", 0, NULL},
        NULL, TOKENS(user_token_answer), REFRESH_GRANT_OF_USER, USER_TOKEN, "test-project", NULL, NULL,
        1, 0, 8, 2};
    (void)state;
    walk_adc(&sc);
}

/* Cloud TPU (TPU_CONFIG) with a service-account key file: the JWT signed through config.sign,
   the jwt-bearer grant; no quota project; the token kept for master(). */
static void adc_tpu_service_account(void **state) {
    static const char *const env[] = {"TPU_CONFIG", TPU_CONFIG_JSON, "TPU_WORKER_ID", "2",
                                      "GOOGLE_APPLICATION_CREDENTIALS", key_path, NULL};
    static const adc_scenario sc = {
        {"adc: tpu, service_account key", TPU_CONFIG, tpu_adc_routes, N(tpu_adc_routes) - 1, env, CRES_OK,
         TPU_SPEC, "worker/2", "grpc://10.2.0.6:8470", 4, NULL},
        NULL, TOKENS(key_token_answer), JWT_GRANT_OF_KEY, KEY_TOKEN, NULL, NULL, NULL, 1, 0, 2, 0};
    (void)state;
    walk_adc(&sc);
}

/* Cloud TPU with an impersonated file of a user (options.credentials_file): the refresh grant,
   then generateAccessToken with the user's token; the API gets the impersonated token, and no
   quota project (the source's does not count). */
static void adc_tpu_impersonated_user(void **state) {
    static const char *const env[] = {"TPU_CONFIG", TPU_CONFIG_JSON, "TPU_WORKER_ID", "2", NULL};
    static const adc_scenario sc = {
        {"adc: tpu, impersonated (user source), options.credentials_file", TPU_CONFIG, tpu_adc_routes,
         N(tpu_adc_routes), env, CRES_OK, TPU_SPEC, "worker/2", "grpc://10.2.0.6:8470", 4, NULL},
        imp_user_path, TOKENS(user_token_answer), REFRESH_GRANT_OF_USER, IMPERSONATED_TOKEN, NULL, USER_TOKEN,
        IAM_BODY("[]"), 1, 1, 2, 0};
    (void)state;
    walk_adc(&sc);
}

/* GCE with an impersonated file of a key and a delegate: the signed JWT, then
   generateAccessToken with the delegates; GOOGLE_CLOUD_PROJECT wins over the key's project. */
static void adc_gce_impersonated_key(void **state) {
    static const char *const env[] = {"GOOGLE_APPLICATION_CREDENTIALS", imp_key_path, "GOOGLE_CLOUD_PROJECT",
                                      "test-project", NULL};
    static const adc_scenario sc = {
        {"adc: gce, impersonated (key source, a delegate)", GCE, gce_adc_routes, N(gce_adc_routes), env,
         CRES_OK, GCE_SPEC, "worker/1", "grpc://10.0.2.2:8470", 0, NULL},
        NULL, TOKENS(key_token_answer), JWT_GRANT_OF_KEY, IMPERSONATED_TOKEN, NULL, KEY_TOKEN,
        IAM_BODY(DELEGATES), 1, 1, 8, 2};
    (void)state;
    walk_adc(&sc);
}

/* Cloud TPU with gcloud's well-known file in $CLOUDSDK_CONFIG (before $HOME's). */
static void adc_tpu_well_known_file(void **state) {
    static const char *const env[] = {"TPU_CONFIG", TPU_CONFIG_JSON, "TPU_WORKER_ID", "2", "CLOUDSDK_CONFIG",
                                      adc_dir, "HOME", "/nonexistent", NULL};
    static const adc_scenario sc = {
        {"adc: tpu, gcloud's file in CLOUDSDK_CONFIG", TPU_CONFIG, tpu_adc_routes, N(tpu_adc_routes) - 1, env,
         CRES_OK, TPU_SPEC, "worker/2", "grpc://10.2.0.6:8470", 4, NULL},
        NULL, TOKENS(user_token_answer), REFRESH_GRANT_OF_USER, USER_TOKEN, "test-project", NULL, NULL, 1, 0, 2,
        0};
    (void)state;
    walk_adc(&sc);
}

/* No file anywhere ($HOME without .config/gcloud): the metadata server's token. */
static void adc_tpu_no_file_metadata_token(void **state) {
    static const char *const env[] = {"TPU_CONFIG", TPU_CONFIG_JSON, "TPU_WORKER_ID", "2", "HOME", adc_dir, NULL};
    static const adc_scenario sc = {
        {"adc: tpu, no file: the metadata token", TPU_CONFIG, tpu_routes, N(tpu_routes), env, CRES_OK, TPU_SPEC,
         "worker/2", "grpc://10.2.0.6:8470", 4, NULL},
        NULL, NO_TOKENS, NO_GRANT, "ya29.meta", NULL, NULL, NULL, 0, 0, 2, 2};
    (void)state;
    walk_adc(&sc);
}

/* GCE: the API refuses the first token (401); the library asks the token endpoint again and
   repeats the request once with the new token, which master()'s resolve keeps. */
static void adc_gce_401_renews_the_token(void **state) {
    static const char *const env[] = {"GOOGLE_APPLICATION_CREDENTIALS", user_path, NULL};
    static const adc_scenario sc = {
        {"adc: gce, 401 then a renewed token", GCE, gce_adc_routes, N(gce_adc_routes) - 1, env, CRES_OK, GCE_SPEC,
         "worker/1", "grpc://10.0.2.2:8470", 0, NULL},
        NULL, TOKENS(renewed_token_answers), REFRESH_GRANT_OF_USER, USER_TOKEN_2, "test-project", NULL, NULL, 2,
        0, 9, 2};
    (void)state;
    walk_adc(&sc);
}

/* A revoked refresh token: invalid_grant is the environment's fault; the message quotes it
   and says what to run, and no API request is made. */
static void adc_tpu_invalid_grant(void **state) {
    static const char *const env[] = {"TPU_CONFIG", TPU_CONFIG_JSON, "GOOGLE_APPLICATION_CREDENTIALS",
                                      revoked_path, NULL};
    static const adc_scenario sc = {
        {"adc: tpu, invalid_grant", TPU_CONFIG, tpu_adc_routes, N(tpu_adc_routes) - 1, env,
         CRES_ERR_ENVIRONMENT, NULL, NULL, NULL, 0, "\"invalid_grant\" \"Token has been expired or revoked.\""},
        NULL, TOKENS(invalid_grant_answer), REFRESH_GRANT_OF_REVOKED, USER_TOKEN, NULL, NULL, NULL, 1, 0, 0, 0};
    (void)state;
    walk_adc(&sc);
}

/* An external_account file (workload identity federation): refused before any request. */
static void adc_gce_external_account_refused(void **state) {
    static const char *const env[] = {"GOOGLE_APPLICATION_CREDENTIALS", external_path, NULL};
    static const adc_scenario sc = {
        {"adc: gce, external_account refused", GCE, gce_adc_routes, N(gce_adc_routes), env, CRES_ERR_UNSUPPORTED,
         NULL, NULL, NULL, 0, "\"external_account\""},
        NULL, NO_TOKENS, NO_GRANT, USER_TOKEN, NULL, NULL, NULL, 0, 0, 0, 0};
    (void)state;
    walk_adc(&sc);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(allocator_fails_the_first_allocation),
        cmocka_unit_test(gce_metadata_two_pages_two_zones_and_master),
        cmocka_unit_test(gce_forbidden),
        cmocka_unit_test(tpu_config_resolve_master_accelerators),
        cmocka_unit_test(tpu_local_from_metadata),
        cmocka_unit_test(tpu_grpc_list),
        cmocka_unit_test(every_option_given),
        cmocka_unit_test(tpu_local_404_without_body),
        cmocka_unit_test(adc_gce_authorized_user),
        cmocka_unit_test(adc_tpu_service_account),
        cmocka_unit_test(adc_tpu_impersonated_user),
        cmocka_unit_test(adc_gce_impersonated_key),
        cmocka_unit_test(adc_tpu_well_known_file),
        cmocka_unit_test(adc_tpu_no_file_metadata_token),
        cmocka_unit_test(adc_gce_401_renews_the_token),
        cmocka_unit_test(adc_tpu_invalid_grant),
        cmocka_unit_test(adc_gce_external_account_refused),
    };
    return cmocka_run_group_tests(tests, setup_files, remove_files);
}
