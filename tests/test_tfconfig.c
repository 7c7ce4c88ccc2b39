/* Unit tests for the TF_CONFIG resolver of cluster_resolver.h. Cases named Tn mirror
   TensorFlow's tfconfig_cluster_resolver_test.py as listed in reference/tf-resolvers.md
   section 4.3. T13 and T14 are not here: they count accelerators from a TF device list,
   which this library does not have (a tfconfig resolver reports no accelerators).
   TF_CONFIG is only ever given through the cres_config.getenv hook or options.json: these
   tests never call setenv. Unlike TF, which re-reads TF_CONFIG on every access and raises
   late, we read and check it once, at create, and report errors with the field named. */

#include "test_util.h"

/* ---------------------------------------------------------------------------------------
   Helpers of this file (the shared ones are in test_util.h). */

/* The process environment as the library sees it: a small table behind the getenv hook. */
typedef struct env_table {
    const char *names[4];
    const char *values[4];
    int lookups;
} env_table;

static env_table env;

static const char *table_getenv(void *user, const char *name) {
    env_table *t = (env_table *)user;
    size_t i;
    t->lookups++;
    for (i = 0; i < 4; i++)
        if (t->names[i] && strcmp(t->names[i], name) == 0) return t->values[i];
    return NULL;
}

static cres_config env_config(void) {
    cres_config c;
    memset(&c, 0, sizeof c);
    c.getenv.fn = table_getenv;
    c.getenv.user = &env;
    return c;
}

/* Sets TF_CONFIG (NULL = unset) and creates a resolver with the given options. */
static cres_result tf_create(const char *tf_config, cres_tfconfig_options o, cres_resolver **r, cres_error *err) {
    cres_config cfg = env_config();
    memset(&env, 0, sizeof env);
    env.names[0] = "TF_CONFIG";
    env.values[0] = tf_config;
    if (!o.config) o.config = &cfg;
    return cres_tfconfig_resolver_create(&o, r, err);
}

static cres_tfconfig_options no_options(void) {
    cres_tfconfig_options o;
    memset(&o, 0, sizeof o);
    return o;
}

/* A resolver over TF_CONFIG = dq(sq). */
static cres_resolver *tf(const char *sq) {
    cres_resolver *r = NULL;
    cres_error err;
    OK(tf_create(dq(sq), no_options(), &r, &err));
    assert_non_null(r);
    assert_string_equal(cres_resolver_name(r), "tfconfig");
    return r;
}

/* TF_CONFIG `text` (exact bytes) must fail with `want`, return nothing, and name both
   TF_CONFIG and `sub` in the message. */
static void expect_bad(const char *text, cres_result want, const char *sub, int line) {
    static int sentinel;
    cres_resolver *r = (cres_resolver *)(void *)&sentinel;
    cres_error err;
    cres_result got = tf_create(text, no_options(), &r, &err);
    if (got == CRES_OK) cres_resolver_free(r); /* so that a failure here leaks nothing */
    if (got != want)
        fail_msg("line %d: got %s, want %s: %s", line, cres_result_string(got), cres_result_string(want), err.message);
    if (got != CRES_OK && r) fail_msg("line %d: a resolver came back on failure", line);
    if (err.result != want) fail_msg("line %d: err.result is %d", line, (int)err.result);
    if (!strstr(err.message, sub)) fail_msg("line %d: \"%s\" does not contain \"%s\"", line, err.message, sub);
    if (!strstr(err.message, "TF_CONFIG")) fail_msg("line %d: \"%s\" does not name TF_CONFIG", line, err.message);
}
#define BAD_TF(sq, want, sub) expect_bad(dq(sq), (want), (sub), __LINE__)
#define BAD_ENV(sq, sub) BAD_TF(sq, CRES_ERR_ENVIRONMENT, sub)

static const char *resolved_json(cres_resolver *r) {
    static char buf[2048];
    cres_cluster_spec *s = NULL;
    cres_error err;
    OK(cres_resolve(r, &s, &err));
    OK(cres_spec_to_json(s, buf, sizeof buf, NULL, &err));
    cres_spec_free(s);
    return buf;
}

static const char *master_of(cres_resolver *r, const char *type, int id, const char *rpc) {
    static char buf[2][512];
    static int next;
    char *out = buf[next++ % 2];
    cres_error err;
    OK(cres_master_of(r, type, id, rpc, out, sizeof buf[0], NULL, &err));
    return out;
}

static char *repeat(char ch, size_t n) {
    char *s = (char *)malloc(n + 1);
    assert_non_null(s);
    memset(s, ch, n);
    s[n] = '\0';
    return s;
}

#define C "{'ps': ['ps0:2222', 'ps1:2222'], 'worker': ['worker0:2222', 'worker1:2222', 'worker2:2222']}"

/* ---------------------------------------------------------------------------------------
   TensorFlow's cases */

/* TF T1 */
static void t1_cluster_spec(void **state) {
    cres_resolver *r = tf("{'cluster': " C ", 'task': {'type': 'ps', 'index': 0}}");
    (void)state;
    assert_string_equal(resolved_json(r), dq(C));
    cres_resolver_free(r);
}

/* TF T2 */
static void t2_master_of_own_task(void **state) {
    cres_resolver *r = tf("{'cluster': " C ", 'task': {'type': 'ps', 'index': 0}}");
    (void)state;
    assert_string_equal(master_of(r, NULL, -1, NULL), "ps0:2222");
    cres_resolver_free(r);
}

/* TF T3 */
static void t3_master_of_given_task(void **state) {
    cres_resolver *r = tf("{'cluster': " C ", 'task': {'type': 'ps', 'index': 0}}");
    (void)state;
    assert_string_equal(master_of(r, "worker", 1, NULL), "worker1:2222");
    cres_resolver_free(r);
}

/* TF T4 */
static void t4_session_master(void **state) {
    cres_resolver *r = tf("{'cluster': " C ", 'session_master': 'sessionmaster:2222', 'task': {'type': 'ps', 'index': 0}}");
    (void)state;
    assert_string_equal(master_of(r, NULL, -1, NULL), "sessionmaster:2222");
    cres_resolver_free(r);
}

/* TF 3.3: session_master is returned verbatim, without the rpc prefix. */
static void session_master_has_no_rpc_prefix(void **state) {
    cres_resolver *r = tf("{'cluster': " C ", 'rpc_layer': 'grpc', 'session_master': 'sm:1'}");
    (void)state;
    assert_string_equal(master_of(r, NULL, -1, NULL), "sm:1");
    assert_string_equal(master_of(r, NULL, -1, "http"), "sm:1");
    cres_resolver_free(r);
}

