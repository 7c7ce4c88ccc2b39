/* Allocation-failure injection for cluster_resolver.h.

   A counting test allocator fails the n-th allocation (n = 0, 1, 2, ...) of a scenario and
   counts the blocks that are still live. For every n the scenario must end in its expected
   result or CRES_ERR_OUT_OF_MEMORY, leave no block allocated, and free every block with the
   allocator that made it. The walk stops at the first n the scenario never reaches; that
   last, undisturbed run must give the expected result (CRES_OK for most scenarios).
   Each scenario is walked twice: failing only allocation n, and failing n and every later one.

   Build: gcc -std=c99 ... tests/test_alloc_fail.c tests/impl.c -lcmocka */

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../cluster_resolver.h"

/* ---------------------------------------------------------------------------------------
   The test allocator */

#include "alloc_walk.h"

static void test_alloc_init(test_alloc *t, cres_allocator *a, long fail_at, int sticky) {
    memset(t, 0, sizeof *t);
    t->fail_at = fail_at;
    t->sticky = sticky;
    test_alloc_use(a, t);
}

/* A config whose allocator is the test allocator and whose environment is `tf_config`
   (only the variable TF_CONFIG is set). */
static const char *fake_getenv(void *user, const char *name) {
    return strcmp(name, "TF_CONFIG") == 0 ? (const char *)user : NULL;
}

static void config_init(cres_config *c, const cres_allocator *a, const char *tf_config) {
    memset(c, 0, sizeof *c);
    c->allocator = *a;
    c->getenv.fn = fake_getenv;
    c->getenv.user = (void *)(size_t)tf_config;
}

/* ---------------------------------------------------------------------------------------
   Result checking inside scenarios */

static cres_result expect_text(const char *got, const char *want, const char *what) {
    if (strcmp(got, want) != 0) {
        print_error("    %s: got \"%s\", want \"%s\"\n", what, got, want);
        return WRONG_CONTENT;
    }
    return CRES_OK;
}

/* Builds a spec with the default allocator (outside the walk) from cluster JSON. */
static cres_cluster_spec *spec_from(const char *json) {
    cres_cluster_spec *s = NULL;
    cres_result r = cres_spec_from_json(json, strlen(json), NULL, &s, NULL);
    assert_int_equal(r, CRES_OK);
    return s;
}

static cres_result expect_spec(const cres_cluster_spec *got, const char *want_json) {
    cres_cluster_spec *want = spec_from(want_json);
    int same = cres_spec_equal(got, want);
    cres_spec_free(want);
    if (!same) {
        char text[1024] = "";
        cres_spec_to_json(got, text, sizeof text, NULL, NULL);
        print_error("    spec: got %s, want %s\n", text, want_json);
        return WRONG_CONTENT;
    }
    return CRES_OK;
}

/* ---------------------------------------------------------------------------------------
   The walk */

typedef cres_result (*scenario_fn)(test_alloc *t, const cres_allocator *a);

/* A scenario's run: the walk's ctx is the scenario function. */
typedef struct plain_scenario {
    scenario_fn fn;
} plain_scenario;

static cres_result run_plain(test_alloc *t, const void *ctx) {
    cres_allocator a;
    test_alloc_use(&a, t);
    return ((const plain_scenario *)ctx)->fn(t, &a);
}

static void walk_allocations(const char *name, scenario_fn run, cres_result expected) {
    plain_scenario sc;
    sc.fn = run;
    alloc_walk(name, run_plain, &sc, expected);
}

/* ---------------------------------------------------------------------------------------
   Scenarios: cluster specs */

static cres_result build_spec(cres_cluster_spec *s, cres_error *err) {
    static const char *const workers[] = {"w0:2222", "w1:2222", "w2:2222", "w3:2222", "w4:2222",
                                          "w5:2222", "w6:2222", "w7:2222", "w8:2222", "w9:2222"};
    static const char *const chief[] = {"chief-0:2222"};
    static const int ps_indices[] = {12, 3, 0, 20, 7, 5}; /* out of order: inserts in the middle */
    cres_result r;
    size_t i;
    if ((r = checked(cres_spec_add_job(s, "worker", workers, 10, err), err)) != CRES_OK) return r;
    for (i = 0; i < sizeof ps_indices / sizeof *ps_indices; i++) {
        char address[32];
        snprintf(address, sizeof address, "ps%d:2222", ps_indices[i]);
        if ((r = checked(cres_spec_add_task(s, "ps", ps_indices[i], address, err), err)) != CRES_OK) return r;
    }
    if ((r = checked(cres_spec_add_job(s, "chief", chief, 1, err), err)) != CRES_OK) return r;
    if ((r = checked(cres_spec_add_job(s, "empty", NULL, 0, err), err)) != CRES_OK) return r;
    if ((r = checked(cres_spec_add_task(s, "evaluator", 0, "eval:2222", err), err)) != CRES_OK) return r;
    return checked(cres_spec_add_task(s, "aux", 4, "[fe80::1]:2222", err), err);
}

