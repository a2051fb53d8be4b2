#include "chat/reply_media.h"

#include <catch2/catch.hpp>
#include <string>

#include "gantry/text/trim.h"

using gantry::chat::findImage;
using gantry::chat::ReplyImage;

namespace {

/// Ordinary prose of about n characters, with no link and no image in it.
std::string prose(std::size_t n) {
  std::string text;
  while (text.size() < n) text += "A sentence of an ordinary reply [with a note] and (asides). ";
  return text;
}

/// The image findImage finds in reply; the test stops when it finds none.
ReplyImage imageIn(const std::string& reply) {
  auto image = findImage(reply);
  REQUIRE(image.has_value());
  return *image;
}

}  // namespace

TEST_CASE("a reply without a link has no image", "[reply_media]") {
  CHECK_FALSE(findImage("").has_value());
  CHECK_FALSE(findImage("noted").has_value());
  CHECK_FALSE(findImage(prose(2500)).has_value());
  CHECK_FALSE(findImage("see ![a diagram] in the attachment").has_value());
  CHECK_FALSE(findImage("the page https://example.com/cat is not an image").has_value());
}

TEST_CASE("a markdown image becomes the photo and the rest its caption", "[reply_media]") {
  const ReplyImage image = imageIn("Here it is ![cat](https://example.com/cat.png) enjoy");
  CHECK(image.url == "https://example.com/cat.png");
  CHECK(image.caption == "Here it is  enjoy");
}

TEST_CASE("an image far into a long reply is found, its caption whole", "[reply_media]") {
  const std::string before = prose(2000) + "[not an image] ";
  const std::string after = " " + prose(300);
  const ReplyImage image = imageIn(before + "![chart](http://example.com/chart.webp)" + after);
  CHECK(image.url == "http://example.com/chart.webp");
  CHECK(image.caption == gantry::text::trim(before + after));
}

TEST_CASE("an early image marker with no link does not hide a later image", "[reply_media]") {
  const ReplyImage image =
      imageIn("use ![x] as a marker; here: ![dog](https://example.com/dog.jpg)");
  CHECK(image.url == "https://example.com/dog.jpg");
  CHECK(image.caption == "use ![x] as a marker; here:");
}

TEST_CASE("a bare image link is found in any case after other links", "[reply_media]") {
  const ReplyImage image =
      imageIn("docs at https://example.com/guide and HTTPS://EXAMPLE.COM/Photo.JPEG?size=2 too");
  CHECK(image.url == "HTTPS://EXAMPLE.COM/Photo.JPEG?size=2");
  CHECK(image.caption == "docs at https://example.com/guide and  too");
  const ReplyImage alone = imageIn("HTTP://EXAMPLE.COM/P.GIF");
  CHECK(alone.url == "HTTP://EXAMPLE.COM/P.GIF");
  CHECK(alone.caption.empty());
}

TEST_CASE("a bare link is found past an earlier \"http\" that starts none", "[reply_media]") {
  const ReplyImage image =
      imageIn("the http spec, then Https://example.com/shot.png and xhttp://b.gif");
  CHECK(image.url == "Https://example.com/shot.png");
  CHECK(image.caption == "the http spec, then  and xhttp://b.gif");
}

TEST_CASE("a markdown image wins over an earlier bare one", "[reply_media]") {
  const ReplyImage image =
      imageIn("https://example.com/a.png then ![b](https://example.com/b.png)");
  CHECK(image.url == "https://example.com/b.png");
}
