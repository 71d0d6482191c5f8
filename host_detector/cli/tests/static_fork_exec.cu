// A -cudart static program that runs a shell (system) and fork+execs itself:
// the children inherit the preloaded static_cudart library; the shell (no
// CUDA, stripped) must be left alone, the re-executed program taken over again.
#include <cstdio>
#include <cstdlib>
#include <unistd.h>
#include <sys/wait.h>
__global__ void k(int* p) { p[threadIdx.x] = 1; }
int main(int argc, char** argv) {
  if (argc > 1) { int* d; cudaMalloc(&d, 128); k<<<1, 32>>>(d); printf("child: %s\n", cudaGetErrorString(cudaDeviceSynchronize())); return 0; }
  int rc = system("echo shell-ok");
  pid_t p = fork();
  if (p == 0) { execl(argv[0], argv[0], "child", (char*)0); _exit(127); }
  int st; waitpid(p, &st, 0);
  printf("parent: rc=%d child=%d\n", rc, WEXITSTATUS(st));
}
