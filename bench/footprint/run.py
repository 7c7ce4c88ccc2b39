#!/usr/bin/env python3
"""Footprint of cluster_resolver.h: the size of the compiled implementation, how long it takes
to compile, and the heap each backend uses to resolve 8, 1,000 and 10,000 members.

  programs  small programs (auto with every backend; auto with only TF_CONFIG, Slurm, MPI and
            local, the rest left out by compile switches; TF_CONFIG alone; Kubernetes with and
            without kubeconfig files, CLUSTER_RESOLVER_NO_KUBECONFIG) built for size
            with -ffunction-sections -fdata-sections -Wl,--gc-sections -s, with and without
            unwind tables: text + data
  size      a .c file that defines CLUSTER_RESOLVER_IMPLEMENTATION and includes the header,
            `gcc -std=c99 -Os -c` (and -O2), with and without CLUSTER_RESOLVER_USE_CURL:
            `size` of the object (text, data, bss) and its bytes before and after
            `strip --strip-unneeded` (still linkable)
  compile   wall time of `gcc -std=c99 -Os -c` and `-O2 -c` of that file (without curl), the
            median of --compiles runs
  heap      bench/footprint/heap.c: a counting cres_allocator, an in-process fake transport
            with canned Kubernetes / Compute Engine / Cloud TPU answers and the getenv hook
            for the environment backends: peak bytes live during create + resolve, the
            allocations, and the in-process time (see heap.c)

Prints a Markdown report and writes it to build/bench/footprint.md (--out); --json FILE also
writes the numbers; --programs measures the small programs alone (about 4 minutes).
usage: python3 bench/footprint/run.py [--sizes 8,1000,10000] [--compiles 5] [--cc gcc]
[--out FILE] [--json FILE] [--programs]. Standard library only; needs gcc, binutils (size,
strip), libjsmn-dev, and libcurl4-openssl-dev for the curl rows. tests/footprint_test.py
builds two of the programs as this file does and checks them against recorded limits.
"""
import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.dirname(HERE))
from benchlib import first_line, parse_sizes, save_json, save_report  # noqa: E402
HEADER = os.path.join(ROOT, "cluster_resolver.h")
HEAP_SRC = os.path.join(HERE, "heap.c")
KiB = 1024.0

SOURCES = {  # what each backend reads, for the report
    "tfconfig": "TF_CONFIG with N workers",
    "slurm": "Slurm step variables: `n[1-N/8]`, `8(xN/8)`",
    "mpi": "Open MPI variables + a hostfile of N/8 hosts, `slots=8`",
    "pbs": "PBS_NODEFILE, a line per slot, 8 per host; pbsdsh's PBS_VNODENUM",
    "lsf": "LSB_MCPU_HOSTS `n1 8 n2 8 ...`; jsrun's JSM_NAMESPACE_RANK and _SIZE",
    "sge": "PE_HOSTFILE of N/8 hosts, `nK 8 all.q@nK UNDEFINED`; NSLOTS, Open MPI's rank",
    "flux": "FLUX_TASK_RANK, FLUX_JOB_SIZE, FLUX_JOB_NNODES + a hostfile of N/8 hosts",
    "sagemaker": "SM_HOSTS with N hosts",
    "kubernetes": "PodList pages of 500 pods (about 2.1 KB each)",
    "gce": "listInstances pages + zone instance-list pages (fields=), 500 each",
    "tpu": "one Cloud TPU node with N networkEndpoints",
    "local": "nothing (always one task)",
    "auto": "detects Slurm from the same variables as slurm",
}


def fail(msg):
    raise SystemExit("bench/footprint: " + msg)

# ---------------------------------------------------------------- the compiled implementation

