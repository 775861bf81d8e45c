// strata-gpu-kernels: linalg ops on buffers become gpu.launch kernels shaped for their access
// pattern (grid-stride elementwise with vector accesses, row groups with shuffles and shared
// memory, two-stage full reductions, one thread per column for column reductions).
// RUN: strata-opt %s -split-input-file \
// RUN:   --pass-pipeline='builtin.module(func.func(strata-gpu-kernels,canonicalize,cse))' | FileCheck %s
// RUN: not strata-opt %s -split-input-file \
// RUN:   --pass-pipeline='builtin.module(func.func(strata-gpu-kernels{block-size=100}))' 2>&1 \
// RUN:   | FileCheck %s --check-prefix=ERR
// RUN: not strata-opt %s -split-input-file \
// RUN:   --pass-pipeline='builtin.module(func.func(strata-gpu-kernels{max-blocks=0}))' 2>&1 \
// RUN:   | FileCheck %s --check-prefix=ERR-BLOCKS
// ERR: error: strata-gpu-kernels: block-size must be a multiple of 32 in [32, 1024], got 100
// ERR-BLOCKS: error: strata-gpu-kernels: max-blocks must be positive

// A flat op of 1030 f32: 257 chunks of 4 (vector.load/store aligned to 16 bytes) in a grid-stride
// loop over 2 blocks of 256 threads, then the last 2 elements one per thread.
// CHECK-LABEL: func.func @flat_tail
// CHECK-DAG: %[[C1028:.*]] = arith.constant 1028 : index
// CHECK-DAG: %[[C512:.*]] = arith.constant 512 : index
// CHECK-DAG: %[[C257:.*]] = arith.constant 257 : index
// CHECK-DAG: %[[C2:.*]] = arith.constant 2 : index
// CHECK-DAG: %[[C256:.*]] = arith.constant 256 : index
// CHECK: gpu.launch blocks(%[[BID:.*]], %{{.*}}, %{{.*}}) in (%{{.*}} = %[[C2]], {{.*}} threads(%[[TID:.*]], %{{.*}}, %{{.*}}) in (%{{.*}} = %[[C256]],
// CHECK: %[[G:.*]] = arith.addi %{{.*}}, %[[TID]] : index
// CHECK: scf.for %[[I:.*]] = %[[G]] to %[[C257]] step %[[C512]] {
// CHECK: vector.load %arg0[%{{.*}}] {alignment = 16 : i64} : memref<1030xf32>, vector<4xf32>
// CHECK: vector.load %arg1[%{{.*}}] {alignment = 16 : i64} : memref<1030xf32>, vector<4xf32>
// CHECK-COUNT-4: arith.addf
// CHECK: vector.store %{{.*}}, %arg2[%{{.*}}] {alignment = 16 : i64} : memref<1030xf32>, vector<4xf32>
// CHECK: }
// CHECK: %[[TAIL:.*]] = arith.cmpi ult, %[[G]], %[[C2]] : index
// CHECK: scf.if %[[TAIL]] {
// CHECK: %[[E:.*]] = arith.addi %[[G]], %[[C1028]] : index
// CHECK: memref.load %arg0[%[[E]]] : memref<1030xf32>
// CHECK-NOT: linalg.generic
func.func @flat_tail(%a: memref<1030xf32>, %b: memref<1030xf32>, %c: memref<1030xf32>) {
  linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]}
      ins(%a, %b : memref<1030xf32>, memref<1030xf32>) outs(%c : memref<1030xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %s = arith.addf %x, %y : f32
    linalg.yield %s : f32
  }
  return
}

// -----

