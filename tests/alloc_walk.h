/* The allocation-failure tests' allocator: it fails the n-th allocation (and, when sticky,
   every later one), counts the blocks still live, and catches a block freed through another
   allocator (each block starts with a header naming its allocator). Setup code may suspend
   it: allocations are then neither counted nor failed. And the walk that drives it: a
   scenario runs once per allocation, that allocation failing, until a run fails none.
   Include it after <cmocka.h>. */
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

#endif
