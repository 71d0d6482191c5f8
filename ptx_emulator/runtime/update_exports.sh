#!/bin/sh
# Regenerates cudart_exports.txt: every function the real CUDA runtime exports
# (one name per line, sorted). Run once per CUDA major version and check in the
# result; the build generates unsupported-function stubs from it.
#   usage: update_exports.sh [path/to/libcudart.so.13]
set -eu
lib=${1:-/usr/local/cuda/lib64/libcudart.so.13}
out=$(dirname "$0")/cudart_exports.txt
if [ ! -f "$lib" ]; then
  echo "update_exports.sh: $lib not found" >&2
  exit 1
fi
# Defined text symbols only; strip the @@version suffix.
nm -D --defined-only "$lib" | awk '$2 == "T" { sub(/@.*/, "", $3); print $3 }' | LC_ALL=C sort -u > "$out"
echo "update_exports.sh: $(wc -l < "$out") functions from $lib -> $out"
