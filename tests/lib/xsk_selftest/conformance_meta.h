// The metadata XDP_METADATA_COPY's program writes in front of each frame; shared with C++.
#pragma once

#include <linux/types.h>

struct conformance_meta {
  __u32 count;
};
