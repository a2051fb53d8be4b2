#include "request_writer.h"

#include <cstring>
#include <tuple>
#include <utility>

#ifdef __SSE2__
#include <emmintrin.h>
#endif

namespace gantry::openai {
namespace {

bool needsEscape(unsigned char c) { return c < 0x20 || c == '"' || c == '\\'; }

/// Copies bytes from p to out up to the first that needs an escape, or end; returns where
/// both stopped. Sixteen bytes are copied at a time, past the stop when it falls within them,
/// so out must have room for end - p bytes however soon it stops.
std::pair<const char*, char*> copyUntilEscape(const char* p, const char* end, char* out) {
#ifdef __SSE2__
  const __m128i quote = _mm_set1_epi8('"');
  const __m128i backslash = _mm_set1_epi8('\\');
  const __m128i last_control = _mm_set1_epi8(0x1f);
  for (; end - p >= 16; p += 16, out += 16) {
    const __m128i bytes = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
    _mm_storeu_si128(reinterpret_cast<__m128i*>(out), bytes);
    const __m128i control = _mm_cmpeq_epi8(_mm_max_epu8(bytes, last_control), last_control);
    const __m128i special = _mm_or_si128(
        control, _mm_or_si128(_mm_cmpeq_epi8(bytes, quote), _mm_cmpeq_epi8(bytes, backslash)));
    if (const int mask = _mm_movemask_epi8(special); mask != 0) {
      const int clean = __builtin_ctz(static_cast<unsigned>(mask));
      return {p + clean, out + clean};
    }
  }
#endif
  while (p != end && !needsEscape(static_cast<unsigned char>(*p))) *out++ = *p++;
  return {p, out};
}

/// Writes the escape of c at out; returns the end of what it wrote.
char* writeEscape(char* out, unsigned char c) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  *out++ = '\\';
  switch (c) {
    case '"': *out++ = '"'; return out;
    case '\\': *out++ = '\\'; return out;
    case '\b': *out++ = 'b'; return out;
    case '\f': *out++ = 'f'; return out;
    case '\n': *out++ = 'n'; return out;
    case '\r': *out++ = 'r'; return out;
    case '\t': *out++ = 't'; return out;
    default:
      for (char digit : {'u', '0', '0', kHex[c >> 4], kHex[c & 0xf]}) *out++ = digit;
      return out;
  }
}

/// Longest escape of one byte: \u00XX.
constexpr std::size_t kMaxEscapedBytes = 6;
/// Text is escaped this many bytes at a time into room for the worst case, so the buffer is
/// checked for room once a chunk instead of once a byte written, and grows by at most
/// kChunkBytes * kMaxEscapedBytes past what it keeps. The room left never falls below what
/// is left of the chunk, as copyUntilEscape needs.
constexpr std::size_t kChunkBytes = 4096;

void appendEscaped(rapidjson::StringBuffer& out, std::string_view text) {
  for (std::size_t at = 0; at < text.size(); at += kChunkBytes) {
    const std::string_view chunk = text.substr(at, kChunkBytes);
    const std::size_t room = chunk.size() * kMaxEscapedBytes;
    char* const begin = out.Push(room);
    char* written = begin;
    const char* p = chunk.data();
    const char* const end = p + chunk.size();
    while (p != end) {
      std::tie(p, written) = copyUntilEscape(p, end, written);
      if (p == end) break;
      written = writeEscape(written, static_cast<unsigned char>(*p++));
    }
    out.Pop(room - static_cast<std::size_t>(written - begin));
  }
}

}  // namespace

bool RequestWriter::Text(std::string_view text) {
  Prefix(rapidjson::kStringType);
  os_->Put('"');
  appendEscaped(*os_, text);
  os_->Put('"');
  return EndValue(true);
}

bool RequestWriter::Raw(std::string_view json, rapidjson::Type type) {
  Prefix(type);
  if (!json.empty()) std::memcpy(os_->Push(json.size()), json.data(), json.size());
  return EndValue(true);
}

}  // namespace gantry::openai
