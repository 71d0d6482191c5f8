#!/usr/bin/env python3
"""Checks one group of the PTX corpus made by corpus_generate.py.

For every PTX file of the group:
  barracuda-ptx print FILE --check-roundtrip -o PRINTED   (parse, print, re-parse,
                                                           compare the IR)
  ptxas -arch=sm_XX PRINTED -o /dev/null                   (XX from the .target line)
Group "extracted" first runs `barracuda-ptx extract EXE -o DIR` on each of the
executables (zstd, LZ4, uncompressed PTX), requires the three to give the same
PTX, and that PTX to print the same as nvcc -ptx's for the same source and
flags, then checks those files the same way.

Prints a summary (files, MB, failures with the failing command and its output).
Exit status: 0 every file passed, 1 some file failed, 2 usage or corpus error.
"""
import argparse
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import time

MAX_LOG_LINES = 40
TARGET_RE = re.compile(r"^\s*\.target\s+(sm_\d+[a-z]?)", re.M)
EXTERN_FUNC_RE = re.compile(r"^\s*\.extern\s+\.func\b", re.M)


def run(cmd):
    """Runs cmd; returns (ok, CPU seconds, transcript for the report)."""
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    out = proc.stdout.read().decode("utf-8", "replace")
    proc.stdout.close()
    _, wait_status, usage = os.wait4(proc.pid, 0)
    proc.returncode = rc = os.waitstatus_to_exitcode(wait_status)  # already reaped
    status = f"exit status {rc}" if rc >= 0 else f"killed by signal {-rc}"
    lines = out.splitlines()
    if len(lines) > MAX_LOG_LINES:
        lines = lines[:MAX_LOG_LINES] + [f"... ({len(lines) - MAX_LOG_LINES} more lines)"]
    transcript = "\n".join([f"  $ {shlex.join(cmd)}", f"  ({status})"] +
                           ["  | " + line for line in lines])
    return rc == 0, usage.ru_utime + usage.ru_stime, transcript


def target_of(path):
    with open(path, encoding="utf-8", errors="replace") as f:
        text = f.read()
    m = TARGET_RE.search(text)
    return (m.group(1) if m else None), bool(EXTERN_FUNC_RE.search(text))


class Checker:
    def __init__(self, args, printed_root):
        self.args = args
        self.printed_root = printed_root
        self.failures = []  # (file, transcript)
        self.files = 0
        self.bytes = 0
        self.seconds = {"extract": 0.0, "print": 0.0, "ptxas": 0.0}

    def fail(self, what, transcript):
        self.failures.append((what, transcript))

    def check_ptx(self, path, label):
        """Round-trips path through the printer and assembles the result. The
        printed file is kept only when a step fails, for inspection."""
        self.files += 1
        if not os.path.isfile(path):
            self.fail(label, f"  {path}: missing (did corpus_generate fail?)")
            return
        self.bytes += os.path.getsize(path)
        target, has_extern = target_of(path)
        if target is None:
            self.fail(label, f"  {path}: no .target directive")
            return
        printed = os.path.join(self.printed_root, label)
        os.makedirs(os.path.dirname(printed), exist_ok=True)
        ok, secs, log = run([self.args.tool, "print", path, "--check-roundtrip", "-o", printed])
        self.seconds["print"] += secs
        if not ok:
            self.fail(label, log)
            return
        # A module that calls a function defined in another one (-rdc) only
        # assembles as a relocatable object.
        cmd = [self.args.ptxas, f"-arch={target}"] + (["-c"] if has_extern else []) + \
              [printed, "-o", os.devnull]
        ok, secs, log = run(cmd)
        self.seconds["ptxas"] += secs
        if not ok:
            self.fail(label, f"{log}\n  (printed from {path})")
        else:
            os.remove(printed)

    def extract(self, exe, out_dir):
        """Extracts exe's PTX into out_dir; returns {file name: bytes} or None."""
        shutil.rmtree(out_dir, ignore_errors=True)
        os.makedirs(out_dir)
        ok, secs, log = run([self.args.tool, "extract", exe, "-o", out_dir])
        self.seconds["extract"] += secs
        if not ok:
            self.fail(f"extract {os.path.basename(exe)}", log)
            return None
        found = {}
        for dirpath, _, names in os.walk(out_dir):
            for n in names:
                if n.endswith(".ptx"):
                    p = os.path.join(dirpath, n)
                    with open(p, "rb") as f:
                        found[os.path.relpath(p, out_dir)] = f.read()
        if not found:
            self.fail(f"extract {os.path.basename(exe)}",
                      f"  {exe}: extract wrote no .ptx file into {out_dir}")
            return None
        return found


