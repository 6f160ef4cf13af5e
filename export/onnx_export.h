// ONNX export: writes a kiln model as an ONNX file that ONNX Runtime, TensorRT and OpenVINO load.
// The model is exported as in eval mode: BatchNorm with its running statistics, Dropout as the
// identity. Built only with libonnx-dev (export/CMakeLists.txt); the target is kiln::onnx.
#pragma once

#include <string>

#include "kiln/core/shape.h"

namespace kiln {

class Module;

// The graph uses the default ONNX domain at this opset (the highest that Debian's libonnx 1.12
// knows); its input "input" is (batch, sample shape) and its output "output" (batch, ...) with the
// batch dimension dynamic ("batch"); the weights are initializers named as in the model's
// parameters() and buffers() ("layers.0.weight"), so as in its safetensors files.
inline constexpr int kOnnxOpset = 17;

// batch_input: a batch's shape as the model takes it, batch first as every shape argument of
// kiln's API (Sequential::summary, estimate_training_memory): (1, 784) for an MLP, (1, 1, 28, 28)
// for LeNet-5; the batch given is an example, the graph's is dynamic. Walks the model (Sequential,
// Residual and the layers: Linear, the activations, Conv2d, MaxPool2d, AvgPool2d, BatchNorm1d/2d,
// LayerNorm, Dropout, Flatten), checks the graph with ONNX's checker and its strict shape
// inference, and writes it to `path` (opened through core/output_file.h). Throws kiln::Error naming
// the layer (its path in the model and its type) when one cannot be exported, and when the model
// does not take `input`.
void export_onnx(const Module& model, const Shape& batch_input, const std::string& path);

}  // namespace kiln
