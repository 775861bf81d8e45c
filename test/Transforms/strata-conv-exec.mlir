// Runs convolutions through the CPU pipeline (strata-conv-to-runtime: libstrata's kernel, from
// libstrata_jit) and through strata-lower-to-linalg's generic (the GPU's path), bufferized and
// lowered with upstream passes, and checks both against values computed with PyTorch's
// conv1d/conv2d (not with these lowerings).
// RUN: strata-opt --strata-lower-to-cpu %s \
// RUN: | mlir-runner -e main -entry-point-result=void \
// RUN:     -shared-libs=%mlir_lib_dir/libmlir_runner_utils.so,%mlir_lib_dir/libmlir_c_runner_utils.so,%mlir_lib_dir/libomp.so,%strata_lib_dir/libstrata_jit.so \
// RUN: | FileCheck %s
// RUN: strata-opt --strata-lower-to-linalg %s \
// RUN: | mlir-opt --one-shot-bufferize="bufferize-function-boundaries" \
// RUN:     --convert-linalg-to-loops --convert-scf-to-cf --expand-strided-metadata \
// RUN:     --lower-affine --finalize-memref-to-llvm --convert-math-to-llvm \
// RUN:     --convert-math-to-libm --convert-arith-to-llvm --convert-func-to-llvm \
// RUN:     --convert-cf-to-llvm --reconcile-unrealized-casts \
// RUN: | mlir-runner -e main -entry-point-result=void \
// RUN:     -shared-libs=%mlir_lib_dir/libmlir_runner_utils.so,%mlir_lib_dir/libmlir_c_runner_utils.so \
// RUN: | FileCheck %s

func.func private @printMemrefF32(tensor<*xf32>)

// NCHW, x = 1..16 (4x4) with [[1, 2], [3, 4]], strides 2, padding (1, 0) and (0, 1).
// CHECK: data =
// CHECK-NEXT: [11, 25, 84, 104]
func.func @strided(%x: tensor<1x1x4x4xf32>, %w: tensor<1x1x2x2xf32>) -> tensor<1x1x2x2xf32> {
  %0 = strata.conv_general_dilated %x, %w, window_strides = [2, 2], padding = [1, 0, 0, 1],
      lhs_dilation = [1, 1], rhs_dilation = [1, 1], lhs_spec = [0, 1, 2, 3],
      rhs_spec = [0, 1, 2, 3], out_spec = [0, 1, 2, 3], feature_group_count = 1,
      batch_group_count = 1 : (tensor<1x1x4x4xf32>, tensor<1x1x2x2xf32>) -> tensor<1x1x2x2xf32>
  return %0 : tensor<1x1x2x2xf32>
}

// 1-D NWC/WIO, lhs dilation 2, padding (1, 1), two feature groups of one channel.
// CHECK: data =
// CHECK-NEXT: [0, 1, -4, 2, 1, -1, 4, 1, 0, 3, -8, 4, 3, -3, 8, 2, 0, 5, -12, 6, 5, -5, 12, 3]
func.func @grouped(%x: tensor<1x3x2xf32>, %w: tensor<2x1x4xf32>) -> tensor<1x6x4xf32> {
  %0 = strata.conv_general_dilated %x, %w, window_strides = [1], padding = [1, 1],
      lhs_dilation = [2], rhs_dilation = [1], lhs_spec = [0, 2, 1], rhs_spec = [2, 1, 0],
      out_spec = [0, 2, 1], feature_group_count = 2, batch_group_count = 1
      : (tensor<1x3x2xf32>, tensor<2x1x4xf32>) -> tensor<1x6x4xf32>
  return %0 : tensor<1x6x4xf32>
}

func.func @main() {
  %x = arith.constant dense<[[[[1., 2., 3., 4.], [5., 6., 7., 8.], [9., 10., 11., 12.],
                               [13., 14., 15., 16.]]]]> : tensor<1x1x4x4xf32>
  %w = arith.constant dense<[[[[1., 2.], [3., 4.]]]]> : tensor<1x1x2x2xf32>
  %s = call @strided(%x, %w) : (tensor<1x1x4x4xf32>, tensor<1x1x2x2xf32>) -> tensor<1x1x2x2xf32>
  %s_flat = tensor.collapse_shape %s [[0, 1, 2, 3]] : tensor<1x1x2x2xf32> into tensor<4xf32>
  %s_u = tensor.cast %s_flat : tensor<4xf32> to tensor<*xf32>
  call @printMemrefF32(%s_u) : (tensor<*xf32>) -> ()
  %gx = arith.constant dense<[[[1., 2.], [3., 4.], [5., 6.]]]> : tensor<1x3x2xf32>
  %gw = arith.constant dense<[[[1., -1., 2., 0.5]], [[0., 1., -2., 1.]]]> : tensor<2x1x4xf32>
  %g = call @grouped(%gx, %gw) : (tensor<1x3x2xf32>, tensor<2x1x4xf32>) -> tensor<1x6x4xf32>
  %g_flat = tensor.collapse_shape %g [[0, 1, 2]] : tensor<1x6x4xf32> into tensor<24xf32>
  %g_u = tensor.cast %g_flat : tensor<24xf32> to tensor<*xf32>
  call @printMemrefF32(%g_u) : (tensor<*xf32>) -> ()
  return
}
