// The persistent compilation cache (STRATA_CACHE_DIR): object code on disk under a hash of what
// decides it, verified when read, written atomically, counted.
#include "jit/DiskCache.h"

#include "jit/Compile.h"
#include "strata/internal/cache_entry.h"
#include "strata/internal/sha256.h"

#include <atomic>
#include <cstdlib>

#include "llvm/ADT/StringMap.h"
#include "llvm/Config/llvm-config.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/TargetParser/Host.h"

namespace strata::rt {
namespace {

std::atomic<int64_t> g_disk_hits{0}, g_disk_writes{0}, g_disk_discarded{0};

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

DiskCacheStats disk_cache_stats() {
  return {g_disk_hits.load(), g_disk_writes.load(), g_disk_discarded.load()};
}

namespace detail {

bool disk_cache_enabled() { return !disk_cache_dir().empty(); }

std::string disk_cache_path(const std::string &key) {
  std::string dir = disk_cache_dir();
  if (dir.empty())
    return "";
  return dir + "/" + sha256_hex(compiler_fingerprint() + key, 16) + ".o";
}

std::unique_ptr<llvm::MemoryBuffer> read_disk_cache(const std::string &path,
                                                    const std::string &key) {
  if (path.empty())
    return nullptr;
  cache::EntryRead entry = cache::read_entry(path, compiler_fingerprint(), key, "jit");
  if (entry.status == cache::EntryRead::Status::Discarded)
    ++g_disk_discarded;
  if (entry.status != cache::EntryRead::Status::Hit)
    return nullptr;
  ++g_disk_hits;
  return llvm::MemoryBuffer::getMemBufferCopy(entry.payload, path);
}

void write_disk_cache(const std::string &path, const std::string &key,
                      const llvm::MemoryBuffer &object) {
  if (!path.empty() &&
      cache::write_entry(path, compiler_fingerprint(), key,
                         std::string_view(object.getBufferStart(), object.getBufferSize()), "jit"))
    ++g_disk_writes;
}

} // namespace detail
} // namespace strata::rt
