#!/usr/bin/env python3
"""Emulator benchmark (issue 4): runs the four benchmark programs on the
replacement runtime with tracing off and on, with 1 and 2 workers, and their
plain C++ counterparts, and prints one table.

  scripts/emu_benchmark.py [--build build] [--sizes small|full] [--runs N]

Per program: kernel wall time (CUDA events = host wall clock on the emulator),
thread-instructions per second per core (from the emulator's statistics,
BARRACUDA_EMU_STATS), the 1 -> 2 worker speed-up, and the ratio to plain C++.
Tracing on = every record produced and handed to a counting sink
(BARRACUDA_EMU_TRACE=count), i.e. the emulator's cost of tracing without the
detector's.
"""
import argparse
import os
import re
import subprocess
import sys

PROGRAMS = ["vector_add", "matmul", "histogram", "radix_sort"]
SMALL = {"vector_add": 1 << 20, "matmul": 256, "histogram": 1 << 20, "radix_sort": 1 << 18}
FULL = {"vector_add": 16 << 20, "matmul": 1024, "histogram": 16 << 20, "radix_sort": 4 << 20}


def parse_kv(line):
    return dict(kv.split("=", 1) for kv in line.split()[1:] if "=" in kv)


def run_emulated(build, name, n, workers, trace):
    env = dict(os.environ)
    env["LD_LIBRARY_PATH"] = os.path.join(build, "ptx_emulator")
    env["BARRACUDA_EMU_WORKERS"] = str(workers)
    env["BARRACUDA_EMU_STATS"] = "1"
    if trace:
        env["BARRACUDA_EMU_TRACE"] = "count"
    else:
        env.pop("BARRACUDA_EMU_TRACE", None)
    exe = os.path.join(build, "ptx_emulator", "bench", name)
    p = subprocess.run([exe, str(n)], env=env, capture_output=True, text=True)
    out = p.stdout + p.stderr
    if p.returncode != 0 or "PASS" not in out:
        sys.exit(f"{name} failed (exit {p.returncode}):\n{out}")
    bench = next(parse_kv(l) for l in out.splitlines() if l.startswith("BENCH "))
    stats = [parse_kv(l.replace("barracuda emulator stats:", "STATS"))
             for l in out.splitlines() if l.startswith("barracuda emulator stats:")]
    thread_insts = sum(int(s.get("thread_instructions", 0)) for s in stats)
    records = sum(int(s.get("records", 0)) for s in stats)
    return float(bench["kernel_ms"]), thread_insts, records


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--build", default="build")
    ap.add_argument("--sizes", choices=["small", "full"], default="full")
    ap.add_argument("--runs", type=int, default=1, help="best of N runs")
    ap.add_argument("--only", nargs="*", default=PROGRAMS)
    args = ap.parse_args()
    sizes = FULL if args.sizes == "full" else SMALL

    ref_exe = os.path.join(args.build, "ptx_emulator", "bench", "emu_plain_reference")
    ref_args = [f"{k}={v}" for k, v in sizes.items()]
    plain = {}
    for _ in range(args.runs):
        out = subprocess.run([ref_exe] + ref_args, capture_output=True, text=True, check=True).stdout
        for line in out.splitlines():
            if line.startswith("BENCH "):
                kv = parse_kv(line)
                ms = float(kv["plain_ms"])
                plain[kv["name"]] = min(ms, plain.get(kv["name"], ms))

    print(f"{'program':<11} {'n':>9} {'off 1w ms':>10} {'off 2w ms':>10} {'on 1w ms':>10} "
          f"{'Mthr-inst/s/core':>16} {'1->2 speed-up':>13} {'x plain C++':>11} {'records':>11}")
    for name in args.only:
        n = sizes[name]
        best = {}
        for workers, trace in ((1, False), (2, False), (1, True)):
            for _ in range(args.runs):
                ms, ti, rec = run_emulated(args.build, name, n, workers, trace)
                key = (workers, trace)
                if key not in best or ms < best[key][0]:
                    best[key] = (ms, ti, rec)
        off1, ti, _ = best[(1, False)]
        off2 = best[(2, False)][0]
        on1, _, rec = best[(1, True)]
        rate = ti / (off1 / 1000.0) / 1e6 if off1 > 0 else 0.0
        print(f"{name:<11} {n:>9} {off1:>10.1f} {off2:>10.1f} {on1:>10.1f} {rate:>16.1f} "
              f"{off1 / off2 if off2 else 0:>13.2f} {off1 / plain[name] if plain.get(name) else 0:>11.1f} {rec:>11}")


if __name__ == "__main__":
    main()
