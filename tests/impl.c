#define CLUSTER_RESOLVER_IMPLEMENTATION
#include "../cluster_resolver.h"
