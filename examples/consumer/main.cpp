// consumer: the smallest program over an installed kiln. It multiplies two small matrices and
// takes a softmax on the CPU, checks both against values worked out by hand, and exits non-zero
// if either is wrong.
#include <cmath>
#include <cstdio>
#include <vector>

#include <kiln/kiln.h>

int main(int, char** argv) {
  kiln::prefer_passive_openmp_waiting(argv);  // first: spinning OpenMP threads slow a shared CPU
  try {
    // a: (2, 3), b: (3, 2) -> c = a @ b: (2, 2)
    const kiln::Tensor a = kiln::Tensor::from_vector(std::vector<float>{1, 2, 3, 4, 5, 6}, {2, 3});
    const kiln::Tensor b =
        kiln::Tensor::from_vector(std::vector<float>{7, 8, 9, 10, 11, 12}, {3, 2});
    const kiln::Tensor c = kiln::matmul(a, b);
    const std::vector<float> got = c.to_vector<float>();
    const std::vector<float> want = {58, 64, 139, 154};
    std::printf("consumer: matmul %s @ %s -> %s = [%g %g; %g %g]\n", a.str().c_str(),
                b.str().c_str(), c.str().c_str(), got[0], got[1], got[2], got[3]);
    for (std::size_t i = 0; i < want.size(); ++i) {
      if (std::fabs(got[i] - want[i]) > 1e-4f) {
        std::fprintf(stderr, "consumer: matmul element %zu is %g, expected %g\n", i, got[i],
                     want[i]);
        return 1;
      }
    }

    // Softmax of each row of c: the second row is (139, 154), so p1 = 1 / (1 + e^-15).
    kiln::Tensor p = kiln::Tensor::empty(c.shape());
    kiln::softmax(c, p);
    const std::vector<float> probs = p.to_vector<float>();
    const float expected = 1.0f / (1.0f + std::exp(-15.0f));
    std::printf("consumer: softmax row 1 = [%.8f %.8f], expected p1 = %.8f\n", probs[2], probs[3],
                expected);
    if (std::fabs(probs[3] - expected) > 1e-6f || std::fabs(probs[2] + probs[3] - 1.0f) > 1e-6f) {
      std::fprintf(stderr, "consumer: softmax is wrong\n");
      return 1;
    }
    std::printf("consumer: ok (kiln on %s)\n", kiln::Device::cpu().str().c_str());
    return 0;
  } catch (const kiln::Error& e) {
    std::fprintf(stderr, "consumer: %s\n", e.what());
    return 1;
  }
}