static cres_result scenario_spec_build(test_alloc *t, const cres_allocator *a) {
    cres_cluster_spec *s = NULL;
    cres_error err;
    cres_result r;
    (void)t;
    r = checked(cres_spec_create(a, &s, &err), &err);
    if (r == CRES_OK) r = build_spec(s, &err);
    if (r == CRES_OK)
        r = expect_spec(s, "{\"aux\": {\"4\": \"[fe80::1]:2222\"}, \"chief\": [\"chief-0:2222\"], \"empty\": [],"
                           " \"evaluator\": [\"eval:2222\"],"
                           " \"ps\": {\"0\": \"ps0:2222\", \"3\": \"ps3:2222\", \"5\": \"ps5:2222\","
                           " \"7\": \"ps7:2222\", \"12\": \"ps12:2222\", \"20\": \"ps20:2222\"},"
                           " \"worker\": [\"w0:2222\", \"w1:2222\", \"w2:2222\", \"w3:2222\", \"w4:2222\","
                           " \"w5:2222\", \"w6:2222\", \"w7:2222\", \"w8:2222\", \"w9:2222\"]}");
    cres_spec_free(s);
    return r;
}

static const char realistic_cluster[] =
    "{\n"
    "  \"chief\": [\"chief-0.trainer.default.svc:2222\"],\n"
    "  \"worker\": [\"worker-0.trainer.default.svc:2222\", \"worker-1.trainer.default.svc:2222\",\n"
    "             \"worker-2.trainer.default.svc:2222\", \"worker-3.trainer.default.svc:2222\",\n"
    "             \"worker-4.trainer.default.svc:2222\", \"worker-5.trainer.default.svc:2222\"],\n"
    "  \"ps\": {\"0\": \"10.0.0.10:2222\", \"3\": \"10.0.0.13:2222\", \"7\": \"[2001:db8::7]:2222\"},\n"
    "  \"evaluator\": [\"evaluator-0:2222\"],\n"
    "  \"\\u00e9t\\u00e9\": {\"1\": \"caf\\u00e9.example:2222\"}\n"
    "}\n";

static cres_result check_realistic_cluster(const cres_cluster_spec *s) {
    if (cres_spec_jobs_count(s) != 5) return mismatch("realistic cluster: not 5 jobs", "");
    if (cres_spec_tasks_count(s, "worker") != 6) return mismatch("realistic cluster: not 6 workers", "");
    if (!cres_spec_task_address(s, "ps", 7) ||
        strcmp(cres_spec_task_address(s, "ps", 7), "[2001:db8::7]:2222") != 0)
        return mismatch("realistic cluster: ps 7", "");
    if (!cres_spec_task_address(s, "\xc3\xa9t\xc3\xa9", 1) ||
        strcmp(cres_spec_task_address(s, "\xc3\xa9t\xc3\xa9", 1), "caf\xc3\xa9.example:2222") != 0)
        return mismatch("realistic cluster: unicode job", "");
    return CRES_OK;
}

static cres_result scenario_spec_from_json(test_alloc *t, const cres_allocator *a) {
    cres_cluster_spec *s = NULL;
    cres_error err;
    cres_result r;
    (void)t;
    r = checked(cres_spec_from_json(realistic_cluster, strlen(realistic_cluster), a, &s, &err), &err);
    if (r != CRES_OK && s) r = mismatch("from_json failed but returned a spec", "");
    if (r == CRES_OK) r = check_realistic_cluster(s);
    cres_spec_free(s);
    return r;
}

static cres_result scenario_spec_clone(test_alloc *t, const cres_allocator *a) {
    cres_cluster_spec *src = spec_from(realistic_cluster), *copy = NULL;
    cres_error err;
    cres_result r;
    (void)t;
    r = checked(cres_spec_clone(src, a, &copy, &err), &err);
    if (r != CRES_OK && copy) r = mismatch("clone failed but returned a spec", "");
    if (r == CRES_OK && !cres_spec_equal(src, copy)) r = mismatch("clone differs from its source", "");
    cres_spec_free(copy);
    cres_spec_free(src);
    return r;
}

/* Makes `*dst` from JSON with the test allocator, outside the walk. */
static void spec_with_allocator(test_alloc *t, const cres_allocator *a, const char *json,
                                cres_cluster_spec **dst) {
    t->suspended = 1;
    assert_int_equal(cres_spec_from_json(json, strlen(json), a, dst, NULL), CRES_OK);
    t->suspended = 0;
}

