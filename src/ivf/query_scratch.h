// Private to the query core (query.cc, query_score.cc): a reader's working
// buffers for ranking, planning and scoring, kept between runs so that a
// query allocates little once they have grown.
#pragma once

#include <cstdint>
#include <vector>

#include "kth_smallest.h"
#include "lvq_screen_internal.h"
#include "publication_reader_state.h"
#include "vigilo/ivf/lvq_kernels.h"
#include "vigilo/ivf/query_core.h"

namespace vigilo::ivf {

struct PublicationReader::Scratch {
  // Ranking (QueryRun::Advance).
  std::vector<float> zero, distance, lower, upper;
  std::vector<uint32_t> order;
  std::vector<uint64_t> ranked;  // RankKey of the candidates
  KthScratch kth;
  std::vector<ListContext> lists;
  std::vector<screen::ScreenContext> list_screens;
  ListContext alone;
  // Scoring (QueryScoring): grown, never shrunk, so the contexts keep their buffers.
  std::vector<ListContext> prepared;
  std::vector<screen::ScreenContext> screens;
  std::vector<uint32_t> slice_order;  // the slices, in scoring order
  // NearestListsFirst's: the slices' CIDs, each CID's rank (kNotProbed
  // between queries), the ranks' counts, the order being built.
  std::vector<uint32_t> slice_cids, rank_of, rank_count, sorted_slices;
  // Planning (QueryRun::PlanChunks).
  std::vector<PublicationReader::State::PlannedGroup> selected;  // the probed row groups
  std::vector<float> decoded;  // the probed centroids, decoded again for their contexts
};

}  // namespace vigilo::ivf
