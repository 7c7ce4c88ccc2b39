/* libFuzzer target: the MPI hostfile parser (Open MPI "host slots=N max_slots=M", MPICH
   "host:N", '#' comments) and the placement of ranks on its slots. It calls the private
   cres__hostfile_parse and cres__mpi_fill directly (static in the implementation included
   here), and one run in sixteen also goes through cres_mpi_resolver_create with
   options.hostfile, a file in fuzz_common.h's FUZZ_DIR written for that run and removed after
   the create.

   Input: four header bytes, then the hostfile text (bytes after a NUL are not seen).
      byte 0 bits 0-1  the world size: 0 = every slot of the file, 1 = that minus byte 1 % 4
                       (at least 1), 2 = byte 1 + 1, 3 = (byte 1 << 8 | byte 2) + 1
             bits 2-5  all set: also the whole resolver (Open MPI variables, rank byte 2)
             bit 6     the whole resolver also gets OMPI_COMM_WORLD_LOCAL_RANK/_SIZE as
                       mpirun would set them (else unset)
             bit 7     mapping by node (mpirun --map-by node; else by slot, the default)
      byte 3 bits 0-1  the whole resolver's OMPI_MCA_rmaps_base_ranking_policy: unset (the
                       mapping's), "slot", "node", "core:span"
             bit 2     the mapping policy is written "node:SPAN" / "slot:PE=2" (a modifier)

   The parser is checked against a model written from the manual (its lines are fuzz_common.h's,
   which fuzz_sched_files shares): hosts in order of first mention, a host named again adds its
   slots, "host:N" or slots=N set the slots (1..1000000), max_slots / max-slots are accepted and
   ignored, any other word is an error, host names are 1..255 bytes of UTF-8 without blanks or
   control characters. Both must accept and reject the same files. Accepted: nodes > 0, hosts
   non-empty without blanks and unique, slots >= 1; after the fill the tasks add up to the world
   size, each host's tasks are at most its slots, and they are what the model's fill gives: each
   host's slots in turn, or one rank per host and round skipping full hosts (by node). Failures
   are CRES_ERR_ENVIRONMENT (or _LIMIT) with a message. The whole resolver's spec has world-size
   tasks at "<host>:<8888 + its index on the host>", ranks dealt in blocks or round-robin
   (ranking by node), which the library's address reader must read back.

   Host names follow tests/fuzz/host_model.h: IPv6 literals are bracketed ("[fd00::1]:8888"),
   names the address reader could not split back are refused (this target found both written
   unbracketed, as "fd00::1:8888" and "[x:8888").

   clang -g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined \
         tests/fuzz/fuzz_hostfile.c -o build/fuzz_hostfile */

#include <unistd.h>

#include "fuzz_common.h"
#include "host_model.h"

#define MAX_INPUT_BYTES 8192
#define MAX_WHOLE_RANKS 10000 /* whole-resolver runs build a spec of this many tasks at most */

/* ---------------------------------------------------------------------------------------
   The model */

typedef struct model {
    char **hosts; /* owned copies, in order of first mention */
    long long *slots;
    size_t n;
} model;

static void model_free(model *m) {
    size_t i;
    for (i = 0; i < m->n; i++) free(m->hosts[i]);
    free(m->hosts);
    free(m->slots);
}

/* 1 = a valid hostfile, its hosts and slots in m. */
static int model_parse(const char *text, model *m) {
    const char *line = text;
    size_t lines = 1, i;
    for (i = 0; text[i]; i++) lines += text[i] == '\n';
    m->hosts = (char **)calloc(lines, sizeof *m->hosts);
    m->slots = (long long *)calloc(lines, sizeof *m->slots);
    m->n = 0;
    CHECK(m->hosts && m->slots);
    while (line) {
        const char *eol = strchr(line, '\n');
        char *copy = fuzz_dup_n(line, eol ? (size_t)(eol - line) : strlen(line)), *host;
        long long slots;
        int kind = fuzz_model_hostfile_line(copy, &host, &slots);
        line = eol ? eol + 1 : NULL;
        if (kind == 0) {
            free(copy);
            return 0;
        }
        if (kind > 0) { /* a host named again adds its slots */
            for (i = 0; i < m->n && strcmp(m->hosts[i], host) != 0; i++) {}
            if (i == m->n) {
                m->hosts[m->n] = fuzz_dup_n(host, strlen(host));
                m->slots[m->n++] = 0;
            }
            m->slots[i] += slots;
        }
        free(copy);
    }
    return m->n > 0;
}

