/* Unit tests for the cluster spec API of cluster_resolver.h: building, reading, comparing,
   cloning and merging specs, JSON in and out, and the launcher outputs (launch info,
   hostfile, TF_CONFIG). Cases named CSn / Un mirror TensorFlow's tests as listed in
   reference/tf-resolvers.md section 4. */

#include "test_util.h"

/* ---------------------------------------------------------------------------------------
   Helpers of this file (the shared ones are in test_util.h). */

static cres_cluster_spec *empty_spec(void) {
    cres_cluster_spec *s = NULL;
    cres_error err;
    OK(cres_spec_create(NULL, &s, &err));
    return s;
}

/* Parses bad JSON (exact bytes), checks the code, that nothing came back, and the message. */
static void expect_bad_bytes(const char *json, size_t len, cres_result want, const char *sub,
                             int line) {
    static int sentinel;
    cres_cluster_spec *s = (cres_cluster_spec *)(void *)&sentinel;
    cres_error err;
    cres_result got = cres_spec_from_json(json, len, NULL, &s, &err);
    if (got == CRES_OK) cres_spec_free(s); /* so that a failure here leaks nothing */
    if (got != want)
        fail_msg("line %d: got %s, want %s: %s", line, cres_result_string(got), cres_result_string(want),
                 err.message);
    if (got != CRES_OK && s) fail_msg("line %d: a spec came back on failure", line);
    if (err.result != want) fail_msg("line %d: err.result is %d", line, (int)err.result);
    if (!strstr(err.message, sub)) fail_msg("line %d: \"%s\" does not contain \"%s\"", line, err.message, sub);
}
#define BAD_JSON(sq, want, sub) expect_bad_bytes(dq(sq), strlen(dq(sq)), (want), (sub), __LINE__)

/* An allocator that counts, to check that objects use and release the one they were given. */
typedef struct counter {
    long live, total;
} counter;

static void *count_alloc(void *user, size_t n) {
    counter *c = (counter *)user;
    c->live++;
    c->total++;
    return malloc(n);
}

static void count_free(void *user, void *p) {
    counter *c = (counter *)user;
    c->live--;
    free(p);
}

/* A string of n copies of ch, NUL-terminated; the caller frees it. */
static char *repeat(char ch, size_t n) {
    char *s = (char *)malloc(n + 1);
    assert_non_null(s);
    memset(s, ch, n);
    s[n] = '\0';
    return s;
}

/* ---------------------------------------------------------------------------------------
   Create and free */

static void create_gives_empty_spec(void **state) {
    cres_cluster_spec *s = empty_spec();
    (void)state;
    assert_int_equal(cres_spec_jobs_count(s), 0);
    assert_null(cres_spec_job_at(s, 0));
    assert_string_equal(json_of(s), "{}");
    cres_spec_free(s);
}

static void create_rejects_null_out(void **state) {
    cres_error err;
    (void)state;
    EXPECT(cres_spec_create(NULL, NULL, &err), CRES_ERR_INVALID_ARGUMENT);
    assert_int_equal(err.result, CRES_ERR_INVALID_ARGUMENT);
}

static void create_rejects_half_allocator(void **state) {
    counter c = {0, 0};
    cres_allocator a = {count_alloc, NULL, NULL};
    cres_cluster_spec *s = NULL;
    cres_error err;
    (void)state;
    a.user = &c;
    EXPECT(cres_spec_create(&a, &s, &err), CRES_ERR_INVALID_ARGUMENT);
    assert_null(s);
    HAS(err.message, "allocator");
    assert_int_equal(c.total, 0);
}

static void free_accepts_null(void **state) {
    (void)state;
    cres_spec_free(NULL);
}

static void error_argument_may_be_null(void **state) {
    cres_cluster_spec *s = empty_spec();
    (void)state;
    assert_int_equal(cres_spec_add_task(s, "", 0, "a:1", NULL), CRES_ERR_INVALID_ARGUMENT);
    assert_int_equal(cres_spec_add_task(s, "w", 0, "a:1", NULL), CRES_OK);
    assert_int_equal(cres_spec_add_task(s, "w", 0, "a:1", NULL), CRES_ERR_CONFLICT);
    cres_spec_free(s);
}

static void custom_allocator_is_used_and_balanced(void **state) {
    counter c = {0, 0};
    cres_allocator a;
    cres_cluster_spec *s = NULL, *copy = NULL, *other;
    char buf[256];
    cres_error err;
    (void)state;
    a.alloc = count_alloc;
    a.free = count_free;
    a.user = &c;
    OK(cres_spec_create(&a, &s, &err));
    OK(cres_spec_add_task(s, "worker", 0, "w0:1", &err));
    OK(cres_spec_add_task(s, "ps", 3, "p3:1", &err));
    OK(cres_spec_clone(s, &a, &copy, &err));
    other = parse("{'worker': ['w1:1'], 'chief': ['c:1']}");
    OK(cres_spec_merge(s, other, &err));
    OK(cres_spec_to_hostfile(s, buf, sizeof buf, NULL, &err));
    assert_true(c.total > 0);
    assert_true(c.live > 0);
    cres_spec_free(s);
    cres_spec_free(copy);
    cres_spec_free(other);
    assert_int_equal(c.live, 0);
}

/* ---------------------------------------------------------------------------------------
   add_task / add_job */

static void add_task_keeps_jobs_sorted_by_name(void **state) {
    cres_cluster_spec *s = empty_spec();
    cres_error err;
    (void)state;
    OK(cres_spec_add_task(s, "worker", 0, "w0:1", &err));
    OK(cres_spec_add_task(s, "chief", 0, "c0:1", &err));
    OK(cres_spec_add_task(s, "ps", 0, "p0:1", &err));
    assert_int_equal(cres_spec_jobs_count(s), 3);
    assert_string_equal(cres_spec_job_at(s, 0)->name, "chief");
    assert_string_equal(cres_spec_job_at(s, 1)->name, "ps");
    assert_string_equal(cres_spec_job_at(s, 2)->name, "worker");
    cres_spec_free(s);
}

static void add_task_keeps_tasks_sorted_by_index(void **state) {
    cres_cluster_spec *s = empty_spec();
    const cres_job *j;
    cres_error err;
    (void)state;
    OK(cres_spec_add_task(s, "worker", 5, "w5:1", &err));
    OK(cres_spec_add_task(s, "worker", 0, "w0:1", &err));
    OK(cres_spec_add_task(s, "worker", 3, "w3:1", &err));
    j = cres_spec_job(s, "worker");
    assert_non_null(j);
    assert_int_equal(j->tasks_count, 3);
    assert_int_equal(j->tasks[0].index, 0);
    assert_int_equal(j->tasks[1].index, 3);
    assert_int_equal(j->tasks[2].index, 5);
    assert_string_equal(j->tasks[0].address, "w0:1");
    assert_string_equal(j->tasks[1].address, "w3:1");
    assert_string_equal(j->tasks[2].address, "w5:1");
    cres_spec_free(s);
}

static void add_task_duplicate_index_is_conflict(void **state) {
    cres_cluster_spec *s = empty_spec();
    cres_error err;
    (void)state;
    OK(cres_spec_add_task(s, "worker", 3, "first:1", &err));
    EXPECT(cres_spec_add_task(s, "worker", 3, "second:1", &err), CRES_ERR_CONFLICT);
    HAS(err.message, "\"worker\"");
    HAS(err.message, "3");
    assert_int_equal(cres_spec_tasks_count(s, "worker"), 1);
    assert_string_equal(cres_spec_task_address(s, "worker", 3), "first:1");
    cres_spec_free(s);
}

static void add_task_rejects_negative_index(void **state) {
    cres_cluster_spec *s = empty_spec();
    cres_error err;
    (void)state;
    EXPECT(cres_spec_add_task(s, "worker", -1, "w:1", &err), CRES_ERR_INVALID_ARGUMENT);
    HAS(err.message, "worker");
    HAS(err.message, "-1");
    assert_int_equal(cres_spec_jobs_count(s), 0);
    cres_spec_free(s);
}

static void add_task_accepts_int_max_index(void **state) {
    cres_cluster_spec *s = empty_spec();
    cres_error err;
    (void)state;
    OK(cres_spec_add_task(s, "worker", INT_MAX, "w:1", &err));
    assert_string_equal(cres_spec_task_address(s, "worker", INT_MAX), "w:1");
    assert_string_equal(json_of(s), dq("{'worker': {'2147483647': 'w:1'}}"));
    cres_spec_free(s);
}

static void add_task_rejects_bad_job_names(void **state) {
    /* the last three are not UTF-8: a lone continuation byte, a truncated sequence, an
       overlong encoding; to_json could not write them back as valid JSON */
    static const char *const bad[] = {"", "a\tb", "new\nline", "del\x7f", "w\xff", "w\xc3", "w\xc0\xaf"};
    cres_cluster_spec *s = empty_spec();
    cres_error err;
    size_t i;
    (void)state;
    EXPECT(cres_spec_add_task(s, NULL, 0, "a:1", &err), CRES_ERR_INVALID_ARGUMENT);
    HAS(err.message, "job name is NULL");
    for (i = 0; i < sizeof bad / sizeof *bad; i++) {
        EXPECT(cres_spec_add_task(s, bad[i], 0, "a:1", &err), CRES_ERR_INVALID_ARGUMENT);
        HAS(err.message, "job name");
    }
    assert_int_equal(cres_spec_jobs_count(s), 0);
    cres_spec_free(s);
}