def compare_with_nvcc_ptx(checker, manifest, out, mode, files):
    """The PTX embedded in the executable (comments blanked by nvcc) must be the
    module that `nvcc -ptx -arch=compute_75 -lineinfo` gives for the same source:
    both printed by barracuda-ptx must agree line by line, up to indentation."""
    exe = next(e for e in manifest["executables"] if e["mode"] == mode)
    ref = next((e["output"] for e in manifest["ptx"]
                if e["source"] == exe["source"] and e["group"] == "sm75-lineinfo"), None)
    if ref is None or len(files) != 1:
        checker.fail("extract vs nvcc -ptx",
                     f"  want one extracted PTX file and the sm75-lineinfo PTX of "
                     f"{exe['source']}; have {sorted(files)} and {ref}")
        return
    printed = []
    for name, path in (("extracted", os.path.join(out, "extracted", mode, next(iter(files)))),
                       ("nvcc-ptx", ref)):
        dest = os.path.join(checker.printed_root, f"compare-{name}.ptx")
        os.makedirs(checker.printed_root, exist_ok=True)
        ok, secs, log = run([checker.args.tool, "print", path, "-o", dest])
        checker.seconds["print"] += secs
        if not ok:
            checker.fail("extract vs nvcc -ptx", log)
            return
        with open(dest, encoding="utf-8", errors="replace") as f:
            printed.append([line.strip() for line in f])
        os.remove(dest)
    if printed[0] != printed[1]:
        at = next((i for i, (a, b) in enumerate(zip(*printed)) if a != b),
                  min(map(len, printed)))
        checker.fail("extract vs nvcc -ptx",
                     f"  printed PTX extracted from {exe['output']} differs from that of "
                     f"{ref} at printed line {at + 1}")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--manifest", required=True)
    ap.add_argument("--group", required=True,
                    help="sm75-lineinfo, sm75-G, sm90-lineinfo, sm90-G or extracted")
    ap.add_argument("--tool", required=True, help="path of barracuda-ptx")
    ap.add_argument("--ptxas", default="ptxas")
    args = ap.parse_args()

    for tool in (args.tool, args.ptxas):
        if shutil.which(tool) is None:
            print(f"corpus: {tool} not found or not executable (build barracuda-ptx first)",
                  file=sys.stderr)
            return 2
    try:
        with open(args.manifest, encoding="utf-8") as f:
            manifest = json.load(f)
    except (OSError, ValueError) as e:
        print(f"corpus: cannot read {args.manifest}: {e} (did the corpus_generate fixture run?)",
              file=sys.stderr)
        return 2
    out = os.path.dirname(os.path.abspath(args.manifest))
    checker = Checker(args, os.path.join(out, "printed", args.group))
    start = time.monotonic()

    if args.group == "extracted":
        exes = manifest["executables"]
        extracted = {}
        for exe in exes:
            found = checker.extract(exe["output"], os.path.join(out, "extracted", exe["mode"]))
            if found is not None:
                extracted[exe["mode"]] = found
        # The three builds differ only in how the PTX is compressed: same files
        # (named after the executable) with the same bytes.
        def normalized(mode):
            exe_name = os.path.basename(
                next(e["output"] for e in exes if e["mode"] == mode))
            return sorted((name.replace(exe_name, "APP"), data)
                          for name, data in extracted[mode].items())
        modes = sorted(extracted)
        for mode in modes[1:]:
            if normalized(mode) != normalized(modes[0]):
                checker.fail(f"extract {mode}",
                             f"  PTX extracted from the {mode} build differs from the "
                             f"{modes[0]} build: {sorted(extracted[mode])} vs "
                             f"{sorted(extracted[modes[0]])} in {out}/extracted")
        if modes:
            compare_with_nvcc_ptx(checker, manifest, out, modes[0], extracted[modes[0]])
        for mode in modes:
            for rel in sorted(extracted[mode]):
                checker.check_ptx(os.path.join(out, "extracted", mode, rel),
                                  os.path.join(mode, rel))
        expected = len(exes)
    else:
        entries = [e for e in manifest["ptx"] if e["group"] == args.group]
        expected = len(entries)
        for e in entries:
            checker.check_ptx(e["output"], e["source"][:-3] + ".ptx")

    if expected == 0:
        print(f"corpus[{args.group}]: the manifest has nothing for this group", file=sys.stderr)
        return 2
    n_fail = len(checker.failures)
    steps = ", ".join(f"{k} {v:.1f} s" for k, v in checker.seconds.items() if v)
    steps = f"CPU: {steps}" if steps else "no commands run"
    print(f"corpus[{args.group}]: {checker.files} PTX files, {checker.bytes / 1e6:.1f} MB, "
          f"{n_fail} failures, {time.monotonic() - start:.1f} s wall ({steps})")
    for what, transcript in checker.failures:
        print(f"FAIL {what}\n{transcript}")
    return 1 if n_fail else 0


if __name__ == "__main__":
    sys.exit(main())
