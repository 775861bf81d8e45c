// The one verifier of every strata op: it runs the op's primitive shape rule from libstrata.
//
// Operands and results must be ranked tensors of Strata element types. When every operand is
// static (and no shape parameter comes from a dynamic result type), the rule runs and each
// result must be compatible with it: same rank and element type, each static dimension equal,
// dynamic ones accepted. With a dynamic operand the rule cannot run and is skipped.
//
// Types and attributes are translated into the core library's terms (AbstractValue, Params),
// the rule runs, and its strata::Error message becomes the op's diagnostic. libstrata throws
// and MLIR is built without exceptions, so every exception is caught here, before it could
// unwind through an MLIR frame.
#include "dialects/strata/StrataVerify.h"

#include "dialects/strata/StrataOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Verifier.h"

#include <exception>
#include <optional>
#include <string>
#include <vector>

#include "strata/error.h"
#include "strata/primitive.h"

using namespace mlir;

// The builtin element type of each dtype: the one mapping, read both ways.
Type mlir::strata::toElementType(MLIRContext *ctx, ::strata::DType d) {
  using ::strata::DType;
  switch (d) {
  case DType::Bool:
    return IntegerType::get(ctx, 1);
  case DType::Int8:
    return IntegerType::get(ctx, 8);
  case DType::Int16:
    return IntegerType::get(ctx, 16);
  case DType::Int32:
    return IntegerType::get(ctx, 32);
  case DType::Int64:
    return IntegerType::get(ctx, 64);
  case DType::UInt8:
    return IntegerType::get(ctx, 8, IntegerType::Unsigned);
  case DType::UInt16:
    return IntegerType::get(ctx, 16, IntegerType::Unsigned);
  case DType::UInt32:
    return IntegerType::get(ctx, 32, IntegerType::Unsigned);
  case DType::UInt64:
    return IntegerType::get(ctx, 64, IntegerType::Unsigned);
  case DType::Float16:
    return Float16Type::get(ctx);
  case DType::BFloat16:
    return BFloat16Type::get(ctx);
  case DType::Float32:
    return Float32Type::get(ctx);
  case DType::Float64:
    return Float64Type::get(ctx);
  // Complex tensors verify (strata.fft takes and makes them); jit/Staging.cpp still rejects
  // complex values before any op is built.
  case DType::Complex64:
    return ComplexType::get(Float32Type::get(ctx));
  case DType::Complex128:
    return ComplexType::get(Float64Type::get(ctx));
  }
  return {};
}

/// The DType of a builtin element type, or nothing for a type Strata has no dtype for
/// (types are uniqued, so comparing against each dtype's type is exact).
std::optional<::strata::DType> mlir::strata::toDType(Type t) {
  for (int i = 0; i < ::strata::kNumDTypes; ++i) {
    auto d = static_cast<::strata::DType>(i);
    if (toElementType(t.getContext(), d) == t)
      return d;
  }
  return std::nullopt;
}

using mlir::strata::toDType;
using mlir::strata::toElementType;

namespace {

std::string str(StringRef s) { return s.str(); }

/// Checks that `type` is a ranked tensor of a Strata element type (any shape, dynamic
/// dimensions included); on failure, emits an error that names `what` ("operand #0").
LogicalResult checkTensorType(Operation *op, Type type, const Twine &what) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  if (!tensor)
    return op->emitOpError() << what << " must be a ranked tensor, got " << type;
  if (!toDType(tensor.getElementType()))
    return op->emitOpError()
           << what << " has unsupported element type " << tensor.getElementType()
           << " (expected i1, i8, i16, i32, i64, ui8, ui16, ui32, ui64, f16, bf16, f32 or f64)";
  return success();
}

/// The abstract value of a static ranked tensor type of a Strata element type, or nothing.
std::optional<::strata::AbstractValue> toAbstractValue(Type type) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  if (!tensor || !tensor.hasStaticShape())
    return std::nullopt;
  std::optional<::strata::DType> dtype = toDType(tensor.getElementType());
  if (!dtype)
    return std::nullopt;
  return ::strata::AbstractValue{::strata::Shape(tensor.getShape()), *dtype, false};
}

/// Adds one attribute to `params` under its own name; fails for kinds no primitive takes
/// (emitting an error when `emit`).
LogicalResult addParam(Operation *op, StringRef name, Attribute attr, ::strata::Params &params,
                       bool emit) {
  if (auto a = dyn_cast<DenseI64ArrayAttr>(attr)) {
    params.set(str(name), std::vector<int64_t>(a.asArrayRef()));
  } else if (auto b = dyn_cast<BoolAttr>(attr)) {
    params.set(str(name), b.getValue());
  } else if (auto i = dyn_cast<IntegerAttr>(attr)) {
    params.set(str(name), i.getValue().getSExtValue());
  } else if (auto f = dyn_cast<FloatAttr>(attr)) {
    params.set(str(name), f.getValueAsDouble());
  } else if (auto s = dyn_cast<StringAttr>(attr)) {
    params.set(str(name), s.str());
  } else if (auto t = dyn_cast<TypeAttr>(attr)) {
    std::optional<::strata::DType> dtype = toDType(t.getValue());
    if (!dtype)
      return emit ? op->emitOpError() << "attribute '" << name << "' has unsupported element type "
                                      << t.getValue()
                  : failure();
    params.set(str(name), *dtype);
  } else {
    return emit ? op->emitOpError()
                      << "attribute '" << name << "' has no primitive parameter form: " << attr
                : failure();
  }
  return success();
}

