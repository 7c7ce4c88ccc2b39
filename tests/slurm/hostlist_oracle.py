#!/usr/bin/env python3
"""cres_hostlist_expand against Slurm's own `scontrol show hostnames`, list by list.

usage: python3 tests/slurm/hostlist_oracle.py BUILD/expand_hostlist [--seed N] [--count N]
                                              [--show N] [-v]

It generates a fixed-seed corpus of hostlists of the shapes Slurm writes and users type (one
to five bracket groups, zero padding, lists and ranges inside brackets, text between and after
groups, dashes in names, comma, blank and tab separators, duplicates, plain names, names
without digits, broken lists) plus the fixed cases of TensorFlow's expand_hostlist tests and a
table of edge cases. Every list goes through `scontrol show hostnames` and, all at once, through
the C program (tests/slurm/expand_hostlist.c: one list per line in, one answer per line out).
For every list scontrol accepts, our hosts must be the same, in the same order; for every list
it rejects, ours must be an ERROR -- except the EXCEPTIONS below, each with its reason, where
the expected answer is stated instead (and, where it can be, still taken from scontrol: the
expansion of a name without its suffix, or of a range cut into pieces Slurm accepts).

scontrol must be installed (Debian: slurm-client); the test fails, never skips, without it.
`show hostnames` needs no daemon, only a readable configuration: the script writes a two-line
slurm.conf to a temporary directory and points SLURM_CONF at it. Small lists go to one
scontrol reading commands on stdin (about 1 ms a list); lists with blanks, tabs or quotes, and
lists with large expansions, get a process each (about 4 ms, plus output).
Prints a summary; exit status 1 on any mismatch (the first --show of them are printed).
Standard library only.
"""
import argparse
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile
import time

MAX_HOSTS = 1000000          # CRES_MAX_HOSTLIST_HOSTS
MAX_GROUPS = 16              # bracket groups in one name
ULONG_MAX = 2 ** 64 - 1
SLURM_MAX_RANGE = 65536      # Slurm's MAX_RANGE (MAX_SLURM_NODES) and MAX_PREFIX_CNT
SLURM_MAX_RANGES = 262144    # Slurm's MAX_RANGES: ranges in one group
SUFFIX_SINCE = (23, 2, 5)    # first Slurm that accepts text after the last group
SEPARATORS = " \t,"
WELL_FORMED_RANGE = re.compile(r"^[0-9]+(-[0-9]+)?$")

# Where our answer differs from scontrol's on purpose; expected() applies them.
EXCEPTIONS = {
    "brackets": "a ']' without '[', a '[' inside brackets or a '[' never closed: Slurm keeps "
                "the brackets as letters of a name (a]b, a[b[1] -> a[b1, a[1,x[2],3] -> "
                "a[1,x2 and 3]; before 23.02 it also turned n[1-3 into n]); no host name has "
                "brackets, so we reject the list",
    "bound": "a range other than N or N-M: Slurm reads numbers with strtoul and counts blanks, "
             "signs and trailing text in the zero padding (n[1, 2] -> n1 n02, n[+1] -> n01, "
             "n[1a-3] -> n01 n02 n03, n[0- -0] -> n0) and reads n[1-] as n1; surely typos, so "
             "we reject the list rather than invent or drop hosts",
    "huge": "a number of 2^64-1 or more in brackets: Slurm turns larger numbers into "
            "18446744073709551615 and a range ending there into its first host; we reject",
    "plain-huge": "a plain name ending in a number of 2^64-1 or more: Slurm rewrites the "
                  "number (n123456789012345678901234 -> n000018446744073709551615); we keep "
                  "the name as written",
    "groups": "more than 16 bracket groups in one name: we reject it (Slurm has no limit)",
    "ignored-error": "with three or more groups, Slurm ignores an error in any group but the "
                     "last two (it prints the error, skips the name or the rest of it, and "
                     "accepts the list); we reject the list",
    "slurm-limit": "more than 65,536 numbers in one range or in a group before the last, or "
                   "more than 262,144 ranges in one group: Slurm rejects the list (its "
                   "MAX_RANGE is MAX_SLURM_NODES, the most nodes one cluster can have), we "
                   "expand it up to our own 1,000,000-host limit; checked against scontrol with "
                   "the range, or the name, cut into pieces Slurm accepts",
    "limit": "more than 1,000,000 hosts: CRES_ERR_LIMIT, decided before expanding",
    "suffix": "text after the last bracket group (gpu[1-2]-ib): Slurm accepts it since "
              "23.02.5 (NEWS: 'Allow for a shared suffix to be used with the hostlist format. "
              "E.g., \"node[0001-0010]-int\"') and rejects it before; we follow the newer rule, "
              "checked against an older scontrol as the expansion of the name without the "
              "text, the text appended to every host",
}
# Kinds of list we reject whatever Slurm says.
WE_REJECT = ("brackets", "bound", "huge", "groups")


