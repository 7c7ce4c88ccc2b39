/* The C API misused as a C programmer would: NULL for each pointer argument in turn, zeroed
   options, configs and hooks, NULL options, objects used twice or handed their own strings,
   numbers out of range. Every case checks the exact result, that err names the argument at
   fault and was cleared first (a stale http_status gone), that nothing leaks (ASan, valgrind)
   and that what the manual allows (NULL err, NULL options, cres_spec_free(NULL)) does what it
   says. Each test names the public functions it covers with MISUSE_CASE();
   tests/misuse_coverage.py fails when a function declared in cluster_resolver.h has none. The
   environment is a table behind config.getenv (tests/env_table.h). */

#define _POSIX_C_SOURCE 200809L
#define TEMP_PREFIX "/tmp/cres_test_misuse_"
#include "resolver_checks.h"

/* Marks the public function a test misuses (the name must be a declared function). */
#define MISUSE_CASE(fn) ((void)(fn))
/* A public function whose misuse cases live in `file`, beside the code they check. */
#define MISUSE_ELSEWHERE(fn, file)

MISUSE_ELSEWHERE(cres_resolver_new, "tests/test_resolvers.c")
MISUSE_ELSEWHERE(cres_resolver_free, "tests/test_resolvers.c")
MISUSE_ELSEWHERE(cres_resolver_allocator, "tests/test_resolvers.c")
MISUSE_ELSEWHERE(cres_union_resolver_create, "tests/test_resolvers.c")
/* cres_curl_transport takes no argument to misuse, and the unit tests link the implementation
   without CLUSTER_RESOLVER_USE_CURL; the thread test builds with it. */
MISUSE_ELSEWHERE(cres_curl_transport, "tests/threads/test_threads.c")

/* ---------------------------------------------------------------------------------------
   Helpers */

/* An error left over from an earlier call: every call must clear it first. */
static void stale(cres_error *e) {
    e->result = CRES_ERR_TIMEOUT;
    e->http_status = 599;
    strcpy(e->message, "stale message");
}

static void check_at(cres_result got, const cres_error *e, cres_result want, const char *sub,
                     int line) {
    expect_error_at(got, e, want, sub, NULL, line);
    if (e->http_status != 0)
        fail_msg("line %d: http_status %d was not cleared", line, e->http_status);
}

/* `call` (which passes &err) fails with `want`, its message naming `sub`. */
#define BAD(want, sub, call)                                                                \
    do {                                                                                    \
        cres_error err;                                                                     \
        stale(&err);                                                                        \
        check_at((call), &err, (want), (sub), __LINE__);                                    \
    } while (0)

static cres_cluster_spec *two_workers(void) {
    return parse("{'worker': ['a:1', 'b:2'], 'ps': {'3': 'c:3'}}");
}

/* A local resolver: one task, "worker" 0 at localhost:8470, reading nothing. */
static cres_resolver *local(void) {
    cres_local_options o;
    cres_resolver *r = NULL;
    cres_error err;
    memset(&o, 0, sizeof o);
    OK(cres_local_resolver_create(&o, &r, &err));
    return r;
}

static cres_resolver *simple_of(const cres_cluster_spec *spec) {
    cres_simple_options o;
    cres_resolver *r = NULL;
    cres_error err;
    memset(&o, 0, sizeof o);
    o.spec = spec;
    o.task_type = "worker";
    o.task_id = 1;
    OK(cres_simple_resolver_create(&o, &r, &err));
    return r;
}

static int setup(void **state) {
    (void)state;
    env_reset();
    env_config();
    return 0;
}

/* ---------------------------------------------------------------------------------------
   Results and errors */

static void result_strings(void **state) {
    int i;
    (void)state;
    MISUSE_CASE(cres_result_string);
    MISUSE_CASE(cres_version_string);
    for (i = 0; i < CRES_RESULT_COUNT; i++) assert_true(*cres_result_string((cres_result)i));
    assert_string_equal(cres_result_string((cres_result)-1), "unknown result");
    assert_string_equal(cres_result_string(CRES_RESULT_COUNT), "unknown result");
    assert_string_equal(cres_result_string((cres_result)1000), "unknown result");
    assert_string_equal(cres_version_string(), CLUSTER_RESOLVER_VERSION_STRING);
}

static void error_set(void **state) {
    cres_error err;
    (void)state;
    MISUSE_CASE(cres_error_set);
    assert_int_equal(cres_error_set(NULL, CRES_ERR_LIMIT, "x %d", 1), CRES_ERR_LIMIT);
    /* a backend wrapping the message a lower call left: its own message is an argument */
    stale(&err);
    strcpy(err.message, "inner failure");
    assert_int_equal(cres_error_set(&err, CRES_ERR_ENVIRONMENT, "mine: %s", err.message),
                     CRES_ERR_ENVIRONMENT);
    assert_string_equal(err.message, "mine: inner failure");
    assert_int_equal(err.http_status, 599); /* documented: left as it is */
    assert_int_equal(err.result, CRES_ERR_ENVIRONMENT);
    /* a message longer than the buffer, from the buffer itself: cut, terminated */
    memset(err.message, 'm', sizeof err.message - 1);
    err.message[sizeof err.message - 1] = '\0';
    cres_error_set(&err, CRES_ERR_LIMIT, "%s%s", err.message, err.message);
    assert_int_equal(strlen(err.message), sizeof err.message - 1);
    assert_int_equal(strspn(err.message, "m"), sizeof err.message - 1);
}

/* ---------------------------------------------------------------------------------------
   Cluster specs */

static void spec_create_and_free(void **state) {
    cres_allocator zero;
    cres_cluster_spec *s = NULL;
    cres_error err;
    (void)state;
    MISUSE_CASE(cres_spec_create);
    MISUSE_CASE(cres_spec_free);
    BAD(CRES_ERR_INVALID_ARGUMENT, "out is NULL", cres_spec_create(NULL, NULL, &err));
    assert_int_equal(cres_spec_create(NULL, NULL, NULL), CRES_ERR_INVALID_ARGUMENT);
    memset(&zero, 0, sizeof zero); /* all zero: the default allocator */
    OK(cres_spec_create(&zero, &s, &err));
    OK(cres_spec_add_task(s, "worker", 0, "a:1", &err));
    cres_spec_free(s);
    cres_spec_free(NULL); /* documented: nothing */
}

static void spec_add_task(void **state) {
    cres_cluster_spec *s = two_workers();
    cres_error err;
    char address[16];
    (void)state;
    MISUSE_CASE(cres_spec_add_task);
    BAD(CRES_ERR_INVALID_ARGUMENT, "spec is NULL", cres_spec_add_task(NULL, "w", 0, "a:1", &err));
    BAD(CRES_ERR_INVALID_ARGUMENT, "job name is NULL", cres_spec_add_task(s, NULL, 0, "a:1", &err));
    BAD(CRES_ERR_INVALID_ARGUMENT, "address is NULL", cres_spec_add_task(s, "w", 0, NULL, &err));
    BAD(CRES_ERR_INVALID_ARGUMENT, "index -1", cres_spec_add_task(s, "w", -1, "a:1", &err));
    BAD(CRES_ERR_INVALID_ARGUMENT, "negative", cres_spec_add_task(s, "w", INT_MIN, "a:1", &err));
    assert_int_equal(cres_spec_add_task(NULL, "w", 0, "a:1", NULL), CRES_ERR_INVALID_ARGUMENT);
    /* the same task twice: a conflict, the spec as it was */
    BAD(CRES_ERR_CONFLICT, "task 1 twice", cres_spec_add_task(s, "worker", 1, "z:9", &err));
    /* the spec's own strings as arguments: its job name and one of its addresses */
    OK(cres_spec_add_task(s, cres_spec_job_at(s, 1)->name, 2,
                          cres_spec_task_address(s, "worker", 0), &err));
    OK(cres_spec_add_task(s, "chief", 0, cres_spec_task_address(s, "ps", 3), &err));
    strcpy(address, "d:4");
    OK(cres_spec_add_task(s, "ps", INT_MAX, address, &err));
    address[0] = 'x'; /* copied */
    assert_string_equal(json_of(s), dq("{'chief': ['c:3'], 'ps': {'3': 'c:3', '2147483647': "
                                       "'d:4'}, 'worker': ['a:1', 'b:2', 'a:1']}"));
    cres_spec_free(s);
}

