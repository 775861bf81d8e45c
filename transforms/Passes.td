//===- Passes.td - Strata's passes ----------------------------------------*- tablegen -*-===//
//
// Every Strata pass, declared once: flags carry the `strata-` prefix, implementations derive
// from the generated bases (GEN_PASS_DEF), and registerStrataPasses() registers them all.
//
//===----------------------------------------------------------------------------------===//

#ifndef STRATA_PASSES_TD
#define STRATA_PASSES_TD

include "mlir/Pass/PassBase.td"

def StrataLowerToLinalg : Pass<"strata-lower-to-linalg"> {
  let summary = "Lowers strata ops on static tensors to linalg, tensor, arith, math and scf.";
  let description = [{
    Rewrites each strata op whose operands and results are statically shaped ranked tensors
    of float, signless-integer (incl. i1) or unsigned-integer elements into upstream ops ready
    for one-shot bufferization, computing what libstrata's reference kernels compute. The
    pass is partial: ops it cannot lower (dynamic shapes, signed `si` types, malformed
    attributes) stay in place.

    Handled:
    - every op with the `Strata_Elementwise` trait (StrataTraits.td) on element types its
      `Strata_FloatOnly`/`Strata_IntegerOnly`/`Strata_NotBool` traits accept: one
      `linalg.generic` whose arith/math body is the primitive's scalar semantics
      (transforms/lowering/ScalarSemantics.h): convert_element_type saturates float -> int and
      maps NaN to 0; erf_inv is libstrata's f64 Giles approximation with its Newton steps
      (needs `math.erf`/`math.erfc`, e.g. through `convert-math-to-libm`); the gamma-family
      functions, zeta, betainc and the Bessel functions are libstrata's f64 algorithms (lgamma
      by Lanczos), their iterations to convergence as `scf.while` loops in the body; nextafter
      steps the operand's bits;
    - unsigned elements: arith is signless, so a body casts uiN block arguments to iN (and
      results back) with `builtin.unrealized_conversion_cast`, which
      `reconcile-unrealized-casts` removes once both sides are LLVM's iN; the body uses the
      unsigned ops (divui, remui, cmpi ult, maxui, uitofp, fptoui, extui);
    - threefry2x32: one `linalg.generic` with two results, the 20 rounds unrolled;
    - ops with the `Strata_Identity` trait (stop_gradient, checkpoint_name): forwarded to their
      operand;
    - broadcast_in_dim, rev, iota: `linalg.generic` (projected, reversed, `linalg.index`);
    - transpose: `linalg.transpose`; reshape: `tensor.collapse_shape`/`expand_shape`/`reshape`;
    - slice: `tensor.extract_slice`; concatenate: `tensor.insert_slice` per input; pad: a
      `linalg.fill` and one strided `tensor.insert_slice` of the part negative low/high keep;
    - dynamic_slice, dynamic_update_slice: `tensor.extract_slice`/`insert_slice` at starts
      clamped into [0, size - slice size];
    - gather: one `linalg.generic` over the result whose body extracts from the operand at
      the clamped start plus the slice offset;
    - scatter, scatter_add: an `scf.for` over the index vectors in row-major order (the last
      duplicate wins, sums accumulate in that order) inserting each in-bounds window with
      `tensor.insert_slice`; windows not wholly in bounds are dropped;
    - reduce_sum/max/min/prod: `linalg.reduce` into a `linalg.fill`ed init, combining with the
      monoid the op declares (`Strata_SumMonoid` ...);
    - argmax/argmin: one reduction `linalg.generic` into (best value, index), first index on
      ties, the first NaN wins;
    - cumsum/cumprod/cummax/cummin: an `scf.for` along the axis (from the end when
      `reverse`) carrying the running value in libstrata's order (f64 for floating sums and
      products);
    - sort: lines of at most 32, a `linalg.generic` counting, per element, those that sort
      before it (keys lexicographic, NaN last, ties by position: stable), then one moving
      every operand to those positions (O(n^2) per line); longer lines, a bitonic network
      padded to a power of two, O(n log^2 n): two `scf.for` loops whose steps are parallel
      compare-exchange generics on a copy (padding and then the original position break
      ties, so the result is the stable order); no data-dependent control flow either way
      (the GPU's lowering: the CPU pipeline calls the runtime first,
      strata-sort-scan-to-runtime);
    - dot_general: `linalg.matmul`/`linalg.batch_matmul` for the canonical layouts, else a
      `linalg.generic` whose indexing maps spell the dimension numbers;
    - strata.fusion: the group's ops are lowered, named linalg ops generalized and linalg's
      elementwise fusion applied inside the group only, then the group is inlined: an
      elementwise chain with broadcasts is one `linalg.generic`, and all-parallel producers
      fuse into the group's reductions. A producer fuses only into its single user (or
      anywhere when it only moves data, like a broadcast): one with several users is
      computed once into a buffer, never recomputed per user (softmax is four loop nests:
      max, exp, sum, normalize);
    - splat constants read by a generic become scalars in its body;
    - strata.host_callback (first, on tensors): calls of the runtime with scalar arguments,
      `strata_rt_host_callback_buffer(address, dtype code, rank)` and
      `strata_rt_host_callback_dim(size)` per dimension for each operand
      (`bufferization.to_buffer`) and result (a `memref.alloc` the runtime fills, then
      `bufferization.to_tensor`), then `strata_rt_host_callback(callback_id, n_in, n_out)`.

    Not lowered: dynamic shapes; control flow (strata.cond/while/scan), whose regions' ops
    this pass lowers in place and `strata-lower-control-flow` then turns into scf. Known
    differences from libstrata: float max/min (and reduce_max/min) use
    `arith.maximumf`/`minimumf`, which order -0 below +0 where libstrata returns either;
    cumulative scans of more than 65536 elements along one row are blocked in libstrata, so
    their float sums may round differently.

    Before => after:

    ```mlir
    %y = strata.exp %x : (tensor<4xf32>) -> tensor<4xf32>
    // =>
    %e = tensor.empty() : tensor<4xf32>
    %y = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
        ins(%x : tensor<4xf32>) outs(%e : tensor<4xf32>) {
    ^bb0(%in: f32, %out: f32):
      %0 = math.exp %in : f32
      linalg.yield %0 : f32
    } -> tensor<4xf32>
    ```
  }];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::bufferization::BufferizationDialect",
    "::mlir::complex::ComplexDialect",
    "::mlir::func::FuncDialect",
    "::mlir::linalg::LinalgDialect",
    "::mlir::math::MathDialect",
    "::mlir::memref::MemRefDialect",
    "::mlir::scf::SCFDialect",
    "::mlir::tensor::TensorDialect",
  ];
}

