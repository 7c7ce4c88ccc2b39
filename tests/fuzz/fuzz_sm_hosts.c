/* libFuzzer target: the SageMaker resolver's hosts list and current host, through the
   options, the getenv hook (SM_HOSTS, SM_CURRENT_HOST) and the resource config file.

   Input: one flags byte, then up to three fields separated by '\x01' (which no JSON text
   may hold raw): the hosts text, the current host, the resource config file's text.
      flags bit 0    hosts from SM_HOSTS (else options.hosts)
            bit 1    current host from SM_CURRENT_HOST (else options.current_host)
            bits 2-4 0-4: both given; 5: no hosts given, they come from the resource config
                     file; 6: no current host given, it comes from the file; 7: both from it
            bits 5-6 port: 0 default (2223), 1 = 65535, 2 = 1, 3 = 70000 (not a port)
            bit 7    job_name "algo" (else the default "worker")
   Without a third field options.resource_config names a file that does not exist. The file
   (under /tmp, one per process, removed at exit) is written only when the input needs it
   and its text changed since the last write: a file costs about ten times an option or
   environment run, so these take most of the runs.

   A failed create is CRES_ERR_ENVIRONMENT, _LIMIT or _INVALID_ARGUMENT (the port) with a
   message and no resolver. A successful one has one job with a task per item of the hosts
   list, each "<host>:<port>" (read back the same by the library's address reader), hosts in
   natural order ("algo-2" before "algo-10") and no host twice; the current host is the own
   task; master and visible devices answer.

   Host names follow tests/fuzz/host_model.h (IPv6 literals bracketed, names the address
   reader could not split back refused). This target found those names written unbracketed,
   and names equal but for leading zeros ("a1", "a01") hiding a repeated host.

   clang -g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined \
         tests/fuzz/fuzz_sm_hosts.c -o build/fuzz_sm_hosts */

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "host_model.h"

#define CLUSTER_RESOLVER_IMPLEMENTATION
#include "../../cluster_resolver.h"

