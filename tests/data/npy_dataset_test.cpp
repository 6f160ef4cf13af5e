// NpyDataset: .npy versions 1 and 2, float32/float64/uint8 features, labels from a file or a
// column, and each unsupported file a clear error naming it.
#include "kiln/data/npy_dataset.h"

#include <gtest/gtest.h>

#include <cstring>
#include <limits>

#include "tests/data/file_testing.h"

using kiln::NpyDataset;
using kiln::NpyOptions;
using kiln::testing::error_message;

namespace {

// An .npy file as NumPy writes it: magic, version, header padded so the data starts at a
// multiple of 64, then the raw elements.
template <typename T>
std::vector<std::uint8_t> npy(const std::string& descr, const std::string& shape,
                              const std::vector<T>& values, int major = 1, bool fortran = false) {
  std::string header = "{'descr': '" + descr +
                       "', 'fortran_order': " + (fortran ? "True" : "False") +
                       ", 'shape': " + shape + ", }";
  const std::size_t prefix = major == 1 ? 10 : 12;
  while ((prefix + header.size() + 1) % 64 != 0) header += ' ';
  header += '\n';
  std::vector<std::uint8_t> out{0x93, 'N', 'U', 'M', 'P', 'Y', static_cast<std::uint8_t>(major), 0};
  for (int k = 0; k < (major == 1 ? 2 : 4); ++k)
    out.push_back(static_cast<std::uint8_t>(header.size() >> (8 * k)));
  out.insert(out.end(), header.begin(), header.end());
  const auto* bytes = reinterpret_cast<const std::uint8_t*>(values.data());
  out.insert(out.end(), bytes, bytes + values.size() * sizeof(T));
  return out;
}

}  // namespace

TEST(NpyDataset, ReadsFloatFeaturesWithALabelsFile) {
  const auto dir = kiln::testing::fresh_folder("npy_f4");
  const std::string x = kiln::testing::write_bytes(
      dir / "x.npy", npy<float>("<f4", "(3, 2, 2)", {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11}));
  const std::string y =
      kiln::testing::write_bytes(dir / "y.npy", npy<std::int64_t>("<i8", "(3,)", {2, 0, 1}, 2));
  const NpyDataset data(x, NpyOptions{.labels_path = y});
  EXPECT_EQ(data.size(), 3);
  EXPECT_EQ(data.sample_shape(), (kiln::Shape{2, 2}));
  EXPECT_EQ(data.num_classes(), 3);
  std::vector<float> v(4);
  std::int32_t label;
  data.get(2, v.data(), &label);
  EXPECT_EQ(v, (std::vector<float>{8, 9, 10, 11}));
  EXPECT_EQ(label, 1);
}

TEST(NpyDataset, ReadsDoubleAndByteFeaturesWithALabelColumn) {
  const auto dir = kiln::testing::fresh_folder("npy_col");
  const std::string f8 = kiln::testing::write_bytes(
      dir / "f8.npy", npy<double>("<f8", "(2, 3)", {0.5, 1, 7, 1.5, 0, 8}));
  const NpyDataset doubles(f8, NpyOptions{.label_column = 1, .num_classes = 4});
  EXPECT_EQ(doubles.sample_shape(), (kiln::Shape{2}));
  std::vector<float> v(2);
  std::int32_t label;
  doubles.get(0, v.data(), &label);
  EXPECT_EQ(v, (std::vector<float>{0.5f, 7.0f}));
  EXPECT_EQ(label, 1);
  const std::string u1 = kiln::testing::write_bytes(
      dir / "u1.npy", npy<std::uint8_t>("|u1", "(2, 3)", {255, 0, 3, 51, 102, 9}));
  const NpyDataset bytes(u1, NpyOptions{.label_column = -1});
  EXPECT_EQ(bytes.num_classes(), 10);
  bytes.get(1, v.data(), &label);
  EXPECT_FLOAT_EQ(v[0], 0.2f);
  EXPECT_FLOAT_EQ(v[1], 0.4f);
  EXPECT_EQ(label, 9);
}

