// strata-conv-to-runtime: a convolution becomes one call of the CPU runtime's kernel on
// read-only operand buffers, a fresh result buffer and the constant problem table.
// RUN: strata-opt %s -strata-conv-to-runtime -canonicalize -split-input-file | FileCheck %s

// f32 operands and result (dtype code 11); the 1-D problem table: rank, sizes, groups and
// logical strides (13 entries), then 11 per spatial dimension (ConvProblem::encode).
// CHECK-LABEL: func.func @conv
// CHECK-DAG: %[[F32:.+]] = arith.constant 11 : i64
// CHECK-DAG: %[[TABLE:.+]] = arith.constant dense<[1, 2, 3, 4, 2, 1, 1, 15, 5, 6, 2, 16, 4, 5, 2, 4, 1, 0, 0, 1, 1, 1, 1, 1]> : tensor<24xi64>
// CHECK: %[[OUT:.+]] = memref.alloc() : memref<2x4x4xf32>
// CHECK: %[[X:.+]] = bufferization.to_buffer %{{.+}} read_only : tensor<2x3x5xf32> to memref<2x3x5xf32>
// CHECK: %[[W:.+]] = bufferization.to_buffer %{{.+}} read_only : tensor<4x3x2xf32> to memref<4x3x2xf32>
// CHECK: %[[P:.+]] = bufferization.to_buffer %[[TABLE]] read_only
// CHECK: call @strata_rt_conv(%[[F32]], %[[F32]], %{{.+}}, %{{.+}}, %{{.+}}, %{{.+}}) : (i64, i64, i64, i64, i64, i64) -> ()
// CHECK: %[[R:.+]] = bufferization.to_tensor %[[OUT]] restrict writable
// CHECK: return %[[R]]
// CHECK: func.func private @strata_rt_conv(i64, i64, i64, i64, i64, i64)
func.func @conv(%x: tensor<2x3x5xf32>, %w: tensor<4x3x2xf32>) -> tensor<2x4x4xf32> {
  %0 = strata.conv_general_dilated %x, %w, window_strides = [1], padding = [0, 0],
      lhs_dilation = [1], rhs_dilation = [1], lhs_spec = [0, 1, 2], rhs_spec = [0, 1, 2],
      out_spec = [0, 1, 2], feature_group_count = 1, batch_group_count = 1
      : (tensor<2x3x5xf32>, tensor<4x3x2xf32>) -> tensor<2x4x4xf32>
  return %0 : tensor<2x4x4xf32>
}

// -----

// An empty result needs no call.
// CHECK-LABEL: func.func @empty
// CHECK-NOT: call
func.func @empty(%x: tensor<0x3x5xf32>, %w: tensor<4x3x2xf32>) -> tensor<0x4x4xf32> {
  %0 = strata.conv_general_dilated %x, %w, window_strides = [1], padding = [0, 0],
      lhs_dilation = [1], rhs_dilation = [1], lhs_spec = [0, 1, 2], rhs_spec = [0, 1, 2],
      out_spec = [0, 1, 2], feature_group_count = 1, batch_group_count = 1
      : (tensor<0x3x5xf32>, tensor<4x3x2xf32>) -> tensor<0x4x4xf32>
  return %0 : tensor<0x4x4xf32>
}
