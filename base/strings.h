// Small string helpers shared by parsers.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace tuner {

std::string_view trim(std::string_view s);
/// Splits on sep; keeps empty fields.
std::vector<std::string_view> split(std::string_view s, char sep);
/// Splits on runs of blanks (space, tab, newline); no empty fields.
std::vector<std::string_view> split_ws(std::string_view s);
/// Collapses runs of blanks into one space and trims: the canonical sysctl value.
std::string normalize_ws(std::string_view s);
bool starts_with(std::string_view s, std::string_view prefix);
std::optional<uint64_t> parse_u64(std::string_view s);
std::optional<int64_t> parse_i64(std::string_view s);
/// Hex digits (either case, no "0x"), at most max_digits of them: the kernel's proc
/// files print addresses, masks and flags so (proc/net/route, proc/net/tcp).
std::optional<uint64_t> parse_hex(std::string_view s, std::size_t max_digits = 16);
/// fnmatch(3) glob match without flags (used for NIC and IRQ name globs).
bool glob_match(std::string_view pattern, std::string_view name);

/// Whether escape_controls keeps line breaks and tabs (multi-line messages) or escapes
/// them too (one field on one line).
enum class Newlines { escape, keep };

/// Text as it may be shown on a terminal. Text from profiles, the kernel, a capture or
/// an error message is not tuner's to trust: a raw ESC can clear the screen, set the
/// window title or write the clipboard. So every C0 control and DEL is shown as `\n`,
/// `\t`, `\r` or `\xNN`, a C1 control (U+0080..U+009F: 0x9b is a CSI on some
/// terminals) and a bidirectional override (U+202A..U+202E, U+2066..U+2069, which
/// reorder what is read) as `\uNNNN`, and a byte that is not part of well-formed UTF-8
/// as `\xNN`. Backslashes are left alone: this is for display, not a reversible
/// encoding.
std::string escape_controls(std::string_view s, Newlines newlines = Newlines::escape);

/// s with every byte that is not part of well-formed UTF-8 replaced by U+FFFD, as
/// nlohmann::json's error_handler replace does: for formats that must be UTF-8 (the
/// Prometheus text format) and hold names tuner did not choose.
std::string valid_utf8(std::string_view s);

}  // namespace tuner
