// The signal that a jitted function cannot be compiled on its own (it uses a value traced by an
// enclosing transform, or needs a concrete while_loop trip count): jit then runs it op by op.
// A light header: the Python bindings carry it across Python frames (as
// strata._core.ForeignTracerError) and back.
#pragma once

#include <string>

#include "strata/export.h"

namespace strata::rt {

/// Thrown while staging; caught by jit's call, which runs the function op by op instead.
struct STRATA_EXPORT ForeignTracer {
  /// The transform whose tracer (or need) the function met ("grad", "vmap", "jit", ...).
  std::string origin;
};

} // namespace strata::rt
