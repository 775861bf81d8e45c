// Runs contractions through strata-lower-to-cpu, the pipeline jit runs, with mlir-runner:
// strata-linalg-to-blas turns them into calls of strata_rt_gemm, which libstrata_jit exports.
// The expected values were worked out by hand. The first RUN line checks that both
// contractions are BLAS calls, so the values are the runtime's.
// RUN: strata-opt --strata-lower-to-cpu %s | FileCheck %s --check-prefix=IR
// RUN: strata-opt --strata-lower-to-cpu %s \
// RUN: | mlir-runner -e main -entry-point-result=void \
// RUN:     -shared-libs=%mlir_lib_dir/libmlir_runner_utils.so,%mlir_lib_dir/libmlir_c_runner_utils.so,%mlir_lib_dir/libomp.so,%strata_lib_dir/libstrata_jit.so \
// RUN: | FileCheck %s

// IR-COUNT-2: llvm.call @strata_rt_gemm(

func.func private @printMemrefF32(tensor<*xf32>)
func.func private @printMemrefF64(tensor<*xf64>)

// A matmul: [[1, 2, 3], [4, 5, 6]] x [[1, 0], [0, 1], [1, 1]].
// CHECK: data =
// CHECK-NEXT: [4, 5],
// CHECK-NEXT: [10, 11]
func.func @matmul() {
  %a = arith.constant dense<[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]> : tensor<2x3xf32>
  %b = arith.constant dense<[[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]]> : tensor<3x2xf32>
  %c = strata.dot_general %a, %b, batch_dims = [] x [], contracting_dims = [1] x [0] : (tensor<2x3xf32>, tensor<3x2xf32>) -> tensor<2x2xf32>
  %u = tensor.cast %c : tensor<2x2xf32> to tensor<*xf32>
  call @printMemrefF32(%u) : (tensor<*xf32>) -> ()
  return
}

// Batched, with the contraction over the first axis of both (a^T b per batch) in f64:
// batch 0: [[1, 2], [3, 4]]^T [[1], [1]] = [[4], [6]]; batch 1: [[0, 1], [2, 0]]^T [[2], [3]] =
// [[6], [2]].
// CHECK: data =
// CHECK-NEXT: {{\[}}{{\[}}4],
// CHECK-NEXT: [6]],
// CHECK-NEXT: {{\[}}[6],
// CHECK-NEXT: [2]]]
func.func @batched_transposed() {
  %a = arith.constant dense<[[[1.0, 2.0], [3.0, 4.0]], [[0.0, 1.0], [2.0, 0.0]]]> : tensor<2x2x2xf64>
  %b = arith.constant dense<[[[1.0], [1.0]], [[2.0], [3.0]]]> : tensor<2x2x1xf64>
  %c = strata.dot_general %a, %b, batch_dims = [0] x [0], contracting_dims = [1] x [1] : (tensor<2x2x2xf64>, tensor<2x2x1xf64>) -> tensor<2x2x1xf64>
  %u = tensor.cast %c : tensor<2x2x1xf64> to tensor<*xf64>
  call @printMemrefF64(%u) : (tensor<*xf64>) -> ()
  return
}

func.func @main() {
  call @matmul() : () -> ()
  call @batched_transposed() : () -> ()
  return
}
