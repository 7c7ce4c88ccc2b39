/* Unit tests for the generic resolver API and the simple, union, local and auto backends of
   cluster_resolver.h. Cases named Un mirror TensorFlow's cluster_resolver_test.py as listed in
   reference/tf-resolvers.md section 4.2; where our documented behaviour differs from TF on
   purpose (header section 11, reference section 5) the comment says so. The environment is
   read through the cres_config.getenv hook: the test process never calls setenv (only the
   children of null_options_read_the_process_environment set theirs). */

#define _DEFAULT_SOURCE /* clearenv, setenv, fork: null_options_read_the_process_environment */
#include "test_util.h"

#include <sys/wait.h>
#include <unistd.h>

/* ---------------------------------------------------------------------------------------
   Helpers of this file (the shared ones are in test_util.h). */

/* The JSON of a fresh resolve. */
static const char *resolved_json(cres_resolver *r) {
    cres_cluster_spec *s = NULL;
    const char *json;
    cres_error err;
    OK(cres_resolve(r, &s, &err));
    json = json_of(s);
    cres_spec_free(s);
    return json;
}

static const char *master_of(cres_resolver *r, const char *type, int id, const char *rpc) {
    static char buf[2][512];
    static int next;
    char *out = buf[next++ % 2];
    size_t len = 0;
    cres_error err;
    OK(cres_master_of(r, type, id, rpc, out, sizeof buf[0], &len, &err));
    assert_int_equal(len, strlen(out));
    return out;
}

/* The getenv hook: looks names up in a small table and counts the lookups. */
typedef struct env_table {
    const char *names[4];
    const char *values[4];
    int lookups;
} env_table;

static const char *table_getenv(void *user, const char *name) {
    env_table *t = (env_table *)user;
    size_t i;
    t->lookups++;
    for (i = 0; i < 4; i++)
        if (t->names[i] && strcmp(t->names[i], name) == 0) return t->values[i];
    return NULL;
}

static cres_config env_config(env_table *t) {
    cres_config c;
    memset(&c, 0, sizeof c);
    c.getenv.fn = table_getenv;
    c.getenv.user = t;
    return c;
}

/* An allocator that counts. */
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

#define BASE "{'ps': ['ps0:2222', 'ps1:2222'], 'worker': ['worker0:2222', 'worker1:2222', 'worker2:2222']}"

/* A simple resolver over `sq` with the other options from `o`; the spec given is freed at
   once, so the resolver must have copied it. */
static cres_resolver *make_simple(cres_simple_options o, const char *sq) {
    cres_cluster_spec *spec = parse(sq);
    cres_resolver *r = NULL;
    cres_error err;
    o.spec = spec;
    OK(cres_simple_resolver_create(&o, &r, &err));
    cres_spec_free(spec);
    assert_non_null(r);
    return r;
}

static cres_simple_options no_simple_options(void) {
    cres_simple_options o;
    memset(&o, 0, sizeof o);
    return o;
}

/* U2's first resolver: Simple(base, "ps", 1, "cloud", {"GPU": 8}, "grpc"). */
static cres_resolver *make_u2(void) {
    cres_simple_options o = no_simple_options();
    cres_accelerators acc;
    memset(&acc, 0, sizeof acc);
    strcpy(acc.items[0].type, "GPU");
    acc.items[0].count = 8;
    acc.count = 1;
    o.task_type = "ps";
    o.task_id = 1;
    o.environment = "cloud";
    o.accelerators = &acc;
    o.rpc_layer = "grpc";
    return make_simple(o, BASE);
}

/* ---------------------------------------------------------------------------------------
   A custom backend written with cres_resolver_new: it counts resolve() and destroy() calls,
   returns a fixed spec, and can report a task, fail, or misbehave. */

typedef struct counting {
    cres_resolver base;
    int resolves;
    int *destroyed;
    const char *json;          /* real JSON */
    const char *detect_type;   /* reported with cres_set_detected_task() at resolve */
    int detect_id;
    int fail;                  /* fail with CRES_ERR_NOT_READY, leaving a spec in *out */
    int give_null;             /* succeed without a spec */
} counting;

static cres_result counting_resolve(cres_resolver *self, cres_cluster_spec **out, cres_error *err) {
    counting *c = (counting *)self;
    cres_result r;
    c->resolves++;
    r = cres_spec_from_json(c->json, strlen(c->json), cres_resolver_allocator(self), out, err);
    if (r == CRES_OK && c->detect_type) r = cres_set_detected_task(self, c->detect_type, c->detect_id, err);
    if (r == CRES_OK && c->fail) {
        if (err) {
            err->result = CRES_ERR_NOT_READY;
            strcpy(err->message, "counting: not ready yet");
        }
        return CRES_ERR_NOT_READY;
    }
    if (r == CRES_OK && c->give_null) {
        cres_spec_free(*out);
        *out = NULL;
    }
    return r;
}

static void counting_destroy(cres_resolver *self) {
    counting *c = (counting *)self;
    if (c->destroyed) (*c->destroyed)++;
}

static const cres_resolver_vtable counting_vtable = {"counting", counting_resolve, NULL, NULL, counting_destroy, NULL, NULL};

static counting *make_counting(const char *sq, int *destroyed) {
    cres_resolver *r = NULL;
    counting *c;
    cres_error err;
    OK(cres_resolver_new(sizeof(counting), &counting_vtable, NULL, &r, &err));
    c = (counting *)r;
    c->json = strcpy((char *)malloc(strlen(dq(sq)) + 1), dq(sq));
    c->destroyed = destroyed;
    return c;
}

static void free_counting(counting *c) {
    const char *json = c->json;
    cres_resolver_free(&c->base);
    free((void *)(size_t)json);
}

static cres_union_options union_of(cres_resolver **children, size_t count) {
    cres_union_options o;
    memset(&o, 0, sizeof o);
    o.resolvers = children;
    o.resolvers_count = count;
    return o;
}

static cres_resolver *make_union(cres_resolver **children, size_t count) {
    cres_union_options o = union_of(children, count);
    cres_resolver *u = NULL;
    cres_error err;
    OK(cres_union_resolver_create(&o, &u, &err));
    return u;
}

/* ---------------------------------------------------------------------------------------
   Simple */

/* TF U2 */
static void simple_u2_options_read_back(void **state) {
    cres_resolver *r = make_u2();
    cres_accelerators acc;
    cres_error err;
    (void)state;
    assert_string_equal(cres_resolver_name(r), "simple");
    assert_string_equal(cres_task_type(r), "ps");
    assert_int_equal(cres_task_id(r), 1);
    assert_string_equal(cres_environment(r), "cloud");
    assert_string_equal(cres_rpc_layer(r), "grpc");
    OK(cres_num_accelerators(r, &acc, &err));
    assert_int_equal(acc.count, 1);
    assert_string_equal(acc.items[0].type, "GPU");
    assert_int_equal(acc.items[0].count, 8);
    cres_resolver_free(r);
}

/* TF U3 */
static void simple_u3_setters(void **state) {
    cres_resolver *r = make_u2();
    cres_error err;
    (void)state;
    OK(cres_set_task(r, "worker", 2, &err));
    OK(cres_set_rpc_layer(r, "http", &err));
    assert_string_equal(cres_task_type(r), "worker");
    assert_int_equal(cres_task_id(r), 2);
    assert_string_equal(cres_rpc_layer(r), "http");
    assert_string_equal(master_of(r, NULL, -1, NULL), "http://worker2:2222");
    cres_resolver_free(r);
}

/* TF U1 for Simple alone: the spec comes back, and each resolve is a fresh copy. */
static void simple_resolve_returns_fresh_copy(void **state) {
    cres_resolver *r = make_simple(no_simple_options(), BASE);
    cres_cluster_spec *a = NULL, *b = NULL;
    cres_error err;
    (void)state;
    OK(cres_resolve(r, &a, &err));
    assert_string_equal(json_of(a), dq(BASE));
    OK(cres_spec_add_task(a, "chief", 0, "c:1", &err));
    OK(cres_resolve(r, &b, &err));
    assert_string_equal(json_of(b), dq(BASE));
    assert_true(a != b);
    cres_spec_free(a);
    cres_spec_free(b);
    cres_resolver_free(r);
}

/* TF U4, U5, U6 */
static void simple_u4_u5_u6_master_of_given_task(void **state) {
    cres_resolver *r = make_simple(no_simple_options(), BASE);
    (void)state;
    assert_string_equal(master_of(r, "worker", 0, "grpc"), "grpc://worker0:2222");
    assert_string_equal(master_of(r, "worker", 2, "grpc"), "grpc://worker2:2222");
    assert_string_equal(master_of(r, "worker", 2, NULL), "worker2:2222");
    cres_resolver_free(r);
}

static void simple_master_of_own_task(void **state) {
    cres_resolver *r = make_u2();
    (void)state;
    assert_string_equal(master_of(r, NULL, -1, NULL), "grpc://ps1:2222");
    assert_string_equal(master_of(r, NULL, 0, NULL), "grpc://ps0:2222");       /* own type, given id */
    assert_string_equal(master_of(r, NULL, -1, ""), "ps1:2222");               /* "" = no rpc layer */
    assert_string_equal(master_of(r, "worker", 2, "http"), "http://worker2:2222");
    cres_resolver_free(r);
}

/* TF 3.1: with no task given, the master option wins, prefixed with the rpc layer. */
static void simple_master_option_without_task(void **state) {
    cres_simple_options o = no_simple_options();
    cres_resolver *r;
    (void)state;
    o.master = "session:1";
    o.task_type = "ps";
    o.task_id = 1;
    r = make_simple(o, BASE);
    assert_string_equal(master_of(r, NULL, -1, NULL), "session:1");
    assert_string_equal(master_of(r, NULL, -1, "grpc"), "grpc://session:1");
    assert_string_equal(master_of(r, "worker", 1, NULL), "worker1:2222");
    assert_string_equal(master_of(r, "worker", -1, NULL), "session:1"); /* a type alone is no task (TF) */
    cres_resolver_free(r);
}

/* Header section 11 / TF bug 15: TF gives "grpc://" for an empty master with an rpc layer. */
static void simple_empty_master_with_rpc_is_empty(void **state) {
    cres_simple_options o = no_simple_options();
    cres_resolver *with_option, *without;
    (void)state;
    o.rpc_layer = "grpc";
    without = make_simple(o, BASE);
    o.master = "";
    with_option = make_simple(o, BASE);
    assert_string_equal(master_of(with_option, NULL, -1, NULL), "");
    assert_string_equal(master_of(without, NULL, -1, NULL), "");
    assert_string_equal(master_of(without, NULL, -1, "http"), "");
    cres_resolver_free(with_option);
    cres_resolver_free(without);
}

static void simple_master_missing_task_is_not_found(void **state) {
    cres_resolver *r = make_simple(no_simple_options(), BASE);
    char buf[64];
    cres_error err;
    (void)state;
    EXPECT(cres_master_of(r, "worker", 7, NULL, buf, sizeof buf, NULL, &err), CRES_ERR_NOT_FOUND);
    HAS(err.message, "\"worker\"");
    HAS(err.message, "7");
    EXPECT(cres_master_of(r, "chief", 0, NULL, buf, sizeof buf, NULL, &err), CRES_ERR_NOT_FOUND);
    HAS(err.message, "\"chief\"");
    assert_int_equal(err.result, CRES_ERR_NOT_FOUND);
    cres_resolver_free(r);
}

