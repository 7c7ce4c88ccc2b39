/* The allocation-failure tests' allocator: it fails the n-th allocation (and, when sticky,
   every later one), counts the blocks still live, and catches a block freed through another
   allocator (each block starts with a header naming its allocator). Setup code may suspend
   it: allocations are then neither counted nor failed. And the walk that drives it: a
   scenario runs once per allocation, that allocation failing, until a run fails none.
   Then the parts the environment backends' scenarios share: their environment, config and
   create, and the checks of what a resolver answers. Include it after <cmocka.h>. */
#ifndef ALLOC_WALK_H
#define ALLOC_WALK_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../cluster_resolver.h"

typedef struct test_alloc {
    long count;      /* allocations attempted while not suspended */
    long fail_at;    /* the allocation to fail; -1 = none */
    int sticky;      /* also fail every allocation after fail_at */
    int suspended;   /* setup phase: allocations are neither counted nor failed */
    int triggered;   /* an allocation was failed */
    long live;       /* blocks handed out and not yet freed */
    long bad_frees;  /* frees of blocks this allocator did not make */
} test_alloc;

typedef union block_header {
    struct {
        unsigned long magic;
        test_alloc *owner;
    } h;
    long double align_ld;
    void *align_p;
    long long align_ll;
} block_header;

#define BLOCK_MAGIC 0xC0FFEE11UL
#define MAX_ALLOCATIONS_WALKED 100000L

static void *test_alloc_fn(void *user, size_t size) {
    test_alloc *t = (test_alloc *)user;
    block_header *b;
    if (!t->suspended) {
        long n = t->count++;
        if (n == t->fail_at || (t->sticky && t->fail_at >= 0 && n > t->fail_at)) {
            t->triggered = 1;
            return NULL;
        }
    }
    b = (block_header *)malloc(sizeof *b + size);
    if (!b) return NULL;
    b->h.magic = BLOCK_MAGIC;
    b->h.owner = t;
    t->live++;
    return b + 1;
}

static void test_free_fn(void *user, void *ptr) {
    test_alloc *t = (test_alloc *)user;
    block_header *b;
    if (!ptr) return;
    b = (block_header *)ptr - 1;
    if (b->h.magic != BLOCK_MAGIC || b->h.owner != t) {
        t->bad_frees++;
        return;
    }
    b->h.magic = 0;
    t->live--;
    free(b);
}

/* Points a at the test allocator t. */
static void test_alloc_use(cres_allocator *a, test_alloc *t) {
    a->alloc = test_alloc_fn;
    a->free = test_free_fn;
    a->user = t;
}

/* Helpers some walks use and others do not. */
#if defined(__GNUC__) || defined(__clang__)
#  define ALLOC_WALK_OPTIONAL __attribute__((unused))
#else
#  define ALLOC_WALK_OPTIONAL
#endif

/* Not a library result: the scenario got a wrong answer (printed by mismatch()). */
#define WRONG_CONTENT CRES_RESULT_COUNT

/* The last failure's message, for the walk's report (checked() notes it). */
static char alloc_walk_detail[CRES_ERROR_MESSAGE_SIZE];

static cres_result mismatch(const char *what, const char *got) {
    print_error("    wrong content: %s%s%s\n", what, got[0] ? ": " : "", got);
    return WRONG_CONTENT;
}

/* The error struct must agree with the returned code, and a failure must say something. */
static cres_result checked(cres_result r, const cres_error *err) {
    if (r != CRES_OK) memcpy(alloc_walk_detail, err->message, sizeof alloc_walk_detail);
    if (err->result != r) return mismatch("err->result differs from the returned code", err->message);
    if (r != CRES_OK && err->message[0] == '\0') return mismatch("a failure without a message", "");
    return r;
}

/* The own task's master must be `want`. */
ALLOC_WALK_OPTIONAL static cres_result check_master(cres_resolver *r, const char *want) {
    cres_error err;
    char master[256];
    cres_result res = checked(cres_master(r, master, sizeof master, NULL, &err), &err);
    if (res == CRES_OK && strcmp(master, want) != 0) res = mismatch("master", master);
    return res;
}

static const char *result_name(cres_result r) {
    return r == WRONG_CONTENT ? "wrong content" : cres_result_string(r);
}

