// strata-approximate-math checked by values: each approximated f32 op (the pass's list) over a
// sweep of its domain and its edges (signed infinities, NaN, signed zeros, subnormals, overflow
// and underflow of exp, the poles and the ends of the domain), lowered with upstream passes and
// run with mlir-runner. Each element is compared with the exact value (Python's math module in
// float64 on the f32 input, rounded once to f32): a NaN must be NaN, an infinity or a zero the
// same value, a finite value within rtol 2e-06 (about 17 ULPs) of it plus an absolute
// atol per op (1.2e-7 for sin and cos, whose results are bounded by 1; 1e-37 otherwise, so a
// subnormal result may flush to zero) plus, for sin and cos, 2^-23 |x| (an f32 argument is only
// known to that). Each op prints one flag per element: 1 where it is off.
// The first RUN line checks that the pass did approximate every op of its list (no such math op
// is left), so the values below are the approximations', not libm's (the ULP bounds over the
// whole f32 range, large sin and cos arguments included, are test/python/test_jit.py's).
// RUN: strata-opt %s -strata-approximate-math | FileCheck %s --check-prefix=IR
// RUN: strata-opt %s -strata-approximate-math \
// RUN: | mlir-opt --one-shot-bufferize="bufferize-function-boundaries" \
// RUN:     --convert-linalg-to-loops --convert-scf-to-cf --expand-strided-metadata \
// RUN:     --lower-affine --finalize-memref-to-llvm --convert-math-to-llvm \
// RUN:     --convert-math-to-libm --convert-arith-to-llvm --convert-func-to-llvm \
// RUN:     --convert-cf-to-llvm --reconcile-unrealized-casts \
// RUN: | mlir-runner -e main -entry-point-result=void \
// RUN:     -shared-libs=%mlir_lib_dir/libmlir_runner_utils.so,%mlir_lib_dir/libmlir_c_runner_utils.so \
// RUN: | FileCheck %s

// IR-NOT: math.{{(exp|expm1|log|log1p|log2|tanh|erf|atan|asin|acos|sin|cos)}}

func.func private @printMemrefI32(tensor<*xi32>)

// 1 where got is off from want: NaN for NaN, equal for an infinity, else |got - want| <=
// rtol * |want| + atol + xtol * |x|.
func.func @off(%x: f32, %g: f32, %w: f32, %rtol: f32, %atol: f32, %xtol: f32) -> i32 {
  %w_nan = arith.cmpf uno, %w, %w : f32
  %g_nan = arith.cmpf uno, %g, %g : f32
  %eq = arith.cmpf oeq, %g, %w : f32
  %d = arith.subf %g, %w : f32
  %ad = math.absf %d : f32
  %aw = math.absf %w : f32
  %r = arith.mulf %rtol, %aw : f32
  %ax = math.absf %x : f32
  %rx = arith.mulf %xtol, %ax : f32
  %r_a = arith.addf %r, %atol : f32
  %bound = arith.addf %r_a, %rx : f32
  %close = arith.cmpf ole, %ad, %bound : f32
  %num_ok = arith.ori %eq, %close : i1
  %ok = arith.select %w_nan, %g_nan, %num_ok : i1
  %true = arith.constant true
  %bad = arith.xori %ok, %true : i1
  %flag = arith.extui %bad : i1 to i32
  return %flag : i32
}

// CHECK: data =
// CHECK-NEXT: [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
// CHECK-SAME: 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]
func.func @exp(%x: tensor<32xf32>, %want: tensor<32xf32>) -> tensor<32xi32> {
  %e = tensor.empty() : tensor<32xi32>
  %0 = linalg.generic {indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>,
                                       affine_map<(i) -> (i)>], iterator_types = ["parallel"]}
      ins(%x, %want : tensor<32xf32>, tensor<32xf32>) outs(%e : tensor<32xi32>) {
  ^bb0(%a: f32, %w: f32, %o: i32):
    %g = math.exp %a : f32
    %rtol = arith.constant 2.000000e-06 : f32
    %atol = arith.constant 1.000000e-37 : f32
    %xtol = arith.constant 0.000000e+00 : f32
    %f = func.call @off(%a, %g, %w, %rtol, %atol, %xtol) : (f32, f32, f32, f32, f32, f32) -> i32
    linalg.yield %f : i32
  } -> tensor<32xi32>
  return %0 : tensor<32xi32>
}

