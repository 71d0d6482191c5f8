#!/usr/bin/env bash
# Builds the CUDA benchmarks of a Rodinia 3.1 checkout for barracuda on CUDA 13.
#
# Usage: build_rodinia.sh RODINIA_DIR [BENCHMARK...]   (default: every cuda/*/ or cuda/*/*/ with a Makefile)
#
# Rodinia's Makefiles call $(CUDA_DIR)/bin/nvcc (common/make.config) with
# flags of 2015: -arch=sm_13 and the like, static cudart (nvcc's default). This
# script points CUDA_DIR at a shadow of the toolkit (RODINIA_DIR/.barracuda-cuda:
# links to the real one) whose bin/nvcc is a wrapper that drops the old
# architecture flags and adds what barracuda needs:
#   -cudart shared -lineinfo -gencode arch=compute_75,code=[sm_75,compute_75]
#   -include cuda13_compat.h   (cudaThread*, 1-D texture references: see the header)
# The wrapper is also first on PATH for Makefiles that call a bare `nvcc`.
# A benchmark that does not build is reported with the tail of its log
# (RODINIA_DIR/.barracuda-cuda/logs/NAME.log) and the others go on; exit 1 when
# any failed. Environment: CUDA_HOME (default: the nvcc on PATH, else
# /usr/local/cuda), BARRACUDA_ARCH (default 75), MAKE_JOBS (default: nproc).
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
[ $# -ge 1 ] || { echo "usage: $0 RODINIA_DIR [BENCHMARK...]" >&2; exit 2; }
rodinia=$(cd "$1" 2>/dev/null && pwd) || { echo "build_rodinia: $1: no such directory" >&2; exit 2; }
shift
[ -d "$rodinia/cuda" ] || { echo "build_rodinia: $rodinia/cuda not found: not a Rodinia 3.1 checkout" >&2; exit 2; }
real_nvcc=$(command -v nvcc || echo "${CUDA_HOME:-/usr/local/cuda}/bin/nvcc")
[ -x "$real_nvcc" ] || { echo "build_rodinia: nvcc not found (put CUDA 13 on PATH or set CUDA_HOME)" >&2; exit 2; }
cuda_home=${CUDA_HOME:-$(cd "$(dirname "$real_nvcc")/.." && pwd)}
arch=${BARRACUDA_ARCH:-75}

shadow=$rodinia/.barracuda-cuda
rm -rf "$shadow"
mkdir -p "$shadow/bin" "$shadow/logs"
for entry in "$cuda_home"/*; do
  [ "$(basename "$entry")" = bin ] || ln -s "$entry" "$shadow/$(basename "$entry")"
done
for tool in "$cuda_home"/bin/*; do
  [ "$(basename "$tool")" = nvcc ] || ln -s "$tool" "$shadow/bin/$(basename "$tool")"
done
cat > "$shadow/bin/nvcc" <<WRAPPER
#!/usr/bin/env bash
# barracuda's nvcc wrapper for Rodinia (build_rodinia.sh): old architecture and
# runtime flags out, shared cudart, line info, embedded PTX and the compat header in.
args=()
skip=0
for a in "\$@"; do
  if [ \$skip = 1 ]; then skip=0; continue; fi
  case "\$a" in
    -arch|--gpu-architecture|-code|--gpu-code|-gencode|--generate-code|-cudart|--cudart) skip=1 ;;
    -arch=*|--gpu-architecture=*|-code=*|--gpu-code=*|-gencode=*|--generate-code=*|-cudart=*|--cudart=*) ;;
    -arch*|-gencode*) ;;
    *) args+=("\$a") ;;
  esac
done
exec "$real_nvcc" -cudart shared -lineinfo -gencode "arch=compute_$arch,code=[sm_$arch,compute_$arch]" \\
  -include "$here/cuda13_compat.h" -diag-suppress 20092,20091 "\${args[@]}"
WRAPPER
chmod +x "$shadow/bin/nvcc"

if [ $# -gt 0 ]; then
  benchmarks=("$@")
else
  # cuda/NAME/Makefile, or one level down (cuda/srad/srad_v1/Makefile).
  benchmarks=()
  for d in "$rodinia"/cuda/*/; do
    d=${d%/}
    if [ -f "$d/Makefile" ] || [ -f "$d/makefile" ]; then
      benchmarks+=("$(basename "$d")")
      continue
    fi
    for sub in "$d"/*/; do
      sub=${sub%/}
      [ -f "$sub/Makefile" ] || [ -f "$sub/makefile" ] && benchmarks+=("$(basename "$d")/$(basename "$sub")")
    done
  done
fi
built=() failed=()
for b in "${benchmarks[@]}"; do
  dir=$rodinia/cuda/$b
  log=$shadow/logs/${b//\//_}.log
  printf 'build_rodinia: %-16s ' "$b" >&2
  if [ ! -d "$dir" ]; then
    echo "no such benchmark ($dir)" >&2; failed+=("$b"); continue
  fi
  if PATH="$shadow/bin:$PATH" make -C "$dir" -j"${MAKE_JOBS:-$(nproc)}" CUDA_DIR="$shadow" \
      CUDA_LIB_DIR="$shadow/lib64" SDK_DIR="$shadow/samples" >"$log" 2>&1; then
    echo ok >&2; built+=("$b")
  else
    echo "FAILED ($log):" >&2; tail -5 "$log" | sed 's/^/    /' >&2; failed+=("$b")
  fi
done
echo "build_rodinia: ${#built[@]} built, ${#failed[@]} failed${failed:+: ${failed[*]}}" >&2
[ ${#failed[@]} -eq 0 ]
