#!/usr/bin/env python3
"""The emulator's PTX instruction coverage table (ptx_emulator/README.md,
between the `coverage:begin` / `coverage:end` markers).

Every opcode of PTX ISA 9.0 as ptx_rewriter/opcodes.h lists it; an opcode is
"implemented" when an emulator selector (ops/, exec/) names it, with the
forms it still refuses in NOTES. Usage:

  ptx_coverage.py            rewrite the table in the README
  ptx_coverage.py --check    exit 1 when the README's table is stale (CI)
"""
import argparse
import pathlib
import re
import sys

HERE = pathlib.Path(__file__).resolve().parent
ROOT = HERE.parent
README = HERE / 'README.md'

# Forms of implemented opcodes that the emulator refuses (an Unimplemented
# error naming the form: the launch fails with cudaErrorNotSupported and the
# run is incomplete), and why some opcodes are not implemented at all.
NOTES = {
    'cp': 'cp.async (ca/cg), commit_group, wait_group, wait_all, cp.async.mbarrier.arrive, cp.async.bulk global to shared with mbarrier::complete_tx and shared to global with bulk groups (commit_group, wait_group[.read]), cp.async.bulk.prefetch, cp.async.bulk.tensor 1d-5d tile loads (mbarrier) and stores (bulk_group), 3d-5d im2col loads, multicast (.multicast::cluster) of bulk and TMA loads, cp.reduce.async.bulk and cp.reduce.async.bulk.tensor (tile, bulk_group); not TMA im2col::w/im2col_no_offs/gather4/scatter4',
    'cvt': 'every int/float pair, f16x2/bf16x2/tf32, fp8: .rn.satfinite{.relu}.{e4m3x2,e5m2x2}.{f32,f16x2,bf16x2} and .rn{.relu}.f16x2.{e4m3x2,e5m2x2}; fp6/fp4: .rn.satfinite{.relu}.{e2m3x2,e3m2x2,e2m1x2}.f32 and .rn{.relu}.f16x2.{e2m3x2,e3m2x2,e2m1x2}; scale factors: .{rz,rp}{.satfinite}.ue8m0x2.{f32,bf16x2} and .rn.bf16x2.ue8m0x2 (bit for bit as cuda_fp6/fp4/fp8.hpp host code, runtime/fp_mx_convert); not stochastic rounding (.rs, the x4 forms)',
    'call': 'the CUDA device runtime (libcudadevrt, dynamic parallelism) as builtins: device-side launches (__cudaCDP2GetParameterBufferV2 / LaunchDeviceV2), streams, cudaGetLastError/PeekAtLastError, cudaGetDevice; its other entries (device-side events, async copies, ...) fault when reached (cudaErrorNotSupported, naming the function)',
    'mbarrier': 'all operations, CTA and cluster scope',
    'fence': 'fence.proxy.async orders proxies only (a proxy-fence record); other fence.proxy kinds act as fences',
    'st': 'st.async (cluster shared memory, mbarrier complete_tx) too',
    'atom': 'vector forms of sm_90 (`.v2/.v4.f32` add, `.v2/.v4` f16x2/bf16x2 and `.v2/.v4/.v8` f16/bf16 add/min/max; CUDA\'s `atomicAdd(float4*, float4)`): each element its own atomic',
    'red': 'red.async (cluster shared memory, mbarrier complete_tx) and the vector forms (as `atom`) too',
    'wmma': 'f16/bf16/tf32/s8/u8/f64 shapes; not .s4/.u4/.b1',
    'mma': 'm8n8k4, m16n8k8, m16n8k16, m16n8k4, m16n8k32, m8n8k16 (f16, bf16, tf32, s8/u8, f64, e4m3/e5m2 with f32 or f16 accumulators); not mma.sp, fp6/fp4, .kind, block scale',
    'ldmatrix': 'm8n8 .x1/.x2/.x4 [.trans] .b16; not .m16n16/.m8n16/.b8',
    'stmatrix': 'm8n8 .x1/.x2/.x4 [.trans] .b16; not .m16n8',
    'griddepcontrol': 'launches on a stream run in order; `.wait` logs `kGridDepWait` for the stream-order check (programmatic dependent launch)',
    'setmaxnreg': 'no-op',
    'createpolicy': 'the policy is 0 (cache hints are ignored)',
    'prefetch': 'no-op', 'prefetchu': 'no-op', 'applypriority': 'no-op', 'discard': 'no-op',
    'wgmma': 'fence, commit_group, wait_group; mma_async m64nNk16 .f32.f16.f16 / .f32.bf16.bf16 (A in registers or shared memory, trans, scale), m64nNk8 .f32.tf32.tf32, m64nNk32 .s32.{s8,u8}.{s8,u8}{.satfinite}, m64nNk32 .{f32,f16}.{e4m3,e5m2}.{e4m3,e5m2}, .f16 accumulators for f16, every swizzle mode; not .b1, wgmma.mma_async.sp, descriptor base offsets',
    'tcgen05': 'not implemented (sm_100a)',
    'tensormap': 'not implemented (tensormap.replace; maps come from cuTensorMapEncodeTiled / cuTensorMapEncodeIm2col)',
    'tex': 'texture objects: .1d/.2d/.3d/.a1d/.a2d .v4.{f32,s32,u32}.{f32,s32}, .level and .grad (level 0); point and linear filtering (1.8 fixed-point weights), wrap/clamp/mirror/border, normalized coordinates; not .cube/.acube/.2dms, depth compare, texture references',
    'tld4': '.{r,g,b,a}.2d.v4.{f32,s32,u32}.f32 on texture objects',
    'txq': 'width, height, depth, array_size, normalized_coords, filter_mode, num_mipmap_levels (0)',
    'suld': '.b.{1d,2d,3d,a1d,a2d}[.v2,.v4].{b8,b16,b32,b64}.{trap,clamp,zero} on surface objects; not .p (formatted)',
    'sust': '.b forms as suld; not .p (formatted)',
    'suq': 'width, height, depth, array_size',
    'sured': 'not implemented (surfaces)', 'istypep': 'not implemented (texture/surface types)',
    'multimem': 'not implemented (NVLink multicast memory)',
    'clusterlaunchcontrol': 'not implemented (sm_100)',
    'vabsdiff': 'u32/s32 types, .b/.h selectors, .sat, .add/.min/.max or a d.b/d.h merge',
    'vadd': 'as vabsdiff', 'vsub': 'as vabsdiff', 'vmin': 'as vabsdiff', 'vmax': 'as vabsdiff',
    'vshl': '.clamp/.wrap, otherwise as vabsdiff', 'vshr': '.clamp/.wrap, otherwise as vabsdiff',
    'vmad': '-a/-b/-c, .po, .shr7/.shr15, .sat, .b/.h selectors',
    'vset': 'every compare; .add/.min/.max or a merge',
    'vabsdiff2': '.hxy selectors, .h0/.h1/.h10 masks, .sat, .add accumulate',
    'vabsdiff4': '.bxyzw selectors, byte masks, .sat, .add accumulate',
    'alloca': 'per-lane dynamic stack in the thread\'s local window above the frame (cudaLimitStackSize: stack overflow fault past it), freed at return', 'stacksave': 'with alloca', 'stackrestore': 'with alloca; a value outside the frame\'s stack faults',
}