// A transposed input: the row-major operands are read and written as vectors, the transposed
// one element by element (its innermost loop dimension is not its contiguous one).
// CHECK-LABEL: func.func @transposed
// CHECK: gpu.launch
// CHECK: %[[V:.*]] = vector.load %arg0[%[[R:.*]], %[[C:.*]]] {alignment = 16 : i64} : memref<64x32xf32>, vector<4xf32>
// CHECK: memref.load %arg1[%[[C]], %[[R]]] : memref<32x64xf32>
// CHECK-COUNT-3: memref.load %arg1[
// CHECK: vector.store %{{.*}}, %arg2[%[[R]], %[[C]]] {alignment = 16 : i64} : memref<64x32xf32>, vector<4xf32>
func.func @transposed(%a: memref<64x32xf32>, %b: memref<32x64xf32>, %c: memref<64x32xf32>) {
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1, d0)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      ins(%a, %b : memref<64x32xf32>, memref<32x64xf32>) outs(%c : memref<64x32xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %s = arith.mulf %x, %y : f32
    linalg.yield %s : f32
  }
  return
}

// -----

// A row group (fill, row sum of exp, divide by the sum through a [4, 1] view): one kernel, a
// block of 128 threads per row of 512 (128 chunks of 4); the per-row sum is a register (its
// buffer, fill, view and dealloc are gone); shuffles within the warp, then shared memory
// across the 4 warps between barriers.
// CHECK-LABEL: func.func @row_group
// CHECK-NOT: memref.alloc
// CHECK-DAG: %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK-DAG: %[[C4:.*]] = arith.constant 4 : index
// CHECK-DAG: %[[C128:.*]] = arith.constant 128 : index
// CHECK: gpu.launch blocks(%[[BID:.*]], %{{.*}}, %{{.*}}) in (%{{.*}} = %[[C4]], {{.*}} threads(%[[TID:.*]], %{{.*}}, %{{.*}}) in (%{{.*}} = %[[C128]], {{.*}} workgroup(%[[WG:.*]] : memref<4xf32, #gpu.address_space<workgroup>>)
// CHECK: scf.for %[[ROW:.*]] = %[[BID]] to %[[C4]] step %[[C4]] {
// CHECK: vector.load %arg0[%[[ROW]], %{{.*}}] {alignment = 16 : i64}
// CHECK-COUNT-4: math.exp
// CHECK: gpu.shuffle xor
// CHECK: gpu.barrier
// CHECK: memref.store %{{.*}}, %[[WG]][%{{.*}}] : memref<4xf32, #gpu.address_space<workgroup>>
// CHECK: gpu.barrier
// CHECK: memref.load %[[WG]][%{{.*}}]
// CHECK: gpu.shuffle xor
// CHECK: %[[S:.*]] = arith.addf %{{.*}}, %[[ZERO]] : f32
// CHECK-NEXT: vector.load %arg0[%[[ROW]], %{{.*}}]
// CHECK-COUNT-4: arith.divf %{{.*}}, %[[S]] : f32
// CHECK: vector.store %{{.*}}, %arg1[%[[ROW]], %{{.*}}] {alignment = 16 : i64}
// CHECK-NOT: linalg.
// CHECK-NOT: memref.dealloc
func.func @row_group(%x: memref<4x512xf32>, %out: memref<4x512xf32>) {
  %zero = arith.constant 0.0 : f32
  %sum = memref.alloc() {alignment = 64 : i64} : memref<4xf32>
  linalg.fill ins(%zero : f32) outs(%sum : memref<4xf32>)
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]}
      ins(%x : memref<4x512xf32>) outs(%sum : memref<4xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %e = math.exp %in : f32
    %s = arith.addf %e, %acc : f32
    linalg.yield %s : f32
  }
  %v = memref.expand_shape %sum [[0, 1]] output_shape [4, 1] : memref<4xf32> into memref<4x1xf32>
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, 0)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      ins(%x, %v : memref<4x512xf32>, memref<4x1xf32>) outs(%out : memref<4x512xf32>) {
  ^bb0(%in: f32, %s: f32, %o: f32):
    %d = arith.divf %in, %s : f32
    linalg.yield %d : f32
  }
  memref.dealloc %sum : memref<4xf32>
  return
}

