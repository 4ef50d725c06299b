#include "vigilo/cases/typed_case.h"

#include <algorithm>
#include <set>

#include "vigilo/cases/fields.h"
#include "vigilo/common/utf8.h"
#include "vigilo/hash/blake3.h"
#include "vigilo/json/write.h"

namespace vigilo::cases {
namespace {

constexpr std::string_view kCaseHashContext = "vigilo 2026-12-02 normalized case v1";

Result<TaskType> ParseTaskType(const std::string& name, const std::string& path) {
  if (name == "generation") return TaskType::kGeneration;
  if (name == "classification") return TaskType::kClassification;
  if (name == "multiple_choice") return TaskType::kMultipleChoice;
  if (name == "conversation") return TaskType::kConversation;
  return InvalidFormat("unknown task_type \"" + name + "\"").WithPath(path);
}

Status NonEmpty(const std::string& s, const std::string& path) {
  if (s.empty()) return InvalidFormat("must be a nonempty string").WithPath(path);
  return Status::Ok();
}

// An array of strings; `unique` and `min_items` as the shape requires.
Result<std::vector<std::string>> StringList(const Fields& f, std::string_view name, size_t min_items, bool unique) {
  VIGILO_ASSIGN_OR_RETURN(const json::Array* items, f.Array(name));
  std::string path = f.PathOf(name);
  if (items->size() < min_items) {
    return InvalidFormat("needs at least " + std::to_string(min_items) + " items").WithPath(path);
  }
  std::vector<std::string> out;
  std::set<std::string_view> seen;
  for (size_t i = 0; i < items->size(); ++i) {
    std::string item_path = path + "[" + std::to_string(i) + "]";
    const json::Value& v = (*items)[i];
    if (!v.is_string()) return InvalidFormat("expected a string").WithPath(item_path);
    VIGILO_RETURN_IF_ERROR(NonEmpty(v.as_string(), item_path));
    if (unique && !seen.insert(v.as_string()).second) {
      return InvalidFormat("duplicate item \"" + v.as_string() + "\"").WithPath(item_path);
    }
    out.push_back(v.as_string());
  }
  return out;
}

Status ValidateInput(TaskType type, const json::Value& input, const std::string& path) {
  VIGILO_ASSIGN_OR_RETURN(Fields f, Fields::Of(input, path));
  switch (type) {
    case TaskType::kGeneration: {
      VIGILO_RETURN_IF_ERROR(f.ExpectOnly({"prompt"}, {"system"}));
      VIGILO_ASSIGN_OR_RETURN(std::string prompt, f.String("prompt"));
      VIGILO_RETURN_IF_ERROR(NonEmpty(prompt, f.PathOf("prompt")));
      if (f.Has("system")) VIGILO_RETURN_IF_ERROR(f.String("system").status());
      return Status::Ok();
    }
    case TaskType::kClassification: {
      VIGILO_RETURN_IF_ERROR(f.ExpectExactly({"labels", "text"}));
      VIGILO_RETURN_IF_ERROR(f.String("text").status());
      return StringList(f, "labels", 2, true).status();
    }
    case TaskType::kMultipleChoice: {
      VIGILO_RETURN_IF_ERROR(f.ExpectExactly({"choices", "question"}));
      VIGILO_ASSIGN_OR_RETURN(std::string question, f.String("question"));
      VIGILO_RETURN_IF_ERROR(NonEmpty(question, f.PathOf("question")));
      return StringList(f, "choices", 2, false).status();
    }
    case TaskType::kConversation: {
      VIGILO_RETURN_IF_ERROR(f.ExpectExactly({"messages"}));
      VIGILO_ASSIGN_OR_RETURN(const json::Array* messages, f.Array("messages"));
      std::string mpath = f.PathOf("messages");
      if (messages->empty()) return InvalidFormat("needs at least one message").WithPath(mpath);
      std::string role;
      for (size_t i = 0; i < messages->size(); ++i) {
        VIGILO_ASSIGN_OR_RETURN(Fields m, Fields::Of((*messages)[i], mpath + "[" + std::to_string(i) + "]"));
        VIGILO_RETURN_IF_ERROR(m.ExpectExactly({"content", "role"}));
        VIGILO_ASSIGN_OR_RETURN(role, m.String("role"));
        if (role != "system" && role != "user" && role != "assistant") {
          return InvalidFormat("role must be system, user or assistant, got \"" + role + "\"").WithPath(m.PathOf("role"));
        }
        VIGILO_RETURN_IF_ERROR(m.String("content").status());
      }
      if (role != "user") return InvalidFormat("the last message must have role \"user\"").WithPath(mpath);
      return Status::Ok();
    }
  }
  return Internal("unknown task type");
}

Result<std::vector<std::string>> ValidateTags(const Fields& f) {
  VIGILO_ASSIGN_OR_RETURN(const json::Array* items, f.Array("tags"));
  std::string path = f.PathOf("tags");
  if (items->size() > kMaxTags) return InvalidFormat("more than 64 tags").WithPath(path);
  VIGILO_ASSIGN_OR_RETURN(std::vector<std::string> tags, StringList(f, "tags", 0, true));
  for (size_t i = 0; i < tags.size(); ++i) {
    std::string item_path = path + "[" + std::to_string(i) + "]";
    if (tags[i].size() > kMaxTagBytes) return InvalidFormat("tag longer than 128 bytes").WithPath(item_path);
    if (FindControlCharacter(tags[i]) != kUtf8Valid) {
      return InvalidFormat("tag contains a control character").WithPath(item_path);
    }
  }
  return tags;
}

}  // namespace

std::string_view TaskTypeName(TaskType type) {
  switch (type) {
    case TaskType::kGeneration: return "generation";
    case TaskType::kClassification: return "classification";
    case TaskType::kMultipleChoice: return "multiple_choice";
    case TaskType::kConversation: return "conversation";
  }
  return "unknown";
}

Result<TypedCase> ValidateCase(const json::Value& source, const std::string& path) {
  VIGILO_ASSIGN_OR_RETURN(Fields f, Fields::Of(source, path));
  VIGILO_RETURN_IF_ERROR(f.ExpectOnly({"id", "input"}, {"expected", "metadata", "tags", "task_type"}));
  TypedCase typed;
  VIGILO_ASSIGN_OR_RETURN(std::string id, f.String("id"));
  auto uuid = Uuid::Parse(id);
  if (!uuid.ok()) return uuid.status().WithPath(f.PathOf("id"));
  typed.id = *uuid;
  if (f.Has("task_type")) {
    VIGILO_ASSIGN_OR_RETURN(std::string name, f.String("task_type"));
    VIGILO_ASSIGN_OR_RETURN(typed.task_type, ParseTaskType(name, f.PathOf("task_type")));
  }
  VIGILO_ASSIGN_OR_RETURN(const json::Value* input, f.Get("input"));
  VIGILO_RETURN_IF_ERROR(ValidateInput(typed.task_type, *input, f.PathOf("input")));
  typed.input = *input;
  if (f.Has("expected")) typed.expected = *source.as_object().Find("expected");
  if (f.Has("tags")) {
    VIGILO_ASSIGN_OR_RETURN(typed.tags, ValidateTags(f));
  }
  typed.metadata = json::Value(json::Object());
  if (f.Has("metadata")) {
    VIGILO_ASSIGN_OR_RETURN(Fields metadata, f.Object("metadata"));
    typed.metadata = json::Value(metadata.object());
  }
  return typed;
}

std::string NormalizedCaseJson(const TypedCase& typed) {
  std::vector<std::string> tags = typed.tags;
  std::sort(tags.begin(), tags.end());
  json::Array tag_values(tags.begin(), tags.end());
  json::Object normalized;
  normalized.Set("expected", typed.expected);
  normalized.Set("input", typed.input);
  normalized.Set("tags", json::Value(std::move(tag_values)));
  normalized.Set("task_type", json::Value(std::string(TaskTypeName(typed.task_type))));
  std::string bytes;
  // Cannot fail: every number came from the parser, so it is finite.
  (void)json::WriteCanonical(json::Value(std::move(normalized)), &bytes);
  return bytes;
}

CaseHash NormalizedCaseHash(const TypedCase& typed) {
  Blake3Hasher hasher = Blake3Hasher::DeriveKey(kCaseHashContext);
  hasher.Update(NormalizedCaseJson(typed));
  return hasher.Finalize();
}

}  // namespace vigilo::cases
