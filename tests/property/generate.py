"""The seeded generator: environments that mix the variables of one to three launchers, as
each launcher would set them for one rank of a job, then break them: variables dropped,
values of the wrong type, sizes that disagree, ranks past their size, files cut or mangled.

A case is a dict: "env" (name -> value), "files" (name -> text), "args" (the CLI's backend
and its options). A value "@name" stands for the path of the case's file `name`, which the
runner writes into the case's own directory. Shapes follow ../shared/reference/launch-envs.md
and the fixtures of tests/test_cli.py and tests/test_cli_sched.py, which cite their sources.
"""
import json
import random
import re

from sources import deal


class Job:
    """The job a launcher describes: its nodes, the tasks on each, and this process's rank."""

    def __init__(self, rng):
        nodes = rng.choice([1, 2, 2, 3, 4]) if rng.random() < 0.9 else rng.randrange(9, 13)
        uniform = rng.random() < 0.6
        first = rng.choice([1, 1, 2, 4])
        self.counts = [first if uniform else rng.choice([1, 2, 3]) for _ in range(nodes)]
        self.how, self.plane = "block", 1
        if rng.random() < 0.15:
            self.how, self.plane = rng.choice([("cyclic", 1), ("plane", 2)])
        self.world = sum(self.counts)
        self.rank = rng.randrange(self.world)
        self.node, self.local = deal(self.counts, self.how, self.plane)[self.rank]
        self.style = rng.choice(["node%02d", "n%d", "gpu%d-ib", "10.0.0.%d"])

    @property
    def nodes(self):
        return len(self.counts)

    def hosts(self, style=None):
        return [(style or self.style) % (i + 1) for i in range(self.nodes)]

    def slot_lines(self, hosts=None):
        """A line per slot, hosts in order (PBS_NODEFILE, LSB_DJOB_RANKFILE)."""
        hosts = hosts or self.hosts()
        return "".join("%s\n" % h for h, c in zip(hosts, self.counts) for _ in range(c))


def compress_counts(counts):
    """Slurm's tasks-per-node form: [2, 2, 2, 1] is "2(x3),1"."""
    out, i = [], 0
    while i < len(counts):
        k = i
        while k < len(counts) and counts[k] == counts[i]:
            k += 1
        out.append("%d(x%d)" % (counts[i], k - i) if k - i > 1 else str(counts[i]))
        i = k
    return ",".join(out)


def hostlist(hosts):
    """A Slurm hostlist: "n[1-3]", "node[01-04]" or "gpu[1-2]-ib" when the hosts' numbers run
    on, else a comma list."""
    m = [re.fullmatch(r"(.*?)([0-9]+)([^0-9]*)", h) for h in hosts]
    if len(hosts) < 2 or not all(m) or len({(x.group(1), x.group(3)) for x in m}) != 1:
        return ",".join(hosts)
    digits = [x.group(2) for x in m]
    numbers = [int(d) for d in digits]
    if numbers != list(range(numbers[0], numbers[0] + len(numbers))) or "." in m[0].group(1):
        return ",".join(hosts)
    return "%s[%s-%s]%s" % (m[0].group(1), digits[0], digits[-1], m[0].group(3))


# ---- one launcher each: the variables it sets for the job's own rank ------------------------

