#include "orchestrator/study/where_expression.hpp"

#include <cstdlib>

#include "harness/core/nearest_name.hpp"
#include "orchestrator/study/scalar_values.hpp"

namespace scalestudy {

class WhereExpression::Parser {
 public:
  Parser(std::string_view text, const std::vector<std::string>& names, WhereExpression& out)
      : text_(text), names_(names), out_(out) {}

  Status parse() {
    Result<int> root = parse_or();
    if (!root) return root.status();
    skip_space();
    if (pos_ != text_.size()) return error("unexpected '" + std::string(text_.substr(pos_)) + "'");
    out_.root_ = *root;
    return Status::ok();
  }

 private:
  Status error(const std::string& message) const {
    return Status::error("at character " + std::to_string(pos_ + 1) + ": " + message);
  }
  void skip_space() {
    while (pos_ < text_.size() && (text_[pos_] == ' ' || text_[pos_] == '\t')) ++pos_;
  }
  static bool is_word_char(char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
           c == '.' || c == '-' || c == '+';
  }
  // Consumes `symbol`, or the keyword `word` when followed by a non-word character.
  bool accept(std::string_view symbol, std::string_view word = {}) {
    skip_space();
    if (text_.substr(pos_, symbol.size()) == symbol) {
      pos_ += symbol.size();
      return true;
    }
    if (!word.empty() && text_.substr(pos_, word.size()) == word &&
        (pos_ + word.size() == text_.size() || !is_word_char(text_[pos_ + word.size()]))) {
      pos_ += word.size();
      return true;
    }
    return false;
  }
  static Node branch(Node::Kind kind, int left, int right) {
    Node node;
    node.kind = kind;
    node.left = left;
    node.right = right;
    return node;
  }
  int add(Node node) {
    out_.nodes_.push_back(std::move(node));
    return static_cast<int>(out_.nodes_.size()) - 1;
  }

  Result<int> parse_or() {
    Result<int> left = parse_and();
    while (left && accept("||", "or")) {
      Result<int> right = parse_and();
      if (!right) return right;
      left = add(branch(Node::Kind::kOr, *left, *right));
    }
    return left;
  }
  Result<int> parse_and() {
    Result<int> left = parse_not();
    while (left && accept("&&", "and")) {
      Result<int> right = parse_not();
      if (!right) return right;
      left = add(branch(Node::Kind::kAnd, *left, *right));
    }
    return left;
  }
  Result<int> parse_not() {
    skip_space();
    if (text_.substr(pos_, 2) != "!=" && accept("!", "not")) {
      Result<int> inner = parse_not();
      if (!inner) return inner;
      return add(branch(Node::Kind::kNot, *inner, -1));
    }
    if (accept("(")) {
      Result<int> inner = parse_or();
      if (!inner) return inner;
      if (!accept(")")) return error("expected ')'");
      return inner;
    }
    return parse_compare();
  }
  Result<int> parse_compare() {
    Node node = branch(Node::Kind::kCompare, -1, -1);
    if (Status status = parse_operand(node.lhs); !status) return status;
    static const std::pair<const char*, Node::Op> kOps[] = {
        {"==", Node::Op::kEq}, {"!=", Node::Op::kNe}, {"<=", Node::Op::kLe},
        {">=", Node::Op::kGe}, {"<", Node::Op::kLt},  {">", Node::Op::kGt}};
    bool found = false;
    for (const auto& [symbol, op] : kOps) {
      if (accept(symbol)) {
        node.op = op;
        found = true;
        break;
      }
    }
    if (!found) return error("expected a comparison (== != < <= > >=)");
    if (Status status = parse_operand(node.rhs); !status) return status;
    return add(std::move(node));
  }
  Status parse_operand(Operand& operand) {
    skip_space();
    if (pos_ >= text_.size()) return error("expected a name or a value");
    char first = text_[pos_];
    if (first == '\'' || first == '"') {
      size_t close = text_.find(first, pos_ + 1);
      if (close == std::string_view::npos) return error("unterminated string");
      operand.literal = std::string(text_.substr(pos_ + 1, close - pos_ - 1));
      pos_ = close + 1;
      return Status::ok();
    }
    size_t start = pos_;
    while (pos_ < text_.size() && is_word_char(text_[pos_])) ++pos_;
    std::string word(text_.substr(start, pos_ - start));
    if (word.empty()) {
      return error("expected a name or a value, got '" + std::string(1, first) + "'");
    }
    if (looks_numeric(word)) {
      operand.literal = canonical_scalar(word, false);
      return Status::ok();
    }
    std::string name = word.rfind("workload.", 0) == 0 ? word.substr(9) : word;
    for (size_t i = 0; i < names_.size(); ++i) {
      if (names_[i] == name) {
        operand.slot = static_cast<int>(i);
        return Status::ok();
      }
    }
    pos_ = start;
    std::string message = "unknown name '" + word + "'";
    if (auto suggestion = nearest_name(name, names_)) {
      message += " (did you mean '" + *suggestion + "'?)";
    } else {
      message += " (quote text values: '" + word + "')";
    }
    return error(message);
  }

  std::string_view text_;
  const std::vector<std::string>& names_;
  WhereExpression& out_;
  size_t pos_ = 0;
};

Result<WhereExpression> WhereExpression::parse(std::string_view text,
                                               const std::vector<std::string>& names) {
  WhereExpression expression;
  Parser parser(text, names, expression);
  if (Status status = parser.parse(); !status) return status;
  return expression;
}

bool WhereExpression::evaluate(const std::vector<std::string>& values) const {
  return evaluate_node(root_, values);
}

bool WhereExpression::evaluate_node(int index, const std::vector<std::string>& values) const {
  const Node& node = nodes_[index];
  switch (node.kind) {
    case Node::Kind::kOr:
      return evaluate_node(node.left, values) || evaluate_node(node.right, values);
    case Node::Kind::kAnd:
      return evaluate_node(node.left, values) && evaluate_node(node.right, values);
    case Node::Kind::kNot:
      return !evaluate_node(node.left, values);
    case Node::Kind::kCompare:
      break;
  }
  const std::string& lhs = node.lhs.slot >= 0 ? values[node.lhs.slot] : node.lhs.literal;
  const std::string& rhs = node.rhs.slot >= 0 ? values[node.rhs.slot] : node.rhs.literal;
  int order;
  if (looks_numeric(lhs) && looks_numeric(rhs)) {
    double a = std::strtod(lhs.c_str(), nullptr), b = std::strtod(rhs.c_str(), nullptr);
    order = a < b ? -1 : (a > b ? 1 : 0);
  } else {
    order = lhs.compare(rhs);
  }
  switch (node.op) {
    case Node::Op::kEq:
      return order == 0;
    case Node::Op::kNe:
      return order != 0;
    case Node::Op::kLt:
      return order < 0;
    case Node::Op::kLe:
      return order <= 0;
    case Node::Op::kGt:
      return order > 0;
    case Node::Op::kGe:
      return order >= 0;
  }
  return false;
}

}  // namespace scalestudy