static cres_result merge_and_check(test_alloc *t, const cres_allocator *a, const char *dst_json,
                                   const char *src_json, const char *want_json) {
    cres_cluster_spec *dst = NULL, *src = spec_from(src_json), *before = spec_from(dst_json);
    cres_error err;
    cres_result r;
    spec_with_allocator(t, a, dst_json, &dst);
    r = checked(cres_spec_merge(dst, src, &err), &err);
    if (r == CRES_OK) {
        if (want_json) r = expect_spec(dst, want_json);
        else r = mismatch("a conflicting merge succeeded", "");
    } else if (!cres_spec_equal(dst, before)) {
        r = mismatch("a failed merge changed dst", "");
    }
    cres_spec_free(dst);
    cres_spec_free(src);
    cres_spec_free(before);
    return r;
}

static cres_result scenario_spec_merge(test_alloc *t, const cres_allocator *a) {
    return merge_and_check(t, a, "{\"worker\": [\"a:1\", \"b:1\"], \"ps\": {\"1\": \"p1:1\"}}",
                           "{\"worker\": [\"c:1\"], \"ps\": {\"4\": \"p4:1\"}, \"chief\": [\"x:1\"],"
                           " \"eval\": []}",
                           "{\"chief\": [\"x:1\"], \"eval\": [], \"ps\": {\"1\": \"p1:1\", \"4\": \"p4:1\"},"
                           " \"worker\": [\"a:1\", \"b:1\", \"c:1\"]}");
}

/* src adds "chief" and "aux" (sorted before "ps") before it reaches the conflicting ps 1. */
static cres_result scenario_spec_merge_conflict(test_alloc *t, const cres_allocator *a) {
    return merge_and_check(t, a, "{\"worker\": [\"a:1\"], \"ps\": {\"1\": \"p1:1\", \"2\": \"p2:1\"}}",
                           "{\"aux\": [\"z:1\"], \"chief\": [\"x:1\"], \"ps\": {\"1\": \"other:1\"}}", NULL);
}

static cres_result scenario_spec_to_hostfile(test_alloc *t, const cres_allocator *a) {
    cres_cluster_spec *s = NULL;
    cres_error err;
    char text[256];
    size_t len = 0, len2 = 0;
    cres_result r;
    spec_with_allocator(t, a,
                        "{\"worker\": [\"h1:1\", \"h1:2\", \"h2:1\"], \"ps\": {\"3\": \"h0:5\"},"
                        " \"chief\": [\"h0:1\"], \"eval\": [\"[::1]:9\"]}",
                        &s);
    r = checked(cres_spec_to_hostfile(s, NULL, 0, &len, &err), &err);
    if (r == CRES_OK) r = checked(cres_spec_to_hostfile(s, text, sizeof text, &len2, &err), &err);
    if (r == CRES_OK && len != len2) r = mismatch("hostfile: length query and output disagree", "");
    if (r == CRES_OK) r = expect_text(text, "h0 slots=2\n::1 slots=1\nh1 slots=2\nh2 slots=1\n", "hostfile");
    cres_spec_free(s);
    return r;
}

/* ---------------------------------------------------------------------------------------
   Scenarios: resolvers */

static const char full_tf_config[] =
    "{\"cluster\": {\"chief\": [\"chief-0:2222\"],"
    " \"worker\": [\"w0:2222\", \"w1:2222\", \"w2:2222\", \"w3:2222\", \"w4:2222\"],"
    " \"ps\": {\"0\": \"ps0:2222\", \"5\": \"ps5:2222\"}},"
    " \"task\": {\"type\": \"worker\", \"index\": 1},"
    " \"rpc_layer\": \"grpc\", \"environment\": \"cloud\","
    " \"session_master\": \"grpc://session:2222\"}";

static const char full_tf_config_spec[] =
    "{\"chief\": [\"chief-0:2222\"], \"worker\": [\"w0:2222\", \"w1:2222\", \"w2:2222\", \"w3:2222\","
    " \"w4:2222\"], \"ps\": {\"0\": \"ps0:2222\", \"5\": \"ps5:2222\"}}";

/* Same cluster, no session_master, the index as a string: master() resolves. */
static const char plain_tf_config[] =
    "{\"cluster\": {\"chief\": [\"chief-0:2222\"],"
    " \"worker\": [\"w0:2222\", \"w1:2222\", \"w2:2222\", \"w3:2222\", \"w4:2222\"],"
    " \"ps\": {\"0\": \"ps0:2222\", \"5\": \"ps5:2222\"}},"
    " \"task\": {\"type\": \"ps\", \"index\": \"5\"}, \"rpc_layer\": \"grpc\"}";

static cres_result check_own_task(const cres_resolver *res, const char *type, int id, const char *rpc,
                                  const char *environment) {
    if (!cres_task_type(res) || strcmp(cres_task_type(res), type) != 0) return mismatch("task type", "");
    if (cres_task_id(res) != id) return mismatch("task id", "");
    if (!cres_rpc_layer(res) || strcmp(cres_rpc_layer(res), rpc) != 0) return mismatch("rpc layer", "");
    if (!environment) return cres_environment(res) ? mismatch("environment", "") : CRES_OK;
    return cres_environment(res) ? expect_text(cres_environment(res), environment, "environment")
                                 : mismatch("environment", "");
}

