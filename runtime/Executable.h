// A compiled function the jit cache holds: the CPU and GPU executables run behind this.
#pragma once

#include <vector>

#include "strata/array.h"
#include "strata/export.h"

namespace strata::rt {

class STRATA_EXPORT Executable {
public:
  virtual ~Executable() = default;
  /// Runs on concrete arrays of the staged input types; allocates the outputs where the
  /// executable runs (host memory, or the GPU it was compiled for).
  virtual std::vector<Array> run(const std::vector<Array> &inputs) const = 0;
};

} // namespace strata::rt
