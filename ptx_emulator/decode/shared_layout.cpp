#include "ptx_emulator/decode/shared_layout.h"

#include <algorithm>

#include "ptx_emulator/decode/symbols.h"

namespace barracuda::emu {

SharedLayout LayOutShared(const SharedLayoutInput& in) {
  const size_t nv = in.variables.size(), nf = in.functions.size();
  constexpr uint32_t kNobody = UINT32_MAX, kSeveral = UINT32_MAX - 1;
  std::vector<uint32_t> owner(nv, kNobody);  // the one kernel reaching it, kNobody or kSeveral
  std::vector<std::vector<uint32_t>> reach(nf);  // per entry: variables it reaches
  std::vector<bool> dynamic(nf, false);

  std::vector<uint32_t> fn_seen(nf, kNobody), var_seen(nv, kNobody), stack;
  for (uint32_t k = 0; k < nf; ++k) {
    if (!in.functions[k].is_entry) continue;
    bool everything = false;
    stack.assign(1, k);
    fn_seen[k] = k;
    while (!stack.empty()) {
      const SharedLayoutInput::Function& f = in.functions[stack.back()];
      stack.pop_back();
      everything |= f.indirect_call;
      dynamic[k] = dynamic[k] || f.uses_dynamic;
      for (uint32_t v : f.variables)
        if (var_seen[v] != k) {
          var_seen[v] = k;
          reach[k].push_back(v);
        }
      for (uint32_t c : f.callees)
        if (fn_seen[c] != k) {
          fn_seen[c] = k;
          stack.push_back(c);
        }
    }
    if (everything) {
      // An indirect call may land anywhere in the unit: conservatively every
      // function's variables (and dynamic shared memory when any uses it).
      reach[k].clear();
      for (uint32_t v = 0; v < nv; ++v) reach[k].push_back(v);
      for (const SharedLayoutInput::Function& f : in.functions) dynamic[k] = dynamic[k] || f.uses_dynamic;
    }
    std::sort(reach[k].begin(), reach[k].end());  // declaration order: deterministic layout
    for (uint32_t v : reach[k]) owner[v] = owner[v] == kNobody ? k : kSeveral;
  }

  SharedLayout out;
  out.offsets.assign(nv, 0);
  out.static_bytes.assign(nf, 0);
  uint64_t common_end = 0;
  for (uint32_t v = 0; v < nv; ++v) {
    if (owner[v] != kSeveral) continue;
    common_end = AlignUp(common_end, in.variables[v].align);
    out.offsets[v] = common_end;
    common_end += in.variables[v].bytes;
  }
  uint64_t extent = common_end, dynamic_base = 0;
  for (uint32_t k = 0; k < nf; ++k) {
    if (!in.functions[k].is_entry) continue;
    uint64_t cursor = common_end, end = 0;
    for (uint32_t v : reach[k]) {
      if (owner[v] == k) {
        cursor = AlignUp(cursor, in.variables[v].align);
        out.offsets[v] = cursor;
        cursor += in.variables[v].bytes;
      }
      end = std::max(end, out.offsets[v] + in.variables[v].bytes);
    }
    out.static_bytes[k] = AlignUp(end, 16);
    extent = std::max(extent, end);
    if (dynamic[k]) dynamic_base = std::max(dynamic_base, out.static_bytes[k]);
  }
  for (uint32_t k = 0; k < nf; ++k)
    if (dynamic[k]) out.static_bytes[k] = dynamic_base;
  out.extent = AlignUp(extent, 16);
  // No kernel uses dynamic shared memory: its symbols still need a value.
  out.dynamic_base = std::any_of(dynamic.begin(), dynamic.end(), [](bool b) { return b; }) ? dynamic_base
                                                                                          : out.extent;
  return out;
}

}  // namespace barracuda::emu
