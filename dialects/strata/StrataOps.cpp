// Generated op definitions and interface methods of the strata dialect.
#include "dialects/strata/StrataOps.h"

#include "mlir/IR/OpImplementation.h"

using namespace mlir;
using namespace mlir::strata;

#include "dialects/strata/StrataInterfaces.cpp.inc"

#define GET_OP_CLASSES
#include "dialects/strata/StrataOps.cpp.inc"

//===----------------------------------------------------------------------------------===//
// FusionOp
//===----------------------------------------------------------------------------------===//

// strata.fusion (%a = %x, %b = %y) attr-dict : (T0, T1) -> R { body }
ParseResult FusionOp::parse(OpAsmParser &parser, OperationState &result) {
  SmallVector<OpAsmParser::Argument> args;
  SmallVector<OpAsmParser::UnresolvedOperand> operands;
  if (parser.parseLParen())
    return failure();
  if (failed(parser.parseOptionalRParen())) {
    do {
      OpAsmParser::Argument arg;
      OpAsmParser::UnresolvedOperand operand;
      if (parser.parseArgument(arg) || parser.parseEqual() || parser.parseOperand(operand))
        return failure();
      args.push_back(arg);
      operands.push_back(operand);
    } while (succeeded(parser.parseOptionalComma()));
    if (parser.parseRParen())
      return failure();
  }
  if (parser.parseOptionalAttrDict(result.attributes) || parser.parseColon())
    return failure();
  SMLoc typeLoc = parser.getCurrentLocation();
  FunctionType type;
  if (parser.parseType(type))
    return failure();
  if (type.getNumInputs() != operands.size())
    return parser.emitError(typeLoc)
           << "expected " << operands.size() << " input types, got " << type.getNumInputs();
  for (auto [arg, t] : llvm::zip(args, type.getInputs()))
    arg.type = t;
  if (parser.resolveOperands(operands, type.getInputs(), typeLoc, result.operands))
    return failure();
  result.addTypes(type.getResults());
  return parser.parseRegion(*result.addRegion(), args, /*enableNameShadowing=*/false);
}

void FusionOp::print(OpAsmPrinter &p) {
  p << " (";
  Region &region = getRegion();
  if (!region.empty() && region.front().getNumArguments() == getInputs().size()) {
    llvm::interleaveComma(llvm::zip(region.front().getArguments(), getInputs()), p,
                          [&](auto pair) { p << std::get<0>(pair) << " = " << std::get<1>(pair); });
  } else {
    p << getInputs();
  }
  p << ")";
  p.printOptionalAttrDict((*this)->getAttrs());
  p << " : ";
  p.printFunctionalType(getInputs().getTypes(), getResultTypes());
  p << ' ';
  p.printRegion(region, /*printEntryBlockArgs=*/false, /*printBlockTerminators=*/true);
}

LogicalResult FusionOp::verify() {
  Block &block = getBlock();
  if (block.getNumArguments() != getInputs().size())
    return emitOpError() << "has " << getInputs().size() << " operands but its block has "
                         << block.getNumArguments() << " arguments";
  for (auto [i, arg, input] : llvm::enumerate(block.getArguments(), getInputs()))
    if (arg.getType() != input.getType())
      return emitOpError() << "block argument #" << i << " has type " << arg.getType()
                           << ", but operand #" << i << " has type " << input.getType();
  auto yield = dyn_cast_or_null<YieldOp>(block.empty() ? nullptr : &block.back());
  if (!yield)
    return emitOpError() << "expects its block to end with strata.yield";
  if (yield.getValues().size() != getNumResults())
    return emitOpError() << "yields " << yield.getValues().size() << " values but has "
                         << getNumResults() << " results";
  for (auto [i, value, result] : llvm::enumerate(yield.getValues(), getResults()))
    if (value.getType() != result.getType())
      return emitOpError() << "yielded value #" << i << " has type " << value.getType()
                           << ", but result #" << i << " has type " << result.getType();
  return success();
}

//===----------------------------------------------------------------------------------===//
// Control flow: CondOp, WhileOp, ScanOp
//===----------------------------------------------------------------------------------===//

