/* Unit tests for the scheduler backends of cluster_resolver.h: pbs, lsf, sge and flux, the
   MPI backend's hosts from a scheduler's allocation (DESIGN's rule 6), and auto's order over
   them. The environments are the shapes the schedulers document:
     PBS   PBS_NODEFILE, a line per slot (PBS Professional reference guide, "pbs_nodefile";
           Torque's nodes=N:ppn=M); pbsdsh(1) sets PBS_VNODENUM (the slot's line, from 0),
           PBS_NODENUM and PBS_TASKNUM for each task; HPE Cray PALS's mpiexec (ALCF's Polaris
           and Aurora "Running jobs" pages) sets PALS_RANKID, PALS_NODEID, PALS_LOCAL_RANKID,
           PALS_LOCAL_SIZE, PMI_RANK, PMI_SIZE, PMI_LOCAL_RANK and PMI_LOCAL_SIZE.
     LSF   LSB_MCPU_HOSTS "hostA 2 hostB 2" and LSB_DJOB_RANKFILE, a host per line per slot
           (IBM Spectrum LSF "Environment variables"); on CSM systems (Summit, Sierra) both
           list the launch node first, with one slot; jsrun sets JSM_NAMESPACE_RANK, _SIZE,
           _LOCAL_RANK and _LOCAL_SIZE (Lightning's LSFEnvironment,
           src/lightning/fabric/plugins/environments/lsf.py, and its tests'
           "batch\n10.10.10.0\n..." rank file).
     SGE   PE_HOSTFILE, "host slots queue processor-range" per line ("vm 4 all.q@vm
           UNDEFINED"), NSLOTS, JOB_ID, PE, NHOSTS (Grid Engine sge_pe(5)).
     Flux  FLUX_JOB_ID, FLUX_JOB_SIZE, FLUX_JOB_NNODES (flux-core src/shell/shell.c),
           FLUX_TASK_RANK, FLUX_TASK_LOCAL_ID (src/shell/task.c), PMI_RANK, PMI_SIZE (the pmi
           shell plugin, src/shell/pmi/pmi.c); the hosts from `flux hostlist -e -d '\n'`.
     MPI   Kubeflow's MPIJob launcher: OMPI_MCA_orte_default_hostfile=/etc/mpi/hostfile,
           "<job>-worker-<i>.<job>.<namespace>.svc slots=N" lines (kubeflow/mpi-operator
           pkg/controller/mpi_job_controller.go, newConfigMap).
   The environment is only given through the cres_config.getenv hook, over the table of
   tests/env_table.h (these tests never call setenv); the files are env_table.h's
   temporary files, removed when the group ends; the log hook keeps what the library says,
   to check where it took the hosts from. */

#define _POSIX_C_SOURCE 200809L
#define TEMP_PREFIX "/tmp/test_sched_" /* tests/env_table.h's temporary files */

#include "test_util.h"
#include "env_table.h"
#include "resolver_checks.h"

/* ---------------------------------------------------------------------------------------
   The environment: the table of tests/env_table.h behind the getenv hook; the files it
   names are env_table.h's temporary files. */

/* What the library logged (INFO and up) since the test began, a line per message. Not
   env_table.h's capture, which keeps DEBUG lines too: LOGGED() must find a message said
   at INFO or above. */
static char log_text[16384];

static void capture_info_log(void *user, cres_log_level level, const char *message) {
    size_t n = strlen(log_text);
    (void)user;
    if (level >= CRES_LOG_INFO) snprintf(log_text + n, sizeof log_text - n, "%s\n", message);
}

/* Every test starts from an empty environment and an empty log. */
static int reset(void **state) {
    (void)state;
    env_reset();
    log_text[0] = '\0';
    env_config();
    cfg.log.fn = capture_info_log;
    return 0;
}

/* ---------------------------------------------------------------------------------------
   What a resolver answers (the shared checks are in tests/resolver_checks.h) */

/* The resolved spec as the CLI's hostfile (machine 0) or machinefile (machine 1) formats. */
static const char *hosts_of(cres_resolver *r, int machine) {
    static char buf[2][4096];
    static int next;
    char *out = buf[next++ % 2];
    cres_cluster_spec *s = NULL;
    cres_error err;
    OK(cres_resolve(r, &s, &err));
    if (machine) OK(cres_spec_to_machinefile(s, out, sizeof buf[0], NULL, &err));
    else OK(cres_spec_to_hostfile(s, out, sizeof buf[0], NULL, &err));
    cres_spec_free(s);
    return out;
}

/* The launch info of the own task, every field but the master address (unlike
   resolver_checks.h's LAUNCH_IS). */
static void expect_own_launch_at(cres_resolver *r, int world, int rank, int local, int local_size,
                                 int node, int nodes, const char *master_host, int master_port,
                                 int line) {
    cres_launch_info i;
    cres_error err;
    cres_result got = cres_launch(r, &i, &err);
    if (got != CRES_OK) fail_msg("line %d: cres_launch: %s: %s", line, cres_result_string(got), err.message);
    if (i.world_size != world || i.rank != rank || i.local_rank != local || i.local_world_size != local_size ||
        i.node_rank != node || i.num_nodes != nodes || strcmp(i.master_host, master_host) != 0 ||
        i.master_port != master_port)
        fail_msg("line %d: launch info world %d rank %d local %d/%d node %d/%d master %s:%d, want world %d rank %d "
                 "local %d/%d node %d/%d master %s:%d",
                 line, i.world_size, i.rank, i.local_rank, i.local_world_size, i.node_rank, i.num_nodes,
                 i.master_host, i.master_port, world, rank, local, local_size, node, nodes, master_host, master_port);
}
#define EXPECT_LAUNCH(r, world, rank, local, local_size, node, nodes, host, port) \
    expect_own_launch_at(r, world, rank, local, local_size, node, nodes, host, port, __LINE__)

/* No own task (a job script): cres_task_id is -1, launch and master-of-own say so. */
static void expect_no_own_task(cres_resolver *r) {
    cres_launch_info i;
    cres_error err;
    char buf[256];
    assert_null(cres_task_type(r));
    assert_int_equal(cres_task_id(r), CRES_NO_TASK);
    EXPECT(cres_launch(r, &i, &err), CRES_ERR_NOT_FOUND);
    HAS(err.message, "no own task");
    OK(cres_tfconfig(r, buf, sizeof buf, NULL, &err));
    assert_null(strstr(buf, "\"task\""));
    OK(cres_master(r, buf, sizeof buf, NULL, &err));
    assert_string_equal(buf, ""); /* the default rule without a task */
}

/* The log holds `sub`. */
#define LOGGED(sub) HAS(log_text, sub)

/* The GPU count of a task (cres_num_accelerators_of): 0 when it reports no accelerator. */
static int gpus_of_task(cres_resolver *r, const char *type, int id) {
    cres_accelerators acc;
    cres_error err;
    OK(cres_num_accelerators_of(r, type, id, &acc, &err));
    return acc.count ? acc.items[0].count : 0;
}

/* ---------------------------------------------------------------------------------------
   The backends' options and resolvers */

/* Written out, not generated by a macro, so that tests/fuzz/fixture_seeds.py's replay of
   this file sees the options and the creates. */
static cres_pbs_options pbs_options(void) {
    cres_pbs_options o;
    memset(&o, 0, sizeof o);
    o.config = &cfg;
    return o;
}

static cres_resolver *pbs_with_at(cres_pbs_options o, int line) {
    cres_resolver *r = NULL;
    cres_error err;
    cres_result got = cres_pbs_resolver_create(&o, &r, &err);
    if (got != CRES_OK) fail_msg("line %d: pbs create: %s: %s", line, cres_result_string(got), err.message);
    assert_non_null(r);
    assert_string_equal(cres_resolver_name(r), "pbs");
    return r;
}

static cres_lsf_options lsf_options(void) {
    cres_lsf_options o;
    memset(&o, 0, sizeof o);
    o.config = &cfg;
    return o;
}

static cres_resolver *lsf_with_at(cres_lsf_options o, int line) {
    cres_resolver *r = NULL;
    cres_error err;
    cres_result got = cres_lsf_resolver_create(&o, &r, &err);
    if (got != CRES_OK) fail_msg("line %d: lsf create: %s: %s", line, cres_result_string(got), err.message);
    assert_non_null(r);
    assert_string_equal(cres_resolver_name(r), "lsf");
    return r;
}

static cres_sge_options sge_options(void) {
    cres_sge_options o;
    memset(&o, 0, sizeof o);
    o.config = &cfg;
    return o;
}

static cres_resolver *sge_with_at(cres_sge_options o, int line) {
    cres_resolver *r = NULL;
    cres_error err;
    cres_result got = cres_sge_resolver_create(&o, &r, &err);
    if (got != CRES_OK) fail_msg("line %d: sge create: %s: %s", line, cres_result_string(got), err.message);
    assert_non_null(r);
    assert_string_equal(cres_resolver_name(r), "sge");
    return r;
}

static cres_flux_options flux_options(void) {
    cres_flux_options o;
    memset(&o, 0, sizeof o);
    o.config = &cfg;
    return o;
}

static cres_resolver *flux_with_at(cres_flux_options o, int line) {
    cres_resolver *r = NULL;
    cres_error err;
    cres_result got = cres_flux_resolver_create(&o, &r, &err);
    if (got != CRES_OK) fail_msg("line %d: flux create: %s: %s", line, cres_result_string(got), err.message);
    assert_non_null(r);
    assert_string_equal(cres_resolver_name(r), "flux");
    return r;
}

static cres_mpi_options mpi_options(void) {
    cres_mpi_options o;
    memset(&o, 0, sizeof o);
    o.config = &cfg;
    return o;
}

static cres_resolver *mpi_with_at(cres_mpi_options o, int line) {
    cres_resolver *r = NULL;
    cres_error err;
    cres_result got = cres_mpi_resolver_create(&o, &r, &err);
    if (got != CRES_OK) fail_msg("line %d: mpi create: %s: %s", line, cres_result_string(got), err.message);
    assert_non_null(r);
    assert_string_equal(cres_resolver_name(r), "mpi");
    return r;
}

/* Auto with auto_options() (tests/resolver_checks.h); the pick is checked by auto_checked(). */
static cres_resolver *auto_with_at(cres_auto_options o, int line) {
    cres_resolver *r = NULL;
    cres_error err;
    cres_result got = cres_auto_resolver_create(&o, &r, &err);
    if (got != CRES_OK) fail_msg("line %d: auto create: %s: %s", line, cres_result_string(got), err.message);
    assert_non_null(r);
    return r;
}

#define PBS(o) pbs_with_at(o, __LINE__)
#define LSF(o) lsf_with_at(o, __LINE__)
#define SGE(o) sge_with_at(o, __LINE__)
#define FLUX(o) flux_with_at(o, __LINE__)
#define MPI(o) mpi_with_at(o, __LINE__)
#define AUTO(o, want) auto_checked(auto_with_at(o, __LINE__), want)

static cres_resolver *auto_checked(cres_resolver *r, const char *want) {
    assert_string_equal(cres_resolver_name(r), want);
    return r;
}

#define PBS_FAILS(o, want, a, b) FAILS_WITH(cres_pbs_resolver_create, o, want, a, b)
#define LSF_FAILS(o, want, a, b) FAILS_WITH(cres_lsf_resolver_create, o, want, a, b)
#define SGE_FAILS(o, want, a, b) FAILS_WITH(cres_sge_resolver_create, o, want, a, b)
#define FLUX_FAILS(o, want, a, b) FAILS_WITH(cres_flux_resolver_create, o, want, a, b)
#define MPI_FAILS(o, want, a, b) FAILS_WITH(cres_mpi_resolver_create, o, want, a, b)
#define AUTO_FAILS(o, want, a, b) FAILS_WITH(cres_auto_resolver_create, o, want, a, b)

/* The spec of `hosts` hosts with `per` ranks each, ports from 8888, job worker. */
static const char *block_spec(const char *const *hosts, size_t count, int per) {
    static char buf[2][4096];
    static int next;
    char *out = buf[next++ % 2];
    size_t i, n = 0;
    int k;
    n += (size_t)snprintf(out + n, sizeof buf[0] - n, "{\"worker\": [");
    for (i = 0; i < count; i++)
        for (k = 0; k < per; k++)
            n += (size_t)snprintf(out + n, sizeof buf[0] - n, "%s\"%s:%d\"", i || k ? ", " : "", hosts[i], 8888 + k);
    snprintf(out + n, sizeof buf[0] - n, "]}");
    return out;
}

/* ---------------------------------------------------------------------------------------
   PBS */

/* Polaris: `qsub -l select=2:ncpus=64:mpiprocs=4`, then `mpiexec -n 8 --ppn 4` (Cray PALS).
   PBS_NODEFILE has mpiprocs lines per node. */
#define POLARIS0 "x3005c0s13b0n0.hsn.cm.polaris.alcf.anl.gov"
#define POLARIS1 "x3005c0s19b1n0.hsn.cm.polaris.alcf.anl.gov"
static const char polaris_nodefile[] = POLARIS0 "\n" POLARIS0 "\n" POLARIS0 "\n" POLARIS0 "\n" POLARIS1 "\n" POLARIS1
                                       "\n" POLARIS1 "\n" POLARIS1 "\n";
static const char pbs_job[] = "PBS_JOBID=2028763.polaris-pbs-01.hsn.cm.polaris.alcf.anl.gov\n"
                              "PBS_JOBNAME=train\n"
                              "PBS_QUEUE=debug\n"
                              "PBS_ENVIRONMENT=PBS_BATCH\n"
                              "PBS_O_WORKDIR=/home/user/job\n"
                              "PBS_O_HOST=polaris-login-01\n"
                              "NCPUS=64\n";

/* Rank r of `mpiexec -n size --ppn ppn`, as PALS tells it. */
static void pals_rank(int r, int size, int ppn) {
    int local_size = size - r / ppn * ppn < ppn ? size - r / ppn * ppn : ppn; /* a last node's rest */
    env_setf("PALS_RANKID", "%d", r);
    env_setf("PALS_NODEID", "%d", r / ppn);
    env_setf("PALS_LOCAL_RANKID", "%d", r % ppn);
    env_setf("PALS_LOCAL_SIZE", "%d", local_size);
    env_set("PALS_APID", "ce3c1f04-8ec1-4b1c-a0a4-2d1f6e5c4b02");
    env_set("PALS_DEPTH", "1");
    env_setf("PMI_RANK", "%d", r);
    env_setf("PMI_SIZE", "%d", size);
    env_setf("PMI_LOCAL_RANK", "%d", r % ppn);
    env_setf("PMI_LOCAL_SIZE", "%d", local_size);
}

static void pbs_pals_every_rank(void **state) {
    static const char *const hosts[] = {POLARIS0, POLARIS1};
    const char *nodefile = temp_file(polaris_nodefile);
    int rank;
    (void)state;
    for (rank = 0; rank < 8; rank++) {
        cres_resolver *r;
        char want[128];
        env_reset();
        env_lines(pbs_job);
        env_set("PBS_NODEFILE", nodefile);
        pals_rank(rank, 8, 4);
        r = PBS(pbs_options());
        assert_string_equal(resolved_json(r), block_spec(hosts, 2, 4));
        expect_task(r, "worker", rank);
        EXPECT_LAUNCH(r, 8, rank, rank % 4, 4, rank / 4, 2, POLARIS0, 8888);
        snprintf(want, sizeof want, "grpc://%s:%d", hosts[rank / 4], 8888 + rank % 4);
        assert_string_equal(master_of(r, NULL, -1, NULL), want);
        assert_string_equal(hosts_of(r, 0), POLARIS0 " slots=4\n" POLARIS1 " slots=4\n");
        assert_string_equal(hosts_of(r, 1), POLARIS0 ":4\n" POLARIS1 ":4\n");
        assert_string_equal(cres_rpc_layer(r), "grpc");
        cres_resolver_free(r);
    }
    LOGGED("pbs: hosts from PBS_NODEFILE");
}

