// exec/ on hand-built Functions (no decoder): SIMT stack and the exact
// kIf/kElse/kFi streams, exit in divergent code, calls and recursion, indirect
// calls, barriers (ids, counts, arrive, red, deadlock), trap, vprintf,
// scheduling determinism and multi-worker launches.
//
// The few ALU handlers below are test-local stand-ins (the real ones live in
// ops/); control instructions get their handlers from SelectControlOp, as the
// decoder does.
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cstdio>
#include <cstring>
#include <algorithm>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "ptx_emulator/core/handlers.h"
#include "ptx_emulator/exec/fault_status.h"
#include "ptx_emulator/exec/schedule_policy.h"
#include "ptx_emulator/tests/control_record_checks.h"
#include "ptx_emulator/exec/testing_hooks.h"
#include "ptx_emulator/exec/warp.h"

namespace barracuda::emu {
namespace {

using protocol::Op;

// ---- test-local data handlers: ops[0] destination, ops[1..] sources
void Mov(const Inst& in, WarpCtx& c, uint32_t exec) {
  const uint64_t* a = c.Src(in.ops[1].ref);
  uint64_t* d = c.Dst(in.ops[0].ref);
  for (uint32_t m = exec; m; m &= m - 1) d[Lane(m)] = a[Lane(m)];
}
void Add(const Inst& in, WarpCtx& c, uint32_t exec) {
  const uint64_t* a = c.Src(in.ops[1].ref);
  const uint64_t* b = c.Src(in.ops[2].ref);
  uint64_t* d = c.Dst(in.ops[0].ref);
  for (uint32_t m = exec; m; m &= m - 1) d[Lane(m)] = a[Lane(m)] + b[Lane(m)];
}
void Mul(const Inst& in, WarpCtx& c, uint32_t exec) {
  const uint64_t* a = c.Src(in.ops[1].ref);
  const uint64_t* b = c.Src(in.ops[2].ref);
  uint64_t* d = c.Dst(in.ops[0].ref);
  for (uint32_t m = exec; m; m &= m - 1) d[Lane(m)] = a[Lane(m)] * b[Lane(m)];
}
// setp.lt.u64 p, a, b (ops[0] predicate)
void SetpLt(const Inst& in, WarpCtx& c, uint32_t exec) {
  const uint64_t* a = c.Src(in.ops[1].ref);
  const uint64_t* b = c.Src(in.ops[2].ref);
  uint32_t bits = 0;
  for (uint32_t m = exec; m; m &= m - 1) bits |= (a[Lane(m)] < b[Lane(m)] ? 1u : 0u) << Lane(m);
  c.preds[in.ops[0].index] = (c.preds[in.ops[0].index] & ~exec) | bits;
}
// out[ops[0]][thread linear in block + ntid.x * ctaid.x] = ops[1] (u32)
void StoreTid(const Inst& in, WarpCtx& c, uint32_t exec) {
  const uint64_t* base = c.Src(in.ops[0].ref);
  const uint64_t* v = c.Src(in.ops[1].ref);
  for (uint32_t m = exec; m; m &= m - 1) {
    const uint32_t l = Lane(m);
    const uint64_t t = c.warp_in_block * 32 + l + uint64_t{c.block_linear} * c.threads_per_block;
    reinterpret_cast<uint32_t*>(base[l])[t] = static_cast<uint32_t>(v[l]);
  }
}
// Frame loads/stores of 8 bytes at ops[1].offset / ops[0].offset.
void LdFrame(const Inst& in, WarpCtx& c, uint32_t exec) {
  uint64_t* d = c.Dst(in.ops[0].ref);
  for (uint32_t m = exec; m; m &= m - 1)
    std::memcpy(&d[Lane(m)], c.LocalWindow(Lane(m)) + c.frame_base + in.ops[1].offset, 8);
}
void StFrame(const Inst& in, WarpCtx& c, uint32_t exec) {
  const uint64_t* v = c.Src(in.ops[1].ref);
  for (uint32_t m = exec; m; m &= m - 1)
    std::memcpy(c.LocalWindow(Lane(m)) + c.frame_base + in.ops[0].offset, &v[Lane(m)], 8);
}
// Generic address of a frame slot (cvta.local of a local symbol).
void FrameAddr(const Inst& in, WarpCtx& c, uint32_t exec) {
  uint64_t* d = c.Dst(in.ops[0].ref);
  for (uint32_t m = exec; m; m &= m - 1)
    d[Lane(m)] = reinterpret_cast<uint64_t>(c.LocalWindow(Lane(m)) + c.frame_base + in.ops[1].offset);
}

Opnd Val(ValueRef r) {
  Opnd o;
  o.kind = Opnd::Kind::kValue;
  o.ref = r;
  return o;
}
Opnd Pred(uint32_t i, bool neg = false) {
  Opnd o;
  o.kind = Opnd::Kind::kPred;
  o.index = i;
  o.negated = neg;
  return o;
}
Opnd Frame(int64_t off) {
  Opnd o;
  o.kind = Opnd::Kind::kAddress;
  o.base = Opnd::AddrBase::kFrame;
  o.offset = off;
  return o;
}
ValueRef R(uint32_t i) { return RegisterRef(i); }
ValueRef S(SpecialReg r) { return SpecialRef(static_cast<uint32_t>(r)); }

class Builder {
 public:
  explicit Builder(std::string name, bool entry = true) {
    fn_ = std::make_unique<Function>();
    fn_->name = std::move(name);
    fn_->is_entry = entry;
    fn_->num_registers = 16;
    fn_->num_predicates = 4;
  }
  ValueRef K(uint64_t v) {
    const auto i = static_cast<uint32_t>(fn_->constants.size() / kLanes);
    fn_->constants.insert(fn_->constants.end(), kLanes, v);
    return ConstantRef(i);
  }
  uint32_t pc() const { return static_cast<uint32_t>(fn_->code.size()); }
  Inst& Data(Handler h, std::initializer_list<Opnd> ops) {
    Inst in;
    in.fn = h;
    for (const Opnd& o : ops) in.ops[in.num_ops++] = o;
    in.ptx_line = 100 + pc();
    fn_->code.push_back(in);
    return fn_->code.back();
  }
  Inst& Control(ptx::Opcode op, std::vector<std::string> mods, std::initializer_list<Opnd> ops,
                uint32_t guard = kNoPred, bool negated = false) {
    Inst in;
    in.opcode = op;
    in.guard = guard;
    in.guard_negated = negated;
    for (const Opnd& o : ops) in.ops[in.num_ops++] = o;
    in.ptx_line = 100 + pc();
    in.site = 1000 + pc();
    ptx::Guard g;
    if (guard != kNoPred) g.reg = "%p";
    const ptx::Instruction ir = ptx::Instruction::Make(op, std::move(mods), {}, g);
    in.info = ir.info;
    auto selected = SelectControlOp(ir, in);
    REQUIRE(selected.ok());
    REQUIRE(*selected);
    fn_->code.push_back(in);
    return fn_->code.back();
  }
  Inst& Bra(uint32_t target, uint32_t guard = kNoPred, int32_t reconv = -1, bool negated = false) {
    Opnd l;
    l.kind = Opnd::Kind::kLabel;
    l.index = target;
    Inst& in = Control(ptx::Opcode::kBra, {}, {l}, guard, negated);
    in.target = static_cast<int32_t>(target);
    in.reconv = reconv;
    return in;
  }
  void Exit() { Control(ptx::Opcode::kExit, {}, {}); }
  void Ret() { Control(ptx::Opcode::kRet, {}, {}); }
  void BarSync(uint32_t id, uint32_t count = 0) {
    if (count != 0) {
      Control(ptx::Opcode::kBar, {".sync"}, {Val(K(id)), Val(K(count))});
    } else {
      Control(ptx::Opcode::kBar, {".sync"}, {Val(K(id))});
    }
  }
  Function& fn() { return *fn_; }
  std::unique_ptr<Function> Take() { return std::move(fn_); }

