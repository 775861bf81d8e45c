// RUN: strata-opt %s -strata-interchange-elementwise-loops -split-input-file | FileCheck %s

#id = affine_map<(d0) -> (d0)>

// One carry updated in place (x * 0.99 + 0.01): one generic over the carry whose body runs the
// 1000 steps on a scalar.
// CHECK-LABEL: func.func @one_carry
// CHECK-SAME: (%[[X:.*]]: tensor<1024xf32>)
// CHECK-NOT: scf.for {{.*}} -> (tensor
// CHECK: %[[E:.*]] = tensor.empty() : tensor<1024xf32>
// CHECK: %[[R:.*]] = linalg.generic {{.*}} ins(%[[X]] : tensor<1024xf32>) outs(%[[E]] : tensor<1024xf32>)
// CHECK-NEXT: ^bb0(%[[IN:.*]]: f32, %{{.*}}: f32):
// CHECK: %[[S:.*]] = scf.for %{{.*}} = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%[[V:.*]] = %[[IN]]) -> (f32) {
// CHECK: %[[M:.*]] = arith.mulf %[[V]], %{{.*}} : f32
// CHECK-NEXT: %[[A:.*]] = arith.addf %[[M]], %{{.*}} : f32
// CHECK-NEXT: scf.yield %[[A]] : f32
// CHECK: linalg.yield %[[S]] : f32
// CHECK: return %[[R]]
func.func @one_carry(%x: tensor<1024xf32>) -> tensor<1024xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c1000 = arith.constant 1000 : index
  %r = scf.for %i = %c0 to %c1000 step %c1 iter_args(%v = %x) -> (tensor<1024xf32>) {
    %n = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
        ins(%v : tensor<1024xf32>) outs(%v : tensor<1024xf32>) {
    ^bb0(%in: f32, %out: f32):
      %a = arith.constant 0.99 : f32
      %b = arith.constant 0.01 : f32
      %m = arith.mulf %in, %a : f32
      %s = arith.addf %m, %b : f32
      linalg.yield %s : f32
    } -> tensor<1024xf32>
    scf.yield %n : tensor<1024xf32>
  }
  return %r : tensor<1024xf32>
}

// -----

#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d1)>

// Two carries of different element types (a float and an int counter per element), a
// loop-invariant broadcast row read through its map, next values copied into the carries:
// both carries are scalar iter_args, the row an input of the new generic.
// CHECK-LABEL: func.func @two_carries
// CHECK-SAME: (%[[X:.*]]: tensor<2x8xf32>, %[[K:.*]]: tensor<2x8xi32>, %[[W:.*]]: tensor<8xf32>)
// CHECK: %[[R:.*]]:2 = linalg.generic {{.*}} ins(%[[X]], %[[K]], %[[W]] : tensor<2x8xf32>, tensor<2x8xi32>, tensor<8xf32>)
// CHECK-NEXT: ^bb0(%[[A:.*]]: f32, %[[B:.*]]: i32, %[[C:.*]]: f32, %{{.*}}: f32, %{{.*}}: i32):
// CHECK: %[[S:.*]]:2 = scf.for {{.*}} iter_args(%[[V:.*]] = %[[A]], %[[N:.*]] = %[[B]]) -> (f32, i32) {
// CHECK: %[[M:.*]] = arith.mulf %[[V]], %[[C]] : f32
// CHECK: %[[I:.*]] = arith.addi %[[N]], %{{.*}} : i32
// CHECK: scf.yield %[[M]], %[[I]] : f32, i32
// CHECK: linalg.yield %[[S]]#0, %[[S]]#1 : f32, i32
// CHECK: return %[[R]]#0, %[[R]]#1
func.func @two_carries(%x: tensor<2x8xf32>, %k: tensor<2x8xi32>, %w: tensor<8xf32>) -> (tensor<2x8xf32>, tensor<2x8xi32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c5 = arith.constant 5 : index
  %r:2 = scf.for %i = %c0 to %c5 step %c1 iter_args(%v = %x, %n = %k) -> (tensor<2x8xf32>, tensor<2x8xi32>) {
    %e = tensor.empty() : tensor<2x8xf32>
    %m = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]}
        ins(%v, %w : tensor<2x8xf32>, tensor<8xf32>) outs(%e : tensor<2x8xf32>) {
    ^bb0(%a: f32, %b: f32, %out: f32):
      %p = arith.mulf %a, %b : f32
      linalg.yield %p : f32
    } -> tensor<2x8xf32>
    %ei = tensor.empty() : tensor<2x8xi32>
    %ni = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
        ins(%n : tensor<2x8xi32>) outs(%ei : tensor<2x8xi32>) {
    ^bb0(%a: i32, %out: i32):
      %one = arith.constant 1 : i32
      %p = arith.addi %a, %one : i32
      linalg.yield %p : i32
    } -> tensor<2x8xi32>
    %cv = linalg.copy ins(%m : tensor<2x8xf32>) outs(%v : tensor<2x8xf32>) -> tensor<2x8xf32>
    %cn = linalg.copy ins(%ni : tensor<2x8xi32>) outs(%n : tensor<2x8xi32>) -> tensor<2x8xi32>
    scf.yield %cv, %cn : tensor<2x8xf32>, tensor<2x8xi32>
  }
  return %r#0, %r#1 : tensor<2x8xf32>, tensor<2x8xi32>
}

