// Uses the installed headers and library: prints 1+2+...+10 computed by Strata.
#include <cstdio>

#include <strata/strata.h>

int main() {
  strata::Array x = strata::arange(1, 11);
  std::printf("sum=%d\n", strata::sum(x).item<int>());
  return strata::sum(x).item<int>() == 55 ? 0 : 1;
}
