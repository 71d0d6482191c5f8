#!/usr/bin/env python3
"""barracuda-regress: nightly race regression over a manifest of CUDA programs.

Runs every program of a TOML manifest under `barracuda` (each with its own
analysis daemon, several at once with -j), compares the races each one shows,
by fingerprint, with a baseline, and writes JUnit XML, a Markdown and an HTML
summary and an exit status for CI:

  new race (not in the baseline, seen under every schedule)   failure
  fixed race (in the baseline, not seen)                      reported, passes
  still present                                               passes
  flaky (seen under only some of --schedules N, or marked
         flaky in the baseline)                               reported, passes
  crash, timeout, incomplete analysis, failing program        error

Exit status: 0 every program passed; 1 a failure or an error; 2 bad usage or a
bad manifest or baseline. Manifest format, baseline format and examples (CI
matrix, Slurm array jobs): host_detector/regress/README.md.
"""

import argparse
import concurrent.futures
import datetime
import fnmatch
import html
import json
import os
import pathlib
import re
import shutil
import signal
import string
import subprocess
import sys
import threading
import time
import tomllib
import xml.etree.ElementTree as ET

BASELINE_FORMAT = 'barracuda-regress-baseline'
BASELINE_VERSION = 1
EXPECT = ('any', 'races', 'clean')
# Report kinds that are warnings, not races (host_detector/reports/REPORTS.md):
# fingerprinted and compared like races, but not what `expect` counts.
WARNING_KINDS = {'dependency-ordered', 'same-value'}
PROGRAM_KEYS = {'name', 'command', 'args', 'cwd', 'env', 'timeout', 'expect', 'exit_status', 'schedules',
                'barracuda_args'}
# barracuda's own exit statuses (host_detector/cli/README.md): a program's
# status in this range is read as the tool's.
TOOL_STATUSES = {
    116: 'analysis incomplete: the memory limit cut it short',
    117: 'the program ends differently under some schedules',
    118: 'analysis incomplete: a kernel did not run or faulted',
    119: 'backend not available',
    120: 'barracuda usage error',
    121: 'not a dynamically linked CUDA program',
    122: 'static CUDA runtime: rebuild with -cudart shared',
    123: 'no PTX embedded',
    124: 'a report could not be written',
    125: 'barracuda internal error',
    126: 'the program is not executable',
    127: 'the program was not found',
}


class UsageError(Exception):
    pass


# ---------------------------------------------------------------------------------
# Manifest

class Program:
    def __init__(self, index, name, command, args, cwd, env, timeout, expect, exit_status, schedules,
                 barracuda_args):
        self.index, self.name, self.command, self.args = index, name, command, args
        self.cwd, self.env, self.timeout, self.expect = cwd, env, timeout, expect
        self.exit_status, self.schedules, self.barracuda_args = exit_status, schedules, barracuda_args

    @property
    def slug(self):
        return re.sub(r'[^A-Za-z0-9._-]+', '__', self.name)


