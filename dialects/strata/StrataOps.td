//===- StrataOps.td - Operations of the strata dialect ------------------*- tablegen -*-===//
//
// One op per Strata primitive, grouped by family. Verification is shared: every op runs its
// primitive's C++ shape rule (see StrataInterfaces.td), so no op here repeats a shape check.
//
//===----------------------------------------------------------------------------------===//

#ifndef STRATA_OPS_TD
#define STRATA_OPS_TD

include "StrataBase.td"

//===----------------------------------------------------------------------------------===//
//===== Elementwise unary ops
//===----------------------------------------------------------------------------------===//

//===----------------------------------------------------------------------------------===//
// NegOp
//===----------------------------------------------------------------------------------===//

def Strata_NegOp : Strata_UnaryOp<"neg", [Strata_NotBool]> {
  let hasFolder = 1;
  let summary = "Negates each element.";
  let description = [{
    Elementwise; the result has the operand's shape. `y = -x`; integers wrap.

    Example:

    ```mlir
    %y = strata.neg %x : (tensor<2x3xf32>) -> tensor<2x3xf32>
    ```
  }];
}

//===----------------------------------------------------------------------------------===//
// AbsOp
//===----------------------------------------------------------------------------------===//

def Strata_AbsOp : Strata_UnaryOp<"abs", [Strata_NotBool]> {
  let summary = "Takes the absolute value of each element.";
  let description = [{
    Elementwise; the result has the operand's shape. `y = |x|`; the most negative integer stays
    itself.

    Example:

    ```mlir
    %y = strata.abs %x : (tensor<2x3xf32>) -> tensor<2x3xf32>
    ```
  }];
}

//===----------------------------------------------------------------------------------===//
// SignOp
//===----------------------------------------------------------------------------------===//

def Strata_SignOp : Strata_UnaryOp<"sign", [Strata_NotBool]> {
  let summary = "Takes the sign (-1, 0 or 1) of each element.";
  let description = [{
    Elementwise; the result has the operand's shape. NaN and both zeros map to themselves.

    Example:

    ```mlir
    %y = strata.sign %x : (tensor<2x3xf32>) -> tensor<2x3xf32>
    ```
  }];
}

//===----------------------------------------------------------------------------------===//
// FloorOp
//===----------------------------------------------------------------------------------===//

def Strata_FloorOp : Strata_UnaryOp<"floor", [Strata_FloatOnly]> {
  let summary = "Rounds each element down to an integer value.";
  let description = [{
    Elementwise; the result has the operand's shape. Floating-point operands only.

    Example:

    ```mlir
    %y = strata.floor %x : (tensor<2x3xf32>) -> tensor<2x3xf32>
    ```
  }];
}

//===----------------------------------------------------------------------------------===//
// CeilOp
//===----------------------------------------------------------------------------------===//

def Strata_CeilOp : Strata_UnaryOp<"ceil", [Strata_FloatOnly]> {
  let summary = "Rounds each element up to an integer value.";
  let description = [{
    Elementwise; the result has the operand's shape. Floating-point operands only.

    Example:

    ```mlir
    %y = strata.ceil %x : (tensor<2x3xf32>) -> tensor<2x3xf32>
    ```
  }];
}

//===----------------------------------------------------------------------------------===//
// RoundOp
//===----------------------------------------------------------------------------------===//

def Strata_RoundOp : Strata_UnaryOp<"round", [Strata_FloatOnly]> {
  let summary = "Rounds each element to the nearest integer value, halves to even.";
  let description = [{
    Elementwise; the result has the operand's shape. Floating-point operands only.

    Example:

    ```mlir
    %y = strata.round %x : (tensor<2x3xf32>) -> tensor<2x3xf32>
    ```
  }];
}

//===----------------------------------------------------------------------------------===//
// ExpOp
//===----------------------------------------------------------------------------------===//

def Strata_ExpOp : Strata_UnaryOp<"exp", [Strata_FloatOnly]> {
  let summary = "Computes `e^x` for each element.";
  let description = [{
    Elementwise; the result has the operand's shape. Floating-point operands only.

    Example:

    ```mlir
    %y = strata.exp %x : (tensor<2x3xf32>) -> tensor<2x3xf32>
    ```
  }];
}

//===----------------------------------------------------------------------------------===//
// LogOp
//===----------------------------------------------------------------------------------===//

def Strata_LogOp : Strata_UnaryOp<"log", [Strata_FloatOnly]> {
  let summary = "Computes the natural logarithm of each element.";
  let description = [{
    Elementwise; the result has the operand's shape. Floating-point operands only.

    Example:

    ```mlir
    %y = strata.log %x : (tensor<2x3xf32>) -> tensor<2x3xf32>
    ```
  }];
}

//===----------------------------------------------------------------------------------===//
// Log1pOp
//===----------------------------------------------------------------------------------===//

def Strata_Log1pOp : Strata_UnaryOp<"log1p", [Strata_FloatOnly]> {
  let summary = "Computes `log(1 + x)` for each element, accurately near zero.";
  let description = [{
    Elementwise; the result has the operand's shape. Floating-point operands only.

    Example:

    ```mlir
    %y = strata.log1p %x : (tensor<2x3xf32>) -> tensor<2x3xf32>
    ```
  }];
}

//===----------------------------------------------------------------------------------===//
// Expm1Op
//===----------------------------------------------------------------------------------===//

def Strata_Expm1Op : Strata_UnaryOp<"expm1", [Strata_FloatOnly]> {
  let summary = "Computes `e^x - 1` for each element, accurately near zero.";
  let description = [{
    Elementwise; the result has the operand's shape. Floating-point operands only.

    Example:

    ```mlir
    %y = strata.expm1 %x : (tensor<2x3xf32>) -> tensor<2x3xf32>
    ```
  }];
}

//===----------------------------------------------------------------------------------===//
// SqrtOp
//===----------------------------------------------------------------------------------===//

def Strata_SqrtOp : Strata_UnaryOp<"sqrt", [Strata_FloatOnly]> {
  let summary = "Computes the square root of each element.";
  let description = [{
    Elementwise; the result has the operand's shape. Floating-point operands only.

    Example:

    ```mlir
    %y = strata.sqrt %x : (tensor<2x3xf32>) -> tensor<2x3xf32>
    ```
  }];
}

//===----------------------------------------------------------------------------------===//
// RsqrtOp
//===----------------------------------------------------------------------------------===//

def Strata_RsqrtOp : Strata_UnaryOp<"rsqrt", [Strata_FloatOnly]> {
  let summary = "Computes `1 / sqrt(x)` for each element.";
  let description = [{
    Elementwise; the result has the operand's shape. Floating-point operands only.

    Example:

    ```mlir
    %y = strata.rsqrt %x : (tensor<2x3xf32>) -> tensor<2x3xf32>
    ```
  }];
}

//===----------------------------------------------------------------------------------===//
// SinOp
//===----------------------------------------------------------------------------------===//

def Strata_SinOp : Strata_UnaryOp<"sin", [Strata_FloatOnly]> {
  let summary = "Computes the sine of each element.";
  let description = [{
    Elementwise; the result has the operand's shape. Floating-point operands only.

    Example:

    ```mlir
    %y = strata.sin %x : (tensor<2x3xf32>) -> tensor<2x3xf32>
    ```
  }];
}

//===----------------------------------------------------------------------------------===//
// CosOp
//===----------------------------------------------------------------------------------===//

def Strata_CosOp : Strata_UnaryOp<"cos", [Strata_FloatOnly]> {
  let summary = "Computes the cosine of each element.";
  let description = [{
    Elementwise; the result has the operand's shape. Floating-point operands only.

    Example:

    ```mlir
    %y = strata.cos %x : (tensor<2x3xf32>) -> tensor<2x3xf32>
    ```
  }];
}

//===----------------------------------------------------------------------------------===//
// TanOp
//===----------------------------------------------------------------------------------===//

def Strata_TanOp : Strata_UnaryOp<"tan", [Strata_FloatOnly]> {
  let summary = "Computes the tangent of each element.";
  let description = [{
    Elementwise; the result has the operand's shape. Floating-point operands only.

    Example:

    ```mlir
    %y = strata.tan %x : (tensor<2x3xf32>) -> tensor<2x3xf32>
    ```
  }];
}

//===----------------------------------------------------------------------------------===//
// TanhOp
//===----------------------------------------------------------------------------------===//

def Strata_TanhOp : Strata_UnaryOp<"tanh", [Strata_FloatOnly]> {
  let summary = "Computes the hyperbolic tangent of each element.";
  let description = [{
    Elementwise; the result has the operand's shape. Floating-point operands only.

    Example:

    ```mlir
    %y = strata.tanh %x : (tensor<2x3xf32>) -> tensor<2x3xf32>
    ```
  }];
}

//===----------------------------------------------------------------------------------===//
// LogisticOp
//===----------------------------------------------------------------------------------===//

def Strata_LogisticOp : Strata_UnaryOp<"logistic", [Strata_FloatOnly]> {
  let summary = "Computes the logistic sigmoid `1 / (1 + e^-x)` of each element.";
  let description = [{
    Elementwise; the result has the operand's shape. Floating-point operands only.

    Example:

    ```mlir
    %y = strata.logistic %x : (tensor<2x3xf32>) -> tensor<2x3xf32>
    ```
  }];
}

//===----------------------------------------------------------------------------------===//
// ErfOp
//===----------------------------------------------------------------------------------===//

def Strata_ErfOp : Strata_UnaryOp<"erf", [Strata_FloatOnly]> {
  let summary = "Computes the error function of each element.";
  let description = [{
    Elementwise; the result has the operand's shape. Floating-point operands only.

    Example:

    ```mlir
    %y = strata.erf %x : (tensor<2x3xf32>) -> tensor<2x3xf32>
    ```
  }];
}

//===----------------------------------------------------------------------------------===//
// ErfInvOp
//===----------------------------------------------------------------------------------===//

def Strata_ErfInvOp : Strata_UnaryOp<"erf_inv", [Strata_FloatOnly]> {
  let summary = "Computes the inverse error function of each element.";
  let description = [{
    Elementwise; the result has the operand's shape. Floating-point operands only; the domain is
    (-1, 1).

    Example:

    ```mlir
    %y = strata.erf_inv %x : (tensor<2x3xf32>) -> tensor<2x3xf32>
    ```
  }];
}

//===----------------------------------------------------------------------------------===//
// SinhOp
//===----------------------------------------------------------------------------------===//

def Strata_SinhOp : Strata_UnaryOp<"sinh", [Strata_FloatOnly]> {
  let summary = "Computes the hyperbolic sine of each element.";
  let description = [{
    Elementwise; the result has the operand's shape. Floating-point operands only.

    Example:

    ```mlir
    %y = strata.sinh %x : (tensor<2x3xf32>) -> tensor<2x3xf32>
    ```
  }];
}

//===----------------------------------------------------------------------------------===//
// CoshOp
//===----------------------------------------------------------------------------------===//

def Strata_CoshOp : Strata_UnaryOp<"cosh", [Strata_FloatOnly]> {
  let summary = "Computes the hyperbolic cosine of each element.";
  let description = [{
    Elementwise; the result has the operand's shape. Floating-point operands only.

    Example:

    ```mlir
    %y = strata.cosh %x : (tensor<2x3xf32>) -> tensor<2x3xf32>
    ```
  }];
}

//===----------------------------------------------------------------------------------===//
// AsinOp
//===----------------------------------------------------------------------------------===//

def Strata_AsinOp : Strata_UnaryOp<"asin", [Strata_FloatOnly]> {
  let summary = "Computes the arcsine of each element.";
  let description = [{
    Elementwise; the result has the operand's shape. Floating-point operands only.

    Example:

    ```mlir
    %y = strata.asin %x : (tensor<2x3xf32>) -> tensor<2x3xf32>
    ```
  }];
}

//===----------------------------------------------------------------------------------===//
// AcosOp
//===----------------------------------------------------------------------------------===//

def Strata_AcosOp : Strata_UnaryOp<"acos", [Strata_FloatOnly]> {
  let summary = "Computes the arccosine of each element.";
  let description = [{
    Elementwise; the result has the operand's shape. Floating-point operands only.

    Example:

    ```mlir
    %y = strata.acos %x : (tensor<2x3xf32>) -> tensor<2x3xf32>
    ```
  }];
}

//===----------------------------------------------------------------------------------===//
// AtanOp
//===----------------------------------------------------------------------------------===//

def Strata_AtanOp : Strata_UnaryOp<"atan", [Strata_FloatOnly]> {
  let summary = "Computes the arctangent of each element.";
  let description = [{
    Elementwise; the result has the operand's shape. Floating-point operands only.

    Example:

    ```mlir
    %y = strata.atan %x : (tensor<2x3xf32>) -> tensor<2x3xf32>
    ```
  }];
}