def slurm(rng, job, case):
    hosts = job.hosts()
    env = {"SLURM_JOB_ID": "4242", "SLURM_JOBID": "4242", "SLURM_NTASKS": str(job.world),
           "SLURM_NPROCS": str(job.world), "SLURM_NNODES": str(job.nodes),
           "SLURM_JOB_NUM_NODES": str(job.nodes), "SLURM_JOB_NODELIST": hostlist(hosts),
           "SLURM_TASKS_PER_NODE": compress_counts(job.counts), "SLURMD_NODENAME": hosts[job.node]}
    if rng.random() < 0.15:  # the batch script: no step
        env.update(SLURM_PROCID="0", SLURMD_NODENAME=hosts[0])
        return env
    if rng.random() < 0.2:  # mpirun's daemons, one per node, a step of their own
        env.update(SLURM_STEP_ID="1", SLURM_PROCID=str(job.node), SLURM_LOCALID="0",
                   SLURM_NODEID=str(job.node), SLURM_STEP_NODELIST=hostlist(hosts),
                   SLURM_STEP_NUM_NODES=str(job.nodes), SLURM_STEP_NUM_TASKS=str(job.nodes),
                   SLURM_STEP_TASKS_PER_NODE="1(x%d)" % job.nodes, SLURM_NTASKS=str(job.nodes),
                   SLURM_NPROCS=str(job.nodes))
        return env
    env.update(SLURM_STEP_ID="0", SLURM_PROCID=str(job.rank), SLURM_LOCALID=str(job.local),
               SLURM_NODEID=str(job.node), SLURM_STEP_NODELIST=hostlist(hosts),
               SLURM_STEP_NUM_NODES=str(job.nodes), SLURM_STEP_NUM_TASKS=str(job.world),
               SLURM_STEP_TASKS_PER_NODE=compress_counts(job.counts),
               SLURM_GTIDS=",".join(str(r) for r, (n, _) in
                                    enumerate(deal(job.counts, job.how, job.plane))
                                    if n == job.node))
    if job.how != "block":
        env["SLURM_DISTRIBUTION"] = job.how
        if job.how == "plane":
            env["SLURM_DIST_PLANESIZE"] = str(job.plane)
    return env


def mpi_hostfile(job, case, name):
    case["files"][name] = "".join("%s slots=%d\n" % (h, c) for h, c in zip(job.hosts(), job.counts))
    return "@" + name


def open_mpi(rng, job, case):
    env = {"OMPI_COMM_WORLD_RANK": str(job.rank), "OMPI_COMM_WORLD_SIZE": str(job.world),
           "OMPI_COMM_WORLD_LOCAL_RANK": str(job.local),
           "OMPI_COMM_WORLD_LOCAL_SIZE": str(job.counts[job.node]),
           "OMPI_COMM_WORLD_NODE_RANK": str(job.local), "OMPI_UNIVERSE_SIZE": str(job.world)}
    if rng.random() < 0.5:  # Open MPI 5 (PRRTE) sets the PMIx names too
        env.update(PMIX_RANK=str(job.rank), PMIX_NAMESPACE="prterun-host-4242@1")
    if rng.random() < 0.3:  # Kubeflow's MPIJob: /etc/mpi/hostfile
        env["OMPI_MCA_orte_default_hostfile"] = mpi_hostfile(job, case, "mpi_hostfile")
    if job.how == "cyclic" or rng.random() < 0.05:  # mpirun --map-by node
        env["OMPI_MCA_rmaps_base_mapping_policy"] = rng.choice(["node", "node:SPAN", "slot"])
    if rng.random() < 0.2:
        case["args"] = ["mpi", "--hostfile", mpi_hostfile(job, case, "hostfile")]
    return env


def mpich(rng, job, case):
    env = {"PMI_RANK": str(job.rank), "PMI_SIZE": str(job.world), "PMI_FD": "5",
           "MPI_LOCALRANKID": str(job.local), "MPI_LOCALNRANKS": str(job.counts[job.node])}
    if rng.random() < 0.2:
        case["args"] = ["mpi", "--hostfile", mpi_hostfile(job, case, "hostfile")]
    return env


def mvapich(rng, job, case):
    return {"MV2_COMM_WORLD_RANK": str(job.rank), "MV2_COMM_WORLD_SIZE": str(job.world),
            "MV2_COMM_WORLD_LOCAL_RANK": str(job.local),
            "MV2_COMM_WORLD_LOCAL_SIZE": str(job.counts[job.node])}


def pmix(rng, job, case):
    env = {"PMIX_RANK": str(job.rank), "PMIX_NAMESPACE": "slurm.pmix.4242.0"}
    if job.nodes == 1:
        env["PMIX_HOSTNAME"] = job.hosts()[0]
    return env


