// strata-window-to-runtime: a windowed sum becomes one call of the CPU runtime's kernel on a
// read-only operand buffer, a fresh result buffer and the constant window table; max and min
// windows stay for strata-lower-to-linalg.
// RUN: strata-opt %s -strata-window-to-runtime -canonicalize -split-input-file | FileCheck %s

// f32 (dtype code 11); the table: rank, then operand and output sizes, window, strides,
// padding low and high, base and window dilation (strata::WindowProblem::encode).
// CHECK-LABEL: func.func @sum
// CHECK-DAG: %[[F32:.+]] = arith.constant 11 : i64
// CHECK-DAG: %[[TABLE:.+]] = arith.constant dense<[2, 4, 300, 4, 300, 1, 64, 1, 1, 0, 31, 0, 32, 1, 1, 1, 1]> : tensor<17xi64>
// CHECK: %[[OUT:.+]] = memref.alloc() : memref<4x300xf32>
// CHECK: bufferization.to_buffer %{{.+}} read_only : tensor<4x300xf32> to memref<4x300xf32>
// CHECK: bufferization.to_buffer %[[TABLE]] read_only
// CHECK: call @strata_rt_window_sum(%[[F32]], %{{.+}}, %{{.+}}, %{{.+}}) : (i64, i64, i64, i64) -> ()
// CHECK: %[[R:.+]] = bufferization.to_tensor %[[OUT]] restrict writable
// CHECK: return %[[R]]
// CHECK: func.func private @strata_rt_window_sum(i64, i64, i64, i64)
func.func @sum(%x: tensor<4x300xf32>) -> tensor<4x300xf32> {
  %0 = strata.reduce_window_sum %x, window_dimensions = [1, 64], window_strides = [1, 1],
      padding_low = [0, 31], padding_high = [0, 32], base_dilation = [1, 1],
      window_dilation = [1, 1] : (tensor<4x300xf32>) -> tensor<4x300xf32>
  return %0 : tensor<4x300xf32>
}

// -----

// Integers (i32: code 3) go to the same kernel (it wraps); an empty result needs no call; a
// max window is left alone.
// CHECK-LABEL: func.func @others
// CHECK-DAG: %[[I32:.+]] = arith.constant 3 : i64
// CHECK: call @strata_rt_window_sum(%[[I32]],
// CHECK-NOT: call
// CHECK: strata.reduce_window_max
func.func @others(%x: tensor<6x4xi32>, %e: tensor<0x4xf32>, %m: tensor<6x4xf32>)
    -> (tensor<3x2xi32>, tensor<0x3xf32>, tensor<3x2xf32>) {
  %0 = strata.reduce_window_sum %x, window_dimensions = [2, 2], window_strides = [2, 2],
      padding_low = [0, 0], padding_high = [0, 0], base_dilation = [1, 1],
      window_dilation = [1, 1] : (tensor<6x4xi32>) -> tensor<3x2xi32>
  %1 = strata.reduce_window_sum %e, window_dimensions = [1, 2], window_strides = [1, 1],
      padding_low = [0, 0], padding_high = [0, 0], base_dilation = [1, 1],
      window_dilation = [1, 1] : (tensor<0x4xf32>) -> tensor<0x3xf32>
  %2 = strata.reduce_window_max %m, window_dimensions = [2, 2], window_strides = [2, 2],
      padding_low = [0, 0], padding_high = [0, 0], base_dilation = [1, 1],
      window_dilation = [1, 1] : (tensor<6x4xf32>) -> tensor<3x2xf32>
  return %0, %1, %2 : tensor<3x2xi32>, tensor<0x3xf32>, tensor<3x2xf32>
}
