// The output rule every command follows (docs/cli.md): a readable table or
// key-value listing on stdout by default, canonical JSON lines with --json
// (one object per record, snake_case keys), indented with --pretty.
#pragma once

#include <CLI/CLI.hpp>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "vigilo/common/result.h"
#include "vigilo/json/value.h"

namespace vigilo::cli {

struct OutputFlags {
  bool json = false;
  bool pretty = false;  // implies json
};

// Adds --json (and, for commands that print one object, --pretty) to `cmd`.
void AddJsonFlag(CLI::App* cmd, OutputFlags* flags);
void AddJsonFlags(CLI::App* cmd, OutputFlags* flags);

// Whether `key` is a CLI output key: [a-z][a-z0-9_]*, no "__", no trailing "_".
bool IsSnakeCase(std::string_view key);

// One record of CLI output: snake_case keys in reading order (the text form
// keeps it; JSON sorts keys as canonical JSON does). Nested objects are
// Records too, flattened to "outer.inner" in the text form.
class Record {
 public:
  Record& Add(std::string key, json::Value value);
  Record& Add(std::string key, Record nested);
  json::Value ToJson() const;
  // (dotted key, value) pairs, nested records flattened.
  std::vector<std::pair<std::string, json::Value>> Flatten() const;

 private:
  struct Field {
    std::string key;
    json::Value value;
    std::vector<Field> nested;  // when the field is a nested Record
    bool is_record = false;
  };
  static void FlattenInto(const std::vector<Field>& fields, const std::string& prefix,
                          std::vector<std::pair<std::string, json::Value>>* out);
  static json::Value FieldsToJson(const std::vector<Field>& fields);
  std::vector<Field> fields_;
};

// A value as a table cell: strings unquoted, null as "-", everything else
// as compact canonical JSON.
Result<std::string> CellText(const json::Value& value);

// `value` as JSON indented by two spaces per level, keys sorted (the
// canonical text with whitespace added); ends without a newline.
Result<std::string> PrettyJson(const json::Value& value);

// One record. Text: "key  value" lines, keys padded to one width. JSON: one
// canonical line (indented with --pretty).
Result<std::string> FormatRecord(const Record& record, const OutputFlags& flags);
Status PrintRecord(const Record& record, const OutputFlags& flags);

// A seed object (an ObjectRef) is printed verbatim, as canonical JSON, in
// both output modes (--pretty indents it): it is the input of the next
// command (docs/cli.md).
Status PrintSeedObject(const json::Value& value, const OutputFlags& flags);

// Records sharing `columns` (their keys). Text: a header of the keys, then
// one row per record, columns left-aligned and separated by two spaces (a
// numeric column right-aligned). JSON: one canonical line per record.
Result<std::string> FormatTable(const std::vector<std::string>& columns, const std::vector<Record>& rows,
                                const OutputFlags& flags);
Status PrintTable(const std::vector<std::string>& columns, const std::vector<Record>& rows, const OutputFlags& flags);

}  // namespace vigilo::cli
