// Parsing numeric CSV: cells are trimmed and may be quoted; numbers go through std::from_chars,
// which does not depend on the locale. Non-finite numbers are rejected like text: a NaN in the
// inputs would otherwise surface much later as a NaN loss.
#include "kiln/data/csv_dataset.h"

#include <fmt/ranges.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <new>

#include "kiln/core/error.h"
#include "kiln/core/excerpt.h"
#include "kiln/core/input_file.h"

namespace kiln {

namespace {

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r'))
    s.remove_suffix(1);
  if (s.size() >= 2 && s.front() == '"' && s.back() == '"') s = s.substr(1, s.size() - 2);
  return s;
}

std::vector<std::string_view> split(std::string_view line, char delimiter) {
  std::vector<std::string_view> cells;
  for (;;) {
    const std::size_t at = line.find(delimiter);
    cells.push_back(trim(line.substr(0, at)));
    if (at == std::string_view::npos) return cells;
    line.remove_prefix(at + 1);
  }
}

bool parse_number(std::string_view cell, float* out) {
  if (!cell.empty() && cell.front() == '+') cell.remove_prefix(1);
  const auto [end, ec] = std::from_chars(cell.data(), cell.data() + cell.size(), *out);
  return ec == std::errc() && end == cell.data() + cell.size() && std::isfinite(*out);
}

// The first line of `rest`, removed from it. A line ends at \n, \r\n or a lone \r (the
// files of classic Mac OS, and of some spreadsheets' "CSV (Macintosh)" export).
std::string_view take_line(std::string_view& rest) {
  const std::size_t eol = rest.find_first_of("\r\n");
  const std::string_view line = rest.substr(0, eol);
  if (eol == std::string_view::npos)
    rest = {};
  else
    rest.remove_prefix(rest.compare(eol, 2, "\r\n") == 0 ? eol + 2 : eol + 1);
  return line;
}

bool blank(std::string_view line) { return trim(line).empty(); }

}  // namespace

