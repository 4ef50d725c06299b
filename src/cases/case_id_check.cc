#include "vigilo/cases/case_id_check.h"

#include <cstring>
#include <optional>
#include <string>

namespace vigilo::cases {
namespace {

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
  return InvalidFormat("case id " + Uuid(earliest->id).ToString() + " at ordinal " +
                       std::to_string(earliest->repeat) + " repeats the id of ordinal " +
                       std::to_string(earliest->first) + " (" + std::to_string(repeats) +
                       (repeats == 1 ? " case repeats" : " cases repeat") + " an earlier id)")
      .WithPath("$.cases[" + std::to_string(earliest->repeat) + "].id");
}

}  // namespace vigilo::cases
