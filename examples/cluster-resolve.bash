# bash completion for cluster-resolve(1), the CLI of cluster_resolver.h (examples/cluster-resolve.c).
#
# `make install` puts it in share/bash-completion/completions/cluster-resolve, where the
# bash-completion package loads it on first use; without that package, `source` it from
# ~/.bashrc. It needs nothing but bash (no bash-completion helpers). What it offers comes from
# the command itself, so it cannot drift from it: `cluster-resolve --list-backends`,
# `--list-formats` and `--list-options BACKEND` (each option, its value's name, its values)
# print the CLI's own tables. It completes the backend (first word), the backend's options
# (with auto: those of every backend auto can pick), the values of options that have a fixed
# set (--format, --members, --address, --api-version), file names after options whose value
# is a file (F), host names after those whose value is a host (H), and the command after
# --exec [--].

_cluster_resolve() {
    local cur=${COMP_WORDS[COMP_CWORD]} prev="" cmd=${COMP_WORDS[0]} backend=auto i w line
    local name meta values words="" table
    COMPREPLY=()
    ((COMP_CWORD > 0)) && prev=${COMP_WORDS[COMP_CWORD - 1]}

    # After --exec [--]: a command, then its own arguments.
    for ((i = 1; i < COMP_CWORD; i++)); do
        [[ ${COMP_WORDS[i]} == --exec ]] || continue
        w=$((i + 1))
        if ((COMP_CWORD == w)) && [[ $cur == -* ]]; then
            COMPREPLY=(--)
            return
        fi
        [[ ${COMP_WORDS[w]} == -- ]] && ((COMP_CWORD > w)) && w=$((w + 1))
        if ((COMP_CWORD == w)); then
            mapfile -t COMPREPLY < <(compgen -c -- "$cur")
        elif declare -F _command_offset >/dev/null; then
            _command_offset "$w" # bash-completion's: the command's own completion
        else
            compopt -o default 2>/dev/null
        fi
        return
    done

    if ((COMP_CWORD == 1)) && [[ $cur != -* ]]; then
        mapfile -t COMPREPLY < <(compgen -W "$("$cmd" --list-backends 2>/dev/null)" -- "$cur")
        return
    fi
    ((COMP_CWORD > 1)) && [[ ${COMP_WORDS[1]} != -* ]] && backend=${COMP_WORDS[1]}
    table=$("$cmd" --list-options "$backend" 2>/dev/null) || return

    # The value of the option before the cursor: its fixed values, a file, a host, or nothing.
    while IFS=$'\t' read -r name meta values; do
        [[ $prev == "$name" && $meta != - ]] || continue
        if [[ $values != - ]]; then
            mapfile -t COMPREPLY < <(compgen -W "${values//|/ }" -- "$cur")
        elif [[ $meta == F ]]; then
            compopt -o filenames 2>/dev/null
            mapfile -t COMPREPLY < <(compgen -f -- "$cur")
        elif [[ $meta == H ]]; then
            mapfile -t COMPREPLY < <(compgen -A hostname -- "$cur")
        fi
        return # a number, a URL, JSON...: nothing to offer
    done <<<"$table"

    # Options: the backend's, less those already given (--job is repeatable).
    while IFS=$'\t' read -r name meta values; do
        for ((i = 1; i < COMP_CWORD; i++)); do
            line=${COMP_WORDS[i]%%=*}
            [[ $line == "$name" && $name != --job ]] && continue 2
        done
        words+=" $name"
    done <<<"$table"
    mapfile -t COMPREPLY < <(compgen -W "$words" -- "$cur")
}

complete -F _cluster_resolve cluster-resolve
