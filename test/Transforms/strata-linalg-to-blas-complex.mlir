// strata-linalg-to-blas on complex contractions: complex.add(acc, complex.mul(a, b)) bodies on
// complex64/complex128 buffers become strata_rt_gemm calls with the element width negated (-64,
// -128); a complex zero fill just before is dropped (BLAS overwrites c). With the GPU's type codes
// complex contractions stay loops; bodies that transform an operand first stay too.
// RUN: strata-opt %s -strata-linalg-to-blas -split-input-file | FileCheck %s
// RUN: strata-opt %s -split-input-file \
// RUN:   -strata-linalg-to-blas="callee=strata_rt_cuda_gemm type-codes=1" | FileCheck %s --check-prefix=CUDA

// A complex64 matmul [4, 8] x [8, 16], zero-filled by complex.create(0.0, 0.0) just before.
// CHECK-LABEL: func.func @c64_matmul
// CHECK-DAG: %[[BITS:.+]] = arith.constant -64 : i64
// CHECK-DAG: %[[C0:.+]] = arith.constant 0 : i64
// CHECK-DAG: %[[C1:.+]] = arith.constant 1 : i64
// CHECK-NOT: linalg.fill
// CHECK: call @strata_rt_gemm(%[[BITS]], %[[C1]], {{.*}}, %[[C0]]) :
// CHECK-NOT: linalg.generic
// CUDA-LABEL: func.func @c64_matmul
// CUDA: linalg.fill
// CUDA: linalg.generic
// CUDA-NOT: call
#mk = affine_map<(m, n, k) -> (m, k)>
#kn = affine_map<(m, n, k) -> (k, n)>
#mn = affine_map<(m, n, k) -> (m, n)>
func.func @c64_matmul(%a: memref<4x8xcomplex<f32>>, %b: memref<8x16xcomplex<f32>>,
                      %c: memref<4x16xcomplex<f32>>) {
  %z = arith.constant 0.0 : f32
  %zero = complex.create %z, %z : complex<f32>
  linalg.fill ins(%zero : complex<f32>) outs(%c : memref<4x16xcomplex<f32>>)
  linalg.generic {indexing_maps = [#mk, #kn, #mn],
                  iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%a, %b : memref<4x8xcomplex<f32>>, memref<8x16xcomplex<f32>>)
      outs(%c : memref<4x16xcomplex<f32>>) {
  ^bb0(%x: complex<f32>, %y: complex<f32>, %acc: complex<f32>):
    %p = complex.mul %x, %y : complex<f32>
    %s = complex.add %acc, %p : complex<f32>
    linalg.yield %s : complex<f32>
  }
  return
}

// -----

// complex128 with b read transposed ([n, k]): strides from the layout, no copy; without a fill
// just before, the call accumulates (last argument 1).
// CHECK-LABEL: func.func @c128_transposed
// CHECK-DAG: %[[BITS:.+]] = arith.constant -128 : i64
// CHECK-DAG: %[[C1:.+]] = arith.constant 1 : i64
// CHECK: call @strata_rt_gemm(%[[BITS]], %[[C1]], {{.*}}, %[[C1]]) :
// CHECK-NOT: linalg.generic
#mk2 = affine_map<(m, n, k) -> (m, k)>
#nk2 = affine_map<(m, n, k) -> (n, k)>
#mn2 = affine_map<(m, n, k) -> (m, n)>
func.func @c128_transposed(%a: memref<3x5xcomplex<f64>>, %b: memref<2x5xcomplex<f64>>,
                           %c: memref<3x2xcomplex<f64>>) {
  linalg.generic {indexing_maps = [#mk2, #nk2, #mn2],
                  iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%a, %b : memref<3x5xcomplex<f64>>, memref<2x5xcomplex<f64>>)
      outs(%c : memref<3x2xcomplex<f64>>) {
  ^bb0(%x: complex<f64>, %y: complex<f64>, %acc: complex<f64>):
    %p = complex.mul %y, %x : complex<f64>
    %s = complex.add %p, %acc : complex<f64>
    linalg.yield %s : complex<f64>
  }
  return
}

// -----

// A body that conjugates an operand first is no plain mul-add: it stays.
// CHECK-LABEL: func.func @conj_operand
// CHECK: linalg.generic
// CHECK-NOT: call @strata_rt_gemm
#mk3 = affine_map<(m, n, k) -> (m, k)>
#kn3 = affine_map<(m, n, k) -> (k, n)>
#mn3 = affine_map<(m, n, k) -> (m, n)>
func.func @conj_operand(%a: memref<4x8xcomplex<f32>>, %b: memref<8x16xcomplex<f32>>,
                        %c: memref<4x16xcomplex<f32>>) {
  linalg.generic {indexing_maps = [#mk3, #kn3, #mn3],
                  iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%a, %b : memref<4x8xcomplex<f32>>, memref<8x16xcomplex<f32>>)
      outs(%c : memref<4x16xcomplex<f32>>) {
  ^bb0(%x: complex<f32>, %y: complex<f32>, %acc: complex<f32>):
    %xc = complex.conj %x : complex<f32>
    %p = complex.mul %xc, %y : complex<f32>
    %s = complex.add %acc, %p : complex<f32>
    linalg.yield %s : complex<f32>
  }
  return
}
