// The steps every executable's compile shares: running named pass stages with errors that name
// the failing pass, translating to LLVM IR and compiling for the host, the persistent cache
// lookup, and loading object code into an ORC JIT with the runtime's symbols.
#pragma once

#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace llvm {
class MemoryBuffer;
namespace orc {
class LLJIT;
}
} // namespace llvm
namespace mlir {
class ModuleOp;
namespace strata {
struct PipelineStage;
} // namespace strata
} // namespace mlir

namespace strata::rt {

/// The text of each stage a compile went through: "strata" (as staged), the pipeline's stages
/// (for the CPU "optimized", "linalg", "bufferized", "llvm") and "llvm-ir".
using StageTexts = std::vector<std::pair<std::string, std::string>>;

} // namespace strata::rt

namespace strata::rt::detail {

/// glibc's vector math library (libmvec), loaded into the process, or "" when it cannot be
/// loaded. With it, LLVM's loop vectorizer turns a libm call (sin, cos, pow, f64 exp, ...) into
/// one call of its vector variant (`_ZGVeN16v_sinf`) instead of one scalar call per lane: N
/// vectorized sin calls otherwise become 16 N scalar calls, whose register allocation dominated
/// the compile of long elementwise chains, and which ran no faster than the scalar loop.
const std::string &vector_math_library();

/// Runs each stage of `list` (transforms/Pipelines.h) over `module`, recording texts in `stages`;
/// true when it stopped after the stage named `stop_after`. Throws strata::Error naming the
/// stage and the pass.
bool run_stages(mlir::ModuleOp module, const std::vector<mlir::strata::PipelineStage> &list,
                const std::string &name, StageTexts *stages, const std::string &stop_after);

/// LLVM dialect -> LLVM IR (with the packed `strata_entry`, `strata_init`, `strata_fini`) ->
/// host object code; null when
/// `stop_after` is "llvm-ir".
std::unique_ptr<llvm::MemoryBuffer> compile_object(mlir::ModuleOp module, const std::string &name,
                                                   StageTexts *stages,
                                                   const std::string &stop_after);

/// The object code of `module` (consumed) for `target` ("" for the host CPU): from the
/// persistent cache (STRATA_CACHE_DIR, keyed by the staged IR and the target), else through the
/// stages of `list` and compile_object, then cached. Records the "strata" text and each stage's
/// in `stages`; null when it stopped after the stage named `stop_after`.
std::unique_ptr<llvm::MemoryBuffer>
compile_or_load(mlir::ModuleOp module, const std::vector<mlir::strata::PipelineStage> &list,
                const std::string &target, const std::string &name, StageTexts *stages,
                const std::string &stop_after);

/// A JIT holding `object`, resolving the process's symbols, libomp and `runtime_symbols`.
std::unique_ptr<llvm::orc::LLJIT>
load_object(std::unique_ptr<llvm::MemoryBuffer> object,
            const std::vector<std::pair<std::string, void *>> &runtime_symbols);
/// `void strata_entry(void **)` of a loaded object.
void (*lookup_entry(llvm::orc::LLJIT &jit))(void **);
/// `strata_init` / `strata_fini` of a loaded object (compile_object makes them from the module's
/// global constructors and destructors, which ORC does not run for object code).
void (*lookup_void_fn(llvm::orc::LLJIT &jit, const char *name))();

} // namespace strata::rt::detail
