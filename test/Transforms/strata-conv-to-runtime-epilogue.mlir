// strata-conv-to-runtime folds the bias add and activation that the fusion reading a
// convolution's result starts with into one call of strata_rt_conv_epilogue: its bias argument
// is the fusion's bias operand, its epilogue table (f64) holds the activation and its alpha and
// beta (strata::ConvEpilogue::Act: 1 relu, 2 leaky relu, 3 clamp, 6 silu, 7 tanh-gelu).
// RUN: strata-opt %s -strata-conv-to-runtime -canonicalize -split-input-file | FileCheck %s

// bias + relu: the whole fusion folds, its result is the call's.
// CHECK-LABEL: func.func @bias_relu
// CHECK-SAME: (%{{.+}}: tensor<2x3x5xf32>, %{{.+}}: tensor<4x3x2xf32>, %[[B:.+]]: tensor<4xf32>)
// CHECK-DAG: %[[ACT:.+]] = arith.constant dense<[1.000000e+00, 0.000000e+00, 0.000000e+00]> : tensor<3xf64>
// CHECK-DAG: %[[OUT:.+]] = memref.alloc() : memref<2x4x4xf32>
// CHECK-DAG: bufferization.to_buffer %[[B]] read_only : tensor<4xf32> to memref<4xf32>
// CHECK-DAG: bufferization.to_buffer %[[ACT]] read_only : tensor<3xf64> to memref<3xf64>
// CHECK: call @strata_rt_conv_epilogue(%{{.+}}) : (i64, i64, i64, i64, i64, i64, i64, i64) -> ()
// CHECK-NOT: strata.fusion
// CHECK: %[[R:.+]] = bufferization.to_tensor %[[OUT]] restrict writable
// CHECK-NEXT: return %[[R]]
// CHECK: func.func private @strata_rt_conv_epilogue(i64, i64, i64, i64, i64, i64, i64, i64)
func.func @bias_relu(%x: tensor<2x3x5xf32>, %w: tensor<4x3x2xf32>, %b: tensor<4xf32>) -> tensor<2x4x4xf32> {
  %0 = strata.conv_general_dilated %x, %w, window_strides = [1], padding = [0, 0],
      lhs_dilation = [1], rhs_dilation = [1], lhs_spec = [0, 1, 2], rhs_spec = [0, 1, 2],
      out_spec = [0, 1, 2], feature_group_count = 1, batch_group_count = 1
      : (tensor<2x3x5xf32>, tensor<4x3x2xf32>) -> tensor<2x4x4xf32>
  %1 = strata.fusion (%a = %b, %c = %0) : (tensor<4xf32>, tensor<2x4x4xf32>) -> tensor<2x4x4xf32> {
    %zero = arith.constant dense<0.0> : tensor<2x4x4xf32>
    %bb = strata.broadcast_in_dim %a, broadcast_dimensions = [1] : (tensor<4xf32>) -> tensor<2x4x4xf32>
    %s = strata.add %c, %bb : (tensor<2x4x4xf32>, tensor<2x4x4xf32>) -> tensor<2x4x4xf32>
    %r = strata.max %s, %zero : (tensor<2x4x4xf32>, tensor<2x4x4xf32>) -> tensor<2x4x4xf32>
    strata.yield %r : tensor<2x4x4xf32>
  }
  return %1 : tensor<2x4x4xf32>
}

// -----

