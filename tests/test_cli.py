#!/usr/bin/env python3
"""Runs the built cluster-resolve (and the custom-backend example) and checks what they print.

usage: test_cli.py BUILD_DIR      (the directory holding cluster-resolve and custom_backend)
"""
import atexit
import json
import os
import shutil
import subprocess
import sys
import tempfile

from cli_common import BIN_DIR, CLI, exports, expect_fail, ok, run, run_tests

CUSTOM = os.path.join(BIN_DIR, "custom_backend")

CLUSTER = {"chief": ["c0:2222"], "ps": ["p0:2222"], "worker": ["w0:2222", "w1:2222", "w2:2222"]}


def test_auto_without_environment_is_local():
    doc = json.loads(ok([]))
    assert doc == {"cluster": {"worker": ["localhost:8470"]}, "task": {"type": "worker", "index": 0},
                   "rpc_layer": "", "environment": ""}, doc


def test_auto_blank_tf_config_is_local():
    doc = json.loads(ok([], tf_config="  "))
    assert doc["cluster"] == {"worker": ["localhost:8470"]}


def test_auto_port_and_local_host_ipv6():
    assert json.loads(ok(["--port", "9000", "--format", "spec"])) == {"worker": ["localhost:9000"]}
    assert json.loads(ok(["local", "--host", "::1", "--format", "spec"])) == {"worker": ["[::1]:8470"]}
    env = exports(ok(["local", "--host", "::1", "--format", "torchrun"]))
    assert env["MASTER_ADDR"] == "::1" and env["MASTER_PORT"] == "8470", env


def test_auto_uses_tf_config():
    tf = {"cluster": CLUSTER, "task": {"type": "worker", "index": 2}, "rpc_layer": "grpc",
          "environment": "cloud"}
    doc = json.loads(ok([], tf_config=tf))
    assert doc == tf, doc
    assert ok(["--format", "master"], tf_config=tf) == "grpc://w2:2222\n"


def test_verbose_logs_the_choice():
    code, out, err = run(["--verbose"], tf_config={"cluster": CLUSTER})
    assert code == 0 and "auto: using the tfconfig backend: TF_CONFIG\n" in err, err


# ---- formats -------------------------------------------------------------------------------

def test_spec_format_keeps_sparse_jobs():
    tf = {"cluster": {"worker": ["a:1", "b:1"], "ps": {"1": "p1:1", "4": "p4:1"}}}
    assert json.loads(ok(["tfconfig", "--format", "spec"], tf_config=tf)) == tf["cluster"]


def test_tfconfig_format_leaves_out_unknown_task():
    doc = json.loads(ok(["tfconfig"], tf_config={"cluster": CLUSTER}))
    assert "task" not in doc and doc["cluster"] == CLUSTER


def test_task_options_override():
    tf = {"cluster": CLUSTER, "task": {"type": "worker", "index": 0}}
    doc = json.loads(ok(["--task-type", "ps", "--task-id", "0"], tf_config=tf))
    assert doc["task"] == {"type": "ps", "index": 0}
    assert ok(["--task-type", "worker", "--task-id", "1", "--rpc-layer", "grpc", "--format", "master"],
              tf_config=tf) == "grpc://w1:2222\n"


def test_master_formats():
    tf = {"cluster": CLUSTER, "task": {"type": "ps", "index": 0}}
    assert ok(["--format", "master"], tf_config=tf) == "p0:2222\n"
    tf["session_master"] = "sm:1"
    assert ok(["--format", "master"], tf_config=tf) == "sm:1\n"
    assert ok(["--format", "master"], tf_config={"cluster": {"worker": ["only:1"]}}) == "\n"


def test_torchrun_ranks_chief_first():
    tf = {"cluster": CLUSTER, "task": {"type": "worker", "index": 1}}
    env = exports(ok(["--format", "torchrun"], tf_config=tf))
    assert env == {"MASTER_ADDR": "c0", "MASTER_PORT": "2222", "WORLD_SIZE": "5", "RANK": "3",
                   "LOCAL_RANK": "0", "LOCAL_WORLD_SIZE": "1", "GROUP_RANK": "3", "GROUP_WORLD_SIZE": "5"}, env


def test_torchrun_local_ranks_on_shared_hosts():
    spec = {"worker": ["h1:1", "h1:2", "h2:1", "h1:3"]}
    env = exports(ok(["simple", "--spec", json.dumps(spec), "--task-type", "worker", "--task-id", "3",
                      "--format", "torchrun"]))
    assert (env["RANK"], env["LOCAL_RANK"], env["LOCAL_WORLD_SIZE"]) == ("3", "2", "3"), env


def test_jax_format():
    tf = {"cluster": CLUSTER, "task": {"type": "chief", "index": 0}}
    env = exports(ok(["--format", "jax"], tf_config=tf))
    assert env == {"JAX_COORDINATOR_ADDRESS": "c0:2222", "JAX_NUM_PROCESSES": "5", "JAX_PROCESS_ID": "0"}


def test_hostfile_counts_slots_in_rank_order():
    spec = {"worker": ["h2:1", "h1:1", "h2:2"], "chief": ["h3:9"]}
    assert ok(["simple", "--spec", json.dumps(spec), "--format", "hostfile"]) == \
        "h3 slots=1\nh2 slots=2\nh1 slots=1\n"


def test_launcher_formats_need_own_task():
    code, out, err = run(["tfconfig", "--format", "torchrun"], tf_config={"cluster": CLUSTER})
    assert code == 3 and out == "" and "--task-type" in err, (code, err)


def test_shell_quoting_survives_eval():
    spec = {"worker": ["it's$HOME:1"]}
    out = ok(["simple", "--spec", json.dumps(spec), "--task-type", "worker", "--task-id", "0",
              "--format", "torchrun"])
    got = subprocess.run(["sh", "-c", out + 'printf %s "$MASTER_ADDR"'], capture_output=True, text=True)
    assert got.stdout == "it's$HOME", got.stdout


def test_large_cluster_grows_output_buffer():
    spec = {"worker": [f"worker-{i}.example:2222" for i in range(3000)]}
    assert json.loads(ok(["simple", "--spec", json.dumps(spec), "--format", "spec"])) == spec


# ---- --exec --------------------------------------------------------------------------------

PRINT_ENV = "import json, os, sys; print(json.dumps({k: os.environ.get(k) for k in sys.argv[1:]}))"


def test_exec_tfconfig_sets_tf_config():
    tf = {"cluster": CLUSTER, "task": {"type": "worker", "index": 0}, "rpc_layer": "grpc", "environment": ""}
    out = ok(["--exec", "--", sys.executable, "-c", PRINT_ENV, "TF_CONFIG"], tf_config=tf)
    assert json.loads(json.loads(out)["TF_CONFIG"]) == tf


def test_exec_torchrun_and_jax():
    spec = json.dumps({"worker": ["127.0.0.1:29500", "127.0.0.1:29501"]})
    names = ["MASTER_ADDR", "MASTER_PORT", "WORLD_SIZE", "RANK", "LOCAL_RANK", "LOCAL_WORLD_SIZE"]
    out = ok(["simple", "--spec", spec, "--task-type", "worker", "--task-id", "1", "--format", "torchrun",
              "--exec", "--", sys.executable, "-c", PRINT_ENV] + names)
    assert json.loads(out) == {"MASTER_ADDR": "127.0.0.1", "MASTER_PORT": "29500", "WORLD_SIZE": "2",
                               "RANK": "1", "LOCAL_RANK": "1", "LOCAL_WORLD_SIZE": "2"}
    out = ok(["simple", "--spec", spec, "--task-type", "worker", "--task-id", "0", "--format", "jax",
              "--exec", sys.executable, "-c", PRINT_ENV, "JAX_COORDINATOR_ADDRESS", "JAX_PROCESS_ID"])
    assert json.loads(out) == {"JAX_COORDINATOR_ADDRESS": "127.0.0.1:29500", "JAX_PROCESS_ID": "0"}


def test_exec_passes_arguments_and_exit_code():
    code, out, err = run(["--exec", "--", "sh", "-c", 'echo "$1 $2"; exit 7', "sh", "a b", "c"])
    assert (code, out) == (7, "a b c\n"), (code, out, err)


def test_exec_missing_command_is_127():
    code, out, err = run(["--exec", "--", "/nonexistent/cmd"])
    assert code == 127 and "cannot run /nonexistent/cmd" in err, (code, err)


def test_exec_refuses_formats_without_variables():
    code, out, err = run(["--format", "hostfile", "--exec", "--", "true"])
    assert code == 2 and "--exec needs --format" in err


# ---- errors and exit codes -----------------------------------------------------------------

def test_usage_errors_exit_2():
    expect_fail(["bogus"], 2, ['unknown backend "bogus"'])
    expect_fail(["--format", "yaml"], 2, ['unknown format "yaml"'])
    expect_fail(["--no-such-option"], 2, ["unknown option --no-such-option"])
    expect_fail(["--task-id", "x", "--task-type", "w"], 2, ["--task-id x"])
    expect_fail(["--task-id", "1"], 2, ["--task-type"])
    expect_fail(["tfconfig", "--spec", "{}"], 2, ["--spec does not apply"])
    expect_fail(["local", "--follow-jobset"], 2, ["--follow-jobset does not apply"])
    expect_fail(["--format"], 2, ["--format needs a value"])
    expect_fail(["--exec"], 2, ["--exec needs a command"])


def test_bad_tf_config_exits_3_naming_the_field():
    expect_fail([], 3, ['"task.index" must be an integer, not "x"'], tf_config='{"task": {"index": "x"}}')
    expect_fail([], 3, ["TF_CONFIG: invalid JSON at offset"], tf_config='{"cluster": ')
    expect_fail([], 3, ['"task.type" "evaluatr" is not a job'],
                tf_config={"cluster": CLUSTER, "task": {"type": "evaluatr", "index": 0}})
    expect_fail([], 3, ["nested deeper than the limit of 128"], tf_config="[" * 200 + "]" * 200)


def test_bad_spec_and_task_exit_3():
    # a value the command line gives is exit 2; a task the cluster does not have, 3
    expect_fail(["simple", "--spec", '{"w": 3}'], 2, ['job "w" must be a list or an object'])
    expect_fail(["simple"], 2, ["simple needs --spec JSON"])
    for fmt in ("torchrun", "tfconfig", "hostfile", "master", "launch", "coordinator"):
        expect_fail(["simple", "--spec", '{"w": ["a:1"]}', "--task-type", "w", "--task-id", "5", "--format",
                     fmt], 3, ["w", "5", "not in the cluster"])
    expect_fail(["--port", "70000"], 2, ["--port 70000"])


def test_help_and_version():
    code, out, err = run(["--help"])
    assert code == 0 and out.startswith("usage: cluster-resolve") and "--exec" in out
    code, out, err = run(["--version"])
    assert code == 0 and out.startswith("cluster-resolve 0.")


# ---- the custom backend example ------------------------------------------------------------

def test_custom_backend_example():
    with tempfile.NamedTemporaryFile("w", suffix=".hosts", delete=False) as f:
        f.write("alpha:7000\n# a comment\n\nbeta:7000\n")
    try:
        p = subprocess.run([CUSTOM, f.name], env={"HOSTS_RANK": "1"}, capture_output=True, text=True)
        assert p.returncode == 0, p.stderr
        assert p.stdout == '{"worker": ["alpha:7000", "beta:7000"]}\nworker 1\ngrpc://beta:7000\n', p.stdout
        p = subprocess.run([CUSTOM, f.name + ".missing"], capture_output=True, text=True)
        assert p.returncode == 1 and p.stderr == "hostsfile: cannot open %s.missing\n" % f.name, p.stderr
    finally:
        os.unlink(f.name)


def test_custom_transport_example():
    pods = {"kind": "PodList", "apiVersion": "v1", "metadata": {"resourceVersion": "7"}, "items": [
        {"metadata": {"name": f"trainer-{i}", "namespace": "default", "labels": {"job-name": "trainer"}},
         "spec": {"containers": [{"name": "main", "image": "trainer:1"}]},
         "status": {"phase": "Running", "podIP": f"10.4.0.{10 + i}", "hostIP": "192.168.0.1"}}
        for i in (10, 2, 1)]}
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as f:
        json.dump(pods, f)
    try:
        p = subprocess.run([os.path.join(BIN_DIR, "custom_transport"), f.name, "trainer=job-name=trainer"],
                           capture_output=True, text=True)
        assert p.returncode == 0, p.stderr
        assert json.loads(p.stdout) == {"trainer": ["10.4.0.11:8470", "10.4.0.12:8470", "10.4.0.20:8470"]}, p.stdout
    finally:
        os.unlink(f.name)


# ---- Slurm, MPI and SageMaker from their launchers' variables -------------------------------

# rank 5 of `srun -N4 -n8 -m cyclic` as Slurm sets it (tasks per node 4,2,1,1)
SLURM_CYCLIC = {"SLURM_JOB_ID": "7", "SLURM_STEP_ID": "0", "SLURM_PROCID": "5", "SLURM_STEP_NUM_TASKS": "8",
                "SLURM_STEP_NODELIST": "node[1-4]", "SLURM_STEP_TASKS_PER_NODE": "4,2,1(x2)",
                "SLURM_DISTRIBUTION": "cyclic", "SLURM_NODEID": "1", "SLURM_LOCALID": "1",
                "SLURMD_NODENAME": "node2"}


def test_slurm_cyclic_places_ranks_like_srun():
    doc = json.loads(ok(["slurm"], env=SLURM_CYCLIC))
    assert doc["cluster"] == {"worker": ["node1:8888", "node2:8888", "node3:8888", "node4:8888", "node1:8889",
                                         "node2:8889", "node1:8890", "node1:8891"]}, doc
    assert doc["task"] == {"type": "worker", "index": 5} and doc["rpc_layer"] == "grpc", doc
    # auto picks slurm from the step variables
    assert json.loads(ok([], env=SLURM_CYCLIC)) == doc


def test_slurm_jobs_gpus_and_torchrun_exports():
    # the step's 8 GPUs on node1, which every task there sees (SLURM_GPUS_ON_NODE: no binding)
    env = dict(SLURM_CYCLIC, SLURM_DISTRIBUTION="block", SLURM_NODEID="0", SLURM_LOCALID="1", SLURM_PROCID="1",
               SLURMD_NODENAME="node1", CUDA_VISIBLE_DEVICES="4,5,6,7,8,9,10,11", SLURM_GPUS_ON_NODE="8")
    out = exports(ok(["slurm", "--jobs", "worker=6,ps=2", "--format", "torchrun"], env=env))
    assert out == {"MASTER_ADDR": "node1", "MASTER_PORT": "8888", "WORLD_SIZE": "8", "RANK": "1",
                   "LOCAL_RANK": "1", "LOCAL_WORLD_SIZE": "4", "GROUP_RANK": "0", "GROUP_WORLD_SIZE": "4",
                   "CUDA_VISIBLE_DEVICES": "6,7"}, out
    doc = json.loads(ok(["slurm", "--jobs", "worker=6,ps=2", "--gpus-per-node", "0"], env=env))
    assert doc["task"] == {"type": "ps", "index": 1}, doc
    code, _, err = run(["slurm", "--jobs", "worker=3"], env=env)
    assert code == 3 and "3 tasks" in err and "8" in err, (code, err)


