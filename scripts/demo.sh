#!/usr/bin/env bash
# The main job, run by `scripts/setup.sh demo` after the build: barracuda on the
# bundled racy example (examples/racy_reduction.cu, a missing __syncthreads()),
# emulator backend (no GPU needed), then on its fixed twin. Reports are written
# as text (stderr), JSON and SARIF. Usage: scripts/demo.sh [BUILD_DIR]  (default: build/)
# Exit status 0 when barracuda finds the races in the racy program and none in
# the fixed one.
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=$(cd "${1:-$root/build}" 2>/dev/null && pwd) || {
  echo "demo: build directory ${1:-$root/build} not found; run scripts/setup.sh first" >&2
  exit 1
}
barracuda=$build/bin/barracuda
racy=$build/examples/racy_reduction
fixed=$build/examples/racy_reduction_fixed
for f in "$barracuda" "$racy" "$fixed"; do
  [ -x "$f" ] || { echo "demo: $f is missing; run scripts/setup.sh (CUDA tests ON) first" >&2; exit 1; }
done
reports=${TMPDIR:-/tmp}/barracuda-demo
mkdir -p "$reports"

heading() { printf '\n=== %s ===\n' "$*"; }

heading "The racy loop of examples/racy_reduction.cu: a __syncthreads() is missing"
awk '/for \(unsigned stride/,/^  }$/ { printf "%4d  %s\n", NR, $0 }' "$root/examples/racy_reduction.cu"

heading "barracuda --backend=emu ${racy#"$root"/}"
"$barracuda" --backend=emu --report-json "$reports/racy.json" --report-sarif "$reports/racy.sarif" "$racy"
racy_status=$?
echo "(barracuda exit status $racy_status: 1 = races found; JSON and SARIF in $reports/)"

heading "barracuda --backend=emu ${fixed#"$root"/}"
"$barracuda" --backend=emu --report-json "$reports/fixed.json" "$fixed"
fixed_status=$?
echo "(barracuda exit status $fixed_status: the app's own status, no races)"

if [ "$racy_status" -eq 1 ] && [ "$fixed_status" -eq 0 ]; then
  exit 0
fi
echo "demo: unexpected verdicts (racy: $racy_status, fixed: $fixed_status)" >&2
exit 1
