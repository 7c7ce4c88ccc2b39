#!/usr/bin/env python3
"""Seeds for a libFuzzer target of tests/fuzz/, derived from the project's test fixtures.

usage: fixture_seeds.py NAME OUTDIR

Writes up to 200 seeds for target NAME (fuzz_NAME.c) into OUTDIR, each encoded in the input
format the top comment of tests/fuzz/fuzz_NAME.c defines, at most 64 KiB (less where the
target reads less), and named "<source>-<hash of its bytes>". Seeds equal to a hand-written
one of tests/fuzz/corpus/NAME/ are left out. The same fixtures give the same files.

Nothing here is typed in by hand; the seeds come from
  - the C unit tests (tests/test_*.c), replayed by a small interpreter: every resolver a test
    creates is recorded with the environment, options, files and scripted HTTP answers it was
    given (tests/test_kubeconfig.c: its kubeconfig files and exec plugin answers), and so is
    every string a test hands to the hostlist and JSON readers; string literals that are JSON
    documents are collected too;
  - the fixture generators, called with the arguments the Python tests give them:
    tests/k8s/make_pods.py (pages, Jobs and JobSets as tests/fake_api.py serves them; the Jobs
    also for the own pods a target names), tests/gcp/make_gcp.py
    (pages as tests/gcp/fake_gcp.py serves them), the fixed-seed hostlist corpus of
    tests/slurm/hostlist_oracle.py;
  - the fixture files (tests/k8s/fixtures/*.json) and the documents, environments and files
    of tests/test_cli.py, tests/mpi/test_mpi.py and the GCP integration tests.
Test modules are read, or imported only where their main is guarded: no test runs, no server
starts. Standard library only.
"""
import ast
import glob
import hashlib
import json
import os
import re
import sys
from collections import namedtuple

sys.dont_write_bytecode = True  # importing the fixture modules leaves nothing in the tree

HERE = os.path.dirname(os.path.abspath(__file__))
TESTS = os.path.dirname(HERE)
ROOT = os.path.dirname(TESTS)
for _sub in ("", "k8s", "gcp", "slurm"):
    sys.path.insert(0, os.path.join(TESTS, _sub))

import fake_api  # noqa: E402
import fake_gcp  # noqa: E402
import hostlist_oracle  # noqa: E402
import make_gcp  # noqa: E402
import make_pods  # noqa: E402

MAX_SEEDS = 200
MIN_SEEDS = 20   # every target gets at least this many today (hostfile: 28)
MAX_BYTES = 64 * 1024
# What the targets read at most (their MAX_INPUT_BYTES); longer inputs would be skipped.
TARGET_MAX_BYTES = {"slurm_env": 4096, "hostfile": 8192, "sm_hosts": 8192, "launch_env": 4096,
                    "sched_files": 32768,
                    "platform_env": 8192}
HOSTLIST_ORACLE_SEED = 20261121  # hostlist_oracle.py's default --seed
# Hostlists that expand to more hosts than this make every run of the target slow; those over
# the library's 1,000,000-host limit are kept (they are refused before expanding).
MAX_EXPANDED_HOSTS = 10000

# A resolver a test made: its backend, environment, options, and the HTTP answers scripted
# in its test (a list that keeps growing while the test runs).
Snapshot = namedtuple("Snapshot", "backend env opts routes source")


def tag_of(path):
    return os.path.splitext(os.path.basename(path))[0]


def read(path):
    with open(path, encoding="utf-8") as f:
        return f.read()


def latin1(data):
    """Bytes as a str of one character per byte: how C strings are kept here."""
    return data.decode("latin-1")


def json_text(s):
    """The JSON value of a C string, or None."""
    try:
        return json.loads(s.encode("latin-1").decode("utf-8"))
    except (UnicodeDecodeError, ValueError):
        return None


def dq(s):
    """The C tests' dq(): JSON written with single quotes, turned into real JSON."""
    return s.replace("'", '"')


# =============================================================================================
# C sources: tokens, macros, top-level definitions

C_TOKEN = re.compile(r"""
    (?P<skip>\s+|//[^\n]*|/\*.*?\*/)
  | (?P<pp>\#(?:\\\n|[^\n])*)
  | (?P<str>"(?:\\.|[^"\\\n])*")
  | (?P<chr>'(?:\\.|[^'\\\n])*')
  | (?P<num>0[xX][0-9a-fA-F]+|[0-9]+(?:\.[0-9]*)?(?:[eE][-+]?[0-9]+)?)[uUlLfF]*
  | (?P<id>[A-Za-z_]\w*)
  | (?P<op>\.\.\.|->|\+\+|--|&&|\|\||<<=?|>>=?|[<>=!+\-*/%&|^]=|[-+*/%<>=!&|^~?:;,.(){}\[\]])
""", re.S | re.X)
C_ESCAPE = re.compile(rb"\\(x[0-9a-fA-F]+|u[0-9a-fA-F]{4}|[0-7]{1,3}|.)", re.S)
C_SIMPLE_ESCAPES = {b"n": b"\n", b"t": b"\t", b"r": b"\r", b"a": b"\a", b"b": b"\b",
                    b"f": b"\f", b"v": b"\v"}
DEFINE = re.compile(r"#\s*define\s+(\w+)(\(([^)]*)\))?(.*)", re.S)
OPENERS, CLOSERS = "([{", ")]}"


def c_tokens(text):
    out, pos = [], 0
    while pos < len(text):
        m = C_TOKEN.match(text, pos)
        if not m:  # a stray character (a line-continuation backslash): no token
            pos += 1
            continue
        pos = m.end()
        if m.lastgroup != "skip":
            out.append((m.lastgroup, m.group(m.lastgroup)))
    return out


def c_escape(m):
    e = m.group(1)
    if e[:1] == b"x":
        return bytes([int(e[1:], 16) & 0xFF])
    if e[:1] == b"u":
        return chr(int(e[1:], 16)).encode("utf-8")
    if e[:1].isdigit() and e[:1] < b"8":
        return bytes([int(e, 8) & 0xFF])
    return C_SIMPLE_ESCAPES.get(e, e)


def c_string(token):
    """A string literal's bytes, as a latin-1 str."""
    return latin1(C_ESCAPE.sub(c_escape, token[1:-1].encode("utf-8")))


def match(tokens, i):
    """The index of the bracket closing the one at tokens[i]."""
    depth = 0
    for j in range(i, len(tokens)):
        t = tokens[j][1]
        if tokens[j][0] == "op" and t in OPENERS:
            depth += 1
        elif tokens[j][0] == "op" and t in CLOSERS:
            depth -= 1
            if depth == 0:
                return j
    raise EvalError("unbalanced brackets")


def split_top(tokens, sep):
    """tokens split at `sep` outside brackets."""
    parts, cur, depth = [], [], 0
    for tok in tokens:
        if tok[0] == "op" and tok[1] in OPENERS:
            depth += 1
        elif tok[0] == "op" and tok[1] in CLOSERS:
            depth -= 1
        if depth == 0 and tok == ("op", sep):
            parts.append(cur)
            cur = []
        else:
            cur.append(tok)
    parts.append(cur)
    return parts


class Macro:
    """A #define. Only macros that stand for an expression are expanded (string pieces,
    constants, calls); statement macros (do { } while (0), stringizing) stay calls."""

    def __init__(self, pp):
        m = DEFINE.match(pp.replace("\\\n", " "))
        self.name = m.group(1)
        self.params = None if m.group(2) is None else [
            p.strip() for p in m.group(3).split(",") if p.strip()]
        self.body = c_tokens(m.group(4))
        statement = any(k == "pp" or t in (";", "{", "do") for k, t in self.body)
        self.expands = bool(self.body) and not statement


def expand(tokens, macros, active=frozenset()):
    out, i = [], 0
    while i < len(tokens):
        kind, text = tokens[i]
        macro = macros.get(text) if kind == "id" and text not in active else None
        if macro is None or not macro.expands:
            out.append(tokens[i])
            i += 1
        elif macro.params is None:
            out += expand(macro.body, macros, active | {text})
            i += 1
        elif i + 1 < len(tokens) and tokens[i + 1] == ("op", "("):
            end = match(tokens, i + 1)
            args = [expand(a, macros, active) for a in split_top(tokens[i + 2:end], ",")]
            out += expand(substitute(macro, args), macros, active | {text})
            i = end + 1
        else:
            out.append(tokens[i])
            i += 1
    return out


def substitute(macro, args):
    bound = {}
    for n, p in enumerate(macro.params):
        if p == "...":
            rest = args[n:]
            bound["__VA_ARGS__"] = [t for k, a in enumerate(rest) for t in (a if k == 0 else
                                                                           [("op", ",")] + a)]
        elif n < len(args):
            bound[p] = args[n]
    body = []
    for tok in macro.body:
        body += bound.get(tok[1], [tok]) if tok[0] == "id" else [tok]
    return body


def library_constants():
    """The numeric #defines of cluster_resolver.h (CRES_NO_GPUS and friends)."""
    text = read(os.path.join(ROOT, "cluster_resolver.h"))
    return {m.group(1): Macro(m.group(0)) for m in
            re.finditer(r"#\s*define\s+(CRES_\w+)[ \t]+\(?-?[0-9]+\)?[ \t]*$", text, re.M)}


# An #include of a header of tests/ ("test_util.h"; not "../cluster_resolver.h").
LOCAL_INCLUDE = re.compile(r'^[ \t]*#[ \t]*include[ \t]+"([\w.]+)"', re.M)


def local_headers(text, seen):
    """The headers of tests/ that a C text includes, each once and after the ones it
    includes itself: the tests' shared helpers, which the replay runs as the file's own."""
    out = ""
    for name in LOCAL_INCLUDE.findall(text):
        if name not in seen:
            seen.add(name)
            header = read(os.path.join(TESTS, name))
            out += local_headers(header, seen) + header + "\n"
    return out


class CFile:
    """A C test file with the headers of tests/ it includes: macros, functions and
    initialized globals."""

    def __init__(self, path):
        self.path, self.tag = path, tag_of(path)
        source = read(path)
        text = local_headers(source, set()) + source
        tokens = c_tokens(text)
        self.macros = library_constants()
        for kind, pp in tokens:
            if kind == "pp" and DEFINE.match(pp):
                macro = Macro(pp)
                self.macros[macro.name] = macro
        self.tokens = expand([t for t in tokens if t[0] != "pp"], self.macros)
        self.functions, self.global_decls, self.enums, self.structs = {}, [], {}, {}
        self._top_level()

    def _top_level(self):
        toks, i = self.tokens, 0
        while i < len(toks):
            j = i
            while j < len(toks):
                if toks[j] == ("op", "{"):
                    end = match(toks, j)
                    if toks[j - 1] == ("op", ")"):  # a function body
                        self._function(toks[i:j], toks[j:end + 1])
                        i = j = end + 1
                        break
                    j = end + 1
                elif toks[j] == ("op", ";"):
                    self._enum(toks[i:j])
                    self._typedef(toks[i:j])
                    self.global_decls.append(toks[i:j])
                    i = j = j + 1
                    break
                else:
                    j += 1
            else:
                break

    def _function(self, header, body):
        # the parameter list is the header's last parenthesized group (attributes come first)
        start = max(n for n, t in enumerate(header) if t == ("op", "(")
                    and match(header, n) == len(header) - 1)
        name = header[start - 1][1]
        params = []
        for p in split_top(header[start + 1:match(header, start)], ","):
            ids = [t for k, t in p if k == "id"]
            if ids and ids != ["void"]:
                params.append(ids[-1])
        self.functions[name] = (params, body)

    def _enum(self, decl):
        """enum { A, B = 5, C }: its constants become macros."""
        if ("id", "enum") not in decl or ("op", "{") not in decl:
            return
        start = decl.index(("op", "{"))
        value = 0
        for item in split_top(decl[start + 1:match(decl, start)], ","):
            if item and item[0][0] == "id":
                if len(item) == 3 and item[1] == ("op", "=") and item[2][0] == "num":
                    value = int(item[2][1], 0)
                self.enums[item[0][1]] = value
                value += 1

    def _typedef(self, decl):
        """typedef struct x { fields } name: the field names, for positional initializers."""
        if decl[:2] != [("id", "typedef"), ("id", "struct")] or ("op", "{") not in decl:
            return
        start = decl.index(("op", "{"))
        end = match(decl, start)
        if end + 1 < len(decl) and decl[end + 1][0] == "id":
            self.structs[decl[end + 1][1]] = struct_fields(decl[start:end + 1])

    def tests(self):
        """The cmocka tests: functions of (void **state)."""
        return [n for n, (params, _) in self.functions.items() if params == ["state"]]

    def string_runs(self):
        """(text, given to dq()) for each run of adjacent string literals."""
        toks, i, out = self.tokens, 0, []
        while i < len(toks):
            if toks[i][0] != "str":
                i += 1
                continue
            j = i
            while j < len(toks) and toks[j][0] == "str":
                j += 1
            in_dq = i >= 2 and toks[i - 2] == ("id", "dq") and toks[i - 1] == ("op", "(") \
                and j < len(toks) and toks[j] == ("op", ")")
            out.append(("".join(c_string(t) for _, t in toks[i:j]), in_dq))
            i = j
        return out


