/* libFuzzer target: arbitrary bytes as the Job and the JobSet a Kubernetes API server answers
   to a resolver that names its members from the own Job (options.members =
   CRES_K8S_MEMBERS_JOB), and the pod list it falls back to.

   Input: byte 0 chooses the HTTP statuses: bits 0-2 the Job GET's, bits 3-5 the JobSet GET's,
   each among 200 (0-4), 403, 404, 500; bits 6-7 the pod list's among 200, 200, 200, 403.
   Byte 1 chooses options: bits 0-2 and 7 (the high bit) the own pod (HOSTNAME and
   JOB_COMPLETION_INDEX) of own_pods[] below: a plain Indexed Job's pod "trainer-3", JobSet
   js's and JobSet other's pods (as tests/k8s/make_pods.py and the unit tests name them),
   "solo-1", a two-digit index, a Job index near INT_MAX, and pods the Job GET must not be
   made for or must refuse (no JOB_COMPLETION_INDEX, "03", a hostname of another index, Job
   names of capitals, of 63 and 64 characters); bit 3 follow_jobset; bits 4-5 the selector:
   "job-name=<own Job>", "jobset.sigs.k8s.io/jobset-name=<the pod's JobSet>",
   "batch.kubernetes.io/job-name==<own Job>", or "app=tf" (not compared); bit 6 port 2222
   (else the default 8470). The rest is split at the first 0xFF byte into the Job's body and
   the JobSet's (which keeps any later 0xFF). The fake server answers by URL: the own
   Job's GET with the Job body, a JobSet's GET with the JobSet body, every pod list with one
   fixed page of two Running pods of Indexed Job trainer (so the fallback runs too). No
   retries (config.max_retries = -1), a sleep hook that returns at once, wait_ms 0,
   allocations counted. Seeds: corpus/k8s_job/ (hand-written edge cases) and the Jobs and
   JobSets of make_pods.make_job, make_jobset_jobs and make_jobset (tests/fuzz/fixture_seeds.py).

   Requests: GETs without a body; at most one of the own Job ("/apis/batch/v1/namespaces/
   default/jobs/<own Job>", first), at most one of a JobSet after it (a DNS label: the
   selector's JobSet when the selector names one), and none of the Job without
   JOB_COMPLETION_INDEX. A failed resolve must be one of the errors a bad answer can cause,
   with a message, and http_status set exactly for CRES_ERR_HTTP_STATUS. A successful one
   logs exactly one of "members named from" and "listing pods, since" (INFO). When named:
   no pod was listed, job "worker" alone, as many tasks as the log says (1 to
   CRES_MAX_K8S_PODS), each "<prefix>-<i>.<sub>.default.svc.cluster.local:<port>" with the
   logged subdomain, i counting 0.. within each prefix (a Job: the own Job's name; a JobSet:
   "<jobset>-<rjob>-<j>", j counting 0.. within each replicated job), no address twice, from
   a JobSet only when following JobSets or its selector names it, and the own task is
   "worker" below the task count, at the own hostname's address. Listed: the job dense with
   non-empty addresses. Either way the spec round-trips through cres_spec_to_json /
   cres_spec_from_json, resolving again gives the same spec and the same log line, the own
   task, when found, is a task of it whose address master() gives, and every allocation is
   freed.

   Found while writing this target and fixed (regression seeds corpus/k8s_job/regression_*,
   unit test job_mode_errors_name_the_object): a plain Job's completions had no limit (2^31
   tasks were built), the own task's offset in a JobSet was computed in int before the pod
   limit was checked (signed overflow), and a JobSet naming one replicated job twice gave
   every address twice.

   clang -g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined \
         tests/fuzz/fuzz_k8s_job.c -o build/fuzz_k8s_job */

#include "fuzz_common.h"

#define SERVER "https://k8s.test:6443"
#define JOBS SERVER "/apis/batch/v1/namespaces/default/jobs/"
#define JOBSETS SERVER "/apis/jobset.x-k8s.io/v1alpha2/namespaces/default/jobsets/"
#define PODS SERVER "/api/v1/namespaces/default/pods?labelSelector="
#define DOMAIN ".default.svc.cluster.local:"
#define NAMED "kubernetes: job \"worker\": "
#define LISTING NAMED "listing pods, since "

