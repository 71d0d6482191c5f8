#!/usr/bin/env python3
"""Scaling benchmark of the analysis (issue 16 item 4).

Runs each program of host_detector/bench/scaling at 1x, 2x, 4x and 8x its base size
under `barracuda` and on the emulator alone (one emulator worker: the same schedule in
both), and prints per size the thread accesses analysed, the wall times, and the
analysis cost per access relative to 1x. "Linear" means that doubling the accesses at
most doubles the analysis time: the per-access cost stays <= ~1.0x.

  scripts/scaling_benchmark.py [--build build] [--runs N] [--base-scale K]
"""
import argparse
import os
import re
import statistics
import subprocess
import sys
import time

PROGRAMS = {  # name -> base argument (1x)
    "hot_histogram": 16,
    "spin_lock": 16,
    "flag_poll": 64,
}


def timed(cmd, env):
    t0 = time.monotonic()
    p = subprocess.run(cmd, env=env, capture_output=True, text=True)
    return time.monotonic() - t0, p


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--build", default="build")
    ap.add_argument("--runs", type=int, default=3, help="runs per point; the median is shown")
    ap.add_argument("--base-scale", type=int, default=1, help="multiply every base size")
    args = ap.parse_args()
    exe_dir = os.path.join(args.build, "host_detector", "bench", "scaling")
    barracuda = os.path.join(args.build, "bin", "barracuda")
    env = dict(os.environ, BARRACUDA_EMU_WORKERS="1")
    emu_env = dict(env, LD_LIBRARY_PATH=os.path.join(args.build, "ptx_emulator"))
    print(f"{'program':<14} {'size':>5} {'accesses':>12} {'barracuda s':>12} {'emulator s':>11} "
          f"{'analysis ns/access':>19} {'vs 1x':>6}")
    worst = 0.0
    for name, base in PROGRAMS.items():
        exe = os.path.join(exe_dir, name)
        first = None
        for mult in (1, 2, 4, 8):
            arg = str(base * args.base_scale * mult)
            bt, et, accesses = [], [], None
            for _ in range(args.runs):
                # -v prints the per-process statistics note ("... N thread accesses").
                t, p = timed([barracuda, "-v", "--error-exitcode", "0", exe, arg], env)
                if p.returncode != 0:
                    sys.exit(f"{name} {arg}: barracuda exit {p.returncode}\n{p.stderr[-2000:]}")
                accesses = sum(int(x) for x in re.findall(r"(\d+) thread accesses", p.stdout + p.stderr))
                bt.append(t)
                t, p = timed([exe, arg], emu_env)
                if p.returncode != 0:
                    sys.exit(f"{name} {arg}: emulator run exit {p.returncode}\n{p.stdout[-1000:]}{p.stderr[-1000:]}")
                et.append(t)
            b, e = statistics.median(bt), statistics.median(et)
            per = max(b - e, 0.0) / max(accesses, 1) * 1e9
            first = first or per
            rel = per / first if first else 0.0
            if mult > 1:
                worst = max(worst, rel)
            print(f"{name:<14} {mult:>4}x {accesses:>12} {b:>12.3f} {e:>11.3f} {per:>19.1f} {rel:>6.2f}")
    print(f"worst per-access cost relative to 1x: {worst:.2f}")


if __name__ == "__main__":
    main()
