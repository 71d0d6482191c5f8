#!/usr/bin/env python3
"""Instruments every PTX file of one corpus group and assembles the result.

For each file of the group in the manifest written by scripts/corpus_generate.py:
  barracuda-ptx instrument FILE --stats -o OUT
  ptxas -arch=sm_XX -c OUT -o /dev/null     (the logger functions are .extern)
or, with --logger LOGGER.ptx, the logger merged and, for every --full-every'th
file (default 4: the logger is the same in every file and assembling it takes
most of ptxas's time), a full (non -c) ptxas; the others -c -O0 (the
front end's checks are the same at every level; the merged logger's functions
are compiled in each file, 0.32 s at -O3 against 0.15 s at -O0 for a small
module, ~40 s of CI for the group; the full assemblies keep ptxas's default
-O3, as the driver's JIT).
and sums the --stats counts (static instructions, instrumented before and after
pruning: the paper's Figure 9) over the group.

Exit status: 0 every file passed, 1 some file failed, 2 usage or corpus error.
"""
import argparse
import json
import os
import re
import subprocess
import sys

TARGET_RE = re.compile(r"^\s*\.target\s+(sm_\d+[a-z]?)", re.M)
EXTERN_FUNC_RE = re.compile(r"^\s*\.extern\s+\.func\b", re.M)
STAT_RE = re.compile(r"^\s*([a-z ()\-]+): (\d+)", re.M)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--manifest", required=True)
    ap.add_argument("--group", required=True)
    ap.add_argument("--tool", required=True)
    ap.add_argument("--ptxas", required=True)
    ap.add_argument("--out-dir", required=True)
    ap.add_argument("--logger", help="merge this logger PTX and assemble without -c")
    ap.add_argument("--full-every", type=int, default=4,
                    help="with --logger: assemble every N-th file in full, the others with -c (1: all)")
    args = ap.parse_args()
    try:
        with open(args.manifest, encoding="utf-8") as f:
            manifest = json.load(f)
    except (OSError, ValueError) as e:
        print(f"corpus: cannot read {args.manifest}: {e} (did the corpus_generate fixture run?)")
        return 2
    entries = [e for e in manifest.get("ptx", []) if e.get("group") == args.group]
    if not entries:
        print(f"corpus: no PTX files in group {args.group}")
        return 2
    os.makedirs(args.out_dir, exist_ok=True)
    totals = {}
    failures = []
    full_linked = 0
    for index, e in enumerate(entries):
        path = e["output"]
        out = os.path.join(args.out_dir, e["source"].replace("/", "_")[:-3] + ".ptx")
        with open(path, encoding="utf-8", errors="replace") as f:
            text = f.read()
        m = TARGET_RE.search(text)
        # -rdc modules call functions of other modules: assemble them with -c.
        rdc = bool(EXTERN_FUNC_RE.search(text))
        target = m.group(1) if m else "sm_90"
        extra = ["--logger", args.logger] if args.logger else []
        p = subprocess.run([args.tool, "instrument", path, "--stats", "-o", out] + extra,
                           capture_output=True, text=True)
        if p.returncode != 0:
            failures.append(f"{path}: instrument: exit {p.returncode}\n{p.stderr[-2000:]}")
            continue
        for name, value in STAT_RE.findall(p.stderr):
            totals[name.strip()] = totals.get(name.strip(), 0) + int(value)
        full = args.logger and not rdc and index % max(1, args.full_every) == 0
        full_linked += bool(full)
        compile_only = [] if full else ["-c", "-O0"]
        q = subprocess.run([args.ptxas, f"-arch={target}"] + compile_only + [out, "-o", os.devnull],
                           capture_output=True, text=True)
        if q.returncode != 0:
            failures.append(f"{path}: ptxas -arch={target} {' '.join(compile_only)} {out}: exit {q.returncode}\n{q.stderr[-2000:]}")
            continue
        os.remove(out)
    print(f"group {args.group}: {len(entries)} files ({full_linked} assembled with the logger in full), "
          f"{len(failures)} failed")
    for k, v in totals.items():
        print(f"  {k}: {v}")
    s = totals.get("static instructions", 0)
    if s:
        b, a = totals.get("instrumented before pruning", 0), totals.get("instrumented after pruning", 0)
        print(f"  instrumented: {100.0 * b / s:.1f}% before pruning, {100.0 * a / s:.1f}% after")
    for f in failures:
        print(f)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