TEST(NpyDataset, UnsupportedDtypesAreNamed) {
  const auto dir = kiln::testing::fresh_folder("npy_dtype");
  const std::string c8 =
      kiln::testing::write_bytes(dir / "c.npy", npy<float>("<c8", "(1, 2)", {1, 2}));
  EXPECT_CONTAINS(error_message([&] { NpyDataset{c8}; }), c8 + ": dtype '<c8' is not supported");
  const std::string big =
      kiln::testing::write_bytes(dir / "big.npy", npy<float>(">f4", "(1, 2)", {1, 2}));
  EXPECT_CONTAINS(error_message([&] { NpyDataset{big}; }), big + ": dtype '>f4' is not supported");
  const std::string ints =
      kiln::testing::write_bytes(dir / "i4.npy", npy<std::int32_t>("<i4", "(1, 2)", {1, 2}));
  EXPECT_CONTAINS(error_message([&] { NpyDataset{ints}; }),
                  ints + ": features of dtype '<i4' are not supported");
  const std::string x =
      kiln::testing::write_bytes(dir / "x.npy", npy<float>("<f4", "(2, 2)", {1, 2, 3, 4}));
  const std::string cy =
      kiln::testing::write_bytes(dir / "cy.npy", npy<float>("<c8", "(2,)", {0, 1}));
  EXPECT_CONTAINS(error_message([&] { NpyDataset(x, NpyOptions{.labels_path = cy}); }),
                  cy + ": dtype '<c8' is not supported");
}

TEST(NpyDataset, AFloatLabelsFileHoldsRegressionTargets) {
  const auto dir = kiln::testing::fresh_folder("npy_float_targets");
  const std::string x =
      kiln::testing::write_bytes(dir / "x.npy", npy<float>("<f4", "(3, 2)", {1, 2, 3, 4, 5, 6}));
  const std::string y1 =
      kiln::testing::write_bytes(dir / "y1.npy", npy<float>("<f4", "(3,)", {0.5f, -1.25f, 7}));
  const NpyDataset one(x, NpyOptions{.labels_path = y1});
  EXPECT_FALSE(one.has_class_labels());
  EXPECT_EQ(one.target_shape(), kiln::Shape{1});
  EXPECT_EQ(one.num_classes(), 0);
  float features[2], target = 0;
  one.get(1, features, &target);
  EXPECT_EQ(target, -1.25f);
  EXPECT_EQ(features[1], 4.0f);
  std::int32_t label = 0;
  EXPECT_CONTAINS(error_message([&] { one.get(1, features, &label); }), "float targets");

  const std::string y2 = kiln::testing::write_bytes(
      dir / "y2.npy", npy<double>("<f8", "(3, 2)", {1, 2, 3, 4, 5, 6.5}));
  const NpyDataset two(x, NpyOptions{.labels_path = y2});
  EXPECT_EQ(two.target_shape(), kiln::Shape{2});
  float targets[2];
  two.get(2, features, targets);
  EXPECT_EQ(targets[0], 5.0f);
  EXPECT_EQ(targets[1], 6.5f);

  const std::string nan = kiln::testing::write_bytes(
      dir / "nan.npy", npy<float>("<f4", "(3,)", {1, std::numeric_limits<float>::quiet_NaN(), 2}));
  EXPECT_CONTAINS(error_message([&] { NpyDataset(x, NpyOptions{.labels_path = nan}); }),
                  nan + ": target 0 of sample 1 is nan");
  const std::string short_y =
      kiln::testing::write_bytes(dir / "short.npy", npy<float>("<f4", "(2,)", {1, 2}));
  EXPECT_CONTAINS(error_message([&] { NpyDataset(x, NpyOptions{.labels_path = short_y}); }),
                  "holds 3 samples but " + short_y + " holds 2 targets");
}

