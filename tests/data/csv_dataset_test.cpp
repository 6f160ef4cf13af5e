// CsvDataset: headers detected, label column by name or index, and each bad table a clear error
// naming the file, row and column.
#include "kiln/data/csv_dataset.h"

#include <gtest/gtest.h>

#include "tests/data/file_testing.h"

using kiln::CsvDataset;
using kiln::CsvOptions;
using kiln::testing::error_message;
using kiln::testing::write_text;

TEST(CsvDataset, DetectsAHeaderAndFindsTheLabelByName) {
  const auto dir = kiln::testing::fresh_folder("csv_header");
  const std::string path =
      write_text(dir / "t.csv", "a, label ,b\n1.5,2,-3\n\n4,0,\"5e-1\"\r\n+7,1,8\n");
  const CsvDataset data(path, CsvOptions{.label_column = "label"});
  EXPECT_TRUE(data.has_header());
  EXPECT_EQ(data.column_names(), (std::vector<std::string>{"a", "label", "b"}));
  EXPECT_EQ(data.size(), 3);
  EXPECT_EQ(data.sample_shape(), (kiln::Shape{2}));
  EXPECT_EQ(data.num_classes(), 3);
  std::vector<float> x(2);
  std::int32_t y;
  data.get(1, x.data(), &y);
  EXPECT_EQ(x, (std::vector<float>{4.0f, 0.5f}));
  EXPECT_EQ(y, 0);
  data.get(2, x.data(), &y);
  EXPECT_EQ(x, (std::vector<float>{7.0f, 8.0f}));
  EXPECT_EQ(y, 1);
  EXPECT_CONTAINS(data.describe(), "(3 x (2,), 3 classes)");
}

TEST(CsvDataset, ReadsATableWithoutHeaderByLabelIndex) {
  const auto dir = kiln::testing::fresh_folder("csv_plain");
  const std::string path = write_text(dir / "t.csv", "1;2;3;4;5\n6;7;8;9;0\n");
  const CsvDataset data(path, CsvOptions{.label_index = -1,
                                         .delimiter = ';',
                                         .num_classes = 10,
                                         .sample_shape = kiln::Shape{1, 2, 2}});
  EXPECT_FALSE(data.has_header());
  EXPECT_EQ(data.label_column(), 4);
  EXPECT_EQ(data.sample_shape(), (kiln::Shape{1, 2, 2}));
  EXPECT_EQ(data.num_classes(), 10);
  std::vector<float> x(4);
  std::int32_t y;
  data.get(0, x.data(), &y);
  EXPECT_EQ(x, (std::vector<float>{1, 2, 3, 4}));
  EXPECT_EQ(y, 5);
}

TEST(CsvDataset, ANonNumericCellNamesTheRowAndColumn) {
  const auto dir = kiln::testing::fresh_folder("csv_text");
  const std::string path = write_text(dir / "t.csv", "label,x,y\n1,2,3\n2,abc,4\n");
  const std::string message =
      error_message([&] { CsvDataset(path, CsvOptions{.label_column = "label"}); });
  EXPECT_CONTAINS(message, path + ": row 3, column 2 ('x'): 'abc' is not a number");
  const std::string nan = write_text(dir / "nan.csv", "1,2\n0,nan\n");
  EXPECT_CONTAINS(error_message([&] { CsvDataset{nan}; }),
                  nan + ": row 2, column 2: 'nan' is not a number");
  const std::string empty_cell = write_text(dir / "empty.csv", "1,2\n0,\n");
  EXPECT_CONTAINS(error_message([&] { CsvDataset{empty_cell}; }),
                  "row 2, column 2: '' is not a number");
}

TEST(CsvDataset, ARaggedRowIsNamed) {
  const auto dir = kiln::testing::fresh_folder("csv_ragged");
  const std::string path = write_text(dir / "t.csv", "0,1,2\n1,2,3\n2,3\n");
  EXPECT_CONTAINS(error_message([&] { CsvDataset{path}; }),
                  path + ": row 3 has 2 cells, expected 3 as in row 1 (a ragged row)");
}

TEST(CsvDataset, BadLabelsAndColumnsAreNamed) {
  const auto dir = kiln::testing::fresh_folder("csv_labels");
  const std::string half = write_text(dir / "half.csv", "label,x\n1,2\n2.5,3\n");
  EXPECT_CONTAINS(error_message([&] { CsvDataset(half, CsvOptions{.label_column = "label"}); }),
                  half + ": row 3, label column 1: '2.5' is not a non-negative integer label");
  const std::string range = write_text(dir / "range.csv", "1,2\n12,3\n");
  EXPECT_CONTAINS(error_message([&] { CsvDataset(range, CsvOptions{.num_classes = 10}); }),
                  range + ": labels must be in [0, 10): found 12 at row 2");
  EXPECT_CONTAINS(error_message([&] { CsvDataset(half, CsvOptions{.label_column = "class"}); }),
                  half + " has no column named 'class'; its columns are label, x");
  EXPECT_CONTAINS(error_message([&] { CsvDataset(range, CsvOptions{.label_column = "label"}); }),
                  "has no header row");
  EXPECT_CONTAINS(error_message([&] { CsvDataset(range, CsvOptions{.label_index = 5}); }),
                  "label column index 5 is out of range for 2 columns");
  EXPECT_CONTAINS(
      error_message([&] { CsvDataset(range, CsvOptions{.sample_shape = kiln::Shape{2}}); }),
      "has 1 feature columns, which cannot be viewed as samples of shape (2,)");
}

