#!/usr/bin/env bash
# Builds README.md's C example exactly as written and checks what it prints: against the
# header in the repository, or (argument "pkg-config") against an installed copy found
# through pkg-config, compiled from a directory where only the installed header is visible.
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
out=$root/build/readme
mkdir -p "$out"
awk '/<!-- readme-example -->/{on=1; next} on && /^```c/{grab=1; next} grab && /^```/{exit} grab' \
    "$root/README.md" > "$out/example.c"
[ -s "$out/example.c" ] || { echo "readme_example: no example found in README.md" >&2; exit 1; }
if [ "${1:-}" = pkg-config ]; then cflags=$(pkg-config --cflags cluster_resolver); else cflags=-I$root; fi
(cd "$out" && gcc -std=c99 -Wall -Wextra -Wpedantic -Werror $cflags example.c -o example) || {
    echo "readme_example: the README's example does not compile" >&2; exit 1; }
got=$(TF_CONFIG='{"cluster": {"chief": ["c0:2222"], "worker": ["w0:2222", "w1:2222"]},
                  "task": {"type": "worker", "index": 1}}' "$out/example")
want='worker 1 of {"chief": ["c0:2222"], "worker": ["w0:2222", "w1:2222"]}; master w1:2222'
if [ "$got" != "$want" ]; then
    printf 'readme_example: got  %s\nreadme_example: want %s\n' "$got" "$want" >&2
    exit 1
fi
echo "readme_example: the README example compiles and prints what it should (${1:-in-tree header})"
