/* Long-running use: one process resolves many times, as a sidecar or an elastic trainer that
   re-resolves every few seconds for days would. tests/soak/run_soak.py starts the fake API
   server and runs this built twice: plain -O2 (the memory check) and with ASan, whose leak
   checker runs at exit.

   usage: soak k8s N SERVER_URL CA_FILE TOKEN_FILE SELECTOR WANT_TASKS
          soak env N

   k8s: one Kubernetes resolver, kept for the whole run, resolves N times through the bundled
   curl transport (HTTPS, bearer token read at every resolve); each spec must have WANT_TASKS
   tasks. env: N times create an auto resolver over a Slurm step's variables (a getenv hook),
   resolve, ask the master and the launch info, free it.
   Every resolve is checked; the library's own allocations (a counting allocator) must all be
   freed after each one. After the first 100 resolves the resident set (VmRSS) and the open
   file descriptors are read from /proc/self; at the end neither may have grown: descriptors
   not at all, memory by at most RSS_SLACK_KIB (1 MiB). */
#define CLUSTER_RESOLVER_IMPLEMENTATION
#define CLUSTER_RESOLVER_USE_CURL
#include "../../cluster_resolver.h"

#include <curl/curl.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define WARMUP 100
#define RSS_SLACK_KIB 1024 /* 1 MiB: what a leak of about 700 bytes a resolve adds up to in 1,500;
                              smaller leaks the exact count of live blocks catches */

static long live_blocks, total_blocks;

static void *counting_alloc(void *user, size_t size) {
    void *p = malloc(size);
    (void)user;
    if (p) live_blocks++, total_blocks++;
    return p;
}

static void counting_free(void *user, void *ptr) {
    (void)user;
    live_blocks--;
    free(ptr);
}

static long rss_kib(void) {
    char line[256];
    long kib = -1;
    FILE *f = fopen("/proc/self/status", "r");
    if (!f) return -1;
    while (fgets(line, sizeof line, f))
        if (strncmp(line, "VmRSS:", 6) == 0) kib = strtol(line + 6, NULL, 10);
    fclose(f);
    return kib;
}

static int open_fds(void) {
    int n = 0;
    struct dirent *e;
    DIR *d = opendir("/proc/self/fd");
    if (!d) return -1;
    while ((e = readdir(d)))
        if (e->d_name[0] != '.') n++;
    closedir(d);
    return n - 1; /* the directory's own */
}

/* ---- the two workloads: one resolve each, 0 when right --------------------------------- */

typedef struct soak {
    cres_config config;
    cres_resolver *k8s;        /* k8s: kept across resolves */
    size_t want_tasks;
} soak;

static int k8s_once(soak *s, long i) {
    cres_cluster_spec *spec = NULL;
    cres_error err;
    int bad = 0;
    if (cres_resolve(s->k8s, &spec, &err) != CRES_OK) {
        fprintf(stderr, "soak: resolve %ld: %s\n", i, err.message);
        return 1;
    }
    if (cres_spec_tasks_count(spec, "worker") != s->want_tasks) {
        fprintf(stderr, "soak: resolve %ld: %zu tasks, want %zu\n", i, cres_spec_tasks_count(spec, "worker"),
                s->want_tasks);
        bad = 1;
    }
    cres_spec_free(spec);
    return bad;
}

static const char *step_getenv(void *user, const char *name) {
    static const char *const vars[][2] = {
        {"SLURM_JOB_ID", "4242"}, {"SLURM_PROCID", "13"}, {"SLURM_STEP_NUM_TASKS", "64"},
        {"SLURM_STEP_NODELIST", "rack[1-2]-n[01-16]"}, {"SLURM_STEP_TASKS_PER_NODE", "2(x32)"},
        {"SLURM_NODEID", "6"}, {"SLURM_LOCALID", "1"}, {"CUDA_VISIBLE_DEVICES", "0,1,2,3"},
        {"SLURM_GPUS_ON_NODE", "4"}}; /* the node's four, as srun --gres=gpu:4 gives them */
    size_t i;
    (void)user;
    for (i = 0; i < sizeof vars / sizeof vars[0]; i++)
        if (strcmp(vars[i][0], name) == 0) return vars[i][1];
    return NULL;
}

