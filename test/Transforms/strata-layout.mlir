// RUN: strata-opt --split-input-file --strata-layout %s | FileCheck %s

// A transposed rhs folds into the rhs contracting dim: x @ w.T reads w directly.
// CHECK-LABEL: func.func @dot_rhs_transpose
// CHECK-SAME: (%[[X:[^:]+]]: tensor<2x3xf32>, %[[W:[^:]+]]: tensor<4x3xf32>)
// CHECK-NEXT: %[[D:.+]] = strata.dot_general %[[X]], %[[W]], batch_dims = [] x [], contracting_dims = [1] x [1] : (tensor<2x3xf32>, tensor<4x3xf32>) -> tensor<2x4xf32>
// CHECK-NEXT: return %[[D]]
func.func @dot_rhs_transpose(%x: tensor<2x3xf32>, %w: tensor<4x3xf32>) -> tensor<2x4xf32> {
  %t = strata.transpose %w, permutation = [1, 0] : (tensor<4x3xf32>) -> tensor<3x4xf32>
  %d = strata.dot_general %x, %t, batch_dims = [] x [], contracting_dims = [1] x [0] : (tensor<2x3xf32>, tensor<3x4xf32>) -> tensor<2x4xf32>
  return %d : tensor<2x4xf32>
}

// -----

// A transposed lhs folds into the lhs contracting dim: a.T @ w.
// CHECK-LABEL: func.func @dot_lhs_transpose
// CHECK-SAME: (%[[A:[^:]+]]: tensor<3x2xf32>, %[[W:[^:]+]]: tensor<3x4xf32>)
// CHECK-NEXT: %[[D:.+]] = strata.dot_general %[[A]], %[[W]], batch_dims = [] x [], contracting_dims = [0] x [0] : (tensor<3x2xf32>, tensor<3x4xf32>) -> tensor<2x4xf32>
// CHECK-NEXT: return %[[D]]
func.func @dot_lhs_transpose(%a: tensor<3x2xf32>, %w: tensor<3x4xf32>) -> tensor<2x4xf32> {
  %t = strata.transpose %a, permutation = [1, 0] : (tensor<3x2xf32>) -> tensor<2x3xf32>
  %d = strata.dot_general %t, %w, batch_dims = [] x [], contracting_dims = [1] x [0] : (tensor<2x3xf32>, tensor<3x4xf32>) -> tensor<2x4xf32>
  return %d : tensor<2x4xf32>
}

// -----

// Rank-3 transposes on both sides fold at once: batch and contracting dims of each side are
// mapped through its own permutation (lhs [1, 2, 0], rhs [1, 2, 0]).
// CHECK-LABEL: func.func @dot_batched_both_sides
// CHECK-SAME: (%[[A:[^:]+]]: tensor<5x2x4xf32>, %[[C:[^:]+]]: tensor<3x5x4xf32>)
// CHECK-NEXT: %[[D:.+]] = strata.dot_general %[[A]], %[[C]], batch_dims = [0] x [1], contracting_dims = [2] x [2] : (tensor<5x2x4xf32>, tensor<3x5x4xf32>) -> tensor<5x2x3xf32>
// CHECK-NEXT: return %[[D]]
func.func @dot_batched_both_sides(%a: tensor<5x2x4xf32>, %c: tensor<3x5x4xf32>) -> tensor<5x2x3xf32> {
  %ta = strata.transpose %a, permutation = [1, 2, 0] : (tensor<5x2x4xf32>) -> tensor<2x4x5xf32>
  %tc = strata.transpose %c, permutation = [1, 2, 0] : (tensor<3x5x4xf32>) -> tensor<5x4x3xf32>
  %d = strata.dot_general %ta, %tc, batch_dims = [2] x [0], contracting_dims = [1] x [1] : (tensor<2x4x5xf32>, tensor<5x4x3xf32>) -> tensor<5x2x3xf32>
  return %d : tensor<5x2x3xf32>
}

// -----

