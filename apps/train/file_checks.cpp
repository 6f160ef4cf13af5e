// The inputs by name: the files of the data specs (spec/data_spec.h) and --init; the comparison
// by identity is core/output_file.h's.
#include "apps/train/file_checks.h"

#include "kiln/core/error.h"
#include "kiln/core/output_file.h"
#include "kiln/spec/data_spec.h"

namespace kiln {

void check_outputs_are_no_inputs(const TrainAppOptions& o) {
  if (o.log_json.empty()) return;
  std::vector<std::string> inputs = data_spec_files(o.data);
  if (!o.test_data.empty())
    for (std::string& file : data_spec_files(o.test_data)) inputs.push_back(std::move(file));
  if (!o.init.empty()) inputs.push_back(o.init);
  check_output_is_no_input(o.log_json, "--log-json", inputs);
}

void check_file_flags_are_used(const TrainAppOptions& o) {
  KILN_CHECK(!(o.resume && !o.init.empty()),
             "--init {} with --resume: the run continues from the checkpoint's weights, so --init "
             "would be ignored; drop --init to resume, or drop --resume (and give a fresh "
             "--checkpoint folder) to start from {}",
             o.init, o.init);
}

}  // namespace kiln
