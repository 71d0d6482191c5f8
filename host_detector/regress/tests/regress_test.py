#!/usr/bin/env python3
"""barracuda-regress end to end (issue 17): real barracuda runs of the bundled
example and its fixed twin. A baseline is made; then the programs swap, so that
one program gains a race (new: failure) and one loses it (fixed: reported,
passes); a timeout, a program barracuda refuses and a wrong expectation are
errors and failures; JUnit XML, the Markdown and HTML summaries, sharding and
the flaky rule are checked."""
import json
import os
import pathlib
import shutil
import subprocess
import sys
import unittest
import xml.etree.ElementTree as ET

import regress_testlib

ARGS = None


def run(*argv, check=None, cwd=None):
    p = subprocess.run([sys.executable, ARGS.regress, '--barracuda', ARGS.barracuda, *argv],
                       capture_output=True, text=True, timeout=600, cwd=cwd)
    if check is not None and p.returncode != check:
        raise AssertionError(f'exit {p.returncode}, wanted {check}\nstdout:\n{p.stdout}\nstderr:\n{p.stderr}')
    return p


def manifest(path, entries, defaults='timeout = 120\nenv = { BARRACUDA_EMU_WORKERS = "1" }\n'):
    text = '[defaults]\n' + defaults + '\n'
    for name, fields in entries:
        text += f'[[program]]\nname = "{name}"\n' + ''.join(f'{k} = {v}\n' for k, v in fields.items()) + '\n'
    path.write_text(text)
    return str(path)


