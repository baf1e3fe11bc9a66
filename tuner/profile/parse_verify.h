// [verify]: the benchmarks, decision settings, guards and bisect of the verify loop.
// Split from parse.cc, which calls it once per file.
#pragma once

#include <string>

#include <toml++/toml.h>

#include "tuner/profile/profile.h"

namespace tuner {

/// Parses [verify]; a ParseFailure (toml_reader.h) names file:line:col. set_fields
/// lists the keys written, so that includes override only those.
VerifySettings parse_verify_table(const std::string& file, const toml::table& t);

}  // namespace tuner
