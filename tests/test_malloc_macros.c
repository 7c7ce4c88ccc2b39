/* CRES_MALLOC / CRES_REALLOC / CRES_FREE are the default allocator: objects made with a NULL
   (or all-zero) cres_allocator must allocate through them and give every block back through
   them; objects made with a runtime allocator must not touch them.

   This file is its own implementation file (the macros only act there), so it must NOT be
   linked with tests/impl.c:
   gcc -std=c99 ... tests/test_malloc_macros.c -lcmocka */

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

typedef struct macro_counts {
    long mallocs, reallocs, frees;
    long live; /* blocks from the macros not yet freed */
    long calls, fail_at; /* CRES_MALLOC and CRES_REALLOC calls; the one to fail, when > 0 */
} macro_counts;

static macro_counts counts;

/* Counts a CRES_MALLOC or CRES_REALLOC call: 1 when it is the one to fail. */
static int fails_now(void) {
    return ++counts.calls == counts.fail_at;
}

static void *counting_malloc(size_t size) {
    void *p = fails_now() ? NULL : malloc(size);
    if (p) {
        counts.mallocs++;
        counts.live++;
    }
    return p;
}

static void *counting_realloc(void *old, size_t size) {
    void *p = fails_now() ? NULL : realloc(old, size);
    if (p) {
        counts.reallocs++;
        if (!old) counts.live++;
    }
    return p;
}

static void counting_free(void *p) {
    if (p) {
        counts.frees++;
        counts.live--;
    }
    free(p);
}

#define CRES_MALLOC(sz) counting_malloc(sz)
#define CRES_REALLOC(p, sz) counting_realloc(p, sz)
#define CRES_FREE(p) counting_free(p)
#define CLUSTER_RESOLVER_IMPLEMENTATION
#include "../cluster_resolver.h"

/* A runtime allocator, to check that it bypasses the macros. */
static long runtime_live;

static void *runtime_alloc(void *user, size_t size) {
    (void)user;
    runtime_live++;
    return malloc(size);
}

static void runtime_free(void *user, void *p) {
    (void)user;
    if (p) runtime_live--;
    free(p);
}

static const char *no_env(void *user, const char *name) {
    (void)name;
    (void)user;
    return NULL;
}

static const char cluster_json[] =
    "{\"chief\": [\"c:2222\"], \"worker\": [\"w0:2222\", \"w1:2222\", \"w2:2222\", \"w3:2222\","
    " \"w4:2222\", \"w5:2222\"], \"ps\": {\"1\": \"p1:2222\", \"9\": \"p9:2222\"}}";

static int reset_counts(void **state) {
    (void)state;
    memset(&counts, 0, sizeof counts);
    runtime_live = 0;
    return 0;
}

static void test_spec_building_uses_the_macros(void **state) {
    static const char *const workers[] = {"w0:1", "w1:1", "w2:1", "w3:1", "w4:1", "w5:1", "w6:1"};
    cres_cluster_spec *s = NULL;
    (void)state;
    assert_int_equal(cres_spec_create(NULL, &s, NULL), CRES_OK);
    assert_int_equal(counts.mallocs, 1);
    assert_int_equal(cres_spec_add_job(s, "worker", workers, 7, NULL), CRES_OK);
    assert_int_equal(cres_spec_add_task(s, "ps", 3, "p3:1", NULL), CRES_OK);
    assert_true(counts.mallocs > 1);
    assert_true(counts.reallocs >= 2); /* the jobs array and a task array that grew past 4 */
    assert_true(counts.live > 0);
    cres_spec_free(s);
    assert_true(counts.frees > 0);
    assert_int_equal(counts.live, 0);
}

static void test_zeroed_allocator_means_the_macros(void **state) {
    cres_allocator zero;
    cres_cluster_spec *s = NULL;
    (void)state;
    memset(&zero, 0, sizeof zero);
    assert_int_equal(cres_spec_create(&zero, &s, NULL), CRES_OK);
    assert_int_equal(cres_spec_add_task(s, "worker", 0, "w0:1", NULL), CRES_OK);
    assert_true(counts.mallocs >= 3);
    cres_spec_free(s);
    assert_int_equal(counts.live, 0);
}

static void test_spec_from_json_uses_the_macros(void **state) {
    cres_cluster_spec *s = NULL, *copy = NULL;
    long after_parse;
    (void)state;
    assert_int_equal(cres_spec_from_json(cluster_json, strlen(cluster_json), NULL, &s, NULL), CRES_OK);
    after_parse = counts.mallocs + counts.reallocs;
    assert_true(after_parse > 0);
    assert_int_equal(cres_spec_clone(s, NULL, &copy, NULL), CRES_OK);
    assert_true(counts.mallocs + counts.reallocs > after_parse);
    assert_true(cres_spec_equal(s, copy));
    cres_spec_free(copy);
    cres_spec_free(s);
    assert_int_equal(counts.live, 0);
}

