/* Allocation-failure injection for the HPC backends (Slurm, MPI, SageMaker) and for
   auto-detection of every backend, with the allocator and walk of tests/alloc_walk.h, which
   also holds the scenario parts (environment, create, checks) this file shares with
   test_alloc_fail_launch.c, _platforms.c and _sched.c.

   A counting test allocator fails the n-th allocation (n = 0, 1, 2, ...) of a scenario and
   counts the blocks still live. A scenario creates its resolver from an environment served
   through cres_config.getenv (hostfiles and resource config files are temporary files),
   then resolves, asks for the own task, master, visible devices (a length query and a real
   buffer) and accelerators. For every n the scenario must end in its expected result or
   CRES_ERR_OUT_OF_MEMORY, leave no block allocated and free every block through the
   allocator that made it. The walk stops at the first n the scenario never reaches; that
   undisturbed run must give the expected result and content. Each scenario is walked
   twice: failing only allocation n, and failing n and every later one.

   Build: gcc -std=c99 ... tests/test_alloc_fail_hpc.c tests/impl.c -lcmocka */

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

/* The test allocator, the walk, and the environment (name/value pairs ending in NULL), the
   offline transport and the checks the backends' walks share */
#include "alloc_walk.h"
#include "walk_files.h"

#define N(a) (sizeof(a) / sizeof *(a))

/* ---------------------------------------------------------------------------------------
   Temporary files */

static const char openmpi_text[] =
    "# Open MPI hostfile for a 4-node job\n"
    "\n"
    "node01 slots=4 max_slots=8\n"
    "node02 slots=4\n"
    "node03 slots=2   # the small one\n"
    "node04\n";
static const char mpich_text[] = "gpu-a:2\ngpu-b:2\n";
static const char resource_config_text[] =
    "{\n"
    "    \"current_host\": \"algo-2\",\n"
    "    \"current_instance_type\": \"ml.p3.16xlarge\",\n"
    "    \"current_group_name\": \"homogeneousCluster\",\n"
    "    \"hosts\": [\"algo-1\", \"algo-2\"],\n"
    "    \"instance_groups\": [{\"instance_group_name\": \"homogeneousCluster\", \"instance_type\": \"ml.p3.16xlarge\",\n"
    "                         \"hosts\": [\"algo-2\", \"algo-1\"]}],\n"
    "    \"network_interface_name\": \"eth0\"\n"
    "}\n";

/* A heterogeneous cluster on algo-2, in the shape of sagemaker-training-toolkit's
   src/sagemaker_training/environment.py (read_resource_config's keys). */
static const char hetero_config_text[] =
    "{\"current_host\": \"algo-2\", \"current_instance_type\": \"ml.p4d.24xlarge\",\n"
    " \"current_group_name\": \"train\", \"hosts\": [\"algo-1\", \"algo-2\", \"algo-3\"],\n"
    " \"instance_groups\": [{\"instance_group_name\": \"train\", \"instance_type\": \"ml.p4d.24xlarge\",\n"
    "                      \"hosts\": [\"algo-2\", \"algo-1\"]},\n"
    "                     {\"instance_group_name\": \"data\", \"instance_type\": \"ml.c5.xlarge\",\n"
    "                      \"hosts\": [\"algo-3\"]}],\n"
    " \"network_interface_name\": \"eth0\"}\n";

static char temp_dir[WALK_PATH_SIZE], openmpi_path[WALK_PATH_SIZE], mpich_path[WALK_PATH_SIZE],
    resource_config_path[WALK_PATH_SIZE], hetero_config_path[WALK_PATH_SIZE];

static const walk_file files[] = {
    {openmpi_path, "openmpi_hostfile", openmpi_text},
    {mpich_path, "mpich_hostfile", mpich_text},
    {resource_config_path, "resourceconfig.json", resource_config_text},
    {hetero_config_path, "hetero.json", hetero_config_text},
};

static int make_files(void **state) {
    (void)state;
    return walk_files_make(temp_dir, "/tmp/test_alloc_fail_hpc.XXXXXX", files, N(files));
}

static int remove_files(void **state) {
    (void)state;
    return walk_files_remove(temp_dir, files, N(files));
}

/* ---------------------------------------------------------------------------------------
   Scenarios */

typedef enum backend { SLURM, MPI, SAGEMAKER, SAGEMAKER_GROUPS, AUTO } backend;

