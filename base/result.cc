#include "base/result.h"

#include <cstring>

namespace tuner {

std::string Error::message() const {
  std::string out = where;
  if (!what.empty()) {
    if (!out.empty()) out += ": ";
    out += what;
  }
  if (err != 0) {
    if (!out.empty()) out += ": ";
    out += std::strerror(err);
  }
  return out;
}

Error errno_error(std::string what, std::string where, int err) {
  return Error{std::move(what), std::move(where), err};
}

}  // namespace tuner
