// Reading a hwloc XML export (--topology FILE.xml) before hwloc sees it.
#pragma once

#include <string>
#include <string_view>

#include "base/result.h"

namespace tuner {

/// How deep elements may nest in an export. hwloc's importer recurses once per level
/// and has no limit: a hundred thousand nested <object>s overflow its stack. Real
/// exports nest about a dozen deep (machine, package, caches, core, PU, I/O bridges).
inline constexpr int kMaxXmlNesting = 256;

/// The export at path, through the bounded reader: a regular file (a FIFO or
/// /dev/zero is refused by type, so nothing waits or fills memory) of at most
/// kMaxFileBytes, not empty, nested no deeper than kMaxXmlNesting. hwloc is then
/// handed these bytes, not the path, so what was checked is what it parses.
Result<std::string> read_topology_xml(const std::string& path);

/// The nesting check alone: an error at file:line:col where kMaxXmlNesting is crossed.
/// Comments, CDATA, processing instructions, declarations and quoted attribute values
/// count nothing.
Status check_xml_nesting(std::string_view text, const std::string& file);

}  // namespace tuner
