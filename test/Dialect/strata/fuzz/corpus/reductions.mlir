func.func @reductions(%x: tensor<2x3xf32>, %i: tensor<2x3xi32>, %p: tensor<2x3xi1>) {
  %0 = strata.reduce_sum %x, axes = [1] : (tensor<2x3xf32>) -> tensor<2xf32>
  %1 = strata.reduce_max %x, axes = [0, 1] : (tensor<2x3xf32>) -> tensor<f32>
  %2 = strata.reduce_min %x, axes = [] : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %3 = strata.reduce_prod %i, axes = [0] : (tensor<2x3xi32>) -> tensor<3xi32>
  %4 = strata.reduce_max %p, axes = [1] : (tensor<2x3xi1>) -> tensor<2xi1>
  return
}