def test_slurm_exec_sets_cuda_for_the_child_only():
    env = dict(SLURM_CYCLIC, SLURM_DISTRIBUTION="block", SLURM_NODEID="0", SLURM_LOCALID="0", SLURM_PROCID="0",
               SLURMD_NODENAME="node1", CUDA_VISIBLE_DEVICES="0,1,2,3", SLURM_GPUS_ON_NODE="4")
    out = ok(["slurm", "--format", "jax", "--exec", "--", "sh", "-c",
              'echo "$JAX_COORDINATOR_ADDRESS $JAX_NUM_PROCESSES $JAX_PROCESS_ID $CUDA_VISIBLE_DEVICES"'], env=env)
    assert out == "node1:8888 8 0 0\n", out


def test_slurm_batch_script_is_the_allocation():
    # `sbatch -N2 --ntasks-per-node=2`'s script is none of the job's tasks: the allocation formats list the
    # allocation (SLURM_JOB_NODELIST, SLURM_TASKS_PER_NODE), the rank formats refuse; so does an salloc shell
    env = {"SLURM_JOB_ID": "9", "SLURM_PROCID": "0", "SLURM_NTASKS": "4", "SLURM_JOB_NODELIST": "node[1-2]",
           "SLURM_TASKS_PER_NODE": "2(x2)", "SLURMD_NODENAME": "node1"}
    for e in (env, {k: v for k, v in env.items() if k not in ("SLURM_PROCID", "SLURMD_NODENAME")}):
        assert ok(["--format", "hostfile"], env=e) == "node1 slots=2\nnode2 slots=2\n"
        assert json.loads(ok([], env=e)) == {"cluster": {"worker": ["node1:8888", "node1:8889", "node2:8888",
                                                                    "node2:8889"]},
                                             "rpc_layer": "grpc", "environment": ""}
        expect_fail(["--format", "torchrun"], 3, ["needs this process's task", "no job step", "srun"], env=e)
    assert json.loads(ok([], env=dict(env, CLUSTER_RESOLVER_BACKEND="local")))["cluster"] == \
        {"worker": ["localhost:8470"]}


def test_mpi_wins_over_slurm_under_mpirun():
    # rank 3 of `mpirun -np 4` in `sbatch -N2 --ntasks-per-node=2`: the Slurm variables are the daemon's
    env = {"OMPI_COMM_WORLD_RANK": "3", "OMPI_COMM_WORLD_SIZE": "4", "OMPI_COMM_WORLD_LOCAL_RANK": "1",
           "OMPI_COMM_WORLD_LOCAL_SIZE": "2", "SLURM_JOB_ID": "4", "SLURM_PROCID": "1", "SLURM_NODEID": "1",
           "SLURM_STEP_NUM_TASKS": "2", "SLURM_STEP_NODELIST": "node[1-2]", "SLURM_STEP_TASKS_PER_NODE": "1(x2)"}
    doc = json.loads(ok([], env=env))
    assert doc["cluster"] == {"worker": ["node1:8888", "node1:8889", "node2:8888", "node2:8889"]}, doc
    assert doc["task"] == {"type": "worker", "index": 3}, doc


def test_mpi_hostfile_and_hostfile_format_round_trip():
    with tempfile.NamedTemporaryFile("w", suffix=".hosts", delete=False) as f:
        f.write("# two hosts\nfakenode1 slots=2\n\nfakenode2:2\n")
    try:
        env = {"OMPI_COMM_WORLD_RANK": "2", "OMPI_COMM_WORLD_SIZE": "4", "OMPI_COMM_WORLD_LOCAL_RANK": "0",
               "OMPI_COMM_WORLD_LOCAL_SIZE": "2"}
        doc = json.loads(ok(["mpi", "--hostfile", f.name], env=env))
        assert doc["cluster"] == {"worker": ["fakenode1:8888", "fakenode1:8889", "fakenode2:8888",
                                             "fakenode2:8889"]}, doc
        assert ok(["mpi", "--hostfile", f.name, "--format", "hostfile"], env=env) == \
            "fakenode1 slots=2\nfakenode2 slots=2\n"
        code, _, err = run(["mpi"], env=env)
        assert code == 3 and "hostfile" in err, (code, err)
    finally:
        os.unlink(f.name)


def test_sagemaker_natural_order_and_errors():
    env = {"SM_HOSTS": '["algo-10", "algo-2", "algo-1"]', "SM_CURRENT_HOST": "algo-10"}
    doc = json.loads(ok([], env=env))
    assert doc == {"cluster": {"worker": ["algo-1:2223", "algo-2:2223", "algo-10:2223"]},
                   "task": {"type": "worker", "index": 2}, "rpc_layer": "", "environment": ""}, doc
    code, _, err = run(["sagemaker"], env=dict(env, SM_CURRENT_HOST="algo-3"))
    assert code == 3 and "algo-3" in err, (code, err)


# A heterogeneous SageMaker job, as seen on algo-2: the variables sagemaker-training-toolkit's
# src/sagemaker_training/environment.py (Environment.to_env_vars, JSON from mapping.py's to_env_vars: sorted
# keys, no spaces) sets for two instance groups, "train" (2 x ml.p4d.24xlarge) and "data" (1 x ml.c5.xlarge).
SM_HETERO = {
    "SM_HOSTS": '["algo-1","algo-2","algo-3"]', "SM_CURRENT_HOST": "algo-2",
    "SM_CURRENT_INSTANCE_TYPE": "ml.p4d.24xlarge", "SM_CURRENT_INSTANCE_GROUP": "train",
    "SM_CURRENT_INSTANCE_GROUP_HOSTS": '["algo-1","algo-2"]', "SM_INSTANCE_GROUPS": '["train","data"]',
    "SM_INSTANCE_GROUPS_DICT": '{"data":{"hosts":["algo-3"],"instance_group_name":"data","instance_type":'
                               '"ml.c5.xlarge"},"train":{"hosts":["algo-1","algo-2"],"instance_group_name":'
                               '"train","instance_type":"ml.p4d.24xlarge"}}',
    "SM_DISTRIBUTION_INSTANCE_GROUPS": '["train"]', "SM_IS_HETERO": "true"}
SM_HETERO_SPEC = {"data": ["algo-3:2223"], "train": ["algo-1:2223", "algo-2:2223"]}


def test_sagemaker_instance_groups():
    # the default stays one flat job
    assert json.loads(ok(["sagemaker", "--format", "spec"], env=SM_HETERO)) == \
        {"worker": ["algo-1:2223", "algo-2:2223", "algo-3:2223"]}
    doc = json.loads(ok(["sagemaker", "--instance-groups"], env=SM_HETERO))
    assert doc == {"cluster": SM_HETERO_SPEC, "task": {"type": "train", "index": 1}, "rpc_layer": "",
                   "environment": ""}, doc
    # rank order: the jobs by name, each by task index, so data's algo-3 is rank 0 and the master
    for host, group, rank in (("algo-3", "data", 0), ("algo-1", "train", 1), ("algo-2", "train", 2)):
        env = dict(SM_HETERO, SM_CURRENT_HOST=host, SM_CURRENT_INSTANCE_GROUP=group)
        assert launch(["sagemaker", "--instance-groups"], env=env) == \
            launch_doc(3, rank, 0, 1, rank, 3, "algo-3", 2223), (host, group)
    got = exports(ok(["sagemaker", "--instance-groups", "--port", "29500", "--format", "torchrun"], env=SM_HETERO))
    assert (got["MASTER_ADDR"], got["MASTER_PORT"], got["RANK"], got["WORLD_SIZE"]) == ("algo-3", "29500", "2", "3")
    assert ok(["sagemaker", "--instance-groups", "--format", "master", "--rpc-layer", "grpc"], env=SM_HETERO) == \
        "grpc://algo-2:2223\n"


def test_sagemaker_instance_groups_from_the_resource_config():
    # environment.py read_resource_config's keys, the groups' hosts in no particular order
    config = {"current_host": "algo-3", "current_instance_type": "ml.c5.xlarge", "current_group_name": "data",
              "hosts": ["algo-1", "algo-2", "algo-3"],
              "instance_groups": [{"instance_group_name": "train", "instance_type": "ml.p4d.24xlarge",
                                   "hosts": ["algo-2", "algo-1"]},
                                  {"instance_group_name": "data", "instance_type": "ml.c5.xlarge",
                                   "hosts": ["algo-3"]}],
              "network_interface_name": "eth0"}
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as f:
        json.dump(config, f)
    try:
        args = ["sagemaker", "--instance-groups", "--resource-config", f.name]
        doc = json.loads(ok(args))
        assert doc["cluster"] == SM_HETERO_SPEC and doc["task"] == {"type": "data", "index": 0}, doc
        assert launch(args) == launch_doc(3, 0, 0, 1, 0, 3, "algo-3", 2223)
        expect_fail(args, 3, ['resource config "current_group_name" is "data"', 'group "train"'],
                    env={"SM_CURRENT_HOST": "algo-1"})
    finally:
        os.unlink(f.name)


def test_sagemaker_instance_groups_errors():
    expect_fail(["sagemaker", "--instance-groups", "--job-name", "w"], 2,
                ["--job-name and --instance-groups exclude each other"], env=SM_HETERO)
    expect_fail(["slurm", "--instance-groups"], 2, ["--instance-groups does not apply to the slurm backend",
                                                    "read by sagemaker"])
    expect_fail(["sagemaker", "--instance-groups"], 3,
                ['SM_CURRENT_INSTANCE_GROUP is "data"', 'puts SM_CURRENT_HOST "algo-2" in group "train"'],
                env=dict(SM_HETERO, SM_CURRENT_INSTANCE_GROUP="data"))
    expect_fail(["sagemaker", "--instance-groups"], 3, ['SM_HOSTS lists host "algo-4"'],
                env=dict(SM_HETERO, SM_HOSTS='["algo-1","algo-2","algo-3","algo-4"]'))
    expect_fail(["sagemaker", "--instance-groups"], 3, ['puts host "algo-2" in two groups, "a" and "b"'],
                env={"SM_CURRENT_HOST": "algo-2",
                     "SM_INSTANCE_GROUPS_DICT": '{"a": {"hosts": ["algo-2"]}, "b": {"hosts": ["algo-2"]}}'})
    expect_fail(["sagemaker", "--instance-groups", "--resource-config", "/nonexistent/resourceconfig.json"], 3,
                ["SM_INSTANCE_GROUPS_DICT is not set"], env={"SM_HOSTS": '["algo-1"]', "SM_CURRENT_HOST": "algo-1"})


def test_backend_switch_forces_and_turns_off():
    assert json.loads(ok([], env=dict(SLURM_CYCLIC, CLUSTER_RESOLVER_BACKEND="off")))["cluster"] == \
        {"worker": ["localhost:8470"]}
    code, _, err = run([], env={"CLUSTER_RESOLVER_BACKEND": "slurm"})
    assert code == 3 and "SLURM" in err, (code, err)


# ---- coordinator-only sources: torch, jax, awsbatch -----------------------------------------

LAUNCH_NULLS = {"local_rank": None, "local_world_size": None, "node_rank": None, "num_nodes": None}
SPEC_FORMATS = ("tfconfig", "spec", "hostfile", "machinefile")
TORCH_NAMES = ("TORCHELASTIC_RUN_ID", "MASTER_ADDR", "MASTER_PORT", "RANK", "WORLD_SIZE", "LOCAL_RANK",
               "LOCAL_WORLD_SIZE", "GROUP_RANK", "GROUP_WORLD_SIZE", "NODE_RANK")


def launch(args, **kw):
    """--format launch, parsed; checks it is one line."""
    out = ok(args + ["--format", "launch"], **kw)
    assert out.endswith("}\n") and out.count("\n") == 1, out
    return json.loads(out)


def launch_doc(world_size, rank, local_rank, local_world_size, node_rank, num_nodes, addr, port):
    return {"world_size": world_size, "rank": rank, "local_rank": local_rank, "local_world_size": local_world_size,
            "node_rank": node_rank, "num_nodes": num_nodes, "master_addr": addr, "master_port": port}


# A torchrun worker: rank 5 of `torchrun --nnodes=2 --nproc-per-node=4 --rdzv-endpoint=node1:29500`, on the
# second node. The names and values are those torch/distributed/elastic/agent/server/local_elastic_agent.py
# (LocalElasticAgent._start_workers) gives each worker.
TORCHRUN_WORKER = {"LOCAL_RANK": "1", "RANK": "5", "GROUP_RANK": "1", "ROLE_RANK": "5", "ROLE_NAME": "default",
                   "LOCAL_WORLD_SIZE": "4", "WORLD_SIZE": "8", "GROUP_WORLD_SIZE": "2", "ROLE_WORLD_SIZE": "8",
                   "MASTER_ADDR": "node1", "MASTER_PORT": "29500", "TORCHELASTIC_RESTART_COUNT": "0",
                   "TORCHELASTIC_MAX_RESTARTS": "0", "TORCHELASTIC_RUN_ID": "none",
                   "TORCHELASTIC_USE_AGENT_STORE": "False", "TORCH_NCCL_ASYNC_ERROR_HANDLING": "1"}

# torch.distributed's env:// names set by hand (or by a launcher that is not torchrun): the minimum.
TORCH_PLAIN = {"MASTER_ADDR": "10.1.0.4", "MASTER_PORT": "1234", "RANK": "1", "WORLD_SIZE": "3"}

# Kubeflow Trainer (v2): node 2 of a TrainJob "trainjob" of 3 nodes with numProcPerNode 1. The Torch plugin
# (kubeflow/trainer pkg/runtime/framework/plugins/torch/torch.go) sets PET_NNODES, PET_NPROC_PER_NODE,
# PET_NODE_RANK (from the pod's job completion index), PET_MASTER_ADDR "<trainjob>-node-0-0.<trainjob>" and
# PET_MASTER_PORT 29400 (constants.ContainerTrainerPort); the JobSet's Indexed Job adds JOB_COMPLETION_INDEX,
# and the pod's hostname is "<jobset>-<replicated job>-<job index>-<pod index>".
KUBEFLOW_V2 = {"PET_NNODES": "3", "PET_NPROC_PER_NODE": "1", "PET_NODE_RANK": "2",
               "PET_MASTER_ADDR": "trainjob-node-0-0.trainjob", "PET_MASTER_PORT": "29400",
               "JOB_COMPLETION_INDEX": "2", "KUBERNETES_SERVICE_HOST": "10.96.0.1", "HOSTNAME": "trainjob-node-0-2"}

# Kubeflow training-operator (v1): worker 0 of a PyTorchJob "pytorch-job" with one Master and one Worker
# replica and nprocPerNode "auto" (kubeflow/training-operator pkg/controller.v1/pytorch/envvar.go setPodEnv and
# master.go: MASTER_ADDR "<job>-master-0", MASTER_PORT the master's "pytorchjob-port" (23456 by default),
# WORLD_SIZE = replicas x nprocPerNode (auto counts 1), RANK = replica index + 1 for workers, and PET_NNODES,
# PET_NODE_RANK, PET_NPROC_PER_NODE).
KUBEFLOW_V1 = {"PYTHONUNBUFFERED": "0", "MASTER_PORT": "23456", "MASTER_ADDR": "pytorch-job-master-0",
               "WORLD_SIZE": "2", "RANK": "1", "PET_NPROC_PER_NODE": "auto", "PET_NODE_RANK": "1", "PET_NNODES": "2"}

# jax.distributed.initialize's variables (jax/_src/distributed.py reads JAX_COORDINATOR_ADDRESS).
JAX_ENV = {"JAX_COORDINATOR_ADDRESS": "10.2.0.9:6000", "JAX_NUM_PROCESSES": "4", "JAX_PROCESS_ID": "3"}