def fail(msg):
    raise SystemExit("hostlist_oracle: " + msg)


# ---------------------------------------------------------------------------------------
# Reading a hostlist as far as the rules above need (to classify and count, never to expand)

def split_names(text):
    """The names of a list, split at separators outside brackets; None when brackets are
    unbalanced, nested or stray."""
    names, cur, inside = [], [], False
    for ch in text:
        if ch == "[":
            if inside:
                return None
            inside = True
        elif ch == "]":
            if not inside:
                return None
            inside = False
        elif ch in SEPARATORS and not inside:
            if cur:
                names.append("".join(cur))
                cur = []
            continue
        cur.append(ch)
    if inside:
        return None
    if cur:
        names.append("".join(cur))
    return names


def name_parts(name):
    """(texts, groups): name == texts[0] [groups[0]] texts[1] ... [groups[-1]] texts[-1]."""
    parts = re.split(r"\[([^\]]*)\]", name)
    return parts[0::2], parts[1::2]


def ranges(group):
    """[(lo, hi, lo as written)] of a well-formed group."""
    out = []
    for item in group.split(","):
        lo, _, hi = item.partition("-")
        out.append((int(lo), int(hi or lo), lo))
    return out


def well_formed(name):
    texts, groups = name_parts(name)
    return all(WELL_FORMED_RANGE.match(item) and max(map(int, re.findall("[0-9]+", item))) < ULONG_MAX
               for g in groups for item in g.split(",")) and len(groups) <= MAX_GROUPS


def group_sizes(name):
    return [sum(hi - lo + 1 for lo, hi, _ in ranges(g)) for g in name_parts(name)[1]]


def count_hosts(text):
    """Hosts of a list whose names are all well formed (None otherwise; capped)."""
    names = split_names(text)
    if names is None or not all(map(well_formed, names)):
        return None
    total = 0
    for name in names:
        n = 1
        for size in group_sizes(name):
            n = min(n * size, 10 ** 12)
        total += n
    return total


def over_slurm_limits(name):
    groups = name_parts(name)[1]
    sizes = group_sizes(name)
    return (any(hi - lo + 1 > SLURM_MAX_RANGE for g in groups for lo, hi, _ in ranges(g)) or
            any(size > SLURM_MAX_RANGE for size in sizes[:-1]) or
            any(len(g.split(",")) > SLURM_MAX_RANGES for g in groups))


