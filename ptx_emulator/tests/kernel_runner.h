// Test helper shared by the emulator's test binaries: load PTX text, allocate
// device buffers, launch a kernel and read results back, all through the same
// Device API the replacement runtime uses.
//
//   KernelRunner r(WrapKernel("k", ".param .u64 out", R"(
//       .reg .b64 %rd<3>; ...
//   )"));
//   auto out = r.Alloc<uint32_t>(32);
//   REQUIRE(r.Launch("k", {1,1,1}, {32,1,1}, out.device).ok());
//   auto values = r.Read(out);
#ifndef BARRACUDA_PTX_EMULATOR_TESTS_KERNEL_RUNNER_H_
#define BARRACUDA_PTX_EMULATOR_TESTS_KERNEL_RUNNER_H_

#include <cstdint>
#include <cstring>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "ptx_emulator/core/device.h"

namespace barracuda::emu::testing {

// A complete module around one kernel: `params` is the parameter list without
// parentheses (".param .u64 out, .param .u32 n"), `body` the statements.
inline std::string WrapKernel(const std::string& name, const std::string& params, const std::string& body,
                              const std::string& target = "sm_75", const std::string& prelude = "") {
  return ".version 8.0\n.target " + target + "\n.address_size 64\n" + prelude + "\n.visible .entry " + name +
         "(" + params + ")\n{\n" + body + "\n}\n";
}

template <typename T>
struct Buffer {
  T* device = nullptr;  // device address (a host pointer in the emulator)
  size_t count = 0;
};

class KernelRunner {
 public:
  // Loads the module; throws std::runtime_error with the loader's message on failure
  // (tests print it).
  // fault_unsupported_when_reached: as the runtime loads (Device::LoadLinkUnit).
  explicit KernelRunner(const std::string& ptx, std::unique_ptr<Device> device = std::make_unique<Device>(),
                        bool fault_unsupported_when_reached = false)
      : device_(std::move(device)) {
    auto unit = device_->LoadLinkUnit({PtxSource{ptx, "test.ptx"}}, fault_unsupported_when_reached);
    if (!unit.ok()) throw std::runtime_error(std::string(unit.status().message()));
    unit_ = *unit;
  }
  Device& device() { return *device_; }
  uint32_t unit() const { return unit_; }

  template <typename T>
  Buffer<T> Alloc(size_t count, const std::vector<T>& init = {}) {
    auto p = device_->memory().Allocate(count * sizeof(T) + 1, DeviceMemory::Kind::kDevice);
    if (!p.ok()) throw std::runtime_error(std::string(p.status().message()));
    Buffer<T> b{static_cast<T*>(*p), count};
    if (!init.empty()) std::memcpy(b.device, init.data(), std::min(count, init.size()) * sizeof(T));
    return b;
  }
  template <typename T>
  std::vector<T> Read(const Buffer<T>& b) const {
    return std::vector<T>(b.device, b.device + b.count);
  }

  // Launch with arguments passed by value, in parameter order.
  template <typename... Args>
  absl::Status Launch(const std::string& kernel, Dim3 grid, Dim3 block, Args... args) {
    return LaunchWith(kernel, LaunchConfig{grid, block, 0, 0, false}, args...);
  }
  template <typename... Args>
  absl::Status LaunchWith(const std::string& kernel, LaunchConfig config, Args... args) {
    auto k = device_->FindKernel(unit_, kernel);
    if (!k.ok()) return k.status();
    std::vector<std::shared_ptr<void>> storage;
    std::vector<void*> pointers;
    (Push(storage, pointers, args), ...);
    return device_->Launch(*k, config, pointers.data());
  }

 private:
  template <typename T>
  static void Push(std::vector<std::shared_ptr<void>>& storage, std::vector<void*>& pointers, T value) {
    auto p = std::make_shared<T>(value);
    pointers.push_back(p.get());
    storage.push_back(std::move(p));
  }
  std::unique_ptr<Device> device_;
  uint32_t unit_ = 0;
};

}  // namespace barracuda::emu::testing

#endif  // BARRACUDA_PTX_EMULATOR_TESTS_KERNEL_RUNNER_H_