static void simple_own_task_missing_is_not_found(void **state) {
    cres_simple_options o = no_simple_options();
    cres_resolver *r;
    char buf[64];
    cres_error err;
    (void)state;
    o.task_type = "evaluator";
    o.task_id = 0;
    r = make_simple(o, BASE);
    EXPECT(cres_master(r, buf, sizeof buf, NULL, &err), CRES_ERR_NOT_FOUND);
    HAS(err.message, "evaluator");
    cres_resolver_free(r);
}

/* TF additional case: Simple("x") raises; here a missing spec is an invalid argument. */
static void simple_requires_spec(void **state) {
    cres_simple_options o = no_simple_options();
    cres_resolver *r = (cres_resolver *)&o;
    cres_error err;
    (void)state;
    EXPECT(cres_simple_resolver_create(&o, &r, &err), CRES_ERR_INVALID_ARGUMENT);
    assert_null(r);
    HAS(err.message, "spec");
    r = (cres_resolver *)&o;
    EXPECT(cres_simple_resolver_create(NULL, &r, &err), CRES_ERR_INVALID_ARGUMENT);
    assert_null(r);
}

static void simple_rejects_too_many_accelerator_kinds(void **state) {
    cres_simple_options o = no_simple_options();
    cres_cluster_spec *spec = parse(BASE);
    cres_accelerators acc;
    cres_resolver *r = NULL;
    cres_error err;
    (void)state;
    memset(&acc, 0, sizeof acc);
    acc.count = 9;
    o.spec = spec;
    o.accelerators = &acc;
    EXPECT(cres_simple_resolver_create(&o, &r, &err), CRES_ERR_INVALID_ARGUMENT);
    assert_null(r);
    HAS(err.message, "accelerator");
    cres_spec_free(spec);
}

static void simple_defaults(void **state) {
    cres_resolver *r = make_simple(no_simple_options(), BASE);
    cres_accelerators acc;
    cres_error err;
    (void)state;
    memset(&acc, 0x5a, sizeof acc);
    OK(cres_num_accelerators(r, &acc, &err));
    assert_int_equal(acc.count, 0);
    assert_null(cres_task_type(r));
    assert_int_equal(cres_task_id(r), -1);
    assert_null(cres_rpc_layer(r));
    assert_null(cres_environment(r));
    assert_string_equal(master_of(r, NULL, -1, NULL), "");
    cres_resolver_free(r);
}

/* Header 6: task_id is used only when task_type is set. */
/* options.task_id is read only with task_type: one alone is a mistake, refused naming both. */
static void simple_task_id_without_type_is_refused(void **state) {
    cres_simple_options o = no_simple_options();
    cres_cluster_spec *spec = parse(BASE);
    cres_resolver *r = NULL;
    cres_error err;
    (void)state;
    o.spec = spec;
    o.task_id = 2;
    EXPECT(cres_simple_resolver_create(&o, &r, &err), CRES_ERR_INVALID_ARGUMENT);
    assert_string_equal(err.message, "simple: options.task_id 2 is set without "
                                     "options.task_type (set both, or neither)");
    assert_null(r);
    o.task_type = "worker";
    o.task_id = -2;
    EXPECT(cres_simple_resolver_create(&o, &r, &err), CRES_ERR_INVALID_ARGUMENT);
    assert_string_equal(err.message, "simple: options.task_id -2 is below -1");
    o.task_type = NULL;
    o.task_id = -7; /* never valid, with a type or without */
    EXPECT(cres_simple_resolver_create(&o, &r, &err), CRES_ERR_INVALID_ARGUMENT);
    assert_string_equal(err.message, "simple: options.task_id -7 is below -1");
    assert_null(r);
    cres_spec_free(spec);
}

/* A backend of the program's that fails without a word still gets a message naming it. */
static cres_result silent_resolve(cres_resolver *self, cres_cluster_spec **out, cres_error *err) {
    (void)self;
    (void)out;
    (void)err;
    return CRES_ERR_ENVIRONMENT;
}

static void silent_backend_failure_is_named(void **state) {
    static const cres_resolver_vtable silent = {"mine", silent_resolve, NULL, NULL, NULL, NULL, NULL};
    cres_resolver *r = NULL;
    cres_cluster_spec *s = NULL;
    cres_launch_info info;
    cres_error err;
    (void)state;
    OK(cres_resolver_new(sizeof(cres_resolver), &silent, NULL, &r, &err));
    EXPECT(cres_resolve(r, &s, &err), CRES_ERR_ENVIRONMENT);
    assert_string_equal(err.message, "mine: resolve failed without a message");
    EXPECT(cres_launch(r, NULL, &err), CRES_ERR_INVALID_ARGUMENT);
    assert_string_equal(err.message, "launch: out is NULL");
    EXPECT(cres_launch(NULL, &info, &err), CRES_ERR_INVALID_ARGUMENT);
    assert_string_equal(err.message, "launch: resolver is NULL");
    cres_resolver_free(r);
    EXPECT(cres_union_resolver_create(NULL, &r, &err), CRES_ERR_INVALID_ARGUMENT);
    assert_string_equal(err.message, "union: options is NULL (it holds the resolvers)");
    assert_null(r);
}

static void simple_uses_config_allocator(void **state) {
    counter c = {0, 0};
    cres_config cfg;
    cres_simple_options o = no_simple_options();
    cres_resolver *r;
    cres_cluster_spec *s = NULL;
    cres_error err;
    (void)state;
    memset(&cfg, 0, sizeof cfg);
    cfg.allocator.alloc = count_alloc;
    cfg.allocator.free = count_free;
    cfg.allocator.user = &c;
    o.config = &cfg;
    o.task_type = "ps";
    o.master = "m:1";
    r = make_simple(o, BASE);
    OK(cres_resolve(r, &s, &err));
    cres_resolver_free(r);
    assert_true(c.live > 0); /* the resolved spec outlives its resolver */
    cres_spec_free(s);
    assert_int_equal(c.live, 0);
    assert_true(c.total > 3);
}

/* ---------------------------------------------------------------------------------------
   cres_master and the buffer contract */

static void master_buffer_contract(void **state) {
    cres_resolver *r = make_simple(no_simple_options(), BASE);
    char buf[8];
    size_t len = 0;
    cres_error err;
    (void)state;
    OK(cres_master_of(r, "worker", 1, "grpc", NULL, 0, &len, &err));
    assert_int_equal(len, strlen("grpc://worker1:2222"));
    EXPECT(cres_master_of(r, "worker", 1, "grpc", buf, sizeof buf, &len, &err), CRES_ERR_BUFFER_TOO_SMALL);
    assert_string_equal(buf, "grpc://");
    assert_int_equal(len, strlen("grpc://worker1:2222"));
    EXPECT(cres_master_of(r, "worker", 1, "grpc", NULL, 4, &len, &err), CRES_ERR_INVALID_ARGUMENT);
    cres_resolver_free(r);
}

static void master_rejects_bad_arguments(void **state) {
    cres_resolver *r = make_simple(no_simple_options(), BASE);
    char buf[64];
    cres_error err;
    (void)state;
    EXPECT(cres_master_of(r, "worker", -2, NULL, buf, sizeof buf, NULL, &err), CRES_ERR_INVALID_ARGUMENT);
    HAS(err.message, "-2");
    EXPECT(cres_master_of(NULL, "worker", 0, NULL, buf, sizeof buf, NULL, &err), CRES_ERR_INVALID_ARGUMENT);
    cres_resolver_free(r);
}

/* ---------------------------------------------------------------------------------------
   The generic resolver API, through a custom backend */

static void getters_accept_null(void **state) {
    cres_accelerators acc;
    cres_error err;
    (void)state;
    assert_null(cres_resolver_name(NULL));
    assert_null(cres_task_type(NULL));
    assert_int_equal(cres_task_id(NULL), -1);
    assert_null(cres_rpc_layer(NULL));
    assert_null(cres_environment(NULL));
    assert_null(cres_resolver_getenv(NULL, "TF_CONFIG"));
    EXPECT(cres_num_accelerators(NULL, &acc, &err), CRES_ERR_INVALID_ARGUMENT);
    EXPECT(cres_set_task(NULL, "w", 0, &err), CRES_ERR_INVALID_ARGUMENT);
    EXPECT(cres_set_rpc_layer(NULL, "grpc", &err), CRES_ERR_INVALID_ARGUMENT);
    cres_resolver_free(NULL);
}

static void resolver_new_validates_arguments(void **state) {
    static const cres_resolver_vtable no_resolve = {"x", NULL, NULL, NULL, NULL, NULL, NULL};
    static const cres_resolver_vtable no_name = {NULL, counting_resolve, NULL, NULL, NULL, NULL, NULL};
    cres_config cfg;
    cres_resolver *r = NULL;
    cres_error err;
    (void)state;
    EXPECT(cres_resolver_new(sizeof(counting), NULL, NULL, &r, &err), CRES_ERR_INVALID_ARGUMENT);
    EXPECT(cres_resolver_new(sizeof(counting), &no_resolve, NULL, &r, &err), CRES_ERR_INVALID_ARGUMENT);
    HAS(err.message, "resolve()");
    EXPECT(cres_resolver_new(sizeof(counting), &no_name, NULL, &r, &err), CRES_ERR_INVALID_ARGUMENT);
    EXPECT(cres_resolver_new(sizeof(cres_resolver) - 1, &counting_vtable, NULL, &r, &err), CRES_ERR_INVALID_ARGUMENT);
    HAS(err.message, "size");
    EXPECT(cres_resolver_new(sizeof(counting), &counting_vtable, NULL, NULL, &err), CRES_ERR_INVALID_ARGUMENT);
    memset(&cfg, 0, sizeof cfg);
    cfg.allocator.alloc = count_alloc;
    EXPECT(cres_resolver_new(sizeof(counting), &counting_vtable, &cfg, &r, &err), CRES_ERR_INVALID_ARGUMENT);
    HAS(err.message, "allocator");
    memset(&cfg, 0, sizeof cfg);
    cfg.timeout_ms = -1;
    EXPECT(cres_resolver_new(sizeof(counting), &counting_vtable, &cfg, &r, &err), CRES_ERR_INVALID_ARGUMENT);
    assert_null(r);
}

static void resolver_new_gives_zeroed_block(void **state) {
    counting *c = make_counting("{}", NULL);
    (void)state;
    assert_int_equal(c->resolves, 0);
    assert_null(c->detect_type);
    assert_string_equal(cres_resolver_name(&c->base), "counting");
    assert_null(cres_task_type(&c->base));
    assert_int_equal(cres_task_id(&c->base), -1);
    assert_null(cres_rpc_layer(&c->base));
    assert_null(cres_environment(&c->base));
    free_counting(c);
}

/* Header 6: with no task the default master rule is "", with or without an rpc layer. */
static void default_master_without_task_is_empty(void **state) {
    counting *c = make_counting(BASE, NULL);
    cres_error err;
    (void)state;
    assert_string_equal(master_of(&c->base, NULL, -1, NULL), "");
    OK(cres_set_rpc_layer(&c->base, "grpc", &err));
    assert_string_equal(master_of(&c->base, NULL, -1, NULL), "");
    assert_string_equal(master_of(&c->base, "worker", 1, NULL), "grpc://worker1:2222");
    free_counting(c);
}