def StrataSortScanToRuntime : Pass<"strata-sort-scan-to-runtime", "::mlir::ModuleOp"> {
  let summary = "Turns sorts and cumulative scans into calls of the CPU runtime's kernels.";
  let description = [{
    Runs on a module before strata-lower-to-linalg, in the CPU pipeline only (compiled code
    calls host functions on host buffers). Every `strata.sort` on static tensors with more
    than one element along its dimension, and every `strata.cumsum`, `cumprod`, `cummax` and
    `cummin` on non-empty static tensors, becomes calls of libstrata's line kernels, the ones
    the eager primitives run: an O(n log n) stable sort (LSD radix on the keys' bit patterns)
    with lines in parallel, and the scans' blocked parallel kernel, so that jit and eager agree
    bit for bit. Each operand is read through `bufferization.to_buffer` (identity layout, so
    bufferization copies a strided operand first) and each result is a fresh `memref.alloc`
    read back with `bufferization.to_tensor`, as strata.host_callback's lowering does; the
    calls take scalars only: addresses, the dtype code, and the [outer, n, inner] sizes around
    the dimension.

    A sort becomes one `strata_rt_sort_operand(dtype, in, out)` per operand, then
    `strata_rt_sort(num_keys, outer, n, inner)`; a scan becomes
    `strata_rt_scan(kind, dtype, x, y, outer, n, inner, reverse)` (kind 0 sum, 1 prod, 2 max,
    3 min). What is left (empty tensors, lines of one element) strata-lower-to-linalg lowers.

    Before => after:

    ```mlir
    %0 = strata.cumsum %x, axis = 1, reverse = false : (tensor<4x8xf32>) -> tensor<4x8xf32>
    // =>
    %in = bufferization.to_buffer %x read_only : tensor<4x8xf32> to memref<4x8xf32>
    %out = memref.alloc() : memref<4x8xf32>
    ... (their aligned pointers as i64)
    call @strata_rt_scan(%c0, %c11, %pin, %pout, %c4, %c8, %c1, %c0) : (i64, ...) -> ()
    %0 = bufferization.to_tensor %out restrict writable : memref<4x8xf32> to tensor<4x8xf32>
    ```
  }];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::bufferization::BufferizationDialect",
    "::mlir::func::FuncDialect",
    "::mlir::memref::MemRefDialect",
  ];
}

def StrataLowerControlFlow : Pass<"strata-lower-control-flow"> {
  let summary = "Lowers strata.cond/while/scan to scf, writing each loop's next carries in place.";
  let description = [{
    Runs after `strata-lower-to-linalg`, which lowers the ops inside the regions (so that the
    in-place analysis below sees the linalg ops a carry's next value is computed by).
    Innermost ops are lowered first.

    - `strata.cond` becomes `scf.if` on `index > 0` (two branches) or `scf.index_switch` on
      the index clamped into range (the last branch is the default);
    - `strata.while` becomes `scf.while` (the condition's `tensor<i1>` read with
      `tensor.extract` for `scf.condition`);
    - `strata.scan` becomes an `scf.for` over the steps carrying the carries and the stacked
      ys: step i reads slice t (i, or length - 1 - i in reverse) of each xs with a
      rank-reducing `tensor.extract_slice` and writes slice t of each ys with
      `tensor.insert_slice`; a zero-length scan is its inits and `tensor.empty` ys.

    A loop's next carries are written into its current ones, so that one-shot bufferization
    keeps one buffer per carry for the whole loop: an elementwise generic that reads its carry
    only at the element it writes takes the carry as its destination (an in-place update, no
    copy); any other next value is `linalg.copy`'d into the carry last in the body (after a
    copy to a fresh tensor of a next value that may alias a carry).

    Before => after:

    ```mlir
    %r = "strata.while"(%x0) ({
    ^bb0(%x: tensor<4xf32>):
      %c = ... : tensor<i1>
      strata.yield %c : tensor<i1>
    }, {
    ^bb0(%x: tensor<4xf32>):
      %n = linalg.generic ... ins(%x : tensor<4xf32>) outs(%e : tensor<4xf32>) {...}
      strata.yield %n : tensor<4xf32>
    }) : (tensor<4xf32>) -> tensor<4xf32>
    // =>
    %r = scf.while (%x = %x0) : (tensor<4xf32>) -> tensor<4xf32> {
      %c = ... : tensor<i1>
      %b = tensor.extract %c[] : tensor<i1>
      scf.condition(%b) %x : tensor<4xf32>
    } do {
    ^bb0(%x: tensor<4xf32>):
      %n = linalg.generic ... ins(%x : tensor<4xf32>) outs(%x : tensor<4xf32>) {...}
      scf.yield %n : tensor<4xf32>
    }
    ```
  }];
  let dependentDialects = [
    "::mlir::linalg::LinalgDialect",
    "::mlir::scf::SCFDialect",
    "::mlir::tensor::TensorDialect",
  ];
}