def compile_impl(cc, src, obj, opt, curl, extra=()):
    cmd = [cc, "-std=c99", opt] + list(extra) + ["-c", "-I" + ROOT, src, "-o", obj]
    if curl:
        cmd.insert(2, "-DCLUSTER_RESOLVER_USE_CURL")
    start = time.perf_counter()
    p = subprocess.run(cmd, capture_output=True, text=True)
    wall = time.perf_counter() - start
    if p.returncode:
        fail("%s failed:\n%s" % (" ".join(cmd), p.stderr[-2000:]))
    return wall


def object_size(obj):
    out = subprocess.run(["size", obj], capture_output=True, text=True, check=True).stdout
    text, data, bss = (int(x) for x in out.splitlines()[1].split()[:3])
    stripped = obj + ".stripped"
    subprocess.run(["strip", "--strip-unneeded", "-o", stripped, obj], check=True)
    return {"text": text, "data": data, "bss": bss, "file": os.path.getsize(obj),
            "stripped": os.path.getsize(stripped)}


def impl_source(tmp):
    """A .c file holding the implementation and nothing else."""
    src = os.path.join(tmp, "impl.c")
    with open(src, "w") as f:
        f.write("#define CLUSTER_RESOLVER_IMPLEMENTATION\n#include \"cluster_resolver.h\"\n")
    return src


def measure_objects(args, tmp):
    src = impl_source(tmp)
    rows = []
    for opt in ("-Os", "-O2"):
        for curl in (False, True):
            obj = os.path.join(tmp, "impl%s%s.o" % (opt, "-curl" if curl else ""))
            times = [compile_impl(args.cc, src, obj, opt, curl)
                     for _ in range(1 if curl else args.compiles)]
            row = {"opt": opt, "curl": curl, **object_size(obj)}
            if not curl:
                row["compile_s"] = statistics.median(times)
                row["compile_min_s"], row["compile_max_s"] = min(times), max(times)
            rows.append(row)
            print("    %s%s: text+data %d bytes%s" % (
                opt, " + curl" if curl else "", row["text"] + row["data"],
                ", compile %.2f s (median of %d)" % (row["compile_s"], len(times)) if not curl else ""),
                file=sys.stderr, flush=True)
    return rows


# ---------------------------------------------------------------- small programs

# A program that resolves through one create function, for the gc-sections builds below.
PROGRAM = """#define CLUSTER_RESOLVER_IMPLEMENTATION
#include "cluster_resolver.h"
#include <stdio.h>
int main(void) {
    cres_resolver *r = NULL;
    cres_cluster_spec *spec = NULL;
    cres_error err;
    char json[4096];
    if (%s(NULL, &r, &err) != CRES_OK || cres_resolve(r, &spec, &err) != CRES_OK) {
        puts(err.message);
        return 1;
    }
    cres_spec_to_json(spec, json, sizeof json, NULL, &err);
    puts(json);
    cres_spec_free(spec);
    cres_resolver_free(r);
    return 0;
}
"""
LEFT_OUT_BUT_AUTO4 = ["K8S", "GCE", "TPU", "PBS", "LSF", "SGE", "FLUX", "SAGEMAKER", "VERTEX", "SKYPILOT", "VOLCANO",
                      "LWS", "TORCH", "JAX", "AWSBATCH", "SIMPLE", "UNION"]
PROGRAMS = [  # (name, create function, switches)
    ("auto, every backend", "cres_auto_resolver_create", []),
    ("auto with TF_CONFIG, Slurm, MPI and local only", "cres_auto_resolver_create", LEFT_OUT_BUT_AUTO4),
    ("TF_CONFIG only", "cres_tfconfig_resolver_create", []),
    ("Kubernetes with kubeconfig files and exec plugins", "cres_k8s_resolver_create", []),
    ("Kubernetes in a cluster and `server` only", "cres_k8s_resolver_create", ["KUBECONFIG"]),
    ("the same, lists only", "cres_k8s_resolver_create", ["KUBECONFIG", "K8S_JOB"]),
]
# One program per backend: what each costs on its own (local is about the shared core).
ONE_BACKEND = ["local", "tfconfig", "simple", "union", "slurm", "mpi", "pbs", "lsf", "sge", "flux",
               "torch", "jax", "awsbatch", "sagemaker", "vertex", "skypilot", "volcano", "lws",
               "k8s", "gce", "tpu"]
