// strata-parallelize-loops with row-loops: runs of row-wise ops with a reduction become one
// loop over the rows; innermost float reductions fold into vector accumulators.
// RUN: strata-opt %s -strata-parallelize-loops="min-iterations=1024 row-loops=true" -split-input-file | FileCheck %s

#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>
#col = affine_map<(d0, d1) -> (d0, 0)>

// Softmax's max, exponentials, sum and division: one parallel loop over chunks of the 64 rows
// (32 chunks of 2), whose body works on row i (rank-reducing subviews), the reductions over
// 32-lane vectors. The exponentials, only read within a row, live in one row of scratch per
// chunk instead of a 64x128 buffer.
// CHECK-LABEL: func.func @softmax
// CHECK-NOT: memref.alloc() : memref<64x128xf32>
// CHECK: %[[C32:.*]] = arith.constant 32 : index
// CHECK: scf.parallel (%[[C:.*]]) = (%{{.*}}) to (%[[C32]])
// CHECK-NOT: scf.parallel
// CHECK: %[[ROW:.*]] = memref.alloc() : memref<128xf32>
// CHECK: scf.for %[[I:.*]] = %{{.*}} to %{{.*}} step
// CHECK: memref.subview %{{.*}}[%[[I]], 0] [1, 128] [1, 1] : memref<64x128xf32> to memref<128xf32, strided<[1], offset: ?>>
// CHECK: arith.constant dense<0xFF800000> : vector<32xf32>
// CHECK: scf.for {{.*}} step %{{.*}} iter_args(%{{.*}} = %{{.*}}) -> (vector<32xf32>)
// CHECK: vector.load
// CHECK: arith.maximumf {{.*}} : vector<32xf32>
// CHECK: vector.shuffle
// CHECK: memref.cast %[[ROW]]
// CHECK: math.exp {{.*}} : f32
// CHECK: arith.constant dense<-0.000000e+00> : vector<32xf32>
// CHECK: arith.addf {{.*}} : vector<32xf32>
// CHECK: arith.divf {{.*}} : f32
// CHECK-NOT: linalg.
// CHECK: memref.dealloc %[[ROW]]
// CHECK-NOT: memref.dealloc %[[ROW]]
// CHECK: memref.dealloc
func.func @softmax(%x: memref<64x128xf32>, %y: memref<64x128xf32>) {
  %ninf = arith.constant 0xFF800000 : f32
  %zero = arith.constant 0.0 : f32
  %m = memref.alloc() : memref<64xf32>
  linalg.fill ins(%ninf : f32) outs(%m : memref<64xf32>)
  linalg.reduce ins(%x : memref<64x128xf32>) outs(%m : memref<64xf32>) dimensions = [1]
    (%in: f32, %acc: f32) {
      %r = arith.maximumf %in, %acc : f32
      linalg.yield %r : f32
    }
  %m2 = memref.expand_shape %m [[0, 1]] output_shape [64, 1] : memref<64xf32> into memref<64x1xf32>
  %e = memref.alloc() : memref<64x128xf32>
  linalg.generic {indexing_maps = [#id, #col, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x, %m2 : memref<64x128xf32>, memref<64x1xf32>) outs(%e : memref<64x128xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %d = arith.subf %a, %b : f32
    %v = math.exp %d : f32
    linalg.yield %v : f32
  }
  %s = memref.alloc() : memref<64xf32>
  linalg.fill ins(%zero : f32) outs(%s : memref<64xf32>)
  linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]}
      ins(%e : memref<64x128xf32>) outs(%s : memref<64xf32>) {
  ^bb0(%a: f32, %o: f32):
    %r = arith.addf %a, %o : f32
    linalg.yield %r : f32
  }
  %s2 = memref.expand_shape %s [[0, 1]] output_shape [64, 1] : memref<64xf32> into memref<64x1xf32>
  linalg.generic {indexing_maps = [#id, #col, #id], iterator_types = ["parallel", "parallel"]}
      ins(%e, %s2 : memref<64x128xf32>, memref<64x1xf32>) outs(%y : memref<64x128xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %q = arith.divf %a, %b : f32
    linalg.yield %q : f32
  }
  memref.dealloc %m : memref<64xf32>
  memref.dealloc %e : memref<64x128xf32>
  memref.dealloc %s : memref<64xf32>
  return
}

// -----

#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>

// Rows of 100 f64: 16-lane accumulators, 6 full steps and a masked tail of 4 lanes whose
// padding is replaced by the identity. 8 rows of 100 are below min-iterations: a serial loop.
// CHECK-LABEL: func.func @tail_f64
// CHECK-NOT: scf.parallel
// CHECK: scf.for
// CHECK: %[[C96:.*]] = arith.constant 96 : index
// CHECK: scf.for {{.*}} to %[[C96]] step {{.*}} -> (vector<16xf64>)
// CHECK: vector.create_mask %{{.*}} : vector<16xi1>
// CHECK: vector.maskedload
// CHECK: arith.select {{.*}} : vector<16xi1>, vector<16xf64>
// CHECK: arith.mulf {{.*}} : vector<16xf64>
func.func @tail_f64(%x: memref<8x100xf64>, %p: memref<8xf64>) {
  linalg.reduce ins(%x : memref<8x100xf64>) outs(%p : memref<8xf64>) dimensions = [1]
    (%in: f64, %acc: f64) {
      %r = arith.mulf %in, %acc : f64
      linalg.yield %r : f64
    }
  return
}

// -----

#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>

// Two reductions of one body (a sum and a sum of squares): one accumulator vector each.
// CHECK-LABEL: func.func @moments
// CHECK: scf.for {{.*}} -> (vector<32xf32>, vector<32xf32>)
// CHECK: arith.mulf {{.*}} : vector<32xf32>
func.func @moments(%x: memref<4x64xf32>, %s: memref<4xf32>, %q: memref<4xf32>) {
  linalg.generic {indexing_maps = [#id, #row, #row], iterator_types = ["parallel", "reduction"]}
      ins(%x : memref<4x64xf32>) outs(%s, %q : memref<4xf32>, memref<4xf32>) {
  ^bb0(%a: f32, %o: f32, %o2: f32):
    %r = arith.addf %a, %o : f32
    %sq = arith.mulf %a, %a : f32
    %r2 = arith.addf %o2, %sq : f32
    linalg.yield %r, %r2 : f32, f32
  }
  return
}

// -----

#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>

// Not vectorized: integer sums (LLVM vectorizes them itself), rows shorter than 16, a row
// that is not contiguous, and an argmax-like body whose accumulators feed each other.
// CHECK-LABEL: func.func @scalar
// CHECK-NOT: vector
// CHECK: return
#strided = affine_map<(d0, d1) -> (d1, d0)>
func.func @scalar(%i: memref<4x64xi32>, %is: memref<4xi32>, %short: memref<4x8xf32>,
                  %ss: memref<4xf32>, %t: memref<64x4xf32>, %ts: memref<4xf32>,
                  %u: memref<4x64xf32>, %best: memref<4xf32>, %idx: memref<4xi64>) {
  linalg.reduce ins(%i : memref<4x64xi32>) outs(%is : memref<4xi32>) dimensions = [1]
    (%in: i32, %acc: i32) {
      %r = arith.addi %in, %acc : i32
      linalg.yield %r : i32
    }
  linalg.reduce ins(%short : memref<4x8xf32>) outs(%ss : memref<4xf32>) dimensions = [1]
    (%in: f32, %acc: f32) {
      %r = arith.addf %in, %acc : f32
      linalg.yield %r : f32
    }
  linalg.generic {indexing_maps = [#strided, #row], iterator_types = ["parallel", "reduction"]}
      ins(%t : memref<64x4xf32>) outs(%ts : memref<4xf32>) {
  ^bb0(%a: f32, %o: f32):
    %r = arith.addf %a, %o : f32
    linalg.yield %r : f32
  }
  linalg.generic {indexing_maps = [#id, #row, #row], iterator_types = ["parallel", "reduction"]}
      ins(%u : memref<4x64xf32>) outs(%best, %idx : memref<4xf32>, memref<4xi64>) {
  ^bb0(%a: f32, %b: f32, %k: i64):
    %gt = arith.cmpf ogt, %a, %b : f32
    %v = arith.select %gt, %a, %b : f32
    %j = arith.select %gt, %k, %k : i64
    linalg.yield %v, %j : f32, i64
  }
  return
}

// -----

#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>

// Row 0 of one op's output is not row 0 of the next op's input (a transposed read): no run,
// each op keeps its own loop nest.
// CHECK-LABEL: func.func @transposed
// CHECK-COUNT-2: scf.for %{{.*}} = %{{.*}} to %{{.*}} step %{{.*}} {
#t = affine_map<(d0, d1) -> (d1, d0)>
func.func @transposed(%x: memref<32x32xf32>, %y: memref<32xf32>) {
  %e = memref.alloc() : memref<32x32xf32>
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x : memref<32x32xf32>) outs(%e : memref<32x32xf32>) {
  ^bb0(%a: f32, %o: f32):
    %v = math.exp %a : f32
    linalg.yield %v : f32
  }
  linalg.generic {indexing_maps = [#t, #row], iterator_types = ["parallel", "reduction"]}
      ins(%e : memref<32x32xf32>) outs(%y : memref<32xf32>) {
  ^bb0(%a: f32, %o: f32):
    %r = arith.addf %a, %o : f32
    linalg.yield %r : f32
  }
  memref.dealloc %e : memref<32x32xf32>
  return
}

// -----

#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>

// A row-invariant input (a bias read by every row) that an op of the run also writes by row
// would be read half-updated: the run stops there.
// CHECK-LABEL: func.func @invariant_written
// CHECK-NOT: memref.subview
// CHECK: return
func.func @invariant_written(%x: memref<16x16xf32>, %b: memref<16x16xf32>, %s: memref<16xf32>) {
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x : memref<16x16xf32>) outs(%b : memref<16x16xf32>) {
  ^bb0(%a: f32, %o: f32):
    %v = math.exp %a : f32
    linalg.yield %v : f32
  }
  linalg.generic {indexing_maps = [#id, affine_map<(d0, d1) -> (d1, d1)>, #row],
                  iterator_types = ["parallel", "reduction"]}
      ins(%x, %b : memref<16x16xf32>, memref<16x16xf32>) outs(%s : memref<16xf32>) {
  ^bb0(%a: f32, %c: f32, %o: f32):
    %m = arith.mulf %a, %c : f32
    %r = arith.addf %m, %o : f32
    linalg.yield %r : f32
  }
  return
}