// -----

// Long rows (2 rows of 16384 f32: 16 chunks per thread of a 256-thread block, more than fit
// in registers): the group is still one kernel, each op a loop over the thread's chunks; the
// exp temporary goes through global memory, each thread reading back only what it wrote.
// CHECK-LABEL: func.func @long_rows
// CHECK-DAG: %[[C4096:.*]] = arith.constant 4096 : index
// CHECK-DAG: %[[C256:.*]] = arith.constant 256 : index
// CHECK: %[[E:.*]] = memref.alloc() {{.*}} : memref<2x16384xf32>
// CHECK: gpu.launch
// CHECK: scf.for %[[ROW:.*]] = %{{.*}} to
// CHECK: scf.for %[[C:.*]] = %[[TID:.*]] to %[[C4096]] step %[[C256]] {
// CHECK: math.exp
// CHECK: vector.store %{{.*}}, %[[E]][%[[ROW]], %{{.*}}]
// CHECK: scf.for %{{.*}} = %[[TID]] to %[[C4096]] step %[[C256]] iter_args
// CHECK: vector.load %[[E]][%[[ROW]], %{{.*}}]
// CHECK: gpu.barrier
// CHECK: scf.for %{{.*}} = %[[TID]] to %[[C4096]] step %[[C256]] {
// CHECK: vector.load %[[E]][%[[ROW]], %{{.*}}]
// CHECK: arith.divf
// CHECK: vector.store %{{.*}}, %arg1[%[[ROW]], %{{.*}}]
// CHECK: memref.dealloc %[[E]]
// CHECK-NOT: linalg.
func.func @long_rows(%x: memref<2x16384xf32>, %out: memref<2x16384xf32>) {
  %zero = arith.constant 0.0 : f32
  %e = memref.alloc() {alignment = 64 : i64} : memref<2x16384xf32>
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      ins(%x : memref<2x16384xf32>) outs(%e : memref<2x16384xf32>) {
  ^bb0(%in: f32, %o: f32):
    %v = math.exp %in : f32
    linalg.yield %v : f32
  }
  %sum = memref.alloc() {alignment = 64 : i64} : memref<2xf32>
  linalg.fill ins(%zero : f32) outs(%sum : memref<2xf32>)
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]}
      ins(%e : memref<2x16384xf32>) outs(%sum : memref<2xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %s = arith.addf %in, %acc : f32
    linalg.yield %s : f32
  }
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      ins(%e, %sum : memref<2x16384xf32>, memref<2xf32>) outs(%out : memref<2x16384xf32>) {
  ^bb0(%in: f32, %s: f32, %o: f32):
    %d = arith.divf %in, %s : f32
    linalg.yield %d : f32
  }
  memref.dealloc %e : memref<2x16384xf32>
  memref.dealloc %sum : memref<2xf32>
  return
}

// -----

// A row max over short rows of 10 (5 chunks of 2): a warp per row, 8 rows per block of 256,
// shuffles only (no shared memory, no barrier); lane 0 of each warp stores the row's result.
// CHECK-LABEL: func.func @short_rows
// CHECK-DAG: %[[C16:.*]] = arith.constant 16 : index
// CHECK-DAG: %[[C256:.*]] = arith.constant 256 : index
// CHECK: gpu.launch blocks({{.*}}) in (%{{.*}} = %[[C16]], {{.*}}) threads({{.*}}) in (%{{.*}} = %[[C256]], {{.*}}) {
// CHECK: vector.load %arg0[{{.*}}] {alignment = 8 : i64} : memref<128x10xf32>, vector<2xf32>
// CHECK: gpu.shuffle xor
// CHECK-NOT: gpu.barrier
// CHECK: scf.if
// CHECK: memref.store %{{.*}}, %arg1[%{{.*}}] : memref<128xf32>
func.func @short_rows(%x: memref<128x10xf32>, %out: memref<128xf32>) {
  %ninf = arith.constant 0xFF800000 : f32
  linalg.fill ins(%ninf : f32) outs(%out : memref<128xf32>)
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]}
      ins(%x : memref<128x10xf32>) outs(%out : memref<128xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %s = arith.maximumf %acc, %in : f32
    linalg.yield %s : f32
  }
  return
}

