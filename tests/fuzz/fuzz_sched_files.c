/* libFuzzer target: the schedulers' allocation files and variables, through the public create
   functions: PBS_NODEFILE (pbs), LSB_DJOB_RANKFILE and LSB_MCPU_HOSTS (lsf), PE_HOSTFILE
   (sge), a Flux hostfile (flux, options.hostfile: a hostfile, or `flux hostlist`'s one line of
   a Slurm hostlist), and the MPI backend's hosts from
   PE_HOSTFILE, Open MPI's default hostfile (Kubeflow MPIJob) and LSB_MCPU_HOSTS. A file is
   written for each run in fuzz_common.h's FUZZ_DIR and removed after the create (the
   backends read it at create only); the variables come through the getenv hook.

   Input: four header bytes, then the text (the file's bytes; for LSB_MCPU_HOSTS the
   variable, up to a NUL).
      byte 0 bits 0-2  the source: 0 pbs PBS_NODEFILE, 1 lsf LSB_DJOB_RANKFILE, 2 lsf
                       LSB_MCPU_HOSTS, 3 sge PE_HOSTFILE, 4 flux hostfile, 5 mpi PE_HOSTFILE,
                       6 mpi OMPI_MCA_orte_default_hostfile, 7 mpi LSB_MCPU_HOSTS
             bits 3-4  the ranks: 0 none (pbs, lsf, sge: the job script; flux and mpi: rank
                       and size only), 1 rank and size (pbs: pbsdsh's PBS_VNODENUM; lsf
                       Open MPI's; sge PMI's), 2 also the local rank and size where the
                       placement puts them (PALS, jsrun, Open MPI, Flux), 3 the same with
                       the local rank one too high (a disagreement)
             bit 5     CSM_ALLOCATION_ID set (the LSF sources)
             bit 6     sge: NSLOTS set; flux: FLUX_JOB_NNODES set
             bit 7     ... set one too high (a mismatch)
      byte 1           the world size when the ranks have one: 1..255, 0 = every slot
      byte 2           the own rank, modulo the world size
      byte 3 bit 0     jobs {chief 1, worker the rest}
             bit 1     port_base 65000 (more than 536 tasks on a host do not fit)
             bit 2     CUDA_VISIBLE_DEVICES=0,1,2,3 (no scheduler here says it is the node's
                       list, or jsrun binds it: left as it is, four GPUs a task)

   The library's answer is checked against a model written here from the manual and the brief:
   hosts in order of first mention, a host named again adds its slots; hostfile lines as
   tests/fuzz/fuzz_common.h models them for both targets; PE_HOSTFILE lines "host slots [queue
   processors]" (fewer than two fields, or slots not 1..1000000: an error); LSB_MCPU_HOSTS "host
   N host N" (an odd or zero word count, a count not 1..1000000: an error); on CSM the first
   host of one slot is left out, and under jsrun too when the other slots are its size (under
   jsrun any other size than the slots is an error, but for JSM_NAMESPACE_LOCAL_SIZE ranks on
   every host when the size is the hosts times it); ranks fill the slots in order;
   "<host>:<port_base + index on the host>"; the launch info and the hostfile of the spec
   follow. A failure is CRES_ERR_ENVIRONMENT or CRES_ERR_LIMIT with a message, and no
   resolver. Where the library is known to differ from that model (reported; see ALLOW below)
   the model accepts either answer, so that the target keeps exploring.

   clang -g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined \
         tests/fuzz/fuzz_sched_files.c -o build/fuzz_sched_files */

#include <sys/stat.h>
#include <unistd.h>

#include "fuzz_common.h"
#include "host_model.h"

#define MAX_INPUT_BYTES 32768 /* room for the 2148 hosts of 10^6 slots that pass INT_MAX */
#define MAX_BUILT_TASKS 20000 /* larger specs take too long per run: not built */

/* Known differences from the model (reported to the lead), accepted until fixed; build with
   -DFUZZ_ALLOW_KNOWN=0 to see them fail. */