static void spec_add_job(void **state) {
    static const char *const addresses[] = {"a:1", NULL};
    cres_cluster_spec *s = two_workers();
    cres_error err;
    (void)state;
    MISUSE_CASE(cres_spec_add_job);
    BAD(CRES_ERR_INVALID_ARGUMENT, "spec is NULL",
        cres_spec_add_job(NULL, "w", addresses, 1, &err));
    BAD(CRES_ERR_INVALID_ARGUMENT, "job name is NULL",
        cres_spec_add_job(s, NULL, addresses, 1, &err));
    BAD(CRES_ERR_INVALID_ARGUMENT, "addresses is NULL", cres_spec_add_job(s, "w", NULL, 2, &err));
    BAD(CRES_ERR_INVALID_ARGUMENT, "task 1: address is NULL",
        cres_spec_add_job(s, "w", addresses, 2, &err));
    /* a negative count converted to size_t: refused before any address is read */
    BAD(CRES_ERR_LIMIT, "more than 2147483647 tasks",
        cres_spec_add_job(s, "w", addresses, (size_t)-1, &err));
    BAD(CRES_ERR_CONFLICT, "task 0 twice", cres_spec_add_job(s, "worker", addresses, 1, &err));
    assert_int_equal(cres_spec_jobs_count(s), 2); /* nothing added by the failures */
    OK(cres_spec_add_job(s, "empty", NULL, 0, &err)); /* documented: an empty job */
    assert_int_equal(cres_spec_tasks_count(s, "empty"), 0);
    assert_non_null(cres_spec_job(s, "empty"));
    cres_spec_free(s);
}

static void spec_readers(void **state) {
    cres_cluster_spec *s = two_workers();
    (void)state;
    MISUSE_CASE(cres_spec_jobs_count);
    MISUSE_CASE(cres_spec_job_at);
    MISUSE_CASE(cres_spec_job);
    MISUSE_CASE(cres_spec_task_address);
    MISUSE_CASE(cres_spec_tasks_count);
    assert_int_equal(cres_spec_jobs_count(NULL), 0);
    assert_null(cres_spec_job_at(NULL, 0));
    assert_null(cres_spec_job_at(s, 2));
    assert_null(cres_spec_job_at(s, (size_t)-1));
    assert_null(cres_spec_job(NULL, "worker"));
    assert_null(cres_spec_job(s, NULL));
    assert_null(cres_spec_job(s, ""));
    assert_null(cres_spec_task_address(NULL, "worker", 0));
    assert_null(cres_spec_task_address(s, NULL, 0));
    assert_null(cres_spec_task_address(s, "worker", -1));
    assert_null(cres_spec_task_address(s, "worker", INT_MIN));
    assert_null(cres_spec_task_address(s, "worker", INT_MAX));
    assert_int_equal(cres_spec_tasks_count(NULL, "worker"), 0);
    assert_int_equal(cres_spec_tasks_count(s, NULL), 0);
    assert_int_equal(cres_spec_tasks_count(s, "worker"), 2);
    cres_spec_free(s);
}

static void spec_equal(void **state) {
    cres_cluster_spec *s = two_workers();
    (void)state;
    MISUSE_CASE(cres_spec_equal);
    assert_true(cres_spec_equal(NULL, NULL)); /* documented: NULL equals only NULL */
    assert_false(cres_spec_equal(s, NULL));
    assert_false(cres_spec_equal(NULL, s));
    assert_true(cres_spec_equal(s, s));
    cres_spec_free(s);
}

static void spec_clone(void **state) {
    cres_cluster_spec *s = two_workers(), *c = NULL;
    cres_allocator zero;
    cres_error err;
    (void)state;
    MISUSE_CASE(cres_spec_clone);
    BAD(CRES_ERR_INVALID_ARGUMENT, "spec is NULL", cres_spec_clone(NULL, NULL, &c, &err));
    assert_null(c);
    BAD(CRES_ERR_INVALID_ARGUMENT, "out is NULL", cres_spec_clone(s, NULL, NULL, &err));
    assert_int_equal(cres_spec_clone(NULL, NULL, NULL, NULL), CRES_ERR_INVALID_ARGUMENT);
    memset(&zero, 0, sizeof zero);
    OK(cres_spec_clone(s, &zero, &c, &err));
    assert_true(cres_spec_equal(s, c));
    cres_spec_free(c);
    cres_spec_free(s);
}

static void spec_merge(void **state) {
    cres_cluster_spec *s = parse("{'worker': ['a:1', 'b:2']}"), *sparse = two_workers();
    cres_error err;
    (void)state;
    MISUSE_CASE(cres_spec_merge);
    BAD(CRES_ERR_INVALID_ARGUMENT, "dst is NULL", cres_spec_merge(NULL, s, &err));
    BAD(CRES_ERR_INVALID_ARGUMENT, "src is NULL", cres_spec_merge(s, NULL, &err));
    assert_int_equal(cres_spec_merge(NULL, NULL, NULL), CRES_ERR_INVALID_ARGUMENT);
    /* into itself: dense jobs concatenate (TF's Union), as with any copy of it */
    OK(cres_spec_merge(s, s, &err));
    assert_string_equal(json_of(s), dq("{'worker': ['a:1', 'b:2', 'a:1', 'b:2']}"));
    /* a sparse job meets its own indices: a conflict, dst unchanged */
    BAD(CRES_ERR_CONFLICT, "\"ps\" has task 3 twice", cres_spec_merge(sparse, sparse, &err));
    assert_string_equal(json_of(sparse), dq("{'ps': {'3': 'c:3'}, 'worker': ['a:1', 'b:2']}"));
    cres_spec_free(sparse);
    cres_spec_free(s);
}

static void spec_from_json(void **state) {
    static const char json[] = "{\"worker\": [\"a:1\"]}";
    cres_cluster_spec *s = NULL;
    cres_allocator zero;
    cres_error err;
    (void)state;
    MISUSE_CASE(cres_spec_from_json);
    BAD(CRES_ERR_INVALID_ARGUMENT, "JSON is NULL", cres_spec_from_json(NULL, 4, NULL, &s, &err));
    assert_null(s);
    BAD(CRES_ERR_INVALID_ARGUMENT, "out is NULL", cres_spec_from_json(json, 4, NULL, NULL, &err));
    assert_int_equal(cres_spec_from_json(NULL, 0, NULL, NULL, NULL), CRES_ERR_INVALID_ARGUMENT);
    BAD(CRES_ERR_INVALID_JSON, "unexpected end", cres_spec_from_json(json, 0, NULL, &s, &err));
    BAD(CRES_ERR_INVALID_JSON, "unterminated string", cres_spec_from_json(json, 5, NULL, &s, &err));
    /* sizeof counts the terminator: the message names the NUL, not "unexpected text" */
    BAD(CRES_ERR_INVALID_JSON, "offset 19: a NUL byte",
        cres_spec_from_json(json, sizeof json, NULL, &s, &err));
    /* and a NUL elsewhere, in a string or where a value should be */
    BAD(CRES_ERR_INVALID_JSON, "offset 8: a NUL byte",
        cres_spec_from_json("{\"worker\0\": []}", 15, NULL, &s, &err));
    BAD(CRES_ERR_INVALID_JSON, "offset 11: a NUL byte",
        cres_spec_from_json("{\"worker\": \0}", 13, NULL, &s, &err));
    assert_null(s);
    memset(&zero, 0, sizeof zero);
    OK(cres_spec_from_json(json, strlen(json), &zero, &s, &err));
    cres_spec_free(s);
}

