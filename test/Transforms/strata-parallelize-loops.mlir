// strata-parallelize-loops: large all-parallel linalg ops on buffers become scf.parallel; small
// ones and ones with a reduction loop become scf.for.
// RUN: strata-opt %s -strata-parallelize-loops=min-iterations=1024 -split-input-file | FileCheck %s

#id = affine_map<(d0) -> (d0)>

// 4096 iterations: parallel. 8 iterations: serial.
// CHECK-LABEL: func.func @large_and_small
// CHECK: scf.parallel (%{{.*}}) = (%{{.*}}) to (%{{.*}}) step (%{{.*}})
// CHECK: scf.for
// CHECK-NOT: linalg.generic
func.func @large_and_small(%a: memref<4096xf32>, %b: memref<4096xf32>, %c: memref<8xf32>,
                           %d: memref<8xf32>) {
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%a : memref<4096xf32>) outs(%b : memref<4096xf32>) {
  ^bb0(%x: f32, %y: f32):
    %e = math.exp %x : f32
    linalg.yield %e : f32
  }
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%c : memref<8xf32>) outs(%d : memref<8xf32>) {
  ^bb0(%x: f32, %y: f32):
    %e = math.exp %x : f32
    linalg.yield %e : f32
  }
  return
}

// -----

// A nest with a reduction loop stays serial (an OpenMP reduction inside scf.parallel does not
// lower through scf-to-cf's alloca scopes).
// CHECK-LABEL: func.func @row_sums
// CHECK-NOT: scf.parallel
// CHECK: scf.for
func.func @row_sums(%a: memref<64x64xf32>, %s: memref<64xf32>) {
  linalg.reduce ins(%a : memref<64x64xf32>) outs(%s : memref<64xf32>) dimensions = [1]
    (%x: f32, %acc: f32) {
      %r = arith.addf %x, %acc : f32
      linalg.yield %r : f32
    }
  return
}

// -----

// A full reduction has no parallel loop to split.
// CHECK-LABEL: func.func @total
// CHECK-NOT: scf.parallel
// CHECK: scf.for
func.func @total(%a: memref<4096xf32>, %s: memref<f32>) {
  linalg.reduce ins(%a : memref<4096xf32>) outs(%s : memref<f32>) dimensions = [0]
    (%x: f32, %acc: f32) {
      %r = arith.addf %x, %acc : f32
      linalg.yield %r : f32
    }
  return
}

// -----

// A large 3-d nest: only the outermost loop (with >= 2 iterations) is parallel, the inner ones
// stay scf.for, so the innermost loop vectorizes inside each thread's share; a unit outer
// dimension is skipped.
// CHECK-LABEL: func.func @outer_only
// CHECK: scf.for
// CHECK: scf.parallel (%{{[^,]*}}) = (%{{[^,]*}}) to (%{{[^,]*}}) step (%{{[^,]*}}) {
// CHECK: scf.for
// CHECK: scf.for
#id3 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
func.func @outer_only(%a: memref<1x8x16x32xf32>, %b: memref<1x8x16x32xf32>) {
  linalg.generic {indexing_maps = [#id3, #id3],
                  iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%a : memref<1x8x16x32xf32>) outs(%b : memref<1x8x16x32xf32>) {
  ^bb0(%x: f32, %y: f32):
    %e = math.exp %x : f32
    linalg.yield %e : f32
  }
  return
}
