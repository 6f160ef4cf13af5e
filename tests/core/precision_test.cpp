// The --precision setting: names, errors, and what the CPU GEMM does with it: tf32 is a GPU format
// (the CPU stays exact fp32), bf16 rounds the inputs to bfloat16 and multiplies in fp32.
#include <gtest/gtest.h>

#include "kiln/core/cpu/bf16.h"
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

TEST(MatmulPrecision, CpuGemmIgnoresTf32AndRoundsBf16Inputs) {
  const Tensor a = testing::random_tensor(Shape{33, 65}, 1),
               b = testing::random_tensor(Shape{65, 17}, 2);
  EXPECT_EQ(matmul_precision(), MatmulPrecision::fp32);
  const std::vector<float> exact = matmul(a, b).to_vector<float>();
  set_matmul_precision(MatmulPrecision::tf32);
  const std::vector<float> tf32 = matmul(a, b).to_vector<float>();
  set_matmul_precision(MatmulPrecision::bf16);
  const Tensor bf16 = matmul(a, b);
  set_matmul_precision(MatmulPrecision::fp32);
  EXPECT_EQ(tf32, exact);
  // bf16: the fp32 product of the inputs rounded to bf16 (up to the order of fp32 sums).
  auto rounded = [](const Tensor& t) {
    std::vector<float> v = t.to_vector<float>();
    for (float& x : v) x = cpu::round_to_bf16(x);
    return Tensor::from_vector(v, t.shape());
  };
  EXPECT_TRUE(testing::all_close(bf16, matmul(rounded(a), rounded(b)), 1e-5f, 1e-5f));
  EXPECT_NE(bf16.to_vector<float>(), exact);
}

}  // namespace
}  // namespace kiln
