#!/usr/bin/env python3
"""Runs the built cluster-resolve (and the custom-backend example) and checks what they print.

usage: test_cli.py BUILD_DIR      (the directory holding cluster-resolve and custom_backend)
"""
import json
import os
import shlex
import subprocess
import sys
import tempfile

BIN_DIR = sys.argv[1] if len(sys.argv) > 1 else "build"
CLI = os.path.join(BIN_DIR, "cluster-resolve")
CUSTOM = os.path.join(BIN_DIR, "custom_backend")

CLUSTER = {"chief": ["c0:2222"], "ps": ["p0:2222"], "worker": ["w0:2222", "w1:2222", "w2:2222"]}


def run(args, env=None, tf_config=None):
    """Runs the CLI with a clean environment (plus env); returns (code, stdout, stderr)."""
    e = {"PATH": os.environ.get("PATH", "/usr/bin:/bin")}
    for k in ("ASAN_OPTIONS", "UBSAN_OPTIONS", "LSAN_OPTIONS"):
        if k in os.environ:
            e[k] = os.environ[k]
    if tf_config is not None:
        e["TF_CONFIG"] = tf_config if isinstance(tf_config, str) else json.dumps(tf_config)
    e.update(env or {})
    p = subprocess.run([CLI] + args, env=e, capture_output=True, text=True, timeout=60)
    return p.returncode, p.stdout, p.stderr


def exports(text):
    """Parses `export NAME=value` lines the way a shell would."""
    out = {}
    for line in text.splitlines():
        words = shlex.split(line)
        assert words[0] == "export", line
        name, _, value = words[1].partition("=")
        out[name] = value
    return out


def ok(args, **kw):
    code, out, err = run(args, **kw)
    assert code == 0, f"exit {code}: {err}"
    assert err == "", err
    return out


# ---- the local fallback and auto-detection ------------------------------------------------

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
    assert code == 0 and "auto: using the tfconfig backend: TF_CONFIG is set" in err, err


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
                   "LOCAL_RANK": "0", "LOCAL_WORLD_SIZE": "1"}, env


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

def expect_fail(args, code, words, **kw):
    got, out, err = run(args, **kw)
    assert got == code, f"{args}: exit {got}, want {code}: {err}"
    assert out == "", out
    assert err.count("\n") == 1 and err.startswith("cluster-resolve: "), err
    for w in words:
        assert w in err, f"{w!r} not in {err!r}"


def test_usage_errors_exit_2():
    expect_fail(["bogus"], 2, ['unknown backend "bogus"'])
    expect_fail(["--format", "yaml"], 2, ['unknown format "yaml"'])
    expect_fail(["--no-such-option"], 2, ["unknown option --no-such-option"])
    expect_fail(["--task-id", "x", "--task-type", "w"], 2, ["--task-id x"])
    expect_fail(["--task-id", "1"], 2, ["--task-type"])
    expect_fail(["tfconfig", "--spec", "{}"], 2, ["--spec does not apply"])
    expect_fail(["--format"], 2, ["--format needs a value"])
    expect_fail(["--exec"], 2, ["--exec needs a command"])


def test_bad_tf_config_exits_3_naming_the_field():
    expect_fail([], 3, ['"task.index" must be an integer, not "x"'], tf_config='{"task": {"index": "x"}}')
    expect_fail([], 3, ["TF_CONFIG: invalid JSON at offset"], tf_config='{"cluster": ')
    expect_fail([], 3, ['"task.type" "evaluatr" is not a job'],
                tf_config={"cluster": CLUSTER, "task": {"type": "evaluatr", "index": 0}})
    expect_fail([], 3, ["nested deeper than the limit of 128"], tf_config="[" * 200 + "]" * 200)


def test_bad_spec_and_task_exit_3():
    expect_fail(["simple", "--spec", '{"w": 3}'], 3, ['job "w" must be a list or an object'])
    expect_fail(["simple"], 3, ["--spec JSON is required"])
    expect_fail(["simple", "--spec", '{"w": ["a:1"]}', "--task-type", "w", "--task-id", "5", "--format",
                 "torchrun"], 3, ["not in the cluster"])
    expect_fail(["--port", "70000"], 3, ["--port 70000"])


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
    env = dict(SLURM_CYCLIC, SLURM_DISTRIBUTION="block", SLURM_NODEID="0", SLURM_LOCALID="1", SLURM_PROCID="1",
               CUDA_VISIBLE_DEVICES="4,5,6,7,8,9,10,11")
    out = exports(ok(["slurm", "--jobs", "worker=6,ps=2", "--format", "torchrun"], env=env))
    assert out == {"MASTER_ADDR": "node1", "MASTER_PORT": "8888", "WORLD_SIZE": "8", "RANK": "1",
                   "LOCAL_RANK": "1", "LOCAL_WORLD_SIZE": "4", "CUDA_VISIBLE_DEVICES": "6,7"}, out
    doc = json.loads(ok(["slurm", "--jobs", "worker=6,ps=2", "--gpus-per-node", "0"], env=env))
    assert doc["task"] == {"type": "ps", "index": 1}, doc
    code, _, err = run(["slurm", "--jobs", "worker=3"], env=env)
    assert code == 3 and "3 tasks" in err and "8" in err, (code, err)


def test_slurm_exec_sets_cuda_for_the_child_only():
    env = dict(SLURM_CYCLIC, SLURM_DISTRIBUTION="block", SLURM_NODEID="0", SLURM_LOCALID="0", SLURM_PROCID="0",
               CUDA_VISIBLE_DEVICES="0,1,2,3")
    out = ok(["slurm", "--format", "jax", "--exec", "--", "sh", "-c",
              'echo "$JAX_COORDINATOR_ADDRESS $JAX_NUM_PROCESSES $JAX_PROCESS_ID $CUDA_VISIBLE_DEVICES"'], env=env)
    assert out == "node1:8888 8 0 0\n", out


def test_slurm_batch_script_is_one_task():
    env = {"SLURM_JOB_ID": "9", "SLURM_PROCID": "0", "SLURM_NTASKS": "3", "SLURM_JOB_NODELIST": "node[1-2]",
           "SLURMD_NODENAME": "node1"}
    assert json.loads(ok([], env=env))["cluster"] == {"worker": ["node1:8888"]}


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


def test_backend_switch_forces_and_turns_off():
    assert json.loads(ok([], env=dict(SLURM_CYCLIC, CLUSTER_RESOLVER_BACKEND="off")))["cluster"] == \
        {"worker": ["localhost:8470"]}
    code, _, err = run([], env={"CLUSTER_RESOLVER_BACKEND": "slurm"})
    assert code == 3 and "SLURM" in err, (code, err)


def main():
    tests = [(n, f) for n, f in sorted(globals().items()) if n.startswith("test_") and callable(f)]
    failed = 0
    for name, fn in tests:
        try:
            fn()
            print(f"ok   {name}")
        except Exception as e:  # report every failure, then fail the run
            failed += 1
            print(f"FAIL {name}: {type(e).__name__}: {e}")
    print(f"{len(tests) - failed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
