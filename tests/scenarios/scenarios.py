"""Everyday scenarios: what a real launcher or platform sets for one process, the command its
user types, and the answer that user expects.

Each scenario is data:
  name      unique, short
  launcher  the launcher or platform (the suite's summary counts by it)
  source    where the environment's shape comes from (a source file at a commit, a vendor page,
            or a real capture); builders below say it once for every scenario they make
  env       exactly the variables the process has (the runner adds only PATH and HOME)
  args      the command line after `cluster-resolve`
  files     optional {relative path: content}, written into the scenario's own directory;
            "{tmp}" in env, args and contents is that directory
  expect    ok_exports / ok_json / ok_lines for exit 0, fail for the others

The builders only write a launcher's variables the way its documentation defines them (srun's
placement of tasks, Open MPI's rank variables, ...). Every expected answer is written by hand
from the launcher's documentation, docs/cluster-resolve.1 and the v0.4 contract, never from a
run of the CLI. Kubernetes pods leave out KUBERNETES_SERVICE_HOST/PORT: the answers must come
from the environment alone, and the suite stays off the network.
"""
import json as _json

# --------------------------------------------------------------------------------------------
# Expectations
# --------------------------------------------------------------------------------------------


def ok_exports(exports, at_least=False, absent=()):
    """`export NAME=VALUE` lines: exactly these variables (or at least these), none of absent."""
    return {"exit": 0, "exports": dict(exports), "at_least": at_least, "absent": list(absent)}


def ok_json(obj):
    """One JSON line equal to obj."""
    return {"exit": 0, "json": obj}


def ok_lines(lines):
    """Exactly these lines (each ended by a newline)."""
    return {"exit": 0, "lines": list(lines)}


def fail(code, *words, avoid=()):
    """Exit code, nothing on stdout, one stderr line `cluster-resolve: ...` containing every word
    (case-insensitive; a tuple of words means any one of them) and none of avoid."""
    return {"exit": code, "words": list(words), "avoid": list(avoid)}


SCENARIOS = []


def sc(name, launcher, source, env, args, expect, files=None):
    # A usage error on a line with --opt=value must be about the value, not a refusal of the
    # form itself ("unknown option --port=0" would name --port for the wrong reason).
    if expect["exit"] == 2 and any(a.startswith("--") and "=" in a for a in args):
        expect = dict(expect, avoid=expect["avoid"] + ["unknown option"])
    SCENARIOS.append({"name": name, "launcher": launcher, "source": source, "env": dict(env),
                      "args": list(args), "files": dict(files or {}), "expect": expect})


def torch_vars(addr, port, world, rank, local, local_world, group, group_world):
    """The eight variables of the torchrun format, as the user expects them."""
    return {"MASTER_ADDR": addr, "MASTER_PORT": str(port), "WORLD_SIZE": str(world),
            "RANK": str(rank), "LOCAL_RANK": str(local), "LOCAL_WORLD_SIZE": str(local_world),
            "GROUP_RANK": str(group), "GROUP_WORLD_SIZE": str(group_world)}


def launch(world, rank, local, local_world, node, nodes, addr, port):
    return {"world_size": world, "rank": rank, "local_rank": local,
            "local_world_size": local_world, "node_rank": node, "num_nodes": nodes,
            "master_addr": addr, "master_port": port}


def ports(host, base, n):
    return ["%s:%d" % (host, base + i) for i in range(n)]


# Formats that a coordinator-only source can answer: a refusal of tfconfig/spec/hostfile
# there must name them (at least "launch").
COORD_ONLY_WORDS = ("launch",)

# --------------------------------------------------------------------------------------------
# Slurm
# --------------------------------------------------------------------------------------------

SRC_SRUN = ("srun(1) OUTPUT ENVIRONMENT VARIABLES and -m/--distribution, SchedMD/slurm@284c3b95 "
            "doc/man/man1/srun.1; src/common/env.c setup_env() (SLURM_NODELIST, SLURM_NTASKS, "
            "SLURM_NTASKS_PER_NODE are the step's); variable set as in a real srun task "
            "environment on a Slurm 22.05.8 cluster")
SRC_SBATCH = ("sbatch(1) OUTPUT ENVIRONMENT VARIABLES, SchedMD/slurm@284c3b95 doc/man/man1/sbatch.1; "
              "variable set as in a real batch script on a Slurm 22.05.8 cluster (SLURM_PROCID=0, "
              "SLURM_GTIDS=0 and no SLURM_STEP_*)")
SRC_SALLOC = ("salloc(1) OUTPUT ENVIRONMENT VARIABLES, SchedMD/slurm@284c3b95 doc/man/man1/salloc.1 "
              "(the shell runs on the login node: no SLURM_PROCID, no SLURMD_NODENAME)")
SRC_GPU_NEW = ("SchedMD/slurm@284c3b95: src/common/env.c set_env_from_opts() exports SLURM_TRES_PER_TASK "
               "and SLURM_TRES_BIND to the tasks (since 23.11); src/common/slurm_opt.c: --gpus-per-task=N "
               "is tres_per_task gres/gpu=N and implies --tres-bind=gres/gpu:per_task:N, --gpu-bind=X is "
               "gres/gpu:X; src/plugins/gres/common/gres_common.c sets SLURM_STEP_GPUS, "
               "SLURM_GPUS_ON_NODE, and the gpu plugin CUDA_VISIBLE_DEVICES per task")
SRC_GPU_OLD = ("SchedMD/slurm tag slurm-23-02-7-1 src/common/env.c: set_env_from_opts() exports "
               "SLURM_GPUS_PER_TASK and SLURM_GPU_BIND, setup_env() SLURM_NTASKS_PER_GPU (22.05 to 23.02)")


def slurm_place(counts, dist="block", plane=1):
    """srun's placement: the node index of every rank, for per-node task counts."""
    total = sum(counts)
    left = list(counts)
    out = []
    if dist == "block":
        for n, c in enumerate(counts):
            out += [n] * c
        return out
    step = 1 if dist == "cyclic" else plane
    while len(out) < total:
        for n in range(len(counts)):
            take = min(step, left[n])
            out += [n] * take
            left[n] -= take
    return out


def slurm_step(nodes, counts, rank, nodelist, tpn, job_id=4242, dist=None, plane=None,
               job_nodelist=None, job_tpn=None, job_nnodes=None, ntasks_per_node=None,
               job_name="train", extra=None, nodename=True):
    """The environment srun gives task `rank` of a step on `nodes` with `counts` tasks each."""
    kind = dist.split("=")[0] if dist else "block"
    where = slurm_place(counts, kind, plane or 1)
    node = where[rank]
    on_node = [r for r, n in enumerate(where) if n == node]
    total = sum(counts)
    e = {
        "SLURM_CLUSTER_NAME": "hpc", "SLURM_CONF": "/etc/slurm/slurm.conf",
        "SLURM_CPUS_ON_NODE": str(counts[node]),
        "SLURM_GTIDS": ",".join(str(r) for r in on_node),
        "SLURM_JOBID": str(job_id), "SLURM_JOB_ID": str(job_id), "SLURM_JOB_NAME": job_name,
        "SLURM_JOB_NODELIST": job_nodelist or nodelist,
        "SLURM_JOB_NUM_NODES": str(job_nnodes or len(nodes)),
        "SLURM_JOB_CPUS_PER_NODE": job_tpn or tpn,
        "SLURM_JOB_PARTITION": "gpu", "SLURM_JOB_UID": "1000", "SLURM_JOB_GID": "1000",
        "SLURM_JOB_USER": "alice", "SLURM_LAUNCH_NODE_IPADDR": "10.1.0.1",
        "SLURM_LOCALID": str(on_node.index(rank)), "SLURM_NNODES": str(len(nodes)),
        "SLURM_NODEID": str(node), "SLURM_NODELIST": nodelist,
        "SLURM_NPROCS": str(total), "SLURM_NTASKS": str(total), "SLURM_PRIO_PROCESS": "0",
        "SLURM_PROCID": str(rank), "SLURM_SRUN_COMM_HOST": "10.1.0.1",
        "SLURM_SRUN_COMM_PORT": "45215", "SLURM_STEPID": "0", "SLURM_STEP_ID": "0",
        "SLURM_STEP_LAUNCHER_PORT": "45215", "SLURM_STEP_NODELIST": nodelist,
        "SLURM_STEP_NUM_NODES": str(len(nodes)), "SLURM_STEP_NUM_TASKS": str(total),
        "SLURM_STEP_TASKS_PER_NODE": tpn, "SLURM_SUBMIT_DIR": "/home/alice/run",
        "SLURM_SUBMIT_HOST": "login01", "SLURM_TASKS_PER_NODE": tpn,
        "SLURM_TASK_PID": str(31000 + rank), "SLURM_TOPOLOGY_ADDR": nodes[node],
        "SLURM_TOPOLOGY_ADDR_PATTERN": "node", "SLURM_UMASK": "0022",
        "SLURM_WORKING_CLUSTER": "hpc:slurmctld:6817:9728:109",
    }
    if nodename:
        e["SLURMD_NODENAME"] = nodes[node]
    if dist:
        e["SLURM_DISTRIBUTION"] = kind
    if plane:
        e["SLURM_DIST_PLANESIZE"] = str(plane)
    if ntasks_per_node:
        e["SLURM_NTASKS_PER_NODE"] = str(ntasks_per_node)
    e.update(extra or {})
    return e


N2 = ["node01", "node02"]


def step_2x4(rank, **kw):
    """srun -N2 --ntasks-per-node=4 in a job of node[01-02]."""
    kw.setdefault("ntasks_per_node", 4)
    return slurm_step(N2, [4, 4], rank, "node[01-02]", "4(x2)", **kw)


ALL8 = ports("node01", 8888, 4) + ports("node02", 8888, 4)

sc("srun-2x4-torchrun-rank5", "slurm", SRC_SRUN, step_2x4(5), ["--format", "torchrun"],
   ok_exports(torch_vars("node01", 8888, 8, 5, 1, 4, 1, 2)))
sc("srun-2x4-launch-rank0", "slurm", SRC_SRUN, step_2x4(0), ["--format", "launch"],
   ok_json(launch(8, 0, 0, 4, 0, 2, "node01", 8888)))
sc("srun-2x4-launch-rank7", "slurm", SRC_SRUN, step_2x4(7), ["--format", "launch"],
   ok_json(launch(8, 7, 3, 4, 1, 2, "node01", 8888)))
sc("srun-2x4-spec-rank7", "slurm", SRC_SRUN, step_2x4(7), ["--format", "spec"],
   ok_json({"worker": ALL8}))
sc("srun-2x4-tfconfig-rank5", "slurm", SRC_SRUN, step_2x4(5), [],
   ok_json({"cluster": {"worker": ALL8}, "task": {"type": "worker", "index": 5},
            "rpc_layer": "grpc", "environment": ""}))
sc("srun-2x4-hostfile-rank3", "slurm", SRC_SRUN, step_2x4(3), ["--format", "hostfile"],
   ok_lines(["node01 slots=4", "node02 slots=4"]))
sc("srun-2x4-machinefile-rank3", "slurm", SRC_SRUN, step_2x4(3), ["--format", "machinefile"],
   ok_lines(["node01:4", "node02:4"]))
sc("srun-2x4-master-rank5", "slurm", SRC_SRUN, step_2x4(5), ["--format", "master"],
   ok_lines(["grpc://node02:8889"]))
sc("srun-2x4-coordinator-rank6", "slurm", SRC_SRUN, step_2x4(6), ["--format", "coordinator"],
   ok_lines(["node01:8888"]))
sc("srun-2x4-jax-rank5", "slurm", SRC_SRUN, step_2x4(5), ["--format", "jax"],
   ok_exports({"JAX_COORDINATOR_ADDRESS": "node01:8888", "JAX_NUM_PROCESSES": "8",
               "JAX_PROCESS_ID": "5"}))
sc("srun-2x4-named-slurm-torchrun-rank2", "slurm", SRC_SRUN, step_2x4(2),
   ["slurm", "--format", "torchrun"],
   ok_exports(torch_vars("node01", 8888, 8, 2, 2, 4, 0, 2)))

# srun -N2 -n8 -m cyclic: rank r on node r % 2, its index there r // 2.
CYC = slurm_step(N2, [4, 4], 5, "node[01-02]", "4(x2)", dist="cyclic")
sc("srun-cyclic-torchrun-rank5", "slurm", SRC_SRUN, CYC, ["--format", "torchrun"],
   ok_exports(torch_vars("node01", 8888, 8, 5, 2, 4, 1, 2)))
sc("srun-cyclic-spec-rank5", "slurm", SRC_SRUN, CYC, ["--format", "spec"],
   ok_json({"worker": ["node01:8888", "node02:8888", "node01:8889", "node02:8889",
                       "node01:8890", "node02:8890", "node01:8891", "node02:8891"]}))
sc("srun-cyclic-master-rank5", "slurm", SRC_SRUN, CYC, ["--format", "master"],
   ok_lines(["grpc://node02:8890"]))

# srun -N2 -n6 -m pack on nodes of 4 CPUs: pack fills node01 first (4,2), laid out in blocks;
# srun writes SLURM_DISTRIBUTION=pack (SchedMD/slurm@284c3b95 src/common/proc_args.c
# set_distribution, src/common/slurm_step_layout.c _task_layout_block).
sc("srun-distribution-pack-torchrun-rank5", "slurm", SRC_SRUN,
   slurm_step(N2, [4, 2], 5, "node[01-02]", "4,2", extra={"SLURM_DISTRIBUTION": "pack"}),
   ["--format", "torchrun"], ok_exports(torch_vars("node01", 8888, 6, 5, 1, 2, 1, 2)))

# srun -N2 -n8 -m plane=2: ranks 0-1 node01, 2-3 node02, 4-5 node01, 6-7 node02.
PLANE = slurm_step(N2, [4, 4], 5, "node[01-02]", "4(x2)", dist="plane", plane=2)
sc("srun-plane2-torchrun-rank5", "slurm", SRC_SRUN, PLANE, ["--format", "torchrun"],
   ok_exports(torch_vars("node01", 8888, 8, 5, 3, 4, 0, 2)))
sc("srun-plane2-spec-rank0", "slurm", SRC_SRUN,
   slurm_step(N2, [4, 4], 0, "node[01-02]", "4(x2)", dist="plane", plane=2), ["--format", "spec"],
   ok_json({"worker": ["node01:8888", "node01:8889", "node02:8888", "node02:8889",
                       "node01:8890", "node01:8891", "node02:8890", "node02:8891"]}))

# srun -N4 -n7: tasks per node "2(x3),1", block.
G4 = ["gpu1", "gpu2", "gpu3", "gpu4"]


def het7(rank):
    return slurm_step(G4, [2, 2, 2, 1], rank, "gpu[1-4]", "2(x3),1")


sc("srun-het-2x3-1-torchrun-rank6", "slurm", SRC_SRUN, het7(6), ["--format", "torchrun"],
   ok_exports(torch_vars("gpu1", 8888, 7, 6, 0, 1, 3, 4)))
sc("srun-het-2x3-1-launch-rank3", "slurm", SRC_SRUN, het7(3), ["--format", "launch"],
   ok_json(launch(7, 3, 1, 2, 1, 4, "gpu1", 8888)))
sc("srun-het-2x3-1-spec-rank0", "slurm", SRC_SRUN, het7(0), ["--format", "spec"],
   ok_json({"worker": ["gpu1:8888", "gpu1:8889", "gpu2:8888", "gpu2:8889", "gpu3:8888",
                       "gpu3:8889", "gpu4:8888"]}))
sc("srun-het-2x3-1-hostfile-rank4", "slurm", SRC_SRUN, het7(4), ["--format", "hostfile"],
   ok_lines(["gpu1 slots=2", "gpu2 slots=2", "gpu3 slots=2", "gpu4 slots=1"]))

# A real capture: task 5 of `srun -N4 -n8` on a Slurm 22.05.8 test cluster, as printed by env
# (this capture has no SLURMD_NODENAME).
CAPTURE_N4_N8_RANK5 = {
    "SLURM_CLUSTER_NAME": "testcluster", "SLURM_CONF": "/etc/slurm/slurm.conf",
    "SLURM_CPUS_ON_NODE": "2", "SLURM_GTIDS": "4,5", "SLURM_JOBID": "5",
    "SLURM_JOB_CPUS_PER_NODE": "4,2,1(x2)", "SLURM_JOB_GID": "0", "SLURM_JOB_ID": "5",
    "SLURM_JOB_NAME": "bash", "SLURM_JOB_NODELIST": "node[1-4]", "SLURM_JOB_NUM_NODES": "4",
    "SLURM_JOB_PARTITION": "debug", "SLURM_JOB_UID": "0", "SLURM_JOB_USER": "root",
    "SLURM_LAUNCH_NODE_IPADDR": "127.0.0.1", "SLURM_LOCALID": "1", "SLURM_NNODES": "4",
    "SLURM_NODEID": "1", "SLURM_NODELIST": "node[1-4]", "SLURM_NPROCS": "8", "SLURM_NTASKS": "8",
    "SLURM_PRIO_PROCESS": "0", "SLURM_PROCID": "5", "SLURM_SRUN_COMM_HOST": "127.0.0.1",
    "SLURM_SRUN_COMM_PORT": "45215", "SLURM_STEPID": "0", "SLURM_STEP_ID": "0",
    "SLURM_STEP_LAUNCHER_PORT": "45215", "SLURM_STEP_NODELIST": "node[1-4]",
    "SLURM_STEP_NUM_NODES": "4", "SLURM_STEP_NUM_TASKS": "8",
    "SLURM_STEP_TASKS_PER_NODE": "4,2,1(x2)", "SLURM_SUBMIT_DIR": "/root/envs/slurm",
    "SLURM_SUBMIT_HOST": "vm", "SLURM_TASKS_PER_NODE": "4,2,1(x2)", "SLURM_TASK_PID": "5887",
    "SLURM_TOPOLOGY_ADDR": "node2", "SLURM_TOPOLOGY_ADDR_PATTERN": "node", "SLURM_UMASK": "0022",
    "SLURM_WORKING_CLUSTER": "testcluster:vm:6817:9728:109",
}
SRC_CAPTURE = "a real srun -N4 -n8 task environment (task 5), Slurm 22.05.8 test cluster node[1-4]"
sc("srun-capture-n4n8-torchrun-rank5", "slurm", SRC_CAPTURE, CAPTURE_N4_N8_RANK5,
   ["--format", "torchrun"], ok_exports(torch_vars("node1", 8888, 8, 5, 1, 2, 1, 4)))
sc("srun-capture-n4n8-hostfile-rank5", "slurm", SRC_CAPTURE, CAPTURE_N4_N8_RANK5,
   ["--format", "hostfile"],
   ok_lines(["node1 slots=4", "node2 slots=2", "node3 slots=1", "node4 slots=1"]))

# Real layouts seen on the same cluster: `srun -N4 -n8 -m cyclic` gave "5,1(x3)" with ranks 0-3
# on node1-node4 then 4-7 on node1; `srun -w node[1,3-4] -n5` gave "3,1(x2)".
N4 = ["node1", "node2", "node3", "node4"]
SRC_CAPTURE_LAYOUT = SRC_SRUN + "; layout as printed by srun on the Slurm 22.05.8 test cluster"
sc("srun-cyclic-5-1x3-torchrun-rank7", "slurm", SRC_CAPTURE_LAYOUT,
   slurm_step(N4, [5, 1, 1, 1], 7, "node[1-4]", "5,1(x3)", dist="cyclic"), ["--format", "torchrun"],
   ok_exports(torch_vars("node1", 8888, 8, 7, 4, 5, 0, 4)))
sc("srun-cyclic-5-1x3-launch-rank3", "slurm", SRC_CAPTURE_LAYOUT,
   slurm_step(N4, [5, 1, 1, 1], 3, "node[1-4]", "5,1(x3)", dist="cyclic"), ["--format", "launch"],
   ok_json(launch(8, 3, 0, 1, 3, 4, "node1", 8888)))
sc("srun-w-list-torchrun-rank4", "slurm", SRC_CAPTURE_LAYOUT,
   slurm_step(["node1", "node3", "node4"], [3, 1, 1], 4, "node[1,3-4]", "3,1(x2)",
              job_nodelist="node[1-4]", job_tpn="2(x4)", job_nnodes=4),
   ["--format", "torchrun"], ok_exports(torch_vars("node1", 8888, 5, 4, 0, 1, 2, 3)))

# A sub-step: job node[1-4] with --ntasks-per-node=2 (SLURM_NTASKS_PER_NODE=2 stays in the
# environment srun passes on), `srun -N2 -n3 -r1` gives node[2-3] "2,1" (real capture layout).
SUB = slurm_step(["node2", "node3"], [2, 1], 2, "node[2-3]", "2,1", job_nodelist="node[1-4]",
                 job_tpn="2(x4)", job_nnodes=4, job_name="multienv",
                 extra={"SLURM_NTASKS_PER_NODE": "2"})
