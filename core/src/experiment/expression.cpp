// Numeric expressions for parameters: "1/n", "0.1/n", "1e-3", "2*K", "(n-1)*K", "2^10".
#include <cctype>
#include <cmath>
#include <string>

#include "dualgap/params.hpp"

namespace dualgap {
namespace {

class Parser {
 public:
  Parser(const std::string& s, const json& vars) : s_(s), vars_(vars) {}
  double parse() {
    double v = sum();
    skip();
    if (p_ != s_.size()) fail("unexpected '" + std::string(1, s_[p_]) + "'");
    return v;
  }

 private:
  [[noreturn]] void fail(const std::string& what) const {
    throw ParamError("in expression '" + s_ + "' at position " + std::to_string(p_ + 1) + ": " +
                     what + " (numbers, + - * / ^, parentheses and the variables n, d, K, N)");
  }
  void skip() {
    while (p_ < s_.size() && std::isspace(static_cast<unsigned char>(s_[p_]))) ++p_;
  }
  bool eat(char c) {
    skip();
    if (p_ < s_.size() && s_[p_] == c) { ++p_; return true; }
    return false;
  }
  double sum() {
    double v = product();
    for (;;) {
      if (eat('+')) v += product();
      else if (eat('-')) v -= product();
      else return v;
    }
  }
  double product() {
    double v = power();
    for (;;) {
      if (eat('*')) v *= power();
      else if (eat('/')) {
        double r = power();
        if (r == 0) fail("division by zero");
        v /= r;
      } else return v;
    }
  }
  double power() {
    double b = unary();
    if (eat('^')) return std::pow(b, power());
    return b;
  }
  double unary() {
    if (eat('-')) return -unary();
    if (eat('+')) return unary();
    return atom();
  }
  double atom() {
    skip();
    if (eat('(')) {
      double v = sum();
      if (!eat(')')) fail("expected ')'");
      return v;
    }
    if (p_ >= s_.size()) fail("expected a number or a variable");
    const char c = s_[p_];
    if (std::isdigit(static_cast<unsigned char>(c)) || c == '.') {
      std::size_t used = 0;
      double v = std::stod(s_.substr(p_), &used);
      p_ += used;
      return v;
    }
    if (std::isalpha(static_cast<unsigned char>(c))) {
      std::size_t b = p_;
      while (p_ < s_.size() && (std::isalnum(static_cast<unsigned char>(s_[p_])) || s_[p_] == '_')) ++p_;
      std::string name = s_.substr(b, p_ - b);
      if (!vars_.contains(name) || !vars_[name].is_number()) {
        p_ = b;
        fail("unknown variable '" + name + "'");
      }
      return vars_[name].get<double>();
    }
    fail("unexpected '" + std::string(1, c) + "'");
  }

  const std::string& s_;
  const json& vars_;
  std::size_t p_ = 0;
};

}  // namespace

double evaluate_expression(const std::string& expr, const json& vars) {
  return Parser(expr, vars).parse();
}

}  // namespace dualgap
