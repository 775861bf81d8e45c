func.func @scans(%x: tensor<2x3xf32>, %i: tensor<2x3xi32>, %p: tensor<2x3xi1>) {
  %0 = strata.argmax %x, axis = 1 : (tensor<2x3xf32>) -> tensor<2xi32>
  %1 = strata.argmax %i, axis = -2 : (tensor<2x3xi32>) -> tensor<3xi64>
  %2 = strata.argmin %x, axis = 0 : (tensor<2x3xf32>) -> tensor<3xi64>
  %3 = strata.cumsum %x, axis = 1, reverse = false : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %4 = strata.cumsum %i, axis = -1, reverse = true : (tensor<2x3xi32>) -> tensor<2x3xi32>
  %5 = strata.cumprod %x, axis = 0, reverse = true : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %6 = strata.cummax %x, axis = 1, reverse = false : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %7 = strata.cummin %p, axis = 1, reverse = false : (tensor<2x3xi1>) -> tensor<2x3xi1>
  return
}
