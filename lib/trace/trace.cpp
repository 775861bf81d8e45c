// The per-thread trace stack.
#include "strata/internal/trace.h"

#include <mutex>
#include <set>

namespace strata {
namespace {
thread_local std::vector<TraceLevel *> t_stack;
thread_local TraceLevel *t_dynamic = nullptr;
} // namespace

LevelGuard::LevelGuard(std::shared_ptr<TraceLevel> level, bool dynamic)
    : level_(std::move(level)), dynamic_(dynamic) {
  t_stack.push_back(level_.get());
  level_->depth = static_cast<int>(t_stack.size());
  if (dynamic_) {
    saved_dynamic_ = t_dynamic;
    t_dynamic = level_.get();
  }
}

LevelGuard::~LevelGuard() {
  level_->alive = false;
  if (dynamic_)
    t_dynamic = saved_dynamic_;
  // Levels end in LIFO order; an exception unwinding through several guards keeps it so.
  if (!t_stack.empty() && t_stack.back() == level_.get())
    t_stack.pop_back();
}

const std::string *Tracer::intern(const std::string &name) {
  static std::mutex mu;
  static std::set<std::string> *names = new std::set<std::string>(); // outlives all tracers
  std::lock_guard<std::mutex> lock(mu);
  return &*names->insert(name).first;
}

TraceLevel *dynamic_level() { return t_dynamic; }

DynamicOverride::DynamicOverride(TraceLevel *level) : saved_(t_dynamic) { t_dynamic = level; }
DynamicOverride::~DynamicOverride() { t_dynamic = saved_; }

TraceLevel *top_level(std::span<const Array> inputs, std::string_view op) {
  TraceLevel *top = t_dynamic;
  // Control flow's substituting levels replace the tracers a sub-function captured, which may
  // belong to a transform that has ended (a backward pass replays a loop body after its grad
  // level returned); they report any other escaped tracer when they re-bind.
  bool substituting = t_dynamic && t_dynamic->substitutes_captures();
  for (const Array &a : inputs) {
    if (!a.valid())
      fail(op, "an input is an empty (default-constructed) Array");
    if (const auto &t = a.tracer()) {
      TraceLevel *l = t->level();
      if (!l && substituting)
        continue;
      if (!l)
        throw Error(detail::cat("[", op, "] a value traced by ", describe_tracer(*t),
                                " was used after that transform ended (escaped tracer)"),
                    ErrorKind::Type);
      if (!top || l->depth > top->depth)
        top = l;
    }
  }
  return top;
}

int stack_depth() { return static_cast<int>(t_stack.size()); }

std::string describe_tracer(const Tracer &t) { return "the " + t.origin() + " transform"; }

} // namespace strata
