// The blocks of a GPT share one set of backward buffers (share_block_gradients): a chain of
// blocks that shares them gives the very bits of one whose blocks keep their own, with dropout at
// work, over two steps; and modules of different structure refuse to share.
#include <gtest/gtest.h>

#include <memory>
#include <vector>

#include "kiln/core/error.h"
#include "kiln/models/gpt_block.h"
#include "tests/support/tensor_testing.h"

namespace {

using kiln::GptBlock;
using kiln::Tensor;

using Blocks = std::vector<std::shared_ptr<GptBlock>>;

Blocks make_blocks(int count) {
  kiln::Generator gen(21);
  Blocks blocks;
  for (int i = 0; i < count; ++i)
    blocks.push_back(std::make_shared<GptBlock>(16, 2, 0.1f, gen, 100 + 3 * i));
  return blocks;
}

// One training step's forward and backward through the chain; returns the input's gradient.
Tensor step(const Blocks& blocks, const Tensor& x, const Tensor& dy) {
  Tensor y = x;
  for (const auto& block : blocks) y = block->forward(y);
  Tensor d = dy;
  for (auto it = blocks.rbegin(); it != blocks.rend(); ++it) d = (*it)->backward(d);
  return d.clone();
}

void expect_same_bits(const Tensor& a, const Tensor& b, const std::string& what) {
  EXPECT_EQ(a.to_vector<float>(), b.to_vector<float>()) << what;
}

TEST(GptBlockGradients, SharedBuffersGiveTheBitsOfOwnOnes) {
  const Blocks own = make_blocks(4), shared = make_blocks(4);
  kiln::share_block_gradients(shared);
  for (int s = 0; s < 2; ++s) {
    const Tensor x = kiln::testing::random_tensor({2, 9, 16}, 30 + s);
    const Tensor dy = kiln::testing::random_tensor({2, 9, 16}, 40 + s);
    expect_same_bits(step(shared, x, dy), step(own, x, dy), "the input's gradient");
    for (std::size_t b = 0; b < own.size(); ++b) {
      const auto p = own[b]->parameters(), q = shared[b]->parameters();
      ASSERT_EQ(p.size(), q.size());
      for (std::size_t i = 0; i < p.size(); ++i)
        expect_same_bits(q[i]->grad, p[i]->grad, "block " + std::to_string(b) + " " + p[i]->name);
    }
  }
}

TEST(GptBlockGradients, ModulesOfDifferentStructureRefuseToShare) {
  kiln::Generator gen(22);
  GptBlock narrow(16, 2, 0.0f, gen, 0), wide(32, 2, 0.0f, gen, 3);
  EXPECT_THROW(wide.share_gradient_buffers(narrow), kiln::Error);
}

}  // namespace
