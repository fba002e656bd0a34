// cli_main.h: bankviz-cli as a function, so that a program (main.cpp) and an in-process caller
// (the CLI fuzzer in fuzz/) run the same code.
#pragma once

namespace bankviz::cli {

// Parses argv (argv[0] is the program name), runs the subcommand and returns the exit status:
// 0 success, 1 failed work, 2 usage error. Prints through std::cout and std::cerr (both filtered
// through PrintableBuf while it runs, their own buffers given back on return); reads standard
// input through std::cin.
int cli_main(int argc, char** argv);

}  // namespace bankviz::cli
