#!/usr/bin/env bash
# The CLI as `make install` installs it: tests/cli_tool_test.sh PREFIX, after
# `make install PREFIX=PREFIX` (tests/install_test.sh runs it).
#  - PREFIX/bin/cluster-resolve runs: --version, a TF_CONFIG, --exec, exit 127 and 126;
#  - its manual page renders with man (every section), and groff and mandoc find nothing to
#    warn about;
#  - its bash completion registers with `complete -p` in a non-interactive bash, and completes
#    backends, formats, options and option values;
#  - drift: the CLI's own tables (--list-backends, --list-formats, --list-options), with --help and
#    --version, are all in the manual page and in the completion (backends and formats exactly);
#    for every backend, the options the completion offers are the ones the CLI accepts; the
#    values of --members, --address and --api-version are --help's; every exit code of --help
#    (126 and 127 among them) is in EXIT STATUS;
#    every environment variable the header reads is in the manual page.
set -euo pipefail
prefix=${1:?usage: cli_tool_test.sh PREFIX}
cli=$prefix/bin/cluster-resolve
page=$prefix/share/man/man1/cluster-resolve.1
completion=$prefix/share/bash-completion/completions/cluster-resolve
header=$prefix/include/cluster_resolver.h
tmp=$(mktemp -d "${TMPDIR:-/tmp}/cres-cli-tool.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
fail() { echo "cli_tool_test: $*" >&2; exit 1; }
step() { echo "== cli_tool_test: $*"; }
export LC_ALL=C.UTF-8
words() { tr ' ' '\n' | sed '/^$/d' | sort -u; } # a word list, one per line, sorted
missing() { # missing WHAT LIST-A LIST-B: fail naming the words of A that B lacks
    local gone
    gone=$(comm -23 <(words <<<"$2") <(words <<<"$3") | paste -sd' ')
    [ -z "$gone" ] || fail "$1: $gone"
}
same() { # same WHAT LIST-A LIST-B: the two word lists are equal
    missing "$1 (missing)" "$2" "$3"
    missing "$1 (extra)" "$3" "$2"
}

version=$(sed -n 's/^#define CLUSTER_RESOLVER_VERSION_\(MAJOR\|MINOR\|PATCH\) //p' "$header" | paste -sd.)
for f in "$cli" "$page" "$completion"; do [ -f "$f" ] || fail "not installed: $f"; done
[ -x "$cli" ] || fail "$cli is not executable"

step "$cli"
got=$("$cli" --version) && [ "$got" = "cluster-resolve $version" ] ||
    fail "--version printed '$got', not 'cluster-resolve $version'"
tf_config='{"cluster": {"chief": ["c0:2222"], "worker": ["w0:2222", "w1:2222"]},
            "task": {"type": "worker", "index": 1}}'
got=$(TF_CONFIG=$tf_config "$cli" --format master) && [ "$got" = w1:2222 ] ||
    fail "--format master printed '$got', not w1:2222"
got=$(TF_CONFIG=$tf_config "$cli" --format launch)
[[ $got == '{"world_size": 3, "rank": 2, '*'"master_addr": "c0", "master_port": 2222}' ]] ||
    fail "--format launch printed '$got'"
got=$(TF_CONFIG=$tf_config "$cli" --format torchrun --exec -- sh -c 'echo "$MASTER_ADDR:$MASTER_PORT $RANK/$WORLD_SIZE"')
[ "$got" = "c0:2222 2/3" ] || fail "--format torchrun --exec ran with '$got'"
exit_of() { local rc=0; "$@" >/dev/null 2>&1 || rc=$?; echo "$rc"; }
rc=$(exit_of "$cli" local --exec -- "$tmp/no-such-command") && [ "$rc" = 127 ] ||
    fail "--exec of a missing command: exit $rc, not 127"
touch "$tmp/not-executable"
rc=$(exit_of "$cli" local --exec -- "$tmp/not-executable") && [ "$rc" = 126 ] ||
    fail "--exec of a file that is not executable: exit $rc, not 126"
rc=$(exit_of "$cli" --no-such-option) && [ "$rc" = 2 ] || fail "an unknown option: exit $rc, not 2"
rc=$(exit_of env TF_CONFIG='{"cluster": [' "$cli") && [ "$rc" = 3 ] ||
    fail "a malformed TF_CONFIG: exit $rc, not 3"
echo "runs: --version, master $("$cli" local --format master), --exec, exit 127, 126, 2 and 3"

step "man -l $page"
help=$("$cli" --help)
MANWIDTH=80 man --warnings -l -P cat "$page" >"$tmp/page.txt" 2>"$tmp/man.err" || {
    cat "$tmp/man.err" >&2; fail "man -l $page failed"; }
[ ! -s "$tmp/man.err" ] || { cat "$tmp/man.err" >&2; fail "man -l $page warned"; }
for section in NAME SYNOPSIS DESCRIPTION BACKENDS OPTIONS FORMATS "EXIT STATUS" ENVIRONMENT \
               FILES EXAMPLES "SEE ALSO"; do
    grep -qx "$section" "$tmp/page.txt" || fail "the manual page has no section $section"
