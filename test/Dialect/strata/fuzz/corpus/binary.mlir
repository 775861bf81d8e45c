func.func @binary(%x: tensor<2x3xf32>, %y: tensor<2x3xf32>, %i: tensor<2x3xi32>, %j: tensor<2x3xi32>, %p: tensor<2x3xi1>) {
  %0 = strata.add %x, %y : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  %1 = strata.sub %x, %y : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  %2 = strata.mul %x, %y : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  %3 = strata.div %x, %y : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  %4 = strata.rem %x, %y : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  %5 = strata.pow %x, %y : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  %6 = strata.max %x, %y : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  %7 = strata.min %x, %y : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  %8 = strata.atan2 %x, %y : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  %bi = strata.regularized_incomplete_beta %x, %y, %x : (tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  %na = strata.nextafter %x, %y : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  %b0 = strata.igamma %x, %y : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  %b1 = strata.igammac %x, %y : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  %b2 = strata.igamma_grad_a %x, %y : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  %b3 = strata.random_gamma_grad %x, %y : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  %b4 = strata.polygamma %x, %y : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  %b5 = strata.zeta %x, %y : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  %9 = strata.add %i, %j : (tensor<2x3xi32>, tensor<2x3xi32>) -> tensor<2x3xi32>
  %10 = strata.rem %i, %j : (tensor<2x3xi32>, tensor<2x3xi32>) -> tensor<2x3xi32>
  %11 = strata.and %i, %j : (tensor<2x3xi32>, tensor<2x3xi32>) -> tensor<2x3xi32>
  %12 = strata.or %i, %j : (tensor<2x3xi32>, tensor<2x3xi32>) -> tensor<2x3xi32>
  %13 = strata.xor %i, %j : (tensor<2x3xi32>, tensor<2x3xi32>) -> tensor<2x3xi32>
  %14 = strata.and %p, %p : (tensor<2x3xi1>, tensor<2x3xi1>) -> tensor<2x3xi1>
  return
}
