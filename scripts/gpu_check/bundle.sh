#!/usr/bin/env bash
# Packs what the GPU check needs into .gpu/bundle.tar.gz (stripped binaries, the suite
# and library programs, the Debian libraries they link) so that it travels to a lent GPU
# machine (the device tool carries at most 64 MiB) whose image lacks TBB/Abseil/zstd/lz4.
#   scripts/gpu_check/bundle.sh [BUILD]     then run on_device.sh there (see README.md)
set -euo pipefail
repo=$(cd "$(dirname "$0")/../.." && pwd)
build=${1:-$repo/build}
stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
b=$stage/build
mkdir -p "$b/bin" "$b/lib" "$b/ptx_emulator" "$stage/deps"
for f in barracuda barracudad barracuda-ptx; do strip -o "$b/bin/$f" "$build/bin/$f"; done
strip -o "$b/lib/libbarracuda_gpu.so" "$build/lib/libbarracuda_gpu.so"
strip -o "$b/ptx_emulator/libcudart.so.13" "$build/ptx_emulator/libcudart.so.13"
# Programs: the suite, the library corpus, the example, the emulator benchmarks.
(cd "$build" && find test_suite/programs test_suite/library test_suite/memcheck test_suite/streams examples ptx_emulator/bench \
   -type f -perm -u+x ! -name '*.d' ! -path '*CMakeFiles*' -print0 | \
   while IFS= read -r -d '' f; do mkdir -p "$b/$(dirname "$f")"; strip -o "$b/$f" "$f" 2>/dev/null || cp "$f" "$b/$f"; done)
cp "$build"/examples/*.ptx "$b/examples/" 2>/dev/null || true
# The CLI's memory-error program: compute-sanitizer memcheck beside barracuda's reports.
mkdir -p "$b/cli_tests"
for f in memory_errors faulting_kernel; do
  [ -x "$build/host_detector/cli_tests/$f" ] && strip -o "$b/cli_tests/$f" "$build/host_detector/cli_tests/$f"
done
# Non-glibc shared libraries of our binaries.
for f in "$b/bin/barracuda" "$b/bin/barracudad" "$b/bin/barracuda-ptx" "$b/lib/libbarracuda_gpu.so" "$b/ptx_emulator/libcudart.so.13"; do
  ldd "$f" | awk '/=> \//{print $3}'
done | sort -u | grep -E 'libabsl|libtbb|libzstd|liblz4|libboost' | xargs -r cp -L -t "$stage/deps"
# The library tests' (program, algorithm) pairs, as ctest runs them.
(cd "$build" && ctest -N -V -L library | grep "Test command" | \
   sed -E 's/.*--program" "([^"]*)"( "--arg" "([^"]*)")?.*/\1 \3/' | sed "s#$build/##") > "$stage/library_tests.txt"
mkdir -p "$repo/.gpu"
tar -C "$stage" -czf "$repo/.gpu/bundle.tar.gz" .
ls -la "$repo/.gpu/bundle.tar.gz"
