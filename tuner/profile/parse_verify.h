// [verify]: the benchmarks, decision settings, guards and bisect of the verify loop.
// Split from parse.cc, which calls it once per file.
#pragma once

#include <chrono>
#include <string>

#include <toml++/toml.h>

#include "tuner/profile/profile.h"

namespace tuner {

/// Parses [verify]; a ParseFailure (toml_reader.h) names file:line:col. set_fields
/// lists the keys written, so that includes override only those.
VerifySettings parse_verify_table(const std::string& file, const toml::table& t);

/// A `soak` value ([verify] or [group.NAME]): a duration from "0s" (no soak) to "10m";
/// `what` names the key in the error.
std::chrono::milliseconds parse_soak(const std::string& file, const toml::node& v,
                                     const std::string& what);

}  // namespace tuner
