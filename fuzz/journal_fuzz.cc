// libFuzzer target: a run's journal (rollback/journal.h) as rollback, history and
// status read it after a crash: damaged and torn lines included; then the run's
// summary (rollback/run_summary.h). A record that decodes must encode to a line that
// decodes to the same record.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "rollback/journal.h"
#include "rollback/run_summary.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  tuner::JournalText journal = tuner::parse_journal(text, "fuzz.journal");
  for (const tuner::DamagedRecord& d : journal.damaged) (void)d.message();
  for (const tuner::JournalRecord& r : journal.records) {
    std::string line = tuner::encode_record(r);
    auto again = tuner::decode_record(line, "re-encoded");
    if (!again.ok() || tuner::encode_record(*again) != line) std::abort();
  }
  (void)tuner::summarize_run("20261129T173000Z-1a2b", journal);
  (void)tuner::left_knobs(journal);
  return 0;
}
