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
