// cudaHostRegister'd host memory (host_register.cpp): registered ranges and
// their device aliases in the DeviceMemory arena.
#ifndef BARRACUDA_PTX_EMULATOR_RUNTIME_HOST_REGISTER_H_
#define BARRACUDA_PTX_EMULATOR_RUNTIME_HOST_REGISTER_H_

#include <cstdint>
#include <optional>

namespace barracuda::cudart {

struct HostRegistration {
  uint64_t host = 0;    // the registered pointer
  uint64_t size = 0;
  uint64_t device = 0;  // its alias in the arena (what kernels access)
  unsigned flags = 0;   // as given to cudaHostRegister
  // The same byte seen from the other side: p in the host range, or in the alias.
  void* DeviceAddress(const void* p) const {
    return reinterpret_cast<void*>(device + (reinterpret_cast<uint64_t>(p) - host));
  }
  void* HostAddress(const void* p) const {
    return reinterpret_cast<void*>(host + (reinterpret_cast<uint64_t>(p) - device));
  }
};

// The registration whose host range, or whose device alias, contains `p`.
std::optional<HostRegistration> FindHostRegistration(const void* p);
std::optional<HostRegistration> FindHostRegistrationByDevice(const void* p);
// cudaDeviceReset: the arena (and every alias in it) is gone; so are the
// registrations. The host pages keep their contents.
void ForgetHostRegistrations();

}  // namespace barracuda::cudart

#endif  // BARRACUDA_PTX_EMULATOR_RUNTIME_HOST_REGISTER_H_