/* The snprintf contract of every text writer: buf NULL with cap > 0 is refused naming buf;
   cap 0 with a buffer writes nothing and gives the length; buf NULL, cap 0 asks the length. */
typedef cres_result (*text_fn)(void *x, char *buf, size_t cap, size_t *len, cres_error *err);

static void check_text_contract_at(text_fn fn, void *x, int line) {
    char buf[4] = "xyz";
    size_t len = 0, want;
    cres_error err;
    stale(&err);
    check_at(fn(x, NULL, 8, &len, &err), &err, CRES_ERR_INVALID_ARGUMENT, "buf is NULL", line);
    if (fn(x, NULL, 0, &want, &err) != CRES_OK) fail_msg("line %d: %s", line, err.message);
    if (fn(x, NULL, 0, NULL, NULL) != CRES_OK) fail_msg("line %d: no length query", line);
    stale(&err);
    check_at(fn(x, buf, 0, &len, &err), &err, CRES_ERR_BUFFER_TOO_SMALL, "buffer has 0", line);
    if (len != want || strcmp(buf, "xyz") != 0)
        fail_msg("line %d: cap 0 wrote \"%s\" or gave %zu, not %zu", line, buf, len, want);
}
#define CHECK_TEXT_CONTRACT(fn, x) check_text_contract_at((fn), (x), __LINE__)

static cres_result spec_json_text(void *x, char *buf, size_t cap, size_t *len, cres_error *err) {
    return cres_spec_to_json((const cres_cluster_spec *)x, buf, cap, len, err);
}

static void spec_to_json(void **state) {
    cres_cluster_spec *s = two_workers();
    char buf[64];
    (void)state;
    MISUSE_CASE(cres_spec_to_json);
    BAD(CRES_ERR_INVALID_ARGUMENT, "spec is NULL",
        cres_spec_to_json(NULL, buf, sizeof buf, NULL, &err));
    CHECK_TEXT_CONTRACT(spec_json_text, s);
    cres_spec_free(s);
}

/* ---------------------------------------------------------------------------------------
   Resolvers: the common calls */

/* Backends of a program's own that break the resolve() contract. */
static cres_result resolve_nothing(cres_resolver *self, cres_cluster_spec **out,
                                   cres_error *err) {
    (void)self;
    (void)out;
    (void)err;
    return CRES_OK; /* CRES_OK without a spec */
}

static cres_result fail_with_spec(cres_resolver *self, cres_cluster_spec **out,
                                  cres_error *err) {
    cres_result res = cres_spec_create(cres_resolver_allocator(self), out, err);
    if (res == CRES_OK) res = cres_spec_add_task(*out, "worker", 0, "a:1", err);
    if (res != CRES_OK) return res;
    /* the spec stays in *out: the library must free it */
    return cres_error_set(err, CRES_ERR_NOT_READY, "%s: %s", self->vtable->name, "not yet");
}

static cres_resolver *custom(const cres_resolver_vtable *vtable) {
    cres_resolver *r = NULL;
    cres_error err;
    OK(cres_resolver_new(sizeof *r, vtable, NULL, &r, &err));
    return r;
}

static void resolve(void **state) {
    static const cres_resolver_vtable no_spec = {"no-spec", resolve_nothing, NULL, NULL,
                                                 NULL,      NULL,            NULL};
    static const cres_resolver_vtable leaves_spec = {"leaves-spec", fail_with_spec, NULL, NULL,
                                                     NULL,          NULL,           NULL};
    cres_cluster_spec *a = NULL, *b = NULL;
    cres_resolver *r = local();
    cres_error err;
    (void)state;
    MISUSE_CASE(cres_resolve);
    BAD(CRES_ERR_INVALID_ARGUMENT, "resolver is NULL", cres_resolve(NULL, &a, &err));
    assert_null(a);
    BAD(CRES_ERR_INVALID_ARGUMENT, "out is NULL", cres_resolve(r, NULL, &err));
    assert_int_equal(cres_resolve(NULL, NULL, NULL), CRES_ERR_INVALID_ARGUMENT);
    /* twice: two specs, equal, each the caller's */
    OK(cres_resolve(r, &a, &err));
    OK(cres_resolve(r, &b, &err));
    assert_true(a != b && cres_spec_equal(a, b));
    cres_spec_free(a);
    cres_spec_free(b);
    cres_resolver_free(r);
    r = custom(&no_spec);
    BAD(CRES_ERR_UNEXPECTED_RESPONSE, "no-spec: resolve gave no spec", cres_resolve(r, &a, &err));
    assert_null(a);
    cres_resolver_free(r);
    r = custom(&leaves_spec);
    a = (cres_cluster_spec *)(void *)&err; /* a sentinel: the failure must clear it */
    BAD(CRES_ERR_NOT_READY, "leaves-spec: not yet", cres_resolve(r, &a, &err));
    assert_null(a);
    cres_resolver_free(r);
}

static cres_result master_text(void *x, char *buf, size_t cap, size_t *len, cres_error *err) {
    return cres_master((cres_resolver *)x, buf, cap, len, err);
}

static cres_result master_of_text(void *x, char *buf, size_t cap, size_t *len, cres_error *err) {
    return cres_master_of((cres_resolver *)x, "worker", 0, "grpc", buf, cap, len, err);
}

static void master(void **state) {
    cres_cluster_spec *spec = two_workers();
    cres_resolver *r = local(), *s = simple_of(spec);
    char buf[64];
    (void)state;
    MISUSE_CASE(cres_master);
    MISUSE_CASE(cres_master_of);
    BAD(CRES_ERR_INVALID_ARGUMENT, "resolver is NULL",
        cres_master(NULL, buf, sizeof buf, NULL, &err));
    BAD(CRES_ERR_INVALID_ARGUMENT, "resolver is NULL",
        cres_master_of(NULL, "worker", 0, NULL, buf, sizeof buf, NULL, &err));
    BAD(CRES_ERR_INVALID_ARGUMENT, "task id -2",
        cres_master_of(r, "worker", -2, NULL, buf, sizeof buf, NULL, &err));
    BAD(CRES_ERR_INVALID_ARGUMENT, "task id -2147483648",
        cres_master_of(s, NULL, INT_MIN, NULL, buf, sizeof buf, NULL, &err));
    BAD(CRES_ERR_NOT_FOUND, "no task 7",
        cres_master_of(s, "worker", 7, NULL, buf, sizeof buf, NULL, &err));
    CHECK_TEXT_CONTRACT(master_text, r);
    CHECK_TEXT_CONTRACT(master_text, s);
    CHECK_TEXT_CONTRACT(master_of_text, r);
    CHECK_TEXT_CONTRACT(master_of_text, s);
    cres_resolver_free(s);
    cres_resolver_free(r);
    cres_spec_free(spec);
}

