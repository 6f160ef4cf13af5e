// kiln_compare_weights A B TOLERANCE: whether two weight files (safetensors, as checkpoints hold
// them) carry the same tensors with every element within TOLERANCE * max(1, |a|) of the other's;
// TOLERANCE 0 asks for the same bits. Prints each tensor's largest difference. Exit status 0:
// within; 1: not; 2: the files could not be compared. Used by tests/hosts/two_hosts_test.sh.
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "kiln/core/error.h"
#include "kiln/io/safetensors.h"

int main(int argc, char** argv) {
  if (argc != 4) {
    std::fprintf(stderr, "usage: kiln_compare_weights A.safetensors B.safetensors TOLERANCE\n");
    return 2;
  }
  try {
    const double tolerance = std::stod(argv[3]);
    const auto a = kiln::load_safetensors(argv[1]);
    const auto b = kiln::load_safetensors(argv[2]);
    bool within = a.tensors.size() == b.tensors.size();
    if (!within)
      std::printf("different tensor counts: %zu and %zu\n", a.tensors.size(), b.tensors.size());
    for (const auto& [name, x] : a.tensors) {
      const auto other = b.tensors.find(name);
      if (other == b.tensors.end() || other->second.shape() != x.shape()) {
        std::printf("%s: missing from %s or of another shape\n", name.c_str(), argv[2]);
        within = false;
        continue;
      }
      const auto xs = x.to_vector<float>(), ys = other->second.to_vector<float>();
      double largest = 0;
      std::size_t differ = 0, over = 0;
      for (std::size_t i = 0; i < xs.size(); ++i) {
        if (std::bit_cast<std::uint32_t>(xs[i]) == std::bit_cast<std::uint32_t>(ys[i])) continue;
        ++differ;
        const double d = std::fabs(static_cast<double>(xs[i]) - ys[i]);
        largest = std::isnan(d) ? INFINITY : std::fmax(largest, d);
        if (!(d <= tolerance * std::fmax(1.0, std::fabs(xs[i])))) ++over;
      }
      std::printf("%-24s %9zu elements, %9zu differ, largest difference %.3g\n", name.c_str(),
                  xs.size(), differ, largest);
      if (over > 0 || (tolerance == 0 && differ > 0)) within = false;
    }
    std::printf("%s (tolerance %g)\n", within ? "within" : "NOT within", tolerance);
    return within ? 0 : 1;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "kiln_compare_weights: %s\n", e.what());
    return 2;
  }
}
