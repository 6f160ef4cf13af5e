// A folder kiln writes its outputs into (TensorBoard event files, the run report): created when
// missing, refused when the path is a file.
#pragma once

#include <string>
#include <string_view>

namespace kiln {

// Creates `dir` and its parents if missing. Throws kiln::Error naming `what`
// ("TensorBoardLogger's") and the path when it is a file, or cannot be created.
void create_output_folder(const std::string& dir, std::string_view what);

}  // namespace kiln