sc("srun-substep-torchrun-rank2", "slurm", SRC_CAPTURE_LAYOUT, SUB, ["--format", "torchrun"],
   ok_exports(torch_vars("node2", 8888, 3, 2, 0, 1, 1, 2)))
sc("srun-substep-hostfile-rank0", "slurm", SRC_CAPTURE_LAYOUT,
   slurm_step(["node2", "node3"], [2, 1], 0, "node[2-3]", "2,1", job_nodelist="node[1-4]",
              job_tpn="2(x4)", job_nnodes=4, extra={"SLURM_NTASKS_PER_NODE": "2"}),
   ["--format", "hostfile"], ok_lines(["node2 slots=2", "node3 slots=1"]))

# srun -n1: a cluster of one task. master is TensorFlow's master() of each resolver: TF's
# SlurmClusterResolver gives the own task's address (only TF_CONFIG's and SageMaker's give ""
# for one task), with the slurm backend's rpc layer.
ONE = slurm_step(["node01"], [1], 0, "node01", "1")
sc("srun-n1-master-own-address", "slurm", SRC_SRUN, ONE, ["--format", "master"],
   ok_lines(["grpc://node01:8888"]))
sc("srun-n1-torchrun", "slurm", SRC_SRUN, ONE, ["--format", "torchrun"],
   ok_exports(torch_vars("node01", 8888, 1, 0, 0, 1, 0, 1)))

# The user's own exports in the batch script reach every srun task.
sc("srun-user-master-port-kept", "slurm",
   SRC_SRUN + "; `export MASTER_PORT=29500` in the sbatch script (srun propagates the environment)",
   step_2x4(5, extra={"MASTER_PORT": "29500"}), ["--format", "torchrun"],
   ok_exports(torch_vars("node01", 29500, 8, 5, 1, 4, 1, 2)))
sc("srun-user-master-port-kept-launch", "slurm",
   SRC_SRUN + "; `export MASTER_PORT=29500` in the sbatch script",
   step_2x4(2, extra={"MASTER_PORT": "29500"}), ["--format", "launch"],
   ok_json(launch(8, 2, 2, 4, 0, 2, "node01", 29500)))
sc("srun-user-master-addr-port-coordinator", "slurm",
   SRC_SRUN + "; MASTER_ADDR=$(scontrol show hostnames | head -n1), MASTER_PORT=29500 exported "
   "in the sbatch script (Lightning's SLURM recipe)",
   step_2x4(5, extra={"MASTER_ADDR": "node01", "MASTER_PORT": "29500"}),
   ["--format", "coordinator"], ok_lines(["node01:29500"]))
sc("srun-user-master-addr-port-jax", "slurm",
   SRC_SRUN + "; MASTER_ADDR/MASTER_PORT exported in the sbatch script",
   step_2x4(5, extra={"MASTER_ADDR": "node01", "MASTER_PORT": "29500"}), ["--format", "jax"],
   ok_exports({"JAX_COORDINATOR_ADDRESS": "node01:29500", "JAX_NUM_PROCESSES": "8",
               "JAX_PROCESS_ID": "5"}))
sc("srun-user-ib-master-addr-kept", "slurm",
   SRC_SRUN + "; MASTER_ADDR=\"${node}i\" (the InfiniBand name, as JSC's recipes export it)",
   step_2x4(5, extra={"MASTER_ADDR": "node01i", "MASTER_PORT": "29500"}), ["--format", "torchrun"],
   ok_exports(torch_vars("node01i", 29500, 8, 5, 1, 4, 1, 2)))
sc("srun-user-torchrun-node-master-port-kept", "slurm",
   SRC_SRUN + "; `export MASTER_PORT=29500` in the sbatch script",
   slurm_step(N2, [1, 1], 1, "node[01-02]", "1(x2)", ntasks_per_node=1,
              extra={"MASTER_PORT": "29500"}),
   ["--format", "torchrun-node"],
   ok_exports({"PET_NNODES": "2", "PET_NODE_RANK": "1", "PET_MASTER_ADDR": "node01",
               "PET_MASTER_PORT": "29500"}))
sc("srun-user-world-size-agrees", "slurm",
   SRC_SRUN + "; `export WORLD_SIZE=$SLURM_NTASKS` in the sbatch script",
   step_2x4(5, extra={"WORLD_SIZE": "8"}), ["--format", "torchrun"],
   ok_exports(torch_vars("node01", 8888, 8, 5, 1, 4, 1, 2)))
sc("srun-user-world-size-16-in-4-task-step", "slurm",
   SRC_SRUN + "; `export WORLD_SIZE=16` left in the sbatch script, step srun -N1 -n4",
   slurm_step(["node01"], [4], 2, "node01", "4", extra={"WORLD_SIZE": "16"}),
   ["--format", "torchrun"], fail(3, "WORLD_SIZE", "16"))
sc("srun-user-local-rank-0-contradicts", "slurm",
   SRC_SRUN + "; `export LOCAL_RANK=0` left in the sbatch script, task 5 is local 1",
   step_2x4(5, extra={"LOCAL_RANK": "0"}), ["--format", "torchrun"], fail(3, "LOCAL_RANK"))
sc("srun-user-rank-agrees", "slurm",
   SRC_SRUN + "; srun bash -c 'RANK=$SLURM_PROCID cluster-resolve ...'",
   step_2x4(6, extra={"RANK": "6"}), ["--format", "launch"],
   ok_json(launch(8, 6, 2, 4, 1, 2, "node01", 8888)))

# Ports, jobs and tasks from the command line.
sc("srun-port-auto", "slurm", SRC_SRUN, step_2x4(5), ["--port", "29500", "--format", "torchrun"],
   ok_exports(torch_vars("node01", 29500, 8, 5, 1, 4, 1, 2)))
sc("srun-port-auto-spec", "slurm", SRC_SRUN, step_2x4(0), ["--port=29500", "--format=spec"],
   ok_json({"worker": ports("node01", 29500, 4) + ports("node02", 29500, 4)}))
sc("srun-port-named", "slurm", SRC_SRUN, step_2x4(5), ["slurm", "--port", "29500", "--format", "master"],
   ok_lines(["grpc://node02:29501"]))
sc("srun-port-base-named-coordinator", "slurm", SRC_SRUN, step_2x4(3),
   ["slurm", "--port-base=29500", "--format", "coordinator"], ok_lines(["node01:29500"]))
sc("srun-format-equals", "slurm", SRC_SRUN, step_2x4(5), ["--format=torchrun"],
   ok_exports(torch_vars("node01", 8888, 8, 5, 1, 4, 1, 2)))
sc("srun-jobs-chief-worker-tfconfig", "slurm", SRC_SRUN, step_2x4(5),
   ["--jobs", "chief=1,worker=7"],
   ok_json({"cluster": {"chief": ["node01:8888"],
                        "worker": ports("node01", 8889, 3) + ports("node02", 8888, 4)},
            "task": {"type": "worker", "index": 4}, "rpc_layer": "grpc", "environment": ""}))
sc("srun-jobs-equals-worker-ps-spec", "slurm", SRC_SRUN, step_2x4(0),
   ["slurm", "--jobs=worker=6,ps=2", "--format", "spec"],
   ok_json({"ps": ["node01:8888", "node01:8889"],
            "worker": ["node01:8890", "node01:8891"] + ports("node02", 8888, 4)}))
sc("srun-task-id-99-not-in-cluster", "slurm", SRC_SRUN, step_2x4(5),
   ["--task-type", "worker", "--task-id", "99"], fail(3, "99"))
sc("srun-task-equals-master", "slurm", SRC_SRUN, step_2x4(5),
   ["--task-type=worker", "--task-id=3", "--format=master"], ok_lines(["grpc://node01:8891"]))
sc("srun-rpc-layer-empty-master", "slurm", SRC_SRUN, step_2x4(5),
   ["--rpc-layer", "", "--format", "master"], ok_lines(["node02:8889"]))
sc("srun-rpc-layer-equals-master", "slurm", SRC_SRUN, step_2x4(5),
   ["--rpc-layer=grpc+verbs", "--format", "master"], ok_lines(["grpc+verbs://node02:8889"]))
sc("srun-forced-local-on-purpose", "slurm",
   SRC_SRUN + "; CLUSTER_RESOLVER_BACKEND=local set by hand (cluster-resolve(1) EXAMPLES)",
   step_2x4(5, extra={"CLUSTER_RESOLVER_BACKEND": "local"}), ["--format", "launch"],
   ok_json(launch(1, 0, 0, 1, 0, 1, "localhost", 8470)))
sc("srun-named-local-on-purpose", "slurm", SRC_SRUN, step_2x4(5), ["local", "--format", "launch"],
   ok_json(launch(1, 0, 0, 1, 0, 1, "localhost", 8470)))
sc("srun-torchrun-node-2-per-node", "slurm", SRC_SRUN,
   slurm_step(N2, [2, 2], 1, "node[01-02]", "2(x2)", ntasks_per_node=2),
   ["--format", "torchrun-node"], fail(3, "torchrun-node"))

# GPUs. A node's list with no binding (srun --gpus-per-node=4 --ntasks-per-node=4): every task
# sees the node's four; the contract narrows it to the task's share.
NODE_GPUS = {"CUDA_VISIBLE_DEVICES": "0,1,2,3", "GPU_DEVICE_ORDINAL": "0,1,2,3",
             "SLURM_STEP_GPUS": "0,1,2,3", "SLURM_GPUS_ON_NODE": "4", "SLURM_GPUS_PER_NODE": "4"}
sc("srun-gpus-node-list-torchrun-rank5", "slurm-gpu", SRC_GPU_NEW, step_2x4(5, extra=NODE_GPUS),
   ["--format", "torchrun"],
   ok_exports(dict(torch_vars("node01", 8888, 8, 5, 1, 4, 1, 2), CUDA_VISIBLE_DEVICES="1")))
sc("srun-gpus-node-list-jax-rank5", "slurm-gpu", SRC_GPU_NEW, step_2x4(5, extra=NODE_GPUS),
   ["--format", "jax"],
   ok_exports({"JAX_COORDINATOR_ADDRESS": "node01:8888", "JAX_NUM_PROCESSES": "8",
               "JAX_PROCESS_ID": "5", "CUDA_VISIBLE_DEVICES": "1"}, at_least=True))
NODE_GPUS8 = {"CUDA_VISIBLE_DEVICES": "0,1,2,3,4,5,6,7", "SLURM_STEP_GPUS": "0,1,2,3,4,5,6,7",
              "SLURM_GPUS_ON_NODE": "8", "SLURM_GPUS_PER_NODE": "8"}
sc("srun-gpus-8-for-4-tasks-rank5", "slurm-gpu", SRC_GPU_NEW, step_2x4(5, extra=NODE_GPUS8),
   ["--format", "torchrun"],
   ok_exports(dict(torch_vars("node01", 8888, 8, 5, 1, 4, 1, 2), CUDA_VISIBLE_DEVICES="2,3")))
sc("srun-gpus-per-task-option-from-node-list", "slurm-gpu", SRC_GPU_NEW,
   step_2x4(5, extra=NODE_GPUS8), ["slurm", "--gpus-per-task=2", "--format", "torchrun"],
   ok_exports(dict(torch_vars("node01", 8888, 8, 5, 1, 4, 1, 2), CUDA_VISIBLE_DEVICES="2,3")))
# srun -N2 -n3 --gpus-per-node=4: block puts 2 and 1 tasks on the nodes and each task sees its
# node's four; each node's GPUs are shared among that node's tasks, so the lone task on node02
# gets all four and node01's two get two each.
sc("srun-gpus-lone-task-on-node-gets-all", "slurm-gpu", SRC_GPU_NEW + " (srun -N2 -n3: '2,1')",
   slurm_step(N2, [2, 1], 2, "node[01-02]", "2,1", extra=NODE_GPUS), ["--format", "torchrun"],
   ok_exports(dict(torch_vars("node01", 8888, 3, 2, 0, 1, 1, 2), CUDA_VISIBLE_DEVICES="0,1,2,3")))
sc("srun-gpus-two-tasks-on-node-get-half", "slurm-gpu", SRC_GPU_NEW + " (srun -N2 -n3: '2,1')",
   slurm_step(N2, [2, 1], 1, "node[01-02]", "2,1", extra=NODE_GPUS), ["--format", "torchrun"],
   ok_exports(dict(torch_vars("node01", 8888, 3, 1, 1, 2, 0, 2), CUDA_VISIBLE_DEVICES="2,3")))
sc("srun-gpus-per-node-option-no-cuda-env", "slurm-gpu",
   SRC_SRUN + "; a cluster without GPU gres: Slurm sets no CUDA_VISIBLE_DEVICES",
   step_2x4(5), ["slurm", "--gpus-per-node", "4", "--format", "torchrun"],
   ok_exports(dict(torch_vars("node01", 8888, 8, 5, 1, 4, 1, 2), CUDA_VISIBLE_DEVICES="1")))

# Lists Slurm already bound per task: passed on, never narrowed again, not exported.
BOUND_NEW = {"CUDA_VISIBLE_DEVICES": "1", "GPU_DEVICE_ORDINAL": "1", "SLURM_STEP_GPUS": "1",
             "SLURM_GPUS_ON_NODE": "1", "SLURM_TRES_PER_TASK": "gres/gpu=1",
             "SLURM_TRES_BIND": "gres/gpu:per_task:1"}
sc("srun-gpus-per-task-bound-torchrun", "slurm-gpu", SRC_GPU_NEW, step_2x4(5, extra=BOUND_NEW),
   ["--format", "torchrun"], ok_exports(torch_vars("node01", 8888, 8, 5, 1, 4, 1, 2)))
sc("srun-gpus-per-task-bound-jax", "slurm-gpu", SRC_GPU_NEW, step_2x4(5, extra=BOUND_NEW),
   ["--format", "jax"],
   ok_exports({"JAX_COORDINATOR_ADDRESS": "node01:8888", "JAX_NUM_PROCESSES": "8",
               "JAX_PROCESS_ID": "5"}, at_least=True, absent=["CUDA_VISIBLE_DEVICES"]))
BOUND_OLD = {"CUDA_VISIBLE_DEVICES": "1", "GPU_DEVICE_ORDINAL": "1", "SLURM_STEP_GPUS": "1",
             "SLURM_GPUS_ON_NODE": "1", "SLURM_GPUS_PER_TASK": "1"}
sc("srun-gpus-per-task-bound-slurm23-torchrun", "slurm-gpu", SRC_GPU_OLD,
   step_2x4(5, extra=BOUND_OLD), ["--format", "torchrun"],
   ok_exports(torch_vars("node01", 8888, 8, 5, 1, 4, 1, 2)))
sc("srun-gpu-bind-closest-torchrun", "slurm-gpu", SRC_GPU_NEW,
   step_2x4(6, extra={"CUDA_VISIBLE_DEVICES": "2", "GPU_DEVICE_ORDINAL": "2",
                      "SLURM_STEP_GPUS": "2", "SLURM_GPUS_ON_NODE": "1",
                      "SLURM_GPUS_PER_NODE": "4", "SLURM_TRES_BIND": "gres/gpu:closest"}),
   ["--format", "torchrun"], ok_exports(torch_vars("node01", 8888, 8, 6, 2, 4, 1, 2)))
sc("srun-gpu-bind-closest-slurm23-torchrun", "slurm-gpu", SRC_GPU_OLD,
   step_2x4(6, extra={"CUDA_VISIBLE_DEVICES": "2", "GPU_DEVICE_ORDINAL": "2",
                      "SLURM_STEP_GPUS": "2", "SLURM_GPUS_PER_NODE": "4",
                      "SLURM_GPU_BIND": "closest"}),
   ["--format", "torchrun"], ok_exports(torch_vars("node01", 8888, 8, 6, 2, 4, 1, 2)))
sc("srun-gpu-bind-none-torchrun", "slurm-gpu",
   SRC_GPU_NEW + "; --gpu-bind=none: every task sees the step's GPUs on purpose (contract: a "
   "--gpu-bind list is passed on unchanged)",
   step_2x4(5, extra=dict(NODE_GPUS, SLURM_TRES_BIND="gres/gpu:none")), ["--format", "torchrun"],
   ok_exports(torch_vars("node01", 8888, 8, 5, 1, 4, 1, 2)))
sc("srun-ntasks-per-gpu-torchrun", "slurm-gpu", SRC_GPU_NEW + "; " + SRC_GPU_OLD,
   slurm_step(["node01"], [8], 3, "node01", "8",
              extra={"CUDA_VISIBLE_DEVICES": "1", "GPU_DEVICE_ORDINAL": "1",
                     "SLURM_STEP_GPUS": "1", "SLURM_GPUS_ON_NODE": "1",
                     "SLURM_NTASKS_PER_GPU": "2"}),
   ["--format", "torchrun"], ok_exports(torch_vars("node01", 8888, 8, 3, 3, 8, 0, 1)))

# sbatch: the batch script is not a task of a step. Allocation formats list the allocation.
SBATCH_2x4 = {
    "SLURMD_NODENAME": "node01", "SLURM_CLUSTER_NAME": "hpc", "SLURM_CONF": "/etc/slurm/slurm.conf",
    "SLURM_CPUS_ON_NODE": "4", "SLURM_GTIDS": "0", "SLURM_JOBID": "4242",
    "SLURM_JOB_CPUS_PER_NODE": "4(x2)", "SLURM_JOB_GID": "1000", "SLURM_JOB_ID": "4242",
    "SLURM_JOB_NAME": "train", "SLURM_JOB_NODELIST": "node[01-02]", "SLURM_JOB_NUM_NODES": "2",
    "SLURM_JOB_PARTITION": "gpu", "SLURM_JOB_UID": "1000", "SLURM_JOB_USER": "alice",
    "SLURM_LOCALID": "0", "SLURM_NNODES": "2", "SLURM_NODEID": "0", "SLURM_NODELIST": "node[01-02]",
    "SLURM_NODE_ALIASES": "(null)", "SLURM_NPROCS": "8", "SLURM_NTASKS": "8",
    "SLURM_NTASKS_PER_NODE": "4", "SLURM_PRIO_PROCESS": "0", "SLURM_PROCID": "0",
    "SLURM_SUBMIT_DIR": "/home/alice/run", "SLURM_SUBMIT_HOST": "login01",
    "SLURM_TASKS_PER_NODE": "4(x2)", "SLURM_TASK_PID": "30001", "SLURM_TOPOLOGY_ADDR": "node01",
    "SLURM_TOPOLOGY_ADDR_PATTERN": "node", "SLURM_WORKING_CLUSTER": "hpc:slurmctld:6817:9728:109",
}
sc("sbatch-script-hostfile", "sbatch", SRC_SBATCH, SBATCH_2x4, ["--format", "hostfile"],
   ok_lines(["node01 slots=4", "node02 slots=4"]))
sc("sbatch-script-machinefile-named", "sbatch", SRC_SBATCH, SBATCH_2x4,
   ["slurm", "--format", "machinefile"], ok_lines(["node01:4", "node02:4"]))
sc("sbatch-script-torchrun-refused", "sbatch", SRC_SBATCH, SBATCH_2x4, ["--format", "torchrun"],
   fail(3, "srun"))
sc("sbatch-script-launch-refused", "sbatch", SRC_SBATCH, SBATCH_2x4, ["--format", "launch"],
   fail(3, "srun"))
# the script exports what the srun to come will need (Lightning's and torchrun's recipes): no
# process has a RANK yet, so the allocation still answers, and nothing checks those sizes
sc("sbatch-script-own-exports-hostfile", "sbatch",
   SRC_SBATCH + "; `export MASTER_ADDR=node01 MASTER_PORT=29500 WORLD_SIZE=32` in the script",
   dict(SBATCH_2x4, MASTER_ADDR="node01", MASTER_PORT="29500", WORLD_SIZE="32"),
   ["--format", "hostfile"], ok_lines(["node01 slots=4", "node02 slots=4"]))
# sbatch -N1 : -N2 (a heterogeneous job): the script's plain variables are the first
# component's, the others in SLURM_*_HET_GROUP_<n>: refused naming SLURM_HET_SIZE, never a
# hostfile of the first component alone.
SBATCH_HET = dict(SBATCH_2x4, SLURM_JOB_NODELIST="node01", SLURM_NODELIST="node01",
                  SLURM_JOB_NUM_NODES="1", SLURM_NNODES="1", SLURM_TASKS_PER_NODE="4",
                  SLURM_JOB_CPUS_PER_NODE="4", SLURM_NTASKS="4", SLURM_NPROCS="4",
                  SLURM_HET_SIZE="2", SLURM_PACK_SIZE="2", SLURM_JOB_ID_HET_GROUP_0="4242",
                  SLURM_JOB_ID_HET_GROUP_1="4243", SLURM_JOB_NODELIST_HET_GROUP_0="node01",
                  SLURM_JOB_NODELIST_HET_GROUP_1="node[02-03]",
                  SLURM_JOB_NUM_NODES_HET_GROUP_0="1", SLURM_JOB_NUM_NODES_HET_GROUP_1="2",
                  SLURM_TASKS_PER_NODE_HET_GROUP_0="4", SLURM_TASKS_PER_NODE_HET_GROUP_1="4(x2)")
