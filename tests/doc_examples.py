#!/usr/bin/env python3
"""The documentation's C examples, built and run as printed: every ```c block of README.md and
every C fragment of cluster_resolver.h's top comment (the manual), read from those files at each
run, never copied. Each is built with clang ASan+UBSan and with gcc (run under valgrind
--leak-check=full), -Wall -Wextra -Wpedantic -Werror, and run in the environments its text
speaks of with nothing else set, its output checked against what the text says it prints.

A fragment that is not a whole program gets a fixed harness (harness() below): the manual's own
setup lines, the #include, <stdio.h> and main(); the fragment's lines go in unchanged. A C block
or fragment the test has no runs for fails it: README's ```c blocks are counted, each must follow
a marker line <!-- readme-example --> (or <!-- readme-example NAME -->) that README_RUNS knows;
the manual's fragments are found by their C lines (FRAGMENT_LINE) and each must be one that
MANUAL_RUNS knows by its section number.

usage: python3 tests/doc_examples.py                  all of them, against the in-tree header
       python3 tests/doc_examples.py pkg-config       README's, plain gcc, against the header
                                                      pkg-config finds (tests/install_test.sh)
       python3 tests/doc_examples.py extract NAME     print README's example NAME ("readme")"""
import os
import re
import shutil
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "tests", "scenarios"))
from scenarios import SBATCH_2x4  # noqa: E402  a batch script's variables, source SRC_SBATCH

OUT = os.path.join(ROOT, "build", "doc_examples")
WARN = ["-Wall", "-Wextra", "-Wpedantic", "-Werror"]
# -O0: clang builds the implementation with the sanitizers in 4 s here, at -O1 in 22 s
SAN = ["clang", "-std=c99", "-g", "-O0", "-fsanitize=address,undefined",
       "-fno-sanitize-recover=undefined"] + WARN
PLAIN = ["gcc", "-std=c99", "-g", "-O0"] + WARN
VALGRIND = ["valgrind", "-q", "--leak-check=full", "--error-exitcode=1"]
SAN_ENV = {"ASAN_OPTIONS": "detect_leaks=1", "UBSAN_OPTIONS": "print_stacktrace=1"}
TF_WORKER_1 = ('{"cluster": {"chief": ["c0:2222"], "worker": ["w0:2222", "w1:2222"]}, '
               '"task": {"type": "worker", "index": 1}}')


def fail(msg):
    raise SystemExit("doc_examples: " + msg)


class Example:
    def __init__(self, name, where, source, runs):
        self.name, self.where, self.source, self.runs = name, where, source, runs


class Run:
    """An environment (the only variables set, PATH aside) and what the output must be: the
    exact text, or (for text that words its output freely) words that must all be in it."""

    def __init__(self, label, env, exact=None, words=()):
        self.label, self.env, self.exact, self.words = label, env, exact, words

    def check(self, out):
        """None when `out` is what the text says, else why not."""
        if "(null)" in out:  # glibc's text for a NULL %s argument, which C leaves undefined
            return "it printed \"(null)\": a NULL string went to printf's %s"
        if self.exact is not None:
            return None if out == self.exact + "\n" else "it should print %r" % (self.exact + "\n")
        tokens = set(re.split(r"[\s;,/()]+", out))
        missing = [w for w in self.words if w not in tokens]
        return "the words %s are missing" % missing if missing else None


# ---------------------------------------------------------------------------------- README.md

FENCE_C = re.compile(r"^```\s*(c|C|c\+\+|cpp|cxx)\s*$")
MARKER = re.compile(r"^<!-- readme-example(?: (\S+))? -->$")


def readme_runs(prose, where):
    """README's example: the sentence after it gives a TF_CONFIG, what it prints with it, and
    what it prints without it (auto's local fallback)."""
    m = re.search(r"With `TF_CONFIG='([^']*)'` it prints\s+`([^`]*)`;\s+without it, the local "
                  r"fallback:\s+`([^`]*)`", prose)
    if not m:
        fail("%s: the text after the example no longer says, as this test reads it, \"With "
             "`TF_CONFIG='...'` it prints `...`; without it, the local fallback: `...`\"" % where)
    return [Run("TF_CONFIG set", {"TF_CONFIG": m.group(1)}, exact=m.group(2)),
            Run("TF_CONFIG unset", {}, exact=m.group(3))]


README_RUNS = {"readme": readme_runs}