/* resolve() against a wanted spec, then master() of the own task against a wanted text. */
static cres_result resolve_and_master(cres_resolver *res, const char *want_spec, const char *want_master) {
    cres_cluster_spec *spec = NULL;
    cres_error err;
    char master[128];
    cres_result r = checked(cres_resolve(res, &spec, &err), &err);
    if (r != CRES_OK && spec) r = mismatch("resolve failed but returned a spec", "");
    if (r == CRES_OK) r = expect_spec(spec, want_spec);
    cres_spec_free(spec);
    if (r == CRES_OK) r = checked(cres_master(res, master, sizeof master, NULL, &err), &err);
    if (r == CRES_OK) r = expect_text(master, want_master, "master");
    return r;
}

static cres_result tfconfig_run(const cres_allocator *a, const char *tf_config, cres_resolver **out) {
    cres_config config;
    cres_tfconfig_options o;
    cres_error err;
    cres_result r;
    config_init(&config, a, tf_config);
    memset(&o, 0, sizeof o);
    o.config = &config;
    r = checked(cres_tfconfig_resolver_create(&o, out, &err), &err);
    if (r != CRES_OK && *out) r = mismatch("create failed but returned a resolver", "");
    return r;
}

static cres_result scenario_tfconfig_full(test_alloc *t, const cres_allocator *a) {
    cres_resolver *res = NULL;
    cres_result r = tfconfig_run(a, full_tf_config, &res);
    (void)t;
    if (r == CRES_OK) r = check_own_task(res, "worker", 1, "grpc", "cloud");
    if (r == CRES_OK) r = resolve_and_master(res, full_tf_config_spec, "grpc://session:2222");
    cres_resolver_free(res);
    return r;
}

static cres_result scenario_tfconfig_master_resolves(test_alloc *t, const cres_allocator *a) {
    cres_resolver *res = NULL;
    cres_result r = tfconfig_run(a, plain_tf_config, &res);
    (void)t;
    if (r == CRES_OK) r = check_own_task(res, "ps", 5, "grpc", NULL);
    if (r == CRES_OK) r = resolve_and_master(res, full_tf_config_spec, "grpc://ps5:2222");
    cres_resolver_free(res);
    return r;
}

/* The short calls that resolve by themselves: cres_launch and cres_tfconfig. */
static cres_result scenario_launch_and_tfconfig(test_alloc *t, const cres_allocator *a) {
    static const char want_tfconfig[] =
        "{\"cluster\": {\"chief\": [\"chief-0:2222\"], \"ps\": {\"0\": \"ps0:2222\", \"5\": "
        "\"ps5:2222\"}, \"worker\": [\"w0:2222\", \"w1:2222\", \"w2:2222\", \"w3:2222\", "
        "\"w4:2222\"]}, \"task\": {\"type\": \"ps\", \"index\": 5}, \"rpc_layer\": \"grpc\", "
        "\"environment\": \"\"}";
    cres_resolver *res = NULL;
    cres_launch_info info;
    cres_error err;
    char tfconfig[512];
    cres_result r = tfconfig_run(a, plain_tf_config, &res);
    (void)t;
    if (r == CRES_OK) r = checked(cres_launch(res, &info, &err), &err);
    /* ranks: chief 0, ps 1-2, worker 3-7; ps 5 is rank 2 */
    if (r == CRES_OK && (info.world_size != 8 || info.rank != 2 || info.master_port != 2222))
        r = mismatch("launch info", "");
    if (r == CRES_OK) r = checked(cres_tfconfig(res, tfconfig, sizeof tfconfig, NULL, &err), &err);
    if (r == CRES_OK) r = expect_text(tfconfig, want_tfconfig, "TF_CONFIG");
    cres_resolver_free(res);
    return r;
}

/* Malformed documents: each must end in CRES_ERR_ENVIRONMENT (or out of memory). */
static const char *const malformed_tf_configs[] = {
    "{\"cluster\": {\"worker\": [\"w0:1\", \"w1:1\"]}, \"task\": {\"type\": \"worker\", \"index\": 1}",
    "{\"cluster\": {\"worker\": [\"w0:1\", \"w1:1\"]}, \"task\": {\"type\": \"worker\", \"index\": \"x\"}}",
    "{\"cluster\": {\"worker\": [\"w0:1\"], \"ps\": {\"0\": \"p:1\"}}, \"task\": {\"type\": \"chief\", \"index\": 0}}",
    "{\"cluster\": {\"worker\": [\"w0:1\"]}, \"task\": {\"type\": \"worker\", \"index\": 7}, \"rpc_layer\": \"grpc\"}",
    "{\"cluster\": {\"worker\": [\"w0:1\"], \"worker\": [\"w1:1\"]}}",
    "{\"cluster\": {\"worker\": [\"w0:1\"], \"ps\": {\"0\": \"p:1\", \"00\": \"q:1\"}}}",
    "{\"cluster\": {\"worker\": [\"w0:1\", 5]}}",
    "{\"cluster\": {\"worker\": [\"w0:1\"]}, \"task\": {\"type\": \"worker\", \"index\": 0}, \"rpc_layer\": 3}",
    "{\"cluster\": {\"worker\": [\"w0:1\"]}, \"task\": {\"type\": \"worker\", \"index\": -1}}",
    "[\"cluster\"]",
};
static size_t malformed_current;

