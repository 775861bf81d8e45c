// RUN: strata-opt --strata-outline-kernels %s | FileCheck %s
// RUN: strata-opt --strata-outline-kernels=min-kernels=5 %s | FileCheck %s --check-prefix=FEW
// RUN: strata-opt "--strata-outline-kernels=min-kernels=5 min-ops=1000" %s | FileCheck %s --check-prefix=FEW
// RUN: strata-opt "--strata-outline-kernels=min-kernels=5 min-ops=12" %s | FileCheck %s --check-prefix=OPS

#id = affine_map<(d0) -> (d0)>

// Two ops that are the same computation share one function; a third (another constant) gets
// its own. Constants are cloned into the function; a value the body reads from outside that is
// not a constant (%s) becomes an argument after the operands.
// CHECK-LABEL: func.func @main
// CHECK-SAME: (%[[A:[^:]+]]: memref<4xf32>, %[[B:[^:]+]]: memref<4xf32>, %[[C:[^:]+]]: memref<4xf32>, %[[S:[^:]+]]: f32)
// CHECK-NOT: linalg.generic
// CHECK: call @kernel0(%[[A]], %[[B]]) : (memref<4xf32>, memref<4xf32>) -> ()
// CHECK-NEXT: call @kernel0(%[[B]], %[[C]]) : (memref<4xf32>, memref<4xf32>) -> ()
// CHECK-NEXT: call @kernel1(%[[C]], %[[A]]) : (memref<4xf32>, memref<4xf32>) -> ()
// CHECK-NEXT: call @kernel2(%[[A]], %[[C]], %[[S]]) : (memref<4xf32>, memref<4xf32>, f32) -> ()
// CHECK-NEXT: return
// CHECK: func.func private @kernel0(%[[X:[^:]+]]: memref<4xf32>, %[[Y:[^:]+]]: memref<4xf32>) attributes {passthrough = ["noinline", "strata-noalias-buffers"]}
// CHECK-NEXT: %[[TWO:.*]] = arith.constant 2.0
// CHECK-NEXT: linalg.generic {{.*}} ins(%[[X]] : memref<4xf32>) outs(%[[Y]] : memref<4xf32>)
// CHECK: arith.mulf %{{.*}}, %[[TWO]]
// CHECK: return
// CHECK: func.func private @kernel1
// CHECK-NEXT: arith.constant 3.0
// CHECK-NEXT: linalg.generic
// CHECK: func.func private @kernel2(%{{[^:]+}}: memref<4xf32>, %{{[^:]+}}: memref<4xf32>, %[[KS:[^:]+]]: f32) attributes {passthrough = ["noinline", "strata-noalias-buffers"]}
// CHECK: arith.addf %{{.*}}, %[[KS]]
// CHECK-NOT: func.func

// Fewer linalg ops than min-kernels: nothing moves.
// Few nests but, with min-ops, enough code in them (@main's four bodies: 12 operations).
// OPS-LABEL: func.func @main
// OPS-NOT: linalg.generic
// OPS: call @kernel0

// FEW-LABEL: func.func @main
// FEW-COUNT-4: linalg.generic
// FEW-NOT: call
func.func @main(%a: memref<4xf32>, %b: memref<4xf32>, %c: memref<4xf32>, %s: f32) {
  %two = arith.constant 2.0 : f32
  %three = arith.constant 3.0 : f32
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%a : memref<4xf32>) outs(%b : memref<4xf32>) {
  ^bb0(%x: f32, %y: f32):
    %m = arith.mulf %x, %two : f32
    linalg.yield %m : f32
  }
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%b : memref<4xf32>) outs(%c : memref<4xf32>) {
  ^bb0(%x: f32, %y: f32):
    %m = arith.mulf %x, %two : f32
    linalg.yield %m : f32
  }
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%c : memref<4xf32>) outs(%a : memref<4xf32>) {
  ^bb0(%x: f32, %y: f32):
    %m = arith.mulf %x, %three : f32
    linalg.yield %m : f32
  }
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%a : memref<4xf32>) outs(%c : memref<4xf32>) {
  ^bb0(%x: f32, %y: f32):
    %m = arith.addf %x, %s : f32
    linalg.yield %m : f32
  }
  return
}

