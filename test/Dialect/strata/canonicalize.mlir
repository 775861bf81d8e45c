// Strata's folders and canonicalization patterns: exact rewrites only.
// RUN: strata-opt %s -canonicalize -split-input-file | FileCheck %s

// reshape of reshape is one reshape.
// CHECK-LABEL: func.func @reshape_of_reshape
// CHECK-SAME: (%[[X:[^:]+]]: tensor<2x3xf32>)
// CHECK-NEXT: %[[R:.+]] = strata.reshape %[[X]] : (tensor<2x3xf32>) -> tensor<3x2xf32>
// CHECK-NEXT: return %[[R]]
func.func @reshape_of_reshape(%x: tensor<2x3xf32>) -> tensor<3x2xf32> {
  %0 = strata.reshape %x : (tensor<2x3xf32>) -> tensor<6xf32>
  %1 = strata.reshape %0 : (tensor<6xf32>) -> tensor<3x2xf32>
  return %1 : tensor<3x2xf32>
}

// -----

// reshape of reshape back to the operand's type is the operand.
// CHECK-LABEL: func.func @reshape_round_trip
// CHECK-SAME: (%[[X:[^:]+]]: tensor<2x3xf32>)
// CHECK-NEXT: return %[[X]]
func.func @reshape_round_trip(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %0 = strata.reshape %x : (tensor<2x3xf32>) -> tensor<6xf32>
  %1 = strata.reshape %0 : (tensor<6xf32>) -> tensor<2x3xf32>
  return %1 : tensor<2x3xf32>
}

// -----

