#!/usr/bin/env python3
"""Validate the @barracuda headers of the concurrency bug suite and print its table.

Usage:
  make_table.py                  validate every program, print the Markdown table
  make_table.py --update-readme  validate, then rewrite the table in test_suite/README.md
                                 (between the table:begin / table:end markers)
  make_table.py --check-readme   validate, then fail if the table in README.md is stale
  make_table.py --cuda-include DIR
                                 where CUDA's headers live (default /usr/local/cuda/include);
                                 used to check the header lines of "files" entries
  make_table.py --observed FILE  add an "observed" column (and a per-folder count of fully
                                 matching programs) from FILE, the --json-out of
                                 check_verdicts.py
  make_table.py --check-library DIR
                                 only validate the headers of the real-library corpus
                                 (test_suite/library): the same format plus "args",
                                 "long_args" and "gpu_path_args" (lists of arguments) and
                                 "expect_by_arg"; race-free programs may be named without a
                                 suffix, and race lines may be library calls

Without --observed, --update-readme and --check-readme keep the observed column that
README.md already has (the result of the last suite run), so the header check does not
need the suite to run; a program without an observed result shows "not run".

Exit status: 0 when every header is valid, 1 when any is not (each problem is printed
as file:line: message on stderr) or the README table is stale (--check-readme), 2 on a
usage error or an unreadable --observed file.
"""
import argparse
import json
import pathlib
import re
import sys

HERE = pathlib.Path(__file__).resolve().parent
HEADER_RE = re.compile(r'/\*@barracuda\n(.*?)\n@\*/\n', re.S)
KINDS = {'RAW', 'WAR', 'WAW', 'ATOMIC_PLAIN', 'NOT_MORALLY_STRONG', 'BARRIER_DIVERGENCE', 'WARP_SYNC_MASK',
         'DEPENDENCY_ORDERED', 'SAME_VALUE', 'DSMEM_LIFETIME'}
# Kinds about one synchronisation instruction: `lines` names it twice.
SYNC_KINDS = {'BARRIER_DIVERGENCE', 'WARP_SYNC_MASK'}
WARNING_KINDS = {'DEPENDENCY_ORDERED', 'SAME_VALUE'}
SPACES = {'shared', 'global'}
CLASSES = {'intra-warp', 'divergence', 'intra-block', 'inter-block', 'async-copy', 'proxy'}
MODELS = ('its', 'lockstep')
ARCHES = {75, 80, 90}
# A racing access line must show an access: an array subscript, a dereference, an
# assignment, an atomic, or (for barrier divergence) a barrier.
ACCESS_RE = re.compile(r'\[|\*|=|atomic|memcpy_async|cp_async|\.(load|store|exchange|fetch_\w+)\(')
BARRIER_RE = re.compile(r'__syncthreads|\bbar(rier)?\.sync|\.sync\(\)')
WARP_SYNC_RE = re.compile(r'__\w+_sync\b|__syncwarp|\.sync\(\)|\b(shfl|vote|match|redux)\.|\bbar\.warp\.sync')
SYNC_LINE_RE = {'BARRIER_DIVERGENCE': (BARRIER_RE, 'barrier'),
                'WARP_SYNC_MASK': (WARP_SYNC_RE, 'warp-synchronous primitive')}


class Problems:
    def __init__(self):
        self.items = []

    def add(self, path, line, msg):
        self.items.append(f'{path}:{line}: {msg}')


def find_header_file(include_dirs, rel):
    for d in include_dirs:
        p = pathlib.Path(d) / rel
        if p.is_file():
            return p
    return None


# Keys a library corpus header may add (test_suite/library/README.md): lists of
# command-line arguments, and expectations per argument.
LIBRARY_KEYS = ('args', 'long_args', 'gpu_path_args', 'expect_by_arg')