static void add_task_job_name_limit_is_255_bytes(void **state) {
    cres_cluster_spec *s = empty_spec();
    char *ok = repeat('j', 255), *long_name = repeat('j', 256);
    cres_error err;
    (void)state;
    OK(cres_spec_add_task(s, ok, 0, "a:1", &err));
    EXPECT(cres_spec_add_task(s, long_name, 0, "a:1", &err), CRES_ERR_LIMIT);
    HAS(err.message, "256");
    HAS(err.message, "255");
    assert_int_equal(cres_spec_jobs_count(s), 1);
    free(ok);
    free(long_name);
    cres_spec_free(s);
}

static void add_task_rejects_bad_addresses(void **state) {
    static const char *const bad[] = {"", "a b:1", "tab\t:1", "nl\n:1", "del\x7f:1", "h\xed\xa0\x80:1"};
    cres_cluster_spec *s = empty_spec();
    cres_error err;
    size_t i;
    (void)state;
    EXPECT(cres_spec_add_task(s, "worker", 2, NULL, &err), CRES_ERR_INVALID_ARGUMENT);
    HAS(err.message, "address is NULL");
    for (i = 0; i < sizeof bad / sizeof *bad; i++) {
        EXPECT(cres_spec_add_task(s, "worker", 2, bad[i], &err), CRES_ERR_INVALID_ARGUMENT);
        HAS(err.message, "\"worker\"");
        HAS(err.message, "task 2");
    }
    assert_int_equal(cres_spec_jobs_count(s), 0);
    cres_spec_free(s);
}

static void add_task_address_limit_is_1023_bytes(void **state) {
    cres_cluster_spec *s = empty_spec();
    char *ok = repeat('a', 1023), *too_long = repeat('a', 1024);
    cres_error err;
    (void)state;
    OK(cres_spec_add_task(s, "worker", 0, ok, &err));
    EXPECT(cres_spec_add_task(s, "worker", 1, too_long, &err), CRES_ERR_LIMIT);
    HAS(err.message, "1024");
    HAS(err.message, "worker");
    assert_int_equal(cres_spec_tasks_count(s, "worker"), 1);
    free(ok);
    free(too_long);
    cres_spec_free(s);
}

static void add_task_copies_strings(void **state) {
    cres_cluster_spec *s = empty_spec();
    char job[] = "worker", addr[] = "host:1";
    cres_error err;
    (void)state;
    OK(cres_spec_add_task(s, job, 0, addr, &err));
    job[0] = 'X';
    addr[0] = 'X';
    assert_string_equal(cres_spec_job_at(s, 0)->name, "worker");
    assert_string_equal(cres_spec_task_address(s, "worker", 0), "host:1");
    cres_spec_free(s);
}

static void add_task_rejects_null_spec(void **state) {
    cres_error err;
    (void)state;
    EXPECT(cres_spec_add_task(NULL, "w", 0, "a:1", &err), CRES_ERR_INVALID_ARGUMENT);
    EXPECT(cres_spec_add_job(NULL, "w", NULL, 0, &err), CRES_ERR_INVALID_ARGUMENT);
}

static void add_job_adds_dense_tasks(void **state) {
    static const char *const addrs[] = {"w0:1", "w1:1", "w2:1"};
    cres_cluster_spec *s = empty_spec();
    const cres_job *j;
    cres_error err;
    (void)state;
    OK(cres_spec_add_job(s, "worker", addrs, 3, &err));
    j = cres_spec_job(s, "worker");
    assert_non_null(j);
    assert_int_equal(j->tasks_count, 3);
    assert_int_equal(j->tasks[2].index, 2);
    assert_string_equal(j->tasks[2].address, "w2:1");
    assert_string_equal(json_of(s), dq("{'worker': ['w0:1', 'w1:1', 'w2:1']}"));
    cres_spec_free(s);
}

static void add_job_count_zero_makes_empty_job(void **state) {
    cres_cluster_spec *s = empty_spec();
    cres_error err;
    (void)state;
    OK(cres_spec_add_job(s, "worker", NULL, 0, &err));
    assert_int_equal(cres_spec_jobs_count(s), 1);
    assert_non_null(cres_spec_job(s, "worker"));
    assert_int_equal(cres_spec_job(s, "worker")->tasks_count, 0);
    assert_int_equal(cres_spec_tasks_count(s, "worker"), 0);
    /* count 0 again, and into a job that has tasks: nothing changes */
    OK(cres_spec_add_job(s, "worker", NULL, 0, &err));
    OK(cres_spec_add_task(s, "worker", 0, "w0:1", &err));
    OK(cres_spec_add_job(s, "worker", NULL, 0, &err));
    assert_string_equal(json_of(s), dq("{'worker': ['w0:1']}"));
    cres_spec_free(s);
}

static void add_job_rejects_null_addresses(void **state) {
    cres_cluster_spec *s = empty_spec();
    cres_error err;
    (void)state;
    EXPECT(cres_spec_add_job(s, "worker", NULL, 2, &err), CRES_ERR_INVALID_ARGUMENT);
    HAS(err.message, "addresses");
    EXPECT(cres_spec_add_job(s, "", NULL, 0, &err), CRES_ERR_INVALID_ARGUMENT); /* the name first */
    HAS(err.message, "job name is empty");
    assert_int_equal(cres_spec_jobs_count(s), 0);
    cres_spec_free(s);
}

static void add_job_bad_address_adds_nothing(void **state) {
    static const char *const addrs[] = {"w0:1", ""};
    cres_cluster_spec *s = empty_spec();
    cres_error err;
    (void)state;
    EXPECT(cres_spec_add_job(s, "worker", addrs, 2, &err), CRES_ERR_INVALID_ARGUMENT);
    HAS(err.message, "task 1");
    assert_int_equal(cres_spec_jobs_count(s), 0);
    cres_spec_free(s);
}

static void add_job_into_existing_task_conflicts(void **state) {
    static const char *const addrs[] = {"other:1"};
    cres_cluster_spec *s = empty_spec();
    cres_error err;
    (void)state;
    OK(cres_spec_add_task(s, "worker", 0, "w0:1", &err));
    EXPECT(cres_spec_add_job(s, "worker", addrs, 1, &err), CRES_ERR_CONFLICT);
    HAS(err.message, "worker");
    assert_string_equal(cres_spec_task_address(s, "worker", 0), "w0:1");
    cres_spec_free(s);
}

/* Header 4: on failure nothing is left behind, so a conflicting add_job adds no task. */
static void add_job_conflict_adds_nothing(void **state) {
    static const char *const addrs[] = {"a:1", "b:1", "c:1"};
    cres_cluster_spec *s = empty_spec();
    cres_error err;
    (void)state;
    OK(cres_spec_add_task(s, "worker", 2, "w2:1", &err));
    EXPECT(cres_spec_add_job(s, "worker", addrs, 3, &err), CRES_ERR_CONFLICT);
    HAS(err.message, "task 2");
    assert_int_equal(cres_spec_tasks_count(s, "worker"), 1);
    assert_string_equal(json_of(s), dq("{'worker': {'2': 'w2:1'}}"));
    cres_spec_free(s);
}

/* ---------------------------------------------------------------------------------------
   Lookups */

#define CS4 "{'ps': ['ps0:2222', 'ps1:2222'], 'worker': ['worker0:2222', 'worker1:2222', " \
            "'worker2:2222'], 'sparse': {'0': 'sparse0:2222', '3': 'sparse3:2222'}}"

/* TF CS4 */
static void lookups_cs4_num_tasks(void **state) {
    cres_cluster_spec *s = parse(CS4);
    (void)state;
    assert_int_equal(cres_spec_tasks_count(s, "ps"), 2);
    assert_int_equal(cres_spec_tasks_count(s, "worker"), 3);
    assert_int_equal(cres_spec_tasks_count(s, "sparse"), 2); /* defined tasks, not max + 1 */
    assert_int_equal(cres_spec_tasks_count(s, "unknown"), 0);
    assert_null(cres_spec_job(s, "unknown"));
    cres_spec_free(s);
}

/* TF CS4 */
static void lookups_cs4_task_address(void **state) {
    cres_cluster_spec *s = parse(CS4);
    (void)state;
    assert_string_equal(cres_spec_task_address(s, "ps", 0), "ps0:2222");
    assert_string_equal(cres_spec_task_address(s, "sparse", 0), "sparse0:2222");
    assert_string_equal(cres_spec_task_address(s, "sparse", 3), "sparse3:2222");
    assert_null(cres_spec_task_address(s, "unknown", 0));
    assert_null(cres_spec_task_address(s, "sparse", 2));
    assert_null(cres_spec_task_address(s, "ps", -1));
    cres_spec_free(s);
}

/* TF CS4: task_indices('sparse') == [0, 3] */
static void lookups_cs4_task_indices(void **state) {
    cres_cluster_spec *s = parse(CS4);
    const cres_job *j = cres_spec_job(s, "sparse");
    (void)state;
    assert_non_null(j);
    assert_int_equal(j->tasks_count, 2);
    assert_int_equal(j->tasks[0].index, 0);
    assert_int_equal(j->tasks[1].index, 3);
    assert_string_equal(cres_spec_job_at(s, 1)->name, "sparse"); /* sorted: ps, sparse, worker */
    cres_spec_free(s);
}

static void lookups_out_of_range_and_null(void **state) {
    cres_cluster_spec *s = parse("{'worker': ['w:1']}");
    (void)state;
    assert_null(cres_spec_job_at(s, 1));
    assert_null(cres_spec_job(s, NULL));
    assert_null(cres_spec_task_address(s, NULL, 0));
    assert_int_equal(cres_spec_jobs_count(NULL), 0);
    assert_null(cres_spec_job_at(NULL, 0));
    assert_null(cres_spec_job(NULL, "worker"));
    assert_null(cres_spec_task_address(NULL, "worker", 0));
    assert_int_equal(cres_spec_tasks_count(NULL, "worker"), 0);
    cres_spec_free(s);
}