/* The tasks each host gets: its slots in turn, or (by node) one per host and round, full
   hosts skipped. 0 when the model would take too long (more than 4e6 steps). */
static int model_fill(const model *m, long long world, int by_node, long long *tasks) {
    size_t i;
    long long left = world, steps = 0;
    for (i = 0; i < m->n; i++) tasks[i] = 0;
    if (!by_node) {
        for (i = 0; i < m->n; i++) {
            long long cap = m->slots[i] > FUZZ_MAX_SLOTS ? FUZZ_MAX_SLOTS + 1 : m->slots[i];
            tasks[i] = left < cap ? left : cap;
            left -= tasks[i];
        }
        return 1;
    }
    while (left > 0) {
        int placed = 0;
        for (i = 0; i < m->n && left > 0; i++, steps++) {
            if (tasks[i] >= m->slots[i]) continue;
            tasks[i]++;
            left--;
            placed = 1;
        }
        CHECK(placed);
        if (steps > 4000000) return 0;
    }
    return 1;
}

/* Deals ranks over hosts with tasks[] each: blocks, or round-robin (ranking by node). */
static int deal(const cres__layout *l, int cyclic, int *node, int *local) {
    long long steps = 0;
    int r = 0, round;
    size_t i;
    if (!cyclic) {
        for (i = 0; i < l->nodes; i++) {
            int k;
            for (k = 0; k < l->tasks[i]; k++, r++) {
                node[r] = (int)i;
                local[r] = k;
            }
        }
        return 1;
    }
    for (round = 0; r < l->ntasks; round++) {
        for (i = 0; i < l->nodes; i++, steps++) {
            if (round >= l->tasks[i]) continue;
            node[r] = (int)i;
            local[r++] = round;
        }
        if (steps > 4000000) return 0;
    }
    return 1;
}

/* ---------------------------------------------------------------------------------------
   The whole resolver */

typedef struct env {
    char rank[16], size[16], local_rank[16], local_size[16];
    int local;
    const char *mapping, *ranking; /* NULL = unset */
} env;

static const char *fuzz_getenv(void *user, const char *name) {
    const env *e = (const env *)user;
    if (strcmp(name, "OMPI_COMM_WORLD_RANK") == 0) return e->rank;
    if (strcmp(name, "OMPI_COMM_WORLD_SIZE") == 0) return e->size;
    if (e->local && strcmp(name, "OMPI_COMM_WORLD_LOCAL_RANK") == 0) return e->local_rank;
    if (e->local && strcmp(name, "OMPI_COMM_WORLD_LOCAL_SIZE") == 0) return e->local_size;
    if (strcmp(name, "OMPI_MCA_rmaps_base_mapping_policy") == 0) return e->mapping;
    if (strcmp(name, "OMPI_MCA_rmaps_base_ranking_policy") == 0) return e->ranking;
    return NULL;
}

static char file_path[64];

/* The resolver over a file of `text`, ranks placed as the checked layout l says (filled
   with mapping by node when by_node), dealt by the ranking policy. */
