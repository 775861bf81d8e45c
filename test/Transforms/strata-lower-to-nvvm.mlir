// strata-lower-to-nvvm: strata IR to gpu kernels, NVVM and PTX text in a gpu.binary, per chip.
// test/gpu/ptxas_check.sh assembles the PTX of every case below with ptxas for both chips.
// RUN: strata-opt %s -strata-lower-to-nvvm=chip=sm_90 -split-input-file \
// RUN:   | FileCheck %s --check-prefixes=CHECK,SM90
// RUN: strata-opt %s -strata-lower-to-nvvm=chip=sm_120 -split-input-file \
// RUN:   | FileCheck %s --check-prefixes=CHECK,SM120

// An elementwise chain with a broadcast: one kernel over the flattened 64x1024 loop, 256 blocks
// of 256 threads, f32 exp/tanh approximated (no libdevice call left), one load per input.
// CHECK-LABEL: func.func @main
// CHECK-SAME: %[[X:.*]]: memref<64x1024xf32>, %[[B:.*]]: memref<1024xf32>, %[[OUT:.*]]: memref<64x1024xf32>
// CHECK-DAG: %[[C1:.*]] = arith.constant 1 : index
// CHECK-DAG: %[[C256:.*]] = arith.constant 256 : index
// CHECK: gpu.launch_func @[[K:main_kernel]]::@main_kernel blocks in (%[[C256]], %[[C1]], %[[C1]]) threads in (%[[C256]], %[[C1]], %[[C1]]) args(%[[X]] : memref<64x1024xf32>, %[[B]] : memref<1024xf32>, %[[OUT]] : memref<64x1024xf32>)
// CHECK-NOT: gpu.module
// SM90: gpu.binary @[[K]] [#gpu.object<#nvvm.target<O = 3, chip = "sm_90", features = "+ptx88">
// SM120: gpu.binary @[[K]] [#gpu.object<#nvvm.target<O = 3, chip = "sm_120", features = "+ptx88">
// SM90-SAME: .version 8.8\0A.target sm_90\0A
// SM120-SAME: .version 8.8\0A.target sm_120\0A
// CHECK-SAME: .visible .entry main_kernel(
// CHECK-SAME: .maxntid 256, 1, 1
// CHECK-SAME: mov.u32 {{.*}}%ctaid.x;
// CHECK-SAME: mov.u32 {{.*}}%tid.x;
// CHECK-SAME: ld.global.b32
// CHECK-SAME: ld.global.b32
// CHECK-SAME: fma.rn.f32
// CHECK-SAME: st.global.b32
// CHECK-NOT: __nv_
func.func @main(%x: tensor<64x1024xf32>, %b: tensor<1024xf32>) -> tensor<64x1024xf32> {
  %0 = strata.exp %x : (tensor<64x1024xf32>) -> tensor<64x1024xf32>
  %1 = strata.broadcast_in_dim %b, broadcast_dimensions = [1] : (tensor<1024xf32>) -> tensor<64x1024xf32>
  %2 = strata.add %0, %1 : (tensor<64x1024xf32>, tensor<64x1024xf32>) -> tensor<64x1024xf32>
  %3 = strata.tanh %2 : (tensor<64x1024xf32>) -> tensor<64x1024xf32>
  return %3 : tensor<64x1024xf32>
}

// -----

// f16 on a rank-3 tensor: computed in f32 and rounded (cvt), one block of one warp for the 30
// elements.
// CHECK-LABEL: func.func @main
// CHECK-DAG: %[[C1:.*]] = arith.constant 1 : index
// CHECK-DAG: %[[C32:.*]] = arith.constant 32 : index
// CHECK: gpu.launch_func @[[K:main_kernel]]::@main_kernel blocks in (%[[C1]], %[[C1]], %[[C1]]) threads in (%[[C32]], %[[C1]], %[[C1]])
// CHECK: gpu.binary @[[K]]
// CHECK-SAME: .maxntid 32, 1, 1
// CHECK-SAME: ld.global.b16
// CHECK-SAME: cvt.f32.f16
// CHECK-SAME: cvt.rn.f16.f32
// CHECK-SAME: st.global.b16
// CHECK-NOT: __nv_
func.func @main(%x: tensor<2x3x5xf16>, %y: tensor<2x3x5xf16>) -> tensor<2x3x5xf16> {
  %0 = strata.mul %x, %y : (tensor<2x3x5xf16>, tensor<2x3x5xf16>) -> tensor<2x3x5xf16>
  %1 = strata.exp %0 : (tensor<2x3x5xf16>) -> tensor<2x3x5xf16>
  return %1 : tensor<2x3x5xf16>
}

// -----

