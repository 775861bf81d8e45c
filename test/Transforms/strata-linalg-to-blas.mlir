// strata-linalg-to-blas: float contractions on buffers become strata_rt_gemm calls with the
// operands' strides; other linalg ops stay.
// RUN: strata-opt %s -strata-linalg-to-blas -split-input-file | FileCheck %s
// With the GPU pipeline's options: the cuBLAS callee and type codes (0 f32, 1 f64, 2 f16 and
// 3 bf16 into an f32 accumulator) instead of element bits.
// RUN: strata-opt %s -split-input-file \
// RUN:   -strata-linalg-to-blas="callee=strata_rt_cuda_gemm type-codes=1" | FileCheck %s --check-prefix=CUDA

// A plain matmul: one call, f32 (32 bits), batch 1, and the declaration is added once.
// CHECK-LABEL: func.func private @strata_rt_gemm(i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64)
// CHECK-LABEL: func.func @matmul
// CHECK-DAG: %[[BITS:.+]] = arith.constant 32 : i64
// CHECK-DAG: %[[ONE:.+]] = arith.constant 1 : i64
// CHECK: call @strata_rt_gemm(%[[BITS]], %[[ONE]],
// CHECK-NOT: linalg.matmul
// CUDA-LABEL: func.func @matmul
// CUDA-DAG: %[[T0:.+]] = arith.constant 0 : i64
// CUDA-DAG: %[[ONE:.+]] = arith.constant 1 : i64
// CUDA: call @strata_rt_cuda_gemm(%[[T0]], %[[ONE]],
// CUDA-NOT: call @strata_rt_gemm
func.func @matmul(%a: memref<4x8xf32>, %b: memref<8x16xf32>, %c: memref<4x16xf32>) {
  linalg.matmul ins(%a, %b : memref<4x8xf32>, memref<8x16xf32>) outs(%c : memref<4x16xf32>)
  return
}

// -----

