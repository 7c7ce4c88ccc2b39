/* Allocation-failure injection for the scheduler backends (pbs, lsf, sge, flux), the MPI
   backend's hosts from a scheduler's allocation, and auto's pick of each, with the
   allocator, walk and shared scenario parts (environment, create, checks) of
   tests/alloc_walk.h (see tests/test_alloc_fail_hpc.c).

   A scenario creates its resolver from an environment served through cres_config.getenv
   (the schedulers' files are temporary files), then resolves, asks for the own task, the
   master, the launch info (none, for a job script: CRES_ERR_NOT_FOUND), the allocation as
   a hostfile, and the visible devices (a length query and a real buffer) and accelerators.
   For every n the scenario must end in its expected result or CRES_ERR_OUT_OF_MEMORY,
   leave no block allocated and free every block through the allocator that made it; the
   undisturbed run must give the expected result and content. Each scenario is walked
   twice: failing only allocation n, and failing n and every later one.

   Build: gcc -std=c99 ... tests/test_alloc_fail_sched.c tests/impl.c -lcmocka */

#define _XOPEN_SOURCE 700 /* mkdtemp, unlink, rmdir */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../cluster_resolver.h"

/* The test allocator, the walk, and the environment (name/value pairs ending in NULL) and
   the checks the backends' walks share */
#include "alloc_walk.h"
#include "walk_files.h"

#define N(a) (sizeof(a) / sizeof *(a))

/* ---------------------------------------------------------------------------------------
   The schedulers' files */

/* PBS: `select=2:ncpus=4:mpiprocs=2`, a line per slot; and a file whose host's lines are
   apart (chunks packed on two hosts), which merge where the host first appears. */
static const char nodefile_text[] = "node01\nnode01\nnode02\nnode02\n";
static const char nodefile_mixed_text[] = "node01\nnode02\nnode01\nnode02\n";
/* LSF on a CSM system: the launch node first, with one slot. */
static const char rankfile_text[] = "batch3\na01n01\na01n01\na01n02\na01n02\n";
/* Grid Engine (sge_pe(5)). */
static const char pe_hostfile_text[] = "node01.cluster 4 all.q@node01.cluster UNDEFINED\n"
                                       "node02.cluster 2 all.q@node02.cluster UNDEFINED\n";
static const char pe_bad_text[] = "node01.cluster 4 all.q@node01.cluster UNDEFINED\nnode02.cluster\n";
/* `flux hostlist -e -d '\n'`. */
static const char flux_hosts_text[] = "corona171\ncorona172\n";
/* `flux hostlist`'s default: one line, a hostlist. */
static const char flux_hostlist_text[] = "corona[171-172]\n";
/* Kubeflow MPIJob's /etc/mpi/hostfile. */
static const char mpijob_text[] = "pi-worker-0.pi.default.svc slots=2\npi-worker-1.pi.default.svc slots=2\n";

static char temp_dir[WALK_PATH_SIZE], nodefile[WALK_PATH_SIZE], nodefile_mixed[WALK_PATH_SIZE],
    rankfile[WALK_PATH_SIZE], pe_hostfile[WALK_PATH_SIZE], pe_bad[WALK_PATH_SIZE],
    flux_hosts[WALK_PATH_SIZE], flux_hostlist[WALK_PATH_SIZE], mpijob_hostfile[WALK_PATH_SIZE];

static const walk_file files[] = {
    {nodefile, "4711.pbs-server", nodefile_text},
    {nodefile_mixed, "4712.pbs-server", nodefile_mixed_text},
    {rankfile, "lsb_djob_rankfile", rankfile_text},
    {pe_hostfile, "pe_hostfile", pe_hostfile_text},
    {pe_bad, "pe_bad", pe_bad_text},
    {flux_hosts, "flux_hosts", flux_hosts_text},
    {flux_hostlist, "flux_hostlist", flux_hostlist_text},
    {mpijob_hostfile, "hostfile", mpijob_text},
};

