// strata-nvvm-intrinsics: libdevice calls with an exact LLVM intrinsic become the intrinsic
// (and the unused declaration goes); other libdevice calls stay.
// RUN: strata-opt %s --pass-pipeline='builtin.module(gpu.module(strata-nvvm-intrinsics))' | FileCheck %s

// CHECK-LABEL: gpu.module @k
// CHECK-NOT: @__nv_fmaf
// CHECK: llvm.func @__nv_expf
// CHECK: %[[F:.+]] = llvm.intr.fma(%{{.+}}, %{{.+}}, %{{.+}}) : (f32, f32, f32) -> f32
// CHECK: llvm.call @__nv_expf(%[[F]])
gpu.module @k {
  llvm.func @__nv_fmaf(f32, f32, f32) -> f32
  llvm.func @__nv_expf(f32) -> f32
  llvm.func @kernel(%a: f32, %b: f32) -> f32 {
    %0 = llvm.call @__nv_fmaf(%a, %b, %a) : (f32, f32, f32) -> f32
    %1 = llvm.call @__nv_expf(%0) : (f32) -> f32
    llvm.return %1 : f32
  }
}