/* TF T5 */
static void t5_master_with_rpc_layer(void **state) {
    cres_resolver *r = tf("{'cluster': " C ", 'rpc_layer': 'grpc', 'task': {'type': 'ps', 'index': 0}}");
    (void)state;
    assert_string_equal(master_of(r, NULL, -1, NULL), "grpc://ps0:2222");
    assert_string_equal(master_of(r, NULL, -1, ""), "ps0:2222"); /* TF: an explicit '' disables it */
    cres_resolver_free(r);
}

/* TF T6 */
static void t6_properties(void **state) {
    cres_resolver *r = tf("{'cluster': " C ", 'rpc_layer': 'grpc', 'task': {'type': 'ps', 'index': 0}}");
    (void)state;
    assert_string_equal(cres_task_type(r), "ps");
    assert_int_equal(cres_task_id(r), 0);
    assert_string_equal(cres_rpc_layer(r), "grpc");
    cres_resolver_free(r);
}

/* TF T7 */
static void t7_options_then_setters(void **state) {
    cres_tfconfig_options o = no_options();
    cres_resolver *r = NULL;
    cres_error err;
    (void)state;
    o.task_type = "ps";
    o.task_id = 0;
    OK(tf_create(dq("{'cluster': " C ", 'rpc_layer': 'grpc', 'task': {'type': 'ps', 'index': 1}}"), o, &r, &err));
    assert_string_equal(master_of(r, NULL, -1, NULL), "grpc://ps0:2222");
    assert_string_equal(cres_task_type(r), "ps");
    assert_int_equal(cres_task_id(r), 0);
    OK(cres_set_task(r, "worker", 1, &err));
    OK(cres_set_rpc_layer(r, "test", &err));
    assert_string_equal(master_of(r, NULL, -1, NULL), "test://worker1:2222");
    assert_string_equal(cres_task_type(r), "worker");
    assert_int_equal(cres_task_id(r), 1);
    assert_string_equal(cres_rpc_layer(r), "test");
    cres_resolver_free(r);
}

/* TF T8 */
static void t8_integer_task_type_is_a_string(void **state) {
    cres_resolver *r = tf("{'cluster': {'123456': ['ps0:2222', 'ps1:2222'], 'worker': ['worker0:2222', "
                          "'worker1:2222', 'worker2:2222']}, 'rpc_layer': 'grpc', "
                          "'task': {'type': 123456, 'index': 0}}");
    (void)state;
    assert_string_equal(cres_task_type(r), "123456");
    assert_string_equal(master_of(r, NULL, -1, NULL), "grpc://ps0:2222");
    cres_resolver_free(r);
}

/* TF T9 */
static void t9_string_task_index_is_an_integer(void **state) {
    cres_resolver *r = tf("{'cluster': " C ", 'rpc_layer': 'grpc', 'task': {'type': 'ps', 'index': '1'}}");
    (void)state;
    assert_int_equal(cres_task_id(r), 1);
    assert_string_equal(master_of(r, NULL, -1, NULL), "grpc://ps1:2222");
    cres_resolver_free(r);
}

#define T10 "{'cluster': {'worker': ['worker0:2222', 'worker1:2222']}, 'task': {'type': 'worker', 'index': '0'}}"

/* TF T10: TF takes task_id=1 alone; our options.task_id is read only with task_type (so that
   all-zero options mean "defaults"), so one alone is refused, naming both, and
   cres_set_task(r, NULL, 1) is the way to do it. */
static void t10_task_id_override(void **state) {
    cres_tfconfig_options o = no_options();
    cres_resolver *r = NULL;
    cres_error err;
    (void)state;
    o.task_id = 1;
    EXPECT(tf_create(dq(T10), o, &r, &err), CRES_ERR_INVALID_ARGUMENT);
    assert_string_equal(err.message, "tfconfig: options.task_id 1 is set without "
                                     "options.task_type (set both, or neither)");
    assert_null(r);
    o.task_id = 0;
    OK(tf_create(dq(T10), o, &r, &err));
    assert_int_equal(cres_task_id(r), 0);
    OK(cres_set_task(r, NULL, 1, &err));
    assert_int_equal(cres_task_id(r), 1);
    assert_string_equal(cres_task_type(r), "worker");
    assert_string_equal(master_of(r, NULL, -1, NULL), "worker1:2222");
    cres_resolver_free(r);
}

/* TF T11 */
static void t11_empty_config_master_is_empty(void **state) {
    cres_resolver *r = tf("{}");
    (void)state;
    assert_string_equal(master_of(r, NULL, -1, NULL), "");
    assert_string_equal(resolved_json(r), "{}");
    cres_resolver_free(r);
}

/* TF T12 */
static void t12_one_task_cluster_master_is_empty(void **state) {
    cres_resolver *r = tf("{'cluster': {'worker': ['worker0:2222']}}");
    (void)state;
    assert_string_equal(master_of(r, NULL, -1, NULL), "");
    assert_string_equal(master_of(r, NULL, -1, "grpc"), "");
    assert_string_equal(master_of(r, "worker", 0, "grpc"), "grpc://worker0:2222");
    cres_resolver_free(r);
}

/* TF's local-master rule is for no task at all and a lone task 0: an index without a type is
   a task to look up, and a lone task of another index is not local. */
static void local_master_only_for_lone_task_zero(void **state) {
    cres_resolver *r = tf("{'cluster': {'worker': ['worker0:2222']}}");
    char buf[64];
    cres_error err;
    (void)state;
    EXPECT(cres_master_of(r, NULL, 0, NULL, buf, sizeof buf, NULL, &err), CRES_ERR_NOT_FOUND);
    HAS(err.message, "tfconfig: no task to give the master of");
    HAS(err.message, "pass task_type and task_id");
    cres_resolver_free(r);
    r = tf("{'cluster': {'worker': {'3': 'w3:1'}}}");
    EXPECT(cres_master(r, buf, sizeof buf, NULL, &err), CRES_ERR_NOT_FOUND);
    HAS(err.message, "tfconfig: no task to give the master of");
    assert_string_equal(master_of(r, "worker", 3, NULL), "w3:1");
    cres_resolver_free(r);
    r = tf("{'cluster': {'worker': {'3': 'w3:1'}}, 'task': {'type': 'worker', 'index': 3}}");
    assert_string_equal(master_of(r, NULL, -1, NULL), "w3:1");
    cres_resolver_free(r);
}

/* ---------------------------------------------------------------------------------------
   Master rules beyond TF's table */

/* Header 7: with no task and a cluster of several tasks the master is CRES_ERR_NOT_FOUND
   (TF raises ValueError 'No such job in cluster: None'). */
