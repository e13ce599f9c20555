#!/usr/bin/env bash
# Instructions per step of one standard scene, batch2d beside Box2D v3, counted by cachegrind.
# Unlike the bench's times these counts do not move with the machine's load, so a change that
# saves work shows even on a busy machine (a change that only saves cache misses does not).
#
# usage: profiling/instructions.sh SCENE [FIRST LAST]
#
# Runs the scenes bench on one thread with `--compare box2d` under cachegrind twice, for FIRST
# and for LAST steps (default 300 and 340), and prints the difference per step: the steady-state
# cost of steps FIRST+1..LAST of each engine, with their costliest functions. Box2D's functions
# are the `b2*` ones; everything else (the bench loop, rayon, the allocator) counts as batch2d's.
# Closures of batch2d show up under their trait method (`call_mut`), hence the second list, by
# source file (a path outside the repository cut to ".../" and its last three parts). For
# per-line counts, run `cg_annotate` on one of the two runs kept in the output folder (their
# difference has no line numbers).
#
# Last, the narrowphase per touching pair: the same two runs under callgrind, once collecting
# only inside batch2d's `ContactSet::update` (every pair's manifold, recycled or collided
# afresh, with the matching of last step's contacts) and once only inside Box2D's
# `b2CollideTask` (its contacts' manifolds), each divided by its engine's touching pairs after
# the last step.
set -euo pipefail

scene=${1:?"usage: $0 SCENE [FIRST LAST]"}
first=${2:-300}
last=${3:-340}
if [ "$last" -le "$first" ]; then
    echo "LAST ($last) must be above FIRST ($first)" >&2
    exit 2
fi
if ! command -v valgrind >/dev/null 2>&1; then
    echo "needs valgrind (on Debian: apt-get install valgrind)" >&2
    exit 2
fi

cd "$(dirname "$0")/../benches"
bench=$(cargo bench -p batch2d-bench --bench scenes --no-run --message-format=json 2>/dev/null |
    sed -n 's/.*"executable":"\([^"]*\)".*/\1/p' | tail -n 1)
if [ -z "$bench" ]; then
    echo "the scenes bench did not build: cargo bench -p batch2d-bench --bench scenes --no-run" >&2
    exit 1
fi
out=$(mktemp -d)
runs=()
for steps in "$first" "$last"; do
    valgrind --tool=cachegrind --cache-sim=no --cachegrind-out-file="$out/$steps.out" \
        "$bench" --scene "$scene" --threads 1 --rounds 1 --steps "$steps" --compare box2d \
        >"$out/$steps.log" 2>&1 &
    runs+=($!)
    # (`ContactSet>::update`: the method's symbol is `<impl ...::ContactSet>::update`.)
    for root in '*ContactSet>::update' b2CollideTask; do
        valgrind --tool=callgrind --collect-atstart=no --toggle-collect="$root" \
            --callgrind-out-file="$out/$steps.${root#\*}.narrow" \
            "$bench" --scene "$scene" --threads 1 --rounds 1 --steps "$steps" --compare box2d \
            >"$out/$steps.${root#\*}.narrow.log" 2>&1 &
        runs+=($!)
    done
done
for i in "${!runs[@]}"; do
    if ! wait "${runs[$i]}"; then
        echo "a run failed; see $out/*.log" >&2
        exit 1
    fi
done
cg_diff "$out/$first.out" "$out/$last.out" >"$out/diff.out"

echo "instructions per step of $scene, steps $((first + 1))..$last, one thread (cachegrind)"
awk -v steps=$((last - first)) -v repo="$(cd .. && pwd)" '
    /^fl=/ {
        file = substr($0, 4)
        if (index(file, repo "/") == 1) {
            file = substr(file, length(repo) + 2)
        } else {
            n = split(file, part, "/")
            file = ".../" part[n - 2] "/" part[n - 1] "/" part[n]
        }
    }
    /^fn=/ { fn = substr($0, 4) }
    /^[0-9]/ {
        count[fn] += $2
        if (fn !~ /^b2/) lines[file] += $2
    }
    END {
        for (f in lines) {
            printf "files\t%.3f\t%s\n", lines[f] / steps / 1e6, f > "/dev/stderr"
        }
        for (f in count) {
            engine = (f ~ /^b2/) ? "box2d" : "batch2d"
            total[engine] += count[f]
            printf "%s\t%.3f\t%s\n", engine, count[f] / steps / 1e6, f > "/dev/stderr"
        }
        printf "batch2d %8.3f M\nBox2D   %8.3f M\nratio   %8.3f (batch2d / Box2D)\n",
            total["batch2d"] / steps / 1e6, total["box2d"] / steps / 1e6,
            total["batch2d"] / total["box2d"]
    }' "$out/diff.out" 2>"$out/functions.tsv"
show() {
    echo "$2 (M instructions per step):"
    grep "^$1	" "$out/functions.tsv" | sort -t "	" -k2 -g -r |
        awk -F "\t" 'NR <= 12 { printf "  %8.3f  %s\n", $2, substr($3, 1, 100) }'
}
show batch2d "costliest functions of batch2d"
show files "costliest source files of batch2d, inlined code counted where it is written"
show box2d "costliest functions of Box2D"

# Instructions inside one function (it and all it calls) over a run: the total of a callgrind
# run that collected only there.
inside() {
    sed -n 's/^totals: *\([0-9]*\).*/\1/p' "$out/$1.$2.narrow"
}
# Touching pairs of each engine after the last step, from the bench's summary line.
pairs=$(sed -n 's/.* pairs \([0-9]*\)\/\([0-9]*\).*/\1 \2/p' "$out/$last.log" | tail -n 1)
ours=$(($(inside "$last" 'ContactSet>::update') - $(inside "$first" 'ContactSet>::update')))
theirs=$(($(inside "$last" b2CollideTask) - $(inside "$first" b2CollideTask)))
echo "narrowphase instructions per touching pair (callgrind):"
echo "$pairs" | awk -v ours="$ours" -v theirs="$theirs" -v steps=$((last - first)) '{
    printf "  batch2d %6.0f  (ContactSet::update, %d pairs)\n", ours / steps / $1, $1
    printf "  Box2D   %6.0f  (b2CollideTask, %d pairs)\n", theirs / steps / $2, $2
}'
echo "valgrind runs and logs: $out"
