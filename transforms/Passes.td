//===- Passes.td - Strata's passes ----------------------------------------*- tablegen -*-===//
//
// Every Strata pass, declared once: flags carry the `strata-` prefix, implementations derive
// from the generated bases (GEN_PASS_DEF), and registerStrataPasses() registers them all.
//
//===----------------------------------------------------------------------------------===//

#ifndef STRATA_PASSES_TD
#define STRATA_PASSES_TD

include "mlir/Pass/PassBase.td"

def StrataLowerToLinalg : Pass<"strata-lower-to-linalg"> {
  let summary = "Lowers strata ops on static tensors to linalg, tensor, arith and math.";
  let description = [{
    Rewrites each strata op whose operands and results are statically shaped ranked tensors
    of float or signless-integer (incl. i1) elements into upstream ops ready for
    bufferization. The pass is partial: ops it does not handle yet stay in place.

    Handled:
    - elementwise unary (neg, abs, sign, floor, ceil, round, exp, log, log1p, expm1, sqrt,
      rsqrt, sin, cos, tan, tanh, logistic, erf, is_finite, not, integer_pow), binary (add,
      sub, mul, div, rem, pow, max, min, atan2, and, or, xor, shift_left,
      shift_right_logical), comparisons (eq, ne, lt, le, gt, ge), select, clamp and
      convert_element_type: one `linalg.generic` with an arith/math body;
    - stop_gradient: forwarded to its operand;
    - broadcast_in_dim: `linalg.generic` with a projected input indexing map;
    - transpose: `linalg.transpose`;
    - reshape: `tensor.collapse_shape`/`tensor.expand_shape`, else `tensor.reshape`;
    - reduce_sum/max/min/prod: `linalg.reduce` into a `linalg.fill`ed init;
    - dot_general: `linalg.matmul`/`linalg.batch_matmul` for the canonical layouts, else a
      `linalg.generic` whose indexing maps spell the dimension numbers.

    Not yet: erf_inv, unsigned element types, dynamic shapes, iota, rev, slice, pad,
    concatenate, dynamic_(update_)slice, gather/scatter, cumulative and arg reductions, sort,
    bitcast_convert_type, threefry2x32, checkpoint_name.

    Before => after:

    ```mlir
    %y = strata.exp %x : (tensor<4xf32>) -> tensor<4xf32>
    // =>
    %e = tensor.empty() : tensor<4xf32>
    %y = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
        ins(%x : tensor<4xf32>) outs(%e : tensor<4xf32>) {
    ^bb0(%in: f32, %out: f32):
      %0 = math.exp %in : f32
      linalg.yield %0 : f32
    } -> tensor<4xf32>
    ```
  }];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::linalg::LinalgDialect",
    "::mlir::math::MathDialect",
    "::mlir::tensor::TensorDialect",
  ];
}

#endif // STRATA_PASSES_TD
