#define GUARDLESS 1
#include "include_header_cycle.h"
