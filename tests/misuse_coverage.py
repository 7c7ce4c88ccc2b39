#!/usr/bin/env python3
"""Every public function of cluster_resolver.h has a misuse case in tests/test_misuse.c.

The functions are the CRES_API declarations of the header's declarations part (before
"#endif /* CLUSTER_RESOLVER_H */"). A function is covered by a test of test_misuse.c that main()
runs, marked MISUSE_CASE(name), with a call of it in the file (a create function may be called
through CREATE_ANY), or by MISUSE_ELSEWHERE(name, "file"), whose file calls it. Fails naming each
function without a case, and each marker naming no public function.

usage: python3 tests/misuse_coverage.py [HEADER [TEST_FILE]]"""
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def public_functions(header_text):
    """The names of the CRES_API declarations before the implementation, in header order."""
    end = header_text.find("#endif /* CLUSTER_RESOLVER_H */")
    if end < 0:
        raise SystemExit("misuse_coverage: no '#endif /* CLUSTER_RESOLVER_H */' in the header")
    names = re.findall(r"^CRES_API\b[^(;]*?\b(cres_\w+)\s*\(", header_text[:end], re.M)
    if not names:
        raise SystemExit("misuse_coverage: no CRES_API declaration found in the header")
    return names


def test_functions(text):
    """{test function name: its body} of the `static void name(void **state)` functions."""
    bodies = {}
    for m in re.finditer(r"^static void (\w+)\(void \*\*state\) \{\n(.*?)^\}", text, re.M | re.S):
        bodies[m.group(1)] = m.group(2)
    return bodies


def check(header_path, test_path):
    """The problems found, as lines of text; none when every function has a case."""
    with open(header_path) as f:
        names = public_functions(f.read())
    with open(test_path) as f:
        text = f.read()
    declared = set(names)
    run = set(re.findall(r"cmocka_unit_test(?:_setup)?\((\w+)", text))
    marked = {}  # function -> the tests that mark it
    for test, body in test_functions(text).items():
        for name in re.findall(r"\bMISUSE_CASE\((\w+)\)", body):
            marked.setdefault(name, []).append(test)
    elsewhere = dict(re.findall(r'^MISUSE_ELSEWHERE\((\w+), "([^"]+)"\)', text, re.M))
    # calls: the name and "(" outside the markers, or the create wrapper CREATE_ANY(x, ...)
    unmarked = re.sub(r"\bMISUSE_(?:CASE|ELSEWHERE)\([^)]*\)", "", text)
    called = set(re.findall(r"\b(cres_\w+)\s*\(", unmarked))
    called |= {"cres_%s_resolver_create" % x for x in re.findall(r"^CREATE_ANY\((\w+),", text, re.M)}
    problems = []
    for name in sorted(set(marked) | set(elsewhere)):
        if name not in declared:
            problems.append("%s is marked but is no public function of %s" % (name, header_path))
    for name in names:
        if name in elsewhere:
            path = os.path.join(ROOT, elsewhere[name])
            if not os.path.exists(path):
                problems.append("%s: its cases' file %s does not exist" % (name, elsewhere[name]))
            elif not re.search(r"\b%s\s*\(" % name, open(path).read()):
                problems.append("%s: %s does not call it" % (name, elsewhere[name]))
        elif name not in marked:
            problems.append("%s has no misuse case: add a test marked MISUSE_CASE(%s) to %s"
                            % (name, name, test_path))
        elif not any(test in run for test in marked[name]):
            problems.append("%s: the tests marking it (%s) are not run by main()"
                            % (name, ", ".join(marked[name])))
        elif name not in called:
            problems.append("%s is marked but never called in %s" % (name, test_path))
    return names, problems


def main(argv):
    header = argv[1] if len(argv) > 1 else os.path.join(ROOT, "cluster_resolver.h")
    test = argv[2] if len(argv) > 2 else os.path.join(ROOT, "tests", "test_misuse.c")
    names, problems = check(header, test)
    for p in problems:
        print("misuse_coverage: " + p)
    if problems:
        return 1
    print("misuse_coverage: all %d public functions have a misuse case" % len(names))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