static void test_failed_parse_returns_every_block(void **state) {
    static const char bad[] = "{\"worker\": [\"w0:1\", \"w1:1\"], \"ps\": {\"x\": \"p:1\"}}";
    cres_cluster_spec *s = NULL;
    (void)state;
    assert_int_equal(cres_spec_from_json(bad, strlen(bad), NULL, &s, NULL), CRES_ERR_INVALID_JSON);
    assert_null(s);
    assert_true(counts.mallocs > 0);
    assert_int_equal(counts.live, 0);
}

static void test_resolvers_use_the_macros(void **state) {
    static const char tf_config[] =
        "{\"cluster\": {\"worker\": [\"w0:1\", \"w1:1\"]}, \"task\": {\"type\": \"worker\", \"index\": 1},"
        " \"rpc_layer\": \"grpc\"}";
    cres_config config;
    cres_tfconfig_options o;
    cres_resolver *r = NULL;
    cres_cluster_spec *s = NULL;
    char master[64];
    (void)state;
    memset(&config, 0, sizeof config);
    config.getenv.fn = no_env;
    memset(&o, 0, sizeof o);
    o.config = &config;
    o.json = tf_config;
    assert_int_equal(cres_tfconfig_resolver_create(&o, &r, NULL), CRES_OK);
    assert_int_equal(cres_resolve(r, &s, NULL), CRES_OK);
    assert_int_equal(cres_master(r, master, sizeof master, NULL, NULL), CRES_OK);
    assert_string_equal(master, "grpc://w1:1");
    assert_true(counts.mallocs > 0);
    cres_spec_free(s);
    cres_resolver_free(r);
    assert_int_equal(counts.live, 0);
}

static void test_runtime_allocator_bypasses_the_macros(void **state) {
    cres_allocator a;
    cres_cluster_spec *s = NULL, *copy = NULL;
    (void)state;
    a.alloc = runtime_alloc;
    a.free = runtime_free;
    a.user = NULL;
    assert_int_equal(cres_spec_from_json(cluster_json, strlen(cluster_json), &a, &s, NULL), CRES_OK);
    assert_int_equal(cres_spec_clone(s, &a, &copy, NULL), CRES_OK);
    assert_int_equal(cres_spec_merge(copy, s, NULL), CRES_ERR_CONFLICT);
    assert_true(runtime_live > 0);
    assert_int_equal(counts.mallocs + counts.reallocs + counts.frees, 0);
    cres_spec_free(copy);
    cres_spec_free(s);
    assert_int_equal(runtime_live, 0);
    assert_int_equal(counts.mallocs + counts.reallocs + counts.frees, 0);
}

/* A clone takes the allocator it is given, not its source's. */
static void test_clone_into_default_allocator_uses_the_macros(void **state) {
    cres_allocator a;
    cres_cluster_spec *s = NULL, *copy = NULL;
    (void)state;
    a.alloc = runtime_alloc;
    a.free = runtime_free;
    a.user = NULL;
    assert_int_equal(cres_spec_from_json(cluster_json, strlen(cluster_json), &a, &s, NULL), CRES_OK);
    assert_int_equal(counts.mallocs + counts.reallocs, 0);
    assert_int_equal(cres_spec_clone(s, NULL, &copy, NULL), CRES_OK);
    assert_true(counts.mallocs > 0);
    cres_spec_free(s);
    assert_int_equal(runtime_live, 0);
    assert_true(counts.live > 0);
    cres_spec_free(copy);
    assert_int_equal(counts.live, 0);
}

/* The default allocator failing: each CRES_MALLOC and CRES_REALLOC call of a parse and a
   clone fails in turn; each run ends in success or out of memory with every block back. */
static void test_failing_macros_leave_nothing(void **state) {
    long n, total = 0;
    (void)state;
    for (n = 1;; n++) {
        cres_cluster_spec *s = NULL, *copy = NULL;
        cres_result r;
        memset(&counts, 0, sizeof counts);
        counts.fail_at = n;
        r = cres_spec_from_json(cluster_json, strlen(cluster_json), NULL, &s, NULL);
        if (r == CRES_OK) r = cres_spec_clone(s, NULL, &copy, NULL);
        if (r == CRES_OK) assert_true(cres_spec_equal(s, copy));
        cres_spec_free(copy);
        cres_spec_free(s);
        assert_int_equal(counts.live, 0);
        if (counts.calls < n) { /* nothing failed: the walk is over */
            assert_int_equal(r, CRES_OK);
            break;
        }
        assert_int_equal(r, CRES_ERR_OUT_OF_MEMORY);
        total++;
    }
    assert_true(total > 10 && counts.reallocs > 0);
}

