// strata-lower-to-nvvm and the GPU host pipeline on strata.host_callback: the callbacks stay in
// host code between the kernels (in program order), announcing their device buffers with scalar
// calls, and the final call is the GPU runtime's, which copies them through the host.
// test/gpu/ptxas_check.sh assembles this file's kernels with ptxas too.
// RUN: strata-opt %s -strata-lower-to-nvvm=chip=sm_90 | FileCheck %s
// RUN: strata-opt %s -strata-lower-to-nvvm=chip=sm_90 | strata-opt -strata-lower-gpu-host \
// RUN:   | FileCheck %s --check-prefix=HOST
// RUN: strata-opt %s -strata-lower-to-gpu=chip=sm_90 | FileCheck %s --check-prefix=HOST

// CHECK-LABEL: func.func @main
// CHECK: gpu.launch_func @main_kernel
// CHECK: call @strata_rt_host_callback_buffer
// CHECK: call @strata_rt_host_callback(
// CHECK: call @strata_rt_host_callback_buffer
// CHECK: call @strata_rt_host_callback(
// CHECK: gpu.launch_func
// CHECK: gpu.binary
// HOST-LABEL: llvm.func @main
// HOST: llvm.call @strata_rt_host_callback_buffer
// HOST: llvm.call @strata_rt_cuda_host_callback(
// HOST: llvm.call @strata_rt_cuda_host_callback(
// HOST: llvm.func @strata_rt_cuda_host_callback(i64, i64, i64)
func.func @main(%x: tensor<64xf32>) -> tensor<64xf32> {
  %e = strata.exp %x : (tensor<64xf32>) -> tensor<64xf32>
  strata.host_callback(%e) callback_id = 1 : (tensor<64xf32>) -> ()
  %y = strata.host_callback(%e) callback_id = 2 : (tensor<64xf32>) -> tensor<64xf32>
  %z = strata.add %y, %x : (tensor<64xf32>, tensor<64xf32>) -> tensor<64xf32>
  return %z : tensor<64xf32>
}
