// TMA tensor copies (cp.async.bulk.tensor, tiled mode) end to end: tensor
// maps from the emulator's cuTensorMapEncodeTiled (ops/tensor_map.h),
// hand-written PTX kernels that load a box into shared memory with an
// mbarrier or store one to global memory with a bulk async-group, their
// results against a CPU reference, and the records of traced launches.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "device_logger/protocol.h"
#include "ptx_emulator/core/record_sink.h"
#include "ptx_emulator/ops/tensor_map.h"
#include "ptx_emulator/tests/kernel_runner.h"

namespace barracuda::emu::testing {
namespace {

struct alignas(64) MapParam {
  uint8_t bytes[128] = {};
};

constexpr uint32_t kPoison = 0xddddddddu;

std::string Sub(std::string s, const std::string& from, const std::string& to) {
  for (size_t p = s.find(from); p != std::string::npos; p = s.find(from, p + to.size())) s.replace(p, from.size(), to);
  return s;
}

std::string Coords(uint32_t rank) {
  std::string c;
  for (uint32_t i = 0; i < rank; ++i) c += (i ? ", %c" : "%c") + std::to_string(i);
  return c;
}

const char* kParams =
    ".param .align 64 .b8 k_map[128], .param .s32 k_c0, .param .s32 k_c1, .param .s32 k_c2, .param .s32 k_c3, "
    ".param .s32 k_c4, .param .u64 k_buf, .param .u32 k_tx";

// One thread: poisons the shared box, loads it with TMA (expect_tx k_tx),
// then writes test_wait's answer and the box's words to k_buf.
const char* kLoad = R"(
  .reg .b32 %r<20>;
  .reg .b32 %c<5>;
  .reg .b64 %rd<10>;
  .reg .pred %p<4>;
  .shared .align 1024 .b8 tile[ALLOC];
  .shared .align 8 .b64 bar;
  mov.u64 %rd1, k_map;
  cvta.param.u64 %rd2, %rd1;
  ld.param.s32 %c0, [k_c0];
  ld.param.s32 %c1, [k_c1];
  ld.param.s32 %c2, [k_c2];
  ld.param.s32 %c3, [k_c3];
  ld.param.s32 %c4, [k_c4];
  ld.param.u64 %rd3, [k_buf];
  ld.param.u32 %r9, [k_tx];
  mov.u32 %r4, tile;
  add.u32 %r4, %r4, DSTOFF;
  mov.u32 %r5, bar;
  mov.u32 %r6, 0;
  mov.u32 %r7, 0xdddddddd;
$L_poison:
  add.u32 %r8, %r4, %r6;
  st.shared.u32 [%r8], %r7;
  add.u32 %r6, %r6, 4;
  setp.lt.u32 %p1, %r6, BYTES;
  @%p1 bra $L_poison;
  mbarrier.init.shared::cta.b64 [bar], 1;
  fence.proxy.async.shared::cta;
  mbarrier.arrive.expect_tx.shared::cta.b64 %rd4, [bar], %r9;
  cp.async.bulk.tensor.RANKd.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%r4], [%rd2, {COORDS}], [%r5];
  mbarrier.test_wait.parity.shared::cta.b64 %p2, [bar], 0;
  selp.u32 %r10, 1, 0, %p2;
  st.global.u32 [%rd3], %r10;
  @!%p2 bra $L_end;
  mov.u32 %r6, 0;
$L_out:
  add.u32 %r8, %r4, %r6;
  ld.shared.u32 %r11, [%r8];
  cvt.u64.u32 %rd5, %r6;
  add.s64 %rd6, %rd3, %rd5;
  st.global.u32 [%rd6+4], %r11;
  add.u32 %r6, %r6, 4;
  setp.lt.u32 %p1, %r6, BYTES;
  @%p1 bra $L_out;
$L_end:
  ret;
)";

// One thread: fills the shared box from k_buf, then stores it with TMA in a
// bulk async-group and waits for its reads.
const char* kStore = R"(
  .reg .b32 %r<20>;
  .reg .b32 %c<5>;
  .reg .b64 %rd<10>;
  .reg .pred %p<4>;
  .shared .align 128 .b8 tile[BYTES];
  mov.u64 %rd1, k_map;
  cvta.param.u64 %rd2, %rd1;
  ld.param.s32 %c0, [k_c0];
  ld.param.s32 %c1, [k_c1];
  ld.param.s32 %c2, [k_c2];
  ld.param.s32 %c3, [k_c3];
  ld.param.s32 %c4, [k_c4];
  ld.param.u64 %rd3, [k_buf];
  mov.u32 %r4, tile;
  mov.u32 %r6, 0;
$L_in:
  cvt.u64.u32 %rd5, %r6;
  add.s64 %rd6, %rd3, %rd5;
  ld.global.u32 %r11, [%rd6];
  add.u32 %r8, %r4, %r6;
  st.shared.u32 [%r8], %r11;
  add.u32 %r6, %r6, 4;
  setp.lt.u32 %p1, %r6, BYTES;
  @%p1 bra $L_in;
  fence.proxy.async.shared::cta;
  cp.async.bulk.tensor.RANKd.global.shared::cta.tile.bulk_group [%rd2, {COORDS}], [%r4];
  cp.async.bulk.commit_group;
  cp.async.bulk.wait_group.read 0;
  ret;
)";

// `dst_offset`: the load's box starts that many bytes into a 1024-byte aligned buffer.
std::string Kernel(const char* body, uint32_t rank, uint32_t bytes, uint32_t dst_offset = 0) {
  std::string s = Sub(body, "RANK", std::to_string(rank));
  s = Sub(s, "DSTOFF", std::to_string(dst_offset));
  s = Sub(s, "ALLOC", std::to_string(bytes + dst_offset));
  s = Sub(s, "COORDS", Coords(rank));
  s = Sub(s, "BYTES", std::to_string(bytes));
  return WrapKernel("k", kParams, s, "sm_90");
}

// A tensor of 32-bit elements (value = its linear index + 1 + 1000 * seed)
// with rows padded to `stride_elems`.
struct Tensor {
  std::vector<uint64_t> dim;
  std::vector<uint64_t> stride_bytes;  // dimensions 1.. (as cuTensorMapEncodeTiled takes them)
  size_t elements = 0;                 // allocation, in 32-bit words
};

Tensor Make(std::vector<uint64_t> dim, uint64_t row_elems) {
  Tensor t;
  t.dim = dim;
  uint64_t s = row_elems * 4;
  for (size_t i = 1; i < dim.size(); ++i) {
    t.stride_bytes.push_back(s);
    s *= dim[i];
  }
  t.elements = s / 4;
  return t;
}

// The arguments both encoders take, for tensor `t` at `base` (`es`: the
// element strides, all 1 when empty; it must outlive `a`).
void Common(tmap::TiledArgs& a, const Tensor& t, void* base, std::vector<uint32_t>& es, uint32_t type) {
  if (es.empty()) es.assign(t.dim.size(), 1);
  a.data_type = type;
  a.rank = static_cast<uint32_t>(t.dim.size());
  a.global_address = base;
  a.global_dim = t.dim.data();
  a.global_strides = t.stride_bytes.data();
  a.element_strides = es.data();
}

MapParam Encode(const Tensor& t, void* base, std::vector<uint32_t> box, std::vector<uint32_t> es = {},
                uint32_t type = tmap::kUint32, uint32_t swizzle = tmap::kSwizzleNone, uint32_t oob = 0) {
  MapParam m;
  tmap::TiledArgs a;
  Common(a, t, base, es, type);
  a.box_dim = box.data();
  a.swizzle = swizzle;
  a.oob_fill = oob;
  const absl::Status s = tmap::EncodeTiled(m.bytes, a);
  INFO(s.message());
  REQUIRE(s.ok());
  return m;
}

