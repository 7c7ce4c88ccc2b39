#!/usr/bin/env python3
"""Drift: auto's table of variables that say "one of several" (cres__several in
cluster_resolver.h) against its two descriptions, the manual's auto block (step 20, a
"- launcher: NAME NAME>1 ..." line per launcher) and the manual page's ENVIRONMENT, auto
(a .TP paragraph per launcher). Each must name exactly the table's variables, each once,
with the table's mark: none for being set, >1 for a count or a list (the table's ">1" or
its separator), >0 for an index.

usage: test_not_alone_docs.py [ROOT]     (ROOT: the repository, default this file's parent's)
"""
import os
import re
import sys

ROOT = sys.argv[1] if len(sys.argv) > 1 else os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
NAME = r"(?<![A-Za-z0-9_])(_?[A-Z][A-Za-z0-9]*(?:_[A-Za-z0-9]+)+)"


def fail(what):
    print("test_not_alone_docs: " + what, file=sys.stderr)
    sys.exit(1)


def table(header):
    """{variable: mark} of the static table in the header's source."""
    m = re.search(r"static const char cres__several\[\] =\n(.*?);\n#undef CRES__SAYS", header, re.S)
    if not m:
        fail("no cres__several table in cluster_resolver.h")
    body = re.sub(r"/\*.*?\*/", "", m.group(1), flags=re.S)
    rows = re.findall(r'CRES__SAYS\(\s*"([^"]+)",\s*"([^"]*)"\)', body)
    if len(rows) != body.count("CRES__SAYS(") or not body.count("CRES__SEVERAL("):
        fail("cres__several has rows this test cannot read")
    marks = {"": "", ">0": ">0", ">1": ">1", ",": ">1", ";": ">1", "\\n": ">1"}
    out = {}
    for name, how in rows:
        if name in out or how not in marks:
            fail("cres__several: %s listed twice or marked %r" % (name, how))
        out[name] = marks[how]
    return out


def listed(text, where):
    """{variable: mark} of NAME or NAME>N words, each variable once."""
    out = {}
    for name, mark in re.findall(NAME + r"\s*(>[01])?", text):
        if name in out:
            fail("%s names %s twice" % (where, name))
        out[name] = mark
    return out


def manual(header):
    """The manual's auto block: its "- launcher: ..." lines and their continuations."""
    block = header[header.index("      auto (cres_auto_options)"):header.index("      slurm (cres_slurm_options)")]
    text, indent = [], None
    for line in block.split("\n"):
        m = re.match(r"( *)- [^:]+: (.*)", line)
        if m:
            indent = len(m.group(1))
            text.append(m.group(2))
        elif indent is not None and len(line) - len(line.lstrip(" ")) > indent and line.strip():
            text.append(line)
        else:
            indent = None
    if not text:
        fail("the manual's auto block has no '- launcher: ...' lines")
    return listed("\n".join(text), "the manual")


def man_page(page):
    """ENVIRONMENT's auto subsection of the manual page, its .TP paragraphs."""
    m = re.search(r"\n\.SS auto\n(.*?)\n\.S[SH] ", page[page.index("\n.SH ENVIRONMENT\n"):], re.S)
    if not m:
        fail("the manual page's ENVIRONMENT has no auto subsection")
    paragraphs = m.group(1).split("\n.TP\n")[1:]
    if not paragraphs:
        fail("the manual page's ENVIRONMENT, auto, has no .TP paragraphs")
    text = "\n".join(p.split("\n", 1)[1] for p in paragraphs)  # the tag is the launcher
    text = re.sub(r"^\.[A-Z]+ ?", "", text, flags=re.M).replace('"', "").replace("\\ ", " ")
    return listed(text, "the manual page")


def compare(want, got, where):
    missing = sorted(set(want) - set(got))
    extra = sorted(set(got) - set(want))
    marks = sorted("%s: %r, not %r" % (n, got[n], want[n]) for n in set(want) & set(got) if got[n] != want[n])
    if missing or extra or marks:
        fail("%s against cres__several: missing %s; not in the table %s; marks %s" % (where, missing, extra, marks))


def main():
    with open(os.path.join(ROOT, "cluster_resolver.h")) as f:
        header = f.read()
    with open(os.path.join(ROOT, "docs", "cluster-resolve.1")) as f:
        page = f.read()
    want = table(header)
    if len(want) < 21:
        fail("cres__several has only %d rows" % len(want))
    compare(want, manual(header), "the manual's auto block")
    compare(want, man_page(page), "the manual page's ENVIRONMENT, auto")
    print("test_not_alone_docs: the manual and the manual page list the %d variables of cres__several" % len(want))


if __name__ == "__main__":
    main()