/* One run of a scenario (its data in ctx) with the allocator t. */
typedef cres_result (*alloc_walk_fn)(test_alloc *t, const void *ctx);

/* Fails allocation 0, 1, 2, ... (sticky: and every later one) until a run fails none; every
   run must end in `expected` or out of memory (only when an allocation failed), with nothing
   leaked or freed through another allocator. Returns the undisturbed run's allocations. */
static long alloc_walk_mode(const char *name, alloc_walk_fn run, const void *ctx, cres_result expected, int sticky) {
    const char *later = sticky ? " and later" : "";
    long n;
    for (n = 0; n < MAX_ALLOCATIONS_WALKED; n++) {
        test_alloc t;
        cres_result r;
        memset(&t, 0, sizeof t);
        t.fail_at = n;
        t.sticky = sticky;
        alloc_walk_detail[0] = '\0';
        r = run(&t, ctx);
        if (r != expected && r != CRES_ERR_OUT_OF_MEMORY)
            fail_msg("%s: failing allocation %ld%s: %s%s%s%s, want %s or out of memory", name, n, later, result_name(r),
                     alloc_walk_detail[0] ? " (" : "", alloc_walk_detail, alloc_walk_detail[0] ? ")" : "",
                     cres_result_string(expected));
        if (r == CRES_ERR_OUT_OF_MEMORY && !t.triggered)
            fail_msg("%s: failing allocation %ld: out of memory although no allocation failed", name, n);
        if (t.live != 0)
            fail_msg("%s: failing allocation %ld%s: %ld block(s) leaked (result: %s)", name, n, later, t.live,
                     result_name(r));
        if (t.bad_frees != 0)
            fail_msg("%s: failing allocation %ld: %ld block(s) freed through the wrong allocator", name, n, t.bad_frees);
        if (!t.triggered) {
            if (r != expected)
                fail_msg("%s: undisturbed run (%ld allocations): %s, want %s", name, t.count, result_name(r),
                         cres_result_string(expected));
            return t.count;
        }
    }
    fail_msg("%s: still allocating after %ld allocations", name, MAX_ALLOCATIONS_WALKED);
    return -1;
}

/* The walk, once failing single allocations and once failing every one from the n-th on:
   both must see the same number of allocations. */
static void alloc_walk(const char *name, alloc_walk_fn run, const void *ctx, cres_result expected) {
    long total = alloc_walk_mode(name, run, ctx, expected, 0);
    assert_int_equal(alloc_walk_mode(name, run, ctx, expected, 1), total);
    print_message("    %s: %ld allocations walked\n", name, total);
}

/* A file a scenario reads (written with the system allocator, outside any walk). */
ALLOC_WALK_OPTIONAL static void write_file(const char *path, const char *text) {
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    assert_int_equal(fputs(text, f) >= 0, 1);
    assert_int_equal(fclose(f), 0);
}

/* The allocator really fails: a run failing allocation 0 ends in out of memory, cleanly. */
ALLOC_WALK_OPTIONAL static void alloc_walk_first_fails(alloc_walk_fn run, const void *ctx) {
    test_alloc t;
    memset(&t, 0, sizeof t);
    t.fail_at = 0;
    assert_int_equal(run(&t, ctx), CRES_ERR_OUT_OF_MEMORY);
    assert_true(t.triggered);
    assert_int_equal(t.live, 0);
}

/* ---------------------------------------------------------------------------------------
   The parts of a backend's scenario that the walks of test_alloc_fail_hpc.c, _launch.c,
   _platforms.c and _sched.c share: its environment and config, its create, and the checks
   of what the resolver answers. Each check returns CRES_OK, the library's failure, or
   WRONG_CONTENT (said by mismatch()). */

/* The environment: name/value pairs ending in NULL, behind the getenv hook. */
ALLOC_WALK_OPTIONAL static const char *pairs_getenv(void *user, const char *name) {
    const char *const *kv = (const char *const *)user;
    for (; kv && *kv; kv += 2)
        if (strcmp(kv[0], name) == 0) return kv[1];
    return NULL;
}

/* ... and listed, over the same pairs, behind the env_list hook: the index-th pair as
   "NAME=VALUE", in a slot of its own (no allocation), NULL past the last. */