# An AWS Batch multi-node parallel job of 4 nodes whose main node is node 1, as
# docs.aws.amazon.com/batch/latest/userguide/mnp-env-vars.html describes its variables (with the standard
# AWS_BATCH_JOB_ID "<job id>#<node index>" and friends): node 2 (a child), and node 1 (the main node, where
# AWS_BATCH_JOB_MAIN_NODE_PRIVATE_IPV4_ADDRESS "isn't present").
AWSBATCH_CHILD = {"AWS_BATCH_JOB_ID": "9f1b3c2e-6a4d-4c1e-9d1a-2b7c5e8f0a11#2", "AWS_BATCH_JOB_ATTEMPT": "1",
                  "AWS_BATCH_CE_NAME": "mnp-ce", "AWS_BATCH_JQ_NAME": "mnp-queue",
                  "AWS_BATCH_JOB_MAIN_NODE_INDEX": "1", "AWS_BATCH_JOB_NODE_INDEX": "2",
                  "AWS_BATCH_JOB_NUM_NODES": "4", "AWS_BATCH_JOB_MAIN_NODE_PRIVATE_IPV4_ADDRESS": "10.0.1.7"}
AWSBATCH_MAIN = {k: v for k, v in AWSBATCH_CHILD.items() if k != "AWS_BATCH_JOB_MAIN_NODE_PRIVATE_IPV4_ADDRESS"}
AWSBATCH_MAIN.update(AWS_BATCH_JOB_ID="9f1b3c2e-6a4d-4c1e-9d1a-2b7c5e8f0a11#1", AWS_BATCH_JOB_NODE_INDEX="1")


def test_torchrun_worker_every_launcher_format():
    assert launch(["torch"], env=TORCHRUN_WORKER) == launch_doc(8, 5, 1, 4, 1, 2, "node1", 29500)
    assert launch([], env=TORCHRUN_WORKER) == launch_doc(8, 5, 1, 4, 1, 2, "node1", 29500)
    assert ok(["--format", "torchrun"], env=TORCHRUN_WORKER) == (
        "export MASTER_ADDR=node1\nexport MASTER_PORT=29500\nexport WORLD_SIZE=8\nexport RANK=5\n"
        "export LOCAL_RANK=1\nexport LOCAL_WORLD_SIZE=4\nexport GROUP_RANK=1\nexport GROUP_WORLD_SIZE=2\n")
    # a worker is one of 4 on its node: one torchrun per node is not what it can start
    expect_fail(["--format", "torchrun-node"], 3, ["this node runs 4 tasks", "one task per node"],
                env=TORCHRUN_WORKER)
    assert ok(["--format", "jax"], env=TORCHRUN_WORKER) == (
        "export JAX_COORDINATOR_ADDRESS=node1:29500\nexport JAX_NUM_PROCESSES=8\nexport JAX_PROCESS_ID=5\n")
    assert ok(["--format", "master"], env=TORCHRUN_WORKER) == "node1:29500\n"
    assert ok(["torch", "--format", "master", "--rpc-layer", "grpc"], env=TORCHRUN_WORKER) == "grpc://node1:29500\n"


def test_torchrun_worker_needs_all_its_variables():
    for name in ("MASTER_ADDR", "MASTER_PORT", "RANK", "WORLD_SIZE", "LOCAL_RANK", "LOCAL_WORLD_SIZE",
                 "GROUP_RANK", "GROUP_WORLD_SIZE"):
        env = {k: v for k, v in TORCHRUN_WORKER.items() if k != name}
        expect_fail(["--format", "launch"], 3, ["torch: ", f"{name} is not"], env=env)
    expect_fail(["torch", "--format", "launch"], 3, ["LOCAL_WORLD_SIZE is empty"],
                env=dict(TORCHRUN_WORKER, LOCAL_WORLD_SIZE=""))


def test_torch_plain_variables():
    assert launch([], env=TORCH_PLAIN) == dict(LAUNCH_NULLS, world_size=3, rank=1, master_addr="10.1.0.4",
                                               master_port=1234)
    # unknown numbers are left out of torchrun's exports, for torch's own defaults
    assert ok(["--format", "torchrun"], env=TORCH_PLAIN) == (
        "export MASTER_ADDR=10.1.0.4\nexport MASTER_PORT=1234\nexport WORLD_SIZE=3\nexport RANK=1\n")
    assert ok(["--format", "jax"], env=TORCH_PLAIN) == (
        "export JAX_COORDINATOR_ADDRESS=10.1.0.4:1234\nexport JAX_NUM_PROCESSES=3\nexport JAX_PROCESS_ID=1\n")
    assert ok(["--format", "master"], env=TORCH_PLAIN) == "10.1.0.4:1234\n"
    expect_fail(["--format", "torchrun-node"], 3, ["--format torchrun-node", "torch backend does not say which node"],
                env=TORCH_PLAIN)
    # the optional names: LOCAL_*, NODE_RANK (or GROUP_RANK), GROUP_WORLD_SIZE
    env = dict(TORCH_PLAIN, WORLD_SIZE="4", LOCAL_RANK="1", LOCAL_WORLD_SIZE="2", NODE_RANK="0",
               GROUP_WORLD_SIZE="2")
    assert launch(["torch"], env=env) == launch_doc(4, 1, 1, 2, 0, 2, "10.1.0.4", 1234)
    assert launch(["torch"], env=dict(env, GROUP_RANK="0", NODE_RANK="1")) == \
        launch_doc(4, 1, 1, 2, 0, 2, "10.1.0.4", 1234)  # GROUP_RANK is torchrun's name, and wins
    # rank 1 as local rank 1 cannot be on node 1: node 0 holds at least one rank
    expect_fail(["torch"], 3, ["RANK=1 less LOCAL_RANK=1 puts 0 ranks on the 1 nodes before NODE_RANK=1"],
                env=dict(env, NODE_RANK="1"))
    # two processes on this node: each would start a torchrun of its own
    expect_fail(["torch", "--format", "torchrun-node"], 3, ["this node runs 2 tasks"], env=env)
    one = dict(env, WORLD_SIZE="2", RANK="0", LOCAL_RANK="0", LOCAL_WORLD_SIZE="1")
    assert ok(["torch", "--format", "torchrun-node"], env=one) == (
        "export PET_NNODES=2\nexport PET_NODE_RANK=0\nexport PET_MASTER_ADDR=10.1.0.4\nexport PET_MASTER_PORT=1234\n")


def test_torch_ipv6_master():
    env = dict(TORCH_PLAIN, MASTER_ADDR="fd00::4")
    assert launch([], env=env) == dict(LAUNCH_NULLS, world_size=3, rank=1, master_addr="fd00::4", master_port=1234)
    assert launch([], env=dict(env, MASTER_ADDR="[fd00::4]"))["master_addr"] == "fd00::4"
    assert exports(ok(["--format", "torchrun"], env=env))["MASTER_ADDR"] == "fd00::4"
    assert exports(ok(["--format", "jax"], env=env))["JAX_COORDINATOR_ADDRESS"] == "[fd00::4]:1234"
    assert ok(["--format", "master"], env=env) == "[fd00::4]:1234\n"


def test_kubeflow_v2_pet_variables_are_one_process_per_node():
    code, out, err = run(["--verbose", "--format", "launch"], env=KUBEFLOW_V2)
    assert code == 0, err
    assert json.loads(out) == launch_doc(3, 2, 0, 1, 2, 3, "trainjob-node-0-0.trainjob", 29400), out
    assert "auto: using the torch backend: PET_NNODES; passed over kubernetes (KUBERNETES_SERVICE_HOST and " \
           "JOB_COMPLETION_INDEX" in err, err
    assert ok(["--format", "torchrun-node"], env=KUBEFLOW_V2) == (
        "export PET_NNODES=3\nexport PET_NODE_RANK=2\nexport PET_MASTER_ADDR=trainjob-node-0-0.trainjob\n"
        "export PET_MASTER_PORT=29400\n")
    assert ok(["--format", "torchrun"], env=KUBEFLOW_V2) == (
        "export MASTER_ADDR=trainjob-node-0-0.trainjob\nexport MASTER_PORT=29400\nexport WORLD_SIZE=3\n"
        "export RANK=2\nexport LOCAL_RANK=0\nexport LOCAL_WORLD_SIZE=1\nexport GROUP_RANK=2\n"
        "export GROUP_WORLD_SIZE=3\n")
    assert ok(["--format", "jax"], env=KUBEFLOW_V2) == (
        "export JAX_COORDINATOR_ADDRESS=trainjob-node-0-0.trainjob:29400\nexport JAX_NUM_PROCESSES=3\n"
        "export JAX_PROCESS_ID=2\n")
    assert ok(["--format", "master"], env=KUBEFLOW_V2) == "trainjob-node-0-0.trainjob:29400\n"


def test_kubeflow_pet_with_processes_per_node_is_a_node_launch():
    # Trainer's numProcPerNode 4, or "auto" (torchrun counts the GPUs when it starts): the pod's process is the
    # node's torchrun; its workers, not it, have ranks
    v2_four = dict(KUBEFLOW_V2, PET_NPROC_PER_NODE="4")
    assert launch([], env=v2_four) == launch_doc(12, None, None, 4, 2, 3, "trainjob-node-0-0.trainjob", 29400)
    assert launch([], env=dict(v2_four, PET_NPROC_PER_NODE="auto")) == \
        launch_doc(None, None, None, None, 2, 3, "trainjob-node-0-0.trainjob", 29400)
    # training-operator v1 with nprocPerNode 4 (pkg/controller.v1/pytorch/envvar.go at 2856aa0): WORLD_SIZE
    # counts the job's processes (2 replicas x 4), RANK the pod
    v1_four = dict(KUBEFLOW_V1, WORLD_SIZE="8", PET_NPROC_PER_NODE="4")
    assert launch([], env=v1_four) == launch_doc(8, None, None, 4, 1, 2, "pytorch-job-master-0", 23456)
    for env in (v2_four, v1_four):
        assert ok(["--format", "torchrun-node"], env=env).startswith(
            "export PET_NNODES=%s\nexport PET_NODE_RANK=%s\n" % (env["PET_NNODES"], env["PET_NODE_RANK"])), env
    expect_fail(["--format", "launch"], 3, ["WORLD_SIZE=6 but PET_NNODES=2 nodes of PET_NPROC_PER_NODE=4"],
                env=dict(v1_four, WORLD_SIZE="6"))
    # Alibaba PAI-DLC: WORLD_SIZE counts nodes beside NPROC_PER_NODE, which no backend reads yet
    pai = {"MASTER_ADDR": "dlc-master-0", "MASTER_PORT": "23456", "WORLD_SIZE": "2", "RANK": "1",
           "NPROC_PER_NODE": "8"}
    expect_fail(["--format", "launch"], 3, ['NPROC_PER_NODE="8"', "WORLD_SIZE=2 may count nodes"], env=pai)


def test_kubeflow_v1_torch_and_pet_variables_must_agree():
    # agreeing PET_* say one process per node: node rank = rank, local rank 0 of 1
    assert launch([], env=KUBEFLOW_V1) == launch_doc(2, 1, 0, 1, 1, 2, "pytorch-job-master-0", 23456)
    expect_fail(["--format", "launch"], 3, ['WORLD_SIZE="4"', 'PET_NNODES="2"', "torchrun"],
                env=dict(KUBEFLOW_V1, WORLD_SIZE="4"))
    expect_fail(["torch", "--format", "launch"], 3, ['RANK="1"', 'PET_NODE_RANK="0"'],
                env=dict(KUBEFLOW_V1, PET_NODE_RANK="0"))
    expect_fail(["torch", "--format", "launch"], 3, ['MASTER_ADDR="pytorch-job-master-0"', 'PET_MASTER_ADDR="other"'],
                env=dict(KUBEFLOW_V1, PET_MASTER_ADDR="other"))
    # under torchrun (in the same pod) the worker's variables are torchrun's, and PET_* were its flags
    assert launch([], env=dict(KUBEFLOW_V1, **TORCHRUN_WORKER)) == launch_doc(8, 5, 1, 4, 1, 2, "node1", 29500)


def test_launcher_formats_need_a_master_port():
    # "w0:0" (any port) and "w0" (none) cannot be connected to: torchrun and torchrun-node refuse
    for addr in ("w0:0", "w0"):
        tf = '{"cluster": {"worker": ["%s"]}, "task": {"type": "worker", "index": 0}}' % addr
        for fmt in ("torchrun", "torchrun-node"):
            expect_fail(["--format", fmt], 3, [f'"{addr}"', "no port"], env={"TF_CONFIG": tf})


def test_jax_variables():
    assert launch([], env=JAX_ENV) == dict(LAUNCH_NULLS, world_size=4, rank=3, master_addr="10.2.0.9",
                                           master_port=6000)
    assert ok(["--format", "jax"], env=JAX_ENV) == (
        "export JAX_COORDINATOR_ADDRESS=10.2.0.9:6000\nexport JAX_NUM_PROCESSES=4\nexport JAX_PROCESS_ID=3\n")
    assert ok(["jax", "--format", "torchrun"], env=JAX_ENV) == (
        "export MASTER_ADDR=10.2.0.9\nexport MASTER_PORT=6000\nexport WORLD_SIZE=4\nexport RANK=3\n")
    assert ok(["--format", "master"], env=JAX_ENV) == "10.2.0.9:6000\n"
    expect_fail(["--format", "torchrun-node"], 3, ["--format torchrun-node", "jax backend does not say which node"],
                env=JAX_ENV)
    # JAX_COORDINATOR_PORT completes an address without a port
    assert launch(["jax"], env=dict(JAX_ENV, JAX_COORDINATOR_ADDRESS="coord", JAX_COORDINATOR_PORT="7000"))[
        "master_port"] == 7000


def test_jax_ipv6_coordinator():
    env = dict(JAX_ENV, JAX_COORDINATOR_ADDRESS="[fd00::9]:6000")
    assert launch([], env=env) == dict(LAUNCH_NULLS, world_size=4, rank=3, master_addr="fd00::9", master_port=6000)
    assert exports(ok(["--format", "jax"], env=env))["JAX_COORDINATOR_ADDRESS"] == "[fd00::9]:6000"
    assert exports(ok(["--format", "torchrun"], env=env))["MASTER_ADDR"] == "fd00::9"
    assert ok(["--format", "master"], env=env) == "[fd00::9]:6000\n"


