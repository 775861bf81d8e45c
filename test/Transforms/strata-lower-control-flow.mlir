// RUN: strata-opt --split-input-file --strata-lower-to-linalg --strata-lower-control-flow %s \
// RUN: | FileCheck %s

// cond with two branches => scf.if on index > 0 (branch 1 is the then region).
// CHECK-LABEL: func.func @cond_two_branches
// CHECK: %[[I:.*]] = tensor.extract %arg0[] : tensor<i32>
// CHECK: %[[P:.*]] = arith.cmpi sgt, %[[I]], %{{.*}} : i32
// CHECK: %[[R:.*]] = scf.if %[[P]] -> (tensor<4xf32>) {
// CHECK-NEXT: scf.yield %arg1 : tensor<4xf32>
// CHECK-NEXT: } else {
// CHECK: linalg.generic
// CHECK: math.exp
// CHECK: scf.yield
// CHECK: return %[[R]]
func.func @cond_two_branches(%i: tensor<i32>, %x: tensor<4xf32>) -> tensor<4xf32> {
  %r = strata.cond %i : (tensor<i32>) -> tensor<4xf32> {
    %a = strata.exp %x : (tensor<4xf32>) -> tensor<4xf32>
    strata.yield %a : tensor<4xf32>
  }, {
    strata.yield %x : tensor<4xf32>
  }
  return %r : tensor<4xf32>
}

// -----

// switch with three branches => scf.index_switch on the index clamped into [0, 2]; the last
// branch is the default.
// CHECK-LABEL: func.func @switch_three_branches
// CHECK: %[[I:.*]] = tensor.extract %arg0[] : tensor<i32>
// CHECK: %[[LO:.*]] = arith.minsi %[[I]], %{{.*}} : i32
// CHECK: %[[K:.*]] = arith.maxsi %[[LO]], %{{.*}} : i32
// CHECK: %[[IDX:.*]] = arith.index_cast %[[K]] : i32 to index
// CHECK: scf.index_switch %[[IDX]] -> tensor<4xf32>
// CHECK: case 0 {
// CHECK: math.exp
// CHECK: case 1 {
// CHECK-NEXT: scf.yield %arg1
// CHECK: default {
// CHECK: arith.negf
func.func @switch_three_branches(%i: tensor<i32>, %x: tensor<4xf32>) -> tensor<4xf32> {
  %r = strata.cond %i : (tensor<i32>) -> tensor<4xf32> {
    %a = strata.exp %x : (tensor<4xf32>) -> tensor<4xf32>
    strata.yield %a : tensor<4xf32>
  }, {
    strata.yield %x : tensor<4xf32>
  }, {
    %b = strata.neg %x : (tensor<4xf32>) -> tensor<4xf32>
    strata.yield %b : tensor<4xf32>
  }
  return %r : tensor<4xf32>
}

// -----

// while => scf.while: the condition tensor is read as a scalar for scf.condition, which
// forwards the carries; each next carry is an elementwise generic reading its carry only at the
// element it writes, so it writes into that carry (in place once bufferized, no copy).
// CHECK-LABEL: func.func @while_loop
// CHECK: %[[W:.*]]:2 = scf.while (%[[I:.*]] = %arg0, %[[V:.*]] = %arg1) : (tensor<i32>, tensor<4xf32>) -> (tensor<i32>, tensor<4xf32>) {
// CHECK: %[[LT:.*]] = linalg.generic
// CHECK: arith.cmpi slt
// CHECK: %[[P:.*]] = tensor.extract %[[LT]][] : tensor<i1>
// CHECK: scf.condition(%[[P]]) %[[I]], %[[V]] : tensor<i32>, tensor<4xf32>
// CHECK: } do {
// CHECK: ^bb0(%[[I2:.*]]: tensor<i32>, %[[V2:.*]]: tensor<4xf32>):
// CHECK: %[[N:.*]] = linalg.generic {{.*}} ins(%[[I2]], %{{.*}} : tensor<i32>, tensor<i32>) outs(%[[I2]] : tensor<i32>)
// CHECK: %[[M:.*]] = linalg.generic {{.*}} ins(%[[V2]], %[[V2]] : tensor<4xf32>, tensor<4xf32>) outs(%[[V2]] : tensor<4xf32>)
// CHECK-NOT: linalg.copy
// CHECK: scf.yield %[[N]], %[[M]]
// CHECK: return %[[W]]#1
func.func @while_loop(%i: tensor<i32>, %x: tensor<4xf32>, %n: tensor<i32>) -> tensor<4xf32> {
  %w:2 = strata.while %i, %x : (tensor<i32>, tensor<4xf32>) -> (tensor<i32>, tensor<4xf32>) cond {
  ^bb0(%j: tensor<i32>, %y: tensor<4xf32>):
    %p = strata.lt %j, %n : (tensor<i32>, tensor<i32>) -> tensor<i1>
    strata.yield %p : tensor<i1>
  } do {
  ^bb0(%j: tensor<i32>, %y: tensor<4xf32>):
    %j1 = strata.add %j, %i : (tensor<i32>, tensor<i32>) -> tensor<i32>
    %y1 = strata.mul %y, %y : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    strata.yield %j1, %y1 : tensor<i32>, tensor<4xf32>
  }
  return %w#1 : tensor<4xf32>
}