/* ---------------------------------------------------------------------------------------
   Equality */

static int equal_json(const char *a, const char *b) {
    cres_cluster_spec *x = parse(a), *y = parse(b);
    int eq = cres_spec_equal(x, y);
    assert_int_equal(eq, cres_spec_equal(y, x));
    cres_spec_free(x);
    cres_spec_free(y);
    return eq;
}

/* TF CS7 */
static void equal_cs7(void **state) {
    (void)state;
    assert_true(equal_json("{}", "{}"));
    assert_true(equal_json("{'job': ['host:2222']}", "{'job': ['host:2222']}"));
    assert_true(equal_json("{'job': {'0': 'host:2222'}}", "{'job': ['host:2222']}"));
}

/* TF CS8 */
static void not_equal_cs8(void **state) {
    (void)state;
    assert_false(equal_json("{}", "{'job': ['host:2223']}"));
    assert_false(equal_json("{'job1': ['host:2222']}", "{'job2': ['host:2222']}"));
    assert_false(equal_json("{'job': ['host:2222']}", "{'job': ['host:2223']}"));
    assert_false(equal_json("{'job': ['host:2222', 'host:2223']}", "{'job': ['host:2223', 'host:2222']}"));
}

static void equal_dense_and_sparse_with_same_indices(void **state) {
    (void)state;
    assert_true(equal_json("{'w': ['a:1', 'b:1']}", "{'w': {'1': 'b:1', '0': 'a:1'}}"));
    assert_false(equal_json("{'w': ['a:1']}", "{'w': {'1': 'a:1'}}"));
}

static void empty_job_is_not_missing_job(void **state) {
    (void)state;
    assert_false(equal_json("{'ps': ['p:1'], 'worker': []}", "{'ps': ['p:1']}"));
    assert_true(equal_json("{'worker': []}", "{'worker': {}}"));
}

static void equal_handles_null(void **state) {
    cres_cluster_spec *s = empty_spec();
    (void)state;
    assert_true(cres_spec_equal(NULL, NULL));
    assert_false(cres_spec_equal(s, NULL));
    assert_false(cres_spec_equal(NULL, s));
    cres_spec_free(s);
}

/* ---------------------------------------------------------------------------------------
   Clone */

#define CS2 "{'ps': ['ps0:2222', 'ps1:2222'], 'worker': ['worker0:2222', 'worker1:2222', 'worker2:2222']}"

/* TF CS2: identical after copy */
static void clone_is_equal_and_independent(void **state) {
    cres_cluster_spec *s = parse(CS2), *copy = NULL;
    cres_error err;
    (void)state;
    OK(cres_spec_clone(s, NULL, &copy, &err));
    assert_true(cres_spec_equal(s, copy));
    OK(cres_spec_add_task(s, "worker", 9, "new:1", &err));
    assert_false(cres_spec_equal(s, copy));
    assert_int_equal(cres_spec_tasks_count(copy, "worker"), 3);
    assert_string_equal(json_of(copy), dq(CS2));
    cres_spec_free(s);
    cres_spec_free(copy);
}

static void clone_keeps_empty_and_sparse_jobs(void **state) {
    cres_cluster_spec *s = parse("{'a': [], 'b': {'4': 'b4:1'}}"), *copy = NULL;
    cres_error err;
    (void)state;
    OK(cres_spec_clone(s, NULL, &copy, &err));
    assert_true(cres_spec_equal(s, copy));
    assert_string_equal(json_of(copy), dq("{'a': [], 'b': {'4': 'b4:1'}}"));
    cres_spec_free(s);
    cres_spec_free(copy);
}

static void clone_rejects_null(void **state) {
    cres_cluster_spec *copy = NULL, *s = empty_spec();
    cres_error err;
    (void)state;
    EXPECT(cres_spec_clone(NULL, NULL, &copy, &err), CRES_ERR_INVALID_ARGUMENT);
    assert_null(copy);
    EXPECT(cres_spec_clone(s, NULL, NULL, &err), CRES_ERR_INVALID_ARGUMENT);
    cres_spec_free(s);
}

static void clone_uses_given_allocator(void **state) {
    counter c = {0, 0};
    cres_allocator a;
    cres_cluster_spec *s = parse(CS2), *copy = NULL;
    cres_error err;
    (void)state;
    a.alloc = count_alloc;
    a.free = count_free;
    a.user = &c;
    OK(cres_spec_clone(s, &a, &copy, &err));
    assert_true(c.live > 0);
    cres_spec_free(s); /* the source's default allocator is not the copy's */
    assert_true(c.live > 0);
    cres_spec_free(copy);
    assert_int_equal(c.live, 0);
}

/* ---------------------------------------------------------------------------------------
   Merge (TensorFlow's Union rules) */

static cres_result merge_json(const char *dst_sq, const char *src_sq, cres_cluster_spec **out,
                              cres_error *err) {
    cres_cluster_spec *src = parse(src_sq);
    cres_result r;
    *out = parse(dst_sq);
    r = cres_spec_merge(*out, src, err);
    cres_spec_free(src);
    return r;
}

/* TF U10 */
static void merge_u10_dense_jobs_concatenate(void **state) {
    cres_cluster_spec *s;
    cres_error err;
    (void)state;
    OK(merge_json("{'worker': ['worker4:2222', 'worker5:2222']}",
                  "{'worker': ['worker0:2222', 'worker1:2222', 'worker2:2222']}", &s, &err));
    assert_string_equal(json_of(s), dq("{'worker': ['worker4:2222', 'worker5:2222', 'worker0:2222', "
                                       "'worker1:2222', 'worker2:2222']}"));
    cres_spec_free(s);
}

/* TF U11: TF raises KeyError; we return CRES_ERR_CONFLICT naming job and index. */
static void merge_u11_sparse_collision_conflicts(void **state) {
    cres_cluster_spec *s;
    cres_error err;
    (void)state;
    EXPECT(merge_json("{'worker': {'7': 'worker4:2222', '9': 'worker5:2222'}}",
                      "{'worker': {'3': 'worker0:2222', '6': 'worker1:2222', '7': 'worker2:2222'}}", &s, &err),
           CRES_ERR_CONFLICT);
    HAS(err.message, "\"worker\"");
    HAS(err.message, "7");
    assert_int_equal(err.result, CRES_ERR_CONFLICT);
    cres_spec_free(s);
}

/* TF U12: a dense job counts from 0, so key 1 collides. */
static void merge_u12_dense_and_sparse_collide(void **state) {
    cres_cluster_spec *s;
    cres_error err;
    (void)state;
    EXPECT(merge_json("{'worker': ['worker4:2222', 'worker5:2222']}",
                      "{'worker': {'1': 'worker0:2222', '2': 'worker1:2222', '3': 'worker2:2222'}}", &s, &err),
           CRES_ERR_CONFLICT);
    HAS(err.message, "worker");
    HAS(err.message, "task 1");
    cres_spec_free(s);
}

/* TF U13 */
static void merge_u13_sparse_jobs_interleave(void **state) {
    cres_cluster_spec *s;
    cres_error err;
    (void)state;
    OK(merge_json("{'worker': {'5': 'worker4:2222', '9': 'worker5:2222'}}",
                  "{'worker': {'3': 'worker0:2222', '6': 'worker1:2222', '7': 'worker2:2222'}}", &s, &err));
    assert_string_equal(json_of(s), dq("{'worker': {'3': 'worker0:2222', '5': 'worker4:2222', "
                                       "'6': 'worker1:2222', '7': 'worker2:2222', '9': 'worker5:2222'}}"));
    cres_spec_free(s);
}

/* TF U14 */
static void merge_u14_dense_then_sparse_keeps_indices(void **state) {
    cres_cluster_spec *s;
    cres_error err;
    (void)state;
    OK(merge_json("{'worker': ['worker4:2222', 'worker5:2222']}",
                  "{'worker': {'3': 'worker0:2222', '6': 'worker1:2222', '7': 'worker2:2222'}}", &s, &err));
    assert_string_equal(json_of(s), dq("{'worker': {'0': 'worker4:2222', '1': 'worker5:2222', "
                                       "'3': 'worker0:2222', '6': 'worker1:2222', '7': 'worker2:2222'}}"));
    cres_spec_free(s);
}

/* TF U15 (merged into an empty spec) */
static void merge_u15_sparse_into_empty_is_unchanged(void **state) {
    cres_cluster_spec *s;
    cres_error err;
    (void)state;
    OK(merge_json("{}", "{'worker': {'1': 'worker0:2222', '3': 'worker1:2222', '5': 'worker2:2222'}}", &s, &err));
    assert_string_equal(json_of(s), dq("{'worker': {'1': 'worker0:2222', '3': 'worker1:2222', '5': 'worker2:2222'}}"));
    cres_spec_free(s);
}

static void merge_sparse_then_dense_counts_from_zero(void **state) {
    cres_cluster_spec *s;
    cres_error err;
    (void)state;
    OK(merge_json("{'worker': {'3': 'a:1'}}", "{'worker': ['b:1', 'c:1']}", &s, &err));
    assert_string_equal(json_of(s), dq("{'worker': {'0': 'b:1', '1': 'c:1', '3': 'a:1'}}"));
    cres_spec_free(s);
}

