#include "tuner/cli/cli.h"

int main(int argc, char** argv) { return tuner::run_cli(argc, argv); }
