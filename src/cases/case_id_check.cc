#include "vigilo/cases/case_id_check.h"

#include <cstdint>
#include <cstring>
#include <optional>
#include <string>

namespace vigilo::cases {
namespace {

constexpr std::string_view kAtOrdinal = " at ordinal ";
constexpr std::string_view kRepeatsOrdinal = " repeats the id of ordinal ";
constexpr size_t kRecordBytes = 16 + 4;  // UUID bytes, then the ordinal big-endian (sorts numerically)

int32_t OrdinalOf(std::string_view rec) {
  const auto* p = reinterpret_cast<const uint8_t*>(rec.data() + 16);
  return static_cast<int32_t>((uint32_t{p[0]} << 24) | (uint32_t{p[1]} << 16) | (uint32_t{p[2]} << 8) | p[3]);
}

}  // namespace

Result<CaseIdUniquenessCheck> CaseIdUniquenessCheck::Start(const BudgetConfig& budget,
                                                           const std::filesystem::path& scratch_dir) {
  VIGILO_ASSIGN_OR_RETURN(ExternalSorter sorter,
                          ExternalSorter::Create(ExternalSortOptions{kRecordBytes, budget.external_sort_buffer_bytes,
                                                                     budget.ingestion_validation_spool_bytes,
                                                                     scratch_dir}));
  return CaseIdUniquenessCheck(std::move(sorter));
}

Status CaseIdUniquenessCheck::Add(const Uuid& id, int32_t ordinal) {
  if (ordinal < 0) return Internal("negative case ordinal");
  char rec[kRecordBytes];
  std::memcpy(rec, id.bytes().data(), 16);
  auto u = static_cast<uint32_t>(ordinal);
  rec[16] = static_cast<char>(u >> 24);
  rec[17] = static_cast<char>(u >> 16);
  rec[18] = static_cast<char>(u >> 8);
  rec[19] = static_cast<char>(u);
  return sorter_.Add(std::string_view(rec, kRecordBytes));
}

Status CaseIdUniquenessCheck::Finish() {
  // Records arrive grouped by id, ordinals ascending within a group; a
  // group's second ordinal is where a repeat first occurs.
  struct Repeat {
    Uuid::Bytes id;
    int32_t first;
    int32_t repeat;
  };
  std::optional<Repeat> earliest;
  uint64_t repeats = 0;
  Uuid::Bytes group_id{};
  int32_t group_first = -1;
  bool in_group = false;
  uint64_t group_size = 0;
  VIGILO_RETURN_IF_ERROR(sorter_.Drain([&](std::string_view rec) {
    int32_t ordinal = OrdinalOf(rec);
    if (in_group && std::memcmp(group_id.data(), rec.data(), 16) == 0) {
      ++group_size;
      ++repeats;
      if (group_size == 2 && (!earliest || ordinal < earliest->repeat)) earliest = Repeat{group_id, group_first, ordinal};
      return Status::Ok();
    }
    std::memcpy(group_id.data(), rec.data(), 16);
    group_first = ordinal;
    group_size = 1;
    in_group = true;
    return Status::Ok();
  }));
  if (!earliest) return Status::Ok();
  return InvalidFormat("case id " + Uuid(earliest->id).ToString() + std::string(kAtOrdinal) +
                       std::to_string(earliest->repeat) + std::string(kRepeatsOrdinal) +
                       std::to_string(earliest->first) + " (" + std::to_string(repeats) +
                       (repeats == 1 ? " case repeats" : " cases repeat") + " an earlier id)")
      .WithPath("$.cases[" + std::to_string(earliest->repeat) + "].id");
}

std::optional<DuplicateCaseId> DuplicateCaseIdOf(const Status& status) {
  // Reads back what Finish wrote: "$.cases[J].id" and
  // "case id <UUID> repeats the id of ordinal K (<count>)".
  if (status.code() != StatusCode::kInvalidFormat) return std::nullopt;
  const std::string_view path = status.path();
  const std::string_view message = status.message();
  constexpr std::string_view kPathStart = "$.cases[";
  constexpr std::string_view kPathEnd = "].id";
  constexpr std::string_view kMessageStart = "case id ";
  if (!path.starts_with(kPathStart) || !path.ends_with(kPathEnd) || !message.starts_with(kMessageStart)) {
    return std::nullopt;
  }
  const size_t uuid_at = kMessageStart.size();
  const size_t at_at = uuid_at + 36;
  if (message.size() < at_at || message.substr(at_at, kAtOrdinal.size()) != kAtOrdinal) return std::nullopt;
  const std::string_view rest = message.substr(at_at + kAtOrdinal.size());
  const size_t repeats_at = rest.find(kRepeatsOrdinal);
  if (repeats_at == std::string_view::npos) return std::nullopt;
  auto number = [](std::string_view digits) -> std::optional<int32_t> {
    if (digits.empty() || digits.size() > 10) return std::nullopt;
    int64_t v = 0;
    for (char c : digits) {
      if (c < '0' || c > '9') return std::nullopt;
      v = v * 10 + (c - '0');
    }
    if (v > INT32_MAX) return std::nullopt;
    return static_cast<int32_t>(v);
  };
  DuplicateCaseId d;
  auto repeat = number(path.substr(kPathStart.size(), path.size() - kPathStart.size() - kPathEnd.size()));
  const std::string_view after = rest.substr(repeats_at + kRepeatsOrdinal.size());
  const size_t space = after.find(' ');
  auto first = number(after.substr(0, space));
  auto id = Uuid::Parse(message.substr(uuid_at, 36));
  if (!repeat || !first || !id.ok() || space == std::string_view::npos || number(rest.substr(0, repeats_at)) != repeat) {
    return std::nullopt;
  }
  d.id = *id;
  d.first = *first;
  d.repeat = *repeat;
  d.count = std::string(after.substr(space + 1));
  return d;
}

}  // namespace vigilo::cases
