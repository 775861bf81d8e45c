// The trace stack's internal interface: levels and their tracers. Eval is the bottom; the
// transforms (jvp, grad, vmap, abstract, checkpoint, staging) push levels above it.
#pragma once

#include <span>
#include <string>
#include <vector>

#include "strata/primitive.h"

namespace strata {

class TraceLevel {
public:
  virtual ~TraceLevel() = default;
  /// Position in the stack; higher levels handle a primitive first.
  int depth = 0;
  /// Name of the transform, for error messages ("jvp", "grad", "vmap", ...).
  virtual std::string name() const = 0;
  /// Applies `prim` to inputs of which at least one is a tracer of this level.
  virtual std::vector<Array> process(const Primitive &prim, std::span<const Array> inputs,
                                     const Params &params) = 0;
};

class Tracer {
public:
  virtual ~Tracer() = default;
  /// The level this tracer belongs to; nullptr once its transform has ended.
  virtual TraceLevel *level() const = 0;
  /// The transform it came from, for errors about tracers used outside it.
  virtual std::string origin() const = 0;
};

std::string describe_tracer(const Tracer &t);

} // namespace strata
