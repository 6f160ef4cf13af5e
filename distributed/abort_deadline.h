// The deadline of a process that is ending its job. After an error, or when the collective watchdog
// fires, a rank asks MPI (MPI_Abort) or NCCL (ncclCommAbort) to take the other ranks down, and
// those calls may need the very network that just died. So the rank arms a deadline first: if it
// still lives wait_s later it says so and leaves by itself, and its daemon, seeing it gone, ends
// the other ranks as it would for any rank that died.
#pragma once

#include <string>

namespace kiln {

// Long enough for a healthy MPI_Abort (the local daemon kills this process within a second or
// two); short beside the collective timeouts, so a dead link still ends the job soon. Without a
// deadline MPI_Abort, which goes through this host's Open MPI daemon, can wait minutes for a host
// that daemon cannot reach.
inline constexpr double kAbortWaitS = 10.0;

// Returns at once; a detached thread ends the process with `exit_code` after `wait_s` seconds,
// printing "kiln: <who>: <call> did not end this process within <wait_s> s; ...".
void leave_by_itself_after(double wait_s, int exit_code, std::string who, std::string call);

}  // namespace kiln
