/* Helpers shared by the cmocka unit tests. Every test keeps its error in a local
   `cres_error err`, which EXPECT prints when a call returns the wrong result. */
#ifndef CRES_TEST_UTIL_H
#define CRES_TEST_UTIL_H

#include "../cluster_resolver.h"

#include <limits.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <cmocka.h>

#if defined(__GNUC__) || defined(__clang__)
#  define TEST_HELPER static __attribute__((unused))
#else
#  define TEST_HELPER static
#endif

#define EXPECT(call, want)                                                                 \
    do {                                                                                   \
        cres_result got_ = (call);                                                         \
        if (got_ != (want))                                                                \
            fail_msg("%s\n  returned %s, want %s\n  message: %s", #call,                   \
                     cres_result_string(got_), cres_result_string(want), err.message);     \
    } while (0)
#define OK(call) EXPECT(call, CRES_OK)

#define HAS(text, sub)                                                                     \
    do {                                                                                   \
        const char *t_ = (text), *s_ = (sub);                                              \
        if (!strstr(t_, s_)) fail_msg("\"%s\" does not contain \"%s\"", t_, s_);           \
    } while (0)

/* JSON written with single quotes for readability, turned into real JSON. */
TEST_HELPER const char *dq(const char *s) {
    static char ring[4][4096];
    static int next;
    char *out = ring[next++ % 4];
    size_t i;
    for (i = 0; s[i] && i + 1 < sizeof ring[0]; i++) out[i] = s[i] == '\'' ? '"' : s[i];
    out[i] = '\0';
    return out;
}

TEST_HELPER cres_cluster_spec *parse(const char *sq_json) {
    cres_cluster_spec *s = NULL;
    cres_error err;
    const char *json = dq(sq_json);
    OK(cres_spec_from_json(json, strlen(json), NULL, &s, &err));
    assert_non_null(s);
    return s;
}

TEST_HELPER const char *json_of(const cres_cluster_spec *s) {
    static char buf[2][4096];
    static int next;
    char *out = buf[next++ % 2];
    cres_error err;
    OK(cres_spec_to_json(s, out, sizeof buf[0], NULL, &err));
    return out;
}

#endif