static int make_files(void **state) {
    (void)state;
    return walk_files_make(temp_dir, "/tmp/test_alloc_fail_sched.XXXXXX", files, N(files));
}

static int remove_files(void **state) {
    (void)state;
    return walk_files_remove(temp_dir, files, N(files));
}

/* ---------------------------------------------------------------------------------------
   Scenarios */

typedef enum backend { PBS, LSF, SGE, FLUX, MPI, AUTO } backend;

typedef struct scenario {
    const char *name;
    backend backend;
    const char *const *env;           /* name, value, ..., NULL */
    const cres_job_count *jobs;
    size_t jobs_count;
    const char *hostfile;             /* flux and mpi: options.hostfile */
    const char *force;                /* auto: options.backend */
    cres_result expected;
    const char *want_name;            /* cres_resolver_name */
    const char *want_spec;            /* JSON */
    const char *want_task;            /* "worker 5", "- -1" for none */
    const char *want_master;
    const char *want_launch;          /* "world rank local/size node/nodes host:port"; "none" = no own task */
    const char *want_hostfile;        /* cres_spec_to_hostfile of the spec */
    const char *want_devices;         /* NULL = not asked */
    int want_gpus;
    const char *want_message;         /* part of the message when the undisturbed run fails */
} scenario;

static cres_result run_create(const scenario *sc, const cres_config *config, cres_resolver **r,
                              const test_alloc *t) {
    cres_error err;
    cres_result res;
    switch (sc->backend) {
    case PBS:
        WALK_CREATE(cres_pbs_options, cres_pbs_resolver_create, WALK_JOBS_FIELDS);
        break;
    case LSF:
        WALK_CREATE(cres_lsf_options, cres_lsf_resolver_create, WALK_JOBS_FIELDS);
        break;
    case SGE:
        WALK_CREATE(cres_sge_options, cres_sge_resolver_create, WALK_JOBS_FIELDS);
        break;
    case FLUX:
        WALK_CREATE(cres_flux_options, cres_flux_resolver_create,
                    WALK_JOBS_FIELDS; o.hostfile = sc->hostfile);
        break;
    case MPI:
        WALK_CREATE(cres_mpi_options, cres_mpi_resolver_create,
                    WALK_JOBS_FIELDS; o.hostfile = sc->hostfile);
        break;
    default:
        WALK_CREATE(cres_auto_options, cres_auto_resolver_create, o.backend = sc->force);
        break;
    }
    return check_create(res, &err, *r, t, sc->expected, sc->want_message, sc->want_name);
}

static cres_result run_launch(const scenario *sc, cres_resolver *r) {
    cres_launch_info i;
    cres_error err;
    char got[512];
    cres_result res = checked(cres_launch(r, &i, &err), &err);
    if (strcmp(sc->want_launch, "none") == 0) {
        if (res == CRES_ERR_NOT_FOUND) return CRES_OK;
        return res == CRES_OK ? mismatch("launch info of a job script", "") : res;
    }
    if (res != CRES_OK) return res;
    snprintf(got, sizeof got, "%d %d %d/%d %d/%d %s:%d", i.world_size, i.rank, i.local_rank, i.local_world_size,
             i.node_rank, i.num_nodes, i.master_host, i.master_port);
    return strcmp(got, sc->want_launch) == 0 ? CRES_OK : mismatch("launch info", got);
}

static cres_result run_scenario(test_alloc *t, const void *ctx) {
    const scenario *sc = (const scenario *)ctx;
    cres_config config;
    cres_resolver *r = NULL;
    cres_result res;
    walk_config(&config, t, sc->env);
    res = run_create(sc, &config, &r, t);
    if (res == CRES_OK) res = check_resolve(r, sc->want_spec, sc->want_hostfile, sc->want_task);
    if (res == CRES_OK) res = check_master(r, sc->want_master);
    if (res == CRES_OK && sc->want_launch) res = run_launch(sc, r);
    if (res == CRES_OK && sc->want_devices) res = check_devices(r, sc->want_devices, sc->want_gpus);
    cres_resolver_free(r);
    return res;
}

