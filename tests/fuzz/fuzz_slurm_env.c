/* libFuzzer target: the Slurm resolver over a fuzzed environment, served through
   cres_config.getenv (the process environment is never touched).

   The input is up to 4096 bytes of '|'-separated fields, in this order:
      0 SLURM_STEP_NODELIST        5 SLURM_DIST_PLANESIZE     10 options "P,G,T": port_base,
      1 SLURM_STEP_TASKS_PER_NODE  6 SLURM_NODEID                gpus_per_node, gpus_per_task
      2 SLURM_PROCID               7 SLURM_LOCALID            11 SLURM_JOB_ID
      3 SLURM_STEP_NUM_TASKS       8 CUDA_VISIBLE_DEVICES     12 SLURMD_NODENAME
      4 SLURM_DISTRIBUTION         9 jobs "name=count,..."    13 SLURM_JOB_NODELIST
                                     (options.jobs)           14 SLURM_TASKS_PER_NODE
                                                              15 SLURM_GPUS_ON_NODE
   A missing field, or one that is exactly "~", is an unset variable (jobs: NULL, the
   default; an empty jobs field is a list of no jobs). Every other variable is unset.

   A failed create is CRES_ERR_ENVIRONMENT, _LIMIT, _UNSUPPORTED or _INVALID_ARGUMENT (never
   out of memory here) with a message and no resolver. A successful one is checked against a
   model of the step written here from the manual (hosts from cres_hostlist_expand, counts
   from cres_tasks_per_node_expand, ranks dealt block / cyclic / plane, jobs "chief" first
   then by name): every task's address is "<its node>:<port_base + its index on the node>"
   with a port in 1..65535 that the library's own address reader reads back; the task count
   is SLURM_STEP_NUM_TASKS; the own task is SLURM_PROCID's and is in the spec, where
   cres_spec_launch_info gives it rank SLURM_PROCID; SLURM_NODEID / SLURM_LOCALID, when set,
   agree with the deal; cres_master, cres_visible_devices (length query, real buffer, short
   buffer) and cres_num_accelerators agree with the model's GPU assignment: a list split
   among each node's tasks (the caller's count each, else the node's share) only when the
   options or SLURM_GPUS_ON_NODE say it is the node's, else passed on as it is (visible
   devices ""). Without a step the cluster is the job's
   allocation (SLURM_JOB_NODELIST, SLURM_TASKS_PER_NODE) and there is no own task.

   Host names follow tests/fuzz/host_model.h (IPv6 literals bracketed, names with ':' refused);
   job counts near INT_MAX must not overflow the rank sum (they did, before the total was
   checked first).

   Inputs whose hostlist expands past 200000 hosts or whose SLURM_STEP_NUM_TASKS is over
   200000 are skipped (the library's million-host limit is exercised by fuzz_hostlist;
   building a million-task spec per run would only make the fuzzer slow), so a run stays
   well under libFuzzer's default -rss_limit_mb=2048.

   clang -g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined \
         tests/fuzz/fuzz_slurm_env.c -o build/fuzz_slurm_env
   build/fuzz_slurm_env -max_len=4096 tests/fuzz/corpus/slurm_env */

#include <limits.h>

#include "fuzz_common.h"
#include "host_model.h"

#define MAX_INPUT_BYTES 4096
#define MAX_HOSTS 200000
#define MAX_JOBS 2048
#define MAX_GPUS 4096
/* The model deals rank by rank over rounds of nodes; past this much work it is skipped. */
#define MAX_MODEL_WORK 4000000LL

enum { F_NODELIST, F_TPN, F_PROCID, F_NUM_TASKS, F_DIST, F_PLANE, F_NODEID, F_LOCALID, F_CUDA, F_JOBS, F_OPTIONS,
       F_JOB_ID, F_NODENAME, F_JOB_NODELIST, F_JOB_TPN, F_GPUS_ON_NODE, FIELDS };

