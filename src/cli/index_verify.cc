// `vigilo index verify PUBLICATION [--manifest-only | --quick] [--all]
// [--max-buffer BYTES] [--any-uuid]`: the one verification command
// (publication-v1.md §6), at one of three levels, each a superset of the one
// before:
//   manifest (--manifest-only): manifest.json by every rule of §2 and its
//     content-derived artifact-uuid; no object is read;
//   quick (--quick): also every object's size, footer, schema, row-group
//     CID statistics and row counts (footers only, no column chunk);
//   full (the default): also every column chunk decoded with its value rules,
//     the source partition, and every object's SHA-256: every byte.
// The record says which checks ran (`checked`) and which did not
// (`not_checked`); nothing claims more, and there is no "valid" field.
// Objects are read through the publication's store (a local directory or an
// http(s) base URL, index_io.h), the manifest's file name being its key, so a
// URL is checked exactly as much as a local copy and failures name objects by
// their manifest paths in both.
//
// `index validate`, the older spelling, is kept as an alias: it runs the same
// checks as before under the new levels (with --any-uuid, since it never
// checked the derived UUID), prints the same record, and says the new
// spelling on stderr.
//
// Success: one record on stdout (docs/cli.md). Failure: each failure as one
// "vigilo: <code>: <where>: <message>" line on stderr; the exit status is the
// first failure's. Without --all only the first failure is found; with --all
// every failure, then a count line.
#include <algorithm>
#include <cstdio>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "commands.h"
#include "context.h"
#include "exit_codes.h"
#include "index_io.h"
#include "interrupt.h"
#include "output.h"
#include "vigilo/engine/publication_verify.h"
#include "vigilo/json/write.h"

