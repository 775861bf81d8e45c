// Runs FFTs through strata-lower-to-cpu, the pipeline jit runs, with mlir-runner:
// strata-fft-to-runtime turns them into calls of strata_rt_fft, which libstrata_jit exports.
// The first RUN line checks that the three transforms are runtime calls, so the values are the
// runtime's (numpy.fft gives the same).
// RUN: strata-opt --strata-lower-to-cpu %s | FileCheck %s --check-prefix=IR
// RUN: strata-opt --strata-lower-to-cpu %s \
// RUN: | mlir-runner -e main -entry-point-result=void \
// RUN:     -shared-libs=%mlir_lib_dir/libmlir_runner_utils.so,%mlir_lib_dir/libmlir_c_runner_utils.so,%mlir_lib_dir/libomp.so,%strata_lib_dir/libstrata_jit.so \
// RUN: | FileCheck %s

// IR-COUNT-3: llvm.call @strata_rt_fft(

func.func private @printMemrefF32(tensor<*xf32>)
func.func private @printMemrefF64(tensor<*xf64>)

// The half spectrum [10, -2+2i, -2] of [1, 2, 3, 4], inverted by IRFFT of 4 points.
// CHECK: data =
// CHECK-NEXT: [1, 2, 3, 4]
func.func @irfft() {
  %h = arith.constant dense<[(10.0, 0.0), (-2.0, 2.0), (-2.0, 0.0)]> : tensor<3xcomplex<f32>>
  %x = strata.fft %h, fft_type = "IRFFT", fft_lengths = [4]
      : (tensor<3xcomplex<f32>>) -> tensor<4xf32>
  %u = tensor.cast %x : tensor<4xf32> to tensor<*xf32>
  call @printMemrefF32(%u) : (tensor<*xf32>) -> ()
  return
}

// A 2-D RFFT then IRFFT of a 2x3 batch of 5-point signals in f64 gives the signals back.
// CHECK: data =
// CHECK-NEXT: {{\[}}[1, 2, 3, 4, 5],
// CHECK-NEXT: [3, -1, 2, 1, 0.5],
// CHECK-NEXT: [2, 2, 2, 2, 2]]
func.func @roundtrip() {
  %x = arith.constant dense<[[1.0, 2.0, 3.0, 4.0, 5.0], [3.0, -1.0, 2.0, 1.0, 0.5],
                             [2.0, 2.0, 2.0, 2.0, 2.0]]> : tensor<3x5xf64>
  %s = strata.fft %x, fft_type = "RFFT", fft_lengths = [3, 5]
      : (tensor<3x5xf64>) -> tensor<3x3xcomplex<f64>>
  %y = strata.fft %s, fft_type = "IRFFT", fft_lengths = [3, 5]
      : (tensor<3x3xcomplex<f64>>) -> tensor<3x5xf64>
  %u = tensor.cast %y : tensor<3x5xf64> to tensor<*xf64>
  call @printMemrefF64(%u) : (tensor<*xf64>) -> ()
  return
}

func.func @main() {
  call @irfft() : () -> ()
  call @roundtrip() : () -> ()
  return
}
