// Operand checks shared by every op.
#include "kiln/core/operand_checks.h"

namespace kiln::detail {

void check_operands(const char* op, std::initializer_list<Operand> operands, DType dtype) {
  for (const auto& [name, t] : operands) {
    KILN_CHECK(t->defined(), "{}: {} is an undefined tensor", op, name);
    KILN_CHECK(t->dtype() == dtype, "{}: {} must be {}, found {}", op, name, dtype_name(dtype),
               t->str());
  }
}

void check_same_device(const char* op, std::initializer_list<Operand> operands) {
  const auto& [first_name, first] = *operands.begin();
  for (const auto& [name, t] : operands)
    KILN_CHECK(t->device() == first->device(),
               "{}: {} is on {} but {} is on {}; move them to one device with .to()", op,
               first_name, first->device().str(), name, t->device().str());
}

void check_same_shape(const char* op, std::initializer_list<Operand> operands) {
  const auto& [first_name, first] = *operands.begin();
  for (const auto& [name, t] : operands)
    KILN_CHECK(t->shape() == first->shape(), "{}: {} has shape {} but {} has shape {}", op,
               first_name, first->shape().str(), name, t->shape().str());
}

void check_shape(const char* op, Operand operand, const Shape& expected) {
  KILN_CHECK(operand.second->shape() == expected, "{}: {} must have shape {}, found {}", op,
             operand.first, expected.str(), operand.second->shape().str());
}

void check_alike(const char* op, std::initializer_list<Operand> operands, DType dtype) {
  check_operands(op, operands, dtype);
  check_same_device(op, operands);
  check_same_shape(op, operands);
}

}  // namespace kiln::detail