# =============================================================================================
# Replaying the C tests

class EvalError(Exception):
    """A statement of a test this replay cannot follow; it is skipped."""


class Unknown:
    def __repr__(self):
        return "UNKNOWN"


UNKNOWN = Unknown()
CREATE = re.compile(r"cres_(\w+)_resolver_create")
# Library functions whose string arguments are recorded: (function, argument index).
OBSERVED = {"cres_hostlist_expand": 0, "cres_tasks_per_node_expand": 0, "cres_spec_from_json": 0}
TYPE_WORDS = {"void", "char", "int", "long", "short", "unsigned", "signed", "const", "struct",
              "size_t", "double", "float", "static", "enum"}
MAX_LOOP = 64
MAX_DEPTH = 24


class Symbol(str):
    """An identifier the replay does not know (an enum constant, a function it skips)."""


class Array(list):
    """A C array (sizeof gives its length)."""


class FileText(str):
    """The content of a temporary file a test wrote (its path stands for it)."""


class Ref:
    """&name: a variable of a frame."""

    def __init__(self, scope, name):
        self.scope, self.name = scope, name

    def get(self):
        return self.scope.get(self.name, UNKNOWN)


class Return(Exception):
    def __init__(self, value):
        super().__init__()
        self.value = value


class TestState:
    def __init__(self):
        self.env, self.routes = {}, []


def deref(v):
    return v.get() if isinstance(v, Ref) else v


def is_type_cast(inner):
    """Whether the tokens inside parentheses name a type, as in (cres_resolver *)."""
    if not inner or any(k != "id" and t != "*" for k, t in inner):
        return False
    first = inner[0][1]
    return inner[-1][1] == "*" or first in TYPE_WORDS or first.startswith("cres_") \
        or first.endswith("_t")


class Replay:
    """Runs the tests of a CFile over a model of the few things the seeds need: the
    environment table, temporary files, scripted HTTP answers, options structs, and the
    library calls (recorded, not run)."""

    def __init__(self, cfile):
        self.c = cfile
        self.snapshots, self.observed = [], []
        self.globals = {}
        self.depth = 0
        self.state = TestState()
        for decl in cfile.global_decls:
            self.statement(decl, self.globals)

    def run(self):
        for name in self.c.tests():
            self.state = TestState()
            try:
                self.call(name, [UNKNOWN])
            except (EvalError, RecursionError):
                pass
        return self

    # -- statements

    def block(self, toks, frame):
        i = 0
        while i < len(toks):
            i = self.step(toks, i, frame)

    def stmt_end(self, toks, i):
        t = toks[i]
        if t == ("op", "{"):
            return match(toks, i) + 1
        if t[0] == "id" and t[1] in ("for", "while", "if", "switch"):
            end = self.stmt_end(toks, match(toks, i + 1) + 1)
            if t[1] == "if" and end < len(toks) and toks[end] == ("id", "else"):
                end = self.stmt_end(toks, end + 1)
            return end
        if t == ("id", "do"):  # do STATEMENT while (...);
            end = self.stmt_end(toks, i + 1)
            return self._after_semicolon(toks, match(toks, end + 1) + 1)
        return self._after_semicolon(toks, i)

    @staticmethod
    def _after_semicolon(toks, i):
        depth = 0
        while i < len(toks):
            k, t = toks[i]
            if k == "op" and t in OPENERS:
                depth += 1
            elif k == "op" and t in CLOSERS:
                depth -= 1
            elif depth == 0 and t == ";" and k == "op":
                return i + 1
            i += 1
        return i

    def step(self, toks, i, frame):
        """Runs the statement at toks[i]; returns the index after it."""
        kind, t = toks[i]
        end = self.stmt_end(toks, i)
        if (kind, t) == ("op", "{"):
            self.block(toks[i + 1:end - 1], frame)
        elif kind == "id" and t in ("for", "while", "if", "switch", "do"):
            self.control(toks[i:end], frame)
        elif kind == "id" and t == "return":
            raise Return(self.value(toks[i + 1:end - 1], frame) if end - i > 2 else None)
        elif kind == "id" and t in ("break", "continue", "goto", "case", "default"):
            pass
        else:
            self.statement(toks[i:end - 1] if toks[end - 1] == ("op", ";") else toks[i:end],
                           frame)
        return end

    def control(self, toks, frame):
        word = toks[0][1]
        if word == "do":
            body_end = self.stmt_end(toks, 1)
            self.block(toks[1:body_end], frame)
            return
        close = match(toks, 1)
        body_end = self.stmt_end(toks, close + 1)
        body = toks[close + 1:body_end]
        if word == "for":
            self.loop(toks[2:close], body, frame)
            return
        holds = self.condition(toks[2:close], frame)
        if holds is not False:  # a condition it cannot tell runs the body (once)
            self.block(body, frame)
        elif word == "if" and body_end < len(toks) and toks[body_end] == ("id", "else"):
            self.block(toks[body_end + 1:], frame)

    def condition(self, toks, frame):
        try:
            return truth(self.value(toks, frame))
        except (EvalError, IndexError, KeyError, TypeError, ValueError, ZeroDivisionError):
            return None

    def loop(self, head, body, frame):
        """for (v = a; v < b; v++): runs the body for each v; any other loop runs once."""
        try:
            init, cond, _ = split_top(head, ";")
            var = init[0][1]
            if init[1] != ("op", "=") or cond[0] != ("id", var) or \
                    cond[1] not in (("op", "<"), ("op", "<=")):
                raise EvalError("not a counting loop")
            start = self.value(init[2:], frame)
            stop = self.value(cond[2:], frame) + (cond[1][1] == "<=")
            if not (isinstance(start, int) and isinstance(stop, int)):
                raise EvalError("bounds")
        except (EvalError, ValueError, IndexError, TypeError):
            self.block(body, frame)
            return
        for v in range(start, min(stop, start + MAX_LOOP)):
            frame[var] = v
            self.block(body, frame)

    def statement(self, toks, frame):
        try:
            parts = split_top(toks, "=")
            if len(parts) >= 2:
                self.assign(parts[0], parts[1:], frame)
            elif len(toks) >= 2 and all(k == "id" or t in ("*", "[", "]") or k == "num"
                                        for k, t in toks):
                frame[[t for k, t in toks if k == "id"][-1]] = UNKNOWN  # a declaration
            elif toks:
                self.value(toks, frame)
        except (EvalError, IndexError, KeyError, TypeError, ValueError, ZeroDivisionError,
                AttributeError):
            pass

    def assign(self, lhs, rest, frame):
        rhs = [t for n, part in enumerate(rest) for t in ([("op", "=")] if n else []) + part]
        top = [t for part in split_top(lhs, ",") for t in part if t[0] == "op"]
        if lhs[0][0] == "id" and len(lhs) == 1:
            scope = frame if lhs[0][1] in frame or lhs[0][1] not in self.globals \
                else self.globals
            scope[lhs[0][1]] = self.value(rhs, frame)
        elif ("op", ".") in top or ("op", "->") in top:
            self.assign_member(lhs, self.value(rhs, frame), frame)
        elif lhs[0][0] == "id" and lhs[1] == ("op", "["):
            pass  # an element of an array: nothing a seed needs
        else:
            self.declare(lhs, rhs, frame)

    def assign_member(self, lhs, value, frame):
        """o.port = 1, rt->body = b, on(...)->times = 2 (the call still happens)."""
        if lhs[-2][1] not in (".", "->") or lhs[-1][0] != "id":
            raise EvalError("not a member")
        if len(lhs) == 3 and lhs[0][0] == "id":
            name = lhs[0][1]
            target = deref(self.lookup(name, frame))
            if not isinstance(target, dict):  # a struct the replay did not see filled
                target = {}
                (frame if name in frame or name not in self.globals else self.globals)[name] \
                    = target
        else:
            target = deref(self.value(lhs[:-2], frame))
        if isinstance(target, dict):
            target[lhs[-1][1]] = value

    def declare(self, lhs, rhs, frame):
        top, depth, struct = [], 0, None
        for n, tok in enumerate(lhs):
            if tok == ("op", "{"):
                if depth == 0:
                    struct = lhs[n:match(lhs, n) + 1]
                depth += 1
            elif tok == ("op", "}"):
                depth -= 1
            elif depth == 0:
                top.append(tok)
        if ("op", "[") in top:
            top = top[:top.index(("op", "["))]
        name = [t for k, t in top if k == "id"][-1]
        value = self.initializer(rhs, frame)
        types = [t for k, t in top if k == "id" and t in self.c.structs]
        if (struct or types) and isinstance(value, list):
            fields = struct_fields(struct) if struct else self.c.structs[types[0]]
            rows = value if ("op", "[") in lhs else [value]
            rows = [dict(zip(fields, row)) if isinstance(row, list) else row for row in rows]
            value = rows if ("op", "[") in lhs else rows[0]
        if ("op", "[") in lhs and isinstance(value, list):
            value = Array(value)
        frame[name] = value

    def initializer(self, toks, frame):
        if toks and toks[0] == ("op", "{") and match(toks, 0) == len(toks) - 1:
            items = [item for item in split_top(toks[1:-1], ",") if item]
            if items and all(item[0] == ("op", ".") for item in items):  # {.name = "w"}
                return {item[1][1]: self.initializer(item[3:], frame) for item in items}
            return [self.initializer(item, frame) for item in items]
        try:
            return self.value(toks, frame)
        except (EvalError, IndexError, KeyError, TypeError, ValueError):
            return UNKNOWN

    # -- expressions

    def value(self, toks, frame):
        v, n = Expr(self, toks, frame).parse()
        if n != len(toks):
            raise EvalError("trailing tokens")
        return v

    def lookup(self, name, frame):
        if name in frame:
            return frame[name]
        if name in self.globals:
            return self.globals[name]
        if name == "NULL":
            return None
        if name in self.c.enums:
            return self.c.enums[name]
        return Symbol(name)

    def ref(self, name, frame):
        return Ref(frame if name in frame else self.globals, name)

    def call(self, name, args):
        builtin = getattr(self, "b_" + name, None)
        if builtin is not None:
            return builtin(*args)
        if CREATE.fullmatch(name):
            return self.create(CREATE.fullmatch(name).group(1), args[0] if args else None)
        if name in OBSERVED and len(args) > OBSERVED[name]:
            arg = deref(args[OBSERVED[name]])
            if isinstance(arg, str) and not isinstance(arg, Symbol):
                self.observed.append((name, arg))
        if name in self.c.functions and self.depth < MAX_DEPTH:
            return self.user_call(name, args)
        for n, a in enumerate(args):  # FAILS_WITH(cres_x_resolver_create, opts, ...)
            if isinstance(a, Symbol) and CREATE.fullmatch(a) and n + 1 < len(args):
                self.create(CREATE.fullmatch(a).group(1), args[n + 1])
        return UNKNOWN

    def user_call(self, name, args):
        params, body = self.c.functions[name]
        frame = dict(zip(params, args))
        self.depth += 1
        try:
            self.block(body[1:-1], frame)
        except Return as r:
            return r.value
        finally:
            self.depth -= 1
        return UNKNOWN

    def create(self, backend, opts):
        opts = deref(opts)
        if isinstance(opts, dict):
            self.snapshots.append(Snapshot(backend, dict(self.state.env), dict(opts),
                                           self.state.routes, self.c.tag))
        return UNKNOWN

    # -- the test files' helpers that the replay models instead of running

    def b_env_reset(self, *args):
        self.state.env.clear()

    def b_env_set(self, name, value=None, *args):
        if isinstance(name, str):
            if value is None:
                self.state.env.pop(name, None)
            else:
                self.state.env[name] = value

    def b_env_unset(self, name, *args):
        self.b_env_set(name, None)

    def b_env_setf(self, name, fmt, *args):
        self.b_env_set(name, c_format(fmt, args))

    def b_env_lines(self, text, *args):
        if isinstance(text, str):
            for line in text.split("\n"):
                if "=" in line:
                    key, _, value = line.partition("=")
                    self.state.env[key] = value

    def b_temp_file(self, *args):
        content = args[-1] if args else UNKNOWN
        return FileText(content) if isinstance(content, str) else UNKNOWN

    def b_on(self, method, url, status, body=None, *args):
        route = {"method": method, "url": url, "status": status, "body": body}
        self.state.routes.append(route)
        return route

    def b_script_next(self, *args):
        """The next scripted answer of a Kubernetes test (filled in by the caller)."""
        route = {"status": None, "body": None}
        self.state.routes.append(route)
        return route

    def b_script_page(self, pods, n, next_token, *args):
        """A scripted PodList page, built by the test's own pod_list()."""
        body = self.call(Symbol("pod_list"), [pods, n, next_token])
        self.state.routes.append({"status": 200, "body": body})

    def b_snprintf(self, buf, size, fmt=UNKNOWN, *args):
        if isinstance(buf, Ref):
            buf.scope[buf.name] = c_format(fmt, args)
        return UNKNOWN

    def b_text_add(self, target, fmt, *args):
        """The tests' growing text buffer: appends printf(fmt, args)."""
        if not isinstance(target, Ref):
            return
        holder = target.get()
        if not isinstance(holder, dict):
            holder = target.scope[target.name] = {}
        piece = c_format(fmt, args)
        text = holder.get("s") or ""
        holder["s"] = text + piece if isinstance(piece, str) and isinstance(text, str) \
            else UNKNOWN

    def b_memset(self, target, *args):
        if isinstance(target, Ref):
            target.scope[target.name] = {}

    def b_strdup(self, s, *args):
        return s

    def b_dq(self, s, *args):
        return dq(s) if isinstance(s, str) else UNKNOWN