// CHECK: data =
// CHECK-NEXT: [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
// CHECK-SAME: 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]
func.func @expm1(%x: tensor<32xf32>, %want: tensor<32xf32>) -> tensor<32xi32> {
  %e = tensor.empty() : tensor<32xi32>
  %0 = linalg.generic {indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>,
                                       affine_map<(i) -> (i)>], iterator_types = ["parallel"]}
      ins(%x, %want : tensor<32xf32>, tensor<32xf32>) outs(%e : tensor<32xi32>) {
  ^bb0(%a: f32, %w: f32, %o: i32):
    %g = math.expm1 %a : f32
    %rtol = arith.constant 2.000000e-06 : f32
    %atol = arith.constant 1.000000e-37 : f32
    %xtol = arith.constant 0.000000e+00 : f32
    %f = func.call @off(%a, %g, %w, %rtol, %atol, %xtol) : (f32, f32, f32, f32, f32, f32) -> i32
    linalg.yield %f : i32
  } -> tensor<32xi32>
  return %0 : tensor<32xi32>
}

// A subnormal input (1e-40, element 23) is scaled into the normal range first: the
// approximation alone gives log(2^-126) = -87.3365 there, want -92.1034.
// CHECK: data =
// CHECK-NEXT: [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
// CHECK-SAME: 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]
func.func @log(%x: tensor<32xf32>, %want: tensor<32xf32>) -> tensor<32xi32> {
  %e = tensor.empty() : tensor<32xi32>
  %0 = linalg.generic {indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>,
                                       affine_map<(i) -> (i)>], iterator_types = ["parallel"]}
      ins(%x, %want : tensor<32xf32>, tensor<32xf32>) outs(%e : tensor<32xi32>) {
  ^bb0(%a: f32, %w: f32, %o: i32):
    %g = math.log %a : f32
    %rtol = arith.constant 2.000000e-06 : f32
    %atol = arith.constant 1.000000e-37 : f32
    %xtol = arith.constant 0.000000e+00 : f32
    %f = func.call @off(%a, %g, %w, %rtol, %atol, %xtol) : (f32, f32, f32, f32, f32, f32) -> i32
    linalg.yield %f : i32
  } -> tensor<32xi32>
  return %0 : tensor<32xi32>
}

// CHECK: data =
// CHECK-NEXT: [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
// CHECK-SAME: 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]
func.func @log1p(%x: tensor<32xf32>, %want: tensor<32xf32>) -> tensor<32xi32> {
  %e = tensor.empty() : tensor<32xi32>
  %0 = linalg.generic {indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>,
                                       affine_map<(i) -> (i)>], iterator_types = ["parallel"]}
      ins(%x, %want : tensor<32xf32>, tensor<32xf32>) outs(%e : tensor<32xi32>) {
  ^bb0(%a: f32, %w: f32, %o: i32):
    %g = math.log1p %a : f32
    %rtol = arith.constant 2.000000e-06 : f32
    %atol = arith.constant 1.000000e-37 : f32
    %xtol = arith.constant 0.000000e+00 : f32
    %f = func.call @off(%a, %g, %w, %rtol, %atol, %xtol) : (f32, f32, f32, f32, f32, f32) -> i32
    linalg.yield %f : i32
  } -> tensor<32xi32>
  return %0 : tensor<32xi32>
}

// As log: log2(1e-40) is -132.877 (the approximation alone gives -126).
// CHECK: data =
// CHECK-NEXT: [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
// CHECK-SAME: 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]
func.func @log2(%x: tensor<32xf32>, %want: tensor<32xf32>) -> tensor<32xi32> {
  %e = tensor.empty() : tensor<32xi32>
  %0 = linalg.generic {indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>,
                                       affine_map<(i) -> (i)>], iterator_types = ["parallel"]}
      ins(%x, %want : tensor<32xf32>, tensor<32xf32>) outs(%e : tensor<32xi32>) {
  ^bb0(%a: f32, %w: f32, %o: i32):
    %g = math.log2 %a : f32
    %rtol = arith.constant 2.000000e-06 : f32
    %atol = arith.constant 1.000000e-37 : f32
    %xtol = arith.constant 0.000000e+00 : f32
    %f = func.call @off(%a, %g, %w, %rtol, %atol, %xtol) : (f32, f32, f32, f32, f32, f32) -> i32
    linalg.yield %f : i32
  } -> tensor<32xi32>
  return %0 : tensor<32xi32>
}

// CHECK: data =
// CHECK-NEXT: [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
// CHECK-SAME: 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]
func.func @tanh(%x: tensor<32xf32>, %want: tensor<32xf32>) -> tensor<32xi32> {
  %e = tensor.empty() : tensor<32xi32>
  %0 = linalg.generic {indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>,
                                       affine_map<(i) -> (i)>], iterator_types = ["parallel"]}
      ins(%x, %want : tensor<32xf32>, tensor<32xf32>) outs(%e : tensor<32xi32>) {
  ^bb0(%a: f32, %w: f32, %o: i32):
    %g = math.tanh %a : f32
    %rtol = arith.constant 2.000000e-06 : f32
    %atol = arith.constant 1.000000e-37 : f32
    %xtol = arith.constant 0.000000e+00 : f32
    %f = func.call @off(%a, %g, %w, %rtol, %atol, %xtol) : (f32, f32, f32, f32, f32, f32) -> i32
    linalg.yield %f : i32
  } -> tensor<32xi32>
  return %0 : tensor<32xi32>
}

