// Planner: Profile x Inventory -> Plan. Deterministic; no-ops dropped; changes nothing.
#pragma once

#include "base/result.h"
#include "probes/inventory.h"
#include "tuner/plan.h"
#include "tuner/profile.h"
#include "tuner/target.h"

namespace tuner {

/// Works out the changes profile asks of the machine inventory describes. Current
/// values of sysctls and other knobs are read through target.root when the target is
/// the live machine or a captured root (never for an XML topology: current is null).
/// Impossible requests (cpulists beyond the machine, speeds no mode supports, sysctl
/// keys that do not exist) are an Error whose `where` is the profile's file:line:col.
Result<Plan> make_plan(const Profile& profile, const Inventory& inventory, const Target& target);

}  // namespace tuner
