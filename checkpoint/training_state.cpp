// state.json on nlohmann::json. Every value comes from a file a user may have edited: each is read
// with its type checked first (nlohmann would turn -1 into a huge unsigned seed without a word).
#include "kiln/checkpoint/training_state.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <string>

#include "kiln/core/error.h"
#include "kiln/core/excerpt.h"

namespace kiln {

namespace {

// 3: the run's record is "run", typed, by TrainerOptions::run's field names; 2 recorded it as
// "settings" keyed by train's flags; 1 had neither.
constexpr const char* kFormat = "kiln-checkpoint-3";

const nlohmann::json& field(const nlohmann::json& j, const char* name, const std::string& path) {
  KILN_CHECK(j.contains(name), "'{}' lacks the field \"{}\" of a kiln checkpoint state", path,
             name);
  return j[name];
}

std::int64_t int_field(const nlohmann::json& j, const char* name, std::int64_t min,
                       const std::string& path) {
  const nlohmann::json& v = field(j, name, path);
  const bool fits = v.is_number_integer() &&
                    !(v.is_number_unsigned() && v.get<std::uint64_t>() > INT64_MAX) &&
                    v.get<std::int64_t>() >= min;
  KILN_CHECK(fits, "'{}': \"{}\" is {}: expected an integer of at least {}", path, name,
             bare_excerpt(v.dump()), min);
  return v.get<std::int64_t>();
}

std::uint64_t unsigned_field(const nlohmann::json& j, const char* name, const std::string& path) {
  const nlohmann::json& v = field(j, name, path);
  KILN_CHECK(v.is_number_unsigned(), "'{}': \"{}\" is {}: expected a non-negative integer", path,
             name, bare_excerpt(v.dump()));
  return v.get<std::uint64_t>();
}

std::string string_field(const nlohmann::json& j, const char* name, const std::string& path) {
  const nlohmann::json& v = field(j, name, path);
  KILN_CHECK(v.is_string(), "'{}': \"{}\" is {}: expected a string", path, name,
             bare_excerpt(v.dump()));
  // Kept strings are shown in later messages (a setting that differs on resume): no controls.
  KILN_CHECK(is_plain_text(v.get_ref<const std::string&>()),
             "'{}': \"{}\" is {}: expected plain text, without control characters", path, name,
             bare_excerpt(v.dump()));
  return v.get<std::string>();
}

double double_field(const nlohmann::json& j, const char* name, const std::string& path) {
  const nlohmann::json& v = field(j, name, path);
  KILN_CHECK(v.is_number(), "'{}': \"{}\" is {}: expected a number", path, name,
             bare_excerpt(v.dump()));
  return v.get<double>();
}

bool bool_field(const nlohmann::json& j, const char* name, const std::string& path) {
  const nlohmann::json& v = field(j, name, path);
  KILN_CHECK(v.is_boolean(), "'{}': \"{}\" is {}: expected true or false", path, name,
             bare_excerpt(v.dump()));
  return v.get<bool>();
}

// A float setting as the number its shortest text says (0.05, not 0.0500000007): the file reads
// as the run was given, and reads back to the same float.
double as_written(float v) { return std::stod(fmt::format("{}", v)); }

// RunDescription as JSON: the fields set, by their names (checkpoint/run_fingerprint.h's
// visit_run_fields); unset ones left out.
void put(nlohmann::ordered_json& j, const char* name, const std::string& v) {
  if (!v.empty()) j[name] = v;
}
void put(nlohmann::ordered_json& j, const char* name, std::int64_t batch_size) {
  if (batch_size > 0) j[name] = batch_size;
}
void put(nlohmann::ordered_json& j, const char* name, const std::optional<float>& v) {
  if (v) j[name] = as_written(*v);
}
template <typename T>
void put(nlohmann::ordered_json& j, const char* name, const std::optional<T>& v) {
  if (v) j[name] = *v;
}

nlohmann::ordered_json run_to_json(const RunDescription& r) {
  nlohmann::ordered_json j = nlohmann::ordered_json::object();
  visit_run_fields(r, [&j](const char* name, Setting, const auto& v) { put(j, name, v); });
  return j;
}

// A field of "run", read with its type checked (a batch at least 1, a count of samples at least 0).
void get(const nlohmann::json& j, const char* name, const std::string& path, std::string& v) {
  v = string_field(j, name, path);
}
void get(const nlohmann::json& j, const char* name, const std::string& path, std::int64_t& v) {
  v = int_field(j, name, 1, path);
}
void get(const nlohmann::json& j, const char* name, const std::string& path,
         std::optional<std::int64_t>& v) {
  v = int_field(j, name, 0, path);
}
void get(const nlohmann::json& j, const char* name, const std::string& path,
         std::optional<std::uint64_t>& v) {
  v = unsigned_field(j, name, path);
}
void get(const nlohmann::json& j, const char* name, const std::string& path,
         std::optional<float>& v) {
  v = static_cast<float>(double_field(j, name, path));
}
void get(const nlohmann::json& j, const char* name, const std::string& path,
         std::optional<double>& v) {
  v = double_field(j, name, path);
}
void get(const nlohmann::json& j, const char* name, const std::string& path,
         std::optional<bool>& v) {
  v = bool_field(j, name, path);
}
void get(const nlohmann::json& j, const char* name, const std::string& path,
         std::optional<std::string>& v) {
  v = string_field(j, name, path);
}

RunDescription run_from_json(const nlohmann::json& j, const std::string& path) {
  KILN_CHECK(j.is_object(), "'{}': \"run\" is {}: expected an object", path,
             bare_excerpt(j.dump()));
  RunDescription r;
  visit_run_fields(r, [&](const char* name, Setting, auto& v) {
    if (j.contains(name)) get(j, name, path, v);
  });
  return r;
}

Vocabulary vocabulary_from_json(const nlohmann::json& j, const std::string& path) {
  KILN_CHECK(j.is_object(), "'{}': \"vocabulary\" is {}: expected an object", path,
             bare_excerpt(j.dump()));
  Vocabulary v;
  v.kind = vocabulary_kind_from_name(string_field(j, "kind", path));
  v.size = int_field(j, "size", 1, path);
  const nlohmann::json& symbols = field(j, "symbols", path);
  KILN_CHECK(symbols.is_array(), "'{}': the vocabulary's \"symbols\" is {}: expected an array",
             path, bare_excerpt(symbols.dump()));
  for (const nlohmann::json& c : symbols) {
    KILN_CHECK(c.is_number_unsigned() && c.get<std::uint64_t>() <= UINT32_MAX,
               "'{}': the vocabulary holds the symbol {}: expected a code point", path,
               bare_excerpt(c.dump()));
    v.symbols.push_back(c.get<std::uint32_t>());
  }
  check_vocabulary(v, path);
  return v;
}

}  // namespace

std::string state_to_json(const TrainingState& s) {
  nlohmann::ordered_json j = {{"format", kFormat},
                              {"epoch", s.epoch},
                              {"batches_done", s.batches_done},
                              {"global_step", s.global_step},
                              {"optimizer_steps", s.optimizer_steps},
                              {"seed", s.seed},
                              {"generator_offset", s.generator_offset},
                              {"model", s.model},
                              {"model_structure", s.model_structure},
                              {"data", s.data},
                              {"batch_size", s.batch_size},
                              {"optimizer", s.optimizer},
                              {"run", run_to_json(s.run)}};
  nlohmann::ordered_json generators = nlohmann::ordered_json::object();
  for (const auto& [name, g] : s.generators)
    generators[name] = {{"seed", g.seed}, {"offset", g.offset}};
  j["generators"] = generators;
  nlohmann::ordered_json pieces = nlohmann::ordered_json::object();
  for (const auto& [name, piece] : s.pieces)
    pieces[name] = {{"bytes", piece.bytes}, {"crc32", piece.crc32}};
  j["pieces"] = pieces;
  if (s.vocabulary) {
    j["vocabulary"] = {{"kind", vocabulary_kind_name(s.vocabulary->kind)},
                       {"size", s.vocabulary->size},
                       {"symbols", s.vocabulary->symbols}};
  }
  return j.dump(2) + "\n";
}

TrainingState parse_training_state(std::string_view text, const std::string& path) {
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(text);
  } catch (const nlohmann::json::exception& e) {
    KILN_THROW("'{}' is not a readable checkpoint state: {}", path,
               bare_excerpt(e.what(), 4 * kExcerptBytes));
  }
  KILN_CHECK(j.is_object(), "'{}' is not a checkpoint state: expected a JSON object", path);
  if (j.contains("format")) {
    const std::string format = string_field(j, "format", path);
    KILN_CHECK(format == "kiln-checkpoint-1" || format == "kiln-checkpoint-2" || format == kFormat,
               "'{}' is a checkpoint of format {}; this kiln reads kiln-checkpoint-1, 2 and {}",
               path, excerpt(format), kFormat);
  }
  TrainingState s;
  s.epoch = int_field(j, "epoch", 0, path);
  s.batches_done = int_field(j, "batches_done", 0, path);
  s.global_step = int_field(j, "global_step", 0, path);
  s.optimizer_steps = int_field(j, "optimizer_steps", 0, path);
  s.seed = unsigned_field(j, "seed", path);
  s.generator_offset = unsigned_field(j, "generator_offset", path);
  s.model = string_field(j, "model", path);
  if (j.contains("model_structure")) s.model_structure = string_field(j, "model_structure", path);
  s.data = string_field(j, "data", path);
  s.batch_size = int_field(j, "batch_size", 1, path);
  s.optimizer = string_field(j, "optimizer", path);
  KILN_CHECK(s.batches_done <= s.global_step,
             "'{}': {} batches of the current epoch done but only {} steps in all: the state is "
             "inconsistent",
             path, s.batches_done, s.global_step);
  if (j.contains("settings")) {
    const nlohmann::json& settings = j["settings"];
    KILN_CHECK(settings.is_object(), "'{}': \"settings\" is {}: expected an object", path,
               bare_excerpt(settings.dump()));
    for (const auto& [flag, value] : settings.items()) {
      KILN_CHECK(value.is_string() && is_plain_text(value.get_ref<const std::string&>()) &&
                     is_plain_text(flag),
                 "'{}': setting {} is {}: expected a string of plain text", path, excerpt(flag),
                 bare_excerpt(value.dump()));
      s.legacy_settings[flag] = value.get<std::string>();
    }
  }
  if (j.contains("run")) s.run = run_from_json(j["run"], path);
  if (j.contains("generators")) {
    const nlohmann::json& generators = j["generators"];
    KILN_CHECK(generators.is_object(), "'{}': \"generators\" is {}: expected an object", path,
               bare_excerpt(generators.dump()));
    for (const auto& [name, g] : generators.items()) {
      KILN_CHECK(g.is_object(), "'{}': generator {} is {}: expected {{seed, offset}}", path,
                 excerpt(name), bare_excerpt(g.dump()));
      s.generators[name] = {unsigned_field(g, "seed", path), unsigned_field(g, "offset", path)};
    }
  }
  if (j.contains("pieces")) {
    const nlohmann::json& pieces = j["pieces"];
    KILN_CHECK(pieces.is_object(), "'{}': \"pieces\" is {}: expected an object", path,
               bare_excerpt(pieces.dump()));
    for (const auto& [name, piece] : pieces.items()) {
      KILN_CHECK(piece.is_object(), "'{}': piece {} is {}: expected {{bytes, crc32}}", path,
                 excerpt(name), bare_excerpt(piece.dump()));
      const std::uint64_t crc = unsigned_field(piece, "crc32", path);
      KILN_CHECK(crc <= UINT32_MAX, "'{}': piece {} has a CRC32 of {}, past 32 bits", path,
                 excerpt(name), crc);
      s.pieces[name] = {unsigned_field(piece, "bytes", path), static_cast<std::uint32_t>(crc)};
    }
  }
  if (j.contains("vocabulary")) s.vocabulary = vocabulary_from_json(j["vocabulary"], path);
  return s;
}

}  // namespace kiln
