// BatchNorm2d: BatchNorm1d on the (N, C, H·W) view of its input and output gradient.
#include "kiln/layers/batch_norm2d.h"

namespace kiln {

namespace {
Shape as_channels_by_length(const Shape& s) { return Shape{s[0], s[1], s[2] * s[3]}; }
}  // namespace

std::string BatchNorm2d::describe() const {
  return fmt::format("BatchNorm2d({}, eps {}, momentum {})", features(), eps(), momentum());
}

Shape BatchNorm2d::output_shape(const Shape& input) const {
  KILN_CHECK(input.rank() == 4 && input[1] == features(),
             "{}: expected an input of shape (batch, {}, height, width), found {}", describe(),
             features(), input.str());
  return input;
}

Tensor BatchNorm2d::forward_impl(const Tensor& x) {
  return BatchNorm1d::forward_impl(x.view(as_channels_by_length(x.shape()))).view(x.shape());
}

Tensor BatchNorm2d::backward_impl(const Tensor& dy) {
  return BatchNorm1d::backward_impl(dy.view(as_channels_by_length(dy.shape()))).view(dy.shape());
}

}  // namespace kiln