/* Fewer ranks than slots: the first node's slots first, the second's rest unused. */
static void pbs_pals_fewer_ranks_than_slots(void **state) {
    cres_pbs_options o = pbs_options();
    cres_resolver *r;
    (void)state;
    env_lines(pbs_job);
    env_set("PBS_NODEFILE", temp_file(polaris_nodefile));
    pals_rank(5, 6, 4);
    r = PBS(o);
    assert_string_equal(resolved_json(r), dq("{'worker': ['" POLARIS0 ":8888', '" POLARIS0 ":8889', '" POLARIS0
                                             ":8890', '" POLARIS0 ":8891', '" POLARIS1 ":8888', '" POLARIS1
                                             ":8889']}"));
    EXPECT_LAUNCH(r, 6, 5, 1, 2, 1, 2, POLARIS0, 8888);
    cres_resolver_free(r);
}

/* A nodefile of a line per node (`select=2:mpiprocs=1`, as on Polaris and Aurora) with
   `mpiexec --ppn 4`: each node holds PALS_LOCAL_SIZE ranks. A per-node count whose ranks
   would pass the task limit is not applied: the nodefile's one slot per node stands, and
   PALS's local size is then named as disagreeing. */
static void pbs_pals_line_per_node(void **state) {
    static const char *const hosts[] = {POLARIS0, POLARIS1};
    cres_pbs_options o = pbs_options();
    cres_resolver *r;
    (void)state;
    env_lines(pbs_job);
    env_set("PBS_NODEFILE", temp_file(POLARIS0 "\n" POLARIS1 "\n"));
    pals_rank(5, 8, 4);
    r = PBS(o);
    assert_string_equal(resolved_json(r), block_spec(hosts, 2, 4));
    EXPECT_LAUNCH(r, 8, 5, 1, 4, 1, 2, POLARIS0, 8888);
    cres_resolver_free(r);
    pals_rank(1, 2, 1);
    env_set("PALS_LOCAL_SIZE", "1000000");
    PBS_FAILS(o, CRES_ERR_ENVIRONMENT, "rank 1 should be task 0 of 1 on node 1",
              "says task 0 of 1000000 on node 1 (PALS_NODEID, PALS_LOCAL_RANKID, PALS_LOCAL_SIZE)");
}

/* `mpiexec -n 6 --ppn 4` on two nodes of a line each: the second node holds the last 2 ranks,
   and its ranks say so (PALS_LOCAL_SIZE=2): every rank answers the same placement, 4 and 2
   (ALCF Polaris "Running jobs": mpiexec -n NTOTRANKS --ppn NRANKS_PER_NODE; HPE Cray PALS
   mpiexec(1)). Three nodes of which the job uses two give the same. */
static void pbs_pals_last_node_holds_fewer(void **state) {
    static const char *const nodefiles[] = {POLARIS0 "\n" POLARIS1 "\n", POLARIS0 "\n" POLARIS1 "\nx3005c0s25b0n0\n"};
    cres_pbs_options o = pbs_options();
    size_t f;
    int rank;
    (void)state;
    for (f = 0; f < 2; f++) {
        for (rank = 0; rank < 6; rank++) {
            cres_resolver *r;
            env_reset();
            env_lines(pbs_job);
            env_set("PBS_NODEFILE", temp_file(nodefiles[f]));
            pals_rank(rank, 6, 4);
            r = PBS(o);
            assert_string_equal(resolved_json(r), dq("{'worker': ['" POLARIS0 ":8888', '" POLARIS0 ":8889', '" POLARIS0
                                                     ":8890', '" POLARIS0 ":8891', '" POLARIS1 ":8888', '" POLARIS1
                                                     ":8889']}"));
            EXPECT_LAUNCH(r, 6, rank, rank % 4, rank < 4 ? 4 : 2, rank / 4, 2, POLARIS0, 8888);
            cres_resolver_free(r);
        }
    }
    /* -n 10 --ppn 4 on three: 4, 4, 2, read alike on the middle node and the last */
    env_set("PBS_NODEFILE", temp_file(nodefiles[1]));
    pals_rank(9, 10, 4);
    cres_resolver *r = PBS(o);
    EXPECT_LAUNCH(r, 10, 9, 1, 2, 2, 3, POLARIS0, 8888);
    assert_string_equal(hosts_of(r, 0), POLARIS0 " slots=4\n" POLARIS1 " slots=4\nx3005c0s25b0n0 slots=2\n");
    cres_resolver_free(r);
}

/* What PALS says of the own rank must be where the nodefile's slots put it. */
static void pbs_pals_disagreement_is_an_error(void **state) {
    cres_pbs_options o = pbs_options();
    (void)state;
    env_set("PBS_NODEFILE", temp_file(polaris_nodefile));
    pals_rank(5, 8, 4);
    env_set("PALS_NODEID", "0");
    PBS_FAILS(o, CRES_ERR_ENVIRONMENT, "rank 5", "node 0");
    pals_rank(5, 8, 4);
    env_set("PALS_LOCAL_RANKID", "2");
    PBS_FAILS(o, CRES_ERR_ENVIRONMENT, "rank 5", "task 2");
    pals_rank(5, 8, 4);
    env_set("PALS_LOCAL_SIZE", "3");
    PBS_FAILS(o, CRES_ERR_ENVIRONMENT, "rank 5", "of 3 on node 1 (PALS_NODEID, PALS_LOCAL_RANKID, PALS_LOCAL_SIZE)");
    pals_rank(5, 8, 4); /* PALS sets PMI's name of the rank too */
    env_set("PMI_RANK", "4");
    PBS_FAILS(o, CRES_ERR_ENVIRONMENT, "PMI_RANK=4", "PALS_RANKID gives 5");
    /* `mpiexec --ppn 2` on nodes of 4 slots: rank 2 runs on the second node, where the
       slots put no rank at all */
    pals_rank(2, 4, 2);
    PBS_FAILS(o, CRES_ERR_ENVIRONMENT, "rank 2 should be task 2 of 4 on node 0",
              "says task 0 of 2 on node 1 (PALS_NODEID");
    /* `mpiexec -n 6 --ppn 3`: rank 3 is the second node's first, not the first node's fourth */
    pals_rank(3, 6, 3);
    PBS_FAILS(o, CRES_ERR_ENVIRONMENT, "rank 3", "task 0 of 3 on node 1");
    /* PALS_NODEID past the nodes */
    pals_rank(5, 8, 4);
    env_set("PALS_NODEID", "2");
    PBS_FAILS(o, CRES_ERR_ENVIRONMENT, "PALS_NODEID", "\"2\"");
    pals_rank(5, 8, 4);
    env_set("PALS_LOCAL_RANKID", "-1");
    PBS_FAILS(o, CRES_ERR_ENVIRONMENT, "PALS_LOCAL_RANKID", NULL);
    pals_rank(5, 8, 4);
    env_set("PALS_LOCAL_SIZE", "0");
    PBS_FAILS(o, CRES_ERR_ENVIRONMENT, "PALS_LOCAL_SIZE", NULL);
}

static void pbs_pals_bad_rank_variables(void **state) {
    cres_pbs_options o = pbs_options();
    (void)state;
    env_set("PBS_NODEFILE", temp_file(polaris_nodefile));
    pals_rank(5, 8, 4);
    env_unset("PMI_SIZE");
    PBS_FAILS(o, CRES_ERR_ENVIRONMENT, "PMI_SIZE", "not set");
    pals_rank(5, 8, 4);
    env_set("PALS_RANKID", "8");
    PBS_FAILS(o, CRES_ERR_ENVIRONMENT, "PALS_RANKID", "\"8\"");
    env_set("PALS_RANKID", "five");
    PBS_FAILS(o, CRES_ERR_ENVIRONMENT, "PALS_RANKID", "\"five\"");
    pals_rank(5, 9, 4); /* nine ranks on eight slots */
    PBS_FAILS(o, CRES_ERR_ENVIRONMENT, "8 slots", "9 ranks");
}

/* Torque `qsub -l nodes=2:ppn=2`, then `pbsdsh`: a task per slot, PBS_VNODENUM its line; the
   mother superior numbers the tasks (PBS_TASKNUM) from 1, the job script's, so pbsdsh's come
   after it (torque src/resmom/mom_comm.c at 34ff845: pbs_task_create, ji_taskid). */
static void pbs_pbsdsh_every_task(void **state) {
    static const char *const hosts[] = {"node01", "node02"};
    const char *nodefile = temp_file("node01\nnode01\nnode02\nnode02\n");
    int vnode;
    (void)state;
    for (vnode = 0; vnode < 4; vnode++) {
        cres_resolver *r;
        env_reset();
        env_set("PBS_JOBID", "4711.torque-server");
        env_set("PBS_NODEFILE", nodefile);
        env_setf("PBS_VNODENUM", "%d", vnode);
        env_setf("PBS_NODENUM", "%d", vnode / 2);
        env_setf("PBS_TASKNUM", "%d", vnode + 2);
        r = PBS(pbs_options());
        assert_string_equal(resolved_json(r), block_spec(hosts, 2, 2));
        expect_task(r, "worker", vnode);
        EXPECT_LAUNCH(r, 4, vnode, vnode % 2, 2, vnode / 2, 2, "node01", 8888);
        cres_resolver_free(r);
    }
}

/* Torque's job script has PBS_VNODENUM=0 too, beside PBS_TASKNUM=1 (torque
   src/resmom/start_exec.c at 34ff845 sets it for the job's shell; a capture: Torque 6.0.2,
   gravity-doc.github.io/Basic/Job.html): the allocation, no own task. */
static void pbs_torque_job_script_is_no_task(void **state) {
    static const char *const hosts[] = {"node01", "node02"};
    const char *nodefile = temp_file("node01\nnode01\nnode02\nnode02\n");
    cres_resolver *r;
    (void)state;
    env_reset();
    env_set("PBS_JOBID", "4711.torque-server");
    env_set("PBS_NODEFILE", nodefile);
    env_set("PBS_ENVIRONMENT", "PBS_BATCH");
    env_set("PBS_VNODENUM", "0");
    env_set("PBS_NODENUM", "0");
    env_set("PBS_TASKNUM", "1");
    env_set("PBS_NP", "4");
    r = PBS(pbs_options());
    assert_string_equal(resolved_json(r), block_spec(hosts, 2, 2));
    assert_int_equal(cres_task_id(r), CRES_NO_TASK);
    cres_resolver_free(r);
    r = AUTO(auto_options(), "pbs");
    assert_int_equal(cres_task_id(r), CRES_NO_TASK);
    cres_resolver_free(r);
}

/* pbsdsh runs task v on line v's host: a nodefile whose lines of one host are apart
   ("select=1:ncpus=1+1:ncpus=1+1:ncpus=1" packed on two hosts) must not put task 1 on
   node01, where it does not run. Either the own task is on its line's host or the create
   refuses, naming PBS_VNODENUM. */
static void pbs_pbsdsh_task_runs_on_its_line(void **state) {
    cres_pbs_options o = pbs_options();
    cres_resolver *r = NULL;
    cres_error err;
    cres_result got;
    char master[256];
    (void)state;
    env_set("PBS_NODEFILE", temp_file("node01\nnode02\nnode01\n"));
    env_set("PBS_VNODENUM", "1");
    got = cres_pbs_resolver_create(&o, &r, &err);
    if (got == CRES_OK) {
        OK(cres_master(r, master, sizeof master, NULL, &err));
        cres_resolver_free(r);
        if (strncmp(master, "grpc://node02:", 14) != 0)
            fail_msg("PBS_VNODENUM=1 runs on node02 (line 1 of the nodefile), but its address is %s", master);
    } else {
        assert_int_equal(got, CRES_ERR_ENVIRONMENT);
        HAS(err.message, "PBS_VNODENUM");
    }
}

/* pbsdsh's line check: a nodefile that gives counts ("host:N", "host slots=N") is not a
   line per slot and is not checked line by line; blank and comment lines are not slots;
   hosts whose names differ in length are told apart too. */
static void pbs_pbsdsh_counts_blanks_and_names(void **state) {
    cres_pbs_options o = pbs_options();
    cres_resolver *r;
    (void)state;
    env_set("PBS_VNODENUM", "3");
    env_set("PBS_NODEFILE", temp_file("node01:2\nnode02:2\n"));
    r = PBS(o);
    assert_string_equal(resolved_json(r), dq("{'worker': ['node01:8888', 'node01:8889', 'node02:8888', 'node02:8889']}"));
    EXPECT_LAUNCH(r, 4, 3, 1, 2, 1, 2, "node01", 8888);
    cres_resolver_free(r);
    env_set("PBS_NODEFILE", temp_file("node01 slots=2\nnode02 slots=2\n"));
    r = PBS(o);
    EXPECT_LAUNCH(r, 4, 3, 1, 2, 1, 2, "node01", 8888);
    cres_resolver_free(r);
    env_set("PBS_VNODENUM", "2");
    env_set("PBS_NODEFILE", temp_file("node01\n\n# the second node\nnode01\nnode02\nnode02\n"));
    r = PBS(o);
    assert_string_equal(resolved_json(r), dq("{'worker': ['node01:8888', 'node01:8889', 'node02:8888', 'node02:8889']}"));
    EXPECT_LAUNCH(r, 4, 2, 0, 2, 1, 2, "node01", 8888);
    cres_resolver_free(r);
    env_set("PBS_VNODENUM", "0");
    env_set("PBS_NODEFILE", temp_file("node01\nnode2\nnode01\n"));
    PBS_FAILS(o, CRES_ERR_ENVIRONMENT, "pbs: PBS_NODEFILE line 2 is \"node2\" while \"node01\" has lines after it",
              "each host's lines must be together");
}

static void pbs_pbsdsh_bad_vnode(void **state) {
    cres_pbs_options o = pbs_options();
    (void)state;
    env_set("PBS_NODEFILE", temp_file("node01\nnode01\nnode02\nnode02\n"));
    env_set("PBS_VNODENUM", "4");
    PBS_FAILS(o, CRES_ERR_ENVIRONMENT, "PBS_VNODENUM", "\"4\"");
    env_set("PBS_VNODENUM", "-1");
    PBS_FAILS(o, CRES_ERR_ENVIRONMENT, "PBS_VNODENUM", "\"-1\"");
    env_set("PBS_VNODENUM", "1x");
    PBS_FAILS(o, CRES_ERR_ENVIRONMENT, "PBS_VNODENUM", "\"1x\"");
}

/* The job script itself: no rank variable, so the allocation is the cluster and no task
   is this process's. Repeated hosts merge where they first appear. */
static void pbs_job_script(void **state) {
    cres_pbs_options o = pbs_options();
    cres_resolver *r;
    (void)state;
    env_lines(pbs_job);
    env_set("PBS_NODEFILE", temp_file("node01\nnode02\nnode01\nnode02\nnode03\n"));
    r = PBS(o);
    assert_string_equal(resolved_json(r),
                        dq("{'worker': ['node01:8888', 'node01:8889', 'node02:8888', 'node02:8889', 'node03:8888']}"));
    assert_string_equal(hosts_of(r, 0), "node01 slots=2\nnode02 slots=2\nnode03 slots=1\n");
    assert_string_equal(hosts_of(r, 1), "node01:2\nnode02:2\nnode03:1\n");
    expect_no_own_task(r);
    LOGGED("pbs: hosts from PBS_NODEFILE");
    LOGGED("3 hosts, 5 slots");
    LOGGED("no rank variable");
    cres_resolver_free(r);
    /* the task options name one: then it launches */
    o.task_type = "worker";
    o.task_id = 3;
    r = PBS(o);
    expect_task(r, "worker", 3);
    EXPECT_LAUNCH(r, 5, 3, 1, 2, 1, 3, "node01", 8888);
    cres_resolver_free(r);
    /* and so does cres_set_task */
    r = PBS(pbs_options());
    {
        cres_error err;
        OK(cres_set_task(r, "worker", 4, &err));
    }
    EXPECT_LAUNCH(r, 5, 4, 0, 1, 2, 3, "node01", 8888);
    cres_resolver_free(r);
}

