#!/usr/bin/env bash
# Instructions per fresh contact manifold, batch2d beside Box2D v3, one pair kind at a time,
# counted by callgrind (benches/collide.rs says which pairs and how both are called).
#
# usage: profiling/collide.sh [KIND...]   (default: box polygon rounded capsule_polygon capsule)
#
# For each kind, runs the collide bench under callgrind once per engine, counting only inside
# the function that collides one pair from its two world poses to the world manifold
# (`batch2d_collide`, `box2d_collide`), and divides by the calls. Box2D's own collide function
# (b2CollidePolygons, b2CollidePolygonAndCapsule or b2CollideCapsules: the pose of B in A's
# frame in, the manifold in A's frame out) is listed on its own too: batch2d's column is to be
# read against both.
set -euo pipefail

kinds=("$@")
if [ ${#kinds[@]} -eq 0 ]; then
    kinds=(box polygon rounded capsule_polygon capsule)
fi
if ! command -v valgrind >/dev/null 2>&1; then
    echo "needs valgrind (on Debian: apt-get install valgrind)" >&2
    exit 2
fi

cd "$(dirname "$0")/../benches"
bench=$(cargo bench -p batch2d-bench --bench collide --no-run --message-format=json 2>/dev/null |
    sed -n 's/.*"executable":"\([^"]*\)".*/\1/p' | tail -n 1)
if [ -z "$bench" ]; then
    echo "the collide bench did not build: cargo bench -p batch2d-bench --bench collide --no-run" >&2
    exit 1
fi
pairs=1000
reps=10
calls=$((pairs * reps))
out=$(mktemp -d)

# Inclusive instructions of the function named exactly $2 in callgrind output $1.
inclusive() {
    callgrind_annotate --inclusive=yes "$1" 2>/dev/null |
        awk -v fn="$2" '!found && $0 ~ (":" fn " ") { gsub(",", "", $1); print $1; found = 1 }'
}

echo "instructions per pair, $pairs pairs x $reps (callgrind)"
printf "%-16s %10s %14s %14s  %s\n" kind batch2d "Box2D fn" "Box2D world" "Box2D function"
for kind in "${kinds[@]}"; do
    case $kind in
    box | polygon | rounded) fn=b2CollidePolygons ;;
    capsule_polygon) fn=b2CollidePolygonAndCapsule ;;
    capsule) fn=b2CollideCapsules ;;
    *)
        echo "no pair kind $kind" >&2
        exit 2
        ;;
    esac
    for engine in batch2d box2d; do
        valgrind --tool=callgrind --toggle-collect="*${engine}_collide*" \
            --callgrind-out-file="$out/$kind.$engine.out" \
            "$bench" --engine "$engine" --pair "$kind" --pairs "$pairs" --reps "$reps" \
            >"$out/$kind.$engine.log" 2>&1
    done
    total() { sed -n 's/^totals: *//p' "$out/$kind.$1.out"; }
    ours=$(total batch2d)
    theirs=$(total box2d)
    theirs_fn=$(inclusive "$out/$kind.box2d.out" "$fn")
    awk -v k="$kind" -v a="$ours" -v b="$theirs_fn" -v c="$theirs" -v n="$calls" -v fn="$fn" \
        'BEGIN { printf "%-16s %10.1f %14.1f %14.1f  %s\n", k, a / n, b / n, c / n, fn }'
done
echo "batch2d: world poses to world manifold (batch2d::internals::collide)"
echo "Box2D fn: its collide function alone (relative pose to manifold in A's frame)"
echo "Box2D world: the same work as batch2d's column (relative pose, collide, world anchors)"
echo "callgrind runs and logs: $out"
