// File formats and durable I/O: safetensors files (the weights of checkpoints, readable by
// PyTorch's loader), files written and fsynced before they are published, and folder locks.
#pragma once

#include "kiln/io/durable_file.h"
#include "kiln/io/folder_lock.h"
#include "kiln/io/safetensors.h"