// Training: the pre-activation is a result too (relu's gradient reads it), so only the bias
// folds; the fusion keeps the activation and the loss, reading the call's result, and its
// pass-through result is gone.
// CHECK-LABEL: func.func @training
// CHECK: arith.constant dense<0.000000e+00> : tensor<3xf64>
// CHECK: call @strata_rt_conv_epilogue
// CHECK: %[[Z:.+]] = bufferization.to_tensor
// CHECK: %[[F:.+]]:2 = strata.fusion (%{{.+}} = %{{.+}}, %[[ARG:.+]] = %[[Z]]) : (tensor<1x4x1xf32>, tensor<2x4x4xf32>) -> (tensor<2x4x4xf32>, tensor<f32>)
// CHECK-NOT: strata.add
// CHECK: strata.max %[[ARG]]
// CHECK: return %[[Z]], %[[F]]#0, %[[F]]#1
func.func @training(%x: tensor<2x3x5xf32>, %w: tensor<4x3x2xf32>, %b: tensor<4xf32>) -> (tensor<2x4x4xf32>, tensor<2x4x4xf32>, tensor<f32>) {
  %0 = strata.conv_general_dilated %x, %w, window_strides = [1], padding = [0, 0],
      lhs_dilation = [1], rhs_dilation = [1], lhs_spec = [0, 1, 2], rhs_spec = [0, 1, 2],
      out_spec = [0, 1, 2], feature_group_count = 1, batch_group_count = 1
      : (tensor<2x3x5xf32>, tensor<4x3x2xf32>) -> tensor<2x4x4xf32>
  %br = strata.reshape %b : (tensor<4xf32>) -> tensor<1x4x1xf32>
  %1:3 = strata.fusion (%a = %br, %c = %0) : (tensor<1x4x1xf32>, tensor<2x4x4xf32>) -> (tensor<2x4x4xf32>, tensor<2x4x4xf32>, tensor<f32>) {
    %zero = arith.constant dense<0.0> : tensor<2x4x4xf32>
    %bb = strata.broadcast_in_dim %a, broadcast_dimensions = [0, 1, 2] : (tensor<1x4x1xf32>) -> tensor<2x4x4xf32>
    %s = strata.add %c, %bb : (tensor<2x4x4xf32>, tensor<2x4x4xf32>) -> tensor<2x4x4xf32>
    %r = strata.max %s, %zero : (tensor<2x4x4xf32>, tensor<2x4x4xf32>) -> tensor<2x4x4xf32>
    %l = strata.reduce_sum %r, axes = [0, 1, 2] : (tensor<2x4x4xf32>) -> tensor<f32>
    strata.yield %s, %r, %l : tensor<2x4x4xf32>, tensor<2x4x4xf32>, tensor<f32>
  }
  return %1#0, %1#1, %1#2 : tensor<2x4x4xf32>, tensor<2x4x4xf32>, tensor<f32>
}

// -----

// No bias: silu (x * logistic(x)) alone, f64 (dtype code 12), the bias address 0.
// CHECK-LABEL: func.func @silu
// CHECK-DAG: %[[ACT:.+]] = arith.constant dense<[6.000000e+00, 0.000000e+00, 0.000000e+00]> : tensor<3xf64>
// CHECK-DAG: %[[F64:.+]] = arith.constant 12 : i64
// CHECK-DAG: %[[NONE:.+]] = arith.constant 0 : i64
// CHECK: call @strata_rt_conv_epilogue(%[[F64]], %[[F64]], %{{.+}}, %{{.+}}, %{{.+}}, %{{.+}}, %[[NONE]], %{{.+}})
// CHECK-NOT: strata.fusion
func.func @silu(%x: tensor<2x3x5xf64>, %w: tensor<4x3x2xf64>) -> tensor<2x4x4xf64> {
  %0 = strata.conv_general_dilated %x, %w, window_strides = [1], padding = [0, 0],
      lhs_dilation = [1], rhs_dilation = [1], lhs_spec = [0, 1, 2], rhs_spec = [0, 1, 2],
      out_spec = [0, 1, 2], feature_group_count = 1, batch_group_count = 1
      : (tensor<2x3x5xf64>, tensor<4x3x2xf64>) -> tensor<2x4x4xf64>
  %1 = strata.fusion (%c = %0) : (tensor<2x4x4xf64>) -> tensor<2x4x4xf64> {
    %l = strata.logistic %c : (tensor<2x4x4xf64>) -> tensor<2x4x4xf64>
    %m = strata.mul %c, %l : (tensor<2x4x4xf64>, tensor<2x4x4xf64>) -> tensor<2x4x4xf64>
    strata.yield %m : tensor<2x4x4xf64>
  }
  return %1 : tensor<2x4x4xf64>
}

