// `vigilo index validate MANIFEST [--manifest-only | --deep]`: the
// validation levels of publication-v1.md §6 (manifest; footers, the default;
// deep). Objects are read from the manifest's directory. Prints a one-line
// JSON summary.
#include <memory>
#include <string>

#include "commands.h"
#include "vigilo/common/byte_source.h"
#include <filesystem>

#include "vigilo/ivf/manifest.h"
#include "vigilo/ivf/publication_check.h"
#include "vigilo/json/write.h"

namespace vigilo::cli {
namespace {

struct ValidateArgs {
  std::string manifest;
  bool manifest_only = false;
  bool deep = false;
};

Status Validate(const ValidateArgs& args) {
  const std::string& path = args.manifest;
  VIGILO_ASSIGN_OR_RETURN(WholeFile file, WholeFile::Open(path, ivf::kMaxManifestBytes));
  auto manifest = ivf::ParseManifest(file.bytes());
  if (!manifest.ok()) {
    Status s = manifest.status();
    return s.path().empty() ? std::move(s).WithPath(path) : std::move(s).PrependPath(path + ": ");
  }
  const ivf::Manifest& m = *manifest;
  json::Object o;
  if (!args.manifest_only) {
    ivf::DirectoryObjectReader reader(std::filesystem::path(path).parent_path().string());
    VIGILO_ASSIGN_OR_RETURN(ivf::ObjectCheckReport report, ivf::CheckPublicationObjects(m, reader, args.deep));
    o.Set("objects", json::Value::Uint(report.objects));
    o.Set("row-groups", json::Value::Uint(report.row_groups));
  }
  o.Set("artifact-uuid", json::Value(m.artifact_uuid.ToString()));
  o.Set("dimension", json::Value::Uint(m.index.dimension));
  o.Set("encoding", json::Value(ivf::EncodingName(m.index.encoding)));
  o.Set("level", json::Value(args.manifest_only ? "manifest" : args.deep ? "deep" : "footers"));
  o.Set("metric", json::Value(ivf::MetricName(m.index.metric)));
  o.Set("nlist", json::Value::Uint(m.index.nlist));
  o.Set("ntotal", json::Value::Uint(m.index.ntotal));
  o.Set("postings-files", json::Value::Uint(m.postings.size()));
  o.Set("roots", json::Value::Uint(m.hierarchy.roots()));
  o.Set("source", json::Value(m.source.has_value()));
  o.Set("valid", json::Value(true));
  VIGILO_ASSIGN_OR_RETURN(std::string line, json::ToCanonical(json::Value(std::move(o))));
  line.push_back('\n');
  return WriteStdout(line);
}

}  // namespace

void RegisterIndexCommands(CLI::App& app, Action* action) {
  auto* index = app.add_subcommand("index", "Vector publications (IVF-LVQ snapshots)");
  index->require_subcommand(1);
  auto args = std::make_shared<ValidateArgs>();
  auto* validate = index->add_subcommand(
      "validate", "Check a publication: its manifest, then its objects' footers (and with --deep all their bytes)");
  validate->add_option("manifest", args->manifest, "Path of manifest.json (objects are read beside it)")->required();
  auto* only = validate->add_flag("--manifest-only", args->manifest_only, "Check manifest.json alone, read no object");
  validate->add_flag("--deep", args->deep, "Also check every object's SHA-256 and the values (code lengths, keys)")
      ->excludes(only);
  validate->callback([args, action] { *action = [args] { return Validate(*args); }; });
}

}  // namespace vigilo::cli
