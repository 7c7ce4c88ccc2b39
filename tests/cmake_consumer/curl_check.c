/* Built against cluster_resolver::curl, which must define CLUSTER_RESOLVER_USE_CURL and link
   libcurl: the bundled transport asks a closed local port for a pod list, and libcurl's own
   "could not connect" must come back (without the transport: CRES_ERR_NO_TRANSPORT). */
#ifndef CLUSTER_RESOLVER_USE_CURL
#error "cluster_resolver::curl did not define CLUSTER_RESOLVER_USE_CURL"
#endif
#define CLUSTER_RESOLVER_IMPLEMENTATION
#include "cluster_resolver.h"
#include <curl/curl.h>
#include <stdio.h>
#include <string.h>

int main(void) {
    cres_config config;
    cres_k8s_options options;
    cres_resolver *r = NULL;
    cres_cluster_spec *spec = NULL;
    cres_error err;
    cres_result rc;
    curl_global_init(CURL_GLOBAL_DEFAULT);
    memset(&config, 0, sizeof config);
    config.transport = cres_curl_transport();
    config.max_retries = -1;
    config.timeout_ms = 2000;
    memset(&options, 0, sizeof options);
    options.config = &config;
    options.server = "http://127.0.0.1:1"; /* nothing listens on port 1 */
    options.namespace_name = "default";
    options.hostname = "worker-0";
    rc = cres_k8s_resolver_create(&options, &r, &err);
    if (rc == CRES_OK) rc = cres_resolve(r, &spec, &err);
    cres_spec_free(spec);
    cres_resolver_free(r);
    curl_global_cleanup();
    if (rc != CRES_ERR_TRANSPORT) {
        fprintf(stderr, "curl_check: expected %s, got %s: %s\n", cres_result_string(CRES_ERR_TRANSPORT),
                cres_result_string(rc), rc == CRES_OK ? "" : err.message);
        return 1;
    }
    printf("curl transport: %s\n", err.message);
    return 0;
}
