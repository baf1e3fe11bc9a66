#include "tuner/cli/report/json_text.h"

namespace tuner {

std::string json_text(const nlohmann::json& doc) {
  // Control characters need nothing here: dump() escapes them as \uNNNN.
  return doc.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
}

}  // namespace tuner