SMALL = ["-Os", "-ffunction-sections", "-fdata-sections", "-Wl,--gc-sections", "-s"]
NO_UNWIND = "-fno-asynchronous-unwind-tables"


def program_command(cc, src, exe, switches, extra=()):
    """The command that builds a small program: SMALL, then CLUSTER_RESOLVER_NO_<switch>."""
    return [cc, "-std=c99"] + SMALL + list(extra) + ["-DCLUSTER_RESOLVER_NO_" + s for s in switches] + \
        ["-I" + ROOT, src, "-o", exe]


def text_data(path):
    out = subprocess.run(["size", path], capture_output=True, text=True, check=True).stdout
    text, data = (int(x) for x in out.splitlines()[1].split()[:2])
    return text + data


def measure_programs(args, tmp):
    """text + data of stripped programs built for size (gc-sections), with and without
    unwind tables, and of the implementation object at -Os without them."""
    rows = []
    programs = PROGRAMS + [("%s only" % b, "cres_%s_resolver_create" % b, [], b)
                           for b in ONE_BACKEND]
    for name, create, switches, *backend in programs:
        src = os.path.join(tmp, "prog.c")
        with open(src, "w") as f:
            f.write(PROGRAM % create)
        sizes = []
        for extra in ([], [NO_UNWIND]):
            exe = os.path.join(tmp, "prog")
            cmd = program_command(args.cc, src, exe, switches, extra)
            p = subprocess.run(cmd, capture_output=True, text=True)
            if p.returncode:
                fail("%s failed:\n%s" % (" ".join(cmd), p.stderr[-2000:]))
            sizes.append(text_data(exe))
        rows.append({"program": name, "switches": switches, "text_data": sizes[0], "no_unwind": sizes[1],
                     "backend": backend[0] if backend else None})
        print("    %s: %d bytes, %d without unwind tables" % (name, sizes[0], sizes[1]), file=sys.stderr, flush=True)
    src = impl_source(tmp)
    obj = os.path.join(tmp, "impl-no-unwind.o")
    compile_impl(args.cc, src, obj, "-Os", False, [NO_UNWIND])
    rows.append({"program": "the implementation object (`-c`)", "switches": [], "no_unwind": text_data(obj)})
    return rows


# ---------------------------------------------------------------- the heap

def measure_heap(args, tmp):
    exe = os.path.join(tmp, "heap")
    cmd = [args.cc, "-std=c99", "-O2", "-Wall", "-Wextra", "-Wpedantic", "-Werror", "-I" + ROOT,
           HEAP_SRC, "-o", exe]
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode:
        fail("%s failed:\n%s" % (" ".join(cmd), p.stderr[-2000:]))
    p = subprocess.run([exe] + [str(n) for n in args.sizes], capture_output=True, text=True,
                       timeout=600)
    if p.returncode:
        fail("heap failed: %s" % p.stderr[-2000:])
    return [json.loads(line) for line in p.stdout.splitlines() if line.strip()]


# ---------------------------------------------------------------- report

def kib(n):
    return "%.1f KiB" % (n / KiB) if n < 1024 * KiB else "%.2f MiB" % (n / KiB / KiB)


def signed_kib(n):
    return ("+" if n >= 0 else "-") + kib(abs(n))


def nbytes(n):
    return "%s B" % format(n, ",") if n < 10 * 1024 else kib(n)


def num(n):
    return format(n, ",")


def dur(us):
    if us < 1000:
        return "%.0f µs" % us if us >= 10 else "%.1f µs" % us
    return "%.1f ms" % (us / 1e3) if us < 1e5 else "%.0f ms" % (us / 1e3)