static void master_without_task_is_not_found(void **state) {
    cres_resolver *r = tf("{'cluster': " C "}");
    char buf[64];
    cres_error err;
    (void)state;
    EXPECT(cres_master(r, buf, sizeof buf, NULL, &err), CRES_ERR_NOT_FOUND);
    HAS(err.message, "tfconfig");
    HAS(err.message, "task");
    cres_resolver_free(r);
}

static void master_missing_task_is_not_found(void **state) {
    cres_resolver *r = tf("{'cluster': " C ", 'task': {'type': 'ps', 'index': 0}}");
    char buf[64];
    cres_error err;
    (void)state;
    EXPECT(cres_master_of(r, "worker", 3, NULL, buf, sizeof buf, NULL, &err), CRES_ERR_NOT_FOUND);
    HAS(err.message, "\"worker\"");
    HAS(err.message, "3");
    EXPECT(cres_master_of(r, "chief", 0, NULL, buf, sizeof buf, NULL, &err), CRES_ERR_NOT_FOUND);
    HAS(err.message, "\"chief\"");
    cres_resolver_free(r);
}

static void master_of_sparse_job(void **state) {
    cres_resolver *r = tf("{'cluster': {'worker': {'4': 'w4:1', '9': 'w9:1'}}, 'task': {'type': 'worker', 'index': 9}}");
    (void)state;
    assert_string_equal(master_of(r, NULL, -1, NULL), "w9:1");
    assert_string_equal(resolved_json(r), dq("{'worker': {'4': 'w4:1', '9': 'w9:1'}}"));
    cres_resolver_free(r);
}

/* ---------------------------------------------------------------------------------------
   rpc_layer, environment, task: TF_CONFIG and options */

static void rpc_layer_option_overrides(void **state) {
    cres_tfconfig_options o = no_options();
    cres_resolver *r = NULL;
    const char *json = dq("{'cluster': " C ", 'rpc_layer': 'grpc', 'task': {'type': 'ps', 'index': 0}}");
    cres_error err;
    (void)state;
    o.rpc_layer = "http";
    OK(tf_create(json, o, &r, &err));
    assert_string_equal(cres_rpc_layer(r), "http");
    assert_string_equal(master_of(r, NULL, -1, NULL), "http://ps0:2222");
    cres_resolver_free(r);
    o.rpc_layer = ""; /* an override of "" counts: no rpc layer */
    OK(tf_create(json, o, &r, &err));
    assert_null(cres_rpc_layer(r));
    assert_string_equal(master_of(r, NULL, -1, NULL), "ps0:2222");
    cres_resolver_free(r);
}

static void rpc_layer_absent_is_none(void **state) {
    cres_resolver *r = tf("{'cluster': " C ", 'task': {'type': 'ps', 'index': 0}}");
    (void)state;
    assert_null(cres_rpc_layer(r));
    cres_resolver_free(r);
}

static void environment_from_tf_config(void **state) {
    cres_resolver *r = tf("{'cluster': " C ", 'environment': 'cloud'}");
    (void)state;
    assert_string_equal(cres_environment(r), "cloud");
    cres_resolver_free(r);
}

/* TF's environment defaults to None; ours is "". */
static void environment_absent_is_empty(void **state) {
    cres_resolver *r = tf("{'cluster': " C "}");
    cres_launch_info info;
    cres_error err;
    (void)state;
    assert_null(cres_environment(r));
    /* no task either: the launch answer names the variable that lacks it */
    EXPECT(cres_launch(r, &info, &err), CRES_ERR_NOT_FOUND);
    HAS(err.message, "tfconfig knows no own task (TF_CONFIG gives no task of a type and an index)");
    cres_resolver_free(r);
}

static void environment_option_overrides(void **state) {
    cres_tfconfig_options o = no_options();
    cres_resolver *r = NULL;
    const char *json = dq("{'cluster': " C ", 'environment': 'cloud'}");
    cres_error err;
    (void)state;
    o.environment = "google";
    OK(tf_create(json, o, &r, &err));
    assert_string_equal(cres_environment(r), "google");
    cres_resolver_free(r);
    o.environment = "";
    OK(tf_create(json, o, &r, &err));
    assert_null(cres_environment(r));
    cres_resolver_free(r);
}

static void task_option_overrides(void **state) {
    cres_tfconfig_options o = no_options();
    cres_resolver *r = NULL;
    cres_error err;
    (void)state;
    o.task_type = "worker";
    o.task_id = 2;
    OK(tf_create(dq("{'cluster': " C ", 'task': {'type': 'ps', 'index': 1}}"), o, &r, &err));
    assert_string_equal(cres_task_type(r), "worker");
    assert_int_equal(cres_task_id(r), 2);
    assert_string_equal(master_of(r, NULL, -1, NULL), "worker2:2222");
    cres_resolver_free(r);
}

/* Overrides of 0 count (TF's union ignores them; here on the tfconfig resolver). */
static void task_option_zero_id_counts(void **state) {
    cres_tfconfig_options o = no_options();
    cres_resolver *r = NULL;
    cres_error err;
    (void)state;
    o.task_type = "ps";
    o.task_id = 0;
    OK(tf_create(dq("{'cluster': " C ", 'task': {'type': 'ps', 'index': 1}}"), o, &r, &err));
    assert_int_equal(cres_task_id(r), 0);
    cres_resolver_free(r);
}

static void task_absent_is_unknown(void **state) {
    cres_resolver *r = tf("{'cluster': " C "}");
    (void)state;
    assert_null(cres_task_type(r));
    assert_int_equal(cres_task_id(r), -1);
    cres_resolver_free(r);
}

/* A type without an index: the master of an index alone takes the type, the launch info has
   no own task to rank. */
static void task_without_index(void **state) {
    cres_resolver *r = tf("{'cluster': " C ", 'task': {'type': 'worker'}}");
    cres_launch_info info;
    cres_error err;
    (void)state;
    assert_string_equal(cres_task_type(r), "worker");
    assert_int_equal(cres_task_id(r), -1);
    assert_string_equal(master_of(r, NULL, 1, NULL), "worker1:2222");
    EXPECT(cres_launch(r, &info, &err), CRES_ERR_NOT_FOUND);
    HAS(err.message, "launch: tfconfig knows no own task");
    HAS(err.message, "cres_set_task()");
    cres_resolver_free(r);
}

#define NO_CLUSTER "TF_CONFIG: \"task\" is given but \"cluster\" is missing or empty"