// Two contracting dims keep their pairing and list order; the transpose only renames them.
// CHECK-LABEL: func.func @dot_two_contracting
// CHECK-SAME: (%[[A:[^:]+]]: tensor<4x2x3xf32>, %[[B:[^:]+]]: tensor<3x4x5xf32>)
// CHECK-NEXT: %[[D:.+]] = strata.dot_general %[[A]], %[[B]], batch_dims = [] x [], contracting_dims = [2, 0] x [0, 1] : (tensor<4x2x3xf32>, tensor<3x4x5xf32>) -> tensor<2x5xf32>
func.func @dot_two_contracting(%a: tensor<4x2x3xf32>, %b: tensor<3x4x5xf32>) -> tensor<2x5xf32> {
  %t = strata.transpose %a, permutation = [1, 2, 0] : (tensor<4x2x3xf32>) -> tensor<2x3x4xf32>
  %d = strata.dot_general %t, %b, batch_dims = [] x [], contracting_dims = [1, 2] x [0, 1] : (tensor<2x3x4xf32>, tensor<3x4x5xf32>) -> tensor<2x5xf32>
  return %d : tensor<2x5xf32>
}

// -----

// Negative: the transpose swaps the lhs's two free dims, which the result would see: it stays.
// CHECK-LABEL: func.func @dot_free_dims_reordered
// CHECK-NEXT: %[[T:.+]] = strata.transpose
// CHECK-NEXT: strata.dot_general %[[T]]
func.func @dot_free_dims_reordered(%a: tensor<3x2x4xf32>, %w: tensor<4x5xf32>) -> tensor<2x3x5xf32> {
  %t = strata.transpose %a, permutation = [1, 0, 2] : (tensor<3x2x4xf32>) -> tensor<2x3x4xf32>
  %d = strata.dot_general %t, %w, batch_dims = [] x [], contracting_dims = [2] x [0] : (tensor<2x3x4xf32>, tensor<4x5xf32>) -> tensor<2x3x5xf32>
  return %d : tensor<2x3x5xf32>
}

// -----

// A transpose of a matmul's result swaps the operands: (x @ w).T = w.T @ x.T.
// CHECK-LABEL: func.func @transpose_of_dot_swaps
// CHECK-SAME: (%[[X:[^:]+]]: tensor<2x3xf32>, %[[W:[^:]+]]: tensor<3x4xf32>)
// CHECK-NEXT: %[[D:.+]] = strata.dot_general %[[W]], %[[X]], batch_dims = [] x [], contracting_dims = [0] x [1] : (tensor<3x4xf32>, tensor<2x3xf32>) -> tensor<4x2xf32>
// CHECK-NEXT: return %[[D]]
func.func @transpose_of_dot_swaps(%x: tensor<2x3xf32>, %w: tensor<3x4xf32>) -> tensor<4x2xf32> {
  %d = strata.dot_general %x, %w, batch_dims = [] x [], contracting_dims = [1] x [0] : (tensor<2x3xf32>, tensor<3x4xf32>) -> tensor<2x4xf32>
  %t = strata.transpose %d, permutation = [1, 0] : (tensor<2x4xf32>) -> tensor<4x2xf32>
  return %t : tensor<4x2xf32>
}

// -----

// A transpose that permutes only batch dims reorders the batch pairs.
// CHECK-LABEL: func.func @transpose_of_dot_batch_order
// CHECK-SAME: (%[[A:[^:]+]]: tensor<5x6x2x3xf32>, %[[B:[^:]+]]: tensor<6x5x3x4xf32>)
// CHECK-NEXT: %[[D:.+]] = strata.dot_general %[[A]], %[[B]], batch_dims = [1, 0] x [0, 1], contracting_dims = [3] x [2] : (tensor<5x6x2x3xf32>, tensor<6x5x3x4xf32>) -> tensor<6x5x2x4xf32>
// CHECK-NEXT: return %[[D]]
func.func @transpose_of_dot_batch_order(%a: tensor<5x6x2x3xf32>, %b: tensor<6x5x3x4xf32>) -> tensor<6x5x2x4xf32> {
  %d = strata.dot_general %a, %b, batch_dims = [0, 1] x [1, 0], contracting_dims = [3] x [2] : (tensor<5x6x2x3xf32>, tensor<6x5x3x4xf32>) -> tensor<5x6x2x4xf32>
  %t = strata.transpose %d, permutation = [1, 0, 2, 3] : (tensor<5x6x2x4xf32>) -> tensor<6x5x2x4xf32>
  return %t : tensor<6x5x2x4xf32>
}

