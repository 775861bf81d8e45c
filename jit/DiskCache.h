// The persistent compilation cache (STRATA_CACHE_DIR). An entry is the object code of one
// compile, in a file named by a hash of its key: the compiler's fingerprint (Strata's and LLVM's
// versions, the host CPU and its features), the target, the pipeline's stages and the staged IR.
// Anything that changes the machine code must be part of the key. Entries are written to a
// temporary name and renamed, so a reader never sees half an entry.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "strata/export.h"

namespace llvm {
class MemoryBuffer;
}

namespace strata::rt {

/// This process's hits (compilations skipped) and writes of the persistent cache.
struct DiskCacheStats {
  int64_t hits = 0, writes = 0;
};
STRATA_EXPORT DiskCacheStats disk_cache_stats();

namespace detail {
/// True when STRATA_CACHE_DIR names a cache directory.
bool disk_cache_enabled();
/// The entry's path for `key` (the target, the pipeline and the staged IR); "" when the cache is
/// off.
std::string disk_cache_path(const std::string &key);
/// The entry at `path`, or null (no entry, or the cache is off).
std::unique_ptr<llvm::MemoryBuffer> read_disk_cache(const std::string &path);
/// Stores `object` at `path` (nothing when the cache is off).
void write_disk_cache(const std::string &path, const llvm::MemoryBuffer &object);
} // namespace detail

} // namespace strata::rt
