#!/usr/bin/env python3
"""Generates the PTX corpus: every .cu file of the source tree compiled to PTX.

Each source gives up to three PTX files (-lineinfo for compute_75 and
compute_90, -G for its own target: see below); one CUB program is also built into three executables
whose embedded PTX is compressed with zstd (nvcc's default), LZ4
(--compress-mode=speed) and not at all (--no-compress), for `barracuda-ptx
extract`. The nvcc jobs run in parallel; an output is rebuilt only when its
command line changed or a file it depends on (from nvcc -MD) is newer.

Writes OUT/manifest.json, read by corpus_check.py. This is the set-up step
(CTest fixture) of the corpus tests registered by ptx_rewriter/corpus.cmake.

A source can carry marker comment lines for the corpus (anywhere in the file):
  // barracuda-corpus: skip <reason>       not compiled (e.g. meant to fail)
  // barracuda-corpus: flags <nvcc flags>  extra flags, e.g. -rdc=true
  // barracuda-corpus: arch <NN>           needs sm_NN: no PTX for older targets
  // barracuda-corpus: lineinfo-only <reason>  no -G variants (e.g. a CUB device
                                         algorithm whose -G PTX is 5-10 MB: ptxas
                                         takes ~20 s on it, and the other CUB
                                         sources give the same -G shapes)
A bug-suite program's /*@barracuda header "arch" (e.g. "arch": 90) counts as
the same as an arch marker. A program with such a header (the bug suite,
memcheck and stream-order programs: ~220 small sources) is compiled for its
own target only (its "arch", else 75), with -lineinfo and with -G: that is the
PTX its executable embeds. Their other-target twins were 40% of the corpus's
CPU time in CI and differed in 7 of 334 pairs, by one opcode family
(redux.sync on sm_80+, which the CUB sources and the sm_90 programs cover).
-G (device debug) PTX is made for a source's own target only (sm_75, or its
arch), and, with --built-dir, for a suite program only when the build made its
-G twin (those with fences, atomics or volatile accesses, extracted): debug PTX
differs from -lineinfo PTX in its frame and debug sections, not by target or
by program, and the ~110 extracted suite programs and ~60 other sources keep
those shapes covered. 2026-11-30: the dropped variants (sm_90 -G of every
other source, -G of ~175 suite, stream-order and memcheck programs) were 815 ->
~450 outputs and ~55% of the corpus's CPU time (694 s in all on 2 cores).
Timings are reported as wall and CPU seconds (user + system of
nvcc and its children), the latter being what matters on a loaded machine.
Exit status: 0 all outputs present, 1 an nvcc job failed, 2 usage error.
"""
import argparse
import concurrent.futures
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import time

# (target, debug variant): the PTX files a source can give (-G: own target only).
VARIANTS = [(sm, dbg) for sm in (75, 90) for dbg in ("lineinfo", "G")]
# Executables of one CUB program, by how nvcc compresses the embedded PTX.
EXE_MODES = {"zstd": [], "lz4": ["--compress-mode=speed"], "none": ["--no-compress"]}
EXE_FLAGS = ["-cudart", "shared", "-lineinfo", "-gencode",
             "arch=compute_75,code=[sm_75,compute_75]"]
MARKER = "// barracuda-corpus:"
SUITE_ARCH_RE = re.compile(r'^/\*@barracuda\b.*?"arch"\s*:\s*(\d+).*?^@\*/', re.S | re.M)


def find_sources(root, out_dir):
    """Every .cu under root, skipping hidden folders, build folders (build*/ at
    the top, or any folder holding a CMakeCache.txt), folders holding a
    .barracuda-corpus-skip file (its text says why) and the output folder."""
    sources = []
    out_dir = os.path.realpath(out_dir)
    for dirpath, dirnames, filenames in os.walk(root):
        keep = []
        for d in sorted(dirnames):
            full = os.path.join(dirpath, d)
            if d.startswith(".") or os.path.realpath(full) == out_dir:
                continue
            if dirpath == root and d.startswith("build"):
                continue
            if os.path.exists(os.path.join(full, "CMakeCache.txt")):
                continue
            if os.path.exists(os.path.join(full, ".barracuda-corpus-skip")):
                continue
            keep.append(d)
        dirnames[:] = keep
        sources += [os.path.join(dirpath, f) for f in sorted(filenames) if f.endswith(".cu")]
    return sorted(sources)


