//===- StrataInterfaces.td - Interfaces of the strata dialect ------------*- tablegen -*-===//
//
// The interface that ties each strata op to the primitive whose rules it follows.
//
//===----------------------------------------------------------------------------------===//

#ifndef STRATA_INTERFACES_TD
#define STRATA_INTERFACES_TD

include "mlir/IR/Interfaces.td"

def Strata_PrimitiveOpInterface : OpInterface<"PrimitiveOpInterface"> {
  let cppNamespace = "::mlir::strata";
  let description = [{
    An op that applies one Strata primitive. Its verifier runs the primitive's C++ shape rule
    (the one libstrata's tracer uses), so a shape rule lives in one place for the tracer and
    the IR: operand types become abstract values, inherent attributes become the primitive's
    parameters, and the result types must equal what the rule returns.
  }];
  let methods = [
    InterfaceMethod<
      "The name of the primitive this op applies (the op name without `strata.`).",
      "::llvm::StringRef", "getPrimitiveName", (ins), [{}],
      [{ return $_op->getName().stripDialect(); }]>,
    InterfaceMethod<
      [{Primitive parameters that the IR carries in the result type rather than in an
        attribute (the target shape of a reshape, the new dtype of a convert).}],
      "::mlir::DictionaryAttr", "getImpliedParams", (ins), [{}],
      [{ return ::mlir::DictionaryAttr::get($_op->getContext()); }]>,
  ];
  let verify = [{ return ::mlir::strata::verifyPrimitiveOp($_op); }];
}

#endif // STRATA_INTERFACES_TD