def c_format(fmt, args):
    if not isinstance(fmt, str) or any(a is UNKNOWN or isinstance(a, (Ref, dict, list))
                                       for a in args):
        return UNKNOWN
    try:
        return re.sub(r"%(z|l|ll)([dui])", r"%\2", fmt).replace("%u", "%d") % tuple(args)
    except (TypeError, ValueError):
        return UNKNOWN


def struct_fields(struct):
    """Field names of a struct body's tokens ({ const char *name, *value; int n; })."""
    names = []
    for decl in split_top(struct[1:-1], ";"):
        for piece in split_top(decl, ","):
            if ("op", "[") in piece:
                piece = piece[:piece.index(("op", "["))]
            ids = [t for k, t in piece if k == "id"]
            if ids:
                names.append(ids[-1])
    return names


class Expr:
    """A recursive-descent reader of the C expressions the tests write."""

    BINARY = [("||", "&&"), ("==", "!=", "<", ">", "<=", ">="), ("+", "-"), ("*", "/", "%")]

    def __init__(self, replay, toks, frame):
        self.r, self.toks, self.frame, self.i = replay, toks, frame, 0

    def parse(self):
        return self.ternary(), self.i

    def ternary(self):
        cond = self.binary(0)
        if self.peek() != ("op", "?"):
            return cond
        self.i += 1
        a = self.ternary()
        self.take(":")
        b = self.ternary()
        holds = truth(cond)
        if holds is None:
            raise EvalError("condition")
        return a if holds else b

    def peek(self):
        return self.toks[self.i] if self.i < len(self.toks) else ("end", "")

    def take(self, text):
        if self.peek() != ("op", text):
            raise EvalError("want " + text)
        self.i += 1

    def binary(self, level):
        if level == len(self.BINARY):
            return self.unary()
        left = self.binary(level + 1)
        while self.peek()[0] == "op" and self.peek()[1] in self.BINARY[level]:
            op = self.peek()[1]
            self.i += 1
            right = self.binary(level + 1)
            left = arith(op, left, right)
        return left

    def unary(self):
        kind, t = self.peek()
        if kind == "op" and t in ("-", "!", "~", "&", "*", "++", "--"):
            self.i += 1
            if t == "&" and self.peek()[0] == "id" and self.toks[self.i + 1:self.i + 2] in (
                    [], [("op", ")")], [("op", ",")], [("op", ";")]):
                name = self.peek()[1]
                self.i += 1
                return self.r.ref(name, self.frame)
            v = self.unary()
            if t == "-":
                return -v if isinstance(v, int) else UNKNOWN
            if t == "!":
                holds = truth(v)
                return UNKNOWN if holds is None else int(not holds)
            if t == "&":
                return v
            if t == "*":
                v = deref(v)
                return v[0] if isinstance(v, list) and v else UNKNOWN
            return UNKNOWN
        if (kind, t) == ("id", "sizeof"):
            self.i += 1
            if self.peek() == ("op", "(") and is_type_cast(self.toks[self.i + 1:match(self.toks,
                                                                                    self.i)]):
                self.i = match(self.toks, self.i) + 1
                return 1
            v = deref(self.unary())
            return len(v) if isinstance(v, Array) else 1
        if (kind, t) == ("op", "("):
            close = match(self.toks, self.i)
            if is_type_cast(self.toks[self.i + 1:close]):
                self.i = close + 1
                return self.unary()
        return self.postfix(self.primary())

    def primary(self):
        kind, t = self.peek()
        if kind == "str":
            parts = []
            while self.peek()[0] == "str":
                parts.append(c_string(self.peek()[1]))
                self.i += 1
            return "".join(parts)
        self.i += 1
        if kind == "num":
            return int(t, 16) if t[:2] in ("0x", "0X") else int(float(t))
        if kind == "chr":
            return ord(c_string('"' + t[1:-1] + '"') or "\0")
        if kind == "id":
            return self.r.lookup(t, self.frame)
        if (kind, t) == ("op", "("):
            v = self.binary(0)
            self.take(")")
            return v
        raise EvalError("unexpected " + t)

    def postfix(self, v):
        while True:
            kind, t = self.peek()
            if (kind, t) == ("op", "(") and isinstance(v, Symbol):
                close = match(self.toks, self.i)
                inner = self.toks[self.i + 1:close]
                args = [self.r.value(a, self.frame) for a in split_top(inner, ",")] if inner \
                    else []
                if v == "snprintf" and inner[0][0] == "id":  # the buffer it writes
                    args[0] = self.r.ref(inner[0][1], self.frame)
                self.i = close + 1
                v = self.r.call(v, args)
            elif (kind, t) == ("op", "("):
                raise EvalError("call of a value")
            elif (kind, t) == ("op", "["):
                close = match(self.toks, self.i)
                index = self.r.value(self.toks[self.i + 1:close], self.frame)
                self.i = close + 1
                base = deref(v)
                v = base[index] if isinstance(base, (list, str)) and isinstance(index, int) \
                    and 0 <= index < len(base) else UNKNOWN
            elif kind == "op" and t in (".", "->"):
                field = self.toks[self.i + 1][1]
                self.i += 2
                base = deref(v)
                v = base.get(field) if isinstance(base, dict) else UNKNOWN  # zeroed
            elif kind == "op" and t in ("++", "--"):
                self.i += 1
                v = UNKNOWN
            else:
                return v


def truth(v):
    """A C value's truth, or None when the replay cannot tell."""
    v = deref(v)
    if v is None:
        return False
    if isinstance(v, int):
        return v != 0
    if isinstance(v, (dict, list, Ref)) or (isinstance(v, str) and not isinstance(v, Symbol)):
        return True
    return None


def arith(op, a, b):
    if op in ("&&", "||"):
        x, y = truth(a), truth(b)
        if op == "&&":
            return 0 if False in (x, y) else UNKNOWN if None in (x, y) else 1
        return 1 if True in (x, y) else UNKNOWN if None in (x, y) else 0
    if op in ("==", "!=") and all(v is None or type(v) is int for v in (a, b)):
        return int((a == b) == (op == "=="))
    if op in ("<", ">", "<=", ">=") and type(a) is int and type(b) is int:
        return int({"<": a < b, ">": a > b, "<=": a <= b, ">=": a >= b}[op])
    if not (isinstance(a, int) and isinstance(b, int)):
        return UNKNOWN
    if op in ("+", "-", "*"):
        return {"+": a + b, "-": a - b, "*": a * b}[op]
    if op in ("/", "%") and b:
        return a // b if op == "/" else a % b
    return UNKNOWN


_REPLAYS = {}


def replay(name):
    """The replay of tests/NAME (run once per process)."""
    if name not in _REPLAYS:
        _REPLAYS[name] = Replay(CFile(os.path.join(TESTS, name))).run()
    return _REPLAYS[name]


KC_DIR = "/kubeconfig-test-dir"  # test_kubeconfig.c's T.dir, as the replay names it


class KubeconfigReplay(Replay):
    """tests/test_kubeconfig.c, whose helpers write files and script exec plugins: put() (and
    config_json() and script(), which call it) keeps a file's text under the path it returns,
    plugin() queues an answer; every resolver a test makes records the files written so far
    (in its options, as "__files__") and the plugin answers (in its routes)."""

    def __init__(self, cfile):
        super().__init__(cfile)
        self.globals["T"] = {"dir": KC_DIR}

    def b_put(self, name, text=UNKNOWN, *args):
        if not (known_text(name) and known_text(text)):
            return UNKNOWN
        path = KC_DIR + "/" + name
        self.state.__dict__.setdefault("files", {})[path] = text
        return path

    def user_call(self, name, args):
        if name in ("setup", "teardown"):  # they make and remove the real T.dir: not replayed
            return UNKNOWN
        return super().user_call(name, args)

    def b_plugin(self, exit_code, out=None, err=None, *args):
        self.state.routes.append({"plugin": out, "exit": exit_code})

    def create(self, backend, opts):
        opts = deref(opts)
        if isinstance(opts, dict):
            opts = dict(opts, __files__=dict(self.state.__dict__.get("files", {})))
            self.snapshots.append(Snapshot(backend, dict(self.state.env), opts,
                                           list(self.state.routes), self.c.tag))
        return UNKNOWN


def kubeconfig_replay():
    if "kubeconfig" not in _REPLAYS:
        _REPLAYS["kubeconfig"] = KubeconfigReplay(
            CFile(os.path.join(TESTS, "test_kubeconfig.c"))).run()
    return _REPLAYS["kubeconfig"]


