// stack.h: the stack both programs give the model (app/shared, called first by bankviz-cli and
// the app).
#pragma once

#include <cstddef>

namespace bankviz {

// Parsing, binding and evaluating recurse: an expression nested as deep as allowed (200 levels)
// needs about 1 MiB of stack, more than `ulimit -s 512` gives (both programs ended by SIGSEGV;
// at 64 KiB so did a plain analyze). Every thread that runs the model gets this much.
inline constexpr std::size_t kModelStackBytes = std::size_t{16} << 20;

// Runs program(argc, argv) on a thread whose stack is kModelStackBytes, whatever the stack limit
// (`ulimit -s` sets the hard limit too), and makes that the size of every thread started after
// (std::thread: a sweep's or a lesson check's workers). Returns what program returned.
//
// Without a thread to be had (`ulimit -u`) it runs on the main thread, after raising the soft
// stack limit to kModelStackBytes where the hard limit allows: Linux checks the limit when the
// stack grows, not only at exec (mm/mmap.c, acct_stack_growth), and places shared libraries at
// least 128 MiB below the stack's top whatever the limit.
//
// The app's window then lives on that thread, not the process's first: GLFW asks for one thread
// for all its calls, which on Linux (X11, Wayland, EGL) is any one thread; only macOS, which we
// do not build for, needs the first.
int run_with_the_model_stack(int (*program)(int, char**), int argc, char** argv);

}  // namespace bankviz
