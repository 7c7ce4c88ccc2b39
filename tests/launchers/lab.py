"""What the launcher tests (tests/slurm/test_slurm.py, tests/mpi/test_mpi.py) share: running a
launcher with a clean environment and a time limit, collecting the rank reports
(tests/launchers/rank_report.py), checking a resolved cluster against what the launcher told
each rank, and a small runner that runs every scenario and prints a summary."""
import json
import os
import re
import shlex
import signal
import socket
import subprocess
import sys
import tempfile
import time
import traceback

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
REPORT = os.path.join(ROOT, "tests", "launchers", "rank_report.py")
PY = "/usr/bin/python3"   # Debian's python: python3-torch is importable there only

# Variables of an outer job or launcher that must not leak into the scenarios.
_DROP = ("SLURM_", "SLURMD_", "OMPI_", "PMIX_", "PMI_", "MV2_", "TF_CONFIG", "MASTER_ADDR",
         "MASTER_PORT", "WORLD_SIZE", "RANK", "LOCAL_RANK", "LOCAL_WORLD_SIZE", "JAX_",
         "SM_", "TPU_", "KUBERNETES_", "CUDA_VISIBLE_DEVICES", "MPI_LOCALRANKID",
         "MPI_LOCALNRANKS", "MPIR_CVAR_", "HYDI_", "HYDRA_")
# ... and a Grid Engine job's (SGE_ROOT, SGE_CELL and the ports stay: qsub needs them).
_DROP_NAMES = ("JOB_ID", "PE", "PE_HOSTFILE", "NSLOTS", "NHOSTS", "NQUEUES", "QUEUE")


def clean_env(**extra):
    env = {k: v for k, v in os.environ.items() if not k.startswith(_DROP) and k not in _DROP_NAMES}
    if "SLURM_CONF" in os.environ:
        env["SLURM_CONF"] = os.environ["SLURM_CONF"]
    env.update({k: str(v) for k, v in extra.items()})
    return env


def run(argv, env=None, timeout=60, cwd=ROOT):
    """Runs argv in its own process group; on timeout kills the group. Returns
    (rc, stdout, stderr)."""
    p = subprocess.Popen(argv, env=env if env is not None else clean_env(), cwd=cwd,
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                         start_new_session=True)
    try:
        out, err = p.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(p.pid, signal.SIGKILL)
        out, err = p.communicate()
        raise AssertionError(f"timed out after {timeout} s: {shlex.join(argv)}\n{out}\n{err}")
    return p.returncode, out, err


def report_cmd(out_dir, *commands):
    """The argv that runs rank_report.py with these commands (each an argv list); each rank
    writes its report into out_dir."""
    return [PY, REPORT, out_dir, json.dumps([list(c) for c in commands])]


def reports(out_dir, want=None):
    """The rank reports written into out_dir."""
    got = []
    for name in sorted(os.listdir(out_dir)):
        if name.startswith("rank-") and name.endswith(".json"):
            with open(os.path.join(out_dir, name)) as f:
                got.append(json.load(f))
    if want is not None:
        assert len(got) == want, f"{len(got)} ranks reported, want {want}"
    return got


def launch(prefix, *commands, env=None, timeout=60):
    """Runs `PREFIX rank_report.py DIR COMMANDS` (PREFIX: srun ..., mpirun ...); returns
    (rc, stdout, stderr, the reports)."""
    with tempfile.TemporaryDirectory(prefix="cres-ranks-") as d:
        os.chmod(d, 0o777)
        rc, out, err = run(list(prefix) + report_cmd(d, *commands), env=env, timeout=timeout)
        return rc, out, err, reports(d)


def torch_allreduce(argv, want, env, timeout=120):
    """Runs ARGV + [DIR] (a launcher line ending in torch_allreduce.py) and returns the
    reports its `want` ranks wrote into DIR, sorted by rank."""
    with tempfile.TemporaryDirectory(prefix="cres-torch-") as d:
        os.chmod(d, 0o777)
        rc, out, err = run(list(argv) + [d], env=env, timeout=timeout)
        assert rc == 0, f"exit {rc}:\n{out}{err}"
        got = []
        for name in sorted(os.listdir(d)):
            if name.startswith("torch-") and name.endswith(".json"):
                with open(os.path.join(d, name)) as f:
                    got.append(json.load(f))
    assert len(got) == want, f"{len(got)} torch ranks reported, want {want}:\n{out}{err}"
    return sorted(got, key=lambda g: g["rank"])


