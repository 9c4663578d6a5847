#include <doctest/doctest.h>
#include "compare/model.hpp"
TEST_CASE("placeholder") { CHECK(dualgap::compare::spans_decades(1, 100)); }