static void default_master_uses_detected_task(void **state) {
    counting *c = make_counting(BASE, NULL);
    cres_cluster_spec *s = NULL;
    cres_error err;
    (void)state;
    c->detect_type = "worker";
    c->detect_id = 2;
    OK(cres_resolve(&c->base, &s, &err));
    cres_spec_free(s);
    assert_string_equal(cres_task_type(&c->base), "worker");
    assert_int_equal(cres_task_id(&c->base), 2);
    assert_string_equal(master_of(&c->base, NULL, -1, NULL), "worker2:2222");
    free_counting(c);
}

/* The own task is the one known after master()'s own resolve, even when that resolve
   reports a different task than the last one (the old type string is freed then). */
static void default_master_uses_task_found_by_its_resolve(void **state) {
    counting *c = make_counting(BASE, NULL);
    cres_cluster_spec *s = NULL;
    cres_error err;
    (void)state;
    c->detect_type = "worker";
    c->detect_id = 1;
    OK(cres_resolve(&c->base, &s, &err));
    cres_spec_free(s);
    c->detect_type = "ps";
    c->detect_id = 0;
    assert_string_equal(master_of(&c->base, NULL, -1, NULL), "ps0:2222");
    assert_string_equal(cres_task_type(&c->base), "ps");
    free_counting(c);
}

static void default_num_accelerators_is_none(void **state) {
    counting *c = make_counting(BASE, NULL);
    cres_accelerators acc;
    cres_error err;
    (void)state;
    memset(&acc, 0x5a, sizeof acc);
    OK(cres_num_accelerators_of(&c->base, "worker", 0, &acc, &err));
    assert_int_equal(acc.count, 0);
    EXPECT(cres_num_accelerators(&c->base, NULL, &err), CRES_ERR_INVALID_ARGUMENT);
    free_counting(c);
}

static void resolve_rejects_null_arguments(void **state) {
    counting *c = make_counting(BASE, NULL);
    cres_cluster_spec *s = NULL;
    cres_error err;
    (void)state;
    EXPECT(cres_resolve(&c->base, NULL, &err), CRES_ERR_INVALID_ARGUMENT);
    EXPECT(cres_resolve(NULL, &s, &err), CRES_ERR_INVALID_ARGUMENT);
    assert_null(s);
    assert_int_equal(c->resolves, 0);
    free_counting(c);
}

/* A backend that fails but leaves a spec: the library frees it (LSan checks) and returns none. */
static void resolve_failure_returns_no_spec(void **state) {
    counting *c = make_counting(BASE, NULL);
    cres_cluster_spec *s = NULL;
    cres_error err;
    (void)state;
    c->fail = 1;
    EXPECT(cres_resolve(&c->base, &s, &err), CRES_ERR_NOT_READY);
    assert_null(s);
    HAS(err.message, "not ready");
    free_counting(c);
}

static void resolve_success_without_spec_is_unexpected(void **state) {
    counting *c = make_counting(BASE, NULL);
    cres_cluster_spec *s = NULL;
    cres_error err;
    (void)state;
    c->give_null = 1;
    EXPECT(cres_resolve(&c->base, &s, &err), CRES_ERR_UNEXPECTED_RESPONSE);
    assert_null(s);
    HAS(err.message, "counting");
    free_counting(c);
}

static void set_task_null_keeps_type_and_minus_one_keeps_id(void **state) {
    cres_resolver *r = make_u2();
    cres_error err;
    (void)state;
    OK(cres_set_task(r, NULL, 5, &err));
    assert_string_equal(cres_task_type(r), "ps");
    assert_int_equal(cres_task_id(r), 5);
    OK(cres_set_task(r, "worker", -1, &err));
    assert_string_equal(cres_task_type(r), "worker");
    assert_int_equal(cres_task_id(r), 5);
    EXPECT(cres_set_task(r, "worker", -2, &err), CRES_ERR_INVALID_ARGUMENT);
    assert_int_equal(cres_task_id(r), 5);
    cres_resolver_free(r);
}

/* TF bug 9: TF's union ignores overrides of "" and 0; ours count. */
static void set_task_empty_and_zero_count(void **state) {
    cres_resolver *r = make_u2();
    cres_error err;
    (void)state;
    OK(cres_set_task(r, "", 0, &err));
    assert_non_null(cres_task_type(r));
    assert_string_equal(cres_task_type(r), "");
    assert_int_equal(cres_task_id(r), 0);
    cres_resolver_free(r);
}

static void set_task_override_wins_over_detection(void **state) {
    counting *c = make_counting(BASE, NULL);
    cres_cluster_spec *s = NULL;
    cres_error err;
    (void)state;
    c->detect_type = "worker";
    c->detect_id = 2;
    OK(cres_set_task(&c->base, "ps", 0, &err));
    OK(cres_resolve(&c->base, &s, &err));
    cres_spec_free(s);
    assert_string_equal(cres_task_type(&c->base), "ps");
    assert_int_equal(cres_task_id(&c->base), 0);
    free_counting(c);
}

static void set_task_id_only_keeps_detected_type(void **state) {
    counting *c = make_counting(BASE, NULL);
    cres_cluster_spec *s = NULL;
    cres_error err;
    (void)state;
    c->detect_type = "worker";
    c->detect_id = 2;
    OK(cres_set_task(&c->base, NULL, 0, &err));
    OK(cres_resolve(&c->base, &s, &err));
    cres_spec_free(s);
    assert_string_equal(cres_task_type(&c->base), "worker");
    assert_int_equal(cres_task_id(&c->base), 0);
    assert_string_equal(master_of(&c->base, NULL, -1, NULL), "worker0:2222");
    free_counting(c);
}

static void set_rpc_layer_empty_or_null_is_none(void **state) {
    cres_resolver *r = make_u2();
    cres_error err;
    (void)state;
    OK(cres_set_rpc_layer(r, "", &err));
    assert_null(cres_rpc_layer(r));
    assert_string_equal(master_of(r, NULL, -1, NULL), "ps1:2222");
    OK(cres_set_rpc_layer(r, "grpc", &err));
    OK(cres_set_rpc_layer(r, NULL, &err));
    assert_null(cres_rpc_layer(r));
    cres_resolver_free(r);
}

/* Header 6: with the hook set the library never reads the process environment. */
static void getenv_goes_through_hook_only(void **state) {
    env_table t = {{"ONLY_IN_TABLE"}, {"yes"}, 0};
    cres_config cfg = env_config(&t);
    cres_resolver *r = NULL;
    cres_error err;
    (void)state;
    OK(cres_resolver_new(sizeof(counting), &counting_vtable, &cfg, &r, &err));
    assert_string_equal(cres_resolver_getenv(r, "ONLY_IN_TABLE"), "yes");
    assert_null(cres_resolver_getenv(r, "PATH")); /* set in the process, absent from the table */
    assert_int_equal(t.lookups, 2);
    cres_resolver_free(r);
}

/* ---------------------------------------------------------------------------------------
   Union */

/* TF U1 */
static void union_u1_single_child(void **state) {
    cres_resolver *child = make_simple(no_simple_options(), BASE);
    cres_resolver *u = make_union(&child, 1);
    (void)state;
    assert_string_equal(cres_resolver_name(u), "union");
    assert_string_equal(resolved_json(u), dq(BASE));
    cres_resolver_free(u);
    cres_resolver_free(child);
}

static cres_resolver *make_u7_second(void) {
    cres_simple_options o = no_simple_options();
    cres_accelerators acc;
    memset(&acc, 0, sizeof acc);
    strcpy(acc.items[0].type, "GPU");
    acc.items[0].count = 16;
    acc.count = 1;
    o.task_type = "worker";
    o.task_id = 2;
    o.environment = "local";
    o.accelerators = &acc;
    o.rpc_layer = "http";
    return make_simple(o, "{'ps': ['ps2:2222', 'ps3:2222'], 'worker': ['worker3:2222', 'worker4:2222', 'worker5:2222']}");
}

/* TF U7: the union reads the first child's task, environment, accelerators and rpc layer. */
static void union_u7_inherits_first_child(void **state) {
    cres_resolver *children[2];
    cres_resolver *u;
    cres_accelerators acc;
    cres_error err;
    (void)state;
    children[0] = make_u2();
    children[1] = make_u7_second();
    u = make_union(children, 2);
    assert_string_equal(cres_task_type(u), "ps");
    assert_int_equal(cres_task_id(u), 1);
    assert_string_equal(cres_environment(u), "cloud");
    assert_string_equal(cres_rpc_layer(u), "grpc");
    OK(cres_num_accelerators(u, &acc, &err));
    assert_int_equal(acc.count, 1);
    assert_string_equal(acc.items[0].type, "GPU");
    assert_int_equal(acc.items[0].count, 8);
    cres_resolver_free(u);
    cres_resolver_free(children[0]);
    cres_resolver_free(children[1]);
}

/* TF U7, second half: the union's setters win. */
static void union_u7_setters(void **state) {
    cres_resolver *children[2];
    cres_resolver *u;
    cres_error err;
    (void)state;
    children[0] = make_u2();
    children[1] = make_u7_second();
    u = make_union(children, 2);
    OK(cres_set_task(u, "worker", 2, &err));
    OK(cres_set_rpc_layer(u, "http", &err));
    assert_string_equal(cres_task_type(u), "worker");
    assert_int_equal(cres_task_id(u), 2);
    assert_string_equal(cres_rpc_layer(u), "http");
    assert_string_equal(cres_task_type(children[0]), "ps"); /* the child is left alone */
    /* the merged worker job is worker0..2 then worker3..5 */
    assert_string_equal(master_of(u, NULL, -1, NULL), "http://worker2:2222");
    assert_string_equal(master_of(u, "worker", 4, NULL), "http://worker4:2222");
    cres_resolver_free(u);
    cres_resolver_free(children[0]);
    cres_resolver_free(children[1]);
}

#define U8_PS "{'ps': ['ps0:2222', 'ps1:2222']}"
#define U8_WORKER "{'worker': ['worker0:2222', 'worker1:2222', 'worker2:2222']}"

/* TF U8 */
static void union_u8_disjoint_jobs(void **state) {
    cres_resolver *children[2];
    cres_resolver *u;
    (void)state;
    children[0] = make_simple(no_simple_options(), U8_PS);
    children[1] = make_simple(no_simple_options(), U8_WORKER);
    u = make_union(children, 2);
    assert_string_equal(resolved_json(u), dq(BASE));
    cres_resolver_free(u);
    cres_resolver_free(children[0]);
    cres_resolver_free(children[1]);
}

/* TF U9 */
static void union_u9_master(void **state) {
    cres_resolver *children[2];
    cres_resolver *u;
    (void)state;
    children[0] = make_simple(no_simple_options(), U8_PS);
    children[1] = make_simple(no_simple_options(), U8_WORKER);
    u = make_union(children, 2);
    assert_string_equal(master_of(u, NULL, -1, NULL), "");
    assert_string_equal(master_of(u, "worker", 1, NULL), "worker1:2222");
    assert_string_equal(master_of(u, "worker", 1, "grpc"), "grpc://worker1:2222");
    assert_string_equal(master_of(u, "worker", -1, NULL), ""); /* a type alone: the first child's master */
    cres_resolver_free(u);
    cres_resolver_free(children[0]);
    cres_resolver_free(children[1]);
}

