/* A transport written outside the library: it answers every request with a saved file, so
   the Kubernetes resolver can run offline on a PodList captured with
   `kubectl get pods -o json > pods.json`. A transport only performs one request; retries,
   paging and size limits stay in the library.

   usage: custom_transport PODS.json [JOB=SELECTOR]     prints the spec */

#define CLUSTER_RESOLVER_IMPLEMENTATION
#include "../cluster_resolver.h"

#include <stdio.h>
#include <string.h>

static cres_result replay_perform(void *user, const cres_http_request *req,
                                  cres_http_response *resp, const cres_allocator *alloc,
                                  cres_error *err) {
    const char *path = (const char *)user;
    FILE *f = fopen(path, "rb");
    long size;
    (void)req;
    if (!f || fseek(f, 0, SEEK_END) != 0 || (size = ftell(f)) < 0 || fseek(f, 0, SEEK_SET) != 0 ||
        (size_t)size > req->max_response_bytes) {
        if (f) fclose(f);
        return cres_error_set(err, CRES_ERR_TRANSPORT, "replay: cannot read %s", path);
    }
    /* The body must come from the allocator handed in, with a NUL after it. */
    resp->body = (char *)alloc->alloc(alloc->user, (size_t)size + 1);
    if (!resp->body) {
        fclose(f);
        return cres_error_set(err, CRES_ERR_OUT_OF_MEMORY, "replay: out of memory");
    }
    resp->body_len = fread(resp->body, 1, (size_t)size, f);
    resp->body[resp->body_len] = '\0';
    resp->status = 200;
    fclose(f);
    return CRES_OK;
}

int main(int argc, char **argv) {
    cres_config config;
    cres_k8s_options options;
    cres_k8s_job_selector job = {"worker", "job-name=tensorflow"};
    char store[256], json[65536];
    cres_resolver *r = NULL;
    cres_cluster_spec *spec = NULL;
    cres_error err;
    if (argc < 2 || argc > 3) {
        fprintf(stderr, "usage: %s PODS.json [JOB=SELECTOR]\n", argv[0]);
        return 2;
    }
    if (argc == 3 && strchr(argv[2], '=') && strlen(argv[2]) < sizeof store) {
        strcpy(store, argv[2]);
        *strchr(store, '=') = '\0';
        job.job = store;
        job.selector = store + strlen(store) + 1;
    }
    memset(&config, 0, sizeof config); /* allocator zero: perform() gets CRES_MALLOC's */
    config.transport.perform = replay_perform;
    config.transport.user = argv[1];
    memset(&options, 0, sizeof options);
    options.config = &config;
    options.server = "http://replay.invalid"; /* never contacted */
    options.jobs = &job;
    options.jobs_count = 1;
    if (cres_k8s_resolver_create(&options, &r, &err) != CRES_OK ||
        cres_resolve(r, &spec, &err) != CRES_OK ||
        cres_spec_to_json(spec, json, sizeof json, NULL, &err) != CRES_OK) {
        fprintf(stderr, "%s\n", err.message);
        cres_resolver_free(r);
        return 1;
    }
    puts(json);
    cres_spec_free(spec);
    cres_resolver_free(r);
    return 0;
}
