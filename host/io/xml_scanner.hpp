// A small XML scanner for the .vtu reader (mesh_io_vtu.cpp): it hands out tags (name,
// attributes, line) and the text between them; comments, processing instructions and DOCTYPE
// are skipped, CDATA is text. No XML library: enough for our own writer's output and ParaView's.
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "host/io/mesh_io_common.hpp"

namespace softik::mesh_io {

struct XmlEvent {
  enum Kind { kText, kOpen, kClose, kEmpty } kind = kText;  // kEmpty: <tag ... />
  std::string name;
  std::vector<std::pair<std::string, std::string>> attributes;
  std::string_view text;
  long line = 0;

  const std::string* attribute(const char* key) const {
    for (const auto& [k, v] : attributes)
      if (k == key) return &v;
    return nullptr;
  }
};

inline bool xml_is_space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }
inline bool xml_is_name_char(char c) {
  return !xml_is_space(c) && c != '=' && c != '>' && c != '/' && c != '<' && c != '"' && c != '\'';
}

// Replaces the five predefined entities and numeric character references below 128.
inline std::string xml_unescape(std::string_view s) {
  std::string out;
  for (size_t i = 0; i < s.size(); ++i) {
    const size_t semi = s[i] == '&' ? s.find(';', i) : std::string_view::npos;
    if (semi == std::string_view::npos || semi - i > 8) {
      out += s[i];
      continue;
    }
    const std::string_view entity = s.substr(i + 1, semi - i - 1);
    char c = 0;
    if (entity == "lt")
      c = '<';
    else if (entity == "gt")
      c = '>';
    else if (entity == "amp")
      c = '&';
    else if (entity == "quot")
      c = '"';
    else if (entity == "apos")
      c = '\'';
    else if (entity.size() > 1 && entity[0] == '#') {
      long code = 0;
      const bool hex = entity[1] == 'x' || entity[1] == 'X';
      for (size_t k = hex ? 2 : 1; k < entity.size() && code < 128; ++k) {
        const char d = entity[k];
        const int v = d >= '0' && d <= '9'          ? d - '0'
                      : hex && d >= 'a' && d <= 'f' ? d - 'a' + 10
                      : hex && d >= 'A' && d <= 'F' ? d - 'A' + 10
                                                    : -1;
        code = v < 0 ? 128 : code * (hex ? 16 : 10) + v;
      }
      if (code > 0 && code < 128) c = static_cast<char>(code);
    }
    if (c == 0) {
      out += s[i];
      continue;
    }
    out += c;
    i = semi;
  }
  return out;
}

class XmlScanner {
 public:
  explicit XmlScanner(const TextFile& file) : file_(file), text_(file.text()) {}

  /// The next event; false at the end of the text.
  bool next(XmlEvent* e) {
    while (pos_ < text_.size()) {
      if (text_[pos_] != '<') {
        size_t end = text_.find('<', pos_);
        if (end == std::string::npos) end = text_.size();
        e->kind = XmlEvent::kText;
        e->text = std::string_view(text_).substr(pos_, end - pos_);
        e->line = line_;
        advance(end);
        return true;
      }
      const long start_line = line_;
      if (starts_with("<!--")) {
        skip_past("-->", start_line, "comment");
      } else if (starts_with("<![CDATA[")) {
        const size_t end = text_.find("]]>", pos_);
        SOFTIK_PARSE_CHECK(end != std::string::npos, file_.eof_where(),
                           "unexpected end of file inside the CDATA section started at line " << start_line);
        e->kind = XmlEvent::kText;
        e->text = std::string_view(text_).substr(pos_ + 9, end - pos_ - 9);
        e->line = start_line;
        advance(end + 3);
        return true;
      } else if (starts_with("<?")) {
        skip_past("?>", start_line, "processing instruction");
      } else if (starts_with("<!")) {
        skip_past(">", start_line, "declaration");
      } else {
        read_tag(e);
        return true;
      }
    }
    return false;
  }

