// Shared by the texture, surface and array test programs (texture_2d.cu,
// texture_linear.cu, surface_rw.cu, array_copies.cu): call checks, expected
// errors and the PASS / FAIL line ctest matches.
#ifndef BARRACUDA_PTX_EMULATOR_TESTS_PROGRAMS_TEXTURE_PROGRAMS_H_
#define BARRACUDA_PTX_EMULATOR_TESTS_PROGRAMS_TEXTURE_PROGRAMS_H_

#include <cstdio>

#include <cuda_runtime.h>

#define CHECK(call)                                                                        \
  do {                                                                                     \
    cudaError_t e_ = (call);                                                               \
    if (e_ != cudaSuccess) {                                                               \
      std::printf("FAIL: %s: %s (line %d)\n", #call, cudaGetErrorString(e_), __LINE__);   \
      return 1;                                                                            \
    }                                                                                      \
  } while (0)

// A call that must fail with `want`; the error is not left as the last one.
inline void ExpectError(cudaError_t got, cudaError_t want, int& failures) {
  if (got != want) {
    std::printf("expected %s, got %s\n", cudaGetErrorName(want), cudaGetErrorName(got));
    ++failures;
  }
  cudaGetLastError();
}

// main's result: 1 and FAIL after failures, else 0 and PASS.
inline int Finish(int failures, const char* what = "") {
  if (failures) {
    std::printf("FAIL: %d checks\n", failures);
    return 1;
  }
  std::printf("PASS%s\n", what);
  return 0;
}

#endif  // BARRACUDA_PTX_EMULATOR_TESTS_PROGRAMS_TEXTURE_PROGRAMS_H_
