// The test binaries' main: the registry is filled the way the CLI fills it, then gtest runs.
#include <gtest/gtest.h>

#include "harness/core/registry.hpp"

int main(int argc, char** argv) {
  kgate::register_bundled_families(kgate::Registry::instance());
  ::testing::InitGoogleTest(&argc, argv);
  return RUN_ALL_TESTS();
}
