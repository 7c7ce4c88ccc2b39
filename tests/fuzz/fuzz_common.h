/* What the libFuzzer targets of tests/fuzz/ share, written once instead of in each target.

   Each target is one translation unit with the implementation, because the targets call its
   private cres__ functions; this header includes it. A target uses some of the helpers, so
   they are marked unused: -Wunused-function stays quiet about the others. */
#ifndef FUZZ_COMMON_H
#define FUZZ_COMMON_H

#include <dirent.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

/* ---------------------------------------------------------------------------------------
   A run replays: the same binary, seeds, -runs and -seed give the same coverage and the same
   new inputs (tests/fuzz/run_fuzzers.sh says which libFuzzer options that takes). So no
   branch of a target may depend on what differs between processes: the clock, the process
   id, a temporary file's name, the process environment. */

/* The clock the library reads (the resolve's deadline, its retry draws, a credential's expiry,
   a JWT's iat) is a fixed one: the library has no clock hook, so its calls of clock_gettime,
   gettimeofday and time are renamed to these while it is included (the system headers have
   declared the real ones already). Time passes only when the library sleeps, through the
   sleep hook below; every config a target makes (fuzz_*_config) starts it again, so that each
   input sees the same clock alone as in a run. */
#define FUZZ_EPOCH 1767225600LL /* 2026-01-01T00:00:00Z */
static long long fuzz_clock_ms;  /* since FUZZ_EPOCH */

static int fuzz_clock_gettime(clockid_t id, struct timespec *ts) {
    (void)id;
    ts->tv_sec = (time_t)(FUZZ_EPOCH + fuzz_clock_ms / 1000);
    ts->tv_nsec = (long)(fuzz_clock_ms % 1000) * 1000000L;
    return 0;
}

static int fuzz_gettimeofday(struct timeval *tv, void *tz) {
    (void)tz;
    tv->tv_sec = (time_t)(FUZZ_EPOCH + fuzz_clock_ms / 1000);
    tv->tv_usec = (long)(fuzz_clock_ms % 1000) * 1000L;
    return 0;
}

static time_t fuzz_time(time_t *t) {
    time_t now = (time_t)(FUZZ_EPOCH + fuzz_clock_ms / 1000);
    if (t) *t = now;
    return now;
}

#define clock_gettime(id, ts) fuzz_clock_gettime(id, ts)
#define gettimeofday(tv, tz) fuzz_gettimeofday(tv, tz)
#define time(t) fuzz_time(t)
#define CLUSTER_RESOLVER_IMPLEMENTATION
#include "../../cluster_resolver.h"
#undef clock_gettime
#undef gettimeofday
#undef time

#if defined(__GNUC__) || defined(__clang__)
#define FUZZ_HELPER static __attribute__((unused))
#define FUZZ_NORETURN __attribute__((noreturn))
#else
#define FUZZ_HELPER static
#define FUZZ_NORETURN
#endif

/* The process environment: the library reads every variable through the targets' getenv and
   env_list hooks, but so that nothing of the machine's (HOME, KUBECONFIG,
   GOOGLE_APPLICATION_CREDENTIALS, ...) can reach a run, every variable goes before
   libFuzzer starts but PATH (the sanitizers' symbolizer), the sanitizers' own options and
   the targets' FUZZ_* switches. */
FUZZ_HELPER int fuzz_name_ends(const char *name, size_t n, const char *suffix) {
    size_t k = strlen(suffix);
    return n >= k && strncmp(name + n - k, suffix, k) == 0;
}

__attribute__((constructor)) FUZZ_HELPER void fuzz_fixed_environment(void) {
    extern char **environ;
    size_t i = 0;
    while (environ && environ[i]) {
        const char *v = environ[i], *eq = strchr(v, '=');
        size_t n = eq ? (size_t)(eq - v) : 0;
        char name[512];
        if (!eq || n >= sizeof name || (n == 4 && strncmp(v, "PATH", 4) == 0) ||
            strncmp(v, "FUZZ_", 5) == 0 || fuzz_name_ends(v, n, "SAN_OPTIONS") ||
            fuzz_name_ends(v, n, "_SYMBOLIZER_PATH")) {
            i++;
            continue;
        }
        memcpy(name, v, n);
        name[n] = '\0';
        if (unsetenv(name) != 0) i++;
    }
}

