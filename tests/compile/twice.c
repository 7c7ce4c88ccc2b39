/* Declarations first (as another header would pull them in), then the implementation, then
   the header a third time: each inclusion must be harmless. */
#include "../../cluster_resolver.h"
#define CLUSTER_RESOLVER_IMPLEMENTATION
#include "../../cluster_resolver.h"
#include "../../cluster_resolver.h"

int main(void) {
    cres_resolver *r = 0;
    cres_error err;
    int ok = cres_local_resolver_create(0, &r, &err) == CRES_OK && cres_task_id(r) == 0;
    cres_resolver_free(r);
    return ok ? 0 : 1;
}