def report(objects, programs, heap, args, elapsed):
    """The whole report; with objects and heap None, the small programs' tables alone."""
    cc = first_line([args.cc, "--version"])
    lines = ["# Footprint: compiled size, compile time, heap per resolve" if heap is not None
             else "# Footprint: small programs", "",
             "- %s; %s %s, %s; header: %d lines, %s" % (
                 cc, platform.system(), platform.machine(), cpu_name(),
                 sum(1 for _ in open(HEADER, "rb")), nbytes(os.path.getsize(HEADER))),
             ""]
    if objects is not None:
        lines += objects_report(objects, args)
    lines += programs_report(programs, args)
    if heap is not None:
        lines += heap_report(heap, args)
    lines += ["", "- Whole run: %.0f s." % elapsed]
    return "\n".join(lines) + "\n"


def objects_report(objects, args):
    lines = ["Compiled implementation (a .c with `#define CLUSTER_RESOLVER_IMPLEMENTATION` and "
             "the include; `%s -std=c99 OPT -c`; `size`; the object's bytes as compiled and after "
             "`strip --strip-unneeded`; compile wall time: median of %d runs, without curl):" % (
                 args.cc, args.compiles), "",
             "| build | text | data | bss | text + data | .o file | .o stripped | compile time |",
             "|---|---:|---:|---:|---:|---:|---:|---:|"]
    for r in objects:
        lines.append("| `%s`%s | %s | %s | %s | **%s** | %s | %s | %s |" % (
            r["opt"], " + `CLUSTER_RESOLVER_USE_CURL`" if r["curl"] else "", num(r["text"]),
            num(r["data"]), num(r["bss"]), kib(r["text"] + r["data"]), kib(r["file"]),
            kib(r["stripped"]),
            "%.2f s (%.2f-%.2f)" % (r["compile_s"], r["compile_min_s"], r["compile_max_s"])
            if "compile_s" in r else "-"))
    return lines + [""]


def programs_report(programs, args):
    lines = ["Small programs: a `main` that creates one resolver, resolves and prints the "
              "spec, built `%s -std=c99 %s` (stripped, unused sections dropped), `size`'s text + "
              "data; then with `%s` too (no unwind tables: C code needs them only for "
              "backtraces). Left out with `CLUSTER_RESOLVER_NO_<BACKEND>` where the row says so:"
              % (args.cc, " ".join(SMALL), NO_UNWIND), "",
              "| program | switches | text + data | without unwind tables |", "|---|---|---:|---:|"]
    for r in (r for r in programs if not r.get("backend")):
        lines.append("| %s | %s | %s | %s |" % (
            r["program"], ", ".join("`NO_%s`" % x for x in r["switches"]) or "-",
            kib(r["text_data"]) if "text_data" in r else "(above)", kib(r["no_unwind"])))
    core = next(r for r in programs if r.get("backend") == "local")
    lines += ["", "One backend alone: the same program calling that backend's create function "
              "(options NULL; every other backend is dropped by the linker). `local` is about the "
              "shared core (resolver, spec, JSON writer, messages); \"over local\" is what the "
              "backend adds to it:", "",
              "| backend | text + data | over local | without unwind tables | over local |",
              "|---|---:|---:|---:|---:|"]
    for r in (r for r in programs if r.get("backend")):
        lines.append("| %s | %s | %s | %s | %s |" % (
            r["backend"], kib(r["text_data"]),
            "-" if r is core else signed_kib(r["text_data"] - core["text_data"]),
            kib(r["no_unwind"]),
            "-" if r is core else signed_kib(r["no_unwind"] - core["no_unwind"])))
    return lines