typedef struct scenario {
    const char *name;
    backend backend;
    const char *const *env;           /* name, value, ..., NULL */
    const cres_job_count *jobs;       /* slurm and mpi */
    size_t jobs_count;
    const char *hostfile;             /* mpi: options.hostfile */
    const char *resource_config;      /* sagemaker: options.resource_config */
    const char *force;                /* auto: options.backend */
    int create_only;                  /* the backend needs the network to resolve */
    cres_result expected;
    const char *want_name;            /* cres_resolver_name */
    const char *want_spec;            /* JSON, when expected is CRES_OK and not create_only */
    const char *want_task;            /* "worker 5" */
    const char *want_master;
    const char *want_devices;         /* cres_visible_devices of the own task */
    int want_gpus;                    /* cres_num_accelerators: GPUs per task */
    const char *want_message;         /* part of the message when the undisturbed run fails */
} scenario;

static cres_result run_create(const scenario *sc, const cres_config *config, cres_resolver **r,
                              const test_alloc *t) {
    cres_error err;
    cres_result res;
    switch (sc->backend) {
    case SLURM:
        WALK_CREATE(cres_slurm_options, cres_slurm_resolver_create, WALK_JOBS_FIELDS);
        break;
    case MPI:
        WALK_CREATE(cres_mpi_options, cres_mpi_resolver_create,
                    WALK_JOBS_FIELDS; o.hostfile = sc->hostfile);
        break;
    case SAGEMAKER:
    case SAGEMAKER_GROUPS:
        WALK_CREATE(cres_sagemaker_options, cres_sagemaker_resolver_create,
                    o.resource_config = sc->resource_config; /* NULL: /opt/ml's, absent here */
                    o.instance_groups = sc->backend == SAGEMAKER_GROUPS);
        break;
    default:
        WALK_CREATE(cres_auto_options, cres_auto_resolver_create, o.backend = sc->force);
        break;
    }
    return check_create(res, &err, *r, t, sc->expected, sc->want_message, sc->want_name);
}

static cres_result run_scenario(test_alloc *t, const void *ctx) {
    const scenario *sc = (const scenario *)ctx;
    cres_config config;
    cres_resolver *r = NULL;
    cres_result res;
    int requests = 0;
    walk_config(&config, t, sc->env);
    walk_offline(&config, &requests);
    res = run_create(sc, &config, &r, t);
    if (res == CRES_OK && !sc->create_only)
        res = check_resolve(r, sc->want_spec, NULL, sc->want_task);
    if (res == CRES_OK && !sc->create_only) res = check_master(r, sc->want_master);
    if (res == CRES_OK && sc->want_devices) res = check_devices(r, sc->want_devices, sc->want_gpus);
    if (requests) res = mismatch("an HTTP request was made", sc->name);
    cres_resolver_free(r);
    return res;
}

/* ---------------------------------------------------------------------------------------
   The walk */

static void walk(const scenario *sc) { alloc_walk(sc->name, run_scenario, sc, sc->expected); }

/* ---------------------------------------------------------------------------------------
   Slurm: the environment of `srun -N4 -n8` on node[1-4], 4+2+1+1 tasks */

#define SRUN_N4_N8 "SLURM_JOB_ID", "4242", "SLURM_STEP_NODELIST", "node[1-4]", "SLURM_STEP_TASKS_PER_NODE", "4,2,1(x2)", \
                   "SLURM_STEP_NUM_TASKS", "8", "SLURM_GPUS_ON_NODE", "4"

static void slurm_block(void **state) {
    static const char *const env[] = {SRUN_N4_N8, "SLURM_PROCID", "5", "SLURM_NODEID", "1", "SLURM_LOCALID", "1",
                                      "SLURM_DISTRIBUTION", "block", "CUDA_VISIBLE_DEVICES", "0,1,2,3", NULL};
    static const scenario sc = {
        "slurm block", SLURM, env, NULL, 0, NULL, NULL, NULL, 0, CRES_OK, "slurm",
        "{\"worker\": [\"node1:8888\", \"node1:8889\", \"node1:8890\", \"node1:8891\", \"node2:8888\", \"node2:8889\", "
        "\"node3:8888\", \"node4:8888\"]}",
        "worker 5", "grpc://node2:8889", "2,3", 2, NULL}; /* node2's 4 GPUs for its 2 tasks */
    (void)state;
    walk(&sc);
}

static void slurm_cyclic(void **state) {
    static const char *const env[] = {SRUN_N4_N8, "SLURM_PROCID", "6", "SLURM_NODEID", "0", "SLURM_LOCALID", "2",
                                      "SLURM_DISTRIBUTION", "cyclic", "CUDA_VISIBLE_DEVICES", "0,1,2,3", NULL};
    static const scenario sc = {
        "slurm cyclic", SLURM, env, NULL, 0, NULL, NULL, NULL, 0, CRES_OK, "slurm",
        "{\"worker\": [\"node1:8888\", \"node2:8888\", \"node3:8888\", \"node4:8888\", \"node1:8889\", \"node2:8889\", "
        "\"node1:8890\", \"node1:8891\"]}",
        "worker 6", "grpc://node1:8890", "2", 1, NULL};
    (void)state;
    walk(&sc);
}

