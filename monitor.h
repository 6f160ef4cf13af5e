// What watches the machine while training runs (monitor/): the step profiler (where a step's
// time goes, by stage: CUDA events on a GPU, the steady clock on the CPU), the GPU monitor
// (utilisation through NVML) and the CPU's competition (the process's CPU time, its threads'
// wait for a core, steal time, the other processes). The Trainer uses them all; a loop of one's
// own can too.
#pragma once

#include "kiln/monitor/cpu_competition.h"
#include "kiln/monitor/gpu_monitor.h"
#include "kiln/monitor/step_profiler.h"
