// kubectl's label selector syntax, parsed as apimachinery's labels.Parse
// parses it (same tokens, same grammar, same key and value checks), into the
// LabelSelector the engine already matches pods with.
#include <algorithm>
#include <string>
#include <vector>

#include "tightpack/labels.hpp"

namespace tightpack {
namespace {

enum class Tok : uint8_t {
  kEnd,
  kIdentifier,
  kIn,
  kNotIn,
  kNot,       // !
  kNotEqual,  // !=
  kEqual,     // = or ==
  kGreater,
  kLess,
  kOpen,
  kClose,
  kComma,
  kError,
};

struct Token {
  Tok tok = Tok::kEnd;
  std::string text;
  size_t pos = 0;  // 0-based offset into the selector
};

bool is_space(char c) {
  return c == ' ' || c == '\t' || c == '\r' || c == '\n';
}
bool is_special(char c) {
  return c == '=' || c == '!' || c == '(' || c == ')' || c == ',' || c == '>' || c == '<';
}

std::vector<Token> lex(std::string_view s) {
  std::vector<Token> out;
  size_t i = 0;
  while (true) {
    while (i < s.size() && is_space(s[i])) ++i;
    if (i >= s.size()) break;
    Token t;
    t.pos = i;
    if (is_special(s[i])) {
      // The longest run of symbols that is still one token, as the lexer reads.
      if (s.compare(i, 2, "!=") == 0) {
        t = {Tok::kNotEqual, "!=", i};
      } else if (s.compare(i, 2, "==") == 0) {
        t = {Tok::kEqual, "==", i};
      } else {
        const char c = s[i];
        t.text = std::string(1, c);
        t.tok = c == '!'   ? Tok::kNot
                : c == '=' ? Tok::kEqual
                : c == '>' ? Tok::kGreater
                : c == '<' ? Tok::kLess
                : c == '(' ? Tok::kOpen
                : c == ')' ? Tok::kClose
                           : Tok::kComma;
      }
      i += t.text.size();
    } else {
      size_t start = i;
      while (i < s.size() && !is_space(s[i]) && !is_special(s[i])) ++i;
      t.text = std::string(s.substr(start, i - start));
      t.tok = t.text == "in" ? Tok::kIn : t.text == "notin" ? Tok::kNotIn : Tok::kIdentifier;
    }
    out.push_back(std::move(t));
  }
  out.push_back(Token{Tok::kEnd, "", s.size()});
  return out;
}

class Parser {
 public:
  explicit Parser(std::string_view text) : text_(text), tokens_(lex(text)) {}

  Result<LabelSelector> parse() {
    LabelSelector out;
    if (peek().tok == Tok::kEnd) return out;
    while (true) {
      if (peek().tok != Tok::kIdentifier && peek().tok != Tok::kNot) {
        return fail(peek(), "expected a label key or '!'");
      }
      auto r = requirement();
      if (!r) return r.error();
      out.match_expressions.push_back(std::move(*r));
      const Token& t = next();
      if (t.tok == Tok::kEnd) return out;
      if (t.tok != Tok::kComma) return fail(t, "expected ',' or the end of the selector");
      if (peek().tok != Tok::kIdentifier && peek().tok != Tok::kNot) {
        return fail(peek(), "expected a label key or '!' after ','");
      }
    }
  }

 private:
  const Token& peek() const { return tokens_[at_]; }
  const Token& next() { return tokens_[at_ < tokens_.size() - 1 ? at_++ : at_]; }

  Error fail(const Token& t, const std::string& what) const {
    const std::string found = t.tok == Tok::kEnd ? "the end of the selector" : quote_value(t.text);
    return Error{"", "invalid selector " + quote_value(text_) + " at position " +
                         std::to_string(t.pos + 1) + ": " + what + ", found " + found};
  }
  Error bad(const Token& t, const std::string& what, const std::string& problem) const {
    return Error{"", "invalid selector " + quote_value(text_) + " at position " +
                         std::to_string(t.pos + 1) + ": " + what + " " + quote_value(t.text) +
                         ": " + problem};
  }

  Result<LabelSelectorRequirement> requirement() {
    LabelSelectorRequirement r;
    const bool negated = peek().tok == Tok::kNot;
    if (negated) next();
    const Token& key = next();
    if (key.tok != Tok::kIdentifier) return fail(key, "expected a label key");
    if (std::string p = label_key_problem(key.text); !p.empty()) return bad(key, "label key", p);
    r.key = key.text;
    if (negated || peek().tok == Tok::kEnd || peek().tok == Tok::kComma) {
      r.op = negated ? "DoesNotExist" : "Exists";
      return r;
    }
    const Token& op = next();
    switch (op.tok) {
      case Tok::kEqual:
      case Tok::kNotEqual: {
        r.op = op.tok == Tok::kEqual ? "In" : "NotIn";
        // `k=` with nothing after selects the empty value, as kubectl does.
        std::string value;
        if (peek().tok != Tok::kEnd && peek().tok != Tok::kComma) {
          const Token& v = next();
          if (v.tok != Tok::kIdentifier && v.tok != Tok::kIn && v.tok != Tok::kNotIn) {
            return fail(v, "expected a label value");
          }
          if (std::string p = label_value_problem(v.text); !p.empty())
            return bad(v, "label value", p);
          value = v.text;
        }
        r.values.push_back(std::move(value));
        return r;
      }
      case Tok::kIn:
      case Tok::kNotIn: {
        r.op = op.tok == Tok::kIn ? "In" : "NotIn";
        auto values = value_set();
        if (!values) return values.error();
        r.values = std::move(*values);
        return r;
      }
      case Tok::kGreater:
      case Tok::kLess:
        return fail(op,
                    "numeric comparisons ('>', '<') select nodes, not pods; expected '=', "
                    "'!=', 'in' or 'notin'");
      default:
        return fail(op, "expected '=', '==', '!=', 'in' or 'notin'");
    }
  }

  // `(a, b)`; empty entries (`()`, `(a,)`) are the empty value, as kubectl reads them.
  Result<std::vector<std::string>> value_set() {
    std::vector<std::string> values;
    auto add = [&](std::string v) {
      if (std::find(values.begin(), values.end(), v) == values.end())
        values.push_back(std::move(v));
    };
    const Token& open = next();
    if (open.tok != Tok::kOpen) return fail(open, "expected '('");
    bool want_value = true;
    while (true) {
      const Token& t = next();
      if (t.tok == Tok::kClose) {
        if (want_value) add("");
        return values;
      }
      if (t.tok == Tok::kComma) {
        if (want_value) add("");
        want_value = true;
        continue;
      }
      if ((t.tok == Tok::kIdentifier || t.tok == Tok::kIn || t.tok == Tok::kNotIn) && want_value) {
        if (std::string p = label_value_problem(t.text); !p.empty())
          return bad(t, "label value", p);
        add(t.text);
        want_value = false;
        continue;
      }
      return fail(t, want_value ? "expected a label value, ',' or ')'" : "expected ',' or ')'");
    }
  }

  std::string_view text_;
  std::vector<Token> tokens_;
  size_t at_ = 0;
};

}  // namespace

Result<LabelSelector> parse_label_selector(std::string_view text) {
  return Parser(text).parse();
}

}  // namespace tightpack