def classify(text, version):
    """The exception kinds whose shape this list has (before looking at scontrol's answer)."""
    kinds = set()
    names = split_names(text)
    if names is None:
        return {"brackets"}
    for name in names:
        texts, groups = name_parts(name)
        if len(groups) > MAX_GROUPS:
            kinds.add("groups")
        if groups and texts[-1] and version < SUFFIX_SINCE:
            kinds.add("suffix")
        for group in groups:
            for item in group.split(","):
                if not WELL_FORMED_RANGE.match(item):
                    kinds.add("bound")
                if any(int(d) >= ULONG_MAX for d in re.findall(r"[0-9]+", item)):
                    kinds.add("huge")
        if not groups:
            digits = re.search(r"[0-9]+$", name)
            if digits and int(digits.group()) >= ULONG_MAX:
                kinds.add("plain-huge")
        elif not kinds & set(WE_REJECT) and over_slurm_limits(name):
            kinds.add("slurm-limit")
    return kinds


def cut_range(lo, hi, lo_text, most):
    """lo-hi as pieces of at most `most` numbers; each piece keeps the original padding
    (widths only ever pad, so a piece starting at a longer number prints the same)."""
    width = len(lo_text)
    out = []
    while lo <= hi:
        top = min(hi, lo + most - 1)
        start = str(lo).rjust(width, "0")
        out.append((lo, top, start if top == lo else "%s-%d" % (start, top)))
        lo = top + 1
    return out


def slurm_pieces(name, version):
    """The names to ask scontrol for, each with the text to append to its hosts, whose
    expansions in turn make ours of `name`; None when there is no such cut."""
    texts, groups = name_parts(name)
    suffix = ""
    if groups and texts[-1] and version < SUFFIX_SINCE:
        suffix, name = texts[-1], name[:len(name) - len(texts[-1])]
        texts = texts[:-1] + [""]
    if not groups or not over_slurm_limits(name):
        return [(name, suffix)]
    pieces = []  # the groups with every range cut to Slurm's size
    for g in groups:
        pieces.append([p for lo, hi, t in ranges(g) for p in cut_range(lo, hi, t, SLURM_MAX_RANGE)])
    if any(len(p) > SLURM_MAX_RANGES for p in pieces):
        return None
    # a group before the last may hold 65,536 numbers in all; when only the slowest one (the
    # one before the last) holds more, cut the name into several names along it
    sizes = [sum(hi - lo + 1 for lo, hi, _ in p) for p in pieces]
    slow = len(groups) - 2
    if any(size > SLURM_MAX_RANGE for i, size in enumerate(sizes[:-1]) if i != slow):
        return None
    chunks = [pieces[slow]] if slow < 0 or sizes[slow] <= SLURM_MAX_RANGE else []
    if not chunks:
        chunk, used = [], 0
        for lo, hi, t in pieces[slow]:
            while lo <= hi:
                take = min(hi - lo + 1, SLURM_MAX_RANGE - used)
                top = lo + take - 1
                start = str(lo).rjust(len(t.split("-")[0]), "0")
                chunk.append((lo, top, start if top == lo else "%s-%d" % (start, top)))
                used += take
                lo = top + 1
                if used == SLURM_MAX_RANGE:
                    chunks.append(chunk)
                    chunk, used = [], 0
        if chunk:
            chunks.append(chunk)
    out = []
    for chunk in chunks:
        text = texts[0]
        for i, p in enumerate(pieces):
            text += "[" + ",".join(t for _, _, t in (chunk if i == slow else p)) + "]" + texts[i + 1]
        out.append((text, suffix))
    return out


# ---------------------------------------------------------------------------------------
# The corpus

TF_CASES = [  # TensorFlow's slurm_cluster_resolver_test.py, testExpandHostlist
    "n1",
    "n[1,3]",
    "n[1-3]",
    "n[1-2],m5,o[3-4,6,7-9]",
    "n[0001-0003],m5,o[009-011]",
]

