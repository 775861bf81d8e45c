// Uses the installed headers and libraries: prints 1+2+...+10 computed by Strata, eagerly and
// through jit (the installed libstrata_jit must find its siblings by its run path).
#include <cstdio>

#include <strata/jit.h>
#include <strata/strata.h>

int main() {
  strata::Array x = strata::arange(1, 11);
  int eager = strata::sum(x).item<int>();
  auto f = strata::jit([](const strata::Array &a) { return strata::sum(a * a); });
  int squares = f(x).item<int>();
  std::printf("sum=%d jit_sum_of_squares=%d\n", eager, squares);
  return eager == 55 && squares == 385 ? 0 : 1;
}