CsvDataset::CsvDataset(const std::string& path, CsvOptions options) try
    : path_(path), float_target_(options.float_target) {
  KILN_CHECK(!float_target_ || options.num_classes == 0,
             "{}: a float target column has no classes, but {} were asked for", path,
             options.num_classes);
  const InputFile file(path, "CSV file");  // a regular file only: /dev/zero would never end
  check_fits_in_memory(file.size(), path);
  const std::string text = file.read_all();
  // A UTF-8 byte order mark (spreadsheets write one) is not part of the first cell.
  constexpr std::string_view kBom = "\xEF\xBB\xBF";

  std::size_t columns = 0;
  std::int64_t first_line = 0;  // line number of the first row (header or data)
  std::int64_t first_row = 0;   // line number of the first data row
  std::int32_t max_label = -1;
  std::vector<float> row_values;
  std::string_view rest(text);
  if (rest.starts_with(kBom)) rest.remove_prefix(kBom.size());
  for (std::int64_t line_number = 1; !rest.empty(); ++line_number) {
    const std::string_view line = take_line(rest);
    if (blank(line)) continue;
    const auto cells = split(line, options.delimiter);
    row_values.resize(cells.size());
    bool numeric = true;
    for (std::size_t c = 0; c < cells.size() && numeric; ++c)
      numeric = parse_number(cells[c], &row_values[c]);

    if (columns == 0) {  // the first row: a header, or the first data row
      columns = cells.size();
      first_line = line_number;
      KILN_CHECK(columns >= 2,
                 "{}: row {} has {} column(s); a CSV data set needs a label column and at "
                 "least one feature (is the delimiter '{}' right?)",
                 path, line_number, columns, options.delimiter);
      if (!numeric) {
        for (std::string_view cell : cells) column_names_.emplace_back(cell);
        continue;
      }
    }
    if (first_row == 0) {
      first_row = line_number;
      if (!options.label_column.empty()) {
        KILN_CHECK(has_header(),
                   "{} has no header row, so the label column cannot be found by the name '{}'; "
                   "give its index instead",
                   path, options.label_column);
        const auto it = std::find(column_names_.begin(), column_names_.end(), options.label_column);
        KILN_CHECK(
            it != column_names_.end(), "{} has no column named '{}'; its columns are {}", path,
            options.label_column,
            bare_excerpt(fmt::format("{}", fmt::join(column_names_, ", ")), 4 * kExcerptBytes));
        label_column_ = static_cast<int>(it - column_names_.begin());
      } else {
        const int n = static_cast<int>(columns);
        label_column_ = options.label_index < 0 ? n + options.label_index : options.label_index;
        KILN_CHECK(label_column_ >= 0 && label_column_ < n,
                   "{}: label column index {} is out of range for {} columns", path,
                   options.label_index, n);
      }
    }
    KILN_CHECK(cells.size() == columns,
               "{}: row {} has {} cells, expected {} as in row {} (a ragged row)", path,
               line_number, cells.size(), columns, first_line);
    if (!numeric) {
      for (std::size_t c = 0; c < cells.size(); ++c) {
        float ignored;
        if (parse_number(cells[c], &ignored)) continue;
        const std::string name =
            has_header() ? fmt::format(" ({})", excerpt(column_names_[c])) : "";
        KILN_THROW("{}: row {}, column {}{}: {} is not a number", path, line_number, c + 1, name,
                   excerpt(cells[c]));
      }
    }
    const float label = row_values[static_cast<std::size_t>(label_column_)];
    ++rows_;
    for (std::size_t c = 0; c < cells.size(); ++c)
      if (static_cast<int>(c) != label_column_) values_.push_back(row_values[c]);
    if (float_target_) {
      targets_.push_back(label);
      continue;
    }
    KILN_CHECK(label >= 0.0f && label == std::floor(label) && label < 2147483648.0f,
               "{}: row {}, label column {}: {} is not a non-negative integer label (a "
               "regression target? read it as a float: CsvOptions::float_target, or "
               "{} csv:PATH:target=float)",
               path, line_number, label_column_ + 1,
               excerpt(cells[static_cast<std::size_t>(label_column_)]), Setting::data_spec);
    labels_.push_back(static_cast<std::int32_t>(label));
    max_label = std::max(max_label, labels_.back());
    KILN_CHECK(options.num_classes == 0 || labels_.back() < options.num_classes,
               "{}: labels must be in [0, {}): found {} at row {}", path, options.num_classes,
               labels_.back(), line_number);
  }
  KILN_CHECK(rows_ > 0, "{} holds no data rows", path);
  features_ = static_cast<std::int64_t>(columns) - 1;
  shape_ = options.sample_shape.rank() == 0 ? Shape{features_} : options.sample_shape;
  KILN_CHECK(shape_.numel() == features_,
             "{} has {} feature columns, which cannot be viewed as samples of shape {}", path,
             features_, shape_.str());
  if (!float_target_)
    num_classes_ =
        options.num_classes > 0 ? options.num_classes : classes_from_max_label(max_label, path);
} catch (const std::bad_alloc&) {
  // A constructor's handler may not touch members (they are destroyed): name the file only.
  KILN_THROW(
      "CSV file {}: out of memory while reading it; use a smaller file or a machine with "
      "more memory",
      path);
}

void CsvDataset::get(std::int64_t index, float* x_out, TargetOut y_out) const {
  check_sample_index(*this, index);
  const float* row = values_.data() + static_cast<std::size_t>(index * features_);
  std::copy(row, row + features_, x_out);
  if (float_target_)
    *y_out.values() = targets_[static_cast<std::size_t>(index)];
  else
    *y_out.label() = labels_[static_cast<std::size_t>(index)];
}

std::string CsvDataset::describe() const {
  const std::string target =
      float_target_
          ? (has_header()
                 ? fmt::format("float target {}",
                               excerpt(column_names_[static_cast<std::size_t>(label_column_)]))
                 : fmt::format("float target in column {}", label_column_ + 1))
          : fmt::format("{} classes", num_classes_);
  return fmt::format("CSV {} ({} x {}, {})", path_, size(), shape_.str(), target);
}

}  // namespace kiln