static const char *const variables[FIELDS] = {
    "SLURM_STEP_NODELIST", "SLURM_STEP_TASKS_PER_NODE", "SLURM_PROCID", "SLURM_STEP_NUM_TASKS", "SLURM_DISTRIBUTION",
    "SLURM_DIST_PLANESIZE", "SLURM_NODEID", "SLURM_LOCALID", "CUDA_VISIBLE_DEVICES", NULL, NULL, "SLURM_JOB_ID",
    "SLURMD_NODENAME", "SLURM_JOB_NODELIST", "SLURM_TASKS_PER_NODE", "SLURM_GPUS_ON_NODE"};

typedef struct env {
    const char *v[FIELDS]; /* NULL = unset */
} env;

static const char *fuzz_getenv(void *user, const char *name) {
    const env *e = (const env *)user;
    size_t i;
    for (i = 0; i < FIELDS; i++)
        if (variables[i] && strcmp(variables[i], name) == 0) return e->v[i];
    return NULL;
}

/* ---------------------------------------------------------------------------------------
   Reading the input */

/* strtol clamped to int: the options field may hold anything. */
static int clamp_int(const char *s) {
    long long v = strtoll(s, NULL, 10);
    if (v > INT_MAX) return INT_MAX;
    if (v < INT_MIN) return INT_MIN;
    return (int)v;
}

typedef struct jobs {
    cres_job_count items[MAX_JOBS];
    size_t count;
    int given;
} jobs;

/* "name=count,name=count"; an item without '=' has count -1. Names point into text. */
static void parse_jobs(char *text, jobs *j) {
    char *p = text;
    j->count = 0;
    j->given = 1;
    if (!*p) return;
    while (p && j->count < MAX_JOBS) {
        char *comma = strchr(p, ','), *eq;
        if (comma) *comma = '\0';
        eq = strchr(p, '=');
        j->items[j->count].job = p;
        j->items[j->count].count = -1;
        if (eq) {
            *eq = '\0';
            j->items[j->count].count = clamp_int(eq + 1);
        }
        j->count++;
        p = comma ? comma + 1 : NULL;
    }
}

/* ---------------------------------------------------------------------------------------
   The model */

typedef struct model {
    char *names;        /* hostlist text, '\n' after each */
    char **hosts;
    int *tasks;
    size_t nodes;
    long long ntasks;
    int rank;           /* -1: no own task (no step) */
    int *node, *local;  /* per rank; NULL when the deal was too much work to model */
    int max_tasks;
    int port_base;
    int gpus_per_task;   /* the caller's when split, else the kept list's length */
    int split;           /* the node's GPUs are split among its tasks */
    int node_gpus;       /* then: a node's GPUs */
    const char *devices; /* CUDA_VISIBLE_DEVICES when it is the source, else NULL */
    int kept;            /* the list is passed on as it is: visible devices "" */
} model;

static void model_free(model *m) {
    free(m->names);
    free(m->hosts);
    free(m->tasks);
    free(m->node);
    free(m->local);
}

static int cmp_job_count(const void *x, const void *y) {
    const cres_job_count *a = (const cres_job_count *)x, *b = (const cres_job_count *)y;
    int ca = strcmp(a->job, "chief") == 0, cb = strcmp(b->job, "chief") == 0;
    if (ca != cb) return ca ? -1 : 1;
    return strcmp(a->job, b->job);
}