def pbs(rng, job, case):
    hosts = job.hosts()
    case["files"]["nodefile"] = job.slot_lines(hosts)
    env = {"PBS_JOBID": "4711.pbs-server", "PBS_NODEFILE": "@nodefile",
           "PBS_ENVIRONMENT": "PBS_BATCH", "PBS_NUM_NODES": str(job.nodes), "PBS_NP": str(job.world)}
    how = rng.choice(["pals", "pals", "pbsdsh", "script"])
    if how == "pals":  # Cray PALS's mpiexec (Polaris, Aurora)
        if rng.random() < 0.5 and len(set(job.counts)) == 1:  # a line per node and --ppn
            case["files"]["nodefile"] = "".join(h + "\n" for h in hosts)
        env.update(PALS_RANKID=str(job.rank), PALS_NODEID=str(job.node),
                   PALS_LOCAL_RANKID=str(job.local), PALS_LOCAL_SIZE=str(job.counts[job.node]),
                   PALS_DEPTH="1", PMI_SIZE=str(job.world), PMI_LOCAL_RANK=str(job.local))
        if rng.random() < 0.5:
            env["PMI_RANK"] = str(job.rank)
    elif how == "pbsdsh":  # one task per slot: the slot's line
        env.update(PBS_VNODENUM=str(job.rank), PBS_TASKNUM=str(job.rank + 2),  # task 1: the script
                   PBS_NODENUM=str(job.node))
    return env


def lsf(rng, job, case):
    hosts = job.hosts()
    launch = rng.random() < 0.5  # CSM systems list the launch node first, with one slot
    pairs = ([("batch1", 1)] if launch else []) + list(zip(hosts, job.counts))
    env = {"LSB_JOBID": "31337", "LSB_MCPU_HOSTS": " ".join("%s %d" % p for p in pairs),
           "LSB_HOSTS": " ".join(h for h, c in pairs for _ in range(c)),
           "LSB_DJOB_NUMPROC": str(sum(c for _, c in pairs))}
    if rng.random() < 0.6:
        case["files"]["rankfile"] = "".join("%s\n" % h for h, c in pairs for _ in range(c))
        env["LSB_DJOB_RANKFILE"] = "@rankfile"
    if launch and rng.random() < 0.6:
        env["CSM_ALLOCATION_ID"] = "1234"
    how = rng.choice(["jsrun", "jsrun", "mpirun", "script"])
    if how == "jsrun":
        env.update(JSM_NAMESPACE_RANK=str(job.rank), JSM_NAMESPACE_SIZE=str(job.world),
                   JSM_NAMESPACE_LOCAL_RANK=str(job.local),
                   JSM_NAMESPACE_LOCAL_SIZE=str(job.counts[job.node]))
    if how == "mpirun" or (how == "jsrun" and rng.random() < 0.4):  # Spectrum MPI is Open MPI
        env.update(OMPI_COMM_WORLD_RANK=str(job.rank), OMPI_COMM_WORLD_SIZE=str(job.world))
    return env


def grid_engine(rng, job, case):
    case["files"]["pe_hostfile"] = "".join(
        "%s %d all.q@%s UNDEFINED\n" % (h, c, h) for h, c in zip(job.hosts(), job.counts))
    env = {"JOB_ID": "77", "PE_HOSTFILE": "@pe_hostfile", "NSLOTS": str(job.world),
           "NHOSTS": str(job.nodes), "PE": "mpi", "SGE_TASK_ID": "undefined"}
    how = rng.choice(["ompi", "ompi", "pmi", "script"])
    if how == "ompi":
        env.update(OMPI_COMM_WORLD_RANK=str(job.rank), OMPI_COMM_WORLD_SIZE=str(job.world),
                   OMPI_COMM_WORLD_LOCAL_RANK=str(job.local),
                   OMPI_COMM_WORLD_LOCAL_SIZE=str(job.counts[job.node]))
    elif how == "pmi":
        env.update(PMI_RANK=str(job.rank), PMI_SIZE=str(job.world))
    return env


def flux(rng, job, case):
    env = {"FLUX_JOB_ID": "f2Bx8dW9", "FLUX_JOB_SIZE": str(job.world),
           "FLUX_JOB_NNODES": str(job.nodes), "FLUX_TASK_RANK": str(job.rank),
           "FLUX_TASK_LOCAL_ID": str(job.local), "FLUX_URI": "local:///run/flux/local"}
    if rng.random() < 0.5:  # Flux's own PMI-1
        env.update(PMI_RANK=str(job.rank), PMI_SIZE=str(job.world))
    if rng.random() < 0.7:  # `flux hostlist` written to a file, as --hostfile wants it
        uniform = len(set(job.counts)) == 1
        case["files"]["flux_hosts"] = "".join(
            ("%s\n" % h) if uniform else ("%s slots=%d\n" % (h, c))
            for h, c in zip(job.hosts(), job.counts))
        case["args"] = ["flux", "--hostfile", "@flux_hosts"]
    return env