// -----

// Batch reorder and operand swap together.
// CHECK-LABEL: func.func @transpose_of_dot_batch_and_swap
// CHECK-SAME: (%[[A:[^:]+]]: tensor<5x6x2x3xf32>, %[[B:[^:]+]]: tensor<5x6x3x4xf32>)
// CHECK-NEXT: %[[D:.+]] = strata.dot_general %[[B]], %[[A]], batch_dims = [1, 0] x [1, 0], contracting_dims = [2] x [3] : (tensor<5x6x3x4xf32>, tensor<5x6x2x3xf32>) -> tensor<6x5x4x2xf32>
// CHECK-NEXT: return %[[D]]
func.func @transpose_of_dot_batch_and_swap(%a: tensor<5x6x2x3xf32>, %b: tensor<5x6x3x4xf32>) -> tensor<6x5x4x2xf32> {
  %d = strata.dot_general %a, %b, batch_dims = [0, 1] x [0, 1], contracting_dims = [3] x [2] : (tensor<5x6x2x3xf32>, tensor<5x6x3x4xf32>) -> tensor<5x6x2x4xf32>
  %t = strata.transpose %d, permutation = [1, 0, 3, 2] : (tensor<5x6x2x4xf32>) -> tensor<6x5x4x2xf32>
  return %t : tensor<6x5x4x2xf32>
}

// -----

// Negative: a batch dim moves behind a free dim, and a dot with a second user would be
// computed twice: both transposes stay.
// CHECK-LABEL: func.func @transpose_of_dot_kept
// CHECK: %[[D:.+]] = strata.dot_general
// CHECK-NEXT: strata.transpose %[[D]], permutation = [1, 0, 2]
// CHECK: %[[E:.+]] = strata.dot_general
// CHECK-NEXT: strata.transpose %[[E]], permutation = [1, 0]
func.func @transpose_of_dot_kept(%a: tensor<5x2x3xf32>, %b: tensor<5x3x4xf32>, %x: tensor<2x3xf32>, %w: tensor<3x4xf32>) -> (tensor<2x5x4xf32>, tensor<4x2xf32>, tensor<2x4xf32>) {
  %d = strata.dot_general %a, %b, batch_dims = [0] x [0], contracting_dims = [2] x [1] : (tensor<5x2x3xf32>, tensor<5x3x4xf32>) -> tensor<5x2x4xf32>
  %t = strata.transpose %d, permutation = [1, 0, 2] : (tensor<5x2x4xf32>) -> tensor<2x5x4xf32>
  %e = strata.dot_general %x, %w, batch_dims = [] x [], contracting_dims = [1] x [0] : (tensor<2x3xf32>, tensor<3x4xf32>) -> tensor<2x4xf32>
  %u = strata.transpose %e, permutation = [1, 0] : (tensor<2x4xf32>) -> tensor<4x2xf32>
  return %t, %u, %e : tensor<2x5x4xf32>, tensor<4x2xf32>, tensor<2x4xf32>
}

// -----

// A reduction over one axis whose kept dims stay in order reads the transpose's operand.
// CHECK-LABEL: func.func @reduce_sum_one_axis
// CHECK-SAME: (%[[X:[^:]+]]: tensor<2x3x4xf32>)
// CHECK-NEXT: %[[R:.+]] = strata.reduce_sum %[[X]], axes = [2] : (tensor<2x3x4xf32>) -> tensor<2x3xf32>
// CHECK-NEXT: return %[[R]]
func.func @reduce_sum_one_axis(%x: tensor<2x3x4xf32>) -> tensor<2x3xf32> {
  %t = strata.transpose %x, permutation = [2, 0, 1] : (tensor<2x3x4xf32>) -> tensor<4x2x3xf32>
  %r = strata.reduce_sum %t, axes = [0] : (tensor<4x2x3xf32>) -> tensor<2x3xf32>
  return %r : tensor<2x3xf32>
}

