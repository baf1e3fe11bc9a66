// escape_controls: what reaches a terminal from text tuner does not control.
#include <string>

#include <doctest/doctest.h>

#include "base/strings.h"

using tuner::escape_controls;
using tuner::Newlines;

TEST_CASE("escape_controls: printable UTF-8 passes as it is") {
  CHECK(escape_controls("eth0: 25000baseSR/Full") == "eth0: 25000baseSR/Full");
  CHECK(escape_controls("Grüße, 東京, 🚀") == "Grüße, 東京, 🚀");
  CHECK(escape_controls("C:\\path") == "C:\\path");  // display only: backslashes stay
  CHECK(escape_controls("") == "");
}

TEST_CASE("escape_controls: terminal sequences are shown, never sent") {
  // Clear the screen, set the window title, ring the bell.
  CHECK(escape_controls("a\x1b[2Jb\x1b]0;pwned\x07") == "a\\x1b[2Jb\\x1b]0;pwned\\x07");
  CHECK(escape_controls(std::string("nul\0!", 5)) == "nul\\x00!");
  CHECK(escape_controls("del\x7f") == "del\\x7f");
  CHECK(escape_controls("\r") == "\\r");
  // A C1 CSI (U+009B) and a right-to-left override.
  CHECK(escape_controls("\xc2\x9b"
                        "2J") == "\\u009b2J");
  // Built from parts: a literal holding U+202E is itself what misleads a reader.
  const std::string rlo = std::string("abc\xe2\x80") + '\xae' + "def";
  CHECK(escape_controls(rlo) == "abc\\u202edef");
}

TEST_CASE("escape_controls: newlines and tabs are escaped in a field, kept in a message") {
  CHECK(escape_controls("one\ntwo\tthree") == "one\\ntwo\\tthree");
  CHECK(escape_controls("one\ntwo\tthree\x1b", Newlines::keep) == "one\ntwo\tthree\\x1b");
}

TEST_CASE("valid_utf8: each byte that is not UTF-8 becomes U+FFFD, the rest stays") {
  CHECK(tuner::valid_utf8("eth0 \x1b Grüße") == "eth0 \x1b Grüße");
  CHECK(tuner::valid_utf8("eth\xff\xfe") == "eth\xef\xbf\xbd\xef\xbf\xbd");
  CHECK(tuner::valid_utf8("\xed\xa0\x80!") == "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd!");
}

TEST_CASE("escape_controls: bytes that are not UTF-8 are shown as \\xNN") {
  CHECK(escape_controls("eth\xff") == "eth\\xff");
  CHECK(escape_controls("\x9b[2J") == "\\x9b[2J");                       // a raw C1 byte, not UTF-8
  CHECK(escape_controls("\xc0\xaf") == "\\xc0\\xaf");                    // overlong '/'
  CHECK(escape_controls("\xed\xa0\x80") == "\\xed\\xa0\\x80");           // a surrogate
  CHECK(escape_controls("\xf4\x90\x80\x80") == "\\xf4\\x90\\x80\\x80");  // above U+10FFFF
  CHECK(escape_controls("cut \xe6\x9d") == "cut \\xe6\\x9d");            // truncated
  CHECK(escape_controls("\xf0\x9f\x9a\x80") == "\xf0\x9f\x9a\x80");      // well-formed 4 bytes
}

TEST_CASE("parse_hex: the kernel's hex fields, bounded") {
  CHECK(tuner::parse_hex("0100007F") == 0x0100007Fu);
  CHECK(tuner::parse_hex("ffFF") == 0xffffu);
  CHECK(tuner::parse_hex("0016", 4) == 22u);
  CHECK_FALSE(tuner::parse_hex("10016", 4).has_value());  // more digits than allowed
  CHECK_FALSE(tuner::parse_hex("").has_value());
  CHECK_FALSE(tuner::parse_hex("0x10").has_value());
  CHECK_FALSE(tuner::parse_hex("12 ").has_value());
  CHECK(tuner::parse_hex("ffffffffffffffff") == UINT64_MAX);
  CHECK_FALSE(tuner::parse_hex("10000000000000000").has_value());  // 17 digits
}
