#!/bin/sh
# Checks the built replacement runtime against the real one's interface:
# soname libcudart.so.13, version node libcudart.so.13, and every function in
# cudart_exports.txt exported (defined) under that node.
# With UNIMPLEMENTED_LIST, also that the list of functions still served by the
# generated "not supported" stubs (weak definitions) is the checked-in one, so
# that the README's figure and list stay true (regenerate: see the README).
#   usage: runtime_exports_test.sh LIBRARY EXPORTS_LIST [UNIMPLEMENTED_LIST]
set -eu
lib=$1
list=$2
unimplemented=${3:-}
fail=0
soname=$(readelf -d "$lib" | sed -n 's/.*Library soname: \[\(.*\)\]/\1/p')
if [ "$soname" != "libcudart.so.13" ]; then
  echo "FAIL: soname is '$soname', expected libcudart.so.13"
  fail=1
fi
if ! readelf -V "$lib" | grep -q "Name: libcudart.so.13"; then
  echo "FAIL: no version definition libcudart.so.13"
  fail=1
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# name@@node for every defined dynamic function
nm -D --defined-only "$lib" | awk '$2 == "T" || $2 == "W" { print $3 }' | LC_ALL=C sort -u > "$tmp/have"
sed 's/$/@@libcudart.so.13/' "$list" | LC_ALL=C sort -u > "$tmp/want"
missing=$(LC_ALL=C comm -23 "$tmp/want" "$tmp/have" | wc -l)
if [ "$missing" -ne 0 ]; then
  echo "FAIL: $missing functions missing or not under version libcudart.so.13, e.g.:"
  LC_ALL=C comm -23 "$tmp/want" "$tmp/have" | head -10
  fail=1
fi
# Implemented entry points are strong definitions, not the generated weak stubs.
for name in __cudaRegisterFatBinary __cudaRegisterFunction __cudaLaunchKernel __cudaPushCallConfiguration \
            cudaMalloc cudaMemcpy cudaMemcpyToSymbol cudaLaunchKernel cudaGetErrorString cudaMemcpyAsync_ptsz; do
  if ! nm -D --defined-only "$lib" | grep -q " T $name@@libcudart.so.13\$"; then
    echo "FAIL: $name is not a strong definition (the unsupported stub won?)"
    fail=1
  fi
done
# Nothing else leaks out (the emulator, abseil, libstdc++ stay private), but
# the private entry points of barracuda's own libcuda.so.1 (__barracuda*,
# generate_runtime_tables.py's PRIVATE_EXPORTS).
extra=$(nm -D --defined-only "$lib" | awk '$2 != "A" { print $3 }' | sed 's/@.*//' | grep -v '^__barracuda' |
        LC_ALL=C sort -u | LC_ALL=C comm -23 - "$list" | wc -l)
if [ "$extra" -ne 0 ]; then
  echo "FAIL: $extra exported symbols that the real runtime does not export, e.g.:"
  nm -D --defined-only "$lib" | awk '$2 != "A" { print $3 }' | sed 's/@.*//' | grep -v '^__barracuda' |
    LC_ALL=C sort -u | LC_ALL=C comm -23 - "$list" | head -10
  fail=1
fi
if [ -n "$unimplemented" ]; then
  nm -D --defined-only "$lib" | awk '$2 == "W" { print $3 }' | sed 's/@.*//' | LC_ALL=C sort -u > "$tmp/stubs"
  if ! LC_ALL=C sort -u "$unimplemented" | grep -v '^#' | cmp -s - "$tmp/stubs"; then
    echo "FAIL: $unimplemented is not the list of stubbed functions; differences (< listed, > stubbed):"
    LC_ALL=C sort -u "$unimplemented" | grep -v '^#' | diff - "$tmp/stubs" | head -20
    fail=1
  fi
fi
[ "$fail" -eq 0 ] && echo "PASS: $(wc -l < "$list") functions exported under libcudart.so.13"
exit "$fail"
