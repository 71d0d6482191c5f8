#!/usr/bin/env python3
"""The Rodinia 3.1 template (host_detector/regress/manifests/rodinia) on a
Rodinia-shaped tree of our own (the project does not ship Rodinia): Makefiles
of 2015 style (common/make.config's $(CUDA_DIR)/bin/nvcc with -arch=sm_13; a
bare `nvcc -gencode ...sm_20` one level down; one that does not compile),
sources using what CUDA 13 removed (cudaThreadSynchronize, cudaThreadExit, a
1-D texture reference with cudaBindTexture/tex1Dfetch). build_rodinia.sh must
build the two good ones with shared cudart and embedded PTX and report the
broken one; barracuda-regress must run them: the texture program computes the
right result with no race, the racy one shows its race. The shipped
rodinia.toml must load."""
import json
import pathlib
import shutil
import subprocess
import sys
import unittest

import regress_testlib

ARGS = None
HERE = pathlib.Path(__file__).resolve().parent
TEMPLATE = HERE.parent / 'manifests' / 'rodinia'

LEGACY = r'''#include <cstdio>
texture<float, 1, cudaReadModeElementType> t_in;
__global__ void Fetch(float* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = tex1Dfetch(t_in, i) * 2.0f;
}
int main() {
  const int n = 256;
  float h[n], *d_in, *d_out;
  for (int i = 0; i < n; ++i) h[i] = i;
  cudaMalloc(&d_in, n * sizeof(float));
  cudaMalloc(&d_out, n * sizeof(float));
  cudaMemcpy(d_in, h, sizeof(h), cudaMemcpyHostToDevice);
  cudaChannelFormatDesc desc = cudaCreateChannelDesc<float>();
  t_in.filterMode = cudaFilterModePoint;
  t_in.normalized = false;
  t_in.channelDesc = desc;
  size_t offset;
  cudaBindTexture(&offset, t_in, d_in, desc, n * sizeof(float));
  Fetch<<<2, 128>>>(d_out, n);
  cudaThreadSynchronize();
  cudaUnbindTexture(t_in);
  cudaMemcpy(h, d_out, sizeof(h), cudaMemcpyDeviceToHost);
  bool ok = offset == 0;
  for (int i = 0; i < n; ++i) ok &= h[i] == 2.0f * i;
  std::printf("texture fetch %s\n", ok ? "PASS" : "FAIL");
  cudaThreadExit();
  return ok ? 0 : 1;
}
'''

RACY = r'''#include <cstdio>
__global__ void Shift(int* out) {
  __shared__ int s[128];
  s[threadIdx.x] = threadIdx.x;
  out[threadIdx.x] = s[(threadIdx.x + 1) % 128];
}
int main() {
  int* d;
  cudaMalloc(&d, 128 * sizeof(int));
  Shift<<<1, 128>>>(d);
  cudaThreadSynchronize();
  std::printf("done\n");
  return 0;
}
'''


class RodiniaTemplate(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        tree = cls.tree = pathlib.Path(ARGS.work) / 'rodinia_3.1'
        shutil.rmtree(tree.parent, ignore_errors=True)
        (tree / 'common').mkdir(parents=True)
        (tree / 'common' / 'make.config').write_text('CUDA_DIR = /usr/local/cuda\nCUDA_LIB_DIR := $(CUDA_DIR)/lib64\n')
        legacy = tree / 'cuda' / 'legacy'
        legacy.mkdir(parents=True)
        (legacy / 'legacy.cu').write_text(LEGACY)
        (legacy / 'Makefile').write_text('include ../../common/make.config\nCC := $(CUDA_DIR)/bin/nvcc\n'
                                         'legacy: legacy.cu\n\t$(CC) -arch=sm_13 -O2 legacy.cu -o legacy\n')
        racy = tree / 'cuda' / 'nested' / 'racy'
        racy.mkdir(parents=True)
        (racy / 'racy.cu').write_text(RACY)
        (racy / 'Makefile').write_text('racy: racy.cu\n\tnvcc -gencode arch=compute_20,code=sm_20 racy.cu -o racy\n')
        broken = tree / 'cuda' / 'broken'
        broken.mkdir(parents=True)
        (broken / 'Makefile').write_text('broken:\n\techo "no such file: broken.cu" >&2; exit 1\n')
        cls.build = subprocess.run(['bash', str(TEMPLATE / 'build_rodinia.sh'), str(tree)], capture_output=True,
                                   text=True, timeout=600)

    def test_build(self):
        err = self.build.stderr
        self.assertEqual(self.build.returncode, 1, err)  # the broken one
        self.assertRegex(err, r'build_rodinia: legacy +ok')
        self.assertRegex(err, r'build_rodinia: nested/racy +ok')
        self.assertRegex(err, r'build_rodinia: broken +FAILED')
        self.assertIn('no such file: broken.cu', err)
        self.assertIn('2 built, 1 failed: broken', err)
        for exe in (self.tree / 'cuda/legacy/legacy', self.tree / 'cuda/nested/racy/racy'):
            dyn = subprocess.run(['readelf', '-d', str(exe)], capture_output=True, text=True).stdout
            self.assertIn('libcudart.so.13', dyn, f'{exe}: not linked with the shared CUDA runtime')

    def test_regress_runs_them(self):
        manifest = self.tree.parent / 'fake_rodinia.toml'
        manifest.write_text('[defaults]\ntimeout = 120\n\n'
                            '[[program]]\nname = "legacy"\ncommand = "${rodinia}/cuda/legacy/legacy"\n'
                            'expect = "clean"\n\n'
                            '[[program]]\nname = "racy"\ncommand = "${rodinia}/cuda/nested/racy/racy"\n'
                            'expect = "races"\n')
        out = self.tree.parent / 'out'
        p = subprocess.run([sys.executable, ARGS.regress, str(manifest), '-D', f'rodinia={self.tree}', '-q',
                            '--barracuda', ARGS.barracuda, '-o', str(out)], capture_output=True, text=True,
                           timeout=600)
        self.assertEqual(p.returncode, 0, p.stderr + (out / 'summary.md').read_text())
        self.assertIn('texture fetch PASS', (out / 'legacy.log').read_text())
        self.assertNotIn('not supported by the emulator', (out / 'legacy.log').read_text())
        racy = json.loads((out / 'racy.json').read_text())
        self.assertEqual(len(racy['races']), 1)
        self.assertEqual(racy['races'][0]['space'], 'shared')

    def test_shipped_manifest_loads(self):
        programs = regress_testlib.load_regress(ARGS.regress).load_manifest(TEMPLATE / 'rodinia.toml', {'rodinia': '/opt/rodinia_3.1'})
        self.assertGreaterEqual(len(programs), 20)
        for prog in programs:
            self.assertTrue(prog.command.startswith('/opt/rodinia_3.1/cuda/'), prog.command)
            self.assertTrue(prog.cwd.startswith('/opt/rodinia_3.1/cuda/'), prog.cwd)


if __name__ == '__main__':
    regress_testlib.main(sys.modules[__name__], ['regress', 'barracuda', 'work'])