// reshape to the operand's own type is the operand.
// CHECK-LABEL: func.func @reshape_same_type
// CHECK-SAME: (%[[X:[^:]+]]: tensor<2x3xf32>)
// CHECK-NEXT: return %[[X]]
func.func @reshape_same_type(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %0 = strata.reshape %x : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

// transpose of transpose composes the permutations.
// CHECK-LABEL: func.func @transpose_of_transpose
// CHECK-SAME: (%[[X:[^:]+]]: tensor<2x3x4xf32>)
// CHECK-NEXT: %[[T:.+]] = strata.transpose %[[X]], permutation = [2, 1, 0] : (tensor<2x3x4xf32>) -> tensor<4x3x2xf32>
// CHECK-NEXT: return %[[T]]
func.func @transpose_of_transpose(%x: tensor<2x3x4xf32>) -> tensor<4x3x2xf32> {
  %0 = strata.transpose %x, permutation = [1, 2, 0] : (tensor<2x3x4xf32>) -> tensor<3x4x2xf32>
  %1 = strata.transpose %0, permutation = [1, 0, 2] : (tensor<3x4x2xf32>) -> tensor<4x3x2xf32>
  return %1 : tensor<4x3x2xf32>
}

// -----

// transpose of its inverse transpose is the operand.
// CHECK-LABEL: func.func @transpose_inverse
// CHECK-SAME: (%[[X:[^:]+]]: tensor<2x3x4xf32>)
// CHECK-NEXT: return %[[X]]
func.func @transpose_inverse(%x: tensor<2x3x4xf32>) -> tensor<2x3x4xf32> {
  %0 = strata.transpose %x, permutation = [1, 2, 0] : (tensor<2x3x4xf32>) -> tensor<3x4x2xf32>
  %1 = strata.transpose %0, permutation = [2, 0, 1] : (tensor<3x4x2xf32>) -> tensor<2x3x4xf32>
  return %1 : tensor<2x3x4xf32>
}

// -----

// The identity transpose is the operand.
// CHECK-LABEL: func.func @transpose_identity
// CHECK-SAME: (%[[X:[^:]+]]: tensor<2x3xf32>)
// CHECK-NEXT: return %[[X]]
func.func @transpose_identity(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %0 = strata.transpose %x, permutation = [0, 1] : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

// A transpose that moves only size-1 dimensions is a reshape.
// CHECK-LABEL: func.func @transpose_unit_dims
// CHECK-SAME: (%[[X:[^:]+]]: tensor<1x3xf32>)
// CHECK-NEXT: %[[R:.+]] = strata.reshape %[[X]] : (tensor<1x3xf32>) -> tensor<3x1xf32>
// CHECK-NEXT: return %[[R]]
func.func @transpose_unit_dims(%x: tensor<1x3xf32>) -> tensor<3x1xf32> {
  %0 = strata.transpose %x, permutation = [1, 0] : (tensor<1x3xf32>) -> tensor<3x1xf32>
  return %0 : tensor<3x1xf32>
}

// -----

// A transpose of two non-unit dimensions stays a transpose.
// CHECK-LABEL: func.func @transpose_kept
// CHECK: strata.transpose
func.func @transpose_kept(%x: tensor<2x3xf32>) -> tensor<3x2xf32> {
  %0 = strata.transpose %x, permutation = [1, 0] : (tensor<2x3xf32>) -> tensor<3x2xf32>
  return %0 : tensor<3x2xf32>
}

// -----

// broadcast_in_dim of broadcast_in_dim composes the dimensions.
// CHECK-LABEL: func.func @broadcast_of_broadcast
// CHECK-SAME: (%[[X:[^:]+]]: tensor<3xf32>)
// CHECK-NEXT: %[[B:.+]] = strata.broadcast_in_dim %[[X]], broadcast_dimensions = [2] : (tensor<3xf32>) -> tensor<4x2x3xf32>
// CHECK-NEXT: return %[[B]]
func.func @broadcast_of_broadcast(%x: tensor<3xf32>) -> tensor<4x2x3xf32> {
  %0 = strata.broadcast_in_dim %x, broadcast_dimensions = [1] : (tensor<3xf32>) -> tensor<2x3xf32>
  %1 = strata.broadcast_in_dim %0, broadcast_dimensions = [1, 2] : (tensor<2x3xf32>) -> tensor<4x2x3xf32>
  return %1 : tensor<4x2x3xf32>
}

// -----

// broadcast_in_dim to the operand's type with identity dimensions is the operand.
// CHECK-LABEL: func.func @broadcast_same_type
// CHECK-SAME: (%[[X:[^:]+]]: tensor<2x3xf32>)
// CHECK-NEXT: return %[[X]]
func.func @broadcast_same_type(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %0 = strata.broadcast_in_dim %x, broadcast_dimensions = [0, 1] : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

// A broadcast that only inserts size-1 dimensions is a reshape.
// CHECK-LABEL: func.func @broadcast_unit_dims
// CHECK-SAME: (%[[X:[^:]+]]: tensor<3xf32>)
// CHECK-NEXT: %[[R:.+]] = strata.reshape %[[X]] : (tensor<3xf32>) -> tensor<1x3xf32>
// CHECK-NEXT: return %[[R]]
func.func @broadcast_unit_dims(%x: tensor<3xf32>) -> tensor<1x3xf32> {
  %0 = strata.broadcast_in_dim %x, broadcast_dimensions = [1] : (tensor<3xf32>) -> tensor<1x3xf32>
  return %0 : tensor<1x3xf32>
}

// -----

// A broadcast that expands a size-1 dimension stays a broadcast.
// CHECK-LABEL: func.func @broadcast_kept
// CHECK: strata.broadcast_in_dim
func.func @broadcast_kept(%x: tensor<1x3xf32>) -> tensor<2x3xf32> {
  %0 = strata.broadcast_in_dim %x, broadcast_dimensions = [0, 1] : (tensor<1x3xf32>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

// A broadcast of a splat constant is a splat constant.
// CHECK-LABEL: func.func @broadcast_splat
// CHECK-NEXT: %[[C:.+]] = arith.constant dense<2.500000e+00> : tensor<2x3xf32>
// CHECK-NEXT: return %[[C]]
func.func @broadcast_splat() -> tensor<2x3xf32> {
  %c = arith.constant dense<2.5> : tensor<3xf32>
  %0 = strata.broadcast_in_dim %c, broadcast_dimensions = [1] : (tensor<3xf32>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

// convert_element_type to the same type is the operand.
// CHECK-LABEL: func.func @convert_same_type
// CHECK-SAME: (%[[X:[^:]+]]: tensor<2xf32>)
// CHECK-NEXT: return %[[X]]
func.func @convert_same_type(%x: tensor<2xf32>) -> tensor<2xf32> {
  %0 = strata.convert_element_type %x : (tensor<2xf32>) -> tensor<2xf32>
  return %0 : tensor<2xf32>
}

// -----

// A float-to-int convert and back is not the identity and is kept.
// CHECK-LABEL: func.func @convert_round_trip_kept
// CHECK: strata.convert_element_type
// CHECK: strata.convert_element_type
func.func @convert_round_trip_kept(%x: tensor<2xf32>) -> tensor<2xf32> {
  %0 = strata.convert_element_type %x : (tensor<2xf32>) -> tensor<2xi32>
  %1 = strata.convert_element_type %0 : (tensor<2xi32>) -> tensor<2xf32>
  return %1 : tensor<2xf32>
}

// -----

// x * 1 is x, with the constant on either side.
// CHECK-LABEL: func.func @mul_one
// CHECK-SAME: (%[[X:[^:]+]]: tensor<2xf32>)
// CHECK-NEXT: return %[[X]], %[[X]]
func.func @mul_one(%x: tensor<2xf32>) -> (tensor<2xf32>, tensor<2xf32>) {
  %one = arith.constant dense<1.0> : tensor<2xf32>
  %0 = strata.mul %x, %one : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  %1 = strata.mul %one, %x : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  return %0, %1 : tensor<2xf32>, tensor<2xf32>
}

// -----

// x * 0 is not 0 for NaN, infinities and -0: it is kept.
// CHECK-LABEL: func.func @mul_zero_kept
// CHECK: strata.mul
func.func @mul_zero_kept(%x: tensor<2xf32>) -> tensor<2xf32> {
  %zero = arith.constant dense<0.0> : tensor<2xf32>
  %0 = strata.mul %x, %zero : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  return %0 : tensor<2xf32>
}

// -----

// x + (-0.0) is x for every float x.
// CHECK-LABEL: func.func @add_neg_zero
// CHECK-SAME: (%[[X:[^:]+]]: tensor<2xf32>)
// CHECK-NEXT: return %[[X]]
func.func @add_neg_zero(%x: tensor<2xf32>) -> tensor<2xf32> {
  %nz = arith.constant dense<-0.0> : tensor<2xf32>
  %0 = strata.add %x, %nz : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  return %0 : tensor<2xf32>
}

// -----

// x + 0.0 is not x for x = -0.0 (it gives +0.0): it is kept.
// CHECK-LABEL: func.func @add_pos_zero_kept
// CHECK-SAME: (%[[X:[^:]+]]: tensor<2xf32>)
// CHECK: %[[S:.+]] = strata.add
// CHECK-NEXT: return %[[S]]
func.func @add_pos_zero_kept(%x: tensor<2xf32>) -> tensor<2xf32> {
  %zero = arith.constant dense<0.0> : tensor<2xf32>
  %0 = strata.add %x, %zero : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  return %0 : tensor<2xf32>
}

// -----

// Integer x + 0 and 0 + x are x.
// CHECK-LABEL: func.func @add_int_zero
// CHECK-SAME: (%[[X:[^:]+]]: tensor<2xi32>)
// CHECK-NEXT: return %[[X]], %[[X]]
func.func @add_int_zero(%x: tensor<2xi32>) -> (tensor<2xi32>, tensor<2xi32>) {
  %zero = arith.constant dense<0> : tensor<2xi32>
  %0 = strata.add %x, %zero : (tensor<2xi32>, tensor<2xi32>) -> tensor<2xi32>
  %1 = strata.add %zero, %x : (tensor<2xi32>, tensor<2xi32>) -> tensor<2xi32>
  return %0, %1 : tensor<2xi32>, tensor<2xi32>
}

// -----

// x - 0.0 is x for every float x.
// CHECK-LABEL: func.func @sub_zero
// CHECK-SAME: (%[[X:[^:]+]]: tensor<2xf32>)
// CHECK-NEXT: return %[[X]]
func.func @sub_zero(%x: tensor<2xf32>) -> tensor<2xf32> {
  %zero = arith.constant dense<0.0> : tensor<2xf32>
  %0 = strata.sub %x, %zero : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  return %0 : tensor<2xf32>
}

// -----

// x - (-0.0) is not x for x = -0.0, and 0 - x is not -x: both are kept.
// CHECK-LABEL: func.func @sub_kept
// CHECK: strata.sub
// CHECK: strata.sub
func.func @sub_kept(%x: tensor<2xf32>) -> (tensor<2xf32>, tensor<2xf32>) {
  %nz = arith.constant dense<-0.0> : tensor<2xf32>
  %zero = arith.constant dense<0.0> : tensor<2xf32>
  %0 = strata.sub %x, %nz : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  %1 = strata.sub %zero, %x : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  return %0, %1 : tensor<2xf32>, tensor<2xf32>
}

// -----

// neg(neg(x)) and not(not(x)) are x.
// CHECK-LABEL: func.func @involutions
// CHECK-SAME: (%[[X:[^:]+]]: tensor<2xf32>, %[[P:[^:]+]]: tensor<2xi1>)
// CHECK-NEXT: return %[[X]], %[[P]]
func.func @involutions(%x: tensor<2xf32>, %p: tensor<2xi1>) -> (tensor<2xf32>, tensor<2xi1>) {
  %0 = strata.neg %x : (tensor<2xf32>) -> tensor<2xf32>
  %1 = strata.neg %0 : (tensor<2xf32>) -> tensor<2xf32>
  %2 = strata.not %p : (tensor<2xi1>) -> tensor<2xi1>
  %3 = strata.not %2 : (tensor<2xi1>) -> tensor<2xi1>
  return %1, %3 : tensor<2xf32>, tensor<2xi1>
}

// -----

// Small f32 constants fold through add, mul, sub and neg.
// CHECK-LABEL: func.func @fold_f32
// CHECK-NEXT: %[[C:.+]] = arith.constant dense<[-7.000000e+00, -1.800000e+01]> : tensor<2xf32>
// CHECK-NEXT: return %[[C]]
func.func @fold_f32() -> tensor<2xf32> {
  %a = arith.constant dense<[1.0, 2.0]> : tensor<2xf32>
  %b = arith.constant dense<[3.0, 4.0]> : tensor<2xf32>
  %c = arith.constant dense<2.0> : tensor<2xf32>
  %0 = strata.add %a, %b : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  %1 = strata.mul %0, %b : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  %2 = strata.sub %1, %c : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  %3 = strata.sub %2, %b : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  %4 = strata.neg %3 : (tensor<2xf32>) -> tensor<2xf32>
  %5 = strata.neg %4 : (tensor<2xf32>) -> tensor<2xf32>
  %6 = strata.neg %5 : (tensor<2xf32>) -> tensor<2xf32>
  return %6 : tensor<2xf32>
}

// -----

// Splat f64 constants fold to a splat.
// CHECK-LABEL: func.func @fold_f64_splat
// CHECK-NEXT: %[[C:.+]] = arith.constant dense<7.500000e-01> : tensor<64x64xf64>
// CHECK-NEXT: return %[[C]]
func.func @fold_f64_splat() -> tensor<64x64xf64> {
  %a = arith.constant dense<0.5> : tensor<64x64xf64>
  %b = arith.constant dense<0.25> : tensor<64x64xf64>
  %0 = strata.add %a, %b : (tensor<64x64xf64>, tensor<64x64xf64>) -> tensor<64x64xf64>
  return %0 : tensor<64x64xf64>
}

// -----

// Integer constants wrap as two's complement.
// CHECK-LABEL: func.func @fold_int_wraps
// CHECK-NEXT: %[[C:.+]] = arith.constant dense<[-2147483648, 0]> : tensor<2xi32>
// CHECK-NEXT: %[[D:.+]] = arith.constant dense<-9223372036854775808> : tensor<2xi64>
// CHECK-NEXT: return %[[C]], %[[D]]
func.func @fold_int_wraps() -> (tensor<2xi32>, tensor<2xi64>) {
  %a = arith.constant dense<[2147483647, -2]> : tensor<2xi32>
  %b = arith.constant dense<[1, 2]> : tensor<2xi32>
  %0 = strata.add %a, %b : (tensor<2xi32>, tensor<2xi32>) -> tensor<2xi32>
  %1 = strata.mul %0, %b : (tensor<2xi32>, tensor<2xi32>) -> tensor<2xi32>
  %m = arith.constant dense<-9223372036854775808> : tensor<2xi64>
  %2 = strata.neg %m : (tensor<2xi64>) -> tensor<2xi64>
  return %1, %2 : tensor<2xi32>, tensor<2xi64>
}

// -----

// Converts fold: float to int truncates toward zero, saturates and maps NaN to 0.
// CHECK-LABEL: func.func @fold_convert
// CHECK-DAG: arith.constant dense<[-2, 2147483647, -2147483648, 0]> : tensor<4xi32>
// CHECK-DAG: arith.constant dense<[1.000000e+00, -2.000000e+00, 3.000000e+00, 4.000000e+00]> : tensor<4xf64>
// CHECK-DAG: arith.constant dense<[1, -2, 3, 4294967296]> : tensor<4xi64>
// CHECK-NOT: strata.convert_element_type
func.func @fold_convert() -> (tensor<4xi32>, tensor<4xf64>, tensor<4xi64>) {
  %f = arith.constant dense<[-2.7, 1.0e10, -1.0e10, 0x7FC00000]> : tensor<4xf32>
  %0 = strata.convert_element_type %f : (tensor<4xf32>) -> tensor<4xi32>
  %i = arith.constant dense<[1, -2, 3, 4]> : tensor<4xi32>
  %1 = strata.convert_element_type %i : (tensor<4xi32>) -> tensor<4xf64>
  %l = arith.constant dense<[1, -2, 3, 4294967296]> : tensor<4xi64>
  %2 = strata.convert_element_type %l : (tensor<4xi64>) -> tensor<4xi64>
  return %0, %1, %2 : tensor<4xi32>, tensor<4xf64>, tensor<4xi64>
}

// -----

// A non-splat constant over 16 elements is not folded.
// CHECK-LABEL: func.func @no_fold_large
// CHECK: strata.neg
func.func @no_fold_large() -> tensor<17xi32> {
  %a = arith.constant dense<[0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16]> : tensor<17xi32>
  %0 = strata.neg %a : (tensor<17xi32>) -> tensor<17xi32>
  return %0 : tensor<17xi32>
}

// -----

// Unsigned element types have no arith.constant form and are not folded.
// CHECK-LABEL: func.func @no_fold_unsigned
// CHECK: strata.add
func.func @no_fold_unsigned(%x: tensor<2xui32>) -> tensor<2xui32> {
  %0 = strata.add %x, %x : (tensor<2xui32>, tensor<2xui32>) -> tensor<2xui32>
  %1 = strata.add %0, %0 : (tensor<2xui32>, tensor<2xui32>) -> tensor<2xui32>
  return %1 : tensor<2xui32>
}

// -----

// Folds never return a value of another type: a dynamic result keeps its op.
// CHECK-LABEL: func.func @dynamic_results_keep_their_type
// CHECK: strata.neg
// CHECK: strata.neg
// CHECK: strata.reshape
func.func @dynamic_results_keep_their_type(%x: tensor<4xf32>) -> (tensor<?xf32>, tensor<?xf32>) {
  %0 = strata.neg %x : (tensor<4xf32>) -> tensor<4xf32>
  %1 = strata.neg %0 : (tensor<4xf32>) -> tensor<?xf32>
  %c = arith.constant dense<[1.0, 2.0, 3.0, 4.0]> : tensor<4xf32>
  %2 = strata.reshape %c : (tensor<4xf32>) -> tensor<?xf32>
  return %1, %2 : tensor<?xf32>, tensor<?xf32>
}

// -----

// A strata op whose result is unused is erased: libMLIR sees the ops' Pure trait (this fails
// when the dialect is built with another compiler than libMLIR's, see docs/decisions.md).
// CHECK-LABEL: func.func @dead_pure_op
// CHECK-NOT: strata.exp
// CHECK: %[[N:.+]] = strata.neg
// CHECK-NEXT: return %[[N]]
func.func @dead_pure_op(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = strata.exp %x : (tensor<4xf32>) -> tensor<4xf32>
  %1 = strata.neg %x : (tensor<4xf32>) -> tensor<4xf32>
  return %1 : tensor<4xf32>
}

// -----

// cond with a constant index: the clamped branch is inlined (index 7 of 3 branches: branch 2).
// CHECK-LABEL: func.func @cond_constant_index
func.func @cond_constant_index(%x: tensor<4xf32>) -> tensor<4xf32> {
  %i = arith.constant dense<7> : tensor<i32>
  // CHECK-NOT: strata.cond
  // CHECK: %[[N:.*]] = strata.neg %arg0
  // CHECK-NEXT: return %[[N]]
  %r = strata.cond %i : (tensor<i32>) -> tensor<4xf32> {
    %a = strata.exp %x : (tensor<4xf32>) -> tensor<4xf32>
    strata.yield %a : tensor<4xf32>
  }, {
    strata.yield %x : tensor<4xf32>
  }, {
    %b = strata.neg %x : (tensor<4xf32>) -> tensor<4xf32>
    strata.yield %b : tensor<4xf32>
  }
  return %r : tensor<4xf32>
}

// -----

// cond: a result nothing reads is no longer yielded by any branch.
// CHECK-LABEL: func.func @cond_unused_result
func.func @cond_unused_result(%i: tensor<i32>, %x: tensor<4xf32>) -> tensor<4xf32> {
  // CHECK: %[[R:.*]] = strata.cond %arg0 : (tensor<i32>) -> tensor<4xf32> {
  // CHECK-NEXT: strata.yield %arg1 : tensor<4xf32>
  // CHECK-NEXT: }, {
  // CHECK-NEXT: %[[E:.*]] = strata.exp %arg1
  // CHECK-NEXT: strata.yield %[[E]] : tensor<4xf32>
  %r:2 = strata.cond %i : (tensor<i32>) -> (tensor<4xf32>, tensor<4xf32>) {
    %a = strata.tanh %x : (tensor<4xf32>) -> tensor<4xf32>
    strata.yield %x, %a : tensor<4xf32>, tensor<4xf32>
  }, {
    %b = strata.exp %x : (tensor<4xf32>) -> tensor<4xf32>
    strata.yield %b, %b : tensor<4xf32>, tensor<4xf32>
  }
  // CHECK: return %[[R]]
  return %r#0 : tensor<4xf32>
}

// -----

// while whose condition is the constant false: its inits.
// CHECK-LABEL: func.func @while_false
func.func @while_false(%x: tensor<4xf32>) -> tensor<4xf32> {
  // CHECK-NOT: strata.while
  // CHECK: return %arg0
  %r = strata.while %x : (tensor<4xf32>) -> tensor<4xf32> cond {
  ^bb0(%a: tensor<4xf32>):
    %f = arith.constant dense<false> : tensor<i1>
    strata.yield %f : tensor<i1>
  } do {
  ^bb0(%a: tensor<4xf32>):
    %e = strata.exp %a : (tensor<4xf32>) -> tensor<4xf32>
    strata.yield %e : tensor<4xf32>
  }
  return %r : tensor<4xf32>
}

// -----

// while: the unused carry %y, read by no region (only passed on), is dropped; the unused carry
// %z stays since the body reads it; the invariant exp(%c) moves in front of the loop.
// CHECK-LABEL: func.func @while_dead_carry_and_invariant
func.func @while_dead_carry_and_invariant(%i: tensor<i32>, %y: tensor<4xf32>, %z: tensor<4xf32>, %c: tensor<4xf32>, %n: tensor<i32>) -> tensor<i32> {
  // CHECK: %[[E:.*]] = strata.exp %arg3
  // CHECK-NEXT: %[[W:.*]]:2 = strata.while %arg0, %arg2 : (tensor<i32>, tensor<4xf32>) -> (tensor<i32>, tensor<4xf32>) cond {
  // CHECK: } do {
  // CHECK-NEXT: ^bb0(%[[I:.*]]: tensor<i32>, %[[Z:.*]]: tensor<4xf32>):
  // CHECK-NEXT: strata.add %[[I]], %[[I]]
  // CHECK-NEXT: strata.add %[[Z]], %[[E]]
  %r:3 = strata.while %i, %y, %z : (tensor<i32>, tensor<4xf32>, tensor<4xf32>) -> (tensor<i32>, tensor<4xf32>, tensor<4xf32>) cond {
  ^bb0(%a: tensor<i32>, %b: tensor<4xf32>, %d: tensor<4xf32>):
    %p = strata.lt %a, %n : (tensor<i32>, tensor<i32>) -> tensor<i1>
    strata.yield %p : tensor<i1>
  } do {
  ^bb0(%a: tensor<i32>, %b: tensor<4xf32>, %d: tensor<4xf32>):
    %a1 = strata.add %a, %a : (tensor<i32>, tensor<i32>) -> tensor<i32>
    %e = strata.exp %c : (tensor<4xf32>) -> tensor<4xf32>
    %d1 = strata.add %d, %e : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    strata.yield %a1, %b, %d1 : tensor<i32>, tensor<4xf32>, tensor<4xf32>
  }
  // CHECK: return %[[W]]#0
  return %r#0 : tensor<i32>
}

// -----

// scan: the unused ys, the xs the body does not read and the unused pass-through carry are
// dropped; the invariant tanh(%c) is hoisted.
// CHECK-LABEL: func.func @scan_dead_values
func.func @scan_dead_values(%h: tensor<4xf32>, %g: tensor<4xf32>, %xs: tensor<3x4xf32>, %ks: tensor<3xi32>, %c: tensor<4xf32>) -> (tensor<4xf32>, tensor<3x4xf32>) {
  // CHECK: %[[T:.*]] = strata.tanh %arg4
  // CHECK-NEXT: %[[S:.*]]:2 = strata.scan init(%arg0) xs(%arg2) length = 3, reverse = false : (tensor<4xf32>, tensor<3x4xf32>) -> (tensor<4xf32>, tensor<3x4xf32>) {
  // CHECK-NEXT: ^bb0(%[[H:.*]]: tensor<4xf32>, %[[X:.*]]: tensor<4xf32>):
  // CHECK-NEXT: %[[A:.*]] = strata.add %[[H]], %[[X]]
  // CHECK-NEXT: %[[B:.*]] = strata.mul %[[A]], %[[T]]
  // CHECK-NEXT: strata.yield %[[B]], %[[A]] : tensor<4xf32>, tensor<4xf32>
  %s:5 = strata.scan init(%h, %g) xs(%xs, %ks) length = 3, reverse = false : (tensor<4xf32>, tensor<4xf32>, tensor<3x4xf32>, tensor<3xi32>) -> (tensor<4xf32>, tensor<4xf32>, tensor<3x4xf32>, tensor<3x4xf32>, tensor<3xi32>) {
  ^bb0(%a: tensor<4xf32>, %b: tensor<4xf32>, %x: tensor<4xf32>, %k: tensor<i32>):
    %s = strata.add %a, %x : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    %t = strata.tanh %c : (tensor<4xf32>) -> tensor<4xf32>
    %m = strata.mul %s, %t : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    %k1 = strata.add %k, %k : (tensor<i32>, tensor<i32>) -> tensor<i32>
    strata.yield %m, %b, %s, %s, %k1 : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<i32>
  }
  // CHECK: return %[[S]]#0, %[[S]]#1
  return %s#0, %s#2 : tensor<4xf32>, tensor<3x4xf32>
}