done
grep -q "^CLUSTER-RESOLVE(1) .* CLUSTER-RESOLVE(1)\$" "$tmp/page.txt" || fail "no CLUSTER-RESOLVE(1) header"
grep -q "cluster_resolver.h $version" "$tmp/page.txt" || fail "the page's footer does not say version $version"
groff -man -Tutf8 -ww -z "$page" 2>"$tmp/groff.err" && [ ! -s "$tmp/groff.err" ] || {
    cat "$tmp/groff.err" >&2; fail "groff -man -ww warned"; }
if command -v mandoc >/dev/null; then
    mandoc -T lint -W style "$page" >"$tmp/mandoc.err" 2>&1 || { cat "$tmp/mandoc.err" >&2; fail "mandoc -T lint"; }
    lint="groff -ww and mandoc -T lint: no warning"
else
    lint="groff -ww: no warning (mandoc is not installed)"
fi
echo "$(wc -l <"$tmp/page.txt") lines, $(grep -c '^[A-Z][A-Z ]*$' "$tmp/page.txt") sections; $lint"

# The CLI's own tables (--list-backends, --list-formats, --list-options: the option table the
# parser uses), against --help and the manual page's parts.
backends=$("$cli" --list-backends | words)
formats=$("$cli" --list-formats | words)
options="$( { "$cli" --list-options; for b in $backends; do "$cli" --list-options "$b"; done; } | cut -f1 | words)"
exits=$(sed -n '/^exit: /,$p' <<<"$help" | grep -oE '(^|[ ,:])[0-9]+ ' | tr -d ' ,:' | words)
[ "$(words <<<"$backends" | wc -l)" -ge 22 ] || fail "--list-backends names only these: $backends"
[ "$(words <<<"$formats" | wc -l)" -ge 10 ] || fail "--list-formats names only these: $formats"
[ "$(words <<<"$options" | wc -l)" -ge 50 ] || fail "--list-options names only these: $options"
[ "$(words <<<"$exits" | wc -l)" -ge 8 ] || fail "--help names only these exit codes: $exits"
missing "--help does not name these options" "$options" "$(grep -oE -- '--[a-z][a-z-]*' <<<"$help" | words)"
missing "--help does not name these backends" "$backends" "$(tr -c 'a-z0-9\n' ' ' <<<"$help" | tr ' ' '\n' | words)"
missing "--help does not name these formats" "$formats" "$(tr -c 'a-z0-9\n-' ' ' <<<"$help" | tr ' ' '\n' | words)"
# The tags of the page's .TP/.TQ paragraphs in section $1, as words (from the roff source).
tags() {
    awk -v want="$1" '/^\.SH / {sec = substr($0, 5); gsub(/"/, "", sec)}
        /^\.(TP|TQ)$/ && sec == want {getline t; print t}' "$page" |
        sed 's/^\.[A-Z]* //; s/\\-/-/g; s/\\f[BIRP]//g; s/"//g; s/,//g' | tr ' ' '\n' | words
}
same "the manual page's BACKENDS against --list-backends" "$backends" "$(tags BACKENDS)"
same "the manual page's FORMATS against --list-formats" "$formats" "$(tags FORMATS)"
missing "the manual page's OPTIONS lack" "$options" "$(tags OPTIONS | grep -- '^--')"
same "the manual page's EXIT STATUS against --help's exit codes" "$exits" "$(tags 'EXIT STATUS')"
# Every variable name the header quotes, but its compile switches: in the manual page. Names
# are quoted alone, in name lists ("A\0B\0") or as the value of a cres__*_var array.
vars=$( { grep -oE '"[A-Z][A-Za-z0-9]*_[A-Za-z0-9_]*"' "$header" | tr -d '"'
          grep -oE '"[^"]*\\0[^"]*"' "$header" | sed 's/\\0/\n/g' | tr -d '"' |
              grep -xE '[A-Z][A-Za-z0-9]*_[A-Za-z0-9_]*'
          grep -oE '(getenv|cres__env_[a-z]+)\([^,()]*, *"[A-Z][A-Za-z0-9_]*"' "$header" | grep -oE '"[^"]*"' | tr -d '"'
          grep -oE 'cres__[a-z_]*_var\[\] = "[A-Z][A-Za-z0-9_]*"' "$header" | grep -oE '"[^"]*"' | tr -d '"'
        } | grep -v '^CLUSTER_RESOLVER_NO_\|^CRES_' | words)
[ "$(wc -l <<<"$vars")" -ge 100 ] || fail "only $(wc -l <<<"$vars") variable names found in $header"
gone=$(while read -r v; do grep -qF -- "$v" "$tmp/page.txt" || echo "$v"; done <<<"$vars" | paste -sd' ')
[ -z "$gone" ] || fail "variables the header reads, not in the manual page: $gone"
echo "manual page: $(words <<<"$backends" | wc -l) backends, $(words <<<"$formats" | wc -l) formats," \
     "$(words <<<"$options" | wc -l) options, exit codes $(paste -sd' ' <<<"$exits")," \
     "$(wc -l <<<"$vars") environment variables"

