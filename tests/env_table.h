/* What the environment backends' unit tests (test_hpc.c, test_launch.c, test_platforms.c,
   test_sched.c) give the library to read: the process environment as a table behind the
   cres_config.getenv hook (and, where a test hooks it, the env_list hook), the config `cfg`
   that carries the hooks, a log capture, and temporary files for the paths the
   environment names. The tests never call setenv: the table is the whole environment.

   Values set with env_set() are borrowed (string literals); env_lines() and env_setf()
   copy into the pool, which lives until env_reset(). Include with _POSIX_C_SOURCE
   200809L defined first (mkstemp, mkdtemp). Each helper is TEST_HELPER: a file that does
   not use one is not warned about it. tests/fuzz/fixture_seeds.py replays the tests with
   these helpers, but for env_set() and its kin and temp_file(), which it models. */
#ifndef CRES_ENV_TABLE_H
#define CRES_ENV_TABLE_H

#include "test_util.h"

#include <unistd.h>

/* ---------------------------------------------------------------------------------------
   The environment table */

#define ENV_MAX 128
#define ENV_ENTRY_SIZE 2048
typedef struct env_table {
    const char *names[ENV_MAX];
    const char *values[ENV_MAX];
    size_t count;
    char pool[32768];
    size_t used;
    char entries[ENV_MAX][ENV_ENTRY_SIZE]; /* "NAME=VALUE", as env_list hands them out */
    size_t listed;                         /* calls of the env_list hook */
    size_t asked;                          /* calls of the getenv hook */
} env_table;

static env_table env;

TEST_HELPER const char *table_getenv(void *user, const char *name) {
    env_table *t = (env_table *)user;
    size_t i;
    t->asked++;
    for (i = 0; i < t->count; i++)
        if (strcmp(t->names[i], name) == 0) return t->values[i];
    return NULL;
}

/* The index-th variable as "NAME=VALUE"; NULL past the last. Each index has its own slot,
   so every string handed out stays valid until the table changes. */
TEST_HELPER const char *table_env_at(void *user, size_t index) {
    env_table *t = (env_table *)user;
    int n;
    t->listed++;
    if (index >= t->count) return NULL;
    n = snprintf(t->entries[index], ENV_ENTRY_SIZE, "%s=%s", t->names[index], t->values[index]);
    assert_true(n > 0 && n < ENV_ENTRY_SIZE);
    return t->entries[index];
}

/* Empties the table and its pool; the hook counters run on (a test that reads them zeroes
   them in its setup). */
TEST_HELPER void env_reset(void) {
    env.count = 0;
    env.used = 0;
}

/* Sets (or, with value NULL, removes) a variable. */
TEST_HELPER void env_set(const char *name, const char *value) {
    size_t i;
    for (i = 0; i < env.count; i++) {
        if (strcmp(env.names[i], name) != 0) continue;
        if (value) {
            env.values[i] = value;
        } else {
            env.count--;
            env.names[i] = env.names[env.count];
            env.values[i] = env.values[env.count];
        }
        return;
    }
    if (!value) return;
    assert_true(env.count < ENV_MAX);
    env.names[env.count] = name;
    env.values[env.count++] = value;
}

TEST_HELPER void env_unset(const char *name) { env_set(name, NULL); }

TEST_HELPER char *pool_copy(const char *s, size_t n) {
    char *p = env.pool + env.used;
    assert_true(env.used + n + 1 <= sizeof env.pool);
    memcpy(p, s, n);
    p[n] = '\0';
    env.used += n + 1;
    return p;
}

