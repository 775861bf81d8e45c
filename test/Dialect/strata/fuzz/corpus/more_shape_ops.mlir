func.func @more_shape_ops(%x: tensor<2x3xf32>, %y: tensor<1x3xf32>, %z: tensor<f32>, %i: tensor<i32>, %j: tensor<i64>, %u: tensor<1x2xf32>) {
  %0 = strata.iota dimension = 1 : tensor<2x3xi32>
  %1 = strata.iota dimension = 0 : tensor<4xf32>
  %2 = strata.rev %x, dimensions = [1] : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %3 = strata.rev %x, dimensions = [] : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %4 = strata.slice %x, start = [0, 1], limit = [2, 3], strides = [1, 1] : (tensor<2x3xf32>) -> tensor<2x2xf32>
  %5 = strata.slice %x, start = [0, 0], limit = [2, 3], strides = [] : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %6 = strata.slice %x, start = [1, 0], limit = [2, 3], strides = [1, 2] : (tensor<2x3xf32>) -> tensor<1x2xf32>
  %7 = strata.dynamic_slice %x[%i, %j] : (tensor<2x3xf32>, tensor<i32>, tensor<i64>) -> tensor<1x2xf32>
  %8 = strata.dynamic_slice %z[] : (tensor<f32>) -> tensor<f32>
  %9 = strata.dynamic_update_slice %x, %u at [%i, %i] : (tensor<2x3xf32>, tensor<1x2xf32>, tensor<i32>, tensor<i32>) -> tensor<2x3xf32>
  %10 = strata.pad %x, %z, low = [0, 1], high = [1, 0], interior = [0, 1] : (tensor<2x3xf32>, tensor<f32>) -> tensor<3x6xf32>
  %11 = strata.pad %x, %z, low = [-1, 0], high = [0, -1], interior = [0, 0] : (tensor<2x3xf32>, tensor<f32>) -> tensor<1x2xf32>
  %12 = strata.concatenate(%x, %y), dimension = 0 : (tensor<2x3xf32>, tensor<1x3xf32>) -> tensor<3x3xf32>
  %13 = strata.concatenate(%x), dimension = 1 : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %14 = strata.concatenate(%x, %x, %x), dimension = 1 : (tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x9xf32>
  return
}
