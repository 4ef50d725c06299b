// `vigilo index publish SRC DEST` (engine::PublishPublication): flags in, a
// record out, a progress bar in bytes on a terminal. The copy's rules are
// the engine's (include/vigilo/engine/publication_publish.h).
#include <memory>
#include <string>

#include "commands.h"
#include "context.h"
#include "exit_codes.h"
#include "published_roots.h"
#include "interrupt.h"
#include "output.h"
#include "progress.h"
#include "vigilo/engine/publication_publish.h"

namespace vigilo::cli {
namespace {

struct PublishArgs {
  std::string source, destination, stores_file;
  bool quiet = false;
  OutputFlags output;
};

Status Publish(const PublishArgs& a) {
  VIGILO_ASSIGN_OR_RETURN(std::unique_ptr<engine::Context> context, MakeContext(a.stores_file));
  Progress bar = Progress::ForStderr(a.quiet);
  store::CancelToken cancel;
  InterruptCancels interrupt(cancel);
  engine::PublishOptions options;
  options.cancel = &cancel;
  options.progress = [&bar](const engine::PublishProgress& p) { bar.Update("bytes", p.bytes_done, p.bytes_total); };
  Result<engine::PublishReport> published =
      engine::PublishPublication(*context, a.source, a.destination, options);
  bar.Finish();
  if (!published.ok()) {
    return UnderFlag(interrupt.Explain(published.status(), "DEST has no manifest; the objects copied so far stay, "
                                                           "and a rerun skips them"));
  }
  Record r;
  r.Add("outcome", json::Value(engine::PublishOutcomeName(published->outcome)));
  r.Add("manifest", json::Value(published->manifest));
  r.Add("artifact_uuid", json::Value(published->artifact_uuid));
  r.Add("objects", json::Value::Uint(published->objects));
  r.Add("copied", json::Value::Uint(published->copied));
  r.Add("already_present", json::Value::Uint(published->already_present));
  r.Add("bytes", json::Value::Uint(published->bytes_total));
  r.Add("bytes_copied", json::Value::Uint(published->bytes_copied));
  return PrintRecord(r, a.output);
}

}  // namespace

void RegisterIndexPublish(CLI::App* index, Action* action) {
  auto a = std::make_shared<PublishArgs>();
  auto* publish = index->add_subcommand(
      "publish",
      "Copy a publication to another store: every object it names (same paths, bytes checked against the "
      "manifest and read back), then its manifest.json last; a rerun resumes");
  publish->add_option("source", a->source,
                      "The publication: a directory, its manifest.json, an http(s) URL, or ALIAS:KEY")
      ->required()
      ->type_name("SRC");
  publish->add_option("destination", a->destination,
                      "Where it goes: a directory (created if absent) or ALIAS:KEY in a writable configured store")
      ->required()
      ->type_name("DEST");
  publish->add_option("--stores", a->stores_file, kStoresFlagHelp);
  publish->add_flag("-q,--quiet", a->quiet, "No progress bar (one is drawn on stderr only when it is a terminal)");
  AddJsonFlags(publish, &a->output);
  publish->callback([a, action] { *action = [a] { return Publish(*a); }; });
}

}  // namespace vigilo::cli
