// The parsers of the choice files, on text copied from real kernels.
#include "tuner/knobs/sysfs_choice.h"

#include <doctest/doctest.h>

using namespace tuner;

TEST_CASE("sysfs choice: the bracketed word is the current one, every word is offered") {
  // Debian 12's kernel and 6.18, /sys/kernel/mm/transparent_hugepage/*.
  auto enabled = parse_bracketed_choice("always [madvise] never\n");
  REQUIRE(enabled.ok());
  CHECK(enabled->current == "madvise");
  CHECK(enabled->offered == std::vector<std::string>{"always", "madvise", "never"});
  auto defrag = parse_bracketed_choice("always defer defer+madvise [madvise] never\n");
  REQUIRE(defrag.ok());
  CHECK(defrag->current == "madvise");
  CHECK(defrag->offered.size() == 5);
  CHECK(defrag->offered[2] == "defer+madvise");
  auto shmem = parse_bracketed_choice("always within_size advise [never] deny force\n");
  REQUIRE(shmem.ok());
  CHECK(shmem->current == "never");
  CHECK(parse_bracketed_choice("[always] madvise never")->current == "always");

  CHECK(!parse_bracketed_choice("always madvise never\n").ok());
  CHECK(!parse_bracketed_choice("[always] [never]").ok());
  CHECK(!parse_bracketed_choice("").ok());
  CHECK(!parse_bracketed_choice("[]").ok());
}

TEST_CASE("sysfs choice: word lists are blank-separated with a trailing blank") {
  // acpi-cpufreq's scaling_available_governors; intel_pstate's EPP list.
  CHECK(parse_word_list("conservative ondemand userspace powersave performance schedutil \n") ==
        std::vector<std::string>{"conservative", "ondemand", "userspace", "powersave",
                                 "performance", "schedutil"});
  CHECK(parse_word_list("default performance balance_performance balance_power power \n").size() ==
        5);
  CHECK(parse_word_list("\n").empty());
}

TEST_CASE("sysfs choice: a profile's word is one token, never a path or two words") {
  for (const char* good : {"performance", "defer+madvise", "balance_performance", "within_size"})
    CHECK_MESSAGE(validate_choice_word(good).ok(), good);
  for (const char* bad : {"", "two words", "../x", "a\nb", "x/y", "n/a", "\"q\""})
    CHECK_MESSAGE(!validate_choice_word(bad).ok(), bad);
  CHECK(validate_choice_word("two words").error().what.find("has ' '") != std::string::npos);
  CHECK(validate_choice_word("two words").error().where.empty());
  CHECK(!validate_choice_word(std::string(65, 'a')).ok());
}
