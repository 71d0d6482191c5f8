#!/usr/bin/env python3
"""Run suite programs through barracuda and compare the races found with their headers.

Usage:
  check_verdicts.py [--build DIR] [--jobs N] [--json-out FILE]     every program
  check_verdicts.py --program PATH [--program PATH ...]             some programs

PATH is a program's executable (BUILD/test_suite/programs/<topic>/<stem>), its source
(<topic>/<stem>.cu) or its name (<topic>/<stem>). --root DIR takes the programs from
another folder of <topic>/<stem>.cu files with the same headers (test_suite/library: its
executables are BUILD/test_suite/library/<topic>/<stem>); --arg ARG passes ARG to every
program (a library program's algorithm). For every warp model its header states
(`expect.its`, `expect.lockstep`) the program runs under

  barracuda --warp-model=M --report-json R --error-exitcode 0 --quiet EXE

(with BARRACUDA_EMU_WORKERS=1 unless the environment sets it: one emulator worker, a
deterministic schedule), and the JSON report is reduced to the set of distinct races
{kind, space, class, lines} as README.md defines them:

- RAW and WAR name one read/write pair (which is reported depends on the schedule), so
  they compare as one kind; BARRIER_DIVERGENCE and WARP_SYNC_MASK compare only kind and line.
- lines: for each access, the innermost source location in the program's own .cu file,
  following the inlined_at chain outwards (atomicAdd, cuda::atomic_ref members are inlined
  from CUDA headers); the report carries one inlined_at level, deeper chains are followed
  in the program's PTX (`barracuda-ptx extract`). An expected race with `files` is instead
  compared with the innermost locations, as paths relative to the CUDA include directory.
  The exit side of a DSMEM_LIFETIME race has no site: its line is "exit".

A program/model matches when barracuda and the program exit 0, the analysis is complete
and the two sets are equal (which implies the same race/no-race verdict). Every
mismatch is printed as a diff: `- expected, not found` / `+ found, not expected`.

Exit status: 0 every program/model matches; 1 some mismatch or failed run; 2 usage error
(unknown program, executable or barracuda missing, invalid header).
"""
import argparse
import concurrent.futures
import json
import os
import pathlib
import re
import signal
import subprocess
import sys
import tempfile
import threading
import time

HERE = pathlib.Path(__file__).resolve().parent
REPO = HERE.parents[1]
ROOT = HERE   # the folder of <topic>/<stem>.cu programs (--root)
PROGRAMS_DIR = None  # where the executables are (--programs-dir), else BUILD/test_suite/<ROOT name>
HEADER_RE = re.compile(r'/\*@barracuda\n(.*?)\n@\*/\n', re.S)
MODELS = ('its', 'lockstep')
WARNING_KINDS = {'DEPENDENCY_ORDERED', 'SAME_VALUE'}
# Report kinds -> header kinds. RAW and WAR are one class for comparison.
KIND_FROM_REPORT = {'RAW': 'RAW', 'WAR': 'WAR', 'WAW': 'WAW',
                    'atomic-vs-plain': 'ATOMIC_PLAIN', 'not-morally-strong': 'NOT_MORALLY_STRONG',
                    'dependency-ordered': 'DEPENDENCY_ORDERED', 'barrier-divergence': 'BARRIER_DIVERGENCE',
                    'same-value': 'SAME_VALUE', 'warp-sync-mask': 'WARP_SYNC_MASK',
                    'dsmem-lifetime': 'DSMEM_LIFETIME'}
# Kinds about one synchronisation instruction (one line, no space or class).
SYNC_KINDS = ('BARRIER_DIVERGENCE', 'WARP_SYNC_MASK')
LOC_RE = re.compile(r'^\s*\.loc\s+(\d+)\s+(\d+)\s+(\d+)(?:\s*,.*?inlined_at\s+(\d+)\s+(\d+)\s+(\d+))?')
FILE_RE = re.compile(r'^\s*\.file\s+(\d+)\s+"([^"]*)"')
INCLUDE_RE = re.compile(r'/include/(.*)$')


class UsageError(Exception):
    pass


