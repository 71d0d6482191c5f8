#!/usr/bin/env python3
"""Build-time generator for the replacement libcudart.so.13.

From cudart_exports.txt (every function the real CUDA 13 runtime exports) and
the toolkit's driver_types.h it writes:
  unsupported_stubs.cpp  a weak definition of every exported function; the
                         implemented ones are strong definitions elsewhere in
                         the library and win at link time. A stub prints one
                         message per function (once) and returns
                         cudaErrorNotSupported.
  libcudart.map          the version script: node `libcudart.so.13` holding
                         exactly the exported names, everything else local.
  error_table.inc        one {value, "cudaErrorXxx", "description"} row per
                         cudaError_t enumerator (cudaGetErrorName/String).

usage: generate_runtime_tables.py EXPORTS DRIVER_TYPES_H OUT_DIR
"""
import os
import re
import sys

# Called by barracuda's replacement libcuda.so.1 only (ptx_emulator/driver),
# defined in the runtime: runtime/session_notes.cpp.
PRIVATE_EXPORTS = ["__barracudaEmuNoteNotRun"]

# cudaGetErrorString texts of the real runtime for the errors programs and the
# emulator actually produce; every other value falls back to the first
# sentence of its documentation comment in driver_types.h.
KNOWN_STRINGS = {
    "cudaSuccess": "no error",
    "cudaErrorInvalidValue": "invalid argument",
    "cudaErrorMemoryAllocation": "out of memory",
    "cudaErrorInitializationError": "initialization error",
    "cudaErrorCudartUnloading": "driver shutting down",
    "cudaErrorProfilerDisabled": "profiler disabled while using external profiling tool",
    "cudaErrorInvalidConfiguration": "invalid configuration argument",
    "cudaErrorInvalidPitchValue": "invalid pitch argument",
    "cudaErrorInvalidSymbol": "invalid device symbol",
    "cudaErrorInvalidHostPointer": "invalid host pointer",
    "cudaErrorInvalidDevicePointer": "invalid device pointer",
    "cudaErrorInvalidTexture": "invalid texture reference",
    "cudaErrorInvalidChannelDescriptor": "invalid channel descriptor",
    "cudaErrorInvalidMemcpyDirection": "invalid copy direction for memcpy",
    "cudaErrorMissingConfiguration": "__global__ function call is not configured",
    "cudaErrorInvalidDeviceFunction": "invalid device function",
    "cudaErrorNoDevice": "no CUDA-capable device is detected",
    "cudaErrorInvalidDevice": "invalid device ordinal",
    "cudaErrorInvalidKernelImage": "device kernel image is invalid",
    "cudaErrorDeviceUninitialized": "invalid device context",
    "cudaErrorNoKernelImageForDevice": "no kernel image is available for execution on the device",
    "cudaErrorInvalidPtx": "a PTX JIT compilation failed",
    "cudaErrorUnsupportedPtxVersion": "the provided PTX was compiled with an unsupported toolchain.",
    "cudaErrorSymbolNotFound": "named symbol not found",
    "cudaErrorInvalidResourceHandle": "invalid resource handle",
    "cudaErrorNotReady": "device not ready",
    "cudaErrorIllegalAddress": "an illegal memory access was encountered",
    "cudaErrorLaunchOutOfResources": "too many resources requested for launch",
    "cudaErrorLaunchTimeout": "the launch timed out and was terminated",
    "cudaErrorAssert": "device-side assert triggered",
    "cudaErrorHardwareStackError": "hardware stack error",
    "cudaErrorIllegalInstruction": "an illegal instruction was encountered",
    "cudaErrorMisalignedAddress": "misaligned address",
    "cudaErrorInvalidAddressSpace": "operation not supported on global/shared address space",
    "cudaErrorInvalidPc": "invalid program counter",
    "cudaErrorLaunchFailure": "unspecified launch failure",
    "cudaErrorCooperativeLaunchTooLarge": "too many blocks in cooperative launch",
    "cudaErrorNotPermitted": "operation not permitted",
    "cudaErrorNotSupported": "operation not supported",
    "cudaErrorTimeout": "wait operation timed out",
    "cudaErrorUnknown": "unknown error",
    "cudaErrorUnsupportedLimit": "limit is not supported on this architecture",
    "cudaErrorFileNotFound": "file not found",
    "cudaErrorIllegalState": "the operation cannot be performed in the present state",
    "cudaErrorNotYetImplemented": "feature not yet implemented",
    "cudaErrorStubLibrary": "CUDA driver is a stub library",
    "cudaErrorInsufficientDriver": "CUDA driver version is insufficient for CUDA runtime version",
    "cudaErrorHostMemoryAlreadyRegistered": "part or all of the requested memory range is already mapped",
    "cudaErrorHostMemoryNotRegistered": "pointer does not correspond to a registered memory region",
    "cudaErrorContextIsDestroyed": "context is destroyed",
    "cudaErrorSetOnActiveProcess": "cannot set while device is active in this process",
}