 private:
  std::unique_ptr<Function> fn_;
};

struct Rig {
  Device device;
  CollectingSink sink;
  Rig() {
    device.schedule().workers = 1;
    device.SetSink(&sink);
  }
  uint32_t* Buffer(size_t n) {
    auto p = device.memory().Allocate(n * 4, DeviceMemory::Kind::kDevice);
    REQUIRE(p.ok());
    return static_cast<uint32_t*>(*p);
  }
  absl::Status Launch(uint32_t k, Dim3 grid, Dim3 block) {
    return device.Launch(k, LaunchConfig{grid, block, 0, 0, false}, nullptr);
  }
  // (op, mask[, then_mask]) of control records of the last launch, KernelBegin/End excluded.
  std::vector<std::string> Control(bool with_exit = true) const {
    std::vector<std::string> out;
    for (const auto& r : sink.Flatten(sink.launches.size() - 1)) {
      const Op op = protocol::OpOf(r.header);
      char buf[64];
      if (op == Op::kIf) {
        std::snprintf(buf, sizeof buf, "if %08x %08x", r.header.active_mask, r.branch.then_mask);
      } else if (op == Op::kElse) {
        std::snprintf(buf, sizeof buf, "else %08x", r.header.active_mask);
      } else if (op == Op::kFi) {
        std::snprintf(buf, sizeof buf, "fi %08x", r.header.active_mask);
      } else if (op == Op::kExit && with_exit) {
        std::snprintf(buf, sizeof buf, "exit %08x", r.header.active_mask);
      } else if (op == Op::kBarrier || op == Op::kBarrierArrive) {
        std::snprintf(buf, sizeof buf, "%s w%u %08x id%u n%u", op == Op::kBarrier ? "bar" : "arrive", r.header.warp_id,
                      r.header.active_mask, r.barrier.barrier_id, r.barrier.thread_count);
      } else {
        continue;
      }
      out.emplace_back(buf);
    }
    return out;
  }
};

TEST_CASE("if/else divergence emits if, else, fi and reconverges", "[exec][simt]") {
  Rig rig;
  uint32_t* out = rig.Buffer(32);
  Builder b("k");
  const ValueRef base = b.K(reinterpret_cast<uint64_t>(out));
  b.Data(SetpLt, {Pred(0), Val(S(SpecialReg::kLaneId)), Val(b.K(16))});  // 0
  b.Bra(4, 0, 6);                                                        // 1: @p0 bra 4
  b.Data(Mov, {Val(R(0)), Val(b.K(2))});                                 // 2 (else)
  b.Bra(6);                                                              // 3
  b.Data(Mov, {Val(R(0)), Val(b.K(1))});                                 // 4 (then)
  b.Data(Add, {Val(R(0)), Val(R(0)), Val(b.K(10))});                     // 5
  b.Data(StoreTid, {Val(base), Val(R(0))});                              // 6 reconvergence
  b.Exit();
  const uint32_t k = InstallFunctionForTesting(rig.device, b.Take());
  REQUIRE(rig.Launch(k, {1, 1, 1}, {32, 1, 1}).ok());
  for (uint32_t l = 0; l < 32; ++l) CHECK(out[l] == (l < 16 ? 11u : 2u));
  CHECK(rig.Control() == std::vector<std::string>{"if ffffffff 0000ffff", "else ffff0000", "fi ffffffff",
                                                  "exit ffffffff"});
  // Launch records.
  REQUIRE(rig.sink.launches.size() == 1);
  CHECK(protocol::OpOf(rig.sink.launches[0].begin.header) == Op::kKernelBegin);
  CHECK(rig.sink.launches[0].begin.kernel.launch_id == 1);
  CHECK(rig.sink.launches[0].begin.kernel.block[0] == 32);
  CHECK(protocol::OpOf(rig.sink.launches[0].end.header) == Op::kKernelEnd);
  CHECK(rig.sink.names == std::vector<std::string>{"k"});
}

TEST_CASE("uniform branches emit nothing, a side at the reconvergence point still pairs", "[exec][simt]") {
  Rig rig;
  uint32_t* out = rig.Buffer(64);
  Builder b("k");
  const ValueRef base = b.K(reinterpret_cast<uint64_t>(out));
  b.Data(Mov, {Val(R(0)), Val(b.K(5))});                                 // 0
  b.Data(SetpLt, {Pred(0), Val(S(SpecialReg::kTidX)), Val(b.K(32))});    // 1: warp-uniform
  b.Bra(4, 0, 4);                                                        // 2: @p0 bra 4 (uniform per warp)
  b.Data(Mov, {Val(R(0)), Val(b.K(6))});                                 // 3
  b.Data(SetpLt, {Pred(1), Val(S(SpecialReg::kLaneId)), Val(b.K(3))});   // 4
  b.Bra(7, 1, 7);                                                        // 5: @p1 bra 7: taken side at reconv
  b.Data(Add, {Val(R(0)), Val(R(0)), Val(b.K(100))});                    // 6
  b.Data(StoreTid, {Val(base), Val(R(0))});                              // 7
  b.Exit();
  const uint32_t k = InstallFunctionForTesting(rig.device, b.Take());
  REQUIRE(rig.Launch(k, {1, 1, 1}, {64, 1, 1}).ok());
  for (uint32_t t = 0; t < 64; ++t) CHECK(out[t] == (t < 32 ? 5u : 6u) + (t % 32 < 3 ? 0u : 100u));
  CHECK(rig.Control() == std::vector<std::string>{"if ffffffff 00000007", "else fffffff8", "fi ffffffff",
                                                  "exit ffffffff", "if ffffffff 00000007", "else fffffff8",
                                                  "fi ffffffff", "exit ffffffff"});
}

TEST_CASE("loop with per-lane trip counts diverges repeatedly at one branch", "[exec][simt]") {
  Rig rig;
  uint32_t* out = rig.Buffer(32);
  Builder b("k");
  const ValueRef base = b.K(reinterpret_cast<uint64_t>(out));
  b.Data(Mov, {Val(R(1)), Val(S(SpecialReg::kLaneId))});     // 0
  b.Data(Mov, {Val(R(0)), Val(b.K(0))});                      // 1
  b.Data(Add, {Val(R(0)), Val(R(0)), Val(b.K(1))});           // 2: loop
  b.Data(SetpLt, {Pred(0), Val(R(0)), Val(R(1))});            // 3
  b.Bra(2, 0, 5);                                              // 4: @p0 bra 2
  b.Data(StoreTid, {Val(base), Val(R(0))});                   // 5
  b.Exit();
  const uint32_t k = InstallFunctionForTesting(rig.device, b.Take());
  REQUIRE(rig.Launch(k, {1, 1, 1}, {32, 1, 1}).ok());
  for (uint32_t l = 0; l < 32; ++l) CHECK(out[l] == std::max(1u, l));
  std::vector<std::string> expected;
  for (uint32_t i = 1; i <= 30; ++i) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "if %08x %08x", i == 1 ? kFullMask : ~((1u << i) - 1), ~((2u << i) - 1));
    expected.emplace_back(buf);
  }
  for (uint32_t i = 30; i >= 1; --i) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "else %08x", i == 1 ? 3u : 1u << i);  // the lanes that left at this depth
    expected.emplace_back(buf);
    std::snprintf(buf, sizeof buf, "fi %08x", i == 1 ? kFullMask : ~((1u << i) - 1));
    expected.emplace_back(buf);
  }
  expected.emplace_back("exit ffffffff");
  CHECK(rig.Control() == expected);
  testing::CheckIfElseFiNested(rig.sink.Flatten(0));
}