/* "null is fine": a null member counts as absent. */
static void null_members_are_absent(void **state) {
    cres_resolver *r = tf("{'cluster': null, 'task': null, 'rpc_layer': null, 'environment': null, "
                          "'session_master': null}");
    cres_resolver *t = tf("{'cluster': " C ", 'task': {'type': 'ps', 'index': null}}");
    cres_resolver *u = tf("{'cluster': " C ", 'task': {'type': null}}");
    (void)state;
    /* a null type with an index, and a task beside a null cluster: nothing to find it in */
    BAD_ENV("{'cluster': " C ", 'task': {'type': null, 'index': 1}}",
            "TF_CONFIG: \"task\" has an \"index\" but no \"type\"");
    BAD_ENV("{'sparseCluster': null, 'task': {'type': 'worker', 'index': 2}}", NO_CLUSTER);
    assert_string_equal(resolved_json(r), "{}");
    assert_null(cres_task_type(r));
    assert_null(cres_rpc_layer(r));
    assert_string_equal(master_of(r, NULL, -1, NULL), "");
    assert_string_equal(cres_task_type(t), "ps");
    assert_int_equal(cres_task_id(t), -1);
    assert_null(cres_task_type(u));
    assert_int_equal(cres_task_id(u), -1);
    cres_resolver_free(r);
    cres_resolver_free(t);
    cres_resolver_free(u);
}

/* A task beside no cluster (TF takes it and answers an empty cluster) has nothing to be found
   in: an error naming the keys that are not TF_CONFIG's, a typo of "cluster" most often.
   TF's evaluator runs outside the cluster, so it alone may come without one. */
static void task_with_empty_cluster(void **state) {
    cres_resolver *r = tf("{'task': {'type': 'evaluator', 'index': 0}}");
    (void)state;
    assert_string_equal(cres_task_type(r), "evaluator");
    assert_string_equal(master_of(r, NULL, -1, NULL), "");
    cres_resolver_free(r);
    BAD_ENV("{'task': {'type': 'worker', 'index': 3}}", NO_CLUSTER);
    BAD_ENV("{'cluster': {}, 'task': {'type': 'worker', 'index': 3}}", NO_CLUSTER);
    BAD_ENV("{'cluser': {'worker': ['a:1', 'b:1']}, 'task': {'type': 'worker', 'index': 1}, "
            "'rpc': 'grpc'}",
            NO_CLUSTER " (unknown keys: \"cluser\", \"rpc\")");
    BAD_ENV("{'cluster': {'worker': ['a:1', 'b:1']}, 'task': {'typ': 'worker', 'index': 1}}",
            "TF_CONFIG: \"task\" has an \"index\" but no \"type\" (unknown keys: \"typ\")");
    /* half a task beside a key TF_CONFIG does not have: "indx", "Type" */
    BAD_ENV("{'cluster': {'worker': ['a:1', 'b:1']}, 'task': {'type': 'worker', 'indx': 1}}",
            "TF_CONFIG: \"task\" has a \"type\" but no \"index\" (unknown keys: \"indx\")");
    BAD_ENV("{'cluster': {'chief': ['a:1']}, 'task': {'Type': 'chief', 'Index': 0}}",
            "TF_CONFIG: \"task\" has no \"type\" and no \"index\" (unknown keys: \"Type\", "
            "\"Index\")");
}

static void keep_log(void *user, cres_log_level level, const char *message) {
    char *logs = (char *)user;
    size_t n = strlen(logs);
    snprintf(logs + n, 1024 - n, "%d %s\n", (int)level, message);
}

/* Keys TF_CONFIG does not have are ignored, as TF does, but named in a WARN line. */
static void unknown_keys_are_named_in_a_warning(void **state) {
    char logs[1024] = "";
    cres_config cfg = env_config();
    cres_tfconfig_options o = no_options();
    cres_resolver *r = NULL;
    cres_error err;
    (void)state;
    cfg.log.fn = keep_log;
    cfg.log.user = logs;
    o.config = &cfg;
    OK(tf_create(dq("{'cluster': " C ", 'task': {'type': 'ps', 'index': 1, 'trial': '7'}, "
                    "'rpc_layr': 'grpc'}"), o, &r, &err));
    assert_null(cres_rpc_layer(r));
    HAS(logs, "2 TF_CONFIG: unknown keys \"rpc_layr\" (TensorFlow ignores them)\n");
    cres_resolver_free(r);
    logs[0] = '\0';
    OK(tf_create(dq("{'cluster': " C ", 'task': {'type': 'ps', 'index': 1, 'tial': 7}}"), o, &r,
                 &err));
    HAS(logs, "2 TF_CONFIG: unknown keys in \"task\" \"tial\" (TensorFlow ignores them)\n");
    cres_resolver_free(r);
}

/* "evaluator" runs outside the cluster, so it need not be a job of it. */
static void evaluator_allowed_outside_cluster(void **state) {
    cres_resolver *r = tf("{'cluster': " C ", 'task': {'type': 'evaluator', 'index': 0}}");
    char buf[64];
    cres_error err;
    (void)state;
    assert_string_equal(cres_task_type(r), "evaluator");
    assert_int_equal(cres_task_id(r), 0);
    assert_string_equal(resolved_json(r), dq(C));
    EXPECT(cres_master(r, buf, sizeof buf, NULL, &err), CRES_ERR_NOT_FOUND);
    HAS(err.message, "evaluator");
    assert_string_equal(master_of(r, "worker", 0, NULL), "worker0:2222");
    /* nor a rank: the launch answer names where the task came from */
    {
        cres_launch_info info;
        EXPECT(cres_launch(r, &info, &err), CRES_ERR_NOT_FOUND);
        HAS(err.message, "tfconfig: this process's task \"evaluator\" 0, from TF_CONFIG, has no "
                         "rank: TensorFlow runs its evaluator beside the cluster's ranks, not among "
                         "them");
    }
    cres_resolver_free(r);
}

/* ---------------------------------------------------------------------------------------
   The cluster: sparse jobs and the sparseCluster alias */

static void sparse_cluster_alias(void **state) {
    cres_resolver *r = tf("{'sparseCluster': {'worker': {'1': 'w1:1', '5': 'w5:1'}}, 'task': {'type': 'worker', 'index': 5}}");
    (void)state;
    assert_string_equal(resolved_json(r), dq("{'worker': {'1': 'w1:1', '5': 'w5:1'}}"));
    assert_string_equal(master_of(r, NULL, -1, NULL), "w5:1");
    cres_resolver_free(r);
}

static void cluster_wins_over_sparse_cluster(void **state) {
    cres_resolver *r = tf("{'sparseCluster': {'ps': ['p:1']}, 'cluster': {'worker': ['w:1']}}");
    cres_resolver *n = tf("{'cluster': null, 'sparseCluster': {'ps': ['p:1']}}");
    (void)state;
    assert_string_equal(resolved_json(r), dq("{'worker': ['w:1']}"));
    assert_string_equal(resolved_json(n), dq("{'ps': ['p:1']}"));
    cres_resolver_free(r);
    cres_resolver_free(n);
}

