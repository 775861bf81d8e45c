// Strided batched gemm on cuBLASLt (layouts from the strides, heuristic results cached per
// problem), cublasGemmStridedBatchedEx where Lt has no algorithm, and strata_rt_cuda_gemm.
#include <atomic>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <unordered_map>

#include "runtime/cuda/CudaInternal.h"

namespace strata::cuda {

namespace {

constexpr size_t kWorkspaceBytes = size_t(32) << 20; // what NVIDIA suggests for Hopper

/// A matrix as cuBLAS sees it: stored column-major with leading dimension `ld`, used as is
/// (CUBLAS_OP_N) or transposed (CUBLAS_OP_T).
struct Layout {
  int op = api::CUBLAS_OP_N;
  int64_t ld = 1;
};

/// How a logical r x c matrix with strides (rs, cs) is given to cuBLAS: column-major (rs == 1,
/// ld = cs) or row-major (cs == 1: its transpose is column-major with ld = rs). A stride of an
/// extent 1 is free. `prefer_t` tries row-major first.
std::optional<Layout> unit_layout(int64_t r, int64_t c, int64_t rs, int64_t cs, bool prefer_t) {
  if (r == 0 || c == 0)
    return Layout{api::CUBLAS_OP_N, std::max<int64_t>(1, r)};
  auto as_n = [&]() -> std::optional<Layout> {
    if (rs != 1 && r != 1)
      return std::nullopt;
    int64_t ld = c == 1 ? r : cs;
    if (ld < r)
      return std::nullopt;
    return Layout{api::CUBLAS_OP_N, ld};
  };
  auto as_t = [&]() -> std::optional<Layout> {
    if (cs != 1 && c != 1)
      return std::nullopt;
    int64_t ld = r == 1 ? c : rs;
    if (ld < c)
      return std::nullopt;
    return Layout{api::CUBLAS_OP_T, ld};
  };
  if (prefer_t)
    if (auto l = as_t())
      return l;
  if (auto l = as_n())
    return l;
  return as_t();
}

size_t ab_size(GemmType t) {
  switch (t) {
  case GemmType::F32:
    return 4;
  case GemmType::F64:
    return 8;
  default:
    return 2;
  }
}
size_t c_size(GemmType t) { return t == GemmType::F64 ? 8 : 4; }
int ab_cuda_type(GemmType t) {
  switch (t) {
  case GemmType::F32:
    return api::CUDA_R_32F;
  case GemmType::F64:
    return api::CUDA_R_64F;
  case GemmType::F16:
    return api::CUDA_R_16F;
  default:
    return api::CUDA_R_16BF;
  }
}
int c_cuda_type(GemmType t) { return t == GemmType::F64 ? api::CUDA_R_64F : api::CUDA_R_32F; }
const char *type_name(GemmType t) {
  switch (t) {
  case GemmType::F32:
    return "f32";
  case GemmType::F64:
    return "f64";
  case GemmType::F16:
    return "f16 (f32 C)";
  default:
    return "bf16 (f32 C)";
  }
}

bool has_bias(Epilogue e) {
  return e == Epilogue::Bias || e == Epilogue::BiasRelu || e == Epilogue::BiasGelu;
}
int lt_epilogue(Epilogue e) {
  switch (e) {
  case Epilogue::None:
    return api::CUBLASLT_EPILOGUE_DEFAULT;
  case Epilogue::Relu:
    return api::CUBLASLT_EPILOGUE_RELU;
  case Epilogue::Gelu:
    return api::CUBLASLT_EPILOGUE_GELU;
  case Epilogue::Bias:
    return api::CUBLASLT_EPILOGUE_BIAS;
  case Epilogue::BiasRelu:
    return api::CUBLASLT_EPILOGUE_RELU_BIAS;
  default:
    return api::CUBLASLT_EPILOGUE_GELU_BIAS;
  }
}

/// The largest power of two (at most 256) that divides the address: what Lt's heuristic needs.
uint32_t alignment(const void *p) {
  auto v = reinterpret_cast<uintptr_t>(p);
  uint32_t a = 256;
  while (a > 1 && v % a != 0)
    a /= 2;
  return a;
}

std::atomic<int> g_allow_tf32{-1}; // -1: not yet read from STRATA_ALLOW_TF32

/// The column-major problem cuBLAS runs: D (M x N) = op(P) (M x K) x op(Q) (K x N), per batch.
struct Problem {
  GemmType type;
  bool tf32;
  Epilogue epilogue;
  int64_t batch, M, N, K;
  Layout p, q, d;
  const void *p_ptr, *q_ptr;
  void *d_ptr;
  int64_t p_bs, q_bs, d_bs;

