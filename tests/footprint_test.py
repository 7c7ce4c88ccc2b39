#!/usr/bin/env python3
"""Size limits of small programs: builds each program tests/footprint_limits.txt names as
bench/footprint/run.py builds it (its program text, flags and compile switches) and fails when
text + data is over the limit, saying how to find what grew.

usage: python3 tests/footprint_test.py [--limits FILE] [--cc gcc] [--out DIR]
The sources and programs stay in DIR (build/footprint) for the commands a failure prints."""
import argparse
import os
import platform
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "bench", "footprint"))
sys.path.insert(0, os.path.join(ROOT, "bench"))
import run  # noqa: E402  bench/footprint/run.py: PROGRAM, PROGRAMS, program_command, text_data

RECORDED_FOR = "gcc 12.2 of Debian 12 (bookworm), x86_64"


def fail(msg):
    raise SystemExit("footprint_test: " + msg)


def read_limits(path):
    """[(program name, limit in bytes)] from lines "LIMIT NAME"; # starts a comment."""
    limits = []
    with open(path) as f:
        for number, line in enumerate(f, 1):
            line = line.split("#", 1)[0].strip()
            if not line:
                continue
            limit, _, name = line.partition(" ")
            if not limit.isdigit() or not name.strip():
                fail("%s:%d: expected a limit in bytes, then a program's name" % (path, number))
            limits.append((name.strip(), int(limit)))
    if not limits:
        fail("%s names no program" % path)
    return limits


def slug(name):
    """A file name for a program: "TF_CONFIG only" -> "tf-config-only"."""
    return "-".join("".join(c if c.isalnum() else " " for c in name.lower()).split())


def build(cc, name, out):
    """Builds program `name` of run.PROGRAMS into out; (source, program, switches)."""
    found = [p for p in run.PROGRAMS if p[0] == name]
    if not found:
        fail("no program %r in bench/footprint/run.py's PROGRAMS (known: %s)"
             % (name, "; ".join(p[0] for p in run.PROGRAMS)))
    _, create, switches = found[0]
    src = os.path.join(out, slug(name) + ".c")
    exe = os.path.join(out, slug(name))
    with open(src, "w") as f:
        f.write(run.PROGRAM % create)
    cmd = run.program_command(cc, src, exe, switches)
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode:
        fail("%s failed:\n%s" % (" ".join(cmd), p.stderr[-2000:]))
    return src, exe, switches


def how_to_look(cc, src, exe, switches):
    """What to run to see which sections the program keeps and why."""
    cmd = " ".join(run.program_command(cc, os.path.relpath(src, ROOT), os.path.relpath(exe, ROOT),
                                       switches))
    return "\n".join([
        "  to find what grew, link it again (from the repository's root) with a map and the list",
        "  of sections the linker dropped:",
        "    %s -Wl,-Map=%s.map -Wl,--print-gc-sections 2> %s.gc" % (
            cmd, os.path.relpath(exe, ROOT), os.path.relpath(exe, ROOT)),
        "  then look in the map for the .text.<function> and .rodata.<function>.str1.1 sections",
        "  kept (a string section of a function the program does not call is a literal that",
        "  function shares with one it does call; see \"Footprint\" in cluster_resolver.h),",
        "  `size -A %s` for the sections' sizes, and `strings %s` for texts that do not belong."
        % (os.path.relpath(exe, ROOT), os.path.relpath(exe, ROOT)),
        "  Comparing with the commit before shows what the change added."])


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--limits", default=os.path.join(ROOT, "tests", "footprint_limits.txt"))
    ap.add_argument("--cc", default="gcc")
    ap.add_argument("--out", default=os.path.join(ROOT, "build", "footprint"))
    args = ap.parse_args(argv)
    limits = read_limits(args.limits)
    os.makedirs(args.out, exist_ok=True)
    version = run.first_line([args.cc, "--version"])
    if not ("(Debian 12." in version and platform.machine() == "x86_64"):
        print("footprint_test: note: the limits are exact for %s; this is %s on %s, whose "
              "sizes differ (see %s)" % (RECORDED_FOR, version, platform.machine(),
                                         os.path.relpath(args.limits, ROOT)))
    over = []
    for name, limit in limits:
        src, exe, switches = build(args.cc, name, args.out)
        size = run.text_data(exe)
        if size > limit:
            over.append(name)
            print("footprint_test: FAIL %s: %s bytes of text + data, over its limit of %s by %s"
                  % (name, format(size, ","), format(limit, ","), format(size - limit, ",")))
            print(how_to_look(args.cc, src, exe, switches))
        else:
            print("footprint_test: ok %s: %s bytes (%.1f KiB), limit %s, %s under"
                  % (name, format(size, ","), size / 1024.0, format(limit, ","),
                     format(limit - size, ",")))
    if over:
        fail("%d of %d programs over their limits (%s)" % (len(over), len(limits), args.limits))
    print("footprint_test: %d programs within their limits" % len(limits))
    return 0


if __name__ == "__main__":
    sys.exit(main())