// The CPU reference of a load: the box's elements in shared-memory order;
// `fill` for the elements outside the tensor.
std::vector<uint32_t> Reference(const Tensor& t, const std::vector<uint32_t>& data, std::vector<int64_t> c,
                                std::vector<uint32_t> box, std::vector<uint32_t> es, uint32_t fill) {
  const size_t rank = t.dim.size();
  if (es.empty()) es.assign(rank, 1);
  std::vector<uint32_t> n(rank);
  size_t total = 1;
  for (size_t i = 0; i < rank; ++i) total *= n[i] = i == 0 ? box[0] : (box[i] + es[i] - 1) / es[i];
  std::vector<uint32_t> out;
  for (size_t e = 0; e < total; ++e) {
    size_t rest = e;
    bool inside = true;
    uint64_t word = 0;
    for (size_t i = 0; i < rank; ++i) {
      const int64_t k = static_cast<int64_t>(rest % n[i]);
      rest /= n[i];
      const int64_t y = c[i] + k * (i == 0 ? 1 : es[i]);
      if (y < 0 || y >= static_cast<int64_t>(t.dim[i])) inside = false;
      else word += i == 0 ? static_cast<uint64_t>(y) : static_cast<uint64_t>(y) * t.stride_bytes[i - 1] / 4;
    }
    out.push_back(inside ? data[word] : fill);
  }
  return out;
}

std::vector<uint32_t> Iota(size_t n, uint32_t seed = 0) {
  std::vector<uint32_t> v(n);
  for (size_t i = 0; i < n; ++i) v[i] = static_cast<uint32_t>(i + 1 + 1000 * seed);
  return v;
}

struct LoadCase {
  const char* name;
  std::vector<uint64_t> dim;
  uint64_t row_elems;
  std::vector<uint32_t> box;
  std::vector<uint32_t> es;
  std::vector<int64_t> coord;
};

// Runs a load; returns {test_wait, box words...}.
std::vector<uint32_t> RunLoad(const LoadCase& lc, const std::vector<uint32_t>& data, const Tensor& t,
                              uint32_t box_bytes, uint32_t tx, uint32_t oob = 0, CollectingSink* sink = nullptr,
                              absl::Status* status = nullptr) {
  KernelRunner r(Kernel(kLoad, static_cast<uint32_t>(lc.dim.size()), box_bytes));
  auto g = r.Alloc<uint32_t>(t.elements, data);
  auto buf = r.Alloc<uint32_t>(1 + box_bytes / 4);
  const MapParam map = Encode(t, g.device, lc.box, lc.es, tmap::kUint32, tmap::kSwizzleNone, oob);
  int32_t c[5] = {};
  for (size_t i = 0; i < lc.coord.size(); ++i) c[i] = static_cast<int32_t>(lc.coord[i]);
  if (sink) r.device().SetSink(sink);
  const absl::Status s = r.Launch("k", {1, 1, 1}, {1, 1, 1}, map, c[0], c[1], c[2], c[3], c[4], buf.device, tx);
  r.device().SetSink(nullptr);
  if (status) *status = s;
  INFO(s.message());
  if (!status) REQUIRE(s.ok());
  return r.Read(buf);
}

uint32_t BoxBytes(const LoadCase& lc) {
  uint32_t n = lc.box[0] * 4;
  for (size_t i = 1; i < lc.box.size(); ++i) n *= lc.es.empty() ? lc.box[i] : (lc.box[i] + lc.es[i] - 1) / lc.es[i];
  return n;
}

TEST_CASE("TMA load: boxes in bounds, partly out of bounds (zero fill), 1D to 5D, traversal strides",
          "[async][tma]") {
  const std::vector<LoadCase> cases = {
      {"2d in bounds", {40, 20}, 48, {8, 4}, {}, {4, 3}},
      {"2d at the origin", {16, 8}, 16, {16, 8}, {}, {0, 0}},
      {"2d right/bottom edge", {10, 6}, 12, {8, 4}, {}, {5, 4}},
      {"2d negative corner", {10, 6}, 12, {8, 4}, {}, {-3, -2}},
      {"2d unaligned run inside", {40, 20}, 40, {8, 2}, {}, {1, 0}},
      {"2d all outside", {10, 6}, 12, {4, 2}, {}, {20, 0}},
      {"1d in bounds", {100}, 100, {16}, {}, {20}},
      {"1d edge", {37}, 40, {16}, {}, {30}},
      {"3d partly outside", {12, 5, 4}, 12, {4, 4, 2}, {}, {10, 3, 3}},
      {"3d traversal stride", {8, 9, 6}, 8, {4, 6, 4}, {1, 3, 2}, {2, 1, 1}},
      {"4d", {8, 3, 2, 3}, 8, {4, 2, 2, 2}, {}, {4, 2, 1, 2}},
      {"5d", {4, 2, 2, 2, 3}, 4, {4, 2, 1, 2, 2}, {}, {0, 1, 1, 0, 2}},
  };
  for (const LoadCase& lc : cases) {
    INFO(lc.name);
    const Tensor t = Make(lc.dim, lc.row_elems);
    const auto data = Iota(t.elements);
    const uint32_t bytes = BoxBytes(lc);
    const auto got = RunLoad(lc, data, t, bytes, bytes);
    CHECK(got[0] == 1);  // complete_tx counted the whole box, filled elements included
    const auto want = Reference(t, data, lc.coord, lc.box, lc.es, 0);
    CHECK(std::vector<uint32_t>(got.begin() + 1, got.end()) == want);
  }
}

TEST_CASE("TMA load: complete_tx counts exactly the box bytes", "[async][tma]") {
  const LoadCase lc{"2d edge", {10, 6}, 12, {8, 4}, {}, {5, 4}};
  const Tensor t = Make(lc.dim, lc.row_elems);
  const auto data = Iota(t.elements);
  const uint32_t bytes = BoxBytes(lc);
  CHECK(RunLoad(lc, data, t, bytes, bytes + 16)[0] == 0);  // 16 bytes still expected: phase open
}

TEST_CASE("TMA load: the NaN-request fill of a float map fills with NaN", "[async][tma]") {
  const LoadCase lc{"2d edge", {10, 6}, 12, {8, 4}, {}, {5, 4}};
  const Tensor t = Make(lc.dim, lc.row_elems);
  const auto data = Iota(t.elements);
  const uint32_t bytes = BoxBytes(lc);
  KernelRunner r(Kernel(kLoad, 2, bytes));
  auto g = r.Alloc<uint32_t>(t.elements, data);
  auto buf = r.Alloc<uint32_t>(1 + bytes / 4);
  const MapParam map =
      Encode(t, g.device, lc.box, {}, tmap::kFloat32, tmap::kSwizzleNone, tmap::kOobFillNanRequestZeroFma);
  const absl::Status s = r.Launch("k", {1, 1, 1}, {1, 1, 1}, map, 5, 4, 0, 0, 0, buf.device, bytes);
  INFO(s.message());
  REQUIRE(s.ok());
  const auto got = r.Read(buf);
  const auto want = Reference(t, data, lc.coord, lc.box, {}, 0x7fc00000u);
  CHECK(std::vector<uint32_t>(got.begin() + 1, got.end()) == want);
}

