// The host's physical memory: the bound that sizes claimed by files and flags are checked against
// before anything is allocated. Apart from core/memory.h (allocators, CUDA) so that the parsers
// and their fuzz targets (tests/fuzz/) need only this.
#pragma once

#include <cstddef>

namespace kiln {

// Physical memory in bytes, 0 if the system does not say.
std::size_t host_memory_bytes();

}  // namespace kiln
