func.func @unary(%x: tensor<2x3xf32>, %i: tensor<2x3xi32>, %p: tensor<2x3xi1>) {
  %0 = strata.neg %x : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %1 = strata.abs %x : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %2 = strata.sign %x : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %3 = strata.floor %x : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %4 = strata.ceil %x : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %5 = strata.round %x : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %6 = strata.exp %x : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %7 = strata.log %x : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %8 = strata.log1p %x : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %9 = strata.expm1 %x : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %10 = strata.sqrt %x : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %11 = strata.rsqrt %x : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %12 = strata.sin %x : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %13 = strata.cos %x : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %14 = strata.tan %x : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %15 = strata.tanh %x : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %16 = strata.logistic %x : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %17 = strata.erf %x : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %18 = strata.erf_inv %x : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %19 = strata.is_finite %x : (tensor<2x3xf32>) -> tensor<2x3xi1>
  %20 = strata.not %i : (tensor<2x3xi32>) -> tensor<2x3xi32>
  %21 = strata.not %p : (tensor<2x3xi1>) -> tensor<2x3xi1>
  %22 = strata.integer_pow %x, y = 3 : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %23 = strata.integer_pow %i, y = 2 : (tensor<2x3xi32>) -> tensor<2x3xi32>
  %pc = strata.population_count %i : (tensor<2x3xi32>) -> tensor<2x3xi32>
  %lz = strata.clz %i : (tensor<2x3xi32>) -> tensor<2x3xi32>
  %i0 = strata.bessel_i0e %x : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %i1 = strata.bessel_i1e %x : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %u0 = strata.sinh %x : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %u1 = strata.cosh %x : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %u2 = strata.asin %x : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %u3 = strata.acos %x : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %u4 = strata.atan %x : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %u5 = strata.asinh %x : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %u6 = strata.acosh %x : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %u7 = strata.atanh %x : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %u8 = strata.cbrt %x : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %u9 = strata.exp2 %x : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %u10 = strata.erfc %x : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %u11 = strata.lgamma %x : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %u12 = strata.digamma %x : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return
}
