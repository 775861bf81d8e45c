// RUN: strata-opt --strata-lower-to-cpu-linalg %s | FileCheck %s

// The pipeline runs strata-optimize first (CSE merges the two exps), then lowers.
// CHECK-LABEL: func.func @cse_then_lower
// CHECK: math.exp
// CHECK-NOT: math.exp
// CHECK: arith.addf
// CHECK-NOT: strata.
func.func @cse_then_lower(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = strata.exp %x : (tensor<4xf32>) -> tensor<4xf32>
  %1 = strata.exp %x : (tensor<4xf32>) -> tensor<4xf32>
  %2 = strata.add %0, %1 : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %2 : tensor<4xf32>
}
