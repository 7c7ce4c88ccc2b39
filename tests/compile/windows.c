/* The environment backends from the real process environment (the default getenv, no hook):
   tests/check.sh runs this as a Windows program under Wine, and built natively on Linux, with
   the same variables set, and compares both outputs with the text it expects. Each backend is
   created with zeroed options (tpu: options.tpu = "local") and resolved; one line each:

       <created> <cres_resolver_name>: <task type> <task id> of <spec JSON>; master <master>

   "auto" must pick tfconfig, since TF_CONFIG is set. A backend that fails prints
   "<created>: <result>: <message>" instead; the exit status is then 1. Needs only libc and
   jsmn: no transport (the implementation without curl). */
#define CLUSTER_RESOLVER_IMPLEMENTATION
#include "../../cluster_resolver.h"

#include <stdio.h>
#include <string.h>

static int failures;

static cres_result create(const char *backend, cres_resolver **r, cres_error *err) {
    if (strcmp(backend, "tfconfig") == 0) {
        cres_tfconfig_options o;
        memset(&o, 0, sizeof o);
        return cres_tfconfig_resolver_create(&o, r, err);
    }
    if (strcmp(backend, "slurm") == 0) {
        cres_slurm_options o;
        memset(&o, 0, sizeof o);
        return cres_slurm_resolver_create(&o, r, err);
    }
    if (strcmp(backend, "mpi") == 0) {
        cres_mpi_options o;
        memset(&o, 0, sizeof o);
        return cres_mpi_resolver_create(&o, r, err);
    }
    if (strcmp(backend, "sagemaker") == 0) {
        cres_sagemaker_options o;
        memset(&o, 0, sizeof o);
        return cres_sagemaker_resolver_create(&o, r, err);
    }
    if (strcmp(backend, "tpu") == 0) {
        cres_tpu_options o;
        memset(&o, 0, sizeof o);
        o.tpu = "local";
        return cres_tpu_resolver_create(&o, r, err);
    }
    if (strcmp(backend, "local") == 0) {
        cres_local_options o;
        memset(&o, 0, sizeof o);
        return cres_local_resolver_create(&o, r, err);
    }
    {
        cres_auto_options o;
        memset(&o, 0, sizeof o);
        return cres_auto_resolver_create(&o, r, err);
    }
}

static void show(const char *backend) {
    cres_resolver *r = NULL;
    cres_cluster_spec *spec = NULL;
    cres_error err;
    char json[4096], master[512];
    size_t json_len = 0, master_len = 0;
    int ok = create(backend, &r, &err) == CRES_OK && cres_resolve(r, &spec, &err) == CRES_OK &&
             cres_spec_to_json(spec, json, sizeof json, &json_len, &err) == CRES_OK &&
             cres_master(r, master, sizeof master, &master_len, &err) == CRES_OK;
    if (ok && (json_len != strlen(json) || master_len != strlen(master))) {
        printf("%s: lengths %lu and %lu reported for %lu and %lu bytes\n", backend,
               (unsigned long)json_len, (unsigned long)master_len, (unsigned long)strlen(json),
               (unsigned long)strlen(master));
        failures++;
    } else if (ok) {
        printf("%s %s: %s %d of %s; master %s\n", backend, cres_resolver_name(r),
               cres_task_type(r) ? cres_task_type(r) : "-", cres_task_id(r), json, master);
    } else {
        printf("%s: %s: %s\n", backend, cres_result_string(err.result), err.message);
        failures++;
    }
    cres_spec_free(spec);
    cres_resolver_free(r);
}

int main(void) {
    static const char *const backends[] = {"tfconfig", "slurm", "mpi", "sagemaker",
                                           "tpu",      "local", "auto"};
    size_t i;
    for (i = 0; i < sizeof backends / sizeof *backends; i++) show(backends[i]);
    return failures ? 1 : 0;
}
