#!/usr/bin/env bash
# Runs every fuzz target (or the ones named) for MINUTES each and sums up what they did.
#
#   fuzz/run.sh MINUTES [--parallel] [--sanitizer address|none] [TARGET...]
#
# - Installs cargo-fuzz with `cargo install` when it is missing.
# - Builds and runs on the stable toolchain: cargo-fuzz needs nightly-only flags
#   (-Zsanitizer, the coverage instrumentation), which RUSTC_BOOTSTRAP=1 unlocks on stable, so
#   no nightly toolchain has to be installed. FUZZ_TOOLCHAIN=nightly uses one anyway, and an
#   empty FUZZ_TOOLCHAIN uses whatever `cargo` is, for a cargo without rustup.
# - Targets run one after the other, or all at once with --parallel (each then shares the
#   cores with the others: give it the cores, one per target).
# - Each target keeps its corpus in fuzz/corpus/TARGET across runs, so a later run goes on
#   from what the earlier ones found; findings go to fuzz/artifacts/TARGET/ (crash-*,
#   timeout-*, oom-*, leak-*) and the full libFuzzer output to fuzz/logs/TARGET.log. All three
#   are ignored by git (fuzz/.gitignore).
# - libFuzzer stops a target at its first finding; each input may take at most 10 s
#   (-timeout=10), which the targets keep far from by bounding their work per input. Leak
#   detection is off: a world's worker threads outlive the input by design.
# - At the end it prints, per target: the inputs it ran, the coverage it reached (libFuzzer's
#   `cov:` edges and `ft:` features from its last status line), the size of its corpus, and
#   its findings of this run with their paths.
#
# Exits 0 when every target ran and found nothing, 1 when something was found, 2 on a usage or
# build error or a target that did not run. A finding is replayed with `cargo fuzz run TARGET fuzz/artifacts/TARGET/FILE`
# (with RUSTC_BOOTSTRAP=1 on stable), and traced with BATCH2D_FUZZ_TRACE=1 in front of that;
# once fixed, it becomes a test in tests/robust/fuzz_regressions.rs and its input is kept in
# fuzz/regressions/.
set -euo pipefail

usage() {
    sed -n '2,4p' "$0" | sed 's/^# \{0,1\}//' >&2
    exit 2
}

minutes=""
parallel=false
sanitizer=address
targets=()
while [ $# -gt 0 ]; do
    case "$1" in
        --parallel) parallel=true ;;
        --sanitizer)
            [ $# -ge 2 ] || usage
            sanitizer=$2
            shift
            ;;
        -h | --help) usage ;;
        -*) echo "unknown option $1" >&2; usage ;;
        *)
            if [ -z "$minutes" ]; then minutes=$1; else targets+=("$1"); fi
            ;;
    esac
    shift
done
# Whole or fractional minutes (0.5 for a 30 s smoke run).
if ! [[ "$minutes" =~ ^[0-9]+([.][0-9]+)?$ ]]; then
    usage
fi
seconds=$(awk -v m="$minutes" 'BEGIN { s = int(m * 60 + 0.5); print (s < 1 ? 1 : s) }')

cd "$(dirname "$0")"
export RUSTC_BOOTSTRAP=1
toolchain=()
if [ -n "${FUZZ_TOOLCHAIN-stable}" ]; then
    toolchain=("+${FUZZ_TOOLCHAIN-stable}")
fi

if ! cargo fuzz --version >/dev/null 2>&1; then
    echo "== installing cargo-fuzz"
    cargo install cargo-fuzz
fi

