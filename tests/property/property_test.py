#!/usr/bin/env python3
"""No answer that contradicts its own environment: a property test of cluster-resolve.

A seeded generator (generate.py) builds environments that mix the variables of one to three
launchers (Slurm, Open MPI, MPICH, MVAPICH, PMIx, PBS and Cray PALS, LSF and jsrun, Grid
Engine, Flux, torchrun, Ray/AzureML, Kubeflow, JAX, TPU VMs, SageMaker, SkyPilot, Volcano,
LeaderWorkerSet, AWS Batch, Vertex AI, TF_CONFIG, an Indexed Job's pod), drops some, gives
others values of the wrong type, shifts sizes and ranks. Each runs through `cluster-resolve
--format launch` alone (only its variables, PATH and a metadata guard), in a directory of its
own holding the files it names. check.py judges each answer against the model of the chosen
backend (model.py, from the header's manual); every answer is judged again with one of the
variables that backend read removed. A failing case is shrunk (shrink.py) to a minimal one.

Every counter-example found is a fixture (fixtures/*.json) replayed first, with its right
outcome. A fixture marked "known" is a bug not fixed yet: its failure is listed, not fatal,
generated cases failing the same way (its "match": a property and a pattern of the key) count
as known too, and a known fixture that passes fails the run, so that its marker goes.

usage: property_test.py CLI [--seed S] [--count N] [--jobs J] [--workdir D] [--companions]
                            [--shrink-limit N]
exit 0: every property held; 1: a violation (shrunk and printed as a fixture to add).
"""
import argparse
import copy
import glob
import json
import multiprocessing
import os
import random
import re
import shutil
import sys
import time

from check import Runner, judge
from generate import generate
from model import BACKENDS
from shrink import shrink

HERE = os.path.dirname(os.path.abspath(__file__))
DEFAULT_SEED = 20261126
DEFAULT_COUNT = 2000
RUNNER = None


def options():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("cli", help="the cluster-resolve binary")
    p.add_argument("--seed", default=str(DEFAULT_SEED))
    p.add_argument("--count", type=int, default=DEFAULT_COUNT, help="generated environments")
    p.add_argument("--jobs", type=int, default=2, help="processes running cases")
    p.add_argument("--workdir", default="build/property", help="the cases' files go here")
    p.add_argument("--companions", action="store_true",
                   help="doubts (companion variables ignored) fail the run too")
    p.add_argument("--shrink-limit", type=int, default=5, help="new failures to shrink")
    return p.parse_args()


# ---- one case: judged as generated, and with one variable its backend read removed ----------

def removal(case, verdict, seed, index):
    """The case without one of the variables the chosen backend read (seeded pick)."""
    if verdict.code != 0 or not verdict.read:
        return None
    name = random.Random("%s:%d:removal" % (seed, index)).choice(sorted(verdict.read))
    c = copy.deepcopy(case)
    del c["env"][name]
    c["removed"] = name
    return c


def summary(case, verdict):
    return {"case": case, "code": verdict.code, "backend": verdict.backend,
            "violations": verdict.violations, "doubts": verdict.doubts,
            "err": verdict.err.strip(), "pinned": verdict.pinned}


def examine(job):
    seed, index = job
    case = generate(seed, index)
    folder = RUNNER.prepare(case, "case-%05d" % index)
    verdict = judge(RUNNER, case, folder)
    out = [summary(case, verdict)]
    derived = removal(case, verdict, seed, index)
    if derived:
        out.append(summary(derived, judge(RUNNER, derived, folder)))
    shutil.rmtree(folder, ignore_errors=True)
    return index, out


def start_worker(cli, workdir):
    global RUNNER
    RUNNER = Runner(cli, workdir)


# ---- fixtures ------------------------------------------------------------------------------

def load_fixtures():
    out = []
    for path in sorted(glob.glob(os.path.join(HERE, "fixtures", "*.json"))):
        with open(path) as f:
            fixture = json.load(f)
        fixture["name"] = os.path.basename(path)[:-5]
        out.append(fixture)
    return out


def fixture_outcome(runner, fixture):
    """None when the fixture's case gives its expected outcome, else what went wrong."""
    case = dict({"files": {}, "args": []}, **fixture["case"])
    folder = runner.prepare(case, "fixture-" + fixture["name"])
    v = judge(runner, case, folder)
    shutil.rmtree(folder, ignore_errors=True)
    want = fixture["expect"]
    if v.code != want["exit"]:
        return "exit %d (%s), want %d" % (v.code, v.err.strip() or v.out.strip(), want["exit"])
    missing = [n for n in want.get("names", []) if n not in v.err]
    if missing:
        return "the line does not name %s: %s" % (", ".join(missing), v.err.strip())
    wrong = {k: v.answer[k] for k, value in want.get("launch", {}).items()
             if v.answer and v.answer[k] != value}
    if wrong:
        return "answered %s, want %s" % (wrong, want["launch"])
    if v.violations:
        return "; ".join(text for _, _, text in v.violations)
    return None


def replay_fixtures(runner, fixtures):
    """Prints each fixture that does not give its outcome; returns how many fail the run."""
    failed = 0
    for fixture in fixtures:
        problem = fixture_outcome(runner, fixture)
        known = fixture.get("known")
        if problem and known:
            print("known  %s: %s (%s)" % (fixture["name"], known, problem))
        elif problem:
            failed += 1
            print("FAIL   fixture %s: %s" % (fixture["name"], problem))
        elif known:
            failed += 1
            print("FAIL   fixture %s passes: remove its \"known\" marker" % fixture["name"])
    return failed