TEST_CASE("nested divergence nests the records", "[exec][simt]") {
  Rig rig;
  uint32_t* out = rig.Buffer(32);
  Builder b("k");
  const ValueRef base = b.K(reinterpret_cast<uint64_t>(out));
  b.Data(Mov, {Val(R(0)), Val(b.K(0))});                                // 0
  b.Data(SetpLt, {Pred(0), Val(S(SpecialReg::kLaneId)), Val(b.K(16))}); // 1
  b.Data(SetpLt, {Pred(1), Val(S(SpecialReg::kLaneId)), Val(b.K(8))});  // 2
  b.Bra(8, 0, 9, /*negated=*/true);                                     // 3: @!p0 bra 8 (lanes >= 16)
  b.Bra(6, 1, 7, true);                                                 // 4: @!p1 bra 6 (lanes 8..15)
  b.Data(Add, {Val(R(0)), Val(R(0)), Val(b.K(1))});                     // 5: lanes 0..7
  b.Data(Add, {Val(R(0)), Val(R(0)), Val(b.K(10))});                    // 6: lanes 0..15
  b.Bra(9);                                                             // 7: inner reconvergence
  b.Data(Add, {Val(R(0)), Val(R(0)), Val(b.K(100))});                   // 8: lanes >= 16
  b.Data(StoreTid, {Val(base), Val(R(0))});                             // 9
  b.Exit();
  // Note pc 6 is inside the inner split: the inner reconvergence is 7 (6 falls into 7).
  b.fn().code[4].reconv = 6;
  const uint32_t k = InstallFunctionForTesting(rig.device, b.Take());
  REQUIRE(rig.Launch(k, {1, 1, 1}, {32, 1, 1}).ok());
  for (uint32_t l = 0; l < 32; ++l) CHECK(out[l] == (l < 8 ? 11u : l < 16 ? 10u : 100u));
  CHECK(rig.Control() == std::vector<std::string>{"if ffffffff ffff0000", "else 0000ffff", "if 0000ffff 0000ff00",
                                                  "else 000000ff", "fi 0000ffff", "fi ffffffff", "exit ffffffff"});
}

TEST_CASE("exit in divergent code pairs the records and reconverges at exit", "[exec][simt]") {
  Rig rig;
  uint32_t* out = rig.Buffer(32);
  Builder b("k");
  const ValueRef base = b.K(reinterpret_cast<uint64_t>(out));
  b.Data(SetpLt, {Pred(0), Val(S(SpecialReg::kLaneId)), Val(b.K(8))});  // 0
  b.Bra(4, 0, kReconvAtExit);                                            // 1
  b.Data(StoreTid, {Val(base), Val(b.K(7))});                            // 2
  b.Exit();                                                              // 3
  b.Data(StoreTid, {Val(base), Val(b.K(9))});                            // 4
  b.Exit();                                                              // 5
  const uint32_t k = InstallFunctionForTesting(rig.device, b.Take());
  REQUIRE(rig.Launch(k, {1, 1, 1}, {32, 1, 1}).ok());
  for (uint32_t l = 0; l < 32; ++l) CHECK(out[l] == (l < 8 ? 9u : 7u));
  CHECK(rig.Control() == std::vector<std::string>{"if ffffffff 000000ff", "exit 000000ff", "else ffffff00",
                                                  "exit ffffff00", "fi 00000000"});
}

TEST_CASE("partial last warp: only existing lanes run", "[exec][simt]") {
  Rig rig;
  uint32_t* out = rig.Buffer(48);
  Builder b("k");
  const ValueRef base = b.K(reinterpret_cast<uint64_t>(out));
  b.Data(Add, {Val(R(0)), Val(S(SpecialReg::kTidX)), Val(b.K(1))});
  b.Data(StoreTid, {Val(base), Val(R(0))});
  b.Exit();
  const uint32_t k = InstallFunctionForTesting(rig.device, b.Take());
  REQUIRE(rig.Launch(k, {1, 1, 1}, {40, 1, 1}).ok());
  for (uint32_t t = 0; t < 40; ++t) CHECK(out[t] == t + 1);
  for (uint32_t t = 40; t < 48; ++t) CHECK(out[t] == 0);
  CHECK(rig.Control() == std::vector<std::string>{"exit ffffffff", "exit 000000ff"});
}