#define CHECK(cond)                                                                           \
    do {                                                                                      \
        if (!(cond)) {                                                                        \
            fprintf(stderr, "fuzz_sm_hosts.c:%d: check failed: %s\n", __LINE__, #cond);      \
            abort();                                                                          \
        }                                                                                     \
    } while (0)

#define MAX_INPUT_BYTES 8192

typedef struct env {
    const char *hosts, *current;
} env;

static const char *fuzz_getenv(void *user, const char *name) {
    const env *e = (const env *)user;
    if (strcmp(name, "SM_HOSTS") == 0) return e->hosts;
    if (strcmp(name, "SM_CURRENT_HOST") == 0) return e->current;
    return NULL;
}

/* strdup is not C99 */
static char *dup_text(const char *s) {
    char *p = (char *)malloc(strlen(s) + 1);
    if (p) strcpy(p, s);
    return p;
}

static void check_error(cres_result r, const cres_error *err) {
    CHECK(err->result == r);
    CHECK(memchr(err->message, '\0', sizeof err->message) != NULL);
    if (r != CRES_OK) CHECK(err->message[0] != '\0');
}

static char file_path[64];

static void remove_file(void) { unlink(file_path); }

static void write_file(const char *text) {
    static char *last;
    FILE *f;
    if (!file_path[0]) {
        snprintf(file_path, sizeof file_path, "/tmp/fuzz_sm_hosts.%ld.json", (long)getpid());
        atexit(remove_file);
    }
    if (last && strcmp(last, text) == 0) return;
    free(last);
    last = dup_text(text);
    CHECK(last != NULL);
    f = fopen(file_path, "wb");
    CHECK(f != NULL);
    CHECK(fwrite(text, 1, strlen(text), f) == strlen(text));
    CHECK(fclose(f) == 0);
}

/* The items of the JSON list that gave the hosts: text, or the "hosts" of the file. */
static int hosts_items(const char *text, int from_file) {
    cres__json d;
    cres_error err;
    cres_allocator a = {0, 0, 0};
    int list = 0, n;
    static const char *const key[1] = {"hosts"};
    CHECK(cres__json_parse(&d, text, strlen(text), &a, "test", CRES_ERR_ENVIRONMENT, &err) == CRES_OK);
    if (from_file) cres__json_pick(&d, 0, key, &list, 1);
    CHECK(cres__json_is(&d, list, JSMN_ARRAY));
    n = d.t[list].size;
    cres__json_free(&d);
    return n;
}

static int cmp_str_ptr(const void *x, const void *y) { return strcmp(*(char *const *)x, *(char *const *)y); }

static void check_success(cres_resolver *res, const char *job, int port, int items, const char *current) {
    cres_cluster_spec *spec = NULL;
    const cres_job *j;
    cres_error err;
    char want[512], master[512], **hosts;
    size_t i, len = 0;
    int natural_twins = 0;
    cres_result r = cres_resolve(res, &spec, &err);
    check_error(r, &err);
    CHECK(r == CRES_OK);
    CHECK(strcmp(cres_resolver_name(res), "sagemaker") == 0);
    CHECK(cres_spec_jobs_count(spec) == 1);
    j = cres_spec_job(spec, job);
    CHECK(j != NULL);
    CHECK(j->tasks_count == (size_t)items && items > 0);
    hosts = (char **)malloc((size_t)items * sizeof *hosts);
    CHECK(hosts != NULL);
    for (i = 0; i < j->tasks_count; i++) {
        const char *a = j->tasks[i].address, *colon = strrchr(a, ':'), *host;
        char want[300];
        size_t host_len, skip = a[0] == '[';
        int p = -1;
        CHECK(j->tasks[i].index == (int)i);
        CHECK(colon != NULL && colon > a + 2 * skip);
        CHECK(atoi(colon + 1) == port);
        hosts[i] = (char *)malloc((size_t)(colon - a) + 1);
        CHECK(hosts[i] != NULL);
        memcpy(hosts[i], a + skip, (size_t)(colon - a) - 2 * skip); /* without the brackets of [v6] */
        hosts[i][colon - a - 2 * (long)skip] = '\0';
        CHECK(model_host_address(hosts[i], port, want, sizeof want) && strcmp(want, a) == 0);
        CHECK(cres__split_address(a, &host, &host_len, &p));
        CHECK(p == port && host_len == strlen(hosts[i]));
    }
    /* natural order, then no host twice */
    for (i = 1; i < j->tasks_count; i++) {
        CHECK(cres__natural_cmp(hosts[i - 1], hosts[i]) <= 0);
        if (cres__natural_cmp(hosts[i - 1], hosts[i]) == 0) natural_twins = 1;
    }
    qsort(hosts, j->tasks_count, sizeof *hosts, cmp_str_ptr);
    for (i = 1; i < j->tasks_count; i++) CHECK(strcmp(hosts[i - 1], hosts[i]) != 0);
    (void)natural_twins;
    for (i = 0; i < j->tasks_count; i++) free(hosts[i]);
    free(hosts);

    /* the own task is the current host */
    CHECK(cres_task_type(res) && strcmp(cres_task_type(res), job) == 0);
    CHECK(cres_task_id(res) >= 0 && cres_task_id(res) < items);
    snprintf(want, sizeof want, "%s:%d", current, port);
    CHECK(strcmp(cres_spec_task_address(spec, job, cres_task_id(res)), want) == 0);
    CHECK(cres_rpc_layer(res) == NULL);
    r = cres_master(res, master, sizeof master, &len, &err);
    check_error(r, &err);
    CHECK(r == CRES_OK && strcmp(master, want) == 0 && len == strlen(want));
    r = cres_visible_devices(res, NULL, 0, &len, &err);
    CHECK(r == CRES_OK && len == 0);
    cres_spec_free(spec);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    cres_sagemaker_options o;
    cres_config config;
    cres_resolver *res = NULL;
    cres_error err;
    cres_result r;
    env e;
    char *text, *fields[3] = {NULL, NULL, NULL}, *p;
    static const int ports[4] = {0, 65535, 1, 70000};
    unsigned flags;
    const char *hosts_text, *current, *job;
    int port, use_file, from_file, items = -1;
    size_t i;
    if (size < 1 || size > MAX_INPUT_BYTES) return 0;
    flags = data[0];
    text = (char *)malloc(size);
    if (!text) return 0;
    memcpy(text, data + 1, size - 1);
    text[size - 1] = '\0';
    for (i = 0, p = text; i < 3 && p; i++) {
        char *sep = strchr(p, '\x01');
        if (sep) *sep = '\0';
        fields[i] = p;
        p = sep ? sep + 1 : NULL;
    }
    if (!fields[1]) fields[1] = (char *)"algo-1";

    memset(&e, 0, sizeof e);
    memset(&config, 0, sizeof config);
    config.getenv.fn = fuzz_getenv;
    config.getenv.user = &e;
    memset(&o, 0, sizeof o);
    o.config = &config;
    from_file = (flags >> 2) & 7;
    hosts_text = from_file == 5 || from_file == 7 ? NULL : fields[0];
    current = from_file == 6 || from_file == 7 ? NULL : fields[1];
    if (hosts_text) {
        if (flags & 1) e.hosts = hosts_text;
        else o.hosts = hosts_text;
    }
    if (current) {
        if (flags & 2) e.current = current;
        else o.current_host = current;
    }
    use_file = hosts_text == NULL || current == NULL;
    if (!fields[2]) {
        o.resource_config = "/nonexistent/fuzz_sm_hosts/resourceconfig.json"; /* never the machine's own */
    } else {
        if (use_file) write_file(fields[2]);
        o.resource_config = file_path[0] ? file_path : "/nonexistent/fuzz_sm_hosts/resourceconfig.json";
    }
    port = ports[(flags >> 5) & 3];
    o.port = port;
    job = flags & 128 ? "algo" : "worker";
    if (flags & 128) o.job_name = job;

    r = cres_sagemaker_resolver_create(&o, &res, &err);
    check_error(r, &err);
    if (r != CRES_OK) {
        CHECK(r == CRES_ERR_ENVIRONMENT || r == CRES_ERR_LIMIT || r == CRES_ERR_INVALID_ARGUMENT);
        if (r == CRES_ERR_INVALID_ARGUMENT) CHECK(port == 70000);
        CHECK(res == NULL);
        free(text);
        return 0;
    }
    CHECK(res != NULL);
    CHECK(port != 70000);
    CHECK(!use_file || fields[2] != NULL);
    items = hosts_items(hosts_text ? hosts_text : fields[2], hosts_text == NULL);
    if (!current) { /* the file's current_host: read it back the same way */
        cres__json d;
        cres_allocator a = {0, 0, 0};
        static const char *const key[1] = {"current_host"};
        int at = -1;
        char *value = NULL;
        CHECK(cres__json_parse(&d, fields[2], strlen(fields[2]), &a, "test", CRES_ERR_ENVIRONMENT, &err) == CRES_OK);
        cres__json_pick(&d, 0, key, &at, 1);
        CHECK(cres__json_is(&d, at, JSMN_STRING));
        CHECK(cres__json_strdup(&d, at, &value) == 1);
        check_success(res, job, port ? port : 2223, items, value);
        free(value);
        cres__json_free(&d);
    } else {
        check_success(res, job, port ? port : 2223, items, current);
    }
    cres_resolver_free(res);
    free(text);
    return 0;
}