static void merge_conflict_leaves_dst_unchanged(void **state) {
    cres_cluster_spec *s, *before = NULL;
    cres_error err;
    (void)state;
    /* "a" would be added before the conflict in "worker" is found */
    EXPECT(merge_json("{'worker': {'7': 'w7:1'}, 'ps': ['p:1']}", "{'a': ['a:1'], 'ps': ['p2:1'], 'worker': {'7': 'x:1'}}",
                      &s, &err),
           CRES_ERR_CONFLICT);
    before = parse("{'worker': {'7': 'w7:1'}, 'ps': ['p:1']}");
    assert_true(cres_spec_equal(s, before));
    assert_null(cres_spec_job(s, "a"));
    assert_string_equal(cres_spec_task_address(s, "worker", 7), "w7:1");
    cres_spec_free(s);
    cres_spec_free(before);
}

/* Section 5 (TF bug 8): TF's empty job forces dict mode, so [] + [a, b] + [c] raises there. */
static void merge_empty_job_then_lists_concatenate(void **state) {
    cres_cluster_spec *s, *c = parse("{'worker': ['c:1']}");
    cres_error err;
    (void)state;
    OK(merge_json("{'worker': []}", "{'worker': ['a:1', 'b:1']}", &s, &err));
    OK(cres_spec_merge(s, c, &err));
    assert_string_equal(json_of(s), dq("{'worker': ['a:1', 'b:1', 'c:1']}"));
    cres_spec_free(s);
    cres_spec_free(c);
}

static void merge_list_then_empty_job_keeps_list(void **state) {
    cres_cluster_spec *s;
    cres_error err;
    (void)state;
    OK(merge_json("{'worker': ['a:1']}", "{'worker': [], 'ps': []}", &s, &err));
    assert_string_equal(json_of(s), dq("{'ps': [], 'worker': ['a:1']}"));
    cres_spec_free(s);
}

/* TF U8 at the spec level: different jobs are put side by side, sorted by name. */
static void merge_disjoint_jobs(void **state) {
    cres_cluster_spec *s;
    cres_error err;
    (void)state;
    OK(merge_json("{'worker': ['worker0:2222', 'worker1:2222', 'worker2:2222']}", "{'ps': ['ps0:2222', 'ps1:2222']}",
                  &s, &err));
    assert_string_equal(json_of(s), dq(CS2));
    cres_spec_free(s);
}

static void merge_rejects_null(void **state) {
    cres_cluster_spec *s = empty_spec();
    cres_error err;
    (void)state;
    EXPECT(cres_spec_merge(NULL, s, &err), CRES_ERR_INVALID_ARGUMENT);
    EXPECT(cres_spec_merge(s, NULL, &err), CRES_ERR_INVALID_ARGUMENT);
    cres_spec_free(s);
}

/* ---------------------------------------------------------------------------------------
   JSON in and out */

/* TF CS1 (our form of str(): JSON with jobs sorted by name) */
static void json_cs1_writes_lists(void **state) {
    cres_cluster_spec *s = parse("{'ps': ['ps0:1111'], 'worker': ['worker0:3333', 'worker1:4444']}");
    (void)state;
    assert_string_equal(json_of(s), dq("{'ps': ['ps0:1111'], 'worker': ['worker0:3333', 'worker1:4444']}"));
    cres_spec_free(s);
}

/* TF CS2: identical after a JSON (as_dict) round trip */
static void json_cs2_round_trip(void **state) {
    cres_cluster_spec *s = parse(CS2), *back = NULL;
    const char *json = json_of(s);
    cres_error err;
    (void)state;
    OK(cres_spec_from_json(json, strlen(json), NULL, &back, &err));
    assert_true(cres_spec_equal(s, back));
    assert_int_equal(cres_spec_tasks_count(back, "worker"), 3);
    assert_string_equal(cres_spec_task_address(back, "ps", 1), "ps1:2222");
    cres_spec_free(s);
    cres_spec_free(back);
}

/* TF CS3: TF's as_dict gives {} for an empty job; we write [] */
static void json_cs3_empty_job_writes_empty_list(void **state) {
    cres_cluster_spec *s = parse("{'ps': ['ps0:2222', 'ps1:2222'], 'worker': []}"), *back = NULL;
    const char *json = json_of(s);
    cres_error err;
    (void)state;
    assert_string_equal(json, dq("{'ps': ['ps0:2222', 'ps1:2222'], 'worker': []}"));
    OK(cres_spec_from_json(json, strlen(json), NULL, &back, &err));
    assert_true(cres_spec_equal(s, back));
    assert_non_null(cres_spec_job(back, "worker"));
    cres_spec_free(s);
    cres_spec_free(back);
}

/* TF CS4: the sparse job stays an object, keys as strings */
static void json_cs4_sparse_job_writes_object(void **state) {
    cres_cluster_spec *s = parse(CS4);
    (void)state;
    assert_string_equal(json_of(s), dq("{'ps': ['ps0:2222', 'ps1:2222'], "
                                       "'sparse': {'0': 'sparse0:2222', '3': 'sparse3:2222'}, "
                                       "'worker': ['worker0:2222', 'worker1:2222', 'worker2:2222']}"));
    cres_spec_free(s);
}

/* TF CS10 */
static void json_cs10_sparse_keys_kept(void **state) {
    cres_cluster_spec *s = parse("{'ps': ['ps0:2222', 'ps1:2222'], 'worker': {'0': 'worker0:2222', '2': 'worker2:2222'}}");
    (void)state;
    assert_string_equal(cres_spec_task_address(s, "worker", 2), "worker2:2222");
    assert_null(cres_spec_task_address(s, "worker", 1));
    assert_string_equal(json_of(s), dq("{'ps': ['ps0:2222', 'ps1:2222'], "
                                       "'worker': {'0': 'worker0:2222', '2': 'worker2:2222'}}"));
    cres_spec_free(s);
}

/* TF as_dict: an object whose keys are exactly 0..n-1 comes back as a list. */
static void json_sparse_keys_0_to_n_write_as_list(void **state) {
    cres_cluster_spec *s = parse("{'w': {'1': 'b:1', '0': 'a:1'}}");
    (void)state;
    assert_string_equal(json_of(s), dq("{'w': ['a:1', 'b:1']}"));
    cres_spec_free(s);
}

static void json_escapes_and_utf8_round_trip(void **state) {
    cres_cluster_spec *s = parse("{ 'w\\u00e9' : [ 'a:1' ] ,\n\t'q\\\"b\\\\s' : {\"12\" : 'h\\/x:1'} }");
    (void)state;
    assert_string_equal(cres_spec_job_at(s, 1)->name, "w\xc3\xa9");
    assert_string_equal(cres_spec_job_at(s, 0)->name, "q\"b\\s");
    assert_string_equal(cres_spec_task_address(s, "q\"b\\s", 12), "h/x:1");
    assert_string_equal(json_of(s), "{\"q\\\"b\\\\s\": {\"12\": \"h/x:1\"}, \"w\xc3\xa9\": [\"a:1\"]}");
    cres_spec_free(s);
}

static void json_surrogate_pair_decodes_to_utf8(void **state) {
    cres_cluster_spec *s = parse("{'job\\ud83d\\ude00': ['a:1']}");
    (void)state;
    assert_string_equal(cres_spec_job_at(s, 0)->name, "job\xf0\x9f\x98\x80");
    cres_spec_free(s);
}

/* UTF-8 as it is (two, three and four bytes, at the edges RFC 3629 allows) and every escape
   JSON has, upper-case hex included, read into the same bytes. */
static void json_raw_utf8_and_every_escape(void **state) {
    cres_cluster_spec *s = parse("{'\xc3\xa9\xe0\xa0\x80\xed\x9f\xbf\xf0\x90\x80\x80\xf4\x8f\xbf\xbf': ['a:1'],\r\n"
                                 "'e\\u20AC\\uFFFF\\u00E9\\u0041': ['b:1']}");
    (void)state;
    assert_string_equal(cres_spec_job_at(s, 1)->name, "\xc3\xa9\xe0\xa0\x80\xed\x9f\xbf\xf0\x90\x80\x80\xf4\x8f\xbf\xbf");
    assert_string_equal(cres_spec_job_at(s, 0)->name, "e\xe2\x82\xac\xef\xbf\xbf\xc3\xa9" "A");
    cres_spec_free(s);
    /* \b and \f decode to control characters, which no name may hold: the message shows them */
    BAD_JSON("{'e\\b\\f': []}", CRES_ERR_INVALID_JSON, "job name \"e\\x08\\x0c\" contains a control character");
}

static void json_from_honours_len(void **state) {
    const char *text = "{\"w\": [\"a:1\"]}garbage";
    cres_cluster_spec *s = NULL;
    cres_error err;
    (void)state;
    OK(cres_spec_from_json(text, 14, NULL, &s, &err));
    assert_string_equal(cres_spec_task_address(s, "w", 0), "a:1");
    cres_spec_free(s);
}

static void json_empty_object_is_empty_spec(void **state) {
    cres_cluster_spec *s = parse(" {\n} ");
    (void)state;
    assert_int_equal(cres_spec_jobs_count(s), 0);
    cres_spec_free(s);
}

static void json_from_uses_given_allocator(void **state) {
    counter c = {0, 0};
    cres_allocator a;
    const char *json = dq(CS4);
    cres_cluster_spec *s = NULL;
    cres_error err;
    (void)state;
    a.alloc = count_alloc;
    a.free = count_free;
    a.user = &c;
    OK(cres_spec_from_json(json, strlen(json), &a, &s, &err));
    assert_true(c.live > 0);
    cres_spec_free(s);
    assert_int_equal(c.live, 0);
}

/* ---------------------------------------------------------------------------------------
   to_json buffer contract */

static void to_json_length_query(void **state) {
    cres_cluster_spec *s = parse(CS2);
    size_t len = 0;
    cres_error err;
    (void)state;
    OK(cres_spec_to_json(s, NULL, 0, &len, &err));
    assert_int_equal(len, strlen(dq(CS2)));
    cres_spec_free(s);
}