/* Jobs take the ranks in order, chief first; port_base moves every port. */
static void pbs_jobs_and_port_base(void **state) {
    static const cres_job_count jobs[] = {{"worker", 3}, {"chief", 1}};
    cres_pbs_options o = pbs_options();
    cres_resolver *r;
    (void)state;
    env_set("PBS_NODEFILE", temp_file("node01\nnode01\nnode02\nnode02\n"));
    env_set("PBS_VNODENUM", "2");
    o.jobs = jobs;
    o.jobs_count = 2;
    o.port_base = 7000;
    r = PBS(o);
    assert_string_equal(resolved_json(r),
                        dq("{'chief': ['node01:7000'], 'worker': ['node01:7001', 'node02:7000', 'node02:7001']}"));
    expect_task(r, "worker", 1);
    assert_string_equal(master_of(r, "chief", 0, NULL), "grpc://node01:7000");
    EXPECT_LAUNCH(r, 4, 2, 0, 2, 1, 2, "node01", 7000);
    cres_resolver_free(r);
    o.jobs_count = 1; /* worker 3 of 4 slots */
    PBS_FAILS(o, CRES_ERR_ENVIRONMENT, "3 tasks", "4");
    o.jobs_count = 2;
    o.port_base = 65535; /* two ranks on a node need 65536 */
    PBS_FAILS(o, CRES_ERR_ENVIRONMENT, "65535", NULL);
}

/* PBS does not say whether $CUDA_VISIBLE_DEVICES lists the node's GPUs or, after a wrapper
   script, this task's: it is left as it is (devices "", its length the task's count) unless
   the caller says it is the node's, which splits it among the node's tasks. */
static void pbs_gpus(void **state) {
    cres_pbs_options o = pbs_options();
    cres_resolver *r;
    (void)state;
    env_set("PBS_NODEFILE", temp_file("gpu01\ngpu01\ngpu02\ngpu02\n"));
    env_set("PBS_VNODENUM", "3");
    env_set("CUDA_VISIBLE_DEVICES", "4,5,6,7");
    r = PBS(o);
    assert_int_equal(gpus_of(r), 4);
    assert_string_equal(devices_of(r, NULL, -1), "");
    assert_string_equal(devices_of(r, "worker", 2), "");
    LOGGED("pbs: CUDA_VISIBLE_DEVICES=\"4,5,6,7\" left as it is: PBS does not say (under Cray PALS a "
           "wrapper script may have bound it) whether it lists the node's GPUs or this task's own");
    cres_resolver_free(r);
    o.gpus_per_node = 4;
    r = PBS(o);
    assert_int_equal(gpus_of(r), 2);
    assert_string_equal(devices_of(r, NULL, -1), "6,7");
    assert_string_equal(devices_of(r, "worker", 2), "4,5");
    cres_resolver_free(r);
    o.gpus_per_node = 0;
    o.gpus_per_task = 1;
    r = PBS(o);
    assert_int_equal(gpus_of(r), 1);
    assert_string_equal(devices_of(r, NULL, -1), "5");
    cres_resolver_free(r);
    o.gpus_per_task = 0;
    o.gpus_per_node = CRES_NO_GPUS;
    r = PBS(o);
    assert_int_equal(gpus_of(r), 0);
    assert_string_equal(devices_of(r, NULL, -1), "");
    cres_resolver_free(r);
    o.gpus_per_node = 2;
    o.gpus_per_task = 2; /* two tasks of two GPUs on a node of two */
    PBS_FAILS(o, CRES_ERR_ENVIRONMENT, "GPUs", NULL);
    /* the job script: every task's GPUs, but none of its own */
    env_unset("PBS_VNODENUM");
    o = pbs_options();
    o.gpus_per_node = 4;
    r = PBS(o);
    expect_no_own_task(r);
    assert_int_equal(gpus_of_task(r, "worker", 3), 2);
    assert_string_equal(devices_of(r, "worker", 3), "6,7");
    {
        char buf[64];
        cres_error err;
        cres_accelerators acc;
        EXPECT(cres_num_accelerators(r, &acc, &err), CRES_ERR_NOT_FOUND); /* a node's share, of no node */
        HAS(err.message, "pbs: no task given and the own task is unknown");
        EXPECT(cres_visible_devices(r, buf, sizeof buf, NULL, &err), CRES_ERR_NOT_FOUND);
        HAS(err.message, "pbs: no task given and the own task is unknown");
        EXPECT(cres_visible_devices_of(r, "worker", CRES_OWN_TASK, buf, sizeof buf, NULL, &err), CRES_ERR_NOT_FOUND);
        HAS(err.message, "pbs: no task given and the own task is unknown");
        EXPECT(cres_visible_devices_of(r, NULL, 1, buf, sizeof buf, NULL, &err), CRES_ERR_NOT_FOUND);
        HAS(err.message, "pbs: no task given and the own task is unknown");
    }
    cres_resolver_free(r);
}

/* Every bad PBS_NODEFILE is an error naming the file (its path or the variable). */
static void pbs_nodefile_unset(void **state) {
    cres_pbs_options o = pbs_options();
    (void)state;
    PBS_FAILS(o, CRES_ERR_ENVIRONMENT, "PBS_NODEFILE", "not set");
    env_set("PBS_JOBID", "4711.server");
    PBS_FAILS(o, CRES_ERR_ENVIRONMENT, "PBS_NODEFILE is not set", "PBS_JOBID");
    env_set("PBS_NODEFILE", "");
    PBS_FAILS(o, CRES_ERR_ENVIRONMENT, "PBS_NODEFILE", NULL);
}

static void pbs_nodefile_missing_names_the_file(void **state) {
    cres_pbs_options o = pbs_options();
    (void)state;
    env_set("PBS_NODEFILE", "/nonexistent/test_sched/4711.server");
    PBS_FAILS(o, CRES_ERR_ENVIRONMENT, "/nonexistent/test_sched/4711.server", NULL);
}

/* A bad file's message must say which file: the path or PBS_NODEFILE. */
static void expect_names_file(cres_result want, const char *var, const char *path, const char *sub, int line) {
    cres_pbs_options o = pbs_options();
    cres_resolver *r = NULL;
    cres_error err;
    cres_result got;
    env_set(var, path);
    got = cres_pbs_resolver_create(&o, &r, &err);
    expect_failure(got, r, &err, want, sub, NULL, line);
    if (!strstr(err.message, path) && !strstr(err.message, var))
        fail_msg("line %d: \"%s\" names neither %s nor %s", line, err.message, var, path);
}

static void pbs_nodefile_unreadable_names_the_file(void **state) {
    (void)state;
    expect_names_file(CRES_ERR_ENVIRONMENT, "PBS_NODEFILE", temp_dir(), NULL, __LINE__);
}

static void pbs_nodefile_empty_names_the_file(void **state) {
    (void)state;
    expect_names_file(CRES_ERR_ENVIRONMENT, "PBS_NODEFILE", temp_file(""), NULL, __LINE__);
    expect_names_file(CRES_ERR_ENVIRONMENT, "PBS_NODEFILE", temp_file("\n\n  \n\t\n"), NULL, __LINE__);
}

static void pbs_nodefile_bad_lines_name_file_and_line(void **state) {
    char line[400];
    (void)state;
    memset(line, 'a', 300);
    memcpy(line + 300, "\n", 2);
    {
        char text[500];
        snprintf(text, sizeof text, "node01\n%s", line);
        expect_names_file(CRES_ERR_ENVIRONMENT, "PBS_NODEFILE", temp_file(text), "line 2", __LINE__);
    }
    expect_names_file(CRES_ERR_ENVIRONMENT, "PBS_NODEFILE", temp_file("node01\nnode02 extra\n"), "line 2", __LINE__);
    expect_names_file(CRES_ERR_ENVIRONMENT, "PBS_NODEFILE", temp_file("node01\nnode\x01x\n"), "line 2", __LINE__);
    expect_names_file(CRES_ERR_ENVIRONMENT, "PBS_NODEFILE", temp_file_n("node01\nno\0de02\n", 15), NULL, __LINE__);
}

/* ---------------------------------------------------------------------------------------
   LSF */

/* Summit: `bsub -nnodes 2`, then `jsrun -n 4 -a 1 -r 2`. The rank file lists the launch
   node (one slot) and then a line per slot. */
static const char summit_rankfile[] = "batch3\na01n01\na01n01\na01n02\na01n02\n";
static const char lsf_job[] = "LSB_JOBID=1170513\n"
                              "LSB_JOBNAME=train\n"
                              "LSB_QUEUE=batch\n"
                              "LSB_HOSTS=batch3 a01n01 a01n01 a01n02 a01n02\n"
                              "LSB_MCPU_HOSTS=batch3 1 a01n01 2 a01n02 2\n"
                              "LSF_BINDIR=/opt/ibm/spectrum_mpi/lsf/bin\n"
                              "CSM_ALLOCATION_ID=1088245\n";

static void jsm_rank(int r, int size, int per_node) {
    env_setf("JSM_NAMESPACE_RANK", "%d", r);
    env_setf("JSM_NAMESPACE_SIZE", "%d", size);
    env_setf("JSM_NAMESPACE_LOCAL_RANK", "%d", r % per_node);
    env_setf("JSM_NAMESPACE_LOCAL_SIZE", "%d", per_node);
    env_setf("OMPI_COMM_WORLD_RANK", "%d", r);
    env_setf("OMPI_COMM_WORLD_SIZE", "%d", size);
    env_setf("PMIX_RANK", "%d", r);
}

static void lsf_jsrun_every_rank_csm(void **state) {
    static const char *const hosts[] = {"a01n01", "a01n02"};
    const char *rankfile = temp_file(summit_rankfile);
    int rank;
    (void)state;
    for (rank = 0; rank < 4; rank++) {
        cres_resolver *r;
        env_reset();
        env_lines(lsf_job);
        env_set("LSB_DJOB_RANKFILE", rankfile);
        jsm_rank(rank, 4, 2);
        r = LSF(lsf_options());
        assert_string_equal(resolved_json(r), block_spec(hosts, 2, 2));
        expect_task(r, "worker", rank);
        EXPECT_LAUNCH(r, 4, rank, rank % 2, 2, rank / 2, 2, "a01n01", 8888);
        assert_string_equal(hosts_of(r, 0), "a01n01 slots=2\na01n02 slots=2\n");
        cres_resolver_free(r);
    }
    LOGGED("lsf: hosts from LSB_DJOB_RANKFILE");
    LOGGED("leaving out the launch node batch3");
}

/* jsrun gives each resource set its own GPUs (`jsrun -n 4 -a 1 -g 1`: CUDA_VISIBLE_DEVICES
   "0" in every set): passed on unchanged; a gpus_per_node asking to split it is an error. */
static void lsf_jsrun_gpus_are_the_resource_sets(void **state) {
    cres_lsf_options o = lsf_options();
    cres_resolver *r;
    (void)state;
    env_lines(lsf_job);
    env_set("LSB_DJOB_RANKFILE", temp_file(summit_rankfile));
    jsm_rank(3, 4, 2);
    env_set("CUDA_VISIBLE_DEVICES", "0");
    r = LSF(o);
    assert_int_equal(gpus_of(r), 1);
    assert_string_equal(devices_of(r, NULL, -1), "");
    LOGGED("lsf: CUDA_VISIBLE_DEVICES=\"0\" is this task's own (JSM_NAMESPACE_RANK is set: jsrun binds GPUs to "
           "each resource set): passed on unchanged");
    cres_resolver_free(r);
    o.gpus_per_node = 6;
    LSF_FAILS(o, CRES_ERR_ENVIRONMENT, "--gpus-per-node", "jsrun");
    /* without jsrun LSF does not say */
    env_reset();
    log_text[0] = '\0';
    env_lines(lsf_job);
    env_set("LSB_DJOB_RANKFILE", temp_file(summit_rankfile));
    env_set("CUDA_VISIBLE_DEVICES", "0,1");
    r = LSF(lsf_options());
    assert_int_equal(gpus_of(r), 2);
    LOGGED("lsf: CUDA_VISIBLE_DEVICES=\"0,1\" left as it is: LSF does not say");
    cres_resolver_free(r);
}

/* Lightning's test rank file: "batch" is the launch node, each host one slot. */
static void lsf_lightning_rankfile(void **state) {
    cres_lsf_options o = lsf_options();
    cres_resolver *r;
    (void)state;
    env_set("LSB_JOBID", "1234");
    env_set("CSM_ALLOCATION_ID", "77");
    env_set("LSB_DJOB_RANKFILE", temp_file("batch\n10.10.10.0\n10.10.10.1\n10.10.10.2\n10.10.10.3"));
    env_set("JSM_NAMESPACE_SIZE", "4");
    env_set("JSM_NAMESPACE_RANK", "3");
    r = LSF(o);
    assert_string_equal(resolved_json(r),
                        dq("{'worker': ['10.10.10.0:8888', '10.10.10.1:8888', '10.10.10.2:8888', '10.10.10.3:8888']}"));
    /* Lightning's main address is the first host after the launch node */
    EXPECT_LAUNCH(r, 4, 3, 0, 1, 3, 4, "10.10.10.0", 8888);
    cres_resolver_free(r);
    /* Lightning's test also says local rank 1, which one slot per host cannot hold */
    env_set("JSM_NAMESPACE_LOCAL_RANK", "1");
    LSF_FAILS(o, CRES_ERR_ENVIRONMENT, "rank 3", "task 1");
}

/* `jsrun -n 2 -r 1` on nodes of 42 slots: one rank per node, which the slots (filled in
   order) do not say. jsrun names no slots: without its local size the placement is unsaid, an
   error naming both, not addresses on the wrong slots; with JSM_NAMESPACE_LOCAL_SIZE (the
   resource sets per host, jsrun -r) the same on every host, packed in host order (OLCF's
   Summit guide: `jsrun -n12 -r6` is 6 per node), when the size is the hosts times it. */
static void lsf_jsrun_resource_sets_disagree(void **state) {
    cres_lsf_options o = lsf_options();
    cres_resolver *r;
    (void)state;
    env_set("CSM_ALLOCATION_ID", "1088245");
    env_set("LSB_MCPU_HOSTS", "batch3 1 a01n01 42 a01n02 42");
    env_set("JSM_NAMESPACE_RANK", "1");
    env_set("JSM_NAMESPACE_SIZE", "2");
    LSF_FAILS(o, CRES_ERR_ENVIRONMENT, "JSM_NAMESPACE_SIZE=2",
              "LSB_MCPU_HOSTS holds 84 slots on 2 hosts besides the launch node");
    env_set("JSM_NAMESPACE_LOCAL_RANK", "0");
    env_set("JSM_NAMESPACE_LOCAL_SIZE", "1");
    r = LSF(o);
    assert_string_equal(resolved_json(r), dq("{'worker': ['a01n01:8888', 'a01n02:8888']}"));
    LAUNCH_IS(r, 2, 1, 0, 1, 1, 2, "a01n01", 8888, "a01n01:8888");
    cres_resolver_free(r);
    env_set("JSM_NAMESPACE_LOCAL_SIZE", "2"); /* 2 per host is 4 ranks, not 2 */
    LSF_FAILS(o, CRES_ERR_ENVIRONMENT, "JSM_NAMESPACE_SIZE=2", "84 slots");
    env_set("LSB_MCPU_HOSTS", "a01n01 42 a01n02 1"); /* a host without the slots for them */
    env_set("JSM_NAMESPACE_SIZE", "4");
    env_set("JSM_NAMESPACE_RANK", "3");
    LSF_FAILS(o, CRES_ERR_ENVIRONMENT, "JSM_NAMESPACE_SIZE=4", "43 slots on 2 hosts;");
    env_set("LSB_MCPU_HOSTS", "a01n01 42 a01n02 42"); /* no launch node: 2 each */
    env_set("JSM_NAMESPACE_LOCAL_RANK", "1");
    r = LSF(o);
    LAUNCH_IS(r, 4, 3, 1, 2, 1, 2, "a01n01", 8888, "a01n01:8888");
    cres_resolver_free(r);
}

