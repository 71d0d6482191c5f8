// A dense switch: nvcc lowers it to brx.idx with a .branchtargets table.
__global__ void dispatch(int* a, int op) {
  int i = threadIdx.x;
  int sel = a[i] & 7;
  switch (sel) {
    case 0: a[i] += 11; break;
    case 1: a[i] *= 13; break;
    case 2: a[i] -= 17; break;
    case 3: a[i] ^= 19; break;
    case 4: a[i] |= 23; break;
    case 5: a[i] = a[i] / 29; break;
    case 6: a[i] = a[i] % 31; break;
    default: a[i] = 37; break;
  }
  a[i + 64] = op;
}
