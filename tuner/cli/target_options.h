// The --root and --topology options of the read-only commands.
#pragma once

#include <boost/program_options.hpp>

#include "tuner/plan/target.h"

namespace tuner {

/// Adds --root and --topology to a command's options.
void add_target_options(boost::program_options::options_description& desc);
/// Adds --class-label (probe, plan, apply: the commands that say or use the node's
/// hardware class, probes/hw_class.h).
void add_class_label_option(boost::program_options::options_description& desc);
/// Opens the target the options name; bad paths are usage errors (exit 2).
Target open_target(const boost::program_options::variables_map& vm);

}  // namespace tuner
