// `vigilo version`, `vigilo hash`, `vigilo json canon|check`.
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "commands.h"
#include "output.h"
#include "vigilo/common/byte_source.h"
#include "vigilo/common/hex.h"
#include "vigilo/hash/file_digest.h"
#include "vigilo/json/canonical.h"

#ifndef VIGILO_VERSION
#define VIGILO_VERSION "unknown"
#endif

namespace vigilo::cli {

void RegisterVersionCommand(CLI::App& app, Action* action) {
  auto* cmd = app.add_subcommand("version", "Print the vigilo version (also: vigilo --version, -V)");
  auto flags = std::make_shared<OutputFlags>();
  AddJsonFlags(cmd, flags.get());
  cmd->callback([flags, action] {
    *action = [flags]() -> Status {
      if (!flags->json && !flags->pretty) return WriteStdout(std::string("vigilo ") + VIGILO_VERSION + "\n");
      return PrintRecord(Record().Add("version", json::Value(VIGILO_VERSION)), *flags);
    };
  });
}

void RegisterHashCommand(CLI::App& app, Action* action) {
  auto* cmd = app.add_subcommand("hash", "Print BLAKE3-256 or SHA-256 digests of files, like b3sum/sha256sum");
  // CLI11 keeps references to these until parsing ends; the callback owns them after.
  struct Args {
    std::vector<std::string> files;
    bool blake3 = false;
    bool sha256 = false;
    OutputFlags output;
  };
  auto args = std::make_shared<Args>();
  auto* b3 = cmd->add_flag("--blake3", args->blake3, "BLAKE3-256 (the default)");
  cmd->add_flag("--sha256", args->sha256, "SHA-256")->excludes(b3);
  cmd->add_option("files", args->files, "Files to hash ('-' for stdin)")->required();
  AddJsonFlag(cmd, &args->output);
  cmd->callback([args, action] {
    *action = [args]() -> Status {
      bool sha = args->sha256;
      for (const std::string& file : args->files) {
        std::string path = file == "-" ? "/dev/stdin" : file;
        VIGILO_ASSIGN_OR_RETURN(FileDigests d, DigestFile(path, !sha, sha));
        std::string digest = HexEncode(sha ? *d.sha256 : *d.blake3);
        if (args->output.json) {
          Record r;
          r.Add("algorithm", json::Value(sha ? "sha256" : "blake3")).Add("digest", json::Value(digest));
          r.Add("file", json::Value(file));
          VIGILO_RETURN_IF_ERROR(PrintRecord(r, args->output));
        } else {  // the b3sum/sha256sum line, which `b3sum --check` reads
          VIGILO_RETURN_IF_ERROR(WriteStdout(digest + "  " + file + "\n"));
        }
      }
      return Status::Ok();
    };
  });
}

void RegisterJsonCommands(CLI::App& app, Action* action) {
  auto* json = app.add_subcommand("json", "Strict and canonical JSON");
  json->require_subcommand(1);
  struct Args {
    std::string file;
    size_t max_bytes = json::ParseOptions{}.max_bytes;
    bool lines = false;
  };
  auto canon_args = std::make_shared<Args>();
  auto* canon = json->add_subcommand("canon", "Write the canonical form of a JSON document (no trailing newline)");
  canon->add_option("file", canon_args->file, "Input file (default: stdin)");
  canon->add_option("--max-bytes", canon_args->max_bytes, "Refuse inputs larger than this");
  canon->add_flag("--lines", canon_args->lines,
                  "JSON Lines: canonicalize each LF-terminated line, each output line ending in LF");
  canon->callback([=] {
    *action = [=]() -> Status {
      VIGILO_ASSIGN_OR_RETURN(WholeFile file, WholeFile::Open(canon_args->file, canon_args->max_bytes));
      std::string_view input = file.bytes();
      json::ParseOptions options;
      options.max_bytes = canon_args->max_bytes;
      if (!canon_args->lines) {
        VIGILO_ASSIGN_OR_RETURN(std::string out, json::Canonicalize(input, options));
        return WriteStdout(out);
      }
      return json::CanonicalizeLines(input, options, WriteStdout);
    };
  });
  auto check_args = std::make_shared<Args>();
  auto* check = json->add_subcommand("check", "Exit 0 if the input is already canonical, else name the offset");
  check->add_option("file", check_args->file, "Input file (default: stdin)");
  check->add_option("--max-bytes", check_args->max_bytes, "Refuse inputs larger than this");
  check->callback([=] {
    *action = [=]() -> Status {
      VIGILO_ASSIGN_OR_RETURN(WholeFile file, WholeFile::Open(check_args->file, check_args->max_bytes));
      std::string_view input = file.bytes();
      json::ParseOptions options;
      options.max_bytes = check_args->max_bytes;
      return json::CheckCanonical(input, options);
    };
  });
}

}  // namespace vigilo::cli
