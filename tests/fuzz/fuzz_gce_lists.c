/* libFuzzer target: arbitrary bytes as the answers a GCE resolve reads: the instance group's
   listInstances page, a zone's instance list page, and the metadata server's instance/name.

   Input: byte 0 chooses the HTTP status of the three answers, one base-4 digit each: group
   list and zone list among 200, 200, 403, 500; instance/name among 200, 200, 404, 500. Byte 1
   chooses options: bit 0 a regional group (else zonal), bit 1 port 2222, bit 2 the own
   instance given as options.instance_name "vm-1" (else asked from the metadata server), bit 3
   job name "trainer". The rest is split at 0xFF bytes into the group-list body, the zone-list
   body and the instance/name body (the last keeps any later 0xFF). The first two requests of
   each list get the fuzzed body (so a nextPageToken is followed once, URL-encoded), later
   ones an empty list. No retries, a sleep hook that returns at once, no environment; project,
   zone and token given, the metadata server named (so instance/name is asked).

   A failed resolve must be one of the errors a bad answer can cause, with a NUL-terminated
   message, and http_status set exactly for CRES_ERR_HTTP_STATUS. A successful one must hold
   the job and nothing else, dense (tasks 0..n-1) with non-empty addresses, round-trip through
   cres_spec_to_json / cres_spec_from_json, come out the same when resolved again on the same
   answers, and the own task, when found, must be a task of it whose address master() gives.
   Every request URL must be one the library may send: the fixed prefixes, and zone names
   from the answers that are resource names.

   Found by this target and fixed (regression cases in tests/test_gcp.c): an instance URL with
   an empty zone segment (".../zones/instances/vm") made cres__strndup copy SIZE_MAX bytes
   (group_member_url_with_empty_zone_is_unexpected); a crafted zone segment reached the next
   request's URL (group_member_zone_not_a_resource_name).

   clang -g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined \
         tests/fuzz/fuzz_gce_lists.c -o build/fuzz_gce_lists */

#include "fuzz_common.h"

#define COMPUTE "https://compute.googleapis.com/compute/v1/projects/fuzz-project/"
#define METADATA "http://metadata.test/computeMetadata/v1/"

enum { GROUP, ZONE, NAME, PARTS };

typedef struct fake_cloud {
    const uint8_t *body[PARTS];
    size_t len[PARTS];
    int status[PARTS];
    int served[PARTS];
} fake_cloud;

static const char empty_list[] = "{}";

/* Zone names taken from answers must be Google resource names before they go into a path:
   letters, digits, "-_.:" (':' is legal in a path segment; domain-scoped project ids have
   one), never '/', '?', '#', '%' or a space. */