/* ---------------------------------------------------------------------------------------
   Checks: a failed one aborts, so that libFuzzer reports the input and keeps it */

FUZZ_HELPER FUZZ_NORETURN void fuzz_check_failed(const char *file, int line, const char *cond) {
    const char *base = strrchr(file, '/'); /* the target's name, as its messages always had */
    fprintf(stderr, "%s:%d: check failed: %s\n", base ? base + 1 : file, line, cond);
    abort();
}

#define CHECK(cond)                                                                          \
    do {                                                                                     \
        if (!(cond)) fuzz_check_failed(__FILE__, __LINE__, #cond);                           \
    } while (0)

/* An error as every call leaves it: its own result, a NUL-terminated message, and a message
   when it failed. */
FUZZ_HELPER void fuzz_check_error(cres_result r, const cres_error *err) {
    CHECK(err->result == r);
    CHECK(memchr(err->message, '\0', sizeof err->message) != NULL);
    if (r != CRES_OK) CHECK(err->message[0] != '\0');
}

/* The same, for the environment targets, whose hooks could hand back a code of their own:
   the result must also be one the library defines. */
FUZZ_HELPER void fuzz_check_known_error(cres_result r, const cres_error *err) {
    CHECK((int)r >= 0 && r < CRES_RESULT_COUNT);
    fuzz_check_error(r, err);
}

/* A resolve over fuzzed HTTP answers failed: with a message, a result of `allowed` (ended by
   CRES_OK) and an http_status of `statuses` (ended by 0) exactly for CRES_ERR_HTTP_STATUS.
   The lists are the target's: which errors and statuses its answers can cause. */
FUZZ_HELPER void fuzz_check_answer_failure(cres_result r, const cres_error *err,
                                           const cres_result *allowed, const int *statuses) {
    int known = 0, answered = 0;
    fuzz_check_error(r, err);
    for (; *allowed != CRES_OK; allowed++) known |= r == *allowed;
    CHECK(known);
    if (r != CRES_ERR_HTTP_STATUS) {
        CHECK(err->http_status == 0);
        return;
    }
    for (; *statuses; statuses++) answered |= err->http_status == *statuses;
    CHECK(answered);
}

/* ---------------------------------------------------------------------------------------
   The input */

/* data[skip..size) as a C string (a NUL inside ends it early, as it would a variable); NULL
   when out of memory. */
FUZZ_HELPER char *fuzz_text(const uint8_t *data, size_t size, size_t skip) {
    char *text = (char *)malloc(size - skip + 1);
    if (!text) return NULL;
    memcpy(text, data + skip, size - skip);
    text[size - skip] = '\0';
    return text;
}

/* s[0..n) as a C string (strndup is not C99). */
FUZZ_HELPER char *fuzz_dup_n(const char *s, size_t n) {
    char *p = (char *)malloc(n + 1);
    CHECK(p != NULL);
    memcpy(p, s, n);
    p[n] = '\0';
    return p;
}

/* data[start..size) cut at 0xFF bytes into at most max parts, the last keeping any later
   0xFF: the HTTP targets' bodies. A part the input does not reach is empty. Returns how many
   parts the input holds (start <= size: at least one). */
FUZZ_HELPER size_t fuzz_split(const uint8_t *data, size_t size, size_t start, const uint8_t **part,
                              size_t *len, size_t max) {
    size_t i, found = 0;
    for (i = 0; i < max; i++) {
        part[i] = (const uint8_t *)"";
        len[i] = 0;
    }
    for (i = 0; i < max && start <= size; i++) {
        const uint8_t *cut = i + 1 < max ? memchr(data + start, 0xFF, size - start) : NULL;
        size_t end = cut ? (size_t)(cut - data) : size;
        part[i] = data + start;
        len[i] = end - start;
        found = i + 1;
        if (!cut) break;
        start = end + 1;
    }
    return found;
}

/* A decimal integer as the library reads one (-?[0-9]+ that fits); *ok is 0 for anything
   else, NULL (an unset variable) too. */
FUZZ_HELPER long long fuzz_decimal(const char *s, int *ok) {
    long long v = 0;
    *ok = s && cres__parse_decimal(s, strlen(s), &v) == 1;
    return v;
}

FUZZ_HELPER int fuzz_cmp_str_ptr(const void *x, const void *y) {
    return strcmp(*(char *const *)x, *(char *const *)y);
}

/* ---------------------------------------------------------------------------------------
   The environment a target reads from its input, behind the getenv hook */

#define FUZZ_MAX_VARS 64

typedef struct fuzz_env {
    const char *name[FUZZ_MAX_VARS];
    const char *value[FUZZ_MAX_VARS];
    size_t count;
} fuzz_env;

FUZZ_HELPER const char *fuzz_env_get(const fuzz_env *e, const char *name) {
    size_t i;
    for (i = 0; i < e->count; i++)
        if (strcmp(e->name[i], name) == 0) return e->value[i];
    return NULL;
}

/* Set to something other than blanks, as the library means it. */
FUZZ_HELPER int fuzz_env_set(const fuzz_env *e, const char *name) {
    const char *v = fuzz_env_get(e, name);
    return v && !cres__is_blank(v);
}

/* The environment targets' input after its selector byte: with a task option, byte 1 is the
   task id (a signed byte); the rest is the variables' text, NUL-terminated, and *end is one
   past its last byte (it may hold NULs of its own). NULL when the input is too short for
   the task id or memory runs out. */
FUZZ_HELPER char *fuzz_task_and_text(const uint8_t *data, size_t size, int with_task,
                                     int *task_id, char **end) {
    size_t skip = 1;
    char *text;
    if (with_task) {
        if (size < 2) return NULL;
        *task_id = (signed char)data[1];
        skip = 2;
    }
    text = fuzz_text(data, size, skip);
    if (text) *end = text + (size - skip);
    return text;
}

/* Auto's work bound: a Slurm step, or a world one of `sizes` counts, past limit tasks (the
   spec would be built in every run, which only slows the search). */
FUZZ_HELPER int fuzz_env_too_big(const fuzz_env *e, const char *const *sizes, size_t limit) {
    const char *nodes = fuzz_env_get(e, "SLURM_STEP_NODELIST");
    size_t k, count = 0;
    int ok;
    cres_error ignored;
    for (k = 0; sizes[k]; k++)
        if (fuzz_decimal(fuzz_env_get(e, sizes[k]), &ok) > (long long)limit && ok) return 1;
    return nodes && cres_hostlist_expand(nodes, NULL, 0, NULL, &count, &ignored) == CRES_OK &&
           count > limit;
}

/* Auto answered "local": unless CLUSTER_RESOLVER_BACKEND forced that, it detected nothing, so
   none of `triggers` (each a sign of another backend) may be set. */
FUZZ_HELPER void fuzz_check_auto_local(const fuzz_env *e, const char *const *triggers) {
    const char *forced = fuzz_env_get(e, "CLUSTER_RESOLVER_BACKEND");
    if (forced && *forced && strcmp(forced, "auto") != 0) return;
    for (; *triggers; triggers++) CHECK(!fuzz_env_set(e, *triggers));
}

/* ---------------------------------------------------------------------------------------
   Creating a backend with an own task */

/* Clears x, a backend's options, and gives it config and the task of o, the target's own
   options: what the environment targets give every backend they create. A macro, because
   each backend has an options struct of its own. */
#define FUZZ_TASK_OPTIONS(x, cfg, o)                                                         \
    do {                                                                                     \
        memset(&(x), 0, sizeof(x));                                                          \
        (x).config = (cfg);                                                                  \
        (x).task_type = (o)->task_type;                                                      \
        (x).task_id = (o)->task_id;                                                          \
        (x).rpc_layer = (o)->rpc_layer;                                                      \
    } while (0)

/* ---------------------------------------------------------------------------------------
   Hooks that keep a run inside the process */

/* Returns at once; the fixed clock moves on by ms (a Kubernetes wait still ends). */
FUZZ_HELPER void fuzz_no_sleep(void *user, int ms) {
    (void)user;
    if (ms > 0) fuzz_clock_ms += ms;
}

FUZZ_HELPER const char *fuzz_no_environment(void *user, const char *name) {
    (void)user, (void)name;
    return NULL;
}

/* For backends that might reach for the network (auto's HTTP ones): there is none. */
FUZZ_HELPER cres_result fuzz_failing_perform(void *user, const cres_http_request *req,
                                             cres_http_response *resp, const cres_allocator *alloc,
                                             cres_error *err) {
    (void)user, (void)req, (void)resp, (void)alloc;
    return cres_error_set(err, CRES_ERR_TRANSPORT, "fuzz transport: no network here");
}

FUZZ_HELPER void fuzz_check_log(void *user, cres_log_level level, const char *message) {
    (void)user;
    CHECK(level >= CRES_LOG_DEBUG && level <= CRES_LOG_ERROR);
    CHECK(message != NULL);
    CHECK(strlen(message) < 65536);
}

/* A config whose only hook is getenv, answered by fn(user, name): for the backends that read
   variables and files and make no request, so the library's defaults serve for the rest. */
FUZZ_HELPER void fuzz_getenv_config(cres_config *config, cres_getenv_fn fn, void *user) {
    fuzz_clock_ms = 0;
    memset(config, 0, sizeof *config);
    config->getenv.fn = fn;
    config->getenv.user = user;
}

/* An allocator that counts what is live, so a run can check that all was freed (beyond
   ASan's leak check, which reports only at exit). */
typedef struct fuzz_counter {
    long long live;
} fuzz_counter;

FUZZ_HELPER void *fuzz_count_alloc(void *user, size_t size) {
    fuzz_counter *c = (fuzz_counter *)user;
    void *p;
    CHECK(size > 0); /* the allocator contract: never 0 bytes */
    p = malloc(size);
    if (p) c->live++;
    return p;
}

FUZZ_HELPER void fuzz_count_free(void *user, void *p) {
    fuzz_counter *c = (fuzz_counter *)user;
    CHECK(p != NULL); /* never NULL */
    c->live--;
    free(p);
}

/* The environment targets' config: allocations counted in *count, no network, no sleeping,
   logs checked, no retries, short timeouts. The getenv and env_list hooks are the target's. */
FUZZ_HELPER void fuzz_offline_config(cres_config *config, fuzz_counter *count) {
    fuzz_clock_ms = 0;
    memset(config, 0, sizeof *config);
    config->allocator.alloc = fuzz_count_alloc;
    config->allocator.free = fuzz_count_free;
    config->allocator.user = count;
    config->transport.perform = fuzz_failing_perform;
    config->sleep.fn = fuzz_no_sleep;
    config->log.fn = fuzz_check_log;
    config->max_retries = -1;
    config->timeout_ms = 1000;
    config->resolve_timeout_ms = 1000;
}

/* ---------------------------------------------------------------------------------------
   Canned HTTP answers: the HTTP targets' fake servers */

/* The answer a transport hands over: status, and body copied into memory of the library's
   allocator (the library frees it), NUL-terminated. */
FUZZ_HELPER cres_result fuzz_answer(cres_http_response *resp, const cres_allocator *alloc,
                                    int status, const void *body, size_t len) {
    resp->status = status;
    resp->body = (char *)(alloc->alloc ? alloc->alloc(alloc->user, len + 1) : malloc(len + 1));
    if (!resp->body) return CRES_ERR_OUT_OF_MEMORY;
    if (len) memcpy(resp->body, body, len);
    resp->body[len] = '\0';
    resp->body_len = len;
    return CRES_OK;
}

/* A config whose requests go to perform(user, ...): no retries (a fuzzed 500 is answered
   once), no sleeping, no environment. */
FUZZ_HELPER void fuzz_canned_config(cres_config *config,
                                    cres_result (*perform)(void *, const cres_http_request *,
                                                           cres_http_response *,
                                                           const cres_allocator *, cres_error *),
                                    void *user) {
    fuzz_clock_ms = 0;
    memset(config, 0, sizeof *config);
    config->transport.perform = perform;
    config->transport.user = user;
    config->max_retries = -1;
    config->sleep.fn = fuzz_no_sleep;
    config->getenv.fn = fuzz_no_environment;
}

/* ---------------------------------------------------------------------------------------
   Files, for the backends that read one (at create)

   A target's files live in a directory of its own process (mkdtemp in /tmp, removed with
   everything in it at exit), which the library is given as FUZZ_DIR: /proc/self/fd/N names
   it through a descriptor kept at that number, so every path, and every message or log line
   quoting one, is the same in every process (Linux). */

#define FUZZ_DIR_FD 250
#define FUZZ_DIR "/proc/self/fd/250"

static char fuzz_dir_real[64];

FUZZ_HELPER void fuzz_remove_tree(const char *path) {
    struct stat st;
    DIR *d;
    struct dirent *e;
    char sub[4096];
    if (lstat(path, &st) != 0) return;
    if (S_ISDIR(st.st_mode) && (d = opendir(path)) != NULL) {
        while ((e = readdir(d)) != NULL) {
            if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0) continue;
            snprintf(sub, sizeof sub, "%s/%s", path, e->d_name);
            fuzz_remove_tree(sub);
        }
        closedir(d);
    }
    remove(path);
}

