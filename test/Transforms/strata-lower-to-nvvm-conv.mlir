// strata-lower-to-nvvm on convolutions: what cuDNN takes becomes one host call of the CUDA
// runtime's strata_rt_cuda_conv (cuDNN) with the CPU runtime's arguments (dtype codes, device
// addresses of the operands, the result and the constant problem table); what it does not take
// (lhs dilation, asymmetric padding, batch groups, an HWIO filter) stays for the generated
// kernels (linalg convolutions mapped to GPU loops). test/gpu/ptxas_check.sh assembles these
// kernels with ptxas.
// RUN: strata-opt %s -split-input-file -strata-lower-to-nvvm=chip=sm_90 | FileCheck %s
// RUN: strata-opt %s -split-input-file -strata-conv-to-runtime=cuda=true -canonicalize | FileCheck %s --check-prefix=CALLS

// NCHW / OIHW, stride 1, symmetric padding 1, f32 (code 11): cuDNN.
// CHECK-LABEL: func.func @nchw_oihw
// CHECK-DAG: %[[F32:.+]] = arith.constant 11 : i64
// CHECK: call @strata_rt_cuda_conv(%[[F32]], %[[F32]], %{{.+}}, %{{.+}}, %{{.+}}, %{{.+}}) : (i64, i64, i64, i64, i64, i64) -> ()
// CHECK-NOT: gpu.launch_func
// CALLS-LABEL: func.func @nchw_oihw
// CALLS: call @strata_rt_cuda_conv(
// CALLS-NOT: strata.conv_general_dilated
func.func @nchw_oihw(%x: tensor<2x3x8x8xf32>, %w: tensor<4x3x3x3xf32>) -> tensor<2x4x8x8xf32> {
  %0 = strata.conv_general_dilated %x, %w, window_strides = [1, 1], padding = [1, 1, 1, 1],
      lhs_dilation = [1, 1], rhs_dilation = [1, 1], lhs_spec = [0, 1, 2, 3],
      rhs_spec = [0, 1, 2, 3], out_spec = [0, 1, 2, 3], feature_group_count = 1,
      batch_group_count = 1
      : (tensor<2x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<2x4x8x8xf32>
  return %0 : tensor<2x4x8x8xf32>
}

// -----

// lhs dilation (a transposed convolution): cuDNN's forward API has none, so the generated
// kernels compute it.
// CHECK-LABEL: func.func @lhs_dilated
// CHECK-NOT: strata_rt_cuda_conv
// CHECK: gpu.launch_func
// CALLS-LABEL: func.func @lhs_dilated
// CALLS-NOT: call @strata_rt_cuda_conv
// CALLS: strata.conv_general_dilated
func.func @lhs_dilated(%x: tensor<1x2x5xf32>, %w: tensor<3x2x2xf32>) -> tensor<1x3x8xf32> {
  %0 = strata.conv_general_dilated %x, %w, window_strides = [1], padding = [0, 0],
      lhs_dilation = [2], rhs_dilation = [1], lhs_spec = [0, 1, 2], rhs_spec = [0, 1, 2],
      out_spec = [0, 1, 2], feature_group_count = 1, batch_group_count = 1
      : (tensor<1x2x5xf32>, tensor<3x2x2xf32>) -> tensor<1x3x8xf32>
  return %0 : tensor<1x3x8xf32>
}

// -----

// NHWC with an HWIO filter (JAX's default spelling): cuDNN's filter formats are OIHW and OHWI
// only, so this one stays for the generated kernels too.
// CALLS-LABEL: func.func @nhwc_hwio
// CALLS-NOT: call @strata_rt_cuda_conv
// CALLS: strata.conv_general_dilated
func.func @nhwc_hwio(%x: tensor<1x6x6x2xf32>, %w: tensor<3x3x2x4xf32>) -> tensor<1x4x4x4xf32> {
  %0 = strata.conv_general_dilated %x, %w, window_strides = [1, 1], padding = [0, 0, 0, 0],
      lhs_dilation = [1, 1], rhs_dilation = [1, 1], lhs_spec = [0, 3, 1, 2],
      rhs_spec = [3, 2, 0, 1], out_spec = [0, 3, 1, 2], feature_group_count = 1,
      batch_group_count = 1
      : (tensor<1x6x6x2xf32>, tensor<3x3x2x4xf32>) -> tensor<1x4x4x4xf32>
  return %0 : tensor<1x4x4x4xf32>
}

// -----

// Grouped, strided, dilated 1-D convolution in f64 (code 12) with an OHWI-like (O, W, I)
// filter: cuDNN (the 1-D problem gets a unit spatial dimension at run time).
// CALLS-LABEL: func.func @grouped_1d
// CALLS: %[[F64:.+]] = arith.constant 12 : i64
// CALLS: call @strata_rt_cuda_conv(%[[F64]], %[[F64]],
func.func @grouped_1d(%x: tensor<2x4x9xf64>, %w: tensor<6x3x2xf64>) -> tensor<2x6x4xf64> {
  %0 = strata.conv_general_dilated %x, %w, window_strides = [2], padding = [1, 1],
      lhs_dilation = [1], rhs_dilation = [2], lhs_spec = [0, 1, 2], rhs_spec = [0, 2, 1],
      out_spec = [0, 1, 2], feature_group_count = 2, batch_group_count = 1
      : (tensor<2x4x9xf64>, tensor<6x3x2xf64>) -> tensor<2x6x4xf64>
  return %0 : tensor<2x6x4xf64>
}
