// Where a training step's time goes: the step profiler (CUDA events on a GPU, the steady clock
// on the CPU, by stage) and the device monitor (GPU utilisation through NVML, the process's CPU
// time). The Trainer uses both; a loop of one's own can too.
#pragma once

#include "kiln/training/gpu_monitor.h"
#include "kiln/training/step_profiler.h"
