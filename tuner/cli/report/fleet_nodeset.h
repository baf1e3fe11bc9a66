// Node lists as pdsh and clush (ClusterShell) write them: "gpu-[0005-0006,0011]".
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace tuner {

/// The nodes folded into the nodeset form: names that differ only in their last number
/// share one prefix and suffix with the numbers in brackets, as ranges
/// ("gpu-[0005-0006,0011]": gpu-0005, gpu-0006, gpu-0011); zero padding is kept (a
/// range's numbers all have its first number's width when that starts with 0: "[08-10]",
/// "[9-10]"); several such sets, and names without a digit, comma-separated and sorted
/// ("gpu-[01-04],login,mgmt1"). A name that holds '[', ']', ',' or a blank or control
/// character is listed as it is. `pdsh -w` and `clush -w` take the result back.
std::string nodeset(const std::vector<std::string>& nodes);

/// nodeset() cut at about max_chars, between two numbers or names (an open bracket is
/// closed), followed by " ... and N more" naming how many nodes it left out.
std::string nodeset_capped(const std::vector<std::string>& nodes, std::size_t max_chars = 200);

}  // namespace tuner
