// The main of every doctest group. Cases that need what a developer's machine may lack (the
// real data of $DUALGAP_DATA) are marked skip and reported as skipped; under CI (CI set) every
// case runs (--no-skip), so a CI run cannot pass with a case that checked nothing.
#define DOCTEST_CONFIG_IMPLEMENT
#include <doctest/doctest.h>

#include <cstdlib>

int main(int argc, char** argv) {
  doctest::Context context;
  const char* ci = std::getenv("CI");
  if (ci && *ci) context.setOption("no-skip", true);
  context.applyCommandLine(argc, argv);
  return context.run();
}
