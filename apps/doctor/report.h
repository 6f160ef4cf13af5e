// How kiln-doctor prints: the judgements one per line, and a comparison as its reasons.
#pragma once

#include <string>
#include <vector>

#include "apps/doctor/judgement.h"

namespace kiln::doctor {

std::string report_text(const MachineFigures& figures, const std::vector<Judgement>& judgements);
std::string comparison_text(const Comparison& comparison, const std::string& a_name,
                            const std::string& b_name);

}  // namespace kiln::doctor
