// The catalog's stored values (catalog.h): a binding and a registered
// source table as the canonical JSON a control-store root holds, and back.
#include <string>
#include <vector>

#include "catalog_internal.h"
#include "vigilo/engine/locator.h"
#include "vigilo/json/parse.h"
#include "vigilo/json/write.h"

namespace vigilo::engine {

std::string RootName(const CatalogName& name) { return name.source + "." + name.index; }

namespace {

Result<CatalogName> NameOfRoot(std::string_view root) {
  const size_t dot = root.find('.');
  if (dot == std::string_view::npos) return Internal("catalog root name without '.': " + std::string(root));
  return CatalogName{std::string(root.substr(0, dot)), std::string(root.substr(dot + 1))};
}

// ---- the binding value (canonical JSON, what the root holds) ----

json::Value FieldsJson(const std::vector<ivf::Field>& fields) {
  json::Array out;
  for (const ivf::Field& f : fields) {
    json::Object o;
    o.Set("name", json::Value(f.name));
    o.Set("type", json::Value(f.type.ToString()));
    out.emplace_back(std::move(o));
  }
  return out;
}

}  // namespace

json::Value RegisteredSourceJson(const RegisteredSource& s) {
  json::Object o;
  o.Set("columns", FieldsJson(s.columns));
  json::Array files;
  for (const RegisteredSourceFile& f : s.files) {
    json::Object fo;
    fo.Set("location", json::Value(f.location));
    fo.Set("row_begin", json::Value::Uint(f.row_begin));
    fo.Set("row_end", json::Value::Uint(f.row_end));
    fo.Set("sha256", json::Value(f.sha256));
    fo.Set("size", json::Value::Uint(f.size));
    files.emplace_back(std::move(fo));
  }
  o.Set("files", json::Value(std::move(files)));
  o.Set("key", json::Value(s.key));
  o.Set("name", json::Value(s.name));
  o.Set("row_group_rows", json::Value::Uint(s.row_group_rows));
  o.Set("rows", json::Value::Uint(s.rows));
  if (s.version != 0) o.Set("version", json::Value::Uint(s.version));
  return o;
}

namespace {

Result<const json::Value*> Member(const json::Object& o, std::string_view name, json::Kind kind) {
  const json::Value* v = o.Find(name);
  if (v == nullptr || v->kind() != kind) {
    return InvalidFormat("the catalog entry has no valid \"" + std::string(name) + "\"");
  }
  return v;
}
Result<std::string> StringMember(const json::Object& o, std::string_view name) {
  VIGILO_ASSIGN_OR_RETURN(const json::Value* v, Member(o, name, json::Kind::kString));
  return v->as_string();
}
Result<uint64_t> UintMember(const json::Object& o, std::string_view name) {
  VIGILO_ASSIGN_OR_RETURN(const json::Value* v, Member(o, name, json::Kind::kNumber));
  return v->as_number().AsUint64();
}

}  // namespace

Result<RegisteredSource> ParseRegisteredSource(const json::Value& value) {
  if (!value.is_object()) return InvalidFormat("a registered source is not an object");
  const json::Object& o = value.as_object();
  RegisteredSource s;
  VIGILO_ASSIGN_OR_RETURN(s.name, StringMember(o, "name"));
  VIGILO_ASSIGN_OR_RETURN(s.key, StringMember(o, "key"));
  VIGILO_ASSIGN_OR_RETURN(s.rows, UintMember(o, "rows"));
  VIGILO_ASSIGN_OR_RETURN(s.row_group_rows, UintMember(o, "row_group_rows"));
  if (o.Contains("version")) {
    VIGILO_ASSIGN_OR_RETURN(s.version, UintMember(o, "version"));
  }
  VIGILO_ASSIGN_OR_RETURN(const json::Value* columns, Member(o, "columns", json::Kind::kArray));
  for (const json::Value& c : columns->as_array()) {
    if (!c.is_object()) return InvalidFormat("a registered source column is not an object");
    ivf::Field f;
    VIGILO_ASSIGN_OR_RETURN(f.name, StringMember(c.as_object(), "name"));
    VIGILO_ASSIGN_OR_RETURN(std::string type, StringMember(c.as_object(), "type"));
    VIGILO_ASSIGN_OR_RETURN(f.type, ivf::ParseColumnType(type));
    s.columns.push_back(std::move(f));
  }
  VIGILO_ASSIGN_OR_RETURN(const json::Value* files, Member(o, "files", json::Kind::kArray));
  for (const json::Value& fv : files->as_array()) {
    if (!fv.is_object()) return InvalidFormat("a registered source file is not an object");
    const json::Object& fo = fv.as_object();
    RegisteredSourceFile f;
    VIGILO_ASSIGN_OR_RETURN(f.location, StringMember(fo, "location"));
    VIGILO_ASSIGN_OR_RETURN(f.sha256, StringMember(fo, "sha256"));
    VIGILO_ASSIGN_OR_RETURN(f.size, UintMember(fo, "size"));
    VIGILO_ASSIGN_OR_RETURN(f.row_begin, UintMember(fo, "row_begin"));
    VIGILO_ASSIGN_OR_RETURN(f.row_end, UintMember(fo, "row_end"));
    s.files.push_back(std::move(f));
  }
  return s;
}


Result<std::string> BindingValue(const CatalogBinding& b) {
  json::Object o;
  o.Set("artifact_uuid", json::Value(b.artifact_uuid.ToString()));
  o.Set("location", json::Value(b.location));
  o.Set("manifest_bytes", json::Value::Uint(b.manifest_bytes));
  o.Set("manifest_sha256", json::Value(b.manifest_sha256));
  if (b.source) o.Set("source", RegisteredSourceJson(*b.source));
  return json::ToCanonical(json::Value(std::move(o)));
}

// The display form of a stored location: a URL is never printed (it may
// carry a signature); its manifest key stands for it, as everywhere else.
std::string DisplayLocation(const std::string& location) {
  Result<Locator> l = ParseLocator(location);
  if (!l.ok() || l->kind != LocatorKind::kUrl) return location;
  std::string_view rest = location;
  while (!rest.empty() && rest.back() == '/') rest.remove_suffix(1);
  const size_t slash = rest.rfind('/');
  std::string_view last = rest.substr(slash + 1);
  return "(url)/" + std::string(last.ends_with(".json") ? last : "manifest.json");
}

Result<CatalogBinding> BindingOfRecord(control::ControlStore& control, const control::RootRecord& record) {
  VIGILO_ASSIGN_OR_RETURN(CatalogName name, NameOfRoot(record.name));
  VIGILO_ASSIGN_OR_RETURN(json::Value value, json::Parse(record.value));
  if (!value.is_object()) return InvalidFormat("the catalog entry is not an object").WithPath(name.ToString());
  const json::Object& o = value.as_object();
  CatalogBinding b;
  b.name = std::move(name);
  b.version = record.version;
  VIGILO_ASSIGN_OR_RETURN(b.location, StringMember(o, "location"));
  b.display = DisplayLocation(b.location);
  VIGILO_ASSIGN_OR_RETURN(std::string uuid, StringMember(o, "artifact_uuid"));
  VIGILO_ASSIGN_OR_RETURN(b.artifact_uuid, Uuid::Parse(uuid));
  VIGILO_ASSIGN_OR_RETURN(b.manifest_sha256, StringMember(o, "manifest_sha256"));
  VIGILO_ASSIGN_OR_RETURN(b.manifest_bytes, UintMember(o, "manifest_bytes"));
  if (const json::Value* s = o.Find("source")) {
    VIGILO_ASSIGN_OR_RETURN(b.source, ParseRegisteredSource(*s));
  }
  b.bound_at = record.published_at;
  b.unbound_at = record.retired_at;
  Result<control::AttemptRecord> attempt = control.GetAttempt(record.attempt);
  b.bound_by = attempt.ok() ? attempt->owner : std::string();
  return b;
}

}  // namespace vigilo::engine