static void walk(const scenario *sc) { alloc_walk(sc->name, run_scenario, sc, sc->expected); }

/* ---------------------------------------------------------------------------------------
   PBS */

#define PBS_SPEC "{\"worker\": [\"node01:8888\", \"node01:8889\", \"node02:8888\", \"node02:8889\"]}"

/* Cray PALS's mpiexec, rank 3 of 4 (--ppn 2), two GPUs a node, which PBS does not say are
   the node's: left as they are. */
static void pbs_pals(void **state) {
    static const char *const env[] = {"PBS_JOBID", "4711.pbs-server", "PBS_NODEFILE", nodefile, "PALS_RANKID", "3",
                                      "PALS_NODEID", "1", "PALS_LOCAL_RANKID", "1", "PALS_LOCAL_SIZE", "2", "PMI_RANK",
                                      "3", "PMI_SIZE", "4", "CUDA_VISIBLE_DEVICES", "0,1", NULL};
    static const scenario sc = {"pbs PALS", PBS, env, NULL, 0, NULL, NULL, CRES_OK, "pbs", PBS_SPEC, "worker 3",
                                "grpc://node02:8889", "4 3 1/2 1/2 node01:8888", "node01 slots=2\nnode02 slots=2\n",
                                "", 2, NULL};
    (void)state;
    walk(&sc);
}

static const cres_job_count chief_worker3[] = {{"worker", 3}, {"chief", 1}};

static void pbs_pbsdsh_jobs(void **state) {
    static const char *const env[] = {"PBS_NODEFILE", nodefile, "PBS_VNODENUM", "0", NULL};
    static const scenario sc = {
        "pbs pbsdsh, chief and workers", PBS, env, chief_worker3, N(chief_worker3), NULL, NULL, CRES_OK, "pbs",
        "{\"chief\": [\"node01:8888\"], \"worker\": [\"node01:8889\", \"node02:8888\", \"node02:8889\"]}", "chief 0",
        "grpc://node01:8888", "4 0 0/2 0/2 node01:8888", NULL, "", 0, NULL};
    (void)state;
    walk(&sc);
}

static void pbs_job_script(void **state) {
    static const char *const env[] = {"PBS_JOBID", "4712.pbs-server", "PBS_NODEFILE", nodefile_mixed, NULL};
    static const scenario sc = {"pbs job script", PBS, env, NULL, 0, NULL, NULL, CRES_OK, "pbs", PBS_SPEC, "- -1", "",
                                "none", "node01 slots=2\nnode02 slots=2\n", NULL, 0, NULL};
    (void)state;
    walk(&sc);
}

static void pbs_pals_disagrees(void **state) {
    static const char *const env[] = {"PBS_NODEFILE", nodefile, "PALS_RANKID", "3", "PALS_NODEID", "1",
                                      "PALS_LOCAL_RANKID", "0", "PMI_SIZE", "4", NULL};
    static const scenario sc = {"pbs PALS disagrees", PBS, env, NULL, 0, NULL, NULL, CRES_ERR_ENVIRONMENT, "pbs", NULL,
                                NULL, NULL, NULL, NULL, NULL, 0, "rank 3 should be task 1"};
    (void)state;
    walk(&sc);
}

/* ---------------------------------------------------------------------------------------
   LSF */

#define LSF_SPEC "{\"worker\": [\"a01n01:8888\", \"a01n01:8889\", \"a01n02:8888\", \"a01n02:8889\"]}"