TEST(NpyDataset, UnsupportedShapesAndOrdersAreNamed) {
  const auto dir = kiln::testing::fresh_folder("npy_shape");
  const std::string scalar =
      kiln::testing::write_bytes(dir / "s.npy", npy<float>("<f4", "()", {1}));
  EXPECT_CONTAINS(error_message([&] { NpyDataset{scalar}; }),
                  scalar + ": features of shape () hold no samples");
  const std::string fortran =
      kiln::testing::write_bytes(dir / "f.npy", npy<float>("<f4", "(2, 2)", {1, 2, 3, 4}, 1, true));
  EXPECT_CONTAINS(error_message([&] { NpyDataset{fortran}; }),
                  fortran + ": arrays in Fortran order");
  const std::string cube =
      kiln::testing::write_bytes(dir / "c.npy", npy<float>("<f4", "(1, 2, 2)", {1, 2, 3, 4}));
  EXPECT_CONTAINS(error_message([&] { NpyDataset{cube}; }),
                  "a label column works only in a 2-D (N, F) array");
  const std::string x =
      kiln::testing::write_bytes(dir / "x.npy", npy<float>("<f4", "(2, 2)", {1, 2, 3, 4}));
  const std::string y2 =
      kiln::testing::write_bytes(dir / "y2.npy", npy<std::int32_t>("<i4", "(1, 2)", {0, 1}));
  EXPECT_CONTAINS(error_message([&] { NpyDataset(x, NpyOptions{.labels_path = y2}); }),
                  y2 + ": labels of shape (1, 2) are not supported");
  const std::string y3 =
      kiln::testing::write_bytes(dir / "y3.npy", npy<std::int32_t>("<i4", "(3,)", {0, 1, 1}));
  EXPECT_CONTAINS(error_message([&] { NpyDataset(x, NpyOptions{.labels_path = y3}); }),
                  x + " holds 2 samples but " + y3 + " holds 3 labels");
}

TEST(NpyDataset, BadFilesAndLabelsAreNamed) {
  const auto dir = kiln::testing::fresh_folder("npy_bad");
  const std::string text = kiln::testing::write_text(dir / "t.npy", "not numpy at all");
  EXPECT_CONTAINS(error_message([&] { NpyDataset{text}; }), text + " is not a NumPy .npy file");
  auto short_bytes = npy<float>("<f4", "(2, 2)", {1, 2, 3, 4});
  short_bytes.resize(short_bytes.size() - 3);
  const std::string cut = kiln::testing::write_bytes(dir / "cut.npy", short_bytes);
  EXPECT_CONTAINS(error_message([&] { NpyDataset{cut}; }),
                  cut + " is truncated: shape (2, 2) of '<f4' needs 16 bytes");
  const std::string x =
      kiln::testing::write_bytes(dir / "x.npy", npy<float>("<f4", "(2, 2)", {1, 2, 3, 4}));
  const std::string neg =
      kiln::testing::write_bytes(dir / "neg.npy", npy<std::int32_t>("<i4", "(2,)", {0, -3}));
  EXPECT_CONTAINS(error_message([&] { NpyDataset(x, NpyOptions{.labels_path = neg}); }),
                  neg + ": label -3 at index 1 is not a non-negative integer");
  const std::string big =
      kiln::testing::write_bytes(dir / "big.npy", npy<std::int32_t>("<i4", "(2,)", {12, 0}));
  EXPECT_CONTAINS(
      error_message([&] { NpyDataset(x, NpyOptions{.labels_path = big, .num_classes = 10}); }),
      big + ": labels must be in [0, 10): found 12 at index 0");
  EXPECT_CONTAINS(error_message([&] { NpyDataset((dir / "nope.npy").string()); }),
                  "cannot open .npy file");
  EXPECT_CONTAINS(error_message([&] { NpyDataset{dir.string()}; }),
                  dir.string() + " is a folder; a file was expected");
}

TEST(NpyDataset, AShapeWhoseSizePasses64BitsIsADamagedHeaderNotACrash) {
  const auto dir = kiln::testing::fresh_folder("npy_overflow");
  // 2^32 * 2^32 * 16 elements wrap to 0 in 64 bits: the truncation check must not be fooled.
  const std::string wrap = kiln::testing::write_bytes(
      dir / "wrap.npy", npy<float>("<f4", "(4294967296, 4294967296, 16)", {1, 2}));
  EXPECT_CONTAINS(
      error_message([&] { NpyDataset{wrap}; }),
      wrap + ": shape (4294967296, 4294967296, 16) of '<f4' needs more than 2^63 bytes");
  const std::string digits = kiln::testing::write_bytes(
      dir / "digits.npy", npy<float>("<f4", "(99999999999999999999, 2)", {1, 2}));
  EXPECT_CONTAINS(error_message([&] { NpyDataset{digits}; }),
                  digits + ": an extent in the .npy header's shape passes 2^63");
  const std::string huge = kiln::testing::write_bytes(
      dir / "huge.npy", npy<float>("<f4", "(1000000000000, 784)", {1, 2}));
  EXPECT_CONTAINS(error_message([&] { NpyDataset{huge}; }), huge + " is truncated");
}