namespace vigilo::cli {
namespace {

using Level = engine::VerifyLevel;

struct VerifyArgs {
  std::string manifest;
  bool manifest_only = false;
  bool quick = false;
  bool all = false;
  bool any_uuid = false;
  uint64_t max_buffer = uint64_t{256} << 20;
  OutputFlags output;
  Level level() const { return manifest_only ? Level::kManifest : quick ? Level::kQuick : Level::kFull; }
};

json::Value Names(const std::vector<std::string>& names) {
  json::Array a;
  for (const std::string& n : names) a.emplace_back(n);
  return json::Value(std::move(a));
}

Status Verify(const VerifyArgs& a) {
  VIGILO_ASSIGN_OR_RETURN(std::unique_ptr<engine::Context> context, MakeContext());
  const Level level = a.level();
  engine::VerifyRequest request;
  request.level = level;
  request.all = a.all;
  request.any_uuid = a.any_uuid;
  request.max_buffer = a.max_buffer;
  // SIGINT/SIGTERM stop it at the next object read (docs/errors.md); verifying writes nothing.
  store::CancelToken cancel;
  InterruptCancels interrupt(cancel);
  request.cancel = &cancel;
  auto verified = engine::VerifyPublication(*context, a.manifest, request);
  if (!verified.ok()) return interrupt.Explain(verified.status(), "nothing was verified, and verifying writes nothing");
  engine::VerifyOutcome outcome = std::move(*verified);
  const ivf::VerifyReport& r = outcome.report;
  if (!r.ok()) {
    if (!a.all) return r.failures.front();
    for (const Status& f : r.failures) std::fprintf(stderr, "vigilo: %s\n", ErrorText(f).c_str());
    // The count, with the first failure's code so that the exit status is its.
    size_t n = r.failures.size();
    return Status(r.failures.front().code(),
                  std::to_string(n) + (n == 1 ? " failure" : " failures") + " in " + a.manifest);
  }
  Record o;
  o.Add("level", json::Value(std::string(engine::VerifyLevelName(level))));
  o.Add("checked", Names(outcome.checked));
  o.Add("not_checked", Names(outcome.not_checked));
  o.Add("manifest_bytes", json::Value::Uint(r.manifest_bytes));
  // Counts only of what this level read: a zero is never a claim about an
  // object that was not looked at.
  if (level != Level::kManifest) {
    o.Add("objects", json::Value::Uint(r.objects));
    o.Add("rows", json::Value::Uint(r.rows));
    o.Add("source_rows", json::Value::Uint(r.source_rows));
    if (r.assets > 0) o.Add("embedding_assets", json::Value::Uint(r.assets));  // only with an embedding section
    o.Add("row_groups", json::Value::Uint(r.row_groups));
    if (level == Level::kFull) o.Add("column_chunks", json::Value::Uint(r.column_chunks));
    o.Add("bytes_read", json::Value::Uint(r.bytes_read));
    if (level == Level::kFull) o.Add("bytes_hashed", json::Value::Uint(r.bytes_hashed));
    o.Add("largest_read", json::Value::Uint(r.largest_read));
  }
  return PrintRecord(o, a.output);
}

void AddMaxBuffer(CLI::App* cmd, uint64_t* max_buffer) {
  cmd->add_option("--max-buffer", *max_buffer,
                  "Largest single read and column-chunk decode budget in bytes (default 268435456 = 256 MiB)")
      ->check(CLI::Validator(
          [](const std::string& text) -> std::string {
            // Said in whole bytes: CLI11's PositiveNumber prints a floating-point range.
            return text.find_first_not_of("0123456789") == std::string::npos &&
                           text.find_first_not_of('0') != std::string::npos
                       ? std::string()
                       : "a whole number of bytes, at least 1 (e.g. 268435456 = 256 MiB), not " + text;
          },
          "BYTES"));
}

// The old spelling: --manifest-only, the default (footers) and --deep map to
// the levels manifest, quick and full. It never checked the derived UUID, so
// neither does the alias (the record's not_checked lists it).
struct ValidateArgs {
  std::string manifest;
  bool manifest_only = false;
  bool deep = false;
  OutputFlags output;
};

Status ValidateAlias(const ValidateArgs& v) {
  VerifyArgs a;
  a.manifest = v.manifest;
  a.manifest_only = v.manifest_only;
  a.quick = !v.manifest_only && !v.deep;
  a.any_uuid = true;
  a.output = v.output;
  std::string spelling = std::string("index verify") + (v.manifest_only ? " --manifest-only" : "") +
                         (a.quick ? " --quick" : "") + " --any-uuid";
  std::fprintf(stderr, "vigilo: note: index validate is an older spelling of %s\n", spelling.c_str());
  return Verify(a);
}

}  // namespace

void RegisterIndexVerify(CLI::App* index, Action* action) {
  auto a = std::make_shared<VerifyArgs>();
  auto* verify = index->add_subcommand(
      "verify",
      "Verify a publication: every byte by default (manifest, footers, every column chunk, SHA-256); --quick reads "
      "only the manifest and footers. The record lists what was checked");
  verify->add_option("manifest", a->manifest, kManifestHelp)->required()->type_name("PUBLICATION");
  auto* only = verify->add_flag("--manifest-only", a->manifest_only,
                                "Check manifest.json alone (its rules and derived artifact-uuid); read no object");
  verify->add_flag("--quick", a->quick,
                   "Check the manifest, then each object's size, footer, schema, row-group statistics and row "
                   "count; no column chunk or SHA-256")
      ->excludes(only);
  verify->add_flag("--all", a->all, "Report every failure, not only the first");
  AddMaxBuffer(verify, &a->max_buffer);
  verify->add_flag("--any-uuid", a->any_uuid,
                   "Accept an artifact-uuid that is not derived from the manifest's content (other builders)");
  AddJsonFlags(verify, &a->output);
  verify->callback([a, action] { *action = [a] { return Verify(*a); }; });

  auto v = std::make_shared<ValidateArgs>();
  auto* validate = index->add_subcommand(
      "validate", "Older spelling of index verify --any-uuid: --quick by default, --manifest-only, --deep = full");
  validate->add_option("manifest", v->manifest, kManifestHelp)->required()->type_name("PUBLICATION");
  auto* v_only = validate->add_flag("--manifest-only", v->manifest_only, "index verify --manifest-only");
  validate->add_flag("--deep", v->deep, "index verify (every byte)")->excludes(v_only);
  AddJsonFlags(validate, &v->output);
  validate->callback([v, action] { *action = [v] { return ValidateAlias(*v); }; });
}

}  // namespace vigilo::cli
