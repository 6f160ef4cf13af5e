// The public API of kiln in one include: #include <kiln/kiln.h>.
#pragma once

#include "kiln/core/cpu_compute.h"
#include "kiln/core/device.h"
#include "kiln/core/dtype.h"
#include "kiln/core/error.h"
#include "kiln/core/memory.h"
#include "kiln/core/ops.h"
#include "kiln/core/parallel.h"
#include "kiln/core/precision.h"
#include "kiln/core/random.h"
#include "kiln/core/shape.h"
#include "kiln/core/stream.h"
#include "kiln/core/tensor.h"
#include "kiln/core/timer.h"