  /// The byte just after the last event handed out (for data that follows a tag, such as the
  /// raw bytes of <AppendedData>, which must not be scanned as XML).
  size_t offset() const { return pos_; }

 private:
  bool starts_with(const char* s) const { return text_.compare(pos_, std::char_traits<char>::length(s), s) == 0; }

  void advance(size_t to) {
    for (; pos_ < to; ++pos_)
      if (text_[pos_] == '\n') ++line_;
  }

  void skip_past(const char* end, long start_line, const char* what) {
    const size_t p = text_.find(end, pos_ + 1);
    SOFTIK_PARSE_CHECK(p != std::string::npos, file_.eof_where(),
                       "unexpected end of file inside the XML " << what << " started at line " << start_line);
    advance(p + std::char_traits<char>::length(end));
  }

  void skip_spaces() {
    while (pos_ < text_.size() && xml_is_space(text_[pos_])) advance(pos_ + 1);
  }

  void expect_more(long start_line) const {
    SOFTIK_PARSE_CHECK(pos_ < text_.size(), file_.eof_where(),
                       "unexpected end of file inside the XML tag started at line " << start_line << " (truncated?)");
  }

  std::string read_name() {
    const size_t start = pos_;
    while (pos_ < text_.size() && xml_is_name_char(text_[pos_])) ++pos_;
    return text_.substr(start, pos_ - start);
  }

  void read_tag(XmlEvent* e) {
    e->line = line_;
    e->attributes.clear();
    ++pos_;  // '<'
    e->kind = XmlEvent::kOpen;
    if (pos_ < text_.size() && text_[pos_] == '/') {
      e->kind = XmlEvent::kClose;
      ++pos_;
    }
    e->name = read_name();
    SOFTIK_PARSE_CHECK(!e->name.empty(), file_.where(e->line), "malformed XML: '<' not followed by a tag name");
    for (;;) {
      skip_spaces();
      expect_more(e->line);
      const char c = text_[pos_];
      if (c == '>') {
        ++pos_;
        return;
      }
      if (c == '/' && e->kind == XmlEvent::kOpen) {
        ++pos_;
        expect_more(e->line);
        SOFTIK_PARSE_CHECK(text_[pos_] == '>', file_.where(line_),
                           "malformed XML tag <" << e->name << ">: '/' not followed by '>'");
        ++pos_;
        e->kind = XmlEvent::kEmpty;
        return;
      }
      SOFTIK_PARSE_CHECK(e->kind == XmlEvent::kOpen, file_.where(line_),
                         "malformed XML: attributes in </" << e->name << ">");
      std::string key = read_name();
      SOFTIK_PARSE_CHECK(!key.empty(), file_.where(line_),
                         "malformed XML tag <" << e->name << ">: unexpected character '" << c << "'");
      skip_spaces();
      expect_more(e->line);
      SOFTIK_PARSE_CHECK(text_[pos_] == '=', file_.where(line_),
                         "malformed XML tag <" << e->name << ">: attribute " << key << " has no '=\"value\"'");
      advance(pos_ + 1);
      skip_spaces();
      expect_more(e->line);
      const char quote = text_[pos_];
      SOFTIK_PARSE_CHECK(quote == '"' || quote == '\'', file_.where(line_),
                         "malformed XML tag <" << e->name << ">: the value of " << key << " is not quoted");
      const size_t end = text_.find(quote, pos_ + 1);
      SOFTIK_PARSE_CHECK(end != std::string::npos, file_.eof_where(),
                         "unexpected end of file inside the XML tag started at line " << e->line << " (truncated?)");
      e->attributes.emplace_back(std::move(key),
                                 xml_unescape(std::string_view(text_).substr(pos_ + 1, end - pos_ - 1)));
      advance(end + 1);
    }
  }

  const TextFile& file_;
  const std::string& text_;
  size_t pos_ = 0;
  long line_ = 1;
};

}  // namespace softik::mesh_io
