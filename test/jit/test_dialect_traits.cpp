// The strata dialect's op categories (StrataTraits.td) agree with the libstrata primitives'
// Trait bits, so that the IR and the tracer cannot disagree on what is elementwise, fusible or
// a reduction.
#include <gtest/gtest.h>

#include "dialects/strata/StrataOps.h"
#include "strata/primitive.h"

#include "mlir/IR/MLIRContext.h"

#include <string>

namespace {

TEST(DialectTraits, AgreeWithPrimitiveTraitBits) {
  mlir::MLIRContext ctx;
  ctx.loadDialect<mlir::strata::StrataDialect>();
  int checked = 0;
  for (mlir::RegisteredOperationName op : ctx.getRegisteredOperations()) {
    if (op.getDialectNamespace() != "strata" ||
        !op.hasInterface<mlir::strata::PrimitiveOpInterface>())
      continue;
    std::string name = op.getStringRef().drop_front(sizeof("strata.") - 1).str();
    const strata::Primitive *p = strata::find_primitive(name);
    ASSERT_NE(p, nullptr) << op.getStringRef().str() << " applies no registered primitive";
    EXPECT_EQ(op.hasTrait<mlir::strata::traits::Elementwise>(), p->has(strata::kElementwise))
        << name << ": Strata_Elementwise vs kElementwise";
    EXPECT_EQ(op.hasTrait<mlir::strata::traits::Fusible>(), p->has(strata::kFusible))
        << name << ": Strata_Fusible vs kFusible";
    EXPECT_EQ(op.hasTrait<mlir::strata::traits::Reduction>(), p->has(strata::kReduction))
        << name << ": Strata_Reduction vs kReduction";
    // A reduction declares its monoid, and only reductions and scans declare one.
    if (op.hasTrait<mlir::strata::traits::Reduction>())
      EXPECT_TRUE(op.hasTrait<mlir::strata::traits::SumMonoid>() ||
                  op.hasTrait<mlir::strata::traits::ProdMonoid>() ||
                  op.hasTrait<mlir::strata::traits::MaxMonoid>() ||
                  op.hasTrait<mlir::strata::traits::MinMonoid>())
          << name << " declares no monoid";
    ++checked;
  }
  // Every primitive op is covered, not a handful.
  EXPECT_GT(checked, 90);
}

} // namespace