//===----------------------------------------------------------------------------------===//
// AsinhOp
//===----------------------------------------------------------------------------------===//

def Strata_AsinhOp : Strata_UnaryOp<"asinh", [Strata_FloatOnly]> {
  let summary = "Computes the inverse hyperbolic sine of each element.";
  let description = [{
    Elementwise; the result has the operand's shape. Floating-point operands only.

    Example:

    ```mlir
    %y = strata.asinh %x : (tensor<2x3xf32>) -> tensor<2x3xf32>
    ```
  }];
}

//===----------------------------------------------------------------------------------===//
// AcoshOp
//===----------------------------------------------------------------------------------===//

def Strata_AcoshOp : Strata_UnaryOp<"acosh", [Strata_FloatOnly]> {
  let summary = "Computes the inverse hyperbolic cosine of each element.";
  let description = [{
    Elementwise; the result has the operand's shape. Floating-point operands only.

    Example:

    ```mlir
    %y = strata.acosh %x : (tensor<2x3xf32>) -> tensor<2x3xf32>
    ```
  }];
}

//===----------------------------------------------------------------------------------===//
// AtanhOp
//===----------------------------------------------------------------------------------===//

def Strata_AtanhOp : Strata_UnaryOp<"atanh", [Strata_FloatOnly]> {
  let summary = "Computes the inverse hyperbolic tangent of each element.";
  let description = [{
    Elementwise; the result has the operand's shape. Floating-point operands only.

    Example:

    ```mlir
    %y = strata.atanh %x : (tensor<2x3xf32>) -> tensor<2x3xf32>
    ```
  }];
}

//===----------------------------------------------------------------------------------===//
// CbrtOp
//===----------------------------------------------------------------------------------===//

def Strata_CbrtOp : Strata_UnaryOp<"cbrt", [Strata_FloatOnly]> {
  let summary = "Computes the cube root of each element.";
  let description = [{
    Elementwise; the result has the operand's shape. Floating-point operands only.

    Example:

    ```mlir
    %y = strata.cbrt %x : (tensor<2x3xf32>) -> tensor<2x3xf32>
    ```
  }];
}

//===----------------------------------------------------------------------------------===//
// Exp2Op
//===----------------------------------------------------------------------------------===//

def Strata_Exp2Op : Strata_UnaryOp<"exp2", [Strata_FloatOnly]> {
  let summary = "Computes `2^x` of each element.";
  let description = [{
    Elementwise; the result has the operand's shape. Floating-point operands only.

    Example:

    ```mlir
    %y = strata.exp2 %x : (tensor<2x3xf32>) -> tensor<2x3xf32>
    ```
  }];
}

//===----------------------------------------------------------------------------------===//
// PopulationCountOp
//===----------------------------------------------------------------------------------===//

def Strata_PopulationCountOp : Strata_UnaryOp<"population_count",
    [Strata_IntegerOnly, Strata_NotBool]> {
  let summary = "Counts the set bits of each element.";
  let description = [{
    Elementwise; the result has the operand's shape and dtype. Integer operands only (not
    bool); the sign bit counts.

    Example:

    ```mlir
    %y = strata.population_count %i : (tensor<2x3xi32>) -> tensor<2x3xi32>
    ```
  }];
}

//===----------------------------------------------------------------------------------===//
// ClzOp
//===----------------------------------------------------------------------------------===//

def Strata_ClzOp : Strata_UnaryOp<"clz", [Strata_IntegerOnly, Strata_NotBool]> {
  let summary = "Counts the leading zero bits of each element.";
  let description = [{
    Elementwise; the result has the operand's shape and dtype. Integer operands only (not
    bool); zero gives the bit width.

    Example:

    ```mlir
    %y = strata.clz %i : (tensor<2x3xi32>) -> tensor<2x3xi32>
    ```
  }];
}

//===----------------------------------------------------------------------------------===//
// BesselI0eOp
//===----------------------------------------------------------------------------------===//

def Strata_BesselI0eOp : Strata_UnaryOp<"bessel_i0e", [Strata_FloatOnly]> {
  let summary = "Computes `exp(-|x|) I0(x)` of each element (scaled modified Bessel, order 0).";
  let description = [{
    Elementwise; the result has the operand's shape. Floating-point operands only.

    Example:

    ```mlir
    %y = strata.bessel_i0e %x : (tensor<2x3xf32>) -> tensor<2x3xf32>
    ```
  }];
}

//===----------------------------------------------------------------------------------===//
// BesselI1eOp
//===----------------------------------------------------------------------------------===//

def Strata_BesselI1eOp : Strata_UnaryOp<"bessel_i1e", [Strata_FloatOnly]> {
  let summary = "Computes `exp(-|x|) I1(x)` of each element (scaled modified Bessel, order 1).";
  let description = [{
    Elementwise; the result has the operand's shape. Floating-point operands only.

    Example:

    ```mlir
    %y = strata.bessel_i1e %x : (tensor<2x3xf32>) -> tensor<2x3xf32>
    ```
  }];
}

//===----------------------------------------------------------------------------------===//
// ErfcOp
//===----------------------------------------------------------------------------------===//

def Strata_ErfcOp : Strata_UnaryOp<"erfc", [Strata_FloatOnly]> {
  let summary = "Computes the complementary error function `1 - erf(x)` of each element.";
  let description = [{
    Elementwise; the result has the operand's shape. Floating-point operands only.

    Example:

    ```mlir
    %y = strata.erfc %x : (tensor<2x3xf32>) -> tensor<2x3xf32>
    ```
  }];
}

//===----------------------------------------------------------------------------------===//
// LgammaOp
//===----------------------------------------------------------------------------------===//

def Strata_LgammaOp : Strata_UnaryOp<"lgamma", [Strata_FloatOnly]> {
  let summary = "Computes `log |Gamma(x)|` of each element.";
  let description = [{
    Elementwise; the result has the operand's shape. Floating-point operands only; +inf at the poles
    (0 and the negative integers).

    Example:

    ```mlir
    %y = strata.lgamma %x : (tensor<2x3xf32>) -> tensor<2x3xf32>
    ```
  }];
}

//===----------------------------------------------------------------------------------===//
// DigammaOp
//===----------------------------------------------------------------------------------===//

def Strata_DigammaOp : Strata_UnaryOp<"digamma", [Strata_FloatOnly]> {
  let summary = "Computes the digamma function `psi(x)` of each element.";
  let description = [{
    Elementwise; the result has the operand's shape. Floating-point operands only; NaN at 0 and the
    negative integers.

    Example:

    ```mlir
    %y = strata.digamma %x : (tensor<2x3xf32>) -> tensor<2x3xf32>
    ```
  }];
}

//===----------------------------------------------------------------------------------===//
// IsFiniteOp
//===----------------------------------------------------------------------------------===//

def Strata_IsFiniteOp : Strata_UnaryOp<"is_finite", [Strata_FloatOnly]> {
  let summary = "Tests each element for being neither infinite nor NaN.";
  let description = [{
    Elementwise; the result has the operand's shape. Floating-point operands only; the result is
    bool (i1).

    Example:

    ```mlir
    %y = strata.is_finite %x : (tensor<2x3xf32>) -> tensor<2x3xi1>
    ```
  }];
}

//===----------------------------------------------------------------------------------===//
// NotOp
//===----------------------------------------------------------------------------------===//

def Strata_NotOp : Strata_UnaryOp<"not", [Strata_IntegerOnly]> {
  let hasFolder = 1;
  let summary = "Computes the logical (bool) or bitwise (integer) negation of each element.";
  let description = [{
    Elementwise; the result has the operand's shape. Integer and bool operands only.

    Example:

    ```mlir
    %y = strata.not %x : (tensor<2x3xi32>) -> tensor<2x3xi32>
    ```
  }];
}

//===----------------------------------------------------------------------------------===//
// IntegerPowOp
//===----------------------------------------------------------------------------------===//

def Strata_IntegerPowOp : Strata_Op<"integer_pow", [Strata_Elementwise, Strata_Fusible]> {
  let summary = "Raises each element to a constant integer power `y`.";
  let description = [{
    Elementwise; `y` is an attribute. Negative powers need a floating-point operand.

    Example:

    ```mlir
    %y = strata.integer_pow %x, y = 3 : (tensor<2x3xf32>) -> tensor<2x3xf32>
    ```
  }];
  let arguments = (ins AnyRankedTensor:$operand, I64Attr:$y);
  let results = (outs AnyRankedTensor:$result);
  let assemblyFormat =
      "$operand `,` `y` `=` $y attr-dict `:` functional-type(operands, results)";
}

//===----------------------------------------------------------------------------------===//
//===== Elementwise binary ops
//===----------------------------------------------------------------------------------===//

//===----------------------------------------------------------------------------------===//
// AddOp
//===----------------------------------------------------------------------------------===//

def Strata_AddOp : Strata_BinaryOp<"add", [Commutative]> {
  let hasFolder = 1;
  let summary = "Adds two tensors elementwise.";
  let description = [{
    Both operands have one shape and dtype, which the result keeps. Integers wrap.

    Example:

    ```mlir
    %z = strata.add %x, %y : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
    ```
  }];
}

//===----------------------------------------------------------------------------------===//
// SubOp
//===----------------------------------------------------------------------------------===//

def Strata_SubOp : Strata_BinaryOp<"sub"> {
  let hasFolder = 1;
  let summary = "Subtracts two tensors elementwise.";
  let description = [{
    Both operands have one shape and dtype, which the result keeps. Integers wrap.

    Example:

    ```mlir
    %z = strata.sub %x, %y : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
    ```
  }];
}

//===----------------------------------------------------------------------------------===//
// MulOp
//===----------------------------------------------------------------------------------===//

def Strata_MulOp : Strata_BinaryOp<"mul", [Commutative]> {
  let hasFolder = 1;
  let summary = "Multiplies two tensors elementwise.";
  let description = [{
    Both operands have one shape and dtype, which the result keeps. Integers wrap.

    Example:

    ```mlir
    %z = strata.mul %x, %y : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
    ```
  }];
}

//===----------------------------------------------------------------------------------===//
// DivOp
//===----------------------------------------------------------------------------------===//

def Strata_DivOp : Strata_BinaryOp<"div", [Strata_NotBool]> {
  let summary = "Divides two tensors elementwise.";
  let description = [{
    Both operands have one shape and dtype, which the result keeps. Integer division rounds
    toward zero.

    Example:

    ```mlir
    %z = strata.div %x, %y : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
    ```
  }];
}

//===----------------------------------------------------------------------------------===//
// RemOp
//===----------------------------------------------------------------------------------===//