static void to_json_short_buffer_truncates(void **state) {
    cres_cluster_spec *s = parse(CS2);
    char buf[11];
    size_t len = 0;
    cres_error err;
    (void)state;
    memset(buf, 'X', sizeof buf);
    EXPECT(cres_spec_to_json(s, buf, sizeof buf, &len, &err), CRES_ERR_BUFFER_TOO_SMALL);
    assert_string_equal(buf, dq("{'ps': ['p"));
    assert_int_equal(len, strlen(dq(CS2)));
    assert_int_equal(err.result, CRES_ERR_BUFFER_TOO_SMALL);
    cres_spec_free(s);
}

static void to_json_exact_fit(void **state) {
    cres_cluster_spec *s = parse("{'w': ['a:1']}");
    const char *want = "{\"w\": [\"a:1\"]}";
    size_t n = strlen(want), len = 0;
    char buf[64];
    cres_error err;
    (void)state;
    memset(buf, 'X', sizeof buf);
    OK(cres_spec_to_json(s, buf, n + 1, &len, &err));
    assert_string_equal(buf, want);
    assert_int_equal(len, n);
    memset(buf, 'X', sizeof buf);
    EXPECT(cres_spec_to_json(s, buf, n, &len, &err), CRES_ERR_BUFFER_TOO_SMALL);
    assert_int_equal(strlen(buf), n - 1);
    assert_memory_equal(buf, want, n - 1);
    assert_int_equal(len, n);
    cres_spec_free(s);
}

static void to_json_zero_cap_writes_nothing(void **state) {
    cres_cluster_spec *s = parse("{'w': ['a:1']}");
    char buf[4] = "XYZ";
    size_t len = 0;
    cres_error err;
    (void)state;
    EXPECT(cres_spec_to_json(s, buf, 0, &len, &err), CRES_ERR_BUFFER_TOO_SMALL);
    assert_string_equal(buf, "XYZ");
    assert_int_equal(len, 14);
    cres_spec_free(s);
}

static void to_json_rejects_null_buf_with_cap(void **state) {
    cres_cluster_spec *s = parse("{'w': ['a:1']}");
    cres_error err;
    (void)state;
    EXPECT(cres_spec_to_json(s, NULL, 8, NULL, &err), CRES_ERR_INVALID_ARGUMENT);
    EXPECT(cres_spec_to_json(NULL, NULL, 0, NULL, &err), CRES_ERR_INVALID_ARGUMENT);
    cres_spec_free(s);
}

/* ---------------------------------------------------------------------------------------
   Bad cluster JSON */

static void bad_json_not_json(void **state) {
    (void)state;
    BAD_JSON("hello", CRES_ERR_INVALID_JSON, "cluster JSON");
    BAD_JSON("", CRES_ERR_INVALID_JSON, "cluster JSON");
    BAD_JSON("   ", CRES_ERR_INVALID_JSON, "end of the document");
}

static void bad_json_truncated(void **state) {
    (void)state;
    BAD_JSON("{'worker': ['a:1'", CRES_ERR_INVALID_JSON, "end of the document");
    BAD_JSON("{'worker': ['a:1", CRES_ERR_INVALID_JSON, "unterminated string");
    BAD_JSON("{'worker'", CRES_ERR_INVALID_JSON, "cluster JSON");
}

static void bad_json_syntax_variants(void **state) {
    static const char *const bad[] = {
        "{'w': ['a:1'],}", "{'w': ['a:1',]}", "{w: ['a:1']}", "{'w' ['a:1']}", "{'w': [01]}",
        "{'w': [NaN]}",    "{'w': [1.]}",     "{'w': [-]}",   "{'w': [+1]}",   "{'w': ['a\\x']}",
        "{'w': ['\\u12G4']}", "{'w': [tru]}", "/* c */ {}",  "{'w': ['a:1']", "{'w': [1e]}",
    };
    size_t i;
    (void)state;
    /* real single quotes (not turned into double quotes) are not JSON */
    expect_bad_bytes("{'w': ['a:1']}", 14, CRES_ERR_INVALID_JSON, "invalid JSON", __LINE__);
    for (i = 0; i < sizeof bad / sizeof *bad; i++) BAD_JSON(bad[i], CRES_ERR_INVALID_JSON, "cluster JSON");
}

static void bad_json_trailing_garbage(void **state) {
    (void)state;
    BAD_JSON("{} x", CRES_ERR_INVALID_JSON, "after the document");
    BAD_JSON("{'w': ['a:1']}{}", CRES_ERR_INVALID_JSON, "after the document");
}

static void bad_json_top_level_not_object(void **state) {
    (void)state;
    BAD_JSON("[]", CRES_ERR_INVALID_JSON, "object");
    BAD_JSON("['a:1']", CRES_ERR_INVALID_JSON, "object");
    BAD_JSON("'worker'", CRES_ERR_INVALID_JSON, "object");
    BAD_JSON("3", CRES_ERR_INVALID_JSON, "object");
    BAD_JSON("null", CRES_ERR_INVALID_JSON, "object");
}

static void bad_json_job_value_types(void **state) {
    (void)state;
    BAD_JSON("{'worker': 'a:1'}", CRES_ERR_INVALID_JSON, "job \"worker\" must be a list or an object");
    BAD_JSON("{'worker': 3}", CRES_ERR_INVALID_JSON, "job \"worker\"");
    BAD_JSON("{'worker': null}", CRES_ERR_INVALID_JSON, "job \"worker\"");
    BAD_JSON("{'worker': true}", CRES_ERR_INVALID_JSON, "job \"worker\"");
}

static void bad_json_task_value_types(void **state) {
    (void)state;
    BAD_JSON("{'worker': ['a:1', 5]}", CRES_ERR_INVALID_JSON, "job \"worker\" task 1 must be a string");
    BAD_JSON("{'worker': [['a:1']]}", CRES_ERR_INVALID_JSON, "task 0 must be a string");
    BAD_JSON("{'worker': [null]}", CRES_ERR_INVALID_JSON, "task 0");
    BAD_JSON("{'worker': {'2': 7}}", CRES_ERR_INVALID_JSON, "job \"worker\" task 2 must be a string");
    BAD_JSON("{'worker': {'2': {}}}", CRES_ERR_INVALID_JSON, "task 2");
}

static void bad_json_sparse_keys(void **state) {
    (void)state;
    BAD_JSON("{'worker': {'x': 'a:1'}}", CRES_ERR_INVALID_JSON, "must be an integer");
    BAD_JSON("{'worker': {'': 'a:1'}}", CRES_ERR_INVALID_JSON, "must be an integer");
    BAD_JSON("{'worker': {'1.5': 'a:1'}}", CRES_ERR_INVALID_JSON, "must be an integer");
    BAD_JSON("{'worker': {' 1': 'a:1'}}", CRES_ERR_INVALID_JSON, "must be an integer");
    BAD_JSON("{'worker': {'-1': 'a:1'}}", CRES_ERR_INVALID_JSON, "negative");
    BAD_JSON("{'worker': {'2147483648': 'a:1'}}", CRES_ERR_INVALID_JSON, "out of range");
    BAD_JSON("{'worker': {'99999999999999999999': 'a:1'}}", CRES_ERR_INVALID_JSON, "out of range");
    /* one past LLONG_MAX: 19 digits, so only the last digit overflows */
    BAD_JSON("{'worker': {'9223372036854775808': 'a:1'}}", CRES_ERR_INVALID_JSON,
             "out of range (0 to 2147483647): \"9223372036854775808\"");
}

static void bad_json_duplicate_sparse_keys(void **state) {
    (void)state;
    BAD_JSON("{'worker': {'1': 'a:1', '1': 'b:1'}}", CRES_ERR_INVALID_JSON, "\"worker\" has task 1 twice");
    BAD_JSON("{'worker': {'1': 'a:1', '01': 'b:1'}}", CRES_ERR_INVALID_JSON, "task 1 twice");
}

static void bad_json_duplicate_job_names(void **state) {
    (void)state;
    BAD_JSON("{'worker': ['a:1'], 'ps': [], 'worker': ['b:1']}", CRES_ERR_INVALID_JSON, "\"worker\" appears twice");
    BAD_JSON("{'worker': [], 'w\\u006frker': []}", CRES_ERR_INVALID_JSON, "appears twice");
}

static void bad_json_bad_names_and_addresses(void **state) {
    (void)state;
    BAD_JSON("{'': ['a:1']}", CRES_ERR_INVALID_JSON, "job name is empty");
    BAD_JSON("{'worker': ['']}", CRES_ERR_INVALID_JSON, "address is empty");
    BAD_JSON("{'worker': ['a b:1']}", CRES_ERR_INVALID_JSON, "contains a space");
    BAD_JSON("{'worker': ['a\\n:1']}", CRES_ERR_INVALID_JSON, "control");
    BAD_JSON("{'wor\\tker': ['a:1']}", CRES_ERR_INVALID_JSON, "control character");
}

static void bad_json_nul_escape(void **state) {
    (void)state;
    BAD_JSON("{'worker': ['a\\u0000b:1']}", CRES_ERR_INVALID_JSON, "NUL");
    BAD_JSON("{'wor\\u0000ker': ['a:1']}", CRES_ERR_INVALID_JSON, "NUL");
    BAD_JSON("{'worker': {'0': '\\u0000'}}", CRES_ERR_INVALID_JSON, "NUL");
}

