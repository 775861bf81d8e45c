// The op categories of the strata dialect (StrataTraits.td): marker traits that passes and
// lowerings read with `op->hasTrait<...>()`, and the monoid of a reduction or scan.
#pragma once

#include "mlir/IR/OpDefinition.h"

#include <optional>

namespace mlir::strata {

namespace traits {
#define STRATA_MARKER_TRAIT(Name)                                                                  \
  template <typename ConcreteType>                                                                 \
  class Name : public ::mlir::OpTrait::TraitBase<ConcreteType, Name> {};
/// Result element i depends only on operand element i: libstrata's kElementwise.
STRATA_MARKER_TRAIT(Elementwise)
/// May join a fused loop nest or kernel: libstrata's kFusible.
STRATA_MARKER_TRAIT(Fusible)
/// Reduces over axes with a monoid: libstrata's kReduction.
STRATA_MARKER_TRAIT(Reduction)
/// The monoid of a reduction or cumulative scan.
STRATA_MARKER_TRAIT(SumMonoid)
STRATA_MARKER_TRAIT(ProdMonoid)
STRATA_MARKER_TRAIT(MaxMonoid)
STRATA_MARKER_TRAIT(MinMonoid)
/// The identity once differentiation is done.
STRATA_MARKER_TRAIT(Identity)
/// Float operands only; integer (bool included) operands only; anything but bool.
STRATA_MARKER_TRAIT(FloatOnly)
STRATA_MARKER_TRAIT(IntegerOnly)
STRATA_MARKER_TRAIT(NotBool)
#undef STRATA_MARKER_TRAIT
} // namespace traits

/// How a reduction or cumulative scan combines elements.
enum class Monoid { Sum, Prod, Max, Min };

/// The monoid `op` declares (a *Monoid trait); none for other ops.
inline std::optional<Monoid> monoidOf(Operation *op) {
  if (op->hasTrait<traits::SumMonoid>())
    return Monoid::Sum;
  if (op->hasTrait<traits::ProdMonoid>())
    return Monoid::Prod;
  if (op->hasTrait<traits::MaxMonoid>())
    return Monoid::Max;
  if (op->hasTrait<traits::MinMonoid>())
    return Monoid::Min;
  return std::nullopt;
}

} // namespace mlir::strata