static void accelerators(void **state) {
    cres_accelerators acc, many;
    cres_cluster_spec *spec = two_workers();
    cres_simple_options o;
    cres_resolver *r = local(), *s = NULL;
    cres_error err;
    (void)state;
    MISUSE_CASE(cres_num_accelerators);
    MISUSE_CASE(cres_num_accelerators_of);
    BAD(CRES_ERR_INVALID_ARGUMENT, "resolver is NULL", cres_num_accelerators(NULL, &acc, &err));
    BAD(CRES_ERR_INVALID_ARGUMENT, "out is NULL", cres_num_accelerators(r, NULL, &err));
    BAD(CRES_ERR_INVALID_ARGUMENT, "resolver is NULL",
        cres_num_accelerators_of(NULL, "worker", 0, &acc, &err));
    BAD(CRES_ERR_INVALID_ARGUMENT, "out is NULL",
        cres_num_accelerators_of(r, "worker", 0, NULL, &err));
    BAD(CRES_ERR_INVALID_ARGUMENT, "task id -2",
        cres_num_accelerators_of(r, "worker", -2, &acc, &err));
    assert_int_equal(cres_num_accelerators(NULL, NULL, NULL), CRES_ERR_INVALID_ARGUMENT);
    OK(cres_num_accelerators(r, &acc, &err));
    assert_int_equal(acc.count, 0);
    /* simple's accelerators: more kinds than the struct holds, a negative count */
    memset(&o, 0, sizeof o);
    memset(&many, 0, sizeof many);
    o.spec = spec;
    o.accelerators = &many;
    many.count = CRES_MAX_ACCELERATOR_KINDS + 1;
    FAILS_WITH(cres_simple_resolver_create, o, CRES_ERR_INVALID_ARGUMENT,
               "accelerator kinds", NULL);
    many.count = 1;
    strcpy(many.items[0].type, "GPU");
    many.items[0].count = -4;
    FAILS_WITH(cres_simple_resolver_create, o, CRES_ERR_INVALID_ARGUMENT,
               "options.accelerators", "negative");
    many.items[0].count = 4;
    OK(cres_simple_resolver_create(&o, &s, &err));
    BAD(CRES_ERR_INVALID_ARGUMENT, "task id -3", cres_num_accelerators_of(s, NULL, -3, &acc, &err));
    OK(cres_num_accelerators_of(s, NULL, CRES_OWN_TASK, &acc, &err));
    assert_int_equal(acc.items[0].count, 4);
    cres_resolver_free(s);
    cres_resolver_free(r);
    cres_spec_free(spec);
}

static cres_result devices_text(void *x, char *buf, size_t cap, size_t *len, cres_error *err) {
    return cres_visible_devices((cres_resolver *)x, buf, cap, len, err);
}

static cres_result devices_of_text(void *x, char *buf, size_t cap, size_t *len, cres_error *err) {
    return cres_visible_devices_of((cres_resolver *)x, "worker", 1, buf, cap, len, err);
}

/* Slurm's variables for task 0 of a step of 2 on one node with 2 GPUs (srun --ntasks=2
   --gres=gpu:2), as test_hpc.c's step() and step_gpus() set them. */
static void slurm_step(void) {
    env_lines("SLURM_JOB_ID=7\nSLURM_STEP_NODELIST=n1\nSLURM_STEP_TASKS_PER_NODE=2\n"
              "SLURM_STEP_NUM_TASKS=2\nSLURM_PROCID=0\nSLURM_LOCALID=0\nSLURM_NODEID=0\n"
              "CUDA_VISIBLE_DEVICES=0,1\nSLURM_GPUS_ON_NODE=2\n");
}

static void visible_devices(void **state) {
    cres_resolver *r = NULL;
    cres_slurm_options o;
    char buf[64];
    cres_error err;
    (void)state;
    MISUSE_CASE(cres_visible_devices);
    MISUSE_CASE(cres_visible_devices_of);
    slurm_step();
    memset(&o, 0, sizeof o);
    o.config = &cfg;
    OK(cres_slurm_resolver_create(&o, &r, &err));
    BAD(CRES_ERR_INVALID_ARGUMENT, "resolver is NULL",
        cres_visible_devices(NULL, buf, sizeof buf, NULL, &err));
    BAD(CRES_ERR_INVALID_ARGUMENT, "resolver is NULL",
        cres_visible_devices_of(NULL, "worker", 0, buf, sizeof buf, NULL, &err));
    BAD(CRES_ERR_INVALID_ARGUMENT, "task id -2",
        cres_visible_devices_of(r, "worker", -2, buf, sizeof buf, NULL, &err));
    CHECK_TEXT_CONTRACT(devices_text, r);
    CHECK_TEXT_CONTRACT(devices_of_text, r);
    OK(cres_visible_devices_of(r, "worker", 1, buf, sizeof buf, NULL, &err));
    assert_string_equal(buf, "1");
    cres_resolver_free(r);
    r = local();
    CHECK_TEXT_CONTRACT(devices_text, r);
    cres_resolver_free(r);
}

static void getters(void **state) {
    cres_resolver *r = local();
    (void)state;
    MISUSE_CASE(cres_resolver_name);
    MISUSE_CASE(cres_task_id);
    assert_null(cres_resolver_name(NULL));
    assert_string_equal(cres_resolver_name(r), "local");
    assert_int_equal(cres_task_id(NULL), CRES_NO_TASK);
    assert_int_equal(cres_task_id(r), 0);
    cres_resolver_free(r);
}

static void set_task(void **state) {
    cres_resolver *r = local();
    cres_cluster_spec *spec = NULL;
    char type[16];
    cres_error err;
    (void)state;
    MISUSE_CASE(cres_set_task);
    MISUSE_CASE(cres_task_type);
    BAD(CRES_ERR_INVALID_ARGUMENT, "resolver is NULL", cres_set_task(NULL, "worker", 0, &err));
    BAD(CRES_ERR_INVALID_ARGUMENT, "task id -2", cres_set_task(r, "worker", -2, &err));
    BAD(CRES_ERR_INVALID_ARGUMENT, "task id -2147483648", cres_set_task(r, NULL, INT_MIN, &err));
    assert_int_equal(cres_set_task(NULL, NULL, 0, NULL), CRES_ERR_INVALID_ARGUMENT);
    assert_string_equal(cres_task_type(r), "worker"); /* the failures changed nothing */
    assert_int_equal(cres_task_id(r), 0);
    /* twice: the second wins */
    OK(cres_set_task(r, "ps", 3, &err));
    OK(cres_set_task(r, "chief", 0, &err));
    assert_string_equal(cres_task_type(r), "chief");
    /* the resolver's own string handed back to it, and a caller's buffer reused */
    OK(cres_set_task(r, cres_task_type(r), 0, &err));
    assert_string_equal(cres_task_type(r), "chief");
    strcpy(type, "worker");
    OK(cres_set_task(r, type, 0, &err));
    strcpy(type, "clobbered");
    assert_string_equal(cres_task_type(r), "worker");
    OK(cres_resolve(r, &spec, &err));
    cres_spec_free(spec);
    cres_resolver_free(r);
}

static void set_detected_task(void **state) {
    cres_resolver *r = local();
    cres_error err;
    (void)state;
    MISUSE_CASE(cres_set_detected_task);
    BAD(CRES_ERR_INVALID_ARGUMENT, "resolver is NULL", cres_set_detected_task(NULL, "w", 0, &err));
    BAD(CRES_ERR_INVALID_ARGUMENT, "task id -2", cres_set_detected_task(r, "w", -2, &err));
    OK(cres_set_detected_task(r, cres_task_type(r), 0, &err));
    OK(cres_set_task(r, "ps", 1, &err));
    OK(cres_set_detected_task(r, "worker", 0, &err)); /* an override wins */
    assert_string_equal(cres_task_type(r), "ps");
    assert_int_equal(cres_task_id(r), 1);
    cres_resolver_free(r);
}

static void set_rpc_layer_and_environment(void **state) {
    cres_resolver *r = local();
    cres_error err;
    (void)state;
    MISUSE_CASE(cres_set_rpc_layer);
    MISUSE_CASE(cres_rpc_layer);
    MISUSE_CASE(cres_set_environment);
    MISUSE_CASE(cres_environment);
    BAD(CRES_ERR_INVALID_ARGUMENT, "resolver is NULL", cres_set_rpc_layer(NULL, "grpc", &err));
    BAD(CRES_ERR_INVALID_ARGUMENT, "resolver is NULL", cres_set_environment(NULL, "cloud", &err));
    OK(cres_set_rpc_layer(r, "grpc", &err));
    OK(cres_set_rpc_layer(r, cres_rpc_layer(r), &err)); /* its own string */
    assert_string_equal(cres_rpc_layer(r), "grpc");
    OK(cres_set_environment(r, "cloud", &err));
    OK(cres_set_environment(r, cres_environment(r), &err));
    assert_string_equal(cres_environment(r), "cloud");
    OK(cres_set_rpc_layer(r, NULL, &err)); /* documented: NULL or "" = none */
    assert_null(cres_rpc_layer(r));
    cres_resolver_free(r);
}