static void bad_json_raw_nul_and_control_bytes(void **state) {
    static const char nul_in_string[] = "{\"w\": [\"a\0b\"]}";
    static const char nul_outside[] = "{\"w\": []}\0";
    (void)state;
    expect_bad_bytes(nul_in_string, sizeof nul_in_string - 1, CRES_ERR_INVALID_JSON, "NUL", __LINE__);
    /* a length that counts the terminator: the NUL is named, not "unexpected text" */
    expect_bad_bytes(nul_outside, sizeof nul_outside - 1, CRES_ERR_INVALID_JSON, "offset 9: a NUL byte", __LINE__);
    BAD_JSON("{'w': ['a\x01:1']}", CRES_ERR_INVALID_JSON, "control character");
    BAD_JSON("{'w\x1f': []}", CRES_ERR_INVALID_JSON, "control character");
    BAD_JSON("{'w': ['tab\there']}", CRES_ERR_INVALID_JSON, "control character");
}

static void bad_json_invalid_utf8(void **state) {
    static const char *const bad[] = {
        "{'w': ['\xff:1']}",         /* never valid */
        "{'w': ['\xc0\xaf:1']}",     /* overlong '/' */
        "{'w': ['\xed\xa0\x80:1']}", /* UTF-16 surrogate */
        "{'w': ['\xe2\x82']}",       /* cut short */
        "{'\xf4\x90\x80\x80': []}",  /* past U+10FFFF */
        "{'w': ['\x80']}",           /* lone continuation byte */
    };
    size_t i;
    (void)state;
    for (i = 0; i < sizeof bad / sizeof *bad; i++) BAD_JSON(bad[i], CRES_ERR_INVALID_JSON, "UTF-8");
}

static void bad_json_lone_surrogate_escape(void **state) {
    (void)state;
    BAD_JSON("{'w\\ud800': []}", CRES_ERR_INVALID_JSON, "surrogate");
    BAD_JSON("{'w\\ud800\\u0041': []}", CRES_ERR_INVALID_JSON, "surrogate"); /* no low half after it */
    BAD_JSON("{'w\\udbff\\ue000': []}", CRES_ERR_INVALID_JSON, "surrogate");
    BAD_JSON("{'w\\udc00': []}", CRES_ERR_INVALID_JSON, "surrogate");    /* a low half alone */
}

/* More shapes the scanner refuses, each with its reason: overlong and cut UTF-8, a closing
   bracket of the wrong kind, numbers (valid ones, then a task that is not a string). */
static void bad_json_scanner_edges(void **state) {
    (void)state;
    BAD_JSON("{'w': ['\xe0\x80\x80:1']}", CRES_ERR_INVALID_JSON, "invalid UTF-8"); /* overlong U+0000 */
    BAD_JSON("{'w': ['\xe2\x82\x28:1']}", CRES_ERR_INVALID_JSON, "invalid UTF-8"); /* a third byte of ASCII */
    BAD_JSON("{'w': ['\xf0\x90\x80']}", CRES_ERR_INVALID_JSON, "invalid UTF-8");
    BAD_JSON("{'w': ['a:1'}", CRES_ERR_INVALID_JSON, "expected ',' or ']'");
    BAD_JSON("{'w': ['a:1']]", CRES_ERR_INVALID_JSON, "expected ',' or '}'");
    BAD_JSON("{'w': [0, -0.5, 1E+2, 2e-3, 1e5]}", CRES_ERR_INVALID_JSON, "task 0 must be a string");
    BAD_JSON("{'w': [00]}", CRES_ERR_INVALID_JSON, "cluster JSON");
    BAD_JSON("{'w': ['a\\", CRES_ERR_INVALID_JSON, "unterminated string");
    BAD_JSON("{'w': ['\\u00 0']}", CRES_ERR_INVALID_JSON, "bad \\u escape"); /* below '0' */
    BAD_JSON("{'w': ['\\u00:0']}", CRES_ERR_INVALID_JSON, "bad \\u escape"); /* between '9' and 'A' */
    BAD_JSON("{'w': ['\\u00z0']}", CRES_ERR_INVALID_JSON, "bad \\u escape"); /* past 'f' */
    BAD_JSON("{'w': ['\\ud800\\n']}", CRES_ERR_INVALID_JSON, "surrogate");   /* another escape after it */
    BAD_JSON("{'w': ['\\ud800\\nabc:1']}", CRES_ERR_INVALID_JSON, "surrogate"); /* the same, text after it */
    BAD_JSON("{'w': ['\\ud800\\u12']}", CRES_ERR_INVALID_JSON, "surrogate"); /* a \\u cut short */
    BAD_JSON("{'w': ['\xe2\x82\xc0:1']}", CRES_ERR_INVALID_JSON, "invalid UTF-8"); /* past a continuation byte */
    BAD_JSON("-", CRES_ERR_INVALID_JSON, "cluster JSON");
    BAD_JSON("1e", CRES_ERR_INVALID_JSON, "cluster JSON");
    BAD_JSON("1e+", CRES_ERR_INVALID_JSON, "cluster JSON");
    {
        static const char nul_escape[] = "{\"w\": [\"a\\\0\"]}"; /* a backslash, then a NUL byte */
        expect_bad_bytes(nul_escape, sizeof nul_escape - 1, CRES_ERR_INVALID_JSON, "bad escape", __LINE__);
    }
}

static char *nested(size_t depth) {
    /* {"w": [[[...]]]} with `depth` levels in all, the outer object included */
    char *s = (char *)malloc(2 * depth + 16);
    size_t i, n = 0;
    assert_non_null(s);
    n += (size_t)sprintf(s, "{\"w\": ");
    for (i = 1; i < depth; i++) s[n++] = '[';
    for (i = 1; i < depth; i++) s[n++] = ']';
    s[n++] = '}';
    s[n] = '\0';
    return s;
}

static void bad_json_deep_nesting_is_limit(void **state) {
    char *at_limit = nested(128), *past = nested(129), *deep = nested(10000);
    (void)state;
    /* 128 levels are parsed, then refused for their shape */
    expect_bad_bytes(at_limit, strlen(at_limit), CRES_ERR_INVALID_JSON, "must be a string", __LINE__);
    expect_bad_bytes(past, strlen(past), CRES_ERR_LIMIT, "nested deeper", __LINE__);
    expect_bad_bytes(deep, strlen(deep), CRES_ERR_LIMIT, "128", __LINE__);
    free(at_limit);
    free(past);
    free(deep);
}

static void bad_json_long_name_and_address_are_limit(void **state) {
    char *name = repeat('n', 256), *addr = repeat('a', 1024), *doc = (char *)malloc(2048);
    (void)state;
    assert_non_null(doc);
    sprintf(doc, "{\"%s\": [\"a:1\"]}", name);
    expect_bad_bytes(doc, strlen(doc), CRES_ERR_LIMIT, "job name", __LINE__);
    sprintf(doc, "{\"w\": [\"%s\"]}", addr);
    expect_bad_bytes(doc, strlen(doc), CRES_ERR_LIMIT, "address is 1024 bytes", __LINE__);
    free(name);
    free(addr);
    free(doc);
}

static void bad_json_document_over_16_mib_is_limit(void **state) {
    size_t n = 16u * 1024u * 1024u + 1u;
    char *doc = repeat(' ', n);
    (void)state;
    doc[0] = '{';
    doc[n - 1] = '}';
    expect_bad_bytes(doc, n, CRES_ERR_LIMIT, "limit", __LINE__);
    free(doc);
}

static void bad_json_million_tokens_is_limit_and_fast(void **state) {
    size_t count = 1000000, i, n = 0;
    char *doc = (char *)malloc(2 * count + 32);
    (void)state;
    assert_non_null(doc);
    n += (size_t)sprintf(doc, "{\"w\": [");
    for (i = 0; i < count; i++) {
        doc[n++] = '1';
        doc[n++] = ',';
    }
    doc[n - 1] = ']';
    doc[n++] = '}';
    expect_bad_bytes(doc, n, CRES_ERR_LIMIT, "tokens", __LINE__);
    free(doc);
}

static void bad_json_null_arguments(void **state) {
    cres_cluster_spec *s = NULL;
    cres_error err;
    (void)state;
    EXPECT(cres_spec_from_json(NULL, 0, NULL, &s, &err), CRES_ERR_INVALID_ARGUMENT);
    assert_null(s);
    EXPECT(cres_spec_from_json("{}", 2, NULL, NULL, &err), CRES_ERR_INVALID_ARGUMENT);
}

/* ---------------------------------------------------------------------------------------
   Launch info: ranks are "chief" first, then the other jobs by name, each by task index;
   TF's "evaluator" runs outside the cluster and takes none. */

#define RANKED "{'worker': ['w0:1', 'w1:1'], 'chief': ['c:7'], 'ps': ['p0:1', 'p1:1'], 'evaluator': ['e:1']}"

static cres_launch_info launch(const char *sq, const char *type, int id) {
    cres_cluster_spec *s = parse(sq);
    cres_launch_info info;
    cres_error err;
    OK(cres_spec_launch_info(s, type, id, &info, &err));
    cres_spec_free(s);
    return info;
}

static void launch_chief_is_rank_zero(void **state) {
    cres_launch_info info = launch(RANKED, "chief", 0);
    (void)state;
    assert_int_equal(info.rank, 0);
    assert_int_equal(info.world_size, 5);
    assert_string_equal(info.master_host, "c");
    assert_int_equal(info.master_port, 7);
    assert_string_equal(info.master_address, "c:7");
}