def sbatch(args, script, out, env=None, timeout=60):
    """Submits `sbatch ARGS -o OUT SCRIPT` and waits for the job by polling scontrol every
    0.1 s (`sbatch --wait` polls every 2, then 10 seconds). Returns (the job's exit code, its
    output)."""
    rc, so, se = run(["sbatch", "--parsable", "-o", out] + list(args) + [script], env=env)
    assert rc == 0, f"sbatch exited {rc}: {so}{se}"
    job = so.strip().split(";")[0]
    deadline = time.time() + timeout
    state = {}
    while time.time() < deadline:
        rc, so, se = run(["scontrol", "-o", "show", "job", job], env=env)
        state = dict(w.split("=", 1) for w in so.split() if "=" in w)
        if state.get("JobState") not in (None, "PENDING", "CONFIGURING", "RUNNING", "COMPLETING"):
            break
        time.sleep(0.1)
    else:
        run(["scancel", job], env=env)
        raise AssertionError(f"batch job {job} still {state.get('JobState')} after {timeout} s")
    text = open(out).read() if os.path.exists(out) else ""
    assert state.get("JobState") == "COMPLETED", (
        f"batch job {job}: {state.get('JobState')} {state.get('Reason')} ExitCode={state.get('ExitCode')}\n{text}")
    return text


def free_ports(count):
    """A base port P such that P..P+count-1 are free on 127.0.0.1 now."""
    for _ in range(100):
        s = socket.socket()
        s.bind(("127.0.0.1", 0))
        base = s.getsockname()[1]
        s.close()
        if base + count > 65535:
            continue
        ok = True
        for p in range(base, base + count):
            t = socket.socket()
            try:
                t.bind(("127.0.0.1", p))
            except OSError:
                ok = False
            finally:
                t.close()
        if ok:
            return base
    raise AssertionError("no free port range")


def exports(text):
    """`export NAME=value ...` lines parsed the way a shell would."""
    out = {}
    for line in text.splitlines():
        words = shlex.split(line)
        if not words:
            continue
        assert words[0] == "export", f"not an export line: {line!r}"
        for w in words[1:]:
            name, eq, value = w.partition("=")
            assert eq, f"not NAME=value: {w!r}"
            out[name] = value
    return out


def hostfile(text):
    """`host slots=N` lines as a list of (host, N)."""
    out = []
    for line in text.splitlines():
        if not line.strip():
            continue
        m = re.fullmatch(r"(\S+)\s+slots=(\d+)\s*", line)
        assert m, f"not a hostfile line: {line!r}"
        out.append((m.group(1), int(m.group(2))))
    return out


def split_address(addr):
    host, _, port = addr.rpartition(":")
    assert host and port.isdigit(), f"not host:port: {addr!r}"
    return host, int(port)


def expected_tasks(jobs, rank):
    """(job, index) of a global rank when the jobs (name -> count) split the ranks in rank
    order: "chief" first, then by name."""
    start = 0
    for name in sorted(jobs, key=lambda j: (j != "chief", j)):
        if rank < start + jobs[name]:
            return name, rank - start
        start += jobs[name]
    raise AssertionError(f"rank {rank} beyond the jobs {jobs}")


