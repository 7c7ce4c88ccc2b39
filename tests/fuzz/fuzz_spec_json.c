/* libFuzzer target: the input, with its exact length (no NUL terminator), is a cluster
   object for cres_spec_from_json.

   A rejected document must be CRES_ERR_INVALID_JSON or CRES_ERR_LIMIT with a message. An
   accepted spec must keep the documented invariants (jobs sorted by name, tasks by index,
   names and addresses within their limits), must survive cres_spec_to_json (the text parses
   again to an equal spec, and writing that spec gives the same text), and must take
   add_job / add_task by the rules of section 5 (a failed call changes nothing).

   clang -g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined \
         tests/fuzz/fuzz_spec_json.c -o build/fuzz_spec_json */

#include "fuzz_common.h"

static int has_space_or_control(const char *s) {
    for (; *s; s++)
        if ((unsigned char)*s <= 0x20 || *s == 0x7f) return 1;
    return 0;
}

/* Section 5 of the manual: sorted jobs and tasks, names and addresses within limits. */
static void check_invariants(const cres_cluster_spec *s) {
    size_t i, k;
    for (i = 0; i < cres_spec_jobs_count(s); i++) {
        const cres_job *j = cres_spec_job_at(s, i);
        size_t n = strlen(j->name);
        CHECK(n >= 1 && n <= CRES_MAX_NAME_LENGTH);
        if (i) CHECK(strcmp(cres_spec_job_at(s, i - 1)->name, j->name) < 0);
        CHECK(cres_spec_job(s, j->name) == j);
        CHECK(cres_spec_tasks_count(s, j->name) == j->tasks_count);
        for (k = 0; k < j->tasks_count; k++) {
            const cres_task *t = &j->tasks[k];
            size_t a = strlen(t->address);
            CHECK(t->index >= 0);
            if (k) CHECK(j->tasks[k - 1].index < t->index);
            CHECK(a >= 1 && a <= CRES_MAX_ADDRESS_LENGTH);
            CHECK(!has_space_or_control(t->address));
            CHECK(cres_spec_task_address(s, j->name, t->index) == t->address);
        }
    }
}

static char *to_json(const cres_cluster_spec *s) {
    size_t len = 0, len2 = 0;
    cres_error err;
    char *text;
    cres_result r = cres_spec_to_json(s, NULL, 0, &len, &err);
    fuzz_check_error(r, &err);
    CHECK(r == CRES_OK);
    text = (char *)malloc(len + 1);
    CHECK(text != NULL);
    r = cres_spec_to_json(s, text, len + 1, &len2, &err);
    fuzz_check_error(r, &err);
    CHECK(r == CRES_OK);
    CHECK(len2 == len && strlen(text) == len);
    return text;
}

static void check_round_trip(const cres_cluster_spec *spec) {
    char *text = to_json(spec), *text2;
    size_t len = strlen(text);
    cres_cluster_spec *again = NULL;
    cres_error err;
    cres_result r = cres_spec_from_json(text, len, NULL, &again, &err);
    fuzz_check_error(r, &err);
    if (r == CRES_ERR_LIMIT && len > CRES_MAX_DOCUMENT_BYTES) { /* the output grew past the limit */
        free(text);
        return;
    }
    if (r != CRES_OK) {
        fprintf(stderr, "to_json output does not parse: %s\n%s\n", err.message, text);
        abort();
    }
    if (!cres_spec_equal(spec, again)) {
        fprintf(stderr, "to_json output parses to a different spec:\n%s\n", text);
        abort();
    }
    text2 = to_json(again);
    CHECK(strcmp(text, text2) == 0);
    free(text2);
    cres_spec_free(again);
    free(text);
}

static void check_clone(const cres_cluster_spec *spec) {
    cres_cluster_spec *copy = NULL, *empty = NULL;
    CHECK(cres_spec_clone(spec, NULL, &copy, NULL) == CRES_OK);
    CHECK(cres_spec_equal(spec, copy));
    CHECK(cres_spec_create(NULL, &empty, NULL) == CRES_OK);
    CHECK(cres_spec_merge(empty, spec, NULL) == CRES_OK); /* merging into nothing is a copy */
    CHECK(cres_spec_equal(spec, empty));
    cres_spec_free(empty);
    cres_spec_free(copy);
}

/* Section 5: add_job adds tasks 0..count-1 or fails with CRES_ERR_CONFLICT, and a call that
   fails leaves the spec as it was. Tried on every job (up to 16) of the parsed spec. */
static void check_add_job(const cres_cluster_spec *spec) {
    static const char *const addresses[] = {"added-0:1", "added-1:1"};
    size_t i;
    for (i = 0; i < cres_spec_jobs_count(spec) && i < 16; i++) {
        const cres_job *j = cres_spec_job_at(spec, i);
        int taken = cres_spec_task_address(spec, j->name, 0) || cres_spec_task_address(spec, j->name, 1);
        cres_cluster_spec *copy = NULL;
        cres_error err;
        cres_result r;
        CHECK(cres_spec_clone(spec, NULL, &copy, NULL) == CRES_OK);
        r = cres_spec_add_job(copy, j->name, addresses, 2, &err);
        fuzz_check_error(r, &err);
        if (taken) {
            CHECK(r == CRES_ERR_CONFLICT);
            CHECK(cres_spec_equal(spec, copy));
        } else {
            CHECK(r == CRES_OK);
            CHECK(cres_spec_tasks_count(copy, j->name) == j->tasks_count + 2);
            CHECK(strcmp(cres_spec_task_address(copy, j->name, 1), "added-1:1") == 0);
            check_invariants(copy);
        }
        if (j->tasks_count) { /* a task index that is taken: conflict, nothing changes */
            cres_spec_free(copy);
            CHECK(cres_spec_clone(spec, NULL, &copy, NULL) == CRES_OK);
            r = cres_spec_add_task(copy, j->name, j->tasks[j->tasks_count - 1].index, "other:1", &err);
            fuzz_check_error(r, &err);
            CHECK(r == CRES_ERR_CONFLICT);
            CHECK(cres_spec_equal(spec, copy));
        }
        cres_spec_free(copy);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    cres_cluster_spec *spec = NULL;
    cres_error err;
    cres_result r = cres_spec_from_json((const char *)data, size, NULL, &spec, &err);
    fuzz_check_error(r, &err);
    if (r != CRES_OK) {
        CHECK(r == CRES_ERR_INVALID_JSON || r == CRES_ERR_LIMIT);
        CHECK(spec == NULL);
        return 0;
    }
    CHECK(spec != NULL);
    check_invariants(spec);
    check_round_trip(spec);
    check_clone(spec);
    check_add_job(spec);
    cres_spec_free(spec);
    return 0;
}
