#include "base/hash.h"

#include <doctest/doctest.h>

using namespace tuner;

TEST_CASE("hash: FNV-1a 64 matches the published test vectors") {
  CHECK(hex64(fnv1a64("")) == "cbf29ce484222325");
  CHECK(hex64(fnv1a64("a")) == "af63dc4c8601ec8c");
  CHECK(hex64(fnv1a64("foobar")) == "85944171f73967e8");
  // Continuing a hash is hashing the concatenation.
  CHECK(fnv1a64("bar", fnv1a64("foo")) == fnv1a64("foobar"));
  CHECK(hex64(1) == "0000000000000001");
}