def master_host(rng, job):
    return rng.choice([job.hosts()[0], "10.1.2.3", "fd00::1", "[fd00::1]",
                       "trainer-master-0.trainer"])


def torchrun(rng, job, case):
    return {"TORCHELASTIC_RUN_ID": "none", "TORCHELASTIC_RESTART_COUNT": "0",
            "TORCHELASTIC_MAX_RESTARTS": "0", "MASTER_ADDR": master_host(rng, job),
            "MASTER_PORT": "29500", "RANK": str(job.rank), "WORLD_SIZE": str(job.world),
            "LOCAL_RANK": str(job.local), "LOCAL_WORLD_SIZE": str(job.counts[job.node]),
            "GROUP_RANK": str(job.node), "GROUP_WORLD_SIZE": str(job.nodes),
            "ROLE_RANK": str(job.rank), "ROLE_WORLD_SIZE": str(job.world), "ROLE_NAME": "default"}


def torch_plain(rng, job, case):
    """Ray Train, AzureML, Volcano's pytorch plugin: torch.distributed's names only."""
    env = {"MASTER_ADDR": master_host(rng, job), "MASTER_PORT": str(rng.choice([23456, 29500])),
           "RANK": str(job.rank), "WORLD_SIZE": str(job.world)}
    if rng.random() < 0.6:
        env.update(LOCAL_RANK=str(job.local), LOCAL_WORLD_SIZE=str(job.counts[job.node]),
                   NODE_RANK=str(job.node))
    return env


def kubeflow(rng, job, case):
    """Kubeflow's PET_* (torchrun's flags), one torchrun per node starting
    PET_NPROC_PER_NODE processes (a count, or "auto": torchrun counts the GPUs); the
    training-operator v1 also sets the torch.distributed names: WORLD_SIZE = nodes x
    processes per node ("auto" counting 1), RANK = the node (pkg/controller.v1/pytorch/
    envvar.go at 2856aa0)."""
    addr = "trainjob-node-0-0.trainjob"
    nproc = rng.choice([str(job.counts[job.node]), "1", "auto"])
    env = {"PET_NNODES": str(job.nodes), "PET_NODE_RANK": str(job.node),
           "PET_MASTER_ADDR": addr, "PET_MASTER_PORT": "29500", "PET_NPROC_PER_NODE": nproc}
    if rng.random() < 0.4:
        per = int(nproc) if nproc.isdigit() else 1
        env.update(MASTER_ADDR=addr, MASTER_PORT="29500", WORLD_SIZE=str(job.nodes * per),
                   RANK=str(job.node))
    return env


def pai_dlc(rng, job, case):
    """Alibaba PAI-DLC: WORLD_SIZE the nodes, RANK the node, NPROC_PER_NODE its GPUs
    (alibabacloud.com/help/en/pai/general-environment-variables, Apr 2026)."""
    return {"MASTER_ADDR": "dlc1y3madghd-master-0", "MASTER_PORT": "23456",
            "WORLD_SIZE": str(job.nodes), "RANK": str(job.node),
            "NPROC_PER_NODE": str(job.counts[job.node])}


def horovod(rng, job, case):
    """horovodrun --gloo: a slot's variables (horovod/runner/gloo_run.py at 0ad076e,
    create_slot_env_vars), cross rank and size taken as the node's."""
    return {"HOROVOD_HOSTNAME": job.hosts()[job.node], "HOROVOD_RANK": str(job.rank),
            "HOROVOD_SIZE": str(job.world), "HOROVOD_LOCAL_RANK": str(job.local),
            "HOROVOD_LOCAL_SIZE": str(job.counts[job.node]), "HOROVOD_CROSS_RANK": str(job.node),
            "HOROVOD_CROSS_SIZE": str(job.nodes), "HOROVOD_CONTROLLER": "gloo"}


def jax(rng, job, case):
    host = rng.choice([job.hosts()[0], job.hosts()[0], "[fd00::2]"])
    env = {"JAX_COORDINATOR_ADDRESS": "%s:1234" % host,
           "JAX_NUM_PROCESSES": str(job.world), "JAX_PROCESS_ID": str(job.rank)}
    if rng.random() < 0.3:
        env["JAX_COORDINATOR_ADDRESS"] = host
        env["JAX_COORDINATOR_PORT"] = "1234"
    return env