static void slurm_plane(void **state) {
    static const char *const env[] = {SRUN_N4_N8, "SLURM_PROCID", "5", "SLURM_NODEID", "3", "SLURM_LOCALID", "0",
                                      "SLURM_DISTRIBUTION", "plane", "SLURM_DIST_PLANESIZE", "2", NULL};
    static const scenario sc = {
        "slurm plane=2", SLURM, env, NULL, 0, NULL, NULL, NULL, 0, CRES_OK, "slurm",
        "{\"worker\": [\"node1:8888\", \"node1:8889\", \"node2:8888\", \"node2:8889\", \"node3:8888\", \"node4:8888\", "
        "\"node1:8890\", \"node1:8891\"]}",
        "worker 5", "grpc://node4:8888", "", 0, NULL};
    (void)state;
    walk(&sc);
}

static const cres_job_count worker6_ps2[] = {{"worker", 6}, {"ps", 2}};

static void slurm_two_jobs(void **state) {
    static const char *const env[] = {"SLURM_JOB_ID", "7", "SLURM_STEP_NODELIST", "n[1-4]", "SLURM_STEP_TASKS_PER_NODE",
                                      "2(x4)", "SLURM_STEP_NUM_TASKS", "8", "SLURM_PROCID", "1", NULL};
    static const scenario sc = {
        "slurm two jobs", SLURM, env, worker6_ps2, N(worker6_ps2), NULL, NULL, NULL, 0, CRES_OK, "slurm",
        "{\"ps\": [\"n1:8888\", \"n1:8889\"], \"worker\": [\"n2:8888\", \"n2:8889\", \"n3:8888\", \"n3:8889\", "
        "\"n4:8888\", \"n4:8889\"]}",
        "ps 1", "grpc://n1:8889", "", 0, NULL};
    (void)state;
    walk(&sc);
}

/* Two GPUs per task from the node's CUDA_VISIBLE_DEVICES ids. */
static void slurm_gpus(void **state) {
    static const char *const env[] = {"SLURM_JOB_ID", "7", "SLURM_STEP_NODELIST", "gpu[01-02]", "SLURM_STEP_TASKS_PER_NODE",
                                      "2(x2)", "SLURM_STEP_NUM_TASKS", "4", "SLURM_PROCID", "3", "SLURM_DISTRIBUTION",
                                      "cyclic:block", "CUDA_VISIBLE_DEVICES", "4,5,6,7", "SLURM_GPUS_ON_NODE", "4", NULL};
    static const scenario sc = {"slurm GPUs", SLURM, env, NULL, 0, NULL, NULL, NULL, 0, CRES_OK, "slurm",
                                "{\"worker\": [\"gpu01:8888\", \"gpu02:8888\", \"gpu01:8889\", \"gpu02:8889\"]}",
                                "worker 3", "grpc://gpu02:8889", "6,7", 2, NULL};
    (void)state;
    walk(&sc);
}

/* `srun --gpus-per-task=2`: the task's own two GPUs, passed on unchanged. */
static void slurm_gpus_bound(void **state) {
    static const char *const env[] = {"SLURM_JOB_ID", "7", "SLURM_STEP_NODELIST", "gpu01", "SLURM_STEP_TASKS_PER_NODE",
                                      "2", "SLURM_STEP_NUM_TASKS", "2", "SLURM_PROCID", "1", "SLURM_LOCALID", "1",
                                      "CUDA_VISIBLE_DEVICES", "2,3", "SLURM_GPUS_ON_NODE", "4", NULL};
    static const scenario sc = {"slurm GPUs bound per task", SLURM, env, NULL, 0, NULL, NULL, NULL, 0, CRES_OK, "slurm",
                                "{\"worker\": [\"gpu01:8888\", \"gpu01:8889\"]}", "worker 1", "grpc://gpu01:8889", "",
                                2, NULL};
    (void)state;
    walk(&sc);
}

/* An sbatch script: no step; the job's allocation and no task of its own. */
static void slurm_batch_script(void **state) {
    static const char *const env[] = {"SLURM_JOB_ID", "123456", "SLURMD_NODENAME", "node17", "SLURM_PROCID", "0",
                                      "SLURM_JOB_NODELIST", "node[17-18]", "SLURM_TASKS_PER_NODE", "2,1",
                                      "SLURM_NTASKS", "3", NULL};
    static const scenario sc = {"slurm batch script", SLURM, env, NULL, 0, NULL, NULL, NULL, 0, CRES_OK, "slurm",
                                "{\"worker\": [\"node17:8888\", \"node17:8889\", \"node18:8888\"]}", "- -1", "", "", 0,
                                NULL};
    (void)state;
    walk(&sc);
}

