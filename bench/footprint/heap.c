/* Heap used to resolve N members with each backend: a counting cres_allocator (current and peak
   bytes, allocations), an in-process fake transport for the HTTP backends (canned Kubernetes,
   Compute Engine and Cloud TPU answers, generated here before anything is measured) and the
   getenv hook for the environment backends. Nothing goes over a network or reads the process
   environment.

   usage: heap [SIZES...]          default 8 1000 10000
   Prints one JSON object per line:
     {"backend": "kubernetes", "n": 1000, "peak": B, "allocs": A, "retained": R,
      "requests": Q, "largest_body": L, "input_bytes": I, "us": T}
   peak      most bytes live at once from cres_*_resolver_create() to the end of cres_resolve()
             (requested sizes, without the allocator's own overhead; HTTP bodies included, as
             the transport allocates them with the library's allocator)
   allocs    allocations in create + resolve
   retained  bytes live after the resolve: the resolver and the spec it returned
   requests  HTTP requests the resolve made; largest_body the largest answer in bytes
   input_bytes  the environment variables, hostfile and answers the backend read
   us        median wall time of create + resolve + free in-process (5 runs), in microseconds

   gcc -std=c99 -O2 -Wall -Wextra -Wpedantic -Werror -I. bench/footprint/heap.c -o build/bench/heap */

#define _POSIX_C_SOURCE 200809L /* clock_gettime, mkstemp, fdopen */
#define CLUSTER_RESOLVER_IMPLEMENTATION
#include "../../cluster_resolver.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define PAGE 500 /* the library's page size for Kubernetes and Google Cloud lists */
#define PROJECT "bench-project"
#define ZONE "us-east1-d"