def test_awsbatch_child_and_main_node():
    # child node 2; the main node (index 1) is rank 0, so nodes 0 and 2 are ranks 1 and 2
    assert launch([], env=AWSBATCH_CHILD) == launch_doc(4, 2, 0, 1, 2, 4, "10.0.1.7", 29500)
    assert launch([], env=dict(AWSBATCH_CHILD, AWS_BATCH_JOB_NODE_INDEX="0"))["rank"] == 1
    assert launch([], env=dict(AWSBATCH_CHILD, AWS_BATCH_JOB_NODE_INDEX="3"))["rank"] == 3
    assert ok(["--format", "torchrun"], env=AWSBATCH_CHILD) == (
        "export MASTER_ADDR=10.0.1.7\nexport MASTER_PORT=29500\nexport WORLD_SIZE=4\nexport RANK=2\n"
        "export LOCAL_RANK=0\nexport LOCAL_WORLD_SIZE=1\nexport GROUP_RANK=2\nexport GROUP_WORLD_SIZE=4\n")
    assert ok(["--format", "torchrun-node"], env=AWSBATCH_CHILD) == (
        "export PET_NNODES=4\nexport PET_NODE_RANK=2\nexport PET_MASTER_ADDR=10.0.1.7\nexport PET_MASTER_PORT=29500\n")
    assert ok(["--format", "jax"], env=AWSBATCH_CHILD) == (
        "export JAX_COORDINATOR_ADDRESS=10.0.1.7:29500\nexport JAX_NUM_PROCESSES=4\nexport JAX_PROCESS_ID=2\n")
    assert ok(["--format", "master"], env=AWSBATCH_CHILD) == "10.0.1.7:29500\n"
    assert ok(["awsbatch", "--port", "6000", "--format", "master"], env=AWSBATCH_CHILD) == "10.0.1.7:6000\n"
    # the main node has no address of its own in the variables: localhost, or --main-host
    assert launch([], env=AWSBATCH_MAIN) == launch_doc(4, 0, 0, 1, 0, 4, "localhost", 29500)
    assert launch(["awsbatch", "--main-host", "ip-10-0-1-7.ec2.internal", "--port", "6000"], env=AWSBATCH_MAIN) == \
        launch_doc(4, 0, 0, 1, 0, 4, "ip-10-0-1-7.ec2.internal", 6000)
    assert launch(["awsbatch", "--main-host", "fd00::7"], env=AWSBATCH_MAIN)["master_addr"] == "fd00::7"
    assert exports(ok(["awsbatch", "--main-host", "fd00::7", "--format", "jax"], env=AWSBATCH_MAIN))[
        "JAX_COORDINATOR_ADDRESS"] == "[fd00::7]:29500"
    # --main-host is the main node's own name: the children keep the address Batch gives them
    assert launch(["awsbatch", "--main-host", "ip-10-0-1-7"], env=AWSBATCH_CHILD)["master_addr"] == "10.0.1.7"


COORDINATOR_ONLY = [("torchrun", [], TORCHRUN_WORKER), ("torch", ["torch"], TORCH_PLAIN),
                    ("PET_*", [], KUBEFLOW_V2), ("jax", ["jax"], JAX_ENV), ("awsbatch child", [], AWSBATCH_CHILD),
                    ("awsbatch main", ["awsbatch"], AWSBATCH_MAIN)]


def test_spec_formats_need_every_address():
    for what, backend, env in COORDINATOR_ONLY:
        for fmt in SPEC_FORMATS:
            args = backend + ["--format", fmt]
            got, out, err = run(args, env=env)
            assert (got, out) == (3, ""), (what, fmt, got, out, err)
            assert err.startswith("cluster-resolve: ") and err.count("\n") == 1, (what, fmt, err)
            assert err.endswith(f"--format {fmt} needs every address: use coordinator, launch, torchrun, "
                                "torchrun-node, jax or master\n"), (what, fmt, err)
            assert "not every address" in err, err
        # tfconfig is the default format, also for --exec: the command does not run
        expect_fail(backend + ["--exec", "--", "sh", "-c", "echo ran"], 3,
                    ["--format tfconfig needs every address"], env=env)


def test_launch_of_spec_backends_has_nodes():
    env = dict(SLURM_2X2)
    assert launch([], env=env) == launch_doc(4, 3, 1, 2, 1, 2, "node1", 8888)
    assert launch(["--port", "9000"], env=env)["master_port"] == 9000
    tf = {"cluster": CLUSTER, "task": {"type": "worker", "index": 1}}
    assert launch([], tf_config=tf) == launch_doc(5, 3, 0, 1, 3, 5, "c0", 2222)
    spec = json.dumps({"worker": ["h1:1", "h1:2", "h2:1", "h1:3"]})
    assert launch(["simple", "--spec", spec, "--task-type", "worker", "--task-id", "3"]) == \
        launch_doc(4, 3, 2, 3, 0, 2, "h1", 1)
    assert launch(["simple", "--spec", json.dumps({"worker": ["[fd00::1]:1", "[fd00::2]:1"]}),
                   "--task-type", "worker", "--task-id", "1"]) == launch_doc(2, 1, 0, 1, 1, 2, "fd00::1", 1)
    assert launch([]) == launch_doc(1, 0, 0, 1, 0, 1, "localhost", 8470)
    sm = {"SM_HOSTS": '["algo-1", "algo-2"]', "SM_CURRENT_HOST": "algo-2"}
    assert launch([], env=sm) == launch_doc(2, 1, 0, 1, 1, 2, "algo-1", 2223)


def test_launch_needs_own_task():
    # the CLI's way to name one is --task-type/--task-id (not the library's cres_set_task())
    expect_fail(["tfconfig", "--format", "launch"], 3, ["--task-type"], tf_config={"cluster": CLUSTER})
    expect_fail(["simple", "--spec", '{"w": ["a:1"]}', "--format", "launch"], 3, ["--task-type"])


# ---- machinefile -----------------------------------------------------------------------------

# rank 3 of `srun -N2 --ntasks-per-node=2`: node2's second task
SLURM_2X2 = {"SLURM_JOB_ID": "7", "SLURM_STEP_ID": "0", "SLURM_PROCID": "3", "SLURM_STEP_NUM_TASKS": "4",
             "SLURM_STEP_NODELIST": "node[1-2]", "SLURM_STEP_TASKS_PER_NODE": "2(x2)", "SLURM_NODEID": "1",
             "SLURM_LOCALID": "1", "SLURMD_NODENAME": "node2"}
# srun -N2 --ntasks-per-node=1: the second node's task (one torchrun per node)
SLURM_1PN = dict(SLURM_2X2, SLURM_PROCID="1", SLURM_STEP_NUM_TASKS="2", SLURM_STEP_TASKS_PER_NODE="1(x2)",
                 SLURM_LOCALID="0")


def test_machinefile_from_a_slurm_step():
    assert ok(["--format", "machinefile"], env=SLURM_2X2) == "node1:2\nnode2:2\n"
    assert ok(["slurm", "--format", "hostfile"], env=SLURM_2X2) == "node1 slots=2\nnode2 slots=2\n"
    # hosts in rank order, each once, with its number of tasks
    spec = json.dumps({"worker": ["b:1", "a:1", "b:2"], "chief": ["c:1"]})
    assert ok(["simple", "--spec", spec, "--format", "machinefile"]) == "c:1\nb:2\na:1\n"


def test_machinefile_cannot_hold_ipv6():
    spec = json.dumps({"worker": ["h1:1", "[fd00::1]:1", "[fd00::1]:2"]})
    expect_fail(["simple", "--spec", spec, "--format", "machinefile"], 3, ['"fd00::1"', "IPv6", "hostfile"])
    assert ok(["simple", "--spec", spec, "--format", "hostfile"]) == "h1 slots=1\nfd00::1 slots=2\n"


# ---- jax and torchrun-node with GPUs, and --exec ---------------------------------------------

def test_jax_format_assigns_gpus_from_slurm():
    env = dict(SLURM_2X2, CUDA_VISIBLE_DEVICES="0,1,2,3", SLURM_GPUS_ON_NODE="4")
    expected = ("export JAX_COORDINATOR_ADDRESS=node1:8888\nexport JAX_NUM_PROCESSES=4\nexport JAX_PROCESS_ID=3\n"
                "export CUDA_VISIBLE_DEVICES=2,3\nexport JAX_LOCAL_DEVICE_IDS=0,1\n")
    assert ok(["slurm", "--gpus-per-task", "2", "--format", "jax"], env=env) == expected
    assert ok(["--format", "jax"], env=env) == expected  # 4 GPUs on a node of 2 tasks: 2 each
    assert exports(ok(["slurm", "--gpus-per-task", "2", "--format", "torchrun"], env=env))[
        "CUDA_VISIBLE_DEVICES"] == "2,3"
    # one torchrun per node takes the node's GPUs: torchrun-node leaves CUDA_VISIBLE_DEVICES alone
    assert ok(["slurm", "--format", "torchrun-node"], env=dict(SLURM_1PN, CUDA_VISIBLE_DEVICES="0,1,2,3")) == (
        "export PET_NNODES=2\nexport PET_NODE_RANK=1\nexport PET_MASTER_ADDR=node1\nexport PET_MASTER_PORT=8888\n")
    expect_fail(["slurm", "--gpus-per-task", "2", "--format", "torchrun-node"], 3, ["this node runs 2 tasks"],
                env=env)
    out = ok(["slurm", "--gpus-per-task", "2", "--format", "jax", "--exec", "--", sys.executable, "-c",
              PRINT_ENV, "JAX_PROCESS_ID", "CUDA_VISIBLE_DEVICES", "JAX_LOCAL_DEVICE_IDS"], env=env)
    assert json.loads(out) == {"JAX_PROCESS_ID": "3", "CUDA_VISIBLE_DEVICES": "2,3", "JAX_LOCAL_DEVICE_IDS": "0,1"}
    # coordinator-only sources assign no GPUs
    assert "CUDA_VISIBLE_DEVICES" not in exports(ok(["--format", "jax"], env=dict(JAX_ENV, CUDA_VISIBLE_DEVICES="0")))


def test_exec_torchrun_node_and_coordinator_only_sources():
    names = ["PET_NNODES", "PET_NODE_RANK", "PET_MASTER_ADDR", "PET_MASTER_PORT", "CUDA_VISIBLE_DEVICES"]
    out = ok(["--format", "torchrun-node", "--exec", "--", sys.executable, "-c", PRINT_ENV] + names,
             env=dict(SLURM_1PN, CUDA_VISIBLE_DEVICES="0,1,2,3"))
    assert json.loads(out) == {"PET_NNODES": "2", "PET_NODE_RANK": "1", "PET_MASTER_ADDR": "node1",
                               "PET_MASTER_PORT": "8888", "CUDA_VISIBLE_DEVICES": "0,1,2,3"}
    out = ok(["--format", "torchrun", "--exec", "--", sys.executable, "-c", PRINT_ENV, "MASTER_ADDR", "RANK",
              "GROUP_RANK"], env=AWSBATCH_CHILD)
    assert json.loads(out) == {"MASTER_ADDR": "10.0.1.7", "RANK": "2", "GROUP_RANK": "2"}
    out = ok(["--format", "jax", "--exec", "--", sys.executable, "-c", PRINT_ENV, "JAX_COORDINATOR_ADDRESS"],
             env=KUBEFLOW_V2)
    assert json.loads(out) == {"JAX_COORDINATOR_ADDRESS": "trainjob-node-0-0.trainjob:29400"}
    # torchrun-node where the node is unknown: an error, and the command does not run
    expect_fail(["--format", "torchrun-node", "--exec", "--", "sh", "-c", "echo ran"], 3,
                ["jax backend does not say which node"], env=JAX_ENV)
    expect_fail(["--format", "launch", "--exec", "--", "true"], 2, ["--exec needs --format", "not launch"],
                env=JAX_ENV)


# ---- auto's order ----------------------------------------------------------------------------

def auto_verbose(env, tf_config=None):
    """--verbose --format launch under auto: (launch info, the auto: line)."""
    code, out, err = run(["--verbose", "--format", "launch"], env=env, tf_config=tf_config)
    assert code == 0, (code, err)
    lines = [line for line in err.splitlines() if "auto: using the " in line]
    assert len(lines) == 1, err
    return json.loads(out), lines[0]


def test_auto_torchrun_inside_a_slurm_step_is_torch():
    # `srun ... torchrun ...`: the workers carry the step's variables too; the innermost launcher wins
    doc, line = auto_verbose(dict(SLURM_2X2, **TORCHRUN_WORKER))
    assert doc == launch_doc(8, 5, 1, 4, 1, 2, "node1", 29500), doc
    assert "auto: using the torch backend: TORCHELASTIC_RUN_ID; passed over slurm (SLURM_STEP_NODELIST)" in line, line
    # and inside mpirun, and AWS Batch
    _, line = auto_verbose(dict(TORCHRUN_WORKER, OMPI_COMM_WORLD_RANK="0", OMPI_COMM_WORLD_SIZE="2"))
    assert "using the torch backend: TORCHELASTIC_RUN_ID; passed over mpi (OMPI_COMM_WORLD_SIZE)" in line, line
    _, line = auto_verbose(dict(AWSBATCH_CHILD, **TORCHRUN_WORKER))
    assert "using the torch backend: TORCHELASTIC_RUN_ID; passed over awsbatch (AWS_BATCH_JOB_NODE_INDEX)" in line
    # alone, nothing is passed over (torch's RANK is the same backend)
    _, line = auto_verbose(TORCHRUN_WORKER)
    assert line.endswith("auto: using the torch backend: TORCHELASTIC_RUN_ID"), line


def test_auto_tf_config_wins_over_torchrun():
    tf = {"cluster": {"worker": ["a:1", "b:1"]}, "task": {"type": "worker", "index": 1}}
    # TF_CONFIG is explicit, so it wins; torchrun's sizes and ranks that contradict it are refused
    code, out, err = run(["--verbose", "--format", "launch"], env=TORCHRUN_WORKER, tf_config=tf)
    assert code == 3 and out == "", (code, out, err)
    assert "auto: using the tfconfig backend: TF_CONFIG; passed over torch (TORCHELASTIC_RUN_ID)" in err, err
    assert 'tfconfig: WORLD_SIZE="8" is set, but the tfconfig backend\'s answer is 2' in err, err
    expect_fail(["--format", "spec"], 3, ['WORLD_SIZE="8"'], env=TORCHRUN_WORKER, tf_config=tf)
    # torchrun's variables of this very task agree: TF_CONFIG's answer, with torchrun's coordinator
    agree = dict(TORCHRUN_WORKER, WORLD_SIZE="2", RANK="1", LOCAL_RANK="0", LOCAL_WORLD_SIZE="1",
                 GROUP_RANK="1", GROUP_WORLD_SIZE="2")
    doc, line = auto_verbose(agree, tf_config=tf)
    assert doc == launch_doc(2, 1, 0, 1, 1, 2, "node1", 29500), doc


def test_auto_plain_torch_comes_after_the_schedulers():
    # a script that sets torch's names by hand inside a Slurm step, an AWS Batch node, SageMaker
    # (their coordinator is kept as given, as Lightning does under Slurm)
    plain = dict(MASTER_ADDR="node1", MASTER_PORT="29500", RANK="3", WORLD_SIZE="4")
    doc, line = auto_verbose(dict(SLURM_2X2, **plain))
    assert doc == launch_doc(4, 3, 1, 2, 1, 2, "node1", 29500), doc
    assert "auto: using the slurm backend: SLURM_STEP_NODELIST; passed over torch (RANK is set)" in line, line
    doc, line = auto_verbose(dict(AWSBATCH_CHILD, **dict(plain, RANK="2", MASTER_ADDR="10.0.1.7")))
    assert (doc["master_addr"], doc["rank"]) == ("10.0.1.7", 2), doc
    assert "auto: using the awsbatch backend: AWS_BATCH_JOB_NODE_INDEX; passed over torch (RANK is set)" in line
    sm = {"SM_HOSTS": '["algo-1", "algo-2"]', "SM_CURRENT_HOST": "algo-2"}
    _, line = auto_verbose(dict(sm, **AWSBATCH_CHILD))
    assert "auto: using the sagemaker backend: SM_HOSTS; passed over awsbatch (AWS_BATCH_JOB_NODE_INDEX)" in line
    # WORLD_SIZE alone counts only when it is not 1
    code, _, err = run(["--verbose", "--format", "launch"], env=dict(JAX_ENV, WORLD_SIZE="1"))
    assert "auto: using the jax backend: JAX_COORDINATOR_ADDRESS\n" in err, err
    # (and then it contradicts JAX's 4 processes: torch would read it and run alone)
    assert code == 3 and 'jax: WORLD_SIZE="1" is set, but the jax backend\'s answer is 4' in err, err
    _, line = auto_verbose(dict(KUBEFLOW_V1, **JAX_ENV))
    assert "auto: using the torch backend: RANK is set; passed over jax (JAX_COORDINATOR_ADDRESS)" in line, line


