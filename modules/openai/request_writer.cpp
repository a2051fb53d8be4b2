#include "request_writer.h"

#include <cstring>

#ifdef __SSE2__
#include <emmintrin.h>
#endif

namespace gantry::openai {
namespace {

bool needsEscape(unsigned char c) { return c < 0x20 || c == '"' || c == '\\'; }

/// The first byte from p on that needs an escape, or end.
const char* nextEscape(const char* p, const char* end) {
#ifdef __SSE2__
  const __m128i quote = _mm_set1_epi8('"');
  const __m128i backslash = _mm_set1_epi8('\\');
  const __m128i last_control = _mm_set1_epi8(0x1f);
  for (; end - p >= 16; p += 16) {
    const __m128i bytes = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
    const __m128i control = _mm_cmpeq_epi8(_mm_max_epu8(bytes, last_control), last_control);
    const __m128i special = _mm_or_si128(
        control, _mm_or_si128(_mm_cmpeq_epi8(bytes, quote), _mm_cmpeq_epi8(bytes, backslash)));
    if (const int mask = _mm_movemask_epi8(special); mask != 0) return p + __builtin_ctz(mask);
  }
#endif
  while (p != end && !needsEscape(static_cast<unsigned char>(*p))) ++p;
  return p;
}

void appendEscape(rapidjson::StringBuffer& out, unsigned char c) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  out.Put('\\');
  switch (c) {
    case '"': out.Put('"'); return;
    case '\\': out.Put('\\'); return;
    case '\b': out.Put('b'); return;
    case '\f': out.Put('f'); return;
    case '\n': out.Put('n'); return;
    case '\r': out.Put('r'); return;
    case '\t': out.Put('t'); return;
    default:
      for (char digit : {'u', '0', '0', kHex[c >> 4], kHex[c & 0xf]}) out.Put(digit);
  }
}

void appendEscaped(rapidjson::StringBuffer& out, std::string_view text) {
  const char* p = text.data();
  const char* end = p + text.size();
  while (p != end) {
    const char* run = p;
    p = nextEscape(p, end);
    if (p != run) std::memcpy(out.Push(static_cast<std::size_t>(p - run)), run, p - run);
    if (p == end) break;
    appendEscape(out, static_cast<unsigned char>(*p++));
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

}  // namespace gantry::openai
