// Kernels of the driver-API program (driver_ptx.cpp), compiled to PTX text
// at build time (nvcc -ptx -lineinfo) and loaded with cuModuleLoadData.
extern "C" __device__ int launches_seen;

__device__ int launches_seen = 0;

// out[i] = a * in[i] + bias[i % 4]; thread 0 counts the launch.
extern "C" __global__ void scale_add(float* out, const float* in, float a, const float4 bias, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i == 0) atomicAdd(&launches_seen, 1);
  if (i >= n) return;
  const float b[4] = {bias.x, bias.y, bias.z, bias.w};
  out[i] = a * in[i] + b[i % 4];
}

// Block-wide sum through shared memory (barriers in place: no race).
extern "C" __global__ void block_sum(const int* in, int* out) {
  __shared__ int partial[128];
  partial[threadIdx.x] = in[blockIdx.x * blockDim.x + threadIdx.x];
  __syncthreads();
  for (unsigned s = blockDim.x / 2; s > 0; s /= 2) {
    if (threadIdx.x < s) partial[threadIdx.x] += partial[threadIdx.x + s];
    __syncthreads();
  }
  if (threadIdx.x == 0) out[blockIdx.x] = partial[0];
}