EDGE_CASES = [
    # order with several groups
    "a[1-2]b[1-2]", "a[1-2]b[1-2]c[1-2]", "a[1-2]b[1-2]c[1-2]d[1-2]",
    "a[1-2]b[1-2]c[1-2]d[1-2]e[1-2]", "r[1-3]n[1-2]g[0-1]", "n[1][2]", "n[1-2][3-4][5-6]",
    "x[1-2]-ib[3]", "rack[1-2]-node[01-03]", "a[1,3]b[2]c[4-5]", "s[3,1]c[2,1]n[9,8]",
    "n" + "[0-1]" * 5, "n" + "[1]" * 16, "n" + "[1]" * 17,
    # text after the last group
    "n[1]x", "n[1-2]-ib", "gpu[01-02]-ib,cpu[1-2]", "a[1-2]b[3-4]-ib", "[1-2]x", "n[1-2]0",
    # zero padding
    "n[1-010]", "n[08-12]", "n[9-11]", "n[009-11]", "n[1-3,04-05]", "n[099-101]", "n[0-0]",
    "n[00-02]", "n[000]", "n9,n010", "n[9],n[10]", "n1[2],n01[3]", "n[01-2]m[1-002]",
    "n[00000000000000000000001]", "n[0000000000000000000000000000000001-3]",
    # ranges, lists, duplicates
    "n[5-3]", "n[3-3]", "n[1-]", "n[3,1,2]", "n[1,1,1]", "n[1-3,2-4]", "n1,n1,n[1-2],n1",
    "n[1-2],n[1-2]", "n[0]",
    # malformed inside brackets
    "n[]", "n[1,]", "n[,1]", "n[1,,2]", "n[-]", "n[-1]", "n[1--3]", "n[1-2-3]", "n[a]",
    "n[1-a]", "n[1x]", "n[0x1]", "n[1-3x]", "n[1 ]", "n[1e3]", "n[1.5]", "n[ 1]", "n[+1]",
    "n[1, 2]", "n[1-+3]", "n[1a-3]", "n[0- -0]", "n[\t1]",
    # brackets in odd places
    "[1-3]", "[1-2],[5]", "[]", "a]b", "a]b[1,2]", "a[1,x[2],3]", "a[b[1]", "n[1]]",
    "n]1[2]", "n[1[2]]", "n[1-3", "a[1,2", "n[", "n]", "[", "]", "a[1]b]", "n[1-2]c[",
    # errors in groups other than the last two
    "a[x]b[1]c[1]", "a[1]b[x]c[1]", "a[1]b[1]c[x]", "a[5-3]b[1]c[1]d[1]",
    # separators and empty lists
    "", ",", ",,,", "n1,,n2", ",n1,", "n1 n2", "n1\tn2", " n1 , n2 ", "n[1-2] m[3-4]",
    "n[1-2]\t\tm1", "n1, n2,\tn3", "n[1,2] ,m[1]",
    # plain names
    "login", "head-node", "a-b-c", "x1y2", "master.example.com", "007", "n0", "n007", "10",
    "n-5", "a.b-1", "node_1", "n1x", "login,n[1-2],login",
    # very long numbers
    "n[18446744073709551614]", "n[18446744073709551613-18446744073709551614]",
    "n[18446744073709551615]", "n[18446744073709551614-18446744073709551615]",
    "n[18446744073709551616]", "n[99999999999999999999]", "n123456789012345678901234",
    "n18446744073709551614,n18446744073709551615", "n[1000000000000000000-1000000000000000002]",
    "n[4294967295-4294967297]",
    # Slurm's limits (65,536 numbers in a range and in a group before the last) and ours
    # (1,000,000 hosts)
    "n[1-65536]", "n[0-65535]", "n[1-65537]", "n[1-65536,65537-70000]", "n[001-100000]",
    "a[1-65536]b[1]", "a[1-65537]b[1]", "a[1-60000,60001-65537]b[1-2]", "a[1-3]b[1-60000]",
    "x[1-2]y[1-70000]-ib", "a[1-16]b[1-62500]", "a[1-16]b[1-62501]", "n[0-999999999]",
    "n[1-600000],m[1-400000]", "n[1-600000],m[1-400001]",
]