def matches(m, backend, violation):
    """A known fixture's match: the property, a regular expression for the key, and the
    backend when it says one."""
    return (m["kind"] == violation[0] and re.fullmatch(m["key"], violation[1]) is not None
            and m.get("backend") in (None, backend))


def is_known(summary_, violation, fixtures):
    return any(matches(m, summary_["backend"], violation)
               for f in fixtures if f.get("known") for m in f.get("match", []))


# ---- the generated run ---------------------------------------------------------------------

def run_cases(args):
    jobs = [(args.seed, i) for i in range(args.count)]
    with multiprocessing.Pool(args.jobs, start_worker, (args.cli, args.workdir)) as pool:
        results = dict(pool.imap_unordered(examine, jobs, chunksize=8))
    return [s for i in sorted(results) for s in results[i]]


def signature(summary_, violation):
    return (summary_["backend"], violation[0], violation[1])


def shrink_failure(runner, summary_, violation):
    """The failing case cut down while it keeps the same (kind, key) violation, and that
    violation's text for the small case."""
    target = violation[:2]
    folder = "shrink"

    def same_violation(case):
        v = judge(runner, case, runner.prepare(case, folder))
        return next((x for x in v.violations if x[:2] == target), None)

    case = dict(summary_["case"])
    case.pop("removed", None)
    case.pop("launchers", None)
    small = shrink(case, same_violation)
    text = same_violation(small)[2]
    shutil.rmtree(os.path.join(runner.workdir, folder), ignore_errors=True)
    return small, text


def report_new(runner, new, limit):
    """Counts the new failures by signature, then shrinks and prints the first of each."""
    counts = {}
    for summary_, violation in new:
        counts[signature(summary_, violation)] = counts.get(signature(summary_, violation), 0) + 1
    for sig, n in sorted(counts.items(), key=str):
        print("new    %s %s %s: %d cases" % (sig + (n,)))
    seen = []
    silent_first = sorted(new, key=lambda sv: sv[1][0].startswith(("error", "exit")))
    for summary_, violation in silent_first:
        sig = signature(summary_, violation)
        if sig in seen or len(seen) >= limit:
            continue
        seen.append(sig)
        small, text = shrink_failure(runner, summary_, violation)
        fixture = {"about": text, "case": small,
                   "match": [{"backend": sig[0], "kind": sig[1], "key": re.escape(sig[2])}]}
        print("FAIL   %s %s %s: %s" % (sig + (violation[2],)))
        print("       shrunk, as a fixture (set \"expect\" to the right outcome):")
        print("       " + json.dumps(fixture, sort_keys=True))


def tally(summaries, fixtures):
    """(answers per backend, refusals, known, new [(summary, violation)], doubts)."""
    answers, refused, known, new, doubts = {}, 0, 0, [], []
    for s in summaries:
        if s["code"] == 0:
            answers[s["backend"]] = answers.get(s["backend"], 0) + 1
        else:
            refused += 1
        doubts += [(s, d) for d in s["doubts"]]
        for violation in s["violations"]:
            if is_known(s, violation, fixtures):
                known += 1
            else:
                new.append((s, violation))
    return answers, refused, known, new, doubts


def print_doubts(doubts, verbose):
    kinds = {}
    for s, d in doubts:
        kinds.setdefault((s["backend"],) + d[:2], []).append((s, d))
    print("doubts: %d answers disagree with what their backend does not read (%d kinds)%s"
          % (len(doubts), len(kinds), "" if verbose else "; --companions lists them"))
    for key, items in sorted(kinds.items()) if verbose else []:
        s, d = items[0]
        print("doubt  %s %s x%d: %s\n       %s" % (key[0], key[2], len(items), d[2],
                                                 json.dumps(s["case"]["env"], sort_keys=True)))


NEEDED_PINS = {"world_size", "rank", "master"}


def unreached(summaries, count):
    """Backends the run proves nothing of: no answer, or none whose world size, rank and
    master the model could tell (a model that pins nothing cannot fail)."""
    if count < DEFAULT_COUNT:
        return []
    pinned = {}
    for s in summaries:
        if s["code"] == 0:
            pinned.setdefault(s["backend"], set()).update(s["pinned"])
    return sorted(b for b in BACKENDS if not NEEDED_PINS <= pinned.get(b, set()))


def main():
    args = options()
    started = time.time()
    os.makedirs(args.workdir, exist_ok=True)
    runner = Runner(args.cli, args.workdir)
    fixtures = load_fixtures()
    failed = replay_fixtures(runner, fixtures)
    summaries = run_cases(args)
    answers, refused, known, new, doubts = tally(summaries, fixtures)
    print("%d environments and %d with a variable removed (seed %s): %d answers, %d refusals"
          % (args.count, len(summaries) - args.count, args.seed, sum(answers.values()), refused))
    print("answers by backend: " + ", ".join("%s %d" % kv for kv in sorted(answers.items())))
    print("%d fixtures replayed; %d generated violations of known bugs" % (len(fixtures), known))
    print_doubts(doubts, args.companions)
    report_new(runner, new, args.shrink_limit)
    missing = unreached(summaries, args.count)
    if missing:
        print("FAIL   no answer from %s whose world size, rank and master the model pins"
              % ", ".join(missing))
    print("%.1f s" % (time.time() - started))
    bad = failed or new or missing or (args.companions and doubts)
    print("property test: %s" % ("FAILED" if bad else "every property held"))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
