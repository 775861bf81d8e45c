// One entry of a persistent compilation cache (STRATA_CACHE_DIR): a header carrying the full key,
// the compiler fingerprint, the payload's size and SHA-256, all verified before the payload is
// handed back, so no damaged, swapped or foreign file is ever loaded as compiled code. Shared by
// the CPU/GPU object cache (libstrata_jit) and the cubin cache (libstrata_cuda).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "strata/export.h"

namespace strata::cache {

/// The entry format's version; a reader discards entries of any other version.
inline constexpr uint32_t kEntryVersion = 1;
/// Bytes before the fingerprint: magic (8), version (4), reserved (4), the fingerprint's, key's
/// and payload's sizes (8 each), the payload's SHA-256 (32).
inline constexpr size_t kEntryHeaderSize = 72;
/// The largest entry read or written (1 GiB): far above any object code, and a bound on the
/// memory and time a reader spends on a file whose size is not that of an entry (a sparse file).
inline constexpr uint64_t kMaxEntrySize = uint64_t{1} << 30;

/// What a lookup found.
struct EntryRead {
  enum class Status {
    Missing,   ///< no entry at the path
    Hit,       ///< a verified entry: `payload` holds it
    Discarded, ///< something unusable at the path (`reason` says what); it has been removed
  };
  Status status = Status::Missing;
  std::string payload;
  std::string reason;
};

/// The bytes of an entry holding `payload` for (`fingerprint`, `key`).
STRATA_EXPORT std::string encode_entry(std::string_view fingerprint, std::string_view key,
                                       std::string_view payload);

/// Reads the entry at `path` and checks it belongs to (`fingerprint`, `key`) and is intact. Never
/// blocks and never follows a symbolic link: anything but a regular file is discarded unread, and
/// the read is bounded by the file's size. A discarded entry is removed (best effort; a later
/// write replaces it anyway) and reported once per process on stderr as
/// `[<tag>] discarding corrupt cache entry <path>: <reason>`.
STRATA_EXPORT EntryRead read_entry(const std::string &path, std::string_view fingerprint,
                                   std::string_view key, const char *tag);

/// Stores an entry atomically: written to a temporary file beside `path` (mode 0600), then
/// renamed over it, so readers and concurrent writers only ever see whole entries. Missing
/// directories are created with mode 0700. Returns false when the entry could not be written (a
/// read-only or full disk, `path` is a non-empty directory, an entry over kMaxEntrySize), after
/// one warning per process on
/// stderr: caching is best effort and never fails the compilation.
STRATA_EXPORT bool write_entry(const std::string &path, std::string_view fingerprint,
                               std::string_view key, std::string_view payload, const char *tag);

/// Lets the next discard and the next failed write warn again: for tests that check the warning.
STRATA_EXPORT void reset_entry_warnings();

} // namespace strata::cache