/* jsrun's ranks on a rank file whose first line is the one-slot launch node ("batch", then
   four compute hosts), CSM_ALLOCATION_ID unset: the slots are JSM_NAMESPACE_SIZE + 1, so the
   first host is the launch node (Lightning's LSFEnvironment drops it under jsrun too). A
   count that is neither the slots nor one fewer names both; with CSM_ALLOCATION_ID set the
   launch node is never a rank's, so every slot is one too many. */
static void lsf_jsrun_launch_node_by_count(void **state) {
    cres_lsf_options o = lsf_options();
    cres_resolver *r;
    (void)state;
    env_set("LSB_JOBID", "4107");
    env_set("LSB_DJOB_RANKFILE", temp_file("batch\nh1\nh2\nh3\nh4\n"));
    env_set("JSM_NAMESPACE_SIZE", "4");
    env_set("JSM_NAMESPACE_RANK", "3");
    env_set("JSM_NAMESPACE_LOCAL_RANK", "0");
    r = LSF(o);
    assert_string_equal(resolved_json(r), dq("{'worker': ['h1:8888', 'h2:8888', 'h3:8888', 'h4:8888']}"));
    EXPECT_LAUNCH(r, 4, 3, 0, 1, 3, 4, "h1", 8888);
    cres_resolver_free(r);
    LOGGED("leaving out the launch node batch (one slot, and jsrun's ranks fill the others)");
    env_set("JSM_NAMESPACE_SIZE", "5"); /* every slot: batch is an ordinary host */
    r = LSF(o);
    EXPECT_LAUNCH(r, 5, 3, 0, 1, 3, 5, "batch", 8888);
    cres_resolver_free(r);
    env_set("JSM_NAMESPACE_SIZE", "3");
    env_set("JSM_NAMESPACE_RANK", "2");
    LSF_FAILS(o, CRES_ERR_ENVIRONMENT, "JSM_NAMESPACE_SIZE=3",
              "LSB_DJOB_RANKFILE holds 5 slots on 5 hosts;");
    env_set("JSM_NAMESPACE_SIZE", "5");
    env_set("CSM_ALLOCATION_ID", "12");
    LSF_FAILS(o, CRES_ERR_ENVIRONMENT, "JSM_NAMESPACE_SIZE=5",
              "4 slots on 4 hosts besides the launch node");
    env_set("JSM_NAMESPACE_SIZE", "four");
    LSF_FAILS(o, CRES_ERR_ENVIRONMENT, "JSM_NAMESPACE_SIZE", "four");
}

/* Without CSM_ALLOCATION_ID no host is left out, and a CSM allocation whose first host has
   several slots keeps it too. */
static void lsf_launch_node_only_on_csm(void **state) {
    cres_lsf_options o = lsf_options();
    cres_resolver *r;
    (void)state;
    env_set("LSB_MCPU_HOSTS", "hostA 1 hostB 2");
    r = LSF(o);
    assert_string_equal(resolved_json(r), dq("{'worker': ['hostA:8888', 'hostB:8888', 'hostB:8889']}"));
    cres_resolver_free(r);
    env_set("CSM_ALLOCATION_ID", "5");
    r = LSF(o);
    assert_string_equal(resolved_json(r), dq("{'worker': ['hostB:8888', 'hostB:8889']}"));
    cres_resolver_free(r);
    env_set("LSB_MCPU_HOSTS", "hostA 2 hostB 2");
    r = LSF(o);
    assert_string_equal(resolved_json(r), dq("{'worker': ['hostA:8888', 'hostA:8889', 'hostB:8888', 'hostB:8889']}"));
    cres_resolver_free(r);
    env_set("LSB_MCPU_HOSTS", "hostA 1");
    r = LSF(o); /* the only host is not a launch node */
    assert_string_equal(resolved_json(r), dq("{'worker': ['hostA:8888']}"));
    cres_resolver_free(r);
}

/* `mpirun` (Open MPI) or Intel MPI's `mpiexec` under `bsub -n 4`: LSB_MCPU_HOSTS. */
static void lsf_mcpu_hosts_with_mpi_ranks(void **state) {
    cres_lsf_options o = lsf_options();
    cres_resolver *r;
    int rank;
    (void)state;
    for (rank = 0; rank < 4; rank++) {
        env_reset();
        env_set("LSB_JOBID", "81");
        env_set("LSB_MCPU_HOSTS", "hostA 2 hostB 2");
        env_setf("OMPI_COMM_WORLD_RANK", "%d", rank);
        env_set("OMPI_COMM_WORLD_SIZE", "4");
        r = LSF(o);
        assert_string_equal(resolved_json(r),
                            dq("{'worker': ['hostA:8888', 'hostA:8889', 'hostB:8888', 'hostB:8889']}"));
        expect_task(r, "worker", rank);
        EXPECT_LAUNCH(r, 4, rank, rank % 2, 2, rank / 2, 2, "hostA", 8888);
        cres_resolver_free(r);
    }
    LOGGED("lsf: hosts from LSB_MCPU_HOSTS (hostA 2 hostB 2): 2 hosts, 4 slots");
    env_reset();
    env_set("LSB_MCPU_HOSTS", "hostA 2 hostB 2");
    env_set("PMI_RANK", "2");
    env_set("PMI_SIZE", "3");
    r = LSF(o);
    assert_string_equal(resolved_json(r), dq("{'worker': ['hostA:8888', 'hostA:8889', 'hostB:8888']}"));
    EXPECT_LAUNCH(r, 3, 2, 0, 1, 1, 2, "hostA", 8888);
    cres_resolver_free(r);
    /* a second launcher's names must say what the first's say */
    env_set("OMPI_COMM_WORLD_RANK", "1");
    env_set("OMPI_COMM_WORLD_SIZE", "4");
    LSF_FAILS(o, CRES_ERR_ENVIRONMENT, "PMI_RANK=2", "OMPI_COMM_WORLD_RANK gives 1");
    env_set("PMI_RANK", "1");
    LSF_FAILS(o, CRES_ERR_ENVIRONMENT, "PMI_SIZE=3", "OMPI_COMM_WORLD_SIZE gives 4");
    env_set("PMI_SIZE", "4");
    r = LSF(o);
    expect_task(r, "worker", 1);
    cres_resolver_free(r);
    env_set("JSM_NAMESPACE_RANK", "1");
    env_set("JSM_NAMESPACE_SIZE", "4");
    r = LSF(o);
    expect_task(r, "worker", 1);
    cres_resolver_free(r);
}

/* An MPI launcher's ranks on a scheduler's allocation are placed as the mpi backend places
   them, in pbs, lsf and sge alike: Open MPI's mapping by node deals them round-robin, the
   local rank and size must match the placement, MVAPICH's names count, and PMIx's rank
   alone (no world size) is an error, not a job script's answer. */
static void sched_mpi_ranks_as_mpirun_placed_them(void **state) {
    static const char *const kinds[] = {"pbs", "lsf", "sge"};
    const char *nodefile = temp_file("hA\nhA\nhB\nhB\n");
    const char *pe = temp_file("hA 2 all.q@hA UNDEFINED\nhB 2 all.q@hB UNDEFINED\n");
    size_t k;
    (void)state;
    for (k = 0; k < 3; k++) {
        cres_resolver *r = NULL;
        cres_error err;
        cres_result got;
        int step;
        for (step = 0; step < 5; step++) {
            cres_pbs_options po = pbs_options();
            cres_lsf_options lo = lsf_options();
            cres_sge_options so = sge_options();
            env_reset();
            env_set("PBS_NODEFILE", nodefile);
            env_set("LSB_MCPU_HOSTS", "hA 2 hB 2");
            env_set("PE_HOSTFILE", pe);
            env_set("OMPI_COMM_WORLD_RANK", "1");
            env_set("OMPI_COMM_WORLD_SIZE", "4");
            env_set("OMPI_COMM_WORLD_LOCAL_SIZE", "2");
            env_set("OMPI_COMM_WORLD_LOCAL_RANK", "0");
            if (step == 0) env_set("OMPI_MCA_rmaps_base_mapping_policy", "node");
            /* step 1, by slot: rank 1 is hA's second, not the local rank 0 said */
            if (step == 2) env_set("OMPI_MCA_rmaps_base_mapping_policy", "ppr:1:node");
            if (step >= 3) {
                env_set("OMPI_COMM_WORLD_RANK", NULL);
                env_set(step == 3 ? "MV2_COMM_WORLD_RANK" : "PMIX_RANK", "3");
                env_set("MV2_COMM_WORLD_SIZE", "4");
            }
            got = k == 0 ? cres_pbs_resolver_create(&po, &r, &err)
                  : k == 1 ? cres_lsf_resolver_create(&lo, &r, &err)
                           : cres_sge_resolver_create(&so, &r, &err);
            if (step == 0 || step == 3) {
                if (got != CRES_OK) fail_msg("%s step %d: %s", kinds[k], step, err.message);
                if (step == 0) {
                    assert_string_equal(resolved_json(r),
                                        dq("{'worker': ['hA:8888', 'hB:8888', 'hA:8889', 'hB:8889']}"));
                    EXPECT_LAUNCH(r, 4, 1, 0, 2, 1, 2, "hA", 8888);
                } else {
                    expect_task(r, "worker", 3);
                }
                cres_resolver_free(r);
                continue;
            }
            assert_int_equal(got, step == 2 ? CRES_ERR_UNSUPPORTED : CRES_ERR_ENVIRONMENT);
            assert_null(r);
            if (step == 1) HAS(err.message, "rank 1 should be task 1 of 2 on node 0 (hA), but the launcher says task 0");
            if (step == 2) HAS(err.message, "OMPI_MCA_rmaps_base_mapping_policy");
            if (step == 4) HAS(err.message, "PMIX_RANK comes without a world size");
        }
    }
}

/* The rank file wins over LSB_MCPU_HOSTS. */
static void lsf_rankfile_wins(void **state) {
    cres_lsf_options o = lsf_options();
    cres_resolver *r;
    (void)state;
    env_set("LSB_MCPU_HOSTS", "other 9");
    env_set("LSB_DJOB_RANKFILE", temp_file("hostA\nhostB\n"));
    r = LSF(o);
    assert_string_equal(resolved_json(r), dq("{'worker': ['hostA:8888', 'hostB:8888']}"));
    LOGGED("lsf: hosts from LSB_DJOB_RANKFILE");
    cres_resolver_free(r);
}

/* The job script: the allocation, no own task. */
static void lsf_job_script(void **state) {
    cres_lsf_options o = lsf_options();
    cres_resolver *r;
    (void)state;
    env_lines(lsf_job);
    r = LSF(o);
    assert_string_equal(resolved_json(r), dq("{'worker': ['a01n01:8888', 'a01n01:8889', 'a01n02:8888', 'a01n02:8889']}"));
    assert_string_equal(hosts_of(r, 0), "a01n01 slots=2\na01n02 slots=2\n");
    assert_string_equal(hosts_of(r, 1), "a01n01:2\na01n02:2\n");
    expect_no_own_task(r);
    LOGGED("no rank variable");
    {
        cres_launch_info info;
        cres_error err;
        EXPECT(cres_launch(r, &info, &err), CRES_ERR_NOT_FOUND);
        HAS(err.message, "launch: lsf knows no own task (no rank variable (JSM_NAMESPACE_RANK, "
                         "OMPI_COMM_WORLD_RANK, PMI_RANK or another MPI rank): the job script)");
    }
    cres_resolver_free(r);
}

static void lsf_jobs_split(void **state) {
    static const cres_job_count jobs[] = {{"worker", 2}, {"ps", 1}, {"chief", 1}};
    cres_lsf_options o = lsf_options();
    cres_resolver *r;
    (void)state;
    env_set("LSB_MCPU_HOSTS", "hostA 2 hostB 2");
    env_set("OMPI_COMM_WORLD_RANK", "1");
    env_set("OMPI_COMM_WORLD_SIZE", "4");
    o.jobs = jobs;
    o.jobs_count = 3;
    r = LSF(o);
    assert_string_equal(resolved_json(r),
                        dq("{'chief': ['hostA:8888'], 'ps': ['hostA:8889'], 'worker': ['hostB:8888', 'hostB:8889']}"));
    expect_task(r, "ps", 0);
    cres_resolver_free(r);
}

static void lsf_bad_mcpu_hosts(void **state) {
    cres_lsf_options o = lsf_options();
    (void)state;
    env_set("LSB_MCPU_HOSTS", "hostA 2 hostB");
    LSF_FAILS(o, CRES_ERR_ENVIRONMENT, "LSB_MCPU_HOSTS", "3 words");
    env_set("LSB_MCPU_HOSTS", "hostA 2 hostB x");
    LSF_FAILS(o, CRES_ERR_ENVIRONMENT, "LSB_MCPU_HOSTS", "\"x\"");
    env_set("LSB_MCPU_HOSTS", "hostA 0");
    LSF_FAILS(o, CRES_ERR_ENVIRONMENT, "LSB_MCPU_HOSTS", "\"0\"");
    env_set("LSB_MCPU_HOSTS", "hostA -2");
    LSF_FAILS(o, CRES_ERR_ENVIRONMENT, "LSB_MCPU_HOSTS", "\"-2\"");
    env_set("LSB_MCPU_HOSTS", "2 hostA");
    LSF_FAILS(o, CRES_ERR_ENVIRONMENT, "LSB_MCPU_HOSTS", "\"hostA\"");
    env_set("LSB_MCPU_HOSTS", "   ");
    LSF_FAILS(o, CRES_ERR_ENVIRONMENT, "LSB_MCPU_HOSTS", NULL);
    env_set("LSB_MCPU_HOSTS", "hostA 2000000");
    LSF_FAILS(o, CRES_ERR_ENVIRONMENT, "LSB_MCPU_HOSTS", "\"2000000\"");
    env_set("LSB_MCPU_HOSTS", "host:A 2");
    LSF_FAILS(o, CRES_ERR_ENVIRONMENT, "LSB_MCPU_HOSTS", "host:A");
    { /* longer than any document (only a getenv hook can hand over such a value) */
        size_t n = 16u * 1024u * 1024u + 1u;
        char *big = (char *)malloc(n + 1);
        assert_non_null(big);
        memset(big, 'h', n);
        big[n] = '\0';
        env_set("LSB_MCPU_HOSTS", big);
        LSF_FAILS(o, CRES_ERR_LIMIT, "lsf: LSB_MCPU_HOSTS (\"hhhh", "): more than 16777216 bytes");
        env_unset("LSB_MCPU_HOSTS");
        free(big);
    }
    env_unset("LSB_MCPU_HOSTS");
    LSF_FAILS(o, CRES_ERR_ENVIRONMENT, "LSB_DJOB_RANKFILE", "LSB_MCPU_HOSTS");
}

static void lsf_bad_rankfile(void **state) {
    cres_lsf_options o = lsf_options();
    const char *path;
    (void)state;
    env_set("LSB_DJOB_RANKFILE", "/nonexistent/test_sched/rankfile");
    LSF_FAILS(o, CRES_ERR_ENVIRONMENT, "/nonexistent/test_sched/rankfile", NULL);
    env_set("LSB_DJOB_RANKFILE", path = temp_file(""));
    {
        static int sentinel;
        cres_resolver *r = (cres_resolver *)(void *)&sentinel;
        cres_error err;
        cres_result got = cres_lsf_resolver_create(&o, &r, &err);
        expect_failure(got, r, &err, CRES_ERR_ENVIRONMENT, NULL, NULL, __LINE__);
        if (!strstr(err.message, path) && !strstr(err.message, "LSB_DJOB_RANKFILE"))
            fail_msg("\"%s\" names neither LSB_DJOB_RANKFILE nor %s", err.message, path);
    }
    env_set("LSB_DJOB_RANKFILE", path = temp_file("hostA\nhost A\n"));
    {
        static int sentinel;
        cres_resolver *r = (cres_resolver *)(void *)&sentinel;
        cres_error err;
        cres_result got = cres_lsf_resolver_create(&o, &r, &err);
        expect_failure(got, r, &err, CRES_ERR_ENVIRONMENT, "line 2", NULL, __LINE__);
        if (!strstr(err.message, path) && !strstr(err.message, "LSB_DJOB_RANKFILE"))
            fail_msg("\"%s\" names neither LSB_DJOB_RANKFILE nor %s", err.message, path);
    }
}

