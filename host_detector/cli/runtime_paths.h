// Where the CLI finds its companions: the emulator's libcudart.so.13,
// barracudad and the GPU agent, relative to the barracuda binary (build tree or install tree),
// overridable from the environment; and whether a GPU backend could be used.
#ifndef BARRACUDA_HOST_DETECTOR_CLI_RUNTIME_PATHS_H_
#define BARRACUDA_HOST_DETECTOR_CLI_RUNTIME_PATHS_H_

#include <string>
#include <vector>

namespace barracuda::cli {

inline constexpr const char* kEmuLibEnv = "BARRACUDA_EMU_LIB";  // dir or path of libcudart.so.13
inline constexpr const char* kDaemonEnv = "BARRACUDA_DAEMON";   // path of barracudad
inline constexpr const char* kEmulatorLibraryName = "libcudart.so.13";
inline constexpr const char* kGpuAgentEnv = "BARRACUDA_GPU_AGENT";  // path of libbarracuda_gpu.so
inline constexpr const char* kGpuAgentName = "libbarracuda_gpu.so";
inline constexpr const char* kStaticCudartEnv = "BARRACUDA_STATIC_CUDART_LIB";  // path of libbarracuda_static_cudart.so
inline constexpr const char* kStaticCudartName = "libbarracuda_static_cudart.so";

// Directory of the running executable (/proc/self/exe).
std::string SelfDirectory();

struct Found {
  std::string path;                   // empty: not found
  std::vector<std::string> searched;  // for the error message
};

// The directory holding the emulator's libcudart.so.13: $BARRACUDA_EMU_LIB (a
// directory or the library itself), else <bin>/../ptx_emulator (build tree),
// else <bin>/../lib/barracuda, else <bin>/../lib (install tree).
Found FindEmulatorLibraryDir(const std::string& self_dir);
// barracudad: $BARRACUDA_DAEMON, else next to the barracuda binary.
Found FindDaemon(const std::string& self_dir);
// The GPU backend's preload agent: $BARRACUDA_GPU_AGENT, else
// <bin>/../lib/libbarracuda_gpu.so (build tree and install tree), else
// <bin>/../lib/barracuda/libbarracuda_gpu.so.
Found FindGpuAgent(const std::string& self_dir);
// The library preloaded into a -cudart static program (static_cudart/):
// $BARRACUDA_STATIC_CUDART_LIB, else found like the GPU agent.
Found FindStaticCudartLibrary(const std::string& self_dir);

// A usable NVIDIA driver and device: /dev/nvidia0 exists and libcuda.so.1 loads.
bool NvidiaGpuPresent();

}  // namespace barracuda::cli

#endif  // BARRACUDA_HOST_DETECTOR_CLI_RUNTIME_PATHS_H_
