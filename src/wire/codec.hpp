// The only translator between the library's plain values (src/model) and the worker's frames
// (messages.fbs). Both ends use the same functions, so a field added on one side cannot be forgotten on
// the other, and nothing outside this file sees a generated flatbuffers type.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "model/worker_messages.hpp"

namespace mkb::wire {

std::vector<uint8_t> encode_request(const worker_request &request);
std::vector<uint8_t> encode_response(const worker_response &response);

// The message in a received frame, or nothing when the bytes do not verify as one.
std::optional<worker_request> decode_request(const std::vector<uint8_t> &frame);
std::optional<worker_response> decode_response(const std::vector<uint8_t> &frame);

} // namespace mkb::wire
