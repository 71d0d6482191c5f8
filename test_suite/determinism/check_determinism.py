#!/usr/bin/env python3
"""Same program, same seed, same report: runs programs under barracuda (emulator
backend) with several emulator worker counts and repeated runs, and checks that
every run prints the same program output, ends with the same exit status and
writes the same JSON report once the fields that must vary are left out
(STABLE_FILTER below, the jq filter documented in the top-level README).

  check_determinism.py --build build --suite            # every bug-suite program (and -G twin)
  check_determinism.py --build build --library          # the library corpus, every argument
  check_determinism.py --build build --program P [--arg A]

Exit status: 0 all identical, 1 a difference or a failed run, 2 usage error.
"""
import argparse
import concurrent.futures
import difflib
import glob
import json
import os
import re
import subprocess
import sys
import tempfile

# What differs between two runs of one program by design: process ids, the
# barracuda command line (report paths) and -v notes (times, pids).
# jq equivalent (host_detector/reports/REPORTS.md): del(.run.command_line, .run.notes,
# .processes[].pid, .races[].process_id, .stream_order_races[].process_id,
# .memory_errors[].process_id) | .run.incomplete_reasons[]? |= sub("^process [0-9]+"; "process N")
def stable(report):
    report = json.loads(json.dumps(report))
    run = report.get("run", {})
    run.pop("command_line", None)
    run.pop("notes", None)
    if "incomplete_reasons" in run:
        run["incomplete_reasons"] = [re.sub(r"^process \d+", "process N", r) for r in run["incomplete_reasons"]]
    for p in report.get("processes", []):
        p.pop("pid", None)
    for entries in ("races", "stream_order_races", "memory_errors"):
        for r in report.get(entries, []):
            r.pop("process_id", None)
    return json.dumps(report, indent=1, sort_keys=True)


def header(source):
    text = open(source, encoding="utf-8").read()
    m = re.search(r"/\*@barracuda(.*?)@\*/", text, re.S)
    return json.loads(m.group(1)) if m else {}


# Programs whose own execution differs from run to run: host threads that
# launch at the same moment, so which launch comes first (a race's first side,
# the launch ids, the per-thread stream ids) is the OS scheduler's choice. The
# suite checks their verdict on every run; the same report cannot be asked of them.
HOST_THREADS_RACE = {
    "streams/kernels/two_host_threads_one_buffer_racy":
        "two host threads launch at once: which launch is first is the OS scheduler's choice",
    "streams/kernels/per_thread_default_streams_racy":
        "two host threads launch at once on per-thread streams: launch order and stream ids are the OS's choice",
}


def suite_programs(build):
    out = []
    # The bug suite and its -G twins, and the programs whose findings are
    # memory errors and stream-order races.
    for folder in ("programs", "programs-G", "memcheck", "streams"):
        for exe in sorted(glob.glob(os.path.join(build, "test_suite", folder, "*", "*"))):
            if os.path.isfile(exe) and os.access(exe, os.X_OK) and not exe.endswith(".d"):
                rel = os.path.relpath(exe, os.path.join(build, "test_suite"))
                if rel in HOST_THREADS_RACE:
                    print(f"SKIP {rel}: {HOST_THREADS_RACE[rel]}")
                    continue
                out.append((exe, []))
    return out


def library_programs(build, root):
    out = []
    for source in sorted(glob.glob(os.path.join(root, "test_suite", "library", "*", "*.cu"))):
        topic = os.path.basename(os.path.dirname(source))
        stem = os.path.splitext(os.path.basename(source))[0]
        exe = os.path.join(build, "test_suite", "library", topic, stem)
        if not os.path.exists(exe):
            continue
        args = header(source).get("args", [])
        out.extend((exe, [a]) for a in args) if args else out.append((exe, []))
    return out


def run_once(barracuda, exe, args, workers, tmp, tag, timeout):
    report = os.path.join(tmp, f"{tag}.json")
    env = dict(os.environ, BARRACUDA_EMU_WORKERS=str(workers))
    cmd = [barracuda, "--backend=emu", "-q", "--report-json", report, exe, *args]
    try:
        p = subprocess.run(cmd, env=env, capture_output=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return None, f"timed out after {timeout} s"
    try:
        text = stable(json.load(open(report)))
    except (OSError, ValueError) as e:
        return None, f"no report ({e}); stderr: {p.stderr.decode(errors='replace')[-400:]}"
    return (p.returncode, p.stdout, text), None


def check(barracuda, exe, args, plan, timeout):
    name = " ".join([os.path.relpath(exe), *args])
    with tempfile.TemporaryDirectory() as tmp:
        results = []
        for i, workers in enumerate(plan):
            res, err = run_once(barracuda, exe, args, workers, tmp, f"run{i}", timeout)
            if err:
                return name, f"run with {workers} worker(s): {err}"
            results.append((workers, res))
    (w0, (rc0, out0, rep0)) = results[0]
    for workers, (rc, out, rep) in results[1:]:
        what = []
        if rc != rc0:
            what.append(f"exit status {rc0} with {w0} worker(s), {rc} with {workers}")
        if out != out0:
            what.append(f"program output differs between {w0} and {workers} worker(s)")
        if rep != rep0:
            diff = difflib.unified_diff(rep0.splitlines(), rep.splitlines(), f"{w0} worker(s)", f"{workers} worker(s)",
                                        lineterm="", n=1)
            what.append("report differs:\n" + "\n".join(list(diff)[:40]))
        if what:
            return name, "; ".join(what)
    return name, None


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    root = os.path.dirname(os.path.dirname(here))
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--build", default=os.path.join(root, "build"))
    ap.add_argument("--barracuda", help="default: BUILD/bin/barracuda")
    ap.add_argument("--suite", action="store_true",
                    help="every bug-suite program and -G twin, memcheck and stream-order program")
    ap.add_argument("--library", action="store_true", help="every library-corpus program and argument")
    ap.add_argument("--program", action="append", default=[])
    ap.add_argument("--arg", action="append", default=[], help="argument for every --program")
    ap.add_argument("--workers", default="1,2,4,2",
                    help="emulator workers per run, compared with the first (default 1,2,4,2: "
                         "three counts and a repeat)")
    ap.add_argument("--jobs", "-j", type=int, default=2)
    ap.add_argument("--timeout", type=int, default=300)
    args = ap.parse_args()
    barracuda = args.barracuda or os.path.join(args.build, "bin", "barracuda")
    plan = [int(w) for w in args.workers.split(",") if w]
    programs = [(p, list(args.arg)) for p in args.program]
    if args.suite:
        programs += suite_programs(args.build)
    if args.library:
        programs += library_programs(args.build, root)
    if not programs or len(plan) < 2:
        ap.error("nothing to compare: give --suite, --library or --program, and two or more --workers")
    failures = 0
    with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
        futures = [pool.submit(check, barracuda, exe, a, plan, args.timeout) for exe, a in programs]
        for n, f in enumerate(concurrent.futures.as_completed(futures), 1):
            name, problem = f.result()
            if problem:
                failures += 1
                print(f"DIFFERS {name}: {problem}", flush=True)
    print(f"{len(programs) - failures}/{len(programs)} programs gave identical output, exit status and report "
          f"over {len(plan)} runs each (workers {args.workers})")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
