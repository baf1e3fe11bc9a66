// toml++'s implementation, compiled into fuzz_profile with the fuzzer's instrumentation
// (Debian ships it as a shared library built without): the definitions here take the
// place of libtomlplusplus.so's at link time, so coverage reaches into the TOML parser.
#define TOML_IMPLEMENTATION
#include <toml++/toml.h>