// -----

// Two adjacent elementwise ops over the same space (a bias add and its relu): one grid-stride
// kernel; the bias-added temporary that nothing else reads stays in registers.
// CHECK-LABEL: func.func @chain
// CHECK-NOT: memref.alloc
// CHECK: gpu.launch
// CHECK: vector.load %arg0
// CHECK: vector.load %arg1
// CHECK-COUNT-4: arith.addf
// CHECK-COUNT-4: arith.maximumf
// CHECK: vector.store %{{.*}}, %arg2
// CHECK-NOT: vector.store
// CHECK: gpu.terminator
// CHECK-NOT: gpu.launch
func.func @chain(%x: memref<8x64xf32>, %b: memref<64xf32>, %out: memref<8x64xf32>) {
  %zero = arith.constant 0.0 : f32
  %t = memref.alloc() {alignment = 64 : i64} : memref<8x64xf32>
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      ins(%x, %b : memref<8x64xf32>, memref<64xf32>) outs(%t : memref<8x64xf32>) {
  ^bb0(%in: f32, %bias: f32, %o: f32):
    %s = arith.addf %in, %bias : f32
    linalg.yield %s : f32
  }
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      ins(%t : memref<8x64xf32>) outs(%out : memref<8x64xf32>) {
  ^bb0(%in: f32, %o: f32):
    %r = arith.maximumf %in, %zero : f32
    linalg.yield %r : f32
  }
  memref.dealloc %t : memref<8x64xf32>
  return
}

// -----

// A full reduction of 4096 f32: 4 blocks of 256 threads (1024 chunks of 4) write one partial
// each to a temporary, then one warp combines the 4 partials in order, with the fill's value
// (folded: no fill kernel) as the start, and stores the sum.
// CHECK-LABEL: func.func @full
// CHECK-DAG: %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK: %[[P:.*]] = memref.alloc() : memref<4xf32>
// CHECK: gpu.launch {{.*}} workgroup(%[[WG:.*]] : memref<8xf32, #gpu.address_space<workgroup>>)
// CHECK: scf.for {{.*}} iter_args(%{{.*}} = %[[ZERO]]) -> (f32)
// CHECK: vector.load %arg0
// CHECK: gpu.shuffle xor
// CHECK: memref.store %{{.*}}, %[[WG]]
// CHECK: memref.store %{{.*}}, %[[P]][%{{.*}}] : memref<4xf32>
// CHECK: gpu.terminator
// CHECK: gpu.launch
// CHECK: scf.for
// CHECK: memref.load %[[P]]
// CHECK: gpu.shuffle xor
// CHECK: %[[T:.*]] = arith.addf %{{.*}}, %[[ZERO]] : f32
// CHECK: memref.store %[[T]], %arg1[] : memref<f32>
// CHECK: gpu.terminator
// CHECK: memref.dealloc %[[P]]
// CHECK-NOT: linalg.
func.func @full(%x: memref<4096xf32>, %out: memref<f32>) {
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%out : memref<f32>)
  linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> ()>], iterator_types = ["reduction"]}
      ins(%x : memref<4096xf32>) outs(%out : memref<f32>) {
  ^bb0(%in: f32, %acc: f32):
    %s = arith.addf %in, %acc : f32
    linalg.yield %s : f32
  }
  return
}

// -----

