"""What an answer must say, backend by backend, from the variables and files that backend
reads: the model of the property test, written from the header's manual (section 7, one block
per backend, and auto's documented order) and ../shared/DESIGN.md.

expectations(backend, case) gives an Expect: for each field of `--format launch` the values
the variables read pin it to (every size, rank and count variable, each must equal the
answer), the master's host and port, and the reasons no answer is possible at all (a variable
read that is not a number, a rank past its size, a file that is not of its format). The model
never guesses: what it cannot tell (a hostlist form it does not expand) it leaves unchecked.
"""
import json
import os
import re

from sources import (MAX_TASKS, UNKNOWN, count, deal, decimal, expand_hostlist,
                     expand_tasks_per_node, fill_by_node, fill_slots, host_ok, is_blank,
                     json_host_list,
                     mcpu_hosts_as_hostfile, natural_key, parse_hostfile,
                     pe_hostfile_as_hostfile, split_address)

FIELDS = ["world_size", "rank", "local_rank", "local_world_size", "node_rank", "num_nodes"]
# SageMaker's resource config: auto and the sagemaker backend look for it on the machine.
RESOURCE_CONFIG = "/opt/ml/input/config/resourceconfig.json"


class Env:
    """The case's variables and files as a backend sees them; remembers every name read."""

    def __init__(self, case):
        self.vars, self.files, self.args = case["env"], case["files"], case.get("args", [])
        self.read = []

    def get(self, name):
        if name not in self.read:
            self.read.append(name)
        return self.vars.get(name)

    def set(self, name):
        """Set to something other than blanks (the header's test for "is set")."""
        v = self.get(name)
        return v is not None and not is_blank(v)

    def file_text(self, value):
        """The text of the file a value names ("@name"), None when there is none."""
        if value and value.startswith("@"):
            return self.files.get(value[1:])
        return None

    def option(self, name):
        args = self.args
        return args[args.index(name) + 1] if name in args[:-1] else None

    def resource_config(self):
        """The resource config's text: --resource-config's file, else the machine's."""
        if self.option("--resource-config"):
            return self.file_text(self.option("--resource-config"))
        if os.path.exists(RESOURCE_CONFIG):
            with open(RESOURCE_CONFIG) as f:
                return f.read()
        return None


class Expect:
    """What an exit-0 answer must hold: fields pinned by variables, master, port; or why no
    answer is possible."""

    def __init__(self, env):
        self.env = env
        self.fields = {f: [] for f in FIELDS}
        self.master, self.port, self.fail = [], [], []

    def equal(self, field, value, because):
        self.fields[field].append((value, because))

    def must_fail(self, because):
        self.fail.append(because)

    def number(self, name, field=None, low=None, high=None, required=False):
        """Reads name as an integer: pins field to it; a value that is no integer, or out of
        [low, high], rules out every answer. Blank counts as unset."""
        v = self.env.get(name)
        if v is None or is_blank(v):
            if required:
                self.must_fail(name)
            return None
        n = decimal(v)
        if n is None or (low is not None and n < low) or (high is not None and n > high):
            self.must_fail(name)
            return None
        if field:
            self.equal(field, n, name)
        return n

    def host(self, host, port, because):
        if not host_ok(host):
            self.must_fail(because)
        self.master.append((host, because))
        if port is not None:
            self.port.append((port, because))


# ---- ranks placed on hosts (the HPC backends) ----------------------------------------------

def place(x, hosts, counts, rank, because, how="block", plane=1, port_base=8888):
    """Pins what a placement decides: nodes with tasks in order, rank 0's host, and the own
    rank's node, index there and its node's task count."""
    live = [i for i, c in enumerate(counts) if c > 0]
    if not live:
        x.must_fail(because)
        return
    for i in live:
        if not host_ok(hosts[i]):
            x.must_fail(because)
    x.equal("num_nodes", len(live), because)
    x.equal("world_size", sum(counts), because)
    x.host(hosts[live[0]], port_base, because)
    if rank is None or not 0 <= rank < sum(counts):
        return
    node, local = deal(counts, how, plane)[rank]
    x.equal("node_rank", live.index(node), because)
    x.equal("local_rank", local, because)
    x.equal("local_world_size", counts[node], because)


def place_slots(x, slots, size, rank, because, policy=(False, "block")):
    """Ranks filling a scheduler's or hostfile's slots: in order, or by node (Open MPI's
    policy: mapping by node, ranking in blocks or cyclic)."""
    if size is None:
        return
    filled = (fill_by_node if policy[0] else fill_slots)(slots, size)
    if filled is None:
        x.must_fail(because)
        return
    place(x, [h for h, _ in filled], [n for _, n in filled], rank, because, policy[1])


def allocation(env, name):
    """[(host, slots)] of the allocation `name` gives: LSB_MCPU_HOSTS itself, else the file it
    names (PE_HOSTFILE's own lines); None when unreadable or malformed."""
    value = env.get(name)
    if name == "LSB_MCPU_HOSTS":
        text = mcpu_hosts_as_hostfile(value)
    else:
        text = env.file_text(value)
        if text is not None and name == "PE_HOSTFILE":
            text = pe_hostfile_as_hostfile(text)
    return parse_hostfile(text) if text is not None else None


# ---- slurm ---------------------------------------------------------------------------------

def distribution(x):
    """SLURM_DISTRIBUTION's deal and plane size; None when it is not one we follow."""
    d = x.env.get("SLURM_DISTRIBUTION")
    kind = re.split("[:,]", d)[0] if d is not None else "block"
    if kind == "plane":
        plane = x.number("SLURM_DIST_PLANESIZE", low=1, high=MAX_TASKS, required=True)
        return ("plane", plane) if plane else None
    if kind in ("block", "cyclic"):
        return kind, 1
    if d in ("pack", "nopack"):  # srun -m pack alone: how many a node takes; laid out in blocks
        return "block", 1
    x.must_fail("SLURM_DISTRIBUTION")
    return None


def slurm_step(x):
    """The step's layout: (hosts, counts, rank, how, plane), or None when it cannot hold."""
    env = x.env
    size = x.number("SLURM_STEP_NUM_TASKS", "world_size", 1, MAX_TASKS, required=True)
    rank = x.number("SLURM_PROCID", "rank", 0, MAX_TASKS, required=True)
    x.number("SLURM_LOCALID", "local_rank", 0, MAX_TASKS)
    hosts = expand_hostlist(env.get("SLURM_STEP_NODELIST"))
    tpn = env.get("SLURM_STEP_TASKS_PER_NODE")
    counts = expand_tasks_per_node(tpn) if tpn is not None else None
    if hosts == UNKNOWN:
        return None
    if not hosts or len(set(hosts)) != len(hosts) or counts is None or len(counts) != len(hosts):
        x.must_fail("SLURM_STEP_NODELIST")
        return None
    how = distribution(x)
    node = x.number("SLURM_NODEID", None, 0, len(hosts) - 1)
    slurm_second_names(x, hosts, counts, node)
    if how is None or size is None or rank is None or rank >= size:
        return None
    if node is not None and counts[node] > 0:
        x.equal("node_rank", sum(1 for c in counts[:node] if c > 0), "SLURM_NODEID")
    return hosts, counts, rank, how[0], how[1]


def slurm_second_names(x, hosts, counts, node):
    """srun gives its tasks the step's counts under the job's names too, and the node's name."""
    for name in ("SLURM_NTASKS", "SLURM_NPROCS"):
        x.number(name, "world_size", 0)
    for name in ("SLURM_STEP_NUM_NODES", "SLURM_NNODES"):
        n = x.number(name, None, 0)
        if n is not None and n != len(hosts):
            x.must_fail(name)
    nodename = x.env.get("SLURMD_NODENAME")
    if node is not None and nodename is not None and nodename != hosts[node]:
        x.must_fail("SLURMD_NODENAME")