def read_markers(path):
    """(skip reason or None, extra nvcc flags, lowest sm the source supports,
    whether it includes CUB or libcu++ headers: 5-20x slower to compile,
    whether it is a suite program: compiled for its own target only,
    whether it has no -G variants)."""
    with open(path, encoding="utf-8", errors="replace") as f:
        text = f.read()
    m = SUITE_ARCH_RE.search(text)
    skip, flags, min_sm, lineinfo_only = None, [], int(m.group(1)) if m else 0, False
    own_target_only = re.search(r"^/\*@barracuda\b", text, re.M) is not None
    for number, line in enumerate(text.splitlines(), 1):
        if not line.startswith(MARKER):
            continue
        kind, _, rest = line[len(MARKER):].strip().partition(" ")
        rest = rest.strip()
        if kind == "skip":
            skip = rest or "no reason given"
        elif kind == "flags":
            flags += shlex.split(rest)
        elif kind == "arch" and rest.split()[:1] and rest.split()[0].isdigit():
            min_sm = int(rest.split()[0])
        elif kind == "lineinfo-only" and rest:
            lineinfo_only = True
        else:
            raise ValueError(f"{path}:{number}: bad corpus marker '{line.strip()}' "
                             "(want skip REASON, flags FLAGS, arch NN or lineinfo-only REASON)")
    heavy = bool(re.search(r"#\s*include\s*<(cub|cuda)/", text))
    return skip, flags, min_sm, heavy, own_target_only, lineinfo_only


def prebuilt_executable(args, rel, sm, dbg, min_sm, extra):
    """The executable test_suite/CMakeLists.txt built from rel with the flags of
    this corpus variant (nvcc -lineinfo or -G, PTX for compute_<sm>), or None.
    Suite programs are built for their header's arch (80 and 90 as given, else
    75), with -lineinfo (programs/) and, those with fences, atomics or volatile
    accesses, with -G (programs-G/); the memcheck and stream-order programs for
    compute_75 with -lineinfo (and -g, which changes host code only); the CUB
    corpus programs for compute_75 with -lineinfo (corpus/). The PTX an
    executable embeds is nvcc's -ptx output without its comments and
    indentation (the same instructions and directives); the other ~480 outputs
    keep nvcc -ptx's own form. 2026-11-30: 339 of 773 outputs extracted
    (~0.05 s of CPU each, against ~0.6 s for nvcc -ptx); 714 s of CPU in all."""
    if not (args.built_dir and args.tool) or extra:
        return None
    parts = rel[:-3].split("/")
    if parts[:2] == ["test_suite", "programs"] and len(parts) == 4:
        built_sm = min_sm if min_sm in (80, 90) else 75
        folder = "programs" if dbg == "lineinfo" else "programs-G"
        exe = os.path.join(args.built_dir, folder, parts[2], parts[3])
    elif parts[1:2] in (["memcheck"], ["streams"]) and parts[0] == "test_suite" and len(parts) == 4 \
            and dbg == "lineinfo":
        built_sm = min_sm if min_sm in (80, 90) else 75
        exe = os.path.join(args.built_dir, parts[1], parts[2], parts[3])
    elif parts[:2] == ["test_suite", "corpus"] and len(parts) == 3 and dbg == "lineinfo":
        built_sm = 75
        exe = os.path.join(args.built_dir, "corpus", parts[2])
    else:
        return None
    return exe if built_sm == sm and os.path.isfile(exe) else None


def up_to_date(output, cmd):
    """True when output exists, was made by cmd, and no dependency is newer."""
    stamp, deps = output + ".cmd", output + ".d"
    try:
        with open(stamp, encoding="utf-8") as f:
            if json.load(f) != cmd:
                return False
        built = os.path.getmtime(output)
        with open(deps, encoding="utf-8") as f:
            text = f.read().replace("\\\n", " ")
    except (OSError, ValueError):
        return False
    _, _, files = text.partition(":")
    for dep in files.split():
        try:
            if os.path.getmtime(dep) > built:
                return False
        except OSError:
            return False
    return True


