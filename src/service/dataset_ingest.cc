#include "vigilo/service/dataset_ingest.h"
