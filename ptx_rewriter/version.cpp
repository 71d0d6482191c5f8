// The library's own version string (also gives the library a source before
// every concern has landed).
namespace barracuda::ptx {
const char* LibraryVersion() { return BARRACUDA_VERSION; }
}  // namespace barracuda::ptx