static int resource_name(const char *s, size_t n) {
    size_t i;
    if (n == 0 || n > 128) return 0;
    for (i = 0; i < n; i++)
        if (!strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_.:", s[i]) || !s[i]) return 0;
    return 1;
}

/* What may follow a list URL: nothing, or "&pageToken=" and the token percent-encoded. */
static void check_page_suffix(const char *s) {
    if (!*s) return;
    CHECK(strncmp(s, "&pageToken=", 11) == 0);
    for (s += 11; *s; s++) {
        if (*s == '%') {
            CHECK(strchr("0123456789ABCDEF", s[1]) && s[1] && strchr("0123456789ABCDEF", s[2]) && s[2]);
            s += 2;
        } else {
            CHECK(strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-._~", *s));
        }
    }
}

static int part_of(const cres_http_request *req) {
    static const char zonal[] = COMPUTE "zones/us-east1-d/instanceGroups/fuzz-group/listInstances?maxResults=500";
    static const char regional[] = COMPUTE "regions/us-central1/instanceGroups/fuzz-group/listInstances?maxResults=500";
    static const char zone_query[] =
        "/instances?filter=status%20%3D%20%22RUNNING%22&fields=items%28name%2CnetworkInterfaces%28networkIP%29%29"
        "%2CnextPageToken&maxResults=500";
    const char *u = req->url, *z, *end;
    if (strcmp(u, METADATA "instance/name") == 0) {
        CHECK(strcmp(req->method, "GET") == 0);
        return NAME;
    }
    if (strncmp(u, zonal, sizeof zonal - 1) == 0 || strncmp(u, regional, sizeof regional - 1) == 0) {
        CHECK(strcmp(req->method, "POST") == 0);
        CHECK(req->body && strcmp(req->body, "{\"instanceState\": \"RUNNING\"}") == 0);
        check_page_suffix(u + (u[sizeof COMPUTE - 1] == 'z' ? sizeof zonal : sizeof regional) - 1);
        return GROUP;
    }
    CHECK(strncmp(u, COMPUTE "zones/", strlen(COMPUTE "zones/")) == 0);
    CHECK(strcmp(req->method, "GET") == 0);
    CHECK(req->body == NULL);
    z = u + strlen(COMPUTE "zones/");
    end = strstr(z, zone_query);
    CHECK(end != NULL);
    CHECK(resource_name(z, (size_t)(end - z)));
    check_page_suffix(end + sizeof zone_query - 1);
    return ZONE;
}

static cres_result fake_perform(void *user, const cres_http_request *req, cres_http_response *resp,
                                const cres_allocator *alloc, cres_error *err) {
    fake_cloud *c = (fake_cloud *)user;
    int p = part_of(req), status = 200;
    const void *body = empty_list;
    size_t len = sizeof empty_list - 1;
    (void)err;
    if (p == NAME || c->served[p] < 2) {
        body = c->body[p];
        len = c->len[p];
        status = c->status[p];
    }
    c->served[p]++;
    return fuzz_answer(resp, alloc, status, body, len);
}

static void split(fake_cloud *c, const uint8_t *data, size_t size) {
    static const int list_statuses[4] = {200, 200, 403, 500};
    static const int name_statuses[4] = {200, 200, 404, 500};
    memset(c, 0, sizeof *c);
    c->status[GROUP] = list_statuses[data[0] & 3];
    c->status[ZONE] = list_statuses[(data[0] >> 2) & 3];
    c->status[NAME] = name_statuses[(data[0] >> 4) & 3];
    fuzz_split(data, size, 2, c->body, c->len, PARTS);
}

/* What bad answers may cause (a 404 for instance/name leaves the own task unknown: no failure). */
static void check_failure(cres_result r, const cres_error *err) {
    static const cres_result allowed[] = {CRES_ERR_UNEXPECTED_RESPONSE, CRES_ERR_NOT_READY,
                                          CRES_ERR_HTTP_STATUS, CRES_ERR_LIMIT, CRES_OK};
    static const int statuses[] = {403, 500, 0};
    fuzz_check_answer_failure(r, err, allowed, statuses);
}

static void check_spec(const cres_cluster_spec *spec, const char *job, int port) {
    const cres_job *j;
    char suffix[16];
    size_t t;
    CHECK(spec != NULL);
    CHECK(cres_spec_jobs_count(spec) == 1);
    j = cres_spec_job(spec, job);
    CHECK(j != NULL);
    snprintf(suffix, sizeof suffix, ":%d", port);
    for (t = 0; t < j->tasks_count; t++) {
        const char *a = j->tasks[t].address;
        CHECK(j->tasks[t].index == (int)t);
        CHECK(a != NULL && a[0] != '\0');
        CHECK(strlen(a) > strlen(suffix) && strcmp(a + strlen(a) - strlen(suffix), suffix) == 0);
    }
    fuzz_check_round_trip(spec);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    fake_cloud cloud;
    cres_config config;
    cres_gce_options o;
    cres_resolver *r = NULL;
    cres_cluster_spec *spec = NULL;
    cres_error err;
    cres_result res;
    if (size < 2) return 0;
    split(&cloud, data, size);

    fuzz_canned_config(&config, fake_perform, &cloud);
    memset(&o, 0, sizeof o);
    o.config = &config;
    o.instance_group = "fuzz-group";
    o.project = "fuzz-project";
    if (data[1] & 1) o.region = "us-central1";
    else o.zone = "us-east1-d";
    o.port = (data[1] & 2) ? 2222 : 0;
    o.instance_name = (data[1] & 4) ? "vm-1" : NULL;
    o.job_name = (data[1] & 8) ? "trainer" : NULL;
    o.token = "fuzz-token";
    o.metadata_url = "http://metadata.test";
    CHECK(cres_gce_resolver_create(&o, &r, &err) == CRES_OK);

    res = cres_resolve(r, &spec, &err);
    if (res != CRES_OK) {
        CHECK(spec == NULL);
        check_failure(res, &err);
    } else {
        check_spec(spec, o.job_name ? o.job_name : "worker", o.port ? o.port : 8470);
        memset(cloud.served, 0, sizeof cloud.served);
        fuzz_check_resolves_again(r, spec);
        memset(cloud.served, 0, sizeof cloud.served); /* master() resolves again: the same */
        fuzz_check_own_task(r, spec);
    }
    cres_spec_free(spec);
    cres_resolver_free(r);
    return 0;
}
