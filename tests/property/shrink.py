"""Shrinks a failing case to a minimal one that fails the same way: variables and files
dropped one at a time, file lines dropped, numbers made small, the command line made plain,
for as long as each step keeps the failure.
"""
import copy

SIMPLE_NUMBERS = ["0", "1", "2"]


def without_variable(case, name):
    c = copy.deepcopy(case)
    del c["env"][name]
    return c


def without_file(case, name):
    c = copy.deepcopy(case)
    del c["files"][name]
    return c


def without_line(case, name, k):
    c = copy.deepcopy(case)
    lines = c["files"][name].split("\n")
    del lines[k]
    c["files"][name] = "\n".join(lines)
    return c


def with_value(case, name, value):
    c = copy.deepcopy(case)
    c["env"][name] = value
    return c


def candidates(case):
    """Smaller cases, the biggest cuts first."""
    for name in sorted(case["env"]):
        yield without_variable(case, name)
    for name in sorted(case["files"]):
        yield without_file(case, name)
    for name in sorted(case["files"]):
        for k in range(len(case["files"][name].split("\n"))):
            yield without_line(case, name, k)
    for name, value in sorted(case["env"].items()):
        if value.isdigit():
            for simple in SIMPLE_NUMBERS + [str(int(value) // 2)]:
                if len(simple) < len(value) or int(simple) < int(value):
                    yield with_value(case, name, simple)
    if case.get("tfconfig"):
        yield dict(copy.deepcopy(case), tfconfig=False)


def shrink(case, fails, budget=600):
    """The smallest case found that still fails(); at most `budget` tries."""
    tries = 0
    progress = True
    while progress and tries < budget:
        progress = False
        for smaller in candidates(case):
            tries += 1
            if fails(smaller):
                case, progress = smaller, True
                break
            if tries >= budget:
                break
    return case
