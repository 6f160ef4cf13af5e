// The --precision setting: names, errors, and that the CPU GEMM ignores it (always fp32).
#include <gtest/gtest.h>

#include "kiln/core/ops.h"
#include "kiln/core/precision.h"
#include "tests/support/error_testing.h"
#include "tests/support/tensor_testing.h"

namespace kiln {
namespace {

TEST(MatmulPrecision, ParsesTheTwoNamesAndRejectsOthers) {
  EXPECT_EQ(parse_matmul_precision("fp32"), MatmulPrecision::fp32);
  EXPECT_EQ(parse_matmul_precision("tf32"), MatmulPrecision::tf32);
  EXPECT_STREQ(matmul_precision_name(MatmulPrecision::tf32), "tf32");
  const std::string message = testing::error_message([] { parse_matmul_precision("fp16"); });
  EXPECT_NE(message.find("'fp16'"), std::string::npos) << message;
  EXPECT_NE(message.find("fp32 or tf32"), std::string::npos) << message;
}

TEST(MatmulPrecision, CpuGemmIsExactFp32Either) {
  const Tensor a = testing::random_tensor(Shape{33, 65}, 1), b = testing::random_tensor(Shape{65, 17}, 2);
  EXPECT_EQ(matmul_precision(), MatmulPrecision::fp32);
  const std::vector<float> exact = matmul(a, b).to_vector<float>();
  set_matmul_precision(MatmulPrecision::tf32);
  const std::vector<float> with_tf32 = matmul(a, b).to_vector<float>();
  set_matmul_precision(MatmulPrecision::fp32);
  EXPECT_EQ(with_tf32, exact);
}

}  // namespace
}  // namespace kiln
