#include "base/result.h"

#include <array>
#include <cstring>

#include "base/enum_names.h"

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

namespace {

constexpr std::array<EnumName<ErrorKind>, 7> kErrorKinds = {{
    {ErrorKind::io, "io"},
    {ErrorKind::invalid, "invalid"},
    {ErrorKind::missing, "missing"},
    {ErrorKind::denied, "denied"},
    {ErrorKind::refused, "refused"},
    {ErrorKind::unsupported, "unsupported"},
    {ErrorKind::busy, "busy"},
}};
static_assert(in_enum_order(kErrorKinds));

}  // namespace

const char* error_kind_name(ErrorKind kind) { return enum_name(kErrorKinds, kind); }

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
  return {ErrorKind::invalid, std::move(what), std::move(where)};
}
Error Error::missing(std::string what, std::string where, int err) {
  return {ErrorKind::missing, std::move(what), std::move(where), err};
}
Error Error::denied(std::string what, std::string where, int err) {
  return {ErrorKind::denied, std::move(what), std::move(where), err};
}
Error Error::refused(std::string what, std::string where, int err) {
  return {ErrorKind::refused, std::move(what), std::move(where), err};
}
Error Error::unsupported(std::string what, std::string where, int err) {
  return {ErrorKind::unsupported, std::move(what), std::move(where), err};
}
Error Error::busy(std::string what, std::string where, int err) {
  return {ErrorKind::busy, std::move(what), std::move(where), err};
}
Error Error::io(std::string what, std::string where, int err) {
  return {ErrorKind::io, std::move(what), std::move(where), err};
}

Error Error::context(const std::string& outer) const {
  Error e = *this;
  if (!outer.empty()) e.where = where.empty() ? outer : outer + ": " + where;
  return e;
}

Error Error::labelled(const std::string& label) const {
  Error e = *this;
  e.where = where.empty() ? label : label + " (" + where + ")";
  return e;
}

Error errno_error(std::string what, std::string where, int err) {
  return {kind_of_errno(err), std::move(what), std::move(where), err};
}

}  // namespace tuner
