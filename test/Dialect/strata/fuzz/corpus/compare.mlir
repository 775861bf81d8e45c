func.func @compare(%x: tensor<2x3xf32>, %y: tensor<2x3xf32>, %u: tensor<4xui32>) {
  %0 = strata.eq %x, %y : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xi1>
  %1 = strata.ne %x, %y : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xi1>
  %2 = strata.lt %x, %y : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xi1>
  %3 = strata.le %x, %y : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xi1>
  %4 = strata.gt %x, %y : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xi1>
  %5 = strata.ge %x, %y : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xi1>
  %6 = strata.lt %u, %u : (tensor<4xui32>, tensor<4xui32>) -> tensor<4xi1>
  return
}
