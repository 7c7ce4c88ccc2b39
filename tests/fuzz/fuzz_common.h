/* What the libFuzzer targets of tests/fuzz/ share, written once instead of in each target.

   Each target is one translation unit with the implementation, because the targets call its
   private cres__ functions; this header includes it. A target uses some of the helpers, so
   they are marked unused: -Wunused-function stays quiet about the others. */
#ifndef FUZZ_COMMON_H
#define FUZZ_COMMON_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CLUSTER_RESOLVER_IMPLEMENTATION
#include "../../cluster_resolver.h"

#if defined(__GNUC__) || defined(__clang__)
#define FUZZ_HELPER static __attribute__((unused))
#define FUZZ_NORETURN __attribute__((noreturn))
#else
#define FUZZ_HELPER static
#define FUZZ_NORETURN
#endif

/* ---------------------------------------------------------------------------------------
   Checks: a failed one aborts, so that libFuzzer reports the input and keeps it */

FUZZ_HELPER FUZZ_NORETURN void fuzz_check_failed(const char *file, int line, const char *cond) {
    const char *base = strrchr(file, '/'); /* the target's name, as its messages always had */
    fprintf(stderr, "%s:%d: check failed: %s\n", base ? base + 1 : file, line, cond);
    abort();
}

#define CHECK(cond)                                                                          \
    do {                                                                                     \
        if (!(cond)) fuzz_check_failed(__FILE__, __LINE__, #cond);                           \
    } while (0)

#endif