/* Union of two simple resolvers over sq1 and sq2: the resolve result and message. */
static cres_result union_resolve_json(const char *sq1, const char *sq2, char *json, size_t cap, cres_error *err) {
    cres_resolver *children[2];
    cres_resolver *u;
    cres_cluster_spec *s = NULL;
    cres_result r;
    children[0] = make_simple(no_simple_options(), sq1);
    children[1] = make_simple(no_simple_options(), sq2);
    u = make_union(children, 2);
    r = cres_resolve(u, &s, err);
    json[0] = '\0';
    if (r == CRES_OK) snprintf(json, cap, "%s", json_of(s));
    else assert_null(s);
    cres_spec_free(s);
    cres_resolver_free(u);
    cres_resolver_free(children[0]);
    cres_resolver_free(children[1]);
    return r;
}

/* TF U10 */
static void union_u10_dense_jobs_concatenate(void **state) {
    char json[512];
    cres_error err;
    (void)state;
    OK(union_resolve_json("{'worker': ['worker4:2222', 'worker5:2222']}",
                          "{'worker': ['worker0:2222', 'worker1:2222', 'worker2:2222']}", json, sizeof json, &err));
    assert_string_equal(json, dq("{'worker': ['worker4:2222', 'worker5:2222', 'worker0:2222', 'worker1:2222', "
                                 "'worker2:2222']}"));
}

/* TF U11: TF raises KeyError; we give CRES_ERR_CONFLICT naming the child, job and index. */
static void union_u11_sparse_collision_conflicts(void **state) {
    char json[512];
    cres_error err;
    (void)state;
    EXPECT(union_resolve_json("{'worker': {'7': 'worker4:2222', '9': 'worker5:2222'}}",
                              "{'worker': {'3': 'worker0:2222', '6': 'worker1:2222', '7': 'worker2:2222'}}", json,
                              sizeof json, &err),
           CRES_ERR_CONFLICT);
    HAS(err.message, "union: resolver 1 (simple)");
    HAS(err.message, "\"worker\"");
    HAS(err.message, "7");
}

/* TF U12 */
static void union_u12_dense_and_sparse_collide(void **state) {
    char json[512];
    cres_error err;
    (void)state;
    EXPECT(union_resolve_json("{'worker': ['worker4:2222', 'worker5:2222']}",
                              "{'worker': {'1': 'worker0:2222', '2': 'worker1:2222', '3': 'worker2:2222'}}", json,
                              sizeof json, &err),
           CRES_ERR_CONFLICT);
    HAS(err.message, "task 1");
}

/* TF U13 */
static void union_u13_sparse_jobs_interleave(void **state) {
    char json[512];
    cres_error err;
    (void)state;
    OK(union_resolve_json("{'worker': {'5': 'worker4:2222', '9': 'worker5:2222'}}",
                          "{'worker': {'3': 'worker0:2222', '6': 'worker1:2222', '7': 'worker2:2222'}}", json,
                          sizeof json, &err));
    assert_string_equal(json, dq("{'worker': {'3': 'worker0:2222', '5': 'worker4:2222', '6': 'worker1:2222', "
                                 "'7': 'worker2:2222', '9': 'worker5:2222'}}"));
}

/* TF U14 */
static void union_u14_dense_then_sparse(void **state) {
    char json[512];
    cres_error err;
    (void)state;
    OK(union_resolve_json("{'worker': ['worker4:2222', 'worker5:2222']}",
                          "{'worker': {'3': 'worker0:2222', '6': 'worker1:2222', '7': 'worker2:2222'}}", json,
                          sizeof json, &err));
    assert_string_equal(json, dq("{'worker': {'0': 'worker4:2222', '1': 'worker5:2222', '3': 'worker0:2222', "
                                 "'6': 'worker1:2222', '7': 'worker2:2222'}}"));
}

/* TF U15 */
static void union_u15_single_sparse_child_unchanged(void **state) {
    const char *sq = "{'worker': {'1': 'worker0:2222', '3': 'worker1:2222', '5': 'worker2:2222'}}";
    cres_resolver *child = make_simple(no_simple_options(), sq);
    cres_resolver *u = make_union(&child, 1);
    (void)state;
    assert_string_equal(resolved_json(u), dq(sq));
    cres_resolver_free(u);
    cres_resolver_free(child);
}

/* TF bug 8: TF's empty job forces dict mode, so [] + [a, b] + [c] raises KeyError there. */
static void union_empty_job_does_not_force_dict_mode(void **state) {
    cres_resolver *children[3];
    cres_resolver *u;
    (void)state;
    children[0] = make_simple(no_simple_options(), "{'worker': []}");
    children[1] = make_simple(no_simple_options(), "{'worker': ['a:1', 'b:1']}");
    children[2] = make_simple(no_simple_options(), "{'worker': ['c:1']}");
    u = make_union(children, 3);
    assert_string_equal(resolved_json(u), dq("{'worker': ['a:1', 'b:1', 'c:1']}"));
    cres_resolver_free(u);
    cres_resolver_free(children[0]);
    cres_resolver_free(children[1]);
    cres_resolver_free(children[2]);
}

/* Header 7: the union merges child by child with cres_spec_merge(). TF decides dict mode for
   the whole job first, so there the later sparse child makes [a, b] and [c] collide at 0. */
static void union_merges_child_by_child(void **state) {
    cres_resolver *children[3];
    cres_resolver *u;
    (void)state;
    children[0] = make_simple(no_simple_options(), "{'worker': ['a:1', 'b:1']}");
    children[1] = make_simple(no_simple_options(), "{'worker': ['c:1']}");
    children[2] = make_simple(no_simple_options(), "{'worker': {'5': 'd:1'}}");
    u = make_union(children, 3);
    assert_string_equal(resolved_json(u), dq("{'worker': {'0': 'a:1', '1': 'b:1', '2': 'c:1', '5': 'd:1'}}"));
    cres_resolver_free(u);
    cres_resolver_free(children[0]);
    cres_resolver_free(children[1]);
    cres_resolver_free(children[2]);
}

/* TF bug 9 / 3.2: TF queries every child twice per cluster_spec(); we ask once. */
static void union_asks_each_child_once_per_resolve(void **state) {
    counting *a = make_counting(U8_PS, NULL), *b = make_counting(U8_WORKER, NULL);
    cres_resolver *children[2];
    cres_resolver *u;
    (void)state;
    children[0] = &a->base;
    children[1] = &b->base;
    u = make_union(children, 2);
    assert_int_equal(a->resolves, 0);
    assert_string_equal(resolved_json(u), dq(BASE));
    assert_int_equal(a->resolves, 1);
    assert_int_equal(b->resolves, 1);
    assert_string_equal(master_of(u, "worker", 2, NULL), "worker2:2222");
    assert_int_equal(a->resolves, 2);
    assert_int_equal(b->resolves, 2);
    cres_resolver_free(u);
    free_counting(a);
    free_counting(b);
}

/* TF 3.2: master() with no task asks the first child, passing the rpc_layer argument. */
static void union_master_without_task_asks_first_child(void **state) {
    cres_simple_options o = no_simple_options();
    cres_resolver *children[2];
    cres_resolver *u;
    (void)state;
    o.master = "first:1";
    children[0] = make_simple(o, U8_PS);
    o.master = "second:1";
    children[1] = make_simple(o, U8_WORKER);
    u = make_union(children, 2);
    assert_string_equal(master_of(u, NULL, -1, NULL), "first:1");
    assert_string_equal(master_of(u, NULL, -1, "grpc"), "grpc://first:1");
    cres_resolver_free(u);
    cres_resolver_free(children[0]);
    cres_resolver_free(children[1]);
}

/* Header 7: the union's rpc layer is the first child's unless overridden. (TF's union uses only
   its own override on this path, so TF gives "worker1:2222" here.) */
static void union_master_of_task_uses_inherited_rpc(void **state) {
    cres_resolver *children[2];
    cres_resolver *u;
    (void)state;
    children[0] = make_u2();
    children[1] = make_simple(no_simple_options(), "{'chief': ['c:1']}");
    u = make_union(children, 2);
    assert_string_equal(master_of(u, "worker", 1, NULL), "grpc://worker1:2222");
    assert_string_equal(master_of(u, "chief", 0, ""), "c:1");
    cres_resolver_free(u);
    cres_resolver_free(children[0]);
    cres_resolver_free(children[1]);
}

static void union_master_missing_task_is_not_found(void **state) {
    cres_resolver *child = make_simple(no_simple_options(), BASE);
    cres_resolver *u = make_union(&child, 1);
    char buf[64];
    cres_error err;
    (void)state;
    EXPECT(cres_master_of(u, "chief", 0, NULL, buf, sizeof buf, NULL, &err), CRES_ERR_NOT_FOUND);
    HAS(err.message, "\"chief\"");
    EXPECT(cres_master_of(u, "ps", 5, NULL, buf, sizeof buf, NULL, &err), CRES_ERR_NOT_FOUND);
    HAS(err.message, "5");
    cres_resolver_free(u);
    cres_resolver_free(child);
}

/* TF bug 9: TF's union ignores task_id 0 and "" overrides (truthiness); ours count. */
static void union_overrides_of_zero_and_empty_count(void **state) {
    cres_resolver *child = make_u7_second(); /* worker / 2 / http */
    cres_union_options o = union_of(&child, 1);
    cres_resolver *u = NULL;
    cres_error err;
    (void)state;
    o.task_type = "ps";
    o.task_id = 0;
    o.rpc_layer = "";
    OK(cres_union_resolver_create(&o, &u, &err));
    assert_string_equal(cres_task_type(u), "ps");
    assert_int_equal(cres_task_id(u), 0);
    assert_null(cres_rpc_layer(u));
    assert_string_equal(master_of(u, NULL, -1, NULL), "ps2:2222");
    OK(cres_set_task(u, "", 0, &err));
    assert_string_equal(cres_task_type(u), "");
    assert_int_equal(cres_task_id(u), 0);
    cres_resolver_free(u);
    cres_resolver_free(child);
}

static void union_override_survives_resolve(void **state) {
    counting *c = make_counting(BASE, NULL);
    cres_resolver *child = &c->base;
    cres_resolver *u = make_union(&child, 1);
    cres_error err;
    (void)state;
    c->detect_type = "worker";
    c->detect_id = 2;
    OK(cres_set_task(u, NULL, 0, &err));
    resolved_json(u);
    assert_string_equal(cres_task_type(u), "worker"); /* inherited */
    assert_int_equal(cres_task_id(u), 0);             /* overridden */
    cres_resolver_free(u);
    free_counting(c);
}

/* Header 7: the first child's task, found at its resolve, becomes the union's. */
static void union_picks_up_first_child_task_at_resolve(void **state) {
    counting *a = make_counting(U8_WORKER, NULL), *b = make_counting(U8_PS, NULL);
    cres_resolver *children[2];
    cres_resolver *u;
    (void)state;
    a->detect_type = "worker";
    a->detect_id = 1;
    b->detect_type = "ps";
    b->detect_id = 0;
    children[0] = &a->base;
    children[1] = &b->base;
    u = make_union(children, 2);
    assert_null(cres_task_type(u));
    assert_int_equal(cres_task_id(u), -1);
    resolved_json(u);
    assert_string_equal(cres_task_type(u), "worker");
    assert_int_equal(cres_task_id(u), 1);
    assert_string_equal(master_of(u, NULL, -1, NULL), "worker1:2222");
    cres_resolver_free(u);
    free_counting(a);
    free_counting(b);
}