#ifndef FUZZ_ALLOW_KNOWN
#define FUZZ_ALLOW_KNOWN 0 /* both fixed in the library; kept to test an older header */
#endif
#define ALLOW_PE_SHORT_LINE FUZZ_ALLOW_KNOWN  /* "a 1 q p": "has no queue field" */
#define ALLOW_BIG_ALLOCATION FUZZ_ALLOW_KNOWN /* over 10^6 slots: a spec, not CRES_ERR_LIMIT */

enum { SRC_PBS, SRC_LSF_RANKFILE, SRC_LSF_MCPU, SRC_SGE, SRC_FLUX, SRC_MPI_PE, SRC_MPI_OMPI, SRC_MPI_MCPU };

/* ---------------------------------------------------------------------------------------
   The model of the allocation */

typedef struct model {
    char **hosts;      /* owned copies, in order of first mention */
    long long *slots;
    size_t n, cap;
    char **line_hosts; /* per slot, the host of its line (pbsdsh), up to MAX_BUILT_TASKS */
    size_t line_slots;
    int verdict;       /* 1 valid, 0 invalid, -1 the library's call (unsure) */
    int may_reject;    /* valid, but a known difference may make the library refuse it */
} model;

static void model_free(model *m) {
    size_t i;
    for (i = 0; i < m->n; i++) free(m->hosts[i]);
    free(m->hosts);
    free(m->slots);
    free(m->line_hosts); /* borrowed strings */
}

/* Adds slots to host (merging a host named again); the line's slots go to line_hosts. */
static void model_add(model *m, const char *host, size_t n, long long slots) {
    size_t i;
    for (i = 0; i < m->n; i++)
        if (strlen(m->hosts[i]) == n && memcmp(m->hosts[i], host, n) == 0) break;
    if (i == m->n) {
        if (m->n == m->cap) {
            m->cap = m->cap ? m->cap * 2 : 16;
            m->hosts = (char **)realloc(m->hosts, m->cap * sizeof *m->hosts);
            m->slots = (long long *)realloc(m->slots, m->cap * sizeof *m->slots);
            CHECK(m->hosts && m->slots);
        }
        m->hosts[m->n] = fuzz_dup_n(host, n);
        m->slots[m->n++] = 0;
    }
    m->slots[i] += slots;
    if (m->slots[i] > FUZZ_MAX_SLOTS + 1) m->slots[i] = FUZZ_MAX_SLOTS + 1; /* the library's cap */
    for (; slots > 0 && m->line_slots < MAX_BUILT_TASKS; slots--) m->line_hosts[m->line_slots++] = m->hosts[i];
}

/* A hostfile, line by line as fuzz_common.h models it. */
static void model_hostfile(const char *text, model *m) {
    const char *line = text;
    while (line && m->verdict == 1) {
        const char *eol = strchr(line, '\n');
        char *copy = fuzz_dup_n(line, eol ? (size_t)(eol - line) : strlen(line)), *host;
        long long slots;
        int kind = fuzz_model_hostfile_line(copy, &host, &slots);
        line = eol ? eol + 1 : NULL;
        if (kind == 0) m->verdict = 0;
        if (kind > 0) model_add(m, host, strlen(host), slots);
        free(copy);
    }
}

/* A Flux file of one line without '=', ':' or '#' is what `flux hostlist` prints: a Slurm
   hostlist (cres_hostlist_expand, which fuzz_hostlist checks, is the oracle), a slot a host, a
   host named twice an error. Past 2000 hosts the quadratic merge here would be too slow: the
   library's call. */