def load_manifest(path, defines):
    path = pathlib.Path(path)
    try:
        with open(path, 'rb') as f:
            doc = tomllib.load(f)
    except OSError as e:
        raise UsageError(f'{path}: cannot read the manifest: {e.strerror}')
    except tomllib.TOMLDecodeError as e:
        raise UsageError(f'{path}: not valid TOML: {e}')
    unknown = set(doc) - {'defaults', 'program'}
    if unknown:
        raise UsageError(f'{path}: unknown table(s) {", ".join(sorted(unknown))} (expected [defaults], [[program]])')
    defaults = doc.get('defaults', {})
    bad = set(defaults) - (PROGRAM_KEYS - {'name', 'command', 'args'})
    if bad:
        raise UsageError(f'{path}: [defaults]: unknown key(s) {", ".join(sorted(bad))}')
    entries = doc.get('program', [])
    if not isinstance(entries, list) or not entries:
        raise UsageError(f'{path}: no [[program]] entries')
    variables = {'manifest_dir': str(path.resolve().parent), **defines}

    def expand(value, where):
        try:
            return string.Template(value).substitute(variables)
        except KeyError as e:
            raise UsageError(f'{path}: {where}: ${{{e.args[0]}}} is not defined (pass --define {e.args[0]}=VALUE)')
        except ValueError as e:
            raise UsageError(f'{path}: {where}: {e}')

    def strings(value, where):
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            raise UsageError(f'{path}: {where} must be a list of strings')
        return [expand(v, where) for v in value]

    programs, names = [], set()
    base = path.resolve().parent
    for i, e in enumerate(entries):
        where = f'program #{i + 1}' + (f' ({e["name"]})' if isinstance(e.get('name'), str) else '')
        bad = set(e) - PROGRAM_KEYS
        if bad:
            raise UsageError(f'{path}: {where}: unknown key(s) {", ".join(sorted(bad))}')
        if not isinstance(e.get('command'), str) or not e['command']:
            raise UsageError(f'{path}: {where}: `command` (a string) is required')
        merged = {**defaults, **e}
        command = expand(e['command'], f'{where}: command')
        if '/' in command:
            command = str((base / command).resolve()) if not os.path.isabs(command) else command
        name = e.get('name') or os.path.basename(command)
        if not isinstance(name, str) or name in names:
            raise UsageError(f'{path}: {where}: program names must be unique strings ({name!r} repeats)')
        names.add(name)
        cwd = merged.get('cwd')
        cwd = str(base / expand(cwd, f'{where}: cwd')) if cwd else str(base)
        for table in (defaults.get('env', {}), e.get('env', {})):
            if not isinstance(table, dict) or not all(isinstance(v, (str, int)) for v in table.values()):
                raise UsageError(f'{path}: {where}: env must be a table of strings')
        env = {**defaults.get('env', {}), **e.get('env', {})}
        env = {k: expand(str(v), f'{where}: env.{k}') for k, v in env.items()}
        timeout = merged.get('timeout', 600)
        if not isinstance(timeout, (int, float)) or timeout <= 0:
            raise UsageError(f'{path}: {where}: timeout must be a positive number of seconds')
        expect = merged.get('expect', 'any')
        if expect not in EXPECT:
            raise UsageError(f'{path}: {where}: expect must be one of {", ".join(EXPECT)}')
        exit_status = merged.get('exit_status', 0)
        if exit_status != 'any' and not isinstance(exit_status, int):
            raise UsageError(f'{path}: {where}: exit_status must be an integer or "any"')
        schedules = merged.get('schedules', 1)
        if not isinstance(schedules, int) or schedules < 1:
            raise UsageError(f'{path}: {where}: schedules must be a positive integer')
        programs.append(Program(i, name, command, strings(e.get('args', []), f'{where}: args'), cwd, env,
                                timeout, expect, exit_status, schedules,
                                strings(defaults.get('barracuda_args', []), '[defaults] barracuda_args') +
                                strings(e.get('barracuda_args', []), f'{where}: barracuda_args')))
    return programs


# ---------------------------------------------------------------------------------
# Baseline

def load_baseline(path, must_exist):
    if path is None:
        return None
    try:
        with open(path) as f:
            doc = json.load(f)
    except FileNotFoundError:
        if must_exist:
            raise UsageError(f'{path}: no such baseline (create it with --update-baseline)')
        return {}
    except (OSError, json.JSONDecodeError) as e:
        raise UsageError(f'{path}: cannot read the baseline: {e}')
    if doc.get('format') != BASELINE_FORMAT or doc.get('version') != BASELINE_VERSION:
        raise UsageError(f'{path}: not a {BASELINE_FORMAT} version {BASELINE_VERSION} file')
    return doc.get('programs', {})


def write_baseline(path, programs):
    doc = {'format': BASELINE_FORMAT, 'version': BASELINE_VERSION,
           'programs': {name: programs[name] for name in sorted(programs)}}
    tmp = f'{path}.tmp'
    with open(tmp, 'w') as f:
        json.dump(doc, f, indent=1, sort_keys=True)
        f.write('\n')
    os.replace(tmp, path)


# ---------------------------------------------------------------------------------
# Running one program

