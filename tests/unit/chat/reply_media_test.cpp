#include "chat/reply_media.h"

#include <catch2/catch.hpp>
#include <string>

#include "gantry/text/trim.h"

using gantry::chat::findImage;

namespace {

/// Ordinary prose of about n characters, with no link and no image in it.
std::string prose(std::size_t n) {
  std::string text;
  while (text.size() < n) text += "A sentence of an ordinary reply [with a note] and (asides). ";
  return text;
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
  auto image = findImage("Here it is ![cat](https://example.com/cat.png) enjoy");
  REQUIRE(image.has_value());
  CHECK(image->url == "https://example.com/cat.png");
  CHECK(image->caption == "Here it is  enjoy");
}

TEST_CASE("an image far into a long reply is found, its caption whole", "[reply_media]") {
  const std::string before = prose(2000) + "[not an image] ";
  const std::string after = " " + prose(300);
  auto image = findImage(before + "![chart](http://example.com/chart.webp)" + after);
  REQUIRE(image.has_value());
  CHECK(image->url == "http://example.com/chart.webp");
  CHECK(image->caption == gantry::text::trim(before + after));
}

TEST_CASE("an early image marker with no link does not hide a later image", "[reply_media]") {
  auto image = findImage("use ![x] as a marker; here: ![dog](https://example.com/dog.jpg)");
  REQUIRE(image.has_value());
  CHECK(image->url == "https://example.com/dog.jpg");
  CHECK(image->caption == "use ![x] as a marker; here:");
}

TEST_CASE("a bare image link is found in any case after other links", "[reply_media]") {
  auto image =
      findImage("docs at https://example.com/guide and HTTPS://EXAMPLE.COM/Photo.JPEG?size=2 too");
  REQUIRE(image.has_value());
  CHECK(image->url == "HTTPS://EXAMPLE.COM/Photo.JPEG?size=2");
  CHECK(image->caption == "docs at https://example.com/guide and  too");
  auto alone = findImage("HTTP://EXAMPLE.COM/P.GIF");
  REQUIRE(alone.has_value());
  CHECK(alone->url == "HTTP://EXAMPLE.COM/P.GIF");
  CHECK(alone->caption.empty());
}

TEST_CASE("a bare link is found past an earlier \"http\" that starts none", "[reply_media]") {
  auto image = findImage("the http spec, then Https://example.com/shot.png and xhttp://b.gif");
  REQUIRE(image.has_value());
  CHECK(image->url == "Https://example.com/shot.png");
  CHECK(image->caption == "the http spec, then  and xhttp://b.gif");
}

TEST_CASE("a markdown image wins over an earlier bare one", "[reply_media]") {
  auto image = findImage("https://example.com/a.png then ![b](https://example.com/b.png)");
  REQUIRE(image.has_value());
  CHECK(image->url == "https://example.com/b.png");
}
