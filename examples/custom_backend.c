/* A resolver written outside the library: members come from a plain file with one
   "host:port" per line, and this process's index from $HOSTS_RANK.

   usage: custom_backend FILE        prints the spec, the own task and its master */

#define CLUSTER_RESOLVER_IMPLEMENTATION
#include "../cluster_resolver.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct hosts_resolver {
    cres_resolver base;   /* first member: the library sees a cres_resolver */
    char path[512];
} hosts_resolver;

static cres_result hosts_resolve(cres_resolver *self, cres_cluster_spec **out, cres_error *err) {
    hosts_resolver *h = (hosts_resolver *)self;
    const char *rank = cres_resolver_getenv(self, "HOSTS_RANK");
    char line[1024];
    int index = 0;
    cres_result r;
    FILE *f = fopen(h->path, "r");
    if (!f) return cres_error_set(err, CRES_ERR_ENVIRONMENT, "hostsfile: cannot open %s", h->path);
    r = cres_spec_create(cres_resolver_allocator(self), out, err);
    while (r == CRES_OK && fgets(line, sizeof line, f)) {
        line[strcspn(line, "\r\n")] = '\0';
        if (line[0] == '\0' || line[0] == '#') continue;
        r = cres_spec_add_task(*out, "worker", index++, line, err);
    }
    fclose(f);
    if (r == CRES_OK && rank) r = cres_set_detected_task(self, "worker", atoi(rank), err);
    return r; /* on failure cres_resolve() frees the partial spec */
}

static const cres_resolver_vtable hosts_vtable = {"hostsfile", hosts_resolve, NULL, NULL,
                                                  NULL,        NULL,          NULL};

static cres_result hosts_resolver_create(const char *path, cres_resolver **out, cres_error *err) {
    cres_result r = cres_resolver_new(sizeof(hosts_resolver), &hosts_vtable, NULL, out, err);
    if (r == CRES_OK)
        snprintf(((hosts_resolver *)*out)->path, sizeof((hosts_resolver *)*out)->path, "%s", path);
    return r;
}

int main(int argc, char **argv) {
    cres_resolver *r = NULL;
    cres_cluster_spec *spec;
    cres_error err;
    char json[4096], master[256];
    if (argc != 2) {
        fprintf(stderr, "usage: %s FILE\n", argv[0]);
        return 2;
    }
    if (hosts_resolver_create(argv[1], &r, &err) != CRES_OK ||
        cres_set_rpc_layer(r, "grpc", &err) != CRES_OK) {
        fprintf(stderr, "%s\n", err.message);
        cres_resolver_free(r); /* NULL when the create failed */
        return 1;
    }
    if (cres_resolve(r, &spec, &err) != CRES_OK ||
        cres_spec_to_json(spec, json, sizeof json, NULL, &err) != CRES_OK ||
        cres_master(r, master, sizeof master, NULL, &err) != CRES_OK) {
        fprintf(stderr, "%s\n", err.message);
        cres_resolver_free(r);
        return 1;
    }
    printf("%s\n%s %d\n%s\n", json, cres_task_type(r) ? cres_task_type(r) : "-", cres_task_id(r),
           master);
    cres_spec_free(spec);
    cres_resolver_free(r);
    return 0;
}
