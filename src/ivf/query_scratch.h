// Private to the query core (query.cc, query_score.cc): a reader's working
// buffers for ranking, planning and scoring, kept between runs so that a
// query allocates little once they have grown.
#pragma once

#include <cstdint>
#include <vector>

#include "kth_smallest.h"
#include "lvq_screen_internal.h"
#include "publication_reader_state.h"
#include "query_score.h"
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
  QueryScoring::Buffers scoring;
  // Planning (QueryRun::PlanChunks).
  std::vector<PublicationReader::State::PlannedGroup> selected;  // the probed row groups
};

}  // namespace vigilo::ivf
