// strata.fft: every fft_type parses, prints and verifies by the fft primitive's shape rule.
// RUN: strata-opt %s | strata-opt | FileCheck %s

// CHECK-LABEL: func.func @fft_types
// CHECK: strata.fft %{{.+}}, fft_type = "FFT", fft_lengths = [4, 6] : (tensor<2x4x6xcomplex<f32>>) -> tensor<2x4x6xcomplex<f32>>
// CHECK: strata.fft %{{.+}}, fft_type = "IFFT", fft_lengths = [6] : (tensor<2x4x6xcomplex<f32>>) -> tensor<2x4x6xcomplex<f32>>
// CHECK: strata.fft %{{.+}}, fft_type = "RFFT", fft_lengths = [7] : (tensor<3x7xf64>) -> tensor<3x4xcomplex<f64>>
// CHECK: strata.fft %{{.+}}, fft_type = "IRFFT", fft_lengths = [3, 8] : (tensor<3x5xcomplex<f64>>) -> tensor<3x8xf64>
func.func @fft_types(%z: tensor<2x4x6xcomplex<f32>>, %r: tensor<3x7xf64>, %h: tensor<3x5xcomplex<f64>>)
    -> (tensor<2x4x6xcomplex<f32>>, tensor<2x4x6xcomplex<f32>>, tensor<3x4xcomplex<f64>>, tensor<3x8xf64>) {
  %0 = strata.fft %z, fft_type = "FFT", fft_lengths = [4, 6]
      : (tensor<2x4x6xcomplex<f32>>) -> tensor<2x4x6xcomplex<f32>>
  %1 = strata.fft %z, fft_type = "IFFT", fft_lengths = [6]
      : (tensor<2x4x6xcomplex<f32>>) -> tensor<2x4x6xcomplex<f32>>
  %2 = strata.fft %r, fft_type = "RFFT", fft_lengths = [7]
      : (tensor<3x7xf64>) -> tensor<3x4xcomplex<f64>>
  %3 = strata.fft %h, fft_type = "IRFFT", fft_lengths = [3, 8]
      : (tensor<3x5xcomplex<f64>>) -> tensor<3x8xf64>
  return %0, %1, %2, %3 : tensor<2x4x6xcomplex<f32>>, tensor<2x4x6xcomplex<f32>>, tensor<3x4xcomplex<f64>>, tensor<3x8xf64>
}