#define MAX_PAIRS 32

ALLOC_WALK_OPTIONAL static const char *pairs_env_at(void *user, size_t index) {
    static char listed_pairs[MAX_PAIRS][512];
    const char *const *kv = (const char *const *)user;
    size_t i;
    for (i = 0; kv && kv[2 * i]; i++)
        if (i == index) {
            assert_true(index < MAX_PAIRS);
            snprintf(listed_pairs[index], sizeof listed_pairs[index], "%s=%s", kv[2 * i], kv[2 * i + 1]);
            return listed_pairs[index];
        }
    return NULL;
}

/* No network: the backends walked answer without a request, so the transport fails (and
   counts, in *user) any it gets. */
ALLOC_WALK_OPTIONAL static cres_result no_network(void *user, const cres_http_request *req,
                                                  cres_http_response *resp,
                                                  const cres_allocator *alloc, cres_error *err) {
    (void)req;
    (void)resp;
    (void)alloc;
    ++*(int *)user;
    if (err) snprintf(err->message, sizeof err->message, "test: no network here");
    return CRES_ERR_TRANSPORT;
}

/* A log hook that counts the lines in *user: the log runs too, under the walk. */
ALLOC_WALK_OPTIONAL static void count_log(void *user, cres_log_level level, const char *message) {
    (void)level;
    (void)message;
    ++*(int *)user;
}

/* A scenario's config: the test allocator t and the environment env, nothing else. */
ALLOC_WALK_OPTIONAL static void walk_config(cres_config *c, test_alloc *t, const char *const *env) {
    memset(c, 0, sizeof *c);
    test_alloc_use(&c->allocator, t);
    c->getenv.fn = pairs_getenv;
    c->getenv.user = (void *)env;
}

/* ... and offline: every request fails at once, counted in *requests, and is not retried. */
ALLOC_WALK_OPTIONAL static void walk_offline(cres_config *c, int *requests) {
    c->transport.perform = no_network;
    c->transport.user = requests;
    c->max_retries = -1;
}

/* In a scenario's create: options of `type`, zeroed, with the caller's `config`, then
   `fields` (statements that set o's other fields), given to `fn` with the caller's `r`;
   the result goes to the caller's `res`, the error to its `err`. */
#define WALK_CREATE(type, fn, fields)                                                      \
    do {                                                                                   \
        type o;                                                                            \
        memset(&o, 0, sizeof o);                                                           \
        o.config = config;                                                                 \
        fields;                                                                            \
        res = fn(&o, r, &err);                                                             \
    } while (0)

/* WALK_CREATE's fields for the own-task overrides of a scenario `sc` that has them. */
#define WALK_TASK_FIELDS                                                                   \
    o.task_type = sc->task_type;                                                           \
    o.task_id = sc->task_id;                                                               \
    o.rpc_layer = sc->rpc_layer

/* ... and for the jobs of a scheduler's scenario `sc`. */
#define WALK_JOBS_FIELDS                                                                   \
    o.jobs = sc->jobs;                                                                     \
    o.jobs_count = sc->jobs_count

/* A create's result res (error err, resolver r): a failure hands back no resolver, an
   undisturbed run's failure names want_message (NULL: not checked), a resolver is the
   backend want_name. */
ALLOC_WALK_OPTIONAL static cres_result check_create(cres_result res, const cres_error *err,
                                                    cres_resolver *r, const test_alloc *t,
                                                    cres_result expected,
                                                    const char *want_message,
                                                    const char *want_name) {
    res = checked(res, err);
    if (res != CRES_OK && r) return mismatch("create failed but returned a resolver", err->message);
    if (res == expected && res != CRES_OK && !t->triggered && want_message &&
        !strstr(err->message, want_message))
        return mismatch("message", err->message);
    if (res == CRES_OK && strcmp(cres_resolver_name(r), want_name) != 0)
        return mismatch("resolver name", cres_resolver_name(r));
    return res;
}

/* cres_resolve: the spec as JSON is want_spec, as a hostfile want_hostfile (NULL: not
   written); the own task ("worker 5", "- -1" for none) is want_task. */