def c_string(s):
    return '"' + s.replace("\\", "\\\\").replace('"', '\\"') + '"'


def documented_enumerators(body, name_pattern):
    """(value, name, first sentence of its /** */ comment) of each enumerator
    matching name_pattern in an enum body. Shared with the driver's generator
    (ptx_emulator/driver/generate_driver_tables.py: CUresult)."""
    rows = []
    for m in re.finditer(r"/\*\*(.*?)\*/\s*,?\s*(" + name_pattern + r")\s*=\s*(\d+)", body, re.S):
        doc, name, value = m.group(1), m.group(2), int(m.group(3))
        text = " ".join(line.strip().lstrip("*").strip() for line in doc.splitlines()).strip()
        text = re.sub(r"\s+", " ", text.replace("\\deprecated", "")).replace("::", "").strip()
        first = re.split(r"(?<=[a-z0-9)])\.\s", text + " ", maxsplit=1)[0].rstrip(". ")
        rows.append((value, name, first or name))
    return rows


def parse_errors(header_text):
    start = header_text.index("enum __device_builtin__ cudaError")
    body = header_text[start:header_text.index("};", start)]
    rows = [(v, n, KNOWN_STRINGS.get(n, s)) for v, n, s in
            documented_enumerators(body, r"cuda(?:Success|Error\w*)")]
    if not any(name == "cudaErrorIllegalAddress" for _, name, _ in rows):
        raise SystemExit("generate_runtime_tables.py: could not parse enum cudaError")
    return rows


def read_names(path, pattern, program):
    """The names of an export list (one per line, # comments), each checked
    against pattern. Shared with the driver's generator."""
    with open(path) as f:
        names = [line.strip() for line in f if line.strip() and not line.startswith("#")]
    for n in names:
        if not re.fullmatch(pattern, n):
            raise SystemExit(f"{program}: bad name {n!r} in {path}")
    return names


def write_if_changed(path, text):
    if os.path.exists(path):
        with open(path) as f:
            if f.read() == text:
                return
    with open(path, "w") as f:
        f.write(text)


def main():
    if len(sys.argv) != 4:
        raise SystemExit(__doc__)
    exports_path, header_path, out_dir = sys.argv[1:]
    names = read_names(exports_path, r"[A-Za-z_][A-Za-z0-9_]*", "generate_runtime_tables.py")
    with open(header_path) as f:
        errors = parse_errors(f.read())

    stubs = [
        "// Generated by generate_runtime_tables.py from cudart_exports.txt: do not edit.",
        "// Weak: every implemented function is a strong definition that replaces its stub.",
        '#include "ptx_emulator/runtime/unsupported.h"',
        "",
        "#define BARRACUDA_UNSUPPORTED(name) \\",
        '  extern "C" __attribute__((weak, visibility("default"))) int name() { \\',
        "    static barracuda::cudart::UnsupportedOnce once; \\",
        "    return once.Report(#name); \\",
        "  }",
        "",
    ]
    stubs += [f"BARRACUDA_UNSUPPORTED({n})" for n in names]
    write_if_changed(os.path.join(out_dir, "unsupported_stubs.cpp"), "\n".join(stubs) + "\n")

    # Besides NVIDIA's names, the private entry points of barracuda's own
    # libcuda.so.1 (which runs on this runtime); no stub: defined in the runtime.
    version = (["libcudart.so.13 {", "  global:"] + [f"    {n};" for n in names + PRIVATE_EXPORTS] +
               ["  local:", "    *;", "};"])
    write_if_changed(os.path.join(out_dir, "libcudart.map"), "\n".join(version) + "\n")

    table = ["// Generated by generate_runtime_tables.py from driver_types.h: do not edit."]
    table += [f"{{{v}, {c_string(n)}, {c_string(s)}}}," for v, n, s in errors]
    write_if_changed(os.path.join(out_dir, "error_table.inc"), "\n".join(table) + "\n")


if __name__ == "__main__":
    main()