def test_auto_jax_before_pet_before_tpu_and_indexed_jobs():
    doc, line = auto_verbose(dict(KUBEFLOW_V2, **JAX_ENV))
    assert doc["world_size"] == 4 and doc["master_addr"] == "10.2.0.9", doc
    assert "auto: using the jax backend: JAX_COORDINATOR_ADDRESS; passed over torch (PET_NNODES), kubernetes (" \
           in line, line
    doc, line = auto_verbose(dict(KUBEFLOW_V2, TPU_WORKER_HOSTNAMES="t0,t1", TPU_WORKER_ID="1"))
    assert doc["world_size"] == 3, doc
    assert "auto: using the torch backend: PET_NNODES; passed over tpu (TPU_WORKER_HOSTNAMES), kubernetes (" \
           in line, line


def test_auto_refuses_one_task_when_launch_variables_say_otherwise():
    for name in ("LOCAL_RANK", "NODE_RANK", "GROUP_RANK", "LOCAL_WORLD_SIZE", "PMI_RANK",
                 "OMPI_COMM_WORLD_RANK", "SLURM_PROCID", "PET_NPROC_PER_NODE", "JOB_COMPLETION_INDEX"):
        expect_fail(["--format", "launch"], 3, [f'{name}="2"', "CLUSTER_RESOLVER_BACKEND=local"], env={name: "2"})
        # forced local is one task
        assert launch([], env={name: "2", "CLUSTER_RESOLVER_BACKEND": "local"}) == \
            launch_doc(1, 0, 0, 1, 0, 1, "localhost", 8470)
    assert launch(["local"], env={"SLURM_PROCID": "2"})["world_size"] == 1  # and so is a named one
    # FLUX_TASK_RANK now picks the flux backend, whose partial environment is the error
    expect_fail(["--format", "launch"], 3, ['FLUX_TASK_RANK="2"', "FLUX_JOB_SIZE is not"],
                env={"FLUX_TASK_RANK": "2"})
    # blank is not set; WORLD_SIZE=1 alone is a one-process job
    assert launch([], env={"LOCAL_RANK": "", "WORLD_SIZE": "1"})["world_size"] == 1


def test_auto_partial_launch_variables_name_the_missing_one():
    expect_fail(["--format", "launch"], 3, ['RANK="1"', 'WORLD_SIZE="4"', "MASTER_ADDR is not"],
                env={"WORLD_SIZE": "4", "RANK": "1"})
    expect_fail([], 3, ['WORLD_SIZE="4"', "MASTER_ADDR is not"], env={"WORLD_SIZE": "4"})
    expect_fail([], 3, ["MASTER_PORT is not"], env={"WORLD_SIZE": "4", "RANK": "1", "MASTER_ADDR": "m"})
    # a Slurm job's variables without a step's: the fixture of PyTorch Lightning's SLURMEnvironment test
    # (tests/tests_fabric/plugins/environments/test_slurm.py, test_attributes_from_environment_variables), and
    # its core
    lightning = {"SLURM_NODELIST": "1.1.1.1, 1.1.1.2", "SLURM_JOB_ID": "0001234", "SLURM_NTASKS": "20",
                 "SLURM_NTASKS_PER_NODE": "10", "SLURM_LOCALID": "2", "SLURM_PROCID": "1", "SLURM_NODEID": "3",
                 "SLURM_JOB_NAME": "JOB"}
    expect_fail(["--format", "launch"], 3, ["SLURM_PROCID=1", "SLURM_STEP_NODELIST"], env=lightning)
    expect_fail([], 3, ["SLURM_PROCID=1", "SLURM_STEP_NODELIST"],
                env={"SLURM_JOB_ID": "1234", "SLURM_PROCID": "1", "SLURM_NTASKS": "20"})


# ---- bad input to the coordinator-only backends ------------------------------------------------

def test_torch_bad_values():
    cases = [
        (dict(TORCH_PLAIN, WORLD_SIZE="four"), ['WORLD_SIZE="four"']),
        (dict(TORCH_PLAIN, WORLD_SIZE="0"), ['WORLD_SIZE="0"']),
        (dict(TORCH_PLAIN, RANK="-1"), ['RANK="-1"']),
        (dict(TORCH_PLAIN, RANK="3"), ["RANK=3", "WORLD_SIZE=3"]),
        (dict(TORCH_PLAIN, RANK="99999999999"), ['RANK="99999999999"']),
        (dict(TORCH_PLAIN, RANK=""), ["RANK is empty"]),
        (dict(TORCH_PLAIN, MASTER_ADDR=""), ["MASTER_ADDR is empty"]),
        (dict(TORCH_PLAIN, MASTER_PORT="0"), ['MASTER_PORT="0"']),
        (dict(TORCH_PLAIN, MASTER_PORT="65536"), ['MASTER_PORT="65536"']),
        (dict(TORCH_PLAIN, MASTER_PORT="http"), ['MASTER_PORT="http"']),
        (dict(TORCH_PLAIN, MASTER_ADDR="10.1.0.4:1234"), ['MASTER_ADDR="10.1.0.4:1234"', "port"]),
        (dict(TORCH_PLAIN, MASTER_ADDR="bad host"), ['MASTER_ADDR="bad host"']),
        (dict(TORCH_PLAIN, LOCAL_RANK="x"), ['LOCAL_RANK="x"']),
        (dict(TORCH_PLAIN, LOCAL_RANK="2", LOCAL_WORLD_SIZE="2"), ["LOCAL_RANK=2", "LOCAL_WORLD_SIZE=2"]),
        (dict(TORCH_PLAIN, GROUP_RANK="-2"), ['GROUP_RANK="-2"']),
        (dict(TORCH_PLAIN, GROUP_RANK="1", GROUP_WORLD_SIZE="1"), ["GROUP_RANK=1", "GROUP_WORLD_SIZE=1"]),
        (dict(TORCHRUN_WORKER, GROUP_WORLD_SIZE=""), ["GROUP_WORLD_SIZE is empty"]),
        (dict(TORCHRUN_WORKER, LOCAL_RANK="4"), ["LOCAL_RANK=4", "LOCAL_WORLD_SIZE=4"]),
    ]
    for i, (env, words) in enumerate(cases):  # auto and the named backend, by turns
        expect_fail(["torch", "--format", "torchrun"] if i % 2 else ["--format", "launch"], 3, ["torch: "] + words,
                    env=env)
    expect_fail(["torch"], 3, ["not a torch launch", "TORCHELASTIC_RUN_ID"])


# A size larger than WORLD_SIZE: the message quotes what the variables say, not a number derived from them.
def test_torch_local_world_size_error_gives_its_value():
    expect_fail(["torch", "--format", "launch"], 3, ["LOCAL_WORLD_SIZE=8", "WORLD_SIZE=3"],
                env=dict(TORCH_PLAIN, LOCAL_RANK="0", LOCAL_WORLD_SIZE="8"))


def test_torch_group_world_size_error_gives_its_value():
    expect_fail(["torch", "--format", "launch"], 3, ["GROUP_WORLD_SIZE=5", "WORLD_SIZE=3"],
                env=dict(TORCH_PLAIN, GROUP_WORLD_SIZE="5"))


def test_torch_node_rank_error_names_node_rank():
    # the variable that is set is NODE_RANK; GROUP_RANK is not set at all
    expect_fail(["torch", "--format", "launch"], 3, ["NODE_RANK=2", "GROUP_WORLD_SIZE=2"],
                env=dict(TORCH_PLAIN, NODE_RANK="2", GROUP_WORLD_SIZE="2"))
    code, out, err = run(["torch", "--format", "launch"], env=dict(TORCH_PLAIN, NODE_RANK="2", GROUP_WORLD_SIZE="2"))
    assert "GROUP_RANK" not in err, err


def test_torch_pet_bad_values():
    cases = [
        (dict(KUBEFLOW_V2, PET_NNODES="three"), ['PET_NNODES="three"']),
        (dict(KUBEFLOW_V2, PET_NNODES="0"), ['PET_NNODES="0"']),
        (dict(KUBEFLOW_V2, PET_NNODES="1:4"), ['PET_NNODES="1:4"', "elastic"]),  # v1's elasticPolicy range
        (dict(KUBEFLOW_V2, PET_NODE_RANK="-1"), ['PET_NODE_RANK="-1"']),
        (dict(KUBEFLOW_V2, PET_NODE_RANK="3"), ["PET_NODE_RANK=3", "PET_NNODES=3"]),
        (dict(KUBEFLOW_V2, PET_NODE_RANK=""), ["PET_NODE_RANK is empty"]),
        (dict(KUBEFLOW_V2, PET_MASTER_PORT="x"), ['PET_MASTER_PORT="x"']),
        (dict(KUBEFLOW_V2, PET_MASTER_ADDR="trainjob-node-0-0.trainjob:29400"),
         ['PET_MASTER_ADDR="trainjob-node-0-0.trainjob:29400"', "port"]),
    ]
    for env, words in cases:
        expect_fail(["--format", "launch"], 3, ["torch: "] + words, env=env)
    env = {k: v for k, v in KUBEFLOW_V2.items() if k != "PET_MASTER_PORT"}
    expect_fail(["--format", "launch"], 3, ['PET_NNODES="3"', "PET_MASTER_PORT is not"], env=env)


def test_jax_bad_values():
    cases = [
        (dict(JAX_ENV, JAX_COORDINATOR_ADDRESS="fd00::9:6000"), ['JAX_COORDINATOR_ADDRESS="fd00::9:6000"',
                                                                "brackets"]),
        (dict(JAX_ENV, JAX_COORDINATOR_ADDRESS="coord"), ['JAX_COORDINATOR_ADDRESS="coord"', "no port"]),
        (dict(JAX_ENV, JAX_COORDINATOR_ADDRESS="coord:0"), ['JAX_COORDINATOR_ADDRESS="coord:0"']),
        (dict(JAX_ENV, JAX_COORDINATOR_ADDRESS="coord:70000"), ['JAX_COORDINATOR_ADDRESS="coord:70000"']),
        (dict(JAX_ENV, JAX_COORDINATOR_ADDRESS="coord:port"), ['JAX_COORDINATOR_ADDRESS="coord:port"']),
        (dict(JAX_ENV, JAX_COORDINATOR_ADDRESS="coord", JAX_COORDINATOR_PORT="-5"), ['JAX_COORDINATOR_PORT="-5"']),
        (dict(JAX_ENV, JAX_COORDINATOR_ADDRESS=""), ["JAX_COORDINATOR_ADDRESS is empty"]),
        (dict(JAX_ENV, JAX_NUM_PROCESSES="four"), ['JAX_NUM_PROCESSES="four"']),
        (dict(JAX_ENV, JAX_NUM_PROCESSES="0"), ['JAX_NUM_PROCESSES="0"']),
        (dict(JAX_ENV, JAX_PROCESS_ID="-1"), ['JAX_PROCESS_ID="-1"']),
        (dict(JAX_ENV, JAX_PROCESS_ID="4"), ["JAX_PROCESS_ID=4", "JAX_NUM_PROCESSES=4"]),
        (dict(JAX_ENV, JAX_PROCESS_ID=""), ["JAX_PROCESS_ID is empty"]),
    ]
    for i, (env, words) in enumerate(cases):
        expect_fail(["jax", "--format", "jax"] if i % 2 else ["--format", "launch"], 3, ["jax: "] + words, env=env)
    env = {k: v for k, v in JAX_ENV.items() if k != "JAX_NUM_PROCESSES"}
    expect_fail(["--format", "launch"], 3, ['JAX_PROCESS_ID="3"', "JAX_NUM_PROCESSES is not"], env=env)
    expect_fail(["jax"], 3, ["JAX_COORDINATOR_ADDRESS is not set"])


def test_awsbatch_bad_values():
    cases = [
        (dict(AWSBATCH_CHILD, AWS_BATCH_JOB_NUM_NODES="four"), ['AWS_BATCH_JOB_NUM_NODES="four"']),
        (dict(AWSBATCH_CHILD, AWS_BATCH_JOB_NUM_NODES="0"), ['AWS_BATCH_JOB_NUM_NODES="0"']),
        (dict(AWSBATCH_CHILD, AWS_BATCH_JOB_NODE_INDEX="-1"), ['AWS_BATCH_JOB_NODE_INDEX="-1"']),
        (dict(AWSBATCH_CHILD, AWS_BATCH_JOB_NODE_INDEX="4"), ["AWS_BATCH_JOB_NODE_INDEX=4",
                                                              "AWS_BATCH_JOB_NUM_NODES=4"]),
        (dict(AWSBATCH_CHILD, AWS_BATCH_JOB_NODE_INDEX=""), ["AWS_BATCH_JOB_NODE_INDEX is empty"]),
        (dict(AWSBATCH_CHILD, AWS_BATCH_JOB_MAIN_NODE_INDEX="4"), ['AWS_BATCH_JOB_MAIN_NODE_INDEX="4"']),
        (dict(AWSBATCH_CHILD, AWS_BATCH_JOB_MAIN_NODE_INDEX=""), ["AWS_BATCH_JOB_MAIN_NODE_INDEX is empty"]),
        (dict(AWSBATCH_CHILD, AWS_BATCH_JOB_MAIN_NODE_PRIVATE_IPV4_ADDRESS="10.0.1.256"),
         ['AWS_BATCH_JOB_MAIN_NODE_PRIVATE_IPV4_ADDRESS="10.0.1.256"']),
        (dict(AWSBATCH_CHILD, AWS_BATCH_JOB_MAIN_NODE_PRIVATE_IPV4_ADDRESS="fd00::7"),
         ['AWS_BATCH_JOB_MAIN_NODE_PRIVATE_IPV4_ADDRESS="fd00::7"', "IPv4"]),
        (dict(AWSBATCH_CHILD, AWS_BATCH_JOB_MAIN_NODE_PRIVATE_IPV4_ADDRESS="10.0.1.7:29500"),
         ['AWS_BATCH_JOB_MAIN_NODE_PRIVATE_IPV4_ADDRESS="10.0.1.7:29500"']),
        # a child without the main node's address
        ({k: v for k, v in AWSBATCH_CHILD.items() if k != "AWS_BATCH_JOB_MAIN_NODE_PRIVATE_IPV4_ADDRESS"},
         ["AWS_BATCH_JOB_NODE_INDEX=2", "AWS_BATCH_JOB_MAIN_NODE_PRIVATE_IPV4_ADDRESS"]),
    ]
    for i, (env, words) in enumerate(cases):
        expect_fail(["awsbatch", "--format", "torchrun"] if i % 2 else ["--format", "launch"], 3,
                    ["awsbatch: "] + words, env=env)
    env = {k: v for k, v in AWSBATCH_CHILD.items() if k != "AWS_BATCH_JOB_MAIN_NODE_INDEX"}
    expect_fail(["--format", "launch"], 3, ['AWS_BATCH_JOB_NODE_INDEX="2"', "AWS_BATCH_JOB_MAIN_NODE_INDEX is not"],
                env=env)
    expect_fail(["awsbatch"], 3, ["AWS_BATCH_JOB_NODE_INDEX is not set"])
    expect_fail(["awsbatch", "--port", "0"], 2, ["--port 0"], env=AWSBATCH_MAIN)
    expect_fail(["awsbatch", "--port", "65536"], 2, ["--port 65536"], env=AWSBATCH_MAIN)
    expect_fail(["torch", "--port", "1"], 2, ["--port does not apply"])
    expect_fail(["awsbatch", "--main-host"], 2, ["--main-host needs a value"])


