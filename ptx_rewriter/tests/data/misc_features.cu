#include <cstdio>
#include <cuda_fp16.h>
struct S { int a; double b; char c[3]; };
__device__ S sarr[2] = {{1, 2.0, {1,2,3}}, {4, 5.0, {6,7,8}}};
__device__ const char* names[] = {"a", "bb", "ccc"};
__device__ int (*fps[3])(int);
__device__ __noinline__ int fa(int x){ return x*3; }
__device__ __noinline__ int fb(int x){ return x^7; }
__device__ __noinline__ int fc(int x){ return x-1; }
__device__ int fib(int n){ return n < 2 ? n : fib(n-1) + fib(n-2); }
__device__ __noinline__ S mk(int x){ S s; s.a=x; s.b=x*0.5; s.c[0]=x; return s; }
__global__ void __launch_bounds__(256, 2) sw(int* out, int sel, half* h, double* dd) {
  int t = threadIdx.x + blockIdx.x * blockDim.x;
  int r;
  switch (sel + t % 9) {
    case 0: r = 3; break; case 1: r = out[1] * 7; break; case 2: r = fa(t); break; case 3: r = 11; break;
    case 4: r = out[5] - 2; break; case 5: r = fb(t); break; case 6: r = 99; break; case 7: r = fc(t); break;
    case 8: r = out[t] << 3; break;
    default: r = -1;
  }
  fps[0] = fa; fps[1] = fb; fps[2] = fc;
  r += fps[t % 3](r);
  r += fib(sel);
  S s = mk(r);
  out[t] = r + s.a + (int)s.b + s.c[0] + sarr[t&1].a;
  printf("t=%d r=%d %s %f\n", t, r, names[t%3], s.b);
  h[t] = __hadd(h[t], __float2half(1.5f));
  half2 h2 = __halves2half2(h[0], h[1]); h2 = __hmul2(h2, h2); h[2] = __low2half(h2);
  dd[t] = fma(dd[t], 2.0, 1.0) / dd[1] + sqrt(dd[2]) + sin(dd[3]) + exp(dd[4]) + (double)(long long)dd[5];
  extern __shared__ float4 dyn[];
  dyn[threadIdx.x] = make_float4(1,2,3,4);
  __syncthreads();
  float4 v = dyn[(threadIdx.x+1)%blockDim.x];
  out[t] += (int)(v.x + v.w);
  unsigned lo, hi; asm volatile("mov.b64 {%0,%1}, %2;" : "=r"(lo), "=r"(hi) : "l"(dd));
  out[0] += lo + hi;
  if (t == 1234567) __trap();
  if (t == 7654321) asm("exit;");
}
#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ >= 900
__global__ void __cluster_dims__(2,1,1) clu(int* o) { o[threadIdx.x] = 1; }
#endif