def heap_report(heap, args):
    sizes = args.sizes
    by = {(h["backend"], h["n"]): h for h in heap}
    backends = list(dict.fromkeys(h["backend"] for h in heap))
    big = max(sizes)
    lines = ["", "Heap to resolve N members: the most bytes live at once from "
              "`cres_*_resolver_create()` to the end of `cres_resolve()`, counted by a "
              "`cres_allocator` (requested sizes; HTTP bodies included, as a transport "
              "allocates them with the library's allocator; no network). Allocations and the "
              "in-process time (median of 5 create + resolve + free, canned answers) at "
              "%s:" % num(big), "",
              "| backend | reads | " + " | ".join("peak heap, %s" % num(n) for n in sizes) +
              " | bytes per member at %s | allocations at %s | requests at %s | input at %s "
              "| time at %s |" % ((num(big),) * 5),
              "|---|---|" + "---:|" * (len(sizes) + 5)]
    for b in backends:
        cells = []
        for n in sizes:
            h = by.get((b, n)) or (by.get((b, 1)) if b == "local" else None)
            cells.append(nbytes(h["peak"]) if h and (b != "local" or n == sizes[0]) else "")
        h = by.get((b, big)) or by.get((b, 1))
        members = h["n"]
        lines.append("| %s | %s | %s | %s | %s | %s | %s | %s |" % (
            b if members == big else "%s (%s task%s)" % (b, num(members), "" if members == 1 else "s"),
            SOURCES.get(b, ""), " | ".join(cells), num(round(h["peak"] / members)),
            num(h["allocs"]), h["requests"], nbytes(h["input_bytes"]), dur(h["us"])))
    lines += ["", "- Every resolve is checked to give N workers (local: 1) and to leave nothing "
              "allocated.",
              "- Kubernetes, GCE and TPU: the peak holds one HTTP answer at a time (a Kubernetes "
              "page of 500 pods is about 1 MiB here) plus its JSON tokens; pages are parsed one by "
              "one, so the peak grows with the members kept, not with the whole list.",
              "- The environment backends keep the variables' text out of the count (the process "
              "environment holds it); at 10,000 workers TF_CONFIG is about 185 KiB, past Linux's "
              "128 KiB limit for one variable, so that row is what a program passing the JSON "
              "through `options.json` or the getenv hook would see.",
              "- With a cres_allocator the library grows arrays by allocate-copy-free (it has no "
              "realloc); with the default CRES_MALLOC/CRES_REALLOC the peak can be a little "
              "lower."]
    return lines


def cpu_name():
    try:
        with open("/proc/cpuinfo") as f:
            return next(l.split(":", 1)[1].strip() for l in f if l.startswith("model name"))
    except (OSError, StopIteration):
        return "unknown CPU"


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--sizes", default="8,1000,10000", help="members, comma-separated")
    ap.add_argument("--compiles", type=int, default=5, help="compile runs per option (median)")
    ap.add_argument("--cc", default="gcc")
    ap.add_argument("--out", default=os.path.join(ROOT, "build", "bench", "footprint.md"))
    ap.add_argument("--json", metavar="FILE", help="also write the numbers and the report as JSON")
    ap.add_argument("--programs", action="store_true",
                    help="measure the small programs only (no object sizes, compile times, heap)")
    args = ap.parse_args(argv)
    args.sizes = parse_sizes(ap, args.sizes, "8,1000")
    if args.compiles < 1:
        ap.error("--compiles must be positive")
    started = time.perf_counter()
    heap = objects = None
    with tempfile.TemporaryDirectory(prefix="cres-bench-footprint-") as tmp:
        if not args.programs:
            print("... heap per backend", file=sys.stderr, flush=True)
            heap = measure_heap(args, tmp)
            print("... compiled size and compile time", file=sys.stderr, flush=True)
            objects = measure_objects(args, tmp)
        print("... small programs (gc-sections, compile switches)", file=sys.stderr, flush=True)
        programs = measure_programs(args, tmp)
    text = report(objects, programs, heap, args, time.perf_counter() - started)
    save_report(args.out, text)
    if args.json:
        save_json(args.json, {"bench": "footprint", "objects": objects, "programs": programs, "heap": heap,
                               "markdown": text})
    return 0


if __name__ == "__main__":
    sys.exit(main())
