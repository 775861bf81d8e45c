// strata-lower-to-linalg on the windowed reductions: one linalg.generic over (output, window)
// loops reading the padded operand; select_and_scatter_add adds at its picks in an scf.for.
// Then the CPU pipeline to LLVM.
// RUN: strata-opt --split-input-file --strata-lower-to-linalg %s | FileCheck %s
// RUN: strata-opt --split-input-file --strata-lower-to-cpu %s | FileCheck %s --check-prefix=LLVM

// Max pooling 2x2/2 without padding reads the operand itself, the window loops reducing into
// -inf.
// CHECK-DAG: #[[IN:.*]] = affine_map<(d0, d1, d2, d3) -> (d0 * 2 + d2, d1 * 2 + d3)>
// CHECK-DAG: #[[WIN:.*]] = affine_map<(d0, d1, d2, d3) -> (d2, d3)>
// CHECK-DAG: #[[OUT:.*]] = affine_map<(d0, d1, d2, d3) -> (d0, d1)>
// CHECK-LABEL: func.func @max_pool
// CHECK-SAME: (%[[X:.*]]: tensor<4x6xf32>)
// CHECK: %[[NEG:.*]] = arith.constant 0xFF800000 : f32
// CHECK: %[[INIT:.*]] = linalg.fill ins(%[[NEG]] : f32)
// CHECK: linalg.generic {indexing_maps = [#[[IN]], #[[WIN]], #[[OUT]]], iterator_types = ["parallel", "parallel", "reduction", "reduction"]} ins(%[[X]], %{{.*}} : tensor<4x6xf32>, tensor<2x2xf32>) outs(%[[INIT]] : tensor<2x3xf32>)
// CHECK: arith.maximumf
// LLVM-LABEL: llvm.func @max_pool
func.func @max_pool(%x: tensor<4x6xf32>) -> tensor<2x3xf32> {
  %0 = strata.reduce_window_max %x, window_dimensions = [2, 2], window_strides = [2, 2], padding_low = [0, 0], padding_high = [0, 0], base_dilation = [1, 1], window_dilation = [1, 1] : (tensor<4x6xf32>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

// Padding and base dilation: the operand is inserted with the dilation as stride into a tensor
// of zeros; negative padding crops through the read map's offset (here 1).
// CHECK-DAG: #[[CROP:.*]] = affine_map<(d0, d1) -> (d0 + d1 * 2 + 1)>
// CHECK-LABEL: func.func @sum_dilated
// CHECK: %[[Z:.*]] = linalg.fill
// CHECK: %[[P:.*]] = tensor.insert_slice %{{.*}} into %[[Z]][0] [3] [2] : tensor<3xf32> into tensor<7xf32>
// CHECK: linalg.generic {indexing_maps = [#[[CROP]], {{.*}}]{{.*}} ins(%[[P]], %{{.*}} : tensor<7xf32>, tensor<2xf32>)
// CHECK: arith.addf
// LLVM-LABEL: llvm.func @sum_dilated
func.func @sum_dilated(%x: tensor<3xf32>) -> tensor<4xf32> {
  %0 = strata.reduce_window_sum %x, window_dimensions = [2], window_strides = [1], padding_low = [-1], padding_high = [2], base_dilation = [2], window_dilation = [2] : (tensor<3xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// f16 sums accumulate in f32 and round once.
// CHECK-LABEL: func.func @sum_f16
// CHECK: linalg.generic
// CHECK: arith.extf %{{.*}} : f16 to f32
// CHECK: arith.addf %{{.*}} : f32
// CHECK: arith.truncf %{{.*}} : f32 to f16
func.func @sum_f16(%x: tensor<8xf16>) -> tensor<4xf16> {
  %0 = strata.reduce_window_sum %x, window_dimensions = [2], window_strides = [2], padding_low = [0], padding_high = [0], base_dilation = [1], window_dilation = [1] : (tensor<8xf16>) -> tensor<4xf16>
  return %0 : tensor<4xf16>
}

// -----

// select_and_gather_add carries (value, tangent, found) through each window; a later element
// is taken unless the current pick is >= it, and padding (the mask's false) never is.
// CHECK-LABEL: func.func @gather
// CHECK: %[[R:.*]]:3 = linalg.generic
// CHECK-SAME: outs(%{{.*}}, %{{.*}}, %{{.*}} : tensor<3xf32>, tensor<3xf32>, tensor<3xi1>)
// CHECK: arith.cmpf oge
// CHECK: return %[[R]]#1
func.func @gather(%t: tensor<4xf32>, %x: tensor<4xf32>) -> tensor<3xf32> {
  %0 = strata.select_and_gather_add %t, %x, select_prim = "ge", window_dimensions = [2], window_strides = [2], padding_low = [1], padding_high = [1], base_dilation = [1], window_dilation = [1] : (tensor<4xf32>, tensor<4xf32>) -> tensor<3xf32>
  return %0 : tensor<3xf32>
}

// -----

// select_and_scatter_add: the picks' flat offsets (-1: none) from a generic, then an scf.for over
// the windows adding the source at them, and the flat result expanded to the operand's shape.
// CHECK-LABEL: func.func @scatter
// CHECK: %[[PICKS:.*]]:2 = linalg.generic
// CHECK: arith.cmpf ole
// CHECK: %[[FLAT:.*]] = tensor.collapse_shape %[[PICKS]]#1
// CHECK: %[[LOOP:.*]] = scf.for
// CHECK: tensor.extract %[[FLAT]]
// CHECK: scf.if
// CHECK: arith.addf
// CHECK: tensor.insert
// CHECK: tensor.expand_shape %[[LOOP]]
// LLVM-LABEL: llvm.func @scatter
func.func @scatter(%g: tensor<2x3xf32>, %x: tensor<4x6xf32>) -> tensor<4x6xf32> {
  %0 = strata.select_and_scatter_add %g, %x, select_prim = "le", window_dimensions = [2, 2], window_strides = [2, 2], padding_low = [0, 0], padding_high = [0, 0], base_dilation = [1, 1], window_dilation = [1, 1] : (tensor<2x3xf32>, tensor<4x6xf32>) -> tensor<4x6xf32>
  return %0 : tensor<4x6xf32>
}