// -----

// reduce_max over every transposed axis: the order of the axes does not matter for max.
// CHECK-LABEL: func.func @reduce_max_all_axes
// CHECK-SAME: (%[[X:[^:]+]]: tensor<2x3xf32>)
// CHECK-NEXT: %[[R:.+]] = strata.reduce_max %[[X]], axes = [0, 1] : (tensor<2x3xf32>) -> tensor<f32>
// CHECK-NEXT: return %[[R]]
func.func @reduce_max_all_axes(%x: tensor<2x3xf32>) -> tensor<f32> {
  %t = strata.transpose %x, permutation = [1, 0] : (tensor<2x3xf32>) -> tensor<3x2xf32>
  %r = strata.reduce_max %t, axes = [0, 1] : (tensor<3x2xf32>) -> tensor<f32>
  return %r : tensor<f32>
}

// -----

// Integer sums wrap, so any order gives the same result: the full reduction folds.
// CHECK-LABEL: func.func @reduce_sum_int_all_axes
// CHECK-SAME: (%[[X:[^:]+]]: tensor<2x3xi32>)
// CHECK-NEXT: %[[R:.+]] = strata.reduce_sum %[[X]], axes = [0, 1] : (tensor<2x3xi32>) -> tensor<i32>
func.func @reduce_sum_int_all_axes(%x: tensor<2x3xi32>) -> tensor<i32> {
  %t = strata.transpose %x, permutation = [1, 0] : (tensor<2x3xi32>) -> tensor<3x2xi32>
  %r = strata.reduce_sum %t, axes = [0, 1] : (tensor<3x2xi32>) -> tensor<i32>
  return %r : tensor<i32>
}

// -----

// Negative: a float sum over transposed axes would add its terms in another order: it stays.
// CHECK-LABEL: func.func @reduce_sum_float_reordered_axes
// CHECK-NEXT: %[[T:.+]] = strata.transpose
// CHECK-NEXT: strata.reduce_sum %[[T]], axes = [0, 1]
func.func @reduce_sum_float_reordered_axes(%x: tensor<2x3xf32>) -> tensor<f32> {
  %t = strata.transpose %x, permutation = [1, 0] : (tensor<2x3xf32>) -> tensor<3x2xf32>
  %r = strata.reduce_sum %t, axes = [0, 1] : (tensor<3x2xf32>) -> tensor<f32>
  return %r : tensor<f32>
}

// -----

// The kept dims come out reordered: the smaller reduced result is transposed instead.
// CHECK-LABEL: func.func @reduce_min_then_smaller_transpose
// CHECK-SAME: (%[[X:[^:]+]]: tensor<2x3x4xf32>)
// CHECK-NEXT: %[[R:.+]] = strata.reduce_min %[[X]], axes = [1] : (tensor<2x3x4xf32>) -> tensor<2x4xf32>
// CHECK-NEXT: %[[T:.+]] = strata.transpose %[[R]], permutation = [1, 0] : (tensor<2x4xf32>) -> tensor<4x2xf32>
// CHECK-NEXT: return %[[T]]
func.func @reduce_min_then_smaller_transpose(%x: tensor<2x3x4xf32>) -> tensor<4x2xf32> {
  %t = strata.transpose %x, permutation = [2, 1, 0] : (tensor<2x3x4xf32>) -> tensor<4x3x2xf32>
  %r = strata.reduce_min %t, axes = [1] : (tensor<4x3x2xf32>) -> tensor<4x2xf32>
  return %r : tensor<4x2xf32>
}

// -----