def race_summary(race, schedules_run):
    """The baseline's record of a report entry: what a reader needs to recognise it."""
    kinds = sorted({v['kind'] for v in race.get('variants') or [{'kind': race['kind']}]})

    def where(access):
        site = access.get('site') or {}
        src, inlined = site.get('source'), site.get('inlined_at')
        if src:
            text = f'{os.path.basename(src["file"])}:{src["line"]}'
            return text + (f' (inlined at {os.path.basename(inlined["file"])}:{inlined["line"]})' if inlined else '')
        return f'PTX {site.get("ptx_line", "?")}' if site else '?'

    seen = len(race.get('schedules') or []) if schedules_run > 1 else 1
    return {'kernel': race['kernel']['name'], 'kind': '/'.join(kinds), 'space': race['space'] or '-',
            'where': f'{where(race["first"])} <-> {where(race["second"])}',
            'flaky': schedules_run > 1 and seen < schedules_run,
            'warning': all(k in WARNING_KINDS for k in kinds)}


def run_program(prog, args, out_dir, stop):
    """Runs `prog` under barracuda; returns its result dict (no comparison yet)."""
    res = {'name': prog.name, 'status': 'error', 'message': None, 'seconds': 0.0, 'races': {},
           'json': f'{prog.slug}.json', 'sarif': f'{prog.slug}.sarif', 'log': f'{prog.slug}.log',
           'exit_status': None}
    json_path, sarif_path, log_path = (out_dir / res[k] for k in ('json', 'sarif', 'log'))
    for p in (json_path, sarif_path):
        p.unlink(missing_ok=True)
    cmd = [args.barracuda, '--report-json', str(json_path), '--report-sarif', str(sarif_path),
           '--error-exitcode', '0', *args.barracuda_arg, *prog.barracuda_args]
    if prog.schedules > 1:
        cmd += ['--schedules', str(prog.schedules)]
    cmd += ['--', prog.command, *prog.args]
    env = {**os.environ, **prog.env}
    t0 = time.monotonic()
    with open(log_path, 'w') as log:
        log.write('$ ' + ' '.join(cmd) + '\n')
        log.flush()
        try:
            # A session of its own: a timeout ends barracuda, its daemon and the app.
            proc = subprocess.Popen(cmd, cwd=prog.cwd, stdout=log, stderr=subprocess.STDOUT, env=env,
                                    start_new_session=True)
        except OSError as e:
            res['message'] = f'cannot run barracuda: {e}'
            return res
        timeout = prog.timeout * args.timeout_scale
        deadline = t0 + timeout
        status = None
        while status is None:
            try:
                status = proc.wait(timeout=0.2)
            except subprocess.TimeoutExpired:
                if time.monotonic() > deadline or stop.is_set():
                    try:
                        os.killpg(proc.pid, signal.SIGKILL)
                    except ProcessLookupError:
                        pass
                    proc.wait()
                    res['seconds'] = round(time.monotonic() - t0, 2)
                    res['message'] = (f'timed out after {timeout:g} s' if not stop.is_set()
                                      else 'interrupted')
                    return res
    res['seconds'] = round(time.monotonic() - t0, 2)
    res['exit_status'] = status
    try:
        with open(json_path) as f:
            report = json.load(f)
    except (OSError, json.JSONDecodeError):
        report = None
    tail = log_tail(log_path)
    if status in TOOL_STATUSES:
        res['message'] = f'barracuda exit {status}: {TOOL_STATUSES[status]}'
        if report and report['run'].get('incomplete_reasons'):
            res['message'] += ': ' + '; '.join(report['run']['incomplete_reasons'])
        res['detail'] = tail
        return res
    if status < 0:
        res['message'] = f'barracuda killed by signal {-status}'
        res['detail'] = tail
        return res
    if report is None:
        res['message'] = f'no JSON report (barracuda exit {status})'
        res['detail'] = tail
        return res
    if not report['run'].get('complete', True):
        res['message'] = 'analysis incomplete: ' + '; '.join(report['run'].get('incomplete_reasons') or ['?'])
        res['detail'] = tail
        return res
    res['analysed'] = True  # complete: its races are the program's, whatever its own status
    if prog.exit_status != 'any' and status != prog.exit_status:
        res['message'] = (f'the program exited with {status}' if status < 128 else
                          f'the program was killed by signal {status - 128}') + f' (expected {prog.exit_status})'
        res['detail'] = tail
    schedules_run = len((report['run'].get('exploration') or {}).get('schedules') or []) or 1
    for race in report['races']:
        fp = race.get('fingerprint')
        if fp is None:
            res['message'] = 'the report has no fingerprints (barracuda older than report version 2)'
            return res
        entry = race_summary(race, schedules_run)
        if fp in res['races']:  # the same bug in several processes of the program
            entry['flaky'] = entry['flaky'] and res['races'][fp]['flaky']
        res['races'][fp] = entry
    res['status'] = 'ran' if res['message'] is None else 'error'
    return res


