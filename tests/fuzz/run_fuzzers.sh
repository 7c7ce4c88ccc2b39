#!/usr/bin/env bash
# Runs libFuzzer targets, JOBS at a time (make fuzz-smoke: two, one per core; make fuzz).
# Each target runs on a scratch copy of its hand seeds (tests/fuzz/corpus/NAME/) and of the
# seeds tests/fuzz/fixture_seeds.py derives from the test fixtures, in BUILD/corpus-NAME, so the
# repository stays as it is. A target's summary lines are printed when it ends, whole; the run
# fails when any target found something (its crash input lands in BUILD/).
#
#   tests/fuzz/run_fuzzers.sh SECONDS JOBS BUILD FUZZER... [-- LIBFUZZER_ARGS...]
set -u
seconds=$1 jobs=$2 build=$3
shift 3
fuzzers=()
while [ $# -gt 0 ] && [ "$1" != -- ]; do fuzzers+=("$1"); shift; done
[ $# -gt 0 ] && shift
extra=("$@")

run_one() { # FUZZER LOG
    local f=$1 name=${1##*/fuzz_}
    {
        rm -rf "$build/corpus-$name" && mkdir -p "$build/corpus-$name" &&
            cp tests/fuzz/corpus/"$name"/* "$build/corpus-$name/" &&
            python3 tests/fuzz/fixture_seeds.py "$name" "$build/corpus-$name" || exit 1
        echo "== $f for $seconds s"
        "./$f" -max_total_time="$seconds" "${extra[@]}" -print_final_stats=1 -artifact_prefix="$build/" \
            "$build/corpus-$name" 2>&1 |
            grep -E '^(Done|stat::number_of_executed_units|stat::peak_rss_mb)|ERROR|SUMMARY'
        exit "${PIPESTATUS[0]}"
    } > "$2" 2>&1
}

logs=() pids=() failed=0
for f in "${fuzzers[@]}"; do
    while [ "$(jobs -rp | wc -l)" -ge "$jobs" ]; do wait -n; done
    logs+=("$build/fuzz-${f##*/fuzz_}.log")
    run_one "$f" "${logs[-1]}" &
    pids+=($!)
done
for i in "${!pids[@]}"; do
    wait "${pids[$i]}" || { failed=1; echo "FAIL ${fuzzers[$i]}"; }
    cat "${logs[$i]}"
done
exit $failed
