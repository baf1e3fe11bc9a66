// Term::printable: rendered text reaches the terminal with what it quotes escaped.
#include "tuner/cli/report/term.h"

#include <string>

#include <doctest/doctest.h>

using namespace tuner;

TEST_CASE("term: printable escapes what the text quotes, keeps lines and its own colour") {
  std::string data = "desc \x1b]0;title\x07\x1b[2J\x1b[31mred\tcol";
  Term plain(ColorMode::never, 1);
  CHECK(plain.printable("a\n" + plain.bold(data) + "\n") ==
        "a\ndesc \\x1b]0;title\\x07\\x1b[2J\\x1b[31mred\tcol\n");
  Term color(ColorMode::always, 1);
  // Term's own sequences pass; of the data's, only a colour of the same kind does: it
  // cannot move the cursor, clear the screen or set the title.
  CHECK(color.printable(color.bold(data) + "\n" + color.dim("x")) ==
        "\x1b[1mdesc \\x1b]0;title\\x07\\x1b[2J\x1b[31mred\tcol\x1b[0m\n\x1b[2mx\x1b[0m");
  CHECK(color.printable("\x1b[1;31m\x1b[31") == "\\x1b[1;31m\\x1b[31");
}