static void launch_other_jobs_by_name_then_index(void **state) {
    cres_cluster_spec *s = parse(RANKED);
    cres_launch_info info;
    cres_error err;
    (void)state;
    EXPECT(cres_spec_launch_info(s, "evaluator", 0, &info, &err), CRES_ERR_NOT_FOUND);
    assert_non_null(strstr(err.message, "evaluator"));
    cres_spec_free(s);
    assert_int_equal(launch(RANKED, "ps", 0).rank, 1);
    assert_int_equal(launch(RANKED, "ps", 1).rank, 2);
    assert_int_equal(launch(RANKED, "worker", 0).rank, 3);
    assert_int_equal(launch(RANKED, "worker", 1).rank, 4);
    assert_string_equal(launch(RANKED, "worker", 1).master_address, "c:7");
}

/* "chief" goes first even when another job's name sorts before it. */
static void launch_chief_before_names_that_sort_earlier(void **state) {
    const char *sq = "{'worker': ['w:1'], 'chief': ['c:1'], 'alpha': ['a:1'], 'beta': ['b:1']}";
    (void)state;
    assert_int_equal(launch(sq, "chief", 0).rank, 0);
    assert_int_equal(launch(sq, "alpha", 0).rank, 1);
    assert_int_equal(launch(sq, "beta", 0).rank, 2);
    assert_int_equal(launch(sq, "worker", 0).rank, 3);
    assert_string_equal(launch(sq, "alpha", 0).master_address, "c:1");
}

static void launch_without_chief_master_is_first_job(void **state) {
    cres_launch_info info = launch("{'worker': ['w0:1'], 'ps': ['p0:2']}", "worker", 0);
    (void)state;
    assert_int_equal(info.rank, 1);
    assert_string_equal(info.master_address, "p0:2");
    assert_int_equal(info.master_port, 2);
}

static void launch_sparse_job_ranks_by_index(void **state) {
    (void)state;
    assert_int_equal(launch("{'worker': {'7': 'b:1', '2': 'a:1'}}", "worker", 2).rank, 0);
    assert_int_equal(launch("{'worker': {'7': 'b:1', '2': 'a:1'}}", "worker", 7).rank, 1);
}

static void launch_local_rank_counts_same_host(void **state) {
    const char *sq = "{'worker': ['h1:1', 'h2:1', 'h1:2', 'h1:3']}";
    cres_launch_info a = launch(sq, "worker", 2), b = launch(sq, "worker", 1), c = launch(sq, "worker", 0);
    (void)state;
    assert_int_equal(a.local_rank, 1);
    assert_int_equal(a.local_world_size, 3);
    assert_int_equal(b.local_rank, 0);
    assert_int_equal(b.local_world_size, 1);
    assert_int_equal(c.local_rank, 0);
    assert_int_equal(c.local_world_size, 3);
}

static void launch_local_rank_across_jobs(void **state) {
    /* rank order: chief h:0, ps h:1, worker h:2 / g:1 */
    cres_launch_info info = launch("{'worker': ['h:2', 'g:1'], 'chief': ['h:0'], 'ps': ['h:1']}", "worker", 0);
    (void)state;
    assert_int_equal(info.rank, 2);
    assert_int_equal(info.local_rank, 2);
    assert_int_equal(info.local_world_size, 3);
}

static void launch_ipv6_master_host_has_no_brackets(void **state) {
    cres_launch_info info = launch("{'chief': ['[::1]:80'], 'worker': ['[::1]:81', 'h:1']}", "worker", 0);
    (void)state;
    assert_string_equal(info.master_host, "::1");
    assert_int_equal(info.master_port, 80);
    assert_string_equal(info.master_address, "[::1]:80");
    assert_int_equal(info.local_rank, 1);
    assert_int_equal(info.local_world_size, 2);
}

static void launch_master_without_port(void **state) {
    cres_launch_info info = launch("{'worker': ['hostonly']}", "worker", 0);
    (void)state;
    assert_string_equal(info.master_host, "hostonly");
    assert_int_equal(info.master_port, -1);
}

static void launch_without_task_gives_world_only(void **state) {
    cres_launch_info info = launch(RANKED, NULL, -1);
    (void)state;
    assert_int_equal(info.world_size, 5);
    assert_int_equal(info.rank, -1);
    assert_int_equal(info.local_rank, -1);
    assert_int_equal(info.local_world_size, -1);
    assert_string_equal(info.master_host, "c");
}

static void launch_empty_spec(void **state) {
    cres_launch_info info = launch("{}", NULL, -1);
    (void)state;
    assert_int_equal(info.world_size, 0);
    assert_string_equal(info.master_host, "");
    assert_int_equal(info.master_port, -1);
}

static void launch_missing_task_is_not_found(void **state) {
    cres_cluster_spec *s = parse(RANKED);
    cres_launch_info info;
    cres_error err;
    (void)state;
    EXPECT(cres_spec_launch_info(s, "worker", 9, &info, &err), CRES_ERR_NOT_FOUND);
    HAS(err.message, "\"worker\"");
    HAS(err.message, "9");
    EXPECT(cres_spec_launch_info(s, "nojob", 0, &info, &err), CRES_ERR_NOT_FOUND);
    HAS(err.message, "nojob");
    EXPECT(cres_spec_launch_info(NULL, NULL, -1, &info, &err), CRES_ERR_INVALID_ARGUMENT);
    cres_spec_free(s);
}

/* ---------------------------------------------------------------------------------------
   Hostfile */

static const char *hostfile_of(const char *sq) {
    static char buf[1024];
    cres_cluster_spec *s = parse(sq);
    cres_error err;
    OK(cres_spec_to_hostfile(s, buf, sizeof buf, NULL, &err));
    cres_spec_free(s);
    return buf;
}

static void hostfile_one_line_per_host_in_rank_order(void **state) {
    (void)state;
    /* rank order: chief h2:1, ps h3:1, worker h1:1 h2:2 h1:2 */
    assert_string_equal(hostfile_of("{'worker': ['h1:1', 'h2:2', 'h1:2'], 'chief': ['h2:1'], 'ps': ['h3:1']}"),
                        "h2 slots=2\nh3 slots=1\nh1 slots=2\n");
}

static void hostfile_chief_host_first(void **state) {
    (void)state;
    assert_string_equal(hostfile_of("{'alpha': ['a:1'], 'chief': ['c:1'], 'worker': ['a:2']}"),
                        "c slots=1\na slots=2\n");
}

static void hostfile_ipv6_without_brackets(void **state) {
    (void)state;
    assert_string_equal(hostfile_of("{'worker': ['[::1]:80', '[::1]:81', '[fd00::2]:80']}"),
                        "::1 slots=2\nfd00::2 slots=1\n");
}

static void hostfile_host_prefix_is_distinct_host(void **state) {
    (void)state;
    assert_string_equal(hostfile_of("{'worker': ['node1:1', 'node10:1', 'node1:2']}"), "node1 slots=2\nnode10 slots=1\n");
}

static void hostfile_empty_spec(void **state) {
    (void)state;
    assert_string_equal(hostfile_of("{'worker': []}"), "");
}

static void hostfile_buffer_contract(void **state) {
    cres_cluster_spec *s = parse("{'worker': ['alpha:1', 'beta:1']}");
    char buf[8];
    size_t len = 0;
    cres_error err;
    (void)state;
    OK(cres_spec_to_hostfile(s, NULL, 0, &len, &err));
    assert_int_equal(len, strlen("alpha slots=1\nbeta slots=1\n"));
    EXPECT(cres_spec_to_hostfile(s, buf, sizeof buf, &len, &err), CRES_ERR_BUFFER_TOO_SMALL);
    assert_string_equal(buf, "alpha s");
    cres_spec_free(s);
}

/* ---------------------------------------------------------------------------------------
   TF_CONFIG output */

static void tf_config_json_with_task(void **state) {
    cres_cluster_spec *s = parse("{'worker': ['w0:1', 'w1:1'], 'ps': {'2': 'p:1'}}");
    char buf[512];
    size_t len = 0;
    cres_error err;
    (void)state;
    OK(cres_spec_to_tfconfig(s, "worker", 1, "grpc", "cloud", buf, sizeof buf, &len, &err));
    assert_string_equal(buf, dq("{'cluster': {'ps': {'2': 'p:1'}, 'worker': ['w0:1', 'w1:1']}, "
                                "'task': {'type': 'worker', 'index': 1}, 'rpc_layer': 'grpc', 'environment': 'cloud'}"));
    assert_int_equal(len, strlen(buf));
    cres_spec_free(s);
}

static void tf_config_json_without_task(void **state) {
    cres_cluster_spec *s = parse("{'worker': []}");
    char buf[512];
    cres_error err;
    (void)state;
    OK(cres_spec_to_tfconfig(s, NULL, -1, NULL, NULL, buf, sizeof buf, NULL, &err));
    assert_string_equal(buf, dq("{'cluster': {'worker': []}, 'rpc_layer': '', 'environment': ''}"));
    cres_spec_free(s);
}

static void tf_config_json_escapes_strings(void **state) {
    cres_cluster_spec *s = parse("{'w': ['a:1']}");
    char buf[512];
    cres_error err;
    (void)state;
    OK(cres_spec_to_tfconfig(s, "a\"b", 0, "r\\", "e\n", buf, sizeof buf, NULL, &err));
    assert_string_equal(buf, "{\"cluster\": {\"w\": [\"a:1\"]}, \"task\": {\"type\": \"a\\\"b\", \"index\": 0}, "
                             "\"rpc_layer\": \"r\\\\\", \"environment\": \"e\\u000a\"}");
    cres_spec_free(s);
}

