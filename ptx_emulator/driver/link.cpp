// The JIT linker (cuLinkCreate / AddData / AddFile / Complete / Destroy), as
// NVRTC programs use it to link their PTX with other modules. The emulator
// runs PTX and resolves names across a link unit at load (an -rdc program's
// objects are linked the same way), so linking keeps the inputs and
// cuLinkComplete hands out an image of them (runtime/linked_image.h) that
// cuModuleLoadData / cuLibraryLoadData load as one link unit.
//
// Inputs: PTX (CU_JIT_INPUT_PTX) and fat binaries with PTX
// (CU_JIT_INPUT_FATBINARY); a library (CU_JIT_INPUT_LIBRARY: libcudadevrt.a)
// is accepted and skipped with a line in the info log, since its device code
// is machine code (a kernel that needs it fails to load, naming the missing
// function); cubins, host objects and NVVM IR are refused
// (CUDA_ERROR_NOT_SUPPORTED, the reason in the error log). PTX is read at
// load time, not when added: errors in it surface at cuModuleLoadData (the
// message on stderr), where the driver's JIT would report them at
// cuLinkAddData.
#include <cstring>
#include <fstream>
#include <iterator>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_set>
#include <vector>

#include "ptx_emulator/driver/driver_api.h"
#include "ptx_emulator/runtime/linked_image.h"

using barracuda::cuda_driver::CheckInit;
using barracuda::cudart::EncodeLinkedImage;
using barracuda::cudart::LinkedInput;
using barracuda::cudart::LinkedInputKind;

struct CUlinkState_st {
  std::vector<LinkedInput> inputs;
  std::vector<uint64_t> image;  // cuLinkComplete's output, alive until cuLinkDestroy
  // The log options of cuLinkCreate: the program's buffers, and the option
  // values that take back how much was written.
  char* info_log = nullptr;
  size_t info_size = 0;
  void** info_size_out = nullptr;
  char* error_log = nullptr;
  size_t error_size = 0;
  void** error_size_out = nullptr;
  std::string info, error;  // accumulated over the state's life, as the driver does
};

namespace {

std::mutex& StatesMutex() {
  static std::mutex mu;
  return mu;
}
std::unordered_set<CUlinkState>& States() {
  static std::unordered_set<CUlinkState> states;
  return states;
}
bool Live(CUlinkState s) {
  std::lock_guard<std::mutex> lock(StatesMutex());
  return States().contains(s);
}

// Copies `text` into a log buffer of `size` bytes (NUL-terminated, cut to
// fit) and tells the program how many bytes it holds.
void WriteLog(const std::string& text, char* buffer, size_t size, void** size_out) {
  if (buffer == nullptr || size == 0) return;
  const size_t n = std::min(text.size(), size - 1);
  std::memcpy(buffer, text.data(), n);
  buffer[n] = '\0';
  if (size_out != nullptr) *size_out = reinterpret_cast<void*>(static_cast<uintptr_t>(n + 1));
}

void Info(CUlinkState s, const std::string& line) {
  s->info += line + "\n";
  WriteLog(s->info, s->info_log, s->info_size, s->info_size_out);
}

CUresult Error(CUlinkState s, CUresult r, const std::string& line) {
  s->error += line + "\n";
  WriteLog(s->error, s->error_log, s->error_size, s->error_size_out);
  return r;
}

const char* InputTypeName(CUjitInputType type) {
  switch (type) {
    case CU_JIT_INPUT_CUBIN: return "a cubin";
    case CU_JIT_INPUT_PTX: return "PTX";
    case CU_JIT_INPUT_FATBINARY: return "a fat binary";
    case CU_JIT_INPUT_OBJECT: return "a host object";
    case CU_JIT_INPUT_LIBRARY: return "a library";
    case CU_JIT_INPUT_NVVM: return "NVVM IR";
    default: return "an input of unknown type";
  }
}

CUresult Add(CUlinkState state, CUjitInputType type, const char* data, size_t size, const char* name) {
  const std::string label = name != nullptr && *name != '\0' ? name : "(unnamed input)";
  switch (type) {
    case CU_JIT_INPUT_PTX: {
      std::string text(data, size);
      while (!text.empty() && text.back() == '\0') text.pop_back();  // PTX comes NUL-terminated
      state->inputs.push_back({LinkedInputKind::kPtx, label, std::move(text)});
      return CUDA_SUCCESS;
    }
    case CU_JIT_INPUT_FATBINARY:
      state->inputs.push_back({LinkedInputKind::kFatbin, label, std::string(data, size)});
      return CUDA_SUCCESS;
    case CU_JIT_INPUT_LIBRARY:
      Info(state, "barracuda emulator: " + label +
                      ": a library of machine code, skipped (the emulator links PTX; a kernel calling into it "
                      "fails to load)");
      return CUDA_SUCCESS;
    case CU_JIT_INPUT_CUBIN:
    case CU_JIT_INPUT_OBJECT:
    case CU_JIT_INPUT_NVVM:
      return Error(state, CUDA_ERROR_NOT_SUPPORTED,
                   "barracuda emulator: " + label + ": cannot link " + InputTypeName(type) +
                       ": the emulator runs PTX only (add PTX, e.g. NVRTC's for a compute_XX target, or a fat "
                       "binary with PTX)");
    default: return CUDA_ERROR_INVALID_VALUE;
  }
}

}  // namespace

