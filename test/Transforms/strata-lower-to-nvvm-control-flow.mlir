// strata-lower-to-nvvm on control flow: strata.while, strata.scan and strata.cond stay host
// control flow (scf.while, scf.for, scf.index_switch) whose bodies launch kernels; a while's
// condition is computed by a kernel and read on the host (strata-gpu-host-memory turns that
// memref.load into the runtime's scalar read). The kernels inside the bodies are the same
// kernels strata-gpu-kernels makes at the top level (grid-stride elementwise, two-stage full
// reductions) and a contraction in a loop body is a cuBLAS call per step.
// test/gpu/ptxas_check.sh assembles the PTX of every case below with ptxas for both chips.
// RUN: strata-opt %s -strata-lower-to-nvvm=chip=sm_90 -split-input-file \
// RUN:   | FileCheck %s --check-prefixes=CHECK,SM90
// RUN: strata-opt %s -strata-lower-to-nvvm=chip=sm_120 -split-input-file \
// RUN:   | FileCheck %s --check-prefixes=CHECK,SM120
// RUN: strata-opt %s -strata-lower-to-nvvm=chip=sm_90 -split-input-file \
// RUN:   | strata-opt -strata-lower-gpu-host -split-input-file | FileCheck %s --check-prefix=HOST
// strata-lower-to-gpu (what jit runs) is the two pipelines in one.
// RUN: strata-opt %s -strata-lower-to-gpu=chip=sm_90 -split-input-file \
// RUN:   | FileCheck %s --check-prefix=HOST

// A while loop (fori_loop with a traced bound) over an elementwise update: a host loop whose
// condition kernel writes an i1 the host loads; the body's two updates are kernels that write
// their carries in place (no copy kernels). The host stage reads the condition through
// strata_rt_cuda_to_host.
// CHECK-LABEL: func.func @main
// CHECK: scf.while : () -> () {
// CHECK: gpu.launch_func @[[COND:main_kernel[_0-9]*]]::@main_kernel
// CHECK-SAME: memref<i1>
// CHECK: %[[P:.*]] = memref.load %{{.*}}[] : memref<i1>
// CHECK: scf.condition(%[[P]])
// CHECK: } do {
// CHECK-COUNT-2: gpu.launch_func
// CHECK-NOT: gpu.launch_func
// CHECK: scf.yield
// CHECK-NOT: gpu.launch_func
// CHECK: return
// SM90: gpu.binary @[[COND]] [#gpu.object<#nvvm.target<O = 3, chip = "sm_90", features = "+ptx88">
// SM120: gpu.binary @[[COND]] [#gpu.object<#nvvm.target<O = 3, chip = "sm_120", features = "+ptx88">
// SM90-SAME: .target sm_90
// SM120-SAME: .target sm_120
// HOST-LABEL: llvm.func @main
// HOST: llvm.call @strata_rt_cuda_to_host
// HOST: llvm.cond_br
// HOST: gpu.launch_func
func.func @main(%x: tensor<1024xf32>, %n: tensor<i32>) -> tensor<1024xf32> {
  %zero = arith.constant dense<0> : tensor<i32>
  %one = arith.constant dense<1> : tensor<i32>
  %half = arith.constant dense<0.5> : tensor<1024xf32>
  %r:2 = strata.while %zero, %x : (tensor<i32>, tensor<1024xf32>) -> (tensor<i32>, tensor<1024xf32>) cond {
  ^bb0(%i: tensor<i32>, %v: tensor<1024xf32>):
    %p = strata.lt %i, %n : (tensor<i32>, tensor<i32>) -> tensor<i1>
    strata.yield %p : tensor<i1>
  } do {
  ^bb0(%i: tensor<i32>, %v: tensor<1024xf32>):
    %i1 = strata.add %i, %one : (tensor<i32>, tensor<i32>) -> tensor<i32>
    %m = strata.mul %v, %half : (tensor<1024xf32>, tensor<1024xf32>) -> tensor<1024xf32>
    %t = strata.tanh %m : (tensor<1024xf32>) -> tensor<1024xf32>
    strata.yield %i1, %t : tensor<i32>, tensor<1024xf32>
  }
  return %r#1 : tensor<1024xf32>
}

// -----

