// File formats and durable I/O: safetensors files (the weights of checkpoints, readable by
// PyTorch's loader), files written and fsynced before they are published, folder locks,
// TensorBoard event files and the HTML pieces of kiln's pages.
#pragma once

#include "kiln/io/durable_file.h"
#include "kiln/io/folder_lock.h"
#include "kiln/io/html.h"
#include "kiln/io/safetensors.h"
#include "kiln/io/tensorboard/event_file_writer.h"