static void slurm_counts_mismatch(void **state) {
    static const char *const env[] = {"SLURM_STEP_NODELIST", "n[1-3]", "SLURM_STEP_TASKS_PER_NODE", "2(x2)",
                                      "SLURM_STEP_NUM_TASKS", "4", "SLURM_PROCID", "0", NULL};
    static const scenario sc = {"slurm counts mismatch", SLURM, env, NULL, 0, NULL, NULL, NULL, 0, CRES_ERR_ENVIRONMENT,
                                "slurm", NULL, NULL, NULL, NULL, 0, "gives 2 counts for the 3 nodes"};
    (void)state;
    walk(&sc);
}

/* ---------------------------------------------------------------------------------------
   MPI */

static void mpi_openmpi_hostfile(void **state) {
    static const char *const env[] = {"OMPI_COMM_WORLD_RANK", "5", "OMPI_COMM_WORLD_SIZE", "11",
                                      "OMPI_COMM_WORLD_LOCAL_RANK", "1", "OMPI_COMM_WORLD_LOCAL_SIZE", "4", NULL};
    static const scenario sc = {
        "mpi Open MPI hostfile", MPI, env, NULL, 0, openmpi_path, NULL, NULL, 0, CRES_OK, "mpi",
        "{\"worker\": [\"node01:8888\", \"node01:8889\", \"node01:8890\", \"node01:8891\", \"node02:8888\", "
        "\"node02:8889\", \"node02:8890\", \"node02:8891\", \"node03:8888\", \"node03:8889\", \"node04:8888\"]}",
        "worker 5", "grpc://node02:8889", "", 0, NULL};
    (void)state;
    walk(&sc);
}

/* mpiexec does not say whose CUDA_VISIBLE_DEVICES is: left as it is. */
static void mpi_mpich_hostfile_gpus(void **state) {
    static const char *const env[] = {"PMI_RANK", "2", "PMI_SIZE", "4", "CUDA_VISIBLE_DEVICES", "0,1", NULL};
    static const scenario sc = {"mpi MPICH hostfile, GPUs", MPI, env, NULL, 0, mpich_path, NULL, NULL, 0, CRES_OK, "mpi",
                                "{\"worker\": [\"gpu-a:8888\", \"gpu-a:8889\", \"gpu-b:8888\", \"gpu-b:8889\"]}",
                                "worker 2", "grpc://gpu-b:8888", "", 2, NULL};
    (void)state;
    walk(&sc);
}

static void mpi_hostfile_two_jobs(void **state) {
    static const cres_job_count jobs[] = {{"worker", 9}, {"chief", 1}, {"ps", 1}};
    static const char *const env[] = {"OMPI_COMM_WORLD_RANK", "0", "OMPI_COMM_WORLD_SIZE", "11", NULL};
    static const scenario sc = {
        "mpi hostfile, chief ps worker", MPI, env, jobs, N(jobs), openmpi_path, NULL, NULL, 0, CRES_OK, "mpi",
        "{\"chief\": [\"node01:8888\"], \"ps\": [\"node01:8889\"], \"worker\": [\"node01:8890\", \"node01:8891\", "
        "\"node02:8888\", \"node02:8889\", \"node02:8890\", \"node02:8891\", \"node03:8888\", \"node03:8889\", "
        "\"node04:8888\"]}",
        "chief 0", "grpc://node01:8888", "", 0, NULL};
    (void)state;
    walk(&sc);
}

static void mpi_single_host(void **state) {
    static const char *const env[] = {"OMPI_COMM_WORLD_RANK", "1", "OMPI_COMM_WORLD_SIZE", "4",
                                      "OMPI_COMM_WORLD_LOCAL_RANK", "1", "OMPI_COMM_WORLD_LOCAL_SIZE", "4",
                                      "PMIX_HOSTNAME", "box1", NULL};
    static const scenario sc = {"mpi single host", MPI, env, NULL, 0, NULL, NULL, NULL, 0, CRES_OK, "mpi",
                                "{\"worker\": [\"box1:8888\", \"box1:8889\", \"box1:8890\", \"box1:8891\"]}",
                                "worker 1", "grpc://box1:8889", "", 0, NULL};
    (void)state;
    walk(&sc);
}