// A column max: one thread per column (one warp for 10 columns), rows in order from the fill's
// value.
// CHECK-LABEL: func.func @columns
// CHECK-DAG: %[[NINF:.*]] = arith.constant 0xFF800000 : f32
// CHECK-DAG: %[[C128:.*]] = arith.constant 128 : index
// CHECK: gpu.launch
// CHECK: scf.for %[[COL:.*]] = %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK: %[[M:.*]] = scf.for %[[ROW:.*]] = %{{.*}} to %[[C128]] step %{{.*}} iter_args(%[[ACC:.*]] = %[[NINF]]) -> (f32) {
// CHECK: %[[X:.*]] = memref.load %arg0[%[[ROW]], %[[COL]]] : memref<128x10xf32>
// CHECK: arith.maximumf %[[ACC]], %[[X]] : f32
// CHECK: memref.store %[[M]], %arg1[%[[COL]]] : memref<10xf32>
// CHECK-NOT: linalg.
func.func @columns(%x: memref<128x10xf32>, %out: memref<10xf32>) {
  %ninf = arith.constant 0xFF800000 : f32
  linalg.fill ins(%ninf : f32) outs(%out : memref<10xf32>)
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>], iterator_types = ["reduction", "parallel"]}
      ins(%x : memref<128x10xf32>) outs(%out : memref<10xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %s = arith.maximumf %acc, %in : f32
    linalg.yield %s : f32
  }
  return
}

// -----

// An argmax over the last axis (strata-lower-to-linalg's compare-and-select body): a block of
// 128 threads per row of 100; each thread scans its elements in order with the op's body from
// the row's initial (value, index), then (value, index) pairs combine by shuffles (f32 and
// i32) and shared memory: the pair the body prefers both ways, else the lower index.
// CHECK-LABEL: func.func @argmax
// CHECK: gpu.launch {{.*}} workgroup(%{{.*}} : memref<4xf32, #gpu.address_space<workgroup>>, %{{.*}} : memref<4xi32, #gpu.address_space<workgroup>>)
// CHECK: %[[V0:.*]] = memref.load %arg1[%[[ROW:.*]]] : memref<8xf32>
// CHECK: %[[I0:.*]] = memref.load %arg2[%[[ROW]]] : memref<8xi32>
// CHECK: scf.for {{.*}} iter_args(%{{.*}} = %[[V0]], %{{.*}} = %[[I0]]) -> (f32, i32)
// CHECK: arith.cmpf ogt
// CHECK: gpu.shuffle xor %{{.*}} : f32
// CHECK: gpu.shuffle xor %{{.*}} : i32
// CHECK: arith.cmpi sle
// CHECK: gpu.barrier
// CHECK: memref.store %{{.*}}, %arg1[%[[ROW]]] : memref<8xf32>
// CHECK: memref.store %{{.*}}, %arg2[%[[ROW]]] : memref<8xi32>
// CHECK-NOT: linalg.generic
func.func @argmax(%x: memref<8x100xf32>, %v: memref<8xf32>, %i: memref<8xi32>) {
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]}
      ins(%x : memref<8x100xf32>) outs(%v, %i : memref<8xf32>, memref<8xi32>) {
  ^bb0(%in: f32, %best: f32, %bi: i32):
    %j = linalg.index 1 : index
    %ji = arith.index_cast %j : index to i32
    %gt = arith.cmpf ogt, %in, %best : f32
    %nv = arith.select %gt, %in, %best : f32
    %ni = arith.select %gt, %ji, %bi : i32
    linalg.yield %nv, %ni : f32, i32
  }
  return
}

// -----

// Dynamic shapes are not taken (left for strata-gpu-map-loops).
// CHECK-LABEL: func.func @dynamic
// CHECK-NOT: gpu.launch
// CHECK: linalg.generic
func.func @dynamic(%x: memref<?xf32>, %y: memref<?xf32>) {
  linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]}
      ins(%x : memref<?xf32>) outs(%y : memref<?xf32>) {
  ^bb0(%in: f32, %o: f32):
    %n = arith.negf %in : f32
    linalg.yield %n : f32
  }
  return
}
