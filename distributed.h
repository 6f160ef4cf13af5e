// Data-parallel training past one device: the communicators (single process, MPI, NCCL) a
// Trainer takes as TrainerOptions::comm, and the data-parallel helpers (broadcasts from rank 0,
// metric sums, stop agreement).
#pragma once

#include "kiln/distributed/communicator.h"
#include "kiln/distributed/data_parallel.h"
#include "kiln/distributed/mpi_communicator.h"
#include "kiln/distributed/nccl_communicator.h"