def run_timed(cmd):
    """Runs cmd; returns (exit status, output, wall s, CPU s of it and its children)."""
    start = time.monotonic()
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    out = proc.stdout.read().decode("utf-8", "replace")
    proc.stdout.close()
    _, status, usage = os.wait4(proc.pid, 0)
    proc.returncode = os.waitstatus_to_exitcode(status)  # already reaped
    return (proc.returncode, out, time.monotonic() - start,
            usage.ru_utime + usage.ru_stime)


def extract_timed(job, tmp):
    """Writes to tmp the one PTX entry of the executable the build made from the
    job's source with the job's flags (`barracuda-ptx extract`), and a depfile
    naming that executable. Returns run_timed's tuple."""
    exe = job["prebuilt"]
    out_dir = tmp + ".d.extract"
    shutil.rmtree(out_dir, ignore_errors=True)
    os.makedirs(out_dir)
    full = job["cmd"] + ["-o", out_dir]
    rc, log, wall, cpu = run_timed(full)
    if rc == 0:
        want = f".sm_{job['sm']}.ptx"
        # The program's own entry; an -rdc program also carries the device
        # runtime's PTX (libcudadevrt, another target), which is not its code.
        ptx = sorted(f for f in os.listdir(out_dir) if f.endswith(want))
        if len(ptx) != 1:
            rc, log = 1, f"{log}expected one PTX entry *{want} in {exe}, found {ptx}\n"
        else:
            os.replace(os.path.join(out_dir, ptx[0]), tmp)
            with open(job["output"] + ".d", "w", encoding="utf-8") as f:
                f.write(f"{job['output']}: {exe}\n")
    shutil.rmtree(out_dir, ignore_errors=True)
    return rc, f"$ {shlex.join(full)}\n{log}", wall, cpu