/* The step as the manual describes it, for a create that succeeded. */
static void model_build(model *m, const env *e) {
    int ok;
    size_t i, len = 0, count = 0;
    cres_error err;
    const int step = e->v[F_NODELIST] != NULL;
    const char *list = step ? e->v[F_NODELIST] : e->v[F_JOB_NODELIST];
    const char *tpn = step ? e->v[F_TPN] : e->v[F_JOB_TPN];
    memset(m, 0, sizeof *m);
    CHECK(list && tpn);
    CHECK(cres_hostlist_expand(list, NULL, 0, &len, &count, &err) == CRES_OK);
    m->names = (char *)malloc(len + 1);
    CHECK(m->names != NULL);
    CHECK(cres_hostlist_expand(list, m->names, len + 1, NULL, NULL, &err) == CRES_OK);
    m->nodes = count;
    if (step) {
        CHECK(e->v[F_PROCID] && e->v[F_NUM_TASKS]);
        m->rank = (int)fuzz_decimal(e->v[F_PROCID], &ok);
        CHECK(ok);
        m->ntasks = fuzz_decimal(e->v[F_NUM_TASKS], &ok);
        CHECK(ok);
    } else { /* an sbatch script or salloc shell: task 0 or none */
        CHECK(e->v[F_JOB_ID] != NULL);
        CHECK(!e->v[F_PROCID] || (fuzz_decimal(e->v[F_PROCID], &ok) == 0 && ok));
        m->rank = -1;
    }
    CHECK(m->nodes >= 1);
    m->hosts = (char **)malloc(m->nodes * sizeof *m->hosts);
    m->tasks = (int *)malloc(m->nodes * sizeof *m->tasks);
    CHECK(m->hosts && m->tasks);
    {
        char *p = m->names;
        for (i = 0; i < m->nodes; i++) {
            char *nl = strchr(p, '\n');
            CHECK(nl != NULL);
            *nl = '\0';
            m->hosts[i] = p;
            p = nl + 1;
        }
    }
    {
        size_t n = 0;
        long long sum = 0;
        CHECK(cres_tasks_per_node_expand(tpn, m->tasks, m->nodes, &n, &err) == CRES_OK);
        CHECK(n == m->nodes); /* else the tasks per node do not fit the nodes */
        for (i = 0; i < m->nodes; i++) sum += m->tasks[i];
        if (!step) m->ntasks = sum;
        CHECK(sum == m->ntasks); /* the library checks the counts add up */
        /* nodes are unique */
        {
            char **sorted = (char **)malloc(m->nodes * sizeof *sorted);
            CHECK(sorted != NULL);
            memcpy(sorted, m->hosts, m->nodes * sizeof *sorted);
            qsort(sorted, m->nodes, sizeof *sorted, fuzz_cmp_str_ptr);
            for (i = 1; i < m->nodes; i++) CHECK(strcmp(sorted[i - 1], sorted[i]) != 0);
            free(sorted);
        }
    }
    CHECK(m->rank < m->ntasks && (m->rank >= 0 || !step));
    for (i = 0; i < m->nodes; i++)
        if (m->tasks[i] > m->max_tasks) m->max_tasks = m->tasks[i];
}

/* Deals the ranks: plane p over rounds of the nodes in order (block: p = every task,
   cyclic: p = 1). Leaves node/local NULL when it would take too long. */
static void model_deal(model *m, const env *e) {
    long long step, rounds, r = 0, round;
    const char *d = e->v[F_NODELIST] ? e->v[F_DIST] : NULL; /* no step: the allocation, in blocks */
    size_t n = d ? strcspn(d, ":,") : 0, i;
    int ok;
    step = m->max_tasks ? m->max_tasks : 1; /* block */
    if (d && n == 6 && memcmp(d, "cyclic", 6) == 0) step = 1;
    else if (d && n == 5 && memcmp(d, "plane", 5) == 0) {
        CHECK(e->v[F_PLANE] != NULL);
        step = fuzz_decimal(e->v[F_PLANE], &ok);
        CHECK(ok && step >= 1);
    } else {
        /* block, or pack / nopack alone (block too); others are unsupported */
        CHECK(!d || (n == 5 && memcmp(d, "block", 5) == 0) || strcmp(d, "pack") == 0 || strcmp(d, "nopack") == 0);
    }
    rounds = (m->max_tasks + step - 1) / step;
    if (rounds * (long long)m->nodes > MAX_MODEL_WORK) return;
    m->node = (int *)malloc((size_t)(m->ntasks ? m->ntasks : 1) * sizeof *m->node);
    m->local = (int *)malloc((size_t)(m->ntasks ? m->ntasks : 1) * sizeof *m->local);
    CHECK(m->node && m->local);
    for (round = 0; round < rounds; round++) {
        for (i = 0; i < m->nodes; i++) {
            long long k;
            for (k = round * step; k < (round + 1) * step && k < m->tasks[i]; k++, r++) {
                m->node[r] = (int)i;
                m->local[r] = (int)k;
            }
        }
    }
    CHECK(r == m->ntasks);
}