/* A transport written as the manual says, with the config's allocator left zero: perform()
   must be handed an allocator it can call (the macros'), and so must a backend asking
   cres_resolver_allocator(). The pod list's shape: Kubernetes' PodList (core/v1), trimmed. */
static const char pod_list[] =
    "{\"kind\": \"PodList\", \"apiVersion\": \"v1\", \"metadata\": {}, \"items\": ["
    "{\"metadata\": {\"name\": \"w-0\", \"namespace\": \"default\"}, \"status\": "
    "{\"phase\": \"Running\", \"podIP\": \"10.4.0.10\"}},"
    "{\"metadata\": {\"name\": \"w-1\", \"namespace\": \"default\"}, \"status\": "
    "{\"phase\": \"Running\", \"podIP\": \"10.4.0.11\"}}]}";

static cres_result replay_perform(void *user, const cres_http_request *req,
                                  cres_http_response *resp, const cres_allocator *alloc,
                                  cres_error *err) {
    size_t n = sizeof pod_list - 1;
    (void)user;
    (void)req;
    resp->body = (char *)alloc->alloc(alloc->user, n + 1);
    if (!resp->body) return cres_error_set(err, CRES_ERR_OUT_OF_MEMORY, "replay: out of memory");
    memcpy(resp->body, pod_list, n + 1);
    resp->body_len = n;
    resp->status = 200;
    return CRES_OK;
}

/* One resolve through the replaying transport with a zeroed config but for the transport. */
static cres_result resolve_replayed(cres_cluster_spec **spec, cres_error *err) {
    cres_config config;
    cres_k8s_options o;
    cres_resolver *r = NULL;
    cres_result res;
    memset(&config, 0, sizeof config);
    config.transport.perform = replay_perform;
    config.getenv.fn = no_env;
    memset(&o, 0, sizeof o);
    o.config = &config;
    o.server = "http://replay.invalid";
    res = cres_k8s_resolver_create(&o, &r, err);
    if (res == CRES_OK) res = cres_resolve(r, spec, err);
    cres_resolver_free(r);
    return res;
}

static void test_zeroed_config_hands_out_callable_allocators(void **state) {
    cres_cluster_spec *spec = NULL;
    cres_resolver *r = NULL;
    cres_error err;
    const cres_allocator *a;
    void *p;
    (void)state;
    assert_int_equal(resolve_replayed(&spec, &err), CRES_OK);
    assert_string_equal(cres_spec_task_address(spec, "worker", 1), "10.4.0.11:8470");
    cres_spec_free(spec);
    assert_int_equal(cres_local_resolver_create(NULL, &r, &err), CRES_OK);
    a = cres_resolver_allocator(r);
    p = a->alloc(a->user, 16);
    assert_non_null(p);
    a->free(a->user, p);
    cres_resolver_free(r);
    assert_true(counts.mallocs > 3);
    assert_int_equal(counts.live, 0);
}

/* ... and each CRES_MALLOC of it failing in turn, the transport's own among them. */
static void test_zeroed_config_transport_walk(void **state) {
    long n, total = 0;
    (void)state;
    for (n = 1;; n++) {
        cres_cluster_spec *spec = NULL;
        cres_error err;
        cres_result r;
        memset(&counts, 0, sizeof counts);
        counts.fail_at = n;
        r = resolve_replayed(&spec, &err);
        cres_spec_free(spec);
        assert_int_equal(counts.live, 0);
        if (counts.calls < n) {
            assert_int_equal(r, CRES_OK);
            break;
        }
        assert_int_equal(r, CRES_ERR_OUT_OF_MEMORY);
        assert_true(strlen(err.message) > 0);
        total++;
    }
    assert_true(total > 10);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup(test_spec_building_uses_the_macros, reset_counts),
        cmocka_unit_test_setup(test_zeroed_allocator_means_the_macros, reset_counts),
        cmocka_unit_test_setup(test_spec_from_json_uses_the_macros, reset_counts),
        cmocka_unit_test_setup(test_failed_parse_returns_every_block, reset_counts),
        cmocka_unit_test_setup(test_resolvers_use_the_macros, reset_counts),
        cmocka_unit_test_setup(test_runtime_allocator_bypasses_the_macros, reset_counts),
        cmocka_unit_test_setup(test_clone_into_default_allocator_uses_the_macros, reset_counts),
        cmocka_unit_test_setup(test_failing_macros_leave_nothing, reset_counts),
        cmocka_unit_test_setup(test_zeroed_config_hands_out_callable_allocators, reset_counts),
        cmocka_unit_test_setup(test_zeroed_config_transport_walk, reset_counts),
    };
    return cmocka_run_group_tests_name("CRES_MALLOC / CRES_REALLOC / CRES_FREE", tests, NULL, NULL);
}