static void escaped_keys_are_recognised(void **state) {
    cres_resolver *r = tf("{'clu\\u0073ter': {'worker': ['w0:1', 'w1:1']}, 'ta\\u0073k': {'type': 'worker', 'index': 1}}");
    (void)state;
    assert_string_equal(resolved_json(r), dq("{'worker': ['w0:1', 'w1:1']}"));
    assert_int_equal(cres_task_id(r), 1);
    cres_resolver_free(r);
}

static void unknown_members_are_ignored(void **state) {
    cres_resolver *r = tf("{'cluster': " C ", 'extra': {'deep': [1, 2.5e3, true, false, null]}, 'x': 'y'}");
    (void)state;
    assert_string_equal(resolved_json(r), dq(C));
    cres_resolver_free(r);
}

static void empty_job_in_cluster(void **state) {
    cres_resolver *r = tf("{'cluster': {'ps': [], 'worker': ['w:1']}, 'task': {'type': 'worker', 'index': 0}}");
    (void)state;
    assert_string_equal(resolved_json(r), dq("{'ps': [], 'worker': ['w:1']}"));
    cres_resolver_free(r);
}

/* ---------------------------------------------------------------------------------------
   Where TF_CONFIG comes from */

static void unset_empty_and_blank_are_empty_cluster(void **state) {
    static const char *const texts[] = {NULL, "", " ", " \t\r\n "};
    cres_resolver *r = NULL;
    cres_error err;
    size_t i;
    (void)state;
    for (i = 0; i < sizeof texts / sizeof *texts; i++) {
        OK(tf_create(texts[i], no_options(), &r, &err));
        assert_string_equal(resolved_json(r), "{}");
        assert_string_equal(master_of(r, NULL, -1, NULL), "");
        assert_string_equal(master_of(r, NULL, -1, "grpc"), "");
        assert_null(cres_task_type(r));
        assert_int_equal(cres_task_id(r), -1);
        assert_null(cres_rpc_layer(r));
        assert_null(cres_environment(r));
        cres_resolver_free(r);
    }
}

static void reads_tf_config_through_hook(void **state) {
    cres_resolver *r = tf("{'cluster': " C "}");
    (void)state;
    assert_int_equal(env.lookups, 1);
    cres_resolver_free(r);
}

/* options.json replaces the environment, which is then not read at all. */
static void options_json_instead_of_environment(void **state) {
    cres_tfconfig_options o = no_options();
    cres_resolver *r = NULL;
    char json[256];
    cres_error err;
    (void)state;
    snprintf(json, sizeof json, "%s", dq("{'cluster': {'chief': ['c:1']}, 'task': {'type': 'chief', 'index': 0}}"));
    o.json = json;
    OK(tf_create(dq("{'cluster': " C "}"), o, &r, &err));
    assert_string_equal(resolved_json(r), dq("{'chief': ['c:1']}"));
    assert_string_equal(cres_task_type(r), "chief");
    assert_int_equal(env.lookups, 0);
    cres_resolver_free(r);
}

static void options_json_errors_are_reported(void **state) {
    cres_tfconfig_options o = no_options();
    cres_resolver *r = NULL;
    cres_error err;
    (void)state;
    o.json = "{\"task\": {\"index\": \"x\"}}";
    EXPECT(tf_create(NULL, o, &r, &err), CRES_ERR_ENVIRONMENT);
    assert_null(r);
    HAS(err.message, "\"task.index\"");
}

static void options_json_empty_is_empty_cluster(void **state) {
    cres_tfconfig_options o = no_options();
    cres_resolver *r = NULL;
    cres_error err;
    (void)state;
    o.json = "";
    OK(tf_create(dq("{'cluster': " C "}"), o, &r, &err));
    assert_string_equal(resolved_json(r), "{}");
    cres_resolver_free(r);
}

/* Header 7: read and checked once, at create (TF re-reads TF_CONFIG on every access). */
static void tf_config_read_once_at_create(void **state) {
    cres_resolver *r = tf("{'cluster': {'worker': ['w0:1']}}");
    (void)state;
    env.values[0] = dq("{'cluster': {'ps': ['p0:1']}}");
    assert_string_equal(resolved_json(r), dq("{'worker': ['w0:1']}"));
    assert_int_equal(env.lookups, 1);
    cres_resolver_free(r);
}

static void no_accelerators(void **state) {
    cres_resolver *r = tf("{'cluster': " C ", 'task': {'type': 'ps', 'index': 0}}");
    cres_accelerators acc;
    cres_error err;
    (void)state;
    memset(&acc, 0x5a, sizeof acc);
    OK(cres_num_accelerators(r, &acc, &err));
    assert_int_equal(acc.count, 0);
    cres_resolver_free(r);
}

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

static void uses_config_allocator_even_on_failure(void **state) {
    counter c = {0, 0};
    cres_config cfg = env_config();
    cres_tfconfig_options o = no_options();
    cres_resolver *r = NULL;
    cres_error err;
    (void)state;
    cfg.allocator.alloc = count_alloc;
    cfg.allocator.free = count_free;
    cfg.allocator.user = &c;
    o.config = &cfg;
    OK(tf_create(dq("{'cluster': " C ", 'task': {'type': 'ps', 'index': 0}, 'rpc_layer': 'grpc'}"), o, &r, &err));
    assert_string_equal(master_of(r, NULL, -1, NULL), "grpc://ps0:2222");
    cres_resolver_free(r);
    assert_int_equal(c.live, 0);
    assert_true(c.total > 0);
    EXPECT(tf_create(dq("{'cluster': " C ", 'task': {'type': 'ps', 'index': 7}}"), o, &r, &err), CRES_ERR_ENVIRONMENT);
    assert_int_equal(c.live, 0);
}

/* ---------------------------------------------------------------------------------------
   Bad TF_CONFIG: each is CRES_ERR_ENVIRONMENT (or CRES_ERR_LIMIT) at create, naming the field */

static void bad_not_json(void **state) {
    (void)state;
    BAD_ENV("hello", "TF_CONFIG: invalid JSON");
    BAD_ENV("{cluster: {}}", "TF_CONFIG: invalid JSON");
    BAD_ENV("{'cluster': {},}", "TF_CONFIG: invalid JSON");
    expect_bad("{'cluster': {}}", CRES_ERR_ENVIRONMENT, "TF_CONFIG: invalid JSON", __LINE__); /* real ' */
}

static void bad_truncated(void **state) {
    (void)state;
    BAD_ENV("{'cluster': {'worker': ['a:1']", "TF_CONFIG: invalid JSON");
    BAD_ENV("{'cluster': {'worker': ['a:1", "unterminated string");
    BAD_ENV("{'task': {'type': 'worker', 'index': 1", "end of the document");
}