/* The ids of CUDA_VISIBLE_DEVICES: -1 = not a list, 0 = none (unset, blank, "NoDevFiles",
   "-1"), else how many. */
static int cuda_ids(const char *cuda) {
    int n = 1;
    const char *p;
    if (!cuda || cres__is_blank(cuda) || strcmp(cuda, "NoDevFiles") == 0 || strcmp(cuda, "-1") == 0) return 0;
    if (strlen(cuda) > 4096) return -1;
    for (p = cuda; *p; p++) {
        if (!strchr("0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ-_:./,", *p)) return -1; /* ids, UUIDs, MIG */
        if (*p == ',' && (p == cuda || p[1] == ',' || !p[1])) return -1;
        n += *p == ',';
    }
    return n;
}

/* The GPUs per task and their source, as the manual says. A list is the node's when the
   options say so (gpus_per_node or gpus_per_task: a count takes the list's first ids, a list
   shorter than gpus_per_node is refused, no list numbers from 0) or when SLURM_GPUS_ON_NODE
   is its length; one shorter than SLURM_GPUS_ON_NODE is this task's (any option but a
   gpus_per_task of its length is refused), and any other is left as it is. A list that is
   not one of ids is refused unless no GPU is wanted. */
static void model_gpus(model *m, const env *e, const cres_slurm_options *o) {
    int per_node = o->gpus_per_node, listed = cuda_ids(e->v[F_CUDA]), on_node = -1, ok;
    int told = per_node > 0 || o->gpus_per_task > 0;
    m->devices = NULL;
    m->kept = m->split = 0;
    if (per_node == CRES_NO_GPUS) {
        m->gpus_per_task = o->gpus_per_task;
        CHECK(m->gpus_per_task == 0); /* else the create failed: no GPUs to give */
        return;
    }
    if (e->v[F_GPUS_ON_NODE]) {
        on_node = (int)fuzz_decimal(e->v[F_GPUS_ON_NODE], &ok);
        CHECK(ok && on_node >= 0 && on_node <= MAX_GPUS); /* else the create failed */
    }
    CHECK(listed >= 0); /* else the create failed */
    if (listed > 0 && on_node > listed) { /* bound to this task */
        CHECK(per_node == 0 && (o->gpus_per_task == 0 || o->gpus_per_task == listed));
        m->gpus_per_task = listed;
        m->kept = 1;
        return;
    }
    CHECK(per_node == 0 || on_node < 0 || on_node == per_node);
    CHECK(listed == 0 || listed >= per_node);
    if (!told && !(listed > 0 && on_node == listed)) { /* nobody says: left as it is */
        m->gpus_per_task = listed;
        m->kept = 1;
        return;
    }
    m->split = 1;
    m->node_gpus = per_node ? per_node : listed;
    if (listed > 0) m->devices = e->v[F_CUDA];
    m->gpus_per_task = o->gpus_per_task;
    CHECK((long long)m->gpus_per_task * m->max_tasks <= m->node_gpus);
}

/* Rank r's GPU count: the caller's, else its node's share; -1 when the deal was not modelled. */
static int model_task_gpus(const model *m, int r) {
    if (!m->split || m->gpus_per_task) return m->gpus_per_task;
    return m->node ? m->node_gpus / m->tasks[m->node[r]] : -1;
}

/* Rank r's device list: ids k*g .. k*g+g-1 of its node's list, k its index there. */
static void model_devices(const model *m, int r, char *out, size_t cap) {
    int i, g = model_task_gpus(m, r), local = m->local[r];
    size_t o = 0;
    out[0] = '\0';
    if (m->kept) return;
    for (i = local * g; i < (local + 1) * g; i++) {
        char number[32];
        const char *item = number;
        size_t n;
        if (m->devices) {
            int skip = i;
            item = m->devices;
            while (skip-- > 0) {
                item = strchr(item, ',');
                CHECK(item != NULL);
                item++;
            }
            n = strcspn(item, ",");
        } else {
            n = (size_t)snprintf(number, sizeof number, "%d", i);
        }
        CHECK(o + n + 2 <= cap);
        if (i > local * g) out[o++] = ',';
        memcpy(out + o, item, n);
        o += n;
        out[o] = '\0';
    }
}

