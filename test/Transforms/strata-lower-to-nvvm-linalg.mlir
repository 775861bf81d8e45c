// strata-lower-to-nvvm and the GPU host pipeline on the linear-algebra ops: each becomes one
// host call of the CUDA runtime's strata_rt_cuda_<op> between the kernels, on device buffers
// (mgpuMemAlloc), with the CPU runtime's arguments (dtype code, sizes, addresses, flags).
// test/gpu/ptxas_check.sh assembles this file's kernels with ptxas too.
// RUN: strata-opt %s -strata-lower-to-nvvm=chip=sm_90 | FileCheck %s
// RUN: strata-opt %s -strata-lower-to-gpu=chip=sm_90 | FileCheck %s --check-prefix=HOST
// RUN: strata-opt %s -strata-linalg-to-runtime=cuda=true -canonicalize | FileCheck %s --check-prefix=CALLS

// cholesky of exp(x) (f32, code 11; batch 2, n 3, symmetrized), then a kernel on its factor.
// CHECK-LABEL: func.func @cholesky
// CHECK-DAG: %[[ONE:.+]] = arith.constant 1 : i64
// CHECK-DAG: %[[C2:.+]] = arith.constant 2 : i64
// CHECK-DAG: %[[C3:.+]] = arith.constant 3 : i64
// CHECK-DAG: %[[F32:.+]] = arith.constant 11 : i64
// CHECK: gpu.launch_func @cholesky_kernel
// CHECK: %[[OUT:.+]] = memref.alloc() : memref<2x3x3xf32>
// CHECK: call @strata_rt_cuda_cholesky(%[[F32]], %[[C2]], %[[C3]], %{{.+}}, %{{.+}}, %[[ONE]])
// CHECK: memref.collapse_shape %[[OUT]]
// CHECK: gpu.launch_func
// HOST-LABEL: llvm.func @cholesky
// HOST: llvm.call @mgpuMemAlloc
// HOST: llvm.call @mgpuStreamSynchronize
// HOST: llvm.call @strata_rt_cuda_cholesky(
// HOST: llvm.call @mgpuMemFree
func.func @cholesky(%x: tensor<2x3x3xf32>) -> tensor<2x3x3xf32> {
  %e = strata.exp %x : (tensor<2x3x3xf32>) -> tensor<2x3x3xf32>
  %l = strata.cholesky %e, symmetrize_input = true : (tensor<2x3x3xf32>) -> tensor<2x3x3xf32>
  %z = strata.add %l, %x : (tensor<2x3x3xf32>, tensor<2x3x3xf32>) -> tensor<2x3x3xf32>
  return %z : tensor<2x3x3xf32>
}

// Every op calls its CUDA function (the CPU runtime's arguments; see strata-linalg-to-runtime.mlir).
// CALLS-LABEL: func.func @all_ops
// CALLS: call @strata_rt_cuda_triangular_solve(
// CALLS: call @strata_rt_cuda_lu(
// CALLS: call @strata_rt_cuda_lu_pivots_to_permutation(
// CALLS: call @strata_rt_cuda_qr(
// CALLS: call @strata_rt_cuda_eigh(
// CALLS: call @strata_rt_cuda_svd(
// CALLS-NOT: call @strata_rt_{{[a-z]+}}(
// HOST-LABEL: llvm.func @all_ops
// HOST: llvm.call @strata_rt_cuda_triangular_solve(
// HOST: llvm.call @strata_rt_cuda_lu(
// HOST: llvm.call @strata_rt_cuda_lu_pivots_to_permutation(
// HOST: llvm.call @strata_rt_cuda_qr(
// HOST: llvm.call @strata_rt_cuda_eigh(
// HOST: llvm.call @strata_rt_cuda_svd(
func.func @all_ops(%a: tensor<3x3xf32>, %b: tensor<2x3xf32>, %x: tensor<4x3xf64>,
                   %s: tensor<3x3xf64>)
    -> (tensor<2x3xf32>, tensor<4x3xf64>, tensor<5xi32>, tensor<3x3xf64>, tensor<3x3xf64>,
        tensor<3xf64>, tensor<4x4xf64>, tensor<3xf64>, tensor<3x3xf64>) {
  %t = strata.triangular_solve %a, %b, left_side = false, lower = false, transpose_a = true,
      unit_diagonal = true : (tensor<3x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  %lu, %piv, %perm = strata.lu %x : (tensor<4x3xf64>) -> (tensor<4x3xf64>, tensor<3xi32>, tensor<4xi32>)
  %p5 = strata.lu_pivots_to_permutation %piv, permutation_size = 5 : (tensor<3xi32>) -> tensor<5xi32>
  %q, %r = strata.qr %s, full_matrices = true : (tensor<3x3xf64>) -> (tensor<3x3xf64>, tensor<3x3xf64>)
  %v, %w = strata.eigh %s, lower = true : (tensor<3x3xf64>) -> (tensor<3x3xf64>, tensor<3xf64>)
  %sv, %u, %vt = strata.svd %x, compute_uv = true, full_matrices = true
      : (tensor<4x3xf64>) -> (tensor<3xf64>, tensor<4x4xf64>, tensor<3x3xf64>)
  return %t, %lu, %p5, %q, %v, %w, %u, %sv, %vt : tensor<2x3xf32>, tensor<4x3xf64>, tensor<5xi32>,
      tensor<3x3xf64>, tensor<3x3xf64>, tensor<3xf64>, tensor<4x4xf64>, tensor<3xf64>,
      tensor<3x3xf64>
}