def expect_slurm(x):
    env = x.env
    if env.get("SLURM_STEP_NODELIST") is None:
        return slurm_batch_script(x)
    step = slurm_step(x)
    if step:
        hosts, counts, rank, how, plane = step
        place(x, hosts, counts, rank, "SLURM_STEP_NODELIST", how, plane)
        node_ranks_agree(x, counts, rank, how, plane)


def node_ranks_agree(x, counts, rank, how, plane):
    """SLURM_GTIDS, the own node's ranks as srun lists them, must be those the deal puts
    there."""
    gtids = x.env.get("SLURM_GTIDS")
    if gtids is None:
        return
    placed = deal(counts, how, plane)
    own = placed[rank][0]
    if gtids != ",".join(str(r) for r, (n, _) in enumerate(placed) if n == own):
        x.must_fail("SLURM_GTIDS")


def slurm_batch_script(x):
    """No step (an sbatch script, an salloc shell): the cluster is the job's allocation and no
    task is this process's, so there is no launch answer; a SLURM_PROCID above 0 is a task
    whose step variables are missing."""
    env = x.env
    if env.get("SLURM_JOB_ID") is None and env.get("SLURM_JOBID") is None:
        x.must_fail("SLURM_JOB_ID")
    het = "SLURM_HET_SIZE" if env.get("SLURM_HET_SIZE") is not None else "SLURM_PACK_SIZE"
    if (x.number(het, None, 1) or 1) > 1:  # a heterogeneous job: one component's nodes
        x.must_fail(het)
    x.number("SLURM_PROCID", None, 0, 0)
    x.must_fail("SLURM_STEP_NODELIST")  # no own task


def one_task(x, host, port, because):
    for field in FIELDS:
        x.equal(field, 1 if field in ("world_size", "local_world_size", "num_nodes") else 0,
                because)
    x.host(host, port, because)


# ---- mpi -----------------------------------------------------------------------------------

MPI_FAMILIES = [
    ("OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE", "OMPI_COMM_WORLD_LOCAL_RANK",
     "OMPI_COMM_WORLD_LOCAL_SIZE"),
    ("MV2_COMM_WORLD_RANK", "MV2_COMM_WORLD_SIZE", "MV2_COMM_WORLD_LOCAL_RANK",
     "MV2_COMM_WORLD_LOCAL_SIZE"),
    ("PMI_RANK", "PMI_SIZE", "MPI_LOCALRANKID", "MPI_LOCALNRANKS"),
    ("PMIX_RANK", None, None, None),
]
JSRUN = ("JSM_NAMESPACE_RANK", "JSM_NAMESPACE_SIZE")
SCHEDULER_FILES = ["PE_HOSTFILE", "PBS_NODEFILE", "LSB_DJOB_RANKFILE", "LSB_MCPU_HOSTS",
                   "OMPI_MCA_orte_default_hostfile"]


def mpi_identity(x):
    """(rank, size, local rank, local size) of the first family whose rank variable is set;
    every other family's rank and size that is set (jsrun's too) must be the same."""
    for rank_var, size_var, local_var, local_size_var in MPI_FAMILIES:
        if x.env.get(rank_var) is None:
            continue
        if rank_var == "PMI_RANK" and x.env.get(local_size_var) is None:  # Cray PALS's names
            local_var, local_size_var = "PMI_LOCAL_RANK", "PMI_LOCAL_SIZE"
        rank = x.number(rank_var, "rank", 0, required=True)
        size = local = local_size = None
        if size_var:
            size = x.number(size_var, "world_size", 1, MAX_TASKS, required=True)
            local_size = x.number(local_size_var, "local_world_size", 1)
            local = x.number(local_var, "local_rank", 0)
        for other in [f[:2] for f in MPI_FAMILIES] + [JSRUN]:
            x.number(other[0], "rank", 0)
            if other[1] and size is not None:
                x.number(other[1], "world_size", 1)
        return rank, size, local, local_size
    x.must_fail("OMPI_COMM_WORLD_RANK")
    return None, None, None, None


MPI_POLICIES = {"node", "slot", "core", "hwthread", "socket", "package", "numa", "board",
                "l1cache", "l2cache", "l3cache"}


def mpi_policy(x):
    """Open MPI's mapping and ranking: (by node, deal), None when not one we follow."""
    names = []
    for var in ("OMPI_MCA_rmaps_base_mapping_policy", "OMPI_MCA_rmaps_base_ranking_policy"):
        v = x.env.get(var)
        names.append(v.split(":")[0] if v else None)
        if v and names[-1] not in MPI_POLICIES:
            x.must_fail(var)
            return None
    mapping = names[0] or "slot"
    ranking = names[1] or mapping
    return mapping == "node", "cyclic" if ranking == "node" else "block"


def expect_mpi(x):
    env = x.env
    rank, size, local, local_size = mpi_identity(x)
    hostfile = env.option("--hostfile")
    if hostfile:
        slots = parse_hostfile(env.file_text(hostfile) or "")
        policy = mpi_policy(x) if slots is not None and size is not None else None
        if slots is None or size is None:
            x.must_fail("--hostfile")
        elif policy:
            place_slots(x, slots, size, rank, "--hostfile", policy)
        return
    if srun_started(x, rank, size):
        return mpi_in_step(x, local, local_size)
    if size is None:
        x.must_fail("PMIX_RANK")
        return
    if mpi_from_scheduler(x, rank, size):
        return
    if size == 1 or local_size == size:
        host = env.get("PMIX_HOSTNAME")
        return place(x, [host or "localhost"], [size], rank, "PMIX_HOSTNAME")
    if local_size and env.get("SLURM_STEP_NODELIST") is not None:
        return mpi_in_allocation(x, rank, size, local_size)
    x.must_fail("OMPI_COMM_WORLD_SIZE")


def srun_started(x, rank, size):
    """srun started the ranks: its step says the same rank and size."""
    env = x.env
    if env.get("SLURM_STEP_NODELIST") is None or rank is None:
        return False
    procid, tasks = env.get("SLURM_PROCID"), env.get("SLURM_STEP_NUM_TASKS")
    return (procid is not None and count(procid, 0) == rank and tasks is not None
            and count(tasks) is not None and (size is None or count(tasks) == size))


def mpi_in_step(x, local, local_size):
    """The Slurm step gives the hosts when it agrees with MPI on the own node; when it does
    not, the header falls back to other sources, which the model leaves unchecked."""
    probe = Expect(x.env)
    step = slurm_step(probe)
    if probe.fail:
        x.fail += probe.fail
        return
    if not step:
        return
    hosts, counts, rank, how, plane = step
    node = count(x.env.get("SLURM_NODEID") or "", 0)
    slurm_local = count(x.env.get("SLURM_LOCALID") or "", 0)
    if node is None or node >= len(counts) or (local_size and counts[node] != local_size):
        return
    if local is not None and slurm_local is not None and slurm_local != local:
        return
    for field, pins in probe.fields.items():
        x.fields[field] += pins
    place(x, hosts, counts, rank, "SLURM_STEP_NODELIST", how, plane)


def mpi_from_scheduler(x, rank, size):
    for name in SCHEDULER_FILES:
        if not x.env.get(name):
            continue
        slots = allocation(x.env, name)
        if slots is None:
            x.must_fail(name)
            return True
        if name.startswith("LSB_"):
            slots = lsf_launch_node(x, slots, name)
        policy = mpi_policy(x) if slots else None
        if policy:
            place_slots(x, slots, size, rank, name, policy)
        return True
    return False


