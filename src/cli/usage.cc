#include "usage.h"

#include <algorithm>
#include <memory>

namespace vigilo::cli {

namespace {

// Optimal string alignment distance: insertions, deletions, substitutions
// and swaps of two neighbours each cost 1 ("biuld" is one step from "build").
size_t EditDistance(std::string_view a, std::string_view b) {
  std::vector<std::vector<size_t>> d(a.size() + 1, std::vector<size_t>(b.size() + 1));
  for (size_t i = 0; i <= a.size(); ++i) d[i][0] = i;
  for (size_t j = 0; j <= b.size(); ++j) d[0][j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    for (size_t j = 1; j <= b.size(); ++j) {
      size_t cost = a[i - 1] == b[j - 1] ? 0 : 1;
      d[i][j] = std::min({d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1]) {
        d[i][j] = std::min(d[i][j], d[i - 2][j - 2] + 1);
      }
    }
  }
  return d[a.size()][b.size()];
}

std::vector<std::string> SubcommandNames(const CLI::App* command) {
  std::vector<std::string> names;
  for (const CLI::App* sub : command->get_subcommands([](const CLI::App*) { return true; })) {
    names.push_back(sub->get_name());
  }
  return names;
}

std::vector<std::string> FlagNames(const CLI::App* command) {
  std::vector<std::string> names;
  for (const CLI::Option* option : command->get_options()) {
    for (const std::string& l : option->get_lnames()) names.push_back("--" + l);
    for (const std::string& s : option->get_snames()) names.push_back("-" + s);
  }
  return names;
}

std::string Suggest(std::string_view given, const std::vector<std::string>& candidates) {
  std::string match = ClosestMatch(given, candidates);
  return match.empty() ? "" : " (did you mean " + match + "?)";
}

// CLI11's messages start with a capital letter; ours do not.
std::string Lowercased(std::string text) {
  if (!text.empty() && text[0] >= 'A' && text[0] <= 'Z' && !(text.size() > 1 && text[1] >= 'A' && text[1] <= 'Z')) {
    text[0] = static_cast<char>(text[0] - 'A' + 'a');
  }
  return text;
}

std::string Joined(const std::vector<std::string>& words) {
  std::string out;
  for (const std::string& w : words) out += (out.empty() ? "" : ", ") + w;
  return out;
}

}  // namespace

std::string ClosestMatch(std::string_view given, const std::vector<std::string>& candidates) {
  std::string best;
  size_t best_distance = 0;
  for (const std::string& c : candidates) {
    size_t limit = std::max<size_t>(2, std::max(given.size(), c.size()) / 3);
    size_t d = EditDistance(given, c);
    if (d <= limit && (best.empty() || d < best_distance)) {
      best = c;
      best_distance = d;
    }
  }
  return best;
}

CLI::App* DeepestCommand(CLI::App& app) {
  CLI::App* current = &app;
  while (!current->get_subcommands().empty()) current = current->get_subcommands().back();
  return current;
}

std::string CommandPath(const CLI::App* command) {
  std::string path;
  for (const CLI::App* c = command; c != nullptr && c->get_parent() != nullptr; c = c->get_parent()) {
    path = c->get_name() + (path.empty() ? "" : " " + path);
  }
  return path;
}

std::string UsageMessage(CLI::App& app, const CLI::ParseError& error) {
  CLI::App* command = DeepestCommand(app);
  std::string where = CommandPath(command);
  std::string prefix = "invalid_argument: " + (where.empty() ? "" : where + ": ");
  std::vector<std::string> extras = app.remaining(true);
  if (!extras.empty()) {
    const std::string& first = extras.front();
    if (first.size() > 1 && first[0] == '-') {
      std::string name = first.substr(0, first.find('='));
      return prefix + "unknown flag " + name + Suggest(name, FlagNames(command));
    }
    std::vector<std::string> subcommands = SubcommandNames(command);
    if (!subcommands.empty()) {
      return prefix + "unknown command '" + first + "'" + Suggest(first, subcommands);
    }
    return prefix + "unexpected argument '" + first + "'";
  }
  if (error.get_name() == "RequiredError" && command->get_require_subcommand_min() > 0 &&
      command->get_subcommands().empty()) {
    return prefix + "a command is required: one of " + Joined(SubcommandNames(command)) + " (see vigilo help" +
           (where.empty() ? "" : " " + where) + ")";
  }
  return prefix + Lowercased(error.what());
}

namespace {

// The option's type name when a command set one (`->type_name("DIR")`),
// else its name in capitals.
std::string Placeholder(const CLI::Option* option) {
  std::string type = option->get_type_name();
  static const char* const kGeneric[] = {"TEXT", "UINT", "INT", "FLOAT", "BOOLEAN", "NUMBER", ""};
  if (std::find(std::begin(kGeneric), std::end(kGeneric), type) == std::end(kGeneric)) return type;
  std::string name = option->get_positional() ? option->get_name(true, false) : option->get_lnames().front();
  std::string out;
  for (char c : name) out += c == '-' ? '_' : static_cast<char>(c >= 'a' && c <= 'z' ? c - 'a' + 'A' : c);
  if (option->get_positional() && option->get_items_expected_max() > 1) out += "…";
  return out;
}

std::string FlagName(const CLI::Option* option) {
  return option->get_lnames().empty() ? "-" + option->get_snames().front() : "--" + option->get_lnames().front();
}

void CommandRows(CLI::App* command, std::string* out) {
  std::vector<CLI::App*> subs = command->get_subcommands([](CLI::App*) { return true; });
  if (!subs.empty()) {
    for (CLI::App* sub : subs) CommandRows(sub, out);
    return;
  }
  std::string synopsis = "vigilo " + CommandPath(command);
  if (command->get_name() == "help") synopsis += " [COMMAND…]";  // its words are not CLI11 options
  std::string optional;
  for (const CLI::Option* option : command->get_options()) {
    if (option->get_lnames().empty() && option->get_snames().empty() && !option->get_positional()) continue;
    if (!option->get_lnames().empty() && option->get_lnames().front() == "help") continue;
    if (option->get_positional()) {
      synopsis += option->get_required() ? " " + Placeholder(option) : " [" + Placeholder(option) + "]";
    } else if (option->get_required()) {
      synopsis += " " + FlagName(option) + " " + Placeholder(option);
    } else {
      optional += (optional.empty() ? "" : " ") + FlagName(option);
    }
  }
  std::string description;
  for (char c : command->get_description()) description += c == '|' ? std::string("\\|") : std::string(1, c);
  std::string escaped;
  for (char c : synopsis) escaped += c == '|' ? std::string("\\|") : std::string(1, c);
  *out += "| `" + escaped + "` | " + description + " | " + (optional.empty() ? "" : "`" + optional + "`") + " |\n";
}

}  // namespace

std::string CommandTableMarkdown(CLI::App& root) {
  std::string out = "| command | what it does | optional flags |\n|---|---|---|\n";
  for (CLI::App* sub : root.get_subcommands([](CLI::App*) { return true; })) CommandRows(sub, &out);
  return out;
}

void RegisterHelpCommand(CLI::App& app, Action* action) {
  auto* help = app.add_subcommand("help", "Print the commands, or one command's flags (vigilo help index build)");
  help->prefix_command();  // everything after `help` names the command
  CLI::App* root = &app;
  help->callback([help, root, action] {
    std::vector<std::string> words = help->remaining();
    *action = [root, words]() -> Status {
      if (words.size() == 1 && words[0] == "--markdown") return WriteStdout(CommandTableMarkdown(*root));
      CLI::App* command = root;
      for (const std::string& word : words) {
        CLI::App* next = nullptr;
        for (CLI::App* sub : command->get_subcommands([](CLI::App*) { return true; })) {
          if (sub->get_name() == word) next = sub;
        }
        if (next == nullptr) {
          std::string where = CommandPath(command);
          return InvalidArgument((where.empty() ? "" : where + ": ") + "unknown command '" + word + "'" +
                                 Suggest(word, SubcommandNames(command)));
        }
        command = next;
      }
      // The formatter directly: App::help() would describe the command
      // selected on this command line (`help` itself). The usage line is
      // named after the whole path: "vigilo index build".
      std::string path = CommandPath(command);
      return WriteStdout(command->get_formatter()->make_help(command, "vigilo" + (path.empty() ? "" : " " + path),
                                                             CLI::AppFormatMode::Normal));
    };
  });
}

}  // namespace vigilo::cli
