#include "sim/model/Sweep.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cstdint>
#include <cstdio>
#include <set>
#include <stdexcept>

#include "sim/model/Fields.hpp"
#include "sim/model/Scenario.hpp"
#include "sim/model/ScenarioError.hpp"

namespace quorum {

namespace {

void check_field_path(const std::string& path, const std::string& where) {
  if (path.empty() || path.front() == '.' || path.back() == '.' || path.find("..") != std::string::npos)
    throw ScenarioError(where, "'" + path + "' is not a dotted field path like platform.nodes");
  if (path == "sweep" || path.rfind("sweep.", 0) == 0)
    throw ScenarioError(where, "a sweep cannot vary its own sweep block");
}

SweepAxis single_axis(const std::string& field, const nlohmann::json& list, const std::string& where) {
  check_field_path(field, where);
  if (!list.is_array() || list.empty())
    throw ScenarioError(where, "must be a non-empty list of values, got " + describe_json(list));
  SweepAxis axis;
  axis.fields = {field};
  std::set<std::string> seen;
  for (const auto& v : list) {
    if (!seen.insert(v.dump()).second) throw ScenarioError(where, "lists the value " + v.dump() + " twice");
    axis.values.push_back({v});
  }
  return axis;
}

// FNV-1a, for short stable names of values too long or odd for a file name.
std::string short_hash(const std::string& s) {
  std::uint64_t h = 1469598103934665603ull;
  for (unsigned char c : s) {
    h ^= c;
    h *= 1099511628211ull;
  }
  char buf[20];
  std::snprintf(buf, sizeof buf, "h%08llx", static_cast<unsigned long long>(h & 0xffffffffull));
  return buf;
}

bool plain_text(const std::string& text) {
  if (text.empty() || text.size() > 40) return false;
  for (char c : text)
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '_' || c == '-' || c == '+')) return false;
  return true;
}

// A value as it reads in a point id: itself when short and file-name safe; an object by its kind or name and a
// hash of the whole ({"kind": "random_delay", ...} -> random_delay_h1a2b3c4d); anything else by a hash.
std::string value_text(const nlohmann::json& v) {
  const std::string text = v.is_string() ? v.get<std::string>() : v.dump();
  if (plain_text(text)) return text;
  if (v.is_object())
    for (const char* key : {"kind", "name"})
      if (v.contains(key) && v[key].is_string() && plain_text(v[key].get<std::string>()))
        return v[key].get<std::string>() + "_" + short_hash(v.dump());
  return short_hash(v.dump());
}

}  // namespace

std::size_t SweepSpec::point_count() const {
  std::size_t n = 1;
  for (const auto& a : axes) n *= a.size();
  return n;
}

SweepSpec parse_sweep_block(const nlohmann::json& block, const std::vector<std::string>& vary_order) {
  if (!block.is_object()) throw ScenarioError("sweep", "must be an object with \"vary\" (and \"zip\")");
  for (const auto& [key, value] : block.items())
    if (key != "vary" && key != "zip")
      throw ScenarioError("sweep." + key, "unknown field; a sweep block has \"vary\" and \"zip\"");
  if (!block.contains("vary") || !block["vary"].is_object() || block["vary"].empty())
    throw ScenarioError("sweep.vary", "must be an object mapping field paths to lists of values, e.g. "
                                      "{\"platform.nodes\": [4, 8, 16]}");
  const auto& vary = block["vary"];
  std::vector<std::string> fields;
  for (const auto& f : vary_order)
    if (vary.contains(f) && std::find(fields.begin(), fields.end(), f) == fields.end()) fields.push_back(f);
  for (const auto& [key, value] : vary.items())
    if (std::find(fields.begin(), fields.end(), key) == fields.end()) fields.push_back(key);
  SweepSpec spec;
  for (const auto& f : fields) add_axis(spec, single_axis(f, vary[f], "sweep.vary." + f));
  if (block.contains("zip")) {
    const auto& zip = block["zip"];
    if (!zip.is_array()) throw ScenarioError("sweep.zip", "must be a list of lists of varied fields");
    for (std::size_t i = 0; i < zip.size(); ++i) {
      const std::string where = "sweep.zip[" + std::to_string(i) + "]";
      if (!zip[i].is_array() || zip[i].size() < 2)
        throw ScenarioError(where, "must list two or more varied fields, got " + describe_json(zip[i]));
      std::vector<std::string> group;
      for (const auto& f : zip[i]) {
        if (!f.is_string()) throw ScenarioError(where, "must list field paths (strings), got " + describe_json(f));
        group.push_back(f.get<std::string>());
      }
      zip_axes(spec, group, where);
    }
  }
  return spec;
}

