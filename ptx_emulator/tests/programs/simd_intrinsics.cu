// Every SIMD video intrinsic of crt/device_functions.h (__vabs2 ... __vsubus4,
// not the __vi* min/max family) on random inputs, against the CPU semantics
// the CUDA Math API documents for each. CUDA 13 compiles some of them to the
// PTX video instructions (__vabsdiffu4 to vabsdiff4, __vsadu4 to
// vabsdiff4.add, __vsadu2 to vabsdiff2.add), the others to plain integer code.
#include <cstdio>
#include <cstdlib>
#include <random>
#include <vector>

#include <cuda_runtime.h>

#define CHECK(call)                                                          \
  do {                                                                       \
    cudaError_t e_ = (call);                                                 \
    if (e_ != cudaSuccess) {                                                 \
      std::printf("CUDA error %s at %s:%d\n", cudaGetErrorString(e_), __FILE__, __LINE__); \
      return 1;                                                              \
    }                                                                        \
  } while (0)

// X(name, arity): the intrinsics, in the order of the results.
#define SIMD_INTRINSICS(X)                                                                                  \
  X(__vabs2, 1) X(__vabs4, 1) X(__vabsdiffs2, 2) X(__vabsdiffs4, 2) X(__vabsdiffu2, 2) X(__vabsdiffu4, 2)    \
  X(__vabsss2, 1) X(__vabsss4, 1) X(__vadd2, 2) X(__vadd4, 2) X(__vaddss2, 2) X(__vaddss4, 2)              \
  X(__vaddus2, 2) X(__vaddus4, 2) X(__vavgs2, 2) X(__vavgs4, 2) X(__vavgu2, 2) X(__vavgu4, 2)              \
  X(__vcmpeq2, 2) X(__vcmpeq4, 2) X(__vcmpges2, 2) X(__vcmpges4, 2) X(__vcmpgeu2, 2) X(__vcmpgeu4, 2)      \
  X(__vcmpgts2, 2) X(__vcmpgts4, 2) X(__vcmpgtu2, 2) X(__vcmpgtu4, 2) X(__vcmples2, 2) X(__vcmples4, 2)    \
  X(__vcmpleu2, 2) X(__vcmpleu4, 2) X(__vcmplts2, 2) X(__vcmplts4, 2) X(__vcmpltu2, 2) X(__vcmpltu4, 2)    \
  X(__vcmpne2, 2) X(__vcmpne4, 2) X(__vhaddu2, 2) X(__vhaddu4, 2) X(__vmaxs2, 2) X(__vmaxs4, 2)            \
  X(__vmaxu2, 2) X(__vmaxu4, 2) X(__vmins2, 2) X(__vmins4, 2) X(__vminu2, 2) X(__vminu4, 2)                \
  X(__vneg2, 1) X(__vneg4, 1) X(__vnegss2, 1) X(__vnegss4, 1) X(__vsads2, 2) X(__vsads4, 2)                \
  X(__vsadu2, 2) X(__vsadu4, 2) X(__vseteq2, 2) X(__vseteq4, 2) X(__vsetges2, 2) X(__vsetges4, 2)          \
  X(__vsetgeu2, 2) X(__vsetgeu4, 2) X(__vsetgts2, 2) X(__vsetgts4, 2) X(__vsetgtu2, 2) X(__vsetgtu4, 2)    \
  X(__vsetles2, 2) X(__vsetles4, 2) X(__vsetleu2, 2) X(__vsetleu4, 2) X(__vsetlts2, 2) X(__vsetlts4, 2)    \
  X(__vsetltu2, 2) X(__vsetltu4, 2) X(__vsetne2, 2) X(__vsetne4, 2) X(__vsub2, 2) X(__vsub4, 2)            \
  X(__vsubss2, 2) X(__vsubss4, 2) X(__vsubus2, 2) X(__vsubus4, 2)