namespace {

/// The region's one block ends with a strata.yield of exactly `types`; `what` names the region
/// ("branch #1", "body") and `valueName` what the yield's operands stand for.
LogicalResult verifyYield(Operation *op, Region &region, StringRef what, TypeRange types,
                          StringRef valueName) {
  Block &block = region.front();
  auto yield = dyn_cast_or_null<YieldOp>(block.empty() ? nullptr : &block.back());
  if (!yield)
    return op->emitOpError() << what << " must end with strata.yield";
  if (yield.getValues().size() != types.size())
    return op->emitOpError() << what << " yields " << yield.getValues().size()
                             << " values but expects " << types.size();
  for (auto [i, value, type] : llvm::enumerate(yield.getValues(), types))
    if (value.getType() != type)
      return op->emitOpError() << what << " yields " << value.getType() << " for " << valueName
                               << " #" << i << ", which has type " << type;
  return success();
}

/// The region's block arguments have exactly `types`.
LogicalResult verifyArguments(Operation *op, Region &region, StringRef what, TypeRange types,
                              StringRef valueName) {
  Block &block = region.front();
  if (block.getNumArguments() != types.size())
    return op->emitOpError() << what << " has " << block.getNumArguments()
                             << " block arguments but expects " << types.size() << " (" << valueName
                             << "s)";
  for (auto [i, arg, type] : llvm::enumerate(block.getArguments(), types))
    if (arg.getType() != type)
      return op->emitOpError() << what << " block argument #" << i << " has type " << arg.getType()
                               << ", but " << valueName << " #" << i << " has type " << type;
  return success();
}

bool isScalarOf(Type t, function_ref<bool(Type)> element) {
  auto tensor = dyn_cast<RankedTensorType>(t);
  return tensor && tensor.getRank() == 0 && element(tensor.getElementType());
}

} // namespace

LogicalResult CondOp::verify() {
  if (!isScalarOf(getIndex().getType(), [](Type e) { return e.isSignlessInteger(32); }))
    return emitOpError() << "index must be a rank-0 i32 tensor, got " << getIndex().getType();
  if (getBranches().empty())
    return emitOpError() << "needs at least one branch";
  for (auto [k, branch] : llvm::enumerate(getBranches())) {
    std::string what = "branch #" + std::to_string(k);
    if (failed(verifyArguments(*this, branch, what, {}, "argument")) ||
        failed(verifyYield(*this, branch, what, getResultTypes(), "result")))
      return failure();
  }
  return success();
}

LogicalResult WhileOp::verify() {
  TypeRange carries = getInits().getTypes();
  if (!llvm::equal(getResultTypes(), carries)) {
    if (getNumResults() != carries.size())
      return emitOpError() << "has " << carries.size() << " carries but " << getNumResults()
                           << " results";
    for (auto [i, init, result] : llvm::enumerate(carries, getResultTypes()))
      if (init != result)
        return emitOpError() << "carry #" << i << " has type " << init << ", but result #" << i
                             << " has type " << result;
  }
  if (failed(verifyArguments(*this, getCond(), "cond", carries, "carry")) ||
      failed(verifyArguments(*this, getBody(), "body", carries, "carry")))
    return failure();
  Block &cond = getCond().front();
  auto yield = dyn_cast_or_null<YieldOp>(cond.empty() ? nullptr : &cond.back());
  if (!yield)
    return emitOpError() << "cond must end with strata.yield";
  if (yield.getValues().size() != 1 ||
      !isScalarOf(yield.getValues()[0].getType(), [](Type e) { return e.isSignlessInteger(1); }))
    return emitOpError() << "cond must yield one rank-0 i1 tensor, got ("
                         << yield.getValues().getTypes() << ")";
  return verifyYield(*this, getBody(), "body", carries, "carry");
}

LogicalResult ScanOp::verify() {
  int64_t length = getLength();
  if (length < 0)
    return emitOpError() << "length must be non-negative, got " << length;
  TypeRange carries = getInits().getTypes();
  SmallVector<Type> args(carries.begin(), carries.end());
  for (auto [j, x] : llvm::enumerate(getXs())) {
    auto type = cast<RankedTensorType>(x.getType());
    if (type.getRank() == 0 || type.getDimSize(0) != length)
      return emitOpError() << "xs #" << j << " has type " << type
                           << ", but needs a leading axis of length " << length;
    args.push_back(RankedTensorType::get(type.getShape().drop_front(), type.getElementType()));
  }
  if (getNumResults() < carries.size())
    return emitOpError() << "has " << carries.size() << " carries but " << getNumResults()
                         << " results";
  for (auto [i, init, result] : llvm::enumerate(carries, getCarryResults().getTypes()))
    if (init != result)
      return emitOpError() << "carry #" << i << " has type " << init << ", but result #" << i
                           << " has type " << result;
  if (failed(verifyArguments(*this, getBody(), "body", args, "carry or xs slice")))
    return failure();
  // The body yields the carries, then one slice of each stacked result.
  SmallVector<Type> yields(carries.begin(), carries.end());
  for (auto [j, y] : llvm::enumerate(getYsResults().getTypes())) {
    auto type = cast<RankedTensorType>(y);
    if (type.getRank() == 0 || type.getDimSize(0) != length)
      return emitOpError() << "ys result #" << j << " has type " << type
                           << ", but needs a leading axis of length " << length;
    yields.push_back(RankedTensorType::get(type.getShape().drop_front(), type.getElementType()));
  }
  return verifyYield(*this, getBody(), "body", yields, "carry or ys slice");
}