def c_json_documents(names):
    """(source, document text, parsed or None) for the JSON objects the C tests write as
    string literals, and the texts they give dq() that are no JSON (rejected documents)."""
    out = []
    for name in names:
        cfile = CFile(os.path.join(TESTS, name))
        for text, in_dq in cfile.string_runs():
            for candidate in (text, dq(text)):
                doc = json_text(candidate)
                if isinstance(doc, dict):
                    out.append((cfile.tag, candidate, doc))
                    break
            else:
                if in_dq:
                    out.append((cfile.tag, dq(text), None))
    return out


# =============================================================================================
# Python tests: their constants, helpers and calls of the fixture generators

class Unevaluable(Exception):
    """A Python expression that needs more than constants and the fixture generators."""


GENERATORS = {dict, list, tuple, json.dumps, make_gcp.make_instances, make_gcp.make_instance,
              make_gcp.make_group, make_gcp.make_tpu_node, make_gcp.compute_doc,
              make_gcp.tpu_nodes_doc, make_pods.make_pods, make_pods.pod_list}


class Helper:
    """A helper of a test module whose body is one return statement (tf_node() and the
    like): called by evaluating that expression."""

    def __init__(self, fdef, scope):
        self.fdef, self.scope = fdef, scope

    def __call__(self, *args, **kwargs):
        a = self.fdef.args
        names = [p.arg for p in a.args]
        defaults = dict(zip(names[len(names) - len(a.defaults):], a.defaults))
        local = dict(self.scope)
        for n, name in enumerate(names):
            if n < len(args):
                local[name] = args[n]
            elif name in kwargs:
                local[name] = kwargs.pop(name)
            elif name in defaults:
                local[name] = py_eval(defaults[name], self.scope)
            else:
                raise Unevaluable(name)
        if a.kwarg:
            local[a.kwarg.arg] = kwargs
        elif kwargs:
            raise Unevaluable("keywords")
        return py_eval(self.fdef.body[-1].value, local)


def py_items(nodes, scope):
    out = []
    for node in nodes:
        if isinstance(node, ast.Starred):
            out.extend(py_eval(node.value, scope))
        else:
            out.append(py_eval(node, scope))
    return out


def py_eval(node, scope):
    if isinstance(node, ast.Constant):
        return node.value
    if isinstance(node, (ast.List, ast.Tuple)):
        items = py_items(node.elts, scope)
        return items if isinstance(node, ast.List) else tuple(items)
    if isinstance(node, ast.Dict):
        out = {}
        for k, v in zip(node.keys, node.values):
            if k is None:
                out.update(py_eval(v, scope))
            else:
                out[py_eval(k, scope)] = py_eval(v, scope)
        return out
    if isinstance(node, ast.Name) and node.id in scope:
        return scope[node.id]
    if isinstance(node, ast.Attribute):
        base = py_eval(node.value, scope)
        if type(base) is type(json):  # a module: its function
            return getattr(base, node.attr)
    if isinstance(node, ast.Call):
        return py_call(node, scope)
    if isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Add, ast.Mult)):
        a, b = py_eval(node.left, scope), py_eval(node.right, scope)
        return a + b if isinstance(node.op, ast.Add) else a * b
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        return -py_eval(node.operand, scope)
    raise Unevaluable(type(node).__name__)


def py_call(node, scope):
    func = py_eval(node.func, scope)
    if func not in GENERATORS and not isinstance(func, Helper):
        raise Unevaluable("call")
    kwargs = {}
    for kw in node.keywords:
        if kw.arg is None:
            kwargs.update(py_eval(kw.value, scope))
        else:
            kwargs[kw.arg] = py_eval(kw.value, scope)
    return func(*py_items(node.args, scope), **kwargs)


class PyFile:
    """A Python test module, parsed (never imported): its constants and one-line helpers."""

    def __init__(self, path):
        self.tag = tag_of(path)
        self.tree = ast.parse(read(path), path)
        self.scope = {"dict": dict, "list": list, "tuple": tuple, "json": json,
                      "mg": make_gcp, "make_gcp": make_gcp, "make_pods": make_pods}
        for g in GENERATORS:  # a generator's own module calls it by its bare name
            if getattr(g, "__module__", None) == self.tag:
                self.scope[g.__name__] = g
        for stmt in self.tree.body:
            if isinstance(stmt, ast.Assign):
                self._assign(stmt)
            elif isinstance(stmt, ast.FunctionDef) and isinstance(stmt.body[-1], ast.Return) \
                    and all(isinstance(s, ast.Expr) for s in stmt.body[:-1]):
                self.scope[stmt.name] = Helper(stmt, self.scope)

    def _assign(self, stmt):
        try:
            value = py_eval(stmt.value, self.scope)
        except (Unevaluable, TypeError, ValueError, KeyError):
            return
        for target in stmt.targets:
            if isinstance(target, ast.Name):
                self.scope[target.id] = value
            elif isinstance(target, ast.Tuple) and isinstance(value, tuple) and \
                    len(value) == len(target.elts):
                for t, v in zip(target.elts, value):
                    if isinstance(t, ast.Name):
                        self.scope[t.id] = v

    def values(self, kind, within=None):
        """The values of the evaluable `kind` nodes (in functions named `within`, if given)."""
        roots = [self.tree] if within is None else [
            f for f in ast.walk(self.tree) if isinstance(f, ast.FunctionDef) and within(f.name)]
        for root in roots:
            for node in ast.walk(root):
                if isinstance(node, kind):
                    try:
                        yield node, py_eval(node, self.scope)
                    except (Unevaluable, TypeError, ValueError, KeyError, AttributeError):
                        pass

    def calls(self, *names):
        """(keyword arguments, result) of each evaluable call of the named functions."""
        wanted = [w for n in names for w in (self.scope.get(n), getattr(make_gcp, n, None),
                                             getattr(make_pods, n, None))
                  if callable(w) and (w in GENERATORS or isinstance(w, Helper))]
        for node, result in self.values(ast.Call):
            try:
                func = py_eval(node.func, self.scope)
            except Unevaluable:
                continue
            if any(func is w for w in wanted):
                kwargs = {kw.arg: py_eval(kw.value, self.scope) for kw in node.keywords
                          if kw.arg}
                yield kwargs, result


def py_file(*parts):
    return PyFile(os.path.join(TESTS, *parts))


def env_snapshots(pyfile, backend, keys):
    """Environments the tests set (dicts of variables), as snapshots of `backend`."""
    for _, env in pyfile.values(ast.Dict):
        if isinstance(env, dict) and any(k in env for k in keys) and \
                all(isinstance(v, str) for v in env.values()):
            yield Snapshot(backend, env, {}, [], pyfile.tag)


# =============================================================================================
# Pages rendered by the fake servers

def reply_text(reply):
    return {"status": reply.status, "body": latin1(reply.body)}


def pod_pages(pods, limit, namespace=None):
    """The PodList pages fake_api serves for a list of `limit` pods a page (up to three)."""
    store, routes, token = fake_api.PodStore(pods), [], None
    while len(routes) < 3:
        query = {"limit": [str(limit)]} if limit else {}
        if token:
            query["continue"] = [token]
        route = reply_text(store.list(namespace, query))
        routes.append(route)
        token = json.loads(route["body"])["metadata"].get("continue")
        if not token:
            break
    return routes


def pod_page_gone(pods, limit):
    """A first page, the 410 Gone its continue token gets once expired, the list again."""
    store = fake_api.PodStore(pods, expire_pages=0)
    first = reply_text(store.list(None, {"limit": [str(limit)]}))
    token = json.loads(first["body"])["metadata"].get("continue")
    try:
        store.list(None, {"limit": [str(limit)], "continue": [token]})
        return None
    except fake_api.ReplyError as e:
        return [first, reply_text(e.reply), reply_text(store.list(None, {}))]


GROUP_PATH = "/compute/v1/projects/%s/%s/instanceGroups/%s/listInstances"
ZONE_PATH = "/compute/v1/projects/%s/zones/%s/instances"
FORBIDDEN = "fuzz-forbidden-token"


class FakeAuth:
    """fake_gcp's server options for a caller whose token is not authorized."""
    forbid_token, bearer = FORBIDDEN, None


def forbidden(api, method, path):
    return fake_gcp.google_auth_reply(FakeAuth, {"Authorization": "Bearer " + FORBIDDEN}, api,
                                      method, path)