sc("sbatch-het-job-script-hostfile-refused", "sbatch",
   SRC_SBATCH + "; SchedMD/slurm@284c3b95 src/slurmctld/job_scheduler.c _set_het_job_env() and "
   "doc/html/heterogeneous_jobs.shtml (SLURM_HET_SIZE, SLURM_*_HET_GROUP_<n>)",
   SBATCH_HET, ["--format", "hostfile"], fail(3, "SLURM_HET_SIZE"))
sc("sbatch-script-n5-over-2-nodes-hostfile", "sbatch", SRC_SBATCH,
   dict(SBATCH_2x4, SLURM_NTASKS="5", SLURM_NPROCS="5", SLURM_TASKS_PER_NODE="3,2",
        SLURM_JOB_CPUS_PER_NODE="3,2", SLURM_CPUS_ON_NODE="3", SLURM_NTASKS_PER_NODE=None),
   ["--format", "hostfile"], ok_lines(["node01 slots=3", "node02 slots=2"]))
CAPTURE_SBATCH_MULTI = {
    "SLURMD_NODENAME": "node1", "SLURM_CLUSTER_NAME": "testcluster",
    "SLURM_CONF": "/etc/slurm/slurm.conf", "SLURM_CPUS_ON_NODE": "2", "SLURM_GTIDS": "0",
    "SLURM_JOBID": "9", "SLURM_JOB_CPUS_PER_NODE": "2(x4)", "SLURM_JOB_GID": "0",
    "SLURM_JOB_ID": "9", "SLURM_JOB_NAME": "multienv", "SLURM_JOB_NODELIST": "node[1-4]",
    "SLURM_JOB_NUM_NODES": "4", "SLURM_JOB_PARTITION": "debug", "SLURM_JOB_UID": "0",
    "SLURM_JOB_USER": "root", "SLURM_LOCALID": "0", "SLURM_NNODES": "4", "SLURM_NODEID": "0",
    "SLURM_NODELIST": "node[1-4]", "SLURM_NODE_ALIASES": "(null)", "SLURM_NPROCS": "8",
    "SLURM_NTASKS": "8", "SLURM_NTASKS_PER_NODE": "2", "SLURM_PRIO_PROCESS": "0",
    "SLURM_PROCID": "0", "SLURM_SUBMIT_DIR": "/root/envs/slurm", "SLURM_SUBMIT_HOST": "vm",
    "SLURM_TASKS_PER_NODE": "2(x4)", "SLURM_TASK_PID": "6487", "SLURM_TOPOLOGY_ADDR": "node1",
    "SLURM_TOPOLOGY_ADDR_PATTERN": "node", "SLURM_WORKING_CLUSTER": "testcluster:vm:6817:9728:109",
}
sc("sbatch-capture-n4-hostfile", "sbatch",
   "a real batch-script environment (sbatch -N4 --ntasks-per-node=2), Slurm 22.05.8 test cluster",
   CAPTURE_SBATCH_MULTI, ["--format", "hostfile"],
   ok_lines(["node1 slots=2", "node2 slots=2", "node3 slots=2", "node4 slots=2"]))
sc("sbatch-n1-hostfile", "sbatch", SRC_SBATCH,
   dict(SBATCH_2x4, SLURM_JOB_NODELIST="node01", SLURM_NODELIST="node01", SLURM_JOB_NUM_NODES="1",
        SLURM_NNODES="1", SLURM_NTASKS="1", SLURM_NPROCS="1", SLURM_TASKS_PER_NODE="1",
        SLURM_JOB_CPUS_PER_NODE="1", SLURM_CPUS_ON_NODE="1", SLURM_NTASKS_PER_NODE=None),
   ["--format", "hostfile"], ok_lines(["node01 slots=1"]))

# salloc -N2 --ntasks-per-node=4: the shell on the login node.
SALLOC_2x4 = {
    "SLURM_CLUSTER_NAME": "hpc", "SLURM_JOBID": "4243", "SLURM_JOB_ID": "4243",
    "SLURM_JOB_NAME": "interactive", "SLURM_JOB_NODELIST": "node[01-02]",
    "SLURM_JOB_NUM_NODES": "2", "SLURM_JOB_CPUS_PER_NODE": "4(x2)", "SLURM_JOB_PARTITION": "gpu",
    "SLURM_JOB_QOS": "normal", "SLURM_JOB_ACCOUNT": "ml", "SLURM_NNODES": "2",
    "SLURM_NODELIST": "node[01-02]", "SLURM_NPROCS": "8", "SLURM_NTASKS": "8",
    "SLURM_NTASKS_PER_NODE": "4", "SLURM_TASKS_PER_NODE": "4(x2)",
    "SLURM_SUBMIT_DIR": "/home/alice/run", "SLURM_SUBMIT_HOST": "login01",
}
sc("salloc-shell-hostfile", "salloc", SRC_SALLOC, SALLOC_2x4, ["--format", "hostfile"],
   ok_lines(["node01 slots=4", "node02 slots=4"]))
sc("salloc-shell-machinefile-named", "salloc", SRC_SALLOC, SALLOC_2x4,
   ["slurm", "--format", "machinefile"], ok_lines(["node01:4", "node02:4"]))
sc("salloc-shell-torchrun-not-alone", "salloc", SRC_SALLOC, SALLOC_2x4, ["--format", "torchrun"],
   fail(3, ("srun", "SLURM_")))
sc("salloc-shell-launch-not-alone", "salloc", SRC_SALLOC, SALLOC_2x4, ["--format", "launch"],
   fail(3, ("srun", "SLURM_")))

# One torchrun per node, started by srun (cluster-resolve(1) EXAMPLES).
def per_node(rank, n=2, **kw):
    nodes = ["node%02d" % (i + 1) for i in range(n)]
    return slurm_step(nodes, [1] * n, rank, "node[01-%02d]" % n, "1(x%d)" % n, ntasks_per_node=1, **kw)


sc("srun-per-node-torchrun-node-rank1", "torchrun-node", SRC_SRUN, per_node(1),
   ["--format", "torchrun-node"],
   ok_exports({"PET_NNODES": "2", "PET_NODE_RANK": "1", "PET_MASTER_ADDR": "node01",
               "PET_MASTER_PORT": "8888"}))
sc("srun-per-node-torchrun-node-port", "torchrun-node", SRC_SRUN, per_node(0),
   ["--port", "29500", "--format", "torchrun-node"],
   ok_exports({"PET_NNODES": "2", "PET_NODE_RANK": "0", "PET_MASTER_ADDR": "node01",
               "PET_MASTER_PORT": "29500"}))
sc("srun-per-node-torchrun-node-4-nodes-equals", "torchrun-node", SRC_SRUN, per_node(3, n=4),
   ["--format=torchrun-node"],
   ok_exports({"PET_NNODES": "4", "PET_NODE_RANK": "3", "PET_MASTER_ADDR": "node01",
               "PET_MASTER_PORT": "8888"}))
sc("srun-per-node-torchrun-node-with-gpus", "torchrun-node", SRC_SRUN + "; " + SRC_GPU_NEW,
   per_node(1, extra=NODE_GPUS), ["--format", "torchrun-node"],
   ok_exports({"PET_NNODES": "2", "PET_NODE_RANK": "1", "PET_MASTER_ADDR": "node01",
               "PET_MASTER_PORT": "8888"}))

# --------------------------------------------------------------------------------------------
# torchrun workers
# --------------------------------------------------------------------------------------------

SRC_TORCHRUN = ("pytorch/pytorch@001077cb torch/distributed/elastic/agent/server/"
                "local_elastic_agent.py _start_workers() and _set_local_rank_env()")


def torchrun_worker(rank, local, lws, group, gws, addr, port, run_id="4242", extra=None):
    e = {"RANK": str(rank), "GROUP_RANK": str(group), "ROLE_RANK": str(rank), "ROLE_NAME": "default",
         "LOCAL_WORLD_SIZE": str(lws), "WORLD_SIZE": str(lws * gws), "GROUP_WORLD_SIZE": str(gws),
         "ROLE_WORLD_SIZE": str(lws * gws), "MASTER_ADDR": addr, "MASTER_PORT": str(port),
         "TORCHELASTIC_RESTART_COUNT": "0", "TORCHELASTIC_MAX_RESTARTS": "0",
         "TORCHELASTIC_RUN_ID": run_id, "TORCHELASTIC_USE_AGENT_STORE": "True",
         "TORCH_NCCL_ASYNC_ERROR_HANDLING": "1", "LOCAL_RANK": str(local),
         "OMP_NUM_THREADS": "1",
         "TORCHELASTIC_ERROR_FILE": "/tmp/torchelastic_x1/%s_y/attempt_0/%d/error.json" % (run_id, local)}
    e.update(extra or {})
    return e


# srun -N2 --ntasks-per-node=1 torchrun --nnodes=2 --nproc-per-node=4 --rdzv-backend=c10d
# --rdzv-endpoint=node01:29400 --rdzv-id=$SLURM_JOB_ID: worker local 1 on node02, whose
# environment still holds srun's variables (task 1 of 2) and the node's GPUs.
UNDER_SRUN = dict(per_node(1, extra=NODE_GPUS),
                  **torchrun_worker(5, 1, 4, 1, 2, "node01", 29400))
SRC_TR_SRUN = SRC_TORCHRUN + "; inside " + SRC_SRUN
sc("torchrun-under-srun-torchrun", "torchrun", SRC_TR_SRUN, UNDER_SRUN, ["--format", "torchrun"],
   ok_exports(torch_vars("node01", 29400, 8, 5, 1, 4, 1, 2)))
sc("torchrun-under-srun-launch", "torchrun", SRC_TR_SRUN, UNDER_SRUN, ["--format", "launch"],
   ok_json(launch(8, 5, 1, 4, 1, 2, "node01", 29400)))
sc("torchrun-under-srun-jax", "torchrun", SRC_TR_SRUN, UNDER_SRUN, ["--format", "jax"],
   ok_exports({"JAX_COORDINATOR_ADDRESS": "node01:29400", "JAX_NUM_PROCESSES": "8",
               "JAX_PROCESS_ID": "5"}))
sc("torchrun-under-srun-coordinator", "torchrun", SRC_TR_SRUN, UNDER_SRUN,
   ["--format", "coordinator"], ok_lines(["node01:29400"]))
sc("torchrun-under-srun-spec-coordinator-only", "torchrun", SRC_TR_SRUN, UNDER_SRUN,
   ["--format", "spec"], fail(3, *COORD_ONLY_WORDS))
sc("torchrun-under-srun-hostfile-coordinator-only", "torchrun", SRC_TR_SRUN, UNDER_SRUN,
   ["--format", "hostfile"], fail(3, *COORD_ONLY_WORDS))
sc("torchrun-worker-named-torch", "torchrun", SRC_TORCHRUN,
   torchrun_worker(6, 2, 4, 1, 2, "node01", 29400), ["torch", "--format", "torchrun"],
   ok_exports(torch_vars("node01", 29400, 8, 6, 2, 4, 1, 2)))
sc("torchrun-worker-port-not-read", "torchrun", SRC_TORCHRUN,
   torchrun_worker(6, 2, 4, 1, 2, "node01", 29400), ["--port", "1234", "--format", "torchrun"],
   fail(2, "--port", "torch"))
sc("torchrun-worker-named-torch-port-not-read", "torchrun", SRC_TORCHRUN,
   torchrun_worker(6, 2, 4, 1, 2, "node01", 29400), ["torch", "--port=1234"],
   fail(2, "--port", "torch"))

# torchrun --standalone --nproc-per-node=2 as it ran here (torch 1.13: MASTER_ADDR=127.0.0.1,
# MASTER_PORT=29500, TORCHELASTIC_RUN_ID=none).
sc("torchrun-standalone-launch", "torchrun",
   SRC_TORCHRUN + "; a real torchrun 1.13 worker (static rendezvous, run id \"none\")",
   torchrun_worker(1, 1, 2, 0, 1, "127.0.0.1", 29500, run_id="none"), ["--format", "launch"],
   ok_json(launch(2, 1, 1, 2, 0, 1, "127.0.0.1", 29500)))
# torchrun --virtual-local-rank: every worker has LOCAL_RANK=0 and its own one-GPU list.
sc("torchrun-virtual-local-rank", "torchrun",
   SRC_TORCHRUN + " (virtual_local_rank: LOCAL_RANK=0, CUDA_VISIBLE_DEVICES narrowed by torchrun)",
   dict(torchrun_worker(5, 1, 4, 1, 2, "node01", 29400), LOCAL_RANK="0", CUDA_VISIBLE_DEVICES="1"),
   ["--format", "torchrun"], ok_exports(torch_vars("node01", 29400, 8, 5, 0, 4, 1, 2)))
# torchrun --rdzv-backend=static --master-addr=fd00::1 --master-port=29500 --nnodes=2
IPV6 = torchrun_worker(5, 1, 4, 1, 2, "fd00::1", 29500)
sc("torchrun-ipv6-coordinator", "torchrun", SRC_TORCHRUN, IPV6, ["--format", "coordinator"],
   ok_lines(["[fd00::1]:29500"]))
sc("torchrun-ipv6-launch", "torchrun", SRC_TORCHRUN, IPV6, ["--format", "launch"],
   ok_json(launch(8, 5, 1, 4, 1, 2, "fd00::1", 29500)))
sc("torchrun-ipv6-jax", "torchrun", SRC_TORCHRUN, IPV6, ["--format", "jax"],
   ok_exports({"JAX_COORDINATOR_ADDRESS": "[fd00::1]:29500", "JAX_NUM_PROCESSES": "8",
               "JAX_PROCESS_ID": "5"}))

# --------------------------------------------------------------------------------------------
# Kubeflow training-operator v1: PyTorchJob, TFJob
# --------------------------------------------------------------------------------------------

SRC_PTJ = ("kubeflow/training-operator@078ec30 (release-1.9) pkg/controller.v1/pytorch/envvar.go "
           "setPodEnv(), master.go; pkg/apis/kubeflow.org/v1/pytorch_defaults.go (nprocPerNode "
           "defaults to \"auto\", port 23456); pod name <job>-<type>-<index>")
SRC_PTJ_OLD = ("kubeflow/training-operator@5fa872ff pkg/controller.v1/pytorch/envvar.go and master.go "
               "(before nprocPerNode: MASTER_*, PET_MASTER_*, WORLD_SIZE, RANK)")


def ptj(rtype, index, workers=2, nproc=None):
    """PyTorchJob bert: 1 master + `workers` workers; nproc = spec.nprocPerNode."""
    replicas = 1 + workers
    rank = index + 1 if rtype == "worker" else 0
    n = int(nproc) if nproc and nproc.isdigit() else 1
    return {"PYTHONUNBUFFERED": "1", "MASTER_PORT": "23456", "PET_MASTER_PORT": "23456",
            "MASTER_ADDR": "bert-master-0", "PET_MASTER_ADDR": "bert-master-0",
            "WORLD_SIZE": str(replicas * n), "RANK": str(rank), "PET_NODE_RANK": str(rank),
            "PET_NPROC_PER_NODE": nproc or "auto", "PET_NNODES": str(replicas),
            "HOSTNAME": "bert-%s-%d" % (rtype, index)}


# A per-process format on a node-level launch: the refusal names the processes per node or the
# format that answers it.
NODE_LEVEL = ("PET_NPROC_PER_NODE", "torchrun-node")
PET_BERT = {"PET_MASTER_ADDR": "bert-master-0", "PET_MASTER_PORT": "23456"}
sc("pytorchjob-nproc4-torchrun-node-worker0", "kubeflow-pytorchjob", SRC_PTJ,
   ptj("worker", 0, nproc="4"), ["--format", "torchrun-node"],
   ok_exports(dict(PET_BERT, PET_NNODES="3", PET_NODE_RANK="1")))
sc("pytorchjob-nproc4-torchrun-node-master", "kubeflow-pytorchjob", SRC_PTJ,
   ptj("master", 0, nproc="4"), ["--format", "torchrun-node"],
   ok_exports(dict(PET_BERT, PET_NNODES="3", PET_NODE_RANK="0")))
sc("pytorchjob-nproc4-torchrun-refused", "kubeflow-pytorchjob", SRC_PTJ,
   ptj("worker", 0, nproc="4"), ["--format", "torchrun"], fail(3, NODE_LEVEL))
# launch says what the source says: this pod is the node's launcher (no rank of its own, null)
sc("pytorchjob-nproc4-launch-node-level", "kubeflow-pytorchjob", SRC_PTJ,
   ptj("worker", 1, nproc="4"), ["--format", "launch"],
   ok_json(launch(12, None, None, 4, 2, 3, "bert-master-0", 23456)))
sc("pytorchjob-nproc4-jax-refused", "kubeflow-pytorchjob", SRC_PTJ,
   ptj("worker", 1, nproc="4"), ["--format", "jax"], fail(3, NODE_LEVEL))
sc("pytorchjob-default-auto-torchrun-node", "kubeflow-pytorchjob", SRC_PTJ, ptj("worker", 0),
   ["--format", "torchrun-node"], ok_exports(dict(PET_BERT, PET_NNODES="3", PET_NODE_RANK="1")))
# Without nprocPerNode the operator counts one process per pod (WORLD_SIZE = PET_NNODES = 3):
# the pod's own process is rank RANK of 3, alone on its node.
sc("pytorchjob-default-auto-launch", "kubeflow-pytorchjob", SRC_PTJ, ptj("worker", 1),
   ["--format", "launch"], ok_json(launch(3, 2, 0, 1, 2, 3, "bert-master-0", 23456)))
PTJ_OLD = {"PYTHONUNBUFFERED": "0", "MASTER_PORT": "23456", "PET_MASTER_PORT": "23456",
           "MASTER_ADDR": "bert-master-0", "PET_MASTER_ADDR": "bert-master-0", "WORLD_SIZE": "3",
           "RANK": "1", "HOSTNAME": "bert-worker-0"}
sc("pytorchjob-v1.5-launch", "kubeflow-pytorchjob", SRC_PTJ_OLD, PTJ_OLD, ["--format", "launch"],
   ok_json(launch(3, 1, None, None, None, None, "bert-master-0", 23456)))
sc("pytorchjob-v1.5-coordinator", "kubeflow-pytorchjob", SRC_PTJ_OLD, PTJ_OLD,
   ["--format", "coordinator"], ok_lines(["bert-master-0:23456"]))
# torch.distributed's env:// needs these four; the source says no local or node numbers
sc("pytorchjob-v1.5-torchrun-four-variables", "kubeflow-pytorchjob", SRC_PTJ_OLD, PTJ_OLD,
   ["--format", "torchrun"],
   ok_exports({"MASTER_ADDR": "bert-master-0", "MASTER_PORT": "23456", "WORLD_SIZE": "3",
               "RANK": "1"}))
sc("pytorchjob-elastic-range-refused", "kubeflow-pytorchjob",
   "kubeflow/training-operator@078ec30 pkg/controller.v1/pytorch/elastic.go (PET_NNODES=min:max, "
   "PET_RDZV_ENDPOINT=<job>-worker-0:23456) and envvar.go",
   {"PYTHONUNBUFFERED": "1", "PET_RDZV_ENDPOINT": "elastic-worker-0:23456",
    "PET_RDZV_BACKEND": "c10d", "PET_NNODES": "1:4", "PET_MAX_RESTARTS": "3",
    "PET_NPROC_PER_NODE": "auto", "HOSTNAME": "elastic-worker-1"},
   ["--format", "torchrun-node"], fail(3, "PET_NNODES"))

SRC_TFJOB = ("kubeflow/training-operator@078ec30 (release-1.9) pkg/controller.v1/tensorflow/"
             "tensorflow.go genTFConfigJSONStr(), genClusterSpec() (<job>-<type>-<i>.<ns>.svc:2222)")


def tfjob_hosts(t, n):
    return ["dist-mnist-%s-%d.kubeflow.svc:2222" % (t, i) for i in range(n)]



TFJOB_CLUSTER = {"chief": tfjob_hosts("chief", 1), "ps": tfjob_hosts("ps", 2),
                 "worker": tfjob_hosts("worker", 3)}
TFJOB_W1 = {"TF_CONFIG": _json.dumps({"cluster": TFJOB_CLUSTER,
                                      "task": {"type": "worker", "index": 1},
                                      "environment": "cloud"}),
            "HOSTNAME": "dist-mnist-worker-1"}
sc("tfjob-dense-master", "kubeflow-tfjob", SRC_TFJOB, TFJOB_W1, ["--format", "master"],
   ok_lines(["dist-mnist-worker-1.kubeflow.svc:2222"]))
