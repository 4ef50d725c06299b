#include "output.h"

#include <algorithm>
#include <cstdio>

#include "commands.h"
#include "vigilo/json/write.h"

namespace vigilo::cli {

Status WriteStdout(std::string_view bytes) {
  if (std::fwrite(bytes.data(), 1, bytes.size(), stdout) != bytes.size()) return IoError("cannot write to stdout");
  return Status::Ok();
}

void AddJsonFlag(CLI::App* cmd, OutputFlags* flags) {
  cmd->add_flag("--json", flags->json, "JSON lines: one canonical JSON object per record, snake_case keys");
}

void AddJsonFlags(CLI::App* cmd, OutputFlags* flags) {
  AddJsonFlag(cmd, flags);
  cmd->add_flag("--pretty", flags->pretty, "JSON indented for reading (implies --json)");
}

bool IsSnakeCase(std::string_view key) {
  if (key.empty() || key[0] < 'a' || key[0] > 'z' || key.back() == '_') return false;
  for (size_t i = 0; i < key.size(); ++i) {
    char c = key[i];
    bool ok = (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || (c == '_' && key[i - 1] != '_');
    if (!ok) return false;
  }
  return true;
}

Record& Record::Add(std::string key, json::Value value) {
  fields_.push_back(Field{std::move(key), std::move(value), {}, false});
  return *this;
}

Record& Record::Add(std::string key, Record nested) {
  fields_.push_back(Field{std::move(key), json::Value(), std::move(nested.fields_), true});
  return *this;
}

json::Value Record::FieldsToJson(const std::vector<Field>& fields) {
  json::Object o;
  for (const Field& f : fields) o.Set(f.key, f.is_record ? FieldsToJson(f.nested) : f.value);
  return json::Value(std::move(o));
}

json::Value Record::ToJson() const { return FieldsToJson(fields_); }

void Record::FlattenInto(const std::vector<Field>& fields, const std::string& prefix,
                         std::vector<std::pair<std::string, json::Value>>* out) {
  for (const Field& f : fields) {
    if (f.is_record) {
      FlattenInto(f.nested, prefix + f.key + ".", out);
    } else {
      out->emplace_back(prefix + f.key, f.value);
    }
  }
}

std::vector<std::pair<std::string, json::Value>> Record::Flatten() const {
  std::vector<std::pair<std::string, json::Value>> out;
  FlattenInto(fields_, "", &out);
  return out;
}

Result<std::string> CellText(const json::Value& value) {
  if (value.is_string()) return value.as_string();
  if (value.is_null()) return std::string("-");
  return json::ToCanonical(value);
}

namespace {

Status WritePretty(const json::Value& value, int depth, std::string* out) {
  auto indent = [&](int d) {
    out->push_back('\n');
    out->append(static_cast<size_t>(d) * 2, ' ');
  };
  if (value.is_array() && !value.as_array().empty()) {
    out->push_back('[');
    bool first = true;
    for (const json::Value& v : value.as_array()) {
      if (!first) out->push_back(',');
      first = false;
      indent(depth + 1);
      VIGILO_RETURN_IF_ERROR(WritePretty(v, depth + 1, out));
    }
    indent(depth);
    out->push_back(']');
    return Status::Ok();
  }
  if (value.is_object() && !value.as_object().empty()) {
    // The canonical key order: sort the members as ToCanonical does.
    std::vector<const json::Object::Member*> members;
    for (const json::Object::Member& m : value.as_object()) members.push_back(&m);
    std::sort(members.begin(), members.end(), [](auto* a, auto* b) { return a->first < b->first; });
    out->push_back('{');
    bool first = true;
    for (const json::Object::Member* m : members) {
      if (!first) out->push_back(',');
      first = false;
      indent(depth + 1);
      json::WriteString(m->first, out);
      out->append(": ");
      VIGILO_RETURN_IF_ERROR(WritePretty(m->second, depth + 1, out));
    }
    indent(depth);
    out->push_back('}');
    return Status::Ok();
  }
  return json::WriteCanonical(value, out);
}

bool IsNumberColumn(const std::vector<std::vector<json::Value>>& cells, size_t column) {
  bool any = false;
  for (const auto& row : cells) {
    if (row[column].is_null()) continue;
    if (!row[column].is_number()) return false;
    any = true;
  }
  return any;
}

}  // namespace

Result<std::string> PrettyJson(const json::Value& value) {
  std::string out;
  VIGILO_RETURN_IF_ERROR(WritePretty(value, 0, &out));
  return out;
}

Result<std::string> FormatRecord(const Record& record, const OutputFlags& flags) {
  if (flags.pretty) {
    VIGILO_ASSIGN_OR_RETURN(std::string text, PrettyJson(record.ToJson()));
    return text + "\n";
  }
  if (flags.json) {
    VIGILO_ASSIGN_OR_RETURN(std::string text, json::ToCanonical(record.ToJson()));
    return text + "\n";
  }
  auto fields = record.Flatten();
  size_t width = 0;
  for (const auto& [key, value] : fields) width = std::max(width, key.size());
  std::string out;
  for (const auto& [key, value] : fields) {
    VIGILO_ASSIGN_OR_RETURN(std::string cell, CellText(value));
    out += key;
    out.append(width - key.size() + 2, ' ');
    out += cell;
    out += '\n';
  }
  return out;
}

Status PrintRecord(const Record& record, const OutputFlags& flags) {
  VIGILO_ASSIGN_OR_RETURN(std::string text, FormatRecord(record, flags));
  return WriteStdout(text);
}

Result<std::string> FormatTable(const std::vector<std::string>& columns, const std::vector<Record>& rows,
                                const OutputFlags& flags) {
  std::string out;
  if (flags.json || flags.pretty) {
    for (const Record& row : rows) {
      VIGILO_ASSIGN_OR_RETURN(std::string text, json::ToCanonical(row.ToJson()));
      out += text + "\n";
    }
    return out;
  }
  // The cells of each row, by column (a key a row lacks is null).
  std::vector<std::vector<json::Value>> cells;
  for (const Record& row : rows) {
    auto fields = row.Flatten();
    std::vector<json::Value> line(columns.size());
    for (size_t c = 0; c < columns.size(); ++c) {
      for (const auto& [key, value] : fields) {
        if (key == columns[c]) line[c] = value;
      }
    }
    cells.push_back(std::move(line));
  }
  std::vector<std::vector<std::string>> text(rows.size(), std::vector<std::string>(columns.size()));
  std::vector<size_t> width(columns.size());
  for (size_t c = 0; c < columns.size(); ++c) width[c] = columns[c].size();
  for (size_t r = 0; r < rows.size(); ++r) {
    for (size_t c = 0; c < columns.size(); ++c) {
      VIGILO_ASSIGN_OR_RETURN(text[r][c], CellText(cells[r][c]));
      width[c] = std::max(width[c], text[r][c].size());
    }
  }
  std::vector<bool> right(columns.size());
  for (size_t c = 0; c < columns.size(); ++c) right[c] = IsNumberColumn(cells, c);
  auto emit = [&](const std::vector<std::string>& line) {
    std::string row;
    for (size_t c = 0; c < line.size(); ++c) {
      size_t pad = width[c] - line[c].size();
      bool last = c + 1 == line.size();
      if (c > 0) row += "  ";
      if (right[c]) row.append(pad, ' ');
      row += line[c];
      if (!right[c] && !last) row.append(pad, ' ');
    }
    out += row + "\n";
  };
  emit(columns);
  for (const auto& line : text) emit(line);
  return out;
}

Status PrintTable(const std::vector<std::string>& columns, const std::vector<Record>& rows, const OutputFlags& flags) {
  VIGILO_ASSIGN_OR_RETURN(std::string text, FormatTable(columns, rows, flags));
  return WriteStdout(text);
}

Status PrintSeedObject(const json::Value& value, const OutputFlags& flags) {
  std::string text;
  if (flags.pretty) {
    VIGILO_ASSIGN_OR_RETURN(text, PrettyJson(value));
  } else {
    VIGILO_ASSIGN_OR_RETURN(text, json::ToCanonical(value));
  }
  text.push_back('\n');
  return WriteStdout(text);
}

}  // namespace vigilo::cli
