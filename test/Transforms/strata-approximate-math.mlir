// strata-approximate-math: f32 transcendental math ops become polynomial approximations; f64
// ones and ops outside the list stay.
// RUN: strata-opt %s -strata-approximate-math -split-input-file | FileCheck %s

// f32 exp and tanh on scalars and vectors are expanded (no math.exp/math.tanh left).
// CHECK-LABEL: func.func @f32_ops
// CHECK-NOT: math.exp
// CHECK-NOT: math.tanh
// CHECK: return
func.func @f32_ops(%x: f32, %v: vector<8xf32>) -> (f32, vector<8xf32>) {
  %0 = math.exp %x : f32
  %1 = math.tanh %v : vector<8xf32>
  return %0, %1 : f32, vector<8xf32>
}

// -----

// f64 stays exact (a libm call later); sqrt is not approximated.
// CHECK-LABEL: func.func @kept
// CHECK: math.exp %{{.*}} : f64
// CHECK: math.sqrt %{{.*}} : f32
func.func @kept(%x: f64, %y: f32) -> (f64, f32) {
  %0 = math.exp %x : f64
  %1 = math.sqrt %y : f32
  return %0, %1 : f64, f32
}
