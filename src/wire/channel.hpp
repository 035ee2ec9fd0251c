// Length-prefixed frames over a stream socket: a 4-byte little-endian size, then the bytes of one
// flatbuffer. Both ends verify each buffer before reading it.
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <span>
#include <vector>

namespace mkb::wire {

inline constexpr uint32_t max_frame_bytes = 256u << 20;

using deadline = std::optional<std::chrono::steady_clock::time_point>;

enum class receive_status { ok, closed, timed_out };

// Throws mkb::error(MKB_ERR_WORKER) if the peer is gone.
void send_frame(int fd, std::span<const uint8_t> frame);

// Waits until a whole frame arrived, the peer closed, or the deadline passed. A malformed frame
// (oversized) is reported as closed: the stream cannot be trusted after it.
receive_status receive_frame(int fd, std::vector<uint8_t> &frame, deadline until = std::nullopt);

} // namespace mkb::wire
