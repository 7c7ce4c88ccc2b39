#!/usr/bin/env python3
"""The manual page's OPTIONS section is the CLI's option table: `cluster-resolve --man-options`
prints it, and docs/cluster-resolve.1 holds it between ".SH OPTIONS" and the next ".SH".

usage: man_options.py CLI PAGE           exit 1 naming the first difference when the page's
                                         section is not what the CLI prints (make test)
       man_options.py CLI PAGE --write   put the CLI's section into the page (make man)
"""
import subprocess
import sys


def split(page_text):
    """(before, section, after) of the page around its OPTIONS section."""
    lines = page_text.splitlines(keepends=True)
    start = next(i for i, line in enumerate(lines) if line.rstrip("\n") == ".SH OPTIONS")
    end = next(i for i in range(start + 1, len(lines)) if lines[i].startswith(".SH "))
    return "".join(lines[:start]), "".join(lines[start:end]), "".join(lines[end:])


def main():
    if len(sys.argv) not in (3, 4) or (len(sys.argv) == 4 and sys.argv[3] != "--write"):
        sys.exit(__doc__)
    cli, page = sys.argv[1], sys.argv[2]
    want = subprocess.run([cli, "--man-options"], capture_output=True, text=True, check=True).stdout
    with open(page) as f:
        before, have, after = split(f.read())
    if len(sys.argv) == 4:
        with open(page, "w") as f:
            f.write(before + want + after)
        print(f"man_options: wrote {page}'s OPTIONS section ({want.count(chr(10))} lines)")
        return
    if have != want:
        for n, (a, b) in enumerate(zip(have.splitlines() + [""], want.splitlines() + [""]), 1):
            if a != b:
                sys.exit(f"man_options: {page}'s OPTIONS section differs from `{cli} --man-options` at its "
                         f"line {n}:\n  page: {a!r}\n  CLI:  {b!r}\nrun `make man` to put the CLI's table in")
    print(f"man_options: {page}'s OPTIONS section is the CLI's option table ({want.count(chr(10))} lines)")


if __name__ == "__main__":
    main()
