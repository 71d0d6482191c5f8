// TMA tensor copies (cp.async.bulk.tensor, tiled mode) end to end: tensor
// maps from the emulator's cuTensorMapEncodeTiled (ops/tensor_map.h),
// hand-written PTX kernels that load a box into shared memory with an
// mbarrier or store one to global memory with a bulk async-group, their
// results against a CPU reference, and the records of traced launches.
#include <catch2/catch.hpp>

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

MapParam Encode(const Tensor& t, void* base, std::vector<uint32_t> box, std::vector<uint32_t> es = {},
                uint32_t type = tmap::kUint32, uint32_t swizzle = tmap::kSwizzleNone, uint32_t oob = 0) {
  if (es.empty()) es.assign(box.size(), 1);
  MapParam m;
  tmap::TiledArgs a;
  a.data_type = type;
  a.rank = static_cast<uint32_t>(t.dim.size());
  a.global_address = base;
  a.global_dim = t.dim.data();
  a.global_strides = t.stride_bytes.data();
  a.box_dim = box.data();
  a.element_strides = es.data();
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
    KernelRunner r(Kernel(kStore, rank, bytes));
    const std::vector<uint32_t> old(t.elements, kPoison);
    auto g = r.Alloc<uint32_t>(t.elements, old);
    const auto box_data = Iota(bytes / 4, 7);
    auto buf = r.Alloc<uint32_t>(bytes / 4, box_data);
    const MapParam map = Encode(t, g.device, sc.box);
    int32_t c[5] = {};
    for (size_t i = 0; i < sc.coord.size(); ++i) c[i] = static_cast<int32_t>(sc.coord[i]);
    CollectingSink sink;
    r.device().SetSink(&sink);
    const absl::Status s = r.Launch("k", {1, 1, 1}, {1, 1, 1}, map, c[0], c[1], c[2], c[3], c[4], buf.device, 0u);
    r.device().SetSink(nullptr);
    INFO(s.message());
    REQUIRE(s.ok());
    // Reference: scatter the box into a copy of the old tensor.
    std::vector<uint32_t> want = old;
    std::vector<uint32_t> index(t.elements);
    for (size_t i = 0; i < index.size(); ++i) index[i] = static_cast<uint32_t>(i);
    const auto where = Reference(t, index, sc.coord, sc.box, {}, 0xffffffffu);
    uint32_t inside = 0;
    for (size_t e = 0; e < where.size(); ++e)
      if (where[e] != 0xffffffffu) want[where[e]] = box_data[e], ++inside;
    CHECK(r.Read(g) == want);
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
  SECTION("im2col, multicast and cta_group::2 are refused at load time") {
    for (const char* form :
         {"cp.async.bulk.tensor.3d.shared::cluster.global.im2col.mbarrier::complete_tx::bytes [%r4], [%rd2, {%c0, "
          "%c1, %c2}], [%r5], {%h0};",
          "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes.multicast::cluster "
          "[%r4], [%rd2, {%c0, %c1}], [%r5], %h0;",
          "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes.cta_group::2 [%r4], "
          "[%rd2, {%c0, %c1}], [%r5];"}) {
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