static void model_hostlist(const char *text, model *m) {
    size_t len = 0, count = 0;
    cres_error err;
    char *names, *p;
    if (cres_hostlist_expand(text, NULL, 0, &len, &count, &err) != CRES_OK) {
        m->verdict = 0;
        return;
    }
    if (count > 2000) {
        m->verdict = -1;
        return;
    }
    names = (char *)malloc(len + 1);
    CHECK(names != NULL);
    CHECK(cres_hostlist_expand(text, names, len + 1, NULL, NULL, &err) == CRES_OK);
    for (p = names; *p && m->verdict == 1;) {
        char *nl = strchr(p, '\n');
        size_t before = m->n;
        model_add(m, p, (size_t)(nl - p), 1);
        if (m->n == before) m->verdict = 0; /* named twice */
        p = nl + 1;
    }
    free(names);
}

/* PE_HOSTFILE: "host slots [queue [processors]]" per line. */
static void model_pe_hostfile(const char *text, model *m) {
    const char *line = text;
    while (line && m->verdict == 1) {
        const char *eol = strchr(line, '\n'), *p, *f[2];
        size_t len = eol ? (size_t)(eol - line) : strlen(line), fl[2], nf = 0, lead;
        long long slots;
        char *host;
        for (lead = 0; lead < len && (line[lead] == ' ' || line[lead] == '\t'); lead++) {}
        if (lead < len && line[lead] == '\r') { /* the library's reader skips no leading \r */
            for (p = line + lead; p < line + len && fuzz_model_blank(*p); p++) {}
            if (p < line + len) m->verdict = -1;
        }
        for (p = line; p < line + len && nf < 2;) {
            while (p < line + len && fuzz_model_blank(*p)) p++;
            if (p == line + len) break;
            f[nf] = p;
            while (p < line + len && !fuzz_model_blank(*p)) p++;
            fl[nf] = (size_t)(p - f[nf]);
            nf++;
        }
        if (nf == 1) m->verdict = m->verdict == 1 ? 0 : m->verdict;
        if (nf == 2 && m->verdict == 1) {
            /* read back through the hostfile reader: '#' and ':' would mean something there */
            if (memchr(f[0], '#', fl[0]) || memchr(f[1], '#', fl[1]) || memchr(f[0], ':', fl[0]) || fl[1] > 20) {
                m->verdict = -1;
            } else if (!fuzz_model_count(f[1], fl[1], &slots)) {
                m->verdict = 0;
            } else {
                host = fuzz_dup_n(f[0], fl[0]);
                if (!fuzz_model_host_name(host)) m->verdict = 0;
                else model_add(m, host, fl[0], slots);
                free(host);
                if (ALLOW_PE_SHORT_LINE && fl[0] + 7 + fl[1] > len) m->may_reject = 1;
            }
        }
        line = eol ? eol + 1 : NULL;
    }
}

/* LSB_MCPU_HOSTS: "host N host N ...", words between blanks and tabs. */
static void model_mcpu(const char *v, model *m) {
    const char *p = v, *host = NULL;
    size_t words = 0, hn = 0;
    while (*p && m->verdict == 1) {
        size_t w;
        long long count;
        p += strspn(p, " \t");
        if (!*p) break;
        w = strcspn(p, " \t");
        if (strcspn(p, "\n\r#:") < w) m->verdict = -1; /* lines and comments of the reader */
        if (words++ % 2 == 0) {
            host = p;
            hn = w;
        } else if (!fuzz_model_count(p, w, &count)) {
            m->verdict = 0;
        } else {
            char *h = fuzz_dup_n(host, hn);
            if (m->verdict == 1 && !fuzz_model_host_name(h)) m->verdict = 0;
            if (m->verdict == 1) model_add(m, h, hn, count);
            free(h);
        }
        p += w;
    }
    if (m->verdict == 1 && (words % 2 || !words)) m->verdict = 0;
}

/* ---------------------------------------------------------------------------------------
   The run */

typedef struct env {
    const char *names[24];
    char values[24][64];
    const char *big; /* LSB_MCPU_HOSTS, or the file's path */
    const char *big_name;
    size_t count;
} env;

