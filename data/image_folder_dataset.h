// ImageFolderDataset: torchvision's ImageFolder layout, root/<class>/<image>.{png,jpg,jpeg}, one
// sub-folder per class (sorted by name: the label is the position). Images are decoded in get()
// (libpng / libjpeg-turbo), converted to gray or RGB, resized bilinearly and normalised: the
// case where loading costs real CPU time per sample, and loader workers pay off.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "kiln/data/dataset.h"

namespace kiln {

struct ImageFolderOptions {
  // The size samples are resized to. 0 (both) takes it from the first image and then requires
  // every image to have that size: a different one is an error, never resized silently.
  std::int64_t height = 0;
  std::int64_t width = 0;
  int channels = 1;  // 1: gray, 3: RGB
  // Applied to pixel / 255: (v - mean[c]) / stddev[c]; one value or one per channel.
  std::vector<float> mean{0.0f};
  std::vector<float> stddev{1.0f};
};

class ImageFolderDataset : public Dataset {
 public:
  // Throws kiln::Error naming the folder when the root is missing or has no class folders, or a
  // class folder holds no PNG or JPEG image.
  explicit ImageFolderDataset(const std::string& root, ImageFolderOptions options = {});

  std::int64_t size() const override { return static_cast<std::int64_t>(files_.size()); }
  Shape sample_shape() const override {
    return Shape{options_.channels, options_.height, options_.width};
  }
  std::int32_t num_classes() const override { return static_cast<std::int32_t>(classes_.size()); }
  // Throws kiln::Error naming the file when it cannot be decoded.
  void get(std::int64_t index, float* x_out, TargetOut y_out) const override;
  std::string describe() const override;

  const std::vector<std::string>& class_names() const { return classes_; }
  const std::string& path(std::int64_t index) const {
    return files_[static_cast<std::size_t>(index)];
  }

 private:
  std::string root_;
  ImageFolderOptions options_;
  std::vector<std::string> classes_;
  std::vector<std::string> files_;
  std::vector<std::int32_t> labels_;
  bool resize_ = false;  // a size was given: images are resized to it
};

// Bilinear resize with pixel centres aligned (OpenCV INTER_LINEAR, PyTorch align_corners=False)
// of interleaved 8-bit (in_h, in_w, channels) to planar float (channels, out_h, out_w), then
// (v / 255 - mean[c]) / stddev[c].
void resize_normalize(const std::uint8_t* in, std::int64_t in_h, std::int64_t in_w, int channels,
                      float* out, std::int64_t out_h, std::int64_t out_w,
                      const std::vector<float>& mean, const std::vector<float>& stddev);

}  // namespace kiln
