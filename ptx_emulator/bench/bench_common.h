// Shared by the emulator benchmark programs: timing with CUDA events and one
// machine-readable result line per program ("BENCH name=... kernel_ms=...").
#pragma once
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

#define BENCH_CHECK(x)                                                                  \
  do {                                                                                  \
    cudaError_t e_ = (x);                                                               \
    if (e_ != cudaSuccess) {                                                            \
      std::fprintf(stderr, "CUDA error %s at %s:%d\n", cudaGetErrorString(e_), __FILE__, __LINE__); \
      std::exit(2);                                                                     \
    }                                                                                   \
  } while (0)

struct EventTimer {
  cudaEvent_t start, stop;
  EventTimer() {
    BENCH_CHECK(cudaEventCreate(&start));
    BENCH_CHECK(cudaEventCreate(&stop));
    BENCH_CHECK(cudaEventRecord(start));
  }
  float StopMs() {
    BENCH_CHECK(cudaEventRecord(stop));
    BENCH_CHECK(cudaEventSynchronize(stop));
    float ms = 0;
    BENCH_CHECK(cudaEventElapsedTime(&ms, start, stop));
    return ms;
  }
};