def mpi_in_allocation(x, rank, size, local_size):
    """mpirun inside a Slurm allocation: local-size ranks on each node of its daemons' step."""
    hosts = expand_hostlist(x.env.get("SLURM_STEP_NODELIST"))
    if hosts == UNKNOWN:
        return
    if not hosts or len(set(hosts)) != len(hosts) or len(hosts) * local_size != size:
        x.must_fail("SLURM_STEP_NODELIST")
        return
    node = x.number("SLURM_NODEID", None, 0, len(hosts) - 1, required=True)
    if node is not None:
        x.equal("node_rank", node, "SLURM_NODEID")
    policy = mpi_policy(x)
    if policy:
        place(x, hosts, [local_size] * len(hosts), rank, "SLURM_STEP_NODELIST", policy[1])


# ---- the schedulers: pbs, lsf, sge, flux ----------------------------------------------------

def pbsdsh_task(env):
    """PBS_VNODENUM is a pbsdsh task's, but for Torque's job script: PBS_VNODENUM 0, PBS_TASKNUM 1."""
    return env.set("PBS_VNODENUM") and not (env.get("PBS_VNODENUM") == "0" and env.get("PBS_TASKNUM") == "1")


def pbs_lines_grouped(text):
    """PBS_VNODENUM counts PBS_NODEFILE's lines: each host's lines must be together."""
    seen, last = set(), None
    for line in text.split("\n"):
        host = line.split("#")[0].strip(" \t\r")
        if not host:
            continue
        if ":" in host or "slots" in host:
            return True  # counts, not a node file: the header checks nothing more
        host = host.split()[0]
        if host != last and host in seen:
            return False
        seen.add(host)
        last = host
    return True


def expect_pbs(x):
    env = x.env
    slots = allocation(env, "PBS_NODEFILE") if env.get("PBS_NODEFILE") else None
    if slots is None:
        x.must_fail("PBS_NODEFILE")
        return
    if env.set("PALS_RANKID"):
        local_size = x.number("PALS_LOCAL_SIZE", "local_world_size", 1)
        size = x.number("PMI_SIZE", "world_size", 1, MAX_TASKS, required=True)
        rank = x.number("PALS_RANKID", "rank", 0, required=True)
        node = x.number("PALS_NODEID", "node_rank", 0, len(slots) - 1)
        local = x.number("PALS_LOCAL_RANKID", "local_rank", 0)
        x.number("PMI_RANK", "rank", 0)
        ppn = local_size  # mpiexec --ppn: a full node's count; a last node holds fewer
        if node and local is not None and rank is not None and rank - local > 0 \
                and (rank - local) % node == 0:
            ppn = (rank - local) // node
        if ppn and sum(n for _, n in slots) == len(slots) and ppn * len(slots) <= MAX_TASKS:
            slots = [(h, ppn) for h, _ in slots]  # a line per node
        return place_slots(x, slots, size, rank, "PBS_NODEFILE")
    if pbsdsh_task(env):
        if not pbs_lines_grouped(env.file_text(env.get("PBS_NODEFILE"))):
            x.must_fail("PBS_NODEFILE")
        rank = x.number("PBS_VNODENUM", "rank", 0, required=True)
        return place_slots(x, slots, sum(n for _, n in slots), rank, "PBS_NODEFILE")
    if not sched_mpi(x, slots, "PBS_NODEFILE"):
        x.must_fail("PALS_RANKID")  # the job script: no own task


def lsf_launch_node(x, slots, source):
    """LSF on CSM systems lists the launch node first with one slot: left out when
    CSM_ALLOCATION_ID is set, or under jsrun when the slots are JSM_NAMESPACE_SIZE + 1.
    Under jsrun the slots left must be its size, or JSM_NAMESPACE_LOCAL_SIZE ranks on every
    host (its resource sets per host) when the size is the hosts times that and each has the
    slots."""
    env = x.env
    launch = len(slots) >= 2 and slots[0][1] == 1
    size = x.number("JSM_NAMESPACE_SIZE", "world_size", 1, MAX_TASKS)
    total = sum(n for _, n in slots)
    if launch and (env.set("CSM_ALLOCATION_ID") or (size is not None and total == size + 1)):
        slots, total = slots[1:], total - 1
    if size is not None and total != size:
        per_host = decimal(env.get("JSM_NAMESPACE_LOCAL_SIZE") or "")
        if per_host and per_host * len(slots) == size and all(n >= per_host for _, n in slots):
            return [(h, per_host) for h, _ in slots]
        x.must_fail(source)
    return slots if size is not None or not env.set("JSM_NAMESPACE_SIZE") else None


def sched_mpi(x, slots, source):
    """Ranks an MPI launcher started on the allocation, placed as the mpi backend places them;
    False when no launcher's rank variable is set (the job script: no own task)."""
    if not any(x.env.set(f[0]) for f in MPI_FAMILIES):
        return False
    rank, size, _, _ = mpi_identity(x)
    policy = mpi_policy(x) if size is not None and slots else None
    if size is None:
        x.must_fail("PMIX_RANK")
    elif policy:
        place_slots(x, slots, size, rank, source, policy)
    return True


def expect_lsf(x):
    env = x.env
    source = "LSB_DJOB_RANKFILE" if env.get("LSB_DJOB_RANKFILE") else "LSB_MCPU_HOSTS"
    slots = allocation(env, source) if env.get(source) else None
    if slots is None:
        x.must_fail(source)
        return
    slots = lsf_launch_node(x, slots, source)
    if env.set("JSM_NAMESPACE_RANK"):
        size = x.number("JSM_NAMESPACE_SIZE", "world_size", 1, MAX_TASKS, required=True)
        rank = x.number("JSM_NAMESPACE_RANK", "rank", 0, required=True)
        for other in MPI_FAMILIES:
            x.number(other[0], "rank", 0)
            if other[1]:
                x.number(other[1], "world_size", 1)
        x.number("JSM_NAMESPACE_LOCAL_RANK", "local_rank", 0)
        x.number("JSM_NAMESPACE_LOCAL_SIZE", "local_world_size", 1)
        if slots:
            place_slots(x, slots, size, rank, source)
    elif not sched_mpi(x, slots, source):
        x.must_fail("JSM_NAMESPACE_RANK")  # the job script


def expect_sge(x):
    env = x.env
    slots = allocation(env, "PE_HOSTFILE") if env.get("PE_HOSTFILE") else None
    if slots is None:
        x.must_fail("PE_HOSTFILE")
        return
    nslots = x.number("NSLOTS", None, 1)
    if nslots is not None and nslots != sum(n for _, n in slots):
        x.must_fail("NSLOTS")
    nhosts = x.number("NHOSTS", None, 0)
    if nhosts is not None and nhosts != len(slots):
        x.must_fail("NHOSTS")
    if not sched_mpi(x, slots, "PE_HOSTFILE"):
        x.must_fail("OMPI_COMM_WORLD_RANK")  # the job script


def flux_hosts(text):
    """A Flux hostfile's [(host, slots)]: `flux hostlist`'s one line (a Slurm hostlist, a slot a
    host; none named twice) when the file is one line without '=', ':' or '#', else a hostfile's
    lines; None when malformed."""
    line = text.rstrip(" \t\r\n")
    if not line or "\n" in line or any(c in line for c in "=:#"):
        return parse_hostfile(text)
    hosts = expand_hostlist(line)
    if hosts is None or hosts == UNKNOWN:
        return hosts
    return [(h, 1) for h in hosts] if hosts and len(set(hosts)) == len(hosts) else None


