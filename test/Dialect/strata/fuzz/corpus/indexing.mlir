func.func @indexing(%x: tensor<5x3xf32>, %idx: tensor<4x1xi32>, %u: tensor<4x3xf32>, %i2: tensor<2x2xi64>, %n: tensor<5x3xi32>, %un: tensor<2xi32>) {
  %0 = strata.gather %x, %idx, offset_dims = [1], collapsed_slice_dims = [0], start_index_map = [0], slice_sizes = [1, 3] : (tensor<5x3xf32>, tensor<4x1xi32>) -> tensor<4x3xf32>
  %1 = strata.gather %x, %i2, offset_dims = [], collapsed_slice_dims = [0, 1], start_index_map = [0, 1], slice_sizes = [1, 1] : (tensor<5x3xf32>, tensor<2x2xi64>) -> tensor<2xf32>
  %2 = strata.gather %x, %idx, offset_dims = [1, 2], collapsed_slice_dims = [], start_index_map = [1], slice_sizes = [5, 2] : (tensor<5x3xf32>, tensor<4x1xi32>) -> tensor<4x5x2xf32>
  %3 = strata.scatter %x, %idx, %u, update_window_dims = [1], inserted_window_dims = [0], scatter_dims_to_operand_dims = [0] : (tensor<5x3xf32>, tensor<4x1xi32>, tensor<4x3xf32>) -> tensor<5x3xf32>
  %4 = strata.scatter_add %x, %idx, %u, update_window_dims = [1], inserted_window_dims = [0], scatter_dims_to_operand_dims = [0] : (tensor<5x3xf32>, tensor<4x1xi32>, tensor<4x3xf32>) -> tensor<5x3xf32>
  %5 = strata.scatter_add %n, %i2, %un, update_window_dims = [], inserted_window_dims = [0, 1], scatter_dims_to_operand_dims = [0, 1] : (tensor<5x3xi32>, tensor<2x2xi64>, tensor<2xi32>) -> tensor<5x3xi32>
  return
}