static void die(const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    fputs("heap: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    exit(1);
}

/* ---------------------------------------------------------------------------------------
   The counting allocator: a 16-byte header holds each block's size */

typedef struct counter {
    size_t current, peak, allocs;
} counter;

static void *count_alloc(void *user, size_t size) {
    counter *c = (counter *)user;
    unsigned char *p = (unsigned char *)malloc(size + 16);
    if (!p) return NULL;
    memcpy(p, &size, sizeof size);
    c->current += size;
    if (c->current > c->peak) c->peak = c->current;
    c->allocs++;
    return p + 16;
}

static void count_free(void *user, void *ptr) {
    counter *c = (counter *)user;
    size_t size;
    unsigned char *p = (unsigned char *)ptr - 16;
    memcpy(&size, p, sizeof size);
    c->current -= size;
    free(p);
}

/* ---------------------------------------------------------------------------------------
   A string builder (plain malloc: the fake's own memory is not counted) */

typedef struct sb {
    char *s;
    size_t len, cap;
} sb;

static void sb_add(sb *b, const char *fmt, ...) {
    va_list ap;
    int n;
    for (;;) {
        size_t room = b->cap - b->len;
        va_start(ap, fmt);
        n = vsnprintf(b->s ? b->s + b->len : NULL, room, fmt, ap);
        va_end(ap);
        if (n < 0) die("vsnprintf");
        if ((size_t)n < room) break;
        b->cap = (b->cap + (size_t)n + 1) * 2;
        if (!(b->s = (char *)realloc(b->s, b->cap))) die("out of memory");
    }
    b->len += (size_t)n;
}

static char *sb_take(sb *b) {
    char *s = b->s ? b->s : strdup("");
    b->s = NULL;
    b->len = b->cap = 0;
    return s;
}

/* Deterministic, generateName-like suffixes and ids. */
static const char ALPHA[] = "bcdfghjklmnpqrstvwxz2456789";

static void suffix(char *out, unsigned i, int len) {
    unsigned x = i * 2654435761u + 12345u;
    int k;
    for (k = 0; k < len; k++) {
        out[k] = ALPHA[x % 27];
        x = x / 27 + (unsigned)k * 7919u + i;
    }
    out[len] = '\0';
}

static void uid(char *out, unsigned i, unsigned salt) {
    unsigned a = i * 2654435761u ^ salt, b = (i + salt) * 40503u;
    sprintf(out, "%08x-%04x-4%03x-8%03x-%08x%04x", a, b & 0xffff, (a >> 8) & 0xfff, (b >> 4) & 0xfff, a ^ b,
            (a >> 16) & 0xffff);
}

static void ipv4(char *out, unsigned base, unsigned i) { /* base.x.y.z counting from .10 */
    unsigned v = i + 10;
    sprintf(out, "10.%u.%u.%u", base + v / 65536, (v / 256) % 256, v % 256);
}

/* ---------------------------------------------------------------------------------------
   Canned answers */

/* One pod of the Indexed Job "trainer", about 1.6 KB: what a PodList item carries, with one
   short managedFields entry (a real one has several, about 5 KB in all). */
static void k8s_pod(sb *b, unsigned i) {
    char sfx[6], id[40], juid[40], ip[20], host[20];
    suffix(sfx, i, 5);
    uid(id, i, 0x5eed);
    uid(juid, 0, 0x10b);
    ipv4(ip, 4, i);
    sprintf(host, "10.128.%u.%u", i / 8 / 250, i / 8 % 250 + 2);
    sb_add(b,
           "{\"metadata\":{\"name\":\"trainer-%u-%s\",\"generateName\":\"trainer-%u-\",\"namespace\":\"default\","
           "\"uid\":\"%s\",\"resourceVersion\":\"%u\",\"creationTimestamp\":\"2026-01-15T09:30:00Z\","
           "\"labels\":{\"batch.kubernetes.io/controller-uid\":\"%s\",\"batch.kubernetes.io/job-completion-index\":"
           "\"%u\",\"batch.kubernetes.io/job-name\":\"trainer\",\"controller-uid\":\"%s\",\"job-name\":\"trainer\"},"
           "\"annotations\":{\"batch.kubernetes.io/job-completion-index\":\"%u\"},"
           "\"ownerReferences\":[{\"apiVersion\":\"batch/v1\",\"kind\":\"Job\",\"name\":\"trainer\",\"uid\":\"%s\","
           "\"controller\":true,\"blockOwnerDeletion\":true}],"
           "\"managedFields\":[{\"manager\":\"kubelet\",\"operation\":\"Update\",\"apiVersion\":\"v1\","
           "\"time\":\"2026-01-15T09:30:07Z\",\"fieldsType\":\"FieldsV1\",\"fieldsV1\":{\"f:status\":{"
           "\"f:phase\":{},\"f:podIP\":{},\"f:podIPs\":{},\"f:startTime\":{}}},\"subresource\":\"status\"}]},"
           "\"spec\":{\"containers\":[{\"name\":\"tensorflow\",\"image\":\"tensorflow/tensorflow:2.15.0\","
           "\"command\":[\"python\",\"/app/train.py\"],\"ports\":[{\"containerPort\":8470,\"protocol\":\"TCP\"}],"
           "\"resources\":{\"limits\":{\"cpu\":\"4\",\"memory\":\"16Gi\"},\"requests\":{\"cpu\":\"4\",\"memory\":"
           "\"16Gi\"}},\"terminationMessagePath\":\"/dev/termination-log\",\"imagePullPolicy\":\"IfNotPresent\"}],"
           "\"restartPolicy\":\"Never\",\"serviceAccountName\":\"default\",\"nodeName\":\"node-%u\","
           "\"hostname\":\"trainer-%u\",\"subdomain\":\"trainer\",\"schedulerName\":\"default-scheduler\"},"
           "\"status\":{\"phase\":\"Running\",\"conditions\":[{\"type\":\"Initialized\",\"status\":\"True\","
           "\"lastTransitionTime\":\"2026-01-15T09:30:01Z\"},{\"type\":\"Ready\",\"status\":\"True\","
           "\"lastTransitionTime\":\"2026-01-15T09:30:07Z\"},{\"type\":\"PodScheduled\",\"status\":\"True\","
           "\"lastTransitionTime\":\"2026-01-15T09:30:00Z\"}],\"hostIP\":\"%s\",\"hostIPs\":[{\"ip\":\"%s\"}],"
           "\"podIP\":\"%s\",\"podIPs\":[{\"ip\":\"%s\"}],\"startTime\":\"2026-01-15T09:30:00Z\","
           "\"containerStatuses\":[{\"name\":\"tensorflow\",\"state\":{\"running\":{\"startedAt\":"
           "\"2026-01-15T09:30:06Z\"}},\"ready\":true,\"restartCount\":0,\"image\":\"tensorflow/tensorflow:2.15.0\","
           "\"containerID\":\"containerd://%s\",\"started\":true}],\"qosClass\":\"Guaranteed\"}}",
           i, sfx, i, id, 100000 + i, juid, i, juid, i, juid, i / 8, i, host, host, ip, ip, id);
}

static char *k8s_page(unsigned n, unsigned page) {
    sb b = {0, 0, 0};
    unsigned i, first = page * PAGE, last = first + PAGE < n ? first + PAGE : n;
    sb_add(&b, "{\"kind\":\"PodList\",\"apiVersion\":\"v1\",\"metadata\":{\"resourceVersion\":\"%u\"", 100000 + n);
    if (last < n) /* a continue token as the API server writes one (base64 of JSON) */
        sb_add(&b, ",\"continue\":\"eyJ2IjoibWV0YS5rOHMuaW8vdjEiLCJydiI6MTAwMDAwLCJzdGFydCI6InRyYWluZXItcDAwMCJ9.p%u\","
                   "\"remainingItemCount\":%u",
               page + 1, n - last);
    sb_add(&b, "},\"items\":[");
    for (i = first; i < last; i++) {
        if (i > first) sb_add(&b, ",");
        k8s_pod(&b, i);
    }
    sb_add(&b, "]}");
    return sb_take(&b);
}

static void gce_name(char *out, unsigned i) {
    char sfx[6];
    suffix(sfx, i, 4);
    sprintf(out, "tf-workers-%s%u", sfx, i); /* unique; the 4 letters make the order not i's */
}

static char *gce_group_page(unsigned n, unsigned page) {
    sb b = {0, 0, 0};
    unsigned i, first = page * PAGE, last = first + PAGE < n ? first + PAGE : n;
    char name[40];
    sb_add(&b, "{\"kind\":\"compute#instanceGroupsListInstances\",\"id\":\"projects/" PROJECT "/zones/" ZONE
               "/instanceGroups/tf-workers/listInstances\",\"items\":[");
    for (i = first; i < last; i++) {
        gce_name(name, i);
        sb_add(&b,
               "%s{\"instance\":\"https://www.googleapis.com/compute/v1/projects/" PROJECT "/zones/" ZONE
               "/instances/%s\",\"status\":\"RUNNING\"}",
               i > first ? "," : "", name);
    }
    sb_add(&b, "]");
    if (last < n) sb_add(&b, ",\"nextPageToken\":\"Cg5ncm91cC1wYWdlLXRva2Vu.p%u\"", page + 1);
    sb_add(&b, ",\"selfLink\":\"https://www.googleapis.com/compute/v1/projects/" PROJECT "/zones/" ZONE
               "/instanceGroups/tf-workers/listInstances\"}");
    return sb_take(&b);
}

/* The zone's RUNNING instances as the partial response (fields=items(name,networkInterfaces(
   networkIP)),nextPageToken) gives them. */
static char *gce_zone_page(unsigned n, unsigned page) {
    sb b = {0, 0, 0};
    unsigned i, first = page * PAGE, last = first + PAGE < n ? first + PAGE : n;
    char name[40], ip[20];
    sb_add(&b, "{\"items\":[");
    for (i = first; i < last; i++) {
        gce_name(name, i);
        ipv4(ip, 142, i);
        sb_add(&b, "%s{\"name\":\"%s\",\"networkInterfaces\":[{\"networkIP\":\"%s\"}]}", i > first ? "," : "", name, ip);
    }
    sb_add(&b, "]");
    if (last < n) sb_add(&b, ",\"nextPageToken\":\"Cg56b25lLXBhZ2UtdG9rZW4.p%u\"", page + 1);
    sb_add(&b, "}");
    return sb_take(&b);
}

static char *tpu_node(unsigned n) {
    sb b = {0, 0, 0};
    unsigned i;
    char ip[20];
    sb_add(&b,
           "{\"name\":\"projects/" PROJECT "/locations/" ZONE "/nodes/bench-tpu\",\"acceleratorType\":\"v4-%u\","
           "\"state\":\"READY\",\"health\":\"HEALTHY\",\"runtimeVersion\":\"tpu-ubuntu2204-base\","
           "\"networkConfig\":{\"network\":\"projects/" PROJECT "/global/networks/default\",\"subnetwork\":"
           "\"projects/" PROJECT "/regions/us-east1/subnetworks/default\",\"enableExternalIps\":true},"
           "\"cidrBlock\":\"10.130.0.0/20\",\"serviceAccount\":{\"email\":\"tpu@" PROJECT
           ".iam.gserviceaccount.com\",\"scope\":[\"https://www.googleapis.com/auth/cloud-platform\"]},"
           "\"createTime\":\"2026-01-15T09:30:00Z\",\"networkEndpoints\":[",
           n * 8);
    for (i = 0; i < n; i++) {
        ipv4(ip, 130, i);
        sb_add(&b, "%s{\"ipAddress\":\"%s\",\"port\":8470,\"accessConfig\":{\"externalIp\":\"34.%u.%u.%u\"}}",
               i ? "," : "", ip, 100 + i / 65536, i / 256 % 256, i % 256);
    }
    sb_add(&b, "],\"schedulingConfig\":{},\"id\":\"7103918302958745678\",\"apiVersion\":\"V2\","
               "\"shieldedInstanceConfig\":{}}");
    return sb_take(&b);
}

/* ---------------------------------------------------------------------------------------
   The fake transport: pages chosen by the token in the URL */

typedef struct pages {
    char **body;
    size_t count;
} pages;

typedef struct fake {
    pages k8s, group, zone, node;
    unsigned requests;
    size_t largest, served;
} fake;

static void pages_make(pages *p, unsigned n, char *(*make)(unsigned, unsigned)) {
    unsigned k;
    p->count = n ? (n + PAGE - 1) / PAGE : 1;
    p->body = (char **)calloc(p->count, sizeof *p->body);
    for (k = 0; k < p->count; k++) p->body[k] = make(n, k);
}

static void pages_free(pages *p) {
    size_t k;
    for (k = 0; k < p->count; k++) free(p->body[k]);
    free(p->body);
    p->body = NULL;
    p->count = 0;
}

/* The page number after ".p" at the end of the token after `key` in url; 0 when absent. */
static size_t page_of(const char *url, const char *key) {
    const char *t = strstr(url, key), *e;
    if (!t) return 0;
    e = strstr(t, ".p");
    if (!e) die("a page token without its number: %s", t);
    return (size_t)strtoul(e + 2, NULL, 10);
}

static cres_result fake_perform(void *user, const cres_http_request *req, cres_http_response *resp,
                                const cres_allocator *alloc, cres_error *err) {
    fake *f = (fake *)user;
    const pages *p = NULL;
    size_t k = 0, n;
    const char *body;
    f->requests++;
    if (strstr(req->url, "/pods?")) {
        p = &f->k8s;
        k = page_of(req->url, "&continue=");
    } else if (strstr(req->url, "/listInstances?")) {
        p = &f->group;
        k = page_of(req->url, "&pageToken=");
    } else if (strstr(req->url, "/instances?")) {
        p = &f->zone;
        k = page_of(req->url, "&pageToken=");
    } else if (strstr(req->url, "/nodes/")) {
        p = &f->node;
    }
    if (!p || k >= p->count) {
        snprintf(err->message, sizeof err->message, "fake: nothing at %s", req->url);
        return CRES_ERR_TRANSPORT;
    }
    body = p->body[k];
    n = strlen(body);
    if (!(resp->body = (char *)alloc->alloc(alloc->user, n + 1))) return CRES_ERR_OUT_OF_MEMORY;
    memcpy(resp->body, body, n + 1);
    resp->body_len = n;
    resp->status = 200;
    if (n > f->largest) f->largest = n;
    f->served += n;
    return CRES_OK;
}

/* ---------------------------------------------------------------------------------------
   The environment: name/value pairs */

#define MAX_VARS 16

typedef struct env {
    const char *name[MAX_VARS];
    char *value[MAX_VARS];
    int count;
} env;

static void env_set(env *e, const char *name, char *value) { /* takes value */
    if (e->count == MAX_VARS) die("too many variables");
    e->name[e->count] = name;
    e->value[e->count++] = value;
}

static void env_setf(env *e, const char *name, const char *fmt, ...) {
    sb b = {0, 0, 0};
    va_list ap;
    int n;
    va_start(ap, fmt);
    n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    b.s = (char *)malloc((size_t)n + 1);
    va_start(ap, fmt);
    vsnprintf(b.s, (size_t)n + 1, fmt, ap);
    va_end(ap);
    env_set(e, name, b.s);
}

static size_t env_bytes(const env *e) {
    size_t t = 0;
    int i;
    for (i = 0; i < e->count; i++) t += strlen(e->name[i]) + 1 + strlen(e->value[i]);
    return t;
}

static void env_free(env *e) {
    int i;
    for (i = 0; i < e->count; i++) free(e->value[i]);
    e->count = 0;
}

static const char *env_get(void *user, const char *name) {
    const env *e = (const env *)user;
    int i;
    for (i = 0; i < e->count; i++)
        if (strcmp(e->name[i], name) == 0) return e->value[i];
    return NULL;
}

/* ---------------------------------------------------------------------------------------
   The backends */

enum backend { TFCONFIG, SLURM, MPI, PBS, LSF, SGE, FLUX, SAGEMAKER, KUBERNETES, GCE, TPU, LOCAL, AUTO, BACKENDS };
static const char *const NAMES[BACKENDS] = {"tfconfig", "slurm", "mpi", "pbs", "lsf", "sge", "flux", "sagemaker",
                                            "kubernetes", "gce", "tpu", "local", "auto"};

typedef struct setup {
    enum backend backend;
    unsigned n;
    env env;
    fake fake;
    char hostfile[64];
    size_t input_bytes;
} setup;

static char *list_of(unsigned n, const char *fmt, unsigned from) { /* "a1","a2",... */
    sb b = {0, 0, 0};
    unsigned i;
    for (i = 0; i < n; i++) {
        if (i) sb_add(&b, ",");
        sb_add(&b, fmt, i + from);
    }
    return sb_take(&b);
}

/* Slurm's step variables for n tasks, 8 per node (fewer on one node when n < 8). */
static void slurm_env(env *e, unsigned n) {
    unsigned nodes = (n + 7) / 8;
    env_setf(e, "SLURM_JOB_ID", "4242");
    env_setf(e, "SLURM_PROCID", "0");
    env_setf(e, "SLURM_NODEID", "0");
    env_setf(e, "SLURM_LOCALID", "0");
    env_setf(e, "SLURM_STEP_NUM_TASKS", "%u", n);
    if (nodes == 1) {
        env_setf(e, "SLURM_STEP_NODELIST", "n1");
        env_setf(e, "SLURM_STEP_TASKS_PER_NODE", "%u", n);
    } else {
        if (n % 8) die("slurm: %u is not a multiple of 8", n);
        env_setf(e, "SLURM_STEP_NODELIST", "n[1-%u]", nodes);
        env_setf(e, "SLURM_STEP_TASKS_PER_NODE", "8(x%u)", nodes);
    }
}

/* A scheduler's allocation file of n slots, 8 a host: `line` is printed per host (with the
   host's number and slots) or, when per_slot, once per slot (PBS_NODEFILE). */
static void sched_file(setup *s, unsigned n, const char *line, int per_slot) {
    FILE *f;
    int fd;
    unsigned h, k, hosts = (n + 7) / 8;
    strcpy(s->hostfile, "/tmp/cres-heap-allocation.XXXXXX");
    if ((fd = mkstemp(s->hostfile)) < 0 || !(f = fdopen(fd, "w"))) die("cannot make an allocation file");
    for (h = 0; h < hosts; h++) {
        unsigned slots = n - h * 8 < 8 ? n - h * 8 : 8;
        for (k = 0; k < (per_slot ? slots : 1); k++) fprintf(f, line, h + 1, slots, h + 1);
    }
    s->input_bytes += (size_t)ftell(f);
    if (fclose(f) != 0) die("cannot write the allocation file");
}

static void prepare(setup *s, enum backend backend, unsigned n) {
    memset(s, 0, sizeof *s);
    s->backend = backend;
    s->n = n;
    switch (backend) {
    case TFCONFIG: {
        char *workers = list_of(n, "\"10.0.%u.2:2222\"", 0);
        sb b = {0, 0, 0};
        sb_add(&b, "{\"cluster\":{\"worker\":[%s]},\"task\":{\"type\":\"worker\",\"index\":0}}", workers);
        free(workers);
        env_set(&s->env, "TF_CONFIG", sb_take(&b));
        break;
    }
    case SLURM:
    case AUTO:
        slurm_env(&s->env, n);
        break;
    case MPI: {
        FILE *f;
        int fd;
        unsigned h, hosts = (n + 7) / 8;
        strcpy(s->hostfile, "/tmp/cres-heap-hostfile.XXXXXX");
        if ((fd = mkstemp(s->hostfile)) < 0 || !(f = fdopen(fd, "w"))) die("cannot make a hostfile");
        for (h = 0; h < hosts; h++) fprintf(f, "n%u slots=%u\n", h + 1, n - h * 8 < 8 ? n - h * 8 : 8);
        s->input_bytes += (size_t)ftell(f);
        if (fclose(f) != 0) die("cannot write the hostfile");
        env_setf(&s->env, "OMPI_COMM_WORLD_RANK", "0");
        env_setf(&s->env, "OMPI_COMM_WORLD_SIZE", "%u", n);
        env_setf(&s->env, "OMPI_COMM_WORLD_LOCAL_RANK", "0");
        env_setf(&s->env, "OMPI_COMM_WORLD_LOCAL_SIZE", "%u", n < 8 ? n : 8);
        break;
    }
    case PBS: /* pbsdsh's task 0 */
        sched_file(s, n, "n%u\n", 1);
        env_set(&s->env, "PBS_NODEFILE", strdup(s->hostfile));
        env_setf(&s->env, "PBS_VNODENUM", "0");
        break;
    case LSF: { /* jsrun's rank 0 of LSB_MCPU_HOSTS "n1 8 n2 8 ..." */
        sb b = {0, 0, 0};
        unsigned h;
        for (h = 0; h < (n + 7) / 8; h++) sb_add(&b, "%sn%u %u", h ? " " : "", h + 1, n - h * 8 < 8 ? n - h * 8 : 8);
        env_set(&s->env, "LSB_MCPU_HOSTS", sb_take(&b));
        env_setf(&s->env, "JSM_NAMESPACE_RANK", "0");
        env_setf(&s->env, "JSM_NAMESPACE_SIZE", "%u", n);
        break;
    }
    case SGE: /* Open MPI's rank 0 on a PE_HOSTFILE */
        sched_file(s, n, "n%u %u all.q@n%u UNDEFINED\n", 0);
        env_set(&s->env, "PE_HOSTFILE", strdup(s->hostfile));
        env_setf(&s->env, "NSLOTS", "%u", n);
        env_setf(&s->env, "OMPI_COMM_WORLD_RANK", "0");
        env_setf(&s->env, "OMPI_COMM_WORLD_SIZE", "%u", n);
        break;
    case FLUX: /* task 0 of `flux run -n N`, the hosts in a hostfile */
        sched_file(s, n, "n%u slots=%u\n", 0);
        env_setf(&s->env, "FLUX_TASK_RANK", "0");
        env_setf(&s->env, "FLUX_JOB_SIZE", "%u", n);
        env_setf(&s->env, "FLUX_JOB_NNODES", "%u", (n + 7) / 8);
        break;
    case SAGEMAKER: {
        char *hosts = list_of(n, "\"algo-%u\"", 1);
        env_setf(&s->env, "SM_HOSTS", "[%s]", hosts);
        env_setf(&s->env, "SM_CURRENT_HOST", "algo-1");
        free(hosts);
        break;
    }
    case KUBERNETES: {
        unsigned k;
        pages_make(&s->fake.k8s, n, k8s_page);
        for (k = 0; k < s->fake.k8s.count; k++) s->input_bytes += strlen(s->fake.k8s.body[k]);
        break;
    }
    case GCE: {
        unsigned k;
        pages_make(&s->fake.group, n, gce_group_page);
        pages_make(&s->fake.zone, n, gce_zone_page);
        for (k = 0; k < s->fake.group.count; k++) s->input_bytes += strlen(s->fake.group.body[k]);
        for (k = 0; k < s->fake.zone.count; k++) s->input_bytes += strlen(s->fake.zone.body[k]);
        break;
    }
    case TPU:
        s->fake.node.count = 1;
        s->fake.node.body = (char **)malloc(sizeof(char *));
        s->fake.node.body[0] = tpu_node(n);
        s->input_bytes += strlen(s->fake.node.body[0]);
        break;
    default:
        break;
    }
    s->input_bytes += env_bytes(&s->env);
}

static void release(setup *s) {
    env_free(&s->env);
    pages_free(&s->fake.k8s);
    pages_free(&s->fake.group);
    pages_free(&s->fake.zone);
    pages_free(&s->fake.node);
    if (s->hostfile[0]) unlink(s->hostfile);
}

static cres_result create(setup *s, const cres_config *c, cres_resolver **r, cres_error *err) {
    static const cres_k8s_job_selector k8s_jobs[] = {{"worker", "job-name=trainer"}};
    switch (s->backend) {
    case TFCONFIG: {
        cres_tfconfig_options o;
        memset(&o, 0, sizeof o);
        o.config = c;
        return cres_tfconfig_resolver_create(&o, r, err);
    }
    case SLURM: {
        cres_slurm_options o;
        memset(&o, 0, sizeof o);
        o.config = c;
        return cres_slurm_resolver_create(&o, r, err);
    }
    case MPI: {
        cres_mpi_options o;
        memset(&o, 0, sizeof o);
        o.config = c;
        o.hostfile = s->hostfile;
        return cres_mpi_resolver_create(&o, r, err);
    }
    case PBS: {
        cres_pbs_options o;
        memset(&o, 0, sizeof o);
        o.config = c;
        return cres_pbs_resolver_create(&o, r, err);
    }
    case LSF: {
        cres_lsf_options o;
        memset(&o, 0, sizeof o);
        o.config = c;
        return cres_lsf_resolver_create(&o, r, err);
    }
    case SGE: {
        cres_sge_options o;
        memset(&o, 0, sizeof o);
        o.config = c;
        return cres_sge_resolver_create(&o, r, err);
    }
    case FLUX: {
        cres_flux_options o;
        memset(&o, 0, sizeof o);
        o.config = c;
        o.hostfile = s->hostfile;
        return cres_flux_resolver_create(&o, r, err);
    }
    case SAGEMAKER: {
        cres_sagemaker_options o;
        memset(&o, 0, sizeof o);
        o.config = c;
        return cres_sagemaker_resolver_create(&o, r, err);
    }
    case KUBERNETES: {
        cres_k8s_options o;
        memset(&o, 0, sizeof o);
        o.config = c;
        o.server = "https://k8s.bench:6443";
        o.token = "eyJhbGciOiJSUzI1NiJ9.bench-token";
        o.namespace_name = "default";
        o.jobs = k8s_jobs;
        o.jobs_count = 1;
        o.hostname = "trainer-0";
        return cres_k8s_resolver_create(&o, r, err);
    }
    case GCE: {
        cres_gce_options o;
        memset(&o, 0, sizeof o);
        o.config = c;
        o.instance_group = "tf-workers";
        o.project = PROJECT;
        o.zone = ZONE;
        o.token = "ya29.bench-token";
        o.instance_name = "tf-workers-x";
        return cres_gce_resolver_create(&o, r, err);
    }
    case TPU: {
        cres_tpu_options o;
        memset(&o, 0, sizeof o);
        o.config = c;
        o.tpu = "bench-tpu";
        o.project = PROJECT;
        o.zone = ZONE;
        o.token = "ya29.bench-token";
        return cres_tpu_resolver_create(&o, r, err);
    }
    case LOCAL: {
        cres_local_options o;
        memset(&o, 0, sizeof o);
        o.config = c;
        return cres_local_resolver_create(&o, r, err);
    }
    case AUTO: {
        cres_auto_options o;
        memset(&o, 0, sizeof o);
        o.config = c;
        return cres_auto_resolver_create(&o, r, err);
    }
    default:
        return CRES_ERR_INVALID_ARGUMENT;
    }
}

typedef struct result {
    size_t peak, allocs, retained, tasks;
} result;

/* create + resolve with the counting allocator; checks the answer and that nothing leaks. */
static result run_once(setup *s) {
    counter cnt = {0, 0, 0};
    cres_config c;
    cres_resolver *r = NULL;
    cres_cluster_spec *spec = NULL;
    cres_error err;
    result out;
    memset(&c, 0, sizeof c);
    memset(&err, 0, sizeof err);
    c.allocator.alloc = count_alloc;
    c.allocator.free = count_free;
    c.allocator.user = &cnt;
    c.getenv.fn = env_get;
    c.getenv.user = &s->env;
    c.transport.perform = fake_perform;
    c.transport.user = &s->fake;
    s->fake.requests = 0;
    s->fake.largest = s->fake.served = 0;
    if (create(s, &c, &r, &err) != CRES_OK) die("%s at %u: create: %s", NAMES[s->backend], s->n, err.message);
    if (cres_resolve(r, &spec, &err) != CRES_OK) die("%s at %u: resolve: %s", NAMES[s->backend], s->n, err.message);
    out.peak = cnt.peak;
    out.allocs = cnt.allocs;
    out.retained = cnt.current;
    out.tasks = cres_spec_tasks_count(spec, "worker");
    if (s->backend == AUTO && strcmp(cres_resolver_name(r), "slurm") != 0)
        die("auto chose %s, not slurm", cres_resolver_name(r));
    cres_spec_free(spec);
    cres_resolver_free(r);
    if (cnt.current != 0) die("%s at %u: %zu bytes left allocated", NAMES[s->backend], s->n, cnt.current);
    return out;
}

static double now_us(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec / 1e3;
}

static int by_value(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static void measure(enum backend backend, unsigned n) {
    setup s;
    result res;
    double t[5];
    int k;
    unsigned want = backend == LOCAL ? 1 : n;
    prepare(&s, backend, n);
    res = run_once(&s);
    if (res.tasks != want) die("%s at %u: %zu workers, expected %u", NAMES[backend], n, res.tasks, want);
    printf("{\"backend\": \"%s\", \"n\": %u, \"peak\": %zu, \"allocs\": %zu, \"retained\": %zu, "
           "\"requests\": %u, \"largest_body\": %zu, \"input_bytes\": %zu",
           NAMES[backend], want, res.peak, res.allocs, res.retained, s.fake.requests, s.fake.largest,
           s.input_bytes);
    for (k = 0; k < 5; k++) {
        double t0 = now_us();
        run_once(&s);
        t[k] = now_us() - t0;
    }
    qsort(t, 5, sizeof *t, by_value);
    printf(", \"us\": %.1f}\n", t[2]);
    fflush(stdout);
    release(&s);
}

int main(int argc, char **argv) {
    unsigned sizes[16], nsizes = 0, i;
    int b;
    for (i = 1; i < (unsigned)argc && nsizes < 16; i++) {
        long v = strtol(argv[i], NULL, 10);
        if (v < 1 || v > 1000000) die("a size is 1..1000000, not %s", argv[i]);
        sizes[nsizes++] = (unsigned)v;
    }
    if (!nsizes) {
        sizes[0] = 8;
        sizes[1] = 1000;
        sizes[2] = 10000;
        nsizes = 3;
    }
    for (b = 0; b < BACKENDS; b++) {
        if (b == LOCAL) { /* always one task */
            measure(LOCAL, 1);
            continue;
        }
        for (i = 0; i < nsizes; i++) measure((enum backend)b, sizes[i]);
    }
    return 0;
}
