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

// -----

// f32 sin and cos are expanded: a reduction in f64 (Cody-Waite and, in i64, Payne-Hanek)
// and no libm op left.
// CHECK-LABEL: func.func @sin_cos
// CHECK-NOT: math.sin
// CHECK-NOT: math.cos
// CHECK: math.roundeven %{{.*}} : f64
// CHECK: arith.muli %{{.*}} : i64
// CHECK: arith.truncf %{{.*}} : f64 to f32
// CHECK: return
func.func @sin_cos(%x: f32) -> (f32, f32) {
  %0 = math.sin %x : f32
  %1 = math.cos %x : f32
  return %0, %1 : f32, f32
}

// -----

// sin and cos stay: f64, f32 vectors (the table read is scalar), and in a GPU module
// (libdevice's).
// CHECK-LABEL: func.func @sin_cos_kept
// CHECK: math.sin %{{.*}} : f64
// CHECK: math.cos %{{.*}} : vector<4xf32>
// CHECK-LABEL: gpu.func @kernel
// CHECK: math.sin %{{.*}} : f32
func.func @sin_cos_kept(%x: f64, %v: vector<4xf32>) -> (f64, vector<4xf32>) {
  %0 = math.sin %x : f64
  %1 = math.cos %v : vector<4xf32>
  return %0, %1 : f64, vector<4xf32>
}
gpu.module @kernels {
  gpu.func @kernel(%x: f32, %out: memref<f32>) kernel {
    %0 = math.sin %x : f32
    memref.store %0, %out[] : memref<f32>
    gpu.return
  }
}
