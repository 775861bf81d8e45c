// strata-lower-to-nvvm and the GPU host pipeline on strata.fft: each transform becomes one host
// call of the CUDA runtime's strata_rt_cuda_fft (cuFFT) between the kernels, on device buffers,
// with the CPU runtime's arguments (kind, real dtype code, rank, lengths, batch, addresses).
// Complex buffers only pass through: the kernels around the call see real values.
// test/gpu/ptxas_check.sh assembles this file's kernels with ptxas too.
// RUN: strata-opt %s -split-input-file -strata-lower-to-nvvm=chip=sm_90 | FileCheck %s
// RUN: strata-opt %s -split-input-file -strata-lower-to-gpu=chip=sm_90 | FileCheck %s --check-prefix=HOST
// RUN: strata-opt %s -split-input-file -strata-fft-to-runtime=cuda=true -canonicalize | FileCheck %s --check-prefix=CALLS

// RFFT of exp(x): 16 points over a batch of 4 in f32 (code 11): kind 2, rank 1.
// The complex result is written straight into the function's out-param buffer.
// CHECK-LABEL: func.func @rfft_of_kernel(
// CHECK-SAME: %[[RES:[a-z0-9]+]]: memref<4x9xcomplex<f32>>)
// CHECK-DAG: %[[C1:.+]] = arith.constant 1 : i64
// CHECK-DAG: %[[C2:.+]] = arith.constant 2 : i64
// CHECK-DAG: %[[C4:.+]] = arith.constant 4 : i64
// CHECK-DAG: %[[C16:.+]] = arith.constant 16 : i64
// CHECK-DAG: %[[F32:.+]] = arith.constant 11 : i64
// CHECK: gpu.launch_func @rfft_of_kernel_kernel
// CHECK: memref.extract_aligned_pointer_as_index %[[RES]] : memref<4x9xcomplex<f32>>
// CHECK: call @strata_rt_cuda_fft(%[[C2]], %[[F32]], %[[C1]], %[[C16]], %[[C1]], %[[C1]], %[[C4]], %{{.+}}, %{{.+}})
// CHECK-NOT: call @strata_rt_fft(
// HOST-LABEL: llvm.func @rfft_of_kernel
// HOST: llvm.call @mgpuMemAlloc
// HOST: llvm.call @mgpuStreamSynchronize
// HOST: llvm.call @strata_rt_cuda_fft(
// HOST: llvm.call @mgpuMemFree
func.func @rfft_of_kernel(%x: tensor<4x16xf32>) -> tensor<4x9xcomplex<f32>> {
  %e = strata.exp %x : (tensor<4x16xf32>) -> tensor<4x16xf32>
  %0 = strata.fft %e, fft_type = "RFFT", fft_lengths = [16]
      : (tensor<4x16xf32>) -> tensor<4x9xcomplex<f32>>
  return %0 : tensor<4x9xcomplex<f32>>
}

// -----

// A 2-D IRFFT in f64 (code 12) of a complex argument, then a kernel on the real result:
// kind 3, rank 2, lengths 3, 8, batch 2.
// CHECK-LABEL: func.func @irfft2_then_kernel
// CHECK-DAG: %[[C1:.+]] = arith.constant 1 : i64
// CHECK-DAG: %[[C2:.+]] = arith.constant 2 : i64
// CHECK-DAG: %[[C3:.+]] = arith.constant 3 : i64
// CHECK-DAG: %[[C8:.+]] = arith.constant 8 : i64
// CHECK-DAG: %[[F64:.+]] = arith.constant 12 : i64
// CHECK: memref.alloc() : memref<2x3x8xf64>
// CHECK: call @strata_rt_cuda_fft(%[[C3]], %[[F64]], %[[C2]], %[[C3]], %[[C8]], %[[C1]], %[[C2]], %{{.+}}, %{{.+}})
// CHECK: gpu.launch_func
// HOST-LABEL: llvm.func @irfft2_then_kernel
// HOST: llvm.call @mgpuMemAlloc
// HOST: llvm.call @strata_rt_cuda_fft(
// HOST: llvm.call @mgpuMemFree
func.func @irfft2_then_kernel(%z: tensor<2x3x5xcomplex<f64>>) -> tensor<2x3x8xf64> {
  %0 = strata.fft %z, fft_type = "IRFFT", fft_lengths = [3, 8]
      : (tensor<2x3x5xcomplex<f64>>) -> tensor<2x3x8xf64>
  %1 = strata.tanh %0 : (tensor<2x3x8xf64>) -> tensor<2x3x8xf64>
  return %1 : tensor<2x3x8xf64>
}

// -----

// FFT and IFFT of complex64 over three axes (kind 0 and 1, rank 3, lengths 2, 3, 4, batch 1):
// complex in, complex out, no kernel.
// CALLS-LABEL: func.func @fft3_ifft3
// CALLS-DAG: %[[C0:.+]] = arith.constant 0 : i64
// CALLS-DAG: %[[C1:.+]] = arith.constant 1 : i64
// CALLS-DAG: %[[C2:.+]] = arith.constant 2 : i64
// CALLS-DAG: %[[C3:.+]] = arith.constant 3 : i64
// CALLS-DAG: %[[C4:.+]] = arith.constant 4 : i64
// CALLS-DAG: %[[F32:.+]] = arith.constant 11 : i64
// CALLS: call @strata_rt_cuda_fft(%[[C0]], %[[F32]], %[[C3]], %[[C2]], %[[C3]], %[[C4]], %[[C1]], %{{.+}}, %{{.+}})
// CALLS: call @strata_rt_cuda_fft(%[[C1]], %[[F32]], %[[C3]], %[[C2]], %[[C3]], %[[C4]], %[[C1]], %{{.+}}, %{{.+}})
// CALLS-NOT: call @strata_rt_fft(
// CALLS: func.func private @strata_rt_cuda_fft(i64, i64, i64, i64, i64, i64, i64, i64, i64)
// HOST-LABEL: llvm.func @fft3_ifft3
// HOST: llvm.call @strata_rt_cuda_fft(
// HOST: llvm.call @strata_rt_cuda_fft(
func.func @fft3_ifft3(%z: tensor<2x3x4xcomplex<f32>>)
    -> (tensor<2x3x4xcomplex<f32>>, tensor<2x3x4xcomplex<f32>>) {
  %0 = strata.fft %z, fft_type = "FFT", fft_lengths = [2, 3, 4]
      : (tensor<2x3x4xcomplex<f32>>) -> tensor<2x3x4xcomplex<f32>>
  %1 = strata.fft %0, fft_type = "IFFT", fft_lengths = [2, 3, 4]
      : (tensor<2x3x4xcomplex<f32>>) -> tensor<2x3x4xcomplex<f32>>
  return %0, %1 : tensor<2x3x4xcomplex<f32>>, tensor<2x3x4xcomplex<f32>>
}