def log_tail(path, lines=15):
    try:
        with open(path, errors='replace') as f:
            return ''.join(f.readlines()[-lines:])
    except OSError:
        return ''


def compare(prog, res, baseline, accept_new):
    """Fills res['new'|'fixed'|'same'|'flaky'] and turns res['status'] into pass/failure.
    accept_new (--update-baseline): new races are reported, not failures."""
    current = res['races']
    # Without a baseline every race seen is just present: nothing is new or fixed.
    before = current if baseline is None else baseline.get(prog.name, {}).get('races', {})
    res['new'] = sorted(fp for fp in current if fp not in before and not current[fp]['flaky'])
    res['flaky'] = sorted(fp for fp in current if fp not in before and current[fp]['flaky'])
    res['same'] = sorted(fp for fp in current if fp in before)
    res['fixed'] = sorted(fp for fp in before if fp not in current and not before[fp].get('flaky'))
    res['unseen_flaky'] = sorted(fp for fp in before if fp not in current and before[fp].get('flaky'))
    res['before'] = before
    if res['status'] != 'ran':
        return
    problems = []
    if baseline is not None and res['new'] and not accept_new:
        problems.append(f'{len(res["new"])} new race{"s" if len(res["new"]) != 1 else ""}')
    races = [fp for fp in current if not current[fp].get('warning')]
    if prog.expect == 'clean' and races:
        problems.append(f'expected no race, found {len(races)}')
    if prog.expect == 'races' and not races:
        problems.append('expected races, found none' + (f' ({len(current)} warnings)' if current else ''))
    res['status'] = 'failure' if problems else 'pass'
    res['message'] = '; '.join(problems) or None


# ---------------------------------------------------------------------------------
# Outputs

def race_line(fp, r):
    flaky = ' (flaky)' if r.get('flaky') else ''
    return f'{fp} {r["kind"]} {r["space"]} in {r["kernel"]}: {r["where"]}{flaky}'


def write_junit(path, results, suite_name, seconds):
    failures = sum(r['status'] == 'failure' for r in results)
    errors = sum(r['status'] == 'error' for r in results)
    suites = ET.Element('testsuites', name='barracuda-regress', tests=str(len(results)), failures=str(failures),
                        errors=str(errors), time=f'{seconds:.2f}')
    suite = ET.SubElement(suites, 'testsuite', name=suite_name, tests=str(len(results)), failures=str(failures),
                          errors=str(errors), skipped='0', time=f'{seconds:.2f}',
                          timestamp=datetime.datetime.now().isoformat(timespec='seconds'))
    for r in results:
        case = ET.SubElement(suite, 'testcase', classname=suite_name, name=r['name'], time=f'{r["seconds"]:.2f}')
        lines = []
        for label, key, table in (('new', 'new', r['races']), ('flaky', 'flaky', r['races']),
                                  ('still present', 'same', r['races']), ('fixed', 'fixed', r.get('before', {})),
                                  ('flaky, not seen', 'unseen_flaky', r.get('before', {}))):
            lines += [f'{label}: {race_line(fp, table[fp])}' for fp in r.get(key, [])]
        lines.append(f'reports: {r["json"]} {r["sarif"]} {r["log"]}')
        if r['status'] == 'failure':
            ET.SubElement(case, 'failure', message=r['message'], type='race').text = '\n'.join(lines)
        elif r['status'] == 'error':
            ET.SubElement(case, 'error', message=r['message'] or 'error',
                          type='error').text = (r.get('detail') or '') + '\n'.join(lines)
        ET.SubElement(case, 'system-out').text = '\n'.join(lines)
    ET.indent(suites)
    ET.ElementTree(suites).write(path, encoding='utf-8', xml_declaration=True)


