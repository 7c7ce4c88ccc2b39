/* A program that uses jsmn itself and includes <jsmn.h> before the implementation, its JSMN_*
   defines given on the command line (tests/check.sh builds it the manual's right way and
   checks each wrong way stops at the implementation's #error), or with JSMN_AFTER after it.
   Either way the program and the library share one jsmn: strict, with parent links. */
#include <stdio.h>
#include <string.h>
#ifndef JSMN_AFTER
#include <jsmn.h>
#endif
#define CLUSTER_RESOLVER_IMPLEMENTATION
#include "../../cluster_resolver.h"
#ifdef JSMN_AFTER
#include <jsmn.h>
#endif

static int parse(const char *json, jsmntok_t *t, unsigned n) {
    jsmn_parser p;
    jsmn_init(&p);
    return jsmn_parse(&p, json, strlen(json), t, n);
}

int main(void) {
    const char *cluster = "{\"worker\": [\"w0:2222\", \"w1:2222\"]}";
    jsmntok_t t[8];
    cres_cluster_spec *spec;
    cres_error err;
    int n = parse(cluster, t, 8);
    /* tokens: the object, "worker", the list, its two strings; a string's parent is the list */
    if (n != 5 || t[4].parent != 2) {
        printf("jsmn_first: jsmn gave %d tokens, the last one's parent %d\n", n, t[4].parent);
        return 1;
    }
    n = parse("{worker: 1}", t, 8);
    if (n != JSMN_ERROR_INVAL) {
        printf("jsmn_first: jsmn is not strict: a bare key gave %d, not %d\n", n, JSMN_ERROR_INVAL);
        return 1;
    }
    if (cres_spec_from_json(cluster, strlen(cluster), NULL, &spec, &err) != CRES_OK) {
        printf("jsmn_first: %s\n", err.message);
        return 1;
    }
    n = (int)cres_spec_tasks_count(spec, "worker");
    cres_spec_free(spec);
    return n == 2 ? 0 : 1;
}
