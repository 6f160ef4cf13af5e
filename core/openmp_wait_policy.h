// How kiln's OpenMP threads wait between parallel regions. libgomp spins by default, and reads
// OMP_WAIT_POLICY once, as it loads; a program that calls prefer_passive_openmp_waiting first in
// main() gets what kiln's own apps get. The diagnosis reads openmp_waits_passively().
#pragma once

namespace kiln {

// OpenMP threads spin while they wait at a barrier by default. Where another process holds a
// core, the spinning thread burns the time slice its partner needs: a small model's training
// step took 6-20x longer than with passive waiting (docs/performance.md). When the user has not
// chosen a policy, this sets OMP_WAIT_POLICY=PASSIVE and re-executes the program in place (same
// process id, same arguments). Call it first in main(), before any thread starts; it returns
// when the policy is already in place, or when re-executing fails (the program then runs with
// OpenMP's default).
void prefer_passive_openmp_waiting(char** argv);

// Whether OpenMP's threads sleep while they wait (OMP_WAIT_POLICY=PASSIVE, or GOMP_SPINCOUNT=0,
// as the process started); false when they spin.
bool openmp_waits_passively();

}  // namespace kiln
