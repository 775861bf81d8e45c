// strata-lower-to-cpu: strata IR to the LLVM dialect, as jit compiles it for the CPU.
// RUN: strata-opt %s -strata-lower-to-cpu -split-input-file | FileCheck %s

// A fused elementwise chain: one loop, the outputs are out-params, no libm call for f32
// exp/tanh (approximated), and the C interface wrapper for the runtime.
// CHECK-LABEL: llvm.func @main
// CHECK-NOT: llvm.call @expf
// CHECK-NOT: llvm.call @tanhf
// CHECK: llvm.return
// CHECK-LABEL: llvm.func @_mlir_ciface_main
func.func @main(%x: tensor<1024xf32>, %b: tensor<1024xf32>) -> tensor<1024xf32>
    attributes {llvm.emit_c_interface} {
  %0 = strata.exp %x : (tensor<1024xf32>) -> tensor<1024xf32>
  %1 = strata.add %0, %b : (tensor<1024xf32>, tensor<1024xf32>) -> tensor<1024xf32>
  %2 = strata.tanh %1 : (tensor<1024xf32>) -> tensor<1024xf32>
  return %2 : tensor<1024xf32>
}

// -----

// dot_general calls the runtime's gemm; the result is written into the caller's buffer.
// CHECK-LABEL: llvm.func @main
// CHECK: llvm.call @strata_rt_gemm
func.func @main(%a: tensor<4x8xf32>, %b: tensor<8x16xf32>) -> tensor<4x16xf32>
    attributes {llvm.emit_c_interface} {
  %0 = strata.dot_general %a, %b, batch_dims = [] x [], contracting_dims = [1] x [0]
      : (tensor<4x8xf32>, tensor<8x16xf32>) -> tensor<4x16xf32>
  return %0 : tensor<4x16xf32>
}

// -----

// A while loop stays a loop: the condition is loaded from its i1 buffer and branches back to
// the loop header; the carry is updated in place (no allocation or copy per iteration for it:
// the tanh loop writes the carry and exits straight back to the header).
// CHECK-LABEL: llvm.func @main
// CHECK: ^[[HEAD:bb[0-9]+]]:
// CHECK: %[[P:.*]] = llvm.load %{{.*}} : !llvm.ptr -> i1
// CHECK: llvm.cond_br %[[P]], ^{{bb[0-9]+}}, ^{{bb[0-9]+}}
// CHECK-NOT: llvm.call @malloc
// CHECK: llvm.{{(cond_)?}}br {{.*}}^[[HEAD]]
// CHECK-LABEL: llvm.func @_mlir_ciface_main
func.func @main(%x: tensor<256xf32>, %n: tensor<i32>) -> tensor<256xf32>
    attributes {llvm.emit_c_interface} {
  %zero = arith.constant dense<0> : tensor<i32>
  %one = arith.constant dense<1> : tensor<i32>
  %r:2 = strata.while %zero, %x : (tensor<i32>, tensor<256xf32>) -> (tensor<i32>, tensor<256xf32>) cond {
  ^bb0(%i: tensor<i32>, %v: tensor<256xf32>):
    %p = strata.lt %i, %n : (tensor<i32>, tensor<i32>) -> tensor<i1>
    strata.yield %p : tensor<i1>
  } do {
  ^bb0(%i: tensor<i32>, %v: tensor<256xf32>):
    %i1 = strata.add %i, %one : (tensor<i32>, tensor<i32>) -> tensor<i32>
    %t = strata.tanh %v : (tensor<256xf32>) -> tensor<256xf32>
    strata.yield %i1, %t : tensor<i32>, tensor<256xf32>
  }
  return %r#1 : tensor<256xf32>
}
