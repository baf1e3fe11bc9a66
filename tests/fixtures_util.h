// Moved to tests/support/ (STYLE.md 14: one test-support folder): fixtures.h (the
// captured machines, ScopedFixture) and files.h (read_text). This forwarder stays only
// until tuner/plan/fixtures_test.cc and probes/bench's tests include those; then
// delete it.
#pragma once

#include "tests/support/files.h"
#include "tests/support/fixtures.h"
