// libFuzzer target for the PTX front end. Properties checked on every input:
//  - ParseModule never crashes (ASan/UBSan catch memory and UB errors);
//  - whatever parses prints to text that parses again to the same IR
//    (SameMeaning), and printing that IR again gives identical text.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

#include "ptx_rewriter/parser.h"
#include "ptx_rewriter/printer.h"

using namespace barracuda::ptx;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  auto m = ParseModule(text, "fuzz.ptx");
  if (!m.ok()) {
    // Errors must carry a position: "file:line:col: message".
    std::string message(m.status().message());
    if (!message.starts_with("fuzz.ptx:")) {
      std::fprintf(stderr, "error without position: %s\n", message.c_str());
      std::abort();
    }
    return 0;
  }
  std::string printed = PrintModule(*m);
  auto again = ParseModule(printed, "printed.ptx");
  if (!again.ok()) {
    std::fprintf(stderr, "printed PTX does not parse: %s\n--- printed:\n%s\n",
                 std::string(again.status().message()).c_str(), printed.c_str());
    std::abort();
  }
  if (!SameMeaning(*m, *again)) {
    std::fprintf(stderr, "round trip changed the IR: %s\n--- printed:\n%s\n",
                 DescribeDifference(*m, *again).c_str(), printed.c_str());
    std::abort();
  }
  if (PrintModule(*again) != printed) {
    std::fprintf(stderr, "printing is not idempotent\n");
    std::abort();
  }
  return 0;
}