static void lsf_jsrun_csm(void **state) {
    static const char *const env[] = {"LSB_JOBID", "1170513", "CSM_ALLOCATION_ID", "1088245", "LSB_DJOB_RANKFILE",
                                      rankfile, "JSM_NAMESPACE_RANK", "2", "JSM_NAMESPACE_SIZE", "4",
                                      "JSM_NAMESPACE_LOCAL_RANK", "0", "JSM_NAMESPACE_LOCAL_SIZE", "2", NULL};
    static const scenario sc = {"lsf jsrun on CSM", LSF, env, NULL, 0, NULL, NULL, CRES_OK, "lsf", LSF_SPEC, "worker 2",
                                "grpc://a01n02:8888", "4 2 0/2 1/2 a01n01:8888", "a01n01 slots=2\na01n02 slots=2\n", "",
                                0, NULL};
    (void)state;
    walk(&sc);
}

/* Four GPUs that LSF does not say are the node's: left as they are. */
static void lsf_mcpu_hosts_ompi(void **state) {
    static const char *const env[] = {"LSB_MCPU_HOSTS", "hostA 2 hostB 1", "OMPI_COMM_WORLD_RANK", "1",
                                      "OMPI_COMM_WORLD_SIZE", "3", "CUDA_VISIBLE_DEVICES", "0,1,2,3", NULL};
    static const scenario sc = {"lsf LSB_MCPU_HOSTS, Open MPI", LSF, env, NULL, 0, NULL, NULL, CRES_OK, "lsf",
                                "{\"worker\": [\"hostA:8888\", \"hostA:8889\", \"hostB:8888\"]}", "worker 1",
                                "grpc://hostA:8889", "3 1 1/2 0/2 hostA:8888", NULL, "", 4, NULL};
    (void)state;
    walk(&sc);
}

static void lsf_job_script(void **state) {
    static const char *const env[] = {"LSB_JOBID", "1170513", "CSM_ALLOCATION_ID", "1088245", "LSB_MCPU_HOSTS",
                                      "batch3 1 a01n01 2 a01n02 2", NULL};
    static const scenario sc = {"lsf job script", LSF, env, NULL, 0, NULL, NULL, CRES_OK, "lsf", LSF_SPEC, "- -1", "",
                                "none", "a01n01 slots=2\na01n02 slots=2\n", NULL, 0, NULL};
    (void)state;
    walk(&sc);
}

static void lsf_bad_mcpu_hosts(void **state) {
    static const char *const env[] = {"LSB_MCPU_HOSTS", "hostA 2 hostB", NULL};
    static const scenario sc = {"lsf LSB_MCPU_HOSTS of odd words", LSF, env, NULL, 0, NULL, NULL, CRES_ERR_ENVIRONMENT,
                                "lsf", NULL, NULL, NULL, NULL, NULL, NULL, 0, "3 words"};
    (void)state;
    walk(&sc);
}

/* ---------------------------------------------------------------------------------------
   Grid Engine */

#define SGE_SPEC                                                                                                     \
    "{\"worker\": [\"node01.cluster:8888\", \"node01.cluster:8889\", \"node01.cluster:8890\", \"node01.cluster:8891\", " \
    "\"node02.cluster:8888\", \"node02.cluster:8889\"]}"

static void sge_open_mpi(void **state) {
    static const char *const env[] = {"JOB_ID", "17", "NSLOTS", "6", "PE_HOSTFILE", pe_hostfile,
                                      "OMPI_COMM_WORLD_RANK", "5", "OMPI_COMM_WORLD_SIZE", "6",
                                      "OMPI_COMM_WORLD_LOCAL_RANK", "1", NULL};
    static const scenario sc = {"sge Open MPI", SGE, env, NULL, 0, NULL, NULL, CRES_OK, "sge", SGE_SPEC, "worker 5",
                                "grpc://node02.cluster:8889", "6 5 1/2 1/2 node01.cluster:8888", NULL, "", 0, NULL};
    (void)state;
    walk(&sc);
}

