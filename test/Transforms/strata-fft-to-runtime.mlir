// strata-fft-to-runtime: strata.fft becomes one call of the CPU runtime's FFT on a read-only
// operand buffer and a fresh result buffer.
// RUN: strata-opt %s -strata-fft-to-runtime -canonicalize -split-input-file | FileCheck %s

// RFFT of 8 points over a batch of 3 in f32 (dtype code 11): kind 2, rank 1, lengths 8, 1, 1.
// CHECK-LABEL: func.func @rfft
// CHECK-DAG: %[[C1:.+]] = arith.constant 1 : i64
// CHECK-DAG: %[[C2:.+]] = arith.constant 2 : i64
// CHECK-DAG: %[[C3:.+]] = arith.constant 3 : i64
// CHECK-DAG: %[[C8:.+]] = arith.constant 8 : i64
// CHECK-DAG: %[[F32:.+]] = arith.constant 11 : i64
// CHECK: bufferization.to_buffer %{{.+}} read_only : tensor<3x8xf32> to memref<3x8xf32>
// CHECK: %[[OUT:.+]] = memref.alloc() : memref<3x5xcomplex<f32>>
// CHECK: call @strata_rt_fft(%[[C2]], %[[F32]], %[[C1]], %[[C8]], %[[C1]], %[[C1]], %[[C3]], %{{.+}}, %{{.+}})
// CHECK: %[[R:.+]] = bufferization.to_tensor %[[OUT]] restrict writable
// CHECK: return %[[R]]
// CHECK: func.func private @strata_rt_fft(i64, i64, i64, i64, i64, i64, i64, i64, i64)
func.func @rfft(%x: tensor<3x8xf32>) -> tensor<3x5xcomplex<f32>> {
  %0 = strata.fft %x, fft_type = "RFFT", fft_lengths = [8]
      : (tensor<3x8xf32>) -> tensor<3x5xcomplex<f32>>
  return %0 : tensor<3x5xcomplex<f32>>
}

// -----

// A 3-D IRFFT in f64 (code 12) with no batch: kind 3, rank 3, lengths 2, 3, 6, batch 1.
// CHECK-LABEL: func.func @irfft3
// CHECK-DAG: %[[C1:.+]] = arith.constant 1 : i64
// CHECK-DAG: %[[C2:.+]] = arith.constant 2 : i64
// CHECK-DAG: %[[C3:.+]] = arith.constant 3 : i64
// CHECK-DAG: %[[C6:.+]] = arith.constant 6 : i64
// CHECK-DAG: %[[F64:.+]] = arith.constant 12 : i64
// CHECK: memref.alloc() : memref<2x3x6xf64>
// CHECK: call @strata_rt_fft(%[[C3]], %[[F64]], %[[C3]], %[[C2]], %[[C3]], %[[C6]], %[[C1]], %{{.+}}, %{{.+}})
func.func @irfft3(%x: tensor<2x3x4xcomplex<f64>>) -> tensor<2x3x6xf64> {
  %0 = strata.fft %x, fft_type = "IRFFT", fft_lengths = [2, 3, 6]
      : (tensor<2x3x4xcomplex<f64>>) -> tensor<2x3x6xf64>
  return %0 : tensor<2x3x6xf64>
}
