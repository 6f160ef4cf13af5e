// Embedding over the embedding ops.
#include "kiln/layers/embedding.h"

#include "kiln/core/ops.h"

namespace kiln {

Embedding::Embedding(std::int64_t num, std::int64_t dim, Generator& gen) : num_(num), dim_(dim) {
  KILN_CHECK(num_ > 0 && dim_ > 0, "Embedding needs positive sizes, found num {} and dim {}", num_,
             dim_);
  Tensor w = Tensor::empty({num_, dim_});
  normal_(w, 0.0f, 1.0f, gen);
  weight_ = &register_parameter("weight", std::move(w));
}

std::string Embedding::describe() const { return fmt::format("Embedding({}, {})", num_, dim_); }

Shape Embedding::output_shape(const Shape& input) const {
  std::vector<std::int64_t> dims = input.dims();
  dims.push_back(dim_);
  return Shape(std::move(dims));
}

Tensor Embedding::forward_impl(const Tensor& x) {
  Tensor& y = reuse(y_, output_shape(x.shape()));
  embedding_forward(x, weight_->value, y);
  ids_ = x;
  return y;
}

Tensor Embedding::backward_impl(const Tensor& dy) {
  KILN_CHECK(ids_.defined(), "{}: backward needs a forward first", describe());
  embedding_backward(ids_, dy, weight_->grad);
  if (!input_grad_wanted()) return Tensor();
  Tensor& dx = reuse(dx_, ids_.shape());
  fill(dx, 0.0f);
  return dx;
}

}  // namespace kiln