#define COUNT(name, arity) +1
constexpr int kFunctions = 0 SIMD_INTRINSICS(COUNT);
static const char* const kNames[] = {
#define NAME(name, arity) #name,
    SIMD_INTRINSICS(NAME)};

template <int kArity> struct Call;
template <> struct Call<1> { template <class F> __device__ static unsigned Run(F f, unsigned a, unsigned) { return f(a); } };
template <> struct Call<2> { template <class F> __device__ static unsigned Run(F f, unsigned a, unsigned b) { return f(a, b); } };

__global__ void AllIntrinsics(const unsigned* a, const unsigned* b, unsigned* out, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const unsigned x = a[i], y = b[i];
  unsigned* o = out + static_cast<size_t>(i) * kFunctions;
  int k = 0;
#define APPLY(name, arity) o[k++] = Call<arity>::Run([](auto... v) { return name(v...); }, x, y);
  SIMD_INTRINSICS(APPLY)
}

// ------------------------------------------------------------------ CPU side
// Element i of width w (8 or 16), signed or not.
static int El(unsigned v, int w, int i, bool sgn) {
  const unsigned m = (1u << w) - 1, x = (v >> (w * i)) & m;
  return sgn && (x >> (w - 1)) ? static_cast<int>(x) - (1 << w) : static_cast<int>(x);
}
static int Clamp(int v, int lo, int hi) { return v < lo ? lo : v > hi ? hi : v; }
// Per-element op recombined: f(x, y) -> element value (truncated to w bits).
template <class F>
static unsigned PerElem(unsigned a, unsigned b, int w, bool sgn, F f) {
  unsigned r = 0;
  for (int i = 0; i < 32 / w; ++i)
    r |= (static_cast<unsigned>(f(El(a, w, i, sgn), El(b, w, i, sgn))) & ((1u << w) - 1)) << (w * i);
  return r;
}
template <class F>
static unsigned SumElem(unsigned a, unsigned b, int w, bool sgn, F f) {
  unsigned r = 0;
  for (int i = 0; i < 32 / w; ++i) r += static_cast<unsigned>(f(El(a, w, i, sgn), El(b, w, i, sgn)));
  return r;
}