sc("tfjob-dense-spec", "kubeflow-tfjob", SRC_TFJOB, TFJOB_W1, ["--format", "spec"],
   ok_json(TFJOB_CLUSTER))
sc("tfjob-dense-tfconfig", "kubeflow-tfjob", SRC_TFJOB, TFJOB_W1, [],
   ok_json({"cluster": TFJOB_CLUSTER, "task": {"type": "worker", "index": 1}, "rpc_layer": "",
            "environment": "cloud"}))
TFJOB_SPARSE = {"TF_CONFIG": _json.dumps({"cluster": {"worker": {"1": tfjob_hosts("worker", 3)[1]},
                                                      "ps": tfjob_hosts("ps", 2)},
                                          "task": {"type": "worker", "index": 1}}),
                "HOSTNAME": "dist-mnist-worker-1"}
SRC_TFJOB_SPARSE = SRC_TFJOB + " with enableDynamicWorker (SparseTFConfig: worker is {index: addr})"
sc("tfjob-sparse-master", "kubeflow-tfjob", SRC_TFJOB_SPARSE, TFJOB_SPARSE, ["--format", "master"],
   ok_lines(["dist-mnist-worker-1.kubeflow.svc:2222"]))
sc("tfjob-sparse-spec", "kubeflow-tfjob", SRC_TFJOB_SPARSE, TFJOB_SPARSE, ["--format", "spec"],
   ok_json({"ps": tfjob_hosts("ps", 2), "worker": {"1": tfjob_hosts("worker", 3)[1]}}))
sc("tfjob-one-worker-master-empty-line", "kubeflow-tfjob", SRC_TFJOB,
   {"TF_CONFIG": _json.dumps({"cluster": {"worker": ["mnist-worker-0.default.svc:2222"]},
                              "task": {"type": "worker", "index": 0}, "environment": "cloud"}),
    "HOSTNAME": "mnist-worker-0"},
   ["--format", "master"], ok_lines([""]))

# --------------------------------------------------------------------------------------------
# Kubeflow Trainer v2 (TrainJob): torch, JAX, XGBoost runtimes
# --------------------------------------------------------------------------------------------

SRC_TRAINER_TORCH = ("kubeflow/trainer@8c0f505 pkg/runtime/framework/plugins/torch/torch.go "
                     "EnforceMLPolicy(), pkg/constants/constants.go (PET_*, port 29500, PET_NODE_RANK "
                     "from the job-completion-index annotation); JobSet pod <tj>-node-0-<i>")
SRC_TRAINER_JAX = ("kubeflow/trainer@8c0f505 pkg/runtime/framework/plugins/jax/jax.go EnforceMLPolicy() "
                   "(JAX_NUM_PROCESSES = nodes, JAX_PROCESS_ID = completion index, "
                   "JAX_COORDINATOR_ADDRESS=<tj>-node-0-0.<tj>:29500)")


def trainer_torch(tj, index, nnodes, nproc):
    return {"PET_NNODES": str(nnodes), "PET_NPROC_PER_NODE": str(nproc),
            "PET_NODE_RANK": str(index), "PET_MASTER_ADDR": "%s-node-0-0.%s" % (tj, tj),
            "PET_MASTER_PORT": "29500", "JOB_COMPLETION_INDEX": str(index),
            "HOSTNAME": "%s-node-0-%d" % (tj, index)}


sc("trainer-torch-gpu-torchrun-node", "kubeflow-trainer", SRC_TRAINER_TORCH,
   trainer_torch("llama", 1, 2, 8), ["--format", "torchrun-node"],
   ok_exports({"PET_NNODES": "2", "PET_NODE_RANK": "1", "PET_MASTER_ADDR": "llama-node-0-0.llama",
               "PET_MASTER_PORT": "29500"}))
sc("trainer-torch-gpu-launch-node-level", "kubeflow-trainer", SRC_TRAINER_TORCH,
   trainer_torch("llama", 1, 2, 8), ["--format", "launch"],
   ok_json(launch(16, None, None, 8, 1, 2, "llama-node-0-0.llama", 29500)))
sc("trainer-torch-gpu-torchrun-refused", "kubeflow-trainer", SRC_TRAINER_TORCH,
   trainer_torch("llama", 0, 2, 8), ["--format", "torchrun"], fail(3, NODE_LEVEL))
sc("trainer-torch-cpu-one-proc-torchrun", "kubeflow-trainer",
   SRC_TRAINER_TORCH + " (numProcPerNode: 1)", trainer_torch("mnist", 1, 2, 1),
   ["--format", "torchrun"], ok_exports(torch_vars("mnist-node-0-0.mnist", 29500, 2, 1, 0, 1, 1, 2)))
JAXJOB = {"JAX_NUM_PROCESSES": "2", "JAX_PROCESS_ID": "1",
          "JAX_COORDINATOR_ADDRESS": "jaxjob-node-0-0.jaxjob:29500", "JOB_COMPLETION_INDEX": "1",
          "HOSTNAME": "jaxjob-node-0-1"}
sc("trainer-jax-jax", "kubeflow-trainer", SRC_TRAINER_JAX, JAXJOB, ["--format", "jax"],
   ok_exports({"JAX_COORDINATOR_ADDRESS": "jaxjob-node-0-0.jaxjob:29500",
               "JAX_NUM_PROCESSES": "2", "JAX_PROCESS_ID": "1"}))
sc("trainer-jax-coordinator", "kubeflow-trainer", SRC_TRAINER_JAX, JAXJOB,
   ["--format", "coordinator"], ok_lines(["jaxjob-node-0-0.jaxjob:29500"]))
sc("trainer-jax-launch", "kubeflow-trainer", SRC_TRAINER_JAX, JAXJOB, ["--format", "launch"],
   ok_json(launch(2, 1, None, None, None, None, "jaxjob-node-0-0.jaxjob", 29500)))
sc("trainer-jax-spec-coordinator-only", "kubeflow-trainer", SRC_TRAINER_JAX, JAXJOB,
   ["--format", "spec"], fail(3, *COORD_ONLY_WORDS))
sc("trainer-jax-named-jax-hostfile-option", "kubeflow-trainer", SRC_TRAINER_JAX, JAXJOB,
   ["jax", "--hostfile", "hosts", "--format", "jax"], fail(2, "--hostfile", "jax"))
# MPI runtime with runLauncherAsNode: the launcher pod runs ranks too and holds the hostfile.
SRC_TRAINER_MPI = ("kubeflow/trainer@8c0f505 pkg/runtime/framework/plugins/mpi/mpi.go: hostfile lines "
                   "\"<endpoint> slots=<numProcPerNode>\" mounted at /etc/mpi/hostfile in the launcher "
                   "only, OMPI_MCA_orte_default_hostfile, OMPI_MCA_orte_keep_fqdn_hostnames, "
                   "OMPI_MCA_orte_set_default_slots, OMPI_MCA_plm_rsh_args on the launcher's "
                   "container (mpirun forwards OMPI_MCA_* to every rank); the file moved into the "
                   "scenario's directory")

# --------------------------------------------------------------------------------------------
# Open MPI, MPICH (Hydra), MVAPICH, srun --mpi=pmix
# --------------------------------------------------------------------------------------------

SRC_OMPI = ("Open MPI 4.1.4 mpirun (Debian 12), a real rank environment (OMPI_COMM_WORLD_*, OMPI_MCA_*, "
            "PMIX_*) captured on one host and on two hosts (plm_rsh_agent); mpirun(1) ENVIRONMENT; "
            "--map-by node seen as OMPI_MCA_rmaps_base_mapping_policy=node in every rank; --hostfile "
            "leaves no variable")


def ompi_rank(hosts, slots, rank, by_node=False, pmix_host=None, extra=None):
    """Open MPI 4 mpirun's variables for `rank`, ranks filling each host's slots (or by node)."""
    where = []
    if by_node:
        left = list(slots)
        while len(where) < sum(slots):
            for h in range(len(hosts)):
                if left[h]:
                    where.append(h)
                    left[h] -= 1
    else:
        for h, s in enumerate(slots):
            where += [h] * s
    h = where[rank]
    local = [r for r, x in enumerate(where) if x == h].index(rank)
    size = sum(slots)
    e = {"OMPI_APP_CTX_NUM_PROCS": str(size), "OMPI_COMMAND": "python3", "OMPI_ARGV": "train.py",
         "OMPI_COMM_WORLD_LOCAL_RANK": str(local), "OMPI_COMM_WORLD_LOCAL_SIZE": str(slots[h]),
         "OMPI_COMM_WORLD_NODE_RANK": str(local), "OMPI_COMM_WORLD_RANK": str(rank),
         "OMPI_COMM_WORLD_SIZE": str(size), "OMPI_FIRST_RANKS": "0",
         "OMPI_FILE_LOCATION": "/tmp/ompi.%s.1000/jf.8972/0/%d" % (hosts[h], rank),
         "OMPI_MCA_ess": "^singleton", "OMPI_MCA_ess_base_jobid": "587988993",
         "OMPI_MCA_ess_base_vpid": str(rank), "OMPI_MCA_ess_base_num_procs": str(len(hosts) + 1),
         "OMPI_MCA_initial_wdir": "/home/alice/run", "OMPI_MCA_orte_app_num": "0",
         "OMPI_MCA_orte_ess_node_rank": str(local), "OMPI_MCA_orte_ess_num_procs": str(size),
         "OMPI_MCA_orte_hnp_uri": "587988992.0;tcp://10.1.0.11:38891",
         "OMPI_MCA_orte_local_daemon_uri": "587988992.%d;tcp://10.1.0.%d:45145" % (h + 1, 11 + h),
         "OMPI_MCA_orte_num_nodes": str(len(hosts)), "OMPI_MCA_orte_launch": "1",
         "OMPI_MCA_orte_precondition_transports": "65e42af3a5d179a5-8c4eaadc3d907ed9",
         "OMPI_MCA_orte_tmpdir_base": "/tmp", "OMPI_MCA_pmix": "^s1,s2,cray,isolated",
         "OMPI_MCA_shmem_RUNTIME_QUERY_hint": "mmap", "OMPI_NUM_APP_CTX": "1",
         "OMPI_UNIVERSE_SIZE": str(size),
         "PMIX_GDS_MODULE": "ds21,ds12,hash", "PMIX_HOSTNAME": pmix_host or hosts[h],
         "PMIX_ID": "587988993.%d" % rank, "PMIX_NAMESPACE": "587988993", "PMIX_RANK": str(rank),
         "PMIX_SECURITY_MODE": "native", "PMIX_SERVER_TMPDIR": "/tmp/ompi.1000/jf.8972",
         "PMIX_SERVER_URI4": "587988992.1;tcp4://127.0.0.1:46553",
         "PMIX_SERVER_URI41": "587988992.1;tcp4://127.0.0.1:46553",
         "PMIX_SYSTEM_TMPDIR": "/tmp", "PMIX_VERSION": "4.2.2rc2"}
    if by_node:
        e["OMPI_MCA_rmaps_base_mapping_policy"] = "node"
    e.update(extra or {})
    return e


HOSTS_2x4 = {"hosts": "node01 slots=4\nnode02 slots=4\n"}
sc("mpirun-one-host-torchrun", "openmpi", SRC_OMPI, ompi_rank(["gpu-box"], [4], 1),
   ["--format", "torchrun"], ok_exports(torch_vars("gpu-box", 8888, 4, 1, 1, 4, 0, 1)))
sc("mpirun-one-host-hostfile", "openmpi", SRC_OMPI, ompi_rank(["gpu-box"], [4], 0),
   ["--format", "hostfile"], ok_lines(["gpu-box slots=4"]))
# mpirun binds no GPU and says nothing of whose list it passes on (a wrapper may have narrowed
# it): the list is left alone, unless the user says it is the node's (--gpus-per-node)
MPI_GPUS = ompi_rank(["gpu-box"], [4], 2, extra={"CUDA_VISIBLE_DEVICES": "0,1,2,3"})
sc("mpirun-one-host-user-gpus-jax", "openmpi",
   SRC_OMPI + "; CUDA_VISIBLE_DEVICES=0,1,2,3 exported by the user and passed with mpirun -x",
   MPI_GPUS, ["--format", "jax"],
   ok_exports({"JAX_COORDINATOR_ADDRESS": "gpu-box:8888", "JAX_NUM_PROCESSES": "4",
               "JAX_PROCESS_ID": "2"}))
sc("mpirun-one-host-user-gpus-per-node-jax", "openmpi",
   SRC_OMPI + "; CUDA_VISIBLE_DEVICES=0,1,2,3 exported by the user and passed with mpirun -x",
   MPI_GPUS, ["--gpus-per-node", "4", "--format", "jax"],
   ok_exports({"JAX_COORDINATOR_ADDRESS": "gpu-box:8888", "JAX_NUM_PROCESSES": "4",
               "JAX_PROCESS_ID": "2", "CUDA_VISIBLE_DEVICES": "2", "JAX_LOCAL_DEVICE_IDS": "0"}))
# --gpus-per-node says the list is each node's: shared among that node's ranks (rank 3 is alone
# on node02 of a 3+1 hostfile), and a list shorter than it (GPUs 4 and 5 of a shared box) is no
# node's list: refused, never devices outside it.
sc("mpirun-gpus-per-node-lone-rank-gets-all", "openmpi",
   SRC_OMPI + "; CUDA_VISIBLE_DEVICES=0,1,2,3 exported by the user and passed with mpirun -x",
   ompi_rank(N2, [3, 1], 3, extra={"CUDA_VISIBLE_DEVICES": "0,1,2,3"}),
   ["--hostfile", "{tmp}/hosts", "--gpus-per-node", "4", "--format", "torchrun"],
   ok_exports(dict(torch_vars("node01", 8888, 4, 3, 0, 1, 1, 2), CUDA_VISIBLE_DEVICES="0,1,2,3")),
   files={"hosts": "node01 slots=3\nnode02 slots=1\n"})
sc("mpirun-gpus-per-node-more-than-the-list", "openmpi",
   SRC_OMPI + "; CUDA_VISIBLE_DEVICES=4,5 exported by the user and passed with mpirun -x",
   ompi_rank(N2, [4, 4], 7, extra={"CUDA_VISIBLE_DEVICES": "4,5"}),
   ["--hostfile", "{tmp}/hosts", "--gpus-per-node", "4", "--format", "torchrun"],
   fail(3, "CUDA_VISIBLE_DEVICES", "--gpus-per-node"), files=HOSTS_2x4)
sc("mpirun-hostfile-mpi-torchrun", "openmpi", SRC_OMPI, ompi_rank(N2, [4, 4], 5),
   ["mpi", "--hostfile", "{tmp}/hosts", "--format", "torchrun"],
   ok_exports(torch_vars("node01", 8888, 8, 5, 1, 4, 1, 2)), files=HOSTS_2x4)
sc("mpirun-hostfile-auto-equals-launch", "openmpi", SRC_OMPI, ompi_rank(N2, [4, 4], 6),
   ["--hostfile={tmp}/hosts", "--format=launch"],
   ok_json(launch(8, 6, 2, 4, 1, 2, "node01", 8888)), files=HOSTS_2x4)
sc("mpirun-two-hosts-without-hostfile", "openmpi", SRC_OMPI, ompi_rank(N2, [4, 4], 5),
   ["--format", "torchrun"], fail(3, "--hostfile"))
sc("mpirun-map-by-node-torchrun", "openmpi", SRC_OMPI, ompi_rank(N2, [4, 4], 5, by_node=True),
   ["--hostfile", "{tmp}/hosts", "--format", "torchrun"],
   ok_exports(torch_vars("node01", 8888, 8, 5, 2, 4, 1, 2)), files=HOSTS_2x4)
sc("mpirun-map-by-node-spec", "openmpi", SRC_OMPI, ompi_rank(N2, [4, 4], 0, by_node=True),
   ["mpi", "--hostfile", "{tmp}/hosts", "--format", "spec"],
   ok_json({"worker": ["node01:8888", "node02:8888", "node01:8889", "node02:8889",
                       "node01:8890", "node02:8890", "node01:8891", "node02:8891"]}),
   files=HOSTS_2x4)
sc("mpirun-user-exports-kept", "openmpi",
   SRC_OMPI + "; mpirun -x MASTER_ADDR=node01 -x MASTER_PORT=29500",
   ompi_rank(N2, [4, 4], 5, extra={"MASTER_ADDR": "node01", "MASTER_PORT": "29500"}),
   ["--hostfile", "{tmp}/hosts", "--format", "torchrun"],
   ok_exports(torch_vars("node01", 29500, 8, 5, 1, 4, 1, 2)), files=HOSTS_2x4)
# The two-host capture as printed (mpirun --hostfile with fakenode1 slots=2, fakenode2 slots=2;
# the daemons ran on this machine, hence PMIX_HOSTNAME=vm).
CAPTURE_OMPI_2HOSTS_R2 = {
    "OMPI_APP_CTX_NUM_PROCS": "4", "OMPI_COMMAND": "bash", "OMPI_COMM_WORLD_LOCAL_RANK": "0",
    "OMPI_COMM_WORLD_LOCAL_SIZE": "2", "OMPI_COMM_WORLD_NODE_RANK": "0",
    "OMPI_COMM_WORLD_RANK": "2", "OMPI_COMM_WORLD_SIZE": "4",
    "OMPI_FILE_LOCATION": "/tmp/ompi.vm.0/jf.8972/0/2", "OMPI_FIRST_RANKS": "0",
    "OMPI_MCA_btl": "self,vader", "OMPI_MCA_btl_tcp_if_include": "lo", "OMPI_MCA_ess": "^singleton",
    "OMPI_MCA_ess_base_jobid": "587988993", "OMPI_MCA_ess_base_num_procs": "3",
    "OMPI_MCA_ess_base_vpid": "2", "OMPI_MCA_initial_wdir": "/tmp",
    "OMPI_MCA_mpi_oversubscribe": "0", "OMPI_MCA_oob_tcp_if_include": "lo",
    "OMPI_MCA_orte_app_num": "0", "OMPI_MCA_orte_bound_at_launch": "1",
    "OMPI_MCA_orte_ess_node_rank": "0", "OMPI_MCA_orte_ess_num_procs": "4",
    "OMPI_MCA_orte_hnp_uri": "587988992.0;tcp://127.0.0.1:38891",
    "OMPI_MCA_orte_jobfam_session_dir": "/tmp/ompi.vm.0/jf.8972", "OMPI_MCA_orte_launch": "1",
    "OMPI_MCA_orte_local_daemon_uri": "587988992.2;tcp://127.0.0.1:45145",
    "OMPI_MCA_orte_node_regex": "vm,fakenode[1:1-2]@0(3)", "OMPI_MCA_orte_num_nodes": "2",
    "OMPI_MCA_orte_parent_uri": "587988992.0;tcp://127.0.0.1:38891",
    "OMPI_MCA_orte_precondition_transports": "65e42af3a5d179a5-8c4eaadc3d907ed9",
    "OMPI_MCA_orte_tmpdir_base": "/tmp", "OMPI_MCA_orte_top_session_dir": "/tmp/ompi.vm.0",
    "OMPI_MCA_plm": "rsh", "OMPI_MCA_pmix": "^s1,s2,cray,isolated", "OMPI_MCA_routed": "radix",
    "OMPI_MCA_shmem_RUNTIME_QUERY_hint": "mmap", "OMPI_NUM_APP_CTX": "1",
    "OMPI_UNIVERSE_SIZE": "6", "PMIX_BFROP_BUFFER_TYPE": "PMIX_BFROP_BUFFER_NON_DESC",
    "PMIX_GDS_MODULE": "ds21,ds12,hash", "PMIX_HOSTNAME": "vm", "PMIX_ID": "587988993.2",
    "PMIX_NAMESPACE": "587988993", "PMIX_RANK": "2", "PMIX_SECURITY_MODE": "native",
    "PMIX_SERVER_TMPDIR": "/tmp/ompi.vm.0/jf.8972",
    "PMIX_SERVER_URI4": "587988992.2;tcp4://127.0.0.1:46553",
    "PMIX_SERVER_URI41": "587988992.2;tcp4://127.0.0.1:46553", "PMIX_SYSTEM_TMPDIR": "/tmp",
    "PMIX_VERSION": "4.2.2rc2",
}
sc("mpirun-capture-two-hosts-torchrun", "openmpi",
   "a real Open MPI 4.1.4 rank environment (rank 2 of mpirun --hostfile, two hosts of 2 slots)",
   CAPTURE_OMPI_2HOSTS_R2, ["--hostfile", "{tmp}/hosts", "--format", "torchrun"],
   ok_exports(torch_vars("fakenode1", 8888, 4, 2, 0, 2, 1, 2)),
   files={"hosts": "fakenode1 slots=2\nfakenode2 slots=2\n"})