static void lsf_bad_rank_variables(void **state) {
    cres_lsf_options o = lsf_options();
    (void)state;
    env_set("LSB_MCPU_HOSTS", "hostA 2 hostB 2");
    env_set("JSM_NAMESPACE_RANK", "1");
    LSF_FAILS(o, CRES_ERR_ENVIRONMENT, "JSM_NAMESPACE_SIZE", "not set");
    env_set("JSM_NAMESPACE_SIZE", "4");
    env_set("JSM_NAMESPACE_RANK", "4");
    LSF_FAILS(o, CRES_ERR_ENVIRONMENT, "JSM_NAMESPACE_RANK", "\"4\"");
    env_set("JSM_NAMESPACE_RANK", "1");
    env_set("JSM_NAMESPACE_SIZE", "5");
    LSF_FAILS(o, CRES_ERR_ENVIRONMENT, "4 slots", "5 ranks");
    env_set("JSM_NAMESPACE_SIZE", "4");
    env_set("JSM_NAMESPACE_LOCAL_RANK", "0");
    LSF_FAILS(o, CRES_ERR_ENVIRONMENT, "rank 1", "task 0");
    env_set("JSM_NAMESPACE_LOCAL_RANK", "x");
    LSF_FAILS(o, CRES_ERR_ENVIRONMENT, "JSM_NAMESPACE_LOCAL_RANK", "\"x\"");
    env_set("JSM_NAMESPACE_LOCAL_RANK", "1");
    env_set("JSM_NAMESPACE_LOCAL_SIZE", "4");
    LSF_FAILS(o, CRES_ERR_ENVIRONMENT, "rank 1", "of 4");
    env_reset();
    env_set("LSB_MCPU_HOSTS", "hostA 2 hostB 2");
    env_set("OMPI_COMM_WORLD_RANK", "0");
    LSF_FAILS(o, CRES_ERR_ENVIRONMENT, "OMPI_COMM_WORLD_SIZE", NULL);
    env_reset();
    env_set("LSB_MCPU_HOSTS", "hostA 2 hostB 2");
    env_set("PMI_RANK", "0");
    env_set("PMI_SIZE", "0");
    LSF_FAILS(o, CRES_ERR_ENVIRONMENT, "PMI_SIZE", "\"0\"");
}

/* ---------------------------------------------------------------------------------------
   Grid Engine */

/* `qsub -pe mpi 6` on two hosts (sge_pe(5)'s PE_HOSTFILE). */
static const char pe_hostfile[] = "node01.cluster 4 all.q@node01.cluster UNDEFINED\n"
                                  "node02.cluster 2 all.q@node02.cluster UNDEFINED\n";
static const char sge_job[] = "JOB_ID=17\n"
                              "JOB_NAME=train\n"
                              "PE=mpi\n"
                              "NSLOTS=6\n"
                              "NHOSTS=2\n"
                              "NQUEUES=2\n"
                              "QUEUE=all.q\n"
                              "SGE_TASK_ID=undefined\n"
                              "SGE_ROOT=/var/lib/gridengine\n"
                              "SGE_CELL=default\n";
#define SGE_SPEC                                                                                            \
    "{'worker': ['node01.cluster:8888', 'node01.cluster:8889', 'node01.cluster:8890', 'node01.cluster:8891', " \
    "'node02.cluster:8888', 'node02.cluster:8889']}"

static void sge_open_mpi_every_rank(void **state) {
    static const int local[6] = {0, 1, 2, 3, 0, 1}, node[6] = {0, 0, 0, 0, 1, 1}, size[2] = {4, 2};
    const char *pe = temp_file(pe_hostfile);
    int rank;
    (void)state;
    for (rank = 0; rank < 6; rank++) {
        cres_resolver *r;
        env_reset();
        env_lines(sge_job);
        env_set("PE_HOSTFILE", pe);
        ompi_rank(rank, 6, local[rank], size[node[rank]]);
        r = SGE(sge_options());
        assert_string_equal(resolved_json(r), dq(SGE_SPEC));
        expect_task(r, "worker", rank);
        EXPECT_LAUNCH(r, 6, rank, local[rank], size[node[rank]], node[rank], 2, "node01.cluster", 8888);
        cres_resolver_free(r);
    }
    LOGGED("sge: hosts from PE_HOSTFILE");
}

/* MPICH's hydra under Grid Engine: PMI_RANK and PMI_SIZE. */
static void sge_pmi_ranks(void **state) {
    cres_resolver *r;
    (void)state;
    env_lines(sge_job);
    env_set("PE_HOSTFILE", temp_file(pe_hostfile));
    env_set("PMI_RANK", "4");
    env_set("PMI_SIZE", "6");
    r = SGE(sge_options());
    assert_string_equal(resolved_json(r), dq(SGE_SPEC));
    EXPECT_LAUNCH(r, 6, 4, 0, 2, 1, 2, "node01.cluster", 8888);
    cres_resolver_free(r);
    /* fewer ranks than slots: the first host's slots first */
    env_set("PMI_RANK", "3");
    env_set("PMI_SIZE", "4");
    r = SGE(sge_options());
    assert_string_equal(resolved_json(r), dq("{'worker': ['node01.cluster:8888', 'node01.cluster:8889', "
                                             "'node01.cluster:8890', 'node01.cluster:8891']}"));
    EXPECT_LAUNCH(r, 4, 3, 3, 4, 0, 1, "node01.cluster", 8888);
    cres_resolver_free(r);
}

static void sge_job_script(void **state) {
    cres_resolver *r;
    (void)state;
    env_lines(sge_job);
    env_set("PE_HOSTFILE", temp_file(pe_hostfile));
    r = SGE(sge_options());
    assert_string_equal(resolved_json(r), dq(SGE_SPEC));
    assert_string_equal(hosts_of(r, 0), "node01.cluster slots=4\nnode02.cluster slots=2\n");
    assert_string_equal(hosts_of(r, 1), "node01.cluster:4\nnode02.cluster:2\n");
    expect_no_own_task(r);
    LOGGED("no rank variable");
    cres_resolver_free(r);
}

static void sge_jobs_split_and_gpus(void **state) {
    static const cres_job_count jobs[] = {{"worker", 4}, {"ps", 2}};
    cres_sge_options o = sge_options();
    cres_resolver *r;
    (void)state;
    env_lines(sge_job);
    env_set("PE_HOSTFILE", temp_file(pe_hostfile));
    env_set("CUDA_VISIBLE_DEVICES", "0,1,2,3,4,5,6,7");
    ompi_rank(3, 6, 3, 4);
    o.jobs = jobs;
    o.jobs_count = 2;
    r = SGE(o); /* Grid Engine does not say whose the list is: left as it is */
    assert_int_equal(gpus_of(r), 8);
    assert_string_equal(devices_of(r, NULL, -1), "");
    LOGGED("sge: CUDA_VISIBLE_DEVICES=\"0,1,2,3,4,5,6,7\" left as it is: Grid Engine does not say");
    cres_resolver_free(r);
    o.gpus_per_node = 8; /* the caller says it is the node's */
    r = SGE(o);
    assert_string_equal(resolved_json(r),
                        dq("{'ps': ['node01.cluster:8888', 'node01.cluster:8889'], 'worker': ['node01.cluster:8890', "
                           "'node01.cluster:8891', 'node02.cluster:8888', 'node02.cluster:8889']}"));
    expect_task(r, "worker", 1);
    assert_int_equal(gpus_of(r), 2); /* 8 GPUs for node01's 4 tasks, node02's 2 */
    assert_string_equal(devices_of(r, NULL, -1), "6,7");
    assert_string_equal(devices_of(r, "worker", 2), "0,1,2,3");
    assert_int_equal(gpus_of_task(r, "worker", 3), 4);
    EXPECT_LAUNCH(r, 6, 3, 3, 4, 0, 2, "node01.cluster", 8888);
    cres_resolver_free(r);
}

/* A line of two fields ("host slots") is enough, and so is a short queue name: only the
   first two fields matter (Open MPI's gridengine reader takes no more). */
static void sge_short_lines_are_read(void **state) {
    cres_resolver *r;
    (void)state;
    env_set("PE_HOSTFILE", temp_file("a 1 q p\nb 2 q p\n"));
    r = SGE(sge_options());
    assert_string_equal(resolved_json(r), dq("{'worker': ['a:8888', 'b:8888', 'b:8889']}"));
    cres_resolver_free(r);
    env_set("PE_HOSTFILE", temp_file("vm 4\n"));
    r = SGE(sge_options());
    assert_string_equal(resolved_json(r), dq("{'worker': ['vm:8888', 'vm:8889', 'vm:8890', 'vm:8891']}"));
    cres_resolver_free(r);
}

/* A host's lines add up, in the order of its first line; blanks, CRLF and tabs are fine. */
static void sge_repeated_hosts_and_blanks(void **state) {
    cres_resolver *r;
    (void)state;
    env_set("PE_HOSTFILE", temp_file("node01 2 a.q@node01 UNDEFINED\r\n"
                                     "node02\t1\tall.q@node02\tUNDEFINED\r\n"
                                     "node01 1 b.q@node01 UNDEFINED\r\n"));
    env_set("NSLOTS", "4");
    r = SGE(sge_options());
    assert_string_equal(resolved_json(r),
                        dq("{'worker': ['node01:8888', 'node01:8889', 'node01:8890', 'node02:8888']}"));
    cres_resolver_free(r);
}

static void sge_nslots_must_be_the_slots(void **state) {
    cres_sge_options o = sge_options();
    (void)state;
    env_set("PE_HOSTFILE", temp_file(pe_hostfile));
    env_set("NSLOTS", "5");
    SGE_FAILS(o, CRES_ERR_ENVIRONMENT, "NSLOTS=5", "6 slots");
    env_set("NSLOTS", "six");
    SGE_FAILS(o, CRES_ERR_ENVIRONMENT, "NSLOTS", "\"six\"");
    env_set("NSLOTS", "0");
    SGE_FAILS(o, CRES_ERR_ENVIRONMENT, "NSLOTS", "\"0\"");
    /* NHOSTS, the job's hosts, is PE_HOSTFILE's two */
    env_set("NSLOTS", "6");
    env_set("NHOSTS", "3");
    SGE_FAILS(o, CRES_ERR_ENVIRONMENT, "NHOSTS=3", "PE_HOSTFILE gives 2");
    env_set("NHOSTS", "2");
    cres_resolver_free(SGE(o));
}

static void sge_pe_hostfile_unset(void **state) {
    cres_sge_options o = sge_options();
    (void)state;
    SGE_FAILS(o, CRES_ERR_ENVIRONMENT, "PE_HOSTFILE is not set", "qsub -pe");
    env_set("JOB_ID", "17");
    SGE_FAILS(o, CRES_ERR_ENVIRONMENT, "PE_HOSTFILE is not set", "JOB_ID");
    env_set("PE_HOSTFILE", "/nonexistent/test_sched/pe_hostfile");
    SGE_FAILS(o, CRES_ERR_ENVIRONMENT, "/nonexistent/test_sched/pe_hostfile", NULL);
}

/* Each bad PE_HOSTFILE: an error naming the file and the line. */
static void sge_bad_lines_name_file_and_line(void **state) {
    static const struct {
        const char *text, *sub;
    } bad[] = {
        {"node01 4 all.q@node01 UNDEFINED\nnode02\n", "line 2"},          /* fewer than two fields */
        {"node01 x all.q@node01 UNDEFINED\n", "line 1"},                  /* slots not a number */
        {"node01 0 all.q@node01 UNDEFINED\n", "line 1"},                  /* no slot */
        {"node01 -4 all.q@node01 UNDEFINED\n", "line 1"},
        {"node01 4 all.q@node01 UNDEFINED\nnode\x01 2 all.q@x UNDEFINED\n", "line 2"},
        {"", NULL},
        {"\n\n", NULL},
    };
    size_t i;
    (void)state;
    for (i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        cres_sge_options o = sge_options();
        static int sentinel;
        cres_resolver *r = (cres_resolver *)(void *)&sentinel;
        cres_error err;
        const char *path = temp_file(bad[i].text);
        cres_result got;
        env_set("PE_HOSTFILE", path);
        got = cres_sge_resolver_create(&o, &r, &err);
        if (got == CRES_OK) cres_resolver_free(r);
        if (got != CRES_ERR_ENVIRONMENT)
            fail_msg("PE_HOSTFILE %zu: got %s: %s", i, cres_result_string(got), err.message);
        if (bad[i].sub && !strstr(err.message, bad[i].sub))
            fail_msg("PE_HOSTFILE %zu: \"%s\" does not name the %s", i, err.message, bad[i].sub);
        if (!strstr(err.message, path) && !strstr(err.message, "PE_HOSTFILE"))
            fail_msg("PE_HOSTFILE %zu: \"%s\" names neither PE_HOSTFILE nor %s", i, err.message, path);
    }
}

static void sge_bad_rank_variables(void **state) {
    cres_sge_options o = sge_options();
    (void)state;
    env_set("PE_HOSTFILE", temp_file(pe_hostfile));
    ompi_rank(4, 6, 1, 2); /* rank 4 is the second host's task 0 */
    SGE_FAILS(o, CRES_ERR_ENVIRONMENT, "rank 4", "task 1");
    ompi_rank(4, 7, 0, 3);
    SGE_FAILS(o, CRES_ERR_ENVIRONMENT, "6 slots", "7 ranks");
    ompi_rank(6, 6, 0, 2);
    SGE_FAILS(o, CRES_ERR_ENVIRONMENT, "OMPI_COMM_WORLD_RANK", "\"6\"");
    env_reset();
    env_set("PE_HOSTFILE", temp_file(pe_hostfile));
    env_set("PMI_RANK", "1");
    SGE_FAILS(o, CRES_ERR_ENVIRONMENT, "PMI_SIZE", NULL);
}

/* ---------------------------------------------------------------------------------------
   Flux */

/* `flux run -N2 -n4`: the shell's variables, PMI's too; hosts from `flux hostlist`. */
static const char flux_job[] = "FLUX_JOB_ID=f2oLkTLb\n"
                               "FLUX_JOB_SIZE=4\n"
                               "FLUX_JOB_NNODES=2\n"
                               "FLUX_JOB_TMPDIR=/tmp/flux-1uzZ4v/jobtmp-0-f2oLkTLb\n"
                               "FLUX_URI=local:///tmp/flux-1uzZ4v/local-0\n"
                               "FLUX_KVS_NAMESPACE=job-1234567890\n";

static void flux_rank(int r, int local) {
    env_setf("FLUX_TASK_RANK", "%d", r);
    env_setf("FLUX_TASK_LOCAL_ID", "%d", local);
    env_setf("PMI_RANK", "%d", r);
    env_set("PMI_SIZE", "4");
    env_set("PMI_FD", "7");
}

static void flux_every_rank(void **state) {
    static const char *const hosts[] = {"corona171", "corona172"};
    cres_flux_options o = flux_options();
    int rank;
    (void)state;
    o.hostfile = temp_file("corona171\ncorona172\n");
    for (rank = 0; rank < 4; rank++) {
        cres_resolver *r;
        env_reset();
        env_lines(flux_job);
        flux_rank(rank, rank % 2);
        r = FLUX(o);
        assert_string_equal(resolved_json(r), block_spec(hosts, 2, 2));
        expect_task(r, "worker", rank);
        EXPECT_LAUNCH(r, 4, rank, rank % 2, 2, rank / 2, 2, "corona171", 8888);
        assert_string_equal(hosts_of(r, 0), "corona171 slots=2\ncorona172 slots=2\n");
        assert_string_equal(hosts_of(r, 1), "corona171:2\ncorona172:2\n");
        cres_resolver_free(r);
    }
}

