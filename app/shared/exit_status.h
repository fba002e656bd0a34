// exit_status.h: the exit statuses of both programs (bankviz and bankviz-cli), one home.
// docs/BAD_INPUTS.md says which input gets which.
#pragma once

namespace bankviz {

inline constexpr int kExitOk = 0;
inline constexpr int kExitFailed = 1;  // the input was understood but is wrong, or the work failed
inline constexpr int kExitUsage = 2;   // bad flags: unknown, a bad value, conflicting

}  // namespace bankviz