// CHECK: data =
// CHECK-NEXT: [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
// CHECK-SAME: 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]
func.func @erf(%x: tensor<32xf32>, %want: tensor<32xf32>) -> tensor<32xi32> {
  %e = tensor.empty() : tensor<32xi32>
  %0 = linalg.generic {indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>,
                                       affine_map<(i) -> (i)>], iterator_types = ["parallel"]}
      ins(%x, %want : tensor<32xf32>, tensor<32xf32>) outs(%e : tensor<32xi32>) {
  ^bb0(%a: f32, %w: f32, %o: i32):
    %g = math.erf %a : f32
    %rtol = arith.constant 2.000000e-06 : f32
    %atol = arith.constant 1.000000e-37 : f32
    %xtol = arith.constant 0.000000e+00 : f32
    %f = func.call @off(%a, %g, %w, %rtol, %atol, %xtol) : (f32, f32, f32, f32, f32, f32) -> i32
    linalg.yield %f : i32
  } -> tensor<32xi32>
  return %0 : tensor<32xi32>
}

// CHECK: data =
// CHECK-NEXT: [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
// CHECK-SAME: 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]
func.func @sin(%x: tensor<32xf32>, %want: tensor<32xf32>) -> tensor<32xi32> {
  %e = tensor.empty() : tensor<32xi32>
  %0 = linalg.generic {indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>,
                                       affine_map<(i) -> (i)>], iterator_types = ["parallel"]}
      ins(%x, %want : tensor<32xf32>, tensor<32xf32>) outs(%e : tensor<32xi32>) {
  ^bb0(%a: f32, %w: f32, %o: i32):
    %g = math.sin %a : f32
    %rtol = arith.constant 2.000000e-06 : f32
    %atol = arith.constant 1.200000e-07 : f32
    %xtol = arith.constant 1.192093e-07 : f32
    %f = func.call @off(%a, %g, %w, %rtol, %atol, %xtol) : (f32, f32, f32, f32, f32, f32) -> i32
    linalg.yield %f : i32
  } -> tensor<32xi32>
  return %0 : tensor<32xi32>
}

// CHECK: data =
// CHECK-NEXT: [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
// CHECK-SAME: 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]
func.func @cos(%x: tensor<32xf32>, %want: tensor<32xf32>) -> tensor<32xi32> {
  %e = tensor.empty() : tensor<32xi32>
  %0 = linalg.generic {indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>,
                                       affine_map<(i) -> (i)>], iterator_types = ["parallel"]}
      ins(%x, %want : tensor<32xf32>, tensor<32xf32>) outs(%e : tensor<32xi32>) {
  ^bb0(%a: f32, %w: f32, %o: i32):
    %g = math.cos %a : f32
    %rtol = arith.constant 2.000000e-06 : f32
    %atol = arith.constant 1.200000e-07 : f32
    %xtol = arith.constant 1.192093e-07 : f32
    %f = func.call @off(%a, %g, %w, %rtol, %atol, %xtol) : (f32, f32, f32, f32, f32, f32) -> i32
    linalg.yield %f : i32
  } -> tensor<32xi32>
  return %0 : tensor<32xi32>
}

// CHECK: data =
// CHECK-NEXT: [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
// CHECK-SAME: 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]
func.func @atan(%x: tensor<32xf32>, %want: tensor<32xf32>) -> tensor<32xi32> {
  %e = tensor.empty() : tensor<32xi32>
  %0 = linalg.generic {indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>,
                                       affine_map<(i) -> (i)>], iterator_types = ["parallel"]}
      ins(%x, %want : tensor<32xf32>, tensor<32xf32>) outs(%e : tensor<32xi32>) {
  ^bb0(%a: f32, %w: f32, %o: i32):
    %g = math.atan %a : f32
    %rtol = arith.constant 2.000000e-06 : f32
    %atol = arith.constant 1.000000e-37 : f32
    %xtol = arith.constant 0.000000e+00 : f32
    %f = func.call @off(%a, %g, %w, %rtol, %atol, %xtol) : (f32, f32, f32, f32, f32, f32) -> i32
    linalg.yield %f : i32
  } -> tensor<32xi32>
  return %0 : tensor<32xi32>
}

