#include "dsl/frontend_cache.hpp"

#include "core/cache_entry.hpp"
#include "core/embedded_files.hpp"
#include "core/error.hpp"

namespace mkb {

namespace {

constexpr std::string_view magic = "MKBFRONT1";

} // namespace

frontend_answer run_python_frontend_cached(const frontend_environment &env, std::string_view pinned,
                                           const std::string &request_json, bool *hit) {
  if (hit) *hit = false;
  if (env.cache_dir.empty()) return run_python_frontend(env, request_json);
  const embedded_file *script = find_embedded(embedded::resources(), "dsl/frontends/mkb_frontend.py");
  if (!script) fail(MKB_ERR_INTERNAL, "the DSL frontend script is not built in");
  hasher128 key;
  key.add(magic).add(script->data).add(pinned).add(request_json);
  std::filesystem::path path = cache_entry_path(env.cache_dir, "frontend", key.digest());

  if (auto payload = read_cache_entry(path, magic)) {
    frontend_answer cached{std::vector<uint8_t>(payload->begin(), payload->end()), ""};
    flatbuffers::Verifier verifier(cached.buffer.data(), cached.buffer.size());
    if (frontend::VerifyResponseBuffer(verifier)) {
      if (hit) *hit = true;
      return cached;
    }
  }
  frontend_answer answer = run_python_frontend(env, request_json);
  const frontend::Response *r = answer.response();
  if (!r->error() && r->versions() && r->versions()->string_view() == pinned)
    write_cache_entry(path, magic, std::string_view(reinterpret_cast<const char *>(answer.buffer.data()), answer.buffer.size()));
  return answer;
}

} // namespace mkb