/// The primitive's parameters: the op's inherent attributes, then the ones its result types
/// carry. `dynamicParam` is set when a carried shape has a dynamic dimension (a reshape or
/// broadcast to `tensor<?x...>`): the rule cannot run on it.
LogicalResult collectParams(Operation *op, ::strata::Params &params, bool &dynamicParam,
                            bool emit) {
  dynamicParam = false;
  // Inherent attributes are the primitive's parameters; discardable ones are not.
  for (StringAttr attrName : op->getName().getAttributeNames())
    if (std::optional<Attribute> attr = op->getInherentAttr(attrName); attr && *attr)
      if (failed(addParam(op, attrName.getValue(), *attr, params, emit)))
        return failure();
  for (NamedAttribute implied : cast<mlir::strata::PrimitiveOpInterface>(op).getImpliedParams()) {
    if (auto dims = dyn_cast<DenseI64ArrayAttr>(implied.getValue()))
      dynamicParam |= llvm::any_of(dims.asArrayRef(), ShapedType::isDynamic);
    if (failed(addParam(op, implied.getName().getValue(), implied.getValue(), params, emit)))
      return failure();
  }
  return success();
}

/// Runs the rule; on a rejection or a bug in the rule, fails with its message in `error`.
FailureOr<std::vector<::strata::AbstractValue>>
evalRule(const ::strata::Primitive &prim, const std::vector<::strata::AbstractValue> &in,
         const ::strata::Params &params, std::string &error) {
  try {
    return ::strata::abstract_eval(prim, in, params);
  } catch (const std::exception &e) {
    // strata::Error carries "[prim] what is wrong, with the shapes"; anything else is a bug in
    // the rule, reported rather than allowed to unwind through MLIR.
    error = e.what();
  } catch (...) {
    error = "the shape rule of '" + prim.name + "' failed";
  }
  return failure();
}

RankedTensorType toTensorType(MLIRContext *ctx, const ::strata::AbstractValue &aval) {
  return RankedTensorType::get(aval.shape, toElementType(ctx, aval.dtype));
}

} // namespace

