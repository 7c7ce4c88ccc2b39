#!/usr/bin/env python3
"""The scheduler backends (pbs, lsf, sge, flux) and the MPI backend's hosts from a scheduler, through the
built cluster-resolve: exact hostfile, machinefile, spec and launch output; bad input (exit 3, nothing on
stdout, the file or variable named); --verbose's source lines; and round trips through --exec and through a
machinefile read back by the mpi backend.

usage: test_cli_sched.py BUILD_DIR      (the directory holding cluster-resolve)

The environments are the shapes tests/test_sched.c cites (PBS's nodefile and Cray PALS's mpiexec, LSF's
LSB_MCPU_HOSTS and LSB_DJOB_RANKFILE with jsrun, Grid Engine's PE_HOSTFILE, Flux's shell variables, Kubeflow
MPIJob's hostfile).
"""
import atexit
import json
import os
import shutil
import sys
import tempfile

from cli_common import CLI, exports, expect_fail, ok, run, run_tests

ENV_BIN = shutil.which("env") or "/usr/bin/env"

TMP = tempfile.mkdtemp(prefix="test_cli_sched.")
atexit.register(shutil.rmtree, TMP, True)


# ---- helpers --------------------------------------------------------------------------------

def launch(args, env=None):
    out = ok(args + ["--format", "launch"], env)
    assert out.endswith("}\n") and out.count("\n") == 1, out
    return json.loads(out)


def launch_doc(world_size, rank, local_rank, local_world_size, node_rank, num_nodes, addr, port):
    return {"world_size": world_size, "rank": rank, "local_rank": local_rank, "local_world_size": local_world_size,
            "node_rank": node_rank, "num_nodes": num_nodes, "master_addr": addr, "master_port": port}


def write(name, text):
    path = os.path.join(TMP, name)
    with open(path, "w") as f:
        f.write(text)
    return path


def workers(*hosts_and_counts, base=8888):
    """["h1:8888", "h1:8889", "h2:8888"] from ("h1", 2, "h2", 1)."""
    out = []
    for host, count in zip(hosts_and_counts[::2], hosts_and_counts[1::2]):
        out += ["%s:%d" % (host, base + k) for k in range(count)]
    return out


# ---- the environments ------------------------------------------------------------------------

# PBS Professional `qsub -l select=2:ncpus=4:mpiprocs=2`: PBS_NODEFILE has a line per slot.
NODEFILE = write("4711.pbs-server", "node01\nnode01\nnode02\nnode02\n")
PBS_JOB = {"PBS_JOBID": "4711.pbs-server", "PBS_NODEFILE": NODEFILE, "PBS_ENVIRONMENT": "PBS_BATCH",
           "PBS_O_WORKDIR": "/home/user/job", "PBS_QUEUE": "workq", "NCPUS": "4"}


