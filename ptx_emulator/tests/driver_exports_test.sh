#!/bin/sh
# Checks the built replacement driver against NVIDIA's interface: soname
# libcuda.so.1, every function of libcuda_exports.txt exported unversioned
# (as NVIDIA's are), nothing else exported, the implemented entry points
# strong definitions (not the generated "not supported" stubs), and
# DT_NEEDED libcudart.so.13 (the runtime does the work).
#   usage: driver_exports_test.sh LIBRARY EXPORTS_LIST
set -eu
lib=$1
list=$2
fail=0
soname=$(readelf -d "$lib" | sed -n 's/.*Library soname: \[\(.*\)\]/\1/p')
if [ "$soname" != "libcuda.so.1" ]; then
  echo "FAIL: soname is '$soname', expected libcuda.so.1"
  fail=1
fi
if ! readelf -d "$lib" | grep -q "Shared library: \[libcudart.so.13\]"; then
  echo "FAIL: no DT_NEEDED libcudart.so.13"
  fail=1
fi
if readelf -V "$lib" | grep -q "Version definition"; then
  echo "FAIL: the library defines symbol versions (NVIDIA's exports are unversioned)"
  fail=1
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
nm -D --defined-only "$lib" | awk '$2 == "T" || $2 == "W" { print $3 }' | LC_ALL=C sort -u > "$tmp/have"
grep -v '^#' "$list" | LC_ALL=C sort -u > "$tmp/want"
missing=$(LC_ALL=C comm -23 "$tmp/want" "$tmp/have" | wc -l)
if [ "$missing" -ne 0 ]; then
  echo "FAIL: $missing functions missing, e.g.:"
  LC_ALL=C comm -23 "$tmp/want" "$tmp/have" | head -10
  fail=1
fi
extra=$(nm -D --defined-only "$lib" | awk '$2 != "A" { print $3 }' | LC_ALL=C sort -u | LC_ALL=C comm -23 - "$tmp/want" | wc -l)
if [ "$extra" -ne 0 ]; then
  echo "FAIL: $extra exported symbols that NVIDIA's libcuda does not export, e.g.:"
  nm -D --defined-only "$lib" | awk '$2 != "A" { print $3 }' | LC_ALL=C sort -u | LC_ALL=C comm -23 - "$tmp/want" | head -10
  fail=1
fi
for name in cuInit cuModuleLoadData cuModuleLoadDataEx cuModuleGetFunction cuLaunchKernel cuLaunchKernel_ptsz \
            cuLaunchKernelEx cuMemAlloc_v2 cuMemcpyHtoD_v2 cuMemcpyDtoH_v2 cuMemsetD32_v2 cuCtxCreate_v4 \
            cuStreamCreate cuEventRecord cuGetProcAddress_v2 cuGetProcAddress cuLibraryLoadData cuGetErrorString; do
  if ! nm -D --defined-only "$lib" | grep -q " T $name\$"; then
    echo "FAIL: $name is not a strong definition (the not-supported stub won?)"
    fail=1
  fi
done
[ "$fail" -eq 0 ] && echo "PASS: $(wc -l < "$tmp/want") functions exported by libcuda.so.1," \
  "$(nm -D --defined-only "$lib" | awk '$2 == "T"' | wc -l) implemented"
exit "$fail"