// fact(n) = n < 2 ? 1 : n * fact(n - 1), frame: [0] n, [8] return, [16] arg, [24] retval.
uint32_t InstallFactorial(Device& device) {
  Builder f("fact", false);
  f.fn().frame_bytes = 32;
  f.fn().params = {{0, 8, 8}};
  f.fn().returns = {{8, 8, 8}};
  const uint32_t index = device.function_count();
  f.fn().call_sites.push_back({static_cast<int32_t>(index), kNoRef, Builtin::kNone, {16}, {8}, {24}, {8}});
  f.Data(LdFrame, {Val(R(0)), Frame(0)});                   // 0
  f.Data(SetpLt, {Pred(0), Val(R(0)), Val(f.K(2))});         // 1
  f.Bra(9, 0, 10);                                           // 2: @p0 bra 9
  f.Data(Add, {Val(R(1)), Val(R(0)), Val(f.K(~0ull))});      // 3: n - 1
  f.Data(StFrame, {Frame(16), Val(R(1))});                   // 4
  f.Control(ptx::Opcode::kCall, {}, {}).aux = 0;             // 5
  f.Data(LdFrame, {Val(R(2)), Frame(24)});                   // 6
  f.Data(Mul, {Val(R(3)), Val(R(0)), Val(R(2))});            // 7
  f.Bra(10);                                                 // 8
  f.Data(Mov, {Val(R(3)), Val(f.K(1))});                     // 9
  f.Data(StFrame, {Frame(8), Val(R(3))});                    // 10
  f.Ret();                                                   // 11
  return InstallFunctionForTesting(device, f.Take());
}

TEST_CASE("recursive calls with divergent depth and returns", "[exec][call]") {
  Rig rig;
  const uint32_t fact = InstallFactorial(rig.device);
  uint32_t* out = rig.Buffer(32);
  Builder b("k");
  const ValueRef base = b.K(reinterpret_cast<uint64_t>(out));
  b.fn().frame_bytes = 16;
  b.fn().call_sites.push_back({static_cast<int32_t>(fact), kNoRef, Builtin::kNone, {0}, {8}, {8}, {8}});
  b.Data(StFrame, {Frame(0), Val(S(SpecialReg::kLaneId))});
  b.Control(ptx::Opcode::kCall, {}, {}).aux = 0;
  b.Data(LdFrame, {Val(R(0)), Frame(8)});
  b.Data(StoreTid, {Val(base), Val(R(0))});
  b.Exit();
  const uint32_t k = InstallFunctionForTesting(rig.device, b.Take());
  REQUIRE(rig.Launch(k, {1, 1, 1}, {32, 1, 1}).ok());
  for (uint32_t l = 0; l < 32; ++l) {
    uint64_t f = 1;
    for (uint64_t i = 2; i <= l; ++i) f *= i;
    CHECK(out[l] == static_cast<uint32_t>(f));
  }
  testing::CheckIfElseFiNested(rig.sink.Flatten(0));
}

TEST_CASE("unbounded recursion is a stack overflow fault", "[exec][call]") {
  Rig rig;
  Builder f("forever", false);
  f.fn().frame_bytes = 1024;
  const uint32_t index = rig.device.function_count();
  f.fn().call_sites.push_back({static_cast<int32_t>(index), kNoRef, Builtin::kNone, {}, {}, {}, {}});
  f.Control(ptx::Opcode::kCall, {}, {}).aux = 0;
  f.Ret();
  InstallFunctionForTesting(rig.device, f.Take());
  Builder b("k");
  b.fn().call_sites.push_back({static_cast<int32_t>(index), kNoRef, Builtin::kNone, {}, {}, {}, {}});
  b.Control(ptx::Opcode::kCall, {}, {}).aux = 0;
  b.Exit();
  const uint32_t k = InstallFunctionForTesting(rig.device, b.Take());
  const absl::Status s = rig.Launch(k, {1, 1, 1}, {32, 1, 1});
  CHECK(FaultKindOf(s) == FaultKind::kStackOverflow);
  CHECK_THAT(std::string(s.message()), Catch::Contains("stack overflow: call to forever"));
}

TEST_CASE("indirect calls serialise distinct targets, a bad pointer faults", "[exec][call]") {
  Rig rig;
  // f_a(x) = x + 100, f_b(x) = x + 200: frame [0] x, [8] ret
  uint32_t fa = 0, fb = 0;
  for (int which = 0; which < 2; ++which) {
    Builder f(which == 0 ? "fa" : "fb", false);
    f.fn().frame_bytes = 16;
    f.fn().params = {{0, 8, 8}};
    f.fn().returns = {{8, 8, 8}};
    f.Data(LdFrame, {Val(R(0)), Frame(0)});
    f.Data(Add, {Val(R(0)), Val(R(0)), Val(f.K(which == 0 ? 100 : 200))});
    f.Data(StFrame, {Frame(8), Val(R(0))});
    f.Ret();
    (which == 0 ? fa : fb) = InstallFunctionForTesting(rig.device, f.Take());
  }
  uint32_t* out = rig.Buffer(32);
  Builder b("k");
  const ValueRef base = b.K(reinterpret_cast<uint64_t>(out));
  b.fn().frame_bytes = 16;
  b.fn().call_sites.push_back({-1, R(1), Builtin::kNone, {0}, {8}, {8}, {8}});
  b.Data(Mov, {Val(R(1)), Val(b.K(kFunctionPointerTag | fb))});         // 0
  b.Data(SetpLt, {Pred(0), Val(S(SpecialReg::kLaneId)), Val(b.K(10))}); // 1
  b.Bra(4, 0, 4, true);                                                 // 2: @!p0 bra 4
  b.Data(Mov, {Val(R(1)), Val(b.K(kFunctionPointerTag | fa))});         // 3
  b.Data(StFrame, {Frame(0), Val(S(SpecialReg::kLaneId))});             // 4
  b.Control(ptx::Opcode::kCall, {}, {}).aux = 0;                        // 5
  b.Data(LdFrame, {Val(R(0)), Frame(8)});                               // 6
  b.Data(StoreTid, {Val(base), Val(R(0))});                             // 7
  b.Exit();
  const uint32_t k = InstallFunctionForTesting(rig.device, b.Take());
  REQUIRE(rig.Launch(k, {1, 1, 1}, {32, 1, 1}).ok());
  for (uint32_t l = 0; l < 32; ++l) CHECK(out[l] == l + (l < 10 ? 100u : 200u));

  Builder bad("bad");
  bad.fn().frame_bytes = 16;
  bad.fn().call_sites.push_back({-1, R(1), Builtin::kNone, {}, {}, {}, {}});
  bad.Data(Mov, {Val(R(1)), Val(bad.K(0x1234))});
  bad.Control(ptx::Opcode::kCall, {}, {}).aux = 0;
  bad.Exit();
  const uint32_t kb = InstallFunctionForTesting(rig.device, bad.Take());
  const absl::Status s = rig.Launch(kb, {1, 1, 1}, {32, 1, 1});
  CHECK(FaultKindOf(s) == FaultKind::kInvalidPc);
  CHECK_THAT(std::string(s.message()), Catch::Contains("block (0,0,0), thread (0,0,0)"));
}