// An RNN scan: a host scf.for; each step calls cuBLAS for the contraction, runs the fused
// bias + tanh chain as one kernel writing both the next carry and the step's output, and copies
// the output into its slice of the stacked ys with a copy kernel (the slice is a view with an
// offset, which gpu.memcpy cannot take: gpu-to-llvm lowers identity layouts only).
// CHECK-LABEL: func.func @main
// CHECK: scf.for
// CHECK: func.call @strata_rt_cuda_gemm
// CHECK: gpu.launch_func @[[K:main_kernel[_0-9]*]]::@main_kernel
// CHECK: %[[YS:.*]] = memref.subview {{.*}} to memref<64xf32, strided<[1], offset: ?>>
// CHECK: gpu.launch_func {{.*}} args({{.*}}, %[[YS]] : memref<64xf32, strided<[1], offset: ?>>)
// CHECK-NOT: memref.copy {{.*}} offset
// CHECK: gpu.launch_func
// CHECK: }
// CHECK-NOT: gpu.launch_func
// CHECK: return
// CHECK: gpu.binary @[[K]]
// CHECK-SAME: .visible .entry main_kernel(
// HOST-LABEL: llvm.func @main
// HOST: llvm.call @strata_rt_cuda_gemm
// HOST: gpu.launch_func
// HOST: llvm.call @mgpuMemcpy
func.func @main(%h: tensor<64xf32>, %xs: tensor<10x64xf32>, %w: tensor<64x64xf32>) -> (tensor<64xf32>, tensor<10x64xf32>) {
  %s:2 = strata.scan init(%h) xs(%xs) length = 10, reverse = false : (tensor<64xf32>, tensor<10x64xf32>) -> (tensor<64xf32>, tensor<10x64xf32>) {
  ^bb0(%a: tensor<64xf32>, %x: tensor<64xf32>):
    %d = strata.dot_general %w, %a, batch_dims = [] x [], contracting_dims = [1] x [0] : (tensor<64x64xf32>, tensor<64xf32>) -> tensor<64xf32>
    %s = strata.add %d, %x : (tensor<64xf32>, tensor<64xf32>) -> tensor<64xf32>
    %t = strata.tanh %s : (tensor<64xf32>) -> tensor<64xf32>
    strata.yield %t, %s : tensor<64xf32>, tensor<64xf32>
  }
  return %s#0, %s#1 : tensor<64xf32>, tensor<10x64xf32>
}

// -----

// switch with three branches: a host scf.index_switch on the clamped index (read on the host);
// each branch launches its own kernels (the last: a two-stage full reduction, then the
// broadcast), and the result is copied out by a kernel after the switch.
// CHECK-LABEL: func.func @main
// CHECK: %[[I:.*]] = memref.load %{{.*}}[] : memref<i32>
// CHECK: arith.minsi %[[I]]
// CHECK: scf.index_switch
// CHECK: case 0 {
// CHECK: gpu.launch_func
// CHECK: case 1 {
// CHECK: gpu.launch_func
// CHECK: default {
// CHECK-COUNT-3: gpu.launch_func
// CHECK: }
// CHECK: gpu.launch_func
// CHECK: return
// HOST-LABEL: llvm.func @main
// HOST: llvm.call @strata_rt_cuda_to_host
// HOST: llvm.switch
func.func @main(%i: tensor<i32>, %x: tensor<4096xf32>) -> tensor<4096xf32> {
  %r = strata.cond %i : (tensor<i32>) -> tensor<4096xf32> {
    %a = strata.exp %x : (tensor<4096xf32>) -> tensor<4096xf32>
    strata.yield %a : tensor<4096xf32>
  }, {
    %b = strata.neg %x : (tensor<4096xf32>) -> tensor<4096xf32>
    strata.yield %b : tensor<4096xf32>
  }, {
    %s = strata.reduce_sum %x, axes = [0] : (tensor<4096xf32>) -> tensor<f32>
    %c = strata.broadcast_in_dim %s, broadcast_dimensions = [] : (tensor<f32>) -> tensor<4096xf32>
    strata.yield %c : tensor<4096xf32>
  }
  return %r : tensor<4096xf32>
}

// -----

// A 1000-step fori_loop of x * 0.99 + 0.01 over f32[1 << 20]: strata-interchange-elementwise-
// loops makes the loop one elementwise generic running the steps per element, so the host
// runs ONE grid-stride kernel (no host scf.for, no launch or sync per step); each thread keeps
// its 4-element chunk in registers for all steps, rounding each op as the CPU does (mul.rn,
// add.rn: no contraction into fma).
// CHECK-LABEL: func.func @main
// CHECK-NOT: scf.for
// CHECK: gpu.launch_func @[[K:main_kernel[_0-9]*]]::@main_kernel blocks in (%c1024, %c1, %c1) threads in (%c256, %c1, %c1)
// CHECK-NOT: gpu.launch_func
// CHECK-NOT: scf.for
// CHECK: return
// CHECK: gpu.binary @[[K]]
// CHECK-SAME: ld.global.v
// CHECK-SAME: mul.rn.f32
// CHECK-SAME: add.rn.f32
// CHECK-SAME: bra.uni
// CHECK-SAME: st.global.v4.b32
// HOST-LABEL: llvm.func @main
// HOST-NOT: llvm.call @strata_rt_cuda_to_host
// HOST: gpu.launch_func
// HOST-NOT: gpu.launch_func
// HOST: llvm.return
func.func @main(%x: tensor<1048576xf32>) -> tensor<1048576xf32> {
  %a = arith.constant dense<0.99> : tensor<1048576xf32>
  %b = arith.constant dense<0.01> : tensor<1048576xf32>
  %r = strata.scan init(%x) xs() length = 1000, reverse = false : (tensor<1048576xf32>) -> (tensor<1048576xf32>) {
  ^bb0(%v: tensor<1048576xf32>):
    %m = strata.mul %v, %a : (tensor<1048576xf32>, tensor<1048576xf32>) -> tensor<1048576xf32>
    %t = strata.add %m, %b : (tensor<1048576xf32>, tensor<1048576xf32>) -> tensor<1048576xf32>
    strata.yield %t : tensor<1048576xf32>
  }
  return %r : tensor<1048576xf32>
}