TEST_CASE("TMA load records: async-proxy reads of global, writes of shared, then the complete_tx release",
          "[async][tma][records]") {
  const LoadCase lc{"2d edge", {10, 6}, 12, {8, 4}, {}, {5, 4}};
  const Tensor t = Make(lc.dim, lc.row_elems);
  const auto data = Iota(t.elements);
  const uint32_t bytes = BoxBytes(lc);
  CollectingSink sink;
  RunLoad(lc, data, t, bytes, bytes, 0, &sink);
  const uint8_t proxy = protocol::kFlagAsync | protocol::kFlagAsyncProxy;
  uint32_t read_bytes = 0, write_bytes = 0;
  bool released_after = false;
  for (const auto& rec : sink.Flatten(0)) {
    const protocol::Op op = protocol::OpOf(rec.header);
    if (rec.header.flags != proxy) {
      if (op == protocol::Op::kRelease && (rec.header.flags & protocol::kFlagAsync) && write_bytes == bytes)
        released_after = true;
      continue;
    }
    CHECK(released_after == false);
    CHECK(rec.header.active_mask == 1u);
    if (op == protocol::Op::kRead) {
      CHECK(protocol::SpaceOf(rec.header) == protocol::Space::kGlobal);
      read_bytes += rec.header.access_size;
    } else {
      REQUIRE(op == protocol::Op::kWrite);
      CHECK(protocol::SpaceOf(rec.header) == protocol::Space::kShared);
      write_bytes += rec.header.access_size;
    }
  }
  // Inside: rows y = 4, 5 of x = 5..9: 2 rows of 5 elements; the whole box is written.
  CHECK(read_bytes == 2 * 5 * 4);
  CHECK(write_bytes == bytes);
  CHECK(released_after);
}

// A shared -> global TMA kernel (kStore's, or a reduction's) run once over a
// tensor holding `old`, the shared box holding `box_data`, with records into
// `sink`: the tensor after it, and per box element the 32-bit word of the
// tensor it lands on (kOutside: outside the tensor).
constexpr uint32_t kOutside = 0xffffffffu;
struct StoreResult {
  std::vector<uint32_t> after, where;
};
StoreResult RunStore(const std::string& kernel, const Tensor& t, const std::vector<uint32_t>& box,
                     const std::vector<int64_t>& coord, const std::vector<uint32_t>& old,
                     const std::vector<uint32_t>& box_data, uint32_t type, CollectingSink& sink) {
  KernelRunner r(kernel);
  auto g = r.Alloc<uint32_t>(t.elements, old);
  auto buf = r.Alloc<uint32_t>(box_data.size(), box_data);
  const MapParam map = Encode(t, g.device, box, {}, type);
  int32_t c[5] = {};
  for (size_t i = 0; i < coord.size(); ++i) c[i] = static_cast<int32_t>(coord[i]);
  r.device().SetSink(&sink);
  const absl::Status s = r.Launch("k", {1, 1, 1}, {1, 1, 1}, map, c[0], c[1], c[2], c[3], c[4], buf.device, 0u);
  r.device().SetSink(nullptr);
  INFO(s.message());
  REQUIRE(s.ok());
  std::vector<uint32_t> index(t.elements);
  for (size_t i = 0; i < index.size(); ++i) index[i] = static_cast<uint32_t>(i);
  return {r.Read(g), Reference(t, index, coord, box, {}, kOutside)};
}

TEST_CASE("TMA store: only the elements inside the tensor are written, reads recorded before writes",
          "[async][tma][records]") {
  struct StoreCase {
    const char* name;
    std::vector<uint64_t> dim;
    uint64_t row_elems;
    std::vector<uint32_t> box;
    std::vector<int64_t> coord;
  };
  const std::vector<StoreCase> cases = {
      {"2d in bounds", {40, 20}, 48, {8, 4}, {4, 3}},
      {"2d partly outside", {10, 6}, 12, {8, 4}, {5, 4}},
      {"2d negative corner", {10, 6}, 12, {8, 4}, {-3, -2}},
      {"1d edge", {37}, 40, {16}, {30}},
      {"3d partly outside", {12, 5, 4}, 12, {4, 4, 2}, {10, 3, 3}},
  };
  for (const StoreCase& sc : cases) {
    INFO(sc.name);
    const Tensor t = Make(sc.dim, sc.row_elems);
    uint32_t bytes = sc.box[0] * 4;
    for (size_t i = 1; i < sc.box.size(); ++i) bytes *= sc.box[i];
    const uint32_t rank = static_cast<uint32_t>(sc.dim.size());
    const std::vector<uint32_t> old(t.elements, kPoison);
    const auto box_data = Iota(bytes / 4, 7);
    CollectingSink sink;
    const StoreResult got =
        RunStore(Kernel(kStore, rank, bytes), t, sc.box, sc.coord, old, box_data, tmap::kUint32, sink);
    // Reference: scatter the box into a copy of the old tensor.
    std::vector<uint32_t> want = old;
    uint32_t inside = 0;
    for (size_t e = 0; e < got.where.size(); ++e)
      if (got.where[e] != kOutside) want[got.where[e]] = box_data[e], ++inside;
    CHECK(got.after == want);
    uint32_t read_bytes = 0, write_bytes = 0;
    bool write_seen = false, read_after_write = false;
    const uint8_t proxy = protocol::kFlagAsync | protocol::kFlagAsyncProxy;
    for (const auto& rec : sink.Flatten(0)) {
      if (rec.header.flags != proxy) continue;
      if (protocol::OpOf(rec.header) == protocol::Op::kRead) {
        CHECK(protocol::SpaceOf(rec.header) == protocol::Space::kShared);
        read_bytes += rec.header.access_size;
        read_after_write |= write_seen;
      } else {
        CHECK(protocol::OpOf(rec.header) == protocol::Op::kWrite);
        CHECK(protocol::SpaceOf(rec.header) == protocol::Space::kGlobal);
        write_bytes += rec.header.access_size;
        write_seen = true;
      }
    }
    CHECK(read_bytes == inside * 4);
    CHECK(write_bytes == inside * 4);
    CHECK_FALSE(read_after_write);
  }
}

// TMA reductions (cp.reduce.async.bulk.tensor): kStore's kernel with the
// reduction in place of the store; the element type is the map's.
std::string ReduceKernel(const std::string& op, uint32_t rank, uint32_t bytes) {
  const std::string store = "cp.async.bulk.tensor.RANKd.global.shared::cta.tile.bulk_group";
  std::string body = kStore;
  body.replace(body.find(store), store.size(), "cp.reduce.async.bulk.tensor.RANKd.global.shared::cta." + op +
                                                   ".tile.bulk_group");
  return Kernel(body.c_str(), rank, bytes);
}

// One 32-bit element of the CPU reference: op(old, src) with the ISA's numerics.
uint32_t Combine(const std::string& op, const std::string& type, uint32_t old, uint32_t src) {
  if (type == "f32") {
    float a, b;
    std::memcpy(&a, &old, 4);
    std::memcpy(&b, &src, 4);
    REQUIRE(op == "add");
    const float r = a + b;
    uint32_t bits;
    std::memcpy(&bits, &r, 4);
    return bits;
  }
  const int32_t sa = static_cast<int32_t>(old), sb = static_cast<int32_t>(src);
  const bool s = type == "s32";
  if (op == "add") return old + src;
  if (op == "min") return s ? static_cast<uint32_t>(std::min(sa, sb)) : std::min(old, src);
  if (op == "max") return s ? static_cast<uint32_t>(std::max(sa, sb)) : std::max(old, src);
  if (op == "inc") return old >= src ? 0 : old + 1;
  if (op == "dec") return old == 0 || old > src ? src : old - 1;
  if (op == "and") return old & src;
  if (op == "or") return old | src;
  REQUIRE(op == "xor");
  return old ^ src;
}