static void resolver_environment(void **state) {
    cres_resolver *r = NULL;
    cres_local_options o;
    cres_error err;
    (void)state;
    MISUSE_CASE(cres_resolver_getenv);
    MISUSE_CASE(cres_resolver_env_at);
    env_set("ANSWER", "42");
    env_list_config();
    memset(&o, 0, sizeof o);
    o.config = &cfg;
    OK(cres_local_resolver_create(&o, &r, &err));
    assert_null(cres_resolver_getenv(NULL, "ANSWER"));
    assert_null(cres_resolver_getenv(r, NULL));
    assert_string_equal(cres_resolver_getenv(r, "ANSWER"), "42");
    assert_null(cres_resolver_env_at(NULL, 0));
    assert_string_equal(cres_resolver_env_at(r, 0), "ANSWER=42");
    assert_null(cres_resolver_env_at(r, 1));
    assert_null(cres_resolver_env_at(r, (size_t)-1));
    cres_resolver_free(r);
    /* zero hooks: the process environment, through getenv() and environ */
    r = local();
    assert_true(cres_resolver_getenv(r, "PATH") == getenv("PATH"));
    assert_null(cres_resolver_getenv(r, "CRES_TEST_MISUSE_SURELY_UNSET"));
    assert_null(cres_resolver_env_at(r, (size_t)-1));
    cres_resolver_free(r);
}

/* ---------------------------------------------------------------------------------------
   Backends: out NULL, options NULL, zeroed options, zeroed config, ports out of range */

/* Every options struct, zeroed at once; each starts with `const cres_config *config`. */
typedef union any_options {
    struct { const cres_config *config; } head;
    cres_simple_options simple;
    cres_tfconfig_options tfconfig;
    cres_local_options local;
    cres_k8s_options k8s;
    cres_gce_options gce;
    cres_tpu_options tpu;
    cres_slurm_options slurm;
    cres_mpi_options mpi;
    cres_pbs_options pbs;
    cres_lsf_options lsf;
    cres_sge_options sge;
    cres_flux_options flux;
    cres_sagemaker_options sagemaker;
    cres_vertex_options vertex;
    cres_skypilot_options skypilot;
    cres_volcano_options volcano;
    cres_lws_options lws;
    cres_torch_options torch;
    cres_jax_options jax;
    cres_awsbatch_options awsbatch;
    cres_auto_options autodetect;
} any_options;

typedef cres_result (*create_fn)(const any_options *o, cres_resolver **out, cres_error *err);

/* A create function taking any_options (NULL passed on as NULL). */
#define CREATE_ANY(name, member)                                                            \
    static cres_result create_##name(const any_options *o, cres_resolver **out,            \
                                     cres_error *err) {                                    \
        return cres_##name##_resolver_create(o ? &o->member : NULL, out, err);             \
    }
CREATE_ANY(simple, simple)
CREATE_ANY(tfconfig, tfconfig)
CREATE_ANY(local, local)
CREATE_ANY(k8s, k8s)
CREATE_ANY(gce, gce)
CREATE_ANY(tpu, tpu)
CREATE_ANY(slurm, slurm)
CREATE_ANY(mpi, mpi)
CREATE_ANY(pbs, pbs)
CREATE_ANY(lsf, lsf)
CREATE_ANY(sge, sge)
CREATE_ANY(flux, flux)
CREATE_ANY(sagemaker, sagemaker)
CREATE_ANY(vertex, vertex)
CREATE_ANY(skypilot, skypilot)
CREATE_ANY(volcano, volcano)
CREATE_ANY(lws, lws)
CREATE_ANY(torch, torch)
CREATE_ANY(jax, jax)
CREATE_ANY(awsbatch, awsbatch)
CREATE_ANY(auto, autodetect)

/* What each backend does with zeroed options in an empty environment: the code and a part
   of the message (the variable or option it misses); CRES_OK: a resolver. */
typedef struct backend_case {
    const char *name;
    create_fn create;
    cres_result empty;
    const char *empty_says;
} backend_case;

static const backend_case backends[] = {
    {"simple", create_simple, CRES_ERR_INVALID_ARGUMENT, "options.spec is required"},
    {"tfconfig", create_tfconfig, CRES_OK, NULL},
    {"local", create_local, CRES_OK, NULL},
    {"k8s", create_k8s, CRES_ERR_ENVIRONMENT, "KUBERNETES_SERVICE_HOST"},
    {"gce", create_gce, CRES_ERR_INVALID_ARGUMENT, "options.instance_group"},
    {"tpu", create_tpu, CRES_ERR_ENVIRONMENT, "TPU_NAME"},
    {"slurm", create_slurm, CRES_ERR_ENVIRONMENT, "SLURM_STEP_NODELIST"},
    {"mpi", create_mpi, CRES_ERR_ENVIRONMENT, "mpi"},
    {"pbs", create_pbs, CRES_ERR_ENVIRONMENT, "PBS_NODEFILE"},
    {"lsf", create_lsf, CRES_ERR_ENVIRONMENT, "LSB_"},
    {"sge", create_sge, CRES_ERR_ENVIRONMENT, "PE_HOSTFILE"},
    {"flux", create_flux, CRES_ERR_ENVIRONMENT, "FLUX_TASK_RANK"},
    {"sagemaker", create_sagemaker, CRES_ERR_ENVIRONMENT, "SM_HOSTS"},
    {"vertex", create_vertex, CRES_ERR_ENVIRONMENT, "CLUSTER_SPEC"},
    {"skypilot", create_skypilot, CRES_ERR_ENVIRONMENT, "SKYPILOT_NODE_IPS"},
    {"volcano", create_volcano, CRES_ERR_ENVIRONMENT, "VC_"},
    {"lws", create_lws, CRES_ERR_ENVIRONMENT, "LWS_LEADER_ADDRESS"},
    {"torch", create_torch, CRES_ERR_ENVIRONMENT, "MASTER_ADDR"},
    {"jax", create_jax, CRES_ERR_ENVIRONMENT, "JAX_COORDINATOR_ADDRESS"},
    {"awsbatch", create_awsbatch, CRES_ERR_ENVIRONMENT, "AWS_BATCH_JOB_NODE_INDEX"},
    {"auto", create_auto, CRES_OK, NULL},
};
#define BACKENDS (sizeof backends / sizeof backends[0])

/* A create's result and message, the resolver freed. */
typedef struct outcome {
    cres_result result;
    char message[CRES_ERROR_MESSAGE_SIZE];
} outcome;

static outcome create_outcome(const backend_case *b, const any_options *o) {
    static int sentinel;
    cres_resolver *r = (cres_resolver *)(void *)&sentinel;
    cres_error err;
    outcome out;
    stale(&err);
    out.result = b->create(o, &r, &err);
    if (out.result == CRES_OK) {
        assert_non_null(r);
        assert_int_equal(err.result, CRES_OK);
        cres_resolver_free(r);
    } else if (r) {
        fail_msg("%s: a resolver came back on failure", b->name);
    }
    if (err.http_status) fail_msg("%s: http_status not cleared", b->name);
    if (err.result != out.result) fail_msg("%s: err.result %d", b->name, (int)err.result);
    memcpy(out.message, err.message, sizeof out.message);
    return out;
}