static cres_result scenario_tfconfig_malformed(test_alloc *t, const cres_allocator *a) {
    cres_resolver *res = NULL;
    cres_result r = tfconfig_run(a, malformed_tf_configs[malformed_current], &res);
    (void)t;
    if (r == CRES_OK) r = mismatch("a malformed TF_CONFIG was accepted", "");
    cres_resolver_free(res);
    return r;
}

static cres_cluster_spec *simple_spec_a(void) {
    return spec_from("{\"worker\": [\"a0:2222\", \"a1:2222\"], \"ps\": {\"2\": \"pa:2222\"}}");
}

static cres_cluster_spec *simple_spec_b(void) {
    return spec_from("{\"worker\": [\"b0:2222\"], \"ps\": {\"5\": \"pb:2222\"}, \"chief\": [\"c:2222\"]}");
}

static cres_result simple_create(const cres_config *config, const cres_cluster_spec *spec, const char *type,
                                 int id, cres_resolver **out) {
    cres_simple_options o;
    cres_accelerators acc;
    cres_error err;
    cres_result r;
    memset(&acc, 0, sizeof acc);
    strcpy(acc.items[0].type, "GPU");
    acc.items[0].count = 4;
    acc.count = 1;
    memset(&o, 0, sizeof o);
    o.config = config;
    o.spec = spec;
    o.task_type = type;
    o.task_id = id;
    o.rpc_layer = "grpc";
    o.environment = "google";
    o.accelerators = &acc;
    r = checked(cres_simple_resolver_create(&o, out, &err), &err);
    if (r != CRES_OK && *out) r = mismatch("create failed but returned a resolver", "");
    return r;
}

static cres_result scenario_simple(test_alloc *t, const cres_allocator *a) {
    cres_config config;
    cres_cluster_spec *spec = simple_spec_a();
    cres_resolver *res = NULL;
    cres_accelerators acc;
    cres_error err;
    cres_result r;
    (void)t;
    config_init(&config, a, NULL);
    r = simple_create(&config, spec, "worker", 1, &res);
    if (r == CRES_OK) r = check_own_task(res, "worker", 1, "grpc", "google");
    if (r == CRES_OK)
        r = resolve_and_master(res, "{\"worker\": [\"a0:2222\", \"a1:2222\"], \"ps\": {\"2\": \"pa:2222\"}}",
                               "grpc://a1:2222");
    if (r == CRES_OK) r = checked(cres_num_accelerators(res, &acc, &err), &err);
    if (r == CRES_OK && (acc.count != 1 || acc.items[0].count != 4)) r = mismatch("accelerators", "");
    cres_resolver_free(res);
    cres_spec_free(spec);
    return r;
}

static const char union_spec[] =
    "{\"chief\": [\"c:2222\"], \"worker\": [\"a0:2222\", \"a1:2222\", \"b0:2222\"],"
    " \"ps\": {\"2\": \"pa:2222\", \"5\": \"pb:2222\"}}";

/* Two simple children made with the test allocator, so their allocations are walked too. */
static cres_result union_children(const cres_config *config, cres_resolver *children[2]) {
    cres_cluster_spec *a = simple_spec_a(), *b = simple_spec_b();
    cres_result r;
    children[0] = children[1] = NULL;
    r = simple_create(config, a, "worker", 0, &children[0]);
    if (r == CRES_OK) r = simple_create(config, b, NULL, 0, &children[1]);
    if (r != CRES_OK) {
        cres_resolver_free(children[0]);
        children[0] = NULL;
    }
    cres_spec_free(a);
    cres_spec_free(b);
    return r;
}

static cres_result union_create(const cres_config *config, cres_resolver *children[2], int owns,
                                cres_resolver **out) {
    cres_union_options o;
    cres_error err;
    cres_result r;
    memset(&o, 0, sizeof o);
    o.config = config;
    o.resolvers = children;
    o.resolvers_count = 2;
    o.owns_resolvers = owns;
    r = checked(cres_union_resolver_create(&o, out, &err), &err);
    if (r != CRES_OK && *out) r = mismatch("create failed but returned a resolver", "");
    return r;
}

static cres_result union_scenario(const cres_allocator *a, int owns) {
    cres_config config;
    cres_resolver *children[2], *u = NULL;
    cres_result r;
    config_init(&config, a, NULL);
    if ((r = union_children(&config, children)) != CRES_OK) return r;
    r = union_create(&config, children, owns, &u);
    if (r == CRES_OK) r = check_own_task(u, "worker", 0, "grpc", "google");
    if (r == CRES_OK) r = resolve_and_master(u, union_spec, "grpc://a0:2222");
    cres_resolver_free(u);
    if (!owns) { /* borrowed: ours to free, whatever happened */
        cres_resolver_free(children[0]);
        cres_resolver_free(children[1]);
    }
    return r;
}