def gce_routes(instances, group_name, region, list_fields):
    """The group's listInstances page, its first member zone's instance list (as the library
    asks: RUNNING, name and networkIP) and a member's name from the metadata server."""
    project = instances[0]["selfLink"].split("/projects/")[1].split("/")[0]
    zone = instances[0]["zone"].rsplit("/", 1)[1]
    where = {"region": region} if region else {"zone": zone}
    store = fake_gcp.ComputeStore(make_gcp.compute_doc(
        [make_gcp.make_group(group_name, instances, project=project, **where)], instances,
        project), page_cap=200)
    scope = ("regions/" + region) if region else ("zones/" + zone)
    group_path = GROUP_PATH % (project, scope, group_name)
    group = store.reply("POST", group_path, {"maxResults": ["500"]},
                        b'{"instanceState": "RUNNING"}', False)
    zone_list = store.reply("GET", ZONE_PATH % (project, zone), {
        "filter": ['status = "RUNNING"'], "fields": [list_fields], "maxResults": ["500"]},
        b"", False)
    own = instances[len(instances) // 2]["name"]
    name = fake_gcp.MetadataStore({"instance/name": own}).reply(
        "/computeMetadata/v1/instance/name", {}, {"Metadata-Flavor": "Google"})
    return [dict(reply_text(group), method="POST", url=group_path),
            dict(reply_text(zone_list), method="GET", url=ZONE_PATH % (project, zone)),
            dict(reply_text(name), method="GET", url="instance/name")], group_path


def tpu_route(node, version):
    path = "/%s/%s" % (version, node["name"])
    reply = fake_gcp.TpuStore(make_gcp.tpu_nodes_doc([node])).reply("GET", path, {})
    return dict(reply_text(reply), method="GET", url=path)


# =============================================================================================
# Encoders: a snapshot in a target's input format (tests/fuzz/fuzz_NAME.c), or None

def c_bytes(s):
    return s.encode("latin-1")


def known_text(v):
    return isinstance(v, str) and not isinstance(v, Symbol)


def route_bodies_known(routes):
    return all(r.get("body") is None or known_text(r.get("body")) for r in routes)


K8S_STATUS = {200: 0, 410: 3, 500: 4, 403: 5}  # fuzz_k8s_pods: base-6 digits, first 200
K8S_ADDRESS = {"CRES_K8S_POD_IP": 0, "CRES_K8S_HOST_IP": 1, "CRES_K8S_DNS": 2}


def k8s_seed(snap):
    answers = [r for r in snap.routes if r.get("status") is not None][:3]
    if not answers or not route_bodies_known(answers) or \
            any(r["status"] not in K8S_STATUS or r.get("fail") for r in answers):
        return None
    digits = sum(K8S_STATUS[r["status"]] * 6 ** n for n, r in enumerate(answers))
    address = snap.opts.get("address")
    address = K8S_ADDRESS.get(address, address if address in (0, 1, 2) else 0)
    jobs = snap.opts.get("jobs_count")
    flags = address | (4 if truth(snap.opts.get("all_namespaces")) else 0) | \
        (8 if isinstance(jobs, int) and jobs > 1 else 0) | \
        (16 if truth(snap.opts.get("follow_jobset")) else 0)
    bodies = [c_bytes(r.get("body") or "") for r in answers]
    if any(b"\xff" in b for b in bodies[:-1]):
        return None
    return bytes([digits, flags]) + b"\xff".join(bodies)


GCE_LIST_STATUS = {200: 0, 403: 2, 500: 3}
GCE_NAME_STATUS = {200: 0, 404: 2, 500: 3}


def gce_part(url):
    """Which answer of fuzz_gce_lists a request URL is: group list, zone list, own name."""
    if "listInstances" in url:
        return 0
    if url.endswith("/instances") or "/instances?" in url:
        return 1
    if url.endswith("instance/name"):
        return 2
    return None


def gce_seed(snap):
    parts = {}
    for r in snap.routes:
        if known_text(r.get("url")) and gce_part(r["url"]) is not None:
            parts.setdefault(gce_part(r["url"]), r)  # the first route answers first
    if 0 not in parts or not route_bodies_known(parts.values()):
        return None
    statuses = [GCE_LIST_STATUS, GCE_LIST_STATUS, GCE_NAME_STATUS]
    status = 0
    for n, table in enumerate(statuses):
        if n in parts:
            if parts[n].get("status") not in table:
                return None
            status |= table[parts[n]["status"]] << (2 * n)
    o = snap.opts
    flags = (1 if known_text(o.get("region")) else 0) | (2 if o.get("port") == 2222 else 0) | \
        (4 if known_text(o.get("instance_name")) else 0) | \
        (8 if known_text(o.get("job_name")) and o["job_name"] else 0)
    bodies = [c_bytes((parts[n].get("body") or "") if n in parts else "") for n in range(3)]
    if any(b"\xff" in b for b in bodies[:2]):
        return None
    return bytes([status, flags]) + b"\xff".join(bodies)


TPU_STATUS = {200: 0, 403: 1, 500: 2}
TPU_METADATA = ["project/project-id", "instance/zone", "instance/service-accounts/default/token",
                "instance/attributes/worker-network-endpoints",
                "instance/attributes/agent-worker-number", "instance/attributes/accelerator-type"]


def tpu_path(opts, env):
    """fuzz_tpu_node's path (byte 0 % 6) for a resolver's name and environment, and the
    text given as part 0 when it is a variable or an endpoint list."""
    name = opts.get("tpu")
    if name is None and "KUBE_GOOGLE_CLOUD_TPU_ENDPOINTS" in env:
        return 5, env["KUBE_GOOGLE_CLOUD_TPU_ENDPOINTS"]
    if name is None and "TPU_CONFIG" in env:
        return 4, env["TPU_CONFIG"]
    if name is None:
        name = env.get("TPU_NAME")
    if name == "local":
        return (3, env["TPU_WORKER_HOSTNAMES"]) if "TPU_WORKER_HOSTNAMES" in env else (2, None)
    if known_text(name) and ("," in name or ":" in name):  # an endpoint list
        return 5, name
    if known_text(name) and name:
        return (1 if opts.get("api_version") == "v1" else 0), None
    return None, None


def tpu_seed(snap):
    o, env = snap.opts, snap.env
    path, text = tpu_path(o, env)
    if path is None or not known_text(text if text is not None else ""):
        return None
    parts = [None] * 7
    node = [r for r in snap.routes if known_text(r.get("url")) and "/nodes/" in r["url"]]
    meta = {r["url"].split("computeMetadata/v1/")[-1]: r for r in snap.routes
            if known_text(r.get("url")) and r.get("status") == 200 and known_text(r.get("body"))
            and ("computeMetadata/v1/" in r["url"] or r["url"] in TPU_METADATA)}
    for n, key in enumerate(TPU_METADATA, 1):
        if key in meta:
            parts[n] = meta[key]["body"]
    status = 0
    if node:
        if node[0].get("status") not in TPU_STATUS or not known_text(node[0].get("body")):
            return None
        status = TPU_STATUS[node[0]["status"]]
        parts[4 if path in (4, 5) else 0] = node[0]["body"]
    if text is not None:
        parts[0] = text
    if known_text(env.get("TPU_WORKER_ID")):
        parts[5] = env["TPU_WORKER_ID"]
    flags = (1 if truth(o.get("allow_unhealthy")) else 0) | \
        (2 if known_text(o.get("coordinator_name")) else 0) | \
        (4 if truth(o.get("accelerators_per_host")) else 0) | \
        (8 if o.get("rpc_layer") == "" else 0) | (16 if o.get("project") is None else 0) | \
        (32 if o.get("token") is None else 0) | (64 if "TPU_WORKER_ID" in env else 0)
    while parts and parts[-1] is None:
        parts.pop()
    data = [c_bytes(p or "") for p in parts]
    if any(b"\xff" in b for b in data[:6]):
        return None
    return bytes([path + 6 * status, flags]) + b"\xff".join(data)


SLURM_FIELDS = ["SLURM_STEP_NODELIST", "SLURM_STEP_TASKS_PER_NODE", "SLURM_PROCID",
                "SLURM_STEP_NUM_TASKS", "SLURM_DISTRIBUTION", "SLURM_DIST_PLANESIZE",
                "SLURM_NODEID", "SLURM_LOCALID", "CUDA_VISIBLE_DEVICES", None, None,
                "SLURM_JOB_ID", "SLURMD_NODENAME", "SLURM_JOB_NODELIST", "SLURM_TASKS_PER_NODE",
                "SLURM_GPUS_ON_NODE"]


def slurm_jobs(opts):
    jobs, count = opts.get("jobs"), opts.get("jobs_count")
    if jobs is None:
        return "~"
    if not isinstance(jobs, list) or not isinstance(count, int):
        return None
    items = []
    for row in jobs[:count]:
        if not (isinstance(row, list) and len(row) == 2 and isinstance(row[1], int)):
            return None
        items.append("%s=%d" % (row[0] if known_text(row[0]) else "", row[1]))
    return ",".join(items)


def slurm_options(opts):
    values = [opts.get(k) or 0 for k in ("port_base", "gpus_per_node", "gpus_per_task")]
    if not all(isinstance(v, int) for v in values):
        return None
    return "~" if not any(values) else ",".join(map(str, values))


def slurm_seed(snap):
    fields = []
    for name in SLURM_FIELDS:
        v = snap.env.get(name, "~") if name else None
        fields.append(v)
    fields[9], fields[10] = slurm_jobs(snap.opts), slurm_options(snap.opts)
    if not all(known_text(f) and "|" not in f for f in fields) or \
            any(f == "~" for f, name in zip(fields, SLURM_FIELDS) if name and name in snap.env):
        return None
    while len(fields) > 1 and fields[-1] == "~":
        fields.pop()
    return c_bytes("|".join(fields))


RANKINGS = {"slot": 1, "node": 2, "core:span": 3}


def hostfile_seed(snap):
    text, env = snap.opts.get("hostfile"), snap.env
    if not isinstance(text, FileText):
        return None
    size = env.get("OMPI_COMM_WORLD_SIZE", env.get("PMI_SIZE"))
    rank = env.get("OMPI_COMM_WORLD_RANK", env.get("PMI_RANK", "0"))
    if not (size is None or known_text(size) and size.isdigit()) or \
            not (known_text(rank) and rank.isdigit()):
        return None
    mapping = env.get("OMPI_MCA_rmaps_base_mapping_policy") or ""
    ranking = env.get("OMPI_MCA_rmaps_base_ranking_policy")
    if size is None:  # every slot of the file
        head = [0, 0, 0]
    elif 1 <= int(size) <= 256:
        head = [2, int(size) - 1, int(rank) % 256]
    else:
        head = [3, (int(size) - 1) >> 8 & 255, (int(size) - 1) & 255]
    head[0] |= (0x3C if "OMPI_COMM_WORLD_RANK" in env else 0) | \
        (0x40 if "OMPI_COMM_WORLD_LOCAL_RANK" in env else 0) | \
        (0x80 if mapping.startswith("node") else 0)
    policy = RANKINGS.get(ranking, 0) | (4 if ":" in mapping else 0)
    return bytes(head + [policy]) + c_bytes(text.split("\0")[0])


SM_PORTS = {None: 0, 0: 0, 65535: 1, 1: 2}


def sm_source(opts, env, option, variable, bit):
    """(text, flag bit) of the hosts or current host: an option wins over the variable."""
    if known_text(opts.get(option)):
        return opts[option], 0
    if known_text(env.get(variable)):
        return env[variable], bit
    return None, 0


def sm_seed(snap):
    o, env = snap.opts, snap.env
    hosts, hosts_bit = sm_source(o, env, "hosts", "SM_HOSTS", 1)
    current, current_bit = sm_source(o, env, "current_host", "SM_CURRENT_HOST", 2)
    config = o.get("resource_config")
    fields = [hosts or "", current or ""]
    if isinstance(config, FileText):
        fields.append(config)
    if o.get("instance_groups"):  # fields 4 and 5: the groups ("" = from the file), the current group
        groups, groups_bit = sm_source(o, env, "instance_groups_dict", "SM_INSTANCE_GROUPS_DICT", 1)
        group, group_bit = sm_source(o, env, "current_instance_group", "SM_CURRENT_INSTANCE_GROUP", 2)
        hosts_bit = hosts_bit if hosts is not None else groups_bit  # one bit says where both come from
        current_bit = current_bit if current is not None else group_bit
        fields = fields + [""] * (3 - len(fields)) + [groups or ""] + ([group] if group is not None else [])
    from_file = 0 if hosts is not None and current is not None else \
        5 if current is not None else 6 if hosts is not None else 7
    port = o.get("port")
    port_bits = SM_PORTS.get(port, 3) if isinstance(port, int) or port is None else None
    if port_bits is None or any("\x01" in f or "\0" in f for f in fields):
        return None
    flags = hosts_bit | current_bit | from_file << 2 | port_bits << 5 | \
        (128 if known_text(o.get("job_name")) else 0)
    return bytes([flags]) + c_bytes("\x01".join(fields))


def backend_of_env(env):
    """The backend an auto-detected environment is for (what the seeds can use of it)."""
    for prefix, backend in (("SM_", "sagemaker"), ("OMPI_", "mpi"), ("PMI", "mpi"),
                            ("SLURM", "slurm"), ("TPU_", "tpu"), ("KUBE_GOOGLE", "tpu")):
        if any(k.startswith(prefix) for k in env):
            return backend
    return None


def c_snapshots(name, backend):
    """The snapshots of `backend` a C test file makes, auto-detected ones included."""
    return [s for s in replay(name).snapshots if s.backend == backend or
            s.backend == "auto" and backend_of_env(s.env) == backend]


def encoded(snapshots, encode):
    for snap in snapshots:
        data = encode(snap)
        if data is not None:
            yield snap.source, data


# =============================================================================================
# The seeds of each target: (source, bytes)

TF_CONFIG_KEYS = {"cluster", "task", "rpc_layer", "environment", "session_master", "sparseCluster"}
JSON_C_TESTS = ["test_tfconfig.c", "test_spec.c", "test_resolvers.c", "test_hpc.c", "test_k8s.c",
                "test_gcp.c"]


def is_spec(doc):
    """A cluster object: jobs of address lists or of {index: address} maps."""
    return isinstance(doc, dict) and all(
        isinstance(v, list) and all(isinstance(a, str) for a in v) or
        isinstance(v, dict) and all(isinstance(a, str) for a in v.values())
        for v in doc.values())


def json_documents():
    """(source, text, parsed or None) of the C tests' literals and test_cli.py's dicts."""
    docs = c_json_documents(JSON_C_TESTS)
    cli = py_file("test_cli.py")
    for _, doc in cli.values(ast.Dict):
        if isinstance(doc, dict):
            docs.append((cli.tag, json.dumps(doc), doc))
    for node in ast.walk(cli.tree):  # run(..., tf_config="...") texts as the tests give them
        if isinstance(node, ast.keyword) and node.arg == "tf_config" and \
                isinstance(node.value, ast.Constant) and isinstance(node.value.value, str):
            docs.append((cli.tag, node.value.value, json_text(node.value.value)))
    return docs


def tfconfig_seeds():
    for source, text, doc in json_documents():
        if doc is None and source in ("test_tfconfig", "test_cli") or \
                isinstance(doc, dict) and (TF_CONFIG_KEYS & set(doc) or not doc):
            yield source, c_bytes(text)
    for snap in c_snapshots("test_tfconfig.c", "tfconfig"):
        if known_text(snap.opts.get("json")):
            yield snap.source, c_bytes(snap.opts["json"])


def spec_json_seeds():
    for source, text, doc in json_documents():
        if doc is None and source == "test_spec" or is_spec(doc):
            yield source, c_bytes(text)
        elif isinstance(doc, dict):
            for key in ("cluster", "sparseCluster"):  # the cluster object of a TF_CONFIG
                if is_spec(doc.get(key)):
                    yield source, json.dumps(doc[key]).encode()
    for _, text in replay("test_spec.c").observed:
        yield "test_spec", c_bytes(text)


def k8s_generated():
    """Pod lists of the fixture file and of the make_pods() calls of the Kubernetes tests,
    as fake_api pages: one page, and (all namespaces) pages of a third of the pods."""
    sets = [(tag_of(path), json.loads(read(path))["items"])
            for path in sorted(glob.glob(os.path.join(TESTS, "k8s", "fixtures", "*.json")))]
    for name in ("make_pods.py", "test_fake_api.py", "test_k8s_integration.py"):
        f = py_file("k8s", name)
        sets += [(f.tag, pods) for _, pods in f.calls("make_pods") if pods]
    for n, (tag, pods) in enumerate(sets):
        indexed = any("subdomain" in p["spec"] for p in pods)
        namespace = pods[0]["metadata"]["namespace"]
        yield Snapshot("k8s", {}, {"address": 2 if indexed else n % 2},
                       pod_pages(pods, 0, namespace), tag)
        yield Snapshot("k8s", {}, {"address": n % 3, "all_namespaces": 1},
                       pod_pages(pods, -(-len(pods) // 3)), tag)
        for members in jobsets(pods):  # as a jobset-name selector lists them (a whole
            yield Snapshot("k8s", {}, {"address": n % 3},  # fixture can be too big for a seed)
                           pod_pages(members, 0, namespace), tag)
    tag, pods = next((s for s in sets if s[0] == "pods_small"), sets[0])
    gone = pod_page_gone(pods, 3)
    if gone:
        yield Snapshot("k8s", {}, {"all_namespaces": 1}, gone, "fake_api")
    path = "/api/v1/namespaces/default/pods"
    for reply in (fake_api.forbidden_reply("GET", path), fake_api.status_reply(500)):
        yield Snapshot("k8s", {}, {}, [reply_text(reply)], "fake_api")


def jobsets(pods):
    """The pods of each JobSet among pods (label jobset.sigs.k8s.io/jobset-name), by name."""
    by = {}
    for p in pods:
        name = (p["metadata"].get("labels") or {}).get("jobset.sigs.k8s.io/jobset-name")
        if name:
            by.setdefault(name, []).append(p)
    return [by[name] for name in sorted(by)]


def k8s_pods_seeds():
    yield from encoded(k8s_generated(), k8s_seed)
    yield from encoded(c_snapshots("test_k8s.c", "k8s"), k8s_seed)


# fuzz_k8s_job: byte 0 the statuses (bits 0-2 the Job GET's, bits 3-5 the JobSet GET's: 0 is
# 200, 5 403, 6 404, 7 500; bits 6-7 the pod list's: 0 is 200), byte 1 the options (bits 0-2
# and 7 the own pod, an entry of the target's own_pods[]; bit 3 follow_jobset; bits 4-5 the
# selector: 0 the own Job's, 1 its JobSet's, 3 neither), then the Job's answer and the JobSet's,
# split by 0xFF. The objects are make_pods' Jobs and JobSets of the tests' pods, as fake_api
# serves a GET.
K8S_JOB_STATUS = {200: 0, 403: 5, 404: 6, 500: 7}
K8S_JOBSET_KEY = "jobset.sigs.k8s.io/jobset-name"
K8S_JOB_PATHS = {"jobs": "/apis/batch/v1/namespaces/default/jobs/",
                 "jobsets": "/apis/jobset.x-k8s.io/v1alpha2/namespaces/default/jobsets/"}


def k8s_job_own_pods():
    """own_pods[] of fuzz_k8s_job.c: (hostname, JOB_COMPLETION_INDEX, Job) each, the index None
    unless the hostname is "<Job>-<index>" (the others never name their Job)."""
    text = read(os.path.join(HERE, "fuzz_k8s_job.c"))
    table = re.search(r"own_pods\[\d*\] = \{\n(.*?)\n\};", text, re.S).group(1)
    rows = [[None if null else s for s, null in re.findall(r'"([^"]*)"|(NULL)', row)]
            for row in re.findall(r"\{([^{}]*)\}", table)]
    return [(host, index if index and index == str(int(index)) and host == job + "-" + index else None, job)
            for host, index, job in (row[:3] for row in rows)]


def indexed_jobs(pods):
    """{(namespace, Job): completions} of the Indexed pods of plain Jobs (not a JobSet's)."""
    out = {}
    for p in pods:
        labels = p["metadata"].get("labels") or {}
        index = labels.get("batch.kubernetes.io/job-completion-index")
        if index is not None and "job-name" in labels and K8S_JOBSET_KEY not in labels:
            key = (p["metadata"]["namespace"], labels["job-name"])
            out[key] = max(out.get(key, 0), int(index) + 1)
    return out


def k8s_job_objects():
    """(source, Jobs, JobSets) as test_fake_api.py makes them (JOBSETS, and Indexed Job solo)
    for the jobset fixture's pods, and for make_pods' own (all Running); a plain Indexed Job of
    each fixture's other Indexed pods; and one of each own pod's Job that is no JobSet's."""
    jobsets = py_file("k8s", "test_fake_api.py").scope.get("JOBSETS") or []
    fixtures = [(tag_of(path), json.loads(read(path))["items"])
                for path in sorted(glob.glob(os.path.join(TESTS, "k8s", "fixtures", "*.json")))]
    named = set()
    for tag, pods in fixtures:
        sets = [(name, rjobs) for name, rjobs in jobsets
                if any((p["metadata"].get("labels") or {}).get(K8S_JOBSET_KEY) == name for p in pods)]
        plain = [make_pods.make_job(job, ns, completions=n, pods=pods)
                 for (ns, job), n in sorted(indexed_jobs(pods).items())]
        for source, chosen in ((tag, pods), ("make_pods", None)):
            jobs = [j for name, rjobs in sets for j in make_pods.make_jobset_jobs(name, rjobs, "default", chosen)]
            named.update(j["metadata"]["name"] for j in jobs)
            yield source, jobs + plain, [make_pods.make_jobset(name, rjobs, "default", chosen)
                                         for name, rjobs in sets]
    for host, index, job in k8s_job_own_pods():
        if index is not None and job not in named:
            yield "make_pods", [make_pods.make_job(job, "default", completions=int(index) + 2)], []


def k8s_job_seeds():
    own = k8s_job_own_pods()
    for source, jobs, sets in k8s_job_objects():
        job_store = fake_api.PodStore(jobs, resource=fake_api.JOB)
        set_store = fake_api.PodStore(sets, resource=fake_api.JOBSET)
        for job in jobs:
            name, ns = job["metadata"]["name"], job["metadata"]["namespace"]
            jobset = (job["metadata"].get("labels") or {}).get(K8S_JOBSET_KEY)
            body = job_store.get(ns, name).body
            set_body = set_store.get(ns, jobset).body if jobset else b""
            for pod in (n for n, (_, index, j) in enumerate(own)  # pods the Job has
                        if j == name and index is not None and int(index) < job["spec"]["completions"]):
                variants = [(0, 0, 8, set_body), (0, 0, 0, set_body), (0, 0, 8 | 48, set_body)]
                if jobset:
                    variants += [
                        (0, 0, 16, set_body),
                        (0, 6, 8, fake_api.PodStore([], resource=fake_api.JOBSET).get(ns, jobset).body),
                        (0, 5, 16, fake_api.forbidden_reply("GET", K8S_JOB_PATHS["jobsets"] + jobset).body)]
                pod = (pod & 7) | (pod & 8) << 4
                for job_status, set_status, flags, answer in variants:
                    yield source, bytes([job_status | set_status << 3, pod | flags]) + body + b"\xff" + answer
                yield source, bytes([K8S_JOB_STATUS[403], pod]) + \
                    fake_api.forbidden_reply("GET", K8S_JOB_PATHS["jobs"] + name).body


def gce_groups():
    """(source, instances, region or None) of the groups the GCP tests make with make_gcp."""
    for name in ("test_gcp_integration.py", "test_fake_gcp.py"):
        f = py_file("gcp", name)
        for kwargs, insts in f.calls("make_instances"):
            if insts:
                yield f.tag, insts, kwargs.get("region")
        for _, insts in f.values(ast.List):  # [mg.make_instance(...), ...]
            if insts and all(isinstance(i, dict) and i.get("kind") == "compute#instance"
                             for i in insts):
                zones = {i["zone"] for i in insts}
                yield f.tag, insts, None if len(zones) == 1 else make_gcp.region_of(
                    insts[0]["zone"].rsplit("/", 1)[1])


def gce_generated():
    list_fields = py_file("gcp", "test_gcp_integration.py").scope["LIST_FIELDS"]
    for n, (tag, insts, region) in enumerate(gce_groups()):
        routes, group_path = gce_routes(insts, "fuzz-group", region, list_fields)
        opts = {"region": region, "port": 2222 if n % 2 else 0,
                "job_name": "trainer" if n % 4 == 3 else None}
        yield Snapshot("gce", {}, opts, routes, tag)
        if n == 0:  # the same group, not authorized; and the list and metadata failing
            denied = dict(reply_text(forbidden("compute", "POST", group_path)), url=group_path)
            yield Snapshot("gce", {}, {}, [denied], "fake_gcp")
            no_name = fake_gcp.MetadataStore({}).reply("/computeMetadata/v1/instance/name", {},
                                                       {"Metadata-Flavor": "Google"})
            failing = [routes[0],
                       dict(reply_text(fake_gcp.compute_error(500)), url=routes[1]["url"]),
                       dict(reply_text(no_name), url="instance/name")]
            yield Snapshot("gce", {}, {}, failing, "fake_gcp")


def gce_lists_seeds():
    yield from encoded(gce_generated(), gce_seed)
    yield from encoded(c_snapshots("test_gcp.c", "gce"), gce_seed)


def tpu_generated():
    """The make_tpu_node nodes of the GCP tests as the fake TPU API answers them, and the
    TPU environments and endpoint lists of the integration test."""
    nodes = []
    for name in ("test_gcp_integration.py", "test_fake_gcp.py"):
        f = py_file("gcp", name)
        nodes += [(f.tag, node) for _, node in f.calls("make_tpu_node", "tf_node")]
    for n, (tag, node) in enumerate(nodes):
        v1 = node.get("apiVersion") == "V1"
        opts = {"tpu": node["name"].rsplit("/", 1)[1], "api_version": "v1" if v1 else None,
                "project": "p", "token": "t", "allow_unhealthy": int(node.get("health") not in
                                                                     (None, "HEALTHY")),
                "coordinator_name": "coordinator" if n % 3 == 2 else None}
        yield Snapshot("tpu", {}, opts, [tpu_route(node, "v1" if v1 else "v2")], tag)
    tag, node = nodes[0]
    denied = forbidden("tpu", "GET", "/v2/" + node["name"])
    yield Snapshot("tpu", {}, {"tpu": "t", "project": "p", "token": "t"},
                   [dict(reply_text(denied), url="/v2/" + node["name"])], "fake_gcp")
    integration = py_file("gcp", "test_gcp_integration.py")
    yield from env_snapshots(integration, "tpu", ("KUBE_GOOGLE_CLOUD_TPU_ENDPOINTS",
                                                  "TPU_WORKER_HOSTNAMES", "TPU_CONFIG"))
    for _, text in integration.values(ast.Constant):  # the endpoint lists given as names
        if isinstance(text, str) and re.fullmatch(r"((grpc://)?[\w.:\[\]]+:\d+,?)+"
                                                  r"(grpc://[\w.\[\]:]+)?", text):
            yield Snapshot("tpu", {}, {"tpu": text, "project": "p", "token": "t"}, [],
                           integration.tag)


def tpu_node_seeds():
    yield from encoded(tpu_generated(), tpu_seed)
    yield from encoded(c_snapshots("test_gcp.c", "tpu"), tpu_seed)


HOSTLIST_VARIABLES = ("SLURM_STEP_NODELIST", "SLURM_JOB_NODELIST", "SLURM_NODELIST",
                      "SLURM_STEP_TASKS_PER_NODE", "SLURM_TASKS_PER_NODE",
                      "SLURM_JOB_CPUS_PER_NODE")


def quick_hostlist(text):
    hosts = hostlist_oracle.count_hosts(text)
    return hosts is None or hosts <= MAX_EXPANDED_HOSTS or hosts > hostlist_oracle.MAX_HOSTS


def hostlist_seeds():
    for _, text in replay("test_hostlist.c").observed:
        yield "test_hostlist", c_bytes(text)
    for snap in c_snapshots("test_hpc.c", "slurm"):
        for name in HOSTLIST_VARIABLES:
            if known_text(snap.env.get(name)):
                yield "test_hpc", c_bytes(snap.env[name])
    for text in hostlist_oracle.corpus(HOSTLIST_ORACLE_SEED, 700):
        if quick_hostlist(text):
            yield "hostlist_oracle", text.encode()


def slurm_env_seeds():
    yield from encoded(c_snapshots("test_hpc.c", "slurm"), slurm_seed)
    yield from encoded(env_snapshots(py_file("test_cli.py"), "slurm", ("SLURM_JOB_ID",
                                                                       "SLURM_STEP_NODELIST")),
                       slurm_seed)


def sm_hosts_seeds():
    yield from encoded(c_snapshots("test_hpc.c", "sagemaker"), sm_seed)
    yield from encoded(env_snapshots(py_file("test_cli.py"), "sagemaker", ("SM_HOSTS",)), sm_seed)


def python_hostfiles():
    """test_cli.py's MPI hostfiles with the Open MPI variables of their test; test_mpi.py's
    fake hosts, with the slots, rank count and mapping of each fake_hosts() call."""
    cli = py_file("test_cli.py")
    for fdef in (f for f in ast.walk(cli.tree) if isinstance(f, ast.FunctionDef)
                 and "mpi" in f.name):
        texts = [py_eval(c.args[0], cli.scope) for c in ast.walk(fdef)
                 if isinstance(c, ast.Call) and getattr(c.func, "attr", "") == "write"
                 and c.args and isinstance(c.args[0], ast.Constant)]
        envs = [e for _, e in cli.values(ast.Dict, lambda name: name == fdef.name)
                if "OMPI_COMM_WORLD_SIZE" in e]
        for text in texts:
            for env in envs or [{}]:
                yield Snapshot("mpi", env, {"hostfile": FileText(text)}, [], cli.tag)
    mpi = py_file("mpi", "test_mpi.py")
    for node in ast.walk(mpi.tree):
        if isinstance(node, ast.Call) and getattr(node.func, "id", "") == "fake_hosts":
            yield from fake_hosts_snapshot(node, mpi)


def fake_hosts_snapshot(call, mpi):
    """fake_hosts(slots, np, mpirun_args=...): the hostfile it writes ("fakenodeN slots=S"
    lines) and the Open MPI variables mpirun gives rank 1."""
    try:
        slots, np = (py_eval(a, mpi.scope) for a in call.args[:2])
        args = {kw.arg: py_eval(kw.value, mpi.scope) for kw in call.keywords}
    except (Unevaluable, ValueError):
        return
    if not slots:
        return
    text = "".join("fakenode%d slots=%d\n" % (i + 1, s) for i, s in enumerate(slots))
    how = args.get("mpirun_args", [])
    env = {"OMPI_COMM_WORLD_SIZE": str(np), "OMPI_COMM_WORLD_RANK": "1"}
    for flag, variable in (("--map-by", "OMPI_MCA_rmaps_base_mapping_policy"),
                           ("--rank-by", "OMPI_MCA_rmaps_base_ranking_policy")):
        if flag in how:
            env[variable] = how[how.index(flag) + 1]
    yield Snapshot("mpi", env, {"hostfile": FileText(text)}, [], mpi.tag)


def hostfile_seeds():
    yield from encoded(c_snapshots("test_hpc.c", "mpi"), hostfile_seed)
    yield from encoded(python_hostfiles(), hostfile_seed)


# fuzz_launch_env: a selector byte (0 torch, 1 jax, 2 awsbatch, 3 auto; bits 2-3 task type
# none, "worker", "chief", ""; bit 4 rpc layer "grpc"; bits 5-6 port 0, 1234, 65535, -1; bit 7
# main_host "main-0.internal"), the task id byte with a task type, then NAME=VALUE lines.
LAUNCH_SELECTOR = {"torch": 0, "jax": 1, "awsbatch": 2}
LAUNCH_TASK_TYPES = {"worker": 1, "chief": 2, "": 3}
LAUNCH_PORTS = {0: 0, 1234: 1, 65535: 2, -1: 3}
LAUNCH_C_TESTS = ["test_launch.c", "test_resolvers.c", "test_hpc.c", "test_tfconfig.c", "test_k8s.c", "test_gcp.c"]
LAUNCH_KEYS = ("TORCHELASTIC_RUN_ID", "MASTER_ADDR", "RANK", "WORLD_SIZE", "PET_NNODES",
               "JAX_COORDINATOR_ADDRESS", "AWS_BATCH_JOB_NODE_INDEX", "OMPI_COMM_WORLD_SIZE",
               "SLURM_JOB_ID", "SLURM_STEP_NODELIST", "SM_HOSTS", "TF_CONFIG", "LOCAL_RANK",
               "JOB_COMPLETION_INDEX", "CLUSTER_RESOLVER_BACKEND")


def launch_seed(snap):
    """A resolver's environment for fuzz_launch_env: torch, jax and awsbatch as themselves,
    every other backend's environment through auto (a forced options.backend becomes
    CLUSTER_RESOLVER_BACKEND); the task, rpc layer, port and main host when the target can
    say them."""
    env = dict(snap.env)
    o = snap.opts
    backend = LAUNCH_SELECTOR.get(snap.backend, 3)
    if snap.backend == "auto" and known_text(o.get("backend")) and \
            "CLUSTER_RESOLVER_BACKEND" not in env:
        env["CLUSTER_RESOLVER_BACKEND"] = o["backend"]
    if not all(known_text(k) and known_text(v) and "=" not in k and "\n" not in k + v and
               "\0" not in k + v and k for k, v in env.items()):
        return None
    flags, task = backend, b""
    task_type, task_id = o.get("task_type"), o.get("task_id", 0)
    if known_text(task_type) and task_type in LAUNCH_TASK_TYPES and isinstance(task_id, int) \
            and -128 <= task_id <= 127:
        flags |= LAUNCH_TASK_TYPES[task_type] << 2
        task = bytes([task_id & 255])
    if o.get("main_host") == "main-0.internal":
        flags |= 128
    if o.get("rpc_layer") == "grpc":
        flags |= 16
    port = o.get("port", o.get("port_base", 0))
    if isinstance(port, int) and port in LAUNCH_PORTS:
        flags |= LAUNCH_PORTS[port] << 5
    return bytes([flags]) + task + c_bytes("".join("%s=%s\n" % kv for kv in env.items()))


def launch_env_seeds():
    """Sources named by file and backend ("test_launch_jax"), so that each backend of a test
    file gets its turn in choose()."""
    snaps = []
    for name in LAUNCH_C_TESTS:
        snaps += [s for s in replay(name).snapshots if s.env or s.backend == "auto"]
    for pyfile in (py_file("test_cli.py"), py_file("launchers", "test_torchrun.py")):
        for snap in env_snapshots(pyfile, "auto", LAUNCH_KEYS):
            snaps.append(snap)
            for backend, keys in (("torch", ("MASTER_ADDR", "PET_NNODES", "TORCHELASTIC_RUN_ID")),
                                  ("jax", ("JAX_COORDINATOR_ADDRESS",)),
                                  ("awsbatch", ("AWS_BATCH_JOB_NODE_INDEX",))):
                if any(k in snap.env for k in keys):
                    snaps.append(snap._replace(backend=backend))
    for snap in snaps:
        data = launch_seed(snap)
        if data is not None:
            kind = snap.backend if snap.backend in LAUNCH_SELECTOR else "auto"
            yield "%s_%s" % (snap.source, kind), data


# fuzz_platform_env: a selector byte (bits 0-2 backend: 0 vertex, 1 skypilot, 2 volcano, 3 lws,
# 4 auto; bits 3-4 task type none, "worker", "workerpool0", ""; bit 5 rpc layer "grpc"; bits 6-7
# port 0, 2222, 65535, -1), the task id byte with a task type, then NAME=VALUE entries separated
# by NUL bytes, where "--cluster-spec", "--hostname" and "--job-name" are the options.
PLATFORM_SELECTOR = {"vertex": 0, "skypilot": 1, "volcano": 2, "lws": 3}
PLATFORM_TASK_TYPES = {"worker": 1, "workerpool0": 2, "": 3}
PLATFORM_PORTS = {0: 0, 2222: 1, 65535: 2, -1: 3}
PLATFORM_OPTIONS = (("cluster_spec", "--cluster-spec"), ("hostname", "--hostname"), ("job_name", "--job-name"))
PLATFORM_KEYS = ("CLUSTER_SPEC", "SKYPILOT_NODE_IPS", "VC_TASK_INDEX", "VK_TASK_INDEX",
                 "LWS_LEADER_ADDRESS", "LWS_WORKER_INDEX")


def platform_seed(snap):
    """A resolver's environment for fuzz_platform_env: the four platforms as themselves, every
    other backend's environment through auto (a forced options.backend becomes
    CLUSTER_RESOLVER_BACKEND); the options, task, rpc layer and port when the target can say
    them."""
    env = dict(snap.env)
    o = snap.opts
    backend = PLATFORM_SELECTOR.get(snap.backend, 4)
    if snap.backend == "auto" and known_text(o.get("backend")) and \
            "CLUSTER_RESOLVER_BACKEND" not in env:
        env["CLUSTER_RESOLVER_BACKEND"] = o["backend"]
    entries = [(flag, o[key]) for key, flag in PLATFORM_OPTIONS
               if backend != 4 and known_text(o.get(key))] + list(env.items())
    if not all(known_text(k) and known_text(v) and k and "=" not in k and "\0" not in k + v
               for k, v in entries):
        return None
    flags, task = backend, b""
    task_type, task_id = o.get("task_type"), o.get("task_id", 0)
    if known_text(task_type) and task_type in PLATFORM_TASK_TYPES and isinstance(task_id, int) \
            and -128 <= task_id <= 127:
        flags |= PLATFORM_TASK_TYPES[task_type] << 3
        task = bytes([task_id & 255])
    if o.get("rpc_layer") == "grpc":
        flags |= 32
    port = o.get("port", 0)
    if isinstance(port, int) and port in PLATFORM_PORTS:
        flags |= PLATFORM_PORTS[port] << 6
    return bytes([flags]) + task + b"\0".join(c_bytes("%s=%s" % kv) for kv in entries)


def platform_env_seeds():
    """test_platforms.c's resolvers (named by backend, so that each gets its turn in choose()),
    and test_cli.py's platform environments, through auto and as their backend."""
    snaps = [s for s in replay("test_platforms.c").snapshots if s.env or s.backend == "auto"]
    for snap in env_snapshots(py_file("test_cli.py"), "auto", PLATFORM_KEYS):
        snaps.append(snap)
        for backend, key in (("vertex", "CLUSTER_SPEC"), ("skypilot", "SKYPILOT_NODE_IPS"),
                             ("volcano", "VC_TASK_INDEX"), ("lws", "LWS_LEADER_ADDRESS")):
            if key in snap.env:
                snaps.append(snap._replace(backend=backend))
    for snap in snaps:
        data = platform_seed(snap)
        if data is not None:
            kind = snap.backend if snap.backend in PLATFORM_SELECTOR else "auto"
            yield "%s_%s" % (snap.source, kind), data


# fuzz_sched_files: byte 0 the source (0 pbs PBS_NODEFILE, 1 lsf LSB_DJOB_RANKFILE, 2 lsf
# LSB_MCPU_HOSTS, 3 sge PE_HOSTFILE, 4 flux hostfile, 5 mpi PE_HOSTFILE, 6 mpi hostfile (Open
# MPI's default, PBS_NODEFILE, LSB_DJOB_RANKFILE), 7 mpi LSB_MCPU_HOSTS), bits 3-4 the ranks
# (none; rank and size; with local ranks), bit 5 CSM_ALLOCATION_ID, bit 6 NSLOTS or
# FLUX_JOB_NNODES; byte 1 the world size (1..255, 0 = every slot), byte 2 the rank, byte 3
# bit 0 jobs, bit 1 port_base 65000, bit 2 CUDA_VISIBLE_DEVICES; then the file or variable.
SCHED_SOURCES = [("pbs", "PBS_NODEFILE", 0), ("lsf", "LSB_DJOB_RANKFILE", 1), ("lsf", "LSB_MCPU_HOSTS", 2),
                 ("sge", "PE_HOSTFILE", 3), ("mpi", "PE_HOSTFILE", 5),
                 ("mpi", "OMPI_MCA_orte_default_hostfile", 6), ("mpi", "PBS_NODEFILE", 6),
                 ("mpi", "LSB_DJOB_RANKFILE", 6), ("mpi", "LSB_MCPU_HOSTS", 7)]
SCHED_RANKS = [("PALS_RANKID", "PMI_SIZE", "PALS_LOCAL_RANKID"), ("PBS_VNODENUM", None, None),
               ("JSM_NAMESPACE_RANK", "JSM_NAMESPACE_SIZE", "JSM_NAMESPACE_LOCAL_RANK"),
               ("FLUX_TASK_RANK", "FLUX_JOB_SIZE", "FLUX_TASK_LOCAL_ID"),
               ("OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE", "OMPI_COMM_WORLD_LOCAL_RANK"),
               ("PMI_RANK", "PMI_SIZE", None)]


def sched_seed(snap):
    env, o = snap.env, snap.opts
    found = [(var, code) for backend, var, code in SCHED_SOURCES
             if backend == snap.backend and known_text(env.get(var))]
    if snap.backend in ("flux", "mpi") and isinstance(o.get("hostfile"), FileText):
        found = [("hostfile", 4 if snap.backend == "flux" else 6)]  # mpi: as Open MPI's default
    if not found:
        return None
    var, source = found[0]
    text = o["hostfile"] if var == "hostfile" else env[var]
    if source not in (2, 7) and not isinstance(text, FileText):
        return None  # a path the replay cannot read (a missing file)
    ranks, world, rank = 0, 0, 0
    for rank_var, size_var, local_var in SCHED_RANKS:
        r = env.get(rank_var)
        if known_text(r) and r.isdigit():
            size = env.get(size_var) if size_var else None
            ranks = 2 if local_var and local_var in env else 1
            world = int(size) if known_text(size) and size.isdigit() and 1 <= int(size) <= 255 else 0
            rank = int(r) % 256
            break
    flags = source | ranks << 3 | ("CSM_ALLOCATION_ID" in env) << 5 | \
        ("NSLOTS" in env or "FLUX_JOB_NNODES" in env) << 6
    extra = (1 if o.get("jobs") else 0) | (2 if o.get("port_base") == 65000 else 0) | \
        (4 if "CUDA_VISIBLE_DEVICES" in env else 0)
    return bytes([flags, world, rank, extra]) + c_bytes(text)


def sched_files_seeds():
    yield from encoded(c_snapshots("test_sched.c", "pbs") + c_snapshots("test_sched.c", "lsf") +
                       c_snapshots("test_sched.c", "sge") + c_snapshots("test_sched.c", "flux") +
                       c_snapshots("test_sched.c", "mpi"), sched_seed)
    yield from encoded(c_snapshots("test_hpc.c", "mpi"), sched_seed)


# fuzz_kubeconfig: byte 0 (bits 0-1 the files: 0 options.kubeconfig A, 1 $KUBECONFIG "A:B",
# 2 $KUBECONFIG with an empty name, a missing file and a repeat, 3 $HOME/.kube/config A; bit 2
# options.context; bit 3 a 401 first; bit 4 a CA-only transport; bits 5-6 the plugin exits 0,
# 0, 3 or cannot start; bit 7 all_namespaces), then file A, file B, the plugin's stdout and the
# context, separated by 0xFF.
KC_PLUGIN_EXITS_3 = 2 << 5


def kubeconfig_seed(snap):
    """A resolver of tests/test_kubeconfig.c: its kubeconfig files (the first two of a list),
    how they are named, its context and the last plugin answer scripted before it."""
    files, o, env = snap.opts.get("__files__", {}), snap.opts, snap.env
    explicit, listed, home = o.get("kubeconfig"), env.get("KUBECONFIG"), env.get("HOME")
    if known_text(explicit):
        mode, paths = 0, [explicit]
    elif known_text(listed) and listed:
        names = listed.split(":")
        paths = [n for i, n in enumerate(names) if n in files and n not in names[:i]]
        mode = 1 if names == paths and len(paths) <= 2 else 2
    elif known_text(home) and home + "/.kube/config" in files:
        mode, paths = 3, [home + "/.kube/config"]
    else:
        return None  # in-cluster, or files the replay did not see written
    if not paths or any(p not in files for p in paths):
        return None
    flags = mode
    context = o.get("context")
    if known_text(context):
        flags |= 4
    out = ""
    plugins = [r for r in snap.routes if "plugin" in r]
    if plugins:
        out = plugins[-1]["plugin"] if known_text(plugins[-1]["plugin"]) else ""
        if plugins[-1]["exit"] not in (0, None):
            flags |= KC_PLUGIN_EXITS_3
    parts = [c_bytes(t) for t in (files[paths[0]], files[paths[1]] if len(paths) > 1 else "",
                                  out, context if known_text(context) else "")]
    if any(b"\xff" in p for p in parts[:3]):
        return None
    while len(parts) > 1 and not parts[-1]:
        parts.pop()
    return bytes([flags]) + b"\xff".join(parts)


def kubeconfig_seeds():
    yield from encoded(kubeconfig_replay().snapshots, kubeconfig_seed)


# fuzz_gcp_credentials: byte 0 the backend, where the file is and what happens (bit 0 GCE,
# bits 1-2 the place, bit 3 a 401 first, bit 4 options.project, bit 5 the signer fails, bit 6 a
# second resolve), byte 1 the statuses (bits 0-2 the token endpoint's first: 0 is 200, 3 is
# 400), then the file, the token answer, generateAccessToken's answer and a later token answer,
# separated by 0xFF. The credentials files, token answers and generateAccessToken answers the
# GCP tests write as C literals and Python dicts, each file with answers taken in turn.
GCRED_TYPES = ("authorized_user", "service_account", "impersonated_service_account")
GCRED_C_TESTS = ["test_gcp.c", "test_alloc_fail_gcp.c"]


def gcred_documents():
    """(source, text, kind) of every credentials file ("file": a "type" member), token answer
    ("token": access_token), error answer ("error") and generateAccessToken answer ("iam")."""
    docs = [(src, text, doc) for src, text, doc in c_json_documents(GCRED_C_TESTS)]
    adc = os.path.join(TESTS, "gcp", "test_google_adc.py")
    if os.path.exists(adc):
        f = py_file("gcp", "test_google_adc.py")
        docs += [(f.tag, json.dumps(d, indent=2), d) for _, d in f.values(ast.Dict) if isinstance(d, dict)]
    for src, text, doc in docs:
        if not isinstance(doc, dict) or "\xff" in text:
            continue
        kind = "file" if isinstance(doc.get("type"), str) else "token" if "access_token" in doc \
            else "iam" if "accessToken" in doc else "error" if isinstance(doc.get("error"), str) else None
        if kind:
            yield src, text, kind


def gcp_credentials_seeds():
    docs = list(gcred_documents())
    answers = {k: [t for _, t, kind in docs if kind == k] or [""] for k in ("token", "iam", "error")}
    files = [(src, text) for src, text, kind in docs if kind == "file"]
    for n, (src, text) in enumerate(files):
        flags = (n * 0x2B) & 0x7F & ~0x20  # the signer works
        token, iam = answers["token"][n % len(answers["token"])], answers["iam"][n % len(answers["iam"])]
        later = answers["token"][(n + 1) % len(answers["token"])]
        yield src, bytes([flags, 0]) + b"\xff".join(c_bytes(t) for t in (text, token, iam, later))
        if n % 3 == 0:  # refused
            error = answers["error"][n % len(answers["error"])]
            yield src, bytes([flags & ~0x48, 3]) + b"\xff".join(c_bytes(t) for t in (text, error))


TARGETS = {"spec_json": spec_json_seeds, "tfconfig": tfconfig_seeds,
           "k8s_pods": k8s_pods_seeds, "k8s_job": k8s_job_seeds, "gce_lists": gce_lists_seeds,
           "tpu_node": tpu_node_seeds, "hostlist": hostlist_seeds,
           "slurm_env": slurm_env_seeds, "sm_hosts": sm_hosts_seeds,
           "hostfile": hostfile_seeds, "launch_env": launch_env_seeds,
           "sched_files": sched_files_seeds,
           "platform_env": platform_env_seeds, "kubeconfig": kubeconfig_seeds,
           "gcp_credentials": gcp_credentials_seeds}


# =============================================================================================
# Choosing and writing

def hand_seeds(name):
    out = set()
    for path in glob.glob(os.path.join(HERE, "corpus", name, "*")):
        with open(path, "rb") as f:
            out.add(f.read())
    return out


def choose(seeds, hand, max_bytes):
    """Distinct seeds, none a hand-written one, taken from the sources in turn so that a
    large source does not crowd out the small ones; at most MAX_SEEDS."""
    queues, seen = {}, set(hand)
    for source, data in seeds:
        if len(data) <= max_bytes and data not in seen:
            seen.add(data)
            queues.setdefault(source, []).append(data)
    picked, order = [], list(queues.items())
    while len(picked) < MAX_SEEDS and any(q for _, q in order):
        for source, queue in order:
            if queue and len(picked) < MAX_SEEDS:
                picked.append((source, queue.pop(0)))
    return picked


def main(argv):
    if len(argv) != 3 or argv[1] not in TARGETS:
        sys.exit("usage: fixture_seeds.py NAME OUTDIR   (NAME: %s)" % " ".join(sorted(TARGETS)))
    name, outdir = argv[1], argv[2]
    max_bytes = min(MAX_BYTES, TARGET_MAX_BYTES.get(name, MAX_BYTES))
    picked = choose(TARGETS[name](), hand_seeds(name), max_bytes)
    if len(picked) < MIN_SEEDS:  # the tests changed shape under the reader: say so, loudly
        sys.exit("fixture_seeds: only %d seeds for %s (want %d or more)" % (len(picked), name, MIN_SEEDS))
    os.makedirs(outdir, exist_ok=True)
    for source, data in picked:
        path = os.path.join(outdir, "%s-%s" % (source, hashlib.sha1(data).hexdigest()[:10]))
        with open(path, "wb") as f:
            f.write(data)
    print("fixture_seeds: %d seeds for %s in %s" % (len(picked), name, outdir))


if __name__ == "__main__":
    main(sys.argv)
