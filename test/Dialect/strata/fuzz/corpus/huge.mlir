func.func @huge(%x: tensor<9223372036854775807x2xf32>, %y: tensor<4294967296x4294967296xf32>) {
  %0 = strata.add %x, %x : (tensor<9223372036854775807x2xf32>, tensor<9223372036854775807x2xf32>) -> tensor<9223372036854775807x2xf32>
  return
}

// -----

func.func @huge(%x: tensor<9223372036854775807x2xf32>, %y: tensor<4294967296x4294967296xf32>) {
  %1 = strata.reshape %y : (tensor<4294967296x4294967296xf32>) -> tensor<4294967296x4294967296xf32>
  return
}

// -----

func.func @huge(%x: tensor<9223372036854775807x2xf32>, %y: tensor<4294967296x4294967296xf32>) {
  %2 = strata.iota dimension = 9223372036854775807 : tensor<9223372036854775807xi32>
  return
}

// -----

func.func @huge(%x: tensor<9223372036854775807x2xf32>, %y: tensor<4294967296x4294967296xf32>) {
  %3 = strata.transpose %x, permutation = [1, -9223372036854775808] : (tensor<9223372036854775807x2xf32>) -> tensor<2x9223372036854775807xf32>
  return
}

// -----

func.func @huge(%x: tensor<9223372036854775807x2xf32>, %y: tensor<4294967296x4294967296xf32>) {
  %4 = strata.broadcast_in_dim %x, broadcast_dimensions = [0, 9223372036854775807] : (tensor<9223372036854775807x2xf32>) -> tensor<9223372036854775807x2xf32>
  return
}
