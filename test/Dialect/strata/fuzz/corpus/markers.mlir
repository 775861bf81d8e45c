func.func @markers(%x: tensor<2x3xf32>, %i: tensor<2x3xi32>) {
  %0 = strata.stop_gradient %x : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %1 = strata.stop_gradient %i : (tensor<2x3xi32>) -> tensor<2x3xi32>
  %2 = strata.checkpoint_name %x, name = "hidden" : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %3 = strata.checkpoint_name %x, name = "" : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return
}