PREFIXES = ["n", "node", "cn", "gpu", "compute-", "tux", "r", "rack", "nid", "a1b", "x-",
            "ib-", "hpc-node-", "c", "dgx", "sn", "ip-10-0-", "z", "", "worker-"]
BETWEEN = ["", "-", "n", "-n", "s", "c", "_", ".", "x1-", "-gpu", "r2n", "b", "-ib-"]
SUFFIXES = ["-ib", "-int", ".ib", "x", "a1", "-ib0", "-eth1", ".cluster", "-2"]
PLAIN = ["n1", "node007", "login", "head-node", "gpu01-ib", "10", "a-b-c", "x1y2",
         "master.example.com", "n0", "007", "tux-12", "c1-2", "node", "n1x2y3"]
SEPS = [",", ",", ",", " ", "\t", ", ", ",,", "  ", " ,", ",\t"]


def random_group(rng, budget):
    """Text inside one bracket pair, standing for at most about `budget` hosts."""
    items, total = [], 0
    for _ in range(rng.choice([1, 1, 1, 2, 2, 3, 4])):
        lo = rng.choice([0, 1, 1, 2, 5, 7, 8, 9, 10, 12, 99, 100, 123, 998, 1000])
        span = rng.choice([0, 0, 1, 2, 3, 5, 8, 15])
        span = min(span, max(0, budget // max(1, len(items) + 1) - 1))
        width = max(rng.choice([0, 0, 0, 2, 2, 3, 4]), len(str(lo)))
        if rng.random() < 0.1:  # an upper bound written with another width
            hi_text = str(lo + span).rjust(rng.choice([1, 3, 5]), "0")
        else:
            hi_text = str(lo + span).rjust(width, "0")
        items.append(str(lo).rjust(width, "0") + ("-" + hi_text if span or rng.random() < 0.1 else ""))
        total += span + 1
    if rng.random() < 0.15:
        rng.shuffle(items)
    return ",".join(items), total


def random_name(rng, groups, suffix_chance):
    text, count = rng.choice(PREFIXES), 1
    for g in range(groups):
        body, n = random_group(rng, max(1, 400 // count))
        count *= n
        text += "[" + body + "]"
        if g + 1 < groups:
            text += rng.choice(BETWEEN)
    if rng.random() < suffix_chance:
        text += rng.choice(SUFFIXES)
    return text


# A valid name, broken one way: (name, rng) -> text.
MUTATIONS = [
    lambda s, r: re.sub(r"\[([0-9]+)-([0-9]+)", lambda m: "[%s-%s" % (m.group(2), m.group(1))
                        if int(m.group(2)) > int(m.group(1)) else "[9-1", s, count=1),  # backwards
    lambda s, r: s.replace("[", "[]x[", 1),            # empty brackets
    lambda s, r: s.replace("]", ",]", 1),              # empty last item
    lambda s, r: s.replace("[", "[,", 1),              # empty first item
    lambda s, r: s.replace("[", "[1,,", 1),            # empty item between
    lambda s, r: s.replace("]", "a]", 1),              # a letter
    lambda s, r: s.replace("[", "[1--", 1),            # a negative number
    lambda s, r: s[:s.rfind("]")] + s[s.rfind("]") + 1:],  # a '[' never closed
    lambda s, r: s.replace("]", "]]", 1),              # a stray ']'
    lambda s, r: s.replace("[", "[1[2]", 1),           # brackets in brackets
    lambda s, r: "x[" + s,                             # a stray '['
    lambda s, r: s.replace("[", "[0x", 1),             # Slurm's box syntax
    lambda s, r: s.replace(",", ", ", 1) if "," in s else s.replace("[", "[ ", 1),  # a blank
    lambda s, r: s.replace("[", "[+", 1),              # a sign
    lambda s, r: s.replace("]", "-]", 1),              # an open range
    lambda s, r: s.replace("[", "[1-70000,", 1),       # over 65,536 in one range
    lambda s, r: s + r.choice(SUFFIXES),               # text after the last group
    lambda s, r: s + "7",                              # digits after the last group
]


def corpus(seed, count):
    rng = random.Random(seed)
    generated = []
    while len(generated) < count:
        kind = rng.random()
        if kind < 0.35:     # one name, one to five groups
            text = random_name(rng, rng.choice([1, 1, 2, 2, 3, 4, 5]), 0.15)
        elif kind < 0.75:   # several names, some plain, some repeated
            names = []
            for _ in range(rng.randint(2, 6)):
                r = rng.random()
                if r < 0.2:
                    names.append(rng.choice(PLAIN))
                elif r < 0.3 and names:
                    names.append(rng.choice(names))
                else:
                    names.append(random_name(rng, rng.choice([1, 1, 1, 2, 2, 3]), 0.1))
            text = names[0]
            for name in names[1:]:
                text += rng.choice(SEPS) + name
            if rng.random() < 0.1:
                text = rng.choice(SEPS) + text + rng.choice(SEPS)
        elif kind < 0.82:   # plain names only
            text = rng.choice([",", " "]).join(rng.choice(PLAIN) for _ in range(rng.randint(1, 5)))
        else:               # a valid list, broken one way
            text = rng.choice(MUTATIONS)(random_name(rng, rng.choice([1, 1, 2, 3]), 0.0), rng)
            if rng.random() < 0.3:
                text = random_name(rng, 1, 0.0) + "," + text
        names = split_names(text)
        if names and any(well_formed(n) and over_slurm_limits(n) and slurm_pieces(n, (0, 0, 0)) is None
                         for n in names):
            continue  # beyond Slurm's limits in a way scontrol cannot check
        generated.append(text)
    return TF_CASES + EDGE_CASES + generated


# ---------------------------------------------------------------------------------------
# scontrol

class Answer:
    def __init__(self):
        self.hosts = []
        self.rejected = False
        self.errors = []   # "scontrol: error: ..." lines printed for this list

    @property
    def accepted(self):
        return not self.rejected


def scontrol_version(scontrol, env):
    out = subprocess.run([scontrol, "--version"], env=env, capture_output=True, text=True).stdout
    m = re.search(r"(\d+)\.(\d+)\.(\d+)", out)
    if not m:
        fail("cannot read the version from `scontrol --version`: %r" % out)
    return tuple(int(x) for x in m.groups())


def batchable(text):
    """Whether scontrol's command reader passes the list on unchanged: it splits at blanks
    and keeps quotes, readline binds tab and control characters, and an empty argument means
    $SLURM_NODELIST. Large expansions are faster alone, with stdout buffered."""
    n = count_hosts(text)
    return (text and all(33 <= ord(c) <= 126 for c in text) and '"' not in text and "'" not in text
            and (n is None or n <= 2000 or len(text) > 100000))


def run_alone(scontrol, env, text):
    p = subprocess.run([scontrol, "--", "show", "hostnames", text], env=env, capture_output=True, text=True)
    a = Answer()
    a.hosts = p.stdout.split("\n")[:-1]
    for line in p.stderr.splitlines():
        if line == "Invalid hostlist: " + text or "fatal:" in line:
            a.rejected = True
        elif "error:" in line:
            a.errors.append(line)
        else:
            fail("unexpected stderr from scontrol for %r: %r" % (text, line))
    if p.returncode != 0:
        a.rejected = True
    return a


def run_batch(scontrol, env, texts):
    """One scontrol reading `show hostnames X` lines on stdin, stdout unbuffered and stderr on
    the same pipe, so each answer follows the echo of its command. Returns the answers it
    got; a fatal error ends the process, and the caller runs the rest again."""
    stdin = "".join("show hostnames %s\n" % t for t in texts)
    # readline echoes each command; a screen this wide keeps it from wrapping the echo
    env = dict(env, COLUMNS="100000000", LINES="100000000")
    p = subprocess.run(["stdbuf", "-o0", scontrol], input=stdin, env=env, stdout=subprocess.PIPE,
                       stderr=subprocess.STDOUT, text=True)
    if "\x1b" in p.stdout:
        fail("readline wrote terminal escapes into scontrol's output (TERM=%s)" % env.get("TERM"))
    answers, cur = [], None
    for line in p.stdout.split("\n"):
        if len(answers) < len(texts) and line == "scontrol: show hostnames " + texts[len(answers)]:
            cur = Answer()
            answers.append(cur)
        elif line in ("scontrol: ", ""):
            continue
        elif cur is None:
            fail("unexpected scontrol output before the first command: %r" % line)
        elif line == "Invalid hostlist: " + texts[len(answers) - 1]:
            cur.rejected = True
        elif line.startswith("scontrol: fatal:"):
            cur.rejected = True
            cur.errors.append(line)
            break
        elif line.startswith("scontrol: error:"):
            cur.errors.append(line)
        else:
            cur.hosts.append(line)
    return answers


def ask_scontrol(scontrol, env, texts, batch_size=400):
    answers, queue, processes = {}, [], 0
    for t in dict.fromkeys(texts):
        if batchable(t):
            queue.append(t)
        else:
            answers[t] = run_alone(scontrol, env, t)
            processes += 1
    while queue:
        batch, queue = queue[:batch_size], queue[batch_size:]
        got = run_batch(scontrol, env, batch)
        processes += 1
        if not got:
            fail("scontrol answered nothing for %r" % batch[0][:80])
        for t, a in zip(batch, got):
            answers[t] = a
        queue = batch[len(got):] + queue  # after a fatal error: the rest again
    return answers, processes


# ---------------------------------------------------------------------------------------
# What we must answer

ERROR, LIMIT = "ERROR CRES_ERR_INVALID_ARGUMENT", "ERROR CRES_ERR_LIMIT"


def expected(text, answers, version):
    """(hosts, or an ERROR line; the exception applied or None)."""
    a = answers.get(text)
    kinds = classify(text, version)
    if a is not None and a.accepted:
        for kind in WE_REJECT:
            if kind in kinds:
                return ERROR, kind
        if a.errors:
            return ERROR, "ignored-error"
        if len(a.hosts) > MAX_HOSTS:
            return LIMIT, "limit"
        if "plain-huge" in kinds:
            return split_names(text), "plain-huge"
        return a.hosts, None
    if kinds & set(WE_REJECT) or not kinds & {"suffix", "slurm-limit"}:
        return ERROR, None
    kind = "slurm-limit" if "slurm-limit" in kinds else "suffix"
    n = count_hosts(text)
    if n is not None and n > MAX_HOSTS:
        return LIMIT, kind
    hosts = []
    for name in split_names(text):
        pieces = slurm_pieces(name, version)
        if pieces is None:
            fail("cannot check %s against scontrol (beyond Slurm's limits in a way no cut of "
                 "the name can show)" % show(text))
        for query, suffix in pieces:
            want, _ = expected(query, answers, version)
            if isinstance(want, str):
                return want, kind
            hosts += [h + suffix for h in want]
    return hosts, kind


def derived_queries(text, version):
    """Further lists scontrol must answer to check `text`."""
    kinds = classify(text, version)
    if kinds & set(WE_REJECT) or not kinds & {"suffix", "slurm-limit"}:
        return []
    n = count_hosts(text)
    if n is not None and n > MAX_HOSTS:
        return []
    return [q for name in split_names(text) for q, _ in slurm_pieces(name, version) or []]


def show(text, limit=160):
    r = repr(text)
    return r if len(r) <= limit else r[:limit] + "...(%d chars)" % len(text)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("binary", help="the built tests/slurm/expand_hostlist.c")
    ap.add_argument("--seed", type=int, default=20261121)
    ap.add_argument("--count", type=int, default=700, help="generated lists (fixed cases come on top)")
    ap.add_argument("--show", type=int, default=8, help="mismatches to print")
    ap.add_argument("-v", "--verbose", action="store_true", help="print every exception applied")
    args = ap.parse_args()
    started = time.perf_counter()

    scontrol = shutil.which("scontrol")
    if not scontrol:
        fail("scontrol not found: install Slurm's client (Debian: apt-get install slurm-client)")
    if not shutil.which("stdbuf"):
        fail("stdbuf not found (coreutils)")
    if not os.access(args.binary, os.X_OK):
        fail("%s is not an executable (build tests/slurm/expand_hostlist.c first)" % args.binary)
    texts = corpus(args.seed, args.count)
    if any("\n" in t or "\r" in t for t in texts):
        fail("a list holds a line break; the C program reads one list per line")

    with tempfile.TemporaryDirectory(prefix="cres-hostlist-") as tmp:
        conf = os.path.join(tmp, "slurm.conf")
        with open(conf, "w") as f:  # all `show hostnames` needs; no daemon is contacted
            f.write("ClusterName=hostlist-oracle\nSlurmctldHost=localhost\n")
        env = dict(os.environ, SLURM_CONF=conf)
        env.pop("SLURM_NODELIST", None)
        version = scontrol_version(scontrol, env)
        queries = list(texts)
        for t in texts:
            queries += derived_queries(t, version)
        t0 = time.perf_counter()
        answers, processes = ask_scontrol(scontrol, env, queries)
        scontrol_s = time.perf_counter() - t0

    t0 = time.perf_counter()
    p = subprocess.run([args.binary], input="".join(t + "\n" for t in texts), capture_output=True, text=True)
    ours_s = time.perf_counter() - t0
    if p.returncode != 0:
        fail("%s exited with %d: %s" % (args.binary, p.returncode, p.stderr.strip()[:2000]))
    ours = p.stdout.split("\n")
    if len(ours) != len(texts) + 1 or ours[-1] != "":
        fail("%s printed %d lines for %d lists" % (args.binary, len(ours) - 1, len(texts)))

    accepted = 0
    used, mismatches = {}, []
    for text, line in zip(texts, ours):
        a = answers[text]
        accepted += a.accepted
        want, kind = expected(text, answers, version)
        if kind:
            used[kind] = used.get(kind, 0) + 1
            if args.verbose:
                print("exception %-13s %s" % (kind, show(text, 100)))
        if isinstance(want, str):
            ok = line == want
        else:
            ok = not line.startswith("ERROR ") and (line.split(" ") if line else []) == want
        if not ok:
            mismatches.append((text, a, line, want, kind))

    print("hostlist oracle: %d lists (seed %d) against scontrol %s: %d accepted, %d rejected "
          "by scontrol; %d under documented exceptions; %d mismatches" %
          (len(texts), args.seed, "%d.%02d.%d" % version, accepted, len(texts) - accepted,
           sum(used.values()), len(mismatches)))
    if used:
        print("  exceptions: " + ", ".join("%s %d" % kv for kv in sorted(used.items())))
    print("  time: scontrol %.2f s (%d lists in %d processes), ours %.2f s (one process), total %.2f s" %
          (scontrol_s, len(set(queries)), processes, ours_s, time.perf_counter() - started))
    for text, a, line, want, kind in mismatches[:args.show]:
        print("\nMISMATCH %s" % show(text))
        print("  scontrol: %s%s" % ("rejected" if a.rejected else show(" ".join(a.hosts), 300),
                                    " (errors: %s)" % a.errors[:2] if a.errors else ""))
        print("  expected: %s%s" % (want if isinstance(want, str) else show(" ".join(want), 300),
                                    " (exception: %s)" % kind if kind else ""))
        print("  ours:     %s" % show(line, 300))
    if mismatches:
        sys.exit(1)


if __name__ == "__main__":
    main()