STATUS_MARK = {'pass': 'pass', 'failure': 'FAIL', 'error': 'ERROR'}


def counts(r):
    return {k: len(r.get(k, [])) for k in ('new', 'fixed', 'same', 'flaky', 'unseen_flaky')}


def write_markdown(path, results, title, totals):
    out = [f'# {title}', '', totals, '',
           '| program | result | new | fixed | still present | flaky | seconds | reports |',
           '|---|---|---:|---:|---:|---:|---:|---|']
    for r in results:
        c = counts(r)
        out.append(f'| `{r["name"]}` | {STATUS_MARK[r["status"]]} | {c["new"]} | {c["fixed"]} | {c["same"]} | '
                   f'{c["flaky"] + c["unseen_flaky"]} | {r["seconds"]:.1f} | '
                   f'[json]({r["json"]}) [sarif]({r["sarif"]}) [log]({r["log"]}) |')
    for r in results:
        detail = []
        if r['status'] != 'pass' and r['message']:
            detail.append(f'- **{r["message"]}**')
        for label, key, table in (('new', 'new', r['races']), ('flaky', 'flaky', r['races']),
                                  ('fixed', 'fixed', r.get('before', {})),
                                  ('flaky, not seen', 'unseen_flaky', r.get('before', {}))):
            detail += [f'- {label}: `{fp}` {table[fp]["kind"]} {table[fp]["space"]} in `{table[fp]["kernel"]}`: '
                       f'{table[fp]["where"]}' for fp in r.get(key, [])]
        if detail:
            out += ['', f'## `{r["name"]}`', ''] + detail
    pathlib.Path(path).write_text('\n'.join(out) + '\n')


def write_html(path, results, title, totals):
    e = html.escape
    rows = []
    for r in results:
        c = counts(r)
        races = []
        for label, key, table in (('new', 'new', r['races']), ('flaky', 'flaky', r['races']),
                                  ('fixed', 'fixed', r.get('before', {})),
                                  ('flaky, not seen', 'unseen_flaky', r.get('before', {}))):
            races += [f'<li>{label}: <code>{e(fp)}</code> {e(race_line(fp, table[fp]).split(" ", 1)[1])}</li>'
                      for fp in r.get(key, [])]
        message = f'<div class="msg">{e(r["message"])}</div>' if r['status'] != 'pass' and r['message'] else ''
        detail = message + (f'<ul>{"".join(races)}</ul>' if races else '')
        rows.append(f'<tr class="{r["status"]}"><td><code>{e(r["name"])}</code>{detail}</td>'
                    f'<td>{STATUS_MARK[r["status"]]}</td><td>{c["new"]}</td><td>{c["fixed"]}</td>'
                    f'<td>{c["same"]}</td><td>{c["flaky"] + c["unseen_flaky"]}</td><td>{r["seconds"]:.1f}</td>'
                    f'<td><a href="{e(r["json"])}">json</a> <a href="{e(r["sarif"])}">sarif</a> '
                    f'<a href="{e(r["log"])}">log</a></td></tr>')
    doc = f'''<!DOCTYPE html>
<html><head><meta charset="utf-8"><title>{e(title)}</title>
<style>
body {{ font-family: sans-serif; margin: 2em; }} table {{ border-collapse: collapse; }}
td, th {{ border: 1px solid #ccc; padding: .3em .6em; vertical-align: top; }}
tr.failure td:nth-child(2) {{ color: #b00; font-weight: bold; }}
tr.error td:nth-child(2) {{ color: #b60; font-weight: bold; }} .msg {{ color: #555; }}
</style></head><body>
<h1>{e(title)}</h1><p>{e(totals)}</p>
<table><tr><th>program</th><th>result</th><th>new</th><th>fixed</th><th>still present</th><th>flaky</th>
<th>seconds</th><th>reports</th></tr>
{chr(10).join(rows)}
</table></body></html>
'''
    pathlib.Path(path).write_text(doc)


