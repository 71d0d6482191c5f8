// libFuzzer: arbitrary text through the loader (parse, link, lay out, decode)
// must give a status, never a crash. Handlers are not involved: every
// instruction is accepted, so the decoder sees every form the parser lets by.
#include <cstddef>
#include <cstdint>
#include <string>

#include "ptx_emulator/tests/decode_test_support.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace barracuda::emu;
  // A fresh device per input (reserving its range is one mmap), so inputs do
  // not accumulate modules.
  Device device;
  std::string text(reinterpret_cast<const char*>(data), size);
  // Two modules from one input (split at a form feed) exercise linking.
  std::vector<PtxSource> sources;
  const size_t split = text.find('\f');
  if (split == std::string::npos) {
    sources.push_back({text, "fuzz.ptx"});
  } else {
    sources.push_back({text.substr(0, split), "a.ptx"});
    sources.push_back({text.substr(split + 1), "b.ptx"});
  }
  (void)testing::LoadForTest(device, std::move(sources));
  return 0;
}