// -----

#id = affine_map<(d0) -> (d0)>
#scalar = affine_map<(d0) -> ()>
#step = affine_map<() -> ()>

// The induction variable in the body: a fori_loop's index (a 0-d slice of the iota xs at a
// reversed step, converted by a 0-d generic once per step) and a [steps, n] xs read at
// [step, element]: both are read with tensor.extract in the step loop (the element's index
// from linalg.index outside it), the 0-d generic's body computed there too.
// CHECK-LABEL: func.func @induction_variable
// CHECK-SAME: (%[[X:.*]]: tensor<4xf32>, %[[IS:.*]]: tensor<6xi32>, %[[XS:.*]]: tensor<6x4xf32>)
// CHECK: linalg.generic {{.*}} ins(%[[X]] : tensor<4xf32>)
// CHECK: %[[J:.*]] = linalg.index 0 : index
// CHECK: scf.for %[[I:.*]] = {{.*}} iter_args(%[[V:.*]] = %{{.*}}) -> (f32) {
// CHECK: %[[T:.*]] = arith.subi %{{.*}}, %[[I]] : index
// CHECK: %[[K:.*]] = tensor.extract %[[IS]][%[[T]]] : tensor<6xi32>
// CHECK: %[[F:.*]] = arith.sitofp %[[K]] : i32 to f32
// CHECK: %[[Y:.*]] = tensor.extract %[[XS]][%[[T]], %[[J]]] : tensor<6x4xf32>
// CHECK: %[[P:.*]] = arith.addf %[[V]], %[[F]] : f32
// CHECK: %[[Q:.*]] = arith.mulf %[[P]], %[[Y]] : f32
// CHECK: scf.yield %[[Q]] : f32
func.func @induction_variable(%x: tensor<4xf32>, %is: tensor<6xi32>, %xs: tensor<6x4xf32>) -> tensor<4xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c5 = arith.constant 5 : index
  %c6 = arith.constant 6 : index
  %r = scf.for %i = %c0 to %c6 step %c1 iter_args(%v = %x) -> (tensor<4xf32>) {
    %t = arith.subi %c5, %i : index
    %k = tensor.extract_slice %is[%t] [1] [1] : tensor<6xi32> to tensor<i32>
    %e = tensor.empty() : tensor<f32>
    %kf = linalg.generic {indexing_maps = [#step, #step], iterator_types = []}
        ins(%k : tensor<i32>) outs(%e : tensor<f32>) {
    ^bb0(%a: i32, %out: f32):
      %f = arith.sitofp %a : i32 to f32
      linalg.yield %f : f32
    } -> tensor<f32>
    %y = tensor.extract_slice %xs[%t, 0] [1, 4] [1, 1] : tensor<6x4xf32> to tensor<4xf32>
    %n = linalg.generic {indexing_maps = [#id, #scalar, #id, #id], iterator_types = ["parallel"]}
        ins(%v, %kf, %y : tensor<4xf32>, tensor<f32>, tensor<4xf32>) outs(%v : tensor<4xf32>) {
    ^bb0(%a: f32, %b: f32, %c: f32, %out: f32):
      %p = arith.addf %a, %b : f32
      %q = arith.mulf %p, %c : f32
      linalg.yield %q : f32
    } -> tensor<4xf32>
    scf.yield %n : tensor<4xf32>
  }
  return %r : tensor<4xf32>
}

// -----

#id = affine_map<(d0) -> (d0)>

// A dynamic trip count, and the element's index used by the body: the step loop keeps the
// bounds, linalg.index comes from the new generic.
// CHECK-LABEL: func.func @dynamic_trip_count
// CHECK-SAME: (%[[X:.*]]: tensor<16xi32>, %[[LB:.*]]: index, %[[UB:.*]]: index)
// CHECK: linalg.generic
// CHECK: %[[J:.*]] = linalg.index 0 : index
// CHECK: scf.for %{{.*}} = %[[LB]] to %[[UB]] step %{{.*}} iter_args(%[[V:.*]] = %{{.*}}) -> (i32) {
// CHECK: %[[C:.*]] = arith.index_cast %[[J]] : index to i32
// CHECK: %[[A:.*]] = arith.addi %[[V]], %[[C]] : i32
// CHECK: scf.yield %[[A]] : i32
func.func @dynamic_trip_count(%x: tensor<16xi32>, %lb: index, %ub: index) -> tensor<16xi32> {
  %c1 = arith.constant 1 : index
  %r = scf.for %i = %lb to %ub step %c1 iter_args(%v = %x) -> (tensor<16xi32>) {
    %n = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
        ins(%v : tensor<16xi32>) outs(%v : tensor<16xi32>) {
    ^bb0(%a: i32, %out: i32):
      %j = linalg.index 0 : index
      %c = arith.index_cast %j : index to i32
      %s = arith.addi %a, %c : i32
      linalg.yield %s : i32
    } -> tensor<16xi32>
    scf.yield %n : tensor<16xi32>
  }
  return %r : tensor<16xi32>
}

// -----

#id = affine_map<(d0) -> (d0)>
#all = affine_map<(d0) -> ()>

// Not taken: a reduction in the body (each step needs every element).
// CHECK-LABEL: func.func @reduction
// CHECK: scf.for {{.*}} -> (tensor<8xf32>)
// CHECK: linalg.generic {{.*}} iterator_types = ["reduction"]
func.func @reduction(%x: tensor<8xf32>, %z: tensor<f32>) -> tensor<8xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %r = scf.for %i = %c0 to %c3 step %c1 iter_args(%v = %x) -> (tensor<8xf32>) {
    %s = linalg.generic {indexing_maps = [#id, #all], iterator_types = ["reduction"]}
        ins(%v : tensor<8xf32>) outs(%z : tensor<f32>) {
    ^bb0(%a: f32, %acc: f32):
      %p = arith.addf %a, %acc : f32
      linalg.yield %p : f32
    } -> tensor<f32>
    %n = linalg.generic {indexing_maps = [#id, #all, #id], iterator_types = ["parallel"]}
        ins(%v, %s : tensor<8xf32>, tensor<f32>) outs(%v : tensor<8xf32>) {
    ^bb0(%a: f32, %b: f32, %out: f32):
      %q = arith.divf %a, %b : f32
      linalg.yield %q : f32
    } -> tensor<8xf32>
    scf.yield %n : tensor<8xf32>
  }
  return %r : tensor<8xf32>
}

// -----

#id = affine_map<(d0) -> (d0)>

// Not taken: the carry read at another element (a shifted slice of it).
// CHECK-LABEL: func.func @shifted
// CHECK: scf.for {{.*}} -> (tensor<8xf32>)
// CHECK: tensor.extract_slice
func.func @shifted(%x: tensor<8xf32>, %pad: tensor<1xf32>) -> tensor<8xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %r = scf.for %i = %c0 to %c3 step %c1 iter_args(%v = %x) -> (tensor<8xf32>) {
    %tail = tensor.extract_slice %v[1] [7] [1] : tensor<8xf32> to tensor<7xf32>
    %sh = tensor.concat dim(0) %tail, %pad : (tensor<7xf32>, tensor<1xf32>) -> tensor<8xf32>
    %n = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel"]}
        ins(%v, %sh : tensor<8xf32>, tensor<8xf32>) outs(%v : tensor<8xf32>) {
    ^bb0(%a: f32, %b: f32, %out: f32):
      %q = arith.addf %a, %b : f32
      linalg.yield %q : f32
    } -> tensor<8xf32>
    scf.yield %n : tensor<8xf32>
  }
  return %r : tensor<8xf32>
}

// -----

#id = affine_map<(d0) -> (d0)>

// Not taken: a while loop (its trip count depends on the data).
// CHECK-LABEL: func.func @while_loop
// CHECK: scf.while
// CHECK-NOT: scf.for
func.func @while_loop(%x: tensor<8xf32>, %n: i32) -> tensor<8xf32> {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %r:2 = scf.while (%i = %c0, %v = %x) : (i32, tensor<8xf32>) -> (i32, tensor<8xf32>) {
    %p = arith.cmpi slt, %i, %n : i32
    scf.condition(%p) %i, %v : i32, tensor<8xf32>
  } do {
  ^bb0(%i: i32, %v: tensor<8xf32>):
    %j = arith.addi %i, %c1 : i32
    %w = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
        ins(%v : tensor<8xf32>) outs(%v : tensor<8xf32>) {
    ^bb0(%a: f32, %out: f32):
      %q = arith.addf %a, %a : f32
      linalg.yield %q : f32
    } -> tensor<8xf32>
    scf.yield %j, %w : i32, tensor<8xf32>
  }
  return %r#1 : tensor<8xf32>
}

// -----

#id = affine_map<(d0) -> (d0)>

// Not taken: a scan's stacked ys (each step writes a row of a [steps, n] tensor).
// CHECK-LABEL: func.func @stacked_ys
// CHECK: scf.for {{.*}} -> (tensor<4xf32>, tensor<3x4xf32>)
// CHECK: tensor.insert_slice
func.func @stacked_ys(%x: tensor<4xf32>, %ys: tensor<3x4xf32>) -> (tensor<4xf32>, tensor<3x4xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %r:2 = scf.for %i = %c0 to %c3 step %c1 iter_args(%v = %x, %acc = %ys) -> (tensor<4xf32>, tensor<3x4xf32>) {
    %n = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
        ins(%v : tensor<4xf32>) outs(%v : tensor<4xf32>) {
    ^bb0(%a: f32, %out: f32):
      %q = arith.addf %a, %a : f32
      linalg.yield %q : f32
    } -> tensor<4xf32>
    %ins = tensor.insert_slice %n into %acc[%i, 0] [1, 4] [1, 1] : tensor<4xf32> into tensor<3x4xf32>
    scf.yield %n, %ins : tensor<4xf32>, tensor<3x4xf32>
  }
  return %r#0, %r#1 : tensor<4xf32>, tensor<3x4xf32>
}
