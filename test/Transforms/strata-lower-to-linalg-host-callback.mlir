// strata-lower-to-linalg on strata.host_callback: one call of strata_rt_host_callback with a
// table of the operand and result buffers; then the whole CPU pipeline to LLVM.
// RUN: strata-opt --split-input-file --strata-lower-to-linalg %s | FileCheck %s
// RUN: strata-opt --split-input-file --strata-lower-to-cpu %s | FileCheck %s --check-prefix=LLVM

// The table: [n_in, n_out, then per buffer its address, dtype code, rank and dimensions];
// the result is a fresh buffer the runtime fills, read back as a tensor.
// CHECK-LABEL: func.func @callback
// CHECK-SAME: (%[[X:.*]]: tensor<2x3xf32>, %[[N:.*]]: tensor<i32>)
// CHECK: %[[T:.*]] = memref.alloca() : memref<14xindex>
// CHECK: %[[XB:.*]] = bufferization.to_buffer %[[X]] read_only : tensor<2x3xf32> to memref<2x3xf32>
// CHECK: %[[XP:.*]] = memref.extract_aligned_pointer_as_index %[[XB]]
// CHECK: memref.store %[[XP]], %[[T]]
// CHECK: %[[NB:.*]] = bufferization.to_buffer %[[N]] read_only : tensor<i32> to memref<i32>
// CHECK: %[[R:.*]] = memref.alloc() : memref<3xf32>
// CHECK: %[[RP:.*]] = memref.extract_aligned_pointer_as_index %[[R]]
// CHECK: %[[ID:.*]] = arith.constant 5 : i64
// CHECK: %[[D:.*]] = memref.cast %[[T]] : memref<14xindex> to memref<?xindex>
// CHECK: call @strata_rt_host_callback(%[[ID]], %[[D]]) : (i64, memref<?xindex>) -> ()
// CHECK: %[[Y:.*]] = bufferization.to_tensor %[[R]] restrict writable : memref<3xf32> to tensor<3xf32>
// CHECK: return %[[Y]]
// CHECK: func.func private @strata_rt_host_callback(i64, memref<?xindex>)
// LLVM-LABEL: llvm.func @callback
// LLVM: llvm.call @strata_rt_host_callback
// LLVM: llvm.func @strata_rt_host_callback(i64, !llvm.ptr, !llvm.ptr, i64, i64, i64)
func.func @callback(%x: tensor<2x3xf32>, %n: tensor<i32>) -> tensor<3xf32> {
  %y = strata.host_callback(%x, %n) callback_id = 5 : (tensor<2x3xf32>, tensor<i32>) -> tensor<3xf32>
  return %y : tensor<3xf32>
}

// -----

// Calls without results keep their order; each has its own table.
// CHECK-LABEL: func.func @ordered
// CHECK: memref.alloca() : memref<5xindex>
// CHECK: memref.alloca() : memref<5xindex>
// CHECK: %[[A:.*]] = arith.constant 1 : i64
// CHECK: call @strata_rt_host_callback(%[[A]],
// CHECK: %[[B:.*]] = arith.constant 2 : i64
// CHECK: call @strata_rt_host_callback(%[[B]],
// LLVM-LABEL: llvm.func @ordered
// LLVM: llvm.call @strata_rt_host_callback
// LLVM: llvm.call @strata_rt_host_callback
func.func @ordered(%x: tensor<f32>) {
  strata.host_callback(%x) callback_id = 1 : (tensor<f32>) -> ()
  strata.host_callback(%x) callback_id = 2 : (tensor<f32>) -> ()
  return
}

// -----

// A computed operand: its buffer is read through the table, and freed after the call (at the
// end of its block), not after its last SSA use.
// CHECK-LABEL: func.func @intermediate
// CHECK: %[[E:.*]] = linalg.generic
// CHECK: bufferization.to_buffer %[[E]] read_only
// CHECK: call @strata_rt_host_callback
// LLVM-LABEL: llvm.func @intermediate
// LLVM: llvm.call @malloc
// LLVM: llvm.call @strata_rt_host_callback
// LLVM: llvm.call @free
func.func @intermediate(%x: tensor<64xf32>) {
  %e = strata.exp %x : (tensor<64xf32>) -> tensor<64xf32>
  strata.host_callback(%e) callback_id = 1 : (tensor<64xf32>) -> ()
  return
}
