func.func @sort(%k: tensor<2x3xf32>, %v: tensor<2x3xi32>) {
  %0 = strata.sort(%k), dimension = 1, num_keys = 1 : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %1:2 = strata.sort(%k, %v), dimension = 0, num_keys = 1 : (tensor<2x3xf32>, tensor<2x3xi32>) -> (tensor<2x3xf32>, tensor<2x3xi32>)
  %2:3 = strata.sort(%v, %k, %k), dimension = -1, num_keys = 2 : (tensor<2x3xi32>, tensor<2x3xf32>, tensor<2x3xf32>) -> (tensor<2x3xi32>, tensor<2x3xf32>, tensor<2x3xf32>)
  return
}
