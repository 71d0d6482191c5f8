"""What the barracuda-regress tests share: loading the command as a module
(it has no .py suffix) and running unittest with the test's own options."""
import argparse
import importlib.machinery
import importlib.util
import sys
import unittest


def load_regress(path):
    loader = importlib.machinery.SourceFileLoader('barracuda_regress', path)
    spec = importlib.util.spec_from_loader('barracuda_regress', loader)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def run(options):
    """Parses --OPTION VALUE for each name in `options` (all required), then
    runs the caller's unittest cases with the rest of the command line;
    returns the parsed options (set them on the module before tests run)."""
    ap = argparse.ArgumentParser()
    for name in options:
        ap.add_argument(f'--{name}', required=True)
    args, rest = ap.parse_known_args()
    return args, [sys.argv[0], '-v', *rest]


def main(module, options):
    args, argv = run(options)
    module.ARGS = args
    unittest.main(module=module, argv=argv)