TEST_CASE("TMA reduction: each element inside the tensor combines with the global one, the rest is dropped",
          "[async][tma][reduce]") {
  struct ReduceCase {
    const char* name;
    std::string op, type;
    uint32_t map_type;
    std::vector<uint64_t> dim;
    uint64_t row_elems;
    std::vector<uint32_t> box;
    std::vector<int64_t> coord;
  };
  const std::vector<ReduceCase> cases = {
      {"add.u32 2d in bounds", "add", "u32", tmap::kUint32, {40, 20}, 48, {8, 4}, {4, 3}},
      {"add.u32 2d partly outside (clipped)", "add", "u32", tmap::kUint32, {10, 6}, 12, {8, 4}, {5, 4}},
      {"add.u32 2d negative corner (clipped)", "add", "u32", tmap::kUint32, {10, 6}, 12, {8, 4}, {-3, -2}},
      {"min.s32 2d", "min", "s32", tmap::kInt32, {16, 8}, 16, {8, 4}, {3, 2}},
      {"max.s32 3d partly outside", "max", "s32", tmap::kInt32, {12, 5, 4}, 12, {4, 4, 2}, {10, 3, 3}},
      {"max.u32 1d edge", "max", "u32", tmap::kUint32, {37}, 40, {16}, {30}},
      {"add.f32 2d", "add", "f32", tmap::kFloat32, {16, 8}, 16, {8, 4}, {6, 5}},
      {"inc.u32 2d", "inc", "u32", tmap::kUint32, {16, 8}, 16, {8, 4}, {0, 0}},
      {"xor.s32 4d", "xor", "s32", tmap::kInt32, {8, 3, 2, 3}, 8, {4, 2, 2, 2}, {4, 2, 1, 2}},
      {"and.u32 5d", "and", "u32", tmap::kUint32, {4, 2, 2, 2, 3}, 4, {4, 2, 1, 2, 2}, {0, 1, 1, 0, 2}},
  };
  for (const ReduceCase& rc : cases) {
    INFO(rc.name);
    const Tensor t = Make(rc.dim, rc.row_elems);
    uint32_t bytes = rc.box[0] * 4;
    for (size_t i = 1; i < rc.box.size(); ++i) bytes *= rc.box[i];
    const uint32_t rank = static_cast<uint32_t>(rc.dim.size());
    // The destination before: mixed signs and sizes (floats: small integers as floats).
    std::vector<uint32_t> old(t.elements), box_data(bytes / 4);
    for (size_t i = 0; i < old.size(); ++i) old[i] = static_cast<uint32_t>(static_cast<int32_t>(i * 37 % 101) - 50);
    for (size_t i = 0; i < box_data.size(); ++i)
      box_data[i] = static_cast<uint32_t>(static_cast<int32_t>(i * 53 % 89) - 40);
    if (rc.op == "inc") {
      for (size_t i = 0; i < old.size(); ++i) old[i] = static_cast<uint32_t>(i % 7);
      for (size_t i = 0; i < box_data.size(); ++i) box_data[i] = static_cast<uint32_t>(i % 5);
    }
    if (rc.type == "f32") {
      auto scale = [](std::vector<uint32_t>& words, float by) {
        for (auto& v : words) {
          const float f = static_cast<float>(static_cast<int32_t>(v)) * by;
          std::memcpy(&v, &f, 4);
        }
      };
      scale(old, 0.25f);
      scale(box_data, 0.5f);
    }
    CollectingSink sink;
    const StoreResult got =
        RunStore(ReduceKernel(rc.op, rank, bytes), t, rc.box, rc.coord, old, box_data, rc.map_type, sink);
    // Reference: combine the box into a copy of the old tensor; elements outside are dropped.
    std::vector<uint32_t> want = old;
    uint32_t inside = 0;
    for (size_t e = 0; e < got.where.size(); ++e)
      if (const uint32_t w = got.where[e]; w != kOutside)
        want[w] = Combine(rc.op, rc.type, want[w], box_data[e]), ++inside;
    CHECK(got.after == want);
    // Records: async-proxy reads of the shared box, then one strong atomic per
    // element inside the tensor (relaxed, gpu scope), as cp.reduce.async.bulk's.
    uint32_t read_bytes = 0, atomics = 0;
    bool atomic_seen = false, read_after_atomic = false;
    const uint8_t proxy = protocol::kFlagAsync | protocol::kFlagAsyncProxy;
    for (const auto& rec : sink.Flatten(0)) {
      const protocol::Op op = protocol::OpOf(rec.header);
      if (op == protocol::Op::kAtomic) {
        ++atomics;
        atomic_seen = true;
        CHECK(rec.header.access_size == 4);
        CHECK(protocol::SpaceOf(rec.header) == protocol::Space::kGlobal);
        CHECK(protocol::ScopeOf(rec.header) == protocol::Scope::kGpu);
        CHECK(rec.header.flags == (protocol::kFlagLoad | protocol::kFlagStore));
        continue;
      }
      if (rec.header.flags != proxy) continue;
      CHECK(op == protocol::Op::kRead);
      CHECK(protocol::SpaceOf(rec.header) == protocol::Space::kShared);
      read_bytes += rec.header.access_size;
      read_after_atomic |= atomic_seen;
    }
    CHECK(read_bytes == inside * 4);
    CHECK(atomics == inside);
    CHECK_FALSE(read_after_atomic);
  }
}

TEST_CASE("TMA reduction: 64-bit elements, and pairs the PTX ISA does not allow fault", "[async][tma][reduce]") {
  SECTION("add over a UINT64 map") {
    const Tensor t = Make({8, 4}, 16);  // 32-bit words: rows of 16 words hold 8 u64 elements
    Tensor t64 = t;
    t64.stride_bytes = {64};
    KernelRunner r(ReduceKernel("add", 2, 4 * 2 * 8));
    std::vector<uint32_t> old(t.elements * 2, 0), box(16, 0);
    for (size_t i = 0; i < old.size(); i += 2) old[i] = 0xffffffffu, old[i + 1] = static_cast<uint32_t>(i);
    for (size_t i = 0; i < box.size(); i += 2) box[i] = 1;  // carry into the high word
    auto g = r.Alloc<uint32_t>(old.size(), old);
    auto buf = r.Alloc<uint32_t>(box.size(), box);
    const MapParam map = Encode(t64, g.device, {4, 2}, {}, tmap::kUint64);
    REQUIRE(r.Launch("k", {1, 1, 1}, {1, 1, 1}, map, 2, 1, 0, 0, 0, buf.device, 0u).ok());
    std::vector<uint32_t> want = old;
    for (uint32_t y = 1; y < 3; ++y)
      for (uint32_t x = 2; x < 6; ++x) {
        const size_t w = (y * 8 + x) * 2;
        want[w] = 0, want[w + 1] += 1;
      }
    CHECK(r.Read(g) == want);
  }
  SECTION("min over a FLOAT32 map faults at run time, naming the pair") {
    const Tensor t = Make({16, 8}, 16);
    KernelRunner r(ReduceKernel("min", 2, 8 * 4 * 4));
    auto g = r.Alloc<uint32_t>(t.elements);
    auto buf = r.Alloc<uint32_t>(32);
    const MapParam map = Encode(t, g.device, {8, 4}, {}, tmap::kFloat32);
    const absl::Status s = r.Launch("k", {1, 1, 1}, {1, 1, 1}, map, 0, 0, 0, 0, 0, buf.device, 0u);
    CHECK_FALSE(s.ok());
    CHECK(std::string(s.message()).find(".min over a FLOAT32 tensor map is not one the PTX ISA allows") !=
          std::string::npos);
  }
  SECTION("inc over an INT32 map faults") {
    const Tensor t = Make({16, 8}, 16);
    KernelRunner r(ReduceKernel("inc", 2, 8 * 4 * 4));
    auto g = r.Alloc<uint32_t>(t.elements);
    auto buf = r.Alloc<uint32_t>(32);
    const MapParam map = Encode(t, g.device, {8, 4}, {}, tmap::kInt32);
    CHECK_FALSE(r.Launch("k", {1, 1, 1}, {1, 1, 1}, map, 0, 0, 0, 0, 0, buf.device, 0u).ok());
  }
}

