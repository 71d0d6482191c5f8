// A hand-built fat binary for the runtime tests (runtime_api_test.cpp,
// runtime_graph_test.cpp): what nvcc embeds, with one PTX or ELF entry, so a
// test registers a module through __cudaRegisterFatBinary as a program would.
#ifndef BARRACUDA_PTX_EMULATOR_TESTS_HAND_MADE_FATBIN_H_
#define BARRACUDA_PTX_EMULATOR_TESTS_HAND_MADE_FATBIN_H_

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "ptx_emulator/runtime/cuda_api.h"
#include "ptx_rewriter/fatbin/fatbin_format.h"

namespace barracuda::test {

namespace fb = barracuda::fatbin;

// A fat binary with one entry: PTX text (kind 1) or an opaque ELF stand-in (kind 2).
struct HandMadeFatbin {
  std::vector<uint64_t> storage;  // 8-aligned bytes
  fb::WrapperRaw wrapper{};

  HandMadeFatbin(const std::string& payload, fb::EntryKind kind, uint32_t sm = 75) {
    std::vector<uint8_t> body(payload.begin(), payload.end());
    body.push_back(0);
    while (body.size() % 8) body.push_back(0);
    fb::EntryHeaderRaw entry{};
    entry.kind = static_cast<uint16_t>(kind);
    entry.version = 0x0101;
    entry.header_size = sizeof(entry);
    entry.payload_size = body.size();
    entry.major = 8;
    entry.minor = 0;
    entry.sm_arch = sm;
    entry.flags = fb::entry_flags::k64Bit | fb::entry_flags::kLinux;
    fb::FatbinHeaderRaw header{fb::kFatbinMagic, fb::kFatbinVersion, sizeof(fb::FatbinHeaderRaw),
                               sizeof(entry) + body.size()};
    std::vector<uint8_t> bytes(sizeof(header) + sizeof(entry));
    std::memcpy(bytes.data(), &header, sizeof(header));
    std::memcpy(bytes.data() + sizeof(header), &entry, sizeof(entry));
    bytes.insert(bytes.end(), body.begin(), body.end());
    storage.resize(bytes.size() / 8);
    std::memcpy(storage.data(), bytes.data(), bytes.size());
    wrapper = fb::WrapperRaw{fb::kWrapperMagic, fb::kWrapperVersion, reinterpret_cast<uint64_t>(storage.data()), 0};
  }
  void** Register() { return __cudaRegisterFatBinary(&wrapper); }
};

}  // namespace barracuda::test

#endif  // BARRACUDA_PTX_EMULATOR_TESTS_HAND_MADE_FATBIN_H_
