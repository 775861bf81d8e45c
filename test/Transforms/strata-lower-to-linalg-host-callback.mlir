// strata-lower-to-linalg on strata.host_callback: calls of the runtime with scalar arguments
// naming each operand and result buffer, then the call itself; then the CPU pipeline to LLVM.
// RUN: strata-opt --split-input-file --strata-lower-to-linalg %s | FileCheck %s
// RUN: strata-opt --split-input-file --strata-lower-to-cpu %s | FileCheck %s --check-prefix=LLVM

// Each buffer: its address, dtype code and rank, then its dimensions; the result is a fresh
// buffer the runtime fills, read back as a tensor.
// CHECK-LABEL: func.func @callback
// CHECK-SAME: (%[[X:.*]]: tensor<2x3xf32>, %[[N:.*]]: tensor<i32>)
// CHECK: %[[XB:.*]] = bufferization.to_buffer %[[X]] read_only : tensor<2x3xf32> to memref<2x3xf32>
// CHECK: %[[XP:.*]] = memref.extract_aligned_pointer_as_index %[[XB]]
// CHECK: %[[XA:.*]] = arith.index_cast %[[XP]] : index to i64
// CHECK: %[[RANK:.*]] = arith.constant 2 : i64
// CHECK: call @strata_rt_host_callback_buffer(%[[XA]], %{{.*}}, %[[RANK]]) : (i64, i64, i64) -> ()
// CHECK: %[[D0:.*]] = arith.constant 2 : i64
// CHECK: call @strata_rt_host_callback_dim(%[[D0]])
// CHECK: %[[D1:.*]] = arith.constant 3 : i64
// CHECK: call @strata_rt_host_callback_dim(%[[D1]])
// CHECK: %[[NB:.*]] = bufferization.to_buffer %[[N]] read_only : tensor<i32> to memref<i32>
// CHECK: call @strata_rt_host_callback_buffer
// CHECK-NOT: call @strata_rt_host_callback_dim
// CHECK: %[[R:.*]] = memref.alloc() : memref<3xf32>
// CHECK: call @strata_rt_host_callback_buffer
// CHECK: call @strata_rt_host_callback_dim
// CHECK: %[[ID:.*]] = arith.constant 5 : i64
// CHECK: call @strata_rt_host_callback(%[[ID]], %{{.*}}, %{{.*}}) : (i64, i64, i64) -> ()
// CHECK: %[[Y:.*]] = bufferization.to_tensor %[[R]] restrict writable : memref<3xf32> to tensor<3xf32>
// CHECK: return %[[Y]]
// CHECK-DAG: func.func private @strata_rt_host_callback(i64, i64, i64)
// CHECK-DAG: func.func private @strata_rt_host_callback_buffer(i64, i64, i64)
// CHECK-DAG: func.func private @strata_rt_host_callback_dim(i64)
// LLVM-LABEL: llvm.func @callback
// LLVM: llvm.call @strata_rt_host_callback(
// LLVM: llvm.func @strata_rt_host_callback(i64, i64, i64)
func.func @callback(%x: tensor<2x3xf32>, %n: tensor<i32>) -> tensor<3xf32> {
  %y = strata.host_callback(%x, %n) callback_id = 5 : (tensor<2x3xf32>, tensor<i32>) -> tensor<3xf32>
  return %y : tensor<3xf32>
}

// -----

// Calls without results stay, in their order.
// CHECK-LABEL: func.func @ordered
// CHECK: %[[A:.*]] = arith.constant 1 : i64
// CHECK: call @strata_rt_host_callback(%[[A]],
// CHECK: %[[B:.*]] = arith.constant 2 : i64
// CHECK: call @strata_rt_host_callback(%[[B]],
// LLVM-LABEL: llvm.func @ordered
// LLVM: llvm.call @strata_rt_host_callback(
// LLVM: llvm.call @strata_rt_host_callback(
func.func @ordered(%x: tensor<f32>) {
  strata.host_callback(%x) callback_id = 1 : (tensor<f32>) -> ()
  strata.host_callback(%x) callback_id = 2 : (tensor<f32>) -> ()
  return
}

// -----

// A computed operand: the runtime reads its buffer by address, and the buffer is freed after
// the call (at the end of its block), not after its last SSA use.
// CHECK-LABEL: func.func @intermediate
// CHECK: %[[E:.*]] = linalg.generic
// CHECK: bufferization.to_buffer %[[E]] read_only
// CHECK: call @strata_rt_host_callback(
// LLVM-LABEL: llvm.func @intermediate
// LLVM: llvm.call @malloc
// LLVM: llvm.call @strata_rt_host_callback(
// LLVM: llvm.call @free
func.func @intermediate(%x: tensor<64xf32>) {
  %e = strata.exp %x : (tensor<64xf32>) -> tensor<64xf32>
  strata.host_callback(%e) callback_id = 1 : (tensor<64xf32>) -> ()
  return
}