/* As above, through a union: its own task changes at the resolve master() makes. */
static void union_master_uses_task_found_by_its_resolve(void **state) {
    counting *a = make_counting(BASE, NULL);
    cres_resolver *child = &a->base;
    cres_resolver *u = make_union(&child, 1);
    (void)state;
    a->detect_type = "worker";
    a->detect_id = 1;
    resolved_json(u);
    a->detect_type = "ps";
    a->detect_id = 0;
    assert_string_equal(master_of(u, NULL, -1, NULL), "ps0:2222");
    assert_string_equal(cres_task_type(u), "ps");
    cres_resolver_free(u);
    free_counting(a);
}

static void union_environment_is_first_childs(void **state) {
    cres_resolver *children[2];
    cres_resolver *u;
    (void)state;
    children[0] = make_simple(no_simple_options(), U8_PS); /* environment "" */
    children[1] = make_u7_second();                        /* environment "local" */
    u = make_union(children, 2);
    assert_null(cres_environment(u));
    assert_null(cres_task_type(u));
    assert_null(cres_rpc_layer(u));
    cres_resolver_free(u);
    cres_resolver_free(children[0]);
    cres_resolver_free(children[1]);
}

static void union_num_accelerators_of_first_child(void **state) {
    cres_resolver *children[2];
    cres_resolver *u;
    cres_accelerators acc;
    cres_error err;
    (void)state;
    children[0] = make_simple(no_simple_options(), U8_PS); /* no accelerators */
    children[1] = make_u7_second();                        /* GPU 16 */
    u = make_union(children, 2);
    OK(cres_num_accelerators(u, &acc, &err));
    assert_int_equal(acc.count, 0);
    cres_resolver_free(u);
    cres_resolver_free(children[0]);
    cres_resolver_free(children[1]);
}

static void union_child_error_names_the_child(void **state) {
    counting *a = make_counting(U8_PS, NULL), *b = make_counting(U8_WORKER, NULL);
    cres_resolver *children[2];
    cres_resolver *u;
    cres_cluster_spec *s = NULL;
    cres_error err;
    (void)state;
    b->fail = 1;
    children[0] = &a->base;
    children[1] = &b->base;
    u = make_union(children, 2);
    EXPECT(cres_resolve(u, &s, &err), CRES_ERR_NOT_READY);
    assert_null(s);
    HAS(err.message, "union: resolver 1 (counting)");
    HAS(err.message, "not ready");
    cres_resolver_free(u);
    free_counting(a);
    free_counting(b);
}

static void union_owns_resolvers_frees_them(void **state) {
    int destroyed = 0;
    counting *a = make_counting(U8_PS, &destroyed), *b = make_counting(U8_WORKER, &destroyed);
    const char *ja = a->json, *jb = b->json;
    cres_resolver *children[2];
    cres_union_options o;
    cres_resolver *u = NULL;
    cres_error err;
    (void)state;
    children[0] = &a->base;
    children[1] = &b->base;
    o = union_of(children, 2);
    o.owns_resolvers = 1;
    OK(cres_union_resolver_create(&o, &u, &err));
    assert_string_equal(resolved_json(u), dq(BASE));
    cres_resolver_free(u);
    assert_int_equal(destroyed, 2);
    free((void *)(size_t)ja);
    free((void *)(size_t)jb);
}

/* A child given twice to an owning union, or owned by another union, is refused naming it;
   a failed create frees each owned child once, and none another union owns. */
static void union_owns_each_child_once(void **state) {
    int destroyed = 0;
    counting *a = make_counting(U8_PS, &destroyed), *b = make_counting(U8_WORKER, &destroyed);
    const char *ja = a->json, *jb = b->json;
    cres_resolver *twice[3], *one[1], *u = NULL, *v = NULL;
    cres_union_options o;
    cres_error err;
    (void)state;
    twice[0] = &a->base;
    twice[1] = &b->base;
    twice[2] = &a->base;
    o = union_of(twice, 3);
    o.owns_resolvers = 1;
    EXPECT(cres_union_resolver_create(&o, &u, &err), CRES_ERR_INVALID_ARGUMENT);
    assert_string_equal(err.message, "union: resolvers[2] is resolvers[0] again");
    assert_null(u);
    assert_int_equal(destroyed, 2); /* each once: no double free */
    free((void *)(size_t)ja);
    free((void *)(size_t)jb);
    a = make_counting(U8_PS, &destroyed);
    ja = a->json;
    one[0] = &a->base;
    o = union_of(one, 1);
    o.owns_resolvers = 1;
    OK(cres_union_resolver_create(&o, &u, &err));
    EXPECT(cres_union_resolver_create(&o, &v, &err), CRES_ERR_INVALID_ARGUMENT);
    assert_string_equal(err.message, "union: resolvers[0] has another owner");
    assert_null(v);
    assert_int_equal(destroyed, 2); /* still u's */
    cres_resolver_free(&a->base);  /* u owns it: the program's free is no free */
    assert_int_equal(destroyed, 2);
    o.owns_resolvers = 0;          /* borrowing it beside u is fine */
    OK(cres_union_resolver_create(&o, &v, &err));
    assert_string_equal(resolved_json(v), "{\"ps\": [\"ps0:2222\", \"ps1:2222\"]}");
    cres_resolver_free(v);
    cres_resolver_free(u);
    assert_int_equal(destroyed, 3);
    free((void *)(size_t)ja);
    /* borrowed twice: its dense jobs would concatenate with themselves, a doubled cluster */
    b = make_counting(U8_WORKER, &destroyed);
    twice[0] = twice[1] = &b->base;
    o = union_of(twice, 2);
    EXPECT(cres_union_resolver_create(&o, &u, &err), CRES_ERR_INVALID_ARGUMENT);
    HAS(err.message, "resolvers[1] is resolvers[0] again");
    assert_null(u);
    free_counting(b);
}

static void union_borrows_resolvers_by_default(void **state) {
    int destroyed = 0;
    counting *a = make_counting(U8_PS, &destroyed);
    cres_resolver *child = &a->base;
    cres_resolver *u = make_union(&child, 1);
    (void)state;
    cres_resolver_free(u);
    assert_int_equal(destroyed, 0);
    assert_int_equal(a->resolves, 0);
    free_counting(a);
    assert_int_equal(destroyed, 1);
}

static void union_owns_resolvers_freed_when_create_fails(void **state) {
    int destroyed = 0;
    counting *a = make_counting(U8_PS, &destroyed);
    const char *ja = a->json;
    cres_resolver *children[2];
    cres_union_options o;
    cres_resolver *u = (cres_resolver *)&o;
    cres_error err;
    (void)state;
    children[0] = &a->base;
    children[1] = NULL;
    o = union_of(children, 2);
    o.owns_resolvers = 1;
    EXPECT(cres_union_resolver_create(&o, &u, &err), CRES_ERR_INVALID_ARGUMENT);
    assert_null(u);
    HAS(err.message, "resolvers[1]");
    assert_int_equal(destroyed, 1);
    free((void *)(size_t)ja);
}

/* TF additional case: Union() raises ValueError 'At least one ClusterResolver is required.' */
static void union_requires_a_resolver(void **state) {
    cres_resolver *child = NULL;
    cres_union_options o = union_of(&child, 0);
    cres_resolver *u = NULL;
    cres_error err;
    (void)state;
    EXPECT(cres_union_resolver_create(&o, &u, &err), CRES_ERR_INVALID_ARGUMENT);
    HAS(err.message, "at least one resolver");
    assert_null(u);
    EXPECT(cres_union_resolver_create(NULL, &u, &err), CRES_ERR_INVALID_ARGUMENT);
    o = union_of(NULL, 1);
    EXPECT(cres_union_resolver_create(&o, &u, &err), CRES_ERR_INVALID_ARGUMENT);
    o = union_of(&child, 1); /* TF additional case: Union(object()) raises TypeError */
    EXPECT(cres_union_resolver_create(&o, &u, &err), CRES_ERR_INVALID_ARGUMENT);
    HAS(err.message, "resolvers[0]");
    { /* a NULL before a real child: the first NULL is named, and the check stops there */
        cres_resolver *two[3];
        two[0] = NULL;
        two[1] = make_simple(no_simple_options(), BASE);
        two[2] = NULL;
        o = union_of(two, 3);
        EXPECT(cres_union_resolver_create(&o, &u, &err), CRES_ERR_INVALID_ARGUMENT);
        HAS(err.message, "union: resolvers[0] is NULL");
        assert_null(u);
        cres_resolver_free(two[1]);
    }
}

/* ---------------------------------------------------------------------------------------
   Local */

static cres_resolver *make_local(const cres_local_options *o) {
    cres_resolver *r = NULL;
    cres_error err;
    OK(cres_local_resolver_create(o, &r, &err));
    return r;
}

static void local_defaults(void **state) {
    cres_resolver *r = make_local(NULL);
    cres_accelerators acc;
    cres_error err;
    (void)state;
    assert_string_equal(cres_resolver_name(r), "local");
    assert_string_equal(resolved_json(r), dq("{'worker': ['localhost:8470']}"));
    assert_string_equal(cres_task_type(r), "worker");
    assert_int_equal(cres_task_id(r), 0);
    assert_null(cres_rpc_layer(r));
    assert_string_equal(master_of(r, NULL, -1, NULL), "localhost:8470");
    OK(cres_num_accelerators(r, &acc, &err));
    assert_int_equal(acc.count, 0);
    cres_resolver_free(r);
}

static void local_options(void **state) {
    cres_local_options o;
    cres_resolver *r;
    (void)state;
    memset(&o, 0, sizeof o);
    o.job_name = "trainer";
    o.host = "10.0.0.1";
    o.port = 1234;
    o.rpc_layer = "grpc";
    r = make_local(&o);
    assert_string_equal(resolved_json(r), dq("{'trainer': ['10.0.0.1:1234']}"));
    assert_string_equal(cres_task_type(r), "trainer");
    assert_string_equal(master_of(r, NULL, -1, NULL), "grpc://10.0.0.1:1234");
    cres_resolver_free(r);
}

static void local_ipv6_host_is_bracketed(void **state) {
    cres_local_options o;
    cres_resolver *r;
    (void)state;
    memset(&o, 0, sizeof o);
    o.host = "::1";
    r = make_local(&o);
    assert_string_equal(resolved_json(r), dq("{'worker': ['[::1]:8470']}"));
    cres_resolver_free(r);
    o.host = "[fd00::2]"; /* already bracketed: not bracketed twice */
    r = make_local(&o);
    assert_string_equal(resolved_json(r), dq("{'worker': ['[fd00::2]:8470']}"));
    cres_resolver_free(r);
}

static void local_rejects_bad_port(void **state) {
    cres_local_options o;
    cres_resolver *r = NULL;
    cres_error err;
    (void)state;
    memset(&o, 0, sizeof o);
    o.port = -1;
    EXPECT(cres_local_resolver_create(&o, &r, &err), CRES_ERR_INVALID_ARGUMENT);
    HAS(err.message, "port -1");
    o.port = 65536;
    EXPECT(cres_local_resolver_create(&o, &r, &err), CRES_ERR_INVALID_ARGUMENT);
    HAS(err.message, "65536");
    assert_null(r);
}

static void local_rejects_bad_job_and_host(void **state) {
    cres_local_options o;
    cres_resolver *r = NULL;
    cres_error err;
    (void)state;
    memset(&o, 0, sizeof o);
    o.job_name = "";
    EXPECT(cres_local_resolver_create(&o, &r, &err), CRES_ERR_INVALID_ARGUMENT);
    HAS(err.message, "local: job name is empty");
    o.job_name = NULL;
    o.host = "bad host";
    EXPECT(cres_local_resolver_create(&o, &r, &err), CRES_ERR_INVALID_ARGUMENT);
    HAS(err.message, "local:");
    HAS(err.message, "bad host");
    assert_null(r);
}