# ---------------------------------------------------------------------------------
# Programs and headers

class Program:
    def __init__(self, rel, exe):
        self.rel = rel                        # '<topic>/<stem>.cu'
        self.source = ROOT / rel
        self.exe = exe
        text = self.source.read_text()
        m = HEADER_RE.match(text)
        if not m:
            raise UsageError(f'{self.source}:1: no /*@barracuda ... @*/ header')
        try:
            self.header = json.loads(m.group(1))
            self.expect = {model: self.header['expect'][model] for model in MODELS
                           if model in self.header['expect']}
        except (json.JSONDecodeError, KeyError, TypeError) as e:
            raise UsageError(f'{self.source}:2: invalid header ({e}); run make_table.py')
        if not self.expect:
            raise UsageError(f'{self.source}:2: the header states no warp model')

    def expect_for(self, program_args):
        """The expectation for a run with these program arguments: a library program's
        header may override it per first argument ("expect_by_arg")."""
        by_arg = self.header.get('expect_by_arg', {})
        if program_args and program_args[0] in by_arg:
            return by_arg[program_args[0]]
        return self.expect

    @property
    def name(self):
        return self.rel[:-3]

    def is_own_file(self, path):
        """Whether a .file path of the PTX / report is this program's .cu."""
        if not path:
            return False
        p = os.path.normpath(path)
        return p == str(self.source) or p.endswith(f'/{ROOT.name}/' + self.rel)


def resolve_program(arg, build):
    """PATH -> Program: an executable under a build tree, a .cu source or <topic>/<stem>."""
    p = pathlib.Path(arg)
    parts = p.resolve().parts if p.exists() else p.parts
    if len(parts) < 2:
        raise UsageError(f'{arg}: expected <topic>/<stem>, a suite source or its executable')
    topic, stem = parts[-2], parts[-1]
    if stem.endswith('.cu'):
        stem = stem[:-3]
    rel = f'{topic}/{stem}.cu'
    if not (ROOT / rel).is_file():
        raise UsageError(f'{arg}: no suite program {ROOT / rel}')
    if p.exists() and not str(p).endswith('.cu'):
        exe = p.resolve()
    else:
        exe = (PROGRAMS_DIR or build / 'test_suite' / ROOT.name) / topic / stem
    if not exe.is_file():
        raise UsageError(f'{arg}: executable {exe} not found (build target cuda_programs)')
    return Program(rel, exe)


def all_programs(build):
    return [resolve_program(str(p.relative_to(ROOT)), build) for p in sorted(ROOT.glob('*/*.cu'))]


# ---------------------------------------------------------------------------------
# Reducing a report to the header's race keys

def expected_key(race):
    """A header race -> comparison key."""
    kind = race['kind']
    if kind in SYNC_KINDS:
        return (kind, '-', '-', tuple(sorted(('', ln) for ln in race['lines'])))
    if kind in ('RAW', 'WAR'):
        kind = 'RAW|WAR'
    files = race.get('files') or ['', '']
    if race['lines'] == 'cub':
        locs = (('cub', 0), ('cub', 0))
    else:
        locs = tuple(sorted(zip(files, race['lines']), key=loc_order))
    return (kind, race['space'], race['class'], locs)


def memory_key(kind, space, line):
    """A memory error (header or report) -> comparison key, printed as is."""
    return f'MEMORY-ERROR {kind} {space} line {line}'


def stream_key(lines, node_lines=None):
    """A stream-order race (header or report) -> comparison key, printed as is;
    with node_lines, also the lines where the graph nodes were added."""
    a, b = sorted(lines, key=str)
    key = f'STREAM-ORDER lines {a} <-> {b}'
    if node_lines is not None:
        c, d = sorted(node_lines, key=str)
        key += f' (nodes added at {c} <-> {d})'
    return key


def location_line(where):
    """The line of "function at file:line", or None."""
    where = where or ''
    tail = where.rsplit(':', 1)[-1] if ':' in where else ''
    return int(tail) if tail.isdigit() else None


