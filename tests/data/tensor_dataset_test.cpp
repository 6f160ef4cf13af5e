// TensorDataset: samples from vectors and from tensors, class labels and float targets, and one
// clear message for data that cannot be samples.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "kiln/data/tensor_dataset.h"
#include "tests/support/error_testing.h"

using kiln::Shape;
using kiln::Tensor;
using kiln::TensorDataset;

TEST(TensorDataset, GivesEachSampleAndLabelFromVectors) {
  const TensorDataset data({1, 2, 3, 4, 5, 6}, Shape{2}, std::vector<std::int32_t>{0, 2, 1});
  EXPECT_EQ(data.size(), 3);
  EXPECT_EQ(data.sample_shape(), Shape{2});
  EXPECT_TRUE(data.has_class_labels());
  EXPECT_EQ(data.num_classes(), 3);  // from the largest label
  float x[2];
  std::int32_t label = -1;
  data.get(1, x, &label);
  EXPECT_EQ(x[0], 3.0f);
  EXPECT_EQ(x[1], 4.0f);
  EXPECT_EQ(label, 2);
  EXPECT_EQ(TensorDataset({1, 2}, Shape{1}, std::vector<std::int32_t>{0, 1}, 10).num_classes(), 10);
}

TEST(TensorDataset, GivesFloatTargetsFromTensors) {
  const Tensor features =
      Tensor::from_vector(std::vector<float>{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12}, {3, 2, 2});
  const Tensor targets =
      Tensor::from_vector(std::vector<float>{0.5f, 1.5f, 2.5f, 3.5f, 4.5f, 5.5f}, {3, 2});
  const TensorDataset data(features, targets);
  EXPECT_EQ(data.size(), 3);
  EXPECT_EQ(data.sample_shape(), (Shape{2, 2}));
  EXPECT_FALSE(data.has_class_labels());
  EXPECT_EQ(data.target_shape(), Shape{2});
  EXPECT_EQ(data.num_classes(), 0);
  float x[4], y[2];
  data.get(2, x, y);
  EXPECT_EQ(x[0], 9.0f);
  EXPECT_EQ(x[3], 12.0f);
  EXPECT_EQ(y[0], 4.5f);
  EXPECT_EQ(y[1], 5.5f);
  const TensorDataset single(Tensor::from_vector(std::vector<float>{1, 2, 3}, {3, 1}),
                             Tensor::from_vector(std::vector<float>{7.0f, 8.0f, 9.0f}, {3}));
  EXPECT_EQ(single.target_shape(), Shape{1});
}

TEST(TensorDataset, RefusesDataThatCannotBeSamples) {
  using kiln::testing::error_message;
  EXPECT_NE(error_message([] {
              TensorDataset({1, 2, 3}, Shape{2}, std::vector<std::int32_t>{0, 1});
            }).find("3 feature values for 2 samples of shape (2,)"),
            std::string::npos);
  EXPECT_NE(error_message([] {
              TensorDataset({1, 2}, Shape{1}, std::vector<std::int32_t>{0, -1});
            }).find("found -1 at sample 1"),
            std::string::npos);
  EXPECT_NE(error_message([] {
              TensorDataset({1, 2}, Shape{1}, std::vector<std::int32_t>{0, 3}, 3);
            }).find("labels must be in [0, 3): found 3 at sample 1"),
            std::string::npos);
  EXPECT_NE(error_message([] {
              TensorDataset({1, NAN}, Shape{1}, std::vector<std::int32_t>{0, 1});
            }).find("sample 1 has a nan feature value"),
            std::string::npos);
  EXPECT_NE(error_message([] {
              TensorDataset(Tensor::from_vector(std::vector<float>{1, 2, 3}, {3, 1}),
                            Tensor::from_vector(std::vector<float>{1.0f, 2.0f}, {2}));
            }).find("3 samples of features but 2 targets"),
            std::string::npos);
  EXPECT_THROW(TensorDataset({}, Shape{1}, std::vector<std::int32_t>{}), kiln::Error);
  float x[1];
  std::int32_t label;
  EXPECT_THROW(TensorDataset({1}, Shape{1}, std::vector<std::int32_t>{0}).get(1, x, &label),
               kiln::Error);
}