// Swizzled loads: 16-byte chunk j of 128-byte shared line r holds chunk
// j ^ (r % (span / 16)), r counted from shared address 0, so a box that does
// not start at the pattern's boundary starts at the ISA's base offset
// (dstMem / 128) % (span / 16).
TEST_CASE("TMA load with SWIZZLE_32B/64B/128B follows the PTX ISA's swizzle tables", "[async][tma]") {
  for (uint32_t swizzle : {tmap::kSwizzle32B, tmap::kSwizzle64B, tmap::kSwizzle128B}) {
    for (uint32_t dst_offset : {0u, 128u, 384u}) {
      const uint32_t span = 16u << swizzle;
      INFO("span " << span << ", box at +" << dst_offset);
      const uint32_t cols = span / 4, rows = 16;
      const Tensor t = Make({cols, 32}, cols);
      const auto data = Iota(t.elements);
      const uint32_t bytes = cols * rows * 4;
      KernelRunner r(Kernel(kLoad, 2, bytes, dst_offset));
      auto g = r.Alloc<uint32_t>(t.elements, data);
      auto buf = r.Alloc<uint32_t>(1 + bytes / 4);
      const MapParam map = Encode(t, g.device, {cols, rows}, {}, tmap::kUint32, swizzle);
      const absl::Status s = r.Launch("k", {1, 1, 1}, {1, 1, 1}, map, 0, 2, 0, 0, 0, buf.device, bytes);
      INFO(s.message());
      REQUIRE(s.ok());
      const auto got = r.Read(buf);
      const auto dense = Reference(t, data, {0, 2}, {cols, rows}, {}, 0);
      const uint32_t mask = span / 16 - 1;
      for (uint32_t lin = 0; lin < bytes; lin += 4) {
        const uint32_t phys = lin ^ ((((dst_offset + lin) >> 7) & mask) << 4);
        INFO("byte " << lin);
        CHECK(got[1 + phys / 4] == dense[lin / 4]);
      }
    }
  }
}

TEST_CASE("TMA copies refuse what the emulator does not implement", "[async][tma]") {
  SECTION("unsupported swizzle faults at run time, naming it") {
    const Tensor t = Make({64, 8}, 64);
    KernelRunner r(Kernel(kLoad, 2, 16 * 4 * 4));
    auto g = r.Alloc<uint32_t>(t.elements);
    auto buf = r.Alloc<uint32_t>(1 + 64);
    // 128B swizzle with a 64-byte inner box: valid for the driver, not emulated.
    const MapParam map = Encode(t, g.device, {16, 4}, {}, tmap::kUint32, tmap::kSwizzle128B);
    const absl::Status s = r.Launch("k", {1, 1, 1}, {1, 1, 1}, map, 0, 0, 0, 0, 0, buf.device, 256u);
    CHECK_FALSE(s.ok());
    CHECK(std::string(s.message()).find("SWIZZLE_128B") != std::string::npos);
    KernelRunner r2(Kernel(kLoad, 2, 32 * 4 * 4));
    auto g2 = r2.Alloc<uint32_t>(t.elements);
    auto buf2 = r2.Alloc<uint32_t>(1 + 128);
    const MapParam atom2 = Encode(t, g2.device, {32, 4}, {}, tmap::kUint32, tmap::kSwizzle128BAtom32B);
    const absl::Status s2 = r2.Launch("k", {1, 1, 1}, {1, 1, 1}, atom2, 0, 0, 0, 0, 0, buf2.device, 512u);
    CHECK_FALSE(s2.ok());
    CHECK(std::string(s2.message()).find("SWIZZLE_128B_ATOM_32B") != std::string::npos);
  }
  SECTION("a map that is not the emulator's faults") {
    KernelRunner r(Kernel(kLoad, 2, 128));
    auto buf = r.Alloc<uint32_t>(33);
    MapParam junk;
    std::memset(junk.bytes, 0x5a, sizeof(junk.bytes));
    const absl::Status s = r.Launch("k", {1, 1, 1}, {1, 1, 1}, junk, 0, 0, 0, 0, 0, buf.device, 128u);
    CHECK_FALSE(s.ok());
    CHECK(std::string(s.message()).find("tensor map") != std::string::npos);
  }
  SECTION("a map of another rank faults") {
    const Tensor t = Make({16, 4, 2}, 16);
    KernelRunner r(Kernel(kLoad, 2, 128));
    auto g = r.Alloc<uint32_t>(t.elements);
    auto buf = r.Alloc<uint32_t>(33);
    const MapParam map = Encode(t, g.device, {8, 4, 1});
    const absl::Status s = r.Launch("k", {1, 1, 1}, {1, 1, 1}, map, 0, 0, 0, 0, 0, buf.device, 128u);
    CHECK_FALSE(s.ok());
  }
  SECTION("im2col::w, multicast without a mask or to shared::cta, cta_group::2 and reductions other than tile/bulk_group are refused at load time") {
    for (const char* form :
         {"cp.async.bulk.tensor.3d.shared::cluster.global.im2col::w.mbarrier::complete_tx::bytes [%r4], [%rd2, {%c0, "
          "%c1, %c2}], [%r5], {%h0};",
          "cp.async.bulk.tensor.2d.shared::cluster.global.im2col.mbarrier::complete_tx::bytes [%r4], [%rd2, {%c0, "
          "%c1}], [%r5], {};",
          "cp.async.bulk.tensor.4d.shared::cluster.global.im2col.mbarrier::complete_tx::bytes [%r4], [%rd2, {%c0, "
          "%c1, %c2, %c3}], [%r5], {%h0};",
          "cp.async.bulk.tensor.3d.global.shared::cta.im2col_no_offs.bulk_group [%rd2, {%c0, %c1, %c2}], [%r4];",
          "cp.async.bulk.tensor.2d.shared::cta.global.tile.mbarrier::complete_tx::bytes.multicast::cluster "
          "[%r4], [%rd2, {%c0, %c1}], [%r5], %h0;",
          "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes.multicast::cluster "
          "[%r4], [%rd2, {%c0, %c1}], [%r5];",
          "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes.cta_group::2 [%r4], "
          "[%rd2, {%c0, %c1}], [%r5];",
          "cp.reduce.async.bulk.tensor.3d.global.shared::cta.add.im2col_no_offs.bulk_group [%rd2, {%c0, %c1, %c2}], "
          "[%r4];",
          "cp.reduce.async.bulk.tensor.2d.global.shared::cta.add.tile.mbarrier::complete_tx::bytes [%rd2, {%c0, "
          "%c1}], [%r4];",
          "cp.reduce.async.bulk.tensor.2d.global.shared::cta.tile.bulk_group [%rd2, {%c0, %c1}], [%r4];"}) {
      INFO(form);
      const std::string body = std::string(R"(
  .reg .b32 %r<8>;
  .reg .b32 %c<4>;
  .reg .b16 %h<2>;
  .reg .b64 %rd<4>;
  mov.u64 %rd2, 0;
  mov.u32 %r4, 0;
  mov.u32 %r5, 0;
  )") + form + "\n  ret;\n";
      bool threw = false;
      try {
        KernelRunner r(WrapKernel("k", "", body, "sm_90a"));
      } catch (const std::runtime_error& e) {
        threw = true;
        CAPTURE(e.what());
      }
      CHECK(threw);
    }
  }
}