/* mpirun inside a Slurm allocation: the step is mpirun's daemons, one per node. */
static void mpi_mpirun_in_allocation(void **state) {
    static const char *const env[] = {"OMPI_COMM_WORLD_RANK", "5", "OMPI_COMM_WORLD_SIZE", "8",
                                      "OMPI_COMM_WORLD_LOCAL_RANK", "1", "OMPI_COMM_WORLD_LOCAL_SIZE", "4",
                                      "SLURM_JOB_ID", "99", "SLURM_STEP_NODELIST", "c[1-2]", "SLURM_STEP_TASKS_PER_NODE",
                                      "1(x2)", "SLURM_STEP_NUM_TASKS", "2", "SLURM_PROCID", "1", "SLURM_NODEID", "1", NULL};
    static const scenario sc = {
        "mpi mpirun in a Slurm allocation", MPI, env, NULL, 0, NULL, NULL, NULL, 0, CRES_OK, "mpi",
        "{\"worker\": [\"c1:8888\", \"c1:8889\", \"c1:8890\", \"c1:8891\", \"c2:8888\", \"c2:8889\", \"c2:8890\", "
        "\"c2:8891\"]}",
        "worker 5", "grpc://c2:8889", "", 0, NULL};
    (void)state;
    walk(&sc);
}

/* srun started the MPI ranks itself: the Slurm step is the whole story. */
static void mpi_srun_started(void **state) {
    static const char *const env[] = {"PMI_RANK", "3", "PMI_SIZE", "4", "SLURM_JOB_ID", "99", "SLURM_STEP_NODELIST",
                                      "n[1-2]", "SLURM_STEP_TASKS_PER_NODE", "2(x2)", "SLURM_STEP_NUM_TASKS", "4",
                                      "SLURM_PROCID", "3", "SLURM_NODEID", "1", "SLURM_LOCALID", "1", NULL};
    static const scenario sc = {"mpi srun-started ranks", MPI, env, NULL, 0, NULL, NULL, NULL, 0, CRES_OK, "mpi",
                                "{\"worker\": [\"n1:8888\", \"n1:8889\", \"n2:8888\", \"n2:8889\"]}", "worker 3",
                                "grpc://n2:8889", "", 0, NULL};
    (void)state;
    walk(&sc);
}

static void mpi_too_few_slots(void **state) {
    static const char *const env[] = {"OMPI_COMM_WORLD_RANK", "0", "OMPI_COMM_WORLD_SIZE", "5", NULL};
    static const scenario sc = {"mpi too few slots", MPI, env, NULL, 0, mpich_path, NULL, NULL, 0, CRES_ERR_ENVIRONMENT,
                                "mpi", NULL, NULL, NULL, NULL, 0, "4 slots for OMPI_COMM_WORLD_SIZE=5 ranks"};
    (void)state;
    walk(&sc);
}

/* ---------------------------------------------------------------------------------------
   SageMaker */

static void sagemaker_env(void **state) {
    static const char *const env[] = {"SM_HOSTS", "[\"algo-2\", \"algo-10\", \"algo-1\"]", "SM_CURRENT_HOST", "algo-2", NULL};
    static const scenario sc = {"sagemaker SM_HOSTS", SAGEMAKER, env, NULL, 0, NULL, NULL, NULL, 0, CRES_OK, "sagemaker",
                                "{\"worker\": [\"algo-1:2223\", \"algo-2:2223\", \"algo-10:2223\"]}", "worker 1",
                                "algo-2:2223", "", 0, NULL};
    (void)state;
    walk(&sc);
}

static void sagemaker_resource_config(void **state) {
    static const scenario sc = {"sagemaker resource config", SAGEMAKER, NULL, NULL, 0, NULL, resource_config_path, NULL,
                                0, CRES_OK, "sagemaker", "{\"worker\": [\"algo-1:2223\", \"algo-2:2223\"]}", "worker 1",
                                "algo-2:2223", "", 0, NULL};
    (void)state;
    walk(&sc);
}

/* SM_HOSTS from the environment, the current host from the file. */
static void sagemaker_mixed(void **state) {
    /* the file's hosts too, so both are read and compared */
    static const char *const env[] = {"SM_HOSTS", "[\"algo-2\", \"algo-1\"]", NULL};
    static const scenario sc = {"sagemaker SM_HOSTS + file", SAGEMAKER, env, NULL, 0, NULL, resource_config_path, NULL, 0,
                                CRES_OK, "sagemaker",
                                "{\"worker\": [\"algo-1:2223\", \"algo-2:2223\"]}", "worker 1",
                                "algo-2:2223", "", 0, NULL};
    (void)state;
    walk(&sc);
}

