# bash completion for cluster-resolve(1), the CLI of cluster_resolver.h (examples/cluster-resolve.c).
#
# `make install` puts it in share/bash-completion/completions/cluster-resolve, where the
# bash-completion package loads it on first use; without that package, `source` it from
# ~/.bashrc. It needs nothing but bash (no bash-completion helpers). Completes the backend
# (first word), each backend's options, the values of --format, --members, --address,
# --api-version, --tpu and --task-type, file names after the options that take a file, host
# names after those that take a host, and the command after --exec [--].
# tests/install_test.sh checks it against `cluster-resolve --help` and against what the CLI
# accepts for each backend, so a change to the CLI's options shows up there.

_cluster_resolve_options() { # the options of backend $1, as the CLI accepts them
    local common="--format --task-type --task-id --rpc-layer --exec --verbose --help --version"
    local http="--timeout-ms --retries --resolve-timeout-ms --max-response-bytes"
    local hpc="--jobs --port-base --gpus-per-node --gpus-per-task"
    local google="--project --zone --metadata-url --token-file --credentials --ca-file --job-name"
    case $1 in
    auto) echo "$common $http --port --members" ;;
    simple) echo "$common --spec" ;;
    local) echo "$common --port --host" ;;
    k8s) echo "$common $http --kubeconfig --context --server --token-file --ca-file" \
        "--namespace --all-namespaces --job --address --wait --port --page-size" \
        "--cluster-domain --follow-jobset --members" ;;
    gce) echo "$common $http $google --instance-group --region --port --compute-url" ;;
    tpu) echo "$common $http $google --tpu --api-version --coordinator-name" \
        "--coordinator-address --allow-unhealthy --accelerators-per-host --tpu-url" ;;
    slurm | pbs | lsf | sge) echo "$common $hpc" ;;
    mpi) echo "$common $hpc --hostfile --host" ;;
    flux) echo "$common $hpc --hostfile" ;;
    sagemaker) echo "$common --port --job-name --resource-config --instance-groups" ;;
    awsbatch) echo "$common --port --main-host" ;;
    vertex) echo "$common --cluster-spec" ;;
    skypilot) echo "$common --port --job-name" ;;
    volcano) echo "$common --port --hostname" ;;
    lws) echo "$common --port --hostname --job-name" ;;
    *) echo "$common" ;; # tfconfig, torch, jax
    esac
}

_cluster_resolve() {
    local cur=${COMP_WORDS[COMP_CWORD]} prev="" backend=auto i w words
    local backends="auto simple tfconfig local slurm mpi sagemaker k8s gce tpu pbs lsf sge flux"
    backends+=" torch jax awsbatch vertex skypilot volcano lws"
    local formats="tfconfig spec hostfile machinefile launch torchrun torchrun-node jax master"
    # options that take no value; every other option takes the next word
    local flags=" --exec --verbose --help -h --version --all-namespaces --follow-jobset"
    flags+=" --allow-unhealthy --instance-groups "
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
        mapfile -t COMPREPLY < <(compgen -W "$backends" -- "$cur")
        return
    fi
    if ((COMP_CWORD > 1)) && [[ " $backends " == *" ${COMP_WORDS[1]} "* ]]; then
        backend=${COMP_WORDS[1]}
    fi

    case $prev in
    --format) words=$formats ;;
    --members) words="list job" ;;
    --address) words="pod-ip host-ip dns" ;;
    --api-version) words="v2 v1" ;;
    --tpu) words="local" ;;
    --task-type) words="chief worker ps evaluator" ;;
    --rpc-layer) words="grpc" ;;
    --kubeconfig | --hostfile | --credentials | --token-file | --ca-file | --resource-config)
        compopt -o filenames 2>/dev/null
        mapfile -t COMPREPLY < <(compgen -f -- "$cur")
        return
        ;;
    --host | --main-host | --hostname)
        mapfile -t COMPREPLY < <(compgen -A hostname -- "$cur")
        return
        ;;
    -*)
        # another option's value (a number, a URL, JSON...): nothing to offer
        if [[ $flags != *" $prev "* ]] && ((COMP_CWORD > 1)); then return; fi
        ;;
    esac
    if [[ -n $words ]]; then
        mapfile -t COMPREPLY < <(compgen -W "$words" -- "$cur")
        return
    fi

    # Options: the backend's, less those already given (--job is repeatable).
    words=""
    for w in $(_cluster_resolve_options "$backend"); do
        for ((i = 1; i < COMP_CWORD; i++)); do
            [[ ${COMP_WORDS[i]} == "$w" && $w != --job ]] && continue 2
        done
        words+=" $w"
    done
    mapfile -t COMPREPLY < <(compgen -W "$words" -- "$cur")
}

complete -F _cluster_resolve cluster-resolve