static void whole_resolver(const char *text, const cres__layout *l, int size, int rank, int local, int by_node,
                           unsigned policy) {
    static const char *const rankings[4] = {NULL, "slot", "node", "core:span"};
    cres_mpi_options o;
    cres_config config;
    cres_resolver *res = NULL;
    cres_cluster_spec *spec = NULL;
    const cres_job *job;
    cres_error err;
    cres_result r;
    env e;
    size_t i;
    int max_tasks = 0, k, refused = 0, unsure = 0, cyclic, *node, *local_index;
    if (!file_path[0]) snprintf(file_path, sizeof file_path, "%s/hostfile", fuzz_dir());
    fuzz_write_file(file_path, text, strlen(text));
    memset(&e, 0, sizeof e);
    e.mapping = by_node ? (policy & 4 ? "node:SPAN" : "node") : (policy & 4 ? "slot:PE=2" : NULL);
    e.ranking = rankings[policy & 3];
    cyclic = e.ranking ? strcmp(e.ranking, "node") == 0 : by_node;
    for (i = 0; i < l->nodes; i++) {
        if (l->tasks[i] > max_tasks) max_tasks = l->tasks[i];
        if (!model_host_accepted(l->hosts[i], &unsure)) refused = 1;
    }
    node = (int *)malloc((size_t)size * sizeof *node);
    local_index = (int *)malloc((size_t)size * sizeof *local_index);
    CHECK(node && local_index);
    if (!deal(l, cyclic, node, local_index)) {
        free(node);
        free(local_index);
        return;
    }
    snprintf(e.rank, sizeof e.rank, "%d", rank);
    snprintf(e.size, sizeof e.size, "%d", size);
    snprintf(e.local_rank, sizeof e.local_rank, "%d", local_index[rank]);
    snprintf(e.local_size, sizeof e.local_size, "%d", l->tasks[node[rank]]);
    e.local = local;
    fuzz_getenv_config(&config, fuzz_getenv, &e);
    memset(&o, 0, sizeof o);
    o.config = &config;
    o.hostfile = file_path;
    r = cres_mpi_resolver_create(&o, &res, &err);
    unlink(file_path); /* read at create only */
    fuzz_check_error(r, &err);
    if (8888 + max_tasks - 1 > 65535 || refused) { /* too many ranks on a host for the ports; a bad name */
        CHECK(r == CRES_ERR_ENVIRONMENT && res == NULL);
    } else if (unsure && r == CRES_ERR_ENVIRONMENT) {
        CHECK(res == NULL);
    } else {
        CHECK(r == CRES_OK);
        CHECK(cres_resolve(res, &spec, &err) == CRES_OK);
        job = cres_spec_job(spec, "worker");
        CHECK(cres_spec_jobs_count(spec) == 1 && job != NULL && job->tasks_count == (size_t)size);
        CHECK(cres_task_type(res) && strcmp(cres_task_type(res), "worker") == 0 && cres_task_id(res) == rank);
        for (k = 0; k < size; k++) {
            char want[CRES_MAX_NAME_LENGTH + 16];
            const char *host;
            size_t host_len;
            int port;
            CHECK(model_host_address(l->hosts[node[k]], 8888 + local_index[k], want, sizeof want));
            CHECK(strcmp(job->tasks[k].address, want) == 0);
            CHECK(cres__split_address(job->tasks[k].address, &host, &host_len, &port));
            CHECK(port == 8888 + local_index[k] && host_len == strlen(l->hosts[node[k]]));
        }
        cres_spec_free(spec);
        cres_resolver_free(res);
    }
    free(node);
    free(local_index);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    cres_allocator a = {0, 0, 0};
    cres__layout l;
    cres_error err;
    cres_result r;
    model m;
    char *text, *copy;
    int ok, world = 1, mode, whole, by_node;
    long long *want_tasks;
    size_t i, j;
    long long total = 0;
    if (size < 4 || size > MAX_INPUT_BYTES) return 0;
    mode = data[0] & 3;
    whole = ((data[0] >> 2) & 15) == 15;
    by_node = data[0] >> 7;
    /* l->names takes the text and is freed with the allocator: fuzz_text's plain malloc */
    text = fuzz_text(data, size, 4);
    copy = fuzz_text(data, size, 4);
    if (!text || !copy) {
        free(text);
        free(copy);
        return 0;
    }

    ok = model_parse(copy, &m);
    for (i = 0; ok && i < m.n; i++)
        total += m.slots[i] > FUZZ_MAX_SLOTS ? FUZZ_MAX_SLOTS + 1 : m.slots[i];
    switch (mode) {
    case 0: world = (int)(total < 1 ? 1 : total > FUZZ_MAX_SLOTS ? FUZZ_MAX_SLOTS : total); break;
    case 1:
        world = (int)(total - data[1] % 4 < 1                ? 1
                      : total - data[1] % 4 > FUZZ_MAX_SLOTS ? FUZZ_MAX_SLOTS
                                                             : total - data[1] % 4);
        break;
    case 2: world = data[1] + 1; break;
    default: world = (data[1] << 8 | data[2]) + 1; break;
    }

    memset(&l, 0, sizeof l);
    cres__clear(&err);
    r = cres__hostfile_parse(&a, text, &l, "mpi", &err);
    if (r == CRES_OK) err.result = CRES_OK; /* the parser reports only failures */
    fuzz_check_error(r, &err);
    CHECK(l.names == text);
    if (r != CRES_OK) {
        CHECK(r == CRES_ERR_ENVIRONMENT || r == CRES_ERR_LIMIT);
        CHECK(!ok); /* the model rejects it too */
    } else {
        CHECK(ok); /* the model accepts it, with the same hosts and slots */
        CHECK(l.nodes == m.n && l.nodes > 0);
        for (i = 0; i < l.nodes; i++) {
            CHECK(strcmp(l.hosts[i], m.hosts[i]) == 0);
            CHECK(l.tasks[i] >= 1);
            CHECK(l.tasks[i] == (m.slots[i] > FUZZ_MAX_SLOTS ? FUZZ_MAX_SLOTS + 1 : m.slots[i]));
            CHECK(l.hosts[i][0] != '\0' && strcspn(l.hosts[i], " \t\r\n#") == strlen(l.hosts[i]));
            for (j = 0; j < i; j++) CHECK(strcmp(l.hosts[i], l.hosts[j]) != 0);
        }
        cres__clear(&err);
        r = cres__mpi_fill(&l, world, "OMPI_COMM_WORLD_SIZE", by_node, "mpi", &err);
        if (r == CRES_OK) err.result = CRES_OK;
        fuzz_check_error(r, &err);
        if (world > total) {
            CHECK(r == CRES_ERR_ENVIRONMENT);
        } else {
            long long sum = 0;
            CHECK(r == CRES_OK);
            CHECK(l.nodes > 0 && l.ntasks == world);
            want_tasks = (long long *)malloc((m.n ? m.n : 1) * sizeof *want_tasks);
            CHECK(want_tasks != NULL);
            if (!model_fill(&m, world, by_node, want_tasks)) {
                free(want_tasks);
                want_tasks = NULL;
            }
            for (i = 0, j = 0; i < l.nodes; i++, j++) {
                /* hosts keep file order; a host without a rank drops out */
                while (want_tasks && j < m.n && want_tasks[j] == 0) j++;
                if (want_tasks) {
                    CHECK(j < m.n);
                    CHECK(strcmp(l.hosts[i], m.hosts[j]) == 0);
                    CHECK(l.tasks[i] == want_tasks[j]);
                }
                CHECK(l.tasks[i] >= 1);
                sum += l.tasks[i];
            }
            if (want_tasks)
                for (; j < m.n; j++) CHECK(want_tasks[j] == 0);
            free(want_tasks);
            CHECK(sum == world);
            if (whole && world <= MAX_WHOLE_RANKS) {
                char *again = fuzz_text(data, size, 4);
                CHECK(again != NULL);
                whole_resolver(again, &l, world, data[2] % world, (data[0] >> 6) & 1, by_node, data[3]);
                free(again);
            }
        }
    }
    model_free(&m);
    cres__layout_free(&a, &l); /* frees text */
    free(copy);
    return 0;
}
