#include <iostream>
int main() { std::cerr << "dualgap: CLI under construction\n"; return 2; }
