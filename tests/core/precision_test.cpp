// The --precision setting: names, errors, and that the CPU GEMM ignores it (always fp32).
#include <gtest/gtest.h>

#include "kiln/core/ops.h"
#include "kiln/core/precision.h"
#include "tests/support/error_testing.h"
#include "tests/support/tensor_testing.h"

namespace kiln {
namespace {

TEST(MatmulPrecision, ParsesTheThreeNamesAndRejectsOthers) {
  for (MatmulPrecision p : {MatmulPrecision::fp32, MatmulPrecision::tf32, MatmulPrecision::bf16})
    EXPECT_EQ(parse_matmul_precision(matmul_precision_name(p)), p);
  EXPECT_STREQ(matmul_precision_name(MatmulPrecision::bf16), "bf16");
  const std::string message = testing::error_message([] { parse_matmul_precision("fp16"); });
  EXPECT_NE(message.find("'fp16'"), std::string::npos) << message;
  EXPECT_NE(message.find("fp32, tf32 or bf16"), std::string::npos) << message;
}

TEST(MatmulPrecision, CpuGemmIsExactFp32Either) {
  const Tensor a = testing::random_tensor(Shape{33, 65}, 1), b = testing::random_tensor(Shape{65, 17}, 2);
  EXPECT_EQ(matmul_precision(), MatmulPrecision::fp32);
  const std::vector<float> exact = matmul(a, b).to_vector<float>();
  for (MatmulPrecision p : {MatmulPrecision::tf32, MatmulPrecision::bf16}) {
    set_matmul_precision(p);
    const std::vector<float> reduced = matmul(a, b).to_vector<float>();
    set_matmul_precision(MatmulPrecision::fp32);
    EXPECT_EQ(reduced, exact) << matmul_precision_name(p);
  }
}

}  // namespace
}  // namespace kiln
