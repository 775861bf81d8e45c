// RUN: strata-opt --strata-optimize %s | FileCheck %s

// strata-optimize (canonicalize + cse) merges identical strata ops.
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