# ---------------------------------------------------------------------------------
# Main

class Progress:
    def __init__(self, total, quiet):
        self.total, self.quiet = total, quiet
        self.done = self.running = self.failed = self.errors = 0
        self.tty = sys.stderr.isatty()
        self.lock = threading.Lock()

    def line(self):
        return (f'barracuda-regress: [{self.done}/{self.total}] {self.running} running, '
                f'{self.failed} failed, {self.errors} errors')

    def started(self):
        with self.lock:
            self.running += 1
            if self.tty and not self.quiet:
                print('\r' + self.line(), end='', file=sys.stderr, flush=True)

    def finished(self, r):
        with self.lock:
            self.running -= 1
            self.done += 1
            self.failed += r['status'] == 'failure'
            self.errors += r['status'] == 'error'
            if self.quiet:
                return
            what = STATUS_MARK[r['status']] + (f' ({r["message"]})' if r['message'] else '')
            if self.tty:
                print('\r\033[K', end='', file=sys.stderr)
            print(f'barracuda-regress: [{self.done}/{self.total}] {r["name"]}: {what} '
                  f'({r["seconds"]:.1f} s)', file=sys.stderr)
            if self.tty and self.done < self.total:
                print(self.line(), end='', file=sys.stderr, flush=True)


def parse_shard(text):
    m = re.fullmatch(r'(\d+)/(\d+)', text or '')
    if not m or not 1 <= int(m.group(1)) <= int(m.group(2)):
        raise argparse.ArgumentTypeError(f'--shard wants I/N with 1 <= I <= N, not {text!r}')
    return int(m.group(1)), int(m.group(2))


def default_barracuda():
    here = pathlib.Path(__file__).resolve().parent
    beside = here / 'barracuda'
    if beside.is_file() and os.access(beside, os.X_OK):
        return str(beside)
    return shutil.which('barracuda') or 'barracuda'


