// TensorBoardLogger (training/tensorboard_logger.h): histograms read each tensor to the host, which
// is why they come every N epochs rather than every one by default.
#include "kiln/training/tensorboard_logger.h"

#include "kiln/core/error.h"
#include "kiln/layers/module.h"
#include "kiln/report/epoch_scalars.h"

namespace kiln {

TensorBoardLogger::TensorBoardLogger(const std::string& dir, TensorBoardLoggerOptions options)
    : writer_(dir, fmt::format("{}", Setting::tensorboard)), options_(options) {
  KILN_CHECK(options_.histogram_every >= 0, "{} must be >= 0 (0: no histograms), found {}",
             Setting::tensorboard_histograms, options_.histogram_every);
  KILN_CHECK(options_.histogram_every == 0 || options_.model != nullptr,
             "{} = {} needs TensorBoardLoggerOptions::model", Setting::tensorboard_histograms,
             options_.histogram_every);
}

void TensorBoardLogger::on_epoch_end(Trainer& trainer, const EpochReport& report) {
  (void)trainer;
  writer_.add_scalars(report.epoch, epoch_scalars(report));
  if (options_.histogram_every == 0 || report.epoch % options_.histogram_every != 0) return;
  std::vector<Histogram> histograms;
  for (const Parameter* p : options_.model->parameters()) {
    histograms.push_back({"weights/" + p->name, p->value.to_vector<float>()});
    if (p->grad.defined())
      histograms.push_back({"gradients/" + p->name, p->grad.to_vector<float>()});
  }
  writer_.add_histograms(report.epoch, histograms);
}

}  // namespace kiln
