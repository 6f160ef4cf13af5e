// The range rule of DataLoaderOptions (data/data_loader.h), one for the library and the apps.
#include "kiln/core/cpu_description.h"
#include "kiln/core/error.h"
#include "kiln/data/data_loader.h"

namespace kiln {

void check_data_loader_options(const DataLoaderOptions& o) {
  KILN_CHECK(o.batch_size >= 1, "{} must be at least 1, found {}", Setting::batch_size,
             o.batch_size);
  KILN_CHECK(o.num_workers >= 0 && o.num_workers <= kMaxLoaderWorkers,
             "{} must be in [0, {}], found {}; this machine has {} cores, and "
             "more workers than cores rarely helps",
             Setting::loader_workers, kMaxLoaderWorkers, o.num_workers,
             cpu_description().logical_cpus);
  KILN_CHECK(o.prefetch >= 1 && o.prefetch <= kMaxLoaderPrefetch,
             "DataLoaderOptions::prefetch must be in [1, {}] batches per worker, found {}",
             kMaxLoaderPrefetch, o.prefetch);
  KILN_CHECK(o.world_size >= 1, "DataLoaderOptions::world_size must be at least 1, found {}",
             o.world_size);
  KILN_CHECK(o.rank >= 0 && o.rank < o.world_size,
             "DataLoaderOptions::rank must be in [0, {}), found {}", o.world_size, o.rank);
}

}  // namespace kiln