def test_awsbatch_bad_main_host_names_the_option():
    expect_fail(["awsbatch", "--main-host", "bad host", "--format", "launch"], 3, ['"bad host"', "--main-host"],
                env=AWSBATCH_MAIN)
    expect_fail(["awsbatch", "--main-host", "", "--format", "launch"], 2, ["--main-host needs a value"],
                env=AWSBATCH_MAIN)


# ---- round trips: what one format exports, the matching backend reads back ---------------------

ENV_BIN = shutil.which("env") or "/usr/bin/env"


def through(src, fmt, reader, env=None, tf_config=None, unset=()):
    """cluster-resolve SRC --format FMT --exec -- [env -u NAME...] cluster-resolve READER --format launch."""
    prefix = [ENV_BIN] + [a for name in unset for a in ("-u", name)] if unset else []
    args = src + ["--format", fmt, "--exec", "--"] + prefix + [os.path.abspath(CLI), reader, "--format", "launch"]
    code, out, err = run(args, env=env, tf_config=tf_config)
    assert code == 0 and err == "", (src, fmt, reader, code, err)
    return json.loads(out)


_ROUND_TRIP_SOURCES = []


def round_trip_sources():
    """[(what, backend args, env, tf_config, launch info)]: each source once, with its own launch info."""
    if not _ROUND_TRIP_SOURCES:
        tmp = tempfile.mkdtemp()
        atexit.register(shutil.rmtree, tmp, True)
        hostfile = os.path.join(tmp, "hosts")
        with open(hostfile, "w") as f:
            f.write("fakenode1 slots=2\nfakenode2:2\n")
        mpi = {"OMPI_COMM_WORLD_RANK": "2", "OMPI_COMM_WORLD_SIZE": "4", "OMPI_COMM_WORLD_LOCAL_RANK": "0",
               "OMPI_COMM_WORLD_LOCAL_SIZE": "2"}
        tf = {"cluster": CLUSTER, "task": {"type": "worker", "index": 1}}
        shared = {"cluster": {"worker": ["h1:5000", "h1:5001", "h2:5000", "h2:5001"]},
                  "task": {"type": "worker", "index": 3}}
        for what, src, env, tf_config in [
                ("slurm", ["slurm"], dict(SLURM_2X2, CUDA_VISIBLE_DEVICES="0,1,2,3"), None),
                ("slurm cyclic", [], SLURM_CYCLIC, None),
                ("mpi --hostfile", ["mpi", "--hostfile", hostfile], mpi, None),
                ("tfconfig", [], None, tf),
                ("tfconfig shared hosts", ["tfconfig"], None, shared),
                ("torchrun worker", [], TORCHRUN_WORKER, None),
                ("torch plain", ["torch"], TORCH_PLAIN, None),
                ("torch ipv6", [], dict(TORCH_PLAIN, MASTER_ADDR="fd00::4"), None),
                ("PET_*", [], KUBEFLOW_V2, None),
                ("awsbatch child", [], AWSBATCH_CHILD, None),
                ("awsbatch main", ["awsbatch", "--main-host", "fd00::7"], AWSBATCH_MAIN, None)]:
            _ROUND_TRIP_SOURCES.append((what, src, env, tf_config, launch(src, env=env, tf_config=tf_config)))
    return _ROUND_TRIP_SOURCES


def test_round_trip_torchrun_to_torch():
    # torchrun's names, read back by torch (named: the child also has the source's variables)
    for what, src, env, tf, want in round_trip_sources():
        got = through(src, "torchrun", "torch", env=env, tf_config=tf)
        assert got == want, (what, got, want)


def test_round_trip_jax_to_jax():
    # JAX says no more than the size, the rank and the coordinator
    jax_sources = [("jax", [], JAX_ENV, None),
                   ("jax ipv6", ["jax"], dict(JAX_ENV, JAX_COORDINATOR_ADDRESS="[fd00::9]:1"), None)]
    for what, src, env, tf, want in round_trip_sources() + [s + (launch(s[1], env=s[2]),) for s in jax_sources]:
        got = through(src, "jax", "jax", env=env, tf_config=tf)
        assert got == dict(want, **LAUNCH_NULLS), (what, got, want)


def test_round_trip_torchrun_node_to_torch_pet():
    # one torchrun per node: the reader (PET_* alone, the torch names unset) is that node's process
    for what, src, env, tf, want in round_trip_sources():
        if want["num_nodes"] is None:
            continue  # torch plain: no node numbers, so torchrun-node refuses (tested above)
        if (want["local_world_size"] or 1) > 1:  # several tasks per node: one torchrun each would start
            expect_fail(src + ["--format", "torchrun-node"], 3, ["this node runs"], env=env, tf_config=tf)
            continue
        got = through(src, "torchrun-node", "torch", env=env, tf_config=tf, unset=TORCH_NAMES)
        node = launch_doc(want["num_nodes"], want["node_rank"], 0, 1, want["node_rank"], want["num_nodes"],
                          want["master_addr"], want["master_port"])
        assert got == node, (what, got, want)


def test_round_trip_fails_like_the_source():
    # what the source cannot say, the exec'd reader never sees: same exit, nothing run
    for fmt in ("torchrun", "jax", "torchrun-node"):
        code, out, err = run(["torch", "--format", fmt, "--exec", "--", os.path.abspath(CLI), "torch", "--format",
                              "launch"], env=dict(TORCH_PLAIN, RANK="7"))
        assert (code, out) == (3, "") and "RANK=7 is not below WORLD_SIZE=3" in err, (fmt, code, err)


# ---- platforms that name every member: vertex, skypilot, lws, volcano ---------------------------

# Vertex AI: a CustomJob of three worker pools (the primary replica, two workers, one parameter server), the
# process of workerpool1 replica 1. CLUSTER_SPEC as "Format of CLUSTER_SPEC" of
# cloud.google.com/vertex-ai/docs/training/distributed-training gives it: "cluster" (pool -> "host:port" list),
# "environment" "cloud", "task" {type, index, trial}, "job" (the CustomJobSpec) and "open_ports".
VERTEX_CLUSTER = {"workerpool0": ["cmle-training-workerpool0-1d969d3ba6-0:2222"],
                  "workerpool1": ["cmle-training-workerpool1-1d969d3ba6-0:2222",
                                  "cmle-training-workerpool1-1d969d3ba6-1:2222"],
                  "workerpool2": ["cmle-training-workerpool2-1d969d3ba6-0:2222"]}
VERTEX_DOC = {"cluster": VERTEX_CLUSTER, "environment": "cloud",
              "task": {"type": "workerpool1", "index": 1, "trial": ""},
              "job": {"worker_pool_specs": [{"machine_spec": {"machine_type": "n1-standard-4"}, "replica_count": "1",
                                             "container_spec": {"image_uri": "gcr.io/p/trainer:1"}}]},
              "open_ports": [3333]}
VERTEX = {"CLUSTER_SPEC": json.dumps(VERTEX_DOC)}
# The TF_CONFIG Vertex AI sets beside it for TensorFlow (the same page: pools 0, 1, 2 are chief, worker, ps).
VERTEX_TF_CONFIG = {"cluster": {"chief": VERTEX_CLUSTER["workerpool0"], "worker": VERTEX_CLUSTER["workerpool1"],
                                "ps": VERTEX_CLUSTER["workerpool2"]},
                    "environment": "cloud", "task": {"type": "worker", "index": 1, "trial": ""}, "job": {}}
VERTEX_HEAD = "cmle-training-workerpool0-1d969d3ba6-0"

# SkyPilot: node 2 of `sky launch` with num_nodes: 3 and accelerators A100:8, the variables
# docs.skypilot.co/en/stable/running-jobs/environment-variables.html lists for the run section (SKYPILOT_NODE_IPS
# one IP a line, head node first, as distributed-jobs.html reads it with `head -n1`).
SKYPILOT = {"SKYPILOT_NODE_IPS": "10.128.0.21\n10.128.0.22\n10.128.0.23", "SKYPILOT_NODE_RANK": "2",
            "SKYPILOT_NUM_NODES": "3", "SKYPILOT_NUM_GPUS_PER_NODE": "8",
            "SKYPILOT_TASK_ID": "sky-2026-08-01-12-00-00-123456_mycluster_1"}

# LeaderWorkerSet: worker 2 of group 1 of the LWS "vllm" (size 4) in namespace "default": AddLWSVariables in
# kubernetes-sigs/lws pkg/utils/pod/pod_utils.go (LWS_LEADER_ADDRESS "<lws>-<group>.<subdomain>.<namespace>",
# LWS_GROUP_SIZE, LWS_WORKER_INDEX), the worker pod's HOSTNAME "<lws>-<group>-<index>".
LWS = {"LWS_LEADER_ADDRESS": "vllm-1.vllm.default", "LWS_GROUP_SIZE": "4", "LWS_WORKER_INDEX": "2",
       "HOSTNAME": "vllm-1-2", "KUBERNETES_SERVICE_HOST": "10.96.0.1", "KUBERNETES_SERVICE_PORT": "443"}
# On TPU, LWS's webhook adds TPU_WORKER_HOSTNAMES (the group's pods, leader first), TPU_WORKER_ID, TPU_NAME.
LWS_TPU = dict(LWS, TPU_WORKER_HOSTNAMES="vllm-1.vllm,vllm-1-1.vllm,vllm-1-2.vllm,vllm-1-3.vllm", TPU_WORKER_ID="2",
               TPU_NAME="vllm-1")

# Volcano: worker 1 of the Job "pytorch-job" (tasks master x1, worker x2; plugins env, svc, pytorch), from
# volcano-sh/volcano pkg/controllers/job/plugins: svc/svc.go GenerateHosts (VC_<TASK>_HOSTS, comma-joined
# "<job>-<task>-<i>.<job>", and VC_<TASK>_NUM), env (VC_TASK_INDEX, legacy VK_TASK_INDEX),
# distributed-framework/pytorch/pytorch.go (MASTER_ADDR, MASTER_PORT 23456, WORLD_SIZE, RANK = index + 1).
VOLCANO = {"VC_MASTER_HOSTS": "pytorch-job-master-0.pytorch-job", "VC_MASTER_NUM": "1",
           "VC_WORKER_HOSTS": "pytorch-job-worker-0.pytorch-job,pytorch-job-worker-1.pytorch-job",
           "VC_WORKER_NUM": "2", "VC_TASK_INDEX": "1", "VK_TASK_INDEX": "1", "HOSTNAME": "pytorch-job-worker-1",
           "MASTER_ADDR": "pytorch-job-master-0.pytorch-job", "MASTER_PORT": "23456", "WORLD_SIZE": "3",
           "RANK": "2", "KUBERNETES_SERVICE_HOST": "10.96.0.1"}
VOLCANO_MASTER = "pytorch-job-master-0.pytorch-job"
VOLCANO_SVC = {k: v for k, v in VOLCANO.items() if k not in ("MASTER_ADDR", "MASTER_PORT", "WORLD_SIZE", "RANK")}

PLATFORMS = [("vertex", VERTEX), ("skypilot", SKYPILOT), ("lws", LWS), ("volcano", VOLCANO)]


def torchrun_exports(addr, port, world, rank):
    """--format torchrun of a process alone on its host."""
    return (f"export MASTER_ADDR={addr}\nexport MASTER_PORT={port}\nexport WORLD_SIZE={world}\nexport RANK={rank}\n"
            f"export LOCAL_RANK=0\nexport LOCAL_WORLD_SIZE=1\nexport GROUP_RANK={rank}\n"
            f"export GROUP_WORLD_SIZE={world}\n")


def test_vertex_every_format():
    doc = {"cluster": VERTEX_CLUSTER, "task": {"type": "workerpool1", "index": 1}, "rpc_layer": "",
           "environment": "cloud"}
    assert json.loads(ok(["vertex"], env=VERTEX)) == doc
    assert json.loads(ok([], env=VERTEX)) == doc
    assert json.loads(ok(["vertex", "--format", "spec"], env=VERTEX)) == VERTEX_CLUSTER
    # no chief: pools 0 and 1 in name order (pool 2, parameter servers or Reduction Server, takes no rank)
    assert launch(["vertex"], env=VERTEX) == launch_doc(3, 2, 0, 1, 2, 3, VERTEX_HEAD, 2222)
    assert ok(["--format", "torchrun"], env=VERTEX) == torchrun_exports(VERTEX_HEAD, 2222, 3, 2)
    assert ok(["--format", "torchrun-node"], env=VERTEX) == (
        f"export PET_NNODES=3\nexport PET_NODE_RANK=2\nexport PET_MASTER_ADDR={VERTEX_HEAD}\n"
        "export PET_MASTER_PORT=2222\n")
    assert ok(["--format", "jax"], env=VERTEX) == (
        f"export JAX_COORDINATOR_ADDRESS={VERTEX_HEAD}:2222\nexport JAX_NUM_PROCESSES=3\nexport JAX_PROCESS_ID=2\n")
    assert ok(["vertex", "--format", "hostfile"], env=VERTEX) == "".join(
        f"{a.rsplit(':', 1)[0]} slots=1\n" for pool in sorted(VERTEX_CLUSTER) for a in VERTEX_CLUSTER[pool])
    assert ok(["vertex", "--format", "machinefile"], env=VERTEX) == "".join(
        f"{a.rsplit(':', 1)[0]}:1\n" for pool in sorted(VERTEX_CLUSTER) for a in VERTEX_CLUSTER[pool])
    assert ok(["--format", "master"], env=VERTEX) == "cmle-training-workerpool1-1d969d3ba6-1:2222\n"
    assert ok(["vertex", "--format", "master", "--rpc-layer", "grpc"], env=VERTEX) == \
        "grpc://cmle-training-workerpool1-1d969d3ba6-1:2222\n"
    # --cluster-spec instead of the variable, and the task options
    spec = json.dumps(dict(VERTEX_DOC, task={"type": "workerpool0", "index": 0}))
    assert launch(["vertex", "--cluster-spec", spec], env=VERTEX) == launch_doc(3, 0, 0, 1, 0, 3, VERTEX_HEAD, 2222)
    assert launch(["vertex", "--cluster-spec", spec, "--task-type", "workerpool1", "--task-id", "0"]) == \
        launch_doc(3, 1, 0, 1, 1, 3, VERTEX_HEAD, 2222)
    expect_fail(["vertex", "--cluster-spec", spec, "--task-type", "workerpool2", "--task-id", "0", "--format",
                 "launch"], 3, ["workerpool2", "take no rank"])


