func.func @h(%x: tensor<9223372036854775807x2xf32>) -> (tensor<9223372036854775807x2xf32>, tensor<9223372036854775807x2xf32>) {
  %c = arith.constant dense<1.0> : tensor<9223372036854775807x2xf32>
  %v = arith.constant dense<2.0> : tensor<2xf32>
  %0 = strata.mul %x, %c : (tensor<9223372036854775807x2xf32>, tensor<9223372036854775807x2xf32>) -> tensor<9223372036854775807x2xf32>
  %1 = strata.broadcast_in_dim %v, broadcast_dimensions = [1] : (tensor<2xf32>) -> tensor<9223372036854775807x2xf32>
  %2 = strata.add %1, %1 : (tensor<9223372036854775807x2xf32>, tensor<9223372036854775807x2xf32>) -> tensor<9223372036854775807x2xf32>
  return %0, %2 : tensor<9223372036854775807x2xf32>, tensor<9223372036854775807x2xf32>
}