def check_cluster(reps, run_index, n, rank_of, host_of, port_of, jobs=None, rpc_layer=None):
    """Checks the tfconfig documents that run `run_index` printed on each rank:
    every rank exited 0 and printed the same cluster, the cluster has n tasks, each (job, index)
    is claimed by exactly one rank, the one `jobs` expects for its rank, and each rank's own
    address is (host_of(rank), port_of(rank)) as the launcher told it. Returns the cluster."""
    assert len(reps) == n, f"{len(reps)} ranks, want {n}"
    docs, ranks = [], []
    for rep in reps:
        r = rep["runs"][run_index]
        rank = rank_of(rep)
        assert r["rc"] == 0, f"rank {rank}: {shlex.join(r['argv'])} exited {r['rc']}: {r['err'].strip()}"
        try:
            docs.append(json.loads(r["out"]))
        except ValueError as e:
            raise AssertionError(f"rank {rank}: not JSON ({e}): {r['out']!r}")
        ranks.append(rank)
    assert sorted(ranks) == list(range(n)), f"ranks {sorted(ranks)}, want 0..{n - 1}"
    cluster = docs[0]["cluster"]
    for rank, doc in zip(ranks, docs):
        assert doc["cluster"] == cluster, (f"rank {rank} sees another cluster:\n  {doc['cluster']}\n"
                                          f"  rank {ranks[0]}: {cluster}")
        if rpc_layer is not None:
            assert doc.get("rpc_layer") == rpc_layer, f"rank {rank}: rpc_layer {doc.get('rpc_layer')!r}, want {rpc_layer!r}"
    total = sum(len(v) for v in cluster.values())
    assert total == n, f"the cluster has {total} tasks, want {n}: {cluster}"
    jobs = jobs or {"worker": n}
    assert {k: len(v) for k, v in cluster.items()} == jobs, f"jobs {cluster}, want sizes {jobs}"
    claimed = {}
    for rank, doc, rep in sorted(zip(ranks, docs, reps), key=lambda t: t[0]):
        task = doc.get("task")
        assert task, f"rank {rank}: no task in {doc}"
        key = (task["type"], task["index"])
        assert key not in claimed, f"ranks {claimed[key]} and {rank} both claim {key}"
        claimed[key] = rank
        want = expected_tasks(jobs, rank)
        assert key == want, f"rank {rank} claims {key}, want {want}"
        addr = cluster[task["type"]][task["index"]]
        host, port = split_address(addr)
        assert (host, port) == (host_of(rep), port_of(rep)), (
            f"rank {rank} ({key}) has address {addr}, but the launcher put it on "
            f"{host_of(rep)} and its port should be {port_of(rep)}")
    return cluster


def same_output(reps, i, j):
    """Runs i and j printed the same thing, with the same exit code, on every rank."""
    for rep in reps:
        a, b = rep["runs"][i], rep["runs"][j]
        assert (a["rc"], a["out"]) == (b["rc"], b["out"]), (
            f"{shlex.join(a['argv'])} and {shlex.join(b['argv'])} differ on a rank:\n"
            f"  {a['rc']} {a['out'].strip()} {a['err'].strip()}\n  {b['rc']} {b['out'].strip()} {b['err'].strip()}")


def fails(rep_run, code, *needles):
    """A run exited `code` with one line on stderr containing every needle (a regex)."""
    r = rep_run
    assert r["rc"] == code, f"{shlex.join(r['argv'])} exited {r['rc']}, want {code}: {r['out']}{r['err']}"
    err = r["err"].strip()
    assert err, "no message on stderr"
    for n in needles:
        assert re.search(n, err), f"the message does not match {n!r}: {err}"


# ---- the runner ---------------------------------------------------------------------------

def main(title, tests):
    """Runs every test (name, function); prints PASS/FAIL lines and a summary line; exits 1
    when any failed. `-k WORD` runs only the tests whose name contains WORD."""
    only = None
    if "-k" in sys.argv:
        only = sys.argv[sys.argv.index("-k") + 1]
    results = []
    t0 = time.time()
    for name, fn in tests:
        if only and only not in name:
            continue
        t = time.time()
        try:
            fn()
            results.append((name, True))
            print(f"PASS {name} ({time.time() - t:.1f} s)", flush=True)
        except Exception as e:  # noqa: BLE001 -- report every failure, then go on
            results.append((name, False))
            detail = str(e) if isinstance(e, AssertionError) else traceback.format_exc()
            print(f"FAIL {name} ({time.time() - t:.1f} s)\n     " + detail.replace("\n", "\n     "),
                  flush=True)
    passed = sum(ok for _, ok in results)
    print(f"{title}: {passed}/{len(results)} passed in {time.time() - t0:.1f} s", flush=True)
    sys.exit(0 if passed == len(results) else 1)
