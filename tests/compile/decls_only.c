/* A file that includes only the declarations: it must not need jsmn or libc headers. */
#include "../../cluster_resolver.h"

int main(void) {
    cres_cluster_spec *spec = 0;
    cres_error err;
    int ok = cres_spec_create(0, &spec, &err) == CRES_OK &&
             cres_spec_add_task(spec, "worker", 0, "a:1", &err) == CRES_OK &&
             cres_spec_tasks_count(spec, "worker") == 1;
    cres_spec_free(spec);
    return ok && cres_result_string(CRES_ERR_LIMIT)[0] ? 0 : 1;
}
