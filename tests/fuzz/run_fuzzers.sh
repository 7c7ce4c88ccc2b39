#!/usr/bin/env bash
# Runs the libFuzzer targets of tests/fuzz/, JOBS at a time (this machine has 2 cores).
#
#   tests/fuzz/run_fuzzers.sh smoke JOBS BUILD FUZZER... [-- LIBFUZZER_ARGS...]
#   tests/fuzz/run_fuzzers.sh replay JOBS BUILD FUZZER... [-- LIBFUZZER_ARGS...]
#   tests/fuzz/run_fuzzers.sh explore SECONDS JOBS BUILD FUZZER... [-- LIBFUZZER_ARGS...]
#
# smoke (make fuzz-smoke, in make test) runs each target a fixed number of times (runs_of,
# below) with seed $FUZZ_SEED (default 1), and replays: the same binary, runs and seed give the
# same coverage (libFuzzer's final cov: and ft:) and the same new inputs on any machine, so a
# red smoke is a change of the code, never the load of the machine. Each target's figures go
# to BUILD/fuzz/NAME/figures. replay (make fuzz-replay) runs each target once more with the
# smoke's runs and seed and fails unless the figures and the new inputs are the smoke's (a
# target without figures of this binary runs twice). explore (make fuzz) runs each target for
# SECONDS with a fresh seed: a longer search, which does not replay.
#
# A run replays because nothing it depends on varies between processes:
#  - the number of runs, not a time limit (-max_total_time made it depend on speed), and no
#    corpus reload from disk every second (-reload=0);
#  - the seeds in one order: given to libFuzzer as a sorted list (-seed_inputs), not a
#    directory, whose order is the file system's; new inputs go to an empty directory;
#  - no value compared in the code steers a mutation (-use_cmp=0): libFuzzer would splice
#    into inputs the operands of recent comparisons, pointers among them, and those differ
#    with address space layout randomization; -use_value_profile=0 likewise;
#  - no stack depth as a feature (the Makefile builds with -fno-sanitize-coverage=stack-depth):
#    a frame's depth varies with where the randomized stack starts;
#  - leak detection on, length control at its default, pinned here (-detect_leaks=1,
#    -len_control=100), and an environment of PATH alone (env -i; the sanitizers' options at
#    their defaults);
#  - in the targets (fuzz_common.h): a fixed clock, files under one name in every process,
#    and the process environment cleared.
# One thing of the machine's is still read: auto opens the Kubernetes service account's token
# and SageMaker's resource config at their fixed paths (no hook redirects them), so
# fuzz_launch_env and fuzz_platform_env give other figures in a pod or on SageMaker.
#
# The seeds: the hand seeds (tests/fuzz/corpus/NAME/) and those tests/fuzz/fixture_seeds.py
# derives from the test fixtures, copied to BUILD/fuzz/NAME/seeds; the repository stays as it
# is. A target's log is printed whole when it ends; the run fails when any target found
# something (its crash input lands in BUILD/) or, for replay, did not replay. Each log gives
# the exact command of each run, to replay one target by hand.
set -u
mode=$1
shift
seconds=
if [ "$mode" = explore ]; then seconds=$1 && shift; fi
jobs=$1 build=$2
shift 2
fuzzers=()
while [ $# -gt 0 ] && [ "$1" != -- ]; do fuzzers+=("$1"); shift; done
[ $# -gt 0 ] && shift
extra=("$@")
seed=${FUZZ_SEED:-1}

# The smoke's runs per target: a quarter of what took 7 s of CPU each at -O1 (measured
# 2026-11-26), about 3 s at -O0: `make test` must stay well under 15 minutes, and `make fuzz`
# is the search.
runs_of() {
    case $1 in
    gce_lists) echo 18750 ;;
    gcp_credentials) echo 8500 ;;
    hostfile) echo 37500 ;;
    hostlist) echo 10000 ;;
    k8s_job) echo 12500 ;;
    k8s_pods) echo 7750 ;;
    kubeconfig) echo 5000 ;;
    launch_env) echo 37500 ;;
    platform_env) echo 42500 ;;
    sched_files) echo 2750 ;;
    slurm_env) echo 6750 ;;
    sm_hosts) echo 45000 ;;
    spec_json) echo 162500 ;;
    tfconfig) echo 95000 ;;
    tpu_node) echo 40000 ;;
    *) echo 5000 ;; # a new target: give it a line above
    esac
}

# The options every smoke and replay run gets (see above).
replay_options=(-use_cmp=0 -use_value_profile=0 -reload=0 -detect_leaks=1 -len_control=100)

