// The Trainer's checks of what it is given (training/fit_checks.h).
#include "kiln/training/fit_checks.h"

#include <algorithm>
#include <limits>
#include <set>

#include "kiln/core/checked_math.h"
#include "kiln/core/memory_budget.h"
#include "kiln/core/setting.h"
#include "kiln/data/dataset.h"
#include "kiln/models/memory_estimate.h"
#include "kiln/optim/adam.h"
#include "kiln/optim/sgd.h"
#include "kiln/training/trainer.h"

namespace kiln {

void check_optimizer_updates_model(const Module& model, const Optimizer& optimizer) {
  std::set<const Parameter*> own;
  for (const Parameter* p : model.parameters()) own.insert(p);
  for (const Parameter* p : optimizer.parameters())
    KILN_CHECK(own.count(p) == 1,
               "the optimizer ({}) updates parameter '{}', which is not one of the {} parameters "
               "of the model {}: if it belongs to a module the model runs, that module was not "
               "registered (register it in the model's constructor with "
               "register_module(\"name\", child), so that parameters(), to() and checkpoints "
               "reach it); else the optimizer was built over another model's parameters(): "
               "build it from this model's parameters()",
               optimizer.describe(), p->name, own.size(), model.describe());
}

void check_loader_has_batches(const DataLoader& train) {
  const DataLoaderOptions& o = train.options();
  KILN_CHECK(
      train.batches_per_epoch() > 0,
      "Trainer::fit: the training loader gives no batch: {} has {} samples for this rank, with "
      "{} {}{}; give it data{}",
      train.dataset().describe(), train.samples_per_epoch(), Setting::batch_size, o.batch_size,
      o.drop_last ? " and drop_last" : "",
      o.drop_last ? ", or a batch_size of at most the samples" : "");
}

void check_model_fits_data(Module& model, const DataLoader& train, const Shape& input_shape) {
  const Dataset& data = train.dataset();
  const Shape sample = input_shape.rank() > 0 ? input_shape : data.sample_shape();
  std::vector<std::int64_t> dims{1};
  dims.insert(dims.end(), sample.dims().begin(), sample.dims().end());
  const Shape out = model.output_shape(Shape(dims));  // names a layer the input does not fit
  const std::vector<std::int64_t> per_sample(out.dims().begin() + 1, out.dims().end());
  const Shape target = data.target_shape();
  if (!data.has_class_labels()) {
    const std::int64_t outputs = Shape(per_sample).numel();
    KILN_CHECK(outputs == target.numel(),
               "the model {} gives {} values per sample, but {} has float targets of shape {} "
               "({} values): the model's last layer must give {}",
               model.describe(), outputs, data.describe(), target.str(), target.numel(),
               target.numel());
    return;
  }
  const std::int32_t classes = data.num_classes();
  // (classes) for one label per sample; (T, classes) for a label per position.
  std::vector<std::int64_t> wanted(target.dims().begin(), target.dims().end());
  const bool same_positions = per_sample.size() == wanted.size() + 1 &&
                              std::equal(wanted.begin(), wanted.end(), per_sample.begin());
  wanted.push_back(classes);
  KILN_CHECK(same_positions && per_sample.back() >= classes,
             "the model {} gives outputs of shape {} per sample, but {} has {}{} of {} classes: "
             "it takes a model whose output per sample is {}{}",
             model.describe(), Shape(per_sample).str(), data.describe(),
             target.rank() == 0 ? "a class label per sample" : "a label per position, ",
             target.rank() == 0 ? std::string() : target.str(), classes, Shape(wanted).str(),
             target.rank() == 0 ? ""
                                : " (a sequence model such as a GPT over windows of these "
                                  "positions; an MLP gives one output vector per sample)");
}

int optimizer_state_to_allocate(const Optimizer& optimizer) {
  if (!optimizer.state().empty()) return 0;  // allocated at an earlier step or load_state
  if (dynamic_cast<const Adam*>(&optimizer) != nullptr) return 2;  // AdamW is an Adam
  if (const auto* sgd = dynamic_cast<const Sgd*>(&optimizer))
    return sgd->options().momentum > 0.0f ? 1 : 0;
  return 0;
}

void check_training_fits_memory(Module& model, const Optimizer& optimizer, const DataLoader& train,
                                const Shape& input_shape, Device device) {
  const Shape sample = input_shape.rank() > 0 ? input_shape : train.dataset().sample_shape();
  std::vector<std::int64_t> dims{
      std::max<std::int64_t>(1, std::min(train.options().batch_size, train.samples_per_epoch()))};
  dims.insert(dims.end(), sample.dims().begin(), sample.dims().end());
  MemoryEstimate e = estimate_training_memory(model, Shape(std::move(dims)), 0);
  std::int64_t state = 0;
  for (const Parameter* p : optimizer.parameters())
    state = saturating_add(state, p->value.numel() * 4);
  e.optimizer_state = checked_mul(state, optimizer_state_to_allocate(optimizer))
                          .value_or(std::numeric_limits<std::int64_t>::max());
  check_memory_fits(e, saturating_add(e.optimizer_state, e.activations), available_memory(device),
                    device, "the model " + model.describe(),
                    fmt::format("use a smaller model, or a smaller {}", Setting::batch_size));
}

void check_resumable(const TrainerOptions& o, const Module& model, const TrainingState& saved) {
  std::vector<std::string> differences;
  auto compare = [&](Setting name, const std::string& recorded, const std::string& now) {
    if (!recorded.empty() && !now.empty() && recorded != now)
      differences.push_back(fmt::format("{} {} (this run: {})", name, recorded, now));
  };
  if (o.run.model.empty())
    compare(Setting::model_structure, saved.model_structure, describe_structure(model));
  if (saved.legacy_settings.empty() && saved.run == RunDescription{}) {
    const RunDescription& run = o.run;
    compare(Setting::run_batch_size, std::to_string(saved.batch_size),
            run.batch_size > 0 ? std::to_string(run.batch_size) : "");
    compare(Setting::run_data, saved.data, run.data);
    compare(Setting::run_model, saved.model, run.model);
    compare(Setting::run_optimizer, saved.optimizer, run.optimizer);
  }
  const std::vector<RunField> now = description_fields(o.run), then = description_fields(saved.run);
  for (std::size_t i = 0; i < now.size(); ++i)
    if (then[i].value && now[i].value && *then[i].value != *now[i].value)
      differences.push_back(
          fmt::format("{} {} (this run: {})", now[i].setting, *then[i].value, *now[i].value));
  if (saved.vocabulary && o.vocabulary && *saved.vocabulary != *o.vocabulary)
    differences.push_back(vocabulary_difference(*saved.vocabulary, *o.vocabulary));
  for (const auto& [name, value] : o.legacy_settings) {
    const auto it = saved.legacy_settings.find(name);
    if (it != saved.legacy_settings.end() && it->second != value)
      differences.push_back(fmt::format("{} {} (this run: {})", name, it->second, value));
  }
  KILN_CHECK(differences.empty(),
             "the checkpoint in '{}' was made with {}; resume with the checkpoint's settings, or "
             "start fresh in another {} folder",
             o.checkpoint_dir, fmt::join(differences, ", "), Setting::checkpoint_dir);
}

}  // namespace kiln