ALLOC_WALK_OPTIONAL static cres_result check_resolve(cres_resolver *r, const char *want_spec,
                                                     const char *want_hostfile,
                                                     const char *want_task) {
    cres_cluster_spec *spec = NULL;
    cres_error err;
    char json[2048], task[300], hosts[512];
    cres_result res = checked(cres_resolve(r, &spec, &err), &err);
    if (res != CRES_OK && spec) res = mismatch("resolve failed but returned a spec", err.message);
    if (res == CRES_OK && cres_spec_to_json(spec, json, sizeof json, NULL, &err) != CRES_OK)
        res = mismatch("to_json", err.message);
    if (res == CRES_OK && strcmp(json, want_spec) != 0) res = mismatch("spec", json);
    if (res == CRES_OK && want_hostfile) {
        res = checked(cres_spec_to_hostfile(spec, hosts, sizeof hosts, NULL, &err), &err);
        if (res == CRES_OK && strcmp(hosts, want_hostfile) != 0) res = mismatch("hostfile", hosts);
    }
    cres_spec_free(spec);
    snprintf(task, sizeof task, "%s %d", cres_task_type(r) ? cres_task_type(r) : "-",
             cres_task_id(r));
    if (res == CRES_OK && strcmp(task, want_task) != 0) res = mismatch("own task", task);
    return res;
}

/* The launch info got is want, field by field. */
ALLOC_WALK_OPTIONAL static cres_result compare_info(const cres_launch_info *got,
                                                    const cres_launch_info *want) {
    char text[2200];
    if (got->world_size == want->world_size && got->rank == want->rank &&
        got->local_rank == want->local_rank && got->local_world_size == want->local_world_size &&
        got->node_rank == want->node_rank && got->num_nodes == want->num_nodes &&
        got->master_port == want->master_port && strcmp(got->master_host, want->master_host) == 0 &&
        strcmp(got->master_address, want->master_address) == 0)
        return CRES_OK;
    snprintf(text, sizeof text,
             "world %d rank %d local %d/%d node %d/%d master %s port %d address %s",
             got->world_size, got->rank, got->local_rank, got->local_world_size, got->node_rank,
             got->num_nodes, got->master_host, got->master_port, got->master_address);
    return mismatch("launch info", text);
}

/* cres_launch gives want (every field is written: it starts as garbage). */
ALLOC_WALK_OPTIONAL static cres_result check_launch(cres_resolver *r,
                                                    const cres_launch_info *want) {
    cres_launch_info info;
    cres_error err;
    cres_result res;
    memset(&info, 0x5a, sizeof info);
    res = checked(cres_launch(r, &info, &err), &err);
    return res == CRES_OK ? compare_info(&info, want) : res;
}

/* cres_num_accelerators: want_gpus GPUs per task, or none for 0. */
ALLOC_WALK_OPTIONAL static cres_result check_gpus(cres_resolver *r, int want_gpus) {
    cres_accelerators acc;
    cres_error err;
    cres_result res = checked(cres_num_accelerators(r, &acc, &err), &err);
    if (res != CRES_OK) return res;
    if (want_gpus == 0 ? acc.count != 0
                       : acc.count != 1 || strcmp(acc.items[0].type, "GPU") != 0 ||
                             acc.items[0].count != want_gpus)
        return mismatch("accelerators", acc.count ? acc.items[0].type : "none");
    return CRES_OK;
}

/* The own visible devices are want_devices, asked with a length query and then a buffer of
   exactly that size; the accelerators agree (check_gpus). */
ALLOC_WALK_OPTIONAL static cres_result check_devices(cres_resolver *r, const char *want_devices,
                                                     int want_gpus) {
    cres_error err;
    char devices[64];
    size_t len = 0, len2 = 0;
    cres_result res = checked(cres_visible_devices(r, NULL, 0, &len, &err), &err);
    if (res != CRES_OK) return res;
    if (len >= sizeof devices) return mismatch("visible devices length", "too long");
    res = checked(cres_visible_devices(r, devices, len + 1, &len2, &err), &err);
    if (res != CRES_OK) return res;
    if (len2 != len || strcmp(devices, want_devices) != 0)
        return mismatch("visible devices", devices);
    return check_gpus(r, want_gpus);
}

#endif
