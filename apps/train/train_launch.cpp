// train(): how a run is laid out. Alone (one process, one device); as one rank of an mpirun or
// srun job (MPI on CPUs; NCCL on the GPU the host-local rank picks, bootstrapped over MPI); or as
// one replica thread per GPU of --gpus in this process (NCCL from ncclCommInitAll).
#include <atomic>
#include <exception>
#include <memory>
#include <optional>
#include <thread>

#include "apps/train/flag_words.h"
#include "apps/train/train_options.h"
#include "kiln/core/device.h"
#include "kiln/core/error.h"
#include "kiln/distributed/mpi_communicator.h"
#include "kiln/distributed/nccl_communicator.h"

namespace kiln {

namespace {

TrainResult train_on_local_gpus(const TrainAppOptions& o, std::ostream& out,
                                const std::atomic<bool>* stop, CommunicatorOptions comm_options) {
  std::vector<std::unique_ptr<Communicator>> comms = make_nccl_communicators(o.gpus, comm_options);
  const std::size_t n = comms.size();
  std::vector<TrainResult> results(n);
  std::vector<std::exception_ptr> errors(n);
  std::atomic<int> first_failure{-1};
  std::vector<std::thread> replicas;
  for (std::size_t i = 0; i < n; ++i) {
    replicas.emplace_back([&, i] {
      try {
        TrainAppOptions mine = o;
        mine.device = Device::cuda(o.gpus[i]).str();
        results[i] = train_replica(mine, out, stop, *comms[i]);
      } catch (...) {
        errors[i] = std::current_exception();
        int none = -1;
        first_failure.compare_exchange_strong(none, static_cast<int>(i));
        comms[i]->abort();  // the other replicas would wait for this one forever
      }
    });
  }
  for (auto& t : replicas) t.join();
  comms.clear();
  // The first failure is the cause; the others' errors only say that they were aborted.
  if (first_failure >= 0)
    std::rethrow_exception(errors[static_cast<std::size_t>(first_failure.load())]);
  return results[0];
}

TrainResult launch_run(const TrainAppOptions& o, std::ostream& out, const std::atomic<bool>* stop) {
  KILN_CHECK(o.distributed == "auto" || o.distributed == "none" || o.distributed == "mpi",
             "--distributed must be auto, none or mpi, found '{}'", o.distributed);
  const CommunicatorOptions comm_options{o.dist_timeout_s, &train_flag_words()};
  const std::optional<MpiLaunch> launch = mpi_launch_from_environment();
  const bool use_mpi = o.distributed == "mpi" || (o.distributed == "auto" && launch.has_value());
  if (!o.gpus.empty()) {
    KILN_CHECK(
        !use_mpi || !launch || launch->world_size == 1,
        "--gpus drives several GPUs from one process; under mpirun start one process per GPU with "
        "--device=gpu instead");
    return train_on_local_gpus(o, out, stop, comm_options);
  }
  const Device device = Device::parse(o.device);
  if (!use_mpi) return train_replica(o, out, stop, *make_single_process_communicator(device));

  MpiCommunicator mpi(comm_options);
  if (device.is_cpu()) return train_replica(o, out, stop, mpi);
  // One GPU per process: the host-local rank picks it among those this process sees (the only
  // one, where the launcher gave each rank its own), unless --device=gpu:N names one.
  const bool named = o.device.find(':') != std::string::npos;
  const int local_rank = launch ? launch->local_rank : 0;
  const int visible = cuda_device_count();  // 0: the device checks below say why
  const int gpu = named         ? device.index()
                  : visible > 0 ? gpu_for_local_rank(local_rank, visible)
                                : local_rank;
  const std::unique_ptr<Communicator> nccl = make_nccl_communicator(gpu, mpi, comm_options);
  return train_replica(o, out, stop, *nccl);
}

}  // namespace

TrainResult train(const TrainAppOptions& o, std::ostream& out, const std::atomic<bool>* stop) {
  try {
    return launch_run(o, out, stop);
  } catch (...) {
    rethrow_in_flag_words();
  }
}

}  // namespace kiln
