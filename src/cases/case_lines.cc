#include "vigilo/cases/case_lines.h"
