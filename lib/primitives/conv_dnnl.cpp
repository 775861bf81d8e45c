// conv_general_dilated in f32 through oneDNN (Debian's libdnnl): the forward convolution,
// oneDNN's weight gradient when the window is larger than the output (the form of a
// convolution's rhs transpose), or its data gradient for lhs dilation (the form of a strided
// convolution's lhs transpose), in oneDNN's blocked layouts behind cached reorders.
#include <dlfcn.h>

#include <dnnl.hpp>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <sstream>
#include <string>
#include <unordered_map>

#include "primitives/conv_kernels.h"
#include "strata/internal/thread_pool.h"

namespace strata {
namespace {

using dims = dnnl::memory::dims;
using dnnl::memory;

/// A built oneDNN convolution: the primitive, the layouts it wants and the reorders from and to
/// the operands' own strided layouts (null where the layouts already agree).
struct DnnlConv {
  dnnl::primitive conv;
  int arg_a = 0, arg_b = 0, arg_c = 0; // oneDNN argument of the two inputs and the output
  bool bias = false;                   // a forward convolution with a bias argument
  memory::desc user_a, user_b, user_c, inner_a, inner_b, inner_c;
  std::unique_ptr<dnnl::reorder> to_a, to_b, from_c;
};

dnnl::engine &engine() {
  static dnnl::engine e(dnnl::engine::kind::cpu, 0);
  return e;
}

/// oneDNN's OpenMP team takes Strata's thread count (STRATA_NUM_THREADS), as every other parallel
/// kernel does; the setting belongs to the calling thread, so it is made before each call. The
/// function is looked up in the GNU OpenMP runtime that libdnnl loads: jit-compiled code may
/// bring LLVM's libomp into the process too, whose omp_set_num_threads oneDNN never reads.
void use_strata_threads() {
  using SetFn = void (*)(int);
  static SetFn set = [] {
    void *gomp = dlopen("libgomp.so.1", RTLD_LAZY | RTLD_NOLOAD);
    return gomp ? reinterpret_cast<SetFn>(dlsym(gomp, "omp_set_num_threads")) : nullptr;
  }();
  if (set)
    set(num_threads());
}

memory::desc strided(const dims &d, const dims &s) {
  return memory::desc(d, memory::data_type::f32, s);
}
memory::desc any_layout(const dims &d) {
  return memory::desc(d, memory::data_type::f32, memory::format_tag::any);
}

memory::format_tag contiguous_tag(size_t rank) {
  return rank == 3   ? memory::format_tag::abc
         : rank == 4 ? memory::format_tag::abcd
                     : memory::format_tag::abcde;
}

dims cat(std::initializer_list<int64_t> head, const std::vector<int64_t> &tail) {
  dims d(head);
  d.insert(d.end(), tail.begin(), tail.end());
  return d;
}

std::unique_ptr<dnnl::reorder> reorder_if(const memory::desc &from, const memory::desc &to) {
  if (from == to)
    return nullptr;
  return std::make_unique<dnnl::reorder>(
      dnnl::reorder::primitive_desc(engine(), from, engine(), to));
}

int64_t product(const std::vector<int64_t> &v) {
  int64_t n = 1;
  for (int64_t x : v)
    n *= x;
  return n;
}

/// The right padding that makes oneDNN's size equation exact for an output of `out` positions.
std::vector<int64_t> exact_pad_hi(const std::vector<int64_t> &in, const std::vector<int64_t> &win,
                                  const std::vector<int64_t> &out,
                                  const std::vector<int64_t> &stride,
                                  const std::vector<int64_t> &dil, const std::vector<int64_t> &lo) {
  std::vector<int64_t> hi(in.size());
  for (size_t i = 0; i < in.size(); ++i)
    hi[i] = (out[i] - 1) * stride[i] + (win[i] - 1) * dil[i] + 1 - in[i] - lo[i];
  return hi;
}

std::vector<int64_t> minus_one(std::vector<int64_t> v) {
  for (int64_t &x : v)
    --x;
  return v;
}

/// oneDNN's eltwise algorithm and its alpha and beta for an epilogue's activation.
struct Eltwise {
  dnnl::algorithm alg;
  float alpha = 0, beta = 0;
};
std::optional<Eltwise> eltwise_of(const ConvEpilogue &e) {
  using Act = ConvEpilogue::Act;
  using dnnl::algorithm;
  float a = static_cast<float>(e.alpha), b = static_cast<float>(e.beta);
  switch (e.act) {
  case Act::None:
    return std::nullopt;
  case Act::Relu:
    return Eltwise{algorithm::eltwise_relu, 0.f, 0.f};
  case Act::LeakyRelu:
    return Eltwise{algorithm::eltwise_relu, a, 0.f};
  case Act::Clamp:
    return Eltwise{algorithm::eltwise_clip, a, b};
  case Act::Tanh:
    return Eltwise{algorithm::eltwise_tanh, 0.f, 0.f};
  case Act::Logistic:
    return Eltwise{algorithm::eltwise_logistic, 0.f, 0.f};
  case Act::Silu:
    return Eltwise{algorithm::eltwise_swish, 1.f, 0.f};
  case Act::GeluTanh:
    return Eltwise{algorithm::eltwise_gelu_tanh, 0.f, 0.f};
  }
  return std::nullopt;
}

/// out = epilogue(conv(lhs, rhs)) as oneDNN's forward convolution (groups are oneDNN's groups),
/// the epilogue's bias as its bias argument and its activation as an eltwise post-op.
std::unique_ptr<DnnlConv> build_forward(const ConvProblem &p, const ConvEpilogue &epilogue) {
  auto c = std::make_unique<DnnlConv>();
  int64_t g = p.feature_groups, og = p.out_features / g;
  dims src = cat({p.batch, p.in_features}, p.in_size);
  dims dst = cat({p.out_batch, p.out_features}, p.out_size);
  dims wei = g > 1 ? cat({g, og, p.in_features / g}, p.kernel_size)
                   : cat({p.out_features, p.in_features}, p.kernel_size);
  dims wei_s =
      g > 1 ? cat({p.rhs_o * og, p.rhs_o, p.rhs_i}, p.rhs_s) : cat({p.rhs_o, p.rhs_i}, p.rhs_s);
  c->user_a = strided(src, cat({p.lhs_b, p.lhs_f}, p.lhs_s));
  c->user_b = strided(wei, wei_s);
  c->user_c = strided(dst, cat({p.out_b, p.out_f}, p.out_s));
  std::vector<int64_t> hi =
      exact_pad_hi(p.in_size, p.kernel_size, p.out_size, p.strides, p.rhs_dilation, p.pad_lo);
  c->bias = epilogue.bias != nullptr;
  auto kind = dnnl::prop_kind::forward_inference;
  auto alg = dnnl::algorithm::convolution_direct;
  dims dil = minus_one(p.rhs_dilation);
  auto d = c->bias
               ? dnnl::convolution_forward::desc(
                     kind, alg, any_layout(src), any_layout(wei),
                     memory::desc({p.out_features}, memory::data_type::f32, memory::format_tag::a),
                     any_layout(dst), p.strides, dil, p.pad_lo, hi)
               : dnnl::convolution_forward::desc(kind, alg, any_layout(src), any_layout(wei),
                                                 any_layout(dst), p.strides, dil, p.pad_lo, hi);
  dnnl::primitive_attr attr;
  if (std::optional<Eltwise> e = eltwise_of(epilogue)) {
    dnnl::post_ops ops;
    ops.append_eltwise(1.f, e->alg, e->alpha, e->beta);
    attr.set_post_ops(ops);
  }
  dnnl::convolution_forward::primitive_desc pd(d, attr, engine());
  c->inner_a = pd.src_desc();
  c->inner_b = pd.weights_desc();
  c->inner_c = pd.dst_desc();
  c->conv = dnnl::convolution_forward(pd);
  c->arg_a = DNNL_ARG_SRC;
  c->arg_b = DNNL_ARG_WEIGHTS;
  c->arg_c = DNNL_ARG_DST;
  return c;
}

/// out = conv(lhs, rhs) as oneDNN's weight gradient: out[f, b, q] = sum over c and k of
/// lhs[b, c, q * stride + k * rhs_dilation - pad] rhs[f, c, k] is oneDNN's diff_weights with
/// src = lhs (c as its batch), diff_dst = rhs, oneDNN's stride our rhs dilation and its
/// dilation our stride.
std::unique_ptr<DnnlConv> build_weight_gradient(const ConvProblem &p) {
  auto c = std::make_unique<DnnlConv>();
  dims src = cat({p.in_features, p.batch}, p.in_size);
  dims ddst = cat({p.in_features, p.out_features}, p.kernel_size);
  dims dwei = cat({p.out_features, p.batch}, p.out_size);
  c->user_a = strided(src, cat({p.lhs_f, p.lhs_b}, p.lhs_s));
  c->user_b = strided(ddst, cat({p.rhs_i, p.rhs_o}, p.rhs_s));
  c->user_c = strided(dwei, cat({p.out_f, p.out_b}, p.out_s));
  std::vector<int64_t> hi =
      exact_pad_hi(p.in_size, p.out_size, p.kernel_size, p.rhs_dilation, p.strides, p.pad_lo);
  auto src_any = any_layout(src), ddst_any = any_layout(ddst), dwei_any = any_layout(dwei);
  dims stride = p.rhs_dilation, dil = minus_one(p.strides);
  dnnl::convolution_forward::desc fd(dnnl::prop_kind::forward_training,
                                     dnnl::algorithm::convolution_direct, src_any, dwei_any,
                                     ddst_any, stride, dil, p.pad_lo, hi);
  dnnl::convolution_forward::primitive_desc fpd(fd, engine());
  dnnl::convolution_backward_weights::desc bd(dnnl::algorithm::convolution_direct, src_any,
                                              dwei_any, ddst_any, stride, dil, p.pad_lo, hi);
  dnnl::convolution_backward_weights::primitive_desc pd(bd, engine(), fpd);
  c->inner_a = pd.src_desc();
  c->inner_b = pd.diff_dst_desc();
  c->inner_c = pd.diff_weights_desc();
  c->conv = dnnl::convolution_backward_weights(pd);
  c->arg_a = DNNL_ARG_SRC;
  c->arg_b = DNNL_ARG_DIFF_DST;
  c->arg_c = DNNL_ARG_DIFF_WEIGHTS;
  return c;
}

/// Which oneDNN primitive computes a problem.
enum class Form { Forward, WeightGradient, DataGradient };

/// out = conv(lhs, rhs) with lhs dilation and unit strides as oneDNN's data gradient:
/// diff_src[b, f, q] = sum over c and k of diff_dst[b, c, o] w[c, f, k] where
/// o * lhs_dilation = q + pad - k * rhs_dilation, which is the convolution when diff_dst = lhs,
/// w = rhs with its window reversed (and its two feature dims in the other roles), oneDNN's
/// stride our lhs dilation and its left padding (K - 1) * rhs_dilation - pad_lo.
std::unique_ptr<DnnlConv> build_data_gradient(const ConvProblem &p) {
  auto c = std::make_unique<DnnlConv>();
  dims dsrc = cat({p.out_batch, p.out_features}, p.out_size);
  dims ddst = cat({p.batch, p.in_features}, p.in_size);
  dims wei = cat({p.in_features, p.out_features}, p.kernel_size);
  c->user_a = strided(ddst, cat({p.lhs_b, p.lhs_f}, p.lhs_s));
  c->user_b = memory::desc(wei, memory::data_type::f32, contiguous_tag(wei.size()));
  c->user_c = strided(dsrc, cat({p.out_b, p.out_f}, p.out_s));
  std::vector<int64_t> lo(p.rank()), hi(p.rank());
  for (size_t i = 0; i < p.rank(); ++i) {
    lo[i] = (p.kernel_size[i] - 1) * p.rhs_dilation[i] - p.pad_lo[i];
    hi[i] = (p.in_size[i] - 1) * p.lhs_dilation[i] + (p.kernel_size[i] - 1) * p.rhs_dilation[i] +
            1 - p.out_size[i] - lo[i];
  }
  auto dsrc_any = any_layout(dsrc), ddst_any = any_layout(ddst), wei_any = any_layout(wei);
  dims dil = minus_one(p.rhs_dilation);
  dnnl::convolution_forward::desc fd(dnnl::prop_kind::forward_training,
                                     dnnl::algorithm::convolution_direct, dsrc_any, wei_any,
                                     ddst_any, p.lhs_dilation, dil, lo, hi);
  dnnl::convolution_forward::primitive_desc fpd(fd, engine());
  dnnl::convolution_backward_data::desc bd(dnnl::algorithm::convolution_direct, dsrc_any, wei_any,
                                           ddst_any, p.lhs_dilation, dil, lo, hi);
  dnnl::convolution_backward_data::primitive_desc pd(bd, engine(), fpd);
  c->inner_a = pd.diff_dst_desc();
  c->inner_b = pd.weights_desc();
  c->inner_c = pd.diff_src_desc();
  c->conv = dnnl::convolution_backward_data(pd);
  c->arg_a = DNNL_ARG_DIFF_DST;
  c->arg_b = DNNL_ARG_WEIGHTS;
  c->arg_c = DNNL_ARG_DIFF_SRC;
  return c;
}

/// rhs [f, c, k...] (strided) as a contiguous [c, f, k...] with each window reversed: the
/// weights of the data-gradient form.
std::vector<float> reversed_weights(const ConvProblem &p, const float *rhs) {
  int64_t ksize = product(p.kernel_size), n = static_cast<int64_t>(p.rank());
  std::vector<float> w(static_cast<size_t>(p.in_features * p.out_features * ksize));
  std::vector<int64_t> k(p.rank());
  for (int64_t kf = 0; kf < ksize; ++kf) {
    int64_t r = kf, off = 0;
    for (int64_t d = n; d-- > 0;) {
      k[d] = r % p.kernel_size[d];
      r /= p.kernel_size[d];
      off += (p.kernel_size[d] - 1 - k[d]) * p.rhs_s[d];
    }
    for (int64_t ci = 0; ci < p.in_features; ++ci)
      for (int64_t f = 0; f < p.out_features; ++f)
        w[(ci * p.out_features + f) * ksize + kf] = rhs[off + f * p.rhs_o + ci * p.rhs_i];
  }
  return w;
}

std::string key_of(const ConvProblem &p, Form form, const ConvEpilogue &epilogue) {
  std::ostringstream os;
  // Exact parameters: two slopes that print alike must not share a primitive.
  os << (epilogue.bias != nullptr) << ',' << static_cast<int>(epilogue.act) << ',' << std::hexfloat
     << epilogue.alpha << ',' << epilogue.beta << std::defaultfloat << ';';
  auto put = [&](const std::vector<int64_t> &v) {
    for (int64_t x : v)
      os << x << ',';
    os << ';';
  };
  os << static_cast<int>(form) << ';' << p.batch << ',' << p.in_features << ',' << p.out_features
     << ',' << p.out_batch << ',' << p.feature_groups << ';' << p.lhs_b << ',' << p.lhs_f << ','
     << p.rhs_o << ',' << p.rhs_i << ',' << p.out_b << ',' << p.out_f << ';';
  for (const auto *v : {&p.in_size, &p.kernel_size, &p.out_size, &p.strides, &p.pad_lo,
                        &p.rhs_dilation, &p.lhs_s, &p.rhs_s, &p.out_s})
    put(*v);
  return os.str();
}

/// Built convolutions by problem (building one JIT-compiles its kernels, which costs more than
/// running it on small shapes); a failed build is remembered as null.
const DnnlConv *cached(const ConvProblem &p, Form form, const ConvEpilogue &epilogue) {
  static std::mutex mu;
  static std::map<std::string, std::unique_ptr<DnnlConv>> cache;
  std::string key = key_of(p, form, epilogue);
  std::lock_guard<std::mutex> lock(mu);
  auto it = cache.find(key);
  if (it != cache.end())
    return it->second.get();
  std::unique_ptr<DnnlConv> c;
  try {
    c = form == Form::WeightGradient ? build_weight_gradient(p)
        : form == Form::DataGradient ? build_data_gradient(p)
                                     : build_forward(p, epilogue);
    c->to_a = reorder_if(c->user_a, c->inner_a);
    c->to_b = reorder_if(c->user_b, c->inner_b);
    c->from_c = reorder_if(c->inner_c, c->user_c);
  } catch (const dnnl::error &) {
    c.reset();
  }
  return cache.emplace(key, std::move(c)).first->second.get();
}

} // namespace

DnnlConvResult conv_dnnl_f32(const ConvProblem &p, const float *lhs, const float *rhs, float *out,
                             const ConvEpilogue &epilogue) {
  constexpr DnnlConvResult no = DnnlConvResult::NotTaken;
  if (p.batch_groups != 1 || p.rank() == 0 || p.rank() > 3 || p.batch == 0 || p.in_features == 0 ||
      p.out_features == 0 || product(p.out_size) == 0 || product(p.kernel_size) == 0)
    return no;
  bool dilated = false, strided = false, negative = false;
  for (size_t i = 0; i < p.rank(); ++i) {
    dilated = dilated || p.lhs_dilation[i] != 1;
    strided = strided || p.strides[i] != 1;
    negative = negative || p.pad_lo[i] < 0 || p.pad_hi[i] < 0;
  }
  Form form = Form::Forward;
  if (dilated) {
    if (strided || p.feature_groups != 1)
      return no;
    form = Form::DataGradient;
  } else if (negative) {
    return no;
  } else if (p.feature_groups == 1 && product(p.kernel_size) > product(p.out_size)) {
    form = Form::WeightGradient;
  }
  // Only the forward convolution takes post-ops; the gradient forms leave the epilogue to the
  // caller (they come from transposes, which have none).
  bool fused = form == Form::Forward && !epilogue.empty();
  const DnnlConv *c = cached(p, form, fused ? epilogue : ConvEpilogue{});
  if (!c && fused)
    return conv_dnnl_f32(p, lhs, rhs, out, {}) == no ? no : DnnlConvResult::WithoutEpilogue;
  if (!c)
    return no;
  std::vector<float> flipped;
  if (form == Form::DataGradient) {
    flipped = reversed_weights(p, rhs);
    rhs = flipped.data();
  }
  use_strata_threads();
  dnnl::stream s(engine());
  memory ua(c->user_a, engine(), const_cast<float *>(lhs));
  memory ub(c->user_b, engine(), const_cast<float *>(rhs));
  memory uc(c->user_c, engine(), out);
  memory a = c->to_a ? memory(c->inner_a, engine()) : ua;
  memory b = c->to_b ? memory(c->inner_b, engine()) : ub;
  memory o = c->from_c ? memory(c->inner_c, engine()) : uc;
  if (c->to_a)
    c->to_a->execute(s, ua, a);
  if (c->to_b)
    c->to_b->execute(s, ub, b);
  std::unordered_map<int, memory> args{{c->arg_a, a}, {c->arg_b, b}, {c->arg_c, o}};
  if (c->bias)
    args.emplace(DNNL_ARG_BIAS, memory(memory::desc({p.out_features}, memory::data_type::f32,
                                                    memory::format_tag::a),
                                       engine(), const_cast<void *>(epilogue.bias)));
  c->conv.execute(s, args);
  if (c->from_c)
    c->from_c->execute(s, o, uc);
  s.wait();
  return fused || epilogue.empty() ? DnnlConvResult::WithEpilogue : DnnlConvResult::WithoutEpilogue;
}

} // namespace strata
