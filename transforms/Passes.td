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

def StrataInferShapes : Pass<"strata-infer-shapes"> {
  let summary = "Refines dynamic result dimensions of strata ops from static operands.";
  let description = [{
    Visits the strata ops in program order. For each op whose operands are all static and
    whose results have a dynamic dimension, runs the primitive's shape rule (the verifier's,
    libstrata's) and gives the results the rule's static types. Refinements propagate: a
    consumer visited later sees its refined operands and is refined in turn.

    Strata users take the refined value directly. Any other user (`func.return`, a tensor op,
    a region terminator) keeps the type it had through a `tensor.cast` back to the old type,
    so function signatures never change; canonicalization can fold the casts away later.

    Ops that stay dynamic: those with a dynamic operand, and shape ops whose target shape is
    their result type (reshape, broadcast_in_dim, iota, dynamic_slice with a `?` in it). The
    pass fails when a refined operand makes a consumer's shape rule fail or disagree with the
    consumer's static result dimensions.

    Before => after:

    ```mlir
    %y = strata.exp %x : (tensor<4xf32>) -> tensor<?xf32>
    return %y : tensor<?xf32>
    // =>
    %y = strata.exp %x : (tensor<4xf32>) -> tensor<4xf32>
    %c = tensor.cast %y : tensor<4xf32> to tensor<?xf32>
    return %c : tensor<?xf32>
    ```
  }];
  let dependentDialects = ["::mlir::tensor::TensorDialect"];
}

def StrataFuse : Pass<"strata-fuse"> {
  let summary = "Groups elementwise chains and their broadcasts into strata.fusion ops.";
  let description = [{
    Greedy producer-into-consumer fusion, one block at a time. Walking each block in reverse,
    every elementwise strata op (its primitive has the `kElementwise` trait) not yet grouped
    becomes the root of a group, which grows through operands whose defining op is fusible:
    an elementwise op, a `broadcast_in_dim` feeding an elementwise op, or a constant. Each
    group of two or more ops becomes one `strata.fusion` at the root's place; its operands
    are the values the group reads from outside and its results are only the group's values
    that are used outside it.

    Cost model:
    - A producer joins a group only when every user of it is in the group (several users
      inside one group are fine) or comes after the root, where the fusion's result can
      replace it: a value used outside becomes a fusion result and is computed once.
    - A producer with a use before the root is never moved and never duplicated, with two
      exceptions that are cheap to recompute in every group that reads them: a
      `broadcast_in_dim` of a small static operand (at most 65536 elements) and a
      constant. Those are cloned into the group and the original stays for its other users.
    - A broadcast's own operand always comes in as a fusion operand: a producer behind a
      broadcast is not recomputed per broadcast element.
    - Groups never cross `dot_general`, reductions or any other non-elementwise op: those
      stay outside, and their values are fusion operands. Reduction prologues and epilogues
      (softmax, layer norm) are a later step.

    Before => after:

    ```mlir
    %b = strata.broadcast_in_dim %bias, broadcast_dimensions = [1] : (tensor<3xf32>) -> tensor<2x3xf32>
    %s = strata.add %x, %b : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
    %t = strata.tanh %s : (tensor<2x3xf32>) -> tensor<2x3xf32>
    // =>
    %t = strata.fusion (%a = %x, %c = %bias) : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32> {
      %b = strata.broadcast_in_dim %c, broadcast_dimensions = [1] : (tensor<3xf32>) -> tensor<2x3xf32>
      %s = strata.add %a, %b : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
      %0 = strata.tanh %s : (tensor<2x3xf32>) -> tensor<2x3xf32>
      strata.yield %0 : tensor<2x3xf32>
    }
    ```
  }];
}

#endif // STRATA_PASSES_TD
