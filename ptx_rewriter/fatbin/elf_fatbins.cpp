#include "ptx_rewriter/fatbin/elf_fatbins.h"

#include <elf.h>

#include <cstddef>
#include <cstring>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "ptx_rewriter/fatbin/bounded_bytes.h"

namespace barracuda::fatbin {
namespace {

absl::Status Located(absl::string_view section, uint64_t file_offset, absl::string_view what) {
  return absl::InvalidArgumentError(
      absl::StrCat("section ", section, ", file offset ", Hex(file_offset), ": ", what));
}

// Each object's fatbin starts 8-aligned (it is an array of unsigned long long).
constexpr uint64_t kAlign = 8;

const ElfSection* SectionAtOffset(const ElfFile& elf, uint64_t file_offset) {
  for (const ElfSection& s : elf.sections()) {
    if (s.has_file_bytes() && file_offset >= s.offset && file_offset - s.offset < s.size) return &s;
  }
  return nullptr;
}

class Finder {
 public:
  Finder(const ElfFile& elf, const ParseOptions& opts) : elf_(elf), opts_(opts) {}

  absl::Status ScanDataSections() {
    for (const ElfSection& s : elf_.sections()) {
      if (s.name != kFatbinDataSection && s.name != kFatbinRelocatableSection) continue;
      std::span<const uint8_t> bytes = elf_.SectionBytes(s);
      uint64_t pos = 0;
      while (bytes.size() - pos >= sizeof(FatbinHeaderRaw)) {
        uint64_t word;
        std::memcpy(&word, bytes.data() + pos, sizeof(word));
        if (word == 0) {  // alignment padding between objects' fatbins
          pos += kAlign;
          continue;
        }
        auto size = ParseAt(s, pos, bytes.size() - pos);
        if (!size.ok()) return size.status();
        // Cannot overflow: *size <= bytes.size() - pos.
        pos += *size;
        pos += (kAlign - pos % kAlign) % kAlign;
        if (pos > bytes.size()) break;
      }
    }
    return absl::OkStatus();
  }

  absl::Status FollowWrappers() {
    const uint16_t type = elf_.type();
    if (type != ET_EXEC && type != ET_DYN) return absl::OkStatus();
    for (const ElfSection& s : elf_.sections()) {
      if (s.name != kFatbinWrapperSection || !s.has_file_bytes()) continue;
      std::span<const uint8_t> bytes = elf_.SectionBytes(s);
      for (uint64_t pos = 0; bytes.size() - pos >= sizeof(WrapperRaw); pos += sizeof(WrapperRaw)) {
        WrapperRaw w;
        std::memcpy(&w, bytes.data() + pos, sizeof(w));
        if (w.magic == 0 && w.version == 0) continue;
        const uint64_t at = s.offset + pos;
        if (w.magic != kWrapperMagic) {
          return Located(s.name, at, absl::StrCat("bad fatbin wrapper magic ", Hex(w.magic)));
        }
        if (w.version != kWrapperVersion && w.version != kWrapperLinkVersion) {
          return Located(s.name, at, absl::StrCat("unsupported fatbin wrapper version ", w.version));
        }
        ++result_.wrapper_count;
        const uint64_t slot = s.addr + pos;
        auto data = elf_.ReadPointer(slot + offsetof(WrapperRaw, data));
        if (!data || *data == 0) {
          return Located(s.name, at, "fatbin wrapper has no data pointer");
        }
        if (absl::Status st = ResolveAddress(*data, w.version, s.name, at); !st.ok()) return st;
        if (w.version != kWrapperLinkVersion) continue;
        auto list = elf_.ReadPointer(slot + offsetof(WrapperRaw, filename_or_fatbins));
        if (!list || *list == 0) continue;
        if (absl::Status st = FollowPrelinkedList(*list, s.name, at); !st.ok()) return st;
      }
    }
    return absl::OkStatus();
  }

  ElfFatbins Take() { return std::move(result_); }

