// Runtime program (b), translation unit 1 of 2: a __device__ function and a
// __device__ variable used by a kernel in rdc_main.cu (built with -rdc=true).
__device__ int rdc_bias = 100;

__device__ int rdc_transform(int x) { return 3 * x + rdc_bias; }