static void sge_job_script(void **state) {
    static const char *const env[] = {"JOB_ID", "17", "NSLOTS", "6", "PE_HOSTFILE", pe_hostfile, NULL};
    static const scenario sc = {"sge job script", SGE, env, NULL, 0, NULL, NULL, CRES_OK, "sge", SGE_SPEC, "- -1", "",
                                "none", "node01.cluster slots=4\nnode02.cluster slots=2\n", NULL, 0, NULL};
    (void)state;
    walk(&sc);
}

static void sge_short_line(void **state) {
    static const char *const env[] = {"PE_HOSTFILE", pe_bad, NULL};
    static const scenario sc = {"sge line of one field", SGE, env, NULL, 0, NULL, NULL, CRES_ERR_ENVIRONMENT, "sge", NULL,
                                NULL, NULL, NULL, NULL, NULL, 0, "line 2"};
    (void)state;
    walk(&sc);
}

static void sge_nslots_mismatch(void **state) {
    static const char *const env[] = {"NSLOTS", "8", "PE_HOSTFILE", pe_hostfile, NULL};
    static const scenario sc = {"sge NSLOTS mismatch", SGE, env, NULL, 0, NULL, NULL, CRES_ERR_ENVIRONMENT, "sge", NULL,
                                NULL, NULL, NULL, NULL, NULL, 0, "NSLOTS=8"};
    (void)state;
    walk(&sc);
}

/* ---------------------------------------------------------------------------------------
   Flux */

#define FLUX_ENV "FLUX_JOB_ID", "f2oLkTLb", "FLUX_JOB_SIZE", "4", "FLUX_JOB_NNODES", "2", "PMI_SIZE", "4"

static void flux_hostfile(void **state) {
    static const char *const env[] = {FLUX_ENV, "FLUX_TASK_RANK", "3", "FLUX_TASK_LOCAL_ID", "1", "PMI_RANK", "3",
                                      "CUDA_VISIBLE_DEVICES", "0,1", NULL};
    static const scenario sc = {
        "flux", FLUX, env, NULL, 0, flux_hosts, NULL, CRES_OK, "flux",
        "{\"worker\": [\"corona171:8888\", \"corona171:8889\", \"corona172:8888\", \"corona172:8889\"]}", "worker 3",
        "grpc://corona172:8889", "4 3 1/2 1/2 corona171:8888", "corona171 slots=2\ncorona172 slots=2\n", "", 2, NULL};
    (void)state;
    walk(&sc);
}

static void flux_hostlist_line(void **state) {
    static const char *const env[] = {FLUX_ENV, "FLUX_TASK_RANK", "2", "FLUX_TASK_LOCAL_ID", "0", "PMI_RANK", "2", NULL};
    static const scenario sc = {
        "flux hostlist line", FLUX, env, NULL, 0, flux_hostlist, NULL, CRES_OK, "flux",
        "{\"worker\": [\"corona171:8888\", \"corona171:8889\", \"corona172:8888\", \"corona172:8889\"]}", "worker 2",
        "grpc://corona172:8888", "4 2 0/2 1/2 corona171:8888", "corona171 slots=2\ncorona172 slots=2\n", "", 0, NULL};
    (void)state;
    walk(&sc);
}

/* A `flux batch` script: FLUX_ENCLOSING_ID instead of the job's variables; the hostfile is
   the allocation and no task is the script's. */
static void flux_job_script(void **state) {
    static const char *const env[] = {"FLUX_ENCLOSING_ID", "f3Pd4Nq", "FLUX_URI", "local:///tmp/flux-x/local-0", NULL};
    static const scenario sc = {
        "flux job script", FLUX, env, NULL, 0, flux_hosts, NULL, CRES_OK, "flux",
        "{\"worker\": [\"corona171:8888\", \"corona172:8888\"]}", "- -1", "", "none",
        "corona171 slots=1\ncorona172 slots=1\n", NULL, 0, NULL};
    (void)state;
    walk(&sc);
}

