/* The implementation in a file of its own, linked with decls_only.c. */
#define CLUSTER_RESOLVER_IMPLEMENTATION
#include "../../cluster_resolver.h"
