// The transform rules of the control-flow ops, shared by the trace levels: each takes the
// unwrapped values of one level and binds new control-flow ops one level down.
#pragma once

#include <functional>
#include <utility>
#include <vector>

#include "trace_impl.h"
#include "transforms/transforms_impl.h"

namespace strata {

/// Avals of the op's outputs for inputs of avals `in` (traces a sub-function abstractly where
/// the outputs are not the carries).
std::vector<AbstractValue> control_out_avals(const ControlFlow &cf,
                                             const std::vector<AbstractValue> &in);

/// The concrete result of Kind::Bound at a level that has no values (eval_shape, tracing): any
/// positive trip count gives the same avals.
Array abstract_bound(const Array &n);

/// Evaluates the op on concrete inputs (the eval level).
std::vector<Array> eval_control(const ControlFlow &cf, const std::vector<Array> &inputs);

/// Forward mode: the outputs and their tangents (empty: zero or not floating), given the
/// primals and their tangents (empty: zero). The op is bound again on primals ++ tangents.
std::pair<std::vector<Array>, std::vector<Array>>
control_jvp(const ControlFlow &cf, const std::vector<Array> &primals,
            const std::vector<Array> &tangents);

/// Batching: vals[i] batched at dims[i] (or kNotBatched); sets out_dims.
std::vector<Array> control_batch(const ControlFlow &cf, int64_t axis_size,
                                 const std::vector<Array> &vals,
                                 const std::vector<int64_t> &dims, std::vector<int64_t> &out_dims);

/// Reverse mode: the forward pass bound one level down, and the pullback from the output
/// cotangents (empty where zero) to the input cotangents (empty where none).
struct ControlVjp {
  std::vector<Array> outs;
  std::function<std::vector<Array>(const std::vector<Array> &)> pullback;
};
ControlVjp control_vjp(const ControlFlow &cf, const std::vector<Array> &primals);

/// f(primals) under checkpoint's recording level: its outputs and the values `policy` keeps, in
/// the order remat_backward's replay asks for them (lib/transforms/checkpoint.cpp). A scan's
/// forward pass stacks them per step (LoopGradOptions::policy).
RematForward remat_record(const CheckpointPolicy &policy, const FlatFn &f,
                          const std::vector<Array> &primals);

} // namespace strata