static void flux_without_hostfile(void **state) {
    static const char *const env[] = {FLUX_ENV, "FLUX_TASK_RANK", "3", NULL};
    static const scenario sc = {"flux without a hostfile", FLUX, env, NULL, 0, NULL, NULL, CRES_ERR_ENVIRONMENT, "flux",
                                NULL, NULL, NULL, NULL, NULL, NULL, 0, "options.hostfile"};
    (void)state;
    walk(&sc);
}

static void flux_nnodes_mismatch(void **state) {
    static const char *const env[] = {"FLUX_JOB_SIZE", "4", "FLUX_JOB_NNODES", "4", "FLUX_TASK_RANK", "0", NULL};
    static const scenario sc = {"flux FLUX_JOB_NNODES mismatch", FLUX, env, NULL, 0, flux_hosts, NULL,
                                CRES_ERR_ENVIRONMENT, "flux", NULL, NULL, NULL, NULL, NULL, NULL, 0,
                                "FLUX_JOB_NNODES=4 but the hostfile names 2 hosts"};
    (void)state;
    walk(&sc);
}

/* ---------------------------------------------------------------------------------------
   MPI: the hosts of the scheduler's allocation */

static void mpi_from_pe_hostfile(void **state) {
    static const char *const env[] = {"PE_HOSTFILE", pe_hostfile, "OMPI_COMM_WORLD_RANK", "4", "OMPI_COMM_WORLD_SIZE",
                                      "6", "OMPI_COMM_WORLD_LOCAL_RANK", "0", "OMPI_COMM_WORLD_LOCAL_SIZE", "2", NULL};
    static const scenario sc = {"mpi from PE_HOSTFILE", MPI, env, NULL, 0, NULL, NULL, CRES_OK, "mpi", SGE_SPEC,
                                "worker 4", "grpc://node02.cluster:8888", "6 4 0/2 1/2 node01.cluster:8888", NULL, "",
                                0, NULL};
    (void)state;
    walk(&sc);
}

static void mpi_from_pbs_nodefile(void **state) {
    static const char *const env[] = {"PBS_NODEFILE", nodefile_mixed, "PMI_RANK", "1", "PMI_SIZE", "4", NULL};
    static const scenario sc = {"mpi from PBS_NODEFILE", MPI, env, NULL, 0, NULL, NULL, CRES_OK, "mpi", PBS_SPEC,
                                "worker 1", "grpc://node01:8889", "4 1 1/2 0/2 node01:8888", NULL, NULL, 0, NULL};
    (void)state;
    walk(&sc);
}

static void mpi_from_lsb_djob_rankfile(void **state) {
    static const char *const env[] = {"CSM_ALLOCATION_ID", "1088245", "LSB_DJOB_RANKFILE", rankfile,
                                      "OMPI_COMM_WORLD_RANK", "3", "OMPI_COMM_WORLD_SIZE", "4", NULL};
    static const scenario sc = {"mpi from LSB_DJOB_RANKFILE on CSM", MPI, env, NULL, 0, NULL, NULL, CRES_OK, "mpi",
                                LSF_SPEC, "worker 3", "grpc://a01n02:8889", "4 3 1/2 1/2 a01n01:8888", NULL, NULL, 0,
                                NULL};
    (void)state;
    walk(&sc);
}

static void mpi_from_lsb_mcpu_hosts(void **state) {
    static const cres_job_count jobs[] = {{"worker", 2}, {"ps", 1}};
    static const char *const env[] = {"LSB_MCPU_HOSTS", "hostA 2 hostB 1", "PMI_RANK", "0", "PMI_SIZE", "3", NULL};
    static const scenario sc = {"mpi from LSB_MCPU_HOSTS, jobs", MPI, env, jobs, N(jobs), NULL, NULL, CRES_OK, "mpi",
                                "{\"ps\": [\"hostA:8888\"], \"worker\": [\"hostA:8889\", \"hostB:8888\"]}", "ps 0",
                                "grpc://hostA:8888", "3 0 0/2 0/2 hostA:8888", "hostA slots=2\nhostB slots=1\n", NULL,
                                0, NULL};
    (void)state;
    walk(&sc);
}

