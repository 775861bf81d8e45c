// The scalar semantics of Strata's primitives as arith/math/scf ops: what one element of a
// lowered op computes, matching libstrata's reference implementations bit for bit where they
// are exact and within their documented error where they are not.
#pragma once

#include "dialects/strata/StrataTraits.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/Value.h"

#include <cstdint>
#include <utility>

namespace mlir::strata::lowering {

/// A constant of scalar type `t`: `f` when `t` is a float type, else the integer `i`.
Value scalarConst(OpBuilder &b, Location loc, Type t, double f, int64_t i);

/// atan2(y, x) as libm computes it, both zeros included.
Value emitAtan2(OpBuilder &b, Location loc, Value y, Value x);
/// The identity of monoid `m` on `t`: 0 (sum), 1 (prod), the lowest (max) or highest (min)
/// value.
Value reductionIdentity(OpBuilder &b, Location loc, Type t, bool uns, Monoid m);
/// `x` and `y` combined by monoid `m` (emitAdd, emitMul, emitMax or emitMin).
Value emitMonoid(OpBuilder &b, Location loc, Monoid m, Value x, Value y, bool uns);
/// Max/min of two scalars: NaN-propagating for floats and complex numbers (ordered
/// lexicographically, as XLA's); unsigned for bool and uiN.
Value emitMax(OpBuilder &b, Location loc, Value x, Value y, bool uns);
Value emitMin(OpBuilder &b, Location loc, Value x, Value y, bool uns);
/// x + y and x * y; on bool, or and and.
Value emitAdd(OpBuilder &b, Location loc, Value x, Value y);
Value emitMul(OpBuilder &b, Location loc, Value x, Value y);
/// `a > b` (or `a < b` when !greater): ordered for floats, lexicographic for complex numbers,
/// unsigned for bool and uiN.
Value emitGreater(OpBuilder &b, Location loc, Value a, Value c, bool uns, bool greater);
/// Whether float `x` is NaN (complex `x`: either part).
Value isNan(OpBuilder &b, Location loc, Value x);
/// libstrata's running max/min step: keeps `acc` when it is strictly better or NaN, else
/// takes `v` (NaN propagates and ties take the newer value).
Value emitScanExtremum(OpBuilder &b, Location loc, Value acc, Value v, bool uns, bool isMax);
/// Converts scalar `x` (signless; unsigned when `fromUns`) to signless `to` (unsigned when
/// `toUns`) as libstrata does: bool is 0/1, x != 0 to bool, float -> int truncates toward
/// zero and saturates, NaN -> 0.
Value emitConvert(OpBuilder &b, Location loc, Value x, bool fromUns, Type to, bool toUns);
/// `x^n` by square-and-multiply (n >= 0).
Value emitPow(OpBuilder &b, Location loc, Value x, uint64_t n);
/// erf^-1 as libstrata computes it (in f64, rounded to x's type).
Value emitErfInv(OpBuilder &b, Location loc, Value x);
/// nextafter as libstrata steps it: on the storage bits of x's own format.
Value emitNextafter(OpBuilder &b, Location loc, Value x, Value y);

// libstrata's f64 special functions (lib/primitives/elementwise.cpp): each extends its float
// operands to f64, runs the f64 algorithm and rounds the result back to the operands' type.

/// log |Gamma(x)|.
Value emitLgamma(OpBuilder &b, Location loc, Value x);
/// digamma(x).
Value emitDigamma(OpBuilder &b, Location loc, Value x);
/// Hurwitz zeta(s, q).
Value emitZeta(OpBuilder &b, Location loc, Value s, Value q);
/// polygamma(n, x).
Value emitPolygamma(OpBuilder &b, Location loc, Value n, Value x);
/// What emitIgamma computes: P(a, x), dP/da, or the derivative of a gamma sample in a.
enum class IgammaMode { Value, Derivative, SampleDerivative };
/// The regularized lower incomplete gamma P(a, x) or one of its derivatives.
Value emitIgamma(OpBuilder &b, Location loc, Value a, Value x, IgammaMode mode);
/// The regularized upper incomplete gamma Q(a, x).
Value emitIgammac(OpBuilder &b, Location loc, Value a, Value x);
/// The exponentially scaled modified Bessel function of order 0 (or 1 when `order1`).
Value emitBesselExp(OpBuilder &b, Location loc, Value x, bool order1);
/// The regularized incomplete beta I_x(a, b).
Value emitBetainc(OpBuilder &b, Location loc, Value a, Value bb, Value x);

/// JAX's 20-round Threefry-2x32 block (random_bits.cpp's threefry_block) on i32 scalars: the
/// two output words for key (k0, k1) and counter (x0, x1).
std::pair<Value, Value> emitThreefry2x32(OpBuilder &b, Location loc, Value k0, Value k1, Value x0,
                                         Value x1);

} // namespace mlir::strata::lowering