def tpu(rng, job, case):
    hosts = job.hosts("t1v-n-4f2a-w-%d")
    env = {"TPU_WORKER_HOSTNAMES": ",".join(hosts), "TPU_WORKER_ID": str(job.node),
           "TPU_ACCELERATOR_TYPE": "v5litepod-16"}
    if rng.random() < 0.3:  # GKE 1.34.1+: a process address each
        env["TPU_PROCESS_ADDRESSES"] = ",".join("%s:8476" % h for h in hosts)
    if rng.random() < 0.3:  # multislice: these are this slice's workers
        slices = rng.choice([2, 3])
        env.update(MEGASCALE_COORDINATOR_ADDRESS="%s:8080" % hosts[0],
                   MEGASCALE_NUM_SLICES=str(slices),
                   MEGASCALE_SLICE_ID=str(rng.randrange(slices)), MEGASCALE_PORT="8081")
    return env


def sagemaker(rng, job, case):
    hosts = ["algo-%d" % (i + 1) for i in range(job.nodes)]
    listed = hosts[:]
    rng.shuffle(listed)
    env = {"SM_HOSTS": json.dumps(listed), "SM_CURRENT_HOST": hosts[job.node],
           "SM_NUM_GPUS": str(job.counts[job.node]), "SM_CURRENT_INSTANCE_TYPE": "ml.p4d.24xlarge"}
    if rng.random() < 0.3:  # the resource config file, read with --resource-config
        doc = {"current_host": hosts[job.node], "hosts": listed, "network_interface_name": "eth0"}
        case["files"]["resourceconfig.json"] = json.dumps(doc)
        case["args"] = ["sagemaker", "--resource-config", "@resourceconfig.json"]
    return env


def skypilot(rng, job, case):
    ips = job.hosts("10.128.0.%d")
    lines = rng.choice(["\n", "\r\n", " \n"])  # as shells and YAML hand them over
    return {"SKYPILOT_NODE_IPS": lines.join(ips) + lines, "SKYPILOT_NODE_RANK": str(job.node),
            "SKYPILOT_NUM_NODES": str(job.nodes),
            "SKYPILOT_NUM_GPUS_PER_NODE": str(job.counts[job.node]),
            "SKYPILOT_TASK_ID": "sky-2026-01-01-00-00-00-000000_cluster_1"}


def volcano(rng, job, case):
    """Volcano's svc plugin: a host list per task; the first node may be a "master" task."""
    tasks = ["master", "worker"] if job.nodes > 1 and rng.random() < 0.4 else ["worker"]
    names = {t: [] for t in tasks}
    for i in range(job.nodes):
        task = tasks[0] if i == 0 else tasks[-1]
        names[task].append("vcjob-%s-%d" % (task, len(names[task])))
    env = {}
    for task, hosts in names.items():
        env["VC_%s_HOSTS" % task.upper()] = ",".join(h + ".vcjob" for h in hosts)
        env["VC_%s_NUM" % task.upper()] = str(len(hosts))
    own = [h for t in tasks for h in names[t]][job.node]
    env.update(HOSTNAME=own, VC_TASK_INDEX=own.rsplit("-", 1)[1])
    if rng.random() < 0.3:  # Volcano's env plugin sets the legacy name too
        env["VK_TASK_INDEX"] = env["VC_TASK_INDEX"]
    return env


def lws(rng, job, case):
    return {"LWS_LEADER_ADDRESS": "vllm-1.vllm.default", "LWS_GROUP_SIZE": str(job.nodes),
            "LWS_WORKER_INDEX": str(job.node),
            "HOSTNAME": "vllm-1" if job.node == 0 else "vllm-1-%d" % job.node}


def awsbatch(rng, job, case):
    main = rng.choice([0, 0, job.nodes - 1])
    node = rng.randrange(job.nodes)
    env = {"AWS_BATCH_JOB_ID": "b7e1-4242#%d" % node, "AWS_BATCH_JOB_NODE_INDEX": str(node),
           "AWS_BATCH_JOB_NUM_NODES": str(job.nodes), "AWS_BATCH_JOB_MAIN_NODE_INDEX": str(main)}
    if node != main:  # absent on the main node itself
        env["AWS_BATCH_JOB_MAIN_NODE_PRIVATE_IPV4_ADDRESS"] = "10.0.5.%d" % (main + 10)
    return env


