// Checked reads of calibration files' JSON fields: a bad field throws Rejected with the reason, so a
// damaged or foreign file is refused whole, never half-trusted (shared by the CPU and GPU readers).
#pragma once
#include <cmath>
#include <nlohmann/json.hpp>
#include <string>

#include "analyzer/chip_spec.h"
#include "base/errors.h"
#include "base/json.h"

namespace rooftop::hwdb::json_fields {

struct Rejected {
  std::string why;
};

// A finite number >= 0 (or > 0 when `positive`) at j[key].
inline double number(const nlohmann::json& j, const std::string& key, const std::string& where, bool positive) {
  if (!j.contains(key)) throw Rejected{where + key + " is missing"};
  const nlohmann::json& v = j.at(key);
  if (!v.is_number()) throw Rejected{where + key + " is not a number"};
  const double x = v.get<double>();
  if (!std::isfinite(x) || x < 0 || (positive && x == 0))
    throw Rejected{where + key + " is " + describe_json(v) + "; expected a " + (positive ? "positive" : "non-negative") + " number"};
  return x;
}

// A non-empty string at j[key].
inline std::string text(const nlohmann::json& j, const std::string& key, const std::string& where) {
  if (!j.contains(key) || !j.at(key).is_string() || j.at(key).get<std::string>().empty())
    throw Rejected{where + key + " is missing or not a string"};
  return j.at(key).get<std::string>();
}

// The object at j[key].
inline const nlohmann::json& object(const nlohmann::json& j, const std::string& key, const std::string& where) {
  if (!j.contains(key) || !j.at(key).is_object()) throw Rejected{where + key + " is missing or not an object"};
  return j.at(key);
}

// "measured <day>" from the file's "date" (an ISO time: the day is what comes before the 'T'), the provenance
// of every figure the file sets.
inline std::string measured_on(const nlohmann::json& j) {
  const std::string date = text(j, "date", "");
  return "measured " + date.substr(0, date.find('T'));
}

// j is an object whose "schema" is `expected`.
inline void schema(const nlohmann::json& j, const std::string& expected) {
  if (!j.is_object()) throw Rejected{"not a JSON object"};
  if (!j.contains("schema") || !j.at("schema").is_string() || j.at("schema") != expected)
    throw Rejected{"schema is " + (j.contains("schema") ? describe_json(j.at("schema")) : std::string("missing")) +
                   "; expected \"" + expected + "\""};
}

// File a measured figure on the chip's calibrated rates, with its provenance ("measured <date>"). A figure the
// key grammar does not know refuses the file: a misspelt rate would otherwise be passed over and the datasheet's
// used in its place.
inline void measured_figure(ChipSpec& c, const std::string& key, double v, const std::string& provenance) {
  if (!c.measured.set(key, v)) throw Rejected{"unknown figure '" + key + "' (see analyzer/calibrated_rates.h)"};
  c.provenance[key] = provenance;
}

// Run `read` (parse a calibration file and overlay it) and say why the file was refused: damaged JSON, a field of
// the wrong type (j.value() on a string, say) or a Rejected field; empty when it was read whole.
template <class Read>
std::string refusal(Read&& read) {
  try {
    read();
  } catch (const InputError& e) {
    return std::string("damaged JSON: ") + e.what();
  } catch (const nlohmann::json::exception& e) {
    return std::string("a field has the wrong type: ") + e.what();
  } catch (const Rejected& r) {
    return r.why;
  }
  return "";
}

}  // namespace rooftop::hwdb::json_fields