static void creates_refuse_null_out(void **state) {
    any_options o;
    size_t i;
    (void)state;
    MISUSE_CASE(cres_simple_resolver_create);
    MISUSE_CASE(cres_tfconfig_resolver_create);
    MISUSE_CASE(cres_local_resolver_create);
    MISUSE_CASE(cres_k8s_resolver_create);
    MISUSE_CASE(cres_gce_resolver_create);
    MISUSE_CASE(cres_tpu_resolver_create);
    MISUSE_CASE(cres_slurm_resolver_create);
    MISUSE_CASE(cres_mpi_resolver_create);
    MISUSE_CASE(cres_pbs_resolver_create);
    MISUSE_CASE(cres_lsf_resolver_create);
    MISUSE_CASE(cres_sge_resolver_create);
    MISUSE_CASE(cres_flux_resolver_create);
    MISUSE_CASE(cres_sagemaker_resolver_create);
    MISUSE_CASE(cres_vertex_resolver_create);
    MISUSE_CASE(cres_skypilot_resolver_create);
    MISUSE_CASE(cres_volcano_resolver_create);
    MISUSE_CASE(cres_lws_resolver_create);
    MISUSE_CASE(cres_torch_resolver_create);
    MISUSE_CASE(cres_jax_resolver_create);
    MISUSE_CASE(cres_awsbatch_resolver_create);
    MISUSE_CASE(cres_auto_resolver_create);
    memset(&o, 0, sizeof o);
    o.head.config = &cfg;
    for (i = 0; i < BACKENDS; i++) {
        cres_error err;
        cres_result got;
        stale(&err);
        got = backends[i].create(NULL, NULL, &err);
        if (got != CRES_ERR_INVALID_ARGUMENT || !strstr(err.message, "out is NULL") ||
            err.http_status)
            fail_msg("%s with options NULL and out NULL: %s: %s", backends[i].name,
                     cres_result_string(got), err.message);
        stale(&err);
        got = backends[i].create(&o, NULL, &err);
        if (got != CRES_ERR_INVALID_ARGUMENT || !strstr(err.message, "out is NULL") ||
            err.http_status)
            fail_msg("%s with out NULL: %s: %s", backends[i].name, cres_result_string(got),
                     err.message);
        assert_int_equal(backends[i].create(&o, NULL, NULL), CRES_ERR_INVALID_ARGUMENT);
    }
}

static void creates_with_zeroed_options(void **state) {
    any_options o;
    size_t i;
    (void)state;
    memset(&o, 0, sizeof o);
    o.head.config = &cfg; /* the empty table */
    for (i = 0; i < BACKENDS; i++) {
        const backend_case *b = &backends[i];
        outcome got = create_outcome(b, &o);
        if (got.result != b->empty || (b->empty_says && !strstr(got.message, b->empty_says)))
            fail_msg("%s, zeroed options, empty environment: %s: %s; want %s naming %s", b->name,
                     cres_result_string(got.result), got.message, cres_result_string(b->empty),
                     b->empty_says ? b->empty_says : "nothing");
    }
}

/* Documented: NULL options are all defaults, and so are a zeroed config and config NULL. */
static void creates_null_options_mean_zeroed(void **state) {
    any_options zeroed, zero_config;
    cres_config zero;
    size_t i;
    (void)state;
    memset(&zeroed, 0, sizeof zeroed);
    memset(&zero_config, 0, sizeof zero_config);
    memset(&zero, 0, sizeof zero);
    zero_config.head.config = &zero;
    for (i = 0; i < BACKENDS; i++) {
        outcome a = create_outcome(&backends[i], NULL);
        outcome b = create_outcome(&backends[i], &zeroed);
        outcome c = create_outcome(&backends[i], &zero_config);
        if (a.result != b.result || strcmp(a.message, b.message) != 0 || b.result != c.result ||
            strcmp(b.message, c.message) != 0)
            fail_msg("%s: options NULL gives %s \"%s\", zeroed %s \"%s\", a zeroed config %s "
                     "\"%s\"",
                     backends[i].name, cres_result_string(a.result), a.message,
                     cres_result_string(b.result), b.message, cres_result_string(c.result),
                     c.message);
    }
}

/* Ports out of range are the caller's mistake, named whatever the environment holds (the
   HPC backends' port_base below: they check it with the launcher's answer). */
static void creates_refuse_bad_ports(void **state) {
    static const int bad[] = {-1, 65536, INT_MIN, INT_MAX};
    any_options o;
    size_t i, k;
    (void)state;
    for (k = 0; k < sizeof bad / sizeof bad[0]; k++) {
        for (i = 0; i < BACKENDS; i++) {
            const backend_case *b = &backends[i];
            outcome got;
            memset(&o, 0, sizeof o);
            o.head.config = &cfg;
            if (b->create == create_local) o.local.port = bad[k];
            else if (b->create == create_k8s) o.k8s.port = bad[k];
            else if (b->create == create_gce) o.gce.port = bad[k], o.gce.instance_group = "g";
            else if (b->create == create_sagemaker) o.sagemaker.port = bad[k];
            else if (b->create == create_skypilot) o.skypilot.port = bad[k];
            else if (b->create == create_volcano) o.volcano.port = bad[k];
            else if (b->create == create_lws) o.lws.port = bad[k];
            else if (b->create == create_awsbatch) o.awsbatch.port = bad[k];
            else if (b->create == create_auto) o.autodetect.port = bad[k];
            else continue;
            got = create_outcome(b, &o);
            if (got.result != CRES_ERR_INVALID_ARGUMENT || !strstr(got.message, "port"))
                fail_msg("%s, port %d: %s: %s", b->name, bad[k], cres_result_string(got.result),
                         got.message);
        }
    }
}

/* The HPC backends' numbers out of range, in a step whose launcher answers. */
static void hpc_numbers_out_of_range(void **state) {
    cres_slurm_options o;
    (void)state;
    slurm_step();
    memset(&o, 0, sizeof o);
    o.config = &cfg;
    o.port_base = -1;
    FAILS_WITH(cres_slurm_resolver_create, o, CRES_ERR_INVALID_ARGUMENT, "port_base -1", NULL);
    o.port_base = 65536;
    FAILS_WITH(cres_slurm_resolver_create, o, CRES_ERR_INVALID_ARGUMENT, "port_base 65536", NULL);
    o.port_base = INT_MIN;
    FAILS_WITH(cres_slurm_resolver_create, o, CRES_ERR_INVALID_ARGUMENT, "port_base", NULL);
    o.port_base = 65535; /* two tasks on the node: the second's port would be past 65535 */
    FAILS_WITH(cres_slurm_resolver_create, o, CRES_ERR_ENVIRONMENT, "past 65535", NULL);
    o.port_base = 0;
    o.gpus_per_node = -2;
    FAILS_WITH(cres_slurm_resolver_create, o, CRES_ERR_INVALID_ARGUMENT, "gpus_per_node -2", NULL);
    o.gpus_per_node = 0;
    o.gpus_per_task = -1;
    FAILS_WITH(cres_slurm_resolver_create, o, CRES_ERR_INVALID_ARGUMENT, "gpus_per_task -1", NULL);
}

/* ---------------------------------------------------------------------------------------
   Launcher output */

static void launch(void **state) {
    cres_resolver *r = local();
    cres_launch_info info, again;
    cres_error err;
    (void)state;
    MISUSE_CASE(cres_launch);
    MISUSE_CASE(cres_launch_apply_env);
    BAD(CRES_ERR_INVALID_ARGUMENT, "resolver", cres_launch(NULL, &info, &err));
    BAD(CRES_ERR_INVALID_ARGUMENT, "out", cres_launch(r, NULL, &err));
    BAD(CRES_ERR_INVALID_ARGUMENT, "resolver", cres_launch_apply_env(NULL, &info, &err));
    BAD(CRES_ERR_INVALID_ARGUMENT, "info", cres_launch_apply_env(r, NULL, &err));
    assert_int_equal(cres_launch(NULL, NULL, NULL), CRES_ERR_INVALID_ARGUMENT);
    /* twice, then the answer applied again: the same */
    OK(cres_launch(r, &info, &err));
    OK(cres_launch(r, &again, &err));
    assert_memory_equal(&info, &again, sizeof info);
    OK(cres_launch_apply_env(r, &again, &err));
    assert_memory_equal(&info, &again, sizeof info);
    cres_resolver_free(r);
}