static void bad_trailing_garbage(void **state) {
    (void)state;
    BAD_ENV("{} {}", "after the document");
    BAD_ENV("{'cluster': {}} x", "after the document");
}

static void bad_top_level_not_object(void **state) {
    (void)state;
    BAD_ENV("[]", "TF_CONFIG");
    BAD_ENV("'cluster'", "must be a JSON object");
    BAD_ENV("3", "TF_CONFIG");
    BAD_ENV("null", "TF_CONFIG");
}

static void bad_cluster_type(void **state) {
    (void)state;
    BAD_ENV("{'cluster': 3}", "\"cluster\" must be an object of jobs, not 3");
    BAD_ENV("{'cluster': ['a:1']}", "\"cluster\" must be an object of jobs, not a list");
    BAD_ENV("{'cluster': 'a:1'}", "\"cluster\" must be an object");
    BAD_ENV("{'cluster': true}", "\"cluster\"");
    BAD_ENV("{'sparseCluster': 3}", "\"cluster\"");
}

static void bad_job_types(void **state) {
    (void)state;
    BAD_ENV("{'cluster': {'worker': 'a:1'}}", "\"cluster\": job \"worker\" must be a list or an object");
    BAD_ENV("{'cluster': {'worker': ['a:1', 3]}}", "job \"worker\" task 1 must be a string address, not 3");
    BAD_ENV("{'cluster': {'worker': {'0': ['a:1']}}}", "job \"worker\" task 0 must be a string address");
    BAD_ENV("{'cluster': {'worker': {'x': 'a:1'}}}", "job \"worker\": task key must be an integer");
    BAD_ENV("{'cluster': {'worker': {'-2': 'a:1'}}}", "job \"worker\": task key must not be negative");
}

static void bad_task_index_string(void **state) {
    (void)state;
    BAD_ENV("{'cluster': " C ", 'task': {'type': 'ps', 'index': 'x'}}", "\"task.index\" must be an integer, not \"x\"");
    BAD_ENV("{'cluster': " C ", 'task': {'type': 'ps', 'index': ''}}", "\"task.index\" must be an integer");
    BAD_ENV("{'cluster': " C ", 'task': {'type': 'ps', 'index': ' 1'}}", "\"task.index\" must be an integer");
    BAD_ENV("{'cluster': " C ", 'task': {'type': 'ps', 'index': '-1'}}", "\"task.index\" must not be negative");
}

static void bad_task_index_negative(void **state) {
    (void)state;
    BAD_ENV("{'cluster': " C ", 'task': {'type': 'ps', 'index': -1}}", "\"task.index\" must not be negative: -1");
}

static void bad_task_index_past_int_max(void **state) {
    (void)state;
    BAD_ENV("{'cluster': " C ", 'task': {'type': 'ps', 'index': 2147483648}}", "\"task.index\" is out of range");
    BAD_ENV("{'cluster': " C ", 'task': {'type': 'ps', 'index': 99999999999999999999999}}", "\"task.index\" is out of range");
    BAD_ENV("{'task': {'index': -2147483649}}", "\"task.index\"");
    /* a long number is quoted by its first 40 characters */
    BAD_ENV("{'cluster': " C ", 'task': {'type': 'ps', 'index': 123456789012345678901234567890123456789012345678}}",
            "\"task.index\" is out of range (0 to 2147483647): 1234567890123456789012345678901234567890");
}

static void bad_task_index_not_integer(void **state) {
    (void)state;
    BAD_ENV("{'cluster': " C ", 'task': {'type': 'ps', 'index': 1.5}}", "\"task.index\" must be an integer, not 1.5");
    BAD_ENV("{'cluster': " C ", 'task': {'type': 'ps', 'index': 1e0}}", "\"task.index\" must be an integer, not 1e0");
    BAD_ENV("{'cluster': " C ", 'task': {'type': 'ps', 'index': true}}", "\"task.index\" must be an integer, not true");
    BAD_ENV("{'cluster': " C ", 'task': {'type': 'ps', 'index': [0]}}", "\"task.index\" must be an integer, not a list");
    BAD_ENV("{'cluster': " C ", 'task': {'type': 'ps', 'index': {}}}", "\"task.index\" must be an integer, not an object");
}

static void bad_task_type(void **state) {
    (void)state;
    BAD_ENV("{'cluster': " C ", 'task': {'type': true, 'index': 0}}", "\"task.type\" must be a string, not true");
    BAD_ENV("{'cluster': " C ", 'task': {'type': ['ps'], 'index': 0}}", "\"task.type\" must be a string");
    BAD_ENV("{'cluster': " C ", 'task': {'type': 1.5, 'index': 0}}", "\"task.type\" must be a string, not 1.5");
    BAD_ENV("{'cluster': " C ", 'task': 'ps'}", "\"task\" must be an object");
}

static void bad_task_type_not_a_job(void **state) {
    (void)state;
    BAD_ENV("{'cluster': " C ", 'task': {'type': 'chief', 'index': 0}}",
            "\"task.type\" \"chief\" is not a job of \"cluster\"");
    BAD_ENV("{'cluster': " C ", 'task': {'type': 'chief'}}", "\"task.type\" \"chief\"");
    /* the message lists the jobs until its room ends, never past it */
    BAD_ENV("{'cluster': {'job-with-a-long-name-a': [], 'job-with-a-long-name-b': [], 'job-with-a-long-name-c': [], "
            "'job-with-a-long-name-d': [], 'job-with-a-long-name-e': []}, 'task': {'type': 'chief'}}",
            "(its jobs: job-with-a-long-name-a, job-with-a-long-name-b, job-with-a-long-name-c, "
            "job-with-a-long-name-d)"); /* 96 bytes: the fifth is left out */
}

static void bad_task_index_not_in_job(void **state) {
    (void)state;
    BAD_ENV("{'cluster': " C ", 'task': {'type': 'worker', 'index': 3}}", "\"task.index\" 3 is not a task of job \"worker\"");
    BAD_ENV("{'cluster': {'worker': {'1': 'w1:1'}}, 'task': {'type': 'worker', 'index': 0}}", "\"task.index\" 0");
    BAD_ENV("{'cluster': {'worker': []}, 'task': {'type': 'worker', 'index': 0}}", "\"task.index\" 0");
}

static void bad_string_member_types(void **state) {
    (void)state;
    BAD_ENV("{'cluster': " C ", 'rpc_layer': 3}", "\"rpc_layer\" must be a string, not 3");
    BAD_ENV("{'cluster': " C ", 'environment': ['cloud']}", "\"environment\" must be a string, not a list");
    BAD_ENV("{'cluster': " C ", 'session_master': {}}", "\"session_master\" must be a string, not an object");
    BAD_ENV("{'cluster': " C ", 'rpc_layer': false}", "\"rpc_layer\" must be a string, not false");
}

