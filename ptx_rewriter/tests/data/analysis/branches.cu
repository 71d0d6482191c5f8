// Branch shapes for the CFG / reconvergence tests.
__global__ void if_then(int* a, int n) {
  int i = threadIdx.x;
  if (i < n) {
    a[i] = 1;
  }
  a[i + 32] = 2;
}

__global__ void if_then_else(int* a, int n) {
  int i = threadIdx.x;
  if (i < n) {
    a[i] = 1;
  } else {
    a[i] = 2;
  }
  a[i + 32] = 3;
}

__global__ void loop_break_continue(int* a, int n) {
  int i = threadIdx.x;
  for (int k = 0; k < n; ++k) {
    if (a[k] == i) break;
    if (a[k] > 100) continue;
    a[k + 64] += 1;
  }
  a[i] = 0;
}

__global__ void early_return(int* a, int n) {
  int i = threadIdx.x;
  for (int k = 0; k < n; ++k) {
    if (a[k] < 0) return;
    a[k] += i;
  }
  a[i] = 7;
}

__global__ void forever(volatile int* a) {
  int i = threadIdx.x;
  while (true) {
    if (a[i] & 1) a[i] += 3;
    else a[i] -= 1;
  }
}