def readme_examples():
    lines = open(os.path.join(ROOT, "README.md")).read().split("\n")
    examples, i = [], 0
    while i < len(lines):
        if not FENCE_C.match(lines[i]):
            i += 1
            continue
        where = "README.md:%d" % (i + 1)
        end = next((j for j in range(i + 1, len(lines)) if lines[j].startswith("```")), None)
        if end is None:
            fail("%s: the ```c block has no closing fence" % where)
        above = next((lines[j] for j in range(i - 1, -1, -1) if lines[j].strip()), "")
        marker = MARKER.match(above)
        if not marker:
            fail("%s: a ```c block without a <!-- readme-example NAME --> line before it: give it "
                 "one and its runs in tests/doc_examples.py's README_RUNS" % where)
        name = marker.group(1) or "readme"
        if name not in README_RUNS:
            fail("%s: no runs for the example %r: add them to README_RUNS" % (where, name))
        after = end + 1
        while after < len(lines) and not lines[after].strip():
            after += 1
        prose = []
        while after < len(lines) and lines[after].strip():
            prose.append(lines[after].strip())
            after += 1
        source = "\n".join(lines[i + 1:end]) + "\n"
        examples.append(Example(name, where, source, README_RUNS[name](" ".join(prose), where)))
        i = end + 1
    names = [e.name for e in examples]
    if len(names) != len(set(names)):
        fail("README.md: two ```c blocks have one name")
    return examples


# ------------------------------------------------------------------------- the manual's fragments

# A line of C in the manual's prose: a directive, a line opening or closing a block, or one that
# ends with a call's closing ");". The prose has none of these.
FRAGMENT_LINE = re.compile(r"^\s*#\s*(define|include)\s|\)\s*\{\s*$|^\s*\}\s*$|\w\(.*\)\s*;\s*$")
SECTION = re.compile(r"^ {3}(\d+)\.\s+\S")


def manual_lines():
    lines = open(os.path.join(ROOT, "cluster_resolver.h")).read().split("\n")
    end = next((i for i, line in enumerate(lines) if line.strip() == "*/"), None)
    if end is None:
        fail("cluster_resolver.h: no end of the top comment (a line \"*/\")")
    return lines[:end]


def indent(line):
    return len(line) - len(line.lstrip())


def manual_fragments():
    """[(first line number, section number or "", lines)]: each run of lines around a C line,
    up to a blank line or one indented less than where the run starts."""
    lines, fragments, taken = manual_lines(), [], set()
    section = ""
    sections = []
    for line in lines:
        m = SECTION.match(line)
        section = m.group(1) if m else section
        sections.append(section)
    for i, line in enumerate(lines):
        if i in taken or not FRAGMENT_LINE.search(line):
            continue
        base, first, last = indent(line), i, i
        while first > 0 and lines[first - 1].strip() and indent(lines[first - 1]) >= base:
            first -= 1
        while last + 1 < len(lines) and lines[last + 1].strip() and indent(lines[last + 1]) >= base:
            last += 1
        taken.update(range(first, last + 1))
        fragments.append((first + 1, sections[first], lines[first:last + 1]))
    return fragments


def quick_start_runs():
    """Section 1's fragment words its output freely (the text may change): each run names the
    words its output must hold: the number of jobs, the own task's type and index, the master."""
    return [Run("TF_CONFIG worker 1 of chief + 2 workers", {"TF_CONFIG": TF_WORKER_1},
                words=("2", "worker", "1", "w1:2222")),
            Run("TF_CONFIG unset (auto: local)", {}, words=("1", "worker", "0", "localhost:8470")),
            # no own task there: cres_task_type() is NULL, cres_task_id() CRES_NO_TASK
            Run("an sbatch script, no own task (auto: slurm)", SBATCH_2x4, words=("1",))]


MANUAL_RUNS = {"1": quick_start_runs}


def harness(setup, where, fragment):
    return ("/* tests/doc_examples.py's fixed harness: the manual's setup line, the include,\n"
            "   <stdio.h> and main() around its fragment at %s, whose lines are as printed. */\n"
            "%s\n#include \"cluster_resolver.h\"\n#include <stdio.h>\n\nint main(void) {\n"
            "#line %s \"cluster_resolver.h\"\n%s\n    return 0;\n}\n"
            % (where, "\n".join(setup), where.split(":")[1], "\n".join(fragment)))