static void sagemaker_not_listed(void **state) {
    static const char *const env[] = {"SM_HOSTS", "[\"algo-1\", \"algo-2\"]", "SM_CURRENT_HOST", "algo-3", NULL};
    static const scenario sc = {"sagemaker host not listed", SAGEMAKER, env, NULL, 0, NULL, NULL, NULL, 0,
                                CRES_ERR_ENVIRONMENT, "sagemaker", NULL, NULL, NULL, NULL, 0,
                                "\"algo-3\" is not one of the 2 hosts"};
    (void)state;
    walk(&sc);
}

/* Instance groups (options.instance_groups): the variables sagemaker-training-toolkit's
   environment.py to_env_vars() writes on algo-2 of a two-group job. */
#define HETERO_ENV                                                                                           \
    "SM_HOSTS", "[\"algo-1\",\"algo-2\",\"algo-3\"]", "SM_CURRENT_INSTANCE_GROUP", "train",                      \
        "SM_INSTANCE_GROUPS_DICT",                                                                           \
        "{\"data\":{\"hosts\":[\"algo-3\"],\"instance_group_name\":\"data\",\"instance_type\":\"ml.c5.xlarge\"}," \
        "\"train\":{\"hosts\":[\"algo-2\",\"algo-1\"],\"instance_group_name\":\"train\",\"instance_type\":"        \
        "\"ml.p4d.24xlarge\"}}"
#define HETERO_SPEC "{\"data\": [\"algo-3:2223\"], \"train\": [\"algo-1:2223\", \"algo-2:2223\"]}"

static void sagemaker_groups_env(void **state) {
    static const char *const env[] = {HETERO_ENV, "SM_CURRENT_HOST", "algo-2", NULL};
    static const scenario sc = {"sagemaker instance groups", SAGEMAKER_GROUPS, env, NULL, 0, NULL, NULL, NULL, 0,
                                CRES_OK, "sagemaker", HETERO_SPEC, "train 1", "algo-2:2223", "", 0, NULL};
    (void)state;
    walk(&sc);
}

static void sagemaker_groups_resource_config(void **state) {
    static const scenario sc = {"sagemaker instance groups, resource config", SAGEMAKER_GROUPS, NULL, NULL, 0, NULL,
                                hetero_config_path, NULL, 0, CRES_OK, "sagemaker", HETERO_SPEC, "train 1",
                                "algo-2:2223", "", 0, NULL};
    (void)state;
    walk(&sc);
}

/* Every source at once: the groups from the variable, the rest from the file, whose
   current_group_name disagrees. */
static void sagemaker_groups_wrong_group(void **state) {
    static const char *const env[] = {"SM_INSTANCE_GROUPS_DICT",
                                      "{\"data\": {\"hosts\": [\"algo-3\"]}, \"train\": {\"hosts\": [\"algo-1\"]}, "
                                      "\"eval\": {\"hosts\": [\"algo-2\"]}}",
                                      NULL};
    static const scenario sc = {"sagemaker instance groups, wrong group", SAGEMAKER_GROUPS, env, NULL, 0, NULL,
                                hetero_config_path, NULL, 0, CRES_ERR_ENVIRONMENT, "sagemaker", NULL, NULL, NULL,
                                NULL, 0, "\"current_group_name\" is \"train\""};
    (void)state;
    walk(&sc);
}

static void sagemaker_groups_host_twice(void **state) {
    static const char *const env[] = {"SM_INSTANCE_GROUPS_DICT",
                                      "{\"a\": {\"hosts\": [\"algo-1\", \"algo-2\"]}, "
                                      "\"b\": {\"hosts\": [\"algo-2\"]}}",
                                      "SM_CURRENT_HOST", "algo-1", NULL};
    static const scenario sc = {"sagemaker instance groups, host twice", SAGEMAKER_GROUPS, env, NULL, 0, NULL, NULL,
                                NULL, 0, CRES_ERR_ENVIRONMENT, "sagemaker", NULL, NULL, NULL, NULL, 0,
                                "puts host \"algo-2\" in two groups"};
    (void)state;
    walk(&sc);
}

static void sagemaker_groups_not_the_hosts(void **state) {
    static const char *const env[] = {"SM_INSTANCE_GROUPS_DICT", "{\"a\": {\"hosts\": [\"algo-1\"]}}",
                                      "SM_HOSTS", "[\"algo-1\", \"algo-2\"]", "SM_CURRENT_HOST", "algo-1", NULL};
    static const scenario sc = {"sagemaker instance groups, not the hosts", SAGEMAKER_GROUPS, env, NULL, 0, NULL,
                                NULL, NULL, 0, CRES_ERR_ENVIRONMENT, "sagemaker", NULL, NULL, NULL, NULL, 0,
                                "SM_HOSTS lists host \"algo-2\""};
    (void)state;
    walk(&sc);
}