TEST_CASE("whole-block barrier orders warps, exited threads stop counting", "[exec][barrier]") {
  for (auto policy : {ScheduleOptions::Policy::kRoundRobin, ScheduleOptions::Policy::kRandom}) {
    for (uint64_t seed = 0; seed < 4; ++seed) {
      Rig rig;
      rig.device.schedule().policy = policy;
      rig.device.schedule().seed = seed;
      rig.device.schedule().quantum = 3;
      uint32_t* out = rig.Buffer(96);
      uint32_t* flag = rig.Buffer(1);
      Builder b("k");
      const ValueRef base = b.K(reinterpret_cast<uint64_t>(out));
      const ValueRef fbase = b.K(reinterpret_cast<uint64_t>(flag) - 4 * 0);  // flag[0] written by thread 0
      // Threads >= 64 exit at once; warp 0 writes the flag, then all sync and read it.
      b.Data(SetpLt, {Pred(0), Val(S(SpecialReg::kTidX)), Val(b.K(64))});   // 0
      b.Bra(3, 0, 3);                                                       // 1: @p0 bra 3
      b.Exit();                                                             // 2
      b.Data(SetpLt, {Pred(1), Val(S(SpecialReg::kTidX)), Val(b.K(1))});    // 3
      b.Bra(6, 1, 6, true);                                                 // 4: @!p1 bra 6
      b.Data(StoreTid, {Val(fbase), Val(b.K(42))});                         // 5: thread 0: flag = 42
      b.BarSync(0);                                                         // 6
      b.Data(LdFrame, {Val(R(0)), Frame(0)});                               // 7 (placeholder, replaced)
      b.Data(StoreTid, {Val(base), Val(R(0))});                             // 8
      b.Exit();
      // 7: r0 = flag[0] (all lanes): a mov from a constant holding the address is not a load,
      // so use a tiny load handler.
      b.fn().code[7].fn = [](const Inst& in, WarpCtx& c, uint32_t exec) {
        const uint64_t* a = c.Src(in.ops[1].ref);
        uint64_t* d = c.Dst(in.ops[0].ref);
        for (uint32_t m = exec; m; m &= m - 1) d[Lane(m)] = *reinterpret_cast<const uint32_t*>(a[Lane(m)]);
      };
      b.fn().code[7].ops[1] = Val(fbase);
      const uint32_t k = InstallFunctionForTesting(rig.device, b.Take());
      REQUIRE(rig.Launch(k, {1, 1, 1}, {96, 1, 1}).ok());
      for (uint32_t t = 0; t < 64; ++t) REQUIRE(out[t] == 42);
      for (uint32_t t = 64; t < 96; ++t) REQUIRE(out[t] == 0);
      testing::CheckIfElseFiNested(rig.sink.Flatten(0));
    }
  }
}

TEST_CASE("barriers that can never complete are reported as a deadlock", "[exec][barrier]") {
  Rig rig;
  Builder b("k");
  b.Data(SetpLt, {Pred(0), Val(S(SpecialReg::kTidX)), Val(b.K(32))});  // 0
  b.Bra(4, 0, kReconvAtExit);                                          // 1: warp 0 -> 4
  b.BarSync(1);                                                        // 2: warp 1 waits at 1
  b.Exit();                                                            // 3
  b.BarSync(0);                                                        // 4: warp 0 waits at 0
  b.Exit();
  const uint32_t k = InstallFunctionForTesting(rig.device, b.Take());
  const absl::Status s = rig.Launch(k, {2, 1, 1}, {64, 1, 1});
  REQUIRE(FaultKindOf(s) == FaultKind::kDeadlock);
  const std::string msg(s.message());
  CHECK_THAT(msg, Catch::StartsWith("deadlock: "));
  CHECK_THAT(msg, Catch::Contains("warp 0 waits at barrier 0 (PTX line 104"));
  CHECK_THAT(msg, Catch::Contains("warp 1 waits at barrier 1 (PTX line 102"));
  CHECK_THAT(msg, Catch::Contains("32 of 64 threads arrived"));
  CHECK_THAT(msg, Catch::Contains("block (0,0,0)"));
}

TEST_CASE("divergent barrier inside one warp deadlocks instead of hanging", "[exec][barrier]") {
  Rig rig;
  Builder b("k");
  b.Data(SetpLt, {Pred(0), Val(S(SpecialReg::kLaneId)), Val(b.K(16))});  // 0
  b.Bra(4, 0, 5, true);                                                  // 1: @!p0 bra 4
  b.BarSync(0);                                                          // 2: lanes < 16
  b.Bra(5);                                                              // 3
  b.BarSync(1);                                                          // 4: lanes >= 16 (run first)
  b.Exit();                                                              // 5
  const uint32_t k = InstallFunctionForTesting(rig.device, b.Take());
  const absl::Status s = rig.Launch(k, {1, 1, 1}, {32, 1, 1});
  REQUIRE(FaultKindOf(s) == FaultKind::kDeadlock);
  CHECK_THAT(std::string(s.message()), Catch::Contains("waits at barrier 1 (PTX line 104"));
  CHECK_THAT(std::string(s.message()), Catch::Contains("16 of 32 threads arrived"));
}

