#include "ptx_emulator/decode/module_loader.h"

#include <algorithm>
#include <charconv>
#include <memory>
#include <string>
#include <utility>

#include "ptx_rewriter/text_concat.h"
#include "ptx_emulator/decode/function_decoder.h"
#include "ptx_emulator/decode/initializers.h"
#include "ptx_emulator/decode/shared_layout.h"
#include "ptx_emulator/decode/symbols.h"
#include "ptx_rewriter/parser.h"
#include "ptx_rewriter/site_table.h"

namespace barracuda::emu {

Builtin LookupBuiltin(std::string_view name) {
  if (name == "vprintf") return Builtin::kVprintf;
  if (name == "__assertfail") return Builtin::kAssertFail;
  if (name == "malloc") return Builtin::kMalloc;
  if (name == "free") return Builtin::kFree;
  if (name == "cudaGraphSetConditional") return Builtin::kGraphSetConditional;
  // Dynamic parallelism: the entry points nvcc's device launches call
  // (core/device_launches.h). They win over libcudadevrt's PTX definitions,
  // which reach the GPU driver through syscalls the emulator does not have.
  if (name == "__cudaCDP2GetParameterBufferV2") return Builtin::kCdpGetParameterBuffer;
  if (name == "__cudaCDP2LaunchDeviceV2" || name == "__cudaCDP2LaunchDeviceV2_ptsz") return Builtin::kCdpLaunchDevice;
  if (name == "__cudaCDP2GetLastError" || name == "__cudaCDP2PeekAtLastError") return Builtin::kCdpNoError;
  if (name == "__cudaCDP2GetDevice") return Builtin::kCdpGetDevice;
  if (name == "__cudaCDP2StreamCreateWithFlags") return Builtin::kCdpStreamCreate;
  if (name == "__cudaCDP2StreamDestroy") return Builtin::kCdpStreamDestroy;
  return Builtin::kNone;
}

namespace {

constexpr uint32_t kReservedSharedBytes = 1024;
// While the unit is linked, a .shared symbol's value is its index in
// SharedLayoutInput::variables, or this for dynamic (`.extern`, unsized)
// arrays; offsets replace them once every kernel's reach is known.
constexpr uint32_t kDynamicShared = UINT32_MAX;

// Adds every name an operand mentions (registers, symbols, address bases).
template <typename Fn>
void ForEachName(const ptx::Operand& o, Fn&& fn) {
  if (!o.text.empty()) fn(o.text);
  for (const ptx::Operand& e : o.elements) ForEachName(e, fn);
}

// Names other modules of the unit may bind to.
bool Exported(ptx::Linkage l) {
  return l == ptx::Linkage::kVisible || l == ptx::Linkage::kWeak || l == ptx::Linkage::kCommon;
}

uint32_t SmTarget(const ptx::Module& m) {
  for (const std::string& t : m.targets) {
    if (t.rfind("sm_", 0) != 0) continue;
    uint32_t v = 0;
    std::from_chars(t.data() + 3, t.data() + t.size(), v);  // "sm_90a" -> 90
    return v;
  }
  return 0;
}

// Everything about one module while the unit is being loaded.
struct PendingModule {
  std::unique_ptr<LoadedModule> loaded;
  SymbolTable symbols;
  absl::flat_hash_map<std::string, std::vector<std::pair<size_t, uint32_t>>> sites;
  std::vector<std::pair<const ptx::Function*, uint32_t>> functions;  // definitions, function index
  std::vector<std::string> weak_functions;  // .weak definitions: a .visible one elsewhere wins
  std::vector<std::string> weak_variables;  // .weak / .common variable definitions
};

struct DefinedVariable {
  size_t module = 0;
  const ptx::VarDecl* decl = nullptr;
  const ptx::Declarator* declarator = nullptr;
  uint8_t* address = nullptr;
  uint64_t bytes = 0;
};

// Gives device memory back unless the load commits.
class AllocationGuard {
 public:
  explicit AllocationGuard(DeviceMemory& memory) : memory_(memory) {}
  ~AllocationGuard() {
    if (!committed_)
      for (void* p : taken_) (void)memory_.Free(p);
  }
  void Add(void* p) { taken_.push_back(p); }
  void Commit() { committed_ = true; }