/* ---------------------------------------------------------------------------------------
   Checks */

/* host:port with port in 1..65535 as the model writes it, read back the same way by the
   library's reader. */
static void check_address(const char *address, const char *want_host, int want_port) {
    const char *colon = strrchr(address, ':'), *host;
    char want[300];
    size_t host_len;
    int port = -1, ok;
    long long p;
    CHECK(colon != NULL && colon > address);
    p = fuzz_decimal(colon + 1, &ok);
    CHECK(ok && p >= 1 && p <= 65535);
    if (want_host) {
        CHECK(model_host_address(want_host, want_port, want, sizeof want)); /* accepted: the model must agree */
        CHECK(strcmp(address, want) == 0);
    }
    CHECK(cres__split_address(address, &host, &host_len, &port));
    CHECK(port == (int)p);
}

static void check_devices(cres_resolver *res, const char *type, int id, const char *want) {
    size_t len = 0, len2 = 0;
    char *buf, small[4];
    cres_error err;
    cres_result r = cres_visible_devices_of(res, type, id, NULL, 0, &len, &err);
    fuzz_check_error(r, &err);
    CHECK(r == CRES_OK);
    buf = (char *)malloc(len + 1);
    CHECK(buf != NULL);
    r = cres_visible_devices_of(res, type, id, buf, len + 1, &len2, &err);
    fuzz_check_error(r, &err);
    CHECK(r == CRES_OK);
    CHECK(len2 == len && strlen(buf) == len);
    if (want) CHECK(strcmp(buf, want) == 0);
    if (len > 0) {
        size_t cap = len < sizeof small ? len : sizeof small;
        r = cres_visible_devices_of(res, type, id, small, cap, &len2, &err);
        fuzz_check_error(r, &err);
        CHECK(r == CRES_ERR_BUFFER_TOO_SMALL);
        CHECK(len2 == len && strlen(small) == cap - 1 && memcmp(small, buf, cap - 1) == 0);
    }
    free(buf);
}