  std::string key() const {
    return detail::cat(static_cast<int>(type), tf32, static_cast<int>(epilogue), ":", batch, ",", M,
                       ",", N, ",", K, ":", p.op, p.ld, ",", q.op, q.ld, ",", d.ld, ":", p_bs, ",",
                       q_bs, ",", d_bs, ":", alignment(p_ptr), ",", alignment(q_ptr), ",",
                       alignment(d_ptr));
  }
};

/// Lt's descriptors and chosen algorithm for one problem shape (or the finding that it has none).
struct LtPlan {
  bool usable = false;
  api::cublasLtMatmulDesc_t desc = nullptr;
  api::cublasLtMatrixLayout_t p = nullptr, q = nullptr, d = nullptr;
  api::cublasLtMatmulAlgo_t algo{};
  size_t workspace = 0;
};

} // namespace

/// cuBLAS state of one device: handles, workspace, Lt plans. Created on the first gemm.
struct BlasState {
  api::cublasLtHandle_t lt = nullptr;
  api::cublasHandle_t cublas = nullptr; ///< created when Lt first has no algorithm
  void *workspace = nullptr;
  std::unordered_map<std::string, LtPlan> plans;
};

namespace {

void blas_check(api::cublasStatus_t s, const char *call, int device, const std::string &what) {
  if (s != api::CUBLAS_STATUS_SUCCESS)
    throw Error(detail::cat("[cuda_gemm] ", call, " on cuda:", device,
                            " failed: ", api::blas_status_text(s), what),
                ErrorKind::Internal);
}

BlasState &blas_state(DeviceState &s, const api::Blas &b) {
  if (s.blas)
    return *s.blas;
  auto st = std::make_unique<BlasState>();
  blas_check(b.cublasLtCreate(&st->lt), "cublasLtCreate", s.index, "");
  st->workspace = s.allocator.allocate(kWorkspaceBytes);
  s.blas = st.release(); // never freed: see DeviceState
  return *s.blas;
}

/// Builds Lt's descriptors for `pr` and asks its heuristic for an algorithm.
LtPlan make_plan(const api::Blas &b, BlasState &st, const Problem &pr, int device) {
  LtPlan plan;
  std::string what = " for " + pr.key();
  bool f64 = pr.type == GemmType::F64;
  int compute = f64 ? api::CUBLAS_COMPUTE_64F
                    : (pr.tf32 ? api::CUBLAS_COMPUTE_32F_FAST_TF32 : api::CUBLAS_COMPUTE_32F);
  int scale = f64 ? api::CUDA_R_64F : api::CUDA_R_32F;
  blas_check(b.cublasLtMatmulDescCreate(&plan.desc, compute, scale), "cublasLtMatmulDescCreate",
             device, what);
  int32_t op_p = pr.p.op, op_q = pr.q.op;
  uint32_t epilogue = static_cast<uint32_t>(lt_epilogue(pr.epilogue));
  blas_check(b.cublasLtMatmulDescSetAttribute(plan.desc, api::CUBLASLT_MATMUL_DESC_TRANSA, &op_p,
                                              sizeof op_p),
             "cublasLtMatmulDescSetAttribute", device, what);
  blas_check(b.cublasLtMatmulDescSetAttribute(plan.desc, api::CUBLASLT_MATMUL_DESC_TRANSB, &op_q,
                                              sizeof op_q),
             "cublasLtMatmulDescSetAttribute", device, what);
  blas_check(b.cublasLtMatmulDescSetAttribute(plan.desc, api::CUBLASLT_MATMUL_DESC_EPILOGUE,
                                              &epilogue, sizeof epilogue),
             "cublasLtMatmulDescSetAttribute", device, what);
  if (has_bias(pr.epilogue)) {
    int64_t bias_stride = 0; // one bias vector for every batch entry
    blas_check(b.cublasLtMatmulDescSetAttribute(plan.desc,
                                                api::CUBLASLT_MATMUL_DESC_BIAS_BATCH_STRIDE,
                                                &bias_stride, sizeof bias_stride),
               "cublasLtMatmulDescSetAttribute", device, what);
  }
  auto layout = [&](api::cublasLtMatrixLayout_t &out, int type, uint64_t rows, uint64_t cols,
                    int64_t ld, int64_t batch_stride) {
    blas_check(b.cublasLtMatrixLayoutCreate(&out, type, rows, cols, ld),
               "cublasLtMatrixLayoutCreate", device, what);
    if (pr.batch > 1) {
      int32_t count = static_cast<int32_t>(pr.batch);
      blas_check(b.cublasLtMatrixLayoutSetAttribute(out, api::CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT,
                                                    &count, sizeof count),
                 "cublasLtMatrixLayoutSetAttribute", device, what);
      blas_check(
          b.cublasLtMatrixLayoutSetAttribute(out, api::CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET,
                                             &batch_stride, sizeof batch_stride),
          "cublasLtMatrixLayoutSetAttribute", device, what);
    }
  };
  // The stored matrices: op N stores M x K (P) / K x N (Q); op T stores the transpose.
  bool pn = pr.p.op == api::CUBLAS_OP_N, qn = pr.q.op == api::CUBLAS_OP_N;
  layout(plan.p, ab_cuda_type(pr.type), pn ? pr.M : pr.K, pn ? pr.K : pr.M, pr.p.ld, pr.p_bs);
  layout(plan.q, ab_cuda_type(pr.type), qn ? pr.K : pr.N, qn ? pr.N : pr.K, pr.q.ld, pr.q_bs);
  layout(plan.d, c_cuda_type(pr.type), pr.M, pr.N, pr.d.ld, pr.d_bs);

  api::cublasLtMatmulPreference_t pref = nullptr;
  blas_check(b.cublasLtMatmulPreferenceCreate(&pref), "cublasLtMatmulPreferenceCreate", device,
             what);
  uint64_t ws = kWorkspaceBytes;
  uint32_t align_p = alignment(pr.p_ptr), align_q = alignment(pr.q_ptr),
           align_d = alignment(pr.d_ptr);
  b.cublasLtMatmulPreferenceSetAttribute(pref, api::CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &ws,
                                         sizeof ws);
  b.cublasLtMatmulPreferenceSetAttribute(pref, api::CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_A_BYTES,
                                         &align_p, sizeof align_p);
  b.cublasLtMatmulPreferenceSetAttribute(pref, api::CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_B_BYTES,
                                         &align_q, sizeof align_q);
  b.cublasLtMatmulPreferenceSetAttribute(pref, api::CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_C_BYTES,
                                         &align_d, sizeof align_d);
  b.cublasLtMatmulPreferenceSetAttribute(pref, api::CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_D_BYTES,
                                         &align_d, sizeof align_d);
  api::cublasLtMatmulHeuristicResult_t result{};
  int found = 0;
  api::cublasStatus_t s = b.cublasLtMatmulAlgoGetHeuristic(st.lt, plan.desc, plan.p, plan.q, plan.d,
                                                           plan.d, pref, 1, &result, &found);
  b.cublasLtMatmulPreferenceDestroy(pref);
  if (s == api::CUBLAS_STATUS_SUCCESS && found > 0 && result.state == api::CUBLAS_STATUS_SUCCESS) {
    plan.usable = true;
    plan.algo = result.algo;
    plan.workspace = result.workspaceSize;
  } else if (s != api::CUBLAS_STATUS_SUCCESS && s != api::CUBLAS_STATUS_NOT_SUPPORTED) {
    blas_check(s, "cublasLtMatmulAlgoGetHeuristic", device, what);
  }
  return plan;
}

void run_cublas(const api::Blas &b, DeviceState &s, BlasState &st, const Problem &pr,
                const void *alpha, const void *beta) {
  std::string what = " for " + pr.key();
  if (!st.cublas) {
    blas_check(b.cublasCreate_v2(&st.cublas), "cublasCreate_v2", s.index, "");
    blas_check(b.cublasSetWorkspace_v2(st.cublas, st.workspace, kWorkspaceBytes),
               "cublasSetWorkspace_v2", s.index, "");
  }
  blas_check(b.cublasSetStream_v2(st.cublas, s.stream), "cublasSetStream_v2", s.index, "");
  bool f64 = pr.type == GemmType::F64;
  int compute = f64 ? api::CUBLAS_COMPUTE_64F
                    : (pr.tf32 ? api::CUBLAS_COMPUTE_32F_FAST_TF32 : api::CUBLAS_COMPUTE_32F);
  blas_check(b.cublasGemmStridedBatchedEx_64(st.cublas, pr.p.op, pr.q.op, pr.M, pr.N, pr.K, alpha,
                                             pr.p_ptr, ab_cuda_type(pr.type), pr.p.ld, pr.p_bs,
                                             pr.q_ptr, ab_cuda_type(pr.type), pr.q.ld, pr.q_bs,
                                             beta, pr.d_ptr, c_cuda_type(pr.type), pr.d.ld, pr.d_bs,
                                             pr.batch, compute, api::CUBLAS_GEMM_DEFAULT),
             "cublasGemmStridedBatchedEx_64", s.index, what);
}

std::string operand_text(const char *name, int64_t r, int64_t c, const MatrixRef &x) {
  return detail::cat(name, " (", r, " x ", c, ") has strides (row ", x.row_stride, ", col ",
                     x.col_stride, ")");
}

} // namespace

void set_allow_tf32(bool allow) { g_allow_tf32.store(allow ? 1 : 0); }

bool allow_tf32() {
  int v = g_allow_tf32.load();
  if (v < 0) {
    const char *env = std::getenv("STRATA_ALLOW_TF32");
    v = env && std::strcmp(env, "1") == 0 ? 1 : 0;
    int expected = -1;
    g_allow_tf32.compare_exchange_strong(expected, v);
    v = g_allow_tf32.load();
  }
  return v == 1;
}

bool blas_available() { return api::blas() != nullptr; }
std::string blas_unavailable_reason() { return api::blas() ? "" : api::blas_error(); }
size_t blas_version() { return api::blas() ? api::blas()->cublasLtGetVersion() : 0; }

void gemm(int index, const GemmArgs &g) {
  int64_t t = static_cast<int64_t>(g.type);
  if (t < 0 || t > 3)
    fail("cuda_gemm", "type ", t, " is not 0 (f32), 1 (f64), 2 (f16) or 3 (bf16)");
  if (g.batch < 0 || g.m < 0 || g.n < 0 || g.k < 0)
    fail("cuda_gemm", "negative extent: batch ", g.batch, ", m ", g.m, ", n ", g.n, ", k ", g.k);
  if (g.batch == 0 || g.m == 0 || g.n == 0)
    return;
  bool bias = has_bias(g.epilogue);
  if (bias && !g.bias)
    fail("cuda_gemm", "the bias epilogue needs a bias vector");
  if (g.epilogue != Epilogue::None && g.type == GemmType::F64)
    fail("cuda_gemm", "cuBLASLt has no epilogues for f64");

  // C decides the orientation: column-major C is D itself; row-major C is D's transpose, so
  // D = C^T = B^T A^T.
  auto cl = unit_layout(g.m, g.n, g.c.row_stride, g.c.col_stride, bias);
  if (!cl)
    fail("cuda_gemm", operand_text("C", g.m, g.n, g.c),
         ": cuBLAS needs one unit stride (a row- or column-major matrix whose leading dimension is "
         "at least its other extent)");
  if (bias && cl->op != api::CUBLAS_OP_T)
    fail("cuda_gemm", "a bias epilogue needs a row-major C (column stride 1): ",
         operand_text("C", g.m, g.n, g.c));
  bool transposed = cl->op == api::CUBLAS_OP_T;
  const MatrixRef &p = transposed ? g.b : g.a;
  const MatrixRef &q = transposed ? g.a : g.b;
  Problem pr{};
  pr.type = g.type;
  pr.tf32 = g.type == GemmType::F32 && allow_tf32();
  pr.epilogue = g.epilogue;
  pr.batch = g.batch;
  pr.M = transposed ? g.n : g.m;
  pr.N = transposed ? g.m : g.n;
  pr.K = g.k;
  pr.d = Layout{api::CUBLAS_OP_N, cl->ld};
  // Transposing a matrix swaps its strides.
  int64_t p_rs = transposed ? p.col_stride : p.row_stride;
  int64_t p_cs = transposed ? p.row_stride : p.col_stride;
  int64_t q_rs = transposed ? q.col_stride : q.row_stride;
  int64_t q_cs = transposed ? q.row_stride : q.col_stride;
  auto pl = unit_layout(pr.M, pr.K, p_rs, p_cs, false);
  auto ql = unit_layout(pr.K, pr.N, q_rs, q_cs, false);
  const char *unit = ": cuBLAS needs one unit stride (a row- or column-major matrix whose leading "
                     "dimension is at least its other extent)";
  if (!(transposed ? ql : pl))
    fail("cuda_gemm", operand_text("A", g.m, g.k, g.a), unit);
  if (!(transposed ? pl : ql))
    fail("cuda_gemm", operand_text("B", g.k, g.n, g.b), unit);
  pr.p = *pl;
  pr.q = *ql;
  if (g.batch > 1) {
    if (g.a.batch_stride < 0 || g.b.batch_stride < 0 || g.c.batch_stride <= 0)
      fail("cuda_gemm", "batch strides A ", g.a.batch_stride, ", B ", g.b.batch_stride, ", C ",
           g.c.batch_stride, ": A and B need >= 0 and C > 0 (each C entry is written)");
  }
  pr.p_bs = g.batch > 1 ? p.batch_stride : 0;
  pr.q_bs = g.batch > 1 ? q.batch_stride : 0;
  pr.d_bs = g.batch > 1 ? g.c.batch_stride : 0;
  if (!g.a.ptr || !g.b.ptr || !g.c.ptr)
    fail("cuda_gemm", "null operand address (A ", g.a.ptr, ", B ", g.b.ptr, ", C ", g.c.ptr, ")");
  auto at = [](const void *base, int64_t off, size_t size) {
    return static_cast<const char *>(base) + off * static_cast<int64_t>(size);
  };
  pr.p_ptr = at(p.ptr, p.offset, ab_size(g.type));
  pr.q_ptr = at(q.ptr, q.offset, ab_size(g.type));
  pr.d_ptr = const_cast<char *>(at(g.c.ptr, g.c.offset, c_size(g.type)));

  const api::Blas *b = api::blas();
  if (!b)
    fail("cuda_gemm", "cuBLAS is not available: ", api::blas_error());
  DeviceState &s = enter(index);
  std::lock_guard<std::mutex> lock(s.blas_mu);
  BlasState &st = blas_state(s, *b);
  float alpha32 = 1.0f, beta32 = g.accumulate ? 1.0f : 0.0f;
  double alpha64 = 1.0, beta64 = g.accumulate ? 1.0 : 0.0;
  const void *alpha = g.type == GemmType::F64 ? static_cast<const void *>(&alpha64) : &alpha32;
  const void *beta = g.type == GemmType::F64 ? static_cast<const void *>(&beta64) : &beta32;

  // Lt takes no empty inner dimension; cuBLAS then scales C by beta.
  if (pr.K > 0) {
    std::string key = pr.key();
    auto it = st.plans.find(key);
    if (it == st.plans.end())
      it = st.plans.emplace(key, make_plan(*b, st, pr, index)).first;
    LtPlan &plan = it->second;
    if (plan.usable) {
      if (bias)
        blas_check(b->cublasLtMatmulDescSetAttribute(
                       plan.desc, api::CUBLASLT_MATMUL_DESC_BIAS_POINTER, &g.bias, sizeof g.bias),
                   "cublasLtMatmulDescSetAttribute", index, "");
      blas_check(b->cublasLtMatmul(st.lt, plan.desc, alpha, pr.p_ptr, plan.p, pr.q_ptr, plan.q,
                                   beta, pr.d_ptr, plan.d, pr.d_ptr, plan.d, &plan.algo,
                                   st.workspace, kWorkspaceBytes, s.stream),
                 "cublasLtMatmul", index, " for " + key);
      return;
    }
  }
  if (g.epilogue != Epilogue::None)
    fail("cuda_gemm", "cuBLASLt has no algorithm for this ", type_name(g.type),
         " gemm with an epilogue (", pr.key(), ")");
  run_cublas(*b, s, st, pr, alpha, beta);
}

} // namespace strata::cuda

