// A host program with no CUDA call of its own: its kernels are in
// libptx_library.so (tests/ptx_library.cu), which imports the CUDA runtime.
#include <cstdio>

extern "C" int run_ptx_library();

int main() {
  const int rc = run_ptx_library();
  std::printf("library: %s\n", rc == 0 ? "done" : "failed");
  return rc;
}