def tf_cluster(job, names):
    """{"chief": [...], "worker": [...]} over the job's nodes, a task per node."""
    hosts = ["%s-%d:2222" % (names[-1], i) for i in range(job.nodes)]
    if len(names) == 1 or job.nodes == 1:
        return {names[-1]: hosts}, (names[-1], job.node)
    first = ["%s-0:2222" % names[0]]
    rest = ["%s-%d:2222" % (names[1], i) for i in range(job.nodes - 1)]
    own = (names[0], 0) if job.node == 0 else (names[1], job.node - 1)
    return {names[0]: first, names[1]: rest}, own


def vertex(rng, job, case):
    cluster, (kind, index) = tf_cluster(job, ["workerpool0", "workerpool1"])
    doc = {"cluster": cluster, "environment": "cloud",
           "task": {"type": kind, "index": index, "trial": ""}, "job": {"worker_pool_specs": []}}
    return {"CLUSTER_SPEC": json.dumps(doc)}


def sparse(cluster, own, rng):
    """TF's sparse form of the own job: an object of some indices (enableDynamicWorker)."""
    kind, index = own
    indices = sorted(rng.sample(range(2 * len(cluster[kind]) + 2), len(cluster[kind])))
    cluster[kind] = {str(i): a for i, a in zip(indices, cluster[kind])}
    return kind, indices[index]


def tf_config(rng, job, case):
    cluster, (kind, index) = tf_cluster(job, rng.choice([["worker"], ["chief", "worker"]]))
    if rng.random() < 0.2:
        cluster["ps"] = ["ps-0:2222"]
    if rng.random() < 0.2:
        kind, index = sparse(cluster, (kind, index), rng)
    doc = {"cluster": cluster, "task": {"type": kind, "index": index}}
    if rng.random() < 0.15:
        doc["task"]["index"] = str(index)
    if rng.random() < 0.05:  # the evaluator runs outside the cluster
        doc["task"] = {"type": "evaluator", "index": 0}
    return {"TF_CONFIG": json.dumps(doc)}


def indexed_job(rng, job, case):
    """A Kubernetes Indexed Job's pod, outside a cluster the test could reach."""
    return {"JOB_COMPLETION_INDEX": str(job.node), "HOSTNAME": "trainer-%d" % job.node}


LAUNCHERS = {
    "slurm": slurm, "open_mpi": open_mpi, "mpich": mpich, "mvapich": mvapich, "pmix": pmix,
    "pbs": pbs, "lsf": lsf, "sge": grid_engine, "flux": flux, "torchrun": torchrun,
    "torch": torch_plain, "kubeflow": kubeflow, "pai_dlc": pai_dlc, "horovod": horovod, "jax": jax, "tpu": tpu, "sagemaker": sagemaker,
    "skypilot": skypilot, "volcano": volcano, "lws": lws, "awsbatch": awsbatch,
    "vertex": vertex, "tfconfig": tf_config, "indexed_job": indexed_job,
}

# The backend each launcher's variables are for, to force it by name now and then.
BACKEND_OF = {"open_mpi": "mpi", "mpich": "mpi", "mvapich": "mpi", "pmix": "mpi",
              "torchrun": "torch", "kubeflow": "torch", "pai_dlc": "torch", "horovod": "local",
              "indexed_job": "local"}


# ---- breaking them ---------------------------------------------------------------------------

WRONG_VALUES = ["", " ", "abc", "-1", "-0", "0", "+2", "2.5", "0x10", " 4", "4 ", "1e3", "007",
                "2147483648", "99999999999999999999", "1000001", "4,4", "\n"]


def wrong_value(rng, case):
    name = rng.choice(sorted(case["env"]))
    case["env"][name] = rng.choice(WRONG_VALUES)


def drop_variable(rng, case):
    del case["env"][rng.choice(sorted(case["env"]))]


def numeric(case):
    return sorted(n for n, v in case["env"].items() if v.isdigit())


SIZE_WORDS = ("SIZE", "NUM", "NNODES", "NTASKS", "NPROCS", "NSLOTS", "NHOSTS", "_NP", "NRANKS")


def shift_size(rng, case):
    """A size, the likeliest to disagree with another source of it, one more or less."""
    names = [n for n in numeric(case) if any(w in n for w in SIZE_WORDS)]
    if names:
        name = rng.choice(names)
        case["env"][name] = str(max(0, int(case["env"][name]) + rng.choice([-1, 1])))


