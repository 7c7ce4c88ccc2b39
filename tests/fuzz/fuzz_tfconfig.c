/* libFuzzer target: the input is TF_CONFIG text given through cres_tfconfig_options.json.
   Bytes after an embedded NUL are not seen (TF_CONFIG is a C string).

   A rejected document must be CRES_ERR_ENVIRONMENT or CRES_ERR_LIMIT with a message. An
   accepted one goes through every reader: resolve, master, spec_to_json, tf_config_json,
   launch info and hostfile, each checked against the snprintf contract and against what the
   spec says; the spec and the TF_CONFIG the library writes must read back to the same thing.

   clang -g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined \
         tests/fuzz/fuzz_tfconfig.c -o build/fuzz_tfconfig */

#include "fuzz_common.h"

/* The snprintf contract of a text written into buf[cap] with full length len. */
static void check_text(cres_result r, const char *buf, size_t cap, size_t len) {
    if (r == CRES_OK) {
        CHECK(len < cap);
        CHECK(strlen(buf) == len);
    } else if (r == CRES_ERR_BUFFER_TOO_SMALL) {
        CHECK(len >= cap);
        CHECK(strlen(buf) == cap - 1);
    }
}

/* Rank 0 of section 8: the first task of "chief", else of the first job by name. */
static const char *rank0_address(const cres_cluster_spec *s) {
    const cres_job *chief = cres_spec_job(s, "chief"), *evaluator = cres_spec_job(s, "evaluator");
    size_t i;
    if (chief && chief->tasks_count) return chief->tasks[0].address;
    for (i = 0; i < cres_spec_jobs_count(s); i++) {
        const cres_job *j = cres_spec_job_at(s, i);
        if (j != chief && j != evaluator && j->tasks_count) return j->tasks[0].address;
    }
    return NULL;
}

static char *spec_json(const cres_cluster_spec *s) {
    char small[24];
    size_t len = 0, len2 = 0;
    cres_error err;
    char *text;
    cres_result r = cres_spec_to_json(s, small, sizeof small, &len2, &err);
    fuzz_check_error(r, &err);
    check_text(r, small, sizeof small, len2);
    CHECK(cres_spec_to_json(s, NULL, 0, &len, &err) == CRES_OK);
    CHECK(len == len2);
    text = (char *)malloc(len + 1);
    CHECK(text != NULL);
    CHECK(cres_spec_to_json(s, text, len + 1, &len2, &err) == CRES_OK);
    CHECK(len2 == len && strlen(text) == len);
    if (len < sizeof small) CHECK(strcmp(small, text) == 0);
    else CHECK(memcmp(small, text, sizeof small - 1) == 0);
    return text;
}

/* The spec's JSON reads back to the same spec. */
static void check_spec_round_trip(const cres_cluster_spec *s) {
    char *text = spec_json(s);
    cres_cluster_spec *again = NULL;
    cres_error err;
    cres_result r = cres_spec_from_json(text, strlen(text), NULL, &again, &err);
    fuzz_check_error(r, &err);
    if (!(r == CRES_ERR_LIMIT && strlen(text) > CRES_MAX_DOCUMENT_BYTES)) {
        CHECK(r == CRES_OK);
        CHECK(cres_spec_equal(s, again));
    }
    cres_spec_free(again);
    free(text);
}

static void check_master(cres_resolver *res, const cres_cluster_spec *s) {
    char small[16];
    size_t len = 0, len2 = 0;
    cres_error err;
    cres_result r = cres_master(res, small, sizeof small, &len, &err);
    fuzz_check_error(r, &err);
    CHECK(r == CRES_OK || r == CRES_ERR_BUFFER_TOO_SMALL || r == CRES_ERR_NOT_FOUND);
    check_text(r, small, sizeof small, len);
    if (r != CRES_ERR_NOT_FOUND) {
        CHECK(cres_master(res, NULL, 0, &len2, &err) == CRES_OK);
        CHECK(len2 == len);
    }
    /* An explicit task that the spec has always has a master. */
    if (fuzz_spec_tasks(s)) {
        const cres_job *j = cres_spec_job_at(s, 0);
        size_t i = 0;
        while (j->tasks_count == 0) j = cres_spec_job_at(s, ++i);
        r = cres_master_of(res, j->name, j->tasks[0].index, "", NULL, 0, &len, &err);
        fuzz_check_error(r, &err);
        CHECK(r == CRES_OK);
    }
}

