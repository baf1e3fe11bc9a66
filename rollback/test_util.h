// Moved to tests/support/temp_dir.h (STYLE.md 14: one test-support folder). This
// forwarder stays only until tuner/knobs/sysctl_test.cc includes that header; then
// delete it. The __has_include keeps it out of the rollback layer's view, where tests/
// does not exist.
#pragma once

#if __has_include("tests/support/temp_dir.h")
#include "tests/support/temp_dir.h"
#endif
