//===- StrataTraits.td - Op categories of the strata dialect -------------*- tablegen -*-===//
//
// The categories passes and lowerings ask about (elementwise, fusible, reduction and its
// monoid, the element types an op accepts), declared on the ops so that no pass keeps a list.
// Elementwise, Fusible and Reduction mirror the primitive's libstrata Trait bits; a test
// (test/jit/test_dialect_traits.cpp) checks that the two declarations agree.
//
//===----------------------------------------------------------------------------------===//

#ifndef STRATA_TRAITS_TD
#define STRATA_TRAITS_TD

include "mlir/IR/OpBase.td"

class Strata_OpTrait<string name> : NativeOpTrait<name> {
  let cppNamespace = "::mlir::strata::traits";
}

// Result element i depends only on operand element i (rank-0 operands broadcast): libstrata's
// kElementwise. Lowered as one linalg.generic whose body is the op's scalar semantics.
def Strata_Elementwise : Strata_OpTrait<"Elementwise">;
// May join a fused loop nest or kernel: libstrata's kFusible.
def Strata_Fusible : Strata_OpTrait<"Fusible">;
// Reduces over axes with a monoid (one of the four below): libstrata's kReduction.
def Strata_Reduction : Strata_OpTrait<"Reduction">;
// The monoid a reduction or cumulative scan combines elements with.
def Strata_SumMonoid : Strata_OpTrait<"SumMonoid">;
def Strata_ProdMonoid : Strata_OpTrait<"ProdMonoid">;
def Strata_MaxMonoid : Strata_OpTrait<"MaxMonoid">;
def Strata_MinMonoid : Strata_OpTrait<"MinMonoid">;
// The identity once differentiation is done (stop_gradient, checkpoint_name).
def Strata_Identity : Strata_OpTrait<"Identity">;
// Operand element types the op's shape rule accepts: floats only, integers (bool included)
// only, anything but bool.
def Strata_FloatOnly : Strata_OpTrait<"FloatOnly">;
def Strata_IntegerOnly : Strata_OpTrait<"IntegerOnly">;
def Strata_NotBool : Strata_OpTrait<"NotBool">;

#endif // STRATA_TRAITS_TD
