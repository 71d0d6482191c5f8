#!/usr/bin/env python3
"""Writes a copy of a CUDA source with edits unrelated to its races, for the
fingerprint stability test: lines added above (a comment, an include, a helper
function), the grid size changed (kN = 2000 -> 3000) and a function appended.
Every racy statement keeps its text and column; its line moves.
Usage: unrelated_edit.py IN OUT"""
import sys

src, dst = sys.argv[1], sys.argv[2]
text = open(src).read()
if 'constexpr int kN = 2000;' not in text:
    sys.exit(f'{src}: expected "constexpr int kN = 2000;" to change the grid size')
text = text.replace('constexpr int kN = 2000;', 'constexpr int kN = 3000;')
head = ('// An unrelated edit: this comment, the include and the helper below.\n'
        '#include <cstdint>\n'
        '__device__ int unrelated_helper(int x) { return x * 3 + 1; }\n')
tail = '\n// Appended, unrelated too.\nstatic int unrelated_host_helper(int x) { return x + 1; }\n'
open(dst, 'w').write(head + text + tail)
