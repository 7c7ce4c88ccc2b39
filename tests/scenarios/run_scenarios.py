#!/usr/bin/env python3
"""Runs the everyday scenarios (scenarios.py) against a cluster-resolve binary.

    python3 tests/scenarios/run_scenarios.py build/cluster-resolve [-k TEXT] [--markdown FILE]

Each scenario runs in its own process with only its environment, PATH, and HOME set to an empty
directory of its own (and the sanitizers' *SAN_OPTIONS when this runner has them), in its own
temporary directory holding its files. The exit code, stdout and stderr are checked; the summary
gives the passed count and, for every failure, its class, the scenario, its source, the command,
the expected and the actual answer. Exit status 1 when any scenario fails.

Failure classes, worst first:
  wrong-answer    exit 0 where the answer differs or a refusal was expected
  refused         a real setup refused (non-zero exit where an answer was expected)
  wrong-exit      a refusal with another exit code than expected
  message         the right exit code, but the message does not name what it must, is not one
                  line "cluster-resolve: ...", or stdout/stderr is not clean
Standard library only.
"""
import concurrent.futures
import json
import os
import shlex
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import scenarios  # noqa: E402

CLASSES = [
    ("wrong-answer", "Wrong answer with exit 0 (the worst)"),
    ("refused", "Refusal of a real setup"),
    ("wrong-exit", "Wrong exit code"),
    ("message", "Message not naming what it must (or output not clean)"),
]
PASS_THROUGH = ("ASAN_OPTIONS", "UBSAN_OPTIONS", "LSAN_OPTIONS")


def subst(value, tmp):
    return value.replace("{tmp}", tmp)


def parse_exports(text):
    """export lines to a dict; (None, reason) when a line is not `export NAME=VALUE`."""
    out = {}
    for line in text.splitlines():
        if not line.startswith("export ") or "=" not in line:
            return None, "not an export line: %r" % line
        name, _, raw = line[len("export "):].partition("=")
        if not name or not all(c.isalnum() or c == "_" for c in name):
            return None, "bad variable name in %r" % line
        try:
            words = shlex.split(raw) if raw else [""]
        except ValueError as e:
            return None, "unparsable value in %r: %s" % (line, e)
        if len(words) != 1:
            return None, "value is not one shell word in %r" % line
        if name in out:
            return None, "%s exported twice" % name
        out[name] = words[0]
    return out, None


def check_ok(exp, out):
    """None when stdout is the expected answer, else the reason."""
    if "exports" in exp:
        got, why = parse_exports(out)
        if got is None:
            return why
        want = exp["exports"]
        for name in exp["absent"]:
            if name in got:
                return "%s exported (must be left alone)" % name
        if exp["at_least"]:
            bad = {k: (v, got.get(k)) for k, v in want.items() if got.get(k) != v}
            return None if not bad else "differs: " + ", ".join(
                "%s want %r got %r" % (k, w, g) for k, (w, g) in sorted(bad.items()))
        if got == want:
            return None
        parts = []
        for k in sorted(set(want) | set(got)):
            if want.get(k) != got.get(k):
                parts.append("%s want %r got %r" % (k, want.get(k), got.get(k)))
        return "differs: " + ", ".join(parts)
    if "json" in exp:
        lines = out.split("\n")
        if len(lines) != 2 or lines[1] != "":
            return "not one JSON line"
        try:
            got = json.loads(lines[0])
        except ValueError as e:
            return "not JSON: %s" % e
        return None if got == exp["json"] else "JSON differs"
    want = "".join(line + "\n" for line in exp["lines"])
    return None if out == want else "lines differ"


def run_one(cli, s, timeout):
    tmp = tempfile.mkdtemp(prefix="scenario-")
    home = os.path.join(tmp, "home")
    os.mkdir(home)
    for rel, content in s["files"].items():
        path = os.path.join(tmp, rel)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w") as f:
            f.write(subst(content, tmp))
    env = {k: subst(v, tmp) for k, v in s["env"].items()}
    env["PATH"] = os.environ.get("PATH", "/usr/bin:/bin")
    env["HOME"] = home
    for k in PASS_THROUGH:
        if k in os.environ:
            env[k] = os.environ[k]
    args = [subst(a, tmp) for a in s["args"]]
    try:
        p = subprocess.run([cli] + args, env=env, cwd=tmp, capture_output=True, timeout=timeout)
        code, out, err = p.returncode, p.stdout.decode("utf-8", "replace"), \
            p.stderr.decode("utf-8", "replace")
    except subprocess.TimeoutExpired:
        code, out, err = "timeout", "", "(no answer in %d s)" % timeout
    subprocess.run(["rm", "-rf", tmp])
    return code, out, err