// Softmax over the last axis: each linalg op is its own kernel for now (fill, row max, exp,
// fill, row sum, divide); the row reductions run one thread per row (8 rows: one warp), the
// elementwise kernels one thread per element (8000: 32 blocks of 256).
// CHECK-LABEL: func.func @main
// CHECK-DAG: %[[C1:.*]] = arith.constant 1 : index
// CHECK-DAG: %[[C32:.*]] = arith.constant 32 : index
// CHECK-DAG: %[[C256:.*]] = arith.constant 256 : index
// CHECK: gpu.launch_func @[[K0:.*]]::@main_kernel blocks in (%[[C1]], %[[C1]], %[[C1]]) threads in (%[[C32]], %[[C1]], %[[C1]])
// CHECK: gpu.launch_func @[[K1:.*]]::@main_kernel blocks in (%[[C1]], %[[C1]], %[[C1]]) threads in (%[[C32]], %[[C1]], %[[C1]])
// CHECK: gpu.launch_func @[[K2:.*]]::@main_kernel blocks in (%[[C32]], %[[C1]], %[[C1]]) threads in (%[[C256]], %[[C1]], %[[C1]])
// CHECK: gpu.launch_func @[[K3:.*]]::@main_kernel blocks in (%[[C1]], %[[C1]], %[[C1]]) threads in (%[[C32]], %[[C1]], %[[C1]])
// CHECK: gpu.launch_func @[[K4:.*]]::@main_kernel blocks in (%[[C1]], %[[C1]], %[[C1]]) threads in (%[[C32]], %[[C1]], %[[C1]])
// CHECK: gpu.launch_func @[[K5:.*]]::@main_kernel blocks in (%[[C32]], %[[C1]], %[[C1]]) threads in (%[[C256]], %[[C1]], %[[C1]])
// CHECK: gpu.binary @[[K0]]
// CHECK: gpu.binary @[[K1]]
// CHECK-SAME: max.NaN.f32
// CHECK: gpu.binary @[[K2]]
// CHECK: gpu.binary @[[K3]]
// CHECK: gpu.binary @[[K4]]
// CHECK-SAME: add.rn.f32
// CHECK: gpu.binary @[[K5]]
// CHECK-SAME: div.rn.f32
// CHECK-NOT: __nv_
func.func @main(%x: tensor<8x1000xf32>) -> tensor<8x1000xf32> {
  %0 = strata.reduce_max %x, axes = [1] : (tensor<8x1000xf32>) -> tensor<8xf32>
  %1 = strata.broadcast_in_dim %0, broadcast_dimensions = [0] : (tensor<8xf32>) -> tensor<8x1000xf32>
  %2 = strata.sub %x, %1 : (tensor<8x1000xf32>, tensor<8x1000xf32>) -> tensor<8x1000xf32>
  %3 = strata.exp %2 : (tensor<8x1000xf32>) -> tensor<8x1000xf32>
  %4 = strata.reduce_sum %3, axes = [1] : (tensor<8x1000xf32>) -> tensor<8xf32>
  %5 = strata.broadcast_in_dim %4, broadcast_dimensions = [0] : (tensor<8xf32>) -> tensor<8x1000xf32>
  %6 = strata.div %3, %5 : (tensor<8x1000xf32>, tensor<8x1000xf32>) -> tensor<8x1000xf32>
  return %6 : tensor<8x1000xf32>
}

// -----

// A full reduction: the 0-d fill and the sequential loop nest each run in a one-thread kernel,
// so no host code touches the device buffers.
// CHECK-LABEL: func.func @main
// CHECK-DAG: %[[C1:.*]] = arith.constant 1 : index
// CHECK-NOT: memref.store
// CHECK: gpu.launch_func @[[K0:.*]]::@main_kernel blocks in (%[[C1]], %[[C1]], %[[C1]]) threads in (%[[C1]], %[[C1]], %[[C1]])
// CHECK: gpu.launch_func @[[K1:.*]]::@main_kernel blocks in (%[[C1]], %[[C1]], %[[C1]]) threads in (%[[C1]], %[[C1]], %[[C1]])
// CHECK-NEXT: return
// CHECK: gpu.binary @[[K0]]
// CHECK: gpu.binary @[[K1]]
// CHECK-SAME: add.rn.f32
func.func @main(%x: tensor<4x1024xf32>) -> tensor<f32> {
  %0 = strata.reduce_sum %x, axes = [0, 1] : (tensor<4x1024xf32>) -> tensor<f32>
  return %0 : tensor<f32>
}

// -----

// dot_general stays a loop nest until cuBLAS: zero-fill and multiply-accumulate kernels, one
// thread per output element (64: two warps); mul and add stay separate roundings (no fma).
// CHECK-LABEL: func.func @main
// CHECK-DAG: %[[C64:.*]] = arith.constant 64 : index
// CHECK: gpu.launch_func @{{.*}}::@main_kernel blocks in ({{.*}}) threads in (%[[C64]],
// CHECK: gpu.launch_func @[[K:.*]]::@main_kernel blocks in ({{.*}}) threads in (%[[C64]],
// CHECK: gpu.binary @[[K]]
// CHECK-SAME: mul.rn.f32
// CHECK-SAME: add.rn.f32
func.func @main(%a: tensor<4x8xf32>, %b: tensor<8x16xf32>) -> tensor<4x16xf32> {
  %0 = strata.dot_general %a, %b, batch_dims = [] x [], contracting_dims = [1] x [0]
      : (tensor<4x8xf32>, tensor<8x16xf32>) -> tensor<4x16xf32>
  return %0 : tensor<4x16xf32>
}