/* What `flux hostlist` prints is one line: an RFC 29 hostlist ("corona[171-172]", the
   default), or with -e the hosts blank-separated (flux-core doc/man1/flux-hostlist.rst). A
   file of one such line is read as Slurm's hostlists are, a slot a host; a host named twice,
   or a malformed list, is an error naming the file. */
static void flux_hostlist_line(void **state) {
    static const char *const lines[] = {"corona[171-172]\n", "corona171 corona172\n", "corona[171,172]",
                                        " corona171,corona172 \r\n"};
    static const char *const hosts[] = {"corona171", "corona172"};
    cres_flux_options o = flux_options();
    cres_resolver *r;
    size_t i;
    (void)state;
    env_lines(flux_job);
    flux_rank(3, 1);
    for (i = 0; i < sizeof lines / sizeof lines[0]; i++) {
        o.hostfile = temp_file(lines[i]);
        r = FLUX(o);
        assert_string_equal(resolved_json(r), block_spec(hosts, 2, 2));
        EXPECT_LAUNCH(r, 4, 3, 1, 2, 1, 2, "corona171", 8888);
        cres_resolver_free(r);
    }
    env_set("FLUX_JOB_SIZE", "3");
    env_set("PMI_SIZE", "3");
    env_set("FLUX_JOB_NNODES", "3");
    env_set("FLUX_TASK_RANK", "2");
    env_set("PMI_RANK", "2");
    env_set("FLUX_TASK_LOCAL_ID", "0");
    o.hostfile = temp_file("corona[171-172],corona175\n");
    r = FLUX(o);
    assert_string_equal(hosts_of(r, 0), "corona171 slots=1\ncorona172 slots=1\ncorona175 slots=1\n");
    cres_resolver_free(r);
    o.hostfile = temp_file("corona[171-172],corona171\n");
    FLUX_FAILS(o, CRES_ERR_ENVIRONMENT, o.hostfile, "lists node \"corona171\" twice");
    o.hostfile = temp_file("corona[171-\n");
    FLUX_FAILS(o, CRES_ERR_ENVIRONMENT, o.hostfile, "flux: hostfile");
    o.hostfile = temp_file("corona[171-172]\n");
    FLUX_FAILS(o, CRES_ERR_ENVIRONMENT, "flux: hostfile", "FLUX_JOB_NNODES=3 but the hostfile names 2 hosts");
}

/* Without FLUX_JOB_NNODES, or when it does not divide the size, the file's slots say. */
static void flux_slots_from_the_hostfile(void **state) {
    cres_flux_options o = flux_options();
    cres_resolver *r;
    (void)state;
    o.hostfile = temp_file("f1 slots=3\nf2:1\n");
    env_set("FLUX_JOB_SIZE", "4");
    env_set("FLUX_TASK_RANK", "3");
    r = FLUX(o);
    assert_string_equal(resolved_json(r), dq("{'worker': ['f1:8888', 'f1:8889', 'f1:8890', 'f2:8888']}"));
    EXPECT_LAUNCH(r, 4, 3, 0, 1, 1, 2, "f1", 8888);
    cres_resolver_free(r);
    /* `flux run -N2 -n3`: 3 is not a multiple of 2 */
    o.hostfile = temp_file("f1 slots=2\nf2 slots=2\n");
    env_set("FLUX_JOB_SIZE", "3");
    env_set("FLUX_JOB_NNODES", "2");
    env_set("FLUX_TASK_RANK", "2");
    env_set("FLUX_TASK_LOCAL_ID", "0");
    r = FLUX(o);
    assert_string_equal(resolved_json(r), dq("{'worker': ['f1:8888', 'f1:8889', 'f2:8888']}"));
    cres_resolver_free(r);
    /* FLUX_JOB_NNODES dividing the size overrides the file's slots */
    o.hostfile = temp_file("f1 slots=3\nf2 slots=1\n");
    env_set("FLUX_JOB_SIZE", "4");
    env_set("FLUX_TASK_RANK", "1");
    env_set("FLUX_TASK_LOCAL_ID", "1");
    r = FLUX(o);
    assert_string_equal(resolved_json(r), dq("{'worker': ['f1:8888', 'f1:8889', 'f2:8888', 'f2:8889']}"));
    cres_resolver_free(r);
}

static void flux_jobs_ports_and_gpus(void **state) {
    static const cres_job_count jobs[] = {{"chief", 1}, {"worker", 3}};
    cres_flux_options o = flux_options();
    cres_resolver *r;
    (void)state;
    env_lines(flux_job);
    flux_rank(2, 0);
    env_set("CUDA_VISIBLE_DEVICES", "0,1");
    o.hostfile = temp_file("corona171\ncorona172\n");
    o.jobs = jobs;
    o.jobs_count = 2;
    o.port_base = 29500;
    r = FLUX(o); /* gpu-affinity "on" and "per-task" look the same to a task: left as it is */
    assert_int_equal(gpus_of(r), 2);
    assert_string_equal(devices_of(r, NULL, -1), "");
    LOGGED("flux: CUDA_VISIBLE_DEVICES=\"0,1\" left as it is: Flux does not tell a task its gpu-affinity");
    cres_resolver_free(r);
    o.gpus_per_node = 2;
    r = FLUX(o);
    assert_string_equal(resolved_json(r), dq("{'chief': ['corona171:29500'], 'worker': ['corona171:29501', "
                                             "'corona172:29500', 'corona172:29501']}"));
    expect_task(r, "worker", 1);
    assert_int_equal(gpus_of(r), 1);
    assert_string_equal(devices_of(r, NULL, -1), "0");
    assert_string_equal(devices_of(r, "worker", 2), "1");
    EXPECT_LAUNCH(r, 4, 2, 0, 2, 1, 2, "corona171", 29500);
    cres_resolver_free(r);
}

static void flux_needs_a_hostfile(void **state) {
    cres_flux_options o = flux_options();
    (void)state;
    env_lines(flux_job);
    flux_rank(1, 1);
    FLUX_FAILS(o, CRES_ERR_ENVIRONMENT, "options.hostfile", "flux hostlist");
    o.hostfile = "/nonexistent/test_sched/flux_hosts";
    FLUX_FAILS(o, CRES_ERR_ENVIRONMENT, "/nonexistent/test_sched/flux_hosts", NULL);
}

/* Without FLUX_TASK_RANK, in a job (FLUX_JOB_ID) or in an allocation's initial program (a
   `flux batch` script, a `flux alloc` shell: the broker gives it FLUX_ENCLOSING_ID and takes
   the job's variables away, flux-core src/broker/runat.c), the hostfile is the allocation and
   no task is this process's; without a hostfile it is an error naming the option, never one
   local task. */
static void flux_job_script_is_the_allocation(void **state) {
    cres_flux_options o = flux_options();
    cres_resolver *r;
    (void)state;
    env_set("FLUX_ENCLOSING_ID", "f3Pd4Nq");
    env_set("FLUX_URI", "local:///tmp/flux-xIG8Sd/local-0");
    FLUX_FAILS(o, CRES_ERR_ENVIRONMENT, "Flux tells a job script or an allocation's shell no hosts",
               "options.hostfile (--hostfile");
    o.hostfile = temp_file("corona171 slots=2\ncorona172 slots=2\n");
    r = FLUX(o);
    assert_string_equal(resolved_json(r), dq("{'worker': ['corona171:8888', 'corona171:8889', 'corona172:8888', "
                                             "'corona172:8889']}"));
    expect_no_own_task(r);
    LOGGED("flux: no FLUX_TASK_RANK, only FLUX_ENCLOSING_ID: a flux batch script or a flux alloc shell: the "
           "cluster is the allocation's 4 slots and no task is this process's");
    cres_resolver_free(r);
    /* the job's variables without a task's: the job's size on the hostfile's nodes */
    env_reset();
    env_lines(flux_job);
    o.hostfile = temp_file("corona171\ncorona172\n");
    r = FLUX(o);
    assert_string_equal(resolved_json(r), dq("{'worker': ['corona171:8888', 'corona171:8889', 'corona172:8888', "
                                             "'corona172:8889']}"));
    expect_no_own_task(r);
    LOGGED("no FLUX_TASK_RANK, only FLUX_JOB_ID");
    cres_resolver_free(r);
    env_set("FLUX_JOB_NNODES", "3");
    FLUX_FAILS(o, CRES_ERR_ENVIRONMENT, "FLUX_JOB_NNODES=3 but the hostfile names 2 hosts", NULL);
    env_set("FLUX_JOB_NNODES", "2");
    env_set("FLUX_JOB_SIZE", "x");
    FLUX_FAILS(o, CRES_ERR_ENVIRONMENT, "FLUX_JOB_SIZE=\"x\"", NULL);
    o.hostfile = NULL;
    FLUX_FAILS(o, CRES_ERR_ENVIRONMENT, "options.hostfile", NULL);
}

static void flux_bad_variables(void **state) {
    cres_flux_options o = flux_options();
    (void)state;
    o.hostfile = temp_file("corona171\ncorona172\n");
    FLUX_FAILS(o, CRES_ERR_ENVIRONMENT, "FLUX_TASK_RANK", NULL); /* no Flux variable at all */
    env_lines(flux_job);
    flux_rank(1, 1);
    env_unset("FLUX_JOB_SIZE");
    FLUX_FAILS(o, CRES_ERR_ENVIRONMENT, "FLUX_JOB_SIZE", NULL);
    env_set("FLUX_JOB_SIZE", "4");
    env_set("FLUX_TASK_RANK", "4");
    FLUX_FAILS(o, CRES_ERR_ENVIRONMENT, "FLUX_TASK_RANK", "\"4\"");
    env_set("FLUX_TASK_RANK", "1");
    env_set("FLUX_JOB_NNODES", "3");
    FLUX_FAILS(o, CRES_ERR_ENVIRONMENT, "FLUX_JOB_NNODES=3", "2 hosts");
    env_set("FLUX_JOB_NNODES", "0");
    FLUX_FAILS(o, CRES_ERR_ENVIRONMENT, "FLUX_JOB_NNODES", "\"0\"");
    env_set("FLUX_JOB_NNODES", "2");
    env_set("FLUX_TASK_LOCAL_ID", "0"); /* rank 1 is the first host's second task */
    FLUX_FAILS(o, CRES_ERR_ENVIRONMENT, "rank 1", "task 0");
    env_set("FLUX_TASK_LOCAL_ID", "one");
    FLUX_FAILS(o, CRES_ERR_ENVIRONMENT, "FLUX_TASK_LOCAL_ID", "\"one\"");
    env_set("FLUX_TASK_LOCAL_ID", "1");
    env_set("FLUX_JOB_SIZE", "5"); /* the Flux shell's PMI names the size and rank too */
    FLUX_FAILS(o, CRES_ERR_ENVIRONMENT, "PMI_SIZE=4", "FLUX_JOB_SIZE gives 5");
    env_set("PMI_SIZE", "5");
    env_set("PMI_RANK", "0");
    FLUX_FAILS(o, CRES_ERR_ENVIRONMENT, "PMI_RANK=0", "FLUX_TASK_RANK gives 1");
    env_set("PMI_RANK", "1");
    env_set("FLUX_JOB_NNODES", "6"); /* flux run -N6 -n5 is refused: each node runs a task */
    FLUX_FAILS(o, CRES_ERR_ENVIRONMENT, "FLUX_JOB_NNODES=6 nodes for FLUX_JOB_SIZE=5 tasks", NULL);
    /* a size the nodes do not divide fills the hostfile's slots, which must use every node */
    o.hostfile = temp_file("corona171 slots=1\ncorona172 slots=6\ncorona173 slots=3\n");
    env_set("FLUX_JOB_SIZE", "7");
    env_set("PMI_SIZE", "7");
    env_set("FLUX_JOB_NNODES", "3");
    FLUX_FAILS(o, CRES_ERR_ENVIRONMENT, "FLUX_JOB_NNODES=3, but the hostfile's slots hold the "
               "FLUX_JOB_SIZE=7 tasks on 2 nodes", NULL);
    o.hostfile = temp_file("corona171\ncorona172\n");
    env_set("FLUX_JOB_SIZE", "5");
    env_set("PMI_SIZE", "5");
    env_unset("FLUX_JOB_NNODES"); /* 5 tasks on 2 hosts of 1 slot */
    FLUX_FAILS(o, CRES_ERR_ENVIRONMENT, "the hostfile has 2 slots for FLUX_JOB_SIZE=5 ranks", NULL);
}

static void flux_bad_hostfile_names_file_and_line(void **state) {
    static const struct {
        const char *text, *sub;
    } bad[] = {
        {"corona171\ncorona172 slots=x\n", "line 2"},
        {"corona171\ncorona172:0\n", "line 2"},
        {"corona171 cpus=4\n", "line 1"},
        {"", NULL},
        {"# no hosts\n", NULL},
    };
    size_t i;
    (void)state;
    env_set("FLUX_JOB_SIZE", "2");
    env_set("FLUX_TASK_RANK", "0");
    for (i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        cres_flux_options o = flux_options();
        static int sentinel;
        cres_resolver *r = (cres_resolver *)(void *)&sentinel;
        cres_error err;
        cres_result got;
        o.hostfile = temp_file(bad[i].text);
        got = cres_flux_resolver_create(&o, &r, &err);
        if (got == CRES_OK) cres_resolver_free(r);
        if (got != CRES_ERR_ENVIRONMENT)
            fail_msg("flux hostfile %zu: got %s: %s", i, cres_result_string(got), err.message);
        if (bad[i].sub && !strstr(err.message, bad[i].sub))
            fail_msg("flux hostfile %zu: \"%s\" does not name the %s", i, err.message, bad[i].sub);
        if (!strstr(err.message, o.hostfile))
            fail_msg("flux hostfile %zu: \"%s\" does not name the file %s", i, err.message, o.hostfile);
    }
}

/* ---------------------------------------------------------------------------------------
   MPI: hosts from the scheduler's allocation */

/* Open MPI's `mpirun -np 6` in a Grid Engine job: without PE_HOSTFILE the ranks could be
   anywhere; with it, they fill its slots as mpirun filled them. */
static void mpi_hosts_from_pe_hostfile(void **state) {
    cres_mpi_options mo = mpi_options();
    const char *pe = temp_file(pe_hostfile);
    cres_resolver *r;
    char want[256];
    (void)state;
    env_lines(sge_job);
    ompi_rank(4, 6, 0, 2);
    MPI_FAILS(mo, CRES_ERR_ENVIRONMENT, "the OMPI_COMM_WORLD_SIZE=6 ranks run on several hosts", NULL);
    env_set("PE_HOSTFILE", pe);
    r = MPI(mpi_options());
    assert_string_equal(resolved_json(r), dq(SGE_SPEC));
    expect_task(r, "worker", 4);
    EXPECT_LAUNCH(r, 6, 4, 0, 2, 1, 2, "node01.cluster", 8888);
    snprintf(want, sizeof want, "mpi: hosts from PE_HOSTFILE (%s): 2 hosts, 6 slots", pe);
    LOGGED(want);
    cres_resolver_free(r);
}

/* Cray PALS's mpiexec on PBS: PMI_RANK and PMI_SIZE; the hosts from PBS_NODEFILE. */
static void mpi_hosts_from_pbs_nodefile(void **state) {
    static const char *const hosts[] = {POLARIS0, POLARIS1};
    cres_resolver *r;
    (void)state;
    env_lines(pbs_job);
    env_set("PBS_NODEFILE", temp_file(polaris_nodefile));
    pals_rank(6, 8, 4);
    r = MPI(mpi_options());
    assert_string_equal(resolved_json(r), block_spec(hosts, 2, 4));
    expect_task(r, "worker", 6);
    EXPECT_LAUNCH(r, 8, 6, 2, 4, 1, 2, POLARIS0, 8888);
    LOGGED("mpi: hosts from PBS_NODEFILE");
    cres_resolver_free(r);
}

