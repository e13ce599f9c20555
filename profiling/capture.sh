#!/usr/bin/env bash
# Records a Tracy trace of one example run with `--features tracy` and prints what it holds: a
# table of the zones (count, mean, total) and the range of every plot.
#
# It first builds Tracy's command-line tools, tracy-capture and tracy-csvexport, of the version
# whose protocol the locked tracy-client-sys speaks, from a Tracy source tree and without
# CMake: Tracy's CMake downloads zstd, capstone and PPQSort at configure time, while here zstd
# and capstone come from Debian's packages and PPQSort (headers only) from a source tree of
# its own. See profiling/README.md.
#
# usage: profiling/capture.sh [--tracy-src DIR] [--ppqsort-src DIR] [--example NAME]
#                             [--port N] [--out DIR] [--jobs N] [-- EXAMPLE ARGS...]
#
#   --tracy-src DIR    a Tracy source tree (default: a clone of the tag of the client's version)
#   --ppqsort-src DIR  a PPQSort source tree (default: a clone of the version Tracy names)
#   --example NAME     the example to capture (default particle_pile)
#   --port N           the port the client listens on (default 8086, Tracy's)
#   --out DIR          tools, trace and CSV files (default target/tracy-capture)
#   --jobs N           parallel compiles of the tools (default 2)
#   EXAMPLE ARGS       passed to the example (default: --steps 300)
#
# The outputs: OUT/NAME.tracy (open it in tracy-profiler), OUT/NAME-zones.csv (statistics per
# zone) and OUT/NAME-events.csv (every zone and plot value, for profiling/timeline.py).
set -euo pipefail

repo=$(cd "$(dirname "$0")/.." && pwd)
tracy_src=""
ppqsort_src=""
example=particle_pile
port=8086
out="$repo/target/tracy-capture"
jobs=2
example_args=()

usage() {
    sed -n '2,/^set -euo/p' "$0" | grep '^#' | sed 's/^# \{0,1\}//'
    exit "$1"
}

while [ $# -gt 0 ]; do
    case "$1" in
        --tracy-src) tracy_src=$2; shift 2 ;;
        --ppqsort-src) ppqsort_src=$2; shift 2 ;;
        --example) example=$2; shift 2 ;;
        --port) port=$2; shift 2 ;;
        --out) out=$2; shift 2 ;;
        --jobs) jobs=$2; shift 2 ;;
        -h | --help) usage 0 ;;
        --) shift; example_args=("$@"); break ;;
        *) echo "capture.sh: unknown argument $1" >&2; usage 1 ;;
    esac