// -----

// relu6 (jax.nn.relu6: max then min) is a clamp to [0, 6]; a leaky relu keeps its slope. The
// ops after the activation stay in the fusion.
// CHECK-LABEL: func.func @relu6_then_scale
// CHECK: arith.constant dense<[3.000000e+00, 0.000000e+00, 6.000000e+00]> : tensor<3xf64>
// CHECK: %[[Y:.+]] = bufferization.to_tensor
// CHECK: strata.fusion (%[[ARG:.+]] = %[[Y]])
// CHECK-NEXT: arith.constant
// CHECK-NEXT: strata.mul %[[ARG]]
func.func @relu6_then_scale(%x: tensor<2x3x5xf32>, %w: tensor<4x3x2xf32>) -> tensor<2x4x4xf32> {
  %0 = strata.conv_general_dilated %x, %w, window_strides = [1], padding = [0, 0],
      lhs_dilation = [1], rhs_dilation = [1], lhs_spec = [0, 1, 2], rhs_spec = [0, 1, 2],
      out_spec = [0, 1, 2], feature_group_count = 1, batch_group_count = 1
      : (tensor<2x3x5xf32>, tensor<4x3x2xf32>) -> tensor<2x4x4xf32>
  %1 = strata.fusion (%c = %0) : (tensor<2x4x4xf32>) -> tensor<2x4x4xf32> {
    %zero = arith.constant dense<0.0> : tensor<2x4x4xf32>
    %six = arith.constant dense<6.0> : tensor<2x4x4xf32>
    %two = arith.constant dense<2.0> : tensor<2x4x4xf32>
    %lo = strata.max %c, %zero : (tensor<2x4x4xf32>, tensor<2x4x4xf32>) -> tensor<2x4x4xf32>
    %hi = strata.min %lo, %six : (tensor<2x4x4xf32>, tensor<2x4x4xf32>) -> tensor<2x4x4xf32>
    %y = strata.mul %hi, %two : (tensor<2x4x4xf32>, tensor<2x4x4xf32>) -> tensor<2x4x4xf32>
    strata.yield %y : tensor<2x4x4xf32>
  }
  return %1 : tensor<2x4x4xf32>
}

// -----

// CHECK-LABEL: func.func @leaky_relu
// CHECK: arith.constant dense<[2.000000e+00, 1.000000e-01, 0.000000e+00]> : tensor<3xf64>
// CHECK: call @strata_rt_conv_epilogue
// CHECK-NOT: strata.fusion
func.func @leaky_relu(%x: tensor<2x3x5xf64>, %w: tensor<4x3x2xf64>) -> tensor<2x4x4xf64> {
  %0 = strata.conv_general_dilated %x, %w, window_strides = [1], padding = [0, 0],
      lhs_dilation = [1], rhs_dilation = [1], lhs_spec = [0, 1, 2], rhs_spec = [0, 1, 2],
      out_spec = [0, 1, 2], feature_group_count = 1, batch_group_count = 1
      : (tensor<2x3x5xf64>, tensor<4x3x2xf64>) -> tensor<2x4x4xf64>
  %1 = strata.fusion (%c = %0) : (tensor<2x4x4xf64>) -> tensor<2x4x4xf64> {
    %zero = arith.constant dense<0.0> : tensor<2x4x4xf64>
    %slope = arith.constant dense<0.1> : tensor<2x4x4xf64>
    %ge = strata.ge %c, %zero : (tensor<2x4x4xf64>, tensor<2x4x4xf64>) -> tensor<2x4x4xi1>
    %m = strata.mul %c, %slope : (tensor<2x4x4xf64>, tensor<2x4x4xf64>) -> tensor<2x4x4xf64>
    %s = strata.select %ge, %c, %m : (tensor<2x4x4xi1>, tensor<2x4x4xf64>, tensor<2x4x4xf64>) -> tensor<2x4x4xf64>
    strata.yield %s : tensor<2x4x4xf64>
  }
  return %1 : tensor<2x4x4xf64>
}

