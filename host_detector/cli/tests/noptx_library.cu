// A shared library that ships GPU machine code only (code=sm_75, no PTX), as
// closed libraries such as cuBLAS do for many kernels (cli.cmake builds it
// into libnoptx_library.so for uses_noptx_library.cu).
__global__ void library_kernel(int* p) { p[threadIdx.x] += 1; }

void run_library_kernel(int* d) { library_kernel<<<1, 32>>>(d); }