static void mpi_from_kubeflow_mpijob(void **state) {
    static const char *const env[] = {"OMPI_MCA_orte_default_hostfile", mpijob_hostfile, "OMPI_COMM_WORLD_RANK", "2",
                                      "OMPI_COMM_WORLD_SIZE", "4", "OMPI_COMM_WORLD_LOCAL_RANK", "0",
                                      "OMPI_COMM_WORLD_LOCAL_SIZE", "2", NULL};
    static const scenario sc = {
        "mpi from Kubeflow's MPIJob hostfile", MPI, env, NULL, 0, NULL, NULL, CRES_OK, "mpi",
        "{\"worker\": [\"pi-worker-0.pi.default.svc:8888\", \"pi-worker-0.pi.default.svc:8889\", "
        "\"pi-worker-1.pi.default.svc:8888\", \"pi-worker-1.pi.default.svc:8889\"]}",
        "worker 2", "grpc://pi-worker-1.pi.default.svc:8888", "4 2 0/2 1/2 pi-worker-0.pi.default.svc:8888", NULL, NULL,
        0, NULL};
    (void)state;
    walk(&sc);
}

static void mpi_from_scheduler_too_few_slots(void **state) {
    static const char *const env[] = {"PE_HOSTFILE", pe_hostfile, "OMPI_COMM_WORLD_RANK", "0", "OMPI_COMM_WORLD_SIZE",
                                      "7", NULL};
    static const scenario sc = {"mpi, more ranks than PE_HOSTFILE's slots", MPI, env, NULL, 0, NULL, NULL,
                                CRES_ERR_ENVIRONMENT, "mpi", NULL, NULL, NULL, NULL, NULL, NULL, 0,
                                "6 slots for OMPI_COMM_WORLD_SIZE=7 ranks"};
    (void)state;
    walk(&sc);
}

/* ---------------------------------------------------------------------------------------
   Auto */

static void auto_pbs(void **state) {
    static const char *const env[] = {"PBS_NODEFILE", nodefile, "PBS_VNODENUM", "2", "LSB_MCPU_HOSTS", "x 1",
                                      "FLUX_JOB_ID", "f1", NULL};
    static const scenario sc = {"auto: pbs", AUTO, env, NULL, 0, NULL, NULL, CRES_OK, "pbs", PBS_SPEC, "worker 2",
                                "grpc://node02:8888", "4 2 0/2 1/2 node01:8888", NULL, NULL, 0, NULL};
    (void)state;
    walk(&sc);
}

static void auto_lsf(void **state) {
    static const char *const env[] = {"LSB_JOBID", "81", "LSB_MCPU_HOSTS", "hostA 2 hostB 1", "PE_HOSTFILE", pe_hostfile,
                                      NULL};
    static const scenario sc = {"auto: lsf", AUTO, env, NULL, 0, NULL, NULL, CRES_OK, "lsf",
                                "{\"worker\": [\"hostA:8888\", \"hostA:8889\", \"hostB:8888\"]}", "- -1", "", "none",
                                NULL, NULL, 0, NULL};
    (void)state;
    walk(&sc);
}

static void auto_sge(void **state) {
    static const char *const env[] = {"PE_HOSTFILE", pe_hostfile, "FLUX_JOB_ID", "f1", NULL};
    static const scenario sc = {"auto: sge before a Flux allocation", AUTO, env, NULL, 0, NULL, NULL, CRES_OK, "sge", SGE_SPEC, "- -1", "",
                                "none", NULL, NULL, 0, NULL};
    (void)state;
    walk(&sc);
}

