// CsvDataset: numeric tables, one sample per row, read whole into memory at construction. One
// column (by header name or by index) holds the target: an integer class label, or with
// float_target a float value (regression, target shape (1)); every other column is a feature. A
// header row is detected: it is there when the first row has a cell that is not a number.
// Rows are numbered as editors number lines (from 1), columns from 1, in every error message.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "kiln/data/dataset.h"

namespace kiln {

struct CsvOptions {
  // The label column by header name; when empty, label_index is used.
  std::string label_column;
  // The label column by 0-based index; negative counts from the end (-1 is the last column).
  int label_index = 0;
  char delimiter = ',';
  // The label column holds float targets (regression) rather than class labels.
  bool float_target = false;
  // Labels must be in [0, num_classes); 0 means the largest label + 1. Class labels only.
  std::int32_t num_classes = 0;
  // The shape of a sample's features, e.g. (1, 28, 28); empty: (number of feature columns).
  Shape sample_shape;
};

class CsvDataset : public Dataset {
 public:
  // Throws kiln::Error naming the file and the row and column of a non-numeric cell, a ragged
  // row, a label that is not a non-negative integer (or is out of range), or an unknown column.
  explicit CsvDataset(const std::string& path, CsvOptions options = {});

  std::int64_t size() const override { return rows_; }
  Shape sample_shape() const override { return shape_; }
  std::int32_t num_classes() const override { return num_classes_; }
  bool has_class_labels() const override { return !float_target_; }
  Shape target_shape() const override { return float_target_ ? Shape{1} : Shape{}; }
  void get(std::int64_t index, float* x_out, TargetOut y_out) const override;
  std::string describe() const override;

  bool has_header() const { return !column_names_.empty(); }
  const std::vector<std::string>& column_names() const { return column_names_; }
  int label_column() const { return label_column_; }  // 0-based

 private:
  std::string path_;
  std::vector<std::string> column_names_;  // empty without a header
  int label_column_ = 0;
  std::int64_t features_ = 0;
  Shape shape_;
  std::int32_t num_classes_ = 0;
  bool float_target_ = false;
  std::int64_t rows_ = 0;
  std::vector<float> values_;         // (rows, features)
  std::vector<std::int32_t> labels_;  // class labels, or
  std::vector<float> targets_;        // float targets
};

}  // namespace kiln