class Regress(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.work = pathlib.Path(ARGS.work)
        shutil.rmtree(cls.work, ignore_errors=True)
        cls.work.mkdir(parents=True)
        racy, fixed = f'"{ARGS.examples}/racy_reduction"', f'"{ARGS.examples}/racy_reduction_fixed"'
        cls.baseline = str(cls.work / 'baseline.json')
        first = manifest(cls.work / 'first.toml', [
            ('alpha', {'command': fixed}),
            ('beta', {'command': racy, 'exit_status': '"any"'}),
            ('gamma', {'command': racy, 'exit_status': '"any"'}),
        ])
        # Making the baseline: races are new but accepted.
        cls.first = run(first, '--baseline', cls.baseline, '--update-baseline', '-j', '2', '-q',
                        '--output', str(cls.work / 'out1'), check=0)
        cls.second_manifest = manifest(cls.work / 'second.toml', [
            ('alpha', {'command': racy, 'exit_status': '"any"'}),        # a new race
            ('beta', {'command': fixed}),                                # its race fixed
            ('gamma', {'command': racy, 'exit_status': '"any"'}),        # still there
            ('delta', {'command': racy, 'schedules': 1000, 'timeout': 0.5}),  # overruns
            ('epsilon', {'command': '"/bin/true"'}),                     # not a CUDA program
            ('zeta', {'command': fixed, 'expect': '"races"'}),           # expected races, none
        ])
        cls.out2 = cls.work / 'out2'
        cls.second = run(cls.second_manifest, '--baseline', cls.baseline, '-j', '3', '--output', str(cls.out2))

    def test_baseline(self):
        doc = json.loads(pathlib.Path(self.baseline).read_text())
        self.assertEqual(doc['format'], 'barracuda-regress-baseline')
        progs = doc['programs']
        self.assertEqual(sorted(progs), ['alpha', 'beta', 'gamma'])
        self.assertEqual(progs['alpha']['races'], {})
        self.assertEqual(len(progs['beta']['races']), 1)  # one missing barrier: one entry
        self.assertEqual(progs['beta']['races'], progs['gamma']['races'])
        race = next(iter(progs['beta']['races'].values()))
        self.assertEqual(race['kernel'], 'block_sum')
        self.assertEqual(race['kind'], 'RAW/WAR')
        self.assertIn('racy_reduction.cu:38', race['where'])
        self.assertFalse(race['flaky'])

    def test_second_run_junit(self):
        self.assertEqual(self.second.returncode, 1, self.second.stderr)
        root = ET.parse(self.out2 / 'junit.xml').getroot()
        suite = root.find('testsuite')
        self.assertEqual((suite.get('tests'), suite.get('failures'), suite.get('errors')), ('6', '2', '2'))
        cases = {c.get('name'): c for c in suite.findall('testcase')}
        self.assertEqual(sorted(cases), ['alpha', 'beta', 'delta', 'epsilon', 'gamma', 'zeta'])
        fp = next(iter(json.loads(pathlib.Path(self.baseline).read_text())['programs']['beta']['races']))
        alpha = cases['alpha'].find('failure')
        self.assertIsNotNone(alpha)
        self.assertEqual(alpha.get('message'), '1 new race')
        self.assertIn(f'new: {fp} RAW/WAR shared in block_sum', alpha.text)
        self.assertIsNone(cases['beta'].find('failure'))
        self.assertIsNone(cases['beta'].find('error'))
        self.assertIn(f'fixed: {fp}', cases['beta'].find('system-out').text)
        self.assertIn(f'still present: {fp}', cases['gamma'].find('system-out').text)
        self.assertIsNone(cases['gamma'].find('failure'))
        self.assertIn('timed out after 0.5 s', cases['delta'].find('error').get('message'))
        self.assertIn('barracuda exit 121', cases['epsilon'].find('error').get('message'))
        self.assertEqual(cases['zeta'].find('failure').get('message'), 'expected races, found none')

    def test_second_run_summaries(self):
        md = (self.out2 / 'summary.md').read_text()
        self.assertIn('6 programs: 2 passed, 2 failed, 2 errors; races: 1 new, 1 fixed, 1 still present', md)
        self.assertIn('| `alpha` | FAIL | 1 | 0 | 0 | 0 |', md)
        self.assertIn('| `beta` | pass | 0 | 1 | 0 | 0 |', md)
        self.assertIn('| `gamma` | pass | 0 | 0 | 1 | 0 |', md)
        self.assertIn('[json](alpha.json)', md)
        self.assertTrue((self.out2 / 'alpha.json').is_file())
        self.assertTrue((self.out2 / 'alpha.sarif').is_file())
        self.assertIn('- **timed out after 0.5 s**', md)
        page = (self.out2 / 'summary.html').read_text()
        self.assertIn('<tr class="failure"><td><code>alpha</code>', page)
        self.assertIn('<a href="beta.json">json</a>', page)
        # The progress line named every program.
        for name in ('alpha', 'zeta'):
            self.assertRegex(self.second.stderr, rf'\[\d/6\] {name}: ')
        # The baseline was not changed without --update-baseline.
        self.assertEqual(len(json.loads(pathlib.Path(self.baseline).read_text())['programs']['alpha']['races']), 0)

    def test_shards_partition_the_manifest(self):
        names = []
        for i in (1, 2):
            out = self.work / f'shard{i}'
            run(self.second_manifest, '--baseline', self.baseline, '--shard', f'{i}/2', '--only', '[abgz]*',
                '-q', '--output', str(out))
            names.append({c.get('name') for c in ET.parse(out / 'junit.xml').getroot().iter('testcase')})
        self.assertEqual(names[0] & names[1], set())
        self.assertEqual(names[0] | names[1], {'alpha', 'beta', 'gamma', 'zeta'})

    def test_without_a_baseline_races_are_present_not_new(self):
        p = run(str(self.work / 'first.toml'), '-q', '--output', str(self.work / 'nobase'), check=0)
        self.assertIn('3 programs: 3 passed, 0 failed, 0 errors; races: 0 new, 0 fixed, 2 still present', p.stderr)
        self.assertIn('no baseline', p.stderr)

    def test_usage_errors(self):
        bad = manifest(self.work / 'bad.toml', [('x', {'command': '"a"', 'colour': '"red"'})])
        p = run(bad, check=2)
        self.assertIn('unknown key(s) colour', p.stderr)
        p = run(self.second_manifest, '--baseline', str(self.work / 'missing.json'), check=2)
        self.assertIn('no such baseline', p.stderr)
        undefined = manifest(self.work / 'undefined.toml', [('x', {'command': '"${build}/x"'})])
        p = run(undefined, check=2)
        self.assertIn('${build} is not defined (pass --define build=VALUE)', p.stderr)
        p = run(self.second_manifest, '--shard', '3/2', check=2)
        self.assertIn('--shard wants I/N', p.stderr)

    def test_relative_define_is_from_the_current_directory(self):
        # `-D build=build` at the repository root: the value names a directory
        # from the caller's directory, not from the manifest's.
        sub = self.work / 'sub'
        sub.mkdir(exist_ok=True)
        m = manifest(sub / 'relative.toml', [('alpha', {'command': '"${bin}/racy_reduction_fixed"'})])
        rel = os.path.relpath(ARGS.examples, start=self.work)
        p = run(m, '-D', f'bin={rel}', '-q', '--output', str(self.work / 'relative_out'), check=0, cwd=self.work)
        self.assertIn('1 passed, 0 failed, 0 errors', p.stderr)

    def test_flaky_rule(self):
        mod = regress_testlib.load_regress(ARGS.regress)
        prog = mod.Program(0, 'p', 'cmd', [], '.', {}, 10, 'any', 0, 4, [])
        flaky = {'kernel': 'k', 'kind': 'WAW', 'space': 'global', 'where': 'a.cu:1 <-> a.cu:2', 'flaky': True}
        steady = dict(flaky, flaky=False)
        # A race seen under only some schedules is flaky, not new.
        res = {'status': 'ran', 'races': {'f1': flaky}}
        mod.compare(prog, res, {'p': {'races': {}}}, accept_new=False)
        self.assertEqual((res['status'], res['new'], res['flaky']), ('pass', [], ['f1']))
        # A flaky race of the baseline that did not show is not "fixed".
        res = {'status': 'ran', 'races': {}}
        mod.compare(prog, res, {'p': {'races': {'f1': flaky, 'f2': steady}}}, accept_new=False)
        self.assertEqual((res['fixed'], res['unseen_flaky'], res['status']), (['f2'], ['f1'], 'pass'))
        # Seen under every schedule and not in the baseline: new.
        res = {'status': 'ran', 'races': {'f3': steady}}
        mod.compare(prog, res, {'p': {'races': {}}}, accept_new=False)
        self.assertEqual((res['status'], res['new']), ('failure', ['f3']))
        # race_summary: seen under 2 of 4 schedules.
        race = {'kernel': {'name': 'k'}, 'kind': 'WAW', 'space': 'global', 'variants': [{'kind': 'WAW'}],
                'first': {'site': None}, 'second': {'site': None}, 'schedules': [{'number': 1}, {'number': 3}]}
        self.assertTrue(mod.race_summary(race, 4)['flaky'])
        race['schedules'] = [{'number': n} for n in (1, 2, 3, 4)]
        self.assertFalse(mod.race_summary(race, 4)['flaky'])


if __name__ == '__main__':
    regress_testlib.main(sys.modules[__name__], ['regress', 'barracuda', 'examples', 'work'])