TEST_CASE("bar.arrive producer / bar.sync consumer with ids and counts, bar.red", "[exec][barrier]") {
  for (uint64_t seed = 0; seed < 8; ++seed) {
    Rig rig;
    rig.device.schedule().policy = ScheduleOptions::Policy::kRandom;
    rig.device.schedule().seed = seed;
    rig.device.schedule().quantum = 2;
    uint32_t* out = rig.Buffer(96);
    uint32_t* data = rig.Buffer(96);
    Builder b("k");
    const ValueRef obase = b.K(reinterpret_cast<uint64_t>(out));
    const ValueRef dbase = b.K(reinterpret_cast<uint64_t>(data));
    // warp 0 produces data[t + 32] and arrives at barrier 3 (count 64); warp 1
    // syncs on barrier 3 and copies; warp 2 is not involved and exits. Then
    // warps 0 and 1 do bar.red.popc on barrier 5 (count 64) over "tid odd".
    b.Data(SetpLt, {Pred(0), Val(S(SpecialReg::kTidX)), Val(b.K(64))});    // 0
    b.Bra(3, 0, kReconvAtExit);                                             // 1
    b.Exit();                                                               // 2
    b.Data(SetpLt, {Pred(1), Val(S(SpecialReg::kTidX)), Val(b.K(32))});    // 3
    b.Bra(9, 1, 12, true);                                                  // 4: @!p1 bra 9 (warp 1)
    b.Data(Add, {Val(R(0)), Val(S(SpecialReg::kTidX)), Val(b.K(1000))});    // 5
    b.Data(StoreTid, {Val(b.K(reinterpret_cast<uint64_t>(data + 32))), Val(R(0))});  // 6
    b.Control(ptx::Opcode::kBar, {".arrive"}, {Val(b.K(3)), Val(b.K(64))});          // 7
    b.Bra(12);                                                              // 8
    b.BarSync(3, 64);                                                       // 9
    b.Data([](const Inst& in, WarpCtx& c, uint32_t exec) {                  // 10: r0 = data[tid]
      const uint64_t* a = c.Src(in.ops[1].ref);
      uint64_t* d = c.Dst(in.ops[0].ref);
      for (uint32_t m = exec; m; m &= m - 1)
        d[Lane(m)] = reinterpret_cast<const uint32_t*>(a[Lane(m)])[c.sregs[Lane(m)]];  // kTidX row
    }, {Val(R(0)), Val(dbase)});
    b.Data(StoreTid, {Val(obase), Val(R(0))});                              // 11
    // 12: p2 = tid odd (tid & 1 via laneid parity: lanes < 1 ... use (tid * 2^63) < 2^63)
    b.Data(Mul, {Val(R(2)), Val(S(SpecialReg::kTidX)), Val(b.K(uint64_t{1} << 63))});  // 12
    b.Data(SetpLt, {Pred(2), Val(b.K((uint64_t{1} << 63) - 1)), Val(R(2))});           // 13: odd
    {
      Inst& red = b.Control(ptx::Opcode::kBar, {".red", ".popc", ".u32"},
                            {Val(R(3)), Val(b.K(5)), Val(b.K(64)), Pred(2)});            // 14
      red.info.bool_op = ptx::BoolOp::kPopc;
    }
    b.Data(StoreTid, {Val(b.K(reinterpret_cast<uint64_t>(data))), Val(R(3))});         // 15
    b.Exit();
    b.fn().code[10].ops[0] = Val(R(0));
    const uint32_t k = InstallFunctionForTesting(rig.device, b.Take());
    // Data for warp 1 to read lives at data[32..63], written by warp 0 at data + 32 + tid.
    const absl::Status s = rig.Launch(k, {1, 1, 1}, {96, 1, 1});
    REQUIRE(s.ok());
    for (uint32_t t = 32; t < 64; ++t) REQUIRE(out[t] == t - 32 + 1000);
    for (uint32_t t = 0; t < 64; ++t) REQUIRE(data[t] == 32);  // popc over 64 threads, half odd
    const auto ctl = rig.Control(false);
    CHECK(std::count(ctl.begin(), ctl.end(), "arrive w0 ffffffff id3 n64") == 1);
    CHECK(std::count(ctl.begin(), ctl.end(), "bar w1 ffffffff id3 n64") == 1);
    CHECK(std::count(ctl.begin(), ctl.end(), "bar w0 ffffffff id5 n64") == 1);
    CHECK(std::count(ctl.begin(), ctl.end(), "bar w1 ffffffff id5 n64") == 1);
  }
}

TEST_CASE("trap faults with the kind, PTX line and coordinates", "[exec][fault]") {
  Rig rig;
  Builder b("k");
  b.Data(SetpLt, {Pred(0), Val(b.K(4)), Val(S(SpecialReg::kLaneId))});  // lanes > 4
  b.Control(ptx::Opcode::kTrap, {}, {}, 0);
  b.Exit();
  const uint32_t k = InstallFunctionForTesting(rig.device, b.Take());
  const absl::Status s = rig.Launch(k, {3, 1, 1}, {32, 1, 1});
  REQUIRE(FaultKindOf(s) == FaultKind::kTrap);
  CHECK_THAT(std::string(s.message()), Catch::StartsWith("trap: kernel trapped (PTX line 101)"));
  CHECK_THAT(std::string(s.message()), Catch::Contains("block (0,0,0), thread (5,0,0)"));
}

TEST_CASE("launch validation", "[exec][launch]") {
  Rig rig;
  Builder b("k");
  b.Exit();
  b.fn().max_threads = 128;
  b.fn().static_shared_bytes = 1024;
  const uint32_t k = InstallFunctionForTesting(rig.device, b.Take());
  CHECK(absl::IsInvalidArgument(rig.Launch(k, {1, 1, 1}, {256, 1, 1})));
  CHECK(absl::IsInvalidArgument(rig.Launch(k, {0, 1, 1}, {32, 1, 1})));
  CHECK(absl::IsInvalidArgument(rig.device.Launch(k, LaunchConfig{{1, 1, 1}, {32, 1, 1}, 200 * 1024, 0, false}, nullptr)));
  CHECK(absl::IsInvalidArgument(rig.device.Launch(k, LaunchConfig{{10000, 1, 1}, {32, 1, 1}, 0, 0, true}, nullptr)));
  CHECK(rig.Launch(k, {2, 2, 2}, {32, 2, 2}).ok());
}

TEST_CASE("special registers and parameter buffer", "[exec][launch]") {
  Rig rig;
  uint32_t* out = rig.Buffer(6 * 64);
  Builder b("k");
  b.fn().params = {{0, 4, 4}, {8, 8, 8}};
  b.fn().param_buffer_bytes = 16;
  // r0 = ctaid.y * 1000 + tid.y * 100 + tid.x + smid*0 + param0
  b.Data(Mul, {Val(R(0)), Val(S(SpecialReg::kCtaidY)), Val(b.K(1000))});
  b.Data(Mul, {Val(R(1)), Val(S(SpecialReg::kTidY)), Val(b.K(100))});
  b.Data(Add, {Val(R(0)), Val(R(0)), Val(R(1))});
  b.Data(Add, {Val(R(0)), Val(R(0)), Val(S(SpecialReg::kTidX))});
  b.Data([](const Inst& in, WarpCtx& c, uint32_t exec) {  // r0 += param u32 at 0; r2 = param u64 at 8
    uint32_t p0;
    uint64_t p1;
    std::memcpy(&p0, c.param_base, 4);
    std::memcpy(&p1, c.param_base + 8, 8);
    for (uint32_t m = exec; m; m &= m - 1) c.regs[Lane(m)] += p0, c.regs[2 * 32 + Lane(m)] = p1;
    (void)in;
  }, {});
  b.Data(StoreTid, {Val(R(2)), Val(R(0))});
  b.Exit();
  const uint32_t k = InstallFunctionForTesting(rig.device, b.Take());
  uint32_t p0 = 7;
  uint64_t p1 = reinterpret_cast<uint64_t>(out);
  void* args[] = {&p0, &p1};
  REQUIRE(rig.device.Launch(k, LaunchConfig{{1, 3, 1}, {8, 8, 1}, 0, 0, false}, args).ok());
  for (uint32_t blk = 0; blk < 3; ++blk)
    for (uint32_t t = 0; t < 64; ++t) CHECK(out[blk * 64 + t] == blk * 1000 + (t / 8) * 100 + t % 8 + 7);
}