def judge(s, code, out, err):
    """(class, reason) of a failure, or None."""
    exp = s["expect"]
    if exp["exit"] == 0:
        if code != 0:
            return "refused", "exit %s" % code
        why = check_ok(exp, out)
        if why:
            return "wrong-answer", why
        if err:
            return "message", "stderr not empty on success"
        return None
    if code == 0:
        return "wrong-answer", "exit 0 where exit %d was expected" % exp["exit"]
    if code != exp["exit"]:
        return "wrong-exit", "exit %s, expected %d" % (code, exp["exit"])
    if out:
        return "message", "stdout not empty on failure"
    lines = err.split("\n")
    if len(lines) != 2 or lines[1] != "" or not lines[0].startswith("cluster-resolve: "):
        return "message", "stderr is not one line \"cluster-resolve: ...\""
    low = lines[0].lower()
    for w in exp["words"]:
        alts = w if isinstance(w, tuple) else (w,)
        if not any(a.lower() in low for a in alts):
            return "message", "message does not name %s" % " or ".join(alts)
    for w in exp["avoid"]:
        if w.lower() in low:
            return "message", "message says %r (the --opt=value form refused?)" % w
    return None


# Variables that decide an answer, shown first in a failure's environment summary.
KEY_PREFIXES = ("SLURM_PROCID", "SLURM_STEP_", "SLURM_NTASKS", "SLURM_JOB_NODELIST",
                "SLURM_TASKS_PER_NODE", "SLURM_DISTRIBUTION", "SLURM_GPU", "SLURM_TRES",
                "SLURM_NTASKS_PER_GPU", "CUDA_VISIBLE_DEVICES", "CLUSTER_RESOLVER", "MASTER_",
                "WORLD_SIZE", "RANK", "LOCAL_", "GROUP_", "NODE_RANK", "PET_", "TORCHELASTIC_RUN_ID",
                "JAX_", "TF_CONFIG", "CLUSTER_SPEC", "OMPI_COMM_WORLD_", "OMPI_MCA_rmaps",
                "OMPI_MCA_orte_default_hostfile", "PMI_", "MPI_LOCAL", "MV2_", "PMIX_RANK", "PALS_",
                "PBS_NODEFILE", "PBS_VNODENUM", "LSB_MCPU_HOSTS", "JSM_", "CSM_", "PE_HOSTFILE",
                "NSLOTS", "FLUX_TASK_RANK", "FLUX_JOB_SIZE", "VC_", "VK_", "LWS_", "HOSTNAME",
                "SM_HOSTS", "SM_CURRENT_HOST", "SKYPILOT_", "AWS_BATCH_JOB_", "TPU_WORKER",
                "TPU_PROCESS", "MEGASCALE_", "HOROVOD_RANK", "PADDLE_TRAINER_ID", "BATCH_TASK",
                "AZ_BATCH_HOST_LIST", "_CONDOR_", "DMLC_", "NPROC_PER_NODE", "JOB_COMPLETION_INDEX")


def env_summary(env, limit=12):
    """The deciding variables first, then how many there are in all."""
    keys = sorted(env, key=lambda k: (not k.startswith(KEY_PREFIXES), k))
    shown = ", ".join("%s=%s" % (k, env[k].replace("\n", "\\n")[:70]) for k in keys[:limit])
    more = len(keys) - min(limit, len(keys))
    return (shown or "(empty)") + (" ... and %d more" % more if more else "")


def expected_text(exp):
    if exp["exit"] != 0:
        words = [" or ".join(w) if isinstance(w, tuple) else w for w in exp["words"]]
        text = "exit %d, message naming %s" % (exp["exit"], ", ".join(words) or "(anything)")
        return text + ("" if not exp["avoid"] else ", not saying %s" % ", ".join(exp["avoid"]))
    if "exports" in exp:
        lines = ["export %s=%s" % kv for kv in sorted(exp["exports"].items())]
        note = " (at least)" if exp["at_least"] else ""
        if exp["absent"]:
            note += " (and not %s)" % ", ".join(exp["absent"])
        return "exit 0%s\n" % note + "\n".join(lines)
    if "json" in exp:
        return "exit 0\n" + json.dumps(exp["json"], sort_keys=True)
    return "exit 0\n" + "\n".join(repr(line) for line in exp["lines"])


