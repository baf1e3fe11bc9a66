// The files knobs read and write, always through the KnobContext's Root, so that a
// knob reads a captured tree (--root) exactly as it reads the machine, and a validated
// id can never be steered to another file: single /proc files are opened beneath the
// root without following symlinks, and a drop-in's directory and file are opened
// without following them either. Writing is the Knob's business (tuner/knobs/knob.h):
// it decides whether this root may be written before it calls anything here.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/result.h"
#include "probes/root.h"
#include "tuner/knobs/systemd.h"

namespace tuner {

/// How a path under root is shown in messages: "/proc/irq/57/smp_affinity_list", or
/// "DIR/proc/..." under a captured tree. A leading '/' of rel is ignored.
std::string shown_path(const Root& root, std::string_view rel);

/// Reads rel (e.g. "proc/sys/net/core/somaxconn") under root, refusing symlinks.
Result<std::string> read_proc_file(const Root& root, const std::string& rel);
/// A test's fake machine, answering for its kernel (KnobContext::fake_kernel). Told the
/// path and the text a knob writes, it may change the text into what the file reads
/// afterwards (a THP choice reads back "always [madvise] never"), or return the errno
/// the kernel would fail the write with (then nothing is written). 0 accepts.
using FakeKernel = std::function<int(const std::string& rel, std::string& text)>;

/// Writes text to rel in one write(2). Errors carry the errno of the open or the write
/// (the kernel's verdict on the value). A fake kernel, when given, is asked first.
Status write_proc_file(const Root& root, const std::string& rel, const std::string& text,
                       const FakeKernel* fake = nullptr);

/// A systemd drop-in: DIR/SUBDIR/NAME under root ("etc/systemd/system",
/// "trainer.service.d", "tuner-numa.conf"). SUBDIR and NAME are opened without
/// following symlinks.
struct Dropin {
  std::string dir, subdir, name;
  std::string shown(const Root& root) const;
};

/// The drop-in's text; nullopt when it, its SUBDIR or DIR does not exist (a machine or
/// capture without systemd has no drop-ins).
Result<std::optional<std::string>> read_dropin(const Root& root, const Dropin& d);
/// Writes it atomically: a temp file, fsync, rename, fsync of SUBDIR (created 0755 when
/// missing). DIR must exist.
Status write_dropin(const Root& root, const Dropin& d, const std::string& content);
/// Removes it (absent is fine), then SUBDIR if that is left empty: a directory that
/// holds the admin's own drop-ins stays.
Status remove_dropin(const Root& root, const Dropin& d);

/// A drop-in knob's read-back mismatch: "read back 'X' from PATH after writing 'Y'".
std::string dropin_mismatch(const Root& root, const Dropin& d, const std::string& now,
                            const std::string& want);
/// Runs systemctl ARGS after the drop-in was written; a failure names the knob and says
/// the drop-in is written ("wrote PATH but systemctl daemon-reload: ...").
Status systemctl_after_dropin(Systemctl& sc, const Root& root, const Dropin& d,
                              const std::string& knob_id, const std::vector<std::string>& args);

}  // namespace tuner
