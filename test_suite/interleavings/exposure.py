#!/usr/bin/env python3
"""Schedules needed to expose each interleaving-dependent bug (interleavings.cu).

For each bug and policy, runs `barracuda --schedules BUDGET [--schedule-policy P]
--report-json` once and reads the report: a schedule exposes the bug when its
run shows a race (races[].schedules[].number) or ends other than with status 0
(run.exploration.schedules[].ends). The first such schedule's number is the
cost: schedule 1 is always the default round-robin run, under which no bug
here shows. Policies:
  cd      --schedule-policy cd --delay-bound B  (conflict-directed delay bounding)
  random  the default exploration (round-robin, then random seeds 1..N-1)
  pct     --schedule-policy pct --pct-depth D

  exposure.py --build build --table              # the README table (all policies)
  exposure.py --build build --check cd           # CI: cd exposes every bug within the budget
"""
import argparse
import concurrent.futures
import json
import os
import subprocess
import sys
import tempfile

BUGS = [
    "ticket_race", "ticket_result", "flag_off_by_one", "double_checked_init", "stack_aba",
    "grid_barrier_reset", "lost_update", "lost_maximum", "check_then_allocate", "test_then_set_lock",
    "seqlock_torn_read", "shared_arrival_counter", "flag_reuse", "ticket_lock_init_order",
    "steal_check_then_take", "arrival_count_race", "spurious_leader", "election_by_load_store",
    "refcount_drop", "publish_count_backwards",
]


def policy_args(policy, args):
    if policy == "cd":
        return ["--schedule-policy", "cd", "--delay-bound", str(args.delay_bound)]
    if policy == "pct":
        return ["--schedule-policy", "pct", "--pct-depth", str(args.pct_depth)]
    return []


def first_exposure(barracuda, program, bug, policy, args):
    """(first exposing schedule number or None, schedules run, seconds)."""
    with tempfile.TemporaryDirectory() as tmp:
        report = os.path.join(tmp, "r.json")
        cmd = [barracuda, "-q", "--schedules", str(args.budget), *policy_args(policy, args),
               "--report-json", report, program, bug]
        run = subprocess.run(cmd, capture_output=True, text=True, timeout=args.timeout)
        if not os.path.exists(report):
            raise RuntimeError(f"{bug} ({policy}): no report (exit {run.returncode}): {run.stderr[-400:]}")
        with open(report) as f:
            r = json.load(f)
    exploration = r["run"].get("exploration") or {"schedules": []}
    exposed = set()
    for race in r["races"]:
        for seen in race.get("schedules", []):
            exposed.add(seen["number"])
    for s in exploration["schedules"]:
        if any(end != {"exit_status": 0} for end in s["ends"]):
            exposed.add(s["number"])
    return (min(exposed) if exposed else None), len(exploration["schedules"])


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--build", default="build")
    ap.add_argument("--barracuda", help="default: BUILD/bin/barracuda")
    ap.add_argument("--program", help="default: BUILD/test_suite/interleavings/interleavings")
    ap.add_argument("--policies", default="cd,random,pct")
    ap.add_argument("--budget", type=int, default=16, help="schedules per bug and policy (default 16)")
    ap.add_argument("--delay-bound", type=int, default=2)
    ap.add_argument("--pct-depth", type=int, default=3)
    ap.add_argument("--bugs", help="comma-separated subset")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--timeout", type=int, default=600)
    ap.add_argument("--table", action="store_true", help="print the Markdown table")
    ap.add_argument("--check", metavar="POLICY", help="fail unless POLICY exposes every bug within the budget")
    args = ap.parse_args()
    barracuda = args.barracuda or os.path.join(args.build, "bin", "barracuda")
    program = args.program or os.path.join(args.build, "test_suite", "interleavings", "interleavings")
    bugs = args.bugs.split(",") if args.bugs else BUGS
    policies = [args.check] if args.check else args.policies.split(",")

    jobs = [(bug, policy) for bug in bugs for policy in policies]
    results = {}
    with concurrent.futures.ThreadPoolExecutor(max_workers=args.jobs) as pool:
        futures = {pool.submit(first_exposure, barracuda, program, bug, policy, args): (bug, policy)
                   for bug, policy in jobs}
        for future in concurrent.futures.as_completed(futures):
            results[futures[future]] = future.result()

    if args.table:
        names = {"cd": f"cd (delay bound {args.delay_bound})", "random": "random",
                 "pct": f"pct (depth {args.pct_depth})"}
        print("| bug | " + " | ".join(names[p] for p in policies) + " |")
        print("|---|" + "---|" * len(policies))
        for bug in bugs:
            cells = []
            for p in policies:
                first, ran = results[(bug, p)]
                cells.append(str(first) if first is not None else f"not in {ran}")
            print(f"| `{bug}` | " + " | ".join(cells) + " |")
        found = {p: sum(results[(b, p)][0] is not None for b in bugs) for p in policies}
        print("| exposed | " + " | ".join(f"{found[p]}/{len(bugs)}" for p in policies) + " |")
    failed = 0
    for bug in bugs:
        for p in policies:
            first, ran = results[(bug, p)]
            if first == 1:
                print(f"{bug} ({p}): exposed under the default schedule: not interleaving-dependent")
                failed += 1
            elif args.check and first is None:
                print(f"{bug} ({p}): not exposed within {ran} schedules (budget {args.budget})")
                failed += 1
    if args.check:
        print(f"{len(bugs) - failed}/{len(bugs)} bugs exposed by {args.check} within {args.budget} schedules")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