def actual_text(code, out, err):
    text = "exit %s" % code
    if out:
        text += "\n" + out.rstrip("\n")
    if err:
        text += "\nstderr: " + err.rstrip("\n")
    return text


def indent(text, pad="      "):
    return "\n".join(pad + line for line in text.split("\n"))


def report(failures, total, markdown):
    """The failure list, by class, as text (and Markdown when asked)."""
    plain, md = [], []
    for cls, title in CLASSES:
        group = [f for f in failures if f[0] == cls]
        if not group:
            continue
        plain.append("\n== %s: %d" % (title, len(group)))
        md.append("\n## %s (%d)\n" % (title, len(group)))
        for _, why, s, code, out, err in group:
            cmd = "cluster-resolve " + " ".join(shlex.quote(a) for a in s["args"])
            plain.append("\n-- %s [%s]: %s" % (s["name"], s["launcher"], why))
            plain.append("   source:   %s" % s["source"])
            plain.append("   command:  %s" % cmd)
            plain.append("   env:      %s" % env_summary(s["env"]))
            plain.append("   expected:\n" + indent(expected_text(s["expect"])))
            plain.append("   actual:\n" + indent(actual_text(code, out, err)))
            md.append("### `%s` (%s): %s\n" % (s["name"], s["launcher"], why))
            md.append("- command: `%s`" % cmd)
            md.append("- env: %s" % env_summary(s["env"]))
            md.append("- source: %s" % s["source"])
            md.append("- expected:\n```\n%s\n```" % expected_text(s["expect"]))
            md.append("- actual:\n```\n%s\n```\n" % actual_text(code, out, err))
    if markdown:
        counts = ", ".join("%s %d" % (c, sum(1 for f in failures if f[0] == c)) for c, _ in CLASSES)
        with open(markdown, "w") as f:
            f.write("# Everyday scenarios: failures\n\n%d of %d scenarios fail (%s).\n"
                    % (len(failures), total, counts))
            f.write("\n".join(md) + "\n")
    return "\n".join(plain)


def main(argv):
    args = list(argv[1:])
    pick, markdown, timeout = None, None, 20
    rest = []
    i = 0
    while i < len(args):
        if args[i] == "-k" and i + 1 < len(args):
            pick = args[i + 1]
            i += 2
        elif args[i] == "--markdown" and i + 1 < len(args):
            markdown = args[i + 1]
            i += 2
        elif args[i] == "--timeout" and i + 1 < len(args):
            timeout = int(args[i + 1])
            i += 2
        else:
            rest.append(args[i])
            i += 1
    if len(rest) != 1:
        sys.stderr.write(__doc__)
        return 2
    cli = os.path.abspath(rest[0])
    names = [s["name"] for s in scenarios.SCENARIOS]
    dup = sorted({n for n in names if names.count(n) > 1})
    if dup:
        sys.stderr.write("duplicate scenario names: %s\n" % ", ".join(dup))
        return 2
    todo = [s for s in scenarios.SCENARIOS if not pick or pick in s["name"]]
    with concurrent.futures.ThreadPoolExecutor(max_workers=4) as pool:
        results = list(pool.map(lambda s: (s,) + run_one(cli, s, timeout), todo))
    failures = []
    for s, code, out, err in results:
        verdict = judge(s, code, out, err)
        if verdict:
            failures.append((verdict[0], verdict[1], s, code, out, err))
    print(report(failures, len(todo), markdown))
    by_launcher = {}
    for s in todo:
        by_launcher.setdefault(s["launcher"], [0, 0])[0] += 1
    for _, _, s, _, _, _ in failures:
        by_launcher[s["launcher"]][1] += 1
    print("\nscenarios by launcher (failing):")
    for name in sorted(by_launcher):
        n, f = by_launcher[name]
        print("  %-22s %3d (%d)" % (name, n, f))
    counts = ", ".join("%s %d" % (c, sum(1 for f in failures if f[0] == c)) for c, _ in CLASSES)
    print("\n%d passed, %d failed of %d (%s)" % (len(todo) - len(failures), len(failures),
                                                  len(todo), counts))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