def test_skypilot_every_format():
    spec = {"worker": ["10.128.0.21:8470", "10.128.0.22:8470", "10.128.0.23:8470"]}
    doc = {"cluster": spec, "task": {"type": "worker", "index": 2}, "rpc_layer": "", "environment": ""}
    assert json.loads(ok(["skypilot"], env=SKYPILOT)) == doc
    assert json.loads(ok([], env=SKYPILOT)) == doc
    assert launch([], env=SKYPILOT) == launch_doc(3, 2, 0, 1, 2, 3, "10.128.0.21", 8470)
    assert ok(["--format", "torchrun"], env=SKYPILOT) == torchrun_exports("10.128.0.21", 8470, 3, 2)
    assert ok(["--format", "jax"], env=SKYPILOT) == (
        "export JAX_COORDINATOR_ADDRESS=10.128.0.21:8470\nexport JAX_NUM_PROCESSES=3\nexport JAX_PROCESS_ID=2\n")
    assert ok(["skypilot", "--format", "hostfile"], env=SKYPILOT) == \
        "10.128.0.21 slots=1\n10.128.0.22 slots=1\n10.128.0.23 slots=1\n"
    assert ok(["--format", "machinefile"], env=SKYPILOT) == "10.128.0.21:1\n10.128.0.22:1\n10.128.0.23:1\n"
    assert ok(["--format", "master"], env=SKYPILOT) == "10.128.0.23:8470\n"
    # --port (auto's too) and --job-name
    assert launch(["skypilot", "--port", "29500"], env=SKYPILOT) == \
        launch_doc(3, 2, 0, 1, 2, 3, "10.128.0.21", 29500)
    assert launch(["--port", "29500"], env=SKYPILOT)["master_port"] == 29500
    assert json.loads(ok(["skypilot", "--job-name", "trainer", "--port", "8008", "--format", "spec"],
                         env=SKYPILOT)) == {"trainer": ["10.128.0.21:8008", "10.128.0.22:8008", "10.128.0.23:8008"]}
    # the list as a shell leaves it: a trailing newline, CRLF; IPv6
    assert json.loads(ok(["--format", "spec"], env=dict(SKYPILOT, SKYPILOT_NODE_IPS=SKYPILOT["SKYPILOT_NODE_IPS"] +
                                                          "\n"))) == spec
    assert json.loads(ok(["--format", "spec"], env=dict(SKYPILOT, SKYPILOT_NODE_IPS="10.128.0.21\r\n10.128.0.22\r\n"
                                                          "10.128.0.23\r\n"))) == spec
    v6 = dict(SKYPILOT, SKYPILOT_NODE_IPS="fd00::21\nfd00::22\nfd00::23")
    assert launch([], env=v6) == launch_doc(3, 2, 0, 1, 2, 3, "fd00::21", 8470)
    assert exports(ok(["--format", "jax"], env=v6))["JAX_COORDINATOR_ADDRESS"] == "[fd00::21]:8470"
    assert ok(["--format", "hostfile"], env=v6) == "fd00::21 slots=1\nfd00::22 slots=1\nfd00::23 slots=1\n"


def test_lws_every_format():
    spec = {"worker": ["vllm-1.vllm.default:8470", "vllm-1-1.vllm.default:8470", "vllm-1-2.vllm.default:8470",
                       "vllm-1-3.vllm.default:8470"]}
    doc = {"cluster": spec, "task": {"type": "worker", "index": 2}, "rpc_layer": "", "environment": ""}
    assert json.loads(ok(["lws"], env=LWS)) == doc
    assert json.loads(ok([], env=LWS)) == doc
    assert launch([], env=LWS) == launch_doc(4, 2, 0, 1, 2, 4, "vllm-1.vllm.default", 8470)
    assert ok(["lws", "--format", "torchrun"], env=LWS) == torchrun_exports("vllm-1.vllm.default", 8470, 4, 2)
    assert ok(["--format", "hostfile"], env=LWS) == "".join(f"{a[:-5]} slots=1\n" for a in spec["worker"])
    assert ok(["--format", "master"], env=LWS) == "vllm-1-2.vllm.default:8470\n"
    # the leader's pod
    assert launch([], env=dict(LWS, LWS_WORKER_INDEX="0", HOSTNAME="vllm-1")) == \
        launch_doc(4, 0, 0, 1, 0, 4, "vllm-1.vllm.default", 8470)
    # --port, --job-name, --hostname (checked instead of $HOSTNAME)
    assert json.loads(ok(["lws", "--port", "29500", "--job-name", "vllm", "--format", "spec"], env=LWS)) == \
        {"vllm": [a.replace(":8470", ":29500") for a in spec["worker"]]}
    assert launch(["--port", "29500"], env=LWS)["master_port"] == 29500
    assert launch(["lws", "--hostname", "vllm-1-2"], env=dict(LWS, HOSTNAME="elsewhere"))["rank"] == 2


def test_volcano_every_format():
    spec = {"master": [VOLCANO_MASTER + ":8470"],
            "worker": ["pytorch-job-worker-0.pytorch-job:8470", "pytorch-job-worker-1.pytorch-job:8470"]}
    doc = {"cluster": spec, "task": {"type": "worker", "index": 1}, "rpc_layer": "", "environment": ""}
    assert json.loads(ok(["volcano"], env=VOLCANO)) == doc
    assert json.loads(ok([], env=VOLCANO)) == doc
    # the ranks the pytorch plugin gives (RANK=2 of WORLD_SIZE=3): master 0, then the workers; its
    # MASTER_PORT is kept
    assert launch([], env=VOLCANO) == launch_doc(3, 2, 0, 1, 2, 3, VOLCANO_MASTER, 23456)
    assert ok(["--format", "torchrun"], env=VOLCANO) == torchrun_exports(VOLCANO_MASTER, 23456, 3, 2)
    no_plugin = {k: v for k, v in VOLCANO.items() if k not in ("MASTER_ADDR", "MASTER_PORT", "WORLD_SIZE", "RANK")}
    assert launch([], env=no_plugin) == launch_doc(3, 2, 0, 1, 2, 3, VOLCANO_MASTER, 8470)
    assert ok(["volcano", "--format", "hostfile"], env=VOLCANO) == (
        "pytorch-job-master-0.pytorch-job slots=1\npytorch-job-worker-0.pytorch-job slots=1\n"
        "pytorch-job-worker-1.pytorch-job slots=1\n")
    assert ok(["--format", "master"], env=VOLCANO) == "pytorch-job-worker-1.pytorch-job:8470\n"
    # --port 23456 (the pytorch plugin's) gives exactly the plugin's MASTER_ADDR and MASTER_PORT
    assert exports(ok(["volcano", "--port", "23456", "--format", "torchrun"], env=VOLCANO)) == dict(
        {k: VOLCANO[k] for k in ("MASTER_ADDR", "MASTER_PORT", "WORLD_SIZE", "RANK")}, LOCAL_RANK="0",
        LOCAL_WORLD_SIZE="1", GROUP_RANK="2", GROUP_WORLD_SIZE="3")
    assert launch(["--port", "23456"], env=VOLCANO)["master_port"] == 23456
    # --hostname instead of $HOSTNAME: the master's pod (VC_TASK_INDEX 0)
    master = dict(VOLCANO, VC_TASK_INDEX="0", VK_TASK_INDEX="0", RANK="0")
    assert launch(["volcano", "--hostname", "pytorch-job-master-0"], env=master) == \
        launch_doc(3, 0, 0, 1, 0, 3, VOLCANO_MASTER, 23456)
    # the legacy VK_TASK_INDEX alone
    legacy = {k: v for k, v in VOLCANO.items() if k != "VC_TASK_INDEX"}
    assert launch([], env=legacy) == launch_doc(3, 2, 0, 1, 2, 3, VOLCANO_MASTER, 23456)
    # the plugin's RANK for another pod is refused, naming it
    expect_fail(["--format", "torchrun"], 3, ['RANK="1"', "volcano backend's answer is 2"],
                env=dict(VOLCANO, RANK="1"))


def test_platform_bad_input_exits_3_naming_the_variable():
    no_task = json.dumps(dict(VERTEX_DOC, task={"type": "workerpool3", "index": 0}))
    cases = [
        # vertex
        (["vertex"], {}, ["vertex: CLUSTER_SPEC", "not set"]),
        (["vertex"], {"CLUSTER_SPEC": "  "}, ["vertex: CLUSTER_SPEC", "empty"]),
        (["vertex"], {"CLUSTER_SPEC": '{"cluster": {}}'}, ["CLUSTER_SPEC", "names no worker pool"]),
        ([], {"CLUSTER_SPEC": json.dumps({"cluster": {"workerpool0": {"0": "h:2222"}}})},
         ['CLUSTER_SPEC: "cluster" member "workerpool0" must be a list']),
        ([], {"CLUSTER_SPEC": no_task}, ['CLUSTER_SPEC: "task.type" "workerpool3" is not a job']),
        (["vertex"], {"CLUSTER_SPEC": json.dumps(dict(VERTEX_DOC, task={"type": "workerpool1", "index": 2}))},
         ['CLUSTER_SPEC: "task.index" 2 is not a task of job "workerpool1"']),
        ([], {"CLUSTER_SPEC": '{"cluster": '}, ["CLUSTER_SPEC: invalid JSON"]),
        # skypilot
        (["skypilot"], {}, ["skypilot: SKYPILOT_NODE_IPS is not set"]),
        ([], dict(SKYPILOT, SKYPILOT_NODE_IPS="10.128.0.21\n\n10.128.0.23"), ["SKYPILOT_NODE_IPS", "host 1 is empty"]),
        (["skypilot"], dict(SKYPILOT, SKYPILOT_NODE_IPS="\n \n"), ["SKYPILOT_NODE_IPS is empty"]),
        ([], dict(SKYPILOT, SKYPILOT_NODE_IPS="10.128.0.21\n10.128.0.21\n10.128.0.23"),
         ['SKYPILOT_NODE_IPS names "10.128.0.21" twice']),
        ([], dict(SKYPILOT, SKYPILOT_NODE_IPS="10.128.0.21\nbad host\n10.128.0.23"),
         ['SKYPILOT_NODE_IPS: "bad host" is not a host name or address']),
        ([], dict(SKYPILOT, SKYPILOT_NODE_RANK="3"), ['SKYPILOT_NODE_RANK="3"', "0 to 2"]),
        ([], {k: v for k, v in SKYPILOT.items() if k != "SKYPILOT_NODE_RANK"}, ["SKYPILOT_NODE_RANK is not"]),
        ([], dict(SKYPILOT, SKYPILOT_NUM_NODES="4"), ["SKYPILOT_NUM_NODES=4", "SKYPILOT_NODE_IPS names 3 nodes"]),
        ([], dict(SKYPILOT, SKYPILOT_NUM_GPUS_PER_NODE="eight"), ['SKYPILOT_NUM_GPUS_PER_NODE="eight"']),
        # lws
        (["lws"], {}, ["lws: LWS_LEADER_ADDRESS is not set"]),
        ([], dict(LWS, LWS_LEADER_ADDRESS="vllm_1.vllm.default"),
         ['LWS_LEADER_ADDRESS="vllm_1.vllm.default" is not a DNS name']),
        ([], dict(LWS, LWS_GROUP_SIZE="0"), ['LWS_GROUP_SIZE="0"']),
        ([], dict(LWS, LWS_WORKER_INDEX="4"), ['LWS_WORKER_INDEX="4"', "0 to 3"]),
        ([], dict(LWS, HOSTNAME="vllm-1-3"), ['LWS_WORKER_INDEX=2 is "vllm-1-2"', '"vllm-1-3"']),
        ([], {"LWS_WORKER_INDEX": "1"}, ['LWS_WORKER_INDEX="1" is set, LWS_LEADER_ADDRESS is not']),
        # volcano
        (["volcano"], {}, ["volcano: no VC_<TASK>_HOSTS variable"]),
        ([], {"VC_TASK_INDEX": "0"}, ["volcano: no VC_<TASK>_HOSTS variable"]),
        ([], dict(VOLCANO, VC_WORKER_HOSTS=""), ["VC_WORKER_HOSTS is empty"]),
        ([], dict(VOLCANO, VC_WORKER_HOSTS="pytorch-job-worker-0.pytorch-job,pytorch-job-worker-1.pytorch-job,"),
         ["VC_WORKER_HOSTS ends with a comma"]),
        ([], dict(VOLCANO, VC_WORKER_HOSTS="pytorch-job-worker-1.pytorch-job,pytorch-job-worker-1.pytorch-job"),
         ['VC_<TASK>_HOSTS names "pytorch-job-worker-1.pytorch-job" twice']),
        ([], dict(VOLCANO, VC_WORKER_NUM="3"), ["VC_WORKER_NUM=3 but VC_WORKER_HOSTS names 2 hosts"]),
        ([], dict(VOLCANO, HOSTNAME="pytorch-job-worker-7"), ['"pytorch-job-worker-7" is in no VC_<TASK>_HOSTS']),
        ([], dict(VOLCANO, VC_TASK_INDEX="0", VK_TASK_INDEX="0"),
         ["VC_TASK_INDEX=0, but this pod's host name is task 1 of worker"]),
        ([], dict(VOLCANO, VK_TASK_INDEX="0"), ["VK_TASK_INDEX=0 but VC_TASK_INDEX gives 1"]),
        ([], dict({k: v for k, v in VOLCANO.items() if k != "VC_TASK_INDEX"}, VK_TASK_INDEX="0"),
         ["VK_TASK_INDEX=0", "task 1 of worker"]),
    ]
    for i, (args, env, words) in enumerate(cases):  # tfconfig, then launch and torchrun by turns
        fmt = ["--format", ("launch", "torchrun", "hostfile")[i % 3]] if i % 2 else []
        expect_fail(args + fmt, 3, words, env=env)
    # the options: --port range (usage of the value), bad job names
    expect_fail(["skypilot", "--port", "0"], 2, ["--port 0"], env=SKYPILOT)
    expect_fail(["lws", "--port", "65536"], 2, ["--port 65536"], env=LWS)
    expect_fail(["volcano", "--port", "x"], 2, ["--port x"], env=VOLCANO)
    expect_fail(["lws", "--job-name", ""], 2, ["--job-name needs a value"], env=LWS)
    expect_fail(["vertex", "--port", "1"], 2, ["--port does not apply"], env=VERTEX)
    expect_fail(["skypilot", "--hostname", "h"], 2, ["--hostname does not apply"], env=SKYPILOT)
    expect_fail(["vertex", "--cluster-spec"], 2, ["--cluster-spec needs a value"])


def test_vertex_cluster_spec_option_errors_name_the_option():
    # the library says options.cluster_spec; on the command line the option is --cluster-spec (as --main-host)
    # (a value given on the command line: exit 2)
    expect_fail(["vertex", "--cluster-spec", '{"cluster": {}}'], 2, ["--cluster-spec", "names no worker pool"])
    expect_fail(["vertex", "--cluster-spec", '{"cluster": {"workerpool0": ["a:1"]}, "task": {"type": '
                 '"workerpool0", "index": 3}}'], 2, ["--cluster-spec", '"task.index" 3'])