/* jsrun's Spectrum MPI ranks: the rank file without CSM's launch node. */
static void mpi_hosts_from_lsb_djob_rankfile(void **state) {
    cres_resolver *r;
    (void)state;
    env_lines(lsf_job);
    env_set("LSB_DJOB_RANKFILE", temp_file(summit_rankfile));
    jsm_rank(3, 4, 2);
    env_set("OMPI_COMM_WORLD_LOCAL_RANK", "1");
    env_set("OMPI_COMM_WORLD_LOCAL_SIZE", "2");
    r = MPI(mpi_options());
    assert_string_equal(resolved_json(r), dq("{'worker': ['a01n01:8888', 'a01n01:8889', 'a01n02:8888', 'a01n02:8889']}"));
    EXPECT_LAUNCH(r, 4, 3, 1, 2, 1, 2, "a01n01", 8888);
    LOGGED("mpi: hosts from LSB_DJOB_RANKFILE");
    LOGGED("leaving out the launch node batch3");
    cres_resolver_free(r);
}

/* Spectrum MPI under jsrun without CSM_ALLOCATION_ID: the MPI backend reads the rank file
   as the lsf backend does (the launch node known by jsrun's count), and Open MPI's world
   size must be jsrun's. */
static void mpi_under_jsrun_agrees_with_it(void **state) {
    cres_mpi_options o = mpi_options();
    cres_lsf_options lo = lsf_options();
    cres_resolver *r;
    (void)state;
    env_set("LSB_JOBID", "4107");
    env_set("LSB_DJOB_RANKFILE", temp_file("batch\nh1\nh2\nh3\nh4\n"));
    jsm_rank(3, 4, 1);
    r = MPI(o);
    assert_string_equal(resolved_json(r), dq("{'worker': ['h1:8888', 'h2:8888', 'h3:8888', 'h4:8888']}"));
    EXPECT_LAUNCH(r, 4, 3, 0, 1, 3, 4, "h1", 8888);
    cres_resolver_free(r);
    env_set("OMPI_COMM_WORLD_SIZE", "5");
    MPI_FAILS(o, CRES_ERR_ENVIRONMENT, "JSM_NAMESPACE_SIZE=4",
              "OMPI_COMM_WORLD_SIZE gives 5");
    env_set("OMPI_COMM_WORLD_SIZE", "4");
    env_set("PMIX_RANK", NULL);
    env_set("OMPI_COMM_WORLD_RANK", "2"); /* and the ranks: jsrun's is 3 */
    MPI_FAILS(o, CRES_ERR_ENVIRONMENT, "JSM_NAMESPACE_RANK=3", "OMPI_COMM_WORLD_RANK gives 2");
    LSF_FAILS(lo, CRES_ERR_ENVIRONMENT, "OMPI_COMM_WORLD_RANK=2",
              "JSM_NAMESPACE_RANK gives 3");
    env_set("OMPI_COMM_WORLD_RANK", "3");
    env_set("PMIX_RANK", "1"); /* Open MPI sets PMIx's name too */
    MPI_FAILS(o, CRES_ERR_ENVIRONMENT, "PMIX_RANK=1", "OMPI_COMM_WORLD_RANK gives 3");
    jsm_rank(1, 2, 1);
    MPI_FAILS(o, CRES_ERR_ENVIRONMENT, "JSM_NAMESPACE_SIZE=2",
              "LSB_DJOB_RANKFILE holds 5 slots");
}

static void mpi_hosts_from_lsb_mcpu_hosts(void **state) {
    cres_resolver *r;
    (void)state;
    env_set("LSB_JOBID", "81");
    env_set("LSB_MCPU_HOSTS", "hostA 2 hostB 2");
    ompi_rank(2, 4, 0, 2);
    r = MPI(mpi_options());
    assert_string_equal(resolved_json(r), dq("{'worker': ['hostA:8888', 'hostA:8889', 'hostB:8888', 'hostB:8889']}"));
    EXPECT_LAUNCH(r, 4, 2, 0, 2, 1, 2, "hostA", 8888);
    LOGGED("mpi: hosts from LSB_MCPU_HOSTS (hostA 2 hostB 2): 2 hosts, 4 slots");
    cres_resolver_free(r);
    /* on CSM, the launch node is left out of LSB_MCPU_HOSTS too */
    env_set("CSM_ALLOCATION_ID", "9");
    env_set("LSB_MCPU_HOSTS", "batch3 1 hostA 2 hostB 2");
    r = MPI(mpi_options());
    assert_string_equal(resolved_json(r), dq("{'worker': ['hostA:8888', 'hostA:8889', 'hostB:8888', 'hostB:8889']}"));
    cres_resolver_free(r);
}

/* The shortest pairs grow the most as hostfile lines ("a 1 " is 4 bytes, "a slots=1\n" 10):
   a thousand of them fit the text they become (ASan sees any byte past it). */
static void mpi_lsb_mcpu_hosts_of_short_pairs(void **state) {
    char v[4 * 1000];
    cres_resolver *r;
    cres_cluster_spec *spec;
    cres_error err;
    int i;
    (void)state;
    for (i = 0; i < 1000; i++) memcpy(v + 4 * i, i % 2 ? "b 1 " : "a 1 ", 4);
    v[sizeof v - 1] = '\0';
    env_set("LSB_MCPU_HOSTS", v);
    ompi_rank(999, 1000, 499, 500);
    r = MPI(mpi_options());
    LOGGED("mpi: hosts from LSB_MCPU_HOSTS (a 1 b 1 a 1 ");
    OK(cres_resolve(r, &spec, &err));
    assert_int_equal(cres_spec_tasks_count(spec, "worker"), 1000);
    cres_spec_free(spec);
    expect_task(r, "worker", 999);
    cres_resolver_free(r);
}

/* Kubeflow's MPIJob: the launcher's mpirun reads /etc/mpi/hostfile through
   OMPI_MCA_orte_default_hostfile, and its ranks inherit that variable. */
static void mpi_hosts_from_kubeflow_mpijob(void **state) {
    cres_mpi_options mo = mpi_options();
    const char *hostfile = temp_file("pi-worker-0.pi.default.svc slots=2\npi-worker-1.pi.default.svc slots=2\n");
    cres_resolver *r;
    int rank;
    char want[256];
    (void)state;
    for (rank = 0; rank < 4; rank++) {
        env_reset();
        env_set("OMPI_MCA_orte_keep_fqdn_hostnames", "true");
        env_set("OMPI_MCA_orte_default_hostfile", hostfile);
        env_set("OMPI_MCA_plm_rsh_args", "-o ConnectionAttempts=10");
        env_set("K_MPI_JOB_ROLE", "worker");
        ompi_rank(rank, 4, rank % 2, 2);
        r = MPI(mpi_options());
        assert_string_equal(resolved_json(r),
                            dq("{'worker': ['pi-worker-0.pi.default.svc:8888', 'pi-worker-0.pi.default.svc:8889', "
                               "'pi-worker-1.pi.default.svc:8888', 'pi-worker-1.pi.default.svc:8889']}"));
        EXPECT_LAUNCH(r, 4, rank, rank % 2, 2, rank / 2, 2, "pi-worker-0.pi.default.svc", 8888);
        assert_string_equal(hosts_of(r, 0), "pi-worker-0.pi.default.svc slots=2\npi-worker-1.pi.default.svc slots=2\n");
        cres_resolver_free(r);
    }
    snprintf(want, sizeof want, "mpi: hosts from OMPI_MCA_orte_default_hostfile (%s): 2 hosts, 4 slots", hostfile);
    LOGGED(want);
    /* without it: the old error */
    env_unset("OMPI_MCA_orte_default_hostfile");
    MPI_FAILS(mo, CRES_ERR_ENVIRONMENT, "the OMPI_COMM_WORLD_SIZE=4 ranks run on several hosts", NULL);
}

/* PE_HOSTFILE, PBS_NODEFILE, LSB_DJOB_RANKFILE, LSB_MCPU_HOSTS, Open MPI's default hostfile:
   the first set wins; an empty variable does not count. */
static void mpi_scheduler_sources_in_order(void **state) {
    cres_mpi_options mo = mpi_options();
    static const char *const order[] = {"PE_HOSTFILE", "PBS_NODEFILE", "LSB_DJOB_RANKFILE", "LSB_MCPU_HOSTS",
                                        "OMPI_MCA_orte_default_hostfile"};
    static const char *const first_host[] = {"sge1", "pbs1", "lsf1", "mcpu1", "kf1"};
    size_t i;
    (void)state;
    ompi_rank(0, 2, 0, 1);
    env_set("PE_HOSTFILE", temp_file("sge1 1 all.q@sge1 UNDEFINED\nsge2 1 all.q@sge2 UNDEFINED\n"));
    env_set("PBS_NODEFILE", temp_file("pbs1\npbs2\n"));
    env_set("LSB_DJOB_RANKFILE", temp_file("lsf1\nlsf2\n"));
    env_set("LSB_MCPU_HOSTS", "mcpu1 1 mcpu2 1");
    env_set("OMPI_MCA_orte_default_hostfile", temp_file("kf1\nkf2\n"));
    for (i = 0; i < 5; i++) {
        cres_resolver *r;
        char want[64], said[64];
        log_text[0] = '\0';
        r = MPI(mpi_options());
        snprintf(want, sizeof want, "grpc://%s:8888", first_host[i]);
        assert_string_equal(master_of(r, NULL, -1, NULL), want);
        snprintf(said, sizeof said, "mpi: hosts from %s (", order[i]);
        LOGGED(said);
        cres_resolver_free(r);
        env_set(order[i], "");
    }
    /* all empty: no source */
    MPI_FAILS(mo, CRES_ERR_ENVIRONMENT, "several hosts", NULL);
}

/* mpirun's own hostfile (options.hostfile) and srun's step come first. */
static void mpi_scheduler_after_hostfile_and_srun(void **state) {
    cres_mpi_options o = mpi_options();
    cres_resolver *r;
    (void)state;
    env_set("PE_HOSTFILE", temp_file(pe_hostfile));
    ompi_rank(1, 2, 1, 2);
    o.hostfile = temp_file("mine slots=2\n");
    r = MPI(o);
    assert_string_equal(resolved_json(r), dq("{'worker': ['mine:8888', 'mine:8889']}"));
    cres_resolver_free(r);
    /* srun started the ranks (PMIx under srun): the Slurm step */
    env_reset();
    env_set("PE_HOSTFILE", temp_file(pe_hostfile));
    env_set("PMIX_RANK", "1");
    env_set("SLURM_JOB_ID", "7");
    env_set("SLURM_PROCID", "1");
    env_set("SLURM_STEP_NUM_TASKS", "2");
    env_set("SLURM_STEP_NODELIST", "n[1-2]");
    env_set("SLURM_STEP_TASKS_PER_NODE", "1(x2)");
    env_set("SLURM_NODEID", "1");
    env_set("SLURM_LOCALID", "0");
    r = MPI(mpi_options());
    assert_string_equal(resolved_json(r), dq("{'worker': ['n1:8888', 'n2:8888']}"));
    cres_resolver_free(r);
}

/* A scheduler's file that is there but bad is an error naming it, never the next source. */
static void mpi_bad_scheduler_files_are_errors(void **state) {
    cres_mpi_options mo = mpi_options();
    const char *path;
    (void)state;
    ompi_rank(0, 2, 0, 1);
    env_set("PBS_NODEFILE", temp_file("pbs1\npbs2\n"));
    env_set("PE_HOSTFILE", "/nonexistent/test_sched/pe");
    MPI_FAILS(mo, CRES_ERR_ENVIRONMENT, "/nonexistent/test_sched/pe", NULL);
    env_set("PE_HOSTFILE", path = temp_file("sge1\n"));
    MPI_FAILS(mo, CRES_ERR_ENVIRONMENT, path, "line 1");
    env_set("PE_HOSTFILE", NULL);
    env_set("LSB_DJOB_RANKFILE", NULL);
    env_set("PBS_NODEFILE", NULL);
    env_set("LSB_MCPU_HOSTS", "a 1 b");
    MPI_FAILS(mo, CRES_ERR_ENVIRONMENT, "LSB_MCPU_HOSTS", "3 words");
    /* more ranks than the allocation's slots */
    env_set("LSB_MCPU_HOSTS", "a 1");
    MPI_FAILS(mo, CRES_ERR_ENVIRONMENT, "1 slots", "2 ranks");
    /* a rank the slots put elsewhere than Open MPI says */
    env_set("LSB_MCPU_HOSTS", "a 1 b 1");
    ompi_rank(1, 2, 1, 2);
    MPI_FAILS(mo, CRES_ERR_ENVIRONMENT, "rank 1", NULL);
    /* a mapping that cannot be followed on the allocation's slots */
    ompi_rank(1, 2, 0, 1);
    env_set("OMPI_MCA_rmaps_base_mapping_policy", "seq");
    MPI_FAILS(mo, CRES_ERR_UNSUPPORTED, "mpi: OMPI_MCA_rmaps_base_mapping_policy=\"seq\" is not supported", NULL);
}

/* The create calls take a NULL error: a bad allocation is still the same result, and no
   resolver comes back. */
static void errors_without_an_error_struct(void **state) {
    cres_pbs_options po = pbs_options();
    cres_lsf_options lo = lsf_options();
    cres_sge_options so = sge_options();
    cres_flux_options fo = flux_options();
    cres_resolver *r;
    (void)state;
    env_set("PBS_NODEFILE", temp_file("node01\nnode02 extra\n"));
    r = (cres_resolver *)&po;
    assert_int_equal(cres_pbs_resolver_create(&po, &r, NULL), CRES_ERR_ENVIRONMENT);
    assert_null(r);
    env_set("LSB_MCPU_HOSTS", "hostA 2 hostB");
    r = (cres_resolver *)&lo;
    assert_int_equal(cres_lsf_resolver_create(&lo, &r, NULL), CRES_ERR_ENVIRONMENT);
    assert_null(r);
    env_set("PE_HOSTFILE", "/nonexistent/test_sched/pe_hostfile");
    r = (cres_resolver *)&so;
    assert_int_equal(cres_sge_resolver_create(&so, &r, NULL), CRES_ERR_ENVIRONMENT);
    assert_null(r);
    env_lines(flux_job);
    flux_rank(1, 1);
    fo.hostfile = temp_file("corona171 cpus=4\n");
    r = (cres_resolver *)&fo;
    assert_int_equal(cres_flux_resolver_create(&fo, &r, NULL), CRES_ERR_ENVIRONMENT);
    assert_null(r);
    /* the same calls with an error name what is wrong */
    FLUX_FAILS(fo, CRES_ERR_ENVIRONMENT, "line 1", "\"cpus=4\"");
    SGE_FAILS(so, CRES_ERR_ENVIRONMENT, "/nonexistent/test_sched/pe_hostfile", NULL);
}

/* ---------------------------------------------------------------------------------------
   Auto */

/* Environments added from the lowest priority up: each new one takes over. Flux cannot be
   resolved without a hostfile (auto has none to give), so its step shows as flux's error. */
