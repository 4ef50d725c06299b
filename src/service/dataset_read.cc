#include "vigilo/service/dataset_read.h"