static cres_result scenario_union_borrowed(test_alloc *t, const cres_allocator *a) {
    (void)t;
    return union_scenario(a, 0);
}

/* With owns_resolvers the union frees the children, also when its create fails. */
static cres_result scenario_union_owning(test_alloc *t, const cres_allocator *a) {
    (void)t;
    return union_scenario(a, 1);
}

static cres_result scenario_local(test_alloc *t, const cres_allocator *a) {
    cres_config config;
    cres_local_options o;
    cres_resolver *res = NULL;
    cres_error err;
    cres_result r;
    (void)t;
    config_init(&config, a, NULL);
    memset(&o, 0, sizeof o);
    o.config = &config;
    o.job_name = "trainer";
    o.host = "::1";
    o.port = 1234;
    o.rpc_layer = "grpc";
    r = checked(cres_local_resolver_create(&o, &res, &err), &err);
    if (r != CRES_OK && res) r = mismatch("create failed but returned a resolver", "");
    if (r == CRES_OK) r = check_own_task(res, "trainer", 0, "grpc", NULL);
    if (r == CRES_OK) r = resolve_and_master(res, "{\"trainer\": [\"[::1]:1234\"]}", "grpc://[::1]:1234");
    cres_resolver_free(res);
    return r;
}

static cres_result auto_scenario(const cres_allocator *a, const char *tf_config, const char *want_backend,
                                 const char *want_spec, const char *want_master) {
    cres_config config;
    cres_auto_options o;
    cres_resolver *res = NULL;
    cres_error err;
    cres_result r;
    config_init(&config, a, tf_config);
    memset(&o, 0, sizeof o);
    o.config = &config;
    o.task_type = "worker";
    o.task_id = 0;
    r = checked(cres_auto_resolver_create(&o, &res, &err), &err);
    if (r != CRES_OK && res) r = mismatch("create failed but returned a resolver", "");
    if (r == CRES_OK) r = expect_text(cres_resolver_name(res), want_backend, "backend");
    if (r == CRES_OK) r = resolve_and_master(res, want_spec, want_master);
    cres_resolver_free(res);
    return r;
}

static cres_result scenario_auto_local(test_alloc *t, const cres_allocator *a) {
    (void)t;
    return auto_scenario(a, NULL, "local", "{\"worker\": [\"localhost:8470\"]}", "localhost:8470");
}

static cres_result scenario_auto_tfconfig(test_alloc *t, const cres_allocator *a) {
    (void)t;
    return auto_scenario(a, plain_tf_config, "tfconfig", full_tf_config_spec, "grpc://w0:2222");
}

/* ---------------------------------------------------------------------------------------
   Scenarios: a failed add must not change the spec (nothing is left allocated on failure) */

static cres_result add_leaves_spec_unchanged(test_alloc *t, const cres_allocator *a, int whole_job) {
    static const char *const addresses[] = {"n0:1", "n1:1", "n2:1", "n3:1", "n4:1", "n5:1"};
    static const char start[] = "{\"worker\": [\"w0:1\"], \"ps\": {\"3\": \"p3:1\"}}";
    cres_cluster_spec *s = NULL, *before = spec_from(start);
    cres_error err;
    cres_result r;
    spec_with_allocator(t, a, start, &s);
    if (whole_job) r = checked(cres_spec_add_job(s, "new", addresses, 6, &err), &err);
    else r = checked(cres_spec_add_task(s, "new", 2, "n2:1", &err), &err);
    if (r != CRES_OK && !cres_spec_equal(s, before)) {
        char text[512] = "";
        cres_spec_to_json(s, text, sizeof text, NULL, NULL);
        print_error("    after a failed %s the spec is %s\n", whole_job ? "add_job" : "add_task", text);
        r = mismatch("a failed add changed the spec", "");
    }
    cres_spec_free(s);
    cres_spec_free(before);
    return r;
}

/* "ps" exists with task 5 only: a failed add_job must drop its own tasks 0..2, not task 5. */
static cres_result scenario_add_job_beside_sparse_tasks(test_alloc *t, const cres_allocator *a) {
    static const char *const addresses[] = {"n0:1", "n1:1", "n2:1"};
    static const char start[] = "{\"worker\": [\"w0:1\"], \"ps\": {\"5\": \"p5:1\"}}";
    cres_cluster_spec *s = NULL, *before = spec_from(start);
    cres_error err;
    cres_result r;
    spec_with_allocator(t, a, start, &s);
    r = checked(cres_spec_add_job(s, "ps", addresses, 3, &err), &err);
    if (r == CRES_OK)
        r = expect_spec(s, "{\"worker\": [\"w0:1\"], \"ps\": {\"0\": \"n0:1\", \"1\": \"n1:1\", \"2\": \"n2:1\","
                           " \"5\": \"p5:1\"}}");
    else if (!cres_spec_equal(s, before))
        r = mismatch("a failed add_job changed the spec", "");
    cres_spec_free(s);
    cres_spec_free(before);
    return r;
}