static void check_success(cres_resolver *res, const env *e, const cres_slurm_options *o, const jobs *j) {
    cres_cluster_spec *spec = NULL;
    cres_launch_info info;
    cres_accelerators acc;
    cres_error err;
    model m;
    cres_job_count order[MAX_JOBS], one = {"worker", 0};
    size_t jobs_n, i, total = 0;
    const char *own_type = cres_task_type(res), *own_address;
    int own_id = cres_task_id(res), first = 0, gpus;
    char master[2048], want[2048], *devices;
    size_t devices_cap;
    size_t len = 0;
    cres_result r;

    CHECK(strcmp(cres_resolver_name(res), "slurm") == 0);
    CHECK(cres_rpc_layer(res) && strcmp(cres_rpc_layer(res), "grpc") == 0);
    model_build(&m, e);
    m.port_base = o->port_base ? o->port_base : 8888;
    model_deal(&m, e);
    model_gpus(&m, e, o);
    /* at most MAX_GPUS ids per task, each at most 4096 bytes (the CUDA_VISIBLE_DEVICES cap) */
    devices_cap = m.devices ? strlen(m.devices) + 2 : (size_t)(m.split ? m.node_gpus : m.gpus_per_task) * 12 + 2;
    devices = (char *)malloc(devices_cap);
    CHECK(devices != NULL);

    r = cres_resolve(res, &spec, &err);
    fuzz_check_error(r, &err);
    CHECK(r == CRES_OK);
    fuzz_check_resolves_again(res, spec);

    /* The jobs in rank order, as the manual says. */
    if (j->given) {
        jobs_n = j->count;
        memcpy(order, j->items, jobs_n * sizeof *order);
    } else {
        jobs_n = 1;
        one.count = (int)m.ntasks;
        order[0] = one;
    }
    qsort(order, jobs_n, sizeof *order, cmp_job_count);
    CHECK(cres_spec_jobs_count(spec) == jobs_n);
    for (i = 0; i < jobs_n; i++) {
        const cres_job *job = cres_spec_job(spec, order[i].job);
        size_t k;
        CHECK(job != NULL);
        CHECK(job->tasks_count == (size_t)order[i].count);
        for (k = 0; k < job->tasks_count; k++) {
            int rank = first + (int)k;
            CHECK(job->tasks[k].index == (int)k);
            if (m.node) {
                check_address(job->tasks[k].address, m.hosts[m.node[rank]], m.port_base + m.local[rank]);
            } else {
                check_address(job->tasks[k].address, NULL, 0);
            }
        }
        total += job->tasks_count;
        if (m.rank >= first && m.rank < first + order[i].count) {
            CHECK(own_type && strcmp(own_type, order[i].job) == 0);
            CHECK(own_id == m.rank - first);
        }
        first += order[i].count;
    }
    CHECK((long long)total == m.ntasks);

    if (m.rank < 0) { /* no step: no own task, master "", the own task's devices not found */
        CHECK(own_type == NULL && own_id == CRES_NO_TASK);
        r = cres_master(res, master, sizeof master, &len, &err);
        fuzz_check_error(r, &err);
        CHECK(r == CRES_OK && master[0] == '\0' && len == 0);
        r = cres_visible_devices(res, NULL, 0, &len, &err);
        fuzz_check_error(r, &err);
        CHECK(r == (m.gpus_per_task > 0 || m.split ? CRES_ERR_NOT_FOUND : CRES_OK));
        cres_spec_free(spec);
        free(devices);
        model_free(&m);
        return;
    }

    /* The own task is in the spec, at rank SLURM_PROCID, on the node Slurm says. */
    CHECK(own_type != NULL && own_id >= 0);
    own_address = cres_spec_task_address(spec, own_type, own_id);
    CHECK(own_address != NULL);
    r = cres_spec_launch_info(spec, own_type, own_id, &info, &err);
    fuzz_check_error(r, &err);
    CHECK(r == CRES_OK);
    if (r == CRES_OK) {
        CHECK(info.rank == m.rank);
        CHECK((long long)info.world_size == m.ntasks);
        if (m.node) {
            CHECK(info.local_rank == m.local[m.rank]);
            CHECK(info.local_world_size == m.tasks[m.node[m.rank]]);
        }
    }
    if (m.node) {
        int ok;
        if (e->v[F_NODELIST] && e->v[F_NODEID])
            CHECK(fuzz_decimal(e->v[F_NODEID], &ok) == m.node[m.rank] && ok);
        if (e->v[F_NODELIST] && e->v[F_LOCALID])
            CHECK(fuzz_decimal(e->v[F_LOCALID], &ok) == m.local[m.rank] && ok);
    }

    /* master: the own address behind grpc://, the same by length query */
    r = cres_master(res, master, sizeof master, &len, &err);
    fuzz_check_error(r, &err);
    CHECK(r == CRES_OK);
    snprintf(want, sizeof want, "grpc://%s", own_address);
    CHECK(strcmp(master, want) == 0);
    CHECK(cres_master_of(res, NULL, -1, "", NULL, 0, &len, &err) == CRES_OK);
    CHECK(len == strlen(own_address));
    if (cres_spec_job(spec, order[0].job)->tasks_count) {
        r = cres_master_of(res, order[0].job, 0, NULL, master, sizeof master, NULL, &err);
        fuzz_check_error(r, &err);
        CHECK(r == CRES_OK);
    }

    /* GPUs: the own task's, and the first task of every job */
    CHECK(cres_num_accelerators(res, &acc, &err) == CRES_OK);
    gpus = model_task_gpus(&m, m.rank);
    if (gpus > 0) CHECK(acc.count == 1 && strcmp(acc.items[0].type, "GPU") == 0 && acc.items[0].count == gpus);
    else if (gpus == 0) CHECK(acc.count == 0);
    if (m.node) {
        model_devices(&m, m.rank, devices, devices_cap);
        check_devices(res, NULL, -1, devices);
    } else {
        check_devices(res, NULL, -1, NULL);
    }
    for (i = 0, first = 0; i < jobs_n; first += order[i].count, i++) {
        if (!order[i].count) continue;
        if (m.node) {
            model_devices(&m, first, devices, devices_cap);
            check_devices(res, order[i].job, 0, devices);
        } else {
            check_devices(res, order[i].job, 0, NULL);
        }
        /* past the job's last task */
        r = cres_visible_devices_of(res, order[i].job, order[i].count, NULL, 0, &len, &err);
        fuzz_check_error(r, &err);
        CHECK(r == (m.gpus_per_task > 0 || m.split ? CRES_ERR_NOT_FOUND : CRES_OK));
    }

    cres_spec_free(spec);
    free(devices);
    model_free(&m);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    static jobs j;
    cres_slurm_options o;
    cres_config config;
    cres_resolver *res = NULL;
    cres_error err;
    cres_result r;
    env e;
    char *text, *p;
    size_t i;
    if (size > MAX_INPUT_BYTES) return 0;
    text = fuzz_text(data, size, 0);
    if (!text) return 0;

    memset(&e, 0, sizeof e);
    for (i = 0, p = text; i < FIELDS && p; i++) {
        char *bar = strchr(p, '|');
        if (bar) *bar = '\0';
        e.v[i] = strcmp(p, "~") == 0 ? NULL : p;
        p = bar ? bar + 1 : NULL;
    }
    memset(&o, 0, sizeof o);
    fuzz_getenv_config(&config, fuzz_getenv, &e);
    o.config = &config;
    j.given = 0;
    if (e.v[F_JOBS]) {
        parse_jobs((char *)e.v[F_JOBS], &j);
        o.jobs = j.count ? j.items : (const cres_job_count *)&j; /* non-NULL with count 0 */
        o.jobs_count = j.count;
    }
    if (e.v[F_OPTIONS]) {
        char *q = (char *)e.v[F_OPTIONS], *c1 = strchr(q, ','), *c2 = c1 ? strchr(c1 + 1, ',') : NULL;
        o.port_base = clamp_int(q);
        if (c1) o.gpus_per_node = clamp_int(c1 + 1);
        if (c2) o.gpus_per_task = clamp_int(c2 + 1);
        /* The library takes any GPU count the caller gives; a task of 2^31 GPUs would only
           make a 20 GB device list. */
        if (o.gpus_per_node > MAX_GPUS) o.gpus_per_node = MAX_GPUS;
        if (o.gpus_per_task > MAX_GPUS) o.gpus_per_task = MAX_GPUS;
    }
    e.v[F_JOBS] = e.v[F_OPTIONS] = NULL; /* not variables */

    /* Bounded work: skip steps and allocations too large to build quickly (see the top). */
    if (e.v[F_NODELIST] || e.v[F_JOB_NODELIST]) {
        size_t count = 0;
        int ok;
        cres_error ignored;
        const char *list = e.v[F_NODELIST] ? e.v[F_NODELIST] : e.v[F_JOB_NODELIST];
        if (cres_hostlist_expand(list, NULL, 0, NULL, &count, &ignored) == CRES_OK && count > MAX_HOSTS) {
            free(text);
            return 0;
        }
        if (e.v[F_NUM_TASKS] && fuzz_decimal(e.v[F_NUM_TASKS], &ok) > MAX_HOSTS && ok) {
            free(text);
            return 0;
        }
    }

    r = cres_slurm_resolver_create(&o, &res, &err);
    fuzz_check_error(r, &err);
#ifdef FUZZ_DEBUG
    fprintf(stderr, "create: %s: %s\n", cres_result_string(r), err.message);
#endif
    if (r != CRES_OK) {
        CHECK(r == CRES_ERR_ENVIRONMENT || r == CRES_ERR_LIMIT || r == CRES_ERR_UNSUPPORTED ||
              r == CRES_ERR_INVALID_ARGUMENT);
        CHECK(res == NULL);
        free(text);
        return 0;
    }
    CHECK(res != NULL);
    check_success(res, &e, &o, &j);
    cres_resolver_free(res);
    free(text);
    return 0;
}