static void auto_mpi_inside_pbs(void **state) {
    static const char *const env[] = {"PBS_JOBID", "4711.pbs-server", "PBS_NODEFILE", nodefile,
                                      "OMPI_COMM_WORLD_RANK", "2", "OMPI_COMM_WORLD_SIZE", "4", NULL};
    static const scenario sc = {"auto: mpi inside PBS", AUTO, env, NULL, 0, NULL, NULL, CRES_OK, "mpi", PBS_SPEC,
                                "worker 2", "grpc://node02:8888", "4 2 0/2 1/2 node01:8888", NULL, NULL, 0, NULL};
    (void)state;
    walk(&sc);
}

static void auto_pbs_jobid_alone(void **state) {
    static const char *const env[] = {"PBS_JOBID", "4711.pbs-server", NULL};
    static const scenario sc = {"auto: PBS_JOBID alone", AUTO, env, NULL, 0, NULL, NULL, CRES_ERR_ENVIRONMENT, "pbs",
                                NULL, NULL, NULL, NULL, NULL, NULL, 0, "PBS_NODEFILE is not set"};
    (void)state;
    walk(&sc);
}

static void auto_flux_forced(void **state) {
    static const char *const env[] = {FLUX_ENV, "FLUX_TASK_RANK", "1", "PMI_RANK", "1", NULL};
    static const scenario sc = {"auto: flux forced", AUTO, env, NULL, 0, NULL, "flux", CRES_ERR_ENVIRONMENT, "flux",
                                NULL, NULL, NULL, NULL, NULL, NULL, 0, "options.hostfile"};
    (void)state;
    walk(&sc);
}

/* See alloc_walk_first_fails(). */
static void allocator_fails_the_first_allocation(void **state) {
    static const char *const env[] = {"PBS_NODEFILE", nodefile, NULL};
    static const scenario sc = {"first allocation", PBS, env, NULL, 0, NULL, NULL, CRES_OK, "pbs", PBS_SPEC, "- -1", "",
                                NULL, NULL, NULL, 0, NULL};
    (void)state;
    alloc_walk_first_fails(run_scenario, &sc);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(allocator_fails_the_first_allocation),
        cmocka_unit_test(pbs_pals),
        cmocka_unit_test(pbs_pbsdsh_jobs),
        cmocka_unit_test(pbs_job_script),
        cmocka_unit_test(pbs_pals_disagrees),
        cmocka_unit_test(lsf_jsrun_csm),
        cmocka_unit_test(lsf_mcpu_hosts_ompi),
        cmocka_unit_test(lsf_job_script),
        cmocka_unit_test(lsf_bad_mcpu_hosts),
        cmocka_unit_test(sge_open_mpi),
        cmocka_unit_test(sge_job_script),
        cmocka_unit_test(sge_short_line),
        cmocka_unit_test(sge_nslots_mismatch),
        cmocka_unit_test(flux_hostfile),
        cmocka_unit_test(flux_hostlist_line),
        cmocka_unit_test(flux_job_script),
        cmocka_unit_test(flux_without_hostfile),
        cmocka_unit_test(flux_nnodes_mismatch),
        cmocka_unit_test(mpi_from_pe_hostfile),
        cmocka_unit_test(mpi_from_pbs_nodefile),
        cmocka_unit_test(mpi_from_lsb_djob_rankfile),
        cmocka_unit_test(mpi_from_lsb_mcpu_hosts),
        cmocka_unit_test(mpi_from_kubeflow_mpijob),
        cmocka_unit_test(mpi_from_scheduler_too_few_slots),
        cmocka_unit_test(auto_pbs),
        cmocka_unit_test(auto_lsf),
        cmocka_unit_test(auto_sge),
        cmocka_unit_test(auto_mpi_inside_pbs),
        cmocka_unit_test(auto_pbs_jobid_alone),
        cmocka_unit_test(auto_flux_forced),
    };
    return cmocka_run_group_tests(tests, make_files, remove_files);
}
