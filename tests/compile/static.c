/* CLUSTER_RESOLVER_STATIC: every function static, unused ones must not warn. */
#define CLUSTER_RESOLVER_STATIC
#define CLUSTER_RESOLVER_IMPLEMENTATION
#include "../../cluster_resolver.h"

int main(void) { return cres_version_string()[0] == '0' ? 0 : 1; }
