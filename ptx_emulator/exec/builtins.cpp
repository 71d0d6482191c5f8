// Extern functions the emulator provides: vprintf (device printf),
// __assertfail (device assert), malloc and free (device heap),
// cudaGraphSetConditional (graph_conditions.h), and the CUDA device
// runtime's launches (dynamic parallelism: core/device_launches.h).
//
// Arguments are read from the caller's frame at the call site's argument
// offsets, one lane at a time; return values are written to its return
// offsets. printf output of one warp instruction is built for every lane in
// lane order and written to stdout in one piece (a GPU flushes its printf
// buffer at kernel end; per-warp granularity keeps lanes' lines together).
#include <array>
#include <atomic>
#include <bit>
#include <cctype>
#include <cinttypes>
#include <cstdio>
#include <cstring>
#include <mutex>
#include <string>

#include "ptx_emulator/exec/control_handlers.h"
#include "ptx_emulator/exec/graph_conditions.h"

namespace barracuda::emu {
namespace {

std::mutex& OutputMutex() {
  static std::mutex mu;
  return mu;
}

uint8_t* ArgSlot(Warp& w, const Function::CallSite& cs, uint32_t lane, size_t i) {
  return w.LocalWindow(lane) + w.frame_base + cs.arg_offsets[i];
}

uint64_t ReadArg(Warp& w, const Function::CallSite& cs, uint32_t lane, size_t i) {
  uint64_t v = 0;
  if (i < cs.arg_offsets.size()) {
    const uint32_t n = i < cs.arg_sizes.size() ? std::min<uint32_t>(cs.arg_sizes[i], 8) : 8;
    std::memcpy(&v, ArgSlot(w, cs, lane, i), n);
  }
  return v;
}

void WriteReturn(Warp& w, const Function::CallSite& cs, uint32_t lane, uint64_t v) {
  if (cs.ret_offsets.empty()) return;
  const uint32_t n = cs.ret_sizes.empty() ? 8 : std::min<uint32_t>(cs.ret_sizes[0], 8);
  std::memcpy(w.LocalWindow(lane) + w.frame_base + cs.ret_offsets[0], &v, n);
}

// Device pointers a builtin may read: global memory, this warp's local
// windows, its block's shared window.
bool Readable(const Warp& w, uint64_t p) {
  if (p == 0) return false;
  if (w.memory != nullptr && w.memory->InRange(p, 1)) return true;
  const auto lo = reinterpret_cast<uint64_t>(w.local_base);
  if (w.local_base != nullptr && p >= lo && p < lo + uint64_t{w.local_stride} * kLanes) return true;
  const auto so = reinterpret_cast<uint64_t>(w.shared_base);
  return w.shared_base != nullptr && p >= so && p < so + w.shared_bytes;
}

std::string DeviceString(const Warp& w, uint64_t p) {
  if (!Readable(w, p)) return "(null)";
  return std::string(reinterpret_cast<const char*>(p));
}

// CUDA's printf argument buffer: each argument aligned to its size, integers
// narrower than 64 bits as 4 bytes, floats promoted to double, pointers 8.
std::string FormatPrintf(const Warp& w, const char* fmt, const uint8_t* args) {
  std::string out;
  size_t off = 0;
  auto fetch = [&](size_t size) -> uint64_t {
    off = (off + size - 1) / size * size;
    uint64_t v = 0;
    if (args != nullptr) std::memcpy(&v, args + off, size);
    off += size;
    return v;
  };
  char buf[512];
  for (const char* p = fmt; *p;) {
    if (*p != '%') {
      out += *p++;
      continue;
    }
    if (p[1] == '%') {
      out += '%';
      p += 2;
      continue;
    }
    const char* start = p++;
    while (*p && std::strchr("-+ #0", *p)) ++p;
    while (std::isdigit(static_cast<unsigned char>(*p))) ++p;
    if (*p == '.') {
      ++p;
      while (std::isdigit(static_cast<unsigned char>(*p))) ++p;
    }
    std::string spec(start, p);  // flags, width, precision
    bool wide = false;
    while (*p && std::strchr("hlLqjzt", *p)) {
      if (*p != 'h') wide = true;
      ++p;
    }
    const char conv = *p;
    if (conv == '\0') {
      out += start;
      break;
    }
    ++p;
    switch (conv) {
      case 'd': case 'i': {
        const uint64_t raw = fetch(wide ? 8 : 4);
        const long long v = wide ? static_cast<long long>(raw) : static_cast<int32_t>(static_cast<uint32_t>(raw));
        std::snprintf(buf, sizeof buf, (spec + "ll" + conv).c_str(), v);
        break;
      }
      case 'u': case 'o': case 'x': case 'X': {
        const uint64_t raw = fetch(wide ? 8 : 4);
        const unsigned long long v = wide ? raw : (raw & 0xffffffffu);
        std::snprintf(buf, sizeof buf, (spec + "ll" + conv).c_str(), v);
        break;
      }
      case 'c':
        std::snprintf(buf, sizeof buf, (spec + conv).c_str(), static_cast<int>(fetch(4) & 0xff));
        break;
      case 'f': case 'F': case 'e': case 'E': case 'g': case 'G': case 'a': case 'A': {
        const uint64_t raw = fetch(8);
        double d;
        std::memcpy(&d, &raw, 8);
        std::snprintf(buf, sizeof buf, (spec + conv).c_str(), d);
        break;
      }
      case 's': {
        const std::string s = DeviceString(w, fetch(8));
        std::snprintf(buf, sizeof buf, (spec + 's').c_str(), s.c_str());
        if (s.size() >= sizeof buf) {  // keep long strings whole
          out += s;
          continue;
        }
        break;
      }
      case 'p':
        std::snprintf(buf, sizeof buf, "0x%" PRIx64, fetch(8));
        break;
      default:  // unknown conversion: print it as written
        out.append(start, p);
        continue;
    }
    out += buf;
  }
  return out;
}

void Vprintf(Warp& w, const Inst& inst, const Function::CallSite& cs, uint32_t exec) {
  std::string text;
  for (uint32_t m = exec; m; m &= m - 1) {
    const uint32_t l = Lane(m);
    const uint64_t fmt = ReadArg(w, cs, l, 0);
    const uint64_t args = ReadArg(w, cs, l, 1);
    if (!Readable(w, fmt) || (args != 0 && !Readable(w, args))) {
      w.Raise(FaultKind::kIllegalAddress, inst, l, Readable(w, fmt) ? args : fmt, "vprintf: invalid format or argument pointer");
      return;
    }
    const std::string line = FormatPrintf(w, reinterpret_cast<const char*>(fmt),
                                          args != 0 ? reinterpret_cast<const uint8_t*>(args) : nullptr);
    text += line;
    WriteReturn(w, cs, l, static_cast<uint32_t>(line.size()));
  }
  std::lock_guard<std::mutex> lock(OutputMutex());
  std::fwrite(text.data(), 1, text.size(), stdout);
  std::fflush(stdout);
}

uint64_t Sreg(const Warp& w, SpecialReg r, uint32_t lane) {
  return w.sregs[static_cast<uint32_t>(r) * kLanes + lane];
}

// __assertfail(message, file, line, function, charSize)
void AssertFail(Warp& w, const Inst& inst, const Function::CallSite& cs, uint32_t exec) {
  std::string text, first;
  for (uint32_t m = exec; m; m &= m - 1) {
    const uint32_t l = Lane(m);
    const std::string message = DeviceString(w, ReadArg(w, cs, l, 0));
    const std::string file = DeviceString(w, ReadArg(w, cs, l, 1));
    const uint32_t line = static_cast<uint32_t>(ReadArg(w, cs, l, 2));
    const std::string function = DeviceString(w, ReadArg(w, cs, l, 3));
    char head[160];
    std::snprintf(head, sizeof head, ": block: [%u,%u,%u], thread: [%u,%u,%u]",
                  static_cast<unsigned>(Sreg(w, SpecialReg::kCtaidX, l)),
                  static_cast<unsigned>(Sreg(w, SpecialReg::kCtaidY, l)),
                  static_cast<unsigned>(Sreg(w, SpecialReg::kCtaidZ, l)),
                  static_cast<unsigned>(Sreg(w, SpecialReg::kTidX, l)),
                  static_cast<unsigned>(Sreg(w, SpecialReg::kTidY, l)),
                  static_cast<unsigned>(Sreg(w, SpecialReg::kTidZ, l)));
    text += file + ":" + std::to_string(line) + ": " + function + head + " Assertion `" + message + "` failed.\n";
    if (first.empty()) first = "Assertion `" + message + "` failed at " + file + ":" + std::to_string(line) + " in " + function;
  }
  {
    std::lock_guard<std::mutex> lock(OutputMutex());
    std::fflush(stdout);
    std::fwrite(text.data(), 1, text.size(), stderr);
    std::fflush(stderr);
  }
  w.Raise(FaultKind::kAssert, inst, static_cast<uint32_t>(std::countr_zero(exec)), 0, first);
}

void Malloc(Warp& w, const Function::CallSite& cs, uint32_t exec) {
  for (uint32_t m = exec; m; m &= m - 1) {
    const uint32_t l = Lane(m);
    auto p = w.memory->Allocate(ReadArg(w, cs, l, 0), DeviceMemory::Kind::kDevice);
    WriteReturn(w, cs, l, p.ok() ? reinterpret_cast<uint64_t>(*p) : 0);
  }
}

void Free(Warp& w, const Function::CallSite& cs, uint32_t exec) {
  for (uint32_t m = exec; m; m &= m - 1) {
    const uint64_t p = ReadArg(w, cs, Lane(m), 0);
    if (p != 0) (void)w.memory->Free(reinterpret_cast<void*>(p));  // free of a bad pointer is undefined on a GPU
  }
}

// cudaGraphSetConditional(handle, value): lanes in order, so the last active
// lane's value stays (concurrent calls are undefined behaviour by the CUDA
// documentation; this is one of the outcomes a GPU may give).
void GraphSetConditional(Warp& w, const Inst& inst, const Function::CallSite& cs, uint32_t exec) {
  for (uint32_t m = exec; m; m &= m - 1) {
    const uint32_t l = Lane(m);
    const uint64_t handle = ReadArg(w, cs, l, 0);
    if (!SetGraphCondition(handle, static_cast<uint32_t>(ReadArg(w, cs, l, 1)))) {
      char text[96];
      std::snprintf(text, sizeof text, "cudaGraphSetConditional: 0x%" PRIx64 " is not a conditional handle", handle);
      w.Raise(FaultKind::kTrap, inst, l, 0, text);
      return;
    }
  }
}

// ---- the CUDA device runtime (dynamic parallelism, core/device_launches.h)

// A 12-byte dim3 argument.
std::array<uint32_t, 3> ReadDim3(Warp& w, const Function::CallSite& cs, uint32_t lane, size_t i) {
  std::array<uint32_t, 3> d{1, 1, 1};
  if (i < cs.arg_offsets.size()) std::memcpy(d.data(), ArgSlot(w, cs, lane, i), sizeof d);
  return d;
}

// __cudaCDP2GetParameterBufferV2(func, grid, block, shared): a buffer of the
// kernel's parameter size; null (the device runtime's failure) for a value
// that is not a kernel of the device.
void CdpGetParameterBuffer(Warp& w, const Function::CallSite& cs, uint32_t exec) {
  for (uint32_t m = exec; m; m &= m - 1) {
    const uint32_t l = Lane(m);
    const uint64_t func = ReadArg(w, cs, l, 0);
    const uint64_t index = func & ~kFunctionPointerTag;
    uint64_t buffer = 0;
    if ((func & kFunctionPointerTag) == kFunctionPointerTag && index < w.device->function_count() &&
        w.device->function(static_cast<uint32_t>(index)).is_entry) {
      const Function& child = w.device->function(static_cast<uint32_t>(index));
      // 64-byte aligned, as the device runtime's buffers (a parameter may ask it).
      auto p = w.memory->Allocate(std::max<uint32_t>(child.param_buffer_bytes, 8), DeviceMemory::Kind::kDevice);
      if (p.ok()) {
        buffer = reinterpret_cast<uint64_t>(*p);
        DeviceLaunch pending;
        pending.kernel = static_cast<uint32_t>(index);
        pending.grid = ReadDim3(w, cs, l, 1);
        pending.block = ReadDim3(w, cs, l, 2);
        pending.shared_bytes = static_cast<uint32_t>(ReadArg(w, cs, l, 3));
        pending.params.resize(child.param_buffer_bytes);
        w.device->device_launches().NoteBuffer(buffer, std::move(pending));
      }
    }
    WriteReturn(w, cs, l, buffer);
  }
}

// __cudaCDP2LaunchDeviceV2(buffer, stream): the child is recorded with its
// parameters as they are now; 0 (cudaSuccess), or cudaErrorInvalidValue for a
// buffer the device runtime did not hand out.
void CdpLaunchDevice(Warp& w, const Function::CallSite& cs, uint32_t exec) {
  const uint64_t ntid_x = Sreg(w, SpecialReg::kNtidX, 0), ntid_y = Sreg(w, SpecialReg::kNtidY, 0);
  for (uint32_t m = exec; m; m &= m - 1) {
    const uint32_t l = Lane(m);
    const uint64_t buffer = ReadArg(w, cs, l, 0);
    const uint64_t thread = Sreg(w, SpecialReg::kTidX, l) +
                            ntid_x * (Sreg(w, SpecialReg::kTidY, l) + ntid_y * Sreg(w, SpecialReg::kTidZ, l));
    const bool ok = buffer != 0 && w.memory->InRange(buffer, 1) &&
                    w.device->device_launches().Launch(buffer, ReadArg(w, cs, l, 1),
                                                       reinterpret_cast<const uint8_t*>(buffer), w.block->linear,
                                                       static_cast<uint32_t>(thread), w.device->launches());
    WriteReturn(w, cs, l, ok ? 0 : 1 /* cudaErrorInvalidValue */);
  }
}

// Device-side streams: a handle per creation (the children run in launch
// order whatever stream they name: an execution every stream allows).
void CdpStreamCreate(Warp& w, const Function::CallSite& cs, uint32_t exec) {
  static std::atomic<uint64_t> next{1};
  for (uint32_t m = exec; m; m &= m - 1) {
    const uint32_t l = Lane(m);
    const uint64_t out = ReadArg(w, cs, l, 0);
    uint32_t status = 1;  // cudaErrorInvalidValue
    if (out != 0 && w.memory->InRange(out, 8)) {
      const uint64_t handle = next.fetch_add(1) << 4;
      std::memcpy(reinterpret_cast<void*>(out), &handle, 8);
      status = 0;
    }
    WriteReturn(w, cs, l, status);
  }
}

void CdpGetDevice(Warp& w, const Function::CallSite& cs, uint32_t exec) {
  for (uint32_t m = exec; m; m &= m - 1) {
    const uint32_t l = Lane(m);
    const uint64_t out = ReadArg(w, cs, l, 0);
    const bool ok = out != 0 && Readable(w, out);
    if (ok) std::memset(reinterpret_cast<void*>(out), 0, 4);
    WriteReturn(w, cs, l, ok ? 0 : 1);
  }
}

void Returns(Warp& w, const Function::CallSite& cs, uint32_t exec, uint64_t v) {
  for (uint32_t m = exec; m; m &= m - 1) WriteReturn(w, cs, Lane(m), v);
}

}  // namespace

void RunBuiltin(Warp& w, const Inst& inst, const Function::CallSite& cs, uint32_t exec) {
  if (w.local_base == nullptr) {
    w.Raise(FaultKind::kStackOverflow, inst, static_cast<uint32_t>(std::countr_zero(exec)), 0,
            "call without a local window");
    return;
  }
  switch (cs.builtin) {
    case Builtin::kVprintf: Vprintf(w, inst, cs, exec); break;
    case Builtin::kAssertFail: AssertFail(w, inst, cs, exec); break;
    case Builtin::kMalloc: Malloc(w, cs, exec); break;
    case Builtin::kFree: Free(w, cs, exec); break;
    case Builtin::kGraphSetConditional: GraphSetConditional(w, inst, cs, exec); break;
    case Builtin::kCdpGetParameterBuffer: CdpGetParameterBuffer(w, cs, exec); break;
    case Builtin::kCdpLaunchDevice: CdpLaunchDevice(w, cs, exec); break;
    case Builtin::kCdpNoError: Returns(w, cs, exec, 0); break;
    case Builtin::kCdpGetDevice: CdpGetDevice(w, cs, exec); break;
    case Builtin::kCdpStreamCreate: CdpStreamCreate(w, cs, exec); break;
    case Builtin::kCdpStreamDestroy: Returns(w, cs, exec, 0); break;
    case Builtin::kDeviceRuntimeUnsupported:
      w.Raise(FaultKind::kUnsupported, inst, static_cast<uint32_t>(std::countr_zero(exec)), 0,
              "dynamic parallelism: the CUDA device runtime's `" + cs.callee_name +
                  "` is not supported by the emulator backend (device-side launches, streams, "
                  "cudaGetLastError and cudaGetDevice are)");
      break;
    case Builtin::kNone: break;
  }
}

}  // namespace barracuda::emu
