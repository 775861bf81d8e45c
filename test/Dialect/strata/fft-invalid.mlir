// strata.fft's verifier is the fft primitive's shape rule: its messages become diagnostics.
// RUN: strata-opt %s -split-input-file -verify-diagnostics

// RFFT of a complex operand.
func.func @rfft_of_complex(%x: tensor<8xcomplex<f32>>) -> tensor<5xcomplex<f32>> {
  // expected-error @+1 {{RFFT input must be float32 or float64}}
  %0 = strata.fft %x, fft_type = "RFFT", fft_lengths = [8]
      : (tensor<8xcomplex<f32>>) -> tensor<5xcomplex<f32>>
  return %0 : tensor<5xcomplex<f32>>
}

// -----

// Trailing dimensions that differ from fft_lengths.
func.func @wrong_lengths(%x: tensor<2x8xcomplex<f32>>) -> tensor<2x8xcomplex<f32>> {
  // expected-error @+1 {{minor dimensions must be equal to fft_lengths (4,)}}
  %0 = strata.fft %x, fft_type = "FFT", fft_lengths = [4]
      : (tensor<2x8xcomplex<f32>>) -> tensor<2x8xcomplex<f32>>
  return %0 : tensor<2x8xcomplex<f32>>
}

// -----

// A result type other than the rule's (RFFT of 8 points has 5 outputs).
func.func @wrong_result(%x: tensor<8xf32>) -> tensor<8xcomplex<f32>> {
  // expected-error @+1 {{}}
  %0 = strata.fft %x, fft_type = "RFFT", fft_lengths = [8]
      : (tensor<8xf32>) -> tensor<8xcomplex<f32>>
  return %0 : tensor<8xcomplex<f32>>
}

// -----

// An unknown transform.
func.func @unknown_type(%x: tensor<8xcomplex<f32>>) -> tensor<8xcomplex<f32>> {
  // expected-error @+1 {{fft_type must be one of FFT, IFFT, RFFT, IRFFT}}
  %0 = strata.fft %x, fft_type = "DCT", fft_lengths = [8]
      : (tensor<8xcomplex<f32>>) -> tensor<8xcomplex<f32>>
  return %0 : tensor<8xcomplex<f32>>
}