/* ---------------------------------------------------------------------------------------
   Auto */

#define TF_TWO_WORKERS "{'cluster': {'worker': ['w0:1', 'w1:1']}, 'task': {'type': 'worker', 'index': 1}}"

static cres_result make_auto(const char *tf_config, const char *backend, int port, cres_resolver **r,
                             cres_error *err, env_table *t) {
    cres_config cfg;
    cres_auto_options o;
    memset(t, 0, sizeof *t);
    t->names[0] = "TF_CONFIG";
    t->values[0] = tf_config;
    cfg = env_config(t);
    memset(&o, 0, sizeof o);
    o.config = &cfg;
    o.backend = backend;
    o.port = port;
    return cres_auto_resolver_create(&o, r, err);
}

static void auto_tf_config_set_picks_tfconfig(void **state) {
    env_table t;
    cres_resolver *r = NULL;
    cres_error err;
    (void)state;
    OK(make_auto(dq(TF_TWO_WORKERS), NULL, 0, &r, &err, &t));
    assert_string_equal(cres_resolver_name(r), "tfconfig");
    assert_string_equal(resolved_json(r), dq("{'worker': ['w0:1', 'w1:1']}"));
    assert_string_equal(cres_task_type(r), "worker");
    assert_int_equal(cres_task_id(r), 1);
    assert_string_equal(master_of(r, NULL, -1, NULL), "w1:1");
    cres_resolver_free(r);
}

static void auto_local_fallback(cres_resolver *r) {
    assert_string_equal(cres_resolver_name(r), "local");
    assert_string_equal(resolved_json(r), dq("{'worker': ['localhost:8470']}"));
    assert_string_equal(cres_task_type(r), "worker");
    assert_int_equal(cres_task_id(r), 0);
    assert_string_equal(master_of(r, NULL, -1, NULL), "localhost:8470");
}

static void auto_tf_config_unset_picks_local(void **state) {
    env_table t;
    cres_resolver *r = NULL;
    cres_error err;
    (void)state;
    OK(make_auto(NULL, NULL, 0, &r, &err, &t));
    auto_local_fallback(r);
    assert_true(t.lookups >= 1);
    cres_resolver_free(r);
}

static void auto_tf_config_blank_picks_local(void **state) {
    static const char *const blanks[] = {"", " ", " \n\t\r "};
    env_table t;
    cres_resolver *r = NULL;
    cres_error err;
    size_t i;
    (void)state;
    for (i = 0; i < sizeof blanks / sizeof *blanks; i++) {
        OK(make_auto(blanks[i], NULL, 0, &r, &err, &t));
        auto_local_fallback(r);
        cres_resolver_free(r);
    }
}

static void auto_backend_auto_detects(void **state) {
    env_table t;
    cres_resolver *r = NULL;
    cres_error err;
    (void)state;
    OK(make_auto(dq(TF_TWO_WORKERS), "auto", 0, &r, &err, &t));
    assert_string_equal(cres_resolver_name(r), "tfconfig");
    cres_resolver_free(r);
}

static void auto_backend_forces_local(void **state) {
    env_table t;
    cres_resolver *r = NULL;
    cres_error err;
    (void)state;
    OK(make_auto(dq(TF_TWO_WORKERS), "local", 0, &r, &err, &t));
    auto_local_fallback(r);
    cres_resolver_free(r);
}

static void auto_backend_forces_tfconfig(void **state) {
    env_table t;
    cres_resolver *r = NULL;
    cres_error err;
    (void)state;
    OK(make_auto(NULL, "tfconfig", 0, &r, &err, &t));
    assert_string_equal(cres_resolver_name(r), "tfconfig");
    assert_string_equal(resolved_json(r), "{}");
    assert_string_equal(master_of(r, NULL, -1, NULL), "");
    cres_resolver_free(r);
}

static void auto_unknown_backend_is_unsupported(void **state) {
    env_table t;
    cres_resolver *r = (cres_resolver *)&t;
    cres_error err;
    (void)state;
    EXPECT(make_auto(NULL, "nosuchbackend", 0, &r, &err, &t), CRES_ERR_UNSUPPORTED);
    assert_null(r);
    HAS(err.message, "\"nosuchbackend\"");
    assert_int_equal(err.result, CRES_ERR_UNSUPPORTED);
}

static void auto_port_option(void **state) {
    env_table t;
    cres_resolver *r = NULL;
    cres_error err;
    (void)state;
    OK(make_auto(NULL, NULL, 9999, &r, &err, &t));
    assert_string_equal(resolved_json(r), dq("{'worker': ['localhost:9999']}"));
    cres_resolver_free(r);
}

static void auto_task_and_rpc_options(void **state) {
    env_table t;
    cres_config cfg;
    cres_auto_options o;
    cres_resolver *r = NULL;
    cres_error err;
    (void)state;
    memset(&t, 0, sizeof t);
    t.names[0] = "TF_CONFIG";
    t.values[0] = dq(TF_TWO_WORKERS);
    cfg = env_config(&t);
    memset(&o, 0, sizeof o);
    o.config = &cfg;
    o.task_type = "worker";
    o.task_id = 0;
    o.rpc_layer = "grpc";
    OK(cres_auto_resolver_create(&o, &r, &err));
    assert_int_equal(cres_task_id(r), 0);
    assert_string_equal(master_of(r, NULL, -1, NULL), "grpc://w0:1");
    cres_resolver_free(r);
}

/* A task given (cres_set_task, options.task_type) must be in the cluster the resolve finds:
   else CRES_ERR_NOT_FOUND naming it, and no spec. TensorFlow's evaluator runs outside it. */
static void resolve_refuses_a_given_task_outside_the_cluster(void **state) {
    cres_resolver *r = make_simple(no_simple_options(), BASE);
    cres_cluster_spec *s = NULL;
    cres_error err;
    (void)state;
    OK(cres_set_task(r, "worker", 3, &err));
    EXPECT(cres_resolve(r, &s, &err), CRES_ERR_NOT_FOUND);
    assert_null(s);
    HAS(err.message, "simple: the task given, \"worker\" 3, is not in the cluster (that job has 3 tasks)");
    OK(cres_set_task(r, "chief", 0, &err));
    EXPECT(cres_resolve(r, &s, &err), CRES_ERR_NOT_FOUND);
    HAS(err.message, "\"chief\" 0, is not in the cluster (no such job)");
    OK(cres_set_task(r, "worker", 2, &err));
    OK(cres_resolve(r, &s, &err));
    cres_spec_free(s);
    OK(cres_set_task(r, "evaluator", 0, &err));
    OK(cres_resolve(r, &s, &err));
    cres_spec_free(s);
    cres_resolver_free(r);
}

/* auto with the options of the backend it picks: they mean what they mean named. */
static void auto_reads_the_picked_backends_options(void **state) {
    env_table t;
    cres_config cfg, other;
    cres_auto_options o;
    cres_local_options local;
    cres_tfconfig_options tf;
    cres_resolver *r = NULL;
    cres_error err;
    (void)state;
    memset(&t, 0, sizeof t);
    cfg = env_config(&t);
    memset(&other, 0, sizeof other);
    memset(&o, 0, sizeof o);
    memset(&local, 0, sizeof local);
    memset(&tf, 0, sizeof tf);
    o.config = &cfg;
    o.port = 9000;
    o.local = &local;
    o.tfconfig = &tf;
    local.host = "node7";
    local.job_name = "trainer";
    OK(cres_auto_resolver_create(&o, &r, &err)); /* nothing set: local, with its options */
    assert_string_equal(cres_resolver_name(r), "local");
    assert_string_equal(resolved_json(r), "{\"trainer\": [\"node7:9000\"]}");
    cres_resolver_free(r);
    local.port = 9100; /* the backend's own port wins over auto's */
    OK(cres_auto_resolver_create(&o, &r, &err));
    assert_string_equal(resolved_json(r), "{\"trainer\": [\"node7:9100\"]}");
    cres_resolver_free(r);
    tf.json = dq(TF_TWO_WORKERS); /* the picked backend's options, not another's */
    t.names[0] = "TF_CONFIG";
    t.values[0] = dq("{'cluster': {'ps': ['p:1']}}");
    OK(cres_auto_resolver_create(&o, &r, &err));
    assert_string_equal(cres_resolver_name(r), "tfconfig");
    assert_string_equal(resolved_json(r), "{\"worker\": [\"w0:1\", \"w1:1\"]}");
    cres_resolver_free(r);
    tf.config = &other; /* a config of its own: the process environment, no hook */
    OK(cres_auto_resolver_create(&o, &r, &err));
    assert_string_equal(resolved_json(r), "{\"worker\": [\"w0:1\", \"w1:1\"]}");
    cres_resolver_free(r);
}

static void auto_bad_tf_config_is_environment_error(void **state) {
    env_table t;
    cres_resolver *r = (cres_resolver *)&t;
    cres_error err;
    (void)state;
    EXPECT(make_auto("{\"cluster\": ", NULL, 0, &r, &err, &t), CRES_ERR_ENVIRONMENT);
    assert_null(r);
    HAS(err.message, "TF_CONFIG");
}

static void auto_rejects_null_out(void **state) {
    env_table t;
    cres_error err;
    (void)state;
    EXPECT(make_auto(NULL, NULL, 0, NULL, &err, &t), CRES_ERR_INVALID_ARGUMENT);
}

/* NULL options are the defaults and a NULL out pointer is refused before anything is read:
   every backend that checks `out` first. (simple, union, tfconfig, local, kubernetes, gce, tpu
   and sagemaker do not: see local_and_gce_null_options for theirs.) */
static void null_options_and_null_out_are_invalid(void **state) {
    cres_error err;
    (void)state;
#define NULL_OUT(create, want_text)                                                        \
    do {                                                                                   \
        memset(&err, 0, sizeof err);                                                       \
        EXPECT(create(NULL, NULL, &err), CRES_ERR_INVALID_ARGUMENT);                       \
        assert_string_equal(err.message, want_text);                                       \
    } while (0)
    NULL_OUT(cres_slurm_resolver_create, "out is NULL");
    NULL_OUT(cres_mpi_resolver_create, "out is NULL");
    NULL_OUT(cres_pbs_resolver_create, "out is NULL");
    NULL_OUT(cres_lsf_resolver_create, "out is NULL");
    NULL_OUT(cres_sge_resolver_create, "out is NULL");
    NULL_OUT(cres_flux_resolver_create, "out is NULL");
    NULL_OUT(cres_vertex_resolver_create, "vertex: out is NULL");
    NULL_OUT(cres_skypilot_resolver_create, "skypilot: out is NULL");
    NULL_OUT(cres_volcano_resolver_create, "volcano: out is NULL");
    NULL_OUT(cres_lws_resolver_create, "lws: out is NULL");
    NULL_OUT(cres_torch_resolver_create, "torch: out is NULL");
    NULL_OUT(cres_jax_resolver_create, "jax: out is NULL");
    NULL_OUT(cres_awsbatch_resolver_create, "awsbatch: out is NULL");
    NULL_OUT(cres_auto_resolver_create, "auto: out is NULL");
#undef NULL_OUT
}

