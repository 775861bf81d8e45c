// strata-linalg-to-runtime for the CUDA runtime, which has no nonsymmetric eigensolver (JAX's
// eig, schur and hessenberg are CPU only too) and takes real matrices only: an error names the op
// instead of a missing symbol or a runtime failure.
// RUN: strata-opt %s -strata-linalg-to-runtime=cuda=true -split-input-file -verify-diagnostics

func.func @eig(%x: tensor<3x3xf64>) -> tensor<3xcomplex<f64>> {
  // expected-error @+1 {{[jit] eig is compiled for the CPU only}}
  %w = strata.eig %x, compute_left_eigenvectors = false, compute_right_eigenvectors = false
      : (tensor<3x3xf64>) -> tensor<3xcomplex<f64>>
  return %w : tensor<3xcomplex<f64>>
}

// -----

func.func @schur(%x: tensor<3x3xf32>) -> tensor<3x3xf32> {
  // expected-error @+1 {{[jit] schur is compiled for the CPU only}}
  %t = strata.schur %x, compute_schur_vectors = false : (tensor<3x3xf32>) -> tensor<3x3xf32>
  return %t : tensor<3x3xf32>
}

// -----

func.func @householder_product(%a: tensor<4x3xf64>, %t: tensor<2xf64>) -> tensor<4x3xf64> {
  // expected-error @+1 {{[jit] householder_product is compiled for the CPU only}}
  %q = strata.householder_product %a, %t : (tensor<4x3xf64>, tensor<2xf64>) -> tensor<4x3xf64>
  return %q : tensor<4x3xf64>
}

// -----

// cuSOLVER's bodies take real matrices: a complex decomposition is named, not miscalled.
func.func @complex_cholesky(%x: tensor<3x3xcomplex<f32>>) -> tensor<3x3xcomplex<f32>> {
  // expected-error @+1 {{[jit] cholesky on complex matrices is compiled for the CPU only}}
  %l = strata.cholesky %x, symmetrize_input = false : (tensor<3x3xcomplex<f32>>) -> tensor<3x3xcomplex<f32>>
  return %l : tensor<3x3xcomplex<f32>>
}
