// sysconf's page count times the page size.
#include "kiln/core/host_memory.h"

#include <unistd.h>

namespace kiln {

std::size_t host_memory_bytes() {
  const long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGE_SIZE);
  return pages > 0 && page > 0 ? static_cast<std::size_t>(pages) * static_cast<std::size_t>(page)
                               : 0;
}

}  // namespace kiln
