func.func @bad_attrs(%x: tensor<2x3xf32>, %p: tensor<?x3xf32>, %u: tensor<*xf32>) {
  %0 = strata.reduce_sum %x, axes = [5, -1, 0, 0] : (tensor<2x3xf32>) -> tensor<f32>
  return
}

// -----

func.func @bad_attrs(%x: tensor<2x3xf32>, %p: tensor<?x3xf32>, %u: tensor<*xf32>) {
  %1 = strata.cumsum %x, axis = -7, reverse = true : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return
}

// -----

func.func @bad_attrs(%x: tensor<2x3xf32>, %p: tensor<?x3xf32>, %u: tensor<*xf32>) {
  %2 = strata.slice %x, start = [0, 0], limit = [3, 9], strides = [0, -1] : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return
}

// -----

func.func @bad_attrs(%x: tensor<2x3xf32>, %p: tensor<?x3xf32>, %u: tensor<*xf32>) {
  %3 = strata.integer_pow %x, y = -9223372036854775808 : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return
}

// -----

func.func @bad_attrs(%x: tensor<2x3xf32>, %p: tensor<?x3xf32>, %u: tensor<*xf32>) {
  %4 = strata.add %p, %p : (tensor<?x3xf32>, tensor<?x3xf32>) -> tensor<?x3xf32>
  return
}

// -----

func.func @bad_attrs(%x: tensor<2x3xf32>, %p: tensor<?x3xf32>, %u: tensor<*xf32>) {
  %5 = strata.neg %x {permutation = [1, 0], axes = "x"} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return
}

// -----

func.func @bad_attrs(%x: tensor<2x3xf32>, %p: tensor<?x3xf32>, %u: tensor<*xf32>) {
  %6 = "strata.transpose"(%x) {permutation = 3 : i64} : (tensor<2x3xf32>) -> tensor<3x2xf32>
  return
}

// -----

func.func @bad_attrs(%x: tensor<2x3xf32>, %p: tensor<?x3xf32>, %u: tensor<*xf32>) {
  %7 = "strata.reduce_max"(%x) {axes = array<i32: 0>} : (tensor<2x3xf32>) -> tensor<3xf32>
  return
}

// -----

func.func @bad_attrs(%x: tensor<2x3xf32>, %p: tensor<?x3xf32>, %u: tensor<*xf32>) {
  %8 = "strata.argmax"(%x) : (tensor<2x3xf32>) -> tensor<3xi32>
  return
}

// -----

func.func @bad_attrs(%x: tensor<2x3xf32>, %p: tensor<?x3xf32>, %u: tensor<*xf32>) {
  %9 = "strata.concatenate"() {dimension = 0 : i64} : () -> tensor<0xf32>
  return
}

// -----

func.func @bad_attrs(%x: tensor<2x3xf32>, %p: tensor<?x3xf32>, %u: tensor<*xf32>) {
  %10 = "strata.dynamic_slice"(%x) {slice_sizes = array<i64: 1, 1>} : (tensor<2x3xf32>) -> tensor<1x1xf32>
  return
}

// -----

func.func @bad_attrs(%x: tensor<2x3xf32>, %p: tensor<?x3xf32>, %u: tensor<*xf32>) {
  %11 = strata.exp %x : (tensor<2x3xf32>) -> tensor<2x3xcomplex<f32>>
  return
}

// -----

func.func @bad_attrs(%x: tensor<2x3xf32>, %p: tensor<?x3xf32>, %u: tensor<*xf32>) {
  %12 = "strata.sort"(%x) {dimension = 9 : i64, num_keys = 0 : i64} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return
}
