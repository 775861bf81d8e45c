// RUN: strata-opt --strata-optimize %s | FileCheck %s

// strata-optimize (infer-shapes, canonicalize, cse, layout) merges identical strata ops.
// CHECK-LABEL: func.func @cse
// CHECK: %[[E:.*]] = strata.exp
// CHECK-NOT: strata.exp
// CHECK: strata.add %[[E]], %[[E]]
func.func @cse(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = strata.exp %x : (tensor<4xf32>) -> tensor<4xf32>
  %1 = strata.exp %x : (tensor<4xf32>) -> tensor<4xf32>
  %2 = strata.add %0, %1 : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %2 : tensor<4xf32>
}

// strata-infer-shapes runs first: refined types let cse merge the two exps; the return casts.
// CHECK-LABEL: func.func @infer_first
// CHECK-SAME: (%[[X:[^:]+]]: tensor<4xf32>) -> tensor<?xf32>
// CHECK-NEXT: %[[E:.+]] = strata.exp %[[X]] : (tensor<4xf32>) -> tensor<4xf32>
// CHECK-NEXT: %[[A:.+]] = strata.add %[[E]], %[[E]] : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
// CHECK-NEXT: %[[C:.+]] = tensor.cast %[[A]] : tensor<4xf32> to tensor<?xf32>
// CHECK-NEXT: return %[[C]] : tensor<?xf32>
func.func @infer_first(%x: tensor<4xf32>) -> tensor<?xf32> {
  %0 = strata.exp %x : (tensor<4xf32>) -> tensor<?xf32>
  %1 = strata.exp %x : (tensor<4xf32>) -> tensor<?xf32>
  %2 = strata.add %0, %1 : (tensor<?xf32>, tensor<?xf32>) -> tensor<?xf32>
  return %2 : tensor<?xf32>
}

// strata-layout runs last: x @ w.T (a transposed weight) reads w through the dot's
// contracting dims, and transposes sunk through the elementwise ops cancel.
// CHECK-LABEL: func.func @layout_last
// CHECK-SAME: (%[[X:[^:]+]]: tensor<2x3xf32>, %[[W:[^:]+]]: tensor<4x3xf32>, %[[A:[^:]+]]: tensor<4x2xf32>)
// CHECK-NEXT: %[[D:.+]] = strata.dot_general %[[X]], %[[W]], batch_dims = [] x [], contracting_dims = [1] x [1] : (tensor<2x3xf32>, tensor<4x3xf32>) -> tensor<2x4xf32>
// CHECK-NEXT: %[[E:.+]] = strata.exp %[[A]] : (tensor<4x2xf32>) -> tensor<4x2xf32>
// CHECK-NEXT: return %[[D]], %[[E]]
func.func @layout_last(%x: tensor<2x3xf32>, %w: tensor<4x3xf32>, %a: tensor<4x2xf32>) -> (tensor<2x4xf32>, tensor<4x2xf32>) {
  %t = strata.transpose %w, permutation = [1, 0] : (tensor<4x3xf32>) -> tensor<3x4xf32>
  %d = strata.dot_general %x, %t, batch_dims = [] x [], contracting_dims = [1] x [0] : (tensor<2x3xf32>, tensor<3x4xf32>) -> tensor<2x4xf32>
  %ta = strata.transpose %a, permutation = [1, 0] : (tensor<4x2xf32>) -> tensor<2x4xf32>
  %e = strata.exp %ta : (tensor<2x4xf32>) -> tensor<2x4xf32>
  %r = strata.transpose %e, permutation = [1, 0] : (tensor<2x4xf32>) -> tensor<4x2xf32>
  return %d, %r : tensor<2x4xf32>, tensor<4x2xf32>
}