# Kubeflow Trainer v2 MPI runtime, runLauncherAsNode: rank 1 runs on the launcher pod.
TRAINER_MPI_ENV = ompi_rank(["pi-launcher-0-0.pi", "pi-node-0-0.pi"], [2, 2], 1, extra={
    "OMPI_MCA_orte_default_hostfile": "{tmp}/etc/mpi/hostfile",
    "OMPI_MCA_orte_keep_fqdn_hostnames": "true", "OMPI_MCA_orte_set_default_slots": "2",
    "OMPI_MCA_plm_rsh_args": "-o ConnectionAttempts=10", "HOSTNAME": "pi-launcher-0-0"})
sc("trainer-mpi-launcher-as-node-torchrun", "kubeflow-trainer", SRC_TRAINER_MPI, TRAINER_MPI_ENV,
   ["--format", "torchrun"], ok_exports(torch_vars("pi-launcher-0-0.pi", 8888, 4, 1, 1, 2, 0, 2)),
   files={"etc/mpi/hostfile": "pi-launcher-0-0.pi slots=2\npi-node-0-0.pi slots=2\n"})
# A rank on a node pod: mpirun forwarded OMPI_MCA_orte_default_hostfile, but the file is mounted
# in the launcher only, so it is not there: refuse naming the file.
sc("trainer-mpi-rank-on-node-pod-no-hostfile", "kubeflow-trainer", SRC_TRAINER_MPI,
   ompi_rank(["pi-node-0-0.pi", "pi-node-0-1.pi"], [2, 2], 3, extra={
       "OMPI_MCA_orte_default_hostfile": "{tmp}/etc/mpi/hostfile",
       "OMPI_MCA_orte_keep_fqdn_hostnames": "true", "OMPI_MCA_orte_set_default_slots": "2",
       "OMPI_MCA_plm_rsh_args": "-o ConnectionAttempts=10", "HOSTNAME": "pi-node-0-1"}),
   ["--format", "torchrun"], fail(3, "etc/mpi/hostfile"))

SRC_HYDRA = ("pmodels/mpich@6a79bf65 src/pm/hydra/proxy/pmip_cb.c: MPI_LOCALNRANKS, MPI_LOCALRANKID, "
             "PMI_RANK, PMI_FD, PMI_SIZE (PMI_PORT and PMI_ID instead with -pmi-port)")


def hydra(rank, size, local, local_size, extra=None):
    e = {"MPI_LOCALNRANKS": str(local_size), "MPI_LOCALRANKID": str(local), "PMI_RANK": str(rank),
         "PMI_FD": "6", "PMI_SIZE": str(size)}
    e.update(extra or {})
    return e


sc("mpich-one-host-torchrun", "mpich", SRC_HYDRA, hydra(2, 4, 2, 4), ["--format", "torchrun"],
   ok_exports(torch_vars("localhost", 8888, 4, 2, 2, 4, 0, 1)))
sc("mpich-one-host-host-option", "mpich", SRC_HYDRA, hydra(2, 4, 2, 4),
   ["mpi", "--host=gpu-box", "--format", "coordinator"], ok_lines(["gpu-box:8888"]))
sc("mpich-machinefile-torchrun", "mpich", SRC_HYDRA + "; mpiexec -f machines -n 8",
   hydra(6, 8, 2, 4), ["mpi", "--hostfile", "{tmp}/machines", "--format", "torchrun"],
   ok_exports(torch_vars("node01", 8888, 8, 6, 2, 4, 1, 2)),
   files={"machines": "node01:4\nnode02:4\n"})
sc("mpich-machinefile-machinefile", "mpich", SRC_HYDRA + "; mpiexec -f machines -n 8",
   hydra(1, 8, 1, 4), ["mpi", "--hostfile={tmp}/machines", "--format", "machinefile"],
   ok_lines(["node01:4", "node02:4"]), files={"machines": "node01:4\nnode02:4\n"})
sc("mpich-pmi-port-not-alone", "mpich", SRC_HYDRA + "; mpiexec -pmi-port",
   {"MPI_LOCALNRANKS": "4", "MPI_LOCALRANKID": "1", "PMI_PORT": "node01:42011", "PMI_ID": "5"},
   ["--format", "launch"], fail(3, ("MPI_LOCALRANKID", "PMI_ID", "PMI_PORT", "MPI_LOCALNRANKS")))

SRC_MV2 = ("MVAPICH2 2.3 user guide, mpirun_rsh: MV2_COMM_WORLD_RANK, MV2_COMM_WORLD_SIZE, "
           "MV2_COMM_WORLD_LOCAL_RANK, MV2_COMM_WORLD_LOCAL_SIZE and MPIRUN_* in every rank "
           "(mvapich.cse.ohio-state.edu/userguide); hostfile lines host:N")
sc("mvapich-hostfile-launch", "mvapich", SRC_MV2,
   {"MV2_COMM_WORLD_RANK": "5", "MV2_COMM_WORLD_SIZE": "8", "MV2_COMM_WORLD_LOCAL_RANK": "1",
    "MV2_COMM_WORLD_LOCAL_SIZE": "4", "MPIRUN_RANK": "5", "MPIRUN_NPROCS": "8",
    "MPIRUN_ID": "24567", "MPIRUN_HOST": "node01", "MPIRUN_PORT": "40123"},
   ["mpi", "--hostfile", "{tmp}/hosts", "--format", "launch"],
   ok_json(launch(8, 5, 1, 4, 1, 2, "node01", 8888)), files={"hosts": "node01:4\nnode02:4\n"})

sc("srun-mpi-pmix-torchrun", "slurm-mpi",
   SRC_SRUN + "; srun --mpi=pmix: the PMIx server's fork environment (PMIX_RANK, PMIX_NAMESPACE, "
   "PMIX_SERVER_URI*), SchedMD/slurm src/plugins/mpi/pmix",
   slurm_step(N2, [2, 2], 3, "node[01-02]", "2(x2)", ntasks_per_node=2,
              extra={"PMIX_RANK": "3", "PMIX_NAMESPACE": "slurm.pmix.4242.0",
                     "PMIX_SERVER_URI41": "pmix-server.31002;tcp4://127.0.0.1:40213",
                     "PMIX_SERVER_URI4": "pmix-server.31002;tcp4://127.0.0.1:40213",
                     "PMIX_SECURITY_MODE": "munge,native", "PMIX_VERSION": "4.2.3",
                     "PMIX_SERVER_TMPDIR": "/var/spool/slurmd/pmix.4242.0/"}),
   ["--format", "torchrun"], ok_exports(torch_vars("node01", 8888, 4, 3, 1, 2, 1, 2)))
# mpirun inside an sbatch allocation of node[1-2]: Open MPI started its daemons with srun, so the
# ranks see the daemons' step (2 tasks, one per node) beside OMPI_COMM_WORLD_* (real capture).
ORTED = slurm_step(["node1", "node2"], [1, 1], 1, "node[1-2]", "1(x2)", job_id=12)
ORTED.update(ompi_rank(["node1", "node2"], [2, 2], 2))
sc("mpirun-in-sbatch-daemon-step-torchrun", "slurm-mpi",
   "a real capture: Open MPI 4.1.4 mpirun -np 4 in sbatch -N2 (orted launched by srun), Slurm 22.05.8",
   ORTED, ["--format", "torchrun"], ok_exports(torch_vars("node1", 8888, 4, 2, 0, 2, 1, 2)))

# --------------------------------------------------------------------------------------------
# PBS, Cray PALS, LSF, Grid Engine, Flux
# --------------------------------------------------------------------------------------------

SRC_PBS = ("PBS Professional 2022 Reference Guide, Environment Variables (PBS_JOBID, PBS_NODEFILE one "
           "line per MPI process of select=...:mpiprocs=N, PBS_O_WORKDIR, PBS_ENVIRONMENT, "
           "PBS_NODENUM, PBS_TASKNUM)")
SRC_PBSDSH = "pbsdsh(1) (OpenPBS/Torque): each task gets PBS_VNODENUM, its line in $PBS_NODEFILE"
SRC_PALS = ("ALCF Polaris documentation, Running Jobs (docs.alcf.anl.gov/polaris/running-jobs): "
            "$PBS_NODEFILE holds one line per node, mpiexec -n N --ppn P; HPE Cray PALS mpiexec(1): "
            "PALS_RANKID, PALS_NODEID, PALS_LOCAL_RANKID, PALS_LOCAL_SIZE, PALS_DEPTH, PALS_APID, "
            "PMI_RANK, PMI_SIZE, PMI_LOCAL_RANK, PMI_LOCAL_SIZE")


def pbs_job(extra=None):
    e = {"PBS_JOBID": "7781.pbs01", "PBS_JOBNAME": "train", "PBS_NODEFILE": "{tmp}/aux/7781.pbs01",
         "PBS_O_WORKDIR": "/home/alice/run", "PBS_O_HOST": "login01", "PBS_ENVIRONMENT": "PBS_BATCH",
         "PBS_QUEUE": "workq", "PBS_NODENUM": "0", "PBS_TASKNUM": "1", "PBS_MOMPORT": "15003",
         "PBS_JOBDIR": "/home/alice", "NCPUS": "4", "TMPDIR": "/var/tmp/pbs.7781.pbs01"}
    e.update(extra or {})
    return e


PBS_FILES = {"aux/7781.pbs01": "node01\n" * 4 + "node02\n" * 4}
sc("pbs-script-hostfile", "pbs", SRC_PBS, pbs_job(), ["--format", "hostfile"],
   ok_lines(["node01 slots=4", "node02 slots=4"]), files=PBS_FILES)
sc("pbs-script-machinefile-named", "pbs", SRC_PBS, pbs_job(), ["pbs", "--format", "machinefile"],
   ok_lines(["node01:4", "node02:4"]), files=PBS_FILES)
sc("pbs-script-torchrun-refused", "pbs", SRC_PBS, pbs_job(), ["--format", "torchrun"],
   fail(3, ("rank", "PBS_VNODENUM", "own task")), files=PBS_FILES)
# Torque sets PBS_VNODENUM=0 in the job script too (its shell is task 1): no own task there
SRC_TORQUE = ("adaptivecomputing/torque@34ff845 src/resmom/start_exec.c (PBS_VNODENUM=0 for the job's "
              "shell) and mom_comm.c (the mother superior numbers tasks from 1: PBS_TASKNUM); a capture: "
              "Torque 6.0.2, gravity-doc.github.io/Basic/Job.html")
TORQUE_SCRIPT = pbs_job({"PBS_VNODENUM": "0", "PBS_NUM_NODES": "2", "PBS_NUM_PPN": "4", "PBS_NP": "8"})
sc("torque-script-torchrun-refused", "pbs", SRC_TORQUE, TORQUE_SCRIPT, ["--format", "torchrun"],
   fail(3, ("own task",)), files=PBS_FILES)
sc("torque-script-hostfile", "pbs", SRC_TORQUE, TORQUE_SCRIPT, ["--format", "hostfile"],
   ok_lines(["node01 slots=4", "node02 slots=4"]), files=PBS_FILES)
sc("torque-pbsdsh-vnode-0-launch", "pbs", SRC_TORQUE + "; " + SRC_PBSDSH,
   pbs_job({"PBS_VNODENUM": "0", "PBS_TASKNUM": "2"}), ["--format", "launch"],
   ok_json({"world_size": 8, "rank": 0, "local_rank": 0, "local_world_size": 4, "node_rank": 0,
            "num_nodes": 2, "master_addr": "node01", "master_port": 8888}), files=PBS_FILES)
sc("pbs-pbsdsh-torchrun", "pbs", SRC_PBS + "; " + SRC_PBSDSH,
   pbs_job({"PBS_VNODENUM": "5", "PBS_NODENUM": "1", "PBS_TASKNUM": "7"}), ["--format", "torchrun"],
   ok_exports(torch_vars("node01", 8888, 8, 5, 1, 4, 1, 2)), files=PBS_FILES)
sc("pbs-mpirun-torchrun", "pbs", SRC_PBS + "; " + SRC_OMPI,
   dict(pbs_job(), **ompi_rank(N2, [4, 4], 6)), ["--format", "torchrun"],
   ok_exports(torch_vars("node01", 8888, 8, 6, 2, 4, 1, 2)), files=PBS_FILES)

POLARIS = ["x3000c0s13b0n0.hsn.cm.polaris.alcf.anl.gov", "x3000c0s13b1n0.hsn.cm.polaris.alcf.anl.gov"]