TEST(CsvDataset, MissingAndEmptyFilesAreNamed) {
  const auto dir = kiln::testing::fresh_folder("csv_missing");
  EXPECT_CONTAINS(error_message([&] { CsvDataset((dir / "nope.csv").string()); }),
                  "cannot open CSV file " + (dir / "nope.csv").string());
  EXPECT_CONTAINS(error_message([&] { CsvDataset{dir.string()}; }),
                  dir.string() + " is a folder; a file was expected");
  const std::string header_only = write_text(dir / "h.csv", "label,x\n");
  EXPECT_CONTAINS(error_message([&] { CsvDataset{header_only}; }),
                  header_only + " holds no data rows");
}

TEST(CsvDataset, AByteOrderMarkIsSkippedWithOrWithoutAHeader) {
  const auto dir = kiln::testing::fresh_folder("csv_bom");
  const std::string plain = write_text(dir / "plain.csv",
                                       "\xEF\xBB\xBF"
                                       "1,0.5,2\n0,1.5,3\n");
  const CsvDataset data(plain, CsvOptions{.label_index = 0});
  EXPECT_FALSE(data.has_header());
  EXPECT_EQ(data.size(), 2) << "the first row is data, not a header";
  const std::string named = write_text(dir / "named.csv",
                                       "\xEF\xBB\xBF"
                                       "label,x\n1,2\n");
  const CsvDataset with_header(named, CsvOptions{.label_column = "label"});
  EXPECT_EQ(with_header.size(), 1);
}

TEST(CsvDataset, ReadsAFloatTargetFromANamedMiddleColumn) {
  const auto dir = kiln::testing::fresh_folder("csv_float_target");
  const std::string path = write_text(dir / "t.csv", "a,price,b\n1,2.75,3\n4,-0.5,6\n");
  const CsvDataset data(path, CsvOptions{.label_column = "price", .float_target = true});
  EXPECT_FALSE(data.has_class_labels());
  EXPECT_EQ(data.target_shape(), (kiln::Shape{1}));
  EXPECT_EQ(data.num_classes(), 0);
  EXPECT_EQ(data.sample_shape(), (kiln::Shape{2}));
  std::vector<float> x(2);
  float y = 0;
  data.get(1, x.data(), &y);
  EXPECT_EQ(x, (std::vector<float>{4.0f, 6.0f}));
  EXPECT_EQ(y, -0.5f);
  EXPECT_CONTAINS(data.describe(), "float target 'price'");
  std::int32_t label = 0;
  EXPECT_CONTAINS(error_message([&] { data.get(0, x.data(), &label); }), "float targets");
}

TEST(CsvDataset, ANonNumericFloatTargetNamesTheFileAndRow) {
  const auto dir = kiln::testing::fresh_folder("csv_float_text");
  const std::string path = write_text(dir / "t.csv", "a,price\n1,2\n3,cheap\n");
  EXPECT_CONTAINS(error_message([&] {
                    CsvDataset(path, CsvOptions{.label_column = "price", .float_target = true});
                  }),
                  path + ": row 3, column 2 ('price'): 'cheap' is not a number");
  // A fractional value read as a class label says how to read it as a float.
  const std::string real = write_text(dir / "real.csv", "a,price\n1,2.5\n");
  EXPECT_CONTAINS(error_message([&] { CsvDataset(real, CsvOptions{.label_column = "price"}); }),
                  "target=float");
}

TEST(CsvDataset, CellsInMessagesAreEscapedAndCutToABoundedExcerpt) {
  using kiln::testing::is_printable_message;
  const auto dir = kiln::testing::fresh_folder("csv_hostile");
  const std::string huge =
      write_text(dir / "huge.csv", "1,2\n0," + std::string(5242880, '7') + "x\n");
  const std::string cut = error_message([&] { CsvDataset{huge}; });
  EXPECT_TRUE(is_printable_message(cut));
  EXPECT_CONTAINS(cut, "row 2, column 2: '777");
  EXPECT_CONTAINS(cut, "\u2026' (5242881 bytes) is not a number");
  // An escape sequence that would retitle the terminal, and a NUL that would cut the message.
  const std::string title = write_text(dir / "title.csv", "1,2\n0,\x1b]0;owned\x07\n");
  const std::string escaped = error_message([&] { CsvDataset{title}; });
  EXPECT_TRUE(is_printable_message(escaped));
  EXPECT_CONTAINS(escaped, "'\\x1b]0;owned\\x07' is not a number");
  const std::string nul = write_text(dir / "nul.csv", std::string("1,2\n0,3\0"
                                                                  "4\n",
                                                                  10));
  EXPECT_CONTAINS(error_message([&] { CsvDataset{nul}; }), "'3\\x004' is not a number");
  const std::string name = write_text(dir / "name.csv", "label,\x1b[2J\n1,x\n");
  EXPECT_CONTAINS(error_message([&] { CsvDataset{name}; }), "column 2 ('\\x1b[2J'): 'x'");
  const std::string wide =
      write_text(dir / "wide.csv", "label," + std::string(100000, 'c') + "\n1,2\n");
  const std::string columns =
      error_message([&] { CsvDataset(wide, CsvOptions{.label_column = "y"}); });
  EXPECT_TRUE(is_printable_message(columns));
  EXPECT_CONTAINS(columns, "its columns are label, ccc");
}

TEST(CsvDataset, ReadsLinesEndedByCrAloneOrCrLf) {
  const auto dir = kiln::testing::fresh_folder("csv_cr");
  const std::string mac = write_text(dir / "mac.csv", "label,x\r1,2\r0,3\r\r");
  const CsvDataset data(mac);
  EXPECT_EQ(data.size(), 2);
  EXPECT_TRUE(data.has_header());
  const std::string mixed = write_text(dir / "mixed.csv", "1,2\r\n0,3\r2,x\n");
  EXPECT_CONTAINS(error_message([&] { CsvDataset{mixed}; }),
                  "row 3, column 2: 'x' is not a number");
}