def opcodes():
    text = (ROOT / 'ptx_rewriter' / 'opcodes.h').read_text()
    return re.findall(r'X\((\w+), "([^"]+)"\)', text)


def implemented():
    names = set()
    for folder in ('ops', 'exec'):
        for f in (HERE / folder).glob('*.cpp'):
            names.update(re.findall(r'Opcode::k(\w+)', f.read_text()))
    return names


def table():
    ops = opcodes()
    done = implemented()
    rows, count = [], 0
    for enum, spelling in ops:
        ok = enum in done
        count += ok
        note = NOTES.get(spelling, '')
        rows.append(f'| `{spelling}` | {"yes" if ok else "no"} | {note} |')
    head = [f'{count} of {len(ops)} PTX ISA 9.0 opcodes implemented (generated by `ptx_coverage.py`; '
            '`ctest -R ptx_coverage` checks it is current).', '', '| opcode | implemented | forms / notes |',
            '|---|---|---|']
    return '\n'.join(head + rows) + '\n'


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument('--check', action='store_true')
    args = ap.parse_args()
    text = README.read_text()
    begin, end = '<!-- coverage:begin -->\n', '<!-- coverage:end -->'
    if begin not in text or end not in text:
        sys.exit(f'{README}: no coverage markers')
    i, j = text.index(begin) + len(begin), text.index(end)
    new = text[:i] + table() + text[j:]
    if args.check:
        if new != text:
            sys.exit('ptx_emulator/README.md: the coverage table is stale; run ptx_emulator/ptx_coverage.py')
        return
    README.write_text(new)


if __name__ == '__main__':
    main()
