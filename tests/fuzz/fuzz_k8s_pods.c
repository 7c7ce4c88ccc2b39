/* libFuzzer target: arbitrary bytes as the pod-list pages a Kubernetes API server answers.

   Input: byte 0 chooses the HTTP status of each of the first three answers, one base-6 digit
   per answer among 200, 200, 200, 410, 500, 403 (so error paths are fuzzed too); byte 1
   chooses options (bits 0-1: address kind pod IP / host IP / DNS, bit 2: all namespaces,
   bit 3: two jobs, "worker" from two selectors and "ps" from one, bit 4: follow_jobset with
   the own hostname "js-workers-1-1", a JobSet pod's as tests/k8s/fixtures/jobset.json and
   the unit tests name them, so the second answer can be the whole JobSet's list). Pods with
   JobSet labels come from that fixture (tests/fuzz/fixture_seeds.py), the unit tests and
   the hand seeds corpus/k8s_pods/jobset_*. The rest is split at
   0xFF bytes into up to three bodies (the third keeps any later 0xFF). Requests past the
   given answers get an empty list. No retries (config.max_retries = -1), a sleep hook that
   returns at once, wait_ms 0, no environment.

   A failed resolve must be one of the errors a bad answer can cause, with a message, and
   http_status set exactly for CRES_ERR_HTTP_STATUS. A successful one must hold every
   configured job, each dense (tasks 0..n-1), and round-trip through cres_spec_to_json /
   cres_spec_from_json; resolving again on the same answers must give the same spec, and the
   own task (hostname "worker-1", or the JobSet pod's), when found, must be in it.

   Found by this target and fixed (regression seed corpus/k8s_pods/regression_own_pod_in_two_jobs,
   unit test own_task_in_two_jobs_is_stable_across_resolves): a pod selected by two jobs set
   the own task once per job, so resolving the same answers again freed the string that
   cres_task_type() had returned.

   clang -g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined \
         -I. tests/fuzz/fuzz_k8s_pods.c -o build/fuzz_k8s_pods */

#include "fuzz_common.h"

#define MAX_PAGES 3

typedef struct fake_api {
    const uint8_t *body[MAX_PAGES];
    size_t len[MAX_PAGES];
    int status[MAX_PAGES];
    size_t pages, next;
} fake_api;

static const char empty_list[] = "{\"kind\": \"PodList\", \"apiVersion\": \"v1\", \"metadata\": {}, \"items\": []}";

static cres_result fake_perform(void *user, const cres_http_request *req, cres_http_response *resp,
                                const cres_allocator *alloc, cres_error *err) {
    fake_api *api = (fake_api *)user;
    const void *body = empty_list;
    size_t len = sizeof empty_list - 1;
    int status = 200;
    (void)req;
    (void)err;
    if (api->next < api->pages) {
        body = api->body[api->next];
        len = api->len[api->next];
        status = api->status[api->next];
    }
    api->next++;
    return fuzz_answer(resp, alloc, status, body, len);
}

static void split_pages(fake_api *api, const uint8_t *data, size_t size) {
    static const int statuses[6] = {200, 200, 200, 410, 500, 403};
    unsigned digits = data[0];
    size_t i;
    memset(api, 0, sizeof *api);
    for (i = 0; i < MAX_PAGES; i++, digits /= 6) api->status[i] = statuses[digits % 6];
    api->pages = fuzz_split(data, size, 2, api->body, api->len, MAX_PAGES);
}

static void check_failure(cres_result r, const cres_error *err) {
    static const cres_result allowed[] = {CRES_ERR_UNEXPECTED_RESPONSE, CRES_ERR_NOT_READY,
                                          CRES_ERR_HTTP_STATUS, CRES_ERR_LIMIT,
                                          CRES_ERR_CONFLICT, /* a job mixing JobSets */
                                          CRES_OK};
    static const int statuses[] = {410, 500, 403, 0};
    fuzz_check_answer_failure(r, err, allowed, statuses);
}

static void check_spec(const cres_cluster_spec *spec, const cres_k8s_job_selector *jobs, size_t jobs_count) {
    size_t i, t, n = 0;
    CHECK(spec != NULL);
    for (i = 0; i < jobs_count; i++) CHECK(cres_spec_job(spec, jobs[i].job) != NULL);
    for (i = 0; i < cres_spec_jobs_count(spec); i++) {
        const cres_job *j = cres_spec_job_at(spec, i);
        for (t = 0; t < j->tasks_count; t++) {
            CHECK(j->tasks[t].index == (int)t);
            CHECK(j->tasks[t].address != NULL && j->tasks[t].address[0] != '\0');
        }
        n++;
    }
    CHECK(n <= jobs_count); /* no job that was not asked for */
    fuzz_check_round_trip(spec);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    static const cres_k8s_job_selector two_jobs[] = {
        {"worker", "job-name=worker"}, {"ps", "job-name=ps"}, {"worker", "app=tf,role=worker"}};
    static const cres_k8s_job_selector one_job[] = {{"worker", "job-name=tensorflow"}};
    fake_api api;
    cres_config config;
    cres_k8s_options o;
    cres_resolver *r = NULL;
    cres_cluster_spec *spec = NULL;
    cres_error err;
    cres_result res;
    if (size < 2) return 0;
    split_pages(&api, data, size);

    fuzz_canned_config(&config, fake_perform, &api);
    memset(&o, 0, sizeof o);
    o.config = &config;
    o.server = "https://k8s.test:6443";
    o.token = "fuzz-token";
    o.address = (cres_k8s_address)((data[1] & 3) % 3);
    o.all_namespaces = (data[1] & 4) != 0;
    o.jobs = (data[1] & 8) ? two_jobs : one_job;
    o.jobs_count = (data[1] & 8) ? 3 : 1;
    o.follow_jobset = (data[1] & 16) != 0;
    o.hostname = o.follow_jobset ? "js-workers-1-1" : "worker-1";
    CHECK(cres_k8s_resolver_create(&o, &r, &err) == CRES_OK);

    res = cres_resolve(r, &spec, &err);
    if (res != CRES_OK) {
        CHECK(spec == NULL);
        check_failure(res, &err);
    } else {
        check_spec(spec, o.jobs, o.jobs_count);
        api.next = 0;
        fuzz_check_resolves_again(r, spec);
        api.next = 0; /* master() resolves again: the same answers */
        fuzz_check_own_task(r, spec);
    }
    cres_spec_free(spec);
    cres_resolver_free(r);
    return 0;
}