def stream_side_line(side):
    """The line of one side: the kernel access's source line, or the host line of the call."""
    if side.get('operation') == 'kernel':
        return (((side.get('site') or {}).get('source')) or {}).get('line')
    return location_line(side.get('host_location'))


def format_key(key, kind=None):
    k, space, cls, locs = key
    kind = kind or k
    where = ' <-> '.join(f'{f}:{ln}' if f else str(ln) for f, ln in locs)
    if k in SYNC_KINDS:
        f, ln = locs[0]
        return f'{kind} line {f + ":" if f else ""}{ln}'
    return f'{kind:<12} {space:<6} {cls:<11} lines {where}'


class PtxLines:
    """The PTX of a program (extracted once), to follow .loc inlined_at chains."""

    def __init__(self, prog, ptx_tool, workdir):
        self.prog, self.ptx_tool, self.workdir = prog, ptx_tool, workdir
        self.modules = None
        self.lock = threading.Lock()

    def _load(self):
        out = pathlib.Path(tempfile.mkdtemp(prefix='ptx-', dir=self.workdir))
        r = subprocess.run([str(self.ptx_tool), 'extract', '-o', str(out), str(self.prog.exe)],
                           capture_output=True, text=True)
        self.modules = {}
        if r.returncode != 0:
            return
        for f in sorted(out.glob('*.ptx')):
            m = re.search(r'\.sm_(\d+)\.ptx$', f.name)
            files, locs = {}, []           # locs: (ptx_line, file, line, col, inlined_at)
            for n, text in enumerate(f.read_text().split('\n'), 1):
                fm = FILE_RE.match(text)
                if fm:
                    files[int(fm.group(1))] = fm.group(2)
                    continue
                lm = LOC_RE.match(text)
                if lm:
                    g = [int(x) if x else None for x in lm.groups()]
                    locs.append((n, g[0], g[1], g[2], tuple(g[3:6]) if g[3] else None))
            self.modules.setdefault(m.group(1) if m else '', (files, locs))

    def program_line(self, module_name, ptx_line):
        """Innermost location in the program's .cu of the instruction at ptx_line, or None."""
        with self.lock:
            if self.modules is None:
                self._load()
        m = re.search(r'sm_(\d+)', module_name or '')
        mod = self.modules.get(m.group(1) if m else '') or next(iter(self.modules.values()), None)
        if mod is None or ptx_line is None:
            return None
        files, locs = mod
        i = max((k for k, loc in enumerate(locs) if loc[0] <= ptx_line), default=None)
        while i is not None:
            _, fidx, line, col, inl = locs[i]
            if self.prog.is_own_file(files.get(fidx)) and line > 0:
                return line
            if inl is None:
                return None
            # The location this one was inlined at is described by an earlier .loc of
            # the same (file, line, column), which carries the next link of the chain.
            i = max((k for k in range(i) if locs[k][1:4] == inl), default=None)
            if i is None and self.prog.is_own_file(files.get(inl[0])):
                return inl[1]
        return None


def include_relative(path):
    m = INCLUDE_RE.search(os.path.normpath(path or ''))
    return m.group(1) if m else os.path.normpath(path or '?')


def access_locations(prog, access, ptx):
    """(program-file location, innermost header location) of one access; either may be None."""
    site = access.get('site') or {}
    if not site and access.get('operation') == 'exit':
        return ('', 'exit'), None  # a block's exit (dsmem-lifetime): not a site, no line
    src, inl = site.get('source'), site.get('inlined_at')
    own = None
    if src and prog.is_own_file(src['file']):
        own = ('', src['line'])
    elif inl and prog.is_own_file(inl['file']):
        own = ('', inl['line'])
    elif src:
        ln = ptx.program_line(site.get('module'), site.get('ptx_line'))
        if ln is not None:
            own = ('', ln)
    inner = (include_relative(src['file']), src['line']) if src else None
    if own is None and inner is None:
        own = ('', f'?(PTX {site.get("ptx_line")} {site.get("opcode")})')
    return own, inner


def loc_order(loc):
    """Sort key of a location (file, line): as tuples sort, with unresolved ones ('?(PTX ...)') last."""
    return (isinstance(loc[1], str), loc[0], loc[1] if isinstance(loc[1], int) else 0, str(loc))


