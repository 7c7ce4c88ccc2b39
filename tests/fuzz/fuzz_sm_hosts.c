/* libFuzzer target: the SageMaker resolver's hosts list and current host, through the
   options, the getenv hook (SM_HOSTS, SM_CURRENT_HOST) and the resource config file; and its
   instance groups (options.instance_groups: SM_INSTANCE_GROUPS_DICT, SM_CURRENT_INSTANCE_GROUP,
   the file's "instance_groups" and "current_group_name").

   Input: one flags byte, then up to five fields separated by '\x01' (which no JSON text
   may hold raw): the hosts text, the current host, the resource config file's text, the
   instance groups text, the current instance group.
      flags bit 0    hosts from SM_HOSTS (else options.hosts); the groups likewise from
                     SM_INSTANCE_GROUPS_DICT (else options.instance_groups_dict)
            bit 1    current host from SM_CURRENT_HOST (else options.current_host); the
                     current group likewise from SM_CURRENT_INSTANCE_GROUP
            bits 2-4 0-4: both given; 5: no hosts given, they come from the resource config
                     file; 6: no current host given, it comes from the file; 7: both from it
            bits 5-6 port: 0 default (2223), 1 = 65535, 2 = 1, 3 = 70000 (not a port)
            bit 7    job_name "algo" (else the default "worker"; with groups: refused)
   Without a third field options.resource_config is NULL (/opt/ml's file, absent here). A fourth
   field turns options.instance_groups on: the groups text, or none given when it is empty
   (then they come from the file); an empty third field means no file. A fifth field is
   the current group (none given without it). The file (in fuzz_common.h's FUZZ_DIR, removed
   at exit) is written only when the input needs it and its text changed since the last
   write: a file costs about ten times an option or environment run, so these take most of
   the runs.

   A failed create is CRES_ERR_ENVIRONMENT, _LIMIT or _INVALID_ARGUMENT (the port, job_name
   with groups) with a message and no resolver. A successful one has one job with a task per
   item of the hosts list, each "<host>:<port>" (read back the same by the library's address
   reader), hosts in natural order ("algo-2" before "algo-10") and no host twice; the current
   host is the own task; master and visible devices answer. With groups: a job per group of
   the groups text (or the file's list), named by it, a task per host of the group, the same
   address rules, no host in two jobs, as many tasks as the hosts list has items when one is
   known, the own task the current host's, in the current group's job when one is given.

   Host names follow tests/fuzz/host_model.h (IPv6 literals bracketed, names the address
   reader could not split back refused). This target found those names written unbracketed,
   and names equal but for leading zeros ("a1", "a01") hiding a repeated host.

   clang -g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined \
         tests/fuzz/fuzz_sm_hosts.c -o build/fuzz_sm_hosts */

#include <unistd.h>

#include "fuzz_common.h"
#include "host_model.h"

#define MAX_INPUT_BYTES 8192

typedef struct env {
    const char *hosts, *current, *groups, *group;
} env;

static const char *fuzz_getenv(void *user, const char *name) {
    const env *e = (const env *)user;
    if (strcmp(name, "SM_HOSTS") == 0) return e->hosts;
    if (strcmp(name, "SM_CURRENT_HOST") == 0) return e->current;
    if (strcmp(name, "SM_INSTANCE_GROUPS_DICT") == 0) return e->groups;
    if (strcmp(name, "SM_CURRENT_INSTANCE_GROUP") == 0) return e->group;
    return NULL;
}

static char file_path[64];