static int env_once(soak *s, long i) {
    cres_auto_options o;
    cres_resolver *r = NULL;
    cres_cluster_spec *spec = NULL;
    cres_launch_info info;
    cres_error err;
    char master[64], devices[16];
    int bad = 1;
    memset(&o, 0, sizeof o);
    o.config = &s->config;
    if (cres_auto_resolver_create(&o, &r, &err) == CRES_OK && cres_resolve(r, &spec, &err) == CRES_OK &&
        cres_master(r, master, sizeof master, NULL, &err) == CRES_OK &&
        cres_spec_launch_info(spec, cres_task_type(r), cres_task_id(r), &info, &err) == CRES_OK &&
        cres_visible_devices(r, devices, sizeof devices, NULL, &err) == CRES_OK) {
        /* rank 13 is the second task of the seventh node, rack1-n07 */
        bad = strcmp(master, "grpc://rack1-n07:8889") != 0 || info.world_size != 64 || info.rank != 13 ||
              info.local_rank != 1 || strcmp(info.master_host, "rack1-n01") != 0 || strcmp(devices, "2,3") != 0;
        if (bad)
            fprintf(stderr, "soak: resolve %ld: master %s, rank %d of %d, local %d, devices %s\n", i, master,
                    info.rank, info.world_size, info.local_rank, devices);
    } else {
        fprintf(stderr, "soak: resolve %ld: %s\n", i, err.message);
    }
    cres_spec_free(spec);
    cres_resolver_free(r);
    return bad;
}

static int setup_k8s(soak *s, char **argv) {
    static cres_k8s_job_selector job;
    cres_k8s_options o;
    cres_error err;
    job.job = "worker";
    job.selector = argv[6];
    memset(&o, 0, sizeof o);
    o.config = &s->config;
    o.server = argv[3];
    o.ca_file = argv[4];
    o.token_file = argv[5];
    o.namespace_name = "default";
    o.jobs = &job;
    o.jobs_count = 1;
    o.page_size = 100; /* several pages per resolve */
    s->want_tasks = (size_t)atol(argv[7]);
    if (cres_k8s_resolver_create(&o, &s->k8s, &err) != CRES_OK) {
        fprintf(stderr, "soak: %s\n", err.message);
        return 1;
    }
    return 0;
}

int main(int argc, char **argv) {
    soak s;
    long n, i, rss0 = 0, rss1;
    int fds0 = 0, fds1, k8s, failed = 0;
    k8s = argc == 8 && strcmp(argv[1], "k8s") == 0;
    if (!(k8s || (argc == 3 && strcmp(argv[1], "env") == 0)) || (n = atol(argv[2])) <= WARMUP) {
        fprintf(stderr, "usage: soak k8s N URL CA_FILE TOKEN_FILE SELECTOR WANT_TASKS | soak env N  (N > %d)\n", WARMUP);
        return 2;
    }
    curl_global_init(CURL_GLOBAL_DEFAULT);
    memset(&s, 0, sizeof s);
    s.config.allocator.alloc = counting_alloc;
    s.config.allocator.free = counting_free;
    if (!k8s) s.config.getenv.fn = step_getenv;
    if (k8s && setup_k8s(&s, argv)) return 1;
    for (i = 0; i < n && !failed; i++) {
        long live = live_blocks;
        failed = k8s ? k8s_once(&s, i) : env_once(&s, i);
        if (i > 0 && live_blocks != live) { /* the first may keep what it learnt (the own task) */
            fprintf(stderr, "soak: resolve %ld left %ld blocks allocated\n", i, live_blocks - live);
            failed = 1;
        }
        if (i + 1 == WARMUP) rss0 = rss_kib(), fds0 = open_fds();
        if ((i + 1) % (n / 10) == 0) /* the trend, for whoever reads the log */
            printf("  %ld resolves: RSS %ld KiB, %d fds\n", i + 1, rss_kib(), open_fds());
    }
    cres_resolver_free(s.k8s);
    rss1 = rss_kib();
    fds1 = open_fds();
    printf("soak %s: %ld resolves, %ld library allocations; after %d: RSS %ld KiB, %d fds; at the end: RSS %ld KiB "
           "(%+ld), %d fds\n", argv[1], i, total_blocks, WARMUP, rss0, fds0, rss1, rss1 - rss0, fds1);
    if (live_blocks) fprintf(stderr, "soak: %ld blocks never freed\n", live_blocks), failed = 1;
    if (fds1 != fds0) fprintf(stderr, "soak: open descriptors went from %d to %d\n", fds0, fds1), failed = 1;
    if (rss1 - rss0 > RSS_SLACK_KIB)
        fprintf(stderr, "soak: RSS grew by %ld KiB (bound %d KiB)\n", rss1 - rss0, RSS_SLACK_KIB), failed = 1;
    curl_global_cleanup();
    return failed;
}