// -----

// A reverse scan => scf.for over the steps carrying the carry and the stacked ys: step i reads
// slice 2 - i of xs and writes slice 2 - i of ys (ys first, then the carry copy, which
// overwrites the current carry that the ys may read).
// CHECK-LABEL: func.func @scan_reverse
// CHECK: %[[YS:.*]] = tensor.empty() : tensor<3x4xf32>
// CHECK: %[[R:.*]]:2 = scf.for %[[S:.*]] = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%[[H:.*]] = %arg0, %[[ACC:.*]] = %[[YS]]) -> (tensor<4xf32>, tensor<3x4xf32>) {
// CHECK: %[[T:.*]] = arith.subi %{{.*}}, %[[S]] : index
// CHECK: %[[X:.*]] = tensor.extract_slice %arg1[%[[T]], 0] [1, 4] [1, 1] : tensor<3x4xf32> to tensor<4xf32>
// CHECK: %[[SUM:.*]] = linalg.generic {{.*}} ins(%[[H]], %[[X]] : tensor<4xf32>, tensor<4xf32>)
// CHECK: %[[TANH:.*]] = linalg.generic {{.*}} ins(%[[SUM]] : tensor<4xf32>)
// CHECK: %[[INS:.*]] = tensor.insert_slice %[[SUM]] into %[[ACC]][%[[T]], 0] [1, 4] [1, 1]
// CHECK: %[[NEXT:.*]] = linalg.copy ins(%[[TANH]] : tensor<4xf32>) outs(%[[H]] : tensor<4xf32>)
// CHECK: scf.yield %[[NEXT]], %[[INS]]
// CHECK: return %[[R]]#0, %[[R]]#1
func.func @scan_reverse(%h: tensor<4xf32>, %xs: tensor<3x4xf32>) -> (tensor<4xf32>, tensor<3x4xf32>) {
  %s:2 = strata.scan init(%h) xs(%xs) length = 3, reverse = true : (tensor<4xf32>, tensor<3x4xf32>) -> (tensor<4xf32>, tensor<3x4xf32>) {
  ^bb0(%a: tensor<4xf32>, %x: tensor<4xf32>):
    %s = strata.add %a, %x : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    %t = strata.tanh %s : (tensor<4xf32>) -> tensor<4xf32>
    strata.yield %t, %s : tensor<4xf32>, tensor<4xf32>
  }
  return %s#0, %s#1 : tensor<4xf32>, tensor<3x4xf32>
}

// -----

// A zero-length scan runs nothing: its inits and empty ys.
// CHECK-LABEL: func.func @scan_empty
// CHECK-NOT: scf.for
// CHECK: %[[YS:.*]] = tensor.empty() : tensor<0x4xf32>
// CHECK: return %arg0, %[[YS]]
func.func @scan_empty(%h: tensor<4xf32>, %xs: tensor<0x4xf32>) -> (tensor<4xf32>, tensor<0x4xf32>) {
  %s:2 = strata.scan init(%h) xs(%xs) length = 0, reverse = false : (tensor<4xf32>, tensor<0x4xf32>) -> (tensor<4xf32>, tensor<0x4xf32>) {
  ^bb0(%a: tensor<4xf32>, %x: tensor<4xf32>):
    %s = strata.add %a, %x : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    strata.yield %s, %s : tensor<4xf32>, tensor<4xf32>
  }
  return %s#0, %s#1 : tensor<4xf32>, tensor<0x4xf32>
}

// -----

// Two carries that swap: each next value is a current carry, so it is copied to a fresh
// tensor before either carry is overwritten in place.
// CHECK-LABEL: func.func @scan_swap
// CHECK: scf.for {{.*}} iter_args(%[[A:.*]] = %arg0, %[[B:.*]] = %arg1)
// CHECK: %[[TB:.*]] = linalg.copy ins(%[[B]] : tensor<4xf32>) outs(%{{.*}} : tensor<4xf32>)
// CHECK: %[[TA:.*]] = linalg.copy ins(%[[A]] : tensor<4xf32>) outs(%{{.*}} : tensor<4xf32>)
// CHECK: %[[NA:.*]] = linalg.copy ins(%[[TB]] : tensor<4xf32>) outs(%[[A]] : tensor<4xf32>)
// CHECK: %[[NB:.*]] = linalg.copy ins(%[[TA]] : tensor<4xf32>) outs(%[[B]] : tensor<4xf32>)
// CHECK: scf.yield %[[NA]], %[[NB]]
func.func @scan_swap(%a: tensor<4xf32>, %b: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %s:2 = strata.scan init(%a, %b) xs() length = 5, reverse = false : (tensor<4xf32>, tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  ^bb0(%x: tensor<4xf32>, %y: tensor<4xf32>):
    strata.yield %y, %x : tensor<4xf32>, tensor<4xf32>
  }
  return %s#0, %s#1 : tensor<4xf32>, tensor<4xf32>
}