// -----

// Not epilogues: a bias along a spatial dimension, a convolution result read twice, a float16
// result. Each keeps the plain call and its fusion.
// CHECK-LABEL: func.func @not_folded
// CHECK-NOT: strata_rt_conv_epilogue
// CHECK: call @strata_rt_conv(
// CHECK: strata.fusion
// CHECK: call @strata_rt_conv(
// CHECK: strata.fusion
// CHECK: call @strata_rt_conv(
// CHECK: strata.fusion
func.func @not_folded(%x: tensor<2x3x5xf32>, %w: tensor<4x3x2xf32>, %b: tensor<4xf32>,
                      %xh: tensor<2x3x5xf16>, %wh: tensor<4x3x2xf16>)
    -> (tensor<2x4x4xf32>, tensor<2x4x4xf32>, tensor<2x4x4xf32>, tensor<2x4x4xf16>) {
  %0 = strata.conv_general_dilated %x, %w, window_strides = [1], padding = [0, 0],
      lhs_dilation = [1], rhs_dilation = [1], lhs_spec = [0, 1, 2], rhs_spec = [0, 1, 2],
      out_spec = [0, 1, 2], feature_group_count = 1, batch_group_count = 1
      : (tensor<2x3x5xf32>, tensor<4x3x2xf32>) -> tensor<2x4x4xf32>
  %1 = strata.fusion (%a = %b, %c = %0) : (tensor<4xf32>, tensor<2x4x4xf32>) -> tensor<2x4x4xf32> {
    %bb = strata.broadcast_in_dim %a, broadcast_dimensions = [2] : (tensor<4xf32>) -> tensor<2x4x4xf32>
    %s = strata.add %c, %bb : (tensor<2x4x4xf32>, tensor<2x4x4xf32>) -> tensor<2x4x4xf32>
    strata.yield %s : tensor<2x4x4xf32>
  }
  %2 = strata.conv_general_dilated %x, %w, window_strides = [1], padding = [0, 0],
      lhs_dilation = [1], rhs_dilation = [1], lhs_spec = [0, 1, 2], rhs_spec = [0, 1, 2],
      out_spec = [0, 1, 2], feature_group_count = 1, batch_group_count = 1
      : (tensor<2x3x5xf32>, tensor<4x3x2xf32>) -> tensor<2x4x4xf32>
  %3 = strata.fusion (%c = %2) : (tensor<2x4x4xf32>) -> tensor<2x4x4xf32> {
    %t = strata.tanh %c : (tensor<2x4x4xf32>) -> tensor<2x4x4xf32>
    strata.yield %t : tensor<2x4x4xf32>
  }
  %4 = strata.conv_general_dilated %xh, %wh, window_strides = [1], padding = [0, 0],
      lhs_dilation = [1], rhs_dilation = [1], lhs_spec = [0, 1, 2], rhs_spec = [0, 1, 2],
      out_spec = [0, 1, 2], feature_group_count = 1, batch_group_count = 1
      : (tensor<2x3x5xf16>, tensor<4x3x2xf16>) -> tensor<2x4x4xf16>
  %5 = strata.fusion (%c = %4) : (tensor<2x4x4xf16>) -> tensor<2x4x4xf16> {
    %t = strata.tanh %c : (tensor<2x4x4xf16>) -> tensor<2x4x4xf16>
    strata.yield %t : tensor<2x4x4xf16>
  }
  return %1, %2, %3, %5 : tensor<2x4x4xf32>, tensor<2x4x4xf32>, tensor<2x4x4xf32>, tensor<2x4x4xf16>
}
