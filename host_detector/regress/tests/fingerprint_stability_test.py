#!/usr/bin/env python3
"""Fingerprint stability (issue 17, "Done when"): the bundled example's race
fingerprints (and those of a few suite programs with several races, --also)
are equal across 5 runs under different random schedules (seeds 1..5, two
emulator workers) and across a second build of the program with an
unrelated edit (lines added above, a different grid size, a function appended:
host_detector/regress/tests/unrelated_edit.py), whose racy lines moved."""
import argparse
import json
import os
import subprocess
import sys
import tempfile


def report(barracuda, program, *extra, workers='1'):
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, 'r.json')
        env = {**os.environ, 'BARRACUDA_EMU_WORKERS': workers}
        p = subprocess.run([barracuda, '-q', '--error-exitcode', '0', '--report-json', path, *extra, program],
                           capture_output=True, text=True, env=env, timeout=120)
        if not os.path.exists(path):
            sys.exit(f'{program} {extra}: no report (exit {p.returncode}): {p.stderr[-600:]}')
        with open(path) as f:
            return json.load(f)


def prints(r):
    return sorted(race['fingerprint'] for race in r['races'])


def lines(r):
    return sorted({race['first']['site']['source']['line'] for race in r['races']})


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--barracuda', required=True)
    ap.add_argument('--original', required=True)
    ap.add_argument('--edited', required=True)
    ap.add_argument('--also', action='append', default=[],
                    help='another racy program whose fingerprints must not depend on the seed')
    args = ap.parse_args()
    failures = []
    for program in [args.original, *args.also]:
        want = prints(report(args.barracuda, program))
        if not want:
            failures.append(f'{program}: shows no race')
        for seed in range(1, 6):
            r = report(args.barracuda, program, '--seed', str(seed), '--schedule-policy', 'random', workers='2')
            got = prints(r)
            print(f'{os.path.basename(program)} seed {seed}: {got} ({sum(x["count"] for x in r["races"])} '
                  'racy accesses)')
            if got != want:
                failures.append(f'{program} seed {seed}: {got} != {want}')
    base = report(args.barracuda, args.original)
    want = prints(base)
    edited = report(args.barracuda, args.edited)
    print(f'original: {want}, lines {lines(base)}, grid {base["races"][0]["kernel"]["grid"]}')
    print(f'edited:   {prints(edited)}, lines {lines(edited)}, grid {edited["races"][0]["kernel"]["grid"]}')
    if prints(edited) != want:
        failures.append(f'edited build: {prints(edited)} != {want}')
    if lines(edited) == lines(base) or edited['races'][0]['kernel']['grid'] == base['races'][0]['kernel']['grid']:
        failures.append('the edit did not move the racy lines and change the grid: the test tests nothing')
    for f in failures:
        print('FAIL:', f)
    return 1 if failures else 0


if __name__ == '__main__':
    sys.exit(main())