typedef struct own_pod {
    const char *hostname, *index; /* $HOSTNAME, $JOB_COMPLETION_INDEX (NULL: unset) */
    const char *job, *jobset;     /* the Job the hostname names, the JobSet a selector names */
} own_pod;

/* Entries 10 and 11: Jobs of 63 characters (a DNS label, with no room left for "-<index>")
   and of 64 (too long for one). */
static const own_pod own_pods[16] = {
    {"trainer-3", "3", "trainer", "js"},
    {"js-workers-1-1", "1", "js-workers-1", "js"},
    {"js-driver-0-0", "0", "js-driver-0", "js"},
    {"solo-1", "1", "solo", "js"},
    {"other-slice-1-0", "0", "other-slice-1", "other"},
    {"js-workers-1-10", "10", "js-workers-1", "js"},
    {"big-w-2147483646-1", "1", "big-w-2147483646", "big"},
    {"trainer-3", NULL, "trainer", "js"},
    {"Trainer-3", "3", "Trainer", "js"},
    {"trainer-03", "03", "trainer", "js"},
    {"jaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaab-0", "0",
     "jaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaab", "js"},
    {"jaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaab-0", "0",
     "jaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaab", "js"},
    {"trainer-3", "4", "trainer", "js"},
    {"js-driver-1-1", "1", "js-driver-1", "js"},
    {"other-slice-0-0", "0", "other-slice-0", "other"},
    {"js-workers-0-1", "1", "js-workers-0", "js"},
};

/* Two Running pods of Indexed Job trainer (indexes 0 and 3), shaped as make_pods() makes
   them, trimmed to what a reader could look at. */
#define TRAINER_POD(i, ip)                                                                   \
    "{\"metadata\": {\"name\": \"trainer-" #i "-x7k2p\", \"generateName\": \"trainer-" #i "-\", "     \
    "\"namespace\": \"default\", \"labels\": {\"batch.kubernetes.io/job-completion-index\": \"" #i "\", " \
    "\"batch.kubernetes.io/job-name\": \"trainer\", \"job-name\": \"trainer\"}, \"annotations\": "      \
    "{\"batch.kubernetes.io/job-completion-index\": \"" #i "\"}, \"ownerReferences\": [{\"apiVersion\": " \
    "\"batch/v1\", \"kind\": \"Job\", \"name\": \"trainer\", \"controller\": true}]}, "                 \
    "\"spec\": {\"containers\": [{\"name\": \"tensorflow\"}], \"hostname\": \"trainer-" #i "\", "      \
    "\"subdomain\": \"trainer\"}, \"status\": {\"phase\": \"Running\", \"conditions\": [{\"type\": "      \
    "\"Ready\", \"status\": \"True\"}], \"hostIP\": \"10.128.0.2\", \"podIP\": \"" ip "\", "            \
    "\"podIPs\": [{\"ip\": \"" ip "\"}]}}"
static const char pod_list[] =
    "{\"kind\": \"PodList\", \"apiVersion\": \"v1\", \"metadata\": {\"resourceVersion\": \"48077739\"}, "
    "\"items\": [" TRAINER_POD(0, "10.4.0.10") ", " TRAINER_POD(3, "10.4.0.13") "]}";

enum { JOB, JOBSET, LIST };

typedef struct fake_api {
    const uint8_t *body[2]; /* the Job's, the JobSet's */
    size_t len[2];
    int status[3];          /* the Job's, the JobSet's, the pod list's */
    const own_pod *own;
    const char *want_jobset; /* the selector's JobSet; NULL = any */
    int served[3];           /* requests of each kind in this resolve */
} fake_api;

/* What a resolve logged: its lines saying where the members came from. */
typedef struct run_log {
    int named, listing;
    size_t count;     /* the named line's member count */
    int from_jobset;  /* named from a JobSet (else the Job) */
    char from[80];    /* the Job's or JobSet's name */
    char sub[80];     /* the subdomain */
} run_log;

/* A DNS label as RFC 1123 has it: 1 to 63 of [a-z0-9-], a letter or digit at both ends. */
static int dns_label(const char *s, size_t n) {
    size_t i;
    if (n < 1 || n > 63 || s[0] == '-' || s[n - 1] == '-') return 0;
    for (i = 0; i < n; i++)
        if (!((s[i] >= 'a' && s[i] <= 'z') || (s[i] >= '0' && s[i] <= '9') || s[i] == '-')) return 0;
    return 1;
}