// CHECK: data =
// CHECK-NEXT: [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
// CHECK-SAME: 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]
func.func @asin(%x: tensor<32xf32>, %want: tensor<32xf32>) -> tensor<32xi32> {
  %e = tensor.empty() : tensor<32xi32>
  %0 = linalg.generic {indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>,
                                       affine_map<(i) -> (i)>], iterator_types = ["parallel"]}
      ins(%x, %want : tensor<32xf32>, tensor<32xf32>) outs(%e : tensor<32xi32>) {
  ^bb0(%a: f32, %w: f32, %o: i32):
    %g = math.asin %a : f32
    %rtol = arith.constant 2.000000e-06 : f32
    %atol = arith.constant 1.000000e-37 : f32
    %xtol = arith.constant 0.000000e+00 : f32
    %f = func.call @off(%a, %g, %w, %rtol, %atol, %xtol) : (f32, f32, f32, f32, f32, f32) -> i32
    linalg.yield %f : i32
  } -> tensor<32xi32>
  return %0 : tensor<32xi32>
}

// CHECK: data =
// CHECK-NEXT: [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
// CHECK-SAME: 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]
func.func @acos(%x: tensor<32xf32>, %want: tensor<32xf32>) -> tensor<32xi32> {
  %e = tensor.empty() : tensor<32xi32>
  %0 = linalg.generic {indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>,
                                       affine_map<(i) -> (i)>], iterator_types = ["parallel"]}
      ins(%x, %want : tensor<32xf32>, tensor<32xf32>) outs(%e : tensor<32xi32>) {
  ^bb0(%a: f32, %w: f32, %o: i32):
    %g = math.acos %a : f32
    %rtol = arith.constant 2.000000e-06 : f32
    %atol = arith.constant 1.000000e-37 : f32
    %xtol = arith.constant 0.000000e+00 : f32
    %f = func.call @off(%a, %g, %w, %rtol, %atol, %xtol) : (f32, f32, f32, f32, f32, f32) -> i32
    linalg.yield %f : i32
  } -> tensor<32xi32>
  return %0 : tensor<32xi32>
}