def wildcard_key(key, expected, found):
    """For a -G build (--debug-build): an access inside a called library function
    (atomicAdd, __threadfence, libcu++ atomics are calls there, with no .loc in the
    program) has no program line. Such a side matches any line of an expected race of
    the same kind, space and class whose other side matches, one not matched yet first;
    None if none does."""
    matches = []
    ckind, space, cls, (a, b) = key
    def resolved(loc):
        return loc[0] == '' and isinstance(loc[1], int)
    for e in expected:
        if e[:3] != (ckind, space, cls):
            continue
        ea, eb = e[3]
        for x, y in ((a, b), (b, a)):
            if (resolved(x) and x not in (ea, eb)):
                continue
            other = eb if resolved(x) and x == ea else ea if resolved(x) else None
            if resolved(y) and other is not None and y != other:
                continue
            if resolved(y) and other is None and y not in (ea, eb):
                continue
            matches.append(e)
            break
    return next((e for e in matches if e not in found), matches[0] if matches else None)


def observed_keys(prog, report, ptx, expected, debug_build=False):
    """The report's races as a dict key -> detector kind, each race keyed in the form
    (program lines or header files) that the expectation uses where it matches one."""
    found = {}
    for race in report['races']:
        # Report version 2 groups RAW/WAR and every class of one statement pair into
        # one entry; its variants list what the occurrences showed.
        variants = race.get('variants') or [{'kind': race['kind'], 'class': race['class']}]
        for variant in variants:
            observe_variant(prog, race, variant['kind'], variant['class'], ptx, expected, debug_build, found)
    return found


def observe_variant(prog, race, report_kind, cls, ptx, expected, debug_build, found):
    kind = KIND_FROM_REPORT.get(report_kind, report_kind)
    if kind in SYNC_KINDS:
        own, inner = access_locations(prog, race['first'], ptx)
        loc = own or inner
        key = (kind, '-', '-', (loc, loc))
        found[key] = kind
        return
    a = access_locations(prog, race['first'], ptx)
    b = access_locations(prog, race['second'], ptx)
    ckind = 'RAW|WAR' if kind in ('RAW', 'WAR') else kind
    candidates = []
    if a[0] and b[0]:
        candidates.append((ckind, race['space'], cls, tuple(sorted((a[0], b[0]), key=loc_order))))
    if a[1] and b[1]:
        candidates.append((ckind, race['space'], cls, tuple(sorted((a[1], b[1]), key=loc_order))))
    if not candidates:
        candidates.append((ckind, race['space'], cls, tuple(sorted((a[0] or a[1], b[0] or b[1]), key=str))))
    key = next((c for c in candidates if c in expected), None)
    if key is None and debug_build:
        key = wildcard_key(candidates[0], expected, found)
    found.setdefault(key or candidates[0], kind)


# ---------------------------------------------------------------------------------
# Running