FUZZ_HELPER void fuzz_dir_remove(void) {
    fuzz_remove_tree(fuzz_dir_real);
}

/* FUZZ_DIR, made on the first call: the path of a file in it is FUZZ_DIR "/name". */
FUZZ_HELPER const char *fuzz_dir(void) {
    int fd;
    if (fuzz_dir_real[0]) return FUZZ_DIR;
    snprintf(fuzz_dir_real, sizeof fuzz_dir_real, "/tmp/fuzz-files.XXXXXX");
    CHECK(mkdtemp(fuzz_dir_real) != NULL);
    atexit(fuzz_dir_remove);
    fd = open(fuzz_dir_real, O_RDONLY | O_DIRECTORY);
    CHECK(fd >= 0 && dup2(fd, FUZZ_DIR_FD) == FUZZ_DIR_FD);
    close(fd);
    return FUZZ_DIR;
}

/* Writes n bytes to path, replacing what it held. */
FUZZ_HELPER void fuzz_write_file(const char *path, const void *bytes, size_t n) {
    FILE *f = fopen(path, "wb");
    CHECK(f != NULL);
    CHECK(fwrite(bytes, 1, n, f) == n);
    CHECK(fclose(f) == 0);
}

/* ---------------------------------------------------------------------------------------
   Specs */