/* Options a backend accepts, and out NULL: CRES_ERR_INVALID_ARGUMENT before anything is
   built (these eight once built the resolver and stored it through the NULL pointer). */
static void valid_options_and_null_out_are_invalid(void **state) {
    env_table none = {{NULL}, {NULL}, 0};
    cres_config c = env_config(&none);
    cres_cluster_spec *spec = parse("{'worker': ['w0:1']}");
    cres_resolver *child = NULL;
    cres_simple_options so;
    cres_union_options uo;
    cres_tfconfig_options tfo;
    cres_local_options lo;
    cres_k8s_options ko;
    cres_gce_options go;
    cres_tpu_options to;
    cres_sagemaker_options smo;
    cres_error err;
    (void)state;
#define NULL_OUT(create, opts, want_text)                                                  \
    do {                                                                                   \
        memset(&err, 0, sizeof err);                                                       \
        EXPECT(create(&opts, NULL, &err), CRES_ERR_INVALID_ARGUMENT);                      \
        assert_string_equal(err.message, want_text);                                       \
    } while (0)
    memset(&so, 0, sizeof so), so.config = &c, so.spec = spec;
    NULL_OUT(cres_simple_resolver_create, so, "simple: out is NULL");
    OK(cres_simple_resolver_create(&so, &child, &err));
    memset(&uo, 0, sizeof uo), uo.config = &c, uo.resolvers = &child, uo.resolvers_count = 1;
    NULL_OUT(cres_union_resolver_create, uo, "union: out is NULL");
    memset(&tfo, 0, sizeof tfo), tfo.config = &c;
    tfo.json = "{\"cluster\": {\"worker\": [\"w0:1\"]}, \"task\": {\"type\": \"worker\", \"index\": 0}}";
    NULL_OUT(cres_tfconfig_resolver_create, tfo, "tfconfig: out is NULL");
    memset(&lo, 0, sizeof lo), lo.config = &c;
    NULL_OUT(cres_local_resolver_create, lo, "local: out is NULL");
    memset(&ko, 0, sizeof ko), ko.config = &c, ko.server = "https://k8s.test", ko.token = "t";
    ko.namespace_name = "default";
    NULL_OUT(cres_k8s_resolver_create, ko, "k8s: out is NULL");
    memset(&go, 0, sizeof go), go.config = &c, go.instance_group = "g", go.project = "p";
    go.zone = "z", go.token = "t";
    NULL_OUT(cres_gce_resolver_create, go, "gce: out is NULL");
    memset(&to, 0, sizeof to), to.config = &c, to.tpu = "grpc://10.0.0.1:8470";
    NULL_OUT(cres_tpu_resolver_create, to, "tpu: out is NULL");
    memset(&smo, 0, sizeof smo), smo.config = &c, smo.hosts = "[\"algo-1\"]";
    smo.current_host = "algo-1";
    NULL_OUT(cres_sagemaker_resolver_create, smo, "sagemaker: out is NULL");
#undef NULL_OUT
    cres_resolver_free(child);
    cres_spec_free(spec);
}

/* The helpers for backends of one's own, and the calls that take a resolver, given nothing
   or bad arguments: NULL back or CRES_ERR_INVALID_ARGUMENT, never a crash. */
extern char **environ;

static void helpers_and_calls_with_bad_arguments(void **state) {
    cres_resolver *r = NULL;
    cres_cluster_spec *spec = parse("{'worker': ['w0:1']}");
    cres_config c;
    cres_local_options lo;
    cres_error err;
    char buf[64];
    size_t n = 0;
    (void)state;
    OK(cres_local_resolver_create(NULL, &r, &err));
    assert_null(cres_resolver_getenv(NULL, "HOME"));
    assert_null(cres_resolver_getenv(r, NULL));
    /* without an env_list hook: the process's own environment, NULL past its end */
    while (environ[n]) n++;
    assert_true(n > 0);
    assert_ptr_equal(cres_resolver_env_at(r, 0), environ[0]);
    assert_null(cres_resolver_env_at(r, n));
    assert_null(cres_resolver_env_at(NULL, 0));
    assert_non_null(cres_resolver_allocator(NULL));
    { /* the default, CRES_MALLOC / CRES_FREE, as functions a backend can call */
        const cres_allocator *a = cres_resolver_allocator(NULL);
        void *p = a->alloc(a->user, 8);
        assert_non_null(p);
        a->free(a->user, p);
    }
    EXPECT(cres_set_detected_task(NULL, "worker", 0, &err), CRES_ERR_INVALID_ARGUMENT);
    EXPECT(cres_set_environment(NULL, "cloud", &err), CRES_ERR_INVALID_ARGUMENT);
    EXPECT(cres_visible_devices_of(NULL, NULL, -1, buf, sizeof buf, NULL, &err), CRES_ERR_INVALID_ARGUMENT);
    EXPECT(cres_visible_devices_of(r, "worker", -2, buf, sizeof buf, NULL, &err), CRES_ERR_INVALID_ARGUMENT);
    HAS(err.message, "task id -2 is negative");
    EXPECT(cres_visible_devices_of(r, NULL, -1, NULL, 8, NULL, &err), CRES_ERR_INVALID_ARGUMENT);
    EXPECT(cres_tfconfig(NULL, buf, sizeof buf, NULL, &err), CRES_ERR_INVALID_ARGUMENT);
    HAS(err.message, "resolver is NULL");
    EXPECT(cres_spec_to_tfconfig(spec, "worker", 0, NULL, NULL, NULL, 8, NULL, &err), CRES_ERR_INVALID_ARGUMENT);
    cres_resolver_free(r);
    cres_spec_free(spec);
    memset(&c, 0, sizeof c);
    memset(&lo, 0, sizeof lo);
    lo.config = &c;
    c.resolve_timeout_ms = -2;
    EXPECT(cres_local_resolver_create(&lo, &r, &err), CRES_ERR_INVALID_ARGUMENT);
    HAS(err.message, "config: resolve_timeout_ms -2 is out of range (-1 or more)");
    c.resolve_timeout_ms = 0;
    c.max_retries = -2;
    EXPECT(cres_local_resolver_create(&lo, &r, &err), CRES_ERR_INVALID_ARGUMENT);
}

/* NULL options read the process's own environment: in a child of its own, with only the
   variables each backend needs, tfconfig, kubernetes (in-cluster), tpu and sagemaker make
   their resolvers from it. The test process itself never changes its environment. */
