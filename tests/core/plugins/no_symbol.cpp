// A shared library without the dualgap_plugin symbol.
extern "C" __attribute__((visibility("default"))) int some_other_function() { return 42; }