TEST_CASE("TMA multicast load: the box lands in every CTA of the mask and completes each CTA's mbarrier",
          "[async][tma][cluster]") {
  // A cluster of 4 CTAs, one thread each; every CTA arms its mbarrier for the
  // box unless it is rank 3 (not in the mask 0b0111), meets the others at
  // barrier.cluster, and rank 2 issues the multicast load. Each CTA then
  // writes whether its phase completed and its tile (poisoned beforehand).
  const std::string body = R"(
  .reg .b32 %r<20>;
  .reg .b32 %c<2>;
  .reg .b16 %h<2>;
  .reg .b64 %rd<10>;
  .reg .pred %p<4>;
  .shared .align 1024 .b8 tile[128];
  .shared .align 8 .b64 bar;
  mov.u64 %rd1, k_map;
  cvta.param.u64 %rd2, %rd1;
  ld.param.s32 %c0, [k_c0];
  ld.param.s32 %c1, [k_c1];
  ld.param.u64 %rd3, [k_buf];
  mov.u32 %r1, %cluster_ctarank;
  mov.u32 %r2, %ctaid.x;
  mov.u32 %r4, tile;
  mov.u32 %r5, bar;
  mov.u32 %r6, 0;
  mov.u32 %r7, 0xdddddddd;
$L_poison:
  add.u32 %r8, %r4, %r6;
  st.shared.u32 [%r8], %r7;
  add.u32 %r6, %r6, 4;
  setp.lt.u32 %p1, %r6, 128;
  @%p1 bra $L_poison;
  mbarrier.init.shared::cta.b64 [bar], 1;
  setp.eq.u32 %p3, %r1, 3;
  @%p3 bra $L_armed;
  mbarrier.arrive.expect_tx.shared::cta.b64 %rd4, [bar], 128;
$L_armed:
  fence.proxy.async.shared::cta;
  barrier.cluster.arrive.release.aligned;
  barrier.cluster.wait.acquire.aligned;
  setp.ne.u32 %p1, %r1, 2;
  @%p1 bra $L_wait;
  mov.b16 %h1, 7;
  cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes.multicast::cluster [%r4], [%rd2, {%c0, %c1}], [%r5], %h1;
$L_wait:
  mov.u32 %r10, 0;
  @%p3 bra $L_store;
$L_spin:
  mbarrier.try_wait.parity.shared::cta.b64 %p2, [bar], 0;
  @!%p2 bra $L_spin;
  mov.u32 %r10, 1;
$L_store:
  mul.wide.u32 %rd7, %r2, 132;
  add.s64 %rd3, %rd3, %rd7;
  st.global.u32 [%rd3], %r10;
  mov.u32 %r6, 0;
$L_out:
  add.u32 %r8, %r4, %r6;
  ld.shared.u32 %r11, [%r8];
  cvt.u64.u32 %rd5, %r6;
  add.s64 %rd6, %rd3, %rd5;
  st.global.u32 [%rd6+4], %r11;
  add.u32 %r6, %r6, 4;
  setp.lt.u32 %p1, %r6, 128;
  @%p1 bra $L_out;
  barrier.cluster.arrive.release.aligned;
  barrier.cluster.wait.acquire.aligned;
  ret;
)";
  const std::string ptx = ".version 8.0\n.target sm_90\n.address_size 64\n.visible .entry k(" + std::string(kParams) +
                          ")\n.reqnctapercluster 4, 1, 1\n{\n" + body + "\n}\n";
  const Tensor t = Make({40, 20}, 48);
  const auto data = Iota(t.elements);
  KernelRunner r(ptx);
  auto g = r.Alloc<uint32_t>(t.elements, data);
  auto buf = r.Alloc<uint32_t>(4 * 33);
  const MapParam map = Encode(t, g.device, {8, 4});
  CollectingSink sink;
  r.device().SetSink(&sink);
  const absl::Status s = r.Launch("k", {4, 1, 1}, {1, 1, 1}, map, 4, 3, 0, 0, 0, buf.device, 0u);
  INFO(s.message());
  REQUIRE(s.ok());
  const auto got = r.Read(buf);
  const auto want = Reference(t, data, {4, 3}, {8, 4}, {}, 0);
  for (uint32_t cta = 0; cta < 4; ++cta) {
    INFO("CTA " << cta);
    const std::vector<uint32_t> tile(got.begin() + cta * 33 + 1, got.begin() + cta * 33 + 33);
    if (cta == 3) {
      CHECK(got[cta * 33] == 0);
      CHECK(tile == std::vector<uint32_t>(32, 0xddddddddu));  // not in the mask: untouched
    } else {
      CHECK(got[cta * 33] == 1);
      CHECK(tile == want);
    }
  }
  size_t releases = 0;
  for (const auto& rec : sink.Flatten(0))
    if (protocol::OpOf(rec.header) == protocol::Op::kRelease && (rec.header.flags & protocol::kFlagAsync) != 0)
      ++releases;
  CHECK(releases == 3);  // one complete_tx per CTA of the mask
}

// TMA im2col loads: kLoad with .im2col and the im2col offsets k_o0..k_o2
// (16-bit operands), on maps from the emulator's cuTensorMapEncodeIm2col.
std::string Im2colKernel(uint32_t rank, uint32_t bytes) {
  std::string body = kLoad;
  const std::string tile = "global.tile.mbarrier::complete_tx::bytes [%r4], [%rd2, {COORDS}], [%r5];";
  std::string offs;
  for (uint32_t j = 0; j + 2 < rank; ++j) offs += (j ? ", %h" : "%h") + std::to_string(j);
  body.replace(body.find(tile), tile.size(),
               "global.im2col.mbarrier::complete_tx::bytes [%r4], [%rd2, {COORDS}], [%r5], {" + offs + "};");
  const std::string tx = "ld.param.u32 %r9, [k_tx];";
  body.replace(body.find(tx), tx.size(),
               tx + "\n  ld.param.u32 %r12, [k_o0];\n  cvt.u16.u32 %h0, %r12;\n"
                    "  ld.param.u32 %r12, [k_o1];\n  cvt.u16.u32 %h1, %r12;\n  ld.param.u32 %r12, [k_o2];\n"
                    "  cvt.u16.u32 %h2, %r12;");
  const std::string regs = ".reg .b32 %c<5>;";
  body.replace(body.find(regs), regs.size(), regs + "\n  .reg .b16 %h<3>;");
  std::string s = Sub(body, "RANK", std::to_string(rank));
  s = Sub(s, "DSTOFF", "0");
  s = Sub(s, "ALLOC", std::to_string(bytes));
  s = Sub(s, "COORDS", Coords(rank));
  s = Sub(s, "BYTES", std::to_string(bytes));
  return WrapKernel("k", std::string(kParams) + ", .param .s32 k_o0, .param .s32 k_o1, .param .s32 k_o2", s,
                    "sm_90");
}

MapParam EncodeIm2col(const Tensor& t, void* base, std::vector<int> lower, std::vector<int> upper, uint32_t channels,
                      uint32_t pixels, std::vector<uint32_t> es = {}) {
  MapParam m;
  tmap::Im2colArgs a;
  Common(a, t, base, es, tmap::kUint32);
  a.pixel_box_lower_corner = lower.data();
  a.pixel_box_upper_corner = upper.data();
  a.channels_per_pixel = channels;
  a.pixels_per_column = pixels;
  const absl::Status s = tmap::EncodeIm2col(m.bytes, a);
  INFO(s.message());
  REQUIRE(s.ok());
  return m;
}