static int create_in_environment(const char *const *vars, cres_result (*make)(cres_resolver **, cres_error *),
                                 const char *want) {
    pid_t pid;
    int status = 0;
    fflush(NULL); /* the child exits with exit(), which flushes (coverage counts are written then) */
    pid = fork();
    if (pid == 0) {
        cres_resolver *r = NULL;
        cres_cluster_spec *s = NULL;
        cres_error err;
        int ok;
        clearenv();
        for (; *vars; vars += 2) setenv(vars[0], vars[1], 1);
        ok = make(&r, &err) == CRES_OK && r && strcmp(cres_resolver_name(r), want) == 0;
        if (ok && strcmp(want, "kubernetes") != 0) /* kubernetes would need its API server */
            ok = cres_resolve(r, &s, &err) == CRES_OK && cres_spec_jobs_count(s) == 1;
        if (!ok) fprintf(stderr, "%s: %s\n", want, err.message);
        cres_spec_free(s);
        cres_resolver_free(r);
        exit(ok ? 0 : 1);
    }
    return pid > 0 && waitpid(pid, &status, 0) == pid && WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

static cres_result make_tfconfig(cres_resolver **r, cres_error *err) { return cres_tfconfig_resolver_create(NULL, r, err); }
static cres_result make_k8s(cres_resolver **r, cres_error *err) { return cres_k8s_resolver_create(NULL, r, err); }
static cres_result make_tpu(cres_resolver **r, cres_error *err) { return cres_tpu_resolver_create(NULL, r, err); }
static cres_result make_sagemaker(cres_resolver **r, cres_error *err) {
    return cres_sagemaker_resolver_create(NULL, r, err);
}
static cres_result make_auto_null(cres_resolver **r, cres_error *err) { return cres_auto_resolver_create(NULL, r, err); }
static cres_result make_auto_without_config(cres_resolver **r, cres_error *err) {
    cres_auto_options o;
    memset(&o, 0, sizeof o); /* options, but no config in them */
    return cres_auto_resolver_create(&o, r, err);
}

static void null_options_read_the_process_environment(void **state) {
    static const char *const tf[] = {"TF_CONFIG", "{\"cluster\": {\"worker\": [\"w0:1\"]}}", NULL};
    static const char *const k8s[] = {"KUBERNETES_SERVICE_HOST", "10.96.0.1", "KUBERNETES_SERVICE_PORT", "443", NULL};
    static const char *const tpu[] = {"TPU_NAME", "grpc://10.0.0.1:8470", NULL};
    static const char *const sm[] = {"SM_HOSTS", "[\"algo-1\"]", "SM_CURRENT_HOST", "algo-1", NULL};
    (void)state;
    assert_true(create_in_environment(tf, make_tfconfig, "tfconfig"));
    assert_true(create_in_environment(k8s, make_k8s, "kubernetes"));
    assert_true(create_in_environment(tpu, make_tpu, "tpu"));
    assert_true(create_in_environment(sm, make_sagemaker, "sagemaker"));
    /* auto, without options or without a config, detects from the same environment */
    assert_true(create_in_environment(tf, make_auto_null, "tfconfig"));
    assert_true(create_in_environment(tf, make_auto_without_config, "tfconfig"));
}

/* A process with no environment at all (clearenv() leaves environ NULL): without an env_list
   hook cres_resolver_env_at() has no first variable, and auto finds no launcher. */
static void env_at_without_any_environment(void **state) {
    pid_t pid;
    int status = 0;
    (void)state;
    fflush(NULL);
    pid = fork();
    if (pid == 0) {
        cres_resolver *r = NULL;
        cres_error err;
        int ok;
        clearenv();
        ok = cres_local_resolver_create(NULL, &r, &err) == CRES_OK && cres_resolver_env_at(r, 0) == NULL &&
             cres_resolver_env_at(r, 3) == NULL;
        cres_resolver_free(r);
        r = NULL;
        ok = ok && cres_auto_resolver_create(NULL, &r, &err) == CRES_OK && strcmp(cres_resolver_name(r), "local") == 0;
        if (!ok) fprintf(stderr, "env_at without environ: %s\n", err.message);
        cres_resolver_free(r);
        exit(ok ? 0 : 1);
    }
    assert_true(pid > 0 && waitpid(pid, &status, 0) == pid && WIFEXITED(status) && WEXITSTATUS(status) == 0);
}

/* local and gce with NULL options: local's defaults; gce needs its instance group. */
static void local_and_gce_null_options(void **state) {
    cres_resolver *r = NULL;
    cres_error err;
    (void)state;
    OK(cres_local_resolver_create(NULL, &r, &err));
    assert_string_equal(resolved_json(r), "{\"worker\": [\"localhost:8470\"]}");
    cres_resolver_free(r);
    r = NULL;
    EXPECT(cres_gce_resolver_create(NULL, &r, &err), CRES_ERR_INVALID_ARGUMENT);
    HAS(err.message, "options.instance_group is missing");
    assert_null(r);
}

/* ---------------------------------------------------------------------------------------
   API conventions: the public error helper, the short calls for the own task, callbacks
   that take their user pointer first. */

static void error_set_fills_result_and_message(void **state) {
    cres_error err;
    char long_name[400];
    (void)state;
    memset(&err, 0, sizeof err);
    err.http_status = 503;
    assert_int_equal(cres_error_set(&err, CRES_ERR_TRANSPORT, "replay: cannot read %s (%d)", "x.json", 2),
                     CRES_ERR_TRANSPORT);
    assert_int_equal(err.result, CRES_ERR_TRANSPORT);
    assert_string_equal(err.message, "replay: cannot read x.json (2)");
    assert_int_equal(err.http_status, 503); /* left as it was */
    memset(long_name, 'n', sizeof long_name - 1);
    long_name[sizeof long_name - 1] = '\0';
    assert_int_equal(cres_error_set(&err, CRES_ERR_LIMIT, "name %s", long_name), CRES_ERR_LIMIT);
    assert_int_equal(strlen(err.message), CRES_ERROR_MESSAGE_SIZE - 1); /* cut, terminated */
    assert_int_equal(cres_error_set(NULL, CRES_ERR_ENVIRONMENT, "nobody reads %s", "this"), CRES_ERR_ENVIRONMENT);
}

/* Each short call gives what its long form gives for the own task. */
static void short_calls_are_the_own_tasks(void **state) {
    cres_resolver *r = make_u2(); /* ps 1, "grpc", GPU 8 */
    cres_accelerators shorter, longer;
    char a[256], b[256], devices[16];
    size_t alen = 0, blen = 0;
    cres_error err;
    (void)state;
    OK(cres_master(r, a, sizeof a, &alen, &err));
    OK(cres_master_of(r, NULL, CRES_OWN_TASK, NULL, b, sizeof b, &blen, &err));
    assert_string_equal(a, "grpc://ps1:2222");
    assert_string_equal(a, b);
    assert_int_equal(alen, blen);
    OK(cres_num_accelerators(r, &shorter, &err));
    OK(cres_num_accelerators_of(r, NULL, CRES_OWN_TASK, &longer, &err));
    assert_int_equal(shorter.count, 1);
    assert_string_equal(shorter.items[0].type, "GPU");
    assert_int_equal(shorter.items[0].count, 8);
    assert_memory_equal(&shorter, &longer, sizeof shorter);
    OK(cres_visible_devices(r, devices, sizeof devices, NULL, &err));
    assert_string_equal(devices, "");
    cres_resolver_free(r);
}

static void launch_is_the_own_tasks_launch_info(void **state) {
    cres_resolver *r = make_u2();
    cres_launch_info info;
    cres_error err;
    (void)state;
    OK(cres_launch(r, &info, &err));
    /* ranks: ps 0-1, then worker 2-4 (no chief); ps1 is rank 1, alone on its host */
    assert_int_equal(info.world_size, 5);
    assert_int_equal(info.rank, 1);
    assert_int_equal(info.local_rank, 0);
    assert_int_equal(info.local_world_size, 1);
    assert_string_equal(info.master_host, "ps0");
    assert_int_equal(info.master_port, 2222);
    assert_string_equal(info.master_address, "ps0:2222");
    cres_resolver_free(r);
}

static void launch_without_own_task_is_not_found(void **state) {
    cres_resolver *r = make_simple(no_simple_options(), BASE);
    cres_launch_info info;
    cres_error err;
    (void)state;
    EXPECT(cres_launch(r, &info, &err), CRES_ERR_NOT_FOUND);
    HAS(err.message, "cres_set_task");
    OK(cres_set_task(r, "worker", 2, &err));
    OK(cres_launch(r, &info, &err));
    assert_int_equal(info.rank, 4);
    EXPECT(cres_launch(NULL, &info, &err), CRES_ERR_INVALID_ARGUMENT);
    EXPECT(cres_launch(r, NULL, &err), CRES_ERR_INVALID_ARGUMENT);
    cres_resolver_free(r);
}

static void tfconfig_is_the_own_tf_config(void **state) {
    cres_resolver *r = make_u2();
    cres_cluster_spec *spec = parse(BASE);
    char a[1024], b[1024];
    cres_error err;
    (void)state;
    OK(cres_tfconfig(r, a, sizeof a, NULL, &err));
    OK(cres_spec_to_tfconfig(spec, "ps", 1, "grpc", "cloud", b, sizeof b, NULL, &err));
    assert_string_equal(a, b);
    HAS(a, "\"task\": {\"type\": \"ps\", \"index\": 1}");
    cres_spec_free(spec);
    cres_resolver_free(r);
}

/* The user pointer comes first in every callback: an allocator and a getenv hook that read
   their first argument as their own state. */
static void callbacks_take_user_first(void **state) {
    counter c = {0, 0};
    env_table t = {{"TF_CONFIG"}, {"{\"cluster\": {\"worker\": [\"w0:1\"]}, \"task\": {\"type\": \"worker\", \"index\": 0}}"}, 0};
    cres_config config = env_config(&t);
    cres_tfconfig_options o;
    cres_resolver *r = NULL;
    cres_error err;
    (void)state;
    config.allocator.alloc = count_alloc;
    config.allocator.free = count_free;
    config.allocator.user = &c;
    memset(&o, 0, sizeof o);
    o.config = &config;
    OK(cres_tfconfig_resolver_create(&o, &r, &err));
    assert_true(t.lookups > 0);
    assert_true(c.total > 0);
    assert_string_equal(resolved_json(r), "{\"worker\": [\"w0:1\"]}");
    cres_resolver_free(r);
    assert_int_equal(c.live, 0);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(simple_u2_options_read_back),
        cmocka_unit_test(simple_u3_setters),
        cmocka_unit_test(simple_resolve_returns_fresh_copy),
        cmocka_unit_test(simple_u4_u5_u6_master_of_given_task),
        cmocka_unit_test(simple_master_of_own_task),
        cmocka_unit_test(simple_master_option_without_task),
        cmocka_unit_test(simple_empty_master_with_rpc_is_empty),
        cmocka_unit_test(simple_master_missing_task_is_not_found),
        cmocka_unit_test(simple_own_task_missing_is_not_found),
        cmocka_unit_test(simple_requires_spec),
        cmocka_unit_test(simple_rejects_too_many_accelerator_kinds),
        cmocka_unit_test(simple_defaults),
        cmocka_unit_test(simple_task_id_without_type_is_refused),
        cmocka_unit_test(simple_uses_config_allocator),
        cmocka_unit_test(master_buffer_contract),
        cmocka_unit_test(master_rejects_bad_arguments),
        cmocka_unit_test(getters_accept_null),
        cmocka_unit_test(resolver_new_validates_arguments),
        cmocka_unit_test(resolver_new_gives_zeroed_block),
        cmocka_unit_test(default_master_without_task_is_empty),
        cmocka_unit_test(default_master_uses_detected_task),
        cmocka_unit_test(default_master_uses_task_found_by_its_resolve),
        cmocka_unit_test(default_num_accelerators_is_none),
        cmocka_unit_test(resolve_rejects_null_arguments),
        cmocka_unit_test(resolve_failure_returns_no_spec),
        cmocka_unit_test(resolve_success_without_spec_is_unexpected),
        cmocka_unit_test(set_task_null_keeps_type_and_minus_one_keeps_id),
        cmocka_unit_test(set_task_empty_and_zero_count),
        cmocka_unit_test(set_task_override_wins_over_detection),
        cmocka_unit_test(set_task_id_only_keeps_detected_type),
        cmocka_unit_test(set_rpc_layer_empty_or_null_is_none),
        cmocka_unit_test(getenv_goes_through_hook_only),
        cmocka_unit_test(union_u1_single_child),
        cmocka_unit_test(union_u7_inherits_first_child),
        cmocka_unit_test(union_u7_setters),
        cmocka_unit_test(union_u8_disjoint_jobs),
        cmocka_unit_test(union_u9_master),
        cmocka_unit_test(union_u10_dense_jobs_concatenate),
        cmocka_unit_test(union_u11_sparse_collision_conflicts),
        cmocka_unit_test(union_u12_dense_and_sparse_collide),
        cmocka_unit_test(union_u13_sparse_jobs_interleave),
        cmocka_unit_test(union_u14_dense_then_sparse),
        cmocka_unit_test(union_u15_single_sparse_child_unchanged),
        cmocka_unit_test(union_empty_job_does_not_force_dict_mode),
        cmocka_unit_test(union_merges_child_by_child),
        cmocka_unit_test(union_asks_each_child_once_per_resolve),
        cmocka_unit_test(union_master_without_task_asks_first_child),
        cmocka_unit_test(union_master_of_task_uses_inherited_rpc),
        cmocka_unit_test(union_master_missing_task_is_not_found),
        cmocka_unit_test(union_overrides_of_zero_and_empty_count),
        cmocka_unit_test(union_override_survives_resolve),
        cmocka_unit_test(union_picks_up_first_child_task_at_resolve),
        cmocka_unit_test(union_master_uses_task_found_by_its_resolve),
        cmocka_unit_test(union_environment_is_first_childs),
        cmocka_unit_test(union_num_accelerators_of_first_child),
        cmocka_unit_test(union_child_error_names_the_child),
        cmocka_unit_test(union_owns_resolvers_frees_them),
        cmocka_unit_test(union_owns_each_child_once),
        cmocka_unit_test(silent_backend_failure_is_named),
        cmocka_unit_test(union_borrows_resolvers_by_default),
        cmocka_unit_test(union_owns_resolvers_freed_when_create_fails),
        cmocka_unit_test(union_requires_a_resolver),
        cmocka_unit_test(local_defaults),
        cmocka_unit_test(local_options),
        cmocka_unit_test(local_ipv6_host_is_bracketed),
        cmocka_unit_test(local_rejects_bad_port),
        cmocka_unit_test(local_rejects_bad_job_and_host),
        cmocka_unit_test(auto_tf_config_set_picks_tfconfig),
        cmocka_unit_test(auto_tf_config_unset_picks_local),
        cmocka_unit_test(auto_tf_config_blank_picks_local),
        cmocka_unit_test(auto_backend_auto_detects),
        cmocka_unit_test(auto_backend_forces_local),
        cmocka_unit_test(auto_reads_the_picked_backends_options),
        cmocka_unit_test(resolve_refuses_a_given_task_outside_the_cluster),
        cmocka_unit_test(auto_backend_forces_tfconfig),
        cmocka_unit_test(auto_unknown_backend_is_unsupported),
        cmocka_unit_test(auto_port_option),
        cmocka_unit_test(auto_task_and_rpc_options),
        cmocka_unit_test(auto_bad_tf_config_is_environment_error),
        cmocka_unit_test(auto_rejects_null_out),
        cmocka_unit_test(null_options_and_null_out_are_invalid),
        cmocka_unit_test(valid_options_and_null_out_are_invalid),
        cmocka_unit_test(local_and_gce_null_options),
        cmocka_unit_test(null_options_read_the_process_environment),
        cmocka_unit_test(env_at_without_any_environment),
        cmocka_unit_test(helpers_and_calls_with_bad_arguments),
        cmocka_unit_test(error_set_fills_result_and_message),
        cmocka_unit_test(short_calls_are_the_own_tasks),
        cmocka_unit_test(launch_is_the_own_tasks_launch_info),
        cmocka_unit_test(launch_without_own_task_is_not_found),
        cmocka_unit_test(tfconfig_is_the_own_tf_config),
        cmocka_unit_test(callbacks_take_user_first),
    };
    return cmocka_run_group_tests_name("resolvers", tests, NULL, NULL);
}