def run_job(job):
    """Runs one nvcc (or extract) job unless up to date; writes the output
    atomically. Returns (job, status, log, wall s, CPU s)."""
    output, cmd = job["output"], job["cmd"]
    if up_to_date(output, cmd):
        return job, "up-to-date", "", 0.0, 0.0
    os.makedirs(os.path.dirname(output), exist_ok=True)
    tmp = output + ".tmp"
    if job.get("prebuilt"):
        rc, log, wall, cpu = extract_timed(job, tmp)
        full = cmd
    else:
        full = cmd + ["-o", tmp, "-MD", "-MF", output + ".d"]
        rc, log, wall, cpu = run_timed(full)
    if rc != 0:
        for stale in (tmp, output, output + ".cmd"):
            if os.path.exists(stale):
                os.remove(stale)
        return job, "failed", f"$ {shlex.join(full)}\n(exit status {rc})\n{log}", wall, cpu
    os.replace(tmp, output)
    with open(output + ".cmd", "w", encoding="utf-8") as f:
        json.dump(cmd, f)
    return job, "built", log, wall, cpu


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--source-dir", required=True)
    ap.add_argument("--out-dir", required=True)
    ap.add_argument("--nvcc", default="nvcc")
    ap.add_argument("--exe-source", required=True,
                    help="the CUB program built three times (relative to --source-dir)")
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 2)
    ap.add_argument("--built-dir",
                    help="the build's test_suite/ folder: the PTX of a suite or CUB corpus "
                         "program the build already compiled with the same flags is "
                         "extracted from its executable instead of compiled again "
                         "(needs --tool)")
    ap.add_argument("--tool", help="barracuda-ptx, for --built-dir")
    args = ap.parse_args()

    if shutil.which(args.nvcc) is None:
        print(f"corpus: nvcc '{args.nvcc}' not found (the CUDA 13 toolkit must be installed)",
              file=sys.stderr)
        return 2
    root = os.path.realpath(args.source_dir)
    out = os.path.realpath(args.out_dir)
    exe_source = os.path.join(root, args.exe_source)
    if not os.path.isfile(exe_source):
        print(f"corpus: --exe-source {exe_source} does not exist", file=sys.stderr)
        return 2

    jobs, skipped = [], []
    for src in find_sources(root, out):
        rel = os.path.relpath(src, root)
        try:
            skip, extra, min_sm, heavy, own_target_only, lineinfo_only = read_markers(src)
        except ValueError as e:
            print(f"corpus: {e}", file=sys.stderr)
            return 2
        if skip:
            skipped.append(f"{rel} ({skip})")
            continue
        if min_sm > max(sm for sm, _ in VARIANTS):
            skipped.append(f"{rel} (needs sm_{min_sm})")
            continue
        own_sm = min(sm for sm, _ in VARIANTS if sm >= min_sm)
        for sm, dbg in VARIANTS:
            if sm < min_sm or (own_target_only and sm != own_sm) or (lineinfo_only and dbg == "G"):
                continue
            # -G only for the source's own (lowest) target; see the docstring.
            if dbg == "G" and sm != own_sm:
                continue
            job = {
                "kind": "ptx", "source": rel, "group": f"sm{sm}-{dbg}", "sm": sm,
                "heavy": heavy,
                "output": os.path.join(out, "ptx", rel[:-3], f"sm{sm}-{dbg}.ptx"),
                "cmd": [args.nvcc, "-ptx", f"-arch=compute_{sm}", f"-{dbg}", "-I", root]
                       + extra + [src],
            }
            exe = prebuilt_executable(args, rel, sm, dbg, min_sm, extra)
            if exe:
                job["prebuilt"] = exe
                job["cmd"] = [args.tool, "extract", exe]
            elif own_target_only and dbg == "G" and args.built_dir and args.tool:
                continue  # the build makes no -G twin of it: see the docstring
            jobs.append(job)
    exe_name = os.path.splitext(os.path.basename(exe_source))[0]
    for mode, flags in EXE_MODES.items():
        jobs.append({
            "kind": "exe", "source": os.path.relpath(exe_source, root), "mode": mode,
            "output": os.path.join(out, "exe", f"{exe_name}-{mode}"),
            "cmd": [args.nvcc] + EXE_FLAGS + flags + [exe_source],
        })
    # Longest jobs first (executables, then CUB / libcu++ users) so that the
    # pool does not end on one long job.
    jobs.sort(key=lambda j: 0 if j["kind"] == "exe" else 1 if j["heavy"] else 2)

    start = time.monotonic()
    built = fresh = 0
    cpu_total = 0.0
    failures, costs = [], []
    with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
        for job, status, log, wall, cpu in pool.map(run_job, jobs):
            rel_out = os.path.relpath(job["output"], out)
            cpu_total += cpu
            if status == "failed":
                failures.append(log)
                print(f"corpus: FAILED {rel_out}", file=sys.stderr)
            elif status == "built":
                built += 1
                costs.append((cpu, wall, rel_out))
            else:
                fresh += 1

    manifest = {
        "source_dir": root,
        "ptx": [{k: j[k] for k in ("source", "group", "sm", "output")}
                for j in jobs if j["kind"] == "ptx"],
        "executables": [{k: j[k] for k in ("source", "mode", "output")}
                        for j in jobs if j["kind"] == "exe"],
        "skipped": skipped,
    }
    with open(os.path.join(out, "manifest.json"), "w", encoding="utf-8") as f:
        json.dump(manifest, f, indent=1)
    sources = len({j["source"] for j in jobs if j["kind"] == "ptx"})
    ptx_bytes = sum(os.path.getsize(j["output"]) for j in jobs
                    if j["kind"] == "ptx" and os.path.exists(j["output"]))
    print(f"corpus: {sources} sources, {len(jobs)} outputs ({ptx_bytes / 1e6:.1f} MB of PTX): "
          f"{built} built, {fresh} up to date, {len(failures)} failed; "
          f"{time.monotonic() - start:.1f} s wall, {cpu_total:.1f} s CPU, {args.jobs} jobs")
    for cpu, wall, rel_out in sorted(costs, reverse=True)[:10]:
        print(f"corpus:   slowest: {rel_out}: {cpu:.1f} s CPU, {wall:.1f} s wall")
    for s in skipped:
        print(f"corpus: skipped {s}")
    if failures:
        print("\n".join(failures), file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
