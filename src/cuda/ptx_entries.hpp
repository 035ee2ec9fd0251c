// Kernel entries and their parameter sizes read from PTX text: the compile-only stand-in for
// cuFuncGetParamInfo, so plans are checked against the code on machines without a GPU.
#pragma once

#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace mkb {

// entry name -> byte size of each parameter, in order.
std::map<std::string, std::vector<size_t>> ptx_entry_parameters(std::string_view ptx);

} // namespace mkb