static void bad_duplicate_sparse_keys(void **state) {
    (void)state;
    BAD_ENV("{'cluster': {'worker': {'1': 'a:1', '1': 'b:1'}}}", "\"cluster\": job \"worker\" has task 1 twice");
    BAD_ENV("{'cluster': {'worker': {'1': 'a:1', '001': 'b:1'}}}", "has task 1 twice");
}

static void bad_duplicate_job_names(void **state) {
    (void)state;
    BAD_ENV("{'cluster': {'worker': ['a:1'], 'worker': ['b:1']}}", "\"cluster\": job \"worker\" appears twice");
}

static void bad_duplicate_top_level_keys(void **state) {
    (void)state;
    BAD_ENV("{'cluster': " C ", 'cluster': {}}", "key \"cluster\" appears twice");
    BAD_ENV("{'task': {'type': 'ps'}, 'cluster': " C ", 'task': {'type': 'ps'}}", "key \"task\" appears twice");
    BAD_ENV("{'rpc_layer': 'grpc', 'rpc_layer': 'http'}", "key \"rpc_layer\" appears twice");
    BAD_ENV("{'session_master': 'a', 'session_master': 'b'}", "key \"session_master\" appears twice");
    BAD_ENV("{'environment': 'a', 'environment': 'b'}", "key \"environment\" appears twice");
    BAD_ENV("{'cluster': {}, 'clu\\u0073ter': {}}", "key \"cluster\" appears twice");
}

static void bad_duplicate_task_keys(void **state) {
    (void)state;
    BAD_ENV("{'cluster': " C ", 'task': {'type': 'ps', 'index': 0, 'index': 1}}", "\"task\": key \"index\" appears twice");
    BAD_ENV("{'cluster': " C ", 'task': {'type': 'ps', 'type': 'worker'}}", "\"task\": key \"type\" appears twice");
}

static void bad_empty_strings(void **state) {
    (void)state;
    BAD_ENV("{'cluster': {'': ['a:1']}}", "\"cluster\": job name is empty");
    BAD_ENV("{'cluster': {'worker': ['']}}", "\"cluster\": job \"worker\" task 0: address is empty");
    BAD_ENV("{'cluster': {'worker': {'3': ''}}}", "job \"worker\" task 3: address is empty");
    BAD_ENV("{'task': {'type': '', 'index': 0}}", "\"task.type\": job name is empty");
}

static void bad_huge_address_is_limit(void **state) {
    char *addr = repeat('a', 100000), *doc = (char *)malloc(100100);
    (void)state;
    assert_non_null(doc);
    sprintf(doc, "{\"cluster\": {\"worker\": [\"%s\"]}}", addr);
    expect_bad(doc, CRES_ERR_LIMIT, "\"cluster\": job \"worker\" task 0: address is 100000 bytes", __LINE__);
    free(addr);
    free(doc);
}

static void bad_huge_names_are_limit(void **state) {
    char *name = repeat('n', 300), *doc = (char *)malloc(1024);
    (void)state;
    assert_non_null(doc);
    sprintf(doc, "{\"cluster\": {\"%s\": [\"a:1\"]}}", name);
    expect_bad(doc, CRES_ERR_LIMIT, "\"cluster\": job name", __LINE__);
    sprintf(doc, "{\"task\": {\"type\": \"%s\"}}", name);
    expect_bad(doc, CRES_ERR_LIMIT, "\"task.type\"", __LINE__);
    free(name);
    free(doc);
}

static void bad_document_over_16_mib_is_limit(void **state) {
    size_t n = 16u * 1024u * 1024u + 2u;
    char *doc = repeat(' ', n);
    (void)state;
    doc[0] = '{';
    doc[n - 1] = '}';
    expect_bad(doc, CRES_ERR_LIMIT, "TF_CONFIG", __LINE__);
    free(doc);
}

static void bad_nesting_10000_deep_is_limit(void **state) {
    size_t depth = 10000, i, n = 0;
    char *doc = (char *)malloc(2 * depth + 64);
    (void)state;
    assert_non_null(doc);
    n += (size_t)sprintf(doc, "{\"cluster\": {\"worker\": ");
    for (i = 0; i < depth; i++) doc[n++] = '[';
    for (i = 0; i < depth; i++) doc[n++] = ']';
    n += (size_t)sprintf(doc + n, "}}");
    expect_bad(doc, CRES_ERR_LIMIT, "TF_CONFIG: JSON has values nested deeper than the limit", __LINE__);
    free(doc);
}

static void bad_million_element_array_is_limit_and_fast(void **state) {
    size_t count = 1000000, i, n = 0;
    char *doc = (char *)malloc(6 * count + 64);
    (void)state;
    assert_non_null(doc);
    n += (size_t)sprintf(doc, "{\"cluster\": {\"worker\": [");
    for (i = 0; i < count; i++) {
        memcpy(doc + n, "\"a:1\",", 6);
        n += 6;
    }
    n += (size_t)sprintf(doc + n - 1, "]}}") - 1;
    expect_bad(doc, CRES_ERR_LIMIT, "TF_CONFIG: JSON has more tokens than the limit", __LINE__);
    free(doc);
}

/* The message names TF_CONFIG and the NUL; it may name the member or the offset. */
static void bad_nul_escape_in_read_fields(void **state) {
    (void)state;
    BAD_ENV("{'cluster': {'worker': ['a\\u0000b:1']}}", "NUL");
    BAD_ENV("{'cluster': {'wor\\u0000ker': ['a:1']}}", "NUL");
    BAD_ENV("{'task': {'type': 'w\\u0000', 'index': 0}}", "NUL");
    BAD_ENV("{'rpc_layer': 'grpc\\u0000'}", "NUL");
    BAD_ENV("{'environment': '\\u0000'}", "NUL");
    BAD_ENV("{'session_master': 'a\\u0000'}", "NUL");
    BAD_ENV("{'cluster': {'worker': {'0': 'a\\u0000'}}}", "TF_CONFIG");
}

/* Header 9: "JSON must be ... with no NUL character (\u0000 included) in strings", so a NUL
   escape is refused in a member the resolver does not read too, as a raw NUL or control
   byte is. */
static void bad_nul_escape_in_ignored_member(void **state) {
    (void)state;
    BAD_ENV("{'cluster': " C ", 'note': 'a\\u0000b'}", "NUL");
    BAD_ENV("{'cluster': " C ", 'task': {'type': 'ps', 'index': 0, 'x': '\\u0000'}}", "NUL");
}