/* ---------------------------------------------------------------------------------------
   Auto-detection of each backend */

static void auto_tfconfig(void **state) {
    static const char *const env[] = {
        "TF_CONFIG", "{\"cluster\": {\"worker\": [\"w0:2222\", \"w1:2222\"]}, \"task\": {\"type\": \"worker\", \"index\": 1}}",
        "OMPI_COMM_WORLD_SIZE", "2", NULL};
    static const scenario sc = {"auto: tfconfig", AUTO, env, NULL, 0, NULL, NULL, NULL, 0, CRES_OK, "tfconfig",
                                "{\"worker\": [\"w0:2222\", \"w1:2222\"]}", "worker 1", "w1:2222", "", 0, NULL};
    (void)state;
    walk(&sc);
}

static void auto_mpi(void **state) {
    static const char *const env[] = {"OMPI_COMM_WORLD_RANK", "1", "OMPI_COMM_WORLD_SIZE", "2",
                                      "OMPI_COMM_WORLD_LOCAL_SIZE", "2", "SLURM_STEP_NODELIST", "n1", NULL};
    static const scenario sc = {"auto: mpi", AUTO, env, NULL, 0, NULL, NULL, NULL, 0, CRES_OK, "mpi",
                                "{\"worker\": [\"localhost:8888\", \"localhost:8889\"]}", "worker 1",
                                "grpc://localhost:8889", "", 0, NULL};
    (void)state;
    walk(&sc);
}

static void auto_slurm_step(void **state) {
    static const char *const env[] = {SRUN_N4_N8, "SLURM_PROCID", "0", "CUDA_VISIBLE_DEVICES", "0,1,2,3",
                                      "SM_HOSTS", "[\"algo-1\"]", NULL};
    static const scenario sc = {
        "auto: slurm step", AUTO, env, NULL, 0, NULL, NULL, NULL, 0, CRES_OK, "slurm",
        "{\"worker\": [\"node1:8888\", \"node1:8889\", \"node1:8890\", \"node1:8891\", \"node2:8888\", \"node2:8889\", "
        "\"node3:8888\", \"node4:8888\"]}",
        "worker 0", "grpc://node1:8888", "0", 1, NULL};
    (void)state;
    walk(&sc);
}

/* An salloc shell: SLURM_JOB_ID without SLURM_PROCID. */
static void auto_slurm_batch(void **state) {
    static const char *const env[] = {"SLURM_JOB_ID", "5", "SLURM_JOB_NODELIST", "n[1-2]", "SLURM_TASKS_PER_NODE",
                                      "1(x2)", NULL};
    static const scenario sc = {"auto: salloc shell", AUTO, env, NULL, 0, NULL, NULL, NULL, 0, CRES_OK, "slurm",
                                "{\"worker\": [\"n1:8888\", \"n2:8888\"]}", "- -1", "", "", 0, NULL};
    (void)state;
    walk(&sc);
}

static void auto_sagemaker(void **state) {
    static const char *const env[] = {"SM_HOSTS", "[\"algo-1\", \"algo-2\"]", "SM_CURRENT_HOST", "algo-1",
                                      "TPU_NAME", "my-tpu", NULL};
    static const scenario sc = {"auto: sagemaker", AUTO, env, NULL, 0, NULL, NULL, NULL, 0, CRES_OK, "sagemaker",
                                "{\"worker\": [\"algo-1:2223\", \"algo-2:2223\"]}", "worker 0", "algo-1:2223", "", 0,
                                NULL};
    (void)state;
    walk(&sc);
}

/* A TPU VM's own variables: no request made (the transport is still required). Devices
   are not asked: TPU cores per host need the accelerator type. */
static void auto_tpu(void **state) {
    static const char *const env[] = {"TPU_WORKER_HOSTNAMES", "t1,t2", "TPU_WORKER_ID", "1", NULL};
    static const scenario sc = {"auto: tpu", AUTO, env, NULL, 0, NULL, NULL, NULL, 0, CRES_OK, "tpu",
                                "{\"worker\": [\"t1:8470\", \"t2:8470\"]}", "worker 1", "grpc://t2:8470", NULL, 0, NULL};
    (void)state;
    walk(&sc);
}

