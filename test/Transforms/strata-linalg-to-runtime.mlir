// strata-linalg-to-runtime: the linear-algebra ops become one call each of the CPU runtime's
// LAPACK kernels on read-only operand buffers and fresh result buffers, with the dtype code,
// batch and matrix sizes, and flags as i64 constants.
// RUN: strata-opt %s -strata-linalg-to-runtime -canonicalize -split-input-file -verify-diagnostics | FileCheck %s

// cholesky of a batch of two 3x3 f64 matrices: dtype code 12, batch 2, n 3, symmetrized (1).
// CHECK-LABEL: func.func @cholesky
// CHECK-DAG: %[[C1:.+]] = arith.constant 1 : i64
// CHECK-DAG: %[[C2:.+]] = arith.constant 2 : i64
// CHECK-DAG: %[[C3:.+]] = arith.constant 3 : i64
// CHECK-DAG: %[[F64:.+]] = arith.constant 12 : i64
// CHECK: bufferization.to_buffer %{{.+}} read_only : tensor<2x3x3xf64> to memref<2x3x3xf64>
// CHECK: %[[OUT:.+]] = memref.alloc() : memref<2x3x3xf64>
// CHECK: call @strata_rt_cholesky(%[[F64]], %[[C2]], %[[C3]], %{{.+}}, %{{.+}}, %[[C1]]) : (i64, i64, i64, i64, i64, i64) -> ()
// CHECK: %[[R:.+]] = bufferization.to_tensor %[[OUT]] restrict writable
// CHECK: return %[[R]]
// CHECK: func.func private @strata_rt_cholesky(i64, i64, i64, i64, i64, i64)
func.func @cholesky(%x: tensor<2x3x3xf64>) -> tensor<2x3x3xf64> {
  %0 = strata.cholesky %x, symmetrize_input = true : (tensor<2x3x3xf64>) -> tensor<2x3x3xf64>
  return %0 : tensor<2x3x3xf64>
}

// -----

// A right-side, upper, transposed solve with a unit diagonal: flags 4 | 8 = 12; f32 (code 11);
// b is 2x3, so batch 1, m 2, n 3.
// CHECK-LABEL: func.func @triangular_solve
// CHECK-DAG: %[[C1:.+]] = arith.constant 1 : i64
// CHECK-DAG: %[[C2:.+]] = arith.constant 2 : i64
// CHECK-DAG: %[[C3:.+]] = arith.constant 3 : i64
// CHECK-DAG: %[[F32:.+]] = arith.constant 11 : i64
// CHECK-DAG: %[[FLAGS:.+]] = arith.constant 12 : i64
// CHECK: call @strata_rt_triangular_solve(%[[F32]], %[[C1]], %[[C2]], %[[C3]], %{{.+}}, %{{.+}}, %{{.+}}, %[[FLAGS]])
func.func @triangular_solve(%a: tensor<3x3xf32>, %b: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %0 = strata.triangular_solve %a, %b, left_side = false, lower = false, transpose_a = true,
      unit_diagonal = true : (tensor<3x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

// lu writes three buffers: the factors and the i32 pivots and permutation.
// CHECK-LABEL: func.func @lu
// CHECK: %[[LU:.+]] = memref.alloc() : memref<4x3xf64>
// CHECK: %[[PIV:.+]] = memref.alloc() : memref<3xi32>
// CHECK: %[[PERM:.+]] = memref.alloc() : memref<4xi32>
// CHECK: call @strata_rt_lu(
// CHECK-COUNT-3: bufferization.to_tensor
func.func @lu(%x: tensor<4x3xf64>) -> (tensor<4x3xf64>, tensor<3xi32>, tensor<4xi32>) {
  %0, %1, %2 = strata.lu %x : (tensor<4x3xf64>) -> (tensor<4x3xf64>, tensor<3xi32>, tensor<4xi32>)
  return %0, %1, %2 : tensor<4x3xf64>, tensor<3xi32>, tensor<4xi32>
}

// -----

// Singular values alone: the vector addresses are 0, full_matrices 0.
// CHECK-LABEL: func.func @svd_values
// CHECK-DAG: %[[C0:.+]] = arith.constant 0 : i64
// CHECK: %[[S:.+]] = memref.alloc() : memref<2x3xf32>
// CHECK: call @strata_rt_svd(%{{.+}}, %{{.+}}, %{{.+}}, %{{.+}}, %{{.+}}, %{{.+}}, %[[C0]], %[[C0]], %[[C0]])
func.func @svd_values(%x: tensor<2x4x3xf32>) -> tensor<2x3xf32> {
  %0 = strata.svd %x, compute_uv = false, full_matrices = false : (tensor<2x4x3xf32>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

// qr and eigh take their flags last; lu_pivots_to_permutation its sizes first.
// CHECK-LABEL: func.func @qr_eigh_pivots
// CHECK: call @strata_rt_qr(
// CHECK: call @strata_rt_eigh(
// CHECK: call @strata_rt_lu_pivots_to_permutation(
func.func @qr_eigh_pivots(%x: tensor<3x3xf64>, %p: tensor<3xi32>)
    -> (tensor<3x3xf64>, tensor<3x3xf64>, tensor<3xf64>, tensor<5xi32>) {
  %q, %r = strata.qr %x, full_matrices = true : (tensor<3x3xf64>) -> (tensor<3x3xf64>, tensor<3x3xf64>)
  %v, %w = strata.eigh %x, lower = true : (tensor<3x3xf64>) -> (tensor<3x3xf64>, tensor<3xf64>)
  %perm = strata.lu_pivots_to_permutation %p, permutation_size = 5 : (tensor<3xi32>) -> tensor<5xi32>
  return %r, %v, %w, %perm : tensor<3x3xf64>, tensor<3x3xf64>, tensor<3xf64>, tensor<5xi32>
}

// -----

// Dynamic shapes cannot be called: an error, not a silent miscompile.
func.func @dynamic(%x: tensor<?x3x3xf64>) -> tensor<?x3x3xf64> {
  // expected-error @+1 {{need static shapes}}
  %0 = strata.cholesky %x, symmetrize_input = false : (tensor<?x3x3xf64>) -> tensor<?x3x3xf64>
  return %0 : tensor<?x3x3xf64>
}
