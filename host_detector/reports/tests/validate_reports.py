#!/usr/bin/env python3
"""CTest report_schemas: every JSON and SARIF report the report tests write is
valid against its schema.

Runs the test binary's [report-files] cases with BARRACUDA_REPORT_OUTPUT_DIR set
to a fresh directory, then validates *.json against barracuda-report-v2 and
*.sarif against the official SARIF 2.1.0 schema (python3-jsonschema, the draft
each schema names). A report missing a required field must be rejected, so the
validation itself is checked too. Exit status 0 only when all of that holds.
"""
import argparse
import copy
import json
import os
import pathlib
import re
import shutil
import subprocess
import sys

import jsonschema


def load(path):
    with open(path, encoding="utf-8") as f:
        return json.load(f)


# Debian's python3-jsonschema checks "uri" formats only with the rfc3987
# package, which is not installed: a small RFC 3986 character-level check.
_URI_CHARS = re.compile(r"^(?:[A-Za-z0-9\-._~:/?#\[\]@!$&'()*+,;=]|%[0-9A-Fa-f]{2})*$")
_SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.\-]*:")


def format_checker(cls):
    checker = copy.deepcopy(cls.FORMAT_CHECKER)
    checker.checks("uri-reference")(lambda v: not isinstance(v, str) or bool(_URI_CHARS.match(v)))
    checker.checks("uri")(lambda v: not isinstance(v, str) or bool(_URI_CHARS.match(v) and _SCHEME.match(v)))
    return checker


def validator(schema_path):
    schema = load(schema_path)
    cls = jsonschema.validators.validator_for(schema)
    cls.check_schema(schema)
    return cls(schema, format_checker=format_checker(cls))


def errors_of(v, doc):
    return sorted(v.iter_errors(doc), key=lambda e: list(e.absolute_path))


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--tests", required=True, help="host_detector_report_tests binary")
    ap.add_argument("--out", required=True, help="directory the reports are written to (emptied first)")
    ap.add_argument("--report-schema", required=True)
    ap.add_argument("--sarif-schema", required=True)
    args = ap.parse_args()

    out = pathlib.Path(args.out)
    shutil.rmtree(out, ignore_errors=True)
    out.mkdir(parents=True)
    env = dict(os.environ, BARRACUDA_REPORT_OUTPUT_DIR=str(out))
    run = subprocess.run([args.tests, "[report-files]"], env=env, capture_output=True, text=True)
    if run.returncode != 0:
        print(run.stdout, run.stderr, sep="\n")
        print(f"error: {args.tests} [report-files] exited with {run.returncode}")
        return 1

    checks = {".json": validator(args.report_schema), ".sarif": validator(args.sarif_schema)}
    seen = {".json": 0, ".sarif": 0}
    failed = 0
    for path in sorted(out.iterdir()):
        v = checks.get(path.suffix)
        if v is None:
            continue
        seen[path.suffix] += 1
        doc = load(path)
        errs = errors_of(v, doc)
        for e in errs[:10]:
            where = "/".join(str(p) for p in e.absolute_path)
            print(f"{path}: at /{where}: {e.message}")
        failed += bool(errs)
        # The schema must notice a missing required top-level field.
        broken = copy.deepcopy(doc)
        broken.pop("version")
        if not errors_of(v, broken):
            print(f"{path}: the schema accepts the report without 'version'")
            failed += 1
    for suffix, n in seen.items():
        if n < 3:
            print(f"error: expected at least 3 {suffix} reports in {out}, found {n}")
            failed += 1
    print(f"validated {seen['.json']} JSON and {seen['.sarif']} SARIF reports, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