static const char *fuzz_getenv(void *user, const char *name) {
    const env *e = (const env *)user;
    size_t i;
    if (e->big_name && strcmp(name, e->big_name) == 0) return e->big;
    for (i = 0; i < e->count; i++)
        if (strcmp(e->names[i], name) == 0) return e->values[i];
    return NULL;
}

static void env_put(env *e, const char *name, long long value) {
    CHECK(e->count < 24);
    e->names[e->count] = name;
    snprintf(e->values[e->count++], sizeof e->values[0], "%lld", value);
}

static void env_puts(env *e, const char *name, const char *value) {
    CHECK(e->count < 24);
    e->names[e->count] = name;
    snprintf(e->values[e->count++], sizeof e->values[0], "%s", value);
}

static char file_path[96];

static cres_result create(int source, const cres_config *config, const cres_job_count *jobs, size_t jobs_count,
                          int port_base, cres_resolver **r, cres_error *err) {
#define SET(o)                                                                                \
    memset(&o, 0, sizeof o);                                                                  \
    o.config = config;                                                                        \
    o.jobs = jobs;                                                                            \
    o.jobs_count = jobs_count;                                                                \
    o.port_base = port_base
    switch (source) {
    case SRC_PBS: {
        cres_pbs_options o;
        SET(o);
        return cres_pbs_resolver_create(&o, r, err);
    }
    case SRC_LSF_RANKFILE:
    case SRC_LSF_MCPU: {
        cres_lsf_options o;
        SET(o);
        return cres_lsf_resolver_create(&o, r, err);
    }
    case SRC_SGE: {
        cres_sge_options o;
        SET(o);
        return cres_sge_resolver_create(&o, r, err);
    }
    case SRC_FLUX: {
        cres_flux_options o;
        SET(o);
        o.hostfile = file_path;
        return cres_flux_resolver_create(&o, r, err);
    }
    default: {
        cres_mpi_options o;
        SET(o);
        return cres_mpi_resolver_create(&o, r, err);
    }
    }
#undef SET
}

/* Leaves out the first host, LSF's launch node (one slot, no rank runs there). */
static void drop_launch_node(model *m) {
    free(m->hosts[0]);
    memmove(m->hosts, m->hosts + 1, (m->n - 1) * sizeof *m->hosts);
    memmove(m->slots, m->slots + 1, (m->n - 1) * sizeof *m->slots);
    m->n--;
    if (m->line_slots) memmove(m->line_hosts, m->line_hosts + 1, --m->line_slots * sizeof *m->line_hosts);
}

/* Each host's lines together in the node file (pbsdsh's PBS_VNODENUM counts lines, so the
   library refuses a file where a host comes back after another). */
