// `vigilo index verify MANIFEST [--all] [--max-buffer BYTES] [--any-uuid]`:
// full, streaming verification (ivf::VerifyPublicationFrom,
// publication-v1.md §6): manifest.json and its derived artifact-uuid, then
// every object's size, footer, row groups, column chunks, row counts, source
// partition and SHA-256, with bounded reads. Objects are read through a
// local store rooted at the manifest's directory, the manifest's file name
// being its key (failures name objects by their manifest paths).
//
// Success: a summary on stdout (docs/cli.md: key-value text, or --json). Failure: each failure
// as one "vigilo: <code>: <where>: <message>" line on stderr; the exit status
// is the first failure's. Without --all only the first failure is found;
// with --all every failure, then a count line.
#include <cstdio>
#include <memory>
#include <string>

#include "commands.h"
#include "index_io.h"
#include "output.h"
#include "vigilo/ivf/publication_verify.h"
#include "vigilo/json/write.h"

namespace vigilo::cli {
namespace {

struct VerifyArgs {
  std::string manifest;
  bool all = false;
  bool any_uuid = false;
  uint64_t max_buffer = uint64_t{256} << 20;
  OutputFlags output;
};

Status Verify(const VerifyArgs& a) {
  VIGILO_ASSIGN_OR_RETURN(PublicationStore publication, OpenPublicationStore(a.manifest));
  ivf::VerifyOptions options;
  options.all = a.all;
  options.max_buffer_bytes = a.max_buffer;
  options.derived_uuid = !a.any_uuid;
  VIGILO_ASSIGN_OR_RETURN(ivf::VerifyReport r,
                          ivf::VerifyPublicationFrom(*publication.store, publication.manifest_key, options));
  if (!r.ok()) {
    if (!a.all) return r.failures.front();
    for (const Status& f : r.failures) std::fprintf(stderr, "vigilo: %s\n", f.ToString().c_str());
    // The count, with the first failure's code so that the exit status is its.
    size_t n = r.failures.size();
    return Status(r.failures.front().code(),
                  std::to_string(n) + (n == 1 ? " failure" : " failures") + " in " + a.manifest);
  }
  Record o;
  o.Add("valid", json::Value(true));
  o.Add("level", json::Value("verify"));
  o.Add("objects", json::Value::Uint(r.objects));
  o.Add("rows", json::Value::Uint(r.rows));
  o.Add("source_rows", json::Value::Uint(r.source_rows));
  o.Add("row_groups", json::Value::Uint(r.row_groups));
  o.Add("column_chunks", json::Value::Uint(r.column_chunks));
  o.Add("manifest_bytes", json::Value::Uint(r.manifest_bytes));
  o.Add("bytes_read", json::Value::Uint(r.bytes_read));
  o.Add("bytes_hashed", json::Value::Uint(r.bytes_hashed));
  o.Add("largest_read", json::Value::Uint(r.largest_read));
  return PrintRecord(o, a.output);
}

}  // namespace

void RegisterIndexVerify(CLI::App* index, Action* action) {
  auto a = std::make_shared<VerifyArgs>();
  auto* verify = index->add_subcommand(
      "verify", "Verify a publication completely: every manifest rule, footer, row group, column chunk and SHA-256");
  verify->add_option("manifest", a->manifest, kManifestHelp)->required()->type_name("PUBLICATION");
  verify->add_flag("--all", a->all, "Report every failure, not only the first");
  verify->add_option("--max-buffer", a->max_buffer,
                     "Largest single read and column-chunk decode budget in bytes (default 268435456 = 256 MiB)")
      ->check(CLI::Validator(
          [](const std::string& text) -> std::string {
            // Said in whole bytes: CLI11's PositiveNumber prints a floating-point range.
            return text.find_first_not_of("0123456789") == std::string::npos && text.find_first_not_of('0') != std::string::npos
                       ? std::string()
                       : "a whole number of bytes, at least 1 (e.g. 268435456 = 256 MiB), not " + text;
          },
          "BYTES"));
  verify->add_flag("--any-uuid", a->any_uuid,
                   "Accept an artifact-uuid that is not derived from the manifest's content (other builders)");
  AddJsonFlags(verify, &a->output);
  verify->callback([a, action] { *action = [a] { return Verify(*a); }; });
}

}  // namespace vigilo::cli