static void auto_scheduler_order(void **state) {
    cres_auto_options o = auto_options();
    cres_resolver *r;
    (void)state;
    /* allocations alone (no rank of this process's): slurm > pbs > lsf > sge > flux */
    env_lines(flux_job);
    AUTO_FAILS(o, CRES_ERR_ENVIRONMENT, "flux", "hostfile");
    env_set("PE_HOSTFILE", temp_file(pe_hostfile));
    r = AUTO(o, "sge");
    assert_string_equal(resolved_json(r), dq(SGE_SPEC));
    cres_resolver_free(r);
    env_set("LSB_MCPU_HOSTS", "hostA 2 hostB 2");
    cres_resolver_free(AUTO(o, "lsf"));
    env_set("PBS_NODEFILE", temp_file("node01\nnode02\n"));
    log_text[0] = '\0';
    r = AUTO(o, "pbs");
    assert_string_equal(resolved_json(r), dq("{'worker': ['node01:8888', 'node02:8888']}"));
    expect_no_own_task(r);
    LOGGED("auto: using the pbs backend: PBS_NODEFILE; passed over lsf (LSB_MCPU_HOSTS), sge (PE_HOSTFILE), flux "
           "(FLUX_JOB_ID)");
    cres_resolver_free(r);
    env_set("SLURM_JOB_ID", "7"); /* an sbatch script */
    env_set("SLURM_PROCID", "0");
    env_set("SLURM_JOB_NODELIST", "node[1-2]");
    env_set("SLURM_TASKS_PER_NODE", "2(x2)");
    r = AUTO(o, "slurm");
    assert_string_equal(resolved_json(r), dq("{'worker': ['node1:8888', 'node1:8889', 'node2:8888', 'node2:8889']}"));
    expect_no_own_task(r);
    cres_resolver_free(r);
    /* a platform's process inside the allocation: the platform, the innermost launcher */
    env_set("CLUSTER_SPEC", "{\"cluster\": {\"workerpool0\": [\"v0:2222\"]}, \"task\": {\"type\": \"workerpool0\", "
                            "\"index\": 0}}");
    cres_resolver_free(AUTO(o, "vertex"));
    /* a task of a scheduler's launch (Flux's rank) is inner still */
    env_set("FLUX_TASK_RANK", "0");
    AUTO_FAILS(o, CRES_ERR_ENVIRONMENT, "flux", "hostfile");
    env_set("OMPI_COMM_WORLD_RANK", "0");
    env_set("OMPI_COMM_WORLD_SIZE", "2");
    r = AUTO(o, "mpi"); /* and the MPI backend takes PE_HOSTFILE, the first source */
    assert_string_equal(master_of(r, NULL, -1, NULL), "grpc://node01.cluster:8888");
    cres_resolver_free(r);
}

/* Each scheduler alone, from each of the variables that names it. */
static void auto_each_scheduler_alone(void **state) {
    cres_auto_options o = auto_options();
    cres_resolver *r;
    (void)state;
    env_set("PBS_NODEFILE", temp_file("node01\nnode01\n"));
    env_set("PBS_VNODENUM", "1");
    r = AUTO(o, "pbs");
    expect_task(r, "worker", 1);
    cres_resolver_free(r);
    env_reset();
    env_set("LSB_DJOB_RANKFILE", temp_file("hostA\nhostB\n"));
    cres_resolver_free(AUTO(o, "lsf"));
    env_reset();
    env_set("LSB_MCPU_HOSTS", "hostA 1");
    cres_resolver_free(AUTO(o, "lsf"));
    env_reset();
    env_set("PE_HOSTFILE", temp_file(pe_hostfile));
    cres_resolver_free(AUTO(o, "sge"));
    /* forced by name: the option and the variable */
    env_set("LSB_MCPU_HOSTS", "hostA 1");
    o.backend = "sge";
    cres_resolver_free(AUTO(o, "sge"));
    o.backend = NULL;
    env_set("CLUSTER_RESOLVER_BACKEND", "sge");
    cres_resolver_free(AUTO(o, "sge"));
    env_set("CLUSTER_RESOLVER_BACKEND", "flux");
    AUTO_FAILS(o, CRES_ERR_ENVIRONMENT, "FLUX_TASK_RANK", NULL);
    env_set("CLUSTER_RESOLVER_BACKEND", "pbs");
    AUTO_FAILS(o, CRES_ERR_ENVIRONMENT, "PBS_NODEFILE", NULL);
}

/* A scheduler's job id alone: that scheduler, whose error names what is missing (never a
   one-task local job). */
static void auto_job_id_alone_is_that_schedulers_error(void **state) {
    cres_auto_options o = auto_options();
    (void)state;
    env_set("PBS_JOBID", "4711.server");
    AUTO_FAILS(o, CRES_ERR_ENVIRONMENT, "pbs", "PBS_NODEFILE");
    env_reset();
    env_set("LSB_JOBID", "81");
    AUTO_FAILS(o, CRES_ERR_ENVIRONMENT, "lsf", "LSB_DJOB_RANKFILE");
    env_reset();
    env_set("FLUX_JOB_ID", "f2oLkTLb");
    AUTO_FAILS(o, CRES_ERR_ENVIRONMENT, "flux", "--hostfile");
    env_reset();
    env_set("FLUX_ENCLOSING_ID", "f3Pd4Nq"); /* a flux batch script, a flux alloc shell */
    AUTO_FAILS(o, CRES_ERR_ENVIRONMENT, "flux", "--hostfile");
    env_reset();
    env_set("SLURM_JOB_ID", "7");
    AUTO_FAILS(o, CRES_ERR_ENVIRONMENT, "slurm", "SLURM_JOB_NODELIST");
}

/* MPI inside PBS (PALS's mpiexec sets PMI_SIZE): mpi, with the hosts of PBS_NODEFILE. */
static void auto_mpi_inside_pbs(void **state) {
    static const char *const hosts[] = {POLARIS0, POLARIS1};
    cres_auto_options o = auto_options();
    cres_resolver *r;
    (void)state;
    env_lines(pbs_job);
    env_set("PBS_NODEFILE", temp_file(polaris_nodefile));
    pals_rank(3, 8, 4);
    r = AUTO(o, "pbs"); /* PALS's PMI_SIZE is not an mpi job: pbs reads PALS's names */
    assert_string_equal(resolved_json(r), block_spec(hosts, 2, 4));
    expect_task(r, "worker", 3);
    LOGGED("pbs: hosts from PBS_NODEFILE");
    cres_resolver_free(r);
    /* Open MPI's mpirun on the PBS allocation is an mpi job */
    env_lines(pbs_job);
    env_set("PBS_NODEFILE", temp_file(polaris_nodefile));
    env_set("OMPI_COMM_WORLD_RANK", "3");
    env_set("OMPI_COMM_WORLD_SIZE", "8");
    r = AUTO(o, "mpi");
    assert_string_equal(resolved_json(r), block_spec(hosts, 2, 4));
    expect_task(r, "worker", 3);
    LOGGED("mpi: hosts from PBS_NODEFILE");
    LOGGED("auto: using the mpi backend: OMPI_COMM_WORLD_SIZE; passed over pbs (PALS_RANKID)");
    cres_resolver_free(r);
}

/* auto's port is each scheduler's port_base. */
static void auto_port_reaches_the_schedulers(void **state) {
    cres_auto_options o = auto_options();
    cres_resolver *r;
    (void)state;
    o.port = 9000;
    env_set("PBS_NODEFILE", temp_file("node01\nnode01\n"));
    r = AUTO(o, "pbs");
    assert_string_equal(resolved_json(r), dq("{'worker': ['node01:9000', 'node01:9001']}"));
    cres_resolver_free(r);
    env_reset();
    env_set("LSB_MCPU_HOSTS", "hostA 1");
    r = AUTO(o, "lsf");
    assert_string_equal(resolved_json(r), dq("{'worker': ['hostA:9000']}"));
    cres_resolver_free(r);
    env_reset();
    env_set("PE_HOSTFILE", temp_file("vm 2 all.q@vm UNDEFINED\n"));
    r = AUTO(o, "sge");
    assert_string_equal(resolved_json(r), dq("{'worker': ['vm:9000', 'vm:9001']}"));
    cres_resolver_free(r);
}

/* Every resolve gives a fresh spec, equal to the last. */
static void resolves_are_fresh_and_equal(void **state) {
    cres_resolver *r;
    cres_cluster_spec *a = NULL, *b = NULL;
    cres_error err;
    (void)state;
    env_set("PE_HOSTFILE", temp_file(pe_hostfile));
    r = SGE(sge_options());
    OK(cres_resolve(r, &a, &err));
    OK(cres_resolve(r, &b, &err));
    assert_true(a != b);
    assert_true(cres_spec_equal(a, b));
    cres_spec_free(a);
    cres_spec_free(b);
    cres_resolver_free(r);
}

/* An allocation of more than CRES_MAX_HOSTLIST_HOSTS slots is CRES_ERR_LIMIT, as Slurm's
   steps are ("more than 1000000 tasks"): 40 hosts of 50,000 slots, the job script. */
static void allocation_over_the_task_limit(void **state) {
    cres_pbs_options po = pbs_options();
    static char text[40 * 16];
    size_t i, n = 0;
    (void)state;
    for (i = 0; i < 40; i++) n += (size_t)snprintf(text + n, sizeof text - n, "h%zu:50000\n", i);
    env_set("PBS_NODEFILE", temp_file(text));
    PBS_FAILS(po, CRES_ERR_LIMIT, "1000000", NULL);
    /* one host named twice, its slots adding up past the limit */
    env_set("PBS_NODEFILE", temp_file("h1:1000000\nh2\nh1:1\n"));
    PBS_FAILS(po, CRES_ERR_LIMIT, "slots, more than 1000000", NULL);
    /* a file of more lines than the limit (blank ones count: it is not read past them) */
    {
        char *lines = (char *)malloc(1000000 + 4);
        assert_non_null(lines);
        memset(lines, '\n', 1000000);
        memcpy(lines + 1000000, "h1", 3);
        env_set("PBS_NODEFILE", temp_file(lines));
        free(lines);
        PBS_FAILS(po, CRES_ERR_LIMIT, "PBS_NODEFILE", "hostfile of more than 1000000 lines");
    }
}

/* Slots adding up past INT_MAX (76,700 hosts of 56,000 slots, ports fit on each) must not
   wrap the task count: the plain build crashed here (SIGSEGV in the deal), the sanitized one
   stops at "signed integer overflow" in cres__sched_read. Last in the list, so that a crash
   hides no other result. */
static void allocation_past_int_max_is_a_limit(void **state) {
    cres_pbs_options po = pbs_options();
    size_t cap = 76700 * 16, n = 0, i;
    char *text = (char *)malloc(cap);
    (void)state;
    assert_non_null(text);
    for (i = 0; i < 76700; i++) n += (size_t)snprintf(text + n, cap - n, "h%zu:56000\n", i);
    env_set("PBS_NODEFILE", temp_file(text));
    free(text);
    PBS_FAILS(po, CRES_ERR_LIMIT, NULL, NULL);
    env_set("PBS_VNODENUM", "0");
    PBS_FAILS(po, CRES_ERR_LIMIT, NULL, NULL);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        /* PBS */
        cmocka_unit_test_setup(pbs_pals_every_rank, reset),
        cmocka_unit_test_setup(pbs_pals_fewer_ranks_than_slots, reset),
        cmocka_unit_test_setup(pbs_pals_line_per_node, reset),
        cmocka_unit_test_setup(pbs_pals_last_node_holds_fewer, reset),
        cmocka_unit_test_setup(pbs_pals_disagreement_is_an_error, reset),
        cmocka_unit_test_setup(pbs_pals_bad_rank_variables, reset),
        cmocka_unit_test_setup(pbs_pbsdsh_every_task, reset),
        cmocka_unit_test_setup(pbs_torque_job_script_is_no_task, reset),
        cmocka_unit_test_setup(pbs_pbsdsh_task_runs_on_its_line, reset),
        cmocka_unit_test_setup(pbs_pbsdsh_counts_blanks_and_names, reset),
        cmocka_unit_test_setup(pbs_pbsdsh_bad_vnode, reset),
        cmocka_unit_test_setup(pbs_job_script, reset),
        cmocka_unit_test_setup(pbs_jobs_and_port_base, reset),
        cmocka_unit_test_setup(pbs_gpus, reset),
        cmocka_unit_test_setup(pbs_nodefile_unset, reset),
        cmocka_unit_test_setup(pbs_nodefile_missing_names_the_file, reset),
        cmocka_unit_test_setup(pbs_nodefile_unreadable_names_the_file, reset),
        cmocka_unit_test_setup(pbs_nodefile_empty_names_the_file, reset),
        cmocka_unit_test_setup(pbs_nodefile_bad_lines_name_file_and_line, reset),
        /* LSF */
        cmocka_unit_test_setup(lsf_jsrun_every_rank_csm, reset),
        cmocka_unit_test_setup(lsf_jsrun_gpus_are_the_resource_sets, reset),
        cmocka_unit_test_setup(lsf_lightning_rankfile, reset),
        cmocka_unit_test_setup(lsf_jsrun_resource_sets_disagree, reset),
        cmocka_unit_test_setup(lsf_jsrun_launch_node_by_count, reset),
        cmocka_unit_test_setup(sched_mpi_ranks_as_mpirun_placed_them, reset),
        cmocka_unit_test_setup(lsf_launch_node_only_on_csm, reset),
        cmocka_unit_test_setup(lsf_mcpu_hosts_with_mpi_ranks, reset),
        cmocka_unit_test_setup(lsf_rankfile_wins, reset),
        cmocka_unit_test_setup(lsf_job_script, reset),
        cmocka_unit_test_setup(lsf_jobs_split, reset),
        cmocka_unit_test_setup(lsf_bad_mcpu_hosts, reset),
        cmocka_unit_test_setup(lsf_bad_rankfile, reset),
        cmocka_unit_test_setup(lsf_bad_rank_variables, reset),
        /* Grid Engine */
        cmocka_unit_test_setup(sge_open_mpi_every_rank, reset),
        cmocka_unit_test_setup(sge_pmi_ranks, reset),
        cmocka_unit_test_setup(sge_job_script, reset),
        cmocka_unit_test_setup(sge_jobs_split_and_gpus, reset),
        cmocka_unit_test_setup(sge_short_lines_are_read, reset),
        cmocka_unit_test_setup(sge_repeated_hosts_and_blanks, reset),
        cmocka_unit_test_setup(sge_nslots_must_be_the_slots, reset),
        cmocka_unit_test_setup(sge_pe_hostfile_unset, reset),
        cmocka_unit_test_setup(sge_bad_lines_name_file_and_line, reset),
        cmocka_unit_test_setup(sge_bad_rank_variables, reset),
        /* Flux */
        cmocka_unit_test_setup(flux_every_rank, reset),
        cmocka_unit_test_setup(flux_hostlist_line, reset),
        cmocka_unit_test_setup(flux_slots_from_the_hostfile, reset),
        cmocka_unit_test_setup(flux_jobs_ports_and_gpus, reset),
        cmocka_unit_test_setup(flux_needs_a_hostfile, reset),
        cmocka_unit_test_setup(flux_job_script_is_the_allocation, reset),
        cmocka_unit_test_setup(flux_bad_variables, reset),
        cmocka_unit_test_setup(flux_bad_hostfile_names_file_and_line, reset),
        /* MPI from a scheduler */
        cmocka_unit_test_setup(mpi_hosts_from_pe_hostfile, reset),
        cmocka_unit_test_setup(mpi_hosts_from_pbs_nodefile, reset),
        cmocka_unit_test_setup(mpi_hosts_from_lsb_djob_rankfile, reset),
        cmocka_unit_test_setup(mpi_under_jsrun_agrees_with_it, reset),
        cmocka_unit_test_setup(mpi_hosts_from_lsb_mcpu_hosts, reset),
        cmocka_unit_test_setup(mpi_lsb_mcpu_hosts_of_short_pairs, reset),
        cmocka_unit_test_setup(mpi_hosts_from_kubeflow_mpijob, reset),
        cmocka_unit_test_setup(mpi_scheduler_sources_in_order, reset),
        cmocka_unit_test_setup(mpi_scheduler_after_hostfile_and_srun, reset),
        cmocka_unit_test_setup(mpi_bad_scheduler_files_are_errors, reset),
        cmocka_unit_test_setup(errors_without_an_error_struct, reset),
        /* Auto */
        cmocka_unit_test_setup(auto_scheduler_order, reset),
        cmocka_unit_test_setup(auto_each_scheduler_alone, reset),
        cmocka_unit_test_setup(auto_job_id_alone_is_that_schedulers_error, reset),
        cmocka_unit_test_setup(auto_mpi_inside_pbs, reset),
        cmocka_unit_test_setup(auto_port_reaches_the_schedulers, reset),
        cmocka_unit_test_setup(resolves_are_fresh_and_equal, reset),
        /* limits (the last one crashed the library) */
        cmocka_unit_test_setup(allocation_over_the_task_limit, reset),
        cmocka_unit_test_setup(allocation_past_int_max_is_a_limit, reset),
    };
    return cmocka_run_group_tests_name("sched", tests, NULL, remove_temp_files);
}
