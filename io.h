// File formats and durable I/O: safetensors files (the weights of checkpoints, readable by
// PyTorch's loader), files written and fsynced before they are published, folder locks and
// TensorBoard event files. The HTML pieces of kiln's pages are in <kiln/report.h>.
#pragma once

#include "kiln/io/durable_file.h"
#include "kiln/io/folder_lock.h"
#include "kiln/io/safetensors.h"
#include "kiln/io/tensorboard/event_file_writer.h"