func.func @main() {
  %x_exp = arith.constant dense<[-100.0, -91.45454406738281, -82.90908813476562,
      -74.36363983154297, -65.81818389892578, -57.272727966308594, -48.727272033691406,
      -40.181819915771484, -31.636363983154297, -23.090909957885742, -14.545454978942871, -6.0,
      2.545454502105713, 11.090909004211426, 19.636363983154297, 28.18181800842285,
      36.727272033691406, 45.272727966308594, 53.818180084228516, 62.3636360168457,
      70.90908813476562, 79.45454406738281, 88.0, 88.69999694824219, 88.72000122070312, 89.0,
      -103.0, -87.30000305175781, 0x7F800000, 0xFF800000, 0x7FC00000, -0.0]> : tensor<32xf32>
  %w_exp = arith.constant dense<[3.783505853677006e-44, 1.9133609491583917e-40,
      9.841028990119136e-37, 5.061526962401117e-33, 2.6033102003367154e-29,
      1.3389682503557432e-25, 6.886755197708454e-22, 3.542071755374545e-18,
      1.8218042227785905e-14, 9.37012134549775e-11, 4.81935785501264e-07, 0.0024787522852420807,
      12.749021530151367, 65572.328125, 337259744.0, 1734634766336.0, 8921781482029056.0,
      4.588766478644072e+19, 2.360144711360751e+23, 1.213900242408522e+27, 6.243465358865533e+30,
      3.2112199281383864e+34, 1.6516362661361307e+38, 3.325976864406685e+38,
      3.3931806003874245e+38, 0x7F800000, 1.401298464324817e-45, 1.2192433092680476e-38,
      0x7F800000, 0.0, 0x7FC00000, 1.0]> : tensor<32xf32>
  %exp = call @exp(%x_exp, %w_exp) : (tensor<32xf32>, tensor<32xf32>) -> tensor<32xi32>
  %U_exp = tensor.cast %exp : tensor<32xi32> to tensor<*xi32>
  call @printMemrefI32(%U_exp) : (tensor<*xi32>) -> ()
  %x_expm1 = arith.constant dense<[-20.0, -14.315789222717285, -8.631579399108887,
      -2.9473683834075928, 2.736842155456543, 8.421052932739258, 14.105262756347656,
      19.789474487304688, 25.473684310913086, 31.157894134521484, 36.842105865478516,
      42.52631759643555, 48.21052551269531, 53.894737243652344, 59.578948974609375,
      65.2631607055664, 70.9473648071289, 76.63157653808594, 82.31578826904297, 88.0,
      88.69999694824219, 9.999999974752427e-07, -9.999999974752427e-07, 0.30000001192092896,
      -0.30000001192092896, 0x7F800000, 0xFF800000, 0x7FC00000, 0.0, -0.0, 9.99994610111476e-41,
      1.0000000031710769e-30]> : tensor<32xf32>
  %w_expm1 = arith.constant dense<[-1.0, -0.9999994039535522, -0.9998216032981873,
      -0.9475224018096924, 14.438157081604004, 4540.68310546875, 1336095.375, 393060640.0,
      115632660480.0, 34017428635648.0, 1.0007446672113664e+16, 2.944049310876041e+18,
      8.66094351582782e+20, 2.5479269815675763e+23, 7.495640763539102e+25, 2.2051116264775464e+28,
      6.487076605238986e+30, 1.9084061981672735e+33, 5.614261298396049e+35,
      1.6516362661361307e+38, 3.325976864406685e+38, 1.0000004522225936e-06,
      -9.999995427278918e-07, 0.349858820438385, -0.25918179750442505, 0x7F800000, -1.0,
      0x7FC00000, 0.0, -0.0, 9.99994610111476e-41, 1.0000000031710769e-30]> : tensor<32xf32>
  %expm1 = call @expm1(%x_expm1, %w_expm1) : (tensor<32xf32>, tensor<32xf32>) -> tensor<32xi32>
  %U_expm1 = tensor.cast %expm1 : tensor<32xi32> to tensor<*xi32>
  call @printMemrefI32(%U_expm1) : (tensor<*xi32>) -> ()
  %x_log = arith.constant dense<[9.99999991097579e-38, 1.000000023742228e-33,
      1.0000000031710769e-29, 1.0000000195414814e-25, 9.999999682655225e-22, 9.99999983775159e-18,
      9.9999998245167e-14, 9.999999717180685e-10, 9.999999747378752e-06, 0.10000000149011612,
      1000.0, 10000000.0, 99999997952.0, 999999986991104.0, 9.999999980506448e+18,
      9.999999778196308e+22, 9.999999884841548e+26, 9.999999848243207e+30, 1.0000000409184788e+35,
      0.5, 2.0, 1.0, 3.3999999521443642e+38, 9.99994610111476e-41, -1.0, 0x7F800000, 0x7FC00000,
      0.0, -0.0, 0xFF800000, 1.5, 0.10000000149011612]> : tensor<32xf32>
  %w_log = arith.constant dense<[-85.19564819335938, -75.98530578613281, -66.77497100830078,
      -57.56462860107422, -48.354286193847656, -39.14394760131836, -29.93360710144043,
      -20.7232666015625, -11.512925148010254, -2.3025851249694824, 6.907755374908447,
      16.11809539794922, 25.32843589782715, 34.53877639770508, 43.749114990234375,
      52.95945739746094, 62.169795989990234, 71.38013458251953, 80.5904769897461,
      -0.6931471824645996, 0.6931471824645996, 0.0, 88.72200775146484, -92.10340881347656,
      0x7FC00000, 0x7F800000, 0x7FC00000, 0xFF800000, 0xFF800000, 0x7FC00000, 0.40546509623527527,
      -2.3025851249694824]> : tensor<32xf32>
  %log = call @log(%x_log, %w_log) : (tensor<32xf32>, tensor<32xf32>) -> tensor<32xi32>
  %U_log = tensor.cast %log : tensor<32xi32> to tensor<*xi32>
  call @printMemrefI32(%U_log) : (tensor<*xi32>) -> ()
  %x_log1p = arith.constant dense<[9.99999991097579e-38, 1.000000023742228e-32,
      1.0000000272452012e-27, 1.000000031374395e-22, 9.99999983775159e-18, 9.999999960041972e-13,
      1.0000000116860974e-07, 0.009999999776482582, 1000.0, 100000000.0, 9999999827968.0,
      9.999999843067494e+17, 9.999999778196308e+22, 9.99999944211969e+27, 9.999999944957273e+32,
      -0.5, -0.9990000128746033, -1.0, -2.0, 1.0000000116860974e-07, -1.0000000116860974e-07,
      9.99994610111476e-41, 3.3999999521443642e+38, 0x7F800000, 0x7FC00000, 0.0, -0.0, 0xFF800000,
      0.75, 2.0, 5.0, 10.0]> : tensor<32xf32>
  %w_log1p = arith.constant dense<[9.99999991097579e-38, 1.000000023742228e-32,
      1.0000000272452012e-27, 1.000000031374395e-22, 9.99999983775159e-18, 9.999999960041972e-13,
      9.999999406318238e-08, 0.00995033048093319, 6.908754825592041, 18.42068099975586,
      29.93360710144043, 41.446533203125, 52.95945739746094, 64.47238159179688, 75.98530578613281,
      -0.6931471824645996, -6.907768249511719, 0xFF800000, 0x7FC00000, 9.999999406318238e-08,
      -1.000000082740371e-07, 9.99994610111476e-41, 88.72200775146484, 0x7F800000, 0x7FC00000,
      0.0, -0.0, 0x7FC00000, 0.5596157908439636, 1.0986123085021973, 1.7917594909667969,
      2.397895336151123]> : tensor<32xf32>
  %log1p = call @log1p(%x_log1p, %w_log1p) : (tensor<32xf32>, tensor<32xf32>) -> tensor<32xi32>
  %U_log1p = tensor.cast %log1p : tensor<32xi32> to tensor<*xi32>
  call @printMemrefI32(%U_log1p) : (tensor<*xi32>) -> ()
  %x_log2 = arith.constant dense<[9.99999991097579e-38, 1.000000023742228e-33,
      1.0000000031710769e-29, 1.0000000195414814e-25, 9.999999682655225e-22, 9.99999983775159e-18,
      9.9999998245167e-14, 9.999999717180685e-10, 9.999999747378752e-06, 0.10000000149011612,
      1000.0, 10000000.0, 99999997952.0, 999999986991104.0, 9.999999980506448e+18,
      9.999999778196308e+22, 9.999999884841548e+26, 9.999999848243207e+30, 1.0000000409184788e+35,
      0.5, 2.0, 1.0, 1024.0, 9.99994610111476e-41, -1.0, 0x7F800000, 0x7FC00000, 0.0, -0.0,
      0xFF800000, 3.0, 0.10000000149011612]> : tensor<32xf32>
  %w_log2 = arith.constant dense<[-122.91133880615234, -109.62362670898438, -96.3359146118164,
      -83.04820251464844, -69.76049041748047, -56.4727783203125, -43.18506622314453,
      -29.89735221862793, -16.60964012145996, -3.321928024291992, 9.965784072875977,
      23.253496170043945, 36.54121017456055, 49.828922271728516, 63.116634368896484,
      76.40434265136719, 89.69205474853516, 102.97977447509766, 116.26748657226562, -1.0, 1.0,
      0.0, 10.0, -132.87713623046875, 0x7FC00000, 0x7F800000, 0x7FC00000, 0xFF800000, 0xFF800000,
      0x7FC00000, 1.5849624872207642, -3.321928024291992]> : tensor<32xf32>
  %log2 = call @log2(%x_log2, %w_log2) : (tensor<32xf32>, tensor<32xf32>) -> tensor<32xi32>
  %U_log2 = tensor.cast %log2 : tensor<32xi32> to tensor<*xi32>
  call @printMemrefI32(%U_log2) : (tensor<*xi32>) -> ()
  %x_tanh = arith.constant dense<[-10.0, -9.0, -8.0, -7.0, -6.0, -5.0, -4.0, -3.0, -2.0, -1.0,
      0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0, 10.0, 20.0, -20.0, 9.999999747378752e-05,
      -9.999999747378752e-05, 0x7F800000, 0xFF800000, 0x7FC00000, 0.0, -0.0, 9.99994610111476e-41,
      1.0000000031710769e-30]> : tensor<32xf32>
  %w_tanh = arith.constant dense<[-1.0, -0.9999999403953552, -0.9999997615814209,
      -0.9999983310699463, -0.9999877214431763, -0.9999092221260071, -0.9993293285369873,
      -0.9950547814369202, -0.9640275835990906, -0.7615941762924194, 0.0, 0.7615941762924194,
      0.9640275835990906, 0.9950547814369202, 0.9993293285369873, 0.9999092221260071,
      0.9999877214431763, 0.9999983310699463, 0.9999997615814209, 0.9999999403953552, 1.0, 1.0,
      -1.0, 9.999999747378752e-05, -9.999999747378752e-05, 1.0, -1.0, 0x7FC00000, 0.0, -0.0,
      9.99994610111476e-41, 1.0000000031710769e-30]> : tensor<32xf32>
  %tanh = call @tanh(%x_tanh, %w_tanh) : (tensor<32xf32>, tensor<32xf32>) -> tensor<32xi32>
  %U_tanh = tensor.cast %tanh : tensor<32xi32> to tensor<*xi32>
  call @printMemrefI32(%U_tanh) : (tensor<*xi32>) -> ()
  %x_erf = arith.constant dense<[-5.0, -4.5, -4.0, -3.5, -3.0, -2.5, -2.0, -1.5, -1.0, -0.5, 0.0,
      0.5, 1.0, 1.5, 2.0, 2.5, 3.0, 3.5, 4.0, 4.5, 5.0, 10.0, -10.0, 9.999999747378752e-05,
      -9.999999747378752e-05, 0x7F800000, 0xFF800000, 0x7FC00000, 0.0, -0.0, 9.99994610111476e-41,
      1.0000000031710769e-30]> : tensor<32xf32>
  %w_erf = arith.constant dense<[-1.0, -1.0, -1.0, -0.9999992847442627, -0.9999778866767883,
      -0.9995930194854736, -0.9953222870826721, -0.9661051630973816, -0.8427007794380188,
      -0.5204998850822449, 0.0, 0.5204998850822449, 0.8427007794380188, 0.9661051630973816,
      0.9953222870826721, 0.9995930194854736, 0.9999778866767883, 0.9999992847442627, 1.0, 1.0,
      1.0, 1.0, -1.0, 0.00011283791536698118, -0.00011283791536698118, 1.0, -1.0, 0x7FC00000, 0.0,
      -0.0, 1.1283675624282725e-40, 1.1283791266481092e-30]> : tensor<32xf32>
  %erf = call @erf(%x_erf, %w_erf) : (tensor<32xf32>, tensor<32xf32>) -> tensor<32xi32>
  %U_erf = tensor.cast %erf : tensor<32xi32> to tensor<*xi32>
  call @printMemrefI32(%U_erf) : (tensor<*xi32>) -> ()
  %x_sin = arith.constant dense<[-10.0, -9.0, -8.0, -7.0, -6.0, -5.0, -4.0, -3.0, -2.0, -1.0, 0.0,
      1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0, 10.0, 100.0, -100.0, 1000.0,
      3.1415927410125732, 0x7F800000, 0xFF800000, 0x7FC00000, 0.0, -0.0, 9.99994610111476e-41,
      1.0000000031710769e-30]> : tensor<32xf32>
  %w_sin = arith.constant dense<[0.5440211296081543, -0.41211849451065063, -0.9893582463264465,
      -0.6569865942001343, 0.279415488243103, 0.9589242935180664, 0.756802499294281,
      -0.14112000167369843, -0.9092974066734314, -0.8414709568023682, 0.0, 0.8414709568023682,
      0.9092974066734314, 0.14112000167369843, -0.756802499294281, -0.9589242935180664,
      -0.279415488243103, 0.6569865942001343, 0.9893582463264465, 0.41211849451065063,
      -0.5440211296081543, -0.5063656568527222, 0.5063656568527222, 0.8268795609474182,
      -8.742277657347586e-08, 0x7FC00000, 0x7FC00000, 0x7FC00000, 0.0, -0.0, 9.99994610111476e-41,
      1.0000000031710769e-30]> : tensor<32xf32>
  %sin = call @sin(%x_sin, %w_sin) : (tensor<32xf32>, tensor<32xf32>) -> tensor<32xi32>
  %U_sin = tensor.cast %sin : tensor<32xi32> to tensor<*xi32>
  call @printMemrefI32(%U_sin) : (tensor<*xi32>) -> ()
  %x_cos = arith.constant dense<[-10.0, -9.0, -8.0, -7.0, -6.0, -5.0, -4.0, -3.0, -2.0, -1.0, 0.0,
      1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0, 10.0, 100.0, -100.0, 1000.0,
      1.5707963705062866, 0x7F800000, 0xFF800000, 0x7FC00000, 0.0, -0.0, 9.99994610111476e-41,
      1.0000000031710769e-30]> : tensor<32xf32>
  %w_cos = arith.constant dense<[-0.83907151222229, -0.9111302495002747, -0.1455000340938568,
      0.7539022564888, 0.9601702690124512, 0.28366219997406006, -0.6536436080932617,
      -0.9899924993515015, -0.416146844625473, 0.5403022766113281, 1.0, 0.5403022766113281,
      -0.416146844625473, -0.9899924993515015, -0.6536436080932617, 0.28366219997406006,
      0.9601702690124512, 0.7539022564888, -0.1455000340938568, -0.9111302495002747,
      -0.83907151222229, 0.8623188734054565, 0.8623188734054565, 0.5623790621757507,
      -4.371138828673793e-08, 0x7FC00000, 0x7FC00000, 0x7FC00000, 1.0, 1.0, 1.0,
      1.0]> : tensor<32xf32>
  %cos = call @cos(%x_cos, %w_cos) : (tensor<32xf32>, tensor<32xf32>) -> tensor<32xi32>
  %U_cos = tensor.cast %cos : tensor<32xi32> to tensor<*xi32>
  call @printMemrefI32(%U_cos) : (tensor<*xi32>) -> ()
  %x_atan = arith.constant dense<[-50.0, -45.0, -40.0, -35.0, -30.0, -25.0, -20.0, -15.0, -10.0,
      -5.0, 0.0, 5.0, 10.0, 15.0, 20.0, 25.0, 30.0, 35.0, 40.0, 45.0, 50.0,
      1.0000000150474662e+30, -1.0000000150474662e+30, 9.999999747378752e-05,
      -9.999999747378752e-05, 0x7F800000, 0xFF800000, 0x7FC00000, 0.0, -0.0, 9.99994610111476e-41,
      1.0000000031710769e-30]> : tensor<32xf32>
  %w_atan = arith.constant dense<[-1.550799012184143, -1.5485777854919434, -1.5458015203475952,
      -1.542232632637024, -1.537475347518921, -1.5308176279067993, -1.5208379030227661,
      -1.504228115081787, -1.4711276292800903, -1.3734008073806763, 0.0, 1.3734008073806763,
      1.4711276292800903, 1.504228115081787, 1.5208379030227661, 1.5308176279067993,
      1.537475347518921, 1.542232632637024, 1.5458015203475952, 1.5485777854919434,
      1.550799012184143, 1.5707963705062866, -1.5707963705062866, 9.999999747378752e-05,
      -9.999999747378752e-05, 1.5707963705062866, -1.5707963705062866, 0x7FC00000, 0.0, -0.0,
      9.99994610111476e-41, 1.0000000031710769e-30]> : tensor<32xf32>
  %atan = call @atan(%x_atan, %w_atan) : (tensor<32xf32>, tensor<32xf32>) -> tensor<32xi32>
  %U_atan = tensor.cast %atan : tensor<32xi32> to tensor<*xi32>
  call @printMemrefI32(%U_atan) : (tensor<*xi32>) -> ()
  %x_asin = arith.constant dense<[-1.0, -0.8999999761581421, -0.800000011920929,
      -0.699999988079071, -0.6000000238418579, -0.5, -0.4000000059604645, -0.30000001192092896,
      -0.20000000298023224, -0.10000000149011612, 0.0, 0.10000000149011612, 0.20000000298023224,
      0.30000001192092896, 0.4000000059604645, 0.5, 0.6000000238418579, 0.699999988079071,
      0.800000011920929, 0.8999999761581421, 1.0, 1.0000001192092896, -1.0000001192092896,
      9.999999747378752e-05, -9.999999747378752e-05, 0x7F800000, 0xFF800000, 0x7FC00000, 0.0,
      -0.0, 9.99994610111476e-41, 0.9998999834060669]> : tensor<32xf32>
  %w_asin = arith.constant dense<[-1.5707963705062866, -1.1197694540023804, -0.9272952675819397,
      -0.7753974795341492, -0.6435011625289917, -0.5235987901687622, -0.41151684522628784,
      -0.30469265580177307, -0.20135793089866638, -0.1001674234867096, 0.0, 0.1001674234867096,
      0.20135793089866638, 0.30469265580177307, 0.41151684522628784, 0.5235987901687622,
      0.6435011625289917, 0.7753974795341492, 0.9272952675819397, 1.1197694540023804,
      1.5707963705062866, 0x7FC00000, 0x7FC00000, 9.999999747378752e-05, -9.999999747378752e-05,
      0x7FC00000, 0x7FC00000, 0x7FC00000, 0.0, -0.0, 9.99994610111476e-41,
      1.5566529035568237]> : tensor<32xf32>
  %asin = call @asin(%x_asin, %w_asin) : (tensor<32xf32>, tensor<32xf32>) -> tensor<32xi32>
  %U_asin = tensor.cast %asin : tensor<32xi32> to tensor<*xi32>
  call @printMemrefI32(%U_asin) : (tensor<*xi32>) -> ()
  %x_acos = arith.constant dense<[-1.0, -0.8999999761581421, -0.800000011920929,
      -0.699999988079071, -0.6000000238418579, -0.5, -0.4000000059604645, -0.30000001192092896,
      -0.20000000298023224, -0.10000000149011612, 0.0, 0.10000000149011612, 0.20000000298023224,
      0.30000001192092896, 0.4000000059604645, 0.5, 0.6000000238418579, 0.699999988079071,
      0.800000011920929, 0.8999999761581421, 1.0, 1.0000001192092896, -1.0000001192092896,
      9.999999747378752e-05, -9.999999747378752e-05, 0x7F800000, 0xFF800000, 0x7FC00000, 0.0,
      -0.0, 9.99994610111476e-41, 0.9998999834060669]> : tensor<32xf32>
  %w_acos = arith.constant dense<[3.1415927410125732, 2.690565824508667, 2.498091459274292,
      2.346193790435791, 2.2142975330352783, 2.094395160675049, 1.9823131561279297,
      1.8754889965057373, 1.7721542119979858, 1.6709637641906738, 1.5707963705062866,
      1.4706288576126099, 1.3694384098052979, 1.2661036252975464, 1.159279465675354,
      1.0471975803375244, 0.9272952079772949, 0.7953988313674927, 0.6435011029243469,
      0.4510268568992615, 0.0, 0x7FC00000, 0x7FC00000, 1.5706963539123535, 1.5708962678909302,
      0x7FC00000, 0x7FC00000, 0x7FC00000, 1.5707963705062866, 1.5707963705062866,
      1.5707963705062866, 0.014143426902592182]> : tensor<32xf32>
  %acos = call @acos(%x_acos, %w_acos) : (tensor<32xf32>, tensor<32xf32>) -> tensor<32xi32>
  %U_acos = tensor.cast %acos : tensor<32xi32> to tensor<*xi32>
  call @printMemrefI32(%U_acos) : (tensor<*xi32>) -> ()
  return
}
