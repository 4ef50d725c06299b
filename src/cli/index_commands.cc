// `vigilo index validate MANIFEST`: the publication rules that need only the
// manifest (publication-v1.md §6, level 1). Prints a one-line JSON summary.
#include <memory>
#include <string>

#include "commands.h"
#include "vigilo/common/byte_source.h"
#include "vigilo/ivf/manifest.h"
#include "vigilo/json/write.h"

namespace vigilo::cli {
namespace {

Status Validate(const std::string& path) {
  VIGILO_ASSIGN_OR_RETURN(WholeFile file, WholeFile::Open(path, ivf::kMaxManifestBytes));
  auto manifest = ivf::ParseManifest(file.bytes());
  if (!manifest.ok()) {
    Status s = manifest.status();
    return s.path().empty() ? std::move(s).WithPath(path) : std::move(s).PrependPath(path + ": ");
  }
  const ivf::Manifest& m = *manifest;
  json::Object o;
  o.Set("artifact-uuid", json::Value(m.artifact_uuid.ToString()));
  o.Set("dimension", json::Value::Uint(m.index.dimension));
  o.Set("encoding", json::Value(ivf::EncodingName(m.index.encoding)));
  o.Set("level", json::Value("manifest"));
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
  auto manifest = std::make_shared<std::string>();
  auto* validate = index->add_subcommand("validate", "Check a publication's manifest.json against every manifest rule");
  validate->add_option("manifest", *manifest, "Path of manifest.json")->required();
  validate->callback([manifest, action] { *action = [manifest] { return Validate(*manifest); }; });
}

}  // namespace vigilo::cli