SweepAxis parse_vary_option(const std::string& text) {
  const auto eq = text.find('=');
  if (eq == std::string::npos || eq == 0 || eq + 1 == text.size())
    throw ScenarioError("--vary", "expected FIELD=V1,V2,... (e.g. platform.nodes=4,8,16), got '" + text + "'");
  const std::string field = text.substr(0, eq), values = text.substr(eq + 1);
  nlohmann::json list = nlohmann::json::array();
  if (values.front() == '[') {
    try {
      list = nlohmann::json::parse(values);
    } catch (const nlohmann::json::parse_error& e) {
      throw ScenarioError("--vary " + field, std::string("the value list is not valid JSON: ") + e.what());
    }
  } else {
    std::size_t start = 0;
    for (;;) {
      const auto comma = values.find(',', start);
      const std::string v = values.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
      if (v.empty()) throw ScenarioError("--vary " + field, "empty value in '" + values + "'");
      list.push_back(parse_override_value(v));
      if (comma == std::string::npos) break;
      start = comma + 1;
    }
  }
  return single_axis(field, list, "--vary " + field);
}

void add_axis(SweepSpec& spec, SweepAxis axis) {
  for (auto& a : spec.axes)
    if (a.fields == axis.fields) {
      a = std::move(axis);
      return;
    }
  for (const auto& f : axis.fields)
    for (const auto& a : spec.axes)
      if (std::find(a.fields.begin(), a.fields.end(), f) != a.fields.end())
        throw ScenarioError("--vary " + f, "is already varied together with other fields (zip); vary it only once");
  spec.axes.push_back(std::move(axis));
}

void zip_axes(SweepSpec& spec, const std::vector<std::string>& fields, const std::string& where) {
  if (fields.size() < 2)
    throw ScenarioError(where, "name two or more varied fields, e.g. platform.nodes,workload.iterations");
  std::vector<std::size_t> which;
  for (const auto& f : fields) {
    std::size_t found = spec.axes.size();
    for (std::size_t i = 0; i < spec.axes.size(); ++i)
      if (spec.axes[i].fields.size() == 1 && spec.axes[i].fields.front() == f) found = i;
    if (found == spec.axes.size())
      throw ScenarioError(where, f + " cannot be zipped: it is not varied on its own (vary it first, zip it once)");
    if (std::find(which.begin(), which.end(), found) != which.end())
      throw ScenarioError(where, f + " is named twice");
    which.push_back(found);
  }
  const std::size_t n = spec.axes[which.front()].size();
  for (std::size_t k = 0; k < which.size(); ++k)
    if (spec.axes[which[k]].size() != n)
      throw ScenarioError(where, fields[k] + " has " + std::to_string(spec.axes[which[k]].size()) + " values but " +
                                     fields.front() + " has " + std::to_string(n) +
                                     "; zipped fields need the same number of values");
  SweepAxis zipped;
  zipped.values.resize(n);
  for (std::size_t k : which) {
    zipped.fields.push_back(spec.axes[k].fields.front());
    for (std::size_t i = 0; i < n; ++i) zipped.values[i].push_back(spec.axes[k].values[i].front());
  }
  const std::size_t at = *std::min_element(which.begin(), which.end());
  std::vector<SweepAxis> axes;
  for (std::size_t i = 0; i < spec.axes.size(); ++i) {
    if (i == at) axes.push_back(zipped);
    else if (std::find(which.begin(), which.end(), i) == which.end()) axes.push_back(std::move(spec.axes[i]));
  }
  spec.axes = std::move(axes);
}