def check_program(path, rel, problems, include_dirs, library=False):
    text = path.read_text()
    m = HEADER_RE.match(text)
    if not m:
        problems.add(rel, 1, 'file does not start with a /*@barracuda ... @*/ header')
        return None
    header_lines = text[:m.end()].count('\n')
    try:
        hdr = json.loads(m.group(1))
    except json.JSONDecodeError as e:
        problems.add(rel, 2 + e.lineno - 1, f'header is not valid JSON: {e.msg}')
        return None
    src = text.split('\n')
    nlines = len(src) - (1 if text.endswith('\n') else 0)

    def bad(msg, line=2):
        problems.add(rel, line, msg)

    # "nvcc_flags": extra compile and link flags (test_suite/CMakeLists.txt;
    # dynamic parallelism needs -rdc=true -lcudadevrt). "debug_twin": true
    # builds and checks a -G twin even without fences, atomics or volatile.
    extra = LIBRARY_KEYS if library else ('nvcc_flags', 'debug_twin')
    if not isinstance(hdr, dict) or not {'what', 'arch', 'expect'} <= set(hdr) <= {'what', 'arch', 'expect', *extra}:
        bad('header must have exactly the keys "what", "arch", "expect"' +
            (f' (and optionally {", ".join(extra)})' if extra else ''))
        return None
    if 'nvcc_flags' in hdr and not (isinstance(hdr['nvcc_flags'], str) and hdr['nvcc_flags'].startswith('-')):
        bad('"nvcc_flags" must be a string of nvcc flags')
    if 'debug_twin' in hdr and hdr['debug_twin'] is not True:
        bad('"debug_twin" must be true (or absent)')
    for key in [k for k in extra if k not in ('expect_by_arg', 'nvcc_flags', 'debug_twin')]:
        if key in hdr and not (isinstance(hdr[key], list) and hdr[key] and
                               all(isinstance(a, str) and a and not any(c.isspace() for c in a) for a in hdr[key])):
            bad(f'"{key}" must be a non-empty list of arguments without blanks')
    if library and not set(hdr.get('long_args', [])) <= set(hdr.get('args', [])):
        bad('every "long_args" entry must also be in "args"')
    if not isinstance(hdr['what'], str) or not hdr['what'].strip() or '\n' in hdr['what']:
        bad('"what" must be a non-empty one-line string')
    if hdr['arch'] not in ARCHES:
        bad(f'"arch" must be one of {sorted(ARCHES)}')

    def check_expect(exp, label):
        if not isinstance(exp, dict) or set(exp) != set(MODELS):
            bad(f'"{label}" must have exactly the keys "its" and "lockstep"')
            return False
        for model in MODELS:
            e = exp[model]
            if not isinstance(e, dict) or set(e) != {'verdict', 'races'}:
                bad(f'{label}.{model} must have exactly "verdict" and "races"')
                continue
            if e['verdict'] not in ('race', 'no-race'):
                bad(f'{label}.{model}.verdict must be "race" or "no-race"')
            if not isinstance(e['races'], list):
                bad(f'{label}.{model}.races must be a list')
                continue
            races = [r for r in e['races'] if not (isinstance(r, dict) and
                                                    (r.get('kind') in WARNING_KINDS or r.get('schedule_dependent')))]
            if (e['verdict'] == 'race') != bool(races):
                bad(f'{label}.{model}: verdict "race" needs races, "no-race" none but warnings '
                    f'({", ".join(sorted(WARNING_KINDS))})')
            seen = set()
            for r in e['races']:
                if not isinstance(r, dict) or not {'kind', 'space', 'class', 'lines'} <= set(r) or \
                        not set(r) <= {'kind', 'space', 'class', 'lines', 'files', 'schedule_dependent'}:
                    bad(f'{label}.{model}: a race has keys kind, space, class, lines (and optional files, '
                        'schedule_dependent)')
                    continue
                if r['kind'] not in KINDS:
                    bad(f'{label}.{model}: unknown kind {r["kind"]!r}')
                if r['space'] not in SPACES:
                    bad(f'{label}.{model}: unknown space {r["space"]!r}')
                if r['class'] not in CLASSES:
                    bad(f'{label}.{model}: unknown class {r["class"]!r}')
                lines = r['lines']
                if lines == 'cub':
                    continue
                # A DSMEM_LIFETIME race's second side is the owner block's exit: "exit".
                if r['kind'] == 'DSMEM_LIFETIME' and isinstance(lines, list) and len(lines) == 2 and \
                        lines[1] == 'exit':
                    lines = lines[:1] * 2
                if not (isinstance(lines, list) and len(lines) == 2 and
                        all(isinstance(x, int) and not isinstance(x, bool) and x >= 1 for x in lines)):
                    bad(f'{label}.{model}: lines must be two positive line numbers (or "cub"; '
                        'DSMEM_LIFETIME: the access\'s line and "exit")')
                    continue
                key = (r['kind'], r['space'], r['class'], tuple(sorted(lines)),
                       tuple(r.get('files', [])))
                if key in seen:
                    bad(f'{label}.{model}: duplicate race {key}')
                seen.add(key)
                if r['kind'] in SYNC_KINDS and lines[0] != lines[1]:
                    bad(f'{label}.{model}: {r["kind"]} names the instruction\'s line twice')
                if 'files' in r:
                    files = r['files']
                    if not (isinstance(files, list) and len(files) == 2 and all(isinstance(f, str) for f in files)):
                        bad(f'{label}.{model}: files must be two header paths')
                        continue
                    for f, ln in zip(files, lines):
                        hp = find_header_file(include_dirs, f)
                        if hp is None:
                            print(f'note: {rel}: {f} not found under {include_dirs}; line not checked',
                                  file=sys.stderr)
                        elif ln > len(hp.read_text().split('\n')):
                            bad(f'{label}.{model}: line {ln} is past the end of {f}')
                    continue
                for ln in lines:
                    if ln <= header_lines or ln > nlines:
                        bad(f'{label}.{model}: line {ln} is not a source line after the header')
                        continue
                    code = src[ln - 1].split('//')[0]
                    want, what = SYNC_LINE_RE.get(r['kind'], (ACCESS_RE, 'memory access'))
                    # In the library corpus a line is often the call of a library
                    # function whose inlined code made the access.
                    if not library and not want.search(code):
                        bad(f'{label}.{model}: line {ln} does not look like a {what}: {src[ln - 1].strip()!r}', ln)
        return True

    exp = hdr['expect']
    if not check_expect(exp, 'expect'):
        return None
    by_arg = hdr.get('expect_by_arg', {})
    if library and not (isinstance(by_arg, dict) and set(by_arg) <= set(hdr.get('args', []))):
        bad('"expect_by_arg" must map arguments of "args" to expectations')
        by_arg = {}
    for arg, arg_exp in by_arg.items():
        check_expect(arg_exp, f'expect_by_arg.{arg}')
    # Naming convention: *_ok.cu is race-free under both models and expects no
    # warning; *_warn.cu has no data race under either model but expects a
    # warning (same-value, dependency-ordered) under its; *_racy.cu is racy
    # under the default model (its).
    name = path.name
    models = [m for m in MODELS if isinstance(exp.get(m), dict)]
    warned = isinstance(exp.get('its'), dict) and any(isinstance(r, dict) and r.get('kind') in WARNING_KINDS
                                                      for r in exp['its'].get('races', []))
    if name.endswith('_ok.cu') or name.endswith('_warn.cu'):
        if any(exp[m]['verdict'] != 'no-race' for m in models):
            bad(f'*{name[name.rindex("_"):]} programs must be race-free under both warp models')
        if name.endswith('_ok.cu') and warned:
            bad('*_ok.cu programs expect no warning (name it *_warn.cu)')
        if name.endswith('_warn.cu') and not warned:
            bad('*_warn.cu programs expect a warning under the its model')
    elif name.endswith('_racy.cu'):
        if isinstance(exp.get('its'), dict) and exp['its'].get('verdict') != 'race':
            bad('*_racy.cu programs must be racy under the its model')
    elif library:
        # The corpus's multi-algorithm programs (thrust_algos.cu) are race-free.
        if any(exp[m]['verdict'] != 'no-race' for m in models):
            bad('a library program without a _racy.cu suffix must be race-free under both warp models')
    else:
        bad('file name must end in _ok.cu, _warn.cu or _racy.cu')
    return hdr


