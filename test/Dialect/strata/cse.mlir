// Upstream CSE merges identical strata ops (they are Pure) and keeps ones that differ.
// RUN: strata-opt %s -cse -split-input-file | FileCheck %s

// Two identical negations become one.
// CHECK-LABEL: func.func @same_op_twice
// CHECK-SAME: (%[[X:[^:]+]]: tensor<4xf32>)
// CHECK-NEXT: %[[N:.+]] = strata.neg %[[X]]
// CHECK-NEXT: %[[S:.+]] = strata.add %[[N]], %[[N]]
// CHECK-NEXT: return %[[S]]
func.func @same_op_twice(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = strata.neg %x : (tensor<4xf32>) -> tensor<4xf32>
  %1 = strata.neg %x : (tensor<4xf32>) -> tensor<4xf32>
  %2 = strata.add %0, %1 : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %2 : tensor<4xf32>
}

// -----

// Ops with different attributes stay apart.
// CHECK-LABEL: func.func @different_attributes
// CHECK-COUNT-2: strata.integer_pow
func.func @different_attributes(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = strata.integer_pow %x, y = 2 : (tensor<4xf32>) -> tensor<4xf32>
  %1 = strata.integer_pow %x, y = 3 : (tensor<4xf32>) -> tensor<4xf32>
  %2 = strata.add %0, %1 : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %2 : tensor<4xf32>
}