extern "C" void strata_rt_cuda_gemm(int64_t type, int64_t batch, int64_t m, int64_t n, int64_t k,
                                    int64_t a, int64_t a_off, int64_t a_bs, int64_t a_rs,
                                    int64_t a_cs, int64_t b, int64_t b_off, int64_t b_bs,
                                    int64_t b_rs, int64_t b_cs, int64_t c, int64_t c_off,
                                    int64_t c_bs, int64_t c_rs, int64_t c_cs, int64_t accumulate) {
  using namespace strata::cuda;
  if (has_pending_error())
    return;
  try {
    GemmArgs g;
    g.type = static_cast<GemmType>(type);
    g.batch = batch;
    g.m = m;
    g.n = n;
    g.k = k;
    auto ref = [](int64_t p, int64_t off, int64_t bs, int64_t rs, int64_t cs) {
      return MatrixRef{reinterpret_cast<const void *>(p), off, bs, rs, cs};
    };
    g.a = ref(a, a_off, a_bs, a_rs, a_cs);
    g.b = ref(b, b_off, b_bs, b_rs, b_cs);
    g.c = ref(c, c_off, c_bs, c_rs, c_cs);
    g.accumulate = accumulate != 0;
    gemm(current_device(), g);
  } catch (const strata::Error &e) {
    record_error(e.what(), e.kind());
  } catch (const std::exception &e) {
    record_error(std::string("[cuda_gemm] ") + e.what());
  }
}
