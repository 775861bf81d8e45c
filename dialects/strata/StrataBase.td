//===- StrataBase.td - The strata dialect and its op base classes --------*- tablegen -*-===//
//
// The dialect definition and one base class per op family.
//
//===----------------------------------------------------------------------------------===//

#ifndef STRATA_BASE_TD
#define STRATA_BASE_TD

include "mlir/IR/OpBase.td"
include "mlir/Interfaces/SideEffectInterfaces.td"
include "StrataInterfaces.td"
include "StrataTraits.td"

def Strata_Dialect : Dialect {
  let name = "strata";
  let cppNamespace = "::mlir::strata";
  let summary = "Strata's IR: one op per primitive, on builtin ranked tensors.";
  let description = [{
    The staging level of `strata.jit` builds a `func.func` of `strata` ops; passes optimize
    and lower it. Every op applies one primitive of libstrata, and its verifier runs that
    primitive's shape rule, so the tracer and the IR agree on shapes and dtypes by
    construction. Element types: i1 (bool), i8, i16, i32, i64, ui8, ui16, ui32, ui64, f16,
    bf16, f32, f64.
  }];
  // Folders produce constants as `arith.constant` (see StrataCanonicalize.cpp).
  let dependentDialects = ["::mlir::arith::ArithDialect"];
  let hasConstantMaterializer = 1;
}

//===----------------------------------------------------------------------------------===//
// Base classes
//===----------------------------------------------------------------------------------===//

// Every strata op is pure and verified by its primitive's shape rule. Operand and result
// constraints are deliberately loose (any ranked tensor): the shape rule is the one check.
class Strata_Op<string mnemonic, list<Trait> traits = []>
    : Op<Strata_Dialect, mnemonic, !listconcat([Pure, Strata_PrimitiveOpInterface], traits)>;

// Structural ops (strata.fusion and its strata.yield) apply no primitive: they derive from
// Op directly, so they carry neither Strata_PrimitiveOpInterface nor its shape-rule verifier.
class Strata_StructuralOp<string mnemonic, list<Trait> traits = []>
    : Op<Strata_Dialect, mnemonic, traits>;

// Elementwise unary primitives: `y = f(x)`.
class Strata_UnaryOp<string mnemonic, list<Trait> traits = []>
    : Strata_Op<mnemonic, !listconcat([Strata_Elementwise, Strata_Fusible], traits)> {
  let arguments = (ins AnyRankedTensor:$operand);
  let results = (outs AnyRankedTensor:$result);
  let assemblyFormat = "$operand attr-dict `:` functional-type(operands, results)";
}

// Elementwise binary primitives on operands of one shape and dtype: `z = f(x, y)`.
class Strata_BinaryOp<string mnemonic, list<Trait> traits = []>
    : Strata_Op<mnemonic, !listconcat([Strata_Elementwise, Strata_Fusible], traits)> {
  let arguments = (ins AnyRankedTensor:$lhs, AnyRankedTensor:$rhs);
  let results = (outs AnyRankedTensor:$result);
  let assemblyFormat = "$lhs `,` $rhs attr-dict `:` functional-type(operands, results)";
}

// Comparisons: binary primitives with a bool (i1) result.
class Strata_CompareOp<string mnemonic, list<Trait> traits = []>
    : Strata_BinaryOp<mnemonic, traits>;

// Reductions over a set of axes, which the result drops.
class Strata_ReduceOp<string mnemonic, list<Trait> traits = []>
    : Strata_Op<mnemonic, !listconcat([Strata_Reduction], traits)> {
  let arguments = (ins AnyRankedTensor:$operand, DenseI64ArrayAttr:$axes);
  let results = (outs AnyRankedTensor:$result);
  let assemblyFormat =
      "$operand `,` `axes` `=` $axes attr-dict `:` functional-type(operands, results)";
}

// Shape ops: move data without arithmetic.
class Strata_ShapeOp<string mnemonic, list<Trait> traits = []>
    : Strata_Op<mnemonic, traits> {
  let results = (outs AnyRankedTensor:$result);
}

// Scans along one axis (cumsum and friends): the result keeps the operand's type.
class Strata_CumulativeOp<string mnemonic, list<Trait> traits = []>
    : Strata_Op<mnemonic, traits> {
  let arguments = (ins AnyRankedTensor:$operand, I64Attr:$axis, BoolAttr:$reverse);
  let results = (outs AnyRankedTensor:$result);
  let assemblyFormat = [{
    $operand `,` `axis` `=` $axis `,` `reverse` `=` $reverse attr-dict `:`
    functional-type(operands, results)
  }];
}

// Index reductions (argmax, argmin): the result drops `axis`; its element type is the
// primitive's `index_dtype`.
class Strata_ArgReduceOp<string mnemonic, list<Trait> traits = []>
    : Strata_Op<mnemonic, traits> {
  let arguments = (ins AnyRankedTensor:$operand, I64Attr:$axis);
  let results = (outs AnyRankedTensor:$result);
  let assemblyFormat =
      "$operand `,` `axis` `=` $axis attr-dict `:` functional-type(operands, results)";
  let extraClassDeclaration = [{
    /// The index dtype is the result's element type.
    ::mlir::DictionaryAttr getImpliedParams() {
      ::mlir::Builder b(getContext());
      auto type = ::llvm::cast<::mlir::ShapedType>(getResult().getType());
      return b.getDictionaryAttr(
          {b.getNamedAttr("index_dtype", ::mlir::TypeAttr::get(type.getElementType()))});
    }
  }];
}

// Scatters (XLA's general form): `updates` windows written into a copy of `operand` at the
// positions `indices` name; the result has the operand's type.
class Strata_ScatterOp<string mnemonic, list<Trait> traits = []>
    : Strata_Op<mnemonic, traits> {
  let arguments = (ins AnyRankedTensor:$operand, AnyRankedTensor:$indices,
                       AnyRankedTensor:$updates, DenseI64ArrayAttr:$update_window_dims,
                       DenseI64ArrayAttr:$inserted_window_dims,
                       DenseI64ArrayAttr:$scatter_dims_to_operand_dims);
  let results = (outs AnyRankedTensor:$result);
  let assemblyFormat = [{
    $operand `,` $indices `,` $updates `,` `update_window_dims` `=` $update_window_dims `,`
    `inserted_window_dims` `=` $inserted_window_dims `,`
    `scatter_dims_to_operand_dims` `=` $scatter_dims_to_operand_dims attr-dict `:`
    functional-type(operands, results)
  }];
}

#endif // STRATA_BASE_TD
