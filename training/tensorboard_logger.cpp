// TensorBoardLogger (training/tensorboard_logger.h).
#include "kiln/training/tensorboard_logger.h"

#include "kiln/training/epoch_scalars.h"

namespace kiln {

TensorBoardLogger::TensorBoardLogger(const std::string& dir)
    : writer_(dir, "TensorBoardLogger's") {}

void TensorBoardLogger::on_epoch_end(Trainer& trainer, const EpochReport& report) {
  (void)trainer;
  writer_.add_scalars(report.epoch, epoch_scalars(report));
}

}  // namespace kiln