// argmax along a transposed axis (given negative) reads the operand along the matching axis.
// CHECK-LABEL: func.func @argmax_axis
// CHECK-SAME: (%[[X:[^:]+]]: tensor<3x4xf32>)
// CHECK-NEXT: %[[R:.+]] = strata.argmax %[[X]], axis = 1 : (tensor<3x4xf32>) -> tensor<3xi32>
// CHECK-NEXT: return %[[R]]
func.func @argmax_axis(%x: tensor<3x4xf32>) -> tensor<3xi32> {
  %t = strata.transpose %x, permutation = [1, 0] : (tensor<3x4xf32>) -> tensor<4x3xf32>
  %r = strata.argmax %t, axis = -2 : (tensor<4x3xf32>) -> tensor<3xi32>
  return %r : tensor<3xi32>
}

// -----

// Elementwise ops over transposes with one permutation (and a splat constant) run first and
// are transposed once after.
// CHECK-LABEL: func.func @sink_through_elementwise
// CHECK-SAME: (%[[A:[^:]+]]: tensor<2x3xf32>, %[[B:[^:]+]]: tensor<2x3xf32>)
// CHECK-DAG: %[[K:.+]] = arith.constant dense<2.000000e+00> : tensor<2x3xf32>
// CHECK-DAG: %[[S:.+]] = strata.add %[[A]], %[[B]] : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK: %[[M:.+]] = strata.mul %[[S]], %[[K]] : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK-NEXT: %[[T:.+]] = strata.transpose %[[M]], permutation = [1, 0] : (tensor<2x3xf32>) -> tensor<3x2xf32>
// CHECK-NEXT: return %[[T]]
func.func @sink_through_elementwise(%a: tensor<2x3xf32>, %b: tensor<2x3xf32>) -> tensor<3x2xf32> {
  %ta = strata.transpose %a, permutation = [1, 0] : (tensor<2x3xf32>) -> tensor<3x2xf32>
  %tb = strata.transpose %b, permutation = [1, 0] : (tensor<2x3xf32>) -> tensor<3x2xf32>
  %s = strata.add %ta, %tb : (tensor<3x2xf32>, tensor<3x2xf32>) -> tensor<3x2xf32>
  %k = arith.constant dense<2.0> : tensor<3x2xf32>
  %m = strata.mul %s, %k : (tensor<3x2xf32>, tensor<3x2xf32>) -> tensor<3x2xf32>
  return %m : tensor<3x2xf32>
}

// -----

// Sunk transposes meet the inverse transpose after them and cancel.
// CHECK-LABEL: func.func @sink_and_cancel
// CHECK-SAME: (%[[A:[^:]+]]: tensor<2x3x4xf32>, %[[B:[^:]+]]: tensor<2x3x4xf32>)
// CHECK-NEXT: %[[S:.+]] = strata.sub %[[A]], %[[B]]
// CHECK-NEXT: %[[E:.+]] = strata.exp %[[S]]
// CHECK-NEXT: return %[[E]]
func.func @sink_and_cancel(%a: tensor<2x3x4xf32>, %b: tensor<2x3x4xf32>) -> tensor<2x3x4xf32> {
  %ta = strata.transpose %a, permutation = [2, 0, 1] : (tensor<2x3x4xf32>) -> tensor<4x2x3xf32>
  %tb = strata.transpose %b, permutation = [2, 0, 1] : (tensor<2x3x4xf32>) -> tensor<4x2x3xf32>
  %s = strata.sub %ta, %tb : (tensor<4x2x3xf32>, tensor<4x2x3xf32>) -> tensor<4x2x3xf32>
  %e = strata.exp %s : (tensor<4x2x3xf32>) -> tensor<4x2x3xf32>
  %r = strata.transpose %e, permutation = [1, 2, 0] : (tensor<4x2x3xf32>) -> tensor<2x3x4xf32>
  return %r : tensor<2x3x4xf32>
}

// -----