static void bad_invalid_utf8(void **state) {
    (void)state;
    BAD_ENV("{'cluster': {'worker': ['\xff:1']}}", "TF_CONFIG: invalid JSON at offset 25: invalid UTF-8");
    BAD_ENV("{'cluster': {'w\xc0\xaf': []}}", "invalid UTF-8");
    BAD_ENV("{'task': {'type': '\xed\xa0\x80'}}", "invalid UTF-8");
    BAD_ENV("{'note': 'x\xe2\x82'}", "invalid UTF-8");
    BAD_ENV("{'\xfe': 1}", "invalid UTF-8");
}

static void bad_lone_surrogate_escape(void **state) {
    (void)state;
    BAD_ENV("{'cluster': {'worker': ['a\\udc00:1']}}", "TF_CONFIG");
    BAD_ENV("{'task': {'type': '\\ud800x'}}", "TF_CONFIG");
}

static void bad_raw_control_characters(void **state) {
    (void)state;
    BAD_ENV("{'cluster': {'worker': ['a\x01:1']}}", "control character in a string");
    BAD_ENV("{'rpc_layer': 'gr\npc'}", "control character in a string");
    BAD_ENV("{'note': 'tab\there'}", "control character in a string");
    BAD_ENV("{'ta\x1fsk': {}}", "control character in a string");
}

static void bad_escaped_control_characters_in_names(void **state) {
    (void)state;
    BAD_ENV("{'cluster': {'worker': ['a\\n:1']}}", "\"cluster\": job \"worker\" task 0: address");
    BAD_ENV("{'cluster': {'wor\\tker': ['a:1']}}", "\"cluster\": job name");
    BAD_ENV("{'cluster': {'worker': ['a\\u007f:1']}}", "control character");
    BAD_ENV("{'task': {'type': 'w\\u0001'}}", "\"task.type\": job name");
}

static void bad_spaces_in_address(void **state) {
    (void)state;
    BAD_ENV("{'cluster': {'worker': ['a :1']}}", "\"cluster\": job \"worker\" task 0: address \"a :1\" contains a space");
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(t1_cluster_spec),
        cmocka_unit_test(t2_master_of_own_task),
        cmocka_unit_test(t3_master_of_given_task),
        cmocka_unit_test(t4_session_master),
        cmocka_unit_test(session_master_has_no_rpc_prefix),
        cmocka_unit_test(t5_master_with_rpc_layer),
        cmocka_unit_test(t6_properties),
        cmocka_unit_test(t7_options_then_setters),
        cmocka_unit_test(t8_integer_task_type_is_a_string),
        cmocka_unit_test(t9_string_task_index_is_an_integer),
        cmocka_unit_test(t10_task_id_override),
        cmocka_unit_test(t11_empty_config_master_is_empty),
        cmocka_unit_test(t12_one_task_cluster_master_is_empty),
        cmocka_unit_test(local_master_only_for_lone_task_zero),
        cmocka_unit_test(master_without_task_is_not_found),
        cmocka_unit_test(master_missing_task_is_not_found),
        cmocka_unit_test(master_of_sparse_job),
        cmocka_unit_test(rpc_layer_option_overrides),
        cmocka_unit_test(rpc_layer_absent_is_none),
        cmocka_unit_test(environment_from_tf_config),
        cmocka_unit_test(environment_absent_is_empty),
        cmocka_unit_test(environment_option_overrides),
        cmocka_unit_test(task_option_overrides),
        cmocka_unit_test(task_option_zero_id_counts),
        cmocka_unit_test(task_absent_is_unknown),
        cmocka_unit_test(task_without_index),
        cmocka_unit_test(null_members_are_absent),
        cmocka_unit_test(task_with_empty_cluster),
        cmocka_unit_test(evaluator_allowed_outside_cluster),
        cmocka_unit_test(unknown_keys_are_named_in_a_warning),
        cmocka_unit_test(sparse_cluster_alias),
        cmocka_unit_test(cluster_wins_over_sparse_cluster),
        cmocka_unit_test(escaped_keys_are_recognised),
        cmocka_unit_test(unknown_members_are_ignored),
        cmocka_unit_test(empty_job_in_cluster),
        cmocka_unit_test(unset_empty_and_blank_are_empty_cluster),
        cmocka_unit_test(reads_tf_config_through_hook),
        cmocka_unit_test(options_json_instead_of_environment),
        cmocka_unit_test(options_json_errors_are_reported),
        cmocka_unit_test(options_json_empty_is_empty_cluster),
        cmocka_unit_test(tf_config_read_once_at_create),
        cmocka_unit_test(no_accelerators),
        cmocka_unit_test(uses_config_allocator_even_on_failure),
        cmocka_unit_test(bad_not_json),
        cmocka_unit_test(bad_truncated),
        cmocka_unit_test(bad_trailing_garbage),
        cmocka_unit_test(bad_top_level_not_object),
        cmocka_unit_test(bad_cluster_type),
        cmocka_unit_test(bad_job_types),
        cmocka_unit_test(bad_task_index_string),
        cmocka_unit_test(bad_task_index_negative),
        cmocka_unit_test(bad_task_index_past_int_max),
        cmocka_unit_test(bad_task_index_not_integer),
        cmocka_unit_test(bad_task_type),
        cmocka_unit_test(bad_task_type_not_a_job),
        cmocka_unit_test(bad_task_index_not_in_job),
        cmocka_unit_test(bad_string_member_types),
        cmocka_unit_test(bad_duplicate_sparse_keys),
        cmocka_unit_test(bad_duplicate_job_names),
        cmocka_unit_test(bad_duplicate_top_level_keys),
        cmocka_unit_test(bad_duplicate_task_keys),
        cmocka_unit_test(bad_empty_strings),
        cmocka_unit_test(bad_huge_address_is_limit),
        cmocka_unit_test(bad_huge_names_are_limit),
        cmocka_unit_test(bad_document_over_16_mib_is_limit),
        cmocka_unit_test(bad_nesting_10000_deep_is_limit),
        cmocka_unit_test(bad_million_element_array_is_limit_and_fast),
        cmocka_unit_test(bad_nul_escape_in_read_fields),
        cmocka_unit_test(bad_nul_escape_in_ignored_member),
        cmocka_unit_test(bad_invalid_utf8),
        cmocka_unit_test(bad_lone_surrogate_escape),
        cmocka_unit_test(bad_raw_control_characters),
        cmocka_unit_test(bad_escaped_control_characters_in_names),
        cmocka_unit_test(bad_spaces_in_address),
    };
    return cmocka_run_group_tests_name("tfconfig", tests, NULL, NULL);
}