std::vector<SweepPoint> expand_sweep(const nlohmann::json& scenario, const SweepSpec& spec_in) {
  nlohmann::json base = scenario;
  if (base.is_object()) base.erase("sweep");

  // An algorithm list is an implicit first axis: each entry is the algorithm of its points.
  struct Axis {
    std::vector<std::string> columns, paths;
    std::vector<std::vector<nlohmann::json>> values;
    std::vector<std::vector<std::string>> texts;
    std::vector<std::vector<nlohmann::json>> shown;
  };
  std::vector<Axis> axes;
  // Varying algorithm.name on a list replaces the list: each name is one algorithm (the list's entry of that name,
  // with its parameters, if there is one), not crossed with the list's entries.
  bool names_varied = false;
  for (const auto& s : spec_in.axes)
    names_varied = names_varied || std::find(s.fields.begin(), s.fields.end(), "algorithm.name") != s.fields.end();
  const bool listed = base.is_object() && base.contains("algorithm") && base["algorithm"].is_array();
  const nlohmann::json list_entries = listed ? base["algorithm"] : nlohmann::json::array();
  if (listed && names_varied) base["algorithm"] = nlohmann::json::object();
  if (listed && !names_varied) {
    const auto& list = base["algorithm"];
    if (list.empty()) throw ScenarioError("algorithm", "the list of algorithms is empty");
    Axis a{{"algorithm.label"}, {"algorithm"}, {}, {}, {}};
    std::set<std::string> labels;
    for (std::size_t i = 0; i < list.size(); ++i) {
      if (!list[i].is_object() || !list[i].contains("name"))
        throw ScenarioError("algorithm[" + std::to_string(i) + "]", "must be an object with a name");
      nlohmann::json entry = list[i];
      std::string label = entry.value("label", entry["name"].is_string() ? entry["name"].get<std::string>() : "run");
      if (!labels.insert(label).second)
        throw ScenarioError("algorithm[" + std::to_string(i) + "]",
                            "label '" + label + "' is used twice; give the entries distinct \"label\"s");
      entry.erase("label");
      a.values.push_back({entry});
      a.texts.push_back({value_text(label)});
      a.shown.push_back({label});
    }
    axes.push_back(std::move(a));
  }
  for (const auto& s : spec_in.axes) {
    Axis a{s.fields, s.fields, s.values, {}, s.values};
    if (listed)
      for (std::size_t k = 0; k < a.paths.size(); ++k)
        if (a.paths[k] == "algorithm.name") {
          a.paths[k] = "algorithm";
          for (auto& row : a.values) row[k] = algorithm_entry_named(list_entries, row[k]);
        }
    for (const auto& row : s.values) {
      std::vector<std::string> t;
      for (const auto& v : row) t.push_back(value_text(v));
      a.texts.push_back(std::move(t));
    }
    axes.push_back(std::move(a));
  }

  // On a list, a varied algorithm field reaches the entries whose algorithm takes it, as --set does; the others'
  // points do not vary along it (their setting reads "-"), and their repeats are dropped.
  // The algorithm field a varied path sets ("tau" for algorithm.tau), or "" for other paths.
  auto algorithm_field = [](const std::string& path) {
    if (path.rfind("algorithm.", 0) != 0) return std::string();
    const std::string rest = path.substr(10);
    return rest.substr(0, rest.find('.'));
  };
  if (listed && !names_varied)
    for (std::size_t a = 1; a < axes.size(); ++a)
      for (const auto& path : axes[a].paths) {
        const std::string field = algorithm_field(path);
        if (field.empty()) continue;
        if (std::none_of(list_entries.begin(), list_entries.end(),
                         [&field](const nlohmann::json& e) { return algorithm_entry_takes(e, field); }))
          throw ScenarioError(path, "no algorithm of the list takes '" + field +
                                        "'; `quorum list algorithms` shows each one's parameters");
      }
  auto applies = [&](const nlohmann::json& point_algorithm, const std::string& path) {
    const std::string field = algorithm_field(path);
    return !listed || names_varied || field.empty() || algorithm_entry_takes(point_algorithm, field);
  };

  std::size_t total = 1;
  for (const auto& a : axes) total *= a.values.size();
  std::vector<SweepPoint> points;
  points.reserve(total);
  std::vector<std::size_t> pos(axes.size(), 0);
  std::set<std::string> ids;
  for (std::size_t index = 0; index < total; ++index) {
    SweepPoint p;
    p.index = index;
    p.scenario = base;
    for (std::size_t a = 0; a < axes.size(); ++a)
      for (std::size_t k = 0; k < axes[a].paths.size(); ++k) {
        const nlohmann::json& v = axes[a].values[pos[a]][k];
        if (!applies(p.scenario["algorithm"], axes[a].paths[k])) {
          p.settings.push_back({axes[a].columns[k], axes[a].paths[k], nullptr, "-", nullptr});
          continue;
        }
        p.settings.push_back({axes[a].columns[k], axes[a].paths[k], v, axes[a].texts[pos[a]][k], axes[a].shown[pos[a]][k]});
        set_field(p.scenario, axes[a].paths[k], v);
      }
    for (const auto& s : p.settings) p.id += (p.id.empty() ? "" : ",") + s.column + "=" + s.text;
    if (p.id.empty()) p.id = "base";
    if (p.id.size() > 200) p.id = p.id.substr(0, 180) + "," + short_hash(p.id);
    const bool repeat = std::any_of(p.settings.begin(), p.settings.end(), [](const SweepSetting& s) { return s.text == "-"; }) &&
                        ids.count(p.id) > 0;
    if (!repeat) {
      if (!ids.insert(p.id).second) p.id += "," + std::to_string(index);
      points.push_back(std::move(p));
    }
    // Next position: the last axis varies fastest.
    for (std::size_t a = axes.size(); a-- > 0;) {
      if (++pos[a] < axes[a].values.size()) break;
      pos[a] = 0;
    }
  }
  return points;
}

std::vector<std::string> sweep_columns(const std::vector<SweepPoint>& points) {
  std::vector<std::string> columns;
  if (!points.empty())
    for (const auto& s : points.front().settings) columns.push_back(s.column);
  return columns;
}

Shard parse_shard(const std::string& text) {
  const auto slash = text.find('/');
  auto number = [&text](const std::string& s) {
    int v = 0;
    const auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
    if (s.empty() || ec != std::errc() || ptr != s.data() + s.size())
      throw std::invalid_argument("--shard: expected I/N with 0 <= I < N (e.g. 0/4), got '" + text + "'");
    return v;
  };
  if (slash == std::string::npos)
    throw std::invalid_argument("--shard: expected I/N with 0 <= I < N (e.g. 0/4), got '" + text + "'");
  Shard s{number(text.substr(0, slash)), number(text.substr(slash + 1))};
  if (s.count < 1 || s.index < 0 || s.index >= s.count)
    throw std::invalid_argument("--shard: expected I/N with 0 <= I < N (e.g. 0/4), got '" + text + "'");
  return s;
}

}  // namespace quorum
