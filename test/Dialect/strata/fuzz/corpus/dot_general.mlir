func.func @dot_general(%x: tensor<2x3xf32>, %w: tensor<3x4xf32>, %a: tensor<5x2x3xf32>, %b: tensor<5x3x4xf32>, %i: tensor<2x3xi8>) {
  %0 = strata.dot_general %x, %w, batch_dims = [] x [], contracting_dims = [1] x [0] : (tensor<2x3xf32>, tensor<3x4xf32>) -> tensor<2x4xf32>
  %1 = strata.dot_general %a, %b, batch_dims = [0] x [0], contracting_dims = [2] x [1] : (tensor<5x2x3xf32>, tensor<5x3x4xf32>) -> tensor<5x2x4xf32>
  %2 = strata.dot_general %x, %x, batch_dims = [] x [], contracting_dims = [] x [] : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3x2x3xf32>
  %3 = strata.dot_general %x, %w, batch_dims = [] x [], contracting_dims = [1] x [0] {preferred_element_type = f64} : (tensor<2x3xf32>, tensor<3x4xf32>) -> tensor<2x4xf64>
  %4 = strata.dot_general %i, %i, batch_dims = [0] x [0], contracting_dims = [1] x [1] : (tensor<2x3xi8>, tensor<2x3xi8>) -> tensor<2xi8>
  return
}
