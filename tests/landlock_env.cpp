// landlock_env.cpp: linked into every test program that makes a CPU recording. Where this Linux
// has no Landlock (a container whose system-call filter refuses it, a kernel before 5.13, Landlock
// not in its lsm= list) bankviz refuses to run the host compiler uncontained; the tests then ask
// for the documented opt-in (BANKVIZ_RECORD_UNCONTAINED=1, which every recording then notes), so
// what the recording computes is still tested, and say so once. The containment's own tests skip
// themselves there with the reason (tests/kernels/test_sandbox.cpp `Contain.*`;
// docs/BAD_INPUTS.md's rows marked "needs Landlock"); the refusal itself is tested everywhere
// (test_sandbox.cpp `Contain.WithoutLandlockTheCompileIsRefusedInWords`).
#include <linux/landlock.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>

namespace {

const bool kNoted = [] {
  const long abi =
      ::syscall(SYS_landlock_create_ruleset, nullptr, 0, LANDLOCK_CREATE_RULESET_VERSION);
  if (abi > 0 || std::getenv("BANKVIZ_RECORD_UNCONTAINED")) return false;
  ::setenv("BANKVIZ_RECORD_UNCONTAINED", "1", 0);
  std::fprintf(stderr,
               "note: no Landlock here: the CPU recording's tests run its compile uncontained "
               "(BANKVIZ_RECORD_UNCONTAINED=1); the containment's tests skip\n");
  return true;
}();

}  // namespace

// The tests' view of it: true when this program set BANKVIZ_RECORD_UNCONTAINED itself.
bool tests_run_uncontained() {
  return kNoted;
}