done
[ ${#example_args[@]} -gt 0 ] || example_args=(--steps 300)
mkdir -p "$out"
out=$(cd "$out" && pwd)

# What is missing, said all at once at the end of the checks.
problems=()

# --- The Tracy that the client speaks: read from the crate's own sources -------------------

sys_version=$(awk '$0 == "name = \"tracy-client-sys\"" { getline; gsub(/version = |"/, ""); print }' \
    "$repo/Cargo.lock")
[ -n "$sys_version" ] || { echo "capture.sh: no tracy-client-sys in Cargo.lock" >&2; exit 1; }
find_crate() {
    find "${CARGO_HOME:-$HOME/.cargo}/registry/src" -mindepth 2 -maxdepth 2 -type d \
        -name "tracy-client-sys-$sys_version" 2>/dev/null | head -n 1
}
crate=$(find_crate)
if [ -z "$crate" ]; then
    (cd "$repo" && cargo fetch --locked >/dev/null 2>&1) || true
    crate=$(find_crate)
fi
if [ -z "$crate" ]; then
    echo "capture.sh: the source of tracy-client-sys $sys_version is not in Cargo's registry;" \
        "run \`cargo fetch\` where crates.io can be reached" >&2
    exit 1
fi

# The number N of `constexpr ... NAME = N;` in a Tracy header.
constant() {
    sed -n "s/.* $2 = \([0-9]*\);.*/\1/p" "$1" | head -n 1
}
version_of() {
    local v="$1/common/TracyVersion.hpp"
    echo "$(constant "$v" Major).$(constant "$v" Minor).$(constant "$v" Patch)"
}
want_version=$(version_of "$crate/tracy")
want_protocol=$(constant "$crate/tracy/common/TracyProtocol.hpp" ProtocolVersion)
echo "client: tracy-client-sys $sys_version bundles Tracy $want_version, protocol $want_protocol"

# --- Packages ----------------------------------------------------------------------------------

packages=()
command -v g++ >/dev/null 2>&1 || packages+=(g++)
command -v gcc >/dev/null 2>&1 || packages+=(gcc)
command -v patch >/dev/null 2>&1 || packages+=(patch)
# A header is there when the preprocessor finds it.
has_header() {
    printf '#include <%s>\n' "$1" | g++ -E -x c++ "${@:2}" - >/dev/null 2>&1
}
if command -v g++ >/dev/null 2>&1; then
    has_header zstd.h || packages+=(libzstd-dev)
    has_header capstone.h -I/usr/include/capstone || packages+=(libcapstone-dev)
fi
if [ ${#packages[@]} -gt 0 ]; then
    problems+=("packages missing: ${packages[*]}; install them with
      apt-get install -y ${packages[*]}")
fi

# --- Source trees ------------------------------------------------------------------------------

# Clones tag $2 of $1 into $3 unless it is there; false when it cannot (no network).
clone() {
    [ -d "$3" ] && return 0
    command -v git >/dev/null 2>&1 || return 1
    git clone --quiet --depth 1 --branch "$2" "$1" "$3.part" >/dev/null 2>&1 || {
        rm -rf "$3.part"
        return 1
    }
    mv "$3.part" "$3"
}

if [ -z "$tracy_src" ]; then
    tracy_src="$out/tracy-v$want_version"
    if ! clone https://github.com/wolfpld/tracy "v$want_version" "$tracy_src"; then
        problems+=("no Tracy source tree: the clone of tag v$want_version of
      https://github.com/wolfpld/tracy failed (no network?). Get that tag some other way
      (git archive v$want_version of a clone made elsewhere) and pass it as --tracy-src DIR")
        tracy_src=""
    fi
fi
ppqsort_version=""
if [ -n "$tracy_src" ]; then
    absent=()
    for dir in public/common server capture csvexport getopt cmake; do
        [ -d "$tracy_src/$dir" ] || absent+=("$dir/")
    done
    [ ${#absent[@]} -eq 0 ] || problems+=("$tracy_src is not a Tracy source tree: no ${absent[*]}")
fi
if [ -n "$tracy_src" ] && [ ${#problems[@]} -eq 0 ]; then
    tracy_src=$(cd "$tracy_src" && pwd)
    src_version=$(version_of "$tracy_src/public")
    src_protocol=$(constant "$tracy_src/public/common/TracyProtocol.hpp" ProtocolVersion)
    echo "tools:  $tracy_src holds Tracy $src_version, protocol $src_protocol"
    if [ "$src_protocol" != "$want_protocol" ]; then
        problems+=("the Tracy source speaks protocol $src_protocol and the client $want_protocol:
      its tools would refuse the connection. Use Tracy $want_version (tag v$want_version)")
    elif [ "$src_version" != "$want_version" ]; then
        echo "warning: the source is Tracy $src_version and the client $want_version; both speak" \
            "protocol $want_protocol, so they connect"
    fi
    # The version of PPQSort that Tracy's CMake would download.
    ppqsort_version=$(awk '/NAME PPQSort/ { found = 1 } found && $1 == "VERSION" { print $2; exit }' \
        "$tracy_src/cmake/vendor.cmake")
fi
if [ -z "$ppqsort_src" ] && [ -n "$ppqsort_version" ]; then
    ppqsort_src="$out/ppqsort-v$ppqsort_version"
    if ! clone https://github.com/GabTux/PPQSort "v$ppqsort_version" "$ppqsort_src"; then
        problems+=("no PPQSort source tree (Tracy's parallel sort, headers only): the clone of tag
      v$ppqsort_version of https://github.com/GabTux/PPQSort failed (no network?). Get that tag
      some other way and pass it as --ppqsort-src DIR")
        ppqsort_src=""
    fi
fi
if [ -n "$ppqsort_src" ] && [ ! -f "$ppqsort_src/include/ppqsort.h" ]; then
    problems+=("$ppqsort_src is not a PPQSort source tree: no include/ppqsort.h")
fi

if [ ${#problems[@]} -gt 0 ]; then
    echo "capture.sh cannot build Tracy's tools:" >&2
    for p in "${problems[@]}"; do
        echo "  - $p" >&2
    done
    exit 1
fi

# --- Building tracy-capture and tracy-csvexport ------------------------------------------------

build="$out/build-$src_version-p$src_protocol"
tools="$build/bin"
if [ ! -x "$tools/tracy-capture" ] || [ ! -x "$tools/tracy-csvexport" ]; then
    # Objects already built there are kept (delete the folder to build afresh).
    echo "building tracy-capture and tracy-csvexport in $build"
    mkdir -p "$build/src" "$build/obj" "$tools" "$build/gen"
    for dir in public server capture csvexport getopt; do
        rm -rf "${build:?}/src/$dir"
        cp -r "$tracy_src/$dir" "$build/src/"
    done
    rm -rf "$build/ppqsort"
    cp -r "$ppqsort_src/include" "$build/ppqsort"
    # The patches Tracy's CMake applies to PPQSort.
    for p in "$tracy_src"/cmake/ppqsort-*.patch; do
        [ -f "$p" ] || continue
        (cd "$build" && mv ppqsort include && patch --quiet -p1 <"$p" && mv include ppqsort)
    done
    # Debian 12 ships capstone 4, which names AArch64 ARM64, as capstone before 6 did; Tracy's
    # server disassembles AArch64 code only in traces of AArch64 programs.
    capstone_major=$(sed -n 's/^#define CS_API_MAJOR \([0-9]*\).*/\1/p' \
        /usr/include/capstone/capstone.h)
    if [ "${capstone_major:-6}" -lt 6 ]; then
        echo "capstone $capstone_major: using its ARM64 names for Tracy's AARCH64 ones"
        sed -i -e 's/CS_ARCH_AARCH64/CS_ARCH_ARM64/g' -e 's/detail\.aarch64/detail.arm64/g' \
            -e 's/AARCH64_OP_IMM/ARM64_OP_IMM/g' "$build/src/server/TracyWorker.cpp"
    fi
    ref=unknown
    if git -C "$tracy_src" rev-parse --git-dir >/dev/null 2>&1; then
        ref=$(git -C "$tracy_src" log -1 --format=%h)
    fi
    printf '#pragma once\nnamespace tracy { static inline const char* GitRef = "%s"; }\n' \
        "$ref" >"$build/gen/GitRef.hpp"

    # The source lists of Tracy's cmake/server.cmake, so that they follow the version.
    list() {
        awk -v name="$1" '$0 ~ "set\\(" name { on = 1; next } on && /\)/ { exit } on && NF { print $1 }' \
            "$tracy_src/cmake/server.cmake"
    }
    sources=()
    while read -r f; do sources+=("public/common/$f"); done < <(list TRACY_COMMON_SOURCES)
    while read -r f; do sources+=("server/$f"); done < <(list TRACY_SERVER_SOURCES)
    sources+=(getopt/getopt.c capture/src/capture.cpp capture/src/CaptureOutput.cpp
        csvexport/src/csvexport.cpp)
    flags=(-O2 -DNDEBUG -pthread -I"$build/src/public/common" -I"$build/src/server"
        -I"$build/ppqsort" -I/usr/include/capstone -I"$build/gen")
    # The objects are named after their sources; compiles run niced, `jobs` at a time.
    object() { echo "$build/obj/$(echo "$1" | tr / _).o"; }
    compile() {
        case "$1" in
            *.c) nice -n 19 gcc "${flags[@]}" -c "$build/src/$1" -o "$(object "$1")" ;;
            *) nice -n 19 g++ -std=c++20 "${flags[@]}" -c "$build/src/$1" -o "$(object "$1")" ;;
        esac
    }
    running=0
    for src in "${sources[@]}"; do
        [ -f "$(object "$src")" ] && continue
        compile "$src" &
        running=$((running + 1))
        if [ "$running" -ge "$jobs" ]; then
            wait -n || true
            running=$((running - 1))
        fi
    done
    wait
    for src in "${sources[@]}"; do
        [ -f "$(object "$src")" ] || { echo "capture.sh: compiling $src failed" >&2; exit 1; }
    done
    shared=()
    for f in "$build"/obj/*.o; do
        case "$f" in
            *capture_src_capture.cpp.o | *capture_src_CaptureOutput.cpp.o) ;;
            *csvexport_src_csvexport.cpp.o) ;;
            *) shared+=("$f") ;;
        esac
    done
    libs=(-lzstd -lcapstone -pthread)
    g++ -o "$tools/tracy-capture" "$build/obj/capture_src_capture.cpp.o" \
        "$build/obj/capture_src_CaptureOutput.cpp.o" "${shared[@]}" "${libs[@]}"
    g++ -o "$tools/tracy-csvexport" "$build/obj/csvexport_src_csvexport.cpp.o" \
        "${shared[@]}" "${libs[@]}"
fi
"$tools/tracy-csvexport" --version

# --- The capture -------------------------------------------------------------------------------

echo "building example $example with --features tracy"
(cd "$repo" && cargo build --quiet --release --features tracy --example "$example")
trace="$out/$example.tracy"
log="$out/$example-capture.log"
# tracy-capture retries until the client listens; TRACY_NO_EXIT keeps the example alive at its
# end until every event has been sent.
"$tools/tracy-capture" -o "$trace" -f -a 127.0.0.1 -p "$port" >"$log" 2>&1 &
capture_pid=$!
echo "running $example ${example_args[*]} (its own files go to $out)"
(cd "$out" && TRACY_NO_EXIT=1 TRACY_PORT="$port" "$repo/target/release/examples/$example" \
    "${example_args[@]}") >"$out/$example-run.log" 2>&1 || {
    echo "the example failed; its output is in $out/$example-run.log" >&2
    kill "$capture_pid" 2>/dev/null || true
    exit 1
}
wait "$capture_pid" || {
    echo "tracy-capture failed; its output is in $log" >&2
    exit 1
}
tr '\r' '\n' <"$log" | grep -E '^(Frames|Time span|Zones|Trace size)' || true

zones="$out/$example-zones.csv"
events="$out/$example-events.csv"
"$tools/tracy-csvexport" "$trace" >"$zones"
"$tools/tracy-csvexport" --unwrap --plot "$trace" >"$events"

echo
echo "zones of $trace"
# name,src_file,src_line,total_ns,total_perc,counts,mean_ns,min_ns,max_ns,std_ns
awk -F, 'NR > 1 { printf "%s\t%d\t%.1f\t%.1f\n", $1, $6, $7 / 1e3, $4 / 1e6 }' "$zones" |
    sort -t$'\t' -k4,4gr |
    awk -F'\t' 'BEGIN { printf "%-34s %9s %12s %12s\n", "zone", "count", "mean (us)", "total (ms)" }
        { printf "%-34s %9d %12.1f %12.1f\n", $1, $2, $3, $4 }'

echo
echo "plots (one value per step)"
# Plot rows have no source file, source line or thread:
# name,,,ns_since_start,,,value
# Tracy's own plot of the system's CPU usage has no name, which csvexport prints as "Frame".
awk -F, 'NR > 1 && $2 == "" && $6 == "" {
        if ($1 == "Frame") $1 = "CPU usage (%, Tracy)"
        n[$1]++; v = $7 + 0
        if (!($1 in lo) || v < lo[$1]) lo[$1] = v
        if (!($1 in hi) || v > hi[$1]) hi[$1] = v
        last[$1] = v
    }
    END {
        printf "%-24s %7s %14s %14s %14s\n", "plot", "values", "min", "max", "last"
        for (p in n) printf "%-24s %7d %14.0f %14.0f %14.0f\n", p, n[p], lo[p], hi[p], last[p]
    }' "$events" | { read -r header; echo "$header"; sort; }
threads=$(awk -F, 'NR > 1 && $6 != "" { t[$6] = 1 } END { print length(t) }' "$events")
echo
echo "$threads threads recorded zones; trace: $trace"
