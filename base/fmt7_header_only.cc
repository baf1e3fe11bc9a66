// fmt 7 used header-only (the portable build: cmake/Portable.cmake, on Debian 11's
// fmt 7.1). <fmt/core.h> declares fmt::vprint, which fmt::print calls, but in
// header-only mode only <fmt/format.h> defines it (inline); fmt 8 and later include
// format.h from core.h themselves. Files that include core.h alone leave vprint
// undefined, so this file includes format.h and takes both overloads' addresses: their
// out-of-line definitions are emitted here and satisfy the rest of the link. Other
// builds (fmt as a library, or fmt 8 on) compile nothing here.
#include <fmt/core.h>

#if defined(FMT_HEADER_ONLY) && FMT_VERSION < 80000
#include <cstdio>

#include <fmt/format.h>

namespace tuner::fmt7 {

using VprintFile = void (*)(std::FILE*, fmt::string_view, fmt::format_args);
using VprintStdout = void (*)(fmt::string_view, fmt::format_args);
extern const VprintFile kVprintFile;
extern const VprintStdout kVprintStdout;
const VprintFile kVprintFile = &fmt::vprint;
const VprintStdout kVprintStdout = &fmt::vprint;

}  // namespace tuner::fmt7
#endif