/* The TF_CONFIG the library writes for this resolver reads back to the same resolver. */
static void check_tf_config_round_trip(cres_resolver *res, const cres_cluster_spec *s) {
    const char *type = cres_task_id(res) >= 0 ? cres_task_type(res) : NULL;
    cres_tfconfig_options o;
    cres_config config;
    cres_resolver *again = NULL;
    cres_cluster_spec *s2 = NULL;
    cres_error err;
    size_t len = 0;
    char *text;
    cres_result r = cres_spec_to_tfconfig(s, type, cres_task_id(res), cres_rpc_layer(res), cres_environment(res),
                                        NULL, 0, &len, &err);
    fuzz_check_error(r, &err);
    CHECK(r == CRES_OK);
    text = (char *)malloc(len + 1);
    CHECK(text != NULL);
    CHECK(cres_spec_to_tfconfig(s, type, cres_task_id(res), cres_rpc_layer(res), cres_environment(res), text,
                              len + 1, NULL, &err) == CRES_OK);
    fuzz_getenv_config(&config, fuzz_no_environment, NULL);
    memset(&o, 0, sizeof o);
    o.config = &config;
    o.json = text;
    r = cres_tfconfig_resolver_create(&o, &again, &err);
    fuzz_check_error(r, &err);
    if (!(r == CRES_ERR_LIMIT && len > CRES_MAX_DOCUMENT_BYTES)) {
        CHECK(r == CRES_OK);
        CHECK(cres_resolve(again, &s2, &err) == CRES_OK);
        CHECK(cres_spec_equal(s, s2));
        if (type) {
            CHECK(cres_task_type(again) && strcmp(cres_task_type(again), type) == 0);
            CHECK(cres_task_id(again) == cres_task_id(res));
        }
        CHECK((cres_rpc_layer(again) == NULL) == (cres_rpc_layer(res) == NULL));
        if (cres_rpc_layer(res)) CHECK(strcmp(cres_rpc_layer(again), cres_rpc_layer(res)) == 0);
        CHECK((cres_environment(again) == NULL) == (cres_environment(res) == NULL)); /* NULL: none */
        if (cres_environment(res)) CHECK(strcmp(cres_environment(again), cres_environment(res)) == 0);
    }
    cres_spec_free(s2);
    cres_resolver_free(again);
    free(text);
}

static void check_launch_info(const cres_resolver *res, const cres_cluster_spec *s) {
    cres_launch_info info;
    cres_error err;
    const char *master;
    cres_result r;
    if (!cres_task_type(res) || cres_task_id(res) < 0) return;
    r = cres_spec_launch_info(s, cres_task_type(res), cres_task_id(res), &info, &err);
    fuzz_check_error(r, &err);
    CHECK(r == CRES_OK || r == CRES_ERR_NOT_FOUND || r == CRES_ERR_INVALID_ARGUMENT || r == CRES_ERR_LIMIT);
    if (strcmp(cres_task_type(res), "evaluator") == 0) CHECK(r == CRES_ERR_NOT_FOUND); /* no rank */
    if (r != CRES_OK) return;
    CHECK((size_t)info.world_size == fuzz_spec_ranked_tasks(s));
    CHECK(info.rank >= 0 && info.rank < info.world_size);
    CHECK(info.local_rank >= 0 && info.local_rank < info.local_world_size);
    CHECK(info.local_world_size <= info.world_size);
    master = rank0_address(s);
    CHECK(master != NULL && strcmp(info.master_address, master) == 0);
    CHECK(info.master_port >= -1 && info.master_port <= 65535);
    CHECK(strlen(info.master_host) < sizeof info.master_host);
}

/* "host slots=N" lines whose slots add up to the number of ranked tasks. */
static void check_hostfile(const cres_cluster_spec *s) {
    size_t len = 0, slots = 0, lines = 0;
    cres_error err;
    char *text, *line;
    cres_result r = cres_spec_to_hostfile(s, NULL, 0, &len, &err);
    fuzz_check_error(r, &err);
    CHECK(r == CRES_OK || r == CRES_ERR_INVALID_ARGUMENT);
    if (r != CRES_OK) return;
    text = (char *)malloc(len + 1);
    CHECK(text != NULL);
    CHECK(cres_spec_to_hostfile(s, text, len + 1, NULL, &err) == CRES_OK);
    CHECK(strlen(text) == len);
    for (line = text; *line; lines++) {
        char *end = strchr(line, '\n'), *sep;
        CHECK(end != NULL);
        *end = '\0';
        sep = strrchr(line, ' ');
        CHECK(sep != NULL && strncmp(sep, " slots=", 7) == 0);
        slots += (size_t)strtoul(sep + 7, NULL, 10);
        line = end + 1;
    }
    CHECK(slots == fuzz_spec_ranked_tasks(s));
    CHECK(lines <= fuzz_spec_ranked_tasks(s));
    free(text);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    cres_tfconfig_options o;
    cres_config config;
    cres_resolver *res = NULL;
    cres_cluster_spec *spec = NULL;
    cres_accelerators acc;
    cres_error err;
    cres_result r;
    char *text = fuzz_text(data, size, 0);
    if (!text) return 0;

    fuzz_getenv_config(&config, fuzz_no_environment, NULL);
    memset(&o, 0, sizeof o);
    o.config = &config;
    o.json = text;
    r = cres_tfconfig_resolver_create(&o, &res, &err);
    fuzz_check_error(r, &err);
    if (r != CRES_OK) {
        CHECK(r == CRES_ERR_ENVIRONMENT || r == CRES_ERR_LIMIT);
        CHECK(res == NULL);
        free(text);
        return 0;
    }
    CHECK(res != NULL);
    CHECK(strcmp(cres_resolver_name(res), "tfconfig") == 0);

    r = cres_resolve(res, &spec, &err);
    fuzz_check_error(r, &err);
    CHECK(r == CRES_OK);
    fuzz_check_resolves_again(res, spec);
    CHECK(cres_num_accelerators(res, &acc, &err) == CRES_OK);

    check_master(res, spec);
    check_spec_round_trip(spec);
    check_tf_config_round_trip(res, spec);
    check_launch_info(res, spec);
    check_hostfile(spec);

    cres_spec_free(spec);
    cres_resolver_free(res);
    free(text);
    return 0;
}