def manual_examples():
    fragments = manual_fragments()
    setup = [f for f in fragments if all(re.match(r"\s*#", line) for line in f[2])]
    if len(setup) != 1 or "CLUSTER_RESOLVER_IMPLEMENTATION" not in "".join(setup[0][2]):
        fail("cluster_resolver.h: expected one setup fragment (#define "
             "CLUSTER_RESOLVER_IMPLEMENTATION) in the top comment, found %d" % len(setup))
    examples = []
    for line, section, text in fragments:
        if line == setup[0][0]:
            continue
        where = "cluster_resolver.h:%d" % line
        if section not in MANUAL_RUNS or section in [e.name.split()[-1] for e in examples]:
            fail("%s: a C fragment in the manual's section %s that this test does not run: add "
                 "its runs to tests/doc_examples.py's MANUAL_RUNS" % (where, section or "(none)"))
        examples.append(Example("manual section %s" % section, where,
                                harness(setup[0][2], where, text), MANUAL_RUNS[section]()))
    if not examples:
        fail("cluster_resolver.h: no C fragment found in the manual (the quick start?)")
    return examples, setup[0][0]


# ----------------------------------------------------------------------------------- running


def slug(example):
    return re.sub(r"[^a-z0-9]+", "-", example.name.lower()).strip("-")


def build(compiler, src, exe, cflags, cwd):
    p = subprocess.run(compiler + cflags + [src, "-o", exe], cwd=cwd, capture_output=True,
                       text=True)
    if p.returncode != 0:
        sys.stderr.write(p.stdout + p.stderr)
        fail("%s does not build with %s" % (src, " ".join(compiler)))


def run(example, how, command, extra_env, failures):
    """Runs the example in each of its environments; a wrong one goes to failures (all of them
    are run and reported, then the test fails)."""
    for r in example.runs:
        env = {"PATH": "/usr/bin:/bin"}
        env.update(extra_env)
        env.update(r.env)
        p = subprocess.run(command, env=env, capture_output=True, text=True, timeout=120)
        why = ("it exited %d" % p.returncode if p.returncode else
               "it wrote to stderr" if p.stderr else r.check(p.stdout))
        if why:
            failures.append("%s (%s), %s, %s: %s; stdout:\n%sstderr:\n%s"
                            % (example.where, example.name, r.label, how, why, p.stdout, p.stderr))
        else:
            print("doc_examples: %s, %s, %s: %s" % (example.where, r.label, how,
                                                      p.stdout.strip().replace("\n", " | ")))
    return len(example.runs)


def report(failures):
    for f in failures:
        sys.stderr.write("doc_examples: FAILED %s\n" % f)
    if failures:
        fail("%d run(s) did not print what the text says (above)" % len(failures))


def write(example, directory):
    os.makedirs(directory, exist_ok=True)
    src = os.path.join(directory, slug(example) + ".c")
    with open(src, "w") as f:
        f.write(example.source)
    return src


def in_tree():
    if not shutil.which("valgrind"):
        fail("no valgrind (tests/deps.sh installs it)")
    readme = readme_examples()
    manual, setup_line = manual_examples()
    runs, failures = 0, []
    for example in readme + manual:
        src = write(example, OUT)
        exe = src[:-2]
        build(SAN, src, exe + "-san", ["-I" + ROOT], OUT)
        runs += run(example, "ASan+UBSan", [exe + "-san"], SAN_ENV, failures)
        build(PLAIN, src, exe, ["-I" + ROOT], OUT)
        runs += run(example, "valgrind", VALGRIND + [exe], {}, failures)
    report(failures)
    print("doc_examples: README.md's %d ```c block(s) and the manual's %d C fragment(s) (with its "
          "setup line, cluster_resolver.h:%d) built and run %d times, each printing what its text "
          "says" % (len(readme), len(manual), setup_line, runs))


def pkg_config():
    """README's examples against an installed header: built from a directory where only what
    pkg-config names is on the include path."""
    p = subprocess.run(["pkg-config", "--cflags", "cluster_resolver"], capture_output=True,
                       text=True)
    if p.returncode != 0:
        fail("pkg-config --cflags cluster_resolver: " + p.stderr.strip())
    directory = os.path.join(OUT, "pkg-config")
    runs, failures = 0, []
    for example in readme_examples():
        src = write(example, directory)
        build(["gcc", "-std=c99"] + WARN, os.path.basename(src), src[:-2], p.stdout.split(),
              directory)
        runs += run(example, "pkg-config", [src[:-2]], {}, failures)
    report(failures)
    print("doc_examples: README's examples built through pkg-config ran %d times as their text "
          "says" % runs)


def main(argv):
    if argv == []:
        in_tree()
    elif argv == ["pkg-config"]:
        pkg_config()
    elif len(argv) == 2 and argv[0] == "extract":
        found = [e for e in readme_examples() if e.name == argv[1]]
        if not found:
            fail("README.md has no example %r" % argv[1])
        sys.stdout.write(found[0].source)
    else:
        fail("usage: doc_examples.py [pkg-config | extract NAME]")


if __name__ == "__main__":
    main(sys.argv[1:])