def verdict_cell(e):
    if e['verdict'] == 'no-race':
        warnings = sorted({r['kind'] for r in e['races'] if r['kind'] in WARNING_KINDS})
        if warnings:
            return f'no-race (warning: {", ".join(warnings)})'.replace('_', '\\_')
        return 'no-race'
    kinds = []
    for r in e['races']:
        k = r['kind'] if r['kind'] != 'BARRIER_DIVERGENCE' else 'BARRIER_DIV'
        if k not in kinds:
            kinds.append(k)
    n = len(e['races'])
    return f'race ({n}: {", ".join(kinds)})'.replace('_', '\\_')


OBSERVED_HEADER = 'observed (barracuda, emulator)'
OBSERVED_ROW_RE = re.compile(r'^\| `([^`]+)` \|.*\| ([^|]*) \|$')
MODEL_MARK_RE = re.compile(r'\b(its|lockstep) ✓')


def observed_cell(hdr, results):
    """The observed column of one program: ✓ when every model matches its expectation,
    else one entry per model: `its ✓`, `its ✗ race (2: RAW)` (what was found), `its ✗ error`
    (barracuda or the program failed), `its not run`."""
    parts, all_match = [], True
    for model in MODELS:
        res = (results or {}).get(model)
        if res is None:
            parts.append(f'{model} not run')
            all_match = False
        elif res.get('status') == 'match':
            parts.append(f'{model} ✓')
        else:
            all_match = False
            if res.get('status') == 'error':
                parts.append(f'{model} ✗ error')
            else:
                kinds = {'races': [{'kind': r['kind']} for r in res.get('races', [])],
                         'verdict': res.get('verdict')}
                parts.append(f'{model} ✗ {verdict_cell(kinds)}')
    return '✓' if all_match else '; '.join(parts)