TEST_CASE("%clock64 and %globaltimer count executed warp instructions", "[exec][launch]") {
  Rig rig;
  uint32_t* out = rig.Buffer(64);
  Builder b("k");
  const ValueRef base = b.K(reinterpret_cast<uint64_t>(out));
  b.Data(Mov, {Val(R(0)), Val(b.K(0))});                                   // 0
  b.Data(Mov, {Val(R(0)), Val(S(SpecialReg::kClock64))}).reads_dynamic_sreg = true;  // 1: 1 executed before
  b.Data(Add, {Val(R(1)), Val(S(SpecialReg::kGlobalTimer)), Val(R(0))}).reads_dynamic_sreg = true;  // 2
  b.Data(StoreTid, {Val(base), Val(R(1))});
  b.Exit();
  const uint32_t k = InstallFunctionForTesting(rig.device, b.Take());
  REQUIRE(rig.Launch(k, {1, 1, 1}, {64, 1, 1}).ok());
  for (uint32_t t = 0; t < 64; ++t) CHECK(out[t] == 1 * kCyclesPerInstruction + 2);
}

TEST_CASE("vprintf prints per lane in lane order", "[exec][builtin]") {
  Rig rig;
  const char fmt_text[] = "lane %d: %5.2f %s|%llx\n";
  auto fmt = rig.device.memory().Allocate(sizeof fmt_text, DeviceMemory::Kind::kDevice);
  REQUIRE(fmt.ok());
  std::memcpy(*fmt, fmt_text, sizeof fmt_text);
  auto word = rig.device.memory().Allocate(8, DeviceMemory::Kind::kDevice);
  REQUIRE(word.ok());
  std::memcpy(*word, "ok", 3);
  Builder b("k");
  // frame: [0] fmt ptr arg, [8] args ptr arg, [16] ret, [32..64) the packed buffer:
  // int at 32, double at 40, char* at 48, u64 at 56.
  b.fn().frame_bytes = 64;
  b.fn().call_sites.push_back({-1, kNoRef, Builtin::kVprintf, {0, 8}, {8, 8}, {16}, {4}});
  b.Data(StFrame, {Frame(0), Val(b.K(reinterpret_cast<uint64_t>(*fmt)))});
  b.Data(FrameAddr, {Val(R(0)), Frame(32)});
  b.Data(StFrame, {Frame(8), Val(R(0))});
  b.Data(StFrame, {Frame(32), Val(S(SpecialReg::kLaneId))});
  double half = 2.5;
  uint64_t bits;
  std::memcpy(&bits, &half, 8);
  b.Data(StFrame, {Frame(40), Val(b.K(bits))});
  b.Data(StFrame, {Frame(48), Val(b.K(reinterpret_cast<uint64_t>(*word)))});
  b.Data(StFrame, {Frame(56), Val(b.K(0xabcdef0123ull))});
  b.Data(SetpLt, {Pred(0), Val(S(SpecialReg::kLaneId)), Val(b.K(3))});
  b.Control(ptx::Opcode::kCall, {}, {}, 0).aux = 0;
  b.Exit();
  const uint32_t k = InstallFunctionForTesting(rig.device, b.Take());
  std::fflush(stdout);
  char path[] = "/tmp/exec_vprintf_XXXXXX";
  const int fd = mkstemp(path);
  REQUIRE(fd >= 0);
  const int saved = dup(1);
  dup2(fd, 1);
  const absl::Status s = rig.Launch(k, {1, 1, 1}, {32, 1, 1});
  std::fflush(stdout);
  dup2(saved, 1);
  close(saved);
  close(fd);
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  std::remove(path);
  REQUIRE(s.ok());
  CHECK(text.str() ==
        "lane 0:  2.50 ok|abcdef0123\nlane 1:  2.50 ok|abcdef0123\nlane 2:  2.50 ok|abcdef0123\n");
}

TEST_CASE("device malloc and free", "[exec][builtin]") {
  Rig rig;
  uint32_t* out = rig.Buffer(32);
  const uint64_t before = rig.device.memory().bytes_in_use();
  Builder b("k");
  // frame: [0] size arg, [8] returned pointer, [16] free's argument
  b.fn().frame_bytes = 32;
  b.fn().call_sites.push_back({-1, kNoRef, Builtin::kMalloc, {0}, {8}, {8}, {8}});
  b.fn().call_sites.push_back({-1, kNoRef, Builtin::kFree, {16}, {8}, {}, {}});
  b.Data(StFrame, {Frame(0), Val(b.K(100))});
  b.Control(ptx::Opcode::kCall, {}, {}).aux = 0;
  b.Data(LdFrame, {Val(R(0)), Frame(8)});
  b.Data([](const Inst& in, WarpCtx& c, uint32_t exec) {  // *(u32*)p = lane; out[lane] = *(u32*)p + 1
    const uint64_t* p = c.Src(in.ops[0].ref);
    const uint64_t* o = c.Src(in.ops[1].ref);
    for (uint32_t m = exec; m; m &= m - 1) {
      const uint32_t l = Lane(m);
      if (!c.memory->InRange(p[l], 100)) continue;
      *reinterpret_cast<uint32_t*>(p[l]) = l;
      reinterpret_cast<uint32_t*>(o[l])[l] = *reinterpret_cast<uint32_t*>(p[l]) + 1;
    }
  }, {Val(R(0)), Val(b.K(reinterpret_cast<uint64_t>(out)))});
  b.Data(StFrame, {Frame(16), Val(R(0))});
  b.Control(ptx::Opcode::kCall, {}, {}).aux = 1;
  b.Exit();
  const uint32_t k = InstallFunctionForTesting(rig.device, b.Take());
  REQUIRE(rig.Launch(k, {1, 1, 1}, {32, 1, 1}).ok());
  for (uint32_t l = 0; l < 32; ++l) CHECK(out[l] == l + 1);
  CHECK(rig.device.memory().bytes_in_use() == before);
}

TEST_CASE("record streams are deterministic for a seed with one worker", "[exec][schedule]") {
  auto run = [](uint64_t seed) {
    Rig rig;
    rig.device.schedule().policy = ScheduleOptions::Policy::kRandom;
    rig.device.schedule().seed = seed;
    rig.device.schedule().quantum = 4;
    rig.device.schedule().max_resident_blocks_per_worker = 3;
    uint32_t* out = rig.Buffer(8 * 128);
    Builder b("k");
    const ValueRef base = b.K(reinterpret_cast<uint64_t>(out));
    b.Data(Mov, {Val(R(1)), Val(S(SpecialReg::kLaneId))});
    b.Data(Mov, {Val(R(0)), Val(b.K(0))});
    b.Data(Add, {Val(R(0)), Val(R(0)), Val(b.K(1))});
    b.Data(SetpLt, {Pred(0), Val(R(0)), Val(R(1))});
    b.Bra(2, 0, 5);
    b.BarSync(0);
    b.Data(StoreTid, {Val(base), Val(R(0))});
    b.Exit();
    const uint32_t k = InstallFunctionForTesting(rig.device, b.Take());
    REQUIRE(rig.Launch(k, {8, 1, 1}, {128, 1, 1}).ok());
    std::vector<std::pair<uint32_t, uint32_t>> seq;  // (op, warp)
    for (const auto& r : rig.sink.Flatten(0)) seq.emplace_back(r.header.op, r.header.warp_id);
    testing::CheckIfElseFiNested(rig.sink.Flatten(0));
    return seq;
  };
  const auto a = run(1), b = run(1), c = run(2);
  CHECK(a == b);
  CHECK(a != c);  // a different seed interleaves warps differently
}