static void write_file(const char *text) {
    static char *last;
    if (!file_path[0]) snprintf(file_path, sizeof file_path, "%s/resourceconfig.json", fuzz_dir());
    if (last && strcmp(last, text) == 0) return;
    free(last);
    last = fuzz_dup_n(text, strlen(text));
    fuzz_write_file(file_path, text, strlen(text));
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

static void check_success(cres_resolver *res, const char *job, int port, int items, const char *current) {
    cres_cluster_spec *spec = NULL;
    const cres_job *j;
    cres_error err;
    char want[512], master[512], **hosts;
    size_t i, len = 0;
    int natural_twins = 0;
    cres_result r = cres_resolve(res, &spec, &err);
    fuzz_check_error(r, &err);
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
    qsort(hosts, j->tasks_count, sizeof *hosts, fuzz_cmp_str_ptr);
    for (i = 1; i < j->tasks_count; i++) CHECK(strcmp(hosts[i - 1], hosts[i]) != 0);
    (void)natural_twins;
    for (i = 0; i < j->tasks_count; i++) free(hosts[i]);
    free(hosts);

    /* the own task is the current host */
    CHECK(cres_task_type(res) && strcmp(cres_task_type(res), job) == 0);
    CHECK(cres_task_id(res) >= 0 && cres_task_id(res) < items);
    CHECK(model_host_address(current, port, want, sizeof want)); /* "[v6]:port" too */
    CHECK(strcmp(cres_spec_task_address(spec, job, cres_task_id(res)), want) == 0);
    CHECK(cres_rpc_layer(res) == NULL);
    r = cres_master(res, master, sizeof master, &len, &err);
    fuzz_check_error(r, &err);
    if (items == 1) strcpy(want, ""); /* TF's master() of a single host: "" */
    CHECK(r == CRES_OK && strcmp(master, want) == 0 && len == strlen(want));
    r = cres_visible_devices(res, NULL, 0, &len, &err);
    CHECK(r == CRES_OK && len == 0);
    cres_spec_free(spec);
}

/* A string member of the file's top object, copied; NULL when absent or not a string. */
static char *file_string(const char *text, const char *key) {
    cres__json d;
    cres_error err;
    cres_allocator a = {0, 0, 0};
    const char *keys[1];
    int at = -1;
    char *value = NULL;
    keys[0] = key;
    CHECK(cres__json_parse(&d, text, strlen(text), &a, "test", CRES_ERR_ENVIRONMENT, &err) == CRES_OK);
    cres__json_pick(&d, 0, keys, &at, 1);
    if (cres__json_is(&d, at, JSMN_STRING)) CHECK(cres__json_strdup(&d, at, &value) == 1);
    cres__json_free(&d);
    return value;
}

/* With groups, the hosts list is optional: its items, or -1 when none was read. */
static int flat_items(const char *hosts_text, const char *file_text) {
    cres__json d;
    cres_error err;
    cres_allocator a = {0, 0, 0};
    static const char *const key[1] = {"hosts"};
    int at = -1, n = -1;
    if (hosts_text) return hosts_items(hosts_text, 0);
    if (!file_text) return -1;
    CHECK(cres__json_parse(&d, file_text, strlen(file_text), &a, "test", CRES_ERR_ENVIRONMENT, &err) == CRES_OK);
    cres__json_pick(&d, 0, key, &at, 1);
    if (at >= 0) {
        CHECK(cres__json_is(&d, at, JSMN_ARRAY));
        n = d.t[at].size;
    }
    cres__json_free(&d);
    return n;
}

/* The host of a task's address: the part before the port, without IPv6 brackets. */
static char *address_host(const char *a, int port) {
    const char *colon = strrchr(a, ':');
    size_t skip = a[0] == '[', n;
    char *host;
    CHECK(colon != NULL && colon > a + 2 * skip && atoi(colon + 1) == port);
    n = (size_t)(colon - a) - 2 * skip;
    host = (char *)malloc(n + 1);
    CHECK(host != NULL);
    memcpy(host, a + skip, n);
    host[n] = '\0';
    return host;
}

/* Every group of the source is a job of the spec with a task per host: the groups text (an
   object: name -> {"hosts": [...]}) or the file's "instance_groups" list. */
static size_t check_groups_are_jobs(const cres_cluster_spec *spec, const char *groups_text, const char *file_text) {
    cres__json d;
    cres_error err;
    cres_allocator a = {0, 0, 0};
    static const char *const key[1] = {"instance_groups"};
    const char *text = groups_text ? groups_text : file_text;
    int list = 0, t, dict = groups_text != NULL, k;
    size_t tasks = 0;
    CHECK(cres__json_parse(&d, text, strlen(text), &a, "test", CRES_ERR_ENVIRONMENT, &err) == CRES_OK);
    if (!dict) cres__json_pick(&d, 0, key, &list, 1);
    CHECK(cres__json_is(&d, list, dict ? JSMN_OBJECT : JSMN_ARRAY));
    CHECK(cres_spec_jobs_count(spec) == (size_t)d.t[list].size);
    for (k = 0, t = list + 1; k < d.t[list].size; k++) {
        static const char *const keys[2] = {"instance_group_name", "hosts"};
        int value = dict ? t + 1 : t, at[2];
        char *name = NULL;
        const cres_job *j;
        cres__json_pick(&d, value, keys, at, 2);
        CHECK(cres__json_is(&d, at[1], JSMN_ARRAY));
        CHECK(cres__json_strdup(&d, dict ? t : at[0], &name) == 1);
        j = cres_spec_job(spec, name);
        CHECK(j != NULL && j->tasks_count == (size_t)d.t[at[1]].size && j->tasks_count > 0);
        tasks += j->tasks_count;
        free(name);
        t = cres__json_next(&d, value);
    }
    cres__json_free(&d);
    return tasks;
}

/* A job per instance group, hosts in natural order, no host twice anywhere, the own task the
   current host's (in the current group's job when one is known). */
static void check_groups_success(cres_resolver *res, int port, const char *groups_text, const char *file_text,
                                 int items, const char *current, const char *group) {
    cres_cluster_spec *spec = NULL;
    cres_error err;
    char want[300], master[512], **hosts;
    size_t i, k, n = 0, total, len = 0;
    cres_result r = cres_resolve(res, &spec, &err);
    fuzz_check_error(r, &err);
    CHECK(r == CRES_OK);
    total = check_groups_are_jobs(spec, groups_text, file_text);
    CHECK(items < 0 || total == (size_t)items);
    hosts = (char **)malloc(total * sizeof *hosts);
    CHECK(hosts != NULL);
    for (i = 0; i < cres_spec_jobs_count(spec); i++) {
        const cres_job *j = cres_spec_job_at(spec, i);
        for (k = 0; k < j->tasks_count; k++, n++) {
            CHECK(j->tasks[k].index == (int)k);
            hosts[n] = address_host(j->tasks[k].address, port);
            CHECK(model_host_address(hosts[n], port, want, sizeof want) && strcmp(want, j->tasks[k].address) == 0);
            if (k) CHECK(cres__natural_cmp(hosts[n - 1], hosts[n]) < 0);
        }
    }
    qsort(hosts, total, sizeof *hosts, fuzz_cmp_str_ptr);
    for (i = 1; i < total; i++) CHECK(strcmp(hosts[i - 1], hosts[i]) != 0);
    for (i = 0; i < total; i++) free(hosts[i]);
    free(hosts);
    CHECK(cres_task_type(res) != NULL);
    CHECK(!group || strcmp(cres_task_type(res), group) == 0);
    CHECK(model_host_address(current, port, want, sizeof want));
    CHECK(strcmp(cres_spec_task_address(spec, cres_task_type(res), cres_task_id(res)), want) == 0);
    r = cres_master(res, master, sizeof master, &len, &err);
    fuzz_check_error(r, &err);
    if (total == 1 && cres_spec_jobs_count(spec) == 1) strcpy(want, ""); /* TF's: one host */
    CHECK(r == CRES_OK && strcmp(master, want) == 0 && len == strlen(want));
    cres_spec_free(spec);
}

/* The flat mode's success: the hosts text (or the file's "hosts") and the current host (or
   the file's "current_host"). */
static void check_flat_success(cres_resolver *res, const char *job, int port, const char *hosts_text,
                               const char *current, const char *file_text) {
    int items = hosts_items(hosts_text ? hosts_text : file_text, hosts_text == NULL);
    char *value = current ? NULL : file_string(file_text, "current_host");
    CHECK(current || value);
    check_success(res, job, port, items, current ? current : value);
    free(value);
}

static void check_groups(cres_resolver *res, int port, const char *hosts_text, const char *current,
                         const char *groups_text, const char *group, const char *file_text) {
    char *file_current = current ? NULL : file_string(file_text, "current_host");
    char *file_group = group || !file_text ? NULL : file_string(file_text, "current_group_name");
    CHECK(current || file_current);
    check_groups_success(res, port, groups_text, file_text, flat_items(hosts_text, file_text),
                         current ? current : file_current, group ? group : file_group);
    free(file_current);
    free(file_group);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    cres_sagemaker_options o;
    cres_config config;
    cres_resolver *res = NULL;
    cres_error err;
    cres_result r;
    env e;
    char *text, *fields[5] = {NULL, NULL, NULL, NULL, NULL}, *p;
    static const int ports[4] = {0, 65535, 1, 70000};
    unsigned flags;
    const char *hosts_text, *current, *job, *groups_text = NULL, *group = NULL, *file_text;
    int port, use_file, from_file, groups;
    size_t i;
    if (size < 1 || size > MAX_INPUT_BYTES) return 0;
    flags = data[0];
    text = fuzz_text(data, size, 1);
    if (!text) return 0;
    for (i = 0, p = text; i < 5 && p; i++) {
        char *sep = strchr(p, '\x01');
        if (sep) *sep = '\0';
        fields[i] = p;
        p = sep ? sep + 1 : NULL;
    }
    if (!fields[1]) fields[1] = (char *)"algo-1";
    groups = fields[3] != NULL;
    if (groups) {
        groups_text = *fields[3] ? fields[3] : NULL;
        group = fields[4];
        if (!*fields[2]) fields[2] = NULL; /* no file */
    }

    memset(&e, 0, sizeof e);
    fuzz_getenv_config(&config, fuzz_getenv, &e);
    memset(&o, 0, sizeof o);
    o.config = &config;
    o.instance_groups = groups;
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
    if (groups_text) {
        if (flags & 1) e.groups = groups_text;
        else o.instance_groups_dict = groups_text;
    }
    if (group) {
        if (flags & 2) e.group = group;
        else o.current_instance_group = group;
    }
    /* a file given is read (and checked against the rest) even when nothing is missing */
    use_file = fields[2] != NULL && fields[2][0] != '\0'; /* an empty third field: no file */
    if (use_file) write_file(fields[2]);
    o.resource_config = use_file && file_path[0] ? file_path : NULL; /* NULL: /opt/ml's, absent */
    port = ports[(flags >> 5) & 3];
    o.port = port;
    job = flags & 128 ? "algo" : "worker";
    if (flags & 128) o.job_name = job;

    r = cres_sagemaker_resolver_create(&o, &res, &err);
    fuzz_check_error(r, &err);
    if (r != CRES_OK) {
        CHECK(r == CRES_ERR_ENVIRONMENT || r == CRES_ERR_LIMIT || r == CRES_ERR_INVALID_ARGUMENT);
        if (r == CRES_ERR_INVALID_ARGUMENT) CHECK(port == 70000 || (groups && (flags & 128)));
        CHECK(res == NULL);
        free(text);
        return 0;
    }
    CHECK(res != NULL);
    CHECK(port != 70000 && !(groups && (flags & 128)));
    CHECK(!use_file || fields[2] != NULL);
    file_text = use_file ? fields[2] : NULL;
    if (groups) check_groups(res, port ? port : 2223, hosts_text, current, groups_text, group, file_text);
    else check_flat_success(res, job, port ? port : 2223, hosts_text, current, file_text);
    cres_resolver_free(res);
    free(text);
    return 0;
}
