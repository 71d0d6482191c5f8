#!/usr/bin/env bash
# The GPU check, run on a lent GPU machine from the repository root after bundle.sh:
#   bash scripts/gpu_check/on_device.sh [OUTDIR]      (OUTDIR defaults to $OUT)
# 1 environment; 2 the bundled example under --backend=gpu (instrumented PTX JIT-compiled
# and run by the driver); 3 the concurrency bug suite and 4 the library corpus through
# check_verdicts.py with --backend=gpu; 5 overhead: native vs barracuda vs
# compute-sanitizer racecheck on the emulator benchmark programs. Each step is bounded.
set -uo pipefail
out=${1:-${OUT:-/tmp/gpu_check_out}}
mkdir -p "$out"
repo=$(cd "$(dirname "$0")/../.." && pwd)
w=/tmp/gpu_bundle
rm -rf "$w"; mkdir -p "$w"; tar -C "$w" -xzf "$repo/.gpu/bundle.tar.gz"
cudalib=$(dirname "$(ls /usr/local/cuda/lib64/libcudart.so.13* 2>/dev/null | head -1)" 2>/dev/null)
export LD_LIBRARY_PATH="$w/deps:${cudalib:-/usr/local/cuda/lib64}:${LD_LIBRARY_PATH:-}"
B=$w/build/bin/barracuda
# GPU_CHECK_ARGS="--backend=gpu --gpu-runtime=emulator" tries the script without a GPU.
read -r -a G <<< "${GPU_CHECK_ARGS:---backend=gpu}"
CV_G=(); for a in "${G[@]}"; do CV_G+=("--barracuda-arg=$a"); done
# Dry run: GPU_CHECK_LIMIT=N (first N library tests), GPU_CHECK_SUITE=topic/stem (one suite
# program), GPU_CHECK_NO_OVERHEAD=1.
LIMIT=${GPU_CHECK_LIMIT:-0}
# A short lease: GPU_CHECK_SUITE_LIMIT (s, default 300), GPU_CHECK_LIB='regex' (library
# tests to run, default all), GPU_CHECK_LIB_LIMIT (s per test, default 280 as in CI),
# GPU_CHECK_SMALL=1 (overhead at the small sizes only), GPU_CHECK_DIAG (below).
SUITE_LIMIT=${GPU_CHECK_SUITE_LIMIT:-300}
LIB_RE=${GPU_CHECK_LIB:-.}
LIB_LIMIT=${GPU_CHECK_LIB_LIMIT:-280}
log=$out/log.txt
elapsed() { awk -v a="$1" -v b="$(date +%s.%N)" 'BEGIN{printf "%.2f", b-a}'; }
say() { echo "=== $*" | tee -a "$log"; }
step() { local t=$1; shift; say "$* (limit ${t}s)"; local s=$(date +%s.%N); timeout -k 5 "$t" "$@" >>"$log" 2>&1; local rc=$?; echo "rc=$rc wall=$(elapsed "$s")s" | tee -a "$log"; return $rc; }

say "1 environment"
{ nvidia-smi -L; nvidia-smi --query-gpu=name,driver_version,compute_cap --format=csv; nvcc --version | tail -2;
  ls /usr/local/cuda/lib64/libcudart.so* ; compute-sanitizer --version | head -2; nproc; } >>"$log" 2>&1
ldd "$B" "$w/build/lib/libbarracuda_gpu.so" | grep "not found" >>"$log" 2>&1
if command -v nvcc >/dev/null; then
  (cd /tmp && nvcc -o shared_probe "$repo/scripts/gpu_check/shared_probe.cu" && ./shared_probe) >>"$log" 2>&1
fi

say "2 example"
mkdir -p "$out/dump"
BARRACUDA_GPU_DUMP_PTX=$out/dump step 60 "$B" "${G[@]}" -v --report-json "$out/example.json" "$w/build/examples/racy_reduction"
step 60 "$B" "${G[@]}" "$w/build/examples/racy_reduction_fixed"
(cd "$out" && tar czf dump.tar.gz dump && rm -rf dump)

