// Internals shared by the transform levels.
#pragma once

#include "primitives/rules_impl.h"
#include "strata/internal/trace.h"
#include "strata/transforms.h"

namespace strata {

using rules::move_axis;

/// The forward pass of a checkpointed call: its outputs, and the values its policy keeps.
struct RematForward {
  std::vector<Array> outputs, saved;
};
/// Input cotangents of a checkpointed call: replays f at `primals` (reusing `kept` values where
/// the policy saved them) under a grad level and pulls `cts` back.
std::vector<Array> remat_backward(const FlatFn &f, const std::vector<Array> &primals,
                                  const CheckpointPolicy &policy, const std::vector<Array> &kept,
                                  const std::vector<Array> &cts);

} // namespace strata
