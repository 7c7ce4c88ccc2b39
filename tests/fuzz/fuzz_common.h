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

/* An error as every call leaves it: its own result, a NUL-terminated message, and a message
   when it failed. */
FUZZ_HELPER void fuzz_check_error(cres_result r, const cres_error *err) {
    CHECK(err->result == r);
    CHECK(memchr(err->message, '\0', sizeof err->message) != NULL);
    if (r != CRES_OK) CHECK(err->message[0] != '\0');
}

/* ---------------------------------------------------------------------------------------
   The input */

/* data[skip..size) as a C string (a NUL inside ends it early, as it would a variable); NULL
   when out of memory. */
FUZZ_HELPER char *fuzz_text(const uint8_t *data, size_t size, size_t skip) {
    char *text = (char *)malloc(size - skip + 1);
    if (!text) return NULL;
    memcpy(text, data + skip, size - skip);
    text[size - skip] = '\0';
    return text;
}

/* s[0..n) as a C string (strndup is not C99). */
FUZZ_HELPER char *fuzz_dup_n(const char *s, size_t n) {
    char *p = (char *)malloc(n + 1);
    CHECK(p != NULL);
    memcpy(p, s, n);
    p[n] = '\0';
    return p;
}

/* A decimal integer as the library reads one (-?[0-9]+ that fits); *ok is 0 for anything
   else, NULL (an unset variable) too. */
FUZZ_HELPER long long fuzz_decimal(const char *s, int *ok) {
    long long v = 0;
    *ok = s && cres__parse_decimal(s, strlen(s), &v) == 1;
    return v;
}

FUZZ_HELPER int fuzz_cmp_str_ptr(const void *x, const void *y) {
    return strcmp(*(char *const *)x, *(char *const *)y);
}

/* ---------------------------------------------------------------------------------------
   Files, for the backends that read one (at create) */

/* Writes n bytes to path, replacing what it held. */
FUZZ_HELPER void fuzz_write_file(const char *path, const void *bytes, size_t n) {
    FILE *f = fopen(path, "wb");
    CHECK(f != NULL);
    CHECK(fwrite(bytes, 1, n, f) == n);
    CHECK(fclose(f) == 0);
}

/* ---------------------------------------------------------------------------------------
   Specs */

FUZZ_HELPER size_t fuzz_spec_tasks(const cres_cluster_spec *s) {
    size_t i, n = 0;
    for (i = 0; i < cres_spec_jobs_count(s); i++) n += cres_spec_job_at(s, i)->tasks_count;
    return n;
}

#endif