static int lines_grouped(const model *m) {
    size_t i, k;
    for (i = 1; i < m->line_slots; i++) {
        if (strcmp(m->line_hosts[i], m->line_hosts[i - 1]) == 0) continue;
        for (k = 0; k + 1 < i; k++)
            if (strcmp(m->line_hosts[k], m->line_hosts[i]) == 0) return 0;
    }
    return 1;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    static const cres_job_count none[1];
    cres_job_count jobs[2];
    model m;
    env e;
    cres_config config;
    cres_resolver *r = NULL;
    cres_error err;
    cres_result got;
    char *text;
    int source, ranks, csm, count_set, count_off, use_jobs, gpus, port_base, has_rank, local_vars, jsrun,
        launch_node, sets;
    long long total = 0, file_slots = 0, world, rank, max_tasks = 0;
    long long *tasks;
    size_t i, used_hosts = 0, node = 0, own_local = 0;
    int expect_ok, unsure, may_reject, build;
    (void)none;
    if (size < 4 || size > MAX_INPUT_BYTES) return 0;
    source = data[0] & 7;
    ranks = (data[0] >> 3) & 3;
    csm = (data[0] >> 5) & 1;
    count_set = (data[0] >> 6) & 1;
    count_off = data[0] >> 7;
    use_jobs = data[3] & 1;
    port_base = data[3] & 2 ? 65000 : 0;
    gpus = (data[3] >> 2) & 1;
    text = fuzz_dup_n((const char *)data + 4, size - 4);

    /* -- the model */
    memset(&m, 0, sizeof m);
    m.verdict = 1;
    m.line_hosts = (char **)malloc(MAX_BUILT_TASKS * sizeof *m.line_hosts);
    CHECK(m.line_hosts != NULL);
    if (source != SRC_LSF_MCPU && source != SRC_MPI_MCPU) {
        size_t n = size - 4;
        if (strlen(text) != n) m.verdict = 0; /* a NUL byte */
        while (n && memchr(" \t\r\n", text[n - 1], 4)) text[--n] = '\0'; /* as a file is read */
    }
    if (m.verdict == 1) {
        if (source == SRC_SGE || source == SRC_MPI_PE) model_pe_hostfile(text, &m);
        else if (source == SRC_LSF_MCPU || source == SRC_MPI_MCPU) model_mcpu(text, &m);
        else if (source == SRC_FLUX && *text && !strchr(text, '\n') && !strpbrk(text, "=:#"))
            model_hostlist(text, &m);
        else model_hostfile(text, &m);
    }
    if (m.verdict == 1 && !m.n) m.verdict = 0;
    if ((source == SRC_LSF_MCPU || source == SRC_MPI_MCPU) && !*text) m.verdict = source == SRC_LSF_MCPU ? 0 : -1;
    /* the limit is on the slots the file lists, the launch node's too */
    for (i = 0; i < m.n; i++) file_slots += m.slots[i];
    /* CSM's launch node */
    launch_node = m.verdict == 1 && m.n >= 2 && m.slots[0] == 1;
    if (launch_node && csm && (source == SRC_LSF_RANKFILE || source == SRC_LSF_MCPU || source == SRC_MPI_MCPU))
        drop_launch_node(&m);
    for (i = 0; i < m.n; i++) total += m.slots[i];

    /* -- the environment */
    memset(&e, 0, sizeof e);
    has_rank = source == SRC_FLUX || source >= SRC_MPI_PE || ranks > 0;
    local_vars = ranks >= 2;
    world = has_rank && !(source == SRC_PBS && ranks == 1) ? (data[1] ? data[1] : total) : total;
    if (world < 1) world = 1;
    /* jsrun (JSM_NAMESPACE_SIZE: LSF with ranks 2 and 3) runs on every slot, or on every slot
       but a first host of one, the launch node, left out whether CSM_ALLOCATION_ID is set or
       not; it does not say which slots a job of another size uses: that is an error */
    jsrun = (source == SRC_LSF_RANKFILE || source == SRC_LSF_MCPU) && ranks >= 2 && m.verdict == 1;
    if (jsrun && launch_node && !csm && total == world + 1) {
        drop_launch_node(&m);
        total--;
    }
    rank = has_rank ? data[2] % world : -1;
    /* FLUX_JOB_NNODES dividing the size overrides the slots */
    if (source == SRC_FLUX && count_set && !count_off && m.verdict == 1 && world % (long long)m.n == 0)
        for (i = 0; i < m.n; i++) m.slots[i] = world / (long long)m.n;
    for (i = 0, total = 0; i < m.n; i++) total += m.slots[i];
    /* the placement: each host's slots in turn */
    tasks = (long long *)calloc(m.n ? m.n : 1, sizeof *tasks);
    CHECK(tasks != NULL);
    {
        long long left = world, r0 = 0;
        for (i = 0; i < m.n; i++) {
            tasks[i] = left < m.slots[i] ? left : m.slots[i];
            left -= tasks[i];
            if (tasks[i]) used_hosts = i + 1;
            if (tasks[i] > max_tasks) max_tasks = tasks[i];
            if (rank >= r0 && rank < r0 + tasks[i]) {
                node = i;
                own_local = (size_t)(rank - r0);
            }
            r0 += tasks[i];
        }
    }
    /* jsrun's resource sets (jsrun -r): JSM_NAMESPACE_LOCAL_SIZE, the own host's count, on
       every host, when the size is the hosts times it and each host has the slots */
    sets = jsrun && world != total && rank >= 0 && tasks[node] * (long long)m.n == world;
    for (i = 0; sets && i < m.n; i++) sets = m.slots[i] >= tasks[node];
    if (sets) {
        long long per = tasks[node];
        for (i = 0; i < m.n; i++) tasks[i] = per;
        node = (size_t)(rank / per);
        own_local = (size_t)(rank % per);
        used_hosts = m.n;
        max_tasks = per;
    }
    switch (source) {
    case SRC_PBS:
        e.big_name = "PBS_NODEFILE";
        if (ranks == 1) env_put(&e, "PBS_VNODENUM", rank);
        if (ranks >= 2) {
            env_put(&e, "PALS_RANKID", rank);
            env_put(&e, "PMI_SIZE", world);
            env_put(&e, "PALS_NODEID", (long long)node);
            env_put(&e, "PALS_LOCAL_RANKID", (long long)own_local + (ranks == 3));
            env_put(&e, "PALS_LOCAL_SIZE", tasks[node]);
        }
        break;
    case SRC_LSF_RANKFILE:
    case SRC_LSF_MCPU:
        e.big_name = source == SRC_LSF_MCPU ? "LSB_MCPU_HOSTS" : "LSB_DJOB_RANKFILE";
        if (ranks == 1) {
            env_put(&e, "OMPI_COMM_WORLD_RANK", rank);
            env_put(&e, "OMPI_COMM_WORLD_SIZE", world);
        } else if (ranks >= 2) {
            env_put(&e, "JSM_NAMESPACE_RANK", rank);
            env_put(&e, "JSM_NAMESPACE_SIZE", world);
            env_put(&e, "JSM_NAMESPACE_LOCAL_RANK", (long long)own_local + (ranks == 3));
            env_put(&e, "JSM_NAMESPACE_LOCAL_SIZE", tasks[node]);
        }
        break;
    case SRC_SGE:
        e.big_name = "PE_HOSTFILE";
        if (count_set) env_put(&e, "NSLOTS", total + count_off);
        if (ranks == 1) {
            env_put(&e, "PMI_RANK", rank);
            env_put(&e, "PMI_SIZE", world);
        } else if (ranks >= 2) {
            env_put(&e, "OMPI_COMM_WORLD_RANK", rank);
            env_put(&e, "OMPI_COMM_WORLD_SIZE", world);
            env_put(&e, "OMPI_COMM_WORLD_LOCAL_RANK", (long long)own_local + (ranks == 3));
        }
        break;
    case SRC_FLUX:
        env_put(&e, "FLUX_TASK_RANK", rank);
        env_put(&e, "FLUX_JOB_SIZE", world);
        if (count_set) env_put(&e, "FLUX_JOB_NNODES", (long long)m.n + count_off);
        if (local_vars) env_put(&e, "FLUX_TASK_LOCAL_ID", (long long)own_local + (ranks == 3));
        break;
    default:
        e.big_name = source == SRC_MPI_PE     ? "PE_HOSTFILE"
                     : source == SRC_MPI_OMPI ? "OMPI_MCA_orte_default_hostfile"
                                              : "LSB_MCPU_HOSTS";
        env_put(&e, "OMPI_COMM_WORLD_RANK", rank);
        env_put(&e, "OMPI_COMM_WORLD_SIZE", world);
        if (local_vars) {
            env_put(&e, "OMPI_COMM_WORLD_LOCAL_RANK", (long long)own_local + (ranks == 3));
            env_put(&e, "OMPI_COMM_WORLD_LOCAL_SIZE", tasks[node]);
        }
        break;
    }
    if (csm) env_puts(&e, "CSM_ALLOCATION_ID", "1088245");
    if (gpus) env_puts(&e, "CUDA_VISIBLE_DEVICES", "0,1,2,3");
    if (source == SRC_LSF_MCPU || source == SRC_MPI_MCPU) {
        e.big = text;
    } else {
        if (!file_path[0]) snprintf(file_path, sizeof file_path, "%s/allocation", fuzz_dir());
        fuzz_write_file(file_path, data + 4, size - 4);
        e.big = file_path;
    }
    if (source == SRC_FLUX) e.big_name = NULL;

    /* -- what the model expects */
    unsure = m.verdict < 0;
    may_reject = m.may_reject;
    expect_ok = m.verdict == 1;
    if (expect_ok && world > total) expect_ok = 0;                      /* more ranks than slots */
    if (expect_ok && jsrun && world != total && !sets) expect_ok = 0;   /* jsrun's other sizes */
    if (expect_ok && has_rank && world > FUZZ_MAX_SLOTS) expect_ok = 0; /* a size past the limit */
    if (expect_ok && (port_base ? port_base : 8888) + max_tasks - 1 > 65535) expect_ok = 0;
    if (expect_ok && ranks == 3) expect_ok = 0; /* every source of local ranks is checked */
    if (expect_ok && source == SRC_SGE && count_set && count_off) expect_ok = 0;
    if (expect_ok && source == SRC_FLUX && count_set && count_off) expect_ok = 0;
    /* Flux runs a task on each of FLUX_JOB_NNODES nodes: more nodes than tasks, or slots
       that leave a node without one, are errors */
    if (expect_ok && source == SRC_FLUX && count_set && ((long long)m.n > world || used_hosts != m.n))
        expect_ok = 0;
    /* pbsdsh runs task PBS_VNODENUM on its line's host: where the slots put that rank on
       another host, the answer must be an error (the library gives that host's address) */
    if (expect_ok && source == SRC_PBS && ranks == 1) {
        if (rank >= (long long)m.line_slots) unsure = 1;
        else if (!lines_grouped(&m)) unsure = 1; /* refused unless counts hide the lines */
    }
    for (i = 0; expect_ok && i < used_hosts; i++)
        if (!model_host_accepted(m.hosts[i], &unsure)) expect_ok = 0;
    if (m.verdict == 1 && ranks == 0 && source <= SRC_SGE && total > FUZZ_MAX_SLOTS &&
        ALLOW_BIG_ALLOCATION)
        unsure = 1;
    if (expect_ok && file_slots > FUZZ_MAX_SLOTS && !unsure && source != SRC_FLUX) /* CRES_ERR_LIMIT */
        expect_ok = 0; /* (flux reads its hostfile itself, and its counts may replace the slots) */
    /* Building a spec of many tasks takes too long per run; past INT_MAX it must fail at once
       (the sum of the slots is where the library overflowed). */
    build = world <= MAX_BUILT_TASKS || total > 2147483647LL || max_tasks + (port_base ? port_base : 8888) > 65536 ||
            m.verdict == 0 || world > total || (has_rank && world > FUZZ_MAX_SLOTS);
    if (!build) goto done;

    /* -- the library */
    fuzz_getenv_config(&config, fuzz_getenv, &e);
    if (use_jobs) {
        jobs[0].job = "worker";
        jobs[0].count = (int)(world - 1 < 0 ? 0 : world - 1);
        jobs[1].job = "chief";
        jobs[1].count = 1;
    }
    got = create(source, &config, use_jobs ? jobs : NULL, use_jobs ? 2 : 0, port_base, &r, &err);
    if (source != SRC_LSF_MCPU && source != SRC_MPI_MCPU) unlink(file_path);
    fuzz_check_error(got, &err);
    if (got != CRES_OK) {
        CHECK(r == NULL);
        CHECK(got == CRES_ERR_ENVIRONMENT || got == CRES_ERR_LIMIT);
        if (expect_ok && !unsure) {
            if (!(may_reject && strstr(err.message, "has no queue field"))) {
                fprintf(stderr, "the model accepts this allocation, the library says: %s\n", err.message);
                CHECK(!"refused a valid allocation");
            }
        }
        goto done;
    }
    CHECK(r != NULL);
    if (!expect_ok && !unsure) {
        fprintf(stderr, "the model refuses this allocation, the library accepts it\n");
        CHECK(!"accepted an invalid allocation");
    }
    if (expect_ok && !unsure) {
        cres_cluster_spec *spec = NULL;
        cres_launch_info info;
        char addr[300], want[300], *hostfile;
        size_t len = 0;
        long long k, rr = 0;
        int base = port_base ? port_base : 8888;
        CHECK(cres_resolve(r, &spec, &err) == CRES_OK);
        CHECK(cres_spec_jobs_count(spec) == (use_jobs ? 2u : 1u));
        for (i = 0; i < used_hosts; i++) {
            for (k = 0; k < tasks[i]; k++, rr++) {
                const char *job = use_jobs && rr == 0 ? "chief" : "worker";
                int index = (int)(use_jobs ? (rr == 0 ? 0 : rr - 1) : rr);
                const char *a = cres_spec_task_address(spec, job, index);
                CHECK(model_host_address(m.hosts[i], base + (int)k, want, sizeof want));
                CHECK(a != NULL && strcmp(a, want) == 0);
            }
        }
        CHECK(rr == world);
        /* the allocation as a hostfile: the hosts with ranks, in order */
        CHECK(cres_spec_to_hostfile(spec, NULL, 0, &len, &err) == CRES_OK);
        hostfile = (char *)malloc(len + 1);
        CHECK(hostfile != NULL);
        CHECK(cres_spec_to_hostfile(spec, hostfile, len + 1, NULL, &err) == CRES_OK);
        {
            const char *p = hostfile;
            for (i = 0; i < used_hosts; i++) {
                int n = snprintf(addr, sizeof addr, "%s slots=%lld\n", m.hosts[i], tasks[i]);
                CHECK(strncmp(p, addr, (size_t)n) == 0);
                p += n;
            }
            CHECK(*p == '\0');
        }
        free(hostfile);
        cres_spec_free(spec);
        if (rank < 0) {
            CHECK(cres_task_id(r) == CRES_NO_TASK && cres_task_type(r) == NULL);
            CHECK(cres_launch(r, &info, &err) == CRES_ERR_NOT_FOUND);
        } else {
            char dev[64];
            cres_accelerators acc;
            CHECK(cres_launch(r, &info, &err) == CRES_OK);
            CHECK(info.world_size == world && info.rank == rank);
            CHECK(info.local_rank == (int)own_local && info.local_world_size == tasks[node]);
            CHECK(info.node_rank == (int)node && info.num_nodes == (int)used_hosts);
            CHECK(strcmp(info.master_host, m.hosts[0]) == 0 && info.master_port == base);
            CHECK(strcmp(cres_task_type(r), use_jobs && rank == 0 ? "chief" : "worker") == 0);
            CHECK(cres_task_id(r) == (use_jobs ? (rank == 0 ? 0 : rank - 1) : rank));
            CHECK(cres_visible_devices(r, dev, sizeof dev, NULL, &err) == CRES_OK);
            CHECK(strcmp(dev, "") == 0);
            CHECK(cres_num_accelerators(r, &acc, &err) == CRES_OK);
            CHECK(gpus ? acc.count == 1 && acc.items[0].count == 4 : acc.count == 0);
        }
    } else {
        /* unsure: whatever the library answered must hold together */
        cres_cluster_spec *spec = NULL;
        cres_launch_info info;
        CHECK(cres_resolve(r, &spec, &err) == CRES_OK);
        cres_spec_free(spec);
        got = cres_launch(r, &info, &err);
        CHECK(got == CRES_OK || got == CRES_ERR_NOT_FOUND);
    }
    cres_resolver_free(r);
done:
    if (source != SRC_LSF_MCPU && source != SRC_MPI_MCPU) unlink(file_path);
    free(tasks);
    model_free(&m);
    free(text);
    return 0;
}