// A transposed operand (a generic whose maps read b as [n, k]) needs no copy: b's row (k)
// stride is 1 and its column (n) stride 8, read from its layout. Arguments: 64 bits, batch 1,
// m 4, n 16, k 8, then a (ptr, offset, batch/row/col strides 0, 8, 1), b (0, 1, 8), c (0, 16, 1),
// then 1: accumulate into c (nothing zero-filled it just before).
// CHECK-LABEL: func.func @transposed_rhs
// CHECK-DAG: %[[C64:.+]] = arith.constant 64 : i64
// CHECK-DAG: %[[C16:.+]] = arith.constant 16 : i64
// CHECK-DAG: %[[C8:.+]] = arith.constant 8 : i64
// CHECK-DAG: %[[C4:.+]] = arith.constant 4 : i64
// CHECK-DAG: %[[C1:.+]] = arith.constant 1 : i64
// CHECK-DAG: %[[C0:.+]] = arith.constant 0 : i64
// CHECK: call @strata_rt_gemm(%[[C64]], %[[C1]], %[[C4]], %[[C16]], %[[C8]], %{{.+}}, %[[C0]], %[[C0]], %[[C8]], %[[C1]], %{{.+}}, %[[C0]], %[[C0]], %[[C1]], %[[C8]], %{{.+}}, %[[C0]], %[[C0]], %[[C16]], %[[C1]], %[[C1]])
// CHECK-NOT: linalg.generic
// CUDA-LABEL: func.func @transposed_rhs
// CUDA-DAG: %[[T1:.+]] = arith.constant 1 : i64
// CUDA-DAG: %[[C16:.+]] = arith.constant 16 : i64
// CUDA-DAG: %[[C8:.+]] = arith.constant 8 : i64
// CUDA-DAG: %[[C4:.+]] = arith.constant 4 : i64
// CUDA: call @strata_rt_cuda_gemm(%[[T1]], %[[T1]], %[[C4]], %[[C16]], %[[C8]],
#lhs = affine_map<(m, n, k) -> (m, k)>
#rhs = affine_map<(m, n, k) -> (n, k)>
#out = affine_map<(m, n, k) -> (m, n)>
func.func @transposed_rhs(%a: memref<4x8xf64>, %b: memref<16x8xf64>, %c: memref<4x16xf64>) {
  linalg.generic {indexing_maps = [#lhs, #rhs, #out],
                  iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%a, %b : memref<4x8xf64>, memref<16x8xf64>) outs(%c : memref<4x16xf64>) {
  ^bb0(%x: f64, %y: f64, %acc: f64):
    %p = arith.mulf %x, %y : f64
    %s = arith.addf %acc, %p : f64
    linalg.yield %s : f64
  }
  return
}

// -----

// A batched matmul passes the batch count and batch strides.
// CHECK-LABEL: func.func @batch
// CHECK: call @strata_rt_gemm
// CHECK-NOT: linalg.batch_matmul
func.func @batch(%a: memref<3x4x8xf32>, %b: memref<3x8x5xf32>, %c: memref<3x4x5xf32>) {
  linalg.batch_matmul ins(%a, %b : memref<3x4x8xf32>, memref<3x8x5xf32>)
                      outs(%c : memref<3x4x5xf32>)
  return
}

// -----

// Integer contractions and tensors (not yet bufferized) are left alone.
// CHECK-LABEL: func.func @not_blas
// CHECK: linalg.matmul ins(%{{.*}} : memref<4x8xi32>
// CHECK: linalg.matmul ins(%{{.*}} : tensor<4x8xf32>
// CHECK-NOT: call @strata_rt_gemm
func.func @not_blas(%a: memref<4x8xi32>, %b: memref<8x16xi32>, %c: memref<4x16xi32>,
                    %ta: tensor<4x8xf32>, %tb: tensor<8x16xf32>, %tc: tensor<4x16xf32>)
    -> tensor<4x16xf32> {
  linalg.matmul ins(%a, %b : memref<4x8xi32>, memref<8x16xi32>) outs(%c : memref<4x16xi32>)
  %r = linalg.matmul ins(%ta, %tb : tensor<4x8xf32>, tensor<8x16xf32>)
                     outs(%tc : tensor<4x16xf32>) -> tensor<4x16xf32>
  return %r : tensor<4x16xf32>
}

// -----

// vmap's unit dimension ([b, 1, k] x [k, n]) is ignored: b has no batch dimension, so this is
// one gemm with m = 128, n 16, k 8 (batch 1). The zero fill of c just before is dropped and the
// call overwrites c (last argument 0).
// CHECK-LABEL: func.func @unit_dim_and_zero_fill
// CHECK-DAG: %[[C0:.+]] = arith.constant 0 : i64
// CHECK-DAG: %[[C1:.+]] = arith.constant 1 : i64
// CHECK-DAG: %[[C8:.+]] = arith.constant 8 : i64
// CHECK-DAG: %[[C16:.+]] = arith.constant 16 : i64
// CHECK-DAG: %[[C128:.+]] = arith.constant 128 : i64
// CHECK-NOT: linalg.fill
// CHECK: call @strata_rt_gemm(%{{.+}}, %[[C1]], %[[C128]], %[[C16]], %[[C8]], {{.*}}, %[[C0]])
#a3 = affine_map<(b, u, n, k) -> (b, u, k)>
#b3 = affine_map<(b, u, n, k) -> (k, n)>
#c3 = affine_map<(b, u, n, k) -> (b, u, n)>
func.func @unit_dim_and_zero_fill(%a: memref<128x1x8xf32>, %w: memref<8x16xf32>,
                                  %c: memref<128x1x16xf32>) {
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%c : memref<128x1x16xf32>)
  linalg.generic {indexing_maps = [#a3, #b3, #c3],
                  iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%a, %w : memref<128x1x8xf32>, memref<8x16xf32>) outs(%c : memref<128x1x16xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %p = arith.mulf %x, %y : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  }
  return
}

// -----

// A fill of another value (or of another buffer) is kept, and the call accumulates.
// CHECK-LABEL: func.func @nonzero_fill_kept
// CHECK-DAG: %[[ONE:.+]] = arith.constant 1 : i64
// CHECK-DAG: linalg.fill
// CHECK: call @strata_rt_gemm({{.*}}, %[[ONE]])
func.func @nonzero_fill_kept(%a: memref<4x8xf32>, %b: memref<8x16xf32>, %c: memref<4x16xf32>) {
  %one = arith.constant 1.0 : f32
  linalg.fill ins(%one : f32) outs(%c : memref<4x16xf32>)
  linalg.matmul ins(%a, %b : memref<4x8xf32>, memref<8x16xf32>) outs(%c : memref<4x16xf32>)
  return
}

// -----

// A contraction whose body transforms an input first (acc + exp(a) * b) is not a gemm: it stays
// a generic (isaContractionOpInterface alone accepts it).
// CHECK-LABEL: func.func @not_plain_mul_add
// CHECK: linalg.generic
// CHECK: math.exp
// CHECK-NOT: call @strata_rt_gemm
#v = affine_map<(k) -> (k)>
#s = affine_map<(k) -> ()>
func.func @not_plain_mul_add(%a: memref<4xf32>, %b: memref<4xf32>, %c: memref<f32>) {
  linalg.generic {indexing_maps = [#v, #v, #s], iterator_types = ["reduction"]}
      ins(%a, %b : memref<4xf32>, memref<4xf32>) outs(%c : memref<f32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %e = math.exp %x : f32
    %p = arith.mulf %e, %y : f32
    %s = arith.addf %p, %acc : f32
    linalg.yield %s : f32
  }
  return
}

// -----

// The bf16 contraction strata-lower-to-linalg makes (extf of a and b into an f32 accumulator)
// is no gemm for the CPU's strata_rt_gemm (f32/f64 only): it stays.
// CHECK-LABEL: func.func @bf16_cpu
// CHECK: linalg.generic
// CHECK-NOT: call @strata_rt_gemm
// CUDA-LABEL: func.func private @strata_rt_cuda_gemm(i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64)
// CUDA-LABEL: func.func @bf16_cpu
// CUDA-DAG: %[[T3:.+]] = arith.constant 3 : i64
// CUDA-DAG: %[[C0:.+]] = arith.constant 0 : i64
// CUDA: call @strata_rt_cuda_gemm(%[[T3]], {{.*}}, %[[C0]])
// CUDA-NOT: linalg.fill
// CUDA-NOT: linalg.generic
#lhs16 = affine_map<(m, n, k) -> (m, k)>
#rhs16 = affine_map<(m, n, k) -> (k, n)>
#out16 = affine_map<(m, n, k) -> (m, n)>
func.func @bf16_cpu(%a: memref<4x8xbf16>, %b: memref<8x16xbf16>, %c: memref<4x16xf32>) {
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%c : memref<4x16xf32>)
  linalg.generic {indexing_maps = [#lhs16, #rhs16, #out16],
                  iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%a, %b : memref<4x8xbf16>, memref<8x16xbf16>) outs(%c : memref<4x16xf32>) {
  ^bb0(%x: bf16, %y: bf16, %acc: f32):
    %xf = arith.extf %x : bf16 to f32
    %yf = arith.extf %y : bf16 to f32
    %p = arith.mulf %xf, %yf : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  }
  return
}

// -----

// Attention's scores 'bqhd,bkhd->bhqk' with two batch dims (b, h) that no single stride spans
// in q and k: one call per b, in an scf.for, each a strided-batched gemm over h (the longer
// batch dim: 4) with m = q (3), n = k (6), k = d (5). The loop adds b's stride to each
// operand's offset (0 here, so the sum folds to the product); no operand is copied. The call
// overwrites c (its zero fill is dropped).
// CHECK-LABEL: func.func @attention_scores
// CHECK-DAG: %[[C4:.+]] = arith.constant 4 : i64
// CHECK-DAG: %[[C3:.+]] = arith.constant 3 : i64
// CHECK-DAG: %[[C6:.+]] = arith.constant 6 : i64
// CHECK-DAG: %[[C5:.+]] = arith.constant 5 : i64
// CHECK-NOT: linalg.fill
// CHECK: scf.for %[[I:.+]] = %{{.+}} to %{{.+}} step
// CHECK: %[[IV:.+]] = arith.index_cast %[[I]] : index to i64
// CHECK: %[[OFF:.+]] = arith.muli %[[IV]], %{{.+}} : i64
// CHECK: call @strata_rt_gemm(%{{.+}}, %[[C4]], %[[C3]], %[[C6]], %[[C5]], %{{.+}}, %[[OFF]],
// CHECK-NOT: linalg.generic
// CHECK-NOT: memref.copy
// On the GPU the same loop calls cuBLAS's strided-batched gemm.
// CUDA-LABEL: func.func @attention_scores
// CUDA: scf.for
// CUDA: call @strata_rt_cuda_gemm(%{{.+}}, %[[C4:.+]], %[[C3:.+]], %[[C6:.+]], %[[C5:.+]],
#q = affine_map<(b, h, i, j, d) -> (b, i, h, d)>
#k = affine_map<(b, h, i, j, d) -> (b, j, h, d)>
#s = affine_map<(b, h, i, j, d) -> (b, h, i, j)>
func.func @attention_scores(%q: memref<2x3x4x5xf32>, %k: memref<2x6x4x5xf32>,
                            %s: memref<2x4x3x6xf32>) {
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%s : memref<2x4x3x6xf32>)
  linalg.generic {indexing_maps = [#q, #k, #s],
                  iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]}
      ins(%q, %k : memref<2x3x4x5xf32>, memref<2x6x4x5xf32>) outs(%s : memref<2x4x3x6xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %p = arith.mulf %x, %y : f32
    %r = arith.addf %acc, %p : f32
    linalg.yield %r : f32
  }
  return
}

// -----

// Two contracting dims that do not merge: a loop over the first around a gemm over the last.
// The calls accumulate (last argument 1) into c, whose zero fill stays.
// CHECK-LABEL: func.func @two_contracting
// CUDA-LABEL: func.func @two_contracting
// CHECK-DAG: %[[ONE:.+]] = arith.constant 1 : i64
// CHECK: linalg.fill
// CHECK: scf.for
// CHECK: call @strata_rt_gemm({{.*}}, %[[ONE]])
// CHECK-NOT: linalg.generic
#a2 = affine_map<(m, n, k1, k2) -> (k1, k2, m)>
#b2 = affine_map<(m, n, k1, k2) -> (k2, k1, n)>
#c2 = affine_map<(m, n, k1, k2) -> (m, n)>
func.func @two_contracting(%a: memref<2x3x4xf32>, %b: memref<3x2x5xf32>, %c: memref<4x5xf32>) {
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%c : memref<4x5xf32>)
  linalg.generic {indexing_maps = [#a2, #b2, #c2],
                  iterator_types = ["parallel", "parallel", "reduction", "reduction"]}
      ins(%a, %b : memref<2x3x4xf32>, memref<3x2x5xf32>) outs(%c : memref<4x5xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %p = arith.mulf %x, %y : f32
    %r = arith.addf %acc, %p : f32
    linalg.yield %r : f32
  }
  return
}