TEST(NpyDataset, ZeroSizedDimensionsAreNamed) {
  const auto dir = kiln::testing::fresh_folder("npy_zero");
  const std::string none =
      kiln::testing::write_bytes(dir / "none.npy", npy<float>("<f4", "(0, 4)", {}));
  EXPECT_CONTAINS(error_message([&] { NpyDataset{none}; }),
                  none + ": features of shape (0, 4) hold no data (dimension 0 is 0)");
  const std::string empty_rows =
      kiln::testing::write_bytes(dir / "rows.npy", npy<float>("<f4", "(3, 0)", {}));
  EXPECT_CONTAINS(error_message([&] { NpyDataset{empty_rows}; }), "(dimension 1 is 0)");
}

TEST(NpyDataset, NonFiniteFeaturesAreNamedWithSampleAndFeatureAtLoad) {
  const auto dir = kiln::testing::fresh_folder("npy_nan");
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const std::string x =
      kiln::testing::write_bytes(dir / "x.npy", npy<float>("<f4", "(3, 2)", {0, 1, 2, 3, 4, nan}));
  const std::string y =
      kiln::testing::write_bytes(dir / "y.npy", npy<std::int32_t>("<i4", "(3,)", {0, 1, 0}));
  EXPECT_CONTAINS(error_message([&] { NpyDataset(x, NpyOptions{.labels_path = y}); }),
                  x + ": feature 1 of sample 2 is nan");
  // With a label column, feature indices skip it: column 2 of (2, 3) is feature 1.
  const std::string col = kiln::testing::write_bytes(
      dir / "col.npy",
      npy<double>("<f8", "(2, 3)", {1, 0, 2, 0, 1, -std::numeric_limits<double>::infinity()}));
  EXPECT_CONTAINS(error_message([&] { NpyDataset(col, NpyOptions{.label_column = 1}); }),
                  col + ": feature 1 of sample 1 is -inf");
}

TEST(NpyDataset, LabelsThatCannotBeClassIndicesAreRefused) {
  const auto dir = kiln::testing::fresh_folder("npy_classes");
  const std::string x =
      kiln::testing::write_bytes(dir / "x.npy", npy<float>("<f4", "(2, 2)", {1, 2, 3, 4}));
  const std::string y =
      kiln::testing::write_bytes(dir / "y.npy", npy<std::int32_t>("<i4", "(2,)", {2000000000, 0}));
  EXPECT_CONTAINS(error_message([&] { NpyDataset(x, NpyOptions{.labels_path = y}); }),
                  y + ": the largest label is 2000000000");
}

TEST(NpyDataset, HeaderTextInMessagesIsEscapedAndBounded) {
  using kiln::testing::is_printable_message;
  const auto dir = kiln::testing::fresh_folder("npy_hostile");
  const std::string clear =
      kiln::testing::write_bytes(dir / "clear.npy", npy<float>("\x1b[2J", "(2,)", {1, 2}));
  const std::string dtype = error_message([&] { NpyDataset{clear}; });
  EXPECT_TRUE(is_printable_message(dtype));
  EXPECT_CONTAINS(dtype, "dtype '\\x1b[2J' is not supported");
  std::string shape = "(";
  for (int d = 0; d < 30000; ++d) shape += "1, ";
  const std::string deep =
      kiln::testing::write_bytes(dir / "deep.npy", npy<float>("<f4", shape + ")", {1}, 2));
  const std::string rank = error_message([&] { NpyDataset{deep}; });
  EXPECT_TRUE(is_printable_message(rank));
  EXPECT_CONTAINS(rank, "the .npy header's shape has more than 64 dimensions");
  EXPECT_CONTAINS(rank, "bytes)");
}
