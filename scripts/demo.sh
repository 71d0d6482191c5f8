#!/usr/bin/env bash
# The main job on the bundled example (examples/racy_reduction.cu), run by
# `scripts/setup.sh demo` after the build. Until the barracuda CLI lands it
# shows what the PTX tool sees in the built program: the PTX embedded in the
# executable, its memory/synchronisation sites, and the kernel's control-flow
# graph. Usage: scripts/demo.sh [BUILD_DIR]   (default: build/)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=$(cd "${1:-$root/build}" 2>/dev/null && pwd) || {
  echo "demo: build directory ${1:-$root/build} not found; run scripts/setup.sh first" >&2
  exit 1
}
tool=$build/bin/barracuda-ptx
app=$build/examples/racy_reduction
kernel=block_sum
for f in "$tool" "$app"; do
  [ -x "$f" ] || { echo "demo: $f is missing; run scripts/setup.sh (CUDA tests ON) first" >&2; exit 1; }
done

heading() { printf '\n=== %s ===\n' "$*"; }
work=$(mktemp -d "${TMPDIR:-/tmp}/barracuda-demo.XXXXXX")
trap 'rm -rf "$work"' EXIT

heading "The racy loop of examples/racy_reduction.cu: a __syncthreads() is missing"
awk '/for \(unsigned stride/,/^  }$/ { printf "%4d  %s\n", NR, $0 }' \
  "$root/examples/racy_reduction.cu"

heading "PTX embedded in ${app#"$root"/} (barracuda-ptx extract)"
"$tool" extract "$app" -o "$work"
mapfile -t ptx_files < <(find "$work" -name '*.ptx' | sort)
if ((${#ptx_files[@]} == 0)); then
  echo "demo: barracuda-ptx extract found no PTX in $app" >&2
  exit 1
fi
ptx=${ptx_files[0]}

heading "Memory and synchronisation sites (barracuda-ptx sites)"
"$tool" sites "$ptx"

heading "Control-flow graph of $kernel (barracuda-ptx cfg --kernel $kernel)"
"$tool" cfg --kernel "$kernel" "$ptx"