say "3 suite, --backend=gpu"
step "$SUITE_LIMIT" python3 "$repo/test_suite/programs/check_verdicts.py" --build "$w/build" --barracuda "$B" --jobs 14 --timeout 60 ${GPU_CHECK_SUITE:+--program $GPU_CHECK_SUITE} \
  "${CV_G[@]}" --json-out "$out/suite_gpu.json" -q

if [ -z "${GPU_CHECK_NO_OVERHEAD:-}" ]; then
  say "4 overhead (wall seconds: native, barracuda gpu, compute-sanitizer racecheck)"
  specs=("vector_add 1048576" "matmul 256" "histogram 1048576" "radix_sort 262144")
  [ -z "${GPU_CHECK_SMALL:-}" ] && specs+=("vector_add 16777216" "matmul 1024" "histogram 16777216" "radix_sort 4194304")
  t() { local s=$(date +%s.%N); timeout -k 5 60 "$@" >/dev/null 2>>"$log"; local rc=$?; printf '%s(rc=%s) ' "$(elapsed "$s")" $rc; }
  for spec in "${specs[@]}"; do
    set -- $spec; exe=$w/build/ptx_emulator/bench/$1
    echo "$spec: native $(t "$exe" $2) native2 $(t "$exe" $2) barracuda $(t "$B" "${G[@]}" --error-exitcode 0 -q "$exe" $2) racecheck $(t compute-sanitizer --tool racecheck "$exe" $2)" | tee -a "$log"
  done
fi

if [ -n "${GPU_CHECK_DIAG:-}" ]; then
  # GPU_CHECK_DIAG='topic/stem ...': suite programs run alone with -v; their analysis
  # errors and statistics go to diag.txt (one file: a lease returns at most 8).
  say "4b diagnostics"
  for p in $GPU_CHECK_DIAG; do
    { echo "=== $p"; timeout -k 5 60 "$B" "${G[@]}" -v "$w/build/test_suite/programs/$p" 2>&1 | \
        grep -v "^=========     \|^========= $" | head -60; echo "rc=${PIPESTATUS[0]}"; } >> "$out/diag.txt"
  done
fi

if [ -x "$w/build/cli_tests/memory_errors" ]; then
  # compute-sanitizer memcheck on the program whose memory errors barracuda's
  # emulator reports (host_detector/cli/tests/memory_errors.cu): the same
  # errors, threads and offsets? And what a plain GPU run and --backend=gpu say.
  say "4c memcheck comparison"
  for m in before after freed misaligned shared ok; do
    { echo "=== $m native"; timeout -k 5 30 "$w/build/cli_tests/memory_errors" $m; echo "rc=$?";
      echo "=== $m memcheck"; timeout -k 5 60 compute-sanitizer --tool memcheck "$w/build/cli_tests/memory_errors" $m 2>&1 | head -40;
      echo "=== $m barracuda gpu"; timeout -k 5 60 "$B" "${G[@]}" "$w/build/cli_tests/memory_errors" $m 2>&1 | tail -12; echo "rc=${PIPESTATUS[0]}";
    } >> "$out/memcheck.txt" 2>&1
  done
fi

say "5 library corpus, --backend=gpu"
: > "$out/library.txt"
# One output file (at most 8 files come back from a lease): each test appends its lines when done.
while read -r prog arg; do
  tmp=$(mktemp)
  ( timeout -k 5 "$LIB_LIMIT" python3 "$repo/test_suite/programs/check_verdicts.py" --root "$repo/test_suite/library" --build "$w/build" \
      --barracuda "$B" --timeout "$((LIB_LIMIT - 5))" --program "$w/build/$prog" ${arg:+--arg "$arg"} "${CV_G[@]}" -q \
      > "$tmp" 2>&1; rc=$?; { echo "rc=$rc $prog $arg"; cat "$tmp"; } >> "$out/library.txt"; rm -f "$tmp" ) &
  while [ "$(jobs -r | wc -l)" -ge 12 ]; do sleep 0.2; done
done < <(if [ "$LIMIT" -gt 0 ]; then head -n "$LIMIT" "$w/library_tests.txt"; else grep -E -- "$LIB_RE" "$w/library_tests.txt"; fi)
wait
grep -c "^rc=0" "$out/library.txt" | sed 's/^/library passes: /' | tee -a "$log"
say done
