// The nonsymmetric eigenproblem's verifiers are their primitives' shape rules: the messages
// become diagnostics.
// RUN: strata-opt %s -split-input-file -verify-diagnostics

// eig of a non-square matrix.
func.func @eig_not_square(%x: tensor<2x3xf64>) -> tensor<2xcomplex<f64>> {
  // expected-error @+1 {{[eig] expects square matrices, got f64[2,3]}}
  %0 = strata.eig %x, compute_left_eigenvectors = false, compute_right_eigenvectors = false
      : (tensor<2x3xf64>) -> tensor<2xcomplex<f64>>
  return %0 : tensor<2xcomplex<f64>>
}

// -----

// eig's eigenvalues are complex: a real result type does not match the shape rule.
func.func @eig_real_result(%x: tensor<3x3xf32>) -> tensor<3xf32> {
  // expected-error @+1 {{the shape rule of 'eig' gives 'tensor<3xcomplex<f32>>'}}
  %0 = strata.eig %x, compute_left_eigenvectors = false, compute_right_eigenvectors = false
      : (tensor<3x3xf32>) -> tensor<3xf32>
  return %0 : tensor<3xf32>
}

// -----

// householder_product needs at least as many rows as columns.
func.func @householder_wide(%a: tensor<2x3xf64>, %t: tensor<2xf64>) -> tensor<2x3xf64> {
  // expected-error @+1 {{[householder_product] expects a with at least as many rows as columns}}
  %0 = strata.householder_product %a, %t : (tensor<2x3xf64>, tensor<2xf64>) -> tensor<2x3xf64>
  return %0 : tensor<2x3xf64>
}