static void tf_config_json_rejects_negative_id(void **state) {
    cres_cluster_spec *s = parse("{'w': ['a:1']}");
    char buf[128];
    cres_error err;
    (void)state;
    EXPECT(cres_spec_to_tfconfig(s, "w", -1, NULL, NULL, buf, sizeof buf, NULL, &err), CRES_ERR_INVALID_ARGUMENT);
    HAS(err.message, "-1");
    EXPECT(cres_spec_to_tfconfig(NULL, NULL, -1, NULL, NULL, buf, sizeof buf, NULL, &err), CRES_ERR_INVALID_ARGUMENT);
    cres_spec_free(s);
}

static void tf_config_json_buffer_contract(void **state) {
    cres_cluster_spec *s = parse("{'w': ['a:1']}");
    char buf[12];
    size_t len = 0, full = 0;
    cres_error err;
    (void)state;
    OK(cres_spec_to_tfconfig(s, "w", 0, NULL, NULL, NULL, 0, &full, &err));
    EXPECT(cres_spec_to_tfconfig(s, "w", 0, NULL, NULL, buf, sizeof buf, &len, &err), CRES_ERR_BUFFER_TOO_SMALL);
    assert_int_equal(len, full);
    assert_string_equal(buf, "{\"cluster\":");
    cres_spec_free(s);
}

/* The output reads back as the same cluster. */
static void tf_config_json_cluster_round_trips(void **state) {
    cres_cluster_spec *s = parse(CS4), *back = NULL;
    char buf[1024];
    const char *cluster, *end;
    cres_error err;
    (void)state;
    OK(cres_spec_to_tfconfig(s, NULL, -1, NULL, NULL, buf, sizeof buf, NULL, &err));
    cluster = buf + strlen("{\"cluster\": ");
    end = strstr(cluster, ", \"rpc_layer\"");
    assert_non_null(end);
    OK(cres_spec_from_json(cluster, (size_t)(end - cluster), NULL, &back, &err));
    assert_true(cres_spec_equal(s, back));
    cres_spec_free(s);
    cres_spec_free(back);
}

/* ---------------------------------------------------------------------------------------
   Result strings */

static void result_strings_and_version(void **state) {
    (void)state;
    assert_string_equal(cres_result_string(CRES_OK), "success");
    assert_string_equal(cres_result_string(CRES_ERR_CONFLICT), "conflicting definitions (the same task defined twice)");
    assert_string_equal(cres_result_string(CRES_RESULT_COUNT), "unknown result");
    assert_string_equal(cres_result_string((cres_result)-1), "unknown result");
    assert_string_equal(cres_version_string(), "0.3.1");
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(create_gives_empty_spec),
        cmocka_unit_test(create_rejects_null_out),
        cmocka_unit_test(create_rejects_half_allocator),
        cmocka_unit_test(free_accepts_null),
        cmocka_unit_test(error_argument_may_be_null),
        cmocka_unit_test(custom_allocator_is_used_and_balanced),
        cmocka_unit_test(add_task_keeps_jobs_sorted_by_name),
        cmocka_unit_test(add_task_keeps_tasks_sorted_by_index),
        cmocka_unit_test(add_task_duplicate_index_is_conflict),
        cmocka_unit_test(add_task_rejects_negative_index),
        cmocka_unit_test(add_task_accepts_int_max_index),
        cmocka_unit_test(add_task_rejects_bad_job_names),
        cmocka_unit_test(add_task_job_name_limit_is_255_bytes),
        cmocka_unit_test(add_task_rejects_bad_addresses),
        cmocka_unit_test(add_task_address_limit_is_1023_bytes),
        cmocka_unit_test(add_task_copies_strings),
        cmocka_unit_test(add_task_rejects_null_spec),
        cmocka_unit_test(add_job_adds_dense_tasks),
        cmocka_unit_test(add_job_count_zero_makes_empty_job),
        cmocka_unit_test(add_job_rejects_null_addresses),
        cmocka_unit_test(add_job_bad_address_adds_nothing),
        cmocka_unit_test(add_job_into_existing_task_conflicts),
        cmocka_unit_test(add_job_conflict_adds_nothing),
        cmocka_unit_test(lookups_cs4_num_tasks),
        cmocka_unit_test(lookups_cs4_task_address),
        cmocka_unit_test(lookups_cs4_task_indices),
        cmocka_unit_test(lookups_out_of_range_and_null),
        cmocka_unit_test(equal_cs7),
        cmocka_unit_test(not_equal_cs8),
        cmocka_unit_test(equal_dense_and_sparse_with_same_indices),
        cmocka_unit_test(empty_job_is_not_missing_job),
        cmocka_unit_test(equal_handles_null),
        cmocka_unit_test(clone_is_equal_and_independent),
        cmocka_unit_test(clone_keeps_empty_and_sparse_jobs),
        cmocka_unit_test(clone_rejects_null),
        cmocka_unit_test(clone_uses_given_allocator),
        cmocka_unit_test(merge_u10_dense_jobs_concatenate),
        cmocka_unit_test(merge_u11_sparse_collision_conflicts),
        cmocka_unit_test(merge_u12_dense_and_sparse_collide),
        cmocka_unit_test(merge_u13_sparse_jobs_interleave),
        cmocka_unit_test(merge_u14_dense_then_sparse_keeps_indices),
        cmocka_unit_test(merge_u15_sparse_into_empty_is_unchanged),
        cmocka_unit_test(merge_sparse_then_dense_counts_from_zero),
        cmocka_unit_test(merge_conflict_leaves_dst_unchanged),
        cmocka_unit_test(merge_empty_job_then_lists_concatenate),
        cmocka_unit_test(merge_list_then_empty_job_keeps_list),
        cmocka_unit_test(merge_disjoint_jobs),
        cmocka_unit_test(merge_rejects_null),
        cmocka_unit_test(json_cs1_writes_lists),
        cmocka_unit_test(json_cs2_round_trip),
        cmocka_unit_test(json_cs3_empty_job_writes_empty_list),
        cmocka_unit_test(json_cs4_sparse_job_writes_object),
        cmocka_unit_test(json_cs10_sparse_keys_kept),
        cmocka_unit_test(json_sparse_keys_0_to_n_write_as_list),
        cmocka_unit_test(json_escapes_and_utf8_round_trip),
        cmocka_unit_test(json_surrogate_pair_decodes_to_utf8),
        cmocka_unit_test(json_raw_utf8_and_every_escape),
        cmocka_unit_test(json_from_honours_len),
        cmocka_unit_test(json_empty_object_is_empty_spec),
        cmocka_unit_test(json_from_uses_given_allocator),
        cmocka_unit_test(to_json_length_query),
        cmocka_unit_test(to_json_short_buffer_truncates),
        cmocka_unit_test(to_json_exact_fit),
        cmocka_unit_test(to_json_zero_cap_writes_nothing),
        cmocka_unit_test(to_json_rejects_null_buf_with_cap),
        cmocka_unit_test(bad_json_not_json),
        cmocka_unit_test(bad_json_truncated),
        cmocka_unit_test(bad_json_syntax_variants),
        cmocka_unit_test(bad_json_trailing_garbage),
        cmocka_unit_test(bad_json_top_level_not_object),
        cmocka_unit_test(bad_json_job_value_types),
        cmocka_unit_test(bad_json_task_value_types),
        cmocka_unit_test(bad_json_sparse_keys),
        cmocka_unit_test(bad_json_duplicate_sparse_keys),
        cmocka_unit_test(bad_json_duplicate_job_names),
        cmocka_unit_test(bad_json_bad_names_and_addresses),
        cmocka_unit_test(bad_json_nul_escape),
        cmocka_unit_test(bad_json_raw_nul_and_control_bytes),
        cmocka_unit_test(bad_json_invalid_utf8),
        cmocka_unit_test(bad_json_lone_surrogate_escape),
        cmocka_unit_test(bad_json_scanner_edges),
        cmocka_unit_test(bad_json_deep_nesting_is_limit),
        cmocka_unit_test(bad_json_long_name_and_address_are_limit),
        cmocka_unit_test(bad_json_document_over_16_mib_is_limit),
        cmocka_unit_test(bad_json_million_tokens_is_limit_and_fast),
        cmocka_unit_test(bad_json_null_arguments),
        cmocka_unit_test(launch_chief_is_rank_zero),
        cmocka_unit_test(launch_other_jobs_by_name_then_index),
        cmocka_unit_test(launch_chief_before_names_that_sort_earlier),
        cmocka_unit_test(launch_without_chief_master_is_first_job),
        cmocka_unit_test(launch_sparse_job_ranks_by_index),
        cmocka_unit_test(launch_local_rank_counts_same_host),
        cmocka_unit_test(launch_local_rank_across_jobs),
        cmocka_unit_test(launch_ipv6_master_host_has_no_brackets),
        cmocka_unit_test(launch_master_without_port),
        cmocka_unit_test(launch_without_task_gives_world_only),
        cmocka_unit_test(launch_empty_spec),
        cmocka_unit_test(launch_missing_task_is_not_found),
        cmocka_unit_test(hostfile_one_line_per_host_in_rank_order),
        cmocka_unit_test(hostfile_chief_host_first),
        cmocka_unit_test(hostfile_ipv6_without_brackets),
        cmocka_unit_test(hostfile_host_prefix_is_distinct_host),
        cmocka_unit_test(hostfile_empty_spec),
        cmocka_unit_test(hostfile_buffer_contract),
        cmocka_unit_test(tf_config_json_with_task),
        cmocka_unit_test(tf_config_json_without_task),
        cmocka_unit_test(tf_config_json_escapes_strings),
        cmocka_unit_test(tf_config_json_rejects_negative_id),
        cmocka_unit_test(tf_config_json_buffer_contract),
        cmocka_unit_test(tf_config_json_cluster_round_trips),
        cmocka_unit_test(result_strings_and_version),
    };
    return cmocka_run_group_tests_name("cluster spec", tests, NULL, NULL);
}
