// strata-gpu-map-loops: an outermost scf.parallel becomes a 1-D grid of 1-D blocks with a
// bounds check; a bad block size is a diagnostic.
// RUN: strata-opt %s -strata-gpu-map-loops=block-size=256 | FileCheck %s
// RUN: not strata-opt %s -strata-gpu-map-loops=block-size=0 2>&1 | FileCheck %s --check-prefix=BAD

// BAD: error: strata-gpu-map-loops: block-size must be in [1, 1024], got 0

// A 64x1024 nest: collapsed to 65536 iterations, blocks of 256 threads, guarded, indices
// recovered by div/rem; the loops carry block_x and thread_x mappings.
// CHECK-LABEL: func.func @two_d
// CHECK: scf.parallel (%[[B:.+]]) =
// CHECK: scf.parallel (%[[T:.+]]) =
// CHECK: arith.cmpi ult
// CHECK: scf.if
// CHECK-DAG: arith.remsi
// CHECK-DAG: arith.divsi
// CHECK: memref.load
// CHECK: processor = thread_x
// CHECK: processor = block_x
func.func @two_d(%a: memref<64x1024xf32>, %b: memref<64x1024xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %c1024 = arith.constant 1024 : index
  scf.parallel (%i, %j) = (%c0, %c0) to (%c64, %c1024) step (%c1, %c1) {
    %x = memref.load %a[%i, %j] : memref<64x1024xf32>
    memref.store %x, %b[%i, %j] : memref<64x1024xf32>
  }
  return
}

// A memref.copy inside a loop (a scan's per-step slice) becomes a loop nest of loads and
// stores: it will run inside a kernel, where no memrefCopy function exists.
// CHECK-LABEL: func.func @copy_in_loop
// CHECK-NOT: memref.copy
// CHECK: memref.load
// CHECK: memref.store
func.func @copy_in_loop(%a: memref<4x8xf32>, %b: memref<4x8xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  scf.for %i = %c0 to %c4 step %c1 {
    %s = memref.subview %a[%i, 0] [1, 8] [1, 1] : memref<4x8xf32> to memref<1x8xf32, strided<[8, 1], offset: ?>>
    %d = memref.subview %b[%i, 0] [1, 8] [1, 1] : memref<4x8xf32> to memref<1x8xf32, strided<[8, 1], offset: ?>>
    memref.copy %s, %d : memref<1x8xf32, strided<[8, 1], offset: ?>> to memref<1x8xf32, strided<[8, 1], offset: ?>>
  }
  return
}
