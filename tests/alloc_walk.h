/* The allocation-failure tests' allocator: it fails the n-th allocation (and, when sticky,
   every later one), counts the blocks still live, and catches a block freed through another
   allocator (each block starts with a header naming its allocator). Setup code may suspend
   it: allocations are then neither counted nor failed. */
#ifndef ALLOC_WALK_H
#define ALLOC_WALK_H

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

static void *test_alloc_fn(size_t size, void *user) {
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

static void test_free_fn(void *ptr, void *user) {
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

#endif
