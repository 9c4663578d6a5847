// The layout test's own check (tests/CMakeLists.txt, layout_no_shell_detects): this file must be
// reported at the lines that call a shell, and only there. popen( in a comment is not a call.
#include <cstdio>
#include <cstdlib>
/* system("a"); in a block comment
   popen("b", "r"); still in it */
const char* text = "popen(\"not a call\")"; const char* more = "system(";
int main() {
  FILE* p = popen("ls", "r");
  int rc = std::system("true");  // the only call on line 10
  int t = 1; /* a comment */ rc += system ("x; y");
  rc += my_system(1) + filesystem(2);
  return rc + (p != nullptr);
}