def run_model(prog, model, args, workdir, ptx):
    res = {'status': 'error', 'verdict': None, 'races': [], 'missing': [], 'unexpected': [],
           'error': None, 'seconds': None}
    report_path = pathlib.Path(workdir) / f'{prog.name.replace("/", "__")}.{model}.json'
    cmd = [str(args.barracuda), *args.barracuda_arg, f'--warp-model={model}', '--report-json', str(report_path),
           '--error-exitcode', '0', '--quiet', str(prog.exe), *args.arg]
    t0 = time.monotonic()
    # A session of its own, so that a timeout ends barracuda, its daemon and the app.
    proc = subprocess.Popen(cmd, cwd=prog.exe.parent, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, errors='replace', env=args.env, start_new_session=True)
    try:
        stdout, stderr = proc.communicate(timeout=args.timeout)
    except subprocess.TimeoutExpired:
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        proc.communicate()
        res['seconds'] = round(time.monotonic() - t0, 2)
        res['error'] = f'timed out after {args.timeout} s'
        report_path.unlink(missing_ok=True)
        return res
    r = subprocess.CompletedProcess(cmd, proc.returncode, stdout, stderr)
    res['seconds'] = round(time.monotonic() - t0, 2)
    problems = []
    # A program the configuration checks only in part (--expect-unchecked): the
    # run must say so (exit 116 unless a race was found, an "analysed in part"
    # reason); races through the unchecked instructions may be missing.
    unchecked = prog.name in args.expect_unchecked
    if r.returncode != 0 and not (unchecked and r.returncode == 116):
        tail = (r.stderr.strip() or r.stdout.strip()).split('\n')[-1][:400]
        problems.append(f'exit status {r.returncode}' + (f': {tail}' if tail else ''))
    # A race-free program must behave under barracuda as it does alone: the tool
    # must not change what a correct program computes (or let its system calls fail).
    if prog.exe.name.endswith('_ok') and ('PASS' not in r.stdout or 'FAIL' in r.stdout):
        problems.append('the race-free program did not print PASS under barracuda')
    report = None
    try:
        report = json.loads(report_path.read_text())
    except (OSError, json.JSONDecodeError) as e:
        problems.append(f'no readable JSON report ({e})')
    if report is not None:
        if args.keep_reports:
            dest = args.keep_reports / report_path.name
            dest.write_text(report_path.read_text())
        # A launch stopped by a memory error is incomplete by nature: the error
        # itself is compared with the header's memory_errors below.
        reasons = [r for r in report['run'].get('incomplete_reasons', []) if 'stopped at a memory error' not in r]
        if unchecked:
            if not any('analysed in part' in r for r in reasons):
                problems.append('expected an "analysed in part" incomplete reason (--expect-unchecked)')
            reasons = [r for r in reasons if 'analysed in part' not in r]
        if reasons:
            problems.append('analysis incomplete: ' + '; '.join(reasons))
        exp = prog.expect_for(args.arg)[model]
        expected = {expected_key(r): r['kind'] for r in exp['races']}
        # Races that some schedules show and others do not (which of several pairs
        # of one location FastTrack names depends on the interleaving): neither
        # required nor unexpected.
        maybe = {expected_key(r) for r in exp['races'] if r.get('schedule_dependent')}
        found = observed_keys(prog, report, ptx, expected, args.debug_build)
        # Warning kinds (DEPENDENCY_ORDERED) must match the header like races but
        # do not make the verdict "race".
        res['verdict'] = 'race' if any(k not in WARNING_KINDS for k in found.values()) else 'no-race'
        res['races'] = sorted(({'kind': found[k], 'key': format_key(k, found[k])} for k in found),
                              key=lambda x: x['key'])
        res['missing'] = sorted(format_key(k, expected[k]) for k in expected if k not in found and k not in maybe)
        res['unexpected'] = sorted(format_key(k, found[k]) for k in found if k not in expected)
        # Memory errors (the emulator's memcheck): header "memory_errors", each
        # {kind, space, line}, against the report's memory_errors[].
        expected_mem = {memory_key(e['kind'], e['space'], e['line']) for e in exp.get('memory_errors', [])}
        found_mem = {memory_key(e['kind'], e['space'],
                                (((e.get('access') or {}).get('site') or {}).get('source') or {}).get('line'))
                     for e in report.get('memory_errors', [])}
        res['memory_errors'] = sorted(found_mem)
        res['missing'] += sorted(expected_mem - found_mem)
        res['unexpected'] += sorted(found_mem - expected_mem)
        # Stream-order races: header "stream_order_races", each {lines: [a, b]}
        # (a kernel side's access line or an API call's host line), unordered;
        # with "node_lines" (graph programs) also where each side's node was added.
        expected_races = exp.get('stream_order_races', [])
        with_nodes = any('node_lines' in e for e in expected_races)
        expected_stream = {stream_key(e['lines'], e.get('node_lines') if with_nodes else None)
                           for e in expected_races}
        found_stream = {stream_key([stream_side_line(e['first']), stream_side_line(e['second'])],
                                   [location_line(e['first'].get('node_location')),
                                    location_line(e['second'].get('node_location'))] if with_nodes else None)
                        for e in report.get('stream_order_races', [])}
        res['missing'] += sorted(expected_stream - found_stream)
        res['unexpected'] += sorted(found_stream - expected_stream)
        if found_stream and res['verdict'] == 'no-race':
            res['verdict'] = 'race' 
        if unchecked:
            if r.returncode != (0 if res['verdict'] == 'race' else 116):
                problems.append(f'exit status {r.returncode}, expected 116 (no race) or 0 (races) for a run '
                                'analysed in part')
            res['missing'] = []  # what the unchecked instructions would have shown
        if not problems:
            res['status'] = 'match' if not res['missing'] and not res['unexpected'] else 'mismatch'
    report_path.unlink(missing_ok=True)
    if problems:
        res['error'] = '; '.join(problems)
    return res