static cres_result fake_perform(void *user, const cres_http_request *req, cres_http_response *resp,
                                const cres_allocator *alloc, cres_error *err) {
    fake_api *api = (fake_api *)user;
    const char *u = req->url;
    (void)err;
    CHECK(strcmp(req->method, "GET") == 0);
    CHECK(req->body == NULL);
    if (strncmp(u, JOBS, strlen(JOBS)) == 0) {
        CHECK(api->own->index != NULL);
        CHECK(strcmp(u + strlen(JOBS), api->own->job) == 0);
        CHECK(api->served[JOB] == 0 && api->served[JOBSET] == 0 && api->served[LIST] == 0);
        api->served[JOB]++;
        return fuzz_answer(resp, alloc, api->status[JOB], api->body[JOB], api->len[JOB]);
    }
    if (strncmp(u, JOBSETS, strlen(JOBSETS)) == 0) {
        u += strlen(JOBSETS);
        CHECK(dns_label(u, strlen(u)));
        CHECK(!api->want_jobset || strcmp(u, api->want_jobset) == 0);
        CHECK(api->served[JOB] == 1 && api->served[JOBSET] == 0 && api->served[LIST] == 0);
        api->served[JOBSET]++;
        return fuzz_answer(resp, alloc, api->status[JOBSET], api->body[JOBSET], api->len[JOBSET]);
    }
    CHECK(strncmp(u, PODS, strlen(PODS)) == 0);
    CHECK(api->served[LIST] < 4); /* the selector's list, and the JobSet's when followed */
    api->served[LIST]++;
    return fuzz_answer(resp, alloc, api->status[LIST], pod_list, sizeof pod_list - 1);
}

/* s up to the next '"' into out (cap bytes); NULL when there is none or it is too long. */
static const char *quoted(const char *s, char *out, size_t cap) {
    const char *end = strchr(s, '"');
    if (!end || (size_t)(end - s) >= cap) return NULL;
    memcpy(out, s, (size_t)(end - s));
    out[end - s] = '\0';
    return end + 1;
}

/* NAMED "<n> members named from Job|JobSet \"<name>\" (subdomain \"<sub>\")" */
static void read_named_line(run_log *log, const char *m) {
    char *end;
    log->count = (size_t)strtoul(m, &end, 10);
    CHECK(end != m && strncmp(end, " members named from ", 20) == 0);
    m = end + 20;
    log->from_jobset = strncmp(m, "JobSet \"", 8) == 0;
    CHECK(log->from_jobset || strncmp(m, "Job \"", 5) == 0);
    m = quoted(m + (log->from_jobset ? 8 : 5), log->from, sizeof log->from);
    CHECK(m != NULL && strncmp(m, " (subdomain \"", 13) == 0);
    m = quoted(m + 13, log->sub, sizeof log->sub);
    CHECK(m != NULL && strcmp(m, ")") == 0);
    log->named++;
}

static void log_line(void *user, cres_log_level level, const char *message) {
    run_log *log = (run_log *)user;
    fuzz_check_log(NULL, level, message);
    if (level != CRES_LOG_INFO || strncmp(message, NAMED, strlen(NAMED)) != 0) return;
    if (strncmp(message, LISTING, strlen(LISTING)) == 0) {
        CHECK(message[strlen(LISTING)] != '\0'); /* says why */
        log->listing++;
    } else if (strstr(message, " members named from ")) {
        read_named_line(log, message + strlen(NAMED));
    }
}

/* The own pod's environment: JOB_COMPLETION_INDEX alone. */
static const char *own_env(void *user, const char *name) {
    const own_pod *own = (const own_pod *)user;
    return strcmp(name, "JOB_COMPLETION_INDEX") == 0 ? own->index : NULL;
}

static void check_failure(cres_result r, const cres_error *err) {
    static const cres_result allowed[] = {CRES_ERR_UNEXPECTED_RESPONSE, CRES_ERR_HTTP_STATUS, CRES_ERR_LIMIT,
                                          CRES_ERR_CONFLICT, /* JOB_COMPLETION_INDEX past completions */
                                          CRES_OK};
    static const int statuses[] = {500, 403, 0};
    fuzz_check_answer_failure(r, err, allowed, statuses);
}

