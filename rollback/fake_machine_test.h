// Test support for apply and rollback: an in-memory machine (knob id -> value) and
// knobs over it that log every write, ninja-style, so tests assert on what was done.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "rollback/rollback.h"
#include "tuner/knobs/knob.h"

namespace tuner::testing {

struct FakeMachine {
  /// A knob absent here reads as missing: its object is gone.
  std::map<std::string, std::string> values;
  std::map<std::string, Error> fail;  // "id=value" writes that fail with this error
  /// A refusal that depends on the machine's state, as the kernel's may.
  std::function<std::optional<Error>(const std::string& id, const std::string& value)> refuse;
  std::vector<std::string> log;  // "id=value" for every write asked for
  /// What else a successful write does to the machine (a channel change makes queues).
  std::function<void(const std::string& id, const std::string& value)> on_write;
};

class FakeKnob : public Knob {
 public:
  FakeKnob(std::string id, FakeMachine& m) : id_(std::move(id)), m_(m) {}
  const std::string& id() const override { return id_; }
  Result<std::string> read() override {
    if (!m_.values.contains(id_)) return errno_error("no such knob", id_, ENOENT);
    return m_.values[id_];
  }
  Result<std::string> canonical(const std::string& d) override { return d; }
  Status write(const std::string& v) override {
    m_.log.push_back(id_ + "=" + v);
    if (auto it = m_.fail.find(id_ + "=" + v); it != m_.fail.end()) return it->second;
    if (m_.refuse)
      if (auto e = m_.refuse(id_, v)) return *e;
    if (!m_.values.contains(id_)) return errno_error("no such knob", id_, ENOENT);
    m_.values[id_] = v;
    if (m_.on_write) m_.on_write(id_, v);
    return Ok{};
  }

 private:
  std::string id_;
  FakeMachine& m_;
};

inline KnobFactory factory(FakeMachine& m) {
  return [&m](const std::string& id) -> Result<std::unique_ptr<Knob>> {
    return std::unique_ptr<Knob>(new FakeKnob(id, m));
  };
}

}  // namespace tuner::testing
