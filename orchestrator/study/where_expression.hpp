// WhereExpression: the small, safe filter language of a study's `where` field, e.g.
// "world_size >= 2 and precision != 'fp32'". Grammar: comparisons (== != < <= > >=) of
// names and literals ('text', "text", numbers), combined with and/or/not (&& || !) and
// parentheses. Two numbers compare as numbers, anything else as text. Nothing is ever
// passed to a shell or an interpreter. Parsed once, evaluated per run; immutable after
// parsing, so evaluation is thread-safe.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "harness/core/status.hpp"

namespace scalestudy {

class WhereExpression {
 public:
  // `names[i]` is the variable evaluate() finds at values[i]; "workload.x" means "x".
  // Errors name the character position and suggest the nearest known name.
  static Result<WhereExpression> parse(std::string_view text,
                                       const std::vector<std::string>& names);

  bool evaluate(const std::vector<std::string>& values) const;

 private:
  struct Operand {
    int slot = -1;        // >= 0: a variable
    std::string literal;  // otherwise this text
  };
  struct Node {
    enum class Kind { kOr, kAnd, kNot, kCompare } kind = Kind::kCompare;
    enum class Op { kEq, kNe, kLt, kLe, kGt, kGe } op = Op::kEq;
    int left = -1, right = -1;  // child nodes (kOr, kAnd, kNot uses left)
    Operand lhs, rhs;           // kCompare
  };
  class Parser;

  bool evaluate_node(int index, const std::vector<std::string>& values) const;

  std::vector<Node> nodes_;
  int root_ = -1;
};

}  // namespace scalestudy
