// Internals shared by control flow's entry points (lib/ops/control_flow.cpp), its primitives
// (lib/primitives/control_flow.cpp) and checkpoint's policy levels.
#pragma once

#include <vector>

#include "strata/internal/trace.h"
#include "trace/transforms_impl.h"

namespace strata {

/// The registered control-flow primitives (see lib/primitives/control_flow.cpp for their
/// inputs and parameters).
const Primitive &cond_primitive();
const Primitive &while_primitive();
const Primitive &scan_primitive();

/// f(primals) under checkpoint's recording level: its outputs and the values `policy` keeps, in
/// the order remat_backward's replay asks for them (lib/trace/checkpoint.cpp). A scan's
/// forward pass stacks them per step (LoopGradOptions::policy).
RematForward remat_record(const CheckpointPolicy &policy, const FlatFn &f,
                          const std::vector<Array> &primals);

} // namespace strata
