#!/usr/bin/env python3
"""Overlap and memory benchmark of the whole pipeline (issue 16 items 2 and 3).

Runs each emulator benchmark program (ptx_emulator/bench) on the emulator alone
and under `barracuda -v`, side by side, and its plain C++ counterpart
(emu_plain_reference: one thread, -O2, the computation alone), and prints per
program the plain C++ time, the wall times,
their ratio (the target: barracuda <= 2x the emulator alone, on 2 cores), the
device bytes the program touches, the daemon's peak resident memory and the
shadow memory, each per byte of device memory the program allocated (the target: <= 4 bytes of
daemon memory per device byte touched), and the records the daemon held at
most.

  scripts/overlap_benchmark.py [--build build] [--runs N] [--sizes medium|small|full]
"""
import argparse
import os
import re
import statistics
import subprocess
import sys
import time

SIZES = {
    "small": {"vector_add": 1 << 20, "matmul": 256, "histogram": 1 << 20, "radix_sort": 1 << 18},
    "medium": {"vector_add": 4 << 20, "matmul": 512, "histogram": 4 << 20, "radix_sort": 1 << 20},
    "full": {"vector_add": 16 << 20, "matmul": 1024, "histogram": 16 << 20, "radix_sort": 4 << 20},
}


def timed(cmd, env):
    t0 = time.monotonic()
    p = subprocess.run(cmd, env=env, capture_output=True, text=True)
    return time.monotonic() - t0, p


def mib(text, pattern):
    m = re.search(pattern, text)
    return float(m.group(1)) if m else float("nan")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--build", default="build")
    ap.add_argument("--runs", type=int, default=3, help="runs per point; the median is shown")
    ap.add_argument("--sizes", choices=sorted(SIZES), default="medium")
    ap.add_argument("--only", nargs="*", default=list(SIZES["small"]))
    args = ap.parse_args()
    bench = os.path.join(args.build, "ptx_emulator", "bench")
    barracuda = os.path.join(args.build, "bin", "barracuda")
    emu_env = dict(os.environ, LD_LIBRARY_PATH=os.path.join(args.build, "ptx_emulator"))
    plain = {}
    ref = subprocess.run([os.path.join(bench, "emu_plain_reference")] +
                         [f"{k}={v}" for k, v in SIZES[args.sizes].items()], capture_output=True, text=True)
    for line in ref.stdout.splitlines():
        m = re.match(r"BENCH name=(\w+) n=\d+ plain_ms=([0-9.]+)", line)
        if m:
            plain[m.group(1)] = float(m.group(2)) / 1000
    print(f"{'program':<11} {'n':>9} {'plain s':>8} {'emulator s':>10} {'barracuda s':>11} {'/emu':>6} {'/plain':>7} "
          f"{'device MiB':>10} {'daemon MiB':>10} {'B/B':>5} {'shadow MiB':>10} {'B/B':>5} {'held MiB':>8}")
    for name in args.only:
        n = SIZES[args.sizes][name]
        exe = os.path.join(bench, name)
        emu, bar = [], []
        text = ""
        for _ in range(args.runs):
            # Side by side: one of each per round.
            t, p = timed([exe, str(n)], emu_env)
            if p.returncode != 0 or "PASS" not in p.stdout:
                sys.exit(f"{name} failed on the emulator:\n{p.stdout}{p.stderr}")
            emu.append(t)
            t, p = timed([barracuda, "-v", exe, str(n)], dict(os.environ))
            if p.returncode != 0:
                sys.exit(f"barracuda {name} failed (exit {p.returncode}):\n{p.stdout}{p.stderr}")
            bar.append(t)
            text = p.stdout + p.stderr
        e, b = statistics.median(emu), statistics.median(bar)
        dev = mib(text, r"([0-9.]+) MiB of device memory allocated")
        daemon = mib(text, r"daemon: peak resident memory ([0-9.]+) MiB")
        shadow = mib(text, r"shadow memory at most ([0-9.]+) MiB")
        held = mib(text, r"records held at most [0-9]+ \(([0-9.]+) MiB")
        c = plain.get(name, float("nan"))
        print(f"{name:<11} {n:>9} {c:>8.4f} {e:>10.2f} {b:>11.2f} {b / e:>6.2f} {b / c:>7.0f} {dev:>10.1f} "
              f"{daemon:>10.1f} {daemon / dev:>5.1f} {shadow:>10.1f} {shadow / dev:>5.1f} {held:>8.1f}")


if __name__ == "__main__":
    main()