def shift_number(rng, case):
    """A size or rank that disagrees with its companions by a little."""
    names = numeric(case)
    if names:
        name = rng.choice(names)
        case["env"][name] = str(max(0, int(case["env"][name]) + rng.choice([-2, -1, 1, 1, 2, 5])))


def rank_past_size(rng, case):
    names = numeric(case)
    if len(names) >= 2:
        rank, size = rng.sample(names, 2)
        case["env"][rank] = str(int(case["env"][size]) + rng.choice([0, 0, 1, 7]))


def edit_list(rng, case):
    """An entry of a comma, blank or newline separated list dropped, doubled or emptied."""
    names = sorted(n for n, v in case["env"].items() if any(s in v.strip() for s in ",\n "))
    if not names:
        return
    name = rng.choice(names)
    sep = next(s for s in ",\n " if s in case["env"][name].strip())
    items = case["env"][name].split(sep)
    k = rng.randrange(len(items))
    how = rng.choice(["drop", "double", "empty"])
    items[k:k + 1] = {"drop": [], "double": [items[k]] * 2, "empty": [items[k], ""]}[how]
    case["env"][name] = sep.join(items)


def edit_file(rng, case):
    """A file's line dropped, doubled or garbled, the file emptied, or the file gone."""
    if not case["files"]:
        return
    name = rng.choice(sorted(case["files"]))
    lines = case["files"][name].split("\n")
    k = rng.randrange(len(lines))
    how = rng.choice(["drop", "double", "garble", "empty", "gone"])
    if how == "gone":
        del case["files"][name]
        return
    if how == "empty":
        lines = []
    else:
        lines[k:k + 1] = {"drop": [], "double": [lines[k]] * 2,
                          "garble": [lines[k] + " slots=x", "#"]}[how]
    case["files"][name] = "\n".join(lines)


def resize_allocation(rng, case):
    """An allocation one slot larger or smaller than its launcher's size: a file's line
    doubled or dropped, or a count of LSB_MCPU_HOSTS moved by one."""
    lines = [(f, k) for f, text in sorted(case["files"].items())
             for k, line in enumerate(text.split("\n")) if line.strip()]
    words = case["env"].get("LSB_MCPU_HOSTS", "").split()
    if words and (not lines or rng.random() < 0.3):
        k = rng.randrange(1, len(words), 2) if len(words) > 1 else 0
        if words[k].isdigit():
            words[k] = str(max(1, int(words[k]) + rng.choice([-1, 1])))
        case["env"]["LSB_MCPU_HOSTS"] = " ".join(words)
    elif lines:
        name, k = rng.choice(lines)
        text = case["files"][name].split("\n")
        text[k:k + 1] = rng.choice([[], [text[k]] * 2])
        case["files"][name] = "\n".join(text)


MUTATIONS = [wrong_value, drop_variable, drop_variable, shift_number, shift_size, shift_size,
             shift_size, rank_past_size, edit_list, edit_file, resize_allocation,
             resize_allocation]


# ---- one case ----------------------------------------------------------------------------------

def mix(rng):
    """One to three launchers, describing one job or jobs of their own."""
    names = rng.sample(sorted(LAUNCHERS), rng.choice([1, 2, 2, 3, 3]))
    shared = Job(rng) if rng.random() < 0.5 else None
    case = {"env": {}, "files": {}, "args": []}
    for name in names:
        case["env"].update(LAUNCHERS[name](rng, shared or Job(rng), case))
    return case, names


def force_backend(rng, case, names):
    """Now and then CLUSTER_RESOLVER_BACKEND names the backend of one of the launchers."""
    if not case["args"] and rng.random() < 0.1:
        name = rng.choice(names)
        case["env"]["CLUSTER_RESOLVER_BACKEND"] = BACKEND_OF.get(name, name)


def generate(seed, index):
    """Case `index` of the run seeded `seed`: the same every time."""
    rng = random.Random("%s:%d" % (seed, index))
    case, names = mix(rng)
    for _ in range(rng.choice([0, 0, 1, 1, 1, 2, 3])):
        if case["env"]:
            rng.choice(MUTATIONS)(rng, case)
    force_backend(rng, case, names)
    case["launchers"] = names
    case["tfconfig"] = rng.random() < 0.15
    return case
