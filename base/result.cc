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

const char* error_kind_name(ErrorKind kind) {
  switch (kind) {
    case ErrorKind::io: return "io";
    case ErrorKind::invalid: return "invalid";
    case ErrorKind::missing: return "missing";
    case ErrorKind::denied: return "denied";
    case ErrorKind::refused: return "refused";
    case ErrorKind::unsupported: return "unsupported";
    case ErrorKind::busy: return "busy";
  }
  return "io";
}

ErrorKind kind_of_errno(int err) {
  switch (err) {
    case ENOENT:
    case ENODEV:
    case ENXIO:
    case ESRCH: return ErrorKind::missing;
    case EACCES:
    case EPERM:
    case EROFS: return ErrorKind::denied;
    case EOPNOTSUPP:
    case ENOSYS: return ErrorKind::unsupported;
    case EBUSY:
    case EAGAIN: return ErrorKind::busy;
    case EINVAL:
    case ERANGE: return ErrorKind::invalid;
    default: return ErrorKind::io;
  }
}

Error Error::invalid(std::string what, std::string where) {
  return Error{std::move(what), std::move(where), 0, ErrorKind::invalid};
}
Error Error::missing(std::string what, std::string where, int err) {
  return Error{std::move(what), std::move(where), err, ErrorKind::missing};
}
Error Error::refused(std::string what, std::string where, int err) {
  return Error{std::move(what), std::move(where), err, ErrorKind::refused};
}
Error Error::unsupported(std::string what, std::string where, int err) {
  return Error{std::move(what), std::move(where), err, ErrorKind::unsupported};
}
Error Error::busy(std::string what, std::string where, int err) {
  return Error{std::move(what), std::move(where), err, ErrorKind::busy};
}
Error Error::io(std::string what, std::string where, int err) {
  return Error{std::move(what), std::move(where), err, ErrorKind::io};
}

Error Error::context(const std::string& outer) const {
  Error e = *this;
  if (!outer.empty()) e.where = where.empty() ? outer : outer + ": " + where;
  return e;
}

Error errno_error(std::string what, std::string where, int err) {
  return Error{std::move(what), std::move(where), err, kind_of_errno(err)};
}

}  // namespace tuner
