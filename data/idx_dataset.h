// IdxDataset: images and labels in the IDX format of MNIST and Fashion-MNIST, plain or gzipped,
// read whole into memory at construction (Fashion-MNIST train is 47 MB of bytes). Pixels are
// served as floats in [0, 1] (byte / 255); normalise with a transform. fashion_mnist() finds the
// files of Debian's dataset-fashion-mnist package, or in a folder given.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "kiln/data/dataset.h"

namespace kiln {

class IdxDataset : public Dataset {
 public:
  // images: unsigned-byte IDX with 3 dimensions (N, rows, cols); labels: unsigned-byte IDX with
  // 1 dimension (N). Throws kiln::Error naming the file on a missing file, a wrong magic number,
  // a truncated file, counts that differ, or a label outside [0, num_classes).
  IdxDataset(const std::string& images_path, const std::string& labels_path,
             std::int32_t num_classes = 10, std::string name = "IDX");

  std::int64_t size() const override { return count_; }
  Shape sample_shape() const override { return Shape{1, rows_, cols_}; }
  std::int32_t num_classes() const override { return num_classes_; }
  void get(std::int64_t index, float* x_out, TargetOut y_out) const override;
  std::string describe() const override;

  const std::string& images_path() const { return images_path_; }
  const std::string& labels_path() const { return labels_path_; }
  // The raw bytes of image `index` (rows * cols) and its label, for exporters.
  const std::uint8_t* image_bytes(std::int64_t index) const;
  std::int32_t label(std::int64_t index) const;

 private:
  std::string images_path_, labels_path_, name_;
  std::int32_t num_classes_;
  std::int64_t count_ = 0, rows_ = 0, cols_ = 0;
  std::vector<std::uint8_t> pixels_;  // count * rows * cols
  std::vector<std::uint8_t> labels_;  // count
};

enum class Split : unsigned char { train, test };
std::string split_name(Split split);  // "train" or "test"
// Parses "train" or "test" (also "t10k"); throws kiln::Error naming the text otherwise.
Split parse_split(const std::string& text);

// Where Debian's dataset-fashion-mnist package puts the files.
inline constexpr const char* kFashionMnistFolder = "/usr/share/datasets/fashion-mnist";

// Fashion-MNIST from `folder` (empty: kFashionMnistFolder), finding
// {train,t10k}-{images-idx3,labels-idx1}-ubyte, plain or with .gz. Throws kiln::Error naming the
// file looked for and saying to install Debian's dataset-fashion-mnist or pass a folder.
std::shared_ptr<IdxDataset> fashion_mnist(Split split, const std::string& folder = "");
// The ten class names, label order ("T-shirt/top", "Trouser", ..., "Ankle boot").
const std::vector<std::string>& fashion_mnist_class_names();

}  // namespace kiln