step "bash completion $completion"
registered=$(bash --norc --noprofile -c 'source "$1" && complete -p cluster-resolve' _ "$completion") ||
    fail "sourcing $completion did not register a completion for cluster-resolve"
[ "$registered" = "complete -F _cluster_resolve cluster-resolve" ] || fail "complete -p: $registered"
# complete WORD... : what the completion offers for the last word (one per line), as bash asks
# it: COMP_WORDS, COMP_CWORD, COMP_LINE, COMP_POINT, then the function `complete -p` names. The
# completion asks the command (COMP_WORDS[0], found on PATH) for its tables.
mkdir "$tmp/files" && touch "$tmp/files/kube.yaml" "$tmp/files/key.json"
cat >"$tmp/complete.sh" <<'EOF'
source "$1"; shift
COMP_WORDS=("$@"); COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
COMP_LINE="${COMP_WORDS[*]}"; COMP_POINT=${#COMP_LINE}; COMPREPLY=()
fn=$(complete -p cluster-resolve | sed -n 's/.* -F \([^ ]*\) .*/\1/p')
"$fn" cluster-resolve "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD - 1]}"
printf '%s\n' "${COMPREPLY[@]}"
EOF
offer() { PATH="$prefix/bin:$PATH" bash --norc --noprofile "$tmp/complete.sh" "$completion" cluster-resolve "$@"; }
[ "$(offer sl | paste -sd' ')" = slurm ] || fail "cluster-resolve sl<TAB>: $(offer sl | paste -sd' ')"
same "cluster-resolve <TAB> against --list-backends" "$backends" "$(offer '' | paste -sd' ')"
same "cluster-resolve --format <TAB> against --list-formats" "$formats" "$(offer --format '' | paste -sd' ')"
[ "$(offer k8s --format torch | paste -sd' ')" = "torchrun torchrun-node" ] ||
    fail "cluster-resolve k8s --format torch<TAB>: $(offer k8s --format torch | paste -sd' ')"
for opt in --members --address --api-version; do
    want=$(grep -oE -- "$opt [a-z0-9|-]+" <<<"$help" | head -1 | sed "s/^$opt //" | tr '|' ' ')
    [ -n "$want" ] || fail "--help gives no values for $opt"
    same "cluster-resolve ... $opt <TAB> against --help" "$want" "$(offer auto "$opt" '' | paste -sd' ')"
done
for opt in --kubeconfig --hostfile --credentials --token-file --ca-file --resource-config; do
    got=$(offer "$opt" "$tmp/files/k" | paste -sd' ')
    [ "$got" = "$tmp/files/key.json $tmp/files/kube.yaml" ] || fail "$opt $tmp/files/k<TAB>: '$got'"
done
[ -z "$(offer k8s --port '')" ] || fail "cluster-resolve k8s --port <TAB> offered something"
[ "$(offer --exec -- python3 | grep -cx python3)" -ge 1 ] || fail "--exec -- python3<TAB> is not a command"
[ "$(offer k8s --job a=b --job c=d --j | paste -sd' ')" = "--job" ] ||
    fail "k8s --job ... --j<TAB> (--job is repeatable): $(offer k8s --job a=b --job c=d --j | paste -sd' ')"
[ "$(offer k8s --wait 5 --w | paste -sd' ')" = "" ] || fail "k8s --wait 5 --w<TAB> offered --wait again"
[ "$(offer k8s --wait=5 --w | paste -sd' ')" = "" ] || fail "k8s --wait=5 --w<TAB> offered --wait again"

# For each backend: what the completion offers is what the CLI accepts. An option applies when
# `cluster-resolve BACKEND OPTION [VALUE] --help` exits 0 (the parser checks the backend before
# it reaches --help); --exec ends the options, so it is not probed. Under auto, an option of any
# backend auto can pick is accepted on the command line (and refused, exit 2, when auto picks
# a backend that does not read it).
value_for() { case $1 in --format) echo launch ;; --members) echo job ;; --address) echo dns ;;
              --api-version) echo v1 ;; *) echo 1 ;; esac; }
flags=" --verbose --help --version --all-namespaces --follow-jobset --allow-unhealthy --instance-groups "
probed=0 offered_all=""
for b in $backends; do
    offered=$(offer "$b" - | words)
    offered_all+=" $offered"
    accepted=""
    for o in $options --help --version; do
        [ "$o" = --exec ] && continue
        if [[ $flags == *" $o "* ]]; then args=("$o"); else args=("$o" "$(value_for "$o")"); fi
        "$cli" "$b" "${args[@]}" --help >/dev/null 2>&1 && accepted+=" $o"
        probed=$((probed + 1))
    done
    same "$b: the options the completion offers against those the CLI accepts" \
        "$(grep -vx -- --exec <<<"$offered" | paste -sd' ')" "$accepted"
done
missing "options the completion never offers" "$options" "$offered_all"
echo "completion: registered; $(words <<<"$backends" | wc -l) backends, $(words <<<"$formats" | wc -l) formats," \
     "value and file completion; each backend's options against the CLI ($probed probes)"