 private:
  DeviceMemory& memory_;
  std::vector<void*> taken_;
  bool committed_ = false;
};

}  // namespace

absl::StatusOr<uint32_t> ModuleLoader::Load(std::vector<PtxSource> sources, bool fault_unsupported_when_reached) {
  Device& dev = device_;
  std::lock_guard<std::mutex> lock(dev.load_mu_);
  if (sources.empty()) return absl::InvalidArgumentError("empty link unit: no PTX modules");
  const auto unit = static_cast<uint32_t>(dev.unit_functions_.size());
  const auto first_module = static_cast<uint32_t>(dev.modules_.size());
  const auto first_function = static_cast<uint32_t>(dev.functions_.size());

  // ---- parse, number sites
  std::vector<PendingModule> mods(sources.size());
  uint32_t site_cursor = dev.next_site_;
  for (size_t i = 0; i < sources.size(); ++i) {
    std::string name = sources[i].name.empty() ? ptx::Cat("module", first_module + i) : sources[i].name;
    // The parser's messages are "name:line:col: ...".
    auto parsed = ptx::ParseModule(sources[i].text, name);
    if (!parsed.ok()) return parsed.status();
    auto lm = std::make_unique<LoadedModule>();
    lm->id = first_module + static_cast<uint32_t>(i);
    lm->link_unit = unit;
    lm->name = std::move(name);
    lm->ir = std::make_unique<ptx::Module>(*std::move(parsed));
    lm->sites = ptx::BuildSiteTable(*lm->ir);
    lm->site_base = site_cursor;
    lm->sm_target = SmTarget(*lm->ir);
    site_cursor += static_cast<uint32_t>(lm->sites.sites.size());
    for (const ptx::Site& s : lm->sites.sites) mods[i].sites[s.function].emplace_back(s.statement, s.id);
    mods[i].loaded = std::move(lm);
  }

  // ---- functions: indices for every definition, then externs across the unit
  uint32_t next_function = first_function;
  absl::flat_hash_map<std::string, uint32_t> exported_functions;
  absl::flat_hash_map<std::string, uint32_t> unit_functions;
  for (PendingModule& pm : mods) {
    for (const ptx::Function* f : std::as_const(*pm.loaded->ir).Functions()) {
      if (!f->has_body || pm.symbols.contains(f->name)) continue;
      const uint32_t index = next_function++;
      pm.functions.emplace_back(f, index);
      pm.symbols[f->name] = LinkedSymbol{LinkedSymbol::Kind::kFunction, index, Builtin::kNone, ""};
      unit_functions.emplace(f->name, index);
      if (f->linkage == ptx::Linkage::kWeak || f->linkage == ptx::Linkage::kCommon)
        pm.weak_functions.push_back(f->name);
      if (Exported(f->linkage)) {
        // A .visible definition overrides a .weak one seen earlier.
        auto [it, inserted] = exported_functions.emplace(f->name, index);
        if (!inserted && f->linkage == ptx::Linkage::kVisible) it->second = index;
      }
    }
  }
  // `.alias a, b;`: a names function b (nvcc emits them for C++ constructor
  // variants); exported when a's declaration is.
  for (PendingModule& pm : mods) {
    for (const ptx::ModuleItem& item : pm.loaded->ir->items) {
      const auto* alias = std::get_if<ptx::AliasDirective>(&item);
      if (alias == nullptr) continue;
      auto target = pm.symbols.find(alias->aliasee);
      if (target == pm.symbols.end() || target->second.kind != LinkedSymbol::Kind::kFunction)
        return absl::InvalidArgumentError(ptx::Cat(Where(pm.loaded->name, alias->pos.line), ": .alias `",
                                                   alias->alias, "`: `", alias->aliasee,
                                                   "` is not a function defined in this module"));
      const LinkedSymbol resolved = target->second;
      pm.symbols[alias->alias] = resolved;
      unit_functions.emplace(alias->alias, static_cast<uint32_t>(resolved.value));
      if (const ptx::Function* decl = std::as_const(*pm.loaded->ir).FindFunction(alias->alias);
          decl != nullptr && Exported(decl->linkage))
        exported_functions.emplace(alias->alias, static_cast<uint32_t>(resolved.value));
    }
  }
  for (PendingModule& pm : mods) {
    for (const ptx::Function* f : std::as_const(*pm.loaded->ir).Functions()) {
      if (f->has_body || pm.symbols.contains(f->name)) continue;
      LinkedSymbol s;
      const Builtin builtin = LookupBuiltin(f->name);
      const bool device_runtime = builtin >= Builtin::kCdpGetParameterBuffer;  // over libcudadevrt's bodies
      if (device_runtime) {
        s = LinkedSymbol{LinkedSymbol::Kind::kBuiltin, 0, builtin, ""};
      } else if (auto it = exported_functions.find(f->name); it != exported_functions.end()) {
        s = LinkedSymbol{LinkedSymbol::Kind::kFunction, it->second, Builtin::kNone, ""};
      } else if (Builtin b = LookupBuiltin(f->name); b != Builtin::kNone) {
        s = LinkedSymbol{LinkedSymbol::Kind::kBuiltin, 0, b, ""};
      } else {
        // An error only where it is used: declarations nobody calls are harmless.
        s.declared_at = Where(pm.loaded->name, f->pos.line);
      }
      pm.symbols[f->name] = std::move(s);
    }
  }

  // ---- variables: allocate .global/.const, number .shared ones (one offset
  // each for the whole unit, so -rdc code in another module agrees; see
  // shared_layout.h for the per-kernel sizes)
  AllocationGuard guard(*dev.memory_);
  std::vector<DefinedVariable> defined;
  absl::flat_hash_map<std::string, GlobalVariable> exported_variables;
  absl::flat_hash_map<std::string, GlobalVariable> unit_variables;
  absl::flat_hash_map<std::string, uint32_t> exported_shared;
  std::vector<std::pair<size_t, const ptx::VarDecl*>> extern_vars;  // module, declaration
  absl::flat_hash_map<const ptx::Declarator*, uint32_t> body_shared;
  SharedLayoutInput shared_in;
  auto place_shared = [&](const ptx::VarDecl& v, const ptx::Declarator& d) {
    shared_in.variables.push_back({DeclaratorBytes(v, d), DeclAlign(v)});
    return static_cast<uint32_t>(shared_in.variables.size() - 1);
  };
  auto is_dynamic_shared = [](const ptx::VarDecl& v, const ptx::Declarator& d) {
    return v.linkage == ptx::Linkage::kExtern && DeclaratorBytes(v, d) == 0;
  };

  for (size_t mi = 0; mi < mods.size(); ++mi) {
    PendingModule& pm = mods[mi];
    for (const ptx::ModuleItem& item : pm.loaded->ir->items) {
      const auto* v = std::get_if<ptx::VarDecl>(&item);
      if (v == nullptr) continue;
      switch (v->space) {
        case ptx::StateSpace::kGlobal:
        case ptx::StateSpace::kConst:
        case ptx::StateSpace::kTex: {
          if (v->linkage == ptx::Linkage::kExtern) {
            extern_vars.emplace_back(mi, v);
            break;
          }
          const bool managed = std::find(v->attributes.begin(), v->attributes.end(), ".managed") != v->attributes.end();
          for (const ptx::Declarator& d : v->declarators) {
            const uint64_t bytes = DeclaratorBytes(*v, d);
            GlobalVariable gv;
            // .common / .weak definitions of one name share one object.
            if (auto it = exported_variables.find(d.name);
                it != exported_variables.end() && v->linkage != ptx::Linkage::kVisible && Exported(v->linkage)) {
              gv = it->second;
            } else {
              auto p = dev.memory_->Allocate(bytes, v->space == ptx::StateSpace::kConst
                                                        ? DeviceMemory::Kind::kConstVariable
                                                        : DeviceMemory::Kind::kGlobalVariable,
                                             d.name);
              if (!p.ok())
                return absl::ResourceExhaustedError(ptx::Cat(Where(pm.loaded->name, v->pos.line), ": variable `",
                                                                 d.name, "`: ", std::string(p.status().message())));
              guard.Add(*p);
              gv = GlobalVariable{*p, bytes, v->space == ptx::StateSpace::kConst ? ptx::StateSpace::kConst
                                                                                 : ptx::StateSpace::kGlobal,
                                  managed};
              defined.push_back(DefinedVariable{mi, v, &d, static_cast<uint8_t*>(*p), bytes});
              if (Exported(v->linkage)) {
                auto [it, inserted] = exported_variables.emplace(d.name, gv);
                if (!inserted && v->linkage == ptx::Linkage::kVisible) it->second = gv;
              }
            }
            if (v->linkage == ptx::Linkage::kWeak || v->linkage == ptx::Linkage::kCommon)
              pm.weak_variables.push_back(d.name);
            pm.symbols[d.name] =
                LinkedSymbol{LinkedSymbol::Kind::kData, reinterpret_cast<uint64_t>(gv.address), Builtin::kNone, ""};
            auto [it, inserted] = unit_variables.emplace(d.name, gv);
            if (!inserted && v->linkage == ptx::Linkage::kVisible) it->second = gv;
          }
          break;
        }
        case ptx::StateSpace::kShared:
          for (const ptx::Declarator& d : v->declarators) {
            if (v->linkage == ptx::Linkage::kExtern) {
              if (!is_dynamic_shared(*v, d)) {
                extern_vars.emplace_back(mi, v);
                break;
              }
              pm.symbols[d.name] = LinkedSymbol{LinkedSymbol::Kind::kShared, kDynamicShared, Builtin::kNone, ""};
              continue;
            }
            const uint32_t at = place_shared(*v, d);
            pm.symbols[d.name] = LinkedSymbol{LinkedSymbol::Kind::kShared, at, Builtin::kNone, ""};
            if (Exported(v->linkage)) exported_shared.emplace(d.name, at);
          }
          break;
        case ptx::StateSpace::kLocal:
          return absl::UnimplementedError(ptx::Cat(Where(pm.loaded->name, v->pos.line),
                                                       ": module-level .local variable `", v->name(),
                                                       "` is not supported"));
        default:
          break;
      }
    }
    // .shared declared inside function bodies: same unit-wide layout.
    for (const auto& [f, index] : pm.functions) {
      (void)index;
      for (const ptx::Statement& s : f->body) {
        const auto* v = std::get_if<ptx::VarDecl>(&s);
        if (v == nullptr || v->space != ptx::StateSpace::kShared) continue;
        for (const ptx::Declarator& d : v->declarators) {
          if (is_dynamic_shared(*v, d)) {
            body_shared[&d] = kDynamicShared;
          } else {
            body_shared[&d] = place_shared(*v, d);
          }
        }
      }
    }
  }
  // Cooperative groups read %reserved_smem_offset_*: set aside the 1 KiB a GPU
  // reserves for the system, laid out like a variable of the functions that
  // read them.
  uint32_t reserved_bytes = 0, reserved_var = kDynamicShared;
  for (const PtxSource& s : sources)
    if (s.text.find("%reserved_smem_offset_") != std::string::npos) reserved_bytes = kReservedSharedBytes;
  if (reserved_bytes != 0) {
    shared_in.variables.push_back({reserved_bytes, 16});
    reserved_var = static_cast<uint32_t>(shared_in.variables.size() - 1);
  }

  // Weak definitions give way to the unit's winner (a .visible definition, else
  // the first weak one), as a linker would bind them.
  for (PendingModule& pm : mods) {
    for (const std::string& name : pm.weak_functions) pm.symbols[name].value = exported_functions.at(name);
    for (const std::string& name : pm.weak_variables)
      pm.symbols[name].value = reinterpret_cast<uint64_t>(exported_variables.at(name).address);
  }

  // .extern variables: the exported definition elsewhere in the unit.
  for (const auto& [mi, v] : extern_vars) {
    PendingModule& pm = mods[mi];
    for (const ptx::Declarator& d : v->declarators) {
      if (pm.symbols.contains(d.name) && pm.symbols[d.name].kind != LinkedSymbol::Kind::kUnresolved) continue;
      LinkedSymbol s;
      if (v->space == ptx::StateSpace::kShared) {
        if (auto it = exported_shared.find(d.name); it != exported_shared.end())
          s = LinkedSymbol{LinkedSymbol::Kind::kShared, it->second, Builtin::kNone, ""};
      } else if (auto it = exported_variables.find(d.name); it != exported_variables.end()) {
        s = LinkedSymbol{LinkedSymbol::Kind::kData, reinterpret_cast<uint64_t>(it->second.address), Builtin::kNone,
                         ""};
      }
      if (s.kind == LinkedSymbol::Kind::kUnresolved) s.declared_at = Where(pm.loaded->name, v->pos.line);
      pm.symbols[d.name] = std::move(s);
    }
  }

  // ---- .shared layout: what each function names, then per-kernel sizes
  shared_in.functions.resize(next_function - first_function);
  for (PendingModule& pm : mods) {
    for (const auto& [f, index] : pm.functions) {
      SharedLayoutInput::Function& use = shared_in.functions[index - first_function];
      use.is_entry = f->is_entry;
      auto name_used = [&](const std::string& name) {
        if (reserved_var != kDynamicShared && name.rfind("%reserved_smem_offset_", 0) == 0)
          use.variables.push_back(reserved_var);
        auto it = pm.symbols.find(name);
        if (it == pm.symbols.end()) return;
        if (it->second.kind == LinkedSymbol::Kind::kShared) {
          if (it->second.value == kDynamicShared)
            use.uses_dynamic = true;
          else
            use.variables.push_back(static_cast<uint32_t>(it->second.value));
        } else if (it->second.kind == LinkedSymbol::Kind::kFunction) {
          use.callees.push_back(static_cast<uint32_t>(it->second.value) - first_function);
        }
      };
      for (const ptx::Statement& st : f->body) {
        if (const auto* v = std::get_if<ptx::VarDecl>(&st); v && v->space == ptx::StateSpace::kShared) {
          for (const ptx::Declarator& d : v->declarators) {
            const uint32_t id = body_shared.at(&d);
            if (id == kDynamicShared)
              use.uses_dynamic = true;
            else
              use.variables.push_back(id);
          }
        } else if (const auto* ir = std::get_if<ptx::Instruction>(&st)) {
          for (const ptx::Operand& o : ir->operands) ForEachName(o, name_used);
          if (ir->op == ptx::Opcode::kCall) {
            const ptx::Operand* t = ir->call_target();
            if (t != nullptr && (t->kind != ptx::Operand::Kind::kSymbol || !pm.symbols.contains(t->text)))
              use.indirect_call = true;
          }
        }
      }
    }
  }
  const SharedLayout layout = LayOutShared(shared_in);
  if (layout.extent > UINT32_MAX || layout.dynamic_base > UINT32_MAX)
    return absl::ResourceExhaustedError("static .shared layout exceeds 4 GiB");
  auto offset_of = [&](uint64_t id) {
    return static_cast<uint32_t>(id == kDynamicShared ? layout.dynamic_base : layout.offsets[id]);
  };
  for (PendingModule& pm : mods)
    for (auto& [name, sym] : pm.symbols)
      if (sym.kind == LinkedSymbol::Kind::kShared) sym.value = offset_of(sym.value);
  for (auto& [d, id] : body_shared) id = offset_of(id);
  const uint32_t reserved_base = reserved_bytes != 0 ? offset_of(reserved_var) : 0;
  const auto static_shared = static_cast<uint32_t>(layout.extent);

  // ---- initialisers (every address is known now)
  for (const DefinedVariable& dv : defined) {
    const PendingModule& pm = mods[dv.module];
    if (auto s = WriteInitializer(*dv.decl, *dv.declarator, dv.address, dv.bytes, pm.symbols, pm.loaded->name);
        !s.ok())
      return s;
  }

  // ---- decode every function
  std::vector<std::unique_ptr<Function>> functions(next_function - first_function);
  for (size_t mi = 0; mi < mods.size(); ++mi) {
    PendingModule& pm = mods[mi];
    pm.loaded->shared_bytes = static_shared;
    ModuleContext ctx;
    ctx.ir = pm.loaded->ir.get();
    ctx.name = pm.loaded->name;
    ctx.module_id = pm.loaded->id;
    ctx.symbols = &pm.symbols;
    ctx.body_shared = &body_shared;
    ctx.static_shared_bytes = static_shared;
    ctx.reserved_shared_base = reserved_base;
    ctx.reserved_shared_bytes = reserved_bytes;
    ctx.site_base = pm.loaded->site_base;
    ctx.sites = &pm.sites;
    ctx.fault_unsupported_when_reached = fault_unsupported_when_reached;
    for (const auto& [f, index] : pm.functions) {
      auto fn = std::make_unique<Function>();
      if (auto s = DecodeFunction(ctx, *f, selectors_, *fn); !s.ok()) return s;
      fn->static_shared_bytes = static_cast<uint32_t>(layout.static_bytes[index - first_function]);
      functions[index - first_function] = std::move(fn);
    }
  }

  // ---- commit
  guard.Commit();
  for (auto& fn : functions) dev.functions_.push_back(std::move(fn));
  for (PendingModule& pm : mods) dev.modules_.push_back(std::move(pm.loaded));
  dev.unit_functions_.push_back(std::move(unit_functions));
  dev.unit_variables_.push_back(std::move(unit_variables));
  dev.next_site_ = site_cursor;
  if (RecordSink* sink = dev.sink_)
    for (uint32_t id = first_module; id < dev.modules_.size(); ++id) {
      const LoadedModule& m = *dev.modules_[id];
      sink->OnModule(m.id, m.site_base, m.sites, m.name);
    }
  return unit;
}

}  // namespace barracuda::emu