// Buffers that may share an allocation (one buffer read and written in place, two views of
// one allocation) are not marked: only noinline.
// CHECK-LABEL: func.func @shared
// CHECK: call @kernel3(%{{.*}}, %{{.*}})
// CHECK: call @kernel4(%{{.*}}, %{{.*}})
// CHECK: call @kernel5(%{{.*}}, %{{.*}})
// CHECK: func.func private @kernel3({{.*}}) attributes {passthrough = ["noinline"]}
// CHECK: func.func private @kernel4({{.*}}) attributes {passthrough = ["noinline"]}
// CHECK: func.func private @kernel5({{.*}}) attributes {passthrough = ["noinline", "strata-noalias-buffers"]}
func.func @shared(%a: memref<8xf32>) {
  %two = arith.constant 2.0 : f32
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%a : memref<8xf32>) outs(%a : memref<8xf32>) {
  ^bb0(%x: f32, %y: f32):
    %m = arith.mulf %x, %two : f32
    linalg.yield %m : f32
  }
  %buf = memref.alloc() : memref<8xf32>
  %lo = memref.subview %buf[0] [4] [1] : memref<8xf32> to memref<4xf32, strided<[1]>>
  %hi = memref.subview %buf[4] [4] [1] : memref<8xf32> to memref<4xf32, strided<[1], offset: 4>>
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%lo : memref<4xf32, strided<[1]>>) outs(%hi : memref<4xf32, strided<[1], offset: 4>>) {
  ^bb0(%x: f32, %y: f32):
    %m = arith.mulf %x, %two : f32
    linalg.yield %m : f32
  }
  // An argument and an allocation: distinct.
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%a : memref<8xf32>) outs(%buf : memref<8xf32>) {
  ^bb0(%x: f32, %y: f32):
    %m = arith.mulf %x, %two : f32
    linalg.yield %m : f32
  }
  memref.dealloc %buf : memref<8xf32>
  return
}

// Loop nests that strata-parallelize-loops made are outlined as linalg ops are: two identical
// nests share a function, with their constant bounds cloned into it; a loop with results (a
// carried value) stays.
// CHECK-LABEL: func.func @loops
// CHECK-SAME: (%[[A:[^:]+]]: memref<8xf32>, %[[B:[^:]+]]: memref<8xf32>)
// CHECK: call @[[K:kernel[0-9]+]](%[[A]], %[[B]]) : (memref<8xf32>, memref<8xf32>) -> ()
// CHECK-NEXT: call @[[K]](%[[B]], %[[A]]) : (memref<8xf32>, memref<8xf32>) -> ()
// CHECK-NEXT: scf.for {{.*}} iter_args
// CHECK: func.func private @[[K]](%{{[^:]+}}: memref<8xf32>, %{{[^:]+}}: memref<8xf32>)
// CHECK-DAG: arith.constant 0 : index
// CHECK-DAG: arith.constant 8 : index
// CHECK: scf.for
func.func @loops(%a: memref<8xf32>, %b: memref<8xf32>) -> f32 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %zero = arith.constant 0.0 : f32
  scf.for %i = %c0 to %c8 step %c1 {
    %x = memref.load %a[%i] : memref<8xf32>
    memref.store %x, %b[%i] : memref<8xf32>
  }
  scf.for %i = %c0 to %c8 step %c1 {
    %x = memref.load %b[%i] : memref<8xf32>
    memref.store %x, %a[%i] : memref<8xf32>
  }
  %sum = scf.for %i = %c0 to %c8 step %c1 iter_args(%acc = %zero) -> f32 {
    %x = memref.load %a[%i] : memref<8xf32>
    %y = arith.addf %acc, %x : f32
    scf.yield %y : f32
  }
  return %sum : f32
}