TEST_CASE("a custom schedule policy replaces the built-in ones", "[exec][schedule]") {
  // Always the last runnable warp, one instruction a turn: warp order reverses.
  struct LastFirst : SchedulePolicy {
    size_t PickWarp(std::span<Warp* const> runnable) override {
      ++*picks;
      return runnable.size() - 1;
    }
    uint32_t Quantum(uint32_t) override { return 1; }
    int* picks = nullptr;
  };
  int picks = 0, made = 0;
  Rig rig;
  rig.device.schedule().policy_factory = [&](uint32_t) {
    ++made;
    auto p = std::make_unique<LastFirst>();
    p->picks = &picks;
    return std::unique_ptr<SchedulePolicy>(std::move(p));
  };
  Builder b("k");
  b.Data(Mov, {Val(R(0)), Val(b.K(1))});
  b.Exit();
  const uint32_t k = InstallFunctionForTesting(rig.device, b.Take());
  REQUIRE(rig.Launch(k, {1, 1, 1}, {96, 1, 1}).ok());
  CHECK(made == 1);
  CHECK(picks == 6);  // 3 warps x 2 instructions
  std::vector<uint32_t> exit_order;
  for (const auto& r : rig.sink.Flatten(0))
    if (protocol::OpOf(r.header) == Op::kExit) exit_order.push_back(r.header.warp_id);
  CHECK(exit_order == std::vector<uint32_t>{2, 1, 0});
}

TEST_CASE("several free-running workers run every block once, each ring ordered", "[exec][schedule]") {
  Rig rig;
  rig.device.schedule().workers = 2;
  rig.device.schedule().deterministic = false;
  uint32_t* out = rig.Buffer(64 * 256);
  Builder b("k");
  const ValueRef base = b.K(reinterpret_cast<uint64_t>(out));
  b.Data(Add, {Val(R(0)), Val(S(SpecialReg::kCtaidX)), Val(b.K(1))});
  b.BarSync(0);
  b.Data(StoreTid, {Val(base), Val(R(0))});
  b.Exit();
  const uint32_t k = InstallFunctionForTesting(rig.device, b.Take());
  REQUIRE(rig.Launch(k, {64, 1, 1}, {256, 1, 1}).ok());
  for (uint32_t blk = 0; blk < 64; ++blk)
    for (uint32_t t = 0; t < 256; ++t) REQUIRE(out[blk * 256 + t] == blk + 1);
  REQUIRE(rig.sink.launches[0].rings.size() == 2);
  size_t barriers = 0, exits = 0;
  for (const auto& r : rig.sink.Flatten(0)) {
    barriers += protocol::OpOf(r.header) == Op::kBarrier;
    exits += protocol::OpOf(r.header) == Op::kExit;
  }
  CHECK(barriers == 64 * 8);
  CHECK(exits == 64 * 8);
}

TEST_CASE("cooperative launch: spin-waits across blocks make progress", "[exec][schedule]") {
  // Block b waits until flag == b, then sets flag = b + 1: needs every block resident.
  for (uint32_t workers : {1u, 2u}) {
    Rig rig;
    rig.device.schedule().workers = workers;
    rig.device.schedule().max_resident_blocks_per_worker = 1;  // cooperative ignores it
    uint32_t* flag = rig.Buffer(1);
    Builder b("k");
    const ValueRef fp = b.K(reinterpret_cast<uint64_t>(flag));
    b.Data([](const Inst& in, WarpCtx& c, uint32_t exec) {  // 0: r0 = volatile *flag
      const auto* f = reinterpret_cast<const volatile uint32_t*>(c.Src(in.ops[1].ref)[0]);
      const uint32_t v = *f;
      for (uint32_t m = exec; m; m &= m - 1) c.regs[Lane(m)] = v;
    }, {Val(R(0)), Val(fp)});
    b.Data(SetpLt, {Pred(0), Val(R(0)), Val(S(SpecialReg::kCtaidX))});  // 1: flag < b: spin
    b.Bra(0, 0, 3);                                                     // 2
    b.Data([](const Inst& in, WarpCtx& c, uint32_t exec) {  // 3: *flag = ctaid + 1
      if (exec & 1) {
        auto* f = reinterpret_cast<volatile uint32_t*>(c.Src(in.ops[1].ref)[0]);
        *f = static_cast<uint32_t>(c.sregs[static_cast<uint32_t>(SpecialReg::kCtaidX) * 32] + 1);
      }
    }, {Val(R(0)), Val(fp)});
    b.Exit();
    const uint32_t k = InstallFunctionForTesting(rig.device, b.Take());
    REQUIRE(rig.device.Launch(k, LaunchConfig{{12, 1, 1}, {1, 1, 1}, 0, 0, true}, nullptr).ok());
    CHECK(*flag == 12);
  }
}

TEST_CASE("cooperative launch: refused past what the occupancy API says is resident", "[exec][schedule]") {
  // 1024-thread blocks: the SM holds max_threads_per_sm / 1024 of them, far
  // fewer than its block limit, as cudaOccupancyMaxActiveBlocksPerMultiprocessor says.
  Rig rig;
  Builder b("k");
  b.Exit();
  const uint32_t k = InstallFunctionForTesting(rig.device, b.Take());
  const DeviceDescription& d = rig.device.description();
  const uint32_t resident = d.sm_count * d.ResidentBlocksPerSm(1024, 0);
  REQUIRE(resident < d.sm_count * d.max_blocks_per_sm);
  CHECK(rig.device.Launch(k, LaunchConfig{{resident, 1, 1}, {1024, 1, 1}, 0, 0, true}, nullptr).ok());
  const absl::Status too_many = rig.device.Launch(k, LaunchConfig{{resident + 1, 1, 1}, {1024, 1, 1}, 0, 0, true}, nullptr);
  CHECK(absl::IsInvalidArgument(too_many));
  CHECK(std::string(too_many.message()).find("cannot be resident at once") != std::string::npos);
  // Not cooperative: the same grid runs (blocks start as others retire).
  CHECK(rig.device.Launch(k, LaunchConfig{{resident + 1, 1, 1}, {1024, 1, 1}, 0, 0, false}, nullptr).ok());
}

}  // namespace
}  // namespace barracuda::emu