FUZZ_HELPER size_t fuzz_spec_tasks(const cres_cluster_spec *s) {
    size_t i, n = 0;
    for (i = 0; i < cres_spec_jobs_count(s); i++) n += cres_spec_job_at(s, i)->tasks_count;
    return n;
}

/* The tasks that take a rank: all but TF's "evaluator", which runs outside the cluster. */
FUZZ_HELPER size_t fuzz_spec_ranked_tasks(const cres_cluster_spec *s) {
    const cres_job *evaluator = cres_spec_job(s, "evaluator");
    return fuzz_spec_tasks(s) - (evaluator ? evaluator->tasks_count : 0);
}

/* The spec's JSON, written after a length query, reads back to an equal spec. */
FUZZ_HELPER void fuzz_check_round_trip(const cres_cluster_spec *spec) {
    cres_cluster_spec *again = NULL;
    cres_error err;
    size_t len = 0;
    char *text;
    CHECK(cres_spec_to_json(spec, NULL, 0, &len, &err) == CRES_OK);
    text = (char *)malloc(len + 1);
    CHECK(text != NULL);
    CHECK(cres_spec_to_json(spec, text, len + 1, NULL, &err) == CRES_OK);
    CHECK(strlen(text) == len);
    CHECK(cres_spec_from_json(text, len, NULL, &again, &err) == CRES_OK);
    CHECK(cres_spec_equal(spec, again));
    cres_spec_free(again);
    free(text);
}