static unsigned Reference(int k, unsigned a, unsigned b) {
  const char* n = kNames[k];
  std::string s(n + 3);  // without "__v"
  const int w = s.back() == '2' ? 16 : 8;
  s.pop_back();
  const int smax = (1 << (w - 1)) - 1, smin = -(1 << (w - 1)), umax = (1 << w) - 1;
  auto abs_ = [](int v) { return v < 0 ? -v : v; };
  if (s == "abs") return PerElem(a, 0, w, true, [&](int x, int) { return abs_(x); });
  if (s == "absss") return PerElem(a, 0, w, true, [&](int x, int) { return Clamp(abs_(x), smin, smax); });
  if (s == "absdiffs") return PerElem(a, b, w, true, [&](int x, int y) { return abs_(x - y); });
  if (s == "absdiffu") return PerElem(a, b, w, false, [&](int x, int y) { return abs_(x - y); });
  if (s == "add") return PerElem(a, b, w, false, [](int x, int y) { return x + y; });
  if (s == "addss") return PerElem(a, b, w, true, [&](int x, int y) { return Clamp(x + y, smin, smax); });
  if (s == "addus") return PerElem(a, b, w, false, [&](int x, int y) { return Clamp(x + y, 0, umax); });
  // Rounded averages: an odd sum rounds up when non-negative, down otherwise
  // (PTX vavrg's rule); the plain halving average truncates.
  if (s == "avgs") return PerElem(a, b, w, true, [](int x, int y) { int t = x + y; return t >= 0 ? (t + 1) >> 1 : t >> 1; });
  if (s == "avgu") return PerElem(a, b, w, false, [](int x, int y) { return (x + y + 1) >> 1; });
  if (s == "haddu") return PerElem(a, b, w, false, [](int x, int y) { return (x + y) >> 1; });
  if (s.rfind("cmp", 0) == 0 || s.rfind("set", 0) == 0) {
    const bool cmp = s[0] == 'c';
    std::string rel = s.substr(3);
    const bool sgn = rel.size() == 3 && rel[2] == 's';
    if (rel.size() == 3) rel.pop_back();
    const int one = cmp ? umax : 1;
    return PerElem(a, b, w, sgn, [&](int x, int y) {
      bool t = rel == "eq" ? x == y : rel == "ne" ? x != y : rel == "lt" ? x < y : rel == "le" ? x <= y
             : rel == "gt" ? x > y : x >= y;
      return t ? one : 0;
    });
  }
  if (s == "maxs" || s == "maxu") return PerElem(a, b, w, s[3] == 's', [](int x, int y) { return x > y ? x : y; });
  if (s == "mins" || s == "minu") return PerElem(a, b, w, s[3] == 's', [](int x, int y) { return x < y ? x : y; });
  if (s == "neg") return PerElem(a, 0, w, true, [](int x, int) { return -x; });
  if (s == "negss") return PerElem(a, 0, w, true, [&](int x, int) { return Clamp(-x, smin, smax); });
  if (s == "sads") return SumElem(a, b, w, true, [&](int x, int y) { return abs_(x - y); });
  if (s == "sadu") return SumElem(a, b, w, false, [&](int x, int y) { return abs_(x - y); });
  if (s == "sub") return PerElem(a, b, w, false, [](int x, int y) { return x - y; });
  if (s == "subss") return PerElem(a, b, w, true, [&](int x, int y) { return Clamp(x - y, smin, smax); });
  if (s == "subus") return PerElem(a, b, w, false, [&](int x, int y) { return Clamp(x - y, 0, umax); });
  std::printf("FAIL: no reference for %s\n", n);
  std::exit(1);
}

int main() {
  const int n = 4096;
  std::mt19937 rng(7);
  std::vector<unsigned> a(n), b(n);
  static const unsigned kBytes[] = {0x00, 0x01, 0x7f, 0x80, 0x81, 0xff, 0xfe};
  for (int i = 0; i < n; ++i) {
    for (unsigned* v : {&a[i], &b[i]}) {
      *v = 0;
      for (int k = 0; k < 4; ++k) *v |= (rng() % 3 ? rng() & 0xff : kBytes[rng() % 7]) << (8 * k);
    }
    if (i % 5 == 0) b[i] = a[i];  // equal operands for the compares
  }
  unsigned *da, *db, *dout;
  CHECK(cudaMalloc(&da, n * 4));
  CHECK(cudaMalloc(&db, n * 4));
  CHECK(cudaMalloc(&dout, static_cast<size_t>(n) * kFunctions * 4));
  CHECK(cudaMemcpy(da, a.data(), n * 4, cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(db, b.data(), n * 4, cudaMemcpyHostToDevice));
  AllIntrinsics<<<n / 128, 128>>>(da, db, dout, n);
  CHECK(cudaGetLastError());
  std::vector<unsigned> out(static_cast<size_t>(n) * kFunctions);
  CHECK(cudaMemcpy(out.data(), dout, out.size() * 4, cudaMemcpyDeviceToHost));
  int failures = 0;
  for (int k = 0; k < kFunctions; ++k) {
    int bad = 0;
    for (int i = 0; i < n; ++i) {
      const unsigned want = Reference(k, a[i], b[i]), got = out[static_cast<size_t>(i) * kFunctions + k];
      if (got != want && bad++ < 3)
        std::printf("FAIL: %s(0x%08x, 0x%08x) = 0x%08x, expected 0x%08x\n", kNames[k], a[i], b[i], got, want);
    }
    failures += bad != 0;
  }
  std::printf("%d SIMD intrinsics checked on %d inputs: %s\n", kFunctions, n, failures ? "FAIL" : "PASS");
  return failures != 0;
}
