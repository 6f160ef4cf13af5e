// How the apps start OpenMP: with passive waiting unless the user chose a policy. A decision of
// a program about its own process (it re-executes itself), so it lives with the apps, not in the
// library.
#pragma once

namespace kiln {

// OpenMP threads spin while they wait at a barrier by default. Where another process holds a
// core, the spinning thread burns the time slice its partner needs, and a training step took 13x
// longer than with passive waiting (docs/performance.md). libgomp reads OMP_WAIT_POLICY once, as
// it loads, so a program must start with it set: when the user has not chosen a policy, this sets
// PASSIVE and re-executes the program in place (same process id, same arguments). Call it first
// in main(), before any thread starts; it returns when the policy is already in place, or when
// re-executing fails (the program then runs with OpenMP's default).
void prefer_passive_openmp_waiting(char** argv);

}  // namespace kiln
