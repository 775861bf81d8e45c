// The persistent compilation cache (STRATA_CACHE_DIR): object code on disk under a hash of what
// decides it, written atomically, counted.
#include "jit/DiskCache.h"

#include "jit/Compile.h"

#include <array>
#include <atomic>
#include <cstdlib>
#include <filesystem>
#include <fstream>

#include <unistd.h>

#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Config/llvm-config.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SHA256.h"
#include "llvm/TargetParser/Host.h"

namespace strata::rt {
namespace {

std::atomic<int64_t> g_disk_hits{0}, g_disk_writes{0};

/// What, besides the IR, decides the machine code: the compiler, the host CPU and the vector
/// math library.
const std::string &compiler_fingerprint() {
  static const std::string f = [] {
    std::string s =
        "strata-0.2 llvm-" LLVM_VERSION_STRING " cpu=" + llvm::sys::getHostCPUName().str() +
        " features=";
    for (const auto &feature : llvm::sys::getHostCPUFeatures())
      s += (feature.second ? "+" : "-") + feature.first().str() + ",";
    // Object code vectorized against libmvec calls its functions.
    s += " vector-math=" + detail::vector_math_library();
    return s;
  }();
  return f;
}

/// The persistent cache's directory (STRATA_CACHE_DIR), or "" when it is off.
std::string disk_cache_dir() {
  const char *dir = std::getenv("STRATA_CACHE_DIR");
  return dir ? dir : "";
}

} // namespace

DiskCacheStats disk_cache_stats() { return {g_disk_hits.load(), g_disk_writes.load()}; }

namespace detail {

bool disk_cache_enabled() { return !disk_cache_dir().empty(); }

std::string disk_cache_path(const std::string &key) {
  std::string dir = disk_cache_dir();
  if (dir.empty())
    return "";
  llvm::SHA256 h;
  h.update(compiler_fingerprint());
  h.update(key);
  std::array<uint8_t, 32> digest = h.final();
  return dir + "/" + llvm::toHex(llvm::ArrayRef<uint8_t>(digest.data(), 16), true) + ".o";
}

std::unique_ptr<llvm::MemoryBuffer> read_disk_cache(const std::string &path) {
  if (path.empty())
    return nullptr;
  auto buf = llvm::MemoryBuffer::getFile(path);
  if (!buf)
    return nullptr;
  ++g_disk_hits;
  return std::move(*buf);
}

void write_disk_cache(const std::string &path, const llvm::MemoryBuffer &object) {
  if (path.empty())
    return;
  // Write then rename: a concurrent reader never sees half a file.
  std::error_code ec;
  std::filesystem::create_directories(std::filesystem::path(path).parent_path(), ec);
  std::string tmp = path + ".tmp" + std::to_string(::getpid());
  {
    std::ofstream out(tmp, std::ios::binary);
    out.write(object.getBufferStart(), static_cast<std::streamsize>(object.getBufferSize()));
  }
  std::filesystem::rename(tmp, path, ec);
  if (!ec)
    ++g_disk_writes;
}

} // namespace detail
} // namespace strata::rt
