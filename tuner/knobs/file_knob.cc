#include "tuner/knobs/file_knob.h"

#include "tuner/knobs/knob_files.h"

namespace tuner {

Result<std::string> FileKnob::read_text(const std::string& rel) const {
  auto text = read_proc_file(ctx_.root, rel);
  if (!text.ok()) return labelled(text.error());
  return std::move(text).value();
}

Status FileKnob::set(const std::string& value) {
  if (Status s = write_file(path_, value); !s.ok()) return labelled(s.error());
  return Ok{};
}

std::string FileKnob::mismatch(const std::string& now, const std::string& want) {
  return "wrote '" + want + "' but the kernel reads back '" + now + "'";
}

Error FileKnob::labelled(const Error& e) const { return e.labelled(id_str_); }

}  // namespace tuner
