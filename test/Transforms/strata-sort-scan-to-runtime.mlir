// strata-sort-scan-to-runtime: sorts and cumulative scans become calls of the CPU runtime's
// line kernels on read-only operand buffers and fresh result buffers; one-element lines and
// empty tensors stay for strata-lower-to-linalg.
// RUN: strata-opt %s -strata-sort-scan-to-runtime -canonicalize -split-input-file | FileCheck %s

// A two-operand sort along dimension 0 of 2x6: one operand call each (dtype codes 11 f32 and
// 3 i32), then the sort with num_keys 1, outer 1, n 2, inner 6.
// CHECK-LABEL: func.func @sort
// CHECK-DAG: %[[C1:.+]] = arith.constant 1 : i64
// CHECK-DAG: %[[C2:.+]] = arith.constant 2 : i64
// CHECK-DAG: %[[C6:.+]] = arith.constant 6 : i64
// CHECK-DAG: %[[F32:.+]] = arith.constant 11 : i64
// CHECK-DAG: %[[I32:.+]] = arith.constant 3 : i64
// CHECK: %[[K:.+]] = bufferization.to_buffer %{{.+}} read_only : tensor<2x6xf32> to memref<2x6xf32>
// CHECK: %[[KO:.+]] = memref.alloc() : memref<2x6xf32>
// CHECK: call @strata_rt_sort_operand(%[[F32]], %{{.+}}, %{{.+}}) : (i64, i64, i64) -> ()
// CHECK: %[[V:.+]] = bufferization.to_buffer %{{.+}} read_only : tensor<2x6xi32> to memref<2x6xi32>
// CHECK: %[[VO:.+]] = memref.alloc() : memref<2x6xi32>
// CHECK: call @strata_rt_sort_operand(%[[I32]], %{{.+}}, %{{.+}}) : (i64, i64, i64) -> ()
// CHECK: call @strata_rt_sort(%[[C1]], %[[C1]], %[[C2]], %[[C6]]) : (i64, i64, i64, i64) -> ()
// CHECK: %[[R0:.+]] = bufferization.to_tensor %[[KO]] restrict writable
// CHECK: %[[R1:.+]] = bufferization.to_tensor %[[VO]] restrict writable
// CHECK: return %[[R0]], %[[R1]]
// CHECK: func.func private @strata_rt_sort_operand(i64, i64, i64)
// CHECK: func.func private @strata_rt_sort(i64, i64, i64, i64)
func.func @sort(%k: tensor<2x6xf32>, %v: tensor<2x6xi32>) -> (tensor<2x6xf32>, tensor<2x6xi32>) {
  %0, %1 = strata.sort(%k, %v), dimension = 0, num_keys = 1
      : (tensor<2x6xf32>, tensor<2x6xi32>) -> (tensor<2x6xf32>, tensor<2x6xi32>)
  return %0, %1 : tensor<2x6xf32>, tensor<2x6xi32>
}

// -----

// Lines of one element and empty tensors are left alone.
// CHECK-LABEL: func.func @trivial
// CHECK: strata.sort
// CHECK: strata.cumsum
// CHECK-NOT: call
func.func @trivial(%a: tensor<3x1xf32>, %b: tensor<0x4xf32>) -> (tensor<3x1xf32>, tensor<0x4xf32>) {
  %0 = strata.sort(%a), dimension = 1, num_keys = 1 : (tensor<3x1xf32>) -> tensor<3x1xf32>
  %1 = strata.cumsum %b, axis = 1, reverse = false : (tensor<0x4xf32>) -> tensor<0x4xf32>
  return %0, %1 : tensor<3x1xf32>, tensor<0x4xf32>
}

// -----

// A reverse cumsum along axis 1 of 4x8x3 (kind 0, f32): outer 4, n 8, inner 3, reverse 1; a
// cummax of i8 (kind 2, dtype 1) along axis 0.
// CHECK-LABEL: func.func @scans
// CHECK-DAG: %[[C0:.+]] = arith.constant 0 : i64
// CHECK-DAG: %[[C1:.+]] = arith.constant 1 : i64
// CHECK-DAG: %[[C2:.+]] = arith.constant 2 : i64
// CHECK-DAG: %[[C3:.+]] = arith.constant 3 : i64
// CHECK-DAG: %[[C4:.+]] = arith.constant 4 : i64
// CHECK-DAG: %[[C8:.+]] = arith.constant 8 : i64
// CHECK-DAG: %[[C5:.+]] = arith.constant 5 : i64
// CHECK-DAG: %[[F32:.+]] = arith.constant 11 : i64
// CHECK: %[[X:.+]] = bufferization.to_buffer %{{.+}} read_only : tensor<4x8x3xf32> to memref<4x8x3xf32>
// CHECK: %[[Y:.+]] = memref.alloc() : memref<4x8x3xf32>
// CHECK: call @strata_rt_scan(%[[C0]], %[[F32]], %{{.+}}, %{{.+}}, %[[C4]], %[[C8]], %[[C3]], %[[C1]])
// CHECK: %[[R:.+]] = bufferization.to_tensor %[[Y]] restrict writable
// CHECK: call @strata_rt_scan(%[[C2]], %[[C1]], %{{.+}}, %{{.+}}, %[[C1]], %[[C5]], %[[C2]], %[[C0]])
// CHECK-NOT: strata.cum
// CHECK: func.func private @strata_rt_scan(i64, i64, i64, i64, i64, i64, i64, i64)
func.func @scans(%x: tensor<4x8x3xf32>, %i: tensor<5x2xi8>) -> (tensor<4x8x3xf32>, tensor<5x2xi8>) {
  %0 = strata.cumsum %x, axis = 1, reverse = true : (tensor<4x8x3xf32>) -> tensor<4x8x3xf32>
  %1 = strata.cummax %i, axis = 0, reverse = false : (tensor<5x2xi8>) -> tensor<5x2xi8>
  return %0, %1 : tensor<4x8x3xf32>, tensor<5x2xi8>
}