/* The one job, dense, with non-empty addresses; the spec round-trips. */
static const cres_job *check_spec(const cres_cluster_spec *spec) {
    const cres_job *j;
    size_t t;
    CHECK(spec != NULL);
    CHECK(cres_spec_jobs_count(spec) == 1);
    j = cres_spec_job(spec, "worker");
    CHECK(j != NULL);
    for (t = 0; t < j->tasks_count; t++) {
        CHECK(j->tasks[t].index == (int)t);
        CHECK(j->tasks[t].address != NULL && j->tasks[t].address[0] != '\0');
    }
    fuzz_check_round_trip(spec);
    return j;
}

/* A named member "<prefix>-<i>.<sub>" DOMAIN "<port>": its prefix (in prefix, 64 bytes) and
   i; the subdomain must be sub. */
static long named_member(const char *a, const char *sub, int port, char *prefix) {
    const char *dot = strchr(a, '.'), *dash;
    char tail[128];
    long i = 0;
    size_t n;
    CHECK(dot != NULL && dns_label(a, (size_t)(dot - a)));
    snprintf(tail, sizeof tail, ".%s" DOMAIN "%d", sub, port);
    CHECK(strcmp(dot, tail) == 0);
    for (dash = dot; dash > a && dash[-1] != '-'; dash--) {}
    n = (size_t)(dot - dash);
    CHECK(dash > a + 1 && n > 0 && (n == 1 || *dash != '0'));
    for (; dash < dot; dash++) {
        CHECK(*dash >= '0' && *dash <= '9');
        i = i * 10 + (*dash - '0');
    }
    n = (size_t)(dot - a) - n - 1;
    memcpy(prefix, a, n);
    prefix[n] = '\0';
    return i;
}

/* A JobSet's Job "<jobset>-<rjob>-<j>": its replicated job (in rjob, 64 bytes) and j. */
static long jobset_job(const char *prefix, const char *jobset, char *rjob) {
    size_t js = strlen(jobset), n;
    const char *dash = strrchr(prefix, '-');
    long j;
    int ok;
    CHECK(strncmp(prefix, jobset, js) == 0 && prefix[js] == '-' && dash > prefix + js + 1);
    n = (size_t)(dash - prefix) - js - 1;
    memcpy(rjob, prefix + js + 1, n);
    rjob[n] = '\0';
    j = (long)fuzz_decimal(dash + 1, &ok);
    CHECK(ok && j >= 0 && (dash[1] != '0' || dash[2] == '\0') && dash[1] != '-');
    return j;
}