/* Resolving again gives an equal spec (a fake server is rewound to the same answers first). */
FUZZ_HELPER void fuzz_check_resolves_again(cres_resolver *r, const cres_cluster_spec *spec) {
    cres_cluster_spec *again = NULL;
    cres_error err;
    CHECK(cres_resolve(r, &again, &err) == CRES_OK);
    CHECK(cres_spec_equal(spec, again));
    cres_spec_free(again);
}

/* The own task, when found, is a task of spec, and master() gives its address. master()
   resolves again: the caller has rewound its fake server to the same answers. */
FUZZ_HELPER void fuzz_check_own_task(cres_resolver *r, const cres_cluster_spec *spec) {
    const char *type = cres_task_type(r), *address;
    char master[2048];
    cres_error err;
    CHECK(cres_master_of(r, NULL, -1, "", master, sizeof master, NULL, &err) == CRES_OK);
    if (!type) {
        CHECK(cres_task_id(r) == -1);
        CHECK(master[0] == '\0');
        return;
    }
    address = cres_spec_task_address(spec, type, cres_task_id(r));
    CHECK(address != NULL);
    CHECK(strcmp(master, address) == 0);
}

/* A launch info's master_address reads back (the library's own address reader) as its
   master_host and master_port. */
FUZZ_HELPER void fuzz_check_master_reads_back(const cres_launch_info *i) {
    const char *host;
    size_t host_len;
    int port = -2;
    CHECK(cres__split_address(i->master_address, &host, &host_len, &port));
    CHECK(host_len == strlen(i->master_host) && memcmp(host, i->master_host, host_len) == 0);
    CHECK(port == i->master_port);
}