def StrataInterchangeElementwiseLoops : Pass<"strata-interchange-elementwise-loops"> {
  let summary = "Turns a counted loop of elementwise updates into one elementwise generic.";
  let description = [{
    Runs on tensors after `strata-lower-to-linalg` (the "linalg" stage of the GPU pipeline;
    not the CPU's, where the step-by-step loop vectorizes over the elements and a chain of
    dependent steps per element would be far slower). A loop interchange: when every element's trajectory through an
    `scf.for` is independent of the others', the loop over the steps moves inside ONE
    all-parallel `linalg.generic` over the carries' shape, whose body runs the steps on
    scalar `iter_args`. The CPU then makes one pass over the array (each element stays in a
    register for all steps) and the GPU one grid-stride kernel, instead of a host loop
    launching the body's kernels every step.

    Taken: an `scf.for` (static or dynamic bounds) whose carries are ranked tensors of one
    static shape S (any int/float element types) and whose body holds only
    - all-parallel `linalg.generic`s over S writing through identity maps, reading carries
      and other such results at the same element (identity maps), loop-invariant tensors
      through any map (they become inputs of the new generic), and slices of a
      loop-invariant tensor at per-step offsets (a scan's xs: `tensor.extract_slice` of
      unit dims at the step, whole kept dims), read through a projected permutation; their
      bodies may use linalg.index (the element's) and the body's scalars;
    - generics over 0-d values of the step (a fori_loop's index converted to float), which
      the new body computes per element;
    - `linalg.copy` of such a value (the write of a next carry into its buffer),
      `tensor.empty`, `tensor.extract` of a loop-invariant tensor, and side-effect-free
      scalar ops (the step's index arithmetic, constants);
    - a yield of such values or of loop-invariant tensors of shape S.
    Left alone: `scf.while`, reductions, contractions, a carry read at another element (a
    shifted slice), stacked ys (`tensor.insert_slice`), nested loops that were not
    interchanged themselves, side effects. Loops are visited innermost first, so an
    interchanged inner loop can make its enclosing loop interchangeable.

    The element's scalar operations are the same, in the same order, so results are bitwise
    those of the loop as it was.

    Before => after:

    ```mlir
    %r = scf.for %i = %c0 to %c1000 step %c1 iter_args(%x = %x0) -> (tensor<1024xf32>) {
      %n = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
          ins(%x : tensor<1024xf32>) outs(%x : tensor<1024xf32>) {
      ^bb0(%in: f32, %out: f32):
        %m = arith.mulf %in, %c0_99 : f32
        %a = arith.addf %m, %c0_01 : f32
        linalg.yield %a : f32
      } -> tensor<1024xf32>
      scf.yield %n : tensor<1024xf32>
    }
    // =>
    %e = tensor.empty() : tensor<1024xf32>
    %r = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
        ins(%x0 : tensor<1024xf32>) outs(%e : tensor<1024xf32>) {
    ^bb0(%in: f32, %out: f32):
      %s = scf.for %i = %c0 to %c1000 step %c1 iter_args(%v = %in) -> (f32) {
        %m = arith.mulf %v, %c0_99 : f32
        %a = arith.addf %m, %c0_01 : f32
        scf.yield %a : f32
      }
      linalg.yield %s : f32
    } -> tensor<1024xf32>
    ```
  }];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::linalg::LinalgDialect",
    "::mlir::scf::SCFDialect",
    "::mlir::tensor::TensorDialect",
  ];
}

def StrataInferShapes : Pass<"strata-infer-shapes"> {
  let summary = "Refines dynamic result dimensions of strata ops from static operands.";
  let description = [{
    Visits the strata ops in program order. For each op whose operands are all static and
    whose results have a dynamic dimension, runs the primitive's shape rule (the verifier's,
    libstrata's) and gives the results the rule's static types. Refinements propagate: a
    consumer visited later sees its refined operands and is refined in turn.

    Strata users take the refined value directly. Any other user (`func.return`, a tensor op,
    a region terminator) keeps the type it had through a `tensor.cast` back to the old type,
    so function signatures never change; canonicalization can fold the casts away later.

    Ops that stay dynamic: those with a dynamic operand, and shape ops whose target shape is
    their result type (reshape, broadcast_in_dim, iota, dynamic_slice with a `?` in it). The
    pass fails when a refined operand makes a consumer's shape rule fail or disagree with the
    consumer's static result dimensions.

    Before => after:

    ```mlir
    %y = strata.exp %x : (tensor<4xf32>) -> tensor<?xf32>
    return %y : tensor<?xf32>
    // =>
    %y = strata.exp %x : (tensor<4xf32>) -> tensor<4xf32>
    %c = tensor.cast %y : tensor<4xf32> to tensor<?xf32>
    return %c : tensor<?xf32>
    ```
  }];
  let dependentDialects = ["::mlir::tensor::TensorDialect"];
}

def StrataLayout : Pass<"strata-layout"> {
  let summary = "Folds transposes into dot_general and reductions; sinks them to cancel.";
  let description = [{
    Removes data movement that a transpose would materialize, by changing which dimension an
    op indexes instead. Greedy rewrites to a fixed point, each exact: operands, element types
    and the order in which terms are combined stay the same (float sums and products keep the
    order of their reduced axes, contracting dims keep their list order).

    Rewrites (`p` is the transpose's permutation: its result dim i is operand dim p[i]):
    - dot_general operand: `dot_general(transpose(x, p), y)` reads x, that side's batch and
      contracting dims mapped through p, when p keeps the side's free dims in increasing
      order (so the result's dimension order is unchanged). Either side, or both.
    - transpose of a dot_general: `transpose(dot_general(a, b), p)` becomes one dot_general
      when p permutes only the batch dims among themselves (the batch pairs are reordered)
      and/or puts all of b's free dims before all of a's, each in order (the operands and
      their dimension numbers are swapped). The dot must have no other user.
    - reductions (reduce_sum/max/min/prod, argmax/argmin): `reduce(transpose(x, p), axes)`
      reduces x over p[axes]. When p keeps the kept dims in order the result is the same
      tensor; otherwise, when the transpose has no other user and the reduction makes the
      tensor strictly smaller (static shapes), the smaller result is transposed instead. Float
      reduce_sum/prod fold only when p also keeps the reduced axes in order; max, min,
      argmax/argmin and integer sum/prod (wrapping) do not depend on the order.
    - sinking: an elementwise op whose operands are transposes with one permutation, each read
      only by that op, or splat constants, is applied first and transposed after:
      `f(transpose(a, p), transpose(b, p)) => transpose(f(a, b), p)`; not when the result's
      elements are wider than the operands' (the transpose would move more bytes).
    - the transpose folders and canonical patterns (identity, transpose of transpose, unit
      dims to reshape) run with them, so sunk transposes that meet cancel.

    Not done: no transpose is ever introduced ahead of an op or moved up; a dot_general whose
    operand transpose reorders that operand's free dims, and a transpose that reorders one
    dot operand's free dims or moves a batch dim, stay; transposes are not pushed through
    broadcast_in_dim, reshape or other shape ops; no layout is chosen for function arguments
    or results, and contracting dims are not made innermost by inserting transposes (the
    lowering picks matmul/batch_matmul or a generic from the dimension numbers).

    Before => after:

    ```mlir
    %t = strata.transpose %w, permutation = [1, 0] : (tensor<4x3xf32>) -> tensor<3x4xf32>
    %y = strata.dot_general %x, %t, batch_dims = [] x [], contracting_dims = [1] x [0]
        : (tensor<2x3xf32>, tensor<3x4xf32>) -> tensor<2x4xf32>
    // =>
    %y = strata.dot_general %x, %w, batch_dims = [] x [], contracting_dims = [1] x [1]
        : (tensor<2x3xf32>, tensor<4x3xf32>) -> tensor<2x4xf32>
    ```
  }];
}

def StrataFuse : Pass<"strata-fuse"> {
  let summary = "Groups elementwise chains, broadcasts and reductions into strata.fusion ops.";
  let description = [{
    Greedy producer-into-consumer fusion, one block at a time (the blocks of control-flow
    regions included: a loop body is fused on its own, and nothing moves into or out of a
    region; the region ops themselves are never fused). Walking each block in reverse,
    every elementwise strata op (the `Strata_Elementwise` and `Strata_Fusible` traits) or
    reduction (`Strata_Reduction`: reduce_sum/max/min/prod) not yet grouped becomes the root of a group, which grows
    through operands whose defining op is fusible: an elementwise op, a reduction, a
    `broadcast_in_dim` or a constant. Each group of two or more ops becomes one
    `strata.fusion` at the root's place; its operands are the values the group reads from
    outside and its results are only the group's values that are used outside it.

    A reduction thus takes its elementwise producers (a prologue: `sum(exp(x - m))`), and the
    elementwise ops that read its result, directly or through a broadcast, take it (an
    epilogue): softmax (reduce_max, broadcast, sub, exp, reduce_sum, broadcast, div) and layer
    norm (two reduce_sums, the mean/variance arithmetic, rsqrt, scale and shift) become one
    fusion each.

    Cost model:
    - A producer joins a group only when every user of it is in the group (several users
      inside one group are fine) or comes after the root, where the fusion's result can
      replace it: a value used outside becomes a fusion result and is computed once. An
      elementwise producer read by two reductions therefore joins the first one's group and
      is that fusion's result for the second; it is never duplicated.
    - A producer with a use before the root is never moved and never duplicated, with two
      exceptions that are cheap to recompute in every group that reads them: a
      `broadcast_in_dim` of a small static operand (at most 65536 elements) and a
      constant. Those are cloned into the group and the original stays for its other users.
      Elementwise ops and reductions are never cloned.
    - Behind a broadcast only a reduction's epilogue joins: the broadcast's operand comes in
      with the group when it is a reduction, or an elementwise op computing (through other
      elementwise ops) on one; the chain behind it then takes further such ops, reductions,
      broadcasts and constants. Any other producer behind a broadcast comes in as a fusion
      operand, so nothing that is not a reduction's epilogue is recomputed per broadcast
      element.
    - A group stops growing at 64 members: linalg's fusion of the group into one loop nest and
      LLVM's register allocation of its body cost more than linearly in the body's size. A
      longer chain becomes several groups, each reading the one before (one more pass over
      memory per 64 ops).
    - Groups never cross `dot_general`, argmax/argmin, cumulative reductions or any other op
      that is not elementwise, a broadcast, a constant or one of the four reductions: those
      stay outside, and their values are fusion operands (a reduction feeding a dot ends its
      group; the dot's elementwise epilogue forms its own).

    Before => after:

    ```mlir
    %m = strata.reduce_max %x, axes = [1] : (tensor<2x3xf32>) -> tensor<2xf32>
    %mb = strata.broadcast_in_dim %m, broadcast_dimensions = [0] : (tensor<2xf32>) -> tensor<2x3xf32>
    %d = strata.sub %x, %mb : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
    %e = strata.exp %d : (tensor<2x3xf32>) -> tensor<2x3xf32>
    %s = strata.reduce_sum %e, axes = [1] : (tensor<2x3xf32>) -> tensor<2xf32>
    %sb = strata.broadcast_in_dim %s, broadcast_dimensions = [0] : (tensor<2xf32>) -> tensor<2x3xf32>
    %y = strata.div %e, %sb : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
    // =>
    %y = strata.fusion (%a = %x) : (tensor<2x3xf32>) -> tensor<2x3xf32> {
      %m = strata.reduce_max %a, axes = [1] : (tensor<2x3xf32>) -> tensor<2xf32>
      ... (the same seven ops, reading %a)
      strata.yield %y : tensor<2x3xf32>
    }
    ```
  }];
}

def StrataLinalgToBlas : Pass<"strata-linalg-to-blas"> {
  let summary = "Turns float contractions on buffers into calls of the runtime's strided gemm.";
  let description = [{
    Runs on a module after bufferization. Every linalg op on buffers that is a mul-add
    contraction (`linalg.matmul`, `linalg.batch_matmul`, or a `linalg.generic` that
    `linalg::isaContractionOpInterface` accepts, as strata-lower-to-linalg makes for dot_general
    with transposed dimension numbers) with f32, f64, complex64 or complex128 operands, each
    indexed by exactly its own m, n, k and batch loop dimensions, becomes a call of `strata_rt_gemm`: c += a * b for
    each batch, with each operand's row, column and batch strides read from its memref
    descriptor, so a transposed or sliced operand needs no copy. The runtime implements it with
    BLIS (libstrata's `strided_gemm`), spreading a batch of small products over its threads.

    With several loop dimensions of one kind (attention's `bqhd,bkhd->bhqk` has batch
    dimensions b and h at strides no single stride spans), the call takes the last m, n and k
    dimension and the longest batch dimension, and an `scf.for` loop around it runs each of
    the others, adding its stride to the offsets of the operands that hold it; nothing is
    copied.

    Loop dimensions of extent 1 are ignored (vmap makes them: a `[b, 1, k] x [k, n]`
    contraction is a batched gemm with m = 1). When the op's accumulator was zero-filled by the
    op just before it (dot_general's lowering does that), the fill is dropped and the call
    overwrites c (BLAS beta = 0) instead of accumulating: one pass over the result fewer.

    The call takes 21 i64 values: the element width in bits (32 or 64; negated for complex
    elements, -64 for complex64 and -128 for complex128, whose bodies are
    `complex.add(acc, complex.mul(a, b))`), batch, m, n, k, then
    for a, b and c: the aligned pointer, the offset, and the batch, row and column strides in
    elements, then 1 to accumulate into c or 0 to overwrite it. Other contractions (integer,
    mixed types, broadcast operands) stay linalg.

    Options: `callee` names the function called (default `strata_rt_gemm`, the CPU's;
    `strata-lower-to-nvvm` calls `strata_rt_cuda_gemm`, cuBLAS, with device pointers). With
    `type-codes` the first argument is a type code instead of the element width (0: f32, 1:
    f64, 2: f16 a and b with an f32 c, 3: bf16 a and b with an f32 c; complex contractions
    stay linalg), and the f16/bf16
    contractions strata-lower-to-linalg makes (`acc + extf(a) * extf(b)` into an f32
    accumulator, truncated by a separate op afterwards) match too; the truncation stays.

    Before => after:

    ```mlir
    linalg.matmul ins(%a, %b : memref<4x8xf32>, memref<8x16xf32>) outs(%c : memref<4x16xf32>)
    // =>
    %base, %off, %sizes:2, %strides:2 = memref.extract_strided_metadata %a : ...
    %p = memref.extract_aligned_pointer_as_index %a : memref<4x8xf32> -> index
    ... (the same for %b and %c)
    call @strata_rt_gemm(%c32, %c1, %m, %n, %k, %pa, %offa, %c0, %rsa, %csa, ..., %c1) : (i64, ...) -> ()
    ```
  }];
  let options = [
    Option<"callee", "callee", "std::string", /*default=*/"\"strata_rt_gemm\"",
           "The gemm function called (strata_rt_cuda_gemm for cuBLAS)">,
    Option<"typeCodes", "type-codes", "bool", /*default=*/"false",
           "Pass a type code (0 f32, 1 f64, 2 f16->f32, 3 bf16->f32) instead of the element "
           "bits, and match f16/bf16 contractions with an f32 accumulator">,
  ];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::func::FuncDialect",
    "::mlir::memref::MemRefDialect",
    "::mlir::scf::SCFDialect",
  ];
}

def StrataApproximateMath : Pass<"strata-approximate-math"> {
  let summary = "Replaces f32 transcendental math ops with polynomial approximations.";
  let description = [{
    Rewrites f32 (scalar or vector) `math.exp`, `expm1`, `log`, `log1p`, `log2`, `tanh`, `erf`,
    `atan`, `asin` and `acos` into MLIR's polynomial approximations
    (arith and math.fma only), and scalar f32 `math.sin` and `math.cos` outside GPU modules
    into Strata's: a reduction to [-pi/4, pi/4] in double precision (Cody-Waite below 2^28,
    Payne-Hanek in 64-bit integers above, both branch-free) and two polynomials.
    They have no libm call in a loop body, so LLVM vectorizes the loops that contain them;
    their error is a few ulp (docs/passes.md has the measured table; the jit
    differential and edge tests bound it against libstrata's libm-based kernels). Subnormal
    inputs of log and log2 are scaled into the normal range first. f64 ops, sin and cos in GPU
    kernels (libdevice's stay) and atan2 (whose approximation gives NaN at (0, 0) and
    (inf, inf)) stay exact: they become libm calls. Run it
    after math-extend-to-supported-types, so f16/bf16 math is computed in f32 too.

    Before => after:

    ```mlir
    %y = math.tanh %x : f32
    // =>
    %y = ... arith.mulf / math.fma / arith.select on %x ... : f32
    ```
  }];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::math::MathDialect",
    "::mlir::vector::VectorDialect",
  ];
}

def StrataParallelizeLoops : Pass<"strata-parallelize-loops"> {
  let summary = "Lowers linalg ops on buffers to loops: scf.parallel for large ones only.";
  let description = [{
    Replaces each linalg op with pure buffer semantics by its loop nest. When all its loops
    are parallel and the nest has at least `min-iterations` iterations, its outermost loop
    with at least two iterations becomes a one-dimensional `scf.parallel` (a multi-dimensional
    one becomes a collapsed OpenMP loop that recomputes every index per iteration and does not
    vectorize) (which `convert-scf-to-openmp` turns into an OpenMP
    work-sharing loop over the cores); otherwise the nest is plain `scf.for`. Upstream's
    `convert-linalg-to-parallel-loops` makes every op parallel, and each parallel loop costs a
    fork at run time and outlined code: small loops are cheaper serial. Nests with a
    reduction loop stay serial too (an OpenMP reduction does not lower through scf-to-cf's
    alloca scopes).

    With `row-loops` (as `strata-lower-to-cpu` runs it), a run of consecutive ops (allocations,
    constants and reshapes may sit between them) with a reduction among them, each indexing
    every operand by its loop 0 in dimension 0 over the same rows (or not by loop 0 at all,
    for inputs no op of the run writes), becomes one loop over the rows: its body holds each
    op on row i (loop 0 dropped, rank-reducing subviews), so softmax's max, exponentials, sum
    and division read a row while it is in the cache. From `min-iterations` iterations of its
    ops together, the row loop is an `scf.parallel` over chunks of rows around an `scf.for`
    over a chunk's rows: its iterations write disjoint rows, and the reductions stay inside
    them. An allocation that only the row loop reads and writes becomes one row of scratch
    per chunk. Then every op whose only reduction loop is the innermost
    one, each output a float sum, product, max or min of an elementwise arith/math body over
    a contiguous row, becomes a loop over vectors of 1024 bits of accumulators (lane k folds
    the elements at k modulo the width, a masked step the tail, the lanes then combine by
    halves): LLVM never reassociates a scalar float reduction by itself.

    Before => after (min-iterations=1024):

    ```mlir
    linalg.generic ... ins(%a : memref<4096xf32>) outs(%b : memref<4096xf32>)  // large
    linalg.generic ... ins(%c : memref<8xf32>) outs(%d : memref<8xf32>)        // small
    // =>
    scf.parallel (%i) = (%c0) to (%c4096) step (%c1) { ... }
    scf.for %j = %c0 to %c8 step %c1 { ... }
    ```

    `strata-lower-to-cpu` runs canonicalize right after `convert-scf-to-openmp`, which wraps
    each parallel body in a `memref.alloca_scope`: with inner loops, the scope would hold
    several blocks after scf-to-cf, which it may not; canonicalize inlines allocation-free
    scopes.
  }];
  let options = [
    Option<"minIterations", "min-iterations", "int64_t", /*default=*/"262144",
           "Iterations of a loop nest from which it runs in parallel">,
    Option<"rowLoops", "row-loops", "bool", /*default=*/"false",
           "Runs of ops that work row by row become one loop over the rows (parallel when "
           "large, reductions included), and innermost float reductions vector accumulators">,
  ];
  let dependentDialects = [
    "::mlir::scf::SCFDialect",
    "::mlir::memref::MemRefDialect",
    "::mlir::arith::ArithDialect",
    "::mlir::vector::VectorDialect",
  ];
}

def StrataOutlineKernels : Pass<"strata-outline-kernels", "::mlir::ModuleOp"> {
  let summary = "Moves each loop nest on buffers into a private function of its own.";
  let description = [{
    Runs on the CPU after bufferization, after strata-parallelize-loops. In each function with at
    least `min-kernels` loop nests (or, with `min-ops`, nests that hold that much code) (linalg ops on buffers, and the scf.for/scf.parallel nests without
    results directly in the function's body), every such nest becomes a `func.call` of a new
    private `@kernel<k>` (LLVM's `noinline`) that takes the op's operands and the
    values its body reads from outside (constants are cloned into it instead). Ops that print
    the same (locations aside) share one function: a deep network's layers of one shape and a
    long chain's repeated groups compile once. When no two buffer arguments are views of one
    allocation (allocations, globals and the function's arguments told apart; a buffer
    whose allocation is not visible, such as a loop-carried one, counts as shared), the function
    also gets the `strata-noalias-buffers` LLVM attribute, for which jit marks the buffers'
    pointers `noalias`: LLVM vectorizes its loops without run-time overlap checks. LLVM's
    optimization and code generation cost more than linearly in the size of one function
    (register allocation across thousands of calls and loops): a deep train step or a long
    chain compiled as one function took seconds, as one function per loop nest it compiles in
    time linear in the number of nests. A call per loop nest costs nothing measurable at run
    time.

    Before => after:

    ```mlir
    func.func @main(%a: memref<4xf32>, %b: memref<4xf32>) {
      linalg.generic ... ins(%a : memref<4xf32>) outs(%b : memref<4xf32>) { ... }
      return
    }
    // =>
    func.func @main(%a: memref<4xf32>, %b: memref<4xf32>) {
      call @kernel0(%a, %b) : (memref<4xf32>, memref<4xf32>) -> ()
      return
    }
    func.func private @kernel0(%a: memref<4xf32>, %b: memref<4xf32>)
        attributes {passthrough = ["noinline", "strata-noalias-buffers"]} {
      linalg.generic ... ins(%a : memref<4xf32>) outs(%b : memref<4xf32>) { ... }
      return
    }
    ```
  }];
  let options = [
    Option<"minKernels", "min-kernels", "int64_t", /*default=*/"1",
           "Outline only in functions with at least this many loop nests">,
    Option<"minOps", "min-ops", "int64_t", /*default=*/"0",
           "Outline also in functions whose nests hold at least this many operations, a math "
           "op counting as 32 (strata-approximate-math expands it to a polynomial); 0: never">,
  ];
  let dependentDialects = ["::mlir::func::FuncDialect"];
}

def StrataUniqueResults : Pass<"strata-unique-results"> {
  let summary = "Gives every returned tensor its own value (a copy at each repeat).";
  let description = [{
    When a function returns the same tensor value at several result positions (the staged
    function computed `x * 2` twice and CSE merged them), each repeat becomes a
    `linalg.copy` into a fresh `tensor.empty`, so that one-shot bufferization and
    buffer-results-to-out-params give every result its own buffer (the latter crashes on a
    buffer returned twice). Runs on tensors, before bufferization.

    Before => after:

    ```mlir
    return %0, %0 : tensor<3xf32>, tensor<3xf32>
    // =>
    %1 = tensor.empty() : tensor<3xf32>
    %2 = linalg.copy ins(%0 : tensor<3xf32>) outs(%1 : tensor<3xf32>) -> tensor<3xf32>
    return %0, %2 : tensor<3xf32>, tensor<3xf32>
    ```
  }];
  let dependentDialects = ["::mlir::linalg::LinalgDialect", "::mlir::tensor::TensorDialect"];
}

def StrataGpuKernels : Pass<"strata-gpu-kernels", "::mlir::func::FuncOp"> {
  let summary = "Turns linalg ops on buffers into GPU kernels shaped for their access pattern.";
  let description = [{
    Part of `strata-lower-to-nvvm` (its "gpu" stage), after bufferization: each linalg op on
    statically shaped buffers at the top of a host function becomes a `gpu.launch` (1-D grid,
    1-D blocks of at most `block-size` threads), in program order. Named ops (fill, copy,
    transpose, a contraction strata-linalg-to-blas left) are generalized first, and a
    `memref.copy` between non-contiguous views (a strided slice) becomes a copy kernel. Ops it
    does not take (an argmax over a leading axis, dynamic shapes, anything inside a kernel
    loop) stay for `strata-gpu-map-loops`. The blocks of host control flow (the bodies of lowered
    while_loops and scans, the branches of conds) are treated like the function's: each
    step launches the same kernels.

    - All-parallel ops: a grid-stride loop, `min(ceil(chunks / threads), max-blocks)` blocks.
      A thread takes chunks of up to 16 bytes of consecutive innermost elements (4 x f32, 2 x
      f64, 8 x f16): operands contiguous along the innermost loop dimension are read and
      written with one aligned vector access (`ld.global.v4.b32`), operands that do not depend
      on it with one load, others one load per element. An op whose operands are all the op's
      shape through identity maps is one flat loop (collapsed views), with a scalar tail when
      its size is no multiple of the vector width; otherwise vectors need an innermost extent
      they divide.
    - Row groups: a row reduction (leading parallel dimensions, trailing reduction dimensions,
      an associative combiner with a neutral element: add, mul, min, max, and, or, xor) and
      the adjacent ops over the same rows (elementwise over the row, per-row epilogues, the
      fills of the accumulators) become ONE kernel: softmax, layer norm, log-sum-exp. A row
      runs on a warp (rows of at most 32 chunks; several rows per block) or a block; thread
      `lane` owns the same chunks of the row in every op, so row temporaries never cross
      threads: with at most 8 chunks per thread they stay in registers and their buffers
      disappear when nothing outside the group reads them. Each row reduction combines the
      thread's chunks, then the warp with `gpu.shuffle xor` (`shfl.sync.bfly`), then across
      warps through shared memory; every thread gets the row's result.
    - Adjacent all-parallel ops over the same iteration space (a fusion group with several
      results: a bias add and its relu) are one grid-stride kernel; a temporary only they use
      stays in registers.
    - Full reductions: a grid-stride kernel writes one partial per block (block reduction as
      above) to a temporary, a one-block kernel combines the partials in a fixed order with the
      initial value (a fill just before is folded in): deterministic, no atomics.
    - Other reductions (a column sum): one thread per output element, looping over the
      reduction in order; adjacent threads take adjacent columns (coalesced).
    - argmax/argmin over the last axis: a team per row like a row reduction; each thread scans
      its elements with the op's own body, then (value, index) pairs combine by shuffles and
      shared memory (the pair the body prefers both ways, else the lower index: the
      sequential scan's first extremum, first NaN).

    Float sums are reassociated (per-thread partials, then a butterfly): the result may differ
    from the sequential loop's in the last bits, as with cuDNN or XLA. Vector accesses assume
    buffers aligned to 16 bytes (the runtime's device allocations are, and memref.alloc asks
    for 64); an operand with a dynamic or unaligned offset or stride is read per element.

    Before => after (softmax rows of 1000 f32, block-size 256):

    ```mlir
    linalg.fill ins(%ninf) outs(%max : memref<8xf32>)
    linalg.generic {..., iterator_types = ["parallel", "reduction"]} ins(%x) outs(%max) { maximumf }
    linalg.generic {...} ins(%x, %max) outs(%e : memref<8x1000xf32>) { subf, exp }
    ... (sum of %e, divide)
    // =>
    gpu.launch blocks(...) in (%c8, ...) threads(...) in (%c256, ...)
        workgroup(%wg0 : memref<8xf32, #gpu.address_space<workgroup>>, ...) {
      scf.for %row = %bid to %c8 step %c8 {
        %v = vector.load %x[%row, %col] {alignment = 16} : memref<8x1000xf32>, vector<4xf32>
        ... gpu.shuffle xor ... gpu.barrier ... memref.store %m, %wg0[%warp] ...
        vector.store %y, %out[%row, %col] {alignment = 16} : memref<8x1000xf32>, vector<4xf32>
      }
    }
    ```
  }];
  let options = [
    Option<"blockSize", "block-size", "int64_t", /*default=*/"256",
           "Most threads per block (a multiple of 32)">,
    Option<"maxBlocks", "max-blocks", "int64_t", /*default=*/"1056",
           "Most blocks per grid (the runtime passes 8 per SM; 1056 = 8 x 132 SMs of an H100/H200)">,
  ];
  let dependentDialects = ["::mlir::gpu::GPUDialect", "::mlir::scf::SCFDialect",
                           "::mlir::vector::VectorDialect", "::mlir::memref::MemRefDialect",
                           "::mlir::arith::ArithDialect", "::mlir::affine::AffineDialect",
                           "::mlir::linalg::LinalgDialect"];
}

def StrataGpuMapLoops : Pass<"strata-gpu-map-loops", "::mlir::func::FuncOp"> {
  let summary = "Maps each outermost loop nest to a 1-D grid of 1-D blocks for a GPU kernel.";
  let description = [{
    Part of `strata-lower-to-nvvm`, for what `strata-gpu-kernels` leaves (argmax, dynamic
    shapes, loop nests inside scans): gives every outermost loop nest of a host function a GPU
    mapping that `convert-parallel-loops-to-gpu` turns into one kernel launch. An
    `scf.parallel` is collapsed to one dimension (so any rank maps, and the grid's y/z limits
    never bind), then tiled into 1-D blocks of `block-size` threads with a bounds check; the
    outer loop maps to block x, the inner one to thread x. A sequential `scf.for` nest outside
    any parallel loop (a full reduction) is wrapped in a one-iteration `scf.parallel` on block
    x, so no loop is left on the host touching device buffers; so is a lone `memref.store`. A
    `memref.copy` inside a loop that becomes a kernel becomes a loop nest first: device code
    has no `memrefCopy` runtime function. Host control flow stays on the host: an `scf.for`,
    `scf.while`, `scf.if` or `scf.index_switch` whose body holds parallel loops, kernels,
    runtime calls, linalg ops or buffer allocations (a lowered while_loop, scan or cond) is
    no root; the loop nests in its body are mapped one by one (each step launches kernels),
    its contiguous copies stay `memref.copy` (a device-to-device `gpu.memcpy`), and a
    condition it loads is read on the host (strata-gpu-host-memory's runtime read).

    Before => after (block-size 256):

    ```mlir
    scf.parallel (%i, %j) = (%c0, %c0) to (%c64, %c1024) step (%c1, %c1) { ... }
    // =>
    scf.parallel (%b) = (%c0) to (%c256) step (%c1) {      // mapping: block x
      scf.parallel (%t) = (%c0) to (%c256) step (%c1) {    // mapping: thread x
        %g = b * 256 + t;  scf.if (%g < 65536) { ... i = g / 1024, j = g % 1024 ... }
      }
    }
    ```
  }];
  let options = [
    Option<"blockSize", "block-size", "int64_t", /*default=*/"256", "Threads per block">,
  ];
  let dependentDialects = ["::mlir::gpu::GPUDialect", "::mlir::scf::SCFDialect",
                           "::mlir::linalg::LinalgDialect"];
}

def StrataNvvmIntrinsics : Pass<"strata-nvvm-intrinsics", "::mlir::gpu::GPUModuleOp"> {
  let summary = "Replaces libdevice calls that have an exact LLVM intrinsic by the intrinsic.";
  let description = [{
    Runs after `convert-gpu-to-nvvm` in `strata-lower-to-nvvm`: its libdevice calls that have
    an exact LLVM intrinsic (floor, ceil, trunc, fabs, fma, sqrt, copysign: one PTX instruction
    each, IEEE-rounded) become that intrinsic again, and rsqrt becomes 1 / sqrt (as the CPU
    computes it), so kernels of strata-approximate-math's polynomials need no libdevice and the PTX does not depend on where (or whether) the CUDA
    toolkit is found. The intrinsics cannot be made earlier: convert-gpu-to-nvvm marks
    `llvm.intr.floor` and `llvm.intr.sqrt` illegal. Other libdevice calls stay.

    Before => after:

    ```mlir
    %1 = llvm.call @__nv_fmaf(%a, %b, %c) : (f32, f32, f32) -> f32
    // =>
    %1 = llvm.intr.fma(%a, %b, %c) : (f32, f32, f32) -> f32
    ```
  }];
}

def StrataGpuHostMemory : Pass<"strata-gpu-host-memory", "::mlir::ModuleOp"> {
  let summary = "Puts the buffers of host functions in device memory, for gpu-to-llvm.";
  let description = [{
    Runs in `strata-lower-to-nvvm`'s "host" stage, after kernel outlining: in a host function
    (one outside a `gpu.module`) every buffer is touched only by kernels, cuBLAS calls and
    copies, so it must live on the device. `memref.alloc`/`memref.dealloc` become
    `gpu.alloc`/`gpu.dealloc` (the runtime's caching allocator, through `mgpuMemAlloc`),
    `memref.copy` becomes `gpu.memcpy`, and a `memref.get_global` (a small constant the staging
    inlined) is copied into a fresh device buffer where it is read. `gpu-async-region` then
    chains all of them with the launches on one stream. A scalar the host reads (a
    `dynamic_slice` start index, a `pad` value) goes through `strata_rt_cuda_to_host`, which
    waits for the stream and copies the element into a host `memref.alloca`. A host function
    that stores into a buffer is an error: that work belongs in a kernel.

    Before => after:

    ```mlir
    %0 = memref.alloc() : memref<64xf32>
    %1 = memref.get_global @__constant_3xf32 : memref<3xf32>
    // =>
    %0 = gpu.alloc () : memref<64xf32>
    %g = memref.get_global @__constant_3xf32 : memref<3xf32>
    %1 = gpu.alloc () : memref<3xf32>
    gpu.memcpy %1, %g : memref<3xf32>, memref<3xf32>
    ```
  }];
  let dependentDialects = ["::mlir::gpu::GPUDialect", "::mlir::arith::ArithDialect",
                           "::mlir::func::FuncDialect", "::mlir::memref::MemRefDialect"];
}

// ---- linalg -------------------------------------------------------------------------------

def StrataLinalgToRuntime : Pass<"strata-linalg-to-runtime", "::mlir::ModuleOp"> {
  let summary = "Turns the linear-algebra ops into calls of the runtime's linear-algebra kernels.";
  let description = [{
    Runs on a module before strata-lower-to-linalg. In the CPU pipeline (compiled code calls
    host functions on host buffers) every `strata.cholesky`, `triangular_solve`, `lu`,
    `lu_pivots_to_permutation`, `qr`, `eigh` and `svd` on static tensors becomes one call of
    the libstrata kernel that the eager primitive runs (OpenBLAS's LAPACK, batched over the
    leading dimensions), so that jit and eager agree bit for bit. Operands are read through
    `bufferization.to_buffer`, results are fresh `memref.alloc`s read back with
    `bufferization.to_tensor`, as in strata-sort-scan-to-runtime; the calls take i64 scalars
    only: the dtype code, the batch and matrix sizes, addresses and flags. A dynamic shape is
    an error.

    Before => after:

    ```mlir
    %l = strata.cholesky %x : (tensor<2x3x3xf64>) -> tensor<2x3x3xf64>
    // =>
    %in = bufferization.to_buffer %x read_only : tensor<2x3x3xf64> to memref<2x3x3xf64>
    %out = memref.alloc() : memref<2x3x3xf64>
    call @strata_rt_cholesky(%c12, %c2, %c3, %pin, %pout) : (i64, i64, i64, i64, i64) -> ()
    %l = bufferization.to_tensor %out restrict writable : memref<2x3x3xf64> to tensor<2x3x3xf64>
    ```

    With `cuda=true` (strata-lower-to-nvvm's "linalg" stage) the calls are of the CUDA
    runtime's `strata_rt_cuda_<op>` functions, with the same arguments: the buffers are device
    buffers there (strata-gpu-host-memory allocates them with `gpu.alloc`), and the functions
    run on the device's stream.
  }];
  let options = [
    Option<"cuda", "cuda", "bool", /*default=*/"false",
           "Call the CUDA runtime's strata_rt_cuda_<op> on device buffers">,
  ];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::bufferization::BufferizationDialect",
    "::mlir::func::FuncDialect",
    "::mlir::memref::MemRefDialect",
  ];
}

//===----------------------------------------------------------------------------------===//
// Fourier transforms (fft family)
//===----------------------------------------------------------------------------------===//

def StrataFftToRuntime : Pass<"strata-fft-to-runtime", "::mlir::ModuleOp"> {
  let summary = "Turns strata.fft into calls of the CPU or CUDA runtime's FFT.";
  let description = [{
    Runs on a module before strata-lower-to-linalg. Every
    `strata.fft` on static tensors becomes one call of libstrata's FFT kernel (FFTW with
    cached plans), the one the eager primitive runs, so jit and eager agree bit for bit. The
    operand is read through `bufferization.to_buffer` and the result is a fresh `memref.alloc`
    read back with `bufferization.to_tensor`, as strata-sort-scan-to-runtime does. The call
    takes scalars only: `strata_rt_fft(kind, real_dtype, rank, n0, n1, n2, batch, in, out)`
    with kind 0 FFT, 1 IFFT, 2 RFFT, 3 IRFFT, the transform's real dtype code, the lengths
    (unused ones 1) and the product of the leading dimensions.

    Before => after:

    ```mlir
    %0 = strata.fft %x, fft_type = "RFFT", fft_lengths = [8]
        : (tensor<3x8xf32>) -> tensor<3x5xcomplex<f32>>
    // =>
    %in = bufferization.to_buffer %x read_only : tensor<3x8xf32> to memref<3x8xf32>
    %out = memref.alloc() : memref<3x5xcomplex<f32>>
    ... (their aligned pointers as i64)
    call @strata_rt_fft(%c2, %c11, %c1, %c8, %c1, %c1, %c3, %pin, %pout) : (i64, ...) -> ()
    %0 = bufferization.to_tensor %out restrict writable : ...
    ```

    With `cuda=true` (strata-lower-to-nvvm's "linalg" stage) the call is of the CUDA runtime's
    `strata_rt_cuda_fft` (cuFFT, plans cached per device), with the same arguments: the
    buffers are device memory there.
  }];
  let options = [
    Option<"cuda", "cuda", "bool", /*default=*/"false",
           "Call the CUDA runtime's strata_rt_cuda_fft on device buffers">,
  ];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::bufferization::BufferizationDialect",
    "::mlir::func::FuncDialect",
    "::mlir::memref::MemRefDialect",
  ];
}

// ---- Convolution
def StrataConvToRuntime : Pass<"strata-conv-to-runtime", "::mlir::ModuleOp"> {
  let summary = "Turns convolutions into calls of the CPU runtime's convolution kernel.";
  let description = [{
    Runs on a module before strata-lower-to-linalg. Every
    `strata.conv_general_dilated` on static tensors with a non-empty result becomes one call of
    `strata_rt_conv`, which runs libstrata's kernel (oneDNN in f32, im2col over BLIS gemm
    otherwise), the one the eager primitive runs, so jit and eager agree bit for bit. The
    operands are read through `bufferization.to_buffer`, the result is a fresh `memref.alloc`
    read back with `bufferization.to_tensor`; the convolution's sizes, strides, padding,
    dilations and groups travel as a constant i64 table (`strata::ConvProblem::encode`).

    Epilogues: when the convolution's only user is a `strata.fusion` whose body starts with an
    add of a bias broadcast along the output feature dimension, an activation (relu = max with
    0, clamp = max/min with constants (relu6, clip), leaky relu, tanh, logistic, silu
    `x * logistic(x)`, JAX's tanh gelu), or both, on an f32 or f64 result, the call is
    `strata_rt_conv_epilogue` instead: the bias operand's buffer (or 0) and a constant f64
    table (activation, alpha, beta; `strata::ConvEpilogue`) travel with it, and the kernel
    applies them before the output is written (oneDNN's bias argument and eltwise post-op,
    or per output block after the im2col gemm). The fusion then reads the call's result
    where it read the epilogue's; results that would only pass it through go, and a fusion
    left with nothing else goes. An activation whose input is also read elsewhere (relu's
    gradient reads the pre-activation) stays in the fusion and only the bias folds.

    Before => after:

    ```mlir
    %y = strata.conv_general_dilated %x, %w, window_strides = [1, 1], ...
        : (tensor<8x3x32x32xf32>, tensor<16x3x3x3xf32>) -> tensor<8x16x32x32xf32>
    // =>
    %p = bufferization.to_buffer %problem read_only : tensor<46xi64> to memref<46xi64>
    %out = memref.alloc() : memref<8x16x32x32xf32>
    call @strata_rt_conv(%c11, %c11, %px, %pw, %pout, %pp) : (i64, ...) -> ()
    %y = bufferization.to_tensor %out restrict writable : ...
    ```

    With `cuda=true` (strata-lower-to-nvvm's "linalg" stage) the call is of the CUDA runtime's
    `strata_rt_cuda_conv` (cuDNN's forward convolution, algorithm from its heuristics), with the
    same arguments on device buffers, for the convolutions cuDNN takes
    (runtime/cuda/DnnSupport.h: 1-3 spatial dimensions, symmetric padding, no lhs dilation,
    batch_group_count 1, f32/f64/f16/bf16 in and out, a packed OIHW or OHWI filter); the others
    stay for strata-lower-to-linalg's generated kernels.
  }];
  let options = [
    Option<"cuda", "cuda", "bool", /*default=*/"false",
           "Call the CUDA runtime's strata_rt_cuda_conv (cuDNN) for the convolutions cuDNN "
           "takes; leave the others to the generated kernels">,
  ];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::bufferization::BufferizationDialect",
    "::mlir::func::FuncDialect",
    "::mlir::memref::MemRefDialect",
  ];
}

// ---- Windowed reductions
def StrataWindowToRuntime : Pass<"strata-window-to-runtime", "::mlir::ModuleOp"> {
  let summary = "Turns windowed sums into calls of the CPU runtime's window-sum kernel.";
  let description = [{
    Runs on a module before strata-lower-to-linalg, in the CPU pipeline only. Every
    `strata.reduce_window_sum` on static tensors of a numeric dtype becomes one call of
    `strata_rt_window_sum`, which runs libstrata's kernel, the one the eager primitive runs:
    windows of 16 or more float elements along the last dimension slide (differences of
    running sums in double, O(1) per output), the rest add one window element at a time in
    vectorizable runs without padding the operand. jit and eager agree bit for bit. The window
    travels as a constant i64 table (`strata::WindowProblem::encode`); an empty result needs
    no call. The GPU keeps strata-lower-to-linalg's generic.

    Before => after:

    ```mlir
    %y = strata.reduce_window_sum %x, window_dimensions = [1, 64], ...
        : (tensor<64x16384xf32>) -> tensor<64x16384xf32>
    // =>
    %out = memref.alloc() : memref<64x16384xf32>
    call @strata_rt_window_sum(%c11, %px, %pout, %pp) : (i64, i64, i64, i64) -> ()
    %y = bufferization.to_tensor %out restrict writable : ...
    ```
  }];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::bufferization::BufferizationDialect",
    "::mlir::func::FuncDialect",
    "::mlir::memref::MemRefDialect",
  ];
}

#endif // STRATA_PASSES_TD