 private:
  // Parses the fatbin at section offset `pos`; returns its total size.
  absl::StatusOr<uint64_t> ParseAt(const ElfSection& s, uint64_t pos, uint64_t available) {
    const uint64_t file_offset = s.offset + pos;
    std::span<const uint8_t> bytes = elf_.bytes().subspan(file_offset, available);
    auto size = PeekFatbinSize(bytes);
    if (!size.ok()) return Located(s.name, file_offset, size.status().message());
    auto fb = ParseFatbin(bytes, opts_);
    if (!fb.ok()) return Located(s.name, file_offset, fb.status().message());
    LocatedFatbin lf;
    lf.section = s.name;
    lf.file_offset = file_offset;
    lf.vaddr = (elf_.type() == ET_EXEC || elf_.type() == ET_DYN) ? s.addr + pos : 0;
    lf.fatbin = *std::move(fb);
    result_.fatbins.push_back(std::move(lf));
    return *size;
  }

  LocatedFatbin* FindByVaddr(uint64_t vaddr) {
    for (LocatedFatbin& lf : result_.fatbins) {
      if (lf.vaddr == vaddr) return &lf;
    }
    return nullptr;
  }

  // Marks (or, when outside the scanned sections, parses) the fatbin at `vaddr`.
  absl::Status ResolveAddress(uint64_t vaddr, uint32_t wrapper_version, absl::string_view from,
                              uint64_t from_offset) {
    if (LocatedFatbin* lf = FindByVaddr(vaddr)) {
      if (lf->wrapper_version == 0) lf->wrapper_version = wrapper_version;
      return absl::OkStatus();
    }
    ElfFile::AddrMapping m = elf_.MapAddress(vaddr, sizeof(FatbinHeaderRaw));
    if (m.kind != ElfFile::AddrKind::kFile) {
      return Located(from, from_offset,
                     absl::StrCat("fatbin pointer ", Hex(vaddr), " does not map into the file"));
    }
    const ElfSection* s = SectionAtOffset(elf_, m.file_offset);
    if (s == nullptr) {
      return Located(from, from_offset,
                     absl::StrCat("fatbin pointer ", Hex(vaddr), " is outside every section"));
    }
    uint64_t pos = m.file_offset - s->offset;
    auto size = ParseAt(*s, pos, s->size - pos);
    if (!size.ok()) return size.status();
    result_.fatbins.back().wrapper_version = wrapper_version;
    return absl::OkStatus();
  }

  absl::Status FollowPrelinkedList(uint64_t list, absl::string_view from, uint64_t from_offset) {
    ElfFile::AddrMapping m = elf_.MapAddress(list, sizeof(uint64_t));
    if (m.kind == ElfFile::AddrKind::kZeroFill) {
      ++result_.runtime_prelinked_lists;  // filled in at run time
      return absl::OkStatus();
    }
    for (size_t i = 0; i < kMaxPrelinkedFatbins; ++i) {
      auto p = elf_.ReadPointer(list + i * sizeof(uint64_t));
      if (!p) {
        return Located(from, from_offset, "prelinked fatbin list runs out of the file");
      }
      if (*p == 0) return absl::OkStatus();
      if (absl::Status st = ResolveAddress(*p, kWrapperLinkVersion, from, from_offset); !st.ok()) {
        return st;
      }
    }
    return Located(from, from_offset, "prelinked fatbin list is not NULL-terminated");
  }

  const ElfFile& elf_;
  const ParseOptions& opts_;
  ElfFatbins result_;
};

}  // namespace

size_t ElfFatbins::ptx_count() const {
  size_t n = 0;
  for (const LocatedFatbin& lf : fatbins) n += lf.fatbin.ptx_count();
  return n;
}

absl::StatusOr<ElfFatbins> FindFatbins(const ElfFile& elf, const ParseOptions& opts) {
  Finder f(elf, opts);
  if (absl::Status s = f.ScanDataSections(); !s.ok()) return s;
  if (absl::Status s = f.FollowWrappers(); !s.ok()) return s;
  return f.Take();
}

}  // namespace barracuda::fatbin
