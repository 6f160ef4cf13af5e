// ParameterExtension: state a feature keeps beside a parameter's value without a field of its own
// in Parameter (the bf16 copy that bf16 matrix products read: layers/bf16_shadow.h). Whatever
// writes a value other than an update that keeps the extensions current (moving, loading,
// broadcasting) calls value_changed, and each drops what mirrored the old value.
#pragma once

#include <memory>
#include <vector>

namespace kiln {

class ParameterExtension {
 public:
  virtual ~ParameterExtension() = default;
  // The parameter's value was replaced or overwritten.
  virtual void value_changed() = 0;
};

// A parameter holds at most one extension of each type, made at its first use and kept for the
// parameter's life, so its address stays valid for lists built once (an optimizer's).
class ParameterExtensions {
 public:
  // The extension of type T, made (default-constructed) when the parameter has none yet.
  template <class T> T& get() {
    for (const auto& extension : items_)
      if (auto* found = dynamic_cast<T*>(extension.get())) return *found;
    items_.push_back(std::make_unique<T>());
    return static_cast<T&>(*items_.back());
  }
  void value_changed() {
    for (const auto& extension : items_) extension->value_changed();
  }

 private:
  std::vector<std::unique_ptr<ParameterExtension>> items_;
};

}  // namespace kiln