def pals(rank, extra=None):
    """mpiexec -n 8 --ppn 4 --depth 8 under PBS on two Polaris nodes."""
    e = pbs_job({"PBS_JOBID": "123456.polaris-pbs-01.hsn.cm.polaris.alcf.anl.gov",
                 "PBS_NODEFILE": "{tmp}/aux/123456", "PBS_QUEUE": "debug"})
    e.update({"PALS_APID": "2cb2a8e3-4c0d-4e7e-9b61-0a3b0e0d7d11", "PALS_RANKID": str(rank),
              "PALS_NODEID": str(rank // 4), "PALS_LOCAL_RANKID": str(rank % 4),
              "PALS_LOCAL_SIZE": "4", "PALS_DEPTH": "8", "PMI_RANK": str(rank), "PMI_SIZE": "8",
              "PMI_LOCAL_RANK": str(rank % 4), "PMI_LOCAL_SIZE": "4", "PMI_UNIVERSE_SIZE": "8",
              "PMI_JOBID": "123456", "PMI_SHARED_SECRET": "8821302012201882511",
              "PMI_CONTROL_PORT": "11001,11002"})
    e.update(extra or {})
    return e


sc("pals-polaris-nodefile-per-node-torchrun", "cray-pals", SRC_PALS, pals(5),
   ["--format", "torchrun"], ok_exports(torch_vars(POLARIS[0], 8888, 8, 5, 1, 4, 1, 2)),
   files={"aux/123456": POLARIS[0] + "\n" + POLARIS[1] + "\n"})
sc("pals-polaris-nodefile-per-node-hostfile", "cray-pals", SRC_PALS, pals(0),
   ["--format", "hostfile"], ok_lines([POLARIS[0] + " slots=4", POLARIS[1] + " slots=4"]),
   files={"aux/123456": POLARIS[0] + "\n" + POLARIS[1] + "\n"})
# mpiexec -n 6 --ppn 4 on the two nodes: node 0 holds ranks 0-3, node 1 the last two, whose
# PALS_LOCAL_SIZE is 2; every rank answers the same 4 + 2 placement.
PALS_6 = {"PMI_SIZE": "6", "PMI_UNIVERSE_SIZE": "6"}
for rank, local_size in [(2, 4), (5, 2)]:
    sc("pals-n6-ppn4-rank%d-torchrun" % rank, "cray-pals", SRC_PALS + " (-n 6 --ppn 4)",
       pals(rank, dict(PALS_6, PALS_LOCAL_SIZE=str(local_size), PMI_LOCAL_SIZE=str(local_size))),
       ["--format", "torchrun"],
       ok_exports(torch_vars(POLARIS[0], 8888, 6, rank, rank % 4, local_size, rank // 4, 2)),
       files={"aux/123456": POLARIS[0] + "\n" + POLARIS[1] + "\n"})
# ALCF's set_affinity_gpu_polaris.sh has bound local rank 2 to GPU 1: that list of one is no
# node's four, so --gpus-per-node 4 is refused, never another rank's GPU handed out.
sc("pals-wrapper-bound-list-gpus-per-node-refused", "cray-pals",
   SRC_PALS + "; ALCF set_affinity_gpu_polaris.sh sets CUDA_VISIBLE_DEVICES per local rank",
   pals(6, {"CUDA_VISIBLE_DEVICES": "1"}), ["--gpus-per-node", "4", "--format", "torchrun"],
   fail(3, "CUDA_VISIBLE_DEVICES", "--gpus-per-node"),
   files={"aux/123456": POLARIS[0] + "\n" + POLARIS[1] + "\n"})
sc("pals-mpiprocs4-nodefile-torchrun", "cray-pals", SRC_PALS + " (select=2:mpiprocs=4)", pals(6),
   ["--format", "torchrun"], ok_exports(torch_vars(POLARIS[0], 8888, 8, 6, 2, 4, 1, 2)),
   files={"aux/123456": (POLARIS[0] + "\n") * 4 + (POLARIS[1] + "\n") * 4})

SRC_LSF = ("IBM Spectrum LSF 10.1 Environment variables set for job execution: LSB_JOBID, LSB_HOSTS "
           "and LSB_DJOB_HOSTFILE/LSB_DJOB_RANKFILE (a host per slot), LSB_MCPU_HOSTS (\"host n ...\"), "
           "LSB_DJOB_NUMPROC (www.ibm.com/docs/en/spectrum-lsf/10.1.0)")
LSF_FILES = {"hostfile": "hostA\n" * 4 + "hostB\n" * 4}


def lsf_job(extra=None):
    e = {"LSB_JOBID": "5678", "LSB_JOBNAME": "train", "LSB_QUEUE": "normal",
         "LSB_HOSTS": "hostA hostA hostA hostA hostB hostB hostB hostB",
         "LSB_MCPU_HOSTS": "hostA 4 hostB 4", "LSB_DJOB_HOSTFILE": "{tmp}/hostfile",
         "LSB_DJOB_RANKFILE": "{tmp}/hostfile", "LSB_DJOB_NUMPROC": "8", "LSB_SUB_HOST": "login1",
         "LS_SUBCWD": "/home/alice/run", "LSB_JOBINDEX": "0", "LSB_EXEC_CLUSTER": "cluster1"}
    e.update(extra or {})
    return e


sc("lsf-script-hostfile", "lsf", SRC_LSF, lsf_job(), ["--format", "hostfile"],
   ok_lines(["hostA slots=4", "hostB slots=4"]), files=LSF_FILES)
sc("lsf-script-machinefile-named", "lsf", SRC_LSF, lsf_job(), ["lsf", "--format", "machinefile"],
   ok_lines(["hostA:4", "hostB:4"]), files=LSF_FILES)
sc("lsf-mpirun-torchrun", "lsf", SRC_LSF + "; " + SRC_OMPI,
   dict(lsf_job(), **ompi_rank(["hostA", "hostB"], [4, 4], 5)), ["--format", "torchrun"],
   ok_exports(torch_vars("hostA", 8888, 8, 5, 1, 4, 1, 2)), files=LSF_FILES)
# Summit: bsub -nnodes 2 gives the launch node one slot and each compute node 42;
# jsrun -n12 -r6 -a1 -g1 starts 6 resource sets per node (packed), each bound to one GPU.
SUMMIT = lsf_job({"LSB_HOSTS": " ".join(["batch1"] + ["a01n01"] * 42 + ["a01n02"] * 42),
                  "LSB_MCPU_HOSTS": "batch1 1 a01n01 42 a01n02 42", "LSB_DJOB_NUMPROC": "85",
                  "CSM_ALLOCATION_ID": "901234", "JSM_NAMESPACE_RANK": "7",
                  "JSM_NAMESPACE_SIZE": "12", "JSM_NAMESPACE_LOCAL_RANK": "1",
                  "JSM_NAMESPACE_LOCAL_SIZE": "6", "OMPI_COMM_WORLD_RANK": "7",
                  "OMPI_COMM_WORLD_SIZE": "12", "OMPI_COMM_WORLD_LOCAL_RANK": "1",
                  "OMPI_COMM_WORLD_LOCAL_SIZE": "6", "PMIX_RANK": "7", "CUDA_VISIBLE_DEVICES": "1"})
sc("lsf-summit-jsrun-torchrun", "lsf",
   SRC_LSF + "; OLCF Summit user guide (jsrun resource sets, -d packed default; LSB_MCPU_HOSTS "
   "\"batch 1 node 42 ...\"; CSM_ALLOCATION_ID); jsrun(1) JSM_NAMESPACE_* ",
   SUMMIT, ["--format", "torchrun"], ok_exports(torch_vars("a01n01", 8888, 12, 7, 1, 6, 1, 2)),
   files={"hostfile": "batch1\n" + "a01n01\n" * 42 + "a01n02\n" * 42})

SRC_SGE = ("Grid Engine 8.1.9 submit(1) ENVIRONMENTAL VARIABLES (PE_HOSTFILE, NSLOTS, NHOSTS, NQUEUES, "
           "JOB_ID, PE, QUEUE, SGE_TASK_ID=undefined, ...) and sge_pe(5) ($pe_hostfile: host slots "
           "queue processors)")
SGE_FILES = {"pe_hostfile": "node01.cluster 4 all.q@node01.cluster UNDEFINED\n"
                            "node02.cluster 4 all.q@node02.cluster UNDEFINED\n"}


def sge_job(extra=None):
    e = {"PE_HOSTFILE": "{tmp}/pe_hostfile", "NSLOTS": "8", "NHOSTS": "2", "NQUEUES": "2",
         "JOB_ID": "77", "JOB_NAME": "train.sh", "PE": "mpi", "QUEUE": "all.q",
         "SGE_TASK_ID": "undefined", "SGE_TASK_FIRST": "undefined", "SGE_TASK_LAST": "undefined",
         "SGE_TASK_STEPSIZE": "undefined", "ENVIRONMENT": "BATCH", "RESTARTED": "0",
         "HOSTNAME": "node01.cluster", "SGE_ROOT": "/var/lib/gridengine", "SGE_CELL": "default",
         "SGE_O_WORKDIR": "/home/alice/run", "SGE_O_HOST": "login01", "REQUEST": "train.sh",
         "TMPDIR": "/tmp/77.1.all.q", "JOB_SCRIPT": "/var/spool/gridengine/job_scripts/77"}
    e.update(extra or {})
    return e


sc("sge-script-hostfile", "sge", SRC_SGE, sge_job(), ["--format", "hostfile"],
   ok_lines(["node01.cluster slots=4", "node02.cluster slots=4"]), files=SGE_FILES)
sc("sge-script-machinefile-named", "sge", SRC_SGE, sge_job(), ["sge", "--format", "machinefile"],
   ok_lines(["node01.cluster:4", "node02.cluster:4"]), files=SGE_FILES)
sc("sge-script-torchrun-refused", "sge", SRC_SGE, sge_job(), ["--format", "torchrun"],
   fail(3, ("rank", "own task", "mpirun")), files=SGE_FILES)
sc("sge-mpirun-torchrun", "sge", SRC_SGE + "; " + SRC_OMPI,
   dict(sge_job(), **ompi_rank(["node01.cluster", "node02.cluster"], [4, 4], 6)),
   ["--format", "torchrun"], ok_exports(torch_vars("node01.cluster", 8888, 8, 6, 2, 4, 1, 2)),
   files=SGE_FILES)

SRC_FLUX = ("flux-framework/flux-core@4a5e79f src/shell/shell.c (FLUX_JOB_SIZE, FLUX_JOB_NNODES, "
            "FLUX_JOB_ID, FLUX_URI, FLUX_KVS_NAMESPACE), src/shell/task.c (FLUX_TASK_RANK, "
            "FLUX_TASK_LOCAL_ID), src/shell/pmi/pmi.c (PMI_RANK, PMI_SIZE, PMI_FD)")


def flux_task(rank):
    return {"FLUX_URI": "local:///tmp/flux-abc123/local-0", "FLUX_KVS_NAMESPACE": "job-2Nh6LCEqjB",
            "FLUX_JOB_ID_PATH": "/\u0192TmGkd3Xr", "FLUX_JOB_SIZE": "8", "FLUX_JOB_NNODES": "2",
            "FLUX_JOB_ID": "\u01922Nh6LCEqjB", "FLUX_JOB_TMPDIR": "/tmp/flux-abc123/jobtmp-0",
            "FLUX_TASK_LOCAL_ID": str(rank % 4), "FLUX_TASK_RANK": str(rank), "PMI_FD": "4",
            "PMI_RANK": str(rank), "PMI_SIZE": "8", "HOSTNAME": "tioga1%d" % (1 + rank // 4)}


FLUX_FILES = {"hosts": "tioga11 slots=4\ntioga12 slots=4\n"}
sc("flux-run-hostfile-torchrun", "flux", SRC_FLUX, flux_task(5),
   ["flux", "--hostfile", "{tmp}/hosts", "--format", "torchrun"],
   ok_exports(torch_vars("tioga11", 8888, 8, 5, 1, 4, 1, 2)), files=FLUX_FILES)
sc("flux-run-auto-hostfile-equals-launch", "flux", SRC_FLUX, flux_task(2),
   ["--hostfile={tmp}/hosts", "--format", "launch"],
   ok_json(launch(8, 2, 2, 4, 0, 2, "tioga11", 8888)), files=FLUX_FILES)
sc("flux-run-without-hostfile", "flux", SRC_FLUX, flux_task(5), ["--format", "torchrun"],
   fail(3, "--hostfile"))
# `flux hostlist > hosts` writes one line, an RFC 29 hostlist (the default output), or with -e
# the hosts blank-separated (flux-core doc/man1/flux-hostlist.rst): read as a host a line is
for name, line in [("compact", "tioga[11-12]\n"), ("expanded", "tioga11 tioga12\n")]:
    sc("flux-run-hostlist-%s-torchrun" % name, "flux",
       SRC_FLUX + "; flux-core doc/man1/flux-hostlist.rst (`flux hostlist` prints one hostlist line)",
       flux_task(5), ["flux", "--hostfile", "{tmp}/hosts", "--format", "torchrun"],
       ok_exports(torch_vars("tioga11", 8888, 8, 5, 1, 4, 1, 2)), files={"hosts": line})

# --------------------------------------------------------------------------------------------
# Kubernetes-native: Volcano, LeaderWorkerSet
# --------------------------------------------------------------------------------------------

SRC_VOLCANO = ("volcano-sh/volcano@ed72c7c pkg/controllers/job/plugins: env/env.go (VK_TASK_INDEX, "
               "VC_TASK_INDEX), svc/svc.go GenerateHosts() (VC_<TASK>_HOSTS, VC_<TASK>_NUM, "
               "<job>-<task>-<i>.<job>), pod hostname = pod name <job>-<task>-<i>")
SRC_VOLCANO_PT = ("volcano-sh/volcano@ed72c7c pkg/controllers/job/plugins/distributed-framework/pytorch/"
                  "pytorch.go OnPodCreate() (MASTER_ADDR=<job>-master-0.<job>, MASTER_PORT=23456, "
                  "WORLD_SIZE = master + workers, RANK = worker index + 1) and "
                  "pkg/webhooks/admission/jobs/mutate/mutate_job.go (the pytorch plugin forces svc)")


def volcano(job, tasks, own_task, own_index, env_plugin=True, extra=None):
    e = {"HOSTNAME": "%s-%s-%d" % (job, own_task, own_index)}
    for t, n in tasks:
        key = t.replace("-", "_").upper()
        e["VC_%s_HOSTS" % key] = ",".join("%s-%s-%d.%s" % (job, t, i, job) for i in range(n))
        e["VC_%s_NUM" % key] = str(n)
    if env_plugin:
        e["VK_TASK_INDEX"] = str(own_index)
        e["VC_TASK_INDEX"] = str(own_index)
    e.update(extra or {})
    return e


def pt_plugin(job, rank, world):
    return {"MASTER_ADDR": "%s-master-0.%s" % (job, job), "MASTER_PORT": "23456",
            "WORLD_SIZE": str(world), "RANK": str(rank)}


VO_PT = volcano("mnist", [("master", 1), ("worker", 2)], "worker", 1,
                extra=pt_plugin("mnist", 2, 3))
sc("volcano-pytorch-env-svc-torchrun", "volcano", SRC_VOLCANO + "; " + SRC_VOLCANO_PT, VO_PT,
   ["--format", "torchrun"],
   ok_exports(torch_vars("mnist-master-0.mnist", 23456, 3, 2, 0, 1, 2, 3)))
sc("volcano-pytorch-env-svc-named-launch", "volcano", SRC_VOLCANO + "; " + SRC_VOLCANO_PT, VO_PT,
   ["volcano", "--format", "launch"],
   ok_json(launch(3, 2, 0, 1, 2, 3, "mnist-master-0.mnist", 23456)))
VO_PT_ONLY = volcano("pytorch-job", [("master", 1), ("worker", 2)], "worker", 0, env_plugin=False,
                     extra=pt_plugin("pytorch-job", 1, 3))
# (no env plugin: the svc plugin's lists and the host name say it is Volcano's)
sc("volcano-pytorch-plugin-only-torchrun", "volcano",
   SRC_VOLCANO_PT + "; docs/user-guide/how_to_use_pytorch_plugin.md example (pytorch plugin alone)",
   VO_PT_ONLY, ["--format", "torchrun"],
   ok_exports(torch_vars("pytorch-job-master-0.pytorch-job", 23456, 3, 1, 0, 1, 1, 3)))
sc("volcano-pytorch-plugin-only-named-torchrun", "volcano", SRC_VOLCANO_PT, VO_PT_ONLY,
   ["volcano", "--format", "torchrun"],
   ok_exports(torch_vars("pytorch-job-master-0.pytorch-job", 23456, 3, 1, 0, 1, 1, 3)))
TFD = [("ps", 2), ("worker", 3)]


def tfd_hosts(t, n, port):
    return ["tf-dist-%s-%d.tf-dist:%d" % (t, i, port) for i in range(n)]


sc("volcano-tf-ps-tfconfig-port", "volcano", SRC_VOLCANO, volcano("tf-dist", TFD, "ps", 0),
   ["--port", "2222"],
   ok_json({"cluster": {"ps": tfd_hosts("ps", 2, 2222), "worker": tfd_hosts("worker", 3, 2222)},
            "task": {"type": "ps", "index": 0}, "rpc_layer": "", "environment": ""}))
sc("volcano-tf-worker-spec", "volcano", SRC_VOLCANO, volcano("tf-dist", TFD, "worker", 2),
   ["--format", "spec"],
   ok_json({"ps": tfd_hosts("ps", 2, 8470), "worker": tfd_hosts("worker", 3, 8470)}))
sc("volcano-hostname-option-master", "volcano", SRC_VOLCANO,
   {k: v for k, v in volcano("tf-dist", TFD, "worker", 2).items() if k != "HOSTNAME"},
   ["volcano", "--hostname=tf-dist-worker-2", "--format", "master"],
   ok_lines(["tf-dist-worker-2.tf-dist:8470"]))
sc("volcano-port-equals-coordinator", "volcano", SRC_VOLCANO, volcano("tf-dist", TFD, "worker", 2),
   ["volcano", "--port=2222", "--format", "coordinator"], ok_lines(["tf-dist-ps-0.tf-dist:2222"]))

SRC_LWS = ("kubernetes-sigs/lws@060ab4d pkg/utils/pod/pod_utils.go AddLWSVariables() "
           "(LWS_LEADER_ADDRESS=<lws>-<group>.<subdomain>.<ns>, LWS_GROUP_SIZE, LWS_WORKER_INDEX); "
           "worker pods <lws>-<group>-<i>, subdomain = the LWS name")


def lws(group, index, size=4, name="vllm"):
    return {"LWS_LEADER_ADDRESS": "%s-%d.%s.default" % (name, group, name),
            "LWS_GROUP_SIZE": str(size), "LWS_WORKER_INDEX": str(index),
            "HOSTNAME": "%s-%d" % (name, group) if index == 0 else "%s-%d-%d" % (name, group, index)}


LWS0 = ["vllm-0.vllm.default:8470"] + ["vllm-0-%d.vllm.default:8470" % i for i in (1, 2, 3)]
sc("lws-worker-spec", "lws", SRC_LWS, lws(0, 2), ["--format", "spec"], ok_json({"worker": LWS0}))
sc("lws-worker-torchrun", "lws", SRC_LWS, lws(0, 2), ["--format", "torchrun"],
   ok_exports(torch_vars("vllm-0.vllm.default", 8470, 4, 2, 0, 1, 2, 4)))
sc("lws-leader-launch", "lws", SRC_LWS, lws(0, 0), ["--format", "launch"],
   ok_json(launch(4, 0, 0, 1, 0, 4, "vllm-0.vllm.default", 8470)))
sc("lws-group1-torchrun-node", "lws", SRC_LWS, lws(1, 3), ["--format", "torchrun-node"],
   ok_exports({"PET_NNODES": "4", "PET_NODE_RANK": "3", "PET_MASTER_ADDR": "vllm-1.vllm.default",
               "PET_MASTER_PORT": "8470"}))
sc("lws-port-equals-coordinator", "lws", SRC_LWS, lws(0, 1), ["lws", "--port=29500", "--format",
                                                             "coordinator"],
   ok_lines(["vllm-0.vllm.default:29500"]))
sc("lws-job-name-equals-spec", "lws", SRC_LWS, lws(0, 1), ["lws", "--job-name=inference",
                                                          "--format", "spec"],
   ok_json({"inference": LWS0}))
sc("lws-auto-port-torchrun", "lws", SRC_LWS, lws(0, 3), ["--port", "29500", "--format", "torchrun"],
   ok_exports(torch_vars("vllm-0.vllm.default", 29500, 4, 3, 0, 1, 3, 4)))

# --------------------------------------------------------------------------------------------
# Clouds: SageMaker, Vertex AI, SkyPilot, AWS Batch
# --------------------------------------------------------------------------------------------

SRC_SM = ("aws/sagemaker-training-toolkit@01b633c ENVIRONMENT_VARIABLES.md (SM_HOSTS, SM_CURRENT_HOST, "
          "SM_NUM_GPUS, SM_NETWORK_INTERFACE_NAME, SM_RESOURCE_CONFIG, ...)")
SRC_SM_RC = ("SageMaker developer guide, How Amazon SageMaker Provides Training Information "
             "(docs.aws.amazon.com/sagemaker/latest/dg/your-algorithms-training-algo-running-container"
             ".html): /opt/ml/input/config/resourceconfig.json {current_host, current_instance_type, "
             "current_group_name, hosts, instance_groups, network_interface_name}")


def sm_env(hosts, current, extra=None):
    hl = _json.dumps(hosts, separators=(",", ":"))
    e = {"SM_HOSTS": hl, "SM_CURRENT_HOST": current, "SM_NUM_GPUS": "8", "SM_NUM_CPUS": "96",
         "SM_NUM_NEURONS": "0", "SM_LOG_LEVEL": "20", "SM_NETWORK_INTERFACE_NAME": "eth0",
         "SM_CURRENT_INSTANCE_TYPE": "ml.p4d.24xlarge", "SM_CURRENT_INSTANCE_GROUP": "homogeneousCluster",
         "SM_INSTANCE_GROUPS": "[\"homogeneousCluster\"]", "SM_IS_HETERO": "false",
         "SM_MODEL_DIR": "/opt/ml/model", "SM_INPUT_DIR": "/opt/ml/input",
         "SM_INPUT_CONFIG_DIR": "/opt/ml/input/config", "SM_OUTPUT_DATA_DIR": "/opt/ml/output/data/" + current,
         "SM_CHANNELS": "[\"train\"]", "SM_CHANNEL_TRAIN": "/opt/ml/input/data/train",
         "SM_USER_ARGS": "[]", "SM_MODULE_NAME": "train",
         "SM_RESOURCE_CONFIG": _json.dumps({"current_host": current, "hosts": hosts},
                                           separators=(",", ":"))}
    e.update(extra or {})
    return e


def sm_rc(hosts, current):
    return _json.dumps({"current_host": current, "current_instance_type": "ml.p4d.24xlarge",
                        "current_group_name": "homogeneousCluster", "hosts": hosts,
                        "instance_groups": [{"instance_group_name": "homogeneousCluster",
                                             "instance_type": "ml.p4d.24xlarge", "hosts": hosts}],
                        "network_interface_name": "eth0"})


SM2 = sm_env(["algo-1", "algo-2"], "algo-2")
sc("sagemaker-env-torchrun-node", "sagemaker", SRC_SM, SM2, ["--format", "torchrun-node"],
   ok_exports({"PET_NNODES": "2", "PET_NODE_RANK": "1", "PET_MASTER_ADDR": "algo-1",
               "PET_MASTER_PORT": "2223"}))
sc("sagemaker-env-torchrun", "sagemaker", SRC_SM, SM2, ["--format", "torchrun"],
   ok_exports(torch_vars("algo-1", 2223, 2, 1, 0, 1, 1, 2)))
SM12_HOSTS = sorted("algo-%d" % i for i in range(1, 13))   # SM_HOSTS is sorted as text
SM12 = sm_env(SM12_HOSTS, "algo-10")
sc("sagemaker-12-hosts-spec-natural-order", "sagemaker",
   SRC_SM + " (hosts sorted lexicographically in SM_HOSTS); cluster-resolve(1): natural order",
   SM12, ["--format", "spec"],
   ok_json({"worker": ["algo-%d:2223" % i for i in range(1, 13)]}))
sc("sagemaker-12-hosts-torchrun-node", "sagemaker", SRC_SM, SM12, ["--format", "torchrun-node"],
   ok_exports({"PET_NNODES": "12", "PET_NODE_RANK": "9", "PET_MASTER_ADDR": "algo-1",
               "PET_MASTER_PORT": "2223"}))
sc("sagemaker-resource-config-only-named", "sagemaker",
   SRC_SM_RC + " (a bring-your-own container: no SM_* variables without the toolkit)", {},
   ["sagemaker", "--resource-config", "{tmp}/resourceconfig.json", "--format", "spec"],
   ok_json({"worker": ["algo-1:2223", "algo-2:2223"]}),
   files={"resourceconfig.json": sm_rc(["algo-1", "algo-2"], "algo-1")})
sc("sagemaker-resource-config-only-torchrun-node", "sagemaker", SRC_SM_RC, {},
   ["sagemaker", "--resource-config={tmp}/resourceconfig.json", "--format", "torchrun-node"],
   ok_exports({"PET_NNODES": "2", "PET_NODE_RANK": "0", "PET_MASTER_ADDR": "algo-1",
               "PET_MASTER_PORT": "2223"}),
   files={"resourceconfig.json": sm_rc(["algo-1", "algo-2"], "algo-1")})
sc("sagemaker-env-and-resource-config-auto", "sagemaker", SRC_SM + "; " + SRC_SM_RC, SM2,
   ["--resource-config={tmp}/resourceconfig.json", "--format", "torchrun-node"],
   ok_exports({"PET_NNODES": "2", "PET_NODE_RANK": "1", "PET_MASTER_ADDR": "algo-1",
               "PET_MASTER_PORT": "2223"}),
   files={"resourceconfig.json": sm_rc(["algo-1", "algo-2"], "algo-2")})
sc("sagemaker-resource-config-missing", "sagemaker", SRC_SM, SM2,
   ["sagemaker", "--resource-config", "{tmp}/nowhere/resourceconfig.json", "--format", "spec"],
   fail(3, "nowhere/resourceconfig.json"))
sc("sagemaker-resource-config-disagrees", "sagemaker", SRC_SM + "; " + SRC_SM_RC, SM2,
   ["sagemaker", "--resource-config", "{tmp}/resourceconfig.json", "--format", "spec"],
   fail(3, "current_host"),
   files={"resourceconfig.json": sm_rc(["algo-1", "algo-2"], "algo-1")})
sc("sagemaker-single-instance-master-empty-line", "sagemaker", SRC_SM, sm_env(["algo-1"], "algo-1"),
   ["--format", "master"], ok_lines([""]))
sc("sagemaker-port-equals-coordinator", "sagemaker", SRC_SM, SM2,
   ["sagemaker", "--port=29500", "--format", "coordinator"], ok_lines(["algo-1:29500"]))
sc("sagemaker-job-name-equals-spec", "sagemaker", SRC_SM, SM2,
   ["sagemaker", "--job-name=trainer", "--format", "spec"],
   ok_json({"trainer": ["algo-1:2223", "algo-2:2223"]}))
SM_HETERO = sm_env(["algo-1", "algo-2", "algo-3"], "algo-2", extra={
    "SM_CURRENT_INSTANCE_GROUP": "train", "SM_INSTANCE_GROUPS": "[\"data\",\"train\"]",
    "SM_IS_HETERO": "true", "SM_CURRENT_INSTANCE_GROUP_HOSTS": "[\"algo-2\",\"algo-3\"]",
    "SM_INSTANCE_GROUPS_DICT": _json.dumps({
        "data": {"instance_group_name": "data", "instance_type": "ml.c5.18xlarge",
                 "hosts": ["algo-1"]},
        "train": {"instance_group_name": "train", "instance_type": "ml.p4d.24xlarge",
                  "hosts": ["algo-2", "algo-3"]}})})
sc("sagemaker-instance-groups-spec", "sagemaker",
   SRC_SM + "; SageMaker heterogeneous clusters (docs.aws.amazon.com/sagemaker/latest/dg/"
   "train-heterogeneous-cluster.html): SM_INSTANCE_GROUPS_DICT, SM_CURRENT_INSTANCE_GROUP",
   SM_HETERO, ["sagemaker", "--instance-groups", "--format", "spec"],
   ok_json({"data": ["algo-1:2223"], "train": ["algo-2:2223", "algo-3:2223"]}))

SRC_VERTEX = ("Vertex AI, Distributed training (cloud.google.com/vertex-ai/docs/training/distributed-"
              "training): CLUSTER_SPEC {cluster: {workerpool0..3: [host:port]}, environment: cloud, "
              "task: {type, index, trial}}; TF_CONFIG beside it (chief/worker/ps/evaluator)")
VX_CLUSTER = {"workerpool0": ["cmle-training-workerpool0-9c8f3a-0:2222"],
              "workerpool1": ["cmle-training-workerpool1-9c8f3a-0:2222",
                              "cmle-training-workerpool1-9c8f3a-1:2222"]}
VX_SPEC = {"cluster": VX_CLUSTER, "environment": "cloud",
           "task": {"type": "workerpool1", "index": 1, "trial": ""}, "job": {"worker_pool_specs": []}}
VX = {"CLUSTER_SPEC": _json.dumps(VX_SPEC)}
VX_MASTER = "cmle-training-workerpool0-9c8f3a-0"
sc("vertex-cluster-spec-torchrun", "vertex", SRC_VERTEX, VX, ["--format", "torchrun"],
   ok_exports(torch_vars(VX_MASTER, 2222, 3, 2, 0, 1, 2, 3)))
sc("vertex-cluster-spec-spec", "vertex", SRC_VERTEX, VX, ["--format", "spec"], ok_json(VX_CLUSTER))
sc("vertex-cluster-spec-master", "vertex", SRC_VERTEX, VX, ["vertex", "--format", "master"],
   ok_lines(["cmle-training-workerpool1-9c8f3a-1:2222"]))
VX_TF = dict(VX, TF_CONFIG=_json.dumps({
    "cluster": {"chief": VX_CLUSTER["workerpool0"], "worker": VX_CLUSTER["workerpool1"]},
    "environment": "cloud", "task": {"type": "worker", "index": 1}}))
sc("vertex-both-variables-launch", "vertex", SRC_VERTEX, VX_TF, ["--format", "launch"],
   ok_json(launch(3, 2, 0, 1, 2, 3, VX_MASTER, 2222)))
sc("vertex-cluster-spec-option-equals", "vertex", SRC_VERTEX, {},
   ["vertex", "--cluster-spec=" + _json.dumps(VX_SPEC), "--format", "spec"], ok_json(VX_CLUSTER))

SRC_SKY = ("skypilot-org/skypilot docs/source/running-jobs/environment-variables.rst (run: "
           "SKYPILOT_NODE_RANK, SKYPILOT_NODE_IPS one IP per line, SKYPILOT_NUM_NODES, "
           "SKYPILOT_NUM_GPUS_PER_NODE, SKYPILOT_TASK_ID; setup: SKYPILOT_SETUP_NODE_RANK, "
           "SKYPILOT_SETUP_NODE_IPS)")
SKY_IPS = "10.128.0.5\n10.128.0.6\n10.128.0.7"


def sky(rank):
    return {"SKYPILOT_NODE_RANK": str(rank), "SKYPILOT_NODE_IPS": SKY_IPS, "SKYPILOT_NUM_NODES": "3",
            "SKYPILOT_NUM_GPUS_PER_NODE": "8",
            "SKYPILOT_TASK_ID": "sky-2026-11-02-10-11-12-123456_mycluster_1"}


sc("skypilot-run-torchrun-node", "skypilot", SRC_SKY, sky(2), ["--format", "torchrun-node"],
   ok_exports({"PET_NNODES": "3", "PET_NODE_RANK": "2", "PET_MASTER_ADDR": "10.128.0.5",
               "PET_MASTER_PORT": "8470"}))
sc("skypilot-run-port-equals-torchrun-node", "skypilot", SRC_SKY + " (the docs' torchrun uses 8008)",
   sky(0), ["skypilot", "--port=8008", "--format", "torchrun-node"],
   ok_exports({"PET_NNODES": "3", "PET_NODE_RANK": "0", "PET_MASTER_ADDR": "10.128.0.5",
               "PET_MASTER_PORT": "8008"}))
sc("skypilot-run-spec", "skypilot", SRC_SKY, sky(1), ["--format", "spec"],
   ok_json({"worker": ["10.128.0.5:8470", "10.128.0.6:8470", "10.128.0.7:8470"]}))
sc("skypilot-run-torchrun", "skypilot", SRC_SKY, sky(1), ["--format", "torchrun"],
   ok_exports(torch_vars("10.128.0.5", 8470, 3, 1, 0, 1, 1, 3)))
sc("skypilot-run-job-name-equals", "skypilot", SRC_SKY, sky(1),
   ["skypilot", "--job-name=trainer", "--format", "spec"],
   ok_json({"trainer": ["10.128.0.5:8470", "10.128.0.6:8470", "10.128.0.7:8470"]}))
sc("skypilot-setup-stage-refused", "skypilot", SRC_SKY,
   {"SKYPILOT_SETUP_NODE_RANK": "1", "SKYPILOT_SETUP_NODE_IPS": SKY_IPS,
    "SKYPILOT_SETUP_NUM_GPUS_PER_NODE": "8"},
   ["--format", "launch"], fail(3, "SKYPILOT_SETUP"))

SRC_AWSB = ("AWS Batch user guide, Multi-node parallel jobs: environment variables (docs.aws.amazon.com/"
            "batch/latest/userguide/mnp-env-vars.html): AWS_BATCH_JOB_NODE_INDEX, AWS_BATCH_JOB_NUM_NODES, "
            "AWS_BATCH_JOB_MAIN_NODE_INDEX, AWS_BATCH_JOB_MAIN_NODE_PRIVATE_IPV4_ADDRESS (set on the "
            "child nodes only); AWS_BATCH_JOB_ID <id>#<node>, AWS_BATCH_JQ_NAME, AWS_BATCH_CE_NAME")


def awsb(node, main_ip=True):
    e = {"AWS_BATCH_JOB_ID": "8a1df6c2-3c5e-4b70-9d5e-5b4f1f3c2a10#%d" % node,
         "AWS_BATCH_JOB_ATTEMPT": "1", "AWS_BATCH_JQ_NAME": "gpu-queue", "AWS_BATCH_CE_NAME": "gpu-ce",
         "AWS_BATCH_JOB_NODE_INDEX": str(node), "AWS_BATCH_JOB_NUM_NODES": "4",
         "AWS_BATCH_JOB_MAIN_NODE_INDEX": "0"}
    if node != 0 and main_ip:
        e["AWS_BATCH_JOB_MAIN_NODE_PRIVATE_IPV4_ADDRESS"] = "10.0.1.5"
    return e


sc("awsbatch-main-node-torchrun-node", "awsbatch", SRC_AWSB, awsb(0), ["--format", "torchrun-node"],
   ok_exports({"PET_NNODES": "4", "PET_NODE_RANK": "0", "PET_MASTER_ADDR": "localhost",
               "PET_MASTER_PORT": "29500"}))
sc("awsbatch-main-node-main-host-equals", "awsbatch", SRC_AWSB, awsb(0),
   ["awsbatch", "--main-host=10.0.1.5", "--format", "torchrun-node"],
   ok_exports({"PET_NNODES": "4", "PET_NODE_RANK": "0", "PET_MASTER_ADDR": "10.0.1.5",
               "PET_MASTER_PORT": "29500"}))
sc("awsbatch-child-torchrun-node", "awsbatch", SRC_AWSB, awsb(2), ["--format", "torchrun-node"],
   ok_exports({"PET_NNODES": "4", "PET_NODE_RANK": "2", "PET_MASTER_ADDR": "10.0.1.5",
               "PET_MASTER_PORT": "29500"}))
sc("awsbatch-child-torchrun", "awsbatch", SRC_AWSB, awsb(2), ["--format", "torchrun"],
   ok_exports(torch_vars("10.0.1.5", 29500, 4, 2, 0, 1, 2, 4)))
sc("awsbatch-child-hostfile-coordinator-only", "awsbatch", SRC_AWSB, awsb(2),
   ["--format", "hostfile"], fail(3, *COORD_ONLY_WORDS))
sc("awsbatch-child-port-coordinator", "awsbatch", SRC_AWSB, awsb(3),
   ["awsbatch", "--port", "29400", "--format", "coordinator"], ok_lines(["10.0.1.5:29400"]))
sc("awsbatch-auto-port-torchrun-node", "awsbatch", SRC_AWSB, awsb(1),
   ["--port=29400", "--format", "torchrun-node"],
   ok_exports({"PET_NNODES": "4", "PET_NODE_RANK": "1", "PET_MASTER_ADDR": "10.0.1.5",
               "PET_MASTER_PORT": "29400"}))

# --------------------------------------------------------------------------------------------
# TPUs on GKE and JAX's own variables
# --------------------------------------------------------------------------------------------

SRC_GKE_TPU = ("GKE, Deploy TPU workloads (cloud.google.com/kubernetes-engine/docs/how-to/tpus): GKE sets "
               "TPU_WORKER_ID and TPU_WORKER_HOSTNAMES in multi-host slices (TPU_PROCESS_ADDRESSES and "
               "TPU_PROCESS_PORT=8476 as kubernetes-sigs/lws@060ab4d pkg/utils/accelerators/tpu.go "
               "writes them); jax-ml/jax@cec06d1 jax/_src/clusters/cloud_tpu_cluster.py: coordinator = "
               "first worker's host at port 8482, process id = slice id x workers + TPU_WORKER_ID")
SRC_MULTISLICE = (SRC_GKE_TPU + "; JobSet's coordinator label (<js>-<rjob>-0-0.<js>) as "
                  "MEGASCALE_COORDINATOR_ADDRESS, MEGASCALE_NUM_SLICES, MEGASCALE_SLICE_ID, "
                  "MEGASCALE_PORT (kubernetes-sigs/jobset, xpk)")


def gke_tpu(worker, hosts, extra=None):
    e = {"TPU_WORKER_ID": str(worker), "TPU_WORKER_HOSTNAMES": ",".join(hosts),
         "TPU_ACCELERATOR_TYPE": "v5litepod-16", "TPU_TOPOLOGY": "4x4", "TPU_SKIP_MDS_QUERY": "true",
         "TPU_HOST_BOUNDS": "2,2,1", "TPU_CHIPS_PER_HOST_BOUNDS": "2,2,1",
         "JOB_COMPLETION_INDEX": str(worker)}
    e.update(extra or {})
    return e


TPU_HOSTS = ["tpu-job-%d.headless-svc" % i for i in range(4)]
sc("gke-tpu-slice-jax", "gke-tpu", SRC_GKE_TPU, gke_tpu(2, TPU_HOSTS, {"HOSTNAME": "tpu-job-2"}),
   ["--format", "jax"],
   ok_exports({"JAX_COORDINATOR_ADDRESS": "tpu-job-0.headless-svc:8482", "JAX_NUM_PROCESSES": "4",
               "JAX_PROCESS_ID": "2"}))
sc("gke-tpu-slice-process-addresses-jax", "gke-tpu", SRC_GKE_TPU,
   gke_tpu(1, TPU_HOSTS, {"HOSTNAME": "tpu-job-1",
                          "TPU_PROCESS_ADDRESSES": ",".join(h + ":8476" for h in TPU_HOSTS),
                          "TPU_PROCESS_PORT": "8476"}),
   ["--format", "jax"],
   ok_exports({"JAX_COORDINATOR_ADDRESS": "tpu-job-0.headless-svc:8482", "JAX_NUM_PROCESSES": "4",
               "JAX_PROCESS_ID": "1"}))
sc("gke-tpu-slice-named-tpu-local-jax", "gke-tpu", SRC_GKE_TPU,
   gke_tpu(3, TPU_HOSTS, {"HOSTNAME": "tpu-job-3"}), ["tpu", "--tpu=local", "--format", "jax"],
   ok_exports({"JAX_COORDINATOR_ADDRESS": "tpu-job-0.headless-svc:8482", "JAX_NUM_PROCESSES": "4",
               "JAX_PROCESS_ID": "3"}))
MS_HOSTS = ["llm-slice-1-%d.llm" % i for i in range(4)]
MS = gke_tpu(2, MS_HOSTS, {"MEGASCALE_COORDINATOR_ADDRESS": "llm-slice-0-0.llm",
                           "MEGASCALE_NUM_SLICES": "2", "MEGASCALE_SLICE_ID": "1",
                           "MEGASCALE_PORT": "8080", "HOSTNAME": "llm-slice-1-2"})
sc("gke-multislice-jax", "gke-tpu", SRC_MULTISLICE, MS, ["--format", "jax"],
   ok_exports({"JAX_COORDINATOR_ADDRESS": "llm-slice-0-0.llm:8482", "JAX_NUM_PROCESSES": "8",
               "JAX_PROCESS_ID": "6"}))
sc("gke-multislice-spec-coordinator-only", "gke-tpu", SRC_MULTISLICE, MS, ["--format", "spec"],
   fail(3, *COORD_ONLY_WORDS))
sc("ray-multislice-coordinator-with-port-jax", "gke-tpu",
   SRC_GKE_TPU + "; Ray's TPU support sets MEGASCALE_COORDINATOR_ADDRESS=<ip>:<megascale port>",
   gke_tpu(0, ["10.0.0.%d" % i for i in (10, 11, 12, 13)],
           {"MEGASCALE_COORDINATOR_ADDRESS": "10.0.0.2:8081", "MEGASCALE_NUM_SLICES": "2",
            "MEGASCALE_SLICE_ID": "1", "MEGASCALE_PORT": "8081"}),
   ["--format", "jax"],
   ok_exports({"JAX_COORDINATOR_ADDRESS": "10.0.0.2:8482", "JAX_NUM_PROCESSES": "8",
               "JAX_PROCESS_ID": "4"}))

SRC_JAX = ("jax-ml/jax@cec06d1 jax/_src/distributed.py (JAX_COORDINATOR_ADDRESS, JAX_COORDINATOR_PORT); "
           "JAX_NUM_PROCESSES/JAX_PROCESS_ID as Kubeflow Trainer and user scripts export them")
J4 = {"JAX_COORDINATOR_ADDRESS": "10.0.0.1:1234", "JAX_NUM_PROCESSES": "4", "JAX_PROCESS_ID": "2"}
sc("jax-vars-jax", "jax", SRC_JAX, J4, ["--format", "jax"], ok_exports(J4))
sc("jax-vars-coordinator", "jax", SRC_JAX, J4, ["--format", "coordinator"],
   ok_lines(["10.0.0.1:1234"]))
sc("jax-vars-portless-refused", "jax", SRC_JAX, dict(J4, JAX_COORDINATOR_ADDRESS="10.0.0.1"),
   ["--format", "jax"], fail(3, "JAX_COORDINATOR"))
sc("jax-vars-portless-with-port-variable", "jax", SRC_JAX,
   dict(J4, JAX_COORDINATOR_ADDRESS="10.0.0.1", JAX_COORDINATOR_PORT="1234"), ["--format", "jax"],
   ok_exports(J4))
sc("jax-vars-ipv6-coordinator", "jax", SRC_JAX, dict(J4, JAX_COORDINATOR_ADDRESS="[fd00::1]:1234"),
   ["--format", "coordinator"], ok_lines(["[fd00::1]:1234"]))
sc("jax-vars-ipv6-launch", "jax", SRC_JAX, dict(J4, JAX_COORDINATOR_ADDRESS="[fd00::1]:1234"),
   ["--format", "launch"], ok_json(launch(4, 2, None, None, None, None, "fd00::1", 1234)))
sc("jax-vars-hostfile-coordinator-only", "jax", SRC_JAX, J4, ["--format", "hostfile"],
   fail(3, *COORD_ONLY_WORDS))
sc("jax-vars-torchrun-four-variables", "jax", SRC_JAX, J4, ["--format", "torchrun"],
   ok_exports({"MASTER_ADDR": "10.0.0.1", "MASTER_PORT": "1234", "WORLD_SIZE": "4", "RANK": "2"}))

# --------------------------------------------------------------------------------------------
# torch variables from other launchers
# --------------------------------------------------------------------------------------------

SRC_RAY = ("ray-project/ray python/ray/train/torch/config.py _set_torch_distributed_env_vars(): "
           "MASTER_ADDR, MASTER_PORT, RANK, LOCAL_RANK, WORLD_SIZE, LOCAL_WORLD_SIZE, NODE_RANK")
RAY = {"MASTER_ADDR": "10.0.0.5", "MASTER_PORT": "41234", "RANK": "5", "LOCAL_RANK": "1",
       "WORLD_SIZE": "8", "LOCAL_WORLD_SIZE": "4", "NODE_RANK": "1"}
sc("ray-train-torchrun", "ray-train", SRC_RAY, RAY, ["--format", "torchrun"],
   ok_exports({"MASTER_ADDR": "10.0.0.5", "MASTER_PORT": "41234", "WORLD_SIZE": "8", "RANK": "5",
               "LOCAL_RANK": "1", "LOCAL_WORLD_SIZE": "4", "GROUP_RANK": "1"}))
sc("ray-train-launch", "ray-train", SRC_RAY, RAY, ["--format", "launch"],
   ok_json(launch(8, 5, 1, 4, 1, None, "10.0.0.5", 41234)))
sc("lightning-subprocess-no-rank", "lightning",
   "Lightning-AI/pytorch-lightning@7f0c343 src/lightning/fabric/strategies/launchers/"
   "subprocess_script.py: children get MASTER_ADDR, MASTER_PORT, NODE_RANK, LOCAL_RANK, WORLD_SIZE "
   "(no RANK)",
   {"MASTER_ADDR": "10.0.0.5", "MASTER_PORT": "51234", "NODE_RANK": "1", "LOCAL_RANK": "1",
    "WORLD_SIZE": "8"}, ["--format", "torchrun"], fail(3, "RANK"))

# --------------------------------------------------------------------------------------------
# Launchers without a backend: never answered "alone"
# --------------------------------------------------------------------------------------------

sc("horovodrun-gloo-not-alone", "horovod",
   "horovod/horovod@2626dc8 horovod/runner/gloo_run.py create_slot_env_vars(), create_run_env_vars()",
   {"HOROVOD_HOSTNAME": "node02", "HOROVOD_RANK": "5", "HOROVOD_SIZE": "8",
    "HOROVOD_LOCAL_RANK": "1", "HOROVOD_LOCAL_SIZE": "4", "HOROVOD_CROSS_RANK": "1",
    "HOROVOD_CROSS_SIZE": "2", "HOROVOD_GLOO_RENDEZVOUS_ADDR": "10.1.0.1",
    "HOROVOD_GLOO_RENDEZVOUS_PORT": "39101", "HOROVOD_CONTROLLER": "gloo",
    "HOROVOD_CPU_OPERATIONS": "gloo", "HOROVOD_GLOO_IFACE": "eth0"},
   ["--format", "launch"], fail(3, "HOROVOD_"))
sc("paddle-launch-not-alone", "paddlepaddle",
   "PaddlePaddle/Paddle python/paddle/distributed/launch/controllers/collective.py (PADDLE_MASTER, "
   "PADDLE_GLOBAL_SIZE, PADDLE_LOCAL_SIZE, PADDLE_GLOBAL_RANK, PADDLE_LOCAL_RANK, PADDLE_NNODES, "
   "PADDLE_TRAINER_ENDPOINTS, PADDLE_CURRENT_ENDPOINT, PADDLE_TRAINER_ID, PADDLE_TRAINERS_NUM, "
   "PADDLE_RANK_IN_NODE, FLAGS_selected_gpus)",
   {"PADDLE_MASTER": "10.0.0.1:6768", "PADDLE_GLOBAL_SIZE": "4", "PADDLE_LOCAL_SIZE": "2",
    "PADDLE_GLOBAL_RANK": "3", "PADDLE_LOCAL_RANK": "1", "PADDLE_NNODES": "2",
    "PADDLE_TRAINER_ENDPOINTS": "10.0.0.1:6170,10.0.0.1:6171,10.0.0.2:6170,10.0.0.2:6171",
    "PADDLE_CURRENT_ENDPOINT": "10.0.0.2:6171", "PADDLE_TRAINER_ID": "3",
    "PADDLE_TRAINERS_NUM": "4", "PADDLE_RANK_IN_NODE": "1", "FLAGS_selected_gpus": "1"},
   ["--format", "launch"], fail(3, "PADDLE_"))
sc("gcp-batch-not-alone", "gcp-batch",
   "Google Cloud Batch, predefined environment variables (cloud.google.com/batch/docs/"
   "create-run-job#environment-variables): BATCH_TASK_INDEX, BATCH_TASK_COUNT, BATCH_HOSTS_FILE "
   "(TaskGroup.requireHostsFile, googleapis/googleapis google/cloud/batch/v1/job.proto), "
   "BATCH_TASK_RETRY_ATTEMPT, BATCH_JOB_UID",
   {"BATCH_TASK_INDEX": "1", "BATCH_TASK_COUNT": "4", "BATCH_TASK_RETRY_ATTEMPT": "0",
    "BATCH_HOSTS_FILE": "/etc/cloudbatch-taskgroup-hosts", "BATCH_JOB_UID": "j-3f1b9c2e"},
   ["--format", "torchrun"], fail(3, "BATCH_"))
sc("azure-batch-multi-instance-not-alone", "azure-batch",
   "Azure Batch compute node environment variables (learn.microsoft.com/azure/batch/"
   "batch-compute-node-environment-variables): AZ_BATCH_HOST_LIST, AZ_BATCH_MASTER_NODE, "
   "AZ_BATCH_IS_CURRENT_NODE_MASTER, AZ_BATCH_NODE_ID, AZ_BATCH_TASK_ID (multi-instance tasks)",
   {"AZ_BATCH_ACCOUNT_NAME": "mlbatch", "AZ_BATCH_POOL_ID": "gpu-pool", "AZ_BATCH_JOB_ID": "train",
    "AZ_BATCH_TASK_ID": "mpi-task", "AZ_BATCH_NODE_ID": "tvmps_2b3c4d_d",
    "AZ_BATCH_HOST_LIST": "10.0.0.4,10.0.0.5,10.0.0.6", "AZ_BATCH_MASTER_NODE": "10.0.0.4:6000",
    "AZ_BATCH_IS_CURRENT_NODE_MASTER": "false",
    "AZ_BATCH_TASK_SHARED_DIR": "/mnt/batch/tasks/workitems/train/job-1/mpi-task"},
   ["--format", "launch"], fail(3, "AZ_BATCH_"))
sc("htcondor-parallel-not-alone", "htcondor",
   "HTCondor manual, Parallel Applications (htcondor.readthedocs.io/en/latest/users-manual/"
   "parallel-applications.html): _CONDOR_PROCNO, _CONDOR_NPROCS, _CONDOR_SCRATCH_DIR, _CONDOR_JOB_AD",
   {"_CONDOR_PROCNO": "2", "_CONDOR_NPROCS": "4", "_CONDOR_SCRATCH_DIR": "/var/lib/condor/execute/dir_1",
    "_CONDOR_JOB_AD": "/var/lib/condor/execute/dir_1/.job.ad", "_CONDOR_SLOT": "slot1_1"},
   ["--format", "launch"], fail(3, "_CONDOR_"))
sc("trainer-xgboost-not-alone", "kubeflow-trainer",
   "kubeflow/trainer@8c0f505 pkg/runtime/framework/plugins/xgboost/xgboost.go EnforceMLPolicy() "
   "(DMLC_TRACKER_URI=<tj>-node-0-0.<tj>, DMLC_TRACKER_PORT=29500, DMLC_TASK_ID, DMLC_NUM_WORKER)",
   {"DMLC_TRACKER_URI": "xgb-node-0-0.xgb", "DMLC_TRACKER_PORT": "29500", "DMLC_TASK_ID": "1",
    "DMLC_NUM_WORKER": "2", "JOB_COMPLETION_INDEX": "1", "HOSTNAME": "xgb-node-0-1"},
   ["--format", "launch"], fail(3, ("DMLC_", "JOB_COMPLETION_INDEX")))
sc("byteps-worker-not-alone", "byteps",
   "bytedance/byteps docs/step-by-step-tutorial.md (bpslaunch workers: DMLC_ROLE, DMLC_PS_ROOT_URI, "
   "DMLC_PS_ROOT_PORT, DMLC_WORKER_ID, DMLC_NUM_WORKER, DMLC_NUM_SERVER)",
   {"DMLC_ROLE": "worker", "DMLC_PS_ROOT_URI": "10.0.0.1", "DMLC_PS_ROOT_PORT": "9000",
    "DMLC_WORKER_ID": "1", "DMLC_NUM_WORKER": "2", "DMLC_NUM_SERVER": "1"},
   ["--format", "launch"], fail(3, "DMLC_"))
sc("pai-dlc-node-level-refused", "pai-dlc",
   "Alibaba Cloud PAI-DLC, General environment variables (alibabacloud.com/help/en/pai/user-guide/"
   "general-environment-variables): MASTER_ADDR, MASTER_PORT, WORLD_SIZE = number of nodes, "
   "RANK = node index, NPROC_PER_NODE",
   {"MASTER_ADDR": "dlc1abc-master-0", "MASTER_PORT": "23456", "WORLD_SIZE": "2", "RANK": "1",
    "NPROC_PER_NODE": "8"},
   ["--format", "torchrun"], fail(3, "NPROC_PER_NODE"))

# --------------------------------------------------------------------------------------------
# No launcher at all
# --------------------------------------------------------------------------------------------

SRC_LOCAL = "cluster-resolve(1): local, one task, job worker at localhost:8470 (--host, --port)"
sc("laptop-launch", "local", SRC_LOCAL, {}, ["--format", "launch"],
   ok_json(launch(1, 0, 0, 1, 0, 1, "localhost", 8470)))
# local is no TF resolver: its master is the own (only) task's address
sc("laptop-master-own-address", "local", SRC_LOCAL, {}, ["--format", "master"],
   ok_lines(["localhost:8470"]))
sc("laptop-tfconfig", "local", SRC_LOCAL, {}, [],
   ok_json({"cluster": {"worker": ["localhost:8470"]}, "task": {"type": "worker", "index": 0},
            "rpc_layer": "", "environment": ""}))
sc("laptop-local-host-port-equals-torchrun", "local", SRC_LOCAL, {},
   ["local", "--host=gpu-box", "--port=29500", "--format=torchrun"],
   ok_exports(torch_vars("gpu-box", 29500, 1, 0, 0, 1, 0, 1)))
sc("laptop-auto-port-coordinator", "local", SRC_LOCAL, {}, ["--port", "29500", "--format",
                                                           "coordinator"],
   ok_lines(["localhost:29500"]))
sc("laptop-simple-spec-equals-master", "local",
   "cluster-resolve(1): simple, the cluster given with --spec", {},
   ["simple", "--spec={\"worker\": [\"a:1\", \"b:1\"]}", "--task-type=worker", "--task-id=1",
    "--format", "master"], ok_lines(["b:1"]))

# --------------------------------------------------------------------------------------------
# The command line
# --------------------------------------------------------------------------------------------

SRC_CLI = "the v0.4 contract: command line and exit codes; cluster-resolve(1) OPTIONS"
for name, args, words in [
    ("cli-k8s-hostfile-not-read", ["k8s", "--hostfile", "h"], ("--hostfile",)),
    ("cli-kubernetes-hostfile-equals-not-read", ["kubernetes", "--hostfile=h"], ("--hostfile",)),
    ("cli-kubernetes-wait-negative", ["kubernetes", "--wait=-1"], ("--wait",)),
    ("cli-k8s-wait-not-a-number", ["k8s", "--wait", "soon"], ("--wait",)),
    ("cli-k8s-address-bad", ["k8s", "--address=nodeip"], ("--address",)),
    ("cli-kubernetes-members-bad", ["kubernetes", "--members", "all"], ("--members",)),
    ("cli-k8s-page-size-zero", ["k8s", "--page-size=0"], ("--page-size",)),
    ("cli-kubernetes-format-unknown", ["kubernetes", "--format=hostfilez"], ("hostfilez",)),
    ("cli-k8s-job-without-selector", ["k8s", "--job", "worker"], ("--job",)),
    ("cli-gce-instance-group-missing", ["gce", "--format", "spec"], ("--instance-group",)),
    ("cli-gce-hostfile-not-read", ["gce", "--instance-group=g", "--hostfile=h"], ("--hostfile",)),
    ("cli-tpu-api-version-bad", ["tpu", "--api-version=v3"], ("--api-version",)),
    ("cli-tpu-accelerators-per-host-zero", ["tpu", "--accelerators-per-host", "0"],
     ("--accelerators-per-host",)),
    ("cli-unknown-backend", ["slurmm", "--format", "spec"], ("slurmm",)),
    ("cli-unknown-option", ["--portt", "1"], ("--portt",)),
    ("cli-format-missing-value", ["--format"], ("--format",)),
    ("cli-task-id-without-task-type", ["--task-id", "3"], ("--task-type",)),
    ("cli-task-id-negative", ["--task-type", "worker", "--task-id=-1"], ("--task-id",)),
    ("cli-port-zero", ["--port", "0"], ("--port",)),
    ("cli-port-too-big-equals", ["--port=65536"], ("--port",)),
    ("cli-port-not-a-number", ["local", "--port", "http"], ("--port",)),
    ("cli-timeout-zero", ["--timeout-ms=0"], ("--timeout-ms",)),
    ("cli-retries-eleven", ["--retries", "11"], ("--retries",)),
    ("cli-jax-hostfile-not-read", ["jax", "--hostfile", "h"], ("--hostfile",)),
    ("cli-torch-port-not-read", ["torch", "--port=29500"], ("--port",)),
    ("cli-sagemaker-hostfile-not-read", ["sagemaker", "--hostfile", "h"], ("--hostfile",)),
    ("cli-mpi-main-host-not-read", ["mpi", "--main-host=h"], ("--main-host",)),
    ("cli-lws-instance-groups-not-read", ["lws", "--instance-groups"], ("--instance-groups",)),
    ("cli-local-resource-config-not-read", ["local", "--resource-config", "f"],
     ("--resource-config",)),
    ("cli-exec-hostfile-cannot-set", ["local", "--format", "hostfile", "--exec", "--", "true"],
     ("hostfile",)),
]:
    sc(name, "command-line", SRC_CLI, {}, args, fail(2, *words))

sc("cli-slurm-resource-config-not-read", "command-line", SRC_CLI + "; " + SRC_SRUN, step_2x4(5),
   ["slurm", "--resource-config", "{tmp}/rc.json"], fail(2, "--resource-config", "slurm"))
sc("cli-auto-slurm-main-host-not-read", "command-line", SRC_CLI + "; " + SRC_SRUN, step_2x4(5),
   ["--main-host", "10.0.0.1", "--format", "torchrun"], fail(2, "--main-host", "slurm"))
sc("cli-slurm-gpus-per-node-too-many", "command-line", SRC_CLI + "; " + SRC_SRUN, step_2x4(5),
   ["slurm", "--gpus-per-node", "5000"], fail(2, "--gpus-per-node"))
sc("cli-slurm-gpus-per-task-zero", "command-line", SRC_CLI + "; " + SRC_SRUN, step_2x4(5),
   ["slurm", "--gpus-per-task=0"], fail(2, "--gpus-per-task"))
sc("cli-slurm-jobs-malformed", "command-line", SRC_CLI + "; " + SRC_SRUN, step_2x4(5),
   ["slurm", "--jobs=worker"], fail(2, "--jobs"))
sc("cli-exec-not-found", "command-line", SRC_CLI + " (126/127: --exec could not run CMD)",
   step_2x4(5), ["--format", "torchrun", "--exec", "--", "no-such-command-xyz"], fail(127))
sc("cli-exec-torchrun-env", "command-line", SRC_CLI + "; " + SRC_SRUN, step_2x4(5),
   ["--format", "torchrun", "--exec", "--", "sh", "-c",
    "echo \"$RANK/$WORLD_SIZE $LOCAL_RANK/$LOCAL_WORLD_SIZE $MASTER_ADDR:$MASTER_PORT\""],
   ok_lines(["5/8 1/4 node01:8888"]))
sc("cli-exec-tfconfig-env", "command-line", SRC_CLI + "; " + SRC_SRUN, step_2x4(5),
   ["--exec", "sh", "-c", "printf '%s\\n' \"$TF_CONFIG\""],
   ok_json({"cluster": {"worker": ALL8}, "task": {"type": "worker", "index": 5},
            "rpc_layer": "grpc", "environment": ""}))
sc("cli-exec-jax-node-gpus", "command-line", SRC_CLI + "; " + SRC_GPU_NEW,
   step_2x4(5, extra=NODE_GPUS),
   ["--format", "jax", "--exec", "--", "sh", "-c",
    "echo \"$JAX_COORDINATOR_ADDRESS $JAX_NUM_PROCESSES $JAX_PROCESS_ID $CUDA_VISIBLE_DEVICES\""],
   ok_lines(["node01:8888 8 5 1"]))
sc("cli-exec-bound-gpu-kept", "command-line", SRC_CLI + "; " + SRC_GPU_NEW,
   step_2x4(5, extra=BOUND_NEW),
   ["--format", "torchrun", "--exec", "--", "sh", "-c", "echo \"$LOCAL_RANK $CUDA_VISIBLE_DEVICES\""],
   ok_lines(["1 1"]))
sc("cli-exec-torchrun-node", "command-line", SRC_CLI + "; " + SRC_SRUN, per_node(1),
   ["--format", "torchrun-node", "--exec", "--", "sh", "-c",
    "echo \"$PET_NNODES $PET_NODE_RANK $PET_MASTER_ADDR $PET_MASTER_PORT\""],
   ok_lines(["2 1 node01 8888"]))

sc("srun-gpus-per-node-equals", "slurm-gpu",
   SRC_SRUN + "; a cluster without GPU gres: Slurm sets no CUDA_VISIBLE_DEVICES", step_2x4(6),
   ["slurm", "--gpus-per-node=4", "--format=torchrun"],
   ok_exports(dict(torch_vars("node01", 8888, 8, 6, 2, 4, 1, 2), CUDA_VISIBLE_DEVICES="2")))
# Every option of the network backends in its --opt=value form: the line is parsed whole, and
# the one error is the format (no request is made).
sc("cli-k8s-every-option-equals", "command-line", SRC_CLI, {},
   ["k8s", "--kubeconfig={tmp}/kubeconfig", "--context=prod", "--namespace=ml",
    "--job=worker=job-name=trainer", "--address=dns", "--wait=300", "--port=8470",
    "--page-size=100", "--cluster-domain=cluster.local", "--members=list", "--timeout-ms=5000",
    "--retries=2", "--resolve-timeout-ms=60000", "--max-response-bytes=1048576",
    "--task-type=worker", "--task-id=0", "--rpc-layer=grpc", "--format=bogus"],
   fail(2, "bogus"))
sc("cli-kubernetes-server-options-equals", "command-line", SRC_CLI, {},
   ["kubernetes", "--server=https://10.0.0.1:6443", "--token-file={tmp}/token",
    "--ca-file={tmp}/ca.crt", "--all-namespaces", "--follow-jobset", "--format=bogus"],
   fail(2, "bogus"))
sc("cli-gce-every-option-equals", "command-line", SRC_CLI, {},
   ["gce", "--instance-group=trainers", "--project=p", "--zone=us-east1-b", "--port=2222",
    "--job-name=worker", "--token-file={tmp}/token", "--compute-url=http://127.0.0.1:9",
    "--ca-file={tmp}/ca.crt", "--metadata-url=http://127.0.0.1:9", "--format=bogus"],
   fail(2, "bogus"))
sc("cli-gce-region-credentials-equals", "command-line", SRC_CLI, {},
   ["gce", "--instance-group=trainers", "--region=us-east1", "--credentials={tmp}/key.json",
    "--format=bogus"], fail(2, "bogus"))
sc("cli-tpu-every-option-equals", "command-line", SRC_CLI, {},
   ["tpu", "--tpu=my-tpu", "--project=p", "--zone=us-central2-b", "--api-version=v1",
    "--job-name=worker", "--coordinator-name=coordinator", "--coordinator-address=10.0.0.9:8476",
    "--allow-unhealthy", "--accelerators-per-host=4", "--tpu-url=http://127.0.0.1:9",
    "--metadata-url=http://127.0.0.1:9", "--token-file={tmp}/token",
    "--credentials={tmp}/key.json", "--ca-file={tmp}/ca.crt", "--format=bogus"],
   fail(2, "bogus"))


def _clean():
    """Builders use None to drop a variable from a copied environment."""
    for s in SCENARIOS:
        s["env"] = {k: v for k, v in s["env"].items() if v is not None}


_clean()

# --------------------------------------------------------------------------------------------
# Seams an outsider found next (each with the launcher's source)
# --------------------------------------------------------------------------------------------

# DeepSpeed's launch.py run straight in an sbatch script: its workers carry the batch
# script's SLURM_* and their own torch names; the innermost launcher is DeepSpeed's.
SRC_DS = ("deepspeedai/DeepSpeed@edaa722 deepspeed/launcher/launch.py main(): MASTER_ADDR, "
          "MASTER_PORT, WORLD_SIZE, RANK, LOCAL_RANK, CROSS_RANK, CROSS_SIZE, LOCAL_SIZE per process")
DS_IN_SBATCH = dict(SBATCH_2x4, MASTER_ADDR="127.0.0.1", MASTER_PORT="29500", WORLD_SIZE="4",
                    RANK="2", LOCAL_RANK="2", CROSS_RANK="0", CROSS_SIZE="1", LOCAL_SIZE="4")
sc("deepspeed-in-sbatch-torchrun", "deepspeed", SRC_DS + "; " + SRC_SBATCH, DS_IN_SBATCH,
   ["--format", "torchrun"],
   ok_exports({"MASTER_ADDR": "127.0.0.1", "MASTER_PORT": "29500", "WORLD_SIZE": "4", "RANK": "2",
               "LOCAL_RANK": "2"}))

# Volcano with the svc plugin alone: no VC_TASK_INDEX, the lists and the host name say it all.
sc("volcano-svc-only-auto-launch", "volcano", SRC_VOLCANO + " (svc plugin alone: no VC_TASK_INDEX)",
   volcano("tf", [("ps", 1), ("worker", 2)], "worker", 1, env_plugin=False), ["--format", "launch"],
   ok_json(launch(3, 2, 0, 1, 2, 3, "tf-ps-0.tf", 8470)))

# A TFJob with an evaluator: TF runs the evaluator outside the cluster; the ranks are the
# chief's and the workers'.
TFJOB_EVAL = {"TF_CONFIG": _json.dumps({"cluster": {"chief": tfjob_hosts("chief", 1),
                                                    "evaluator": tfjob_hosts("evaluator", 1),
                                                    "worker": tfjob_hosts("worker", 2)},
                                        "task": {"type": "worker", "index": 1},
                                        "environment": "cloud"}),
              "HOSTNAME": "dist-mnist-worker-1"}
sc("tfjob-evaluator-takes-no-rank", "kubeflow-tfjob", SRC_TFJOB, TFJOB_EVAL, ["--format", "launch"],
   ok_json(launch(3, 2, 0, 1, 2, 3, "dist-mnist-chief-0.kubeflow.svc", 2222)))

# A TPU slice's pod without TPU_WORKER_ID: which worker this is is unknown; never worker 0.
sc("gke-tpu-worker-id-missing-jax", "gke-tpu", SRC_GKE_TPU,
   {k: v for k, v in gke_tpu(2, TPU_HOSTS, {"HOSTNAME": "tpu-job-2"}).items() if k != "TPU_WORKER_ID"},
   ["--format", "jax"], fail(3, "TPU_WORKER_ID"))

# KubeRay's TPU webhook sets TPU_NAME (the slice) beside the slice's workers: no Cloud TPU lookup.
sc("kuberay-tpu-webhook-jax", "gke-tpu",
   "ray-project/kuberay ray-operator/pkg/webhooks (TPU webhook): TPU_WORKER_HOSTNAMES, TPU_WORKER_ID, "
   "TPU_NAME=<group>-<replica>",
   {"TPU_WORKER_ID": "1", "TPU_WORKER_HOSTNAMES": "tpu-group-0-0,tpu-group-0-1", "TPU_NAME": "tpu-group-0"},
   ["tpu", "--format", "jax"],
   ok_exports({"JAX_COORDINATOR_ADDRESS": "tpu-group-0-0:8482", "JAX_NUM_PROCESSES": "2",
               "JAX_PROCESS_ID": "1"}))

# LeaderWorkerSet with TPU workers and a leader without TPUs: the TPU slice is not the group.
sc("lws-tpu-cpu-leader-refused", "lws", SRC_LWS + "; lws@08b063bd pkg/utils/accelerators/tpu.go",
   dict(lws(0, 2, size=5, name="tpu"), TPU_WORKER_ID="1",
        TPU_WORKER_HOSTNAMES="tpu-0-1.tpu,tpu-0-2.tpu,tpu-0-3.tpu,tpu-0-4.tpu"),
   ["--format", "jax"], fail(3, "TPU_WORKER_ID", "LWS_WORKER_INDEX"))

# Launchers with no backend yet: never "alone".
sc("metaflow-parallel-not-alone", "metaflow",
   "Netflix/metaflow metaflow/plugins/parallel_decorator.py, current.py (MF_PARALLEL_*)",
   {"MF_PARALLEL_NODE_INDEX": "1", "MF_PARALLEL_NUM_NODES": "4", "MF_PARALLEL_MAIN_IP": "10.0.0.7"},
   ["--format", "launch"], fail(3, "MF_PARALLEL_"))
sc("ngc-bcp-replica-not-alone", "ngc",
   "NVIDIA Base Command Platform, multinode jobs (NGC_ARRAY_INDEX, NGC_ARRAY_SIZE, NGC_MASTER_ADDR)",
   {"NGC_ARRAY_INDEX": "1", "NGC_ARRAY_SIZE": "4", "NGC_MASTER_ADDR": "launcher-svc-1",
    "NGC_GPUS_PER_NODE": "8"},
   ["--format", "torchrun"], fail(3, "NGC_ARRAY_"))

# One option given twice with two values is two answers: the command line's fault.
sc("cli-port-and-port-base-disagree", "command-line", "cluster-resolve(1) OPTIONS (--port-base is --port)",
   SBATCH_2x4, ["--port", "29500", "--port-base", "29600", "--format", "hostfile"], fail(2, "--port"))
