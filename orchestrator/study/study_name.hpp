// A study's name names its results folder and database (<results>/<study>.sqlite,
// <results>/<study>/runs/), and the site's pages (studies/<study>/): 1 to 100 letters,
// digits, '-', '_' and '.', starting with a letter or digit, so no name is a path of its
// own ("..", "a/b", "/etc"). Checked where a study is read and again where a name read from
// a database becomes a path. Pure function.
#pragma once

#include <string>

namespace scalestudy {

bool is_study_name(const std::string& text);

}  // namespace scalestudy