def expect_flux(x):
    env = x.env
    size = x.number("FLUX_JOB_SIZE", "world_size", 1, MAX_TASKS, required=True)
    rank = x.number("FLUX_TASK_RANK", "rank", 0, required=True)
    x.number("FLUX_TASK_LOCAL_ID", "local_rank", 0)
    x.number("PMI_SIZE", "world_size", 0)  # the Flux shell's PMI-1
    x.number("PMI_RANK", "rank", 0)
    nodes = x.number("FLUX_JOB_NNODES", "num_nodes", 1)
    hostfile = env.option("--hostfile")
    slots = flux_hosts(env.file_text(hostfile) or "") if hostfile else None
    if slots == UNKNOWN:
        return
    if slots is None:
        x.must_fail("--hostfile")
        return
    if nodes is not None and nodes != len(slots):
        x.must_fail("FLUX_JOB_NNODES")
    if size and nodes and size % nodes == 0:  # flux run -N n -n k*n: k each
        slots = [(h, size // nodes) for h, _ in slots]
    place_slots(x, slots, size, rank, "--hostfile")


# ---- coordinator-only sources: torch, jax, awsbatch -----------------------------------------

def coordinator(x, host_var, port_var):
    """MASTER_ADDR-style variables: a host (IPv6 with or without brackets) and a port."""
    host = x.env.get(host_var)
    port = x.number(port_var, None, 1, 65535, required=True)
    if not host or is_blank(host):
        x.must_fail(host_var)
        return
    if host.startswith("[") and host.endswith("]"):
        host = host[1:-1]
    x.host(host, port, host_var)


def expect_torch(x):
    env = x.env
    plain = ["MASTER_ADDR", "MASTER_PORT", "RANK", "WORLD_SIZE"]
    if env.set("TORCHELASTIC_RUN_ID"):
        return torch_workers(x, torchrun=True)
    if any(env.set(n) for n in plain):
        torch_workers(x, torchrun=False)
        pai = env.get("NPROC_PER_NODE")
        if pai is not None and not is_blank(pai) and pai != "1":
            x.must_fail("NPROC_PER_NODE")  # Alibaba PAI-DLC: WORLD_SIZE may count nodes
        if any(env.set(n) for n in ("PET_NNODES", "PET_NODE_RANK", "PET_MASTER_ADDR",
                                    "PET_MASTER_PORT", "PET_NPROC_PER_NODE")):
            torch_pet_agrees(x)
        return
    if any(env.get(n) is not None for n in ("PET_NNODES", "PET_NODE_RANK", "PET_MASTER_ADDR")):
        return torch_launchers(x)
    x.must_fail("RANK")


def torch_workers(x, torchrun):
    """torch.distributed's names; torchrun sets every one of them."""
    env = x.env
    coordinator(x, "MASTER_ADDR", "MASTER_PORT")
    x.number("WORLD_SIZE", "world_size", 1, required=True)
    x.number("RANK", "rank", 0, required=True)
    x.number("LOCAL_RANK", "local_rank", 0, required=torchrun)
    x.number("LOCAL_WORLD_SIZE", "local_world_size", 1, required=torchrun)
    node = "GROUP_RANK" if env.get("GROUP_RANK") is not None else "NODE_RANK"
    x.number(node, "node_rank", 0, required=torchrun)
    x.number("GROUP_WORLD_SIZE", "num_nodes", 1, required=torchrun)


def pet_node_numbers(x, required):
    """PET_NNODES and PET_NODE_RANK count nodes, and a process per node: the world too."""
    for field in ("world_size", "num_nodes"):
        x.number("PET_NNODES", field, 1, required=required)
    for field in ("rank", "node_rank"):
        x.number("PET_NODE_RANK", field, 0, required=required)


def pet_nproc(x):
    """PET_NPROC_PER_NODE: a count (unset or blank: 1), 0 for a keyword ("auto", "gpu":
    torchrun counts when it starts), None when it rules every answer out."""
    v = x.env.get("PET_NPROC_PER_NODE")
    if v is None or is_blank(v):
        return 1
    if re.fullmatch(r"[a-z]+", v):
        return 0
    return x.number("PET_NPROC_PER_NODE", None, 1, 2147483647, required=True)


def node_launch(x, nproc):
    """One torchrun per node starting nproc processes (0: not known yet): the nodes, and the
    world their product; the own rank is unknown (the manual, torch)."""
    nodes = x.number("PET_NNODES", "num_nodes", 1, required=True)
    node = x.number("PET_NODE_RANK", "node_rank", 0, required=True)
    if nodes is not None and node is not None and node >= nodes:
        x.must_fail("PET_NODE_RANK")
    if nproc and nodes is not None:
        if nodes * nproc > 2147483647:
            x.must_fail("PET_NPROC_PER_NODE")
        x.equal("world_size", nodes * nproc, "PET_NPROC_PER_NODE")
        x.equal("local_world_size", nproc, "PET_NPROC_PER_NODE")


def torch_launchers(x):
    """Kubeflow's PET_* alone: torchrun's flags, for torchrun's launcher, one per node."""
    nnodes = x.env.get("PET_NNODES")
    if nnodes is not None and ":" in nnodes:
        x.must_fail("PET_NNODES")  # an elastic range: unsupported
        return
    coordinator(x, "PET_MASTER_ADDR", "PET_MASTER_PORT")
    nproc = pet_nproc(x)
    if nproc is None:
        return
    if nproc != 1:
        return node_launch(x, nproc)
    pet_node_numbers(x, required=True)
    x.equal("local_rank", 0, "PET_NNODES")
    x.equal("local_world_size", 1, "PET_NNODES")


def torch_pet_agrees(x):
    """Outside torchrun, PET_* beside torch.distributed's names (Kubeflow v1 sets both)
    describe this same process, one per node; with PET_NPROC_PER_NODE above 1, its node
    (WORLD_SIZE = nodes x processes per node, RANK the node)."""
    env = x.env
    nproc = pet_nproc(x)
    if nproc is not None and nproc > 1:
        node_launch(x, nproc)
        world = x.number("WORLD_SIZE")
        nodes = x.number("PET_NNODES")
        if world is not None and nodes is not None and world != nodes * nproc:
            x.must_fail("WORLD_SIZE")
        for name, twin in (("RANK", "PET_NODE_RANK"), ("MASTER_ADDR", "PET_MASTER_ADDR"),
                           ("MASTER_PORT", "PET_MASTER_PORT")):
            a, b = env.get(name), env.get(twin)
            if a is not None and b and a != b:
                x.must_fail(twin)
        if env.get("LOCAL_RANK") is not None:
            x.must_fail("LOCAL_RANK")  # a worker's number, but this process starts them
        # the rank is the node's, not this process's: no rank pin
        x.fields["rank"] = []
        return
    pet_node_numbers(x, required=False)
    address = env.get("PET_MASTER_ADDR")
    if env.set("PET_MASTER_ADDR"):
        x.master.append((address.strip("[]"), "PET_MASTER_ADDR"))
    port = x.number("PET_MASTER_PORT", None, 1, 65535)
    if port is not None:
        x.port.append((port, "PET_MASTER_PORT"))
    if env.set("PET_NNODES") and env.set("PET_NODE_RANK"):
        for field, var, value in (("local_rank", "LOCAL_RANK", 0),
                                  ("local_world_size", "LOCAL_WORLD_SIZE", 1)):
            if env.get(var) is None:
                x.equal(field, value, "PET_NNODES")


def expect_jax(x):
    env = x.env
    x.number("JAX_NUM_PROCESSES", "world_size", 1, required=True)
    x.number("JAX_PROCESS_ID", "rank", 0, required=True)
    address = env.get("JAX_COORDINATOR_ADDRESS")
    if not address or is_blank(address):
        x.must_fail("JAX_COORDINATOR_ADDRESS")
        return
    parts = split_address(address)
    other = x.number("JAX_COORDINATOR_PORT", None, 1, 65535)
    bare_v6 = not address.startswith("[") and address.count(":") > 1
    if parts is None or bare_v6 or parts[1] == 0 or (parts[1] is None and other is None):
        x.must_fail("JAX_COORDINATOR_ADDRESS")
        return
    if parts[1] is not None and other is not None and parts[1] != other:
        x.must_fail("JAX_COORDINATOR_PORT")
    x.host(parts[0], parts[1] if parts[1] is not None else other, "JAX_COORDINATOR_ADDRESS")


def expect_awsbatch(x):
    env = x.env
    nodes = x.number("AWS_BATCH_JOB_NUM_NODES", "world_size", 1, required=True)
    x.number("AWS_BATCH_JOB_NUM_NODES", "num_nodes", 1, required=True)
    node = x.number("AWS_BATCH_JOB_NODE_INDEX", None, 0, required=True)
    main = x.number("AWS_BATCH_JOB_MAIN_NODE_INDEX", None, 0, required=True)
    if nodes is None or node is None or main is None:
        return
    rank = 0 if node == main else node + 1 if node < main else node
    for field in ("rank", "node_rank"):
        x.equal(field, rank, "AWS_BATCH_JOB_NODE_INDEX")
    x.equal("local_rank", 0, "AWS_BATCH_JOB_NODE_INDEX")
    x.equal("local_world_size", 1, "AWS_BATCH_JOB_NODE_INDEX")
    ip = env.get("AWS_BATCH_JOB_MAIN_NODE_PRIVATE_IPV4_ADDRESS")
    if ip and not re.fullmatch(r"((25[0-5]|2[0-4][0-9]|1?[0-9]?[0-9])\.){3}"
                               r"(25[0-5]|2[0-4][0-9]|1?[0-9]?[0-9])", ip):
        x.must_fail("AWS_BATCH_JOB_MAIN_NODE_PRIVATE_IPV4_ADDRESS")
    elif not ip and node != main:
        x.must_fail("AWS_BATCH_JOB_MAIN_NODE_PRIVATE_IPV4_ADDRESS")
    x.host(ip or "localhost", 29500, "AWS_BATCH_JOB_MAIN_NODE_PRIVATE_IPV4_ADDRESS")


# ---- tpu -----------------------------------------------------------------------------------

def tpu_entries(x, name):
    """(host, port) of each comma-separated endpoint; None when one cannot be read."""
    out = []
    for item in x.env.get(name).split(","):
        at = item[7:] if item.startswith("grpc://") else item
        parts = split_address(at) if at else None
        if parts is None or not parts[0]:
            x.must_fail(name)
            return None
        out.append((parts[0], parts[1] if parts[1] is not None else 8470))
    return out


def expect_tpu(x):
    env = x.env
    slices = x.number("MEGASCALE_NUM_SLICES", None, 1)
    if slices and slices > 1:
        return tpu_multislice(x, slices)
    if slices is None and any(env.set(n) for n in ("MEGASCALE_SLICE_ID",
                                                    "MEGASCALE_COORDINATOR_ADDRESS")):
        x.must_fail("MEGASCALE_NUM_SLICES")  # a multislice job missing its count
    x.number("MEGASCALE_SLICE_ID", None, 0, 0)  # one slice: slice 0
    source = "TPU_PROCESS_ADDRESSES" if env.set("TPU_PROCESS_ADDRESSES") else "TPU_WORKER_HOSTNAMES"
    if not env.get(source):
        x.must_fail(source)  # an empty cluster: no own task
        return
    entries = tpu_entries(x, source)
    rank = x.number("TPU_WORKER_ID", None, 0) or 0  # unset: worker 0, as TensorFlow
    if entries is None:
        return
    hosts = env.get("TPU_WORKER_HOSTNAMES")
    if source == "TPU_PROCESS_ADDRESSES" and hosts and not is_blank(hosts) and (
            len(entries) % len(hosts.split(","))):
        x.must_fail("TPU_WORKER_HOSTNAMES")  # not as many processes on each host
    if rank >= len(entries):
        x.must_fail("TPU_WORKER_ID")
        return
    x.equal("rank", rank, "TPU_WORKER_ID")
    spec_launch(x, [("worker", [join(*e) for e in entries])], ("worker", rank), source)
    x.port = [(8482, source)]  # rank 0 at JAX's coordinator port: 8470, 8476 are the TPU's


def tpu_multislice(x, slices):
    env = x.env
    source = "TPU_PROCESS_ADDRESSES" if env.set("TPU_PROCESS_ADDRESSES") else "TPU_WORKER_HOSTNAMES"
    workers = env.get(source)
    if not workers or is_blank(workers) or "" in workers.split(","):
        x.must_fail(source)
        return
    per_slice = len(workers.split(","))
    slice_id = x.number("MEGASCALE_SLICE_ID", None, 0, slices - 1, required=True)
    worker = x.number("TPU_WORKER_ID", None, 0, per_slice - 1, required=True)
    address = env.get("MEGASCALE_COORDINATOR_ADDRESS")
    parts = split_address(address) if address else None
    if parts is None or not parts[0]:
        x.must_fail("MEGASCALE_COORDINATOR_ADDRESS")
    else:
        x.host(parts[0], 8482, "MEGASCALE_COORDINATOR_ADDRESS")
    x.equal("world_size", per_slice * slices, source)
    if slice_id is not None and worker is not None:
        x.equal("rank", slice_id * per_slice + worker, "MEGASCALE_SLICE_ID")
    if source == "TPU_WORKER_HOSTNAMES":  # a process per host
        x.equal("num_nodes", per_slice * slices, source)
        x.equal("local_world_size", 1, source)


# ---- sources that name every member: spec-shaped answers --------------------------------------

def rank_order(jobs):
    """Jobs in global rank order: "chief" first, then by name."""
    return sorted(jobs, key=lambda j: (j[0] != "chief", j[0]))


def join(host, port):
    return "[%s]:%d" % (host, port) if ":" in host else "%s:%d" % (host, port)


def spec_launch(x, jobs, own, because, built=False):
    """What cres_spec_launch_info derives from a spec: jobs [(name, [address])] and the own
    (job, position). built: the backend made the addresses from host names, which must then
    be names an address can hold."""
    ordered = rank_order(jobs)
    addresses = [a for _, job in ordered for a in job]
    parts = [split_address(a) for a in addresses]
    if not addresses or None in parts:
        return
    hosts = [h for h, _ in parts]
    if built and not all(host_ok(h) and not re.search("[,;]", h) for h in hosts):
        x.must_fail(because)
        return
    rank = sum(len(j) for n, j in ordered[:[n for n, _ in ordered].index(own[0])]) + own[1]
    first_seen = list(dict.fromkeys(hosts))
    x.equal("world_size", len(addresses), because)
    x.equal("rank", rank, because)
    x.equal("num_nodes", len(first_seen), because)
    x.equal("node_rank", first_seen.index(hosts[rank]), because)
    x.equal("local_world_size", hosts.count(hosts[rank]), because)
    x.equal("local_rank", hosts[:rank].count(hosts[rank]), because)
    x.host(hosts[0], parts[0][1], because)


def simple_names(hosts):
    """Names whose natural order the model can tell: one prefix, then a number."""
    prefixes = {re.sub(r"[0-9]+$", "", h) for h in hosts}
    return len(prefixes) == 1 and all(re.fullmatch(r".*[^0-9][1-9][0-9]*", h) for h in hosts)


def sagemaker_source(x, name, key, doc):
    value = x.env.get(name)
    if value is not None:
        return value
    if doc is None:
        return None
    field = doc.get(key) if isinstance(doc, dict) else None
    return json.dumps(field) if key == "hosts" else field


def sagemaker_file_agrees(doc, hosts, current):
    """The resource config, read for the hosts or the current host, must agree in the other
    key when it has it: the same hosts in any order, the same current host."""
    filed = doc.get("hosts") if isinstance(doc, dict) else None
    now = doc.get("current_host") if isinstance(doc, dict) else None
    same_hosts = filed is None or (isinstance(filed, list) and sorted(map(str, filed)) ==
                                   sorted(hosts))
    return same_hosts and (now is None or now == current)


def expect_sagemaker(x):
    env = x.env
    doc = None
    if env.get("SM_HOSTS") is None or env.get("SM_CURRENT_HOST") is None:
        try:
            doc = json.loads(env.resource_config() or "")
        except ValueError:
            x.must_fail("resourceconfig.json")
            return
    hosts_text = sagemaker_source(x, "SM_HOSTS", "hosts", doc)
    current = sagemaker_source(x, "SM_CURRENT_HOST", "current_host", doc)
    hosts = json_host_list(hosts_text) if isinstance(hosts_text, str) else None
    if hosts is None or current not in hosts:
        x.must_fail("SM_HOSTS")
        return
    if doc is not None and not sagemaker_file_agrees(doc, hosts, current):
        x.must_fail("resourceconfig.json")
    if simple_names(hosts):
        ordered = sorted(hosts, key=natural_key)
        spec_launch(x, [("worker", [join(h, 2223) for h in ordered])],
                    ("worker", ordered.index(current)), "SM_HOSTS", built=True)


def expect_skypilot(x):
    env = x.env
    ips = env.get("SKYPILOT_NODE_IPS")
    rank = x.number("SKYPILOT_NODE_RANK", "rank", 0, required=True)
    nodes = x.number("SKYPILOT_NUM_NODES", "world_size", 1)
    x.number("SKYPILOT_NUM_GPUS_PER_NODE", None, 0, 4096)
    if not ips or is_blank(ips):
        x.must_fail("SKYPILOT_NODE_IPS")
        return
    lines = [line.rstrip("\r ").lstrip(" ") for line in ips.rstrip("\n\r ").split("\n")]
    if "" in lines or len(set(lines)) != len(lines):
        x.must_fail("SKYPILOT_NODE_IPS")
        return
    if nodes is not None and nodes != len(lines):
        x.must_fail("SKYPILOT_NUM_NODES")
    if rank is not None and rank >= len(lines):
        x.must_fail("SKYPILOT_NODE_RANK")
    elif rank is not None:
        spec_launch(x, [("worker", [join(h, 8470) for h in lines])], ("worker", rank),
                    "SKYPILOT_NODE_IPS", built=True)


def volcano_jobs(x):
    """{job: [host]} from every VC_<TASK>_HOSTS; None when one cannot be read."""
    jobs = {}
    for name in sorted(x.env.vars):
        m = re.fullmatch(r"VC_(.+)_HOSTS", name)
        if not m or len(name) < 10:
            continue
        x.env.get(name)
        hosts = x.env.vars[name].split(",")
        if is_blank(x.env.vars[name]) or "" in hosts:
            x.must_fail(name)
            return None
        x.number("VC_%s_NUM" % m.group(1), None, 0)
        num = count(x.env.vars.get("VC_%s_NUM" % m.group(1)) or "", 0)
        if num is not None and num != len(hosts):
            x.must_fail("VC_%s_NUM" % m.group(1))
        jobs[m.group(1).lower()] = hosts
    return jobs


def expect_volcano(x):
    env = x.env
    jobs = volcano_jobs(x)
    if not jobs:
        x.must_fail("VC_WORKER_HOSTS")
        return
    all_hosts = [h for hosts in jobs.values() for h in hosts]
    hostname = env.get("HOSTNAME")
    own = [(j, i) for j, hosts in jobs.items() for i, h in enumerate(hosts)
           if hostname and h.startswith(hostname) and h[len(hostname):][:1] in (".", "")]
    index_var = "VC_TASK_INDEX" if env.get("VC_TASK_INDEX") is not None else "VK_TASK_INDEX"
    index = x.number(index_var, None, 0)
    legacy = x.number("VK_TASK_INDEX", None, 0)
    if legacy is not None and index is not None and legacy != index:
        x.must_fail("VK_TASK_INDEX")
    if len(set(all_hosts)) != len(all_hosts) or not own:
        x.must_fail("HOSTNAME")
        return
    if index is not None and index != own[0][1]:
        x.must_fail(index_var)
    spec_launch(x, [(j, [join(h, 8470) for h in hosts]) for j, hosts in jobs.items()], own[0],
                "VC_<TASK>_HOSTS", built=True)


def is_dns_name(s):
    labels = s.split(".")
    return (0 < len(s) <= 253 and not re.fullmatch(r"[0-9.]+", s)
            and all(re.fullmatch(r"[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?", l)
                    for l in labels))


def expect_lws(x):
    env = x.env
    size = x.number("LWS_GROUP_SIZE", "world_size", 1, MAX_TASKS, required=True)
    own = x.number("LWS_WORKER_INDEX", "rank", 0, required=True)
    leader = env.get("LWS_LEADER_ADDRESS")
    if not leader or is_blank(leader) or not is_dns_name(leader):
        x.must_fail("LWS_LEADER_ADDRESS")
        return
    if size is None or own is None or own >= size:
        return
    first, _, rest = leader.partition(".")
    hosts = [leader] + ["%s-%d%s" % (first, i, "." + rest if rest else "") for i in range(1, size)]
    hostname = env.get("HOSTNAME")
    if hostname and hostname != hosts[own].split(".")[0]:
        x.must_fail("HOSTNAME")
    spec_launch(x, [("worker", [join(h, 8470) for h in hosts])], ("worker", own),
                "LWS_LEADER_ADDRESS", built=True)


def unique_keys(pairs):
    if len({k for k, _ in pairs}) != len(pairs):
        raise KeyError("duplicate")
    return dict(pairs)


def tf_jobs(x, name, cluster, dense_only):
    """[(job, addresses by index, indices)] of a cluster: lists, and sparse objects keyed by
    index; None when the model does not follow a job's form."""
    out = []
    for job, tasks in cluster.items():
        if isinstance(tasks, list) and all(isinstance(a, str) for a in tasks):
            out.append((job, tasks, list(range(len(tasks)))))
        elif dense_only:
            x.must_fail(name)  # Vertex's pools are lists
            return None
        elif isinstance(tasks, dict) and all(
                isinstance(a, str) and re.fullmatch("0|[1-9][0-9]*", k) for k, a in tasks.items()):
            indices = sorted(int(k) for k in tasks)
            out.append((job, [tasks[str(i)] for i in indices], indices))
        else:
            return None
    return out


def tf_task_index(index):
    """task.index: an integer or a decimal string; None when neither."""
    if type(index) is int:
        return index
    return decimal(index) if isinstance(index, str) else None


def tf_shape(x, name, text, dense_only):
    """(jobs, own) of a TF_CONFIG-shaped document; None when the model does not follow it,
    must_fail when it is no JSON or its task is not in its cluster."""
    try:
        doc = json.loads(text, object_pairs_hook=unique_keys)
    except ValueError:
        x.must_fail(name)
        return None
    except KeyError:
        return None  # a key given twice: which one the header takes is not modelled
    cluster = doc.get("cluster") if isinstance(doc, dict) else None
    task = doc.get("task") if isinstance(doc, dict) else None
    if not isinstance(cluster, dict) or not isinstance(task, dict):
        return None
    jobs = tf_jobs(x, name, cluster, dense_only)
    kind, index = task.get("type"), tf_task_index(task.get("index"))
    if jobs is None or not isinstance(kind, str) or index is None:
        return None
    own = [indices for job, _, indices in jobs if job == kind]
    if not own or index not in own[0]:
        x.must_fail(name)
        return None
    return [(job, addresses) for job, addresses, _ in jobs], (kind, own[0].index(index))


def expect_tfconfig(x):
    shape = tf_shape(x, "TF_CONFIG", x.env.get("TF_CONFIG") or "", dense_only=False)
    if shape:
        spec_launch(x, shape[0], shape[1], "TF_CONFIG")


def expect_vertex(x):
    text = x.env.get("CLUSTER_SPEC")
    if not text or is_blank(text):
        x.must_fail("CLUSTER_SPEC")
        return
    shape = tf_shape(x, "CLUSTER_SPEC", text, dense_only=True)
    if shape:
        spec_launch(x, shape[0], shape[1], "CLUSTER_SPEC")


# ---- local, and auto's order ------------------------------------------------------------------

# The manual's auto, step 20: variables that say "one of several". "" when being set says
# it, ">1" a count other than 1 (the value's first word), ">0" an index other than 0, or the
# separator of a list of more than one entry.
NOT_ALONE = {
    "": ["LOCAL_RANK", "NODE_RANK", "GROUP_RANK", "GROUP_WORLD_SIZE", "LOCAL_WORLD_SIZE",
         "ROLE_RANK", "PET_NPROC_PER_NODE", "PET_MASTER_PORT", "PMI_RANK", "PMI_LOCAL_RANK",
         "PALS_RANKID", "MPI_LOCALRANKID", "OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_LOCAL_RANK",
         "OMPI_COMM_WORLD_NODE_RANK", "MV2_COMM_WORLD_RANK", "MV2_COMM_WORLD_LOCAL_RANK",
         "OMPI_MCA_orte_default_hostfile", "I_MPI_HYDRA_HOST_FILE", "HYDRA_HOST_FILE",
         "JSM_NAMESPACE_RANK", "PBS_VNODENUM", "SLURM_PROCID", "AWS_BATCH_JOB_MAIN_NODE_INDEX",
         "MEGASCALE_SLICE_ID", "JOB_COMPLETION_INDEX", "AZ_BATCH_MASTER_NODE",
         "AZ_BATCH_IS_CURRENT_NODE_MASTER", "AZ_BATCHAI_MPI_MASTER_NODE"],
    ">1": ["MPI_LOCALNRANKS", "OMPI_COMM_WORLD_LOCAL_SIZE", "MV2_COMM_WORLD_LOCAL_SIZE",
           "SLURM_NTASKS", "SLURM_JOB_NUM_NODES", "HOROVOD_SIZE", "PADDLE_TRAINERS_NUM",
           "PADDLE_GLOBAL_SIZE", "PADDLE_NNODES", "CROSS_SIZE", "LOCAL_SIZE", "NPROC_PER_NODE",
           "BATCH_TASK_COUNT", "CCP_NODES", "_CONDOR_NPROCS", "SKYPILOT_NUM_NODES",
           "DMLC_NUM_WORKER", "DET_KUBERNETES_JOB_PARALLELISM"],
    ">0": ["HOROVOD_RANK", "PADDLE_TRAINER_ID", "PADDLE_GLOBAL_RANK", "CROSS_RANK",
           "BATCH_TASK_INDEX", "BATCH_NODE_INDEX", "_CONDOR_PROCNO", "SKYPILOT_SETUP_NODE_RANK",
           "DMLC_TASK_ID", "TORCHX_ROLE_IDX", "TORCHX_REPLICA_IDX", "NOMAD_ALLOC_INDEX"],
    ",": ["PADDLE_TRAINER_ENDPOINTS", "AZ_BATCH_HOST_LIST"],
    ";": ["AZ_BATCH_NODE_LIST"],
    "\n": ["SKYPILOT_SETUP_NODE_IPS"],
}


def says_several(value, how):
    if how == "":
        return True
    if how.startswith(">"):
        first = re.split("[ \t\r\n]+", value.strip(" \t\r\n"))[0]
        return decimal(first) != int(how[1])
    return len([e for e in value.split(how) if not is_blank(e)]) > 1


def expect_local(x):
    env = x.env
    forced = env.get("CLUSTER_RESOLVER_BACKEND") in ("local", "off")
    hints = [n for how, names in NOT_ALONE.items() for n in names
             if env.set(n) and says_several(env.get(n), how)]
    if hints and not forced:
        x.must_fail(hints[0])
    one_task(x, "localhost", 8470, "local")


def auto_steps(env):
    """The backends auto's documented order (manual section 7, auto) finds, in order."""
    s = env.set
    any_set = lambda *names: any(s(n) for n in names)
    size = env.get("WORLD_SIZE")
    pmi_not_mpi = (s("PMI_SIZE") and not any_set("OMPI_COMM_WORLD_SIZE", "MV2_COMM_WORLD_SIZE")
                   and (s("FLUX_TASK_RANK") or (s("PALS_RANKID") and s("PBS_NODEFILE"))))
    steps = [
        ("tfconfig", s("TF_CONFIG")),
        ("torch", s("TORCHELASTIC_RUN_ID")),
        ("mpi", any_set("OMPI_COMM_WORLD_SIZE", "MV2_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_RANK")
         and not pmi_not_mpi),
        # a scheduler's job step or a rank on its allocation: the launcher of this process
        ("slurm", s("SLURM_STEP_NODELIST")),
        ("pbs", any_set("PBS_NODEFILE", "PBS_JOBID") and (s("PALS_RANKID") or pbsdsh_task(env))),
        ("lsf", any_set("LSB_DJOB_RANKFILE", "LSB_MCPU_HOSTS", "LSB_JOBID")
         and s("JSM_NAMESPACE_RANK")),
        ("flux", s("FLUX_TASK_RANK")),
        ("vertex", s("CLUSTER_SPEC")),
        ("sagemaker", any_set("SM_HOSTS", "SM_CURRENT_HOST") or os.path.exists(RESOURCE_CONFIG)),
        ("skypilot", any_set("SKYPILOT_NODE_IPS", "SKYPILOT_NODE_RANK")),
        ("volcano", any_set("VC_TASK_INDEX", "VK_TASK_INDEX") or any(
            len(k) > 9 and k.startswith("VC_") and k.endswith("_HOSTS") for k in env.vars)),
        ("lws", any_set("LWS_LEADER_ADDRESS", "LWS_WORKER_INDEX", "LWS_GROUP_SIZE")),
        ("awsbatch", any_set("AWS_BATCH_JOB_NODE_INDEX", "AWS_BATCH_JOB_NUM_NODES")),
        ("torch", s("RANK") or (size is not None and not is_blank(size) and size != "1" and not any_set(
            "SLURM_JOB_ID", "SLURM_JOBID", "PBS_JOBID", "PBS_NODEFILE", "LSB_JOBID", "PE_HOSTFILE",
            "FLUX_JOB_ID", "FLUX_ENCLOSING_ID"))),
        ("jax", any_set("JAX_COORDINATOR_ADDRESS", "JAX_NUM_PROCESSES", "JAX_PROCESS_ID")),
        ("torch", any_set("PET_NNODES", "PET_NODE_RANK", "PET_MASTER_ADDR")),
        # a scheduler's allocation, outermost: the launchers above may run inside it
        ("slurm", any_set("SLURM_JOB_ID", "SLURM_JOBID")),
        ("pbs", any_set("PBS_NODEFILE", "PBS_JOBID")),
        ("lsf", any_set("LSB_DJOB_RANKFILE", "LSB_MCPU_HOSTS", "LSB_JOBID")),
        ("sge", s("PE_HOSTFILE")),
        ("flux", any_set("FLUX_JOB_ID", "FLUX_ENCLOSING_ID")),
        ("tpu", any_set("TPU_PROCESS_ADDRESSES", "TPU_WORKER_HOSTNAMES", "TPU_WORKER_ID",
                        "TPU_NAME", "KUBE_GOOGLE_CLOUD_TPU_ENDPOINTS", "TPU_CONFIG")),
    ]
    return [name for name, applies in steps if applies]


def auto_choice(case):
    """The backend auto must pick: CLUSTER_RESOLVER_BACKEND's, else the first in order."""
    env = Env(case)
    forced = env.get("CLUSTER_RESOLVER_BACKEND")
    if forced == "off":
        return "local"
    if forced and forced != "auto":
        return "kubernetes" if forced == "k8s" else forced
    steps = auto_steps(env)
    return steps[0] if steps else "local"


BACKENDS = {
    "slurm": expect_slurm, "mpi": expect_mpi, "pbs": expect_pbs, "lsf": expect_lsf,
    "sge": expect_sge, "flux": expect_flux, "torch": expect_torch, "jax": expect_jax,
    "awsbatch": expect_awsbatch, "tpu": expect_tpu, "sagemaker": expect_sagemaker,
    "skypilot": expect_skypilot, "volcano": expect_volcano, "lws": expect_lws,
    "tfconfig": expect_tfconfig, "vertex": expect_vertex, "local": expect_local,
}
COORDINATOR_ONLY = {"torch", "jax", "awsbatch"}


def expectations(backend, case):
    """The Expect of `backend` for the case; its env lists the variables the backend read."""
    x = Expect(Env(case))
    if backend not in BACKENDS:
        x.must_fail("backend " + backend)  # never generated: kubernetes, gce
        return x
    BACKENDS[backend](x)
    explicit(backend, x)
    return x


# ---- what the environment sets explicitly (the manual, cres_launch_apply_env) ---------------
# A size or rank a launcher's variable gives must be the answer's, whatever the backend;
# a coordinator the environment names is the answer's. Not for torch, whose own variables
# these are, nor local, the way to run alone; JAX_* not for jax.

EXPLICIT_SIZES = [("WORLD_SIZE", "world_size"), ("RANK", "rank"), ("LOCAL_RANK", "local_rank"),
                  ("LOCAL_WORLD_SIZE", "local_world_size"), ("GROUP_RANK", "node_rank"),
                  ("NODE_RANK", "node_rank"), ("GROUP_WORLD_SIZE", "num_nodes"),
                  ("JAX_NUM_PROCESSES", "world_size"), ("JAX_PROCESS_ID", "rank")]


def explicit(backend, x):
    if backend in ("torch", "local"):
        return
    env = x.env
    for name, field in EXPLICIT_SIZES:
        if not (backend == "jax" and name.startswith("JAX_")):
            x.number(name, field, 0)
    addr, port = env.get("MASTER_ADDR"), env.get("MASTER_PORT")
    coord = None if backend == "jax" else env.get("JAX_COORDINATOR_ADDRESS")
    torch_named = False
    if addr is not None and not is_blank(addr):
        host = addr[1:-1] if len(addr) > 1 and addr[0] == "[" and addr[-1] == "]" else addr
        if " " in host or len(host) > 255:
            x.must_fail("MASTER_ADDR")
        x.master = [(host, "MASTER_ADDR")]
        torch_named = True
    if port is not None and not is_blank(port):
        n = decimal(port)
        if n is None or not 1 <= n <= 65535:
            x.must_fail("MASTER_PORT")
        else:
            x.port = [(n, "MASTER_PORT")]
        torch_named = True
    if coord is not None and not is_blank(coord):
        parts = split_address(coord)
        if parts is None or not parts[0]:
            x.must_fail("JAX_COORDINATOR_ADDRESS")
        elif torch_named:  # both named: they must be one coordinator (checked by the CLI)
            if (x.master and x.master[0][0] != parts[0]) or (
                    parts[1] is not None and x.port and x.port[0][0] != parts[1]):
                x.must_fail("JAX_COORDINATOR_ADDRESS")
        else:
            x.master = [(parts[0], "JAX_COORDINATOR_ADDRESS")]
            if parts[1] is not None:
                x.port = [(parts[1], "JAX_COORDINATOR_ADDRESS")]


# ---- companions: variables a backend does not read that describe the same launch -----------
# An answer that disagrees with one is doubtful, not wrong by the manual: a launcher's variable
# may be stale or set for another process. Listed with --companions, never failing otherwise.

COMPANIONS = {
    "pbs": [("PBS_VNODENUM", "PBS_NODENUM", "node_rank"),
            ("PBS_VNODENUM", "PBS_NUM_NODES", "num_nodes"), ("PBS_VNODENUM", "PBS_NP", "world_size")],
    "torch": [("TORCHELASTIC_RUN_ID", "PET_NNODES", "num_nodes"),
              ("TORCHELASTIC_RUN_ID", "PET_NODE_RANK", "node_rank"),
              ("TORCHELASTIC_RUN_ID", "ROLE_WORLD_SIZE", "world_size")],
    "tpu": [("TPU_PROCESS_ADDRESSES", "TPU_WORKER_HOSTNAMES", "num_nodes")],
}
# Launchers' own ranks and sizes that auto's local fallback does not count as "one of
# several" (its list is model.NOT_ALONE): a rank told it is alone beside one is doubtful.
RANK_LIKE = ["JSM_NAMESPACE_SIZE", "SLURM_LOCALID", "SLURM_NODEID", "FLUX_TASK_LOCAL_ID"]


def companion_values(backend, case):
    """[(field, value, variable)] the backend's unread companions say, and for local the
    rank-like variables set."""
    env = case["env"]
    out = []
    for when, var, field in COMPANIONS.get(backend, []):
        if when not in env or var not in env:
            continue
        n = len(env[var].split(",")) if var == "TPU_WORKER_HOSTNAMES" else count(env[var], 0)
        if n is not None:
            out.append((field, n, var))
    if backend == "local" and env.get("CLUSTER_RESOLVER_BACKEND") not in ("local", "off"):
        out += [("alone", None, n) for n in RANK_LIKE if env.get(n, "").strip()]
    return out


def source_doubts(backend, case):
    """[(variable, text)]: two descriptions of one allocation, the backend reading only the
    first, that disagree."""
    env, out = Env(case), []
    if backend in ("lsf", "mpi") and env.get("LSB_DJOB_RANKFILE") and env.get("LSB_MCPU_HOSTS"):
        ranks, hosts = allocation(env, "LSB_DJOB_RANKFILE"), allocation(env, "LSB_MCPU_HOSTS")
        if ranks and hosts and ranks != hosts:
            out.append(("LSB_MCPU_HOSTS", "LSB_MCPU_HOSTS says %s, LSB_DJOB_RANKFILE %s"
                        % (hosts, ranks)))
    config = env.resource_config()
    if backend == "sagemaker" and config and env.get("SM_HOSTS") and env.get("SM_CURRENT_HOST"):
        listed, filed = json_host_list(env.get("SM_HOSTS")), None
        try:
            filed = json.loads(config).get("hosts")
        except (ValueError, AttributeError):
            pass
        if listed and isinstance(filed, list) and sorted(map(str, filed)) != sorted(listed):
            out.append(("SM_HOSTS", "SM_HOSTS says %s, the resource config %s" % (listed, filed)))
    return out