// A convolution's im2col gather on the CPU: output pixels m0 .. m0 + pixels - 1
// of an N x OH x OW output (row-major; OW/OH from the input size, padding
// `pad`, filter extent `f` and stride per spatial dimension), for the filter
// tap `tap` (per spatial dimension, W first), channels c0 .. c0 + channels - 1
// of the NHWC (NWC, NDHWC) input; 0 outside the input.
std::vector<uint32_t> ConvGather(const Tensor& t, const std::vector<uint32_t>& data, uint32_t m0, uint32_t pixels,
                                 uint32_t c0, uint32_t channels, const std::vector<int>& pad,
                                 const std::vector<int>& f, const std::vector<int>& stride,
                                 const std::vector<int>& tap) {
  const size_t spatial = t.dim.size() - 2;
  std::vector<int64_t> out_dim(spatial);
  for (size_t j = 0; j < spatial; ++j)
    out_dim[j] = (static_cast<int64_t>(t.dim[j + 1]) + 2 * pad[j] - f[j]) / stride[j] + 1;
  std::vector<uint32_t> out;
  for (uint32_t k = 0; k < pixels; ++k) {
    int64_t rest = m0 + k;
    std::vector<int64_t> in(spatial);
    bool inside = true;
    for (size_t j = 0; j < spatial; ++j) {
      const int64_t o = rest % out_dim[j];
      rest /= out_dim[j];
      in[j] = o * stride[j] - pad[j] + tap[j];
      if (in[j] < 0 || in[j] >= static_cast<int64_t>(t.dim[j + 1])) inside = false;
    }
    const int64_t n = rest;
    if (n >= static_cast<int64_t>(t.dim.back())) inside = false;
    for (uint32_t c = c0; c < c0 + channels; ++c) {
      if (!inside || c >= t.dim[0]) {
        out.push_back(0);
        continue;
      }
      uint64_t word = c + static_cast<uint64_t>(n) * t.stride_bytes.back() / 4;
      for (size_t j = 0; j < spatial; ++j) word += static_cast<uint64_t>(in[j]) * t.stride_bytes[j] / 4;
      out.push_back(data[word]);
    }
  }
  return out;
}

TEST_CASE("TMA im2col load gathers a convolution's columns as the CPU im2col does", "[async][tma][im2col]") {
  struct Conv {
    const char* name;
    std::vector<uint64_t> dim;  // C, W, H(, D), N
    uint32_t channels, c0, pixels, m0;
    std::vector<int> pad, f, stride;
  };
  const std::vector<Conv> convs = {
      // 3x3, padding 1, stride 1 over 2 x 5 x 6 x 8 NHWC; the column crosses into image 1.
      {"nhwc 3x3 pad 1", {8, 6, 5, 2}, 4, 4, 16, 22, {1, 1}, {3, 3}, {1, 1}},
      {"nhwc 3x3 pad 1, all channels", {8, 6, 5, 2}, 8, 0, 32, 0, {1, 1}, {3, 3}, {1, 1}},
      // 1d: width 7, filter 3, padding 1, stride 2 (traversal stride 2), 3 images of 4 channels.
      {"nwc stride 2", {4, 7, 3}, 4, 0, 8, 2, {1}, {3}, {2}},
      // 3d: 4 x 3 x 3 x 4 NDHWC, 2x2x2 filter, no padding.
      {"ndhwc 2x2x2", {4, 3, 3, 2, 2}, 4, 0, 12, 1, {0, 0, 0}, {2, 2, 2}, {1, 1, 1}},
  };
  for (const Conv& cv : convs) {
    const size_t rank = cv.dim.size(), spatial = rank - 2;
    const Tensor t = Make(cv.dim, cv.dim[0]);
    const auto data = Iota(t.elements);
    // The bounding box: pixel p at the top-left-front corner of its window,
    // p = o * stride - pad for output position o in [0, OW): lower = -pad,
    // upper = (OW - 1) * stride - pad - (W - 1).
    std::vector<int> lower(spatial), upper(spatial);
    std::vector<uint32_t> es(rank, 1);
    std::vector<int64_t> out_dim(spatial);
    for (size_t j = 0; j < spatial; ++j) {
      out_dim[j] = (static_cast<int64_t>(cv.dim[j + 1]) + 2 * cv.pad[j] - cv.f[j]) / cv.stride[j] + 1;
      lower[j] = -cv.pad[j];
      const int64_t last = static_cast<int64_t>(cv.dim[j + 1]) - 1;
      upper[j] = static_cast<int>((out_dim[j] - 1) * cv.stride[j] - cv.pad[j] - last);
      es[j + 1] = static_cast<uint32_t>(cv.stride[j]);
    }
    // The instruction's coordinates: the first output pixel's window corner.
    int32_t c[5] = {};
    c[0] = static_cast<int32_t>(cv.c0);
    int64_t rest = cv.m0;
    for (size_t j = 0; j < spatial; ++j) {
      c[j + 1] = static_cast<int32_t>(rest % out_dim[j] * cv.stride[j] - cv.pad[j]);
      rest /= out_dim[j];
    }
    c[rank - 1] = static_cast<int32_t>(rest);
    const uint32_t bytes = cv.channels * cv.pixels * 4;
    // Every filter tap.
    std::vector<int> tap(spatial, 0);
    for (bool more = true; more;) {
      INFO(cv.name << ", tap " << ::Catch::Detail::stringify(tap));
      KernelRunner r(Im2colKernel(static_cast<uint32_t>(rank), bytes));
      auto g = r.Alloc<uint32_t>(t.elements, data);
      auto buf = r.Alloc<uint32_t>(1 + bytes / 4);
      const MapParam map = EncodeIm2col(t, g.device, lower, upper, cv.channels, cv.pixels, es);
      const int32_t o[3] = {tap[0], spatial > 1 ? tap[1] : 0, spatial > 2 ? tap[2] : 0};
      const absl::Status s =
          r.Launch("k", {1, 1, 1}, {1, 1, 1}, map, c[0], c[1], c[2], c[3], c[4], buf.device, bytes, o[0], o[1], o[2]);
      INFO(s.message());
      REQUIRE(s.ok());
      const auto got = r.Read(buf);
      CHECK(got[0] == 1);  // complete_tx counted channels x pixels elements
      const auto want = ConvGather(t, data, cv.m0, cv.pixels, cv.c0, cv.channels, cv.pad, cv.f, cv.stride, tap);
      CHECK(std::vector<uint32_t>(got.begin() + 1, got.end()) == want);
      more = false;
      for (size_t j = 0; j < spatial && !more; ++j) {
        if (++tap[j] < cv.f[j]) more = true;
        else tap[j] = 0;
      }
    }
  }
}

