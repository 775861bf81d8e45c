// SHA-256 (FIPS 180-4) for the persistent caches' keys and checksums (CacheEntry.h): shared by
// libstrata_jit and libstrata_cuda, which links no LLVM.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>

#include "strata/export.h"

namespace strata {

/// Incremental SHA-256.
class STRATA_EXPORT Sha256 {
public:
  Sha256();
  void update(std::string_view data);
  /// The digest; the object is spent afterwards.
  std::array<uint8_t, 32> finish();

private:
  void block(const uint8_t *p);
  std::array<uint32_t, 8> h_;
  std::array<uint8_t, 64> buf_{};
  size_t used_ = 0;
  uint64_t total_ = 0;
};

/// Lower-case hex of the first `nbytes` bytes of SHA-256(data).
STRATA_EXPORT std::string sha256_hex(std::string_view data, size_t nbytes = 32);

} // namespace strata
