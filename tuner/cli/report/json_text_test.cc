// json_text: a JSON document is valid whatever bytes its strings hold.
#include "tuner/cli/report/json_text.h"

#include <string>

#include <doctest/doctest.h>
#include <nlohmann/json.hpp>

using namespace tuner;

TEST_CASE("json_text: bytes that are not UTF-8 become U+FFFD, the document stays JSON") {
  nlohmann::json doc = {{"name", "eth\xff\xfe"}, {"model", "ok \x1b[2J"}};
  std::string text = json_text(doc);
  CHECK(text.back() == '\n');
  auto back = nlohmann::json::parse(text);
  CHECK(back["name"] == "eth\xef\xbf\xbd\xef\xbf\xbd");
  CHECK(back["model"] == "ok \x1b[2J");  // escaped as \u001b in the text
  CHECK(text.find('\x1b') == std::string::npos);
  CHECK_THROWS(doc.dump());  // what every --json printed before: an internal error
}