TEST_HELPER void env_setf(const char *name, const char *fmt, ...) {
    char buf[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    env_set(pool_copy(name, strlen(name)), pool_copy(buf, strlen(buf)));
}

/* "NAME=value" lines, as `env` prints them; blank lines are skipped. */
TEST_HELPER void env_lines(const char *text) {
    while (*text) {
        const char *eol = strchr(text, '\n'), *eq;
        size_t n = eol ? (size_t)(eol - text) : strlen(text);
        eq = (const char *)memchr(text, '=', n);
        if (n) {
            size_t name_len;
            assert_non_null(eq);
            name_len = (size_t)(eq - text);
            env_set(pool_copy(text, name_len), pool_copy(eq + 1, n - name_len - 1));
        }
        text += n + (eol ? 1 : 0);
    }
}

/* Open MPI's variables for one rank of `size`, local rank `local` of `local_size` on its
   node, as mpirun gives them. */
TEST_HELPER void ompi_rank(int rank, int size, int local, int local_size) {
    env_setf("OMPI_COMM_WORLD_RANK", "%d", rank);
    env_setf("OMPI_COMM_WORLD_SIZE", "%d", size);
    env_setf("OMPI_COMM_WORLD_LOCAL_RANK", "%d", local);
    env_setf("OMPI_COMM_WORLD_LOCAL_SIZE", "%d", local_size);
    env_setf("OMPI_COMM_WORLD_NODE_RANK", "%d", local);
    env_setf("PMIX_RANK", "%d", rank);
}

/* ---------------------------------------------------------------------------------------
   The config the tests' options point at */

static cres_config cfg;

/* cfg zeroed, its getenv hook on the table. The env_list hook stays zero (the process
   environment) unless the file adds env_list_config(), as test_platforms.c does: the other
   files' tests run, as they were written, with the process environment listed. */
TEST_HELPER void env_config(void) {
    memset(&cfg, 0, sizeof cfg);
    cfg.getenv.fn = table_getenv;
    cfg.getenv.user = &env;
}

TEST_HELPER void env_list_config(void) {
    cfg.env_list.fn = table_env_at;
    cfg.env_list.user = &env;
}

/* ---------------------------------------------------------------------------------------
   The log: every line the library writes, "LEVEL message\n" */

typedef struct log_capture {
    char text[8192];
    size_t used;
} log_capture;

static log_capture logs;

TEST_HELPER void capture_log(void *user, cres_log_level level, const char *message) {
    static const char *const names[] = {"DEBUG", "INFO", "WARN", "ERROR"};
    log_capture *l = (log_capture *)user;
    size_t room = sizeof l->text - l->used;
    int n = snprintf(l->text + l->used, room, "%s %s\n", names[level], message);
    if (n > 0) l->used += (size_t)n < room ? (size_t)n : room - 1;
}

/* An empty log, and cfg's log hook on it. */
TEST_HELPER void log_config(void) {
    memset(&logs, 0, sizeof logs);
    cfg.log.fn = capture_log;
    cfg.log.user = &logs;
}

/* ---------------------------------------------------------------------------------------
   Temporary files and directories of a group, removed at its end by remove_temp_files().
   Named TEMP_PREFIX "XXXXXX": an including file may name them after itself, so that a
   leftover file says whose it is. */

#ifndef TEMP_PREFIX
#define TEMP_PREFIX "/tmp/cres_test_"
#endif

static char temp_paths[160][64];
static size_t temp_count;
static char temp_dirs[4][64];
static size_t temp_dir_count;

/* A file of n bytes (content may hold NUL bytes). */
TEST_HELPER const char *temp_file_n(const char *content, size_t n) {
    char *path;
    int fd;
    assert_true(temp_count < sizeof temp_paths / sizeof temp_paths[0]);
    path = temp_paths[temp_count];
    snprintf(path, sizeof temp_paths[0], TEMP_PREFIX "XXXXXX");
    fd = mkstemp(path);
    assert_true(fd >= 0);
    temp_count++;
    assert_int_equal(write(fd, content, n), (long)n);
    close(fd);
    return path;
}

TEST_HELPER const char *temp_file(const char *content) {
    return temp_file_n(content, strlen(content));
}

/* A directory: a path that opens but cannot be read as a file. */
TEST_HELPER const char *temp_dir(void) {
    char *path;
    assert_true(temp_dir_count < sizeof temp_dirs / sizeof temp_dirs[0]);
    path = temp_dirs[temp_dir_count];
    snprintf(path, sizeof temp_dirs[0], TEMP_PREFIX "dir_XXXXXX");
    assert_non_null(mkdtemp(path));
    temp_dir_count++;
    return path;
}

TEST_HELPER int remove_temp_files(void **state) {
    size_t i;
    (void)state;
    for (i = 0; i < temp_count; i++) unlink(temp_paths[i]);
    for (i = 0; i < temp_dir_count; i++) rmdir(temp_dirs[i]);
    temp_count = temp_dir_count = 0;
    return 0;
}

#endif