def pals(rank, size=4, ppn=2):
    """Rank `rank` of Cray PALS's `mpiexec -n size --ppn ppn` (ALCF Polaris / Aurora)."""
    return dict(PBS_JOB, PALS_RANKID=str(rank), PALS_NODEID=str(rank // ppn), PALS_LOCAL_RANKID=str(rank % ppn),
                PALS_LOCAL_SIZE=str(ppn), PALS_DEPTH="1", PMI_RANK=str(rank), PMI_SIZE=str(size),
                PMI_LOCAL_RANK=str(rank % ppn), PMI_LOCAL_SIZE=str(ppn))


def pbsdsh(vnode):
    """Task `vnode` of Torque's pbsdsh (pbsdsh(1): PBS_VNODENUM, PBS_NODENUM, PBS_TASKNUM; the mother
    superior numbers tasks from 1, the job script's: torque src/resmom/mom_comm.c at 34ff845)."""
    return dict(PBS_JOB, PBS_VNODENUM=str(vnode), PBS_NODENUM=str(vnode // 2), PBS_TASKNUM=str(vnode + 2))


# LSF on a CSM system (Summit): the launch node first with one slot; jsrun's JSM_NAMESPACE_* and Spectrum
# MPI's Open MPI names.
RANKFILE = write("lsb_djob_rankfile", "batch3\na01n01\na01n01\na01n02\na01n02\n")
LSF_JOB = {"LSB_JOBID": "1170513", "LSB_MCPU_HOSTS": "batch3 1 a01n01 2 a01n02 2", "LSB_DJOB_RANKFILE": RANKFILE,
           "CSM_ALLOCATION_ID": "1088245", "LSB_QUEUE": "batch"}


def jsrun(rank, size=4, per_node=2):
    return dict(LSF_JOB, JSM_NAMESPACE_RANK=str(rank), JSM_NAMESPACE_SIZE=str(size),
                JSM_NAMESPACE_LOCAL_RANK=str(rank % per_node), JSM_NAMESPACE_LOCAL_SIZE=str(per_node),
                OMPI_COMM_WORLD_RANK=str(rank), OMPI_COMM_WORLD_SIZE=str(size),
                OMPI_COMM_WORLD_LOCAL_RANK=str(rank % per_node), OMPI_COMM_WORLD_LOCAL_SIZE=str(per_node),
                PMIX_RANK=str(rank))


# Grid Engine `qsub -pe mpi 6` (sge_pe(5)).
PE_HOSTFILE = write("pe_hostfile", "node01.cluster 4 all.q@node01.cluster UNDEFINED\n"
                                   "node02.cluster 2 all.q@node02.cluster UNDEFINED\n")
SGE_JOB = {"JOB_ID": "17", "PE": "mpi", "NSLOTS": "6", "NHOSTS": "2", "PE_HOSTFILE": PE_HOSTFILE,
           "SGE_TASK_ID": "undefined"}
SGE_SPEC = {"worker": workers("node01.cluster", 4, "node02.cluster", 2)}
SGE_NODE = [0, 0, 0, 0, 1, 1]
SGE_LOCAL = [0, 1, 2, 3, 0, 1]
SGE_LOCAL_SIZE = [4, 2]


def sge_ompi(rank):
    return dict(SGE_JOB, OMPI_COMM_WORLD_RANK=str(rank), OMPI_COMM_WORLD_SIZE="6",
                OMPI_COMM_WORLD_LOCAL_RANK=str(SGE_LOCAL[rank]),
                OMPI_COMM_WORLD_LOCAL_SIZE=str(SGE_LOCAL_SIZE[SGE_NODE[rank]]), PMIX_RANK=str(rank))


# Flux `flux run -N2 -n4` (flux-core src/shell: task.c, shell.c, pmi/pmi.c), hosts from `flux hostlist`.
FLUX_HOSTS = write("flux_hosts", "corona171\ncorona172\n")


def flux(rank):
    return {"FLUX_JOB_ID": "f2oLkTLb", "FLUX_JOB_SIZE": "4", "FLUX_JOB_NNODES": "2", "FLUX_TASK_RANK": str(rank),
            "FLUX_TASK_LOCAL_ID": str(rank % 2), "FLUX_URI": "local:///tmp/flux-1uzZ4v/local-0",
            "PMI_RANK": str(rank), "PMI_SIZE": "4", "PMI_FD": "7"}


# Kubeflow MPIJob's launcher (kubeflow/mpi-operator newConfigMap): /etc/mpi/hostfile.
MPIJOB_HOSTFILE = write("mpijob_hostfile", "pi-worker-0.pi.default.svc slots=2\npi-worker-1.pi.default.svc slots=2\n")


def mpijob(rank):
    return {"OMPI_MCA_orte_default_hostfile": MPIJOB_HOSTFILE, "OMPI_MCA_orte_keep_fqdn_hostnames": "true",
            "OMPI_COMM_WORLD_RANK": str(rank), "OMPI_COMM_WORLD_SIZE": "4",
            "OMPI_COMM_WORLD_LOCAL_RANK": str(rank % 2), "OMPI_COMM_WORLD_LOCAL_SIZE": "2"}


PBS_SPEC = {"worker": workers("node01", 2, "node02", 2)}
LSF_SPEC = {"worker": workers("a01n01", 2, "a01n02", 2)}
FLUX_SPEC = {"worker": workers("corona171", 2, "corona172", 2)}
MPIJOB_SPEC = {"worker": workers("pi-worker-0.pi.default.svc", 2, "pi-worker-1.pi.default.svc", 2)}


# ---- each backend: spec, hostfile, machinefile, launch --------------------------------------------

def test_pbs_pals_every_rank():
    for rank in range(4):
        doc = json.loads(ok(["pbs"], pals(rank)))
        assert doc == {"cluster": PBS_SPEC, "task": {"type": "worker", "index": rank}, "rpc_layer": "grpc",
                       "environment": ""}, doc
        assert launch(["pbs"], pals(rank)) == launch_doc(4, rank, rank % 2, 2, rank // 2, 2, "node01", 8888)
        assert ok(["pbs", "--format", "hostfile"], pals(rank)) == "node01 slots=2\nnode02 slots=2\n"
        assert ok(["pbs", "--format", "machinefile"], pals(rank)) == "node01:2\nnode02:2\n"
        assert ok(["pbs", "--format", "master"], pals(rank)) == "grpc://%s\n" % PBS_SPEC["worker"][rank]


def test_pbs_pbsdsh_every_task():
    for vnode in range(4):
        assert json.loads(ok(["pbs", "--format", "spec"], pbsdsh(vnode))) == PBS_SPEC
        assert launch(["pbs"], pbsdsh(vnode)) == launch_doc(4, vnode, vnode % 2, 2, vnode // 2, 2, "node01", 8888)


def test_pbs_job_script_is_the_allocation_without_a_task():
    doc = json.loads(ok(["pbs"], PBS_JOB))
    assert doc == {"cluster": PBS_SPEC, "rpc_layer": "grpc", "environment": ""}, doc
    assert ok(["pbs", "--format", "hostfile"], PBS_JOB) == "node01 slots=2\nnode02 slots=2\n"
    assert ok(["pbs", "--format", "machinefile"], PBS_JOB) == "node01:2\nnode02:2\n"
    for fmt in ("launch", "torchrun", "torchrun-node", "jax"):
        expect_fail(["pbs", "--format", fmt], 3, ["--format %s needs this process's task" % fmt, "--task-type"],
                    PBS_JOB)
    # naming one makes it launchable
    assert launch(["pbs", "--task-type", "worker", "--task-id", "3"], PBS_JOB) == \
        launch_doc(4, 3, 1, 2, 1, 2, "node01", 8888)


def test_pbs_repeated_hosts_merge_in_first_mention_order():
    env = dict(PBS_JOB, PBS_NODEFILE=write("mixed_nodefile", "node02\nnode01\nnode02\nnode03\nnode01\n"))
    assert ok(["pbs", "--format", "hostfile"], env) == "node02 slots=2\nnode01 slots=2\nnode03 slots=1\n"
    assert ok(["pbs", "--format", "machinefile"], env) == "node02:2\nnode01:2\nnode03:1\n"


def test_pbs_options_jobs_ports_gpus():
    env = dict(pals(3), CUDA_VISIBLE_DEVICES="0,1,2,3")
    want = {"MASTER_ADDR": "node01", "MASTER_PORT": "7000", "WORLD_SIZE": "4", "RANK": "3", "LOCAL_RANK": "1",
            "LOCAL_WORLD_SIZE": "2", "GROUP_RANK": "1", "GROUP_WORLD_SIZE": "2"}
    # PBS does not say whether the list is the node's or (after a PALS wrapper script) this rank's: left alone
    out = exports(ok(["pbs", "--jobs", "worker=3,chief=1", "--port-base", "7000", "--format", "torchrun"], env))
    assert out == want, out
    code, _, err = run(["pbs", "--format", "torchrun", "--verbose"], env)
    assert code == 0 and 'pbs: CUDA_VISIBLE_DEVICES="0,1,2,3" left as it is: PBS does not say' in err, err
    # --gpus-per-node says it is the node's: split among the node's ranks
    out = exports(ok(["pbs", "--jobs", "worker=3,chief=1", "--port-base", "7000", "--gpus-per-node", "4",
                      "--format", "torchrun"], env))
    assert out == dict(want, CUDA_VISIBLE_DEVICES="2,3"), out
    doc = json.loads(ok(["pbs", "--jobs", "worker=3,chief=1", "--port-base", "7000"], env))
    assert doc["cluster"] == {"chief": ["node01:7000"], "worker": ["node01:7001", "node02:7000", "node02:7001"]}, doc
    assert doc["task"] == {"type": "worker", "index": 2}, doc
    out = exports(ok(["pbs", "--gpus-per-node", "0", "--format", "torchrun"], env))
    assert "CUDA_VISIBLE_DEVICES" not in out, out
    out = exports(ok(["pbs", "--gpus-per-task", "1", "--format", "jax"], env))
    assert out == {"JAX_COORDINATOR_ADDRESS": "node01:8888", "JAX_NUM_PROCESSES": "4", "JAX_PROCESS_ID": "3",
                   "CUDA_VISIBLE_DEVICES": "1", "JAX_LOCAL_DEVICE_IDS": "0"}, out
    expect_fail(["pbs", "--jobs", "worker=3"], 3, ["3 tasks", "4"], env)
    expect_fail(["pbs", "--hostfile", NODEFILE], 2, ["--hostfile does not apply"], env)
    # --port is the first port everywhere (--port-base its other name)
    assert json.loads(ok(["pbs", "--port", "7000", "--format", "spec"], env)) == \
        json.loads(ok(["pbs", "--port-base=7000", "--format", "spec"], env))
    expect_fail(["pbs", "--main-host", "h"], 2, ["--main-host does not apply to the pbs backend"], env)


def test_lsf_jsrun_every_rank():
    for rank in range(4):
        doc = json.loads(ok(["lsf"], jsrun(rank)))
        assert doc["cluster"] == LSF_SPEC and doc["task"] == {"type": "worker", "index": rank}, doc
        assert launch(["lsf"], jsrun(rank)) == launch_doc(4, rank, rank % 2, 2, rank // 2, 2, "a01n01", 8888)
        assert ok(["lsf", "--format", "hostfile"], jsrun(rank)) == "a01n01 slots=2\na01n02 slots=2\n"
        assert ok(["lsf", "--format", "machinefile"], jsrun(rank)) == "a01n01:2\na01n02:2\n"


def test_lsf_mcpu_hosts_and_job_script():
    env = {"LSB_JOBID": "81", "LSB_MCPU_HOSTS": "hostA 2 hostB 1"}
    assert ok(["lsf", "--format", "hostfile"], env) == "hostA slots=2\nhostB slots=1\n"
    assert ok(["lsf", "--format", "machinefile"], env) == "hostA:2\nhostB:1\n"
    assert json.loads(ok(["lsf"], env)) == {"cluster": {"worker": workers("hostA", 2, "hostB", 1)},
                                            "rpc_layer": "grpc", "environment": ""}
    expect_fail(["lsf", "--format", "launch"], 3, ["needs this process's task"], env)
    env = dict(env, PMI_RANK="2", PMI_SIZE="3")
    assert launch(["lsf"], env) == launch_doc(3, 2, 0, 1, 1, 2, "hostA", 8888)
    # on CSM the one-slot first host is the launch node
    assert ok(["lsf", "--format", "hostfile"], dict(env, CSM_ALLOCATION_ID="1", LSB_MCPU_HOSTS="b1 1 h1 3")) == \
        "h1 slots=3\n"


def test_sge_every_rank():
    for rank in range(6):
        doc = json.loads(ok(["sge"], sge_ompi(rank)))
        assert doc["cluster"] == SGE_SPEC and doc["task"] == {"type": "worker", "index": rank}, doc
        assert launch(["sge"], sge_ompi(rank)) == launch_doc(6, rank, SGE_LOCAL[rank], SGE_LOCAL_SIZE[SGE_NODE[rank]],
                                                             SGE_NODE[rank], 2, "node01.cluster", 8888)
    assert ok(["sge", "--format", "hostfile"], SGE_JOB) == "node01.cluster slots=4\nnode02.cluster slots=2\n"
    assert ok(["sge", "--format", "machinefile"], SGE_JOB) == "node01.cluster:4\nnode02.cluster:2\n"
    expect_fail(["sge", "--format", "torchrun"], 3, ["needs this process's task"], SGE_JOB)
    out = exports(ok(["sge", "--jobs", "ps=2,worker=4", "--gpus-per-node", "8", "--format", "torchrun"],
                     dict(sge_ompi(5), CUDA_VISIBLE_DEVICES="0,1,2,3,4,5,6,7")))
    assert out == {"MASTER_ADDR": "node01.cluster", "MASTER_PORT": "8888", "WORLD_SIZE": "6", "RANK": "5",
                   "LOCAL_RANK": "1", "LOCAL_WORLD_SIZE": "2", "GROUP_RANK": "1", "GROUP_WORLD_SIZE": "2",
                   "CUDA_VISIBLE_DEVICES": "4,5,6,7"}, out  # node02's 8 GPUs for its 2 ranks


def test_option_refusals_name_the_option():
    # the library names options.port_base, options.gpus_per_task, options.jobs: the CLI says its flags
    env = dict(sge_ompi(5), CUDA_VISIBLE_DEVICES="0,1,2,3,4,5,6,7")
    expect_fail(["sge", "--port", "65534", "--format", "torchrun"], 3,
                ["--port 65534: 4 tasks on one node need ports past 65535"], env)
    expect_fail(["sge", "--gpus-per-task", "3", "--format", "torchrun"], 3,
                ["--gpus-per-task 3 for the 4 tasks of a node is 12 GPUs, more than the 8 of CUDA_VISIBLE_DEVICES"],
                env)
    expect_fail(["sge", "--gpus-per-task", "2", "--gpus-per-node", "4", "--format", "torchrun"], 3,
                ["--gpus-per-task 2", "more than the 4 of --gpus-per-node"], env)
    expect_fail(["sge", "--jobs", "worker=3", "--format", "torchrun"], 3,
                ["--jobs ask for 3 tasks but the launcher started 6"], env)


def test_flux_every_rank():
    for rank in range(4):
        doc = json.loads(ok(["flux", "--hostfile", FLUX_HOSTS], flux(rank)))
        assert doc["cluster"] == FLUX_SPEC and doc["task"] == {"type": "worker", "index": rank}, doc
        assert launch(["flux", "--hostfile", FLUX_HOSTS], flux(rank)) == \
            launch_doc(4, rank, rank % 2, 2, rank // 2, 2, "corona171", 8888)
    assert ok(["flux", "--hostfile", FLUX_HOSTS, "--format", "hostfile"], flux(0)) == \
        "corona171 slots=2\ncorona172 slots=2\n"
    assert ok(["flux", "--hostfile", FLUX_HOSTS, "--format", "machinefile"], flux(0)) == "corona171:2\ncorona172:2\n"
    assert json.loads(ok(["flux", "--hostfile", FLUX_HOSTS, "--port-base", "29500", "--format", "spec"], flux(3))) == \
        {"worker": workers("corona171", 2, "corona172", 2, base=29500)}


def test_flux_needs_its_hostfile():
    expect_fail(["flux"], 3, ["flux", "--hostfile"], flux(1))
    expect_fail(["flux", "--hostfile", os.path.join(TMP, "missing")], 3, [os.path.join(TMP, "missing")], flux(1))


def test_mpi_hosts_from_each_scheduler():
    cases = [(sge_ompi(4), "PE_HOSTFILE", PE_HOSTFILE, "2 hosts, 6 slots", SGE_SPEC),
             (dict(pals(2), PALS_RANKID="2"), "PBS_NODEFILE", NODEFILE, "2 hosts, 4 slots", PBS_SPEC),
             (jsrun(2), "LSB_DJOB_RANKFILE", RANKFILE, "3 hosts, 5 slots", LSF_SPEC),
             ({k: v for k, v in jsrun(2).items() if k != "LSB_DJOB_RANKFILE"}, "LSB_MCPU_HOSTS",
              "batch3 1 a01n01 2 a01n02 2", "3 hosts, 5 slots", LSF_SPEC),
             (mpijob(2), "OMPI_MCA_orte_default_hostfile", MPIJOB_HOSTFILE, "2 hosts, 4 slots", MPIJOB_SPEC)]
    for env, var, value, counts, spec in cases:
        code, out, err = run(["mpi", "--verbose", "--format", "spec"], env)
        assert code == 0, (var, code, err)
        assert json.loads(out) == spec, (var, out)
        assert "cluster-resolve: info: mpi: hosts from %s (%s): %s\n" % (var, value, counts) in err, (var, err)
        # auto picks mpi and says the same; Cray PALS's ranks (PMI_SIZE too) are pbs's
        backend = "pbs" if "PALS_RANKID" in env else "mpi"
        code, out, err = run(["--verbose", "--format", "spec"], env)
        assert code == 0 and json.loads(out) == spec, (var, code, err)
        assert "%s: hosts from %s (" % (backend, var) in err, (var, err)
        assert "auto: using the %s backend" % backend in err, (var, err)


def test_mpi_without_a_scheduler_still_asks_for_the_hostfile():
    env = {k: v for k, v in sge_ompi(4).items() if k != "PE_HOSTFILE"}
    expect_fail(["mpi"], 3, ["the OMPI_COMM_WORLD_SIZE=6 ranks run on several hosts", "hostfile"], env)
    env = {k: v for k, v in mpijob(2).items() if k != "OMPI_MCA_orte_default_hostfile"}
    expect_fail(["mpi"], 3, ["the OMPI_COMM_WORLD_SIZE=4 ranks run on several hosts"], env)


def test_verbose_names_the_source():
    for args, env, line in [
            (["pbs"], pals(1), "cluster-resolve: info: pbs: hosts from PBS_NODEFILE (%s): 2 hosts, 4 slots\n" % NODEFILE),
            (["lsf"], jsrun(1), "cluster-resolve: info: lsf: hosts from LSB_DJOB_RANKFILE (%s): 3 hosts, 5 slots\n"
             % RANKFILE),
            (["lsf"], jsrun(1), "cluster-resolve: info: lsf: leaving out the launch node batch3 (CSM_ALLOCATION_ID "
             "is set)\n"),
            (["sge"], SGE_JOB, "cluster-resolve: info: sge: hosts from PE_HOSTFILE (%s): 2 hosts, 6 slots\n"
             % PE_HOSTFILE),
            (["sge"], SGE_JOB, "sge: no rank variable"),
            ([], PBS_JOB, "cluster-resolve: info: auto: using the pbs backend: PBS_NODEFILE\n"),
            ([], dict(SGE_JOB, LSB_MCPU_HOSTS="h 1"), "auto: using the lsf backend: LSB_MCPU_HOSTS; passed over sge "
             "(PE_HOSTFILE)\n"),
            ([], dict(pals(1)), "auto: using the pbs backend: PALS_RANKID\n"),
            ([], dict(PBS_JOB, OMPI_COMM_WORLD_RANK="1", OMPI_COMM_WORLD_SIZE="4"),
             "auto: using the mpi backend: OMPI_COMM_WORLD_SIZE; passed over pbs (PBS_NODEFILE)\n")]:
        code, out, err = run(args + ["--verbose", "--format", "hostfile"], env)
        assert code == 0, (args, code, err)
        assert line in err, (args, line, err)


# ---- job scripts and allocation shells: the allocation, no task of their own ---------------------

# The shell of `salloc -N2 --ntasks-per-node=2` (captured on the launcher lab's Slurm 22.05.8; an sbatch
# script has SLURM_PROCID=0 and SLURMD_NODENAME besides).
SALLOC = {"SLURM_JOB_ID": "13", "SLURM_JOBID": "13", "SLURM_JOB_NODELIST": "node[1-2]", "SLURM_NODELIST": "node[1-2]",
          "SLURM_JOB_NUM_NODES": "2", "SLURM_NNODES": "2", "SLURM_NTASKS": "4", "SLURM_NPROCS": "4",
          "SLURM_NTASKS_PER_NODE": "2", "SLURM_TASKS_PER_NODE": "2(x2)", "SLURM_JOB_CPUS_PER_NODE": "2(x2)",
          "SLURM_SUBMIT_HOST": "vm", "SLURM_CLUSTER_NAME": "cres-lab"}
SBATCH = dict(SALLOC, SLURM_PROCID="0", SLURM_LOCALID="0", SLURM_NODEID="0", SLURMD_NODENAME="node1",
              SLURM_GTIDS="0")
# A `flux batch` script or `flux alloc` shell: the broker takes the job's variables away and sets
# FLUX_ENCLOSING_ID (flux-core src/broker/runat.c)
FLUX_SCRIPT = {"FLUX_ENCLOSING_ID": "f3Pd4Nq", "FLUX_URI": "local:///tmp/flux-xIG8Sd/local-0"}


def test_every_scheduler_job_script_lists_the_allocation():
    flux_slots = write("flux_alloc_hosts", "corona171 slots=2\ncorona172 slots=2\n")
    for what, args, env, hostfile in [
            ("slurm sbatch", ["slurm"], SBATCH, "node1 slots=2\nnode2 slots=2\n"),
            ("slurm salloc", ["slurm"], SALLOC, "node1 slots=2\nnode2 slots=2\n"),
            ("auto sbatch", [], SBATCH, "node1 slots=2\nnode2 slots=2\n"),
            ("auto salloc", [], SALLOC, "node1 slots=2\nnode2 slots=2\n"),
            ("pbs", ["pbs"], PBS_JOB, "node01 slots=2\nnode02 slots=2\n"),
            ("lsf", ["lsf"], LSF_JOB, "a01n01 slots=2\na01n02 slots=2\n"),
            ("sge", ["sge"], SGE_JOB, "node01.cluster slots=4\nnode02.cluster slots=2\n"),
            ("flux", ["flux", "--hostfile", flux_slots], FLUX_SCRIPT, "corona171 slots=2\ncorona172 slots=2\n")]:
        assert ok(args + ["--format", "hostfile"], env) == hostfile, what
        machine = "".join(line.replace(" slots=", ":") + "\n" for line in hostfile.splitlines())
        assert ok(args + ["--format", "machinefile"], env) == machine, what
        doc = json.loads(ok(args, env))
        assert "task" not in doc and sum(len(v) for v in doc["cluster"].values()) == \
            sum(int(w.split("=")[1]) for w in hostfile.split() if w.startswith("slots=")), (what, doc)
        for fmt in ("torchrun", "launch", "jax"):
            expect_fail(args + ["--format", fmt], 3, ["--format %s needs this process's task" % fmt], env)
    code, _, err = run(["--format", "hostfile", "--verbose"], SALLOC)
    assert code == 0 and "auto: using the slurm backend: SLURM_JOB_ID" in err, err
    assert "slurm: no job step (an sbatch script or an salloc shell)" in err, err
    expect_fail(["--format", "torchrun"], 3, ["no job step", "start the tasks with srun"], SALLOC)


def test_flux_job_script_needs_the_hostfile_never_local():
    expect_fail(["flux"], 3, ["Flux tells a job script or an allocation's shell no hosts", "--hostfile"], FLUX_SCRIPT)
    expect_fail(["--format", "hostfile"], 3, ["flux", "--hostfile"], FLUX_SCRIPT)
    expect_fail(["--format", "hostfile"], 3, ["flux", "--hostfile"], {"FLUX_JOB_ID": "f2oLkTLb"})


def test_slurm_job_without_its_allocation_is_an_error_never_local():
    expect_fail(["--format", "hostfile"], 3, ["slurm: SLURM_JOB_ID is set", "SLURM_JOB_NODELIST"],
                {"SLURM_JOB_ID": "13"})
    expect_fail(["--format", "hostfile"], 3, ["SLURM_NTASKS=3 but SLURM_TASKS_PER_NODE gives 4"],
                dict(SALLOC, SLURM_NTASKS="3"))


# ---- GPUs: split only the node's list -------------------------------------------------------------

# Task 1 of `srun -N1 -n2 --gpus-per-task=2` on a node of 4 GPUs (captured on the launcher lab's Slurm 22.05.8:
# srun names the option in no variable; SLURM_GPUS_ON_NODE counts the step's GPUs, the list is the task's)
SRUN_GPUS_PER_TASK = {"SLURM_JOB_ID": "21", "SLURM_STEP_ID": "0", "SLURM_PROCID": "1", "SLURM_STEP_NUM_TASKS": "2",
                      "SLURM_STEP_NODELIST": "node1", "SLURM_STEP_TASKS_PER_NODE": "2", "SLURM_NODEID": "0",
                      "SLURM_LOCALID": "1", "SLURMD_NODENAME": "node1", "SLURM_GPUS_ON_NODE": "4",
                      "CUDA_VISIBLE_DEVICES": "2,3", "ROCR_VISIBLE_DEVICES": "2,3", "ZE_AFFINITY_MASK": "2,3",
                      "GPU_DEVICE_ORDINAL": "2,3", "SLURM_STEP_GPUS": "2,3"}


def test_slurm_gpus_bound_per_task_are_not_split_again():
    out = exports(ok(["--format", "torchrun"], SRUN_GPUS_PER_TASK))
    assert "CUDA_VISIBLE_DEVICES" not in out and out["LOCAL_RANK"] == "1", out
    assert "CUDA_VISIBLE_DEVICES" not in exports(ok(["--format", "jax"], SRUN_GPUS_PER_TASK))
    code, out, err = run(["--format", "torchrun", "--verbose"], SRUN_GPUS_PER_TASK)
    assert code == 0 and ('slurm: CUDA_VISIBLE_DEVICES="2,3" is this task\'s own (SLURM_GPUS_ON_NODE=4 but '
                          'CUDA_VISIBLE_DEVICES lists 2): passed on unchanged') in err, err
    # the child of --exec keeps what Slurm gave it
    out = ok(["--format", "torchrun", "--exec", "--", sys.executable, "-c",
              "import os; print(os.environ['CUDA_VISIBLE_DEVICES'], os.environ['LOCAL_RANK'])"], SRUN_GPUS_PER_TASK)
    assert out == "2,3 1\n", out
    # --gpus-per-node would split a list this task cannot see whole: exit 3 naming both
    expect_fail(["slurm", "--format", "torchrun", "--gpus-per-node", "4"], 3,
                ["--gpus-per-node 4 would split", "SLURM_GPUS_ON_NODE=4 but CUDA_VISIBLE_DEVICES lists 2"], SRUN_GPUS_PER_TASK)
    expect_fail(["slurm", "--format", "torchrun", "--gpus-per-task", "1"], 3,
                ["--gpus-per-task 1, but", "CUDA_VISIBLE_DEVICES lists 2"], SRUN_GPUS_PER_TASK)
    assert "CUDA_VISIBLE_DEVICES" not in exports(ok(["slurm", "--format", "torchrun", "--gpus-per-task", "2"],
                                                    SRUN_GPUS_PER_TASK))
    # the same step with --gres=gpu:4 instead: every task sees the node's four, which are split
    node_list = dict(SRUN_GPUS_PER_TASK, CUDA_VISIBLE_DEVICES="0,1,2,3", ROCR_VISIBLE_DEVICES="0,1,2,3",
                     ZE_AFFINITY_MASK="0,1,2,3", GPU_DEVICE_ORDINAL="0,1,2,3", SLURM_STEP_GPUS="0,1,2,3")
    assert exports(ok(["--format", "torchrun"], node_list))["CUDA_VISIBLE_DEVICES"] == "2,3"
    # a wrapper that narrowed ROCR_VISIBLE_DEVICES alone: not split either
    assert "CUDA_VISIBLE_DEVICES" not in exports(ok(["--format", "torchrun"], dict(node_list, ROCR_VISIBLE_DEVICES="1")))


def test_gpu_lists_nobody_speaks_for_are_left_alone():
    for what, args, env, says in [
            ("slurm", ["slurm"], dict(SRUN_GPUS_PER_TASK, CUDA_VISIBLE_DEVICES="0,1,2,3", ROCR_VISIBLE_DEVICES="",
                                      ZE_AFFINITY_MASK="", GPU_DEVICE_ORDINAL="", SLURM_GPUS_ON_NODE=""),
             "SLURM_GPUS_ON_NODE (the step's GPUs on the node) is not set"),
            ("mpirun", ["mpi", "--hostfile", MPIJOB_HOSTFILE], dict(mpijob(1), CUDA_VISIBLE_DEVICES="0,1"),
             "mpirun and mpiexec do not say"),
            ("lsf", ["lsf"], dict(LSF_JOB, OMPI_COMM_WORLD_RANK="1", OMPI_COMM_WORLD_SIZE="4",
                                  CUDA_VISIBLE_DEVICES="0,1"), "LSF does not say"),
            ("flux", ["flux", "--hostfile", FLUX_HOSTS], dict(flux(1), CUDA_VISIBLE_DEVICES="0,1"),
             "Flux does not tell a task its gpu-affinity")]:
        env = {k: v for k, v in env.items() if v != ""}
        assert "CUDA_VISIBLE_DEVICES" not in exports(ok(args + ["--format", "torchrun"], env)), what
        code, _, err = run(args + ["--format", "torchrun", "--verbose"], env)
        assert code == 0 and "CUDA_VISIBLE_DEVICES=\"%s\" left as it is: %s" % (env["CUDA_VISIBLE_DEVICES"], says) \
            in err, (what, err)
    # jsrun binds GPUs to each resource set
    code, out, err = run(["lsf", "--format", "torchrun", "--verbose"], dict(jsrun(1), CUDA_VISIBLE_DEVICES="0"))
    assert code == 0 and "CUDA_VISIBLE_DEVICES" not in exports(out), out
    assert "JSM_NAMESPACE_RANK is set: jsrun binds GPUs to each resource set" in err, err


# ---- bad input: exit 3, nothing on stdout, the file or variable named ----------------------------

def test_bad_pbs_input():
    expect_fail(["pbs"], 3, ["PBS_NODEFILE is not set"], {"PBS_JOBID": "1.s"})
    expect_fail([], 3, ["pbs", "PBS_NODEFILE"], {"PBS_JOBID": "1.s"})
    missing = os.path.join(TMP, "no_nodefile")
    expect_fail(["pbs"], 3, [missing], dict(PBS_JOB, PBS_NODEFILE=missing))
    expect_fail(["pbs"], 3, ["PALS_RANKID", '"4"'], dict(pals(1), PALS_RANKID="4"))
    expect_fail(["pbs"], 3, ["rank 1", "launcher says"], dict(pals(1), PALS_LOCAL_RANKID="0"))
    expect_fail(["pbs"], 3, ["PBS_VNODENUM", '"4"'], pbsdsh(4))


def test_bad_pbs_files_name_the_file():
    for text, words in [("", []), ("\n\n", []), ("node01\n" + "a" * 300 + "\n", ["line 2"]),
                        ("node01\nnode02 extra\n", ["line 2"])]:
        path = write("bad_nodefile", text)
        err = expect_fail(["pbs"], 3, words, dict(PBS_JOB, PBS_NODEFILE=path))
        assert path in err or "PBS_NODEFILE" in err, (text, err)


def test_bad_lsf_input():
    env = {"LSB_JOBID": "81"}
    expect_fail(["lsf"], 3, ["LSB_DJOB_RANKFILE", "LSB_MCPU_HOSTS"], env)
    expect_fail(["lsf"], 3, ["LSB_MCPU_HOSTS", "3 words"], dict(env, LSB_MCPU_HOSTS="hostA 2 hostB"))
    expect_fail(["lsf"], 3, ["LSB_MCPU_HOSTS", '"x"'], dict(env, LSB_MCPU_HOSTS="hostA x"))
    expect_fail(["lsf"], 3, ["JSM_NAMESPACE_SIZE"], dict(LSF_JOB, JSM_NAMESPACE_RANK="1"))
    expect_fail(["lsf"], 3, ["rank 1", "launcher says"], dict(jsrun(1), JSM_NAMESPACE_LOCAL_SIZE="1"))
    missing = os.path.join(TMP, "no_rankfile")
    expect_fail(["lsf"], 3, [missing], dict(env, LSB_DJOB_RANKFILE=missing))


def test_bad_sge_input():
    expect_fail(["sge"], 3, ["PE_HOSTFILE is not set", "JOB_ID"], {"JOB_ID": "17"})
    expect_fail(["sge"], 3, ["NSLOTS=5", "6 slots"], dict(SGE_JOB, NSLOTS="5"))
    short = write("pe_short", "node01 4 all.q@node01 UNDEFINED\nnode02\n")
    expect_fail(["sge"], 3, [short, "line 2", "fewer than two fields"], dict(SGE_JOB, PE_HOSTFILE=short, NSLOTS="4"))
    expect_fail(["sge"], 3, ["rank 4", "launcher says"], dict(sge_ompi(4), OMPI_COMM_WORLD_LOCAL_RANK="1"))


def test_bad_sge_files_name_the_file():
    for text, words in [("node01 x all.q@node01 UNDEFINED\n", ["line 1"]), ("", [])]:
        path = write("pe_bad", text)
        err = expect_fail(["sge"], 3, words, {"PE_HOSTFILE": path})
        assert path in err or "PE_HOSTFILE" in err, (text, err)


def test_bad_flux_input():
    expect_fail(["flux", "--hostfile", FLUX_HOSTS], 3, ["FLUX_TASK_RANK"], {"FLUX_URI": "local:///tmp/f/local-0"})
    expect_fail(["flux", "--hostfile", FLUX_HOSTS], 3, ["FLUX_JOB_NNODES=3", "2 hosts"],
                dict(flux(1), FLUX_JOB_NNODES="3"))
    expect_fail(["flux", "--hostfile", FLUX_HOSTS], 3, ["rank 1", "launcher says"],
                dict(flux(1), FLUX_TASK_LOCAL_ID="0"))
    bad = write("flux_bad", "corona171\ncorona172 slots=x\n")
    err = expect_fail(["flux", "--hostfile", bad], 3, ["line 2"], flux(1))
    assert bad in err, err


def test_bad_mpi_scheduler_files():
    missing = os.path.join(TMP, "no_pe_hostfile")
    expect_fail(["mpi"], 3, [missing], dict(sge_ompi(1), PE_HOSTFILE=missing))
    expect_fail(["mpi"], 3, ["PE_HOSTFILE has 6 slots for OMPI_COMM_WORLD_SIZE=7 ranks"],
                dict(sge_ompi(1), OMPI_COMM_WORLD_SIZE="7"))


# ---- round trips --------------------------------------------------------------------------------

def through(src, env, fmt="torchrun", reader="torch"):
    """cluster-resolve SRC --format FMT --exec -- cluster-resolve READER --format launch."""
    args = src + ["--format", fmt, "--exec", "--", os.path.abspath(CLI), reader, "--format", "launch"]
    code, out, err = run(args, env)
    assert code == 0 and err == "", (src, fmt, reader, code, err)
    return json.loads(out)


def sources():
    """(what, args, env) of each backend with a rank of its own."""
    return [("pbs PALS", ["pbs"], pals(3)), ("pbs pbsdsh", ["pbs"], pbsdsh(1)), ("lsf jsrun", ["lsf"], jsrun(2)),
            ("lsf mcpu", ["lsf"], {"LSB_MCPU_HOSTS": "hostA 2 hostB 1", "OMPI_COMM_WORLD_RANK": "2",
                                   "OMPI_COMM_WORLD_SIZE": "3"}),
            ("sge", ["sge"], sge_ompi(5)), ("flux", ["flux", "--hostfile", FLUX_HOSTS], flux(2)),
            ("mpi PE_HOSTFILE", ["mpi"], sge_ompi(3)), ("mpi PBS_NODEFILE", ["mpi"], pals(1)),
            ("mpi MPIJob", ["mpi"], mpijob(3)), ("auto pbs", [], pbsdsh(2))]


def test_round_trip_torchrun_to_torch():
    for what, args, env in sources():
        want = launch(args, env)
        got = through(args, env)
        assert got == want, (what, got, want)


def test_round_trip_torchrun_node_to_torch():
    alone = 0
    for what, args, env in sources():
        want = launch(args, env)
        if want["local_world_size"] > 1:  # one torchrun per node needs one task per node
            expect_fail(args + ["--format", "torchrun-node"], 3, ["this node runs"], env)
            continue
        alone += 1
        cmd = args + ["--format", "torchrun-node", "--exec", "--", ENV_BIN, "-u", "RANK", "-u", "WORLD_SIZE",
                      os.path.abspath(CLI), "torch", "--format", "launch"]
        code, out, err = run(cmd, env)
        assert code == 0 and err == "", (what, code, err)
        assert json.loads(out) == launch_doc(want["num_nodes"], want["node_rank"], 0, 1, want["node_rank"],
                                             want["num_nodes"], want["master_addr"], want["master_port"]), (what, out)
    assert alone >= 1, alone  # lsf mcpu's hostB holds one task


def test_round_trip_machinefile_to_mpi():
    # the allocation as a machinefile (or hostfile), read back by the mpi backend with the same rank: the same
    # cluster and launch info
    for what, args, env in sources():
        want = json.loads(ok(args + ["--format", "spec"], env))
        info = launch(args, env)
        mpi_env = {"OMPI_COMM_WORLD_RANK": str(info["rank"]), "OMPI_COMM_WORLD_SIZE": str(info["world_size"])}
        for fmt in ("machinefile", "hostfile"):
            path = write("round_trip." + fmt, ok(args + ["--format", fmt], env))
            assert json.loads(ok(["mpi", "--hostfile", path, "--format", "spec"], mpi_env)) == want, (what, fmt)
            assert launch(["mpi", "--hostfile", path], mpi_env) == info, (what, fmt)


def test_round_trip_job_script_machinefile_to_mpi():
    # the job script writes the allocation once; each rank mpirun starts reads it back
    for what, args, env, size in [("pbs", ["pbs"], PBS_JOB, 4), ("lsf", ["lsf"], LSF_JOB, 4),
                                  ("sge", ["sge"], SGE_JOB, 6)]:
        want = json.loads(ok(args + ["--format", "spec"], env))
        path = write("script.machinefile", ok(args + ["--format", "machinefile"], env))
        for rank in range(size):
            mpi_env = {"PMI_RANK": str(rank), "PMI_SIZE": str(size)}
            assert json.loads(ok(["mpi", "--hostfile", path, "--format", "spec"], mpi_env)) == want, (what, rank)
            assert launch(["mpi", "--hostfile", path], mpi_env) == \
                launch(args + ["--task-type", "worker", "--task-id", str(rank)], env), (what, rank)


def test_exec_tfconfig_from_a_scheduler():
    out = ok(["sge", "--exec", "--", sys.executable, "-c", "import os; print(os.environ['TF_CONFIG'])"], sge_ompi(2))
    assert json.loads(out) == {"cluster": SGE_SPEC, "task": {"type": "worker", "index": 2}, "rpc_layer": "grpc",
                               "environment": ""}, out


if __name__ == "__main__":
    sys.exit(run_tests(globals()))
