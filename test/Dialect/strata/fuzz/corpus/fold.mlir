func.func @fold(%x: tensor<2x3xf32>, %v: tensor<3xf32>) -> (tensor<3x2xf32>, tensor<2x3xf32>, tensor<4x2x3xf32>) {
  %c = arith.constant dense<[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]> : tensor<2x3xf32>
  %one = arith.constant dense<1.0> : tensor<2x3xf32>
  %nz = arith.constant dense<-0.0> : tensor<2x3xf32>
  %i = arith.constant dense<[7, -8]> : tensor<2xi32>
  %0 = strata.reshape %x : (tensor<2x3xf32>) -> tensor<6xf32>
  %1 = strata.reshape %0 : (tensor<6xf32>) -> tensor<3x2xf32>
  %2 = strata.transpose %1, permutation = [1, 0] : (tensor<3x2xf32>) -> tensor<2x3xf32>
  %3 = strata.transpose %2, permutation = [1, 0] : (tensor<2x3xf32>) -> tensor<3x2xf32>
  %4 = strata.mul %c, %one : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  %5 = strata.add %4, %nz : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  %6 = strata.sub %5, %x : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  %7 = strata.neg %6 : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %8 = strata.convert_element_type %i : (tensor<2xi32>) -> tensor<2xf64>
  %9 = strata.broadcast_in_dim %v, broadcast_dimensions = [1] : (tensor<3xf32>) -> tensor<2x3xf32>
  %10 = strata.broadcast_in_dim %9, broadcast_dimensions = [1, 2] : (tensor<2x3xf32>) -> tensor<4x2x3xf32>
  return %3, %7, %10 : tensor<3x2xf32>, tensor<2x3xf32>, tensor<4x2x3xf32>
}