static cres_result tfconfig_text(void *x, char *buf, size_t cap, size_t *len, cres_error *err) {
    return cres_tfconfig((cres_resolver *)x, buf, cap, len, err);
}

static void tfconfig(void **state) {
    cres_resolver *r = local();
    char buf[256];
    (void)state;
    MISUSE_CASE(cres_tfconfig);
    BAD(CRES_ERR_INVALID_ARGUMENT, "resolver is NULL",
        cres_tfconfig(NULL, buf, sizeof buf, NULL, &err));
    assert_int_equal(cres_tfconfig(NULL, buf, sizeof buf, NULL, NULL), CRES_ERR_INVALID_ARGUMENT);
    CHECK_TEXT_CONTRACT(tfconfig_text, r);
    cres_resolver_free(r);
}

static void spec_launch_info(void **state) {
    cres_cluster_spec *s = two_workers();
    cres_launch_info info;
    cres_error err;
    (void)state;
    MISUSE_CASE(cres_spec_launch_info);
    BAD(CRES_ERR_INVALID_ARGUMENT, "spec", cres_spec_launch_info(NULL, "worker", 0, &info, &err));
    BAD(CRES_ERR_INVALID_ARGUMENT, "out", cres_spec_launch_info(s, "worker", 0, NULL, &err));
    BAD(CRES_ERR_INVALID_ARGUMENT, "task id -2",
        cres_spec_launch_info(s, "worker", -2, &info, &err));
    BAD(CRES_ERR_INVALID_ARGUMENT, "task id -1",
        cres_spec_launch_info(s, "worker", -1, &info, &err));
    BAD(CRES_ERR_NOT_FOUND, "\"worker\" 9", cres_spec_launch_info(s, "worker", 9, &info, &err));
    OK(cres_spec_launch_info(s, NULL, -7, &info, &err)); /* no task: the id is not read */
    assert_int_equal(info.world_size, 3);
    assert_int_equal(info.rank, CRES_UNKNOWN);
    cres_spec_free(s);
}

static cres_result hostfile_text(void *x, char *buf, size_t cap, size_t *len, cres_error *err) {
    return cres_spec_to_hostfile((const cres_cluster_spec *)x, buf, cap, len, err);
}

static cres_result machinefile_text(void *x, char *buf, size_t cap, size_t *len,
                                    cres_error *err) {
    return cres_spec_to_machinefile((const cres_cluster_spec *)x, buf, cap, len, err);
}

static cres_result spec_tfconfig_text(void *x, char *buf, size_t cap, size_t *len,
                                      cres_error *err) {
    return cres_spec_to_tfconfig((const cres_cluster_spec *)x, "worker", 1, NULL, NULL, buf, cap,
                                 len, err);
}

static void spec_outputs(void **state) {
    cres_cluster_spec *s = two_workers();
    char buf[256];
    cres_error err;
    (void)state;
    MISUSE_CASE(cres_spec_to_hostfile);
    MISUSE_CASE(cres_spec_to_machinefile);
    MISUSE_CASE(cres_spec_to_tfconfig);
    BAD(CRES_ERR_INVALID_ARGUMENT, "spec is NULL",
        cres_spec_to_hostfile(NULL, buf, sizeof buf, NULL, &err));
    BAD(CRES_ERR_INVALID_ARGUMENT, "spec is NULL",
        cres_spec_to_machinefile(NULL, buf, sizeof buf, NULL, &err));
    BAD(CRES_ERR_INVALID_ARGUMENT, "spec is NULL",
        cres_spec_to_tfconfig(NULL, "worker", 0, NULL, NULL, buf, sizeof buf, NULL, &err));
    BAD(CRES_ERR_INVALID_ARGUMENT, "task id -1",
        cres_spec_to_tfconfig(s, "worker", -1, NULL, NULL, buf, sizeof buf, NULL, &err));
    BAD(CRES_ERR_INVALID_ARGUMENT, "task id -2147483648",
        cres_spec_to_tfconfig(s, "worker", INT_MIN, NULL, NULL, buf, sizeof buf, NULL, &err));
    CHECK_TEXT_CONTRACT(hostfile_text, s);
    CHECK_TEXT_CONTRACT(machinefile_text, s);
    CHECK_TEXT_CONTRACT(spec_tfconfig_text, s);
    /* NULL strings are documented: no task, rpc layer and environment "" */
    OK(cres_spec_to_tfconfig(s, NULL, -5, NULL, NULL, buf, sizeof buf, NULL, &err));
    assert_string_equal(buf, dq("{'cluster': {'ps': {'3': 'c:3'}, 'worker': ['a:1', 'b:2']}, "
                                "'rpc_layer': '', 'environment': ''}"));
    cres_spec_free(s);
}

/* ---------------------------------------------------------------------------------------
   Slurm hostlists */

static cres_result hostlist_text(void *x, char *buf, size_t cap, size_t *len, cres_error *err) {
    return cres_hostlist_expand((const char *)x, buf, cap, len, NULL, err);
}

static void hostlist_expand(void **state) {
    char buf[64];
    size_t count = 99;
    cres_error err;
    (void)state;
    MISUSE_CASE(cres_hostlist_expand);
    BAD(CRES_ERR_INVALID_ARGUMENT, "hostlist is NULL",
        cres_hostlist_expand(NULL, buf, sizeof buf, NULL, &count, &err));
    assert_int_equal(count, 0);
    assert_int_equal(cres_hostlist_expand(NULL, NULL, 0, NULL, NULL, NULL),
                     CRES_ERR_INVALID_ARGUMENT);
    BAD(CRES_ERR_INVALID_ARGUMENT, "hostlist \"n[-1]\"",
        cres_hostlist_expand("n[-1]", buf, sizeof buf, NULL, &count, &err));
    CHECK_TEXT_CONTRACT(hostlist_text, (void *)(size_t)"n[1-3]");
    OK(cres_hostlist_expand("n[1-3]", NULL, 0, NULL, &count, &err));
    assert_int_equal(count, 3);
}

static void tasks_per_node_expand(void **state) {
    int counts[4] = {7, 7, 7, 7};
    size_t count = 99;
    cres_error err;
    (void)state;
    MISUSE_CASE(cres_tasks_per_node_expand);
    BAD(CRES_ERR_INVALID_ARGUMENT, "tasks-per-node is NULL",
        cres_tasks_per_node_expand(NULL, counts, 4, &count, &err));
    assert_int_equal(count, 0);
    BAD(CRES_ERR_INVALID_ARGUMENT, "counts is NULL but cap is 4",
        cres_tasks_per_node_expand("2(x3)", NULL, 4, &count, &err));
    BAD(CRES_ERR_INVALID_ARGUMENT, "\"-1\"",
        cres_tasks_per_node_expand("-1", counts, 4, &count, &err));
    BAD(CRES_ERR_INVALID_ARGUMENT, "\"2(x-3)\"",
        cres_tasks_per_node_expand("2(x-3)", counts, 4, &count, &err));
    BAD(CRES_ERR_INVALID_ARGUMENT, "\"2(x0)\"",
        cres_tasks_per_node_expand("2(x0)", counts, 4, &count, &err));
    /* cap 0 with an array: nothing written, the count given */
    BAD(CRES_ERR_BUFFER_TOO_SMALL, "the array has 0",
        cres_tasks_per_node_expand("2(x3)", counts, 0, &count, &err));
    assert_int_equal(count, 3);
    assert_int_equal(counts[0], 7);
    OK(cres_tasks_per_node_expand("2(x3)", NULL, 0, NULL, NULL));
}

/* ---------------------------------------------------------------------------------------
   Hooks left zero: the documented defaults */