namespace mlir::strata {

DictionaryAttr resultShapeParam(Operation *op, StringRef name) {
  Builder b(op->getContext());
  auto type = cast<ShapedType>(op->getResult(0).getType());
  return b.getDictionaryAttr({b.getNamedAttr(name, b.getDenseI64ArrayAttr(type.getShape()))});
}

bool isStrataElementType(Type type) { return toDType(type).has_value(); }

bool isCompatibleResultType(RankedTensorType have, RankedTensorType want) {
  if (have.getElementType() != want.getElementType() || have.getRank() != want.getRank())
    return false;
  for (auto [h, w] : llvm::zip_equal(have.getShape(), want.getShape()))
    if (!ShapedType::isDynamic(h) && h != w)
      return false;
  return true;
}

FailureOr<::strata::Params> primitiveParams(Operation *op) {
  ::strata::Params params;
  bool dynamicParam = false;
  if (failed(collectParams(op, params, dynamicParam, /*emit=*/false)) || dynamicParam)
    return failure();
  return params;
}

bool canRunShapeRule(Operation *op) {
  auto iface = dyn_cast<PrimitiveOpInterface>(op);
  if (!iface)
    return false;
  StringRef name = iface.getPrimitiveName();
  if (!::strata::find_primitive({name.data(), name.size()}))
    return false;
  if (!llvm::all_of(op->getOperandTypes(),
                    [](Type type) { return toAbstractValue(type).has_value(); }))
    return false;
  ::strata::Params params;
  bool dynamicParam = false;
  return succeeded(collectParams(op, params, dynamicParam, /*emit=*/false)) && !dynamicParam;
}

FailureOr<SmallVector<RankedTensorType>> inferPrimitiveResultTypes(Operation *op,
                                                                   std::string *error) {
  std::string ignored;
  std::string &why = error ? *error : ignored;
  auto iface = dyn_cast<PrimitiveOpInterface>(op);
  if (!iface) {
    why = "not a strata primitive op";
    return failure();
  }
  StringRef name = iface.getPrimitiveName();
  const ::strata::Primitive *prim = ::strata::find_primitive({name.data(), name.size()});
  if (!prim) {
    why = ("no primitive named '" + name + "' in libstrata").str();
    return failure();
  }
  std::vector<::strata::AbstractValue> in;
  for (Type type : op->getOperandTypes()) {
    std::optional<::strata::AbstractValue> aval = toAbstractValue(type);
    if (!aval) {
      why = "an operand is not a static tensor of a Strata element type";
      return failure();
    }
    in.push_back(*aval);
  }
  ::strata::Params params;
  bool dynamicParam = false;
  if (failed(collectParams(op, params, dynamicParam, /*emit=*/false)) || dynamicParam) {
    why = "a parameter is not known statically";
    return failure();
  }
  auto expected = evalRule(*prim, in, params, why);
  if (failed(expected))
    return failure();
  SmallVector<RankedTensorType> types;
  for (const ::strata::AbstractValue &aval : *expected)
    types.push_back(toTensorType(op->getContext(), aval));
  return types;
}

LogicalResult verifyPrimitiveOp(Operation *op) {
  auto iface = cast<PrimitiveOpInterface>(op);
  StringRef name = iface.getPrimitiveName();
  const ::strata::Primitive *prim = ::strata::find_primitive({name.data(), name.size()});
  if (!prim)
    return op->emitOpError() << "has no primitive named '" << name << "' in libstrata";

  // Every operand and result is a ranked tensor of a Strata element type, static or not.
  bool dynamicOperand = false;
  std::vector<::strata::AbstractValue> in;
  for (OpOperand &operand : op->getOpOperands()) {
    Type type = operand.get().getType();
    if (failed(checkTensorType(op, type, "operand #" + Twine(operand.getOperandNumber()))))
      return failure();
    if (std::optional<::strata::AbstractValue> aval = toAbstractValue(type))
      in.push_back(*aval);
    else
      dynamicOperand = true;
  }
  for (OpResult result : op->getResults())
    if (failed(checkTensorType(op, result.getType(), "result #" + Twine(result.getResultNumber()))))
      return failure();

  ::strata::Params params;
  bool dynamicParam = false;
  if (failed(collectParams(op, params, dynamicParam, /*emit=*/true)))
    return failure();
  // The rule needs exact shapes: with a dynamic operand, or a shape parameter taken from a
  // dynamic result type, only the checks above apply (strata-infer-shapes refines the rest).
  if (dynamicOperand || dynamicParam)
    return success();

  std::string error;
  auto expected = evalRule(*prim, in, params, error);
  if (failed(expected))
    return op->emitOpError() << error;

  if (expected->size() != op->getNumResults())
    return op->emitOpError() << "has " << op->getNumResults() << " results, but the shape rule of '"
                             << name << "' gives " << expected->size();
  // A result may be less precise than the rule (a dynamic dimension), never different.
  for (OpResult result : op->getResults()) {
    RankedTensorType want = toTensorType(op->getContext(), (*expected)[result.getResultNumber()]);
    if (isCompatibleResultType(cast<RankedTensorType>(result.getType()), want))
      continue;
    return op->emitOpError() << "result #" << result.getResultNumber() << " has type "
                             << result.getType() << ", but the shape rule of '" << name
                             << "' gives " << want;
  }
  return success();
}

/// A primitive parameter as the attribute its op declares for it.
static Attribute toAttribute(Builder &b, const ::strata::ParamValue &value) {
  return std::visit(
      [&](const auto &v) -> Attribute {
        using T = std::decay_t<decltype(v)>;
        if constexpr (std::is_same_v<T, bool>)
          return b.getBoolAttr(v);
        else if constexpr (std::is_same_v<T, int64_t>)
          return b.getI64IntegerAttr(v);
        else if constexpr (std::is_same_v<T, double>)
          return b.getF64FloatAttr(v);
        else if constexpr (std::is_same_v<T, std::string>)
          return b.getStringAttr(v);
        else if constexpr (std::is_same_v<T, ::strata::DType>)
          return TypeAttr::get(toElementType(b.getContext(), v));
        else if constexpr (std::is_same_v<T, std::vector<int64_t>>)
          return b.getDenseI64ArrayAttr(v);
        else // sub-functions become regions, built by the staging level, never attributes
          return Attribute();
      },
      value);
}

Operation *buildPrimitiveOp(OpBuilder &builder, Location loc, StringRef primitive,
                            ValueRange operands, TypeRange types, const ::strata::Params &params,
                            std::string &error) {
  OperationState state(loc, ("strata." + primitive).str());
  if (!state.name.isRegistered()) {
    error = ("the strata dialect has no op for primitive '" + primitive + "'").str();
    return nullptr;
  }
  state.addOperands(operands);
  state.addTypes(types);
  ArrayRef<StringAttr> inherent = state.name.getAttributeNames();
  for (const auto &[name, value] : params.items())
    if (llvm::any_of(inherent, [&](StringAttr a) { return a.getValue() == name; }))
      if (Attribute attr = toAttribute(builder, value))
        state.addAttribute(name, attr);
  Operation *op = builder.create(state);
  // Capture the verifier's message instead of printing it.
  std::string message;
  {
    ScopedDiagnosticHandler handler(builder.getContext(), [&](Diagnostic &diag) {
      if (message.empty())
        message = diag.str();
      return success();
    });
    if (succeeded(verify(op, /*verifyRecursively=*/false)))
      return op;
  }
  op->erase();
  error = message.empty() ? "the op does not verify" : message;
  return nullptr;
}

} // namespace mlir::strata
