// Round trip of the windowed-reduction ops through the text, bytecode and generic forms.
// RUN: strata-opt %s | strata-opt | FileCheck %s
// RUN: strata-opt %s -emit-bytecode | strata-opt | FileCheck %s
// RUN: strata-opt %s --mlir-print-op-generic | strata-opt | FileCheck %s

// Max pooling 2x2/2 and its two derivative ops.
// CHECK-LABEL: func.func @pool
func.func @pool(%x: tensor<4x6xf32>, %g: tensor<2x3xf32>) {
  // CHECK: strata.reduce_window_max %{{.*}}, window_dimensions = [2, 2], window_strides = [2, 2], padding_low = [0, 0], padding_high = [0, 0], base_dilation = [1, 1], window_dilation = [1, 1] : (tensor<4x6xf32>) -> tensor<2x3xf32>
  %0 = strata.reduce_window_max %x, window_dimensions = [2, 2], window_strides = [2, 2], padding_low = [0, 0], padding_high = [0, 0], base_dilation = [1, 1], window_dilation = [1, 1] : (tensor<4x6xf32>) -> tensor<2x3xf32>
  // CHECK: strata.select_and_gather_add %{{.*}}, %{{.*}}, select_prim = "ge", window_dimensions = [2, 2]
  %1 = strata.select_and_gather_add %x, %x, select_prim = "ge", window_dimensions = [2, 2], window_strides = [2, 2], padding_low = [0, 0], padding_high = [0, 0], base_dilation = [1, 1], window_dilation = [1, 1] : (tensor<4x6xf32>, tensor<4x6xf32>) -> tensor<2x3xf32>
  // CHECK: strata.select_and_scatter_add %{{.*}}, %{{.*}}, select_prim = "le", window_dimensions = [2, 2]
  %2 = strata.select_and_scatter_add %g, %x, select_prim = "le", window_dimensions = [2, 2], window_strides = [2, 2], padding_low = [0, 0], padding_high = [0, 0], base_dilation = [1, 1], window_dilation = [1, 1] : (tensor<2x3xf32>, tensor<4x6xf32>) -> tensor<4x6xf32>
  return
}

// Sum and min with padding (negative padding crops) and both dilations, on integers.
// CHECK-LABEL: func.func @dilated
func.func @dilated(%x: tensor<5xi32>) {
  // CHECK: strata.reduce_window_sum %{{.*}}, window_dimensions = [3], window_strides = [1], padding_low = [1], padding_high = [-1], base_dilation = [2], window_dilation = [2] : (tensor<5xi32>) -> tensor<5xi32>
  %0 = strata.reduce_window_sum %x, window_dimensions = [3], window_strides = [1], padding_low = [1], padding_high = [-1], base_dilation = [2], window_dilation = [2] : (tensor<5xi32>) -> tensor<5xi32>
  // CHECK: strata.reduce_window_min
  %1 = strata.reduce_window_min %x, window_dimensions = [2], window_strides = [2], padding_low = [0], padding_high = [1], base_dilation = [1], window_dilation = [1] : (tensor<5xi32>) -> tensor<3xi32>
  return
}