// A transpose sunk through an elementwise op then folds into the dot that reads it.
// CHECK-LABEL: func.func @sink_into_dot
// CHECK-SAME: (%[[X:[^:]+]]: tensor<2x3xf32>, %[[W:[^:]+]]: tensor<4x3xf32>)
// CHECK-NEXT: %[[N:.+]] = strata.neg %[[W]] : (tensor<4x3xf32>) -> tensor<4x3xf32>
// CHECK-NEXT: %[[D:.+]] = strata.dot_general %[[X]], %[[N]], batch_dims = [] x [], contracting_dims = [1] x [1]
// CHECK-NEXT: return %[[D]]
func.func @sink_into_dot(%x: tensor<2x3xf32>, %w: tensor<4x3xf32>) -> tensor<2x4xf32> {
  %t = strata.transpose %w, permutation = [1, 0] : (tensor<4x3xf32>) -> tensor<3x4xf32>
  %n = strata.neg %t : (tensor<3x4xf32>) -> tensor<3x4xf32>
  %d = strata.dot_general %x, %n, batch_dims = [] x [], contracting_dims = [1] x [0] : (tensor<2x3xf32>, tensor<3x4xf32>) -> tensor<2x4xf32>
  return %d : tensor<2x4xf32>
}

// -----

// Negative: different permutations, a transpose with another user, and a widening convert
// keep their transposes where they are.
// CHECK-LABEL: func.func @no_sink
// CHECK: %[[TA:.+]] = strata.transpose %{{.+}}, permutation = [1, 0, 2]
// CHECK: %[[TB:.+]] = strata.transpose %{{.+}}, permutation = [0, 2, 1]
// CHECK: strata.add %[[TA]], %[[TB]]
// CHECK: %[[TC:.+]] = strata.transpose
// CHECK: strata.exp %[[TC]]
// CHECK: %[[TD:.+]] = strata.transpose
// CHECK: strata.convert_element_type %[[TD]]
func.func @no_sink(%a: tensor<3x2x4xf32>, %b: tensor<2x4x3xf32>, %c: tensor<2x3xf32>, %d: tensor<2x3xf16>) -> (tensor<2x3x4xf32>, tensor<3x2xf32>, tensor<3x2xf32>, tensor<3x2xf32>) {
  %ta = strata.transpose %a, permutation = [1, 0, 2] : (tensor<3x2x4xf32>) -> tensor<2x3x4xf32>
  %tb = strata.transpose %b, permutation = [0, 2, 1] : (tensor<2x4x3xf32>) -> tensor<2x3x4xf32>
  %s = strata.add %ta, %tb : (tensor<2x3x4xf32>, tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
  %tc = strata.transpose %c, permutation = [1, 0] : (tensor<2x3xf32>) -> tensor<3x2xf32>
  %e = strata.exp %tc : (tensor<3x2xf32>) -> tensor<3x2xf32>
  %td = strata.transpose %d, permutation = [1, 0] : (tensor<2x3xf16>) -> tensor<3x2xf16>
  %f = strata.convert_element_type %td : (tensor<3x2xf16>) -> tensor<3x2xf32>
  return %s, %e, %tc, %f : tensor<2x3x4xf32>, tensor<3x2xf32>, tensor<3x2xf32>, tensor<3x2xf32>
}

// -----

// Negative: a constant that is not a splat would have to be transposed itself: nothing sinks.
// CHECK-LABEL: func.func @no_sink_dense_constant
// CHECK: %[[T:.+]] = strata.transpose
// CHECK: strata.mul %[[T]], %{{.+}} : (tensor<3x2xf32>, tensor<3x2xf32>)
func.func @no_sink_dense_constant(%a: tensor<2x3xf32>) -> tensor<3x2xf32> {
  %t = strata.transpose %a, permutation = [1, 0] : (tensor<2x3xf32>) -> tensor<3x2xf32>
  %k = arith.constant dense<[[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]]> : tensor<3x2xf32>
  %m = strata.mul %t, %k : (tensor<3x2xf32>, tensor<3x2xf32>) -> tensor<3x2xf32>
  return %m : tensor<3x2xf32>
}
