// Runs interchanged loops on the CPU: strata-lower-to-linalg, canonicalize and
// strata-interchange-elementwise-loops (which only the GPU pipeline runs), then bufferized and
// lowered to LLVM with upstream passes and executed with mlir-runner. The expected values are
// worked out by hand (all exact in f32); the same program without the interchange gives them too
// (the IR check below shows the interchange happened).
// RUN: strata-opt --strata-lower-to-linalg --strata-lower-control-flow --canonicalize --strata-interchange-elementwise-loops %s \
// RUN: | FileCheck %s --check-prefix=IR
// RUN: strata-opt --strata-lower-to-linalg --strata-lower-control-flow --canonicalize --strata-interchange-elementwise-loops %s \
// RUN: | mlir-opt --one-shot-bufferize="bufferize-function-boundaries" \
// RUN:     --convert-linalg-to-loops --convert-scf-to-cf --expand-strided-metadata \
// RUN:     --lower-affine --finalize-memref-to-llvm --convert-math-to-llvm \
// RUN:     --convert-math-to-libm --convert-arith-to-llvm --convert-func-to-llvm \
// RUN:     --convert-cf-to-llvm --reconcile-unrealized-casts \
// RUN: | mlir-runner -e main -entry-point-result=void \
// RUN:     -shared-libs=%mlir_lib_dir/libmlir_runner_utils.so,%mlir_lib_dir/libmlir_c_runner_utils.so \
// RUN: | FileCheck %s
// RUN: strata-opt --strata-lower-to-linalg --strata-lower-control-flow --canonicalize %s \
// RUN: | mlir-opt --one-shot-bufferize="bufferize-function-boundaries" \
// RUN:     --convert-linalg-to-loops --convert-scf-to-cf --expand-strided-metadata \
// RUN:     --lower-affine --finalize-memref-to-llvm --convert-math-to-llvm \
// RUN:     --convert-math-to-libm --convert-arith-to-llvm --convert-func-to-llvm \
// RUN:     --convert-cf-to-llvm --reconcile-unrealized-casts \
// RUN: | mlir-runner -e main -entry-point-result=void \
// RUN:     -shared-libs=%mlir_lib_dir/libmlir_runner_utils.so,%mlir_lib_dir/libmlir_c_runner_utils.so \
// RUN: | FileCheck %s

// Both loops became one generic each whose body runs the steps (no loop carries a tensor).
// IR-LABEL: func.func @affine
// IR-NOT: scf.for {{.*}} -> (tensor
// IR: linalg.generic
// IR: scf.for {{.*}} -> (f32)
// IR-LABEL: func.func @reverse_xs
// IR-NOT: scf.for {{.*}} -> (tensor
// IR: linalg.generic
// IR: scf.for {{.*}} -> (f32)

func.func private @printMemrefF32(tensor<*xf32>)

// x <- x * 0.5 + 1, three times, from [0, 2, 4, 8].
func.func @affine(%x: tensor<4xf32>) -> tensor<4xf32> {
  %half = arith.constant dense<0.5> : tensor<4xf32>
  %one = arith.constant dense<1.0> : tensor<4xf32>
  %r = strata.scan init(%x) xs() length = 3, reverse = false : (tensor<4xf32>) -> tensor<4xf32> {
  ^bb0(%h: tensor<4xf32>):
    %m = strata.mul %h, %half : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    %a = strata.add %m, %one : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    strata.yield %a : tensor<4xf32>
  }
  return %r : tensor<4xf32>
}

// h <- h * 2 + xs[t] for t = 2, 1, 0 (reverse), from [0, 0, 0, 1].
func.func @reverse_xs(%x: tensor<4xf32>, %xs: tensor<3x4xf32>) -> tensor<4xf32> {
  %two = arith.constant dense<2.0> : tensor<4xf32>
  %r = strata.scan init(%x) xs(%xs) length = 3, reverse = true : (tensor<4xf32>, tensor<3x4xf32>) -> tensor<4xf32> {
  ^bb0(%h: tensor<4xf32>, %row: tensor<4xf32>):
    %m = strata.mul %h, %two : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    %a = strata.add %m, %row : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    strata.yield %a : tensor<4xf32>
  }
  return %r : tensor<4xf32>
}

// CHECK: data =
// CHECK-NEXT: [1.75,  2,  2.25,  2.75]
// CHECK: data =
// CHECK-NEXT: [5,  8,  7,  18]
func.func @main() {
  %x = arith.constant dense<[0.0, 2.0, 4.0, 8.0]> : tensor<4xf32>
  %a = call @affine(%x) : (tensor<4xf32>) -> tensor<4xf32>
  %y = arith.constant dense<[0.0, 0.0, 0.0, 1.0]> : tensor<4xf32>
  %xs = arith.constant dense<[[1.0, 2.0, 3.0, 4.0], [0.0, 1.0, 0.0, 1.0], [1.0, 1.0, 1.0, 1.0]]> : tensor<3x4xf32>
  %b = call @reverse_xs(%y, %xs) : (tensor<4xf32>, tensor<3x4xf32>) -> tensor<4xf32>
  %ua = tensor.cast %a : tensor<4xf32> to tensor<*xf32>
  %ub = tensor.cast %b : tensor<4xf32> to tensor<*xf32>
  call @printMemrefF32(%ua) : (tensor<*xf32>) -> ()
  call @printMemrefF32(%ub) : (tensor<*xf32>) -> ()
  return
}
