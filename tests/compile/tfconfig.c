/* The portability checks' program (tests/check.sh: gcc -m32, mingw-w64): resolves $TF_CONFIG
   through cres_tfconfig_resolver_create and prints the task, the spec, the master and the
   TF_CONFIG written back. Needs only libc and jsmn: no transport. */
#define CLUSTER_RESOLVER_IMPLEMENTATION
#include "../../cluster_resolver.h"
#include <stdio.h>

int main(void) {
    cres_resolver *r = NULL;
    cres_cluster_spec *spec = NULL;
    cres_error err;
    char json[1024], master[256], tf[2048];
    size_t len = 0;
    int ok = cres_tfconfig_resolver_create(NULL, &r, &err) == CRES_OK &&
             cres_resolve(r, &spec, &err) == CRES_OK &&
             cres_spec_to_json(spec, json, sizeof json, &len, &err) == CRES_OK &&
             cres_master_of(r, NULL, CRES_OWN_TASK, "grpc", master, sizeof master, NULL, &err) ==
                 CRES_OK &&
             cres_spec_to_tfconfig(spec, cres_task_type(r), cres_task_id(r), NULL, NULL, tf,
                                   sizeof tf, NULL, &err) == CRES_OK;
    if (ok) /* without TF_CONFIG there is no task: "-" */
        printf("%s %d of %s (%lu bytes); master %s\n%s\n",
               cres_task_type(r) ? cres_task_type(r) : "-", cres_task_id(r), json,
               (unsigned long)len, master, tf);
    else
        fprintf(stderr, "tfconfig: %s\n", err.message);
    cres_spec_free(spec);
    cres_resolver_free(r);
    return ok ? 0 : 1;
}