# BUILD/fuzz/NAME/seeds, and their sorted list as -seed_inputs=@FILE reads it (commas).
make_seeds() { # NAME DIR
    rm -rf "$2" && mkdir -p "$2/seeds" &&
        cp tests/fuzz/corpus/"$1"/* "$2/seeds/" &&
        python3 tests/fuzz/fixture_seeds.py "$1" "$2/seeds" &&
        (cd "$2/seeds" && ls | LC_ALL=C sort) | sed "s|^|$2/seeds/|" | paste -sd, > "$2/seeds.list"
}

# One libFuzzer run of FUZZER into the empty directory OUT; its log in OUT.log, its figures
# ("cov C ft F inputs N names H": the final coverage, the new inputs and a hash of their names,
# which are hashes of their contents) in OUT.figures.
run_once() { # FUZZER DIR OUT ARGS...
    local f=$1 dir=$2 out=$3 cmd
    shift 3
    rm -rf "$out" && mkdir -p "$out"
    cmd=(env -i PATH="$PATH" "./$f" "$@" -print_final_stats=1 -artifact_prefix="$build/"
         -seed_inputs=@"$dir/seeds.list" "$out")
    echo "   \$ rm -rf $out && mkdir $out && env -i PATH=\"\$PATH\" ${cmd[*]:3}"
    "${cmd[@]}" > "$out.log" 2>&1
    local rc=$?
    local done
    done=$(grep -E '^#[0-9]+[[:space:]]+DONE ' "$out.log" | tail -1)
    printf 'cov %s ft %s inputs %s names %s\n' \
        "$(grep -oE 'cov: [0-9]+' <<< "$done" | cut -d' ' -f2)" \
        "$(grep -oE 'ft: [0-9]+' <<< "$done" | cut -d' ' -f2)" \
        "$(ls "$out" | wc -l)" "$(ls "$out" | LC_ALL=C sort | sha1sum | cut -c1-12)" > "$out.figures"
    return $rc
}

summary() { # LOG: the lines of a run's log worth printing
    grep -E '^(Done|stat::number_of_executed_units|stat::peak_rss_mb)|ERROR|SUMMARY' "$1"
}

run_one() { # FUZZER LOG
    local f=$1 name=${1##*/fuzz_} dir runs key rc
    dir=$build/fuzz/$name
    {
        case $mode in
        explore)
            make_seeds "$name" "$dir" || exit 1
            echo "== $f for $seconds s"
            run_once "$f" "$dir" "$dir/corpus" -max_total_time="$seconds" "${extra[@]}"
            rc=$?
            summary "$dir/corpus.log"
            exit $rc
            ;;
        smoke | replay)
            runs=$(runs_of "$name")
            key="binary $(sha1sum < "$f" | cut -c1-12) runs $runs seed $seed options ${replay_options[*]} ${extra[*]}"
            if [ "$mode" = replay ] && [ -f "$dir/figures" ] && [ "$(head -1 "$dir/figures")" = "$key" ]; then
                echo "== $f: the smoke's $runs runs again, seed $seed"
            else
                make_seeds "$name" "$dir" || exit 1
                echo "== $f: $runs runs, seed $seed"
                run_once "$f" "$dir" "$dir/corpus" -runs="$runs" -seed="$seed" "${replay_options[@]}" "${extra[@]}"
                rc=$?
                summary "$dir/corpus.log"
                [ $rc -eq 0 ] || exit $rc
                printf '%s\n%s\n' "$key" "$(cat "$dir/corpus.figures")" > "$dir/figures"
                echo "   $(cat "$dir/corpus.figures")"
                [ "$mode" = smoke ] && exit 0
            fi
            run_once "$f" "$dir" "$dir/again" -runs="$runs" -seed="$seed" "${replay_options[@]}" "${extra[@]}"
            rc=$?
            summary "$dir/again.log"
            [ $rc -eq 0 ] || exit $rc
            echo "   $(cat "$dir/again.figures")"
            if [ "$(sed -n 2p "$dir/figures")" != "$(cat "$dir/again.figures")" ]; then
                echo "   does not replay: $(sed -n 2p "$dir/figures") before; new inputs of one run only:"
                diff <(ls "$dir/corpus" | LC_ALL=C sort) <(ls "$dir/again" | LC_ALL=C sort) | grep '^[<>]' | head -5
                exit 1
            fi
            echo "   replays"
            ;;
        esac
    } > "$2" 2>&1
}

logs=() pids=() failed=0
mkdir -p "$build/fuzz"
for f in "${fuzzers[@]}"; do
    while [ "$(jobs -rp | wc -l)" -ge "$jobs" ]; do wait -n; done
    logs+=("$build/fuzz/${f##*/fuzz_}.log")
    run_one "$f" "${logs[-1]}" &
    pids+=($!)
done
for i in "${!pids[@]}"; do
    wait "${pids[$i]}" || { failed=1; echo "FAIL ${fuzzers[$i]}"; }
    cat "${logs[$i]}"
done
exit $failed