if [ ${#targets[@]} -eq 0 ]; then
    mapfile -t targets < <(cargo "${toolchain[@]}" fuzz list)
fi
[ ${#targets[@]} -gt 0 ] || { echo "no fuzz targets" >&2; exit 2; }

mkdir -p logs
fuzz_flags=(--sanitizer "$sanitizer")
libfuzzer_flags=(-max_total_time="$seconds" -timeout=10 -detect_leaks=0 -print_final_stats=1)
# -detect_leaks=0 only stops libFuzzer's check after each input; AddressSanitizer still checks
# once at exit, where it reports the worker threads of the last input's world (still alive by
# design) as a leak and libFuzzer saves an empty input as a crash.
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"

# Build first, one target after the other: the builds share fuzz/target (and its lock), and a
# build inside the timed run would eat into the fuzzing time of the parallel ones.
for t in "${targets[@]}"; do
    echo "== building $t"
    if ! cargo "${toolchain[@]}" fuzz build "${fuzz_flags[@]}" "$t"; then
        echo "build of $t failed" >&2
        exit 2
    fi
done

# The findings already there, so that the summary shows only this run's.
declare -A before
for t in "${targets[@]}"; do
    mkdir -p "corpus/$t" "artifacts/$t"
    before[$t]=$(ls "artifacts/$t")
done

run_one() {
    local t=$1
    # `cargo fuzz run` rebuilds nothing here; libFuzzer's exit status says whether it found
    # something, which the summary reads from the artifacts instead.
    cargo "${toolchain[@]}" fuzz run "${fuzz_flags[@]}" "$t" "corpus/$t" -- \
        "${libfuzzer_flags[@]}" >"logs/$t.log" 2>&1 || true
}

echo "== fuzzing ${targets[*]} for ${seconds} s each$($parallel && echo ", in parallel")"
if $parallel; then
    # Interrupted, the script takes its targets with it.
    trap 'kill $(jobs -p) 2>/dev/null' INT TERM
    pids=()
    for t in "${targets[@]}"; do
        run_one "$t" &
        pids+=($!)
    done
    for pid in "${pids[@]}"; do
        wait "$pid"
    done
else
    for t in "${targets[@]}"; do
        echo "-- $t"
        run_one "$t"
    done
fi

# libFuzzer's last status line (`#RUNS ... cov: N ft: N corp: N/SIZE ...`) and its final
# stats (`stat::number_of_executed_units: N`).
field() { # field NAME LINE: the value after `NAME:` in LINE
    sed -n "s/.*[[:space:]]$1: \([^ ]*\).*/\1/p" <<<"$2"
}

echo
echo "== summary ($seconds s per target, sanitizer $sanitizer)"
printf '%-10s %12s %10s %8s %8s %10s  %s\n' target runs exec/s cov ft corpus findings
found=0
failed=0
for t in "${targets[@]}"; do
    log="logs/$t.log"
    status=$(grep -E '^#[0-9]+' "$log" | grep 'cov:' | tail -n 1 || true)
    runs=$(sed -n 's/^stat::number_of_executed_units: //p' "$log" | tail -n 1)
    [ -n "$runs" ] || runs=$(sed -n 's/^#\([0-9]*\).*/\1/p' <<<"$status")
    rate=$(sed -n 's/^stat::average_exec_per_sec: //p' "$log" | tail -n 1)
    cov=$(field cov "$status")
    ft=$(field ft "$status")
    corpus=$(find "corpus/$t" -type f | wc -l)
    new=$(comm -13 <(printf '%s\n' "${before[$t]}" | sort) <(ls "artifacts/$t" | sort) | sed '/^$/d')
    count=$(printf '%s' "$new" | grep -c . || true)
    printf '%-10s %12s %10s %8s %8s %10s  %s\n' "$t" "${runs:-?}" "${rate:-?}" "${cov:-?}" \
        "${ft:-?}" "$corpus" "$count"
    if [ "$count" -gt 0 ]; then
        found=1
        while read -r f; do
            echo "           fuzz/artifacts/$t/$f"
        done <<<"$new"
    fi
    if [ -z "$status" ]; then
        failed=1
        echo "           no libFuzzer status in fuzz/$log: did the target start?"
        tail -n 5 "$log" | sed 's/^/           | /'
    fi
done
if [ $failed -ne 0 ]; then exit 2; fi
exit $found