CUresult cuLinkCreate_v2(unsigned int numOptions, CUjit_option* options, void** optionValues, CUlinkState* stateOut) {
  if (CUresult r = CheckInit()) return r;
  if (stateOut == nullptr || (numOptions != 0 && (options == nullptr || optionValues == nullptr)))
    return CUDA_ERROR_INVALID_VALUE;
  auto state = std::make_unique<CUlinkState_st>();
  for (unsigned i = 0; i < numOptions; ++i) {
    const auto value = reinterpret_cast<uintptr_t>(optionValues[i]);
    switch (options[i]) {
      case CU_JIT_INFO_LOG_BUFFER: state->info_log = static_cast<char*>(optionValues[i]); break;
      case CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES:
        state->info_size = value;
        state->info_size_out = &optionValues[i];
        break;
      case CU_JIT_ERROR_LOG_BUFFER: state->error_log = static_cast<char*>(optionValues[i]); break;
      case CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES:
        state->error_size = value;
        state->error_size_out = &optionValues[i];
        break;
      case CU_JIT_WALL_TIME: optionValues[i] = nullptr; break;  // out: milliseconds spent (0.0f)
      default: break;  // optimisation levels, targets, ...: nothing to tune
    }
  }
  // Empty logs until something is written.
  if (state->info_log != nullptr && state->info_size != 0) state->info_log[0] = '\0';
  if (state->error_log != nullptr && state->error_size != 0) state->error_log[0] = '\0';
  CUlinkState s = state.release();
  std::lock_guard<std::mutex> lock(StatesMutex());
  States().insert(s);
  *stateOut = s;
  return CUDA_SUCCESS;
}

CUresult cuLinkAddData_v2(CUlinkState state, CUjitInputType type, void* data, size_t size, const char* name,
                          unsigned int, CUjit_option*, void**) {
  if (CUresult r = CheckInit()) return r;
  if (!Live(state)) return CUDA_ERROR_INVALID_HANDLE;
  if (data == nullptr || size == 0) return CUDA_ERROR_INVALID_VALUE;
  return Add(state, type, static_cast<const char*>(data), size, name);
}

CUresult cuLinkAddFile_v2(CUlinkState state, CUjitInputType type, const char* path, unsigned int, CUjit_option*,
                          void**) {
  if (CUresult r = CheckInit()) return r;
  if (!Live(state)) return CUDA_ERROR_INVALID_HANDLE;
  if (path == nullptr) return CUDA_ERROR_INVALID_VALUE;
  std::ifstream in(path, std::ios::binary);
  if (!in) return Error(state, CUDA_ERROR_FILE_NOT_FOUND, std::string("barracuda emulator: cannot open ") + path);
  const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (bytes.empty()) return Error(state, CUDA_ERROR_INVALID_IMAGE, std::string("barracuda emulator: empty file ") + path);
  return Add(state, type, bytes.data(), bytes.size(), path);
}

CUresult cuLinkComplete(CUlinkState state, void** cubinOut, size_t* sizeOut) {
  if (CUresult r = CheckInit()) return r;
  if (!Live(state)) return CUDA_ERROR_INVALID_HANDLE;
  if (cubinOut == nullptr || sizeOut == nullptr) return CUDA_ERROR_INVALID_VALUE;
  if (state->inputs.empty())
    return Error(state, CUDA_ERROR_INVALID_IMAGE, "barracuda emulator: nothing to link (no PTX or fat binary added)");
  state->image = EncodeLinkedImage(state->inputs);
  *cubinOut = state->image.data();
  *sizeOut = state->image.size() * sizeof(uint64_t);
  return CUDA_SUCCESS;
}

CUresult cuLinkDestroy(CUlinkState state) {
  {
    std::lock_guard<std::mutex> lock(StatesMutex());
    if (States().erase(state) != 1) return CUDA_ERROR_INVALID_HANDLE;
  }
  delete state;
  return CUDA_SUCCESS;
}

// Older exported names (cuda.h maps them to the _v2 variants of the same signature).
#undef cuLinkCreate
#undef cuLinkAddData
#undef cuLinkAddFile
CU_EXPORT CUresult cuLinkCreate(unsigned int numOptions, CUjit_option* options, void** optionValues,
                                CUlinkState* stateOut) {
  return cuLinkCreate_v2(numOptions, options, optionValues, stateOut);
}
CU_EXPORT CUresult cuLinkAddData(CUlinkState state, CUjitInputType type, void* data, size_t size, const char* name,
                                 unsigned int numOptions, CUjit_option* options, void** optionValues) {
  return cuLinkAddData_v2(state, type, data, size, name, numOptions, options, optionValues);
}
CU_EXPORT CUresult cuLinkAddFile(CUlinkState state, CUjitInputType type, const char* path, unsigned int numOptions,
                                 CUjit_option* options, void** optionValues) {
  return cuLinkAddFile_v2(state, type, path, numOptions, options, optionValues);
}