def test_auto_platform_order_passed_over():
    # Vertex sets TF_CONFIG too: tfconfig wins, with TF's ranks (chief, ps, then worker)
    doc, line = auto_verbose(VERTEX, tf_config=VERTEX_TF_CONFIG)
    assert doc == launch_doc(4, 3, 0, 1, 3, 4, VERTEX_HEAD, 2222), doc
    assert line.endswith("auto: using the tfconfig backend: TF_CONFIG; passed over vertex (CLUSTER_SPEC)"), line
    # the pytorch plugin's MASTER_ADDR, WORLD_SIZE and RANK: volcano wins, and agrees with them
    doc, line = auto_verbose(VOLCANO)
    assert (doc["rank"], doc["world_size"], doc["master_addr"]) == (2, 3, VOLCANO_MASTER), doc
    assert line.endswith("auto: using the volcano backend: VC_TASK_INDEX; passed over torch (RANK is set)"), line
    # LWS on TPU: lws wins over the TPU variables its webhook sets
    doc, line = auto_verbose(LWS_TPU)
    assert doc == launch_doc(4, 2, 0, 1, 2, 4, "vllm-1.vllm.default", 8470), doc
    assert line.endswith("auto: using the lws backend: LWS_LEADER_ADDRESS; passed over tpu (TPU_WORKER_HOSTNAMES)")
    # neighbours in the order: vertex > sagemaker > skypilot > volcano > lws > awsbatch
    sm = {"SM_HOSTS": '["algo-1", "algo-2"]', "SM_CURRENT_HOST": "algo-2"}
    _, line = auto_verbose(dict(sm, **VERTEX))
    assert line.endswith("auto: using the vertex backend: CLUSTER_SPEC; passed over sagemaker (SM_HOSTS)"), line
    _, line = auto_verbose(dict(sm, **SKYPILOT))
    assert line.endswith("auto: using the sagemaker backend: SM_HOSTS; passed over skypilot (SKYPILOT_NODE_IPS)"), line
    doc, line = auto_verbose(dict(VOLCANO, **SKYPILOT))
    assert doc["master_addr"] == VOLCANO_MASTER, doc  # the pytorch plugin's MASTER_ADDR, kept
    assert launch([], env=dict(VOLCANO_SVC, **SKYPILOT))["master_addr"] == "10.128.0.21"
    assert "auto: using the skypilot backend: SKYPILOT_NODE_IPS; passed over volcano (VC_TASK_INDEX), torch (RANK " \
           "is set)" in line, line
    _, line = auto_verbose(dict(LWS, **VOLCANO))
    assert line.endswith("auto: using the volcano backend: VC_TASK_INDEX; passed over lws (LWS_LEADER_ADDRESS), "
                         "torch (RANK is set)"), line
    _, line = auto_verbose(dict(AWSBATCH_CHILD, **LWS))
    assert line.endswith("auto: using the lws backend: LWS_LEADER_ADDRESS; passed over awsbatch "
                         "(AWS_BATCH_JOB_NODE_INDEX)"), line
    # torchrun inside SkyPilot or Vertex: the innermost launcher
    _, line = auto_verbose(dict(SKYPILOT, **TORCHRUN_WORKER))
    assert "auto: using the torch backend: TORCHELASTIC_RUN_ID; passed over skypilot (SKYPILOT_NODE_IPS)" in line
    _, line = auto_verbose(dict(VERTEX, **TORCHRUN_WORKER))
    assert "auto: using the torch backend: TORCHELASTIC_RUN_ID; passed over vertex (CLUSTER_SPEC)" in line, line
    # a script's torch names inside SkyPilot do not win
    _, line = auto_verbose(dict(SKYPILOT, MASTER_ADDR="10.128.0.21", MASTER_PORT="8008", RANK="2", WORLD_SIZE="3"))
    assert line.endswith("auto: using the skypilot backend: SKYPILOT_NODE_IPS; passed over torch (RANK is set)"), line


def test_platforms_forced_by_name():
    # every platform's variables at once (and TF_CONFIG): the name decides; HOSTNAME is the named one's pod
    # (without the pytorch plugin's sizes, which name one of them: below)
    every = dict(VERTEX, **SKYPILOT)
    every.update({k: v for k, v in VOLCANO.items() if k not in ("MASTER_ADDR", "MASTER_PORT", "WORLD_SIZE", "RANK")})
    every.update(LWS)
    for name, hostname, world in [("vertex", None, 3), ("skypilot", None, 3), ("volcano", VOLCANO["HOSTNAME"], 3),
                                  ("lws", LWS["HOSTNAME"], 4)]:
        env = dict(every, HOSTNAME=hostname or "any", CLUSTER_RESOLVER_BACKEND=name)
        code, out, err = run(["--verbose", "--format", "launch"], env=env, tf_config=VERTEX_TF_CONFIG)
        assert code == 0, (name, err)
        assert f"auto: using the {name} backend: forced by CLUSTER_RESOLVER_BACKEND" in err, err
        assert (json.loads(out)["rank"], json.loads(out)["world_size"]) == (2, world), (name, out)
        assert launch([name], env=env, tf_config=VERTEX_TF_CONFIG)["world_size"] == world
    expect_fail([], 3, ["volcano: no VC_<TASK>_HOSTS variable"], env={"CLUSTER_RESOLVER_BACKEND": "volcano"})
    expect_fail(["--format", "launch"], 3, ['vertex: WORLD_SIZE="4" is set', "answer is 3"],
                env=dict(every, CLUSTER_RESOLVER_BACKEND="vertex", WORLD_SIZE="4"))
    expect_fail([], 3, ["lws: LWS_LEADER_ADDRESS is not set"], env={"CLUSTER_RESOLVER_BACKEND": "lws"})


def test_round_trip_platforms():
    # what each platform exports for torchrun (and JAX, and one torchrun per node), read back by torch (jax)
    for name, env in PLATFORMS:
        want = launch([], env=env)
        assert through([], "torchrun", "torch", env=env) == want, name
        assert through([name], "torchrun", "torch", env=env) == want, name
        assert through([], "jax", "jax", env=env) == dict(want, **LAUNCH_NULLS), name
        node = launch_doc(want["num_nodes"], want["node_rank"], 0, 1, want["node_rank"], want["num_nodes"],
                          want["master_addr"], want["master_port"])
        assert through([], "torchrun-node", "torch", env=env, unset=TORCH_NAMES) == node, name
    # the exec'd command does not run when the source fails
    code, out, err = run(["--format", "torchrun", "--exec", "--", "sh", "-c", "echo ran"],
                         env=dict(SKYPILOT, SKYPILOT_NODE_RANK="9"))
    assert (code, out) == (3, "") and 'SKYPILOT_NODE_RANK="9"' in err, (code, out, err)


# ---- the command-line contract: one option table, one meaning per option ----------------------

def listed_options(backend):
    """{option: (value name, values)} that `--list-options BACKEND` prints (the parser's table)."""
    code, out, err = run(["--list-options", backend])
    assert code == 0 and err == "", (code, err)
    table = {}
    for line in out.splitlines():
        name, meta, values = line.split("\t")
        table[name] = (meta, values)
    return table


def a_value(name, meta, values):
    """A value the option accepts (without a cluster to check it against)."""
    if values != "-":
        return values.split("|")[-1]
    return {"N": "7", "SECONDS": "3", "JOB=SELECTOR": "worker=app=x", "JOB=N,...": "worker=1",
            "JSON": '{"w": ["a:1"]}'}.get(meta, "x")


def test_every_option_takes_its_value_after_an_equals_sign():
    backends = ok(["--list-backends"]).split()
    assert "kubernetes" in backends and "k8s" in backends and len(backends) == 22, backends
    probed = 0
    for backend in backends:
        for name, (meta, values) in listed_options(backend).items():
            if name in ("--exec", "--help", "--version"):
                continue
            if meta == "-":  # a flag: no value, and "--flag=x" is refused
                assert run([backend, name, "--help"])[0] == 0, (backend, name)
                expect_fail([backend, name + "=1"], 2, [name, "takes no value"])
                continue
            v = a_value(name, meta, values)
            spaced, _, e1 = run([backend, name, v, "--help"])
            joined, _, e2 = run([backend, f"{name}={v}", "--help"])
            assert spaced == joined == 0, (backend, name, v, e1, e2)
            probed += 1
    assert probed > 150, probed
    # the format too, and an unknown one is the command line's fault
    assert ok(["local", "--format=launch"]) == ok(["local", "--format", "launch"])
    expect_fail(["--format=bogus"], 2, ['unknown format "bogus"'])
    expect_fail(["--bogus=1"], 2, ["unknown option --bogus"])


def test_bad_values_are_the_command_line():
    cases = [(["--task-id", "-1", "--task-type", "w"], "--task-id -1"), (["--retries", "11"], "--retries 11"),
             (["kubernetes", "--wait", "x"], "--wait x"), (["kubernetes", "--members", "all"], "--members all"),
             (["kubernetes", "--address", "ip"], "--address ip"), (["tpu", "--api-version", "v3"], "--api-version v3"),
             (["slurm", "--port="], "--port  is not"), (["slurm", "--jobs", "worker"], "--jobs worker"),
             (["slurm", "--gpus-per-node", "-1"], "--gpus-per-node -1"), (["local", "--host", ""], "--host needs"),
             (["kubernetes", "--job", "=sel"], "--job =sel"), (["--timeout-ms", "0"], "--timeout-ms 0"),
             (["simple", "--spec", "{"], "invalid JSON"), (["simple", "--spec={}"], None)]
    for args, words in cases:
        code, out, err = run(args)
        if words is None:  # an empty cluster is a cluster
            assert code == 0, (args, err)
            continue
        assert code == 2 and words in err, (args, code, err)
    # options that exclude each other, or need another
    for args, words in [(["kubernetes", "--kubeconfig", "k", "--server", "http://a"], "--kubeconfig and --server"),
                        (["kubernetes", "--namespace", "n", "--all-namespaces"], "--namespace and --all-namespaces"),
                        (["gce", "--instance-group", "g", "--zone", "z", "--region", "r"], "--zone and --region"),
                        (["tpu", "--coordinator-name", "c"], "--coordinator-name needs --coordinator-address"),
                        (["gce"], "gce needs --instance-group")]:
        expect_fail(args, 2, [words])


def test_backend_names_and_their_messages():
    # "kubernetes" is the name in messages; k8s is another name for it
    home = tempfile.mkdtemp()
    for name in ("kubernetes", "k8s"):
        err = expect_fail([name], 3, ["kubernetes: no kubeconfig", "pass --kubeconfig or --server"],
                          env={"HOME": home})
        assert "options." not in err, err
    expect_fail(["kubernetes", "--port", "0"], 2, ["--port 0"])
    expect_fail(["slurm", "--server", "http://a"], 2, ["--server does not apply to the slurm backend",
                                                        "read by kubernetes"])
    expect_fail(["kube"], 2, ['unknown backend "kube"'])


def test_auto_accepts_what_the_picked_backend_reads():
    hostfile = os.path.join(tempfile.mkdtemp(), "hosts")
    with open(hostfile, "w") as f:
        f.write("a slots=2\nb slots=2\n")
    mpi = {"OMPI_COMM_WORLD_RANK": "3", "OMPI_COMM_WORLD_SIZE": "4", "OMPI_COMM_WORLD_LOCAL_RANK": "1",
           "OMPI_COMM_WORLD_LOCAL_SIZE": "2"}
    # auto picks mpi and reads --hostfile, as `mpi --hostfile` does
    assert ok(["--hostfile", hostfile, "--format", "spec"], env=mpi) == \
        ok(["mpi", "--hostfile", hostfile, "--format", "spec"], env=mpi)
    assert json.loads(ok(["--hostfile=" + hostfile, "--port", "9000", "--format", "spec"], env=mpi)) == \
        {"worker": ["a:9000", "a:9001", "b:9000", "b:9001"]}
    # --port under srun: auto and slurm read it alike (the first port)
    assert ok(["--port", "9000"], env=SLURM_2X2) == ok(["slurm", "--port", "9000"], env=SLURM_2X2)
    assert json.loads(ok(["slurm", "--port", "9000", "--format", "spec"], env=SLURM_2X2)) == \
        {"worker": ["node1:9000", "node1:9001", "node2:9000", "node2:9001"]}
    # one that the picked backend does not read: exit 2 naming both
    expect_fail(["--hostfile", hostfile], 2, ["--hostfile does not apply to the slurm backend, which auto picked",
                                              "read by mpi, flux"], env=SLURM_2X2)
    expect_fail(["--port", "9000"], 2, ["--port does not apply to the tfconfig backend"],
                tf_config={"cluster": CLUSTER})
    expect_fail(["--members", "job"], 2, ["--members does not apply to the local backend"])
    expect_fail(["--timeout-ms", "100"], 2, ["--timeout-ms does not apply to the slurm backend"], env=SLURM_2X2)
    # and what no backend auto can pick reads: at once
    expect_fail(["--instance-group", "g"], 2, ["--instance-group does not apply to the auto backend", "read by gce"])
    expect_fail(["--spec", "{}"], 2, ["--spec does not apply to the auto backend"])


def test_coordinator_format():
    assert ok(["--format", "coordinator"], env=SLURM_2X2) == "node1:8888\n"
    assert ok(["--format", "coordinator"], env=dict(SLURM_2X2, MASTER_PORT="29500")) == "node1:29500\n"
    assert ok(["local", "--host", "fd00::1", "--format", "coordinator"]) == "[fd00::1]:8470\n"
    assert ok(["--format", "coordinator"], env=TORCHRUN_WORKER) == "node1:29500\n"
    assert ok(["--format", "coordinator"], tf_config={"cluster": CLUSTER}) == "c0:2222\n"  # no own task: rank 0
    expect_fail(["--format", "coordinator"], 3, ['"w0"', "no port"],
                tf_config={"cluster": {"worker": ["w0"]}, "task": {"type": "worker", "index": 0}})
    expect_fail(["--format", "jax"], 3, ['"w0"', "no port"],
                tf_config={"cluster": {"worker": ["w0", "w1"]}, "task": {"type": "worker", "index": 0}})
    expect_fail(["--format", "coordinator"], 3, ["the cluster has no task"], tf_config={"cluster": {}})


def test_master_is_tensorflows_and_says_so():
    # one task: TensorFlow's local session, "" (an empty line); --verbose says what it is
    code, out, err = run(["--verbose", "--format", "master"], tf_config={"cluster": {"worker": ["only:1"]},
                                                                         "task": {"type": "worker", "index": 0}})
    assert (code, out) == (0, "\n"), (code, out, err)
    assert "master is \"\": TensorFlow's master() of a cluster of one task" in err, err
    assert "--format coordinator" in err, err
    # no task: TensorFlow's master() is "" too, and the note says why
    code, out, err = run(["--verbose", "--format", "master"], tf_config={"cluster": {"worker": ["only:1"]}})
    assert (code, out) == (0, "\n"), (code, out, err)
    assert "master is \"\": there is no own task" in err, err
    code, out, err = run(["--verbose", "--format", "master"], tf_config={"cluster": CLUSTER,
                                                                         "task": {"type": "ps", "index": 0}})
    assert (code, out) == (0, "p0:2222\n") and "master is" not in err, (code, out, err)


def test_torchrun_format_leaves_out_what_the_source_does_not_say():
    code, out, err = run(["--verbose", "--format", "torchrun"], env=JAX_ENV)
    assert code == 0 and set(exports(out)) == {"MASTER_ADDR", "MASTER_PORT", "WORLD_SIZE", "RANK"}, (out, err)
    assert "--format torchrun: the jax backend does not say LOCAL_RANK, LOCAL_WORLD_SIZE, GROUP_RANK, " \
           "GROUP_WORLD_SIZE: left out" in err, err


def test_man_page_options_are_the_option_table():
    script = os.path.join(os.path.dirname(os.path.abspath(__file__)), "man_options.py")
    page = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "docs", "cluster-resolve.1")
    p = subprocess.run([sys.executable, script, CLI, page], capture_output=True, text=True)
    assert p.returncode == 0, p.stdout + p.stderr
    # and every option of the table is in --help, with the backends that read it
    code, help_text, _ = run(["--help"])
    for name in listed_options("auto"):
        assert name in help_text, name
    assert "[kubernetes, gce, tpu]" in help_text.replace("\n                               ", " ")


if __name__ == "__main__":
    sys.exit(run_tests(globals()))
