// strata::AllocationError: the exception for an array too large to exist or to allocate.
#pragma once

#include <string>

#include "strata/error.h"

namespace strata {

/// Thrown when an array's size overflows (its element count past int64, its byte size past
/// PTRDIFF_MAX) or its memory cannot be allocated, host or device: `[zeros] too large:
/// f32[4611686018427387904] needs 16 EiB, more than an address space holds`. A strata::Error,
/// so that every `catch (const Error &)` still sees it; Python raises it as MemoryError.
class STRATA_EXPORT AllocationError : public Error {
public:
  explicit AllocationError(const std::string &msg) : Error(msg, ErrorKind::Value) {}
};

} // namespace strata