/* An Indexed Job's pod: create only (resolving lists pods over HTTP). */
static void auto_kubernetes(void **state) {
    static const char *const env[] = {"KUBERNETES_SERVICE_HOST", "10.96.0.1", "KUBERNETES_SERVICE_PORT", "443",
                                      "JOB_COMPLETION_INDEX", "3", "HOSTNAME", "trainer-3", NULL};
    static const scenario sc = {"auto: kubernetes", AUTO, env, NULL, 0, NULL, NULL, NULL, 1, CRES_OK, "kubernetes",
                                NULL, NULL, NULL, NULL, 0, NULL};
    (void)state;
    walk(&sc);
}

static void auto_local(void **state) {
    static const char *const env[] = {"KUBERNETES_SERVICE_HOST", "10.96.0.1", "HOSTNAME", "laptop", NULL};
    static const scenario sc = {"auto: local", AUTO, env, NULL, 0, NULL, NULL, NULL, 0, CRES_OK, "local",
                                "{\"worker\": [\"localhost:8470\"]}", "worker 0", "localhost:8470", "", 0, NULL};
    (void)state;
    walk(&sc);
}

static void auto_forced_by_variable(void **state) {
    static const char *const env[] = {"CLUSTER_RESOLVER_BACKEND", "sagemaker", "SM_HOSTS", "[\"algo-1\"]",
                                      "SM_CURRENT_HOST", "algo-1", "SLURM_STEP_NODELIST", "n1", NULL};
    static const scenario sc = {"auto: CLUSTER_RESOLVER_BACKEND", AUTO, env, NULL, 0, NULL, NULL, NULL, 0, CRES_OK,
                                "sagemaker", "{\"worker\": [\"algo-1:2223\"]}", "worker 0", "" /* TF's: one host */, "",
                                0, NULL};
    (void)state;
    walk(&sc);
}

static void auto_forced_mpi_fails(void **state) {
    static const scenario sc = {"auto: forced mpi without MPI", AUTO, NULL, NULL, 0, NULL, NULL, "mpi", 0,
                                CRES_ERR_ENVIRONMENT, "mpi", NULL, NULL, NULL, NULL, 0, "no MPI launcher found"};
    (void)state;
    walk(&sc);
}

/* See alloc_walk_first_fails(). */
static void allocator_fails_the_first_allocation(void **state) {
    static const char *const env[] = {"SLURM_JOB_ID", "5", "SLURM_JOB_NODELIST", "n1", "SLURM_TASKS_PER_NODE", "1", NULL};
    static const scenario sc = {"first allocation", SLURM, env, NULL, 0, NULL, NULL, NULL, 0, CRES_OK, "slurm",
                                "{\"worker\": [\"n1:8888\"]}", "- -1", "", "", 0, NULL};
    (void)state;
    alloc_walk_first_fails(run_scenario, &sc);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(allocator_fails_the_first_allocation),
        cmocka_unit_test(slurm_block),
        cmocka_unit_test(slurm_cyclic),
        cmocka_unit_test(slurm_plane),
        cmocka_unit_test(slurm_two_jobs),
        cmocka_unit_test(slurm_gpus),
        cmocka_unit_test(slurm_gpus_bound),
        cmocka_unit_test(slurm_batch_script),
        cmocka_unit_test(slurm_counts_mismatch),
        cmocka_unit_test(mpi_openmpi_hostfile),
        cmocka_unit_test(mpi_mpich_hostfile_gpus),
        cmocka_unit_test(mpi_hostfile_two_jobs),
        cmocka_unit_test(mpi_single_host),
        cmocka_unit_test(mpi_mpirun_in_allocation),
        cmocka_unit_test(mpi_srun_started),
        cmocka_unit_test(mpi_too_few_slots),
        cmocka_unit_test(sagemaker_env),
        cmocka_unit_test(sagemaker_resource_config),
        cmocka_unit_test(sagemaker_mixed),
        cmocka_unit_test(sagemaker_not_listed),
        cmocka_unit_test(sagemaker_groups_env),
        cmocka_unit_test(sagemaker_groups_resource_config),
        cmocka_unit_test(sagemaker_groups_wrong_group),
        cmocka_unit_test(sagemaker_groups_host_twice),
        cmocka_unit_test(sagemaker_groups_not_the_hosts),
        cmocka_unit_test(auto_tfconfig),
        cmocka_unit_test(auto_mpi),
        cmocka_unit_test(auto_slurm_step),
        cmocka_unit_test(auto_slurm_batch),
        cmocka_unit_test(auto_sagemaker),
        cmocka_unit_test(auto_tpu),
        cmocka_unit_test(auto_kubernetes),
        cmocka_unit_test(auto_local),
        cmocka_unit_test(auto_forced_by_variable),
        cmocka_unit_test(auto_forced_mpi_fails),
    };
    return cmocka_run_group_tests(tests, make_files, remove_files);
}