/* "ps" has task 1: add_job of three tasks conflicts, and must leave the spec as it was. */
static cres_result scenario_add_job_conflict(test_alloc *t, const cres_allocator *a) {
    static const char *const addresses[] = {"n0:1", "n1:1", "n2:1"};
    static const char start[] = "{\"worker\": [\"w0:1\"], \"ps\": {\"1\": \"p1:1\", \"9\": \"p9:1\"}}";
    cres_cluster_spec *s = NULL, *before = spec_from(start);
    cres_error err;
    cres_result r;
    spec_with_allocator(t, a, start, &s);
    r = checked(cres_spec_add_job(s, "ps", addresses, 3, &err), &err);
    if (r == CRES_OK) r = mismatch("add_job over an existing task succeeded", "");
    else if (!cres_spec_equal(s, before)) r = mismatch("a failed add_job changed the spec", "");
    cres_spec_free(s);
    cres_spec_free(before);
    return r;
}

/* "eval" exists and has no tasks (as "eval": [] in TF_CONFIG): add_job fills it. */
static cres_result scenario_add_job_to_empty_job(test_alloc *t, const cres_allocator *a) {
    static const char *const addresses[] = {"e0:1", "e1:1"};
    cres_cluster_spec *s = NULL;
    cres_error err;
    cres_result r;
    spec_with_allocator(t, a, "{\"worker\": [\"w0:1\"], \"eval\": []}", &s);
    r = checked(cres_spec_add_job(s, "eval", addresses, 2, &err), &err);
    if (r == CRES_OK) r = expect_spec(s, "{\"worker\": [\"w0:1\"], \"eval\": [\"e0:1\", \"e1:1\"]}");
    else if (cres_spec_tasks_count(s, "eval") != 0 || cres_spec_jobs_count(s) != 2)
        r = mismatch("a failed add_job changed the spec", "");
    cres_spec_free(s);
    return r;
}

static cres_result scenario_add_task_atomic(test_alloc *t, const cres_allocator *a) {
    return add_leaves_spec_unchanged(t, a, 0);
}

static cres_result scenario_add_job_atomic(test_alloc *t, const cres_allocator *a) {
    return add_leaves_spec_unchanged(t, a, 1);
}

/* ---------------------------------------------------------------------------------------
   Tests */

static void test_allocator_fails_the_nth_allocation(void **state) {
    test_alloc t;
    cres_allocator a;
    void *p0, *p1;
    (void)state;
    test_alloc_init(&t, &a, 1, 0);
    p0 = a.alloc(a.user, 8);
    p1 = a.alloc(a.user, 8);
    assert_non_null(p0);
    assert_null(p1);
    assert_true(t.triggered);
    assert_int_equal(t.live, 1);
    a.free(a.user, p0);
    assert_int_equal(t.live, 0);
}

static void test_allocator_detects_foreign_frees(void **state) {
    test_alloc t, other;
    cres_allocator a, b;
    void *p;
    (void)state;
    test_alloc_init(&t, &a, -1, 0);
    test_alloc_init(&other, &b, -1, 0);
    p = a.alloc(a.user, 8);
    b.free(b.user, p);
    assert_int_equal(other.bad_frees, 1);
    a.free(a.user, p);
    assert_int_equal(t.live, 0);
}

static void test_spec_create_and_add_survive_oom(void **state) {
    (void)state;
    walk_allocations("spec_create + add_task/add_job", scenario_spec_build, CRES_OK);
}

static void test_spec_from_json_survives_oom(void **state) {
    (void)state;
    walk_allocations("spec_from_json", scenario_spec_from_json, CRES_OK);
}

static void test_spec_clone_survives_oom(void **state) {
    (void)state;
    walk_allocations("spec_clone", scenario_spec_clone, CRES_OK);
}

static void test_spec_merge_survives_oom(void **state) {
    (void)state;
    walk_allocations("spec_merge", scenario_spec_merge, CRES_OK);
}

static void test_conflicting_merge_leaves_dst_unchanged(void **state) {
    (void)state;
    walk_allocations("spec_merge (conflict)", scenario_spec_merge_conflict, CRES_ERR_CONFLICT);
}

static void test_spec_to_hostfile_survives_oom(void **state) {
    (void)state;
    walk_allocations("spec_to_hostfile", scenario_spec_to_hostfile, CRES_OK);
}

static void test_tfconfig_full_survives_oom(void **state) {
    (void)state;
    walk_allocations("tfconfig (full TF_CONFIG) + resolve + master", scenario_tfconfig_full, CRES_OK);
}