def main(argv=None):
    ap = argparse.ArgumentParser(prog='barracuda-regress', description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument('manifest', help='TOML manifest of the programs to run')
    ap.add_argument('-b', '--baseline', help='baseline file (JSON) to compare fingerprints with')
    ap.add_argument('--update-baseline', action='store_true',
                    help='write the races seen into --baseline (programs that errored keep their old entry)')
    ap.add_argument('-j', '--jobs', type=int, default=os.cpu_count() or 1,
                    help='programs run at once (default: the number of CPUs)')
    ap.add_argument('-o', '--output', default='barracuda-regress-out',
                    help='directory for the reports, logs, junit.xml, summary.md and summary.html '
                         '(default: barracuda-regress-out)')
    ap.add_argument('--junit', help='JUnit XML path (default: OUTPUT/junit.xml)')
    ap.add_argument('--shard', type=parse_shard, help='I/N: run only the I-th of N slices of the manifest')
    ap.add_argument('--only', action='append', default=[], metavar='GLOB',
                    help='run only the programs whose name matches GLOB (repeatable)')
    ap.add_argument('-D', '--define', action='append', default=[], metavar='NAME=VALUE',
                    help='a ${NAME} of the manifest (repeatable; a VALUE that is an existing relative path '
                         'is made absolute from the current directory); ${manifest_dir} is always defined')
    ap.add_argument('--barracuda', default=None, help='the barracuda binary (default: the one beside this '
                                                      'command, else on PATH)')
    ap.add_argument('--barracuda-arg', action='append', default=[], metavar='ARG',
                    help='an extra barracuda option for every program (repeatable)')
    ap.add_argument('--timeout-scale', type=float, default=1.0, help='multiply every timeout (slow machines)')
    ap.add_argument('--title', default=None, help='title of the summaries (default: the manifest name)')
    ap.add_argument('-q', '--quiet', action='store_true', help='no progress, only the final line')
    args = ap.parse_args(argv)
    try:
        return run(args)
    except UsageError as e:
        print(f'barracuda-regress: {e}', file=sys.stderr)
        return 2


def run(args):
    if args.jobs < 1:
        raise UsageError('--jobs must be at least 1')
    if args.update_baseline and not args.baseline:
        raise UsageError('--update-baseline needs --baseline FILE')
    defines = {}
    for d in args.define:
        name, eq, value = d.partition('=')
        if not eq or not name:
            raise UsageError(f'--define wants NAME=VALUE, not {d!r}')
        # A relative path that exists from here (`-D build=build` at the
        # repository root) is made absolute: the manifest's own relative paths
        # are from its directory, which would read it from there instead.
        if value and not os.path.isabs(value) and os.path.exists(value):
            value = os.path.abspath(value)
        defines[name] = value
    programs = load_manifest(args.manifest, defines)
    baseline = load_baseline(args.baseline, must_exist=not args.update_baseline)
    selected = programs
    if args.only:
        selected = [p for p in selected if any(fnmatch.fnmatchcase(p.name, g) for g in args.only)]
        if not selected:
            raise UsageError(f'no program matches {" ".join(args.only)}')
    if args.shard:
        i, n = args.shard
        selected = [p for k, p in enumerate(selected) if k % n == i - 1]
    args.barracuda = args.barracuda or default_barracuda()
    if not (os.path.isfile(args.barracuda) and os.access(args.barracuda, os.X_OK)) and \
            not shutil.which(args.barracuda):
        raise UsageError(f'barracuda not found ({args.barracuda}); pass --barracuda PATH')
    out_dir = pathlib.Path(args.output)
    out_dir.mkdir(parents=True, exist_ok=True)
    title = args.title or f'barracuda-regress: {pathlib.Path(args.manifest).stem}' + (
        f' (shard {args.shard[0]}/{args.shard[1]})' if args.shard else '')

    progress = Progress(len(selected), args.quiet)
    stop = threading.Event()
    t0 = time.monotonic()

    def one(prog):
        progress.started()
        res = run_program(prog, args, out_dir, stop)
        compare(prog, res, baseline, args.update_baseline)
        progress.finished(res)
        return res

    previous = {s: signal.getsignal(s) for s in (signal.SIGINT, signal.SIGTERM)}

    def interrupted(signum, frame):
        stop.set()
    for s in previous:
        signal.signal(s, interrupted)
    try:
        with concurrent.futures.ThreadPoolExecutor(max_workers=args.jobs) as pool:
            results = list(pool.map(one, selected))
    finally:
        for s, h in previous.items():
            signal.signal(s, h)
    seconds = time.monotonic() - t0

    n = {k: sum(r['status'] == k for r in results) for k in ('pass', 'failure', 'error')}
    c = {k: sum(len(r.get(k, [])) for r in results) for k in ('new', 'fixed', 'same', 'flaky')}
    totals = (f'{len(results)} programs: {n["pass"]} passed, {n["failure"]} failed, {n["error"]} errors; '
              f'races: {c["new"]} new, {c["fixed"]} fixed, {c["same"]} still present, {c["flaky"]} flaky '
              f'({seconds:.0f} s)')
    if baseline is None:
        totals += '; no baseline: every race counts as present, checked against each program\'s expect only'
    junit = args.junit or str(out_dir / 'junit.xml')
    write_junit(junit, results, pathlib.Path(args.manifest).stem, seconds)
    write_markdown(out_dir / 'summary.md', results, title, totals)
    write_html(out_dir / 'summary.html', results, title, totals)
    if args.update_baseline:
        kept = dict(baseline or {})
        names = {p.name for p in programs}
        kept = {k: v for k, v in kept.items() if k in names}
        for r in results:
            if r.get('analysed'):  # a run that errored before its analysis completed keeps the old entry
                kept[r['name']] = {'races': r['races']}
        write_baseline(args.baseline, kept)
        print(f'barracuda-regress: baseline {args.baseline} updated ({len(kept)} programs)', file=sys.stderr)
    print(f'barracuda-regress: {totals}; {junit}, {out_dir / "summary.md"}', file=sys.stderr)
    if stop.is_set():
        return 130
    return 0 if n['failure'] == 0 and n['error'] == 0 else 1


if __name__ == '__main__':
    sys.exit(main())
