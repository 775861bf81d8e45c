func.func @shape_ops(%x: tensor<2x3xf32>, %v: tensor<3xf32>, %s: tensor<f32>) {
  %0 = strata.broadcast_in_dim %v, broadcast_dimensions = [1] : (tensor<3xf32>) -> tensor<2x3xf32>
  %1 = strata.broadcast_in_dim %x, broadcast_dimensions = [0, 2] : (tensor<2x3xf32>) -> tensor<2x4x3xf32>
  %2 = strata.broadcast_in_dim %s, broadcast_dimensions = [] : (tensor<f32>) -> tensor<2x3xf32>
  %3 = strata.reshape %x : (tensor<2x3xf32>) -> tensor<6xf32>
  %4 = strata.reshape %x : (tensor<2x3xf32>) -> tensor<3x1x2xf32>
  %5 = strata.reshape %s : (tensor<f32>) -> tensor<1x1xf32>
  %6 = strata.transpose %x, permutation = [1, 0] : (tensor<2x3xf32>) -> tensor<3x2xf32>
  %7 = strata.transpose %s, permutation = [] : (tensor<f32>) -> tensor<f32>
  return
}