def Strata_RemOp : Strata_BinaryOp<"rem", [Strata_NotBool]> {
  let summary = "Takes the remainder of elementwise division.";
  let description = [{
    Both operands have one shape and dtype, which the result keeps. The result has the sign of
    the dividend (C's `fmod`); for integers `x rem 0 = x`.

    Example:

    ```mlir
    %z = strata.rem %x, %y : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
    ```
  }];
}

//===----------------------------------------------------------------------------------===//
// PowOp
//===----------------------------------------------------------------------------------===//

def Strata_PowOp : Strata_BinaryOp<"pow", [Strata_FloatOnly]> {
  let summary = "Raises each `lhs` element to the power of the matching `rhs` element.";
  let description = [{
    Both operands have one shape and dtype, which the result keeps. Floating-point operands
    only.

    Example:

    ```mlir
    %z = strata.pow %x, %y : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
    ```
  }];
}

//===----------------------------------------------------------------------------------===//
// MaxOp
//===----------------------------------------------------------------------------------===//

def Strata_MaxOp : Strata_BinaryOp<"max"> {
  let summary = "Takes the elementwise maximum.";
  let description = [{
    Both operands have one shape and dtype, which the result keeps. NaN propagates.

    Example:

    ```mlir
    %z = strata.max %x, %y : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
    ```
  }];
}

//===----------------------------------------------------------------------------------===//
// MinOp
//===----------------------------------------------------------------------------------===//

def Strata_MinOp : Strata_BinaryOp<"min"> {
  let summary = "Takes the elementwise minimum.";
  let description = [{
    Both operands have one shape and dtype, which the result keeps. NaN propagates.

    Example:

    ```mlir
    %z = strata.min %x, %y : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
    ```
  }];
}

//===----------------------------------------------------------------------------------===//
// IgammaOp
//===----------------------------------------------------------------------------------===//

def Strata_IgammaOp : Strata_BinaryOp<"igamma", [Strata_FloatOnly]> {
  let summary = "Computes the regularized lower incomplete gamma function `P(a, x)`.";
  let description = [{
    Both operands have one shape and dtype, which the result keeps. Floating-point operands
    only; NaN outside a >= 0, x >= 0.

    Example:

    ```mlir
    %z = strata.igamma %x, %y : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
    ```
  }];
}

//===----------------------------------------------------------------------------------===//
// IgammacOp
//===----------------------------------------------------------------------------------===//

def Strata_IgammacOp : Strata_BinaryOp<"igammac", [Strata_FloatOnly]> {
  let summary = "Computes the regularized upper incomplete gamma function `Q(a, x)`.";
  let description = [{
    Both operands have one shape and dtype, which the result keeps. Floating-point operands
    only; NaN outside a >= 0, x >= 0.

    Example:

    ```mlir
    %z = strata.igammac %x, %y : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
    ```
  }];
}

//===----------------------------------------------------------------------------------===//
// IgammaGradAOp
//===----------------------------------------------------------------------------------===//

def Strata_IgammaGradAOp : Strata_BinaryOp<"igamma_grad_a", [Strata_FloatOnly]> {
  let summary = "Computes the derivative `dP(a, x)/da` elementwise.";
  let description = [{
    Both operands have one shape and dtype, which the result keeps. Floating-point operands
    only; NaN outside a > 0, x >= 0.

    Example:

    ```mlir
    %z = strata.igamma_grad_a %x, %y : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
    ```
  }];
}

//===----------------------------------------------------------------------------------===//
// RandomGammaGradOp
//===----------------------------------------------------------------------------------===//

def Strata_RandomGammaGradOp : Strata_BinaryOp<"random_gamma_grad", [Strata_FloatOnly]> {
  let summary = "Computes the derivative in `a` of a Gamma(a, 1) sample `x`.";
  let description = [{
    Both operands have one shape and dtype, which the result keeps. Floating-point operands
    only
    (implicit reparameterization: `-(dP/da) / (dP/dx)`).

    Example:

    ```mlir
    %z = strata.random_gamma_grad %x, %y : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
    ```
  }];
}

//===----------------------------------------------------------------------------------===//
// PolygammaOp
//===----------------------------------------------------------------------------------===//

def Strata_PolygammaOp : Strata_BinaryOp<"polygamma", [Strata_FloatOnly]> {
  let summary = "Computes the polygamma function `psi^(m)(x)` elementwise.";
  let description = [{
    Both operands have one shape and dtype, which the result keeps. Floating-point operands
    only; `m` must hold non-negative integers (NaN otherwise).

    Example:

    ```mlir
    %z = strata.polygamma %x, %y : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
    ```
  }];
}

//===----------------------------------------------------------------------------------===//
// ZetaOp
//===----------------------------------------------------------------------------------===//

def Strata_ZetaOp : Strata_BinaryOp<"zeta", [Strata_FloatOnly]> {
  let summary = "Computes the Hurwitz zeta function `zeta(s, q)` elementwise.";
  let description = [{
    Both operands have one shape and dtype, which the result keeps. Floating-point operands
    only; NaN for s < 1, +inf for s = 1.

    Example:

    ```mlir
    %z = strata.zeta %x, %y : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
    ```
  }];
}

//===----------------------------------------------------------------------------------===//
// NextafterOp
//===----------------------------------------------------------------------------------===//

def Strata_NextafterOp : Strata_BinaryOp<"nextafter", [Strata_FloatOnly]> {
  let summary = "The representable value next to `lhs` in the direction of `rhs`, elementwise.";
  let description = [{
    Both operands have one shape and dtype, which the result keeps. Floating-point operands
    only; NaN if either is NaN, `rhs` where they are equal.

    Example:

    ```mlir
    %z = strata.nextafter %x, %y : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
    ```
  }];
}

//===----------------------------------------------------------------------------------===//
// RegularizedIncompleteBetaOp
//===----------------------------------------------------------------------------------===//

def Strata_RegularizedIncompleteBetaOp : Strata_Op<"regularized_incomplete_beta",
    [Strata_Elementwise, Strata_Fusible, Strata_FloatOnly]> {
  let summary = "Computes the regularized incomplete beta function `I_x(a, b)` elementwise.";
  let description = [{
    All three operands have one shape and dtype, which the result keeps. Floating-point
    operands only; NaN outside a >= 0, b >= 0, 0 <= x <= 1.

    Example:

    ```mlir
    %z = strata.regularized_incomplete_beta %a, %b, %x
        : (tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
    ```
  }];
  let arguments = (ins AnyRankedTensor:$a, AnyRankedTensor:$b, AnyRankedTensor:$x);
  let results = (outs AnyRankedTensor:$result);
  let assemblyFormat = "$a `,` $b `,` $x attr-dict `:` functional-type(operands, results)";
}

//===----------------------------------------------------------------------------------===//
// Atan2Op
//===----------------------------------------------------------------------------------===//

def Strata_Atan2Op : Strata_BinaryOp<"atan2", [Strata_FloatOnly]> {
  let summary = "Computes the two-argument arctangent `atan(lhs / rhs)` elementwise.";
  let description = [{
    Both operands have one shape and dtype, which the result keeps. Floating-point operands
    only; the quadrant follows the signs of both operands.

    Example:

    ```mlir
    %z = strata.atan2 %x, %y : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
    ```
  }];
}

//===----------------------------------------------------------------------------------===//
// AndOp
//===----------------------------------------------------------------------------------===//

def Strata_AndOp : Strata_BinaryOp<"and", [Strata_IntegerOnly]> {
  let summary = "Computes the logical (bool) or bitwise (integer) and elementwise.";
  let description = [{
    Both operands have one shape and dtype, which the result keeps. Integer and bool operands
    only.

    Example:

    ```mlir
    %z = strata.and %x, %y : (tensor<2x3xi32>, tensor<2x3xi32>) -> tensor<2x3xi32>
    ```
  }];
}

//===----------------------------------------------------------------------------------===//
// OrOp
//===----------------------------------------------------------------------------------===//

def Strata_OrOp : Strata_BinaryOp<"or", [Strata_IntegerOnly]> {
  let summary = "Computes the logical (bool) or bitwise (integer) or elementwise.";
  let description = [{
    Both operands have one shape and dtype, which the result keeps. Integer and bool operands
    only.

    Example:

    ```mlir
    %z = strata.or %x, %y : (tensor<2x3xi32>, tensor<2x3xi32>) -> tensor<2x3xi32>
    ```
  }];
}

//===----------------------------------------------------------------------------------===//
// XorOp
//===----------------------------------------------------------------------------------===//

def Strata_XorOp : Strata_BinaryOp<"xor", [Strata_IntegerOnly]> {
  let summary = "Computes the logical (bool) or bitwise (integer) exclusive or elementwise.";
  let description = [{
    Both operands have one shape and dtype, which the result keeps. Integer and bool operands
    only.

    Example:

    ```mlir
    %z = strata.xor %x, %y : (tensor<2x3xi32>, tensor<2x3xi32>) -> tensor<2x3xi32>
    ```
  }];
}

//===----------------------------------------------------------------------------------===//
//===== Comparison ops
//===----------------------------------------------------------------------------------===//

//===----------------------------------------------------------------------------------===//
// EqOp
//===----------------------------------------------------------------------------------===//

def Strata_EqOp : Strata_CompareOp<"eq"> {
  let summary = "Tests elements for equality.";
  let description = [{
    Computes `lhs == rhs`; both operands have one shape and dtype, and the result is bool (i1)
    of that shape. Any comparison with NaN is false, except `ne`, which is true.

    Example:

    ```mlir
    %z = strata.eq %x, %y : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xi1>
    ```
  }];
}

//===----------------------------------------------------------------------------------===//
// NeOp
//===----------------------------------------------------------------------------------===//

def Strata_NeOp : Strata_CompareOp<"ne"> {
  let summary = "Tests elements for inequality.";
  let description = [{
    Computes `lhs != rhs`; both operands have one shape and dtype, and the result is bool (i1)
    of that shape. Any comparison with NaN is false, except `ne`, which is true.

    Example:

    ```mlir
    %z = strata.ne %x, %y : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xi1>
    ```
  }];
}

//===----------------------------------------------------------------------------------===//
// LtOp
//===----------------------------------------------------------------------------------===//

def Strata_LtOp : Strata_CompareOp<"lt"> {
  let summary = "Tests whether each `lhs` element is less than the matching `rhs` element.";
  let description = [{
    Computes `lhs < rhs`; both operands have one shape and dtype, and the result is bool (i1) of
    that shape. Any comparison with NaN is false, except `ne`, which is true.

    Example:

    ```mlir
    %z = strata.lt %x, %y : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xi1>
    ```
  }];
}

//===----------------------------------------------------------------------------------===//
// LeOp
//===----------------------------------------------------------------------------------===//

def Strata_LeOp : Strata_CompareOp<"le"> {
  let summary = "Tests whether each `lhs` element is at most the matching `rhs` element.";
  let description = [{
    Computes `lhs <= rhs`; both operands have one shape and dtype, and the result is bool (i1)
    of that shape. Any comparison with NaN is false, except `ne`, which is true.

    Example:

    ```mlir
    %z = strata.le %x, %y : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xi1>
    ```
  }];
}

//===----------------------------------------------------------------------------------===//
// GtOp
//===----------------------------------------------------------------------------------===//

def Strata_GtOp : Strata_CompareOp<"gt"> {
  let summary = "Tests whether each `lhs` element is greater than the matching `rhs` element.";
  let description = [{
    Computes `lhs > rhs`; both operands have one shape and dtype, and the result is bool (i1) of
    that shape. Any comparison with NaN is false, except `ne`, which is true.

    Example:

    ```mlir
    %z = strata.gt %x, %y : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xi1>
    ```
  }];
}

//===----------------------------------------------------------------------------------===//
// GeOp
//===----------------------------------------------------------------------------------===//

def Strata_GeOp : Strata_CompareOp<"ge"> {
  let summary = "Tests whether each `lhs` element is at least the matching `rhs` element.";
  let description = [{
    Computes `lhs >= rhs`; both operands have one shape and dtype, and the result is bool (i1)
    of that shape. Any comparison with NaN is false, except `ne`, which is true.

    Example:

    ```mlir
    %z = strata.ge %x, %y : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xi1>
    ```
  }];
}

//===----------------------------------------------------------------------------------===//
//===== Selection and conversion ops
//===----------------------------------------------------------------------------------===//

//===----------------------------------------------------------------------------------===//
// SelectOp
//===----------------------------------------------------------------------------------===//

def Strata_SelectOp : Strata_Op<"select", [Strata_Elementwise, Strata_Fusible]> {
  let summary = "Chooses elements from `on_true` where `pred` holds and from `on_false` elsewhere.";
  let description = [{
    `pred` is bool (i1), either a scalar or of the branches' shape; the branches have one shape
    and dtype, which the result keeps.

    Example:

    ```mlir
    %z = strata.select %p, %a, %b
        : (tensor<2x3xi1>, tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
    ```
  }];
  let arguments = (ins AnyRankedTensor:$pred, AnyRankedTensor:$on_true,
                       AnyRankedTensor:$on_false);
  let results = (outs AnyRankedTensor:$result);
  let assemblyFormat = [{
    $pred `,` $on_true `,` $on_false attr-dict `:` functional-type(operands, results)
  }];
}

//===----------------------------------------------------------------------------------===//
// ClampOp
//===----------------------------------------------------------------------------------===//

def Strata_ClampOp : Strata_Op<"clamp", [Strata_Elementwise, Strata_Fusible]> {
  let summary = "Clamps each element of `operand` to the range [`min`, `max`].";
  let description = [{
    The bounds are scalars or of the operand's shape, with its dtype; a NaN anywhere gives NaN,
    and `min > max` gives `max`.

    Example:

    ```mlir
    %z = strata.clamp %lo, %x, %hi : (tensor<f32>, tensor<2x3xf32>, tensor<f32>) -> tensor<2x3xf32>
    ```
  }];
  let arguments = (ins AnyRankedTensor:$min, AnyRankedTensor:$operand, AnyRankedTensor:$max);
  let results = (outs AnyRankedTensor:$result);
  let assemblyFormat =
      "$min `,` $operand `,` $max attr-dict `:` functional-type(operands, results)";
}

//===----------------------------------------------------------------------------------===//
// ConvertElementTypeOp
//===----------------------------------------------------------------------------------===//

def Strata_ConvertElementTypeOp : Strata_Op<"convert_element_type",
    [Strata_Elementwise, Strata_Fusible]> {
  let hasFolder = 1;
  let summary = "Converts each element to the result's element type.";
  let description = [{
    The result has the operand's shape; its element type is the primitive's `new_dtype`. Values
    convert as libstrata's reference implementation converts them.

    Example:

    ```mlir
    %y = strata.convert_element_type %x : (tensor<2x3xf32>) -> tensor<2x3xbf16>
    ```
  }];
  let arguments = (ins AnyRankedTensor:$operand);
  let results = (outs AnyRankedTensor:$result);
  let assemblyFormat = "$operand attr-dict `:` functional-type(operands, results)";
  let extraClassDeclaration = [{
    /// The target dtype is the result's element type; the IR has no weak types.
    ::mlir::DictionaryAttr getImpliedParams() {
      ::mlir::Builder b(getContext());
      auto type = ::llvm::cast<::mlir::ShapedType>(getResult().getType());
      return b.getDictionaryAttr(
          {b.getNamedAttr("new_dtype", ::mlir::TypeAttr::get(type.getElementType())),
           b.getNamedAttr("weak_type", b.getBoolAttr(false))});
    }
  }];
}

//===----------------------------------------------------------------------------------===//
//===== Shape ops
//===----------------------------------------------------------------------------------===//

//===----------------------------------------------------------------------------------===//
// BroadcastInDimOp
//===----------------------------------------------------------------------------------===//

def Strata_BroadcastInDimOp : Strata_ShapeOp<"broadcast_in_dim"> {
  let hasFolder = 1;
  let hasCanonicalizer = 1;
  let summary = "Broadcasts a tensor to the result's shape.";
  let description = [{
    Operand dimension `i` becomes result dimension `broadcast_dimensions[i]` (strictly
    increasing); it must have size 1 or that dimension's size. The result shape is the
    primitive's `shape`.

    Example:

    ```mlir
    %y = strata.broadcast_in_dim %x, broadcast_dimensions = [1] : (tensor<3xf32>) -> tensor<2x3xf32>
    ```
  }];
  let arguments = (ins AnyRankedTensor:$operand, DenseI64ArrayAttr:$broadcast_dimensions);
  let assemblyFormat = [{
    $operand `,` `broadcast_dimensions` `=` $broadcast_dimensions attr-dict `:`
    functional-type(operands, results)
  }];
  let extraClassDeclaration = [{
    /// The target shape is the result's shape.
    ::mlir::DictionaryAttr getImpliedParams() {
      return ::mlir::strata::resultShapeParam(getOperation(), "shape");
    }
  }];
}

//===----------------------------------------------------------------------------------===//
// ReshapeOp
//===----------------------------------------------------------------------------------===//

def Strata_ReshapeOp : Strata_ShapeOp<"reshape"> {
  let hasFolder = 1;
  let summary = "Reshapes a tensor to the result's shape, keeping row-major element order.";
  let description = [{
    The element count is unchanged. The result shape is the primitive's `new_sizes`.

    Example:

    ```mlir
    %y = strata.reshape %x : (tensor<2x3xf32>) -> tensor<6xf32>
    ```
  }];
  let arguments = (ins AnyRankedTensor:$operand);
  let assemblyFormat = "$operand attr-dict `:` functional-type(operands, results)";
  let extraClassDeclaration = [{
    /// The target shape is the result's shape.
    ::mlir::DictionaryAttr getImpliedParams() {
      return ::mlir::strata::resultShapeParam(getOperation(), "new_sizes");
    }
  }];
}

//===----------------------------------------------------------------------------------===//
// TransposeOp
//===----------------------------------------------------------------------------------===//

def Strata_TransposeOp : Strata_ShapeOp<"transpose"> {
  let hasFolder = 1;
  let hasCanonicalizer = 1;
  let summary = "Permutes the dimensions of a tensor.";
  let description = [{
    Result dimension `i` is operand dimension `permutation[i]`.

    Example:

    ```mlir
    %y = strata.transpose %x, permutation = [1, 0] : (tensor<2x3xf32>) -> tensor<3x2xf32>
    ```
  }];
  let arguments = (ins AnyRankedTensor:$operand, DenseI64ArrayAttr:$permutation);
  let assemblyFormat = [{
    $operand `,` `permutation` `=` $permutation attr-dict `:` functional-type(operands, results)
  }];
}

//===----------------------------------------------------------------------------------===//
// IotaOp
//===----------------------------------------------------------------------------------===//

def Strata_IotaOp : Strata_ShapeOp<"iota"> {
  let summary = "Fills a tensor with its indices along one dimension.";
  let description = [{
    Element `[i0, ..., in]` of the result is `i_dimension`, converted to the result's element
    type. The primitive's `shape` and `dtype` are the result type's; bool is rejected.

    Example:

    ```mlir
    %y = strata.iota dimension = 1 : tensor<2x3xi32>
    ```
  }];
  let arguments = (ins I64Attr:$dimension);
  let assemblyFormat = "`dimension` `=` $dimension attr-dict `:` type($result)";
  let extraClassDeclaration = [{
    /// The shape and dtype are the result type's.
    ::mlir::DictionaryAttr getImpliedParams() {
      ::mlir::Builder b(getContext());
      auto type = ::llvm::cast<::mlir::ShapedType>(getResult().getType());
      return b.getDictionaryAttr(
          {b.getNamedAttr("shape", b.getDenseI64ArrayAttr(type.getShape())),
           b.getNamedAttr("dtype", ::mlir::TypeAttr::get(type.getElementType()))});
    }
  }];
}

//===----------------------------------------------------------------------------------===//
// RevOp
//===----------------------------------------------------------------------------------===//

def Strata_RevOp : Strata_ShapeOp<"rev"> {
  let summary = "Reverses a tensor along the given dimensions.";
  let description = [{
    `dimensions` lists distinct operand dimensions; the result has the operand's type.

    Example:

    ```mlir
    %y = strata.rev %x, dimensions = [1] : (tensor<2x3xf32>) -> tensor<2x3xf32>
    ```
  }];
  let arguments = (ins AnyRankedTensor:$operand, DenseI64ArrayAttr:$dimensions);
  let assemblyFormat = [{
    $operand `,` `dimensions` `=` $dimensions attr-dict `:` functional-type(operands, results)
  }];
}

//===----------------------------------------------------------------------------------===//
// SliceOp
//===----------------------------------------------------------------------------------===//

def Strata_SliceOp : Strata_ShapeOp<"slice"> {
  let summary = "Takes a static, strided slice of a tensor.";
  let description = [{
    Dimension `i` keeps the elements `start[i], start[i] + strides[i], ...` below `limit[i]`,
    with `0 <= start <= limit <= size`. Empty `strides` mean all ones.

    Example:

    ```mlir
    %y = strata.slice %x, start = [0, 1], limit = [2, 3], strides = [1, 1]
        : (tensor<2x3xf32>) -> tensor<2x2xf32>
    ```
  }];
  let arguments = (ins AnyRankedTensor:$operand, DenseI64ArrayAttr:$start,
                       DenseI64ArrayAttr:$limit, DenseI64ArrayAttr:$strides);
  let assemblyFormat = [{
    $operand `,` `start` `=` $start `,` `limit` `=` $limit `,` `strides` `=` $strides attr-dict
    `:` functional-type(operands, results)
  }];
}

//===----------------------------------------------------------------------------------===//
// DynamicSliceOp
//===----------------------------------------------------------------------------------===//

def Strata_DynamicSliceOp : Strata_ShapeOp<"dynamic_slice"> {
  let summary = "Takes a slice of a tensor at start indices known only at run time.";
  let description = [{
    One integer scalar start index per operand dimension; starts are clamped so that the
    slice lies in bounds. The slice sizes (the primitive's `slice_sizes`) are the result's
    shape.

    Example:

    ```mlir
    %y = strata.dynamic_slice %x[%i, %j]
        : (tensor<4x5xf32>, tensor<i32>, tensor<i32>) -> tensor<2x3xf32>
    ```
  }];
  let arguments = (ins AnyRankedTensor:$operand, Variadic<AnyRankedTensor>:$start_indices);
  let assemblyFormat = [{
    $operand `[` $start_indices `]` attr-dict `:` functional-type(operands, results)
  }];
  let extraClassDeclaration = [{
    /// The slice sizes are the result's shape.
    ::mlir::DictionaryAttr getImpliedParams() {
      return ::mlir::strata::resultShapeParam(getOperation(), "slice_sizes");
    }
  }];
}

//===----------------------------------------------------------------------------------===//
// DynamicUpdateSliceOp
//===----------------------------------------------------------------------------------===//

def Strata_DynamicUpdateSliceOp : Strata_ShapeOp<"dynamic_update_slice"> {
  let summary = "Overwrites a slice of a tensor, at run-time start indices, with `update`.";
  let description = [{
    `update` has the operand's rank and dtype and fits in it; one integer scalar start index
    per operand dimension, clamped so that the update lies in bounds. The result has the
    operand's type.

    Example:

    ```mlir
    %y = strata.dynamic_update_slice %x, %u at [%i, %j]
        : (tensor<4x5xf32>, tensor<2x3xf32>, tensor<i32>, tensor<i32>) -> tensor<4x5xf32>
    ```
  }];
  let arguments = (ins AnyRankedTensor:$operand, AnyRankedTensor:$update,
                       Variadic<AnyRankedTensor>:$start_indices);
  let assemblyFormat = [{
    $operand `,` $update `at` ` ` `[` $start_indices `]` attr-dict `:`
    functional-type(operands, results)
  }];
}

//===----------------------------------------------------------------------------------===//
// PadOp
//===----------------------------------------------------------------------------------===//

def Strata_PadOp : Strata_ShapeOp<"pad"> {
  let summary = "Pads a tensor with a scalar at each edge and between elements.";
  let description = [{
    Dimension `i` gets `low[i]` leading, `high[i]` trailing and `interior[i]` in-between copies
    of the scalar `padding_value` (of the operand's dtype); negative `low` and `high` crop.

    Example:

    ```mlir
    %y = strata.pad %x, %zero, low = [0, 1], high = [1, 0], interior = [0, 1]
        : (tensor<2x3xf32>, tensor<f32>) -> tensor<3x6xf32>
    ```
  }];
  let arguments = (ins AnyRankedTensor:$operand, AnyRankedTensor:$padding_value,
                       DenseI64ArrayAttr:$low, DenseI64ArrayAttr:$high,
                       DenseI64ArrayAttr:$interior);
  let assemblyFormat = [{
    $operand `,` $padding_value `,` `low` `=` $low `,` `high` `=` $high `,`
    `interior` `=` $interior attr-dict `:` functional-type(operands, results)
  }];
}

//===----------------------------------------------------------------------------------===//
// ConcatenateOp
//===----------------------------------------------------------------------------------===//

def Strata_ConcatenateOp : Strata_ShapeOp<"concatenate"> {
  let summary = "Joins tensors along one dimension.";
  let description = [{
    At least one operand; all have one dtype and rank, and equal sizes outside `dimension`.
    Scalars cannot be concatenated.

    Example:

    ```mlir
    %y = strata.concatenate(%a, %b), dimension = 0
        : (tensor<2x3xf32>, tensor<1x3xf32>) -> tensor<3x3xf32>
    ```
  }];
  let arguments = (ins Variadic<AnyRankedTensor>:$inputs, I64Attr:$dimension);
  let assemblyFormat = [{
    `(` $inputs `)` `,` `dimension` `=` $dimension attr-dict `:`
    functional-type(operands, results)
  }];
}

//===----------------------------------------------------------------------------------===//
//===== Indexing ops
//===----------------------------------------------------------------------------------===//

//===----------------------------------------------------------------------------------===//
// GatherOp
//===----------------------------------------------------------------------------------===//

def Strata_GatherOp : Strata_Op<"gather"> {
  let summary = "Gathers slices of a tensor at the positions that `indices` name.";
  let description = [{
    XLA's general gather, with the index vector as the last dimension of `indices` (an integer
    tensor). For each batch position of `indices`, the slice of size `slice_sizes` starting at
    the position (clamped into bounds) is taken; `start_index_map` says which operand dimension
    each index vector element addresses. `collapsed_slice_dims` (slice size 1) are dropped and
    the remaining slice dimensions become the result's `offset_dims`.

    Example:

    ```mlir
    %y = strata.gather %x, %idx, offset_dims = [1], collapsed_slice_dims = [0],
        start_index_map = [0], slice_sizes = [1, 3]
        : (tensor<5x3xf32>, tensor<4x1xi32>) -> tensor<4x3xf32>
    ```
  }];
  let arguments = (ins AnyRankedTensor:$operand, AnyRankedTensor:$indices,
                       DenseI64ArrayAttr:$offset_dims, DenseI64ArrayAttr:$collapsed_slice_dims,
                       DenseI64ArrayAttr:$start_index_map, DenseI64ArrayAttr:$slice_sizes);
  let results = (outs AnyRankedTensor:$result);
  let assemblyFormat = [{
    $operand `,` $indices `,` `offset_dims` `=` $offset_dims `,`
    `collapsed_slice_dims` `=` $collapsed_slice_dims `,`
    `start_index_map` `=` $start_index_map `,` `slice_sizes` `=` $slice_sizes attr-dict `:`
    functional-type(operands, results)
  }];
}

//===----------------------------------------------------------------------------------===//
// ScatterOp
//===----------------------------------------------------------------------------------===//

def Strata_ScatterOp : Strata_ScatterOp<"scatter"> {
  let summary = "Writes windows of `updates` into a tensor at the positions `indices` name.";
  let description = [{
    XLA's general scatter, with the index vector as the last dimension of `indices`. Each
    update window replaces the operand elements it covers; windows that would leave the
    operand are dropped. `update_window_dims` are the window dimensions of `updates`,
    `inserted_window_dims` the operand dimensions a window has size 1 in, and
    `scatter_dims_to_operand_dims` maps each index vector element to an operand dimension.
    Where windows overlap, which update wins is unspecified.

    Example:

    ```mlir
    %y = strata.scatter %x, %idx, %u, update_window_dims = [1], inserted_window_dims = [0],
        scatter_dims_to_operand_dims = [0]
        : (tensor<5x3xf32>, tensor<4x1xi32>, tensor<4x3xf32>) -> tensor<5x3xf32>
    ```
  }];
}

//===----------------------------------------------------------------------------------===//
// ScatterAddOp
//===----------------------------------------------------------------------------------===//

def Strata_ScatterAddOp : Strata_ScatterOp<"scatter_add"> {
  let summary = "Adds windows of `updates` into a tensor at the positions `indices` name.";
  let description = [{
    As `strata.scatter`, but each update window is added to the operand elements it covers, so
    overlapping windows accumulate. Numeric operands only.

    Example:

    ```mlir
    %y = strata.scatter_add %x, %idx, %u, update_window_dims = [1], inserted_window_dims = [0],
        scatter_dims_to_operand_dims = [0]
        : (tensor<5x3xf32>, tensor<4x1xi32>, tensor<4x3xf32>) -> tensor<5x3xf32>
    ```
  }];
}

//===----------------------------------------------------------------------------------===//
//===== Reductions
//===----------------------------------------------------------------------------------===//

//===----------------------------------------------------------------------------------===//
// ReduceSumOp
//===----------------------------------------------------------------------------------===//

def Strata_ReduceSumOp : Strata_ReduceOp<"reduce_sum", [Strata_SumMonoid]> {
  let summary = "Sums over the given axes.";
  let description = [{
    The result drops the reduced axes. Integers wrap; bool operands are rejected.

    Example:

    ```mlir
    %y = strata.reduce_sum %x, axes = [1] : (tensor<2x3xf32>) -> tensor<2xf32>
    ```
  }];
}

//===----------------------------------------------------------------------------------===//
// ReduceMaxOp
//===----------------------------------------------------------------------------------===//

def Strata_ReduceMaxOp : Strata_ReduceOp<"reduce_max", [Strata_MaxMonoid]> {
  let summary = "Takes the maximum over the given axes.";
  let description = [{
    The result drops the reduced axes. NaN propagates.

    Example:

    ```mlir
    %y = strata.reduce_max %x, axes = [1] : (tensor<2x3xf32>) -> tensor<2xf32>
    ```
  }];
}

//===----------------------------------------------------------------------------------===//
// ReduceMinOp
//===----------------------------------------------------------------------------------===//

def Strata_ReduceMinOp : Strata_ReduceOp<"reduce_min", [Strata_MinMonoid]> {
  let summary = "Takes the minimum over the given axes.";
  let description = [{
    The result drops the reduced axes. NaN propagates.

    Example:

    ```mlir
    %y = strata.reduce_min %x, axes = [1] : (tensor<2x3xf32>) -> tensor<2xf32>
    ```
  }];
}

//===----------------------------------------------------------------------------------===//
// ReduceProdOp
//===----------------------------------------------------------------------------------===//

def Strata_ReduceProdOp : Strata_ReduceOp<"reduce_prod", [Strata_ProdMonoid]> {
  let summary = "Multiplies over the given axes.";
  let description = [{
    The result drops the reduced axes. Integers wrap; bool operands are rejected.

    Example:

    ```mlir
    %y = strata.reduce_prod %x, axes = [1] : (tensor<2x3xf32>) -> tensor<2xf32>
    ```
  }];
}

//===----------------------------------------------------------------------------------===//
// ArgmaxOp
//===----------------------------------------------------------------------------------===//

def Strata_ArgmaxOp : Strata_ArgReduceOp<"argmax"> {
  let summary = "Finds the index of the largest element along one axis.";
  let description = [{
    The result drops `axis` (which may be negative) and has the element type i32 or i64, the
    primitive's `index_dtype`. Ties go to the first index; NaN counts as the largest value. The
    axis must not be empty.

    Example:

    ```mlir
    %y = strata.argmax %x, axis = 1 : (tensor<2x3xf32>) -> tensor<2xi32>
    ```
  }];
}

//===----------------------------------------------------------------------------------===//
// ArgminOp
//===----------------------------------------------------------------------------------===//

def Strata_ArgminOp : Strata_ArgReduceOp<"argmin"> {
  let summary = "Finds the index of the smallest element along one axis.";
  let description = [{
    The result drops `axis` (which may be negative) and has the element type i32 or i64, the
    primitive's `index_dtype`. Ties go to the first index; NaN counts as the smallest value.
    The axis must not be empty.

    Example:

    ```mlir
    %y = strata.argmin %x, axis = 1 : (tensor<2x3xf32>) -> tensor<2xi64>
    ```
  }];
}

//===----------------------------------------------------------------------------------===//
// CumsumOp
//===----------------------------------------------------------------------------------===//

def Strata_CumsumOp : Strata_CumulativeOp<"cumsum", [Strata_SumMonoid]> {
  let summary = "Computes running sums along one axis.";
  let description = [{
    The result has the operand's type; `reverse` runs from the end of the axis. Integers wrap;
    bool operands are rejected.

    Example:

    ```mlir
    %y = strata.cumsum %x, axis = 1, reverse = false : (tensor<2x3xf32>) -> tensor<2x3xf32>
    ```
  }];
}

//===----------------------------------------------------------------------------------===//
// CumprodOp
//===----------------------------------------------------------------------------------===//

def Strata_CumprodOp : Strata_CumulativeOp<"cumprod", [Strata_ProdMonoid]> {
  let summary = "Computes running products along one axis.";
  let description = [{
    The result has the operand's type; `reverse` runs from the end of the axis. Integers wrap;
    bool operands are rejected.

    Example:

    ```mlir
    %y = strata.cumprod %x, axis = 0, reverse = true : (tensor<2x3xf32>) -> tensor<2x3xf32>
    ```
  }];
}

//===----------------------------------------------------------------------------------===//
// CummaxOp
//===----------------------------------------------------------------------------------===//

def Strata_CummaxOp : Strata_CumulativeOp<"cummax", [Strata_MaxMonoid]> {
  let summary = "Computes running maxima along one axis.";
  let description = [{
    The result has the operand's type; `reverse` runs from the end of the axis. NaN propagates.

    Example:

    ```mlir
    %y = strata.cummax %x, axis = 1, reverse = false : (tensor<2x3xf32>) -> tensor<2x3xf32>
    ```
  }];
}

//===----------------------------------------------------------------------------------===//
// CumminOp
//===----------------------------------------------------------------------------------===//

def Strata_CumminOp : Strata_CumulativeOp<"cummin", [Strata_MinMonoid]> {
  let summary = "Computes running minima along one axis.";
  let description = [{
    The result has the operand's type; `reverse` runs from the end of the axis. NaN propagates.

    Example:

    ```mlir
    %y = strata.cummin %x, axis = 1, reverse = false : (tensor<2x3xf32>) -> tensor<2x3xf32>
    ```
  }];
}

//===----------------------------------------------------------------------------------===//
//===== Contractions
//===----------------------------------------------------------------------------------===//

//===----------------------------------------------------------------------------------===//
// DotGeneralOp
//===----------------------------------------------------------------------------------===//

def Strata_DotGeneralOp : Strata_Op<"dot_general"> {
  let summary = "Contracts two tensors over paired dimensions, batched over others.";
  let description = [{
    Dimension numbers follow XLA: `lhs_batch[i]` pairs with `rhs_batch[i]` and
    `lhs_contracting[i]` with `rhs_contracting[i]`. The result has the batch dimensions, then
    the free dimensions of `lhs`, then those of `rhs`. Both operands have one dtype; the
    optional `preferred_element_type` widens the result (and accumulation) type.

    Example:

    ```mlir
    %z = strata.dot_general %a, %b, batch_dims = [0] x [0], contracting_dims = [2] x [1]
        : (tensor<4x2x3xf32>, tensor<4x3x5xf32>) -> tensor<4x2x5xf32>
    ```
  }];
  let arguments = (ins AnyRankedTensor:$lhs, AnyRankedTensor:$rhs,
                       DenseI64ArrayAttr:$lhs_batch, DenseI64ArrayAttr:$rhs_batch,
                       DenseI64ArrayAttr:$lhs_contracting, DenseI64ArrayAttr:$rhs_contracting,
                       OptionalAttr<TypeAttr>:$preferred_element_type);
  let results = (outs AnyRankedTensor:$result);
  let assemblyFormat = [{
    $lhs `,` $rhs `,` `batch_dims` `=` $lhs_batch `x` $rhs_batch `,`
    `contracting_dims` `=` $lhs_contracting `x` $rhs_contracting attr-dict `:`
    functional-type(operands, results)
  }];
}

//===----------------------------------------------------------------------------------===//
//===== Sorting
//===----------------------------------------------------------------------------------===//

//===----------------------------------------------------------------------------------===//
// SortOp
//===----------------------------------------------------------------------------------===//

def Strata_SortOp : Strata_Op<"sort"> {
  let summary = "Sorts tensors of one shape together along one dimension.";
  let description = [{
    The first `num_keys` operands are the keys, compared lexicographically (ascending, stable,
    NaN last); every operand is permuted the same way, and result `i` has operand `i`'s type.
    `dimension` may be negative.

    Example:

    ```mlir
    %k, %v = strata.sort(%keys, %vals), dimension = 1, num_keys = 1
        : (tensor<2x3xf32>, tensor<2x3xi32>) -> (tensor<2x3xf32>, tensor<2x3xi32>)
    ```
  }];
  let arguments = (ins Variadic<AnyRankedTensor>:$inputs, I64Attr:$dimension, I64Attr:$num_keys);
  let results = (outs Variadic<AnyRankedTensor>:$results);
  let assemblyFormat = [{
    `(` $inputs `)` `,` `dimension` `=` $dimension `,` `num_keys` `=` $num_keys attr-dict `:`
    functional-type(operands, results)
  }];
}

//===----------------------------------------------------------------------------------===//
//===== Bit-level and random ops
//===----------------------------------------------------------------------------------===//

//===----------------------------------------------------------------------------------===//
// ShiftLeftOp
//===----------------------------------------------------------------------------------===//

def Strata_ShiftLeftOp : Strata_BinaryOp<"shift_left", [Strata_IntegerOnly]> {
  let summary = "Shifts the bits of each `lhs` element left by the matching `rhs` element.";
  let description = [{
    Both operands are integers of one shape and dtype, which the result keeps. Amounts of at
    least the bit width (or negative) give 0.

    Example:

    ```mlir
    %z = strata.shift_left %x, %n : (tensor<4xui32>, tensor<4xui32>) -> tensor<4xui32>
    ```
  }];
}

//===----------------------------------------------------------------------------------===//
// ShiftRightLogicalOp
//===----------------------------------------------------------------------------------===//

def Strata_ShiftRightLogicalOp : Strata_BinaryOp<"shift_right_logical", [Strata_IntegerOnly]> {
  let summary = "Shifts the bits of each `lhs` element right, filling with zeros.";
  let description = [{
    Both operands are integers of one shape and dtype, which the result keeps. Amounts of at
    least the bit width (or negative) give 0.

    Example:

    ```mlir
    %z = strata.shift_right_logical %x, %n : (tensor<4xui32>, tensor<4xui32>) -> tensor<4xui32>
    ```
  }];
}

//===----------------------------------------------------------------------------------===//
// ShiftRightArithmeticOp
//===----------------------------------------------------------------------------------===//

def Strata_ShiftRightArithmeticOp : Strata_BinaryOp<"shift_right_arithmetic",
    [Strata_IntegerOnly]> {
  let summary = "Shifts each element right, filling with its sign bit.";
  let description = [{
    Both operands have one integer shape and dtype, which the result keeps. The bits of `lhs`
    shift as a signed integer of their width; an amount of at least the width (read as
    unsigned) gives all sign bits.

    Example:

    ```mlir
    %z = strata.shift_right_arithmetic %x, %n : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
    ```
  }];
}

//===----------------------------------------------------------------------------------===//
// BitcastConvertTypeOp
//===----------------------------------------------------------------------------------===//

def Strata_BitcastConvertTypeOp : Strata_Op<"bitcast_convert_type",
    [Strata_Elementwise, Strata_Fusible]> {
  let summary = "Reinterprets the bits of each element as the result's element type.";
  let description = [{
    The result has the operand's shape; its element type is the primitive's `new_dtype`, of the
    same item size as the operand's. Bool has no bit layout and is rejected.

    Example:

    ```mlir
    %y = strata.bitcast_convert_type %x : (tensor<4xf32>) -> tensor<4xui32>
    ```
  }];
  let arguments = (ins AnyRankedTensor:$operand);
  let results = (outs AnyRankedTensor:$result);
  let assemblyFormat = "$operand attr-dict `:` functional-type(operands, results)";
  let extraClassDeclaration = [{
    /// The target dtype is the result's element type.
    ::mlir::DictionaryAttr getImpliedParams() {
      ::mlir::Builder b(getContext());
      auto type = ::llvm::cast<::mlir::ShapedType>(getResult().getType());
      return b.getDictionaryAttr(
          {b.getNamedAttr("new_dtype", ::mlir::TypeAttr::get(type.getElementType()))});
    }
  }];
}

//===----------------------------------------------------------------------------------===//
// Threefry2x32Op
//===----------------------------------------------------------------------------------===//

def Strata_Threefry2x32Op : Strata_Op<"threefry2x32"> {
  let summary = "Applies the Threefry-2x32 block cipher (20 rounds) to pairs of 32-bit words.";
  let description = [{
    The key words `key0`, `key1` and the counter words `x0`, `x1` are ui32 tensors of one
    shape; the two results are the enciphered words, of that type. Matches JAX's
    `threefry2x32`.

    Example:

    ```mlir
    %y0, %y1 = strata.threefry2x32 %k0, %k1, %x0, %x1
        : (tensor<4xui32>, tensor<4xui32>, tensor<4xui32>, tensor<4xui32>)
        -> (tensor<4xui32>, tensor<4xui32>)
    ```
  }];
  let arguments = (ins AnyRankedTensor:$key0, AnyRankedTensor:$key1, AnyRankedTensor:$x0,
                       AnyRankedTensor:$x1);
  let results = (outs AnyRankedTensor:$out0, AnyRankedTensor:$out1);
  let assemblyFormat = [{
    $key0 `,` $key1 `,` $x0 `,` $x1 attr-dict `:` functional-type(operands, results)
  }];
}

//===----------------------------------------------------------------------------------===//
//===== Differentiation markers
//===----------------------------------------------------------------------------------===//

//===----------------------------------------------------------------------------------===//
// StopGradientOp
//===----------------------------------------------------------------------------------===//

def Strata_StopGradientOp : Strata_UnaryOp<"stop_gradient", [Strata_Identity]> {
  let summary = "Passes a tensor through unchanged, with a zero derivative.";
  let description = [{
    The identity on values; differentiation sees a constant. The result has the operand's
    type.

    Example:

    ```mlir
    %y = strata.stop_gradient %x : (tensor<2x3xf32>) -> tensor<2x3xf32>
    ```
  }];
}

//===----------------------------------------------------------------------------------===//
// CheckpointNameOp
//===----------------------------------------------------------------------------------===//

def Strata_CheckpointNameOp : Strata_Op<"checkpoint_name",
    [Strata_Elementwise, Strata_Fusible, Strata_Identity]> {
  let summary = "Passes a tensor through unchanged, naming it for checkpoint policies.";
  let description = [{
    The identity on values (and on derivatives); a rematerialization policy may save the values
    whose `name` it lists. The result has the operand's type.

    Example:

    ```mlir
    %y = strata.checkpoint_name %x, name = "hidden" : (tensor<2x3xf32>) -> tensor<2x3xf32>
    ```
  }];
  let arguments = (ins AnyRankedTensor:$operand, StrAttr:$name);
  let results = (outs AnyRankedTensor:$result);
  let assemblyFormat =
      "$operand `,` `name` `=` $name attr-dict `:` functional-type(operands, results)";
}

//===----------------------------------------------------------------------------------===//
//===== Control flow
//===----------------------------------------------------------------------------------===//

// The control-flow primitives (cond/switch, while_loop and fori_loop, scan) carry
// sub-functions, so they are region ops rather than primitive ops: they have no shape rule, and
// their verifiers check the regions' arguments and yields against the operands and results.
// Regions read values of the enclosing scope directly (as scf's do): a closed-over value is
// no operand, and only carries and scanned slices are block arguments.

//===----------------------------------------------------------------------------------===//
// CondOp
//===----------------------------------------------------------------------------------===//

def Strata_CondOp : Strata_StructuralOp<"cond", [RecursiveMemoryEffects]> {
  let summary = "Runs one of several branches, chosen by an index (cond and switch).";
  let description = [{
    `index` is a rank-0 `i32` tensor; it is clamped into `[0, N - 1]` for N branches (as
    `lax.switch` does), and the chosen branch's `strata.yield` gives the results. `lax.cond`
    is the two-branch form with the predicate converted to `i32` (branch 0 is the false
    branch). Branches take no block arguments: they read the enclosing values directly. Each
    branch must yield values of exactly the result types.

    Canonicalization: a constant index inlines its branch (so does a single branch), and
    results nothing uses are dropped from every branch.

    Example:

    ```mlir
    %r = strata.cond %i : (tensor<i32>) -> tensor<4xf32> {
      %a = strata.exp %x : (tensor<4xf32>) -> tensor<4xf32>
      strata.yield %a : tensor<4xf32>
    }, {
      %b = strata.neg %x : (tensor<4xf32>) -> tensor<4xf32>
      strata.yield %b : tensor<4xf32>
    }
    ```
  }];
  let arguments = (ins AnyRankedTensor:$index);
  let results = (outs Variadic<AnyRankedTensor>:$results);
  let regions = (region VariadicRegion<SizedRegion<1>>:$branches);
  let assemblyFormat = "$index attr-dict `:` functional-type($index, $results) $branches";
  let hasVerifier = 1;
  let hasCanonicalizer = 1;
}

//===----------------------------------------------------------------------------------===//
// WhileOp
//===----------------------------------------------------------------------------------===//

def Strata_WhileOp : Strata_StructuralOp<"while", [RecursiveMemoryEffects]> {
  let summary = "Loops while a condition holds, carrying values (while_loop, fori_loop).";
  let description = [{
    Both regions take the carries as block arguments (the types of `inits`, which are also
    the result types). `cond` yields a rank-0 `i1` tensor: false ends the loop with the
    carries as results; `do` yields the next carries. A loop whose condition never holds
    returns `inits`.

    Canonicalization: a condition that is the constant false gives `inits`; a carry whose
    result is unused and which neither region reads (other than passing it on) is dropped;
    pure ops of either region that read no block argument (loop invariants) are hoisted in
    front of the loop.

    Example:

    ```mlir
    %r:2 = strata.while %i0, %x0 : (tensor<i32>, tensor<4xf32>) -> (tensor<i32>, tensor<4xf32>) cond {
    ^bb0(%i: tensor<i32>, %x: tensor<4xf32>):
      %p = strata.lt %i, %n : (tensor<i32>, tensor<i32>) -> tensor<i1>
      strata.yield %p : tensor<i1>
    } do {
    ^bb0(%i: tensor<i32>, %x: tensor<4xf32>):
      %i1 = strata.add %i, %one : (tensor<i32>, tensor<i32>) -> tensor<i32>
      %x1 = strata.mul %x, %x : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
      strata.yield %i1, %x1 : tensor<i32>, tensor<4xf32>
    }
    ```
  }];
  let arguments = (ins Variadic<AnyRankedTensor>:$inits);
  let results = (outs Variadic<AnyRankedTensor>:$results);
  let regions = (region SizedRegion<1>:$cond, SizedRegion<1>:$body);
  let assemblyFormat =
      "$inits attr-dict `:` functional-type($inits, $results) `cond` $cond `do` $body";
  let hasVerifier = 1;
  let hasCanonicalizer = 1;
}

//===----------------------------------------------------------------------------------===//
// ScanOp
//===----------------------------------------------------------------------------------===//

def Strata_ScanOp : Strata_StructuralOp<"scan",
    [RecursiveMemoryEffects, AttrSizedOperandSegments]> {
  let summary = "Loops over the leading axis of `xs`, carrying values and stacking outputs.";
  let description = [{
    Runs the body `length` times (from the last slice to the first with `reverse = true`).
    Its block arguments are the carries (the types of `inits`) followed by one slice of each
    `xs` (its type without the leading axis, which must be `length`). It yields the next
    carries followed by one slice of each output `ys`. The results are the final carries
    followed by the `ys` stacked on a new leading axis of size `length` (step `t` of a reverse
    scan writes slice `t` too, so `ys` line up with `xs`). With `length = 0` the results are
    the inits and empty `ys`.

    Canonicalization: an unused carry that the body does not read (other than passing it on),
    an unused `ys` and an `xs` the body does not read are dropped; pure ops that read no block
    argument are hoisted in front of the loop.

    Example:

    ```mlir
    %r:2 = strata.scan init(%h0) xs(%xs) length = 8, reverse = false : (tensor<4xf32>, tensor<8x4xf32>) -> (tensor<4xf32>, tensor<8x4xf32>) {
    ^bb0(%h: tensor<4xf32>, %x: tensor<4xf32>):
      %s = strata.add %h, %x : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
      %t = strata.tanh %s : (tensor<4xf32>) -> tensor<4xf32>
      strata.yield %t, %t : tensor<4xf32>, tensor<4xf32>
    }
    ```
  }];
  let arguments = (ins Variadic<AnyRankedTensor>:$inits, Variadic<AnyRankedTensor>:$xs,
                       I64Attr:$length, BoolAttr:$reverse);
  let results = (outs Variadic<AnyRankedTensor>:$results);
  let regions = (region SizedRegion<1>:$body);
  let assemblyFormat = [{
    `init` `(` $inits `)` `xs` `(` $xs `)` `length` `=` $length `,` `reverse` `=` $reverse
    attr-dict `:` functional-type(operands, $results) $body
  }];
  let hasVerifier = 1;
  let hasCanonicalizer = 1;
  let extraClassDeclaration = [{
    /// The final carries (the first results).
    ::mlir::ResultRange getCarryResults() {
      return getResults().take_front(getInits().size());
    }
    /// The stacked per-step outputs (the results after the carries).
    ::mlir::ResultRange getYsResults() { return getResults().drop_front(getInits().size()); }
  }];
}

//===----------------------------------------------------------------------------------===//
//===== Structural ops
//===----------------------------------------------------------------------------------===//

//===----------------------------------------------------------------------------------===//
// FusionOp
//===----------------------------------------------------------------------------------===//

def Strata_FusionOp : Strata_StructuralOp<"fusion",
    [IsolatedFromAbove, RecursiveMemoryEffects]> {
  let summary = "A fused group of strata ops: one loop nest or one GPU kernel.";
  let description = [{
    Holds a group of ops that strata-fuse grouped together, so that a backend emits it as
    one loop nest or kernel and the intermediates never touch memory. The single block's
    arguments stand for the operands, one for one and of the same types (the region is
    isolated from above: everything it reads comes in as an operand); `strata.yield`
    returns the values of the group that are used outside it, which become the results.
    It applies no primitive itself, so it has no shape rule: its verifier checks only the
    block argument and yield types against the operands and results.

    Example:

    ```mlir
    %y = strata.fusion (%a = %x, %c = %bias) : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32> {
      %b = strata.broadcast_in_dim %c, broadcast_dimensions = [1] : (tensor<3xf32>) -> tensor<2x3xf32>
      %s = strata.add %a, %b : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
      %t = strata.tanh %s : (tensor<2x3xf32>) -> tensor<2x3xf32>
      strata.yield %t : tensor<2x3xf32>
    }
    ```
  }];
  let arguments = (ins Variadic<AnyRankedTensor>:$inputs);
  let results = (outs Variadic<AnyRankedTensor>:$results);
  let regions = (region SizedRegion<1>:$region);
  let hasCustomAssemblyFormat = 1;
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// The one block of the fused group.
    ::mlir::Block &getBlock() { return getRegion().front(); }
  }];
}

