// strata-linalg-to-runtime on the nonsymmetric eigenproblem: eig, schur, hessenberg and
// householder_product become one call each of the CPU runtime's LAPACK kernels, with 0 for the
// addresses of outputs not computed.
// RUN: strata-opt %s -strata-linalg-to-runtime -canonicalize -split-input-file | FileCheck %s

// eig of two 3x3 f64 matrices, right eigenvectors only: dtype code 12, batch 2, n 3, the left
// eigenvectors' address 0; complex outputs.
// CHECK-LABEL: func.func @eig
// CHECK-DAG: %[[C0:.+]] = arith.constant 0 : i64
// CHECK-DAG: %[[C2:.+]] = arith.constant 2 : i64
// CHECK-DAG: %[[C3:.+]] = arith.constant 3 : i64
// CHECK-DAG: %[[F64:.+]] = arith.constant 12 : i64
// CHECK: memref.alloc() : memref<2x3xcomplex<f64>>
// CHECK: memref.alloc() : memref<2x3x3xcomplex<f64>>
// CHECK: call @strata_rt_eig(%[[F64]], %[[C2]], %[[C3]], %{{.+}}, %{{.+}}, %[[C0]], %{{.+}}) : (i64, i64, i64, i64, i64, i64, i64) -> ()
// CHECK: func.func private @strata_rt_eig(i64, i64, i64, i64, i64, i64, i64)
func.func @eig(%x: tensor<2x3x3xf64>) -> (tensor<2x3xcomplex<f64>>, tensor<2x3x3xcomplex<f64>>) {
  %w, %v = strata.eig %x, compute_left_eigenvectors = false, compute_right_eigenvectors = true
      : (tensor<2x3x3xf64>) -> (tensor<2x3xcomplex<f64>>, tensor<2x3x3xcomplex<f64>>)
  return %w, %v : tensor<2x3xcomplex<f64>>, tensor<2x3x3xcomplex<f64>>
}

// -----

// schur without Schur vectors (their address 0), of a complex<f32> matrix (dtype code 13).
// CHECK-LABEL: func.func @schur
// CHECK-DAG: %[[C0:.+]] = arith.constant 0 : i64
// CHECK-DAG: %[[C1:.+]] = arith.constant 1 : i64
// CHECK-DAG: %[[C4:.+]] = arith.constant 4 : i64
// CHECK: call @strata_rt_schur(%{{.+}}, %[[C1]], %[[C4]], %{{.+}}, %{{.+}}, %[[C0]])
func.func @schur(%x: tensor<4x4xcomplex<f32>>) -> tensor<4x4xcomplex<f32>> {
  %t = strata.schur %x, compute_schur_vectors = false
      : (tensor<4x4xcomplex<f32>>) -> tensor<4x4xcomplex<f32>>
  return %t : tensor<4x4xcomplex<f32>>
}

// -----

// hessenberg writes the packed matrix and the taus; householder_product takes m, n and k.
// CHECK-LABEL: func.func @hessenberg
// CHECK: memref.alloc() : memref<4x4xf32>
// CHECK: memref.alloc() : memref<3xf32>
// CHECK: call @strata_rt_hessenberg(
// CHECK: call @strata_rt_householder_product(
func.func @hessenberg(%x: tensor<4x4xf32>, %a: tensor<4x3xf32>, %t: tensor<2xf32>)
    -> (tensor<4x4xf32>, tensor<3xf32>, tensor<4x3xf32>) {
  %h, %taus = strata.hessenberg %x : (tensor<4x4xf32>) -> (tensor<4x4xf32>, tensor<3xf32>)
  %q = strata.householder_product %a, %t : (tensor<4x3xf32>, tensor<2xf32>) -> tensor<4x3xf32>
  return %h, %taus, %q : tensor<4x4xf32>, tensor<3xf32>, tensor<4x3xf32>
}