static void check_named(cres_resolver *r, const cres_job *job, const run_log *log, const own_pod *own,
                        int port) {
    char prefix[64], last[64] = "", rjob[64], last_rjob[64] = "", own_address[256];
    long i, next = 0, j, next_j = 0;
    size_t t, n = job->tasks_count;
    const char **sorted;
    int id;
    CHECK(n == log->count && n >= 1 && n <= CRES_MAX_K8S_PODS);
    CHECK(dns_label(log->sub, strlen(log->sub)));
    for (t = 0; t < n; t++) {
        i = named_member(job->tasks[t].address, log->sub, port, prefix);
        if (strcmp(prefix, last) != 0) { /* the next Job */
            CHECK(i == 0);
            if (log->from_jobset) {
                j = jobset_job(prefix, log->from, rjob);
                CHECK(j == (strcmp(rjob, last_rjob) == 0 ? next_j : 0));
                next_j = j + 1;
                strcpy(last_rjob, rjob);
            } else {
                CHECK(strcmp(prefix, own->job) == 0 && strcmp(log->from, own->job) == 0);
            }
            strcpy(last, prefix);
        } else {
            CHECK(i == next);
        }
        next = i + 1;
    }
    sorted = (const char **)malloc(n * sizeof *sorted);
    CHECK(sorted != NULL);
    for (t = 0; t < n; t++) sorted[t] = job->tasks[t].address;
    qsort(sorted, n, sizeof *sorted, fuzz_cmp_str_ptr);
    for (t = 1; t < n; t++) CHECK(strcmp(sorted[t - 1], sorted[t]) != 0);
    free(sorted);
    CHECK(cres_task_type(r) != NULL && strcmp(cres_task_type(r), "worker") == 0);
    id = cres_task_id(r);
    CHECK(id >= 0 && (size_t)id < n);
    snprintf(own_address, sizeof own_address, "%s.%s" DOMAIN "%d", own->hostname, log->sub, port);
    CHECK(strcmp(job->tasks[id].address, own_address) == 0);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    static const int get_statuses[8] = {200, 200, 200, 200, 200, 403, 404, 500};
    static const int list_statuses[4] = {200, 200, 200, 403};
    const uint8_t *parts[2];
    fake_api api;
    run_log log, first;
    fuzz_counter count = {0};
    cres_config config;
    cres_k8s_options o;
    cres_k8s_job_selector job;
    cres_resolver *r = NULL;
    cres_cluster_spec *spec = NULL, *spec2 = NULL;
    cres_error err;
    cres_result res;
    char selector[128];
    int form;
    if (size < 2) return 0;
    memset(&api, 0, sizeof api);
    api.status[JOB] = get_statuses[data[0] & 7];
    api.status[JOBSET] = get_statuses[(data[0] >> 3) & 7];
    api.status[LIST] = list_statuses[data[0] >> 6];
    api.own = &own_pods[(data[1] & 7) | (data[1] >> 4 & 8)];
    fuzz_split(data, size, 2, parts, api.len, 2);
    api.body[JOB] = parts[0];
    api.body[JOBSET] = parts[1];

    form = (data[1] >> 4) & 3;
    if (form == 0) snprintf(selector, sizeof selector, "job-name=%s", api.own->job);
    else if (form == 1) snprintf(selector, sizeof selector, "jobset.sigs.k8s.io/jobset-name=%s", api.own->jobset);
    else if (form == 2) snprintf(selector, sizeof selector, "batch.kubernetes.io/job-name==%s", api.own->job);
    else snprintf(selector, sizeof selector, "app=tf");
    api.want_jobset = form == 1 ? api.own->jobset : NULL;
    job.job = "worker";
    job.selector = selector;

    fuzz_canned_config(&config, fake_perform, &api);
    config.allocator.alloc = fuzz_count_alloc;
    config.allocator.free = fuzz_count_free;
    config.allocator.user = &count;
    config.getenv.fn = own_env;
    config.getenv.user = (void *)api.own;
    config.log.fn = log_line;
    config.log.user = &log;
    memset(&o, 0, sizeof o);
    o.config = &config;
    o.server = SERVER;
    o.token = "fuzz-token";
    o.jobs = &job;
    o.jobs_count = 1;
    o.members = CRES_K8S_MEMBERS_JOB;
    o.follow_jobset = (data[1] & 8) != 0;
    o.hostname = api.own->hostname;
    o.port = (data[1] & 64) ? 2222 : 0;
    memset(&log, 0, sizeof log);
    CHECK(cres_k8s_resolver_create(&o, &r, &err) == CRES_OK);

    memset(&log, 0, sizeof log);
    res = cres_resolve(r, &spec, &err);
    CHECK(api.served[JOB] <= 1 && api.served[JOBSET] <= api.served[JOB]);
    if (res != CRES_OK) {
        CHECK(spec == NULL);
        check_failure(res, &err);
    } else {
        const cres_job *j = check_spec(spec);
        CHECK(log.named + log.listing == 1);
        if (log.named) {
            CHECK(api.served[LIST] == 0 && api.served[JOB] == 1 && api.served[JOBSET] == log.from_jobset);
            CHECK(!log.from_jobset || o.follow_jobset || form == 1);
            CHECK(form != 1 || (log.from_jobset && strcmp(log.from, api.own->jobset) == 0));
            check_named(r, j, &log, api.own, o.port ? o.port : 8470);
        } else {
            CHECK(api.served[LIST] >= 1);
        }
        first = log;
        memset(&api.served, 0, sizeof api.served);
        memset(&log, 0, sizeof log);
        CHECK(cres_resolve(r, &spec2, &err) == CRES_OK);
        CHECK(cres_spec_equal(spec, spec2));
        CHECK(log.named == first.named && log.listing == first.listing);
        CHECK(!log.named || (log.from_jobset == first.from_jobset && strcmp(log.from, first.from) == 0 &&
                             strcmp(log.sub, first.sub) == 0));
        cres_spec_free(spec2);
        memset(&api.served, 0, sizeof api.served); /* master() resolves again */
        fuzz_check_own_task(r, spec);
    }
    cres_spec_free(spec);
    cres_resolver_free(r);
    CHECK(count.live == 0);
    return 0;
}