//===----------------------------------------------------------------------------------===//
// YieldOp
//===----------------------------------------------------------------------------------===//

def Strata_YieldOp : Strata_StructuralOp<"yield",
    [Pure, Terminator, ParentOneOf<["FusionOp", "CondOp", "WhileOp", "ScanOp"]>]> {
  let summary = "Returns the values of a region of strata.fusion, cond, while or scan.";
  let description = [{
    Terminates the block of a `strata.fusion` (its operands become the fusion's results), of a
    `strata.cond` branch (the results), of a `strata.while` region (the condition, or the next
    carries) or of a `strata.scan` body (the next carries, then the per-step outputs). The
    parent op's verifier checks the types.

    Example:

    ```mlir
    strata.yield %t, %s : tensor<2x3xf32>, tensor<2x3xf32>
    ```
  }];
  let arguments = (ins Variadic<AnyRankedTensor>:$values);
  let assemblyFormat = "attr-dict ($values^ `:` type($values))?";
}

//===----------------------------------------------------------------------------------===//
//===== Host callbacks
//===----------------------------------------------------------------------------------===//

//===----------------------------------------------------------------------------------===//
// HostCallbackOp
//===----------------------------------------------------------------------------------===//

def Strata_HostCallbackOp : Strata_StructuralOp<"host_callback",
    [MemoryEffects<[MemRead, MemWrite]>]> {
  let summary = "Calls a registered host function with the operands' runtime values.";
  let description = [{
    Applies the `host_callback` primitive (jax.debug.callback, jax.pure_callback): at run
    time the compiled code calls the function that libstrata registered under
    `callback_id` with the operands' values, and the results are what it returns. The op
    is an effect: it declares memory reads and writes, so canonicalize, CSE and DCE keep
    every call and the order of calls, even one without results (debug.print). Its result
    types come from the registry, which the IR does not see, so it has no shape-rule
    verifier; the runtime checks the function's results against them.

    Example:

    ```mlir
    strata.host_callback(%x) callback_id = 0 : (tensor<3xf32>) -> ()
    %y = strata.host_callback(%x, %n) callback_id = 1 : (tensor<3xf32>, tensor<i32>) -> tensor<3xf32>
    ```
  }];
  let arguments = (ins Variadic<AnyRankedTensor>:$inputs,
                       ConfinedAttr<I64Attr, [IntNonNegative]>:$callback_id);
  let results = (outs Variadic<AnyRankedTensor>:$results);
  let assemblyFormat = [{
    `(` $inputs `)` `callback_id` `=` $callback_id attr-dict `:` functional-type($inputs, results)
  }];
}

//===----------------------------------------------------------------------------------===//
//===== Linear algebra (lib/primitives/linalg.cpp): batched over leading dimensions
//===----------------------------------------------------------------------------------===//

def Strata_CholeskyOp : Strata_Op<"cholesky"> {
  let summary = "Computes the lower Cholesky factor of each matrix.";
  let description = [{
    The operand is `[..., n, n]` of f32 or f64; only its lower triangle is read, as the lower
    triangle of `(x + x^T) / 2` with `symmetrize_input`. The result has its type: the factor
    `L` with `x = L L^T`, zeros above the diagonal, or NaNs where a matrix is not positive
    definite.

    Example:

    ```mlir
    %l = strata.cholesky %x, symmetrize_input = true : (tensor<2x3x3xf64>) -> tensor<2x3x3xf64>
    ```
  }];
  let arguments = (ins AnyRankedTensor:$operand, BoolAttr:$symmetrize_input);
  let results = (outs AnyRankedTensor:$result);
  let assemblyFormat = [{
    $operand `,` `symmetrize_input` `=` $symmetrize_input attr-dict `:`
    functional-type(operands, results)
  }];
}

def Strata_TriangularSolveOp : Strata_Op<"triangular_solve"> {
  let summary = "Solves triangular systems op(a) x = b or x op(a) = b.";
  let description = [{
    `a` is `[..., k, k]`, read in its lower or upper triangle (its diagonal taken as ones with
    `unit_diagonal`); `b` is `[..., m, n]` with the same leading dimensions and `k` = `m`
    (`left_side`) or `n`. `op(a)` is `a^T` with `transpose_a`. The result has `b`'s type.

    Example:

    ```mlir
    %x = strata.triangular_solve %a, %b, left_side = true, lower = true, transpose_a = false,
        unit_diagonal = false : (tensor<3x3xf32>, tensor<3x2xf32>) -> tensor<3x2xf32>
    ```
  }];
  let arguments = (ins AnyRankedTensor:$a, AnyRankedTensor:$b, BoolAttr:$left_side,
                       BoolAttr:$lower, BoolAttr:$transpose_a, BoolAttr:$unit_diagonal);
  let results = (outs AnyRankedTensor:$result);
  let assemblyFormat = [{
    $a `,` $b `,` `left_side` `=` $left_side `,` `lower` `=` $lower `,` `transpose_a` `=`
    $transpose_a `,` `unit_diagonal` `=` $unit_diagonal attr-dict `:`
    functional-type(operands, results)
  }];
}

def Strata_LuOp : Strata_Op<"lu"> {
  let summary = "LU decomposition with partial pivoting of each matrix.";
  let description = [{
    For `[..., m, n]` f32/f64 operands: `lu` (the operand's type: L's strict lower part, unit
    diagonal implied, and U), `pivots` (`[..., min(m, n)]` i32, 0-based: row i was swapped
    with row pivots[i]) and `permutation` (`[..., m]` i32: `x[permutation] = L U`).

    Example:

    ```mlir
    %lu, %piv, %perm = strata.lu %x
        : (tensor<4x3xf64>) -> (tensor<4x3xf64>, tensor<3xi32>, tensor<4xi32>)
    ```
  }];
  let arguments = (ins AnyRankedTensor:$operand);
  let results = (outs AnyRankedTensor:$lu, AnyRankedTensor:$pivots,
                      AnyRankedTensor:$permutation);
  let assemblyFormat = "$operand attr-dict `:` functional-type(operands, results)";
}

def Strata_LuPivotsToPermutationOp : Strata_Op<"lu_pivots_to_permutation"> {
  let summary = "Turns LU pivots into the permutation they make.";
  let description = [{
    `[..., k]` i32 pivots (row i swapped with row pivots[i], in turn) => the `[...,
    permutation_size]` i32 permutation of 0..permutation_size-1 that the swaps make.

    Example:

    ```mlir
    %p = strata.lu_pivots_to_permutation %piv, permutation_size = 4
        : (tensor<3xi32>) -> tensor<4xi32>
    ```
  }];
  let arguments = (ins AnyRankedTensor:$operand, I64Attr:$permutation_size);
  let results = (outs AnyRankedTensor:$result);
  let assemblyFormat = [{
    $operand `,` `permutation_size` `=` $permutation_size attr-dict `:`
    functional-type(operands, results)
  }];
}

def Strata_QrOp : Strata_Op<"qr"> {
  let summary = "QR decomposition of each matrix.";
  let description = [{
    For `[..., m, n]` f32/f64 operands: `q` with orthonormal columns and upper-triangular `r`,
    `[..., m, m]` and `[..., m, n]` with `full_matrices`, else `[..., m, k]` and `[..., k, n]`
    (k = min(m, n)).

    Example:

    ```mlir
    %q, %r = strata.qr %x, full_matrices = false
        : (tensor<4x3xf32>) -> (tensor<4x3xf32>, tensor<3x3xf32>)
    ```
  }];
  let arguments = (ins AnyRankedTensor:$operand, BoolAttr:$full_matrices);
  let results = (outs AnyRankedTensor:$q, AnyRankedTensor:$r);
  let assemblyFormat = [{
    $operand `,` `full_matrices` `=` $full_matrices attr-dict `:`
    functional-type(operands, results)
  }];
}

def Strata_EighOp : Strata_Op<"eigh"> {
  let summary = "Eigendecomposition of each symmetric matrix.";
  let description = [{
    For `[..., n, n]` f32/f64 operands, read in their lower (`lower`) or upper triangle:
    eigenvectors `v` (columns, the operand's type) and ascending eigenvalues `w` (`[..., n]`).

    Example:

    ```mlir
    %v, %w = strata.eigh %x, lower = true : (tensor<3x3xf64>) -> (tensor<3x3xf64>, tensor<3xf64>)
    ```
  }];
  let arguments = (ins AnyRankedTensor:$operand, BoolAttr:$lower);
  let results = (outs AnyRankedTensor:$v, AnyRankedTensor:$w);
  let assemblyFormat = [{
    $operand `,` `lower` `=` $lower attr-dict `:` functional-type(operands, results)
  }];
}

def Strata_SvdOp : Strata_Op<"svd"> {
  let summary = "Singular value decomposition of each matrix.";
  let description = [{
    For `[..., m, n]` f32/f64 operands: descending singular values `s` (`[..., k]`, k =
    min(m, n)) and, with `compute_uv`, `u` and `vt`: `[..., m, m]` and `[..., n, n]` with
    `full_matrices`, else `[..., m, k]` and `[..., k, n]`.

    Example:

    ```mlir
    %s, %u, %vt = strata.svd %x, compute_uv = true, full_matrices = false
        : (tensor<4x3xf64>) -> (tensor<3xf64>, tensor<4x3xf64>, tensor<3x3xf64>)
    ```
  }];
  let arguments = (ins AnyRankedTensor:$operand, BoolAttr:$compute_uv, BoolAttr:$full_matrices);
  let results = (outs Variadic<AnyRankedTensor>:$results);
  let assemblyFormat = [{
    $operand `,` `compute_uv` `=` $compute_uv `,` `full_matrices` `=` $full_matrices attr-dict
    `:` functional-type(operands, results)
  }];
}

//===----- The nonsymmetric eigenproblem (eig family, lib/primitives/linalg.cpp): CPU only

def Strata_EigOp : Strata_Op<"eig"> {
  let summary = "Eigenvalues and eigenvectors of each general square matrix (LAPACK geev).";
  let description = [{
    For `[..., n, n]` f32, f64, complex<f32> or complex<f64> operands: the eigenvalues `w`
    (`[..., n]`, complex<f32> for f32 and complex<f32> operands, complex<f64> otherwise), then
    the left eigenvectors (`compute_left_eigenvectors`) and the right eigenvectors
    (`compute_right_eigenvectors`), `[..., n, n]` of w's element type, in columns of unit
    norm. Compiled for the CPU only (as JAX).

    Example:

    ```mlir
    %w, %vr = strata.eig %x, compute_left_eigenvectors = false,
        compute_right_eigenvectors = true
        : (tensor<3x3xf64>) -> (tensor<3xcomplex<f64>>, tensor<3x3xcomplex<f64>>)
    ```
  }];
  let arguments = (ins AnyRankedTensor:$operand, BoolAttr:$compute_left_eigenvectors,
                       BoolAttr:$compute_right_eigenvectors);
  let results = (outs Variadic<AnyRankedTensor>:$results);
  let assemblyFormat = [{
    $operand `,` `compute_left_eigenvectors` `=` $compute_left_eigenvectors `,`
    `compute_right_eigenvectors` `=` $compute_right_eigenvectors attr-dict `:`
    functional-type(operands, results)
  }];
}

def Strata_SchurOp : Strata_Op<"schur"> {
  let summary = "Schur decomposition of each square matrix (LAPACK gees).";
  let description = [{
    For `[..., n, n]` f32, f64, complex<f32> or complex<f64> operands: the Schur form `t`
    (quasi-upper-triangular for real operands, upper triangular for complex ones) and, with
    `compute_schur_vectors`, the unitary `vs` with `x = vs t vs^H`; both of the operand's
    type. Compiled for the CPU only (as JAX).

    Example:

    ```mlir
    %t, %vs = strata.schur %x, compute_schur_vectors = true
        : (tensor<4x4xf64>) -> (tensor<4x4xf64>, tensor<4x4xf64>)
    ```
  }];
  let arguments = (ins AnyRankedTensor:$operand, BoolAttr:$compute_schur_vectors);
  let results = (outs Variadic<AnyRankedTensor>:$results);
  let assemblyFormat = [{
    $operand `,` `compute_schur_vectors` `=` $compute_schur_vectors attr-dict `:`
    functional-type(operands, results)
  }];
}

def Strata_HessenbergOp : Strata_Op<"hessenberg"> {
  let summary = "Hessenberg reduction of each square matrix, packed (LAPACK gehrd).";
  let description = [{
    For `[..., n, n]` f32, f64, complex<f32> or complex<f64> operands: `a` (the operand's
    type: the upper Hessenberg matrix on and above the first subdiagonal, the Householder
    vectors below it) and `taus` (`[..., n - 1]`, their scale factors). Compiled for the CPU
    only (as JAX).

    Example:

    ```mlir
    %a, %taus = strata.hessenberg %x : (tensor<4x4xf32>) -> (tensor<4x4xf32>, tensor<3xf32>)
    ```
  }];
  let arguments = (ins AnyRankedTensor:$operand);
  let results = (outs AnyRankedTensor:$a, AnyRankedTensor:$taus);
  let assemblyFormat = "$operand attr-dict `:` functional-type(operands, results)";
}

def Strata_HouseholderProductOp : Strata_Op<"householder_product"> {
  let summary = "The product of Householder reflectors (LAPACK orgqr / ungqr).";
  let description = [{
    `a` is `[..., m, n]` (m >= n) holding the reflectors below its diagonal and `taus`
    `[..., k]` (k <= n) their scale factors, of one element type; the result, of `a`'s type,
    has orthonormal columns. Compiled for the CPU only.

    Example:

    ```mlir
    %q = strata.householder_product %a, %taus
        : (tensor<4x3xf64>, tensor<3xf64>) -> tensor<4x3xf64>
    ```
  }];
  let arguments = (ins AnyRankedTensor:$a, AnyRankedTensor:$taus);
  let results = (outs AnyRankedTensor:$result);
  let assemblyFormat = "$a `,` $taus attr-dict `:` functional-type(operands, results)";
}

//===----------------------------------------------------------------------------------===//
//===== Fourier transforms (fft family)
//===----------------------------------------------------------------------------------===//

def Strata_FftOp : Strata_Op<"fft"> {
  let summary = "The discrete Fourier transform over the trailing axes (lax.fft).";
  let description = [{
    Applies the `fft` primitive over the last `len(fft_lengths)` (1 to 3) dimensions:
    `fft_type` "FFT" and "IFFT" map complex to complex (IFFT scaled by 1/prod(fft_lengths)),
    "RFFT" maps f32/f64 to complex64/complex128 with the last dimension n/2+1, "IRFFT" the
    reverse. The shape rule checks the trailing dimensions against `fft_lengths`.

    Example:

    ```mlir
    %y = strata.fft %x, fft_type = "RFFT", fft_lengths = [8]
        : (tensor<3x8xf32>) -> tensor<3x5xcomplex<f32>>
    ```
  }];
  let arguments = (ins AnyRankedTensor:$operand, StrAttr:$fft_type,
                       DenseI64ArrayAttr:$fft_lengths);
  let results = (outs AnyRankedTensor:$result);
  let assemblyFormat = [{
    $operand `,` `fft_type` `=` $fft_type `,` `fft_lengths` `=` $fft_lengths attr-dict `:`
    functional-type($operand, $result)
  }];
}

//===----------------------------------------------------------------------------------===//
//===== Windowed reductions (lib/primitives/window.cpp)
//===----------------------------------------------------------------------------------===//

// Ops over the windows of an operand: every window attribute has one entry per operand
// dimension. Output dimension d has (padded - span) / stride + 1 entries, where padded is the
// base-dilated size plus padding_low and padding_high (negative padding crops) and span the
// window-dilated window.
class Strata_WindowOp<string mnemonic, dag operands, list<Trait> traits = []>
    : Strata_Op<mnemonic, traits> {
  let arguments = !con(operands, (ins DenseI64ArrayAttr:$window_dimensions,
                       DenseI64ArrayAttr:$window_strides, DenseI64ArrayAttr:$padding_low,
                       DenseI64ArrayAttr:$padding_high, DenseI64ArrayAttr:$base_dilation,
                       DenseI64ArrayAttr:$window_dilation));
  let results = (outs AnyRankedTensor:$result);
  // The select ops name their two operands in their own formats.
  let assemblyFormat = [{
    $operand `,` `window_dimensions` `=` $window_dimensions `,` `window_strides` `=`
    $window_strides `,` `padding_low` `=` $padding_low `,` `padding_high` `=` $padding_high `,`
    `base_dilation` `=` $base_dilation `,` `window_dilation` `=` $window_dilation attr-dict `:`
    functional-type(operands, results)
  }];
}

//===----------------------------------------------------------------------------------===//
// ReduceWindowSumOp
//===----------------------------------------------------------------------------------===//

def Strata_ReduceWindowSumOp
    : Strata_WindowOp<"reduce_window_sum", (ins AnyRankedTensor:$operand)> {
  let summary = "Sums every window of the operand.";
  let description = [{
    Padding and the holes of the base dilation count as 0. Integers wrap; bool operands are
    rejected.

    Example:

    ```mlir
    %y = strata.reduce_window_sum %x, window_dimensions = [2, 2], window_strides = [2, 2],
        padding_low = [0, 0], padding_high = [0, 0], base_dilation = [1, 1],
        window_dilation = [1, 1] : (tensor<4x6xf32>) -> tensor<2x3xf32>
    ```
  }];
}

//===----------------------------------------------------------------------------------===//
// ReduceWindowMaxOp
//===----------------------------------------------------------------------------------===//

def Strata_ReduceWindowMaxOp
    : Strata_WindowOp<"reduce_window_max", (ins AnyRankedTensor:$operand)> {
  let summary = "The maximum of every window of the operand (max pooling).";
  let description = [{
    Padding counts as the lowest value (-inf for floats); NaN propagates.

    Example:

    ```mlir
    %y = strata.reduce_window_max %x, window_dimensions = [3], window_strides = [1],
        padding_low = [1], padding_high = [1], base_dilation = [1], window_dilation = [1]
        : (tensor<5xf32>) -> tensor<5xf32>
    ```
  }];
}

//===----------------------------------------------------------------------------------===//
// ReduceWindowMinOp
//===----------------------------------------------------------------------------------===//

def Strata_ReduceWindowMinOp
    : Strata_WindowOp<"reduce_window_min", (ins AnyRankedTensor:$operand)> {
  let summary = "The minimum of every window of the operand.";
  let description = [{
    Padding counts as the highest value (+inf for floats); NaN propagates.

    Example:

    ```mlir
    %y = strata.reduce_window_min %x, window_dimensions = [2], window_strides = [2],
        padding_low = [0], padding_high = [0], base_dilation = [1], window_dilation = [1]
        : (tensor<6xi32>) -> tensor<3xi32>
    ```
  }];
}

//===----------------------------------------------------------------------------------===//
// SelectAndGatherAddOp
//===----------------------------------------------------------------------------------===//

def Strata_SelectAndGatherAddOp
    : Strata_WindowOp<"select_and_gather_add",
                      (ins AnyRankedTensor:$tangents, AnyRankedTensor:$operand,
                           StrAttr:$select_prim)> {
  let summary = "Each window's tangent at the element select picks in the operand.";
  let description = [{
    Scanning a window in row-major order, the pick moves to a later element unless
    `select_prim` (`"ge"`: max pooling, `"le"`: min pooling) holds between the current pick and
    it, so ties keep the first; padding is never picked, and a window of padding only gives 0.
    `tangents` has the operand's shape and dtype; the result has the windows' shape.

    Example:

    ```mlir
    %t = strata.select_and_gather_add %dx, %x, select_prim = "ge", window_dimensions = [2],
        window_strides = [2], padding_low = [0], padding_high = [0], base_dilation = [1],
        window_dilation = [1] : (tensor<4xf32>, tensor<4xf32>) -> tensor<2xf32>
    ```
  }];
  let assemblyFormat = [{
    $tangents `,` $operand `,` `select_prim` `=` $select_prim `,` `window_dimensions` `=`
    $window_dimensions `,` `window_strides` `=` $window_strides `,` `padding_low` `=`
    $padding_low `,` `padding_high` `=` $padding_high `,` `base_dilation` `=` $base_dilation `,`
    `window_dilation` `=` $window_dilation attr-dict `:` functional-type(operands, results)
  }];
}

//===----------------------------------------------------------------------------------===//
// SelectAndScatterAddOp
//===----------------------------------------------------------------------------------===//

def Strata_SelectAndScatterAddOp
    : Strata_WindowOp<"select_and_scatter_add",
                      (ins AnyRankedTensor:$source, AnyRankedTensor:$operand,
                           StrAttr:$select_prim)> {
  let summary = "Each window's source value added at the element select picks in the operand.";
  let description = [{
    The transpose of `select_and_gather_add` (max pooling's gradient): the picks are the same,
    `source` has the windows' shape, and the result the operand's shape and dtype, zero where
    nothing was picked.

    Example:

    ```mlir
    %dx = strata.select_and_scatter_add %g, %x, select_prim = "ge", window_dimensions = [2],
        window_strides = [2], padding_low = [0], padding_high = [0], base_dilation = [1],
        window_dilation = [1] : (tensor<2xf32>, tensor<4xf32>) -> tensor<4xf32>
    ```
  }];
  let assemblyFormat = [{
    $source `,` $operand `,` `select_prim` `=` $select_prim `,` `window_dimensions` `=`
    $window_dimensions `,` `window_strides` `=` $window_strides `,` `padding_low` `=`
    $padding_low `,` `padding_high` `=` $padding_high `,` `base_dilation` `=` $base_dilation `,`
    `window_dilation` `=` $window_dilation attr-dict `:` functional-type(operands, results)
  }];
}

//===----------------------------------------------------------------------------------===//
//===== Convolution
//===----------------------------------------------------------------------------------===//

//===----------------------------------------------------------------------------------===//
// ConvGeneralDilatedOp
//===----------------------------------------------------------------------------------===//

def Strata_ConvGeneralDilatedOp : Strata_Op<"conv_general_dilated"> {
  let summary = "XLA's convolution: strides, padding, lhs and rhs dilation, groups.";
  let description = [{
    Applies the `conv_general_dilated` primitive (lax.conv_general_dilated). `lhs_spec`,
    `rhs_spec` and `out_spec` are the dimension numbers: (batch, feature, spatial...) of the
    input, (output feature, input feature, spatial...) of the kernel, (batch, feature,
    spatial...) of the result. `padding` holds a (low, high) pair per spatial dimension
    (negative crops); `lhs_dilation` dilates the input (a transposed convolution),
    `rhs_dilation` the kernel. Input features split into `feature_group_count` groups, the
    input batch into `batch_group_count` groups, each convolved with its share of the output
    features. Both operands have one dtype; `preferred_element_type` widens the result.

    Example:

    ```mlir
    %y = strata.conv_general_dilated %x, %w, window_strides = [1, 1],
        padding = [1, 1, 1, 1], lhs_dilation = [1, 1], rhs_dilation = [1, 1],
        lhs_spec = [0, 1, 2, 3], rhs_spec = [0, 1, 2, 3], out_spec = [0, 1, 2, 3],
        feature_group_count = 1, batch_group_count = 1
        : (tensor<8x3x32x32xf32>, tensor<16x3x3x3xf32>) -> tensor<8x16x32x32xf32>
    ```
  }];
  let arguments = (ins AnyRankedTensor:$lhs, AnyRankedTensor:$rhs,
                       DenseI64ArrayAttr:$window_strides, DenseI64ArrayAttr:$padding,
                       DenseI64ArrayAttr:$lhs_dilation, DenseI64ArrayAttr:$rhs_dilation,
                       DenseI64ArrayAttr:$lhs_spec, DenseI64ArrayAttr:$rhs_spec,
                       DenseI64ArrayAttr:$out_spec, I64Attr:$feature_group_count,
                       I64Attr:$batch_group_count,
                       OptionalAttr<TypeAttr>:$preferred_element_type);
  let results = (outs AnyRankedTensor:$result);
  let assemblyFormat = [{
    $lhs `,` $rhs `,` `window_strides` `=` $window_strides `,` `padding` `=` $padding `,`
    `lhs_dilation` `=` $lhs_dilation `,` `rhs_dilation` `=` $rhs_dilation `,`
    `lhs_spec` `=` $lhs_spec `,` `rhs_spec` `=` $rhs_spec `,` `out_spec` `=` $out_spec `,`
    `feature_group_count` `=` $feature_group_count `,`
    `batch_group_count` `=` $batch_group_count attr-dict `:` functional-type(operands, results)
  }];
}

// ---- Complex numbers (elementwise_complex.cpp)

def Strata_ComplexOp : Strata_BinaryOp<"complex"> {
  let summary = "Forms `x + iy` from real and imaginary parts.";
  let description = [{
    Elementwise; both operands are f32 (the result is complex64) or f64 (complex128).

    Example:

    ```mlir
    %z = strata.complex %x, %y : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xcomplex<f32>>
    ```
  }];
}

def Strata_RealOp : Strata_UnaryOp<"real"> {
  let summary = "Takes the real part of each complex element.";
  let description = [{
    Elementwise; a complex64 operand gives f32, complex128 f64.

    Example:

    ```mlir
    %x = strata.real %z : (tensor<3xcomplex<f32>>) -> tensor<3xf32>
    ```
  }];
}

def Strata_ImagOp : Strata_UnaryOp<"imag"> {
  let summary = "Takes the imaginary part of each complex element.";
  let description = [{
    Elementwise; a complex64 operand gives f32, complex128 f64.

    Example:

    ```mlir
    %y = strata.imag %z : (tensor<3xcomplex<f32>>) -> tensor<3xf32>
    ```
  }];
}

def Strata_ConjOp : Strata_UnaryOp<"conj"> {
  let summary = "Takes the complex conjugate of each element.";
  let description = [{
    Elementwise; `x - iy` for `x + iy`. A real operand becomes the complex type of its width.

    Example:

    ```mlir
    %w = strata.conj %z : (tensor<3xcomplex<f32>>) -> tensor<3xcomplex<f32>>
    ```
  }];
}

#endif // STRATA_OPS_TD