/* ---------------------------------------------------------------------------------------
   The model of an MPI hostfile as the manual's mpi backend describes options.hostfile:
   fuzz_hostfile checks the parser against it, fuzz_sched_files the schedulers' hostfiles */

#define FUZZ_MAX_SLOTS 1000000LL /* a host's slots, and a count, are 1..FUZZ_MAX_SLOTS */

/* The blanks between the words of a line. */
FUZZ_HELPER int fuzz_model_blank(char c) {
    return c == ' ' || c == '\t' || c == '\r';
}

/* N of "slots=N" or "host:N" (s[0..n)): digits only, leading zeros allowed (as the library's
   decimal reader takes them), 1..FUZZ_MAX_SLOTS. */
FUZZ_HELPER int fuzz_model_count(const char *s, size_t n, long long *out) {
    long long v = 0;
    size_t i;
    if (!n) return 0;
    for (i = 0; i < n; i++) {
        if (s[i] < '0' || s[i] > '9') return 0;
        if (v <= FUZZ_MAX_SLOTS) v = v * 10 + (s[i] - '0');
    }
    if (v < 1 || v > FUZZ_MAX_SLOTS) return 0;
    *out = v;
    return 1;
}

/* "key=N" or "key:N". */
FUZZ_HELPER int fuzz_model_keyed_count(const char *word, const char *key, long long *out) {
    size_t k = strlen(key);
    return strncmp(word, key, k) == 0 && (word[k] == '=' || word[k] == ':') &&
           fuzz_model_count(word + k + 1, strlen(word + k + 1), out);
}

/* A host name the readers take: 1..255 bytes of UTF-8 without blanks or control characters. */
FUZZ_HELPER int fuzz_model_host_name(const char *host) {
    return *host && strlen(host) <= CRES_MAX_NAME_LENGTH && !cres__bad_text(host, 1);
}

/* One line (no '\n') of a hostfile: "host", "host slots=N [max_slots=M]" or "host:N" (more
   ':' make it an IPv6 literal), max_slots / max-slots accepted and ignored, any other word an
   error, '#' to the end a comment. Cuts line in place. Returns -1 for a line that names no
   host, 0 for an invalid one, else 1 with *host (in line) and *slots (1 when not given). */
FUZZ_HELPER int fuzz_model_hostfile_line(char *line, char **host, long long *slots) {
    char *p, *hash = strchr(line, '#'), *colon, *word;
    long long ignored;
    if (hash) *hash = '\0';
    for (p = line; fuzz_model_blank(*p); p++) {}
    if (!*p) return -1;
    *host = p;
    while (*p && !fuzz_model_blank(*p)) p++;
    if (*p) *p++ = '\0';
    *slots = 1;
    colon = strchr(*host, ':');
    if (colon && !strchr(colon + 1, ':')) {
        if (!fuzz_model_count(colon + 1, strlen(colon + 1), slots)) return 0;
        *colon = '\0';
    }
    if (!fuzz_model_host_name(*host)) return 0;
    for (;;) {
        while (fuzz_model_blank(*p)) p++;
        if (!*p) return 1;
        word = p;
        while (*p && !fuzz_model_blank(*p)) p++;
        if (*p) *p++ = '\0';
        if (fuzz_model_keyed_count(word, "slots", slots)) continue;
        if (fuzz_model_keyed_count(word, "max_slots", &ignored)) continue;
        if (fuzz_model_keyed_count(word, "max-slots", &ignored)) continue;
        return 0; /* any other word */
    }
}

#endif