def cell_matches(cell):
    """Number of warp models an observed cell says match."""
    return len(MODELS) if cell == '✓' else len(MODEL_MARK_RE.findall(cell))


def load_observed(path, headers):
    """--observed FILE -> {program: observed cell}."""
    data = json.loads(pathlib.Path(path).read_text())
    if not isinstance(data, dict) or data.get('format') != 'barracuda-suite-verdicts' or \
            data.get('version') != 1 or not isinstance(data.get('programs'), dict):
        raise ValueError('not a check_verdicts.py --json-out file (format barracuda-suite-verdicts, version 1)')
    return {rel: observed_cell(hdr, data['programs'].get(rel)) for rel, hdr in headers.items()}


def observed_from_readme(text):
    """The observed cells of the README's current table, or None when it has none."""
    if f'| {OBSERVED_HEADER} |' not in text:
        return None
    cells = {}
    for line in text.split('\n'):
        m = OBSERVED_ROW_RE.match(line)
        if m and line.count(' | ') >= 4:
            cells[m.group(1)] = m.group(2)
    return cells


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('--update-readme', action='store_true')
    ap.add_argument('--check-readme', action='store_true',
                    help='fail if the table in README.md is not what this script generates')
    ap.add_argument('--cuda-include', action='append', default=None)
    ap.add_argument('--observed', metavar='FILE',
                    help='observed verdicts (check_verdicts.py --json-out) for an "observed" column')
    ap.add_argument('--check-library', metavar='DIR',
                    help='only validate the headers of the library corpus in DIR')
    args = ap.parse_args()
    include_dirs = args.cuda_include or ['/usr/local/cuda/include']
    if args.check_library:
        root = pathlib.Path(args.check_library)
        problems = Problems()
        paths = sorted(root.rglob('*.cu'))
        for path in paths:
            check_program(path, path.relative_to(root).as_posix(), problems, include_dirs, library=True)
        for p in problems.items:
            print(p, file=sys.stderr)
        if not paths:
            print(f'{root}: no .cu files', file=sys.stderr)
            return 2
        return 1 if problems.items else 0
    readme = HERE.parent / 'README.md'  # test_suite/README.md: the part's README holds the table

    problems = Problems()
    headers, per_topic = {}, {}
    for path in sorted(HERE.rglob('*.cu')):
        rel = path.relative_to(HERE).as_posix()
        hdr = check_program(path, rel, problems, include_dirs)
        topic = rel.split('/')[0] if '/' in rel else '.'
        per_topic.setdefault(topic, [0, 0, 0, 0])[0] += 1
        if hdr is not None:
            headers[rel] = hdr

    observed = None
    if args.observed:
        try:
            observed = load_observed(args.observed, headers)
        except (OSError, ValueError, AttributeError, TypeError) as e:
            print(f'{args.observed}: {e}', file=sys.stderr)
            return 2
    elif args.update_readme or args.check_readme:
        observed = observed_from_readme(readme.read_text()) if readme.is_file() else None

    rows = []
    for rel, hdr in headers.items():
        t = per_topic[rel.split('/')[0] if '/' in rel else '.']
        its, lock = hdr['expect']['its'], hdr['expect']['lockstep']
        t[1] += its['verdict'] == 'race'
        t[2] += its['verdict'] != lock['verdict']
        what = hdr['what'].replace('|', '\\|').replace('_', '\\_')
        row = f'| `{rel}` | {what} | {verdict_cell(its)} | {verdict_cell(lock)} |'
        if observed is not None:
            cell = observed.get(rel, '; '.join(f'{m} not run' for m in MODELS))
            t[3] += cell_matches(cell) == len(MODELS)
            row += f' {cell} |'
        rows.append(row)

    total = sum(v[0] for v in per_topic.values())
    if observed is None:
        table = ['| program | what it tests | its | lockstep |', '|---|---|---|---|'] + rows
        summary = ['| folder | programs | racy under its | verdicts differ between its and lockstep |', '|---|---|---|---|']
        for topic, (n, racy, diff, _) in sorted(per_topic.items()):
            summary.append(f'| `{topic}/` | {n} | {racy} | {diff} |')
        summary.append(f'| **total** | **{total}** | **{sum(v[1] for v in per_topic.values())}** | '
                       f'**{sum(v[2] for v in per_topic.values())}** |')
        out = '\n'.join(summary + [''] + table) + '\n'
    else:
        table = [f'| program | what it tests | its | lockstep | {OBSERVED_HEADER} |',
                 '|---|---|---|---|---|'] + rows
        summary = ['| folder | programs | racy under its | verdicts differ between its and lockstep | '
                   'observed: programs matching under both models |', '|---|---|---|---|---|']
        for topic, (n, racy, diff, ok) in sorted(per_topic.items()):
            summary.append(f'| `{topic}/` | {n} | {racy} | {diff} | {ok} |')
        summary.append(f'| **total** | **{total}** | **{sum(v[1] for v in per_topic.values())}** | '
                       f'**{sum(v[2] for v in per_topic.values())}** | '
                       f'**{sum(v[3] for v in per_topic.values())}** |')
        checks = sum(cell_matches(observed.get(rel, '')) for rel in headers)
        score = (f'Observed (`check_verdicts.py --json-out`, then `make_table.py --update-readme '
                 f'--observed`): {checks} of {len(MODELS) * len(headers)} program/model checks match '
                 f'the header exactly (same set of races). ✓: both warp models match; otherwise, '
                 f'per model, ✓ or ✗ with what barracuda found (`error`: barracuda or the program '
                 f'failed under barracuda).')
        out = '\n'.join(summary + ['', score, ''] + table) + '\n'

    for p in problems.items:
        print(p, file=sys.stderr)
    if args.update_readme or args.check_readme:
        text = readme.read_text()
        begin, end = '<!-- table:begin -->\n', '<!-- table:end -->'
        i, j = text.find(begin), text.find(end)
        if i < 0 or j < i:
            print(f'{readme}: missing the table:begin / table:end markers', file=sys.stderr)
            return 1
        current = text[:i + len(begin)] + out + text[j:]
        if args.check_readme:
            if current != text:
                print(f'{readme}: the table is stale; run make_table.py --update-readme', file=sys.stderr)
                return 1
        else:
            readme.write_text(current)
    else:
        sys.stdout.write(out)
    if problems.items:
        print(f'{len(problems.items)} problem(s) in {total} programs', file=sys.stderr)
        return 1
    return 0


if __name__ == '__main__':
    sys.exit(main())