TEST_CASE("TMA im2col: a map of the other mode faults, and cuTensorMapEncodeIm2col validates", "[async][tma][im2col]") {
  const Tensor t = Make({8, 6, 5, 2}, 8);
  SECTION("a tiled map used by an .im2col load faults") {
    KernelRunner r(Im2colKernel(4, 4 * 4 * 4));
    auto g = r.Alloc<uint32_t>(t.elements);
    auto buf = r.Alloc<uint32_t>(1 + 16);
    const MapParam map = Encode(t, g.device, {4, 2, 2, 1});
    const absl::Status s = r.Launch("k", {1, 1, 1}, {1, 1, 1}, map, 0, 0, 0, 0, 0, buf.device, 64u, 0, 0, 0);
    CHECK_FALSE(s.ok());
    CHECK(std::string(s.message()).find("tiled tensor map used by an .im2col copy") != std::string::npos);
  }
  SECTION("an im2col map used by a .tile load faults") {
    KernelRunner r(Kernel(kLoad, 4, 4 * 4 * 4));
    auto g = r.Alloc<uint32_t>(t.elements);
    auto buf = r.Alloc<uint32_t>(1 + 16);
    const MapParam map = EncodeIm2col(t, g.device, {0, 0}, {0, 0}, 4, 4);
    const absl::Status s = r.Launch("k", {1, 1, 1}, {1, 1, 1}, map, 0, 0, 0, 0, 0, buf.device, 64u);
    CHECK_FALSE(s.ok());
    CHECK(std::string(s.message()).find("im2col tensor map") != std::string::npos);
  }
  SECTION("validation") {
    alignas(64) static uint8_t global[4096];
    std::vector<uint32_t> es;
    int lower[3] = {-1, -1, 0}, upper[3] = {-1, -1, 0};
    auto args = [&] {
      tmap::Im2colArgs a;
      Common(a, t, global, es, tmap::kUint32);
      a.pixel_box_lower_corner = lower;
      a.pixel_box_upper_corner = upper;
      a.channels_per_pixel = 8;
      a.pixels_per_column = 64;
      return a;
    };
    MapParam m;
    REQUIRE(tmap::EncodeIm2col(m.bytes, args()).ok());
    auto d = tmap::Decode(m.bytes);
    REQUIRE(d.ok());
    CHECK(d->im2col);
    CHECK(d->box[0] == 8);
    CHECK(d->pixels == 64);
    CHECK(d->lower[0] == -1);
    CHECK(d->upper[1] == -1);
    auto invalid = [&](tmap::Im2colArgs a, const char* what) {
      MapParam o;
      const absl::Status s = tmap::EncodeIm2col(o.bytes, a);
      INFO(s.message());
      CHECK_FALSE(s.ok());
      CHECK(std::string(s.message()).find(what) != std::string::npos);
      CHECK(std::string(s.message()).find("cuTensorMapEncodeIm2col") != std::string::npos);
    };
    auto a = args();
    a.rank = 2;
    invalid(a, "tensorRank");
    a = args();
    a.channels_per_pixel = 3;  // 12 bytes
    invalid(a, "channelsPerPixel");
    a = args();
    a.channels_per_pixel = 512;
    invalid(a, "channelsPerPixel");
    a = args();
    a.pixels_per_column = 1025;
    invalid(a, "pixelsPerColumn");
    lower[1] = -129;  // 4d corners are 8-bit
    invalid(args(), "pixelBoxLowerCorner[1]");
    lower[1] = -1;
    upper[0] = 128;
    invalid(args(), "pixelBoxUpperCorner[0]");
  }
}

TEST_CASE("cuTensorMapEncodeTiled validation follows the driver API documentation", "[tma][encode]") {
  alignas(64) static uint8_t global[4096];
  const uint64_t dim[3] = {64, 32, 4};
  const uint64_t strides[2] = {256, 256 * 32};
  const uint32_t box[3] = {16, 8, 2};
  const uint32_t es[3] = {1, 1, 1};
  auto args = [&] {
    tmap::TiledArgs a;
    a.data_type = tmap::kUint32;
    a.rank = 3;
    a.global_address = global;
    a.global_dim = dim;
    a.global_strides = strides;
    a.box_dim = box;
    a.element_strides = es;
    return a;
  };
  MapParam m;
  REQUIRE(tmap::EncodeTiled(m.bytes, args()).ok());
  {
    auto d = tmap::Decode(m.bytes);
    REQUIRE(d.ok());
    CHECK(d->rank == 3);
    CHECK(d->dim[1] == 32);
    CHECK(d->stride[2] == 256 * 32);
    CHECK(d->box[0] == 16);
    CHECK(d->address == reinterpret_cast<uintptr_t>(global));
  }
  auto invalid = [&](tmap::TiledArgs a, void* out = nullptr) {
    MapParam o;
    return tmap::EncodeTiled(out ? out : o.bytes, a).code() == absl::StatusCode::kInvalidArgument;
  };
  CHECK(invalid(args(), m.bytes + 16));  // tensorMap not 64-byte aligned
  auto a = args();
  a.rank = 0;
  CHECK(invalid(a));
  a.rank = 6;
  CHECK(invalid(a));
  a = args();
  a.global_address = global + 8;  // not 16-byte aligned
  CHECK(invalid(a));
  a = args();
  a.interleave = tmap::kInterleave32B;
  a.swizzle = tmap::kSwizzle32B;
  a.global_address = global + 16;  // 32 with interleave
  CHECK(invalid(a));
  const uint64_t zero_dim[3] = {64, 0, 4};
  a = args();
  a.global_dim = zero_dim;
  CHECK(invalid(a));
  const uint64_t huge_dim[3] = {(uint64_t{1} << 32) + 1, 32, 4};
  a.global_dim = huge_dim;
  CHECK(invalid(a));
  const uint64_t max_dim[3] = {uint64_t{1} << 32, 32, 4};
  a.global_dim = max_dim;
  CHECK(tmap::EncodeTiled(m.bytes, a).ok());  // 2^32 is allowed
  CHECK(tmap::Decode(m.bytes)->dim[0] == (uint64_t{1} << 32));
  const uint64_t odd_stride[2] = {264, 256 * 32};
  a = args();
  a.global_strides = odd_stride;
  CHECK(invalid(a));
  const uint64_t big_stride[2] = {256, uint64_t{1} << 40};
  a.global_strides = big_stride;
  CHECK(invalid(a));
  const uint32_t box0[3] = {16, 0, 2}, box257[3] = {16, 257, 2}, box_odd[3] = {6, 8, 2};
  a = args();
  a.box_dim = box0;
  CHECK(invalid(a));
  a.box_dim = box257;
  CHECK(invalid(a));
  a.box_dim = box_odd;  // 24 bytes: not a multiple of 16
  CHECK(invalid(a));
  const uint32_t es0[3] = {1, 0, 1}, es9[3] = {1, 9, 1};
  a = args();
  a.element_strides = es0;
  CHECK(invalid(a));
  a.element_strides = es9;
  CHECK(invalid(a));
  a = args();
  a.swizzle = tmap::kSwizzle32B;  // 64-byte inner box > 32
  CHECK(invalid(a));
  a.swizzle = tmap::kSwizzle64B;  // 64 <= 64
  CHECK(tmap::EncodeTiled(m.bytes, a).ok());
  a.swizzle = 7;
  CHECK(invalid(a));
  a = args();
  a.data_type = 16;
  CHECK(invalid(a));
  a = args();
  a.oob_fill = tmap::kOobFillNanRequestZeroFma;  // integer type
  CHECK(invalid(a));
  a.data_type = tmap::kFloat32;
  CHECK(tmap::EncodeTiled(m.bytes, a).ok());
  a = args();
  a.rank = 2;
  a.interleave = tmap::kInterleave16B;  // interleave needs rank >= 3
  CHECK(invalid(a));
  a = args();
  a.interleave = tmap::kInterleave32B;  // needs SWIZZLE_32B
  CHECK(invalid(a));
  a = args();
  a.global_dim = nullptr;
  CHECK(invalid(a));
  MapParam junk;
  CHECK_FALSE(tmap::Decode(junk.bytes).ok());
}

}  // namespace
}  // namespace barracuda::emu::testing