/* A transport whose every request finds no server, counting them. */
static int requests;
static cres_result no_server(void *user, const cres_http_request *req, cres_http_response *resp,
                             const cres_allocator *alloc, cres_error *err) {
    (void)user;
    (void)alloc;
    requests++;
    resp->status = 0;
    return cres_error_set(err, CRES_ERR_TRANSPORT, "connect to %s refused", req->url);
}

static double now_ms(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1000.0 + (double)t.tv_nsec / 1e6;
}

/* allocator, log and sleep {0}: malloc, silence, the system's sleep */
static void zero_hooks_are_defaults(void **state) {
    cres_tfconfig_options t;
    cres_k8s_options k;
    cres_resolver *r = NULL;
    cres_cluster_spec *spec = NULL;
    cres_error err;
    double start;
    (void)state;
    memset(&t, 0, sizeof t);
    t.config = &cfg; /* zero but for getenv */
    t.json = dq("{'cluster': {'worker': ['a:1']}, 'task': {'type': 'worker', 'index': 0}}");
    OK(cres_tfconfig_resolver_create(&t, &r, &err)); /* logs at DEBUG: to no one */
    OK(cres_resolve(r, &spec, &err));
    assert_string_equal(json_of(spec), dq("{'worker': ['a:1']}"));
    cres_spec_free(spec);
    cres_resolver_free(r);
    /* sleep {0}: a retry waits for real (250 to 375 ms after a connection error) */
    cfg.transport.perform = no_server;
    cfg.max_retries = 1;
    memset(&k, 0, sizeof k);
    k.config = &cfg;
    k.server = "http://127.0.0.1:9";
    k.token = "t";
    OK(cres_k8s_resolver_create(&k, &r, &err));
    requests = 0;
    start = now_ms();
    BAD(CRES_ERR_TRANSPORT, "refused", cres_resolve(r, &spec, &err));
    assert_int_equal(requests, 2);
    assert_true(now_ms() - start >= 200.0);
    assert_null(spec);
    cres_resolver_free(r);
}

/* transport {0}: without CLUSTER_RESOLVER_USE_CURL, an HTTP resolve has none */
static void zero_transport_is_none(void **state) {
    cres_k8s_options k;
    cres_resolver *r = NULL;
    cres_cluster_spec *spec = NULL;
    cres_error err;
    (void)state;
    memset(&k, 0, sizeof k);
    k.config = &cfg;
    k.server = "http://127.0.0.1:9";
    k.token = "t";
    OK(cres_k8s_resolver_create(&k, &r, &err));
    BAD(CRES_ERR_NO_TRANSPORT, "transport", cres_resolve(r, &spec, &err));
    assert_null(spec);
    cres_resolver_free(r);
}

/* exec {0}: posix_spawnp runs a kubeconfig's exec plugin; one that is not there is named.
   The file is kubectl's kubeconfig (kubernetes.io/docs/reference/config-api/kubeconfig.v1/)
   with an exec user (client.authentication.k8s.io/v1beta1). */
static void zero_exec_is_posix_spawnp(void **state) {
    cres_k8s_options k;
    cres_resolver *r = NULL;
    cres_cluster_spec *spec = NULL;
    cres_error err;
    (void)state;
    cfg.transport.perform = no_server;
    memset(&k, 0, sizeof k);
    k.config = &cfg;
    k.kubeconfig = temp_file(dq(
        "{'apiVersion': 'v1', 'kind': 'Config', 'current-context': 'x', "
        "'clusters': [{'name': 'x', 'cluster': {'server': 'https://127.0.0.1:9'}}], "
        "'users': [{'name': 'x', 'user': {'exec': {'apiVersion': "
        "'client.authentication.k8s.io/v1beta1', 'command': '/nonexistent/cres-misuse-plugin'}}}], "
        "'contexts': [{'name': 'x', 'context': {'cluster': 'x', 'user': 'x'}}]}"));
    OK(cres_k8s_resolver_create(&k, &r, &err));
    requests = 0;
    BAD(CRES_ERR_ENVIRONMENT, "/nonexistent/cres-misuse-plugin", cres_resolve(r, &spec, &err));
    assert_int_equal(requests, 0);
    cres_resolver_free(r);
}

/* sign {0} without CLUSTER_RESOLVER_USE_OPENSSL: a service-account key cannot be used, and
   the message names both ways out, before any request. The key file has the fields of
   Google's service-account keys (cloud.google.com/iam/docs/keys-create-delete). */
static void zero_sign_is_none(void **state) {
    cres_gce_options g;
    cres_resolver *r = NULL;
    cres_cluster_spec *spec = NULL;
    cres_error err;
    (void)state;
    cfg.transport.perform = no_server;
    memset(&g, 0, sizeof g);
    g.config = &cfg;
    g.instance_group = "trainers";
    g.project = "p";
    g.zone = "us-central1-a";
    g.instance_name = "trainer-1";
    g.metadata_url = "http://127.0.0.1:9";
    g.credentials_file = temp_file(dq(
        "{'type': 'service_account', 'project_id': 'p', 'private_key_id': '0123abcd', "
        "'private_key': '-----BEGIN PRIVATE KEY-----\\nMIIE\\n-----END PRIVATE KEY-----\\n', "
        "'client_email': 'trainer@p.iam.gserviceaccount.com', "
        "'token_uri': 'https://oauth2.googleapis.com/token'}"));
    OK(cres_gce_resolver_create(&g, &r, &err));
    requests = 0;
    stale(&err);
    check_at(cres_resolve(r, &spec, &err), &err, CRES_ERR_UNSUPPORTED, "config.sign", __LINE__);
    HAS(err.message, "CLUSTER_RESOLVER_USE_OPENSSL");
    assert_int_equal(requests, 0);
    cres_resolver_free(r);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup(result_strings, setup),
        cmocka_unit_test_setup(error_set, setup),
        cmocka_unit_test_setup(spec_create_and_free, setup),
        cmocka_unit_test_setup(spec_add_task, setup),
        cmocka_unit_test_setup(spec_add_job, setup),
        cmocka_unit_test_setup(spec_readers, setup),
        cmocka_unit_test_setup(spec_equal, setup),
        cmocka_unit_test_setup(spec_clone, setup),
        cmocka_unit_test_setup(spec_merge, setup),
        cmocka_unit_test_setup(spec_from_json, setup),
        cmocka_unit_test_setup(spec_to_json, setup),
        cmocka_unit_test_setup(resolve, setup),
        cmocka_unit_test_setup(master, setup),
        cmocka_unit_test_setup(accelerators, setup),
        cmocka_unit_test_setup(visible_devices, setup),
        cmocka_unit_test_setup(getters, setup),
        cmocka_unit_test_setup(set_task, setup),
        cmocka_unit_test_setup(set_detected_task, setup),
        cmocka_unit_test_setup(set_rpc_layer_and_environment, setup),
        cmocka_unit_test_setup(resolver_environment, setup),
        cmocka_unit_test_setup(creates_refuse_null_out, setup),
        cmocka_unit_test_setup(creates_with_zeroed_options, setup),
        cmocka_unit_test_setup(creates_null_options_mean_zeroed, setup),
        cmocka_unit_test_setup(creates_refuse_bad_ports, setup),
        cmocka_unit_test_setup(hpc_numbers_out_of_range, setup),
        cmocka_unit_test_setup(launch, setup),
        cmocka_unit_test_setup(tfconfig, setup),
        cmocka_unit_test_setup(spec_launch_info, setup),
        cmocka_unit_test_setup(spec_outputs, setup),
        cmocka_unit_test_setup(hostlist_expand, setup),
        cmocka_unit_test_setup(tasks_per_node_expand, setup),
        cmocka_unit_test_setup(zero_hooks_are_defaults, setup),
        cmocka_unit_test_setup(zero_transport_is_none, setup),
        cmocka_unit_test_setup(zero_exec_is_posix_spawnp, setup),
        cmocka_unit_test_setup(zero_sign_is_none, setup),
    };
    return cmocka_run_group_tests_name("C API misuse", tests, NULL, remove_temp_files);
}