def describe(prog, model, res):
    exp = prog.expect[model]
    head = f'{prog.name} [{model}]'
    if res['status'] == 'match':
        return f'ok    {head}: {exp["verdict"]} ({len(exp["races"])} races) {res["seconds"]}s'
    lines = [f'{"FAIL " if res["status"] == "mismatch" else "ERROR"} {head}: expected {exp["verdict"]}'
             f' ({len(exp["races"])}), observed {res["verdict"] or "-"}'
             f' ({len(res["races"])}) {res["seconds"]}s']
    if res['error']:
        lines.append(f'        error: {res["error"]}')
    lines += [f'      - {k}' for k in res['missing']]
    lines += [f'      + {k}' for k in res['unexpected']]
    return '\n'.join(lines)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0],
                                 epilog='Exit status: 0 all match, 1 mismatch or failed run, 2 usage error.')
    ap.add_argument('--build', type=pathlib.Path, default=REPO / 'build',
                    help='build tree with bin/barracuda and test_suite/programs (default: %(default)s)')
    ap.add_argument('--barracuda', type=pathlib.Path, help='barracuda binary (default: BUILD/bin/barracuda)')
    ap.add_argument('--barracuda-arg', action='append', default=[], metavar='ARG',
                    help='extra barracuda option, e.g. --barracuda-arg=--backend=gpu (repeatable)')
    ap.add_argument('--skip', action='append', default=[], metavar='PROG[:REASON]',
                    help='leave out a program (a known gap of the configuration under test; printed)')
    ap.add_argument('--expect-unchecked', action='append', default=[], metavar='PROG[:REASON]',
                    help='the configuration checks this program only in part (the GPU backend does not log '
                         'some of its instructions): the run must end incomplete with exit status 116 (0 with '
                         'races found), expected races may be missing, none may be unexpected')
    ap.add_argument('--program', action='append', default=[],
                    help='check only this program (executable, .cu or <topic>/<stem>); may be repeated')
    ap.add_argument('--root', type=pathlib.Path, default=HERE,
                    help='folder of <topic>/<stem>.cu programs (default: %(default)s)')
    ap.add_argument('--programs-dir', type=pathlib.Path, default=None,
                    help='executables as <dir>/<topic>/<stem> (default: BUILD/test_suite/<root name>), '
                         'e.g. the -cudart static builds in BUILD/test_suite/programs-static')
    ap.add_argument('--arg', action='append', default=[], metavar='ARG',
                    help='argument passed to every program, e.g. --arg sort (repeatable)')
    ap.add_argument('--models', default=None,
                    help='comma-separated warp models to check (default: those the header states)')
    ap.add_argument('--debug-build', action='store_true',
                    help='the programs are -G builds: an access with no line in the program (inside a called '
                         'atomic, fence or libcu++ function) matches either line of an expected race of the '
                         'same kind, space and class')
    ap.add_argument('--jobs', '-j', type=int, default=1, help='barracuda runs in parallel')
    ap.add_argument('--timeout', type=float, default=300, help='seconds per barracuda run (default 300)')
    ap.add_argument('--json-out', type=pathlib.Path, help='write observed verdicts per program and model')
    ap.add_argument('--keep-reports', type=pathlib.Path, help='copy every JSON report into this directory')
    ap.add_argument('--quiet', '-q', action='store_true', help='print only mismatches and the score')
    args = ap.parse_args()

    global ROOT, PROGRAMS_DIR
    ROOT = args.root.resolve()
    PROGRAMS_DIR = args.programs_dir.resolve() if args.programs_dir else None
    try:
        if args.jobs < 1:
            raise UsageError('--jobs must be at least 1')
        build = args.build.resolve()
        args.barracuda = (args.barracuda or build / 'bin' / 'barracuda').resolve()
        if not os.access(args.barracuda, os.X_OK):
            raise UsageError(f'{args.barracuda}: barracuda not found (use --build or --barracuda)')
        ptx_tool = args.barracuda.parent / 'barracuda-ptx'
        if not os.access(ptx_tool, os.X_OK):
            raise UsageError(f'{ptx_tool}: barracuda-ptx not found next to barracuda')
        models = None
        if args.models:
            models = [m.strip() for m in args.models.split(',') if m.strip()]
            if not models or any(m not in MODELS for m in models):
                raise UsageError(f'--models: expected a list of {", ".join(MODELS)}')
        progs = [resolve_program(p, build) for p in args.program] if args.program else all_programs(build)
        def named(entries, tag):  # PROG[:REASON] options: the programs, each printed with its reason
            out = []
            for entry in entries:
                name, _, reason = entry.partition(':')
                prog = resolve_program(name, build)
                print(f'{tag}  {prog.name}: {reason.strip() or "no reason given"}')
                out.append(prog)
            return out
        skipped = named(args.skip, 'SKIP')
        progs = [p for p in progs if p.name not in {s.name for s in skipped}]
        args.expect_unchecked = {prog.name for prog in named(args.expect_unchecked, 'PART')}
        if args.keep_reports:
            args.keep_reports.mkdir(parents=True, exist_ok=True)
    except (UsageError, OSError) as e:
        print(f'check_verdicts.py: error: {e}', file=sys.stderr)
        return 2

    args.env = dict(os.environ)
    args.env.setdefault('BARRACUDA_EMU_WORKERS', '1')
    t_start = time.monotonic()
    results = {}
    with tempfile.TemporaryDirectory(prefix='barracuda-verdicts-') as workdir:
        tasks = []
        for prog in progs:
            ptx = PtxLines(prog, ptx_tool, workdir)
            for model in MODELS:
                if model in prog.expect and (models is None or model in models):
                    tasks.append((prog, model, ptx))
        with concurrent.futures.ThreadPoolExecutor(max_workers=args.jobs) as pool:
            futures = {pool.submit(run_model, prog, model, args, workdir, ptx): (prog, model)
                       for prog, model, ptx in tasks}
            for fut in concurrent.futures.as_completed(futures):
                prog, model = futures[fut]
                res = fut.result()
                results[(prog.rel, model)] = res
                if not (args.quiet and res['status'] == 'match'):
                    print(describe(prog, model, res), flush=True)
    elapsed = time.monotonic() - t_start

    n = len(results)
    counts = {s: sum(1 for r in results.values() if r['status'] == s) for s in ('match', 'mismatch', 'error')}
    bad_programs = sorted({rel for (rel, _), r in results.items() if r['status'] != 'match'})
    print(f'{counts["match"]}/{n} program/model checks match ({counts["mismatch"]} mismatch, '
          f'{counts["error"]} error) over {len(progs)} programs, '
          f'{len(progs) - len(bad_programs)} programs fully matching; {elapsed:.1f} s with --jobs {args.jobs}')
    if args.json_out:
        out = {'format': 'barracuda-suite-verdicts', 'version': 1,
               'barracuda': str(args.barracuda), 'seconds': round(elapsed, 1), 'jobs': args.jobs,
               'emu_workers': args.env['BARRACUDA_EMU_WORKERS'],
               'programs': {}}
        for (rel, model), res in sorted(results.items()):
            out['programs'].setdefault(rel, {})[model] = res
        args.json_out.write_text(json.dumps(out, indent=1, sort_keys=True) + '\n')
    return 0 if counts['match'] == n else 1


if __name__ == '__main__':
    sys.exit(main())