static void test_tfconfig_master_survives_oom(void **state) {
    (void)state;
    walk_allocations("tfconfig (no session_master) + resolve + master", scenario_tfconfig_master_resolves,
                     CRES_OK);
}

static void test_launch_and_tfconfig_survive_oom(void **state) {
    (void)state;
    walk_allocations("tfconfig + cres_launch + cres_tfconfig", scenario_launch_and_tfconfig, CRES_OK);
}

static void test_malformed_tfconfig_is_environment_error_under_oom(void **state) {
    char name[64];
    (void)state;
    for (malformed_current = 0; malformed_current < sizeof malformed_tf_configs / sizeof *malformed_tf_configs;
         malformed_current++) {
        snprintf(name, sizeof name, "tfconfig (malformed #%zu)", malformed_current);
        walk_allocations(name, scenario_tfconfig_malformed, CRES_ERR_ENVIRONMENT);
    }
}

static void test_simple_resolver_survives_oom(void **state) {
    (void)state;
    walk_allocations("simple create + resolve + master", scenario_simple, CRES_OK);
}

static void test_union_of_borrowed_resolvers_survives_oom(void **state) {
    (void)state;
    walk_allocations("union (owns_resolvers = 0)", scenario_union_borrowed, CRES_OK);
}

static void test_union_of_owned_resolvers_survives_oom(void **state) {
    (void)state;
    walk_allocations("union (owns_resolvers = 1)", scenario_union_owning, CRES_OK);
}

static void test_local_resolver_survives_oom(void **state) {
    (void)state;
    walk_allocations("local create + resolve + master", scenario_local, CRES_OK);
}

static void test_auto_resolver_survives_oom(void **state) {
    (void)state;
    walk_allocations("auto (local) create + resolve + master", scenario_auto_local, CRES_OK);
    walk_allocations("auto (tfconfig) create + resolve + master", scenario_auto_tfconfig, CRES_OK);
}

static void test_failed_add_task_leaves_spec_unchanged(void **state) {
    (void)state;
    walk_allocations("spec_add_task atomic", scenario_add_task_atomic, CRES_OK);
}

static void test_failed_add_job_leaves_spec_unchanged(void **state) {
    (void)state;
    walk_allocations("spec_add_job atomic", scenario_add_job_atomic, CRES_OK);
}

static void test_failed_add_job_keeps_existing_tasks(void **state) {
    (void)state;
    walk_allocations("spec_add_job beside sparse tasks", scenario_add_job_beside_sparse_tasks, CRES_OK);
}

static void test_conflicting_add_job_leaves_spec_unchanged(void **state) {
    (void)state;
    walk_allocations("spec_add_job (conflict)", scenario_add_job_conflict, CRES_ERR_CONFLICT);
}

/* Last: on the header of commit 2953813 this crashes (NULL dereference in cres_spec_add_job). */
static void test_add_job_fills_an_existing_empty_job(void **state) {
    (void)state;
    walk_allocations("spec_add_job to an empty job", scenario_add_job_to_empty_job, CRES_OK);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_allocator_fails_the_nth_allocation),
        cmocka_unit_test(test_allocator_detects_foreign_frees),
        cmocka_unit_test(test_spec_create_and_add_survive_oom),
        cmocka_unit_test(test_spec_from_json_survives_oom),
        cmocka_unit_test(test_spec_clone_survives_oom),
        cmocka_unit_test(test_spec_merge_survives_oom),
        cmocka_unit_test(test_conflicting_merge_leaves_dst_unchanged),
        cmocka_unit_test(test_spec_to_hostfile_survives_oom),
        cmocka_unit_test(test_tfconfig_full_survives_oom),
        cmocka_unit_test(test_tfconfig_master_survives_oom),
        cmocka_unit_test(test_launch_and_tfconfig_survive_oom),
        cmocka_unit_test(test_malformed_tfconfig_is_environment_error_under_oom),
        cmocka_unit_test(test_simple_resolver_survives_oom),
        cmocka_unit_test(test_union_of_borrowed_resolvers_survives_oom),
        cmocka_unit_test(test_union_of_owned_resolvers_survives_oom),
        cmocka_unit_test(test_local_resolver_survives_oom),
        cmocka_unit_test(test_auto_resolver_survives_oom),
        cmocka_unit_test(test_failed_add_task_leaves_spec_unchanged),
        cmocka_unit_test(test_failed_add_job_leaves_spec_unchanged),
        cmocka_unit_test(test_failed_add_job_keeps_existing_tasks),
        cmocka_unit_test(test_conflicting_add_job_leaves_spec_unchanged),
        cmocka_unit_test(test_add_job_fills_an_existing_empty_job),
    };
    /* Unbuffered, so that the results so far are not lost if a test crashes the program. */
    setvbuf(stdout, NULL, _IONBF, 0);
    return cmocka_run_group_tests_name("allocation failure", tests, NULL, NULL);
}
