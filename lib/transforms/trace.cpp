// The per-thread trace stack.
#include "../trace_impl.h"

#include <mutex>
#include <set>

namespace strata {
namespace {
thread_local std::vector<TraceLevel *> t_stack;
} // namespace

LevelGuard::LevelGuard(std::shared_ptr<TraceLevel> level) : level_(std::move(level)) {
  t_stack.push_back(level_.get());
  level_->depth = static_cast<int>(t_stack.size());
}

LevelGuard::~LevelGuard() {
  level_->alive = false;
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

int stack_depth() { return static_cast<int>(t_stack.size()); }

std::string describe_tracer(const Tracer &t) { return "the " + t.origin() + " transform"; }

} // namespace strata
