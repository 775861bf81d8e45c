// strata-unique-results: a tensor returned at several positions gets a copy at each repeat.
// RUN: strata-opt %s -strata-unique-results -split-input-file | FileCheck %s

// The second and third positions get their own copies; the first keeps the value.
// CHECK-LABEL: func.func @thrice
// CHECK: %[[V:.+]] = strata.exp
// CHECK: %[[E1:.+]] = tensor.empty() : tensor<3xf32>
// CHECK: %[[C1:.+]] = linalg.copy ins(%[[V]] : tensor<3xf32>) outs(%[[E1]] : tensor<3xf32>)
// CHECK: %[[E2:.+]] = tensor.empty() : tensor<3xf32>
// CHECK: %[[C2:.+]] = linalg.copy ins(%[[V]] : tensor<3xf32>) outs(%[[E2]] : tensor<3xf32>)
// CHECK: return %[[V]], %[[C1]], %[[C2]]
func.func @thrice(%x: tensor<3xf32>) -> (tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) {
  %0 = strata.exp %x : (tensor<3xf32>) -> tensor<3xf32>
  return %0, %0, %0 : tensor<3xf32>, tensor<3xf32>, tensor<3xf32>
}

// -----

// Distinct values are left alone.
// CHECK-LABEL: func.func @distinct
// CHECK-NOT: linalg.copy
func.func @distinct(%x: tensor<3xf32>) -> (tensor<3xf32>, tensor<3xf32>) {
  %0 = strata.exp %x : (tensor<3xf32>) -> tensor<3xf32>
  return %0, %x : tensor<3xf32>, tensor<3xf32>
}
