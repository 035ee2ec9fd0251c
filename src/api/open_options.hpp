// mkb_open_options, the ABI struct, to a session's configuration: defaults and validation. A wrong
// value fails with MKB_ERR_CONFIG naming the field and what was expected. Here rather than in
// protocol/, so that only the C ABI layer (and the tools above it) reads the ABI's structs.
#pragma once

#include "mkb.h"
#include "protocol/session_config.hpp"

namespace mkb {

// `options` may be null (all defaults). Reads only the fields inside options->struct_size.
session_config config_from_options(const mkb_open_options *options);

} // namespace mkb
