// Internals shared by the transform levels.
#pragma once

#include "strata/transforms.h"
#include "../trace_impl.h"
#include "rules_impl.h"

namespace strata {

using rules::move_axis;

/// Forward mode of a primitive whose outputs and tangents come from one computation (jit_call:
/// one compiled function computes both): the outputs and the output tangents (empty where
/// zero), given the primals and their tangents (empty where zero). The jvp level uses it in
/// place of binding the primitive and calling its JvpRule. A rule-table entry in spirit (as
/// Primitive::fwd_vjp is), looked up here to keep it out of the public header.
using FwdJvpRule = std::function<std::pair<std::vector<Array>, std::vector<Array>>(
    std::span<const Array> primals, std::span<const Array> tangents, const Params &params)>;
/// The FwdJvpRule of `prim`, or nullptr (lib/primitives/calls.cpp).
const FwdJvpRule *fwd_jvp_rule(const Primitive &prim);

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
