// The persistent compilation cache (STRATA_CACHE_DIR). An entry is the object code of one
// compile, in a file named by a hash of its key: the compiler's fingerprint (Strata's and LLVM's
// versions, the host CPU and its features), the target, the pipeline's stages and the staged IR.
// Anything that changes the machine code must be part of the key. The file carries the full key,
// the fingerprint and a checksum of the object code (strata/internal/cache_entry.h), checked
// before the code is loaded: a damaged or foreign entry is discarded and recompiled.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "strata/export.h"

namespace llvm {
class MemoryBuffer;
}

namespace strata::rt {

/// This process's hits (compilations skipped), writes and discarded entries (damaged, foreign
/// or not regular files, recompiled instead) of the persistent cache.
struct DiskCacheStats {
  int64_t hits = 0, writes = 0, discarded = 0;
};
STRATA_EXPORT DiskCacheStats disk_cache_stats();

namespace detail {
/// True when STRATA_CACHE_DIR names a cache directory.
bool disk_cache_enabled();
/// The entry's path for `key` (the target, the pipeline and the staged IR); "" when the cache is
/// off.
std::string disk_cache_path(const std::string &key);
/// The object code stored at `path` for `key`, or null: no entry, the cache is off, or the entry
/// failed verification (then it is discarded, with one warning per process).
std::unique_ptr<llvm::MemoryBuffer> read_disk_cache(const std::string &path,
                                                    const std::string &key);
/// Stores `object` for `key` at `path` (nothing when the cache is off; a warning, once, when the
/// directory cannot take it).
void write_disk_cache(const std::string &path, const std::string &key,
                      const llvm::MemoryBuffer &object);
} // namespace detail

} // namespace strata::rt
